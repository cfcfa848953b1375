#!/usr/bin/python3
"""arraybench.py: the Python side of scripts/arraybench.sh.

    arraybench.py gen DIR      writes DIR/data/a.zarr, DIR/data/a.h5,
                               DIR/data/s.zarr and DIR/ref.bin
    arraybench.py zarr URL     reads the Zarr v2 array at URL whole with
                               zarr-python over fsspec's HTTP filesystem
    arraybench.py h5py URL DS  reads dataset DS of the HDF5 file at URL
                               whole with h5py over an fsspec HTTP file

The readers write the array's elements to standard output as NumPy's
tobytes() gives them: C order, little endian, as `pipefs array --read`
writes them.

The array is 2048 x 2048 float32 (16 MiB), a smooth field plus rounded
noise, so that it compresses to about 60 %. It is stored three ways, each
in 1,024 chunks of 64 x 64 (16 KiB):

  a.zarr  Zarr v2 (zarr-python 2.13), compressor zlib level 1: 1,024
          chunk objects;
  a.h5    HDF5 (h5py), dataset /a, gzip level 1 (deflate filter): 1,024
          chunks in one object, version 1 B-tree index;
  s.zarr  Zarr v3 sharded (sharding_indexed, written here: zarr-python
          2.13 cannot), shards of 512 x 512 holding 8 x 8 inner chunks of
          64 x 64 under bytes + gzip level 1, index at the end (bytes +
          crc32c): 16 shard objects.

ref.bin is the array's tobytes(), what every reader must write.
Needs Debian's python3-zarr, python3-fsspec, python3-aiohttp, python3-h5py.
"""
import json
import os
import struct
import sys
import zlib

import numpy as np

SHAPE = (2048, 2048)
CHUNK = (64, 64)
SHARD = (512, 512)


def array():
    rng = np.random.default_rng(22)
    y, x = np.mgrid[0:SHAPE[0], 0:SHAPE[1]].astype(np.float32)
    a = np.sin(x / 97) * np.cos(y / 61) * 1000 + rng.normal(0, 4, SHAPE)
    return a.round(1).astype('<f4')


def crc32c(b):
    """CRC-32C (Castagnoli), bit by bit: shard indexes are small."""
    crc = 0xFFFFFFFF
    for byte in b:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def gzip1(b):
    c = zlib.compressobj(1, zlib.DEFLATED, 31)
    return c.compress(b) + c.flush()


def write_sharded(path, a):
    os.makedirs(path, exist_ok=True)
    meta = {
        'zarr_format': 3, 'node_type': 'array', 'shape': list(SHAPE),
        'data_type': 'float32',
        'chunk_grid': {'name': 'regular', 'configuration': {'chunk_shape': list(SHARD)}},
        'chunk_key_encoding': {'name': 'default', 'configuration': {'separator': '/'}},
        'fill_value': 0.0,
        'codecs': [{'name': 'sharding_indexed', 'configuration': {
            'chunk_shape': list(CHUNK),
            'codecs': [{'name': 'bytes', 'configuration': {'endian': 'little'}},
                       {'name': 'gzip', 'configuration': {'level': 1}}],
            'index_codecs': [{'name': 'bytes', 'configuration': {'endian': 'little'}},
                             {'name': 'crc32c'}],
            'index_location': 'end'}}],
        'attributes': {},
    }
    with open(os.path.join(path, 'zarr.json'), 'w') as f:
        json.dump(meta, f)
    per = (SHARD[0] // CHUNK[0], SHARD[1] // CHUNK[1])
    for si in range(SHAPE[0] // SHARD[0]):
        for sj in range(SHAPE[1] // SHARD[1]):
            body, index = b'', b''
            for ci in range(per[0]):
                for cj in range(per[1]):
                    y0 = si * SHARD[0] + ci * CHUNK[0]
                    x0 = sj * SHARD[1] + cj * CHUNK[1]
                    enc = gzip1(a[y0:y0 + CHUNK[0], x0:x0 + CHUNK[1]].tobytes())
                    index += struct.pack('<QQ', len(body), len(enc))
                    body += enc
            d = os.path.join(path, 'c', str(si))
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, str(sj)), 'wb') as f:
                f.write(body + index + struct.pack('<I', crc32c(index)))


def gen(top):
    import h5py
    import numcodecs
    import zarr
    data = os.path.join(top, 'data')
    os.makedirs(data, exist_ok=True)
    a = array()
    z = zarr.open(os.path.join(data, 'a.zarr'), mode='w', shape=SHAPE, chunks=CHUNK,
                  dtype='<f4', compressor=numcodecs.Zlib(level=1), fill_value=0)
    z[:] = a
    with h5py.File(os.path.join(data, 'a.h5'), 'w') as f:
        f.create_dataset('a', data=a, chunks=CHUNK, compression='gzip', compression_opts=1)
    write_sharded(os.path.join(data, 's.zarr'), a)
    with open(os.path.join(top, 'ref.bin'), 'wb') as f:
        f.write(a.tobytes())


def main():
    cmd = sys.argv[1]
    if cmd == 'gen':
        gen(sys.argv[2])
        return
    import fsspec
    if cmd == 'zarr':
        import zarr
        a = zarr.open(fsspec.get_mapper(sys.argv[2]), mode='r')[:]
    elif cmd == 'h5py':
        import h5py
        with fsspec.open(sys.argv[2], 'rb') as f, h5py.File(f, 'r') as h:
            a = h[sys.argv[3]][:]
    else:
        sys.exit(__doc__)
    sys.stdout.buffer.write(a.tobytes(order='C'))


if __name__ == '__main__':
    main()
