package s3root_test

import (
	"archive/zip"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/remote"
	"github.com/pipefs/pipefs/roots/s3root"
	"github.com/pipefs/pipefs/vfs"
)

// cfg signs with the test server's keys. One value, so that every test
// shares one client.
var cfg = &aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider(accessKey, secretKey, "")}

func withS3(o *s3root.Options) *vfs.Options {
	return &vfs.Options{Schemes: map[string]any{"s3": o}}
}

// signed are the options of s3+http URLs that name the counting proxy.
var signed = withS3(&s3root.Options{Config: cfg})

func randBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

var treeFiles = map[string][]byte{
	"a.txt":         []byte("hello, s3\n"),
	"d/b.txt":       []byte("world\n"),
	"d/e/big.bin":   randBytes(1, 300<<10),
	"empty":         {},
	"z/sp ace%.txt": []byte("odd name\n"),
}

func TestConformance(t *testing.T) {
	needGW(t)
	bucket(t, "conf", false)
	putFiles(t, "conf", "tree/", treeFiles)
	t.Run("s3+http", func(t *testing.T) {
		fstest.Run(t, fstest.Case{Pipeline: "s3+http://" + gwProxy.Addr + "/conf/tree/", Options: signed, Files: treeFiles, Exhaustive: true})
	})
	t.Run("s3", func(t *testing.T) {
		o := withS3(&s3root.Options{Config: cfg, Endpoint: "http://" + gwProxy.Addr})
		fstest.Run(t, fstest.Case{Pipeline: "s3://conf/tree/", Options: o, Files: treeFiles, Exhaustive: true})
	})
	t.Run("zip", func(t *testing.T) {
		put(t, "conf", "zips/a.zip", fstest.ZipBytes(treeFiles, zip.Deflate))
		fstest.Run(t, fstest.Case{Pipeline: "s3+http://" + gwProxy.Addr + "/conf/zips/a.zip|zip:", Options: signed, Files: treeFiles, Exhaustive: true})
	})
}

// TestModified overwrites an object between open and read.
func TestModified(t *testing.T) {
	needGW(t)
	bucket(t, "mod", false)
	old := randBytes(2, 200<<10)
	put(t, "mod", "f.bin", old)
	ctx := context.Background()
	f, err := vfs.Open(ctx, "s3+http://"+gwProxy.Addr+"/mod/f.bin", signed)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	put(t, "mod", "f.bin", randBytes(3, 200<<10))
	gwProxy.Take()
	p := make([]byte, 1000)
	n, err := f.ReadAt(p, 0)
	if !errors.Is(err, driver.ErrModified) {
		t.Fatalf("ReadAt after overwrite = %d, %v; want an error matching driver.ErrModified", n, err)
	}
	if reqs := gwProxy.Take(); len(reqs) != 1 || !strings.Contains(reqs[0], "If-Match") {
		t.Errorf("requests of the read = %q, want one GET with If-Match (a 412 is not retried)", reqs)
	}
	// The bytes pinned at open are still the old version's.
	n, err = f.ReadAt(p[:10], int64(len(old)-10))
	if err != nil && err != io.EOF || string(p[:n]) != string(old[len(old)-10:]) {
		t.Errorf("ReadAt of the tail = %q, %v; want the old bytes", p[:n], err)
	}
	// A new open sees the new version.
	g, err := vfs.Open(ctx, "s3+http://"+gwProxy.Addr+"/mod/f.bin", signed)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.ReadAt(p, 0); err != nil {
		t.Errorf("ReadAt after a new open: %v", err)
	}
}

func TestErrors(t *testing.T) {
	needGW(t)
	bucket(t, "private", false)
	put(t, "private", "secret.txt", []byte("no"))
	ctx := context.Background()
	base := "s3+http://" + gwProxy.Addr
	anon := withS3(&s3root.Options{Anonymous: true})
	for _, tc := range []struct {
		name, url string
		o         *vfs.Options
		want      error
	}{
		{"missing key", base + "/private/nothing.txt", signed, fs.ErrNotExist},
		{"missing bucket", base + "/nobucket/x.txt", signed, fs.ErrNotExist},
		{"denied read", base + "/private/secret.txt", anon, fs.ErrPermission},
		{"bad keys", base + "/private/secret.txt", withS3(&s3root.Options{Config: &aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider(accessKey, "wrong", "")}}), fs.ErrPermission},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := vfs.Open(ctx, tc.url, tc.o)
			if err == nil {
				f.Close()
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("OpenFile(%s) = %v, want an error matching %v", tc.url, err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.url) {
				t.Errorf("OpenFile(%s) = %v, want the URL in the message", tc.url, err)
			}
		})
	}
	t.Run("denied listing", func(t *testing.T) {
		fsys, err := vfs.OpenFS(ctx, base+"/private/", anon)
		if err == nil {
			defer fsys.Close()
			_, err = fsys.ReadDir(".")
		}
		if !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("ReadDir of a private bucket, anonymous = %v, want fs.ErrPermission", err)
		}
	})
}

