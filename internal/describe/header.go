package describe

import (
	"archive/zip"
	"fmt"
	"reflect"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"
)

// Header describes a raw header (vfs.Origin.Header, the Sys of a
// FileInfo): a driver.Describer as it describes itself, and any other
// header from its exported fields (driver.DescribeStruct), its JSON the
// object of those fields named in this package's style. A remote
// object's version string is {"version": "..."}. A *zip.FileHeader's
// method is named and its CRC-32 written in hex, without the legacy
// 32-bit and MS-DOS fields that repeat the others; the padding of a
// local file's syscall.Stat_t is left out and its times are times.
func Header(h any) driver.Description {
	if d, ok := h.(driver.Describer); ok {
		return d.Describe()
	}
	if s, ok := h.(string); ok {
		return driver.Description{
			{Value: struct {
				Version string `json:"version"`
			}{s}},
			{Label: "Value", Text: s},
		}
	}
	if z, ok := h.(*zip.FileHeader); ok {
		h = currentZipHeader(z)
	}
	d := driver.Description{{Value: plainValue(reflect.ValueOf(h), 0, true)}}
	v := reflect.ValueOf(h)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return append(d, driver.Field{Label: "Value", Text: fmt.Sprint(h)})
	}
	_, isZip := v.Interface().(zip.FileHeader)
	t := v.Type()
	for i := range t.NumField() {
		sf, fv := t.Field(i), v.Field(i)
		if !sf.IsExported() || isPadding(t, sf) || fv.IsZero() || fv.Kind() == reflect.Slice && fv.Len() == 0 {
			continue
		}
		s := driver.FieldText(fv.Interface())
		if ts, ok := timespecTime(fv); ok {
			s = ts.Format(time.RFC3339)
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
			}
		}
		d = append(d, driver.Field{Label: sf.Name, Text: s})
	}
	return d
}

// zipMethods names the compression methods of APPNOTE.TXT 4.4.5.
var zipMethods = map[uint16]string{
	zip.Store: "Store", zip.Deflate: "Deflate", 9: "Deflate64", 12: "BZIP2",
	14: "LZMA", 93: "Zstandard", 95: "XZ", 98: "PPMd",
}

// currentZipHeader returns h without its deprecated fields (the 32-bit
// sizes, the MS-DOS time and date), which repeat the others.
func currentZipHeader(h *zip.FileHeader) *zip.FileHeader {
	return &zip.FileHeader{
		Name: h.Name, Comment: h.Comment, NonUTF8: h.NonUTF8,
		CreatorVersion: h.CreatorVersion, ReaderVersion: h.ReaderVersion,
		Flags: h.Flags, Method: h.Method, Modified: h.Modified, CRC32: h.CRC32,
		CompressedSize64: h.CompressedSize64, UncompressedSize64: h.UncompressedSize64,
		Extra: h.Extra, ExternalAttrs: h.ExternalAttrs,
	}
}
