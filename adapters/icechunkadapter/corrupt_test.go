package icechunkadapter

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// overlay is a tree whose file name reads data instead of its contents.
type overlay struct {
	driver.Tree
	name string
	data []byte
}

func (o *overlay) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if name == o.name {
		return &driver.FileInfo{FName: path.Base(name), FSize: int64(len(o.data)), FMode: 0o444}, nil
	}
	return o.Tree.Stat(ctx, name)
}

func (o *overlay) OpenBlob(ctx context.Context, name string) (driver.Blob, error) {
	if name == o.name {
		return driver.BytesBlob(o.data, nil), nil
	}
	return o.Tree.OpenBlob(ctx, name)
}

// memBase copies a fixture into the memory root, so that the thousands
// of reads of the corruption tests cost no system calls.
func memBase(t testing.TB, repo string) driver.Tree {
	t.Helper()
	dir := "icechunkadapter-corrupt/" + repo
	root := fixture(t, repo)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		return memroot.WriteFile(dir+"/"+filepath.ToSlash(rel), data)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { memroot.RemoveAll(dir) })
	return driver.SubTree(memroot.Default(), dir)
}

// metadataFiles lists the snapshot, manifest and repo files of a fixture.
func metadataFiles(t testing.TB, repo string) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"snapshots", "manifests"} {
		ents, err := os.ReadDir(filepath.Join(fixture(t, repo), dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			out = append(out, dir+"/"+e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(fixture(t, repo), "repo")); err == nil {
		out = append(out, "repo")
	}
	return out
}

// exercise does everything a reader can with the repository in b after
// damage to the file named damaged, and returns the first error. It must
// never panic.
func exercise(b driver.Tree, damaged string) error {
	ctx := context.Background()
	var first error
	keep := func(err error) {
		if first == nil && err != nil {
			first = err
		}
	}
	o := &Options{Resolve: func(ctx context.Context, c VirtualChunk) (driver.Blob, error) {
		if c.Length > 1<<20 {
			return nil, driver.Limitf("test resolver: %d bytes", c.Length)
		}
		return driver.BytesBlob(make([]byte, c.Length), nil), nil
	}}
	refs := []string{"", "branch.my-branch", "tag.it works!"}
	switch dir, id := path.Split(damaged); dir {
	case "snapshots/":
		refs = []string{id}
	case "manifests/":
		// Any snapshot may use the manifest.
		ents, err := b.ReadDir(ctx, "snapshots")
		if err != nil {
			return err
		}
		refs = nil
		for _, e := range ents {
			refs = append(refs, e.Name())
		}
	}
	for _, ref := range refs {
		_, err := Log(ctx, b, ref, nil)
		keep(err)
		tr, err := Open(ctx, b, ref, o)
		if err != nil {
			keep(err)
			continue
		}
		keep(fs.WalkDir(fstest.TreeFS(tr), ".", func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			// Read the first and last bytes: sizes may be huge.
			blob, err := tr.OpenBlob(ctx, name)
			if err != nil {
				return err
			}
			var p [64]byte
			for _, off := range []int64{0, max(0, blob.Stat().Size()-int64(len(p)))} {
				if _, err := blob.ReadAt(ctx, p[:], off); err != nil && err != io.EOF {
					return err
				}
			}
			return nil
		}))
		// Lookups without a listing first.
		for _, name := range []string{"group1/big_chunks/c/0/1", "group1/small_chunks/c/3", "group1/big_chunks/c/1"} {
			tr2, err := Open(ctx, b, ref, o)
			if err == nil {
				_, err = tr2.Stat(ctx, name)
				if errors.Is(err, fs.ErrNotExist) {
					err = nil
				}
				keep(err)
				tr2.Close()
			}
		}
		keep(tr.Close())
	}
	return first
}

// cuts returns the offsets to cut a file of n bytes at: every offset in
// the header and frame header, then a spread, then the last bytes.
func cuts(n int) []int {
	var out []int
	for i := 0; i < n; i++ {
		if i < 64 || i > n-16 || i%13 == 0 {
			out = append(out, i)
		}
	}
	return out
}

// wantClean checks that err, from a damaged repository, is one of the
// clear errors: corrupt, limit, not found, unsupported.
func wantClean(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, target := range []error{driver.ErrCorrupt, driver.ErrLimit, fs.ErrNotExist, errors.ErrUnsupported} {
		if errors.Is(err, target) {
			return
		}
	}
	t.Errorf("%s: error %v matches none of ErrCorrupt, ErrLimit, fs.ErrNotExist, errors.ErrUnsupported", what, err)
}

func TestCorruptHeaders(t *testing.T) {
	for _, repo := range repos {
		b := memBase(t, repo)
		for _, name := range metadataFiles(t, repo) {
			data, err := os.ReadFile(filepath.Join(fixture(t, repo), name))
			if err != nil {
				t.Fatal(err)
			}
			mutate := func(i int, v byte) []byte {
				d := slices.Clone(data)
				d[i] = v
				return d
			}
			cases := map[string][]byte{
				"bad magic":       mutate(0, 'X'),
				"bad magic 2":     mutate(11, 'X'),
				"spec 0":          mutate(36, 0),
				"spec 3":          mutate(36, 3),
				"type":            mutate(37, 5),
				"compression":     mutate(38, 9),
				"uncompressed":    mutate(38, 0),
				"zstd magic":      mutate(headerLen, 0),
				"zstd body":       mutate(len(data)-4, data[len(data)-4]^0x55),
				"empty":           {},
				"trailing":        append(slices.Clone(data), 0, 1, 2),
				"doubled payload": append(slices.Clone(data), data[headerLen:]...),
			}
			// A cut at every offset: the header fields, the zstd frame
			// header, the blocks and the checksum.
			for _, cut := range cuts(len(data)) {
				cases["cut "+itoa(cut)] = data[:cut]
			}
			for what, d := range cases {
				err := exercise(&overlay{b, name, d}, name)
				if what == "trailing" || what == "doubled payload" {
					wantClean(t, repo+" "+name+" "+what, err)
					continue
				}
				if err == nil && what != "zstd body" {
					t.Errorf("%s %s %s: no error", repo, name, what)
				}
				wantClean(t, repo+" "+name+" "+what, err)
			}
		}
	}
}

func itoa(i int) string {
	return string(rune('0'+i/1000%10)) + string(rune('0'+i/100%10)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
}

// encoder is shared by the tests: EncodeAll is safe for concurrent use.
var encoder = sync.OnceValue(func() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic(err)
	}
	return enc
})

