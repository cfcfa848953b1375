// Command pipefs lists, reads and serves the files that URL pipelines name,
// such as
//
//	pipefs ls -l 'file:/data/a.zip|zip:inner/b.zip|zip:docs/'
//	pipefs cat 'file:/data/a.zip|zip:README.txt'
//	pipefs serve 'file:/data/site.zip'
//
// The commands are:
//
//	resolve  print the canonical form of pipelines, or resolve relative ones
//	ls       list a directory location (a container file is opened as one)
//	tree     draw a directory location as a tree
//	cat      copy file locations to standard output
//	cp       copy a file location to a local file
//	stat     describe a location: size, mode, time, URL and archive header
//	serve    serve a directory location over HTTP
//
// A relative pipeline ("testdata/demo.zip|zip:README.txt") is resolved
// against the current directory, so it means
// "file:$PWD/testdata/demo.zip|zip:README.txt". A container file given
// where a directory is wanted ("file:/d/a.zip") is opened through its
// detected format ("file:/d/a.zip|zip:"); --no-detect
// turns that off. Quote pipelines in the shell: "|" is a shell pipe.
//
// Errors are printed as "pipefs: message", where the message names the
// sub-URL that failed. The exit status is 0 on success, 1 when something
// failed and 2 for a usage error (a bad flag or a wrong number of
// arguments).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs"
	_ "github.com/pipefs/pipefs/all" // every scheme, the remote roots too
	"github.com/pipefs/pipefs/vfs"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command line args and returns the exit status. Errors are
// written to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root, g := newRoot()
	defer g.printStats(stderr)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var reported reportedError
	if errors.As(err, &reported) {
		return exitError
	}
	fmt.Fprintf(stderr, "pipefs: %v\n", err)
	var usage usageError
	if errors.As(err, &usage) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return exitUsage
	}
	return exitError
}

// globals holds the flags that every command shares.
type globals struct {
	noDetect bool
	stats    bool

	mu      sync.Mutex
	counted []interface{ Stats() []vfs.StageCounts } // what --stats reports
}

// count remembers an opened FS or file for --stats.
func (g *globals) count(v interface{ Stats() []vfs.StageCounts }) {
	g.mu.Lock()
	g.counted = append(g.counted, v)
	g.mu.Unlock()
}

