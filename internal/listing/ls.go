package listing

import (
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/deep"
)

// TimeLayout is how listings write modification times (local time).
const TimeLayout = "2006-01-02 15:04:05"

// A Lister writes the rows of a listing as pipefs ls does: one name a
// line, or with Long the columns of ls -l (size, mode, time, name),
// aligned when Flush writes them.
type Lister struct {
	Out   io.Writer // where rows without Long go as they come
	Long  bool      // the columns of ls -l, written by Flush
	Zero  bool      // NUL-terminated lines, names unquoted
	URLs  bool      // canonical pipelines instead of names
	Human bool      // sizes as ls -h writes them
	TTY   bool      // writing to a terminal: names quoted as GNU ls does
	// Deep are the options of the walk; a negative Depth opens no
	// container. It must be set.
	Deep *deep.Options
	// Count, when set, is given every container the walk opens (for
	// the --stats of its requests).
	Count func(interface{ Stats() []vfs.StageCounts })
	// Report reports an error (on stderr); ErrOut is where the entries
	// a damaged archive left out are reported (ReportOmitted).
	Report func(error)
	ErrOut io.Writer
	// Failed is set once an error was reported.
	Failed bool

	rows [][4]string // size, mode, time, name
}

// Fail reports err and remembers that the listing failed.
func (l *Lister) Fail(err error) {
	l.Report(err)
	l.Failed = true
}

// line writes the row of an entry without -l, as it comes: such rows
// need no widths from the others.
func (l *Lister) line(name string) {
	io.WriteString(l.Out, name)
	io.WriteString(l.Out, l.End())
}

// End is what ends a line: a newline, or a NUL with Zero.
func (l *Lister) End() string {
	if l.Zero {
		return "\x00"
	}
	return "\n"
}

// Walk adds the entries of the directory fsys, and with recursive those
// below them, and with --deep those of the containers among them (see
// deep.WalkDir), each named by its path from fsys.
func (l *Lister) Walk(fsys *vfs.FS, recursive bool) {
	opt := *l.Deep
	if recursive {
		opt.BeforeClose = func(_ string, nested *vfs.FS) error {
			if ReportOmitted(nested, l.ErrOut, l.Report) {
				l.Failed = true
			}
			return nil
		}
	}
	// The entries' FileInfos are needed for -l and --deep only, and
	// without -R to tell directories.
	infos := l.Long || opt.Depth >= 0 || !recursive
	skip := func(dir bool) error {
		if dir && !recursive {
			return fs.SkipDir
		}
		return nil
	}
	err := deep.WalkDir(fsys, ".", &opt, func(p string, d *deep.Entry, err error) error {
		if err != nil {
			l.Fail(err)
			if d.IsContainer() || d.IsDir() {
				return nil
			}
			if info, ierr := d.Info(); ierr == nil {
				// A container that did not open: listed as a file.
				l.Add(d.FS, d.Name, l.name(p, l.url(d.FS, d.Name), info.IsDir()), info)
			}
			return nil
		}
		if p == "." {
			return nil
		}
		if d.IsContainer() {
			l.countNested(d.Nested)
			info, _ := d.Info() // read to choose it as a container
			l.addNest(p, info, d.Nested, d.Format)
			return skip(true)
		}
		var info fs.FileInfo
		isDir := d.IsDir()
		if infos {
			if info, err = d.Info(); err != nil {
				l.Fail(err)
				return skip(isDir)
			}
			isDir = info.IsDir()
		}
		l.Add(d.FS, d.Name, l.name(p, l.url(d.FS, d.Name), isDir), info)
		return skip(isDir)
	})
	if err != nil && fsys.Context().Err() == nil {
		l.Fail(err)
	}
}

// addNest adds the row of the container file name, described by info and
// opened as nested through format: a directory, with its format after
// the name under -l.
func (l *Lister) addNest(name string, info fs.FileInfo, nested *vfs.FS, format string) {
	shown := l.name(name, nested.Pipeline().String(), true)
	if !l.Long {
		l.line(shown)
		return
	}
	l.rows = append(l.rows, [4]string{
		l.bytes(info.Size()),
		listfmt.Mode(fs.ModeDir | info.Mode().Perm()),
		TimeOf(info),
		shown + "  [" + format + "]",
	})
}

// url is the canonical pipeline of the file name of fsys with --url, and
// "" without, where the listing does not show it.
func (l *Lister) url(fsys *vfs.FS, name string) string {
	if !l.URLs {
		return ""
	}
	return fsys.URL(name)
}

// name is what the listing shows for an entry, directories with a
// trailing "/": url, its canonical pipeline, with --url, else name,
// quoted for display unless the lines end in NUL.
func (l *Lister) name(name, url string, dir bool) string {
	slash := ""
	if dir {
		slash = "/"
	}
	if l.URLs {
		if strings.HasSuffix(url, "/") || strings.HasSuffix(url, ":") || strings.Contains(url[strings.LastIndexByte(url, '|')+1:], "?") {
			return url
		}
		return url + slash // the canonical form of a directory
	}
	if l.Zero {
		return name + slash
	}
	if q := listfmt.Name(name, l.TTY); q != name {
		return listfmt.Name(name+slash, l.TTY) // one word: 'a b/'
	}
	return name + slash
}

// Add adds the row of name, as it is to be shown, described by info (nil
// without -l); entry is its name in fsys, the directory it is listed from,
// where the target of a symbolic link is read (fsys is nil when there is
// none).
func (l *Lister) Add(fsys *vfs.FS, entry, name string, info fs.FileInfo) {
	if !l.Long {
		l.line(name)
		return
	}
	if t := listfmt.LinkTarget(fsys, entry, info); t != "" {
		name += " -> " + listfmt.Name(t, l.TTY && !l.Zero)
	}
	l.rows = append(l.rows, [4]string{
		l.size(info),
		listfmt.Mode(info.Mode()),
		TimeOf(info),
		name,
	})
}

// TimeOf is the time column of info: its modification time, "-" when
// there is none (the zero time).
func TimeOf(info fs.FileInfo) string {
	t := info.ModTime()
	if t.IsZero() {
		return "-"
	}
	return t.Format(TimeLayout)
}

// Flush writes the rows of Long to w, aligned in columns: the size column
// right-aligned, the others left.
func (l *Lister) Flush(w io.Writer) {
	var width [3]int
	for _, r := range l.rows {
		for i := range width {
			width[i] = max(width[i], len(r[i]))
		}
	}
	end := l.End()
	for _, r := range l.rows {
		fmt.Fprintf(w, "%*s  %-*s  %-*s  %s%s", width[0], r[0], width[1], r[1], width[2], r[2], r[3], end)
	}
	l.rows = l.rows[:0]
}

// size is the size column of info: its size, "-" for a directory.
func (l *Lister) size(info fs.FileInfo) string {
	if info.IsDir() {
		return "-"
	}
	return l.bytes(info.Size())
}

// bytes writes n bytes in bytes, or as ls -h does with --human-readable.
func (l *Lister) bytes(n int64) string {
	if l.Human {
		return listfmt.HumanSize(n)
	}
	return strconv.FormatInt(n, 10)
}

// countNested gives Count a container the walk opened.
func (l *Lister) countNested(v interface{ Stats() []vfs.StageCounts }) {
	if l.Count != nil {
		l.Count(v)
	}
}
