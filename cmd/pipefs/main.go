// Command pipefs lists, reads, copies, serves and mounts the files that URL
// pipelines name, such as
//
//	pipefs ls -l 'file:/data/a.zip|zip:inner/b.zip|zip:docs/'
//	pipefs cat 'file:/data/a.zip|zip:README.txt'
//	pipefs serve 'file:/data/site.zip'
//
// The commands are:
//
//	resolve     print the canonical form of pipelines, or resolve relative ones
//	ls          list directory locations; --deep opens the containers inside
//	tree        draw a directory location as a tree; --deep as ls
//	cat         copy file locations to standard output
//	cp          copy file and directory locations to local files and directories,
//	            verified, resumable (--continue), with a progress bar on a terminal;
//	            -R copies up to --concurrency files at once (16 from a remote location)
//	stat        describe a location: size, mode, time, URL and archive header
//	serve       browse a directory location in a web browser, or fetch its files
//	mount       mount a directory location read-only with FUSE
//	explain     show what each layer of a pipeline is and what opening it cost
//	arcp        print the arcp identifiers of a member of a container
//	log         print the versions of a versioned store
//	array       describe an array or group, or write its elements
//	completion  print the script that completes pipelines in bash, zsh or fish
//
// A relative pipeline ("testdata/demo.zip|zip:README.txt") is resolved
// against the current directory, so it means
// "file:$PWD/testdata/demo.zip|zip:README.txt". A container file given
// where a directory is wanted ("file:/d/a.zip") is opened through its
// detected format ("file:/d/a.zip|zip:"); --no-detect
// turns that off. Quote pipelines in the shell: "|" is a shell pipe.
//
// An argument is read as a person types it: spaces, non-ASCII and the
// other characters that a canonical pipeline percent-encodes are encoded
// before parsing (vfs.ParseLoose); only "|", "%", "#" and "?" keep their
// structural meaning. An argument, or the part of it before a "|", that
// names an existing local file or directory is that file, whatever
// characters its name holds ("bf v2.zip", "100%.zip|zip:a.txt").
//
// Names that an archive holds are shown safely: on a terminal, ls, tree
// and stat quote a name as GNU ls does there, a name holding a newline as
//
//	'a'$'\n''b'
//
// Off a terminal a name is written as it is unless it holds a control character,
// which is quoted the same way. ls -0 writes raw names NUL-terminated, and
// ls --url canonical pipelines. Entries an archive left out
// (driver.Omitter) are reported on stderr.
//
// Every field of vfs.Limits can be set, by a flag named after it
// (--max-ratio for MaxRatio, --max-file-size for MaxFileSize) or in the
// environment variable PIPEFS_LIMITS ("MaxRatio=-1,MaxFileSize=2T"); flags
// win. A limit error names the flag that lifts it.
//
// Indexes derived from archives and streams (tar member tables, gzip
// checkpoints, zstd frame tables) are kept on disk for later runs, in
// os.UserCacheDir()/pipefs (--cache-dir or $PIPEFS_CACHE_DIR, "off" for
// none), bounded by --cache-size (default 1G), so that a second listing
// of a remote tar.gz reads its first block and decodes nothing. With
// --sidecar=write (or $PIPEFS_SIDECAR) they are also written beside s3: and
// gs: archives in their bucket, as NAME.pipefs/HASH.pfi, and with read (or
// write) another machine reads them there: see vfs.SidecarMode.
//
// Errors are printed as "pipefs: message", where the message names the
// sub-URL that failed. Names are shown as people type them, with the
// escapes of spaces and non-ASCII characters decoded ("zip:odd names"),
// and a pipeline so shown is followed by its canonical form:
// "open file:/d/a.zip|zip:odd names/x (canonical
// file:/d/a.zip|zip:odd%20names/x): ...". The exit status is 0 on success, 1 when something
// failed, 2 for a usage error (a bad flag or a wrong number of
// arguments), and 130 when SIGINT stopped the command (143 for SIGTERM).
// The first signal cancels what is under way and nothing more is started;
// a second one ends the process at once.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/pipefs/pipefs"
	_ "github.com/pipefs/pipefs/all" // every scheme, the remote roots too
	"github.com/pipefs/pipefs/internal/optflags"
	"github.com/pipefs/pipefs/internal/warnlog"
	"github.com/pipefs/pipefs/vfs"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
	// exitInterrupted is the status of a command that SIGINT stopped, as a
	// shell reports a process that SIGINT killed: 128 + 2.
	exitInterrupted = 130
	// exitTerminated is the same for SIGTERM: 128 + 15.
	exitTerminated = 143
)

