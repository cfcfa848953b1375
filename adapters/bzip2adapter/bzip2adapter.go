// Package bzip2adapter registers the vendor adapter "pipefs.bzip2:" and
// the bzip2 format signature ("BZh" and a block size digit) with vfs.
// Import it for its side effects:
//
//	import _ "github.com/pipefs/pipefs/adapters/bzip2adapter"
//
// "file:/d/x.bz2|pipefs.bzip2:" is the decompressed bytes of x.bz2,
// decoded by the standard library's compress/bzip2. Concatenated streams
// (as pbzip2 and lbzip2 write) are one output.
//
// # Stream only
//
// bzip2 has no index, so random access is not served: a read at or after
// where the previous one stopped continues the decoder, and a read before
// it starts over from the beginning (see internal/streamblob). The blob is
// a [driver.Streamer], so io.Copy of the file decodes it once. The size is
// learnt by the first pass that reaches the end; Stat().Size() runs that
// pass on its first call if none has (with the open's context values, not
// its cancellation), and returns Limits.MaxFileSize when the stream is bad
// so that a reader reads on to the error instead of stopping short.
//
// # Errors and limits
//
// Two or more zero bytes after the last stream are padding, as bzip2 -t,
// GNU tar and bsdtar take them (a single one is read as a truncated
// stream: compress/bzip2 reports it so). Block and stream CRCs are checked by compress/bzip2, and a ReadAt that
// stops short of the end returns its bytes only once a pass has decoded
// the whole stream and every CRC passed: the first such read of an open
// file runs that pass (which also learns the size), with a decoder of its
// own, and a stream that fails gives every read no bytes and the error.
// A stream (io.Copy) delivers output as it decodes and fails at the bad
// block. A bad CRC, bad
// magic, trailing bytes that are not a bzip2 stream and truncation give
// errors matching driver.ErrCorrupt. Limits.MaxFileSize bounds the output
// and, past Limits.RatioFloor, Limits.MaxRatio bounds it against the compressed bytes at the
// bottom of nested decompressors (errors matching driver.ErrLimit).
// compress/bzip2 holds at most 900 kB blocks, so a decoder's memory is
// bounded (about 4 MB) whatever the input.
//
// # Concurrency
//
// The blob is safe for concurrent use; its ReadAt calls are serialised.
package bzip2adapter

import (
	"bufio"
	"compress/bzip2"
	"context"
	"errors"
	"io"
	"strings"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/fsname"
	"github.com/pipefs/pipefs/internal/streamblob"
	"github.com/pipefs/pipefs/vfs"
)

// Scheme is the adapter scheme this package registers.
const Scheme = "pipefs.bzip2"

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{Scheme: Scheme, OpenFile: open, Extensions: []string{".bz2"}, Stream: true, DecodeHead: DecodeHead})
	vfs.RegisterFormat(&vfs.Format{Name: "bzip2", Adapter: Scheme + ":", Input: vfs.KindFile, Magic: "BZh", Head: 10, Match: Match})
}

// Match reports whether head starts a bzip2 stream: "BZh", a block size
// digit 1-9 and the block magic (or the end-of-stream magic of an empty
// stream).
func Match(head, _ []byte, _ int64) bool {
	if len(head) < 10 || !strings.HasPrefix(string(head), "BZh") || head[3] < '1' || head[3] > '9' {
		return false
	}
	m := string(head[4:10])
	return m == "\x31\x41\x59\x26\x53\x59" || m == "\x17\x72\x45\x38\x50\x90"
}

func open(ctx context.Context, src driver.Blob, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
	var head [10]byte
	if n, err := src.ReadAt(ctx, head[:], 0); n < len(head) || !Match(head[:], nil, 0) {
		if err != nil && err != io.EOF {
			return driver.Location{}, err
		}
		return driver.Location{}, vfs.NotFormat(ctx, env.Options, src, Scheme, "a bzip2 stream", "no bzip2 stream header at offset 0")
	}
	info := src.Stat()
	b := streamblob.New(ctx, src, streamblob.Config{
		Format:    "bzip2",
		NewReader: newReader,
		Size:      -1,
		Name:      fsname.Decompressed("bzip2", info.Name()),
		Mode:      info.Mode(),
		ModTime:   info.ModTime(),
	}, env.Limits)
	return driver.Location{Blob: b}, nil
}

// newReader decodes r as compress/bzip2 does, but takes zero bytes after
// the last stream for padding, as bzip2 -t, GNU tar and bsdtar do.
func newReader(r io.Reader) (io.Reader, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	t := &tail{r: br}
	return &paddedReader{d: bzip2.NewReader(t), t: t}, nil
}

// errContinuation is what compress/bzip2 returns when the two bytes after
// a stream are not the "BZ" of another.
var errContinuation = bzip2.StructuralError("bad magic value in continuation file")

// A paddedReader ends the output cleanly where compress/bzip2 finds no
// stream after the last one, when the bytes from there to the end of the
// input are all zero.
type paddedReader struct {
	d   io.Reader
	t   *tail
	eof bool
}

func (p *paddedReader) Read(b []byte) (int, error) {
	if p.eof {
		return 0, io.EOF
	}
	n, err := p.d.Read(b)
	if errors.Is(err, errContinuation) && p.t.last == [2]byte{} {
		zero, rerr := restZero(p.t.r)
		if rerr != nil {
			return n, rerr
		}
		if zero {
			p.eof = true
			return n, io.EOF
		}
	}
	return n, err
}

// tail is the input of compress/bzip2 (an io.ByteReader, which it reads
// byte by byte), keeping the last two bytes read: after a stream, the two
// it looks at for another.
type tail struct {
	r    *bufio.Reader
	last [2]byte
}

func (t *tail) ReadByte() (byte, error) {
	c, err := t.r.ReadByte()
	if err == nil {
		t.last[0], t.last[1] = t.last[1], c
	}
	return c, err
}

func (t *tail) Read(p []byte) (int, error) { return t.r.Read(p) }

// restZero reports whether the rest of r is zero bytes.
func restZero(r *bufio.Reader) (bool, error) {
	for {
		b, err := r.Peek(r.Size())
		for _, c := range b {
			if c != 0 {
				return false, nil
			}
		}
		r.Discard(len(b))
		if err == io.EOF {
			return true, nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return false, err
		}
	}
}
