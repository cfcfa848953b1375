package disk

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// TestEncodeDecode: Decode gives back what Encode was given, and refuses
// every damaged, truncated, foreign or oversized entry.
func TestEncodeDecode(t *testing.T) {
	key, data := "pipefs.tar v1\x00s3://b/a.tar\x00\"etag\"", bytes.Repeat([]byte("index "), 1000)
	e := Encode(key, data)
	got, err := Decode(key, e, 0)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Decode = %d bytes, %v", len(got), err)
	}
	if _, err := Decode(key+"x", e, 0); err == nil {
		t.Error("another key: no error")
	}
	if _, err := Decode(key, e, int64(len(data))-1); !errors.Is(err, errOverLimit) {
		t.Errorf("over the limit: %v", err)
	}
	for i := range e {
		d := bytes.Clone(e)
		d[i] ^= 1
		if _, err := Decode(key, d, 0); err == nil {
			t.Fatalf("byte %d flipped: no error", i)
		}
	}
	for n := range len(e) {
		if _, err := Decode(key, e[:n], 0); err == nil {
			t.Fatalf("cut to %d bytes: no error", n)
		}
	}
	if got, err := Decode("", Encode("", nil), 0); err != nil || len(got) != 0 {
		t.Errorf("empty entry: %q, %v", got, err)
	}
	// A Store reads what Encode writes: the same format.
	s, err := Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(key, data); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get(key, 0); !ok || !bytes.Equal(got, data) {
		t.Errorf("Get after Put: %d bytes, %v", len(got), ok)
	}
}

// FuzzDecode decodes arbitrary bytes as an entry: no panic, and what
// decodes encodes back to the same bytes.
func FuzzDecode(f *testing.F) {
	f.Add("k", Encode("k", []byte("data")))
	f.Add("", Encode("", nil))
	f.Fuzz(func(t *testing.T, key string, entry []byte) {
		data, err := Decode(key, entry, 1<<20)
		if err != nil {
			return
		}
		if !bytes.Equal(Encode(key, data), entry) {
			t.Fatalf("Decode accepted %d bytes that Encode does not give back", len(entry))
		}
	})
}

// endless is an endless reader of junk that counts what it gives.
type endless struct{ n int64 }

func (r *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i*31 + 7)
	}
	r.n += int64(len(p))
	return len(p), nil
}

// TestReadEntry: an entry is read from its header on, and a body that is
// not an entry, or one over the limit, is refused from the header: no
// more is read and nothing of its claimed size allocated.
func TestReadEntry(t *testing.T) {
	key, data := "k", bytes.Repeat([]byte("x"), 5000)
	e := Encode(key, data)
	for _, size := range []int64{int64(len(e)), -1} {
		got, err := ReadEntry(bytes.NewReader(e), size, key, 0)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("size %d: %d bytes, %v", size, len(got), err)
		}
	}
	if _, err := ReadEntry(bytes.NewReader(e), int64(len(e))+1, key, 0); err == nil {
		t.Error("a size that is not the entry's: no error")
	}
	// A read that fails is that failure, not damage (a Store removes
	// damaged files).
	failed := errors.New("read failed")
	if _, err := ReadEntry(io.MultiReader(bytes.NewReader(e[:30]), iotest.ErrReader(failed)), -1, key, 0); !errors.Is(err, failed) || errors.Is(err, errBad) {
		t.Errorf("a failed read: %v", err)
	}
	if _, err := ReadEntry(bytes.NewReader(e[:30]), int64(len(e)), key, 0); !errors.Is(err, errBad) {
		t.Errorf("an entry cut short: %v", err)
	}
	junk := &endless{}
	if _, err := ReadEntry(junk, -1, key, 0); err == nil || junk.n > 4096 {
		t.Errorf("junk: %v after %d bytes read", err, junk.n)
	}
	r := &countReader{r: bytes.NewReader(e)}
	if _, err := ReadEntry(r, -1, key, 100); !errors.Is(err, errOverLimit) || r.n > headerSize {
		t.Errorf("over the limit: %v after %d bytes read", err, r.n)
	}
}

type countReader struct {
	r *bytes.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
