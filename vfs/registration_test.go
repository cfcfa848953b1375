package vfs_test

import (
	"context"
	"errors"
	"testing"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

func openNothing(context.Context, vfs.SubURL, *vfs.Env) (driver.Location, error) {
	return driver.Location{}, errors.ErrUnsupported
}

func openFileNothing(context.Context, driver.Blob, vfs.SubURL, *vfs.Env) (driver.Location, error) {
	return driver.Location{}, errors.ErrUnsupported
}

func openDirNothing(context.Context, driver.Tree, vfs.SubURL, *vfs.Env) (driver.Location, error) {
	return driver.Location{}, errors.ErrUnsupported
}

// TestRegistryDeclarations checks that what a root or an adapter declares
// in its registration is what the registry answers: the adapter of an
// extension, and which pipelines follow links when opened.
func TestRegistryDeclarations(t *testing.T) {
	g := new(vfs.Registry)
	g.RegisterRoot(&vfs.Root{Scheme: "pipefs.links", Open: openNothing, FollowsLinks: true})
	g.RegisterRoot(&vfs.Root{Scheme: "pipefs.flat", Open: openNothing})
	toy := &vfs.Adapter{Scheme: "pipefs.toy", OpenFile: openFileNothing, Extensions: []string{".toy", ".tz"}, FollowsLinks: true}
	g.RegisterAdapter(toy)
	unz := &vfs.Adapter{Scheme: "pipefs.unz", OpenFile: openFileNothing, Stream: true}
	g.RegisterAdapter(unz)

	for name, want := range map[string]*vfs.Adapter{
		"a.toy":       toy,
		"d/A.TZ":      toy,
		"a.zip.toy":   toy,
		"a.toy/":      nil, // path.Ext of a name ending in "/" is ""
		"toy":         nil,
		"a.zip":       nil, // not registered in g
		"a.toy.zip":   nil,
		".hidden.toy": toy,
	} {
		if got := g.ByExtension(name); got != want {
			t.Errorf("ByExtension(%q) = %v, want %v", name, got, want)
		}
	}
	if g.Root("PIPEFS.LINKS") == nil || g.Adapter("Pipefs.Unz") != unz || g.Adapter("pipefs.links") != nil || g.Root("pipefs.toy") != nil {
		t.Error("Root and Adapter do not find what was registered, in any case, under its role")
	}
	for s, want := range map[string]bool{
		"pipefs.links:/a":                true,
		"pipefs.flat:/a":                 false,
		"pipefs.flat:/a|pipefs.toy:x":    true,
		"pipefs.links:/a|pipefs.unz:":    false,
		"pipefs.links:/a|pipefs.other:x": false,
		"memory:a":                       false,
	} {
		if got := g.FollowsLinks(vfs.MustParse(s)); got != want {
			t.Errorf("FollowsLinks(%s) = %v, want %v", s, got, want)
		}
	}
	if g.FollowsLinks(nil) {
		t.Error("FollowsLinks(nil) = true")
	}
}

// TestRegisterDeclarationsPanic checks that a registration whose
// declarations cannot hold panics: an extension not in the form
// path.Ext gives, one that another adapter declared, and a Stream that
// reads no file or whose scheme's grammar gives it a path or another
// output than a file.
func TestRegisterDeclarationsPanic(t *testing.T) {
	for name, a := range map[string]*vfs.Adapter{
		"no dot":               {Scheme: "pipefs.x", OpenFile: openFileNothing, Extensions: []string{"zip"}},
		"upper case":           {Scheme: "pipefs.x", OpenFile: openFileNothing, Extensions: []string{".ZIP"}},
		"two dots":             {Scheme: "pipefs.x", OpenFile: openFileNothing, Extensions: []string{".tar.gz"}},
		"dot alone":            {Scheme: "pipefs.x", OpenFile: openFileNothing, Extensions: []string{"."}},
		"slash":                {Scheme: "pipefs.x", OpenFile: openFileNothing, Extensions: []string{".a/b"}},
		"stream of a dir":      {Scheme: "pipefs.x", OpenDir: openDirNothing, Stream: true},
		"stream with a path":   {Scheme: "byte-range", OpenFile: openFileNothing, Stream: true},
		"decoder of no stream": {Scheme: "pipefs.x", OpenFile: openFileNothing, DecodeHead: func([]byte, int, vfs.Limits) ([]byte, error) { return nil, nil }},
		"stream of a tree":     {Scheme: "zip", OpenFile: openFileNothing, Stream: true},
		"stream of pixels":     {Scheme: "png", OpenFile: openFileNothing, Stream: true},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			new(vfs.Registry).RegisterAdapter(a)
		})
	}
	g := new(vfs.Registry)
	g.RegisterAdapter(&vfs.Adapter{Scheme: "gzip", OpenFile: openFileNothing, Stream: true, Extensions: []string{".gz"}})
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a second adapter declaring .gz: no panic")
			}
		}()
		g.RegisterAdapter(&vfs.Adapter{Scheme: "pipefs.gz", OpenFile: openFileNothing, Extensions: []string{".gz"}})
	}()
	if g.Adapter("pipefs.gz") != nil {
		t.Error("the refused adapter was registered")
	}
	if a := g.ByExtension("a.gz"); a == nil || a.Scheme != "gzip" {
		t.Errorf("ByExtension(a.gz) = %v after a refused claim, want gzip", a)
	}
}

