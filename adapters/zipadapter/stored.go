package zipadapter

import (
	"context"
	"hash/crc32"
	"sync"
	"sync/atomic"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A checkedBlob is a stored member whose CRC-32 is checked when it is read
// through: it hashes the reads that continue from offset 0 without a gap,
// in place (ReadAt still goes straight to the archive's bytes), and the
// read that reaches the end with a hash that does not match the member's
// CRC-32 fails with driver.ErrCorrupt instead of returning its bytes. A
// read that skips ahead stops the check for good: random access verifies
// nothing.
type checkedBlob struct {
	driver.Blob // the section of the archive, or a *storedBlob
	size        int64
	want        uint32

	// done is set once the check is over, passed or given up: reads then
	// go straight to the blob, with no lock.
	done atomic.Bool
	mu   sync.Mutex
	next int64  // bytes hashed so far; -1 once a read skipped ahead
	crc  uint32 // of the first next bytes
	bad  error  // the mismatch, once found
}

func (b *checkedBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if b.done.Load() {
		return b.Blob.ReadAt(ctx, p, off)
	}
	n, err := b.Blob.ReadAt(ctx, p, off)
	end := off + int64(n)
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.bad != nil:
	case b.next < 0 || end <= b.next:
		// Not checking, or bytes hashed already.
	case off > b.next:
		b.next = -1
		b.done.Store(true)
	default:
		b.crc = crc32.Update(b.crc, crc32.IEEETable, p[b.next-off:n])
		b.next = end
		if end == b.size {
			if b.crc != b.want {
				b.bad = driver.Corruptf("stored member: CRC-32 of the data is %08x, the directory says %08x", b.crc, b.want)
			} else {
				b.done.Store(true)
			}
		}
	}
	if b.bad != nil && end == b.size && n > 0 {
		// The bytes that end the member are withheld, on every read
		// that reaches them.
		return 0, b.bad
	}
	return n, err
}

// Prefetch passes the hint on.
func (b *checkedBlob) Prefetch(ctx context.Context, off, n int64) error {
	return driver.Prefetch(ctx, b.Blob, off, n)
}
