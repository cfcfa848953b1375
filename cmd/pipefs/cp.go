package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
)

func newCpCmd(g *globals) *cobra.Command {
	var verbose, progress bool
	cmd := &cobra.Command{
		Use:   "cp URL DEST",
		Short: "Copy a file location to a local file",
		Long: `cp copies the file location that URL names to the local path DEST, or
to standard output when DEST is "-". When DEST is an existing directory,
the file keeps its name inside it. An existing file is replaced; a failed
copy leaves no partial file behind. --progress shows the bytes copied,
updated a few times a second.`,
		Example: `  pipefs cp 'file:/data/a.zip|zip:data/inner.zip|zip:deep.zip' /tmp/
  pipefs cp -P 'file:/data/big.zip|zip:disk.img' disk.img
  pipefs cp 'testdata/demo.zip|zip:data/inner.zip' - | sha256sum`,
		Args:              args(cobra.ExactArgs(2)),
		ValidArgsFunction: g.completeURLs(1, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := g.openFile(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			dest := args[1]
			if dest == "-" {
				_, err := io.Copy(cmd.OutOrStdout(), f)
				return err
			}
			if st, err := os.Stat(dest); err == nil && st.IsDir() {
				dest = filepath.Join(dest, f.Name())
			}
			var r io.Reader = f
			if progress {
				p := newProgress(cmd.ErrOrStderr(), f.Size())
				defer p.stop()
				r = io.TeeReader(f, p)
			}
			n, err := copyToFile(dest, r)
			if err != nil {
				return err
			}
			if verbose {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s -> %s (%d bytes)\n", f.URL(), dest, n)
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print what was copied to standard error")
	cmd.Flags().BoolVarP(&progress, "progress", "P", false, "show the bytes copied on standard error as the copy goes")
	return cmd
}

// copyToFile copies r to the local file dest through a temporary file in
// the same directory, renamed into place once complete.
func copyToFile(dest string, r io.Reader) (n int64, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".pipefs-*")
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	n, err = io.Copy(tmp, r)
	err = errors.Join(err, tmp.Close())
	if err != nil {
		return n, err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return n, err
	}
	return n, os.Rename(tmp.Name(), dest)
}

// progressInterval is how often --progress updates its line.
const progressInterval = 200 * time.Millisecond

// A progressMeter counts the bytes written to it and shows the count on a
// terminal line, rewritten in place, until stopped.
type progressMeter struct {
	w     io.Writer
	total int64
	n     atomic.Int64
	done  chan struct{}
	wg    sync.WaitGroup
}

func newProgress(w io.Writer, total int64) *progressMeter {
	p := &progressMeter{w: w, total: total, done: make(chan struct{})}
	p.wg.Go(func() {
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.show("")
			case <-p.done:
				return
			}
		}
	})
	return p
}

func (p *progressMeter) Write(b []byte) (int, error) {
	p.n.Add(int64(len(b)))
	return len(b), nil
}

// show rewrites the progress line, ending it with end.
func (p *progressMeter) show(end string) {
	n := p.n.Load()
	pct := 100
	if p.total > 0 {
		pct = int(n * 100 / p.total)
	}
	fmt.Fprintf(p.w, "\r%d / %d bytes (%d%%)%s", n, p.total, pct, end)
}

// stop ends the progress line with the final count.
func (p *progressMeter) stop() {
	close(p.done)
	p.wg.Wait()
	p.show("\n")
}
