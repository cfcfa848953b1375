package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"time"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/vfs"
)

func newStatCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stat [--json] URL",
		Short: "Describe a location: size, mode, time, URL and archive header",
		Long: `stat describes the file or directory location that URL names: its
name, size, mode, modification time and canonical URL, then the fields of
its raw header where there is one (for a zip member: the compression
method, compressed size, CRC-32 and the like). No format is detected:
"file:/d/a.zip" describes the zip file itself.`,
		Example: `  pipefs stat 'file:/data/a.zip|zip:README.txt'
  pipefs stat --json 'testdata/demo.zip|zip:docs/guide.md'`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			pipeline, err := g.pipeline(args[0])
			if err != nil {
				return err
			}
			f, err := vfs.Open(cmd.Context(), pipeline, g.options())
			if err != nil {
				return err
			}
			defer f.Close()
			info, err := f.Stat()
			if err != nil {
				return err
			}
			s := describe(info)
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(s)
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
	ModTime    time.Time `json:"modTime"`
	URL        string    `json:"url,omitempty"`
	HeaderType string    `json:"headerType,omitempty"`
	Header     []field   `json:"header,omitempty"`
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
		Mode:    info.Mode().String(),
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
	}
	return s
}

// print writes s for people; tty quotes the name for a terminal (see
// displayName).
func (s *statInfo) print(w io.Writer, tty bool) {
	kind := "regular file"
	if s.IsDir {
		kind = "directory"
	}
	fmt.Fprintf(w, "Name:     %s\n", displayName(s.Name, tty))
	fmt.Fprintf(w, "Type:     %s\n", kind)
	fmt.Fprintf(w, "Size:     %d\n", s.Size)
	fmt.Fprintf(w, "Mode:     %s\n", s.Mode)
	fmt.Fprintf(w, "Modified: %s\n", s.ModTime.Format(time.RFC3339))
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
		if !sf.IsExported() || fv.IsZero() || fv.Kind() == reflect.Slice && fv.Len() == 0 {
			continue
		}
		var s string
		switch x := fv.Interface().(type) {
		case time.Time:
			s = x.Format(time.RFC3339)
		case []byte:
			s = fmt.Sprintf("%d bytes", len(x))
		default:
			s = fmt.Sprint(x)
		}
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
