package httproot_test

import (
	"archive/zip"
	"context"
	"io"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"

	_ "github.com/pipefs/pipefs/adapters/zipadapter"
	_ "github.com/pipefs/pipefs/roots/httproot"
)

func sample() map[string][]byte {
	return map[string][]byte{
		"a.txt":       []byte("hello, world\n"),
		"d/b.txt":     []byte("second file"),
		"d/e/c.bin":   make([]byte, 70000),
		"d/empty.txt": {},
	}
}

func TestConformanceZip(t *testing.T) {
	files := sample()
	for _, m := range []struct {
		name   string
		method uint16
	}{{"stored", zip.Store}, {"deflated", zip.Deflate}} {
		t.Run(m.name, func(t *testing.T) {
			srv := fstest.NewHTTPServer(t, map[string][]byte{"dir/x.zip": fstest.ZipBytes(files, m.method)})
			fstest.Run(t, fstest.Case{Pipeline: srv.URL() + "/dir/x.zip|zip:", Files: files, Exhaustive: true})
		})
	}
}

func TestConformanceNestedZip(t *testing.T) {
	files := sample()
	inner := fstest.ZipBytes(files, zip.Deflate)
	outer := fstest.ZipBytes(map[string][]byte{"in/inner.zip": inner, "readme": []byte("outer")}, zip.Store)
	srv := fstest.NewHTTPServer(t, map[string][]byte{"dir/x.zip": outer})
	fstest.Run(t, fstest.Case{Pipeline: srv.URL() + "/dir/x.zip|zip:in/inner.zip|zip:", Files: files, Exhaustive: true})
}

func TestOpenFilePlain(t *testing.T) {
	srv := fstest.NewHTTPServer(t, map[string][]byte{"d/f.txt": []byte("plain file")})
	f, err := vfs.Open(context.Background(), srv.URL()+"/d/f.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "plain file" {
		t.Fatalf("ReadAll = %q, %v", b, err)
	}
}
