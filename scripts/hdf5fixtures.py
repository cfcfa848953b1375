#!/usr/bin/python3
"""hdf5fixtures.py [OUTDIR]: writes the h5py fixtures of the hdf5: adapter.

The files go to OUTDIR (default adapters/hdf5adapter/testdata/h5py);
scripts/h5pydump.py --out-dir OUTDIR/dumps then records what h5py reads in
them, which composition/hdf5_test.go compares pipefs with. Run with
Debian 12's packages (the committed files were written so):

    apt-get install python3-h5py hdf5-tools hdf5-filter-plugin \\
        python3-hdf5plugin zstd
    /usr/bin/python3 scripts/hdf5fixtures.py
    /usr/bin/python3 scripts/h5pydump.py --out-dir \\
        adapters/hdf5adapter/testdata/h5py/dumps adapters/hdf5adapter/testdata/h5py/*.h5

h5py 3.7.0 on libhdf5 1.10.8 (so libver 'v112' and later do not exist
here), numpy 1.24.2; hdf5plugin 4.0.1 provides blosc, bzip2 and lz4,
hdf5-filter-plugin bzip2 and lz4. Debian 12 has no zstd HDF5 filter: the
zstd datasets are written chunk by chunk (write_direct_chunk) with
frames from the zstd command, under an optional filter 32015, and carry
the attribute pipefs_same_as naming a dataset with the same elements.

Values are deterministic (np.arange based). Files written with libver
'latest' or 'v110' differ from run to run in a few bytes (object header
times); the elements do not.
"""
import os
import subprocess
import sys

import h5py
import numpy as np

try:
    import hdf5plugin
except ImportError:
    sys.exit('hdf5fixtures.py needs hdf5plugin (Debian: python3-hdf5plugin) for blosc')

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, '..', 'adapters', 'hdf5adapter', 'testdata', 'h5py')
os.makedirs(OUT, exist_ok=True)

LIBVERS = ['earliest', 'v108', 'v110', 'latest']

A = np.arange(21 * 16, dtype='<i4').reshape(21, 16)


def p(name):
    return os.path.join(OUT, name)


def early_alloc(chunks):
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(chunks)
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    return dcpl


