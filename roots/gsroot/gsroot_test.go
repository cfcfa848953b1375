package gsroot_test

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipefs/pipefs/vfs/driver"

	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/fstest/cloudtest"
	"github.com/pipefs/pipefs/roots/gsroot"
	"github.com/pipefs/pipefs/roots/remote"
	"github.com/pipefs/pipefs/vfs"
)

// The emulator: fake-gcs-server's fakestorage in process, behind a
// loopback server that counts requests (see fstest/cloudtest).
var gcs *cloudtest.GCS

func TestMain(m *testing.M) {
	var err error
	gcs, err = cloudtest.StartGCS()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("STORAGE_EMULATOR_HOST", gcs.URL)
	code := m.Run()
	gcs.Close()
	os.Exit(code)
}

func randBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func put(t *testing.T, bucket, name string, data []byte) {
	t.Helper()
	gcs.Put(bucket, name, data)
}

var treeFiles = map[string][]byte{
	"a.txt":         []byte("hello, gs\n"),
	"d/b.txt":       []byte("world\n"),
	"d/e/big.bin":   randBytes(1, 300<<10),
	"empty":         {},
	"z/sp ace%.txt": []byte("odd name\n"),
}

func TestConformance(t *testing.T) {
	for name, data := range treeFiles {
		put(t, "conf", "tree/"+name, data)
	}
	t.Run("gs", func(t *testing.T) {
		fstest.Run(t, fstest.Case{Pipeline: "gs://conf/tree/", Files: treeFiles, Exhaustive: true})
	})
	t.Run("zip", func(t *testing.T) {
		put(t, "conf", "zips/a.zip", fstest.ZipBytes(treeFiles, zip.Deflate))
		fstest.Run(t, fstest.Case{Pipeline: "gs://conf/zips/a.zip|zip:", Files: treeFiles, Exhaustive: true})
	})
	t.Run("anonymous", func(t *testing.T) {
		o := &vfs.Options{Schemes: map[string]any{"gs": &gsroot.Options{Anonymous: true}}}
		fstest.Run(t, fstest.Case{Pipeline: "gs://conf/tree/d/", Options: o, Files: map[string][]byte{"b.txt": treeFiles["d/b.txt"], "e/big.bin": treeFiles["d/e/big.bin"]}, Exhaustive: true})
	})
}

func TestRequests(t *testing.T) {
	big := randBytes(2, 1<<20)
	put(t, "req", "dir/big.bin", big)
	put(t, "req", "dir/small.txt", []byte("small"))
	put(t, "req", "dir/sub/x", []byte("x"))
	ctx := context.Background()
	gcs.Take()
	f, err := vfs.Open(ctx, "gs://req/dir/big.bin", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, want := gcs.Take(), []string{"GET /req/dir/big.bin Range:bytes=-65536"}; !slices.Equal(got, want) {
		t.Errorf("open: requests = %q, want %q", got, want)
	}
	p := make([]byte, 100)
	if _, err := f.ReadAt(p, 0); err != nil || string(p) != string(big[:100]) {
		t.Fatalf("ReadAt(0) = %v, or wrong bytes", err)
	}
	if got := gcs.Take(); len(got) != 1 || !strings.HasPrefix(got[0], "GET /req/dir/big.bin Range:bytes=0-") {
		t.Errorf("read: requests = %q, want one range GET", got)
	}
	fsys, err := vfs.OpenFS(ctx, "gs://req/dir/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	gcs.Take()
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
	if got := gcs.Take(); len(got) != 1 {
		t.Errorf("list: requests = %q, want 1", got)
	}
}

// TestModified replaces an object between open and read: the emulator
// answers 404 for the generation seen at open.
func TestModified(t *testing.T) {
	put(t, "mod", "f.bin", randBytes(3, 200<<10))
	f, err := vfs.Open(context.Background(), "gs://mod/f.bin", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	put(t, "mod", "f.bin", randBytes(4, 200<<10))
	p := make([]byte, 1000)
	if n, err := f.ReadAt(p, 0); !errors.Is(err, driver.ErrModified) {
		t.Fatalf("ReadAt after a replace = %d, %v; want driver.ErrModified", n, err)
	}
	g, err := vfs.Open(context.Background(), "gs://mod/f.bin", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	gcs.Server.Backend().DeleteObject("mod", "f.bin")
	if n, err := g.ReadAt(p, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadAt after a delete = %d, %v; want fs.ErrNotExist", n, err)
	}
}

func TestErrors(t *testing.T) {
	put(t, "errs", "a.txt", []byte("a"))
	for _, u := range []string{"gs://errs/missing.txt", "gs://nobucket/x.txt"} {
		_, err := vfs.Open(context.Background(), u, nil)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), u) {
			t.Errorf("OpenFile(%s) = %v, want fs.ErrNotExist naming the URL", u, err)
		}
	}
}

// service models what GCS answers to a read whose object has changed:
// 412 for ifGenerationMatch (which the emulator does not check), or 403
// and 503 on demand.
type service struct {
	gen    atomic.Int64
	answer atomic.Int32 // status for reads that carry a generation; 0: serve
	n      atomic.Int32
	data   []byte
}

func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.n.Add(1)
	if strings.HasPrefix(r.URL.Path, "/storage/v1/") { // metadata
		fmt.Fprintf(w, `{"bucket":"b","name":"f.bin","generation":"%d","size":"%d"}`, s.gen.Load(), len(s.data))
		return
	}
	if g := r.Header.Get("X-Goog-If-Generation-Match"); g != "" && g != strconv.FormatInt(s.gen.Load(), 10) {
		w.WriteHeader(http.StatusPreconditionFailed)
		io.WriteString(w, `<Error><Code>ConditionNotMet</Code></Error>`)
		return
	}
	if a := s.answer.Load(); a != 0 {
		w.WriteHeader(int(a))
		return
	}
	w.Header().Set("X-Goog-Generation", strconv.FormatInt(s.gen.Load(), 10))
	http.ServeContent(w, r, "", fakeTime, strings.NewReader(string(s.data)))
}

var fakeTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestServiceAnswers(t *testing.T) {
	s := &service{data: randBytes(5, 200<<10)}
	s.gen.Store(7)
	ts := httptest.NewServer(s)
	defer ts.Close()
	t.Setenv("STORAGE_EMULATOR_HOST", ts.URL)
	o := &vfs.Options{Schemes: map[string]any{"gs": &gsroot.Options{Remote: remote.Options{Retry: remote.Retry{BaseDelay: 1}}}}}
	f, err := vfs.Open(context.Background(), "gs://b/f.bin", o)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, 100)
	s.answer.Store(http.StatusServiceUnavailable)
	s.n.Store(0)
	if _, err := f.ReadAt(p, 0); err == nil || s.n.Load() != 5 {
		t.Errorf("ReadAt with 503s = %v after %d requests; want an error after 5 (one retry owner)", err, s.n.Load())
	}
	s.answer.Store(http.StatusForbidden)
	if _, err := f.ReadAt(p, 0); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("ReadAt with 403 = %v, want fs.ErrPermission", err)
	}
	s.answer.Store(0)
	s.gen.Store(8)
	s.n.Store(0)
	if _, err := f.ReadAt(p, 0); !errors.Is(err, driver.ErrModified) || s.n.Load() != 1 {
		t.Errorf("ReadAt after a replace = %v after %d requests; want driver.ErrModified after 1 (a 412)", err, s.n.Load())
	}
}
