package main

import (
	"archive/zip"
	"bytes"
	"context"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/internal/optflags"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) != "" {
		// A child process of a test that needs real signals: be the CLI.
		main()
	}
	// Listings print local time; pin it so that expected output is exact.
	time.Local = time.UTC
	// The index cache on disk is off unless a test sets a directory, so
	// that tests neither depend on what earlier runs left behind nor fill
	// the user's cache directory; the processes that tests start inherit
	// it.
	if _, set := os.LookupEnv(optflags.CacheDirEnv); !set {
		os.Setenv(optflags.CacheDirEnv, "off")
	}
	// A completion gives up after 3 s and then offers nothing, which a
	// busy machine can make a test see: the tests, and the processes and
	// shells they start, which inherit it, allow an hour (go test's
	// -timeout ends a test that hangs first). TestCompleteTimeout sets
	// its own.
	os.Setenv("PIPEFS_COMPLETE_TIMEOUT", testCompleteTimeout)
	os.Exit(m.Run())
}

// testCompleteTimeout is the time limit of a completion in the tests.
const testCompleteTimeout = "1h"

// result is what one run of the command line gave.
type result struct {
	stdout, stderr string
	code           int
}

// runCLI runs the command line args in-process.
func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), args, &stdout, &stderr)
	return result{stdout.String(), stderr.String(), code}
}

// mustRun runs args and fails the test unless they succeed.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	r := runCLI(t, args...)
	if r.code != 0 {
		t.Fatalf("pipefs %q: exit %d, stderr:\n%s", args, r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("pipefs %q: stderr:\n%s", args, r.stderr)
	}
	return r.stdout
}

// modTime is the modification time of every zip entry the tests build.
var modTime = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// An entry is one member of a test zip; a name ending in "/" is a
// directory.
type entry struct {
	name, body string
	store      bool // stored rather than deflated
}

