package listing_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pipefs/pipefs"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/listing"
	"github.com/pipefs/pipefs/vfs/deep"
)

// demoZip is testdata/demo.zip of the repository (testdata/make-demo.sh):
// a zip holding a zip holding a zip.
func demoZip(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../testdata/demo.zip")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A tarEntry is a member as bsdtar -tv lists it.
type tarEntry struct {
	mode string
	size int64
}

// bsdtarDeep lists the zip archive with bsdtar -tv, and the zips inside it
// (extracted with bsdtar -xO) below their paths, as pipefs ls -lR --deep
// lists them: members by path, explicit directories with a trailing "/".
func bsdtarDeep(t *testing.T, archive, prefix string, into map[string]tarEntry) {
	t.Helper()
	bsdtar := fstest.NeedTool(t, "bsdtar")
	out, err := exec.Command(bsdtar, "-tvf", archive).Output()
	if err != nil {
		t.Fatalf("bsdtar -tvf %s: %v", archive, err)
	}
	for line := range strings.Lines(string(out)) {
		// -rw-r--r--  0 0      0         175 May  6  2024 README.txt
		f := strings.Fields(line)
		if len(f) != 9 {
			t.Fatalf("bsdtar -tv line %q: want 9 fields", line)
		}
		size, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil {
			t.Fatalf("bsdtar -tv line %q: %v", line, err)
		}
		name := f[8]
		into[prefix+name] = tarEntry{mode: f[0], size: size}
		if strings.HasSuffix(name, ".zip") {
			inner := filepath.Join(t.TempDir(), path.Base(name))
			b, err := exec.Command(bsdtar, "-xOf", archive, name).Output()
			if err != nil {
				t.Fatalf("bsdtar -xOf %s %s: %v", archive, name, err)
			}
			if err := os.WriteFile(inner, b, 0o644); err != nil {
				t.Fatal(err)
			}
			bsdtarDeep(t, inner, prefix+name+"/", into)
		}
	}
}

// TestListDeepBsdtar lists demo.zip with -lR --deep and checks each row
// against bsdtar's listing of the archive and of the zips inside it:
// every member is listed, with bsdtar's size and mode, each zip as a
// directory with its own size and "[zip]", each explicit directory and
// each parent of a member as a directory, and nothing else.
func TestListDeepBsdtar(t *testing.T) {
	zipPath := demoZip(t)
	want := map[string]tarEntry{}
	bsdtarDeep(t, zipPath, "", want)
	for name := range want {
		for d := path.Dir(strings.TrimSuffix(name, "/")); d != "."; d = path.Dir(d) {
			if _, ok := want[d+"/"]; !ok {
				want[d+"/"] = tarEntry{} // a directory no entry records
			}
		}
	}

	ctx := context.Background()
	fsys, err := pipefs.OpenFS(ctx, "file:"+filepath.ToSlash(zipPath))
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	var out, errs bytes.Buffer
	l := &listing.Lister{Out: &out, ErrOut: &errs, Long: true, Deep: &deep.Options{}, Report: func(err error) { t.Error(err) }}
	l.Walk(fsys, true)
	l.Flush(&out)
	got := map[string]bool{}
	for line := range strings.Lines(out.String()) {
		// 1287  drw-r--r--  2024-05-06 07:08:10  data/inner.zip/  [zip]
		f := strings.Fields(line)
		if len(f) < 5 {
			t.Fatalf("row %q: want size, mode, time and name", line)
		}
		size, mode, name := f[0], f[1], f[4]
		got[name] = true
		if zipName, ok := strings.CutSuffix(name, ".zip/"); ok {
			w, found := want[zipName+".zip"]
			if !found || size != strconv.FormatInt(w.size, 10) || len(f) != 6 || f[5] != "[zip]" || mode[0] != 'd' {
				t.Errorf("row %q: want the container of %d bytes that bsdtar lists (%v), marked [zip]", line, w.size, found)
			}
			continue
		}
		w, found := want[name]
		switch {
		case !found:
			t.Errorf("row %q: bsdtar lists no %s", line, name)
		case strings.HasSuffix(name, "/"):
			if size != "-" || mode[0] != 'd' {
				t.Errorf("row %q: want a directory", line)
			}
		case size != strconv.FormatInt(w.size, 10) || mode != w.mode:
			t.Errorf("row %q: bsdtar lists %s %d", line, w.mode, w.size)
		}
	}
	for name := range want {
		if strings.HasSuffix(name, ".zip") {
			name += "/"
		}
		if !got[name] {
			t.Errorf("bsdtar lists %s, the listing does not", name)
		}
	}
	if errs.Len() > 0 {
		t.Errorf("stderr: %s", errs.String())
	}
	t.Logf("%d rows, %d entries in bsdtar's listings", len(got), len(want))
}
