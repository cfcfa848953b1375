package fstest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
)

// RandomBytes returns n bytes that do not compress, the same for the
// same seed.
func RandomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	var key [32]byte
	for i := range 8 {
		key[i] = byte(seed >> (8 * i))
	}
	rand.NewChaCha8(key).Read(b)
	return b
}

// ManyFiles returns n small files, named "dNN/file-NNNNNN.txt", spread
// over 50 directories, of 7 to 320 bytes each: a tree whose directory
// listing is large next to its contents.
func ManyFiles(n int) map[string][]byte {
	files := make(map[string][]byte, n)
	for i := range n {
		files[fmt.Sprintf("d%02d/file-%06d.txt", i%50, i)] = fmt.Appendf(nil, "file %d\n%s", i, bytes.Repeat([]byte{'x'}, i%300))
	}
	return files
}
