package hdf5adapter

import (
	"fmt"
	"strings"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/vfs/driver"
)

var (
	_ driver.Describer      = (*Dataset)(nil)
	_ driver.Describer      = (*Group)(nil)
	_ array.SourceDescriber = (*Dataset)(nil)
)

// Describe describes the dataset as a header: its JSON, and a line per
// field that is set, its type as h5dump-like text ("|V12 compound {x:
// <i4 integer at 0; y: <f8 float at 4}") and its filters by name.
func (d *Dataset) Describe() driver.Description {
	desc := driver.DescribeStruct(d)
	for i := range desc {
		switch desc[i].Label {
		case "DType":
			desc[i].Text = d.DType.text()
		case "Filters":
			desc[i].Text = filtersText(d.Filters)
		}
	}
	return desc
}

// DescribeNode describes what the dataset adds to its array node: the
// section "hdf5", its JSON the Dataset's, its lines the type, layout,
// chunk index, maximum shape, filters and fill value as stored.
func (d *Dataset) DescribeNode() driver.Field {
	s := driver.Description{{Value: d}}
	line := func(label, format string, args ...any) {
		s = append(s, driver.Field{Label: label, Text: fmt.Sprintf(format, args...)})
	}
	line("type", "%s (%d bytes)", d.DType.text(), d.DType.Size)
	line("layout", "%s", d.Layout)
	if d.ChunkIndex != "" {
		line("index", "%s", d.ChunkIndex)
	}
	if d.MaxShape != nil {
		line("max shape", "%v (-1: unlimited)", d.MaxShape)
	}
	if d.Filters != nil {
		line("filters", "%s", filtersText(d.Filters))
	}
	if d.Fill != nil {
		line("fill", "% x (stored bytes)", d.Fill)
	} else {
		line("fill", "undefined (reads as zeros)")
	}
	return driver.Field{Key: "hdf5", Label: "hdf5", Fields: s}
}

// Describe describes the group as a header: its JSON, and a line per
// field that is set, its links as "name (hard)", "name -> /path (soft)",
// "name -> file:/path (external)".
func (g *Group) Describe() driver.Description {
	desc := driver.DescribeStruct(g)
	for i := range desc {
		switch desc[i].Label {
		case "Links":
			desc[i].Text = linksText(g.Links)
		case "Omitted":
			desc[i].Text = linksText(g.Omitted)
		}
	}
	return desc
}

// text describes the type: its NumPy string and class, and the fields of
// a compound, the members of an enum, the base and dimensions of an
// array.
func (t *DType) text() string {
	s := t.String()
	if t.Class != "" && !strings.Contains(s, t.Class) {
		s += " " + t.Class
	}
	switch {
	case len(t.Fields) > 0:
		var fs []string
		for i := range t.Fields {
			f := &t.Fields[i]
			fs = append(fs, fmt.Sprintf("%s: %s at %d", f.Name, f.Type.text(), f.Offset))
		}
		s += " {" + strings.Join(fs, "; ") + "}"
	case len(t.Members) > 0:
		var ms []string
		for _, m := range t.Members {
			ms = append(ms, fmt.Sprintf("%s=%d", m.Name, m.Value))
		}
		s += " {" + strings.Join(ms, ", ") + "}"
		if t.Base != nil {
			s += " of " + t.Base.text()
		}
	case t.Class == "array" && t.Base != nil:
		s += fmt.Sprintf(" %v of %s", t.Dims, t.Base.text())
	}
	return s
}

// filtersText describes a filter pipeline: "shuffle (id 2, values [4]),
// deflate (id 1, values [4])".
func filtersText(fs []Filter) string {
	var out []string
	for _, f := range fs {
		name := f.Name
		if name == "" {
			name = "filter"
		}
		out = append(out, fmt.Sprintf("%s (id %d, values %v)", name, f.ID, f.Values))
	}
	return strings.Join(out, ", ")
}

// linksText describes links: "name (hard)", "name -> /path (soft)",
// "name -> file:/path (external)", and why an omitted link is omitted.
func linksText(ls []Link) string {
	var out []string
	for _, l := range ls {
		s := l.Name
		switch {
		case l.File != "":
			s += " -> " + l.File + ":" + l.Target
		case l.Target != "":
			s += " -> " + l.Target
		}
		s += " (" + l.Type
		if l.Reason != "" {
			s += ": " + l.Reason
		}
		out = append(out, s+")")
	}
	return strings.Join(out, ", ")
}
