#!/bin/sh
# manyzip.sh [DIR]: writes DIR/many.zip (default /tmp/lsbench), a zip64 of
# 200,201 one-byte stored entries (200 dirs x 10 subdirs x 100 files, and
# 201 files at the top) written by Python's zipfile; builds DIR/pipefs and
# DIR/zipls (scripts/zipls: the zip adapter's index alone, no pipeline and
# no CLI); then times whole processes listing it, interleaved in one
# hyperfine run each: `pipefs ls -R`, zipls and `unzip -Z1`, with the disk
# cache off, then with it on (filled by the warm-up runs). Compare the
# medians as ratios; the machine's load moves the absolute times.
set -eu
dir=${1:-/tmp/lsbench}
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/benchdata.sh" "$dir" many.zip
(cd "$root" && go build -o "$dir/pipefs" ./cmd/pipefs && go build -o "$dir/zipls" ./scripts/zipls)
cd "$dir"
PIPEFS_CACHE_DIR=off hyperfine -N -w2 -r10 \
	'./pipefs ls -R many.zip' './zipls many.zip' 'unzip -Z1 many.zip'
rm -rf "$dir/cache"
PIPEFS_CACHE_DIR="$dir/cache" hyperfine -N -w2 -r10 \
	'./pipefs ls -R many.zip' './zipls many.zip' 'unzip -Z1 many.zip'
