#!/usr/bin/env bash
# run-tests.sh — run every CMocka test program given, each to the end, then
# print one closing line "tests: N passed, N failed, N skipped" counting test
# cases (from each program's CMocka summary); a program that crashes or exits
# non-zero without a summary counts as one failed case.  Exits non-zero if
# anything failed.
set -u
pass=0; fail=0; skip=0; failed_names=()
t0=$(date +%s)
for t in "$@"; do
    name=$(basename "$t")
    s=$(date +%s.%N)
    out=$("$t" 2>&1); rc=$?
    e=$(date +%s.%N)
    printf '%s\n' "$out"
    dt=$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.1f", b-a}')
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    k=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
    pass=$((pass + ${p:-0})); skip=$((skip + ${k:-0})); fail=$((fail + ${f:-0}))
    if [ $rc -ne 0 ] && [ -z "$f" ]; then fail=$((fail + 1)); fi
    if [ $rc -eq 0 ]; then
        echo "== $name: ok — ${p:-0} passed, ${k:-0} skipped (${dt}s)"
    else
        failed_names+=("$name")
        echo "== $name: FAILED (exit $rc, ${dt}s)"
    fi
done
echo "suite time: $(( $(date +%s) - t0 )) s"
[ ${#failed_names[@]} -gt 0 ] && echo "failed programs: ${failed_names[*]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ ${#failed_names[@]} -eq 0 ]