func main() {
	term, stopTerm := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	ctx, stopInt := signal.NotifyContext(term, os.Interrupt)
	terminated := make(chan bool, 1)
	go func() {
		// After the first signal, the default action comes back: a second
		// Ctrl-C ends a process that a blocking call holds up.
		<-ctx.Done()
		terminated <- term.Err() != nil
		stopInt()
		stopTerm()
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if code == exitInterrupted && <-terminated {
		code = exitTerminated
	}
	os.Exit(code)
}

// run runs the command line args and returns the exit status. Errors are
// written to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root, g := newRoot()
	g.log = slog.New(warnlog.New(stderr))
	defer g.printStats(stderr)
	out := newOutput(stdout)
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	// What the command wrote goes out before anything run reports on
	// stderr, so that the two interleave as they happened.
	if ferr := out.Flush(); ferr != nil && err == nil {
		err = ferr
	}
	if ctx.Err() != nil && !(err == nil && cmd.Annotations[stopsOnSignal] != "") {
		// Stopped: whatever the command was doing, it did not finish.
		fmt.Fprintf(stderr, "pipefs: stopped: %v\n", context.Cause(ctx))
		return exitInterrupted
	}
	if err == nil {
		return exitOK
	}
	var reported reportedError
	if errors.As(err, &reported) {
		return exitError
	}
	fmt.Fprintf(stderr, "pipefs: %s\n", message(err))
	var usage usageError
	if errors.As(err, &usage) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return exitUsage
	}
	return exitError
}

// stopsOnSignal is the annotation of a command, such as serve, for which
// a signal is the normal way to end: it exits 0 when it stopped cleanly.
const stopsOnSignal = "stops-on-signal"

// globals holds the flags that every command shares.
type globals struct {
	noDetect bool
	stats    bool

	opts *optflags.Flags // limits, the disk cache and the readahead, read with their variables
	log  *slog.Logger    // the warnings of the library, on stderr

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
			fmt.Fprintf(w, "pipefs: stats: sub-URL %d %q: %v\n", s.Index, vfs.DisplayText(s.URL), s.Counts)
		}
	}
}

// pipeline returns the canonical text of the pipeline that the argument
// arg names (see parseArg).
func (g *globals) pipeline(arg string) (string, error) {
	p, err := parseArg(arg)
	if err != nil {
		return "", vfs.SuggestScheme(err, nil)
	}
	return p.String(), nil
}

// parseArg reads a pipeline as a person types it. The longest part of arg
// that ends at a "|" or at its end and names an existing local file or
// directory is that file (vfs.FromPath), whatever characters it holds; the
// adapters after it are read by vfs.ParseLoose. Otherwise arg is an
// absolute pipeline or one relative to the current directory
// ("testdata/demo.zip|zip:README.txt"), read by vfs.ResolveLoose. An
// empty arg names nothing, as it names nothing to coreutils ls: the error
// matches fs.ErrNotExist.
func parseArg(arg string) (vfs.Pipeline, error) {
	if arg == "" {
		return nil, errEmptyArg
	}
	for end := len(arg); end > 0; end = strings.LastIndexByte(arg[:end], '|') {
		name := arg[:end]
		if _, err := os.Lstat(name); err != nil {
			continue
		}
		if info, err := os.Stat(name); err == nil && info.IsDir() && !strings.HasSuffix(name, string(filepath.Separator)) {
			name += string(filepath.Separator)
		}
		p, err := vfs.FromPath(name)
		if err != nil {
			return nil, err
		}
		if end == len(arg) {
			return p, nil
		}
		return vfs.ParseLoose(p.String() + arg[end:])
	}
	return cwd().ResolveLoose(arg)
}

// errEmptyArg is the error of an empty argument.
var errEmptyArg = fmt.Errorf("cannot access '': %w (an empty URL names nothing; write \".\" for the current directory)", fs.ErrNotExist)

// cwd returns the current directory as a "file:" pipeline ending in "/",
// or nil when it is unknown (then only absolute pipelines resolve).
func cwd() vfs.Pipeline {
	dir, err := os.Getwd()
	if err != nil {
		return nil
	}
	p, err := vfs.FromPath(dir + string(filepath.Separator))
	if err != nil {
		return nil
	}
	return p
}

// options returns the open options that the global flags ask for.
func (g *globals) options() *vfs.Options {
	return g.opts.Apply(&pipefs.Options{NoDetect: g.noDetect, Logger: g.log})
}