// TestAnonymous reads a public bucket without credentials.
func TestAnonymous(t *testing.T) {
	needGW(t)
	bucket(t, "public", true)
	files := map[string][]byte{"p/a.txt": []byte("public\n"), "p/q/b.txt": []byte("b\n")}
	putFiles(t, "public", "", files)
	anon := withS3(&s3root.Options{Anonymous: true})
	fstest.Run(t, fstest.Case{Pipeline: "s3+http://" + gwProxy.Addr + "/public/", Options: anon, Files: files, Exhaustive: true})
}

// TestRequests counts what the server sees.
func TestRequests(t *testing.T) {
	needGW(t)
	bucket(t, "req", false)
	big := randBytes(4, 1<<20)
	put(t, "req", "dir/big.bin", big)
	put(t, "req", "dir/small.txt", []byte("small"))
	put(t, "req", "dir/sub/x", []byte("x"))
	ctx := context.Background()
	base := "s3+http://" + gwProxy.Addr + "/req/"
	gwProxy.Take()

	f, err := vfs.Open(ctx, base+"dir/big.bin", signed)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := []string{"GET /req/dir/big.bin?x-id=GetObject Range:bytes=-65536"}
	if got := gwProxy.Take(); !slices.Equal(got, want) {
		t.Errorf("open: requests = %q, want %q", got, want)
	}
	p := make([]byte, 100)
	if _, err := f.ReadAt(p, 1<<20-1000); err != nil { // inside the suffix read at open
		t.Fatal(err)
	}
	if got := gwProxy.Take(); len(got) != 0 {
		t.Errorf("read inside the first suffix: requests = %q, want none", got)
	}
	if _, err := f.ReadAt(p, 0); err != nil {
		t.Fatal(err)
	}
	if got := gwProxy.Take(); len(got) != 1 || !strings.Contains(got[0], "If-Match") || !strings.HasPrefix(got[0], "GET /req/dir/big.bin") {
		t.Errorf("one read at 0: requests = %q, want one conditional range GET", got)
	}
	if string(p) != string(big[:100]) {
		t.Errorf("ReadAt(0) returned the wrong bytes")
	}

	small, err := vfs.Open(ctx, base+"dir/small.txt", signed)
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	if b, err := io.ReadAll(small); err != nil || string(b) != "small" {
		t.Errorf("ReadAll = %q, %v", b, err)
	}
	if got := gwProxy.Take(); len(got) != 1 {
		t.Errorf("open and read a small object: requests = %q, want 1", got)
	}

	fsys, err := vfs.OpenFS(ctx, base+"dir/", signed)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	gwProxy.Take()
	ents, err := fsys.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"big.bin", "small.txt", "sub"}) {
		t.Errorf("ReadDir = %q", names)
	}
	if got := gwProxy.Take(); len(got) != 1 || !strings.Contains(got[0], "list-type=2") {
		t.Errorf("list: requests = %q, want one ListObjectsV2", got)
	}
}

// TestDirectoryMarkers checks keys that end in "/" and keys that are not
// valid names.
func TestDirectoryMarkers(t *testing.T) {
	needGW(t)
	bucket(t, "marks", false)
	put(t, "marks", "m/", nil) // versitygw refuses content in "dir/" keys
	put(t, "marks", "m/x.txt", []byte("x"))
	put(t, "marks", "empty/", nil)
	ctx := context.Background()
	fsys, err := vfs.OpenFS(ctx, "s3+http://"+gwProxy.Addr+"/marks/", signed)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	for dir, want := range map[string][]string{".": {"empty", "m"}, "m": {"x.txt"}, "empty": nil} {
		ents, err := fsys.ReadDir(dir)
		if err != nil {
			t.Errorf("ReadDir(%s): %v", dir, err)
			continue
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, want) {
			t.Errorf("ReadDir(%s) = %q, want %q", dir, names, want)
		}
	}
	if fi, err := fsys.Stat("empty"); err != nil || !fi.IsDir() {
		t.Errorf("Stat(empty) = %v, %v; want a directory", fi, err)
	}
	if _, err := fsys.ReadDir("nothing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir(nothing) = %v, want fs.ErrNotExist", err)
	}
}

// TestVirtualHost puts a front in place of a virtual-host-style endpoint:
// the host names the bucket, so the path is the whole key.
func TestVirtualHost(t *testing.T) {
	needGW(t)
	bucket(t, "vhost", true)
	files := map[string][]byte{"dir/a.txt": []byte("a"), "dir/s/b.txt": []byte("b")}
	putFiles(t, "vhost", "", files)
	front := newCounter(t, gw.Addr, func(r *http.Request) {
		r.URL.Path = "/vhost" + strings.TrimSuffix(r.URL.Path, "/")
		r.URL.RawPath = ""
	})
	defer front.Close()
	anon := withS3(&s3root.Options{Anonymous: true})
	fstest.Run(t, fstest.Case{Pipeline: "s3+http://" + front.Addr + "/dir/", Options: anon, Files: map[string][]byte{"a.txt": []byte("a"), "s/b.txt": []byte("b")}, Exhaustive: true})
	fsys, err := vfs.OpenFS(context.Background(), "s3+http://"+front.Addr+"/dir/s/", anon)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	front.Take()
	if _, err := fsys.ReadDir("."); err != nil {
		t.Fatal(err)
	}
	if got := front.Take(); len(got) != 1 || !strings.HasPrefix(got[0], "GET /?") {
		t.Errorf("a listing once the style is known: requests = %q, want one virtual-host ListObjectsV2", got)
	}
}

