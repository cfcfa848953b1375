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
	datasets := map[string]bool{"hdf5": true}
	for _, f := range reg.Formats() {
		if f.Input == vfs.KindDirectory && f.Dataset {
			datasets[strings.TrimSuffix(f.Adapter, ":")] = true
		}
	}
	return &deepener{ctx: ctx, g: g, reg: reg, depth: d.depth, head: make([]byte, reg.HeadLen()), datasets: datasets}, nil
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
	depth    int    // how many containers deep it opens
	head     []byte // the buffer of heads, HeadLen long
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
	if d == nil || level >= d.depth || dataset || !info.Mode().IsRegular() || info.Size() == 0 || d.isDataset(fsys) {
		return nil, nil
	}
	n, err := d.readHead(fsys, name, info.Size())
	if errors.Is(err, errors.ErrUnsupported) || errors.Is(err, fs.ErrPermission) {
		return nil, nil // an encrypted member, an unreadable file: listed as it is
	}
	if err != nil {
		return nil, err
	}
	if d.reg.SniffHead(d.head[:n]) == nil {
		return nil, nil
	}
	nested, err := vfs.OpenFS(d.ctx, fsys.URL(name), d.g.options())
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

// readHead reads the first bytes of the file name of fsys, of the given
// size, into d.head and returns how many it read.
func (d *deepener) readHead(fsys *vfs.FS, name string, size int64) (int, error) {
	// The head only chooses a format: it is read unchecked, as format
	// detection reads (driver.Unverified); what is then opened is checked.
	f, err := fsys.WithContext(driver.Unverified(d.ctx)).OpenFile(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := f.ReadAt(d.head[:min(int64(len(d.head)), size)], 0)
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
