#!/bin/sh
# Write internal/aec/testdata: streams that libaec's aec tool (Debian:
# libaec-tools) encodes from samples this script makes, one pair of files
# per case, NAME.raw (the samples) and NAME.rz (the stream). The name
# says the parameters: n<bits>_j<block size>_r<rsi>[_msb][_nopp].
set -eu
out=${1:-internal/aec/testdata}
mkdir -p "$out"
make() { # name bits bytes-per-sample count python-expression-for-sample-i
	name=$1 bits=$2 bytes=$3 count=$4 expr=$5
	order=little
	case $name in *_msb*) order=big ;; esac
	python3 - "$out/$name.raw" "$bits" "$bytes" "$count" "$order" "$expr" <<'PY'
import random, sys
path, bits, size, count, order, expr = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
random.seed(bits * 1000 + count)
mx = (1 << bits) - 1
out, x = bytearray(), mx // 2
for i in range(count):
    x = eval(expr)
    x = min(max(int(x), 0), mx)
    out += x.to_bytes(size, order)
open(path, "wb").write(out)
PY
	flags=
	case $name in *_msb*) flags="$flags -m" ;; esac
	case $name in *_nopp*) flags="$flags -N" ;; esac
	j=${name#*_j}; j=${j%%_*}
	r=${name#*_r}; r=${r%%_*}
	# shellcheck disable=SC2086
	aec -n "$bits" -j "$j" -r "$r" $flags "$out/$name.raw" "$out/$name.rz"
}
# a walk with flat stretches (zero blocks), small steps (second
# extension, split samples) and noise (uncompressed blocks)
walk='(x if (i // 700) % 3 == 1 else random.randrange(0, mx + 1) if (i // 500) % 7 == 6 else x + random.randint(-3, 3))'
make n8_j8_r16 8 1 5000 "$walk"
make n8_j16_r128_nopp 8 1 5000 "(i // 900) % 2 * random.randint(0, 5)"
make n12_j16_r64_msb 12 2 6000 "$walk"
make n16_j32_r8 16 2 4000 "$walk"
make n16_j64_r4096_msb 16 2 9000 "$walk"
make n24_j32_r16 24 4 3000 "$walk"
make n32_j16_r32_msb 32 4 3000 "$walk"
make n32_j8_r4_nopp 32 4 2000 "x + random.randint(-1000, 1000)"
make n3_j8_r64 3 1 4000 "random.randint(0, 2) if i % 300 < 200 else 0"
