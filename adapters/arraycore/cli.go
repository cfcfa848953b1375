package arraycore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/vfs"
)

// OpenNode opens the dataset that pipeline names and returns its node and
// the FS that holds it; the caller closes the FS when done with the node.
// The pipeline may end in an array adapter ("...|zarr3:a/b") or at a
// directory that holds a dataset ("file:/d/x.zarr/"), whose format is then
// detected among the registered dataset formats (o.NoDetect turns that
// off).
func OpenNode(ctx context.Context, pipeline string, o *vfs.Options) (*Node, *vfs.FS, error) {
	fsys, err := vfs.OpenFS(ctx, pipeline, o)
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
		return nil, nil, fmt.Errorf("%s: %w: no zarr.json, .zarray, .zgroup, .zattrs, attributes.json or precomputed info", pipeline, vfs.ErrUnknownFormat)
	}
	if fsys, err = vfs.OpenPipelineFS(ctx, p.Append(u), o); err != nil {
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
func OpenArray(ctx context.Context, pipeline, child string, o *vfs.Options) (*Array, *vfs.FS, error) {
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

func nodeOfFS(fsys *vfs.FS) (*Node, error) {
	info, err := fsys.Stat(".")
	if err != nil {
		return nil, err
	}
	return NodeOf(info), nil
}

// WriteDescription writes a description of n to w: indented JSON (the
// Node's fields as its struct tags name them) when asJSON is set, else
// text, one "name: value" line per field.
func WriteDescription(w io.Writer, n *Node, asJSON bool) error {
	if asJSON {
		b, err := json.MarshalIndent(n, "", "  ")
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
		line("fill value", "%s", compact(a.FillValue))
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

// ParseBox parses a box like "0:2,1:3" for an array of shape: one entry
// per leading axis, each "start:stop" (either may be omitted: ":" is the
// whole axis) or a single index "i" (i:i+1). Missing trailing entries mean
// whole axes. It returns the start and stop corners.
func ParseBox(s string, shape []int64) (start, stop []int64, err error) {
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

// ParseChunk parses chunk coordinates like "1,0,2" (empty for a 0-d
// array).
func ParseChunk(s string) ([]int64, error) {
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

// Label describes, for a tree listing, the node at directory name of
// fsys, if it is one: "zarr3 array int16 [4]", "zarr2 group",
// "n5 array uint16 [4 5]", "neuroglancer-precomputed volume (3 scales)".
// ok is false for directories that hold no node. It reads only the node's
// own metadata (no listing). A *vfs.FS is read through its tree; any
// other fs.FS through FSTree.
func Label(ctx context.Context, fsys fs.FS, name string) (label string, ok bool) {
	t := FSTree(fsys)
	has := func(file string) bool {
		ok, _ := exists(ctx, t, path.Join(name, file))
		return ok
	}
	var format string
	switch {
	case has("zarr.json"):
		format = FormatZarr3
	case has(".zarray") || has(".zgroup"):
		format = FormatZarr2
	case has("attributes.json"):
		format = FormatN5
	case has("info"):
		if m, _ := MatchPrecomputed(ctx, driver.SubTree(t, name)); !m {
			return "", false
		}
		n, err := describe(ctx, driver.SubTree(t, name), FormatPrecomputed, ".", nil, false)
		if err != nil {
			return "", false
		}
		return fmt.Sprintf("%s volume (%d scales)", FormatPrecomputed, len(n.Children)), true
	default:
		return "", false
	}
	n, err := describe(ctx, t, format, name, nil, false)
	if err != nil {
		return fmt.Sprintf("%s (invalid: %v)", format, err), true
	}
	if n.Array == nil {
		return format + " group", true
	}
	return fmt.Sprintf("%s array %s %v", format, n.Array.DType.Name, n.Array.Shape), true
}
