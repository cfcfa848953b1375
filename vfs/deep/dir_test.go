package deep_test

import (
	"slices"
	"testing"

	"github.com/pipefs/pipefs/vfs/deep"
)

// Walker.Dir gives the entries of a directory in order, the containers
// among them opened, and Close closes what was opened ahead and not
// taken; without depth it opens none.
func TestWalkerDir(t *testing.T) {
	_, fsys := serve(t, map[string][]byte{"outer.zip": outerZip(t)}, "outer.zip")
	ents, err := fsys.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		depth int
		want  []string
	}{
		{0, []string{"lib", "note.txt.gz [gzip]", "pack.tar.gz [gzip|tar]", "plain.txt"}},
		{-1, []string{"lib", "note.txt.gz", "pack.tar.gz", "plain.txt"}},
	} {
		w := deep.NewWalker(&deep.Options{Depth: tc.depth})
		if w.Deep() != (tc.depth >= 0) {
			t.Errorf("depth %d: Deep() = %v", tc.depth, w.Deep())
		}
		d := w.Dir(fsys, ".", ents, 0, false)
		if d.Len() != len(ents) {
			t.Errorf("depth %d: Len() = %d, want %d", tc.depth, d.Len(), len(ents))
		}
		var got []string
		for {
			e, err := d.Next()
			if e == nil {
				break
			}
			if err != nil {
				t.Errorf("depth %d: %s: %v", tc.depth, e.Name, err)
			}
			row := e.Name
			if e.IsContainer() {
				row += " [" + e.Format + "]"
				if e.Nested.Pipeline().String() != fsys.URL(e.Name)+"|"+map[string]string{"gzip": "gzip:", "gzip|tar": "gzip:|pipefs.tar:"}[e.Format] {
					t.Errorf("depth %d: %s opened as %s", tc.depth, e.Name, e.Nested.Pipeline())
				}
				e.Nested.Close()
			}
			got = append(got, row)
		}
		d.Close()
		if !slices.Equal(got, tc.want) {
			t.Errorf("depth %d: %q, want %q", tc.depth, got, tc.want)
		}
	}
	// A Dir closed before its entries are taken waits for the opens it
	// started and closes them.
	d := deep.NewWalker(nil).Dir(fsys, ".", ents, 0, false)
	if e, _ := d.Next(); e == nil || e.Name != "lib" {
		t.Fatalf("first entry: %v", e)
	}
	d.Close()
	if e, err := fsys.ReadDir("lib"); err != nil || len(e) != 1 {
		t.Errorf("the FS after a Dir closed part way: %v, %v", e, err)
	}
}
