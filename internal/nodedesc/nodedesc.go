// Package nodedesc describes the node of an array or group (an
// array.Node) for people, once, for every front end that shows one: the
// text and JSON of "pipefs array" and of the pages of package browse,
// and the one-line label of a directory that holds a node ("zarr3 array
// int16 [4]") that listings show.
package nodedesc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/adapters/hdf5adapter"
	"github.com/pipefs/pipefs/adapters/imageadapter"
	"github.com/pipefs/pipefs/adapters/precomputedadapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// Write writes a description of n to w: indented JSON (the Node's fields
// as its struct tags name them) when asJSON is set, else text, one
// "name: value" line per field. The specifics of an HDF5 dataset or of an
// image (the node's Source) follow, in an "hdf5" or "image" object of the
// JSON, or as "hdf5 ..." or "image ..." lines of the text.
func Write(w io.Writer, n *array.Node, asJSON bool) error {
	var ds *hdf5adapter.Dataset
	var im *imageadapter.Image
	if n.IsArray {
		ds, _ = n.Source.(*hdf5adapter.Dataset)
		im, _ = n.Source.(*imageadapter.Image)
	}
	return write(w, n, ds, im, asJSON)
}

// write is Write for a node that may be an HDF5 dataset ds and a decoded
// image im (nil for any other node).
func write(w io.Writer, n *array.Node, ds *hdf5adapter.Dataset, im *imageadapter.Image, asJSON bool) error {
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
		line("hdf5 type", "%s (%d bytes)", DTypeText(&ds.DType), ds.DType.Size)
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

// DTypeText describes an HDF5 datatype: its NumPy string and class, and
// the fields of a compound, the members of an enum, the base and
// dimensions of an array.
func DTypeText(t *hdf5adapter.DType) string {
	s := t.String()
	if t.Class != "" && !strings.Contains(s, t.Class) {
		s += " " + t.Class
	}
	switch {
	case len(t.Fields) > 0:
		var fs []string
		for i := range t.Fields {
			f := &t.Fields[i]
			fs = append(fs, fmt.Sprintf("%s: %s at %d", f.Name, DTypeText(&f.Type), f.Offset))
		}
		s += " {" + strings.Join(fs, "; ") + "}"
	case len(t.Members) > 0:
		var ms []string
		for _, m := range t.Members {
			ms = append(ms, fmt.Sprintf("%s=%d", m.Name, m.Value))
		}
		s += " {" + strings.Join(ms, ", ") + "}"
		if t.Base != nil {
			s += " of " + DTypeText(t.Base)
		}
	case t.Class == "array" && t.Base != nil:
		s += fmt.Sprintf(" %v of %s", t.Dims, DTypeText(t.Base))
	}
	return s
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

// Label describes, for a listing, the node that directory name of fsys
// holds, if it holds one: "zarr3 array int16 [4]", "zarr2 group", "n5
// array uint16 [4 5]", "neuroglancer-precomputed volume (3 scales)", or
// "zarr2 (invalid: ...)" when its metadata does not describe. ok is false
// for directories that hold no node.
//
// The directory's format is the one the dataset formats of reg detect
// (Registry.DetectDir), as opening the directory would detect it; that
// format then describes the node from its own metadata, without listing
// its children. ents, the directory's listing, answers whether a file
// exists in it, so a directory without metadata costs no request.
func Label(ctx context.Context, reg *vfs.Registry, fsys fs.FS, name string, ents []fs.DirEntry) (label string, ok bool) {
	t := driver.SubTree(array.FSTree(fsys), name)
	if ents != nil {
		t = &ListedTree{Tree: t, Entries: ents}
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

// A ListedTree is a directory whose listing is known: a name missing from
// the listing does not exist, without asking the tree. Format detection
// over it (vfs.Registry.DetectDir) costs no request for the metadata
// files that a directory does not hold.
type ListedTree struct {
	driver.Tree
	Entries []fs.DirEntry // the directory's listing
}

func (t *ListedTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if name != "." && !strings.Contains(name, "/") && !slices.ContainsFunc(t.Entries, func(e fs.DirEntry) bool { return e.Name() == name }) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return t.Tree.Stat(ctx, name)
}

func (t *ListedTree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	if _, err := t.Stat(ctx, name); err != nil {
		return nil, err
	}
	return t.Tree.OpenBlob(ctx, name)
}
