package listing_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/listing"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/deep"

	_ "github.com/pipefs/pipefs/adapters/zipadapter"
)

// open stores a zip holding a.txt, "b c/d.txt" and inner.zip (which
// holds x.txt) in the memory root, and opens it as a directory.
func open(t *testing.T) *vfs.FS {
	t.Helper()
	inner := fstest.ZipBytes(map[string][]byte{"x.txt": []byte("xx")}, 0)
	outer := fstest.ZipBytes(map[string][]byte{"a.txt": []byte("a"), "b c/d.txt": []byte("dddd"), "inner.zip": inner}, 0)
	name := "listing/" + strings.ReplaceAll(t.Name(), "/", "_") + ".zip"
	if err := memroot.WriteFile(name, outer); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { memroot.RemoveAll(name) })
	fsys, err := vfs.OpenFS(context.Background(), "memory:/"+name, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

// TestLister lists a zip as ls -R, as ls -R --deep on a terminal, and as
// ls -l --deep -0, and counts the containers it opens.
func TestLister(t *testing.T) {
	fsys := open(t)
	var reported []error
	rep := func(err error) { reported = append(reported, err) }
	run := func(l *listing.Lister, recursive bool) string {
		var out bytes.Buffer
		l.Out, l.Report, l.ErrOut = &out, rep, new(bytes.Buffer)
		l.Walk(fsys, recursive)
		l.Flush(&out)
		return out.String()
	}
	if got, want := run(&listing.Lister{Deep: &deep.Options{Depth: -1}}, true), "a.txt\nb c/\nb c/d.txt\ninner.zip\n"; got != want {
		t.Errorf("ls -R:\n%s\nwant:\n%s", got, want)
	}
	var counted int
	l := &listing.Lister{TTY: true, Deep: &deep.Options{Depth: 2}, Count: func(interface{ Stats() []vfs.StageCounts }) { counted++ }}
	if got, want := run(l, true), "a.txt\n'b c/'\n'b c/d.txt'\ninner.zip/\ninner.zip/x.txt\n"; got != want || counted != 1 {
		t.Errorf("ls -R --deep on a terminal (%d counted):\n%s\nwant:\n%s", counted, got, want)
	}
	got := run(&listing.Lister{Long: true, Zero: true, Deep: &deep.Options{Depth: 2}}, false)
	rows := strings.Split(strings.TrimSuffix(got, "\x00"), "\x00")
	// The names start in one column, and the sizes end in one.
	k := len(rows[0]) - len("a.txt")
	if len(rows) != 3 || k < 0 || rows[1][k:] != "b c/" || rows[2][k:] != "inner.zip/  [zip]" ||
		!strings.HasPrefix(rows[0], "  1  ") || !strings.HasPrefix(rows[1], "  -  d") || !strings.HasPrefix(rows[2], "144  d") {
		t.Errorf("ls -l -0 --deep: %q", rows)
	}
	if len(reported) != 0 {
		t.Errorf("errors reported: %v", reported)
	}
}

// TestTree draws a zip with --deep, and reports a listing cut short by
// cancellation as no error of its own.
func TestTree(t *testing.T) {
	fsys := open(t)
	var out bytes.Buffer
	tr := &listing.Tree{Out: &out, Walker: deep.NewWalker(&deep.Options{Depth: 1}), Report: func(err error) { t.Errorf("reported %v", err) }}
	tr.Draw(fsys)
	want := fsys.Pipeline().String() + "\n" +
		"├── a.txt (1)\n" +
		"├── b c/\n" +
		"│   └── d.txt (4)\n" +
		"└── inner.zip/  [zip]\n" +
		"    └── x.txt (2)\n" +
		"\n2 directories, 3 files\n"
	if out.String() != want || tr.Failed {
		t.Errorf("tree --deep (failed %v):\n%s\nwant:\n%s", tr.Failed, out.String(), want)
	}
	if got := listing.Summary(1, 1); got != "1 directory, 1 file" {
		t.Errorf("Summary(1, 1) = %q", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out.Reset()
	var reported []error
	tr = &listing.Tree{Out: &out, Walker: deep.NewWalker(&deep.Options{Depth: 1}), Report: func(err error) { reported = append(reported, err) }}
	tr.Draw(fsys.WithContext(ctx))
	for _, err := range reported {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled tree reported %v", err)
		}
	}
}
