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
// a vfs.Cache and shared by later opens with it, which then read only
// members.
func TestIndexBuiltOnce(t *testing.T) {
	vo := &vfs.Options{Cache: vfs.NewCache(0)}
	scans := &stateOf(vo.Cache).scans
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	url := "memory:/TestIndexBuiltOnce/gnu.tar"
	ctx := t.Context()
	before := scans.Load()

	b1 := fixtureBlob(t, "gnu.tar", mtime)
	a1 := openShared(b1, url, vo)
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
			a := openShared(b, url, vo)
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
	if _, err := openShared(b, url, vo).Stat(ctx, "."); err != nil {
		t.Fatal(err)
	}
	o := &vfs.Options{Limits: vfs.Limits{MaxEntries: 1000}, Cache: vo.Cache}
	if _, err := openShared(b, url, o).Stat(ctx, "."); err != nil {
		t.Fatal(err)
	}
	if n := scans.Load() - before; n != 3 {
		t.Errorf("%d scans, want 3", n)
	}

	// Another cache shares nothing: it scans again.
	other := &vfs.Options{Cache: vfs.NewCache(0)}
	if _, err := openShared(fixtureBlob(t, "gnu.tar", mtime), url, other).Stat(ctx, "."); err != nil {
		t.Fatal(err)
	}
	if n := scans.Load() - before; n != 3 {
		t.Errorf("%d scans counted in the first cache, want 3", n)
	}
	if n := stateOf(other.Cache).scans.Load(); n != 1 {
		t.Errorf("%d scans with another cache, want 1", n)
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
	scans := &stateOf(vfs.DefaultCache()).scans
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

// TestCacheBounds checks that indexes cost their entries in the vfs.Cache,
// whose budget evicts the least recently used, and that an Archive keeps
// the index it holds after eviction.
func TestCacheBounds(t *testing.T) {
	ctx := t.Context()
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	vc := vfs.NewCache(0)
	vo := &vfs.Options{Cache: vc}
	a := openShared(fixtureBlob(t, "gnu.tar", mtime), "memory:/TestCacheBounds/0.tar", vo)
	if _, err := a.Stat(ctx, "."); err != nil {
		t.Fatal(err)
	}
	idx, err := a.index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	one := indexBase + int64(len(idx.ents))*entryCost
	if vc.Size() != one || vc.Len() != 1 {
		t.Fatalf("cache holds %d bytes in %d entries, want %d in 1", vc.Size(), vc.Len(), one)
	}
	vc.SetBudget(2*one + one/2)
	for i := 1; i < 6; i++ {
		b := openShared(fixtureBlob(t, "gnu.tar", mtime), fmt.Sprintf("memory:/TestCacheBounds/%d.tar", i), vo)
		if _, err := b.Stat(ctx, "."); err != nil {
			t.Fatal(err)
		}
	}
	if vc.Size() > vc.Budget() || vc.Len() != 2 {
		t.Errorf("cache holds %d bytes in %d entries under a budget of %d; want 2 indexes", vc.Size(), vc.Len(), vc.Budget())
	}
	scans := stateOf(vc).scans.Load()
	if _, err := a.Stat(ctx, "hello.txt"); err != nil {
		t.Errorf("an evicted index no longer serves its archive: %v", err)
	}
	if _, err := openShared(fixtureBlob(t, "gnu.tar", mtime), "memory:/TestCacheBounds/0.tar", vo).Stat(ctx, "."); err != nil {
		t.Fatal(err)
	}
	if n := stateOf(vc).scans.Load() - scans; n != 1 {
		t.Errorf("a later open of an evicted archive made %d scans, want 1", n)
	}
}

// TestIndexPerCache checks the sharing through vfs.OpenFS with explicit
// caches: opens with one cache scan once, an open with another scans
// again.
func TestIndexPerCache(t *testing.T) {
	data, err := os.ReadFile("testdata/posix.tar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/a.tar", data, 0o644); err != nil {
		t.Fatal(err)
	}
	pipeline := "file:" + dir + "/a.tar|pipefs.tar:dir/"
	c1, c2 := vfs.NewCache(0), vfs.NewCache(0)
	for i, c := range []*vfs.Cache{c1, c1, c1, c2} {
		fsys, err := vfs.OpenFS(t.Context(), pipeline, &vfs.Options{Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := fsys.ReadFile("a.txt"); err != nil || string(got) != "file a\n" {
			t.Errorf("open %d: ReadFile(a.txt) = %q, %v", i, got, err)
		}
		fsys.Close()
	}
	if n1, n2 := stateOf(c1).scans.Load(), stateOf(c2).scans.Load(); n1 != 1 || n2 != 1 {
		t.Errorf("scans: %d for 3 opens with one cache, %d for 1 with another; want 1 and 1", n1, n2)
	}
}
