package zipadapter

import (
	"context"
	"fmt"

	"github.com/pipefs/pipefs/internal/indexenc"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// The central directory is kept on disk (vfs.DiskIndex) once an archive
// is open, so that a later process opening the same version of the
// archive reads neither its end records nor its directory: only the
// members it reads.
//
// What is kept is the directory's bytes as read, not an index made of
// them: at load they go through the parser that reads them from the
// archive (readDirectory, checkOverlap, index), with the same checks and
// limits, so that a kept directory opens the archive exactly as reading it
// again would, and bytes that were damaged on disk, or written by another
// version, are an error like a damaged archive's (then a miss: the
// directory is read from the archive and kept anew).
//
// The encoding, version 1, is a sequence of indexenc values: the size of
// the archive, what its end records say (the count of records, the
// directory's offset and the base offset of a prefixed archive), then the
// bytes read from the directory's start. Decoding checks that the size is
// the blob's, that the directory starts within the archive and that its
// bytes do not run past its end. The bytes are at most
// max(Limits.MaxDocument, 64 KiB): a directory read in more than that is
// not kept.

// diskKind names the kept directory for lim: the entry and name limits
// decide where a parse stops with an error, so a directory kept under
// other limits is not used.
func diskKind(lim vfs.Limits) string {
	return fmt.Sprintf("zip v1 entries %d name %d", lim.MaxEntries, lim.MaxNameLength)
}

// maxKeptDir is the most directory bytes kept on disk under lim.
func maxKeptDir(lim vfs.Limits) int64 { return max(lim.MaxDocument, minDirRead) }

// keptOverhead bounds the bytes of the encoding besides the directory's:
// four varints and a length.
const keptOverhead = 5 * 10

// A keptDir is a central directory loaded from disk.
type keptDir struct {
	end *endRecord
	raw []byte // the directory's bytes from its start
}

// read is the dirReader of the kept bytes: past them is the end of the
// blob, where readDirectory stops as it did when they were read.
func (k *keptDir) read(ctx context.Context, p []byte, off int64) (int, error) {
	return driver.BytesBlob(k.raw, nil).ReadAt(ctx, p, off)
}

func encodeDir(size int64, end *endRecord, raw string) []byte {
	var e indexenc.Encoder
	e.Int(size)
	e.Uint(end.records)
	e.Int(end.dirStart)
	e.Int(end.base)
	e.String(raw)
	return e.Bytes()
}

// decodeDir decodes what encodeDir wrote, for an archive of size bytes.
func decodeDir(b []byte, size int64, lim vfs.Limits) (*keptDir, error) {
	d := indexenc.NewDecoder(b)
	if n := d.Int(); n != size {
		d.Fail("kept directory is of a %d-byte archive, not %d", n, size)
	}
	end := &endRecord{records: d.Uint(), dirStart: d.Int(), base: d.Int()}
	raw := d.Raw(int(min(maxKeptDir(lim), maxDirLen)))
	if end.dirStart < 0 || end.dirStart >= size || int64(len(raw)) > size-end.dirStart {
		d.Fail("kept directory [%d, +%d) outside the %d-byte archive", end.dirStart, len(raw), size)
	}
	if err := d.Done(); err != nil {
		return nil, err
	}
	return &keptDir{end: end, raw: raw}, nil
}

// loadDir returns the directory kept on disk for an archive of size
// bytes, if there is one that decodes; one that does not is removed.
func loadDir(ctx context.Context, disk vfs.DiskIndex, size int64, lim vfs.Limits) (*keptDir, bool) {
	b, ok := disk.Load(ctx, maxKeptDir(lim)+keptOverhead)
	if !ok {
		return nil, false
	}
	k, err := decodeDir(b, size, lim)
	if err != nil {
		disk.Remove()
		return nil, false
	}
	return k, true
}

// storeDir keeps the directory of a, which end describes, on disk.
func storeDir(ctx context.Context, disk vfs.DiskIndex, a *Archive, end *endRecord, lim vfs.Limits) {
	if disk.Enabled() && int64(len(a.dir)) <= maxKeptDir(lim) {
		disk.Store(ctx, encodeDir(a.size, end, a.dir))
	}
}
