package hdf5adapter

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"
)

// attributes decodes the attributes of o, compact and dense.
func (f *file) attributes(ctx context.Context, o *object) (map[string]any, error) {
	out := map[string]any{}
	add := func(b []byte) error {
		if len(out) >= f.lim.MaxEntries {
			return driver.Limitf("more than MaxEntries (%d) attributes", f.lim.MaxEntries)
		}
		name, v, err := f.attribute(ctx, b)
		if errors.Is(err, errors.ErrUnsupported) && name != "" {
			v, err = nil, nil // a type this package does not read
		}
		if err != nil {
			return err
		}
		out[name] = v
		return nil
	}
	for _, m := range o.msgs {
		if m.typ == msgAttribute {
			if err := add(m.body); err != nil {
				return nil, err
			}
		}
	}
	if m := o.first(msgAttrInfo); m != nil {
		c := f.cursor(m.body, "attribute info message")
		c.skip(1)
		flags := c.u8()
		if flags&1 != 0 {
			c.skip(2)
		}
		heap, names := c.addr(), c.addr()
		if c.err != nil {
			return nil, c.err
		}
		if heap != undef {
			h, err := f.fractalHeap(ctx, heap)
			if err != nil {
				return nil, err
			}
			err = f.walkBTree2(ctx, names, func(rec []byte) error {
				if len(rec) < 8 {
					return driver.Corruptf("attribute name record of %d bytes", len(rec))
				}
				b, err := f.heapObject(ctx, h, rec[:8])
				if err != nil {
					return err
				}
				return add(b)
			})
			if err != nil {
				return nil, err
			}
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// attribute parses an attribute message: its name and decoded value.
func (f *file) attribute(ctx context.Context, b []byte) (string, any, error) {
	c := f.cursor(b, "attribute message")
	version := c.u8()
	flags := c.u8()
	nameSize := int(c.u16())
	typeSize := int(c.u16())
	spaceSize := int(c.u16())
	if version == 3 {
		c.skip(1)
	} else if version != 1 && version != 2 {
		return "", nil, driver.Corruptf("attribute message version %d", version)
	}
	pad := func(n int) int {
		if version == 1 {
			return (n + 7) &^ 7
		}
		return n
	}
	name := string(c.take(pad(nameSize)))
	if i := strings.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	tb := c.take(pad(typeSize))
	sb := c.take(pad(spaceSize))
	if c.err != nil {
		return "", nil, c.err
	}
	if flags&1 != 0 {
		m := message{typ: msgDatatype, flags: 2, body: tb}
		var err error
		if tb, err = f.body(ctx, &m, 0); err != nil {
			return name, nil, err
		}
	}
	t, _, err := f.parseDType(tb)
	if err != nil {
		return name, nil, err
	}
	if flags&2 != 0 {
		// A shared dataspace: in the shared-message heap.
		m := message{typ: msgDataspace, flags: 2, body: sb}
		if sb, err = f.body(ctx, &m, 0); err != nil {
			return name, nil, err
		}
	}
	space, err := f.parseDataspace(sb)
	if err != nil {
		return name, nil, err
	}
	n, err := space.count()
	if err != nil {
		return name, nil, err
	}
	data := c.b[c.p:]
	if n > int64(len(data))/int64(t.Size) {
		return name, nil, driver.Corruptf("attribute %q of %d elements of %d bytes in %d bytes", name, n, t.Size, len(data))
	}
	if space.null {
		return name, nil, nil
	}
	if n == 0 {
		return name, []any{}, nil
	}
	vals := make([]any, n)
	budget := f.lim.MaxDocument // bytes of variable-length data decoded
	for i := range vals {
		e := data[int64(i)*int64(t.Size) : int64(i+1)*int64(t.Size)]
		if vals[i], err = f.value(ctx, e, &t, &budget); err != nil {
			return name, nil, fmt.Errorf("attribute %q: %w", name, err)
		}
	}
	if space.dims == nil {
		return name, vals[0], nil
	}
	return name, nest(vals, space.dims), nil
}

// nest shapes a flat slice of values as nested slices of dims.
func nest(vals []any, dims []int64) any {
	if len(dims) <= 1 {
		return vals
	}
	step := int64(len(vals))
	if dims[0] > 0 {
		step /= dims[0]
	}
	out := make([]any, dims[0])
	for i := range out {
		out[i] = nest(vals[int64(i)*step:int64(i+1)*step], dims[1:])
	}
	return out
}

// value decodes one element, reading variable-length data from the
// global heap.
// budget is what is left of the bytes that variable-length data may
// decode to.
func (f *file) value(ctx context.Context, e []byte, t *DType, budget *int64) (any, error) {
	if t.Class != "vlen" {
		return decodeValue(e, t), nil
	}
	c := f.cursor(e, "variable-length element")
	n := c.u32()
	addr := c.addr()
	idx := c.u32()
	if c.err != nil {
		return nil, c.err
	}
	if n == 0 || addr == 0 || addr == undef {
		if t.VarString {
			return "", nil
		}
		return []any{}, nil
	}
	obj, err := f.globalObject(ctx, addr, idx)
	if err != nil {
		return nil, err
	}
	if *budget -= int64(len(obj)) + 16; *budget < 0 {
		return nil, driver.Limitf("variable-length data of more than MaxDocument (%d) bytes", f.lim.MaxDocument)
	}
	if t.VarString {
		if uint64(n) > uint64(len(obj)) {
			return nil, driver.Corruptf("variable-length string of %d bytes in a heap object of %d", n, len(obj))
		}
		return string(obj[:n]), nil
	}
	if t.Base == nil || t.Base.Size == 0 || uint64(n)*uint64(t.Base.Size) > uint64(len(obj)) {
		return nil, driver.Corruptf("variable-length sequence of %d elements in a heap object of %d bytes", n, len(obj))
	}
	out := make([]any, n)
	for i := range out {
		var err error
		if out[i], err = f.value(ctx, obj[i*t.Base.Size:(i+1)*t.Base.Size], t.Base, budget); err != nil {
			return nil, err
		}
	}
	return out, nil
}
