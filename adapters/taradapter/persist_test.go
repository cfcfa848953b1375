package taradapter

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// scanFile scans a fixture archive.
func scanFile(t testing.TB, name string) (*scanned, int64) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scan(context.Background(), driver.ReaderAt(context.Background(), driver.BytesBlob(data, nil)),
		int64(len(data)), vfs.Limits{}.Effective())
	if err != nil {
		t.Fatal(err)
	}
	return sc, int64(len(data))
}

// TestPersistRoundTrip encodes the scan of every fixture and checks that
// decoding gives the same members and the same index.
func TestPersistRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.tar")
	if len(files) < 10 {
		t.Fatalf("%d fixtures", len(files))
	}
	lim := vfs.Limits{}.Effective()
	for _, name := range files {
		sc, size := scanFile(t, name)
		if sc.end != nil {
			continue
		}
		got, err := decodeScanned(encodeScanned(sc), size, lim)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got.reads = sc.reads
		for i := range sc.members {
			if !reflect.DeepEqual(got.members[i], sc.members[i]) {
				t.Errorf("%s: member %d\n got %+v %+v\nwant %+v %+v", name, i, got.members[i], *got.members[i].hdr, sc.members[i], *sc.members[i].hdr)
			}
		}
		if !reflect.DeepEqual(got.globals, sc.globals) || len(got.members) != len(sc.members) {
			t.Errorf("%s: globals or member count differ", name)
		}
		if !reflect.DeepEqual(buildIndex(got), buildIndex(sc)) {
			t.Errorf("%s: index differs", name)
		}
	}
}

// TestPersistLimits checks that a kept index is checked against the
// limits and the archive's size.
func TestPersistLimits(t *testing.T) {
	sc, size := scanFile(t, "testdata/go-links.tar")
	b := encodeScanned(sc)
	lim := vfs.Limits{}.Effective()
	if _, err := decodeScanned(b, 511, lim); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("archive shorter than the index: %v", err)
	}
	lim.MaxEntries = len(sc.members) - 1
	if _, err := decodeScanned(b, size, lim); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("more entries than MaxEntries: %v", err)
	}
	for n := range len(b) {
		if _, err := decodeScanned(b[:n], size, vfs.Limits{}.Effective()); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
}

// FuzzPersist decodes arbitrary bytes as a kept index: no panic, an error
// matching driver.ErrCorrupt or a table the index can be built from and
// read.
func FuzzPersist(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.tar")
	for _, name := range files {
		sc, _ := scanFile(f, name)
		if sc.end == nil {
			f.Add(encodeScanned(sc), int64(-1))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, size int64) {
		lim := vfs.Limits{MaxEntries: 64, MaxNameLength: 512}.Effective()
		sc, err := decodeScanned(b, size, lim)
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatalf("error %v, want driver.ErrCorrupt", err)
			}
			return
		}
		x := buildIndex(sc)
		a := &Archive{blob: driver.BytesBlob(make([]byte, 4096), nil), lim: lim, sh: &shared{}}
		a.sh.done.Store(&built{idx: x})
		ctx := context.Background()
		for _, e := range x.ents {
			name := e.base
			if e.dir != "." {
				name = e.dir + "/" + e.base
			}
			a.Stat(ctx, name)
			if blob, err := a.OpenBlob(ctx, name); err == nil {
				p := make([]byte, 512)
				blob.ReadAt(ctx, p, 0)
			}
		}
	})
}
