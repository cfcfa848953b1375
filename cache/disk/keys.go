package disk

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// Keys returns the keys of the store's entries, sorted, as their files
// name them: a file whose header is unreadable or names a key over 64 KiB
// is left out, and the entries are not otherwise checked, so a key listed
// may still be a miss for Get. It is for tools and tests that inspect a
// store.
func (s *Store) Keys() []string {
	var keys []string
	for _, f := range s.files() {
		if k, ok := readKey(filepath.Join(s.dir, f.name)); ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// readKey reads the key from the header of the file at p.
func readKey(p string) (string, bool) {
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	var h [headerSize]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || string(h[:len(magic)]) != magic {
		return "", false
	}
	klen := binary.LittleEndian.Uint32(h[12:])
	if klen > maxKey {
		return "", false
	}
	k := make([]byte, klen)
	if _, err := io.ReadFull(f, k); err != nil {
		return "", false
	}
	return string(k), true
}
