package main

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLsLocalSymlinks: ls -l shows the symbolic links of a local directory
// as "name -> target", the targets as os.Readlink reads them, dangling
// links and loops included; stat describes such a link itself, and a tar
// symlink in a loop; ls -l lists such links given as arguments.
func TestLsLocalSymlinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"dangling": "/nonexistent/x", "file": "f.txt", "loopA": "loopB", "loopB": "loopA"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	out := mustRun(t, "ls", "-l", dir)
	for name := range links {
		target, err := os.Readlink(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "  "+name+" -> "+target+"\n") {
			t.Errorf("ls -l: no line for %s -> %s:\n%s", name, target, out)
		}
	}
	if strings.Contains(out, "f.txt ->") {
		t.Errorf("ls -l shows a target for a regular file:\n%s", out)
	}

	// Given as arguments, links that dangle or loop are listed
	// themselves, as ls -l lists them.
	out = mustRun(t, "ls", "-l", filepath.Join(dir, "dangling"), filepath.Join(dir, "loopA"))
	for _, name := range []string{"dangling", "loopA"} {
		if !strings.Contains(out, "  "+filepath.Join(dir, name)+" -> "+links[name]+"\n") {
			t.Errorf("ls -l of the link %s:\n%s", name, out)
		}
	}

	for _, name := range []string{"dangling", "loopA"} {
		out := mustRun(t, "stat", filepath.Join(dir, name))
		if !strings.Contains(out, "Type:     symbolic link\nTarget:   "+links[name]+"\n") {
			t.Errorf("stat of the local link %s:\n%s", name, out)
		}
	}

	// A loop of tar symlinks: stat describes the link it is given.
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, l := range [][2]string{{"a", "b"}, {"b", "a"}} {
		if err := tw.WriteHeader(&tar.Header{Name: l[0], Linkname: l[1], Typeflag: tar.TypeSymlink, Mode: 0o777, ModTime: modTime}); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	tfile := filepath.Join(t.TempDir(), "loop.tar")
	if err := os.WriteFile(tfile, tb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out = mustRun(t, "stat", tfile+"|pipefs.tar:a")
	if !strings.Contains(out, "Type:     symbolic link\nTarget:   b\n") {
		t.Errorf("stat of a tar symlink in a loop:\n%s", out)
	}
	out = mustRun(t, "ls", "-l", tfile+"|pipefs.tar:a")
	if !strings.HasSuffix(out, "  "+tfile+"|pipefs.tar:a -> b\n") {
		t.Errorf("ls -l of a tar symlink in a loop:\n%s", out)
	}
}
