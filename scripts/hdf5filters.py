#!/usr/bin/python3
"""Write the HDF5 filter pipeline test data of adapters/hdf5adapter.

Every case is a small chunked dataset that libhdf5 (through h5py) writes
with one filter pipeline. For each stored chunk the script records what
hdf5adapter's decodeChunk needs: the pipeline (ids, flags, client data
values from the dataset creation property list), the raw stored chunk
(read_direct_chunk), its filter mask, the element size, the chunk size in
bytes, and the decoded chunk bytes.

The decoded bytes come from libhdf5 itself, not from this script: the raw
chunk is written with write_direct_chunk (same filter mask) into a second
dataset whose shape is the chunk shape, with the same datatype and the
same creation property list (the script checks that libhdf5 derived the
same client data values for it), and read back with the file datatype as
memory type, so that no conversion happens. That gives the whole chunk,
edge chunks included, as libhdf5 decodes it, in stored byte order.

Bitshuffle (32008) has no Debian plugin either: with BITSHUFFLE_SRC set to
a checkout of https://github.com/kiyo-masui/bitshuffle (the data was made
from commit 526440a16baf), the script builds its HDF5 plugin with gcc
(Debian: gcc, libhdf5-dev, liblz4-dev, libzstd-dev) and writes the
bitshuffle cases through it; without it they are left out.

Zstandard (32015) has no Debian HDF5 plugin: its cases store chunks made
by python3-zstandard with write_direct_chunk, and the decoded bytes are
the source data (full chunks only). The szip (4) and LZO (305) cases are
written by scripts/hdf5szlzo.py, into szip_lzo.json.

Run with the Debian interpreter (Debian 12 packages: python3-h5py,
python3-numpy, hdf5-filter-plugin, hdf5-filter-plugin-blosc-serial,
python3-zstandard):

    HDF5_PLUGIN_PATH=/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins \
        BITSHUFFLE_SRC=/path/to/bitshuffle \
        /usr/bin/python3 scripts/hdf5filters.py adapters/hdf5adapter/testdata/filters
"""

import base64
import ctypes
import ctypes.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np
from h5py import h5d, h5p, h5s, h5t, h5z

try:
    import zstandard
except ImportError:  # the zstd cases need python3-zstandard
    zstandard = None

CASES = []
SCRATCH = None
SCRATCH_N = [0]


def b64(b):
    return base64.b64encode(bytes(b)).decode("ascii")


# h5py's PropDCID.get_filter returns at most 16 client data values (and
# garbage past the real count), too few for n-bit on compound types: call
# H5Pget_filter2 of the libhdf5 h5py uses instead.
_LIB = ctypes.CDLL(ctypes.util.find_library("hdf5_serial") or "libhdf5_serial.so.103")
_LIB.H5Pget_filter2.restype = ctypes.c_int
_LIB.H5Pget_filter2.argtypes = [ctypes.c_int64, ctypes.c_uint, ctypes.POINTER(ctypes.c_uint),
                                ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_uint),
                                ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint)]
_LIB.H5Pset_fill_value.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
_LIB.H5Pmodify_filter.argtypes = [ctypes.c_int64, ctypes.c_int, ctypes.c_uint, ctypes.c_size_t,
                                  ctypes.POINTER(ctypes.c_uint)]


def pipeline(dcpl):
    out = []
    for i in range(dcpl.get_nfilters()):
        flags, n, config = ctypes.c_uint(), ctypes.c_size_t(256), ctypes.c_uint()
        values = (ctypes.c_uint * 256)()  # the API refuses more than 256
        name = ctypes.create_string_buffer(256)
        fid = _LIB.H5Pget_filter2(dcpl.id, i, ctypes.byref(flags), ctypes.byref(n), values,
                                  256, name, ctypes.byref(config))
        if fid < 0:
            raise RuntimeError("H5Pget_filter2 failed")
        out.append({"id": int(fid), "name": name.value.decode("latin-1"),
                    "flags": int(flags.value), "values": [int(v) for v in values[:n.value]]})
    return out


