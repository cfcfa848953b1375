package deflate64

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// methodsDir holds the zips of adapters/zipadapter/testdata/mkmethods.sh,
// and the files they were made from.
var methodsDir = filepath.Join("..", "..", "adapters", "zipadapter", "testdata", "methods")

// rawMembers returns the compressed data of the Deflate64 members that 7z
// wrote, keyed by name.
func rawMembers(t testing.TB) map[string][]byte {
	t.Helper()
	r, err := zip.OpenReader(filepath.Join(methodsDir, "7z-deflate64.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	raw := map[string][]byte{}
	for _, f := range r.File {
		if f.Method != 9 {
			continue
		}
		rc, err := f.OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		if raw[f.Name], err = io.ReadAll(rc); err != nil {
			t.Fatal(err)
		}
	}
	if len(raw) != 2 {
		t.Fatalf("%d Deflate64 members in the fixture, want 2", len(raw))
	}
	return raw
}

// TestSevenZip decodes what 7z wrote and compares it with the sources. The
// data of rep.bin repeats 40,000 random bytes, so it can only be coded
// with Deflate64's long distances: compress/flate must fail on it, which
// shows that the fixture tests what DEFLATE lacks.
func TestSevenZip(t *testing.T) {
	for name, raw := range rawMembers(t) {
		want, err := os.ReadFile(filepath.Join(methodsDir, "src", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{1, 7, 4096, 1 << 20} {
			got, err := readIn(NewReader(bytes.NewReader(raw)), size)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s in reads of %d: %d bytes, %v; want %d", name, size, len(got), err, len(want))
			}
		}
		if name == "dir/rep.bin" {
			got, err := io.ReadAll(flate.NewReader(bytes.NewReader(raw)))
			if err == nil && bytes.Equal(got, want) {
				t.Errorf("compress/flate decodes %s: it uses no Deflate64 code", name)
			}
		}
	}
}

func readIn(r io.Reader, size int) ([]byte, error) {
	var out []byte
	p := make([]byte, size)
	for {
		n, err := r.Read(p)
		out = append(out, p[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// TestDeflateSubset decodes DEFLATE streams that use no code whose meaning
// Deflate64 changes: stored blocks, Huffman-only blocks, and matches
// shorter than 258 bytes within 32 KiB (text of random words).
func TestDeflateSubset(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := bytes.NewBuffer(words(300_000))
	random := make([]byte, 100_000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for _, tc := range []struct {
		name  string
		data  []byte
		level int
	}{
		{"stored", random, flate.NoCompression},
		{"huffman-only", text.Bytes(), flate.HuffmanOnly},
		{"text", text.Bytes(), flate.BestSpeed},
		{"text-best", text.Bytes(), flate.BestCompression},
		{"empty", nil, flate.DefaultCompression},
	} {
		var z bytes.Buffer
		w, _ := flate.NewWriter(&z, tc.level)
		w.Write(tc.data)
		w.Close()
		got, err := io.ReadAll(NewReader(&z))
		if err != nil || !bytes.Equal(got, tc.data) {
			t.Errorf("%s: %d bytes, %v; want %d", tc.name, len(got), err, len(tc.data))
		}
	}
}

// words returns n bytes of random words: its matches are short and near,
// so DEFLATE codes it with no length of 258 (whose code Deflate64 reads
// otherwise).
func words(n int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	list := strings.Fields("the quick brown fox jumps over a lazy dog while pipefs reads zip members")
	var text bytes.Buffer
	for text.Len() < n {
		text.WriteString(list[rng.IntN(len(list))])
		text.WriteByte(" \n"[rng.IntN(2)])
	}
	return text.Bytes()[:n]
}

// TestCorrupt checks the errors of malformed and truncated data.
func TestCorrupt(t *testing.T) {
	raw := rawMembers(t)["dir/rep.bin"]
	for _, tc := range []struct {
		name string
		data []byte
		want error // nil: a *CorruptInputError
	}{
		{"empty input", nil, io.ErrUnexpectedEOF},
		{"truncated", raw[:len(raw)/2], io.ErrUnexpectedEOF},
		{"reserved block type", []byte{0x07}, nil},
		{"stored length mismatch", []byte{0x01, 0x05, 0x00, 0x00, 0x00}, nil},
		// A fixed block whose first symbol is a match: distance 1
		// reaches before the start of the output.
		{"distance before start", []byte{0x03, 0x02}, nil},
		{"truncated stored", []byte{0x01, 0x05, 0x00, 0xfa, 0xff, 'a'}, io.ErrUnexpectedEOF},
	} {
		_, err := io.ReadAll(NewReader(bytes.NewReader(tc.data)))
		var ce *CorruptInputError
		switch {
		case tc.want != nil && !errors.Is(err, tc.want):
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		case tc.want == nil && !errors.As(err, &ce):
			t.Errorf("%s: %v, want a CorruptInputError", tc.name, err)
		}
	}
}

// An errReader fails after its bytes.
type errReader struct {
	b   []byte
	err error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, r.err
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// TestInputError checks that an error of the input is returned as it is.
func TestInputError(t *testing.T) {
	raw := rawMembers(t)["seq.txt"]
	boom := errors.New("boom")
	_, err := io.ReadAll(NewReader(&errReader{raw[:100], boom}))
	if err != boom {
		t.Errorf("err = %v, want the input's", err)
	}
}

// FuzzReader decodes arbitrary input: no panic, no error but corrupt
// input or truncation, and output bounded by what the input can code (at
// most 65538 bytes a match, a match in 18 bits). The output read is capped
// at 1 MiB: a few bytes can code gigabytes, which only takes time.
func FuzzReader(f *testing.F) {
	for _, raw := range rawMembers(f) {
		f.Add(raw)
		f.Add(raw[:len(raw)/3])
	}
	f.Add([]byte{0x03, 0x00})
	f.Add([]byte{0x01, 0x00, 0x00, 0xff, 0xff})
	f.Add([]byte{0x07})
	f.Fuzz(func(t *testing.T, in []byte) {
		n, err := io.CopyN(io.Discard, NewReader(bytes.NewReader(in)), 1<<20)
		if err == nil || err == io.EOF {
			return
		}
		if n > int64(len(in))*8/18*65538+65536 {
			t.Fatalf("%d bytes out of %d in", n, len(in))
		}
		var ce *CorruptInputError
		if err != nil && err != io.ErrUnexpectedEOF && !errors.As(err, &ce) {
			t.Fatalf("error %v is neither corrupt input nor truncation", err)
		}
	})
}

// TestCheckpoints records checkpoints while decoding 7z's data, and
// resumes at each: the output from there is the source's from its offset.
func TestCheckpoints(t *testing.T) {
	for name, raw := range rawMembers(t) {
		want, err := os.ReadFile(filepath.Join(methodsDir, "src", name))
		if err != nil {
			t.Fatal(err)
		}
		n := checkResume(t, raw, want)
		if name == "dir/rep.bin" && n < 2 {
			t.Errorf("%s: %d checkpoints", name, n)
		}
	}
	// DEFLATE's subset, in many blocks of each kind.
	text := words(700_000)
	for _, level := range []int{flate.NoCompression, flate.HuffmanOnly, flate.BestSpeed} {
		var z bytes.Buffer
		w, _ := flate.NewWriter(&z, level)
		w.Write(text)
		w.Close()
		if n := checkResume(t, z.Bytes(), text); n < 3 {
			t.Errorf("level %d: %d checkpoints", level, n)
		}
	}
}

// checkResume decodes raw recording a checkpoint at every block, resumes
// at each and compares the output with want's from there; it returns
// the number of checkpoints.
func checkResume(t *testing.T, raw, want []byte) int {
	t.Helper()
	var cps []Checkpoint
	r := NewReader(bytes.NewReader(raw))
	r.Checkpoints(1, func(cp Checkpoint) { cps = append(cps, cp) })
	if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%d bytes, %v", len(got), err)
	}
	for _, cp := range cps {
		got, err := io.ReadAll(Resume(bytes.NewReader(raw[cp.In:]), cp))
		if err != nil || !bytes.Equal(got, want[cp.Out:]) {
			t.Errorf("resumed at %d (input %d): %d bytes, %v; want %d", cp.Out, cp.In, len(got), err, len(want)-int(cp.Out))
		}
	}
	return len(cps)
}
