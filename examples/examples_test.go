package examples_test

import (
	"bufio"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var examples = []string{"cat", "serve", "templates", "walk"}

// build compiles every example into a temporary directory and returns it.
func build(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds programs with the go tool")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool in PATH")
	}
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
		t.Skipf("no demo archive: %v", err)
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
		cmd := exec.Command(filepath.Join(bin, "serve"), "-addr", "127.0.0.1:0", demo+"|zip:site/")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		defer cmd.Process.Kill()

		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		var base string
		select {
		case line := <-lines:
			m := regexp.MustCompile(`serving (.*) on (http://\S+/)$`).FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("serve logged %q", line)
			}
			if want := demo + "|zip:site/"; m[1] != want {
				t.Errorf("serving %s, want %s", m[1], want)
			}
			base = m[2]
		case <-time.After(30 * time.Second):
			t.Fatal("serve logged no address")
		}
		go func() {
			for range lines { // drain the log
			}
		}()

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
}
