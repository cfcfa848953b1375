package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// holdBack is how many bytes of a decompressed file cat keeps before it
// writes any: a limit (Limits.MaxRatio, MaxFileSize) or corruption found
// within them leaves nothing of the file on standard output.
const holdBack = 16 << 20

func newCatCmd(g *globals) *cobra.Command {
	var verify, force bool
	cmd := &cobra.Command{
		Use:   "cat URL...",
		Short: "Copy file locations to standard output",
		Long: `cat writes the bytes of each file location to standard output, in
order. A directory is an error. When a location fails, cat reports it
and goes on with the next one; the exit status is then 1. SIGINT stops
cat at once: the arguments after the current one are not opened, and the
exit status is 130.

Every checksum the data carries is checked before its bytes are
written: a read inside a gzip member decodes on to the next checkpoint
whose CRC-32 a checked pass recorded, or to the member's trailer; a read
inside a zstd frame has the frame's content checksum checked; bzip2 and xz
streams are checked whole by the first read; a zip member's CRC-32 is
checked when its end is read. Damage is an error, and the exit status 1.

The output of a decompressor (gzip:, zstd:, a compressed archive member)
is held back until 16 MiB of it have decoded, or all of it: a file that
decodes to less than that and then fails (a limit such as --max-ratio,
corrupt data) writes nothing. A larger file read as one stream (a .gz
file, a zip member) that fails later, at the check at its end, has
written what decoded before the failure, and exits 1. --verify decodes
such a file once to check it before writing any of it: nothing is
written unless every check passes, at the cost of a second decode.

The elements of a dataset or an image (an HDF5 dataset, 'x.png|png:')
are binary: cat does not write them to a terminal, where they would
garble the screen, unless --force says to; redirect them instead.`,
		Example: `  pipefs cat 'testdata/demo.zip|zip:README.txt'
  pipefs cat 'file:/data/a.zip|zip:README.txt'
  pipefs cat 'file:/data/a.zip|zip:data/inner.zip|zip:deep.zip|zip:hello.txt'
  pipefs cat 'file:/data/big.bin|byte-range:0-512' | xxd`,
		Args:              args(cobra.MinimumNArgs(1)),
		ValidArgsFunction: g.completeURLs(-1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			failed := false
			for _, arg := range args {
				if err := cmd.Context().Err(); err != nil {
					return err
				}
				if err := g.cat(cmd, arg, cmd.OutOrStdout(), verify, force); err != nil {
					report(cmd, err)
					failed = true
				}
			}
			if failed {
				return reportedError{}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&verify, "verify", false, "check a decompressed file whole before writing any of it (decodes it twice)")
	cmd.Flags().BoolVarP(&force, "force", "f", false, "write a dataset's or an image's binary elements to a terminal too")
	return cmd
}

// cat copies the file location that the argument arg names to w. With
// verify, a decompressed file is first read to its end and dropped, which
// runs every check its format carries, and only then copied.
func (g *globals) cat(cmd *cobra.Command, arg string, w io.Writer, verify, force bool) error {
	ctx := cmd.Context()
	f, err := g.openFile(ctx, arg)
	if errors.Is(err, vfs.ErrIsDir) {
		return fmt.Errorf("%w (list it with pipefs ls)", err)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if !force && isTerminal(w) {
		if info, err := f.Stat(); err == nil && array.NodeOf(info) != nil {
			return fmt.Errorf("%s: standard output is a terminal, and a dataset's elements are binary: redirect them (> a.bin, or | od), or pass --force", f.URL())
		}
	}
	hw := &holdWriter{ctx: ctx, w: w}
	var c driver.Compressed
	if f.As(&c) {
		hw.hold = holdBack
		if verify {
			if _, err := io.Copy(io.Discard, f); err != nil {
				return err
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
		}
	}
	if _, err := io.Copy(hw, f); err != nil {
		return err
	}
	return hw.flush()
}

// A holdWriter writes to w, keeping the first hold bytes until more come
// or flush is called, and stops with the context's error once ctx is done.
type holdWriter struct {
	ctx  context.Context
	w    io.Writer
	hold int
	buf  []byte
}

func (h *holdWriter) Write(p []byte) (int, error) {
	if err := h.ctx.Err(); err != nil {
		return 0, err
	}
	if h.hold > 0 {
		if n := len(h.buf) + len(p); n <= h.hold {
			if n > cap(h.buf) {
				// 1 MiB first, then the whole hold at once: growing a
				// slice to 16 MiB by doubling costs more copies, and
				// the garbage makes the collector run during the copy.
				c := h.hold
				if h.buf == nil {
					c = min(h.hold, max(n, 1<<20))
				}
				h.buf = append(make([]byte, 0, c), h.buf...)
			}
			h.buf = append(h.buf, p...)
			return len(p), nil
		}
		if err := h.flush(); err != nil {
			return 0, err
		}
	}
	return h.w.Write(p)
}

// flush writes what is held, and everything after it passes through.
func (h *holdWriter) flush() error {
	h.hold = 0
	if len(h.buf) == 0 {
		return nil
	}
	_, err := h.w.Write(h.buf)
	h.buf = nil
	return err
}
