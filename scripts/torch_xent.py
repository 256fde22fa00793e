#!/usr/bin/env python3
"""torch_xent.py -- PyTorch's fp32 softmax cross-entropy, as the installed
build computes it, written out for lockstep's loss bounds (bounds_loss,
src/checks/bounds.c) to be checked against (tests/test_train.c
test_torch_xent).

    python3 scripts/torch_xent.py OUT.bin

F.cross_entropy (log_softmax then nll_loss, mean over the batch) forward
and backward in fp32 on batches of 256 x 10 logits: 7 regimes of scale and
offset (N(0,1) x 1e-3 .. 60, offsets -50 and +80), 4 batches each, the 4th
with one class 15 scales above the rest (softmax near one-hot, gradients
down to ~1e-36).  Each record: int32 regime, batch, n, C; then n*C float32
logits, n int32 labels, the float32 loss, n*C float32 logit gradients
(little-endian).
"""
import struct, sys
import numpy as np
import torch
import torch.nn.functional as F

REGIMES = [(1.0, 0.0), (5.0, 0.0), (30.0, 0.0), (3.0, 80.0), (20.0, -50.0), (1e-3, 0.0), (60.0, 0.0)]


def main():
    torch.manual_seed(7)
    n, C = 256, 10
    print("torch %s" % torch.__version__)
    with open(sys.argv[1], "wb") as out:
        for r, (scale, off) in enumerate(REGIMES):
            for rep in range(4):
                z = (torch.randn(n, C) * scale + off).float()
                if rep == 3:
                    z[:, 3] += 15 * scale
                y = torch.randint(0, C, (n,))
                zz = z.clone().requires_grad_(True)
                loss = F.cross_entropy(zz, y)
                loss.backward()
                out.write(struct.pack("<iiii", r, rep, n, C))
                out.write(z.numpy().astype(np.float32).tobytes())
                out.write(y.numpy().astype(np.int32).tobytes())
                out.write(np.float32(loss.item()).tobytes())
                out.write(zz.grad.numpy().astype(np.float32).tobytes())
    return 0


if __name__ == "__main__":
    sys.exit(main())
