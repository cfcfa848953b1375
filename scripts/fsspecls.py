#!/usr/bin/python3
"""fsspecls.py URL...: what fsspec's HTTPFileSystem lists of each directory
URL of an HTTP server, as JSON; the oracle of browse/fsspec_test.go, which
compares the listings of pipefs serve with those of Python's http.server
and with the members of the archives it serves.

It prints {"URL": {"find": [...], "ls": [...]}, ...}: the names that
find() and ls() return, relative to URL, sorted. Needs Debian's
python3-fsspec and python3-aiohttp.
"""
import json
import sys

import fsspec


def main():
    fs = fsspec.filesystem("http")
    out = {}
    for url in sys.argv[1:]:
        url = url.rstrip("/") + "/"
        rel = lambda names: sorted(n[len(url):] if n.startswith(url) else n for n in names)
        out[url] = {"find": rel(fs.find(url)), "ls": rel(fs.ls(url, detail=False))}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
