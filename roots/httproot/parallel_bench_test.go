package httproot_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
)

// BenchmarkSequential64MiB reads a plain 64 MiB object with io.Copy, as
// pipefs cat does, from a server shaped like an object store (20 ms to
// the first byte, 25 MB/s per response) and from an uncapped one, with 1
// to 16 parts in flight (cache.Config.Streams) of 1 to 8 MiB
// (PartSize); the readahead holds all the parts. It reports MB/s, the
// requests of a read and the most the server answered at once.
//
//	go test ./roots/httproot -run '^$' -bench Sequential64MiB -benchtime 2x
func BenchmarkSequential64MiB(b *testing.B) {
	const size = 64 << 20
	data := fstest.RandomBytes(size, 7)
	for _, shape := range []struct {
		name    string
		latency time.Duration
		rate    int64
	}{{"20ms-25MBps", 20 * time.Millisecond, 25e6}, {"uncapped", 0, 0}} {
		for _, part := range []int64{1 << 20, 2 << 20, 4 << 20, 8 << 20} {
			for _, streams := range []int{1, 2, 4, 8, 16} {
				name := fmt.Sprintf("%s/part=%dMiB/streams=%d", shape.name, part>>20, streams)
				b.Run(name, func(b *testing.B) {
					srv := fstest.NewHTTPServer(b, map[string][]byte{"obj": data})
					srv.SetLatency(shape.latency)
					srv.SetRate(shape.rate)
					b.SetBytes(size)
					srv.Reset()
					i := 0
					for b.Loop() {
						i++
						o := &httproot.Options{}
						o.Remote.Cache = cache.New(cache.Config{Streams: streams, PartSize: part, MaxReadahead: max(16<<20, int64(streams)*part)})
						f, err := vfs.Open(context.Background(), fmt.Sprintf("%s/obj?i=%d", srv.URL(), i),
							&vfs.Options{Schemes: map[string]any{"http": o}})
						if err != nil {
							b.Fatal(err)
						}
						if n, err := io.Copy(io.Discard, f); err != nil || n != size {
							b.Fatalf("read %d bytes, %v; want %d", n, err, size)
						}
						f.Close()
					}
					b.ReportMetric(float64(srv.Requests())/float64(i), "requests/op")
					b.ReportMetric(float64(srv.Peak()), "peak-in-flight")
				})
			}
		}
	}
}
