package vfs

import (
	"context"
	"errors"
	"testing"
)

// TestSectionShortParent checks that a section whose parent ends early is
// reported as corrupt however much the reader asks for, not as a normal
// end of file.
func TestSectionShortParent(t *testing.T) {
	ctx := context.Background()
	parent := BytesBlob([]byte("01234"), nil)
	s := SectionBlob(parent, 0, 10, &FileInfo{FName: "s", FSize: 10})
	for _, n := range []int{10, 20} {
		p := make([]byte, n)
		got, err := s.ReadAt(ctx, p, 0)
		if got != 5 || !errors.Is(err, ErrCorrupt) {
			t.Errorf("ReadAt(%d bytes, 0) = %d, %v; want 5, ErrCorrupt", n, got, err)
		}
	}
}
