#!/bin/sh
# cpbench.sh [DIR [ROUNDS [BASE]]] times copying a prefix of 1,000 small
# objects (1 to 64 KiB, in 40 directories) from a local S3 server,
# versitygw, behind scripts/shapedserver -proxy, which holds every request
# back for 20 ms as a distant store would answer, to a local directory:
#   - pipefs cp -R (built from this tree), at its default concurrency (16
#     from a remote location), at --concurrency 1, one file at a time, and
#     with --no-detect, which spares the requests of looking for a dataset
#     at the prefix (Icechunk, OCDBT) before it is listed;
#   - rclone copy --transfers 16, with an on-the-fly S3 remote;
#   - aria2c -j16, given the URLs of the objects (the bucket is public),
#     so it lists nothing;
# in one interleaved run: every round times each command once in a fresh
# process (hyperfine -N -r 1; the first round is dropped), so that load
# on the machine hits every tool alike. It prints the median of each
# command and its ratio to rclone's; then, from one more run of each
# through a proxy of its own, the requests it made, the most it had under
# way at once, and its peak RSS (/usr/bin/time -v); and it checks that
# every copy is the source, byte for byte (diff -r). With BASE (a
# commit), pipefs built from BASE is timed too, as pipefs.base.
#
# versitygw is $PIPEFS_VERSITYGW, else the one .ci/run builds in the user's
# cache directory. Needs hyperfine, rclone, aria2c, python3, go.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/pipefs-cpbench}
rounds=${2:-5}
base=${3:-}
gw=${PIPEFS_VERSITYGW:-${XDG_CACHE_HOME:-$HOME/.cache}/pipefs/versitygw-v1.8.0}
mkdir -p "$dir"
cd "$dir"
rm -rf gw out src
mkdir gw out
python3 - <<'PY'
import os, random
random.seed(1)
for i in range(1000):
    d = "src/d%02d" % (i % 40)
    os.makedirs(d, exist_ok=True)
    with open("%s/f%04d.bin" % (d, i), "wb") as f:
        f.write(random.randbytes(random.randint(1 << 10, 64 << 10)))
PY
(cd "$root" && go build -o "$dir/pipefs" ./cmd/pipefs && go build -o "$dir/shapedserver" ./scripts/shapedserver &&
	go build -o "$dir/s3put" ./scripts/s3put)
if [ -n "$base" ]; then
	wt=$(mktemp -d)
	git -C "$root" worktree add -f --detach "$wt" "$base" >/dev/null 2>&1
	(cd "$wt" && go build -o "$dir/pipefs.base" ./cmd/pipefs)
	git -C "$root" worktree remove --force "$wt"
fi

export AWS_ACCESS_KEY_ID=pipefs-access AWS_SECRET_ACCESS_KEY=pipefs-secret-key AWS_REGION=us-east-1
export AWS_CONFIG_FILE=/nonexistent AWS_SHARED_CREDENTIALS_FILE=/nonexistent
export PIPEFS_CACHE_DIR=off RCLONE_CONFIG=/dev/null
# The endpoints are plain http; a CA bundle named by the environment makes
# rclone fail.
unset AWS_CA_BUNDLE
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$gw" --access "$AWS_ACCESS_KEY_ID" --secret "$AWS_SECRET_ACCESS_KEY" --port "127.0.0.1:$port" posix "$dir/gw" >gw.log 2>&1 &
gwpid=$!
pids=$gwpid
trap 'kill $pids 2>/dev/null' EXIT
gwurl=http://127.0.0.1:$port
i=0
until ./s3put -public "$gwurl" bench 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 50 ] || { cat gw.log; exit 1; }; sleep 0.1
done
remote() { echo ":s3,provider=Other,endpoint='$1',access_key_id=$AWS_ACCESS_KEY_ID,secret_access_key=$AWS_SECRET_ACCESS_KEY:bench/prefix"; }
rclone copy --transfers 16 src "$(remote "$gwurl")" 2>/dev/null

# shaped starts a proxy holding every request back for 20 ms, and sets
# url to its URL and proxy to its pid.
shaped() {
	rm -f "proxy.$1.url"
	./shapedserver -latency 20ms -proxy "$gwurl" >"proxy.$1.url" 2>"proxy.$1.log" &
	proxy=$!
	pids="$pids $proxy"
	while [ ! -s "proxy.$1.url" ]; do sleep 0.05; done
	url=$(cat "proxy.$1.url")
}

