#!/usr/bin/env bash
# bench.sh — the speed, memory and accuracy figures the issues ask for
# (`make bench`).  Run it on an otherwise idle machine: these 2 cores are
# shared and the numbers are wall-clock.  Each figure is printed with the
# command that produced it.  Needs python3 only to read the JSON outputs.
set -uo pipefail
cd "$(dirname "$0")/.."
B=./build/lockstep
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }

echo "== 1. foundation (issue 2): 3 epochs of the default setup on the cpu engine, 2 threads"
echo "   $B train --engine cpu --threads 2 --json $tmp/train.json"
/usr/bin/time -v $B train --engine cpu --threads 2 --json "$tmp/train.json" > "$tmp/train.log" 2> "$tmp/train.time"
grep -E '^epoch' "$tmp/train.log"
json "$tmp/train.json" "'   final test accuracy %.2f%% (target >= 86%%)' % (100*d['epochs'][-1]['test_accuracy'])"
json "$tmp/train.json" "'   steady-state throughput: epoch 2 %.0f, epoch 3 %.0f images/s (target >= 12,000)' % (d['epochs'][1]['images_per_s'], d['epochs'][2]['images_per_s'])"
rss=$(awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}' "$tmp/train.time")
echo "   peak resident memory: $((rss / 1024)) MiB (target <= 300 MiB)"

if [ -x build/tests/bench_cpu ]; then
    echo
    echo "   one training step, batch 256, 2 threads, median of 60 (per-layer times below it):"
    echo "   build/tests/bench_cpu cpu 256 60; build/tests/bench_cpu cpu:fuse=off 256 60"
    build/tests/bench_cpu cpu 256 60 | sed 's/^/   /'
    build/tests/bench_cpu cpu:fuse=off 256 60 | head -1 | sed 's/^/   /'
fi

if [ -x build/tests/bench_reference ]; then
    echo
    echo "== 2. reference engine (issue 3): one SmallCNN training step, batch 256, 2 threads"
    echo "   build/tests/bench_reference"
    build/tests/bench_reference
fi

echo
echo "== 3. audit overhead (issue 4): cpu engines only, free mode, full comparison every 50 steps,"
echo "   against the same trainings run one after another without comparison (1 epoch each, 3 rounds, medians)"
for r in 1 2 3; do
    s=$(date +%s.%N)
    $B audit --engines cpu,cpu:threads=1 --ref-steps 0 --audit-every 50 --epochs 1 > "$tmp/audit.log"
    e=$(date +%s.%N)
    $B train --engine cpu --epochs 1 > /dev/null
    $B train --engine cpu:threads=1 --epochs 1 > /dev/null
    f=$(date +%s.%N)
    echo "$s $e $f" | awk '{printf "   round: audit %.2f s, trainings %.2f s, ratio %.3f\n", $2-$1, $3-$2, ($2-$1)/($3-$2)}' | tee -a "$tmp/rounds"
done
python3 - "$tmp/rounds" <<'PY'
import re, statistics, sys
rows = [list(map(float, re.findall(r"[0-9.]+", l)))[:3] for l in open(sys.argv[1])]
a, t, r = (statistics.median(c) for c in zip(*rows))
print(f"   median: audit {a:.2f} s, trainings {t:.2f} s, ratio {r:.3f} (target <= 1.3)")
PY
grep -E 'comparison' "$tmp/audit.log" | sed 's/^/   last audit: /'

echo
echo "== 3b. every-step checksums (issue 19): cpu engines only, free mode, 1 epoch, no evaluation, no round trip;"
echo "   the same audit with the checks on, light at all but ~1 step in 10 (--complete-every 10) and off"
echo "   (--no-checksums), 3 rounds each, medians of the wall time"
if [ -x build/tests/bench_checksums ]; then
    echo "   build/tests/bench_checksums cpu 256 10   (one process: a training step vs the STEP and UPDATE vectors)"
    build/tests/bench_checksums cpu 256 10 | sed 's/^/   /'
    echo "   BENCH_CK_THREADS=1 (each engine's share of the cores when an audit lists two cpu engines on two cores)"
    BENCH_CK_THREADS=1 build/tests/bench_checksums cpu 256 10 | sed 's/^/   /'
fi
for r in 1 2 3; do
    for ck in on light off; do
        flag=""; [ "$ck" = off ] && flag="--no-checksums"; [ "$ck" = light ] && flag="--complete-every 10"
        s=$(date +%s.%N)
        $B audit --engines cpu,cpu:threads=1 --ref-steps 0 --audit-every 0 --attribution-steps 0 --no-eval \
            --no-roundtrip --epochs 1 $flag --out "$tmp/ck_$ck" > "$tmp/ck_$ck.log"
        e=$(date +%s.%N)
        echo "$ck $s $e" | awk '{printf "%s %.3f\n", $1, $3-$2}' >> "$tmp/ck_rounds"
    done
done
python3 - "$tmp/ck_rounds" "$tmp/ck_on/run.json" <<'PY'
import json, statistics, sys
t = {"on": [], "light": [], "off": []}
for l in open(sys.argv[1]):
    k, v = l.split()
    t[k].append(float(v))
on, li, off = (statistics.median(t[k]) for k in ("on", "light", "off"))
print(f"   checks on {on:.2f} s, off {off:.2f} s (runs: on {t['on']}, off {t['off']}): +{100 * (on / off - 1):.1f}% (target <= 15%)")
print(f"   --complete-every 10: {li:.2f} s (runs: {t['light']}): +{100 * (li / off - 1):.1f}%")
d = json.load(open(sys.argv[2]))
for e in d.get("engines", []):
    c = e.get("checksums")
    if c: print(f"   {e.get('label')}: {c['steps_checked']} steps checked, {c['seconds']:.2f} s in the checksum op and its judging")
PY

if [ -x build/tests/bench_compare ]; then
    echo
    echo "== 4. cost of the comparison itself: metrics and decision counts per element, SmallCNN-sized tensor"
    echo "   build/tests/bench_compare 9"
    build/tests/bench_compare 9 | sed 's/^/   /'
fi
