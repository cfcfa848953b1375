package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
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
			var v driver.Versioned
			if !fsys.As(&v) {
				return fmt.Errorf("%s is not a versioned store (ocdbt or icechunk)", fsys.Pipeline())
			}
			versions, err := v.Versions(cmd.Context())
			if err != nil {
				return fmt.Errorf("%s: %w", fsys.Pipeline(), err)
			}
			printLog(cmd.OutOrStdout(), versions)
			return nil
		},
	}
	return cmd
}

// printLog writes versions, given oldest first, as a table whose layout
// follows what the versions carry. Versions with key counts (OCDBT
// generations) are listed oldest first, as they are numbered, under
// VERSION, COMMIT TIME (UTC) and KEYS. Versions without (Icechunk
// snapshots) are a commit log, listed newest first as git log lists one,
// under SNAPSHOT, TIME (UTC) and MESSAGE. Times are RFC 3339 in UTC, as a
// pipeline names a version by its commit time.
func printLog(w io.Writer, versions []driver.Version) {
	counted := slices.ContainsFunc(versions, func(v driver.Version) bool { return v.Keys >= 0 })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if counted {
		fmt.Fprintln(tw, "VERSION\tCOMMIT TIME (UTC)\tKEYS")
		for _, v := range versions {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", v.ID, logTime(v.Time), logKeys(v.Keys))
		}
	} else {
		fmt.Fprintln(tw, "SNAPSHOT\tTIME (UTC)\tMESSAGE")
		for _, v := range slices.Backward(versions) {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", v.ID, logTime(v.Time), v.Message)
		}
	}
	tw.Flush()
}

// logTime formats t as RFC 3339 in UTC with the trailing zeros of the
// fraction dropped, the form a pipeline names a version by.
func logTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// logKeys formats a key count, "-" when the store does not say.
func logKeys(n int64) string {
	if n < 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}
