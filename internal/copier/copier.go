package copier

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// How many files of a tree a Copier copies at once when
// Copier.Concurrency is 0: the files of a remote tree each wait for
// requests, so many at once; those of a local one come from the kernel's
// cache or a disk, which gain little from more than a few (a compressed
// archive's members, decoded by a core each, and a disk's queue).
const (
	RemoteConcurrency = 16
	LocalConcurrency  = 4
)

// Errors a copy reports, matched with errors.Is.
var (
	// ErrRefused is the cause of an entry that is not written: a name
	// unsafe on the local filesystem, a symbolic link that leaves the
	// copy, a device, a FIFO or a socket.
	ErrRefused = errors.New("refused")
	// ErrMismatch is the cause of a copy that does not match its source:
	// its size, or the CRC-32 that a zip header records.
	ErrMismatch = errors.New("the copy does not match the source")
	// ErrReported is returned by a copy whose failures were each passed
	// to Copier.Report: the copy is incomplete, and nothing more needs
	// saying.
	ErrReported = errors.New("failures were reported")
)

// A Counter counts the bytes a copy writes: every byte is written to it,
// and Add counts a skipped file's bytes as copied, or (negative) takes
// back those that will be copied again. *progress.Progress is one.
type Counter interface {
	io.Writer
	Add(n int64)
}

// A Copier copies file and directory locations to local files and
// directories. Its fields are read by each copy; they must not change
// while one runs. A Copier may run one copy at a time.
type Copier struct {
	// Resume continues an earlier copy (cp --continue): a complete file
	// is skipped, a partial copy of the same source is continued from
	// its length, a copy that fails keeps what it copied, and a tree
	// copied into an existing directory goes where the earlier run put
	// it (see the package documentation).
	Resume bool
	// NoTarget takes the destination as the copy itself, an existing
	// directory included, never as a directory to copy into (cp -T).
	NoTarget bool
	// Concurrency is how many files of a tree are copied, and how many
	// of its directories listed, at once. 0 means LocalConcurrency when
	// the tree's pipeline starts at a root that is registered as Local or
	// not Durable, else RemoteConcurrency.
	Concurrency int
	// Verbose, if not nil, gets a line for each file, directory and link
	// copied, in the order of the tree.
	Verbose io.Writer
	// Progress, if not nil, counts the bytes copied.
	Progress Counter
	// Report gets the failure of each entry of a tree that is not
	// copied, in the order of the tree; the copy goes on with the
	// others. nil drops them (the copy still returns ErrReported).
	Report func(error)
	// Quote quotes a name in a message; nil means strconv.Quote.
	Quote func(string) string
	// Registry is where the roots of pipelines are looked up for the
	// default Concurrency; nil means vfs.DefaultRegistry.
	Registry *vfs.Registry
}

// A Source is a location to copy, opened: a file, or a directory tree
// and its entries, listed once.
type Source struct {
	file   *vfs.File
	reopen func() (*vfs.File, error)
	fsys   *vfs.FS
	items  []item // the entries of fsys, parents first
	// incomplete says that some entries could not be listed; each was
	// reported.
	incomplete bool
}

// FileSource returns the source of the file location f. A resumed copy
// that turns out not to match its source is copied again from the start,
// from the file that reopen opens; f itself is read once. The source
// owns f: Close closes it.
func FileSource(f *vfs.File, reopen func() (*vfs.File, error)) *Source {
	return &Source{file: f, reopen: reopen}
}

// TreeSource lists the directory location fsys, Concurrency directories
// at a time, as fs.WalkDir would (one ReadDir per directory), and returns
// it as a source. An entry whose FileInfo or listing fails is passed to
// Report and left out; the copy of the source then returns ErrReported.
// It returns ctx's error when ctx is cancelled. The source owns fsys:
// Close closes it, also when TreeSource fails.
func (c *Copier) TreeSource(ctx context.Context, fsys *vfs.FS) (*Source, error) {
	s := &Source{fsys: fsys}
	items, err := walkTree(ctx, fsys, c.concurrency(fsys), func(err error) {
		c.report(err)
		s.incomplete = true
	})
	if err != nil {
		s.Close()
		return nil, err
	}
	s.items = items
	return s, nil
}

