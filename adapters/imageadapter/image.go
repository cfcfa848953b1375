package imageadapter

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// An Image is the Sys of the file an image adapter yields (wrapped by
// pipefs in a *vfs.Origin, as Header): the shape and sample type of the
// decoded pixels, and what the file states about colour. It implements
// array.Noder, so that "pipefs array" and array.NodeOf describe the image
// as a three-dimensional array.
type Image struct {
	// Format is the scheme that decoded the image: "png", "jpeg", "bmp",
	// "tiff", "webp" or "avif".
	Format string `json:"format"`
	// Shape is [height, width, channels].
	Shape []int64 `json:"shape"`
	// DType is the sample type: "uint8", or "uint16" (little endian) for
	// 16-bit PNG and TIFF.
	DType string `json:"dtype"`
	// Channels names the channels, in order: "gray", "gray+alpha",
	// "RGB", "RGBA" or "CMYK".
	Channels string `json:"channels"`
	// ColorModel is the colour model the file stores: "gray",
	// "gray+alpha", "RGB", "RGBA", "palette", "YCbCr", "CMYK", "YCCK",
	// "BGR", "BGRA".
	ColorModel string `json:"color_model"`
	// BitDepth is the number of bits per stored sample (or per palette
	// index); 0 when the format does not say.
	BitDepth int `json:"bit_depth,omitempty"`
	// PaletteSize is the number of palette entries of a paletted image.
	PaletteSize int `json:"palette_size,omitempty"`
	// Transparency reports an alpha channel in the output (gray+alpha or
	// RGBA): the file has one, or a PNG tRNS chunk gives transparency to
	// a palette or a colour key.
	Transparency bool `json:"transparency,omitempty"`
	// Gamma is the gamma a PNG gAMA chunk states (the file's value
	// divided by 100000); 0 when there is none.
	Gamma float64 `json:"gamma,omitempty"`
	// SRGB reports a PNG sRGB chunk, or an AVIF nclx colour with sRGB
	// transfer.
	SRGB bool `json:"srgb,omitempty"`
	// ICC reports an embedded ICC profile (PNG iCCP, JPEG APP2, TIFF tag
	// 34675, WebP ICCP, AVIF colr prof). The profile is not applied.
	ICC bool `json:"icc,omitempty"`
	// Orientation is the EXIF or TIFF orientation (1 to 8) when the file
	// states one; 0 when not. The pixels are not rotated.
	Orientation int `json:"orientation,omitempty"`
	// Compression names the compression of a TIFF ("none", "lzw",
	// "deflate", "packbits", ...) or a WebP ("lossy", "lossless"), and the
	// JPEG process ("baseline", "progressive").
	Compression string `json:"compression,omitempty"`
	// AssociatedAlpha reports a TIFF whose alpha is premultiplied
	// (ExtraSamples 1): the samples are as stored, premultiplied.
	AssociatedAlpha bool `json:"associated_alpha,omitempty"`
	// Page is the index of this page among the TIFF's pages (0 for the
	// first, and for every other format).
	Page int `json:"page"`
	// Pages is the number of pages of a TIFF (1 for every other format);
	// page N > 0 is "pipefs.pages:page/N" (see the package docs).
	Pages int `json:"pages"`

	px   *pixels
	node *array.Node
}

// ArrayNode returns the image as an array node: shape [height, width,
// channels], read in bands of rows.
func (im *Image) ArrayNode() *array.Node { return im.node }

// Size returns the size in bytes of the decoded pixels.
func (im *Image) Size() int64 { return array.Prod(im.Shape) * im.sampleSize() }

func (im *Image) sampleSize() int64 {
	if im.DType == "uint16" {
		return 2
	}
	return 1
}

// channelNames maps a channel count to Image.Channels.
var channelNames = [...]string{1: "gray", 2: "gray+alpha", 3: "RGB", 4: "RGBA"}

// A header is what a format learns from a file before decoding it.
type header struct {
	width, height int64
	channels      int
	depth16       bool  // 16-bit samples out
	work          int64 // bytes per pixel the decoder allocates besides the output
	img           Image // colour information; Shape, DType and Format are set by newImage
}

