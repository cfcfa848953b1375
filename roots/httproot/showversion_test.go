package httproot_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/remote"
	"github.com/pipefs/pipefs/vfs"
)

// The version a file's FileInfo reports (what "pipefs stat" shows) is the
// ETag the server sent, or its Last-Modified when it sent no ETag: never
// the encoding of both that reads are conditional on. Reads stay
// conditional on the encoding: with a weak ETag, on Last-Modified.
func TestShownVersion(t *testing.T) {
	for _, tc := range []struct {
		name   string
		style  fstest.ETagStyle
		header string // the answer header the shown version is
		cond   string // the answer header whose value later reads are conditional on
	}{
		{"strong", fstest.StrongETag, "ETag", "ETag"},
		{"weak", fstest.WeakETag, "ETag", "Last-Modified"},
		{"last-modified", fstest.NoETag, "Last-Modified", "Last-Modified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := fstest.RandomBytes(300<<10, 7)
			srv := fstest.NewHTTPServer(t, map[string][]byte{"a.bin": data})
			srv.SetETagStyle(tc.style)
			resp, err := http.Head(srv.URL() + "/a.bin")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := resp.Header.Get(tc.header)
			if want == "" {
				t.Fatalf("the server sent no %s", tc.header)
			}

			f, err := vfs.Open(context.Background(), srv.URL()+"/a.bin", opts())
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			info, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			o, ok := info.Sys().(*vfs.Origin)
			if !ok {
				t.Fatalf("Sys() = %T, want *vfs.Origin", info.Sys())
			}
			if got, _ := o.Header.(string); got != want {
				t.Errorf("version = %q, want the %s %q", o.Header, tc.header, want)
			}
			var fp interface{ Fingerprint() string }
			if !f.As(&fp) {
				t.Fatal("the file is not a fingerprinter")
			}
			internal := resp.Header.Get("ETag")
			if tc.style != fstest.StrongETag {
				internal += "\x00" + resp.Header.Get("Last-Modified")
			}
			if got, want := fp.Fingerprint(), internal+"\x00"+strconv.Itoa(len(data)); got != want {
				t.Errorf("fingerprint %q, want %q: the encoded version, which cache keys carry", got, want)
			}
			// A read past the pinned suffix is conditional on the
			// encoded version.
			srv.Reset()
			buf := make([]byte, 10)
			if _, err := f.ReadAt(buf, 0); err != nil {
				t.Fatal(err)
			}
			log := srv.Log()
			if len(log) != 1 || log[0].Cond != resp.Header.Get(tc.cond) {
				t.Fatalf("the read made these requests, want one conditional on the %s %q:\n%s", tc.cond, resp.Header.Get(tc.cond), srv.LogString())
			}
		})
	}
	var _ remote.VersionShower // the interface the backend implements
}
