package zipadapter_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"

	_ "github.com/pipefs/pipefs/adapters/zipadapter"
)

// TestConformance runs the project's conformance kit on fixtures made by
// each tool, through the zip: adapter and through format detection.
func TestConformance(t *testing.T) {
	files := map[string][]byte{}
	root := filepath.Join("testdata", "src")
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		}
		return err
	})
	for _, name := range []string{
		"infozip.zip", "infozip-stored.zip", "infozip-zip64.zip", "infozip-descriptor.zip",
		"bsdtar.zip", "7z.zip", "7z-stored.zip", "sfx-unfixed.zip", "sfx-fixed.zip",
	} {
		t.Run(strings.TrimSuffix(name, ".zip"), func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": b})
			fstest.Run(t, fstest.Case{Pipeline: "memory:/" + prefix + "/a.zip|zip:", Files: files, Exhaustive: true})
			fstest.Run(t, fstest.Case{Pipeline: "memory:/" + prefix + "/a.zip", Files: files, Exhaustive: true})
		})
	}
}
