package fstest

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

// ErrInjected is the I/O error that FaultBlob returns.
var ErrInjected = errors.New("fstest: injected I/O error (a bad sector)")

// FaultBlob returns b with a bad sector at byte at: every read that covers
// it returns the bytes before it and ErrInjected.
func FaultBlob(b driver.Blob, at int64) driver.Blob { return faultBlob{b, at} }

type faultBlob struct {
	driver.Blob
	at int64
}

func (b faultBlob) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off > b.at || off+int64(len(p)) <= b.at {
		return b.Blob.ReadAt(ctx, p, off)
	}
	n, _ := b.Blob.ReadAt(ctx, p[:b.at-off], off)
	return n, ErrInjected
}

// CheckInputErrors checks that a decoding adapter classifies errors at
// their source: open turns src into the adapter's output, as its OpenFile
// does. Read through to its end, data must decode cleanly; with a bad
// sector at each offset of faults, the error must match ErrInjected and
// not driver.ErrCorrupt; with a context cancelled before open, and before
// a read of an opened output, it must match context.Canceled and not
// driver.ErrCorrupt.
func CheckInputErrors(t *testing.T, data []byte, faults []int64, open func(ctx context.Context, src driver.Blob) (driver.Blob, error)) {
	t.Helper()
	through := func(ctx context.Context, src driver.Blob) error {
		out, err := open(ctx, src)
		if err != nil {
			return err
		}
		buf := make([]byte, 64<<10)
		for off := int64(0); ; off += int64(len(buf)) {
			if _, err := out.ReadAt(ctx, buf, off); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
		}
	}
	if err := through(context.Background(), driver.BytesBlob(data, nil)); err != nil {
		t.Fatalf("reading the input whole: %v", err)
	}
	for _, at := range faults {
		err := through(context.Background(), FaultBlob(driver.BytesBlob(data, nil), at))
		if !errors.Is(err, ErrInjected) || errors.Is(err, driver.ErrCorrupt) {
			t.Errorf("fault at %d of %d: %v; want ErrInjected, not ErrCorrupt", at, len(data), err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := through(ctx, driver.BytesBlob(data, nil)); !errors.Is(err, context.Canceled) || errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("cancelled: %v; want context.Canceled, not ErrCorrupt", err)
	}
	out, err := open(context.Background(), driver.BytesBlob(data, nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.ReadAt(ctx, make([]byte, 100), 1000); !errors.Is(err, context.Canceled) || errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("read cancelled: %v; want context.Canceled, not ErrCorrupt", err)
	}
}
