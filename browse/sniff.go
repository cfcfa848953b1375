package browse

import (
	"io"
	"io/fs"
	"strings"

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
		inner, stream := h.decodeHead(fm, head, h.reg.HeadLen(), h.opts.EffectiveLimits())
		if !stream {
			return strings.Join(kinds, "|"), true
		}
		head = inner
	}
	return strings.Join(kinds, "|"), false
}

// decodeHead decodes what head, the first bytes of a file of format fm,
// begins with, up to limit bytes, through its adapter's
// vfs.Adapter.DecodeHead; stream is false when the adapter has none (fm
// is no compressed stream). A head cut short decodes as far as it goes,
// and a stream that opening would refuse for lim decodes to what came
// before the refusal.
func (h *Handler) decodeHead(fm *vfs.Format, head []byte, limit int, lim vfs.Limits) (out []byte, stream bool) {
	a := h.reg.Adapter(strings.TrimSuffix(fm.Adapter, ":"))
	if a == nil || a.DecodeHead == nil {
		return nil, false
	}
	out, _ = a.DecodeHead(head, limit, lim)
	return out, true
}
