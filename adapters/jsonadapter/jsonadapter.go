// Package jsonadapter registers the json: adapter of pipefs, which reads a
// JSON document and yields the value an RFC 6901 pointer names:
//
//	file:/d/a.json|json:            the whole document
//	file:/d/a.json|json:/a/~1b/0    the value at /a, key "/b", index 0
//
// The result is a file whose bytes are the value exactly as the document
// writes it (for the whole document, the document itself). Its
// Stat().Sys() (wrapped by pipefs in a *vfs.Origin, as Header) is a
// *Value holding the pointer and the decoded value.
//
// A token that names no member or element, an array index that is not a
// decimal number without leading zeros, "-", or a step into a scalar gives
// an error matching fs.ErrNotExist. A document that is not valid JSON
// gives an error matching vfs.ErrCorrupt. The document is read whole, up
// to Options.MaxBytes (an error matching vfs.ErrLimit beyond).
//
// The adapter is safe for concurrent use; the file it yields holds its
// bytes in memory.
package jsonadapter

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "json", Input: vfs.KindFile, Open: open})
}

// Options configure the json: adapter; pass a *Options under "json" in
// vfs.Options.Schemes. Nil means defaults.
type Options struct {
	// MaxBytes bounds the document size. Default DefaultMaxBytes; a
	// negative value means vfs.Limits.MaxFileSize.
	MaxBytes int64
}

// DefaultMaxBytes is the default document size limit: a document is
// decoded in memory, at several times its size.
const DefaultMaxBytes = 64 << 20

// A Value is the Sys of the file the adapter yields.
type Value struct {
	// Pointer holds the decoded reference tokens; nil for the whole
	// document.
	Pointer []string
	// Data is the decoded value: nil, bool, json.Number, string,
	// []any or map[string]any (numbers are json.Number, so that no
	// precision is lost).
	Data any
}

func open(ctx context.Context, in vfs.Location, u vfs.SubURL, o *vfs.Options) (vfs.Location, error) {
	if in.Blob == nil {
		return vfs.Location{}, fmt.Errorf("json: the base is not a file: %w", vfs.ErrIsDir)
	}
	max := int64(DefaultMaxBytes)
	if opt := vfs.SchemeOptions[*Options](o, "json"); opt != nil && opt.MaxBytes != 0 {
		max = opt.MaxBytes
		if max < 0 {
			max = o.EffectiveLimits().MaxFileSize
		}
	}
	doc, err := readAll(ctx, in.Blob, max)
	if err != nil {
		return vfs.Location{}, err
	}
	tokens := u.Pointer()
	raw, err := Lookup(doc, tokens)
	if err != nil {
		return vfs.Location{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return vfs.Location{}, vfs.Corruptf("json: %v", err)
	}
	base := in.Blob.Stat()
	name := base.Name()
	if len(tokens) > 0 {
		name = tokens[len(tokens)-1]
	}
	info := &vfs.FileInfo{FName: name, FSize: int64(len(raw)), FMode: 0o444, FModTime: base.ModTime(),
		FSys: &Value{Pointer: tokens, Data: v}}
	return vfs.Location{Blob: vfs.BytesBlob(raw, info)}, nil
}

// readAll reads b whole, failing beyond max bytes.
func readAll(ctx context.Context, b vfs.Blob, max int64) ([]byte, error) {
	size := b.Stat().Size()
	if size > max {
		return nil, vfs.Limitf("json: document of %d bytes exceeds the limit of %d", size, max)
	}
	buf := make([]byte, size)
	n, err := b.ReadAt(ctx, buf, 0)
	if n == len(buf) && (err == nil || err == io.EOF) {
		return buf, nil
	}
	if err == nil || err == io.EOF {
		err = vfs.Corruptf("json: short read: %d of %d bytes", n, size)
	}
	return nil, err
}

// Lookup returns the bytes of the value that the reference tokens name in
// doc, as doc writes them (leading and trailing space trimmed). No tokens
// names the whole document, which must be valid JSON.
func Lookup(doc []byte, tokens []string) ([]byte, error) {
	if !json.Valid(doc) {
		return nil, vfs.Corruptf("json: the document is not valid JSON")
	}
	cur := json.RawMessage(bytes.TrimSpace(doc))
	for i, tok := range tokens {
		at := "/" + strings.Join(tokens[:i+1], "/")
		switch cur[0] {
		case '{':
			var m map[string]json.RawMessage
			if err := json.Unmarshal(cur, &m); err != nil {
				return nil, vfs.Corruptf("json: %v", err)
			}
			v, ok := m[tok]
			if !ok {
				return nil, fmt.Errorf("json: no member %q at %s: %w", tok, at, fs.ErrNotExist)
			}
			cur = v
		case '[':
			var a []json.RawMessage
			if err := json.Unmarshal(cur, &a); err != nil {
				return nil, vfs.Corruptf("json: %v", err)
			}
			idx, err := strconv.Atoi(tok)
			if err != nil || idx < 0 || tok != strconv.Itoa(idx) || idx >= len(a) {
				return nil, fmt.Errorf("json: no element %q at %s (array of %d): %w", tok, at, len(a), fs.ErrNotExist)
			}
			cur = a[idx]
		default:
			return nil, fmt.Errorf("json: %s: a scalar has no member %q: %w", at, tok, fs.ErrNotExist)
		}
		cur = bytes.TrimSpace(cur)
	}
	return cur, nil
}
