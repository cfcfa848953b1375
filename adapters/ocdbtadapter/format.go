package ocdbtadapter

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/klauspost/compress/zstd"
)

// This file decodes the OCDBT on-disk structures (envelopes, data file
// tables, manifests, version-tree nodes and B+tree nodes) from byte slices.
// It does no I/O, so the fuzz target exercises all of it.

// Envelope magic numbers (big-endian on disk).
const (
	magicManifest    = 0x0cdb3a2a
	magicVersionNode = 0x0cdb1234
	magicBtreeNode   = 0x0cdb20de
)

// Limits for hostile input. The format's own bounds come first; the others
// keep every allocation that input sizes below a fixed ceiling.
const (
	// maxEncodedBytes caps the encoded size of a manifest or node read
	// from storage: it is allocated before its CRC can be checked.
	// TensorStore's default max_decoded_node_bytes is 8 MiB, so 64 MiB
	// leaves room for any real writer setting.
	maxEncodedBytes = 64 << 20
	// maxBodyBytes caps a decompressed body (the zstd decoder refuses to
	// allocate more), against decompression bombs.
	maxBodyBytes = 64 << 20
	// maxKeyLength is the format's limit on a key and on a data file path.
	maxKeyLength = 0xffff
	// maxNodeEntries is the format's limit on the entries of a B+tree node.
	maxNodeEntries = 1 << 20
	// maxKeyBytes caps the bytes of the keys of one node once their shared
	// prefixes are expanded: prefix compression lets a small node describe
	// up to 2^20 keys of 64 KiB each.
	maxKeyBytes = 64 << 20
	// maxInlineValue is the format's limit on an inline value.
	maxInlineValue = 1 << 20
	// maxArityLog2 is the format's limit on version_tree_arity_log2.
	maxArityLog2 = 16
	// missing is the offset and length of a reference to nothing.
	missing = math.MaxUint64
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// zstdDecoder is shared: DecodeAll is safe for concurrent use. Its memory
// limit makes a frame that claims, or decodes to, more than maxBodyBytes an
// error instead of an allocation.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderMaxMemory(maxBodyBytes),
		zstd.WithDecoderMaxWindow(maxBodyBytes),
		zstd.WithDecoderConcurrency(0),
	)
})

// decodeEnvelope checks the envelope of an encoded object (magic, length,
// CRC-32C, format version) and returns its decompressed body.
func decodeEnvelope(b []byte, magic uint32, what string) ([]byte, error) {
	const header = 4 + 8
	if len(b) < header+2+4 {
		return nil, driver.Corruptf("%s: %d bytes, too short for an envelope", what, len(b))
	}
	if m := binary.BigEndian.Uint32(b); m != magic {
		return nil, driver.Corruptf("%s: bad magic %08x, want %08x", what, m, magic)
	}
	if n := binary.LittleEndian.Uint64(b[4:]); n != uint64(len(b)) {
		return nil, driver.Corruptf("%s: envelope length %d, but %d bytes were read", what, n, len(b))
	}
	end := len(b) - 4
	if want, got := binary.LittleEndian.Uint32(b[end:]), crc32.Checksum(b[:end], castagnoli); want != got {
		return nil, driver.Corruptf("%s: CRC-32C mismatch: stored %08x, computed %08x", what, want, got)
	}
	d := &decoder{b: b[:end], off: header, what: what}
	if v := d.varint(); v != 0 && d.err == nil {
		return nil, driver.Corruptf("%s: unsupported format version %d", what, v)
	}
	comp := d.varint()
	if d.err != nil {
		return nil, d.err
	}
	body := b[d.off:end]
	switch comp {
	case 0:
		return body, nil
	case 1:
		dec, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		out, err := dec.DecodeAll(body, nil)
		if err != nil {
			if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
				return nil, driver.Limitf("%s: decompressed body exceeds %d bytes: %v", what, maxBodyBytes, err)
			}
			return nil, driver.Corruptf("%s: zstd: %v", what, err)
		}
		if len(out) > maxBodyBytes {
			return nil, driver.Limitf("%s: decompressed body exceeds %d bytes", what, maxBodyBytes)
		}
		return out, nil
	default:
		return nil, driver.Corruptf("%s: unknown compression method %d", what, comp)
	}
}

