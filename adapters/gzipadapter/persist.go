package gzipadapter

import (
	"compress/gzip"
	"time"

	"github.com/pipefs/pipefs/internal/indexenc"
)

// diskVersion is the version of what the adapter keeps on disk
// (vfs.DiskIndex): the first member's header, then the stream's
// checkpoint index (inflate.Index.Encode). The header's fields are
// indexenc values: the offset of the DEFLATE data, OS, MTIME in Unix
// seconds (0 when unset), name, comment, extra field. Decoding checks them
// as parseHeader checks the stream's bytes.
const diskVersion = 2

func encodeDisk(h *gzip.Header, data int64, ix []byte) []byte {
	var e indexenc.Encoder
	e.Int(data)
	e.Uint(uint64(h.OS))
	var mtime int64
	if !h.ModTime.IsZero() {
		mtime = h.ModTime.Unix()
	}
	e.Int(mtime)
	e.String(h.Name)
	e.String(h.Comment)
	e.Raw(h.Extra)
	e.Raw(ix)
	return e.Bytes()
}

// decodeDisk decodes what encodeDisk wrote for an input of size bytes.
func decodeDisk(b []byte, size int64, maxName int) (*gzip.Header, int64, []byte, error) {
	d := indexenc.NewDecoder(b)
	h := new(gzip.Header)
	data := d.NonNeg(10)
	if data > size {
		d.Fail("DEFLATE data at %d past the input's end %d", data, size)
	}
	os := d.Uint()
	if os > 0xff {
		d.Fail("OS %d", os)
	}
	h.OS = byte(os)
	if t := d.NonNeg(0); t != 0 {
		if t > 1<<32-1 {
			d.Fail("MTIME %d", t)
		}
		h.ModTime = time.Unix(t, 0)
	}
	// A name or comment decoded from ISO 8859-1 takes up to twice its
	// bytes in UTF-8.
	h.Name = d.String(2 * maxName)
	h.Comment = d.String(2 * maxName)
	if extra := d.Raw(maxExtra); len(extra) > 0 {
		h.Extra = extra
	}
	ix := d.Raw(len(b))
	if err := d.Done(); err != nil {
		return nil, 0, nil, err
	}
	return h, data, ix, nil
}

// headVersion is the version of the small entry kept beside the index
// (vfs.DiskIndex of headKind): what encodeDisk writes, with the stream's
// output size in place of the index (as a varint, -1 while unknown), then
// the output offset (0 when none) and CRC-32 of the first checked
// checkpoint of the first member (inflate.Index.FirstCheck). A process
// reads it at open, and the index, which may be megabytes of windows,
// only when it decodes past that checkpoint: a listing served from a tar
// member table reads no index at all, and a read of the stream's start
// (format detection) decodes to the checkpoint and checks its output.
const headVersion = 2

// A head is what encodeHead keeps beside the index.
type head struct {
	size     int64  // the output size, -1 while unknown
	checkOut int64  // the first checked checkpoint's output offset, 0 if none
	checkCRC uint32 // and the CRC-32 of the output before it
}

func encodeHead(h *gzip.Header, data int64, hd head) []byte {
	var e indexenc.Encoder
	e.Int(hd.size)
	e.Int(hd.checkOut)
	e.Uint(uint64(hd.checkCRC))
	return encodeDisk(h, data, e.Bytes())
}

// decodeHead decodes what encodeHead wrote for an input of srcSize bytes.
func decodeHead(b []byte, srcSize int64, maxName int) (h *gzip.Header, data int64, hd head, err error) {
	h, data, rest, err := decodeDisk(b, srcSize, maxName)
	if err != nil {
		return nil, 0, head{}, err
	}
	d := indexenc.NewDecoder(rest)
	hd.size = d.Int()
	hd.checkOut = d.NonNeg(0)
	crc := d.Uint()
	hd.checkCRC = uint32(crc)
	switch {
	case hd.size < -1:
		d.Fail("output size %d", hd.size)
	case crc > 1<<32-1:
		d.Fail("CRC-32 %d", crc)
	case hd.size >= 0 && hd.checkOut > hd.size:
		d.Fail("checkpoint at %d past the output size %d", hd.checkOut, hd.size)
	}
	if err := d.Done(); err != nil {
		return nil, 0, head{}, err
	}
	return h, data, hd, nil
}
