package ocdbtadapter

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/memroot"
)

// enc builds encoded OCDBT structures for tests.
type enc []byte

func (e enc) varint(v uint64) enc { return binary.AppendUvarint(e, v) }
func (e enc) u8(v byte) enc       { return append(e, v) }
func (e enc) u64(v uint64) enc    { return binary.LittleEndian.AppendUint64(e, v) }
func (e enc) raw(b string) enc    { return append(e, b...) }

// envelope wraps body in an envelope with the given magic and compression.
func envelope(magic uint32, comp byte, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, magic)
	b = binary.LittleEndian.AppendUint64(b, uint64(4+8+2+len(body)+4))
	b = append(b, 0, comp)
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// manifestBody returns the body of a single-kind manifest with one version
// whose root is a node of rootHeight at [0, rootLen) of dataPath.
func manifestBody(arity byte, dataPath string, rootHeight byte, rootLen uint64, numKeys uint64) enc {
	e := enc(make([]byte, 16)).varint(kindSingle).varint(100).varint(1 << 23).u8(arity).varint(0)
	e = e.varint(1).varint(uint64(len(dataPath))).varint(0).raw(dataPath) // data file table
	e = e.varint(1).varint(1).u8(rootHeight)                              // one version: generation 1
	e = e.varint(0).varint(0).varint(rootLen)                             // root reference
	e = e.varint(numKeys).varint(rootLen).varint(0)                       // statistics
	e = e.u64(1_700_000_000_000_000_000)                                  // commit time
	return e.varint(0)                                                    // no version nodes
}

// leafBody returns the body of a leaf node holding keys (sorted) with
// inline values.
func leafBody(kv map[string]string) enc {
	keys := slices.Sorted(maps.Keys(kv))
	e := enc{0}.varint(0).varint(uint64(len(keys))) // height 0, no data files
	for range keys[1:] {
		e = e.varint(0) // no shared prefix
	}
	for _, k := range keys {
		e = e.varint(uint64(len(k)))
	}
	for _, k := range keys {
		e = e.raw(k)
	}
	for _, k := range keys {
		e = e.varint(uint64(len(kv[k])))
	}
	for range keys {
		e = e.u8(0) // inline
	}
	for _, k := range keys {
		e = e.raw(kv[k])
	}
	return e
}

// craft returns a database with one version holding kv.
func craft(kv map[string]string) memTree {
	node := envelope(magicBtreeNode, 0, leafBody(kv))
	return memTree{
		"manifest.ocdbt": envelope(magicManifest, 0, manifestBody(4, "d/x", 0, uint64(len(node)), uint64(len(kv)))),
		"d/x":            node,
	}
}

