package zipadapter

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"

	_ "github.com/pipefs/pipefs/roots/httproot"
)

// bigDirZip returns a zip whose central directory (about 230 KiB) is
// larger than the suffix a remote root reads at open, and its members.
func bigDirZip(seed uint64) ([]byte, map[string][]byte) {
	r := rand.New(rand.NewPCG(seed, 1))
	files := map[string][]byte{}
	for i := range 3000 {
		data := make([]byte, 512+r.IntN(512))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		files[fmt.Sprintf("dir%02d/member-with-a-long-name-%04d.bin", i%50, i)] = data
	}
	return fstest.ZipBytesFunc(files, func(name string) uint16 {
		if len(files[name])%2 == 0 {
			return 8 // Deflate
		}
		return 0
	}), files
}

// TestPersistRemote opens a remote zip as separate processes do, with
// caches that share one store on disk: the second open reads nothing but
// the remote root's suffix read before the member; a replaced object is
// not served from the old directory; and damaged kept directories are
// misses, removed and replaced.
func TestPersistRemote(t *testing.T) {
	data, files := bigDirZip(1)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"a.zip": data})
	store, err := disk.Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	url := srv.URL() + "/a.zip|zip:"
	cat := func(name string) ([]byte, error) {
		f, err := vfs.Open(context.Background(), url+name, &vfs.Options{Cache: vfs.NewCache(0), Disk: store})
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	}
	check := func(step, name string, want []byte, wantReq int64) {
		t.Helper()
		srv.Reset()
		got, err := cat(name)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: read %d bytes of %s, not the member's %d", step, len(got), name, len(want))
		}
		t.Logf("%s: %d requests, %d bytes", step, srv.Requests(), srv.Bytes())
		if wantReq > 0 && srv.Requests() != wantReq {
			t.Errorf("%s: %d requests, want %d\n%s", step, srv.Requests(), wantReq, srv.LogString())
		}
	}
	const a, b = "dir07/member-with-a-long-name-1507.bin", "dir20/member-with-a-long-name-0020.bin"
	// The suffix read, the rest of the directory, the member.
	check("first open", a, files[a], 3)
	if st := store.Stats(); st.Puts != 1 || st.Hits != 0 {
		t.Fatalf("after the first open: %+v", st)
	}
	// The suffix read (which learns the object's version), the member.
	check("second open", b, files[b], 2)
	if st := store.Stats(); st.Hits != 1 || st.Puts != 1 {
		t.Fatalf("after the second open: %+v", st)
	}

	// A new object under the same name: its own directory is read and
	// kept, the old one is not used.
	data2, files2 := bigDirZip(2)
	srv.Set("a.zip", data2)
	check("replaced object", b, files2[b], 3)
	check("replaced object, again", a, files2[a], 2)
	if st := store.Stats(); st.Puts != 2 {
		t.Fatalf("after the replacement: %+v", st)
	}

	// A kept directory with a good checksum whose bytes do not parse
	// (records cut in the middle) is a miss: it is removed and the
	// directory read and kept again.
	kept, key := keptEntry(t, store, data2)
	k, err := decodeDir(kept, int64(len(data2)), vfs.Limits{}.Effective())
	if err != nil {
		t.Fatal(err)
	}
	k.raw = k.raw[:len(k.raw)/2]
	if err := store.Put(key, encodeDir(int64(len(data2)), k.end, string(k.raw))); err != nil {
		t.Fatal(err)
	}
	check("cut directory", a, files2[a], 3)
	if got, ok := store.Get(key, 0); !ok || !bytes.Equal(got, kept) {
		t.Errorf("the cut directory was not replaced by the whole one")
	}
	// One that does not decode: the same.
	if err := store.Put(key, []byte{0xff, 0xff}); err != nil {
		t.Fatal(err)
	}
	check("undecodable", b, files2[b], 3)
	if got, ok := store.Get(key, 0); !ok || !bytes.Equal(got, kept) {
		t.Errorf("the undecodable directory was not replaced")
	}
	// A damaged file (its checksum fails): the same.
	kepts, _ := filepath.Glob(filepath.Join(store.Dir(), "*.pfi"))
	for _, f := range kepts {
		b, _ := os.ReadFile(f)
		b[len(b)-1] ^= 0xff
		os.WriteFile(f, b, 0o600)
	}
	check("damaged file", a, files2[a], 3)
	check("after the damage", b, files2[b], 2)
}

