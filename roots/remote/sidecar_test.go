package remote

import (
	"context"
	"testing"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/vfs/driver"
)

// putFake is a fake whose store can write: it keeps what Put writes.
type putFake struct {
	*fake
	puts map[string][]byte
}

func (p *putFake) Put(ctx context.Context, name string, data []byte) error {
	p.requests.Add(1)
	p.puts[name] = data
	return nil
}

// TestSidecarsNeedPutter: only the blobs of a backend that can write
// objects keep sidecars, so a pipeline over a plain HTTP server has no
// place for them (and keeps its indexes on disk alone).
func TestSidecarsNeedPutter(t *testing.T) {
	ctx := context.Background()
	f := &fake{data: data(1000), version: `"v"`}
	b, err := NewTree(f, nil, Options{Cache: cache.New(cache.Config{})}).OpenBlob(ctx, "obj")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.(driver.Sidecars); ok {
		t.Error("the blob of a backend that cannot write keeps sidecars")
	}
	p := &putFake{fake: f, puts: map[string][]byte{}}
	tr := NewTree(p, nil, Options{Cache: cache.New(cache.Config{})})
	b, err = tr.OpenBlob(ctx, "obj")
	if err != nil {
		t.Fatal(err)
	}
	s, ok := b.(driver.Sidecars)
	if !ok {
		t.Fatal("the blob of a Putter keeps no sidecars")
	}
	if err := s.WriteSidecar(ctx, ".pipefs/x", []byte("index")); err != nil || string(p.puts["obj.pipefs/x"]) != "index" {
		t.Fatalf("WriteSidecar: %v, wrote %q", err, p.puts)
	}
	if got := tr.Stats().Requests; got != 2 {
		t.Errorf("%d requests counted, want 2 (the open, the write)", got)
	}
	if _, ok := b.(driver.Fingerprinter); !ok {
		t.Error("the blob that keeps sidecars lost its Fingerprint")
	}
}
