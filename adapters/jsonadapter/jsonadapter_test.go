package jsonadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/pipefs/pipefs/adapters/jsonadapter"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

const doc = `{"a": {"/b": [10, {"x": "y"}], "~k": true}, "n": 1.50, "": null}`

func open(t *testing.T, pointer string) (*vfs.File, error) {
	dir := fstest.MapFiles(t, map[string][]byte{"d.json": []byte(doc)})
	return vfs.Open(context.Background(), "memory:/"+dir+"/d.json|json:"+pointer, nil)
}

func TestPointers(t *testing.T) {
	for _, c := range []struct{ pointer, want string }{
		{"", doc},
		{"/a/~1b/0", "10"},
		{"/a/~1b/1", `{"x": "y"}`},
		{"/a/~0k", "true"},
		{"/n", "1.50"},
		{"/", "null"},
		{"/a/%7E1b/1/x", `"y"`},
	} {
		f, err := open(t, c.pointer)
		if err != nil {
			t.Errorf("json:%s: %v", c.pointer, err)
			continue
		}
		b, err := io.ReadAll(f)
		if err != nil || string(b) != c.want {
			t.Errorf("json:%s = %q, %v; want %q", c.pointer, b, err, c.want)
		}
		f.Close()
	}
}

func TestSys(t *testing.T) {
	f, err := open(t, "/n")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	v, ok := info.Sys().(*vfs.Origin).Header.(*jsonadapter.Value)
	if !ok || v.Data != json.Number("1.50") {
		t.Errorf("Sys = %#v, want a *Value holding 1.50", info.Sys())
	}
}

func TestMissing(t *testing.T) {
	for _, p := range []string{"/zz", "/a/~1b/2", "/a/~1b/01", "/a/~1b/-", "/n/x"} {
		if _, err := open(t, p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("json:%s error = %v, want fs.ErrNotExist", p, err)
		}
	}
}

func TestLimitAndCorrupt(t *testing.T) {
	dir := fstest.MapFiles(t, map[string][]byte{"d.json": []byte(doc), "bad.json": []byte(`{"a":`)})
	o := &vfs.Options{Limits: vfs.Limits{MaxDocument: 10}}
	if _, err := vfs.Open(context.Background(), "memory:/"+dir+"/d.json|json:", o); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("over the limit: error = %v, want ErrLimit", err)
	}
	if _, err := vfs.Open(context.Background(), "memory:/"+dir+"/bad.json|json:", nil); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("bad JSON: error = %v, want ErrCorrupt", err)
	}
}

func ExampleLookup() {
	b, err := jsonadapter.Lookup([]byte(`{"a": {"b/c": [1, 2]}}`), []string{"a", "b/c", "1"})
	fmt.Println(string(b), err)
	// Output: 2 <nil>
}
