package hdf5adapter

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"
)

// Link types.
const (
	linkHard     = 0
	linkSoft     = 1
	linkExternal = 64
)

// A link is one link of a group.
type link struct {
	name   string
	typ    int
	addr   uint64 // hard
	target string // soft: the path; external: the object's path
	file   string // external: the file
}

// links is a group's links, sorted by name.
type links struct {
	list []link
	obj  *object
}

func (l *links) find(name string) *link {
	i, ok := slices.BinarySearchFunc(l.list, name, func(a link, n string) int { return strings.Compare(a.name, n) })
	if !ok {
		return nil
	}
	return &l.list[i]
}

// groupLinks returns the links of the group whose object header is at
// addr.
func (f *file) groupLinks(ctx context.Context, addr uint64) (*links, error) {
	f.mu.Lock()
	l := f.grps[addr]
	f.mu.Unlock()
	if l != nil {
		return l, nil
	}
	o, err := f.object(ctx, addr)
	if err != nil {
		return nil, err
	}
	if o.kind() != kindGroup {
		return nil, fmt.Errorf("object at %#x: %w", addr, driver.ErrNotDir)
	}
	l = &links{obj: o}
	add := func(k link) error {
		if len(l.list) >= f.lim.MaxEntries {
			return driver.Limitf("group at %#x has more than MaxEntries (%d) links", addr, f.lim.MaxEntries)
		}
		l.list = append(l.list, k)
		return nil
	}
	if st := o.first(msgSymbolTable); st != nil {
		c := f.cursor(st.body, "symbol table message")
		tree, heap := c.addr(), c.addr()
		if c.err != nil {
			return nil, c.err
		}
		if err := f.symbolTable(ctx, tree, heap, add); err != nil {
			return nil, err
		}
	} else {
		dense := false
		if li := o.first(msgLinkInfo); li != nil {
			c := f.cursor(li.body, "link info message")
			c.skip(1)
			flags := c.u8()
			if flags&1 != 0 {
				c.skip(8)
			}
			heap, names := c.addr(), c.addr()
			if c.err != nil {
				return nil, c.err
			}
			if heap != undef {
				dense = true
				h, err := f.fractalHeap(ctx, heap)
				if err != nil {
					return nil, err
				}
				err = f.walkBTree2(ctx, names, func(rec []byte) error {
					if len(rec) < 4+7 {
						return driver.Corruptf("link name record of %d bytes", len(rec))
					}
					b, err := f.heapObject(ctx, h, rec[4:11])
					if err != nil {
						return err
					}
					k, ok, err := f.parseLink(b)
					if err != nil || !ok {
						return err
					}
					return add(k)
				})
				if err != nil {
					return nil, err
				}
			}
		}
		if !dense {
			for _, m := range o.msgs {
				if m.typ != msgLink {
					continue
				}
				k, ok, err := f.parseLink(m.body)
				if err != nil {
					return nil, err
				}
				if ok {
					if err := add(k); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	slices.SortFunc(l.list, func(a, b link) int { return strings.Compare(a.name, b.name) })
	l.list = slices.CompactFunc(l.list, func(a, b link) bool { return a.name == b.name })
	f.mu.Lock()
	f.remember(int64(len(l.list)) * 64)
	f.grps[addr] = l
	f.mu.Unlock()
	return l, nil
}

// parseLink parses a link message; ok is false for a user-defined link.
func (f *file) parseLink(b []byte) (k link, ok bool, err error) {
	c := f.cursor(b, "link message")
	if v := c.u8(); v != 1 {
		return k, false, driver.Corruptf("link message version %d", v)
	}
	flags := c.u8()
	if flags&0x08 != 0 {
		k.typ = int(c.u8())
	}
	if flags&0x04 != 0 {
		c.skip(8)
	}
	if flags&0x10 != 0 {
		c.skip(1)
	}
	n := c.uint(1 << (flags & 3))
	if n > uint64(f.lim.MaxNameLength) {
		return k, false, driver.Limitf("link name of %d bytes, more than MaxNameLength", n)
	}
	k.name = string(c.take(int(n)))
	switch k.typ {
	case linkHard:
		k.addr = c.addr()
	case linkSoft:
		k.target = string(c.take(int(c.u16())))
	case linkExternal:
		v := c.take(int(c.u16()))
		if len(v) > 0 {
			parts := strings.SplitN(string(v[1:]), "\x00", 3)
			k.file = parts[0]
			if len(parts) > 1 {
				k.target = parts[1]
			}
		}
	default:
		return k, false, c.err
	}
	return k, c.err == nil, c.err
}

// symbolTable reads an old-style group: its v1 B-tree of symbol table
// nodes and its local heap of names.
func (f *file) symbolTable(ctx context.Context, tree, heapAddr uint64, add func(link) error) error {
	heap, err := f.localHeap(ctx, heapAddr)
	if err != nil {
		return err
	}
	name := func(off uint64) (string, error) {
		if off >= uint64(len(heap)) {
			return "", driver.Corruptf("name at %d past the local heap of %d bytes", off, len(heap))
		}
		s := heap[off:]
		end := indexNUL(s)
		if end < 0 {
			return "", driver.Corruptf("name at %d in the local heap has no NUL", off)
		}
		if end > f.lim.MaxNameLength {
			return "", driver.Limitf("name of %d bytes, more than MaxNameLength", end)
		}
		return string(s[:end]), nil
	}
	return f.walkBTree1(ctx, tree, 0, 0, func(_ []byte, child uint64) error {
		b, err := f.readUpTo(ctx, child, 8, "symbol table node")
		if err != nil {
			return err
		}
		if !hasSig(b, "SNOD") || len(b) < 8 {
			return driver.Corruptf("symbol table node at %#x has no SNOD signature", child)
		}
		n := int(b[6]) | int(b[7])<<8
		esize := 2*f.o + 24
		b, err = f.read(ctx, child, uint64(8+n*esize), "symbol table node")
		if err != nil {
			return err
		}
		c := f.cursor(b[8:], "symbol table entry")
		for range n {
			off := c.addr()
			addr := c.addr()
			cache := c.u32()
			c.skip(4)
			scratch := c.take(16)
			if c.err != nil {
				return c.err
			}
			nm, err := name(off)
			if err != nil {
				return err
			}
			k := link{name: nm, addr: addr}
			if cache == 2 {
				k.typ = linkSoft
				if k.target, err = name(leUint(scratch[:4])); err != nil {
					return err
				}
			}
			if err := add(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// localHeap returns the data segment of the local heap at addr.
func (f *file) localHeap(ctx context.Context, addr uint64) ([]byte, error) {
	b, err := f.read(ctx, addr, uint64(8+2*f.l+f.o), "local heap")
	if err != nil {
		return nil, err
	}
	if !hasSig(b, "HEAP") {
		return nil, driver.Corruptf("local heap at %#x has no HEAP signature", addr)
	}
	c := f.cursor(b[8:], "local heap")
	size := c.length()
	c.length()
	data := c.addr()
	if c.err != nil {
		return nil, c.err
	}
	return f.read(ctx, data, size, "local heap data")
}

// walkBTree1 calls fn for every leaf entry of the version 1 B-tree of
// type typ at addr (rank: chunk dimensions + 1 for chunk trees), with its
// key (the key before the child) and child address.
func (f *file) walkBTree1(ctx context.Context, addr uint64, typ int, rank int, fn func(key []byte, child uint64) error) error {
	seen := map[uint64]bool{}
	keySize := f.l
	if typ == 1 {
		keySize = 8 + 8*rank
	}
	var walk func(addr uint64, depth int, wantLevel int) error
	walk = func(addr uint64, depth int, wantLevel int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if depth > 64 {
			return driver.Corruptf("v1 B-tree deeper than 64 levels")
		}
		if seen[addr] {
			return driver.Corruptf("v1 B-tree node %#x reached twice", addr)
		}
		seen[addr] = true
		if len(seen) > f.lim.MaxEntries {
			return driver.Limitf("v1 B-tree of more than MaxEntries (%d) nodes", f.lim.MaxEntries)
		}
		hdr := 8 + 2*f.o
		b, err := f.read(ctx, addr, uint64(hdr), "v1 B-tree node")
		if err != nil {
			return err
		}
		if !hasSig(b, "TREE") {
			return driver.Corruptf("v1 B-tree node at %#x has no TREE signature", addr)
		}
		if int(b[4]) != typ {
			return driver.Corruptf("v1 B-tree node at %#x of type %d, want %d", addr, b[4], typ)
		}
		level := int(b[5])
		if wantLevel >= 0 && level != wantLevel {
			return driver.Corruptf("v1 B-tree node at %#x at level %d, its parent wants %d", addr, level, wantLevel)
		}
		n := int(b[6]) | int(b[7])<<8
		size := uint64(hdr) + uint64(n)*uint64(keySize+f.o) + uint64(keySize)
		b, err = f.read(ctx, addr, size, "v1 B-tree node")
		if err != nil {
			return err
		}
		c := f.cursor(b[hdr:], "v1 B-tree node")
		for range n {
			key := c.take(keySize)
			child := c.addr()
			if c.err != nil {
				return c.err
			}
			if level > 0 {
				if err := walk(child, depth+1, level-1); err != nil {
					return err
				}
			} else if err := fn(key, child); err != nil {
				return err
			}
		}
		return nil
	}
	if addr == undef {
		return nil
	}
	return walk(addr, 0, -1)
}
