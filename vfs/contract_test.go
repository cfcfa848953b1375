package vfs

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

type toyOptions struct{ Tag string }

// contractRegistry is newTestRegistry with drivers that record what the
// engine gives them: a root "http" (also "https") that takes *toyOptions,
// a file adapter "test.file" and a directory adapter "test.tree".
func contractRegistry(t *testing.T, files testTree, seen *[]string) *Registry {
	g := new(Registry)
	g.RegisterRoot(&Root{Scheme: "memory", Open: func(ctx context.Context, u SubURL, env *Env) (driver.Location, error) {
		return driver.Location{Tree: files, Path: u.Key()}, nil
	}})
	g.RegisterRoot(&Root{Scheme: "http", Also: []string{"https"}, Options: (*toyOptions)(nil),
		Open: func(ctx context.Context, u SubURL, env *Env) (driver.Location, error) {
			tag := "none"
			if o := SchemeOptions[*toyOptions](env); o != nil {
				tag = o.Tag
			}
			*seen = append(*seen, u.Scheme+" "+tag)
			return driver.Location{Tree: files, Path: u.Key()}, nil
		}})
	g.RegisterAdapter(&Adapter{Scheme: "test.file", OpenFile: func(ctx context.Context, in driver.Blob, u SubURL, env *Env) (driver.Location, error) {
		*seen = append(*seen, "file over "+env.URL)
		if env.Cache == nil || env.Options == nil || env.Limits.MaxDepth == 0 {
			t.Errorf("incomplete Env: %+v", env)
		}
		return driver.Location{Blob: in}, nil
	}})
	g.RegisterAdapter(&Adapter{Scheme: "test.tree", OpenDir: func(ctx context.Context, in driver.Tree, u SubURL, env *Env) (driver.Location, error) {
		*seen = append(*seen, "tree over "+env.URL)
		if _, err := in.Stat(ctx, "b.txt"); err != nil {
			t.Errorf("the directory adapter's tree is not rooted at its base: %v", err)
		}
		return driver.Location{Tree: in, Path: u.Key()}, nil
	}})
	return g
}

func TestAdapterGetsItsKind(t *testing.T) {
	var seen []string
	files := testTree{"d/b.txt": "bee", "a.txt": "a"}
	o := &Options{Registry: contractRegistry(t, files, &seen)}
	ctx := context.Background()
	f, err := Open(ctx, "memory:a.txt|test.file:", o)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fsys, err := OpenFS(ctx, "memory:d/|test.tree:", o)
	if err != nil {
		t.Fatal(err)
	}
	fsys.Close()
	want := []string{"file over memory:a.txt", "tree over memory:d/"}
	if strings.Join(seen, ";") != strings.Join(want, ";") {
		t.Errorf("drivers saw %q, want %q", seen, want)
	}
	// The wrong kind is refused by the engine, once, with one error each
	// way, naming the base's sub-URL; the adapter is never called.
	seen = nil
	for _, tc := range []struct {
		pipeline string
		want     error
	}{
		{"memory:d/|test.file:", ErrIsDir},
		{"memory:a.txt|test.tree:", ErrNotDir},
		{"memory:a.txt|test.file:|test.tree:", ErrNotDir},
	} {
		_, err := Open(ctx, tc.pipeline, o)
		var se *StageError
		if !errors.Is(err, tc.want) || !errors.As(err, &se) || se.Index == strings.Count(tc.pipeline, "|") {
			t.Errorf("%s: error %v, want %v at the base's sub-URL", tc.pipeline, err, tc.want)
		}
	}
	if len(seen) > 1 { // the third case opens test.file once before failing
		t.Errorf("adapters called over the wrong kind: %q", seen)
	}
}

