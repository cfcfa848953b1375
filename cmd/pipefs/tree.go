package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/internal/listing"
	"github.com/pipefs/pipefs/vfs/deep"
)

func newTreeCmd(g *globals) *cobra.Command {
	var df deepFlags
	cmd := &cobra.Command{
		Use:   "tree [--deep [--depth N]] URL",
		Short: "Draw a directory location as a tree",
		Long: `tree draws the directory location that URL names as a tree, files with
their size in bytes, then a summary line "N directories, M files". The
first line is the resolved pipeline, with detected adapters written out.
Directories that hold an array or a group (Zarr, N5, precomputed) are
marked with the format, node type, data type and shape. A plain file is
drawn as its pipeline and size.

--deep draws the container files inside as the directories they hold, a
zip in a zip, a tar.gz (through gzip:|pipefs.tar:), an HDF5 file, each
marked with its format ("inner.zip/  [zip]") and counted as a
directory. Only a file whose first bytes look like a container is
opened; the datasets of an HDF5 file and the chunks of an array are
never read. --depth bounds how many containers deep it opens (default
8). A nested container that does not open is reported on standard error
and drawn as a file; the exit status is then 1.`,
		Example: `  pipefs tree 'testdata/demo.zip|zip:data/inner.zip'
  file:$PWD/testdata/demo.zip|zip:data/inner.zip|zip:
  ├── deep.zip (787)
  └── notes/
      ├── a.txt (44)
      └── b.txt (58)

  1 directory, 3 files

  pipefs tree --deep 'testdata/demo.zip|zip:data/'
  file:$PWD/testdata/demo.zip|zip:data/
  └── inner.zip/  [zip]
      ├── deep.zip/  [zip]
      │   ├── big.txt (10800)
      │   └── hello.txt (27)
      └── notes/
          ├── a.txt (44)
          └── b.txt (58)

  3 directories, 4 files

  pipefs tree --deep --depth 1 testdata/demo.zip`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := g.deepOptions(df)
			if err != nil {
				return err
			}
			loc, err := g.openLocation(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer loc.Close()
			w := cmd.OutOrStdout()
			if loc.file != nil {
				fmt.Fprintf(w, "%s (%d)\n\n%s\n", loc.file.URL(), loc.file.Size(), listing.Summary(0, 1))
				return nil
			}
			rep := func(err error) { report(cmd, err) }
			t := &listing.Tree{Out: w, TTY: isTerminal(w), Registry: registry(g.options()), Walker: deep.NewWalker(opt), Count: g.count, Report: rep}
			fsys := loc.fsys.WithContext(cmd.Context())
			t.Draw(fsys)
			if listing.ReportOmitted(fsys, cmd.ErrOrStderr(), rep) {
				t.Failed = true
			}
			if err := cmd.Context().Err(); err != nil {
				return err
			}
			if t.Failed {
				return reportedError{}
			}
			return nil
		},
	}
	df.add(cmd)
	return cmd
}
