#!/bin/sh
# Rebuilds the fixtures of methods/: zips whose members use the compression
# methods other than STORED and DEFLATE, written by real tools from the
# files of methods/src:
#   7z (p7zip): Deflate64, BZip2, LZMA (with the end marker and without),
#     XZ, PPMd,
#     AES-256 and ZipCrypto encryption;
#   Info-ZIP zip: bzip2 (-Z bzip2);
#   Python's zipfile: ZIP_BZIP2 and ZIP_LZMA;
#   genmethods/ (Go, klauspost zstd and ulikunitz xz): Zstandard (93 and
#     the older 20) in one and in several frames, which no tool here
#     writes, and XZ from another encoder than 7z's.
# bsdtar 3.6 writes only STORED and DEFLATE zips; the tests use it, and 7z,
# to extract these fixtures as oracles.
# Needs: apt-get install p7zip-full zip libarchive-tools python3
set -eu
cd "$(dirname "$0")"
here=$(pwd)
export TZ=UTC
src=methods/src
mkdir -p $src/dir
printf 'hello, zip methods\n' > $src/hello.txt
: > $src/empty.txt
seq 1 3000 > $src/seq.txt
# 40,000 random bytes written three times: matches 40,000 bytes back, past
# DEFLATE's 32 KiB window, so 7z's Deflate64 uses its long distance codes
# (30) and its long length code (285 with 16 extra bits).
python3 -c '
import random, sys
r = random.Random(24)
b = bytes(r.getrandbits(8) for _ in range(40000))
sys.stdout.buffer.write(b * 3)' > $src/dir/rep.bin
find $src -exec touch -d '2024-05-06 07:08:10' {} +

out=$here/methods
rm -f $out/*.zip
cd $src
# z7 NAME SWITCH [FILE...]: hello.txt, empty.txt, seq.txt and the FILEs.
z7() { name=$1 sw=$2; shift 2; 7z a -bd -bso0 -tzip "$sw" "$out/$name" hello.txt empty.txt seq.txt "$@"; }
z7 7z-deflate64.zip -mm=Deflate64 dir/rep.bin
z7 7z-bzip2.zip -mm=BZip2
z7 7z-lzma.zip -mm=LZMA
z7 7z-lzma-noeos.zip -mm=LZMA:eos=off
z7 7z-xz.zip -mm=XZ
z7 7z-ppmd.zip -mm=PPMd
7z a -bd -bso0 -tzip -mem=AES256 -psecret "$out/7z-aes.zip" hello.txt empty.txt seq.txt
7z a -bd -bso0 -tzip -mem=ZipCrypto -psecret "$out/7z-zipcrypto.zip" hello.txt empty.txt seq.txt
zip -q -X -Z bzip2 "$out/infozip-bzip2.zip" hello.txt empty.txt seq.txt
python3 - "$out" <<'PY'
import sys, zipfile
out = sys.argv[1]
for name, method in (("python-bzip2.zip", zipfile.ZIP_BZIP2), ("python-lzma.zip", zipfile.ZIP_LZMA)):
    with zipfile.ZipFile(f"{out}/{name}", "w", compression=method) as z:
        for f in ("hello.txt", "empty.txt", "seq.txt"):
            z.write(f)
PY
cd "$here"
(cd genmethods && go run main.go "$out")
ls -l methods/*.zip
