// Command libcat writes a decompressed file to standard output with the Go
// libraries alone, the baseline scripts/benchtools.sh holds pipefs cat to:
//
//	libcat gzip FILE         klauspost/compress/gzip
//	libcat zstd FILE         klauspost/compress/zstd, its default concurrency
//	libcat zstd1 FILE        klauspost/compress/zstd on one goroutine
//	libcat zip FILE MEMBER   archive/zip with klauspost/compress/flate
package main

import (
	"archive/zip"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "libcat:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: libcat gzip|zstd|zstd1 FILE, or libcat zip FILE MEMBER")
	}
	f, err := os.Open(args[1])
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader
	switch args[0] {
	case "gzip":
		zr, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		r = zr
	case "zstd", "zstd1":
		var opts []zstd.DOption
		if args[0] == "zstd1" {
			opts = append(opts, zstd.WithDecoderConcurrency(1))
		}
		zr, err := zstd.NewReader(f, opts...)
		if err != nil {
			return err
		}
		defer zr.Close()
		r = zr
	case "zip":
		if len(args) < 3 {
			return fmt.Errorf("libcat zip FILE MEMBER")
		}
		st, err := f.Stat()
		if err != nil {
			return err
		}
		zr, err := zip.NewReader(f, st.Size())
		if err != nil {
			return err
		}
		zr.RegisterDecompressor(zip.Deflate, flate.NewReader)
		m, err := zr.Open(args[2])
		if err != nil {
			return err
		}
		defer m.Close()
		r = m
	default:
		return fmt.Errorf("unknown format %q", args[0])
	}
	_, err = io.Copy(os.Stdout, r)
	return err
}
