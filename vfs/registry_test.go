package vfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// testTree is a map of files, for tests of the engine.
type testTree map[string]string

func (t testTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if name == "." {
		return &driver.FileInfo{FName: ".", FMode: fs.ModeDir | 0o555}, nil
	}
	if s, ok := t[name]; ok {
		return &driver.FileInfo{FName: path.Base(name), FSize: int64(len(s)), FMode: 0o444}, nil
	}
	for k := range t {
		if strings.HasPrefix(k, name+"/") {
			return &driver.FileInfo{FName: name, FMode: fs.ModeDir | 0o555}, nil
		}
	}
	return nil, fs.ErrNotExist
}

func (t testTree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	return nil, errors.ErrUnsupported
}

func (t testTree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	s, ok := t[name]
	if !ok {
		if _, err := t.Stat(ctx, name); err == nil {
			return nil, ErrIsDir
		}
		return nil, fs.ErrNotExist
	}
	return driver.BytesBlob([]byte(s), &driver.FileInfo{FName: path.Base(name), FSize: int64(len(s)), FMode: 0o444}), nil
}

// newTestRegistry returns a registry with a "memory" root over files, and
// two vendor adapters: "test.pass" (a file to itself) and "test.dir" (a
// file to a one-file tree).
func newTestRegistry(files testTree) *Registry {
	g := new(Registry)
	g.RegisterRoot(&Root{Scheme: "memory", Open: func(ctx context.Context, u SubURL, env *Env) (driver.Location, error) {
		return driver.Location{Tree: files, Path: u.Key()}, nil
	}})
	g.RegisterAdapter(&Adapter{Scheme: "test.pass", OpenFile: func(ctx context.Context, in driver.Blob, u SubURL, env *Env) (driver.Location, error) {
		return driver.Location{Blob: in}, nil
	}})
	g.RegisterAdapter(&Adapter{Scheme: "test.dir", OpenFile: func(ctx context.Context, in driver.Blob, u SubURL, env *Env) (driver.Location, error) {
		b, err := readFull(ctx, in, int(in.Stat().Size()), 0)
		if err != nil {
			return driver.Location{}, err
		}
		return driver.Location{Tree: testTree{"inner": string(b)}, Path: u.Key()}, nil
	}})
	return g
}

func TestRegisterDuplicatePanics(t *testing.T) {
	g := newTestRegistry(nil)
	for name, f := range map[string]func(){
		"root": func() {
			g.RegisterRoot(&Root{Scheme: "memory", Open: func(context.Context, SubURL, *Env) (driver.Location, error) { return driver.Location{}, nil }})
		},
		"adapter": func() {
			g.RegisterAdapter(&Adapter{Scheme: "test.pass", OpenFile: func(context.Context, driver.Blob, SubURL, *Env) (driver.Location, error) {
				return driver.Location{}, nil
			}})
		},
		"nil root": func() { g.RegisterRoot(nil) },
		"adapter root": func() {
			g.RegisterRoot(&Root{Scheme: "zip", Open: func(context.Context, SubURL, *Env) (driver.Location, error) { return driver.Location{}, nil }})
		},
		"bad scheme": func() {
			g.RegisterRoot(&Root{Scheme: "tar", Open: func(context.Context, SubURL, *Env) (driver.Location, error) { return driver.Location{}, nil }})
		},
		"upper scheme": func() {
			g.RegisterAdapter(&Adapter{Scheme: "Zip", OpenFile: func(context.Context, driver.Blob, SubURL, *Env) (driver.Location, error) {
				return driver.Location{}, nil
			}})
		},
		"format twice": func() {
			f := &Format{Name: "x", Adapter: "test.pass:", Input: KindFile, Magic: "x"}
			g.RegisterFormat(f)
			g.RegisterFormat(f)
		},
		"format no sig": func() { g.RegisterFormat(&Format{Name: "y", Adapter: "test.pass:", Input: KindFile}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		})
	}
}

