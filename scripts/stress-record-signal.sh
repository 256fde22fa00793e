#!/usr/bin/env bash
# SIGINT `lockstep record` the moment its temporary file appears, N times,
# and count the runs that left it behind, or that did not die of the signal
# saying so.  How the README's "Nothing half-written" figures were measured
# (CI once saw test_faults test_record_interrupted leave int.lsr.tmp.PID
# under ASan).  Usage: scripts/stress-record-signal.sh [BINARY] [N]
#   BINARY: default build/lockstep (build-asan/lockstep widens the window)
set -uo pipefail
bin=${1:-build/lockstep}
n=${2:-50}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allocator_may_return_null=1} OMP_WAIT_POLICY=passive
left=0
bad=0
for i in $(seq 1 "$n"); do
    "$bin" record --engine cpu --out "$d/int.lsr" --limit-train 8192 --limit-test 256 --epochs 1 >"$d/log" 2>&1 &
    p=$!
    t="$d/int.lsr.tmp.$p"
    for _ in $(seq 1 200000); do [ -e "$t" ] && break; done
    kill -INT "$p"
    wait "$p"
    st=$?
    if [ -e "$t" ]; then left=$((left + 1)); echo "run $i: left $t"; rm -f "$t"; fi
    # a background job of a non-interactive shell starts with SIGINT ignored:
    # a run that finishes anyway took the signal before record's handler
    if [ "$st" -ne 130 ] || ! grep -q "stopped by a signal" "$d/log"; then
        bad=$((bad + 1))
        echo "run $i: exit $st: $(tail -c 200 "$d/log" | tr '\n' ' ')"
    fi
    rm -f "$d/int.lsr"
done
echo "runs $n, temporaries left $left, runs not stopped by the signal as they should be $bad"
[ "$left" -eq 0 ] && [ "$bad" -eq 0 ]
