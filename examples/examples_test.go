package examples_test

import (
	"archive/zip"
	"bufio"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

var examples = []string{"browse", "cat", "localzip", "serve", "templates", "walk"}

// build compiles every example into a temporary directory and returns it.
func build(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds programs with the go tool")
	}
	gotool := fstest.NeedTool(t, "go")
	bin := t.TempDir()
	args := []string{"build", "-o", bin + string(filepath.Separator)}
	for _, e := range examples {
		args = append(args, "./"+e)
	}
	cmd := exec.Command(gotool, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin
}

// demo returns the "file:" pipeline of testdata/demo.zip.
func demo(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", "testdata", "demo.zip"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("testdata/demo.zip, part of the repository, is missing: %v", err)
	}
	return "file:" + (&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath()
}

// runExample runs an example from the repository root and returns its
// standard output.
func runExample(t *testing.T, bin, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Dir = ".."
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, stderr.String())
	}
	return string(out)
}

func TestExamples(t *testing.T) {
	bin := build(t)
	demo := demo(t)

	t.Run("cat", func(t *testing.T) {
		got := runExample(t, bin, "cat", demo+"|zip:data/inner.zip|zip:deep.zip|zip:hello.txt", demo+"|zip:data/inner.zip|zip:notes/a.txt")
		want := "hello from three zips down\nFirst note: pipefs reads archives in place.\n"
		if got != want {
			t.Errorf("cat = %q, want %q", got, want)
		}
	})

	t.Run("localzip", func(t *testing.T) {
		got := runExample(t, bin, "localzip", "testdata/demo.zip", "data/inner.zip", "README.txt")
		// The standard library's reading of the same members.
		zr, err := zip.OpenReader(filepath.Join("..", "testdata", "demo.zip"))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		var want []byte
		for _, name := range []string{"data/inner.zip", "README.txt"} {
			b, err := fs.ReadFile(zr, name)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, b...)
		}
		if got != string(want) {
			t.Errorf("localzip printed %d bytes, want the %d bytes of data/inner.zip and README.txt", len(got), len(want))
		}
	})

	t.Run("walk", func(t *testing.T) {
		got := runExample(t, bin, "walk", demo, "templates/*.tmpl")
		want := `README.txt
data/
data/inner.zip
docs/
docs/guide.md
site/
site/index.html
site/style.css
templates/
templates/list.tmpl
templates/page.tmpl

2 matches for templates/*.tmpl:
templates/list.tmpl
templates/page.tmpl
`
		if got != want {
			t.Errorf("walk =\n%s\nwant:\n%s", got, want)
		}
		got = runExample(t, bin, "walk", demo+"|zip:data/inner.zip", "*/*.txt")
		want = `deep.zip
notes/
notes/a.txt
notes/b.txt

2 matches for */*.txt:
notes/a.txt
notes/b.txt
`
		if got != want {
			t.Errorf("walk of the inner zip =\n%s\nwant:\n%s", got, want)
		}
	})

	t.Run("templates", func(t *testing.T) {
		got := runExample(t, bin, "templates")
		want := `<!doctype html>
<title>Templates from a zip</title>
<h1>Templates from a zip</h1>
<ul>
  <li>parsed with template.ParseFS</li>
  <li>read in place, &lt;nothing&gt; extracted</li>
</ul>

`
		if got != want {
			t.Errorf("templates =\n%s\nwant:\n%s", got, want)
		}
	})

	t.Run("serve", func(t *testing.T) {
		base := startServer(t, bin, "serve", demo+"|zip:site/", demo+"|zip:site/")
		req, _ := http.NewRequest("GET", base+"index.html", nil)
		req.Header.Set("Range", "bytes=0-14")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusPartialContent || string(body) != "<!doctype html>" {
			t.Errorf("GET index.html bytes 0-14: %s %q, want 206 %q", resp.Status, body, "<!doctype html>")
		}

		resp, err = http.Get(base + "style.css")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(string(body), "body { font-family") {
			t.Errorf("GET style.css: %s %q", resp.Status, body)
		}
	})

	t.Run("browse", func(t *testing.T) {
		base := startServer(t, bin, "browse", demo, demo+"|zip:")
		// A file three archives down.
		if got := get(t, base+"data/inner.zip/deep.zip/hello.txt"); got != "hello from three zips down\n" {
			t.Errorf("GET data/inner.zip/deep.zip/hello.txt = %q", got)
		}
		// The page of the zip inside the zip.
		var page struct {
			Pipeline  string `json:"pipeline"`
			Directory struct {
				Entries []struct{ Name, Kind, Href string }
			} `json:"directory"`
		}
		if err := json.Unmarshal([]byte(get(t, base+"data/inner.zip/?format=json")), &page); err != nil {
			t.Fatal(err)
		}
		if want := demo + "|zip:data/inner.zip|zip:"; page.Pipeline != want {
			t.Errorf("data/inner.zip/ shows the pipeline %s, want %s", page.Pipeline, want)
		}
		var deep string
		for _, e := range page.Directory.Entries {
			if e.Name == "deep.zip" {
				deep = e.Kind + " " + e.Href
			}
		}
		if deep != "zip /data/inner.zip/deep.zip/" {
			t.Errorf("data/inner.zip/ lists deep.zip as %q, want a zip to step into; entries %+v", deep, page.Directory.Entries)
		}
	})
}

