package listing

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/internal/nodedesc"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/deep"
)

// A Tree draws a directory as pipefs tree does: a line for the
// directory's pipeline, then a line for each entry under its branch
// ("├── "), directories with a "/" and the arrays and groups they hold
// ("  [zarr3 array int16 [4]]"), files with their sizes, containers
// opened by the Walker as directories with their formats
// ("inner.zip/  [zip]"), then a blank line and the summary ("3
// directories, 4 files").
type Tree struct {
	Out      io.Writer
	TTY      bool          // writing to a terminal: names quoted as GNU ls does
	Registry *vfs.Registry // detects the formats of labels; nil means vfs.DefaultRegistry
	Walker   *deep.Walker  // opens no container when not deep
	// Count, when set, is given every container the walk opens.
	Count func(interface{ Stats() []vfs.StageCounts })
	// Report reports an error (on stderr).
	Report func(error)
	// Failed is set once an error was reported.
	Failed bool

	ctx         context.Context
	dirs, files int
}

// Draw draws the directory fsys, under its context.
func (t *Tree) Draw(fsys *vfs.FS) {
	t.ctx = fsys.Context()
	if t.Registry == nil {
		t.Registry = vfs.DefaultRegistry
	}
	ents, ok := t.list(fsys, ".")
	label := t.label(fsys, ".", ents)
	fmt.Fprintf(t.Out, "%s%s\n", fsys.Pipeline(), label)
	if ok {
		t.dir(fsys, ".", ents, "", 0, label != "")
	}
	fmt.Fprintf(t.Out, "\n%s\n", Summary(t.dirs, t.files))
}

// fail reports err and remembers that the tree failed.
func (t *Tree) fail(err error) {
	t.Report(err)
	t.Failed = true
}

// list reads directory name of fsys, reporting a failure.
func (t *Tree) list(fsys *vfs.FS, name string) ([]fs.DirEntry, bool) {
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
func (t *Tree) label(fsys *vfs.FS, name string, ents []fs.DirEntry) string {
	if len(ents) == 0 {
		return ""
	}
	if l, ok := nodedesc.Label(t.ctx, t.Registry, fsys, name, ents); ok {
		return "  [" + l + "]"
	}
	return ""
}

// dir draws ents, the entries of directory name of fsys, each line after
// prefix, and with --deep the containers among them as directories; level
// is how many containers deep fsys is, and dataset is set below an array
// or a group, whose files are never opened.
func (t *Tree) dir(fsys *vfs.FS, name string, ents []fs.DirEntry, prefix string, level int, dataset bool) {
	tty := t.TTY
	entries := t.Walker.Dir(fsys, name, ents, level, dataset)
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
			fmt.Fprintf(t.Out, "%s%s%s/%s\n", prefix, branch, listfmt.Name(e.DirEntry.Name(), tty), label)
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
			fmt.Fprintf(t.Out, "%s%s%s (%d)\n", prefix, branch, listfmt.Name(e.DirEntry.Name(), tty), info.Size())
			continue
		}
		if t.Count != nil {
			t.Count(e.Nested)
		}
		t.dirs++
		sub, ok := t.list(e.Nested, ".")
		label := t.label(e.Nested, ".", sub)
		fmt.Fprintf(t.Out, "%s%s%s/  [%s]%s\n", prefix, branch, listfmt.Name(e.DirEntry.Name(), tty), e.Format, label)
		if ok {
			t.dir(e.Nested, ".", sub, prefix+indent, level+1, label != "")
		}
		e.Nested.Close()
	}
}

// Summary is the last line of a tree: "1 directory, 2 files".
func Summary(dirs, files int) string {
	return plural(dirs, "directory", "directories") + ", " + plural(files, "file", "files")
}

// plural is n things: "1 file", "2 files".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
