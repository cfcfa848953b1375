#!/usr/bin/env bash
# corpus.sh DIR: gathers into DIR a corpus of archives that other tools
# wrote, for composition/realworld_test.go (run it with PIPEFS_CORPUS=DIR):
#   - deb/: the data.tar.xz members of a few Debian packages
#     (apt-get download, then ar x), and two of them decompressed to .tar;
#   - jar/: the jars of a Debian Java package (libcommons-cli-java);
#   - npm/: npm tarballs (npm pack, pinned versions);
#   - gomod/: Go module zips from the module cache of this repository;
#   - tools/: tars that GNU tar (every --format, --sparse, incremental),
#     bsdtar, Python's tarfile and git archive write from a small tree
#     with links, long names, a sparse file and odd names.
# It is idempotent: a finished corpus (DIR/.done holds this script's
# version) is left alone. It needs apt-get, ar, xz, bsdtar, npm, go,
# python3, GNU tar and git; none of them needs root (apt-get download
# writes to the working directory). The corpus is about 25 MB, 56
# archives, gathered in about a minute.
set -euo pipefail

version=3
dir=${1:?usage: corpus.sh DIR}
if [ "$(cat "$dir/.done" 2>/dev/null)" = "$version" ]; then
	exit 0
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir"
mkdir -p "$dir/deb" "$dir/jar" "$dir/npm" "$dir/gomod" "$dir/tools"
dir=$(cd "$dir" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Debian packages: tar.xz written by dpkg-deb, with directories, symbolic
# links, long names, and a Java package whose jars are zips written by
# the JDK's jar tool.
debs="hello tree jq less sed gzip bzip2 patch file dash libcommons-cli-java"
(cd "$work" && apt-get download $debs >/dev/null 2>&1) ||
	(cd "$work" && apt-get download $debs)
for deb in "$work"/*.deb; do
	name=$(basename "$deb" .deb)
	mkdir "$work/x"
	(cd "$work/x" && ar x "$deb")
	for member in "$work"/x/data.tar.*; do
		ext=${member##*/data}
		cp "$member" "$dir/deb/$name$ext"
	done
	rm -rf "$work/x"
done
for name in hello tree; do
	xz -dc "$dir"/deb/"$name"_*.tar.xz > "$dir/deb/$name.tar"
done
mkdir "$work/j"
bsdtar -xf "$dir"/deb/libcommons-cli-java_*.tar.* -C "$work/j"
find "$work/j" -name '*.jar' -type f -exec cp {} "$dir/jar/" \;

# npm tarballs: .tgz written by npm's own tar writer (node-tar).
(cd "$dir/npm" && npm pack --silent \
	left-pad@1.3.0 is-number@7.0.0 ms@2.1.3 semver@7.6.3 commander@12.1.0 \
	debug@4.3.7 chalk@5.3.0 minimist@1.2.8 uuid@10.0.0 lodash@4.17.21 >/dev/null)

# Go module zips, written by the go command: those of this module's
# dependencies, the ten smallest over 10 kB, for a stable choice.
(cd "$repo" && go mod download -json 2>/dev/null) |
	sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p' |
	while read -r zip; do
		[ -f "$zip" ] && echo "$(stat -c %s "$zip") $zip"
	done | awk '$1 > 10000' | sort -n | head -10 | while read -r _ zip; do
		rel=${zip#*/cache/download/}
		cp "$zip" "$dir/gomod/$(echo "${rel%/@v/*}" | tr '/!' '__')@$(basename "$zip")"
	done

# Tars from the tools themselves. A format that cannot hold a member
# (ustar and v7 have no long names) makes the tool complain and leave
# that member out; the archive is still one the tool wrote.
src="$work/src"
mkdir -p "$src/dir/sub" "$src/empty"
long=$(printf 'l%.0s' $(seq 120))/$(printf 'm%.0s' $(seq 90))
(
	cd "$src"
	echo hello > a.txt
	head -c 3000 /dev/zero | tr '\0' x > big.txt
	ln -s a.txt link
	ln a.txt hard.txt
	mkdir -p "$long"
	echo deep > "$long/f.txt"
	ln -s "$long/f.txt" longlink
	echo odd > "naïve 日本 #%.txt"
	echo colon > a:stream
	truncate -s 1M sparse.bin
	printf DATA | dd of=sparse.bin bs=1 seek=500000 conv=notrunc 2>/dev/null
	seq 100000 > dir/sub/numbers.txt
)
out="$dir/tools"
for f in gnu oldgnu pax ustar v7; do
	tar --format=$f -cf "$out/gtar-$f.tar" -C "$src" . 2>/dev/null || true
	tar --format=$f --sparse -cf "$out/gtar-sparse-$f.tar" -C "$src" . 2>/dev/null || true
done
tar --listed-incremental="$work/snar" -cf "$out/gtar-incremental0.tar" -C "$src" .
echo new > "$src/dir/new.txt"
tar --listed-incremental="$work/snar" -cf "$out/gtar-incremental1.tar" -C "$src" .
tar -czf "$out/gtar.tar.gz" -C "$src" .
tar -cJf "$out/gtar.tar.xz" -C "$src" .
for f in pax ustar gnutar; do
	bsdtar --format $f -cf "$out/bsdtar-$f.tar" -C "$src" . 2>/dev/null || true
done
bsdtar --format pax --read-sparse -cf "$out/bsdtar-sparse.tar" -C "$src" .
bsdtar -czf "$out/bsdtar.tar.gz" -C "$src" .
python3 - "$src" "$out" <<'PY'
import sys, tarfile
src, out = sys.argv[1], sys.argv[2]
for fmt, name in [(tarfile.GNU_FORMAT, "gnu"), (tarfile.PAX_FORMAT, "pax")]:
    with tarfile.open(f"{out}/python-{name}.tar", "w", format=fmt) as t:
        t.add(src, arcname=".")
with tarfile.open(f"{out}/python.tar.gz", "w:gz") as t:
    t.add(src, arcname="src")
with tarfile.open(f"{out}/python.tar.xz", "w:xz") as t:
    t.add(src, arcname="src")
PY
if git -C "$repo" rev-parse --verify -q HEAD >/dev/null; then
	git -C "$repo" archive --format=tar HEAD adapters/taradapter > "$out/git-archive.tar"
fi

# Plain names: the test puts them in pipelines unencoded.
find "$dir" -type f | while read -r f; do
	clean=$(basename "$f" | tr -c 'A-Za-z0-9._\n-' '_')
	[ "$clean" = "$(basename "$f")" ] || mv "$f" "$(dirname "$f")/$clean"
done

echo "$version" > "$dir/.done"
echo "corpus.sh: $(find "$dir" -type f ! -name .done | wc -l) archives, $(du -sh "$dir" | cut -f1) in $dir" >&2
