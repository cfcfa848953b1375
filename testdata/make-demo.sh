#!/bin/sh
# Builds demo.zip, the archive the README's first commands open:
#
#   demo.zip                      deflated members, and data/inner.zip STORED
#   └── data/inner.zip            notes/a.txt, notes/b.txt, deep.zip STORED
#       └── deep.zip              hello.txt, big.txt (deflated)
#
# Needs Info-ZIP zip. "-n .zip" stores members ending in .zip, so a reader
# reaches deep.zip with no decompression at all.
set -eu
cd "$(dirname "$0")"
out=$(pwd)/demo.zip
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC

mkdir -p "$tmp/deep" "$tmp/inner/notes" "$tmp/demo/docs" "$tmp/demo/site" "$tmp/demo/templates" "$tmp/demo/data"

printf 'hello from three zips down\n' > "$tmp/deep/hello.txt"
i=1
while [ $i -le 200 ]; do
	printf 'line %03d: the quick brown fox jumps over the lazy dog\n' $i
	i=$((i + 1))
done > "$tmp/deep/big.txt"

printf 'First note: pipefs reads archives in place.\n' > "$tmp/inner/notes/a.txt"
printf 'Second note: stored members are sections of their parent.\n' > "$tmp/inner/notes/b.txt"

cat > "$tmp/demo/README.txt" <<'EOF'
pipefs demo archive

Try:
  go run ./cmd/pipefs tree 'file:testdata/demo.zip'
  go run ./cmd/pipefs cat 'file:testdata/demo.zip|zip:data/inner.zip|zip:deep.zip|zip:hello.txt'
EOF
cat > "$tmp/demo/docs/guide.md" <<'EOF'
# Guide

A pipeline is a list of sub-URLs separated by `|`. Each one opens the
resource named by everything to its left:

    file:testdata/demo.zip|zip:data/inner.zip|zip:notes/a.txt

Nothing is extracted: `data/inner.zip` is stored, so its bytes are read
straight from `demo.zip`.
EOF
cat > "$tmp/demo/site/index.html" <<'EOF'
<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>pipefs demo</title><link rel="stylesheet" href="style.css"></head>
<body><h1>Served from inside a zip</h1><p>This page lives in demo.zip.</p></body>
</html>
EOF
cat > "$tmp/demo/site/style.css" <<'EOF'
body { font-family: sans-serif; margin: 2em auto; max-width: 40em; }
h1 { color: #2a6; }
EOF
cat > "$tmp/demo/templates/page.tmpl" <<'EOF'
<!doctype html>
<title>{{.Title}}</title>
<h1>{{.Title}}</h1>
{{template "list.tmpl" .}}
EOF
cat > "$tmp/demo/templates/list.tmpl" <<'EOF'
<ul>{{range .Items}}
  <li>{{.}}</li>{{end}}
</ul>
EOF

find "$tmp" -exec touch -d '2024-05-06 07:08:10' {} +
(cd "$tmp/deep" && zip -q -X ../inner/deep.zip hello.txt big.txt)
touch -d '2024-05-06 07:08:10' "$tmp/inner/deep.zip"
(cd "$tmp/inner" && zip -q -X -n .zip -r ../demo/data/inner.zip notes deep.zip)
touch -d '2024-05-06 07:08:10' "$tmp/demo/data/inner.zip" "$tmp/demo/data"
rm -f "$out"
(cd "$tmp/demo" && zip -q -X -n .zip -r "$out" README.txt docs site templates data)
unzip -v "$out"
