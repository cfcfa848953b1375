package explain

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"testing"

	_ "github.com/pipefs/pipefs"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// openDetect is the Opener of the tests: vfs.OpenDetect with the default
// options, which records what it opened.
func openDetect(opened *[]any) Opener { return openWith(nil, opened) }

// openWith is the Opener of vfs.OpenDetect with o, which records what it
// opened.
func openWith(o *vfs.Options, opened *[]any) Opener {
	return func(ctx context.Context, pipeline string) (*vfs.FS, *vfs.File, error) {
		fsys, file, err := vfs.OpenDetect(ctx, pipeline, o)
		if fsys != nil {
			*opened = append(*opened, fsys)
		}
		if file != nil {
			*opened = append(*opened, file)
		}
		return fsys, file, err
	}
}

// checkSums checks that the open is the sum of the stages' opens and the
// total the open plus the read, seconds aside.
func checkSums(t *testing.T, rep *Report) {
	t.Helper()
	var open Cost
	for _, s := range rep.Stages {
		open = open.Plus(s.Open)
	}
	total := rep.Open
	if rep.Read != nil {
		total = total.Plus(rep.Read.Cost)
	}
	open.Seconds, total.Seconds = 0, 0
	gotOpen, gotTotal := rep.Open, rep.Total
	gotOpen.Seconds, gotTotal.Seconds = 0, 0
	if gotOpen != open || gotTotal != total {
		t.Errorf("open %+v, total %+v; want the sum of the stages %+v and open plus read %+v", rep.Open, rep.Total, open, total)
	}
}

