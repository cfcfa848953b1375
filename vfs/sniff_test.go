package vfs_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"testing"

	_ "github.com/pipefs/pipefs/all"
	"github.com/pipefs/pipefs/vfs"
)

func TestSniffHead(t *testing.T) {
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("a.txt")
	w.Write([]byte("hello"))
	zw.Close()

	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	tw.WriteHeader(&tar.Header{Name: "a.txt", Mode: 0o644, Size: 5, Typeflag: tar.TypeReg})
	tw.Write([]byte("hello"))
	tw.Close()

	var gb bytes.Buffer
	gw := gzip.NewWriter(&gb)
	gw.Write(tb.Bytes())
	gw.Close()

	reg := vfs.DefaultRegistry
	n := reg.HeadLen()
	if n < 512 {
		t.Fatalf("HeadLen() = %d, want at least a tar block (512)", n)
	}
	head := func(b []byte) []byte { return b[:min(n, len(b))] }
	for _, tc := range []struct {
		name string
		data []byte
		want string // adapter, "" for none
	}{
		{"zip", zb.Bytes(), "zip:"},
		{"tar", tb.Bytes(), "pipefs.tar:"},
		{"gzip", gb.Bytes(), "gzip:"},
		{"hdf5", append([]byte("\x89HDF\r\n\x1a\n"), make([]byte, 100)...), "hdf5:"},
		{"text", []byte("hello, world\n"), ""},
		{"empty", nil, ""},
		{"zip end record only", zb.Bytes()[len(zb.Bytes())-22:], ""}, // a tail signature is not sniffed
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if f := reg.SniffHead(head(tc.data)); f != nil {
				got = f.Adapter
			}
			if got != tc.want {
				t.Errorf("SniffHead(%s) = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}
