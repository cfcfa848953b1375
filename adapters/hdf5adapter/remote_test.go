package hdf5adapter_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
)

// h5py returns a Python interpreter that imports h5py (Debian's
// python3-h5py): python3 in PATH, else /usr/bin/python3.
func h5py(t testing.TB) string {
	t.Helper()
	py := fstest.NeedTool(t, "python3")
	for _, p := range []string{py, "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import h5py").Run() == nil {
			return p
		}
	}
	fstest.Unavailable(t, "h5py does not import in %s or /usr/bin/python3 (apt-get install python3-h5py)", py)
	return ""
}

// imageScript writes a 4096x4096 uint16 image of random values (which
// gzip does not shrink) in 256x256 gzip chunks, with libver='latest', and
// h5py's reading of the box [256:512, 512:768] beside it.
const imageScript = `
import sys, h5py, numpy as np
a = np.random.default_rng(1).integers(0, 65536, size=(4096, 4096), dtype=np.uint16)
with h5py.File(sys.argv[1], 'w', libver='latest') as f:
    f.create_dataset('image', data=a, chunks=(256, 256), compression='gzip')
with h5py.File(sys.argv[1], 'r') as f:
    open(sys.argv[2], 'wb').write(f['image'][256:512, 512:768].astype('<u2').tobytes())
`

// imageFile generates the image file, and the box h5py reads from it.
func imageFile(t testing.TB) (file, box []byte) {
	t.Helper()
	py := h5py(t)
	dir := t.TempDir()
	p, q := filepath.Join(dir, "image.h5"), filepath.Join(dir, "box.bin")
	if out, err := exec.Command(py, "-c", imageScript, p, q).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	file, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if box, err = os.ReadFile(q); err != nil {
		t.Fatal(err)
	}
	return file, box
}

// httpOptions gives a test a block cache of its own, so that request
// counts do not depend on other tests.
func httpOptions() *vfs.Options {
	o := &httproot.Options{}
	o.Remote.Cache = cache.New(cache.Config{})
	return &vfs.Options{Schemes: map[string]any{"http": o}, Cache: vfs.NewCache(0)}
}

// TestRemoteRequests counts the HTTP requests of listing a 32 MiB HDF5
// image and of reading one of its chunks.
func TestRemoteRequests(t *testing.T) {
	data, want := imageFile(t)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"image.h5": data})
	ctx := context.Background()
	o := httpOptions()

	srv.Reset()
	fsys, err := vfs.OpenFS(ctx, srv.URL()+"/image.h5", o)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil || len(ents) != 1 || ents[0].Name() != "image" {
		t.Fatalf("ReadDir: %v, %v", ents, err)
	}
	info, err := ents[0].Info()
	if err != nil || info.Size() != 4096*4096*2 {
		t.Fatalf("image: %v, %v", info, err)
	}
	if n := srv.Requests(); n != wantListRequests {
		t.Errorf("listing: %d requests, want %d\n%s", n, wantListRequests, srv.LogString())
	}

	srv.Reset()
	o = httpOptions()
	a, afs, err := array.OpenArray(ctx, srv.URL()+"/image.h5|hdf5:/image", "", o)
	if err != nil {
		t.Fatal(err)
	}
	defer afs.Close()
	opened := srv.Requests()
	box, err := a.ReadBox(ctx, []int64{256, 512}, []int64{512, 768}, 0)
	if err != nil {
		t.Fatalf("ReadBox: %v (requests: %s)", err, srv.LogString())
	}
	if n := srv.Requests(); n != wantBoxRequests {
		t.Errorf("opening and reading one chunk: %d requests (%d to open), want %d\n%s", n, opened, wantBoxRequests, srv.LogString())
	}
	if !bytes.Equal(box, want) {
		t.Errorf("ReadBox differs from h5py")
	}

	// A row of the image through the dataset's file: 16 chunks, which
	// lie together in the file, prefetched at once.
	srv.Reset()
	f, err := vfs.Open(ctx, srv.URL()+"/image.h5|hdf5:/image", httpOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opened = srv.Requests()
	row := make([]byte, 2*4096)
	if _, err := f.ReadAt(row, 300*2*4096); err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests(); n != wantRowRequests {
		t.Errorf("opening and reading one row: %d requests (%d to open), want %d\n%s", n, opened, wantRowRequests, srv.LogString())
	}
	if !bytes.Equal(row[2*512:2*768], want[2*44*256:2*45*256]) {
		t.Errorf("row 300 differs from h5py")
	}
}

// The measured request counts of TestRemoteRequests. Listing: the
// remote root's first request (the last 64 KiB) and the first 256 KiB
// block, which holds the superblock and the object headers. Reading a
// chunk: the same two to open the pipeline, then the one block that
// holds the chunk (its fixed array index came with the first block).
// Reading a row of 16 chunks through the dataset's file: the two to open,
// then one for the 16 chunks, which the read prefetches together (6
// requests without the prefetch, with the block cache's readahead).
const (
	wantListRequests = 2
	wantBoxRequests  = 3
	wantRowRequests  = 3
)
