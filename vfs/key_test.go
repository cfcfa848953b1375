package vfs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// fingerprinted is a blob with a version of its own.
type fingerprinted struct {
	driver.Blob
	v string
}

func (b fingerprinted) Fingerprint() string { return b.v }

// keyRegistry returns a registry whose root "pipefs.vroot:" yields root()
// and whose adapters "pipefs.vkeya:" (a blob derived from its input, with
// no version of its own) and "pipefs.vkeyb:" (its input) record the
// Env.Key they were opened with, by scheme.
func keyRegistry(root func() driver.Blob, keys map[string]string) *vfs.Registry {
	reg := new(vfs.Registry)
	reg.RegisterRoot(&vfs.Root{Scheme: "pipefs.vroot", Open: func(ctx context.Context, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
		return driver.Location{Blob: root()}, nil
	}})
	reg.RegisterAdapter(&vfs.Adapter{Scheme: "pipefs.vkeya", OpenFile: func(ctx context.Context, in driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
		keys["a"] = env.Key
		return driver.Location{Blob: driver.BytesBlob([]byte("derived"), nil)}, nil
	}})
	reg.RegisterAdapter(&vfs.Adapter{Scheme: "pipefs.vkeyb", OpenFile: func(ctx context.Context, in driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
		keys["b"] = env.Key
		return driver.Location{Blob: in}, nil
	}})
	return reg
}

// Env.Key is the input's canonical pipeline with the fingerprints of the
// blobs it was read from: a derived blob inherits its container's, and a
// blob with none is known by its size and modification time.
func TestEnvKey(t *testing.T) {
	const pipeline = "pipefs.vroot:obj|pipefs.vkeya:|pipefs.vkeyb:"
	open := func(root driver.Blob) map[string]string {
		t.Helper()
		keys := map[string]string{}
		o := &vfs.Options{Registry: keyRegistry(func() driver.Blob { return root }, keys), Cache: vfs.NewCache(0)}
		f, err := vfs.Open(context.Background(), pipeline, o)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		return keys
	}
	data := []byte("0123456789")
	v1 := open(fingerprinted{driver.BytesBlob(data, nil), "etag-1"})
	if want := "pipefs.vroot:obj\x00" + `"etag-1"`; v1["a"] != want {
		t.Errorf("the first adapter's Key = %q, want %q", v1["a"], want)
	}
	if want := "pipefs.vroot:obj|pipefs.vkeya:\x00" + `"etag-1"`; v1["b"] != want {
		t.Errorf("the Key of an adapter over a derived blob = %q, want %q (the container's version)", v1["b"], want)
	}
	v2 := open(fingerprinted{driver.BytesBlob(data, nil), "etag-2"})
	if v2["a"] == v1["a"] || v2["b"] == v1["b"] {
		t.Errorf("another version gave the same keys: %q", v2)
	}

	mod := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	plain := func(mod time.Time, size int) driver.Blob {
		return driver.BytesBlob(data[:size], &driver.FileInfo{FName: "obj", FSize: int64(size), FMode: 0o444, FModTime: mod})
	}
	p1 := open(plain(mod, 10))
	if !strings.HasPrefix(p1["a"], "pipefs.vroot:obj\x00") || !strings.Contains(p1["a"], "2025-01-01T00:00:00Z") || !strings.Contains(p1["a"], "size 10") {
		t.Errorf("the Key of a blob with no fingerprint = %q, want its size and time", p1["a"])
	}
	if p := open(plain(mod, 10)); p["a"] != p1["a"] || p["b"] != p1["b"] {
		t.Errorf("the same blob gave other keys: %q and %q", p, p1)
	}
	for _, p := range []map[string]string{open(plain(mod.Add(time.Nanosecond), 10)), open(plain(mod, 9))} {
		if p["a"] == p1["a"] || p["b"] == p1["b"] {
			t.Errorf("another size or time gave the same keys: %q", p)
		}
	}
}
