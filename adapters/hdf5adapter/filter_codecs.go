package hdf5adapter

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/zlib"

	"github.com/pipefs/pipefs/internal/arraycodec"
	"github.com/pipefs/pipefs/vfs/driver"
)

// filterZlibReaders holds zlib readers for reuse: a new one allocates its
// window and tables, which costs more than inflating a small chunk.
var filterZlibReaders sync.Pool

// decodeDeflate undoes filter 1: one zlib stream (RFC 1950), as libhdf5's
// H5Z_filter_deflate writes it. Bytes after the end of the stream are
// ignored, as zlib's inflate does.
func decodeDeflate(_ Filter, src []byte, _, limit int) ([]byte, error) {
	br := bytes.NewReader(src)
	var zr io.ReadCloser
	var err error
	if v, ok := filterZlibReaders.Get().(io.ReadCloser); ok {
		zr = v
		err = zr.(zlib.Resetter).Reset(br, nil)
	} else {
		zr, err = zlib.NewReader(br)
	}
	if err != nil {
		return nil, driver.Corruptf("zlib header: %v", err)
	}
	out, err := filterReadAll(zr, limit, len(src))
	filterZlibReaders.Put(zr)
	return out, err
}

// filterReadAll reads r to its end into a buffer that never grows past limit
// bytes: more data is driver.ErrCorrupt. hint, the size of the compressed
// input, sizes the first buffer when limit is large.
func filterReadAll(r io.Reader, limit, hint int) ([]byte, error) {
	size := limit
	if size > 1<<22 {
		size = min(limit, max(1<<16, 8*hint))
	}
	buf := make([]byte, size)
	n := 0
	for {
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			return buf[:n], nil
		}
		if err != nil {
			if errors.Is(err, driver.ErrLimit) || errors.Is(err, driver.ErrCorrupt) {
				return nil, err
			}
			return nil, driver.Corruptf("%v", err)
		}
		if n < len(buf) {
			continue
		}
		if len(buf) == limit {
			// Full: the stream must end here.
			var probe [1]byte
			m, err := io.ReadFull(r, probe[:])
			if m > 0 {
				return nil, driver.Corruptf("stream decodes to more than the %d bytes the chunk can hold", limit)
			}
			if err != io.EOF {
				return nil, driver.Corruptf("%v", err)
			}
			return buf, nil
		}
		grown := make([]byte, min(limit, 2*len(buf)))
		copy(grown, buf)
		buf = grown
	}
}

// decodeShuffle undoes filter 2, libhdf5's byte shuffle. Its value is the
// element size (0 or none: the dataset's). As in H5Z_filter_shuffle, the
// len%size bytes that do not fill an element stay at the end, and a
// buffer of at most one element, or 1-byte elements, is left as is.
func decodeShuffle(f Filter, src []byte, elemSize, limit int) ([]byte, error) {
	if len(src) > limit {
		return nil, driver.Corruptf("shuffled data of %d bytes, more than the %d expected", len(src), limit)
	}
	es := elemSize
	if len(f.Values) > 0 && f.Values[0] != 0 {
		es = int(f.Values[0])
	}
	if es <= 1 || len(src)/es <= 1 {
		return src, nil
	}
	return arraycodec.Unshuffle(src, es), nil
}

// decodeFletcher32 undoes filter 3: it checks the 4-byte Fletcher-32
// checksum that ends src and strips it. Like H5Z_filter_fletcher32 it
// also accepts the checksum of libhdf5 before 1.6.3 (its 16-bit halves
// byte-swapped).
func decodeFletcher32(_ Filter, src []byte, _, limit int) ([]byte, error) {
	if len(src) < 4 {
		return nil, driver.Corruptf("fletcher32: %d bytes, shorter than the checksum", len(src))
	}
	data := src[:len(src)-4]
	if len(data) > limit {
		return nil, driver.Corruptf("fletcher32: %d bytes, more than the %d expected", len(data), limit)
	}
	stored := binary.LittleEndian.Uint32(src[len(data):])
	sum := checksumFletcher32(data)
	// libhdf5 before 1.6.3 summed the other way round on little-endian
	// hosts: the same checksum with each 16-bit half byte-swapped.
	old := (sum&0x00ff00ff)<<8 | (sum&0xff00ff00)>>8
	if stored != sum && stored != old {
		return nil, driver.Corruptf("fletcher32: checksum %#08x, data sums to %#08x", stored, sum)
	}
	return data, nil
}

// checksumFletcher32 is libhdf5's H5_checksum_fletcher32: 16-bit words read
// big-endian, an odd last byte taken as the high byte of a word, sums
// folded to 16 bits every 360 words.
func checksumFletcher32(data []byte) uint32 {
	var sum1, sum2 uint32
	words := len(data) / 2
	p := data
	for words > 0 {
		n := min(words, 360)
		words -= n
		for i := 0; i < n; i++ {
			sum1 += uint32(p[2*i])<<8 | uint32(p[2*i+1])
			sum2 += sum1
		}
		p = p[2*n:]
		sum1 = sum1&0xffff + sum1>>16
		sum2 = sum2&0xffff + sum2>>16
	}
	if len(data)%2 != 0 {
		sum1 += uint32(data[len(data)-1]) << 8
		sum2 += sum1
		sum1 = sum1&0xffff + sum1>>16
		sum2 = sum2&0xffff + sum2>>16
	}
	sum1 = sum1&0xffff + sum1>>16
	sum2 = sum2&0xffff + sum2>>16
	return sum2<<16 | sum1
}

