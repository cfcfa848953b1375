package main

import (
	"bytes"
	"compress/bzip2"
	"io"
	"io/fs"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// maxStreamDepth bounds how many compressed streams inside one another
// sniff looks through ("a.tar.gz.xz" is two).
const maxStreamDepth = 3

// sniff returns the kind of the file name of fsys as detection would see
// it from its first bytes alone ("zip", "gzip|tar", "png"), or "" when no
// format matches, and whether detection opens it as a folder: a
// container, a dataset or an image. A compressed stream is a folder only
// when what it holds is one: a tar.gz is, a gzip of text ("gzip") is not.
// It decodes at most the head it read, so a listing costs one head read
// per file.
func (s *server) sniff(fsys fs.FS, name string) (kind string, folder bool) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	ra, ok := f.(io.ReaderAt)
	if !ok {
		return "", false
	}
	head := make([]byte, s.reg.HeadLen())
	n, _ := ra.ReadAt(head, 0)
	head = head[:n]
	var kinds []string
	for range maxStreamDepth + 1 {
		fm := s.reg.SniffHead(head)
		if fm == nil {
			return strings.Join(kinds, "|"), false
		}
		kinds = append(kinds, strings.TrimSuffix(fm.Name, " (skippable frame first)"))
		inner, stream := decodeHead(fm.Name, head, s.reg.HeadLen())
		if !stream {
			return strings.Join(kinds, "|"), true
		}
		head = inner
	}
	return strings.Join(kinds, "|"), false
}

// decodeHead decodes what head, the first bytes of a stream of the
// format named format, begins with, up to limit bytes; stream is false when
// format is no compressed stream. A head cut short decodes as far as it
// goes.
func decodeHead(format string, head []byte, limit int) (out []byte, stream bool) {
	r := bytes.NewReader(head)
	var dec io.Reader
	switch {
	case format == "gzip":
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, true
		}
		dec = z
	case format == "bzip2":
		dec = bzip2.NewReader(r)
	case format == "xz":
		z, err := xz.NewReader(r)
		if err != nil {
			return nil, true
		}
		dec = z
	case strings.HasPrefix(format, "zstd"):
		z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(1<<27))
		if err != nil {
			return nil, true
		}
		defer z.Close()
		dec = z
	default:
		return nil, false
	}
	out = make([]byte, limit)
	n, _ := io.ReadFull(dec, out)
	return out[:n], true
}