// zipOf builds a zip archive in memory.
func zipOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: modTime}
		if e.store {
			h.Method = zip.Store
		}
		if strings.HasSuffix(e.name, "/") {
			h.Method = zip.Store
			h.SetMode(fs.ModeDir | 0o755)
		} else {
			h.SetMode(0o644)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// site puts a small nested archive in the memory store under dir and
// returns the pipeline of its zip file:
//
//	README.txt            "hello, world\n"
//	docs/guide.md         "# Guide\n"
//	docs/api/ref.txt      "ref\n"
//	data/inner.zip        (stored) hello.txt "deep hello\n"
func site(t *testing.T, dir string) string {
	t.Helper()
	name := dir + "/site.zip"
	if err := memroot.WriteFile(name, siteZip(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { memroot.RemoveAll(dir) })
	return "memory:" + name
}

// siteZip builds the zip of site.
func siteZip(t *testing.T) []byte {
	t.Helper()
	inner := zipOf(t, entry{name: "hello.txt", body: "deep hello\n"})
	outer := zipOf(t,
		entry{name: "README.txt", body: "hello, world\n"},
		entry{name: "data/"},
		entry{name: "data/inner.zip", body: string(inner), store: true},
		entry{name: "docs/"},
		entry{name: "docs/api/"},
		entry{name: "docs/api/ref.txt", body: "ref\n"},
		entry{name: "docs/guide.md", body: "# Guide\n"},
	)
	return outer
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // a part of stderr
	}{
		{"unknown flag", []string{"ls", "--bogus", "memory:"}, 2, "pipefs: unknown flag: --bogus"},
		{"unknown short flag", []string{"ls", "-z", "memory:"}, 2, "pipefs: unknown shorthand flag: 'z' in -z"},
		{"no argument", []string{"ls"}, 2, "pipefs: requires at least 1 arg(s), only received 0"},
		{"too many arguments", []string{"stat", "memory:a", "memory:b"}, 2, "pipefs: accepts 1 arg(s), received 2"},
		{"cat without arguments", []string{"cat"}, 2, "pipefs: requires at least 1 arg(s), only received 0"},
		{"unknown command", []string{"frobnicate"}, 2, `pipefs: unknown command "frobnicate" for "pipefs"`},
		{"usage hint", []string{"tree"}, 2, "Run 'pipefs tree --help' for usage."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, tc.args...)
			if r.code != tc.code {
				t.Errorf("pipefs %q: exit %d, want %d", tc.args, r.code, tc.code)
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("pipefs %q: stderr = %q, want it to contain %q", tc.args, r.stderr, tc.stderr)
			}
			if r.stdout != "" {
				t.Errorf("pipefs %q: stdout = %q, want nothing", tc.args, r.stdout)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, cmd := range []string{"resolve", "ls", "tree", "cat", "cp", "stat", "serve"} {
		t.Run(cmd, func(t *testing.T) {
			out := mustRun(t, cmd, "--help")
			for _, want := range []string{"Usage:\n  pipefs " + cmd, "Examples:\n  pipefs " + cmd, "--no-detect"} {
				if !strings.Contains(out, want) {
					t.Errorf("pipefs %s --help does not contain %q:\n%s", cmd, want, out)
				}
			}
		})
	}
	if out := mustRun(t); !strings.Contains(out, "Available Commands:") {
		t.Errorf("pipefs with no arguments does not list the commands:\n%s", out)
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name string
		args []string
		out  string
		err  string // checked as by checkLines when set
		code int
	}{
		{
			name: "canonical",
			args: []string{"FILE:/d/a.zip|ZIP", "memory://x.zip|zip:a/b.txt", "file:/d/a.zip|zip:x.zip|..:y.txt"},
			out:  "file:/d/a.zip|zip:\nmemory://x.zip|zip:a/b.txt\nfile:/d/y.txt\n",
		},
		{
			name: "invalid ones go to stderr, the others print",
			args: []string{"tar:x", "file:/d/a.zip", "file:/x|", "zip://x"},
			out:  "file:/d/a.zip\n",
			err: `pipefs: invalid pipeline: sub-URL 0 "tar:x": ` + "\n" +
				"pipefs: \n" +
				"pipefs: \n",
			code: 1,
		},
		{
			name: "typed characters are encoded",
			args: []string{"file:/d/bf v2.zip|zip:世界", "file:/d/100%.zip|zip:a b/Auto links.text"},
			out:  "file:/d/bf%20v2.zip|zip:%E4%B8%96%E7%95%8C\nfile:/d/100%25.zip|zip:a%20b/Auto%20links.text\n",
		},
		{
			name: "relative",
			args: []string{"--base", "file:/d/a.zip|zip:docs/index.html", "img/logo.png", "../b.txt", "..:b.zip|zip:c.txt", "", "memory:x"},
			out:  "file:/d/a.zip|zip:docs/img/logo.png\nfile:/d/a.zip|zip:b.txt\nfile:/d/b.zip|zip:c.txt\nfile:/d/a.zip|zip:docs/index.html\nmemory:x\n",
		},
		{
			name: "relative climbs no higher than the container",
			args: []string{"--base", "file:/d/a.zip|zip:docs/index.html", "../../../etc/passwd"},
			out:  "file:/d/a.zip|zip:etc/passwd\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, append([]string{"resolve"}, tc.args...)...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			checkLines(t, r.stdout, tc.out)
			if tc.err != "" {
				checkLines(t, r.stderr, tc.err)
			}
		})
	}
}

// checkLines compares output line by line; a wanted line ending in ": " or
// equal to "error: " is a prefix.
func checkLines(t *testing.T, got, want string) {
	t.Helper()
	g := strings.Split(got, "\n")
	w := strings.Split(want, "\n")
	if len(g) != len(w) {
		t.Errorf("output:\n%s\nwant lines:\n%s", got, want)
		return
	}
	for i := range w {
		if strings.HasSuffix(w[i], ": ") {
			if !strings.HasPrefix(g[i], w[i]) {
				t.Errorf("line %d = %q, want prefix %q", i+1, g[i], w[i])
			}
			continue
		}
		if g[i] != w[i] {
			t.Errorf("line %d = %q, want %q", i+1, g[i], w[i])
		}
	}
}

func TestResolveBadBase(t *testing.T) {
	r := runCLI(t, "resolve", "--base", "zip:x", "a")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "pipefs: --base: invalid pipeline") {
		t.Errorf("resolve with a bad base: exit %d, stderr %q; want 1 and a message about --base", r.code, r.stderr)
	}
}

func TestResolveDetect(t *testing.T) {
	zipURL := site(t, "cli/resolve")
	out := mustRun(t, "resolve", "--detect",
		zipURL,
		zipURL+"|zip:data/inner.zip",
		zipURL+"|zip:docs",
		zipURL+"|zip:README.txt",
		"MEMORY:cli/resolve/",
	)
	want := zipURL + "|zip:\n" +
		zipURL + "|zip:data/inner.zip|zip:\n" +
		zipURL + "|zip:docs\n" +
		zipURL + "|zip:README.txt\n" +
		"memory:cli/resolve/\n"
	if out != want {
		t.Errorf("resolve --detect:\n%s\nwant:\n%s", out, want)
	}

	r := runCLI(t, "resolve", "--detect", zipURL+"|zip:nope.txt")
	if r.code != 1 || r.stdout != "" || !strings.HasPrefix(r.stderr, `pipefs: `) || !strings.Contains(r.stderr, `sub-URL 1 "zip:nope.txt"`) {
		t.Errorf("resolve --detect of a missing member: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestLs(t *testing.T) {
	zipURL := site(t, "cli/ls")
	if err := memroot.WriteFile("cli/ls/notes.txt", []byte("notes")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		out  string
	}{
		{"container file", []string{zipURL}, "README.txt\ndata/\ndocs/\n"},
		{"explicit adapter", []string{zipURL + "|zip:"}, "README.txt\ndata/\ndocs/\n"},
		{"subdirectory", []string{zipURL + "|zip:docs/"}, "api/\nguide.md\n"},
		{"subdirectory without slash", []string{zipURL + "|zip:docs"}, "api/\nguide.md\n"},
		{"nested", []string{zipURL + "|zip:data/inner.zip"}, "hello.txt\n"},
		{"memory directory", []string{"memory:cli/ls"}, "notes.txt\nsite.zip\n"},
		{"plain file", []string{"memory:cli/ls/notes.txt"}, "memory:cli/ls/notes.txt\n"},
		{"member file", []string{zipURL + "|zip:docs/guide.md"}, zipURL + "|zip:docs/guide.md\n"},
		{"no-detect lists the zip as a file", []string{"--no-detect", zipURL}, zipURL + "\n"},
		{
			"recursive",
			[]string{"-R", zipURL},
			"README.txt\ndata/\ndata/inner.zip\ndocs/\ndocs/api/\ndocs/api/ref.txt\ndocs/guide.md\n",
		},
		{"recursive subdirectory", []string{"ls", zipURL + "|zip:docs/", "-R"}, "api/\napi/ref.txt\nguide.md\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if args[0] != "ls" {
				args = append([]string{"ls"}, args...)
			}
			if out := mustRun(t, args...); out != tc.out {
				t.Errorf("pipefs %q:\n%s\nwant:\n%s", args, out, tc.out)
			}
		})
	}
}

func TestLsLong(t *testing.T) {
	zipURL := site(t, "cli/lslong")
	out := mustRun(t, "ls", "-l", zipURL)
	want := "" +
		"13  -rw-r--r--  2024-01-02 03:04:05  README.txt\n" +
		" -  dr-xr-xr-x  2024-01-02 03:04:05  data/\n" +
		" -  dr-xr-xr-x  2024-01-02 03:04:05  docs/\n"
	if out != want {
		t.Errorf("ls -l:\n%s\nwant:\n%s", out, want)
	}

	innerSize := len(zipOf(t, entry{name: "hello.txt", body: "deep hello\n"}))
	out = mustRun(t, "ls", "-lR", zipURL)
	want = "" +
		" 13  -rw-r--r--  2024-01-02 03:04:05  README.txt\n" +
		"  -  dr-xr-xr-x  2024-01-02 03:04:05  data/\n" +
		strconv.Itoa(innerSize) + "  -rw-r--r--  2024-01-02 03:04:05  data/inner.zip\n" +
		"  -  dr-xr-xr-x  2024-01-02 03:04:05  docs/\n" +
		"  -  dr-xr-xr-x  2024-01-02 03:04:05  docs/api/\n" +
		"  4  -rw-r--r--  2024-01-02 03:04:05  docs/api/ref.txt\n" +
		"  8  -rw-r--r--  2024-01-02 03:04:05  docs/guide.md\n"
	if innerSize < 100 || innerSize > 999 {
		t.Fatalf("inner.zip is %d bytes; the expected columns assume 3 digits", innerSize)
	}
	if out != want {
		t.Errorf("ls -lR:\n%s\nwant:\n%s", out, want)
	}

	out = mustRun(t, "ls", "-l", zipURL+"|zip:docs/guide.md")
	want = "8  -rw-r--r--  2024-01-02 03:04:05  " + zipURL + "|zip:docs/guide.md\n"
	if out != want {
		t.Errorf("ls -l of a file:\n%s\nwant:\n%s", out, want)
	}
}

func TestLsErrors(t *testing.T) {
	zipURL := site(t, "cli/lserr")
	tests := []struct {
		name   string
		args   []string
		stderr string // a part of stderr
	}{
		{"missing member", []string{"ls", zipURL + "|zip:nope/"}, `sub-URL 1 "zip:nope/"`},
		{"missing file", []string{"ls", "memory:cli/lserr/nope.zip|zip:"}, `sub-URL 0 "memory:cli/lserr/nope.zip"`},
		{"not a zip", []string{"ls", zipURL + "|zip:README.txt|zip:"}, `sub-URL 2 "zip:"`},
		{"invalid", []string{"ls", "memory:x|zip://y"}, `invalid pipeline: sub-URL 1 "zip://y"`},
		{"unknown scheme", []string{"ls", "acme.thing:x"}, `acme.thing`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, tc.args...)
			if r.code != 1 {
				t.Errorf("pipefs %q: exit %d, want 1", tc.args, r.code)
			}
			if !strings.HasPrefix(r.stderr, "pipefs: ") || !strings.Contains(r.stderr, tc.stderr) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("pipefs %q: stderr = %q, want one line \"pipefs: ...\" containing %q", tc.args, r.stderr, tc.stderr)
			}
			if r.stdout != "" {
				t.Errorf("pipefs %q: stdout = %q, want nothing", tc.args, r.stdout)
			}
		})
	}
}

