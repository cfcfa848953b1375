package icechunkadapter_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/adapters/icechunkadapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/fileroot"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

func fixture(t testing.TB, name string) string {
	t.Helper()
	return fstest.Fixture(t, "icechunk/"+name)
}

var repos = []string{"test-repo-v1", "test-repo-v2", "test-repo-v2-migrated"}

// refs are every ref of the fixtures, as written in a pipeline, and the
// number of keys each shows.
var refs = []struct {
	ref  string
	keys int
}{
	{"icechunk:", 13},
	{"icechunk://branch.main/", 13},
	{"icechunk://branch.my-branch/", 17},
	{"icechunk://tag.it%20works!/", 12},
	{"icechunk://tag.it%20also%20works!/", 17},
}

// zeroChunks resolves every virtual chunk to zeros.
func zeroChunks(ctx context.Context, c icechunkadapter.VirtualChunk) (driver.Blob, error) {
	return driver.BytesBlob(make([]byte, c.Length), nil), nil
}

// registry returns a registry with the file root and an icechunk adapter
// that reads virtual chunks as zeros.
func registry() *vfs.Registry {
	reg := new(vfs.Registry)
	reg.RegisterRoot(&vfs.Root{Scheme: "file", Open: func(ctx context.Context, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
		return fileroot.OpenPath(ctx, "/"+u.Key())
	}})
	reg.RegisterAdapter(icechunkadapter.NewAdapter(&icechunkadapter.Options{Resolve: zeroChunks}))
	return reg
}

// contents reads every file of a ref through the Tree API, as the
// expected contents for the conformance kit.
func contents(t *testing.T, repo, ref string) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	loc, err := fileroot.OpenPath(ctx, fixture(t, repo))
	if err != nil {
		t.Fatal(err)
	}
	defer loc.Tree.(*fileroot.Tree).Close()
	p, err := vfs.Parse("memory:|" + ref)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := icechunkadapter.Open(ctx, loc.Tree, p[1].Version(), &icechunkadapter.Options{Resolve: zeroChunks})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	files := map[string][]byte{}
	err = fs.WalkDir(treeFS{ctx, tr}, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := tr.OpenBlob(ctx, name)
		if err != nil {
			return err
		}
		data := make([]byte, b.Stat().Size())
		if _, err := b.ReadAt(ctx, data, 0); err != nil {
			return err
		}
		files[name] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// treeFS is the least fs.FS that fs.WalkDir needs.
type treeFS struct {
	ctx context.Context
	t   driver.Tree
}

func (f treeFS) Open(name string) (fs.File, error) { return nil, errors.ErrUnsupported }
func (f treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return f.t.ReadDir(f.ctx, name)
}
func (f treeFS) Stat(name string) (fs.FileInfo, error) { return f.t.Stat(f.ctx, name) }

// TestConformance runs the conformance kit on every ref of every fixture,
// opened through a real pipeline.
func TestConformance(t *testing.T) {
	o := &vfs.Options{Registry: registry()}
	for _, repo := range repos {
		for _, r := range refs {
			t.Run(repo+"/"+r.ref, func(t *testing.T) {
				files := contents(t, repo, r.ref)
				if len(files) != r.keys {
					t.Errorf("%d keys, want %d", len(files), r.keys)
				}
				fstest.Run(t, fstest.Case{
					Pipeline:   "file:" + fixture(t, repo) + "/|" + r.ref,
					Options:    o,
					Files:      files,
					Exhaustive: true,
				})
			})
		}
	}
}

// TestPipeline opens the fixtures with the default registry: refs with
// escapes, sub-directories, single chunk files, detection, and the refusal
// of virtual chunks.
func TestPipeline(t *testing.T) {
	ctx := context.Background()
	for _, repo := range repos {
		dir := fixture(t, repo)
		fsys, err := vfs.OpenFS(ctx, "file:"+dir+"/|icechunk://tag.it%20works!/group1/", nil)
		if err != nil {
			t.Fatal(err)
		}
		ents, err := fs.ReadDir(fsys, "small_chunks/c")
		if err != nil || len(ents) != 4 {
			t.Errorf("%s: ReadDir(small_chunks/c) = %v, %v, want 4 entries", repo, ents, err)
		}
		if _, err := fs.ReadFile(fsys, "big_chunks/c/0/0"); !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "s3://testbucket/can_read_old/chunk-1") {
			t.Errorf("%s: ReadFile(virtual chunk) error = %v, want a permission error naming the URL", repo, err)
		}
		fsys.Close()

		f, err := vfs.Open(ctx, "file:"+dir+"/|icechunk:group1/small_chunks/c/4", nil)
		if err != nil {
			t.Fatalf("%s: OpenFile(main small_chunks/c/4): %v", repo, err)
		}
		if f.Size() != 10 {
			t.Errorf("%s: small_chunks/c/4 has %d bytes, want 10", repo, f.Size())
		}
		f.Close()
		if _, err := vfs.Open(ctx, "file:"+dir+"/|icechunk://tag.it%20works!/group1/small_chunks/c/4", nil); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: chunk deleted on tag: error = %v, want fs.ErrNotExist", repo, err)
		}
		if _, err := vfs.OpenFS(ctx, "file:"+dir+"/|icechunk://tag.deleted/", nil); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: deleted tag: error = %v, want fs.ErrNotExist", repo, err)
		}

		// Detection: a repository directory opens as icechunk:.
		fsys, err = vfs.OpenFS(ctx, "file:"+dir+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := fsys.Pipeline().String(); !strings.HasSuffix(got, "|icechunk:") {
			t.Errorf("%s: detected pipeline %q, want it to end in |icechunk:", repo, got)
		}
		info, err := fs.Stat(fsys, ".")
		if err != nil {
			t.Fatal(err)
		}
		o, _ := info.Sys().(*vfs.Origin)
		if s, ok := o.Header.(*icechunkadapter.Snapshot); !ok || s.Message != "set virtual chunk" {
			t.Errorf("%s: Stat(.).Sys() = %#v, want the snapshot of main", repo, info.Sys())
		}
		// The CLI's log: the FS's tree is the snapshot's Tree.
		var it *icechunkadapter.Tree
		if !fsys.As(&it) {
			t.Errorf("%s: FS.As found no *icechunkadapter.Tree", repo)
		} else if h, err := it.History(ctx); err != nil || len(h) != 4 || h[3].Message != "Repository initialized" {
			t.Errorf("%s: History() = %v, %v", repo, h, err)
		}
		fsys.Close()
	}
}

