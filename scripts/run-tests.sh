#!/usr/bin/env bash
# run-tests.sh — run every CMocka test program given, each to the end, then
# print one closing line "tests: N passed, N failed, N skipped" counting test
# cases (from each program's CMocka summary); a program that crashes or exits
# non-zero without a summary counts as one failed case.  Exits non-zero if
# anything failed.
#
# TEST_JOBS=N runs up to N programs at once (default: the machine's cores,
# at most 2 when unset).  Programs start in the order given (the Makefile
# puts the slow ones first), each one's output is held in a file and printed
# whole when it ends, so outputs never interleave.  Most programs keep one
# core busy while the other idles (an audit's engines run one at a time),
# so two at once take ~60% of the wall time of one at a time on 2 cores.
# With more than one job OpenMP's idle workers sleep instead of spinning
# (OMP_WAIT_POLICY=passive, unless set): spinning workers of one program
# would take the core the other needs; the policy changes no value.
set -u
jobs=${TEST_JOBS:-$(n=$(nproc 2>/dev/null || echo 1); [ "$n" -gt 2 ] && n=2; echo "$n")}
case "$jobs" in ''|*[!0-9]*|0) echo "run-tests.sh: TEST_JOBS must be a positive integer, not '$jobs'" >&2; exit 2 ;; esac
[ "$jobs" -gt 1 ] && export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/run-tests.XXXXXX") || exit 2
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "run-tests.sh: interrupted" >&2; exit 130' INT
trap 'echo "run-tests.sh: terminated" >&2; exit 143' TERM

pass=0; fail=0; skip=0; failed_names=()
t0=$(date +%s)

# one program, its output and its exit status and time into $tmp/<i>.*
run_one() {
    local i=$1 t=$2 s e rc
    s=$(date +%s.%N)
    "$t" > "$tmp/$i.out" 2>&1; rc=$?
    e=$(date +%s.%N)
    awk -v a="$s" -v b="$e" 'BEGIN{printf "%.1f", b-a}' > "$tmp/$i.time"
    echo "$rc" > "$tmp/$i.rc.part" && mv "$tmp/$i.rc.part" "$tmp/$i.rc"
}

# the summary of program i, once it has ended
report() {
    local i=$1 t=$2 name out rc dt p f k
    name=$(basename "$t")
    out=$(cat "$tmp/$i.out"); rc=$(cat "$tmp/$i.rc"); dt=$(cat "$tmp/$i.time")
    printf '%s\n' "$out"
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    k=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
    pass=$((pass + ${p:-0})); skip=$((skip + ${k:-0})); fail=$((fail + ${f:-0}))
    if [ "$rc" -ne 0 ] && [ -z "$f" ]; then fail=$((fail + 1)); fi
    if [ "$rc" -eq 0 ]; then
        echo "== $name: ok — ${p:-0} passed, ${k:-0} skipped (${dt}s)"
    else
        failed_names+=("$name")
        echo "== $name: FAILED (exit $rc, ${dt}s)"
    fi
}

progs=("$@")
declare -A running=()   # index -> pid
next=0; done_n=0
while [ "$done_n" -lt "${#progs[@]}" ]; do
    while [ "${#running[@]}" -lt "$jobs" ] && [ "$next" -lt "${#progs[@]}" ]; do
        # its own process group, so an interrupt reaches the program's children
        set -m; run_one "$next" "${progs[$next]}" & set +m
        running[$next]=$!; pids+=("$!")
        next=$((next + 1))
    done
    wait -n 2>/dev/null
    for i in "${!running[@]}"; do
        if [ -f "$tmp/$i.rc" ]; then
            wait "${running[$i]}" 2>/dev/null
            unset "running[$i]"
            report "$i" "${progs[$i]}"
            done_n=$((done_n + 1))
        fi
    done
done
pids=()
echo "suite time: $(( $(date +%s) - t0 )) s ($jobs program(s) at once)"
[ ${#failed_names[@]} -gt 0 ] && echo "failed programs: ${failed_names[*]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ ${#failed_names[@]} -eq 0 ]
