package browse

import (
	"bytes"
	"compress/bzip2"
	"io"
	"io/fs"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/pipefs/pipefs/adapters/xzadapter"
	"github.com/pipefs/pipefs/adapters/zstdadapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
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
func (h *Handler) sniff(fsys fs.FS, name string) (kind string, folder bool) {
	if v, ok := fsys.(*vfs.FS); ok {
		// The head only chooses a kind: it is read unchecked, as format
		// detection reads (driver.Unverified).
		fsys = v.WithContext(driver.Unverified(v.Context()))
	}
	f, err := fsys.Open(name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	ra, ok := f.(io.ReaderAt)
	if !ok {
		return "", false
	}
	head := make([]byte, h.reg.HeadLen())
	n, _ := ra.ReadAt(head, 0)
	head = head[:n]
	var kinds []string
	for range maxStreamDepth + 1 {
		fm := h.reg.SniffHead(head)
		if fm == nil {
			return strings.Join(kinds, "|"), false
		}
		kinds = append(kinds, strings.TrimSuffix(fm.Name, " (skippable frame first)"))
		inner, stream := decodeHead(fm.Name, head, h.reg.HeadLen(), h.opts.EffectiveLimits())
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
// goes. A stream that opening would refuse for lim (an xz dictionary or a
// zstd window over lim.MaxWindow) decodes to nothing; the others decode
// within a window bounded by limit (and one LZMA2 chunk or zstd block),
// whatever their header declares (xzadapter.DecodeHead,
// zstdadapter.DecodeHead), since a listing decodes the head of every file
// it shows.
func decodeHead(format string, head []byte, limit int, lim vfs.Limits) (out []byte, stream bool) {
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
		out, _ = xzadapter.DecodeHead(head, limit, lim)
		return out, true
	case strings.HasPrefix(format, "zstd"):
		out, _ = zstdadapter.DecodeHead(head, limit, lim)
		return out, true
	default:
		return nil, false
	}
	out = make([]byte, limit)
	n, _ := io.ReadFull(dec, out)
	return out[:n], true
}
