package browse

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// TestServeFavicon: /favicon.ico is pipefs's icon, logged as nothing,
// unless the served directory has a favicon.ico of its own; elsewhere a
// favicon.ico that does not exist is a 404 as any file.
func TestServeFavicon(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	fsys, err := vfs.OpenFS(t.Context(), "file:"+filepath.ToSlash(dir)+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	var logged bytes.Buffer
	h := New(fsys, &Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	defer h.Close()

	resp := fetch(t, h, "/favicon.ico")
	if got := body(t, resp); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(got, "<svg ") || got != faviconSVG {
		t.Errorf("GET /favicon.ico: %s %q, %q", resp.Status, resp.Header.Get("Content-Type"), got)
	}
	if resp := fetch(t, h, "/sub/favicon.ico"); resp.StatusCode != 404 {
		t.Errorf("GET /sub/favicon.ico: %s, want 404", resp.Status)
	}
	if got := logged.String(); strings.Count(got, "status=") != 1 || !strings.Contains(got, "path=/sub/favicon.ico status=404") {
		t.Errorf("logged:\n%s", got)
	}

	own := []byte("\x00\x00\x01\x00own icon")
	if err := os.WriteFile(filepath.Join(dir, "favicon.ico"), own, 0o644); err != nil {
		t.Fatal(err)
	}
	if resp := fetch(t, h, "/favicon.ico"); body(t, resp) != string(own) {
		t.Errorf("GET /favicon.ico with a favicon.ico of the location's own: %s", resp.Status)
	}
}
