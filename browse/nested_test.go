package browse

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// deepZip returns an archive nested four deep, each level with a file of
// its own beside the next:
//
//	a.zip/           a.txt
//	  b.zip/         b.txt
//	    c.tar.gz/    c/other.txt
//	      c/d.zip/   d.txt "deepest\n"
func deepZip(t testing.TB) []byte {
	d := zipOf(t, entry{name: "d.txt", body: "deepest\n"})
	c := tarGzFiles(t, map[string][]byte{"c/d.zip": d, "c/other.txt": []byte("other\n")})
	b := zipOf(t, entry{name: "b.txt", body: "b\n"}, entry{name: "c.tar.gz", body: string(c), store: true})
	return zipOf(t, entry{name: "a.txt", body: "a\n"}, entry{name: "b.zip", body: string(b), store: true})
}

// deepPages are the pages of deepZip, outer to inner, then its deepest file.
var deepPages = []string{"/", "/b.zip/", "/b.zip/c.tar.gz/", "/b.zip/c.tar.gz/c/", "/b.zip/c.tar.gz/c/d.zip/", "/b.zip/c.tar.gz/c/d.zip/d.txt"}

// TestServeNestedRemote browses an archive nested four deep in a remote
// zip, over a server that answers after 20 ms, the page of each level in
// turn: the outer zip's first read holds all its bytes, and each nested
// archive opens through the layer that holds it, reading those bytes, so
// that stepping into it costs no request.
func TestServeNestedRemote(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{"a.zip": deepZip(t)})
	s := serverAt(t, srv.URL()+"/a.zip", &vfs.Options{Cache: vfs.NewCache(0)})
	s.layers.revalidate = time.Hour // no request asks whether a.zip changed
	srv.SetLatency(20 * time.Millisecond)
	srv.Reset()
	start := time.Now()
	for _, target := range deepPages {
		before := srv.Requests()
		resp := fetch(t, s, target)
		if got := body(t, resp); resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s\n%s", target, resp.Status, got)
		}
		if n := srv.Requests() - before; n != 0 {
			t.Errorf("GET %s made %d requests, want 0:\n%s", target, n, srv.LogString())
		}
	}
	t.Logf("%d pages of an archive nested four deep in a remote zip: %d requests, %v", len(deepPages), srv.Requests(), time.Since(start).Round(time.Millisecond))
	if got := body(t, fetch(t, s, deepPages[len(deepPages)-1])); got != "deepest\n" {
		t.Errorf("GET %s = %q", deepPages[len(deepPages)-1], got)
	}
}

// TestServeLayerParent: a layer opened through another holds it open. The
// outer zip's layer, evicted while the inner zip's is kept, stays open
// until the inner one is closed, and is closed then.
func TestServeLayerParent(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("outer.zip", zipOf(t, entry{name: "inner.zip", body: string(zipOf(t, entry{name: "f.txt", body: "inner\n"})), store: true}))
	for i := range maxLayers + 1 {
		write(fmt.Sprintf("z%02d.zip", i), zipOf(t, entry{name: "f.txt", body: fmt.Sprint(i)}))
	}
	s := nestServer(t, dir)
	wantFile(t, s, "/outer.zip/inner.zip/f.txt", "inner\n")
	outer := layerAt(s, rootURL(s, "outer.zip"))
	inner := layerAt(s, rootURL(s, "outer.zip")+"|zip:inner.zip")
	if outer == nil || inner == nil || inner.parent != outer {
		t.Fatalf("layers outer %p, inner %p with parent %p: want inner opened through outer", outer, inner, inner.parent)
	}
	// Outer, used before inner, is the least recently used of these.
	for i := range maxLayers - 1 {
		wantFile(t, s, fmt.Sprintf("/z%02d.zip/f.txt", i), fmt.Sprint(i))
	}
	if layerAt(s, rootURL(s, "outer.zip")) != nil || layerAt(s, inner.key[len("file\x00"):]) != inner {
		t.Fatal("the outer zip's layer was not the one evicted")
	}
	if outer.closed.Load() {
		t.Error("the outer zip's layer was closed while the inner zip's, opened through it, is open")
	}
	wantFile(t, s, "/z31.zip/f.txt", "31")
	wantFile(t, s, "/z32.zip/f.txt", "32")
	if !inner.closed.Load() || !outer.closed.Load() {
		t.Errorf("once both are evicted: inner closed %v, outer closed %v; want both", inner.closed.Load(), outer.closed.Load())
	}
}

// TestServeRevalidateNested rewrites a zip whose inner zip a running
// handler opened through it. The next request that reads the outer zip
// drops the inner zip's layer with it, which read the same bytes, and
// the inner zip shows its new member. A kept inner layer found changed
// before its parent is dropped with the parent, and the request that
// met it walks its path again.
func TestServeRevalidateNested(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "outer.zip")
	write := func(body string) {
		t.Helper()
		inner := zipOf(t, entry{name: "f.txt", body: body})
		if err := os.WriteFile(name, zipOf(t, entry{name: "inner.zip", body: string(inner), store: true}), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("one\n")
	s := nestServer(t, dir)
	wantFile(t, s, "/outer.zip/inner.zip/f.txt", "one\n")
	innerURL := rootURL(s, "outer.zip") + "|zip:inner.zip"
	outer, inner := layerAt(s, rootURL(s, "outer.zip")), layerAt(s, innerURL)

	write("two, longer\n")
	if got := listed(t, s, "/outer.zip/"); len(got) != 1 || got[0] != "inner.zip" {
		t.Fatalf("outer.zip/ lists %q", got)
	}
	if !outer.closed.Load() || !inner.closed.Load() || layerAt(s, innerURL) != nil {
		t.Errorf("after outer.zip changed: outer closed %v, inner closed %v, inner kept %v; want both closed, neither kept",
			outer.closed.Load(), inner.closed.Load(), layerAt(s, innerURL) != nil)
	}
	wantFile(t, s, "/outer.zip/inner.zip/f.txt", "two, longer\n")

	// The inner layer is asked first: it reports that the request must
	// walk again, and its parent is dropped with it.
	outer, inner = layerAt(s, rootURL(s, "outer.zip")), layerAt(s, innerURL)
	write("three, longer still\n")
	if _, err := s.layers.get(t.Context(), inner.key, false, nil); err != errRestart {
		t.Errorf("get of the changed inner layer: %v, want errRestart", err)
	}
	if layerAt(s, rootURL(s, "outer.zip")) != nil || !outer.closed.Load() || !inner.closed.Load() {
		t.Errorf("after the inner layer was found changed: outer kept %v, closed %v; inner closed %v",
			layerAt(s, rootURL(s, "outer.zip")) != nil, outer.closed.Load(), inner.closed.Load())
	}
	wantFile(t, s, "/outer.zip/inner.zip/f.txt", "three, longer still\n")
}
