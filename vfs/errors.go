package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/pipefs/pipefs/vfs/driver"
)

// Sentinel errors, for errors.Is. Errors from this package and its drivers
// wrap them (and the matching io/fs sentinel where one applies).
var (
	// ErrUnknownScheme: the scheme is well formed but nothing is registered
	// for it. The message lists the registered schemes.
	ErrUnknownScheme = errors.New("unknown scheme")
	// ErrUnknownFormat: format detection found no matching format, or
	// several.
	ErrUnknownFormat = errors.New("unknown format")
	// The sentinels that drivers return, re-exported for callers as os
	// re-exports those of io/fs: vfs.ErrCorrupt is driver.ErrCorrupt.

	// ErrModified: a remote object changed after it was opened.
	ErrModified = driver.ErrModified
	// ErrLimit: input exceeded a configured limit (see Limits).
	ErrLimit = driver.ErrLimit
	// ErrUnsafePath: a name in a container is not safe to expose ("..",
	// absolute, backslash, drive letter) or a link leaves the tree.
	ErrUnsafePath = driver.ErrUnsafePath
	// ErrIsDir: a regular file was wanted but the name is a directory.
	ErrIsDir = driver.ErrIsDir
	// ErrNotDir: a directory was wanted but the name is a regular file.
	ErrNotDir = driver.ErrNotDir
	// ErrCorrupt: the data is malformed (a bad archive, a bad checksum,
	// a truncated stream). It matches fs.ErrInvalid too.
	ErrCorrupt = driver.ErrCorrupt
)

// A StageError reports which sub-URL of a pipeline failed. It unwraps to the
// underlying error, so errors.Is(err, fs.ErrNotExist) and the like still
// work.
type StageError struct {
	Index int    // 0-based index of the sub-URL in the pipeline
	URL   string // canonical text of the sub-URL
	Err   error
}

// Error returns the message, naming the sub-URL by its index and text.
func (e *StageError) Error() string {
	return fmt.Sprintf("sub-URL %d %q: %v", e.Index, e.URL, e.Err)
}

// Unwrap returns the underlying error.
func (e *StageError) Unwrap() error { return e.Err }

// stageErr wraps err in a StageError for sub-URL i of p, unless err already
// names a stage.
func stageErr(p Pipeline, i int, err error) error {
	var se *StageError
	if errors.As(err, &se) {
		return err
	}
	return &StageError{Index: i, URL: p[i].String(), Err: unwrapPath(err)}
}

// unwrapPath strips an outer *fs.PathError so that its message is not
// repeated, keeping any StageError around it.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