// printStats writes, with --stats, what each counting stage of each
// opened pipeline cost: requests, bytes fetched, cache hits and misses.
func (g *globals) printStats(w io.Writer) {
	if !g.stats {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.counted {
		for _, s := range c.Stats() {
			fmt.Fprintf(w, "pipefs: stats: sub-URL %d %q: %v\n", s.Index, s.URL, s.Counts)
		}
	}
}

// pipeline returns the canonical text of the pipeline that the argument
// arg names. A relative pipeline ("testdata/demo.zip|zip:README.txt") is
// resolved against the current directory, as a "file:" URL.
func (g *globals) pipeline(arg string) (string, error) {
	p, err := cwd().Resolve(arg)
	if err != nil {
		return "", vfs.SuggestScheme(err, nil)
	}
	return p.String(), nil
}

// cwd returns the current directory as a "file:" pipeline ending in "/",
// or nil when it is unknown (then only absolute pipelines resolve).
func cwd() vfs.Pipeline {
	dir, err := os.Getwd()
	if err != nil {
		return nil
	}
	dir = filepath.ToSlash(dir)
	if !strings.HasPrefix(dir, "/") {
		dir = "/" + dir // a Windows drive letter
	}
	if !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	p, err := vfs.Parse("file:" + (&url.URL{Path: dir}).EscapedPath())
	if err != nil {
		return nil
	}
	return p
}

// options returns the open options that the global flags ask for.
func (g *globals) options() *vfs.Options {
	return &pipefs.Options{NoDetect: g.noDetect}
}

// newRoot returns the root command and the globals its flags set.
func newRoot() (*cobra.Command, *globals) {
	g := new(globals)
	root := &cobra.Command{
		Use:   "pipefs",
		Short: "List, read and serve the files that URL pipelines name",
		Long: `pipefs opens URL pipelines such as

  file:/data/a.zip|zip:inner/b.zip|zip:docs/

and lists, reads or serves what they name. Each "|"-separated sub-URL
opens a layer over the one before it: "file:" and "memory:" are roots,
"zip:" and "byte-range:" adapters. Nothing is extracted to disk.

A relative pipeline is resolved against the current directory:
"testdata/demo.zip|zip:README.txt" means
"file:$PWD/testdata/demo.zip|zip:README.txt". A container file given
where a directory is wanted is opened through its detected format:
"file:/d/a.zip" lists as "file:/d/a.zip|zip:".

Quote pipelines in the shell, since "|" is a shell pipe.
` + schemeHelp(vfs.DefaultRegistry),
		Example: `  pipefs tree testdata/demo.zip
  pipefs ls -l 'file:/data/a.zip|zip:docs/'
  pipefs cat 'testdata/demo.zip|zip:data/inner.zip|zip:deep.zip|zip:hello.txt'
  pipefs resolve --base 'file:/data/a.zip|zip:docs/index.html' '../img/logo.png'`,
		SilenceErrors: true,
		SilenceUsage:  true,
		// Args makes an unknown command a usage error.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	root.PersistentFlags().BoolVar(&g.stats, "stats", false,
		"print to stderr what each remote stage cost: requests, bytes fetched, cache hits and misses")
	root.PersistentFlags().BoolVar(&g.noDetect, "no-detect", false,
		"do not detect container formats: a file where a directory is wanted is an error")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{err}
	})
	root.AddCommand(
		newResolveCmd(g),
		newLsCmd(g),
		newTreeCmd(g),
		newCatCmd(g),
		newCpCmd(g),
		newStatCmd(g),
		newServeCmd(g),
		newLogCmd(g),
		newArrayCmd(g),
	)
	return root, g
}

// A usageError is a bad flag or a wrong number of arguments: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// A reportedError means the command already wrote its errors to stderr:
// exit status 1 without another message.
type reportedError struct{}

func (reportedError) Error() string { return "errors were reported" }

// args returns an argument validator that makes a wrong count a usage
// error.
func args(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// report writes err to the command's stderr in the "pipefs: message" form.
func report(cmd *cobra.Command, err error) {
	fmt.Fprintf(cmd.ErrOrStderr(), "pipefs: %v\n", err)
}

// location is an opened location: a directory (fsys) or a file.
type location struct {
	fsys *vfs.FS
	file *vfs.File
}

func (l *location) Close() error {
	if l.fsys != nil {
		return l.fsys.Close()
	}
	return l.file.Close()
}

// openLocation opens the location that the argument arg names, as a directory when
// it is one or a container file (detection permitting), else as a file.
func (g *globals) openLocation(ctx context.Context, arg string) (*location, error) {
	pipeline, err := g.pipeline(arg)
	if err != nil {
		return nil, err
	}
	fsys, err := vfs.OpenFS(ctx, pipeline, g.options())
	if err == nil {
		g.count(fsys)
		return &location{fsys: fsys}, nil
	}
	if !errors.Is(err, vfs.ErrNotDir) && !errors.Is(err, vfs.ErrUnknownFormat) {
		return nil, err
	}
	// A plain file: no format matched, or detection is off.
	f, ferr := vfs.OpenFile(ctx, pipeline, g.options())
	if ferr != nil {
		return nil, err
	}
	g.count(f)
	return &location{file: f}, nil
}

// openFile opens the file location that the argument arg names.
func (g *globals) openFile(ctx context.Context, arg string) (*vfs.File, error) {
	pipeline, err := g.pipeline(arg)
	if err != nil {
		return nil, err
	}
	f, err := vfs.OpenFile(ctx, pipeline, g.options())
	if err != nil {
		return nil, err
	}
	g.count(f)
	return f, nil
}
