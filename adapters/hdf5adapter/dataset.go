package hdf5adapter

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A Dataset describes an HDF5 dataset: the Sys of its file.
type Dataset struct {
	// Path is the dataset's path in the file, "/g/d".
	Path string `json:"path"`
	// Address is the address of its object header.
	Address uint64 `json:"address"`
	// Shape is the dataset's shape: nil for a scalar, and for a null
	// dataspace (Null set), which holds no element.
	Shape []int64 `json:"shape"`
	// MaxShape is the maximum shape, -1 for an unlimited dimension.
	MaxShape []int64 `json:"max_shape"`
	// Null reports a null dataspace: no element at all.
	Null bool `json:"null,omitempty"`
	// DType is the element type.
	DType DType `json:"dtype"`
	// Layout is "compact", "contiguous", "chunked" or "virtual" (a
	// virtual dataset, whose elements are read from the source datasets
	// it maps).
	Layout string `json:"layout"`
	// ChunkShape is the chunk shape of a chunked dataset, nil otherwise.
	ChunkShape []int64 `json:"chunk_shape,omitempty"`
	// ChunkIndex names the chunk index of a chunked dataset: "btree1",
	// "single", "implicit", "fixed array", "extensible array" or
	// "btree2".
	ChunkIndex string `json:"chunk_index,omitempty"`
	// Filters is the filter pipeline, in the order the writer applied it.
	Filters []Filter `json:"filters,omitempty"`
	// Fill is one element of fill value, in stored byte order; nil when
	// the file leaves it undefined (reads give zeros).
	Fill []byte `json:"fill,omitempty"`
	// Attributes are the dataset's attributes, decoded (see Group).
	Attributes map[string]any `json:"attributes,omitempty"`

	info *dsInfo
}

// Elements returns the number of elements.
func (d *Dataset) Elements() int64 { return d.info.count }

// A Group describes an HDF5 group: the Sys of its directory.
type Group struct {
	// Path is the group's path in the file, "/" for the root.
	Path string `json:"path"`
	// Address is the address of its object header.
	Address uint64 `json:"address"`
	// Attributes are the group's attributes decoded to Go values: int64,
	// uint64, float64, string (fixed and variable-length strings), []any
	// for arrays and non-scalar dataspaces, map[string]any for compounds,
	// the raw bytes ([]byte) for anything else, and nil for a type this
	// package does not read.
	Attributes map[string]any `json:"attributes,omitempty"`
	// Links are the group's links, sorted by name. Links and Omitted are
	// set in the Sys of Stat, not in the entries of a listing, so that
	// listing a group does not read the links of its children.
	Links []Link `json:"links"`
	// Omitted lists the links that the group's directory does not list,
	// and why (committed datatypes, names that are not valid io/fs names,
	// user-defined links).
	Omitted []Link `json:"omitted,omitempty"`
}

// A Link is one link of a group.
type Link struct {
	Name string `json:"name"`
	// Type is "hard", "soft" or "external".
	Type string `json:"type"`
	// Target is the path of a soft or external link.
	Target string `json:"target,omitempty"`
	// File is the file of an external link.
	File string `json:"file,omitempty"`
	// Reason says why an omitted link is not listed.
	Reason string `json:"reason,omitempty"`
}

// An ExternalLink is the Sys of the entry of an external link, listed as
// a symbolic link that is not followed.
type ExternalLink struct {
	File string `json:"file"`
	Path string `json:"path"`
}

// A SoftLink is the Sys of the entry of a soft link whose target does not
// exist in the file (a dangling link), listed as a symbolic link.
type SoftLink struct {
	Path string `json:"path"`
}

// An Unreadable is the Sys of the entry of an object whose metadata does
// not parse (corrupt, or of a kind this package does not read), listed as
// an irregular file (fs.ModeIrregular) so that its siblings are listed;
// Stat and Open of its name fail with the error.
type Unreadable struct {
	Path    string `json:"path"`
	Address uint64 `json:"address"`
	Err     string `json:"error"`
}

// A CycleLink is the Sys of the entry of a link to a group that is
// already on the path from the root (a hard or soft link back up the
// tree), listed as a symbolic link so that fs.WalkDir does not descend
// into it again. Stat and ReadDir of its name follow it: the group.
type CycleLink struct {
	// Path is the path of the group it points at.
	Path string `json:"path"`
	// Type is the link's type, "hard" or "soft".
	Type string `json:"type"`
}

// Layout classes.
const (
	layoutCompact    = 0
	layoutContiguous = 1
	layoutChunked    = 2
	layoutVirtual    = 3
)

