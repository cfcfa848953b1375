package taradapter

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// countingBlob counts the ReadAt calls on a blob.
type countingBlob struct {
	driver.Blob
	reads atomic.Int64
}

func (c *countingBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	c.reads.Add(1)
	return c.Blob.ReadAt(ctx, p, off)
}

func fixtureBlob(t testing.TB, name string, mtime time.Time) *countingBlob {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return &countingBlob{Blob: driver.BytesBlob(data, &driver.FileInfo{FName: name, FSize: int64(len(data)), FMode: 0o444, FModTime: mtime})}
}

// TestIndexBuiltOnce checks that the index of an archive is built once in
// the process and shared by later opens, which then read only members.
func TestIndexBuiltOnce(t *testing.T) {
	indexes.reset()
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	url := "memory:/TestIndexBuiltOnce/gnu.tar"
	ctx := t.Context()
	before := scans.Load()

	b1 := fixtureBlob(t, "gnu.tar", mtime)
	a1 := openShared(b1, url, nil)
	if n := b1.reads.Load(); n != 0 {
		t.Errorf("opening read the archive %d times, want 0 (the index is lazy)", n)
	}
	if _, err := a1.Stat(ctx, "hello.txt"); err != nil {
		t.Fatal(err)
	}
	if n := b1.reads.Load(); n == 0 {
		t.Errorf("the first Stat read nothing")
	}

	// Concurrent later opens over other blobs of the same bytes: no scan.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			b := fixtureBlob(t, "gnu.tar", mtime)
			a := openShared(b, url, nil)
			for _, name := range []string{"hello.txt", "dir/sub/bin.dat", longName, "link-hello", "hard.txt"} {
				m, err := a.OpenBlob(ctx, name)
				if err != nil {
					t.Error(err)
					return
				}
				readBlob(t, m)
			}
			if _, err := a.ReadDir(ctx, "dir"); err != nil {
				t.Error(err)
			}
			if n := b.reads.Load(); n != 5 {
				t.Errorf("a later open read the archive %d times for 5 members, want 5", n)
			}
		})
	}
	wg.Wait()
	if n := scans.Load() - before; n != 1 {
		t.Errorf("%d scans, want 1", n)
	}

	// Another fingerprint or other limits scan again.
	b := fixtureBlob(t, "gnu.tar", mtime.Add(time.Second))
	if _, err := openShared(b, url, nil).Stat(ctx, "."); err != nil {
		t.Fatal(err)
	}
	o := &vfs.Options{Limits: vfs.Limits{MaxEntries: 1000}}
	if _, err := openShared(b, url, o).Stat(ctx, "."); err != nil {
		t.Fatal(err)
	}
	if n := scans.Load() - before; n != 3 {
		t.Errorf("%d scans, want 3", n)
	}
}

// TestIndexSharedByEngine checks the sharing through vfs.OpenFS: the
// second open of the same pipeline does not scan.
func TestIndexSharedByEngine(t *testing.T) {
	data, err := os.ReadFile("testdata/posix.tar")
	if err != nil {
		t.Fatal(err)
	}
	prefix := fstest.MapFiles(t, map[string][]byte{"a.tar": data})
	before := scans.Load()
	for i := range 3 {
		fsys, err := vfs.OpenFS(t.Context(), "memory:/"+prefix+"/a.tar|pipefs.tar:dir/", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := fsys.ReadFile("a.txt"); err != nil || string(got) != "file a\n" {
			t.Errorf("open %d: ReadFile(a.txt) = %q, %v", i, got, err)
		}
		fsys.Close()
	}
	if n := scans.Load() - before; n != 1 {
		t.Errorf("%d scans for 3 opens, want 1", n)
	}
}

// TestCacheBounds checks that the cache evicts by total entries and keeps
// the newest index.
func TestCacheBounds(t *testing.T) {
	c := newIndexCache(4, 100)
	for i := range 6 {
		sh := c.get(cacheKey{url: fmt.Sprint(i)})
		c.charge(sh, 40)
	}
	if c.lru.Len() != 2 || c.entries != 80 {
		t.Errorf("cache holds %d indexes, %d entries; want 2, 80", c.lru.Len(), c.entries)
	}
	big := c.get(cacheKey{url: "big"})
	c.charge(big, 1000)
	if c.lru.Len() != 1 || c.entries != 1000 {
		t.Errorf("cache holds %d indexes, %d entries; want the big one alone", c.lru.Len(), c.entries)
	}
	if got := c.get(cacheKey{url: "big"}); got != big {
		t.Errorf("the newest index was evicted")
	}
}