// keptEntry returns the kept directory of the archive data in store and
// its key, read from the store's files (the key follows a 24-byte header).
func keptEntry(t *testing.T, store *disk.Store, data []byte) ([]byte, string) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(store.Dir(), "*.pfi"))
	for _, name := range names {
		f, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		key := string(f[24 : 24+int(binary.LittleEndian.Uint32(f[12:]))])
		b, ok := store.Get(key, 0)
		if !ok {
			continue
		}
		if k, err := decodeDir(b, int64(len(data)), vfs.Limits{}.Effective()); err == nil && bytes.HasPrefix(data[k.end.dirStart:], k.raw) {
			return b, key
		}
	}
	t.Fatal("no kept directory of the archive in the store")
	return nil, ""
}

// TestPersistRoundTrip keeps the directory of every fixture and opens the
// archive from it: the same entries, and no read of the blob at open.
func TestPersistRoundTrip(t *testing.T) {
	for _, name := range fixtureNames(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Open(context.Background(), driver.BytesBlob(data, nil), nil)
		if err != nil {
			continue // fixtures that do not open are not kept
		}
		end, err := readEnd(driver.ReaderAt(context.Background(), driver.BytesBlob(data, nil)), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		lim := vfs.Limits{}.Effective()
		k, err := decodeDir(encodeDir(int64(len(data)), end, want.dir), int64(len(data)), lim)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// A blob that fails every read: opening from the kept bytes reads
		// none.
		got, err := build(context.Background(), failBlob{driver.BytesBlob(data, nil)}, nil, int64(len(data)), k.end, k.read, lim)
		if err != nil {
			t.Fatalf("%s: from the kept directory: %v", name, err)
		}
		if got.dir != want.dir || len(got.recs) != len(want.recs) || len(got.ents) != len(want.ents) {
			t.Errorf("%s: %d records, %d entries from the kept directory; want %d, %d", name, len(got.recs), len(got.ents), len(want.recs), len(want.ents))
		}
		for i := range got.recs {
			if got.recs[i] != want.recs[i] {
				t.Errorf("%s: record %d = %+v, want %+v", name, i, got.recs[i], want.recs[i])
			}
		}
		if _, err := decodeDir(encodeDir(int64(len(data)), end, want.dir), int64(len(data))-1, lim); !errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("%s: a directory kept for another size: %v", name, err)
		}
	}
}

// failBlob is a blob whose reads fail.
type failBlob struct{ driver.Blob }

func (failBlob) ReadAt(context.Context, []byte, int64) (int, error) {
	return 0, errors.New("read of the archive")
}

// FuzzPersist decodes arbitrary bytes as a kept directory of a fixture
// and opens the archive from them under small limits: no panic, and
// every failure is a documented kind.
func FuzzPersist(f *testing.F) {
	data, err := os.ReadFile("testdata/go-comments.zip")
	if err != nil {
		f.Fatal(err)
	}
	a, err := Open(context.Background(), driver.BytesBlob(data, nil), nil)
	if err != nil {
		f.Fatal(err)
	}
	end, err := readEnd(driver.ReaderAt(context.Background(), driver.BytesBlob(data, nil)), int64(len(data)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(encodeDir(int64(len(data)), end, a.dir))
	lim := vfs.Limits{MaxEntries: 100, MaxNameLength: 64, MaxDocument: 1 << 16}.Effective()
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := decodeDir(b, int64(len(data)), lim)
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatal(err)
			}
			return
		}
		a, err := build(context.Background(), driver.BytesBlob(data, nil), nil, int64(len(data)), k.end, k.read, lim)
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) && !errors.Is(err, driver.ErrLimit) && !errors.Is(err, errors.ErrUnsupported) {
				t.Fatal(err)
			}
			return
		}
		for i := range a.ents {
			if b, err := a.openEntry(context.Background(), "x", &a.ents[i]); err == nil {
				p := make([]byte, 64)
				b.ReadAt(context.Background(), p, 0)
			}
		}
	})
}
