package fstest

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"
	stdfstest "testing/fstest"

	"github.com/pipefs/pipefs/vfs"
)

// A Case describes one tree to check: the pipeline that opens it and what
// it must hold.
type Case struct {
	// Pipeline is opened with vfs.OpenFS. Its schemes must be registered
	// in Options.Registry (the default registry when nil): the test that
	// calls Run imports the root and adapter packages it uses.
	Pipeline string

	// Options are passed to every vfs.OpenFS and vfs.Open call the
	// kit makes. Nil means defaults.
	Options *vfs.Options

	// Files maps the fs names of the regular files that the tree must
	// hold, relative to its root, to their contents. Every parent of a
	// name is an expected directory.
	Files map[string][]byte

	// Dirs names more directories that the tree must hold, such as empty
	// ones. Parents of Files need not be listed.
	Dirs []string

	// Exhaustive says that Files and Dirs list the whole tree: a file or
	// directory that the tree lists beyond them is an error.
	Exhaustive bool

	// Skip names checks not to run, for a driver that cannot pass one
	// yet: a group such as "errors" or one part of it such as
	// "errors/file-as-dir" (CheckNames lists them all). An unknown name
	// fails the test.
	Skip []string
}

// A check is one group of conformance checks, run as a subtest.
type check struct {
	name  string
	run   func(t *testing.T, k *kit)
	parts []string // subtests that Case.Skip can name one by one
}

// checks are the kit's checks in the order Run runs them. testing/fstest
// comes first: when it fails, the rest explains why.
var checks = []check{
	{name: "testfs", run: checkTestFS},
	{name: "contents", run: checkContents},
	{name: "readat", run: checkReadAt},
	{name: "seek", run: checkSeek},
	{name: "errors", run: checkErrors, parts: []string{"missing", "under-file", "invalid", "dir-as-file", "file-as-dir"}},
	{name: "url", run: checkURL},
	{name: "context", run: checkContext},
	{name: "sub", run: checkSub},
	{name: "close", run: checkClose},
}

// CheckNames returns the names of the checks Run runs, in order, each
// group followed by its parts ("errors", "errors/missing", ...); they are
// the names of its subtests and the values Case.Skip accepts.
func CheckNames() []string {
	var names []string
	for _, c := range checks {
		names = append(names, c.name)
		for _, p := range c.parts {
			names = append(names, c.name+"/"+p)
		}
	}
	return names
}

// kit is the state the checks share: the case, the opened FS and the
// expected names.
type kit struct {
	c     Case
	fsys  *vfs.FS
	files []string // expected regular files, sorted
	dirs  []string // expected directories, "." included, sorted
	skip  map[string]bool
}

// part runs fn as the subtest name of the check group, unless Case.Skip
// names it.
func (k *kit) part(t *testing.T, group, name string, fn func(t *testing.T)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		if k.skip[group+"/"+name] {
			t.Skip("skipped by Case.Skip")
		}
		fn(t)
	})
}

// Run opens c.Pipeline with vfs.OpenFS, runs testing/fstest.TestFS on the
// result, then the kit's own checks, each as a subtest of t. The FS is
// closed when t's cleanup runs. Run fails t (and runs no check) when the
// case is malformed or the pipeline does not open.
func Run(t *testing.T, c Case) {
	t.Helper()
	k, err := newKit(c)
	if err != nil {
		t.Fatalf("fstest.Run: %v", err)
	}
	k.skip = map[string]bool{}
	for _, name := range c.Skip {
		if !slices.Contains(CheckNames(), name) {
			t.Fatalf("fstest.Run: Skip names unknown check %q; the checks are %s", name, strings.Join(CheckNames(), ", "))
		}
		k.skip[name] = true
	}
	c.Options = direct(c.Options)
	fsys, err := vfs.OpenFS(t.Context(), c.Pipeline, c.Options)
	if err != nil {
		t.Fatalf("vfs.OpenFS(%q) error = %v", c.Pipeline, err)
	}
	t.Cleanup(func() {
		if err := fsys.Close(); err != nil {
			t.Errorf("Close() of the FS of %q = %v, want nil", c.Pipeline, err)
		}
	})
	k.fsys = fsys
	for _, ch := range checks {
		t.Run(ch.name, func(t *testing.T) {
			if k.skip[ch.name] {
				t.Skip("skipped by Case.Skip")
			}
			ch.run(t, k)
		})
	}
}

