package browse

import (
	"archive/zip"
	"path/filepath"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
)

// modTime is the modification time of every member of the archives the
// tests build (that of fstest.ZipBytes).
var modTime = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// An entry is one member of a test zip; a name ending in "/" is a
// directory.
type entry struct {
	name, body string
	store      bool // stored rather than deflated
}

// zipOf builds a zip archive of entries, in the order of their names.
func zipOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	files := map[string][]byte{}
	stored := map[string]bool{}
	for _, e := range entries {
		files[e.name] = []byte(e.body)
		stored[e.name] = e.store
	}
	return fstest.ZipBytesFunc(files, func(name string) uint16 {
		if stored[name] {
			return zip.Store
		}
		return zip.Deflate
	})
}

// site puts a small nested archive in the memory store under dir and
// returns the pipeline of its zip file:
//
//	README.txt            "hello, world\n"
//	docs/guide.md         "# Guide\n"
//	docs/api/ref.txt      "ref\n"
//	data/inner.zip        (stored) hello.txt "deep hello\n"
func site(t *testing.T, dir string) string {
	t.Helper()
	inner := zipOf(t, entry{name: "hello.txt", body: "deep hello\n"})
	outer := zipOf(t,
		entry{name: "README.txt", body: "hello, world\n"},
		entry{name: "data/"},
		entry{name: "data/inner.zip", body: string(inner), store: true},
		entry{name: "docs/"},
		entry{name: "docs/api/"},
		entry{name: "docs/api/ref.txt", body: "ref\n"},
		entry{name: "docs/guide.md", body: "# Guide\n"},
	)
	name := dir + "/site.zip"
	if err := memroot.WriteFile(name, outer); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { memroot.RemoveAll(dir) })
	return "memory:" + name
}

// fixture returns the pipeline of the shared fixture rel.
func fixture(t *testing.T, rel string) string {
	t.Helper()
	return "file:" + filepath.ToSlash(fstest.Fixture(t, rel))
}
