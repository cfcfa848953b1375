package blobread

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"
)

func TestReader(t *testing.T) {
	src := driver.BytesBlob([]byte("0123456789"), nil)
	r := &Reader{Ctx: context.Background(), Src: src, Pos: 2, End: 7}
	b, err := io.ReadAll(r)
	if err != nil || string(b) != "23456" {
		t.Errorf("ReadAll of [2, 7) = %q, %v; want %q", b, err, "23456")
	}
	short := &Reader{Ctx: context.Background(), Src: src, Pos: 8, End: 12}
	b, err = io.ReadAll(short)
	if string(b) != "89" || !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("ReadAll past the blob's end = %q, %v; want %q and ErrCorrupt", b, err, "89")
	}
}
