#!/usr/bin/env bash
# fatjar.sh: ls -R --deep of a Spring-style fat jar over HTTP, with the
# requests a server sees and the time, behind 30 ms of latency per answer
# and 100 MB/s per connection (scripts/shapedserver).
#
# The jar (215 MB) holds BOOT-INF/classes/app/K0..K1999.class (800 bytes
# each, deflated) and BOOT-INF/lib/lib000..lib199.jar, stored, as Spring
# Boot stores nested jars; each nested jar holds 30 deflated classes of
# 2,000 bytes and a stored 1 MiB resource.
#
#   bash scripts/fatjar.sh [WORKDIR]        # default /tmp/pipefs-fatjar
#
# To time another build, run its binary against the same server the way
# the last lines do; the listing must be the same.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-/tmp/pipefs-fatjar}
mkdir -p "$work"
if [ ! -f "$work/fat.jar" ]; then
	/usr/bin/python3 - "$work/fat.jar" <<'PY'
import io, random, sys, zipfile
rnd = random.Random(318)
def cls(n):  # compressible, like class files
    words = [b"java/lang/Object", b"<init>", b"Code", b"LineNumberTable", b"com/ex/"]
    return b"".join(rnd.choice(words) for _ in range(n // 8))[:n].ljust(n, b"\0")
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for i in range(2000):
        z.writestr(zipfile.ZipInfo(f"BOOT-INF/classes/app/K{i}.class"), cls(800), zipfile.ZIP_DEFLATED)
    for j in range(200):
        b = io.BytesIO()
        with zipfile.ZipFile(b, "w") as inner:
            for k in range(30):
                inner.writestr(f"com/ex/p{k % 3}/C{k}.class", cls(2000), zipfile.ZIP_DEFLATED)
            inner.writestr(f"res/p{j % 3}.bin", rnd.randbytes(1 << 20), zipfile.ZIP_STORED)
        z.writestr(zipfile.ZipInfo(f"BOOT-INF/lib/lib{j:03d}.jar"), b.getvalue(), zipfile.ZIP_STORED)
PY
fi
go build -o "$work/pipefs" ./cmd/pipefs
go build -o "$work/shapedserver" ./scripts/shapedserver
"$work/shapedserver" -addr 127.0.0.1:0 -latency 30ms -rate 100000000 -log "$work" > "$work/addr" 2> "$work/requests" &
srv=$!
trap 'kill $srv' EXIT
for _ in $(seq 100); do grep -q http "$work/addr" 2>/dev/null && break; sleep 0.1; done
url=$(grep -o 'http://[0-9.:]*' "$work/addr" | head -1)
: > "$work/requests"
/usr/bin/time -f "time %e s, max RSS %M KB" "$work/pipefs" --cache-dir=off ls -R --deep "$url/fat.jar" > "$work/listing"
echo "$(wc -l < "$work/listing") names listed, $(grep -c . "$work/requests") requests"
