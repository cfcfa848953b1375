#!/usr/bin/python3
"""precomputedfixtures.py [OUTDIR]: writes the precomputed volumes that the
neuroglancer-precomputed: adapter's tests read, and the voxels each scale
must read as.

The volumes go to OUTDIR (default adapters/precomputedadapter/testdata).
This is a writer of its own, from the specifications (google/neuroglancer
src/datasource/precomputed/volume.md and sharded.md,
src/sliceview/compressed_segmentation/README.md), with numpy and PIL
(libjpeg, zlib) writing the chunks; run with Debian 12's packages:

    apt-get install python3-numpy python3-pil
    /usr/bin/python3 scripts/precomputedfixtures.py

Every scale of a volume holds the same voxels, in another encoding or
storage; OUTDIR/VOL/expected/SCALE.bin holds what SCALE must read as:
C-order [channel, z, y, x] little-endian elements, missing chunks as 0.
For jpeg scales, it is what libjpeg (PIL) decodes from the chunks written.
Everything is deterministic (gzip with mtime 0, fixed JPEG quality).
"""
import gzip
import io
import json
import os
import shutil
import struct
import sys

import numpy as np
from PIL import Image


# --- murmurhash3_x86_128, checked against TensorStore's test values ---

def _rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF


def _fmix(h):
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    h ^= h >> 16
    return h


def murmur3_x86_128_u64(value, seed=0):
    """The four 32-bit words of MurmurHash3_x86_128 of value as 8 LE bytes."""
    c1, c2, c3 = 0x239B961B, 0xAB0E9789, 0x38B34AE5
    m = 0xFFFFFFFF
    h1 = h2 = h3 = h4 = seed
    data = struct.pack("<Q", value)
    k2 = struct.unpack("<I", data[4:])[0]
    k2 = (k2 * c2) & m
    k2 = _rotl(k2, 16)
    k2 = (k2 * c3) & m
    h2 ^= k2
    k1 = struct.unpack("<I", data[:4])[0]
    k1 = (k1 * c1) & m
    k1 = _rotl(k1, 15)
    k1 = (k1 * c2) & m
    h1 ^= k1
    h1 ^= 8
    h2 ^= 8
    h3 ^= 8
    h4 ^= 8
    h1 = (h1 + h2 + h3 + h4) & m
    h2 = (h2 + h1) & m
    h3 = (h3 + h1) & m
    h4 = (h4 + h1) & m
    h1, h2, h3, h4 = _fmix(h1), _fmix(h2), _fmix(h3), _fmix(h4)
    h1 = (h1 + h2 + h3 + h4) & m
    h2 = (h2 + h1) & m
    h3 = (h3 + h1) & m
    h4 = (h4 + h1) & m
    return h1, h2, h3, h4


# tensorstore/kvstore/neuroglancer_uint64_sharded/murmurhash3_test.cc
assert murmur3_x86_128_u64(0, 0) == (0xE028AE41, 0x4772B084, 0x4772B084, 0x4772B084)
assert murmur3_x86_128_u64(0, 1) == (0x5AD58A7E, 0x54337108, 0x54337108, 0x54337108)
assert murmur3_x86_128_u64(1, 0) == (0x16D4CE9A, 0xE8BD67D6, 0xE8BD67D6, 0xE8BD67D6)
assert murmur3_x86_128_u64(42, 2) == (0x2D83D9C7, 0x082115EB, 0x082115EB, 0x082115EB)


def murmur_hash(value):
    h = murmur3_x86_128_u64(value)
    return h[1] << 32 | h[0]


# --- compressed Morton code (volume.md) ---

def morton_bits(grid):
    return [int(g - 1).bit_length() if g > 1 else 0 for g in grid]


def compressed_morton(g, bits):
    z, j = 0, 0
    for i in range(max(bits)):
        for d in range(3):
            if i < bits[d]:
                z |= ((g[d] >> i) & 1) << j
                j += 1
    return z


# tensorstore/driver/neuroglancer_precomputed/metadata_test.cc
assert morton_bits([4, 4, 12]) == [2, 2, 4]
assert compressed_morton((0b10, 0b11, 0b0), (4, 2, 1)) == 0b11010
assert compressed_morton((0b1001, 0b10, 0b1), (4, 2, 1)) == 0b1010101


# --- compressed_segmentation (README.md) ---

