#!/usr/bin/env bash
# install-deps.sh — install what lockstep needs and is missing, with apt-get.
# Idempotent: when every package is present it does nothing and needs no
# network.  The CUDA toolkit is not installed here (it is large and not in
# Debian's main archive); the build uses it when nvcc and cuDNN are found.
set -euo pipefail
pkgs=(libdnnl-dev libmpfr-dev libgmp-dev libcmocka-dev zlib1g-dev libdeflate-dev libjansson-dev dataset-fashion-mnist pkg-config
      slurm-wlm munge)  # slurm-wlm, munge: the one-node Slurm of test_sweep (scripts/slurm-local.sh)
# `install-deps.sh test` (make test): also Chromium, which test_report_html
# renders report.html in (scripts/check-report.sh), and Debian's PyTorch
# and NumPy, which the PyTorch interop tests run (test_safetensors,
# test_train: scripts/torch_roundtrip.py, scripts/torch_step1.py); without
# them those tests skip, and a test that skips on every fresh machine
# checks nothing (measured here: ~35 s to install, 597 MB)
[ "${1:-}" = test ] && pkgs+=(chromium python3-torch python3-numpy)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
        echo "install-deps: missing ${missing[*]} and not root (no sudo): install them with apt-get" >&2
        exit 1
    fi
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
