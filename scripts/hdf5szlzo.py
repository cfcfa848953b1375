#!/usr/bin/python3
"""Write the szip (4) and LZO (305) filter test data of adapters/hdf5adapter.

The cases have the format of scripts/hdf5filters.py (whose helpers this
script uses) and go to testdata/filters/szip_lzo.json:

- szip: datasets that libhdf5 writes through libaec's szip layer (h5py's
  compression="szip", options "ec" or "nn" and pixels per block 8, 16
  or 32), in 8-, 16-, 32- and 64-bit types of both byte orders, with
  scanlines that are and are not a multiple of the block size, and data
  that makes libaec choose every block option (zero runs to the end of
  the segment, second extension, split samples, uncompressed blocks).
- lzo: arrays and tables that PyTables writes with complib="lzo" (its
  lzo1x_1 compressor through liblzo2), small and large chunks, runs and
  noise (long literal runs, long and far matches). PyTables as built
  for Debian writes no checksum after the stream; lzo_adler32 is a chunk
  laid by hand with the Adler-32 that PyTables built with CHECKSUM
  appends, decoded to the source data.

The decoded bytes are libhdf5's own (hdf5filters.libhdf5_decode), with
PyTables imported so that libhdf5 has its LZO filter.

Run with the Debian interpreter (Debian 12 packages: python3-h5py,
python3-numpy, python3-tables):

    /usr/bin/python3 scripts/hdf5szlzo.py adapters/hdf5adapter/testdata/filters
"""

import json
import os
import shutil
import sys
import tempfile
import zlib

import numpy as np
import tables  # registers PyTables' LZO filter (305) with libhdf5
import h5py
from h5py import h5d, h5p, h5s, h5t, h5z

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hdf5filters as hf  # noqa: E402