def cseg_channel(vol, block, dtype):
    """vol: [z, y, x] array; block: [bx, by, bz]. Returns uint32 words."""
    sz, sy, sx = vol.shape
    bx, by, bz = block
    gx, gy, gz = -(-sx // bx), -(-sy // by), -(-sz // bz)
    headers = []
    body = []
    base = 2 * gx * gy * gz
    for z in range(gz):
        for y in range(gy):
            for x in range(gx):
                part = vol[z * bz:(z + 1) * bz, y * by:(y + 1) * by, x * bx:(x + 1) * bx]
                lut = sorted(set(part.reshape(-1).tolist()))
                nbits = next(b for b in (0, 1, 2, 4, 8, 16, 32) if (1 << b) >= len(lut))
                index = {v: i for i, v in enumerate(lut)}
                full = np.full((bz, by, bx), lut[0], dtype=dtype)
                full[:part.shape[0], :part.shape[1], :part.shape[2]] = part
                idx = [index[v] for v in full.reshape(-1).tolist()]
                nwords = (nbits * len(idx) + 31) // 32
                words = [0] * nwords
                for i, v in enumerate(idx):
                    bit = nbits * i
                    if nbits:
                        words[bit // 32] |= v << (bit % 32)
                vals_off = base + len(body)
                body.extend(words)
                lut_off = base + len(body)
                for v in lut:
                    if dtype == np.uint64:
                        body.extend([v & 0xFFFFFFFF, v >> 32])
                    else:
                        body.append(v)
                headers.extend([lut_off | nbits << 24, vals_off])
    return headers + body


def cseg_encode(chunk, block, dtype):
    """chunk: [c, z, y, x]. The multi-channel format."""
    channels = [cseg_channel(chunk[c], block, dtype) for c in range(chunk.shape[0])]
    out = []
    off = len(channels)
    for ch in channels:
        out.append(off)
        off += len(ch)
    for ch in channels:
        out.extend(ch)
    return struct.pack("<%dI" % len(out), *out)


# TensorStore's EncodeChannelTest.Basic: uint64, [z, y, x] = [2, 2, 2], block [1, 2, 2] (zyx)
assert cseg_channel(np.array([4, 3, 5, 4, 1, 3, 3, 3], dtype=np.uint64).reshape(2, 2, 2), (2, 2, 1), np.uint64) == \
    [5 | (2 << 24), 4, 12 | (1 << 24), 11, 0b01100001, 3, 0, 4, 0, 5, 0, 0b1110, 1, 0, 3, 0]


# --- chunk encodings ---

def image_of(chunk, transposed):
    """The image of a chunk [c, z, y, x]: rows of x (or, transposed, of y*z
    pixels, as TensorStore lays them out), components the channels."""
    c, z, y, x = chunk.shape
    flat = chunk.reshape(c, -1)
    h, w = (x, y * z) if transposed else (y * z, x)
    if c == 1:
        return flat[0].reshape(h, w)
    return np.stack(list(flat), -1).reshape(h, w, c)


def encode(chunk, scale):
    enc = scale["encoding"]
    if enc == "raw":
        return chunk.astype(chunk.dtype.newbyteorder("<")).tobytes()
    if enc == "compressed_segmentation":
        return cseg_encode(chunk, scale["compressed_segmentation_block_size"], chunk.dtype.type)
    img = image_of(chunk, scale.get("_transposed", False))
    buf = io.BytesIO()
    if enc == "jpeg":
        Image.fromarray(img).save(buf, "JPEG", quality=95, subsampling=0)
    elif img.dtype == np.uint16:
        Image.fromarray(img).save(buf, "PNG")
    else:
        Image.fromarray(img).save(buf, "PNG", optimize=True)
    return buf.getvalue()


def decoded(data, chunk, scale):
    """What a jpeg chunk reads as, by libjpeg (PIL)."""
    img = np.asarray(Image.open(io.BytesIO(data)))
    c, z, y, x = chunk.shape
    flat = img.reshape(-1, c) if c > 1 else img.reshape(-1, 1)
    return flat.T.reshape(c, z, y, x)


def chunks_of(vol, size, chunk):
    """Yields (grid cell [x, y, z], chunk [c, z, y, x] truncated at the edge)."""
    grid = [-(-size[i] // chunk[i]) for i in range(3)]
    for gz in range(grid[2]):
        for gy in range(grid[1]):
            for gx in range(grid[0]):
                lo = [gx * chunk[0], gy * chunk[1], gz * chunk[2]]
                hi = [min(lo[i] + chunk[i], size[i]) for i in range(3)]
                yield (gx, gy, gz), lo, hi, vol[:, lo[2]:hi[2], lo[1]:hi[1], lo[0]:hi[0]]


def gz(b):
    return gzip.compress(b, mtime=0)


def write_scale(outdir, vol, scale, missing=(), gz_chunks=(), pad_edges=False):
    """Writes one scale; returns the voxels it reads as."""
    key = scale["key"]
    size, chunk = scale["size"], scale["chunk_sizes"][0]
    off = scale.get("voxel_offset", [0, 0, 0])
    d = os.path.join(outdir, key)
    os.makedirs(d)
    expect = np.zeros_like(vol)
    sharding = scale.get("sharding")
    grid = [-(-size[i] // chunk[i]) for i in range(3)]
    bits = morton_bits(grid)
    stored = {}  # chunk id -> bytes
    for g, lo, hi, part in chunks_of(vol, size, chunk):
        if g in missing:
            continue
        src = part
        if pad_edges:
            src = np.zeros((vol.shape[0], chunk[2], chunk[1], chunk[0]), dtype=vol.dtype)
            src[:, :part.shape[1], :part.shape[2], :part.shape[3]] = part
        data = encode(src, scale)
        got = decoded(data, part, scale) if scale["encoding"] == "jpeg" else part
        expect[:, lo[2]:hi[2], lo[1]:hi[1], lo[0]:hi[0]] = got
        if sharding is None:
            name = "%d-%d_%d-%d_%d-%d" % (lo[0] + off[0], hi[0] + off[0], lo[1] + off[1], hi[1] + off[1], lo[2] + off[2], hi[2] + off[2])
            if g in gz_chunks:
                name, data = name + ".gz", gz(data)
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        else:
            stored[compressed_morton(g, bits)] = data
    if sharding is not None:
        write_shards(d, sharding, stored)
    return expect


def write_shards(d, sh, stored):
    pre, mb, sb = sh["preshift_bits"], sh["minishard_bits"], sh["shard_bits"]
    shards = {}
    for cid, data in stored.items():
        h = cid >> pre
        if sh["hash"] == "murmurhash3_x86_128":
            h = murmur_hash(h)
        mini = h & ((1 << mb) - 1)
        shard = (h >> mb) & ((1 << sb) - 1)
        if sh.get("data_encoding") == "gzip":
            data = gz(data)
        shards.setdefault(shard, {}).setdefault(mini, []).append((cid, data))
    for shard, minis in shards.items():
        body = b""
        index = [(0, 0)] * (1 << mb)
        for mini in sorted(minis):
            entries = sorted(minis[mini])
            ids, offs, sizes = [], [], []
            prev_id, prev_end = 0, 0
            for cid, data in entries:
                ids.append(cid - prev_id)
                offs.append(len(body) - prev_end)
                sizes.append(len(data))
                prev_id = cid
                body += data
                prev_end = len(body)
            idx = struct.pack("<%dQ" % (3 * len(ids)), *(ids + offs + sizes))
            if sh.get("minishard_index_encoding") == "gzip":
                idx = gz(idx)
            index[mini] = (len(body), len(body) + len(idx))
            body += idx
        head = b"".join(struct.pack("<QQ", a, b) for a, b in index)
        name = "%0*x.shard" % ((sb + 3) // 4, shard)
        with open(os.path.join(d, name), "wb") as f:
            f.write(head + body)


def volume(outdir, name, dtype, channels, vol, scales):
    """scales: list of (scale dict, options)."""
    d = os.path.join(outdir, name)
    os.makedirs(os.path.join(d, "expected"))
    info = {"@type": "neuroglancer_multiscale_volume", "type": "segmentation" if dtype in ("uint32", "uint64") else "image",
            "data_type": dtype, "num_channels": channels, "scales": []}
    for scale, opts in scales:
        expect = write_scale(d, vol, scale, **opts)
        with open(os.path.join(d, "expected", scale["key"] + ".bin"), "wb") as f:
            f.write(expect.astype(expect.dtype.newbyteorder("<")).tobytes())
        info["scales"].append({k: v for k, v in scale.items() if not k.startswith("_")})
    with open(os.path.join(d, "info"), "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")


def scale(key, size, chunk, encoding, **kw):
    s = {"key": key, "size": size, "chunk_sizes": [chunk], "resolution": [4, 4, 40], "encoding": encoding, "voxel_offset": [0, 0, 0]}
    s.update(kw)
    return s


def sharding(hash_, pre, mb, sb, index="raw", data="raw"):
    return {"@type": "neuroglancer_uint64_sharded_v1", "hash": hash_, "preshift_bits": pre, "minishard_bits": mb,
            "shard_bits": sb, "minishard_index_encoding": index, "data_encoding": data}


def smooth(shape, seed):
    """A smooth uint8 image volume [c, z, y, x], which JPEG keeps well."""
    c, z, y, x = np.indices(shape)
    return ((60 + 40 * c + 6 * x + 5 * y + 9 * z + seed) % 200 + 20).astype(np.uint8)


def labels(shape, dtype, big):
    """A segmentation [c, z, y, x]: a few labels in slabs and a diagonal."""
    c, z, y, x = np.indices(shape)
    v = (x // 3 + 2 * (y // 2) + 5 * z + 7 * c) % 5 + 1
    v = v.astype(dtype) * (np.uint64(1 << 40 if big else 1 << 20).astype(dtype) if big else dtype(1 << 20))
    v[(x + y) % 7 == 0] = 0
    if big:
        v[..., 0, 0, 0] = np.uint64(0xFFFFFFFFFFFFFFF1)
    return v


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "adapters/precomputedadapter/testdata"
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    size = [11, 9, 5]  # x, y, z

    # uint8, 1 channel: raw, jpeg and png, unsharded and sharded.
    v = smooth((1, 5, 9, 11), 0)
    volume(outdir, "u8x1", "uint8", 1, v, [
        (scale("raw", size, [4, 4, 2], "raw", voxel_offset=[10, 20, 3]), dict(missing={(1, 1, 1)}, gz_chunks={(0, 0, 0)})),
        (scale("jpeg", size, [8, 8, 4], "jpeg"), {}),
        (scale("jpeg_sharded", size, [4, 4, 2], "jpeg", _transposed=True,
               sharding=sharding("murmurhash3_x86_128", 0, 1, 2, "gzip", "gzip")), dict(missing={(2, 0, 0)})),
        (scale("png", size, [4, 4, 2], "png", voxel_offset=[-3, 0, 7]), {}),
        (scale("png_sharded", size, [4, 4, 2], "png", sharding=sharding("identity", 1, 1, 1)), {}),
        (scale("raw_sharded_padded", size, [4, 4, 2], "raw", sharding=sharding("identity", 0, 2, 0)), dict(pad_edges=True)),
    ])

    # uint8, 3 channels: jpeg and png (RGB).
    v = smooth((3, 5, 9, 11), 17)
    volume(outdir, "u8x3", "uint8", 3, v, [
        (scale("jpeg", size, [4, 4, 2], "jpeg"), {}),
        (scale("jpeg_sharded", size, [8, 4, 4], "jpeg", sharding=sharding("murmurhash3_x86_128", 2, 0, 3, "raw", "gzip")), {}),
        (scale("png", size, [4, 8, 2], "png"), {}),
        (scale("raw", size, [4, 4, 2], "raw"), {}),
    ])

    # uint16, 1 channel: 16-bit png.
    c, z, y, x = np.indices((1, 5, 9, 11))
    v = (x * 5000 + y * 700 + z * 11 + 3).astype(np.uint16)
    volume(outdir, "u16x1", "uint16", 1, v, [
        (scale("png", size, [4, 4, 2], "png", voxel_offset=[1, 2, 3]), dict(missing={(0, 1, 0)})),
        (scale("png_sharded", size, [4, 4, 2], "png", sharding=sharding("murmurhash3_x86_128", 0, 2, 1, "gzip", "raw")), {}),
        (scale("raw_sharded", size, [4, 4, 2], "raw", sharding=sharding("identity", 0, 0, 0, "gzip", "gzip")), dict(missing={(1, 1, 1)})),
    ])

    # uint32, 1 channel: compressed_segmentation with uneven blocks.
    v = labels((1, 5, 9, 11), np.uint32, False)
    volume(outdir, "u32x1", "uint32", 1, v, [
        (scale("cseg", size, [4, 4, 2], "compressed_segmentation", compressed_segmentation_block_size=[3, 2, 2]), {}),
        (scale("cseg_big_blocks", size, [8, 8, 4], "compressed_segmentation", compressed_segmentation_block_size=[8, 8, 8]), {}),
        (scale("cseg_sharded", size, [4, 4, 2], "compressed_segmentation", compressed_segmentation_block_size=[2, 2, 1],
               sharding=sharding("murmurhash3_x86_128", 1, 2, 2, "gzip", "gzip")), dict(missing={(0, 0, 0)})),
    ])

    # uint64, 2 channels: compressed_segmentation, multi-channel.
    v = labels((2, 5, 9, 11), np.uint64, True)
    volume(outdir, "u64x2", "uint64", 2, v, [
        (scale("cseg", size, [4, 4, 2], "compressed_segmentation", compressed_segmentation_block_size=[2, 2, 1]), {}),
        (scale("cseg_sharded", size, [4, 4, 2], "compressed_segmentation", compressed_segmentation_block_size=[4, 3, 2],
               sharding=sharding("identity", 0, 1, 1, "raw", "gzip")), {}),
        (scale("raw", size, [4, 4, 2], "raw", voxel_offset=[5, 5, 5]), {}),
    ])


if __name__ == "__main__":
    main()
