package complete

import (
	"slices"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

// TestCompleteByRegistration checks that completion reads from the
// registry what it offers: the adapter a name's extension suggests, the
// layers a stream's output is detected as, the next adapter after a
// stream, the roots and how each begins, and the versions of a store,
// by its refs when it has them.
func TestCompleteByRegistration(t *testing.T) {
	files := memroot.NewStore()
	for name, data := range map[string]string{
		"d/a.toy":          "TOY archive",
		"d/b.toy":          "no magic",
		"d/c.unz":          "UNZTOY archive, compressed",
		"d/plain.txt":      "text",
		"d/repo.store/k/x": "x",
	} {
		if err := files.WriteFile(name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	c := &Completer{Options: &vfs.Options{Registry: fstest.ToyRegistry(files)}}
	for _, tc := range []struct {
		text string
		want []string
	}{
		// An archive's extension offers it beside the file; a stream's
		// does not, nor does a directory's.
		{"memory:/d/", []string{"memory:/d/a.toy", "memory:/d/a.toy|pipefs.toy:", "memory:/d/b.toy", "memory:/d/b.toy|pipefs.toy:",
			"memory:/d/c.unz", "memory:/d/plain.txt", "memory:/d/repo.store/"}},
		// Detection first; the extension when nothing is detected.
		{"memory:/d/a.toy|", []string{"memory:/d/a.toy|pipefs.toy:"}},
		{"memory:/d/b.toy|", []string{"memory:/d/b.toy|pipefs.toy:"}},
		{"memory:/d/repo.store/|", []string{"memory:/d/repo.store/|pipefs.store:"}},
		// A stream's output is detected again, and a stream takes no path.
		{"memory:/d/c.unz|", []string{"memory:/d/c.unz|pipefs.unz:", "memory:/d/c.unz|pipefs.unz:|pipefs.toy:"}},
		{"memory:/d/c.unz|pipefs.unz:", []string{"memory:/d/c.unz|pipefs.unz:|pipefs.toy:"}},
		{"memory:/d/c.unz|pipefs.unz:|pipefs.toy:", []string{"memory:/d/c.unz|pipefs.unz:|pipefs.toy:inside.txt"}},
		// With nothing detected and no extension, every adapter that
		// reads the kind.
		{"memory:/d/plain.txt|", []string{"memory:/d/plain.txt|pipefs.toy:", "memory:/d/plain.txt|pipefs.unz:"}},
		{"memory:/d/|", []string{"memory:/d/|pipefs.refstore:", "memory:/d/|pipefs.store:"}},
		// The roots, as each begins, a vendor root among them.
		{"pipefs", []string{"pipefs.vroot:"}},
		{"pipefs.vroot:/d/a", []string{"pipefs.vroot:/d/a.toy", "pipefs.vroot:/d/a.toy|pipefs.toy:"}},
		// Versions, written as the scheme writes a version; names
		// rather than IDs for a store that has them.
		{"memory:/d/repo.store/|pipefs.store://", []string{
			"memory:/d/repo.store/|pipefs.store://v1/", "memory:/d/repo.store/|pipefs.store://v2/", "memory:/d/repo.store/|pipefs.store://v%203/"}},
		{"memory:/d/repo.store/|pipefs.store://v2", []string{"memory:/d/repo.store/|pipefs.store://v2/"}},
		{"memory:/d/repo.store/|pipefs.refstore://", []string{
			"memory:/d/repo.store/|pipefs.refstore://branch.main/", "memory:/d/repo.store/|pipefs.refstore://tag.a%7Cb/"}},
		{"memory:/d/repo.store/|pipefs.store://v1/", []string{"memory:/d/repo.store/|pipefs.store://v1/k/"}},
		// A store that is no versioned one has no versions to offer.
		{"memory:/d/|pipefs.toy://", nil},
	} {
		got, err := c.Complete(t.Context(), tc.text)
		if err != nil && tc.want != nil {
			t.Errorf("complete %q: %v", tc.text, err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("complete %q:\ngot  %q\nwant %q", tc.text, got, tc.want)
		}
	}
	if got, _ := c.Complete(t.Context(), ""); slices.Contains(got, "pipefs.toy:") {
		t.Errorf("an adapter offered as a root: %q", got)
	}
}
