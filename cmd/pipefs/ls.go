package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/deep"
	"github.com/pipefs/pipefs/vfs/driver"
)

// timeLayout is how listings print modification times (local time).
const timeLayout = "2006-01-02 15:04:05"

func newLsCmd(g *globals) *cobra.Command {
	var o lsOptions
	cmd := &cobra.Command{
		Use:   "ls [-l] [-R] [-0] [--url] [--deep [--depth N]] URL...",
		Short: "List directory locations",
		Long: `ls lists the entries of the directory location that URL names, sorted
by name, directories with a trailing "/". A container file is listed as
the directory it holds ("file:/d/a.zip" lists the zip); a plain file is
printed as given, as ls does.

Given several URLs, ls lists them as coreutils ls does: the plain files
first, together, then each directory under a "URL:" line, with a blank
line between. A URL that fails is reported on standard error and the
others are listed; the exit status is then 1.

-R lists every file and directory below URL, one path a line, relative
to URL. -l adds the size, mode and modification time before each path
(directories show "-" for the size, and a file without a recorded time
"-" for the time); a symbolic link (a local one, a tar or zip symlink, an HDF5
soft or external link that is not followed) shows "l" in its mode and
"name -> target". As coreutils ls -l does, ls -l lists a link that URL
names itself ("URL -> target"), where ls without -l, and ls -l of the
link with a trailing "/", list the directory it leads to. A URL that
names a link that dangles or loops lists the link itself.

--deep lists the container files inside as the directories they hold: a
zip in a zip, a tar.gz (through gzip:|pipefs.tar:), an HDF5 file. With -R
their entries follow them, as "inner.zip/notes/a.txt"; with -l they show
"d" in their mode, their own size and time, and their format after the
name ("inner.zip/  [zip]"). Only a file whose first bytes look like a
container is opened, so --deep reads the head of every file it lists;
the datasets of an HDF5 file and the chunks of a Zarr, N5 or precomputed
array are never read. --depth bounds how many containers deep it opens
(default 8). A nested container that does not open is reported on
standard error and listed as a file; the exit status is then 1.

On a terminal, a name that a shell would take apart, or that holds a
control character, is quoted as GNU ls quotes it ('a b', 'a'$'\n''b');
elsewhere names are written as they are, except that one holding a
control character is quoted the same way. -0 ends each line with a NUL
instead of a newline and writes names as they are, for scripts
("pipefs ls -R -0 URL | xargs -0 ..."). --url writes each entry's
canonical pipeline instead of its name, percent-encoded and ready to pass
back to pipefs; with --deep, the pipelines go through the containers
("...|zip:data/inner.zip|zip:notes/a.txt").

An archive that leaves out entries it cannot expose (a name holding NUL,
an absolute path) has each of them reported once on standard error, with
the archive and the entry's offset; the listing itself succeeds.`,
		Example: `  pipefs ls testdata/demo.zip
  README.txt
  data/
  docs/
  site/
  templates/

  pipefs ls -lR --deep 'testdata/demo.zip|zip:data/'
   1287  drw-r--r--  2024-05-06 07:08:10  inner.zip/  [zip]
    787  drw-r--r--  2024-05-06 07:08:10  inner.zip/deep.zip/  [zip]
  10800  -rw-r--r--  2024-05-06 07:08:10  inner.zip/deep.zip/big.txt
     27  -rw-r--r--  2024-05-06 07:08:10  inner.zip/deep.zip/hello.txt
      -  dr-xr-xr-x  2024-05-06 07:08:10  inner.zip/notes/
     44  -rw-r--r--  2024-05-06 07:08:10  inner.zip/notes/a.txt
     58  -rw-r--r--  2024-05-06 07:08:10  inner.zip/notes/b.txt

  pipefs ls 'testdata/demo.zip|zip:README.txt' 'testdata/demo.zip|zip:docs/' 'testdata/demo.zip|zip:site/'
  testdata/demo.zip|zip:README.txt

  testdata/demo.zip|zip:docs/:
  guide.md

  testdata/demo.zip|zip:site/:
  index.html
  style.css

  pipefs ls -R --deep --depth 1 --url 'testdata/demo.zip|zip:data/'
  file:$PWD/testdata/demo.zip|zip:data/inner.zip|zip:
  file:$PWD/testdata/demo.zip|zip:data/inner.zip|zip:deep.zip
  file:$PWD/testdata/demo.zip|zip:data/inner.zip|zip:notes/
  file:$PWD/testdata/demo.zip|zip:data/inner.zip|zip:notes/a.txt
  file:$PWD/testdata/demo.zip|zip:data/inner.zip|zip:notes/b.txt

  pipefs ls -lR 'testdata/demo.zip|zip:data/inner.zip'
  pipefs ls -R -0 testdata/demo.zip`,
		Args:              args(cobra.MinimumNArgs(1)),
		ValidArgsFunction: g.completeURLs(-1, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.ls(cmd, args, &o)
		},
	}
	cmd.Flags().BoolVarP(&o.long, "long", "l", false, "show size, mode and modification time")
	cmd.Flags().BoolVarP(&o.recursive, "recursive", "R", false, "list every path below URL")
	cmd.Flags().BoolVarP(&o.zero, "zero", "0", false, "end each line with NUL, not newline, and write names unquoted")
	cmd.Flags().BoolVar(&o.urls, "url", false, "write each entry's canonical pipeline instead of its name")
	cmd.Flags().BoolVar(&o.human, "human-readable", false, "with -l, print sizes as ls -h does (1.5K, 234M, 2.0G: powers of 1024)")
	o.deep.add(cmd)
	return cmd
}

