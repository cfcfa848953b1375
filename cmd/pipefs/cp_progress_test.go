package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/optflags"
)

// A zeros is size zero bytes, read without holding them.
type zeros struct{ off, size int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.off >= z.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), z.size-z.off))
	clear(p[:n])
	z.off += int64(n)
	return n, nil
}

func (z *zeros) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += z.off
	case io.SeekEnd:
		off += z.size
	}
	z.off = off
	return off, nil
}

// A heldFile is a file of heldServer. The request for a range that
// holds its byte at is answered once release is closed (never, when it is
// nil: until the client gives up), so that a copy of it lasts until the
// test has seen what it shows on the way.
type heldFile struct {
	open    func() io.ReadSeeker
	at      int64
	release chan struct{}
}

// The file of heldServer whose ETag changes for the ranges that start at
// changesAt or later (not the suffix read of the open), as an object
// replaced during a copy; the test holds the request that reaches
// changesAt until it has seen the bar.
const (
	changing  = "changing.bin"
	changesAt = 5 << 20
)

// heldServer serves files with ranges and a strong ETag, holding back
// the answers that reach their held byte.
func heldServer(t *testing.T, files map[string]heldFile) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := files[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		content := f.open()
		size, err := content.Seek(0, io.SeekEnd)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		first, last := rangeOf(r.Header.Get("Range"), size)
		if first <= f.at && f.at <= last {
			select {
			case <-f.release:
			case <-r.Context().Done():
				return
			}
		}
		etag := `"v1"`
		var start int64
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &start); err == nil && r.URL.Path == "/"+changing && start >= changesAt {
			etag = `"v2"` // the object changed under the copy
		}
		w.Header().Set("ETag", etag)
		http.ServeContent(w, r, r.URL.Path, modTime, content)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// rangeOf returns the first and last byte of the single range that the
// Range header h asks of a file of size bytes: the whole file when h is
// empty or more than one range.
func rangeOf(h string, size int64) (first, last int64) {
	spec, ok := strings.CutPrefix(h, "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return 0, size - 1
	}
	a, b, _ := strings.Cut(spec, "-")
	if a == "" { // the last b bytes
		n, _ := strconv.ParseInt(b, 10, 64)
		return max(size-n, 0), size - 1
	}
	first, _ = strconv.ParseInt(a, 10, 64)
	last = size - 1
	if n, err := strconv.ParseInt(b, 10, 64); err == nil {
		last = min(n, last)
	}
	return first, last
}

// barLine matches a progress bar as it goes: percent, bytes copied and to
// copy, rate, and the time spent and left.
var barLine = regexp.MustCompile(`(?m)^ *\d+% \|[█ ]+\| \([0-9.]+( [KMGT]?i?B)?/[0-9.]+ [KMGT]?i?B, [0-9.]+ [KMGT]?i?B/s\) \[[0-9hms.]+:[0-9hms.]+\] *$`)

// finalBar matches the bar of a copy that completed: full, with the
// rate and the time it took.
var finalBar = regexp.MustCompile(`^ *100% \|█+\| \([0-9.]+/[0-9.]+ [KMGT]?i?B, [0-9.]+ [KMGT]?i?B/s\) \[[0-9hms.]+\]$`)

