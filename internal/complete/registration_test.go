package complete

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// A toyStore is the tree of the toy versioned store: its base tree, and
// the versions it reports.
type toyStore struct {
	driver.Tree
	versions []string
}

func (s toyStore) Versions(ctx context.Context) ([]driver.Version, error) {
	var out []driver.Version
	for _, id := range s.versions {
		out = append(out, driver.Version{ID: id, Time: time.Unix(0, 0), Keys: -1})
	}
	return out, nil
}

// A toyRefStore is a toyStore whose versions also go by names.
type toyRefStore struct {
	toyStore
	refs []string
}

func (s toyRefStore) ListRefs(ctx context.Context) ([]driver.Ref, error) {
	var out []driver.Ref
	for _, r := range s.refs {
		out = append(out, driver.Ref{Name: r, Version: s.versions[0]})
	}
	return out, nil
}

// toyRegistry returns a registry that knows nothing of pipefs's own
// drivers, only toys that declare what completion asks of a driver:
//
//   - memory: and pipefs.vroot:, roots over files;
//   - pipefs.toy:, an archive of ".toy" files, detected by "TOY" at
//     offset 0, that holds one file, inside.txt;
//   - pipefs.unz:, a stream of ".unz" files, detected by "UNZ", whose
//     output is its input without those three bytes;
//   - pipefs.store: and pipefs.refstore:, versioned stores over a
//     directory, the second with names for its versions.
func toyRegistry(files *memroot.Store) *vfs.Registry {
	g := new(vfs.Registry)
	root := func(ctx context.Context, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
		return driver.Location{Tree: files, Path: u.Key()}, nil
	}
	g.RegisterRoot(&vfs.Root{Scheme: "memory", Open: root})
	g.RegisterRoot(&vfs.Root{Scheme: "pipefs.vroot", Open: root, Summary: "a toy root"})
	g.RegisterAdapter(&vfs.Adapter{Scheme: "pipefs.toy", Extensions: []string{".toy"}, Summary: "a toy archive",
		OpenFile: func(ctx context.Context, in driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
			t := memroot.NewStore()
			if err := t.WriteFile("inside.txt", []byte("inside\n")); err != nil {
				return driver.Location{}, err
			}
			return driver.Location{Tree: t, Path: u.Key()}, nil
		}})
	g.RegisterFormat(&vfs.Format{Name: "toy", Adapter: "pipefs.toy:", Input: vfs.KindFile, Magic: "TOY"})
	g.RegisterAdapter(&vfs.Adapter{Scheme: "pipefs.unz", Extensions: []string{".unz"}, Stream: true,
		OpenFile: func(ctx context.Context, in driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
			size := in.Stat().Size() - 3
			return driver.Location{Blob: driver.SectionBlob(in, 3, size, &driver.FileInfo{FName: in.Stat().Name(), FSize: size})}, nil
		}})
	g.RegisterFormat(&vfs.Format{Name: "unz", Adapter: "pipefs.unz:", Input: vfs.KindFile, Magic: "UNZ"})
	g.RegisterAdapter(&vfs.Adapter{Scheme: "pipefs.store", Extensions: []string{".store"},
		OpenDir: func(ctx context.Context, in driver.Tree, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
			return driver.Location{Tree: toyStore{in, []string{"v1", "v2", "v 3"}}, Path: u.Key()}, nil
		}})
	g.RegisterAdapter(&vfs.Adapter{Scheme: "pipefs.refstore",
		OpenDir: func(ctx context.Context, in driver.Tree, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
			return driver.Location{Tree: toyRefStore{toyStore{in, []string{"S1", "S2"}}, []string{"branch.main", "tag.a|b"}}, Path: u.Key()}, nil
		}})
	return g
}