func TestCat(t *testing.T) {
	zipURL := site(t, "cli/cat")
	out := mustRun(t, "cat", zipURL+"|zip:README.txt", zipURL+"|zip:data/inner.zip|zip:hello.txt", zipURL+"|zip:docs/guide.md")
	if want := "hello, world\ndeep hello\n# Guide\n"; out != want {
		t.Errorf("cat = %q, want %q", out, want)
	}

	// A failure is reported and the other files are still copied.
	r := runCLI(t, "cat", zipURL+"|zip:README.txt", zipURL+"|zip:nope.txt", zipURL+"|zip:docs", zipURL+"|zip:docs/api/ref.txt")
	if r.code != 1 {
		t.Errorf("cat with failures: exit %d, want 1", r.code)
	}
	if want := "hello, world\nref\n"; r.stdout != want {
		t.Errorf("cat with failures: stdout = %q, want %q", r.stdout, want)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "pipefs: ") || !strings.Contains(lines[0], `sub-URL 1 "zip:nope.txt"`) || !strings.Contains(lines[0], "not exist") ||
		!strings.HasPrefix(lines[1], "pipefs: ") || !strings.Contains(lines[1], `"zip:docs"`) || !strings.Contains(lines[1], "is a directory") {
		t.Errorf("cat with failures: stderr:\n%s\nwant a line naming zip:nope.txt (does not exist) and one naming zip:docs (is a directory)", r.stderr)
	}
}