// decodeBzip2 undoes filter 307 (PyTables' and hdf5_plugins' bzip2): one
// bzip2 stream.
func decodeBzip2(_ Filter, src []byte, _, limit int) ([]byte, error) {
	return arraycodec.Bzip2(src, limit)
}

// decodeBlosc undoes filter 32001 (hdf5-blosc): one Blosc frame. Its
// values (filter version, Blosc format version, type size, chunk size,
// then compression level, shuffle and compressor) only matter to the
// writer: the frame header says how to decode it.
func decodeBlosc(_ Filter, src []byte, _, limit int) ([]byte, error) {
	return arraycodec.Blosc(src, limit)
}

// decodeZstd undoes filter 32015 (HDF5 zstd plugin): one or more zstd
// frames.
func decodeZstd(_ Filter, src []byte, _, limit int) ([]byte, error) {
	return arraycodec.Zstd(src, limit)
}

// decodeLZ4 undoes filter 32004, the HDF5 lz4 plugin's framing: the
// decoded size (8 bytes, big-endian), the block size (4 bytes,
// big-endian; larger than the total means one block), then for each block
// its stored size (4 bytes, big-endian) and its bytes: an LZ4 block, or
// the block itself when the stored size equals the block size.
func decodeLZ4(_ Filter, src []byte, _, limit int) ([]byte, error) {
	if len(src) < 12 {
		return nil, driver.Corruptf("lz4: %d bytes, shorter than the 12-byte header", len(src))
	}
	total := binary.BigEndian.Uint64(src)
	block := uint64(binary.BigEndian.Uint32(src[8:]))
	if total > uint64(limit) {
		return nil, driver.Corruptf("lz4: header claims %d bytes, more than the %d the chunk can hold", total, limit)
	}
	if block > total {
		block = total
	}
	if block == 0 && total > 0 {
		return nil, driver.Corruptf("lz4: block size 0")
	}
	out := make([]byte, total)
	in := src[12:]
	for done := uint64(0); done < total; {
		n := min(block, total-done)
		if len(in) < 4 {
			return nil, driver.Corruptf("lz4: truncated at block %d", done/block)
		}
		stored := uint64(binary.BigEndian.Uint32(in))
		in = in[4:]
		if stored > uint64(len(in)) {
			return nil, driver.Corruptf("lz4: block of %d bytes, %d left", stored, len(in))
		}
		if stored == n {
			copy(out[done:], in[:n])
		} else {
			b, err := arraycodec.LZ4Block(in[:stored], int(n))
			if err != nil {
				return nil, err
			}
			copy(out[done:], b)
		}
		in = in[stored:]
		done += n
	}
	return out, nil
}

// decodeLZF undoes filter 32000, h5py's LZF filter: raw LZF data
// (liblzf's format, no header) of at most limit bytes.
func decodeLZF(_ Filter, src []byte, _, limit int) ([]byte, error) {
	out := make([]byte, 0, min(limit, 64+32*len(src)))
	grow := func(n int) error {
		if len(out)+n > limit {
			return driver.Corruptf("lzf: data decodes to more than the %d bytes the chunk can hold", limit)
		}
		if len(out)+n > cap(out) {
			bigger := make([]byte, len(out), min(limit, 2*cap(out)+n))
			copy(bigger, out)
			out = bigger
		}
		return nil
	}
	for i := 0; i < len(src); {
		ctrl := int(src[i])
		i++
		if ctrl < 1<<5 { // a run of ctrl+1 literal bytes
			n := ctrl + 1
			if n > len(src)-i {
				return nil, driver.Corruptf("lzf: literal run of %d bytes, %d left", n, len(src)-i)
			}
			if err := grow(n); err != nil {
				return nil, err
			}
			out = append(out, src[i:i+n]...)
			i += n
			continue
		}
		// a back reference: length in the top 3 bits (7: one more byte),
		// distance-1 in the low 5 bits and the next byte
		n := ctrl >> 5
		if n == 7 {
			if i >= len(src) {
				return nil, driver.Corruptf("lzf: truncated back reference")
			}
			n += int(src[i])
			i++
		}
		if i >= len(src) {
			return nil, driver.Corruptf("lzf: truncated back reference")
		}
		ref := len(out) - (ctrl&0x1f)<<8 - int(src[i]) - 1
		i++
		n += 2
		if ref < 0 {
			return nil, driver.Corruptf("lzf: back reference before the start")
		}
		if err := grow(n); err != nil {
			return nil, err
		}
		for k := 0; k < n; k++ { // may overlap what it writes
			out = append(out, out[ref+k])
		}
	}
	return out, nil
}
