package remote_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"io/fs"
	"slices"
	"testing"

	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
)

// The bytes a zip reader strictly needs, the oracle of the tests below,
// are found here from the archive's own records, not from pipefs.

// zipLayout is where the records of a zip archive lie.
type zipLayout struct {
	dirStart int64            // the central directory; it and the end records run to the end
	hdr      map[string]int64 // each member's local header
	next     map[string]int64 // where each member's entry ends: the next header, or the directory
}

// layout reads the end record and the central directory of data, an
// archive with no comment and no zip64 records.
func layout(t *testing.T, data []byte) zipLayout {
	t.Helper()
	le := binary.LittleEndian
	end := data[len(data)-22:]
	if le.Uint32(end) != 0x06054b50 {
		t.Fatal("no end of central directory record in the last 22 bytes")
	}
	l := zipLayout{dirStart: int64(le.Uint32(end[16:])), hdr: map[string]int64{}, next: map[string]int64{}}
	var offs []int64
	names := map[int64]string{}
	for p := l.dirStart; p < int64(len(data))-22; {
		h := data[p:]
		if le.Uint32(h) != 0x02014b50 {
			t.Fatalf("no central directory header at %d", p)
		}
		n, m, k := int64(le.Uint16(h[28:])), int64(le.Uint16(h[30:])), int64(le.Uint16(h[32:]))
		name, off := string(h[46:46+n]), int64(le.Uint32(h[42:]))
		l.hdr[name] = off
		names[off] = name
		offs = append(offs, off)
		p += 46 + n + m + k
	}
	slices.Sort(offs)
	for i, off := range offs {
		next := l.dirStart
		if i+1 < len(offs) {
			next = offs[i+1]
		}
		l.next[names[off]] = next
	}
	return l
}

// member is the extent of the entry of name: local header, data and data
// descriptor.
func (l zipLayout) member(name string) [2]int64 { return [2]int64{l.hdr[name], l.next[name]} }

// localHeader is the extent of the local header of name alone.
func (l zipLayout) localHeader(data []byte, name string) [2]int64 {
	h := l.hdr[name]
	le := binary.LittleEndian
	return [2]int64{h, h + 30 + int64(le.Uint16(data[h+26:])) + int64(le.Uint16(data[h+28:]))}
}

// union returns the bytes in the union of the extents.
func union(exts ...[2]int64) int64 {
	slices.SortFunc(exts, func(a, b [2]int64) int { return int(a[0] - b[0]) })
	var n, reach int64 = 0, -1
	for _, e := range exts {
		lo := max(e[0], reach)
		if e[1] > lo {
			n += e[1] - lo
			reach = e[1]
		}
	}
	return n
}

// suffix is the first read of every remote object: the last 64 KiB.
func suffix(size int64) [2]int64 { return [2]int64{max(0, size-64<<10), size} }

// exactOptions gives each pipeline caches of its own, so that no count
// depends on another case (the remote root's learned suffix sizes live in
// the vfs.Cache).
func exactOptions() *vfs.Options {
	o := &httproot.Options{}
	o.Remote.Cache = cache.New(cache.Config{})
	return &vfs.Options{Schemes: map[string]any{"http": o}, Cache: vfs.NewCache(0)}
}

func readAll(t *testing.T, fsys fs.FS, name string, want []byte) {
	t.Helper()
	got, err := fs.ReadFile(fsys, name)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("ReadFile(%q) = %d bytes, %v; want %d bytes", name, len(got), err, len(want))
	}
}

