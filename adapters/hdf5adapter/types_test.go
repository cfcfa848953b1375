package hdf5adapter_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/pipefs/pipefs/vfs"
)

// typesScript writes datasets and attributes of many types and layouts,
// with libver argv[2], and a manifest of what h5py reads back: per
// dataset its dtype.str, shape and bytes (in the stored byte order, as
// h5py reads them), per attribute of /attrs its value as JSON.
const typesScript = `
import sys, json, h5py, numpy as np
out = {}
with h5py.File(sys.argv[1], 'w', libver=sys.argv[2]) as f:
    def ds(name, data=None, **kw):
        out[name] = None
        f.create_dataset(name, data=data, **kw)
    for t in ['|i1', '|u1', '<i2', '>i2', '<u4', '>i8', '<f2', '>f2', '<f4', '>f8', '|b1', '|S5', '|V7']:
        n = 'num/' + t.replace('|', 'p').replace('<', 'l').replace('>', 'b')
        a = (np.arange(12) * 37 % 251).astype(t if t[1] not in 'SV' else '|u1')
        if t == '|S5':
            a = np.array([b'a', b'bcdef', b'', b'xy'] * 3, dtype=t)
        if t == '|V7':
            a = np.frombuffer(bytes(range(84)), dtype='V7')
        if t == '|b1':
            a = (np.arange(12) % 3 == 0)
        ds(n, a.reshape(3, 4) if t != '|V7' else a)
    ct = np.dtype([('a', '>i2'), ('b', [('x', '<f4'), ('y', '|u1')]), ('c', '<i4', (2, 3)), ('d', '|S3')])
    c = np.zeros(4, dtype=ct)
    c['a'] = [1, -2, 3, -4]; c['b']['x'] = [0.5, 1.5, 2.5, 3.5]; c['b']['y'] = [7, 8, 9, 10]
    c['c'] = np.arange(24).reshape(4, 2, 3); c['d'] = [b'abc', b'de', b'', b'f']
    ds('compound', c)
    ds('enum', np.array([1, -5, 1, 1], dtype='<i2'), dtype=h5py.enum_dtype({'A': 1, 'B': -5}, basetype='<i2'))
    ds('chunked/edge', np.arange(35, dtype='>i4').reshape(7, 5), chunks=(3, 2))
    ds('chunked/unlimited1', np.arange(35, dtype='<f8').reshape(7, 5), chunks=(2, 2), maxshape=(None, 5))
    ds('chunked/unlimited2', np.arange(35, dtype='<u2').reshape(7, 5), chunks=(4, 4), maxshape=(None, None))
    ds('chunked/fixed3d', np.arange(2 * 3 * 4, dtype='<i8').reshape(2, 3, 4), chunks=(1, 2, 3))
    d = f.create_dataset('chunked/partial', shape=(9, 9), chunks=(4, 4), dtype='<i4', fillvalue=-3, maxshape=(None, 9))
    d[4:8, 0:4] = 5
    d[8, 8] = 6
    out['chunked/partial'] = None
    d = f.create_dataset('chunked/grown', shape=(2, 3), chunks=(2, 2), dtype='<i2', maxshape=(None, None))
    d[...] = 1
    d.resize((5, 4))
    d[4, 3] = 9
    out['chunked/grown'] = None
    ds('contiguous/unwritten', shape=(4, 4), dtype='<u2', fillvalue=7)
    ds('scalar', np.float32(2.5))
    ds('vlen/str', np.array(['a', 'bé', ''], dtype=object), dtype=h5py.string_dtype())
    ds('vlen/ints', np.array([np.arange(3), np.arange(0)], dtype=object), dtype=h5py.vlen_dtype('<i4'))
    ds('refs', np.array([f.ref, f['scalar'].ref]), dtype=h5py.ref_dtype)
    g = f.create_group('attrs')
    attrs = {'i': np.int64(-7), 'u': np.uint16(9), 'f': np.float32(0.25), 'd': np.array([[1.5, 2.5], [3.5, 4.5]], dtype='>f8'),
             's': np.bytes_(b'fixed'), 'v': 'vlen string é', 'l': np.arange(3, dtype='<i4'), 'b': np.bool_(True)}
    for k, v in attrs.items():
        g.attrs[k] = v
man = {}
with h5py.File(sys.argv[1], 'r') as f:
    for name in out:
        d = f[name]
        e = {'dtype': d.dtype.str, 'shape': list(d.shape)}
        if d.dtype.kind != 'O':
            e['hex'] = d[()].tobytes().hex()
        man[name] = e
    av = {}
    for k, v in f['attrs'].attrs.items():
        if isinstance(v, bytes):
            v = v.decode()
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        elif isinstance(v, np.generic):
            v = v.item()
        av[k] = v
    man['/attrs'] = av
json.dump(man, open(sys.argv[3], 'w'))
`

type typeEntry struct {
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
	Hex   *string `json:"hex"`
}

