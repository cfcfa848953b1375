package composition_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"

	_ "github.com/pipefs/pipefs" // the local roots and every adapter
)

// fixtureFS returns the shared fixtures as an fs.FS.
func fixtureFS(t testing.TB) fs.FS {
	t.Helper()
	return os.DirFS(fstest.Fixture(t, "."))
}

// server serves the shared fixtures over HTTP on loopback: the fixture
// "ocdbt/x" is at URL()+"/ocdbt/x".
func server(t testing.TB) *fstest.HTTPServer {
	t.Helper()
	return fstest.NewHTTPServerFS(t, nil, fixtureFS(t))
}

// opts gives each test a block cache of its own, so that request counts
// do not depend on what other tests read before.
func opts() *vfs.Options {
	o := &httproot.Options{}
	o.Remote.Cache = cache.New(cache.Config{})
	return &vfs.Options{Schemes: map[string]any{"http": o}}
}

// openFS opens pipeline with o, failing the test on error.
func openFS(t testing.TB, pipeline string, o *vfs.Options) *vfs.FS {
	t.Helper()
	fsys, err := vfs.OpenFS(context.Background(), pipeline, o)
	if err != nil {
		t.Fatalf("OpenFS(%s) error = %v", pipeline, err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

// counted runs f and returns the requests the server saw meanwhile.
func counted(srv *fstest.HTTPServer, f func()) int64 {
	srv.Reset()
	f()
	return srv.Requests()
}

// wantRequests fails the test when got differs from want, with the log.
func wantRequests(t testing.TB, srv *fstest.HTTPServer, what string, got, want int64) {
	t.Helper()
	if got != want {
		t.Errorf("%s: %d requests, want %d\n%s", what, got, want, srv.LogString())
	}
}

// readFile reads name of fsys, failing the test on error.
func readFile(t testing.TB, fsys fs.FS, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatalf("ReadFile(%q) error = %v", name, err)
	}
	return b
}

// sha16 is the first 16 hex digits of the SHA-256 of b, as ARRAYS.md
// section 8 gives them.
func sha16(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])[:16]
}

// treeFiles reads every regular file under dir of fsys, keyed by its name
// under prefix.
func treeFiles(t testing.TB, fsys fs.FS, dir, prefix string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := fs.WalkDir(fsys, dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(name[len(dir):], "/")
		files[path.Join(prefix, rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// merge returns the union of maps.
func merge(ms ...map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

// tarBytes returns a tar archive of files, written in sorted order with
// Go's archive/tar.
func tarBytes(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(files[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gzipBytes compresses b with compress/gzip.
func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readArray opens the array that pipeline names (child: a child node of
// it, for precomputed scales) and reads it whole.
func readArray(t testing.TB, pipeline, child string) []byte {
	t.Helper()
	return readArrayOpts(t, pipeline, child, opts())
}

func readArrayOpts(t testing.TB, pipeline, child string, o *vfs.Options) []byte {
	t.Helper()
	ctx := context.Background()
	a, fsys, err := array.OpenArray(ctx, pipeline, child, o)
	if err != nil {
		t.Fatalf("OpenArray(%s) error = %v", pipeline, err)
	}
	defer fsys.Close()
	b, err := a.ReadAll(ctx, 1<<20)
	if err != nil {
		t.Fatalf("%s: ReadAll error = %v", pipeline, err)
	}
	return b
}

// absFixture returns the absolute slash path of a shared fixture.
func absFixture(t testing.TB, rel string) string {
	t.Helper()
	return filepath.ToSlash(fstest.Fixture(t, rel))
}

// localFiles opens "file:FIXTURES/"+rel (a pipeline relative to the
// fixture directory) and reads every file of it.
func localFiles(t testing.TB, rel string) map[string][]byte {
	t.Helper()
	fsys := openFS(t, "file:"+absFixture(t, ".")+"/"+rel, nil)
	files := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files[name], err = fs.ReadFile(fsys, name)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
