package zstdadapter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// text returns n bytes of words, which zstd compresses about 2:1.
func text(n int) []byte {
	r := rand.New(rand.NewPCG(3, 4))
	var b bytes.Buffer
	for b.Len() < n {
		fmt.Fprintf(&b, "%x ", r.IntN(1<<16))
	}
	return b.Bytes()[:n]
}

// bigFrames returns data compressed as one frame that declares its size,
// and as one that does not, both with a content checksum: frames that a
// stream decodes ahead on two cores.
func bigFrames(data []byte) map[string][]byte {
	e, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	var unsized bytes.Buffer
	e.Reset(&unsized)
	e.Write(data)
	e.Close()
	return map[string][]byte{"sized": e.EncodeAll(data, nil), "unsized": unsized.Bytes()}
}

// openBlob opens z as the adapter's blob over src.
func openBlob(ctx context.Context, src driver.Blob) (*blob, error) {
	loc, err := open(ctx, src, vfs.SubURL{}, vfs.NewEnv("memory:/x.zst", "zstd", nil))
	if err != nil {
		return nil, err
	}
	return loc.Blob.(*blob), nil
}

// streamAll reads b from off by Stream, through Read or through WriteTo.
func streamAll(ctx context.Context, b *blob, off int64, how string) ([]byte, error) {
	rc, err := b.Stream(ctx, off)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var out bytes.Buffer
	if how == "Read" {
		_, err = io.Copy(&out, struct{ io.Reader }{rc}) // Read only
	} else {
		_, err = rc.(io.WriterTo).WriteTo(&out)
	}
	return out.Bytes(), err
}

// onCores runs f with GOMAXPROCS set to each of 1 and 2: one core streams
// on the reading goroutine, two decode ahead.
func onCores(t *testing.T, f func(t *testing.T, procs int)) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			f(t, procs)
		})
	}
}

// TestStreamDecodesAhead streams frames of several MiB, which decode
// ahead on two cores: the output is the data, from any offset, through
// Read and through WriteTo; a bad checksum, a damaged block and a cut
// end give an error matching driver.ErrCorrupt and never a clean end;
// a bad sector of the input gives its own error, not ErrCorrupt; a
// cancelled context gives context.Canceled.
func TestStreamDecodesAhead(t *testing.T) {
	data := text(2 << 20)
	onCores(t, func(t *testing.T, procs int) {
		for name, z := range bigFrames(data) {
			for _, how := range []string{"Read", "WriteTo"} {
				t.Run(name+"/"+how, func(t *testing.T) {
					for _, off := range []int64{0, 1<<20 + 1} {
						b, err := openBlob(context.Background(), driver.BytesBlob(z, nil))
						if err != nil {
							t.Fatal(err)
						}
						if n := b.ahead(0, b.frames[0].size); n > 1 != (procs > 1) {
							t.Fatalf("%d blocks in flight on %d cores", n, procs)
						}
						got, err := streamAll(context.Background(), b, off, how)
						if err != nil || !bytes.Equal(got, data[off:]) {
							t.Errorf("Stream(%d): %d bytes, %v; want %d bytes of the data", off, len(got), err, len(data)-int(off))
						}
					}
					n := len(z)
					damaged := map[string][]byte{
						"checksum":     append(bytes.Clone(z[:n-1]), z[n-1]^1),
						"block":        append(bytes.Clone(z[:n/2]), append([]byte{z[n/2] ^ 0x55}, z[n/2+1:]...)...),
						"cut in block": z[:n*2/3],
						"cut checksum": z[:n-2],
					}
					for what, bad := range damaged {
						b, err := openBlob(context.Background(), driver.BytesBlob(bad, nil))
						if err != nil {
							if !errors.Is(err, driver.ErrCorrupt) {
								t.Errorf("%s: open: %v, want driver.ErrCorrupt", what, err)
							}
							continue
						}
						got, err := streamAll(context.Background(), b, 0, how)
						if !errors.Is(err, driver.ErrCorrupt) {
							t.Errorf("%s: streamed %d bytes, %v; want driver.ErrCorrupt", what, len(got), err)
						}
					}
					for _, at := range []int64{100, int64(n / 3), int64(n - 3)} {
						b, err := openBlob(context.Background(), fstest.FaultBlob(driver.BytesBlob(z, nil), at))
						if err != nil {
							if !errors.Is(err, fstest.ErrInjected) {
								t.Errorf("bad sector at %d: open: %v", at, err)
							}
							continue
						}
						got, err := streamAll(context.Background(), b, 0, how)
						if !errors.Is(err, fstest.ErrInjected) || errors.Is(err, driver.ErrCorrupt) {
							t.Errorf("bad sector at %d: streamed %d bytes, %v; want fstest.ErrInjected, not driver.ErrCorrupt", at, len(got), err)
						}
					}
					b, err := openBlob(context.Background(), driver.BytesBlob(z, nil))
					if err != nil {
						t.Fatal(err)
					}
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					rc, err := b.Stream(ctx, 0)
					if err != nil {
						t.Fatal(err)
					}
					w := &cancelWriter{cancel: cancel, after: 1 << 20}
					if how == "Read" {
						_, err = io.Copy(w, struct{ io.Reader }{rc})
					} else {
						_, err = rc.(io.WriterTo).WriteTo(w)
					}
					rc.Close()
					if !errors.Is(err, context.Canceled) || errors.Is(err, driver.ErrCorrupt) || w.n >= int64(len(data)) {
						t.Errorf("cancelled after %d bytes: %d bytes in all, %v; want context.Canceled before the end", w.after, w.n, err)
					}
				})
			}
		}
	})
}

// TestStreamCloseEndsGoroutines: a stream closed in the middle of a frame
// that it decodes ahead leaves no goroutine behind, and neither does one
// read to its end.
func TestStreamCloseEndsGoroutines(t *testing.T) {
	old := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(old)
	z := bigFrames(text(3 << 20))["sized"]
	before := runtime.NumGoroutine()
	for range 3 {
		b, err := openBlob(context.Background(), driver.BytesBlob(z, nil))
		if err != nil {
			t.Fatal(err)
		}
		rc, err := b.Stream(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(rc, make([]byte, 1<<20)); err != nil {
			t.Fatal(err)
		}
		if runtime.NumGoroutine() <= before {
			t.Fatalf("%d goroutines while a frame decodes ahead, %d before: not decoding ahead", runtime.NumGoroutine(), before)
		}
		rc.Close()
		if _, err := streamAll(context.Background(), b, 0, "WriteTo"); err != nil {
			t.Fatal(err)
		}
	}
	// The decoders' goroutines return once Close or the end of the
	// frame has drained them.
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before; runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after the streams ended, %d before", runtime.NumGoroutine(), before)
		}
	}
}

// A cancelWriter counts what it is given and cancels a context once it
// has had after bytes.
type cancelWriter struct {
	cancel context.CancelFunc
	after  int64
	n      int64
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.n >= w.after {
		w.cancel()
	}
	return len(p), nil
}
