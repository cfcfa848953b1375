package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/internal/explain"
	"github.com/pipefs/pipefs/vfs"
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
			return rep.Print(out, isTerminal(out))
		},
	}
	cmd.Flags().BoolVar(&read, "read", false, "also read the file to its end, or list the directory, and report what that cost")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

// explain opens the location arg names, once, as ls does, and, with
// read, reads it; what it opens counts for --stats.
func (g *globals) explain(cmd *cobra.Command, arg string, read bool) (*explain.Report, error) {
	pipeline, err := g.pipeline(arg)
	if err != nil {
		return nil, err
	}
	open := func(ctx context.Context, pipeline string) (*vfs.FS, *vfs.File, error) {
		fsys, file, err := vfs.OpenDetect(ctx, pipeline, g.options())
		switch {
		case err != nil:
		case fsys != nil:
			g.count(fsys)
		default:
			g.count(file)
		}
		return fsys, file, err
	}
	return explain.Explain(cmd.Context(), open, pipeline, read)
}
