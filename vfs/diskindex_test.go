package vfs_test

import (
	"context"
	"testing"
	"time"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestDiskIndex checks when a driver gets a place on disk for its index:
// only for an input whose Key names a fingerprint of a root declared
// Durable, and only with a store, Options.Disk: the default cache has
// none.
func TestDiskIndex(t *testing.T) {
	store, err := disk.Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	openAt := func(scheme string, durable bool, root driver.Blob, o *vfs.Options) vfs.DiskIndex {
		t.Helper()
		var got vfs.DiskIndex
		reg := new(vfs.Registry)
		reg.RegisterRoot(&vfs.Root{Scheme: scheme, Durable: durable, Open: func(ctx context.Context, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
			if env.DiskIndex("k").Enabled() {
				t.Error("a root got a place on disk")
			}
			return driver.Location{Blob: root}, nil
		}})
		reg.RegisterAdapter(&vfs.Adapter{Scheme: "pipefs.vkeyb", OpenFile: func(ctx context.Context, in driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
			got = env.DiskIndex("pipefs.vkeyb v1")
			return driver.Location{Blob: in}, nil
		}})
		o.Registry = reg
		f, err := vfs.Open(context.Background(), scheme+":obj|pipefs.vkeyb:", o)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		return got
	}
	open := func(root driver.Blob, o *vfs.Options) vfs.DiskIndex {
		t.Helper()
		return openAt("pipefs.vroot", true, root, o)
	}
	data := []byte("0123456789")
	versioned := fingerprinted{driver.BytesBlob(data, nil), "etag-1"}
	plain := driver.BytesBlob(data, &driver.FileInfo{FName: "obj", FSize: 10, FModTime: time.Now()})

	d := open(versioned, &vfs.Options{Cache: vfs.NewCache(0), Disk: store})
	if !d.Enabled() {
		t.Fatal("no place for a versioned input with Options.Disk")
	}
	d.Store(context.Background(), []byte("index"))
	if b, ok := open(versioned, &vfs.Options{Cache: vfs.NewCache(0), Disk: store}).Load(context.Background(), 0); !ok || string(b) != "index" {
		t.Errorf("another cache with the same store: Load = %q, %v", b, ok)
	}
	other := fingerprinted{driver.BytesBlob(data, nil), "etag-2"}
	if _, ok := open(other, &vfs.Options{Cache: vfs.NewCache(0), Disk: store}).Load(context.Background(), 0); ok {
		t.Error("another version of the object loaded the index")
	}
	if open(versioned, &vfs.Options{Cache: vfs.NewCache(0)}).Enabled() {
		t.Error("a place with no store")
	}
	if open(versioned, &vfs.Options{}).Enabled() {
		t.Error("a place with the default cache and no store")
	}
	if open(plain, &vfs.Options{Cache: vfs.NewCache(0), Disk: store}).Enabled() {
		t.Error("a place for an input with no fingerprint")
	}
	if vfs.NewEnv("pipefs.vroot:obj", "pipefs.vkeyb", &vfs.Options{Disk: store}).DiskIndex("k").Enabled() {
		t.Error("a place for an Env from NewEnv")
	}
	// The memory: root is not Durable: its versions count the writes of
	// one process.
	if openAt("memory", false, versioned, &vfs.Options{Cache: vfs.NewCache(0), Disk: store}).Enabled() {
		t.Error("a place for an input in a root not declared Durable")
	}
}
