#!/bin/sh
# Regenerates the gzip fixtures with real tools (GNU gzip, pigz).
# Run from this directory: sh gen.sh
set -e
printf 'hello, gzip\n' > hello.txt
gzip -9 -n -c hello.txt > nameless.gz            # no FNAME
touch -d 2020-01-02T03:04:05Z hello.txt
gzip -9 -N -c hello.txt > hello.txt.gz           # FNAME, MTIME
printf 'second member\n' | gzip -1 -c > second.gz
cat hello.txt.gz second.gz > multi.gz            # two members
# 20 KiB of random bytes: stored blocks.
head -c 20480 /dev/urandom > random.bin
gzip -6 -c random.bin > random.bin.gz
# pigz: independent blocks and a comment.
seq 1 3000 > seq.txt
pigz -6 -i -b 32 -c seq.txt > seq.txt.gz
pigz -c -C 'a comment' hello.txt > comment.gz
: > empty
gzip -c empty > empty.gz
rm -f hello.txt second.gz random.bin empty seq.txt
# BGZF (bgzip from htslib, Debian package tabix): 65280-byte blocks with
# the BC subfield, and the 28-byte empty block that ends every file.
(seq 1 4000; yes 'pipefs bgzf fixture' | head -c 150000; seq 4000 6000) | bgzip -c > bgzf-blocks.gz
: | bgzip -c > bgzf-empty.gz