// A decoder reads the primitive encodings from a body. The first error
// sticks: later reads return zero values, so callers check err once after
// a group of reads.
type decoder struct {
	b    []byte
	off  int
	err  error
	what string
}

func (d *decoder) failf(format string, args ...any) {
	if d.err == nil {
		d.err = driver.Corruptf("%s: %s", d.what, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) remaining() int { return len(d.b) - d.off }

func (d *decoder) u8() byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.b) {
		d.failf("unexpected end of data at byte %d", d.off)
		return 0
	}
	c := d.b[d.off]
	d.off++
	return c
}

// varint reads an unsigned LEB128 number of at most 64 bits.
func (d *decoder) varint() uint64 {
	if d.err != nil {
		return 0
	}
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if d.off >= len(d.b) {
			d.failf("unexpected end of data in a varint at byte %d", d.off)
			return 0
		}
		c := d.b[d.off]
		d.off++
		if shift == 63 && c > 1 {
			d.failf("varint overflows 64 bits at byte %d", d.off-1)
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
}

// bounded reads a varint and checks it is at most max.
func (d *decoder) bounded(max uint64, field string) uint64 {
	v := d.varint()
	if v > max && d.err == nil {
		d.failf("%s %d exceeds %d", field, v, max)
		return 0
	}
	return v
}

func (d *decoder) u64le() uint64 {
	b := d.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (d *decoder) u32le() uint32 {
	b := d.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (d *decoder) bytes(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(d.remaining()) {
		d.failf("unexpected end of data: %d bytes wanted at byte %d, %d left", n, d.off, d.remaining())
		return nil
	}
	b := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return b
}

// count reads a varint count of entries that each take at least minBytes
// more bytes of the body, so that a count can never allocate more than a
// small multiple of the body's size.
func (d *decoder) count(max uint64, minBytes int, field string) int {
	n := d.bounded(max, field)
	if d.err == nil && n*uint64(minBytes) > uint64(d.remaining()) {
		d.failf("%s %d does not fit in the %d bytes left", field, n, d.remaining())
		return 0
	}
	return int(n)
}

func (d *decoder) end() error {
	if d.err == nil && d.off != len(d.b) {
		d.failf("%d unexpected trailing bytes", len(d.b)-d.off)
	}
	return d.err
}

// A dataFile names a data file relative to the database directory.
type dataFile struct {
	path string // transitive + base_path + relative_path: what to open
	base string // transitive + base_path: the transitive path of nodes read through it
}

// dataFileTable reads a data file table. transitive is the base path of the
// reference that located the enclosing node ("" for the manifest).
func (d *decoder) dataFileTable(transitive string) []dataFile {
	// Each file takes at least two varint bytes (suffix and base lengths).
	n := d.count(maxNodeEntries, 2, "num_files")
	if d.err != nil {
		return nil
	}
	lengths := make([]uint64, 3*n)
	for i := 1; i < len(lengths); i++ {
		lengths[i] = d.bounded(maxKeyLength, "path length")
	}
	files := make([]dataFile, n)
	var prev []byte
	total := 0
	for i := range n {
		prefix, suffix, base := lengths[i], lengths[n+i], lengths[2*n+i]
		if prefix > uint64(len(prev)) {
			d.failf("data file %d: prefix length %d exceeds the previous path's %d", i, prefix, len(prev))
			return nil
		}
		if prefix+suffix > maxKeyLength {
			d.failf("data file %d: path length %d exceeds %d", i, prefix+suffix, maxKeyLength)
			return nil
		}
		if base > prefix+suffix {
			d.failf("data file %d: base path length %d exceeds path length %d", i, base, prefix+suffix)
			return nil
		}
		// Shared prefixes let a small table name many long paths; cap
		// what they expand to, as for keys.
		if total += len(transitive) + int(prefix+suffix); total > maxKeyBytes {
			d.err = driver.Limitf("%s: data file paths expand to more than %d bytes", d.what, maxKeyBytes)
			return nil
		}
		if len(transitive)+int(prefix+suffix) > maxKeyLength {
			// Each node read through a base path prefixes its own
			// table's paths with it; without a cap, a chain of nodes
			// could grow paths without end.
			d.err = driver.Limitf("%s: data file path of %d bytes exceeds %d", d.what, len(transitive)+int(prefix+suffix), maxKeyLength)
			return nil
		}
		s := d.bytes(suffix)
		if d.err != nil {
			return nil
		}
		p := make([]byte, 0, prefix+suffix)
		p = append(append(p, prev[:prefix]...), s...)
		prev = p
		full := transitive + string(p)
		if !fs.ValidPath(full) || full == "." {
			d.err = fmt.Errorf("%s: data file path %q is not a relative path inside the database: %w", d.what, full, driver.ErrUnsafePath)
			return nil
		}
		files[i] = dataFile{path: full, base: transitive + string(p[:base])}
	}
	return files
}

// A ref is an indirect data reference: length bytes at offset in file.
type ref struct {
	file           dataFile
	offset, length uint64
}

func (r ref) isMissing() bool { return r.offset == missing && r.length == missing }

// refs reads n references stored column by column.
func (d *decoder) refs(n int, table []dataFile, allowMissing bool) []ref {
	if d.err != nil {
		return nil
	}
	out := make([]ref, n)
	for i := range out {
		idx := d.varint()
		if idx >= uint64(len(table)) && d.err == nil {
			d.failf("data file index %d out of range (table has %d)", idx, len(table))
		}
		if d.err != nil {
			return nil
		}
		out[i].file = table[idx]
	}
	for i := range out {
		out[i].offset = d.varint()
	}
	for i := range out {
		out[i].length = d.varint()
	}
	if d.err != nil {
		return nil
	}
	for i, r := range out {
		if r.isMissing() {
			if !allowMissing {
				d.failf("reference %d is missing where a node is required", i)
				return nil
			}
			continue
		}
		if r.offset > math.MaxInt64 || r.length > math.MaxInt64-r.offset {
			d.failf("reference %d: offset %d + length %d overflows", i, r.offset, r.length)
			return nil
		}
	}
	return out
}

// A generation is a version-tree leaf entry: one version of the database.
type generation struct {
	gen        uint64
	rootHeight uint8
	root       ref // isMissing for an empty tree
	numKeys    uint64
	treeBytes  uint64
	valueBytes uint64
	commitTime uint64 // ns since the Unix epoch
}

// A versionNodeRef is a version-tree interior entry: a subtree of
// generations.
type versionNodeRef struct {
	gen        uint64 // the latest generation in the subtree
	node       ref
	numGens    uint64
	commitTime uint64 // the earliest commit time in the subtree
	height     uint8  // of the referenced node
}

// leafEntries reads version-tree leaf entries (section 5.1).
func (d *decoder) leafEntries(arityLog2 uint8, table []dataFile) []generation {
	// Each entry takes at least 1+1+3+3+8 bytes.
	n := d.count(1<<arityLog2, 16, "version count")
	if d.err != nil {
		return nil
	}
	if n == 0 {
		d.failf("empty version-tree leaf")
		return nil
	}
	g := make([]generation, n)
	for i := range g {
		g[i].gen = d.varint()
	}
	for i := range g {
		g[i].rootHeight = d.u8()
	}
	roots := d.refs(n, table, true)
	if d.err != nil {
		return nil
	}
	for i := range g {
		g[i].root = roots[i]
	}
	for i := range g {
		g[i].numKeys = d.varint()
	}
	for i := range g {
		g[i].treeBytes = d.varint()
	}
	for i := range g {
		g[i].valueBytes = d.varint()
	}
	for i := range g {
		g[i].commitTime = d.u64le()
	}
	if d.err != nil {
		return nil
	}
	for i, e := range g {
		switch {
		case e.gen == 0:
			d.failf("generation number 0 in a version-tree leaf")
		case i > 0 && e.gen <= g[i-1].gen:
			d.failf("generation numbers not increasing: %d after %d", e.gen, g[i-1].gen)
		case e.root.isMissing() && (e.rootHeight != 0 || e.numKeys != 0):
			d.failf("generation %d has an empty tree with height %d and %d keys", e.gen, e.rootHeight, e.numKeys)
		}
	}
	last := g[n-1].gen
	if min := minGen(arityLog2, 0, last); d.err == nil && g[0].gen < min {
		d.failf("generations %d..%d do not fit in one leaf (first allowed %d)", g[0].gen, last, min)
	}
	return g
}

// interiorEntries reads version-tree interior entries (section 5.2). With
// withHeight, each entry carries its own height (the manifest's
// version_nodes); otherwise every child has height childHeight.
func (d *decoder) interiorEntries(max uint64, table []dataFile, withHeight bool, childHeight uint8) []versionNodeRef {
	// Each entry takes at least 1+3+1+8 bytes.
	n := d.count(max, 13, "version node count")
	if d.err != nil {
		return nil
	}
	v := make([]versionNodeRef, n)
	for i := range v {
		v[i].gen = d.varint()
	}
	nodes := d.refs(n, table, false)
	if d.err != nil {
		return nil
	}
	for i := range v {
		v[i].node = nodes[i]
	}
	for i := range v {
		v[i].numGens = d.varint()
	}
	for i := range v {
		v[i].commitTime = d.u64le()
	}
	for i := range v {
		if withHeight {
			v[i].height = d.u8()
		} else {
			v[i].height = childHeight
		}
	}
	if d.err != nil {
		return nil
	}
	for i, e := range v {
		if e.gen == 0 {
			d.failf("generation number 0 in a version-tree node")
		}
		if i > 0 && e.gen <= v[i-1].gen {
			d.failf("generation numbers not increasing: %d after %d", e.gen, v[i-1].gen)
		}
	}
	return v
}

// maxVersionHeight is the tallest version tree a given arity allows: its
// generation numbers must fit in 63 bits.
func maxVersionHeight(arityLog2 uint8) uint8 { return uint8(63/int(arityLog2) - 1) }

// minGen returns the first generation that a version-tree node of height h
// whose last generation is last can hold: last - ((last-1) mod A^(h+1)).
func minGen(arityLog2, h uint8, last uint64) uint64 {
	shift := uint(arityLog2) * (uint(h) + 1)
	if shift >= 64 {
		return 1
	}
	return last - ((last - 1) & (1<<shift - 1))
}

// A manifest is the decoded manifest.ocdbt.
type manifest struct {
	uuid        [16]byte
	kind        uint64
	maxInline   uint64
	maxNode     uint64
	arityLog2   uint8
	compression uint64
	zstdLevel   int32
	inline      []generation     // the newest generations
	nodes       []versionNodeRef // older subtrees, tallest (oldest) first
}

// Manifest kinds.
const (
	kindSingle   = 0
	kindNumbered = 1
)

// errNumbered reports the manifest kind this reader does not follow.
var errNumbered = errors.New("numbered manifest kind (manifest.<generation> files) is not supported")

// decodeManifest decodes manifest.ocdbt.
func decodeManifest(b []byte) (*manifest, error) {
	body, err := decodeEnvelope(b, magicManifest, "manifest")
	if err != nil {
		return nil, err
	}
	d := &decoder{b: body, what: "manifest"}
	m := new(manifest)
	copy(m.uuid[:], d.bytes(16))
	m.kind = d.varint()
	m.maxInline = d.varint()
	m.maxNode = d.varint()
	m.arityLog2 = d.u8()
	m.compression = d.varint()
	if d.err != nil {
		return nil, d.err
	}
	if m.kind > kindNumbered {
		return nil, driver.Corruptf("manifest: unknown manifest kind %d", m.kind)
	}
	if m.arityLog2 == 0 || m.arityLog2 > maxArityLog2 {
		return nil, driver.Corruptf("manifest: version_tree_arity_log2 %d outside 1..%d", m.arityLog2, maxArityLog2)
	}
	switch m.compression {
	case 0:
	case 1:
		m.zstdLevel = int32(d.u32le())
	default:
		return nil, driver.Corruptf("manifest: unknown compression method %d", m.compression)
	}
	if m.kind == kindNumbered {
		if err := d.end(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", errNumbered, errors.ErrUnsupported)
	}
	table := d.dataFileTable("")
	m.inline = d.leafEntries(m.arityLog2, table)
	maxH := maxVersionHeight(m.arityLog2)
	m.nodes = d.interiorEntries(uint64(maxH), table, true, 0)
	if err := d.end(); err != nil {
		return nil, err
	}
	if err := m.checkNodes(); err != nil {
		return nil, err
	}
	return m, nil
}

// checkNodes checks that the manifest's version_nodes are the subtrees a
// writer would have produced for its latest generation: heights strictly
// decreasing, each generation inside the aligned block its height allows,
// and all older than the inline versions.
func (m *manifest) checkNodes() error {
	maxH := maxVersionHeight(m.arityLog2)
	first := m.inline[0].gen
	for i, e := range m.nodes {
		if e.height == 0 || e.height > maxH {
			return driver.Corruptf("manifest: version node %d has height %d outside 1..%d", i, e.height, maxH)
		}
		if i > 0 && e.height >= m.nodes[i-1].height {
			return driver.Corruptf("manifest: version node heights not decreasing: %d after %d", e.height, m.nodes[i-1].height)
		}
		if e.gen >= first {
			return driver.Corruptf("manifest: version node generation %d is not older than the inline versions (from %d)", e.gen, first)
		}
		if i > 0 && minGen(m.arityLog2, e.height, e.gen) <= m.nodes[i-1].gen {
			return driver.Corruptf("manifest: version node for generation %d overlaps the previous one (%d)", e.gen, m.nodes[i-1].gen)
		}
		if e.numGens == 0 || e.numGens > e.gen {
			return driver.Corruptf("manifest: version node %d counts %d generations up to %d", i, e.numGens, e.gen)
		}
	}
	return nil
}

// A versionNode is a decoded version-tree node: leaf entries when height
// is 0, interior entries otherwise.
type versionNode struct {
	height   uint8
	leaves   []generation
	children []versionNodeRef
}

// decodeVersionNode decodes the version-tree node that r locates, which
// must have the given arity and height.
func decodeVersionNode(b []byte, r ref, arityLog2, height uint8) (*versionNode, error) {
	const what = "version-tree node"
	body, err := decodeEnvelope(b, magicVersionNode, what)
	if err != nil {
		return nil, err
	}
	d := &decoder{b: body, what: what}
	a := d.u8()
	h := d.u8()
	if d.err != nil {
		return nil, d.err
	}
	if a != arityLog2 {
		return nil, driver.Corruptf("%s: arity_log2 %d, the manifest says %d", what, a, arityLog2)
	}
	if h != height {
		return nil, driver.Corruptf("%s: height %d, expected %d", what, h, height)
	}
	table := d.dataFileTable(r.file.base)
	n := &versionNode{height: h}
	if h == 0 {
		n.leaves = d.leafEntries(a, table)
	} else {
		n.children = d.interiorEntries(1<<a, table, false, h-1)
		if d.err == nil && len(n.children) == 0 {
			d.failf("empty interior node")
		}
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	return n, nil
}

// A btreeNode is a decoded B+tree node. Keys are relative to the prefix
// that the path from the root gives the node.
type btreeNode struct {
	height uint8
	keys   []string
	// Leaf nodes (height 0):
	values []value
	// Interior nodes:
	prefixLen []int // subtree_common_prefix_length
	children  []ref
	numKeys   []uint64
}

// A value is a leaf entry's value: inline bytes or a range of a data file.
type value struct {
	length    uint64
	inline    []byte
	outOfLine bool
	file      dataFile
	offset    uint64
}

// decodeBtreeNode decodes the B+tree node that r locates, which must have
// the given height.
func decodeBtreeNode(b []byte, r ref, height uint8) (*btreeNode, error) {
	const what = "b+tree node"
	body, err := decodeEnvelope(b, magicBtreeNode, what)
	if err != nil {
		return nil, err
	}
	d := &decoder{b: body, what: what}
	n := &btreeNode{height: d.u8()}
	if d.err == nil && n.height != height {
		return nil, driver.Corruptf("%s: height %d, expected %d", what, n.height, height)
	}
	table := d.dataFileTable(r.file.base)
	// Each entry takes at least two varint bytes and a kind byte or a
	// reference.
	count := d.count(maxNodeEntries, 3, "entry count")
	if d.err == nil && count == 0 {
		d.failf("empty node")
	}
	if d.err != nil {
		return nil, d.err
	}
	interior := n.height > 0
	prefix := make([]uint64, count)
	suffix := make([]uint64, count)
	for i := 1; i < count; i++ {
		prefix[i] = d.bounded(maxKeyLength, "key prefix length")
	}
	for i := range suffix {
		suffix[i] = d.bounded(maxKeyLength, "key suffix length")
	}
	if interior {
		n.prefixLen = make([]int, count)
		for i := range n.prefixLen {
			n.prefixLen[i] = int(d.bounded(maxKeyLength, "subtree common prefix length"))
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	n.keys = make([]string, count)
	total := 0
	prev := ""
	for i := range count {
		if prefix[i] > uint64(len(prev)) {
			return nil, driver.Corruptf("%s: key %d: prefix length %d exceeds the previous key's %d", what, i, prefix[i], len(prev))
		}
		if prefix[i]+suffix[i] > maxKeyLength {
			return nil, driver.Corruptf("%s: key %d: length %d exceeds %d", what, i, prefix[i]+suffix[i], maxKeyLength)
		}
		if total += int(prefix[i] + suffix[i]); total > maxKeyBytes {
			return nil, driver.Limitf("%s: keys expand to more than %d bytes", what, maxKeyBytes)
		}
		s := d.bytes(suffix[i])
		if d.err != nil {
			return nil, d.err
		}
		k := prev[:prefix[i]] + string(s)
		if i > 0 && k <= prev {
			return nil, driver.Corruptf("%s: keys not strictly increasing at entry %d", what, i)
		}
		if interior && n.prefixLen[i] > len(k) {
			return nil, driver.Corruptf("%s: key %d: subtree common prefix length %d exceeds key length %d", what, i, n.prefixLen[i], len(k))
		}
		n.keys[i] = k
		prev = k
	}
	if interior {
		n.children = d.refs(count, table, false)
		n.numKeys = make([]uint64, count)
		for i := range n.numKeys {
			n.numKeys[i] = d.varint()
		}
		for range 2 * count { // num_tree_bytes, num_indirect_value_bytes
			d.varint()
		}
	} else {
		n.values = d.leafValues(count, table)
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	return n, nil
}

// leafValues reads the value columns of a leaf node (section 6.1).
func (d *decoder) leafValues(n int, table []dataFile) []value {
	v := make([]value, n)
	for i := range v {
		v[i].length = d.varint()
	}
	kinds := d.bytes(uint64(n))
	if d.err != nil {
		return nil
	}
	for i, k := range kinds {
		switch {
		case k > 1:
			d.failf("value %d: unknown value kind %d", i, k)
			return nil
		case k == 0 && v[i].length > maxInlineValue:
			d.failf("value %d: inline value of %d bytes exceeds %d", i, v[i].length, maxInlineValue)
			return nil
		}
		v[i].outOfLine = k == 1
	}
	for i := range v {
		if !v[i].outOfLine {
			continue
		}
		idx := d.varint()
		if idx >= uint64(len(table)) && d.err == nil {
			d.failf("value %d: data file index %d out of range (table has %d)", i, idx, len(table))
		}
		if d.err != nil {
			return nil
		}
		v[i].file = table[idx]
	}
	for i := range v {
		if v[i].outOfLine {
			v[i].offset = d.varint()
			if d.err == nil && (v[i].offset > math.MaxInt64 || v[i].length > math.MaxInt64-v[i].offset) {
				d.failf("value %d: offset %d + length %d overflows", i, v[i].offset, v[i].length)
			}
		}
	}
	for i := range v {
		if !v[i].outOfLine {
			v[i].inline = d.bytes(v[i].length)
		}
	}
	if d.err != nil {
		return nil
	}
	return v
}