func TestCp(t *testing.T) {
	zipURL := site(t, "cli/cp")
	dir := t.TempDir()

	mustRun(t, "cp", zipURL+"|zip:docs/guide.md", dir)
	mustRun(t, "cp", zipURL+"|zip:data/inner.zip|zip:hello.txt", dir+"/renamed.txt")
	for name, want := range map[string]string{"guide.md": "# Guide\n", "renamed.txt": "deep hello\n"} {
		got, err := os.ReadFile(dir + "/" + name)
		if err != nil || string(got) != want {
			t.Errorf("cp wrote %s = %q, %v; want %q", name, got, err, want)
		}
	}
	if out := mustRun(t, "cp", zipURL+"|zip:README.txt", "-"); out != "hello, world\n" {
		t.Errorf("cp to - = %q", out)
	}

	r := runCLI(t, "cp", "--progress", zipURL+"|zip:docs/api/ref.txt", dir+"/ref.txt")
	if r.code != 0 || !strings.HasSuffix(r.stderr, "\r4 / 4 bytes (100%)\n") {
		t.Errorf("cp --progress: exit %d, stderr %q; want it to end with the full count", r.code, r.stderr)
	}
	if got, err := os.ReadFile(dir + "/ref.txt"); err != nil || string(got) != "ref\n" {
		t.Errorf("cp --progress wrote %q, %v", got, err)
	}

	r = runCLI(t, "cp", zipURL+"|zip:nope", dir+"/nope")
	if r.code != 1 || !strings.Contains(r.stderr, `sub-URL 1 "zip:nope"`) {
		t.Errorf("cp of a missing member: exit %d, stderr %q", r.code, r.stderr)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Errorf("after cp, %s holds %d files, want 3 (no partial file)", dir, len(ents))
	}
}