// zipOf zips the fixture directory dir under prefix, storing chunk files
// and deflating the rest.
func zipOf(t *testing.T, dir, prefix string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		method := zip.Deflate
		if strings.HasPrefix(rel, "chunks") {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: prefix + filepath.ToSlash(rel), Method: method})
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestInZip reads each fixture from a zip in the memory root.
func TestInZip(t *testing.T) {
	ctx := context.Background()
	for _, repo := range repos {
		name := "icechunkadapter-test/" + repo + ".zip"
		if err := memroot.WriteFile(name, zipOf(t, fixture(t, repo), "repo/")); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { memroot.RemoveAll("icechunkadapter-test") })
		for _, r := range refs {
			want := contents(t, repo, r.ref)
			fsys, err := vfs.OpenFS(ctx, "memory:/"+name+"|zip:repo/|"+r.ref, &vfs.Options{Registry: nil})
			if err != nil {
				t.Fatalf("%s %s: %v", repo, r.ref, err)
			}
			var got []string
			fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					got = append(got, p)
				}
				return err
			})
			if len(got) != r.keys {
				t.Errorf("%s %s in a zip: %d keys, want %d", repo, r.ref, len(got), r.keys)
			}
			for _, k := range got {
				data, err := fs.ReadFile(fsys, k)
				if k == "group1/big_chunks/c/0/0" {
					if !errors.Is(err, fs.ErrPermission) {
						t.Errorf("%s: virtual chunk in a zip: error = %v, want fs.ErrPermission", repo, err)
					}
					continue
				}
				if err != nil || !bytes.Equal(data, want[k]) {
					t.Errorf("%s %s in a zip: %s = %x, %v, want %x", repo, r.ref, k, data, err, want[k])
				}
			}
			fsys.Close()
		}
		// Detection inside the zip.
		fsys, err := vfs.OpenFS(ctx, "memory:/"+name+"|zip:repo/", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := fsys.Pipeline().String(); !strings.HasSuffix(got, "|zip:repo/|icechunk:") {
			t.Errorf("%s in a zip: detected pipeline %q", repo, got)
		}
		if ents, err := fs.ReadDir(fsys, "."); err != nil || !slices.EqualFunc(ents, []string{"group1", "zarr.json"}, func(e fs.DirEntry, n string) bool { return e.Name() == n }) {
			t.Errorf("%s in a zip: root = %v, %v", repo, ents, err)
		}
		fsys.Close()
	}
}
