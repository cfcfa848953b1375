package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/arcp"
)

// TestArcp prints the arcp URIs of members of a zip and of a zip inside
// it, checks each identifier against one computed here from the bytes and
// the pipeline, and opens every printed URI back with an arcp.Resolver.
func TestArcp(t *testing.T) {
	inner := zipOf(t,
		entry{name: "x.txt", body: "inner x\n"},
		entry{name: "d/", body: ""},
		entry{name: "d/y z.txt", body: "inner y\n"},
	)
	outer := zipOf(t,
		entry{name: "dir/f.txt", body: "outer f\n"},
		entry{name: "a b%#.txt", body: "odd\n"},
		entry{name: "inner.zip", body: string(inner), store: true},
	)
	dir := t.TempDir()
	path := filepath.Join(dir, "a.zip")
	if err := os.WriteFile(path, outer, 0o644); err != nil {
		t.Fatal(err)
	}
	file := vfs.MustParse("file:" + filepath.ToSlash(path)).String()
	// The same tar, plain and gzipped: its container is the tar stream
	// either way, so the two share their ni identifier.
	tarBytes, tgz := tarOf(t, "t/f.txt", "tar f\n")
	for name, b := range map[string][]byte{"c.tar": tarBytes, "c.tar.gz": tgz} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tarFile := vfs.MustParse("file:" + filepath.ToSlash(filepath.Join(dir, "c.tar"))).String()
	tgzFile := vfs.MustParse("file:" + filepath.ToSlash(filepath.Join(dir, "c.tar.gz"))).String()

	tests := []struct {
		arg       string // the URL given
		container string // the container's pipeline
		bytes     []byte // the container's bytes
		name      string // the container's name
		path      string // the URI path
		member    string // the member's bytes, "" for a directory
	}{
		{file + "|zip:dir/f.txt", file, outer, "a.zip", "/dir/f.txt", "outer f\n"},
		{path + "|zip:a b%25%23.txt", file, outer, "a.zip", "/a%20b%25%23.txt", "odd\n"},
		{file + "|zip:inner.zip", file, outer, "a.zip", "/inner.zip", string(inner)},
		{file + "|zip:dir", file, outer, "a.zip", "/dir/", ""},
		{file, file, outer, "a.zip", "/", ""},
		{file + "|zip:inner.zip|zip:x.txt", file + "|zip:inner.zip", inner, "inner.zip", "/x.txt", "inner x\n"},
		{file + "|zip:inner.zip|zip:d/y%20z.txt", file + "|zip:inner.zip", inner, "inner.zip", "/d/y%20z.txt", "inner y\n"},
		{file + "|zip:inner.zip|zip:d/", file + "|zip:inner.zip", inner, "inner.zip", "/d/", ""},
		{tarFile + "|pipefs.tar:t/f.txt", tarFile, tarBytes, "c.tar", "/t/f.txt", "tar f\n"},
		{tgzFile + "|gzip:|pipefs.tar:t/f.txt", tgzFile + "|gzip:", tarBytes, "c.tar.gz", "/t/f.txt", "tar f\n"},
		{tgzFile, tgzFile + "|gzip:", tarBytes, "c.tar.gz", "/", ""},
	}
	var r arcp.Resolver
	defer r.Close()
	for _, tc := range tests {
		t.Run(tc.arg, func(t *testing.T) {
			var got arcpIDs
			if err := json.Unmarshal([]byte(mustRun(t, "arcp", "--json", tc.arg)), &got); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(tc.bytes)
			want := arcpIDs{
				Container: tc.container,
				UUID:      "arcp://uuid," + arcp.NewSHA1(arcp.NamespaceURL, []byte(tc.container)).String() + tc.path,
				NI:        "arcp://ni,sha-256;" + base64.RawURLEncoding.EncodeToString(sum[:]) + tc.path,
				Name:      "arcp://name," + tc.name + tc.path,
			}
			got.URL = ""
			if got != want {
				t.Errorf("pipefs arcp --json %q =\n%+v\nwant\n%+v", tc.arg, got, want)
			}

			// The text form: the same URIs, one a line.
			text := mustRun(t, "arcp", tc.arg)
			if wantText := want.UUID + "\n" + want.NI + "\n" + want.Name + "\n"; text != wantText {
				t.Errorf("pipefs arcp %q =\n%s\nwant\n%s", tc.arg, text, wantText)
			}
			noHash := mustRun(t, "arcp", "--no-hash", tc.arg)
			if wantText := want.UUID + "\n" + want.Name + "\n"; noHash != wantText {
				t.Errorf("pipefs arcp --no-hash %q =\n%s\nwant\n%s", tc.arg, noHash, wantText)
			}

			// Each URI opens back to the member.
			if _, err := r.Lookup(strings.TrimPrefix(strings.TrimSuffix(want.UUID, tc.path), "arcp://")); err != nil {
				if _, err := r.AddPipeline(t.Context(), tc.container, nil); err != nil {
					t.Fatal(err)
				}
			}
			for _, u := range []string{got.UUID, got.NI, got.Name} {
				f, err := r.Open(t.Context(), u)
				if err != nil {
					t.Fatalf("Resolver.Open(%q): %v", u, err)
				}
				info, err := f.Stat()
				if err != nil {
					t.Fatal(err)
				}
				if tc.member == "" {
					if !info.IsDir() {
						t.Errorf("%s is not a directory", u)
					}
				} else if b, err := io.ReadAll(f); err != nil || string(b) != tc.member {
					t.Errorf("%s: read %q, %v; want %q", u, b, err, tc.member)
				}
				f.Close()
			}
		})
	}
}

