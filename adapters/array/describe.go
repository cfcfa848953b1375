package array

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A SourceDescriber is the Source of a Node (see Noder) that adds to the
// node's description what its format knows beyond the array: an HDF5
// dataset's layout and filters, an image's colour. DescribeNode returns a
// section (a driver.Field with Fields) whose Key and Label name it
// ("hdf5", "image"); Node.Describe places it after the attributes.
type SourceDescriber interface {
	DescribeNode() driver.Field
}

// A Composite is the Source of a group node whose children are parts of
// the node, read through Node.Child only (a precomputed volume's scales),
// not nodes of their own in the directories below it. PartsName names
// them for people ("scales"); the node is a "volume" of its parts.
type Composite interface {
	PartsName() string
}

// A Picture is the Source of an array node that is a picture: its shape
// is [height, width, channels], and PictureChannels names the channels
// ("RGB", "gray+alpha").
type Picture interface {
	PictureChannels() string
}

var _ driver.Describer = (*Node)(nil)

// Describe describes n as "pipefs array" shows it: inline, the Node as it
// marshals to JSON (format, path, is_array, attributes, children, array),
// and for people one line per field: format, node kind, path, and for an
// array its shape, chunk and shard shapes, data type, fill value, order,
// dimension names, chunk keys and codecs; then the attributes, the
// section of a SourceDescriber source, and a group's children.
func (n *Node) Describe() driver.Description {
	d := driver.Description{{Value: n}}
	line := func(label, format string, args ...any) {
		d = append(d, driver.Field{Label: label, Text: fmt.Sprintf(format, args...)})
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
		if fill := compactJSON(a.FillValue); fill != "null" {
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
				s += " " + compactJSON(c.Config)
			}
			cs = append(cs, s)
		}
		line("codecs", "%s", strings.Join(cs, ", "))
	}
	line("attributes", "%s", compactJSON(n.Attributes))
	if sd, ok := n.Source.(SourceDescriber); ok {
		d = append(d, sd.DescribeNode())
	}
	if !n.IsArray {
		src := ""
		if n.Consolidated {
			src = " (consolidated metadata)"
		}
		line("children", "%s%s", strings.Join(n.Children, ", "), src)
	}
	return d
}

// Label describes n for a listing, in one line: "zarr3 array int16 [4]",
// "zarr2 group", "neuroglancer-precomputed volume (3 scales)".
func (n *Node) Label() string {
	switch {
	case n.Array != nil:
		return fmt.Sprintf("%s array %s %v", n.Format, n.Array.DType.Name, n.Array.Shape)
	case n.IsArray:
		return n.Format + " array"
	}
	if c, ok := n.Source.(Composite); ok {
		return fmt.Sprintf("%s volume (%d %s)", n.Format, len(n.Children), c.PartsName())
	}
	return n.Format + " group"
}

// compactJSON returns raw compacted, "null" for nothing.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
