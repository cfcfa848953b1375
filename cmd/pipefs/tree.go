package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/vfs"
)

func newTreeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "tree URL",
		Short: "Draw a directory location as a tree",
		Long: `tree draws the directory location that URL names as a tree, files with
their size in bytes, then a summary line "N directories, M files". The
first line is the resolved pipeline, with detected adapters written out.
Directories that hold an array or a group (Zarr, N5, precomputed) are
marked with the format, node type, data type and shape.`,
		Example: `  pipefs tree 'file:/data/a.zip'
  file:/data/a.zip|zip:
  ├── README.txt (120)
  └── docs/
      └── guide.md (2048)

  1 directory, 2 files`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc, err := g.openLocation(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer loc.Close()
			w := cmd.OutOrStdout()
			if loc.file != nil {
				fmt.Fprintf(w, "%s (%d)\n\n%s\n", loc.file.URL(), loc.file.Size(), summary(0, 1))
				return nil
			}
			t := &treeWriter{ctx: cmd.Context(), w: w, fsys: loc.fsys, reg: registry(g.options()), report: func(err error) { report(cmd, err) }}
			ents, ok := t.list(".")
			fmt.Fprintf(w, "%s%s\n", loc.fsys.Pipeline(), t.label(".", ents))
			if ok {
				t.dir(".", ents, "")
			}
			fmt.Fprintf(w, "\n%s\n", summary(t.dirs, t.files))
			if t.failed {
				return reportedError{}
			}
			return nil
		},
	}
}

// A treeWriter draws a tree, counting what it draws.
type treeWriter struct {
	ctx         context.Context
	w           io.Writer
	fsys        fs.FS
	reg         *vfs.Registry // detects the formats of labels
	report      func(error)
	dirs, files int
	failed      bool
}

// list reads directory name, reporting a failure.
func (t *treeWriter) list(name string) ([]fs.DirEntry, bool) {
	ents, err := fs.ReadDir(t.fsys, name)
	if err != nil {
		t.report(err)
		t.failed = true
		return nil, false
	}
	return ents, true
}

// label marks a directory that holds an array or a group, such as
// "  [zarr3 array int16 [4]]" (see arrayLabel). Detection reads the
// listing, so plain trees cost nothing more.
func (t *treeWriter) label(name string, ents []fs.DirEntry) string {
	if len(ents) == 0 {
		return ""
	}
	if l, ok := arrayLabel(t.ctx, t.reg, t.fsys, name, ents); ok {
		return "  [" + l + "]"
	}
	return ""
}

// dir draws ents, the entries of directory name, each line after prefix.
func (t *treeWriter) dir(name string, ents []fs.DirEntry, prefix string) {
	for i, e := range ents {
		branch, indent := "├── ", "│   "
		if i == len(ents)-1 {
			branch, indent = "└── ", "    "
		}
		child := path.Join(name, e.Name())
		if e.IsDir() {
			t.dirs++
			sub, ok := t.list(child)
			fmt.Fprintf(t.w, "%s%s%s/%s\n", prefix, branch, displayName(e.Name(), isTerminal(t.w)), t.label(child, sub))
			if ok {
				t.dir(child, sub, prefix+indent)
			}
			continue
		}
		t.files++
		info, err := e.Info()
		if err != nil {
			t.report(err)
			t.failed = true
			continue
		}
		fmt.Fprintf(t.w, "%s%s%s (%d)\n", prefix, branch, displayName(e.Name(), isTerminal(t.w)), info.Size())
	}
}

// summary is the last line of a tree: "1 directory, 2 files".
func summary(dirs, files int) string {
	return plural(dirs, "directory", "directories") + ", " + plural(files, "file", "files")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
