package browse

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
)

// maxValues bounds the values that the page of a 1-D or scalar array
// lists.
const maxValues = 100

// A rangeView is the range of the values that a page previews or lists:
// the smallest and largest, written as "pipefs array" writes elements,
// and for floating-point values the number of NaNs, which the range
// leaves out (it holds infinities).
type rangeView struct {
	Of    string `json:"of"`            // which values: "the preview's plane", "values 0 to 99"
	Count int64  `json:"count"`         // how many
	Min   string `json:"min,omitempty"` // "" when every value is NaN
	Max   string `json:"max,omitempty"`
	NaN   int64  `json:"nan"` // for floating-point values; 0 for others
	Float bool   `json:"-"`
}

// A valueRange accumulates the range of numeric elements of one type,
// exactly: integers as integers, floats as float64.
type valueRange struct {
	d          array.DType
	n, nan     int64
	seen       bool
	imin, imax int64
	umin, umax uint64
	fmin, fmax float64
}

// addAll adds the elements of data, little-endian elements of the range's
// type.
func (r *valueRange) addAll(data []byte) {
	size := r.d.Size
	for off := 0; off+size <= len(data); off += size {
		r.add(data[off : off+size])
	}
}

// add adds one element.
func (r *valueRange) add(b []byte) {
	r.n++
	switch r.d.Kind {
	case 'i':
		v := intElement(b)
		if !r.seen || v < r.imin {
			r.imin = v
		}
		if !r.seen || v > r.imax {
			r.imax = v
		}
	case 'u', 'b':
		v := uintElement(b)
		if !r.seen || v < r.umin {
			r.umin = v
		}
		if !r.seen || v > r.umax {
			r.umax = v
		}
	default:
		v := element(r.d, b)
		if math.IsNaN(v) {
			r.nan++
			return
		}
		if !r.seen || v < r.fmin {
			r.fmin = v
		}
		if !r.seen || v > r.fmax {
			r.fmax = v
		}
	}
	r.seen = true
}

// view returns the range of the values added, of: which they are.
func (r *valueRange) view(of string) *rangeView {
	v := &rangeView{Of: of, Count: r.n, NaN: r.nan, Float: r.d.Kind == 'f'}
	if !r.seen {
		return v
	}
	switch r.d.Kind {
	case 'i':
		v.Min, v.Max = strconv.FormatInt(r.imin, 10), strconv.FormatInt(r.imax, 10)
	case 'u':
		v.Min, v.Max = strconv.FormatUint(r.umin, 10), strconv.FormatUint(r.umax, 10)
	case 'b':
		v.Min, v.Max = strconv.FormatBool(r.umin != 0), strconv.FormatBool(r.umax != 0)
	default:
		v.Min, v.Max = formatFloat(r.d, r.fmin), formatFloat(r.d, r.fmax)
	}
	return v
}

// intElement and uintElement return a little-endian integer of 1, 2, 4 or
// 8 bytes.
func intElement(b []byte) int64 {
	switch len(b) {
	case 1:
		return int64(int8(b[0]))
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(b)))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	}
	return int64(binary.LittleEndian.Uint64(b))
}