// lsOptions are the flags of ls.
type lsOptions struct {
	long, recursive, zero, urls, human bool
	deep                               deepFlags
}

// An lsArg is an argument of ls, opened, or a symbolic link that does not
// open, described by its entry (link) and, for a zip symlink, its target.
type lsArg struct {
	arg    string
	loc    *location
	link   fs.FileInfo
	target string
}

// ls lists the locations that args name: the files first, then each
// directory.
func (g *globals) ls(cmd *cobra.Command, args []string, o *lsOptions) error {
	ctx := cmd.Context()
	walk, err := g.deepOptions(o.deep)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	l := &lister{cmd: cmd, out: w, long: o.long, zero: o.zero, urls: o.urls, human: o.human, tty: isTerminal(w), deep: walk, count: g.count}
	var files, dirs []lsArg
	for _, arg := range args {
		if err := ctx.Err(); err != nil {
			return err
		}
		if o.long {
			// As coreutils ls -l lists a link it is given: itself.
			if info, target := g.argLink(ctx, arg); info != nil {
				files = append(files, lsArg{arg: arg, link: info, target: target})
				continue
			}
		}
		loc, err := g.openLocation(ctx, arg)
		if err != nil {
			// A link that dangles or loops is listed itself, as ls does.
			if p, perr := g.pipeline(arg); perr == nil {
				if info, target := g.unfollowedLink(ctx, p, err); info != nil {
					files = append(files, lsArg{arg: arg, link: info, target: target})
					continue
				}
			}
			if len(args) == 1 {
				return err
			}
			report(cmd, err)
			l.failed = true
			continue
		}
		defer loc.Close()
		if loc.file != nil {
			files = append(files, lsArg{arg: arg, loc: loc})
		} else {
			dirs = append(dirs, lsArg{arg: arg, loc: loc})
		}
	}
	if len(args) > 1 {
		// As coreutils ls sorts its operands.
		byArg := func(a, b lsArg) int { return strings.Compare(a.arg, b.arg) }
		slices.SortStableFunc(files, byArg)
		slices.SortStableFunc(dirs, byArg)
	}
	for _, f := range files {
		info := f.link
		if info == nil {
			if info, err = f.loc.file.Stat(); err != nil {
				l.fail(err)
				continue
			}
		}
		name := listfmt.Name(f.arg, l.tty)
		switch {
		case o.urls && f.link != nil:
			name = f.link.Sys().(*vfs.Origin).URL
		case o.urls:
			name = f.loc.file.URL()
		case l.zero:
			name = f.arg
		}
		if f.target != "" && l.long {
			name += " -> " + listfmt.Name(f.target, l.tty && !l.zero)
		}
		l.add(nil, "", name, info)
	}
	l.flush(w)
	for i, d := range dirs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(args) > 1 {
			if i > 0 || len(files) > 0 {
				io.WriteString(w, l.end())
			}
			name := d.arg
			if !l.zero {
				name = listfmt.Name(name, l.tty)
			}
			io.WriteString(w, name+":"+l.end())
		}
		fsys := d.loc.fsys.WithContext(ctx)
		l.walk(fsys, o.recursive)
		l.flush(w)
		if reportOmitted(cmd, fsys) {
			l.failed = true
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.failed {
		return reportedError{}
	}
	return nil
}

// argLink returns the entry of the symbolic link that the argument arg
// names, and its target, which ls -l lists instead of what the link leads
// to, as coreutils ls -l does; nil when arg names no link, or ends in "/"
// (or names "." or ".."), which asks for the directory it leads to.
func (g *globals) argLink(ctx context.Context, arg string) (fs.FileInfo, string) {
	if strings.HasSuffix(arg, "/") || strings.HasSuffix(arg, string(filepath.Separator)) {
		return nil, ""
	}
	if base := path.Base(filepath.ToSlash(arg)); base == "." || base == ".." {
		return nil, ""
	}
	pipeline, err := g.pipeline(arg)
	if err != nil {
		return nil, ""
	}
	// parseArg ends a local directory with "/", and a link to one.
	pipeline = strings.TrimSuffix(pipeline, "/")
	// Only where opening follows links (a local directory, a tar archive:
	// vfs.Registry.FollowsLinks) is the link looked for in its parent
	// directory first. Other trees never follow one (opening a zip
	// symlink fails, and is described then, see unfollowedLink), and
	// looking would open a remote pipeline a second time.
	if p, err := vfs.Parse(pipeline); err != nil || !registry(g.options()).FollowsLinks(p) {
		return nil, ""
	}
	return g.lstat(ctx, pipeline)
}

// A lister collects the rows of a listing, to print them aligned.
type lister struct {
	cmd    *cobra.Command
	long   bool
	zero   bool                                         // NUL-terminated lines, names unquoted
	urls   bool                                         // canonical pipelines instead of names
	human  bool                                         // sizes as ls -h writes them
	tty    bool                                         // writing to a terminal
	deep   *deep.Options                                // the walk's: Depth is negative without --deep
	count  func(interface{ Stats() []vfs.StageCounts }) // counts a nested FS's requests for --stats
	failed bool                                         // an error was reported
	rows   [][4]string                                  // size, mode, time, name
	out    io.Writer                                    // where rows without -l go as they come
}

// fail reports err and remembers that the listing failed.
func (l *lister) fail(err error) {
	report(l.cmd, err)
	l.failed = true
}

// line writes the row of an entry without -l, as it comes: such rows
// need no widths from the others.
func (l *lister) line(name string) {
	io.WriteString(l.out, name)
	io.WriteString(l.out, l.end())
}

// end is what ends a line: a newline, or a NUL with -0.
func (l *lister) end() string {
	if l.zero {
		return "\x00"
	}
	return "\n"
}

// walk adds the entries of the directory fsys, and with recursive those
// below them, and with --deep those of the containers among them (see
// deep.WalkDir), each named by its path from fsys.
func (l *lister) walk(fsys *vfs.FS, recursive bool) {
	opt := *l.deep
	if recursive {
		opt.BeforeClose = func(_ string, nested *vfs.FS) error {
			if reportOmitted(l.cmd, nested) {
				l.failed = true
			}
			return nil
		}
	}
	// The entries' FileInfos are needed for -l and --deep only, and
	// without -R to tell directories.
	infos := l.long || opt.Depth >= 0 || !recursive
	skip := func(dir bool) error {
		if dir && !recursive {
			return fs.SkipDir
		}
		return nil
	}
	err := deep.WalkDir(fsys, ".", &opt, func(p string, d *deep.Entry, err error) error {
		if err != nil {
			l.fail(err)
			if d.IsContainer() || d.IsDir() {
				return nil
			}
			if info, ierr := d.Info(); ierr == nil {
				// A container that did not open: listed as a file.
				l.add(d.FS, d.Name, l.name(p, l.url(d.FS, d.Name), info.IsDir()), info)
			}
			return nil
		}
		if p == "." {
			return nil
		}
		if d.IsContainer() {
			l.count(d.Nested)
			info, _ := d.Info() // read to choose it as a container
			l.addNest(p, info, d.Nested, d.Format)
			return skip(true)
		}
		var info fs.FileInfo
		isDir := d.IsDir()
		if infos {
			if info, err = d.Info(); err != nil {
				l.fail(err)
				return skip(isDir)
			}
			isDir = info.IsDir()
		}
		l.add(d.FS, d.Name, l.name(p, l.url(d.FS, d.Name), isDir), info)
		return skip(isDir)
	})
	if err != nil && l.cmd.Context().Err() == nil {
		l.fail(err)
	}
}

// addNest adds the row of the container file name, described by info and
// opened as nested through format: a directory, with its format after
// the name under -l.
func (l *lister) addNest(name string, info fs.FileInfo, nested *vfs.FS, format string) {
	shown := l.name(name, nested.Pipeline().String(), true)
	if !l.long {
		l.line(shown)
		return
	}
	l.rows = append(l.rows, [4]string{
		l.bytes(info.Size()),
		listfmt.Mode(fs.ModeDir | info.Mode().Perm()),
		timeOf(info),
		shown + "  [" + format + "]",
	})
}

// url is the canonical pipeline of the file name of fsys with --url, and
// "" without, where the listing does not show it.
func (l *lister) url(fsys *vfs.FS, name string) string {
	if !l.urls {
		return ""
	}
	return fsys.URL(name)
}

// name is what the listing shows for an entry, directories with a
// trailing "/": url, its canonical pipeline, with --url, else name,
// quoted for display unless the lines end in NUL.
func (l *lister) name(name, url string, dir bool) string {
	slash := ""
	if dir {
		slash = "/"
	}
	if l.urls {
		if strings.HasSuffix(url, "/") || strings.HasSuffix(url, ":") || strings.Contains(url[strings.LastIndexByte(url, '|')+1:], "?") {
			return url
		}
		return url + slash // the canonical form of a directory
	}
	if l.zero {
		return name + slash
	}
	if q := listfmt.Name(name, l.tty); q != name {
		return listfmt.Name(name+slash, l.tty) // one word: 'a b/'
	}
	return name + slash
}

// add adds the row of name, as it is to be shown, described by info (nil
// without -l); entry is its name in fsys, the directory it is listed from,
// where the target of a symbolic link is read (fsys is nil when there is
// none).
func (l *lister) add(fsys *vfs.FS, entry, name string, info fs.FileInfo) {
	if !l.long {
		l.line(name)
		return
	}
	if t := listfmt.LinkTarget(fsys, entry, info); t != "" {
		name += " -> " + listfmt.Name(t, l.tty && !l.zero)
	}
	l.rows = append(l.rows, [4]string{
		l.size(info),
		listfmt.Mode(info.Mode()),
		timeOf(info),
		name,
	})
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

// flush prints the rows of -l, aligned in columns: the size column
// right-aligned, the others left.
func (l *lister) flush(w io.Writer) {
	var width [3]int
	for _, r := range l.rows {
		for i := range width {
			width[i] = max(width[i], len(r[i]))
		}
	}
	end := l.end()
	for _, r := range l.rows {
		fmt.Fprintf(w, "%*s  %-*s  %-*s  %s%s", width[0], r[0], width[1], r[1], width[2], r[2], r[3], end)
	}
	l.rows = l.rows[:0]
}

// size is the size column of info: its size, "-" for a directory.
func (l *lister) size(info fs.FileInfo) string {
	if info.IsDir() {
		return "-"
	}
	return l.bytes(info.Size())
}

// bytes writes n bytes in bytes, or as ls -h does with --human-readable.
func (l *lister) bytes(n int64) string {
	if l.human {
		return listfmt.HumanSize(n)
	}
	return strconv.FormatInt(n, 10)
}

// reportOmitted reports on stderr, once each, the entries that the
// archive fsys is read from left out of it (driver.Omitter), and reports
// whether the archive is damaged: a listing that ended early at damage,
// or a stream below whose checks failed, is an error (the exit status is
// then 1, as bsdtar's), an entry left out for its name a warning.
func reportOmitted(cmd *cobra.Command, fsys *vfs.FS) (damaged bool) {
	var o driver.Omitter
	if !fsys.As(&o) {
		return false
	}
	list, err := o.Omitted(cmd.Context())
	if err != nil {
		report(cmd, err)
		return true
	}
	archive := fsys.Pipeline()
	if len(archive) > 1 {
		archive = archive[:len(archive)-1] // the container file
	}
	w := cmd.ErrOrStderr()
	for _, om := range list {
		if om.Err != nil {
			fmt.Fprintf(w, "pipefs: %s: damaged, the listing is incomplete: %s\n", archive, om.Reason)
			damaged = true
			continue
		}
		at := "at an unknown offset"
		if om.Offset >= 0 {
			at = fmt.Sprintf("at offset %d", om.Offset)
		}
		fmt.Fprintf(w, "pipefs: warning: %s: entry %s %s left out: %s\n", archive, listfmt.ShellQuote(om.Name), at, om.Reason)
	}
	return damaged
}