# ---------------------------------------------------------------------------
# 1. Every layout and chunk index, under each libver: earliest and v108
#    write version-3 layout messages (v1 B-tree for every chunked dataset);
#    v110 and latest write version-4 ones (single, implicit, fixed array,
#    paged fixed array, extensible array, v2 B-tree).
# ---------------------------------------------------------------------------
for lv in LIBVERS:
    with h5py.File(p('layouts_%s.h5' % lv), 'w', libver=lv) as f:
        f.create_dataset('contiguous', data=A, track_times=False)
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        f.create_dataset('compact', data=np.arange(6, dtype='>u2').reshape(2, 3),
                         dcpl=dcpl, track_times=False)
        f.create_dataset('single', data=A, chunks=(21, 16), track_times=False)
        f.create_dataset('single_gzip', data=A, chunks=(21, 16), compression='gzip',
                         track_times=False)
        f.create_dataset('implicit', shape=(21, 16), dtype='<i4', track_times=False,
                         dcpl=early_alloc((4, 4)))
        f['implicit'][...] = A
        f.create_dataset('farray', data=A, chunks=(4, 5), track_times=False)
        f.create_dataset('farray_filtered', data=A, chunks=(4, 5), compression='gzip',
                         shuffle=True, fletcher32=True, track_times=False)
        if lv in ('v110', 'latest'):  # else v1 B-trees, as big as earray_long's
            f.create_dataset('farray_paged', data=(np.arange(64 * 80) % 251).astype('u1').reshape(64, 80),
                             chunks=(2, 2), track_times=False)
        f.create_dataset('earray', data=A, chunks=(2, 3), maxshape=(None, 16),
                         compression='gzip', track_times=False)
        f.create_dataset('earray_long', data=np.arange(300, dtype='<i2'), chunks=(1,),
                         maxshape=(None,), track_times=False)
        f.create_dataset('btree2', data=A, chunks=(5, 5), maxshape=(None, None),
                         track_times=False)
        if lv in ('v110', 'latest'):
            f.create_dataset('btree2_deep', data=np.arange(40 * 40, dtype='<u2').reshape(40, 40),
                             chunks=(2, 2), maxshape=(None, None), track_times=False)
        f.create_dataset('btree2_gzip', data=A, chunks=(5, 5), maxshape=(None, None),
                         compression='gzip', track_times=False)
        d = f.create_dataset('fill_partial', shape=(10, 10), dtype='<f4', chunks=(4, 4),
                             fillvalue=-1.5, track_times=False)
        d[0:4, 0:4] = 7.0
        d[9, 9] = 9.0
        f.create_dataset('never_written', shape=(5, 5), dtype='<u2', chunks=(2, 2),
                         fillvalue=42, track_times=False)
        f.create_dataset('contig_unwritten', shape=(3, 2), dtype='>i4', fillvalue=-9,
                         track_times=False)
        f.create_dataset('grown', data=np.arange(12, dtype='<i4').reshape(3, 4),
                         chunks=(2, 3), maxshape=(None, 9), track_times=False)
        g = f.create_dataset('resized', data=np.arange(20, dtype='<i8').reshape(4, 5),
                             chunks=(3, 3), maxshape=(None, None), track_times=False)
        g.resize((3, 7))  # shrink one dimension, grow the other: fill in the new part
        f.create_dataset('zero_size', shape=(0, 5), maxshape=(None, 5), dtype='<f8',
                         chunks=(4, 5), track_times=False)
        f.create_dataset('three_d', data=np.arange(5 * 6 * 7, dtype='<f8').reshape(5, 6, 7),
                         chunks=(2, 4, 3), compression='gzip', track_times=False)

# ---------------------------------------------------------------------------
# 2. Element types (libver earliest and latest: datatype messages of
#    versions 1 to 3).
# ---------------------------------------------------------------------------


def raw_dataset(f, name, tid, shape, raw):
    """A dataset of type tid whose stored bytes are raw (no conversion)."""
    parent, _, base = name.rpartition('/')
    g = f.require_group(parent) if parent else f
    sid = h5py.h5s.create_simple(shape)
    dsid = h5py.h5d.create(g.id, base.encode(), tid, sid)
    buf = np.frombuffer(raw, dtype='V%d' % tid.get_size()).reshape(shape).copy()
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, buf, mtype=tid)


