#!/bin/sh
# bench2core.sh measures a cold `pipefs cat` of DEFLATE data on all cores
# against the same binary on one core (GOMAXPROCS=1), the Go library
# alone (scripts/libcat) and the best native tool (pigz -dc for gzip,
# bsdtar for a zip member), on text, binary and already compressed data at
# levels 1, 6 and 9. The runs are interleaved: each round times every
# command once (hyperfine -r 1, after one warm-up round), so that load on
# the machine hits them alike. It prints the medians over the rounds and
# the ratios tool/pipefs (above 1: pipefs is faster).
#
#	scripts/bench2core.sh [DIR [RUNS]]
#
# DIR (default /tmp/pipefs-bench2) receives the inputs, 128 MiB each:
# text (Go sources, as scripts/benchtools.sh), bin (the shared libraries
# of /usr/lib) and comp (compressed files found on the machine: .gz, .zip,
# .xz, .jpg, .png). The index cache is off, so every process is cold.
# Needs hyperfine, pigz, gzip, zip, bsdtar (libarchive-tools), python3.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/pipefs-bench2}
runs=${2:-9}
size=134217728
mkdir -p "$dir"
cd "$dir"
if [ ! -s text ]; then
	(tar -cf - -C "$(go env GOROOT)" src 2>/dev/null; tar -cf - -C "$(go env GOMODCACHE)" --exclude=./cache . 2>/dev/null) | head -c $size >text
fi
if [ ! -s bin ]; then
	find /usr/lib -xdev -type f -name '*.so*' -size +100k 2>/dev/null | sort | xargs cat 2>/dev/null | head -c $size >bin
fi
if [ ! -s comp ]; then
	find / -xdev -type f \( -name '*.gz' -o -name '*.zip' -o -name '*.xz' -o -name '*.jpg' -o -name '*.png' \) -size +10k 2>/dev/null |
		grep -v "^$dir" | sort | xargs cat 2>/dev/null | head -c $size >comp
fi
for d in text bin comp; do
	for l in 1 6 9; do
		[ -s "$d-$l.gz" ] || gzip -"$l" -c "$d" >"$d-$l.gz"
		if [ ! -s "$d-$l.zip" ]; then
			ln -sf "$d" m
			zip -q -"$l" "$d-$l.zip" m
			rm -f m
		fi
	done
done
(cd "$root" && go build -o "$dir/pipefs" ./cmd/pipefs && go build -o "$dir/libcat" ./scripts/libcat)
export PIPEFS_CACHE_DIR=off

# median FILE...: the median of each command over the rounds' JSON files.
median() {
	python3 -c 'import json,statistics,sys
runs = [json.load(open(f))["results"] for f in sys.argv[1:]]
for i in range(len(runs[0])): print("%.4f" % statistics.median(r[i]["times"][0] for r in runs))' "$@"
}
printf '%-12s %9s %9s %9s %9s %11s %11s\n' case pipefs 1-core library native native/pipefs 1-core/pipefs
for d in text bin comp; do
	for l in 1 6 9; do
		for k in gz zip; do
			f="$dir/$d-$l.$k"
			if [ $k = gz ]; then
				p="file:$f|gzip:"
				lib="./libcat gzip $f"
				nat="pigz -dc $f"
			else
				p="file:$f|zip:m"
				lib="./libcat zip $f m"
				nat="bsdtar -xOf $f m"
			fi
			r=0
			while [ $r -le "$runs" ]; do
				hyperfine -N -r 1 --export-json "$d-$l-$k.$r.json" \
					"./pipefs cat $p" "env GOMAXPROCS=1 ./pipefs cat $p" "$lib" "$nat" >/dev/null 2>&1
				r=$((r + 1))
			done
			rm "$d-$l-$k.0.json" # the warm-up round
			set -- $(median "$d-$l-$k".*.json)
			rm "$d-$l-$k".*.json
			printf '%-12s %9s %9s %9s %9s %11.2f %11.2f\n' "$d-$l.$k" "$1" "$2" "$3" "$4" \
				"$(echo "$4 / $1" | bc -l)" "$(echo "$2 / $1" | bc -l)"
		done
	done
done
