package deep

import (
	"errors"
	"io"
	"io/fs"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/internal/nodedesc"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// DefaultDepth is how many containers deep a walk opens when
// Options.Depth is 0.
const DefaultDepth = 8

// DefaultConcurrency is how many containers a walk opens at once when
// Options.Concurrency is 0.
const DefaultConcurrency = 16

// Options configure a deep walk. The zero value, and a nil *Options, open
// containers DefaultDepth deep, DefaultConcurrency at once, with the
// formats of vfs.DefaultRegistry.
type Options struct {
	// Depth bounds how many containers deep the walk opens: 1 opens the
	// containers of the walked FS and none inside them. 0 means
	// DefaultDepth; a negative Depth opens none, and the walk is then
	// fs.WalkDir's.
	Depth int
	// Concurrency bounds how many containers are being opened at once,
	// and how many entries ahead of the one the walk is at. 0 means
	// DefaultConcurrency.
	Concurrency int
	// Registry detects the formats of the files walked: it should be the
	// registry the walked FS was opened with. nil means vfs.DefaultRegistry.
	Registry *vfs.Registry
	// BeforeClose, when set, is called for each container entry after its
	// contents have been walked (or skipped), before the walk closes its
	// nested FS: the place to ask it what it left out (driver.Omitter).
	// An error it returns ends the walk as one returned by fn does.
	BeforeClose func(path string, nested *vfs.FS) error
}

// A Walker opens the container files of the directories it is given as
// the directories they hold. WalkDir walks with one; a caller that draws a
// directory at a time (as pipefs tree does) uses it directly. A Walker is
// safe for concurrent use: its bound on the opens under way holds across
// every Dir it returns.
type Walker struct {
	reg      *vfs.Registry
	depth    int           // how many containers deep it opens; 0 for none
	ahead    int           // how many entries ahead a Dir opens
	sem      chan struct{} // bounds the opens under way
	datasets map[string]bool
}

// NewWalker returns a Walker configured by opt, which may be nil.
func NewWalker(opt *Options) *Walker {
	var o Options
	if opt != nil {
		o = *opt
	}
	switch {
	case o.Depth == 0:
		o.Depth = DefaultDepth
	case o.Depth < 0:
		o.Depth = 0
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Registry == nil {
		o.Registry = vfs.DefaultRegistry
	}
	// The adapters that yield datasets: by the grammar (hdf5:, zarr:),
	// and the directory formats registered as datasets.
	datasets := map[string]bool{}
	for _, s := range o.Registry.Schemes() {
		if _, yields, _ := vfs.SchemeKinds(s); yields == vfs.KindDataset {
			datasets[s] = true
		}
	}
	for _, f := range o.Registry.Formats() {
		if f.Input == vfs.KindDirectory && f.Dataset {
			datasets[strings.TrimSuffix(f.Adapter, ":")] = true
		}
	}
	return &Walker{reg: o.Registry, depth: o.Depth, ahead: o.Concurrency, sem: make(chan struct{}, o.Concurrency), datasets: datasets}
}

// Deep reports whether w opens containers at all (Options.Depth is not
// negative).
func (w *Walker) Deep() bool { return w.depth > 0 }

// open returns the directory that the file name of fsys, described by
// info, holds, and its format ("zip", "gzip|tar"); nil when it holds none.
// An error is a container that does not open, or a file whose head could
// not be read.
func (w *Walker) open(fsys *vfs.FS, name string, info fs.FileInfo) (*vfs.FS, string, error) {
	head := make([]byte, w.reg.HeadLen())
	n, err := readHead(fsys, name, head[:min(int64(len(head)), info.Size())])
	if errors.Is(err, errors.ErrUnsupported) || errors.Is(err, fs.ErrPermission) {
		return nil, "", nil // an encrypted member, an unreadable file: a file
	}
	if err != nil {
		return nil, "", err
	}
	if w.reg.SniffHead(head[:n]) == nil {
		return nil, "", nil
	}
	// Opened relative to fsys: read from its tree, as ranges of the
	// blobs it holds, with nothing above it opened again.
	nested, err := fsys.OpenFS(name)
	if errors.Is(err, vfs.ErrNotDir) || errors.Is(err, vfs.ErrUnknownFormat) {
		return nil, "", nil // an image, a format that holds no directory
	}
	if err != nil {
		return nil, "", err
	}
	added := nested.Pipeline()
	added = added[min(len(fsys.Pipeline()), len(added)):]
	var names []string
	for _, u := range added {
		names = append(names, w.formatName(u.Scheme))
	}
	return nested, strings.Join(names, "|"), nil
}

// candidate reports whether open may find a container in a file of fsys
// described by info, level containers deep, without reading it.
func (w *Walker) candidate(fsys *vfs.FS, info fs.FileInfo, level int, dataset bool) bool {
	return level < w.depth && !dataset && info.Mode().IsRegular() && info.Size() > 0 && !w.isDataset(fsys)
}

// readHead reads the first bytes of the file name of fsys into head and
// returns how many it read.
func readHead(fsys *vfs.FS, name string, head []byte) (int, error) {
	// The head only chooses a format: it is read unchecked, as format
	// detection reads (driver.Unverified); what is then opened is checked.
	f, err := fsys.WithContext(driver.Unverified(fsys.Context())).OpenFile(name)
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
func (w *Walker) formatName(scheme string) string {
	for _, f := range w.reg.Formats() {
		if strings.EqualFold(strings.TrimSuffix(f.Adapter, ":"), scheme) {
			return f.Name
		}
	}
	return scheme
}

// isDataset reports whether fsys is an HDF5 file or a dataset (Zarr, N5,
// precomputed) opened through its adapter: every file of it is a dataset
// or a chunk.
func (w *Walker) isDataset(fsys *vfs.FS) bool {
	p := fsys.Pipeline()
	return len(p) > 1 && w.datasets[strings.ToLower(p[len(p)-1].Scheme)]
}

// InDataset reports whether directory dir of fsys, listed as ents, is an
// array or a group of a dataset format (Zarr, N5, precomputed), whose
// files are chunks and metadata, never containers. Detection reads the
// listing and the metadata files it names, nothing else. It reports
// false when w opens no containers.
func (w *Walker) InDataset(fsys *vfs.FS, dir string, ents []fs.DirEntry) bool {
	if !w.Deep() || len(ents) == 0 {
		return false
	}
	ctx := fsys.Context()
	t := driver.SubTree(array.FSTree(fsys), dir)
	_, ok, err := w.reg.DetectDir(ctx, &nodedesc.ListedTree{Tree: t, Entries: ents}, true)
	return ok || err != nil // several formats: a dataset all the same
}
