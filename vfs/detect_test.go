package vfs

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// TestDetectNegativeSize checks that detection refuses a file whose size
// is negative instead of panicking.
func TestDetectNegativeSize(t *testing.T) {
	g := new(Registry)
	g.RegisterRoot(&Root{Scheme: "memory", Open: func(ctx context.Context, u SubURL, env *Env) (driver.Location, error) {
		return driver.Location{Blob: lyingBlob{-5, 5}}, nil
	}})
	g.RegisterFormat(&Format{Name: "x", Adapter: "zip:", Input: KindFile, Magic: "PK"})
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("OpenFS panicked: %v", p)
			}
		}()
		_, err = OpenFS(context.Background(), "memory:a", &Options{Registry: g})
	}()
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("OpenFS = %v, want ErrCorrupt", err)
	}
}

// TestHint: a file whose start carries a format's Hint, though Match
// rejects it, is opened as that format, whose error is reported; a file
// with no signature stays a plain file; NotFormat names what a file looks
// like.
func TestHint(t *testing.T) {
	g := new(Registry)
	files := map[string][]byte{
		"cut.zz":   []byte("ZZ\x01\x02 but no end record"),
		"whole.zz": []byte("ZZ\x01\x02 ... END"),
		"plain":    []byte("just text"),
	}
	g.RegisterRoot(&Root{Scheme: "memory", Open: func(ctx context.Context, u SubURL, env *Env) (driver.Location, error) {
		return driver.Location{Blob: driver.BytesBlob(files[u.Key()], &driver.FileInfo{FName: u.Key(), FSize: int64(len(files[u.Key()]))})}, nil
	}})
	errNoEnd := driver.Corruptf("zz: no end record")
	g.RegisterAdapter(&Adapter{Scheme: "test.zz", OpenFile: func(ctx context.Context, in driver.Blob, u SubURL, env *Env) (driver.Location, error) {
		head := make([]byte, 32)
		n, _ := in.ReadAt(ctx, head, 0)
		if !strings.HasSuffix(string(head[:n]), "END") {
			return driver.Location{}, errNoEnd
		}
		return driver.Location{Tree: driver.SubTree(nil, "."), Path: "."}, nil
	}})
	g.RegisterFormat(&Format{Name: "zz archive", Adapter: "test.zz:", Input: KindFile, Tail: 3, Hint: "ZZ\x01\x02",
		Match: func(head, tail []byte, size int64) bool { return string(tail) == "END" }})
	o := &Options{Registry: g}
	_, err := OpenFS(context.Background(), "memory:cut.zz", o)
	if !errors.Is(err, errNoEnd) || errors.Is(err, ErrUnknownFormat) {
		t.Errorf("OpenFS(cut.zz) = %v, want the zz adapter's error", err)
	}
	_, err = OpenFS(context.Background(), "memory:plain", o)
	if !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("OpenFS(plain) = %v, want ErrUnknownFormat (a plain file)", err)
	}
	for name, want := range map[string]string{
		"cut.zz":   "not a gzip stream (no magic): the data looks like zz archive; try |test.zz:",
		"whole.zz": "not a gzip stream (no magic): the data looks like zz archive; try |test.zz:",
		"plain":    "not a gzip stream (no magic)",
	} {
		err := NotFormat(context.Background(), o, driver.BytesBlob(files[name], nil), "gzip", "a gzip stream", "no magic")
		if !errors.Is(err, ErrCorrupt) || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("NotFormat(%s) = %v, want ErrCorrupt ending %q", name, err, want)
		}
	}
	if err := NotFormat(context.Background(), o, driver.BytesBlob(files["cut.zz"], nil), "test.zz", "a zz archive", ""); strings.Contains(err.Error(), "try") {
		t.Errorf("NotFormat by zz itself = %v, want no suggestion of zz", err)
	}
	// A blob whose size is not known yet is sniffed by its head alone.
	lazy := driver.BytesBlob(files["cut.zz"], unsizedInfo{&driver.FileInfo{}})
	if f := g.Sniff(context.Background(), lazy); f == nil || f.Name != "zz archive" {
		t.Errorf("Sniff(lazy cut.zz) = %v, want zz archive", f)
	}
}

// unsizedInfo is the FileInfo of a stream whose size is not known yet.
type unsizedInfo struct{ *driver.FileInfo }

func (unsizedInfo) SizeKnown() bool { return false }
func (unsizedInfo) Size() int64     { panic("Size of a stream not decoded yet") }
