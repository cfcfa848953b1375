#!/usr/bin/env bash
# damage.sh [PIPEFS] [FLIPS] [CUTS]: archives written by GNU tar, gzip,
# bzip2, xz, zstd and Info-ZIP (4 members of 160 KB of text), each damaged
# by one flipped bit at FLIPS places spread through it (default 16) and
# truncated at CUTS lengths (default 8). Every member of every damaged
# copy is read with `pipefs cat` and `pipefs cp`, and the copy listed with
# `pipefs ls -R`. It prints, per archive, the reads that gave wrong bytes
# with exit 0 (the target is 0), the reads that exited non-zero, and the
# damaged listings that exited 0 (the target is 0 for truncations; a bit
# flipped in member data that a listing never decodes can leave it
# intact, as it does for bsdtar).
set -u
P=${1:-pipefs}
FLIPS=${2:-16}
CUTS=${3:-8}
for t in tar gzip bzip2 xz zstd zip python3; do
	command -v $t > /dev/null || { echo "damage.sh needs $t" >&2; exit 2; }
done
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cd "$d"
mkdir src
python3 - << 'PY'
import random
w = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda']
for i in range(1, 5):
    random.seed(i)
    s = ' '.join(random.choice(w) + str(random.randint(0, 999)) for _ in range(40000))
    open('src/m%d.txt' % i, 'w').write(s[:160000])
PY
(cd src && tar cf ../t.tar m1.txt m2.txt m3.txt m4.txt)
gzip -k t.tar; bzip2 -k t.tar; xz -k t.tar; zstd -q t.tar -o t.tar.zst
(cd src && zip -q ../t.zip m*.txt && zip -q0 ../s.zip m*.txt)

# pl ARCHIVE MEMBER: the pipeline of a member of a damaged copy.
pl() {
	case $1 in
	*.zip) echo "file:$d/x.$1|zip:$2" ;;
	*.gz) echo "file:$d/x.$1|gzip:|pipefs.tar:$2" ;;
	*.bz2) echo "file:$d/x.$1|pipefs.bzip2:|pipefs.tar:$2" ;;
	*.xz) echo "file:$d/x.$1|pipefs.xz:|pipefs.tar:$2" ;;
	*.zst) echo "file:$d/x.$1|zstd:|pipefs.tar:$2" ;;
	esac
}
damage() { # damage ARCHIVE flip|cut K N
	python3 - "$@" << 'PY'
import sys
a, how, k, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
b = bytearray(open(a, 'rb').read())
if how == 'flip':
    o = len(b) * k // (n + 1)
    b[o] ^= 1 << (k % 8)
else:
    b = b[:len(b) * k // (n + 1)]
open('x.' + a, 'wb').write(b)
PY
}
printf '%-10s %6s %12s %10s %14s\n' archive reads 'wrong,exit0' nonzero 'ls-exit0(cut)'
for a in t.tar.gz t.tar.bz2 t.tar.xz t.tar.zst t.zip s.zip; do
	wrong=0 total=0 nz=0 lsok=0 lscut=0
	for how in flip cut; do
		n=$FLIPS
		[ $how = cut ] && n=$CUTS
		for k in $(seq 1 "$n"); do
			damage $a $how "$k" "$n"
			if "$P" ls -R "file:$d/x.$a" > /dev/null 2>&1; then
				lsok=$((lsok + 1))
				[ $how = cut ] && lscut=$((lscut + 1))
			fi
			for m in 1 2 3 4; do
				for cmd in cat cp; do
					rm -f out
					if [ $cmd = cat ]; then
						"$P" cat "$(pl $a m$m.txt)" > out 2> /dev/null
					else
						"$P" cp "$(pl $a m$m.txt)" out 2> /dev/null
					fi
					rc=$?
					total=$((total + 1))
					if [ $rc = 0 ]; then
						cmp -s out src/m$m.txt || { wrong=$((wrong + 1)); echo "wrong bytes, exit 0: $cmd $a $how $k/$n m$m" >&2; }
					else
						nz=$((nz + 1))
						[ $cmd = cp ] && [ -e out ] && echo "cp left a damaged copy: $a $how $k/$n m$m" >&2
					fi
				done
			done
		done
	done
	printf '%-10s %6d %12d %10d %9d(%d)\n' $a $total $wrong $nz $lsok $lscut
done
