package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/internal/nodedesc"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/deep"
)

func newTreeCmd(g *globals) *cobra.Command {
	var df deepFlags
	cmd := &cobra.Command{
		Use:   "tree [--deep [--depth N]] URL",
		Short: "Draw a directory location as a tree",
		Long: `tree draws the directory location that URL names as a tree, files with
their size in bytes, then a summary line "N directories, M files". The
first line is the resolved pipeline, with detected adapters written out.
Directories that hold an array or a group (Zarr, N5, precomputed) are
marked with the format, node type, data type and shape. A plain file is
drawn as its pipeline and size.

--deep draws the container files inside as the directories they hold, a
zip in a zip, a tar.gz (through gzip:|pipefs.tar:), an HDF5 file, each
marked with its format ("inner.zip/  [zip]") and counted as a
directory. Only a file whose first bytes look like a container is
opened; the datasets of an HDF5 file and the chunks of an array are
never read. --depth bounds how many containers deep it opens (default
8). A nested container that does not open is reported on standard error
and drawn as a file; the exit status is then 1.`,
		Example: `  pipefs tree 'testdata/demo.zip|zip:data/inner.zip'
  file:$PWD/testdata/demo.zip|zip:data/inner.zip|zip:
  ├── deep.zip (787)
  └── notes/
      ├── a.txt (44)
      └── b.txt (58)

  1 directory, 3 files

  pipefs tree --deep 'testdata/demo.zip|zip:data/'
  file:$PWD/testdata/demo.zip|zip:data/
  └── inner.zip/  [zip]
      ├── deep.zip/  [zip]
      │   ├── big.txt (10800)
      │   └── hello.txt (27)
      └── notes/
          ├── a.txt (44)
          └── b.txt (58)

  3 directories, 4 files

  pipefs tree --deep --depth 1 testdata/demo.zip`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := g.deepOptions(df)
			if err != nil {
				return err
			}
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
			t := &treeWriter{ctx: cmd.Context(), w: w, reg: registry(g.options()), walker: deep.NewWalker(opt), count: g.count, report: func(err error) { report(cmd, err) }}
			fsys := loc.fsys.WithContext(cmd.Context())
			ents, ok := t.list(fsys, ".")
			label := t.label(fsys, ".", ents)
			fmt.Fprintf(w, "%s%s\n", loc.fsys.Pipeline(), label)
			if ok {
				t.dir(fsys, ".", ents, "", 0, label != "")
			}
			fmt.Fprintf(w, "\n%s\n", summary(t.dirs, t.files))
			if reportOmitted(cmd, fsys) {
				t.failed = true
			}
			if err := cmd.Context().Err(); err != nil {
				return err
			}
			if t.failed {
				return reportedError{}
			}
			return nil
		},
	}
	df.add(cmd)
	return cmd
}

// A treeWriter draws a tree, counting what it draws.
type treeWriter struct {
	ctx         context.Context
	w           io.Writer
	reg         *vfs.Registry // detects the formats of labels
	walker      *deep.Walker  // opens no container without --deep
	count       func(interface{ Stats() []vfs.StageCounts })
	report      func(error)
	dirs, files int
	failed      bool
}

// fail reports err and remembers that the tree failed.
func (t *treeWriter) fail(err error) {
	t.report(err)
	t.failed = true
}

// list reads directory name of fsys, reporting a failure.
func (t *treeWriter) list(fsys *vfs.FS, name string) ([]fs.DirEntry, bool) {
	ents, err := fsys.ReadDir(name)
	if err != nil {
		t.fail(err)
		return nil, false
	}
	return ents, true
}

// label marks a directory that holds an array or a group, such as
// "  [zarr3 array int16 [4]]" (see nodedesc.Label). Detection reads the
// listing, so plain trees cost nothing more.
func (t *treeWriter) label(fsys *vfs.FS, name string, ents []fs.DirEntry) string {
	if len(ents) == 0 {
		return ""
	}
	if l, ok := nodedesc.Label(t.ctx, t.reg, fsys, name, ents); ok {
		return "  [" + l + "]"
	}
	return ""
}

// dir draws ents, the entries of directory name of fsys, each line after
// prefix, and with --deep the containers among them as directories; level
// is how many containers deep fsys is, and dataset is set below an array
// or a group, whose files are never opened.
func (t *treeWriter) dir(fsys *vfs.FS, name string, ents []fs.DirEntry, prefix string, level int, dataset bool) {
	tty := isTerminal(t.w)
	entries := t.walker.Dir(fsys, name, ents, level, dataset)
	defer entries.Close()
	for i := range ents {
		if t.ctx.Err() != nil {
			return
		}
		e, err := entries.Next()
		branch, indent := "├── ", "│   "
		if i == len(ents)-1 {
			branch, indent = "└── ", "    "
		}
		if e.IsDir() {
			t.dirs++
			sub, ok := t.list(fsys, e.Name)
			label := t.label(fsys, e.Name, sub)
			fmt.Fprintf(t.w, "%s%s%s/%s\n", prefix, branch, listfmt.Name(e.DirEntry.Name(), tty), label)
			if ok {
				t.dir(fsys, e.Name, sub, prefix+indent, level, dataset || label != "")
			}
			continue
		}
		info, ierr := e.Info()
		if ierr != nil {
			t.files++
			t.fail(ierr)
			continue
		}
		if err != nil {
			t.fail(err) // a container that did not open: drawn as a file
		}
		if !e.IsContainer() {
			t.files++
			fmt.Fprintf(t.w, "%s%s%s (%d)\n", prefix, branch, listfmt.Name(e.DirEntry.Name(), tty), info.Size())
			continue
		}
		t.count(e.Nested)
		t.dirs++
		sub, ok := t.list(e.Nested, ".")
		label := t.label(e.Nested, ".", sub)
		fmt.Fprintf(t.w, "%s%s%s/  [%s]%s\n", prefix, branch, listfmt.Name(e.DirEntry.Name(), tty), e.Format, label)
		if ok {
			t.dir(e.Nested, ".", sub, prefix+indent, level+1, label != "")
		}
		e.Nested.Close()
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
