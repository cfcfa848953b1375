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
#     with links, long names, a sparse file and odd names;
#   - hdf5/PACKAGE/: HDF5 files from the test suites and examples of other
#     projects, as Debian packages ship them, for composition/hdf5_test.go
#     (every file with the HDF5 signature at 0, 512, 1024, ...; see the
#     hdf5 section below for the packages).
# It is idempotent: a finished corpus (DIR/.done holds this script's
# version) is left alone. It needs apt-get, ar, dpkg-deb, xz, bsdtar, npm,
# go, python3, GNU tar and git; none of them needs root (apt-get download
# writes to the working directory). The corpus is about 44 MB: 56 archives
# and 233 HDF5 files from 17 packages (about 115 MB of Debian packages to
# download), gathered in one to four minutes.
set -euo pipefail

version=5
dir=${1:?usage: corpus.sh DIR}
if [ "$(cat "$dir/.done" 2>/dev/null)" = "$version" ]; then
	exit 0
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir"
mkdir -p "$dir/deb" "$dir/jar" "$dir/npm" "$dir/gomod" "$dir/tools" "$dir/hdf5"
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

# HDF5 files that other projects wrote, from Debian 12 packages (apt-get
# download, dpkg-deb -x; no root needed). Every file of the package that
# has the HDF5 signature (at offset 0, or after a user block at 512, 1024,
# 2048, ...) and is at most 4 MB is kept, whatever its name, in
# hdf5/PACKAGE/ under its own name (or DIR_NAME when two share a name):
#   - python-tables-data: PyTables' test files (HDF5 1.4 to 1.10 era:
#     old-style groups, layout messages of HDF5 1.6, lzo, blosc, bzip2,
#     szip, big-endian, nested compound, enum, vlen, MATLAB v7.3 .mat with
#     a 512-byte user block, external and soft links);
#   - python3-h5py-serial: h5py's test data (vlen strings, s390x);
#   - python3-hyperspy: HyperSpy's .hspy/.hdf5, EMD and NeXus (.nxs) files;
#   - scilab-test: Scilab's SOD files (HDF5 through Scilab's own writer,
#     references, old libhdf5 versions) and .h5 test files;
#   - r-bioc-rhdf5, r-bioc-rhdf5filters, r-cran-hdf5r: files written from
#     R and the HDF Group's examples (array, compound, enum, blosc, szip);
#   - python3-anndata: AnnData .h5ad archives of two anndata versions;
#   - python3-sunpy, r-cran-ncmeta, r-cran-stars: netCDF-4 files (.nc
#     whose signature is HDF5's; netCDF-3 ones are left out);
#   - libhe5-hdfeos-dev: HDF-EOS5 grid, point and swath samples;
#   - minc-tools, python3-nibabel: MINC 2 images (.mnc, HDF5 inside);
#   - python3-sasview: NXcanSAS and NeXus files (the small ones);
#   - python3-bmtk-examples: SONATA network and spike files, NWB (the
#     small ones);
#   - libncarg-data: NCL's sample data, a netCDF-4 file and a NASA Aura MLS
#     level-2 product (HDF-EOS5).
# (gmt-common's netCDF-4 coastlines would add 11 more files, for an 80 MB
# download.)
h5debs="python-tables-data python3-h5py-serial python3-hyperspy scilab-test
	r-bioc-rhdf5 r-bioc-rhdf5filters r-cran-hdf5r python3-anndata python3-sunpy
	r-cran-ncmeta r-cran-stars libhe5-hdfeos-dev minc-tools python3-nibabel
	python3-sasview python3-bmtk-examples libncarg-data"
mkdir "$work/h5"
(cd "$work/h5" && apt-get download $h5debs >/dev/null 2>&1) ||
	(cd "$work/h5" && apt-get download $h5debs)
for deb in "$work"/h5/*.deb; do
	pkg=$(basename "$deb" | cut -d_ -f1)
	rm -rf "$work/hx"
	dpkg-deb -x "$deb" "$work/hx"
	mkdir -p "$dir/hdf5/$pkg"
	python3 - "$work/hx" "$dir/hdf5/$pkg" <<'PY'
import os, shutil, sys
src, out = sys.argv[1], sys.argv[2]
SIG, LIMIT = b"\x89HDF\r\n\x1a\n", 4 << 20
def hdf5(p):
    size = os.path.getsize(p)
    if size > LIMIT:
        return False
    with open(p, "rb") as f:
        off = 0
        while off + 8 <= size:
            f.seek(off)
            if f.read(8) == SIG:
                return True
            off = 512 if off == 0 else off * 2
    return False
for root, dirs, files in sorted(os.walk(src)):
    dirs.sort()
    for name in sorted(files):
        p = os.path.join(root, name)
        if os.path.islink(p) or not os.path.isfile(p) or not hdf5(p):
            continue
        dst = os.path.join(out, name)
        if os.path.exists(dst):
            dst = os.path.join(out, os.path.basename(root) + "_" + name)
        shutil.copyfile(p, dst)
PY
	rmdir "$dir/hdf5/$pkg" 2>/dev/null || true
done

# Plain names: the test puts them in pipelines unencoded.
find "$dir" -type f | while read -r f; do
	clean=$(basename "$f" | tr -c 'A-Za-z0-9._\n-' '_')
	[ "$clean" = "$(basename "$f")" ] || mv "$f" "$(dirname "$f")/$clean"
done

echo "$version" > "$dir/.done"
echo "corpus.sh: $(find "$dir" -type f ! -name .done ! -path "$dir/hdf5/*" | wc -l) archives, $(find "$dir/hdf5" -type f | wc -l) HDF5 files, $(du -sh "$dir" | cut -f1) in $dir" >&2
