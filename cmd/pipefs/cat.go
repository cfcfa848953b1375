package main

import (
	"io"

	"github.com/spf13/cobra"
)

func newCatCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "cat URL...",
		Short: "Copy file locations to standard output",
		Long: `cat writes the bytes of each file location to standard output, in
order. A directory is an error. When a location fails, cat reports it
and goes on with the next one; the exit status is then 1.`,
		Example: `  pipefs cat 'file:/data/a.zip|zip:README.txt'
  pipefs cat 'file:/data/a.zip|zip:data/inner.zip|zip:deep.zip|zip:hello.txt'
  pipefs cat 'file:/data/big.bin|byte-range:0-512' | xxd`,
		Args:              args(cobra.MinimumNArgs(1)),
		ValidArgsFunction: g.completeURLs(-1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			failed := false
			for _, arg := range args {
				if err := g.cat(cmd, arg, cmd.OutOrStdout()); err != nil {
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
}

// cat copies the file location that the argument arg names to w.
func (g *globals) cat(cmd *cobra.Command, arg string, w io.Writer) error {
	f, err := g.openFile(cmd.Context(), arg)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
