package hdf5adapter

import (
	"encoding/binary"

	"github.com/pipefs/pipefs/internal/aec"
	"github.com/pipefs/pipefs/vfs/driver"
)

// decodeSzip undoes filter 4, szip, as libhdf5's H5Z_filter_szip with
// libaec decodes it: the decoded size (4 bytes, little-endian), then the
// stream of SZ_BufftoBuffCompress. Its values, as libhdf5's set_local
// completes them, are the option mask, pixels per block, bits per pixel
// and pixels per scanline.
func decodeSzip(f Filter, src []byte, _, limit int) ([]byte, error) {
	if len(f.Values) < 4 {
		return nil, driver.Corruptf("szip: %d client data values, want 4", len(f.Values))
	}
	if len(src) < 4 {
		return nil, driver.Corruptf("szip: %d bytes, shorter than the size header", len(src))
	}
	size := binary.LittleEndian.Uint32(src)
	if uint64(size) > uint64(limit) {
		return nil, driver.Corruptf("szip: header claims %d bytes, more than the %d the chunk can hold", size, limit)
	}
	v := f.Values
	const maxParam = 1 << 16 // far above what szip allows, so that int conversions are exact
	if v[0] > maxParam || v[1] > maxParam || v[2] > maxParam || v[3] > maxParam {
		return nil, driver.Corruptf("szip: parameters %v out of range", v[:4])
	}
	return aec.Szip(src[4:], aec.SzipParams{
		Options:           int(v[0]),
		PixelsPerBlock:    int(v[1]),
		BitsPerPixel:      int(v[2]),
		PixelsPerScanline: int(v[3]),
	}, int(size))
}
