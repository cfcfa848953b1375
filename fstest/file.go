package fstest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs"
)

// A FileCase describes one file location to check: the pipeline that opens
// it and the bytes it must hold.
type FileCase struct {
	// Pipeline is opened with vfs.Open. Its schemes must be registered
	// in Options.Registry (the default registry when nil).
	Pipeline string

	// Options are passed to every vfs.Open call the kit makes. Nil
	// means defaults.
	Options *vfs.Options

	// Data is the content the file must hold.
	Data []byte

	// Skip names checks not to run (FileCheckNames lists them). An
	// unknown name fails the test.
	Skip []string
}

// fileChecks are the checks of RunFile, in order.
var fileChecks = []struct {
	name string
	run  func(t *testing.T, c FileCase)
}{
	{"stat", checkFileStat},
	{"read", checkFileRead},
	{"readat", checkFileReadAt},
	{"seek", checkFileSeek},
	{"errors", checkFileErrors},
	{"url", checkFileLocURL},
	{"context", checkFileContext},
	{"close", checkFileClose},
}

// FileCheckNames returns the names of the checks RunFile runs, in order:
// the names of its subtests and the values FileCase.Skip accepts.
func FileCheckNames() []string {
	var names []string
	for _, c := range fileChecks {
		names = append(names, c.name)
	}
	return names
}

