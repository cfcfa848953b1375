package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
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
	// ErrModified: a remote object changed after it was opened.
	ErrModified = errors.New("object modified since open")
	// ErrLimit: input exceeded a configured limit (see Limits).
	ErrLimit = errors.New("limit exceeded")
	// ErrUnsafePath: a name in a container is not safe to expose ("..",
	// absolute, backslash, drive letter) or a link leaves the tree.
	ErrUnsafePath = errors.New("unsafe path")
	// ErrIsDir: a regular file was wanted but the name is a directory.
	ErrIsDir = errors.New("is a directory")
	// ErrNotDir: a directory was wanted but the name is a regular file.
	ErrNotDir = errors.New("not a directory")
	// ErrCorrupt: the data is malformed (a bad archive, a bad checksum,
	// a truncated stream). It matches fs.ErrInvalid too.
	ErrCorrupt = corruptError{}
)

type corruptError struct{}

func (corruptError) Error() string        { return "corrupt data" }
func (corruptError) Is(target error) bool { return target == fs.ErrInvalid }
func (e corruptError) Unwrap() error      { return nil }

// Corruptf returns an error matching ErrCorrupt and fs.ErrInvalid, with the
// formatted message. Drivers use it for malformed input.
func Corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// Limitf returns an error matching ErrLimit, with the formatted message.
func Limitf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrLimit, fmt.Sprintf(format, args...))
}

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

// SafePath reports whether name, a member name of an archive or store,
// may be exposed in a tree: an fs.ValidPath name other than "." (no
// empty, "." or ".." element, no leading or trailing slash, valid UTF-8)
// with no backslash or NUL and no drive letter ("C:") in front. It is the
// rule behind ErrUnsafePath that the archive adapters apply; an adapter
// cleans what its format allows (such as a trailing "/") first.
func SafePath(name string) bool {
	if name == "." || !fs.ValidPath(name) || strings.ContainsAny(name, "\\\x00") {
		return false
	}
	if len(name) >= 2 && name[1] == ':' && ('a' <= name[0]|0x20 && name[0]|0x20 <= 'z') {
		return false
	}
	return true
}
