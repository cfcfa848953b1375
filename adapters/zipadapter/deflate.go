package zipadapter

import (
	"bufio"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"sync"

	"github.com/klauspost/compress/flate"

	"github.com/pipefs/pipefs/vfs"
)

// A member describes the compressed bytes of one archive member.
type member struct {
	src       vfs.Blob // the archive
	off, size int64    // the compressed data in src
	usize     int64    // declared uncompressed size
	crc       uint32   // declared CRC-32; 0 means not checked, as archive/zip does
	name      string   // for messages
}

// A decoder serves the decompressed bytes of one member at any offset.
// ReadAt follows the io.ReaderAt contract and is safe for concurrent use.
// A decoder never returns bytes beyond the declared size, and reports a
// stream that is longer or shorter than declared, or whose CRC-32 differs,
// with an error matching vfs.ErrCorrupt once the read reaches the end.
//
// This is the seam where a checkpoint index (seek points in the deflate
// stream) replaces the forward-only inflater below.
type decoder interface {
	readAt(ctx context.Context, p []byte, off int64) (int, error)
	// release frees pooled resources; the decoder stays usable.
	release()
}

// A compressedBlob is a member served by a decoder.
type compressedBlob struct {
	dec  decoder
	info fs.FileInfo
}

var (
	_ vfs.Blob  = (*compressedBlob)(nil)
	_ io.Closer = (*compressedBlob)(nil)
)

func (b *compressedBlob) Stat() fs.FileInfo { return b.info }

func (b *compressedBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	return b.dec.readAt(ctx, p, off)
}

// Close returns the blob's decompressor to a shared pool. The blob can
// still be read afterwards, at the cost of a new decompressor.
func (b *compressedBlob) Close() error {
	b.dec.release()
	return nil
}

// An inflater decodes a deflate member forward. A read at or after its
// position continues the stream (decoding and discarding up to the
// offset); a read before it restarts from the member's start. One mutex
// serialises the reads of a member: concurrent readers at far apart
// offsets take turns, and pay for restarts.
type inflater struct {
	m member

	mu  sync.Mutex
	st  *inflateState // nil until the first read, and after the end
	err error         // sticky: the member is corrupt
}

func newInflater(m member) *inflater { return &inflater{m: m} }

// An inflateState is a running decompressor with its input buffer. States
// are pooled: the flate tables and the two buffers cost about 100 KiB.
type inflateState struct {
	src     srcReader
	br      *bufio.Reader
	fr      io.ReadCloser // also a flate.Resetter
	scratch []byte        // for skipping forward
	pos     int64         // decompressed bytes produced
	crc     uint32        // CRC-32 of those bytes
}

var statePool = sync.Pool{New: func() any {
	st := &inflateState{scratch: make([]byte, 32<<10)}
	st.br = bufio.NewReaderSize(&st.src, 32<<10)
	st.fr = flate.NewReader(st.br)
	return st
}}

// A srcReader reads a byte range of a blob sequentially, with the context
// of the call in progress.
type srcReader struct {
	ctx      context.Context
	b        vfs.Blob
	off, end int64
}

func (r *srcReader) Read(p []byte) (int, error) {
	if r.off >= r.end {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.end-r.off)]
	n, err := r.b.ReadAt(r.ctx, p, r.off)
	r.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (z *inflater) start() (*inflateState, error) {
	st := statePool.Get().(*inflateState)
	st.src = srcReader{b: z.m.src, off: z.m.off, end: z.m.off + z.m.size}
	st.br.Reset(&st.src)
	if err := st.fr.(flate.Resetter).Reset(st.br, nil); err != nil {
		statePool.Put(st)
		return nil, err
	}
	st.pos, st.crc = 0, 0
	return st, nil
}

func (z *inflater) drop() {
	if z.st != nil {
		z.st.src = srcReader{}
		statePool.Put(z.st)
		z.st = nil
	}
}

func (z *inflater) release() {
	z.mu.Lock()
	z.drop()
	z.mu.Unlock()
}

func (z *inflater) readAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: z.m.name, Err: fs.ErrInvalid}
	}
	if off >= z.m.usize {
		return 0, io.EOF
	}
	short := false
	if rem := z.m.usize - off; int64(len(p)) > rem {
		p, short = p[:rem], true
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.err != nil {
		return 0, z.err
	}
	if z.st != nil && z.st.pos > off {
		z.drop()
	}
	if z.st == nil {
		st, err := z.start()
		if err != nil {
			return 0, err
		}
		z.st = st
	}
	st := z.st
	st.src.ctx = ctx
	defer func() {
		if z.st != nil {
			z.st.src.ctx = nil // keep no context beyond the call
		}
	}()
	for st.pos < off {
		if err := ctx.Err(); err != nil {
			z.drop()
			return 0, err
		}
		buf := st.scratch[:min(int64(len(st.scratch)), off-st.pos)]
		if err := z.fill(st, buf); err != nil {
			return 0, err
		}
	}
	if err := z.fill(st, p); err != nil {
		return 0, err
	}
	if st.pos == z.m.usize {
		if err := z.finish(st); err != nil {
			return 0, err
		}
		z.drop()
	}
	if short {
		return len(p), io.EOF
	}
	return len(p), nil
}

// fill reads exactly len(p) decompressed bytes.
func (z *inflater) fill(st *inflateState, p []byte) error {
	for len(p) > 0 {
		n, err := st.fr.Read(p)
		st.crc = crc32.Update(st.crc, crc32.IEEETable, p[:n])
		st.pos += int64(n)
		p = p[n:]
		if err != nil && (len(p) > 0 || err != io.EOF) {
			return z.fail(st, err)
		}
	}
	return nil
}

// finish checks, at the declared size, that the stream ends there and
// that the CRC-32 matches.
func (z *inflater) finish(st *inflateState) error {
	var one [1]byte
	for {
		n, err := st.fr.Read(one[:])
		if n > 0 {
			z.err = vfs.Corruptf("%s: deflate stream is longer than the declared %d bytes", z.m.name, z.m.usize)
			z.drop()
			return z.err
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return z.fail(st, err)
		}
	}
	if z.m.crc != 0 && st.crc != z.m.crc {
		z.err = vfs.Corruptf("%s: CRC-32 is %08x, header says %08x", z.m.name, st.crc, z.m.crc)
		z.drop()
		return z.err
	}
	return nil
}

// fail classifies a decoding error: malformed or short input is sticky
// and matches vfs.ErrCorrupt; anything else (a cancelled context, an I/O
// error of the archive) is returned as is and the next read starts over.
func (z *inflater) fail(st *inflateState, err error) error {
	var ce flate.CorruptInputError
	var ie flate.InternalError
	switch {
	case err == io.EOF:
		z.err = vfs.Corruptf("%s: deflate stream ends after %d bytes, header says %d", z.m.name, st.pos, z.m.usize)
	case err == io.ErrUnexpectedEOF:
		z.err = vfs.Corruptf("%s: truncated deflate stream (%d of %d bytes decoded)", z.m.name, st.pos, z.m.usize)
	case errors.As(err, &ce), errors.As(err, &ie), errors.Is(err, vfs.ErrCorrupt):
		z.err = vfs.Corruptf("%s: bad deflate data: %v", z.m.name, err)
	default:
		z.drop()
		return err
	}
	z.drop()
	return z.err
}
