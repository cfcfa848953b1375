package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// needFUSE stops t when FUSE cannot be mounted here: it skips outside CI
// and fails in CI, which always has /dev/fuse and fusermount3.
func needFUSE(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		fstest.Unavailable(t, "FUSE is not available: %v", err)
	}
	fstest.NeedTool(t, "fusermount3")
}

// buildCLI builds the pipefs command into a temporary directory and
// returns the path of the program.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pipefs")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// mounted reports whether dir is a mount point, by /proc/self/mountinfo.
func mounted(t *testing.T, dir string) bool {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if f := strings.Fields(line); len(f) > 4 && f[4] == dir {
			return true
		}
	}
	return false
}

// A mountProc is a pipefs mount running in a child process.
type mountProc struct {
	cmd    *exec.Cmd
	dir    string
	ready  string // the line it printed once mounted
	stderr *bytes.Buffer
	exited chan struct{} // closed when Wait has returned
}

// startMount runs "pipefs mount archive DIR" on a new directory and waits
// for its ready line. Cleanup kills it and unmounts DIR, lazily, if the
// test left either behind.
func startMount(t *testing.T, bin, archive string) *mountProc {
	t.Helper()
	return startMountOn(t, bin, archive, t.TempDir())
}

// startMountOn is startMount on the directory dir.
func startMountOn(t *testing.T, bin, archive, dir string) *mountProc {
	t.Helper()
	cmd := exec.Command(bin, "--cache-dir=off", "mount", archive, dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &mountProc{cmd: cmd, dir: dir, stderr: new(bytes.Buffer), exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exited
		if mounted(t, dir) {
			t.Errorf("%s is still mounted", dir)
			if out, err := exec.Command("fusermount3", "-u", "-z", dir).CombinedOutput(); err != nil {
				t.Errorf("fusermount3 -u -z: %v: %s", err, out)
			}
		}
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
	}()
	p.ready = waitChan(t, "the ready line of pipefs mount", lines, func() string { return "stderr: " + p.stderr.String() })
	if p.ready == "" {
		<-p.exited
		t.Fatalf("pipefs mount exited (%v) without a ready line; stderr: %s", cmd.ProcessState, p.stderr)
	}
	return p
}

// wait waits for the process to exit, and fails t if it does not by
// waitDeadline.
func (p *mountProc) wait(t *testing.T) int {
	t.Helper()
	waitChan(t, "pipefs mount to exit", p.exited, func() string { return "stderr: " + p.stderr.String() })
	return p.cmd.ProcessState.ExitCode()
}

// mountZip writes the site zip to a new directory and returns its path.
func mountZip(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "site.zip")
	if err := os.WriteFile(path, siteZip(t), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMountProcess runs pipefs mount, built into a temporary directory,
// as a process of its own, and ends it in each way it can end.
func TestMountProcess(t *testing.T) {
	needFUSE(t)
	bin := buildCLI(t)
	t.Run("signals", func(t *testing.T) { testMountSignals(t, bin) })
	t.Run("busy", func(t *testing.T) { testMountBusy(t, bin) })
	t.Run("unmounted-outside", func(t *testing.T) { testMountUnmountedOutside(t, bin) })
	t.Run("not-empty", func(t *testing.T) { testMountNotEmpty(t, bin) })
	t.Run("compressed", func(t *testing.T) { testMountCompressed(t, bin) })
}

// testMountCompressed mounts a gzip of text, as written and with its
// adapter written out: the mount is a folder that holds the decompressed
// file, read whole and at an offset as any member is.
func testMountCompressed(t *testing.T, bin string) {
	text := bytes.Repeat([]byte("0123456789abcdef"), 1<<14)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(text)
	w.Close()
	path := filepath.Join(t.TempDir(), "big.txt.gz")
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{path, "file:" + path + "|gzip:"} {
		t.Run(filepath.Base(arg), func(t *testing.T) {
			p := startMount(t, bin, arg)
			if want := fmt.Sprintf("mounted file:%s|gzip: on ", path); !strings.HasPrefix(p.ready, want) {
				t.Errorf("ready line = %q, want it to start %q", p.ready, want)
			}
			ents, err := os.ReadDir(p.dir)
			if err != nil || len(ents) != 1 || ents[0].Name() != "big.txt" || !ents[0].Type().IsRegular() {
				t.Errorf("ReadDir of the mount = %v, %v; want the one file big.txt", ents, err)
			}
			got, err := os.ReadFile(filepath.Join(p.dir, "big.txt"))
			if err != nil || !bytes.Equal(got, text) {
				t.Errorf("reading big.txt through the mount: %d bytes, %v; want the %d bytes written", len(got), err, len(text))
			}
			f, err := os.Open(filepath.Join(p.dir, "big.txt"))
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 16)
			if _, err := f.ReadAt(buf, 16*10000+3); err != nil || string(buf) != "3456789abcdef012" {
				t.Errorf("ReadAt through the mount = %q, %v", buf, err)
			}
			f.Close()
			if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t); code != 0 {
				t.Errorf("exit status %d, want 0; stderr: %s", code, p.stderr)
			}
		})
	}
}

