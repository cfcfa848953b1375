package icechunkadapter

import (
	"bytes"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/vfs"
)

// Metadata file header (spec section "File format"): 12 bytes of magic,
// 24 bytes of writer name, then spec version, file type and compression.
const (
	headerLen = 39
	magic     = "ICE\xF0\x9F\xA7\x8ACHUNK" // "ICE🧊CHUNK"

	fileSnapshot = 1
	fileManifest = 2
	fileRepo     = 6

	compressNone = 0
	compressZstd = 1

	// maxSpecVersion is the newest spec this reader knows (2 also covers
	// spec 2.1, whose files carry the byte 2).
	maxSpecVersion = 2
)

// Caps on what one metadata file may cost. Snapshots, manifests and the
// repo file are read whole, so each is bounded both as stored and once
// decompressed: a manifest of 256 MiB holds several million chunk refs,
// more than Icechunk writes in one manifest (it splits them), and a hostile
// zstd frame must not make us allocate gigabytes.
const (
	maxStoredMetadata  = 256 << 20 // bytes of a metadata file as stored
	maxDecodedMetadata = 256 << 20 // bytes of a decompressed payload
	// minRatioBudget is the decompressed size always allowed whatever the
	// compressed size, so that tiny files are not judged by the ratio.
	minRatioBudget = 1 << 20
	// maxLocationLen bounds a decompressed virtual chunk location: URLs
	// are short, and the spec's own writer never exceeds it.
	maxLocationLen = 1 << 10
	// maxRefJSON bounds a v1 refs/*/ref.json file ({"snapshot":"<id>"}).
	maxRefJSON = 4 << 10
	// maxRank bounds the number of dimensions of an array: a chunk index
	// of more is refused as corrupt. Zarr has no limit; real arrays
	// rarely have more than 8.
	maxRank = 64
)

// ErrLegacyFormat is matched (with errors.Is) by the error of opening a
// repository written by Icechunk 0.1.x, before spec v1: its metadata is
// MessagePack, which this package does not read. It also matches
// errors.ErrUnsupported.
var ErrLegacyFormat = fmt.Errorf("unsupported pre-1.0 Icechunk repository (MessagePack format of Icechunk 0.1.x; upgrade it with Icechunk 1.x): %w", errors.ErrUnsupported)

// crockford is the id encoding: Crockford base32, upper case, unpadded.
var crockford = base32.NewEncoding("0123456789ABCDEFGHJKMNPQRSTVWXYZ").WithPadding(base32.NoPadding)

// id12 is a snapshot, manifest or chunk id; id8 is a node id.
type (
	id12 [12]byte
	id8  [8]byte
)

func (id id12) String() string { return crockford.EncodeToString(id[:]) }
func (id id8) String() string  { return crockford.EncodeToString(id[:]) }

// parseID12 decodes a 20-character id, requiring its canonical spelling.
func parseID12(s string) (id12, bool) {
	var id id12
	if len(s) != 20 {
		return id, false
	}
	b, err := crockford.DecodeString(s)
	if err != nil || len(b) != 12 {
		return id, false
	}
	copy(id[:], b)
	if id.String() != s {
		return id, false
	}
	return id, true
}

// header is the decoded 39-byte header of a metadata file.
type header struct {
	writer      string
	specVersion byte
	fileType    byte
	compression byte
}

func fileTypeName(t byte) string {
	switch t {
	case fileSnapshot:
		return "snapshot"
	case fileManifest:
		return "manifest"
	case 4:
		return "transaction log"
	case fileRepo:
		return "repo info"
	}
	return fmt.Sprintf("type %d", t)
}

// decodeMetadata checks the header of a metadata file of the wanted type
// and returns its flatbuffer payload, decompressed. name is for messages.
func decodeMetadata(name string, data []byte, want byte) (header, []byte, error) {
	var h header
	if len(data) < headerLen {
		return h, nil, driver.Corruptf("%s: %d bytes, shorter than the %d-byte Icechunk header", name, len(data), headerLen)
	}
	if string(data[:12]) != magic {
		return h, nil, driver.Corruptf("%s: not an Icechunk file (bad magic % x)", name, data[:12])
	}
	h.writer = string(bytes.TrimRight(data[12:36], " \x00"))
	h.specVersion, h.fileType, h.compression = data[36], data[37], data[38]
	if h.specVersion == 0 || h.specVersion > maxSpecVersion {
		return h, nil, fmt.Errorf("%s: Icechunk spec version %d (written by %q) is not supported, only 1 and 2: %w", name, h.specVersion, h.writer, errors.ErrUnsupported)
	}
	if h.fileType != want {
		return h, nil, driver.Corruptf("%s: is a %s file, want a %s file", name, fileTypeName(h.fileType), fileTypeName(want))
	}
	payload := data[headerLen:]
	switch h.compression {
	case compressNone:
	case compressZstd:
		var err error
		if payload, err = unzstd(payload, nil, maxDecodedMetadata); err != nil {
			return h, nil, fmt.Errorf("%s: %w", name, err)
		}
	default:
		return h, nil, driver.Corruptf("%s: unknown compression %d", name, h.compression)
	}
	if len(payload) < 8 || string(payload[4:8]) != "Ichk" {
		if h.specVersion == 1 {
			// Icechunk 0.1.x wrote the same header with MessagePack
			// payloads; only flatbuffer payloads carry "Ichk".
			return h, nil, fmt.Errorf("%s (written by %q): %w", name, h.writer, ErrLegacyFormat)
		}
		return h, nil, driver.Corruptf("%s: payload is not an Icechunk flatbuffer (no \"Ichk\" identifier)", name)
	}
	return h, payload, nil
}

