package fusefs_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// TestRemoteRequests mounts a zip of 4 MiB on a loopback HTTP server:
// once the mount is up, ls -lR of it costs no request (the central
// directory was read at open), and reading a member that the open did not
// fetch costs exactly one.
func TestRemoteRequests(t *testing.T) {
	files := map[string][]byte{}
	for i := range 200 {
		files[fmt.Sprintf("dir%02d/member-%03d.bin", i%10, i)] = fstest.RandomBytes(16<<10+i, uint64(100+i))
	}
	files["big/random.bin"] = fstest.RandomBytes(600<<10, 4)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"a.zip": fstest.ZipBytes(files, zip.Deflate)})
	mnt, l := mountPipeline(t, srv.URL()+"/a.zip|zip:", fstest.ProcessOptions(nil))
	ls := fstest.NeedTool(t, "ls")

	srv.Reset()
	out, err := exec.Command(ls, "-lR", mnt).CombinedOutput()
	if err != nil {
		t.Fatalf("ls -lR: %v: %s", err, out)
	}
	for name, data := range files {
		if !strings.Contains(string(out), fmt.Sprintf(" %d ", len(data))) || !strings.Contains(string(out), filepath.Base(name)) {
			t.Fatalf("ls -lR does not list %s of %d bytes:\n%s", name, len(data), out)
		}
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("ls -lR cost %d requests, want 0\n%s", n, srv.LogString())
	}

	for _, name := range []string{"dir03/member-013.bin", "big/random.bin"} {
		srv.Reset()
		got, err := os.ReadFile(filepath.Join(mnt, name))
		if err != nil || !bytes.Equal(got, files[name]) {
			t.Fatalf("reading %s: %d bytes, %v; want %d bytes", name, len(got), err, len(files[name]))
		}
		if n := srv.Requests(); n != 1 {
			t.Errorf("reading %s cost %d requests, want 1\n%s", name, n, srv.LogString())
		}
	}
	if l.len() != 0 {
		t.Errorf("the mount logged failures:\n%s", l)
	}
}
