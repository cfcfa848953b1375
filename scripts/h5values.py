#!/usr/bin/python3
"""h5values.py FILE...: the values h5py reads from the 1-D and scalar
numeric datasets of HDF5 files, as JSON; the oracle of the values and
ranges that browse/values_test.go checks on the pages of pipefs serve.

It prints {"BASENAME": {"/path": DATASET, ...}, ...}, BASENAME being the
file's name without its directory, and a DATASET being

    {"dtype": numpy dtype.str, "total": number of elements,
     "first": the first 100 values, "min": np.nanmin, "max": np.nanmax,
     "nan": the number of NaNs}

with integers and booleans as JSON numbers and floats as the text of
their repr() as float64 ("nan", "inf", "-inf", "-0.0"); "min" and "max"
are null when every value is NaN. Needs Debian's python3-h5py.
"""
import json
import os
import sys

import h5py
import numpy as np


def text(v):
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    return repr(float(v))


def main():
    out = {}
    for name in sys.argv[1:]:
        sets = out[os.path.basename(name)] = {}

        def visit(path, obj):
            if not isinstance(obj, h5py.Dataset) or obj.ndim > 1 or obj.shape is None:
                return
            if obj.dtype.kind not in "biuf" or obj.dtype.itemsize > 8:
                return
            a = np.atleast_1d(obj[()])
            d = {"dtype": obj.dtype.str, "total": int(a.size),
                 "first": [text(v) for v in a[:100]], "nan": 0, "min": None, "max": None}
            if obj.dtype.kind == "f":
                d["nan"] = int(np.isnan(a).sum())
            if a.size > d["nan"]:
                d["min"], d["max"] = text(np.nanmin(a)), text(np.nanmax(a))
            sets["/" + path] = d

        with h5py.File(name, "r") as f:
            f.visititems(visit)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
