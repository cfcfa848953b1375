package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/fstest/cloudtest"
)

// completeCLI runs __complete on args and returns the candidates; the
// directive must be want.
func completeCLI(t *testing.T, want int, args ...string) []string {
	t.Helper()
	r := runCLI(t, append([]string{"__complete"}, args...)...)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) == 0 || lines[len(lines)-1] != fmt.Sprintf(":%d", want) {
		t.Fatalf("__complete %q: exit %d, directive %q, want :%d\n%s", args, r.code, lines[len(lines)-1], want, r.stdout)
	}
	return lines[:len(lines)-1]
}

// A completeCase is one argument to complete and the candidates it gets,
// each written after the argument's directory part: "" is dir itself.
type completeCase struct {
	arg  string
	want []string
	fail bool // the completion fails: nothing, with directive 5
}

// checkCompletions completes each case's argument (after prefix) for ls
// and compares the candidates with prefix+dir+want.
func checkCompletions(t *testing.T, prefix string, cases []completeCase) {
	t.Helper()
	for _, tc := range cases {
		directive := 6
		if tc.fail {
			directive = 5
		}
		got := completeCLI(t, directive, "ls", prefix+tc.arg)
		want := make([]string, len(tc.want))
		for i, w := range tc.want {
			want[i] = prefix + w
		}
		if !slices.Equal(got, want) {
			t.Errorf("complete %q:\ngot  %q\nwant %q", prefix+tc.arg, got, want)
		}
	}
}

// gzippedTar builds a .tar.gz of the files, in name order.
func gzippedTar(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), ModTime: modTime}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(files[n]))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return buf.Bytes()
}

// layerFiles are the archives that the layer tests complete in: a
// tar.gz, and a zip holding a zip and names that need escaping.
func layerFiles(t testing.TB) map[string][]byte {
	inner := zipOf(t, entry{name: "hello.txt", body: "deep hello\n"}, entry{name: "odd %#?.txt", body: "odd\n"})
	return map[string][]byte{
		"a.tar.gz": gzippedTar(t, map[string]string{"dir/f.txt": "f\n", "dir/g.txt": "g\n", "top.txt": "top\n"}),
		"outer.zip": zipOf(t,
			entry{name: "inner.zip", body: string(inner), store: true},
			entry{name: "docs/"},
			entry{name: "docs/a|b.md", body: "pipe\n"},
			entry{name: "docs/guide.md", body: "guide\n"},
		),
	}
}

// archiveCases are the completions inside layerFiles, under whatever
// holds them.
var archiveCases = []completeCase{
	{"a.tar.gz|", []string{"a.tar.gz|gzip:", "a.tar.gz|gzip:|pipefs.tar:"}, false},
	{"a.tar.gz|g", []string{"a.tar.gz|gzip:", "a.tar.gz|gzip:|pipefs.tar:"}, false},
	{"a.tar.gz|gzip:", []string{"a.tar.gz|gzip:|pipefs.tar:"}, false},
	{"a.tar.gz|gzip:|pipefs.tar:", []string{"a.tar.gz|gzip:|pipefs.tar:dir/", "a.tar.gz|gzip:|pipefs.tar:top.txt"}, false},
	{"a.tar.gz|gzip:|pipefs.tar:dir/", []string{"a.tar.gz|gzip:|pipefs.tar:dir/f.txt", "a.tar.gz|gzip:|pipefs.tar:dir/g.txt"}, false},
	{"outer.zip|", []string{"outer.zip|zip:"}, false},
	{"outer.zip|zip:", []string{"outer.zip|zip:docs/", "outer.zip|zip:inner.zip", "outer.zip|zip:inner.zip|zip:"}, false},
	{"outer.zip|zip:docs/", []string{"outer.zip|zip:docs/a%7Cb.md", "outer.zip|zip:docs/guide.md"}, false},
	{"outer.zip|zip:docs/a%7C", []string{"outer.zip|zip:docs/a%7Cb.md"}, false},
	{"outer.zip|zip:inner.zip|", []string{"outer.zip|zip:inner.zip|zip:"}, false},
	{"outer.zip|zip:inner.zip|zip:", []string{"outer.zip|zip:inner.zip|zip:hello.txt", "outer.zip|zip:inner.zip|zip:odd %25%23%3F.txt"}, false},
	{"outer.zip|zip:inner.zip|zip:o", []string{"outer.zip|zip:inner.zip|zip:odd %25%23%3F.txt"}, false},
	{"outer.zip|zip:nothing/", nil, true},
}