// layoutNames names the layout classes, indexed by class.
var layoutNames = [...]string{"compact", "contiguous", "chunked", "virtual"}

// Chunk index types.
const (
	idxBTree1   = 0
	idxSingle   = 1
	idxImplicit = 2
	idxFixed    = 3
	idxExtArray = 4
	idxBTree2   = 5
)

var indexNames = [...]string{"btree1", "single", "implicit", "fixed array", "extensible array", "btree2"}

// dsInfo is what a dataset's reads need.
type dsInfo struct {
	f      *file
	addr   uint64
	dims   []int64 // C order; nil for a scalar
	maxd   []int64
	es     int // element size
	count  int64
	dtype  DType
	layout int
	fill   []byte
	filter []Filter
	bad    error // why the bytes cannot be read, nil when they can

	compact    []byte
	contigAddr uint64
	contigSize uint64
	chunk      []int64
	cb         int64 // bytes of a chunk
	index      int
	indexAddr  uint64
	single     chunkLoc // a filtered single chunk's size and mask
	edgeRaw    bool     // v4 flags bit 0: edge chunks are not filtered
	pageBits   int
	ea         eaParams

	ixMu sync.Mutex
	ix   chunkIndex
	null bool

	vds *vdsState // a virtual dataset's mappings
}

type eaParams struct {
	maxBits, idxElems, minPtrs, minElems, pageBits int
}

// dataset returns what reading the dataset whose object header is at
// addr needs, parsed once.
func (f *file) dataset(ctx context.Context, addr uint64) (*dsInfo, error) {
	f.mu.Lock()
	d := f.dsts[addr]
	f.mu.Unlock()
	if d != nil {
		return d, nil
	}
	o, err := f.object(ctx, addr)
	if err != nil {
		return nil, err
	}
	d, err = f.parseDataset(ctx, o)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.remember(256)
	f.dsts[addr] = d
	f.mu.Unlock()
	return d, nil
}

func (f *file) parseDataset(ctx context.Context, o *object) (*dsInfo, error) {
	d := &dsInfo{f: f, addr: o.addr}
	need := func(t uint16, what string) ([]byte, error) {
		m := o.first(t)
		if m == nil {
			return nil, driver.Corruptf("dataset without a %s message", what)
		}
		return f.body(ctx, m, 0)
	}
	b, err := need(msgDataspace, "dataspace")
	if err != nil {
		return nil, err
	}
	space, err := f.parseDataspace(b)
	if err != nil {
		return nil, err
	}
	d.dims, d.maxd, d.null = space.dims, space.max, space.null
	if d.maxd == nil && d.dims != nil {
		d.maxd = d.dims
	}
	if d.count, err = space.count(); err != nil {
		return nil, err
	}
	b, err = need(msgDatatype, "datatype")
	if err == nil {
		d.dtype, _, err = f.parseDType(b)
	}
	if errors.Is(err, errors.ErrUnsupported) {
		// Listed and described, but not read.
		size := 1
		if len(b) >= 8 {
			size = int(max(1, min(leUint(b[4:8]), 1<<28)))
		}
		d.dtype = DType{Class: "unsupported", Size: size, NumPy: fmt.Sprintf("|V%d", size)}
		d.bad = fmt.Errorf("datatype: %w", err)
	} else if err != nil {
		return nil, err
	}
	d.es = d.dtype.Size
	if d.count > math.MaxInt64/int64(d.es) {
		return nil, driver.Corruptf("dataset of %d elements of %d bytes", d.count, d.es)
	}
	// A fill value or filter pipeline that does not parse makes the
	// dataset's reads fail; it is still listed and described.
	if err := d.parseFill(ctx, o); err != nil && d.bad == nil {
		d.bad = fmt.Errorf("fill value: %w", err)
	}
	if m := o.first(msgFilters); m != nil {
		b, err := f.body(ctx, m, 0)
		if err == nil {
			d.filter, err = f.parseFilters(b)
		}
		if err != nil && d.bad == nil {
			d.bad = fmt.Errorf("filter pipeline: %w", err)
		}
	}
	if o.has(msgExternal) && d.bad == nil {
		d.bad = fmt.Errorf("%w: dataset stored in external files", errors.ErrUnsupported)
	}
	if b, err = need(msgLayout, "layout"); err != nil {
		return nil, err
	}
	if err := d.parseLayout(b); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *dsInfo) parseFill(ctx context.Context, o *object) error {
	f := d.f
	var val []byte
	found := false
	if m := o.first(msgFill); m != nil {
		b, err := f.body(ctx, m, 0)
		if err != nil {
			return err
		}
		c := f.cursor(b, "fill value message")
		switch v := c.u8(); v {
		case 1, 2:
			c.skip(2)
			defined := c.u8()
			if v == 1 || defined != 0 {
				// A size of -1 is an undefined fill value.
				if n := c.u32(); n != 0xffffffff {
					val = c.take(int(min(n, 1<<30)))
					found = true
				}
			}
		case 3:
			flags := c.u8()
			if flags&0x20 != 0 {
				n := c.u32()
				val = c.take(int(min(n, 1<<30)))
				found = true
			}
		default:
			return driver.Corruptf("fill value message version %d", v)
		}
		if c.err != nil {
			return c.err
		}
	}
	if m := o.first(msgFillOld); m != nil && !found {
		b, err := f.body(ctx, m, 0)
		if err != nil {
			return err
		}
		c := f.cursor(b, "fill value message")
		n := c.u32()
		val = c.take(int(min(n, 1<<30)))
		if c.err != nil {
			return c.err
		}
	}
	if len(val) == 0 {
		return nil
	}
	if len(val) != d.es {
		return driver.Corruptf("fill value of %d bytes for %d-byte elements", len(val), d.es)
	}
	d.fill = append([]byte(nil), val...)
	return nil
}

