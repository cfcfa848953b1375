#!/bin/sh
# parallelbench.sh [DIR [ROUNDS [BASE]]] times a 64 MiB remote object read
# whole by pipefs cat (built from this tree), aria2c -x8 -s8 and curl, on
# a loopback server shaped like an object store (scripts/shapedserver: 20
# ms before each answer's first byte, 25 MB/s per response) and on an
# uncapped one, in one interleaved run: every round times each command
# once in a fresh process (hyperfine -N -r 1; the first round is dropped),
# so that load on the machine hits every tool alike. aria2c runs twice:
# as told (its minimum split of 20 MiB makes it open 4 connections for 64
# MiB, not 8) and with -k1M (8 connections). It prints the median of each
# command and its ratio to aria2c's and curl's on the same server,
# then the peak RSS of pipefs cat on each (/usr/bin/time -v). With BASE (a
# commit), pipefs built from BASE is timed too, as pipefs.base.
# Needs hyperfine, aria2c, curl, go.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/pipefs-parallel}
rounds=${2:-11}
base=${3:-}
mkdir -p "$dir/data" "$dir/out"
cd "$dir"
[ -f data/obj ] || head -c $((64 << 20)) /dev/urandom >data/obj
(cd "$root" && go build -o "$dir/pipefs" ./cmd/pipefs && go build -o "$dir/shapedserver" ./scripts/shapedserver)
if [ -n "$base" ]; then
	wt=$(mktemp -d)
	git -C "$root" worktree add -f --detach "$wt" "$base" >/dev/null 2>&1
	(cd "$wt" && go build -o "$dir/pipefs.base" ./cmd/pipefs)
	git -C "$root" worktree remove --force "$wt"
fi
export PIPEFS_CACHE_DIR=off
./shapedserver -latency 20ms -rate 25000000 data >shaped.url 2>shaped.log &
shaped=$!
./shapedserver data >uncapped.url 2>uncapped.log &
uncapped=$!
trap 'kill $shaped $uncapped 2>/dev/null' EXIT
while [ ! -s shaped.url ] || [ ! -s uncapped.url ]; do sleep 0.1; done
cmds=""
for srv in shaped uncapped; do
	u=$(cat $srv.url)/obj
	cmds="$cmds./pipefs cat $u
aria2c -q -x8 -s8 --file-allocation=none --allow-overwrite=true --auto-file-renaming=false -d out -o $srv.obj $u
aria2c -q -x8 -s8 -k1M --file-allocation=none --allow-overwrite=true --auto-file-renaming=false -d out -o $srv.k.obj $u
curl -sS -o /dev/null $u
"
	[ -z "$base" ] || cmds="$cmds./pipefs.base cat $u
"
done
r=0
rm -f pround.*.json
while [ $r -le "$rounds" ]; do
	echo "$cmds" | sed '/^$/d' | tr '\n' '\0' | xargs -0 hyperfine -N -r 1 --export-json "pround.$r.json" >/dev/null 2>&1
	r=$((r + 1))
done
rm pround.0.json
python3 - "$(cat shaped.url)" "$(cat uncapped.url)" <<'PY'
import glob, json, statistics, sys
names = {sys.argv[1]: "20ms, 25 MB/s", sys.argv[2]: "uncapped"}
med = {}
for f in sorted(glob.glob("pround.*.json")):
    for r in json.load(open(f))["results"]:
        med.setdefault(r["command"], []).append(r["times"][0])
med = {k: statistics.median(v) for k, v in med.items()}
print("%-16s %-12s %8s %10s %10s %10s" % ("server", "tool", "median s", "/aria2c", "/aria2c-k1M", "/curl"))
for url, name in names.items():
    row = {}
    for k, v in med.items():
        if url + "/" in k:
            tool = k.split()[0].lstrip("./")
            row[tool + (" -k1M" if " -k1M " in k else "")] = v
    for tool, v in row.items():
        print("%-16s %-12s %8.3f %10.2f %10.2f %10.2f" % (name, tool, v, v / row["aria2c"], v / row["aria2c -k1M"], v / row["curl"]))
PY
for srv in shaped uncapped; do
	rss=$(/usr/bin/time -v ./pipefs cat "$(cat $srv.url)/obj" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p')
	echo "pipefs cat peak RSS ($srv): $((rss / 1024)) MiB"
done
