#!/bin/sh
# arraybench.sh [DIR [ROUNDS [BASE]]] times whole-array reads of arrays of
# 1,024 chunks by `pipefs array --read` (built from this tree), by
# zarr-python 2.13 + fsspec and by h5py + fsspec, from a loopback server
# shaped like an object store (scripts/shapedserver), in one interleaved
# run: every round times each command once in a fresh process (hyperfine
# -N -r 1; the first round is dropped), so that load on the machine hits
# every tool alike. The arrays (scripts/arraybench.py gen) are one 2048 x
# 2048 float32 array in chunks of 64 x 64, stored as a Zarr v2 array of
# 1,024 zlib chunk objects (a.zarr), an HDF5 dataset of 1,024 gzip chunks
# in one object (a.h5:/a) and a Zarr v3 sharded array of 16 shards of 64
# gzip chunks (s.zarr, which zarr-python 2.13 does not read: pipefs only).
#
# Two servers: "20ms" waits 20 ms before each answer's first byte and
# sends as fast as the connection takes; "20ms+25MB/s" also sends each
# answer at most at 25 MB/s, as one response of an object store does.
#
# It prints the median of each command, the ratios pipefs/zarr-python and
# pipefs/h5py, and the ideal of the Zarr v2 read, chunks x latency /
# requests in flight. Then, each command once more against a fresh server
# of each kind: whether its output is byte-identical to the array's
# tobytes() (DIR/ref.bin), the requests the server answered and the most
# at once, and the command's peak RSS (/usr/bin/time -v). With BASE (a
# commit), pipefs built from BASE is timed too, as pipefs.base.
# PIPEFS_ARGS adds flags to every pipefs command (--concurrency 128).
# Needs hyperfine, go, /usr/bin/time, Debian's python3-zarr,
# python3-fsspec, python3-aiohttp, python3-h5py.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/pipefs-arraybench}
rounds=${2:-11}
base=${3:-}
args=${PIPEFS_ARGS:-}
py=/usr/bin/python3
mkdir -p "$dir"
cd "$dir"
[ -f ref.bin ] || $py "$root/scripts/arraybench.py" gen "$dir"
cp "$root/scripts/arraybench.py" .
(cd "$root" && go build -o "$dir/pipefs" ./cmd/pipefs && go build -o "$dir/shapedserver" ./scripts/shapedserver)
tools="pipefs"
if [ -n "$base" ]; then
	wt=$(mktemp -d)
	git -C "$root" worktree add -f --detach "$wt" "$base" >/dev/null 2>&1
	(cd "$wt" && go build -o "$dir/pipefs.base" ./cmd/pipefs)
	git -C "$root" worktree remove --force "$wt"
	tools="pipefs pipefs.base"
fi
export PIPEFS_CACHE_DIR=off
shapes="20ms:-latency=20ms 20ms+25MB/s:-latency=20ms,-rate=25000000"

# commands URL prints the commands to run against the server at URL, one
# a line, each as NAME<TAB>CASE<TAB>COMMAND.
commands() {
	for t in $tools; do
		printf '%s\tzarr2\t./%s array %s --read %s\n' "$t" "$t" "$args" "'$1/a.zarr/|zarr2:'"
		printf '%s\thdf5\t./%s array %s --read %s\n' "$t" "$t" "$args" "'$1/a.h5|hdf5:/a'"
		printf '%s\tzarr3-sharded\t./%s array %s --read %s\n' "$t" "$t" "$args" "'$1/s.zarr/|zarr3:'"
	done
	printf 'zarr-python\tzarr2\t%s arraybench.py zarr %s/a.zarr\n' "$py" "$1"
	printf 'h5py\thdf5\t%s arraybench.py h5py %s/a.h5 a\n' "$py" "$1"
}

# serve SHAPE starts a server of that shape (its flags after the colon,
# split at commas) and waits for its URL in srv.url; its pid is $srv.
serve() {
	rm -f srv.url
	# shellcheck disable=SC2046
	./shapedserver $(echo "${1#*:}" | tr , ' ') data >srv.url 2>srv.log &
	srv=$!
	while [ ! -s srv.url ]; do sleep 0.05; done
}

pids=""
trap 'kill $pids 2>/dev/null' EXIT
: >cmds.tsv
for s in $shapes; do
	serve "$s"
	pids="$pids $srv"
	commands "$(cat srv.url)" | sed "s|^|${s%%:*}\t|" >>cmds.tsv
done
r=0
rm -f around.*.json
while [ "$r" -le "$rounds" ]; do
	cut -f4 cmds.tsv | tr '\n' '\0' | xargs -0 hyperfine -N -r 1 --output=pipe --export-json "around.$r.json" >/dev/null 2>&1
	r=$((r + 1))
done
rm around.0.json
kill $pids
pids=""
conc=$(echo " $args " | sed -n 's/.* --concurrency[ =]\([0-9]*\) .*/\1/p')
[ -n "$conc" ] || conc=$(./pipefs array --help | sed -n 's/.*--concurrency N .*(default \([0-9]*\)).*/\1/p')
$py - "$conc" <<'PY'
import glob, json, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open("cmds.tsv")]
times = {}
for f in sorted(glob.glob("around.*.json")):
    for r in json.load(open(f))["results"]:
        times.setdefault(r["command"], []).append(r["times"][0])
med = {}
for shape, tool, case, cmd in rows:
    med[shape, tool, case] = statistics.median(times[cmd])
print("median of %d rounds, seconds" % len(times[rows[0][3]]))
print("%-12s %-14s %-12s %8s %8s" % ("server", "case", "tool", "median", "/python"))
for shape, tool, case, cmd in rows:
    ref = {"zarr2": "zarr-python", "hdf5": "h5py"}.get(case)
    m = med[shape, tool, case]
    ratio = "%8.2f" % (m / med[shape, ref, case]) if ref and tool != ref else ""
    print("%-12s %-14s %-12s %8.3f %s" % (shape, case, tool, m, ratio))
c = int(sys.argv[1])
print("ideal of the Zarr v2 read: 1024 chunks x 20 ms / %d in flight = %.3f s" % (c, 1024 * 0.020 / c))
PY
echo "one more run of each, against a fresh server: output, requests, peak RSS"
for s in $shapes; do
	commands @URL@ | while IFS="$(printf '\t')" read -r tool case cmd; do
		serve "$s"
		eval "/usr/bin/time -v -o time.txt $(echo "$cmd" | sed "s|@URL@|$(cat srv.url)|")" >out.bin
		kill "$srv"
		wait "$srv" 2>/dev/null || true
		same=$(cmp -s out.bin ref.bin && echo identical || echo DIFFERENT)
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' time.txt)
		printf '%-12s %-14s %-12s %-9s %4d MiB  %s\n' "${s%%:*}" "$case" "$tool" "$same" $((rss / 1024)) "$(sed 's/shapedserver: //' srv.log)"
	done
done
