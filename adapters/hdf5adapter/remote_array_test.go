package hdf5adapter_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/fstest"
)

// fieldScript writes a 1024 x 1024 float32 field in 64 x 64 gzip chunks
// (256 of them, about 10 KiB each) with h5py's default libver, so that
// the chunk index is a version 1 B-tree, as most HDF5 files have it; and
// beside it the elements as h5py reads them.
const fieldScript = `
import sys, h5py, numpy as np
y, x = np.mgrid[0:1024, 0:1024]
a = (np.sin(x / 37) * np.cos(y / 23) * 1000).round(1).astype('<f4')
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('field', data=a, chunks=(64, 64), compression='gzip', compression_opts=1)
with h5py.File(sys.argv[1], 'r') as f:
    open(sys.argv[2], 'wb').write(f['field'][:].tobytes())
`

// TestRemoteReadAll reads a dataset of 256 gzip chunks indexed by a v1
// B-tree whole over HTTP, with the default concurrency and one chunk at
// a time, and checks the elements against h5py's and the requests.
func TestRemoteReadAll(t *testing.T) {
	py := h5py(t)
	dir := t.TempDir()
	p, q := filepath.Join(dir, "field.h5"), filepath.Join(dir, "field.bin")
	if out, err := exec.Command(py, "-c", fieldScript, p, q).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	file, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(q)
	if err != nil {
		t.Fatal(err)
	}
	srv := fstest.NewHTTPServer(t, map[string][]byte{"field.h5": file})
	srv.SetLatency(2 * time.Millisecond)
	ctx := context.Background()
	for _, c := range []struct{ concurrency, requests int }{{0, wantReadAllRequests}, {1, wantReadAllRequests1}} {
		srv.Reset()
		a, afs, err := array.OpenArray(ctx, srv.URL()+"/field.h5|hdf5:/field", "", httpOptions())
		if err != nil {
			t.Fatal(err)
		}
		ac := *a
		ac.Concurrency = c.concurrency
		got, err := ac.ReadAll(ctx, 0)
		afs.Close()
		if err != nil {
			t.Fatalf("Concurrency %d: %v", c.concurrency, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("Concurrency %d: the elements differ from h5py's", c.concurrency)
		}
		if n := srv.Requests(); n != int64(c.requests) {
			t.Errorf("Concurrency %d: %d requests, want %d\n%s", c.concurrency, n, c.requests, srv.LogString())
		}
	}
}

// The measured request counts of TestRemoteReadAll. Both open the file
// with 2 (the last 64 KiB, then the first 256 KiB block: the superblock,
// the object headers and the root of the B-tree) and read its 5 leaves,
// each exactly (at once with the default concurrency, one after the
// other one chunk at a time). Then the 2.5 MB of chunks: with the
// default concurrency in 5 runs of about 512 KiB (the chunks are too
// few to spread over 64 requests of less), one request each; one chunk
// at a time, in one run. The chunks in the first block are not fetched
// again.
const (
	wantReadAllRequests  = 12
	wantReadAllRequests1 = 8
)