// decoder is shared: DecodeAll is safe for concurrent use. Its memory cap
// bounds the output of any one call (and the window of any frame).
var decoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecodedMetadata))
})

// unzstd decompresses src, at most limit bytes. A frame that declares a
// larger content size, or more than minRatioBudget and 1100 times its own
// size (far beyond what flatbuffers of random ids compress to), is refused
// before anything is allocated. dict, if not nil, is a zstd dictionary
// (formatted, or raw content).
func unzstd(src, dict []byte, limit int) ([]byte, error) {
	var fh zstd.Header
	if err := fh.Decode(src); err != nil {
		return nil, driver.Corruptf("zstd: %v", err)
	}
	budget := uint64(max(minRatioBudget, len(src)*vfs.DefaultMaxRatio))
	if fh.HasFCS && (fh.FrameContentSize > uint64(limit) || fh.FrameContentSize > budget) {
		return nil, driver.Limitf("zstd frame declares %d decompressed bytes, more than the limit of %d", fh.FrameContentSize, min(uint64(limit), budget))
	}
	dec, err := decoder()
	if dict != nil || limit < maxDecodedMetadata {
		var opts []zstd.DOption
		opts = append(opts, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(max(limit, 1))))
		if dict != nil {
			if len(dict) >= 8 && binary.LittleEndian.Uint32(dict) == 0xEC30A437 {
				opts = append(opts, zstd.WithDecoderDicts(dict))
			} else {
				opts = append(opts, zstd.WithDecoderDictRaw(fh.DictionaryID, dict))
			}
		}
		dec, err = zstd.NewReader(nil, opts...)
		if err == nil {
			defer dec.Close()
		}
	}
	if err != nil {
		return nil, driver.Corruptf("zstd: %v", err)
	}
	out, err := dec.DecodeAll(src, nil)
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) || len(out) > limit {
		return nil, driver.Limitf("zstd payload decompresses to more than %d bytes", limit)
	}
	if err != nil {
		return nil, driver.Corruptf("zstd: %v", err)
	}
	return out, nil
}

// A flatbuffer reader for untrusted input. Every offset is checked
// against the buffer before use; the first problem is kept in err and
// later calls return zero values, so decoding code reads straight through
// and checks err once. The schema is fixed and has no recursive types, so
// no depth limit is needed; vector counts are bounded by the buffer size.
type fbuf struct {
	b    []byte
	name string // the file, for messages
	err  error
}

// table is a flatbuffer table: its position and its vtable.
type table struct {
	pos   int // position of the table; -1 for an absent table
	vt    int // position of its vtable
	slots int // number of field slots in the vtable
}

var noTable = table{pos: -1}

func (f *fbuf) fail(format string, args ...any) {
	if f.err == nil {
		f.err = driver.Corruptf("%s: %s", f.name, fmt.Sprintf(format, args...))
	}
}

// in reports whether [pos, pos+n) lies inside the buffer.
func (f *fbuf) in(pos int, n uint64) bool {
	return pos >= 0 && uint64(pos)+n <= uint64(len(f.b))
}

func (f *fbuf) u16(pos int) int {
	if !f.in(pos, 2) {
		f.fail("offset %d out of bounds", pos)
		return 0
	}
	return int(binary.LittleEndian.Uint16(f.b[pos:]))
}

func (f *fbuf) u32(pos int) uint32 {
	if !f.in(pos, 4) {
		f.fail("offset %d out of bounds", pos)
		return 0
	}
	return binary.LittleEndian.Uint32(f.b[pos:])
}

// root returns the root table.
func (f *fbuf) root() table {
	if len(f.b) < 8 {
		f.fail("flatbuffer of %d bytes", len(f.b))
		return noTable
	}
	return f.table(int(f.u32(0)))
}

