package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// children lists directory dir of the zip as ls does: the names of its
// members and directories right below it, sorted, directories with "/".
func children(t *testing.T, data []byte, dir string) string {
	t.Helper()
	r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range r.File {
		rest, ok := strings.CutPrefix(f.Name, dir)
		if !ok || rest == "" {
			continue
		}
		name, _, sub := strings.Cut(rest, "/")
		if sub {
			name += "/"
		}
		seen[name] = true
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, "\n") + "\n"
}

// TestLsSeveral lists several URLs as coreutils ls does: the files first,
// then each directory under its name, a blank line between; a URL that
// fails is reported and the others listed, with exit status 1.
func TestLsSeveral(t *testing.T) {
	zipURL := site(t, "cli/several")
	data := siteZip(t)
	file := zipURL + "|zip:README.txt"
	docs, dataDir := zipURL+"|zip:docs", zipURL+"|zip:data/"
	missing := zipURL + "|zip:nope/"

	r := runCLI(t, "ls", missing, docs, file, dataDir)
	want := file + "\n" +
		"\n" + dataDir + ":\n" + children(t, data, "data/") +
		"\n" + docs + ":\n" + children(t, data, "docs/")
	if r.stdout != want {
		t.Errorf("ls of several URLs:\n%s\nwant:\n%s", r.stdout, want)
	}
	if r.code != exitError || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "zip:nope") {
		t.Errorf("ls of several URLs, one missing: exit %d, stderr:\n%s\nwant 1 and one line naming zip:nope", r.code, r.stderr)
	}

	// Only directories: each under its name; -l aligns each on its own.
	out := mustRun(t, "ls", "-l", docs, dataDir)
	if !strings.HasPrefix(out, dataDir+":\n") || !strings.Contains(out, "\n\n"+docs+":\n") {
		t.Errorf("ls -l of two directories:\n%s", out)
	}
	// One URL: no heading, as before.
	if out := mustRun(t, "ls", docs); out != children(t, data, "docs/") {
		t.Errorf("ls of one directory:\n%s", out)
	}
	// All failing: exit 1, each reported.
	r = runCLI(t, "ls", missing, zipURL+"|zip:nope2/")
	if r.code != exitError || r.stdout != "" || strings.Count(r.stderr, "\n") != 2 {
		t.Errorf("ls of two missing URLs: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestLsSymlinks: ls -l shows tar and zip symlinks as "name -> target",
// the targets those of the archives as archive/tar and archive/zip read
// them; stat shows a zip symlink's target.
func TestLsSymlinks(t *testing.T) {
	links := map[string]string{"link": "target.txt", "d/up": "../target.txt", "abs": "/etc/hostname"}
	names := []string{"abs", "d/", "d/up", "link", "target.txt"}
	dir := t.TempDir()

	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, name := range names {
		th := &tar.Header{Name: name, Mode: 0o644, ModTime: modTime, Typeflag: tar.TypeReg}
		zh := &zip.FileHeader{Name: name, Modified: modTime}
		body := ""
		switch {
		case strings.HasSuffix(name, "/"):
			th.Typeflag, th.Mode = tar.TypeDir, 0o755
			zh.SetMode(fs.ModeDir | 0o755)
		case links[name] != "":
			th.Typeflag, th.Linkname, th.Mode = tar.TypeSymlink, links[name], 0o777
			zh.SetMode(fs.ModeSymlink | 0o777)
			body = links[name]
		default:
			zh.SetMode(0o644)
			body = "target\n"
			th.Size = int64(len(body))
		}
		tw.WriteHeader(th)
		tw.Write([]byte(body))
		w, err := zw.CreateHeader(zh)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	tfile, zfile := filepath.Join(dir, "l.tar"), filepath.Join(dir, "l.zip")
	os.WriteFile(tfile, tb.Bytes(), 0o644)
	os.WriteFile(zfile, zb.Bytes(), 0o644)

	// The targets as the standard readers see them.
	want := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(tb.Bytes()))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeSymlink {
			want["tar "+h.Name] = h.Linkname
		}
	}
	zr, _ := zip.NewReader(bytes.NewReader(zb.Bytes()), int64(zb.Len()))
	for _, f := range zr.File {
		if f.Mode()&fs.ModeSymlink != 0 {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			want["zip "+f.Name] = string(b)
		}
	}
	if len(want) != 2*len(links) {
		t.Fatalf("the archives hold %d links, want %d", len(want), 2*len(links))
	}

	for kind, url := range map[string]string{"tar": tfile, "zip": zfile} {
		out := mustRun(t, "ls", "-lR", url)
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			m := regexp.MustCompile(`^ *\S+  (\S+)  \S+ \S+  (\S+)(?: -> (.*))?$`).FindStringSubmatch(line)
			if m == nil {
				t.Errorf("%s: ls -lR line %q", kind, line)
				continue
			}
			target, isLink := want[kind+" "+m[2]]
			switch {
			case isLink && (m[1] != "lrwxrwxrwx" || m[3] != target):
				t.Errorf("%s: ls -lR line %q, want mode lrwxrwxrwx and -> %s", kind, line, target)
			case !isLink && m[3] != "":
				t.Errorf("%s: ls -lR line %q shows a target", kind, line)
			}
			delete(want, kind+" "+m[2])
		}
		// -l of the directory: the link's base name.
		out = mustRun(t, "ls", "-l", url+"|"+map[string]string{"tar": "pipefs.tar", "zip": "zip"}[kind]+":d/")
		if !strings.HasSuffix(out, "  "+path.Base("d/up")+" -> "+links["d/up"]+"\n") {
			t.Errorf("%s: ls -l d/:\n%s", kind, out)
		}
	}
	if len(want) > 0 {
		t.Errorf("links not listed: %v", want)
	}

	// Given as an argument, a zip symlink, which pipefs does not follow,
	// is listed itself, with its target.
	out := mustRun(t, "ls", "-l", zfile+"|zip:d/up")
	if !strings.HasSuffix(out, "  "+zfile+"|zip:d/up -> "+links["d/up"]+"\n") {
		t.Errorf("ls -l of a zip symlink:\n%s", out)
	}

	// stat describes a zip symlink, which pipefs does not follow, itself.
	out = mustRun(t, "stat", zfile+"|zip:d/up")
	if !strings.Contains(out, "Type:     symbolic link\nTarget:   "+links["d/up"]+"\n") {
		t.Errorf("stat of a zip symlink:\n%s", out)
	}
}
