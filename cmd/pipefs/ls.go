package main

import (
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/adapters/hdf5adapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// timeLayout is how listings print modification times (local time).
const timeLayout = "2006-01-02 15:04:05"

func newLsCmd(g *globals) *cobra.Command {
	var long, recursive, zero, urls bool
	cmd := &cobra.Command{
		Use:   "ls [-l] [-R] [-0] [--url] URL",
		Short: "List a directory location",
		Long: `ls lists the entries of the directory location that URL names, sorted
by name, directories with a trailing "/". A container file is listed as
the directory it holds ("file:/d/a.zip" lists the zip); a plain file is
printed as given, as ls does.

-R lists every file and directory below URL, one path a line, relative
to URL. -l adds the size, mode and modification time before each path
(directories show "-" for the size, and a file without a recorded time
"-" for the time); a symbolic link (an HDF5 soft or external link that
is not followed) shows "l" in its mode and "name -> target".

On a terminal, a name that a shell would take apart, or that holds a
control character, is quoted as GNU ls quotes it ('a b', 'a'$'\n''b');
elsewhere names are written as they are, except that one holding a
control character is quoted the same way. -0 ends each line with a NUL
instead of a newline and writes names as they are, for scripts
("pipefs ls -R -0 URL | xargs -0 ..."). --url writes each entry's
canonical pipeline instead of its name, percent-encoded and ready to pass
back to pipefs.

An archive that leaves out entries it cannot expose (a name holding NUL,
an absolute path) has each of them reported once on standard error, with
the archive and the entry's offset; the listing itself succeeds.`,
		Example: `  pipefs ls 'file:/data/a.zip'
  pipefs ls -l 'file:/data/a.zip|zip:docs/'
  pipefs ls -lR 'testdata/demo.zip|zip:data/inner.zip'
  pipefs ls -R -0 testdata/demo.zip | xargs -0 -n1 echo
  pipefs ls --url 'testdata/demo.zip|zip:docs/'`,
		Args:              args(cobra.ExactArgs(1)),
		ValidArgsFunction: g.completeURLs(1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc, err := g.openLocation(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer loc.Close()
			l := &lister{long: long, zero: zero, tty: isTerminal(cmd.OutOrStdout())}
			if loc.file != nil {
				info, err := loc.file.Stat()
				if err != nil {
					return err
				}
				name := displayName(args[0], l.tty)
				switch {
				case urls:
					name = loc.file.URL()
				case l.zero:
					name = args[0]
				}
				l.add(name, info)
				l.flush(cmd.OutOrStdout())
				return nil
			}
			if !recursive {
				ents, err := loc.fsys.ReadDir(".")
				if err != nil {
					return err
				}
				defer reportOmitted(cmd, loc.fsys)
				failed := false
				for _, e := range ents {
					info, err := e.Info()
					if err != nil {
						report(cmd, err)
						failed = true
						continue
					}
					l.add(l.name(loc.fsys, e.Name(), info, urls), info)
				}
				l.flush(cmd.OutOrStdout())
				if failed {
					return reportedError{}
				}
				return nil
			}
			defer reportOmitted(cmd, loc.fsys)
			failed := false
			fs.WalkDir(loc.fsys, ".", func(name string, d fs.DirEntry, err error) error {
				if cerr := cmd.Context().Err(); cerr != nil {
					return cerr
				}
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
				l.add(l.name(loc.fsys, name, info, urls), info)
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
	cmd.Flags().BoolVarP(&zero, "zero", "0", false, "end each line with NUL, not newline, and write names unquoted")
	cmd.Flags().BoolVar(&urls, "url", false, "write each entry's canonical pipeline instead of its name")
	return cmd
}

// A lister collects the rows of a listing, to print them aligned.
type lister struct {
	long  bool
	zero  bool        // NUL-terminated lines, names unquoted
	tty   bool        // writing to a terminal
	rows  [][4]string // size, mode, time, name
	names []string    // the rows without -l
}

// name is what the listing shows for the entry name of fsys, directories
// with a trailing "/": its canonical pipeline with urls set, else name,
// quoted for display unless the lines end in NUL.
func (l *lister) name(fsys *vfs.FS, name string, info fs.FileInfo, urls bool) string {
	slash := ""
	if info.IsDir() {
		slash = "/"
	}
	if urls {
		u := fsys.URL(name)
		if strings.HasSuffix(u, "/") || strings.Contains(u[strings.LastIndexByte(u, '|')+1:], "?") {
			return u
		}
		return u + slash // the canonical form of a directory
	}
	if l.zero {
		return name + slash
	}
	if q := displayName(name, l.tty); q != name {
		return displayName(name+slash, l.tty) // one word: 'a b/'
	}
	return name + slash
}

// add adds the row of name, as it is to be shown, described by info.
func (l *lister) add(name string, info fs.FileInfo) {
	if !l.long {
		l.names = append(l.names, name)
		return
	}
	if t := linkTarget(info); t != "" {
		name += " -> " + displayName(t, l.tty && !l.zero)
	}
	l.rows = append(l.rows, [4]string{
		sizeOf(info),
		modeString(info.Mode()),
		timeOf(info),
		name,
	})
}

// modeString is the mode column of a listing: fs.FileMode.String, with
// "l" for a symbolic link as ls writes it (Go writes "L").
func modeString(m fs.FileMode) string {
	s := m.String()
	if m&fs.ModeSymlink != 0 {
		s = strings.Replace(s, "L", "l", 1)
	}
	return s
}

// timeOf is the time column of info: its modification time, "-" when
// there is none (the zero time).
func timeOf(info fs.FileInfo) string {
	t := info.ModTime()
	if t.IsZero() {
		return "-"
	}
	return t.Format(timeLayout)
}

// linkTarget returns what the symbolic link that info describes points
// at, read from its header ("file:path" for an HDF5 external link), or ""
// when info is no link or its header does not say.
func linkTarget(info fs.FileInfo) string {
	if info.Mode()&fs.ModeSymlink == 0 {
		return ""
	}
	h := info.Sys()
	if o, ok := h.(*vfs.Origin); ok {
		h = o.Header
	}
	switch l := h.(type) {
	case *hdf5adapter.ExternalLink:
		return l.File + ":" + l.Path
	case *hdf5adapter.SoftLink:
		return l.Path
	case *hdf5adapter.CycleLink:
		return l.Path
	case interface{ Target() string }:
		return l.Target()
	}
	return ""
}

// flush prints the rows: the size column right-aligned, the others left.
func (l *lister) flush(w io.Writer) {
	var width [3]int
	for _, r := range l.rows {
		for i := range width {
			width[i] = max(width[i], len(r[i]))
		}
	}
	end := "\n"
	if l.zero {
		end = "\x00"
	}
	for _, n := range l.names {
		io.WriteString(w, n)
		io.WriteString(w, end)
	}
	l.names = l.names[:0]
	for _, r := range l.rows {
		if l.long {
			fmt.Fprintf(w, "%*s  %-*s  %-*s  %s%s", width[0], r[0], width[1], r[1], width[2], r[2], r[3], end)
		} else {
			fmt.Fprint(w, r[3], end)
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

// reportOmitted reports on stderr, once each, the entries that the
// archive fsys is read from left out of it (driver.Omitter).
func reportOmitted(cmd *cobra.Command, fsys *vfs.FS) {
	var o driver.Omitter
	if !fsys.As(&o) {
		return
	}
	list, err := o.Omitted(cmd.Context())
	if err != nil {
		report(cmd, err)
		return
	}
	archive := fsys.Pipeline()
	if len(archive) > 1 {
		archive = archive[:len(archive)-1] // the container file
	}
	w := cmd.ErrOrStderr()
	for _, om := range list {
		at := "at an unknown offset"
		if om.Offset >= 0 {
			at = fmt.Sprintf("at offset %d", om.Offset)
		}
		fmt.Fprintf(w, "pipefs: warning: %s: entry %s %s left out: %s\n", archive, shellQuote(om.Name), at, om.Reason)
	}
}
