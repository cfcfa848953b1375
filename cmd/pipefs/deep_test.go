package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/listing"
	"github.com/pipefs/pipefs/vfs/deep"
)

// A dnode is one entry of a deep listing as the tests expect it: a file,
// a directory, or a container (format set) with the entries it holds.
type dnode struct {
	size   int64
	dir    bool
	format string
	kids   map[string]*dnode
}

// add puts the entry at path p (a trailing "/" marks a directory), and
// the directories above it, below n.
func (n *dnode) add(p string, size int64) *dnode {
	dir := strings.HasSuffix(p, "/")
	p = strings.Trim(p, "/")
	if p == "" || p == "." {
		return n
	}
	cur := n
	parts := strings.Split(p, "/")
	for i, name := range parts {
		if cur.kids == nil {
			cur.kids = map[string]*dnode{}
		}
		k := cur.kids[name]
		if k == nil {
			k = &dnode{}
			cur.kids[name] = k
		}
		if i < len(parts)-1 || dir {
			k.dir = true
		} else {
			k.size = size
		}
		cur = k
	}
	return cur
}

// names returns the children's names, sorted.
func (n *dnode) names() []string {
	var s []string
	for k := range n.kids {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// lsR is what "ls -R --deep" prints for n: every path, directories and
// containers with a trailing "/".
func (n *dnode) lsR(prefix string) string {
	var b strings.Builder
	for _, name := range n.names() {
		k := n.kids[name]
		if k.dir || k.format != "" {
			b.WriteString(prefix + name + "/\n")
			b.WriteString(k.lsR(prefix + name + "/"))
		} else {
			b.WriteString(prefix + name + "\n")
		}
	}
	return b.String()
}

// tree is what tree --deep draws below n, counting what it draws.
func (n *dnode) tree(prefix string, dirs, files *int) string {
	var b strings.Builder
	names := n.names()
	for i, name := range names {
		k := n.kids[name]
		branch, indent := "├── ", "│   "
		if i == len(names)-1 {
			branch, indent = "└── ", "    "
		}
		switch {
		case k.format != "":
			*dirs++
			fmt.Fprintf(&b, "%s%s%s/  [%s]\n", prefix, branch, name, k.format)
			b.WriteString(k.tree(prefix+indent, dirs, files))
		case k.dir:
			*dirs++
			fmt.Fprintf(&b, "%s%s%s/\n", prefix, branch, name)
			b.WriteString(k.tree(prefix+indent, dirs, files))
		default:
			*files++
			fmt.Fprintf(&b, "%s%s%s (%d)\n", prefix, branch, name, k.size)
		}
	}
	return b.String()
}

// zipNode reads a zip with archive/zip, opening the members that are zips
// themselves as containers.
func zipNode(t *testing.T, data []byte) *dnode {
	t.Helper()
	r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	root := &dnode{dir: true}
	for _, f := range r.File {
		k := root.add(f.Name, int64(f.UncompressedSize64))
		if f.FileInfo().IsDir() {
			continue
		}
		b := readZipFile(t, f)
		if bytes.HasPrefix(b, []byte("PK\x03\x04")) {
			*k = *zipNode(t, b)
			k.dir, k.format = false, "zip"
		}
	}
	return root
}

func readZipFile(t *testing.T, f *zip.File) []byte {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDeepDemo lists demo.zip over HTTP with and without --deep: the deep
// listing is the one archive/zip finds, opening the zips inside, and
// costs no request more: the nested zips are read from the outer one's
// bytes.
func TestDeepDemo(t *testing.T) {
	data, err := os.ReadFile("../../testdata/demo.zip")
	if err != nil {
		t.Fatal(err)
	}
	want := zipNode(t, data)
	nested := strings.Count(want.lsR(""), ".zip/\n")
	if nested != 2 {
		t.Fatalf("demo.zip holds %d nested zips, the test expects 2", nested)
	}
	srv := fstest.NewHTTPServer(t, map[string][]byte{"demo.zip": data})
	url := srv.URL() + "/demo.zip"
	count := func(args ...string) (string, int64) {
		t.Helper()
		srv.Reset()
		out := runChild(t, t.TempDir(), args...)
		return out, srv.Requests()
	}

	_, plain := count("ls", "-R", url)
	out, deep := count("ls", "-R", "--deep", url)
	if w := want.lsR(""); out != w {
		t.Errorf("ls -R --deep:\n%s\nwant:\n%s", out, w)
	}
	t.Logf("ls -R: %d requests; ls -R --deep: %d", plain, deep)
	// The nested zips are opened relative to the outer one, from the
	// bytes its first read holds (demo.zip is smaller than it): they
	// cost no request.
	if deep != plain {
		t.Errorf("ls -R --deep: %d requests, want %d as ls -R: a nested zip held by the first read costs none\n%s", deep, plain, srv.LogString())
	}

	out, treeReqs := count("tree", "--deep", url)
	var dirs, files int
	body := want.tree("", &dirs, &files)
	if w := url + "|zip:\n" + body + "\n" + listing.Summary(dirs, files) + "\n"; out != w {
		t.Errorf("tree --deep:\n%s\nwant:\n%s", out, w)
	}
	if treeReqs != plain {
		t.Errorf("tree --deep: %d requests, want %d as ls -R\n%s", treeReqs, plain, srv.LogString())
	}
}

// deepNestDir builds, in a new directory, nest.tar.gz holding d.txt and
// middle.zip, which holds c.txt and inner.zip (a.txt, sub/b.txt), each
// with its directories as entries, and returns the directory.
func deepNestDir(t *testing.T) string {
	t.Helper()
	inner := zipOf(t, entry{name: "a.txt", body: "alpha\n"}, entry{name: "sub/"}, entry{name: "sub/b.txt", body: "beta\n"})
	middle := zipOf(t, entry{name: "c.txt", body: "gamma\n"}, entry{name: "in/"}, entry{name: "in/inner.zip", body: string(inner)})
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range []entry{{name: "docs/"}, {name: "docs/d.txt", body: "delta\n"}, {name: "middle.zip", body: string(middle)}} {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), ModTime: modTime, Typeflag: tar.TypeReg}
		if strings.HasSuffix(e.name, "/") {
			h.Mode, h.Typeflag = 0o755, tar.TypeDir
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(e.body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "nest.tar.gz"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// bsdtarNode lists the archive file with bsdtar -t, level by level: a
// member that bsdtar -t can list is extracted (bsdtar -xO) and listed as
// a container in its turn.
func bsdtarNode(t *testing.T, bsdtar, file, format string) *dnode {
	t.Helper()
	out, err := exec.Command(bsdtar, "-tf", file).Output()
	if err != nil {
		t.Fatalf("bsdtar -tf %s: %v", file, err)
	}
	n := &dnode{format: format}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		k := n.add(name, 0)
		if strings.HasSuffix(name, "/") {
			continue
		}
		b, err := exec.Command(bsdtar, "-xOf", file, name).Output()
		if err != nil {
			t.Fatalf("bsdtar -xOf %s %s: %v", file, name, err)
		}
		k.size = int64(len(b))
		if !bytes.HasPrefix(b, []byte("PK\x03\x04")) {
			continue
		}
		sub := filepath.Join(t.TempDir(), path.Base(name))
		if err := os.WriteFile(sub, b, 0o644); err != nil {
			t.Fatal(err)
		}
		size := k.size
		*k = *bsdtarNode(t, bsdtar, sub, "zip")
		k.size = size
	}
	return n
}

// TestDeepBsdtar compares the deep listing of a zip in a zip in a tar.gz
// with what bsdtar -t lists at each level, and checks -l, --url and
// --depth on it.
func TestDeepBsdtar(t *testing.T) {
	bsdtar := fstest.NeedTool(t, "bsdtar")
	dir := deepNestDir(t)
	file := filepath.Join(dir, "nest.tar.gz")
	root := &dnode{dir: true, kids: map[string]*dnode{"nest.tar.gz": bsdtarNode(t, bsdtar, file, "gzip|tar")}}

	out := mustRun(t, "ls", "-R", "--deep", dir)
	if want := root.lsR(""); out != want {
		t.Errorf("ls -R --deep:\n%s\nwant (bsdtar -t):\n%s", out, want)
	}
	out = mustRun(t, "ls", "-R", "--deep", file)
	if want := root.kids["nest.tar.gz"].lsR(""); out != want {
		t.Errorf("ls -R --deep of the tar.gz:\n%s\nwant (bsdtar -t):\n%s", out, want)
	}

	// -l: the container is a directory of its own size and time, with
	// its format after the name.
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	out = mustRun(t, "ls", "-l", "--deep", dir)
	want := fmt.Sprintf("%d  %s  %s  nest.tar.gz/  [gzip|tar]\n", info.Size(), fs.ModeDir|info.Mode().Perm(), info.ModTime().Format(listing.TimeLayout))
	if out != want {
		t.Errorf("ls -l --deep:\n%q\nwant:\n%q", out, want)
	}
	out = mustRun(t, "ls", "-lR", "--deep", file)
	mz := root.kids["nest.tar.gz"].kids["middle.zip"]
	wantRow := fmt.Sprintf("%d  drw-r--r--  %s  middle.zip/  [zip]\n", mz.size, modTime.Format(listing.TimeLayout))
	if !strings.Contains(out, "\n"+wantRow) {
		t.Errorf("ls -lR --deep does not show %q:\n%s", wantRow, out)
	}

	// --url: pipelines through the containers; each file's reads back
	// what bsdtar extracts.
	out = mustRun(t, "ls", "-R", "--deep", "--url", file)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	paths := strings.Split(strings.TrimSuffix(root.kids["nest.tar.gz"].lsR(""), "\n"), "\n")
	if len(lines) != len(paths) {
		t.Fatalf("ls -R --deep --url: %d lines, want %d:\n%s", len(lines), len(paths), out)
	}
	base := mustRun(t, "resolve", file)
	for i, u := range lines {
		p := paths[i]
		switch {
		case p == "middle.zip/":
			if want := strings.TrimSuffix(base, "\n") + "|gzip:|pipefs.tar:middle.zip|zip:"; u != want {
				t.Errorf("--url of the nested zip = %q, want %q", u, want)
			}
		case strings.HasSuffix(p, "/"):
		default:
			k := root.kids["nest.tar.gz"]
			for _, name := range strings.Split(p, "/") {
				k = k.kids[name]
			}
			if got := mustRun(t, "cat", u); int64(len(got)) != k.size {
				t.Errorf("cat %s: %d bytes, want %d (bsdtar)", u, len(got), k.size)
			}
		}
	}
	if !slices.Contains(lines, strings.TrimSuffix(base, "\n")+"|gzip:|pipefs.tar:middle.zip|zip:in/inner.zip|zip:sub/b.txt") {
		t.Errorf("ls -R --deep --url does not name sub/b.txt through both zips:\n%s", out)
	}

	// --depth 1 opens the tar.gz only; --depth 0 nothing.
	one := &dnode{}
	*one = *root.kids["nest.tar.gz"]
	one.kids = map[string]*dnode{}
	for name, k := range root.kids["nest.tar.gz"].kids {
		c := *k
		c.format = ""
		one.kids[name] = &c
	}
	if out, want := mustRun(t, "ls", "-R", "--deep", "--depth", "1", dir), "nest.tar.gz/\n"+one.lsR("nest.tar.gz/"); out != want {
		t.Errorf("ls -R --deep --depth 1:\n%s\nwant:\n%s", out, want)
	}
	if out, want := mustRun(t, "ls", "-R", "--deep", "--depth", "0", dir), mustRun(t, "ls", "-R", dir); out != want {
		t.Errorf("ls -R --deep --depth 0:\n%s\nwant what ls -R lists:\n%s", out, want)
	}
	if r := runCLI(t, "ls", "--deep", "--depth", "-1", dir); r.code != exitUsage || !strings.Contains(r.stderr, "--depth -1") {
		t.Errorf("ls --depth -1: exit %d, stderr %q; want a usage error", r.code, r.stderr)
	}
	// --depth is no bound on -R.
	for _, cmd := range []string{"ls", "tree"} {
		if r := runCLI(t, cmd, "--depth", "1", dir); r.code != exitUsage || !strings.Contains(r.stderr, "--depth goes with --deep") {
			t.Errorf("%s --depth 1 without --deep: exit %d, stderr %q; want a usage error", cmd, r.code, r.stderr)
		}
	}
}

// TestDeepBroken lists a zip holding a broken zip: the broken one is
// reported, naming its pipeline and the detected zip: that failed, and
// listed as a file; the rest is listed and the exit status is 1.
func TestDeepBroken(t *testing.T) {
	good := zipOf(t, entry{name: "ok.txt", body: "ok\n"})
	broken := string(good[:len(good)/2]) // a local header, no central directory
	outer := zipOf(t,
		entry{name: "a.txt", body: "a\n"},
		entry{name: "broken.zip", body: broken, store: true},
		entry{name: "good.zip", body: string(good), store: true},
	)
	file := filepath.Join(t.TempDir(), "outer.zip")
	if err := os.WriteFile(file, outer, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"ls", "-R", "--deep", file}, {"tree", "--deep", file}} {
		r := runCLI(t, args...)
		if r.code != exitError {
			t.Errorf("%q: exit %d, want 1", args, r.code)
		}
		// The inner zip: was detected: the message says so and shows it.
		detected := `outer.zip|zip:broken.zip: sub-URL 2 "zip:" (detected, in file:` + filepath.ToSlash(file) + `|zip:broken.zip|zip:): `
		if !strings.Contains(r.stderr, "pipefs: ") || !strings.Contains(r.stderr, detected) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: stderr does not report the broken zip once, by its pipeline:\n%s", args, r.stderr)
		}
		if args[0] == "ls" {
			if want := "a.txt\nbroken.zip\ngood.zip/\ngood.zip/ok.txt\n"; r.stdout != want {
				t.Errorf("%q:\n%s\nwant:\n%s", args, r.stdout, want)
			}
		} else if !strings.Contains(r.stdout, "├── broken.zip ("+strconv.Itoa(len(broken))+")\n└── good.zip/  [zip]\n    └── ok.txt (3)\n") {
			t.Errorf("%q:\n%s", args, r.stdout)
		}
	}
}

// TestDeepDatasets: the chunks of a Zarr array are never opened, even one
// that holds a zip, and an HDF5 file in a zip lists as its datasets, none
// of them opened.
func TestDeepDatasets(t *testing.T) {
	dir := t.TempDir()
	// A Zarr v3 array of 4 int16 in one chunk, which holds a zip.
	arr := filepath.Join(dir, "arr.zarr")
	if err := os.MkdirAll(filepath.Join(arr, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	meta := `{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "int16",
		"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
		"chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
		"fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}`
	if err := os.WriteFile(filepath.Join(arr, "zarr.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	chunk := zipOf(t, entry{name: "x.txt", body: "x\n"})
	if err := os.WriteFile(filepath.Join(arr, "c", "0"), chunk, 0o644); err != nil {
		t.Fatal(err)
	}
	h5, err := os.ReadFile("../../adapters/hdf5adapter/testdata/h5py/layouts_latest.h5")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "h.zip"), zipOf(t, entry{name: "l.h5", body: string(h5)}), 0o644); err != nil {
		t.Fatal(err)
	}
	h5file := filepath.Join(t.TempDir(), "l.h5")
	os.WriteFile(h5file, h5, 0o644)

	out := mustRun(t, "ls", "-R", "--deep", dir)
	var want strings.Builder
	want.WriteString("arr.zarr/\narr.zarr/c/\narr.zarr/c/0\narr.zarr/zarr.json\nh.zip/\nh.zip/l.h5/\n")
	for _, line := range strings.SplitAfter(mustRun(t, "ls", "-R", h5file), "\n") {
		if line != "" {
			want.WriteString("h.zip/l.h5/" + line)
		}
	}
	if out != want.String() {
		t.Errorf("ls -R --deep:\n%s\nwant:\n%s", out, want.String())
	}
	if out := mustRun(t, "tree", "--deep", dir); !strings.Contains(out, "l.h5/  [hdf5]\n") || !strings.Contains(out, "│   │   └── 0 ("+strconv.Itoa(len(chunk))+")\n") {
		t.Errorf("tree --deep:\n%s", out)
	}
}

// TestDeepEncrypted: a member that cannot be read (encrypted) is listed
// as it is, with no error: it is no broken container.
func TestDeepEncrypted(t *testing.T) {
	zipTool := fstest.NeedTool(t, "zip")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("PK\x03\x04 looks like a zip\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(zipTool, "-q", "-P", "pass", "e.zip", "secret.txt")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zip -P: %v\n%s", err, out)
	}
	if out := mustRun(t, "ls", "-R", "--deep", filepath.Join(dir, "e.zip")); out != "secret.txt\n" {
		t.Errorf("ls -R --deep of an encrypted zip:\n%s", out)
	}
}

// TestDeepLookalikes: files whose first bytes name a format that holds no
// directory (a PNG, a TIFF) are listed as files, with no error, and a gzip
// of text is the folder that holds the text (vfs.OpenFS).
func TestDeepLookalikes(t *testing.T) {
	dir := t.TempDir()
	var gb bytes.Buffer
	gw := gzip.NewWriter(&gb)
	gw.Write([]byte("plain text\n"))
	gw.Close()
	files := map[string][]byte{"plain.txt.gz": gb.Bytes()}
	for _, name := range []string{"tiff-multipage.tif", "png-gray8.png"} {
		b, err := os.ReadFile(testImagePath(t, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	var want []string
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		want = append(want, name)
	}
	want = append(want, "plain.txt.gz/plain.txt")
	slices.Sort(want)
	want[slices.Index(want, "plain.txt.gz")] = "plain.txt.gz/"
	if out := mustRun(t, "ls", "-R", "--deep", dir); out != strings.Join(want, "\n")+"\n" {
		t.Errorf("ls -R --deep:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
}

// A deep listing opens the containers of a directory concurrently, at
// most deep.DefaultConcurrency at once, and its rows are those of the listing that
// opens them one by one: ls -R --deep and tree --deep of a jar holding 24
// jars, each with a stored member larger than a block, so that each
// costs a request of its own, over a server that answers after 30 ms keep
// several requests in flight, and what they print is what archive/zip
// finds.
func TestDeepConcurrent(t *testing.T) {
	var outer bytes.Buffer
	zw := zip.NewWriter(&outer)
	pad := strings.Repeat("x", 300<<10)
	for i := range 24 {
		inner := []entry{{name: "pad.bin", body: pad, store: true}}
		for j := range 3 {
			inner = append(inner, entry{name: fmt.Sprintf("p%d/C%d.class", i, j), body: strings.Repeat(strconv.Itoa(i*j), 50)})
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("lib/l%02d.jar", i), Method: zip.Store, Modified: modTime})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(zipOf(t, inner...))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	want := zipNode(t, outer.Bytes())
	srv := fstest.NewHTTPServer(t, map[string][]byte{"fat.jar": outer.Bytes()})
	srv.SetLatency(30 * time.Millisecond)
	url := srv.URL() + "/fat.jar"
	if out := mustRun(t, "--cache-dir", "off", "ls", "-R", "--deep", url); out != want.lsR("") {
		t.Errorf("ls -R --deep:\n%s\nwant:\n%s", out, want.lsR(""))
	}
	if p := srv.Peak(); p < 2 || p > deep.DefaultConcurrency {
		t.Errorf("ls -R --deep: %d requests in flight at most, want 2 to %d", p, deep.DefaultConcurrency)
	}
	var dirs, files int
	body := want.tree("", &dirs, &files)
	if out, w := mustRun(t, "--cache-dir", "off", "tree", "--deep", url), url+"|zip:\n"+body+"\n"+listing.Summary(dirs, files)+"\n"; out != w {
		t.Errorf("tree --deep:\n%s\nwant:\n%s", out, w)
	}
}
