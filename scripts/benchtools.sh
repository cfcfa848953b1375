#!/bin/sh
# benchtools.sh measures `pipefs cat` against the system tools on the same
# files, in the same run, each command in a fresh process (a cold index),
# interleaved round by round so that load on the machine hits them alike.
# It prints the best and median wall time of each command and the ratio
# tool/pipefs of the best times (above 1 means pipefs is faster).
#
#	scripts/benchtools.sh [DIR [ROUNDS]]
#
# DIR (default /tmp/pipefs-bench) receives, when absent: src.tar, about
# 256 MiB of Go sources (GOROOT and the module cache); src.tar.gz (gzip
# -6), src.tar.zst (zstd -3); m.zip holding m.bin, the first 64 MiB of
# src.tar, deflated by zip -6; and .bz2 and .xz of m.bin. Needs gzip,
# zstd, zip, unzip, bsdtar (libarchive-tools), bzip2, xz.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/pipefs-bench}
rounds=${2:-7}
sh "$root/scripts/benchdata.sh" "$dir" src.tar.gz src.tar.zst m.zip m.bin.bz2 m.bin.xz
cd "$dir"
pipefs=${PIPEFS:-$dir/pipefs}
if [ -z "${PIPEFS:-}" ]; then
	(cd "$root" && go build -o "$pipefs" ./cmd/pipefs)
fi

# run NAME CMD...: appends the wall time of CMD (stdout to /dev/null).
run() {
	name=$1
	shift
	s=$(date +%s.%N)
	if ! "$@" >/dev/null; then
		echo "$name failed" >&2
		return
	fi
	e=$(date +%s.%N)
	echo "$name $(echo "$e - $s" | bc)" >>times.txt
}

rm -f times.txt
i=0
while [ "$i" -lt "$rounds" ]; do
	run gzip-dc gzip -dc src.tar.gz
	run pipefs-gz "$pipefs" cat "file:$dir/src.tar.gz|gzip:"
	run zstd-dc zstd -dc src.tar.zst
	run pipefs-zst "$pipefs" cat "file:$dir/src.tar.zst|zstd:"
	run bsdtar bsdtar -xOf m.zip m.bin
	run unzip-p unzip -p m.zip m.bin
	run pipefs-zip "$pipefs" cat "file:$dir/m.zip|zip:m.bin"
	run bzip2-dc bzip2 -dc m.bin.bz2
	run pipefs-bz2 "$pipefs" cat "file:$dir/m.bin.bz2|pipefs.bzip2:"
	run xz-dc xz -dc m.bin.xz
	run pipefs-xz "$pipefs" cat "file:$dir/m.bin.xz|pipefs.xz:"
	i=$((i + 1))
done

# stats NAME: best and median.
stats() {
	grep "^$1 " times.txt | cut -d' ' -f2 | sort -n | awk '{a[NR]=$1} END {printf "%.3f %.3f", a[1], a[int((NR+1)/2)]}'
}
printf '%-12s %8s %8s\n' command best median
for n in gzip-dc pipefs-gz zstd-dc pipefs-zst bsdtar unzip-p pipefs-zip bzip2-dc pipefs-bz2 xz-dc pipefs-xz; do
	set -- $(stats $n) - -
	printf '%-12s %8s %8s\n' "$n" "$1" "$2"
done
ratio() {
	t=$(stats "$1" | cut -d' ' -f1)
	p=$(stats "$2" | cut -d' ' -f1)
	[ -n "$t" ] && [ -n "$p" ] || return 0
	printf '%-22s %.2fx\n' "$1/$2" "$(echo "$t / $p" | bc -l)"
}
ratio gzip-dc pipefs-gz
ratio zstd-dc pipefs-zst
ratio bsdtar pipefs-zip
ratio unzip-p pipefs-zip
ratio bzip2-dc pipefs-bz2
ratio xz-dc pipefs-xz
