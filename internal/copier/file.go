package copier

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/pipefs/pipefs/vfs"
)

// Suffixes of the files a copy keeps beside NAME while it runs.
const (
	// PartialSuffix names the bytes copied so far: NAME.pipefs-partial,
	// renamed to NAME once complete and verified.
	PartialSuffix = ".pipefs-partial"
	// SourceSuffix names the record of the source that a partial copy
	// was copied from (as JSON), for Copier.Resume.
	SourceSuffix = ".pipefs-source"
)

// A fileCopier writes copies below one local directory, through an
// os.Root, so that nothing it writes lands outside that directory.
type fileCopier struct {
	ctx     context.Context
	root    *os.Root
	resume  bool                // Copier.Resume
	verbose io.Writer           // Copier.Verbose, or the lines of one entry
	prog    Counter             // counts the bytes written
	quote   func(string) string // Copier.Quote
	version string              // the fingerprint of the source's container, if any
}

// A source is a regular file to copy: what a listing said of it, and how
// to open it.
type source struct {
	info fs.FileInfo
	url  string
	open func() (*vfs.File, error)
}

// zipCRC returns the CRC-32 that the zip header of info records, or nil
// when info is not a zip member or its header records none (archive/zip
// also takes 0 for "not set").
func zipCRC(info fs.FileInfo) *uint32 {
	h := info.Sys()
	if o, ok := h.(*vfs.Origin); ok {
		h = o.Header
	}
	if zh, ok := h.(*zip.FileHeader); ok && (zh.CRC32 != 0 || zh.UncompressedSize64 == 0) {
		return &zh.CRC32
	}
	return nil
}

// originURL is the canonical pipeline of the file info describes, or def.
func originURL(info fs.FileInfo, def string) string {
	if o, ok := info.Sys().(*vfs.Origin); ok && o.URL != "" {
		return o.URL
	}
	return def
}

// display is how a message names name below the root.
func (c *fileCopier) display(name string) string {
	return filepath.Join(c.root.Name(), filepath.FromSlash(name))
}

// copyFile copies src to name below the root: into name+PartialSuffix,
// verified (size, and the CRC-32 of a zip member), then renamed to name
// with the source's permission bits and modification time. With resume,
// a complete name is kept, and a partial copy of the same source
// continues where it stopped; a failed copy is kept for the next
// --continue. Without, a failed copy is removed.
func (c *fileCopier) copyFile(name string, src source) error {
	err := c.copyFileOnce(name, src, c.resume)
	if errors.Is(err, errResumedMismatch) {
		// The bytes copied before did not belong to this source after
		// all: copy it again from the start.
		err = c.copyFileOnce(name, src, false)
	}
	return err
}

// errResumedMismatch is returned when a resumed copy fails verification.
var errResumedMismatch = errors.New("a resumed copy does not match its source")

