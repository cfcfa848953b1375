package arraycodec

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipefs/pipefs/fstest"
)

// numcodecsDir returns the directory of the shared numcodecs test vectors.
func numcodecsDir(t testing.TB) string {
	t.Helper()
	return fstest.Fixture(t, "codecs/numcodecs")
}

// npyData returns the data bytes of a .npy file: everything after the
// magic, the version, the header length and the header.
func npyData(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		t.Fatalf("%s: not a .npy file", name)
	}
	var off int
	switch b[6] {
	case 1:
		off = 10 + int(binary.LittleEndian.Uint16(b[8:]))
	case 2, 3:
		off = 12 + int(binary.LittleEndian.Uint32(b[8:]))
	default:
		t.Fatalf("%s: npy version %d", name, b[6])
	}
	return b[off:]
}

// checkVectors decodes every encoded.MM.dat under dir/codec.NN and compares
// it with dir/array.MM.npy.
func checkVectors(t *testing.T, dir string, decode func([]byte, int) ([]byte, error)) {
	vectors := numcodecsDir(t)
	encoded, err := filepath.Glob(filepath.Join(vectors, dir, "codec.*", "encoded.*.dat"))
	if err != nil || len(encoded) == 0 {
		t.Fatalf("no vectors under %s (%v)", dir, err)
	}
	for _, name := range encoded {
		mm := filepath.Base(name)[len("encoded.") : len("encoded.")+2]
		want := npyData(t, filepath.Join(vectors, dir, "array."+mm+".npy"))
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decode(src, len(want))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: decoded %d bytes differ from the %d of array.%s.npy", name, len(got), len(want), mm)
		}
	}
	t.Logf("%d vectors", len(encoded))
}

func TestNumcodecsBlosc(t *testing.T) { checkVectors(t, "blosc", Blosc) }
func TestNumcodecsLZ4(t *testing.T)   { checkVectors(t, "lz4", LZ4) }
