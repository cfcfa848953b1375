package fstest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs"
)

// A Replacement is an object and another that replaces it under the same
// name: the same size, other bytes, and an index of the old one (a tar
// table, gzip checkpoints, the checkpoints of a zip member) that would
// read wrong bytes from the new one. A root that names the version of its
// objects (driver.Fingerprinter) passes it: after the object is replaced,
// opening Pipeline again with the same vfs.Cache reads WantNew.
//
// The members are text of 2 MiB, so a stream has checkpoints past its
// start (internal/inflate's default spacing is 1 MiB); reading at
// [Replacement.Offset] resumes at one of them.
type Replacement struct {
	Name     string // the object's file name, such as "obj.tar"
	Old, New []byte // its bytes before and after; len(Old) == len(New)
	// Pipeline is what follows the object's URL, such as
	// "|pipefs.tar:a.txt"; it names a file.
	Pipeline string
	// WantOld and WantNew are the bytes the pipeline reads before and
	// after the replacement.
	WantOld, WantNew []byte
	// Offset is where a read at a late offset starts, past the first
	// checkpoints of a stream.
	Offset int64
}

// Replacements returns the objects that a root's tests replace:
//
//   - obj.tar: members a.txt and b.txt (same size), then the same members
//     in the other order; "|pipefs.tar:a.txt".
//   - obj.tar.gz: the same tars gzipped, padded to one size by the gzip
//     header's comment; "|gzip:|pipefs.tar:a.txt".
//   - obj.zip: deflated members a.txt and b.txt, then the same with their
//     contents swapped, so that a.txt starts where it did; "|zip:a.txt".
//   - obj.gz: one text, then another, gzipped to one size; "|gzip:".
func Replacements(t testing.TB) []Replacement {
	t.Helper()
	const n = 2 << 20
	x, y := replaceText(n, 1), replaceText(n, 2)
	tar1 := tarOrdered(t, "a.txt", x, "b.txt", y)
	tar2 := tarOrdered(t, "b.txt", y, "a.txt", x)
	tgz1, tgz2 := gzipSameSize(t, tar1, tar2)
	gz1, gz2 := gzipSameSize(t, x, y)
	zip1 := zipOrdered(t, "a.txt", x, "b.txt", y)
	zip2 := zipOrdered(t, "a.txt", y, "b.txt", x)
	rs := []Replacement{
		{Name: "obj.tar", Old: tar1, New: tar2, Pipeline: "|pipefs.tar:a.txt", WantOld: x, WantNew: x},
		{Name: "obj.tar.gz", Old: tgz1, New: tgz2, Pipeline: "|gzip:|pipefs.tar:a.txt", WantOld: x, WantNew: x},
		{Name: "obj.zip", Old: zip1, New: zip2, Pipeline: "|zip:a.txt", WantOld: x, WantNew: y},
		{Name: "obj.gz", Old: gz1, New: gz2, Pipeline: "|gzip:", WantOld: x, WantNew: y},
	}
	for i := range rs {
		rs[i].Offset = n - 300<<10
		if len(rs[i].Old) != len(rs[i].New) || bytes.Equal(rs[i].Old, rs[i].New) {
			t.Fatalf("fstest: replacement %s: %d and %d bytes, want the same size and other bytes", rs[i].Name, len(rs[i].Old), len(rs[i].New))
		}
	}
	return rs
}

// replaceText returns n bytes of text that compress about 3:1 and differ
// with seed.
func replaceText(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	words := []string{"pipefs ", "version ", "etag ", "index ", "member ", "stale ", "\n"}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(8) == 0 {
			fmt.Fprintf(&b, "%d ", r.Int64())
		}
	}
	return b.Bytes()[:n]
}

// tarOrdered returns a tar of name and data pairs, in that order.
func tarOrdered(t testing.TB, pairs ...any) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	mod := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < len(pairs); i += 2 {
		name, data := pairs[i].(string), pairs[i+1].([]byte)
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: mod, Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zipOrdered returns a zip of name and data pairs, deflated, in that order.
func zipOrdered(t testing.TB, pairs ...any) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	mod := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < len(pairs); i += 2 {
		name, data := pairs[i].(string), pairs[i+1].([]byte)
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mod})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gzipSameSize gzips a and b, padding the header comment of each so that
// both streams have the same size.
func gzipSameSize(t testing.TB, a, b []byte) ([]byte, []byte) {
	t.Helper()
	ga, gb := gzipComment(t, a, ""), gzipComment(t, b, "")
	// A comment of k bytes adds k+1 (its NUL); both get one of at least
	// one byte.
	size := max(len(ga), len(gb)) + 2
	ga = gzipComment(t, a, strings.Repeat("p", size-len(ga)-1))
	gb = gzipComment(t, b, strings.Repeat("p", size-len(gb)-1))
	return ga, gb
}

func gzipComment(t testing.TB, data []byte, comment string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Comment = comment
	zw.ModTime = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Check opens url with cache c and checks that it reads want: at r.Offset
// first (where a cached index of another version would resume at a
// checkpoint), then whole.
func (r Replacement) Check(t *testing.T, url string, c *vfs.Cache, want []byte) {
	t.Helper()
	f, err := vfs.Open(context.Background(), url, &vfs.Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, 64<<10)
	n, err := f.ReadAt(p, r.Offset)
	if err != nil && err != io.EOF {
		t.Fatalf("ReadAt(%d): %v", r.Offset, err)
	}
	if !bytes.Equal(p[:n], want[r.Offset:r.Offset+int64(len(p))]) {
		t.Fatalf("ReadAt(%d) read %d bytes that are not the object's", r.Offset, n)
	}
	got, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, want %d (content differs)", len(got), len(want))
	}
}
