package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/vfs"
)

func newResolveCmd(g *globals) *cobra.Command {
	var base string
	var detect bool
	cmd := &cobra.Command{
		Use:   "resolve [--base BASE] [--detect] URL...",
		Short: "Print the canonical form of pipelines, or resolve relative ones",
		Long: `resolve prints the canonical form of each pipeline, one line per
argument, in order. An argument that fails is reported on standard error
and has no line; the others are printed anyway, and the exit status is 1.

An argument is read as every command reads it: typed characters that a
pipeline must percent-encode (spaces, non-ASCII) are encoded, a local
file names itself whatever characters it holds, and a relative pipeline
(a path, then adapters) is resolved against the current directory. With
--base, a relative pipeline is resolved against BASE instead, the way a
link in a document is resolved against the document's URL; an absolute
pipeline stands for itself. BASE is read like an argument.

With --detect, each pipeline is also opened and printed as resolved by
format detection: "file:/d/a.zip" prints "file:/d/a.zip|zip:".`,
		Example: `  pipefs resolve 'FILE:/d/a.zip|ZIP'
  file:/d/a.zip|zip:

  pipefs resolve --base 'file:/d/a.zip|zip:docs/index.html' 'img/logo.png' '..:b.zip|zip:'
  file:/d/a.zip|zip:docs/img/logo.png
  file:/d/b.zip|zip:

  pipefs resolve --detect file:/d/a.zip`,
		Args:              args(cobra.MinimumNArgs(1)),
		ValidArgsFunction: g.completeURLs(-1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			var b vfs.Pipeline // nil: arguments are read as by the other commands
			if base != "" {
				var err error
				if b, err = parseArg(base); err != nil {
					return fmt.Errorf("--base: %w", err)
				}
			}
			out := cmd.OutOrStdout()
			failed := false
			for _, arg := range args {
				if err := cmd.Context().Err(); err != nil {
					return err
				}
				s, err := g.resolve(cmd.Context(), b, arg, detect)
				if err != nil {
					failed = true
					report(cmd, err)
					continue
				}
				fmt.Fprintln(out, s)
			}
			if failed {
				return reportedError{}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&base, "base", "", "resolve each argument against the pipeline `BASE`")
	cmd.Flags().BoolVar(&detect, "detect", false, "open each pipeline and print it with detected adapters")
	return cmd
}

// resolve returns the canonical text of arg resolved against base, opened
// to detect its formats when detect is set.
func (g *globals) resolve(ctx context.Context, base vfs.Pipeline, arg string, detect bool) (string, error) {
	var p vfs.Pipeline
	var err error
	if base == nil {
		p, err = parseArg(arg)
	} else {
		p, err = base.ResolveLoose(arg)
	}
	if err != nil || !detect {
		return p.String(), err
	}
	loc, err := g.openLocation(ctx, p.String())
	if err != nil {
		return "", err
	}
	defer loc.Close()
	if loc.fsys != nil {
		return loc.fsys.Pipeline().String(), nil
	}
	return loc.file.URL(), nil
}
