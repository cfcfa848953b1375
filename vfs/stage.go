package vfs

import (
	"io/fs"
	"reflect"
	"slices"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"
)

// A Stage describes one sub-URL of an opened pipeline: where it came from,
// what it yields and what opening it took. [FS.Stages] and [File.Stages]
// return them, for tools that explain a pipeline ("pipefs explain").
type Stage struct {
	// Index is the 0-based index of the sub-URL in the resolved pipeline.
	Index int
	// SubURL is the sub-URL, in canonical form.
	SubURL SubURL
	// Detected is set for a sub-URL that format detection appended (a
	// container file opened as its format: "file:/d/a.zip" opens as
	// "file:/d/a.zip|zip:"), and clear for one the caller wrote.
	Detected bool
	// Summary is the one-line description of the scheme
	// (Registry.Summary), such as "zip archive".
	Summary string
	// Kind is what the sub-URL yields, KindFile or KindDirectory;
	// KindUnknown when the open did not need to know.
	Kind Kind
	// Size is the size in bytes of the file the sub-URL yields, as of the
	// call to Stages; -1 for a directory, and while the size is not known
	// (a stream not yet decoded to its end, see driver.SizeKnower).
	Size int64
	// Open is the time the open spent on the sub-URL: from the moment the
	// sub-URL before it was ready (the start of the open, for the first)
	// to the moment its own location was, the detection that found it
	// included; for the last sub-URL, until its kind was settled.
	Open time.Duration
	// OpenCost is what the open cost in that time, summed over the stages
	// that count (driver.Counter): the requests an adapter's open makes
	// are counted by the remote root below it, and they are reported here,
	// on the adapter whose open made them.
	OpenCost driver.Counts
	// Counting reports whether the sub-URL's own tree or blob counts what
	// its reads cost (a root: file: and memory: count read calls as
	// requests). Counts is then what it has counted
	// so far, opening and later reads included, as Stats reports it.
	Counting bool
	Counts   driver.Counts
}

// Stages describes the sub-URLs of the FS's resolved pipeline, outer to
// inner, detected adapters included. Sizes and Counts are as of the call;
// the rest is fixed when the open returns. Sub and WithContext copies
// share them; the sub-URLs are those of the pipeline that was opened, not
// of the copy's directory.
func (f *FS) Stages() []Stage { return f.res.describe() }

// Stages is FS.Stages for a file from Open, OpenFile or OpenDetect; a file
// opened from an FS has none (nil).
func (f *File) Stages() []Stage { return f.res.describe() }

// trace is what the engine notes while it opens a pipeline, for Stages.
type trace struct {
	reg     *Registry
	written int       // the sub-URLs the caller wrote; those after were detected
	start   time.Time // when the open began
}

func newTrace(reg *Registry, written int) trace {
	return trace{reg: reg, written: written, start: time.Now()}
}

// stageAbout is what the engine learned about one stage.
type stageAbout struct {
	detected bool
	sub      SubURL
	// ready is when the stage's location was ready, since the open began,
	// and cost what the pipeline had cost by then.
	ready time.Duration
	cost  driver.Counts
	// What the stage's location turned out to hold: the blob opened from
	// it, or a directory.
	blob driver.Blob
	dir  bool
}

// about returns what is known of sub-URL u, index i, as it opens.
func (r *resources) about(i int, u SubURL) stageAbout {
	return stageAbout{detected: i >= r.trace.written, sub: u}
}

// lap notes, with r.mu held, that the last stage's location is ready now.
func (r *resources) lap() {
	if len(r.stages) == 0 {
		return
	}
	a := &r.stages[len(r.stages)-1].about
	a.ready = time.Since(r.trace.start)
	a.cost = r.costLocked()
}

// settle notes that the open is over: the last stage's kind is settled,
// and the time and requests that took are its own.
func (r *resources) settle() {
	r.mu.Lock()
	r.lap()
	r.mu.Unlock()
}

