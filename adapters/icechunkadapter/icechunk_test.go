package icechunkadapter

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"slices"
	"strings"
	"testing"
	stdfstest "testing/fstest"

	"github.com/pipefs/pipefs/vfs/driver"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/fileroot"
)

// fixtures is the shared fixture directory, beside the repository.
// fixture returns the absolute path of a fixture repository.
func fixture(t testing.TB, name string) string {
	t.Helper()
	return fstest.Fixture(t, "icechunk/"+name)
}

// base opens a fixture repository's directory as a driver.Tree.
func base(t testing.TB, name string) driver.Tree {
	t.Helper()
	loc, err := fileroot.OpenPath(context.Background(), fixture(t, name))
	if err != nil {
		t.Fatalf("fixture %s: %v (the fixtures live in ../shared beside the repository)", name, err)
	}
	t.Cleanup(func() { loc.Tree.(*fileroot.Tree).Close() })
	return loc.Tree
}

// The contents the guide (ICECHUNK.md section 10) gives.
var (
	smallChunk = []byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x01, 0x09, 0x00, 0x00, 0x54} // zstd of one byte 84
	virtualURL = "s3://testbucket/can_read_old/chunk-1"
)

var (
	mainKeys = []string{
		"group1/big_chunks/c/0/0", "group1/big_chunks/c/0/1", "group1/big_chunks/c/1/0", "group1/big_chunks/c/1/1",
		"group1/big_chunks/zarr.json",
		"group1/small_chunks/c/0", "group1/small_chunks/c/1", "group1/small_chunks/c/2", "group1/small_chunks/c/3", "group1/small_chunks/c/4",
		"group1/small_chunks/zarr.json", "group1/zarr.json", "zarr.json",
	}
	deleteKeys    = slices.DeleteFunc(slices.Clone(mainKeys), func(k string) bool { return k == "group1/small_chunks/c/4" })
	structureKeys = append(slices.Clone(deleteKeys),
		"group2/zarr.json", "group2/group3/zarr.json", "group2/group3/group4/zarr.json",
		"group2/group3/group4/group5/zarr.json", "group2/group3/group4/group5/inner/zarr.json")
)

var (
	mainHistory   = []string{"set virtual chunk", "fill data", "empty structure", "Repository initialized"}
	branchHistory = append([]string{"some more structure", "delete a chunk"}, mainHistory...)
)

// refCase is a ref of a fixture and what it must show.
type refCase struct {
	ref     string
	id      string
	message string
	keys    []string
	history []string
}

func refCases(repo string) []refCase {
	v1 := map[string]string{"main": "NXH3M0HJ7EEJ0699DPP0", "branch": "XDZ162T1TYBEJMK99NPG", "works": "4QF8JA0YPDN51MHSSYVG"}
	ids := v1
	if repo == "test-repo-v2" {
		ids = map[string]string{"main": "2768FV3XW5ZXYM84XNNG", "branch": "H7T8YA6KR5TH32F3PS10", "works": "QTP2RTYS5YQW8RPSQ93G"}
	}
	return []refCase{
		{"", ids["main"], "set virtual chunk", mainKeys, mainHistory},
		{"branch.main", ids["main"], "set virtual chunk", mainKeys, mainHistory},
		{"branch.my-branch", ids["branch"], "some more structure", structureKeys, branchHistory},
		{"tag.it also works!", ids["branch"], "some more structure", structureKeys, branchHistory},
		{"tag.it works!", ids["works"], "delete a chunk", deleteKeys, branchHistory[1:]},
		{ids["works"], ids["works"], "delete a chunk", deleteKeys, branchHistory[1:]},
	}
}

var repos = []string{"test-repo-v1", "test-repo-v2", "test-repo-v2-migrated"}

// keys lists the files of fsys.
func keys(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("WalkDir: %v", err)
	}
	return out
}

