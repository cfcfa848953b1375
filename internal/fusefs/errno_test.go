package fusefs_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/internal/fusefs"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

func TestErrno(t *testing.T) {
	stage := func(err error) error {
		return &fs.PathError{Op: "read", Path: "a.txt", Err: &vfs.StageError{Index: 1, URL: "zip:a.txt", Err: err}}
	}
	for _, tc := range []struct {
		name string
		err  error
		want syscall.Errno
	}{
		{"nil", nil, 0},
		{"canceled", &fs.PathError{Op: "read", Path: "a", Err: context.Canceled}, syscall.EINTR},
		{"deadline", fmt.Errorf("open: %w", context.DeadlineExceeded), syscall.EINTR},
		{"not exist", stage(fs.ErrNotExist), syscall.ENOENT},
		{"permission", stage(fmt.Errorf("403: %w", fs.ErrPermission)), syscall.EACCES},
		{"corrupt", stage(driver.Corruptf("bad deflate data")), syscall.EIO},
		{"modified", stage(vfs.ErrModified), syscall.ESTALE},
		{"is dir", stage(vfs.ErrIsDir), syscall.EISDIR},
		{"not dir", stage(vfs.ErrNotDir), syscall.ENOTDIR},
		{"unsafe path", stage(vfs.ErrUnsafePath), syscall.EACCES},
		{"unsupported", stage(fmt.Errorf("member is encrypted: %w", errors.ErrUnsupported)), syscall.EOPNOTSUPP},
		{"limit", stage(driver.Limitf("file size over Limits.MaxFileSize")), syscall.EIO},
		{"errno", stage(syscall.ENAMETOOLONG), syscall.ENAMETOOLONG},
		{"other", errors.New("something else"), syscall.EIO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fusefs.Errno(tc.err); got != tc.want {
				t.Errorf("Errno(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// TestCorruptMember reads a member whose deflate data is corrupt, twice:
// both reads fail with EIO, and the failure is logged once, with the
// pipeline of the member.
func TestCorruptMember(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("good.txt")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("good"))
	// Block type 3 is reserved: 0xff bytes are not deflate data.
	w, err = zw.CreateRaw(&zip.FileHeader{Name: "bad.txt", Method: zip.Deflate, CRC32: 1, CompressedSize64: 64, UncompressedSize64: 1000})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(bytes.Repeat([]byte{0xff}, 64))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "corrupt.zip")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	mnt, l := mountFile(t, path)
	for range 2 {
		if _, err := os.ReadFile(filepath.Join(mnt, "bad.txt")); !errors.Is(err, syscall.EIO) {
			t.Errorf("reading bad.txt: error = %v, want EIO", err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(mnt, "good.txt")); err != nil || string(got) != "good" {
		t.Errorf("reading good.txt = %q, %v", got, err)
	}
	if l.len() != 1 || !strings.Contains(l.String(), "|zip:bad.txt: ") {
		t.Errorf("the mount logged:\n%s\nwant one line for bad.txt, naming its pipeline", l)
	}
}

// TestStableInodes checks that every name of a mount has its own inode
// number, the same at every stat, and the same in a second mount of the
// same archive.
func TestStableInodes(t *testing.T) {
	files := map[string][]byte{}
	for i := range 300 {
		files[fmt.Sprintf("d%d/e%d/f%03d.txt", i%3, i%7, i)] = fmt.Appendf(nil, "%d", i)
	}
	path := filepath.Join(t.TempDir(), "ino.zip")
	if err := os.WriteFile(path, fstest.ZipBytes(files, zip.Deflate), 0o644); err != nil {
		t.Fatal(err)
	}
	inodes := func(mnt string) map[string]uint64 {
		inos := map[string]uint64{}
		err := filepath.WalkDir(mnt, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := os.Lstat(p)
			if err != nil {
				return err
			}
			inos[p[len(mnt):]] = info.Sys().(*syscall.Stat_t).Ino
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return inos
	}
	mnt1, _ := mountFile(t, path)
	mnt2, _ := mountFile(t, path)
	first, again, other := inodes(mnt1), inodes(mnt1), inodes(mnt2)
	seen := map[uint64]string{}
	for name, ino := range first {
		if prev, dup := seen[ino]; dup {
			t.Errorf("%s and %s have inode %d", prev, name, ino)
		}
		seen[ino] = name
		if again[name] != ino || other[name] != ino {
			t.Errorf("%s: inode %d, then %d, and %d in another mount", name, ino, again[name], other[name])
		}
	}
	if len(first) != len(files)+3+3*7+1 {
		t.Errorf("walked %d names, want %d", len(first), len(files)+3+3*7+1)
	}
}
