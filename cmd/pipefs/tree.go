package main

import (
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/spf13/cobra"
)

func newTreeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "tree URL",
		Short: "Draw a directory location as a tree",
		Long: `tree draws the directory location that URL names as a tree, files with
their size in bytes, then a summary line "N directories, M files". The
first line is the resolved pipeline, with detected adapters written out.`,
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
			fmt.Fprintln(w, loc.fsys.Pipeline())
			t := &treeWriter{w: w, fsys: loc.fsys, report: func(err error) { report(cmd, err) }}
			t.dir(".", "")
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
	w           io.Writer
	fsys        fs.FS
	report      func(error)
	dirs, files int
	failed      bool
}

// dir draws the entries of directory name, each line after prefix.
func (t *treeWriter) dir(name, prefix string) {
	ents, err := fs.ReadDir(t.fsys, name)
	if err != nil {
		t.report(err)
		t.failed = true
		return
	}
	for i, e := range ents {
		branch, indent := "├── ", "│   "
		if i == len(ents)-1 {
			branch, indent = "└── ", "    "
		}
		if e.IsDir() {
			t.dirs++
			fmt.Fprintf(t.w, "%s%s%s/\n", prefix, branch, e.Name())
			t.dir(path.Join(name, e.Name()), prefix+indent)
			continue
		}
		t.files++
		info, err := e.Info()
		if err != nil {
			t.report(err)
			t.failed = true
			continue
		}
		fmt.Fprintf(t.w, "%s%s%s (%d)\n", prefix, branch, e.Name(), info.Size())
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