// readBlob reads all of name in tr.
func readBlob(t *testing.T, tr driver.Tree, name string) ([]byte, error) {
	if t != nil {
		t.Helper()
	}
	ctx := context.Background()
	b, err := tr.OpenBlob(ctx, name)
	if err != nil {
		return nil, err
	}
	p := make([]byte, b.Stat().Size())
	n, err := b.ReadAt(ctx, p, 0)
	if n == len(p) {
		err = nil
	}
	return p[:n], err
}

// checkBigChunk checks a stored big_chunks chunk: zstd of 25 float32 42.0.
func checkBigChunk(t *testing.T, name string, data []byte) {
	t.Helper()
	if len(data) != 19 {
		t.Errorf("%s has %d bytes, want 19", name, len(data))
		return
	}
	d, _ := zstd.NewReader(nil)
	defer d.Close()
	raw, err := d.DecodeAll(data, nil)
	if err != nil || len(raw) != 100 {
		t.Errorf("%s: zstd: %d bytes, %v; want 100", name, len(raw), err)
		return
	}
	for i := 0; i < 100; i += 4 {
		if v := math.Float32frombits(binary.LittleEndian.Uint32(raw[i:])); v != 42 {
			t.Errorf("%s: value %d = %v, want 42", name, i/4, v)
			return
		}
	}
}

func TestFixtures(t *testing.T) {
	ctx := context.Background()
	for _, repo := range repos {
		b := base(t, repo)
		for _, rc := range refCases(repo) {
			t.Run(repo+"/"+rc.ref, func(t *testing.T) {
				tr, err := Open(ctx, b, rc.ref, nil)
				if err != nil {
					t.Fatalf("Open(%q) error = %v", rc.ref, err)
				}
				defer tr.Close()
				fi, err := tr.Stat(ctx, ".")
				if err != nil {
					t.Fatal(err)
				}
				s, ok := fi.Sys().(*Snapshot)
				if !ok || s.ID != rc.id || s.Message != rc.message || s.Time.IsZero() {
					t.Errorf("Stat(.).Sys() = %+v, want id %s, message %q", fi.Sys(), rc.id, rc.message)
				}
				if got := keys(t, fstest.TreeFS(tr)); !slices.Equal(got, slices.Sorted(slices.Values(rc.keys))) {
					t.Errorf("keys = %q (%d), want %q (%d)", got, len(got), rc.keys, len(rc.keys))
				}
				for _, k := range rc.keys {
					data, err := readBlob(t, tr, k)
					switch {
					case k == "group1/big_chunks/c/0/0":
						if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), virtualURL) {
							t.Errorf("read %s error = %v, want a permission error naming %s", k, err, virtualURL)
						}
						fi, err := tr.Stat(ctx, k)
						if err != nil || fi.Size() != 19 {
							t.Errorf("Stat(%s) = %v, %v, want 19 bytes", k, fi, err)
						} else if c := fi.Sys().(*Chunk); c.Kind != Virtual || c.Object != virtualURL || c.Offset != 0 || c.Length != 19 {
							t.Errorf("Stat(%s).Sys() = %+v", k, c)
						}
					case err != nil:
						t.Errorf("read %s: %v", k, err)
					case strings.HasPrefix(k, "group1/small_chunks/c/"):
						if !bytes.Equal(data, smallChunk) {
							t.Errorf("%s = %x, want %x", k, data, smallChunk)
						}
					case strings.HasPrefix(k, "group1/big_chunks/c/"):
						checkBigChunk(t, k, data)
					case strings.HasSuffix(k, "zarr.json"):
						if !bytes.HasPrefix(data, []byte("{")) || !bytes.Contains(data, []byte(`"zarr_format": 3`)) {
							t.Errorf("%s = %.40q..., want Zarr v3 metadata", k, data)
						}
					}
				}
				hist, err := tr.History(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var msgs []string
				for _, h := range hist {
					msgs = append(msgs, h.Message)
				}
				if !slices.Equal(msgs, rc.history) {
					t.Errorf("History() = %q, want %q", msgs, rc.history)
				}
				log, err := Log(ctx, b, rc.ref, nil)
				if err != nil || !slices.Equal(log, hist) {
					t.Errorf("Log(%q) = %v, %v, want %v", rc.ref, log, err, hist)
				}
			})
		}
	}
}