def szip_data(dtype, shape, seed, small=False):
    """A mix that makes libaec use every block option: a smooth walk
    (split samples, second extension), constant runs (zero blocks, to the
    end of the segment), and noise over the whole range (uncompressed).
    small: values near the type's minimum, that entropy coding without
    preprocessing shrinks."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "f":
        walk = np.cumsum(rng.normal(0, 1, n)) + 100
        walk[n // 3: n // 2] = 7.5
        walk[n - n // 8:] = rng.normal(0, 1e30, n // 8)
        return walk.astype(dt).reshape(shape)
    info = np.iinfo(dt)
    mid = (int(info.min) + int(info.max)) // 2
    if small:
        walk = np.abs(np.cumsum(rng.integers(-1, 2, n))) % 50 + int(info.min)
        walk[n // 3: n // 2] = info.min
        walk[n - n // 16:] = rng.integers(info.min, int(info.max) + 1, n // 16, dtype=np.int64)
        return walk.astype(dt).reshape(shape)
    walk = np.cumsum(rng.integers(-3, 4, n)) + mid
    walk[n // 3: n // 2] = mid + 5
    walk[n // 2: n // 2 + n // 10] = info.max  # runs at the edge of the range
    walk[n - n // 8:] = rng.integers(info.min, int(info.max) + 1, n // 8, dtype=np.int64)
    return np.clip(walk, info.min, info.max).astype(dt).reshape(shape)


def szip(f, name, dtype, shape, chunks, opts, note=""):
    arr = szip_data(dtype, shape, len(hf.CASES) + 1, small=opts[0] == "ec")
    d = f.create_dataset(name, data=arr, chunks=chunks,
                         compression="szip", compression_opts=opts)
    hf.dump(name, d, note)


def lzo_table(path, name, n, chunk):
    """A PyTables table of n rows in LZO chunks of chunk rows."""
    rng = np.random.default_rng(n)
    rows = np.zeros(n, dtype=[("id", "<i8"), ("x", "<f8"), ("tag", "S6"), ("flag", "u1")])
    rows["id"] = np.arange(n) * 3
    rows["x"] = np.round(rng.normal(0, 10, n), 2)
    rows["tag"] = [b"tag%d" % (i % 7) for i in range(n)]
    rows["flag"] = rng.integers(0, 2, n)
    with tables.open_file(path, "a") as t:
        t.create_table("/", name, obj=rows, chunkshape=(chunk,),
                       filters=tables.Filters(complevel=5, complib="lzo"))


def lzo_array(path, name, arr, chunks, shuffle=False):
    with tables.open_file(path, "a") as t:
        t.create_carray("/", name, obj=arr, chunkshape=chunks,
                        filters=tables.Filters(complevel=9, complib="lzo", shuffle=shuffle))


def main(outdir):
    tmp = tempfile.mkdtemp()
    hf.SCRATCH = os.path.join(tmp, "scratch.h5")
    h5py.File(hf.SCRATCH, "w").close()
    if not h5z.filter_avail(h5z.FILTER_SZIP) or not h5z.filter_avail(305):
        sys.exit("libhdf5 lacks szip or PyTables' LZO filter")

    f = h5py.File(os.path.join(tmp, "szip.h5"), "w")
    szip(f, "szip_nn8_u1", "u1", (40, 64), (20, 64), ("nn", 8))
    szip(f, "szip_ec8_u1", "u1", (40, 64), (20, 64), ("ec", 8))
    szip(f, "szip_nn16_le_i2", "<i2", (30, 48), (30, 48), ("nn", 16))
    szip(f, "szip_nn32_be_u2", ">u2", (30, 96), (15, 96), ("nn", 32), "MSB samples")
    szip(f, "szip_ec16_be_u2", ">u2", (30, 40), (30, 40), ("ec", 16))
    szip(f, "szip_nn8_pad_i2", "<i2", (12, 13), (6, 13), ("nn", 8),
         "13-pixel scanlines: padded to 16 and the padding dropped")
    szip(f, "szip_nn8_small_u1", "u1", (6, 7), (4, 5), ("nn", 8),
         "scanline shorter than a block: set_local makes it the whole chunk")
    szip(f, "szip_nn8_le_i4", "<i4", (40, 20), (20, 10), ("nn", 8),
         "32-bit: byte planes of 8-bit samples")
    szip(f, "szip_ec32_le_u4", "<u4", (20, 40), (20, 40), ("ec", 32))
    szip(f, "szip_nn32_le_f4", "<f4", (20, 40), (20, 40), ("nn", 32))
    szip(f, "szip_nn16_be_f8", ">f8", (16, 24), (16, 24), ("nn", 16), "64-bit byte planes")
    szip(f, "szip_nn8_le_i8", "<i8", (10, 30), (5, 30), ("nn", 8))
    d = f.create_dataset("szip_shuffle_le_i4", data=szip_data("<i4", (32, 32), 99), chunks=(16, 32),
                         shuffle=True, compression="szip", compression_opts=("nn", 8))
    hf.dump("szip_shuffle_le_i4", d, "shuffle then szip")
    big = np.zeros((64, 512), dtype="<u2")
    big[:, 300:] = np.arange(212, dtype="<u2") * 7
    d = f.create_dataset("szip_nn8_zero_runs_u2", data=big, chunks=(64, 512), compression="szip",
                         compression_opts=("nn", 8))
    hf.dump("szip_nn8_zero_runs_u2", d, "zero blocks up to the end of 64-block segments")
    f.close()

    lzo = os.path.join(tmp, "lzo.h5")
    lzo_table(lzo, "lzo_table_small", 100, 32)
    lzo_table(lzo, "lzo_table_large", 5000, 2048)
    rng = np.random.default_rng(7)
    noise = rng.integers(0, 256, (120, 256), dtype=np.uint8)
    noise[40:60] = 0  # a long run among incompressible bytes
    lzo_array(lzo, "lzo_noise_u1", noise, (120, 256))
    ramp = (np.arange(100 * 300, dtype="<i4") // 5).reshape(100, 300)
    lzo_array(lzo, "lzo_ramp_i4", ramp, (60, 300), shuffle=True)
    rep = np.tile(rng.integers(0, 1 << 16, 9000, dtype="<u2"), 3)  # repeats 18 KB back (M4)
    lzo_array(lzo, "lzo_far_u2", rep, (len(rep),))
    with h5py.File(lzo, "a") as h:
        for name in ("lzo_table_small", "lzo_table_large", "lzo_noise_u1", "lzo_ramp_i4", "lzo_far_u2"):
            hf.dump(name, h[name])
        # the checksum variant: a chunk laid by hand
        src = h["lzo_table_small"]
        _, raw = src.id.read_direct_chunk((0,))
        want = src[0:32].tobytes()
        dcpl = src.id.get_create_plist()
        dsid = h5d.create(h.id, b"lzo_adler32", src.id.get_type(), h5s.create_simple((32,)), dcpl=dcpl)
        # the LZO filter sums what it compresses: the shuffled rows
        es = src.dtype.itemsize
        shuffled = np.frombuffer(want, dtype="u1").reshape(-1, es).T.tobytes()
        dsid.write_direct_chunk((0,), raw + zlib.adler32(shuffled).to_bytes(4, "little"), 0)
        hf.dump("lzo_adler32", h["lzo_adler32"], "stream then the Adler-32 of the data (CHECKSUM builds)",
                want=lambda off: want)

    shutil.rmtree(tmp)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "szip_lzo.json"), "w") as out:
        json.dump({"generator": "scripts/hdf5szlzo.py", "h5py": h5py.version.version,
                   "hdf5": h5py.version.hdf5_version, "tables": tables.__version__,
                   "cases": hf.CASES}, out, indent=0)
        out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "adapters/hdf5adapter/testdata/filters")