// yields notes what the last stage's location holds: a directory (info)
// or the blob b opened from it.
func (r *resources) yields(info fs.FileInfo, b driver.Blob) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.stages) == 0 {
		if b != nil {
			r.head = b
		}
		return
	}
	a := &r.stages[len(r.stages)-1].about
	if b != nil {
		a.blob = b
	} else if info != nil && info.IsDir() {
		a.dir = true
	}
}

// costLocked returns, with r.mu held, the sum of the counts of every
// counting tree and blob of the stages, each counted once.
func (r *resources) costLocked() driver.Counts {
	var total driver.Counts
	var seen []driver.Counter
	for _, s := range r.stages {
		for _, v := range []any{s.loc.Tree, s.loc.Blob} {
			c, ok := v.(driver.Counter)
			if !ok || c == nil || reflect.ValueOf(c).Comparable() && slices.Contains(seen, c) {
				continue
			}
			seen = append(seen, c)
			total = addCounts(total, c.Stats())
		}
	}
	return total
}

// describe returns the stages as Stages reports them.
func (r *resources) describe() []Stage {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Stage, len(r.stages))
	var prevReady time.Duration
	var prevCost driver.Counts
	for i, s := range r.stages {
		a := s.about
		st := Stage{
			Index:    s.index,
			SubURL:   a.sub,
			Detected: a.detected,
			Summary:  r.trace.reg.Summary(a.sub.Scheme),
			Size:     -1,
			Open:     a.ready - prevReady,
			OpenCost: subCounts(a.cost, prevCost),
		}
		prevReady, prevCost = a.ready, a.cost
		b := s.loc.Blob
		if b == nil {
			b = a.blob
		}
		switch {
		case b != nil:
			st.Kind = KindFile
			if info := b.Stat(); sizeKnown(info) {
				st.Size = info.Size()
			}
		case a.dir:
			st.Kind = KindDirectory
		}
		for _, v := range []any{s.loc.Tree, s.loc.Blob} {
			if c, ok := v.(driver.Counter); ok && c != nil {
				st.Counting = true
				st.Counts = addCounts(st.Counts, c.Stats())
			}
		}
		out[i] = st
	}
	return out
}

// plainFile is an opened pipeline as it stood before format detection,
// for OpenDetect to come back to when no format makes the file a
// directory.
type plainFile struct {
	p        Pipeline
	loc      driver.Location
	info     fs.FileInfo
	stages   int
	closers  int
	versions int
	durable  bool
	side     driver.Sidecars
	sideURL  string
}

// save returns the state of r, whose final location loc is a file.
func (r *result) save(loc driver.Location) *plainFile {
	r.res.mu.Lock()
	defer r.res.mu.Unlock()
	return &plainFile{p: r.p, loc: loc, info: r.info, stages: len(r.res.stages),
		closers: len(r.res.closers), versions: len(r.versions), durable: r.durable,
		side: r.side, sideURL: r.sideURL}
}

// restore brings r back to the state s, closing what detection opened
// since (innermost first), and returns the final location of s.
func (r *result) restore(s *plainFile) driver.Location {
	r.p, r.info, r.versions, r.durable = s.p, s.info, r.versions[:s.versions], s.durable
	r.side, r.sideURL = s.side, s.sideURL
	r.res.mu.Lock()
	defer r.res.mu.Unlock()
	for i := len(r.res.closers) - 1; i >= s.closers; i-- {
		r.res.closers[i].Close() // a layer that failed to be used; its error says nothing more
	}
	r.res.closers = r.res.closers[:s.closers]
	r.res.stages = r.res.stages[:s.stages]
	return s.loc
}

func addCounts(a, b driver.Counts) driver.Counts {
	return driver.Counts{Hits: a.Hits + b.Hits, Misses: a.Misses + b.Misses, Requests: a.Requests + b.Requests, Bytes: a.Bytes + b.Bytes}
}

func subCounts(a, b driver.Counts) driver.Counts {
	return driver.Counts{Hits: a.Hits - b.Hits, Misses: a.Misses - b.Misses, Requests: a.Requests - b.Requests, Bytes: a.Bytes - b.Bytes}
}
