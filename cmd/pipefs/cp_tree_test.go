package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
)

// A treeEntry is one entry of a test archive: a directory (name ending
// in "/"), a file, or a symbolic link (link set).
type treeEntry struct {
	name, body, link string
	mode             fs.FileMode // permission bits
	mod              time.Time
}

// treeEntries is a tree with nested directories, files of several modes
// and times, and relative links that stay inside it.
func treeEntries() []treeEntry {
	t0 := time.Date(2023, 5, 6, 7, 8, 9, 0, time.UTC)
	return []treeEntry{
		{name: "a.txt", body: "alpha\n", mode: 0o644, mod: t0},
		{name: "bin/", mode: 0o755, mod: t0.Add(time.Hour)},
		{name: "bin/run.sh", body: "#!/bin/sh\necho run\n", mode: 0o755, mod: t0.Add(2 * time.Hour)},
		{name: "sub/", mode: 0o750, mod: t0.Add(3 * time.Hour)},
		{name: "sub/deep/", mode: 0o700, mod: t0.Add(4 * time.Hour)},
		{name: "sub/deep/secret.txt", body: strings.Repeat("secret ", 5000), mode: 0o600, mod: t0.Add(5 * time.Hour)},
		{name: "sub/empty.txt", body: "", mode: 0o640, mod: t0.Add(6 * time.Hour)},
		{name: "sub/up", link: "../a.txt", mode: 0o777, mod: t0},
		{name: "to-run", link: "bin/run.sh", mode: 0o777, mod: t0},
		{name: "sub/deep/here", link: "./secret.txt", mode: 0o777, mod: t0},
	}
}

// zipTree writes entries as a zip archive.
func zipTree(t *testing.T, entries []treeEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: e.mod}
		body := e.body
		switch {
		case strings.HasSuffix(e.name, "/"):
			h.Method = zip.Store
			h.SetMode(fs.ModeDir | e.mode)
		case e.link != "":
			h.Method = zip.Store
			h.SetMode(fs.ModeSymlink | e.mode)
			body = e.link
		default:
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tarTree writes entries as a tar archive, with headers' extra entries
// (devices, FIFOs) appended.
func tarTree(t *testing.T, entries []treeEntry, extra ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: int64(e.mode), ModTime: e.mod, Format: tar.FormatPAX}
		switch {
		case strings.HasSuffix(e.name, "/"):
			h.Typeflag = tar.TypeDir
		case e.link != "":
			h.Typeflag, h.Linkname = tar.TypeSymlink, e.link
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range extra {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(make([]byte, h.Size)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCpTreeLikeBsdtar copies a zip and a tar archive with cp -R and
// compares the result, file by file, with what bsdtar extracts from the
// same archive: types, contents, permission bits, modification times and
// link targets.
func TestCpTreeLikeBsdtar(t *testing.T) {
	bsdtar := fstest.NeedTool(t, "bsdtar")
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"a.zip", zipTree(t, treeEntries())},
		{"a.tar", tarTree(t, treeEntries())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			archive := filepath.Join(dir, tc.name)
			if err := os.WriteFile(archive, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(dir, tc.name+".bsdtar")
			if err := os.Mkdir(want, 0o755); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bsdtar, "-x", "-p", "-f", archive, "-C", want).CombinedOutput(); err != nil {
				t.Fatalf("bsdtar: %v\n%s", err, out)
			}
			got := filepath.Join(dir, tc.name+".pipefs")
			mustRun(t, "cp", "-R", archive, got)
			compareTrees(t, want, got)

			// Into an existing directory: DEST/NAME, NAME the archive's
			// name without its extension.
			into := filepath.Join(dir, tc.name+".into")
			if err := os.Mkdir(into, 0o755); err != nil {
				t.Fatal(err)
			}
			mustRun(t, "cp", "-R", archive, into)
			compareTrees(t, want, filepath.Join(into, "a"))
		})
	}
}

// compareTrees fails t unless the trees below want and got hold the same
// entries with the same types, contents, permission bits, modification
// times (of files and directories) and link targets.
func compareTrees(t *testing.T, want, got string) {
	t.Helper()
	seen := map[string]bool{}
	filepath.WalkDir(want, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(want, p)
		if rel == "." {
			return nil
		}
		seen[rel] = true
		w, _ := os.Lstat(p)
		g, err := os.Lstat(filepath.Join(got, rel))
		if err != nil {
			t.Errorf("%s: bsdtar extracts it, cp -R did not copy it: %v", rel, err)
			return nil
		}
		if w.Mode() != g.Mode() {
			t.Errorf("%s: mode %v, bsdtar gives %v", rel, g.Mode(), w.Mode())
		}
		switch {
		case w.Mode()&fs.ModeSymlink != 0:
			wl, _ := os.Readlink(p)
			gl, _ := os.Readlink(filepath.Join(got, rel))
			if wl != gl {
				t.Errorf("%s: link to %q, bsdtar gives %q", rel, gl, wl)
			}
			return nil
		case w.Mode().IsRegular():
			wb, _ := os.ReadFile(p)
			gb, _ := os.ReadFile(filepath.Join(got, rel))
			if !bytes.Equal(wb, gb) {
				t.Errorf("%s: %d bytes differ from bsdtar's %d", rel, len(gb), len(wb))
			}
		}
		if !w.ModTime().Equal(g.ModTime()) {
			t.Errorf("%s: modified %v, bsdtar gives %v", rel, g.ModTime(), w.ModTime())
		}
		return nil
	})
	filepath.WalkDir(got, func(p string, d fs.DirEntry, err error) error {
		if rel, _ := filepath.Rel(got, p); rel != "." && !seen[rel] {
			t.Errorf("%s: cp -R copied it, bsdtar does not extract it", rel)
		}
		return nil
	})
}

