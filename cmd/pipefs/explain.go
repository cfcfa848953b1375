package main

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

func newExplainCmd(g *globals) *cobra.Command {
	var read, asJSON bool
	cmd := &cobra.Command{
		Use:   "explain [--read] [--json] URL",
		Short: "Show each layer of a pipeline and what opening it cost",
		Long: `explain opens URL as ls does, once (a directory, a container file
through its detected format, else the file itself), and prints one row
for each layer (sub-URL) of the pipeline it opened:

  #         the index of the sub-URL
  SUB-URL   the sub-URL
  SCHEME    its scheme
  ORIGIN    "written" when URL holds it, "detected" when format detection
            appended it ("file:/d/a.zip" opens as "file:/d/a.zip|zip:")
  KIND      what it yields: a file (bytes) or a directory (a tree)
  SIZE      the size of the file it yields, in bytes; "-" for a
            directory, or a stream whose size is known only once decoded
  TIME      the time spent opening it: from the moment the layer before
            it was ready, its detection included; the last layer's time
            includes settling whether it is a file or a directory
  REQUESTS, FETCHED, HITS, MISSES
            what opening it cost: requests to a remote root, bytes
            fetched, blocks found in the cache and blocks fetched. They
            are counted by the root, which makes the requests, and
            reported on the layer whose open asked for them (a zip layer
            over http: costs the request that reads the zip's directory).
            For a local file (file:) or memory:, a request is a read call
            and the bytes fetched are the bytes read; they go through no
            block cache, so their hits and misses are 0. "-" when no
            layer counts.
  FORMAT    what the scheme is, such as "zip archive"

A "total" row follows. With --read, the file is then read to its end (or
the directory listed, as ls lists it) and a "read" row gives that cost,
with what was read; the total includes it. The counts are exactly the
requests and bytes a server sees from this command. A second run may find
blocks and indexes in the caches and cost less.

When the output is not a terminal, the rows above are written as they
are, fields separated by tabs, one row a line, for cut and awk: sub-URLs
canonical (percent-encoded), sizes and bytes in bytes, the total row
holding the whole pipeline.

On a terminal the output is for reading and fits 100 columns: a first
line gives the pipeline opened and its kind, then a table whose sub-URLs
are shown as typed (escapes of spaces and non-ASCII characters decoded),
a detected one marked "(detected)", without the SCHEME and ORIGIN
columns; KIND is "file" or "dir", SIZE and BYTES (FETCHED) are written as
ls -h writes sizes (1.5K, 234M), REQUESTS is REQS and MISSES MISS. A
FORMAT, then a SUB-URL, that does not fit is shortened with "…".

--json writes one JSON object instead: "pipeline" (as opened, canonical,
detected layers written out), "kind", "counted" (false when no layer
counts), "stages" (one object per layer: index, sub_url, scheme,
detected, kind, size (null when unknown), format, and "open", its cost),
then "open", "read" (with --read: its cost and "bytes_read" or
"entries") and "total". A cost is an object of "seconds" (a float),
"requests", "bytes_fetched", "cache_hits" and "cache_misses".

--no-detect opens a file location as it is, as cat does, without looking
for a format in it.`,
		Example: `  pipefs explain 'testdata/demo.zip|zip:data/inner.zip|zip:deep.zip|zip:hello.txt'
  pipefs explain --read 'https://example.com/data/a.tar.gz'
  pipefs explain --json testdata/demo.zip | jq '.total.requests'`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := g.explain(cmd, args[0], read)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return printJSON(out, rep)
			}
			return rep.print(out, isTerminal(out))
		},
	}
	cmd.Flags().BoolVar(&read, "read", false, "also read the file to its end, or list the directory, and report what that cost")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

// explainReport is what explain prints.
type explainReport struct {
	Pipeline string         `json:"pipeline"` // as opened, detected layers written out
	Kind     string         `json:"kind"`     // of the location: "file" or "directory"
	Counted  bool           `json:"counted"`  // some layer counts its requests
	Stages   []explainStage `json:"stages"`
	Open     explainCost    `json:"open"`
	Read     *explainRead   `json:"read,omitempty"` // with --read
	Total    explainCost    `json:"total"`
}

// explainStage is one layer of the pipeline.
type explainStage struct {
	Index    int         `json:"index"`
	SubURL   string      `json:"sub_url"`
	Scheme   string      `json:"scheme"`
	Detected bool        `json:"detected"`
	Kind     string      `json:"kind"`
	Size     *int64      `json:"size"` // null when unknown
	Format   string      `json:"format"`
	Open     explainCost `json:"open"`
}

// explainCost is what a step cost.
type explainCost struct {
	Seconds      float64 `json:"seconds"`
	Requests     int64   `json:"requests"`
	BytesFetched int64   `json:"bytes_fetched"`
	CacheHits    int64   `json:"cache_hits"`
	CacheMisses  int64   `json:"cache_misses"`
}

// explainRead is what --read did and cost.
type explainRead struct {
	explainCost
	BytesRead *int64 `json:"bytes_read,omitempty"` // of a file
	Entries   *int   `json:"entries,omitempty"`    // of a directory
}

func newCost(d time.Duration, c driver.Counts) explainCost {
	return explainCost{Seconds: d.Seconds(), Requests: c.Requests, BytesFetched: c.Bytes, CacheHits: c.Hits, CacheMisses: c.Misses}
}

func (c explainCost) plus(d explainCost) explainCost {
	return explainCost{
		Seconds:      c.Seconds + d.Seconds,
		Requests:     c.Requests + d.Requests,
		BytesFetched: c.BytesFetched + d.BytesFetched,
		CacheHits:    c.CacheHits + d.CacheHits,
		CacheMisses:  c.CacheMisses + d.CacheMisses,
	}
}

// counted returns the sum of what the counting stages have counted.
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

// explain opens the location arg names, once, and, with read, reads it.
func (g *globals) explain(cmd *cobra.Command, arg string, read bool) (*explainReport, error) {
	pipeline, err := g.pipeline(arg)
	if err != nil {
		return nil, err
	}
	fsys, file, err := vfs.OpenDetect(cmd.Context(), pipeline, g.options())
	if err != nil {
		return nil, err
	}
	var stages func() []vfs.Stage
	rep := &explainReport{}
	if fsys != nil {
		defer fsys.Close()
		g.count(fsys)
		stages, rep.Pipeline, rep.Kind = fsys.Stages, fsys.Pipeline().String(), vfs.KindDirectory.String()
	} else {
		defer file.Close()
		g.count(file)
		stages, rep.Pipeline, rep.Kind = file.Stages, file.URL(), vfs.KindFile.String()
	}
	opened := stages()
	before, _ := counted(opened)
	for _, s := range opened {
		rep.Open = rep.Open.plus(newCost(s.Open, s.OpenCost))
	}
	var r *explainRead
	if read {
		r = new(explainRead)
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
		r.explainCost = newCost(d, driver.Counts{
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
		e := explainStage{
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
		rep.Total = rep.Total.plus(r.explainCost)
	}
	return rep, nil
}