// TestCompleteByRegistration checks that completion reads from the
// registry what it offers: the adapter a name's extension suggests, the
// layers a stream's output is detected as, the next adapter after a
// stream, the roots and how each begins, and the versions of a store,
// by its refs when it has them.
func TestCompleteByRegistration(t *testing.T) {
	files := memroot.NewStore()
	for name, data := range map[string]string{
		"d/a.toy":          "TOY archive",
		"d/b.toy":          "no magic",
		"d/c.unz":          "UNZTOY archive, compressed",
		"d/plain.txt":      "text",
		"d/repo.store/k/x": "x",
	} {
		if err := files.WriteFile(name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	c := &Completer{Options: &vfs.Options{Registry: toyRegistry(files)}}
	for _, tc := range []struct {
		text string
		want []string
	}{
		// An archive's extension offers it beside the file; a stream's
		// does not, nor does a directory's.
		{"memory:/d/", []string{"memory:/d/a.toy", "memory:/d/a.toy|pipefs.toy:", "memory:/d/b.toy", "memory:/d/b.toy|pipefs.toy:",
			"memory:/d/c.unz", "memory:/d/plain.txt", "memory:/d/repo.store/"}},
		// Detection first; the extension when nothing is detected.
		{"memory:/d/a.toy|", []string{"memory:/d/a.toy|pipefs.toy:"}},
		{"memory:/d/b.toy|", []string{"memory:/d/b.toy|pipefs.toy:"}},
		{"memory:/d/repo.store/|", []string{"memory:/d/repo.store/|pipefs.store:"}},
		// A stream's output is detected again, and a stream takes no path.
		{"memory:/d/c.unz|", []string{"memory:/d/c.unz|pipefs.unz:", "memory:/d/c.unz|pipefs.unz:|pipefs.toy:"}},
		{"memory:/d/c.unz|pipefs.unz:", []string{"memory:/d/c.unz|pipefs.unz:|pipefs.toy:"}},
		{"memory:/d/c.unz|pipefs.unz:|pipefs.toy:", []string{"memory:/d/c.unz|pipefs.unz:|pipefs.toy:inside.txt"}},
		// With nothing detected and no extension, every adapter that
		// reads the kind.
		{"memory:/d/plain.txt|", []string{"memory:/d/plain.txt|pipefs.toy:", "memory:/d/plain.txt|pipefs.unz:"}},
		{"memory:/d/|", []string{"memory:/d/|pipefs.refstore:", "memory:/d/|pipefs.store:"}},
		// The roots, as each begins, a vendor root among them.
		{"pipefs", []string{"pipefs.vroot:"}},
		{"pipefs.vroot:/d/a", []string{"pipefs.vroot:/d/a.toy", "pipefs.vroot:/d/a.toy|pipefs.toy:"}},
		// Versions, written as the scheme writes a version; names
		// rather than IDs for a store that has them.
		{"memory:/d/repo.store/|pipefs.store://", []string{
			"memory:/d/repo.store/|pipefs.store://v1/", "memory:/d/repo.store/|pipefs.store://v2/", "memory:/d/repo.store/|pipefs.store://v%203/"}},
		{"memory:/d/repo.store/|pipefs.store://v2", []string{"memory:/d/repo.store/|pipefs.store://v2/"}},
		{"memory:/d/repo.store/|pipefs.refstore://", []string{
			"memory:/d/repo.store/|pipefs.refstore://branch.main/", "memory:/d/repo.store/|pipefs.refstore://tag.a%7Cb/"}},
		{"memory:/d/repo.store/|pipefs.store://v1/", []string{"memory:/d/repo.store/|pipefs.store://v1/k/"}},
		// A store that is no versioned one has no versions to offer.
		{"memory:/d/|pipefs.toy://", nil},
	} {
		got, err := c.Complete(t.Context(), tc.text)
		if err != nil && tc.want != nil {
			t.Errorf("complete %q: %v", tc.text, err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("complete %q:\ngot  %q\nwant %q", tc.text, got, tc.want)
		}
	}
	if got, _ := c.Complete(t.Context(), ""); slices.Contains(got, "pipefs.toy:") {
		t.Errorf("an adapter offered as a root: %q", got)
	}
}
