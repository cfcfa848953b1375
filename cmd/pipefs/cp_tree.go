package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// errUnsafe is the cause of an entry that cp refuses to write: a name
// unsafe on the local filesystem, a link that leaves the copy, a device.
var errUnsafe = errors.New("refused")

// maxLocalName is the longest name of one path element that cp writes:
// NAME_MAX of Linux and the BSDs, and the limit of most filesystems.
// Longer names would fail anyway, halfway through a tree.
const maxLocalName = 255

// checkLocalName returns an error, naming url, unless the slash-separated
// name is safe to create below a directory: relative, without ".." or
// empty elements, NUL or (on Windows) reserved names, and no element
// longer than maxLocalName bytes.
func checkLocalName(url, name string) error {
	why := ""
	switch {
	case strings.IndexByte(name, 0) >= 0:
		why = "it holds a NUL byte"
	case !filepath.IsLocal(filepath.FromSlash(name)) || !fs.ValidPath(name) || name == ".":
		why = "it is not a relative path inside the destination"
	default:
		for _, el := range strings.Split(name, "/") {
			if len(el) > maxLocalName {
				why = fmt.Sprintf("an element of it is %d bytes long, over the %d a local name can hold", len(el), maxLocalName)
				break
			}
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("%s: %w: the name %s is unsafe to write: %s", url, errUnsafe, shellQuote(name), why)
}

// checkLink returns an error, naming url, unless the symbolic link name
// (a name in the tree copied) with the given target stays inside the copy: a relative target whose
// ".." elements all come first and climb no higher than the copy's top
// (a ".." after a name could climb out through a link).
func checkLink(url, name, target string) error {
	why := ""
	switch {
	case target == "":
		why = "its target is empty"
	case strings.IndexByte(target, 0) >= 0:
		why = "its target holds a NUL byte"
	case path.IsAbs(target) || filepath.IsAbs(target) || filepath.VolumeName(target) != "":
		why = "its target is absolute"
	default:
		depth := strings.Count(name, "/") // directories above the link
		named := false
		for _, el := range strings.Split(target, "/") {
			switch el {
			case "", ".":
			case "..":
				if named {
					why = `its target has ".." after a name`
				}
				depth--
			default:
				named = true
			}
			if depth < 0 {
				why = "its target leaves the copy"
			}
			if why != "" {
				break
			}
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("%s: %w: the symbolic link %s -> %s: %s", url, errUnsafe, shellQuote(name), shellQuote(target), why)
}

// An item is one entry of a tree to copy.
type item struct {
	name string // in the source FS
	info fs.FileInfo
}

// A treeCopy copies a directory location below a copier's root.
type treeCopy struct {
	*copier
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
			if strings.HasSuffix(it.name, partialSuffix) || strings.HasSuffix(it.name, sourceSuffix) {
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
		if err := checkLocalName(url, it.name); err != nil {
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
		c := *t.copier
		c.verbose = verbose
		return c.copyFile(dst, source{info: it.info, url: url, open: func() (*vfs.File, error) {
			return t.fsys.OpenFile(it.name)
		}})
	default:
		return fmt.Errorf("%s: %w: %s is a %s; cp copies files, directories and symbolic links",
			url, errUnsafe, shellQuote(it.name), kindOf(mode))
	}
}

// kindOf names the type of a special file.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "file of type " + m.Type().String()
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

// describeKind names the type of a local file for a message.
func describeKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	}
	return kindOf(m)
}

// symlink makes dst a symbolic link like the entry name, when its target
// stays inside the copy.
func (t *treeCopy) symlink(url, name, dst string, verbose io.Writer) error {
	target, err := fs.ReadLink(t.fsys, name)
	if err != nil {
		return fmt.Errorf("%s: reading the target of the symbolic link: %w", url, err)
	}
	if err := checkLink(url, name, target); err != nil {
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

// reportOmittedEntries reports, as failures, the entries below the
// directory key of the archive under fsys that the archive left out
// because their names cannot be written (driver.Omitter): cp refuses
// them; and the damage that ended the archive's listing early, if any.
// It returns whether there were any.
func reportOmittedEntries(t *treeCopy, report func(error)) bool {
	var o driver.Omitter
	if !t.fsys.As(&o) {
		return false
	}
	list, err := o.Omitted(t.ctx)
	if err != nil {
		report(err)
		return true
	}
	p := t.fsys.Pipeline()
	key := p[len(p)-1].Key()
	archive := p
	if len(archive) > 1 {
		archive = archive[:len(archive)-1]
	}
	found := false
	for _, om := range list {
		if om.Err != nil {
			// The archive is damaged: the copy may lack members, or
			// hold bytes no check vouched for.
			report(fmt.Errorf("%s: damaged, the copy is incomplete: %w", archive, om.Err))
			found = true
			continue
		}
		if key != "." && !strings.HasPrefix(om.Name, key+"/") {
			continue
		}
		at := ""
		if om.Offset >= 0 {
			at = fmt.Sprintf(" at offset %d", om.Offset)
		}
		report(fmt.Errorf("%s: %w: the entry %s%s is not copied: %s", archive, errUnsafe, shellQuote(om.Name), at, om.Reason))
		found = true
	}
	return found
}

// treeName is NAME, what a copy of the directory location of fsys is
// called inside an existing directory: the last element of its path, or
// for the root of a container (a.zip, opened by detection as
// a.zip|zip:) the container's name without the extensions that the
// adapters at its end stand for (a.tar.gz|gzip:|pipefs.tar: is "a").
func treeName(p vfs.Pipeline) (string, error) {
	strip := 0
	for i := len(p) - 1; i >= 0; i-- {
		k := p[i].Key()
		if k == "." {
			if i > 0 {
				strip++
			}
			continue
		}
		name := path.Base(k)
		for ; strip > 0; strip-- {
			ext := path.Ext(name)
			if ext == "" || ext == name {
				break
			}
			name = strings.TrimSuffix(name, ext)
		}
		return name, nil
	}
	return "", fmt.Errorf("%s has no name to give its copy: name the destination, which must not exist", p)
}
