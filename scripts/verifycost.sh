#!/bin/sh
# verifycost.sh [BASE [DIR [ROUNDS]]] times the checks of every read
# against the commit BASE (default 36fafa3, before reads were verified),
# in one interleaved run: every round times each command once in a fresh
# process (hyperfine -N -r 1; the first round is dropped), so load on the
# machine hits both builds alike. The index cache is off: every process
# is cold. It prints the median of each command and the ratio new/base.
# The inputs are scripts/benchdata.sh's (DIR, default /tmp/pipefs-table):
#   - cat of 256 MiB of .gz, of .zst, of a 64 MiB deflated and a stored
#     zip member (the local speed table's streams)
#   - ls -R of a zip of 200,201 entries
#   - ls -R of one.tar.gz and one.tar.zst (GOROOT's sources: the scan,
#     then the drain of the padding to the stream's end), and of the
#     256 MiB src.tar.gz and src.tar.zst, whose listing ends 110 MiB
#     before the stream's end, all of which the drain decodes
#   - cat of a 3 MB member of one.tar.gz and one.tar.zst (the scan, then
#     checked reads)
# Needs hyperfine, git, gzip, zstd, zip, python3.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-36fafa3}
dir=${2:-/tmp/pipefs-table}
rounds=${3:-11}
sh "$root/scripts/benchdata.sh" "$dir" m.zip s.zip src.tar.gz src.tar.zst many.zip one.tar.gz one.tar.zst
wt=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$wt"' EXIT
git -C "$root" worktree add -f --detach "$wt" "$base" >/dev/null 2>&1
(cd "$wt" && go build -o "$dir/pipefs.base" ./cmd/pipefs)
(cd "$root" && go build -o "$dir/pipefs.new" ./cmd/pipefs)
cd "$dir"
export PIPEFS_CACHE_DIR=off
d=$dir
m=test/fixedbugs/bug257.go
cmds=""
for args in "cat file:$d/src.tar.gz|gzip:" "cat file:$d/src.tar.zst|zstd:" "cat file:$d/m.zip|zip:m.bin" "cat file:$d/s.zip|zip:m.bin" \
	"ls -R many.zip" "ls -R one.tar.gz" "ls -R one.tar.zst" "ls -R src.tar.gz" "ls -R src.tar.zst" \
	"cat file:$d/one.tar.gz|gzip:|pipefs.tar:$m" "cat file:$d/one.tar.zst|zstd:|pipefs.tar:$m"; do
	cmds="$cmds./pipefs.base $args
./pipefs.new $args
"
done
r=0
rm -f vround.*.json
while [ $r -le "$rounds" ]; do
	echo "$cmds" | sed '/^$/d' | tr '\n' '\0' | xargs -0 hyperfine -N -r 1 --export-json "vround.$r.json" >/dev/null 2>&1
	r=$((r + 1))
done
rm vround.0.json
python3 - <<'PY'
import glob, json, statistics
med = {}
for f in sorted(glob.glob("vround.*.json")):
    for r in json.load(open(f))["results"]:
        med.setdefault(r["command"], []).append(r["times"][0])
med = {k: statistics.median(v) for k, v in med.items()}
print("%-62s %8s %8s %9s" % ("case", "base s", "new s", "new/base"))
for k, v in med.items():
    if k.startswith("./pipefs.base "):
        case = k[len("./pipefs.base "):]
        n = med["./pipefs.new " + case]
        print("%-62s %8.3f %8.3f %9.3f" % (case.replace("/tmp/pipefs-table/", "")[:62], v, n, n / v))
PY