for lv in ['earliest', 'latest']:
    with h5py.File(p('types_%s.h5' % lv), 'w', libver=lv) as f:
        n = np.arange(-6, 6)
        for t in ['i1', 'u1', 'i2', 'u2', 'i4', 'u4', 'i8', 'u8']:
            v = n if t[0] == 'i' else n + 6
            f.create_dataset('int/%s_le' % t, data=v.astype('<' + t), track_times=False)
            f.create_dataset('int/%s_be' % t, data=v.astype('>' + t), track_times=False)
        x = np.linspace(-3, 3, 12)
        for t in ['f2', 'f4', 'f8']:
            f.create_dataset('float/%s_le' % t, data=x.astype('<' + t), track_times=False)
            f.create_dataset('float/%s_be' % t, data=x.astype('>' + t), track_times=False)
        f.create_dataset('float/f8_special', data=np.array(
            [np.inf, -np.inf, np.nan, -0.0, 5e-324, 1.7976931348623157e308]), track_times=False)
        f.create_dataset('float/longdouble', data=np.arange(4, dtype=np.longdouble) / 3,
                         track_times=False)
        f.create_dataset('complex/c8', data=(x + 1j * x[::-1]).astype('<c8'), track_times=False)
        f.create_dataset('complex/c16_be', data=(x - 2j).astype('>c16'), track_times=False)
        f.create_dataset('bool', data=np.array([True, False, True, True]), track_times=False)
        et = h5py.enum_dtype({'RED': 0, 'GREEN': 1, 'BLUE': 42}, basetype='u1')
        f.create_dataset('enum/u1', data=np.array([0, 42, 1, 1], dtype='u1'), dtype=et,
                         track_times=False)
        et = h5py.enum_dtype({'LOW': -300, 'ZERO': 0, 'HIGH': 300}, basetype='>i2')
        f.create_dataset('enum/i2_be', data=np.array([-300, 300, 0], dtype='>i2'), dtype=et,
                         track_times=False)
        raw_dataset(f, 'bitfield/b8', h5py.h5t.STD_B8LE, (4,), bytes([1, 2, 0x80, 0xff]))
        raw_dataset(f, 'bitfield/b16_be', h5py.h5t.STD_B16BE, (3,),
                    bytes([0x12, 0x34, 0, 1, 0xff, 0]))
        raw_dataset(f, 'bitfield/b32', h5py.h5t.STD_B32LE, (2,), bytes(range(8)))
        ot = h5py.h5t.create(h5py.h5t.OPAQUE, 6)
        ot.set_tag(b'six raw bytes')
        raw_dataset(f, 'opaque', ot, (2,), b'abcdef\x00\x01\x02\x03\x04\x05')
        # fixed-length strings: null-padded, null-terminated, space-padded, UTF-8
        f.create_dataset('string/fixed_nullpad', data=np.array([b'ab', b'cde', b'', b'fghij'],
                                                             dtype='S5'), track_times=False)
        for pad, name in [(h5py.h5t.STR_NULLTERM, 'fixed_nullterm'),
                          (h5py.h5t.STR_SPACEPAD, 'fixed_spacepad')]:
            st = h5py.h5t.C_S1.copy()
            st.set_size(6)
            st.set_strpad(pad)
            raw_dataset(f, 'string/' + name, st, (3,),
                        b'one\x00\x00\x00two\x00\x00\x00three\x00' if pad == h5py.h5t.STR_NULLTERM
                        else b'one   two   three ')
        st = h5py.h5t.C_S1.copy()
        st.set_size(8)
        st.set_cset(h5py.h5t.CSET_UTF8)
        raw_dataset(f, 'string/fixed_utf8', st, (2,), 'gr\u00fc\u00df\x00\x00x\x00\x00\x00\x00\x00\x00\x00'.encode())
        # variable-length strings (listed, read as strings, not as bytes)
        f.create_dataset('string/vlen_ascii', data=[b'alpha', b'', b'gamma'],
                         dtype=h5py.string_dtype('ascii'), track_times=False)
        f.create_dataset('string/vlen_utf8', data=['\u00e9t\u00e9', 'snow \u2603', ''],
                         dtype=h5py.string_dtype('utf-8'), track_times=False)
        f.create_dataset('string/vlen_utf8_2d', data=np.array(
            [['a', 'bb', 'ccc'], ['\u03b1', '\u03b2\u03b2', '']], dtype=object),
            dtype=h5py.string_dtype('utf-8'), track_times=False)
        f.create_dataset('string/vlen_scalar', data='just one', dtype=h5py.string_dtype('utf-8'),
                         track_times=False)
        f.create_dataset('string/vlen_chunked', data=['s%d' % i for i in range(50)],
                         dtype=h5py.string_dtype('utf-8'), chunks=(8,), compression='gzip',
                         track_times=False)
        f['string'].attrs['vlen_ascii'] = b'hello'
        f['string'].attrs['vlen_utf8'] = 'gr\u00fc\u00df'
        f['string'].attrs['fixed'] = np.bytes_(b'abc')
        f['string'].attrs.create('vlen_list', ['x', 'yy', '\u00e9'], dtype=h5py.string_dtype())
        # compound: packed, with gaps, nested, with an array member, big-endian members
        ct = np.dtype([('x', '<i4'), ('y', '<f8')])
        f.create_dataset('compound/packed', data=np.array([(1, 0.5), (2, -1.0)], dtype=ct),
                         track_times=False)
        gaps = np.dtype({'names': ['a', 'b'], 'formats': ['<u2', '>f4'], 'offsets': [0, 8],
                         'itemsize': 16})
        g = np.zeros(3, dtype=gaps)
        g['a'] = [1, 2, 3]
        g['b'] = [0.25, -0.5, 8]
        f.create_dataset('compound/gaps', data=g, track_times=False)
        inner = np.dtype([('re', '<f4'), ('flag', 'u1')])
        nested = np.dtype([('id', '>i8'), ('pos', '<f4', (3,)), ('inner', inner),
                           ('name', 'S4')])
        v = np.zeros(4, dtype=nested)
        v['id'] = [10, 20, 30, 40]
        v['pos'] = np.arange(12).reshape(4, 3)
        v['inner']['re'] = [1.5, 2.5, 3.5, 4.5]
        v['inner']['flag'] = [1, 0, 1, 0]
        v['name'] = [b'a', b'bb', b'ccc', b'dddd']
        f.create_dataset('compound/nested', data=v, chunks=(2,), compression='gzip',
                         track_times=False)
        f.create_dataset('compound/vlen_member', data=np.array(
            [(1, 'one'), (2, 'two')], dtype=[('n', '<i4'), ('s', h5py.string_dtype())]),
            track_times=False)
        # array-typed elements: the dataspace is (3,), each element 2x2 int32
        f.create_dataset('array_type', shape=(3,), dtype=np.dtype(('<i4', (2, 2))),
                         track_times=False)
        f['array_type'][...] = np.arange(12).reshape(3, 2, 2)
        # variable-length sequences and references: listed, not read
        vl = f.create_dataset('vlen_int', shape=(3,), dtype=h5py.vlen_dtype('<i4'),
                              track_times=False)
        vl[0], vl[1], vl[2] = [1], [2, 3], []
        ref = f.create_dataset('ref/object', shape=(2,), dtype=h5py.ref_dtype, track_times=False)
        ref[0] = f['bool'].ref
        ref[1] = f['int'].ref
        rref = f.create_dataset('ref/region', shape=(1,), dtype=h5py.regionref_dtype,
                                track_times=False)
        rref[0] = f['float/f8_le'].regionref[2:5]
        # scalar, null, empty
        f.create_dataset('shape/scalar', data=np.float64(3.25), track_times=False)
        f.create_dataset('shape/null', data=h5py.Empty('<i4'), track_times=False)
        f.create_dataset('shape/empty_1d', shape=(0,), dtype='<u4', track_times=False)
        f.create_dataset('shape/scalar_string', data=np.bytes_(b'fixed'), track_times=False)
        f.create_dataset('shape/fill_compound', shape=(2,), dtype=ct, fillvalue=np.array(
            (7, 2.5), dtype=ct), track_times=False)
        f['committed'] = np.dtype('>f8')
        f.create_dataset('uses_committed', data=np.array([273.15, 0.0]), dtype=f['committed'],
                         track_times=False)