// model is a loopback server that answers like S3 for what a test needs.
func model(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func serveObject(w http.ResponseWriter, r *http.Request, data []byte) {
	w.Header().Set("ETag", `"v1"`)
	http.ServeContent(w, r, "", testTime, strings.NewReader(string(data)))
}

// TestRegionRedirect models S3 refusing a request signed for the wrong
// region, with the bucket's region in x-amz-bucket-region.
func TestRegionRedirect(t *testing.T) {
	s, n := model(t, func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Authorization"), "/eu-west-2/s3/") {
			w.Header().Set("X-Amz-Bucket-Region", "eu-west-2")
			w.WriteHeader(http.StatusMovedPermanently)
			io.WriteString(w, `<Error><Code>PermanentRedirect</Code><Message>use eu-west-2</Message></Error>`)
			return
		}
		serveObject(w, r, []byte("from eu-west-2"))
	})
	o := withS3(&s3root.Options{Config: cfg, Endpoint: s.URL, Region: "us-east-1"})
	for i, want := range []int32{2, 1} {
		n.Store(0)
		b, err := fs.ReadFile(openFS(t, "s3://regional/", o), "a.txt")
		if err != nil || string(b) != "from eu-west-2" {
			t.Fatalf("ReadFile = %q, %v", b, err)
		}
		if got := n.Load(); got != want {
			t.Errorf("open %d: %d requests, want %d", i+1, got, want)
		}
	}
}

func openFS(t *testing.T, u string, o *vfs.Options) *vfs.FS {
	t.Helper()
	fsys, err := vfs.OpenFS(context.Background(), u, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

// TestRetries checks that 5xx answers are retried once per attempt: by
// roots/remote, not again by the SDK.
func TestRetries(t *testing.T) {
	var fails atomic.Int32
	fails.Store(2)
	s, n := model(t, func(w http.ResponseWriter, r *http.Request) {
		if fails.Add(-1) >= 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `<Error><Code>SlowDown</Code><Message>slow down</Message></Error>`)
			return
		}
		serveObject(w, r, []byte("after retries"))
	})
	o := withS3(&s3root.Options{Anonymous: true, Remote: remote.Options{Retry: remote.Retry{BaseDelay: 1}}})
	u := "s3+http://" + strings.TrimPrefix(s.URL, "http://") + "/b/a.txt"
	b, err := readURL(u, o)
	if err != nil || string(b) != "after retries" {
		t.Fatalf("read %s = %q, %v", u, b, err)
	}
	if got := n.Load(); got != 3 {
		t.Errorf("%d requests, want 3 (2 failures, 1 success)", got)
	}
	// Bounded: with 1 attempt, one request and the error.
	fails.Store(5)
	n.Store(0)
	o = withS3(&s3root.Options{Anonymous: true, Remote: remote.Options{Retry: remote.Retry{MaxAttempts: 1}}})
	if _, err := readURL(u, o); err == nil || n.Load() != 1 {
		t.Errorf("MaxAttempts 1: err %v after %d requests; want an error after 1", err, n.Load())
	}
}

func readURL(u string, o *vfs.Options) ([]byte, error) {
	f, err := vfs.Open(context.Background(), u, o)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// TestEnvironment checks that the AWS variables are read, and that Options
// win over them.
func TestEnvironment(t *testing.T) {
	needGW(t)
	bucket(t, "env", false)
	put(t, "env", "a.txt", []byte("env"))
	t.Setenv("AWS_ACCESS_KEY_ID", accessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secretKey)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	t.Setenv("AWS_ENDPOINT_URL_S3", "http://"+gwProxy.Addr)
	// versitygw is path style; a custom endpoint defaults to it.
	if b, err := readURL("s3://env/a.txt", nil); err != nil || string(b) != "env" {
		t.Errorf("read with AWS_ENDPOINT_URL_S3 = %q, %v", b, err)
	}
	t.Setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:1") // nothing listens
	o := withS3(&s3root.Options{Endpoint: "http://" + gwProxy.Addr, Remote: remote.Options{Retry: remote.Retry{MaxAttempts: 1}}})
	if b, err := readURL("s3://env/a.txt", o); err != nil || string(b) != "env" {
		t.Errorf("read with Options.Endpoint over the environment = %q, %v", b, err)
	}
	if _, err := readURL("s3://env/a.txt", withS3(&s3root.Options{Remote: remote.Options{Retry: remote.Retry{MaxAttempts: 1}}})); err == nil {
		t.Errorf("read with AWS_ENDPOINT_URL_S3 naming a closed port succeeded")
	}
}

var testTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