func TestUnknownScheme(t *testing.T) {
	o := &Options{Registry: newTestRegistry(testTree{"a": "x"})}
	_, err := Open(context.Background(), "memory:a|gzip:", o)
	if !errors.Is(err, ErrUnknownScheme) {
		t.Fatalf("OpenFile = %v, want ErrUnknownScheme", err)
	}
	var se *StageError
	if !errors.As(err, &se) || se.Index != 1 || se.URL != "gzip:" {
		t.Errorf("OpenFile error = %v, want a StageError for sub-URL 1 gzip:", err)
	}
	if _, err := Open(context.Background(), "file:/x", o); !errors.Is(err, ErrUnknownScheme) {
		t.Errorf("Open(file:/x) = %v, want ErrUnknownScheme", err)
	}
}

// TestUnknownSchemeNamesPackage checks that the error for a scheme that is
// not registered names the package to import when a pipefs package
// implements the scheme, and lists the registered schemes either way.
func TestUnknownSchemeNamesPackage(t *testing.T) {
	o := &Options{Registry: newTestRegistry(testTree{"a": "x"})}
	tests := []struct {
		pipeline string
		want     string
	}{
		{"memory:a|gzip:", `unknown scheme "gzip": import _ "github.com/pipefs/pipefs/adapters/gzipadapter" (or github.com/pipefs/pipefs/all); registered schemes are memory, test.dir, test.pass`},
		{"s3://bucket/a", `unknown scheme "s3": import _ "github.com/pipefs/pipefs/roots/s3root" (or github.com/pipefs/pipefs/all); registered schemes are memory, test.dir, test.pass`},
		{"https://example.com/a", `unknown scheme "https": import _ "github.com/pipefs/pipefs/roots/httproot" (or github.com/pipefs/pipefs/all)`},
		{"memory:a|hdf5:", `unknown scheme "hdf5": import _ "github.com/pipefs/pipefs/adapters/hdf5adapter" (or github.com/pipefs/pipefs/all)`},
		// No pipefs package implements this one.
		{"memory:a|test.other:", `unknown scheme "test.other": registered schemes are memory, test.dir, test.pass (forgotten import?)`},
		// A registered scheme near the one asked for.
		{"memory:a|test.dirr:", `unknown scheme "test.dirr": did you mean "test.dir"?`},
	}
	for _, tt := range tests {
		_, err := Open(context.Background(), tt.pipeline, o)
		if !errors.Is(err, ErrUnknownScheme) {
			t.Errorf("Open(%s) = %v, want ErrUnknownScheme", tt.pipeline, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%s) error\n%s\ndoes not contain\n%s", tt.pipeline, err, tt.want)
		}
	}
}

// TestUnknownSchemeSuggests: a scheme that is neither standard nor a
// vendor scheme fails to parse; opening it suggests the nearest registered
// scheme.
func TestUnknownSchemeSuggests(t *testing.T) {
	o := &Options{Registry: newTestRegistry(testTree{"a": "x"})}
	for pipeline, want := range map[string]string{
		"memory:a|pass:": `unknown scheme "pass": not a standard scheme, and not a vendor scheme of the form vendor.name; did you mean "test.pass"?`,
		"memory:a|dri:":  `did you mean "test.dir"?`,
		"memroy:a":       `did you mean "memory"?`,
		"memory:a|qqqq:": `vendor.name`,
	} {
		for _, open := range []func(context.Context, string, *Options) error{
			func(ctx context.Context, p string, o *Options) error { _, err := Open(ctx, p, o); return err },
			func(ctx context.Context, p string, o *Options) error { _, err := Open(ctx, p, o); return err },
			func(ctx context.Context, p string, o *Options) error { _, err := OpenFS(ctx, p, o); return err },
		} {
			err := open(context.Background(), pipeline, o)
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("open %s = %v, want a SyntaxError ending %q", pipeline, err, want)
			}
		}
	}
}

