#!/usr/bin/env bash
# ck-bitid.sh — are two builds' every-step checksum vectors the same, bit for
# bit?  A change meant to make src/engines/checksums.c faster must not move
# a single bit of the STEP, UPDATE, hash or EVAL vectors (the bounds and the
# fault zoo's score rest on the exact order of every sum).
#   scripts/ck-bitid.sh OLD_BENCH_CK_DUMP [NEW_BENCH_CK_DUMP] [quick]
#   scripts/ck-bitid.sh --faults OLD_BENCH_CK_DUMP_FAULTS [NEW_BENCH_CK_DUMP_FAULTS]
# OLD: build/tests/bench_ck_dump built at the commit before the change (keep
# a copy: cp build/tests/bench_ck_dump /tmp/dump_old); NEW defaults to this
# tree's build/tests/bench_ck_dump.  Runs both (~5 s each: 17
# configurations, 3 steps each), cmp's every configuration's file, exits 1
# on any difference.  --faults: build/tests/bench_ck_dump_faults (linked
# with the zoo's fault objects), every fault of src/engines/cpu/cpu_faults.h
# switched into the cpu engine for 9 steps at batch 32, the digests of all
# their vectors compared (~7 min each build).
set -u
if [ "${1:-}" = --faults ]; then
    old=${2:?usage: ck-bitid.sh --faults OLD [NEW]}
    new=${3:-build/tests/bench_ck_dump_faults}
    mapfile -t zoo < <(grep -oE 'X\([A-Z0-9_]+, "[^"]+", "[^"]*", "[^"]*", "[^"]*", "[^ "]+' src/engines/cpu/cpu_faults.h |
        sed -E 's/X\([A-Z0-9_]+, "([^"]+)", "[^"]*", "[^"]*", "[^"]*", "([^ "]+)/\2:\1/')
    d=$(mktemp -d)
    trap 'rm -rf "$d"' EXIT
    "$old" - faults "${zoo[@]}" > "$d/old.txt" 2>&1
    "$new" - faults "${zoo[@]}" > "$d/new.txt" 2>&1
    n=$(grep -c ' [0-9a-f]\{16\} ' "$d/old.txt")
    if diff "$d/old.txt" "$d/new.txt" > "$d/diff.txt"; then
        echo "ck-bitid --faults: ${#zoo[@]} faults, $n with vectors, every digest identical"
        exit 0
    fi
    echo "ck-bitid --faults: DIFFERS:"; cat "$d/diff.txt"; exit 1
fi
old=${1:?usage: ck-bitid.sh OLD_BENCH_CK_DUMP [NEW] [quick]}
new=${2:-build/tests/bench_ck_dump}
q=${3:-}
if [ "$new" = quick ]; then new=build/tests/bench_ck_dump; q=quick; fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir "$d/old" "$d/new"
"$old" "$d/old" $q > "$d/old.txt" || { echo "ck-bitid: $old failed"; exit 1; }
"$new" "$d/new" $q > "$d/new.txt" || { echo "ck-bitid: $new failed"; exit 1; }
bad=0; n=0
for f in "$d"/old/*.bin; do
    b=$(basename "$f"); n=$((n + 1))
    if ! cmp -s "$f" "$d/new/$b"; then
        echo "DIFFERS: ${b%.bin} ($(cmp "$f" "$d/new/$b" 2>&1 | head -1))"; bad=$((bad + 1))
    fi
done
[ "$(ls "$d/new" | wc -l)" -eq "$n" ] || { echo "ck-bitid: the two builds wrote different configurations"; bad=$((bad + 1)); }
bytes=$(cat "$d"/old/*.bin | wc -c)
echo "ck-bitid: $n configurations, $((bytes / 8)) doubles (12 vectors each: STEP+hash, hash-only, UPDATE+hash, EVAL x 3 steps): $bad differ"
[ $bad -eq 0 ]
