#!/usr/bin/env bash
# corpus.sh DIR: gathers into DIR a corpus of archives that other tools
# wrote, for composition/realworld_test.go (run it with PIPEFS_CORPUS=DIR):
#   - deb/: the data.tar.xz members of a few Debian packages
#     (apt-get download, then ar x), and two of them decompressed to .tar;
#   - jar/: the jars of a Debian Java package (libcommons-cli-java);
#   - npm/: npm tarballs (npm pack, pinned versions);
#   - gomod/: Go module zips from the module cache of this repository.
# It is idempotent: a finished corpus (DIR/.done holds this script's
# version) is left alone. It needs apt-get, ar, xz, bsdtar, npm and go;
# none of them needs root (apt-get download writes to the working
# directory). The corpus is about 10 MB and takes well under a minute.
set -euo pipefail

version=2
dir=${1:?usage: corpus.sh DIR}
if [ "$(cat "$dir/.done" 2>/dev/null)" = "$version" ]; then
	exit 0
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir"
mkdir -p "$dir/deb" "$dir/jar" "$dir/npm" "$dir/gomod"
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

# Plain names: the test puts them in pipelines unencoded.
find "$dir" -type f | while read -r f; do
	clean=$(basename "$f" | tr -c 'A-Za-z0-9._\n-' '_')
	[ "$clean" = "$(basename "$f")" ] || mv "$f" "$(dirname "$f")/$clean"
done

echo "$version" > "$dir/.done"
echo "corpus.sh: $(find "$dir" -type f ! -name .done | wc -l) archives, $(du -sh "$dir" | cut -f1) in $dir" >&2