func TestStageErrorNamesFailingSubURL(t *testing.T) {
	o := &Options{Registry: newTestRegistry(testTree{"d/a": "abc"})}
	tests := []struct {
		pipeline string
		index    int
		url      string
		is       error
	}{
		{"memory:d/missing|test.pass:", 0, "memory:d/missing", fs.ErrNotExist},
		{"memory:d/a|test.dir:nope", 1, "test.dir:nope", fs.ErrNotExist},
		{"memory:d|test.pass:", 0, "memory:d", ErrIsDir},
	}
	for _, tc := range tests {
		_, err := Open(context.Background(), tc.pipeline, o)
		var se *StageError
		if !errors.As(err, &se) || se.Index != tc.index || se.URL != tc.url || !errors.Is(err, tc.is) {
			t.Errorf("Open(%q) = %v, want a StageError at %d %q matching %v", tc.pipeline, err, tc.index, tc.url, tc.is)
			continue
		}
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Op != "open" || !strings.Contains(err.Error(), tc.url) {
			t.Errorf("Open(%q) = %v, want a *fs.PathError naming %q", tc.pipeline, err, tc.url)
		}
	}
}

func TestDetection(t *testing.T) {
	files := testTree{"ab": "ABxx", "ac": "ACxx", "zz": "zzzz", "empty": ""}
	g := newTestRegistry(files)
	g.RegisterFormat(&Format{Name: "first", Adapter: "test.dir", Input: KindFile, Magic: "AB"})
	g.RegisterFormat(&Format{Name: "second", Adapter: "test.dir", Input: KindFile, Magic: "A?"})
	g.RegisterFormat(&Format{Name: "tail", Adapter: "test.dir", Input: KindFile, Tail: 2, Match: func(head, tail []byte, size int64) bool { return string(tail) == "zz" }})
	o := &Options{Registry: g}
	ctx := context.Background()

	fsys, err := OpenFS(ctx, "memory:ac", o)
	if err != nil {
		t.Fatalf("OpenFS(memory:ac) = %v", err)
	}
	if got, want := fsys.Pipeline().String(), "memory:ac|test.dir:"; got != want {
		t.Errorf("resolved pipeline = %q, want %q", got, want)
	}
	if b, err := fsys.ReadFile("inner"); err != nil || string(b) != "ACxx" {
		t.Errorf("ReadFile(inner) = %q, %v", b, err)
	}
	fsys.Close()

	if _, err := OpenFS(ctx, "memory:zz", o); err != nil {
		t.Errorf("OpenFS(memory:zz) = %v, want the tail format", err)
	}
	for i := 0; i < 20; i++ { // never depends on map order
		_, err := OpenFS(ctx, "memory:ab", o)
		if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "first, second") {
			t.Fatalf("OpenFS(memory:ab) = %v, want ErrUnknownFormat naming first, second", err)
		}
	}
	if _, err := OpenFS(ctx, "memory:empty", o); !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "first, second, tail") {
		t.Errorf("OpenFS(memory:empty) = %v, want ErrUnknownFormat listing the candidates", err)
	}
	if _, err := OpenFS(ctx, "memory:ac", &Options{Registry: g, NoDetect: true}); !errors.Is(err, ErrNotDir) {
		t.Errorf("OpenFS(memory:ac) with NoDetect = %v, want ErrNotDir", err)
	}
}

func TestMaxDepth(t *testing.T) {
	g := newTestRegistry(testTree{"a": "x"})
	o := &Options{Registry: g, Limits: Limits{MaxDepth: 3}}
	if _, err := Open(context.Background(), "memory:a|test.pass:|test.pass:", o); err != nil {
		t.Errorf("3 sub-URLs under MaxDepth 3: %v", err)
	}
	if _, err := Open(context.Background(), "memory:a|test.pass:|test.pass:|test.pass:", o); !errors.Is(err, ErrLimit) {
		t.Errorf("4 sub-URLs under MaxDepth 3: %v, want ErrLimit", err)
	}
}

func TestCancelledOpen(t *testing.T) {
	o := &Options{Registry: newTestRegistry(testTree{"a": "x"})}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(ctx, "memory:a", o); !errors.Is(err, context.Canceled) {
		t.Errorf("OpenFile with a cancelled context = %v, want context.Canceled", err)
	}
}

// lazyInfo is a FileInfo whose size is not known yet: asking for it fails
// the test.
type lazyInfo struct {
	driver.FileInfo
	t *testing.T
}