// recompress writes a metadata file with header h and payload p.
func recompress(h, p []byte) []byte {
	return encoder().EncodeAll(p, slices.Clone(h[:headerLen]))
}

// TestCorruptPayloads damages the decompressed flatbuffers, byte by byte
// and at random, and cuts them at every offset.
func TestCorruptPayloads(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// Every third byte keeps the test near five seconds; the fuzz target
	// covers the rest.
	step := 3
	if testing.Short() {
		step = 17
	}
	for _, repo := range repos {
		b := memBase(t, repo)
		for _, name := range metadataFiles(t, repo) {
			data, err := os.ReadFile(filepath.Join(fixture(t, repo), name))
			if err != nil {
				t.Fatal(err)
			}
			_, payload, err := decodeMetadata(name, data, data[37])
			if err != nil {
				t.Fatal(err)
			}
			try := func(what string, p []byte, mustFail bool) {
				err := exercise(&overlay{b, name, recompress(data, p)}, name)
				if mustFail && err == nil {
					t.Errorf("%s %s %s: no error", repo, name, what)
				}
				wantClean(t, repo+" "+name+" "+what, err)
			}
			for _, cut := range cuts(len(payload)) {
				// Past the root table a cut may leave everything that is
				// read intact; before the identifier it must fail.
				try("cut "+itoa(cut), payload[:cut], cut < 8)
			}
			for i := 0; i < len(payload); i += step {
				p := slices.Clone(payload)
				p[i] ^= 0x80 | byte(i)
				try("byte "+itoa(i), p, false)
			}
			for range 50 {
				p := slices.Clone(payload)
				for range 1 + rng.IntN(8) {
					p[rng.IntN(len(p))] = byte(rng.Uint32())
				}
				try("random", p, false)
			}
		}
	}
}

