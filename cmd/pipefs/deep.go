package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// defaultDepth is how deep --deep opens nested containers unless --depth
// says otherwise.
const defaultDepth = 8

// deepFlags are the flags of a deep listing: ls and tree --deep.
type deepFlags struct {
	on    bool
	depth int
	cmd   *cobra.Command // the command the flags belong to
}

func (d *deepFlags) add(cmd *cobra.Command) {
	d.cmd = cmd
	cmd.Flags().BoolVar(&d.on, "deep", false, "list container files (zip, tar, tar.gz, HDF5, ...) as the directories they hold")
	cmd.Flags().IntVar(&d.depth, "depth", defaultDepth, "with --deep, open containers nested at most `N` deep")
}

// deepener returns what opens the containers of a deep listing, nil when
// --deep is off, or a usage error for a negative --depth or one without
// --deep.
func (g *globals) deepener(ctx context.Context, d deepFlags) (*deepener, error) {
	if d.depth < 0 {
		return nil, usageError{fmt.Errorf("--depth %d: want 0 or more", d.depth)}
	}
	if !d.on && d.cmd != nil && d.cmd.Flags().Changed("depth") {
		// Not a bound on -R: say so rather than list everything.
		return nil, usageError{errors.New("--depth goes with --deep: it bounds how many containers deep --deep opens")}
	}
	if !d.on {
		return nil, nil
	}
	reg := registry(g.options())
	// The adapters that yield datasets: by the grammar (hdf5:, zarr:),
	// and the directory formats registered as datasets.
	datasets := map[string]bool{}
	for _, s := range reg.Schemes() {
		if _, yields, _ := vfs.SchemeKinds(s); yields == vfs.KindDataset {
			datasets[s] = true
		}
	}
	for _, f := range reg.Formats() {
		if f.Input == vfs.KindDirectory && f.Dataset {
			datasets[strings.TrimSuffix(f.Adapter, ":")] = true
		}
	}
	return &deepener{ctx: ctx, g: g, reg: reg, depth: d.depth, sem: make(chan struct{}, deepAhead), datasets: datasets}, nil
}

// A deepener opens, for a deep listing, the container files that the
// listing meets as the directories they hold. Only a file whose first
// bytes look like a container (vfs.Registry.SniffHead) is opened, through
// the formats that detection appends ("gzip:|pipefs.tar:" for a tar.gz),
// so a plain file costs the read of its head and nothing more. The files
// of an HDF5 file, of a Zarr, N5 or precomputed dataset, are datasets and
// chunks: they are never read.
type deepener struct {
	ctx      context.Context
	g        *globals
	reg      *vfs.Registry
	depth    int           // how many containers deep it opens
	sem      chan struct{} // bounds the opens under way, deepAhead
	datasets map[string]bool
}

// A nest is a container file opened as the directory it holds.
type nest struct {
	fsys   *vfs.FS
	format string // the formats appended to the file: "zip", "gzip|tar"
}

// open returns the directory that the file name of fsys, described by
// info, holds; level is how many containers deep fsys is. It returns nil
// when the file holds none, when d is nil (--deep is off), when level has
// reached the depth bound, or when the file is a dataset or inside one
// (dataset). An error is a container that does not open, or a file whose
// head could not be read; the caller reports it and lists the file.
func (d *deepener) open(fsys *vfs.FS, name string, info fs.FileInfo, level int, dataset bool) (*nest, error) {
	if !d.candidate(fsys, info, level, dataset) {
		return nil, nil
	}
	head := make([]byte, d.reg.HeadLen())
	n, err := d.readHead(fsys, name, head[:min(int64(len(head)), info.Size())])
	if errors.Is(err, errors.ErrUnsupported) || errors.Is(err, fs.ErrPermission) {
		return nil, nil // an encrypted member, an unreadable file: listed as it is
	}
	if err != nil {
		return nil, err
	}
	if d.reg.SniffHead(head[:n]) == nil {
		return nil, nil
	}
	// Opened relative to fsys: read from its tree, as ranges of the
	// blobs it holds, with nothing above it opened again.
	nested, err := fsys.WithContext(d.ctx).OpenFS(name)
	if errors.Is(err, vfs.ErrNotDir) || errors.Is(err, vfs.ErrUnknownFormat) {
		return nil, nil // a compressed plain file, an image
	}
	if err != nil {
		return nil, err
	}
	d.g.count(nested)
	added := nested.Pipeline()
	added = added[min(len(fsys.Pipeline()), len(added)):]
	var names []string
	for _, u := range added {
		names = append(names, d.formatName(u.Scheme))
	}
	return &nest{fsys: nested, format: strings.Join(names, "|")}, nil
}

// candidate reports whether open may find a container in a file of fsys
// described by info (see open), without reading it.
func (d *deepener) candidate(fsys *vfs.FS, info fs.FileInfo, level int, dataset bool) bool {
	return d != nil && level < d.depth && !dataset && info.Mode().IsRegular() && info.Size() > 0 && !d.isDataset(fsys)
}