// TestCpHostile copies zip and tar archives built to write outside the
// destination: names with "..", absolute names, a NUL, an element too long
// for a local name, links to absolute paths and out of the tree, a link
// then a member below it, a device and a FIFO. Each refused entry is
// named on stderr, the rest is copied, the exit status is 1, and the
// directory outside stays untouched.
func TestCpHostile(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	long := strings.Repeat("n", 300)
	common := []treeEntry{
		{name: "ok.txt", body: "fine\n", mode: 0o644, mod: t0},
		{name: "../evil", body: "evil\n", mode: 0o644, mod: t0},
		{name: "/abs-evil", body: "evil\n", mode: 0o644, mod: t0},
		{name: "sub/../../evil2", body: "evil\n", mode: 0o644, mod: t0},
		{name: "s", link: outside, mode: 0o777, mod: t0},
		{name: "s/x", body: "through the link\n", mode: 0o644, mod: t0},
		{name: "abs", link: outside, mode: 0o777, mod: t0},
		{name: "esc", link: "../outside", mode: 0o777, mod: t0},
		{name: "mid", link: "sub/../../outside", mode: 0o777, mod: t0},
		{name: "long/" + long, body: "long\n", mode: 0o644, mod: t0},
	}
	zipEntries := append(common, treeEntry{name: "nul\x00name", body: "nul\n", mode: 0o644, mod: t0})
	archives := []struct {
		name    string
		data    []byte
		refused []string // what stderr must name
	}{
		{"hostile.zip", zipTree(t, zipEntries), []string{"../evil", "/abs-evil", "sub/../../evil2", "abs", "esc", "mid", long, "nul"}},
		{"hostile.tar", tarTree(t, common,
			&tar.Header{Name: "dev", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3, Mode: 0o666},
			&tar.Header{Name: "fifo", Typeflag: tar.TypeFifo, Mode: 0o644},
		), []string{"../evil", "/abs-evil", "sub/../../evil2", "abs", "esc", "mid", long, "dev", "fifo"}},
	}
	for _, tc := range archives {
		t.Run(tc.name, func(t *testing.T) {
			archive := filepath.Join(dir, tc.name)
			if err := os.WriteFile(archive, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			dest := filepath.Join(dir, "dest-"+tc.name)
			r := runCLI(t, "cp", "-R", archive, dest)
			if r.code != 1 {
				t.Errorf("cp -R of a hostile archive: exit %d, want 1; stderr:\n%s", r.code, r.stderr)
			}
			for _, name := range tc.refused {
				if !strings.Contains(r.stderr, name) {
					t.Errorf("stderr does not name the refused entry %q:\n%s", name, r.stderr)
				}
			}
			for _, line := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
				if !strings.HasPrefix(line, "pipefs: ") {
					t.Errorf("stderr line %q is not a pipefs error", line)
				}
			}
			checkFile(t, filepath.Join(dest, "ok.txt"), []byte("fine\n"))
			if st, err := os.Lstat(filepath.Join(dest, "s")); err != nil || !st.IsDir() {
				t.Errorf("%s/s: %v, %v; want the directory that s/x implies", dest, st, err)
			}
			checkInside(t, dest)

			// A link that points outside, already in the destination, is
			// not written through.
			again := filepath.Join(dir, "again-"+tc.name)
			if err := os.Mkdir(again, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(again, "s")); err != nil {
				t.Fatal(err)
			}
			r = runCLI(t, "cp", "-R", "-T", archive, again)
			if r.code != 1 || !strings.Contains(r.stderr, "s/x") {
				t.Errorf("cp -R into a destination with a link out: exit %d, want 1 naming s/x; stderr:\n%s", r.code, r.stderr)
			}
			checkFile(t, filepath.Join(again, "ok.txt"), []byte("fine\n"))
		})
	}
	ents, err := os.ReadDir(outside)
	if err != nil || len(ents) != 0 {
		t.Errorf("the directory outside holds %v (%v), want nothing", ents, err)
	}
	for _, name := range []string{"evil", "evil2", "abs-evil"} {
		for _, d := range []string{dir, filepath.Dir(dir), "/"} {
			if _, err := os.Lstat(filepath.Join(d, name)); err == nil {
				t.Errorf("%s was written outside the destination", filepath.Join(d, name))
			}
		}
	}
}

// checkInside fails t if a link below dir points out of dir or to an
// absolute path.
func checkInside(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		target, _ := os.Readlink(p)
		resolved := filepath.Join(filepath.Dir(p), target)
		if filepath.IsAbs(target) || !strings.HasPrefix(resolved, dir+string(filepath.Separator)) {
			t.Errorf("%s links to %s, outside %s", p, target, dir)
		}
		return nil
	})
}

// TestCpLocalDir copies a local directory: its relative link is copied,
// the absolute one refused.
func TestCpLocalDir(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "sub", "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"rel": "sub/a.txt", "abs": "/etc"} {
		if err := os.Symlink(target, filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	dest := filepath.Join(t.TempDir(), "dest")
	r := runCLI(t, "cp", "-R", src, dest)
	if r.code != 1 || !strings.Contains(r.stderr, "abs -> /etc: its target is absolute") {
		t.Errorf("cp -R of a local directory: exit %d, stderr:\n%s\nwant 1 and the absolute link refused", r.code, r.stderr)
	}
	if got, err := os.Readlink(filepath.Join(dest, "rel")); err != nil || got != "sub/a.txt" {
		t.Errorf("the relative link: %q, %v", got, err)
	}
	checkFile(t, filepath.Join(dest, "rel"), []byte("a\n"))
	if _, err := os.Lstat(filepath.Join(dest, "abs")); err == nil {
		t.Errorf("the absolute link was copied")
	}
}
