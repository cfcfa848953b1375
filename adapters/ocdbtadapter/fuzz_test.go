package ocdbtadapter

import (
	"context"
	"testing"
)

// fuzzSeeds returns the decompressed bodies of the manifests and nodes of
// the fixtures, with their kind: 0 manifest, 1 version-tree node, 2 B+tree
// node.
func fuzzSeeds(f *testing.F) {
	ctx := context.Background()
	for _, db := range []string{"files_min_arity", "files_high_arity", "ome_zarr_simple_0.5", "multi_version_low_arity"} {
		files := loadDir(f, db+".ocdbt")
		body, err := decodeEnvelope(files["manifest.ocdbt"], magicManifest, "manifest")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(byte(0), body)
		tr, err := Open(ctx, files, "", nil)
		if err != nil {
			f.Fatal(err)
		}
		if _, err := readAll(ctx, tr); err != nil {
			f.Fatal(err)
		}
		if _, err := tr.Log(ctx); err != nil {
			f.Fatal(err)
		}
		for k := range tr.db.cache.index {
			b := files[k.path][k.offset : k.offset+k.length]
			magic, kind := uint32(magicBtreeNode), byte(2)
			if k.typ == 'v' {
				magic, kind = magicVersionNode, 1
			}
			body, err := decodeEnvelope(b, magic, "node")
			if err != nil {
				f.Fatal(err)
			}
			f.Add(kind, body)
		}
		tr.Close()
	}
}

// FuzzDecode decodes arbitrary bodies, wrapped in valid envelopes so that
// the CRC does not hide the decoders, as a manifest, a version-tree node
// or a B+tree node; a decoded B+tree node then serves as the root of a
// database whose tree is listed and read whole. Nothing may panic, and
// the decoders' caps bound memory.
func FuzzDecode(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, kind byte, body []byte) {
		ctx := context.Background()
		switch kind % 3 {
		case 0:
			m := envelope(magicManifest, 0, body)
			decodeManifest(m)
			tr, err := Open(ctx, memTree{"manifest.ocdbt": m}, "", nil)
			if err == nil {
				tr.Log(ctx)
				tr.Close()
			}
		case 1:
			b := envelope(magicVersionNode, 0, body)
			if len(body) > 1 {
				decodeVersionNode(b, ref{length: uint64(len(b))}, body[0], body[1])
			}
		case 2:
			node := envelope(magicBtreeNode, 0, body)
			if len(body) == 0 {
				return
			}
			decodeBtreeNode(node, ref{length: uint64(len(node))}, body[0])
			files := memTree{
				"manifest.ocdbt": envelope(magicManifest, 0, manifestBody(4, "d/x", body[0], uint64(len(node)), 1)),
				"d/x":            node,
			}
			tr, err := Open(ctx, files, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			readAll(ctx, tr)
			tr.Close()
		}
	})
}