// readHead reads the first bytes of the file name of fsys into head and
// returns how many it read.
func (d *deepener) readHead(fsys *vfs.FS, name string, head []byte) (int, error) {
	// The head only chooses a format: it is read unchecked, as format
	// detection reads (driver.Unverified); what is then opened is checked.
	f, err := fsys.WithContext(driver.Unverified(d.ctx)).OpenFile(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	return n, nil
}

// formatName is the name of the format whose adapter has scheme, such as
// "tar" for "pipefs.tar", or the scheme when no format names it.
func (d *deepener) formatName(scheme string) string {
	for _, f := range d.reg.Formats() {
		if strings.EqualFold(strings.TrimSuffix(f.Adapter, ":"), scheme) {
			return f.Name
		}
	}
	return scheme
}

// isDataset reports whether fsys is an HDF5 file or a dataset (Zarr, N5,
// precomputed) opened through its adapter: every file of it is a dataset
// or a chunk.
func (d *deepener) isDataset(fsys *vfs.FS) bool {
	p := fsys.Pipeline()
	return len(p) > 1 && d.datasets[strings.ToLower(p[len(p)-1].Scheme)]
}

// inDataset reports whether directory dir of fsys, listed as ents, is an
// array or a group of a dataset format (Zarr, N5, precomputed), whose
// files are chunks and metadata, never containers.
func (d *deepener) inDataset(fsys *vfs.FS, dir string, ents []fs.DirEntry) bool {
	if d == nil || len(ents) == 0 {
		return false
	}
	t := driver.SubTree(array.FSTree(fsys.WithContext(d.ctx)), dir)
	_, ok, err := d.reg.DetectDir(d.ctx, &listedTree{Tree: t, ents: ents}, true)
	return ok || err != nil // several formats: a dataset all the same
}

// deepAhead bounds the containers a deep listing opens at once: the
// heads and directories of the files of a directory are read
// concurrently, ahead of the rows, which still come in order.
const deepAhead = 16

// An opening is the open of one file of a directory listed deep.
type opening struct {
	done chan struct{}
	n    *nest
	err  error
}

// An aheadOpener opens the container files among the entries of one
// directory, up to deepAhead of them ahead of the entry the listing is
// at, so that a listing of many nested containers waits for their
// requests together, not one after another. Every open also holds a slot
// of the deepener's bound while it runs, however deep it is.
type aheadOpener struct {
	d       *deepener
	fsys    *vfs.FS
	names   []string      // the entries' names in fsys
	infos   []fs.FileInfo // nil for an entry that is not a candidate
	level   int
	dataset bool
	opens   []*opening // started, by entry; nil for none
	next    int        // the next entry to consider starting
	taken   int        // entries before it were taken with get
}

// ahead returns the opener of the files names of fsys, described by
// infos (nil for one whose FileInfo failed): level and dataset are as for
// open. It returns nil when d is nil (--deep is off).
func (d *deepener) ahead(fsys *vfs.FS, names []string, infos []fs.FileInfo, level int, dataset bool) *aheadOpener {
	if d == nil {
		return nil
	}
	a := &aheadOpener{d: d, fsys: fsys, names: names, infos: make([]fs.FileInfo, len(infos)), level: level, dataset: dataset, opens: make([]*opening, len(infos))}
	for i, info := range infos {
		if info != nil && d.candidate(fsys, info, level, dataset) {
			a.infos[i] = info
		}
	}
	a.fill()
	return a
}

// fill starts the opens of the candidates up to deepAhead entries past
// the last one taken.
func (a *aheadOpener) fill() {
	for ; a.next < len(a.names) && a.next < a.taken+deepAhead; a.next++ {
		info := a.infos[a.next]
		if info == nil {
			continue
		}
		o := &opening{done: make(chan struct{})}
		a.opens[a.next] = o
		name := a.names[a.next]
		go func() {
			defer close(o.done)
			select {
			case a.d.sem <- struct{}{}:
				defer func() { <-a.d.sem }()
			case <-a.d.ctx.Done():
				o.err = a.d.ctx.Err()
				return
			}
			o.n, o.err = a.d.open(a.fsys, name, info, a.level, a.dataset)
		}()
	}
}

// get returns what open gives for entry i, waiting for it; entries are
// taken in order, each once.
func (a *aheadOpener) get(i int) (*nest, error) {
	if a == nil {
		return nil, nil
	}
	a.taken = i + 1
	o := a.opens[i]
	a.opens[i] = nil
	a.fill()
	if o == nil {
		return nil, nil
	}
	<-o.done
	return o.n, o.err
}

// close waits for the opens not taken (a listing cancelled part way) and
// closes what they opened.
func (a *aheadOpener) close() {
	if a == nil {
		return
	}
	for i, o := range a.opens {
		if o == nil {
			continue
		}
		<-o.done
		if o.n != nil {
			o.n.fsys.Close()
		}
		a.opens[i] = nil
	}
}
