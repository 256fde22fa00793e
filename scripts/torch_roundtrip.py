#!/usr/bin/env python3
"""torch_roundtrip.py -- replay a PyTorch SmallCNN's first step in lockstep.

Builds write-up B's SmallCNN in PyTorch (torch.manual_seed(42)), saves its
initial state_dict as safetensors and a DataLoader-style batch order as .npy,
runs `lockstep export` for step 1 with --init/--order on the reference
(float64 values) and on the cpu engine, then compares lockstep's tensors with
PyTorch's own float64 forward/backward/Adam step and fp32 loss.
Exit 0 when the reference agrees to --tol (normwise) and both fp32 losses are
within the fp32 bound of the exact loss.

    --numpy-check FILE  only checks an exported file with numpy (no torch):
                        the exact layers (ReLU, max-pool, flatten) bit for bit,
                        the loss and the logits' gradient against float64.
"""
import argparse, gzip, json, os, struct, subprocess, sys
import numpy as np

DT = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32}

def st_save(path, arrays):  # the safetensors layout, by hand: u64 length, JSON, data
    hdr, off, blobs = {}, 0, []
    for k, a in arrays.items():
        a = np.ascontiguousarray(a, dtype=np.float32)
        hdr[k] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [off, off + a.nbytes]}
        off += a.nbytes; blobs.append(a.tobytes())
    h = json.dumps(hdr).encode(); h += b" " * (-len(h) % 8)
    with open(path, "wb") as f: f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))

def st_load(path):
    b = open(path, "rb").read(); n = struct.unpack("<Q", b[:8])[0]; hdr = json.loads(b[8:8 + n])
    meta = hdr.pop("__metadata__", {})
    return {k: np.frombuffer(b[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]],
                             DT[v["dtype"]]).reshape(v["shape"]) for k, v in hdr.items()}, meta

