package composition_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// The fuzz targets of this file feed hostile bytes through format
// detection and nested adapters, the way a user's pipeline would meet
// them, and check three properties for every input: no panic; every error
// names a kind that errors.Is can test (fuzzKinds); bounded time and
// memory (fuzzDeadline, fuzzWatchdog, allocBound).

// fuzzLimits are small limits, so that what an input can make the library
// decompress is small: at most fuzzMaxEntries files of at most
// fuzzMaxFile bytes in any one archive.
var fuzzLimits = vfs.Limits{
	MaxDepth:      8,
	MaxEntries:    fuzzMaxEntries,
	MaxNameLength: 256,
	MaxFileSize:   fuzzMaxFile,
	MaxWindow:     8 << 20,
}

const (
	fuzzMaxEntries = 32
	fuzzMaxFile    = 1 << 20

	// fuzzDeadline bounds the I/O of one input through its context.
	fuzzDeadline = 2 * time.Second
	// fuzzWatchdog turns an input that outlives its deadline by far (a
	// loop that does not look at its context) into a crash with every
	// goroutine's stack.
	fuzzWatchdog = 20 * time.Second
)

// allocBound is the most an input of n bytes may make the process
// allocate (runtime.MemStats.TotalAlloc). Under fuzzLimits the work is
// bounded by the files it yields: at most fuzzMaxEntries files of
// fuzzMaxFile bytes, each read in full three times (fs.ReadFile, io.Copy
// and a read at a few offsets), plus decoder state (an 8 MiB zstd window)
// and indexes that grow with n. 256 MiB covers the worst of the former
// with room; 2000·n the latter (a few index records an input byte, each
// a few hundred bytes at most, come out well below it).
func allocBound(n int) uint64 {
	return max(256<<20, 2000*uint64(n))
}

// heapBound is the most the live heap may grow while one input runs:
// whatever is read at once (a file of fuzzMaxFile bytes, an 8 MiB window,
// the indexes), never the sum over the tree.
func heapBound(n int) uint64 {
	return max(96<<20, 200*uint64(n))
}

// fuzzKinds are the error kinds that a pipeline over hostile bytes may
// report. An error that matches none of them names nothing a user can
// test with errors.Is.
var fuzzKinds = []error{
	fs.ErrNotExist, fs.ErrInvalid, fs.ErrPermission,
	vfs.ErrLimit, vfs.ErrCorrupt, vfs.ErrUnknownFormat, vfs.ErrUnsafePath,
	vfs.ErrIsDir, vfs.ErrNotDir, errors.ErrUnsupported, io.ErrUnexpectedEOF,
	// The input's deadline passed: time is bounded by it.
	context.DeadlineExceeded,
}

// checkKind fails t when err is not of one of fuzzKinds.
func checkKind(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, k := range fuzzKinds {
		if errors.Is(err, k) {
			return
		}
	}
	t.Errorf("%s: error %v (%T) matches none of the documented kinds", what, err, err)
}

// fuzzAdapters are the raw bytes each file adapter reads, by name.
var fuzzAdapters = []string{"gzip:", "zstd:", "pipefs.tar:", "zip:", "json:", "pipefs.bzip2:", "pipefs.xz:"}

var fuzzSeq atomic.Int64

// fuzzName stores data in the memory root under a name of its own and
// returns the name, removed when t ends.
func fuzzName(t *testing.T, data []byte) string {
	dir := "fuzz/" + strconv.FormatInt(fuzzSeq.Add(1), 10)
	name := dir + "/x"
	if err := memroot.WriteFile(name, data); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { memroot.RemoveAll(dir) })
	return name
}