func TestSchemeOptionsTyped(t *testing.T) {
	var seen []string
	g := contractRegistry(t, testTree{"a.txt": "a"}, &seen)
	ctx := context.Background()
	open := func(s string, schemes map[string]any) error {
		f, err := Open(ctx, s, &Options{Registry: g, Schemes: schemes})
		if err == nil {
			f.Close()
		}
		return err
	}
	// One entry under "http" serves https too.
	if err := open("https://h/a.txt", map[string]any{"http": &toyOptions{Tag: "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := open("http://h/a.txt", nil); err != nil {
		t.Fatal(err)
	}
	// An entry of https's own wins over http's, for https only.
	both := map[string]any{"http": &toyOptions{Tag: "h"}, "https": &toyOptions{Tag: "s"}}
	if err := open("https://h/a.txt", both); err != nil {
		t.Fatal(err)
	}
	if err := open("http://h/a.txt", both); err != nil {
		t.Fatal(err)
	}
	// Schemes the program did not register, and nil values, are ignored:
	// one configuration serves programs with different drivers.
	if err := open("http://h/a.txt", map[string]any{"s3": 42, "gs": nil, "pipefs.other": "x", "test.file": nil}); err != nil {
		t.Fatal(err)
	}
	if want := "https x;http none;https s;http h;http none"; strings.Join(seen, ";") != want {
		t.Errorf("roots saw %q, want %q", seen, want)
	}
	for name, schemes := range map[string]map[string]any{
		"wrong type":      {"http": toyOptions{Tag: "not a pointer"}},
		"alias wrong":     {"https": toyOptions{}},
		"not a scheme":    {"no such": &toyOptions{}},
		"typo":            {"htttp": &toyOptions{}},
		"upper case":      {"HTTP": &toyOptions{}},
		"takes none":      {"test.file": &toyOptions{}},
		"another's value": {"http": &Options{}},
	} {
		err := open("http://h/a.txt", schemes)
		if !errors.Is(err, fs.ErrInvalid) || !strings.Contains(err.Error(), "Options.Schemes") {
			t.Errorf("%s: error %v, want fs.ErrInvalid naming Options.Schemes", name, err)
		}
	}
}

func TestRegisterAdapterNeedsOneOpen(t *testing.T) {
	open := func(context.Context, driver.Blob, SubURL, *Env) (driver.Location, error) {
		return driver.Location{}, nil
	}
	openDir := func(context.Context, driver.Tree, SubURL, *Env) (driver.Location, error) {
		return driver.Location{}, nil
	}
	for name, a := range map[string]*Adapter{
		"neither":          {Scheme: "test.x"},
		"both":             {Scheme: "test.x", OpenFile: open, OpenDir: openDir},
		"zip reads dirs":   {Scheme: "zip", OpenDir: openDir},
		"zarr reads files": {Scheme: "zarr", OpenFile: open},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			new(Registry).RegisterAdapter(a)
		})
	}
	g := new(Registry)
	g.RegisterRoot(&Root{Scheme: "http", Also: []string{"https"}, Open: func(context.Context, SubURL, *Env) (driver.Location, error) { return driver.Location{}, nil }})
	defer func() {
		if recover() == nil {
			t.Error("registering https beside http's Also: no panic")
		}
	}()
	g.RegisterRoot(&Root{Scheme: "https", Open: func(context.Context, SubURL, *Env) (driver.Location, error) { return driver.Location{}, nil }})
}

func TestCachesAreSeparate(t *testing.T) {
	type key struct{ n int }
	a, b := NewCache(100), NewCache(100)
	a.Add(key{1}, "a", 10)
	if _, ok := b.Get(key{1}); ok {
		t.Error("an entry of one cache is seen in another")
	}
	if v, ok := a.Get(key{1}); !ok || v != "a" {
		t.Errorf("Get = %v, %v", v, ok)
	}
	calls := 0
	mk := func() any { calls++; return new(int) }
	if a.Resource("r", mk) != a.Resource("r", mk) || calls != 1 {
		t.Errorf("a resource was made %d times for one cache", calls)
	}
	if b.Resource("r", mk) == a.Resource("r", mk) {
		t.Error("two caches share a resource")
	}
	a.Add(key{2}, "big", 95) // 105 > 100: key{1} is evicted
	if _, ok := a.Get(key{1}); ok || a.Size() != 95 {
		t.Errorf("budget not kept: size %d", a.Size())
	}
	if (&Options{}).cache() != DefaultCache() || (*Options)(nil).cache() != DefaultCache() {
		t.Error("nil Options.Cache is not the one default cache")
	}
}

func TestRegistrySummary(t *testing.T) {
	g := new(Registry)
	open := func(context.Context, driver.Blob, SubURL, *Env) (driver.Location, error) {
		return driver.Location{}, nil
	}
	g.RegisterAdapter(&Adapter{Scheme: "zip", OpenFile: open})
	g.RegisterAdapter(&Adapter{Scheme: "test.toy", OpenFile: open, Summary: "a toy"})
	g.RegisterAdapter(&Adapter{Scheme: "gzip", OpenFile: open, Summary: "mine"})
	for scheme, want := range map[string]string{
		"zip":      SchemeSummary("zip"), // the table's
		"test.toy": "a toy",              // a vendor scheme's own
		"gzip":     "mine",               // the registration wins
		"zstd":     SchemeSummary("zstd"),
	} {
		if got := g.Summary(scheme); got != want || got == "" {
			t.Errorf("Summary(%q) = %q, want %q", scheme, got, want)
		}
	}
}