// A codec is one image format.
type codec struct {
	scheme     string   // "png"
	extensions []string // of its files, for vfs.Adapter.Extensions
	what       string   // "a PNG image", for NotFormat
	// magic checks the first bytes of a file; detail says what is missing.
	magic  func(head []byte) bool
	detail string
	head   int // bytes magic wants
	// parse reads the header of the image at page (0 unless the format
	// has pages).
	parse func(ctx context.Context, r *input, page int) (*header, error)
	// decode decodes the image at page into out, which has exactly the
	// header's size.
	decode func(ctx context.Context, r *input, page int, h *header, out []byte) error
}

// codecs by scheme.
var codecs = map[string]*codec{}

func register(c *codec, formatName, magic string, offset int, match func(head, tail []byte, size int64) bool, head int) {
	codecs[c.scheme] = c
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: c.scheme, Extensions: c.extensions, OpenFile: func(ctx context.Context, in driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
		b, err := openImage(ctx, c, in, 0, "", env)
		if err != nil {
			return driver.Location{}, err
		}
		return driver.Location{Blob: b}, nil
	}})
	vfs.RegisterFormat(&vfs.Format{Name: formatName, Adapter: c.scheme + ":", Input: vfs.KindFile,
		Magic: magic, Offset: offset, Match: match, Head: head})
}

// An input is the encoded file: a blob read with a context, remembering
// the first error of the layer below so that it is reported as it is.
type input struct {
	ctx  context.Context
	blob driver.Blob
	size int64
	// cache and key keep what is derived from the file's structure (the
	// offsets of a TIFF's pages) across opens; key "" keeps nothing.
	cache *vfs.Cache
	key   string

	mu  sync.Mutex
	err error // first I/O or context error
}

// unknownSize is the size of an input whose size is not known yet (a
// stream being decompressed, driver.SizeKnower): reads past its end give
// io.EOF, so the header of an image is read without decoding the stream
// to its end.
const unknownSize = 1 << 62

func newInput(ctx context.Context, b driver.Blob, cache *vfs.Cache, key string) *input {
	size := int64(unknownSize)
	if k, ok := b.Stat().(driver.SizeKnower); !ok || k.SizeKnown() {
		size = b.Stat().Size()
	}
	return &input{ctx: ctx, blob: b, size: size, cache: cache, key: key}
}

// fullSize returns the size of the input, learning it if need be.
func (r *input) fullSize() int64 {
	if r.size == unknownSize {
		r.size = r.blob.Stat().Size()
	}
	return r.size
}

// ReadAt reads the blob, recording errors that are not io.EOF.
func (r *input) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.blob.ReadAt(r.ctx, p, off)
	if err != nil && err != io.EOF {
		r.mu.Lock()
		if r.err == nil {
			r.err = err
		}
		r.mu.Unlock()
	}
	return n, err
}

// reader returns a buffered reader of the whole file.
func (r *input) reader() *bufio.Reader {
	return bufio.NewReaderSize(io.NewSectionReader(r, 0, r.size), 64<<10)
}

// readAt reads exactly len(p) bytes at off; a short file is corrupt.
func (r *input) readAt(p []byte, off int64, scheme string) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		return driver.Corruptf("%s: truncated: the file ends before the %d bytes at offset %d", scheme, len(p), off)
	}
	return err
}

// cause returns the error to report for err, a decoder's: a context or
// I/O error of the input as it is, else err classified by classify.
func (r *input) cause(err error, classify func(error) error) error {
	if e := r.ctx.Err(); e != nil {
		return e
	}
	r.mu.Lock()
	ioErr := r.err
	r.mu.Unlock()
	if ioErr != nil {
		return ioErr
	}
	if classified(err) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return driver.Corruptf("%v (the file ends early)", err)
	}
	return classify(err)
}

// classified reports an error that says what is wrong with the data
// (corrupt, over a limit, not read, no such page), as opposed to an error
// of the layer below.
func classified(err error) bool {
	return errors.Is(err, driver.ErrCorrupt) || errors.Is(err, driver.ErrLimit) ||
		errors.Is(err, errors.ErrUnsupported) || errors.Is(err, fs.ErrNotExist)
}

