package browse

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"

	"github.com/pipefs/pipefs/adapters/array"
)

// Bounds of a preview: its size, and the work it may take.
const (
	previewSide      = 512       // pixels a side, at most
	maxPreviewChunks = 256       // chunks decoded
	maxPreviewBytes  = 256 << 20 // bytes decoded
)

// A previewPlan is the box of an array that its preview shows.
type previewPlan struct {
	start, stop []int64
	h, w        int64 // the plane's height and width
	channels    int64 // an image's channels; 0 for a plane of numbers
	note        string
}

// planPreview returns what the preview of array node n reads: the 2-D
// plane of its last two axes at index 0 of the leading ones, or an image
// whole. It fails with 501 for elements that are not numbers and with
// 422 for an array with fewer than two axes, an empty plane, or a plane
// whose chunks exceed the bounds of a preview.
func planPreview(n *array.Node) (*previewPlan, error) {
	a := n.Array
	if a == nil {
		return nil, statusError(http.StatusUnprocessableEntity, "a group has no preview")
	}
	if !previewable(a.DType) {
		return nil, &httpError{status: http.StatusNotImplemented, msg: fmt.Sprintf("%s elements are not numbers: no preview", a.DType.Name)}
	}
	nd := len(a.Shape)
	p := &previewPlan{start: make([]int64, nd), stop: make([]int64, nd)}
	ya, xa := nd-2, nd-1
	if pic, ok := n.Source.(array.Picture); ok && nd == 3 {
		ya, xa = 0, 1
		p.channels = a.Shape[2]
		p.stop[2] = a.Shape[2]
		p.note = fmt.Sprintf("%s image, %d×%d", pic.PictureChannels(), a.Shape[1], a.Shape[0])
		if p.channels < 1 || p.channels > 4 {
			return nil, &httpError{status: http.StatusNotImplemented, msg: fmt.Sprintf("an image of %d channels has no preview", p.channels)}
		}
	}
	if nd < 2 {
		return nil, statusError(http.StatusUnprocessableEntity, "a %d-D array has no 2-D plane to preview", nd)
	}
	for i := range nd {
		if i != ya && i != xa && p.stop[i] == 0 {
			if a.Shape[i] == 0 {
				return nil, statusError(http.StatusUnprocessableEntity, "the array is empty: no preview")
			}
			p.stop[i] = 1
		}
	}
	p.h, p.w = a.Shape[ya], a.Shape[xa]
	p.stop[ya], p.stop[xa] = p.h, p.w
	if p.h == 0 || p.w == 0 {
		return nil, statusError(http.StatusUnprocessableEntity, "the array is empty: no preview")
	}
	chunks := int64(1)
	for i := range nd {
		chunks *= (p.stop[i] + a.ChunkShape[i] - 1) / a.ChunkShape[i]
		if chunks > maxPreviewChunks {
			return nil, statusError(http.StatusUnprocessableEntity, "the preview would decode more than %d chunks: read the array with pipefs array --box", maxPreviewChunks)
		}
	}
	if chunks*a.ChunkBytes() > maxPreviewBytes {
		return nil, statusError(http.StatusUnprocessableEntity, "the preview would decode %d chunks of %d bytes, more than %d MiB: read the array with pipefs array --box", chunks, a.ChunkBytes(), maxPreviewBytes>>20)
	}
	if p.note == "" {
		p.note = fmt.Sprintf("axes %d and %d (%d×%d)", ya, xa, p.w, p.h)
		if nd > 2 {
			p.note += ", index 0 of the leading axes"
		}
		p.note += ", scaled from minimum (black) to maximum (white)"
	}
	return p, nil
}

// previewable reports whether elements of d are numbers that a preview
// shows: booleans, integers and floating-point numbers.
func previewable(d array.DType) bool {
	switch d.Kind {
	case 'b':
		return d.Size == 1
	case 'i', 'u':
		return d.Size == 1 || d.Size == 2 || d.Size == 4 || d.Size == 8
	case 'f':
		return d.Size == 2 || d.Size == 4 || d.Size == 8
	}
	return false
}

// servePreview answers ?preview=png on the page of an array: a PNG of its
// plan, at most previewSide pixels a side, kept with the layer.
func (h *Handler) servePreview(w http.ResponseWriter, r *http.Request, t *target, format string) error {
	if format != "png" {
		return statusError(http.StatusBadRequest, "preview=%q: the preview format is png", format)
	}
	if t.node == nil {
		return statusError(http.StatusNotFound, "%s is not an array: it has no preview", t.pipeline())
	}
	plan, err := planPreview(t.node)
	if err != nil {
		return err
	}
	p, err := h.preview(r.Context(), t, plan)
	if err != nil {
		return err
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "image/png")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", "sandbox")
	hdr.Set("Cache-Control", "no-cache")
	w.Write(p.png)
	return nil
}