// guard runs f under the deadline, the watchdog and the memory bounds.
func guard(t *testing.T, n int, f func(ctx context.Context)) {
	ctx, cancel := context.WithTimeout(context.Background(), fuzzDeadline)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(fuzzWatchdog):
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			panic(fmt.Sprintf("input of %d bytes still running %v after it started (deadline %v)\n%s", n, fuzzWatchdog, fuzzDeadline, buf))
		}
	}()

	// No runtime.GC here: it would cost more than most inputs. So the
	// live heap measured is HeapAlloc, garbage included, and heapBound
	// allows for it. A low GC percentage keeps the garbage near the live
	// heap: with the default, it may grow as large as what the package's
	// earlier tests left live before a collection runs.
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	peak := atomic.Uint64{}
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // samples the live heap while f runs
		defer close(sampled)
		var ms runtime.MemStats
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&ms)
				peak.Store(max(peak.Load(), ms.HeapAlloc))
			}
		}
	}()
	f(ctx)
	close(stop)
	<-sampled
	runtime.ReadMemStats(&after)
	peak.Store(max(peak.Load(), after.HeapAlloc))
	if got, bound := after.TotalAlloc-before.TotalAlloc, allocBound(n); got > bound {
		t.Errorf("input of %d bytes allocated %d bytes, bound %d", n, got, bound)
	}
	if p := peak.Load(); p > before.HeapAlloc {
		// With GC percent 25 the heap runs up to a quarter past the live
		// heap of the last collection, the package's earlier live heap
		// included, before the next one starts: that garbage is allowed.
		if got, bound := p-before.HeapAlloc, heapBound(n)*5/4+before.HeapAlloc/4; got > bound {
			t.Errorf("input of %d bytes grew the live heap by %d bytes, bound %d", n, got, bound)
		}
	}
}

// FuzzOpen stores the input in the memory root and opens it as a
// directory, with detection on, and as a file through each file adapter;
// it then reads everything the result holds.
func FuzzOpen(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(fuzzOpen)
}

func fuzzOpen(t *testing.T, data []byte) {
	name := fuzzName(t, data)
	o := &vfs.Options{Limits: fuzzLimits}
	guard(t, len(data), func(ctx context.Context) {
		openAndWalk(t, ctx, "memory:/"+name, o)
		adapters := append(fuzzAdapters, "byte-range:0-"+strconv.Itoa(len(data)), "byte-range:0-"+strconv.Itoa(len(data)/2))
		for _, a := range adapters {
			p := "memory:/" + name + "|" + a
			file, err := vfs.Open(ctx, p, o)
			if err != nil {
				if errors.Is(err, vfs.ErrUnknownScheme) && a[:6] == "pipefs" && a != "pipefs.tar:" {
					continue // a vendor adapter that is not registered
				}
				checkKind(t, "OpenFile("+p+")", err)
				continue
			}
			readVFSFile(t, p, file)
			file.Close()
		}
	})
}

// openAndWalk opens p as a directory and reads all of it.
func openAndWalk(t *testing.T, ctx context.Context, p string, o *vfs.Options) {
	fsys, err := vfs.OpenFS(ctx, p, o)
	if err != nil {
		checkKind(t, "OpenFS("+p+")", err)
		return
	}
	defer fsys.Close()
	walkAll(t, fsys)
}

// walkAll walks fsys and reads every file of it in three ways.
func walkAll(t *testing.T, fsys *vfs.FS) {
	p := fsys.Pipeline().String()
	seen := 0
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			checkKind(t, p+": WalkDir("+name+")", err)
			return nil
		}
		if seen++; seen > 4*fuzzMaxEntries+16 {
			t.Errorf("%s: more than %d names under limits of %d entries", p, seen-1, fuzzMaxEntries)
			return fs.SkipAll
		}
		if _, err := fsys.Stat(name); err != nil {
			checkKind(t, p+": Stat("+name+")", err)
		}
		if _, err := d.Info(); err != nil {
			checkKind(t, p+": Info("+name+")", err)
		}
		if d.IsDir() {
			if _, err := fsys.ReadDir(name); err != nil {
				checkKind(t, p+": ReadDir("+name+")", err)
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		whole, err := fs.ReadFile(fsys, name)
		if err != nil {
			checkKind(t, p+": ReadFile("+name+")", err)
			whole = nil
		}
		file, err := fsys.OpenFile(name)
		if err != nil {
			checkKind(t, p+": Open("+name+")", err)
			return nil
		}
		defer file.Close()
		readVFSFile(t, p+": "+name, file)
		if whole != nil {
			compareAt(t, p+": "+name, file, whole)
		}
		return nil
	})
	checkKind(t, p+": WalkDir", err)
}

// readVFSFile reads file with io.Copy (File.WriteTo) and with ReadAt at a few
// offsets, and checks that the two agree.
func readVFSFile(t *testing.T, what string, file *vfs.File) {
	info, err := file.Stat()
	if err != nil {
		checkKind(t, what+": Stat", err)
		return
	}
	if info.IsDir() || !info.Mode().IsRegular() {
		return
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, file); err != nil {
		checkKind(t, what+": io.Copy", err)
		return
	}
	compareAt(t, what, file, buf.Bytes())
}