// Close closes what the source holds.
func (s *Source) Close() error {
	if s.fsys != nil {
		return s.fsys.Close()
	}
	return s.file.Close()
}

// Size returns how many bytes copying s writes, -1 when that is not
// known without decoding a stream to its end (driver.SizeKnower).
func (s *Source) Size() int64 {
	if s.file != nil {
		info, err := s.file.Stat()
		if err != nil || !sizeKnown(info) {
			return -1
		}
		return info.Size()
	}
	total := int64(0)
	for _, it := range s.items {
		if it.info.Mode().IsRegular() {
			total += it.info.Size()
		}
	}
	return total
}

// sizeKnown reports whether the size of the file info describes is known
// without decoding a stream to its end (driver.SizeKnower).
func sizeKnown(info fs.FileInfo) bool {
	k, ok := info.(driver.SizeKnower)
	return !ok || k.SizeKnown()
}

// concurrency returns how many files of fsys are copied at once.
func (c *Copier) concurrency(fsys *vfs.FS) int {
	if c.Concurrency > 0 {
		return c.Concurrency
	}
	reg := c.Registry
	if reg == nil {
		reg = vfs.DefaultRegistry
	}
	if r := reg.Root(fsys.Pipeline()[0].Scheme); r != nil && (r.Local || !r.Durable) {
		return LocalConcurrency
	}
	return RemoteConcurrency
}

func (c *Copier) report(err error) {
	if c.Report != nil {
		c.Report(err)
	}
}

func (c *Copier) quote(s string) string {
	if c.Quote != nil {
		return c.Quote(s)
	}
	return strconv.Quote(s)
}

// progress returns the counter of the copy, one that counts nothing when
// the Copier has none.
func (c *Copier) progress() Counter {
	if c.Progress != nil {
		return c.Progress
	}
	return discard{}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) Add(int64)                   {}

// Copy copies src to dest. With into, dest is an existing directory and
// the copy is dest/NAME: a file's name, or for a tree TreeName (with
// Resume, the tree may resume in dest itself: see the package
// documentation). Otherwise dest is the copy: a file, or a directory that
// is made, and with NoTarget may exist. A failure of one entry of a tree
// is passed to Report and the others are copied; Copy then returns
// ErrReported.
func (c *Copier) Copy(ctx context.Context, src *Source, dest string, into bool) error {
	fc := &fileCopier{ctx: ctx, resume: c.Resume, verbose: c.Verbose, prog: c.progress(), quote: c.quote}
	if src.file != nil {
		var fp driver.Fingerprinter
		if src.file.As(&fp) {
			fc.version = fp.Fingerprint()
		}
		return c.copyFile(fc, src, dest, into)
	}
	var fp driver.Fingerprinter
	if src.fsys.As(&fp) {
		fc.version = fp.Fingerprint()
	}
	return c.copyTree(fc, src, dest, into)
}

// copyFile copies the file location of src to dest: to dest/NAME when
// into.
func (c *Copier) copyFile(fc *fileCopier, src *Source, dest string, into bool) error {
	f := src.file
	info, err := f.Stat()
	if err != nil {
		return err
	}
	dir, name := filepath.Dir(dest), filepath.Base(dest)
	if into {
		dir, name = dest, f.Name()
		if err := checkLocalName(f.URL(), name, fc.quote); err != nil {
			return err
		}
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: %w: a %s is not copied", f.URL(), ErrRefused, describeKind(info.Mode()))
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	fc.root = root
	reopen := false
	return fc.copyFile(name, source{info: info, url: f.URL(), open: func() (*vfs.File, error) {
		if !reopen {
			reopen = true
			return f, nil
		}
		return src.reopen()
	}})
}

// CopyTo copies the file location of src to w, and checks that it had
// the size it said.
func (c *Copier) CopyTo(w io.Writer, src *Source) error {
	if src.fsys != nil {
		return fmt.Errorf("%s is a directory: it cannot be copied to standard output", src.fsys.Pipeline())
	}
	f := src.file
	n, err := io.Copy(io.MultiWriter(w, c.progress()), f)
	if err != nil {
		return err
	}
	if size := f.Size(); n != size {
		return fmt.Errorf("%s: copied %d bytes, the source has %d: %w", f.URL(), n, size, ErrMismatch)
	}
	return nil
}
