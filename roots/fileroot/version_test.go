package fileroot_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/pipefs/pipefs/adapters/gzipadapter"
	_ "github.com/pipefs/pipefs/adapters/taradapter"
	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// A local file replaced by a rename with one of the same size and the
// same modification time is read anew in the same process and the same
// vfs.Cache: what adapters cached about it is keyed by its inode too. A
// file left alone reuses what they cached: opening it again adds nothing
// to the cache, and the replaced file adds one entry for each the old one
// had.
func TestReplacedFile(t *testing.T) {
	for _, r := range fstest.Replacements(t) {
		t.Run(r.Name, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, r.Name)
			mod := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			write := func(data []byte) {
				tmp := name + ".tmp"
				if err := os.WriteFile(tmp, data, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(tmp, mod, mod); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, name); err != nil {
					t.Fatal(err)
				}
			}
			write(r.Old)
			url := fileURL(t, dir) + r.Name + r.Pipeline
			c := vfs.NewCache(0)
			r.Check(t, url, c, r.WantOld)
			entries := c.Len()
			if entries == 0 {
				t.Fatal("the first open cached nothing; the test needs an index")
			}
			r.Check(t, url, c, r.WantOld)
			if c.Len() != entries {
				t.Errorf("reopening the unchanged file: the cache holds %d entries, want %d", c.Len(), entries)
			}
			before, _ := os.Stat(name)
			write(r.New)
			after, _ := os.Stat(name)
			if before.Size() != after.Size() || !before.ModTime().Equal(after.ModTime()) || os.SameFile(before, after) {
				t.Fatalf("the replacement is not a new file of the same size and time: %v, %v", before, after)
			}
			r.Check(t, url, c, r.WantNew)
			if c.Len() != 2*entries {
				t.Errorf("after the replacement the cache holds %d entries, want %d", c.Len(), 2*entries)
			}
		})
	}
}
