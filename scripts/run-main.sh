#!/usr/bin/env bash
# run-main.sh — the main job (`make run`): the lockstep audit of the default
# setup — SmallCNN on FashionMNIST, write-up B's training (batch 256, 3
# epochs, Adam 1e-3, seed 42) — in two phases:
#   attribution  the first 2 steps in isolated mode with the exact MPFR
#                reference: every operation of every engine judged by its
#                bound or exactness rule;
#   drift        free mode, the whole training from the initial weights,
#                every step and every evaluation batch of every engine judged
#                by its checksums (README, "What is checked"), a reference
#                shadow replay at each epoch's partial last batch (the
#                reference fed one engine's own inputs: its operations judged
#                per element again, on its own trajectory, in the plan of the
#                odd batch size) and at the last step, a state round-trip
#                check of every engine there, and the last epoch's evaluation
#                against the reference (256 test images).  The periodic
#                shadow replays every 100 steps are gone (--audit-every 1000 >
#                the run's 705 steps): the checksums judge those steps now.
# Then the drift phase again for seeds 43 and 44 (two at a time): the
# spread over seeds, paired gaps, exact McNemar, logit margins, the noise
# floor drawn once per seed.
# Engines: oneDNN with 2 threads (twice: run-to-run determinism), with 1
# thread, with 2 threads from initial weights 1 ulp away (the noise floor),
# and CUDA where a GPU is present (listed as skipped otherwise).
# Exit status: 1 when the audit finds a problem (--fail-on problem).
# Results: reports/<run-id>/{report.md,report.html,run.json,steps.jsonl.gz} and
# the verdict screen on stdout (also saved as reports/<run-id>/summary.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
id="audit-$(date -u +%Y%m%d-%H%M%S)"
out="reports/$id"
mkdir -p reports
engines="${LOCKSTEP_ENGINES:-reference,cpu,cpu,cpu:threads=1,cpu:perturb=1,cuda}"
tmp="reports/.$id.summary.tmp"
trap 'rm -f "$tmp"' EXIT
echo "lockstep: main job -> $out"
set +e
./build/lockstep audit --engines "$engines" --attribution-steps 2 --ref-steps 0 --audit-every 1000 \
    --seeds 3 --jobs 2 --fail-on problem --out "$out" "$@" \
    | tee "$tmp"
st=${PIPESTATUS[0]}
set -e
if [ -d "$out" ]; then mv "$tmp" "$out/summary.txt"; fi
exit "$st"
