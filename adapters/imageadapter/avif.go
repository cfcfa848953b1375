package imageadapter

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"maps"
	"slices"

	"github.com/gen2brain/avif"

	"github.com/pipefs/pipefs/vfs/driver"
)

// maxAVIFMeta bounds the meta box of an AVIF file, which is read whole.
const maxAVIFMeta = 4 << 20

// maxAVIFBoxes bounds the top-level boxes read before the meta box.
const maxAVIFBoxes = 64

func init() {
	register(&codec{
		scheme: "avif", extensions: []string{".avif"}, what: "an AVIF image", detail: `no "ftyp" box of brand avif, avis or mif1 at offset 0`,
		magic: isAVIF, head: 12,
		parse: parseAVIF, decode: decodeAVIF,
	}, "avif", "", 0, func(h, _ []byte, _ int64) bool { return isAVIF(h) }, 12)
}

// isAVIF checks for an ftyp box whose major brand is avif, avis or mif1.
func isAVIF(h []byte) bool {
	if len(h) < 12 || string(h[4:8]) != "ftyp" {
		return false
	}
	switch string(h[8:12]) {
	case "avif", "avis", "mif1":
		return true
	}
	return false
}

// A box is one ISO BMFF box: its type and its payload.
type box struct {
	typ  string
	data []byte
}

// boxes splits b into boxes.
func boxes(b []byte) ([]box, error) {
	var out []box
	for len(b) > 0 {
		if len(b) < 8 {
			return nil, driver.Corruptf("avif: %d stray bytes after the last box", len(b))
		}
		size, typ, hdr := uint64(binary.BigEndian.Uint32(b)), string(b[4:8]), uint64(8)
		switch size {
		case 0:
			size = uint64(len(b))
		case 1:
			if len(b) < 16 {
				return nil, driver.Corruptf("avif: box %q cut short", typ)
			}
			size, hdr = binary.BigEndian.Uint64(b[8:]), 16
		}
		if size < hdr || size > uint64(len(b)) {
			return nil, driver.Corruptf("avif: box %q of %d bytes in %d", typ, size, len(b))
		}
		out = append(out, box{typ, b[hdr:size]})
		b = b[size:]
	}
	return out, nil
}

// avifItem is what the header needs of one item.
type avifItem struct {
	typ   string
	props []int // 1-based indexes in ipco
}

