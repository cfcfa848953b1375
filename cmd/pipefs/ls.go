package main

import (
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// timeLayout is how listings print modification times (local time).
const timeLayout = "2006-01-02 15:04:05"

func newLsCmd(g *globals) *cobra.Command {
	var long, recursive bool
	cmd := &cobra.Command{
		Use:   "ls [-l] [-R] URL",
		Short: "List a directory location",
		Long: `ls lists the entries of the directory location that URL names, sorted
by name, directories with a trailing "/". A container file is listed as
the directory it holds ("file:/d/a.zip" lists the zip); a plain file is
printed as given, as ls does.

-R lists every file and directory below URL, one path a line, relative
to URL. -l adds the size, mode and modification time before each path
(directories show "-" for the size).`,
		Example: `  pipefs ls 'file:/data/a.zip'
  pipefs ls -l 'file:/data/a.zip|zip:docs/'
  pipefs ls -lR 'testdata/demo.zip|zip:data/inner.zip'`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc, err := g.openLocation(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer loc.Close()
			l := &lister{long: long}
			if loc.file != nil {
				info, err := loc.file.Stat()
				if err != nil {
					return err
				}
				l.add(args[0], info)
				l.flush(cmd.OutOrStdout())
				return nil
			}
			if !recursive {
				ents, err := loc.fsys.ReadDir(".")
				if err != nil {
					return err
				}
				failed := false
				for _, e := range ents {
					info, err := e.Info()
					if err != nil {
						report(cmd, err)
						failed = true
						continue
					}
					l.add(e.Name(), info)
				}
				l.flush(cmd.OutOrStdout())
				if failed {
					return reportedError{}
				}
				return nil
			}
			failed := false
			fs.WalkDir(loc.fsys, ".", func(name string, d fs.DirEntry, err error) error {
				if err != nil {
					report(cmd, err)
					failed = true
					return nil
				}
				if name == "." {
					return nil
				}
				info, err := d.Info()
				if err != nil {
					report(cmd, err)
					failed = true
					return nil
				}
				l.add(name, info)
				return nil
			})
			l.flush(cmd.OutOrStdout())
			if failed {
				return reportedError{}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&long, "long", "l", false, "show size, mode and modification time")
	cmd.Flags().BoolVarP(&recursive, "recursive", "R", false, "list every path below URL")
	return cmd
}

// A lister collects the rows of a listing, to print them aligned.
type lister struct {
	long bool
	rows [][4]string // size, mode, time, name
}

func (l *lister) add(name string, info fs.FileInfo) {
	if info.IsDir() && !strings.HasSuffix(name, "/") {
		name += "/"
	}
	if !l.long {
		l.rows = append(l.rows, [4]string{3: name})
		return
	}
	l.rows = append(l.rows, [4]string{
		sizeOf(info),
		info.Mode().String(),
		info.ModTime().Format(timeLayout),
		name,
	})
}

// flush prints the rows: the size column right-aligned, the others left.
func (l *lister) flush(w io.Writer) {
	var width [3]int
	for _, r := range l.rows {
		for i := range width {
			width[i] = max(width[i], len(r[i]))
		}
	}
	for _, r := range l.rows {
		if l.long {
			fmt.Fprintf(w, "%*s  %-*s  %-*s  %s\n", width[0], r[0], width[1], r[1], width[2], r[2], r[3])
		} else {
			fmt.Fprintln(w, r[3])
		}
	}
	l.rows = l.rows[:0]
}

// sizeOf is the size column of info: its size, "-" for a directory.
func sizeOf(info fs.FileInfo) string {
	if info.IsDir() {
		return "-"
	}
	return strconv.FormatInt(info.Size(), 10)
}
