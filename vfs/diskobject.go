package vfs

import (
	"github.com/pipefs/pipefs/cache/disk"
)

// A DiskObject is where a driver keeps, on disk, a copy of one immutable
// object of the store it reads, for later processes that open the same
// store: an Icechunk snapshot or manifest, an OCDBT B+tree or version-tree
// node. Env.DiskObject gives it. The zero value keeps nothing.
//
// Unlike a DiskIndex, a DiskObject names no version of what it copies:
// it is only for objects that are never rewritten once written, because
// their name is their identity (a content hash, a random id that a writer
// never reuses, or a byte range of such a file). Anything that a writer
// replaces in place must never be kept this way, since a later process
// would read the old bytes as current: the refs of a store (Icechunk
// refs/ and the spec v2 repo file that holds the branches and tags), an
// OCDBT manifest.ocdbt, a Zarr zarr.json.
//
// Load is what a driver calls: the kept copy when it decodes, else the
// store's bytes, then kept. Kept bytes are untrusted input: the driver's
// decode applies every check it applies to the store's own bytes, and
// also checks that they are the object asked for (the id they hold); a
// failure is a miss, after which the object is read from the store and
// kept again. Get, Put and Remove are the steps Load takes.
type DiskObject struct {
	s   *disk.Store
	key string
}

// DiskObject returns the place of the object name of the store that the
// driver env was given reads, as the driver encodes it: kind names the
// driver and the object's kind ("icechunk snapshot", "ocdbt node"), name
// the object within the store (a path, perhaps with a byte range). The
// key is kind, the canonical pipeline of the driver's input (Env.URL) and
// name, so a second process that opens the same store by the same
// pipeline finds it.
//
// The place is the zero DiskObject, which keeps nothing, when the
// pipeline has no store on disk (Options.Disk), when Env.URL is empty,
// when the pipeline's root is not registered as Durable (memory:, whose
// objects do not outlive the process), and when the input is a directory
// of a Local root itself (file:), which is read as fast as a copy would
// be and which a copy would only duplicate on the same disk.
func (env *Env) DiskObject(kind, name string) DiskObject {
	if env == nil || env.URL == "" || env.Options == nil || env.Options.Disk == nil {
		return DiskObject{}
	}
	p, err := Parse(env.URL)
	if err != nil || len(p) == 0 {
		return DiskObject{}
	}
	if root := env.Options.registry().Root(p[0].Scheme); root == nil || !root.Durable || len(p) == 1 && root.Local {
		return DiskObject{}
	}
	return DiskObject{s: env.Options.Disk, key: "object\x00" + kind + "\x00" + env.URL + "\x00" + name}
}

// Enabled reports whether d keeps anything.
func (d DiskObject) Enabled() bool { return d.s != nil }

// Get returns the kept copy of the object, if there is one of at most
// limit bytes (0 means disk.MaxEntry).
func (d DiskObject) Get(limit int64) ([]byte, bool) {
	if d.s == nil {
		return nil, false
	}
	return d.s.Get(d.key, limit)
}

// Put keeps data as the copy of the object, replacing any earlier one. A
// failure is not reported: a later process reads the object from its
// store again.
func (d DiskObject) Put(data []byte) {
	if d.s != nil {
		d.s.Put(d.key, data)
	}
}

// Remove drops the kept copy, as a driver does with one it could not
// decode.
func (d DiskObject) Remove() {
	if d.s != nil {
		d.s.Remove(d.key)
	}
}

// Load gives decode the object's bytes: the kept copy when there is one
// of at most limit bytes that decode accepts, else what read returns,
// which is kept once decode accepts it. A copy that decode refuses is
// dropped, as untrusted input that failed its checks: it is a miss, not
// an error. An error of read, or of decode on what read returned, is
// returned as it is.
func (d DiskObject) Load(limit int64, read func() ([]byte, error), decode func([]byte) error) error {
	if data, ok := d.Get(limit); ok {
		if decode(data) == nil {
			return nil
		}
		d.Remove()
	}
	data, err := read()
	if err != nil {
		return err
	}
	if err := decode(data); err != nil {
		return err
	}
	d.Put(data)
	return nil
}