// TestLimits checks the caps on hostile sizes.
func TestLimits(t *testing.T) {
	b := base(t, "test-repo-v2")
	data, err := os.ReadFile(filepath.Join(fixture(t, "test-repo-v2"), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	// A frame that declares 300 MiB of content.
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	big := enc.EncodeAll(make([]byte, 300<<20), slices.Clone(data[:headerLen]))
	enc.Close()
	err = exercise(&overlay{b, "repo", big}, "repo")
	if !errors.Is(err, driver.ErrLimit) {
		t.Errorf("300 MiB repo payload: error = %v, want ErrLimit", err)
	}
	// A frame of zeros that declares a ratio far beyond flatbuffers'.
	enc, _ = zstd.NewWriter(nil)
	bomb := enc.EncodeAll(make([]byte, 8<<20), slices.Clone(data[:headerLen]))
	enc.Close()
	if err := exercise(&overlay{b, "repo", bomb}, "repo"); !errors.Is(err, driver.ErrLimit) {
		t.Errorf("%d-byte file of 8 MiB zeros: error = %v, want ErrLimit", len(bomb), err)
	}
	// Too many nodes for Limits.MaxEntries.
	tr, err := Open(context.Background(), b, "branch.my-branch", &Options{Pipeline: &vfs.Options{Limits: vfs.Limits{MaxEntries: 3}}})
	if !errors.Is(err, driver.ErrLimit) {
		t.Errorf("MaxEntries 3: Open error = %v, want ErrLimit", err)
	}
	if tr != nil {
		tr.Close()
	}
	// Too many chunks in one array.
	tr, err = Open(context.Background(), b, "branch.my-branch", &Options{Pipeline: &vfs.Options{Limits: vfs.Limits{MaxEntries: 9}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.ReadDir(context.Background(), "group1/big_chunks/c/1"); err != nil {
		t.Errorf("MaxEntries 9, 4 chunks: %v", err)
	}
	tr.Close()
	// A long node path.
	if _, err := Open(context.Background(), b, "branch.my-branch", &Options{Pipeline: &vfs.Options{Limits: vfs.Limits{MaxNameLength: 10}}}); !errors.Is(err, driver.ErrCorrupt) && !errors.Is(err, driver.ErrLimit) {
		t.Errorf("MaxNameLength 10: error = %v, want a limit error", err)
	}
}

// TestCycles checks that a parent chain that loops is corrupt, in a v1
// snapshot file and in a v2 repo file.
func TestCycles(t *testing.T) {
	ctx := context.Background()
	// v1: make "fill data" its own parent.
	b := memBase(t, "test-repo-v1")
	name := "snapshots/7XAF0Q905SH4938DN9CG"
	data, err := os.ReadFile(filepath.Join(fixture(t, "test-repo-v1"), name))
	if err != nil {
		t.Fatal(err)
	}
	_, payload, err := decodeMetadata(name, data, fileSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	self, _ := parseID12("7XAF0Q905SH4938DN9CG")
	parent, _ := parseID12("GC4YVH5SKBPEZCENYQE0")
	if !bytes.Contains(payload, parent[:]) {
		t.Fatal("parent id not found in the payload")
	}
	looped := bytes.Replace(payload, parent[:], self[:], 1)
	_, err = Log(ctx, &overlay{b, name, recompress(data, looped)}, "branch.main", nil)
	if !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("v1 cycle: Log error = %v, want a corrupt cycle", err)
	}
	// v2: two snapshots that are each other's parent.
	r := &repo{layout: layoutV2, lim: vfs.Limits{}.Effective(), info: &repoInfo{snapshots: []repoSnapshot{
		{Snapshot{ID: "1CECHNKREP0F1RSTCMT0"}, 1},
		{Snapshot{ID: "7T7DSS71H2JNBBZQ9M8G"}, 0},
	}}}
	id, _ := parseID12("1CECHNKREP0F1RSTCMT0")
	if _, err := r.history(ctx, id); !errors.Is(err, driver.ErrCorrupt) || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("v2 cycle: history error = %v, want a corrupt cycle", err)
	}
}
