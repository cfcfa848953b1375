#!/bin/sh
# sidecarbench.sh measures sidecar indexes (pipefs --sidecar) on a local S3
# server, versitygw: what listing a remote tar.gz, and reading one member of
# it, cost a process
#   - cold: no index anywhere (the whole stream is fetched and decoded);
#   - on another machine: no index on its disk, the sidecars in the bucket
#     (PIPEFS_CACHE_DIR=off --sidecar=read, so every run is such a machine);
#   - on the machine that derived them: the index cache on its disk;
# and, for the listing, bsdtar -tf of the same file on local disk. It
# prints the requests and bytes of each (pipefs --stats), then the median
# times of ROUNDS interleaved rounds (hyperfine -N -r 1 per command; one
# warm-up round dropped) and the ratios to the cold run.
#
#	scripts/sidecarbench.sh [DIR [ROUNDS]]
#
# DIR (default /tmp/pipefs-table) holds src.tar.gz (scripts/benchdata.sh
# writes it). versitygw is $PIPEFS_VERSITYGW, else the one .ci/run builds
# in the user's cache directory. Needs hyperfine, bsdtar, python3.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/pipefs-table}
rounds=${2:-11}
sh "$root/scripts/benchdata.sh" "$dir" src.tar.gz
gw=${PIPEFS_VERSITYGW:-${XDG_CACHE_HOME:-$HOME/.cache}/pipefs/versitygw-v1.8.0}
work=$(mktemp -d)
(cd "$root" && go build -o "$work/pipefs" ./cmd/pipefs && go build -o "$work/s3put" ./scripts/s3put)
export AWS_ACCESS_KEY_ID=pipefs-access AWS_SECRET_ACCESS_KEY=pipefs-secret-key AWS_REGION=us-east-1
export AWS_CONFIG_FILE=/nonexistent AWS_SHARED_CREDENTIALS_FILE=/nonexistent
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir "$work/gw"
"$gw" --access "$AWS_ACCESS_KEY_ID" --secret "$AWS_SECRET_ACCESS_KEY" --port "127.0.0.1:$port" posix "$work/gw" >"$work/gw.log" 2>&1 &
gwpid=$!
trap 'kill $gwpid; rm -rf "$work"' EXIT
export AWS_ENDPOINT_URL_S3="http://127.0.0.1:$port"
i=0
until "$work/s3put" "$AWS_ENDPOINT_URL_S3" bench "$dir/src.tar.gz" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 50 ] || { cat "$work/gw.log"; exit 1; }; sleep 0.1
done
url=s3://bench/src.tar.gz
member=$(tar -tzf "$dir/src.tar.gz" | grep -v '/$' | tail -1)
p="$work/pipefs"
# The machine that derives the indexes writes them to its disk and, as
# sidecars, to the bucket.
PIPEFS_CACHE_DIR="$work/disk" "$p" --sidecar=write ls -R "$url" >/dev/null
cold="env PIPEFS_CACHE_DIR=off $p"
other="env PIPEFS_CACHE_DIR=off $p --sidecar=read"
same="env PIPEFS_CACHE_DIR=$work/disk $p"
set -- \
	"ls cold" "$cold ls -R $url" \
	"ls other machine" "$other ls -R $url" \
	"ls same machine" "$same ls -R $url" \
	"ls bsdtar local" "bsdtar -tf $dir/src.tar.gz" \
	"cat cold" "$cold cat '$url|gzip:|pipefs.tar:$member'" \
	"cat other machine" "$other cat '$url|gzip:|pipefs.tar:$member'" \
	"cat same machine" "$same cat '$url|gzip:|pipefs.tar:$member'"
echo "requests and bytes (pipefs --stats); the last member is $member"
n=0
for x in "$@"; do
	n=$((n + 1))
	if [ $((n % 2)) -eq 1 ]; then name=$x; continue; fi
	case $x in bsdtar*) continue ;; esac
	printf '%-18s ' "$name"
	eval "$(echo "$x" | sed 's|/pipefs |/pipefs --stats |')" 2>&1 >/dev/null | sed 's/.*": //'
done
cmds=""
n=0
for x in "$@"; do
	n=$((n + 1))
	[ $((n % 2)) -eq 0 ] && cmds="$cmds$x
"
done
r=0
while [ $r -le "$rounds" ]; do
	echo "$cmds" | sed '/^$/d' | tr '\n' '\0' | xargs -0 hyperfine -N -r 1 --export-json "$work/round.$r.json" >/dev/null 2>&1
	r=$((r + 1))
done
rm "$work/round.0.json"
python3 - "$work" "$@" <<'PY'
import glob, json, statistics, sys
work, a = sys.argv[1], sys.argv[2:]
med = {}
for f in glob.glob(work + "/round.*.json"):
    for r in json.load(open(f))["results"]:
        med.setdefault(r["command"], []).append(r["times"][0])
med = {k: statistics.median(v) for k, v in med.items()}
print("%-18s %9s %10s" % ("case", "median s", "cold/this"))
cases = dict(zip(a[0::2], a[1::2]))
for name, cmd in cases.items():
    cold = med[cases[name.split()[0] + " cold"]] if not name.startswith("ls bsdtar") else med[cases["ls cold"]]
    print("%-18s %9.3f %10.2f" % (name, med[cmd], cold / med[cmd]))
PY