# ---------------------------------------------------------------------------
# 3. Filters: every one h5py, hdf5plugin and hdf5-filter-plugin write, in an
#    earliest (v1 B-tree) and a latest (fixed array, v2 B-tree) file. The
#    shapes leave partial edge chunks.
# ---------------------------------------------------------------------------


def zstd_frame(b):
    return subprocess.run(['zstd', '-q', '-c', '-3'], input=b, stdout=subprocess.PIPE,
                          check=True).stdout


F = np.arange(37 * 23, dtype='<f4').reshape(37, 23) / 7
I = (np.arange(37 * 23, dtype='<i4').reshape(37, 23) * 13) % 1000 - 200
U = (np.arange(37 * 23) % 4000).astype('<u2').reshape(37, 23)
for lv in ['earliest', 'latest']:
    with h5py.File(p('filters_%s.h5' % lv), 'w', libver=lv) as f:
        kw = dict(chunks=(10, 8), track_times=False)
        if lv == 'latest':
            kw_unl = dict(kw, maxshape=(None, None))
        else:
            kw_unl = kw
        f.create_dataset('plain_f4', data=F, **kw)
        f.create_dataset('plain_i4', data=I, **kw)
        for lev in (1, 6, 9):
            f.create_dataset('gzip%d' % lev, data=F, compression='gzip', compression_opts=lev,
                             **kw)
        f.create_dataset('shuffle', data=F, shuffle=True, **kw)
        f.create_dataset('shuffle_gzip', data=F, shuffle=True, compression='gzip', **kw_unl)
        f.create_dataset('fletcher32', data=I, fletcher32=True, **kw)
        f.create_dataset('shuffle_gzip_fletcher32', data=I, shuffle=True, compression='gzip',
                         fletcher32=True, **kw_unl)
        f.create_dataset('scaleoffset_int', data=I, scaleoffset=0, **kw)
        f.create_dataset('scaleoffset_int_bits', data=U, scaleoffset=12, **kw)
        f.create_dataset('scaleoffset_float', data=F, scaleoffset=3, **kw)
        f.create_dataset('scaleoffset_float_gzip', data=F.astype('>f8'), scaleoffset=2,
                         compression='gzip', **kw)
        nb = h5py.h5t.STD_U16LE.copy()
        nb.set_precision(12)
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((10, 8))
        dcpl.set_filter(h5py.h5z.FILTER_NBIT)
        sid = h5py.h5s.create_simple(U.shape)
        h5py.h5d.create(f.id, b'nbit_u12', nb, sid, dcpl=dcpl)
        f['nbit_u12'][...] = U
        f.create_dataset('lzf', data=F, compression='lzf', **kw)
        f.create_dataset('szip_nn', data=I, compression='szip', compression_opts=('nn', 8), **kw)
        f.create_dataset('szip_ec', data=U, compression='szip', compression_opts=('ec', 16), **kw)
        for cname in ['blosclz', 'lz4', 'lz4hc', 'zlib', 'zstd']:
            f.create_dataset('blosc_%s' % cname, data=F, **kw,
                             **hdf5plugin.Blosc(cname=cname, clevel=5,
                                                shuffle=hdf5plugin.Blosc.SHUFFLE))
        f.create_dataset('blosc_bitshuffle', data=I, **kw,
                         **hdf5plugin.Blosc(cname='lz4', shuffle=hdf5plugin.Blosc.BITSHUFFLE))
        f.create_dataset('blosc_noshuffle', data=U, **kw,
                         **hdf5plugin.Blosc(cname='blosclz', shuffle=hdf5plugin.Blosc.NOSHUFFLE))
        f.create_dataset('bzip2', data=F, **kw, **hdf5plugin.BZip2(blocksize=9))
        f.create_dataset('lz4', data=I, **kw, **hdf5plugin.LZ4())
        f.create_dataset('shuffle_lz4', data=F, shuffle=True, **kw, **hdf5plugin.LZ4(nbytes=512))
        # zstd (32015): no Debian filter writes it, so the chunks are zstd
        # frames made by the zstd command, written directly.
        for name, data, shuffle in [('zstd', I, False)]:
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_chunk((10, 8))
            dcpl.set_filter(32015, h5py.h5z.FLAG_OPTIONAL, (3,))
            if lv == 'latest':
                dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_INCR)
            sid = h5py.h5s.create_simple(data.shape)
            dsid = h5py.h5d.create(f.id, name.encode(), h5py.h5t.STD_I32LE, sid, dcpl=dcpl)
            for r in range(0, data.shape[0], 10):
                for c in range(0, data.shape[1], 8):
                    chunk = np.zeros((10, 8), dtype='<i4')
                    part = data[r:r + 10, c:c + 8]
                    chunk[:part.shape[0], :part.shape[1]] = part
                    dsid.write_direct_chunk((r, c), zstd_frame(chunk.tobytes()), 0)
            f[name].attrs['pipefs_same_as'] = '/plain_i4'
        # a chunk whose filter mask says gzip was skipped for it (stored raw)
        d = f.create_dataset('gzip_mask', data=np.zeros((20, 8), dtype='<i4'),
                             compression='gzip', chunks=(10, 8), track_times=False)
        d.id.write_direct_chunk((10, 0), np.arange(80, dtype='<i4').tobytes(), 1)

