#!/usr/bin/env python3
"""damagecorpus.py PIPEFS ARCHIVE...: damages archives that other tools
wrote (the real-world corpus of scripts/corpus.sh: npm .tgz, Go module
zips, jars, .tar.gz and .tar.xz) by one flipped bit at FLIPS places
(default 12) and by truncation at CUTS lengths (default 6), and reads up
to MEMBERS regular members (default 12) of every damaged copy with
`pipefs cat`, comparing with what bsdtar extracts from the undamaged
archive; and lists every copy with `pipefs ls -R`. It prints, per
archive, the reads that gave wrong bytes with exit status 0 (the target
is 0), the reads that failed, and the listings of truncated copies that
exited 0 (the target is 0). Environment: FLIPS, CUTS, MEMBERS."""
import os, subprocess, sys, tempfile

pipefs, archives = sys.argv[1], sys.argv[2:]
flips = int(os.environ.get("FLIPS", 12))
cuts = int(os.environ.get("CUTS", 6))
nmembers = int(os.environ.get("MEMBERS", 12))
tmp = tempfile.mkdtemp()

def chain(name):
    for ext, c in ((".tar.gz", "|gzip:|pipefs.tar:"), (".tgz", "|gzip:|pipefs.tar:"),
                   (".tar.xz", "|pipefs.xz:|pipefs.tar:"), (".tar.bz2", "|pipefs.bzip2:|pipefs.tar:"),
                   (".tar.zst", "|zstd:|pipefs.tar:"), (".zip", "|zip:"), (".jar", "|zip:")):
        if name.endswith(ext):
            return c
    return None

total = {"reads": 0, "wrong": 0, "failed": 0, "cutls0": 0}
print("%-44s %6s %12s %7s %12s" % ("archive", "reads", "wrong,exit0", "failed", "ls-exit0(cut)"))
for a in archives:
    c = chain(a)
    if c is None:
        continue
    names = [n for n in subprocess.run(["bsdtar", "-tf", a], capture_output=True, text=True).stdout.splitlines()
             if not n.endswith("/")]
    want = {}
    for n in names:
        r = subprocess.run(["bsdtar", "-xOf", a, n], capture_output=True)
        if r.returncode == 0 and len(r.stdout) > 0:
            want[n] = r.stdout
        if len(want) >= nmembers:
            break
    data = open(a, "rb").read()
    base = os.path.basename(a)
    reads = wrong = failed = cutls0 = 0
    for how, n in (("flip", flips), ("cut", cuts)):
        for k in range(1, n + 1):
            b = bytearray(data)
            if how == "flip":
                b[len(b) * k // (n + 1)] ^= 1 << (k % 8)
            else:
                b = b[:len(b) * k // (n + 1)]
            path = os.path.join(tmp, "%s-%d-%s" % (how, k, base))
            open(path, "wb").write(b)
            url = "file:" + path + c
            ls = subprocess.run([pipefs, "ls", "-R", url], capture_output=True)
            if how == "cut" and ls.returncode == 0:
                cutls0 += 1
                print("  truncated listing exit 0: %s cut %d/%d" % (base, k, n), file=sys.stderr)
            for m, body in want.items():
                q = m.replace("%", "%25").replace("|", "%7C").replace("#", "%23").replace("?", "%3F")
                r = subprocess.run([pipefs, "cat", url + q], capture_output=True)
                reads += 1
                if r.returncode != 0:
                    failed += 1
                elif r.stdout != body:
                    wrong += 1
                    print("  wrong bytes, exit 0: %s %s %d/%d %s" % (base, how, k, n, m), file=sys.stderr)
            os.remove(path)
    print("%-44s %6d %12d %7d %9d" % (base[:44], reads, wrong, failed, cutls0))
    for key, v in (("reads", reads), ("wrong", wrong), ("failed", failed), ("cutls0", cutls0)):
        total[key] += v
print("%-44s %6d %12d %7d %9d" % ("total", total["reads"], total["wrong"], total["failed"], total["cutls0"]))
