package complete

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"testing"

	_ "github.com/pipefs/pipefs/all"
)

// openFiles returns the descriptors of the process that are open on path.
func openFiles(t *testing.T, path string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == path {
			n++
		}
	}
	return n
}

// Completing after a stream of more byte transforms than completion
// follows (maxChain) closes every layer it opened: the file is open
// nowhere afterwards.
func TestCompleteClosesChain(t *testing.T) {
	dir := t.TempDir()
	data := []byte("deep text\n")
	for range maxChain + 1 {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(data)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		data = buf.Bytes()
	}
	path := filepath.Join(dir, "deep.gz")
	base := "file:" + filepath.ToSlash(path)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{base + "|gzip:"}
	for range maxChain - 1 {
		want = append(want, want[len(want)-1]+"|gzip:")
	}
	got, err := new(Completer).Complete(t.Context(), base+"|")
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("complete %q: %v\ngot  %q\nwant %q", base+"|", err, got, want)
	}
	if n := openFiles(t, path); n != 0 {
		t.Errorf("%s is open %d times after the completion, want 0", path, n)
	}
}
