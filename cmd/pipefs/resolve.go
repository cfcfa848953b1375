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
		Long: `resolve prints one line per argument: the canonical form of the
pipeline, or "error: message" when it is invalid. The exit status is 1
when any argument failed; every line is printed anyway.

Without --base, every argument must be an absolute pipeline, and resolve
checks it exactly as the library's Parse does. With --base, an argument
may be a relative pipeline (a path, then adapters), resolved the way a
link in a document is resolved against the document's URL; an absolute
pipeline stands for itself. BASE may itself be relative, to the current
directory ("--base ." is the current directory as a "file:" URL).

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
			var b vfs.Pipeline // nil: arguments must be absolute
			if base != "" {
				var err error
				if b, err = cwd().Resolve(base); err != nil {
					return fmt.Errorf("--base: %w", err)
				}
			}
			out := cmd.OutOrStdout()
			failed := false
			for _, arg := range args {
				s, err := g.resolve(cmd.Context(), b, arg, detect)
				if err != nil {
					failed = true
					fmt.Fprintf(out, "error: %v\n", err)
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
		p, err = vfs.Parse(arg)
	} else {
		p, err = base.Resolve(arg)
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