func (c *fileCopier) copyFileOnce(name string, src source, resume bool) (err error) {
	partial, record := name+PartialSuffix, name+SourceSuffix
	wantCRC := zipCRC(src.info)
	var id *sourceID
	var off int64
	var sum crc32Sum // of the copy, from its first byte
	if resume {
		id = &sourceID{URL: src.url, Size: src.info.Size(), ModTime: src.info.ModTime(), Version: c.version, CRC32: wantCRC}
		skip, n, err := c.resumePoint(name, id, &sum)
		if err != nil {
			return fmt.Errorf("%s: resuming %s: %w", src.url, c.display(name), err)
		}
		if skip {
			c.prog.Add(src.info.Size())
			if c.verbose != nil {
				fmt.Fprintf(c.verbose, "%s -> %s: complete, skipped\n", src.url, c.display(name))
			}
			return nil
		}
		off = n
	}
	f, err := src.open()
	if err != nil {
		return err
	}
	defer f.Close()
	if off > 0 {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return err
		}
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if off > 0 {
		flag = os.O_WRONLY | os.O_APPEND
	}
	// Local failures name the source and the copy.
	local := func(err error) error {
		return fmt.Errorf("%s: writing %s: %w", src.url, c.display(name), err)
	}
	perm := permOf(src.info)
	out, err := c.root.OpenFile(partial, flag, perm|0o600)
	if err != nil {
		return local(err)
	}
	if id != nil {
		if err := c.writeRecord(record, id); err != nil {
			out.Close()
			return local(err)
		}
	}
	discard := func() {
		c.root.Remove(partial)
		c.root.Remove(record)
	}
	defer func() {
		if err != nil && !resume {
			discard()
		}
	}()
	c.prog.Add(off)
	w := &writeErr{w: out}
	n, err := io.Copy(io.MultiWriter(w, &sum, c.prog), f)
	if cerr := out.Close(); err == nil && cerr != nil {
		err, w.err = cerr, cerr
	}
	switch {
	case err != nil && w.err != nil:
		err = local(err)
	case err != nil && c.ctx.Err() == nil:
		// A read error: the streamed read of a member may name only
		// the member.
		err = fmt.Errorf("%s: copying: %w", src.url, err)
	}
	if err != nil {
		if resume && c.ctx.Err() == nil {
			return fmt.Errorf("%w (the %d bytes copied are kept in %s: run again with --continue to resume)", err, off+n, c.display(partial))
		}
		return err
	}
	// The size of a stream is known once it has been read to its end.
	if size := f.Size(); off+n != size {
		discard()
		return fmt.Errorf("%s: copied %d bytes, the source has %d; removed the copy: %w", src.url, off+n, size, ErrMismatch)
	}
	if wantCRC != nil && sum.sum != *wantCRC {
		discard()
		if off > 0 {
			c.prog.Add(-(off + n)) // counted again by the copy from the start
			return errResumedMismatch
		}
		return fmt.Errorf("%s: the CRC-32 of the copy is %08x, the zip header records %08x; removed the copy: %w: %w",
			src.url, sum.sum, *wantCRC, ErrMismatch, vfs.ErrCorrupt)
	}
	if err := c.finish(partial, perm, src.info.ModTime()); err != nil {
		discard()
		return local(err)
	}
	if err := c.root.Rename(partial, name); err != nil {
		discard()
		return local(err)
	}
	c.root.Remove(record)
	if c.verbose != nil {
		how := ""
		if off > 0 {
			how = fmt.Sprintf(", resumed at %d", off)
		}
		fmt.Fprintf(c.verbose, "%s -> %s (%d bytes%s)\n", src.url, c.display(name), off+n, how)
	}
	return nil
}

// A writeErr is a writer that remembers its error: a failed copy is told
// apart from a failed read.
type writeErr struct {
	w   io.Writer
	err error
}

func (w *writeErr) Write(b []byte) (int, error) {
	n, err := w.w.Write(b)
	if err != nil {
		w.err = err
	}
	return n, err
}

// A crc32Sum is the CRC-32 (IEEE) of the bytes written to it.
type crc32Sum struct{ sum uint32 }

func (c *crc32Sum) Write(b []byte) (int, error) {
	c.sum = crc32.Update(c.sum, crc32.IEEETable, b)
	return len(b), nil
}

// finish gives the copy name its permission bits, those of perm that the
// umask let through when it was created, and modification time mod.
func (c *fileCopier) finish(name string, perm fs.FileMode, mod time.Time) error {
	st, err := c.root.Stat(name)
	if err != nil {
		return err
	}
	if err := c.root.Chmod(name, st.Mode().Perm()&perm); err != nil {
		return err
	}
	if !mod.IsZero() {
		return c.root.Chtimes(name, mod, mod)
	}
	return nil
}

// permOf returns the permission bits a copy of the file info describes
// gets (before the umask): those of a zip member as archive/zip reads
// them (0666 for a member that records none, as unzip and bsdtar give
// it), else those the location reports.
func permOf(info fs.FileInfo) fs.FileMode {
	h := info.Sys()
	if o, ok := h.(*vfs.Origin); ok {
		h = o.Header
	}
	if zh, ok := h.(*zip.FileHeader); ok {
		if p := zh.Mode().Perm(); p != 0 {
			return p
		}
		return 0o666
	}
	return info.Mode().Perm()
}
