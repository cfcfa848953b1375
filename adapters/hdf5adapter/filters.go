package hdf5adapter

import (
	"errors"
	"fmt"
	"math"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A Filter is one filter of a dataset's filter pipeline, as the filter
// pipeline message (type 0x0B) stores it.
type Filter struct {
	// ID is the filter's identifier: 1 deflate, 2 shuffle, 3 fletcher32,
	// 4 szip, 5 n-bit, 6 scale-offset, 256 and above registered plugins
	// (32001 blosc, 307 bzip2, 32004 lz4, 32015 zstd, ...).
	ID uint16 `json:"id"`
	// Name is the name the message stores, or the registered name when
	// it stores none.
	Name string `json:"name,omitempty"`
	// Flags are the filter's flags as stored (bit 0: optional).
	Flags uint16 `json:"flags"`
	// Values are the filter's client data values as stored.
	Values []uint32 `json:"values,omitempty"`
}

// Filter identifiers this package decodes.
const (
	filterDeflate     = 1
	filterShuffle     = 2
	filterFletcher32  = 3
	filterSzip        = 4
	filterNbit        = 5
	filterScaleOffset = 6
	filterLZO         = 305
	filterBzip2       = 307
	filterLZF         = 32000
	filterBlosc       = 32001
	filterLZ4         = 32004
	filterBitshuffle  = 32008
	filterZstd        = 32015
)

// maxPipelineFilters is the number of filters a pipeline may hold (libhdf5's
// H5Z_MAX_NFILTERS): the filter mask of a chunk has one bit for each.
const maxPipelineFilters = 32

// A filterFunc undoes one filter on src. elemSize is the dataset's element
// size; limit bounds the size of what it returns, and so of what it may
// allocate: a stream that decodes to more is an error (driver.ErrLimit or
// driver.ErrCorrupt), whatever its headers claim. It may return src itself.
type filterFunc func(f Filter, src []byte, elemSize, limit int) ([]byte, error)

// filterDecoders maps the filters decodeChunk undoes to their functions.
var filterDecoders = map[uint16]filterFunc{
	filterDeflate:     decodeDeflate,
	filterShuffle:     decodeShuffle,
	filterFletcher32:  decodeFletcher32,
	filterSzip:        decodeSzip,
	filterNbit:        decodeNbit,
	filterScaleOffset: decodeScaleOffset,
	filterLZO:         decodeLZO,
	filterBzip2:       decodeBzip2,
	filterLZF:         decodeLZF,
	filterBlosc:       decodeBlosc,
	filterLZ4:         decodeLZ4,
	filterBitshuffle:  decodeBitshuffle,
	filterZstd:        decodeZstd,
}

// decodeChunk undoes pipeline on one stored chunk src: it runs the
// filters in reverse order, skipping those whose bit (by position in
// pipeline) is set in mask, and returns the chunk's chunkBytes bytes.
// elemSize is the dataset's element size in bytes. A chunk that does not
// decode to exactly chunkBytes bytes, or fails a checksum, is corrupt
// (driver.ErrCorrupt); a filter this package does not decode gives an
// error matching errors.ErrUnsupported that names its id and name.
//
// Nothing it allocates is sized by the stored data beyond chunkBytes plus
// a slack for what the filters still to undo add (4 bytes for a checksum,
// a header, 1 KiB and 1/32 of the chunk for data compressed twice): a
// stream that claims or decodes to more is driver.ErrCorrupt, or
// driver.ErrLimit from the codecs shared with Zarr (blosc, bzip2, zstd).
// The result may be src itself when no filter changes the bytes; src is
// not modified.
func decodeChunk(pipeline []Filter, mask uint32, src []byte, elemSize int, chunkBytes int64) ([]byte, error) {
	if chunkBytes < 0 || chunkBytes > math.MaxInt/4 {
		return nil, driver.Limitf("HDF5 chunk of %d bytes is too large to decode", chunkBytes)
	}
	if len(pipeline) > maxPipelineFilters {
		return nil, driver.Corruptf("HDF5 filter pipeline of %d filters (at most %d)", len(pipeline), maxPipelineFilters)
	}
	want := int(chunkBytes)
	buf := src
	for i := len(pipeline) - 1; i >= 0; i-- {
		if mask&(1<<i) != 0 {
			continue // an optional filter that was not applied to this chunk
		}
		f := pipeline[i]
		dec, ok := filterDecoders[f.ID]
		if !ok {
			return nil, unsupportedFilter(f)
		}
		out, err := dec(f, buf, elemSize, want+filterSlack(pipeline[:i], mask, want))
		if err != nil {
			return nil, fmt.Errorf("HDF5 filter %d (%s): %w", f.ID, filterLabel(f), err)
		}
		buf = out
	}
	if len(buf) != want {
		return nil, driver.Corruptf("HDF5 chunk decodes to %d bytes, want %d", len(buf), chunkBytes)
	}
	return buf, nil
}

const (
	// slackHeader covers the fixed headers that filters add before the
	// filters still to undo see their input: scale-offset's 21 bytes plus
	// one padding byte, n-bit's padding byte.
	slackHeader = 64
	// slackCompressed, plus 1/32 of the chunk, covers what a compressor
	// adds to data it cannot shrink (bzip2 the most, about 1%), when its
	// output is the input of another decoder.
	slackCompressed = 1024
)

// filterSlack is how many bytes more than the chunk the output of a filter may
// hold when rest (the filters before it, which decodeChunk undoes after
// it) still has to be undone: 4 for each fletcher32 checksum, and room for
// headers and for compressed data that another decoder will expand. With
// at most 32 filters and chunk at most MaxInt/4, the sum cannot overflow.
func filterSlack(rest []Filter, mask uint32, chunk int) int {
	n := 0
	for i, f := range rest {
		if mask&(1<<i) != 0 {
			continue
		}
		switch f.ID {
		case filterShuffle:
		case filterFletcher32:
			n += 4
		default:
			n += slackCompressed + chunk/32
		}
	}
	if n > 0 {
		n += slackHeader
	}
	return n
}

// checkFilters returns an error matching errors.ErrUnsupported, naming
// the filter's id and name, for the first filter of pipeline that
// decodeChunk cannot decode; nil when it decodes them all.
func checkFilters(pipeline []Filter) error {
	for _, f := range pipeline {
		if _, ok := filterDecoders[f.ID]; !ok {
			return unsupportedFilter(f)
		}
	}
	return nil
}

func unsupportedFilter(f Filter) error {
	return fmt.Errorf("HDF5 filter %d (%s) is not supported: pipefs decodes deflate, shuffle, "+
		"fletcher32, szip, n-bit, scale-offset, lzo, lzf, blosc, bzip2, lz4, bitshuffle and zstd: %w",
		f.ID, filterLabel(f), errors.ErrUnsupported)
}

// filterLabel names f by its registered name, or by the name the file
// stores for an unregistered one.
func filterLabel(f Filter) string {
	if name := filterName(f.ID); name != "unknown" || f.Name == "" {
		return name
	}
	if len(f.Name) > 64 {
		return fmt.Sprintf("%q...", f.Name[:64])
	}
	return fmt.Sprintf("%q", f.Name)
}

// filterNames are the names of the filters libhdf5 predefines and of
// those registered with The HDF Group (its RegisteredFilterPlugins list).
var filterNames = map[uint16]string{
	1:     "deflate",
	2:     "shuffle",
	3:     "fletcher32",
	4:     "szip",
	5:     "nbit",
	6:     "scaleoffset",
	257:   "hzip",
	258:   "fpzip",
	305:   "lzo",
	307:   "bzip2",
	32000: "lzf",
	32001: "blosc",
	32002: "mafisc",
	32003: "snappy",
	32004: "lz4",
	32005: "apax",
	32006: "cbf",
	32007: "jpeg-xr",
	32008: "bitshuffle",
	32009: "spdp",
	32010: "lpc-rice",
	32011: "ccsds-123",
	32012: "jpeg-ls",
	32013: "zfp",
	32014: "fpzip",
	32015: "zstd",
	32016: "b3d",
	32017: "sz",
	32018: "fcidecomp",
	32019: "jpeg",
	32020: "vbz",
	32021: "fapec",
	32022: "bitgroom",
	32023: "granularbr",
	32024: "sz3",
	32025: "delta-rice",
	32026: "blosc2",
	32027: "flac",
	32028: "sperr",
	32029: "terse-prolix",
	32030: "ffmpeg",
}

// filterName returns the registered name of filter id ("deflate",
// "shuffle", "fletcher32", "szip", "nbit", "scaleoffset", "lzf",
// "blosc", "bzip2", "lz4", "zstd", ...), or "unknown".
func filterName(id uint16) string {
	if name, ok := filterNames[id]; ok {
		return name
	}
	return "unknown"
}
