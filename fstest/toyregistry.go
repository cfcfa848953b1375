package fstest

import (
	"context"
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

// ToyRegistry returns a registry that knows nothing of pipefs's own
// drivers, only toys that declare what a program asks of a driver (what
// completion offers, which stages follow links, what help lists), over
// the files of the memory store files:
//
//   - memory: and pipefs.vroot:, roots over files;
//   - pipefs.toy:, an archive of ".toy" files, detected by "TOY" at
//     offset 0, that holds one file, inside.txt;
//   - pipefs.unz:, a stream of ".unz" files, detected by "UNZ", whose
//     output is its input without those three bytes;
//   - pipefs.store: and pipefs.refstore:, versioned stores over a
//     directory, the second with names for its versions.
func ToyRegistry(files *memroot.Store) *vfs.Registry {
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
