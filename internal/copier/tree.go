package copier

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/pipefs/pipefs/vfs"
)

// copyTree copies the tree of src to dest: to dest/NAME when into, or
// with Resume where an earlier run started it (resumesInDest).
func (c *Copier) copyTree(fc *fileCopier, src *Source, dest string, into bool) error {
	fsys := src.fsys
	url := fsys.Pipeline().String()
	dir, top := dest, "."
	if into {
		name, err := TreeName(fsys.Pipeline())
		if err != nil {
			return err
		}
		top = name
		if c.Resume && resumesInDest(dest, name, url, src.items) {
			top = "."
		}
	} else if err := os.Mkdir(dest, 0o777); err != nil && !(errors.Is(err, fs.ErrExist) && c.NoTarget) {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	fc.root = root
	t := &treeCopy{fileCopier: fc, fsys: fsys, top: top, concurrency: c.concurrency(fsys), report: c.report}
	failed := reportOmittedEntries(t)
	if top != "." {
		if err := checkLocalName(url, top, fc.quote); err != nil {
			return err
		}
	}
	// With Resume, the record of the tree beside its copy says where a
	// run that stops before the end put it. A record that cannot be
	// written (beside a destination in a directory the copy cannot write
	// to) is done without: the entries of the copy say where it is.
	record := ""
	if c.Resume {
		if record = treeRecordPath(filepath.Join(dest, top)); record != "" && writeTreeRecord(record, url) != nil {
			record = ""
		}
	}
	tf, err := t.run(src.items)
	if err != nil {
		return err
	}
	if failed || tf || src.incomplete {
		return ErrReported
	}
	if record != "" {
		os.Remove(record)
	}
	return nil
}

// An item is one entry of a tree to copy.
type item struct {
	name string // in the source FS
	info fs.FileInfo
}

// A treeCopy copies a directory location below a fileCopier's root.
type treeCopy struct {
	*fileCopier
	fsys        *vfs.FS
	top         string       // what the tree's root is called below the root: "." or NAME
	report      func(error)  // reports the failure of one entry
	concurrency int          // regular files copied at once, at least 1
	dirs        []createdDir // directories to finish, parents first
}

// A createdDir is a directory that the copy made or entered.
type createdDir struct {
	name    string      // below the root
	perm    fs.FileMode // 0 for one that existed: left as it was
	modTime time.Time
}

// dest is the name below the root of the entry name of the tree.
func (t *treeCopy) dest(name string) string {
	return path.Join(t.top, name)
}

// An outcome is what copying one entry of a tree gave: its -v lines and
// its error.
type outcome struct {
	verbose []byte
	err     error
	done    bool // set by run once the copy has ended
}

// run copies the tree, reporting each entry that fails and going on with
// the others; it returns whether any failed, or the error that stopped it
// (a cancellation).
//
// Directories, symbolic links and the entries refused are done first, in
// the order of items (parents first), so that every directory exists
// before the files in it are written. The regular files are then copied
// t.concurrency at a time, started in that order; a file whose name is
// what the copy of another keeps beside it while it runs
// (NAME.pipefs-partial, NAME.pipefs-source) is copied once the others are
// done, as it would be after NAME in order. The -v lines and failures are
// written in the order of items, whatever the order the copies end in, so
// that they read as those of a copy of one file after the other. The
// times and permission bits of directories are set last, deepest first.
func (t *treeCopy) run(items []item) (failed bool, err error) {
	outs := make([]outcome, len(items))
	var files, late []int
	for i, it := range items {
		if it.info.Mode().IsRegular() {
			if strings.HasSuffix(it.name, PartialSuffix) || strings.HasSuffix(it.name, SourceSuffix) {
				late = append(late, i)
			} else {
				files = append(files, i)
			}
			continue
		}
		if err := t.ctx.Err(); err != nil {
			return failed, err
		}
		outs[i].verbose, outs[i].err = t.copyOne(it)
		outs[i].done = true
	}
	// The copies send the index of their entry once its outcome is set.
	ended := make(chan int, t.concurrency)
	go func() {
		defer close(ended)
		copyAt := func(i int) {
			if outs[i].err = t.ctx.Err(); outs[i].err == nil {
				outs[i].verbose, outs[i].err = t.copyOne(items[i])
			}
			ended <- i
		}
		parallel(t.concurrency, len(files), func(k int) { copyAt(files[k]) })
		for _, i := range late {
			copyAt(i)
		}
	}()
	next := 0 // the first outcome not written
	write := func() {
		for ; next < len(outs) && outs[next].done; next++ {
			o := &outs[next]
			if t.verbose != nil {
				t.verbose.Write(o.verbose)
			}
			if o.err != nil {
				t.report(o.err)
				failed = true
			}
		}
	}
	write()
	for i := range ended {
		outs[i].done = true
		if t.ctx.Err() == nil {
			write()
		}
	}
	if err := t.ctx.Err(); err != nil {
		// The copies stopped; those that ended before are still named.
		if t.verbose != nil {
			for _, o := range outs[next:] {
				if o.done && o.err == nil {
					t.verbose.Write(o.verbose)
				}
			}
		}
		return failed, err
	}
	// Times last, deepest first: writing into a directory changes its own.
	for i := len(t.dirs) - 1; i >= 0; i-- {
		d := t.dirs[i]
		if d.perm != 0 {
			if err := t.finish(d.name, d.perm, d.modTime); err != nil {
				t.report(err)
				failed = true
			}
		}
	}
	return failed, nil
}

// copyOne copies the entry it, and returns its -v lines (none without
// -v) and its error.
func (t *treeCopy) copyOne(it item) ([]byte, error) {
	if t.verbose == nil {
		return nil, t.copyItem(it, nil)
	}
	var lines bytes.Buffer
	err := t.copyItem(it, &lines)
	return lines.Bytes(), err
}

// copyItem copies the entry it, writing its -v lines to verbose (nil for
// none).
func (t *treeCopy) copyItem(it item, verbose io.Writer) error {
	url := originURL(it.info, t.fsys.URL(it.name))
	dst := t.dest(it.name)
	if it.name != "." {
		if err := checkLocalName(url, it.name, t.quote); err != nil {
			return err
		}
	}
	mode := it.info.Mode()
	switch {
	case mode.IsDir():
		return t.mkdir(url, dst, it.info, verbose)
	case mode&fs.ModeSymlink != 0:
		return t.symlink(url, it.name, dst, verbose)
	case mode.IsRegular():
		c := *t.fileCopier
		c.verbose = verbose
		return c.copyFile(dst, source{info: it.info, url: url, open: func() (*vfs.File, error) {
			return t.fsys.OpenFile(it.name)
		}})
	default:
		return fmt.Errorf("%s: %w: %s is a %s; cp copies files, directories and symbolic links",
			url, ErrRefused, t.quote(it.name), kindOf(mode))
	}
}

// mkdir makes the directory dst, or enters it when it exists.
func (t *treeCopy) mkdir(url, dst string, info fs.FileInfo, verbose io.Writer) error {
	perm := permOf(info) | 0o700 // the copy must be able to fill it
	if st, err := t.root.Lstat(dst); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s: cannot make the directory %s: a %s is in the way", url, t.display(dst), describeKind(st.Mode()))
		}
		t.dirs = append(t.dirs, createdDir{name: dst})
		return nil
	}
	if err := t.root.Mkdir(dst, 0o777); err != nil {
		return err
	}
	t.dirs = append(t.dirs, createdDir{name: dst, perm: perm, modTime: info.ModTime()})
	if verbose != nil {
		fmt.Fprintf(verbose, "%s -> %s/\n", url, t.display(dst))
	}
	return nil
}

// symlink makes dst a symbolic link like the entry name, when its target
// stays inside the copy.
func (t *treeCopy) symlink(url, name, dst string, verbose io.Writer) error {
	target, err := fs.ReadLink(t.fsys, name)
	if err != nil {
		return fmt.Errorf("%s: reading the target of the symbolic link: %w", url, err)
	}
	if err := checkLink(url, name, target, t.quote); err != nil {
		return err
	}
	if st, err := t.root.Lstat(dst); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s: cannot make the symbolic link %s: a directory is in the way", url, t.display(dst))
		}
		if old, err := t.root.Readlink(dst); err == nil && old == target {
			return nil
		}
		if err := t.root.Remove(dst); err != nil {
			return err
		}
	}
	if err := t.root.Symlink(target, dst); err != nil {
		return err
	}
	if verbose != nil {
		fmt.Fprintf(verbose, "%s -> %s -> %s\n", url, t.display(dst), target)
	}
	return nil
}
