package fstest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"maps"
	"slices"
)

// TarBytes returns a tar archive of files, built with archive/tar: regular
// members in sorted order, mode 0644, with the fixed time of ZipBytes, so
// the archive is the same for the same files. It panics if archive/tar
// refuses a member, which only a test bug can cause.
func TarBytes(files map[string][]byte) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		h := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg, ModTime: zipTime}
		if err := tw.WriteHeader(h); err != nil {
			panic(fmt.Sprintf("fstest.TarBytes: %q: %v", name, err))
		}
		if _, err := tw.Write(files[name]); err != nil {
			panic(fmt.Sprintf("fstest.TarBytes: %q: %v", name, err))
		}
	}
	if err := tw.Close(); err != nil {
		panic(fmt.Sprintf("fstest.TarBytes: %v", err))
	}
	return buf.Bytes()
}

// TarGzBytes returns TarBytes(files) compressed with compress/gzip at the
// default level, one member.
func TarGzBytes(files map[string][]byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(TarBytes(files)) // a bytes.Buffer does not fail
	zw.Close()
	return buf.Bytes()
}
