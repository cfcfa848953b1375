package composition_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// TestRealWorldArchives compares pipefs with bsdtar on a corpus of
// archives that other tools wrote (scripts/corpus.sh gathers it; .ci/run
// sets PIPEFS_CORPUS): Debian data.tar.xz members and plain tars, jars,
// npm tarballs and Go module zips. For every archive, every entry that
// bsdtar extracts must be listed by pipefs, and nothing else: regular
// files with the same SHA-256, directories and symbolic links by
// presence. In CI (CI set) a missing corpus or bsdtar fails the test.
func TestRealWorldArchives(t *testing.T) {
	dir := os.Getenv("PIPEFS_CORPUS")
	bsdtar, err := exec.LookPath("bsdtar")
	switch {
	case os.Getenv("CI") != "" && (dir == "" || err != nil):
		t.Fatalf("CI needs PIPEFS_CORPUS (%q, from scripts/corpus.sh) and bsdtar (%v)", dir, err)
	case dir == "":
		t.Skip("PIPEFS_CORPUS is not set: run scripts/corpus.sh DIR and set PIPEFS_CORPUS=DIR")
	case err != nil:
		t.Skip("bsdtar is not installed (Debian package libarchive-tools)")
	}
	var archives []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && pipelineOf(p) != "" {
			archives = append(archives, p)
		}
		return err
	})
	if err != nil || len(archives) < 20 {
		t.Fatalf("corpus %s: %d archives, %v; want at least 20 (run scripts/corpus.sh)", dir, len(archives), err)
	}
	members, agree := 0, 0
	for _, a := range archives {
		rel, _ := filepath.Rel(dir, a)
		t.Run(rel, func(t *testing.T) {
			want := extractWithBsdtar(t, bsdtar, a)
			fsys, err := vfs.OpenFS(t.Context(), pipelineOf(a), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			got, err := describeTree(fsys)
			if err != nil {
				t.Errorf("walking %s: %v", pipelineOf(a), err)
			}
			members += len(want)
			var diff []string
			for name, w := range want {
				switch g, ok := got[name]; {
				case !ok:
					diff = append(diff, "missing "+name)
				case g != w:
					diff = append(diff, name+": "+g+", bsdtar "+w)
				default:
					agree++
				}
			}
			for name := range got {
				if _, ok := want[name]; !ok {
					diff = append(diff, "extra "+name)
				}
			}
			slices.Sort(diff)
			if len(diff) > 0 {
				t.Errorf("%s: %d of %d entries differ from bsdtar:\n%s", pipelineOf(a), len(diff), len(want), strings.Join(diff, "\n"))
			}
		})
	}
	t.Logf("%d archives, %d entries, %d agree with bsdtar", len(archives), members, agree)
}

// pipelineOf returns the pipeline that opens the archive at p as a tree,
// by its name, or "" if p is not an archive of the corpus.
func pipelineOf(p string) string {
	u := "file:" + filepath.ToSlash(p)
	switch {
	case strings.HasSuffix(p, ".tar"):
		return u + "|pipefs.tar:"
	case strings.HasSuffix(p, ".tar.gz"), strings.HasSuffix(p, ".tgz"):
		return u + "|gzip:|pipefs.tar:"
	case strings.HasSuffix(p, ".tar.xz"):
		return u + "|pipefs.xz:|pipefs.tar:"
	case strings.HasSuffix(p, ".zip"), strings.HasSuffix(p, ".jar"):
		return u + "|zip:"
	}
	return ""
}

// extractWithBsdtar extracts the archive with bsdtar into a temporary
// directory and describes what it wrote. bsdtar must succeed.
func extractWithBsdtar(t *testing.T, bsdtar, archive string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command(bsdtar, "-xf", archive, "-C", dir).CombinedOutput(); err != nil {
		t.Fatalf("bsdtar -xf %s: %v: %s", archive, err, out)
	}
	tree, err := describeTree(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	// Let the cleanup remove directories extracted read-only.
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	return tree
}

// describeTree describes every entry of fsys by name: "dir", "symlink",
// "special", or the SHA-256 of a regular file.
func describeTree(fsys fs.FS) (map[string]string, error) {
	out := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || name == "." {
			return err
		}
		switch m := d.Type(); {
		case m.IsDir():
			out[name] = "dir"
		case m&fs.ModeSymlink != 0:
			out[name] = "symlink"
		case !m.IsRegular():
			out[name] = "special"
		default:
			f, err := fsys.Open(name)
			if err != nil {
				out[name] = "error: " + err.Error()
				return nil
			}
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err != nil {
				out[name] = "error: " + err.Error()
				return nil
			}
			out[name] = hex.EncodeToString(h.Sum(nil))
		}
		return nil
	})
	return out, err
}
