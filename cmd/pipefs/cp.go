package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/internal/copier"
	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/internal/progress"
	"github.com/pipefs/pipefs/vfs"
)

// cpFlags are the flags of cp.
type cpFlags struct {
	recursive, verbose, progress, noProgress, resume, noTarget bool
	concurrency                                                int // --concurrency
}

func newCpCmd(g *globals) *cobra.Command {
	var fl cpFlags
	cmd := &cobra.Command{
		Use:   "cp [-R [--concurrency N]] [-v] [-P|--no-progress] [--continue] [-T] URL... DEST",
		Short: "Copy file and directory locations to local files and directories",
		Long: `cp copies the file locations that the URLs name to local files, and with
-R directory locations to local directories, as cp of coreutils does:

  cp URL FILE        the file to FILE (DEST "-" is standard output)
  cp URL... DIR      each file to DIR/NAME, DIR an existing directory
  cp -R URL DIR      DIR missing: DIR is made and holds the tree's contents;
                     DIR existing: the tree is copied to DIR/NAME

NAME is the last name in the URL's path; for a container opened as a
directory (a.zip, a.tar.gz) it is the container's name without its
extensions: a. -T takes DEST as the copy itself, never as a directory to
copy into. Without -R a directory location is an error; a container file
is copied as the file it is.

-R copies regular files, directories and symbolic links, files and
directories with their permission bits (less the umask; a directory's
owner keeps rwx) and modification times. A copy is
written through the destination directory only (os.Root): a name that is
unsafe on the local filesystem (absolute, with "..", a NUL, or an element
longer than 255 bytes), a symbolic link whose target is absolute or
climbs out of the tree, a device, a FIFO and a socket are refused with an
error naming the entry, and the rest is copied; nothing is written
outside DEST, and the exit status is 1.

-R copies several files at once, at most --concurrency N: by default 16
when the tree comes from a remote location (http, https, s3, gs), whose
files each wait for requests of their own, and 4 from a local one, whose
files come from the kernel's cache or a disk. This holds for the objects
of a bucket as for the members of an archive; members of a remote zip
read in order share some requests, which members read at once do not, so
--concurrency 1 copies such a zip with the fewest requests, and with the
same requests every time. The directories of the tree are listed N at a
time too, one listing each, as one at a time does. Directories are made
first, parents first; their permission bits and times are set last,
deepest first. A failed file is reported and the others are copied; the
-v lines and the failures come in the order of the tree, whatever the
order the copies end in. What the copies hold is bounded: at most N
files are open, each read through a buffer of at most 1 MiB (and a
decoder's window, for a compressed member); the blocks they read are
held in the memory cache, within its budget of 512 MiB, and those read
ahead in parallel parts (--streams per file), for all files together,
within a quarter of it.

Each file is written to NAME.pipefs-partial and renamed to NAME once its
size matches the source's, and for a zip member once the CRC-32 of the
copy matches the one its header records; a copy that does not match is
removed and reported. Every checksum the source's formats carry is
checked on the way (gzip's CRC-32 and ISIZE, a zstd frame's content
checksum, bzip2's block and stream CRCs, xz's block checks, a zip
member's CRC-32; see pipefs cat --help): a copy whose bytes a check
refuses is removed, and the exit status is 1. A damaged archive copied
with -R copies what can be read and checked, reports the rest, and
exits 1. A zstd frame written without a checksum (zstd --no-check), a
zip member whose header records none, and a plain tar hold nothing to
check. An existing file is replaced. A file whose copy
fails or is interrupted leaves no partial file, unless --continue is given.

--continue resumes an earlier copy: a file that is complete (the
source's size, and CRC-32 when known) is skipped; a partial copy of the
same source (NAME.pipefs-partial, with the record of its source in
NAME.pipefs-source: pipeline, size, modification time, ETag or other
version, CRC-32), or a NAME shorter than the source, is continued from
its length by reading only the rest of the source (with what the format
needs to reach it); a longer or different file, or a source that
changed, is copied again from the start. A copy that fails keeps what it
copied for the next --continue. The size of a decompressed stream is
known only once it has been decoded, so --continue on one decodes it
first. Run the same command again to resume: cp -R --continue SRC DEST,
run twice (after the first completed, failed or was interrupted),
continues the copy the first run started, never DEST/NAME/NAME. While a
tree is copied with --continue, COPY.pipefs-source beside the copy
records its source, and is removed once every entry is copied. Into an
existing directory DEST (without -T), the copy goes to DEST/NAME when
DEST/NAME.pipefs-source records SRC, to DEST itself when
DEST.pipefs-source does; without a record, to DEST/NAME when its entries
are those of SRC's top level (each named as one and of its type, or the
partial copy of a file there), to DEST itself when DEST's entries are,
and else to DEST/NAME, as without --continue.

On a terminal, a copy that lasts more than a second shows a progress bar
on standard error: bytes copied and to copy, rate and time left. -P shows
it from the start, and off a terminal writes the byte count a few times a
second; --no-progress shows nothing. -v prints each file copied on a
line of its own (above the bar).`,
		Example: `  pipefs cp 'file:/data/a.zip|zip:data/inner.zip|zip:deep.zip' /tmp/
  pipefs cp -R testdata/demo.zip demo
  pipefs cp -R -v 'https://example.com/data/a.tar.gz' /tmp/
  pipefs cp -R --concurrency 32 s3://bucket/scans/ scans
  pipefs cp --continue -P 'https://example.com/big.zip|zip:disk.img' disk.img
  pipefs cp 'testdata/demo.zip|zip:data/inner.zip' - | sha256sum`,
		Args:              args(cobra.MinimumNArgs(2)),
		ValidArgsFunction: g.completeURLs(1, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("concurrency") && fl.concurrency < 1 {
				return usageError{fmt.Errorf("--concurrency %d: want at least 1", fl.concurrency)}
			}
			if fl.progress && fl.noProgress {
				return usageError{errors.New("-P (--progress) and --no-progress cannot go together")}
			}
			return g.cp(cmd, fl, args[:len(args)-1], args[len(args)-1])
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&fl.recursive, "recursive", "R", false, "copy directory locations and what they hold")
	f.BoolVarP(&fl.verbose, "verbose", "v", false, "print each file copied to standard error")
	f.BoolVarP(&fl.progress, "progress", "P", false, "show a progress bar from the start, and off a terminal the byte count")
	f.BoolVar(&fl.noProgress, "no-progress", false, "show no progress, even on a terminal")
	f.BoolVar(&fl.resume, "continue", false, "skip complete files, resume partial copies, keep what a failed copy copied")
	f.BoolVarP(&fl.noTarget, "no-target-directory", "T", false, "take DEST as the copy itself, never as a directory to copy into")
	f.IntVar(&fl.concurrency, "concurrency", 0, "with -R, copy at most `N` files at once (default: 16 from a remote location, 4 from a local one)")
	return cmd
}

// cp copies the locations srcs name to dest.
func (g *globals) cp(cmd *cobra.Command, fl cpFlags, srcs []string, dest string) error {
	ctx := cmd.Context()
	st, err := os.Stat(dest)
	destDir := err == nil && st.IsDir() && !fl.noTarget
	switch {
	case dest == "-" && len(srcs) > 1:
		return usageError{errors.New(`only one URL can be copied to standard output ("-")`)}
	case len(srcs) > 1 && !destDir:
		return fmt.Errorf("%s is not a directory: copying several URLs needs an existing directory", dest)
	}
	c := &copier.Copier{
		Resume:      fl.resume,
		NoTarget:    fl.noTarget,
		Concurrency: fl.concurrency,
		Report:      func(err error) { report(cmd, err) },
		Quote:       listfmt.ShellQuote,
		Registry:    g.options().Registry,
	}

	// Open and list everything first, for the total the bar shows.
	failed := false
	var srcList []*copier.Source
	defer func() {
		for _, s := range srcList {
			s.Close()
		}
	}()
	total := int64(0)
	for _, arg := range srcs {
		s, err := g.openCpSource(ctx, c, arg, fl.recursive)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			report(cmd, err)
			failed = true
			continue
		}
		srcList = append(srcList, s)
		if size := s.Size(); total >= 0 {
			total += size
			if size < 0 {
				total = -1
			}
		}
	}

	mode := progress.Off
	switch {
	case fl.noProgress:
	case dest == "-" && isTerminal(cmd.OutOrStdout()) && !fl.progress:
		// The bytes go to the screen: no bar among them unless asked.
	case isTerminal(cmd.ErrOrStderr()):
		mode = progress.Bar
	case fl.progress:
		mode = progress.Counts
	}
	delay := progress.BarDelay
	if fl.progress {
		delay = 0
	}
	prog := progress.New(cmd.ErrOrStderr(), mode, total, delay)
	c.Progress = prog
	stderr := cmd.ErrOrStderr()
	cmd.SetErr(prog.Lines())
	ok := false
	defer func() {
		prog.End(ok)
		cmd.SetErr(stderr)
	}()
	if fl.verbose {
		c.Verbose = cmd.ErrOrStderr()
	}
	for _, s := range srcList {
		var err error
		if dest == "-" {
			err = c.CopyTo(cmd.OutOrStdout(), s)
		} else {
			err = c.Copy(ctx, s, dest, destDir)
		}
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			if !errors.Is(err, copier.ErrReported) {
				report(cmd, err)
			}
			failed = true
		}
	}
	if failed {
		return reportedError{}
	}
	ok = true
	return nil
}

