package httproot_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
)

// A server that ignores Range sends the whole object for every range: the
// body of the open is kept and serves a sequential read, so the object is
// sent once, not once per block.
func TestNonRangingSequentialReadSendsObjectOnce(t *testing.T) {
	data := make([]byte, 8<<20)
	r := rand.New(rand.NewPCG(7, 8))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	srv := fstest.NewHTTPServer(t, map[string][]byte{"big.bin": data})
	srv.Inject(fstest.Fault{Kind: fstest.FaultIgnoreRange, Times: -1})
	o := &httproot.Options{}
	// A budget too small to keep the object whole at open.
	o.Remote.Cache = cache.New(cache.Config{BlockSize: 256 << 10, Budget: 4 << 20, MaxReadahead: 1 << 20})
	f := openFile(t, srv.URL()+"/big.bin", &vfs.Options{Schemes: map[string]any{"http": o}})
	var got bytes.Buffer
	if _, err := io.Copy(&got, f); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatal("wrong bytes")
	}
	// The body of the open serves the whole read.
	if n, sent := srv.Requests(), srv.Bytes(); n != 1 || sent != int64(len(data)) {
		t.Errorf("server saw %d requests, sent %d bytes, for an object of %d; want 1 request, the object once:\n%s", n, sent, len(data), srv.LogString())
	}
}
