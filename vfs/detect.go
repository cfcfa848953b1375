package vfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"
)

// maxSniff caps what detection reads from each end of a file, whatever a
// format asks for.
const maxSniff = 1 << 20

// Detect returns the adapter sub-URL of the one registered file format
// whose signature matches b. It reads at most a prefix and a suffix of b.
// No match, or more than one, is an error matching ErrUnknownFormat that
// names the candidates.
//
// Formats with no Tail (a signature at the start) are tried first, on the
// head alone: when exactly one matches, it is the answer and the formats
// found at the end (zip) are not consulted, so b is not decoded to its end
// just to learn its size (a decompressed stream's size is known only after
// a pass over it). Otherwise every format is tried on the head and the
// tail. The rule does not depend on whether b's size is known, so the
// answer is the same on every open. When no format matches, the one format
// whose Hint matches b's start is the answer: a file that names a format
// but is not a whole one (a zip cut short) opens as that format, which
// reports what is wrong, rather than passing as a plain file.
func (g *Registry) Detect(ctx context.Context, b driver.Blob) (SubURL, error) {
	return detectFile(ctx, g, b)
}

func detectFile(ctx context.Context, reg *Registry, b driver.Blob) (SubURL, error) {
	var cands []*Format
	head, tail := 0, 0
	for _, f := range reg.Formats() {
		if f.Input != KindFile {
			continue
		}
		cands = append(cands, f)
		head = max(head, f.Head, f.Offset+len(f.Magic), len(f.Hint))
		tail = max(tail, f.Tail)
	}
	info := b.Stat()
	if head > 0 {
		// Head signatures first, always: the answer must not depend on
		// whether the size happens to be known yet.
		if f, err := matchHead(ctx, cands, b, min(head, maxSniff)); f != nil || err != nil {
			if err != nil {
				return SubURL{}, err
			}
			return parseAdapter(f.Adapter)
		}
	}
	size := info.Size()
	if size < 0 {
		return SubURL{}, driver.Corruptf("negative size %d", size)
	}
	head = int(min(int64(min(head, maxSniff)), size))
	tail = int(min(int64(min(tail, maxSniff)), size))
	hb, err := readFull(ctx, b, head, 0)
	if err != nil {
		return SubURL{}, err
	}
	var tb []byte
	if tail > 0 && int64(tail) == size && tail <= head {
		tb = hb[:tail]
	} else if tail > 0 {
		// The tail is read at random, for the end records it may
		// hold: declared, so that a file stored inside a remote
		// archive fetches those bytes and not the blocks around them.
		if err := driver.Prefetch(driver.Unverified(ctx), b, size-int64(tail), int64(tail)); err != nil {
			return SubURL{}, err
		}
		if tb, err = readFull(ctx, b, tail, size-int64(tail)); err != nil {
			return SubURL{}, err
		}
	}
	var matched []*Format
	for _, f := range cands {
		if f.matches(hb, tb, size) {
			matched = append(matched, f)
		}
	}
	if len(matched) == 0 {
		if f := hinted(cands, hb); f != nil {
			// The file says it is f but is not a whole one: opening
			// it as f reports what is wrong.
			return parseAdapter(f.Adapter)
		}
	}
	switch len(matched) {
	case 1:
		return parseAdapter(matched[0].Adapter)
	case 0:
		return SubURL{}, fmt.Errorf("%w: no registered format matches (tried %s)", ErrUnknownFormat, formatNames(cands))
	default:
		return SubURL{}, fmt.Errorf("%w: several formats match: %s; name one with an adapter", ErrUnknownFormat, formatNames(matched))
	}
}

