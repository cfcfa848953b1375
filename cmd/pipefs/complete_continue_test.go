package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
)

// compressors are the tools that compressedTars runs, with the extension
// each gives.
var compressors = []struct{ tool, ext string }{
	{"gzip", ".gz"}, {"bzip2", ".bz2"}, {"xz", ".xz"}, {"zstd", ".zst"},
}

// compressedTars returns x.tar.gz, x.tar.bz2, x.tar.xz and x.tar.zst,
// each a tar of d/a.txt ("hi\n") written by tar and compressed by gzip,
// bzip2, xz and zstd.
func compressedTars(t testing.TB) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"src/d/a.txt": []byte("hi\n")})
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(fstest.NeedTool(t, name), args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
	}
	run("tar", "-C", "src", "-cf", "x.tar", "d")
	out := map[string][]byte{}
	for _, c := range compressors {
		run(c.tool, "-k", "-q", "x.tar")
		data, err := os.ReadFile(filepath.Join(dir, "x.tar"+c.ext))
		if err != nil {
			t.Fatal(err)
		}
		out["x.tar"+c.ext] = data
	}
	return out
}

// pngOf returns a 2×1 grey PNG.
func pngOf(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 2, 1))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// nestFiles are a zip, nest.zip, that holds a container, a dataset and
// an image whose names suggest no container by their extensions alone
// (a .tar.gz, a .jar, an .h5 and a .png), and the compressed tars of
// compressedTars beside it.
func nestFiles(t testing.TB) map[string][]byte {
	t.Helper()
	h5, err := os.ReadFile("../../adapters/hdf5adapter/testdata/h5py/layouts_latest.h5")
	if err != nil {
		t.Fatal(err)
	}
	files := compressedTars(t)
	files["nest.zip"] = zipOf(t,
		entry{name: "pack.tar.gz", body: string(gzippedTar(t, map[string]string{"top.txt": "top\n"})), store: true},
		entry{name: "libs/commons-cli.jar", body: string(zipOf(t, entry{name: "META-INF/MANIFEST.MF", body: "Manifest-Version: 1.0\n"}))},
		entry{name: "data.h5", body: string(h5)},
		entry{name: "img.png", body: string(pngOf(t))},
	)
	return files
}

// TestCompleteContinues checks that a name that pipefs opens as a
// container, a dataset or an image is offered with its |adapter:
// continuations, detected from its bytes, so that it is never the lone
// candidate; that a chain is offered after every compressed tar; and that
// a plain file stays a lone candidate.
func TestCompleteContinues(t *testing.T) {
	dir := t.TempDir() + "/"
	files := nestFiles(t)
	files["plain.txt"] = []byte("plain\n")
	writeFiles(t, dir, files)
	cases := []completeCase{
		{"nest.zip|zip:p", []string{"nest.zip|zip:pack.tar.gz", "nest.zip|zip:pack.tar.gz|gzip:", "nest.zip|zip:pack.tar.gz|gzip:|pipefs.tar:"}, false},
		{"nest.zip|zip:libs/commons-cli.j", []string{"nest.zip|zip:libs/commons-cli.jar", "nest.zip|zip:libs/commons-cli.jar|zip:"}, false},
		{"nest.zip|zip:data.h", []string{"nest.zip|zip:data.h5", "nest.zip|zip:data.h5|hdf5:"}, false},
		{"nest.zip|zip:img.p", []string{"nest.zip|zip:img.png", "nest.zip|zip:img.png|png:"}, false},
		{"nest.zip|zip:pack.tar.gz|gzip:|pipefs.tar:t", []string{"nest.zip|zip:pack.tar.gz|gzip:|pipefs.tar:top.txt"}, false},
		{"pl", []string{"plain.txt"}, false},
	}
	for _, c := range compressors {
		x := "x.tar" + c.ext
		a := completeCLI(t, 6, "ls", dir+x+"|")
		if len(a) != 2 || !strings.HasSuffix(a[1], ":|pipefs.tar:") {
			t.Fatalf("complete %q: %q, want a stream and its chain to pipefs.tar:", dir+x+"|", a)
		}
		stream := strings.TrimPrefix(a[0], dir+x+"|")
		cases = append(cases,
			completeCase{x + "|", []string{x + "|" + stream, x + "|" + stream + "|pipefs.tar:"}, false},
			completeCase{x + "|" + stream, []string{x + "|" + stream + "|pipefs.tar:"}, false},
			completeCase{x + "|" + stream + "|pipefs.tar:d/", []string{x + "|" + stream + "|pipefs.tar:d/a.txt"}, false},
		)
	}
	checkCompletions(t, dir, cases)
	// A lone local file: the chain of its bytes, whatever its neighbours.
	got := completeCLI(t, 6, "ls", dir+"x.tar.b")
	want := []string{dir + "x.tar.bz2", dir + "x.tar.bz2|pipefs.bzip2:", dir + "x.tar.bz2|pipefs.bzip2:|pipefs.tar:"}
	if !slices.Equal(got, want) {
		t.Errorf("complete %q:\ngot  %q\nwant %q", dir+"x.tar.b", got, want)
	}
	for _, name := range []string{"x.tar.bz2|pipefs.bzip2:|pipefs.tar:d/a.txt", "x.tar.zst|zstd:|pipefs.tar:d/a.txt"} {
		if out := mustRun(t, "cat", dir+name); out != "hi\n" {
			t.Errorf("cat of the completed %q: %q", name, out)
		}
	}
}