// parseAVIF reads the meta box: the primary item's size (ispe), channels
// and depth (pixi), colour (colr), orientation (irot, imir), and whether
// an alpha item refers to it.
func parseAVIF(ctx context.Context, r *input, _ int) (*header, error) {
	meta, err := readMeta(ctx, r)
	if err != nil {
		return nil, err
	}
	if len(meta) < 4 {
		return nil, driver.Corruptf("avif: empty meta box")
	}
	children, err := boxes(meta[4:])
	if err != nil {
		return nil, err
	}
	var primary uint32
	var ipco []box
	items := map[uint32]*avifItem{}
	item := func(id uint32) *avifItem {
		if items[id] == nil {
			items[id] = &avifItem{}
		}
		return items[id]
	}
	auxl := map[uint32][]uint32{} // from → to
	for _, c := range children {
		d := c.data
		switch c.typ {
		case "pitm":
			if len(d) < 6 {
				return nil, driver.Corruptf("avif: short pitm box")
			}
			if d[0] == 0 {
				primary = uint32(binary.BigEndian.Uint16(d[4:]))
			} else if len(d) >= 8 {
				primary = binary.BigEndian.Uint32(d[4:])
			}
		case "iinf":
			if err := parseIINF(d, func(id uint32, typ string) { item(id).typ = typ }); err != nil {
				return nil, err
			}
		case "iprp":
			sub, err := boxes(d)
			if err != nil {
				return nil, err
			}
			for _, s := range sub {
				switch s.typ {
				case "ipco":
					if ipco, err = boxes(s.data); err != nil {
						return nil, err
					}
				case "ipma":
					if err := parseIPMA(s.data, item); err != nil {
						return nil, err
					}
				}
			}
		case "iref":
			if len(d) < 4 {
				return nil, driver.Corruptf("avif: short iref box")
			}
			refs, err := boxes(d[4:])
			if err != nil {
				return nil, err
			}
			wide := d[0] != 0
			for _, ref := range refs {
				if ref.typ != "auxl" {
					continue
				}
				from, tos, ok := parseRef(ref.data, wide)
				if !ok {
					return nil, driver.Corruptf("avif: short auxl reference")
				}
				auxl[from] = append(auxl[from], tos...)
			}
		}
	}
	p := items[primary]
	if p == nil {
		return nil, driver.Corruptf("avif: no properties for the primary item %d", primary)
	}
	if p.typ != "" && p.typ != "av01" && p.typ != "grid" {
		return nil, fmt.Errorf("%w: avif: primary item of type %q", errors.ErrUnsupported, p.typ)
	}
	h := &header{channels: 3, work: 8}
	h.img.ColorModel, h.img.BitDepth = "YCbCr", 8
	if err := avifProps(h, p, ipco); err != nil {
		return nil, err
	}
	if h.width == 0 || h.height == 0 {
		return nil, driver.Corruptf("avif: the primary item has no size (ispe)")
	}
	for from, tos := range auxl {
		for _, to := range tos {
			if to == primary && isAlpha(items[from], ipco) {
				h.channels++
				h.img.Transparency = true
			}
		}
	}
	if h.img.BitDepth > 8 {
		h.work = 16
	}
	if r.size != unknownSize {
		// A stream's size is learnt by decoding it: decodeAVIF checks.
		if err := checkExtents(meta, r.size); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// An extent is a run of an item's data: bytes [start, start+n) of the
// file (construction method 0) or of the idat box (method 1); n 0 runs to
// the end.
type extent struct {
	method   uint64
	start, n uint64
}

// checkExtents checks that the data of every item of the meta box lies
// within a file of size bytes (or within the idat box). The decoder does
// not: it decodes the bytes that are there and leaves the rest of the
// image zero.
func checkExtents(meta []byte, size int64) error {
	_, _, err := avifExtents(meta, size)
	return err
}

// avifExtents reads the iloc box of meta and checks each item's extents:
// those of construction method 0 against the file's size, those of
// method 1 against the idat box. Method 2 (data of another item) refers
// to extents checked there. It returns the extents by item and the idat
// box's payload.
func avifExtents(meta []byte, size int64) (map[uint32][]extent, []byte, error) {
	if len(meta) < 4 {
		return nil, nil, driver.Corruptf("avif: empty meta box")
	}
	children, err := boxes(meta[4:])
	if err != nil {
		return nil, nil, err
	}
	var iloc, idat []byte
	for _, c := range children {
		switch c.typ {
		case "iloc":
			iloc = c.data
		case "idat":
			idat = c.data
		}
	}
	if iloc == nil {
		return nil, nil, driver.Corruptf("avif: no iloc box: the meta box does not say where the image data is")
	}
	items, err := parseILoc(iloc)
	if err != nil {
		return nil, nil, err
	}
	for id, exts := range items {
		for _, e := range exts {
			limit, where := uint64(size), "the end of the file"
			switch e.method {
			case 1:
				if idat == nil {
					return nil, nil, driver.Corruptf("avif: item %d is in an idat box, and there is none", id)
				}
				limit, where = uint64(len(idat)), "the end of the idat box"
			case 2:
				continue
			}
			if e.start > limit || e.n > limit-e.start {
				return nil, nil, driver.Corruptf("avif: truncated: item %d's data, %d bytes at offset %d, runs past %s at %d (the file ends early)", id, e.n, e.start, where, limit)
			}
		}
	}
	return items, idat, nil
}

// parseILoc reads an iloc box: the extents of each item.
func parseILoc(d []byte) (map[uint32][]extent, error) {
	short := driver.Corruptf("avif: short iloc box")
	if len(d) < 6 {
		return nil, short
	}
	version := d[0]
	if version > 2 {
		return nil, fmt.Errorf("%w: avif: iloc box version %d", errors.ErrUnsupported, version)
	}
	offSize, lenSize, baseSize, idxSize := int(d[4]>>4), int(d[4]&15), int(d[5]>>4), int(d[5]&15)
	if version == 0 {
		idxSize = 0
	}
	for _, n := range []int{offSize, lenSize, baseSize, idxSize} {
		if n != 0 && n != 4 && n != 8 {
			return nil, driver.Corruptf("avif: iloc field of %d bytes (want 0, 4 or 8)", n)
		}
	}
	d = d[6:]
	// next reads an n-byte big-endian number; ok is false past the end.
	ok := true
	next := func(n int) uint64 {
		if len(d) < n {
			ok = false
			return 0
		}
		var v uint64
		for _, c := range d[:n] {
			v = v<<8 | uint64(c)
		}
		d = d[n:]
		return v
	}
	idSize := 2
	if version == 2 {
		idSize = 4
	}
	items := map[uint32][]extent{}
	count := next(idSize)
	for range count {
		id := uint32(next(idSize))
		method := uint64(0)
		if version > 0 {
			method = next(2) & 15
		}
		next(2) // data_reference_index
		base := next(baseSize)
		n := next(2)
		for range n {
			next(idxSize)
			off, length := next(offSize), next(lenSize)
			if !ok {
				return nil, short
			}
			start := base + off
			if start < base {
				return nil, driver.Corruptf("avif: item %d's data at offset %d + %d overflows", id, base, off)
			}
			items[id] = append(items[id], extent{method, start, length})
		}
		if !ok {
			return nil, short
		}
	}
	if !ok {
		return nil, short
	}
	return items, nil
}

// checkAV1Items checks the data of every av01 item of meta in the file
// data: its OBUs must fill it exactly. The decoder decodes a frame whose
// data is cut short (an iloc length too small) without an error.
func checkAV1Items(meta, data []byte) error {
	items, idat, err := avifExtents(meta, int64(len(data)))
	if err != nil {
		return err
	}
	children, err := boxes(meta[4:])
	if err != nil {
		return err
	}
	types := map[uint32]string{}
	for _, c := range children {
		if c.typ == "iinf" {
			err := parseIINF(c.data, func(id uint32, typ string) { types[id] = typ })
			if err != nil {
				return err
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(items)) {
		if types[id] != "av01" {
			continue
		}
		b, ok := itemData(items[id], data, idat)
		if !ok {
			continue // in another item (construction method 2): left to the decoder
		}
		if err := checkOBUs(b, id); err != nil {
			return err
		}
	}
	return nil
}

// itemData returns the data of an item of the given extents, checked by
// avifExtents, in the file data or the idat box; false if it is in
// another item.
func itemData(exts []extent, data, idat []byte) ([]byte, bool) {
	var b []byte
	for _, e := range exts {
		src := data
		switch e.method {
		case 1:
			src = idat
		case 2:
			return nil, false
		}
		end := e.start + e.n
		if e.n == 0 {
			end = uint64(len(src))
		}
		b = append(b, src[e.start:end]...)
	}
	return b, true
}

// checkOBUs checks that b is a sequence of whole AV1 OBUs (AV1 5.3): each
// OBU header's size field, when there is one, must lie within b; an OBU
// without one fills the rest of b.
func checkOBUs(b []byte, id uint32) error {
	for len(b) > 0 {
		h := b[0]
		if h&0x80 != 0 {
			return driver.Corruptf("avif: item %d: an AV1 OBU header with its forbidden bit set", id)
		}
		hdr := 1
		if h&4 != 0 { // obu_extension_flag
			hdr = 2
		}
		if len(b) < hdr {
			return driver.Corruptf("avif: item %d: truncated: an AV1 OBU header cut short (the item's data ends early)", id)
		}
		if h&2 == 0 { // no obu_has_size_field: the OBU runs to the end
			return nil
		}
		size, n := uint64(0), 0
		for i := 0; ; i++ {
			if i == 8 || hdr+i >= len(b) {
				return driver.Corruptf("avif: item %d: truncated: an AV1 OBU size cut short (the item's data ends early)", id)
			}
			c := b[hdr+i]
			size |= uint64(c&0x7f) << (7 * i)
			if c&0x80 == 0 {
				n = i + 1
				break
			}
		}
		rest := uint64(len(b) - hdr - n)
		if size > rest {
			return driver.Corruptf("avif: item %d: truncated: an AV1 OBU of %d bytes where %d remain (the item's data ends early)", id, size, rest)
		}
		b = b[uint64(hdr+n)+size:]
	}
	return nil
}

// parseIINF reads an iinf box, calling item for each item's ID and type.
func parseIINF(d []byte, item func(id uint32, typ string)) error {
	if len(d) < 6 {
		return driver.Corruptf("avif: short iinf box")
	}
	skip := 6
	if d[0] != 0 {
		skip = 8
	}
	if len(d) < skip {
		return driver.Corruptf("avif: short iinf box")
	}
	infes, err := boxes(d[skip:])
	if err != nil {
		return err
	}
	for _, e := range infes {
		if e.typ != "infe" || len(e.data) < 4 {
			continue
		}
		v, p := e.data[0], e.data[4:]
		switch {
		case v == 2 && len(p) >= 8:
			item(uint32(binary.BigEndian.Uint16(p)), string(p[4:8]))
		case v == 3 && len(p) >= 10:
			item(binary.BigEndian.Uint32(p), string(p[6:10]))
		}
	}
	return nil
}

// avifProps reads the properties of the primary item p.
func avifProps(h *header, p *avifItem, ipco []box) error {
	for _, i := range p.props {
		if i < 1 || i > len(ipco) {
			return driver.Corruptf("avif: property index %d of %d", i, len(ipco))
		}
		d := ipco[i-1].data
		switch ipco[i-1].typ {
		case "ispe":
			if len(d) < 12 {
				return driver.Corruptf("avif: short ispe box")
			}
			h.width, h.height = int64(binary.BigEndian.Uint32(d[4:])), int64(binary.BigEndian.Uint32(d[8:]))
		case "pixi":
			if len(d) < 6 {
				return driver.Corruptf("avif: short pixi box")
			}
			if d[4] == 1 {
				h.channels, h.img.ColorModel = 1, "gray"
			}
			h.img.BitDepth = int(d[5])
		case "colr":
			if len(d) < 4 {
				continue
			}
			switch string(d[:4]) {
			case "prof", "rICC":
				h.img.ICC = true
			case "nclx":
				if len(d) >= 8 && binary.BigEndian.Uint16(d[6:]) == 13 { // sRGB transfer
					h.img.SRGB = true
				}
			}
		}
	}
	return nil
}

// isAlpha reports whether it is an auxiliary image of type alpha.
func isAlpha(it *avifItem, ipco []box) bool {
	if it == nil {
		return false
	}
	for _, i := range it.props {
		if i >= 1 && i <= len(ipco) && ipco[i-1].typ == "auxC" && len(ipco[i-1].data) > 4 {
			urn := string(bytes.TrimRight(ipco[i-1].data[4:], "\x00"))
			if urn == "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha" || urn == "urn:mpeg:hevc:2015:auxid:1" {
				return true
			}
		}
	}
	return false
}

// parseIPMA reads item property associations.
func parseIPMA(d []byte, item func(uint32) *avifItem) error {
	if len(d) < 8 {
		return driver.Corruptf("avif: short ipma box")
	}
	version, flags := d[0], d[3]
	n := binary.BigEndian.Uint32(d[4:])
	d = d[8:]
	for range n {
		var id uint32
		if version < 1 {
			if len(d) < 3 {
				return driver.Corruptf("avif: short ipma box")
			}
			id, d = uint32(binary.BigEndian.Uint16(d)), d[2:]
		} else {
			if len(d) < 5 {
				return driver.Corruptf("avif: short ipma box")
			}
			id, d = binary.BigEndian.Uint32(d), d[4:]
		}
		k := int(d[0])
		d = d[1:]
		it := item(id)
		for range k {
			if flags&1 != 0 {
				if len(d) < 2 {
					return driver.Corruptf("avif: short ipma box")
				}
				it.props = append(it.props, int(binary.BigEndian.Uint16(d)&0x7fff))
				d = d[2:]
			} else {
				if len(d) < 1 {
					return driver.Corruptf("avif: short ipma box")
				}
				it.props = append(it.props, int(d[0]&0x7f))
				d = d[1:]
			}
		}
	}
	return nil
}

// parseRef reads one item reference: from, and the items it refers to.
func parseRef(d []byte, wide bool) (uint32, []uint32, bool) {
	w := 2
	if wide {
		w = 4
	}
	get := func(b []byte) uint32 {
		if wide {
			return binary.BigEndian.Uint32(b)
		}
		return uint32(binary.BigEndian.Uint16(b))
	}
	if len(d) < w+2 {
		return 0, nil, false
	}
	from := get(d)
	n := int(binary.BigEndian.Uint16(d[w:]))
	d = d[w+2:]
	if len(d) < n*w {
		return 0, nil, false
	}
	tos := make([]uint32, n)
	for i := range tos {
		tos[i] = get(d[i*w:])
	}
	return from, tos, true
}

// readMeta returns the payload of the top-level meta box.
func readMeta(ctx context.Context, r *input) ([]byte, error) {
	off := int64(0)
	for range maxAVIFBoxes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var b [16]byte
		if err := r.readAt(b[:8], off, "avif"); err != nil {
			return nil, err
		}
		size, typ, hdr := int64(binary.BigEndian.Uint32(b[:])), string(b[4:8]), int64(8)
		switch size {
		case 0:
			size = r.size - off
		case 1:
			if err := r.readAt(b[8:16], off+8, "avif"); err != nil {
				return nil, err
			}
			size, hdr = int64(binary.BigEndian.Uint64(b[8:])), 16
		}
		if size < hdr || size > r.size-off {
			return nil, driver.Corruptf("avif: box %q of %d bytes at offset %d runs past the end of the file", typ, size, off)
		}
		if typ == "meta" {
			if size-hdr > maxAVIFMeta {
				return nil, driver.Limitf("avif: meta box of %d bytes, more than %d", size-hdr, maxAVIFMeta)
			}
			meta := make([]byte, size-hdr)
			if err := r.readAt(meta, off+hdr, "avif"); err != nil {
				return nil, err
			}
			return meta, nil
		}
		off += size
		if off >= r.size {
			break
		}
	}
	return nil, driver.Corruptf("avif: no meta box")
}

func decodeAVIF(ctx context.Context, r *input, _ int, h *header, out []byte) error {
	// The decoder reads the file whole; its pixels were checked against
	// Limits.MaxChunk, and so is the file.
	size := r.fullSize()
	if size > 2*int64(len(out))+maxAVIFMeta+(64<<20) {
		return driver.Limitf("avif: a file of %d bytes for %d bytes of pixels", size, len(out))
	}
	data := make([]byte, size)
	if err := r.readAt(data, 0, "avif"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	meta, err := readMeta(ctx, r)
	if err != nil {
		return err
	}
	if err := checkAV1Items(meta, data); err != nil {
		return err
	}
	m, err := avif.Decode(bytes.NewReader(data))
	if err != nil {
		return r.cause(err, func(err error) error { return driver.Corruptf("%v", err) })
	}
	if m64, ok := m.(*image.RGBA64); ok {
		// Deeper than 8 bits: the output is 8-bit, rounded.
		b := m64.Bounds()
		m8 := image.NewRGBA(b)
		for i := 0; i+1 < len(m64.Pix); i += 2 {
			v := uint32(m64.Pix[i])<<8 | uint32(m64.Pix[i+1])
			m8.Pix[i/2] = uint8((v*255 + 32767) / 65535)
		}
		m = m8
	}
	if m, ok := m.(*image.RGBA); ok && h.img.Transparency {
		// The decoder premultiplies; the output is straight alpha.
		unpremultiply(m.Pix)
	}
	return store(m, h, out, nil)
}
