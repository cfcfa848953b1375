package hdf5adapter

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"
)

// Message types.
const (
	msgDataspace    = 0x01
	msgLinkInfo     = 0x02
	msgDatatype     = 0x03
	msgFillOld      = 0x04
	msgFill         = 0x05
	msgLink         = 0x06
	msgExternal     = 0x07
	msgLayout       = 0x08
	msgGroupInfo    = 0x0A
	msgFilters      = 0x0B
	msgAttribute    = 0x0C
	msgModTimeOld   = 0x0E
	msgContinuation = 0x10
	msgSymbolTable  = 0x11
	msgModTime      = 0x12
	msgAttrInfo     = 0x15
)

// A message is one header message of an object.
type message struct {
	typ   uint16
	flags uint8
	body  []byte
}

// An object is a parsed object header.
type object struct {
	addr  uint64
	msgs  []message
	mtime time.Time
}

// first returns the first message of type t, or nil.
func (o *object) first(t uint16) *message {
	for i := range o.msgs {
		if o.msgs[i].typ == t {
			return &o.msgs[i]
		}
	}
	return nil
}

func (o *object) has(t uint16) bool { return o.first(t) != nil }

// kind of object.
const (
	kindUnknown = iota
	kindGroup
	kindDataset
	kindDatatype
)

func (o *object) kind() int {
	switch {
	case o.has(msgLayout):
		return kindDataset
	case o.has(msgSymbolTable), o.has(msgLinkInfo), o.has(msgLink), o.has(msgGroupInfo):
		return kindGroup
	case o.has(msgDatatype):
		return kindDatatype
	}
	return kindUnknown
}

// object returns the parsed object header at addr.
func (f *file) object(ctx context.Context, addr uint64) (*object, error) {
	f.mu.Lock()
	o := f.objs[addr]
	f.mu.Unlock()
	if o != nil {
		return o, nil
	}
	o, size, err := f.parseObject(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("object header at %#x: %w", addr, err)
	}
	f.mu.Lock()
	f.remember(size)
	f.objs[addr] = o
	f.mu.Unlock()
	return o, nil
}

