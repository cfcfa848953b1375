package icechunkadapter

import (
	"bytes"
	"io/fs"
	"math"
	"slices"
	"strings"
	"time"
)

// Field slots of the flatbuffer tables (icechunk-format/flatbuffers/*.fbs;
// spec v2 only appends fields to the v1 tables).
const (
	// Snapshot
	snapID, snapParentID, snapNodes, snapFlushedAt, snapMessage = 0, 1, 2, 3, 4
	// NodeSnapshot
	nodeID, nodePath, nodeUserData, nodeDataType, nodeData = 0, 1, 2, 3, 4
	// ArrayNodeData
	arrShape, arrManifests, arrShapeV2 = 0, 2, 3
	// ManifestRef
	mrefObjectID, mrefExtents = 0, 1
	// Manifest
	manID, manArrays, manLocationDict = 0, 1, 2
	// ArrayManifest
	amNodeID, amRefs = 0, 1
	// ChunkRef
	crIndex, crInline, crOffset, crLength, crChunkID, crLocation, crETag, crLastModified, crCompressedLocation = 0, 1, 2, 3, 4, 5, 6, 7, 8
	// Repo
	repoTags, repoBranches, repoDeletedTags, repoSnapshots = 1, 2, 3, 4
	// Ref
	refName, refSnapshotIndex = 0, 1
	// SnapshotInfo
	siID, siParentOffset, siFlushedAt, siMessage = 0, 1, 2, 3
)

// Node data union types.
const (
	nodeTypeArray = 1
	nodeTypeGroup = 2
)

// Sizes of the inline structs.
const (
	sizeID12           = 12
	sizeID8            = 8
	sizeChunkIndexRng  = 8
	sizeDimensionShape = 16
)

// snapshot is a decoded snapshot file: its header fields and its nodes,
// sorted by path.
type snapshot struct {
	info  Snapshot
	nodes []*node
}

// node is a group or an array of a snapshot.
type node struct {
	path     string // absolute: "/", "/a", "/a/b"
	id       id8
	userData []byte // the node's zarr.json
	array    bool
	rank     int
	mrefs    []manifestRef

	arr arrayState // lazily built state of an array
}

// manifestRef names a manifest holding chunks of an array, and the
// extents of the chunk grid it covers: [from, to) per dimension.
type manifestRef struct {
	id      id12
	extents [][2]uint32
}

// contains reports whether the chunk coordinates lie in r's extents.
func (r *manifestRef) contains(coords []uint32) bool {
	if len(coords) != len(r.extents) {
		return false
	}
	for i, c := range coords {
		if c < r.extents[i][0] || c >= r.extents[i][1] {
			return false
		}
	}
	return true
}

// microTime converts microseconds since the epoch.
func microTime(us uint64) time.Time {
	return time.UnixMicro(int64(min(us, math.MaxInt64))).UTC()
}

// parseSnapshot decodes the flatbuffer payload of a snapshot file. With
// headerOnly, the nodes are not decoded (for histories). maxNodes and
// maxName bound the node count and path length.
func parseSnapshot(name string, payload []byte, headerOnly bool, maxNodes, maxName int) (*snapshot, error) {
	f := &fbuf{b: payload, name: name}
	root := f.root()
	s := &snapshot{}
	id := f.structField(root, snapID, sizeID12)
	if f.err == nil && id == nil {
		f.fail("snapshot has no id")
	}
	var sid id12
	copy(sid[:], id)
	s.info.ID = sid.String()
	if p := f.structField(root, snapParentID, sizeID12); p != nil {
		var pid id12
		copy(pid[:], p)
		s.info.ParentID = pid.String()
	}
	s.info.Time = microTime(f.uint64(root, snapFlushedAt, 0))
	s.info.Message, _ = f.str(root, snapMessage)
	if headerOnly || f.err != nil {
		return s, f.err
	}
	nodes, _ := f.vec(root, snapNodes, 4)
	if f.err != nil {
		return nil, f.err
	}
	if nodes.n > maxNodes {
		return nil, limitf("%s: snapshot has %d nodes, more than Limits.MaxEntries (%d)", name, nodes.n, maxNodes)
	}
	// nodes.n <= maxNodes and <= len(payload)/4: the allocation is bounded.
	s.nodes = make([]*node, 0, nodes.n)
	for i := range nodes.n {
		n := parseNode(f, f.elemTable(nodes, i), maxName)
		if f.err != nil {
			return nil, f.err
		}
		s.nodes = append(s.nodes, n)
	}
	// The writer sorts nodes by path bytes; sort anyway, so that binary
	// search is correct whatever the input.
	slices.SortFunc(s.nodes, func(a, b *node) int { return strings.Compare(a.path, b.path) })
	for i, n := range s.nodes {
		if i > 0 && s.nodes[i-1].path == n.path {
			return nil, corruptf("%s: two nodes have path %q", name, n.path)
		}
		if n.array && i+1 < len(s.nodes) && isUnder(s.nodes[i+1].path, n.path) {
			return nil, corruptf("%s: node %q is inside array %q", name, s.nodes[i+1].path, n.path)
		}
	}
	return s, nil
}