// table returns the table at pos.
func (f *fbuf) table(pos int) table {
	if f.err != nil || !f.in(pos, 4) {
		f.fail("table at %d out of bounds", pos)
		return noTable
	}
	vt := int64(pos) - int64(int32(binary.LittleEndian.Uint32(f.b[pos:])))
	if vt < 0 || vt > int64(len(f.b)) || !f.in(int(vt), 4) {
		f.fail("vtable of table %d out of bounds", pos)
		return noTable
	}
	n := f.u16(int(vt))
	if n < 4 || n%2 != 0 || !f.in(int(vt), uint64(n)) {
		f.fail("bad vtable at %d", vt)
		return noTable
	}
	return table{pos: pos, vt: int(vt), slots: (n - 4) / 2}
}

// field returns the position of slot's inline data of size bytes, or -1
// when the field is absent.
func (f *fbuf) field(t table, slot int, size uint64) int {
	if f.err != nil || t.pos < 0 || slot >= t.slots {
		return -1
	}
	off := f.u16(t.vt + 4 + 2*slot)
	if off == 0 {
		return -1
	}
	p := t.pos + off
	if !f.in(p, size) {
		f.fail("field %d of table %d out of bounds", slot, t.pos)
		return -1
	}
	return p
}

func (f *fbuf) u8(t table, slot int, def uint8) uint8 {
	if p := f.field(t, slot, 1); p >= 0 {
		return f.b[p]
	}
	return def
}

func (f *fbuf) uint32(t table, slot int, def uint32) uint32 {
	if p := f.field(t, slot, 4); p >= 0 {
		return binary.LittleEndian.Uint32(f.b[p:])
	}
	return def
}

func (f *fbuf) int32(t table, slot int, def int32) int32 {
	return int32(f.uint32(t, slot, uint32(def)))
}

func (f *fbuf) uint64(t table, slot int, def uint64) uint64 {
	if p := f.field(t, slot, 8); p >= 0 {
		return binary.LittleEndian.Uint64(f.b[p:])
	}
	return def
}

// bytesAt returns the inline struct of n bytes in slot, nil if absent.
func (f *fbuf) structField(t table, slot, n int) []byte {
	if p := f.field(t, slot, uint64(n)); p >= 0 {
		return f.b[p : p+n]
	}
	return nil
}

// indirect follows the u32 offset at pos.
func (f *fbuf) indirect(pos int) int {
	off := f.u32(pos)
	if f.err != nil {
		return -1
	}
	p := int64(pos) + int64(off)
	if p > int64(len(f.b)) {
		f.fail("offset at %d points past the end", pos)
		return -1
	}
	return int(p)
}

// subTable returns the table that slot points to, or noTable.
func (f *fbuf) subTable(t table, slot int) table {
	p := f.field(t, slot, 4)
	if p < 0 {
		return noTable
	}
	if q := f.indirect(p); q >= 0 {
		return f.table(q)
	}
	return noTable
}

// vector is a flatbuffer vector: the position of its first element and
// its length.
type vector struct {
	pos, n int
}

// vec returns the vector in slot whose elements are elem bytes each. An
// absent vector is empty. The count is checked against the buffer, so
// n*elem never exceeds len(f.b).
func (f *fbuf) vec(t table, slot int, elem uint64) (vector, bool) {
	p := f.field(t, slot, 4)
	if p < 0 {
		return vector{}, false
	}
	return f.vecAt(f.indirect(p), elem), f.err == nil
}

func (f *fbuf) vecAt(p int, elem uint64) vector {
	if p < 0 || f.err != nil {
		return vector{}
	}
	n := uint64(f.u32(p))
	if !f.in(p+4, n*elem) || n > math.MaxInt32 {
		f.fail("vector at %d of %d elements out of bounds", p, n)
		return vector{}
	}
	return vector{p + 4, int(n)}
}

// bytes returns the [ubyte] vector in slot, and whether it is present.
func (f *fbuf) bytes(t table, slot int) ([]byte, bool) {
	v, ok := f.vec(t, slot, 1)
	if !ok {
		return nil, false
	}
	return f.b[v.pos : v.pos+v.n : v.pos+v.n], true
}

// str returns the string in slot, and whether it is present.
func (f *fbuf) str(t table, slot int) (string, bool) {
	b, ok := f.bytes(t, slot)
	return string(b), ok
}

// elemTable returns the i-th table of a vector of tables.
func (f *fbuf) elemTable(v vector, i int) table {
	p := v.pos + 4*i
	if q := f.indirect(p); q >= 0 {
		return f.table(q)
	}
	return noTable
}

// elemString returns the i-th string of a vector of strings.
func (f *fbuf) elemString(v vector, i int) string {
	s := f.vecAt(f.indirect(v.pos+4*i), 1)
	if f.err != nil {
		return ""
	}
	return string(f.b[s.pos : s.pos+s.n])
}