// TestZarrJSONSizes checks the metadata sizes the guide gives: v1 and the
// migrated repo have zarr-python 3.0's longer JSON.
func TestZarrJSONSizes(t *testing.T) {
	ctx := context.Background()
	want := map[string][2]int64{
		"zarr.json":                     {99, 66},
		"group1/zarr.json":              {169, 136},
		"group1/small_chunks/zarr.json": {682, 621},
		"group1/big_chunks/zarr.json":   {709, 709},
	}
	for _, repo := range repos {
		tr, err := Open(ctx, base(t, repo), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		col := 0
		if repo == "test-repo-v2" {
			col = 1
		}
		for name, sizes := range want {
			fi, err := tr.Stat(ctx, name)
			if err != nil || fi.Size() != sizes[col] {
				t.Errorf("%s: Stat(%s) = %v, %v, want %d bytes", repo, name, fi, err, sizes[col])
			}
		}
		tr.Close()
	}
}

func TestNotFound(t *testing.T) {
	ctx := context.Background()
	for _, repo := range repos {
		b := base(t, repo)
		for _, ref := range []string{"tag.deleted", "branch.nope", "tag.nope", "AAAAAAAAAAAAAAAAAAA0"} {
			_, err := Open(ctx, b, ref, nil)
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: Open(%q) error = %v, want fs.ErrNotExist", repo, ref, err)
			}
			if _, err := Log(ctx, b, ref, nil); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: Log(%q) error = %v, want fs.ErrNotExist", repo, ref, err)
			}
		}
		if _, err := Open(ctx, b, "tag.deleted", nil); err == nil || !strings.Contains(err.Error(), "deleted") {
			t.Errorf("%s: Open(tag.deleted) error = %v, want it to say the tag was deleted", repo, err)
		}
		for _, ref := range []string{"branch.", "tags.x", "main", "nxh3m0hj7eej0699dpp0", "branch.a/../b"} {
			if _, err := Open(ctx, b, ref, nil); err == nil {
				t.Errorf("%s: Open(%q) succeeded, want an error", repo, ref)
			}
		}
		tr, err := Open(ctx, b, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{
			"group1/big_chunks/c/2/0", "group1/big_chunks/c/0", "group1/big_chunks/c/0/0/0", "group1/big_chunks/c/00/1",
			"group1/big_chunks/c/+0/1", "group1/big_chunks/d/0/1", "group1/small_chunks/c/5", "group1/nope",
			"group1/nope/zarr.json", "group2", "nope", "group1/big_chunks/c/4294967296/0",
		} {
			wantErr := fs.ErrNotExist
			if name == "group1/big_chunks/c/0" {
				// A chunk directory: it exists, but is no file.
				if _, err := tr.OpenBlob(ctx, name); !errors.Is(err, driver.ErrIsDir) {
					t.Errorf("%s: OpenBlob(%s) error = %v, want ErrIsDir", repo, name, err)
				}
				continue
			}
			if _, err := tr.Stat(ctx, name); !errors.Is(err, wantErr) {
				t.Errorf("%s: Stat(%s) error = %v, want %v", repo, name, err, wantErr)
			}
			if _, err := tr.OpenBlob(ctx, name); !errors.Is(err, wantErr) {
				t.Errorf("%s: OpenBlob(%s) error = %v, want %v", repo, name, err, wantErr)
			}
		}
		for _, name := range []string{"/zarr.json", "group1/", "a//b", "../x"} {
			if _, err := tr.Stat(ctx, name); !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("%s: Stat(%q) error = %v, want fs.ErrInvalid", repo, name, err)
			}
		}
		if _, err := tr.ReadDir(ctx, "zarr.json"); !errors.Is(err, driver.ErrNotDir) {
			t.Errorf("%s: ReadDir(zarr.json) error = %v, want ErrNotDir", repo, err)
		}
		tr.Close()
		if _, err := tr.Stat(ctx, "."); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("%s: Stat after Close error = %v, want fs.ErrClosed", repo, err)
		}
	}
}

