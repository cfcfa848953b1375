package xzadapter

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/ulikunitz/xz/lzma"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// maxChunk is the most output one LZMA2 chunk holds.
const maxChunk = 2 << 20

// DecodeHead decodes the start of an xz file from head, its first bytes,
// for a program that looks at many files by their heads alone (a
// listing): up to n bytes of its first block's output, fewer when head or
// the block ends first.
//
// The block's dictionary must fit in lim.MaxWindow, as opening the file
// asks (an error matching driver.ErrLimit otherwise), but the head is
// decoded with a dictionary of at most n bytes and one LZMA2 chunk (2
// MiB), whatever the block asks for: the first n bytes of the output
// refer no further back than n bytes, and a decoder that reaches past them
// stops at the end of the chunk it is in. So a head costs about that much
// memory, where a decoder that trusts the header allocates up to 4 GiB. A
// head that is not an xz stream whose first block is LZMA2 alone is an
// error matching driver.ErrCorrupt; so is bad data within the first n
// bytes, with what decoded before it.
func DecodeHead(head []byte, n int, lim vfs.Limits) ([]byte, error) {
	lim = lim.Effective()
	le := binary.LittleEndian
	if len(head) < 12 || string(head[:6]) != magic {
		return nil, driver.Corruptf("no xz stream header")
	}
	if crc32.ChecksumIEEE(head[6:8]) != le.Uint32(head[8:12]) || head[6] != 0 || head[7]&0xf0 != 0 {
		return nil, driver.Corruptf("xz stream header is damaged")
	}
	if len(head) == 12 || head[12] == 0 {
		return nil, nil // the head ends, or the stream has no block
	}
	end := 12 + (int(head[12])+1)*4
	if len(head) < end {
		return nil, nil // the head ends in the block header
	}
	dicts, lzma2, err := blockHeader(head[12:end], 12)
	if err != nil {
		return nil, err
	}
	if !lzma2 {
		return nil, driver.Corruptf("xz block at 12: filters other than LZMA2")
	}
	if err := checkDict(dicts[0], 12, lim); err != nil {
		return nil, err
	}
	r, err := lzma.Reader2Config{DictCap: int(min(dicts[0], int64(n)+maxChunk))}.NewReader2(bytes.NewReader(head[end:]))
	if err != nil {
		return nil, driver.Corruptf("xz block at 12: %v", err)
	}
	out := make([]byte, n)
	k, err := io.ReadFull(r, out)
	switch err {
	case nil, io.EOF, io.ErrUnexpectedEOF:
		return out[:k], nil // the head or the block ends
	}
	return out[:k], driver.Corruptf("xz block at 12: %v", err)
}
