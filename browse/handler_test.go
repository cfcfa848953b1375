package browse

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// serveFS opens the site fixture for the handler.
func serveFS(t *testing.T, dir string) *vfs.FS {
	t.Helper()
	fsys, err := vfs.OpenFS(t.Context(), site(t, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

// get serves one request and returns the response.
func get(t *testing.T, h http.Handler, target string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestServeRange(t *testing.T) {
	h := New(serveFS(t, "cli/serverange"), nil)

	resp := get(t, h, "/README.txt", nil)
	if resp.StatusCode != 200 || body(t, resp) != "hello, world\n" {
		t.Fatalf("GET /README.txt: %s", resp.Status)
	}
	if got := resp.Header.Get("Accept-Ranges"); got != "bytes" {
		t.Errorf("Accept-Ranges = %q, want bytes", got)
	}

	// A deflated member.
	resp = get(t, h, "/README.txt", map[string]string{"Range": "bytes=7-11"})
	if resp.StatusCode != http.StatusPartialContent {
		t.Errorf("Range on a deflated member: %s, want 206", resp.Status)
	}
	if got := body(t, resp); got != "world" {
		t.Errorf("Range bytes=7-11 = %q, want %q", got, "world")
	}
	if got := resp.Header.Get("Content-Range"); got != "bytes 7-11/13" {
		t.Errorf("Content-Range = %q, want bytes 7-11/13", got)
	}

	// A member of a stored zip inside the zip, by suffix range.
	h2 := New(serveFS(t, "cli/serverange2").WithContext(t.Context()), nil)
	resp = get(t, h2, "/data/inner.zip", nil)
	inner := body(t, resp)
	resp = get(t, h2, "/data/inner.zip", map[string]string{"Range": "bytes=-22"})
	if resp.StatusCode != http.StatusPartialContent {
		t.Errorf("suffix Range: %s, want 206", resp.Status)
	}
	if got := body(t, resp); got != inner[len(inner)-22:] {
		t.Errorf("suffix Range = %q, want the end of central directory record %q", got, inner[len(inner)-22:])
	}

	resp = get(t, h, "/README.txt", map[string]string{"Range": "bytes=100-200"})
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("Range past the end: %s, want 416", resp.Status)
	}
}

func TestServeConditional(t *testing.T) {
	h := New(serveFS(t, "cli/servecond"), nil)

	resp := get(t, h, "/docs/guide.md", nil)
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || body(t, resp) != "# Guide\n" {
		t.Fatalf("GET /docs/guide.md: %s", resp.Status)
	}
	if !regexp.MustCompile(`^"[0-9a-f]{16}"$`).MatchString(etag) {
		t.Fatalf("ETag = %q, want a strong tag", etag)
	}
	if got, want := resp.Header.Get("Last-Modified"), modTime.Format(http.TimeFormat); got != want {
		t.Errorf("Last-Modified = %q, want %q", got, want)
	}
	if other := get(t, h, "/README.txt", nil).Header.Get("ETag"); other == etag {
		t.Errorf("two files share the ETag %s", etag)
	}
	if again := get(t, h, "/docs/guide.md", nil).Header.Get("ETag"); again != etag {
		t.Errorf("ETag changed between requests: %s then %s", etag, again)
	}

	tests := []struct {
		name   string
		header map[string]string
		status int
		body   string
	}{
		{"If-None-Match matches", map[string]string{"If-None-Match": etag}, http.StatusNotModified, ""},
		{"If-None-Match differs", map[string]string{"If-None-Match": `"other"`}, 200, "# Guide\n"},
		{"If-Modified-Since at the time", map[string]string{"If-Modified-Since": modTime.Format(http.TimeFormat)}, http.StatusNotModified, ""},
		{"If-Modified-Since before", map[string]string{"If-Modified-Since": modTime.Add(-time.Hour).Format(http.TimeFormat)}, 200, "# Guide\n"},
		{"If-Range matches", map[string]string{"If-Range": etag, "Range": "bytes=2-6"}, http.StatusPartialContent, "Guide"},
		{"If-Range differs", map[string]string{"If-Range": `"other"`, "Range": "bytes=2-6"}, 200, "# Guide\n"},
		{"If-Match differs", map[string]string{"If-Match": `"other"`}, http.StatusPreconditionFailed, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := get(t, h, "/docs/guide.md", tc.header)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if got := body(t, resp); tc.body != "" && got != tc.body {
				t.Errorf("body %q, want %q", got, tc.body)
			}
		})
	}
}

func TestServeListing(t *testing.T) {
	h := New(serveFS(t, "cli/servelist"), nil)
	resp := get(t, h, "/docs/", nil)
	got := body(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(got, `<a href="/docs/guide.md">guide.md</a>`) || !strings.Contains(got, `<a href="/docs/api/">api/</a>`) {
		t.Errorf("GET /docs/: %s\n%s", resp.Status, got)
	}
	if resp := get(t, h, "/docs", nil); resp.StatusCode != http.StatusMovedPermanently {
		t.Errorf("GET /docs: %s, want a redirect to /docs/", resp.Status)
	}
	if resp := get(t, h, "/nope.txt", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nope.txt: %s, want 404", resp.Status)
	}
	if resp := get(t, h, "/docs/", nil); resp.Header.Get("ETag") != "" {
		t.Errorf("a directory listing has an ETag")
	}
}

// TestRangeStart checks where serve reads a file's first block: at the
// start of the range a request asks for.
func TestRangeStart(t *testing.T) {
	for h, want := range map[string]int64{
		"":                 0,
		"bytes=0-99":       0,
		"bytes=1000-":      1000,
		"bytes=500-600,0-": 500,
		"bytes=-100":       0,
		"bytes=x-1":        0,
		"items=5-":         0,
	} {
		r := httptest.NewRequest("GET", "/f", nil)
		if h != "" {
			r.Header.Set("Range", h)
		}
		if got := rangeStart(r); got != want {
			t.Errorf("rangeStart(Range: %q) = %d, want %d", h, got, want)
		}
	}
}

// nestDir writes the test nest (nestZip) as outer.zip in a new directory,
// with the OCDBT, Icechunk and precomputed fixtures as db.ocdbt, repo and
// vol, and returns the directory.
func nestDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "outer.zip"), nestZip(t), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, rel := range map[string]string{"db.ocdbt": "ocdbt/multi_version_low_arity.ocdbt", "repo": "icechunk/test-repo-v2", "vol": "precomputed/one_channel"} {
		if err := os.CopyFS(filepath.Join(dir, name), os.DirFS(strings.TrimPrefix(fixture(t, rel), "file:"))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// nestServer serves directory dir on loopback terms, with a cache of its
// own.
func nestServer(t *testing.T, dir string) *Handler {
	t.Helper()
	return serverAt(t, "file:"+filepath.ToSlash(dir)+"/", &vfs.Options{Cache: vfs.NewCache(0)})
}

// serverAt serves the directory location pipeline, opened with o, on
// loopback terms.
func serverAt(t *testing.T, pipeline string, o *vfs.Options) *Handler {
	t.Helper()
	fsys, err := vfs.OpenFS(t.Context(), pipeline, o)
	if err != nil {
		t.Fatal(err)
	}
	s := New(fsys, &Options{VFS: o, LoopbackOnly: true})
	t.Cleanup(func() { s.Close(); fsys.Close() })
	return s
}

// rootURL returns the canonical pipeline of name in the served location.
func rootURL(s *Handler, name string) string {
	s.layers.mu.Lock()
	defer s.layers.mu.Unlock()
	return s.layers.byKey[s.rootKey].fsys.URL(name)
}

// remoteNestServer serves the test nest's outer.zip on an HTTP server, and
// the directory it holds, with a cache of its own.
func remoteNestServer(t *testing.T) (*fstest.HTTPServer, *Handler) {
	t.Helper()
	srv := fstest.NewHTTPServer(t, map[string][]byte{"outer.zip": nestZip(t)})
	return srv, serverAt(t, srv.URL()+"/outer.zip", &vfs.Options{Cache: vfs.NewCache(0)})
}

// fetch serves one request from 127.0.0.1 and returns the response.
func fetch(t *testing.T, h http.Handler, target string) *http.Response {
	t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	req.Host = "127.0.0.1:8080"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

// fetchPage fetches target with ?format=json (added to its query) and
// decodes the page, failing unless the status is want.
func fetchPage(t *testing.T, h http.Handler, target string, want int) *page {
	t.Helper()
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	resp := fetch(t, h, target+sep+"format=json")
	b := body(t, resp)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %s, want %d\n%s", target, resp.Status, want, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("GET %s: Content-Type %q", target, ct)
	}
	var p page
	if err := json.Unmarshal([]byte(b), &p); err != nil {
		t.Fatalf("GET %s: %v\n%s", target, err, b)
	}
	return &p
}

// entryNamed returns the entry name of a listing, failing without it.
func entryNamed(t *testing.T, p *page, name string) entryView {
	t.Helper()
	if p.Dir == nil {
		t.Fatalf("page %s has no listing", p.Path)
	}
	for _, e := range p.Dir.Entries {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("page %s lists no %q: %+v", p.Path, name, p.Dir.Entries)
	return entryView{}
}

// TestServeNest walks the test nest from the top to the array through
// the JSON of each page, and checks the files and previews on the way.
func TestServeNest(t *testing.T) {
	dir := nestDir(t)
	s := nestServer(t, dir)
	root := "file:" + filepath.ToSlash(dir)

	p := fetchPage(t, s, "/", 200)
	if p.Kind != "directory" || p.Pipeline != root+"/" {
		t.Errorf("/: kind %q, pipeline %q", p.Kind, p.Pipeline)
	}
	if e := entryNamed(t, p, "outer.zip"); e.Kind != "zip" || e.Href != "/outer.zip/" || e.Raw != "/outer.zip" || e.Size <= 0 {
		t.Errorf("outer.zip entry %+v", e)
	}
	if e := entryNamed(t, p, "db.ocdbt"); e.Kind != "ocdbt store" || !e.Dir {
		t.Errorf("db.ocdbt entry %+v", e)
	}

	p = fetchPage(t, s, "/outer.zip/", 200)
	if p.Pipeline != root+"/outer.zip|zip:" {
		t.Errorf("/outer.zip/: pipeline %q", p.Pipeline)
	}
	for name, want := range map[string]entryView{
		"inner.tar.gz": {Kind: "gzip|tar", Href: "/outer.zip/inner.tar.gz/", Raw: "/outer.zip/inner.tar.gz"},
		"picture.png":  {Kind: "png", Href: "/outer.zip/picture.png/", Raw: "/outer.zip/picture.png"},
		"notes.txt":    {Kind: "file", Href: "/outer.zip/notes.txt"},
		"site":         {Kind: "directory", Href: "/outer.zip/site/", Dir: true},
	} {
		e := entryNamed(t, p, name)
		if e.Kind != want.Kind || e.Href != want.Href || e.Raw != want.Raw || e.Dir != want.Dir {
			t.Errorf("%s entry %+v, want %+v", name, e, want)
		}
		if e.Time != modTime.UTC().Format(timeLayoutUTC) {
			t.Errorf("%s entry time %q, want %q (UTC)", name, e.Time, modTime.UTC().Format(timeLayoutUTC))
		}
	}

	p = fetchPage(t, s, "/outer.zip/inner.tar.gz/data.zarr/", 200)
	if p.Kind != "group" || p.Pipeline != root+"/outer.zip|zip:inner.tar.gz|gzip:|pipefs.tar:data.zarr/" {
		t.Errorf("data.zarr/: kind %q, pipeline %q", p.Kind, p.Pipeline)
	}
	if e := entryNamed(t, p, "grad"); e.Kind != "zarr3 array uint16 [40 70]" || e.Href != "/outer.zip/inner.tar.gz/data.zarr/grad/" {
		t.Errorf("grad entry %+v", e)
	}
	if !strings.Contains(string(p.Node.Description), `"title": "test nest"`) {
		t.Errorf("group description lacks its attributes: %s", p.Node.Description)
	}

	p = fetchPage(t, s, "/outer.zip/inner.tar.gz/data.zarr/grad/", 200)
	var desc struct {
		Format string `json:"format"`
		Array  struct {
			Shape      []int64 `json:"shape"`
			ChunkShape []int64 `json:"chunk_shape"`
			DType      struct {
				Name string `json:"name"`
			} `json:"data_type"`
		} `json:"array"`
	}
	if err := json.Unmarshal(p.Node.Description, &desc); err != nil {
		t.Fatal(err)
	}
	if p.Kind != "array" || desc.Format != "zarr3" || fmt.Sprintf("%v %v %s", desc.Array.Shape, desc.Array.ChunkShape, desc.Array.DType.Name) != "[40 70] [32 32] uint16" {
		t.Errorf("grad: kind %q, description %+v", p.Kind, desc)
	}
	if p.Node.Preview != "?preview=png" {
		t.Errorf("grad: preview %q, no_preview %q", p.Node.Preview, p.Node.NoPreview)
	}
	if want := root + "/outer.zip|zip:inner.tar.gz|gzip:|pipefs.tar:data.zarr/grad/|zarr3:"; p.Node.OpenedAs != want {
		t.Errorf("grad: opened as %q, want %q", p.Node.OpenedAs, want)
	}

	// The preview: 100*y+x scaled from 0 (black) to 3969 (white).
	img := fetchPNG(t, s, "/outer.zip/inner.tar.gz/data.zarr/grad/?preview=png")
	if b := img.Bounds(); b.Dx() != nestCols || b.Dy() != nestRows {
		t.Fatalf("preview is %v, want %dx%d", b, nestCols, nestRows)
	}
	const top = 100*(nestRows-1) + nestCols - 1
	for _, pt := range [][2]int{{0, 0}, {nestCols - 1, nestRows - 1}, {10, 20}, {69, 0}} {
		x, y := pt[0], pt[1]
		want := uint8(math.Round(float64(100*y+x) / top * 255))
		if got := color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y; got != want {
			t.Errorf("preview pixel (%d, %d) = %d, want %d", x, y, got, want)
		}
	}

	// An image and its preview.
	p = fetchPage(t, s, "/outer.zip/picture.png/", 200)
	if p.Kind != "array" || p.Pipeline != root+"/outer.zip|zip:picture.png|png:" || p.Dir != nil {
		t.Errorf("picture.png/: kind %q, pipeline %q", p.Kind, p.Pipeline)
	}
	var imdesc struct {
		Image struct {
			Channels string `json:"channels"`
		} `json:"image"`
	}
	if err := json.Unmarshal(p.Node.Description, &imdesc); err != nil || imdesc.Image.Channels != "RGB" {
		t.Errorf("picture.png/: description %s (%v); want the image section, channels RGB", p.Node.Description, err)
	}
	// JSON writes "<", ">" and "&" as they are, not as "\u003c".
	if b := body(t, fetch(t, s, "/outer.zip/inner.tar.gz/data.zarr/?format=json")); !strings.Contains(b, `"note": "a <b> & c"`) {
		t.Errorf("data.zarr JSON escapes <, > or &:\n%s", b)
	}
	img = fetchPNG(t, s, "/outer.zip/picture.png/?preview=png")
	if r, g, b, _ := img.At(10, 5).RGBA(); img.Bounds().Dx() != 60 || r>>8 != 40 || g>>8 != 30 || b>>8 != 128 {
		t.Errorf("image preview %v, pixel (10, 5) = %d %d %d, want 40 30 128", img.Bounds(), r>>8, g>>8, b>>8)
	}

	// A string array has no preview: 501.
	p = fetchPage(t, s, "/outer.zip/inner.tar.gz/data.zarr/names/", 200)
	if p.Node.Preview != "" || !strings.Contains(p.Node.NoPreview, "not numbers") {
		t.Errorf("names: preview %q, no_preview %q", p.Node.Preview, p.Node.NoPreview)
	}
	if p = fetchPage(t, s, "/outer.zip/inner.tar.gz/data.zarr/names/?preview=png", 501); p.Kind != "error" || p.Error.Status != 501 {
		t.Errorf("names preview: %+v", p.Error)
	}

	// A plane of too many chunks is refused: 422.
	p = fetchPage(t, s, "/outer.zip/inner.tar.gz/data.zarr/many/", 200)
	if p.Node.Preview != "" || !strings.Contains(p.Node.NoPreview, "more than 256 chunks") {
		t.Errorf("many: preview %q, no_preview %q", p.Node.Preview, p.Node.NoPreview)
	}
	fetchPage(t, s, "/outer.zip/inner.tar.gz/data.zarr/many/?preview=png", 422)
	fetchPage(t, s, "/outer.zip/inner.tar.gz/data.zarr/grad/?preview=jpeg", 400)

	// A large plane is scaled down to at most 512 pixels a side, from
	// index 0 of the leading axis.
	img = fetchPNG(t, s, "/outer.zip/inner.tar.gz/data.zarr/big/?preview=png")
	if b := img.Bounds(); b.Dx() != 434 || b.Dy() != 334 {
		t.Errorf("the preview of 1000 x 1300 is %v, want 434 x 334 (every third pixel)", b)
	}

	// Files are served raw, sandboxed.
	resp := fetch(t, s, "/outer.zip/notes.txt")
	if got := body(t, resp); resp.StatusCode != 200 || got != "plain text\n" {
		t.Errorf("GET notes.txt: %s %q", resp.Status, got)
	}
	checkSandboxed(t, resp)
	resp = fetch(t, s, "/outer.zip")
	if got := body(t, resp); resp.StatusCode != 200 || !strings.HasPrefix(got, "PK") || resp.Header.Get("ETag") == "" {
		t.Errorf("GET /outer.zip: %s, ETag %q", resp.Status, resp.Header.Get("ETag"))
	}
	resp = fetch(t, s, "/outer.zip/site/")
	if got := body(t, resp); !strings.Contains(got, "archived page") {
		t.Errorf("GET site/: %s %q, want its index.html", resp.Status, got)
	}
	checkSandboxed(t, resp)
	if p = fetchPage(t, s, "/outer.zip/site/?list", 200); entryNamed(t, p, "index.html").Href != "/outer.zip/site/index.html" {
		t.Errorf("site/?list: %+v", p.Dir)
	}
	if resp := fetch(t, s, "/outer.zip/inner.tar.gz/data.zarr"); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/outer.zip/inner.tar.gz/data.zarr/" {
		t.Errorf("GET data.zarr: %s to %q, want a redirect to data.zarr/", resp.Status, resp.Header.Get("Location"))
	}

	if resp := fetch(t, s, "/outer.zip/site?list"); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/outer.zip/site/?list" {
		t.Errorf("GET site?list: %s to %q, want a redirect to site/?list", resp.Status, resp.Header.Get("Location"))
	}

	// Errors.
	for target, status := range map[string]int{
		"/outer.zip/nope.txt":      404,
		"/outer.zip/notes.txt/":    404,
		"/outer.zip/nope/":         404,
		"/outer.zip/?versions":     404,
		"/outer.zip/?preview=png":  404,
		"/outer.zip/picture.png/x": 404,
	} {
		if p := fetchPage(t, s, target, status); p.Kind != "error" || p.Error.Status != status || p.Error.Message == "" {
			t.Errorf("GET %s: %+v", target, p.Error)
		}
	}
}

// checkSandboxed checks the headers of a raw file: not sniffed, and run
// in a sandbox.
func checkSandboxed(t *testing.T, resp *http.Response) {
	t.Helper()
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options %q", got)
	}
	if got := resp.Header.Get("Content-Security-Policy"); got != "sandbox" {
		t.Errorf("Content-Security-Policy %q", got)
	}
}

// fetchPNG fetches and decodes a PNG.
func fetchPNG(t *testing.T, h http.Handler, target string) image.Image {
	t.Helper()
	resp := fetch(t, h, target)
	b := body(t, resp)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("GET %s: %s %s\n%s", target, resp.Status, resp.Header.Get("Content-Type"), b)
	}
	img, err := png.Decode(strings.NewReader(b))
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	return img
}

// TestServeHTML checks the HTML of pages: names escaped, the pipeline
// shown, and a Content-Security-Policy that allows only the page's own
// style and script.
func TestServeHTML(t *testing.T) {
	dir := t.TempDir()
	odd := `<b>&"'x.txt`
	if err := os.WriteFile(filepath.Join(dir, odd), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "a?b#c", "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := nestServer(t, dir)
	resp := fetch(t, s, "/")
	got := body(t, resp)
	if !strings.Contains(got, `<a href="/a%3Fb%23c/">a?b#c/</a>`) {
		t.Errorf("GET /: the link of a?b#c is not escaped:\n%s", got)
	}
	if resp := fetch(t, s, "/a%3Fb%23c/d"); resp.Header.Get("Location") != "/a%3Fb%23c/d/" {
		t.Errorf("GET /a%%3Fb%%23c/d: %s to %q", resp.Status, resp.Header.Get("Location"))
	}
	if p := fetchPage(t, s, "/a%3Fb%23c/d/", 200); !strings.HasSuffix(p.Pipeline, "/a%3Fb%23c/d/") {
		t.Errorf("a?b#c/d/: pipeline %q", p.Pipeline)
	}
	if resp.StatusCode != 200 || strings.Contains(got, odd) || !strings.Contains(got, "&lt;b&gt;&amp;&#34;&#39;x.txt") {
		t.Errorf("GET /: %s, name not escaped:\n%s", resp.Status, got)
	}
	// Escaped as http.server escapes links (urllib.parse.quote): "&"
	// too, which a crawler that does not decode entities reads as is.
	if !strings.Contains(got, `href="/%3Cb%3E%26%22%27x.txt"`) {
		t.Errorf("GET /: the link is not escaped:\n%s", got)
	}
	if !strings.Contains(got, `<code id="pipeline">file:`+filepath.ToSlash(dir)+`/</code>`) {
		t.Errorf("GET /: no pipeline:\n%s", got)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "style-src '" + cspHash(pageStyle) + "'", "script-src '" + cspHash(pageScript) + "'", "img-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if !strings.Contains(got, "<style>"+pageStyle+"</style>") || !strings.Contains(got, "<script>"+pageScript+"</script>") {
		t.Errorf("the inlined style or script differs from what the policy hashes")
	}
	if resp := fetch(t, s, "/nope/"); resp.StatusCode != 404 || !strings.Contains(body(t, resp), "404 Not Found") {
		t.Errorf("GET /nope/: %s", resp.Status)
	}
}

// TestServeRefused checks the paths and hosts serve refuses.
func TestServeRefused(t *testing.T) {
	s := nestServer(t, nestDir(t))
	for _, target := range []string{
		"/outer.zip/../db.ocdbt/", "/..", "/./outer.zip", "/outer.zip/.", "/outer.zip//notes.txt", "//outer.zip",
		"/outer.zip%2Fnotes.txt", "/outer.zip%2fnotes.txt", "/outer.zip%5Cnotes.txt", "/outer.zip\\notes.txt",
		"/%2e%2e/", "/outer.zip/%00", "/outer.zip/a%0Ab", "/outer.zip/%7F",
	} {
		t.Run(target, func(t *testing.T) {
			resp := fetch(t, s, target)
			if got := body(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(got, "bad path") {
				t.Errorf("GET %s: %s\n%s", target, resp.Status, got)
			}
		})
	}
	for host, want := range map[string]int{
		"localhost":          200,
		"localhost:8080":     200,
		"LOCALHOST.:1":       200,
		"app.localhost":      200,
		"127.0.0.1":          200,
		"127.1.2.3:9":        200,
		"[::1]:8080":         200,
		"example.com":        403,
		"localhost.evil.com": 403,
		"10.0.0.1:8080":      403,
		"":                   403,
	} {
		req := httptest.NewRequest("GET", "/", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %q: %d, want %d", host, rec.Code, want)
		}
	}
	if resp := fetch(t, New(serveFS(t, "cli/servehost"), nil), "/"); resp.StatusCode != 200 {
		t.Errorf("a handler off loopback refused %s", resp.Status)
	}
	req := httptest.NewRequest("POST", "/", nil)
	req.Host = "localhost"
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", rec.Code)
	}
}

// TestServeVersions lists the versions of an OCDBT database and the
// refs and snapshots of an Icechunk repository, and opens one of each.
func TestServeVersions(t *testing.T) {
	dir := nestDir(t)
	s := nestServer(t, dir)
	root := "file:" + filepath.ToSlash(dir)

	p := fetchPage(t, s, "/db.ocdbt/", 200)
	if p.Pipeline != root+"/db.ocdbt/|ocdbt:" || !p.Dir.Store {
		t.Errorf("db.ocdbt/: pipeline %q, store %v", p.Pipeline, p.Dir.Store)
	}
	p = fetchPage(t, s, "/db.ocdbt/?versions", 200)
	if p.Kind != "versions" || len(p.Versions.List) != 200 {
		t.Fatalf("db.ocdbt versions: kind %q, %d versions", p.Kind, len(p.Versions.List))
	}
	v3 := p.Versions.List[2]
	if v3.ID != "v3" || v3.Keys != 3 || v3.Href != "/db.ocdbt/@v3/" {
		t.Errorf("third version %+v", v3)
	}
	p = fetchPage(t, s, v3.Href, 200)
	var names []string
	for _, e := range p.Dir.Entries {
		names = append(names, e.Name)
	}
	if p.Pipeline != root+"/db.ocdbt/|ocdbt://v3/" || fmt.Sprint(names) != "[key1 key2 key3]" {
		t.Errorf("%s: pipeline %q, entries %v", v3.Href, p.Pipeline, names)
	}
	if p := fetchPage(t, s, "/db.ocdbt/@v3/?versions", 200); len(p.Versions.List) != 200 || p.Versions.List[0].Href != "/db.ocdbt/@v1/" {
		t.Errorf("versions at v3: %d, first %+v", len(p.Versions.List), p.Versions.List[0])
	}
	fetchPage(t, s, "/db.ocdbt/@v201/", 404)
	fetchPage(t, s, "/db.ocdbt/@v0/", 400)

	p = fetchPage(t, s, "/repo/?versions", 200)
	var tag refView
	for _, r := range p.Versions.Refs {
		if r.Name == "tag.it works!" {
			tag = r
		}
	}
	if tag.Href != "/repo/@tag.it%20works%21/" || len(p.Versions.Refs) != 4 || len(p.Versions.List) == 0 {
		t.Fatalf("repo refs %+v, %d snapshots", p.Versions.Refs, len(p.Versions.List))
	}
	p = fetchPage(t, s, tag.Href, 200)
	if p.Pipeline != root+"/repo/|icechunk://tag.it%20works!/" {
		t.Errorf("%s: pipeline %q", tag.Href, p.Pipeline)
	}
	snap := fetchPage(t, s, "/repo/?versions", 200).Versions.List[0]
	if p := fetchPage(t, s, snap.Href, 200); p.Pipeline != root+"/repo/|icechunk://"+snap.ID+"/" {
		t.Errorf("%s: pipeline %q", snap.Href, p.Pipeline)
	}
}

// TestServeRemote browses the test nest on an HTTP server, twice. The
// first time, the archives and the image inside outer.zip, which its
// open read whole, open through its layer and cost no request; the
// second time, every layer and page is cached and costs no request.
func TestServeRemote(t *testing.T) {
	srv, s := remoteNestServer(t)
	opened := srv.Requests()
	// Within the revalidation interval, which is the test's whole run:
	// no request asks whether outer.zip changed (see
	// TestServeRevalidateRequests).
	s.layers.revalidate = time.Hour
	targets := []string{
		"/", "/?format=json", "/inner.tar.gz/", "/inner.tar.gz/data.zarr/", "/inner.tar.gz/data.zarr/grad/",
		"/inner.tar.gz/data.zarr/grad/?preview=png", "/inner.tar.gz/data.zarr/grad/?format=json",
		"/picture.png/", "/picture.png/?preview=png",
	}
	browse := func() {
		for _, target := range targets {
			if resp := fetch(t, s, target); resp.StatusCode != 200 {
				t.Fatalf("GET %s: %s\n%s", target, resp.Status, body(t, resp))
			}
		}
	}
	browse()
	first := srv.Requests()
	if first == 0 {
		t.Fatal("browsing made no request")
	}
	t.Logf("opening outer.zip and browsing %d pages the first time: %d requests, %d bytes", len(targets), first, srv.Bytes())
	if n := first - opened; n != 0 {
		t.Errorf("browsing inside outer.zip, which its open read whole, made %d requests, want 0:\n%s", n, srv.LogString())
	}
	browse()
	if again := srv.Requests() - first; again != 0 {
		t.Errorf("browsing again made %d requests, want 0:\n%s", again, srv.LogString())
	}
}

// TestServeLayerCache opens more layers than the cache keeps: the least
// recently used are closed once idle, a held one when released, and the
// rest at Close.
func TestServeLayerCache(t *testing.T) {
	dir := t.TempDir()
	for i := range maxLayers + 8 {
		z := zipOf(t, entry{name: "f.txt", body: fmt.Sprint(i)})
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("z%02d.zip", i)), z, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := nestServer(t, dir)
	ctx := t.Context()
	layerOf := func(i int) *layer {
		t.Helper()
		root, err := s.rootLayer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.layers.release(root)
		l, err := s.openContainer(ctx, root, fmt.Sprintf("z%02d.zip", i))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	first := layerOf(0)
	s.layers.release(first)
	held := layerOf(1)
	for i := 2; i < maxLayers+8; i++ {
		if resp := fetch(t, s, fmt.Sprintf("/z%02d.zip/f.txt", i)); resp.StatusCode != 200 || body(t, resp) != fmt.Sprint(i) {
			t.Fatalf("GET z%02d.zip/f.txt: %s", i, resp.Status)
		}
	}
	if n := s.layers.Len(); n != maxLayers {
		t.Errorf("the cache holds %d layers, want %d", n, maxLayers)
	}
	if !first.closed.Load() {
		t.Error("an evicted idle layer is open")
	}
	if held.closed.Load() {
		t.Error("an evicted layer was closed while a request held it")
	}
	s.layers.release(held)
	if !held.closed.Load() {
		t.Error("an evicted layer is open after its release")
	}
	// A layer unused for layerIdle is closed by the next request.
	idle := layerOf(maxLayers + 6)
	s.layers.release(idle)
	s.layers.now = func() time.Time { return time.Now().Add(layerIdle + time.Minute) }
	if resp := fetch(t, s, "/z02.zip/f.txt"); resp.StatusCode != 200 {
		t.Fatalf("GET z02.zip/f.txt: %s", resp.Status)
	}
	if !idle.closed.Load() || s.layers.Len() != 1 {
		t.Errorf("idle layers were not closed: %d left", s.layers.Len())
	}

	last := layerOf(maxLayers + 7)
	s.layers.release(last)
	s.Close()
	if !last.closed.Load() || s.layers.Len() != 0 {
		t.Errorf("Close left layers open: %d in the cache", s.layers.Len())
	}
}

// TestLooksLikeVersion checks which "@" segments at a store's root name
// versions; the others are keys.
func TestLooksLikeVersion(t *testing.T) {
	for ver, want := range map[string]bool{
		"v3": true, "v0": true, "v12x": false, "v": false,
		"branch.main": true, "tag.it works!": true, "tags": false,
		"2768FV3XW5ZXYM84XNNG": true, "2768fv3xw5zxym84xnng": false, "ABC": false,
		"2025-01-30T21:32:58.4359968Z": true, "2025-01-30": false,
		"": false, "home": false,
	} {
		if got := looksLikeVersion(ver); got != want {
			t.Errorf("looksLikeVersion(%q) = %v, want %v", ver, got, want)
		}
	}
}

// TestServeCanceledOpen cancels the request that opens a layer while
// another waits for it: the other opens the layer itself. The server
// holds the first request's reads until it is canceled.
func TestServeCanceledOpen(t *testing.T) {
	// inner.tar.gz holds more than the reads of the zip's open fetch (its
	// head and its tail), so that opening it, through the zip, reads from
	// the server.
	files := nestZarr(t)
	files["big.bin"] = fstest.RandomBytes(1<<20, 1)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"outer.zip": zipOf(t,
		entry{name: "inner.tar.gz", body: string(tarGzFiles(t, files)), store: true},
		entry{name: "z.bin", body: "z", store: true})})
	s := serverAt(t, srv.URL()+"/outer.zip", &vfs.Options{Cache: vfs.NewCache(0)})
	srv.Inject(fstest.Fault{Kind: fstest.FaultDelay, Delay: time.Until(fstest.WaitDeadline(t)), Times: -1})

	ctx, cancel := context.WithCancel(t.Context())
	first := make(chan int, 1)
	go func() {
		req := httptest.NewRequestWithContext(ctx, "GET", "/inner.tar.gz/", nil)
		req.Host = "localhost"
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		first <- rec.Code
	}()
	before := srv.Requests()
	fstest.WaitUntil(t, "the first request to read the zip", func() bool { return srv.Requests() != before }, nil)
	second := make(chan *http.Response, 1)
	go func() { second <- fetch(t, s, "/inner.tar.gz/?format=json") }()
	innerKey := "file\x00" + rootURL(s, "inner.tar.gz")
	fstest.WaitUntil(t, "the second request to wait for the first's open", func() bool {
		s.layers.mu.Lock()
		defer s.layers.mu.Unlock()
		l := s.layers.byKey[innerKey]
		return l != nil && l.refs == 2
	}, nil)
	// The reads held stay held until the first request is canceled;
	// those of the second's open are answered.
	srv.ClearFaults()
	cancel()
	if code := fstest.WaitChan(t, "the canceled request", first, nil); code != http.StatusServiceUnavailable {
		t.Errorf("the canceled request: %d, want 503", code)
	}
	if resp := fstest.WaitChan(t, "the waiting request", second, nil); resp.StatusCode != 200 {
		t.Errorf("the waiting request: %s\n%s", resp.Status, body(t, resp))
	}
}

// TestServePrecomputed shows a precomputed volume, whose scales are its
// children (?child=KEY), with a preview of one.
func TestServePrecomputed(t *testing.T) {
	s := nestServer(t, nestDir(t))
	p := fetchPage(t, s, "/vol/", 200)
	if p.Kind != "group" || !strings.HasSuffix(p.Node.OpenedAs, "/vol/|neuroglancer-precomputed:") || len(p.Node.Children) != 3 || p.Node.Children[1].Href != "?child=6_8_10" {
		t.Fatalf("vol/: kind %q, opened as %q, children %+v", p.Kind, p.Node.OpenedAs, p.Node.Children)
	}
	p = fetchPage(t, s, "/vol/?child=6_8_10", 200)
	var desc struct {
		Array struct {
			Shape []int64 `json:"shape"`
		} `json:"array"`
	}
	if err := json.Unmarshal(p.Node.Description, &desc); err != nil {
		t.Fatal(err)
	}
	if p.Kind != "array" || fmt.Sprint(desc.Array.Shape) != "[1 15 10 5]" || p.Node.Preview != "?child=6_8_10&preview=png" {
		t.Errorf("scale 6_8_10: kind %q, shape %v, preview %q", p.Kind, desc.Array.Shape, p.Node.Preview)
	}
	// No chunk is stored: the plane is all fill, black.
	img := fetchPNG(t, s, "/vol/?child=6_8_10&preview=png")
	if b := img.Bounds(); b.Dx() != 5 || b.Dy() != 10 {
		t.Errorf("the preview of scale 6_8_10 is %v, want 5 x 10", b)
	}
	fetchPage(t, s, "/vol/?child=7_7_7", 404)
	fetchPage(t, s, "/outer.zip/inner.tar.gz/data.zarr/grad/?child=x", 404)
}

// A listing detects the kinds of its entries concurrently, at most
// maxKindReads at once, each reading a head: a remote zip of 24 stored
// zips, each in blocks of its own, over a server that answers after 30
// ms (long enough that reads started together overlap on a busy
// machine), has several head reads in flight, and the page lists every
// one as a folder in order.
func TestServeListingConcurrent(t *testing.T) {
	var outer bytes.Buffer
	zw := zip.NewWriter(&outer)
	pad := bytes.Repeat([]byte{'x'}, 300<<10) // more than a block
	var names []string
	for i := range 24 {
		name := fmt.Sprintf("m%02d.zip", i)
		names = append(names, name)
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: modTime})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(zipOf(t, entry{name: "pad.bin", body: string(pad), store: true}))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	srv := fstest.NewHTTPServer(t, map[string][]byte{"outer.zip": outer.Bytes()})
	s := serverAt(t, srv.URL()+"/outer.zip", &vfs.Options{Cache: vfs.NewCache(0)})
	srv.SetLatency(30 * time.Millisecond)
	srv.Reset()
	resp := fetch(t, s, "/?format=json")
	got := body(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /?format=json: %s\n%s", resp.Status, got)
	}
	var page struct {
		Directory struct {
			Entries []struct {
				Name, Href string
			} `json:"entries"`
		} `json:"directory"`
	}
	if err := json.Unmarshal([]byte(got), &page); err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	var listed []string
	for _, e := range page.Directory.Entries {
		if !strings.HasSuffix(e.Href, "/") {
			t.Errorf("%s is not listed as a folder (href %q)", e.Name, e.Href)
		}
		listed = append(listed, e.Name)
	}
	if !slices.Equal(listed, names) {
		t.Errorf("listed %q, want %q", listed, names)
	}
	if p := srv.Peak(); p < 2 || p > maxKindReads {
		t.Errorf("%d requests in flight at most, want 2 to %d:\n%s", p, maxKindReads, srv.LogString())
	}
}

