package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/adapters/hdf5adapter"
	"github.com/pipefs/pipefs/adapters/imageadapter"
	"github.com/pipefs/pipefs/adapters/precomputedadapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// writeDescription writes a description of n to w: indented JSON (the
// Node's fields as its struct tags name them) when asJSON is set, else
// text, one "name: value" line per field.
func writeDescription(w io.Writer, n *array.Node, asJSON bool) error {
	return writeDescriptionHDF5(w, n, nil, asJSON)
}

// writeNode writes a description of n to w: that of writeDescription,
// followed by the specifics of an HDF5 dataset or of an image (the node's
// Source).
func writeNode(w io.Writer, n *array.Node, asJSON bool) error {
	var ds *hdf5adapter.Dataset
	var im *imageadapter.Image
	if n.IsArray {
		ds, _ = n.Source.(*hdf5adapter.Dataset)
		im, _ = n.Source.(*imageadapter.Image)
	}
	return writeDescriptionExtra(w, n, ds, im, asJSON)
}

// writeDescriptionHDF5 is writeDescription for a node that may be an HDF5
// dataset ds (nil for any other node): its HDF5 specifics follow, in an
// "hdf5" object of the JSON, or as "hdf5 ..." lines of the text.
func writeDescriptionHDF5(w io.Writer, n *array.Node, ds *hdf5adapter.Dataset, asJSON bool) error {
	return writeDescriptionExtra(w, n, ds, nil, asJSON)
}

