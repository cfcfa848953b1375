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
// gives an error matching driver.ErrCorrupt. The document is read whole, up
// to Options.MaxBytes (an error matching driver.ErrLimit beyond).
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

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: "json", OpenFile: open, Extensions: []string{".json"}})
}

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

func open(ctx context.Context, src driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	doc, err := readAll(ctx, src, env.Limits.MaxDocument)
	if err != nil {
		return driver.Location{}, err
	}
	tokens := u.Pointer()
	raw, err := Lookup(doc, tokens)
	if err != nil {
		return driver.Location{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return driver.Location{}, driver.Corruptf("json: %v", err)
	}
	base := src.Stat()
	name := base.Name()
	if len(tokens) > 0 {
		name = tokens[len(tokens)-1]
	}
	info := &driver.FileInfo{FName: name, FSize: int64(len(raw)), FMode: 0o444, FModTime: base.ModTime(),
		FSys: &Value{Pointer: tokens, Data: v}}
	return driver.Location{Blob: driver.BytesBlob(raw, info)}, nil
}

// readAll reads b whole, failing beyond max bytes.
func readAll(ctx context.Context, b driver.Blob, max int64) ([]byte, error) {
	size := b.Stat().Size()
	if size > max {
		return nil, driver.Limitf("json: document of %d bytes exceeds Limits.MaxDocument (%d)", size, max)
	}
	buf := make([]byte, size)
	n, err := b.ReadAt(ctx, buf, 0)
	if n == len(buf) && (err == nil || err == io.EOF) {
		return buf, nil
	}
	if err == nil || err == io.EOF {
		err = driver.Corruptf("json: short read: %d of %d bytes", n, size)
	}
	return nil, err
}

// Lookup returns the bytes of the value that the reference tokens name in
// doc, as doc writes them (leading and trailing space trimmed). No tokens
// names the whole document, which must be valid JSON.
func Lookup(doc []byte, tokens []string) ([]byte, error) {
	if !json.Valid(doc) {
		return nil, driver.Corruptf("json: the document is not valid JSON")
	}
	cur := json.RawMessage(bytes.TrimSpace(doc))
	for i, tok := range tokens {
		at := "/" + strings.Join(tokens[:i+1], "/")
		switch cur[0] {
		case '{':
			var m map[string]json.RawMessage
			if err := json.Unmarshal(cur, &m); err != nil {
				return nil, driver.Corruptf("json: %v", err)
			}
			v, ok := m[tok]
			if !ok {
				return nil, fmt.Errorf("json: no member %q at %s: %w", tok, at, fs.ErrNotExist)
			}
			cur = v
		case '[':
			var a []json.RawMessage
			if err := json.Unmarshal(cur, &a); err != nil {
				return nil, driver.Corruptf("json: %v", err)
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
