package vfs

import (
	"context"

	"github.com/pipefs/pipefs/cache/disk"
)

// A DiskIndex is where a driver keeps one index of its input on disk, for
// later processes that open the same bytes: a tar member table, the
// checkpoints of a gzip stream. Env.DiskIndex gives it. The zero value
// keeps nothing.
//
// Load returns the bytes Store kept, by this process or another; the
// driver decodes them as untrusted input (bounded by its Limits, errors
// for anything out of place), and treats a decoding error as a miss,
// building the index again. An index is stored once complete, and only
// when it describes the bytes well (not when reading failed part way).
//
// With Options.Sidecar, the index is also shared through the archive's
// own store, as a sidecar object beside the object it was derived from:
// Load looks there when the store on disk has no copy (and keeps what it
// finds on disk), and with SidecarWrite, Store writes it there too.
type DiskIndex struct {
	s    *disk.Store
	key  string
	side *sidecar
}

// DiskIndex returns the place of the index that kind names for the input
// of the driver env was given to. kind names the driver, the format of
// its encoding and its version, and every setting that changes the index
// ("pipefs.tar v1 entries 1048576 name 4096"). The place is the zero
// DiskIndex, which keeps nothing, when env.Key names no version of the
// input that outlives the process (an Env from NewEnv, an input in the
// memory: root, or one read from blobs that name no version, see
// driver.Fingerprinter), and when the pipeline has neither a store on disk
// (Options.Disk) nor a sidecar (Options.Sidecar, with a first blob that is
// a driver.Sidecars).
func (env *Env) DiskIndex(kind string) DiskIndex {
	if !env.durable || env.Options == nil {
		return DiskIndex{}
	}
	s := env.Options.Disk
	side := env.sidecar()
	if s == nil && side == nil {
		return DiskIndex{}
	}
	return DiskIndex{s: s, key: kind + "\x00" + env.Key, side: side}
}

// Enabled reports whether d keeps anything.
func (d DiskIndex) Enabled() bool { return d.s != nil || d.side != nil }

// LocalOnly returns d without its sidecar: the place of a driver whose
// index costs no more to read from the input than from a sidecar (a zip's
// central directory, one read from the archive's own tail).
func (d DiskIndex) LocalOnly() DiskIndex {
	d.side = nil
	if d.s == nil {
		return DiskIndex{}
	}
	return d
}

// Load returns the stored index, if there is one of at most limit bytes
// (0 means disk.MaxEntry). ctx bounds the read of a sidecar.
func (d DiskIndex) Load(ctx context.Context, limit int64) ([]byte, bool) {
	if d.s != nil {
		if b, ok := d.s.Get(d.key, limit); ok {
			return b, true
		}
	}
	if d.side == nil {
		return nil, false
	}
	b, ok := d.side.load(ctx, d.key, limit)
	if ok && d.s != nil {
		d.s.Put(d.key, b)
	}
	return b, ok
}

// Store keeps data as the index, replacing any earlier one. ctx bounds
// the write of a sidecar: the context of the call in which the index
// became complete, or the one a driver.ContextCloser is closed with, so
// that cancelling it stops the write. A failure is not reported: a later
// process builds the index again. (A sidecar that cannot be written is
// logged with Options.Logger, once per object and Cache; one that a
// cancellation stopped is not.)
func (d DiskIndex) Store(ctx context.Context, data []byte) {
	if d.s != nil {
		d.s.Put(d.key, data)
	}
	if d.side != nil {
		d.side.store(ctx, d.key, data)
	}
}

// Remove drops the index kept on disk, as a driver does with one it could
// not decode. A sidecar is left in place: Store replaces it.
func (d DiskIndex) Remove() {
	if d.s != nil {
		d.s.Remove(d.key)
	}
}
