package main

import (
	"context"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/internal/listing"
	"github.com/pipefs/pipefs/vfs"
)

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
	l := &listing.Lister{Out: w, Long: o.long, Zero: o.zero, URLs: o.urls, Human: o.human, TTY: isTerminal(w), Deep: walk, Count: g.count,
		Report: func(err error) { report(cmd, err) }, ErrOut: cmd.ErrOrStderr()}
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
			l.Failed = true
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
				l.Fail(err)
				continue
			}
		}
		name := listfmt.Name(f.arg, l.TTY)
		switch {
		case o.urls && f.link != nil:
			name = f.link.Sys().(*vfs.Origin).URL
		case o.urls:
			name = f.loc.file.URL()
		case l.Zero:
			name = f.arg
		}
		if f.target != "" && l.Long {
			name += " -> " + listfmt.Name(f.target, l.TTY && !l.Zero)
		}
		l.Add(nil, "", name, info)
	}
	l.Flush(w)
	for i, d := range dirs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(args) > 1 {
			if i > 0 || len(files) > 0 {
				io.WriteString(w, l.End())
			}
			name := d.arg
			if !l.Zero {
				name = listfmt.Name(name, l.TTY)
			}
			io.WriteString(w, name+":"+l.End())
		}
		fsys := d.loc.fsys.WithContext(ctx)
		l.Walk(fsys, o.recursive)
		l.Flush(w)
		if listing.ReportOmitted(fsys, cmd.ErrOrStderr(), func(err error) { report(cmd, err) }) {
			l.Failed = true
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.Failed {
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
