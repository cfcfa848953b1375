package fstest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"
)

// zipTime is the modification time of every member ZipBytes writes, so that
// the same files always give the same archive.
var zipTime = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// ZipBytes returns a zip archive of files, built with archive/zip, every
// member compressed with method (zip.Store or zip.Deflate). Members are
// written in sorted order with a fixed time, so the archive is the same
// for the same files. A name ending in "/" is written as a directory
// entry; its value is ignored. It panics if archive/zip refuses a member,
// which only a test bug can cause.
func ZipBytes(files map[string][]byte, method uint16) []byte {
	return ZipBytesFunc(files, func(string) uint16 { return method })
}

// ZipBytesFunc is ZipBytes with the compression method of each member given
// by method(name), for archives that mix stored and deflated members.
func ZipBytesFunc(files map[string][]byte, method func(name string) uint16) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		h := &zip.FileHeader{Name: name, Method: method(name), Modified: zipTime}
		if strings.HasSuffix(name, "/") {
			h.Method = zip.Store
			h.SetMode(fs.ModeDir | 0o755)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			panic(fmt.Sprintf("fstest.ZipBytes: %q: %v", name, err))
		}
		if !strings.HasSuffix(name, "/") {
			if _, err := w.Write(files[name]); err != nil {
				panic(fmt.Sprintf("fstest.ZipBytes: %q: %v", name, err))
			}
		}
	}
	if err := zw.Close(); err != nil {
		panic(fmt.Sprintf("fstest.ZipBytes: %v", err))
	}
	return buf.Bytes()
}
