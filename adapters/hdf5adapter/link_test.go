package hdf5adapter_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// TestReadLinkH5py reads the links of the h5py link files with fs.ReadLink
// and fs.Lstat, against what h5py recorded of them (dumps/NAME.json): a
// dangling soft link reads as its path, an external link as "FILE:PATH",
// a hard link back up the tree as the path of the group it leads to, and
// a link that resolves is listed as its target, so it is no symbolic link.
func TestReadLinkH5py(t *testing.T) {
	for _, name := range []string{"links_earliest.h5", "links_latest.h5"} {
		t.Run(name, func(t *testing.T) {
			fsys, _ := openH5py(t, name)
			b, err := os.ReadFile(filepath.Join("testdata", "h5py", "dumps", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var dump struct {
				Links map[string]struct {
					Kind     string  `json:"kind"`
					Target   string  `json:"target"`
					Resolves *string `json:"resolves"`
					File     string  `json:"file"`
					Path     string  `json:"path"`
					Seen     bool    `json:"seen"`
				} `json:"links"`
			}
			if err := json.Unmarshal(b, &dump); err != nil {
				t.Fatal(err)
			}
			if len(dump.Links) == 0 {
				t.Fatal("the dump records no links")
			}
			for p, l := range dump.Links {
				name := strings.TrimPrefix(p, "/")
				got, err := fs.ReadLink(fsys, name)
				info, lerr := fs.Lstat(fsys, name)
				if lerr != nil {
					t.Errorf("Lstat(%s): %v", name, lerr)
					continue
				}
				link := info.Mode()&fs.ModeSymlink != 0
				switch {
				case l.Kind == "external":
					if want := l.File + ":" + l.Path; err != nil || got != want || !link {
						t.Errorf("%s: ReadLink %q, %v, Lstat %v; want %q, a link", name, got, err, info.Mode(), want)
					}
				case l.Kind == "soft" && l.Resolves == nil:
					if err != nil || got != l.Target || !link {
						t.Errorf("%s: ReadLink %q, %v, Lstat %v; want %q, a link", name, got, err, info.Mode(), l.Target)
					}
				case l.Kind == "hard" && l.Seen:
					// The group it leads to: the same listing.
					to := strings.TrimPrefix(got, "/")
					if to == "" {
						to = "."
					}
					a, aerr := fs.ReadDir(fsys, name)
					b, berr := fs.ReadDir(fsys, to)
					if err != nil || !strings.HasPrefix(got, "/") || !link || aerr != nil || berr != nil ||
						!slices.EqualFunc(a, b, func(x, y fs.DirEntry) bool { return x.Name() == y.Name() }) {
						t.Errorf("%s: ReadLink %q, %v, Lstat %v; want the path of the group it leads to", name, got, err, info.Mode())
					}
				default: // resolved: listed as its target
					if !errors.Is(err, vfs.ErrNotLink) || !errors.Is(err, fs.ErrInvalid) || link {
						t.Errorf("%s (%s link that resolves): ReadLink %q, %v, Lstat %v; want no link", name, l.Kind, got, err, info.Mode())
					}
				}
			}
			if _, err := fs.ReadLink(fsys, "no_such"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("ReadLink(no_such): %v, want fs.ErrNotExist", err)
			}
			if _, err := fs.Lstat(fsys, "data/x/y"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Lstat below a dataset: %v, want fs.ErrNotExist", err)
			}
		})
	}
}