// isUnder reports whether node path p is strictly below node path dir.
func isUnder(p, dir string) bool {
	if dir == "/" {
		return p != "/"
	}
	return len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// parseNode decodes a NodeSnapshot table.
func parseNode(f *fbuf, t table, maxName int) *node {
	n := &node{}
	copy(n.id[:], f.structField(t, nodeID, sizeID8))
	path, ok := f.str(t, nodePath)
	if f.err != nil {
		return nil
	}
	if !ok {
		f.fail("node without a path")
		return nil
	}
	if len(path) > maxName {
		f.fail("node path of %d bytes, more than Limits.MaxNameLength (%d)", len(path), maxName)
		return nil
	}
	if !validNodePath(path) {
		f.fail("invalid node path %q", path)
		return nil
	}
	n.path = path
	if n.userData, ok = f.bytes(t, nodeUserData); !ok && f.err == nil {
		f.fail("node %q has no metadata (user_data)", path)
	}
	typ := f.u8(t, nodeDataType, 0)
	data := f.subTable(t, nodeData)
	if f.err != nil {
		return nil
	}
	switch typ {
	case nodeTypeGroup:
		return n
	case nodeTypeArray:
	default:
		f.fail("node %q has unknown node type %d", path, typ)
		return nil
	}
	n.array = true
	if data.pos < 0 {
		f.fail("array %q has no array data", path)
		return nil
	}
	// v2 snapshots carry an empty v1 shape next to shape_v2.
	v2, _ := f.vec(data, arrShapeV2, 4)
	v1, _ := f.vec(data, arrShape, sizeDimensionShape)
	n.rank = max(v1.n, v2.n)
	if n.rank > maxRank {
		f.fail("array %q has %d dimensions, more than %d", path, n.rank, maxRank)
		return nil
	}
	refs, _ := f.vec(data, arrManifests, 4)
	if f.err != nil {
		return nil
	}
	// Each ManifestRef takes at least 4 bytes of the payload: bounded.
	n.mrefs = make([]manifestRef, 0, refs.n)
	for i := range refs.n {
		rt := f.elemTable(refs, i)
		var r manifestRef
		oid := f.structField(rt, mrefObjectID, sizeID12)
		if f.err == nil && oid == nil {
			f.fail("array %q: manifest ref without an id", path)
		}
		copy(r.id[:], oid)
		ext, _ := f.vec(rt, mrefExtents, sizeChunkIndexRng)
		if f.err != nil {
			return nil
		}
		if ext.n != n.rank {
			f.fail("array %q of rank %d: manifest %s has %d extents", path, n.rank, r.id, ext.n)
			return nil
		}
		r.extents = make([][2]uint32, ext.n)
		for d := range ext.n {
			p := ext.pos + d*sizeChunkIndexRng
			r.extents[d] = [2]uint32{le32(f.b[p:]), le32(f.b[p+4:])}
		}
		n.mrefs = append(n.mrefs, r)
	}
	return n
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// validNodePath reports whether p is "/" or "/" followed by a valid fs
// name whose segments are not "zarr.json" (which would collide with the
// metadata key of the parent).
func validNodePath(p string) bool {
	if p == "/" {
		return true
	}
	if len(p) < 2 || p[0] != '/' || !fs.ValidPath(p[1:]) {
		return false
	}
	for seg := range strings.SplitSeq(p[1:], "/") {
		if seg == "zarr.json" {
			return false
		}
	}
	return true
}

// manifest is a decoded manifest file: the flatbuffer, kept whole, and
// the vector of its arrays.
type manifest struct {
	id     []byte // the manifest's id, nil if it has none
	f      *fbuf
	arrays vector
	dict   []byte // location dictionary, nil if none
}

func parseManifest(name string, payload []byte) (*manifest, error) {
	f := &fbuf{b: payload, name: name}
	root := f.root()
	m := &manifest{f: f}
	m.id = f.structField(root, manID, sizeID12)
	m.arrays, _ = f.vec(root, manArrays, 4)
	m.dict, _ = f.bytes(root, manLocationDict)
	if f.err != nil {
		return nil, f.err
	}
	return m, nil
}

// refs returns the chunk refs vector of the array with node id, and
// whether the manifest has that array. Arrays are sorted by node id.
func (m *manifest) refs(id id8) (vector, bool, error) {
	f := m.f
	i, found := search(m.arrays.n, func(i int) int {
		t := f.elemTable(m.arrays, i)
		return bytes.Compare(f.structField(t, amNodeID, sizeID8), id[:])
	})
	if f.err != nil {
		return vector{}, false, f.err
	}
	if !found {
		return vector{}, false, nil
	}
	v, _ := f.vec(f.elemTable(m.arrays, i), amRefs, 4)
	return v, f.err == nil, f.err
}

// search is a binary search over n elements: cmp(i) compares element i
// with the target. It returns the target's index and whether it is there.
func search(n int, cmp func(i int) int) (int, bool) {
	lo, hi := 0, n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if cmp(mid) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < n && cmp(lo) == 0
}

// chunkRef is a decoded ChunkRef.
type chunkRef struct {
	kind     ChunkKind
	inline   []byte
	chunkID  id12
	offset   int64
	length   int64
	location string // virtual
	etag     string
	modified uint32 // seconds since the epoch, 0 if none
}

// size returns the number of bytes the chunk has.
func (c *chunkRef) size() int64 {
	if c.kind == Inline {
		return int64(len(c.inline))
	}
	return c.length
}

// index decodes the chunk coordinates of ref i into dst.
func (m *manifest) index(refs vector, i int, dst []uint32) []uint32 {
	f := m.f
	t := f.elemTable(refs, i)
	v, _ := f.vec(t, crIndex, 4)
	if f.err != nil || v.n > maxRank {
		f.fail("chunk index of rank %d", v.n)
		return dst[:0]
	}
	dst = dst[:0]
	for d := range v.n {
		dst = append(dst, le32(f.b[v.pos+4*d:]))
	}
	return dst
}

// find returns the position of the chunk ref with these coordinates in
// refs (sorted by index), and whether it is there.
func (m *manifest) find(refs vector, coords []uint32) (int, bool, error) {
	var buf [maxRank]uint32
	i, ok := search(refs.n, func(i int) int {
		return slices.Compare(m.index(refs, i, buf[:0]), coords)
	})
	return i, ok && m.f.err == nil, m.f.err
}

// chunk decodes ref i of refs, following Icechunk's order: a chunk id
// makes it native, a (compressed) location virtual, else inline.
func (m *manifest) chunk(refs vector, i int) (chunkRef, error) {
	f := m.f
	t := f.elemTable(refs, i)
	var c chunkRef
	offset := f.uint64(t, crOffset, 0)
	length := f.uint64(t, crLength, 0)
	if offset > math.MaxInt64 || length > math.MaxInt64-offset {
		f.fail("chunk ref of offset %d and length %d overflows", offset, length)
	}
	c.offset, c.length = int64(offset), int64(length)
	id := f.structField(t, crChunkID, sizeID12)
	cloc, hasCloc := f.bytes(t, crCompressedLocation)
	loc, hasLoc := f.str(t, crLocation)
	inline, hasInline := f.bytes(t, crInline)
	if f.err != nil {
		return c, f.err
	}
	switch {
	case id != nil:
		c.kind = Native
		copy(c.chunkID[:], id)
	case hasCloc:
		c.kind = Virtual
		b, err := unzstd(cloc, m.dict, maxLocationLen)
		if err != nil {
			return c, corruptf("%s: compressed virtual chunk location: %v", f.name, err)
		}
		c.location = string(b)
	case hasLoc:
		c.kind = Virtual
		if len(loc) > maxLocationLen {
			return c, corruptf("%s: virtual chunk location of %d bytes", f.name, len(loc))
		}
		c.location = loc
	case hasInline:
		c.kind = Inline
		c.inline = inline
		c.offset, c.length = 0, int64(len(inline))
	default:
		return c, corruptf("%s: chunk ref with no data (no chunk id, location or inline bytes)", f.name)
	}
	if c.kind == Virtual {
		c.etag, _ = f.str(t, crETag)
		c.modified = f.uint32(t, crLastModified, 0)
	}
	return c, f.err
}

// repoInfo is the decoded repo file of a spec v2 repository.
type repoInfo struct {
	branches, tags map[string]int // name -> index in snapshots
	deletedTags    map[string]bool
	snapshots      []repoSnapshot
}

type repoSnapshot struct {
	info   Snapshot
	parent int // index in snapshots, -1 for none
}

func parseRepo(name string, payload []byte, maxEntries int) (*repoInfo, error) {
	f := &fbuf{b: payload, name: name}
	root := f.root()
	r := &repoInfo{branches: map[string]int{}, tags: map[string]int{}, deletedTags: map[string]bool{}}
	snaps, _ := f.vec(root, repoSnapshots, 4)
	tags, _ := f.vec(root, repoTags, 4)
	branches, _ := f.vec(root, repoBranches, 4)
	deleted, _ := f.vec(root, repoDeletedTags, 4)
	if f.err != nil {
		return nil, f.err
	}
	if snaps.n > maxEntries || tags.n+branches.n+deleted.n > maxEntries {
		return nil, limitf("%s: repo lists %d snapshots and %d refs, more than Limits.MaxEntries (%d)", name, snaps.n, tags.n+branches.n+deleted.n, maxEntries)
	}
	// Bounded by maxEntries and by the payload size (4 bytes an element).
	r.snapshots = make([]repoSnapshot, snaps.n)
	for i := range snaps.n {
		t := f.elemTable(snaps, i)
		id := f.structField(t, siID, sizeID12)
		if f.err == nil && id == nil {
			f.fail("snapshot %d has no id", i)
		}
		var sid id12
		copy(sid[:], id)
		s := &r.snapshots[i]
		s.info.ID = sid.String()
		s.parent = int(f.int32(t, siParentOffset, 0))
		s.info.Time = microTime(f.uint64(t, siFlushedAt, 0))
		s.info.Message, _ = f.str(t, siMessage)
		if f.err == nil && (s.parent < -1 || s.parent >= snaps.n) {
			f.fail("snapshot %s has parent index %d, out of range", s.info.ID, s.parent)
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	for i := range snaps.n {
		if p := r.snapshots[i].parent; p >= 0 {
			r.snapshots[i].info.ParentID = r.snapshots[p].info.ID
		}
	}
	readRefs := func(v vector, into map[string]int) {
		for i := range v.n {
			t := f.elemTable(v, i)
			name, _ := f.str(t, refName)
			idx := f.uint32(t, refSnapshotIndex, 0)
			if f.err == nil && int64(idx) >= int64(snaps.n) {
				f.fail("ref %q points at snapshot index %d of %d", name, idx, snaps.n)
			}
			into[name] = int(idx)
		}
	}
	readRefs(tags, r.tags)
	readRefs(branches, r.branches)
	for i := range deleted.n {
		r.deletedTags[f.elemString(deleted, i)] = true
	}
	if f.err != nil {
		return nil, f.err
	}
	return r, nil
}

// unixTime converts seconds since the epoch.
func unixTime(s uint32) time.Time { return time.Unix(int64(s), 0).UTC() }
