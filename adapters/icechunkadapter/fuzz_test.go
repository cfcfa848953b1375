package icechunkadapter

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds metadata files (header and zstd, or a bare flatbuffer
// payload when the first byte is odd) to every decoder and walks what
// they return: no panic, and bounded memory (the decoders cap every
// allocation by the input's size or a fixed limit). Seeds are the
// fixtures' snapshot, manifest and repo files, whole and decompressed.
func FuzzDecode(f *testing.F) {
	for _, repo := range repos {
		for _, name := range metadataFiles(f, repo) {
			data, err := os.ReadFile(filepath.Join(fixture(f, repo), name))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(byte(0), data)
			if _, payload, err := decodeMetadata(name, data, data[37]); err == nil {
				f.Add(byte(1), payload)
				f.Add(data[37], payload)
			}
		}
	}
	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		payloads := [][]byte{data}
		if mode%2 == 0 {
			payloads = nil
			for _, typ := range []byte{fileSnapshot, fileManifest, fileRepo} {
				if _, p, err := decodeMetadata("fuzz", data, typ); err == nil {
					payloads = append(payloads, p)
				}
			}
		}
		for _, p := range payloads {
			decodeAll(p)
		}
	})
}

// decodeAll decodes p as each kind of payload and reads everything.
func decodeAll(p []byte) {
	if s, err := parseSnapshot("fuzz", p, false, 1<<16, 4096); err == nil {
		for _, n := range s.nodes {
			n.encoding()
			for _, r := range n.mrefs {
				r.contains(make([]uint32, n.rank))
			}
		}
	}
	if r, err := parseRepo("fuzz", p, 1<<16); err == nil {
		for i := range r.snapshots {
			_ = r.snapshots[i].info.ParentID
		}
	}
	m, err := parseManifest("fuzz", p)
	if err != nil {
		return
	}
	var buf [maxRank]uint32
	for i := range min(m.arrays.n, 64) {
		t := m.f.elemTable(m.arrays, i)
		var id id8
		copy(id[:], m.f.structField(t, amNodeID, sizeID8))
		refs, ok, err := m.refs(id)
		if err != nil || !ok {
			continue
		}
		for j := range min(refs.n, 256) {
			coords := m.index(refs, j, buf[:0])
			m.size(refs, j)
			m.chunk(refs, j)
			m.find(refs, coords)
		}
	}
}
