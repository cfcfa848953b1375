#!/bin/sh
# manyzip.sh [DIR]: writes DIR/many.zip (default /tmp/lsbench), a zip64 of
# 200,201 one-byte stored entries (200 dirs x 10 subdirs x 100 files, and
# 201 files at the top) written by Python's zipfile, then times a whole
# `pipefs ls -R` of it against `unzip -Z1`, interleaved by hyperfine:
#
#	scripts/manyzip.sh && hyperfine -N -w2 -r10 \
#		'/tmp/lsbench/pipefs ls -R /tmp/lsbench/many.zip' 'unzip -Z1 /tmp/lsbench/many.zip'
set -eu
dir=${1:-/tmp/lsbench}
mkdir -p "$dir"
if [ ! -s "$dir/many.zip" ]; then
	python3 - "$dir/many.zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED, allowZip64=True) as z:
    for d in range(200):
        for f in range(1000):
            z.writestr(f'dir{d:03}/sub{f%10}/file{f:04}.txt', b'x')
    for i in range(201):
        z.writestr(f'top{i}.txt', b'y')
PY
fi
root=$(cd "$(dirname "$0")/.." && pwd)
(cd "$root" && go build -o "$dir/pipefs" ./cmd/pipefs)
