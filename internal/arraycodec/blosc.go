package arraycodec

import (
	"github.com/klauspost/compress/s2"
	"github.com/pipefs/pipefs/vfs/driver"
)

// Blosc frame header fields (c-blosc 1.x, format version 2).
const (
	bloscHeader     = 16
	bloscShuffle    = 0x01
	bloscMemcpyed   = 0x02
	bloscBitShuffle = 0x04
	bloscReserved   = 0x08
	bloscNoSplit    = 0x10
	bloscMinBuffer  = 128 // blocksize/typesize below this never splits
	bloscMaxSplits  = 16
)

// bloscCodecs names the inner codecs by the 3-bit code in the flags.
var bloscCodecs = [8]string{"blosclz", "lz4", "snappy", "zlib", "zstd", "code 5", "code 6", "code 7"}

// BloscInfo is the header of a Blosc v1 frame.
type BloscInfo struct {
	Version, VersionLZ byte
	Flags              byte
	TypeSize           int
	NBytes             int // decoded size
	BlockSize          int
	CBytes             int // frame size
}

// Codec names the inner compressor ("blosclz", "lz4", "snappy", "zlib",
// "zstd").
func (h BloscInfo) Codec() string { return bloscCodecs[h.Flags>>5&7] }

// ParseBloscHeader reads and checks the 16-byte header of a Blosc frame.
func ParseBloscHeader(src []byte) (BloscInfo, error) {
	if len(src) < bloscHeader {
		return BloscInfo{}, driver.Corruptf("blosc: %d bytes, shorter than a header", len(src))
	}
	h := BloscInfo{
		Version: src[0], VersionLZ: src[1], Flags: src[2], TypeSize: int(src[3]),
		NBytes: int(le32(src[4:])), BlockSize: int(le32(src[8:])), CBytes: int(le32(src[12:])),
	}
	if h.Version != 2 {
		return h, errUnsupported("blosc: frame format version %d (c-blosc 1.x writes 2; later versions are Blosc2)", h.Version)
	}
	if h.Flags&bloscReserved != 0 {
		return h, driver.Corruptf("blosc: reserved flag 0x08 set")
	}
	if h.CBytes < bloscHeader || h.CBytes > len(src) {
		return h, driver.Corruptf("blosc: frame size %d, buffer %d", h.CBytes, len(src))
	}
	if h.NBytes < 0 || int64(h.NBytes) != int64(le32(src[4:])) {
		return h, driver.Limitf("blosc: decoded size %d too large", le32(src[4:]))
	}
	return h, nil
}