// testMountSignals mounts a zip, reads through the mount, and stops it
// with SIGINT, then SIGTERM: the mount is gone and the exit status is 0.
func testMountSignals(t *testing.T, bin string) {
	archive := mountZip(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			p := startMount(t, bin, archive)
			want := fmt.Sprintf("mounted file:%s|zip: on %s; unmount with Ctrl-C or fusermount3 -u %s\n", archive, p.dir, p.dir)
			if p.ready != want {
				t.Errorf("ready line = %q, want %q", p.ready, want)
			}
			if !mounted(t, p.dir) {
				t.Fatalf("%s is not in /proc/self/mountinfo after the ready line", p.dir)
			}
			got, err := os.ReadFile(filepath.Join(p.dir, "docs", "guide.md"))
			if err != nil || string(got) != "# Guide\n" {
				t.Errorf("reading docs/guide.md through the mount: %q, %v", got, err)
			}
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t); code != 0 {
				t.Errorf("exit status %d after %v, want 0; stderr: %s", code, sig, p.stderr)
			}
			if mounted(t, p.dir) {
				t.Errorf("%s is still mounted after %v", p.dir, sig)
			}
			if p.stderr.Len() != 0 {
				t.Errorf("stderr: %s", p.stderr)
			}
		})
	}
}

// testMountBusy stops a mount in which a file is open: the mount is
// detached at once, the open file can still be read, and the program
// exits with status 0 once it is closed.
func testMountBusy(t *testing.T, bin string) {
	p := startMount(t, bin, mountZip(t))
	f, err := os.Open(filepath.Join(p.dir, "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, p.dir+" to be unmounted after SIGINT", func() bool { return !mounted(t, p.dir) },
		func() string { return "stderr: " + p.stderr.String() })
	select {
	case <-p.exited:
		t.Fatalf("pipefs mount exited while a file was open; stderr: %s", p.stderr)
	default:
	}
	buf := make([]byte, 4096)
	n, err := f.ReadAt(buf, 0)
	if string(buf[:n]) != "hello, world\n" {
		t.Errorf("reading the open file after the mount was detached: %q, %v", buf[:n], err)
	}
	f.Close()
	if code := p.wait(t); code != 0 {
		t.Errorf("exit status %d, want 0; stderr: %s", code, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "is busy: detached it") {
		t.Errorf("stderr = %q, want it to say the mount was detached", p.stderr)
	}
}

// testMountUnmountedOutside unmounts with fusermount3 -u: the program
// notices and exits with status 0.
func testMountUnmountedOutside(t *testing.T, bin string) {
	p := startMount(t, bin, mountZip(t))
	if out, err := exec.Command("fusermount3", "-u", p.dir).CombinedOutput(); err != nil {
		t.Fatalf("fusermount3 -u: %v: %s", err, out)
	}
	if code := p.wait(t); code != 0 {
		t.Errorf("exit status %d, want 0; stderr: %s", code, p.stderr)
	}
}

func TestMountErrors(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(text, []byte("not an archive\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	archive := mountZip(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"file location", []string{"mount", text, dir}, 1, "mount needs a directory location"},
		{"missing mount point", []string{"mount", archive, filepath.Join(dir, "missing")}, 1, "make it with mkdir first"},
		{"mount point is a file", []string{"mount", archive, text}, 1, "not a directory"},
		{"one argument", []string{"mount", archive}, 2, "accepts 2 arg(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || !strings.HasPrefix(r.stderr, "pipefs: ") {
				t.Errorf("pipefs %q: exit %d, stderr %q; want exit %d and %q", tc.args, r.code, r.stderr, tc.code, tc.want)
			}
		})
	}
}

func TestMountHelp(t *testing.T) {
	out := mustRun(t, "mount", "--help")
	for _, want := range []string{"Usage:\n  pipefs mount URL DIR", "Examples:\n  pipefs mount", "fusermount3 -u DIR", "--no-detect"} {
		if !strings.Contains(out, want) {
			t.Errorf("pipefs mount --help does not contain %q:\n%s", want, out)
		}
	}
}

// testMountNotEmpty mounts over a directory that holds a file: the mount
// warns that the file is hidden, and the file is there again once the
// mount is gone.
func testMountNotEmpty(t *testing.T, bin string) {
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.txt")
	if err := os.WriteFile(kept, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startMountOn(t, bin, mountZip(t), dir)
	if _, err := os.Stat(kept); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat %s while mounted: %v, want it hidden", kept, err)
	}
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != 0 {
		t.Errorf("exit status %d, want 0; stderr: %s", code, p.stderr)
	}
	if want := "pipefs: warning: " + dir + " is not empty"; !strings.Contains(p.stderr.String(), want) {
		t.Errorf("stderr %q, want it to hold %q", p.stderr, want)
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) != "kept" {
		t.Errorf("after the mount, %s is %q, %v", kept, b, err)
	}
}