func TestTypesAgainstH5py(t *testing.T) {
	py := h5py(t)
	for _, libver := range []string{"earliest", "latest"} {
		t.Run(libver, func(t *testing.T) {
			dir := t.TempDir()
			p, m := filepath.Join(dir, "types.h5"), filepath.Join(dir, "manifest.json")
			if out, err := exec.Command(py, "-c", typesScript, p, libver, m).CombinedOutput(); err != nil {
				t.Fatalf("h5py: %v\n%s", err, out)
			}
			raw, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			var man map[string]json.RawMessage
			if err := json.Unmarshal(raw, &man); err != nil {
				t.Fatal(err)
			}
			if len(man) < 25 {
				t.Fatalf("manifest of %d entries", len(man))
			}
			fsys, err := vfs.OpenFS(context.Background(), "file:"+filepath.ToSlash(p), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer fsys.Close()
			for name, v := range man {
				if name == "/attrs" {
					checkAttrs(t, fsys, v)
					continue
				}
				var e typeEntry
				if err := json.Unmarshal(v, &e); err != nil {
					t.Fatal(err)
				}
				d := dataset(t, fsys, name)
				if d.DType.NumPy != e.DType {
					t.Errorf("%s: dtype %s, h5py %s", name, d.DType.NumPy, e.DType)
				}
				if !slices.Equal(d.Shape, e.Shape) && !(len(e.Shape) == 0 && d.Shape == nil) {
					t.Errorf("%s: shape %v, h5py %v", name, d.Shape, e.Shape)
				}
				got, err := fs.ReadFile(fsys, name)
				if e.Hex == nil {
					if !errors.Is(err, errors.ErrUnsupported) {
						t.Errorf("%s: reading variable-length data: %v", name, err)
					}
					continue
				}
				want, _ := hex.DecodeString(*e.Hex)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s: %v\n got % x\nwant % x", name, err, got, want)
				}
			}
			d := dataset(t, fsys, "compound")
			if f := d.DType.Fields; len(f) != 4 || f[1].Type.Class != "compound" || f[2].Type.Class != "array" || !slices.Equal(f[2].Type.Dims, []int64{2, 3}) {
				t.Errorf("compound: %+v", d.DType)
			}
			if m := dataset(t, fsys, "enum").DType.Members; len(m) != 2 {
				t.Errorf("enum members %+v", m)
			}
			if d := dataset(t, fsys, "refs"); d.DType.Class != "reference" {
				t.Errorf("refs: %+v", d.DType)
			}
			if d := dataset(t, fsys, "vlen/ints"); d.DType.Class != "vlen" || d.DType.VarString || d.DType.Base.NumPy != "<i4" {
				t.Errorf("vlen/ints: %+v", d.DType)
			}
		})
	}
}

// checkAttrs compares the attributes of /attrs with h5py's values.
func checkAttrs(t *testing.T, fsys fs.FS, raw json.RawMessage) {
	t.Helper()
	var want map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got := group(t, fsys, "attrs").Attributes
	for k, w := range want {
		g := normalize(got[k])
		if k == "b" {
			w = float64(1) // an h5py bool is an enum of int8
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("attribute %s = %#v, h5py %#v", k, g, w)
		}
	}
}

// normalize turns decoded numbers into float64, as JSON decodes them.
func normalize(v any) any {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = normalize(x[i])
		}
		return out
	}
	return v
}

// edgeScript writes a gzip dataset whose partial edge chunks are stored
// unfiltered (H5Pset_chunk_opts with H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS,
// which h5py does not wrap: through libhdf5, as h5py loaded it).
const edgeScript = `
import sys, ctypes, h5py, numpy as np
lib = ctypes.CDLL('libhdf5_serial.so.103')
lib.H5Pset_chunk_opts.argtypes = [ctypes.c_int64, ctypes.c_uint]
with h5py.File(sys.argv[1], 'w', libver='latest') as f:
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((3, 2))
    dcpl.set_deflate(6)
    if lib.H5Pset_chunk_opts(dcpl.id, 2) < 0:
        raise SystemExit('H5Pset_chunk_opts failed')
    space = h5py.h5s.create_simple((7, 5))
    d = h5py.Dataset(h5py.h5d.create(f.id, b'edge', h5py.h5t.STD_I32LE, space, dcpl=dcpl))
    d[...] = np.arange(35, dtype='<i4').reshape(7, 5)
`

// TestEdgeChunksUnfiltered reads a dataset of layout version 4 whose
// flag bit 0 says that partial edge chunks skip the filters (it needs the
// deflate filter).
func TestEdgeChunksUnfiltered(t *testing.T) {
	py := h5py(t)
	p := filepath.Join(t.TempDir(), "edge.h5")
	if out, err := exec.Command(py, "-c", edgeScript, p).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	fsys, err := vfs.OpenFS(context.Background(), "file:"+filepath.ToSlash(p), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	checkFile(t, fsys, "edge", enc("<i4", arange(35)...))
}
