package vfs_test

import (
	"testing"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/vfs"
)

// TestDiskObject checks when a driver gets a place on disk for an object
// of its store, and that the place is keyed by the kind, the store's
// pipeline and the object's name, shared by caches over one store.
func TestDiskObject(t *testing.T) {
	store, err := disk.Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	const url = "http://h/repo/"
	env := func(url string, o *vfs.Options) *vfs.Env {
		if o.Cache == nil {
			o.Cache = vfs.NewCache(0)
		}
		return vfs.NewEnv(url, "icechunk", o)
	}
	d := env(url, &vfs.Options{Disk: store}).DiskObject("kind v1", "snapshots/A")
	if !d.Enabled() {
		t.Fatal("no place with Options.Disk")
	}
	if _, ok := d.Get(0); ok {
		t.Fatal("a hit in an empty store")
	}
	d.Put([]byte("object A"))
	if b, ok := env(url, &vfs.Options{Disk: store}).DiskObject("kind v1", "snapshots/A").Get(0); !ok || string(b) != "object A" {
		t.Errorf("another cache with the same store: Get = %q, %v", b, ok)
	}
	if _, ok := d.Get(3); ok {
		t.Error("Get returned an object over its limit")
	}
	for _, other := range []vfs.DiskObject{
		env(url, &vfs.Options{Disk: store}).DiskObject("kind v1", "snapshots/B"),
		env(url, &vfs.Options{Disk: store}).DiskObject("kind v2", "snapshots/A"),
		env("http://h/other/", &vfs.Options{Disk: store}).DiskObject("kind v1", "snapshots/A"),
	} {
		if _, ok := other.Get(0); ok {
			t.Errorf("%+v: a hit for another object", other)
		}
	}
	if !env("file:/d/a.zip|zip:repo/", &vfs.Options{Disk: store}).DiskObject("kind v1", "snapshots/A").Enabled() {
		t.Error("no place for a directory inside a local archive")
	}
	if b, ok := env(url, &vfs.Options{Cache: vfs.NewCache(0), Disk: store}).DiskObject("kind v1", "snapshots/A").Get(0); !ok || string(b) != "object A" {
		t.Errorf("with another cache and the same store: Get = %q, %v", b, ok)
	}
	for what, off := range map[string]vfs.DiskObject{
		"no store":          env(url, &vfs.Options{}).DiskObject("kind v1", "snapshots/A"),
		"no URL":            env("", &vfs.Options{Disk: store}).DiskObject("kind v1", "snapshots/A"),
		"the memory: root":  env("memory:/repo/", &vfs.Options{Disk: store}).DiskObject("kind v1", "snapshots/A"),
		"a local directory": env("file:/d/repo/", &vfs.Options{Disk: store}).DiskObject("kind v1", "snapshots/A"),
		"a nil Env":         (*vfs.Env)(nil).DiskObject("kind v1", "snapshots/A"),
	} {
		if off.Enabled() {
			t.Errorf("%s: a place on disk", what)
		}
		if _, ok := off.Get(0); ok {
			t.Errorf("%s: a hit", what)
		}
		off.Put([]byte("x")) // keeps nothing, and does not panic
		off.Remove()
	}
	d.Remove()
	if _, ok := d.Get(0); ok {
		t.Error("a hit after Remove")
	}
}