// RunFile checks a file location, the output of an adapter that yields a
// file (gzip:, byte-range:, json:, ...), as Run checks a directory. Each
// check opens c.Pipeline anew with vfs.Open and runs as a subtest of t:
//
//   - stat: Stat and Size give the size of Data and a regular file.
//   - read: Read to the end gives Data, then io.EOF; io.Copy (which uses
//     WriteTo) gives the same bytes as io.ReadAll.
//   - readat: io.ReaderAt edge cases, then goroutines reading at random
//     offsets while another reads the file with Read, as in Run.
//   - seek: io.Seeker, as in Run.
//   - errors: ReadDir fails with vfs.ErrNotDir.
//   - url: URL is canonical, and opening it gives Data again.
//   - context: opening with a cancelled or expired context fails with the
//     context's error; a file whose context is cancelled after opening
//     fails Read and ReadAt with context.Canceled.
//   - close: a closed file fails Read, ReadAt, Seek, Stat and Close with
//     fs.ErrClosed.
//
// RunFile fails t (and runs no check) when the pipeline does not open.
func RunFile(t *testing.T, c FileCase) {
	t.Helper()
	if c.Pipeline == "" {
		t.Fatal("fstest.RunFile: FileCase.Pipeline is empty")
	}
	for _, name := range c.Skip {
		if !slices.Contains(FileCheckNames(), name) {
			t.Fatalf("fstest.RunFile: Skip names unknown check %q; the checks are %s", name, strings.Join(FileCheckNames(), ", "))
		}
	}
	c.Options = direct(c.Options)
	f, err := openFile(t.Context(), c.Pipeline, c.Options)
	if err != nil {
		t.Fatalf("vfs.Open(%q) error = %v", c.Pipeline, err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("vfs.Open(%q).Close() = %v, want nil", c.Pipeline, err)
	}
	for _, ch := range fileChecks {
		t.Run(ch.name, func(t *testing.T) {
			if slices.Contains(c.Skip, ch.name) {
				t.Skip("skipped by FileCase.Skip")
			}
			ch.run(t, c)
		})
	}
}

// openFileCase opens c.Pipeline under ctx, closing it when t ends.
func openFileCase(t *testing.T, ctx context.Context, c FileCase) *vfs.File {
	t.Helper()
	f, err := openFile(ctx, c.Pipeline, c.Options)
	if err != nil {
		t.Fatalf("vfs.Open(%q) error = %v", c.Pipeline, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func checkFileStat(t *testing.T, c FileCase) {
	f := openFileCase(t, t.Context(), c)
	info, err := f.Stat()
	if err != nil {
		t.Fatalf("Stat() error = %v", err)
	}
	if !info.Mode().IsRegular() || info.IsDir() {
		t.Errorf("Stat().Mode() = %v, want a regular file", info.Mode())
	}
	if got, want := info.Size(), int64(len(c.Data)); got != want {
		t.Errorf("Stat().Size() = %d, want %d", got, want)
	}
	if got, want := f.Size(), int64(len(c.Data)); got != want {
		t.Errorf("Size() = %d, want %d", got, want)
	}
	if o, ok := info.Sys().(*vfs.Origin); ok && o.URL != f.URL() {
		t.Errorf("Stat().Sys().(*vfs.Origin).URL = %q, want URL() = %q", o.URL, f.URL())
	}
}

func checkFileRead(t *testing.T, c FileCase) {
	f := openFileCase(t, t.Context(), c)
	got, err := io.ReadAll(struct{ io.Reader }{f}) // Read only, no WriteTo
	if err != nil || !bytes.Equal(got, c.Data) {
		t.Errorf("Read to the end = %s, %v; want %s, nil", show(got), err, show(c.Data))
	}
	if n, err := f.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Errorf("Read at the end = %d, %v; want 0, io.EOF", n, err)
	}
	if n, err := f.Read(nil); n != 0 || (err != nil && err != io.EOF) {
		t.Errorf("Read(nil) at the end = %d, %v; want 0 and nil or io.EOF", n, err)
	}

	g := openFileCase(t, t.Context(), c)
	var buf bytes.Buffer
	n, err := io.Copy(&buf, g)
	if err != nil || n != int64(len(c.Data)) || !bytes.Equal(buf.Bytes(), c.Data) {
		t.Errorf("io.Copy = %d, %v (%s); want %d, nil (%s)", n, err, show(buf.Bytes()), len(c.Data), show(c.Data))
	}
	// After half is read, io.Copy gives the rest.
	h := openFileCase(t, t.Context(), c)
	half := len(c.Data) / 2
	if _, err := io.ReadFull(h, make([]byte, half)); err != nil {
		t.Fatalf("ReadFull(%d bytes) error = %v", half, err)
	}
	buf.Reset()
	if _, err := io.Copy(&buf, h); err != nil || !bytes.Equal(buf.Bytes(), c.Data[half:]) {
		t.Errorf("io.Copy after reading %d bytes = %s, %v; want %s, nil", half, show(buf.Bytes()), err, show(c.Data[half:]))
	}
}

func checkFileReadAt(t *testing.T, c FileCase) {
	f := openFileCase(t, t.Context(), c)
	readAtEdges(t, f, c.Data)
	readAtParallel(t, f, c.Pipeline, c.Data)
}

func checkFileSeek(t *testing.T, c FileCase) {
	seekFile(t, openFileCase(t, t.Context(), c), c.Data)
}

func checkFileErrors(t *testing.T, c FileCase) {
	f := openFileCase(t, t.Context(), c)
	_, err := f.ReadDir(-1)
	wantIs(t, "ReadDir(-1)", err, vfs.ErrNotDir)
}

func checkFileLocURL(t *testing.T, c FileCase) {
	f := openFileCase(t, t.Context(), c)
	u := f.URL()
	p, err := vfs.Parse(u)
	if err != nil {
		t.Fatalf("vfs.Parse(URL() = %q) error = %v", u, err)
	}
	if s := p.String(); s != u {
		t.Errorf("vfs.Parse(URL() = %q).String() = %q, want it unchanged (canonical)", u, s)
	}
	g, err := openFile(t.Context(), u, c.Options)
	if err != nil {
		t.Fatalf("vfs.Open(URL() = %q) error = %v", u, err)
	}
	defer g.Close()
	if got, err := io.ReadAll(g); err != nil || !bytes.Equal(got, c.Data) {
		t.Errorf("vfs.Open(URL() = %q) reads %s, %v; want %s, nil", u, show(got), err, show(c.Data))
	}
}

func checkFileContext(t *testing.T, c FileCase) {
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	expired, cancel2 := context.WithDeadline(t.Context(), time.Unix(1, 0))
	defer cancel2()
	for _, cc := range []struct {
		what string
		ctx  context.Context
		want error
	}{
		{"cancelled", cancelled, context.Canceled},
		{"expired", expired, context.DeadlineExceeded},
	} {
		f, err := vfs.Open(cc.ctx, c.Pipeline, c.Options)
		if err == nil {
			f.Close()
		}
		wantIs(t, fmt.Sprintf("vfs.Open(%s, %q)", cc.what, c.Pipeline), err, cc.want)
	}

	ctx, cancel3 := context.WithCancel(t.Context())
	f := openFileCase(t, ctx, c)
	cancel3()
	buf := make([]byte, 1)
	_, err := f.ReadAt(buf, 0)
	wantIs(t, "after cancel, ReadAt", err, context.Canceled)
	_, err = f.Read(buf)
	wantIs(t, "after cancel, Read", err, context.Canceled)
}

func checkFileClose(t *testing.T, c FileCase) {
	f, err := openFile(t.Context(), c.Pipeline, c.Options)
	if err != nil {
		t.Fatalf("vfs.Open(%q) error = %v", c.Pipeline, err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("Close() = %v, want nil", err)
	}
	wantIs(t, "after Close, Close()", f.Close(), fs.ErrClosed)
	_, err = f.Read(make([]byte, 1))
	wantIs(t, "after Close, Read", err, fs.ErrClosed)
	_, err = f.ReadAt(make([]byte, 1), 0)
	wantIs(t, "after Close, ReadAt", err, fs.ErrClosed)
	_, err = f.Seek(0, io.SeekStart)
	wantIs(t, "after Close, Seek", err, fs.ErrClosed)
	_, err = f.Stat()
	wantIs(t, "after Close, Stat", err, fs.ErrClosed)
}

// openFile opens the file location u with vfs.Open, which opens a
// directory too: a directory is an error matching vfs.ErrIsDir here, as
// the kit asks for a file.
func openFile(ctx context.Context, u string, o *vfs.Options) (*vfs.File, error) {
	f, err := vfs.Open(ctx, u, o)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err == nil && info.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s opens as a directory, want a file: %w", u, vfs.ErrIsDir)
	}
	return f, nil
}
