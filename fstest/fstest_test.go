package fstest_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"

	_ "github.com/pipefs/pipefs/roots/memroot"
)

// sample returns a tree with the shapes the checks care about: an empty
// file, one-byte and odd-sized files, a file of several deflate blocks,
// nested directories and names that a URL must escape.
func sample() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 120_000)
	for i := range big {
		big[i] = "abcdefgh\n"[rng.IntN(9)] // compressible, but not trivially
	}
	random := make([]byte, 40_001)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	return map[string][]byte{
		"empty":                 {},
		"one":                   []byte("1"),
		"hello.txt":             []byte("hello, world\n"),
		"big.txt":               big,
		"random.bin":            random,
		"d/a.txt":               []byte("in d"),
		"d/e/f/deep.txt":        []byte(strings.Repeat("deep ", 1000)),
		"d/e/sibling.txt":       []byte("sibling"),
		"odd/sp ace & 100%.txt": []byte("escaped name"),
	}
}

func TestMemoryRoot(t *testing.T) {
	files := sample()
	withDir := maps.Clone(files)
	withDir["empty-dir/"] = nil
	prefix := fstest.MapFiles(t, withDir)
	fstest.Run(t, fstest.Case{Pipeline: "memory:/" + prefix + "/", Files: files, Dirs: []string{"empty-dir"}, Exhaustive: true})
}

func TestZipBytes(t *testing.T) {
	files := map[string][]byte{"b": []byte("bee"), "a/c": []byte("sea"), "dir/": nil}
	z := fstest.ZipBytes(files, zip.Deflate)
	if !bytes.Equal(z, fstest.ZipBytes(files, zip.Deflate)) {
		t.Errorf("ZipBytes is not deterministic")
	}
	r, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.File {
		got = append(got, fmt.Sprintf("%s:%d:%v", f.Name, f.Method, f.Mode().IsDir()))
	}
	want := "a/c:8:false b:8:false dir/:0:true"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("ZipBytes members = %q, want %q", s, want)
	}
}