func TestTree(t *testing.T) {
	zipURL := site(t, "cli/tree")
	innerSize := len(zipOf(t, entry{name: "hello.txt", body: "deep hello\n"}))
	out := mustRun(t, "tree", zipURL)
	want := zipURL + "|zip:\n" +
		"├── README.txt (13)\n" +
		"├── data/\n" +
		"│   └── inner.zip (" + strconv.Itoa(innerSize) + ")\n" +
		"└── docs/\n" +
		"    ├── api/\n" +
		"    │   └── ref.txt (4)\n" +
		"    └── guide.md (8)\n" +
		"\n" +
		"3 directories, 4 files\n"
	if out != want {
		t.Errorf("tree:\n%s\nwant:\n%s", out, want)
	}

	out = mustRun(t, "tree", zipURL+"|zip:data/inner.zip")
	want = zipURL + "|zip:data/inner.zip|zip:\n└── hello.txt (11)\n\n0 directories, 1 file\n"
	if out != want {
		t.Errorf("tree of a nested zip:\n%s\nwant:\n%s", out, want)
	}
}

func TestStat(t *testing.T) {
	zipURL := site(t, "cli/stat")
	out := mustRun(t, "stat", zipURL+"|zip:docs/guide.md")
	for _, want := range []string{
		"Name:     guide.md\n",
		"Type:     regular file\n",
		"Size:     8\n",
		"Mode:     -rw-r--r--\n",
		"Modified: 2024-01-02T03:04:05Z\n",
		"URL:      " + zipURL + "|zip:docs/guide.md\n",
		"Header:   ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stat output does not contain %q:\n%s", want, out)
		}
	}

	out = mustRun(t, "stat", zipURL+"|zip:docs")
	if !strings.Contains(out, "Type:     directory\n") {
		t.Errorf("stat of a directory:\n%s", out)
	}
	// stat detects nothing: the zip file itself.
	out = mustRun(t, "stat", zipURL)
	if !strings.Contains(out, "Name:     site.zip\nType:     regular file\n") {
		t.Errorf("stat of the zip file:\n%s", out)
	}
}

