package composition_test

import (
	"context"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// countedRoot serves, under the scheme pipefs.counted, the files of
// countedFiles, and counts the bytes read from them.
var countedRoot struct {
	once  sync.Once
	mu    sync.Mutex
	files map[string][]byte
	bytes atomic.Int64
}

type countedBlob struct{ driver.Blob }

func (b countedBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	n, err := b.Blob.ReadAt(ctx, p, off)
	countedRoot.bytes.Add(int64(n))
	return n, err
}

// countedFile makes data readable at "pipefs.counted:name".
func countedFile(name string, data []byte) {
	countedRoot.once.Do(func() {
		countedRoot.files = map[string][]byte{}
		vfs.RegisterRoot(&vfs.Root{Scheme: "pipefs.counted", Open: func(ctx context.Context, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
			countedRoot.mu.Lock()
			data, ok := countedRoot.files[u.Key()]
			countedRoot.mu.Unlock()
			if !ok {
				return driver.Location{}, fs.ErrNotExist
			}
			info := &driver.FileInfo{FName: u.Key(), FSize: int64(len(data)), FMode: 0o444}
			return driver.Location{Blob: countedBlob{driver.BytesBlob(data, info)}}, nil
		}})
	})
	countedRoot.mu.Lock()
	countedRoot.files[name] = data
	countedRoot.mu.Unlock()
}

// TestTarGzDecodedOnce checks that listing a .tar.gz in a fresh process
// decodes the gzip stream once: detection and the tar scan read forward
// without asking the size of the stream first, which would decode it
// once more. The compressed bytes read must be about the compressed size
// once, not twice.
func TestTarGzDecodedOnce(t *testing.T) {
	files := map[string][]byte{}
	for i := range 400 {
		var b []byte
		for j := 0; len(b) < 8<<10+i*37; j++ {
			b = fmt.Appendf(b, "%d %d %x\n", i, j, uint32(i*7919+j)*2654435761)
		}
		files[fmt.Sprintf("d%02d/f%03d.txt", i%20, i)] = b
	}
	gz := gzipBytes(t, tarBytes(t, files))
	for _, tc := range []struct {
		name, pipeline string
	}{
		{"detected", "pipefs.counted:%s"},
		{"explicit", "pipefs.counted:%s|gzip:|pipefs.tar:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := t.Name() + ".tar.gz" // a new cache key: a cold index
			countedFile(name, gz)
			before := countedRoot.bytes.Load()
			fsys, err := vfs.OpenFS(t.Context(), fmt.Sprintf(tc.pipeline, name), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			ents, err := fsys.ReadDir(".")
			if err != nil || len(ents) != 20 {
				t.Fatalf("ReadDir(.) = %d entries, %v; want 20", len(ents), err)
			}
			sub, err := fsys.ReadDir("d07")
			if err != nil || len(sub) != 20 {
				t.Fatalf("ReadDir(d07) = %d entries, %v; want 20", len(sub), err)
			}
			read := countedRoot.bytes.Load() - before
			if read > int64(len(gz))*5/4 {
				t.Errorf("listing read %d compressed bytes, want about %d (the stream decoded once)", read, len(gz))
			}

			// The index is cached once the scan has learnt the size: a
			// second open lists without scanning. (Detection, with the
			// size known now, reads the zip tail: the end of the stream,
			// from its last checkpoint.)
			before = countedRoot.bytes.Load()
			again, err := vfs.OpenFS(t.Context(), fmt.Sprintf(tc.pipeline, name), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if ents, err := again.ReadDir("d07"); err != nil || len(ents) != 20 {
				t.Fatalf("second ReadDir(d07) = %d entries, %v; want 20", len(ents), err)
			}
			if read := countedRoot.bytes.Load() - before; read > int64(len(gz))/4 {
				t.Errorf("a second listing read %d compressed bytes, want a fraction of %d (the index cached)", read, len(gz))
			}
		})
	}
}
