package vfs

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// TestSectionShortParent checks that a section whose parent ends early is
// reported as corrupt however much the reader asks for, not as a normal
// end of file.
func TestSectionShortParent(t *testing.T) {
	ctx := context.Background()
	parent := driver.BytesBlob([]byte("01234"), nil)
	s := driver.SectionBlob(parent, 0, 10, &driver.FileInfo{FName: "s", FSize: 10})
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
	file := driver.BytesBlob([]byte("outer[inner]secret"), nil)
	inner := driver.SectionBlob(file, 6, 5, &driver.FileInfo{FName: "inner", FSize: 5})
	member := driver.SectionBlob(inner, 2, 8, &driver.FileInfo{FName: "member", FSize: 8})
	p := make([]byte, 8)
	n, err := member.ReadAt(ctx, p, 0)
	if string(p[:n]) != "ner" || !errors.Is(err, ErrCorrupt) {
		t.Errorf("ReadAt = %q, %v; want \"ner\", ErrCorrupt", p[:n], err)
	}
	past := driver.SectionBlob(inner, 7, 1, &driver.FileInfo{FName: "past", FSize: 1})
	if n, err := past.ReadAt(ctx, p[:1], 0); n != 0 || err == nil || err == io.EOF {
		t.Errorf("ReadAt of a section past its parent = %d, %v; want 0 and an error", n, err)
	}
	if err := driver.Prefetch(ctx, member, 0, 8); err != nil {
		t.Errorf("Prefetch = %v", err)
	}
}