// TestExplainDirectory explains a zip in memory, detected as a directory,
// and lists it: memory: counts its read calls as requests.
func TestExplainDirectory(t *testing.T) {
	data := fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello"), "d/b.txt": []byte("bee")}, 0)
	prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": data})
	url := "memory:/" + prefix + "/a.zip"
	var opened []any
	rep, err := Explain(t.Context(), openDetect(&opened), url, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(opened) != 1 {
		t.Errorf("Explain opened %d values, want 1", len(opened))
	}
	if rep.Pipeline != url+"|zip:" || rep.Kind != "directory" || !rep.Counted {
		t.Errorf("Explain = %q, %s, counted %v; want the directory %q, counted", rep.Pipeline, rep.Kind, rep.Counted, url+"|zip:")
	}
	if len(rep.Stages) != 2 {
		t.Fatalf("stages %+v, want 2", rep.Stages)
	}
	root, zip := rep.Stages[0], rep.Stages[1]
	if root.Index != 0 || root.SubURL != url || root.Scheme != "memory" || root.Detected || root.Kind != "file" ||
		root.Size == nil || *root.Size != int64(len(data)) || root.Format == "" {
		t.Errorf("stage 0 = %+v (size %v), want the written memory: root, a file of %d bytes", root, root.Size, len(data))
	}
	if zip.Index != 1 || zip.SubURL != "zip:" || zip.Scheme != "zip" || !zip.Detected || zip.Kind != "directory" ||
		zip.Size != nil || zip.Format != "zip archive" {
		t.Errorf("stage 1 = %+v, want the detected zip: directory", zip)
	}
	if zip.Open.Requests == 0 || zip.Open.BytesFetched == 0 || zip.Open.BytesFetched > 4*int64(len(data)) {
		t.Errorf("the zip's open cost %+v, want the reads of its directory, at most %d bytes", zip.Open, 4*len(data))
	}
	if r := rep.Read; r == nil || r.Entries == nil || *r.Entries != 2 || r.BytesRead != nil || r.Seconds < 0 {
		t.Errorf("read = %+v, want 2 entries listed", r)
	}
	checkSums(t, rep)
}

// TestExplainFile explains a member of a zip in memory and reads it to
// its end.
func TestExplainFile(t *testing.T) {
	data := fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello"), "d/b.txt": []byte("bee")}, 0)
	prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": data})
	url := "memory:/" + prefix + "/a.zip|zip:d/b.txt"
	var opened []any
	rep, err := Explain(t.Context(), openDetect(&opened), url, true)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pipeline != url || rep.Kind != "file" || len(rep.Stages) != 2 || rep.Stages[1].Detected || rep.Stages[1].SubURL != "zip:d/b.txt" {
		t.Fatalf("Explain = %+v, want the file %q in 2 written stages", rep, url)
	}
	if s := rep.Stages[1].Size; s == nil || *s != 3 {
		t.Errorf("size of the member = %v, want 3", s)
	}
	if r := rep.Read; r == nil || r.BytesRead == nil || *r.BytesRead != 3 || r.Entries != nil {
		t.Errorf("read = %+v, want 3 bytes read", r)
	}
	checkSums(t, rep)
	if f, ok := opened[0].(*vfs.File); !ok || !errors.Is(f.Close(), fs.ErrClosed) {
		t.Errorf("Explain opened %T and left it open", opened[0])
	}
}

// TestExplainTarGz explains a tar.gz in memory, opened through two
// detected layers, and lists it.
func TestExplainTarGz(t *testing.T) {
	noise := make([]byte, 1<<20)
	rand.NewChaCha8([32]byte{1}).Read(noise)
	data := fstest.TarGzBytes(map[string][]byte{"noise.bin": noise, "d/a.txt": []byte("hello")})
	prefix := fstest.MapFiles(t, map[string][]byte{"a.tar.gz": data})
	url := "memory:/" + prefix + "/a.tar.gz"
	var opened []any
	rep, err := Explain(t.Context(), openDetect(&opened), url, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := url + "|gzip:|pipefs.tar:"; rep.Pipeline != want || rep.Kind != "directory" || len(rep.Stages) != 3 ||
		!rep.Stages[1].Detected || !rep.Stages[2].Detected || rep.Stages[2].Kind != "directory" {
		t.Fatalf("Explain = %+v, want the directory %q", rep, want)
	}
	if r := rep.Read; r == nil || r.Entries == nil || *r.Entries != 2 {
		t.Errorf("read = %+v, want 2 entries listed", r)
	}
	if s := rep.Stages[1].Size; s == nil || *s <= int64(len(noise)) {
		t.Errorf("size of the gzip: stage = %v, want more than %d", s, len(noise))
	}
	if rep.Total.BytesFetched < int64(len(data)) {
		t.Errorf("listing a %d-byte tar.gz fetched %d bytes", len(data), rep.Total.BytesFetched)
	}
	checkSums(t, rep)
}

// TestExplainStreamSize explains a gzip stream in memory, opened as the
// file it decodes to (Options.NoDetect): its size is unknown until the
// read has decoded it to its end.
func TestExplainStreamSize(t *testing.T) {
	noise := make([]byte, 1<<20)
	rand.NewChaCha8([32]byte{2}).Read(noise)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(noise)
	w.Close()
	// Two copies, so that the second explain finds nothing of the first in
	// the caches.
	prefix := fstest.MapFiles(t, map[string][]byte{"a.bin.gz": gz.Bytes(), "b.bin.gz": gz.Bytes()})
	var opened []any
	for _, read := range []bool{false, true} {
		url := "memory:/" + prefix + map[bool]string{false: "/a.bin.gz|gzip:", true: "/b.bin.gz|gzip:"}[read]
		rep, err := Explain(t.Context(), openWith(&vfs.Options{NoDetect: true}, &opened), url, read)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Pipeline != url || rep.Kind != "file" || len(rep.Stages) != 2 {
			t.Fatalf("Explain = %+v, want the file %q", rep, url)
		}
		size := rep.Stages[1].Size
		if read {
			if size == nil || *size != int64(len(noise)) || rep.Read == nil || rep.Read.BytesRead == nil || *rep.Read.BytesRead != int64(len(noise)) {
				t.Errorf("Explain with read: size %v, read %+v; want %d bytes", size, rep.Read, len(noise))
			}
			if rep.Read != nil && rep.Read.BytesFetched == 0 {
				t.Errorf("reading the stream fetched nothing: %+v", rep.Read)
			}
		} else if size != nil || rep.Read != nil || rep.Total != rep.Open {
			t.Errorf("Explain without read: size %v, read %+v, total %+v, open %+v; want no size, no read", size, rep.Read, rep.Total, rep.Open)
		}
		checkSums(t, rep)
	}
}

// TestExplainErrors checks that the errors of the open and of the read
// are returned with their causes.
func TestExplainErrors(t *testing.T) {
	prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": fstest.ZipBytes(map[string][]byte{"a.txt": []byte("hello")}, 0)})
	var opened []any
	_, err := Explain(t.Context(), openDetect(&opened), "memory:/"+prefix+"/a.zip|zip:missing.txt", true)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Explain of a missing member: %v, want fs.ErrNotExist", err)
	}

	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("hello, world"))
	w.Close()
	bad := bytes.Clone(gz.Bytes())
	bad[len(bad)-8] ^= 1 // the CRC-32
	prefix = fstest.MapFiles(t, map[string][]byte{"bad.gz": bad})
	url := "memory:/" + prefix + "/bad.gz|gzip:"
	for _, read := range []bool{false, true} {
		if _, err := Explain(t.Context(), openDetect(&opened), url, read); !errors.Is(err, vfs.ErrCorrupt) {
			t.Errorf("Explain (read %v) of a gzip stream with a bad CRC-32: %v, want vfs.ErrCorrupt", read, err)
		}
	}
}
