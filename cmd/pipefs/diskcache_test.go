package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/cache/disk"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/optflags"
	"github.com/pipefs/pipefs/vfs"
)

// tarGz returns a gzipped tar of n members of size bytes each, of words
// that compress about 3:1, and the members' contents.
func tarGz(t *testing.T, n, size int) ([]byte, map[string][]byte) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	files := map[string][]byte{}
	for i := range n {
		var b bytes.Buffer
		for b.Len() < size {
			fmt.Fprintf(&b, "%s %d ", words[rng.IntN(len(words))], rng.IntN(1000))
		}
		name := fmt.Sprintf("d%d/f%03d.txt", i%4, i)
		files[name] = b.Bytes()[:size]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(size), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(files[name])
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return buf.Bytes(), files
}

// runChild runs the CLI in a child process with the index cache in dir.
func runChild(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := cliCommand(t, args...)
	cmd.Env = append(cmd.Env, optflags.CacheDirEnv+"="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pipefs %q: %v, stderr:\n%s", args, err, stderr.String())
	}
	return stdout.String()
}

// TestDiskCacheRemote runs the CLI three times over one remote tar.gz with
// one index cache: the second listing reads nothing past the first
// block, and a member read after it costs one request before the
// member's bytes. Opening the object costs one request (the remote root's
// suffix read, which learns its size and version); format detection reads
// the first block, which a pipeline that names its adapters does not.
func TestDiskCacheRemote(t *testing.T) {
	data, files := tarGz(t, 64, 64<<10) // 4 MiB of output: 4 checkpoints
	srv := fstest.NewHTTPServer(t, map[string][]byte{"a.tar.gz": data})
	dir := t.TempDir()
	url := srv.URL() + "/a.tar.gz"

	first := runChild(t, dir, "ls", "-R", url)
	req1, bytes1 := srv.Requests(), srv.Bytes()
	if bytes1 < int64(len(data)) {
		t.Fatalf("first listing fetched %d bytes of %d", bytes1, len(data))
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.pfi"))
	if len(entries) != 3 {
		t.Fatalf("%d index files after the first listing, want 3 (tar, and gzip's index and head)", len(entries))
	}

	srv.Reset()
	second := runChild(t, dir, "ls", "-R", url)
	if second != first {
		t.Errorf("second listing differs:\n%s\nfirst:\n%s", second, first)
	}
	req2, bytes2 := srv.Requests(), srv.Bytes()
	t.Logf("first listing: %d requests, %d bytes; second: %d requests, %d bytes", req1, bytes1, req2, bytes2)
	if req2 > 2 || bytes2 > 64<<10+256<<10 {
		t.Errorf("second listing: %d requests, %d bytes; want the open and the first block\n%s", req2, bytes2, srv.LogString())
	}

	// A member at the end of the stream: one request before its bytes,
	// which start at a stored checkpoint.
	srv.Reset()
	name := "d3/f063.txt"
	got := runChild(t, dir, "cat", url+"|gzip:|pipefs.tar:"+name)
	if got != string(files[name]) {
		t.Fatalf("cat %s: %d bytes, want %d", name, len(got), len(files[name]))
	}
	log := srv.Log()
	t.Logf("cat: %d requests, %d bytes", srv.Requests(), srv.Bytes())
	if len(log) > 2 || log[len(log)-1].Bytes > int64(len(data))/2 {
		t.Errorf("cat of the last member: %d requests, %d bytes of %d; want at most 2 (the open, the member's) and the stream's tail\n%s",
			len(log), srv.Bytes(), len(data), srv.LogString())
	}
}

// TestDiskCacheLocal lists a local tar.gz twice: the second process
// reads only the start of the file.
func TestDiskCacheLocal(t *testing.T) {
	data, _ := tarGz(t, 64, 64<<10)
	name := filepath.Join(t.TempDir(), "a.tar.gz")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first := runChild(t, dir, "ls", "-R", name)
	if !strings.Contains(first, "f063.txt") {
		t.Fatalf("listing:\n%s", first)
	}
	if second := runChild(t, dir, "--stats", "ls", "-R", name); second != first {
		t.Errorf("second listing differs:\n%s", second)
	}
	// Replacing the file (a new inode and times) makes the index stale.
	data2, _ := tarGz(t, 3, 10)
	os.Remove(name)
	if err := os.WriteFile(name, data2, 0o644); err != nil {
		t.Fatal(err)
	}
	if third := runChild(t, dir, "ls", "-R", name); strings.Contains(third, "f063.txt") {
		t.Errorf("listing of the replaced file shows the old index:\n%s", third)
	}
	// Off: nothing is written.
	off := t.TempDir()
	runChild(t, off, "--cache-dir=off", "ls", "-R", name)
	if m, _ := filepath.Glob(filepath.Join(off, "*")); len(m) > 0 {
		t.Errorf("--cache-dir=off wrote %v", m)
	}
}

// readBytes returns the bytes this process has read by system calls
// (read, pread), from /proc/self/io.
func readBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no rchar in /proc/self/io")
	return 0
}