// newKit validates c and derives the expected names.
func newKit(c Case) (*kit, error) {
	if c.Pipeline == "" {
		return nil, fmt.Errorf("Case.Pipeline is empty")
	}
	dirs := map[string]bool{".": true}
	addParents := func(name string) {
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for name := range c.Files {
		if !fs.ValidPath(name) || name == "." {
			return nil, fmt.Errorf("Case.Files has %q, not a valid fs name of a file", name)
		}
		addParents(name)
	}
	for _, name := range c.Dirs {
		if !fs.ValidPath(name) {
			return nil, fmt.Errorf("Case.Dirs has %q, not a valid fs name", name)
		}
		dirs[name] = true
		addParents(name)
	}
	for name := range c.Files {
		if dirs[name] {
			return nil, fmt.Errorf("Case names %q both as a file and as a directory", name)
		}
	}
	return &kit{
		c:     c,
		files: slices.Sorted(maps.Keys(c.Files)),
		dirs:  slices.Sorted(maps.Keys(dirs)),
	}, nil
}

// expectedUnder returns the expected files and directories below dir (not
// dir itself), relative to dir, sorted.
func (k *kit) expectedUnder(dir string) []string {
	var names []string
	rel := func(name string) (string, bool) {
		if dir == "." {
			return name, name != "."
		}
		r, ok := strings.CutPrefix(name, dir+"/")
		return r, ok
	}
	for _, list := range [][]string{k.files, k.dirs} {
		for _, name := range list {
			if r, ok := rel(name); ok {
				names = append(names, r)
			}
		}
	}
	slices.Sort(names)
	return names
}

// sampleFiles returns at most n of the expected files, spread over the
// sorted list and always including the largest, for checks that are too
// costly to run on every file of a big tree.
func (k *kit) sampleFiles(n int) []string {
	if len(k.files) <= n {
		return k.files
	}
	largest := slices.MaxFunc(k.files, func(a, b string) int { return len(k.c.Files[a]) - len(k.c.Files[b]) })
	out := []string{largest}
	step := float64(len(k.files)) / float64(n-1)
	for i := range n - 1 {
		if name := k.files[int(float64(i)*step)]; name != largest {
			out = append(out, name)
		}
	}
	return out
}

// checkTestFS runs testing/fstest.TestFS with every expected name. With
// none expected and a case that is not exhaustive, it passes the names the
// tree lists, since TestFS given no names wants an empty tree.
func checkTestFS(t *testing.T, k *kit) {
	names := k.expectedUnder(".")
	if len(names) == 0 && !k.c.Exhaustive {
		found, err := walk(k.fsys)
		if err != nil {
			t.Errorf("fs.WalkDir(fsys, \".\") error = %v", err)
		}
		delete(found, ".")
		names = slices.Sorted(maps.Keys(found))
	}
	if err := stdfstest.TestFS(k.fsys, names...); err != nil {
		t.Errorf("testing/fstest.TestFS(%q, %d names) failed:\n%v", k.c.Pipeline, len(names), err)
	}
}

// walk lists every name of fsys, "." included, with whether it is a
// directory.
func walk(fsys fs.FS) (map[string]bool, error) {
	found := map[string]bool{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		found[name] = d.IsDir()
		return nil
	})
	return found, err
}

// direct returns a copy of o (the defaults when nil) with NoReadAhead set,
// so that the kit's reads reach the driver as the checks make them.
func direct(o *vfs.Options) *vfs.Options {
	d := new(vfs.Options)
	if o != nil {
		*d = *o
	}
	d.NoReadAhead = true
	return d
}
