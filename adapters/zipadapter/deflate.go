package zipadapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/internal/blobread"
	"github.com/pipefs/pipefs/internal/inflate"
)

// newDeflated returns the blob of a DEFLATE member whose compressed data
// is [off, off+csize) of the archive. Random access goes through the
// checkpoint index of internal/inflate, shared in Options.Cache under a key
// made of the archive's canonical pipeline, size and modification time
// and the member's name and header offset (no key, a private index, when
// the archive was opened without a pipeline).
func (a *Archive) newDeflated(name string, h *header, rec *record, off int64, info fs.FileInfo) *compressedBlob {
	key := ""
	if a.key != "" {
		key = fmt.Sprintf("%s\x00%s\x00%d", a.key, name, rec.hdr)
	}
	// archive/zip treats a CRC-32 of 0 as "not set"; so does this package.
	s := inflate.NewMember(a.blob, off, int64(h.csize), int64(h.usize), h.crc, h.crc != 0,
		key, &inflate.Options{Limits: a.lim, Cache: a.cache})
	return &compressedBlob{s: s, info: info, name: name}
}

// A compressedBlob is a DEFLATE member. Its first error that says the
// member is corrupt is sticky: every later read returns it.
type compressedBlob struct {
	s    *inflate.Stream
	info fs.FileInfo
	name string

	mu  sync.Mutex
	err error
}

var (
	_ driver.Blob     = (*compressedBlob)(nil)
	_ driver.Streamer = (*compressedBlob)(nil)
	_ io.Closer       = (*compressedBlob)(nil)
)

func (b *compressedBlob) Stat() fs.FileInfo { return b.info }

func (b *compressedBlob) sticky() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// check records err when it says the member is corrupt, and names the
// member in it.
func (b *compressedBlob) check(err error) error {
	if err == nil || err == io.EOF || !errors.Is(err, driver.ErrCorrupt) {
		return err
	}
	err = fmt.Errorf("%s: %w", b.name, err)
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.mu.Unlock()
	return err
}

func (b *compressedBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := b.sticky(); err != nil {
		return 0, err
	}
	n, err := b.s.ReadAt(ctx, p, off)
	return n, b.check(err)
}

// Stream reads the member forward from off with one decoder, building
// its index on the way; see inflate.Stream.Stream.
func (b *compressedBlob) Stream(ctx context.Context, off int64) (io.ReadCloser, error) {
	if err := b.sticky(); err != nil {
		return nil, err
	}
	rc, err := b.s.Stream(ctx, off)
	if err != nil {
		return nil, b.check(err)
	}
	return blobread.Watch(rc, b.check), nil
}

// Close returns the blob's decoders to a shared pool. The blob can still
// be read afterwards, at the cost of new ones.
func (b *compressedBlob) Close() error { return b.s.Close() }