// newImage checks h against the limits and returns the image it
// describes.
func newImage(c *codec, h *header, env *vfs.Env) (*Image, error) {
	if h.width < 0 || h.height < 0 || h.channels < 1 || h.channels > 4 {
		return nil, driver.Corruptf("%s: bad header: %dx%d pixels, %d channels", c.scheme, h.width, h.height, h.channels)
	}
	sample := int64(1)
	if h.depth16 {
		sample = 2
	}
	out, ok := mul(h.width, h.height, int64(h.channels)*sample)
	work, ok2 := mul(h.width, h.height, h.work)
	if !ok || !ok2 || out > env.Limits.MaxFileSize || out+work > env.Limits.MaxChunk {
		return nil, driver.Limitf("%s: a %dx%d image of %d channels of %d bytes decodes to %s bytes (and its decoder needs %s more); Limits.MaxChunk is %d and Limits.MaxFileSize %d: raise them to read it",
			c.scheme, h.width, h.height, h.channels, sample, bigProduct(h.width, h.height, int64(h.channels)*sample), bigProduct(h.width, h.height, h.work), env.Limits.MaxChunk, env.Limits.MaxFileSize)
	}
	im := h.img
	im.Format = c.scheme
	im.Shape = []int64{h.height, h.width, int64(h.channels)}
	im.DType = "uint8"
	if h.depth16 {
		im.DType = "uint16"
	}
	im.Channels = channelNames[h.channels]
	if im.ColorModel == "CMYK" || im.ColorModel == "YCCK" {
		im.Channels = "CMYK"
	}
	im.Transparency = im.Channels == "gray+alpha" || im.Channels == "RGBA"
	if im.Pages == 0 {
		im.Pages = 1
	}
	return &im, nil
}

// mul returns a*b*c and whether it fits in int64 (all non-negative).
func mul(a, b, c int64) (int64, bool) {
	hi, p := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 {
		return 0, false
	}
	hi, p = bits.Mul64(p, uint64(c))
	if hi != 0 || p > 1<<62 {
		return 0, false
	}
	return int64(p), true
}

// bigProduct formats a*b*c in decimal, even beyond int64.
func bigProduct(a, b, c int64) string {
	if p, ok := mul(a, b, c); ok {
		return strconv.FormatInt(p, 10)
	}
	return fmt.Sprintf("%d×%d×%d", a, b, c)
}

// openImage reads the header of the image at page of in and returns the
// blob of its pixels, decoded on first read, named name ("": the name of
// in).
func openImage(ctx context.Context, c *codec, in driver.Blob, page int, name string, env *vfs.Env) (driver.Blob, error) {
	r := newInput(ctx, in, env.Cache, env.Key)
	if err := checkMagic(ctx, c, r, in, env); err != nil {
		return nil, err
	}
	h, err := c.parse(ctx, r, page)
	if err != nil {
		return nil, r.cause(err, func(err error) error { return driver.Corruptf("%v", err) })
	}
	im, err := newImage(c, h, env)
	if err != nil {
		return nil, err
	}
	im.Page = page
	im.px = &pixels{c: c, in: in, h: h, size: im.Size(), cache: env.Cache, key: cacheKey{env.Key, c.scheme, page}}
	bindNode(im, env.Limits)
	base := in.Stat()
	if name == "" {
		name = base.Name()
	}
	if name == "" || name == "." {
		name = c.scheme
	}
	info := &driver.FileInfo{FName: name, FSize: im.Size(), FMode: 0o444, FModTime: base.ModTime(), FSys: im}
	return &pixelBlob{px: im.px, info: info}, nil
}

// checkMagic fails with a "not a PNG image" error when in does not start
// with c's signature.
// A GIF, which no scheme reads, is reported as unsupported, naming the
// schemes that are.
func checkMagic(ctx context.Context, c *codec, r *input, in driver.Blob, env *vfs.Env) error {
	head := make([]byte, max(c.head, len(gif89a)))
	n, err := r.ReadAt(head, 0)
	if n < len(head) && err != nil && err != io.EOF {
		return err
	}
	if c.magic(head[:min(n, c.head)]) {
		return nil
	}
	if isGIF(head[:n]) {
		return fmt.Errorf("%w: %s: the file is a GIF image, which pipefs does not read; the image schemes are %s: convert it to one of these (to PNG for lossless pixels)",
			errors.ErrUnsupported, c.scheme, imageSchemes())
	}
	return vfs.NotFormat(ctx, env.Options, in, c.scheme, c.what, c.detail)
}

// The signatures of GIF, the image format the package does not read.
const (
	gif87a = "GIF87a"
	gif89a = "GIF89a"
)

