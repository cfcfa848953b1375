package main

import (
	"archive/zip"
	"context"
	"encoding/json"
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
	// partialSuffix names the bytes copied so far: NAME.pipefs-partial,
	// renamed to NAME once complete and verified.
	partialSuffix = ".pipefs-partial"
	// sourceSuffix names the record of the source that a partial copy
	// was copied from (sourceID, as JSON), for --continue.
	sourceSuffix = ".pipefs-source"
)

// A copier writes copies below one local directory, through an os.Root,
// so that nothing it writes lands outside that directory.
type copier struct {
	ctx     context.Context
	root    *os.Root
	resume  bool      // --continue
	verbose io.Writer // -v lines; nil without -v
	prog    *progress // counts the bytes written
	version string    // the fingerprint of the source's container, if any
}

// A source is a regular file to copy: what a listing said of it, and how
// to open it.
type source struct {
	info fs.FileInfo
	url  string
	open func() (*vfs.File, error)
}

// A sourceID is what identifies the bytes of a source, recorded beside a
// partial copy: --continue resumes only a copy of the same bytes.
type sourceID struct {
	URL     string    `json:"url"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime,omitzero"`
	// Version is the fingerprint of the object the source is read from
	// (an ETag or generation with the size, a local file's inode and
	// times), "" when it has none.
	Version string `json:"version,omitempty"`
	// CRC32 is the checksum a zip member's header records, when it
	// records one.
	CRC32 *uint32 `json:"crc32,omitempty"`
}

func (a *sourceID) equal(b *sourceID) bool {
	return a.URL == b.URL && a.Size == b.Size && a.ModTime.Equal(b.ModTime) && a.Version == b.Version &&
		(a.CRC32 == nil) == (b.CRC32 == nil) && (a.CRC32 == nil || *a.CRC32 == *b.CRC32)
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
func (c *copier) display(name string) string {
	return filepath.Join(c.root.Name(), filepath.FromSlash(name))
}

// errVerify is the cause of a copy that does not match its source.
var errVerify = errors.New("the copy does not match the source")

// copyFile copies src to name below the root: into name+partialSuffix,
// verified (size, and the CRC-32 of a zip member), then renamed to name
// with the source's permission bits and modification time. With resume,
// a complete name is kept, and a partial copy of the same source
// continues where it stopped; a failed copy is kept for the next
// --continue. Without, a failed copy is removed.
func (c *copier) copyFile(name string, src source) error {
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

func (c *copier) copyFileOnce(name string, src source, resume bool) (err error) {
	partial, record := name+partialSuffix, name+sourceSuffix
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
			c.prog.done.Add(src.info.Size())
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
	c.prog.done.Add(off)
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
		return fmt.Errorf("%s: copied %d bytes, the source has %d; removed the copy: %w", src.url, off+n, size, errVerify)
	}
	if wantCRC != nil && sum.sum != *wantCRC {
		discard()
		if off > 0 {
			c.prog.done.Add(-(off + n)) // counted again by the copy from the start
			return errResumedMismatch
		}
		return fmt.Errorf("%s: the CRC-32 of the copy is %08x, the zip header records %08x; removed the copy: %w: %w",
			src.url, sum.sum, *wantCRC, errVerify, vfs.ErrCorrupt)
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
func (c *copier) finish(name string, perm fs.FileMode, mod time.Time) error {
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

// resumePoint decides where a --continue copy of name starts. A complete
// name (the source's size, and its CRC-32 when known) is skipped. A
// partial copy of the same source (its record matches id) or a name
// shorter than the source is resumed at its length, its bytes hashed into
// h; anything else is copied again from the start (n is 0).
func (c *copier) resumePoint(name string, id *sourceID, h io.Writer) (skip bool, n int64, err error) {
	partial, record := name+partialSuffix, name+sourceSuffix
	if st, err := c.root.Lstat(name); err == nil && st.Mode().IsRegular() {
		switch {
		case st.Size() == id.Size:
			if id.CRC32 == nil {
				return true, 0, nil
			}
			var sum crc32Sum
			if err := c.hashFile(name, &sum); err != nil {
				return false, 0, err
			}
			if sum.sum == *id.CRC32 {
				return true, 0, nil
			}
			return false, 0, nil // the same size, other bytes
		case st.Size() < id.Size:
			if _, err := c.root.Lstat(partial); errors.Is(err, fs.ErrNotExist) {
				// A shorter name, copied by another program or
				// before pipefs kept partial copies apart: resume it.
				if err := c.root.Rename(name, partial); err != nil {
					return false, 0, err
				}
				if err := c.writeRecord(record, id); err != nil {
					return false, 0, err
				}
			}
		}
	}
	st, err := c.root.Lstat(partial)
	if errors.Is(err, fs.ErrNotExist) {
		return false, 0, nil
	}
	if err != nil {
		return false, 0, err
	}
	if !st.Mode().IsRegular() || st.Size() > id.Size {
		return false, 0, nil
	}
	b, err := c.root.ReadFile(record)
	if errors.Is(err, fs.ErrNotExist) {
		return false, 0, nil // where the partial copy came from is unknown: start again
	}
	if err != nil {
		// A record that cannot be read is reported, and the partial
		// copy kept: it may be the one the user means to resume.
		return false, 0, err
	}
	var old sourceID
	if json.Unmarshal(b, &old) != nil || !old.equal(id) {
		return false, 0, nil // another source, or a changed one: start again
	}
	if err := c.hashFile(partial, h); err != nil {
		return false, 0, err
	}
	return false, st.Size(), nil
}

// hashFile writes the bytes of the local file name to h.
func (c *copier) hashFile(name string, h io.Writer) error {
	f, err := c.root.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(h, f)
	return err
}

// writeRecord writes id beside a partial copy, as name.
func (c *copier) writeRecord(name string, id *sourceID) error {
	b, err := json.Marshal(id)
	if err != nil {
		return err
	}
	return c.root.WriteFile(name, append(b, '\n'), 0o644)
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
