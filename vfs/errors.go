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

	// ErrModified: an object changed after it was opened (a remote
	// object read, or a blob that driver.Revalidator checked).
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
//
// A sub-URL that format detection appended is not in the pipeline the
// caller opened: Detected is then set, and Pipeline is the pipeline read,
// up to and including the sub-URL, so that the message can show where it
// is.
type StageError struct {
	Index    int    // 0-based index of the sub-URL in the pipeline
	URL      string // canonical text of the sub-URL
	Detected bool   // the sub-URL was appended by format detection
	Pipeline string // with Detected: the pipeline read, up to the sub-URL
	Err      error
}

// Error returns the message, naming the sub-URL by its index and text,
// and for a detected one the pipeline that holds it:
// `sub-URL 2 "gzip:" (detected, in file:/d/a.zip|zip:b.gz|gzip:): ...`.
// The message shows the texts in their display form (see
// [SubURL.Display]), as people type them: `sub-URL 1 "zip:odd names"`
// where URL holds the canonical "zip:odd%20names". URL and Pipeline stay
// canonical, and the *fs.PathError that Open and OpenFS wrap a StageError
// in names the canonical pipeline.
func (e *StageError) Error() string {
	if e.Detected {
		return fmt.Sprintf("sub-URL %d %q (detected, in %s): %v", e.Index, DisplayText(e.URL), DisplayText(e.Pipeline), e.Err)
	}
	return fmt.Sprintf("sub-URL %d %q: %v", e.Index, DisplayText(e.URL), e.Err)
}

// markDetected marks the StageError in err as detected when it names a
// sub-URL of read, the pipeline that opening written resolved to, that
// format detection appended to written.
func markDetected(err error, written, read Pipeline) {
	var se *StageError
	if !errors.As(err, &se) || se.Index < len(written) || se.Index >= len(read) || se.URL != read[se.Index].String() {
		return
	}
	se.Detected, se.Pipeline = true, read[:se.Index+1].String()
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