// TestDiskObjectDeclared checks that Env.DiskObject keeps objects of a
// store only when the pipeline's root is declared Durable, and not for a
// directory of a Local root itself.
func TestDiskObjectDeclared(t *testing.T) {
	store, err := disk.Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	g := new(vfs.Registry)
	g.RegisterRoot(&vfs.Root{Scheme: "pipefs.durable", Open: openNothing, Durable: true})
	g.RegisterRoot(&vfs.Root{Scheme: "pipefs.ephemeral", Open: openNothing})
	g.RegisterRoot(&vfs.Root{Scheme: "pipefs.local", Open: openNothing, Durable: true, Local: true})
	for url, want := range map[string]bool{
		"pipefs.durable:/repo/":                 true,
		"pipefs.durable:/a.zip|zip:repo/":       true,
		"pipefs.ephemeral:/repo/":               false,
		"pipefs.ephemeral:/a.zip|zip:repo/":     false,
		"pipefs.local:/repo/":                   false,
		"pipefs.local:/a.zip|zip:repo/":         true,
		"pipefs.unregistered:/a.zip|zip:repo/":  false,
		"pipefs.unregistered:/repo/|pipefs.x:/": false,
	} {
		env := vfs.NewEnv(url, "icechunk", &vfs.Options{Registry: g, Cache: vfs.NewCache(0), Disk: store})
		if got := env.DiskObject("kind v1", "snapshots/A").Enabled(); got != want {
			t.Errorf("%s: DiskObject enabled = %v, want %v", url, got, want)
		}
	}
}

// TestStandardDeclarations checks what the drivers of pipefs declare:
// the extensions that completion suggests them by, which adapters are
// streams, which stages follow links, which roots are durable.
func TestStandardDeclarations(t *testing.T) {
	g := vfs.DefaultRegistry
	for name, want := range map[string]string{
		"a.zip": "zip", "a.TAR": "pipefs.tar", "a.gz": "gzip", "a.tgz": "gzip", "a.zst": "zstd",
		"a.bz2": "pipefs.bzip2", "a.xz": "pipefs.xz", "a.json": "json", "a.h5": "hdf5", "a.hdf5": "hdf5",
		"a.png": "png", "a.jpg": "jpeg", "a.jpeg": "jpeg", "a.tif": "tiff", "a.tiff": "tiff",
		"a.webp": "webp", "a.bmp": "bmp", "a.avif": "avif", "d.zarr": "zarr", "d.n5": "n5",
		"d.ocdbt": "ocdbt", "d.icechunk": "icechunk", "a.txt": "",
	} {
		got := ""
		if a := g.ByExtension(name); a != nil {
			got = a.Scheme
		}
		if got != want {
			t.Errorf("ByExtension(%q) = %q, want %q", name, got, want)
		}
	}
	for _, s := range g.Schemes() {
		a := g.Adapter(s)
		if a == nil {
			continue
		}
		want := s == "gzip" || s == "zstd" || s == "pipefs.bzip2" || s == "pipefs.xz"
		if a.Stream != want {
			t.Errorf("%s: Stream = %v, want %v", s, a.Stream, want)
		}
	}
	for s, want := range map[string]bool{
		"file:/a": true, "memory:a": false, "https://h/a": false, "s3://bucket/a": false,
		"file:/a|pipefs.tar:x": true, "file:/a|zip:x": false, "file:/a|hdf5:x": false,
	} {
		if got := g.FollowsLinks(vfs.MustParse(s)); got != want {
			t.Errorf("FollowsLinks(%s) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]bool{"file": true, "memory": false, "http": true, "https": true, "s3": true, "s3+https": true, "gs": true} {
		if r := g.Root(s); r == nil || r.Durable != want {
			t.Errorf("Root(%q) = %+v, want Durable %v", s, r, want)
		}
	}
	if r := g.Root("file"); r == nil || !r.Local {
		t.Error("the file: root is not Local")
	}
}