// writeFiles writes files under dir.
func writeFiles(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCompleteLocal completes local paths and the archives in them, and
// checks that each completed name opens.
func TestCompleteLocal(t *testing.T) {
	dir := t.TempDir() + "/"
	files := layerFiles(t)
	files["with space/file one.txt"] = []byte("one\n")
	files["with space/a|b#c?d%e.txt"] = []byte("odd\n")
	files["v.json"] = []byte(`{"a": [1, 2]}`)
	writeFiles(t, dir, files)
	checkCompletions(t, dir, append([]completeCase{
		{"", []string{"a.tar.gz", "outer.zip", "outer.zip|zip:", "v.json", "with space/"}, false},
		// No signature: the extension names the adapter.
		{"v.json|", []string{"v.json|json:"}, false},
		// A directory that no format matches: every adapter that reads one.
		{"with space/|zarr", []string{"with space/|zarr:", "with space/|zarr2:", "with space/|zarr3:"}, false},
		{"w", []string{"with space/"}, false},
		{"with space/", []string{"with space/a%7Cb%23c%3Fd%25e.txt", "with space/file one.txt"}, false},
		{"with space/a%7Cb", []string{"with space/a%7Cb%23c%3Fd%25e.txt"}, false},
		{"with space/a|", nil, true},
		{"nothing", nil, false},
	}, archiveCases...))
	for _, name := range []string{"with space/a%7Cb%23c%3Fd%25e.txt", "with space/file one.txt", "outer.zip|zip:inner.zip|zip:odd %25%23%3F.txt"} {
		if r := runCLI(t, "cat", dir+name); r.code != 0 {
			t.Errorf("cat of the completed %q: exit %d: %s", name, r.code, r.stderr)
		}
	}
}

// TestCompleteHTTP completes the archives on a web server, which cannot
// list its directories.
func TestCompleteHTTP(t *testing.T) {
	s := fstest.NewHTTPServer(t, layerFiles(t))
	checkCompletions(t, s.URL()+"/", archiveCases)
	// No listing: nothing to offer, and no error message.
	if r := runCLI(t, "__complete", "ls", s.URL()+"/"); r.code != 0 || r.stdout != ":5\n" {
		t.Errorf("complete the server's root: exit %d\n%s", r.code, r.stdout)
	}
}

// TestCompleteTimeout checks that a completion that takes longer than
// PIPEFS_COMPLETE_TIMEOUT offers nothing: the server answers no request
// until the completion has given up.
func TestCompleteTimeout(t *testing.T) {
	s := fstest.NewHTTPServer(t, layerFiles(t))
	s.Inject(fstest.Fault{Kind: fstest.FaultDelay, Delay: time.Until(waitDeadline(t)), Times: -1})
	t.Setenv("PIPEFS_COMPLETE_TIMEOUT", "50ms")
	r := runCLI(t, "__complete", "ls", s.URL()+"/outer.zip|zip:")
	if r.code != 0 || r.stdout != ":5\n" {
		t.Errorf("a slow completion: exit %d\n%s", r.code, r.stdout)
	}
}

// TestCompleteStores completes Zarr, N5, precomputed, OCDBT and Icechunk
// fixtures: the adapter after "|", the nodes and keys inside, the versions
// of an OCDBT database and the refs of an Icechunk repository.
func TestCompleteStores(t *testing.T) {
	fix := fstest.Fixture(t, ".") + "/"
	var versions, v19 []string
	for i := 1; i <= 200; i++ {
		v := fmt.Sprintf("ocdbt/multi_version_low_arity.ocdbt|ocdbt://v%d/", i)
		versions = append(versions, v)
		if s := fmt.Sprint(i); s == "19" || strings.HasPrefix(s, "19") && len(s) == 3 {
			v19 = append(v19, v)
		}
	}
	refs := func(repo string) []string {
		var out []string
		for _, r := range []string{"branch.main", "branch.my-branch", "tag.it%20also%20works!", "tag.it%20works!"} {
			out = append(out, repo+"|icechunk://"+r+"/")
		}
		return out
	}
	checkCompletions(t, fix, []completeCase{
		{"zarr3/data.zarr|", []string{"zarr3/data.zarr|zarr3:"}, false},
		{"zarr3/data.zarr/|zarr3:3d.chunked.i", []string{"zarr3/data.zarr/|zarr3:3d.chunked.i2/"}, false},
		{"zarr3/data.zarr/|zarr3:1d.chunked.i2/", []string{"zarr3/data.zarr/|zarr3:1d.chunked.i2/c/", "zarr3/data.zarr/|zarr3:1d.chunked.i2/zarr.json"}, false},
		{"zarr2/data.zarr|", []string{"zarr2/data.zarr|zarr2:"}, false},
		{"n5/tensorstore_golden/raw|", []string{"n5/tensorstore_golden/raw|n5:"}, false},
		{"precomputed/one_channel|", []string{"precomputed/one_channel|neuroglancer-precomputed:"}, false},
		{"ocdbt/files_min_arity.ocdbt|", []string{"ocdbt/files_min_arity.ocdbt|ocdbt:"}, false},
		{"ocdbt/files_min_arity.ocdbt|ocdbt:", []string{
			"ocdbt/files_min_arity.ocdbt|ocdbt:%23", "ocdbt/files_min_arity.ocdbt|ocdbt:a", "ocdbt/files_min_arity.ocdbt|ocdbt:b",
			"ocdbt/files_min_arity.ocdbt|ocdbt:baz/", "ocdbt/files_min_arity.ocdbt|ocdbt:c", "ocdbt/files_min_arity.ocdbt|ocdbt:empty"}, false},
		{"ocdbt/multi_version_low_arity.ocdbt|ocdbt://", versions, false},
		{"ocdbt/multi_version_low_arity.ocdbt|ocdbt://v19", v19, false},
		{"ocdbt/multi_version_low_arity.ocdbt|ocdbt://v3/", []string{
			"ocdbt/multi_version_low_arity.ocdbt|ocdbt://v3/key1", "ocdbt/multi_version_low_arity.ocdbt|ocdbt://v3/key2",
			"ocdbt/multi_version_low_arity.ocdbt|ocdbt://v3/key3"}, false},
		{"icechunk/test-repo-v1|", []string{"icechunk/test-repo-v1|icechunk:"}, false},
		{"icechunk/test-repo-v1|icechunk://", refs("icechunk/test-repo-v1"), false},
		{"icechunk/test-repo-v2/|icechunk://", refs("icechunk/test-repo-v2/"), false},
		{"icechunk/test-repo-v2/|icechunk://tag.it%20w", []string{"icechunk/test-repo-v2/|icechunk://tag.it%20works!/"}, false},
		{"icechunk/test-repo-v2/|icechunk://tag.it works!/", []string{
			"icechunk/test-repo-v2/|icechunk://tag.it works!/group1/", "icechunk/test-repo-v2/|icechunk://tag.it works!/zarr.json"}, false},
	})
}

// TestCompleteS3 completes the keys of a bucket on versitygw, by
// s3+http:// and by s3:// with the endpoint in the environment.
func TestCompleteS3(t *testing.T) {
	gw := cloudtest.NeedVersitygw(t)
	ctx := t.Context()
	if err := gw.CreateBucket(ctx, "complete", false); err != nil {
		t.Fatal(err)
	}
	for name, data := range layerFiles(t) {
		if err := gw.Put(ctx, "complete", "d/"+name, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := gw.Put(ctx, "complete", "d/odd %#.txt", []byte("odd\n")); err != nil {
		t.Fatal(err)
	}
	setS3Env(t, gw.Addr)
	for _, base := range []string{"s3+http://" + gw.Addr + "/complete/", "s3://complete/"} {
		checkCompletions(t, base, append([]completeCase{
			{"", []string{"d/"}, false},
			{"d/", []string{"d/a.tar.gz", "d/odd %25%23.txt", "d/outer.zip", "d/outer.zip|zip:"}, false},
			{"d/o", []string{"d/odd %25%23.txt", "d/outer.zip", "d/outer.zip|zip:"}, false},
		}, prefixCases("d/", archiveCases)...))
		if r := runCLI(t, "cat", base+"d/odd %25%23.txt"); r.code != 0 || r.stdout != "odd\n" {
			t.Errorf("cat of the completed name: exit %d %q %s", r.code, r.stdout, r.stderr)
		}
	}
}

// TestCompleteGCS completes the objects of a bucket on the GCS emulator.
func TestCompleteGCS(t *testing.T) {
	gcs, err := cloudtest.StartGCS()
	if err != nil {
		t.Fatal(err)
	}
	defer gcs.Close()
	t.Setenv("STORAGE_EMULATOR_HOST", gcs.URL)
	for name, data := range layerFiles(t) {
		gcs.Put("complete", "d/"+name, data)
	}
	gcs.Put("complete", "d/odd %#.txt", []byte("odd\n"))
	checkCompletions(t, "gs://complete/", append([]completeCase{
		{"", []string{"d/"}, false},
		{"d/", []string{"d/a.tar.gz", "d/odd %25%23.txt", "d/outer.zip", "d/outer.zip|zip:"}, false},
	}, prefixCases("d/", archiveCases)...))
}

// prefixCases returns cases with dir before each argument and candidate.
func prefixCases(dir string, cases []completeCase) []completeCase {
	out := make([]completeCase, len(cases))
	for i, c := range cases {
		out[i] = completeCase{arg: dir + c.arg, fail: c.fail}
		for _, w := range c.want {
			out[i].want = append(out[i].want, dir+w)
		}
	}
	return out
}

// setS3Env points the AWS SDK of the processes the test starts, and its
// own, at the S3 server at addr, signing with the test server's keys.
func setS3Env(t *testing.T, addr string) {
	t.Setenv("AWS_ACCESS_KEY_ID", cloudtest.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", cloudtest.SecretKey)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	t.Setenv("AWS_ENDPOINT_URL_S3", "http://"+addr)
}
