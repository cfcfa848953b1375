package hdf5adapter

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"
)

// msgSharedTable is the shared message table message of the superblock
// extension.
const msgSharedTable = 0x0F

// maxSharedIndexes is libhdf5's limit on the indexes of a shared message
// table (H5O_SHMESG_MAX_NINDEXES).
const maxSharedIndexes = 8

// A sharedTable is the file's shared object header message table (SMTB):
// which fractal heap holds the shared messages of each message type.
type sharedTable struct {
	indexes []sharedIndex

	mu    sync.Mutex
	heaps map[uint64]*fractalHeap // parsed heap headers, by address
}

// A sharedIndex is one index of the table.
type sharedIndex struct {
	types uint16 // message type flags: sharedFlag of each type it holds
	list  bool   // a list (SMLI) rather than a v2 B-tree
	index uint64 // address of the list or B-tree
	heap  uint64 // address of the fractal heap of the messages
}

// sharedFlag returns the message type flag of the shared message table
// for message type t, 0 for a type never shared there: 1 << the type
// (H5O_SHMESG_*_FLAG), the fill value of either version under the flag
// of the new one (H5SM__type_to_flag).
func sharedFlag(t uint16) uint16 {
	switch t {
	case msgDataspace, msgDatatype, msgFill, msgFilters, msgAttribute:
		return 1 << t
	case msgFillOld:
		return 1 << msgFill
	}
	return 0
}

// sharedTable returns the file's shared message table, read once from the
// superblock extension; an error when the file has none.
func (f *file) sharedTable(ctx context.Context) (*sharedTable, error) {
	f.mu.Lock()
	t, err := f.smtb, f.smtbErr
	f.mu.Unlock()
	if t != nil || err != nil {
		return t, err
	}
	t, err = f.readSharedTable(ctx)
	if err != nil && !errors.Is(err, driver.ErrCorrupt) {
		return nil, err // I/O, context: not remembered, a later read may succeed
	}
	f.mu.Lock()
	f.smtb, f.smtbErr = t, err
	f.mu.Unlock()
	return t, err
}

func (f *file) readSharedTable(ctx context.Context) (*sharedTable, error) {
	if f.ext == undef {
		return nil, driver.Corruptf("shared message in the shared-message heap, but the file has no superblock extension")
	}
	o, err := f.object(ctx, f.ext)
	if err != nil {
		return nil, fmt.Errorf("superblock extension: %w", err)
	}
	m := o.first(msgSharedTable)
	if m == nil {
		return nil, driver.Corruptf("shared message in the shared-message heap, but the superblock extension has no shared message table")
	}
	// The table message is never itself shared: read its body as stored.
	c := f.cursor(m.body, "shared message table message")
	if v := c.u8(); v != 0 && c.err == nil {
		return nil, driver.Corruptf("shared message table message version %d", v)
	}
	addr := c.addr()
	n := int(c.u8())
	if c.err != nil {
		return nil, c.err
	}
	if n == 0 || n > maxSharedIndexes {
		return nil, driver.Corruptf("shared message table of %d indexes (1 to %d)", n, maxSharedIndexes)
	}
	entry := 1 + 1 + 2 + 4 + 2 + 2 + 2 + 2*f.o
	size := 4 + n*entry + 4
	b, err := f.read(ctx, addr, uint64(size), "shared message table")
	if err != nil {
		return nil, err
	}
	if !hasSig(b, "SMTB") {
		return nil, driver.Corruptf("shared message table at %#x has no SMTB signature", addr)
	}
	if err := checkSum(b, size-4, "shared message table"); err != nil {
		return nil, err
	}
	c = f.cursor(b, "shared message table")
	c.skip(4)
	t := &sharedTable{heaps: map[uint64]*fractalHeap{}}
	for range n {
		if v := c.u8(); v != 0 && c.err == nil {
			return nil, driver.Corruptf("shared message index version %d", v)
		}
		var ix sharedIndex
		ix.list = c.u8() == 0
		ix.types = c.u16()
		c.skip(4 + 2 + 2 + 2) // minimum size, list cutoff, B-tree cutoff, count
		ix.index = c.addr()
		ix.heap = c.addr()
		t.indexes = append(t.indexes, ix)
	}
	return t, c.err
}

// sharedHeapMessage returns the body of a message of type typ stored in
// the shared-message heap under heap ID id. The message read is never
// itself a pointer, so that nothing chains.
func (f *file) sharedHeapMessage(ctx context.Context, typ uint16, id []byte) ([]byte, error) {
	flag := sharedFlag(typ)
	if flag == 0 {
		return nil, driver.Corruptf("message of type %#x in the shared-message heap, which holds none of that type", typ)
	}
	t, err := f.sharedTable(ctx)
	if err != nil {
		return nil, err
	}
	var ix *sharedIndex
	for i := range t.indexes {
		if t.indexes[i].types&flag != 0 {
			ix = &t.indexes[i]
			break
		}
	}
	if ix == nil {
		return nil, driver.Corruptf("message of type %#x in the shared-message heap, but no index of the shared message table holds that type", typ)
	}
	t.mu.Lock()
	h := t.heaps[ix.heap]
	t.mu.Unlock()
	if h == nil {
		if h, err = f.fractalHeap(ctx, ix.heap); err != nil {
			return nil, fmt.Errorf("shared-message heap: %w", err)
		}
		t.mu.Lock()
		t.heaps[ix.heap] = h
		t.mu.Unlock()
	}
	b, err := f.heapObject(ctx, h, id)
	if err != nil {
		return nil, fmt.Errorf("shared-message heap: %w", err)
	}
	return b, nil
}