def libhdf5_decode(dsid, chunk_shape, raw, mask):
    """Decode one raw chunk with libhdf5: see the module doc."""
    SCRATCH_N[0] += 1
    name = b"c%d" % SCRATCH_N[0]
    tid = dsid.get_type()
    dcpl = dsid.get_create_plist().copy()
    for f in pipeline(dcpl):
        if f["id"] == 32008:
            # the bitshuffle plugin's set_local is not idempotent: it puts
            # its 3 values in front of the user's each time; give it the
            # user's values again
            user = f["values"][3:]
            _LIB.H5Pmodify_filter(dcpl.id, 32008, f["flags"], len(user),
                                  (ctypes.c_uint * max(1, len(user)))(*user))
    space = h5s.create_simple(tuple(chunk_shape), tuple(chunk_shape))
    with h5py.File(SCRATCH, "a") as s:
        bid = h5d.create(s.id, name, tid, space, dcpl=dcpl)
        if pipeline(bid.get_create_plist()) != pipeline(dsid.get_create_plist()):
            raise RuntimeError("scratch dataset has another pipeline: %r vs %r" % (
                pipeline(bid.get_create_plist()), pipeline(dsid.get_create_plist())))
        bid.write_direct_chunk((0,) * len(chunk_shape), raw, mask)
    # libhdf5 1.10.8 ignores the filter mask of a chunk written directly
    # into an empty index until the file is reopened
    with h5py.File(SCRATCH, "r") as s:
        bid = s[name.decode()].id
        es = tid.get_size()
        out = np.zeros(tuple(chunk_shape), dtype="V%d" % es)
        bid.read(space, space, out, mtype=tid)
    return out.tobytes()


def dump(name, dset, note="", expect="ok", want=None):
    """Record every stored chunk of dset; want(offset) overrides libhdf5."""
    dsid = dset.id
    dcpl = dsid.get_create_plist()
    chunk_shape = dcpl.get_chunk()
    es = dsid.get_type().get_size()
    chunk_bytes = int(np.prod(chunk_shape)) * es
    chunks = []
    for i in range(dsid.get_num_chunks()):
        info = dsid.get_chunk_info(i)
        # h5py 3.7's read_direct_chunk reports mask 0 whatever is stored:
        # take the mask from the chunk index (H5Dget_chunk_info)
        _, raw = dsid.read_direct_chunk(info.chunk_offset)
        mask = info.filter_mask
        if want is not None:
            dec = want(info.chunk_offset)
        elif expect == "ok":
            dec = libhdf5_decode(dsid, chunk_shape, raw, mask)
        else:
            dec = b""
        chunks.append({"offset": [int(o) for o in info.chunk_offset], "mask": int(mask),
                       "raw": b64(raw), "want": b64(dec)})
    CASES.append({"name": name, "note": note, "expect": expect,
                  "dtype": str(dsid.get_type().dtype), "elem_size": es,
                  "chunk_shape": [int(c) for c in chunk_shape], "chunk_bytes": chunk_bytes,
                  "pipeline": pipeline(dcpl), "chunks": chunks})


