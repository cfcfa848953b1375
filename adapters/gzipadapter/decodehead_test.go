package gzipadapter_test

import (
	"bytes"
	stdgzip "compress/gzip"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/pipefs/pipefs/adapters/gzipadapter"
	"github.com/pipefs/pipefs/vfs"
	"github.com/pipefs/pipefs/vfs/driver"
)

// TestDecodeHead decodes the start of a gzip stream from a head cut
// anywhere: what decodes is a prefix of the output, at most n bytes, and
// damage or a head that is no gzip matches driver.ErrCorrupt.
func TestDecodeHead(t *testing.T) {
	// Words in a random order: about 3:1, so that a cut head holds part
	// of the stream.
	rnd := rand.New(rand.NewPCG(1, 2))
	words := []string{"pipefs ", "head ", "gzip ", "stream ", "tar\n", "member ", "0x1f8b "}
	var plain []byte
	for len(plain) < 600<<10 {
		plain = append(plain, words[rnd.IntN(len(words))]...)
	}
	var z bytes.Buffer
	w := stdgzip.NewWriter(&z)
	w.Write(plain)
	w.Close()
	gz := z.Bytes()
	reg := vfs.DefaultRegistry.Adapter("gzip")
	if reg == nil || reg.DecodeHead == nil {
		t.Fatal("the gzip adapter registers no DecodeHead")
	}
	for _, cut := range []int{len(gz), 64 << 10, 4096, 300, 20} {
		for _, n := range []int{1 << 20, 64 << 10, 10} {
			out, err := reg.DecodeHead(gz[:cut], n, vfs.Limits{})
			if err != nil || len(out) > n || !bytes.HasPrefix(plain, out) {
				t.Fatalf("head of %d bytes, n %d: %d bytes, %v; want a prefix of the output", cut, n, len(out), err)
			}
			if cut == len(gz) && len(out) != min(n, len(plain)) {
				t.Errorf("whole stream, n %d: %d bytes", n, len(out))
			}
		}
	}
	bad := bytes.Clone(gz[:4096])
	for i := 100; i < len(bad); i += 7 {
		bad[i] ^= 0x55
	}
	if _, err := gzipadapter.DecodeHead(bad, 1<<20, vfs.Limits{}); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("damaged head: %v, want ErrCorrupt", err)
	}
	if _, err := gzipadapter.DecodeHead([]byte("plain text, no gzip"), 100, vfs.Limits{}); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("no gzip: %v, want ErrCorrupt", err)
	}
}
