#!/usr/bin/env bash
# stress-tests.sh runs the tests of cmd/pipefs while busy loops hold the
# machine's cores, so that a test that depends on timing (a fixed sleep, a
# short timeout, a shell not yet at its prompt) fails here rather than
# once in a while in CI. It prints the result and the wall time of each run.
#
#	scripts/stress-tests.sh [-n RUNS] [-l LOOPS] [GO TEST ARGUMENT...]
#
# RUNS (default 1) is how many times go test runs, one after the other,
# under LOOPS busy loops (default 3, "sh -c 'while :; do :; done'"), which
# end with the script. The arguments go to go test after -count=1 and
# before the package, such as -run 'TestCompleteShells' or -v; the exit
# status is 1 when any run failed. The terminal tests need tmux,
# bash-completion, zsh and fish, as in CI (.ci/run); CI=1 is set, so that
# a missing tool fails a test instead of skipping it.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1
loops=3
while [ $# -gt 1 ]; do
	case $1 in
	-n) runs=$2 ;;
	-l) loops=$2 ;;
	*) break ;;
	esac
	shift 2
done
export CI=1

pids=()
stop() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
}
trap stop EXIT
trap 'exit 130' INT TERM

# The test binary builds before the loops start, so that the runs time the
# tests, not the compiler.
go test -count=1 -run '^$' ./cmd/pipefs > /dev/null

for ((i = 0; i < loops; i++)); do
	sh -c 'while :; do :; done' &
	pids+=($!)
done
echo "stress: $loops busy loops on $(nproc) cores; go test -count=1 $* ./cmd/pipefs, $runs run(s)"

passed=0
for ((r = 1; r <= runs; r++)); do
	start=$(date +%s.%N)
	status=pass
	go test -count=1 "$@" ./cmd/pipefs || status=FAIL
	end=$(date +%s.%N)
	[ "$status" = FAIL ] || passed=$((passed + 1))
	awk -v r="$r" -v n="$runs" -v s="$status" -v a="$start" -v b="$end" -v l="$(cut -d' ' -f1-3 /proc/loadavg)" \
		'BEGIN { printf "stress: run %d/%d %s in %.1f s (load average %s)\n", r, n, s, b - a, l }'
done
echo "stress: $passed of $runs runs passed"
[ "$passed" -eq "$runs" ]
