package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/adapters/hdf5adapter"
	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/internal/nodedesc"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

func newStatCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stat [--json] URL",
		Short: "Describe a location: size, mode, time, URL and archive header",
		Long: `stat describes the file or directory location that URL names: its
name, size, mode, modification time and canonical URL, then the fields of
its raw header where there is one (for a zip member: the compression
method, compressed size, CRC-32 and the like; for an HDF5 dataset its
type, layout and filters). No format is detected: "file:/d/a.zip"
describes the zip file itself. A time the file does not record is left
out. A symbolic link that is not followed (an HDF5 external link, a soft
link whose target does not exist, a zip symlink, a local or tar link that
dangles or loops) is described itself, with its target.

--json writes one JSON object: name, size, mode, isDir, modTime, target,
url, headerType and header. The header is typed: the object its type
marshals to (a *zip.FileHeader, a *tar.Header, a gzip header, an HDF5
dataset, an image, a Zarr node, an OCDBT or Icechunk value, a remote
object's {"version": ...}), numbers as numbers, times in RFC 3339, bytes
in base64, with the members whose value is zero left out, as are the
legacy 32-bit and MS-DOS fields of a zip header.`,
		Example: `  pipefs stat 'testdata/demo.zip|zip:README.txt'
  pipefs stat --json 'testdata/demo.zip|zip:docs/guide.md'`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			pipeline, err := g.pipeline(args[0])
			if err != nil {
				return err
			}
			info, target, err := g.stat(cmd.Context(), pipeline)
			if err != nil {
				return err
			}
			s := describe(info)
			s.Target = target
			if asJSON {
				return printJSON(cmd.OutOrStdout(), s)
			}
			s.print(cmd.OutOrStdout(), isTerminal(cmd.OutOrStdout()))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

// A statInfo is what stat prints.
type statInfo struct {
	Name       string    `json:"name"`
	Size       int64     `json:"size"`
	Mode       string    `json:"mode"`
	IsDir      bool      `json:"isDir"`
	ModTime    time.Time `json:"modTime,omitzero"` // zero: none recorded
	Target     string    `json:"target,omitempty"` // of a symbolic link
	URL        string    `json:"url,omitempty"`
	HeaderType string    `json:"headerType,omitempty"`
	// HeaderJSON is the header as typed JSON (see headerJSON).
	HeaderJSON json.RawMessage `json:"header,omitempty"`
	Header     []field         `json:"-"` // for reading
}

// A field is one named value of a header, formatted for reading.
type field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func describe(info fs.FileInfo) *statInfo {
	s := &statInfo{
		Name:    info.Name(),
		Size:    info.Size(),
		Mode:    listfmt.Mode(info.Mode()),
		IsDir:   info.IsDir(),
		ModTime: info.ModTime(),
	}
	h := info.Sys()
	if o, ok := h.(*vfs.Origin); ok {
		s.URL = o.URL
		h = o.Header
	}
	if h != nil {
		s.HeaderType = fmt.Sprintf("%T", h)
		s.Header = headerFields(h)
		b, err := headerJSON(h)
		if err != nil {
			b, _ = marshalJSON(s.Header)
		}
		s.HeaderJSON = b
	}
	return s
}

// print writes s for people; tty quotes the name for a terminal (see
// displayName).
func (s *statInfo) print(w io.Writer, tty bool) {
	kind := "regular file"
	switch {
	case s.IsDir:
		kind = "directory"
	case strings.HasPrefix(s.Mode, "l"):
		kind = "symbolic link"
	}
	fmt.Fprintf(w, "Name:     %s\n", displayName(s.Name, tty))
	fmt.Fprintf(w, "Type:     %s\n", kind)
	if s.Target != "" {
		fmt.Fprintf(w, "Target:   %s\n", displayName(s.Target, tty))
	}
	fmt.Fprintf(w, "Size:     %d\n", s.Size)
	fmt.Fprintf(w, "Mode:     %s\n", s.Mode)
	if !s.ModTime.IsZero() {
		fmt.Fprintf(w, "Modified: %s\n", s.ModTime.Format(time.RFC3339))
	}
	if s.URL != "" {
		fmt.Fprintf(w, "URL:      %s\n", s.URL)
	}
	if s.HeaderType == "" {
		return
	}
	fmt.Fprintf(w, "Header:   %s\n", s.HeaderType)
	width := 0
	for _, f := range s.Header {
		width = max(width, len(f.Name))
	}
	for _, f := range s.Header {
		fmt.Fprintf(w, "  %-*s %s\n", width+1, f.Name+":", displayName(f.Value, false))
	}
}

// zipMethods names the compression methods of APPNOTE.TXT 4.4.5.
var zipMethods = map[uint16]string{
	zip.Store: "Store", zip.Deflate: "Deflate", 9: "Deflate64", 12: "BZIP2",
	14: "LZMA", 93: "Zstandard", 95: "XZ", 98: "PPMd",
}

