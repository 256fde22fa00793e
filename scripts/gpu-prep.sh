#!/usr/bin/env bash
# gpu-prep.sh — run on a networked Debian machine before a GPU session:
# puts into .gpu-carry/ what scripts/gpu-check.sh needs on a GPU machine
# that has no network: the Debian .debs of the libraries lockstep links
# (oneDNN, MPFR, GMP, CMocka, Jansson, zlib headers) and the FashionMNIST files
# (~40 MB in all).  .gpu-carry/ is git-ignored locally (.git/info/exclude);
# carry it to the GPU machine along with the working tree.
# Not here: the CUDA toolkit or cuDNN (the GPU image has its own).
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.gpu-carry/' .git/info/exclude 2>/dev/null || echo '/.gpu-carry/' >>.git/info/exclude
mkdir -p .gpu-carry/debs
(cd .gpu-carry/debs && apt-get download libdnnl2 libdnnl-dev libmpfr6 libmpfr-dev libgmp10 libgmp-dev \
    libgmpxx4ldbl libcmocka0 libcmocka-dev zlib1g-dev libdeflate0 libdeflate-dev ocl-icd-libopencl1 libjansson4 libjansson-dev)
src=/usr/share/datasets/fashion-mnist
if [ -d "$src" ]; then
    mkdir -p .gpu-carry/fashion-mnist
    cp -L "$src"/*-ubyte.gz .gpu-carry/fashion-mnist/ 2>/dev/null || cp -L "$src"/* .gpu-carry/fashion-mnist/
fi
du -sh .gpu-carry