func TestStatZipHeader(t *testing.T) {
	zipURL := site(t, "cli/statzip")
	out := mustRun(t, "stat", zipURL+"|zip:docs/guide.md")
	if !strings.Contains(out, "Header:   *zip.FileHeader\n") {
		t.Fatalf("stat does not show the *zip.FileHeader that the zip adapter exposes:\n%s", out)
	}
	for _, want := range []string{
		`\n  Name: +docs/guide\.md\n`,
		`\n  Method: +Deflate \(8\)\n`,
		`\n  Modified: +2024-01-02T03:04:05Z\n`,
		`\n  CRC32: +0fa67ba2\n`, // crc32.ChecksumIEEE([]byte("# Guide\n"))
		`\n  CompressedSize64: +\d+\n`,
		`\n  UncompressedSize64: 8\n`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("stat output does not match %s:\n%s", want, out)
		}
	}
}

func TestStatJSON(t *testing.T) {
	zipURL := site(t, "cli/statjson")
	out := mustRun(t, "stat", "--json", zipURL+"|zip:README.txt")
	for _, want := range []string{
		`"name": "README.txt"`,
		`"size": 13`,
		`"mode": "-rw-r--r--"`,
		`"is_dir": false`,
		`"mod_time": "2024-01-02T03:04:05Z"`,
		`"url": "` + zipURL + `|zip:README.txt"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stat --json does not contain %s:\n%s", want, out)
		}
	}
}

func TestErrorNamesSubURL(t *testing.T) {
	zipURL := site(t, "cli/errors")
	r := runCLI(t, "stat", zipURL+"|zip:data/inner.zip|zip:missing.txt")
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	if !strings.HasPrefix(r.stderr, "pipefs: ") || !strings.Contains(r.stderr, `sub-URL 2 "zip:missing.txt"`) {
		t.Errorf("stderr = %q, want it to name sub-URL 2 \"zip:missing.txt\"", r.stderr)
	}
}

func TestCanceled(t *testing.T) {
	zipURL := site(t, "cli/canceled")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"cat", zipURL + "|zip:README.txt", zipURL + "|zip:missing.txt"}, &stdout, &stderr); code != exitInterrupted {
		t.Errorf("cat with a canceled context: exit %d, want %d", code, exitInterrupted)
	}
	// Reported once, and the second argument is never tried.
	if got, want := stderr.String(), "pipefs: stopped: context canceled\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}

func TestRelativeArgs(t *testing.T) {
	dir := t.TempDir() + "/a b|c"
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/site.zip", siteZip(t), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	abs := "file:" + strings.NewReplacer(" ", "%20", "|", "%7C").Replace(dir)

	if out, want := mustRun(t, "resolve", "--base", ".", "site.zip", "./site.zip|zip:docs/", "../x"), abs+"/site.zip\n"+abs+"/site.zip|zip:docs/\n"+strings.TrimSuffix(abs, "/a%20b%7Cc")+"/x\n"; out != want {
		t.Errorf("resolve of relative pipelines:\n%s\nwant:\n%s", out, want)
	}
	if out, want := mustRun(t, "resolve", "--base", ".", "--detect", "site.zip"), abs+"/site.zip|zip:\n"; out != want {
		t.Errorf("resolve --detect site.zip = %q, want %q", out, want)
	}
	// Without --base, resolve reads arguments as the other commands do.
	if out, want := mustRun(t, "resolve", "site.zip", "site.zip|zip:docs/", "../x", "nope dir/b.zip|zip:c d"), abs+"/site.zip\n"+abs+"/site.zip|zip:docs/\n"+strings.TrimSuffix(abs, "/a%20b%7Cc")+"/x\n"+abs+"/nope%20dir/b.zip|zip:c%20d\n"; out != want {
		t.Errorf("resolve of relative pipelines without --base:\n%s\nwant:\n%s", out, want)
	}
	if out, want := mustRun(t, "ls", "site.zip"), "README.txt\ndata/\ndocs/\n"; out != want {
		t.Errorf("ls site.zip = %q, want %q", out, want)
	}
	if out, want := mustRun(t, "cat", "site.zip|zip:data/inner.zip|zip:hello.txt"), "deep hello\n"; out != want {
		t.Errorf("cat = %q, want %q", out, want)
	}
	if out, want := mustRun(t, "stat", "site.zip|zip:README.txt"), "URL:      "+abs+"/site.zip|zip:README.txt\n"; !strings.Contains(out, want) {
		t.Errorf("stat:\n%s\nwant a line %q", out, want)
	}
	if out := mustRun(t, "tree", "."); !strings.HasPrefix(out, abs+"/\n└── site.zip (") {
		t.Errorf("tree . =\n%s", out)
	}
	r := runCLI(t, "cat", "nope.zip|zip:a")
	// The sub-URL is named as typed: "a b%7Cc", with "|" escaped.
	if r.code != 1 || !strings.Contains(r.stderr, `sub-URL 0 "`+vfs.DisplayText(abs)+`/nope.zip"`) ||
		!strings.Contains(r.stderr, "a b%7Cc/nope.zip") || !strings.Contains(r.stderr, "(canonical "+abs+"/nope.zip|zip:a)") {
		t.Errorf("cat of a missing relative file: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestComplete(t *testing.T) {
	zipURL := site(t, "cli/complete")
	tests := []struct {
		name string
		args []string
		out  string // completions, then the directive
	}{
		{"into a zip", []string{"ls", zipURL + "|zip:"}, zipURL + "|zip:README.txt\n" + zipURL + "|zip:data/\n" + zipURL + "|zip:docs/\n:6\n"},
		{"a prefix", []string{"cat", zipURL + "|zip:do"}, zipURL + "|zip:docs/\n:6\n"},
		{"a subdirectory", []string{"stat", zipURL + "|zip:docs/g"}, zipURL + "|zip:docs/guide.md\n:6\n"},
		{"a nested zip", []string{"tree", zipURL + "|zip:data/in"}, zipURL + "|zip:data/inner.zip\n" + zipURL + "|zip:data/inner.zip|zip:\n:6\n"},
		{"the memory root", []string{"ls", "memory:cli/complete/s"}, zipURL + "\n" + zipURL + "|zip:\n:6\n"},
		{"no local path and no root scheme", []string{"ls", "nosuchd"}, ":6\n"},
		{"a root scheme", []string{"ls", "memo"}, "memory:\n:6\n"},
		{"a second argument", []string{"tree", zipURL, "x"}, ":4\n"},
		{"a second URL of ls", []string{"ls", zipURL, zipURL + "|zip:do"}, zipURL + "|zip:docs/\n:6\n"},
		{"the destination of cp", []string{"cp", zipURL, "x"}, ":0\n"},
		{"a missing directory", []string{"ls", "memory:cli/complete/nope.zip|zip:"}, ":5\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, append([]string{"__complete"}, tc.args...)...)
			if r.code != 0 || r.stdout != tc.out {
				t.Errorf("complete %q: exit %d\n%s\nwant:\n%s", tc.args, r.code, r.stdout, tc.out)
			}
		})
	}
}
