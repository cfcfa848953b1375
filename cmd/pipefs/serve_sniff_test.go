package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// TestServeStreams checks how a listing shows compressed files: a stream
// that holds a tar is a folder ("gzip|tar"), and opens as the tar's
// listing; a stream of text is a plain file of its stream's kind, served
// as it is, not a folder that cannot open.
func TestServeStreams(t *testing.T) {
	tarball, _ := tarOf(t, "inside.txt", "inside the tar\n")
	text := []byte(strings.Repeat("plain text, not an archive\n", 40))
	compress := func(w io.WriteCloser, buf *bytes.Buffer, data []byte) []byte {
		t.Helper()
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	gz := func(data []byte) []byte {
		var b bytes.Buffer
		return compress(gzip.NewWriter(&b), &b, data)
	}
	zst := func(data []byte) []byte {
		var b bytes.Buffer
		w, err := zstd.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		return compress(w, &b, data)
	}
	xzOf := func(data []byte) []byte {
		var b bytes.Buffer
		w, err := xz.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		return compress(w, &b, data)
	}
	dir := t.TempDir()
	files := map[string][]byte{
		"a.tar.gz":      gz(tarball),
		"b.tar.zst":     zst(tarball),
		"c.tar.xz":      xzOf(tarball),
		"d.tar.gz.xz":   xzOf(gz(tarball)),
		"notes.txt.gz":  gz(text),
		"notes.txt.zst": zst(text),
	}
	bz := fstest.NeedTool(t, "bzip2")
	cmd := exec.Command(bz, "-c")
	cmd.Stdin = bytes.NewReader(tarball)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	files["e.tar.bz2"] = out
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := vfs.FromPath(dir + string(filepath.Separator))
	if err != nil {
		t.Fatal(err)
	}
	s := serverAt(t, root.String(), nil)
	p := fetchPage(t, s, "/", 200)
	for name, kind := range map[string]string{
		"a.tar.gz": "gzip|tar", "b.tar.zst": "zstd|tar", "c.tar.xz": "xz|tar", "d.tar.gz.xz": "xz|gzip|tar", "e.tar.bz2": "bzip2|tar",
	} {
		e := entryNamed(t, p, name)
		if e.Kind != kind || e.Href != "/"+name+"/" || e.Raw != "/"+name {
			t.Errorf("%s entry %+v, want kind %q and a folder", name, e, kind)
			continue
		}
		inner := fetchPage(t, s, e.Href, 200)
		if got := entryNamed(t, inner, "inside.txt"); got.Size != int64(len("inside the tar\n")) {
			t.Errorf("%s: the tar inside lists inside.txt as %+v", name, got)
		}
	}
	for name, kind := range map[string]string{"notes.txt.gz": "gzip", "notes.txt.zst": "zstd"} {
		e := entryNamed(t, p, name)
		if e.Kind != kind || e.Href != "/"+name || e.Raw != "" {
			t.Errorf("%s entry %+v, want kind %q and a plain file", name, e, kind)
		}
		resp := fetch(t, s, e.Href)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !bytes.Equal(body, files[name]) {
			t.Errorf("GET %s: %s, %d bytes, want the file's %d bytes", e.Href, resp.Status, len(body), len(files[name]))
		}
	}
}
