package main

import (
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/fstest/cloudtest"
)

// TestSidecarCLI: one pipefs process lists a tar.gz in a bucket with
// --sidecar=write; another, with an index cache of its own (another
// machine) and PIPEFS_SIDECAR=read, lists it with four requests: the
// open, the first block (format detection reads the gzip magic), and the
// sidecars of the gzip head and the tar table (not the gzip checkpoints,
// which a listing does not need).
func TestSidecarCLI(t *testing.T) {
	gw := cloudtest.NeedVersitygw(t)
	ctx := t.Context()
	if err := gw.CreateBucket(ctx, "sidecli", false); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"big.bin": fstest.RandomBytes(3<<19, 4), "d/a.txt": []byte("alpha\n")}
	if err := gw.Put(ctx, "sidecli", "x.tar.gz", fstest.TarGzBytes(files)); err != nil {
		t.Fatal(err)
	}
	proxy, err := cloudtest.NewCounter(gw.Addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	setS3Env(t, proxy.Addr)
	url := "s3://sidecli/x.tar.gz"

	first := runChild(t, t.TempDir(), "--sidecar=write", "ls", "-R", url)
	var writes int
	for _, r := range proxy.Take() {
		if strings.HasPrefix(r, "PUT /sidecli/x.tar.gz.pipefs/") {
			writes++
		}
	}
	if writes != 3 {
		t.Fatalf("--sidecar=write: %d sidecars written, want 3 (gzip's head and index, the tar table)", writes)
	}
	t.Setenv("PIPEFS_SIDECAR", "read")
	second := runChild(t, t.TempDir(), "ls", "-R", url)
	if second != first {
		t.Errorf("second listing:\n%s\nfirst:\n%s", second, first)
	}
	if reqs := proxy.Take(); len(reqs) != 4 {
		t.Errorf("listing on another machine: %d requests, want 4:\n%s", len(reqs), strings.Join(reqs, "\n"))
	}
	if r := runCLI(t, "--sidecar=sometimes", "resolve", "file:/x"); r.code != exitUsage || !strings.Contains(r.stderr, "--sidecar") {
		t.Errorf("--sidecar=sometimes: exit %d, stderr %q", r.code, r.stderr)
	}
	t.Setenv("PIPEFS_SIDECAR", "yes")
	if r := runCLI(t, "resolve", "file:/x"); r.code != exitUsage || !strings.Contains(r.stderr, "$PIPEFS_SIDECAR") {
		t.Errorf("PIPEFS_SIDECAR=yes: exit %d, stderr %q", r.code, r.stderr)
	}
}