// matchHead returns the one format among cands with no Tail that matches
// the first n bytes of b, nil if none or several do, or if b is shorter
// (a short stream is decoded to its end by the read, so its size is
// known and cheap).
func matchHead(ctx context.Context, cands []*Format, b driver.Blob, n int) (*Format, error) {
	hb := make([]byte, n)
	m, err := b.ReadAt(driver.Unverified(ctx), hb, 0)
	if m < n {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	var match *Format
	for _, f := range cands {
		if f.Tail > 0 || !f.matches(hb, nil, int64(n)) {
			continue
		}
		if match != nil {
			return nil, nil
		}
		match = f
	}
	return match, nil
}

func (f *Format) matches(head, tail []byte, size int64) bool {
	if f.Magic != "" {
		if !hasSig(head, f.Offset, f.Magic) {
			return false
		}
		if f.Match == nil {
			return true
		}
	}
	return f.Match(head, tail, size)
}

// hinted returns the one format among cands whose Hint matches head, nil
// if none or several do.
func hinted(cands []*Format, head []byte) *Format {
	var match *Format
	for _, f := range cands {
		if f.Hint == "" || !hasSig(head, 0, f.Hint) {
			continue
		}
		if match != nil {
			return nil
		}
		match = f
	}
	return match
}

// hasSig reports whether b holds sig at off, '?' matching any byte.
func hasSig(b []byte, off int, sig string) bool {
	if len(b) < off+len(sig) {
		return false
	}
	for i := 0; i < len(sig); i++ {
		if sig[i] != '?' && sig[i] != b[off+i] {
			return false
		}
	}
	return true
}

// Sniff returns the registered file format that b looks like, or nil: the
// format Detect would append, else the one whose Hint matches b's start.
// While b's size is not known (a decompressed stream, see
// driver.SizeKnower), only signatures at the start are tried, so sniffing
// never decodes b to its end. Errors reading b count as no match. It is
// for messages; NotFormat uses it.
func (g *Registry) Sniff(ctx context.Context, b driver.Blob) *Format {
	var cands []*Format
	head := 0
	for _, f := range g.Formats() {
		if f.Input == KindFile {
			cands = append(cands, f)
			head = max(head, f.Head, f.Offset+len(f.Magic), len(f.Hint))
		}
	}
	if k, ok := b.Stat().(driver.SizeKnower); !ok || k.SizeKnown() {
		if u, err := detectFile(ctx, g, b); err == nil {
			for _, f := range cands {
				if a, err := parseAdapter(f.Adapter); err == nil && a.Scheme == u.Scheme {
					return f
				}
			}
		}
		return nil
	}
	hb := make([]byte, min(head, maxSniff))
	n, _ := b.ReadAt(driver.Unverified(ctx), hb, 0)
	hb = hb[:n]
	var match *Format
	for _, f := range cands {
		if f.Tail > 0 || !f.matches(hb, nil, int64(n)) {
			continue
		}
		if match != nil {
			return nil
		}
		match = f
	}
	if match == nil {
		match = hinted(cands, hb)
	}
	return match
}

// NotFormat returns an error matching driver.ErrCorrupt for an adapter
// whose input is not what it reads: "not a gzip stream (no gzip magic at
// offset 0)", followed, when the registry of o recognizes b as another
// format, by what it looks like and the adapter to use instead (": the
// data looks like zip; try |zip:"). scheme is the calling adapter's, never
// suggested; what names the expected format ("a gzip stream"); detail, if
// not "", says what is missing. The adapter calls it where its
// signature check fails; it reads at most the ends of b (see Sniff).
// o may be nil (the defaults), and is env.Options in an adapter.
func NotFormat(ctx context.Context, o *Options, b driver.Blob, scheme, what, detail string) error {
	msg := "not " + what
	if detail != "" {
		msg += " (" + detail + ")"
	}
	if f := o.registry().Sniff(ctx, b); f != nil && !strings.EqualFold(strings.TrimSuffix(f.Adapter, ":"), scheme) {
		msg += fmt.Sprintf(": the data looks like %s; try |%s", f.Name, f.Adapter)
	}
	return driver.Corruptf("%s", msg)
}

// readFull reads n bytes at off.
func readFull(ctx context.Context, b driver.Blob, n int, off int64) ([]byte, error) {
	buf := make([]byte, n)
	m, err := b.ReadAt(ctx, buf, off)
	if m == n {
		return buf, nil
	}
	if errors.Is(err, io.EOF) || err == nil {
		err = driver.Corruptf("file is shorter than its size: read %d of %d bytes at %d", m, n, off)
	}
	return nil, err
}

// DetectDir returns the adapter sub-URL of the one registered directory
// format that matches t, among those with Dataset equal to dataset. It
// returns ok false when none matches, and an error matching
// ErrUnknownFormat when several do.
func (g *Registry) DetectDir(ctx context.Context, t driver.Tree, dataset bool) (u SubURL, ok bool, err error) {
	var matched []*Format
	for _, f := range g.Formats() {
		if f.Input != KindDirectory || f.Dataset != dataset {
			continue
		}
		m, err := f.MatchDir(ctx, t)
		if err != nil {
			return SubURL{}, false, fmt.Errorf("detecting %s: %w", f.Name, err)
		}
		if m {
			matched = append(matched, f)
		}
	}
	switch len(matched) {
	case 0:
		return SubURL{}, false, nil
	case 1:
		u, err := parseAdapter(matched[0].Adapter)
		return u, err == nil, err
	default:
		return SubURL{}, false, fmt.Errorf("%w: several formats match: %s; name one with an adapter", ErrUnknownFormat, formatNames(matched))
	}
}

func formatNames(fs []*Format) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = f.Name
	}
	return strings.Join(s, ", ")
}