# ---------------------------------------------------------------------------
# 4. Links and groups: soft links (to a dataset, a group, nowhere),
#    external links, hard links (a second name, a cycle), deep nesting,
#    many links (old-style group B-tree of depth > 0; dense link storage),
#    creation order, dense attributes.
# ---------------------------------------------------------------------------
for lv in ['earliest', 'latest']:
    with h5py.File(p('links_%s.h5' % lv), 'w', libver=lv) as f:
        f.create_dataset('data/x', data=np.arange(5, dtype='<i2'), track_times=False)
        f['data/soft_to_x'] = h5py.SoftLink('/data/x')
        f['soft_to_data'] = h5py.SoftLink('/data')
        f['relative'] = h5py.SoftLink('data/x')
        f['dangling'] = h5py.SoftLink('/no/such/object')
        f['ext_other'] = h5py.ExternalLink('types_%s.h5' % lv, '/int/i4_le')
        f['ext_missing'] = h5py.ExternalLink('missing.h5', '/x')
        f['data/second_name'] = f['data/x']
        f['data/cycle'] = f['/']
        g = f
        for i in range(40):
            g = g.create_group('d%02d' % i)
        g.create_dataset('bottom', data=np.int32(40), track_times=False)
        many = f.create_group('many')
        for i in range(300):
            many.create_dataset('n%03d' % i, data=np.array([i], dtype='<u2'), track_times=False)
        order = f.create_group('ordered', track_order=True)
        for name in ['zeta', 'alpha', 'mid']:
            order.create_dataset(name, data=np.array([ord(name[0])], dtype='u1'),
                                 track_times=False)
        for i in range(30):
            f['data'].attrs['a%02d' % i] = np.int64(i * i)
        f['data'].attrs['be_matrix'] = np.arange(6, dtype='>f8').reshape(2, 3)
        f['data'].attrs['vlen'] = 'attribute \u00e9'