// A previewed plane is the preview of an array and the range of the
// values it was drawn from.
type previewed struct {
	png []byte
	rng *rangeView
}

// preview draws the preview of the array of t, by plan, or returns the
// one kept with the layer.
func (h *Handler) preview(ctx context.Context, t *target, plan *previewPlan) (*previewed, error) {
	return remember(t.l, "preview\x00"+t.name+"\x00"+t.child, "", func(p *previewed) int { return len(p.png) + 256 }, func() (*previewed, error) {
		return renderPreview(ctx, t.node.Array, plan)
	})
}

// renderPreview reads the box of plan and draws it as a PNG, keeping every
// step-th pixel so that neither side exceeds previewSide, with the range of
// every value of the box.
func renderPreview(ctx context.Context, a *array.Array, plan *previewPlan) (*previewed, error) {
	data, err := a.ReadBox(ctx, plan.start, plan.stop, maxPreviewBytes)
	if err != nil {
		return nil, err
	}
	rng := &valueRange{d: a.DType}
	rng.addAll(data)
	of := "the previewed plane"
	if plan.channels > 0 {
		of = "the image's samples"
	}
	step := max((max(plan.h, plan.w)+previewSide-1)/previewSide, 1)
	oh, ow := int((plan.h+step-1)/step), int((plan.w+step-1)/step)
	size := int64(a.DType.Size)
	var img image.Image
	if plan.channels > 0 {
		m := image.NewNRGBA(image.Rect(0, 0, ow, oh))
		c := plan.channels
		for y := range oh {
			for x := range ow {
				at := ((int64(y)*step*plan.w + int64(x)*step) * c) * size
				var v [4]uint8
				for k := range c {
					off := at + k*size
					v[k] = data[off+size-1] // the high byte of a little-endian sample
				}
				var px color.NRGBA
				switch c {
				case 1:
					px = color.NRGBA{v[0], v[0], v[0], 255}
				case 2:
					px = color.NRGBA{v[0], v[0], v[0], v[1]}
				case 3:
					px = color.NRGBA{v[0], v[1], v[2], 255}
				default:
					px = color.NRGBA{v[0], v[1], v[2], v[3]}
				}
				m.SetNRGBA(x, y, px)
			}
		}
		img = m
	} else {
		vals := make([]float64, oh*ow)
		lo, hi := math.Inf(1), math.Inf(-1)
		for y := range oh {
			for x := range ow {
				off := (int64(y)*step*plan.w + int64(x)*step) * size
				v := element(a.DType, data[off:off+size])
				vals[y*ow+x] = v
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
		}
		m := image.NewGray(image.Rect(0, 0, ow, oh))
		for i, v := range vals {
			g := uint8(0)
			if hi > lo && !math.IsNaN(v) && !math.IsInf(v, 0) {
				g = uint8(math.Round((v - lo) / (hi - lo) * 255))
			} else if hi == lo && v == hi && v != 0 {
				g = 255
			}
			m.Pix[i] = g
		}
		img = m
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		return nil, err
	}
	return &previewed{png: b.Bytes(), rng: rng.view(of)}, nil
}

// element returns one little-endian element of type d as a float64.
func element(d array.DType, b []byte) float64 {
	le := binary.LittleEndian
	switch d.Kind {
	case 'b':
		if b[0] != 0 {
			return 1
		}
		return 0
	case 'i':
		switch d.Size {
		case 1:
			return float64(int8(b[0]))
		case 2:
			return float64(int16(le.Uint16(b)))
		case 4:
			return float64(int32(le.Uint32(b)))
		default:
			return float64(int64(le.Uint64(b)))
		}
	case 'u':
		switch d.Size {
		case 1:
			return float64(b[0])
		case 2:
			return float64(le.Uint16(b))
		case 4:
			return float64(le.Uint32(b))
		default:
			return float64(le.Uint64(b))
		}
	}
	switch d.Size {
	case 2:
		return halfFloat(le.Uint16(b))
	case 4:
		return float64(math.Float32frombits(le.Uint32(b)))
	default:
		return math.Float64frombits(le.Uint64(b))
	}
}

// halfFloat converts an IEEE 754 binary16 value.
func halfFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}