// parseObject reads the object header at addr and all its continuation
// blocks.
func (f *file) parseObject(ctx context.Context, addr uint64) (*object, int64, error) {
	head, err := f.readUpTo(ctx, addr, 512, "object header")
	if err != nil {
		return nil, 0, err
	}
	o := &object{addr: addr}
	type block struct{ addr, n uint64 }
	var todo []block
	seen := map[uint64]bool{addr: true}
	total := int64(0)
	v2 := hasSig(head, "OHDR")
	creationOrder := false
	// parse adds the messages of one block of messages.
	parse := func(b []byte) error {
		c := f.cursor(b, "object header messages")
		for {
			hdr := 8
			if v2 {
				hdr = 4
				if creationOrder {
					hdr = 6
				}
			}
			if c.left() < hdr {
				return nil // a gap
			}
			var m message
			var size int
			if v2 {
				m.typ = uint16(c.u8())
				size = int(c.u16())
				m.flags = c.u8()
				if creationOrder {
					c.skip(2)
				}
			} else {
				m.typ = c.u16()
				size = int(c.u16())
				m.flags = c.u8()
				c.skip(3)
			}
			m.body = c.take(size)
			if c.err != nil {
				return c.err
			}
			if len(o.msgs) >= f.lim.MaxEntries {
				return driver.Limitf("more than MaxEntries (%d) header messages", f.lim.MaxEntries)
			}
			switch m.typ {
			case 0:
				continue // NIL
			case msgContinuation:
				mc := f.cursor(m.body, "continuation message")
				a, n := mc.addr(), mc.length()
				if mc.err != nil {
					return mc.err
				}
				if seen[a] {
					return driver.Corruptf("continuation block %#x seen twice", a)
				}
				seen[a] = true
				todo = append(todo, block{a, n})
				continue
			case msgModTime:
				if len(m.body) >= 8 {
					o.mtime = time.Unix(int64(binary.LittleEndian.Uint32(m.body[4:])), 0).UTC()
				}
			case msgModTimeOld:
				if len(m.body) >= 14 {
					if t, err := time.Parse("20060102150405", string(m.body[:14])); err == nil {
						o.mtime = t
					}
				}
			}
			if m.flags&0x80 != 0 && !knownMessage(m.typ) {
				return fmt.Errorf("%w: header message type %#x marked as required", errors.ErrUnsupported, m.typ)
			}
			o.msgs = append(o.msgs, m)
		}
	}
	if v2 {
		c := f.cursor(head, "object header")
		c.skip(4)
		if v := c.u8(); v != 2 {
			return nil, 0, driver.Corruptf("object header version %d", v)
		}
		flags := c.u8()
		if flags&0x20 != 0 {
			c.skip(8)
			t := c.u32()
			c.skip(4)
			if t != 0 {
				o.mtime = time.Unix(int64(t), 0).UTC()
			}
		}
		if flags&0x10 != 0 {
			c.skip(4)
		}
		creationOrder = flags&0x04 != 0
		n := c.uint(1 << (flags & 3))
		if c.err != nil {
			return nil, 0, c.err
		}
		full := uint64(c.p) + n + 4
		if n > uint64(f.lim.MaxDocument) {
			return nil, 0, driver.Limitf("object header chunk of %d bytes, more than MaxDocument", n)
		}
		if full > uint64(len(head)) {
			if head, err = f.read(ctx, addr, full, "object header"); err != nil {
				return nil, 0, err
			}
		}
		if err := checkSum(head, int(full-4), "object header"); err != nil {
			return nil, 0, err
		}
		total += int64(full)
		if err := parse(head[c.p : full-4]); err != nil {
			return nil, 0, err
		}
	} else {
		c := f.cursor(head, "object header")
		if v := c.u8(); v != 1 {
			return nil, 0, driver.Corruptf("object header version %d", v)
		}
		c.skip(1 + 2 + 4)
		n := uint64(c.u32())
		if c.err != nil {
			return nil, 0, c.err
		}
		full := 16 + n
		if full > uint64(len(head)) {
			if head, err = f.read(ctx, addr, full, "object header"); err != nil {
				return nil, 0, err
			}
		}
		total += int64(full)
		if err := parse(head[16:full]); err != nil {
			return nil, 0, err
		}
	}
	for len(todo) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		blk := todo[0]
		todo = todo[1:]
		total += int64(blk.n)
		if total > f.lim.MaxDocument {
			return nil, 0, driver.Limitf("object header of more than MaxDocument (%d) bytes", f.lim.MaxDocument)
		}
		b, err := f.read(ctx, blk.addr, blk.n, "object header continuation")
		if err != nil {
			return nil, 0, err
		}
		if v2 {
			if !hasSig(b, "OCHK") {
				return nil, 0, driver.Corruptf("continuation block at %#x has no OCHK signature", blk.addr)
			}
			if err := checkSum(b, len(b)-4, "object header continuation"); err != nil {
				return nil, 0, err
			}
			b = b[4 : len(b)-4]
		}
		if err := parse(b); err != nil {
			return nil, 0, err
		}
	}
	return o, total, nil
}

func knownMessage(t uint16) bool {
	switch t {
	case msgDataspace, msgLinkInfo, msgDatatype, msgFillOld, msgFill, msgLink, msgExternal, msgLayout,
		msgGroupInfo, msgFilters, msgAttribute, msgModTimeOld, msgSharedTable, msgContinuation, msgSymbolTable, msgModTime, msgAttrInfo:
		return true
	}
	return false
}

// body returns the body of m, following a shared message to the object
// header that holds it.
func (f *file) body(ctx context.Context, m *message, depth int) ([]byte, error) {
	if m.flags&0x02 == 0 {
		return m.body, nil
	}
	if depth > 8 {
		return nil, driver.Corruptf("shared message chain longer than 8")
	}
	c := f.cursor(m.body, "shared message")
	version := c.u8()
	typ := c.u8()
	var addr uint64
	switch version {
	case 1:
		c.skip(6)
		c.skip(f.l)
		addr = c.addr()
	case 2:
		addr = c.addr()
	case 3:
		switch typ {
		case 1: // in the shared-message heap, by an 8-byte heap ID
			id := c.take(8)
			if c.err != nil {
				return nil, c.err
			}
			return f.sharedHeapMessage(ctx, m.typ, id)
		case 2: // in another object header
			addr = c.addr()
		default:
			return nil, driver.Corruptf("shared message of type %d", typ)
		}
	default:
		return nil, driver.Corruptf("shared message version %d", version)
	}
	if c.err != nil {
		return nil, c.err
	}
	o, err := f.object(ctx, addr)
	if err != nil {
		return nil, err
	}
	t := o.first(m.typ)
	if t == nil {
		return nil, driver.Corruptf("shared message of type %#x points at an object without one", m.typ)
	}
	return f.body(ctx, t, depth+1)
}