def data(dtype, shape, seed, lo=-300, hi=300):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        base = np.cumsum(rng.normal(0, 1.5, size=shape).ravel()).reshape(shape)
        return (base + 10).astype(dt)
    info = np.iinfo(dt)
    lo, hi = max(lo, info.min), min(hi, info.max)
    walk = np.cumsum(rng.integers(-7, 8, size=shape).ravel()).reshape(shape)
    return np.clip(walk + (lo + hi) // 2, lo, hi).astype(dt)


def simple(f, name, dtype, shape=(6, 7), chunks=(4, 5), seed=1, note="", expect="ok", **kw):
    d = f.create_dataset(name, data=data(dtype, shape, seed), chunks=chunks, **kw)
    dump(name, d, note, expect)
    return d


def lowlevel(f, name, tid, dcpl, arr, note="", mtype=None):
    shape = arr.shape[:len(dcpl.get_chunk())]  # an array type's dims are not the dataspace's
    space = h5s.create_simple(shape, shape)
    dsid = h5d.create(f.id, name.encode(), tid, space, dcpl=dcpl)
    dsid.write(h5s.ALL, h5s.ALL, arr, mtype=mtype)
    dump(name, h5py.Dataset(dsid), note)


def nbit_type(base, precision, offset):
    tid = base.copy()
    tid.set_precision(precision)
    tid.set_offset(offset)
    return tid


def chunked(chunks, *setters):
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_chunk(chunks)
    for s in setters:
        s(dcpl)
    return dcpl


def build_bitshuffle(tmp):
    """Build the bitshuffle HDF5 plugin from BITSHUFFLE_SRC; True if loaded."""
    src = os.environ.get("BITSHUFFLE_SRC")
    if not src:
        return False
    d = os.path.join(src, "src")
    plugdir = os.path.join(tmp, "bshuf")
    os.makedirs(plugdir)
    subprocess.run(["gcc", "-O2", "-fPIC", "-shared", "-DZSTD_SUPPORT", "-I" + d,
                    "-I/usr/include/hdf5/serial"] +
                   [os.path.join(d, c) for c in ("bshuf_h5plugin.c", "bshuf_h5filter.c",
                                                 "bitshuffle.c", "bitshuffle_core.c", "iochain.c")] +
                   ["-llz4", "-lzstd", "-L/usr/lib/x86_64-linux-gnu/hdf5/serial", "-lhdf5",
                    "-o", os.path.join(plugdir, "libh5bshuf.so")], check=True)
    h5py.h5pl.append(plugdir.encode())
    return bool(h5z.filter_avail(32008))


def main(outdir):
    global SCRATCH
    tmp = tempfile.mkdtemp()
    SCRATCH = os.path.join(tmp, "scratch.h5")
    h5py.File(SCRATCH, "w").close()
    f = h5py.File(os.path.join(tmp, "filters.h5"), "w")

    # deflate, shuffle, fletcher32
    for lvl in (1, 6, 9):
        simple(f, "deflate%d_i4" % lvl, "<i4", compression="gzip", compression_opts=lvl, seed=lvl)
    simple(f, "deflate_u1_odd", "u1", shape=(7, 9), chunks=(3, 5), compression="gzip")
    for dt in ("<i2", ">i2", "<i4", ">f8", "<f4", "<u8"):
        simple(f, "shuffle_deflate_%s" % dt.replace("<", "le").replace(">", "be"), dt,
               shuffle=True, compression="gzip", seed=3)
    simple(f, "shuffle_only_i4", "<i4", shuffle=True)
    simple(f, "shuffle_u1", "u1", shuffle=True, compression="gzip")
    sd = f.create_dataset("shuffle_S3", data=np.array([b"ab%d" % i for i in range(10)], dtype="S3"),
                          chunks=(4,), shuffle=True, compression="gzip")
    dump("shuffle_S3", sd, "3-byte string elements")
    simple(f, "fletcher32_i4", "<i4", fletcher32=True)
    simple(f, "fletcher32_u1_odd", "u1", shape=(7, 9), chunks=(3, 5), fletcher32=True,
           note="odd chunk length: the checksum's last byte case")
    simple(f, "shuffle_deflate_fletcher32_f8", ">f8", shuffle=True, compression="gzip",
           fletcher32=True)
    # fletcher32 before shuffle: shuffle then sees the 4 checksum bytes as
    # a tail that does not fill an 8-byte element
    arr = data("<f8", (6, 7), 5)
    lowlevel(f, "fletcher32_then_shuffle_f8", h5t.IEEE_F64LE,
             chunked((4, 5), lambda p: p.set_fletcher32(), lambda p: p.set_shuffle()), arr,
             "shuffle after fletcher32: 4 leftover bytes")
    arr = data("<i2", (6, 7), 5)
    lowlevel(f, "fletcher32_then_shuffle_i2_deflate", h5t.STD_I16LE,
             chunked((4, 5), lambda p: p.set_fletcher32(), lambda p: p.set_shuffle(),
                     lambda p: p.set_deflate(5)), arr, "shuffle of 44 bytes of 2-byte elements")

    # scale-offset, integers
    for dt in ("<i2", ">i2", "u1", "i1", "<u4", ">i4", "<i8", ">u8"):
        for mb in (0, 4, 9):
            if mb > 8 * np.dtype(dt).itemsize:
                continue
            nm = "scaleoffset_int%d_%s" % (mb, dt.replace("<", "le").replace(">", "be"))
            simple(f, nm, dt, scaleoffset=mb, seed=mb + 7)
    simple(f, "scaleoffset_int0_fill", "<i4", scaleoffset=0, fillvalue=-7, seed=2,
           note="fill value defined: fill elements stored as all ones")
    d = f.create_dataset("scaleoffset_int0_hasfill", shape=(6, 7), chunks=(4, 5), dtype=">i2",
                         scaleoffset=0, fillvalue=5)
    v = data(">i2", (6, 7), 4)
    v[::2, 1::3] = 5
    d[...] = v
    dump("scaleoffset_int0_hasfill", d, "elements equal to the fill value")
    d = f.create_dataset("scaleoffset_int0_const", shape=(8,), chunks=(4,), dtype="<i4",
                         scaleoffset=0, fillvalue=0)
    d[...] = np.array([9, 9, 9, 9, 0, 0, 0, 0])
    dump("scaleoffset_int0_const", d, "constant chunk, all-fill chunk")
    simple(f, "scaleoffset_int_full_i2", "<i2", scaleoffset=16, note="minbits = full precision")
    wide = data("<i4", (6, 7), 9, lo=-2**31, hi=2**31 - 1) * 1000003
    d = f.create_dataset("scaleoffset_int0_wide", data=wide, chunks=(4, 5), scaleoffset=0)
    dump("scaleoffset_int0_wide", d, "span needs all 32 bits")
    simple(f, "scaleoffset_int_deflate", "<i4", scaleoffset=0, compression="gzip")

    # scale-offset with the fill value undefined (H5Pset_fill_value(NULL))
    def nofill(p):
        _LIB.H5Pset_fill_value(p.id, h5t.NATIVE_INT32.id, None)
    so = lambda minbits: (lambda p: p.set_scaleoffset(h5z.SO_INT, minbits))
    lowlevel(f, "scaleoffset_int0_nofill_i4", h5t.STD_I32LE, chunked((4, 5), nofill, so(0)),
             data("<i4", (6, 7), 61), "fill value undefined")
    lowlevel(f, "scaleoffset_int5_nofill_u2be", h5t.STD_U16BE, chunked((4, 5), nofill, so(5)),
             data(">u2", (6, 7), 62, lo=0, hi=600), "fill value undefined")
    lowlevel(f, "scaleoffset_int0_nofill_const", h5t.STD_I32LE, chunked((4, 5), nofill, so(0)),
             np.full((6, 7), -12345, dtype="<i4"), "constant chunks, fill undefined: minbits 0")
    sof = lambda d: (lambda p: p.set_scaleoffset(h5z.SO_FLOAT_DSCALE, d))
    lowlevel(f, "scaleoffset_d2_nofill_f8", h5t.IEEE_F64LE, chunked((4, 5), nofill, sof(2)),
             data("<f8", (6, 7), 63), "fill value undefined")
    lowlevel(f, "scaleoffset_d3_nofill_const_f4be", h5t.IEEE_F32BE, chunked((4, 5), nofill, sof(3)),
             np.full((6, 7), 7.125, dtype="<f4"), "constant float chunks, fill undefined: minbits 0")

    # scale-offset, floats (D-scaling)
    for dt in ("<f4", ">f4", "<f8", ">f8"):
        for dscale in (0, 2, 3):
            nm = "scaleoffset_d%d_%s" % (dscale, dt.replace("<", "le").replace(">", "be"))
            simple(f, nm, dt, scaleoffset=dscale, seed=dscale + 11)
    d = f.create_dataset("scaleoffset_d2_fill_f8", shape=(6, 7), chunks=(4, 5), dtype="<f8",
                         scaleoffset=2, fillvalue=-1.5)
    v = data("<f8", (6, 7), 12)
    v[1::2, ::3] = -1.5
    d[...] = v
    dump("scaleoffset_d2_fill_f8", d, "float fill value")
    d = f.create_dataset("scaleoffset_d1_fill_f4", shape=(6, 7), chunks=(4, 5), dtype=">f4",
                         scaleoffset=1, fillvalue=2.25)
    v = data(">f4", (6, 7), 13)
    v[::3, ::2] = 2.25
    d[...] = v
    dump("scaleoffset_d1_fill_f4", d, "float fill value, big-endian")

    # n-bit
    nb = lambda p: p.set_filter(h5z.FILTER_NBIT, h5z.FLAG_OPTIONAL, ())  # H5Pset_nbit
    for base, nm, prec, off in ((h5t.STD_I32LE, "nbit_i4le_p17o3", 17, 3),
                                (h5t.STD_I32BE, "nbit_i4be_p17o3", 17, 3),
                                (h5t.STD_U16LE, "nbit_u2le_p12o0", 12, 0),
                                (h5t.STD_U16BE, "nbit_u2be_p5o9", 5, 9),
                                (h5t.STD_I8LE, "nbit_i1_p5o2", 5, 2),
                                (h5t.STD_I64LE, "nbit_i8le_p40o8", 40, 8),
                                (h5t.STD_U64BE, "nbit_u8be_p33o31", 33, 31),
                                (h5t.STD_U32LE, "nbit_u4le_full", 32, 0)):
        tid = nbit_type(base, prec, off)
        hi = 2 ** (prec - 1) - 1
        arr = data("<i8", (6, 7), prec, lo=-hi, hi=hi)
        if tid.get_sign() == h5t.SGN_NONE:
            arr = data("<u8", (6, 7), prec, lo=0, hi=2 ** prec - 1)
        lowlevel(f, nm, tid, chunked((4, 5), nb), arr)
    tid = nbit_type(h5t.STD_I32LE, 17, 3)
    lowlevel(f, "nbit_deflate_i4", tid, chunked((4, 5), nb, lambda p: p.set_deflate(6)),
             data("<i4", (6, 7), 21, lo=-60000, hi=60000))
    for base, nm in ((h5t.IEEE_F32BE, "nbit_f4be"), (h5t.IEEE_F32LE, "nbit_f4le")):
        tid = base.copy()
        tid.set_fields(26, 20, 6, 7, 13)
        tid.set_offset(7)
        tid.set_precision(20)
        tid.set_ebias(31)
        lowlevel(f, nm, tid, chunked((4, 5), nb), data("<f4", (6, 7), 22))
    tid = h5t.IEEE_F64LE.copy()
    tid.set_fields(46, 35, 11, 3, 32)
    tid.set_offset(3)
    tid.set_precision(44)
    lowlevel(f, "nbit_f8le", tid, chunked((4, 5), nb), data("<f8", (6, 7), 23))
    # x86 long double: 16 bytes, 80 bits of precision
    lowlevel(f, "nbit_longdouble", h5t.NATIVE_LDOUBLE.copy(), chunked((4, 5), nb),
             data("<f8", (6, 7), 24).astype(np.longdouble), "16-byte type, 80-bit precision")
    # compound with nested compound, array and string members
    inner = h5t.create(h5t.COMPOUND, 6)
    inner.insert(b"c", 0, nbit_type(h5t.STD_U16LE, 9, 4))
    inner.insert(b"d", 2, nbit_type(h5t.STD_I32BE, 20, 6))
    st = h5t.C_S1.copy()
    st.set_size(3)
    arrt = h5t.array_create(nbit_type(h5t.STD_I16LE, 7, 1), (3,))
    ftype = h5t.create(h5t.COMPOUND, 26)
    ftype.insert(b"a", 0, nbit_type(h5t.STD_I32LE, 11, 2))
    ftype.insert(b"b", 4, inner)
    ftype.insert(b"e", 10, arrt)
    ftype.insert(b"g", 16, st)
    ftype.insert(b"h", 19, h5t.STD_U8LE)
    ftype.insert(b"i", 20, nbit_type(h5t.STD_U16BE, 10, 3))
    mdt = np.dtype([("a", "<i4"), ("b", [("c", "<u2"), ("d", "<i4")]), ("e", "<i2", (3,)),
                    ("g", "S3"), ("h", "u1"), ("i", "<u2")])
    rng = np.random.default_rng(31)
    arr = np.zeros((6, 7), dtype=mdt)
    arr["a"] = rng.integers(-1000, 1000, size=(6, 7))
    arr["b"]["c"] = rng.integers(0, 500, size=(6, 7))
    arr["b"]["d"] = rng.integers(-500000, 500000, size=(6, 7))
    arr["e"] = rng.integers(-60, 60, size=(6, 7, 3))
    arr["g"] = [[b"x%d" % (i * 7 + j) for j in range(7)] for i in range(6)]
    arr["h"] = rng.integers(0, 255, size=(6, 7))
    arr["i"] = rng.integers(0, 1000, size=(6, 7))
    lowlevel(f, "nbit_compound", ftype, chunked((4, 5), nb), arr,
             "compound: nested compound, array, string and full-precision members")
    arrt2 = h5t.array_create(nbit_type(h5t.STD_U32BE, 13, 5), (2, 2))
    arr = np.random.default_rng(32).integers(0, 8000, size=(6, 7, 2, 2)).astype("<u4")
    lowlevel(f, "nbit_array", arrt2, chunked((4, 5), nb), arr, "array of atomic",
             mtype=h5t.array_create(h5t.STD_U32LE, (2, 2)))

    # filter mask: an optional filter recorded as not applied
    d = f.create_dataset("mask_shuffle_deflate", shape=(8, 5), chunks=(4, 5), dtype="<i4",
                         shuffle=True, compression="gzip")
    d[...] = data("<i4", (8, 5), 41)
    src = data("<i4", (4, 5), 42)
    shuffled = np.frombuffer(src.tobytes(), dtype="u1").reshape(-1, 4).T.copy().tobytes()
    d.id.write_direct_chunk((4, 0), shuffled, 0b10)
    dump("mask_shuffle_deflate", d, "chunk (4,0) stored with mask 0b10: deflate skipped")
    d = f.create_dataset("mask_all", shape=(4, 5), chunks=(4, 5), dtype="<i2",
                         shuffle=True, compression="gzip", fletcher32=True)
    d.id.write_direct_chunk((0, 0), data("<i2", (4, 5), 43).tobytes(), 0b111)
    dump("mask_all", d, "every filter skipped")

    # an optional filter that fails on an incompressible chunk (lzf):
    # libhdf5 stores the chunk without it and sets its bit in the chunk's
    # filter mask (libhdf5 1.10's deflate does not fail: it keeps a longer
    # stream)
    noise = np.random.default_rng(71).integers(0, 256, size=(8, 40)).astype("u1")
    noise[4:] = 7  # the second chunk compresses
    d = f.create_dataset("deflate_incompressible", data=noise, chunks=(4, 40), compression="gzip",
                         shuffle=True)
    dump("deflate_incompressible", d, "libhdf5 1.10 keeps a deflate stream longer than the chunk")
    d = f.create_dataset("mask_lzf_failed", data=noise, chunks=(4, 40), compression="lzf")
    dump("mask_lzf_failed", d, "lzf failed on the noise chunk (mask 0b1)")

    # plugins: blosc, bzip2, lz4
    for comp, cname in ((0, "blosclz"), (1, "lz4"), (2, "lz4hc"), (3, "snappy"), (4, "zlib"),
                        (5, "zstd")):
        for sh in (0, 1, 2):
            nm = "blosc_%s_shuffle%d" % (cname, sh)
            try:
                simple(f, nm, "<i4" if sh != 2 else ">f8", shape=(36, 5), chunks=(32, 5),
                       compression=32001, compression_opts=(0, 0, 0, 0, 5, sh, comp), seed=comp)
            except Exception as e:  # a compressor this libblosc lacks
                print("skip", nm, e, file=sys.stderr)
    simple(f, "blosc_clevel0", "<i4", compression=32001, compression_opts=(0, 0, 0, 0, 0, 1, 0),
           note="clevel 0: memcpyed frame")
    simple(f, "blosc_u1", "u1", shape=(300,), chunks=(256,), compression=32001,
           compression_opts=(0, 0, 0, 0, 9, 1, 1))
    for bs in (1, 9):
        simple(f, "bzip2_%d" % bs, "<i4", compression=307, compression_opts=(bs,), seed=bs)
    simple(f, "bzip2_shuffle_f8", ">f8", compression=307, compression_opts=(9,), shuffle=True)
    simple(f, "lz4_default", "<i4", compression=32004, compression_opts=(0,))
    simple(f, "lz4_block64", "<i4", shape=(40, 9), chunks=(20, 9), compression=32004,
           compression_opts=(64,), note="several lz4 blocks per chunk")
    d = f.create_dataset("lz4_raw_blocks", data=np.random.default_rng(5).integers(
        0, 2**31, size=(40,)).astype("<i4"), chunks=(40,), compression=32004,
        compression_opts=(32,))
    dump("lz4_raw_blocks", d, "incompressible blocks stored raw")
    simple(f, "lzf_i4", "<i4", compression="lzf")
    simple(f, "lzf_shuffle_f8", ">f8", compression="lzf", shuffle=True, shape=(36, 5),
           chunks=(32, 5))

    # zstd (32015): no Debian plugin; chunks written directly
    if zstandard is not None:
        dcpl = chunked((4, 5), lambda p: p.set_filter(32015, h5z.FLAG_OPTIONAL, (3,)))
        space = h5s.create_simple((8, 10), (8, 10))
        dsid = h5d.create(f.id, b"zstd", h5t.STD_I32LE, space, dcpl=dcpl)
        src = data("<i4", (8, 10), 51)
        for i in range(0, 8, 4):
            for j in range(0, 10, 5):
                b = src[i:i + 4, j:j + 5].tobytes()
                if (i, j) == (4, 5):  # two frames
                    z = zstandard.ZstdCompressor(level=3)
                    raw = z.compress(b[:40]) + z.compress(b[40:])
                else:
                    raw = zstandard.ZstdCompressor(level=1 + i + j).compress(b)
                dsid.write_direct_chunk((i, j), raw, 0)
        dump("zstd", h5py.Dataset(dsid), "python3-zstandard frames; chunk (4,5) is two frames",
             want=lambda off: src[off[0]:off[0] + 4, off[1]:off[1] + 5].tobytes())
        dcpl = chunked((4, 5), lambda p: p.set_shuffle(),
                       lambda p: p.set_filter(32015, h5z.FLAG_OPTIONAL, (3,)))
        dsid = h5d.create(f.id, b"zstd_shuffle", h5t.IEEE_F64BE, h5s.create_simple((4, 5)),
                          dcpl=dcpl)
        src2 = data(">f8", (4, 5), 52)
        sh = np.frombuffer(src2.tobytes(), dtype="u1").reshape(-1, 8).T.copy().tobytes()
        dsid.write_direct_chunk((0, 0), zstandard.ZstdCompressor().compress(sh), 0)
        dump("zstd_shuffle", h5py.Dataset(dsid), "shuffle then python3-zstandard",
             want=lambda off: src2.tobytes())

    # bitshuffle (32008): compression_opts = (block size, compression),
    # compression 0 none, 2 lz4, 3 zstd (then the zstd level)
    if build_bitshuffle(tmp):
        simple(f, "bitshuffle_i4", "<i4", shape=(40, 10), chunks=(37, 10), compression=32008,
               compression_opts=(0, 0), note="370 elements: one 368-element block, 2 left over")
        simple(f, "bitshuffle_block64_u2be", ">u2", shape=(40, 10), chunks=(37, 10),
               compression=32008, compression_opts=(64, 0), note="several blocks")
        simple(f, "bitshuffle_lz4_i4", "<i4", shape=(40, 10), chunks=(37, 10), compression=32008,
               compression_opts=(0, 2))
        simple(f, "bitshuffle_lz4_block16_f8", ">f8", shape=(40, 10), chunks=(37, 10),
               compression=32008, compression_opts=(16, 2), note="many lz4 blocks")
        simple(f, "bitshuffle_lz4_u1", "u1", shape=(50, 7), chunks=(37, 7), compression=32008,
               compression_opts=(0, 2))
        simple(f, "bitshuffle_zstd_i2", "<i2", shape=(40, 10), chunks=(37, 10), compression=32008,
               compression_opts=(0, 3, 5))
        simple(f, "bitshuffle_zstd_block8_u4", "<u4", shape=(40, 10), chunks=(37, 10),
               compression=32008, compression_opts=(8, 3, 1))

    # szip (4) and LZO (305): scripts/hdf5szlzo.py

    f.close()
    shutil.rmtree(tmp)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "cases.json"), "w") as out:
        json.dump({"generator": "scripts/hdf5filters.py", "h5py": h5py.version.version,
                   "hdf5": h5py.version.hdf5_version, "cases": CASES}, out, indent=0)
        out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "adapters/hdf5adapter/testdata/filters")
