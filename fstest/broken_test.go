package fstest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// A kit that cannot fail proves nothing. These tests run the kit on trees
// with one bug each, in a child process (a failing Run fails its test, and
// a test cannot observe its own failure), and check that the child fails
// in the check that owns the bug, with a message that explains it.

// brokenEnv names the bug the child test plants; the child test skips
// itself when it is not set.
const brokenEnv = "PIPEFS_FSTEST_BROKEN"

// bugs lists the planted bugs, what must fail, and what the log must say.
var bugs = []struct {
	name   string
	fail   []string // subtests that must fail ("" for none: the tree is correct)
	saying string   // a substring of the log
}{
	{"none", nil, ""},
	{"readat-ignores-offset", []string{"testfs", "readat", "seek", "file/read", "file/readat", "file/seek", "file/url"}, `ReadAt(12, 1) = "h"`},
	{"readat-short-nil", []string{"readat", "file/readat"}, "want io.EOF after a short read"},
	{"readat-wrapped-eof", []string{"readat", "file/read", "file/readat"}, "want io.EOF after a short read"},
	{"readat-partial", []string{"readat", "file/readat"}, "a short read needs an error"},
	{"stat-size", []string{"testfs", "contents"}, `Stat("hello.txt").Size() = 14, want 13`},
	{"phantom-entry", []string{"testfs", "contents", "url"}, `the tree lists "ghost", which the exhaustive case does not expect`},
	{"missing-untyped", []string{"errors"}, "want errors.Is(err, file does not exist)"},
	{"lists-files", []string{"errors"}, `ReadDir("hello.txt") error = nil`},
	{"unsorted", []string{"testfs"}, "testing/fstest.TestFS"},
	{"blob-size", []string{"file/stat"}, `Stat().Size() = 5001, want 5000`},
	{"root-ignores-path", []string{"url"}, `vfs.Open(URL("hello.txt") = "pipefs.broken:/hello.txt") error = `},
}

// brokenFiles is the tree the child checks.
var brokenFiles = map[string][]byte{
	"hello.txt": []byte("hello, world\n"),
	"d/a.txt":   []byte("0123456789abcdef"),
	"d/b.txt":   []byte(strings.Repeat("b", 5000)),
	"empty":     {},
}

func TestKitCatchesBugs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process per bug")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("os.Executable: %v", err)
	}
	for _, bug := range bugs {
		t.Run(bug.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), exe, "-test.run=^TestBrokenChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), brokenEnv+"="+bug.name)
			out, err := cmd.CombinedOutput()
			log := string(out)
			if bug.fail == nil {
				if err != nil {
					t.Fatalf("the kit fails a correct tree: %v\n%s", err, log)
				}
				if !strings.Contains(log, "--- PASS: TestBrokenChild ") {
					t.Fatalf("the child did not run the kit:\n%s", log)
				}
				return
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("the kit passes a tree with bug %q (err %v):\n%s", bug.name, err, log)
			}
			for _, check := range bug.fail {
				if !strings.Contains(log, "--- FAIL: TestBrokenChild/"+check+" ") {
					t.Errorf("bug %q: subtest %q did not fail", bug.name, check)
				}
			}
			if !strings.Contains(log, bug.saying) {
				t.Errorf("bug %q: the log does not say %q", bug.name, bug.saying)
			}
			if t.Failed() {
				t.Logf("child log (tail):\n%s", tail(log, 8000))
			}
		})
	}
}

// TestBrokenChild is the child of TestKitCatchesBugs: Run on the tree,
// then RunFile, as the subtest "file", on one of its files.
func TestBrokenChild(t *testing.T) {
	bug := os.Getenv(brokenEnv)
	if bug == "" {
		t.Skip("run by TestKitCatchesBugs")
	}
	prefix := fstest.MapFiles(t, brokenFiles)
	reg := new(vfs.Registry)
	reg.RegisterRoot(&vfs.Root{Scheme: "pipefs.broken", Open: func(ctx context.Context, u vfs.SubURL, env *vfs.Env) (driver.Location, error) {
		name := u.Key()
		if bug == "root-ignores-path" {
			name = "."
		}
		return driver.Location{Tree: &brokenTree{driver.SubTree(memroot.Default(), prefix), bug}, Path: name}, nil
	}})
	fstest.Run(t, fstest.Case{
		Pipeline:   "pipefs.broken:/",
		Options:    &vfs.Options{Registry: reg},
		Files:      brokenFiles,
		Exhaustive: true,
	})
	t.Run("file", func(t *testing.T) {
		fstest.RunFile(t, fstest.FileCase{
			Pipeline: "pipefs.broken:/d/b.txt",
			Options:  &vfs.Options{Registry: reg},
			Data:     brokenFiles["d/b.txt"],
		})
	})
}

// brokenTree is a correct tree with one bug planted.
type brokenTree struct {
	driver.Tree
	bug string
}

func (t *brokenTree) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	info, err := t.Tree.Stat(ctx, name)
	switch {
	case t.bug == "missing-untyped" && errors.Is(err, fs.ErrNotExist):
		return nil, errors.New("no such thing")
	case t.bug == "stat-size" && err == nil && !info.IsDir():
		return &driver.FileInfo{FName: info.Name(), FSize: info.Size() + 1, FMode: info.Mode(), FModTime: info.ModTime()}, nil
	}
	return info, err
}

func (t *brokenTree) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	ents, err := t.Tree.ReadDir(ctx, name)
	switch {
	case t.bug == "lists-files" && errors.Is(err, vfs.ErrNotDir):
		return nil, nil
	case t.bug == "phantom-entry" && name == "." && err == nil:
		ents = append(ents, &driver.FileInfo{FName: "ghost", FSize: 3})
	case t.bug == "unsorted" && err == nil && len(ents) > 1:
		ents[0], ents[1] = ents[1], ents[0]
	}
	return ents, err
}

func (t *brokenTree) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	b, err := t.Tree.OpenBlob(ctx, name)
	if t.bug == "missing-untyped" && errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("no such thing")
	}
	if err != nil {
		return nil, err
	}
	return &brokenBlob{b, t.bug}, nil
}

type brokenBlob struct {
	driver.Blob
	bug string
}

func (b *brokenBlob) Stat() fs.FileInfo {
	info := b.Blob.Stat()
	if b.bug == "blob-size" && info.Name() == "b.txt" {
		return &driver.FileInfo{FName: info.Name(), FSize: info.Size() + 1, FMode: info.Mode(), FModTime: info.ModTime()}
	}
	return info
}

func (b *brokenBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	switch b.bug {
	case "readat-ignores-offset":
		off = 0
	case "readat-partial":
		// A short read in the middle with no error: io.ReaderAt forbids it.
		if len(p) > 1 && off+int64(len(p)) < b.Stat().Size() {
			p = p[:len(p)/2]
		}
	}
	n, err := b.Blob.ReadAt(ctx, p, off)
	switch {
	case b.bug == "readat-short-nil" && err == io.EOF && n > 0:
		err = nil
	case b.bug == "readat-wrapped-eof" && err == io.EOF:
		err = fmt.Errorf("end: %w", io.EOF)
	}
	return n, err
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
