package icechunkadapter

import (
	"context"
	"slices"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// TestChunkKeyEncodings serves the chunks of the fixtures' arrays under
// every chunk_key_encoding Zarr v3 defines, by swapping the metadata of
// the opened snapshot.
func TestChunkKeyEncodings(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		enc        string
		big, small []string // the keys below each array's directory, listed recursively
	}{
		{`{"name":"default"}`, []string{"c/0/0", "c/0/1", "c/1/0", "c/1/1"}, []string{"c/0", "c/1", "c/2", "c/3", "c/4"}},
		{`{"name":"default","configuration":{"separator":"/"}}`, []string{"c/0/0", "c/0/1", "c/1/0", "c/1/1"}, []string{"c/0", "c/1", "c/2", "c/3", "c/4"}},
		{`{"name":"default","configuration":{"separator":"."}}`, []string{"c.0.0", "c.0.1", "c.1.0", "c.1.1"}, []string{"c.0", "c.1", "c.2", "c.3", "c.4"}},
		{`{"name":"v2"}`, []string{"0.0", "0.1", "1.0", "1.1"}, []string{"0", "1", "2", "3", "4"}},
		{`{"name":"v2","configuration":{"separator":"/"}}`, []string{"0/0", "0/1", "1/0", "1/1"}, []string{"0", "1", "2", "3", "4"}},
		{`{"name":"unknown"}`, []string{"c/0/0", "c/0/1", "c/1/0", "c/1/1"}, []string{"c/0", "c/1", "c/2", "c/3", "c/4"}},
	}
	for _, tc := range cases {
		tr, err := Open(ctx, base(t, "test-repo-v2"), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range tr.snap.nodes {
			if n.array {
				n.userData = []byte(`{"zarr_format":3,"node_type":"array","chunk_key_encoding":` + tc.enc + `}`)
			}
		}
		for arr, want := range map[string][]string{"group1/big_chunks": tc.big, "group1/small_chunks": tc.small} {
			var got []string
			for _, k := range keys(t, fstest.TreeFS(tr)) {
				if rest, ok := cutDir(k, arr); ok && rest != "zarr.json" {
					got = append(got, rest)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: keys of %s = %q, want %q", tc.enc, arr, got, want)
			}
			for _, k := range want {
				if k == tc.big[0] && arr == "group1/big_chunks" {
					continue // virtual
				}
				if data, err := readBlob(t, tr, arr+"/"+k); err != nil || len(data) == 0 {
					t.Errorf("%s: read %s/%s = %d bytes, %v", tc.enc, arr, k, len(data), err)
				}
			}
		}
		tr.Close()
	}
}

func cutDir(name, dir string) (string, bool) {
	if len(name) > len(dir) && name[:len(dir)] == dir && name[len(dir)] == '/' {
		return name[len(dir)+1:], true
	}
	return "", false
}
