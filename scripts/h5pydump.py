#!/usr/bin/python3
"""h5pydump.py [--out-dir DIR] FILE...: what h5py sees in HDF5 files, as JSON.

The oracle of composition/hdf5_test.go: pipefs must list every dataset
printed here with the same shape and dtype, and read every fixed-size
dataset that h5py reads to the same SHA-256.

Without --out-dir it prints one JSON document on standard output:

    {"h5py": "3.7.0", "hdf5": "1.10.8", "filters_available": [1, 2, ...],
     "files": [FILE-DUMP, ...]}

With --out-dir it writes DIR/BASENAME.json for each file, holding that
file's FILE-DUMP with the same "h5py", "hdf5" and "filters_available"
keys added. A FILE-DUMP is

    {"file": FILE as given, "size": bytes, "userblock": bytes before the
     superblock, "superblock": version, "error": only when h5py cannot
     open the file,
     "groups": ["/", "/g", ...],
     "datatypes": ["/t", ...],             committed datatypes
     "links": {"/g/s": {"kind": "soft", "target": "/x", "resolves": "dataset"},
               "/g/e": {"kind": "external", "file": "o.h5", "path": "/p"}},
     "datasets": {"/g/d": DATASET, ...}}

and a DATASET is

    {"shape": [..] ([] scalar, null for a null dataspace),
     "maxshape": [..] (-1 unlimited), "dtype": numpy dtype.str ("<i4",
     ">f8", "|S5", "|V12", "|O" for variable-length data and references),
     "class": the HDF5 type class, "size": element size in bytes,
     "fixed": true when no element holds variable-length data or a
     reference, "layout": "compact" | "contiguous" | "chunked" | "virtual",
     "chunks": [..] or null, "chunk_index": "btree1" | "single" | "implicit"
     | "fixed array" | "extensible array" | "btree2" (chunked, when libhdf5
     can say), "filters": [{"id": 1, "name": "deflate", "flags": 0,
     "values": [4]}, ...], "nbytes": bytes of the C-order elements,
     "sha256": of the elements in C order and in stored byte order, read
     with the file's own datatype as memory type, so without any
     conversion (fixed-size datasets only), "sha256_numpy": that of
     np.ascontiguousarray(d[()]).tobytes() when it differs, "error": why h5py
     could not read it (a filter not available, ...), "strings": the first
     STRINGS decoded values of a variable-length string dataset (bytes
     that do not decode as the declared character set become U+FFFD), "attrs":
     {name: {"dtype": ..., "value": ...}}, "same_as": the path of a dataset
     holding the same elements (from the attribute pipefs_same_as, set by
     scripts/hdf5fixtures.py on datasets whose filter h5py may lack)}

It runs with or without HDF5_PLUGIN_PATH: the filters libhdf5 finds are
used, plus those that the Python packages hdf5plugin and tables register
when they are installed; a dataset whose filter is missing gets an "error".
Datasets larger than --max-bytes (default 256 MiB) get "skipped" instead
of "sha256". Needs Debian's python3-h5py (h5py 3.7 on libhdf5 1.10.8 was
used for the committed dumps).
"""
import argparse
import ctypes
import ctypes.util
import hashlib
import json
import os
import sys

import h5py
import numpy as np

# Optional filter providers: each registers filters with the libhdf5 that
# h5py uses, when installed.
for _mod in ('hdf5plugin', 'tables'):
    try:
        __import__(_mod)
    except Exception:  # not installed, or built against another libhdf5
        pass

STRINGS = 1000
ATTR_ITEMS = 64

FILTER_NAMES = {
    1: 'deflate', 2: 'shuffle', 3: 'fletcher32', 4: 'szip', 5: 'nbit',
    6: 'scaleoffset', 305: 'lzo', 307: 'bzip2', 32000: 'lzf', 32001: 'blosc',
    32004: 'lz4', 32008: 'bitshuffle', 32013: 'zfp', 32015: 'zstd',
    32017: 'sz', 32026: 'blosc2',
}
KNOWN_FILTERS = sorted(FILTER_NAMES)