# ---------------------------------------------------------------------------
# 5. User blocks of 512 to 4096 bytes (the superblock after them; all
#    addresses relative to it).
# ---------------------------------------------------------------------------
for ub, lv in [(512, 'earliest'), (1024, 'v108'), (2048, 'v110'), (4096, 'latest')]:
    name = p('userblock%d.h5' % ub)
    with h5py.File(name, 'w', libver=lv, userblock_size=ub) as f:
        f.create_dataset('g/chunked', data=A, chunks=(4, 4), compression='gzip',
                         track_times=False)
        f.create_dataset('contiguous', data=np.arange(10, dtype='>f8'), track_times=False)
        f.attrs['note'] = 'user block %d' % ub
    with open(name, 'r+b') as w:
        text = ('user block of %d bytes written by scripts/hdf5fixtures.py\n' % ub).encode()
        w.write(text)

# ---------------------------------------------------------------------------
# 6. A virtual dataset (layout class 3) mapping two datasets of the same
#    file, with a fill value where neither maps; listed by pipefs, not
#    read (the test does not require reading it).
# ---------------------------------------------------------------------------
with h5py.File(p('virtual_latest.h5'), 'w', libver='latest') as f:
    f.create_dataset('src/a', data=np.arange(10, dtype='<i4'), track_times=False)
    f.create_dataset('src/b', data=np.arange(100, 110, dtype='<i4'), track_times=False)
    layout = h5py.VirtualLayout(shape=(3, 10), dtype='<i4')
    layout[0] = h5py.VirtualSource('.', 'src/a', shape=(10,))
    layout[2] = h5py.VirtualSource('.', 'src/b', shape=(10,))
    f.create_virtual_dataset('vds', layout, fillvalue=-1)

