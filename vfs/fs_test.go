package vfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"runtime"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// lyingBlob claims size bytes and serves n zero bytes (n < 0: endless).
type lyingBlob struct{ size, n int64 }

func (b lyingBlob) Stat() fs.FileInfo { return &driver.FileInfo{FName: "lie", FSize: b.size} }

func (b lyingBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if b.n < 0 {
		clear(p)
		return len(p), nil
	}
	if off >= b.n {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), b.n-off))
	clear(p[:n])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadAllLyingSize checks that readAll allocates in proportion to
// what it reads, whatever size the blob claims, and fails on a blob that
// serves more or less than its size.
func TestReadAllLyingSize(t *testing.T) {
	ctx := context.Background()
	const limit = 256 << 20
	tests := []struct {
		name string
		b    lyingBlob
		is   error
	}{
		{"claims 200 MiB, holds 10 bytes", lyingBlob{200 << 20, 10}, ErrCorrupt},
		{"claims 10 bytes, endless", lyingBlob{10, -1}, ErrCorrupt},
		{"claims a negative size", lyingBlob{-10, 10}, ErrCorrupt},
		{"honest", lyingBlob{3 << 20, 3 << 20}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var data []byte
			var err error
			n := allocated(func() {
				defer func() {
					if p := recover(); p != nil {
						err = errors.New("panic")
					}
				}()
				data, err = readAll(ctx, tc.b, limit)
			})
			if tc.is == nil && (err != nil || int64(len(data)) != tc.b.n) {
				t.Errorf("readAll = %d bytes, %v; want %d bytes", len(data), err, tc.b.n)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("readAll = %d bytes, %v; want %v", len(data), err, tc.is)
			}
			if max := uint64(16 << 20); n > max {
				t.Errorf("readAll allocated %d bytes, want at most %d", n, max)
			}
		})
	}
}
