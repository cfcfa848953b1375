package deep_test

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/pipefs/pipefs/all"
	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/deep"
)

// gzipBytes is data compressed with gzip.
func gzipBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// outerZip is a zip that stores lib/inner.zip (a.txt, d/b.txt and
// deep.zip, which holds c.txt), pack.tar.gz (t.txt), note.txt.gz (a
// compressed plain file) and plain.txt.
func outerZip(t testing.TB) []byte {
	deepZip := fstest.ZipBytes(map[string][]byte{"c.txt": []byte("sea")}, zip.Deflate)
	inner := fstest.ZipBytes(map[string][]byte{"a.txt": []byte("alpha"), "d/b.txt": []byte("beta"), "deep.zip": deepZip}, zip.Deflate)
	return fstest.ZipBytes(map[string][]byte{
		"lib/inner.zip": inner,
		"pack.tar.gz":   fstest.TarGzBytes(map[string][]byte{"t.txt": []byte("tee")}),
		"note.txt.gz":   gzipBytes(t, []byte("a note")),
		"plain.txt":     []byte("just text"),
	}, zip.Store)
}

// serve serves files over HTTP and opens name through the server, with a
// cache of its own.
func serve(t *testing.T, files map[string][]byte, name string) (*fstest.HTTPServer, *vfs.FS) {
	t.Helper()
	srv := fstest.NewHTTPServer(t, files)
	fsys, err := vfs.OpenFS(context.Background(), srv.URL()+"/"+name, &vfs.Options{Cache: vfs.NewCache(0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return srv, fsys
}

// rows walks fsys deep with opt and returns a row per call of fn: the
// path, "/" after a directory, and the format of a container.
func rows(t *testing.T, fsys *vfs.FS, opt *deep.Options) []string {
	t.Helper()
	var got []string
	err := deep.WalkDir(fsys, ".", opt, func(p string, e *deep.Entry, err error) error {
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		switch {
		case e.IsContainer():
			got = append(got, p+"/ ["+e.Format+"]")
		case e.IsDir():
			got = append(got, p+"/")
		default:
			got = append(got, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// WalkDir walks the containers inside a tree as directories, in
// fs.WalkDir's order, to the depth asked for, reading the nested
// containers of a remote zip as ranges of it: no request beyond the
// bytes, which the cache holds.
func TestWalkDir(t *testing.T) {
	srv, fsys := serve(t, map[string][]byte{"outer.zip": outerZip(t)}, "outer.zip")
	for _, tc := range []struct {
		depth int
		want  []string
	}{
		{0, []string{"./", "lib/", "lib/inner.zip/ [zip]", "lib/inner.zip/a.txt", "lib/inner.zip/d/", "lib/inner.zip/d/b.txt",
			"lib/inner.zip/deep.zip/ [zip]", "lib/inner.zip/deep.zip/c.txt",
			"note.txt.gz/ [gzip]", "note.txt.gz/note.txt", "pack.tar.gz/ [gzip|tar]", "pack.tar.gz/t.txt", "plain.txt"}},
		{1, []string{"./", "lib/", "lib/inner.zip/ [zip]", "lib/inner.zip/a.txt", "lib/inner.zip/d/", "lib/inner.zip/d/b.txt",
			"lib/inner.zip/deep.zip", "note.txt.gz/ [gzip]", "note.txt.gz/note.txt", "pack.tar.gz/ [gzip|tar]", "pack.tar.gz/t.txt", "plain.txt"}},
		{-1, []string{"./", "lib/", "lib/inner.zip", "note.txt.gz", "pack.tar.gz", "plain.txt"}},
	} {
		t.Run(fmt.Sprint("depth=", tc.depth), func(t *testing.T) {
			srv.Reset()
			got := rows(t, fsys, &deep.Options{Depth: tc.depth})
			if !slices.Equal(got, tc.want) {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if n := srv.Requests(); n != 0 {
				t.Errorf("the walk made %d requests, want 0 (outer.zip is held):\n%s", n, srv.LogString())
			}
		})
	}
}

// The walk is fs.WalkDir's when it opens no containers.
func TestWalkDirShallowIsWalkDir(t *testing.T) {
	_, fsys := serve(t, map[string][]byte{"outer.zip": outerZip(t)}, "outer.zip")
	var want []string
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		want = append(want, fmt.Sprint(p, d.IsDir(), err))
		return nil
	})
	var got []string
	deep.WalkDir(fsys, ".", &deep.Options{Depth: -1}, func(p string, d *deep.Entry, err error) error {
		got = append(got, fmt.Sprint(p, d.IsDir(), err))
		return nil
	})
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want fs.WalkDir's %q", got, want)
	}
}

// fs.SkipDir on a container skips its contents, on a file the rest of
// its directory; fs.SkipAll ends the walk; another error ends it and is
// returned.
func TestWalkDirSkip(t *testing.T) {
	_, fsys := serve(t, map[string][]byte{"outer.zip": outerZip(t)}, "outer.zip")
	walk := func(fn func(p string, e *deep.Entry) error) ([]string, error) {
		var got []string
		err := deep.WalkDir(fsys, ".", nil, func(p string, e *deep.Entry, err error) error {
			if err != nil {
				return err
			}
			got = append(got, p)
			return fn(p, e)
		})
		return got, err
	}
	got, err := walk(func(p string, e *deep.Entry) error {
		if e.IsContainer() {
			return fs.SkipDir
		}
		return nil
	})
	want := []string{".", "lib", "lib/inner.zip", "note.txt.gz", "pack.tar.gz", "plain.txt"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("SkipDir on containers: %q, %v; want %q", got, err, want)
	}
	got, err = walk(func(p string, e *deep.Entry) error {
		if p == "lib/inner.zip/a.txt" {
			return fs.SkipDir
		}
		return nil
	})
	want = []string{".", "lib", "lib/inner.zip", "lib/inner.zip/a.txt", "note.txt.gz", "note.txt.gz/note.txt", "pack.tar.gz", "pack.tar.gz/t.txt", "plain.txt"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("SkipDir on a file: %q, %v; want %q", got, err, want)
	}
	got, err = walk(func(p string, e *deep.Entry) error {
		if p == "lib/inner.zip/d" {
			return fs.SkipAll
		}
		return nil
	})
	want = []string{".", "lib", "lib/inner.zip", "lib/inner.zip/a.txt", "lib/inner.zip/d"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("SkipAll: %q, %v; want %q", got, err, want)
	}
	stop := errors.New("stop")
	_, err = walk(func(p string, e *deep.Entry) error {
		if p == "lib/inner.zip/deep.zip/c.txt" {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("an error of fn: WalkDir returned %v, want it", err)
	}
}

// Each nested FS is valid while its contents are walked, and is given to
// BeforeClose right after them, deepest first.
func TestWalkDirCloses(t *testing.T) {
	_, fsys := serve(t, map[string][]byte{"outer.zip": outerZip(t)}, "outer.zip")
	var inside []string // the paths walked before BeforeClose
	var asked []string
	err := deep.WalkDir(fsys, ".", &deep.Options{BeforeClose: func(p string, nested *vfs.FS) error {
		if _, err := nested.Stat("."); err != nil {
			t.Errorf("BeforeClose(%s): the nested FS is closed already: %v", p, err)
		}
		if last := inside[len(inside)-1]; !strings.HasPrefix(last, p) {
			t.Errorf("BeforeClose(%s) came after %s, not after the container's contents", p, last)
		}
		asked = append(asked, p)
		return nil
	}}, func(p string, e *deep.Entry, err error) error {
		if err != nil {
			return err
		}
		inside = append(inside, p)
		if strings.HasSuffix(p, ".txt") {
			if _, err := fs.ReadFile(e.FS, e.Name); err != nil {
				t.Errorf("%s: read from its FS during the walk: %v", p, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lib/inner.zip/deep.zip", "lib/inner.zip", "note.txt.gz", "pack.tar.gz"}
	if !slices.Equal(asked, want) {
		t.Errorf("BeforeClose was called for %q, want %q", asked, want)
	}
}

// A file that looks like a container but does not open is given to fn
// with an error matching the cause, and walked as a file; the walk goes
// on.
func TestWalkDirDamaged(t *testing.T) {
	good := fstest.ZipBytes(map[string][]byte{"a.txt": []byte("alpha")}, zip.Store)
	bad := bytes.Clone(good)
	bad = bad[:len(bad)-10] // no end of central directory
	outer := fstest.ZipBytes(map[string][]byte{"bad.zip": bad, "good.zip": good}, zip.Store)
	_, fsys := serve(t, map[string][]byte{"outer.zip": outer}, "outer.zip")
	var got []string
	err := deep.WalkDir(fsys, ".", nil, func(p string, e *deep.Entry, err error) error {
		if err != nil {
			if !errors.Is(err, vfs.ErrCorrupt) {
				t.Errorf("%s: %v, want one matching vfs.ErrCorrupt", p, err)
			}
			got = append(got, p+" (error)")
			return nil
		}
		got = append(got, p)
		return nil
	})
	want := []string{".", "bad.zip (error)", "good.zip", "good.zip/a.txt"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

// A walk whose context is cancelled returns its error, closing what it
// opened ahead.
func TestWalkDirCancel(t *testing.T) {
	files := map[string][]byte{}
	for i := range 40 {
		files[fmt.Sprintf("z%02d.zip", i)] = fstest.ZipBytes(map[string][]byte{"a.txt": []byte("alpha")}, zip.Store)
	}
	_, fsys := serve(t, map[string][]byte{"outer.zip": fstest.ZipBytes(files, zip.Store)}, "outer.zip")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	err := deep.WalkDir(fsys.WithContext(ctx), ".", &deep.Options{Concurrency: 4}, func(p string, e *deep.Entry, err error) error {
		if err != nil {
			return err
		}
		if n++; n == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("WalkDir = %v, want context.Canceled", err)
	}
}

// Options.Concurrency bounds the containers opened at once: a jar of 12
// jars, each with a stored member larger than a block so that each open
// costs requests of its own, over a server that answers after 20 ms,
// keeps more than one request and at most Concurrency in flight, and
// the walk costs no more requests than one that opens them one by one.
func TestWalkDirConcurrency(t *testing.T) {
	files := map[string][]byte{}
	pad := bytes.Repeat([]byte("x"), 300<<10)
	for i := range 12 {
		files[fmt.Sprintf("lib/l%02d.jar", i)] = fstest.ZipBytes(map[string][]byte{"pad.bin": pad, "C.class": []byte(strings.Repeat("c", i+1))}, zip.Store)
	}
	srv := fstest.NewHTTPServer(t, map[string][]byte{"fat.jar": fstest.ZipBytes(files, zip.Store)})
	srv.SetLatency(20 * time.Millisecond)
	requests := map[int]int64{}
	for _, c := range []int{1, 3} {
		fsys, err := vfs.OpenFS(context.Background(), srv.URL()+"/fat.jar", &vfs.Options{Cache: vfs.NewCache(0)})
		if err != nil {
			t.Fatal(err)
		}
		srv.Reset()
		got := rows(t, fsys, &deep.Options{Concurrency: c})
		fsys.Close()
		if want := 2 + 3*12; len(got) != want {
			t.Errorf("Concurrency %d: %d rows, want %d:\n%s", c, len(got), want, strings.Join(got, "\n"))
		}
		if p := srv.Peak(); p > int64(c) || (c > 1 && p < 2) {
			t.Errorf("Concurrency %d: %d requests in flight at most", c, p)
		}
		requests[c] = srv.Requests()
		t.Logf("Concurrency %d: %d requests, %d in flight at most", c, requests[c], srv.Peak())
	}
	if requests[3] > requests[1] {
		t.Errorf("the concurrent walk made %d requests, the sequential one %d", requests[3], requests[1])
	}
}

// A stored nested jar larger than what a zip fetches whole costs at most
// two requests in a deep walk over HTTP: the block that holds its local header
// and first bytes (read to sniff it, then to open it), and its end, where
// its directory is. Its local header is not asked for on its own first.
func TestWalkDirNestedRequests(t *testing.T) {
	const n = 8
	files := map[string][]byte{}
	for i := range n {
		pad := bytes.Repeat([]byte{byte('a' + i)}, 1100<<10+i*37<<10)
		files[fmt.Sprintf("lib/l%d.jar", i)] = fstest.ZipBytes(map[string][]byte{"pad.bin": pad, "C.class": []byte("class")}, zip.Store)
	}
	outer := fstest.ZipBytes(files, zip.Store)
	// The fixture keeps each jar's header and first 4 KiB in one block.
	zr, err := zip.NewReader(bytes.NewReader(outer), int64(len(outer)))
	if err != nil {
		t.Fatal(err)
	}
	block := cache.Config{}.WithDefaults().BlockSize
	for _, f := range zr.File {
		off, err := f.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		hdr := off - 30 - int64(len(f.Name)) - int64(len(f.Extra))
		if hdr/block != (off+4<<10)/block {
			t.Fatalf("%s: its header at %d and its first 4 KiB are not in one block of %d", f.Name, hdr, block)
		}
	}
	srv := fstest.NewHTTPServer(t, map[string][]byte{"fat.jar": outer})
	count := func(opt *deep.Options) int64 {
		fsys, err := vfs.OpenFS(context.Background(), srv.URL()+"/fat.jar", &vfs.Options{Cache: vfs.NewCache(0)})
		if err != nil {
			t.Fatal(err)
		}
		defer fsys.Close()
		srv.Reset()
		got := rows(t, fsys, opt)
		if want := 2 + n; opt.Depth < 0 && len(got) != want || opt.Depth > 0 && len(got) != want+2*n {
			t.Errorf("depth %d: %d rows:\n%s", opt.Depth, len(got), strings.Join(got, "\n"))
		}
		return srv.Requests()
	}
	shallow := count(&deep.Options{Depth: -1, Concurrency: 1})
	deepN := count(&deep.Options{Depth: 2, Concurrency: 1})
	// Neighbours may share a block (one jar's end, the next one's
	// header), so a walk may cost fewer; with the header asked for first
	// it cost 21.
	if extra := deepN - shallow; extra > 2*n {
		t.Errorf("the deep walk of %d nested jars cost %d requests more than the listing (%d), want at most %d", n, extra, shallow, 2*n)
	}
}
