#!/usr/bin/env bash
# ck-bitid.sh — are two builds' every-step checksum vectors the same, bit for
# bit?  A change meant to make src/engines/checksums.c faster must not move
# a single bit of the STEP, UPDATE, hash or EVAL vectors (the bounds and the
# fault zoo's score rest on the exact order of every sum).
#   scripts/ck-bitid.sh OLD_BENCH_CK_DUMP [NEW_BENCH_CK_DUMP] [quick]
# OLD: build/tests/bench_ck_dump built at the commit before the change (keep
# a copy: cp build/tests/bench_ck_dump /tmp/dump_old); NEW defaults to this
# tree's build/tests/bench_ck_dump.  Runs both (~5 s each), cmp's every
# configuration's file, exits 1 on any difference.
set -u
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