// writeDescriptionExtra is writeDescriptionHDF5 for a node that may also
// be a decoded image im (nil for any other node): what the file states
// about colour follows, in an "image" object of the JSON, or as
// "image ..." lines of the text.
func writeDescriptionExtra(w io.Writer, n *array.Node, ds *hdf5adapter.Dataset, im *imageadapter.Image, asJSON bool) error {
	if asJSON {
		v := struct {
			*array.Node
			HDF5  *hdf5adapter.Dataset `json:"hdf5,omitempty"`
			Image *imageadapter.Image  `json:"image,omitempty"`
		}{n, ds, im}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	var b strings.Builder
	line := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-16s %s\n", k+":", fmt.Sprintf(format, args...))
	}
	line("format", "%s", n.Format)
	kind := "group"
	if n.IsArray {
		kind = "array"
	}
	line("node", "%s", kind)
	line("path", "%s", n.Path)
	if a := n.Array; a != nil {
		line("shape", "%v", a.Shape)
		line("chunk shape", "%v (grid %v)", a.ChunkShape, a.GridShape())
		if a.ShardShape != nil {
			line("shard shape", "%v", a.ShardShape)
		}
		size := fmt.Sprintf("%d bytes", a.DType.Size)
		if a.DType.Variable() {
			size = "variable length"
		}
		line("data type", "%s (stored %q, %s)", a.DType.Name, a.DType.Stored, size)
		if fill := compact(a.FillValue); fill != "null" || ds == nil {
			line("fill value", "%s", fill)
		} else {
			line("fill value", "undefined (reads as zeros)")
		}
		if a.Order != "" {
			line("order", "%s", a.Order)
		}
		if a.DimensionNames != nil {
			line("dimension names", "%q", a.DimensionNames)
		}
		line("chunk keys", "%s", a.KeyEncoding)
		var cs []string
		for _, c := range a.Codecs {
			s := c.Name
			if len(c.Config) > 0 && string(c.Config) != "null" {
				s += " " + compact(c.Config)
			}
			cs = append(cs, s)
		}
		line("codecs", "%s", strings.Join(cs, ", "))
	}
	line("attributes", "%s", compact(n.Attributes))
	if ds != nil {
		line("hdf5 type", "%s (%d bytes)", dtypeText(&ds.DType), ds.DType.Size)
		line("hdf5 layout", "%s", ds.Layout)
		if ds.ChunkIndex != "" {
			line("hdf5 index", "%s", ds.ChunkIndex)
		}
		if ds.MaxShape != nil {
			line("hdf5 max shape", "%v (-1: unlimited)", ds.MaxShape)
		}
		var fs []string
		for _, f := range ds.Filters {
			fs = append(fs, fmt.Sprintf("%s (id %d, values %v)", f.Name, f.ID, f.Values))
		}
		if fs != nil {
			line("hdf5 filters", "%s", strings.Join(fs, ", "))
		}
		if ds.Fill != nil {
			line("hdf5 fill", "% x (stored bytes)", ds.Fill)
		} else {
			line("hdf5 fill", "undefined (reads as zeros)")
		}
	}
	if im != nil {
		writeImage(line, im)
	}
	if !n.IsArray {
		src := ""
		if n.Consolidated {
			src = " (consolidated metadata)"
		}
		line("children", "%s%s", strings.Join(n.Children, ", "), src)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// parseBox parses a box like "0:2,1:3" for an array of shape: one entry
// per leading axis, each "start:stop" (either may be omitted: ":" is the
// whole axis) or a single index "i" (i:i+1). Missing trailing entries mean
// whole axes. It returns the start and stop corners.
func parseBox(s string, shape []int64) (start, stop []int64, err error) {
	start, stop = make([]int64, len(shape)), append([]int64(nil), shape...)
	if strings.TrimSpace(s) == "" {
		return start, stop, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > len(shape) {
		return nil, nil, fmt.Errorf("box %q has %d entries for %d dimensions: %w", s, len(parts), len(shape), fs.ErrInvalid)
	}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		lo, hi, isRange := strings.Cut(p, ":")
		num := func(v string, def int64) (int64, error) {
			if v == "" {
				return def, nil
			}
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
		a, err := num(lo, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("box %q: %w", s, fs.ErrInvalid)
		}
		b := a + 1
		if isRange {
			if b, err = num(hi, shape[i]); err != nil {
				return nil, nil, fmt.Errorf("box %q: %w", s, fs.ErrInvalid)
			}
		}
		if a < 0 || b < a || b > shape[i] {
			return nil, nil, fmt.Errorf("box %q: axis %d range %d:%d outside 0:%d: %w", s, i, a, b, shape[i], fs.ErrInvalid)
		}
		start[i], stop[i] = a, b
	}
	return start, stop, nil
}

// parseChunk parses chunk coordinates like "1,0,2" (empty for a 0-d
// array).
func parseChunk(s string) ([]int64, error) {
	if strings.TrimSpace(s) == "" {
		return []int64{}, nil
	}
	parts := strings.Split(s, ",")
	out := make([]int64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("chunk %q: %w", s, fs.ErrInvalid)
		}
		out[i] = v
	}
	return out, nil
}

// arrayLabel describes, for a tree listing, the node that directory name
// of fsys holds, if it holds one: "zarr3 array int16 [4]", "zarr2 group",
// "n5 array uint16 [4 5]", "neuroglancer-precomputed volume (3 scales)",
// or "zarr2 (invalid: ...)" when its metadata does not describe. ok is
// false for directories that hold no node.
//
// The directory's format is the one the dataset formats of reg detect
// (Registry.DetectDir), as opening the directory would detect it; that
// format then describes the node from its own metadata, without listing
// its children. ents, the directory's listing, answers whether a file
// exists in it, so a directory without metadata costs no request.
func arrayLabel(ctx context.Context, reg *vfs.Registry, fsys fs.FS, name string, ents []fs.DirEntry) (label string, ok bool) {
	t := driver.SubTree(array.FSTree(fsys), name)
	if ents != nil {
		t = &listedTree{Tree: t, ents: ents}
	}
	u, ok, err := reg.DetectDir(ctx, t, true)
	if err != nil || !ok {
		return "", false
	}
	format := u.Scheme
	src := &array.Source{Tree: t, Registry: reg}
	n, err := src.Describe(ctx, format, ".")
	switch {
	case err != nil:
		return fmt.Sprintf("%s (invalid: %v)", format, err), true
	case n.Array != nil:
		return fmt.Sprintf("%s array %s %v", n.Format, n.Array.DType.Name, n.Array.Shape), true
	case n.Format == precomputedadapter.FormatPrecomputed:
		return fmt.Sprintf("%s volume (%d scales)", n.Format, len(n.Children)), true
	}
	return n.Format + " group", true
}

// listedTree is a directory whose listing is known: a name missing from
// the listing does not exist, without asking the tree.
type listedTree struct {
	driver.Tree
	ents []fs.DirEntry
}

func (t *listedTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if name != "." && !strings.Contains(name, "/") && !slices.ContainsFunc(t.ents, func(e fs.DirEntry) bool { return e.Name() == name }) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return t.Tree.Stat(ctx, name)
}

func (t *listedTree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	if _, err := t.Stat(ctx, name); err != nil {
		return nil, err
	}
	return t.Tree.OpenBlob(ctx, name)
}

// registry is the registry that o opens pipelines with.
func registry(o *vfs.Options) *vfs.Registry {
	if o != nil && o.Registry != nil {
		return o.Registry
	}
	return vfs.DefaultRegistry
}

// writeImage writes the "image ..." lines of the description of im.
func writeImage(line func(k, format string, args ...any), im *imageadapter.Image) {
	line("image format", "%s", im.Format)
	line("image channels", "%s", im.Channels)
	model := im.ColorModel
	if im.PaletteSize > 0 {
		model += fmt.Sprintf(" (%d entries)", im.PaletteSize)
	}
	line("image color", "%s", model)
	if im.BitDepth > 0 {
		line("image bit depth", "%d", im.BitDepth)
	}
	if im.Transparency {
		line("image alpha", "yes")
	}
	if im.AssociatedAlpha {
		line("image alpha", "associated (premultiplied, as stored)")
	}
	if im.Gamma != 0 {
		line("image gamma", "%g", im.Gamma)
	}
	if im.SRGB {
		line("image sRGB", "yes")
	}
	icc := "none"
	if im.ICC {
		icc = "embedded (not applied)"
	}
	line("image ICC", "%s", icc)
	if im.Orientation != 0 {
		line("image orient", "%d (not applied)", im.Orientation)
	}
	if im.Compression != "" {
		line("image codec", "%s", im.Compression)
	}
	line("image page", "%d of %d", im.Page+1, max(im.Pages, 1))
}