func (f *file) parseFilters(b []byte) ([]Filter, error) {
	c := f.cursor(b, "filter pipeline message")
	v := c.u8()
	n := int(c.u8())
	if v == 1 {
		c.skip(6)
	} else if v != 2 {
		return nil, driver.Corruptf("filter pipeline version %d", v)
	}
	if n > 32 {
		return nil, driver.Corruptf("filter pipeline of %d filters", n)
	}
	var out []Filter
	for range n {
		var fl Filter
		fl.ID = c.u16()
		nameLen := 0
		if v == 1 || fl.ID >= 256 {
			nameLen = int(c.u16())
		}
		fl.Flags = c.u16()
		nv := int(c.u16())
		if nameLen > 0 {
			if v == 1 {
				nameLen = (nameLen + 7) &^ 7
			}
			fl.Name = strings.TrimRight(string(c.take(nameLen)), "\x00")
		}
		if nv > c.left()/4 {
			return nil, driver.Corruptf("filter with %d values in %d bytes", nv, c.left())
		}
		for range nv {
			fl.Values = append(fl.Values, c.u32())
		}
		if v == 1 && nv%2 == 1 {
			c.skip(4)
		}
		if fl.Name == "" {
			fl.Name = filterName(fl.ID)
		}
		out = append(out, fl)
	}
	return out, c.err
}

