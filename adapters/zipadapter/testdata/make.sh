#!/bin/sh
# Rebuilds the zip fixtures of this directory from src/ with real tools:
# Info-ZIP zip, bsdtar (libarchive), 7z (p7zip) and archive/zip (gen/).
# Needs: apt-get install zip libarchive-tools p7zip-full
set -eu
cd "$(dirname "$0")"
here=$(pwd)
export TZ=UTC
# Fixed times, so that rebuilding changes nothing but tool versions.
find src -exec touch -d '2024-05-06 07:08:10' {} +

rm -f infozip*.zip bsdtar*.zip 7z*.zip sfx*.zip go-*.zip nest-*.zip

cd src
# Info-ZIP, deflated, with directory entries, an archive comment (-z reads
# it from stdin) and file comments (-c reads one line per file).
zip -q -X -r ../infozip.zip hello.txt empty.txt dir
printf 'archive comment from Info-ZIP\n.\n' | zip -q -z ../infozip.zip
printf 'comment of hello\ncomment of empty\n\n\n\n\n\n' | zip -q -c ../infozip.zip hello.txt empty.txt >/dev/null 2>&1 || true
# Info-ZIP, stored (-0), no directory entries (-D): implied directories.
zip -q -X -0 -D -r ../infozip-stored.zip hello.txt empty.txt dir
# Info-ZIP, forced zip64 records (-fz).
zip -q -X -fz -r ../infozip-zip64.zip hello.txt empty.txt dir
# Info-ZIP, forced data descriptors (-fd).
zip -q -X -fd -r ../infozip-descriptor.zip hello.txt empty.txt dir
# Info-ZIP streaming: stdin as the member "-", output to a pipe, so sizes
# come after the data in descriptors.
cat dir/a.txt | zip -q -X - - | cat > ../infozip-stream.zip
# bsdtar picks the format from the suffix (-a).
bsdtar -a -cf ../bsdtar.zip hello.txt empty.txt dir
# 7z, deflate and stored.
7z a -bd -bso0 -tzip ../7z.zip hello.txt empty.txt dir
7z a -bd -bso0 -tzip -mx=0 ../7z-stored.zip hello.txt empty.txt dir
cd "$here"

# A self-extracting style archive: bytes catenated in front of the zip.
# sfx-unfixed.zip keeps the offsets of the bare zip (readers must find the
# prefix from the end record); sfx-fixed.zip has them fixed by zip -A.
head -c 1000 /dev/zero | tr '\0' '#' > prefix.tmp
printf '#!/bin/sh\necho "not really self-extracting"\nexit 0\n' >> prefix.tmp
cat prefix.tmp infozip.zip > sfx-unfixed.zip
cp sfx-unfixed.zip sfx-fixed.zip
zip -q -A sfx-fixed.zip
rm -f prefix.tmp

# archive/zip's writer: unsafe names, duplicates, links, nesting.
(cd gen && go run main.go "$here")
ls -l *.zip
