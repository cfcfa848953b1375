package taradapter

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs/driver"
)

// needBsdtar returns the path of bsdtar. Outside CI a machine without it
// skips the test; in CI (env CI set), which installs it, the test fails.
func needBsdtar(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bsdtar")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bsdtar is not installed (Debian package libarchive-tools); CI must have it")
		}
		t.Skip("bsdtar is not installed (Debian package libarchive-tools)")
	}
	return p
}

// digest describes one entry of a tree for comparison: "dir", "link",
// "other", or the SHA-256 of a regular file's bytes.
func digest(r io.Reader) string {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "error: " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "link"
	case !m.IsRegular():
		return "other"
	}
	return ""
}

// walkTree describes every entry of fsys by name; regular files are read
// with open. A read error is part of the description.
func walkTree(fsys fs.FS) (map[string]string, error) {
	out := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name == "." {
			return nil
		}
		if k := kindOf(d.Type()); k != "" {
			out[name] = k
			return nil
		}
		f, err := fsys.Open(name)
		if err != nil {
			out[name] = "error: " + err.Error()
			return nil
		}
		out[name] = digest(f)
		f.Close()
		return nil
	})
	return out, err
}

// bsdtarTree extracts the archive at path with bsdtar into a temporary
// directory and describes what it wrote. bsdtar extracts what it can and
// warns about the rest; its exit status is returned for the log.
func bsdtarTree(t *testing.T, bsdtar, path string) (map[string]string, string) {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command(bsdtar, "-xf", path, "-C", dir).CombinedOutput()
	msg := strings.TrimSpace(string(out))
	if err != nil {
		msg += " (" + err.Error() + ")"
	}
	tree, werr := walkTree(os.DirFS(dir))
	if werr != nil {
		t.Fatalf("walking bsdtar's extraction of %s: %v", path, werr)
	}
	// Let TempDir's cleanup remove read-only directories.
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	return tree, msg
}

// diffTrees returns the differences between got and want, one a line.
func diffTrees(got, want map[string]string) []string {
	var diff []string
	for name, w := range want {
		if g, ok := got[name]; !ok {
			diff = append(diff, "missing "+name+" ("+short(w)+")")
		} else if g != w {
			diff = append(diff, name+": "+short(g)+", want "+short(w))
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			diff = append(diff, "extra "+name+" ("+short(g)+")")
		}
	}
	slices.Sort(diff)
	return diff
}

func short(s string) string {
	if len(s) == 64 && !strings.Contains(s, " ") {
		return s[:12]
	}
	return s
}

// goTestdata lists the tar archives of archive/tar's testdata: archives
// written by GNU tar, star, bsdtar and Go, many of them odd on purpose.
func goTestdata(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	root := strings.TrimSpace(string(out))
	names, err := filepath.Glob(filepath.Join(root, "src", "archive", "tar", "testdata", "*.tar"))
	if err != nil || len(names) < 30 {
		t.Fatalf("archive/tar testdata under GOROOT %s: %d archives, %v", root, len(names), err)
	}
	return names
}

// notCompared are the archives of archive/tar's testdata that the
// comparison with bsdtar leaves out, and why.
var notCompared = map[string]string{
	// A 16 GiB member with no data: bsdtar spends minutes writing it.
	// TestTruncatedMember checks what pipefs does with it.
	"writer-big.tar": "bsdtar writes 16 GiB",
	// The GNU header's realsize field, which GNU tar and archive/tar
	// read only for sparse members, holds garbage here; bsdtar takes it
	// for the size (2176 bytes, reading into the blocks after the
	// member), GNU tar and archive/tar (and pipefs) read 14 bytes.
	"nil-uid.tar": "bsdtar reads the realsize field of a non-sparse member",
}

// TestGoTestdataAgainstBsdtar reads every archive of archive/tar's
// testdata and compares each member, by name and SHA-256, with what
// bsdtar extracts from it. A name that pipefs leaves out must be one
// that Omitted reports. An archive that bsdtar cannot open must fail to
// open with driver.ErrCorrupt.
func TestGoTestdataAgainstBsdtar(t *testing.T) {
	bsdtar := needBsdtar(t)
	for _, path := range goTestdata(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if why, ok := notCompared[filepath.Base(path)]; ok {
				t.Skip(why)
			}
			want, msg := bsdtarTree(t, bsdtar, path)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Open(t.Context(), driver.BytesBlob(data, nil), nil)
			if err != nil {
				if len(want) == 0 && msg != "" && errors.Is(err, driver.ErrCorrupt) {
					return // neither reads it
				}
				t.Fatalf("Open: %v (bsdtar extracted %d entries, said %q)", err, len(want), msg)
			}
			got, err := walkTree(fstest.TreeFS(a))
			if err != nil {
				t.Errorf("walk: %v", err)
			}
			omitted, err := a.Omitted(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range omitted {
				name, _ := cleanName(o.Name)
				delete(want, name)
			}
			if d := diffTrees(got, want); len(d) > 0 {
				t.Errorf("pipefs and bsdtar differ (bsdtar said %q; omitted %v):\n%s", msg, omitted, strings.Join(d, "\n"))
			}
		})
	}
}

// TestTruncatedMember reads writer-big.tar of archive/tar's testdata: one
// header for a 16 GiB member and no data. The member is listed with its
// size; opening it fails with driver.ErrCorrupt saying the archive is
// truncated, and Omitted says where the listing ended.
func TestTruncatedMember(t *testing.T) {
	var path string
	for _, p := range goTestdata(t) {
		if filepath.Base(p) == "writer-big.tar" {
			path = p
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(t.Context(), driver.BytesBlob(data, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	info, err := a.Stat(t.Context(), "tmp/16gig.txt")
	if err != nil || info.Size() != 16<<30 {
		t.Fatalf("Stat = %v, %v; want 16 GiB", info, err)
	}
	_, err = a.OpenBlob(t.Context(), "tmp/16gig.txt")
	if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("OpenBlob error = %v, want driver.ErrCorrupt saying truncated", err)
	}
	omitted, err := a.Omitted(t.Context())
	if err != nil || len(omitted) != 1 || omitted[0].Name != "" || omitted[0].Offset != 0 || !errors.Is(omitted[0].Err, driver.ErrCorrupt) {
		t.Errorf("Omitted() = %+v, %v; want the early end at offset 0", omitted, err)
	}
}