// TestListDir checks the listings the read-back test of Icechunk asserts.
func TestListDir(t *testing.T) {
	ctx := context.Background()
	want := map[string][]string{
		".":                                 {"group1", "group2", "zarr.json"},
		"group1":                            {"big_chunks", "small_chunks", "zarr.json"},
		"group2":                            {"group3", "zarr.json"},
		"group2/group3":                     {"group4", "zarr.json"},
		"group2/group3/group4":              {"group5", "zarr.json"},
		"group2/group3/group4/group5":       {"inner", "zarr.json"},
		"group2/group3/group4/group5/inner": {"zarr.json"}, // no manifests: no c/
		"group1/big_chunks":                 {"c", "zarr.json"},
		"group1/big_chunks/c":               {"0", "1"},
		"group1/big_chunks/c/1":             {"0", "1"},
		"group1/small_chunks/c":             {"0", "1", "2", "3"},
	}
	for _, repo := range repos {
		tr, err := Open(ctx, base(t, repo), "branch.my-branch", nil)
		if err != nil {
			t.Fatal(err)
		}
		for dir, names := range want {
			ents, err := tr.ReadDir(ctx, dir)
			var got []string
			for _, e := range ents {
				got = append(got, e.Name())
			}
			if err != nil || !slices.Equal(got, names) {
				t.Errorf("%s: ReadDir(%s) = %q, %v, want %q", repo, dir, got, err, names)
			}
		}
		tr.Close()
	}
}

// TestVirtual reads the virtual chunk through a resolver that serves the
// bytes of c/0/1 at its URL, as Icechunk's own read-back test does.
func TestVirtual(t *testing.T) {
	ctx := context.Background()
	for _, repo := range repos {
		b := base(t, repo)
		plain, err := Open(ctx, b, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := readBlob(t, plain, "group1/big_chunks/c/0/1")
		if err != nil {
			t.Fatal(err)
		}
		plain.Close()
		var asked []VirtualChunk
		resolve := func(ctx context.Context, c VirtualChunk) (driver.Blob, error) {
			asked = append(asked, c)
			if c.URL != virtualURL {
				return nil, fs.ErrPermission
			}
			return driver.BytesBlob(stored[c.Offset:c.Offset+c.Length], nil), nil
		}
		for _, o := range []*Options{
			{Resolve: resolve},
			{Resolve: resolve, VirtualPrefixes: []string{"s3://testbucket"}},
			{Resolve: resolve, VirtualPrefixes: []string{"s3://testbucket/can_read_old/"}},
		} {
			asked = nil
			tr, err := Open(ctx, b, "", o)
			if err != nil {
				t.Fatal(err)
			}
			data, err := readBlob(t, tr, "group1/big_chunks/c/0/0")
			if err != nil {
				t.Errorf("%s: read virtual chunk with %+v: %v", repo, o.VirtualPrefixes, err)
			} else {
				checkBigChunk(t, "group1/big_chunks/c/0/0", data)
			}
			if len(asked) != 1 || asked[0].LastModified.Unix() != 4294111232 || asked[0].ETag != "" {
				t.Errorf("%s: resolver saw %+v, want one chunk with last-modified 4294111232", repo, asked)
			}
			tr.Close()
		}
		for _, prefixes := range [][]string{{"s3://testbucke"}, {"s3://other/"}, {"gs://testbucket/"}} {
			tr, err := Open(ctx, b, "", &Options{Resolve: resolve, VirtualPrefixes: prefixes})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := readBlob(t, tr, "group1/big_chunks/c/0/0"); !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), virtualURL) {
				t.Errorf("%s: with prefixes %q, read error = %v, want a permission error naming the URL", repo, prefixes, err)
			}
			tr.Close()
		}
	}
}