// TestFetchOnlyWhatIsNeeded measures, over a real range server, the
// requests and bytes of listing a zip with a ~700 KB central directory,
// reading a small member of it, and reading a member of a zip stored in
// a zip, against the bytes the format says are needed: the directory
// and the end records, a member's local header, data and descriptor, and
// the first read of every remote object (its last 64 KiB, which finds the
// end records).
func TestFetchOnlyWhatIsNeeded(t *testing.T) {
	many := fstest.ManyFiles(10000)
	manyZip := fstest.ZipBytes(many, zip.Deflate)
	manyL := layout(t, manyZip)
	if d := int64(len(manyZip)) - manyL.dirStart; d < 650<<10 || d > 800<<10 {
		t.Fatalf("the central directory has %d bytes, want about 700 KB", d)
	}

	size := func(b []byte) int64 { return int64(len(b)) }
	innerFiles := map[string][]byte{"pad.bin": fstest.RandomBytes(1<<20, 1), "want.txt": bytes.Repeat([]byte("pipefs fetches what is needed\n"), 700)}
	inner := fstest.ZipBytes(innerFiles, zip.Deflate)
	innerL := layout(t, inner)
	// In outer.zip, inner.zip is the last member, as an archive added
	// last: its end records lie in the first read of outer.zip. In
	// first.zip it is the first member, so that what the inner
	// archive's end records need is fetched on its own.
	pad := fstest.RandomBytes(2<<20, 2)
	outer := fstest.ZipBytes(map[string][]byte{"a/pad.bin": pad, "m.txt": []byte("m"), "z/inner.zip": inner}, zip.Store)
	first := fstest.ZipBytes(map[string][]byte{"a/inner.zip": inner, "b/pad.bin": pad, "z.txt": []byte("z")}, zip.Store)
	nested := func(data []byte, name string) int64 {
		l := layout(t, data)
		base := l.localHeader(data, name)[1] // where inner.zip's bytes start
		shift := func(e [2]int64) [2]int64 { return [2]int64{base + e[0], base + e[1]} }
		return union(suffix(size(data)), [2]int64{l.dirStart, size(data)}, l.localHeader(data, name),
			shift([2]int64{innerL.dirStart, size(inner)}), shift(innerL.member("want.txt")))
	}

	// A directory of about 220 KB: the part that the first read does
	// not hold is less than a block, which the directory's reads fetch.
	mid := fstest.ZipBytes(fstest.ManyFiles(3000), zip.Deflate)
	midL := layout(t, mid)

	small := map[string][]byte{"a.txt": []byte("alpha"), "b/c.txt": bytes.Repeat([]byte("small "), 900)}
	smallZip := fstest.ZipBytes(small, zip.Deflate)

	srv := fstest.NewHTTPServer(t, map[string][]byte{"many.zip": manyZip, "outer.zip": outer, "first.zip": first, "small.zip": smallZip, "mid.zip": mid})
	member := "d07/file-005007.txt"

	cases := []struct {
		name     string
		pipeline string
		run      func(t *testing.T, fsys fs.FS)
		need     int64 // the bytes the format needs
		requests int64
		exact    bool // the bytes fetched are exactly need
		over     bool // the bytes fetched may be more than 1.05 times need
	}{{
		name:     "list a zip with a 700 KB directory",
		pipeline: "/many.zip|zip:",
		run: func(t *testing.T, fsys fs.FS) {
			if err := fs.WalkDir(fsys, ".", func(string, fs.DirEntry, error) error { return nil }); err != nil {
				t.Fatal(err)
			}
		},
		need:     union(suffix(size(manyZip)), [2]int64{manyL.dirStart, size(manyZip)}),
		requests: 2,
		exact:    true,
	}, {
		name:     "list a zip with a 220 KB directory",
		pipeline: "/mid.zip|zip:",
		run: func(t *testing.T, fsys fs.FS) {
			if err := fs.WalkDir(fsys, ".", func(string, fs.DirEntry, error) error { return nil }); err != nil {
				t.Fatal(err)
			}
		},
		need:     union(suffix(size(mid)), [2]int64{midL.dirStart, size(mid)}),
		requests: 2,
		exact:    true,
	}, {
		name:     "read a small member",
		pipeline: "/many.zip|zip:",
		run:      func(t *testing.T, fsys fs.FS) { readAll(t, fsys, member, many[member]) },
		need:     union(suffix(size(manyZip)), [2]int64{manyL.dirStart, size(manyZip)}, manyL.member(member)),
		requests: 3,
		exact:    true,
	}, {
		name:     "read a member of a zip in a zip",
		pipeline: "/outer.zip|zip:z/inner.zip|zip:",
		run:      func(t *testing.T, fsys fs.FS) { readAll(t, fsys, "want.txt", innerFiles["want.txt"]) },
		need:     nested(outer, "z/inner.zip"),
		// The first read and inner.zip's local header.
		requests: 2,
		exact:    true,
	}, {
		name:     "read a member of a zip first in a zip",
		pipeline: "/first.zip|zip:a/inner.zip|zip:",
		run:      func(t *testing.T, fsys fs.FS) { readAll(t, fsys, "want.txt", innerFiles["want.txt"]) },
		need:     nested(first, "a/inner.zip"),
		// The first read, inner.zip's local header, and its last
		// 64 KiB, where its end records are looked for: more than
		// 1.05 times what is needed, a guess that saves a request
		// when the directory is larger.
		requests: 3,
		over:     true,
	}, {
		name:     "read every member of a small zip",
		pipeline: "/small.zip|zip:",
		run: func(t *testing.T, fsys fs.FS) {
			for name, want := range small {
				readAll(t, fsys, name, want)
			}
		},
		need:     size(smallZip),
		requests: 1,
		exact:    true,
	}}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			fsys, err := vfs.OpenFS(ctx, srv.URL()+tc.pipeline, exactOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			tc.run(t, fsys)
			reqs, got := srv.Requests(), srv.Bytes()
			t.Logf("%d requests, %d bytes; the format needs %d bytes (%.3fx)\n%s", reqs, got, tc.need, float64(got)/float64(tc.need), srv.LogString())
			if reqs != tc.requests {
				t.Errorf("%d requests, want %d", reqs, tc.requests)
			}
			if tc.exact && got != tc.need {
				t.Errorf("fetched %d bytes, want exactly the %d needed", got, tc.need)
			}
			if !tc.over && float64(got) > 1.05*float64(tc.need) {
				t.Errorf("fetched %d bytes, more than 1.05 times the %d needed", got, tc.need)
			}
		})
	}
}

// TestMembersInOrder reads every member of a zip in the archive's order:
// the exact fetch of each member must not cost a request each, nor more
// requests than fetching the aligned 256 KiB blocks they lie in would.
func TestMembersInOrder(t *testing.T) {
	files := fstest.ManyFiles(3000)
	data := fstest.ZipBytes(files, zip.Deflate)
	l := layout(t, data)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"m.zip": data})
	fsys, err := vfs.OpenFS(context.Background(), srv.URL()+"/m.zip|zip:", exactOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	opened := srv.Requests()
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	})
	slices.SortFunc(names, func(a, b string) int { return int(l.hdr[a] - l.hdr[b]) })
	for _, name := range names {
		readAll(t, fsys, name, files[name])
	}
	reqs := srv.Requests() - opened
	const block = 256 << 10
	blocks := (l.dirStart-1)/block + 1
	t.Logf("%d members (%d bytes) in order: %d requests after %d to open, %d bytes in all", len(names), l.dirStart, reqs, opened, srv.Bytes())
	if reqs > blocks {
		t.Errorf("%d requests for the members, more than the %d aligned blocks they lie in", reqs, blocks)
	}
	if got := srv.Bytes(); got > 2*int64(len(data)) {
		t.Errorf("fetched %d bytes of a %d-byte archive", got, len(data))
	}
}
