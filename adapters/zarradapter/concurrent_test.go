package zarradapter_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"net/http"
	"testing"
	"time"

	"github.com/pipefs/pipefs/adapters/array"
	"github.com/pipefs/pipefs/cache"
	"github.com/pipefs/pipefs/fstest"
	"github.com/pipefs/pipefs/roots/httproot"
	"github.com/pipefs/pipefs/vfs"
)

// withConcurrency returns a copy of a that reads n chunks at once.
func withConcurrency(a *array.Array, n int) *array.Array {
	c := *a
	c.Concurrency = n
	return &c
}

// boxes returns boxes of shape that cross chunk edges: the whole array,
// one element, and boxes from one to the last element of each axis.
func boxes(shape []int64) [][2][]int64 {
	whole := [2][]int64{make([]int64, len(shape)), shape}
	one := [2][]int64{make([]int64, len(shape)), make([]int64, len(shape))}
	inner := [2][]int64{make([]int64, len(shape)), make([]int64, len(shape))}
	for i, n := range shape {
		one[1][i] = min(n, 1)
		inner[0][i] = min(n, 1)
		inner[1][i] = max(inner[0][i], n-1)
	}
	return [][2][]int64{whole, one, inner}
}

// checkSame reads boxes of a one chunk at a time and with 2, 7 and the
// default number of chunks at once, and fails unless the bytes match.
func checkSame(t *testing.T, name string, a *array.Array) {
	t.Helper()
	ctx := context.Background()
	for _, box := range boxes(a.Shape) {
		want, err := withConcurrency(a, 1).ReadBox(ctx, box[0], box[1], 1<<24)
		if err != nil {
			t.Fatalf("%s: ReadBox(%v, %v) one at a time: %v", name, box[0], box[1], err)
		}
		for _, n := range []int{2, 7, 0} {
			got, err := withConcurrency(a, n).ReadBox(ctx, box[0], box[1], 1<<24)
			if err != nil {
				t.Fatalf("%s: ReadBox(%v, %v) with Concurrency %d: %v", name, box[0], box[1], n, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: ReadBox(%v, %v) with Concurrency %d differs from one at a time", name, box[0], box[1], n)
			}
		}
	}
}

// TestArrayReadConcurrentFixtures reads every fixture array (edge chunks,
// sharded, filled and missing chunks among them) at several concurrencies.
func TestArrayReadConcurrentFixtures(t *testing.T) {
	for scheme, c := range map[string]struct {
		base string
		want map[string]string
	}{
		"zarr2": {"file:" + fixture(t, "zarr2/data.zarr") + "/", zarr2Want},
		"zarr3": {"file:" + fixture(t, "zarr3/data.zarr") + "/", zarr3Want},
	} {
		for name := range c.want {
			p := c.base + "|" + scheme + ":" + name
			a, fsys, err := array.OpenArray(context.Background(), p, "", nil)
			if err != nil {
				t.Fatalf("OpenArray(%s): %v", p, err)
			}
			checkSame(t, p, a)
			fsys.Close()
		}
	}
}

// gridArray returns the files of a Zarr v2 array of int32 of side x side
// elements in chunks of chunk x chunk, raw, fill value -1, every
// element its index, with the chunks at skip left out.
func gridArray(side, chunk int, skip map[[2]int]bool) map[string][]byte {
	files := map[string][]byte{
		"a/.zarray": fmt.Appendf(nil, `{"zarr_format":2,"shape":[%d,%d],"chunks":[%d,%d],"dtype":"<i4",`+
			`"compressor":null,"fill_value":-1,"order":"C","filters":null}`, side, side, chunk, chunk),
	}
	g := (side + chunk - 1) / chunk
	for ci := range g {
		for cj := range g {
			if skip[[2]int{ci, cj}] {
				continue
			}
			b := make([]byte, 0, 4*chunk*chunk)
			for i := range chunk {
				for j := range chunk {
					b = binary.LittleEndian.AppendUint32(b, uint32((ci*chunk+i)*side+cj*chunk+j))
				}
			}
			files[fmt.Sprintf("a/%d.%d", ci, cj)] = b
		}
	}
	return files
}

// remoteOptions gives a test a block cache of its own, so that request
// counts do not depend on other tests.
func remoteOptions() *vfs.Options {
	o := &httproot.Options{}
	o.Remote.Cache = cache.New(cache.Config{})
	return &vfs.Options{Schemes: map[string]any{"http": o}, Cache: vfs.NewCache(0)}
}

// TestArrayReadConcurrentRemote reads a Zarr v2 array of 100 chunks, edge
// chunks cropped and some chunks missing, from an HTTP server, one chunk at
// a time and with the default concurrency, and checks that the reads
// overlap and give the same bytes.
func TestArrayReadConcurrentRemote(t *testing.T) {
	skip := map[[2]int]bool{{0, 1}: true, {4, 4}: true, {9, 9}: true}
	srv := fstest.NewHTTPServer(t, gridArray(95, 10, skip))
	srv.SetLatency(5 * time.Millisecond)
	a, fsys, err := array.OpenArray(context.Background(), srv.URL()+"/a|zarr2:", "", remoteOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	checkSame(t, "remote", a)

	// A new cache, so that every chunk is requested again.
	a, fsys2, err := array.OpenArray(context.Background(), srv.URL()+"/a|zarr2:", "", remoteOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer fsys2.Close()
	srv.Reset()
	if _, err := a.ReadAll(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if srv.Peak() < 2 {
		t.Errorf("ReadAll had at most %d request in flight, want several", srv.Peak())
	}
	if srv.Peak() > array.DefaultConcurrency {
		t.Errorf("ReadAll had %d requests in flight, more than DefaultConcurrency (%d)", srv.Peak(), array.DefaultConcurrency)
	}
}

// TestArrayReadConcurrentError checks that a chunk's error is ReadBox's, and
// that a context cancelled before or during the read gives
// context.Canceled.
func TestArrayReadConcurrentError(t *testing.T) {
	srv := fstest.NewHTTPServer(t, gridArray(95, 10, nil))
	a, fsys, err := array.OpenArray(context.Background(), srv.URL()+"/a|zarr2:", "", remoteOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	srv.Inject(fstest.Fault{Kind: fstest.FaultStatus, Status: http.StatusForbidden, Path: "a/5.5", Times: -1})
	if _, err := a.ReadAll(context.Background(), 0); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("ReadAll with chunk 5.5 forbidden: error = %v, want fs.ErrPermission", err)
	}
	srv.ClearFaults()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.ReadAll(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadAll with a cancelled context: error = %v, want context.Canceled", err)
	}

	// Cancelled once some chunks are requested, with a server slow
	// enough that others are in flight.
	srv.SetLatency(50 * time.Millisecond)
	a, fsys2, err := array.OpenArray(context.Background(), srv.URL()+"/a|zarr2:", "", remoteOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer fsys2.Close()
	srv.Reset()
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := a.ReadAll(ctx, 0)
		done <- err
	}()
	for srv.Requests() < 2 {
		select {
		case err := <-done:
			t.Fatalf("ReadAll ended before it was cancelled: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("ReadAll cancelled during the read: error = %v, want context.Canceled", err)
	}
}

// BenchmarkRemoteReadAll reads a Zarr v2 array of 1,024 chunks of 16x16
// int32 from an HTTP server that answers after 20 ms, with 1 to 64 chunks
// at once (0: DefaultConcurrency), as pipefs array --read does: each
// read opens the array with an empty cache. It reports the requests and
// the peak number in flight.
func BenchmarkRemoteReadAll(b *testing.B) {
	srv := fstest.NewHTTPServer(b, gridArray(512, 16, nil))
	srv.SetLatency(20 * time.Millisecond)
	for _, n := range []int{1, 8, 0, 64} {
		b.Run(fmt.Sprintf("concurrency=%d", n), func(b *testing.B) {
			ctx := context.Background()
			srv.Reset()
			loops := 0
			for b.Loop() {
				a, fsys, err := array.OpenArray(ctx, srv.URL()+"/a|zarr2:", "", remoteOptions())
				if err != nil {
					b.Fatal(err)
				}
				if _, err := withConcurrency(a, n).ReadAll(ctx, 0); err != nil {
					b.Fatal(err)
				}
				fsys.Close()
				loops++
			}
			b.ReportMetric(float64(srv.Requests())/float64(loops), "requests/op")
			b.ReportMetric(float64(srv.Peak()), "peak-in-flight")
		})
	}
}

// TestArrayReadConcurrentInFlight reads chunks of 400 bytes with InFlight
// 4,000 bytes: 5 chunks at once (at 2 ChunkBytes each), not Concurrency's
// 64.
func TestArrayReadConcurrentInFlight(t *testing.T) {
	srv := fstest.NewHTTPServer(t, gridArray(95, 10, nil))
	srv.SetLatency(5 * time.Millisecond)
	a, fsys, err := array.OpenArray(context.Background(), srv.URL()+"/a|zarr2:", "", remoteOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	want, err := withConcurrency(a, 1).ReadAll(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	// A new cache, so that every chunk is requested again.
	a, fsys2, err := array.OpenArray(context.Background(), srv.URL()+"/a|zarr2:", "", remoteOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer fsys2.Close()
	c := *a
	c.InFlight = 4000
	srv.Reset()
	got, err := c.ReadAll(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("ReadAll with InFlight 4000 differs from one chunk at a time")
	}
	if p := srv.Peak(); p < 2 || p > 5 {
		t.Errorf("ReadAll with InFlight 4000 had at most %d requests in flight, want 2 to 5", p)
	}
}

// shardedArray returns the files of a Zarr v3 array of int32 of 96 x 96
// elements in shards of 32 x 32 holding inner chunks of 8 x 8, big
// endian with a crc32c checksum, fill value -1, every element its index;
// and the elements a read gives. Shard (2, 2) is not stored, nor inner
// chunk (0, 0) of shard (0, 1); in shard (1, 1), inner chunk (1, 2) is
// stored at the bytes of inner chunk (1, 1), as a writer that stores
// equal chunks once does, so that it reads as a copy of it.
func shardedArray() (files map[string][]byte, want []byte) {
	const side, shard, inner = 96, 32, 8
	files = map[string][]byte{
		"s/zarr.json": []byte(`{"zarr_format":3,"node_type":"array","shape":[96,96],"data_type":"int32",` +
			`"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[32,32]}},` +
			`"chunk_key_encoding":{"name":"default"},"fill_value":-1,` +
			`"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[8,8],` +
			`"codecs":[{"name":"bytes","configuration":{"endian":"big"}},{"name":"crc32c"}],` +
			`"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}}]}`),
	}
	want = make([]byte, 4*side*side)
	for i := range side * side {
		binary.LittleEndian.PutUint32(want[4*i:], ^uint32(0))
	}
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	const per = shard / inner
	for si := range side / shard {
		for sj := range side / shard {
			if si == 2 && sj == 2 {
				continue
			}
			var body, index []byte
			for ci := range per {
				for cj := range per {
					switch {
					case si == 0 && sj == 1 && ci == 0 && cj == 0:
						index = binary.LittleEndian.AppendUint64(index, ^uint64(0))
						index = binary.LittleEndian.AppendUint64(index, ^uint64(0))
						continue
					case si == 1 && sj == 1 && ci == 1 && cj == 2:
						// The extent of (1, 1), the entry before.
						index = append(index, index[len(index)-16:]...)
						for i := range inner {
							y := si*shard + ci*inner + i
							x := sj*shard + cj*inner
							copy(want[4*(y*side+x):4*(y*side+x+inner)], want[4*(y*side+x-inner):])
						}
						continue
					}
					var c []byte
					for i := range inner {
						for j := range inner {
							y, x := si*shard+ci*inner+i, sj*shard+cj*inner+j
							c = binary.BigEndian.AppendUint32(c, uint32(y*side+x))
							binary.LittleEndian.PutUint32(want[4*(y*side+x):], uint32(y*side+x))
						}
					}
					c = binary.LittleEndian.AppendUint32(c, crc32.Checksum(c, castagnoli))
					index = binary.LittleEndian.AppendUint64(index, uint64(len(body)))
					index = binary.LittleEndian.AppendUint64(index, uint64(len(c)))
					body = append(body, c...)
				}
			}
			index = binary.LittleEndian.AppendUint32(index, crc32.Checksum(index, castagnoli))
			files[fmt.Sprintf("s/c/%d/%d", si, sj)] = append(body, index...)
		}
	}
	return files, want
}

// TestArrayReadConcurrentSharded reads a sharded array whole from an
// HTTP server, one chunk at a time and with the default concurrency
// (one request for the inner chunks of each shard), and checks the
// elements, the requests and that an inner chunk stored at the bytes of
// another reads as its copy.
func TestArrayReadConcurrentSharded(t *testing.T) {
	files, want := shardedArray()
	srv := fstest.NewHTTPServer(t, files)
	srv.SetLatency(2 * time.Millisecond)
	ctx := context.Background()
	for _, n := range []int{1, 0} {
		// A first read of 1 KiB, which holds a shard's index but not its
		// chunks, so that reading them takes a request.
		o := remoteOptions()
		o.Schemes["http"].(*httproot.Options).Remote.SuffixSize = 1024
		srv.Reset()
		a, fsys, err := array.OpenArray(ctx, srv.URL()+"/s|zarr3:", "", o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := withConcurrency(a, n).ReadAll(ctx, 0)
		fsys.Close()
		if err != nil {
			t.Fatalf("Concurrency %d: %v", n, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("Concurrency %d: the elements differ", n)
		}
		// zarr.json; the 9 shards, the last missing; one range of each
		// of the 8 others.
		if r := srv.Requests(); r != 18 {
			t.Errorf("Concurrency %d: %d requests, want 18\n%s", n, r, srv.LogString())
		}
		if n == 0 && srv.Peak() < 2 {
			t.Errorf("Concurrency %d: at most %d request in flight, want several", n, srv.Peak())
		}
	}
}

// TestArrayReadConcurrentShardedError checks that an error reading a
// shard, when opening it and when reading its inner chunks, is ReadAll's,
// and that a cancelled context gives context.Canceled.
func TestArrayReadConcurrentShardedError(t *testing.T) {
	files, _ := shardedArray()
	srv := fstest.NewHTTPServer(t, files)
	ctx := context.Background()
	open := func() (*array.Array, func() error) {
		o := remoteOptions()
		o.Schemes["http"].(*httproot.Options).Remote.SuffixSize = 1024
		a, fsys, err := array.OpenArray(ctx, srv.URL()+"/s|zarr3:", "", o)
		if err != nil {
			t.Fatal(err)
		}
		return a, fsys.Close
	}
	for _, f := range []fstest.Fault{
		{Kind: fstest.FaultStatus, Status: http.StatusForbidden, Path: "s/c/1/0", Times: -1},
		// The shard's first read passes; the read of its chunks fails.
		{Kind: fstest.FaultStatus, Status: http.StatusForbidden, Path: "s/c/1/0", Skip: 1, Times: -1},
	} {
		a, done := open()
		srv.Inject(f)
		if _, err := a.ReadAll(ctx, 0); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("ReadAll with shard 1/0 forbidden (after %d requests): error = %v, want fs.ErrPermission", f.Skip, err)
		}
		srv.ClearFaults()
		done()
	}
	a, done := open()
	defer done()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := a.ReadAll(cctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadAll with a cancelled context: error = %v, want context.Canceled", err)
	}
}
