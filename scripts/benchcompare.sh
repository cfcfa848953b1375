#!/bin/sh
# benchcompare.sh compares the Go benchmarks of two commits in one run:
# it builds the test binaries of BASE (in a temporary worktree) and of the
# working tree, runs them interleaved, package by package and round by
# round, so that load on the machine hits both alike, and prints benchstat.
#
#	scripts/benchcompare.sh BASE [ROUNDS [BENCHTIME]]
#
# ROUNDS defaults to 5, BENCHTIME (go test -benchtime) to 3x. Needs
# benchstat (go install golang.org/x/perf/cmd/benchstat@latest).
set -eu
base=$1
rounds=${2:-5}
benchtime=${3:-3x}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
git -C "$root" worktree add -q --detach "$out/base" "$base"
trap 'git -C "$root" worktree remove --force "$out/base"' EXIT
pkgs=$(cd "$root" && go list -f '{{if .TestGoFiles}}{{.Dir}}{{end}}' ./... | while read -r d; do
	if grep -l '^func Benchmark' "$d"/*_test.go >/dev/null 2>&1; then echo "${d#"$root"/}"; fi
done)
for p in $pkgs; do
	name=$(echo "$p" | tr / _)
	[ -d "$out/base/$p" ] && (cd "$out/base/$p" && go test -c -o "$out/old-$name.test" .)
	(cd "$root/$p" && go test -c -o "$out/new-$name.test" .)
done
for r in $(seq "$rounds"); do
	for p in $pkgs; do
		name=$(echo "$p" | tr / _)
		[ -x "$out/old-$name.test" ] && (cd "$out/base/$p" && "$out/old-$name.test" -test.run '^$' -test.bench . -test.benchtime "$benchtime" -test.benchmem) >>"$out/old.txt" 2>&1
		(cd "$root/$p" && "$out/new-$name.test" -test.run '^$' -test.bench . -test.benchtime "$benchtime" -test.benchmem) >>"$out/new.txt" 2>&1
	done
	echo "round $r of $rounds done" >&2
done
benchstat "$out/old.txt" "$out/new.txt"
echo "raw results: $out/old.txt $out/new.txt" >&2
