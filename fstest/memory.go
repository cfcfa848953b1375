package fstest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pipefs/pipefs/roots/memroot"
)

// memSeq numbers the prefixes MapFiles hands out.
var memSeq atomic.Uint64

// MapFiles writes files into the store of the "memory:" root of
// vfs.DefaultCache (a pipeline opened with its own Options.Cache reads
// another store, memroot.For of that cache) under a fresh prefix, and returns the prefix: files[name] is then the
// key prefix+"/"+name, read by the pipeline "memory:/"+prefix+"/"+name.
// A name ending in "/" makes an (empty) directory; its value is ignored.
// The prefix is made of t's name and a counter, with only characters that
// need no escaping in a URL, so tests (and parallel ones) never collide.
// Everything under the prefix is removed when t's cleanup runs.
func MapFiles(t testing.TB, files map[string][]byte) string {
	t.Helper()
	prefix := fmt.Sprintf("fstest/%s-%d", urlSafe(t.Name()), memSeq.Add(1))
	t.Cleanup(func() {
		if err := memroot.RemoveAll(prefix); err != nil {
			t.Errorf("memroot.RemoveAll(%q) = %v", prefix, err)
		}
	})
	for _, name := range slices.Sorted(maps.Keys(files)) {
		var err error
		if dir, ok := strings.CutSuffix(name, "/"); ok {
			err = memroot.MkdirAll(prefix + "/" + dir)
		} else {
			err = memroot.WriteFile(prefix+"/"+name, files[name])
		}
		if err != nil {
			t.Fatalf("fstest.MapFiles: writing %q: %v", name, err)
		}
	}
	return prefix
}

// urlSafe replaces every byte of s that a URL path would escape, and "/",
// with "-".
func urlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, s)
}