// startServer starts the example name, which serves the pipeline arg on
// a loopback port it picks and logs "serving PIPELINE on URL", and returns
// its URL; the program is killed when the test ends. PIPELINE, the
// pipeline arg opened as, must be want.
func startServer(t *testing.T, bin, name, arg, want string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name), "-addr", "127.0.0.1:0", arg)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	line := fstest.WaitChan(t, name+" to log its address", lines, nil)
	m := regexp.MustCompile(`serving (.*) on (http://\S+/)$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("%s logged %q", name, line)
	}
	if m[1] != want {
		t.Errorf("%s is serving %s, want %s", name, m[1], want)
	}
	go func() {
		for range lines { // drain the log
		}
	}()
	return m[2]
}

// get returns the body of a 200 answer to GET url.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s, %v\n%s", url, resp.Status, err, body)
	}
	return string(body)
}

// remotePackages are import-path prefixes of what the remote roots pull
// in: the cloud SDKs, gRPC and net/http. A program that imports only
// package pipefs must not depend on any of them.
var remotePackages = []string{
	"github.com/aws/",
	"cloud.google.com/",
	"google.golang.org/grpc",
	"google.golang.org/api/",
	"net/http",
	"github.com/pipefs/pipefs/roots/",
}

// localRoots are the roots package pipefs registers.
var localRoots = map[string]bool{
	"github.com/pipefs/pipefs/roots/fileroot": true,
	"github.com/pipefs/pipefs/roots/memroot":  true,
}

// deps returns what go list -deps says pkg depends on, itself included.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go list")
	}
	gotool := fstest.NeedTool(t, "go")
	out, err := exec.Command(gotool, "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// remote returns the packages of list that are remote-root dependencies.
func remote(list []string) []string {
	var out []string
	for _, p := range list {
		if localRoots[p] {
			continue
		}
		for _, prefix := range remotePackages {
			if strings.HasPrefix(p, prefix) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// TestLocalZipPaysForNoRemoteRoot checks that a program that imports only
// package pipefs to read a local zip depends on no cloud SDK, no gRPC and
// no HTTP client, while package all brings the remote roots.
func TestLocalZipPaysForNoRemoteRoot(t *testing.T) {
	for _, pkg := range []string{"./localzip", "github.com/pipefs/pipefs"} {
		list := deps(t, pkg)
		if !slices.Contains(list, "github.com/pipefs/pipefs/adapters/zipadapter") {
			t.Errorf("%s does not depend on zipadapter; go list -deps printed %d packages", pkg, len(list))
		}
		if r := remote(list); len(r) > 0 {
			t.Errorf("%s depends on %d remote-root packages:\n%s", pkg, len(r), strings.Join(r, "\n"))
		}
	}
	// The check finds them where they are.
	all := remote(deps(t, "github.com/pipefs/pipefs/all"))
	for _, want := range []string{
		"github.com/pipefs/pipefs/roots/s3root",
		"github.com/pipefs/pipefs/roots/gsroot",
		"github.com/pipefs/pipefs/roots/httproot",
		"github.com/aws/aws-sdk-go-v2/service/s3",
		"cloud.google.com/go/storage",
		"net/http",
	} {
		if !slices.Contains(all, want) {
			t.Errorf("package all does not depend on %s", want)
		}
	}
}
