package deep

import (
	"io/fs"

	"github.com/pipefs/pipefs/vfs"
)

// An Entry is an entry of a directory walked deep.
type Entry struct {
	fs.DirEntry
	// FS is the FS the entry is listed from: the walked FS, or a
	// container nested in it.
	FS *vfs.FS
	// Name is the entry's name in FS, as FS.Open takes it.
	Name string
	// Level is how many containers deep FS is: 0 for the walked FS.
	Level int
	// Nested is, for a container file, the directory it holds, opened
	// relative to FS ((*vfs.FS).OpenFS); nil for any other entry.
	Nested *vfs.FS
	// Format names the formats Nested was opened through, as the
	// registry names them: "zip", "gzip|tar".
	Format string

	info    fs.FileInfo
	infoErr error
	infoSet bool
}

// Info returns the entry's FileInfo, read once: for a container, that of
// the file, as FS describes it.
func (e *Entry) Info() (fs.FileInfo, error) {
	if !e.infoSet {
		e.info, e.infoErr = e.DirEntry.Info()
		e.infoSet = true
	}
	return e.info, e.infoErr
}

// IsContainer reports whether the entry is a container file opened as the
// directory it holds (Nested is set).
func (e *Entry) IsContainer() bool { return e.Nested != nil }

// An opening is the open of one entry's container.
type opening struct {
	done   chan struct{}
	nested *vfs.FS
	format string
	err    error
}

// A Dir gives the entries of one directory, in order, with each container
// file among them opened, up to Options.Concurrency entries ahead of the
// one taken last: a directory of many nested containers waits for their
// opens together, not one after another. Every open also holds a slot of
// the Walker's bound while it runs, however deep it is.
//
// A Dir is used by one goroutine. Its caller closes the Nested FS of each
// Entry that Next returns, and closes the Dir, which waits for the opens
// not taken and closes what they opened.
type Dir struct {
	w       *Walker
	fsys    *vfs.FS
	ents    []*Entry
	errs    []error    // the entries' Info errors, when they were read
	opens   []*opening // started, by entry; nil for none
	next    int        // the next entry to consider starting
	taken   int        // how many entries Next returned
	level   int
	dataset bool
}

// Dir returns the entries ents of directory dir of fsys, which is level
// containers deep; dataset is set when dir is, or is below, an array or
// a group (InDataset), whose files are never opened. The opens start at
// once, with fsys's context.
func (w *Walker) Dir(fsys *vfs.FS, dir string, ents []fs.DirEntry, level int, dataset bool) *Dir {
	d := &Dir{w: w, fsys: fsys, ents: make([]*Entry, len(ents)), errs: make([]error, len(ents)), opens: make([]*opening, len(ents)), level: level, dataset: dataset}
	for i, de := range ents {
		name := de.Name() // a base name: joining it needs no path.Clean
		if dir != "." {
			name = dir + "/" + name
		}
		e := &Entry{DirEntry: de, FS: fsys, Name: name, Level: level}
		if w.Deep() {
			// Containers are chosen by their FileInfos.
			_, d.errs[i] = e.Info()
		}
		d.ents[i] = e
	}
	d.fill()
	return d
}

// Len returns how many entries d has.
func (d *Dir) Len() int { return len(d.ents) }

// fill starts the opens of the candidates up to the concurrency bound
// past the last entry taken.
func (d *Dir) fill() {
	ctx := d.fsys.Context()
	for ; d.next < len(d.ents) && d.next < d.taken+d.w.ahead; d.next++ {
		e := d.ents[d.next]
		if !d.w.Deep() || d.errs[d.next] != nil || !d.w.candidate(d.fsys, e.info, d.level, d.dataset) {
			continue
		}
		o := &opening{done: make(chan struct{})}
		d.opens[d.next] = o
		go func() {
			defer close(o.done)
			select {
			case d.w.sem <- struct{}{}:
				defer func() { <-d.w.sem }()
			case <-ctx.Done():
				o.err = ctx.Err()
				return
			}
			o.nested, o.format, o.err = d.w.open(d.fsys, e.Name, e.info)
		}()
	}
}

// Next returns the next entry, waiting for its open, or nil after the
// last. The error is the entry's Info error, or that of a container that
// did not open; the entry, a file then, is returned with it.
func (d *Dir) Next() (*Entry, error) {
	if d.taken >= len(d.ents) {
		return nil, nil
	}
	i := d.taken
	d.taken++
	e, o := d.ents[i], d.opens[i]
	d.opens[i] = nil
	d.fill()
	if d.errs[i] != nil {
		return e, d.errs[i]
	}
	if o == nil {
		return e, nil
	}
	<-o.done
	e.Nested, e.Format = o.nested, o.format
	return e, o.err
}

// Close waits for the opens not taken (a walk ended part way) and closes
// what they opened. It does not close the Nested FS of the entries Next
// returned.
func (d *Dir) Close() error {
	for i, o := range d.opens {
		if o == nil {
			continue
		}
		<-o.done
		if o.nested != nil {
			o.nested.Close()
		}
		d.opens[i] = nil
	}
	return nil
}
