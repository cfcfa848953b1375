package hdf5adapter_test

import (
	"context"
	"testing"

	"github.com/pipefs/pipefs/adapters/hdf5adapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// BenchmarkOpenWalk opens the fixture with dense groups and lists it.
func BenchmarkOpenWalk(b *testing.B) {
	data, err := readFixture(b, "latest_dense.hdf5")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		tr, err := hdf5adapter.Open(ctx, driver.BytesBlob(data, nil), nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tr.ReadDir(ctx, "dense"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadChunked reads a chunked dataset whole, its chunks decoded
// once and then served from the cache.
func BenchmarkReadChunked(b *testing.B) {
	data, err := readFixture(b, "chunk_index_v4.hdf5")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	env := &vfs.Env{Limits: vfs.Limits{}.Effective(), Cache: vfs.NewCache(0), Key: "bench"}
	tr, err := hdf5adapter.Open(ctx, driver.BytesBlob(data, nil), env)
	if err != nil {
		b.Fatal(err)
	}
	blob, err := tr.OpenBlob(ctx, "btree2")
	if err != nil {
		b.Fatal(err)
	}
	p := make([]byte, blob.Stat().Size())
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if _, err := blob.ReadAt(ctx, p, 0); err != nil {
			b.Fatal(err)
		}
	}
}