LAYOUTS = {h5py.h5d.COMPACT: 'compact', h5py.h5d.CONTIGUOUS: 'contiguous',
           h5py.h5d.CHUNKED: 'chunked'}
if hasattr(h5py.h5d, 'VIRTUAL'):
    LAYOUTS[h5py.h5d.VIRTUAL] = 'virtual'

CHUNK_INDEXES = {0: 'btree1', 1: 'single', 2: 'implicit', 3: 'fixed array',
                 4: 'extensible array', 5: 'btree2'}

CLASSES = {
    h5py.h5t.INTEGER: 'integer', h5py.h5t.FLOAT: 'float', h5py.h5t.TIME: 'time',
    h5py.h5t.STRING: 'string', h5py.h5t.BITFIELD: 'bitfield',
    h5py.h5t.OPAQUE: 'opaque', h5py.h5t.COMPOUND: 'compound',
    h5py.h5t.REFERENCE: 'reference', h5py.h5t.ENUM: 'enum',
    h5py.h5t.VLEN: 'vlen', h5py.h5t.ARRAY: 'array',
}


def _libhdf5():
    """The libhdf5 that h5py loaded, for H5Dget_chunk_index_type, or None."""
    names = ['libhdf5_serial.so.103', 'libhdf5.so.103', 'libhdf5_serial.so',
             'libhdf5.so', ctypes.util.find_library('hdf5_serial'),
             ctypes.util.find_library('hdf5')]
    for name in names:
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            f = lib.H5Dget_chunk_index_type
        except (OSError, AttributeError):
            continue
        f.argtypes = [ctypes.c_int64, ctypes.POINTER(ctypes.c_int)]
        f.restype = ctypes.c_int
        return lib
    return None


LIB = _libhdf5()


def chunk_index(dsid):
    if LIB is None:
        return None
    out = ctypes.c_int(-1)
    if LIB.H5Dget_chunk_index_type(dsid.id, ctypes.byref(out)) < 0:
        return None
    return CHUNK_INDEXES.get(out.value, 'type %d' % out.value)


def fixed_size(tid):
    """Whether elements of tid hold no variable-length data or reference."""
    cls = tid.get_class()
    if cls in (h5py.h5t.VLEN, h5py.h5t.REFERENCE):
        return False
    if cls == h5py.h5t.STRING:
        return not tid.is_variable_str()
    if cls == h5py.h5t.COMPOUND:
        return all(fixed_size(tid.get_member_type(i)) for i in range(tid.get_nmembers()))
    if cls == h5py.h5t.ARRAY:
        return fixed_size(tid.get_super())
    return True


def jsonable(v, depth=0):
    """v as JSON, bounded: bytes are decoded (latin-1 if not UTF-8), arrays
    give at most ATTR_ITEMS items, floats that JSON lacks become strings."""
    if depth > 4:
        return repr(v)[:200]
    if isinstance(v, (bytes, np.bytes_)):
        try:
            return bytes(v).decode('utf-8')
        except UnicodeDecodeError:
            return bytes(v).decode('latin-1')
    if isinstance(v, np.ndarray):
        flat = v.reshape(-1)[:ATTR_ITEMS] if v.dtype.names is None else v.reshape(-1)[:ATTR_ITEMS]
        return [jsonable(x, depth + 1) for x in flat]
    if isinstance(v, np.void):
        if v.dtype.names:
            return {n: jsonable(v[n], depth + 1) for n in v.dtype.names}
        return bytes(v).hex()
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer, int)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return f if np.isfinite(f) else repr(f)
    if isinstance(v, (np.complexfloating, complex)):
        return [jsonable(v.real), jsonable(v.imag)]
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)):
        return [jsonable(x, depth + 1) for x in v[:ATTR_ITEMS]]
    if isinstance(v, h5py.Empty):
        return None
    return repr(v)[:200]


