package browse

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/listfmt"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "redraw the screenshots of the pages under testdata/screenshots")

// browser starts a headless Chromium with a fresh profile and returns a
// context whose tab it drives.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := fstest.NeedTool(t, "chromium")
	actx, cancel := chromedp.NewExecAllocator(t.Context(),
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(960, 900),
	)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// TestServeBrowser browses the test nest in Chromium: it clicks from the
// top through the zip and the tar.gz to the Zarr array, and checks what
// each page shows, that the pages' own style and script run under their
// Content-Security-Policy, that previews load, and that an archive's
// HTML cannot run scripts. It keeps a screenshot of each kind of page in
// testdata/screenshots (redrawn with -update-screenshots).
func TestServeBrowser(t *testing.T) {
	// The nest is served from memory, so that the pipelines, and the
	// screenshots, are the same on every run.
	o := &vfs.Options{Cache: vfs.NewCache(0)}
	store := memroot.For(o.Cache)
	dir := nestDir(t)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		return store.WriteFile("nest/"+filepath.ToSlash(rel), b)
	})
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := vfs.OpenFS(t.Context(), "memory:nest/", o)
	if err != nil {
		t.Fatal(err)
	}
	logged := new(lockedBuffer)
	h := New(fsys, &Options{VFS: o, LoopbackOnly: true, Logger: slog.New(slog.NewTextHandler(logged, nil))})
	t.Cleanup(func() { h.Close(); fsys.Close() })
	var favicons atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" {
			favicons.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	root := "memory:nest"
	ctx := browser(t)

	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		c, cancel := fstest.WaitContext(t, ctx)
		defer cancel()
		if err := chromedp.Do(c, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(expr string) string {
		t.Helper()
		c, cancel := fstest.WaitContext(t, ctx)
		defer cancel()
		v, err := chromedp.Run(c, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("evaluating %s: %v", expr, err)
		}
		return v
	}
	text := func(sel string) string {
		t.Helper()
		return eval(fmt.Sprintf("document.querySelector(%q).textContent", sel))
	}
	// click follows the link to href and waits for its page. The page
	// being left can answer no more while the next one loads, so the
	// check is repeated, each time it gets no answer with twice the time,
	// until the next one answers it.
	click := func(href string) {
		t.Helper()
		want := href
		if strings.HasPrefix(href, "?") {
			want = eval("location.pathname") + href
		}
		run("following "+href, chromedp.Click(chromedp.CSS(fmt.Sprintf("a[href=%q]", href))))
		check := chromedp.Evaluate[bool](fmt.Sprintf("location.pathname + location.search === %q && document.readyState === 'complete'", want))
		wctx, cancel := fstest.WaitContext(t, ctx)
		defer cancel()
		var last error
		attempt := 5 * time.Second
		fstest.WaitUntil(t, "the page of "+href+" to load", func() bool {
			c, cancel := context.WithTimeout(wctx, attempt)
			defer cancel()
			ok, err := chromedp.Run(c, check)
			if errors.Is(err, context.DeadlineExceeded) {
				attempt *= 2
			}
			last = err
			return err == nil && ok
		}, func() string { return fmt.Sprintf("the last check: %v", last) })
	}
	// previewWidth waits for the preview to load and returns its width.
	previewWidth := func() int {
		t.Helper()
		c, cancel := fstest.WaitContext(t, ctx)
		defer cancel()
		w, err := chromedp.Run(c, chromedp.Poll[int](`(() => { const i = document.getElementById("preview"); return i && i.complete ? i.naturalWidth : 0; })()`))
		if err != nil {
			t.Fatalf("the preview did not load: %v", err)
		}
		return w
	}

	// noSelfLink checks that no link of the page leads to the page
	// itself, which a crawler would read as an entry.
	noSelfLink := func() {
		t.Helper()
		if got := eval(`[...document.querySelectorAll("a")].filter(a => a.href === location.href).map(a => a.outerHTML).join(" ")`); got != "" {
			t.Errorf("%s links itself: %s", eval("location.pathname"), got)
		}
	}

	run("opening /", chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.ID("listing")))
	noSelfLink()
	// Sizes as ls -h writes them, the exact bytes on hover.
	zipInfo, err := os.Stat(filepath.Join(dir, "outer.zip"))
	if err != nil {
		t.Fatal(err)
	}
	cell := `document.querySelector('#listing a[href="/outer.zip/"]').closest("tr").querySelector("td.size")`
	if got, title := eval(cell+".textContent"), eval(cell+".title"); got != listfmt.HumanSize(zipInfo.Size()) || title != fmt.Sprintf("%d bytes", zipInfo.Size()) || !strings.HasSuffix(got, "K") {
		t.Errorf("outer.zip's size shows %q, title %q; want %q, \"%d bytes\"", got, title, listfmt.HumanSize(zipInfo.Size()), zipInfo.Size())
	}
	if got := text("#pipeline"); got != root+"/" {
		t.Errorf("/ shows the pipeline %q", got)
	}
	// The style and the script of the page ran: the policy allows them.
	if bg := eval(`getComputedStyle(document.querySelector("header")).backgroundColor`); bg != "rgb(36, 48, 60)" {
		t.Errorf("the page's style did not apply: header background %q", bg)
	}
	if hidden := eval(`String(document.getElementById("copy").hidden)`); hidden != "false" {
		t.Errorf("the page's script did not run: the Copy button is hidden")
	}

	click("/outer.zip/")
	if got := text("#pipeline"); got != root+"/outer.zip|zip:" {
		t.Errorf("outer.zip/ shows the pipeline %q", got)
	}
	listing := text("#listing")
	for _, want := range []string{"inner.tar.gz/", "picture.png/", "notes.txt", "site/", "gzip|tar", "png", "directory", modTime.UTC().Format(timeLayoutUTC)} {
		if !strings.Contains(listing, want) {
			t.Errorf("the listing of outer.zip lacks %q:\n%s", want, listing)
		}
	}
	screenshot(t, ctx, "directory")
	noSelfLink()

	click("/outer.zip/inner.tar.gz/")
	click("/outer.zip/inner.tar.gz/data.zarr/")
	if got := text("#metadata"); !strings.Contains(got, "test nest") || !strings.Contains(got, "zarr3") {
		t.Errorf("the group's metadata %q lacks its format or attributes", got)
	}
	// Each child is listed once: in the listing, with its kind.
	noSelfLink()
	for _, c := range []string{"grad", "names", "many", "big"} {
		href := "/outer.zip/inner.tar.gz/data.zarr/" + c + "/"
		if n := eval(fmt.Sprintf(`String(document.querySelectorAll('a[href=%q]').length)`, href)); n != "1" {
			t.Errorf("the group page links %s %s times, want once", c, n)
		}
		if n := eval(fmt.Sprintf(`String(document.body.textContent.split(%q).length - 1)`, c+"/")); n != "1" {
			t.Errorf("the group page names %s/ %s times, want once", c, n)
		}
	}
	if got := eval(`String(document.getElementById("children") !== null) + " " + document.getElementById("metadata").textContent.includes("children")`); got != "false false" {
		t.Errorf("the group page lists its children apart from its listing (children list, metadata row: %s)", got)
	}
	click("/outer.zip/inner.tar.gz/data.zarr/grad/")
	if got, want := text("#pipeline"), root+"/outer.zip|zip:inner.tar.gz|gzip:|pipefs.tar:data.zarr/grad/"; got != want {
		t.Errorf("grad/ shows the pipeline %q, want %q", got, want)
	}
	meta := text("#metadata")
	for _, want := range []string{"shape[40 70]", "uint16", "chunk shape[32 32] (grid [2 3])", "codecsbytes", `"units":"counts"`, `["y" "x"]`} {
		if !strings.Contains(meta, want) {
			t.Errorf("the array's metadata lacks %q:\n%s", want, meta)
		}
	}
	if w := previewWidth(); w != nestCols {
		t.Errorf("the preview is %d pixels wide, want %d", w, nestCols)
	}
	// grad holds 100*y + x: 0 to 100*39 + 69.
	if got, want := text("#range"), fmt.Sprintf("Minimum 0, maximum %d of the previewed plane (%d values).", 100*(nestRows-1)+nestCols-1, nestRows*nestCols); got != want {
		t.Errorf("the array's range reads %q, want %q", got, want)
	}
	noSelfLink()
	screenshot(t, ctx, "array")
	run("copying the pipeline", chromedp.Click(chromedp.ID("copy")))
	c, cancel := fstest.WaitContext(t, ctx)
	said, err := chromedp.Run(c, chromedp.Poll[string](`(() => { const t = document.getElementById("copy").textContent; return t !== "Copy" && t; })()`))
	cancel()
	if err != nil || said != "Copied" {
		t.Errorf("the Copy button says %q after a click (%v)", said, err)
	}

	run("opening the image", chromedp.Navigate(ts.URL+"/outer.zip/picture.png/"), chromedp.WaitVisible(chromedp.ID("metadata")))
	if w := previewWidth(); w != 60 {
		t.Errorf("the image preview is %d pixels wide, want 60", w)
	}
	if got := text("#metadata"); !strings.Contains(got, "RGB") {
		t.Errorf("the image's metadata lacks its channels:\n%s", got)
	}
	screenshot(t, ctx, "image")

	// A 1-D array lists its values.
	run("opening a 1-D array", chromedp.Navigate(ts.URL+"/outer.zip/inner.tar.gz/data.zarr/names/"), chromedp.WaitVisible(chromedp.ID("values")))
	if got := text("#values"); got != `["", ""]` {
		t.Errorf("the values of names read %q", got)
	}

	run("opening the versions", chromedp.Navigate(ts.URL+"/db.ocdbt/"), chromedp.WaitVisible(chromedp.ID("listing")))
	noSelfLink()
	click("?versions")
	if got := text("#versions"); !strings.Contains(got, "v200") || !strings.Contains(got, "2025-01-30T21:32:59.931662761Z") {
		t.Errorf("the versions table lacks v200 or the time of v1:\n%.300s", got)
	}
	screenshot(t, ctx, "versions")
	click("/db.ocdbt/@v3/")
	if got := text("#pipeline"); got != root+"/db.ocdbt/|ocdbt://v3/" {
		t.Errorf("@v3 shows the pipeline %q", got)
	}
	if got := text("#listing"); !strings.Contains(got, "key3") || strings.Contains(got, "key4") {
		t.Errorf("v3 lists:\n%s", got)
	}

	run("opening a missing page", chromedp.Navigate(ts.URL+"/outer.zip/nope/"), chromedp.WaitVisible(chromedp.ID("message")))
	if got := text("h1"); got != "404 Not Found" {
		t.Errorf("the error page's heading is %q", got)
	}
	// The one failure logged is that page: browsers ask for /favicon.ico,
	// which is pipefs's icon.
	if got := logged.String(); strings.Count(got, "status=") != 1 || !strings.Contains(got, "path=/outer.zip/nope/ status=404") {
		t.Errorf("the visits logged:\n%s", got)
	}
	if favicons.Load() == 0 {
		t.Errorf("chromium asked for no /favicon.ico")
	}
	screenshot(t, ctx, "error")

	// An archive's page is shown, sandboxed: its script does not run.
	// Waited for through the DOM, not a script: the sandbox gives the
	// page a new execution context, and a script polled in the old one
	// while it is replaced fails ("Cannot find context with specified
	// id").
	run("opening the archived site", chromedp.Navigate(ts.URL+"/outer.zip/site/"), chromedp.WaitReady("body"))
	if got := eval("document.body.textContent"); !strings.Contains(got, "archived page") {
		t.Errorf("the archived site shows %q", got)
	}
	if got := eval("document.title"); got != "site" {
		t.Errorf("the archived site's script ran: title %q", got)
	}
}

// screenshot captures the page and, with -update-screenshots, writes it
// to testdata/screenshots/NAME.png; otherwise it checks that the kept one has
// the same size.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	c, cancel := fstest.WaitContext(t, ctx)
	defer cancel()
	b, err := chromedp.Run(c, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	file := filepath.Join("testdata", "screenshots", name+".png")
	if *updateScreenshots {
		if len(b) > 300<<10 {
			t.Fatalf("screenshot %s is %d bytes, more than 300 KB", name, len(b))
		}
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	kept, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (redraw the screenshots with go test -run TestServeBrowser -update-screenshots)", err)
	}
	old, err := png.Decode(bytes.NewReader(kept))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if old.Bounds() != img.Bounds() {
		t.Errorf("screenshot %s is %v, the kept one %v", name, img.Bounds(), old.Bounds())
	}
}

// A lockedBuffer is a bytes.Buffer safe for concurrent writes: a
// handler's log.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