func (l *lazyInfo) Size() int64 {
	l.t.Error("Read asked for a size that is not known yet")
	return 1 << 40
}

func (l *lazyInfo) SizeKnown() bool { return false }

func TestReadDoesNotAskAnUnknownSize(t *testing.T) {
	g := new(Registry)
	g.RegisterRoot(&Root{Scheme: "memory", Open: func(ctx context.Context, u SubURL, env *Env) (driver.Location, error) {
		return driver.Location{Blob: driver.BytesBlob([]byte("streamed"), &lazyInfo{driver.FileInfo{FName: "s"}, t})}, nil
	}})
	f, err := Open(context.Background(), "memory:s", &Options{Registry: g})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "streamed" {
		t.Errorf("ReadAll = %q, %v; want %q", b, err, "streamed")
	}
}

func TestMaxOutput(t *testing.T) {
	l := Limits{}.Effective()
	for _, tc := range []struct{ in, want int64 }{{0, 0}, {-5, 0}, {10, 11000}, {1 << 62, 1<<63 - 1}} {
		if got := l.MaxOutput(tc.in); got != tc.want {
			t.Errorf("MaxOutput(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestMaxOutputSlack: the bound is the ratio plus slack, and never below
// RatioFloor; a negative floor leaves the ratio alone.
func TestMaxOutputSlack(t *testing.T) {
	def := Limits{}.Effective()
	small := Limits{RatioFloor: 1 << 20}.Effective()
	for _, tc := range []struct {
		l        Limits
		in, want int64
	}{
		{def, 10, DefaultRatioFloor},
		{def, 10 << 20, 11000<<20 + 64<<10},
		{small, 0, 1 << 20},
		{small, 10 << 10, 11000<<10 + 64<<10},
		{Limits{RatioFloor: -1}.Effective(), 10, 1<<63 - 1},
		{Limits{MaxRatio: -1}.Effective(), 10, 1<<63 - 1},
	} {
		if got := tc.l.MaxOutputSlack(tc.in); got != tc.want {
			t.Errorf("Limits{MaxRatio: %d, RatioFloor: %d}.MaxOutputSlack(%d) = %d, want %d", tc.l.MaxRatio, tc.l.RatioFloor, tc.in, got, tc.want)
		}
	}
	err := def.RatioError("zstd frame 0", 10)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "Limits.MaxRatio") || !strings.Contains(err.Error(), "Limits.RatioFloor") {
		t.Errorf("RatioError = %v, want ErrLimit naming both fields", err)
	}
}

func TestNearestScheme(t *testing.T) {
	schemes := []string{"file", "gzip", "memory", "pipefs.bzip2", "pipefs.tar", "pipefs.xz", "zip", "zstd"}
	for s, want := range map[string]string{"tar": "pipefs.tar", "TAR": "pipefs.tar", "xz": "pipefs.xz", "bz2": "pipefs.bzip2",
		"gzp": "gzip", "zst": "zstd", "fiel": "file", "hdf5": "", "rar7z": ""} {
		if got := nearestScheme(s, schemes); got != want {
			t.Errorf("nearestScheme(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestUncleanPath: a member path that is not an io/fs name is refused
// with the reason and, when cleaning helps, the name meant.
func TestUncleanPath(t *testing.T) {
	o := &Options{Registry: newTestRegistry(testTree{"a": "x"})}
	for pipeline, want := range map[string]string{
		"memory:a|test.dir:./inner/":   `"./inner" is not a clean path (no ".", ".." or empty element); did you mean "inner"?`,
		"memory:a|test.dir:.//inner":   `did you mean "inner"?`,
		"memory:a|test.dir:x/../inner": `did you mean "inner"?`,
		"memory:a|test.dir:../inner":   `"../inner" leaves the top of its tree`,
	} {
		_, err := Open(context.Background(), pipeline, o)
		if !errors.Is(err, fs.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) = %v, want fs.ErrInvalid saying %q", pipeline, err, want)
		}
	}
	f, err := Open(context.Background(), "memory:a|test.dir:inner", o)
	if err != nil {
		t.Fatalf("Open(clean) = %v", err)
	}
	f.Close()
}