def attrs_of(obj):
    out = {}
    try:
        names = list(obj.attrs)
    except Exception as e:  # noqa: BLE001 - report whatever h5py raised
        return {'error': str(e)}
    for name in names[:ATTR_ITEMS]:
        a = {}
        try:
            a['dtype'] = obj.attrs.get_id(name).dtype.str
            a['value'] = jsonable(obj.attrs[name])
        except Exception as e:  # noqa: BLE001
            a['error'] = '%s: %s' % (type(e).__name__, e)
        out[name] = a
    return out


def filters_of(dcpl):
    out = []
    for i in range(dcpl.get_nfilters()):
        fid, flags, values, name = dcpl.get_filter(i)
        out.append({'id': int(fid),
                    'name': FILTER_NAMES.get(int(fid), name.decode('utf-8', 'replace')),
                    'flags': int(flags), 'values': [int(v) for v in values]})
    return out


def describe(d, max_bytes):
    """The DATASET dict of h5py dataset d."""
    out = {}
    dsid = d.id
    tid = dsid.get_type()
    space = dsid.get_space()
    out['class'] = CLASSES.get(tid.get_class(), 'class %d' % tid.get_class())
    out['size'] = tid.get_size()
    out['fixed'] = fixed = fixed_size(tid)
    null = space.get_simple_extent_type() == h5py.h5s.NULL
    if null:
        out['shape'] = None
        out['maxshape'] = None
    else:
        out['shape'] = [int(n) for n in space.shape]
        out['maxshape'] = [-1 if m == h5py.h5s.UNLIMITED else int(m)
                           for m in space.get_simple_extent_dims(True)]
    dcpl = dsid.get_create_plist()
    layout = dcpl.get_layout()
    out['layout'] = LAYOUTS.get(layout, 'layout %d' % layout)
    out['chunks'] = list(dcpl.get_chunk()) if layout == h5py.h5d.CHUNKED else None
    if layout == h5py.h5d.CHUNKED:
        out['chunk_index'] = chunk_index(dsid)
    out['filters'] = filters_of(dcpl)
    out['attrs'] = attrs_of(d)
    same = out['attrs'].get('pipefs_same_as', {}).get('value')
    if isinstance(same, str):
        out['same_as'] = same
    try:
        out['dtype'] = d.dtype.str
    except Exception as e:  # noqa: BLE001 - a type h5py cannot map
        out['dtype'] = None
        out['error'] = 'dtype: %s: %s' % (type(e).__name__, e)
        return out
    n = 1 if null else int(np.prod(out['shape'], dtype=np.int64))
    if null:
        n = 0
    out['nbytes'] = n * out['size']
    if fixed:
        if out['nbytes'] > max_bytes:
            out['skipped'] = 'larger than %d bytes' % max_bytes
            return out
        try:
            if null:
                raw = b''
            else:
                buf = np.empty(out['shape'], dtype='V%d' % out['size'])
                if n > 0:
                    dsid.read(h5py.h5s.ALL, h5py.h5s.ALL, buf, mtype=tid)
                raw = buf.tobytes()
            out['sha256'] = hashlib.sha256(raw).hexdigest()
        except Exception as e:  # noqa: BLE001 - e.g. a filter not available
            out['error'] = '%s: %s' % (type(e).__name__, e)
            return out
        if not null:
            try:
                arr = np.ascontiguousarray(d[()]).tobytes()
                h = hashlib.sha256(arr).hexdigest()
                if h != out['sha256']:
                    out['sha256_numpy'] = h
            except Exception as e:  # noqa: BLE001
                out['numpy_error'] = '%s: %s' % (type(e).__name__, e)
    elif h5py.check_string_dtype(d.dtype) is not None and not null:
        try:
            shape = out['shape']
            if n <= STRINGS or not shape:
                vals = d.asstr(errors='replace')[()]
            else:
                row = max(1, int(np.prod(shape[1:], dtype=np.int64)))
                vals = d.asstr(errors='replace')[0:-(-STRINGS // row)]
            flat = np.asarray(vals, dtype=object).reshape(-1)[:STRINGS]
            out['strings'] = [str(s) for s in flat]
        except Exception as e:  # noqa: BLE001
            out['error'] = '%s: %s' % (type(e).__name__, e)
    return out


def superblock(path):
    """(user block size, superblock version) found by the signature scan."""
    sig = b'\x89HDF\r\n\x1a\n'
    with open(path, 'rb') as f:
        off = 0
        size = os.fstat(f.fileno()).st_size
        while off < size:
            f.seek(off)
            head = f.read(9)
            if head[:8] == sig:
                return off, head[8] if len(head) > 8 else None
            off = 512 if off == 0 else off * 2
    return None, None


def dump(path, max_bytes):
    out = {'file': path, 'size': os.path.getsize(path)}
    out['userblock'], out['superblock'] = superblock(path)
    try:
        f = h5py.File(path, 'r')
    except Exception as e:  # noqa: BLE001 - not HDF5, or broken
        out['error'] = '%s: %s' % (type(e).__name__, e)
        return out
    groups, datatypes, links, datasets = [], [], {}, {}
    seen = set()
    with f:
        def visit(g, gpath):
            groups.append(gpath)
            try:
                names = list(g)
            except Exception as e:  # noqa: BLE001
                links[gpath] = {'kind': 'error', 'error': str(e)}
                return
            for name in names:
                p = gpath.rstrip('/') + '/' + name
                try:
                    lk = g.get(name, getlink=True)
                except Exception as e:  # noqa: BLE001
                    links[p] = {'kind': 'error', 'error': str(e)}
                    continue
                if isinstance(lk, h5py.SoftLink):
                    ent = {'kind': 'soft', 'target': lk.path}
                    try:
                        o = g.get(name)
                        ent['resolves'] = ('dataset' if isinstance(o, h5py.Dataset) else
                                           'group' if isinstance(o, h5py.Group) else
                                           'datatype' if isinstance(o, h5py.Datatype) else None)
                    except Exception:  # noqa: BLE001 - dangling
                        ent['resolves'] = None
                    links[p] = ent
                    continue
                if isinstance(lk, h5py.ExternalLink):
                    links[p] = {'kind': 'external', 'file': lk.filename, 'path': lk.path}
                    continue
                try:
                    o = g.get(name)
                    info = h5py.h5o.get_info(o.id)
                    key = (info.fileno, info.addr)
                except Exception as e:  # noqa: BLE001
                    links[p] = {'kind': 'error', 'error': '%s: %s' % (type(e).__name__, e)}
                    continue
                if isinstance(o, h5py.Dataset):
                    try:
                        datasets[p] = describe(o, max_bytes)
                    except Exception as e:  # noqa: BLE001
                        datasets[p] = {'error': '%s: %s' % (type(e).__name__, e)}
                elif isinstance(o, h5py.Group):
                    if key in seen:
                        links[p] = {'kind': 'hard', 'seen': True}
                        continue
                    seen.add(key)
                    visit(o, p)
                elif isinstance(o, h5py.Datatype):
                    datatypes.append(p)

        root = f['/']
        info = h5py.h5o.get_info(root.id)
        seen.add((info.fileno, info.addr))
        visit(root, '/')
        out['attrs'] = attrs_of(root)
    out.update(groups=groups, datatypes=datatypes, links=links, datasets=datasets)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out-dir')
    ap.add_argument('--max-bytes', type=int, default=256 << 20)
    ap.add_argument('files', nargs='+')
    args = ap.parse_args()
    head = {'h5py': h5py.version.version, 'hdf5': h5py.version.hdf5_version,
            'filters_available': [i for i in KNOWN_FILTERS if h5py.h5z.filter_avail(i)]}
    dumps = [dump(p, args.max_bytes) for p in args.files]
    if args.out_dir:
        os.makedirs(args.out_dir, exist_ok=True)
        for d in dumps:
            d = dict(head, **d)
            d['file'] = os.path.basename(d['file'])
            with open(os.path.join(args.out_dir, d['file'] + '.json'), 'w') as w:
                json.dump(d, w, indent=1, sort_keys=True)
                w.write('\n')
        return
    json.dump(dict(head, files=dumps), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
