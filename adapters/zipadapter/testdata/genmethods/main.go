//go:build ignore

// Command genmethods writes the zips of ../methods that no Debian tool
// writes: Zstandard members (method 93, and 20, its older id), in one
// frame and in frames of 4 KiB of output each; an XZ member (95) from
// ulikunitz/xz. Run by ../mkmethods.sh with the
// output directory as argument.
package main

import (
	"archive/zip"
	"bytes"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

var mod = time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)

// frames compresses what is written to it as zstd frames of at most size
// bytes of input each (one frame when size is 0), with content checksums.
type frames struct {
	w     io.Writer
	size  int
	buf   []byte
	enc   *zstd.Encoder
	wrote bool // a frame was written
}

func newFrames(w io.Writer, size int) *frames {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))
	if err != nil {
		log.Fatal(err)
	}
	return &frames{w: w, size: size, enc: enc}
}

func (f *frames) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	for f.size > 0 && len(f.buf) >= f.size {
		if err := f.flush(f.size); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (f *frames) flush(n int) error {
	_, err := f.w.Write(f.enc.EncodeAll(f.buf[:n], nil))
	f.buf = f.buf[n:]
	f.wrote = true
	return err
}

func (f *frames) Close() error {
	if len(f.buf) > 0 || f.size == 0 || !f.wrote {
		return f.flush(len(f.buf))
	}
	return nil
}

// xzMember writes an XZ stream once the member is closed: archive/zip
// makes the compressor before it writes the local header, and xz.NewWriter
// writes the stream header at once.
type xzMember struct {
	w   io.Writer
	buf bytes.Buffer
}

func (m *xzMember) Write(p []byte) (int, error) { return m.buf.Write(p) }

func (m *xzMember) Close() error {
	xw, err := xz.WriterConfig{DictCap: 1 << 16}.NewWriter(m.w)
	if err != nil {
		return err
	}
	if _, err := xw.Write(m.buf.Bytes()); err != nil {
		return err
	}
	return xw.Close()
}

func write(dir, name string, files []string, method uint16, register func(*zip.Writer)) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	register(w)
	for _, f := range files {
		body, err := os.ReadFile(filepath.Join("../methods/src", f))
		if err != nil {
			log.Fatal(err)
		}
		h := &zip.FileHeader{Name: f, Method: method, Modified: mod}
		h.SetMode(0o644)
		fw, err := w.CreateHeader(h)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := fw.Write(body); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

func main() {
	dir := os.Args[1]
	files := []string{"hello.txt", "empty.txt", "seq.txt"}
	zstdOf := func(method uint16, size int) func(*zip.Writer) {
		return func(w *zip.Writer) {
			w.RegisterCompressor(method, func(out io.Writer) (io.WriteCloser, error) { return newFrames(out, size), nil })
		}
	}
	write(dir, "go-zstd.zip", files, 93, zstdOf(93, 0))
	write(dir, "go-zstd-frames.zip", files, 93, zstdOf(93, 4096))
	write(dir, "go-zstd20.zip", files, 20, zstdOf(20, 0))
	write(dir, "go-xz.zip", files, 95, func(w *zip.Writer) {
		w.RegisterCompressor(95, func(out io.Writer) (io.WriteCloser, error) { return &xzMember{w: out}, nil })
	})
}
