#!/bin/sh
# localtable.sh measures the local cases of issue 12's table in one
# interleaved run: every round times each command once in a fresh process
# (hyperfine -r 1; one warm-up round is dropped), so that load on the
# machine hits them alike. The index cache is off: every process is cold.
# It prints the median of each command and, per case, the ratios
# pipefs/library and pipefs/native (below 1: pipefs is faster). With BASE
# (a commit), pipefs built from BASE runs in the same rounds, as
# pipefs.base, and each case gets a second line, "base", of its times.
#
#	scripts/localtable.sh [DIR [ROUNDS [BASE]]]
#
# With IDLE set (a percentage, such as 90), each round waits, up to 10
# minutes, for a second in which the machine's CPUs were at least that
# idle (/proc/stat): on a shared machine, a round then starts when no one
# else is busy, and is less often run against another load throughout.
#
# The cases, each against the Go library alone (scripts/libcat, and
# scripts/zipls for the listing) and the best native tool:
#   - cat of a 64 MiB member deflated by zip -6 (bsdtar -xOf)
#   - cat of a 64 MiB stored member (bsdtar -xOf)
#   - cat of 256 MiB of .gz, gzip -6 (pigz -dc)
#   - cat of 256 MiB of .zst, zstd -3 (zstd -dc)
#   - ls -R of a zip64 of 200,201 entries (unzip -Z1)
#   - cat of a 3-byte file (cat)
# DIR (default /tmp/pipefs-table) receives the inputs (scripts/benchdata.sh).
# Needs hyperfine, gzip, zstd, zip, bsdtar, pigz, unzip, python3.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/pipefs-table}
rounds=${2:-11}
base=${3:-}
sh "$root/scripts/benchdata.sh" "$dir" m.zip s.zip src.tar.gz src.tar.zst many.zip tiny
cd "$dir"
(cd "$root" && go build -o "$dir/pipefs" ./cmd/pipefs && go build -o "$dir/libcat" ./scripts/libcat && go build -o "$dir/zipls" ./scripts/zipls)
if [ -n "$base" ]; then
	wt=$(mktemp -d)
	git -C "$root" worktree add -f --detach "$wt" "$base" >/dev/null 2>&1
	(cd "$wt" && go build -o "$dir/pipefs.base" ./cmd/pipefs)
	git -C "$root" worktree remove --force "$wt"
fi
export PIPEFS_CACHE_DIR=off
d=$dir
set -- \
	"deflated member" "./pipefs cat file:$d/m.zip|zip:m.bin" "./libcat zip m.zip m.bin" "bsdtar -xOf m.zip m.bin" \
	"stored member" "./pipefs cat file:$d/s.zip|zip:m.bin" "./libcat zip s.zip m.bin" "bsdtar -xOf s.zip m.bin" \
	".gz" "./pipefs cat file:$d/src.tar.gz|gzip:" "./libcat gzip src.tar.gz" "pigz -dc src.tar.gz" \
	".zst" "./pipefs cat file:$d/src.tar.zst|zstd:" "./libcat zstd src.tar.zst" "zstd -dc src.tar.zst" \
	"ls -R 200k zip" "./pipefs ls -R many.zip" "./zipls many.zip" "unzip -Z1 many.zip" \
	"3-byte file" "./pipefs cat tiny" "" "cat tiny"
cmds=""
n=0
for x in "$@"; do
	n=$((n + 1))
	[ $((n % 4)) -eq 1 ] || [ -z "$x" ] || cmds="$cmds$x
"
	if [ -n "$base" ] && [ $((n % 4)) -eq 2 ]; then
		cmds="$cmds./pipefs.base ${x#./pipefs }
"
	fi
done
# idle prints how idle the CPUs were, in percent, over the next second.
idle() {
	a=$(head -n 1 /proc/stat)
	sleep 1
	b=$(head -n 1 /proc/stat)
	printf '%s\n%s\n' "$a" "$b" | awk '{t = 0; for (i = 2; i <= NF; i++) t += $i; T[NR] = t; I[NR] = $5 + $6}
		END {print int(100 * (I[2] - I[1]) / (T[2] - T[1]))}'
}
r=0
rm -f round.*.json
while [ $r -le "$rounds" ]; do
	w=0
	while [ -n "${IDLE:-}" ] && [ "$(idle)" -lt "$IDLE" ] && [ $w -lt 600 ]; do
		w=$((w + 1))
	done
	echo "$cmds" | sed '/^$/d' | tr '\n' '\0' | xargs -0 hyperfine -N -r 1 --export-json "round.$r.json" >/dev/null 2>&1
	r=$((r + 1))
done
rm round.0.json
python3 - "$base" "$@" <<'PY'
import glob, json, statistics, sys
rounds = [json.load(open(f))["results"] for f in sorted(glob.glob("round.*.json"))]
med = {}
for res in rounds:
    for r in res:
        med.setdefault(r["command"], []).append(r["times"][0])
med = {k: statistics.median(v) for k, v in med.items()}
base, a = sys.argv[1], sys.argv[2:]
print("%-16s %9s %9s %9s %15s %14s" % ("case", "pipefs", "library", "native", "pipefs/library", "pipefs/native"))
for i in range(0, len(a), 4):
    name, p, lib, nat = a[i:i+4]
    lm, nm = med.get(lib), med[nat]
    rows = [(name, p)]
    if base:
        rows.append(("  base", "./pipefs.base " + p[len("./pipefs "):]))
    for label, cmd in rows:
        pm = med[cmd]
        print("%-16s %9.4f %9s %9.4f %15s %14.2f" % (label, pm, "%.4f" % lm if lm else "-", nm,
              "%.2f" % (pm / lm) if lm else "-", pm / nm))
print("medians of %d interleaved rounds" % len(rounds))
PY