// compareAt reads file at a few offsets and checks the bytes against want,
// the whole file as another read gave it.
func compareAt(t *testing.T, what string, file *vfs.File, want []byte) {
	size := int64(len(want))
	p := make([]byte, 97)
	for _, off := range []int64{0, size / 3, size/2 + 1, max(size-5, 0), size, size + 10} {
		n, err := file.ReadAt(p, off)
		if n < 0 || n > len(p) {
			t.Errorf("%s: ReadAt(%d) = %d bytes into a buffer of %d", what, off, n, len(p))
			return
		}
		if err != nil && err != io.EOF {
			checkKind(t, fmt.Sprintf("%s: ReadAt(%d)", what, off), err)
			continue
		}
		end := min(off+int64(n), size)
		if off > size {
			if n != 0 {
				t.Errorf("%s: ReadAt(%d) past the end = %d bytes, want 0", what, off, n)
			}
			continue
		}
		if !bytes.Equal(p[:n], want[off:end]) {
			t.Errorf("%s: ReadAt(%d) = %q, want %q", what, off, p[:n], want[off:end])
		}
		if n < len(p) && err == nil {
			t.Errorf("%s: ReadAt(%d) = %d bytes, nil error", what, off, n)
		}
	}
}

// FuzzNested makes the input a stored member "x" of a zip inside a tar.gz
// and opens it through a chain of adapters, with and without detection at
// the end.
func FuzzNested(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(fuzzNested)
}

func fuzzNested(t *testing.T, data []byte) {
	z := zipBytes(t, map[string][]byte{"x": data, "d/y.json": []byte(`{"a":[1]}`)}, zip.Store)
	tgz := gzipBytes(t, tarBytes(t, map[string][]byte{"a/in.zip": z}))
	name := fuzzName(t, tgz)
	o := &vfs.Options{Limits: fuzzLimits}
	base := "memory:/" + name + "|gzip:|pipefs.tar:a/in.zip|zip:"
	guard(t, len(data), func(ctx context.Context) {
		openAndWalk(t, ctx, base, o)     // the zip itself
		openAndWalk(t, ctx, base+"x", o) // the input, detected
		for _, a := range append(fuzzAdapters, "byte-range:0-"+strconv.Itoa(len(data)/2)) {
			p := base + "x|" + a
			file, err := vfs.Open(ctx, p, o)
			if err != nil {
				if errors.Is(err, vfs.ErrUnknownScheme) && a[:6] == "pipefs" && a != "pipefs.tar:" {
					continue
				}
				checkKind(t, "OpenFile("+p+")", err)
				continue
			}
			readVFSFile(t, p, file)
			file.Close()
		}
	})
}

// fuzzSeeds returns the testdata of the adapters and a few nested
// containers built here.
func fuzzSeeds(tb testing.TB) [][]byte {
	var seeds [][]byte
	names, _ := filepath.Glob("../adapters/*/testdata/*")
	names = append(names, "../testdata/demo.zip")
	for _, n := range names {
		info, err := os.Stat(n)
		if err != nil || !info.Mode().IsRegular() || info.Size() > 64<<10 {
			continue
		}
		switch filepath.Ext(n) {
		case ".sh", ".go":
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	hello := []byte("hello, world\n")
	inner := zipBytes(tb, map[string][]byte{"in/hello.txt": hello}, zip.Deflate)
	tgz := gzipBytes(tb, tarBytes(tb, map[string][]byte{"t/inner.zip": inner, "t/a.txt": hello}))
	seeds = append(seeds,
		// a zip inside a tar.gz inside a zip
		zipBytes(tb, map[string][]byte{"o/x.tar.gz": tgz}, zip.Store),
		// a gzip of a gzip
		gzipBytes(tb, gzipBytes(tb, hello)),
		// a zstd of a tar
		zstdBytes(tb, tarBytes(tb, map[string][]byte{"a/b.txt": hello, "c.json": []byte(`{"k":"v"}`)})),
		// a json inside a zip
		zipBytes(tb, map[string][]byte{"doc.json": []byte(`{"a":{"b":[1,2,{"c":null}]}}`)}, zip.Deflate),
		[]byte(`{"a":[1,"x",{"b":true}]}`),
	)
	return seeds
}

// zipBytes returns a zip of files, each written with method.
func zipBytes(tb testing.TB, files map[string][]byte, method uint16) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write(files[name]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// zstdBytes compresses b with klauspost/compress/zstd.
func zstdBytes(tb testing.TB, b []byte) []byte {
	tb.Helper()
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer zw.Close()
	return zw.EncodeAll(b, nil)
}