# The objects' names, for aria2c: the URL, then the directory and the
# name of the copy, for each.
(cd src && find . -type f | sort | sed 's|^\./||') >names.txt

# commands prints, for the proxy at $1, a tag and a command a line each,
# the command copying the prefix to out/TAG; it writes aria2c's list of
# URLs to urls.TAG.
commands() {
	awk -v u="$1" -v d="$dir/out/aria2c" '{ i = match($0, /\/[^\/]*$/); print u "/bench/prefix/" $0; print "  dir=" d "/" substr($0, 1, i - 1); print "  out=" substr($0, i + 1) }' names.txt >"urls.$2"
	echo "pipefs env AWS_ENDPOINT_URL_S3=$1 ./pipefs cp -R s3://bench/prefix/ out/pipefs"
	echo "pipefs-c1 env AWS_ENDPOINT_URL_S3=$1 ./pipefs cp -R --concurrency 1 s3://bench/prefix/ out/pipefs-c1"
	echo "pipefs-nodetect env AWS_ENDPOINT_URL_S3=$1 ./pipefs --no-detect cp -R s3://bench/prefix/ out/pipefs-nodetect"
	[ -z "$base" ] || echo "pipefs.base env AWS_ENDPOINT_URL_S3=$1 ./pipefs.base cp -R s3://bench/prefix/ out/pipefs.base"
	echo "rclone rclone copy --transfers 16 \"$(remote "$1")\" out/rclone"
	echo "aria2c aria2c -q -j16 --file-allocation=none --allow-overwrite=true --auto-file-renaming=false -i urls.$2"
}

shaped timing
commands "$url" timing >commands.txt
r=0
rm -f round.*.json
while [ $r -le "$rounds" ]; do
	cut -d' ' -f2- commands.txt | tr '\n' '\0' |
		xargs -0 hyperfine -N -r 1 --prepare "sh -c 'rm -rf $dir/out; mkdir $dir/out'" --export-json "round.$r.json" >/dev/null 2>&1
	r=$((r + 1))
done
rm round.0.json
kill -INT "$proxy"
wait "$proxy" || true

# One more run of each, alone, through a proxy of its own: requests, the
# most under way at once, peak RSS, and the copy checked.
rm -rf out
mkdir out
: >counts.txt
for tag in $(cut -d' ' -f1 commands.txt); do
	shaped "$tag"
	cmd=$(commands "$url" "$tag" | grep "^$tag " | cut -d' ' -f2-)
	eval "/usr/bin/time -f %M -o rss.$tag $cmd" >/dev/null 2>&1
	kill -INT "$proxy"
	wait "$proxy" || true
	reqs=$(sed -n 's/.*: \([0-9]*\) requests, at most \([0-9]*\) at once/\1 \2/p' "proxy.$tag.log")
	echo "$tag $reqs $(($(cat "rss.$tag") / 1024))" >>counts.txt
	diff -r src "out/$tag" >/dev/null || { echo "the copy of $tag differs from the source" >&2; exit 1; }
done
python3 - <<'PY'
import glob, json, statistics
tag = {l.split(" ", 1)[1]: l.split(" ", 1)[0] for l in open("commands.txt").read().splitlines()}
med = {}
for f in sorted(glob.glob("round.*.json")):
    for r in json.load(open(f))["results"]:
        med.setdefault(tag[r["command"]], []).append(r["times"][0])
med = {k: statistics.median(v) for k, v in med.items()}
counts = {l.split()[0]: l.split()[1:] for l in open("counts.txt").read().splitlines()}
print("%d rounds; 1,000 objects (1-64 KiB) in 40 directories, 20 ms per request" % len(glob.glob("round.*.json")))
print("%-16s %9s %8s %9s %14s %8s" % ("command", "median s", "/rclone", "requests", "most at once", "RSS MiB"))
for k, v in med.items():
    c = counts[k]
    print("%-16s %9.3f %8.2f %9s %14s %8s" % (k, v, v / med["rclone"], c[0], c[1], c[2]))
PY
echo "every copy is the source, byte for byte (diff -r)"
