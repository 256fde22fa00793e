#!/usr/bin/env python3
"""torch_adam_orders.py -- PyTorch's own Adam, as the installed build runs it,
written out for lockstep's named Adam orders (src/base/adam_orders.h) to be
checked against bit for bit (tests/test_train.c test_torch_adam_orders).

    python3 scripts/torch_adam_orders.py OUT.bin

Three variants, each 8 steps (t = 1..8, lr 1e-3, betas 0.9/0.999, eps 1e-8,
gradients of magnitudes spread over ~e^+-4 around 1e-3, every 7th zero at
step 3) on tensors of 5, 16, 1000 and 10007 elements (vectorised bodies
and scalar tails alike):
  0  torch.optim.Adam(foreach=False): this build's _single_tensor_adam
  1  torch.optim.Adam(foreach=True): its _multi_tensor_adam
  2  PyTorch 2.x's _single_tensor_adam (exp_avg.lerp_) written with this
     build's ops, where the build is older than 2.0
Each record: int32 variant, int32 n, int32 t, int32 0, float64 lr, beta1,
beta2, eps, then n float32 each of p, m, v, g before the step and p, m, v
after it (little-endian).  The header line on stdout names the build.
"""
import struct, sys
import numpy as np
import torch

LR, B1, B2, EPS = 1e-3, 0.9, 0.999, 1e-8


def run(out, variant, n):
    torch.manual_seed(1000 * variant + n)
    p = torch.nn.Parameter(torch.randn(n) * 0.05)
    opt = torch.optim.Adam([p], lr=LR, betas=(B1, B2), eps=EPS, foreach=(variant == 1))
    m, v = torch.zeros(n), torch.zeros(n)
    for t in range(1, 9):
        g = (torch.randn(n) * torch.exp(torch.randn(n) * 2) * 1e-3).float()
        if t == 3:
            g[::7] = 0
        st = opt.state.get(p, {})
        if variant < 2 and st:
            m, v = st["exp_avg"], st["exp_avg_sq"]
        before = [p.detach().clone(), m.clone(), v.clone(), g.clone()]
        if variant < 2:
            p.grad = g.clone()
            opt.step()
            m, v = opt.state[p]["exp_avg"], opt.state[p]["exp_avg_sq"]
        else:
            with torch.no_grad():
                m.lerp_(g, 1 - B1)
                v.mul_(B2).addcmul_(g, g.conj(), value=1 - B2)
                step_size = LR / (1 - B1 ** t)
                bc2_sqrt = (1 - B2 ** t) ** 0.5
                denom = (v.sqrt() / bc2_sqrt).add_(EPS)
                p.addcdiv_(m, denom, value=-step_size)
        out.write(struct.pack("<iiiidddd", variant, n, t, 0, LR, B1, B2, EPS))
        for a in before + [p.detach(), m, v]:
            out.write(np.ascontiguousarray(a.numpy(), dtype=np.float32).tobytes())


def main():
    cap = torch.backends.cpu.get_cpu_capability() if hasattr(torch.backends, "cpu") and hasattr(
        torch.backends.cpu, "get_cpu_capability") else [l.split(":")[1].strip() for l in torch.__config__.show().splitlines()
                                                       if "CPU capability usage" in l][:1] or ["?"]
    print("torch %s, CPU capability %s" % (torch.__version__, cap if isinstance(cap, str) else cap[0]))
    major = int(torch.__version__.split(".")[0])
    with open(sys.argv[1], "wb") as out:
        for variant in (0, 1, 2):
            if variant == 2 and major >= 2:
                continue  # this build's own Adam is that order already
            for n in (5, 16, 1000, 10007):
                run(out, variant, n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