// newRoot returns the root command and the globals its flags set.
func newRoot() (*cobra.Command, *globals) {
	g := new(globals)
	root := &cobra.Command{
		Use:   "pipefs",
		Short: "List, read and serve the files that URL pipelines name",
		Long: `pipefs opens URL pipelines such as

  file:/data/a.zip|zip:inner/b.zip|zip:docs/

and lists, reads, copies, serves or mounts what they name. Each
"|"-separated sub-URL opens a layer over the one before it: the first is a
root, which gives bytes or a tree (local files, HTTP, S3, GCS, memory);
every later one is an adapter, which reads the layer before it (archives,
compressed streams, array stores, HDF5, images). Every registered scheme is
listed below. Nothing is extracted to disk.

A relative pipeline is resolved against the current directory:
"testdata/demo.zip|zip:README.txt" means
"file:$PWD/testdata/demo.zip|zip:README.txt". A container file given
where a directory is wanted is opened through its detected format:
"file:/d/a.zip" lists as "file:/d/a.zip|zip:".

Quote pipelines in the shell, since "|" is a shell pipe. Type names as
they are: spaces, non-ASCII and a stray "%" are encoded for you, and a
local file names itself whatever it holds ("bf v2.zip|zip:a b.txt"); a
"|", "#" or "?" inside a member name is typed %7C, %23, %3F.

Limits on what an archive may claim (--max-ratio, --max-file-size and the
others below) can be lifted for one run, or set in PIPEFS_LIMITS, as
"MaxRatio=-1,MaxFileSize=2T". A limit is a number with an optional K, M,
G, T, P or E suffix (powers of 1024), or -1 (also "none") for no limit. SIGINT stops a command with exit status 130.
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
		"print to stderr what each root stage cost: requests (read calls for file: and memory:), bytes fetched, cache hits and misses")
	root.PersistentFlags().BoolVar(&g.noDetect, "no-detect", false,
		"do not detect container formats: a file where a directory is wanted is an error")
	g.opts = optflags.New()
	g.opts.Add(root.PersistentFlags())
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		// The library reads no variable: the command passes them in.
		env := optflags.Env{
			Limits:   os.Getenv(optflags.LimitsEnv),
			CacheDir: os.Getenv(optflags.CacheDirEnv),
			Sidecar:  os.Getenv(optflags.SidecarEnv),
		}
		if err := g.opts.Setup(cmd.Flags(), env); err != nil {
			return usageError{err}
		}
		return nil
	}
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
		newMountCmd(g),
		newExplainCmd(g),
		newArcpCmd(g),
	)
	setupCompletion(root)
	root.Version = version()
	root.SetVersionTemplate("pipefs {{.Version}}\n")
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
// A cancellation of the command's context is left to run, which reports
// it once.
func report(cmd *cobra.Command, err error) {
	if ctx := cmd.Context(); ctx != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return
	}
	// What was written before the failure goes out first.
	if o, ok := cmd.OutOrStdout().(*output); ok {
		o.Flush()
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "pipefs: %s\n", message(err))
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

// openLocation opens the location that the argument arg names, as a
// directory when it is one or a container file (detection permitting), else
// as a file. The pipeline is opened once (vfs.OpenDetect), so a plain remote
// file costs the requests of one open.
func (g *globals) openLocation(ctx context.Context, arg string) (*location, error) {
	pipeline, err := g.pipeline(arg)
	if err != nil {
		return nil, err
	}
	fsys, f, err := vfs.OpenDetect(ctx, pipeline, g.options())
	if err != nil {
		return nil, err
	}
	if fsys != nil {
		g.count(fsys)
		return &location{fsys: fsys}, nil
	}
	g.count(f)
	return &location{file: f}, nil
}

// openDir opens the directory location that the argument arg names, as
// mount and serve want it: a directory, a container file through its
// format, or a compressed file as the folder that holds its decompressed
// file (vfs.OpenFS). A file that is none of these fails with an error
// matching vfs.ErrNotDir that says what the command needs.
func (g *globals) openDir(ctx context.Context, cmd, arg string) (*vfs.FS, error) {
	pipeline, err := g.pipeline(arg)
	if err != nil {
		return nil, err
	}
	fsys, err := vfs.OpenFS(ctx, pipeline, g.options())
	if errors.Is(err, vfs.ErrUnknownFormat) || errors.Is(err, vfs.ErrNotDir) {
		return nil, fmt.Errorf("%s %s: %w: %s needs a directory location: a directory, an archive or a compressed file (to read a file, use pipefs cat)", cmd, pipeline, vfs.ErrNotDir, cmd)
	}
	if err != nil {
		return nil, err
	}
	g.count(fsys)
	return fsys, nil
}

// openFile opens the file location that the argument arg names; a
// directory location fails with vfs.ErrIsDir.
func (g *globals) openFile(ctx context.Context, arg string) (*vfs.File, error) {
	pipeline, err := g.pipeline(arg)
	if err != nil {
		return nil, err
	}
	f, err := vfs.Open(ctx, pipeline, g.options())
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err == nil && info.IsDir() {
		f.Close()
		p, _ := vfs.Parse(f.URL())
		last := len(p) - 1
		return nil, &fs.PathError{Op: "open", Path: f.URL(), Err: &vfs.StageError{Index: last, URL: p[last].String(), Err: vfs.ErrIsDir}}
	}
	g.count(f)
	return f, nil
}
