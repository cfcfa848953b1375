// Package lazysize provides the fs.FileInfo of a decompressed stream whose
// size is not known until the stream has been decoded to its end.
//
// Opening such a stream must not decode it: a reader that streams it
// (driver.Streamer, io.Copy of a vfs.File) learns the size at the end, in the
// same pass. An [Info]'s Size runs the pass only when someone asks before
// then, once, and remembers the answer.
//
// Size has no context and no error. The pass runs with the values of the
// context the stream was opened with, without its cancellation (an open
// whose context has ended must still be able to describe its file), so it
// cannot be interrupted. When the pass fails, Size returns the bound it
// was given (Limits.MaxFileSize), never the number of bytes decoded before
// the failure: a reader that trusts Size goes on reading, and the read of
// the bad part returns the error, so corrupt data is never silently cut
// short. A failure caused by the data (matching driver.ErrCorrupt or
// driver.ErrLimit) is remembered; any other (an I/O error) is retried by the
// next call. [Info.Err] reports the failure.
package lazysize

import (
	"context"
	"errors"
	"io/fs"
	"sync"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"
)

// An Info describes a stream whose size is computed on first use. Its
// methods are safe for concurrent use.
type Info struct {
	name  string
	mode  fs.FileMode
	mtime time.Time
	sys   any

	ctx   context.Context
	size  func(ctx context.Context) (int64, error)
	known func() int64 // the size if already known, else -1; may be nil
	bound int64

	mu   sync.Mutex
	done bool
	n    int64
	err  error
}

var _ fs.FileInfo = (*Info)(nil)

// New returns an Info of a regular file. size computes the size with the
// context it is given (ctx without its cancellation); known, when not nil,
// returns it cheaply once another pass has learnt it, or -1. bound is what
// Size returns when size fails.
func New(ctx context.Context, name string, mode fs.FileMode, mtime time.Time, sys any,
	size func(ctx context.Context) (int64, error), known func() int64, bound int64) *Info {
	return &Info{
		name: name, mode: mode.Perm(), mtime: mtime, sys: sys,
		ctx: context.WithoutCancel(ctx), size: size, known: known, bound: bound,
	}
}

// Name returns the stream's name.
func (i *Info) Name() string { return i.name }

// Mode returns the permission bits of a regular file.
func (i *Info) Mode() fs.FileMode { return i.mode }

// ModTime returns the modification time.
func (i *Info) ModTime() time.Time { return i.mtime }

// IsDir reports false.
func (i *Info) IsDir() bool { return false }

// Sys returns the stream's header.
func (i *Info) Sys() any { return i.sys }

// SizeKnown reports whether Size would answer without decoding (driver.SizeKnower):
// the pass has run, or another reader has learnt the size.
func (i *Info) SizeKnown() bool {
	i.mu.Lock()
	done := i.done
	i.mu.Unlock()
	return done || i.known != nil && i.known() >= 0
}

// Size returns the size of the stream, decoding it to its end on the
// first call unless it is already known. See the package documentation
// for what it returns when the stream is bad.
func (i *Info) Size() int64 {
	n, _ := i.get()
	return n
}

// Err returns the error of computing the size, nil when it succeeded. It
// computes the size when that has not been done yet.
func (i *Info) Err() error {
	_, err := i.get()
	return err
}

// Known returns the size and true when it is known without decoding.
func (i *Info) Known() (int64, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.done {
		return i.n, i.err == nil
	}
	if i.known != nil {
		if n := i.known(); n >= 0 {
			i.done, i.n = true, n
			return n, true
		}
	}
	return 0, false
}

func (i *Info) get() (int64, error) {
	if n, ok := i.Known(); ok {
		return n, nil
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.done {
		return i.n, i.err
	}
	n, err := i.size(i.ctx)
	if err == nil {
		i.done, i.n = true, n
		return n, nil
	}
	if errors.Is(err, driver.ErrCorrupt) || errors.Is(err, driver.ErrLimit) {
		i.done, i.n, i.err = true, i.bound, err
	}
	return i.bound, err
}
