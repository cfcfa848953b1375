package remote

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pipefs/pipefs/cache"
)

// The tail kept for an object, in the tree's heads and pinned to its
// blobs, holds no more memory than its own bytes: not the whole body of a
// server that ignored Range, which the object's spool holds.
func TestTailDoesNotKeepWholeBody(t *testing.T) {
	for _, size := range []int{1 << 20, 400 << 10} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			f := &fake{data: data(size), version: "v1", whole: true}
			// A 1 MiB budget keeps whole objects up to 256 KiB in
			// memory: the 400 KiB one is spooled to a file.
			tr := NewTree(f, nil, Options{
				Cache: cache.New(cache.Config{BlockSize: 4096, Budget: 1 << 20}),
				Retry: Retry{MaxAttempts: 4, BaseDelay: time.Microsecond, MaxDelay: time.Millisecond},
			})
			if size == 1<<20 {
				tr.c = cache.New(cache.Config{BlockSize: 4096, Budget: 16 << 20})
			}
			b, err := tr.OpenBlob(context.Background(), "obj")
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			defer b.(*Blob).Close()
			h := tr.heads["obj"]
			// A tail sliced from the end of the body it was read into
			// has the spare capacity of that body; one of its own has
			// (nearly) none.
			if c := cap(h.tail); c > len(h.tail)+len(h.tail)/8 {
				t.Errorf("the %d-byte tail of a %d-byte object is the end of a larger buffer (cap %d)", len(h.tail), size, c)
			}
			if got := readAllAt(t, b); string(got) != string(f.data) {
				t.Error("content differs")
			}
		})
	}
}
