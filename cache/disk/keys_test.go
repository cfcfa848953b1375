package disk

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestKeys(t *testing.T) {
	s := open(t, 0)
	if k := s.Keys(); len(k) != 0 {
		t.Fatalf("Keys of an empty store = %q", k)
	}
	for _, k := range []string{"b", "a\x00x", "c"} {
		if err := s.Put(k, []byte("data "+k)); err != nil {
			t.Fatal(err)
		}
	}
	// A file that is not an entry, and a truncated one, are left out.
	if err := os.WriteFile(filepath.Join(s.Dir(), "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), "0"+suffix), []byte(magic), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := s.Keys(), []string{"a\x00x", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("Keys = %q, want %q", got, want)
	}
}