// isGIF reports whether head starts with a GIF signature.
func isGIF(head []byte) bool {
	s := string(head[:min(len(head), len(gif89a))])
	return s == gif87a || s == gif89a
}

// imageSchemes lists the image schemes: "avif:, bmp:, ...".
func imageSchemes() string {
	names := make([]string, 0, len(codecs))
	for s := range codecs {
		names = append(names, s+":")
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// cacheKey keys decoded pixels in a vfs.Cache.
type cacheKey struct {
	key    string // vfs.Env.Key of the encoded file
	scheme string
	page   int
}

// pixels are the decoded pixels of one image, decoded on first use and
// then held by the open file and kept in the cache for later opens.
type pixels struct {
	c     *codec
	in    driver.Blob
	h     *header
	size  int64
	cache *vfs.Cache
	key   cacheKey

	mu   sync.Mutex
	data []byte
	err  error // a decode error that another try would repeat
}

// get returns the decoded pixels.
func (p *pixels) get(ctx context.Context) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.data != nil || p.err != nil {
		return p.data, p.err
	}
	if v, ok := p.cache.Get(p.key); ok {
		if b, ok := v.([]byte); ok && int64(len(b)) == p.size {
			p.data = b
			return b, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]byte, p.size)
	r := newInput(ctx, p.in, p.cache, p.key.key)
	if err := p.c.decode(ctx, r, p.key.page, p.h, out); err != nil {
		err = r.cause(err, func(err error) error { return driver.Corruptf("%v", err) })
		if classified(err) {
			p.err = err // the bytes are wrong: they will be wrong again
		}
		return nil, err
	}
	p.data = out
	p.cache.Add(p.key, out, p.size)
	return out, nil
}

// pixelBlob is the file of an image's pixels.
type pixelBlob struct {
	px   *pixels
	info fs.FileInfo
}

func (b *pixelBlob) Stat() fs.FileInfo { return b.info }

func (b *pixelBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: b.info.Name(), Err: fs.ErrInvalid}
	}
	if off >= b.px.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	data, err := b.px.get(ctx)
	if err != nil {
		return 0, err
	}
	n := copy(p, data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// bandBytes is the size that a band of rows, the array's chunk, aims at.
const bandBytes = 1 << 20

// bindNode sets im's array node: the pixels as [height, width, channels],
// in chunks of whole rows.
func bindNode(im *Image, lim vfs.Limits) {
	dt, _ := array.Numeric(im.DType)
	dt.Stored = map[int]string{1: "|u1", 2: "<u2"}[dt.Size] // as the pixels are laid out
	rowBytes := max(im.Shape[1]*im.Shape[2]*im.sampleSize(), 1)
	rows := max(min(bandBytes/rowBytes, im.Shape[0]), 1)
	chunk := []int64{rows, max(im.Shape[1], 1), im.Shape[2]}
	fill := "0"
	im.node = array.Bind(&array.Node{
		Format:     im.Format,
		Path:       ".",
		IsArray:    true,
		Attributes: []byte("{}"),
		Source:     im,
		Array: &array.Array{
			Shape:       im.Shape,
			ChunkShape:  chunk,
			DType:       dt,
			FillValue:   []byte(fill),
			Codecs:      []array.Codec{{Name: im.Format}},
			KeyEncoding: "none: one decoded image",
			Reader:      &bandReader{im: im, rows: rows},
		},
	}, lim)
}

// bandReader reads bands of rows of the decoded pixels.
type bandReader struct {
	im   *Image
	rows int64
}

// ChunkKey returns "", for the image has no store: every band comes from
// one decode of the file.
func (r *bandReader) ChunkKey(coord []int64) (string, []int64, error) {
	if len(coord) != 3 {
		return "", nil, fmt.Errorf("chunk coordinates %v of an image: %w", coord, fs.ErrInvalid)
	}
	return "", nil, nil
}

// ReadChunk returns band coord[0], rows past the image's end as zeros.
func (r *bandReader) ReadChunk(ctx context.Context, coord []int64) ([]byte, bool, error) {
	data, err := r.im.px.get(ctx)
	if err != nil {
		return nil, false, err
	}
	rowBytes := r.im.Shape[1] * r.im.Shape[2] * r.im.sampleSize()
	out := make([]byte, r.rows*rowBytes)
	start := coord[0] * r.rows * rowBytes
	if start < int64(len(data)) {
		copy(out, data[start:])
	}
	return out, true, nil
}