def numpy_check(path):
    t, meta = st_load(path); s = "step" + meta.get("lockstep.step", "1") + "/"
    f32 = lambda k: t[s + k].astype(np.float64)
    assert np.array_equal(t[s + "relu1/act"], np.maximum(t[s + "conv1/act"], 0)), "relu1 != max(conv1, 0)"
    r = t[s + "relu1/act"]; n, c, h, w = r.shape
    pool = r[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
    assert np.array_equal(t[s + "pool1/act"], pool), "pool1 != 2x2 max of relu1"
    assert np.array_equal(t[s + "flatten/act"], t[s + "pool2/act"].reshape(n, -1)), "flatten is not (C,H,W) order"
    z, y = f32("fc2/act"), t[s + "labels"]
    p = np.exp(z - z.max(1, keepdims=True)); p /= p.sum(1, keepdims=True)
    loss = -np.mean(np.log(p[np.arange(n), y]))
    g = (p - np.eye(z.shape[1])[y]) / n
    el = abs(float(t[s + "loss"]) - loss) / loss; eg = np.linalg.norm(f32("fc2/dact") - g) / np.linalg.norm(g)
    print(f"numpy check {path}: exact layers bitwise equal; loss rel err {el:.2e}, d(logits) normwise {eg:.2e}")
    assert el < 1e-5 and eg < 1e-5, "loss or its gradient off by more than 1e-5 (fp32 softmax: ~10 u)"

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lockstep", default="build/lockstep"); ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--n", type=int, default=64); ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--dir", default="/tmp/lockstep-torch"); ap.add_argument("--tol", type=float, default=1e-12)
    ap.add_argument("--numpy-check")
    a = ap.parse_args()
    if a.numpy_check: return numpy_check(a.numpy_check)
    import torch, torch.nn as nn, torch.nn.functional as F
    class SmallCNN(nn.Module):  # write-up B
        def __init__(s):
            super().__init__(); s.conv1 = nn.Conv2d(1, 16, 3, padding=1); s.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            s.fc1 = nn.Linear(32 * 7 * 7, 64); s.fc2 = nn.Linear(64, 10)
        def forward(s, x):  # every intermediate, named as lockstep names its layers
            o = {}; o["conv1"] = s.conv1(x); o["relu1"] = F.relu(o["conv1"]); o["pool1"] = F.max_pool2d(o["relu1"], 2)
            o["conv2"] = s.conv2(o["pool1"]); o["relu2"] = F.relu(o["conv2"]); o["pool2"] = F.max_pool2d(o["relu2"], 2)
            o["flatten"] = o["pool2"].flatten(1); o["fc1"] = s.fc1(o["flatten"]); o["relu3"] = F.relu(o["fc1"])
            o["fc2"] = s.fc2(o["relu3"]); return o
    os.makedirs(a.dir, exist_ok=True); init, order = a.dir + "/init.safetensors", a.dir + "/order.npy"
    torch.manual_seed(42); net = SmallCNN()
    st_save(init, {k: v.detach().numpy() for k, v in net.state_dict().items()})
    perm = torch.randperm(a.n, generator=torch.Generator().manual_seed(42)).numpy().astype(np.int64)
    np.save(order, perm[None, :])  # (epochs, n)
    common = ["--step", "1", "--init", init, "--order", order, "--limit-train", str(a.n), "--batch", str(a.batch), "--data", a.data]
    out = {}
    for eng in ("reference", "cpu:threads=1"):
        out[eng] = a.dir + "/" + eng.split(":")[0] + ".safetensors"
        subprocess.run([a.lockstep, "export", "--engine", eng, "--out", out[eng]] + common, check=True, stdout=subprocess.DEVNULL)
    ref, _ = st_load(out["reference"]); cpu, _ = st_load(out["cpu:threads=1"])
    with gzip.open(a.data + "/train-images-idx3-ubyte.gz") as f: img = np.frombuffer(f.read()[16:], np.uint8).reshape(-1, 1, 28, 28)
    with gzip.open(a.data + "/train-labels-idx1-ubyte.gz") as f: lab = np.frombuffer(f.read()[8:], np.uint8)
    idx = perm[:a.batch]; x = img[idx].astype(np.float32) / np.float32(255); y = lab[idx].astype(np.int64)
    assert np.array_equal(ref["step1/input"], x) and np.array_equal(ref["step1/labels"], y), "lockstep's batch is not ours"
    net64 = SmallCNN().double(); net64.load_state_dict({k: v.double() for k, v in net.state_dict().items()})
    o = net64(torch.from_numpy(x).double()); [v.retain_grad() for v in o.values()]
    loss = F.cross_entropy(o["fc2"], torch.from_numpy(y)); loss.backward()
    opt = torch.optim.Adam(net64.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8); opt.step()
    ours = {"step1/loss": loss.detach()}
    for k, v in o.items(): ours[f"step1/{k}/act"] = v.detach(); ours[f"step1/{k}/dact"] = v.grad
    for k, p in net64.named_parameters():
        ours[f"step1/{k}/grad"] = p.grad; ours[f"step1/{k}"] = p.detach()
        ours[f"step1/{k}/adam_m"] = opt.state[p]["exp_avg"]; ours[f"step1/{k}/adam_v"] = opt.state[p]["exp_avg_sq"]
    worst = 0.0
    for k, v in ours.items():
        v = v.numpy(); e = np.linalg.norm(ref[k] - v) / max(np.linalg.norm(v), 1e-300); worst = max(worst, e)
        print(f"  reference vs PyTorch float64  {k:28s} {e:.2e}")
    # fp32: PyTorch's CPU loss and lockstep cpu's, each against the exact loss.  Bound (first order, u = 2^-24):
    # each layer's error e_l <= |W_l| e_{l-1} + gamma_{K_l+1} (|W_l| |a_{l-1}| + |b_l|) (ReLU and max-pool pass
    # it on unamplified), then |dL| <= sum |dL/dz| e_z + gamma_{C+4} (|L| + max|z|) for the softmax-CE itself.
    o32 = net(torch.from_numpy(x)); l32 = float(F.cross_entropy(o32["fc2"], torch.from_numpy(y)))
    g = lambda k: k * 2.0**-24 / (1 - k * 2.0**-24); W = {k: v.detach().double().abs() for k, v in net.state_dict().items()}
    A = {k: v.detach().abs() for k, v in o.items()}; e = torch.zeros_like(torch.from_numpy(x).double())
    for l, prev in (("conv1", None), ("conv2", "pool1"), ("fc1", "flatten"), ("fc2", "relu3")):
        xin = torch.from_numpy(x).double().abs() if prev is None else A[prev]
        if l.startswith("conv"):
            K = W[l + ".weight"][0].numel(); e = F.conv2d(e, W[l + ".weight"], padding=1) + g(K + 1) * F.conv2d(xin, W[l + ".weight"], W[l + ".bias"], padding=1)
            e = F.max_pool2d(e, 2)
        else:
            K = W[l + ".weight"].shape[1]; e = e.flatten(1) @ W[l + ".weight"].T + g(K + 1) * (xin @ W[l + ".weight"].T + W[l + ".bias"])
    bound = float((o["fc2"].grad.abs() * e).sum()) + g(14 + a.batch) * (float(loss) + float(A["fc2"].max()))
    lc, lx = float(cpu["step1/loss"]), float(loss)
    print(f"  loss: exact {lx:.17g}  PyTorch fp32 {l32:.9g} (err {abs(l32 - lx):.2e})  lockstep cpu {lc:.9g} "
          f"(err {abs(lc - lx):.2e})  |cpu - PyTorch| {abs(lc - l32):.2e}  fp32 bound {bound:.2e} each")
    ok = worst <= a.tol and abs(l32 - lx) <= bound and abs(lc - lx) <= bound
    print(f"torch round trip: {'PASS' if ok else 'FAIL'}: worst reference normwise error {worst:.2e} (tolerance {a.tol:.0e})")
    numpy_check(out["cpu:threads=1"])
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
