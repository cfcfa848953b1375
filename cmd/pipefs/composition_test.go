package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// fixtureServer serves the shared fixtures over HTTP on loopback.
func fixtureServer(t *testing.T) *fstest.HTTPServer {
	t.Helper()
	dir, err := filepath.Abs("../../../shared/fixtures")
	if err != nil {
		t.Fatal(err)
	}
	return fstest.NewHTTPServerFS(t, nil, os.DirFS(dir))
}

// tarGzOf returns a tar.gz of the fixture directories rels, with their
// paths under the fixtures as names.
func tarGzOf(t *testing.T, rels ...string) []byte {
	t.Helper()
	dir, err := filepath.Abs("../../../shared/fixtures")
	if err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(dir)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, rel := range rels {
		err := fs.WalkDir(fsys, rel, func(name string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			b, err := fs.ReadFile(fsys, name)
			if err != nil {
				return err
			}
			if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
				return err
			}
			_, err = tw.Write(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCompositionCLI runs ls -R, cat, log and array --read on the
// fixtures over http and inside a tar.gz (memory root), and compares
// with the format guides.
func TestCompositionCLI(t *testing.T) {
	srv := fixtureServer(t)
	tgz := "memory:/" + fstest.MapFiles(t, map[string][]byte{"f.tar.gz": tarGzOf(t,
		"ocdbt/files_min_arity.ocdbt", "ocdbt/multi_version_low_arity.ocdbt", "icechunk/test-repo-v1", "zarr3/data.zarr")}) + "/f.tar.gz"
	for name, root := range map[string]string{
		"http":   srv.URL() + "/",
		"tar.gz": tgz + "|gzip:|pipefs.tar:",
	} {
		t.Run(name, func(t *testing.T) {
			// OCDBT.md section 9: the files_* databases.
			checkLines(t, mustRun(t, "ls", "-R", root+"ocdbt/files_min_arity.ocdbt/"),
				"#\na\nb\nbaz/\nbaz/first\nbaz/x\nbaz/z\nc\nempty\n")
			if got := mustRun(t, "cat", root+"ocdbt/files_min_arity.ocdbt/|ocdbt:c"); got != "bar" {
				t.Errorf("cat c = %q, want %q", got, "bar")
			}
			db := root + "ocdbt/multi_version_low_arity.ocdbt/"
			if got := mustRun(t, "cat", db+"|ocdbt://v100/key42"); got != "version 42" {
				t.Errorf("cat v100 key42 = %q, want %q", got, "version 42")
			}
			if got := strings.Count(mustRun(t, "ls", "-R", db+"|ocdbt://v150/"), "\n"); got != 150 {
				t.Errorf("ls -R v150: %d lines, want 150", got)
			}
			log := strings.Split(strings.TrimSuffix(mustRun(t, "log", db), "\n"), "\n")
			if len(log) != 201 || strings.Join(strings.Fields(log[1]), " ") != "v1 2025-01-30T21:32:59.931662761Z 1" {
				t.Errorf("log: %d lines, first version %q; want 201 lines, v1 at 2025-01-30T21:32:59.931662761Z", len(log), log[min(1, len(log)-1)])
			}

			// ICECHUNK.md section 10: test-repo-v1.
			repo := root + "icechunk/test-repo-v1/"
			ls := mustRun(t, "ls", "-R", repo+"|icechunk://tag.it%20works!/")
			if n := strings.Count(ls, "\n") - strings.Count(ls, "/\n"); n != 12 {
				t.Errorf("ls -R tag.it works!: %d files, want 12:\n%s", n, ls)
			}
			log = strings.Split(strings.TrimSuffix(mustRun(t, "log", repo), "\n"), "\n")
			if len(log) != 5 || !strings.HasPrefix(log[1], "NXH3M0HJ7EEJ0699DPP0") || !strings.HasSuffix(log[4], "Repository initialized") {
				t.Errorf("log of main:\n%s\nwant NXH3M0HJ7EEJ0699DPP0 first and 4 snapshots", strings.Join(log, "\n"))
			}
			if got := mustRun(t, "array", "--read", repo+"|icechunk://tag.it%20works!/|zarr3:group1/small_chunks"); got != "\x54\x54\x54\x54\x08" {
				t.Errorf("array --read small_chunks = % x, want 54 54 54 54 08", got)
			}

			// ARRAYS.md section 8.
			for _, tc := range []struct{ array, sha string }{
				{"3d.chunked.compressed.sharded.i2", "d9f3c8064105485f"},
				{"3d.chunked.mixed.i2.F", "58a54299e0e8d0a7"},
				{"2d.chunked.ragged.compressed.sharded.i2", "00d2e6ff506fb601"},
			} {
				if got := sha16(mustRun(t, "array", "--read", root+"zarr3/data.zarr/|zarr3:"+tc.array)); got != tc.sha {
					t.Errorf("array --read %s: sha %s, want %s", tc.array, got, tc.sha)
				}
			}
		})
	}
}
