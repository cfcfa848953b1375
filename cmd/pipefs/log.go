package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/adapters/icechunkadapter"
	"github.com/pipefs/pipefs/adapters/ocdbtadapter"
	"github.com/pipefs/pipefs/vfs"
)

func newLogCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "log URL",
		Short: "Print the versions of a versioned store",
		Long: `log prints the history of the versioned store that URL names, one
version a line: for an OCDBT database its generations (vN), commit times
and key counts, oldest first; for an Icechunk repository the snapshots of
the branch (main unless the URL names a ref), newest first, with their id,
time and message. The store is detected when URL names its directory, so
no adapter needs to be written.

Each version can be opened by name: "ocdbt://v3/", by commit time,
"ocdbt://2025-01-30T21:32:58.4359968Z/", or "icechunk://SNAPSHOTID/".`,
		Example: `  pipefs log file:/data/db.ocdbt/
  pipefs log 'file:/data/db.zip|zip:db.ocdbt/'
  pipefs log 'file:/data/repo.icechunk/|icechunk://branch.my-branch/'`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			pipeline, err := g.pipeline(args[0])
			if err != nil {
				return err
			}
			fsys, err := vfs.OpenFS(cmd.Context(), pipeline, g.options())
			if err != nil {
				return err
			}
			defer fsys.Close()
			var ot *ocdbtadapter.Tree
			var it *icechunkadapter.Tree
			switch {
			case fsys.As(&ot):
				t := ot
				versions, err := t.Log(cmd.Context())
				if err != nil {
					return fmt.Errorf("%s: %w", fsys.Pipeline(), err)
				}
				printOCDBTLog(cmd.OutOrStdout(), versions)
				return nil
			case fsys.As(&it):
				t := it
				snaps, err := t.History(cmd.Context())
				if err != nil {
					return fmt.Errorf("%s: %w", fsys.Pipeline(), err)
				}
				printIcechunkLog(cmd.OutOrStdout(), snaps)
				return nil
			}
			return fmt.Errorf("%s is not a versioned store (ocdbt or icechunk)", fsys.Pipeline())
		},
	}
	return cmd
}

func printOCDBTLog(w io.Writer, versions []ocdbtadapter.Version) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tCOMMIT TIME (UTC)\tKEYS")
	for _, v := range versions {
		fmt.Fprintf(tw, "%s\t%s\t%d\n", v.Name(), v.TimeText(), v.NumKeys)
	}
	tw.Flush()
}

func printIcechunkLog(w io.Writer, snaps []icechunkadapter.Snapshot) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SNAPSHOT\tTIME (UTC)\tMESSAGE")
	for _, s := range snaps {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.ID, s.Time.UTC().Format(time.RFC3339Nano), s.Message)
	}
	tw.Flush()
}
