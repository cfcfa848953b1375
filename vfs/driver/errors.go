package driver

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Sentinel errors, for errors.Is. Drivers wrap them (and the matching io/fs
// sentinel where one applies); package vfs re-exports them.
var (
	// ErrModified: an object changed after it was opened (a remote
	// object read, or a blob that driver.Revalidator checked).
	ErrModified = errors.New("object modified since open")
	// ErrLimit: input exceeded a configured limit (see vfs.Limits).
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

// Limitf returns an error matching ErrLimit, "limit exceeded: " followed by
// the formatted message, which should name the Limits field to raise.
func Limitf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrLimit, fmt.Sprintf(format, args...))
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
