#!/usr/bin/env bash
# run-main.sh — the main job (`make run`): the lockstep audit of the default
# setup — SmallCNN on FashionMNIST, write-up B's training (batch 256, 3
# epochs, Adam 1e-3, seed 42) — with the MPFR reference for the first steps
# and as a shadow every 100 steps, the oneDNN engine with 2 threads, with 1,
# and with 2 threads from initial weights 1 ulp away (the noise floor), and
# CUDA where a GPU is present (listed as skipped otherwise).
# Results: reports/<run-id>/{steps.jsonl,run.json} and the summary on stdout
# (also saved as reports/<run-id>/summary.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
id="audit-$(date -u +%Y%m%d-%H%M%S)"
out="reports/$id"
mkdir -p reports
engines="${LOCKSTEP_ENGINES:-reference,cpu,cpu:threads=1,cpu:perturb=1,cuda}"
tmp="reports/.$id.summary.tmp"
trap 'rm -f "$tmp"' EXIT
echo "lockstep: main job -> $out"
./build/lockstep audit --engines "$engines" --ref-steps 2 --audit-every 100 --out "$out" "$@" \
    | tee "$tmp"
mv "$tmp" "$out/summary.txt"
echo "report directory: $out"