// openCpSource opens the location arg names: with recursive, a directory
// (a container opened as one) listed, or a file; else a file.
func (g *globals) openCpSource(ctx context.Context, c *copier.Copier, arg string, recursive bool) (*copier.Source, error) {
	reopen := func() (*vfs.File, error) { return g.openCpFile(ctx, arg) }
	if !recursive {
		f, err := g.openCpFile(ctx, arg)
		if errors.Is(err, vfs.ErrIsDir) {
			return nil, fmt.Errorf("%w; cp copies a directory with -R", err)
		}
		if err != nil {
			return nil, err
		}
		return copier.FileSource(f, reopen), nil
	}
	loc, err := g.openLocation(ctx, arg)
	if err != nil {
		return nil, err
	}
	if loc.file != nil {
		return copier.FileSource(loc.file, reopen), nil
	}
	return c.TreeSource(ctx, loc.fsys)
}

// openCpFile opens the file location that the argument arg names, as
// written (no format is detected); a directory location is ErrIsDir.
func (g *globals) openCpFile(ctx context.Context, arg string) (*vfs.File, error) {
	pipeline, err := g.pipeline(arg)
	if err != nil {
		return nil, err
	}
	f, err := vfs.Open(ctx, pipeline, g.options())
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err != nil || info.IsDir() {
		url := f.URL()
		f.Close()
		if err != nil {
			return nil, err
		}
		return nil, isDirError(url)
	}
	g.count(f)
	return f, nil
}

// isDirError is the error of opening the directory location url where a
// file is wanted: that of its last sub-URL.
func isDirError(url string) error {
	p, err := vfs.Parse(url)
	if err != nil || len(p) == 0 {
		return &fs.PathError{Op: "open", Path: url, Err: vfs.ErrIsDir}
	}
	last := len(p) - 1
	return &fs.PathError{Op: "open", Path: url, Err: &vfs.StageError{Index: last, URL: p[last].String(), Err: vfs.ErrIsDir}}
}