// tarOf returns a tar archive of one file, and the same gzipped.
func tarOf(t *testing.T, name, body string) (plain, gzipped []byte) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), ModTime: modTime}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), gz.Bytes()
}

func TestArcpErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.zip")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("plain text\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, zipOf(t, entry{name: "f.txt", body: "f\n"}, entry{name: "f.txt.gz", body: gz.String()}), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"arcp"}, exitUsage, "accepts 1 arg(s)"},
		{[]string{"arcp", "a", "b"}, exitUsage, "accepts 1 arg(s)"},
		{[]string{"arcp", "--bogus", path}, exitUsage, "unknown flag"},
		{[]string{"arcp", path + "|zip:missing.txt"}, exitError, "does not exist"},
		{[]string{"arcp", path + "|zip:f.txt/"}, exitError, "not a directory"},
		{[]string{"arcp", filepath.Dir(path)}, exitError, "names no member of a container"},
		{[]string{"arcp", path + "|zip:f.txt.gz|gzip:"}, exitError, "names no member of a container"},
		{[]string{"arcp", path + "|zip:f.txt|gzip:"}, exitError, "not a gzip stream"},
		{[]string{"arcp", "file:/no/such/a.zip|zip:f.txt"}, exitError, "no such file"},
	}
	for _, tc := range tests {
		r := runCLI(t, tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stderr, "pipefs: ") || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("pipefs %q: exit %d, stderr %q; want exit %d and %q", tc.args, r.code, r.stderr, tc.code, tc.stderr)
		}
		if r.stdout != "" {
			t.Errorf("pipefs %q: stdout %q, want nothing", tc.args, r.stdout)
		}
	}
}

// TestArcpHelp checks the help, and runs its examples that use the
// repository's demo archive.
func TestArcpHelp(t *testing.T) {
	out := mustRun(t, "arcp", "--help")
	for _, want := range []string{"Usage:\n  pipefs arcp", "Examples:\n  pipefs arcp", "--no-hash", "--json", "RFC 9562", "RFC 6920"} {
		if !strings.Contains(out, want) {
			t.Errorf("pipefs arcp --help does not contain %q:\n%s", want, out)
		}
	}
	demo := "../../testdata/demo.zip"
	out = mustRun(t, "arcp", "--no-hash", demo+"|zip:data/inner.zip|zip:deep.zip")
	if !strings.HasPrefix(out, "arcp://uuid,") || !strings.HasSuffix(out, "\narcp://name,inner.zip/deep.zip\n") {
		t.Errorf("example: %q", out)
	}
	var ids arcpIDs
	if err := json.Unmarshal([]byte(mustRun(t, "arcp", "--json", demo)), &ids); err != nil || !strings.HasSuffix(ids.Name, "name,demo.zip/") {
		t.Errorf("example --json: %+v, %v", ids, err)
	}
}