func uintElement(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// formatFloat writes a float of type d in the fewest digits that read back
// as the same value of that size ("0.1" for a float32 0.1, not
// "0.10000000149011612"), with NaN, +Inf and -Inf as NumPy names them.
func formatFloat(d array.DType, v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	bits := 64
	if d.Size <= 4 {
		bits = 32
	}
	return strconv.FormatFloat(v, 'g', -1, bits)
}

// formatElement writes one little-endian element of type d.
func formatElement(d array.DType, b []byte) string {
	switch d.Kind {
	case 'i':
		return strconv.FormatInt(intElement(b), 10)
	case 'u':
		return strconv.FormatUint(uintElement(b), 10)
	case 'b':
		return strconv.FormatBool(b[0] != 0)
	}
	return formatFloat(d, element(d, b))
}

// A valuesView is what the page of a 1-D or scalar array lists of its
// values: the first maxValues, with their range.
type valuesView struct {
	List  []string   `json:"list"`  // the values, first to last
	Total int64      `json:"total"` // the array's number of elements
	Range *rangeView `json:"-"`     // of the values read, for numbers
	Text  string     `json:"-"`
	Note  string     `json:"-"`
}

// readValues reads what the page of array a lists of its values: for a
// scalar its value, for a 1-D array of numbers or strings its first
// maxValues values, and the range of as many leading values as the bounds
// of a preview allow. It fails with 422 for another number of axes and
// with 501 for elements that are neither numbers nor strings.
func readValues(ctx context.Context, a *array.Array) (*valuesView, error) {
	nd := len(a.Shape)
	if nd > 1 {
		return nil, statusError(http.StatusUnprocessableEntity, "a %d-D array lists no values", nd)
	}
	strs := a.IsStrings()
	if !strs && !previewable(a.DType) {
		return nil, &httpError{status: http.StatusNotImplemented, msg: fmt.Sprintf("%s elements are not numbers or strings: no values", a.DType.Name)}
	}
	v := &valuesView{List: []string{}, Total: a.Size()}
	start, stop := make([]int64, nd), make([]int64, nd)
	if nd == 1 {
		// As many leading values as a preview reads, at most.
		n := min(a.Shape[0], maxPreviewChunks*a.ChunkShape[0])
		if a.DType.Size > 0 {
			n = min(n, maxPreviewBytes/int64(a.DType.Size))
		}
		if strs {
			n = min(n, maxValues)
		}
		stop[0] = n
	}
	if strs {
		list, err := a.ReadStrings(ctx, start, stop, maxPreviewBytes)
		if err != nil {
			return nil, err
		}
		for _, s := range list {
			v.List = append(v.List, strconv.Quote(s))
		}
	} else {
		data, err := a.ReadBox(ctx, start, stop, maxPreviewBytes)
		if err != nil {
			return nil, err
		}
		r := &valueRange{d: a.DType}
		r.addAll(data)
		of := "the value"
		if nd == 1 {
			of = "all values"
			if r.n < v.Total {
				of = fmt.Sprintf("values 0 to %d", r.n-1)
			}
		}
		if r.n > 0 {
			v.Range = r.view(of)
		}
		size := a.DType.Size
		for off := 0; off+size <= len(data) && len(v.List) < maxValues; off += size {
			v.List = append(v.List, formatElement(a.DType, data[off:off+size]))
		}
	}
	v.Text = strings.Join(v.List, ", ")
	if nd == 1 {
		v.Text = "[" + v.Text
		if int64(len(v.List)) < v.Total {
			v.Text += ", …"
			v.Note = fmt.Sprintf("The first %d of %d values.", len(v.List), v.Total)
		}
		v.Text += "]"
	}
	return v, nil
}

// addValues adds to v, the page of array node t, what it shows of the
// values: the range of its preview's plane, read as the preview reads it
// (the preview is drawn from the same read), or the values of a 1-D or
// scalar array. A read that fails is said on the page instead, unless the
// request was canceled.
func (h *Handler) addValues(ctx context.Context, t *target, v *nodeView) error {
	n := t.node
	if !n.IsArray || n.Array == nil {
		return nil
	}
	fail := func(err error) error {
		if ctx.Err() != nil {
			return err
		}
		v.Preview, v.NoPreview = "", h.errorText(err)
		return nil
	}
	if v.Preview != "" {
		plan, err := planPreview(n)
		if err != nil {
			return fail(err)
		}
		p, err := h.preview(ctx, t, plan)
		if err != nil {
			return fail(err)
		}
		v.Range = p.rng
		return nil
	}
	if len(n.Array.Shape) > 1 {
		return nil
	}
	vals, err := remember(t.l, "values\x00"+t.name+"\x00"+t.child, "", func(v *valuesView) int { return 64 * len(v.List) }, func() (*valuesView, error) {
		return readValues(ctx, n.Array)
	})
	if err != nil {
		return fail(err)
	}
	v.Values, v.Range = vals, vals.Range
	return nil
}
