package array

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// OpenNode opens the dataset that pipeline names and returns its node and
// what holds it open (a *vfs.FS, or a *vfs.File for a file node); the
// caller closes it when done with the node. The pipeline may end in an
// array adapter ("...|zarr3:a/b") or at a directory that holds a dataset
// ("file:/d/x.zarr/"), whose format is then detected among the registered
// dataset formats (o.NoDetect turns that off). It may also name a file
// whose Stat().Sys() is a [Noder]: an HDF5 dataset ("...|hdf5:/g/d"), a
// decoded image ("...|png:").
func OpenNode(ctx context.Context, pipeline string, o *vfs.Options) (*Node, io.Closer, error) {
	if n, f, err := openFileNode(ctx, pipeline, o); n != nil || err != nil {
		return n, f, err
	}
	fsys, err := vfs.OpenFS(ctx, pipeline, o)
	if errors.Is(err, vfs.ErrNotDir) && (o == nil || !o.NoDetect) {
		// A file whose detected format yields a file dataset (an image).
		if n, f, derr := detectFileNode(ctx, pipeline, o); n != nil || derr != nil {
			return n, f, derr
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if n, err := nodeOfFS(fsys); err != nil || n != nil {
		if err != nil {
			fsys.Close()
		}
		return n, fsys, err
	}
	if o != nil && o.NoDetect {
		fsys.Close()
		return nil, nil, fmt.Errorf("%s: %w: not an array or group", pipeline, vfs.ErrUnknownFormat)
	}
	reg := vfs.DefaultRegistry
	if o != nil && o.Registry != nil {
		reg = o.Registry
	}
	u, ok, err := reg.DetectDir(ctx, FSTree(fsys), true)
	p := fsys.Pipeline()
	fsys.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", pipeline, err)
	}
	if !ok {
		return nil, nil, fmt.Errorf("%s: %w: not a dataset of any of the formats %s", pipeline, vfs.ErrUnknownFormat, datasetFormats(reg))
	}
	if fsys, err = vfs.OpenFS(ctx, p.Append(u).String(), o); err != nil {
		return nil, nil, err
	}
	n, err := nodeOfFS(fsys)
	if err == nil && n == nil {
		err = fmt.Errorf("%s: %w: not an array or group", fsys.Pipeline(), vfs.ErrUnknownFormat)
	}
	if err != nil {
		fsys.Close()
		return nil, nil, err
	}
	return n, fsys, nil
}

// OpenArray is OpenNode followed, when child is not empty, by Node.Child:
// it names a child of the node the pipeline ends at, for formats whose
// adapter takes no path (a precomputed scale key). The node must be an
// array.
func OpenArray(ctx context.Context, pipeline, child string, o *vfs.Options) (*Array, io.Closer, error) {
	n, fsys, err := OpenNode(ctx, pipeline, o)
	if err != nil {
		return nil, nil, err
	}
	if child != "" {
		if n, err = n.Child(ctx, child); err != nil {
			fsys.Close()
			return nil, nil, err
		}
	}
	if n.Array == nil {
		fsys.Close()
		return nil, nil, fmt.Errorf("%s: a %s group, not an array (children: %s): %w", pipeline, n.Format, strings.Join(n.Children, ", "), driver.ErrIsDir)
	}
	return n.Array, fsys, nil
}

// openFileNode opens a pipeline whose last stage reads a file and yields
// a dataset (hdf5:, png:) when it names a file: it returns the node of that
// file when its Sys is a Noder, with the open file. It returns neither,
// and no error, when the pipeline names no such file (a directory, such as
// an HDF5 group, or a file of another kind): OpenNode then goes on as for
// a directory. Any other failure to open the file is the answer.
func openFileNode(ctx context.Context, pipeline string, o *vfs.Options) (*Node, *vfs.File, error) {
	p, err := vfs.Parse(pipeline)
	if err != nil || len(p) < 2 {
		return nil, nil, nil
	}
	last := p[len(p)-1]
	// An adapter that reads a file and yields a dataset (hdf5:, png:), or
	// a vendor adapter, whose kinds the scheme table does not fix
	// (pipefs.pages:page/N).
	base, yields, _ := vfs.SchemeKinds(last.Scheme)
	if base == vfs.KindDirectory || yields != vfs.KindDataset && yields != vfs.KindUnknown || (last.IsDir() && last.Key() != ".") {
		return nil, nil, nil
	}
	f, err := vfs.Open(ctx, p.String(), o)
	if errors.Is(err, vfs.ErrIsDir) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if info, err := f.Stat(); err == nil && !info.IsDir() {
		if n := NodeOf(info); n != nil {
			return n, f, nil
		}
	}
	f.Close()
	return nil, nil, nil
}

// detectFileNode detects the format of the file that pipeline names and,
// when it is one whose adapter yields a file dataset (an image), opens the
// pipeline with that adapter appended as openFileNode does. It returns
// neither, and no error, when no format matches; a failure to read the
// file is the answer.
func detectFileNode(ctx context.Context, pipeline string, o *vfs.Options) (*Node, *vfs.File, error) {
	p, err := vfs.Parse(pipeline)
	if err != nil {
		return nil, nil, nil
	}
	f, err := vfs.Open(ctx, p.String(), o)
	if err != nil {
		return nil, nil, err
	}
	var b driver.Blob
	if !f.As(&b) {
		f.Close()
		return nil, nil, nil
	}
	reg := vfs.DefaultRegistry
	if o != nil && o.Registry != nil {
		reg = o.Registry
	}
	u, err := reg.Detect(ctx, b)
	f.Close()
	if errors.Is(err, vfs.ErrUnknownFormat) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", pipeline, err)
	}
	return openFileNode(ctx, p.Append(u).String(), o)
}

func nodeOfFS(fsys *vfs.FS) (*Node, error) {
	info, err := fsys.Stat(".")
	if err != nil {
		return nil, err
	}
	return NodeOf(info), nil
}

// datasetFormats names the dataset formats of reg, for an error message.
func datasetFormats(reg *vfs.Registry) string {
	var names []string
	for _, f := range reg.Formats() {
		if f.Dataset && f.Input == vfs.KindDirectory {
			names = append(names, f.Name)
		}
	}
	return strings.Join(names, ", ")
}
