package cache

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// For gives one block cache per vfs.Cache, whose blocks are entries of the
// vfs.Cache: they count against its budget, and its budget bounds them.
func TestForSharesBudget(t *testing.T) {
	vc := vfs.NewCache(4 * 256 * kib)
	c := For(vc)
	if For(vc) != c {
		t.Fatal("For(vc) twice gave two caches")
	}
	if For(vfs.NewCache(0)) == c {
		t.Fatal("For of two vfs.Caches gave one cache")
	}
	src := &memSource{data: make([]byte, 16*256*kib)}
	b := c.Blob(src, "obj", &driver.FileInfo{FName: "obj", FSize: int64(len(src.data))}, nil)
	p := make([]byte, 256*kib)
	// Backwards, one block at a time: reads out of sequence fetch no
	// readahead, and every block they fetch is kept while the budget
	// holds it (a sequential read of a large object drops its blocks
	// behind it: TestDropBehind).
	for off := int64(len(src.data)) - 256*kib; off >= 0; off -= 256 * kib {
		if _, err := b.ReadAt(context.Background(), p, off); err != nil {
			t.Fatal(err)
		}
		if vc.Size() > vc.Budget() {
			t.Fatalf("vfs.Cache holds %d bytes, over its budget %d", vc.Size(), vc.Budget())
		}
	}
	if got, want := vc.Size(), int64(c.Len())*256*kib; got != want || c.Len() != 4 {
		t.Errorf("vfs.Cache holds %d bytes in %d blocks, want %d in 4", got, c.Len(), want)
	}
	vc.SetBudget(256 * kib)
	if c.Len() != 1 || vc.Size() != 256*kib {
		t.Errorf("after SetBudget(1 block): %d blocks, %d bytes", c.Len(), vc.Size())
	}
	vc.Purge()
	if c.Len() != 0 || vc.Size() != 0 {
		t.Errorf("after Purge: %d blocks, %d bytes", c.Len(), vc.Size())
	}
}

// A block that the vfs.Cache refuses (larger than its whole budget) is
// not held, and Len does not count it: Len is the number of blocks the
// vfs.Cache holds, whatever it refused or evicted on the way.
func TestLenCountsHeldBlocks(t *testing.T) {
	vc := vfs.NewCache(100 * kib) // under the default block of 256 KiB
	c := For(vc)
	src := &memSource{data: make([]byte, 2*256*kib+50*kib)}
	b := c.Blob(src, "obj", &driver.FileInfo{FName: "obj", FSize: int64(len(src.data))}, nil)
	p := make([]byte, len(src.data))
	for range 3 {
		if _, err := b.ReadAt(context.Background(), p, 0); err != nil {
			t.Fatal(err)
		}
		// Blocks 0 and 1 are refused; the last, of 50 KiB, fits.
		if c.Len() != vc.Len() || c.Len() != 1 {
			t.Fatalf("Len = %d, the vfs.Cache holds %d entries; want 1 and 1", c.Len(), vc.Len())
		}
	}
	vc.Purge()
	if c.Len() != 0 {
		t.Errorf("after Purge: Len = %d, want 0", c.Len())
	}
}

// Configure sets the sizes of the block cache For returns, and refuses
// other sizes once that cache was made.
func TestConfigure(t *testing.T) {
	vc := vfs.NewCache(0)
	if err := Configure(vc, Config{Streams: 4, PartSize: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	if cfg := For(vc).Config(); cfg.Streams != 4 || cfg.PartSize != 1<<20 || cfg.BlockSize != 256*kib {
		t.Errorf("For after Configure: %+v, want Streams 4, PartSize 1 MiB and the default block", cfg)
	}
	if err := Configure(vc, Config{Streams: 4, PartSize: 1 << 20}); err != nil {
		t.Errorf("the same sizes again: %v", err)
	}
	if err := Configure(vc, Config{Streams: 8}); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("other sizes once made: %v, want fs.ErrInvalid", err)
	}
	vc = vfs.NewCache(0)
	For(vc)
	if err := Configure(vc, Config{}); err != nil {
		t.Errorf("the default sizes after For: %v", err)
	}
}
