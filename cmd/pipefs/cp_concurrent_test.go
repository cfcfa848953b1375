package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/fstest/cloudtest"
	"github.com/pipefs/pipefs/internal/copier"
	"github.com/pipefs/pipefs/internal/optflags"
)

// concurrentTree is a tree of small files in nested directories: name
// (slash-separated) to content.
func concurrentTree() map[string][]byte {
	files := map[string][]byte{}
	add := func(name string) {
		files[name] = fstest.RandomBytes(1<<10+len(files)*337, uint64(len(files)+1))
	}
	for i := range 4 {
		add(fmt.Sprintf("top%d.bin", i))
	}
	for d := range 6 {
		for i := range 6 {
			add(fmt.Sprintf("d%d/f%d.bin", d, i))
		}
	}
	for i := range 4 {
		add(fmt.Sprintf("d0/sub/g%d.bin", i))
		add(fmt.Sprintf("d3/sub/deeper/h%d.bin", i))
	}
	return files
}

// checkTree fails t unless the local directory dir holds exactly files,
// and a directory for each directory of their names.
func checkTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	seen := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		want, ok := files[filepath.ToSlash(rel)]
		if !ok {
			t.Errorf("%s: copied, not in the source", rel)
			return nil
		}
		seen++
		checkFile(t, p, want)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(files) {
		t.Errorf("%s holds %d of the %d files of the source", dir, seen, len(files))
	}
}

