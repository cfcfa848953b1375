package fstest_test

import (
	"archive/zip"
	"maps"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"

	_ "github.com/pipefs/pipefs/adapters/zipadapter"
)

func TestZip(t *testing.T) {
	files := sample()
	withDir := maps.Clone(files)
	withDir["empty-dir/"] = nil
	for _, m := range []struct {
		name   string
		method uint16
	}{{"stored", zip.Store}, {"deflated", zip.Deflate}} {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": fstest.ZipBytes(withDir, m.method)})
			fstest.Run(t, fstest.Case{Pipeline: "memory:/" + prefix + "/a.zip|zip:", Files: files, Dirs: []string{"empty-dir"}, Exhaustive: true})
		})
	}
	t.Run("detected", func(t *testing.T) {
		t.Parallel()
		prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": fstest.ZipBytes(files, zip.Deflate)})
		fstest.Run(t, fstest.Case{Pipeline: "memory:/" + prefix + "/a.zip", Files: files, Exhaustive: true})
	})
	t.Run("subdir", func(t *testing.T) {
		t.Parallel()
		prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": fstest.ZipBytes(files, zip.Deflate)})
		fstest.Run(t, fstest.Case{Pipeline: "memory:/" + prefix + "/a.zip|zip:d/", Files: under(files, "d"), Exhaustive: true})
	})
}

// TestNestedZip checks a zip inside a zip inside a zip, each level mixing
// stored and deflated members; a stored inner archive is a zero-copy
// section of its parent, a deflated one is read through the inflater.
func TestNestedZip(t *testing.T) {
	files := sample()
	mixed := func(name string) uint16 {
		if len(name)%2 == 0 {
			return zip.Store
		}
		return zip.Deflate
	}
	for _, inner := range []struct {
		name   string
		method uint16
	}{{"stored", zip.Store}, {"deflated", zip.Deflate}} {
		t.Run(inner.name, func(t *testing.T) {
			t.Parallel()
			deep := fstest.ZipBytesFunc(files, mixed)
			innerZip := fstest.ZipBytesFunc(map[string][]byte{"deep.zip": deep, "note.txt": []byte("inner")},
				func(name string) uint16 {
					if name == "deep.zip" {
						return inner.method
					}
					return zip.Deflate
				})
			outer := fstest.ZipBytes(map[string][]byte{"inner.zip": innerZip, "readme": []byte("outer")}, inner.method)
			prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": outer})
			fstest.Run(t, fstest.Case{
				Pipeline:   "memory:/" + prefix + "/a.zip|zip:inner.zip|zip:deep.zip|zip:",
				Files:      files,
				Exhaustive: true,
			})
		})
	}
}

// under returns the files below dir, named relative to it.
func under(files map[string][]byte, dir string) map[string][]byte {
	out := map[string][]byte{}
	for name, data := range files {
		if rel, ok := strings.CutPrefix(name, dir+"/"); ok {
			out[rel] = data
		}
	}
	return out
}