// TestTreeFS runs testing/fstest.TestFS on every ref of every fixture,
// reading the Tree directly (virtual chunks resolved as in TestVirtual).
func TestTreeFS(t *testing.T) {
	ctx := context.Background()
	for _, repo := range repos {
		b := base(t, repo)
		o := &Options{Resolve: func(ctx context.Context, c VirtualChunk) (driver.Blob, error) {
			return driver.BytesBlob(make([]byte, c.Length), nil), nil
		}}
		for _, rc := range refCases(repo) {
			tr, err := Open(ctx, b, rc.ref, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := stdfstest.TestFS(fstest.TreeFS(tr), rc.keys...); err != nil {
				t.Errorf("%s %q: %v", repo, rc.ref, err)
			}
			tr.Close()
		}
	}
}

func TestLegacy(t *testing.T) {
	ctx := context.Background()
	for _, repo := range []string{"single_array.icechunk", "hierarchy.icechunk", "virtual_ref.icechunk"} {
		b := base(t, "legacy-0.1-msgpack/"+repo)
		for _, ref := range []string{"", "branch.main", "tag.tag1", "K85ER2WWGSGYGXW0GJC0"} {
			_, err := Open(ctx, b, ref, nil)
			if ref == "tag.tag1" && repo != "single_array.icechunk" || ref == "K85ER2WWGSGYGXW0GJC0" && repo != "single_array.icechunk" {
				if err == nil {
					t.Errorf("%s: Open(%q) succeeded", repo, ref)
				}
				continue
			}
			if !errors.Is(err, ErrLegacyFormat) || !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "pre-1.0") {
				t.Errorf("%s: Open(%q) error = %v, want ErrLegacyFormat", repo, ref, err)
			}
		}
		if _, err := Log(ctx, b, "", nil); !errors.Is(err, ErrLegacyFormat) {
			t.Errorf("%s: Log error = %v, want ErrLegacyFormat", repo, err)
		}
	}
}

func TestMatchDir(t *testing.T) {
	ctx := context.Background()
	for name, want := range map[string]bool{
		"test-repo-v1": true, "test-repo-v2": true, "test-repo-v2-migrated": true,
		"legacy-0.1-msgpack/single_array.icechunk": true, // detected, then refused with a clear error
		"legacy-0.1-msgpack":                       false,
		"test-repo-v1/refs":                        false,
	} {
		got, err := MatchDir(ctx, base(t, name))
		if got != want || err != nil {
			t.Errorf("MatchDir(%s) = %v, %v, want %v", name, got, err, want)
		}
	}
}

func TestCrockford(t *testing.T) {
	b := []byte{0x0b, 0x1c, 0xc8, 0xd6, 0x78, 0x75, 0x80, 0xf0, 0xe3, 0x3a, 0x65, 0x34}
	var id id12
	copy(id[:], b)
	if got := id.String(); got != "1CECHNKREP0F1RSTCMT0" {
		t.Errorf("id.String() = %s, want 1CECHNKREP0F1RSTCMT0", got)
	}
	for s, ok := range map[string]bool{
		"1CECHNKREP0F1RSTCMT0": true, "NXH3M0HJ7EEJ0699DPP0": true,
		"1CECHNKREP0F1RSTCMT1": false, // a non-zero padding bit: not canonical
		"1CECHNKREP0F1RSTCMTU": false, "1cechnkrep0f1rstcmt0": false, "1CECHNKREP0F1RSTCMT": false,
	} {
		if _, got := parseID12(s); got != ok {
			t.Errorf("parseID12(%q) ok = %v, want %v", s, got, ok)
		}
	}
}
