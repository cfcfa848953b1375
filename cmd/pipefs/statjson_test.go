package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/describe"
	"github.com/pipefs/pipefs/vfs"
)

// statJSON runs stat --json on url and returns its header type and the
// header, checked to hold no member whose value is zero.
func statJSON(t *testing.T, url string) (string, json.RawMessage) {
	t.Helper()
	var s struct {
		HeaderType string          `json:"header_type"`
		Header     json.RawMessage `json:"header"`
	}
	out := mustRun(t, "stat", "--json", url)
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("stat --json %s: %v\n%s", url, err, out)
	}
	var v any
	if err := json.Unmarshal(s.Header, &v); err != nil {
		t.Fatalf("stat --json %s: header: %v\n%s", url, err, out)
	}
	if p := zeroMember(v, "header"); p != "" {
		t.Errorf("stat --json %s: %s is zero, want it left out:\n%s", url, p, out)
	}
	return s.HeaderType, s.Header
}

// zeroMember returns the path of a member of v's objects whose value is
// zero, or "".
func zeroMember(v any, at string) string {
	switch v := v.(type) {
	case map[string]any:
		for k, m := range v {
			switch m := m.(type) {
			case nil:
				return at + "." + k
			case bool, float64, string:
				if reflect.ValueOf(m).IsZero() || m == "0001-01-01T00:00:00Z" {
					return at + "." + k
				}
			case map[string]any:
				if len(m) == 0 {
					return at + "." + k
				}
			case []any:
				if len(m) == 0 {
					return at + "." + k
				}
			}
			if p := zeroMember(m, at+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, e := range v {
			if p := zeroMember(e, fmt.Sprintf("%s[%d]", at, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

// sysOf returns the raw header of the location url, as vfs gives it.
func sysOf(t *testing.T, url string) any {
	t.Helper()
	f, err := vfs.Open(t.Context(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return info.Sys().(*vfs.Origin).Header
}

// TestStatJSONArchives: the headers of a zip member, a tar member and a
// gzip stream decode, as stat --json writes them, into their own types,
// equal to what archive/zip, archive/tar and compress/gzip read; the
// legacy zip fields are left out.
func TestStatJSONArchives(t *testing.T) {
	dir := t.TempDir()
	mod := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "a.txt", Method: zip.Deflate, Modified: mod, Comment: "a comment", Extra: []byte{0xca, 0xfe, 2, 0, 1, 2}})
	w.Write([]byte("hello, zip\n"))
	zw.Close()
	zfile := filepath.Join(dir, "a.zip")
	os.WriteFile(zfile, zb.Bytes(), 0o644)

	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	th := &tar.Header{Name: "t.txt", Mode: 0o640, Size: 4, Uid: 1000, Gid: 100, Uname: "ann", Gname: "staff", ModTime: mod,
		Typeflag: tar.TypeReg, PAXRecords: map[string]string{"SCHILY.xattr.user.k": "v"}, Format: tar.FormatPAX}
	tw.WriteHeader(th)
	tw.Write([]byte("tar\n"))
	tw.Close()
	tfile := filepath.Join(dir, "a.tar")
	os.WriteFile(tfile, tb.Bytes(), 0o644)

	var gb bytes.Buffer
	gw := gzip.NewWriter(&gb)
	gw.Header = gzip.Header{Name: "g.txt", Comment: "gz", ModTime: mod, Extra: []byte("xy\x02\x00ab"), OS: 3}
	gw.Write([]byte("gzip\n"))
	gw.Close()
	gfile := filepath.Join(dir, "g.txt.gz")
	os.WriteFile(gfile, gb.Bytes(), 0o644)

	t.Run("zip", func(t *testing.T) {
		typ, raw := statJSON(t, zfile+"|zip:a.txt")
		zr, _ := zip.NewReader(bytes.NewReader(zb.Bytes()), int64(zb.Len()))
		h := &zr.File[0].FileHeader
		want := zip.FileHeader{Name: h.Name, Comment: h.Comment, NonUTF8: h.NonUTF8,
			CreatorVersion: h.CreatorVersion, ReaderVersion: h.ReaderVersion,
			Flags: h.Flags, Method: h.Method, Modified: h.Modified, CRC32: h.CRC32,
			CompressedSize64: h.CompressedSize64, UncompressedSize64: h.UncompressedSize64,
			Extra: h.Extra, ExternalAttrs: h.ExternalAttrs}
		var got zip.FileHeader
		if err := unmarshalSnake(raw, &got); err != nil {
			t.Fatal(err)
		}
		if typ != "*zip.FileHeader" || !got.Modified.Equal(want.Modified) {
			t.Errorf("header %s, Modified %v; want *zip.FileHeader, %v", typ, got.Modified, want.Modified)
		}
		got.Modified = want.Modified
		if !reflect.DeepEqual(got, want) {
			t.Errorf("zip header:\n%+v\nwant:\n%+v\n%s", got, want, raw)
		}
		for _, key := range []string{`"crc32":`, `"compressed_size64":`, `"uncompressed_size64":`, `"reader_version":`} {
			if !bytes.Contains(raw, []byte(key)) {
				t.Errorf("zip header has no member %s: %s", key, raw)
			}
		}
		for _, legacy := range []string{"modified_time", "modified_date", `"compressed_size"`, `"uncompressed_size"`} {
			if bytes.Contains(raw, []byte(legacy)) {
				t.Errorf("zip header has the legacy field %s: %s", legacy, raw)
			}
		}
	})
	t.Run("tar", func(t *testing.T) {
		typ, raw := statJSON(t, tfile+"|pipefs.tar:t.txt")
		want, err := tar.NewReader(bytes.NewReader(tb.Bytes())).Next()
		if err != nil {
			t.Fatal(err)
		}
		var got tar.Header
		if err := unmarshalSnake(raw, &got); err != nil {
			t.Fatal(err)
		}
		if typ != "*tar.Header" || !got.ModTime.Equal(want.ModTime) {
			t.Errorf("header %s, ModTime %v; want *tar.Header, %v", typ, got.ModTime, want.ModTime)
		}
		got.ModTime = want.ModTime
		want.AccessTime, want.ChangeTime = time.Time{}, time.Time{}
		if got.Name != want.Name || got.Mode != want.Mode || got.Uid != want.Uid || got.Gid != want.Gid || got.Uname != want.Uname ||
			got.Gname != want.Gname || got.Size != want.Size || got.Typeflag != want.Typeflag || !reflect.DeepEqual(got.PAXRecords, want.PAXRecords) {
			t.Errorf("tar header:\n%+v\nwant:\n%+v\n%s", got, want, raw)
		}
	})
	t.Run("gzip", func(t *testing.T) {
		typ, raw := statJSON(t, gfile+"|gzip:")
		zr, err := gzip.NewReader(bytes.NewReader(gb.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		want := zr.Header
		var got gzip.Header
		if err := unmarshalSnake(raw, &got); err != nil {
			t.Fatal(err)
		}
		if typ != "*gzip.Header" || !got.ModTime.Equal(want.ModTime) {
			t.Errorf("header %s, ModTime %v; want *gzip.Header, %v", typ, got.ModTime, want.ModTime)
		}
		got.ModTime = want.ModTime
		if !reflect.DeepEqual(got, want) {
			t.Errorf("gzip header:\n%+v\nwant:\n%+v\n%s", got, want, raw)
		}
	})
	t.Run("zstd", func(t *testing.T) {
		enc, _ := zstd.NewWriter(nil)
		frames := append(enc.EncodeAll([]byte("one\n"), nil), enc.EncodeAll([]byte("two\n"), nil)...)
		file := filepath.Join(dir, "z.zst")
		os.WriteFile(file, frames, 0o644)
		typ, raw := statJSON(t, file+"|zstd:")
		var got struct {
			Frames int `json:"frames"`
		}
		if err := json.Unmarshal(raw, &got); err != nil || got.Frames != 2 {
			t.Errorf("zstd header %s %s: %d frames, %v; want 2", typ, raw, got.Frames, err)
		}
	})
}

// TestStatJSONAdapters: the headers of an HDF5 dataset, an image, a Zarr
// array, an OCDBT value and an Icechunk chunk decode, as stat --json
// writes them, back into their own types, equal to the header that the
// adapter gives.
func TestStatJSONAdapters(t *testing.T) {
	h5, _ := filepath.Abs("../../adapters/hdf5adapter/testdata/h5py/layouts_latest.h5")
	for _, url := range []string{
		"file:" + h5 + "|hdf5:btree2_gzip",
		"file:" + testImagePath(t, "avif-rgba.avif") + "|avif:",
		fixture(t, "zarr3/data.zarr") + "/|zarr3:1d.chunked.i2",
		fixture(t, "ocdbt/files_min_arity.ocdbt") + "/|ocdbt:c",
		fixture(t, "icechunk/test-repo-v1") + "/|icechunk:group1/small_chunks/c/0",
	} {
		t.Run(url[strings.LastIndexByte(url, '|')+1:], func(t *testing.T) {
			want := sysOf(t, url)
			typ, raw := statJSON(t, url)
			if typ != fmt.Sprintf("%T", want) {
				t.Errorf("header_type %s, want %T", typ, want)
			}
			got := reflect.New(reflect.TypeOf(want).Elem())
			if err := unmarshalSnake(raw, got.Interface()); err != nil {
				t.Fatalf("header %s does not decode into %T: %v", raw, want, err)
			}
			if !reflect.DeepEqual(normal(got.Interface()), normal(want)) {
				t.Errorf("header decodes to\n%+v\nwant\n%+v\n%s", got.Interface(), want, raw)
			}
		})
	}
}

// normal is v as JSON decodes it, so that values that marshal alike (an
// empty map and a nil one) compare equal.
func normal(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	b, _ = json.Marshal(out)
	b, _ = describe.Prune(b)
	var s any
	json.Unmarshal(b, &s)
	return s
}

// unmarshalSnake decodes raw, an object whose keys are lower-case words
// joined by "_", into v, whose fields are matched by their JSON tags or,
// without one, by their Go names with the underscores taken out.
func unmarshalSnake(raw []byte, v any) error {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	b, err := json.Marshal(unsnake(m))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// unsnake gives each member of x's objects a second key without the
// underscores, which encoding/json matches to a Go name without regard
// to case; the key as it is matches a JSON tag.
func unsnake(x any) any {
	switch x := x.(type) {
	case map[string]any:
		out := make(map[string]any, 2*len(x))
		for k, v := range x {
			v = unsnake(v)
			out[k] = v
			out[strings.ReplaceAll(k, "_", "")] = v
		}
		return out
	case []any:
		for i := range x {
			x[i] = unsnake(x[i])
		}
	}
	return x
}

// TestStatJSONRemote: a remote object's header is its version, the ETag
// that the server sends.
func TestStatJSONRemote(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{"a.txt": []byte("remote\n")})
	resp, err := http.Head(srv.URL() + "/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	etag := resp.Header.Get("ETag")
	typ, raw := statJSON(t, srv.URL()+"/a.txt")
	var got struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(raw, &got); err != nil || got.Version == "" || !strings.Contains(etag, strings.Trim(got.Version, `"`)) {
		t.Errorf("remote header %s %s, want {\"version\": %s}", typ, raw, etag)
	}
}
