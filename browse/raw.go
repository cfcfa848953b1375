package browse

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// serveRaw answers a request for the file t names with its bytes, through
// http.ServeContent: Range requests, and conditional requests against its
// Last-Modified time and a strong ETag. A directory is redirected to its
// page (the path with a trailing "/").
//
// The file's first block is read before any header is written, so that a
// file that cannot be read (a type that is not read, corrupt data) gets
// an error page instead of a 200 whose body breaks off; a read that fails
// later, once the body has started, can only cut the connection, and is
// logged. The elements of a dataset (an HDF5 dataset, decoded pixels) are
// served as application/octet-stream. Every file is served with
// "X-Content-Type-Options: nosniff" and "Content-Security-Policy:
// sandbox": an archive's HTML is shown, but cannot run scripts as the
// site.
func (h *Handler) serveRaw(w http.ResponseWriter, r *http.Request, t *target) {
	if t.info.IsDir() {
		// The path as requested (splitPath checked it), so that names
		// holding "?" or "#" stay escaped.
		target := r.URL.EscapedPath() + "/"
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		w.Header().Set("Location", target)
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	h.serveFile(w, r, t.l.fsys.WithContext(r.Context()), t.name, t.info, t)
}

// serveFile serves the regular file name of fsys, described by info.
func (h *Handler) serveFile(w http.ResponseWriter, r *http.Request, fsys *vfs.FS, name string, info fs.FileInfo, t *target) {
	if !info.Mode().IsRegular() {
		h.fail(w, r, t, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w: not a regular file (%s)", errors.ErrUnsupported, info.Mode().Type())})
		return
	}
	if err := readFirst(fsys, name, rangeStart(r)); err != nil {
		h.fail(w, r, t, err)
		return
	}
	f, err := fsys.OpenFile(name)
	if err != nil {
		h.fail(w, r, t, err)
		return
	}
	defer f.Close()
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", "sandbox")
	hdr.Set("ETag", etag(info, fileVersion(t.l, f)))
	if isDataset(info) {
		hdr.Set("Content-Type", "application/octet-stream")
	}
	lf := &logFile{File: f, h: h, req: r, name: name}
	http.ServeContent(w, r, path.Base(name), info.ModTime(), lf)
}

// firstBlock is how many bytes of a file the handler reads before it answers:
// as many as http.ServeContent sniffs.
const firstBlock = 512

// readFirst reads the first block at off of the file name of fsys: the
// start of the file, or of the range a request asks for, so that a range
// near the end of a large member or dataset does not decode its start.
func readFirst(fsys fs.FS, name string, off int64) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, firstBlock)
	if ra, ok := f.(io.ReaderAt); ok {
		_, err = ra.ReadAt(buf, off)
	} else {
		_, err = io.ReadFull(f, buf)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}

// rangeStart returns the first byte of the first range a request asks for
// ("Range: bytes=N-..."), or 0.
func rangeStart(r *http.Request) int64 {
	spec, ok := strings.CutPrefix(r.Header.Get("Range"), "bytes=")
	if !ok {
		return 0
	}
	start, _, _ := strings.Cut(spec, "-")
	n, err := strconv.ParseInt(strings.TrimSpace(start), 10, 64)
	if err != nil || n < 0 {
		return 0 // a suffix range (bytes=-N) or a malformed one
	}
	return n
}

// isDataset reports whether info describes a file that an adapter
// yielding datasets gives (the elements of an HDF5 dataset, the pixels
// of an image), whose bytes hold no content type to sniff.
func isDataset(info fs.FileInfo) bool {
	o, ok := info.Sys().(*vfs.Origin)
	if !ok {
		return false
	}
	p, err := vfs.Parse(o.URL)
	if err != nil || len(p) == 0 {
		return false
	}
	_, yields, ok := vfs.SchemeKinds(p[len(p)-1].Scheme)
	return ok && yields == vfs.KindDataset
}

// logFile is a file being served: it logs its first read error, which
// http.ServeContent drops once the body has started.
type logFile struct {
	*vfs.File
	h      *Handler
	req    *http.Request
	name   string
	logged bool
}

func (f *logFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	if err != nil && err != io.EOF && !f.logged && f.req.Context().Err() == nil {
		f.logged = true
		f.h.logger.Error("reading a file failed after its body started", "method", f.req.Method, "path", f.req.URL.Path, "name", f.name, "err", f.h.errorText(err))
	}
	return n, err
}

// fileVersion names the version of the bytes that f, a file of l, reads:
// the fingerprint of its own blob (a file of a directory tree), or else
// that of l's base (an archive member, a decompressed stream).
func fileVersion(l *layer, f *vfs.File) string {
	var fp driver.Fingerprinter
	if f.As(&fp) {
		if v := fp.Fingerprint(); v != "" {
			return v
		}
	}
	if l.base != nil {
		return l.base.version
	}
	return ""
}

// etag is a strong entity tag for a file: a hash of its canonical URL, the
// version of what it is read from (see fileVersion), and its size and
// modification time. A file whose bytes changed gets another tag, even
// when its own size and time did not change (a member of an archive
// rewritten in place).
func etag(info fs.FileInfo, version string) string {
	h := fnv.New64a()
	if o, ok := info.Sys().(*vfs.Origin); ok {
		fmt.Fprint(h, o.URL)
	}
	fmt.Fprint(h, "\x00", version, "\x00", info.Size(), "\x00", info.ModTime().UnixNano())
	return fmt.Sprintf(`"%016x"`, h.Sum64())
}
