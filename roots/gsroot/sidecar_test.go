package gsroot_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	_ "github.com/pipefs/pipefs/adapters/gzipadapter"
	_ "github.com/pipefs/pipefs/adapters/taradapter"
	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/fstest/cloudtest"
	"github.com/pipefs/pipefs/vfs"
)

// TestSidecars shares the indexes of a tar.gz between processes through
// the bucket that holds it, on the GCS emulator: see
// cloudtest.CheckSidecars.
func TestSidecars(t *testing.T) {
	cloudtest.CheckSidecars(t, cloudtest.SidecarStore{
		URL:    "gs://side/data/src.tar.gz",
		Object: "data/src.tar.gz",
		Options: func(d *disk.Store, m vfs.SidecarMode) *vfs.Options {
			return &vfs.Options{Cache: vfs.NewCache(0), Disk: d, Sidecar: m}
		},
		Put: func(name string, data []byte) { put(t, "side", name, data) },
		Get: func(name string) []byte {
			o, err := gcs.Server.GetObject("side", name)
			if err != nil {
				t.Fatal(err)
			}
			return o.Content
		},
		List: func(prefix string) []string {
			list, err := gcs.Server.ListObjectsWithOptionsPaginated("side", fakestorage.ListOptions{Prefix: prefix})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, o := range list.Objects {
				names = append(names, o.Name)
			}
			return names
		},
		Requests: gcs.Take,
	})
}

// TestSidecarWriteCancel: a sidecar write that the server stalls ends
// with the context of what made it, the listing that derived the tar
// table or the Close that keeps the gzip checkpoints: neither waits for
// the server once its context is cancelled, as a Ctrl-C cancels it.
func TestSidecarWriteCancel(t *testing.T) {
	files := map[string][]byte{"big.bin": fstest.RandomBytes(3<<19, 21), "a.txt": []byte("alpha\n")}
	put(t, "side", "stall/src.tar.gz", fstest.TarGzBytes(files))
	var stall atomic.Bool
	writes := make(chan string, 16)
	quit := make(chan struct{}) // ends the stalls when the test does
	h := gcs.Server.HTTPHandler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/upload/") && stall.Load() {
			writes <- r.URL.String()
			io.Copy(io.Discard, r.Body) // then a client that goes away ends r's context
			select {
			case <-r.Context().Done():
			case <-quit:
			}
			return
		}
		r.Host = strings.TrimPrefix(gcs.URL, "http://") // the emulator's routes name its host
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	defer close(quit)
	t.Setenv("STORAGE_EMULATOR_HOST", ts.URL)
	const pipeline = "gs://side/stall/src.tar.gz|gzip:|pipefs.tar:"
	options := func() *vfs.Options {
		return &vfs.Options{Cache: vfs.NewCache(0), Sidecar: vfs.SidecarWrite}
	}
	// within waits for done, failing the test if it takes longer than
	// any sidecar write should once cancelled.
	within := func(what string, done <-chan error) error {
		t.Helper()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatalf("%s still waits for the stalled sidecar write 10 s after its context was cancelled", what)
			return nil
		}
	}
	wrote := func(what string) {
		t.Helper()
		select {
		case <-writes:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s wrote no sidecar", what)
		}
	}

	// The listing derives the tar table and writes it: the write stalls
	// until the listing's context is cancelled.
	stall.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		fsys, err := vfs.OpenFS(ctx, pipeline, options())
		if err == nil {
			_, err = fs.ReadDir(fsys, ".")
			fsys.Close()
		}
		done <- err
	}()
	wrote("the listing")
	cancel()
	if err := within("the listing", done); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("the listing = %v, want its entries or context.Canceled", err)
	}

	// The Close keeps the gzip checkpoints that the listing's scan
	// learned: its write stalls until the FS's context is cancelled.
	stall.Store(false)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	fsys, err := vfs.OpenFS(ctx, pipeline, options())
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(fsys, "a.txt"); err != nil || string(b) != "alpha\n" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	stall.Store(true)
	go func() { done <- fsys.Close() }()
	wrote("the Close")
	cancel()
	within("the Close", done)
}
