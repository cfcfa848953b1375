package xzadapter_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pipefs/pipefs/vfs/driver"

	_ "github.com/pipefs/pipefs/adapters/xzadapter"
	"github.com/pipefs/pipefs/fstest"
	_ "github.com/pipefs/pipefs/roots/memroot"
	"github.com/pipefs/pipefs/vfs"
)

const scheme = "pipefs.xz:"

// fixture is a file of testdata/want.txt: its bytes decoded by the
// xz tool hash to sum and count size.
type fixture struct {
	name string
	sum  string
	size int64
}

func fixtures(t testing.TB) []fixture {
	f, err := os.Open("testdata/want.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fixture
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		n, _ := strconv.ParseInt(fs[2], 10, 64)
		out = append(out, fixture{fs[0], fs[1], n})
	}
	return out
}

func open(t testing.TB, data []byte, o *vfs.Options) (*vfs.File, error) {
	t.Helper()
	prefix := fstest.MapFiles(t, map[string][]byte{"x.xz": data})
	return vfs.Open(context.Background(), "memory:/"+prefix+"/x.xz|"+scheme, o)
}

// readBoth reads the file twice: with Read (which asks for the size) and
// with io.Copy (which streams).
func readBoth(t testing.TB, data []byte, o *vfs.Options) (read, copied []byte, rerr, cerr error) {
	t.Helper()
	f, err := open(t, data, o)
	if err != nil {
		return nil, nil, err, err
	}
	read, rerr = io.ReadAll(f)
	f.Close()
	g, err := open(t, data, o)
	if err != nil {
		return nil, nil, rerr, err
	}
	var buf bytes.Buffer
	_, cerr = io.Copy(&buf, g)
	g.Close()
	return read, buf.Bytes(), rerr, cerr
}

func hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestFixtures(t *testing.T) {
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + fx.name)
			if err != nil {
				t.Fatal(err)
			}
			read, copied, rerr, cerr := readBoth(t, data, nil)
			if rerr != nil || hash(read) != fx.sum {
				t.Errorf("ReadAll: %d bytes, %v; want %d bytes", len(read), rerr, fx.size)
			}
			if cerr != nil || hash(copied) != fx.sum {
				t.Errorf("io.Copy: %d bytes, %v; want %d bytes", len(copied), cerr, fx.size)
			}
			f, err := open(t, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Size() != fx.size {
				t.Errorf("Size() = %d, want %d", f.Size(), fx.size)
			}
			// Reads forward and backward: a backward read starts over.
			r := rand.New(rand.NewPCG(1, 2))
			buf := make([]byte, 1000)
			for range 10 {
				if fx.size == 0 {
					break
				}
				off := r.Int64N(fx.size)
				n, err := f.ReadAt(buf, off)
				if err != nil && err != io.EOF || !bytes.Equal(buf[:n], read[off:off+int64(n)]) {
					t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
				}
			}
		})
	}
}

// TestHostile checks that damaged input gives an error matching
// driver.ErrCorrupt through both read paths, never short data.
func TestHostile(t *testing.T) {
	good, err := os.ReadFile("testdata/seq-crc32.txt.xz")
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte { b := bytes.Clone(good); b[i] ^= 0x10; return b }
	cases := map[string][]byte{
		"trailing garbage":       append(bytes.Clone(good), "junk"...),
		"padding not a multiple": append(bytes.Clone(good), 0, 0),
		"footer magic":           flip(len(good) - 1),
		"footer crc":             flip(len(good) - 12),
		"block data":             flip(len(good) / 2),
		"block header crc":       flip(12 + 3),
		"stream flags":           flip(7),
		"check":                  flip(len(good) - 12 - 12 - 5), // inside the block's CRC-32, before the index
	}
	for i := 0; i < len(good); i += max(1, len(good)/60) {
		cases[fmt.Sprintf("truncated at %d", i)] = good[:i]
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			read, copied, rerr, cerr := readBoth(t, data, nil)
			if !errors.Is(rerr, driver.ErrCorrupt) {
				t.Errorf("ReadAll: %d bytes, %v; want ErrCorrupt", len(read), rerr)
			}
			if !errors.Is(cerr, driver.ErrCorrupt) {
				t.Errorf("io.Copy: %d bytes, %v; want ErrCorrupt", len(copied), cerr)
			}
		})
	}
	if _, err := open(t, []byte("\xfd7zXZ\x00 not xz at all"), nil); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("open of a bad magic = %v, want ErrCorrupt", err)
	}
}