// TestCompleteSlowBase checks that a base whose bytes do not come in
// time (a server that answers no request until the completion has given
// up) is offered the adapters that its name suggests, a chain after a
// compressed tar, rather than nothing; a name that suggests none still
// gets nothing.
func TestCompleteSlowBase(t *testing.T) {
	files := compressedTars(t)
	files["plain.txt"] = []byte("plain\n")
	files["outer.zip"] = zipOf(t, entry{name: "a.txt", body: "a\n"})
	s := fstest.NewHTTPServer(t, files)
	s.Inject(fstest.Fault{Kind: fstest.FaultDelay, Delay: time.Until(waitDeadline(t)), Times: -1})
	// Detection gets two thirds of the time; the rest is slack for a busy
	// machine.
	t.Setenv("PIPEFS_COMPLETE_TIMEOUT", "1s")
	base := s.URL() + "/"
	checkCompletions(t, base, []completeCase{
		{"x.tar.bz2|", []string{"x.tar.bz2|pipefs.bzip2:", "x.tar.bz2|pipefs.bzip2:|pipefs.tar:"}, false},
		{"x.tar.bz2|pipefs.bzip2:", []string{"x.tar.bz2|pipefs.bzip2:|pipefs.tar:"}, false},
		{"x.tar.gz|g", []string{"x.tar.gz|gzip:", "x.tar.gz|gzip:|pipefs.tar:"}, false},
		{"outer.zip|", []string{"outer.zip|zip:"}, false},
		{"plain.txt|", nil, true},
	})
}

// TestCompleteBashContinues checks the lines that __complete-bash prints
// after a name that goes on: several, so that readline neither closes
// the quote nor adds a space.
func TestCompleteBashContinues(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, nestFiles(t))
	t.Chdir(dir)
	tests := []struct {
		line string
		want []string
	}{
		{"pipefs cat 'nest.zip|zip:p", []string{"nest.zip|zip:pack.tar.gz", "nest.zip|zip:pack.tar.gz|gzip:", "nest.zip|zip:pack.tar.gz|gzip:|pipefs.tar:"}},
		{"pipefs cat 'nest.zip|zip:data.h", []string{"nest.zip|zip:data.h5", "nest.zip|zip:data.h5|hdf5:"}},
		{`pipefs cat "nest.zip|zip:img.p`, []string{"nest.zip|zip:img.png", "nest.zip|zip:img.png|png:"}},
		{`pipefs cat nest.zip\|zip:libs/commons-cli.j`, []string{"libs/commons-cli.jar", `libs/commons-cli.jar\|zip:`}},
		{`pipefs cat x.tar.b`, []string{"x.tar.bz2", `x.tar.bz2\|pipefs.bzip2:`, `x.tar.bz2\|pipefs.bzip2:\|pipefs.tar:`}},
		{"pipefs cat 'x.tar.xz|", []string{"x.tar.xz|pipefs.xz:", "x.tar.xz|pipefs.xz:|pipefs.tar:"}},
	}
	for _, tc := range tests {
		r := runCLI(t, completeBashCmd, bashWordbreaks, tc.line)
		got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if r.code != 0 || r.stderr != "" || !slices.Equal(got, tc.want) {
			t.Errorf("complete the line %s: exit %d, stderr %q\ngot  %q\nwant %q", tc.line, r.code, r.stderr, got, tc.want)
		}
	}
}
