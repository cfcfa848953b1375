package vfs

import (
	"context"
	"errors"
	"io"
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

// TestNestedSectionBounds checks that a section of a section never reads
// the parent's bytes beyond the outer section.
func TestNestedSectionBounds(t *testing.T) {
	ctx := context.Background()
	file := BytesBlob([]byte("outer[inner]secret"), nil)
	inner := SectionBlob(file, 6, 5, &FileInfo{FName: "inner", FSize: 5})
	member := SectionBlob(inner, 2, 8, &FileInfo{FName: "member", FSize: 8})
	p := make([]byte, 8)
	n, err := member.ReadAt(ctx, p, 0)
	if string(p[:n]) != "ner" || !errors.Is(err, ErrCorrupt) {
		t.Errorf("ReadAt = %q, %v; want \"ner\", ErrCorrupt", p[:n], err)
	}
	past := SectionBlob(inner, 7, 1, &FileInfo{FName: "past", FSize: 1})
	if n, err := past.ReadAt(ctx, p[:1], 0); n != 0 || err == nil || err == io.EOF {
		t.Errorf("ReadAt of a section past its parent = %d, %v; want 0 and an error", n, err)
	}
	if err := Prefetch(ctx, member, 0, 8); err != nil {
		t.Errorf("Prefetch = %v", err)
	}
}