// TestBomb: output stops at MaxFileSize, and 256 MiB of zeros in 39 KB
// bytes (made by xz -9) stop at the ratio limit past RatioFloor; 16 MiB read.
func TestBomb(t *testing.T) {
	data, err := os.ReadFile("testdata/seq-crc32.txt.xz")
	if err != nil {
		t.Fatal(err)
	}
	o := &vfs.Options{Limits: vfs.Limits{MaxFileSize: 50000}}
	_, _, rerr, cerr := readBoth(t, data, o)
	if !errors.Is(rerr, driver.ErrLimit) || !errors.Is(cerr, driver.ErrLimit) {
		t.Errorf("MaxFileSize: ReadAll %v, io.Copy %v; want ErrLimit", rerr, cerr)
	}
	// 16 MiB of zeros, made by xz -9, go beyond the default MaxRatio
	// but not Limits.RatioFloor: ordinary data, which reads.
	zeros, err := os.ReadFile("testdata/zeros-16m.xz")
	if err != nil {
		t.Fatal(err)
	}
	if len(zeros)*vfs.DefaultMaxRatio > 16<<20 {
		t.Fatalf("%d compressed bytes: not beyond the default ratio", len(zeros))
	}
	read, copied, rerr, cerr := readBoth(t, zeros, nil)
	if rerr != nil || cerr != nil || len(read) != 16<<20 || len(copied) != 16<<20 {
		t.Errorf("zeros: ReadAll %d bytes, %v; io.Copy %d bytes, %v; want %d bytes", len(read), rerr, len(copied), cerr, 16<<20)
	}
	// 256 MiB of zeros past a RatioFloor of 4 MiB stop there, and no byte
	// past the bound reaches the reader.
	bomb, err := os.ReadFile("testdata/zeros-256m.xz")
	if err != nil {
		t.Fatal(err)
	}
	o = &vfs.Options{Limits: vfs.Limits{RatioFloor: 4 << 20}}
	bound := o.EffectiveLimits().MaxOutputSlack(int64(len(bomb)))
	read, copied, rerr, cerr = readBoth(t, bomb, o)
	if !errors.Is(rerr, driver.ErrLimit) || !errors.Is(cerr, driver.ErrLimit) || !strings.Contains(rerr.Error(), "Limits.RatioFloor") {
		t.Errorf("MaxRatio: ReadAll %v, io.Copy %v; want ErrLimit naming Limits.RatioFloor", rerr, cerr)
	}
	if int64(len(read)) > bound || int64(len(copied)) > bound {
		t.Errorf("MaxRatio: ReadAll gave %d bytes, io.Copy %d; want at most %d", len(read), len(copied), bound)
	}
}

func TestDetect(t *testing.T) {
	data, _ := os.ReadFile("testdata/hello.txt.xz")
	u, err := vfs.DefaultRegistry.Detect(context.Background(), driver.BytesBlob(data, nil))
	if err != nil || u.String() != scheme {
		t.Fatalf("Detect = %v, %v; want %s", u, err, scheme)
	}
}

// TestIndexLies changes the uncompressed size an index record declares
// (and its CRC-32, so that only the size lies): the output must add up.
func TestIndexLies(t *testing.T) {
	good, err := os.ReadFile("testdata/hello.txt.xz")
	if err != nil {
		t.Fatal(err)
	}
	// hello.txt.xz: one block; the index is the 12 bytes before the
	// 12-byte footer: 00, count 1, unpadded, uncompressed 13, CRC.
	bad := bytes.Clone(good)
	idx := bad[len(bad)-20 : len(bad)-12]
	if idx[0] != 0 || idx[1] != 1 || idx[3] != 13 {
		t.Fatalf("unexpected index % x", idx)
	}
	idx[3] = 14
	binary.LittleEndian.PutUint32(idx[4:], crc32.ChecksumIEEE(idx[:4]))
	read, copied, rerr, cerr := readBoth(t, bad, nil)
	if !errors.Is(rerr, driver.ErrCorrupt) || !errors.Is(cerr, driver.ErrCorrupt) {
		t.Errorf("ReadAll %q %v, io.Copy %q %v; want ErrCorrupt", read, rerr, copied, cerr)
	}
	idx[3] = 13
	idx[2]++ // unpadded size: the block walk disagrees
	binary.LittleEndian.PutUint32(idx[4:], crc32.ChecksumIEEE(idx[:4]))
	if _, err := open(t, bad, nil); !errors.Is(err, driver.ErrCorrupt) {
		t.Errorf("open with a lying unpadded size = %v, want ErrCorrupt", err)
	}
}

// TestMaxWindow refuses a dictionary larger than Limits.MaxWindow.
func TestMaxWindow(t *testing.T) {
	data, err := os.ReadFile("testdata/zeros-256m.xz") // xz -9: a 64 MiB dictionary
	if err != nil {
		t.Fatal(err)
	}
	_, err = open(t, data, &vfs.Options{Limits: vfs.Limits{MaxWindow: 8 << 20}})
	if !errors.Is(err, driver.ErrLimit) || !strings.Contains(err.Error(), "MaxWindow") {
		t.Fatalf("open = %v, want ErrLimit naming MaxWindow", err)
	}
}

// TestNoRatioLimit reads with Limits.MaxRatio negative (no limit): the
// ratio bound saturates instead of overflowing into a refusal.
func TestNoRatioLimit(t *testing.T) {
	for _, fx := range fixtures(t) {
		if fx.size > 16<<20 {
			continue // the bombs: slow, and covered elsewhere
		}
		data, err := os.ReadFile("testdata/" + fx.name)
		if err != nil {
			t.Fatal(err)
		}
		read, copied, rerr, cerr := readBoth(t, data, &vfs.Options{Limits: vfs.Limits{MaxRatio: -1}})
		for _, got := range [][]byte{read, copied} {
			if hash(got) != fx.sum || rerr != nil || cerr != nil {
				t.Errorf("%s: read %d bytes (%v), copied %d (%v); want %d bytes", fx.name, len(read), rerr, len(copied), cerr, fx.size)
			}
		}
	}
}