// headerFields lists the exported fields of a header struct that are set,
// formatted for reading. A zip header's method is named and its CRC-32
// written in hex; byte slices show their length.
func headerFields(h any) []field {
	v := reflect.ValueOf(h)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return []field{{Name: "Value", Value: fmt.Sprint(h)}}
	}
	_, isZip := v.Interface().(zip.FileHeader)
	var out []field
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		fv := v.Field(i)
		if !sf.IsExported() || isPadding(t, sf) || fv.IsZero() || fv.Kind() == reflect.Slice && fv.Len() == 0 {
			continue
		}
		s := fieldText(fv.Interface())
		if isZip {
			switch sf.Name {
			case "Method":
				name, ok := zipMethods[uint16(fv.Uint())]
				if !ok {
					name = "unknown"
				}
				s = fmt.Sprintf("%s (%d)", name, fv.Uint())
			case "CRC32":
				s = fmt.Sprintf("%08x", fv.Uint())
			case "Flags", "ExternalAttrs":
				s = fmt.Sprintf("%#x", fv.Uint())
			case "ModifiedTime", "ModifiedDate", "CompressedSize", "UncompressedSize":
				continue // legacy 32-bit and MS-DOS forms of fields shown
			}
		}
		out = append(out, field{Name: sf.Name, Value: s})
	}
	return out
}

// fieldText formats one header field value for reading: a time in RFC
// 3339, a byte slice by its length, the HDF5 types as h5dump-like text,
// other structs, maps and slices of them as compact JSON.
func fieldText(x any) string {
	switch x := x.(type) {
	case time.Time:
		return x.Format(time.RFC3339)
	case []byte:
		return fmt.Sprintf("%d bytes", len(x))
	case hdf5adapter.DType:
		return nodedesc.DTypeText(&x)
	case []hdf5adapter.Filter:
		return filtersText(x)
	case []hdf5adapter.Link:
		var ls []string
		for _, l := range x {
			ls = append(ls, linkText(l))
		}
		return strings.Join(ls, ", ")
	case fmt.Stringer:
		return x.String()
	}
	v := reflect.ValueOf(x)
	if t, ok := timespecTime(v); ok {
		return t.Format(time.RFC3339)
	}
	k := v.Kind()
	if k == reflect.Slice || k == reflect.Array {
		k = v.Type().Elem().Kind() // [2 3] stays as it is
	}
	switch k {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array, reflect.Interface, reflect.Pointer:
		if b, err := marshalJSON(x); err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(x)
}

// filtersText describes an HDF5 filter pipeline: "shuffle (id 2, values
// [4]), deflate (id 1, values [4])".
func filtersText(fs []hdf5adapter.Filter) string {
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

// linkText describes an HDF5 link: "name (hard)", "name -> /path (soft)",
// "name -> file:/path (external)", and why an omitted link is omitted.
func linkText(l hdf5adapter.Link) string {
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
	return s + ")"
}

// stat describes the location that pipeline names. When it names a
// symbolic link that cannot be followed (an HDF5 soft link whose target
// does not exist, an external link, a zip symlink, a local or tar link
// that dangles or loops), stat describes the link itself, as its parent
// directory lists it. When it names a symbolic link, it returns the
// link's target too (fs.ReadLink).
func (g *globals) stat(ctx context.Context, pipeline string) (fs.FileInfo, string, error) {
	f, err := vfs.Open(ctx, pipeline, g.options())
	if err == nil {
		g.count(f)
		defer f.Close()
		info, err := f.Stat()
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return info, "", err
		}
		_, target := g.lstat(ctx, pipeline)
		return info, target, nil
	}
	if info, target := g.unfollowedLink(ctx, pipeline, err); info != nil {
		return info, target, nil
	}
	return nil, "", err
}

// unfollowedLink returns, when err is the error of opening pipeline and
// pipeline names a symbolic link that cannot be followed, the link's
// entry and its target (see lstat); nil otherwise. A
// link cannot be followed when it dangles, leaves its tree or loops.
func (g *globals) unfollowedLink(ctx context.Context, pipeline string, err error) (fs.FileInfo, string) {
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, driver.ErrUnsafePath) && !errors.Is(err, syscall.ELOOP) && !errors.Is(err, vfs.ErrCorrupt) {
		return nil, ""
	}
	return g.lstat(ctx, pipeline)
}

// lstat returns the entry of the symbolic link that pipeline names, with
// fs.Lstat in its parent directory, and its target, with fs.ReadLink; nil
// when it names none.
func (g *globals) lstat(ctx context.Context, pipeline string) (fs.FileInfo, string) {
	fsys, name := g.openParent(ctx, pipeline)
	if fsys == nil {
		return nil, ""
	}
	defer fsys.Close()
	info, err := fs.Lstat(fsys, name)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return nil, ""
	}
	return info, listfmt.LinkTarget(fsys, name, info)
}