// TestKeyRule checks the rule for keys that cannot be fs names.
func TestKeyRule(t *testing.T) {
	kv := map[string]string{
		"a": "file a", "a/b": "under a", // a key that is also a directory
		"a//c": "empty segment", "./x": "dot", "y/../z": "dot dot", "k/": "trailing slash",
		"/abs": "leading slash", "\xff": "not UTF-8", "": "empty key", "ok": "fine", "#": "hash",
	}
	ctx := context.Background()
	tr, err := Open(ctx, craft(kv), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	got, err := readAll(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a/b": "under a", "ok": "fine", "#": "hash"}
	if !maps.Equal(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	if info, err := tr.Stat(ctx, "a"); err != nil || !info.IsDir() {
		t.Errorf("Stat(a) = %v, %v, want a directory", info, err)
	}
	if _, err := tr.OpenBlob(ctx, "a"); !errors.Is(err, driver.ErrIsDir) {
		t.Errorf("OpenBlob(a) error = %v, want driver.ErrIsDir", err)
	}
	var names []string
	ents, _ := tr.ReadDir(ctx, ".")
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, " "), "# a k ok y"; got != want {
		t.Errorf("ReadDir(.) = %s, want %s", got, want)
	}
	for _, dir := range []string{"k", "y"} {
		if ents, err := tr.ReadDir(ctx, dir); err != nil || len(ents) != 0 {
			t.Errorf("ReadDir(%s) = %v, %v, want an empty directory", dir, ents, err)
		}
	}
	// Every key, hidden or not, through OpenKey.
	for k, v := range kv {
		b, err := tr.OpenKey(ctx, k)
		if err != nil {
			t.Errorf("OpenKey(%q): %v", k, err)
			continue
		}
		buf := make([]byte, b.Stat().Size())
		b.ReadAt(ctx, buf, 0)
		if string(buf) != v {
			t.Errorf("OpenKey(%q) = %q, want %q", k, buf, v)
		}
	}
	if _, err := tr.ReadDir(ctx, "ok"); !errors.Is(err, driver.ErrNotDir) {
		t.Errorf("ReadDir(ok) error = %v, want driver.ErrNotDir", err)
	}
	// The conformance kit, through a pipeline over the memory root.
	files := map[string][]byte{}
	for name, b := range craft(kv) {
		files[name] = b
	}
	dir := fstest.MapFiles(t, files)
	fstest.Run(t, fstest.Case{
		Pipeline:   "memory:/" + dir + "/|ocdbt:",
		Files:      map[string][]byte{"a/b": []byte("under a"), "ok": []byte("fine"), "#": []byte("hash")},
		Dirs:       []string{"k", "y"},
		Exhaustive: true,
	})
}

// TestHostile checks crafted databases that break the format's rules.
func TestHostile(t *testing.T) {
	ctx := context.Background()
	leaf := envelope(magicBtreeNode, 0, leafBody(map[string]string{"k": "v"}))
	// An interior node of height 1 whose only child is itself: a cycle.
	self := func() []byte {
		for n := uint64(20); n < 200; n++ {
			e := enc{1}.varint(1).varint(3).varint(0).raw("d/x") // height 1, table
			e = e.varint(1).varint(1).varint(0).raw("k")         // one key "k", scpl 0
			e = e.varint(0).varint(0).varint(n)                  // child: itself
			e = e.varint(1).varint(n).varint(0)
			if b := envelope(magicBtreeNode, 0, e); uint64(len(b)) == n {
				return b
			}
		}
		panic("no fixed point")
	}()
	zeros := make([]byte, maxBodyBytes+1)
	zenc, _ := zstd.NewWriter(nil)
	bomb := zenc.EncodeAll(zeros, nil)
	for _, tc := range []struct {
		name  string
		files memTree
		want  error
		text  string
	}{
		{"arity 17", memTree{"manifest.ocdbt": envelope(magicManifest, 0, manifestBody(17, "d/x", 0, 1, 0)), "d/x": leaf}, driver.ErrCorrupt, "arity"},
		{"arity 0", memTree{"manifest.ocdbt": envelope(magicManifest, 0, manifestBody(0, "d/x", 0, 1, 0)), "d/x": leaf}, driver.ErrCorrupt, "arity"},
		{"numbered", memTree{"manifest.ocdbt": envelope(magicManifest, 0, enc(make([]byte, 16)).varint(kindNumbered).varint(100).varint(8).u8(4).varint(0))}, errors.ErrUnsupported, "numbered"},
		{"kind 2", memTree{"manifest.ocdbt": envelope(magicManifest, 0, enc(make([]byte, 16)).varint(2).varint(100).varint(8).u8(4).varint(0))}, driver.ErrCorrupt, "manifest kind"},
		{"unknown compression", memTree{"manifest.ocdbt": envelope(magicManifest, 2, manifestBody(4, "d/x", 0, 1, 0))}, driver.ErrCorrupt, "compression"},
		{"zstd bomb", memTree{"manifest.ocdbt": envelope(magicManifest, 1, bomb)}, driver.ErrLimit, "exceeds"},
		{"escaping path", memTree{"manifest.ocdbt": envelope(magicManifest, 0, manifestBody(4, "../x", 0, uint64(len(leaf)), 1))}, driver.ErrUnsafePath, ".."},
		{"absolute path", memTree{"manifest.ocdbt": envelope(magicManifest, 0, manifestBody(4, "/x", 0, uint64(len(leaf)), 1))}, driver.ErrUnsafePath, "/x"},
		{"cycle", memTree{"manifest.ocdbt": envelope(magicManifest, 0, manifestBody(4, "d/x", 1, uint64(len(self)), 1)), "d/x": self}, driver.ErrCorrupt, "height"},
		{"wrong root height", memTree{"manifest.ocdbt": envelope(magicManifest, 0, manifestBody(4, "d/x", 3, uint64(len(leaf)), 1)), "d/x": leaf}, driver.ErrCorrupt, "height"},
		{"node past end", memTree{"manifest.ocdbt": envelope(magicManifest, 0, manifestBody(4, "d/x", 0, uint64(len(leaf))+1, 1)), "d/x": leaf}, driver.ErrCorrupt, "ends at"},
		{"huge node", memTree{"manifest.ocdbt": envelope(magicManifest, 0, manifestBody(4, "d/x", 0, 1<<40, 1)), "d/x": leaf}, driver.ErrLimit, "exceeds"},
		{"missing data file", memTree{"manifest.ocdbt": envelope(magicManifest, 0, manifestBody(4, "d/y", 0, uint64(len(leaf)), 1)), "d/x": leaf}, fs.ErrNotExist, "d/y"},
		{"no manifest", memTree{"d/x": leaf}, fs.ErrNotExist, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Open(ctx, tc.files, "", nil)
			if err == nil {
				_, err = readAll(ctx, tr)
				tr.Close()
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error = %v, want %v mentioning %q", err, tc.want, tc.text)
			}
		})
	}
}

// TestCorruptFixtures cuts and flips the bytes of real databases: every
// truncation and every changed byte of a manifest, and of the data file of
// files_min_arity outside its out-of-line values, must be an error
// matching driver.ErrCorrupt (never a panic, never silently wrong data).
func TestCorruptFixtures(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, files memTree, what string) {
		t.Helper()
		tr, err := Open(ctx, files, "", nil)
		if err == nil {
			_, err = readAll(ctx, tr)
			tr.Close()
		}
		if !errors.Is(err, driver.ErrCorrupt) {
			t.Fatalf("%s: error = %v, want driver.ErrCorrupt", what, err)
		}
	}
	for _, db := range []string{"files_min_arity", "files_high_arity", "multi_version_low_arity"} {
		t.Run(db, func(t *testing.T) {
			orig := loadDir(t, db+".ocdbt")
			man := orig["manifest.ocdbt"]
			for n := range len(man) {
				files := maps.Clone(orig)
				files["manifest.ocdbt"] = man[:n]
				check(t, files, "manifest cut at "+itoa(n))
				files["manifest.ocdbt"] = bytes.Clone(man)
				files["manifest.ocdbt"][n] ^= 0x40
				check(t, files, "manifest byte "+itoa(n)+" changed")
			}
			files := maps.Clone(orig)
			files["manifest.ocdbt"] = bytes.Clone(man)
			files["manifest.ocdbt"][0] = 0
			tr, err := Open(ctx, files, "", nil)
			if err == nil || !strings.Contains(err.Error(), "bad magic") {
				t.Errorf("wrong magic: Open = %v, %v, want a bad magic error", tr, err)
			}
		})
	}
	t.Run("files_min_arity/data", func(t *testing.T) {
		orig := loadDir(t, "files_min_arity.ocdbt")
		const name = "d/f6d9da936d3f6f58b667ca9d54a38667"
		data := orig[name]
		const values = 9 // a, b, c: 3 bytes each at offsets 0, 3, 6
		for n := range len(data) {
			files := maps.Clone(orig)
			files[name] = data[:n]
			check(t, files, "data file cut at "+itoa(n))
			if n >= values {
				files[name] = bytes.Clone(data)
				files[name][n] ^= 0x01
				check(t, files, "data byte "+itoa(n)+" changed")
			}
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
