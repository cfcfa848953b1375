#!/bin/sh
# benchdata.sh DIR FILE...: writes into DIR each FILE that is not there
# yet, for the benchmark scripts (benchtools.sh, manyzip.sh, localtable.sh):
#
#	src.tar      about 256 MiB of Go sources (GOROOT and the module cache)
#	src.tar.gz   gzip -6 of src.tar
#	src.tar.zst  zstd -3 of src.tar
#	             (src.tar is two archives, cut short: a listing ends at the
#	             first one's end-of-archive marker, 110 MiB before the end)
#	one.tar.gz   gzip -6 of one archive of GOROOT's sources, ended by
#	             tar's own end-of-archive marker and padding
#	one.tar.zst  zstd -3 of the same
#	m.bin        the first 64 MiB of src.tar
#	m.zip        m.bin deflated by zip -6
#	s.zip        m.bin stored by zip -0
#	m.bin.bz2    bzip2 of m.bin
#	m.bin.xz     xz of m.bin
#	many.zip     a zip64 of 200,201 one-byte stored entries (200 dirs x 10
#	             subdirs x 100 files, and 201 files at the top), written by
#	             Python's zipfile
#	tiny         a 3-byte file
set -eu
dir=$1
shift
mkdir -p "$dir"
cd "$dir"
want() {
	[ -s "$1" ] && return
	case $1 in
	src.tar)
		(tar -cf - -C "$(go env GOROOT)" src test doc api 2>/dev/null
			tar -cf - -C "$(go env GOMODCACHE)" --exclude=./cache . 2>/dev/null) | head -c 268435456 >src.tar ;;
	src.tar.gz) want src.tar && gzip -6 -c src.tar >src.tar.gz ;;
	src.tar.zst) want src.tar && zstd -q -3 -f src.tar -o src.tar.zst ;;
	one.tar) tar -cf one.tar -C "$(go env GOROOT)" src test doc api 2>/dev/null ;;
	one.tar.gz) want one.tar && gzip -6 -c one.tar >one.tar.gz ;;
	one.tar.zst) want one.tar && zstd -q -3 -f one.tar -o one.tar.zst ;;
	m.bin) want src.tar && head -c 67108864 src.tar >m.bin ;;
	m.zip) want m.bin && zip -q -6 m.zip m.bin ;;
	s.zip) want m.bin && zip -q -0 s.zip m.bin ;;
	m.bin.bz2) want m.bin && bzip2 -k -c m.bin >m.bin.bz2 ;;
	m.bin.xz) want m.bin && xz -k -c -T1 m.bin >m.bin.xz ;;
	tiny) printf 'ab\n' >tiny ;;
	many.zip)
		python3 - many.zip <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED, allowZip64=True) as z:
    for d in range(200):
        for f in range(1000):
            z.writestr(f'dir{d:03}/sub{f%10}/file{f:04}.txt', b'x')
    for i in range(201):
        z.writestr(f'top{i}.txt', b'y')
PY
		;;
	*) echo "benchdata.sh: no recipe for $1" >&2 && exit 2 ;;
	esac
}
for f in "$@"; do
	want "$f"
done