// TestDiskCacheLocalBytes lists a local tar.gz with two caches that share
// one store on disk, as two processes do: the second reads the kept
// indexes and the first bytes of the file, not the stream.
func TestDiskCacheLocalBytes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts bytes read in /proc/self/io")
	}
	data, _ := tarGz(t, 64, 64<<10)
	name := filepath.Join(t.TempDir(), "a.tar.gz")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := disk.Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := vfs.FromPath(name)
	if err != nil {
		t.Fatal(err)
	}
	list := func() (string, int64) {
		before := readBytes(t)
		fsys, err := vfs.OpenFS(t.Context(), p.String(), &vfs.Options{Cache: vfs.NewCache(0), Disk: store})
		if err != nil {
			t.Fatal(err)
		}
		defer fsys.Close()
		var names []string
		err = fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
			names = append(names, path)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(names, "\n"), readBytes(t) - before
	}
	first, n1 := list()
	second, n2 := list()
	t.Logf("first listing read %d bytes, second %d (file %d bytes, store %d bytes)", n1, n2, len(data), store.Size())
	if second != first || !strings.Contains(first, "d3/f063.txt") {
		t.Fatalf("listings differ:\n%s\n\n%s", first, second)
	}
	if n1 < int64(len(data)) {
		t.Errorf("first listing read %d bytes of %d", n1, len(data))
	}
	// Format detection reads the head and the last 64 KiB of the file.
	// The gzip index, the largest file of the store, is not read: the tar
	// table lists the archive.
	var index int64
	files, _ := filepath.Glob(filepath.Join(store.Dir(), "*.pfi"))
	for _, f := range files {
		if info, err := os.Stat(f); err == nil {
			index = max(index, info.Size())
		}
	}
	if n2 > store.Size()-index+128<<10 {
		t.Errorf("second listing read %d bytes: more than the store's %d without the gzip index's %d, and the file's ends", n2, store.Size(), index)
	}
}

// TestDiskCacheConcurrent runs several listings of one remote tar.gz at
// once with one index cache, twice over: every process lists the same,
// whichever process's index files it reads or replaces.
func TestDiskCacheConcurrent(t *testing.T) {
	data, _ := tarGz(t, 32, 64<<10)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"a.tar.gz": data})
	dir := t.TempDir()
	url := srv.URL() + "/a.tar.gz"
	want := runChild(t, t.TempDir(), "ls", "-R", url)
	for round := range 2 {
		var cmds []*exec.Cmd
		outs := make([]*bytes.Buffer, 4)
		for i := range outs {
			c := cliCommand(t, "ls", "-R", url)
			c.Env = append(c.Env, optflags.CacheDirEnv+"="+dir)
			outs[i] = new(bytes.Buffer)
			c.Stdout, c.Stderr = outs[i], outs[i]
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, c)
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Errorf("round %d, process %d: %v\n%s", round, i, err, outs[i])
			} else if outs[i].String() != want {
				t.Errorf("round %d, process %d listed:\n%s", round, i, outs[i])
			}
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// TestDiskCacheFlags checks the flags of the index cache: a bad size is a
// usage error, and --cache-dir with --cache-size makes the directory.
func TestDiskCacheFlags(t *testing.T) {
	for _, size := range []string{"abc", "0", "-1"} {
		if r := runCLI(t, "--cache-size="+size, "resolve", "file:/x"); r.code != exitUsage || !strings.Contains(r.stderr, "--cache-size") {
			t.Errorf("--cache-size=%s: exit %d, stderr %q", size, r.code, r.stderr)
		}
	}
	dir := filepath.Join(t.TempDir(), "idx")
	if r := runCLI(t, "--cache-dir="+dir, "--cache-size=16M", "resolve", "file:/x"); r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		t.Errorf("--cache-dir did not make %s: %v", dir, err)
	}
}

// TestDiskCacheRemoteZip reads members of a remote zip whose central
// directory is larger than the suffix read at open, in separate
// processes with one index cache: after the first, reading a member costs
// one request before the member's (the remote root's open).
func TestDiskCacheRemoteZip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	files := map[string][]byte{}
	for i := range 3000 {
		data := make([]byte, 512+rng.IntN(512))
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		files[fmt.Sprintf("dir%02d/member-with-a-long-name-%04d.bin", i%50, i)] = data
	}
	data := fstest.ZipBytes(files, 0)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"a.zip": data})
	dir := t.TempDir()
	cat := func(name string, want int64) {
		t.Helper()
		srv.Reset()
		if got := runChild(t, dir, "cat", srv.URL()+"/a.zip|zip:"+name); got != string(files[name]) {
			t.Fatalf("cat %s: %d bytes, want %d", name, len(got), len(files[name]))
		}
		if srv.Requests() != want {
			t.Errorf("cat %s: %d requests, want %d\n%s", name, srv.Requests(), want, srv.LogString())
		}
	}
	cat("dir07/member-with-a-long-name-1507.bin", 3) // the open, the directory, the member
	cat("dir20/member-with-a-long-name-0020.bin", 2) // the open, the member
	cat("dir49/member-with-a-long-name-2999.bin", 2)
}

// TestDiskCacheDefaultDir: with no --cache-dir and an empty
// $PIPEFS_CACHE_DIR, the index cache is the user cache directory +
// /pipefs, in a test binary as in the installed command; --streams, which
// gives the run a cache of its own, keeps it.
func TestDiskCacheDefaultDir(t *testing.T) {
	data, _ := tarGz(t, 8, 64<<10)
	name := filepath.Join(t.TempDir(), "a.tar.gz")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"ls", "-R", name}, {"--streams=4", "ls", "-R", name}} {
		home := t.TempDir()
		t.Setenv("HOME", home)
		t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
		user, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		cmd := cliCommand(t, args...)
		cmd.Env = append(cmd.Env, optflags.CacheDirEnv+"=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pipefs %q: %v\n%s", args, err, out)
		}
		if m, _ := filepath.Glob(filepath.Join(user, "pipefs", "*.pfi")); len(m) == 0 {
			t.Errorf("pipefs %q kept no index in %s", args, filepath.Join(user, "pipefs"))
		}
	}
}