// TestServeDataset answers a file that cannot be read with an error
// status and its message, logged, not a 200 whose body breaks off; and
// serves a dataset's elements as application/octet-stream.
func TestServeDataset(t *testing.T) {
	fsys, err := vfs.OpenFS(t.Context(), fixture(t, "hdf5/earliest_extra.hdf5"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	var logged bytes.Buffer
	h := New(fsys, &Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})

	resp := get(t, h, "/vlen_str", nil)
	msg := body(t, resp)
	if resp.StatusCode != http.StatusNotImplemented || !strings.Contains(msg, "vlen_str") {
		t.Errorf("GET /vlen_str: %s, body %q", resp.Status, msg)
	}
	if !strings.Contains(logged.String(), "method=GET path=/vlen_str status=501") {
		t.Errorf("GET /vlen_str logged %q", logged.String())
	}

	resp = get(t, h, "/compact", nil)
	// h5py: compact = np.arange(6, dtype="<u2").reshape(2, 3)
	if got := body(t, resp); resp.StatusCode != http.StatusOK || got != "\x00\x00\x01\x00\x02\x00\x03\x00\x04\x00\x05\x00" {
		t.Errorf("GET /compact: %s, body %q", resp.Status, got)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/octet-stream" {
		t.Errorf("GET /compact: Content-Type %q", ct)
	}
	if strings.Contains(logged.String(), "/compact") {
		t.Errorf("GET /compact logged %q", logged.String())
	}
}

// TestServeErrorOptions: Options.ErrorText words a failure on its page
// and in the log; with Options.HideErrors the page says only its status,
// and the log still says what failed.
func TestServeErrorOptions(t *testing.T) {
	fsys := serveFS(t, "browse/erroroptions")
	for _, tc := range []struct {
		name       string
		hide       bool
		page, logs string
	}{
		{"worded", false, "failed: ", "failed: "},
		{"hidden", true, "404 Not Found", "failed: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logged bytes.Buffer
			h := New(fsys, &Options{
				Logger:     slog.New(slog.NewTextHandler(&logged, nil)),
				HideErrors: tc.hide,
				ErrorText:  func(err error) string { return "failed: " + err.Error() },
			})
			defer h.Close()
			p := fetchPage(t, h, "/nope.txt", 404)
			if !strings.HasPrefix(p.Error.Message, tc.page) || tc.hide && p.Error.Message != tc.page {
				t.Errorf("the page says %q, want %q", p.Error.Message, tc.page)
			}
			if msg := p.Error.Message; tc.hide && strings.Contains(msg, "nope.txt") || !tc.hide && !strings.Contains(msg, "nope.txt") {
				t.Errorf("the page says %q: hiding the failure is %v", msg, tc.hide)
			}
			if got := logged.String(); !strings.Contains(got, `err="`+tc.logs) || !strings.Contains(got, "nope.txt") {
				t.Errorf("the log says %q, want the failure worded by ErrorText", got)
			}
		})
	}
}

// TestNewRevalidate checks what the revalidation intervals of Options
// mean: zero the default, RevalidateAlways every request, a negative
// value no check.
func TestNewRevalidate(t *testing.T) {
	fsys := serveFS(t, "browse/revalidate")
	for _, tc := range []struct {
		o    *Options
		want time.Duration
	}{
		{nil, DefaultRevalidate},
		{&Options{}, DefaultRevalidate},
		{&Options{Revalidate: RevalidateAlways}, 0},
		{&Options{Revalidate: time.Minute}, time.Minute},
		{&Options{Revalidate: -1}, -1},
	} {
		h := New(fsys, tc.o)
		if got := h.layers.revalidate; got != tc.want {
			t.Errorf("New(%+v): the layers are checked every %v, want %v", tc.o, got, tc.want)
		}
		h.Close()
	}
}
