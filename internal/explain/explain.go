package explain

import (
	"context"
	"io"
	"time"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// An Opener opens a pipeline once, as vfs.OpenDetect does: it returns a
// directory (fsys) or a file, and an error when neither. The caller's
// Opener sets the options, and may remember what it opened (for
// "pipefs --stats"); Explain closes it.
type Opener func(ctx context.Context, pipeline string) (fsys *vfs.FS, file *vfs.File, err error)

// Explain opens pipeline through open and reports each of its layers and
// what opening it cost; with read, it then reads the file to its end, or
// lists the directory, and reports that too. See the package doc.
func Explain(ctx context.Context, open Opener, pipeline string, read bool) (*Report, error) {
	fsys, file, err := open(ctx, pipeline)
	if err != nil {
		return nil, err
	}
	var stages func() []vfs.Stage
	rep := &Report{}
	if fsys != nil {
		defer fsys.Close()
		stages, rep.Pipeline, rep.Kind = fsys.Stages, fsys.Pipeline().String(), vfs.KindDirectory.String()
	} else {
		defer file.Close()
		stages, rep.Pipeline, rep.Kind = file.Stages, file.URL(), vfs.KindFile.String()
	}
	opened := stages()
	before, _ := counted(opened)
	for _, s := range opened {
		rep.Open = rep.Open.Plus(newCost(s.Open, s.OpenCost))
	}
	var r *Read
	if read {
		r = new(Read)
		start := time.Now()
		if fsys != nil {
			ents, err := fsys.ReadDir(".")
			if err != nil {
				return nil, err
			}
			n := len(ents)
			r.Entries = &n
		} else {
			n, err := io.Copy(io.Discard, file)
			if err != nil {
				return nil, err
			}
			r.BytesRead = &n
		}
		d := time.Since(start)
		after, _ := counted(stages())
		r.Cost = newCost(d, driver.Counts{
			Requests: after.Requests - before.Requests,
			Bytes:    after.Bytes - before.Bytes,
			Hits:     after.Hits - before.Hits,
			Misses:   after.Misses - before.Misses,
		})
	}
	// Sizes as of now: a stream read to its end knows its size.
	final := stages()
	_, rep.Counted = counted(final)
	for i, s := range final {
		e := Stage{
			Index:    s.Index,
			SubURL:   s.SubURL.String(),
			Scheme:   s.SubURL.Scheme,
			Detected: s.Detected,
			Kind:     s.Kind.String(),
			Format:   s.Summary,
			Open:     newCost(opened[i].Open, opened[i].OpenCost),
		}
		if s.Size >= 0 {
			size := s.Size
			e.Size = &size
		}
		rep.Stages = append(rep.Stages, e)
	}
	rep.Total = rep.Open
	if r != nil {
		rep.Read = r
		rep.Total = rep.Total.Plus(r.Cost)
	}
	return rep, nil
}

// counted returns the sum of what the counting stages have counted, and
// whether any stage counts.
func counted(stages []vfs.Stage) (total driver.Counts, ok bool) {
	for _, s := range stages {
		if s.Counting {
			total.Requests += s.Counts.Requests
			total.Bytes += s.Counts.Bytes
			total.Hits += s.Counts.Hits
			total.Misses += s.Counts.Misses
			ok = true
		}
	}
	return total, ok
}