// Blosc decodes a Blosc v1 frame (c-blosc 1.x, as numcodecs and Zarr
// write it) whose decoded size must be at most max.
func Blosc(src []byte, max int) ([]byte, error) {
	h, err := ParseBloscHeader(src)
	if err != nil {
		return nil, err
	}
	if h.NBytes > max {
		return nil, driver.Limitf("blosc: decoded size %d exceeds %d", h.NBytes, max)
	}
	src = src[:h.CBytes]
	if h.NBytes == 0 {
		return []byte{}, nil
	}
	if h.Flags&bloscMemcpyed != 0 {
		if h.CBytes != h.NBytes+bloscHeader {
			return nil, driver.Corruptf("blosc: memcpyed frame of %d bytes holds %d", h.CBytes, h.NBytes)
		}
		out := make([]byte, h.NBytes)
		copy(out, src[bloscHeader:])
		return out, nil
	}
	if h.BlockSize <= 0 {
		return nil, driver.Corruptf("blosc: block size %d", h.BlockSize)
	}
	if h.TypeSize == 0 {
		return nil, driver.Corruptf("blosc: type size 0")
	}
	nblocks := (h.NBytes + h.BlockSize - 1) / h.BlockSize
	// Each block needs a 4-byte start: bound nblocks by the frame before
	// allocating anything per block.
	if nblocks > (h.CBytes-bloscHeader)/4 {
		return nil, driver.Corruptf("blosc: %d blocks cannot fit in %d bytes", nblocks, h.CBytes)
	}
	codec := h.Flags >> 5 & 7
	if codec > 4 {
		return nil, errUnsupported("blosc: inner codec %s", h.Codec())
	}
	out := make([]byte, h.NBytes)
	var tmp []byte
	for b := 0; b < nblocks; b++ {
		bsize := h.BlockSize
		last := false
		if b == nblocks-1 && h.NBytes%h.BlockSize != 0 {
			bsize = h.NBytes % h.BlockSize
			last = true
		}
		start := int(int32(le32(src[bloscHeader+4*b:])))
		if start < bloscHeader+4*nblocks || start > len(src) {
			return nil, driver.Corruptf("blosc: block %d starts at %d, frame %d", b, start, len(src))
		}
		nsplits := 1
		if h.Flags&bloscNoSplit == 0 && h.TypeSize <= bloscMaxSplits &&
			h.BlockSize/h.TypeSize >= bloscMinBuffer && !last {
			nsplits = h.TypeSize
		}
		if bsize%nsplits != 0 {
			return nil, driver.Corruptf("blosc: block of %d bytes in %d splits", bsize, nsplits)
		}
		dst := out[b*h.BlockSize : b*h.BlockSize+bsize]
		shuffled := h.Flags&bloscShuffle != 0 && h.TypeSize > 1 ||
			h.Flags&bloscBitShuffle != 0 && bsize >= h.TypeSize
		target := dst
		if shuffled {
			if cap(tmp) < bsize {
				// bsize <= NBytes <= max: the header's block size
				// alone never sizes an allocation.
				tmp = make([]byte, bsize)
			}
			target = tmp[:bsize]
		}
		ssize := bsize / nsplits
		p := start
		for s := 0; s < nsplits; s++ {
			if p+4 > len(src) {
				return nil, driver.Corruptf("blosc: block %d split %d: truncated size", b, s)
			}
			csize := int(int32(le32(src[p:])))
			p += 4
			if csize < 0 || csize > len(src)-p {
				return nil, driver.Corruptf("blosc: block %d split %d: %d bytes past the frame", b, s, csize)
			}
			if err := bloscStream(codec, src[p:p+csize], target[s*ssize:(s+1)*ssize]); err != nil {
				return nil, err
			}
			p += csize
		}
		if shuffled {
			if h.Flags&bloscShuffle != 0 {
				unshuffleInto(dst, target, h.TypeSize)
			} else {
				bitUnshuffleInto(dst, target, h.TypeSize)
			}
		}
	}
	return out, nil
}

// bloscStream decodes one stream of a block into dst, which it fills
// exactly.
func bloscStream(codec byte, src, dst []byte) error {
	if len(src) == len(dst) {
		copy(dst, src)
		return nil
	}
	var (
		got []byte
		err error
	)
	switch codec {
	case 0:
		got, err = BloscLZ(src, len(dst))
	case 1:
		got, err = LZ4Block(src, len(dst))
	case 2:
		n, derr := s2.DecodedLen(src)
		if derr != nil {
			return driver.Corruptf("blosc: snappy: %v", derr)
		}
		if n != len(dst) {
			return driver.Corruptf("blosc: snappy stream decodes to %d bytes, want %d", n, len(dst))
		}
		got, err = s2.Decode(nil, src)
		if err != nil {
			err = driver.Corruptf("blosc: snappy: %v", err)
		}
	case 3:
		got, err = Zlib(src, len(dst))
	case 4:
		got, err = Zstd(src, len(dst))
	}
	if err != nil {
		return err
	}
	if len(got) != len(dst) {
		return driver.Corruptf("blosc: %s stream decodes to %d bytes, want %d", bloscCodecs[codec], len(got), len(dst))
	}
	copy(dst, got)
	return nil
}