// TestCpConcurrentS3 copies a prefix of 48 small objects in 9
// directories of a bucket, through a proxy that holds every request
// back for 20 ms, with --concurrency 1 and 4: the copies are the same;
// one at a time, one request is under way at most; four at a time, more
// than one and at most four are; and both copies make the same requests,
// each directory listed once (listing directories at once makes no more
// listings) and each object read with the one request that opens it.
// --continue, four at a time, then opens only the files not complete.
func TestCpConcurrentS3(t *testing.T) {
	gw := cloudtest.NeedVersitygw(t)
	ctx := t.Context()
	if err := gw.CreateBucket(ctx, "cpconc", false); err != nil {
		t.Fatal(err)
	}
	files := concurrentTree()
	for name, data := range files {
		if err := gw.Put(ctx, "cpconc", "tree/"+name, data); err != nil {
			t.Fatal(err)
		}
	}
	proxy, err := cloudtest.NewCounter(gw.Addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	proxy.SetLatency(20 * time.Millisecond)
	setS3Env(t, proxy.Addr)

	dir := t.TempDir()
	copyWith := func(n int) (reqs []string, peak int) {
		t.Helper()
		dest := filepath.Join(dir, fmt.Sprint("c", n))
		proxy.Take()
		if code, stderr := cpChild(t, "cp", "-R", "--concurrency", fmt.Sprint(n), "s3://cpconc/tree/", dest); code != 0 {
			t.Fatalf("cp -R --concurrency %d: exit %d, stderr:\n%s", n, code, stderr)
		}
		peak = proxy.Peak()
		reqs = proxy.Take()
		checkTree(t, dest, files)
		return reqs, peak
	}
	one, onePeak := copyWith(1)
	four, fourPeak := copyWith(4)
	if onePeak != 1 {
		t.Errorf("--concurrency 1: %d requests under way at once, want 1", onePeak)
	}
	if fourPeak < 2 || fourPeak > 4 {
		t.Errorf("--concurrency 4: %d requests under way at once, want 2 to 4", fourPeak)
	}
	slices.Sort(one)
	slices.Sort(four)
	if !slices.Equal(one, four) {
		t.Errorf("--concurrency 4 made %d requests, --concurrency 1 %d; they differ:\n%s\n\nand:\n%s",
			len(four), len(one), strings.Join(four, "\n"), strings.Join(one, "\n"))
	}
	lists := map[string]int{}
	gets := 0
	for _, r := range four {
		switch {
		case strings.Contains(r, "list-type=2") && strings.Contains(r, "delimiter="):
			_, prefix, _ := strings.Cut(r, "prefix=")
			lists[prefix]++
		case strings.Contains(r, "GetObject") && strings.Contains(r, ".bin"):
			gets++
		}
	}
	for _, d := range []string{"d0", "d1", "d2", "d3", "d4", "d5", "d0/sub", "d3/sub", "d3/sub/deeper"} {
		prefix := strings.ReplaceAll("tree/"+d+"/", "/", "%2F")
		if lists[prefix] != 1 {
			t.Errorf("directory %s listed %d times, want once:\n%s", d, lists[prefix], strings.Join(four, "\n"))
		}
	}
	if gets != len(files) {
		t.Errorf("%d reads of objects, want one for each of the %d:\n%s", gets, len(files), strings.Join(four, "\n"))
	}

	// --continue, four at a time, over a copy with files cut short or
	// missing: those are opened, each with one request, and the
	// complete ones are not.
	dest := filepath.Join(dir, "c4")
	redo := []string{"top1.bin", "d2/f4.bin", "d0/sub/g3.bin", "d5/f0.bin", "d3/sub/deeper/h1.bin"}
	for i, name := range redo {
		p := filepath.Join(dest, filepath.FromSlash(name))
		var err error
		if i%2 == 0 {
			err = os.Truncate(p, int64(len(files[name])/2))
		} else {
			err = os.Remove(p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if code, stderr := cpChild(t, "cp", "-R", "-T", "--continue", "--concurrency", "4", "s3://cpconc/tree/", dest); code != 0 {
		t.Fatalf("cp -R --continue: exit %d, stderr:\n%s", code, stderr)
	}
	checkTree(t, dest, files)
	if got, want := len(proxy.Take()), len(four)-gets+len(redo); got != want {
		t.Errorf("cp -R --continue made %d requests, want %d: the listings, and one for each of the %d files not complete", got, want, len(redo))
	}
}

// TestCpConcurrentFailures copies a local tree four files at a time into
// a destination where two files meet a directory in the way: those two
// fail and are reported, the others are copied, the exit status is 1,
// and what stderr says (-v lines and failures) is what a copy of one file
// at a time says, in the same order. Files named as the partial copies of
// others (x.pipefs-partial, x.pipefs-source) are copied whole beside x.
func TestCpConcurrentFailures(t *testing.T) {
	files := concurrentTree()
	for i := range 8 {
		name := fmt.Sprintf("p/x%d", i)
		files[name] = fstest.RandomBytes(40<<10, uint64(100+i))
		files[name+copier.PartialSuffix] = fstest.RandomBytes(30<<10, uint64(200+i))
		files[name+copier.SourceSuffix] = []byte("not a record\n")
	}
	src := filepath.Join(t.TempDir(), "src")
	for name, data := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	blocked := []string{"d1/f3.bin", "d4/f0.bin"}
	copyWith := func(n int) (string, string) {
		t.Helper()
		dest := filepath.Join(t.TempDir(), "dest")
		for _, b := range blocked {
			if err := os.MkdirAll(filepath.Join(dest, filepath.FromSlash(b), "in-the-way"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		r := runCLI(t, "cp", "-R", "-T", "-v", "--concurrency", fmt.Sprint(n), src, dest)
		if r.code != 1 {
			t.Fatalf("cp -R --concurrency %d with two files blocked: exit %d, want 1; stderr:\n%s", n, r.code, r.stderr)
		}
		for _, b := range blocked {
			if !strings.Contains(r.stderr, "pipefs: file:"+filepath.ToSlash(filepath.Join(src, b))) {
				t.Errorf("--concurrency %d: stderr does not report %s:\n%s", n, b, r.stderr)
			}
		}
		return dest, strings.ReplaceAll(r.stderr, dest, "DEST")
	}
	_, oneErr := copyWith(1)
	dest, fourErr := copyWith(4)
	if fourErr != oneErr {
		t.Errorf("stderr of --concurrency 4:\n%s\ndiffers from that of --concurrency 1:\n%s", fourErr, oneErr)
	}
	for _, b := range blocked {
		delete(files, b)
	}
	checkTree(t, dest, files)
}

// TestCpConcurrentInterrupt interrupts cp -R --concurrency 4 of a remote
// zip once the reads of four members are under way, held by the server:
// the copy stops with exit status 130, reads no other member, and leaves
// no partial file.
func TestCpConcurrentInterrupt(t *testing.T) {
	members := map[string][]byte{}
	for i := range 12 {
		members[fmt.Sprintf("m%02d.bin", i)] = fstest.RandomBytes(1<<20, uint64(i))
	}
	srv := fstest.NewHTTPServer(t, map[string][]byte{"a.zip": fstest.ZipBytes(members, zip.Store)})
	// The open's suffix read passes; every read after it waits until the
	// client gives up.
	srv.Inject(fstest.Fault{Kind: fstest.FaultDelay, Delay: time.Until(waitDeadline(t)), Times: -1, Skip: 1})
	dest := filepath.Join(t.TempDir(), "dest")
	cmd := cliCommand(t, "cp", "-R", "--concurrency", "4", srv.URL()+"/a.zip|zip:", dest)
	cmd.Env = append(cmd.Env, optflags.CacheDirEnv+"=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	defer func() {
		cmd.Process.Kill() // when the test gives up
		<-exited
	}()
	waitUntil(t, "four reads under way at once", func() bool { return srv.Peak() >= 4 }, srv.LogString)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	waitChan(t, "cp -R to exit after SIGINT", exited, nil)
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("interrupted cp -R: exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr.String())
	}
	if n := srv.Requests(); n != 5 {
		t.Errorf("cp -R made %d requests, want 5: the open, and the first four members, whose reads the interrupt ended:\n%s", n, srv.LogString())
	}
	filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err == nil && (strings.HasSuffix(p, copier.PartialSuffix) || strings.HasSuffix(p, copier.SourceSuffix)) {
			t.Errorf("an interrupted copy left %s", p)
		}
		return nil
	})
}
