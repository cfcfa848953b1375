package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// A Pipeline is a parsed URL pipeline: a root sub-URL followed by zero or
// more adapter sub-URLs, outer to inner. The zero value is not a valid
// pipeline. Values returned by [Parse] are canonical: their String method
// gives the canonical text of SPEC section 4.
type Pipeline []SubURL

// A SubURL is one "|"-separated layer of a pipeline.
//
// All text fields hold the text exactly as written (percent escapes keep
// their spelling); use the accessor methods ([SubURL.Key],
// [SubURL.DecodedPath], [SubURL.Host], [SubURL.Bucket], [SubURL.Version],
// [SubURL.Range], [SubURL.Pointer]) for decoded values. The Authority of
// s3 and gs is the bucket, and that of ocdbt and icechunk the version; a
// memory:// sub-URL has no host, so its Authority is always empty and the
// text after "//" is its Path.
type SubURL struct {
	Scheme       string // lower case, never empty
	HasAuthority bool   // the sub-URL has "//" after the colon
	Authority    string // raw text after "//" up to the path (empty for memory://)
	Path         string // raw path, percent escapes as written
	HasQuery     bool   // the sub-URL has a "?"
	Query        string // raw query, without the "?"
}

// Kind is the kind of resource a sub-URL yields or needs.
type Kind uint8

// The resource kinds of SPEC section 2.
const (
	KindUnknown   Kind = iota // vendor schemes: anything, never a mismatch
	KindFile                  // random-access bytes
	KindDirectory             // a tree of files
	KindDataset               // an array or group with a format
	KindAny                   // a file or a directory, settled at open time
)

// ErrSyntax is matched (with errors.Is) by every error from [Parse].
var ErrSyntax = errors.New("invalid pipeline")

// A SyntaxError reports an invalid pipeline: what is wrong and where.
// It matches both [ErrSyntax] and [fs.ErrInvalid].
type SyntaxError struct {
	Input string // the whole text given to Parse or Resolve
	Index int    // 0-based index of the offending sub-URL, or -1 for the whole input
	Sub   string // the text of the offending sub-URL (or the offending part)
	Msg   string // what is wrong
}

// Error returns the message, naming the offending sub-URL by its index and
// text.
func (e *SyntaxError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("invalid pipeline %q: %s", e.Input, e.Msg)
	}
	return fmt.Sprintf("invalid pipeline: sub-URL %d %q: %s", e.Index, e.Sub, e.Msg)
}

// Unwrap lets errors.Is match [ErrSyntax] and [fs.ErrInvalid].
func (e *SyntaxError) Unwrap() []error { return []error{ErrSyntax, fs.ErrInvalid} }

// String returns the canonical text of u.
func (u SubURL) String() string {
	var b strings.Builder
	b.WriteString(u.Scheme)
	b.WriteByte(':')
	if u.HasAuthority {
		b.WriteString("//")
		b.WriteString(u.Authority)
	}
	b.WriteString(u.Path)
	if u.HasQuery {
		b.WriteByte('?')
		b.WriteString(u.Query)
	}
	return b.String()
}

// String returns the pipeline's text, its sub-URLs joined by "|".
func (p Pipeline) String() string {
	var b strings.Builder
	for i, u := range p {
		if i > 0 {
			b.WriteByte('|')
		}
		b.WriteString(u.String())
	}
	return b.String()
}