// TestCpProgressTerminal runs cp in a real terminal, a tmux pane: a copy
// that lasts over a second (the server holds it back until the test has
// seen the bar) shows a bar with bytes, rate and time left, and ends with
// the full bar on a line of its own; -v lines of files copied four at a
// time print above the bar, each on its own line, in the order of the
// tree; a failure clears the bar before its message; Ctrl-C
// stops the copy with exit status 130, clears the bar and leaves no
// partial file.
func TestCpProgressTerminal(t *testing.T) {
	const size = 8 << 20
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for i := range 4 {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("part%d.bin", i), Method: zip.Store, Modified: modTime})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(fstest.RandomBytes(size/4, uint64(i)))
	}
	zw.Close()
	zipData := zbuf.Bytes()
	// Each copy is held back until the test has seen its bar, which
	// shows after a second; the interrupted one is never let through.
	bigGo, changeGo, zipGo := make(chan struct{}), make(chan struct{}), make(chan struct{})
	url := heldServer(t, map[string]heldFile{
		"big.bin":  {func() io.ReadSeeker { return &zeros{size: size} }, size / 2, bigGo},
		"huge.bin": {func() io.ReadSeeker { return &zeros{size: 1 << 40} }, 1 << 20, nil},
		changing:   {func() io.ReadSeeker { return &zeros{size: size} }, changesAt, changeGo},
		"a.zip":    {func() io.ReadSeeker { return bytes.NewReader(zipData) }, int64(len(zipData) / 2), zipGo},
	})
	dir := t.TempDir()
	term := newTerminal(t, 120, 40)
	// start runs pipefs with args in the cleared terminal, off the disk
	// cache; the shell then prints "EXIT=status".
	start := func(t *testing.T, args ...string) {
		t.Helper()
		term.start(t, optflags.CacheDirEnv+"=off "+cliLine(t, args...)+"; echo EXIT=$?")
	}
	waitForBar := func(t *testing.T) string {
		t.Helper()
		return term.waitFor(t, "a progress bar", barLine.MatchString)
	}

	t.Run("bar", func(t *testing.T) {
		start(t, "cp", url+"/big.bin", filepath.Join(dir, "big.bin"))
		waitForBar(t)
		close(bigGo)
		screen := term.wait(t)
		lines := screenLines(screen)
		if len(lines) != 2 || !finalBar.MatchString(lines[0]) || lines[1] != "EXIT=0" {
			t.Errorf("after the copy the screen shows:\n%s\nwant the full bar on a line, then EXIT=0", screen)
		}
		if st, err := os.Stat(filepath.Join(dir, "big.bin")); err != nil || st.Size() != size {
			t.Errorf("the copy: %v, %v", st, err)
		}
	})

	t.Run("verbose", func(t *testing.T) {
		dest := filepath.Join(dir, "tree")
		start(t, "cp", "-R", "-v", "--concurrency", "4", url+"/a.zip|zip:", dest)
		waitForBar(t)
		close(zipGo)
		screen := term.wait(t)
		var copied int
		for _, line := range screenLines(screen) {
			switch {
			case strings.Contains(line, " -> "):
				if !strings.HasPrefix(line, fmt.Sprintf("%s/a.zip|zip:part%d.bin -> ", url, copied)) || !strings.HasSuffix(line, " bytes)") {
					t.Errorf("the -v line %q is not a line of its own, or not the line of part%d.bin", line, copied)
				}
				copied++
			case finalBar.MatchString(line), line == "EXIT=0":
			default:
				t.Errorf("the screen shows a stray line %q", line)
			}
		}
		if copied != 4 {
			t.Errorf("the screen shows %d -v lines, want 4:\n%s", copied, screen)
		}
		if lines := screenLines(screen); len(lines) < 2 || !finalBar.MatchString(lines[len(lines)-2]) {
			t.Errorf("the last line before the prompt is not the full bar:\n%s", screen)
		}
	})

	t.Run("error", func(t *testing.T) {
		start(t, "cp", url+"/"+changing, filepath.Join(dir, changing))
		waitForBar(t)
		close(changeGo)
		screen := term.wait(t)
		lines := screenLines(screen)
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "pipefs: ") || !strings.Contains(lines[0], "modified") || lines[1] != "EXIT=1" {
			t.Errorf("after a failed copy the screen shows:\n%s\nwant the error on a clean line, then EXIT=1", screen)
		}
	})

	t.Run("interrupt", func(t *testing.T) {
		dest := filepath.Join(dir, "huge.bin")
		start(t, "cp", url+"/huge.bin", dest)
		waitForBar(t)
		term.press(t, "C-c")
		screen := term.wait(t)
		lines := screenLines(screen)
		if len(lines) != 2 || lines[0] != "pipefs: stopped: interrupt signal received" || lines[1] != "EXIT=130" {
			t.Errorf("after Ctrl-C the screen shows:\n%s\nwant the message on a clean line, then EXIT=130", screen)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "huge.bin") {
				t.Errorf("an interrupted copy left %s", e.Name())
			}
		}
	})
}

// screenLines returns the lines of a screen, which start cleared, without
// blank ones and the shell's prompt.
func screenLines(screen string) []string {
	var out []string
	for _, line := range strings.Split(screen, "\n") {
		line = strings.TrimRight(line, " ")
		if line == "" || line == "#" || line == "$" {
			continue
		}
		out = append(out, line)
	}
	return out
}

// TestCpProgressCounts runs cp -R -P -v off a terminal, three files at a
// time: the byte counts and the -v lines do not share a line, and the
// last count is the total.
func TestCpProgressCounts(t *testing.T) {
	zipURL := site(t, "cli/cp-counts")
	dest := filepath.Join(t.TempDir(), "site")
	r := runCLI(t, "cp", "-R", "-P", "-v", "--concurrency", "3", zipURL, dest)
	if r.code != 0 {
		t.Fatalf("cp -R -P -v: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	total := len("hello, world\n") + len(zipOf(t, entry{name: "hello.txt", body: "deep hello\n"})) + len("ref\n") + len("# Guide\n")
	if want := fmt.Sprintf("\r%d / %d bytes (100%%)\n", total, total); !strings.HasSuffix(r.stderr, want) {
		t.Errorf("stderr ends %q, want %q", r.stderr[max(0, len(r.stderr)-40):], want)
	}
	var copied int
	for _, line := range strings.Split(r.stderr, "\n") {
		if i := strings.Index(line, " -> "); i >= 0 {
			copied++
			if !strings.HasPrefix(line, zipURL+"|zip:") {
				t.Errorf("the -v line %q shares its line", line)
			}
		}
	}
	if copied != 7 {
		t.Errorf("stderr holds %d -v lines, want 7 (4 files, 3 directories):\n%s", copied, r.stderr)
	}
}
