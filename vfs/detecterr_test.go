package vfs_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
)

// TestDetectedStageError: an error in a sub-URL that format detection
// appended says that it was detected and names the pipeline read, which
// holds it, since the pipeline opened does not; errors.Is still sees the
// cause. An error in a sub-URL written in the pipeline says neither.
func TestDetectedStageError(t *testing.T) {
	ctx := context.Background()
	bad := gzipOf(t, []byte("hello\n"))
	bad[3] = 0xe0 // reserved flag bits, which the gzip adapter refuses
	prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": fstest.ZipBytes(map[string][]byte{"bad.gz": bad}, 0)})
	member := vfs.MustParse("memory:/" + prefix + "/a.zip|zip:bad.gz").String()

	var se *vfs.StageError
	want := `: sub-URL 2 "gzip:" (detected, in ` + member + `|gzip:): `
	_, _, err := vfs.OpenDetect(ctx, member, nil)
	if !errors.Is(err, vfs.ErrCorrupt) || !errors.As(err, &se) || se.Index != 2 || !se.Detected || !strings.Contains(err.Error(), want) {
		t.Errorf("OpenDetect of a corrupt gzip member = %v; want ErrCorrupt at sub-URL 2, detected, the message holding %q", err, want)
	}
	_, err = vfs.OpenFS(ctx, member, nil)
	if !errors.Is(err, vfs.ErrCorrupt) || !errors.As(err, &se) || !se.Detected || !strings.Contains(err.Error(), want) {
		t.Errorf("OpenFS of a corrupt gzip member = %v; want ErrCorrupt, detected, the message holding %q", err, want)
	}

	_, err = vfs.Open(ctx, member+"|gzip:", nil)
	if !errors.Is(err, vfs.ErrCorrupt) || !errors.As(err, &se) || se.Index != 2 || se.Detected || strings.Contains(err.Error(), "detected") {
		t.Errorf("OpenFile of a corrupt gzip member, gzip: written = %v; want ErrCorrupt at sub-URL 2, not detected", err)
	}
}

// TestDetectedStageErrorRead: a read that fails in a sub-URL that format
// detection appended, after the open, says so too.
func TestDetectedStageErrorRead(t *testing.T) {
	body := strings.Repeat("the member's bytes\n", 100)
	data := fstest.ZipBytes(map[string][]byte{"m.txt": []byte(body)}, 0)
	// Stored: change a byte of the data, so that its CRC-32 is wrong.
	data = bytes.Replace(data, []byte("member's"), []byte("member_s"), 1)
	prefix := fstest.MapFiles(t, map[string][]byte{"a.zip": data})
	zipFile := vfs.MustParse("memory:/" + prefix + "/a.zip").String()

	fsys, err := vfs.OpenFS(context.Background(), zipFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	_, err = fsys.ReadFile("m.txt")
	var se *vfs.StageError
	want := `sub-URL 1 "zip:m.txt" (detected, in ` + zipFile + `|zip:m.txt): `
	if !errors.Is(err, vfs.ErrCorrupt) || !errors.As(err, &se) || !se.Detected || !strings.Contains(err.Error(), want) {
		t.Errorf("ReadFile of a corrupt member of a detected zip = %v; want ErrCorrupt, detected, the message holding %q", err, want)
	}
}