func (d *dsInfo) parseLayout(b []byte) error {
	f := d.f
	c := f.cursor(b, "layout message")
	version := c.u8()
	rank := len(d.dims)
	switch version {
	case 1, 2:
		nd := int(c.u8())
		d.layout = int(c.u8())
		c.skip(5)
		if d.layout != layoutCompact {
			d.contigAddr = c.addr()
		}
		if nd > maxRank+1 {
			return driver.Corruptf("layout of rank %d", nd)
		}
		dims := make([]int64, nd)
		for i := range dims {
			dims[i] = int64(c.u32())
		}
		switch d.layout {
		case layoutCompact:
			n := c.u32()
			d.compact = c.take(int(min(n, 1<<30)))
		case layoutContiguous:
			d.contigSize = uint64(d.count) * uint64(d.es)
		case layoutChunked:
			if nd != rank+1 {
				return driver.Corruptf("chunk dimensions %v for a rank-%d dataset", dims, rank)
			}
			d.chunk = dims[:rank]
			d.index, d.indexAddr = idxBTree1, d.contigAddr
		default:
			return driver.Corruptf("layout class %d", d.layout)
		}
	case 3, 4:
		d.layout = int(c.u8())
		switch d.layout {
		case layoutCompact:
			n := c.u16()
			d.compact = c.take(int(n))
		case layoutContiguous:
			d.contigAddr = c.addr()
			d.contigSize = c.length()
		case layoutChunked:
			if version == 3 {
				nd := int(c.u8())
				d.indexAddr = c.addr()
				if nd != rank+1 {
					return driver.Corruptf("layout of %d chunk dimensions for a rank-%d dataset", nd, rank)
				}
				for range rank {
					d.chunk = append(d.chunk, int64(c.u32()))
				}
				c.u32()
				d.index = idxBTree1
				break
			}
			flags := c.u8()
			nd := int(c.u8())
			w := int(c.u8())
			if nd != rank+1 || w < 1 || w > 8 {
				return driver.Corruptf("layout of %d chunk dimensions of %d bytes for a rank-%d dataset", nd, w, rank)
			}
			for range rank {
				d.chunk = append(d.chunk, int64(min(c.uint(w), 1<<62)))
			}
			c.uint(w)
			d.edgeRaw = flags&1 != 0
			d.index = int(c.u8())
			switch d.index {
			case idxSingle:
				if flags&2 != 0 {
					d.single.size = c.length()
					d.single.mask = c.u32()
				}
			case idxImplicit:
			case idxFixed:
				d.pageBits = int(c.u8())
			case idxExtArray:
				d.ea = eaParams{int(c.u8()), int(c.u8()), int(c.u8()), int(c.u8()), int(c.u8())}
			case idxBTree2:
				c.skip(6)
			default:
				return driver.Corruptf("chunk index type %d", d.index)
			}
			d.indexAddr = c.addr()
			if d.index == idxSingle && flags&2 == 0 {
				d.single.size = undef // unfiltered: the chunk's bytes
			}
		case layoutVirtual:
			// The mappings are read at the first read (vds.go).
			d.vds = &vdsState{heap: c.addr(), index: c.u32()}
			return c.err
		default:
			return driver.Corruptf("layout class %d", d.layout)
		}
	default:
		return driver.Corruptf("layout message version %d", version)
	}
	if c.err != nil {
		return c.err
	}
	switch d.layout {
	case layoutCompact:
		if int64(len(d.compact)) < d.count*int64(d.es) {
			return driver.Corruptf("compact dataset of %d bytes for %d elements of %d bytes", len(d.compact), d.count, d.es)
		}
	case layoutContiguous:
		if d.contigAddr != undef && d.contigSize < uint64(d.count)*uint64(d.es) {
			return driver.Corruptf("contiguous dataset of %d bytes for %d elements of %d bytes", d.contigSize, d.count, d.es)
		}
	case layoutChunked:
		if rank == 0 {
			return driver.Corruptf("chunked scalar dataset")
		}
		cb := uint64(d.es)
		for _, v := range d.chunk {
			if v <= 0 {
				return driver.Corruptf("chunk dimensions %v", d.chunk)
			}
			hi, lo := bits.Mul64(cb, uint64(v))
			if hi != 0 || lo > uint64(math.MaxInt64) {
				return driver.Corruptf("chunk dimensions %v overflow", d.chunk)
			}
			cb = lo
		}
		if cb >= 1<<32 {
			return driver.Corruptf("chunk of %d bytes, more than 4 GiB", cb)
		}
		d.cb = int64(cb)
		if d.cb > d.f.lim.MaxChunk && d.bad == nil {
			d.bad = driver.Limitf("chunks of %d bytes, more than MaxChunk (%d)", d.cb, d.f.lim.MaxChunk)
		}
		if d.bad == nil && len(d.filter) > 0 {
			if err := checkFilters(d.filter); err != nil {
				d.bad = err
			}
		}
	}
	return nil
}

// variableErr is the error of reading the bytes of variable-length data.
func (d *dsInfo) variableErr() error {
	if d.dtype.VarString {
		return fmt.Errorf("%w: %s elements are stored as pointers into the file's heaps, not as bytes; read them as strings with pipefs array --strings (array.ReadStrings)", errors.ErrUnsupported, d.dtype.String())
	}
	return fmt.Errorf("%w: %s elements are stored as pointers into the file's heaps, not as bytes, and pipefs does not read their values", errors.ErrUnsupported, d.dtype.String())
}

// describe returns the exported description of the dataset.
func (d *dsInfo) describe(ctx context.Context, path string) (*Dataset, error) {
	o, err := d.f.object(ctx, d.addr)
	if err != nil {
		return nil, err
	}
	attrs, err := d.f.attributes(ctx, o)
	if err != nil {
		return nil, err
	}
	ds := &Dataset{Path: path, Address: d.addr, Shape: d.dims, MaxShape: d.maxd, DType: d.dtype,
		Filters: d.filter, Fill: d.fill, Attributes: attrs, info: d}
	if d.layout >= 0 && d.layout < len(layoutNames) {
		ds.Layout = layoutNames[d.layout]
	}
	ds.Null = d.null
	if d.layout == layoutChunked {
		ds.ChunkShape = d.chunk
		if d.index >= 0 && d.index < len(indexNames) {
			ds.ChunkIndex = indexNames[d.index]
		}
	}
	return ds, nil
}
