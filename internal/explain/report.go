package explain

import (
	"time"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A Report is what opening a pipeline, and with read reading it, cost.
type Report struct {
	Pipeline string  `json:"pipeline"` // as opened, canonical, detected layers written out
	Kind     string  `json:"kind"`     // of the location: "file" or "directory"
	Counted  bool    `json:"counted"`  // some layer counts its requests
	Stages   []Stage `json:"stages"`
	Open     Cost    `json:"open"`           // the sum of the stages' Open
	Read     *Read   `json:"read,omitempty"` // with read
	Total    Cost    `json:"total"`          // Open plus Read
}

// A Stage is one layer (sub-URL) of the pipeline.
type Stage struct {
	Index    int    `json:"index"`
	SubURL   string `json:"sub_url"` // canonical
	Scheme   string `json:"scheme"`
	Detected bool   `json:"detected"` // appended by format detection
	Kind     string `json:"kind"`     // what it yields: "file" or "directory"
	Size     *int64 `json:"size"`     // of the file it yields; null when unknown
	Format   string `json:"format"`   // what the scheme is, such as "zip archive"
	Open     Cost   `json:"open"`     // what opening it cost
}

// A Cost is what a step took and cost.
type Cost struct {
	Seconds      float64 `json:"seconds"`
	Requests     int64   `json:"requests"`
	BytesFetched int64   `json:"bytes_fetched"`
	CacheHits    int64   `json:"cache_hits"`
	CacheMisses  int64   `json:"cache_misses"`
}

// A Read is what reading the location did and cost: a file's bytes read
// to its end, or a directory's entries listed.
type Read struct {
	Cost
	BytesRead *int64 `json:"bytes_read,omitempty"` // of a file
	Entries   *int   `json:"entries,omitempty"`    // of a directory
}

// newCost returns the cost of d spent and c counted.
func newCost(d time.Duration, c driver.Counts) Cost {
	return Cost{Seconds: d.Seconds(), Requests: c.Requests, BytesFetched: c.Bytes, CacheHits: c.Hits, CacheMisses: c.Misses}
}

// Plus returns the sum of c and d.
func (c Cost) Plus(d Cost) Cost {
	return Cost{
		Seconds:      c.Seconds + d.Seconds,
		Requests:     c.Requests + d.Requests,
		BytesFetched: c.BytesFetched + d.BytesFetched,
		CacheHits:    c.CacheHits + d.CacheHits,
		CacheMisses:  c.CacheMisses + d.CacheMisses,
	}
}
