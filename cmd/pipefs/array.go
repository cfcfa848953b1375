package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/internal/describe"
	"github.com/pipefs/pipefs/vfs"
)

func newArrayCmd(g *globals) *cobra.Command {
	var (
		asJSON      bool
		read, force bool
		strs        bool
		box, chunk  string
		scale       string
		limit       int64
		concurrency int
	)
	cmd := &cobra.Command{
		Use:   "array [--json] [--read | --box BOX | --chunk COORD | --strings [--box BOX]] URL",
		Short: "Describe an array or group, or write its elements",
		Long: `array describes the Zarr (v2 or v3), N5, neuroglancer precomputed or HDF5
node that URL names: format, node type, shape, data type, chunk grid,
codecs, fill value, dimension names, attributes, and for a group its
children; for an HDF5 dataset also its HDF5 type, layout, chunk index,
maximum shape, filters and stored fill value; for an image (png:, jpeg:,
tiff: ...) what the file states about colour: channels, colour model,
bit depth, gamma, ICC profile, orientation, compression and pages. The
format is detected when URL names the node's directory (or an HDF5 or
image file).

With --read it writes the whole array to standard output as C-order
little-endian elements (U as UTF-32LE, S raw, bool as 0/1; variable-length
strings are refused), missing chunks filled with the fill value; --box
writes a box of it, given as start:stop per dimension; --chunk writes one
decoded chunk, given by its grid coordinates. --limit bounds the bytes
written (an error past it, before anything is written). Elements are
not written to a terminal, where they would garble the screen: redirect
them to a file or a pipe, or pass --force. --read and --box
fetch and decode up to --concurrency chunks at once (default 64), fewer
when chunks are large (at most 64 MiB of chunks in flight); the output
is the same whatever their number.

With --strings it prints the elements of a string array (Zarr v3 string,
Zarr v2 object arrays with vlen-utf8, vlen-bytes or json2, fixed-size U
and S) as one JSON array of strings on one line, in C order, missing
chunks as the fill value; with --box, those of that box. --limit then
bounds the bytes decoded.`,
		Example: `  pipefs array 'file:/data/x.zarr/|zarr3:temperature'
  pipefs array --json file:/data/x.zarr/
  pipefs array --read 'file:/data/x.zarr.zip|zip:|zarr3:a' > a.bin
  pipefs array --box 0:2,1:3 'file:/data/x.zarr/|zarr2:b'
  pipefs array --chunk 0,1 'file:/data/x.zarr/|zarr3:b'
  pipefs array --strings --box 0:2 'file:/data/x.zarr/|zarr3:names'
  pipefs array --scale 8_8_8 --read 'file:/data/vol/|neuroglancer-precomputed:'
  pipefs array --box 0:2 'file:/data/x.h5|hdf5:/group/dataset'`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			modes := 0
			for _, on := range []bool{read, box != "", chunk != ""} {
				if on {
					modes++
				}
			}
			if modes > 1 {
				return usageError{fmt.Errorf("--read, --box and --chunk exclude each other")}
			}
			if strs && (read || chunk != "") {
				return usageError{fmt.Errorf("--strings excludes --read and --chunk (it takes --box)")}
			}
			if strs {
				modes = 1
			}
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			if modes > 0 && !strs && !force && isTerminal(w) {
				// Raw elements would garble the terminal; asked before
				// anything is opened, which may cost requests.
				return fmt.Errorf("array: standard output is a terminal, and the elements are binary: redirect them (pipefs array --read URL > a.bin, or | od -An -tu1), print strings with --strings, describe the array without --read, --box or --chunk, or pass --force")
			}
			pipeline, err := g.pipeline(args[0])
			if err != nil {
				return err
			}
			if modes == 0 {
				n, fsys, err := array.OpenNode(ctx, pipeline, g.options())
				if err != nil {
					return err
				}
				defer fsys.Close()
				g.countCloser(fsys)
				if scale != "" {
					if n, err = n.Child(ctx, scale); err != nil {
						return err
					}
				}
				return describe.WriteNode(w, n, asJSON)
			}
			if concurrency < 1 {
				return usageError{fmt.Errorf("--concurrency %d: want at least 1", concurrency)}
			}
			a, fsys, err := array.OpenArray(ctx, pipeline, scale, g.options())
			if err != nil {
				return err
			}
			defer fsys.Close()
			g.countCloser(fsys)
			ac := *a
			ac.Concurrency = concurrency
			a = &ac
			if strs && !a.IsStrings() {
				return fmt.Errorf("%s: %s elements are not strings; write them with --read or --box: %w", args[0], a.DType.Name, fs.ErrInvalid)
			}
			if !strs && a.DType.Variable() {
				return fmt.Errorf("%s: %s elements have no raw form; print them with --strings: %w", args[0], a.DType.Name, array.ErrUnsupported)
			}
			switch {
			case strs:
				start, stop, err := parseBox(box, a.Shape)
				if err != nil {
					return usageError{err}
				}
				ss, err := a.ReadStrings(ctx, start, stop, limit)
				if err != nil {
					return err
				}
				enc := json.NewEncoder(w)
				enc.SetEscapeHTML(false)
				return enc.Encode(ss)
			case chunk != "":
				coord, err := parseChunk(chunk)
				if err != nil {
					return usageError{err}
				}
				_, err = a.WriteChunk(ctx, w, coord, limit)
				return err
			default:
				start, stop := make([]int64, len(a.Shape)), a.Shape
				if box != "" {
					if start, stop, err = parseBox(box, a.Shape); err != nil {
						return usageError{err}
					}
				}
				_, err = a.WriteBox(ctx, w, start, stop, limit)
				return err
			}
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "describe as JSON")
	cmd.Flags().BoolVar(&read, "read", false, "write the whole array's elements")
	cmd.Flags().BoolVarP(&force, "force", "f", false, "write binary elements to a terminal too")
	cmd.Flags().BoolVar(&strs, "strings", false, "print a string array's elements as a JSON array")
	cmd.Flags().StringVar(&box, "box", "", "write the elements of `BOX`, start:stop per dimension (0:2,1:3)")
	cmd.Flags().StringVar(&chunk, "chunk", "", "write one decoded chunk at grid coordinates `COORD` (0,1)")
	cmd.Flags().StringVar(&scale, "scale", "", "the child array to use, such as a precomputed scale `KEY`")
	cmd.Flags().IntVar(&concurrency, "concurrency", array.DefaultConcurrency, "with --read and --box, fetch and decode at most `N` chunks at once")
	cmd.Flags().Int64Var(&limit, "limit", 4<<30, "the most bytes to write (with --strings, to decode)")
	return cmd
}

// countCloser counts for --stats what array.OpenNode or OpenArray
// opened, when it keeps counts (a *vfs.File or *vfs.FS).
func (g *globals) countCloser(c io.Closer) {
	if v, ok := c.(interface{ Stats() []vfs.StageCounts }); ok {
		g.count(v)
	}
}
