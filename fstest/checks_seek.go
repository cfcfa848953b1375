package fstest

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// seekMaxFiles bounds the files the Seek check opens in a big tree.
const seekMaxFiles = 16

// checkSeek checks io.Seeker on every file (a sample of a big tree): each
// whence, rejected negative results that leave the offset alone, Read
// after Seek, Read past the end, and that ReadAt does not move the offset.
func checkSeek(t *testing.T, k *kit) {
	for _, name := range k.sampleFiles(seekMaxFiles) {
		t.Run(name, func(t *testing.T) {
			data := k.c.Files[name]
			f, err := k.fsys.OpenFile(name)
			if err != nil {
				t.Fatalf("OpenFile(%q) error = %v", name, err)
			}
			defer f.Close()
			seekFile(t, f, data)
		})
	}
}

func seekFile(t *testing.T, f *vfs.File, data []byte) {
	t.Helper()
	size := int64(len(data))
	seek := func(off int64, whence int, want int64) bool {
		t.Helper()
		got, err := f.Seek(off, whence)
		if err != nil || got != want {
			t.Errorf("Seek(%d, %s) = %d, %v; want %d, nil", off, whenceName(whence), got, err, want)
			return false
		}
		return true
	}
	// readN reads n bytes (or to EOF) at the current offset and compares
	// them with data[from:].
	readN := func(what string, from int64, n int) {
		t.Helper()
		want := data[min(from, size):min(from+int64(n), size)]
		got := make([]byte, n)
		m, err := io.ReadFull(f, got)
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			err = nil
		}
		if err != nil || !bytes.Equal(got[:m], want) {
			t.Errorf("%s: Read(%d bytes) = %s, %v; want %s", what, n, show(got[:m]), err, show(want))
		}
	}

	seek(0, io.SeekCurrent, 0)
	seek(0, io.SeekEnd, size)
	seek(0, io.SeekCurrent, size)

	// Negative results are rejected and leave the offset where it was.
	for _, bad := range []struct {
		off    int64
		whence int
	}{{-1, io.SeekStart}, {-size - 1, io.SeekEnd}, {-size - 1, io.SeekCurrent}, {0, 3}, {0, -1}} {
		if got, err := f.Seek(bad.off, bad.whence); err == nil {
			t.Errorf("Seek(%d, %s) = %d, nil; want an error", bad.off, whenceName(bad.whence), got)
		}
		seek(0, io.SeekCurrent, size)
	}

	offs := []int64{0, min(1, size), size / 3, size / 2, max(size-1, 0), size}
	slices.Sort(offs)
	offs = slices.Compact(offs)
	for _, off := range offs {
		if seek(off, io.SeekStart, off) {
			readN(fmt.Sprintf("after Seek(%d, io.SeekStart)", off), off, int(size-off)+1)
		}
		if seek(off-size, io.SeekEnd, off) {
			readN(fmt.Sprintf("after Seek(%d, io.SeekEnd)", off-size), off, 7)
		}
	}
	if size >= 4 {
		seek(1, io.SeekStart, 1)
		readN("after Seek(1, io.SeekStart)", 1, 1) // now at 2
		seek(1, io.SeekCurrent, 3)
		readN("after Seek(1, io.SeekCurrent)", 3, 1) // now at 4
		seek(-3, io.SeekCurrent, 1)
		readN("after Seek(-3, io.SeekCurrent)", 1, 2)
	}

	// ReadAt does not move the offset.
	if seek(size/2, io.SeekStart, size/2) {
		f.ReadAt(make([]byte, 3), 0)
		seek(0, io.SeekCurrent, size/2)
		readN("after ReadAt", size/2, 5)
	}

	// Past the end: the Seek succeeds and Read reports io.EOF.
	for _, off := range []int64{size, size + 1, size + 1000} {
		if !seek(off, io.SeekStart, off) {
			continue
		}
		n, err := f.Read(make([]byte, 8))
		if n != 0 || err != io.EOF {
			t.Errorf("after Seek(%d, io.SeekStart): Read(8 bytes) = %d, %v; want 0, io.EOF (size %d)", off, n, err, size)
		}
	}
	// Reading to the end, then once more, gives io.EOF.
	seek(0, io.SeekStart, 0)
	if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, data) {
		t.Errorf("after Seek(0, io.SeekStart): ReadAll = %s, %v; want %s, nil", show(got), err, show(data))
	}
	if n, err := f.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Errorf("Read at the end = %d, %v; want 0, io.EOF", n, err)
	}
}

func whenceName(w int) string {
	switch w {
	case io.SeekStart:
		return "io.SeekStart"
	case io.SeekCurrent:
		return "io.SeekCurrent"
	case io.SeekEnd:
		return "io.SeekEnd"
	}
	return fmt.Sprint(w)
}
