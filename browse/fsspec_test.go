package browse

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// fsspecPython returns the python3 that has fsspec and aiohttp (Debian's
// python3-fsspec and python3-aiohttp install into /usr/bin/python3, and
// PATH may name another python3 first); outside CI without them the test
// skips.
func fsspecPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import fsspec, aiohttp").Run() == nil {
			return py
		}
	}
	fstest.Unavailable(t, "fsspec and aiohttp are not installed (Debian: python3-fsspec python3-aiohttp)")
	return ""
}

// httpServer runs Python's http.server on dir, on a loopback port, until
// the test ends, and returns its URL.
func httpServer(t *testing.T, py, dir string) string {
	t.Helper()
	cmd := exec.Command(py, "-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", dir, "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	port := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`port (\d+)`)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				port <- m[1]
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	return "http://127.0.0.1:" + fstest.WaitChan(t, "http.server to say its port", port, func() string { return "" }) + "/"
}

// fsspecList is what scripts/fsspecls.py prints of one directory URL.
type fsspecList struct {
	Find []string `json:"find"`
	LS   []string `json:"ls"`
}

// fsspecLS runs scripts/fsspecls.py on urls.
func fsspecLS(t *testing.T, py string, urls ...string) map[string]fsspecList {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(py, append([]string{"../scripts/fsspecls.py"}, urls...)...)
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/fsspecls.py: %v\n%s", err, stderr.Bytes())
	}
	var v map[string]fsspecList
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// quoted escapes a slash-separated name as http.server links it.
func quoted(name string) string {
	segs := strings.Split(name, "/")
	for i, s := range segs {
		segs[i] = hrefEscape(s)
	}
	return strings.Join(segs, "/")
}

// TestServeFsspec lists a tree through fsspec's HTTPFileSystem, served by
// pipefs serve and by Python's http.server: find() and ls() give the same
// names from both, those of the files in the tree, and nothing more: no
// page linking itself, its parent or a query, and no archive, compressed
// file, HDF5 file or Zarr array twice, as a file and as its folder. Inside
// an archive, find() and ls() give its members as bsdtar lists them.
func TestServeFsspec(t *testing.T) {
	py := fsspecPython(t)
	bsdtar := fstest.NeedTool(t, "bsdtar")
	dir := t.TempDir()
	zipped := zipOf(t,
		entry{name: "top.txt", body: "top\n"},
		entry{name: "docs/"},
		entry{name: "docs/a b&c.md", body: "# a\n"},
		entry{name: "docs/deep/"},
		entry{name: "docs/deep/été.txt", body: "summer\n"},
	)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("compressed text\n"))
	zw.Close()
	files := map[string][]byte{
		"a.txt":            []byte("a\n"),
		"sp ace & 'q'.txt": []byte("odd\n"),
		"é#?=+@.txt":       []byte("unicode\n"),
		"sub/b.txt":        []byte("b\n"),
		"sub/deeper/c.txt": []byte("c\n"),
		"arch.zip":         zipped,
		"notes.txt.gz":     gz.Bytes(),
		"picture.png":      nestPNG(t),
		"empty/":           nil,
	}
	maps.Copy(files, nestZarr(t))
	h5, err := os.ReadFile(fstest.Fixture(t, "hdf5/groups.hdf5"))
	if err != nil {
		t.Fatal(err)
	}
	files["groups.hdf5"] = h5
	var want []string
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		want = append(want, quoted(name))
	}
	slices.Sort(want)
	var wantTop []string
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		n := quoted(e.Name())
		if e.IsDir() {
			n += "/"
		}
		wantTop = append(wantTop, n)
	}
	slices.Sort(wantTop)

	ts := httptest.NewServer(nestServer(t, dir))
	defer ts.Close()
	pyURL := httpServer(t, py, dir)
	got := fsspecLS(t, py, ts.URL+"/", pyURL, ts.URL+"/arch.zip/", ts.URL+"/notes.txt.gz/")

	ours, theirs := got[ts.URL+"/"], got[pyURL]
	if !slices.Equal(ours.Find, want) || !slices.Equal(ours.LS, wantTop) {
		t.Errorf("fsspec through pipefs serve:\nfind %q\nls   %q\nwant the files of the tree:\nfind %q\nls   %q", ours.Find, ours.LS, want, wantTop)
	}
	if !slices.Equal(theirs.Find, want) || !slices.Equal(theirs.LS, wantTop) {
		t.Errorf("fsspec through http.server:\nfind %q\nls   %q\nwant the files of the tree:\nfind %q\nls   %q", theirs.Find, theirs.LS, want, wantTop)
	}

	// Inside the zip: its members as bsdtar lists them.
	zpath := filepath.Join(dir, "arch.zip")
	out, err := exec.Command(bsdtar, "-tf", zpath).Output()
	if err != nil {
		t.Fatalf("bsdtar -tf: %v", err)
	}
	var members, top []string
	for m := range strings.Lines(string(out)) {
		m = strings.TrimSuffix(m, "\n")
		if !strings.HasSuffix(m, "/") {
			members = append(members, quoted(m))
		}
		if first, _, sub := strings.Cut(m, "/"); !sub {
			top = append(top, quoted(first))
		} else if n := quoted(first) + "/"; !slices.Contains(top, n) {
			top = append(top, n)
		}
	}
	slices.Sort(members)
	slices.Sort(top)
	if z := got[ts.URL+"/arch.zip/"]; !slices.Equal(z.Find, members) || !slices.Equal(z.LS, top) {
		t.Errorf("fsspec inside arch.zip:\nfind %q\nls   %q\nwant bsdtar's members:\nfind %q\nls   %q", z.Find, z.LS, members, top)
	}
	if g := got[ts.URL+"/notes.txt.gz/"]; !slices.Equal(g.Find, []string{"notes.txt"}) || !slices.Equal(g.LS, []string{"notes.txt"}) {
		t.Errorf("fsspec inside notes.txt.gz: find %q, ls %q; want notes.txt", g.Find, g.LS)
	}
}
