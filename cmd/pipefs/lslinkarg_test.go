package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// TestLsLinkArgs: a symbolic link given to ls as an argument is listed as
// coreutils ls lists it. ls -l shows the link itself, "l" in its mode and
// "ARG -> target", whether it leads to a directory or a file; ls -l
// LINK/ and ls LINK without -l list the directory the link leads to. The
// links are local ones, the same in a tar written by bsdtar and in a zip
// written by zip -y, and coreutils ls run on the local ones says what to
// expect.
func TestLsLinkArgs(t *testing.T) {
	bsdtar, zipTool, ls := fstest.NeedTool(t, "bsdtar"), fstest.NeedTool(t, "zip"), fstest.NeedTool(t, "ls")
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	for name, body := range map[string]string{"sub/a.txt": "a\n", "sub/b.txt": "bb\n", "target.txt": "t\n"} {
		name = filepath.Join(tree, name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"dirlink": "sub", "filelink": "target.txt"} {
		if err := os.Symlink(target, filepath.Join(tree, name)); err != nil {
			t.Fatal(err)
		}
	}
	tarFile, zipFile := filepath.Join(dir, "x.tar"), filepath.Join(dir, "x.zip")
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = tree
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		return string(out)
	}
	run(bsdtar, "-cf", tarFile, "sub", "target.txt", "dirlink", "filelink")
	run(zipTool, "-qry", zipFile, "sub", "target.txt", "dirlink", "filelink")

	// ls -l of a link: its mode and "NAME -> TARGET", as coreutils shows
	// them.
	for _, link := range []string{"dirlink", "filelink"} {
		want := strings.Fields(run(ls, "-l", link))
		wantMode, wantTarget := want[0], strings.Join(want[len(want)-2:], " ")
		if !strings.HasPrefix(wantMode, "l") || want[len(want)-2] != "->" {
			t.Fatalf("coreutils ls -l %s: %q", link, want)
		}
		for _, arg := range []string{
			filepath.Join(tree, link),
			tarFile + "|pipefs.tar:" + link,
			zipFile + "|zip:" + link,
		} {
			out := mustRun(t, "ls", "-l", arg)
			got := strings.Fields(out)
			if strings.Count(out, "\n") != 1 || len(got) < 4 || got[1] != wantMode ||
				!strings.HasSuffix(out, "  "+arg+" "+wantTarget+"\n") {
				t.Errorf("ls -l %s:\n%s\nwant one line, mode %s, ending %q (coreutils ls -l %s)", arg, out, wantMode, arg+" "+wantTarget, link)
			}
		}
	}

	// Through the link to a directory: what coreutils lists. (pipefs
	// does not follow zip symlinks.)
	wantNames := run(ls, "dirlink")
	wantLong := run(ls, "-l", "dirlink/")
	for _, arg := range []string{filepath.Join(tree, "dirlink"), tarFile + "|pipefs.tar:dirlink"} {
		if out := mustRun(t, "ls", arg); out != wantNames {
			t.Errorf("ls %s:\n%s\nwant, as coreutils ls dirlink:\n%s", arg, out, wantNames)
		}
		out := mustRun(t, "ls", "-l", arg+"/")
		if names(out) != names(wantLong) {
			t.Errorf("ls -l %s/:\n%s\nwant the names coreutils ls -l dirlink/ lists:\n%s", arg, out, wantLong)
		}
	}
}

// names are the last fields of the lines of an ls -l listing, without a
// "total" line, a directory's trailing "/" left out.
func names(listing string) string {
	var s []string
	for _, line := range strings.Split(strings.TrimSuffix(listing, "\n"), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == "total" {
			continue
		}
		s = append(s, strings.TrimSuffix(f[len(f)-1], "/"))
	}
	return strings.Join(s, "\n")
}
