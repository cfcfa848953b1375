package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// realNames are member and file names met in the wild: blackfriday's
// testdata, smithy-go's JSON test suite, and what people call files.
var realNames = []string{"Auto links.text", "n_structure_trailing_#.json", "100%.txt", "naïve-日本.txt", "a|b?c.txt"}

// namesDir writes, under a directory whose name holds a space, a zip per
// awkward file name, each holding the real names as members, in a
// directory whose name holds a space too. It returns the directory.
func namesDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dir with space")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries := []entry{{name: "sub dir/"}}
	for _, n := range realNames {
		entries = append(entries, entry{name: "sub dir/" + n, body: "body of " + n})
	}
	entries = append(entries, entry{name: "a\nb", body: "newline"}, entry{name: "\x1b[31mred", body: "escape"})
	z := zipOf(t, entries...)
	for _, n := range []string{"bf v2.zip", "100%.zip", "naïve-日本.zip", "n_#.zip"} {
		if err := os.WriteFile(filepath.Join(dir, n), z, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestNamesAsTyped reads files and members whose names hold spaces, "%",
// "#" and non-ASCII, as a person types them at a shell.
func TestNamesAsTyped(t *testing.T) {
	dir := namesDir(t)
	t.Chdir(filepath.Dir(dir))

	// Local files name themselves, whatever they hold.
	for _, zip := range []string{"dir with space/bf v2.zip", "dir with space/100%.zip", "dir with space/naïve-日本.zip", "dir with space/n_#.zip", dir + "/100%.zip"} {
		if out := mustRun(t, "ls", zip); !strings.HasSuffix(out, "\nsub dir/\n") {
			t.Errorf("ls %q =\n%s\nwant it to end in the directory \"sub dir/\"", zip, out)
		}
		// Members as typed: spaces and non-ASCII raw, a stray "%" too.
		for _, member := range []string{"Auto links.text", "100%.txt", "naïve-日本.txt"} {
			if out, want := mustRun(t, "cat", zip+"|zip:sub dir/"+member), "body of "+member; out != want {
				t.Errorf("cat %q = %q, want %q", zip+"|zip:sub dir/"+member, out, want)
			}
		}
		// "#", "|" and "?" are structural: typed encoded.
		if out, want := mustRun(t, "cat", zip+"|zip:sub dir/n_structure_trailing_%23.json"), "body of n_structure_trailing_#.json"; out != want {
			t.Errorf("cat of the %%23 member = %q, want %q", out, want)
		}
	}
	if out := mustRun(t, "ls", "dir with space"); out != "100%.zip\nbf v2.zip\nn_#.zip\nnaïve-日本.zip\n" {
		t.Errorf("ls of a directory with a space =\n%s", out)
	}

	// ls --url writes pipelines that read back as the members.
	out := mustRun(t, "ls", "-R", "--url", "dir with space/n_#.zip")
	urls := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(urls) != 3+len(realNames) {
		t.Fatalf("ls -R --url =\n%s", out)
	}
	read := 0
	for _, u := range urls {
		if _, err := vfs.Parse(u); err != nil {
			t.Errorf("ls --url wrote %q, not a canonical pipeline: %v", u, err)
		}
		if strings.HasSuffix(u, "/") {
			continue
		}
		p := vfs.MustParse(u)
		if want := "body of " + strings.TrimPrefix(p[len(p)-1].DecodedPath(), "sub dir/"); strings.Contains(u, "sub%20dir/") {
			if got := mustRun(t, "cat", u); got != want {
				t.Errorf("cat %q = %q, want %q", u, got, want)
			}
			read++
		}
	}
	if read != len(realNames) {
		t.Errorf("read %d members back from ls --url, want %d:\n%s", read, len(realNames), out)
	}
	if got, want := mustRun(t, "resolve", "dir with space/n_#.zip|zip:sub dir/Auto links.text"), "file:"+strings.ReplaceAll(dir, " ", "%20")+"/n_%23.zip|zip:sub%20dir/Auto%20links.text\n"; got != want {
		t.Errorf("resolve = %q, want %q", got, want)
	}
}

// TestLsControlNames lists members whose names hold control characters:
// off a terminal they are quoted too, -0 writes them raw.
func TestLsControlNames(t *testing.T) {
	zip := filepath.Join(namesDir(t), "bf v2.zip")
	if out, want := mustRun(t, "ls", zip), `''$'\033''[31mred'`+"\n"+`'a'$'\n''b'`+"\nsub dir/\n"; out != want {
		t.Errorf("ls =\n%s\nwant:\n%s", out, want)
	}
	out := mustRun(t, "ls", "-R", "-0", zip)
	want := []string{"\x1b[31mred", "a\nb", "sub dir/"}
	sorted := slices.Clone(realNames)
	slices.Sort(sorted)
	for _, n := range sorted {
		want = append(want, "sub dir/"+n)
	}
	if got := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00"); strings.Join(got, "|") != strings.Join(want, "|") || !strings.HasSuffix(out, "\x00") {
		t.Errorf("ls -R -0 = %q, want %q NUL-terminated", out, want)
	}
	if out := mustRun(t, "ls", "-0", zip); out != "\x1b[31mred\x00a\nb\x00sub dir/\x00" {
		t.Errorf("ls -0 = %q", out)
	}
	if out := mustRun(t, "tree", zip); !strings.Contains(out, `├── 'a'$'\n''b' (7)`) || strings.Contains(out, "\x1b") {
		t.Errorf("tree =\n%s\nwant the names quoted", out)
	}
	if out := mustRun(t, "stat", zip+"|zip:a%0Ab"); !strings.Contains(out, `Name:     'a'$'\n''b'`+"\n") {
		t.Errorf("stat =\n%s\nwant the name quoted", out)
	}
}

// omitTree is a tree that lists fixed files and says it left out two
// entries: a driver.Omitter, as an archive with unusable names is.
type omitTree struct{ fstest.MapFS }

func (t omitTree) Stat(_ context.Context, name string) (fs.FileInfo, error) {
	return fs.Stat(t.MapFS, name)
}

func (t omitTree) ReadDir(_ context.Context, name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(t.MapFS, name)
}

func (t omitTree) OpenBlob(context.Context, string) (driver.Blob, error) {
	return nil, errors.ErrUnsupported
}

func (omitTree) Omitted(context.Context) ([]driver.Omission, error) {
	return []driver.Omission{
		{Name: "a\x00b", Offset: 1024, Reason: "the name holds NUL"},
		{Name: "/etc/passwd", Offset: -1, Reason: "an absolute path"},
	}, nil
}

func init() {
	vfs.RegisterAdapter(&vfs.Adapter{
		Scheme: "pipefstest.omit",
		OpenFile: func(context.Context, driver.Blob, vfs.SubURL, *vfs.Env) (driver.Location, error) {
			return driver.Location{Tree: omitTree{fstest.MapFS{"d/f.txt": {Data: []byte("f")}}}}, nil
		},
		Summary: "a test tree that leaves out two entries",
	})
}

// TestLsOmitted checks that entries a tree left out are reported once,
// with the archive and their offset.
func TestLsOmitted(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x.bin")
	if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	archive := vfs.MustParse("file:" + name).String()
	want := "pipefs: warning: " + archive + `: entry 'a'$'\000''b' at offset 1024 left out: the name holds NUL` + "\n" +
		"pipefs: warning: " + archive + ": entry /etc/passwd at an unknown offset left out: an absolute path\n"
	for _, args := range [][]string{{"ls", name + "|pipefstest.omit:"}, {"ls", "-R", name + "|pipefstest.omit:"}} {
		r := runCLI(t, args...)
		if r.code != 0 || r.stderr != want {
			t.Errorf("pipefs %q: exit %d, stderr:\n%s\nwant:\n%s", args, r.code, r.stderr, want)
		}
	}
}