# ---------------------------------------------------------------------------
# 7. Shared object header messages (SOHM): datatype, dataspace, fill value,
#    filter pipeline and attribute messages stored once in the shared
#    message heap and referred to from each object header; the index is a
#    list in one file and a v2 B-tree in the other. h5py has no wrapper for
#    H5Pset_shared_mesg_*; call the libhdf5 that h5py loaded.
# ---------------------------------------------------------------------------
import ctypes  # noqa: E402 - only this section needs it

_lib = ctypes.CDLL('libhdf5_serial.so.103')
_lib.H5Pset_shared_mesg_nindexes.argtypes = [ctypes.c_int64, ctypes.c_uint]
_lib.H5Pset_shared_mesg_index.argtypes = [ctypes.c_int64, ctypes.c_uint, ctypes.c_uint,
                                          ctypes.c_uint]
_lib.H5Pset_shared_mesg_phase_change.argtypes = [ctypes.c_int64, ctypes.c_uint, ctypes.c_uint]
SHMESG_ALL = 0x02 | 0x04 | 0x08 | 0x10 | 0x20  # sdspace, dtype, fill, pline, attr
for name, (max_list, min_btree) in [('sohm_list.h5', (50, 40)), ('sohm_btree.h5', (0, 0))]:
    fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
    if (_lib.H5Pset_shared_mesg_nindexes(fcpl.id, 1) < 0 or
            _lib.H5Pset_shared_mesg_index(fcpl.id, 0, SHMESG_ALL, 1) < 0 or
            _lib.H5Pset_shared_mesg_phase_change(fcpl.id, max_list, min_btree) < 0):
        raise SystemExit('H5Pset_shared_mesg_* failed')
    fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    fapl.set_libver_bounds(h5py.h5f.LIBVER_LATEST, h5py.h5f.LIBVER_LATEST)
    fid = h5py.h5f.create(p(name).encode(), h5py.h5f.ACC_TRUNC, fcpl=fcpl, fapl=fapl)
    with h5py.File(fid) as f:
        ct = np.dtype([('x', '>i4'), ('y', '<f8'), ('tag', 'S3')])
        for i in range(12):
            v = np.zeros((4, 3), dtype=ct)
            v['x'] = np.arange(12).reshape(4, 3) + i
            v['y'] = v['x'] / 4
            v['tag'] = b'abc'
            d = f.create_dataset('same/d%02d' % i, data=v, chunks=(2, 3), compression='gzip',
                                 shuffle=True, fillvalue=np.array((-1, 0.5, b'z'), dtype=ct),
                                 track_times=False)
            d.attrs['units'] = np.bytes_(b'metres per second, shared')
        for i in range(4):  # each message different: stored in the headers
            f.create_dataset('own/e%d' % i, data=np.arange(i + 1, dtype='<u%d' % (2 ** (i % 4))),
                             track_times=False)

# ---------------------------------------------------------------------------
# 8. Paged aggregation with persistent free-space tracking (file space
#    info message in the superblock extension, free-space managers, 4 KiB
#    pages), after a dataset was deleted.
# ---------------------------------------------------------------------------
with h5py.File(p('paged_v110.h5'), 'w', libver='v110', fs_strategy='page', fs_persist=True,
               fs_page_size=4096) as f:
    f.create_dataset('chunked', data=A, chunks=(8, 8), compression='gzip', track_times=False)
    f.create_dataset('gone', data=np.arange(1000, dtype='<i4'), track_times=False)
    f.create_dataset('contiguous', data=np.arange(50, dtype='>f4'), track_times=False)
    del f['gone']
