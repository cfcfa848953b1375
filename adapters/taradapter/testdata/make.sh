#!/bin/sh
# Rebuilds the tar fixtures of this directory with real tools: GNU tar,
# bsdtar (libarchive), gzip, and archive/tar (gen.go) for the cases the
# tools will not write (devices without root, duplicates, unsafe names,
# links that leave the archive or loop).
# Needs: apt-get install tar libarchive-tools gzip
#
# The tree archived is src/ plus what git cannot keep: symbolic links, a
# hard link, a sparse file and a FIFO, made in a scratch copy. The tests
# compare every member with src/ (and with the rules spelled out below).
set -eu
cd "$(dirname "$0")"
here=$(pwd)
export TZ=UTC LC_ALL=C
rm -f ./*.tar ./*.tar.gz

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R src "$tmp/t"
cd "$tmp/t"
long=long/$(printf 'a%.0s' $(seq 60))/$(printf 'b%.0s' $(seq 60))/file-with-a-long-name-over-one-hundred-bytes.txt
ln -s hello.txt link-hello          # a link in the archive
ln -s ../hello.txt dir/up           # a relative link that climbs, but stays inside
ln -s "$long" long-link             # a link target over 100 bytes (GNU K, pax linkpath)
ln hello.txt hard.txt               # a hard link
find . -exec touch -h -d '2024-05-06 07:08:10' {} +
cd ..

# A sparse file: 256 KiB, with 4 KiB of 'A' at 0, 4 KiB of 'B' at 128 KiB,
# 100 bytes of 'C' at the end; the rest are holes.
mkdir sp
printf 'A%.0s' $(seq 4096) | dd of=sp/sparse.dat bs=4096 conv=notrunc status=none
printf 'B%.0s' $(seq 4096) | dd of=sp/sparse.dat bs=1 seek=131072 conv=notrunc status=none
printf 'C%.0s' $(seq 100) | dd of=sp/sparse.dat bs=1 seek=262044 conv=notrunc status=none
printf 'not sparse\n' > sp/plain.txt
find sp -exec touch -d '2024-05-06 07:08:10' {} +

# A FIFO (GNU tar archives it as type 6).
mkdir ff
printf 'beside a fifo\n' > ff/plain.txt
mkfifo ff/pipe
find ff -exec touch -h -d '2024-05-06 07:08:10' {} +

g="-b 1 --sort=name --owner=0 --group=0 --numeric-owner"
cd t
tar $g --format=gnu -cf "$here/gnu.tar" .
tar $g --format=oldgnu -cf "$here/oldgnu.tar" .
tar $g --format=posix --pax-option='delete=atime,delete=ctime,exthdr.name=%d/PaxHeaders/%f,comment:=per-member note' -cf "$here/posix.tar" .
# ustar: names up to 255 bytes split in prefix and name; no long link.
tar $g --format=ustar --exclude=./long-link -cf "$here/ustar.tar" .
# v7: names under 100 bytes, no directories beyond what names imply.
tar $g --format=v7 --exclude=./long --exclude=./long-link -cf "$here/v7.tar" .
bsdtar -b 1 --uid 0 --gid 0 --format=pax -cf "$here/bsdtar-pax.tar" .
bsdtar -b 1 --uid 0 --gid 0 --format=gnutar -cf "$here/bsdtar-gnu.tar" .
bsdtar -b 1 --uid 0 --gid 0 --format=ustar -cf "$here/bsdtar-ustar.tar" --exclude ./long-link .
cd ..

# A global pax header (written by GNU tar for "key=value" pax options).
cd t
tar $g --format=posix --pax-option='delete=atime,delete=ctime,exthdr.name=%d/PaxHeaders/%f,globexthdr.name=GlobalHead,comment=global note' -cf "$here/posix-global.tar" hello.txt dir
cd ..

# Sparse files in every format GNU tar writes, and libarchive's.
tar $g --format=gnu --sparse -cf "$here/sparse-gnu.tar" -C sp .
for v in 0.0 0.1 1.0; do
	tar $g --format=posix --sparse --sparse-version=$v \
		--pax-option='delete=atime,delete=ctime,exthdr.name=%d/PaxHeaders/%f' \
		-cf "$here/sparse-pax$v.tar" -C sp .
done
bsdtar -b 1 --uid 0 --gid 0 --format=pax --read-sparse -cf "$here/sparse-bsdtar.tar" -C sp .

tar $g --format=gnu -cf "$here/fifo.tar" -C ff .

# A .tar.gz for chaining with gzip: (gzip -n: no name, no time).
gzip -n -c "$here/gnu.tar" > "$here/gnu.tar.gz"

cd "$here"
# archive/tar: devices, duplicates, unsafe names, links of every kind.
go run gen.go
