package taradapter

import (
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/cache/disk"
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

// TestPersistOpen lists an archive twice with two caches that share one
// store on disk, as two processes do: the second loads the member table
// and scans nothing, and a damaged table is removed and scanned again.
func TestPersistOpen(t *testing.T) {
	store, err := disk.Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("testdata/go-links.tar")
	p, err := vfs.FromPath(abs)
	if err != nil {
		t.Fatal(err)
	}
	list := func() (string, *state) {
		c := vfs.NewCache(0)
		fsys, err := vfs.OpenFS(context.Background(), p.String()+"|"+Scheme+":", &vfs.Options{Cache: c, Disk: store})
		if err != nil {
			t.Fatal(err)
		}
		defer fsys.Close()
		var names []string
		fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
			names = append(names, path)
			return nil
		})
		return strings.Join(names, " "), stateOf(c)
	}
	first, st := list()
	if st.scans.Load() != 1 || st.loads.Load() != 0 {
		t.Fatalf("first open: %d scans, %d loads", st.scans.Load(), st.loads.Load())
	}
	second, st := list()
	if st.scans.Load() != 0 || st.loads.Load() != 1 || second != first {
		t.Fatalf("second open: %d scans, %d loads; listing %q, want %q", st.scans.Load(), st.loads.Load(), second, first)
	}
	files, _ := filepath.Glob(filepath.Join(store.Dir(), "*.pfi"))
	if len(files) != 1 {
		t.Fatalf("%d files in the store", len(files))
	}
	// A damaged file is a miss: the archive is scanned again, and the
	// table kept anew.
	before, _ := os.ReadFile(files[0])
	if err := os.WriteFile(files[0], before[:len(before)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	third, st := list()
	if st.scans.Load() != 1 || third != first {
		t.Fatalf("after damage: %d scans, listing %q", st.scans.Load(), third)
	}
	// A file whose checksum is right but whose table does not decode,
	// written through the store under the key the file holds (after the
	// store's 24-byte header): it is removed, and the archive scanned.
	kept, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	key := string(kept[24 : 24+int(binary.LittleEndian.Uint32(kept[12:]))])
	if err := store.Put(key, []byte{0xff, 0xff}); err != nil {
		t.Fatal(err)
	}
	fourth, st := list()
	if st.scans.Load() != 1 || st.loads.Load() != 0 || fourth != first {
		t.Fatalf("after a bad table: %d scans, %d loads, listing %q", st.scans.Load(), st.loads.Load(), fourth)
	}
	if b, ok := store.Get(key, 0); !ok || len(b) < 10 {
		t.Errorf("the bad table was not replaced by a good one: %q, %v", b, ok)
	}
}
