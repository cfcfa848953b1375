package gzipadapter_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/adapters/gzipadapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// failingBlob is a source whose reads fail after the first failAfter
// calls once armed: with the context's error after cancelling it, as a
// root that honours its context does, or with err.
type failingBlob struct {
	driver.Blob
	armed     bool
	calls     int
	failAfter int
	cancel    context.CancelFunc
	err       error
}

func (f *failingBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if f.armed {
		if f.calls++; f.calls > f.failAfter {
			if f.cancel == nil {
				return 0, f.err
			}
			f.cancel()
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return f.Blob.ReadAt(ctx, p, off)
}

var errDisk = errors.New("disk on fire")

// TestErrorsPassThrough stops reads of a multi-member stream and of a
// gzip inside a gzip, by cancelling their context or by an I/O error of
// the source, below and between the two decoders, through ReadAt and
// through Stream: the error is the cause, never driver.ErrCorrupt.
func TestErrorsPassThrough(t *testing.T) {
	// Opening reads the first header: a failing source is not "not a
	// gzip file".
	for _, cause := range []error{errDisk, context.Canceled} {
		f := &failingBlob{Blob: bytesBlob("m.gz", gzipBytes([]byte("x"))), armed: true, err: cause}
		_, err := gzipadapter.Open(context.Background(), f, vfs.SubURL{}, vfs.NewEnv("", "gzip", nil))
		if !errors.Is(err, cause) || errors.Is(err, vfs.ErrCorrupt) {
			t.Errorf("open of a source failing with %v: %v; want it unchanged", cause, err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var flat []byte
	for range 1500 {
		b := make([]byte, 2<<10)
		for i := range b {
			b[i] = byte(rng.IntN(16)) // compressible, not trivially
		}
		flat = append(flat, gzipBytes(b)...)
	}
	nested := gzipBytes(flat)
	want := oracle(t, flat)
	// Empty members: most reads of the source are for headers.
	empties, emptiesNested := manyMembers(100_000, nil)

	bgz, err := os.ReadFile("testdata/bgzf-blocks.gz")
	if err != nil {
		t.Fatal(err)
	}
	type stack struct {
		name string
		// build returns the blob to read, and the failing blob in it,
		// not yet armed.
		build func() (driver.Blob, *failingBlob)
	}
	stacks := []stack{
		{"members", func() (driver.Blob, *failingBlob) {
			f := &failingBlob{Blob: bytesBlob("m.gz", flat)}
			return openBlob(t, f), f
		}},
		{"nested/below", func() (driver.Blob, *failingBlob) {
			f := &failingBlob{Blob: bytesBlob("m.gz.gz", nested)}
			return openBlob(t, openBlob(t, f)), f
		}},
		{"nested/between", func() (driver.Blob, *failingBlob) {
			f := &failingBlob{Blob: openBlob(t, bytesBlob("m.gz.gz", nested))}
			return openBlob(t, f), f
		}},
		{"bgzf", func() (driver.Blob, *failingBlob) {
			f := &failingBlob{Blob: bytesBlob("b.gz", bgz)}
			return openBlob(t, f), f
		}},
		{"empty", func() (driver.Blob, *failingBlob) {
			f := &failingBlob{Blob: bytesBlob("e.gz", empties)}
			return openBlob(t, f), f
		}},
		{"empty/nested/between", func() (driver.Blob, *failingBlob) {
			f := &failingBlob{Blob: openBlob(t, bytesBlob("e.gz.gz", emptiesNested))}
			return openBlob(t, f), f
		}},
	}
	reads := []struct {
		name string
		read func(context.Context, driver.Blob) ([]byte, error)
	}{
		{"ReadAt", readBlob},
		{"Stream", func(ctx context.Context, b driver.Blob) ([]byte, error) {
			rc, err := b.(driver.Streamer).Stream(ctx, 0)
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			return io.ReadAll(rc)
		}},
		{"StreamWriteTo", func(ctx context.Context, b driver.Blob) ([]byte, error) {
			rc, err := b.(driver.Streamer).Stream(ctx, 0)
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			_, err = io.Copy(io.Discard, rc)
			return nil, err
		}},
	}
	// The small BGZF fixture is streamed in one read.
	failAfter := func(stack string) int {
		if stack == "bgzf" {
			return 0
		}
		return 5
	}
	for _, st := range stacks {
		for _, rd := range reads {
			t.Run(st.name+"/"+rd.name+"/ok", func(t *testing.T) {
				b, _ := st.build()
				got, err := rd.read(context.Background(), b)
				if st.name == "bgzf" {
					if want := oracle(t, bgz); err != nil || (got != nil && string(got) != string(want)) {
						t.Fatalf("read %d bytes, %v; want %d bytes", len(got), err, len(want))
					}
					return
				}
				if strings.HasPrefix(st.name, "empty") {
					if err != nil || len(got) != 0 {
						t.Fatalf("read %d bytes, %v; want none", len(got), err)
					}
					return
				}
				if err != nil || (got != nil && string(got) != string(want)) {
					t.Fatalf("read %d bytes, %v; want %d bytes", len(got), err, len(want))
				}
			})
			t.Run(st.name+"/"+rd.name+"/cancel", func(t *testing.T) {
				b, f := st.build()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				f.armed, f.failAfter, f.cancel = true, failAfter(st.name), cancel
				_, err := rd.read(ctx, b)
				if !errors.Is(err, context.Canceled) || errors.Is(err, vfs.ErrCorrupt) {
					t.Fatalf("read cancelled after %d source reads: %v; want context.Canceled, not ErrCorrupt", f.failAfter, err)
				}
			})
			t.Run(st.name+"/"+rd.name+"/ioerror", func(t *testing.T) {
				b, f := st.build()
				f.armed, f.failAfter, f.err = true, failAfter(st.name), errDisk
				_, err := rd.read(context.Background(), b)
				if !errors.Is(err, errDisk) || errors.Is(err, vfs.ErrCorrupt) {
					t.Fatalf("read with a source failing after %d reads: %v; want %v, not ErrCorrupt", f.failAfter, err, errDisk)
				}
			})
		}
	}
}
