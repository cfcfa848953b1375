package zstdadapter

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"

	_ "github.com/pipefs/pipefs/roots/fileroot"
)

// walkFile walks the frames of a fixture.
func walkFile(t testing.TB, name string) ([]frame, int64) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	op := &opener{ctx: context.Background(), src: driver.BytesBlob(data, nil), size: int64(len(data)), lim: vfs.Limits{}.Effective()}
	frames, err := op.walk()
	if err != nil {
		t.Fatal(err)
	}
	return frames, int64(len(data))
}

func TestPersistRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.zst")
	for _, name := range files {
		frames, size := walkFile(t, name)
		got, seekable, err := decodeFrames(encodeFrames(frames, true), size, vfs.Limits{}.Effective())
		if err != nil || !seekable || len(got) != len(frames) {
			t.Fatalf("%s: %v, %v, %d frames of %d", name, err, seekable, len(got), len(frames))
		}
		for i := range got {
			if got[i] != frames[i] {
				t.Errorf("%s: frame %d = %+v, want %+v", name, i, got[i], frames[i])
			}
		}
		if _, _, err := decodeFrames(encodeFrames(frames, false), frames[len(frames)-1].end-1, vfs.Limits{}.Effective()); !errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("%s: a table past the file's end: %v", name, err)
		}
	}
}

// TestPersistOpen opens a file twice with two caches sharing one store,
// as two processes do: the second open loads the frame table, sizes
// learnt by the first included, and reads the same bytes.
func TestPersistOpen(t *testing.T) {
	store, err := disk.Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("testdata/multi.zst")
	p, err := vfs.FromPath(abs)
	if err != nil {
		t.Fatal(err)
	}
	read := func() []byte {
		f, err := vfs.Open(context.Background(), p.String()+"|zstd:", &vfs.Options{Cache: vfs.NewCache(0), Disk: store})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := read()
	if st := store.Stats(); st.Puts == 0 || st.Hits != 0 {
		t.Fatalf("after the first open: %+v", st)
	}
	second := read()
	if st := store.Stats(); st.Hits != 1 {
		t.Fatalf("after the second open: %+v", st)
	}
	if string(first) != string(second) {
		t.Fatal("the second read differs")
	}
}

// FuzzPersist decodes arbitrary bytes as a kept frame table and reads
// through it: no panic.
func FuzzPersist(f *testing.F) {
	data, err := os.ReadFile("testdata/multi.zst")
	if err != nil {
		f.Fatal(err)
	}
	frames, _ := walkFile(f, "testdata/multi.zst")
	f.Add(encodeFrames(frames, false))
	f.Fuzz(func(t *testing.T, b []byte) {
		lim := vfs.Limits{MaxEntries: 64, MaxFileSize: 1 << 20, MaxWindow: 1 << 20}.Effective()
		frames, _, err := decodeFrames(b, int64(len(data)), lim)
		if err != nil {
			if !errors.Is(err, driver.ErrCorrupt) {
				t.Fatal(err)
			}
			return
		}
		z := &blob{src: driver.BytesBlob(data, nil), frames: frames, csize: int64(len(data)), lim: lim}
		if _, err := z.measureAll(context.Background()); err != nil {
			return
		}
		p := make([]byte, 4096)
		z.ReadAt(context.Background(), p, 0)
		z.ReadAt(context.Background(), p, z.size/2)
	})
}
