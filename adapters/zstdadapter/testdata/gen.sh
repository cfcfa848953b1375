#!/bin/sh
# Regenerates the zstd fixtures with the zstd CLI. Run from this directory.
set -e
printf 'hello, zstd\n' > hello.txt
zstd -q -19 -f hello.txt -o hello.txt.zst                 # content size, checksum
printf 'second frame\n' | zstd -q -c > second.zst          # from a pipe: no content size
cat hello.txt.zst second.zst > multi.zst                  # two frames
seq 1 5000 > seq.txt
zstd -q --long=27 -f seq.txt -o seq.long.zst              # long mode
zstd -q --no-check -f seq.txt -o seq.nocheck.zst          # no checksum
head -c 30000 /dev/urandom > random.bin
zstd -q -f random.bin -o random.bin.zst                   # raw blocks
rm -f hello.txt second.zst seq.txt random.bin
