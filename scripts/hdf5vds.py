#!/usr/bin/python3
"""Write the virtual dataset fixtures of adapters/hdf5adapter/testdata/h5py.

Every file is written by h5py (libhdf5 1.10.8 in Debian 12); what pipefs
must read in them is what h5py reads (scripts/h5pydump.py):

- vds_same.h5: virtual datasets whose sources are in the same file ("."):
  rows from whole 1-D sources, a strided hyperslab of a 2-D source
  interleaved into every other column, a 2-D block from a chunked, gzip
  source into the middle of a larger dataset (the rest the fill value),
  a source dataset that does not exist (fill), and a virtual dataset of
  a virtual dataset.
- vds_beside.h5: sources in the files beside it: vds_src1.h5,
  vds_sub/vds_src2.h5 (a relative path), and vds_absent.h5, which does
  not exist (fill, as libhdf5 reads it).
- vds_elsewhere.h5: a source named by an absolute path, which pipefs
  refuses, naming the file (h5py reads the fill value: the file does not
  exist).

    /usr/bin/python3 scripts/hdf5vds.py adapters/hdf5adapter/testdata/h5py
"""

import os
import sys

import h5py
import numpy as np


def main(out):
    os.makedirs(os.path.join(out, "vds_sub"), exist_ok=True)
    p = lambda n: os.path.join(out, n)  # noqa: E731

    with h5py.File(p("vds_same.h5"), "w", libver="latest") as f:
        a = f.create_dataset("src/a", data=np.arange(12, dtype="<i4"))
        f.create_dataset("src/b", data=np.arange(100, 112, dtype="<i4"))
        grid = f.create_dataset("src/grid", data=np.arange(6 * 8, dtype="<i4").reshape(6, 8))
        f.create_dataset("src/chunked", data=(np.arange(5 * 7, dtype=">f8") / 4).reshape(5, 7),
                         chunks=(2, 3), compression="gzip")
        rows = h5py.VirtualLayout(shape=(4, 12), dtype="<i4")
        rows[0] = h5py.VirtualSource(a)
        rows[2] = h5py.VirtualSource(".", "src/b", shape=(12,))
        rows[3, 2:8] = h5py.VirtualSource(".", "/src/b", shape=(12,))[3:9]
        f.create_virtual_dataset("rows", rows, fillvalue=-1)

        inter = h5py.VirtualLayout(shape=(3, 10), dtype="<i4")
        # every other row and column of grid, into every other column
        inter[:, 0:8:2] = h5py.VirtualSource(grid)[0:6:2, 0:8:2]
        inter[:, 9] = h5py.VirtualSource(grid)[1:4, 7]
        f.create_virtual_dataset("strided", inter, fillvalue=7)

        block = h5py.VirtualLayout(shape=(8, 10), dtype=">f8")
        block[2:5, 3:9] = h5py.VirtualSource(".", "src/chunked", shape=(5, 7))[1:4, 0:6]
        block[6, :] = h5py.VirtualSource(".", "src/missing", shape=(10,))
        f.create_virtual_dataset("block", block, fillvalue=0.5)

        nested = h5py.VirtualLayout(shape=(2, 12), dtype="<i4")
        nested[:, :] = h5py.VirtualSource(".", "rows", shape=(4, 12))[1:3, :]
        f.create_virtual_dataset("nested", nested, fillvalue=-2)

    with h5py.File(p("vds_src1.h5"), "w") as f:
        f.create_dataset("data", data=np.arange(20, dtype="<u2").reshape(4, 5) * 3)
    with h5py.File(p("vds_sub/vds_src2.h5"), "w") as f:
        f.create_dataset("g/data", data=np.arange(20, dtype="<u2").reshape(4, 5) + 1000,
                         chunks=(2, 5), compression="gzip")
    with h5py.File(p("vds_beside.h5"), "w", libver="latest") as f:
        lay = h5py.VirtualLayout(shape=(12, 5), dtype="<u2")
        lay[0:4] = h5py.VirtualSource("vds_src1.h5", "data", shape=(4, 5))
        lay[4:8] = h5py.VirtualSource("vds_sub/vds_src2.h5", "g/data", shape=(4, 5))
        lay[8:12] = h5py.VirtualSource("vds_absent.h5", "data", shape=(4, 5))
        f.create_virtual_dataset("stack", lay, fillvalue=9)

    with h5py.File(p("vds_elsewhere.h5"), "w", libver="latest") as f:
        lay = h5py.VirtualLayout(shape=(4,), dtype="<i4")
        lay[:] = h5py.VirtualSource("/nonexistent/pipefs/abs.h5", "data", shape=(4,))
        f.create_virtual_dataset("abs", lay, fillvalue=3)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "adapters/hdf5adapter/testdata/h5py")
