package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

func newCpCmd(g *globals) *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "cp URL DEST",
		Short: "Copy a file location to a local file",
		Long: `cp copies the file location that URL names to the local path DEST, or
to standard output when DEST is "-". When DEST is an existing directory,
the file keeps its name inside it. An existing file is replaced; a failed
copy leaves no partial file behind.`,
		Example: `  pipefs cp 'file:/data/a.zip|zip:data/inner.zip|zip:deep.zip' /tmp/
  pipefs cp -v 'file:/data/a.zip|zip:README.txt' README.txt
  pipefs cp 'memory:x.bin' - | sha256sum`,
		Args: args(cobra.ExactArgs(2)),
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
			n, err := copyToFile(dest, f)
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
