#!/usr/bin/env python3
"""torch_step1.py -- lockstep's step 1 rebuilt in PyTorch from the README's
"Matching PyTorch" section alone, then compared with lockstep:

  * the batch lockstep trains on (`export --step 1`'s step1/input, labels)
    equals ours bit for bit (ToTensor's float32(x)/255, then with
    --normalize torchvision's Normalize in fp32);
  * the reference's step-1 loss (its double, from `train --json`) and its
    weights after the Adam update (F64, `export --state-dict --f64`) equal
    PyTorch float64 to --tol normwise (default 1e-12);
  * the cpu engine's step-1 loss is PyTorch fp32's, the same float: the
    correctly rounded loss of PyTorch's fp32 logits (F.cross_entropy's own
    fp32 rounding, a few ulps, is printed);
  * `lockstep eval` of --save'd weights gives PyTorch's predictions image
    for image on the whole test set;
  * a --save-optimizer file maps onto torch.optim.Adam.state_dict() and
    back bit for bit, and a file written from a torch Adam state resumes in
    `lockstep train --init` (lockstep_to_adam / adam_to_lockstep below).

    python3 scripts/torch_step1.py --lockstep build/lockstep [--normalize 0.2860,0.3530]

Needs torch and numpy (not torchvision: its Normalize is written out as
torchvision computes it, and checked against torchvision when importable).
Exit 0 when every check holds, 1 otherwise.
"""
import argparse, gzip, json, os, struct, subprocess, sys
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

DT = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32}
DN = {np.dtype(v): k for k, v in DT.items()}


def st_save(path, arrays, meta=None):  # safetensors by hand: u64 header length, JSON header, raw data
    hdr, off, blobs = ({"__metadata__": meta} if meta else {}), 0, []
    for k, a in arrays.items():
        a = np.ascontiguousarray(a)
        hdr[k] = {"dtype": DN[a.dtype], "shape": list(a.shape), "data_offsets": [off, off + a.nbytes]}
        off += a.nbytes; blobs.append(a.tobytes())
    h = json.dumps(hdr).encode(); h += b" " * (-len(h) % 8)
    with open(path, "wb") as f: f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def st_load(path):
    b = open(path, "rb").read(); n = struct.unpack("<Q", b[:8])[0]; hdr = json.loads(b[8:8 + n])
    meta = hdr.pop("__metadata__", {})
    return {k: np.frombuffer(b[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]],
                             DT[v["dtype"]]).reshape(v["shape"]) for k, v in hdr.items()}, meta


class SmallCNN(nn.Module):  # the README's SmallCNN: attribute names are the tensor names
    def __init__(s):
        super().__init__()
        s.conv1 = nn.Conv2d(1, 16, 3, padding=1); s.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        s.fc1 = nn.Linear(32 * 7 * 7, 64); s.fc2 = nn.Linear(64, 10)

    def forward(s, x):
        x = F.max_pool2d(F.relu(s.conv1(x)), 2); x = F.max_pool2d(F.relu(s.conv2(x)), 2)
        return s.fc2(F.relu(s.fc1(x.flatten(1))))  # flatten: (C, H, W) order


# ---- Adam state: lockstep's --save-optimizer file <-> torch.optim.Adam ----------
# lockstep: optim/<param>/exp_avg, optim/<param>/exp_avg_sq (F32) and metadata
# optim.step, optim.lr, optim.beta1, optim.beta2, optim.eps (optim.batch,
# optim.n_train: the run's position, optional).  torch: state[i] for the i-th
# parameter of model.parameters() (= the state_dict order) with "step",
# "exp_avg", "exp_avg_sq"; lr, betas, eps in param_groups[0].

def lockstep_to_adam(path, net):
    t, meta = st_load(path)
    names = [k for k, _ in net.named_parameters()]
    net.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in t.items() if not k.startswith("optim/")}, strict=True)
    opt = torch.optim.Adam(net.parameters(), lr=float(meta["optim.lr"]),
                           betas=(float(meta["optim.beta1"]), float(meta["optim.beta2"])), eps=float(meta["optim.eps"]))
    sd = opt.state_dict()
    sd["state"] = {i: {"step": torch.tensor(float(meta["optim.step"])),
                       "exp_avg": torch.from_numpy(t[f"optim/{k}/exp_avg"].copy()),
                       "exp_avg_sq": torch.from_numpy(t[f"optim/{k}/exp_avg_sq"].copy())} for i, k in enumerate(names)}
    opt.load_state_dict(sd)
    return opt


def adam_to_lockstep(path, net, opt, batch=None, n_train=None):
    sd, names = opt.state_dict(), [k for k, _ in net.named_parameters()]
    g = sd["param_groups"][0]
    arrays = {k: v.detach().numpy() for k, v in net.state_dict().items()}
    for i, k in enumerate(names):
        arrays[f"optim/{k}/exp_avg"] = sd["state"][i]["exp_avg"].numpy()
        arrays[f"optim/{k}/exp_avg_sq"] = sd["state"][i]["exp_avg_sq"].numpy()
    step = sd["state"][0]["step"]
    meta = {"optim.step": str(int(step)), "optim.lr": repr(g["lr"]), "optim.beta1": repr(g["betas"][0]),
            "optim.beta2": repr(g["betas"][1]), "optim.eps": repr(g["eps"])}
    if batch: meta.update({"optim.batch": str(batch), "optim.n_train": str(n_train)})
    st_save(path, arrays, meta)


def idx(path, skip):
    with gzip.open(path) as f: return np.frombuffer(f.read()[skip:], np.uint8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lockstep", default="build/lockstep"); ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--n", type=int, default=64); ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--dir", default="/tmp/lockstep-torch-step1"); ap.add_argument("--tol", type=float, default=1e-12)
    ap.add_argument("--normalize", help="MEAN,STD: torchvision's Normalize((MEAN,), (STD,)) after ToTensor")
    ap.add_argument("--step1-only", action="store_true", help="only the batch and step-1 checks (no Adam mapping, no eval)")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True); d = a.dir
    run = lambda *args: subprocess.run([a.lockstep, *args], check=True, stdout=subprocess.DEVNULL)

    # the run: PyTorch's own init, a DataLoader-style order over the first n images
    torch.manual_seed(0); net = SmallCNN()
    st_save(d + "/init.safetensors", {k: v.detach().numpy() for k, v in net.state_dict().items()})
    perm = torch.randperm(a.n, generator=torch.Generator().manual_seed(0)).numpy().astype(np.int64)
    np.save(d + "/order.npy", perm[None, :])
    common = ["--init", d + "/init.safetensors", "--order", d + "/order.npy", "--limit-train", str(a.n),
              "--batch", str(a.batch), "--data", a.data] + (["--normalize", a.normalize] if a.normalize else [])

    # the batch: ToTensor (float32(x) / 255), Normalize as torchvision computes it, labels int64
    img = idx(a.data + "/train-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)
    lab = idx(a.data + "/train-labels-idx1-ubyte.gz", 8)
    b = perm[:a.batch]
    x = torch.from_numpy(img[b].copy()).to(torch.float32).div(255)
    if a.normalize:
        m, s = (float(v) for v in a.normalize.split(","))
        mean, std = torch.as_tensor(m, dtype=torch.float32), torch.as_tensor(s, dtype=torch.float32)
        xv = x.clone().sub_(mean).div_(std)  # torchvision's _functional_tensor.normalize
        try:
            import torchvision.transforms as T
            tv = torch.stack([T.Normalize((m,), (s,))(xi) for xi in x])
            assert torch.equal(tv, xv), "torchvision's Normalize differs from the formula"
            print("  torchvision's Normalize: equal to sub_(mean).div_(std)")
        except ImportError:
            print("  torchvision not installed: Normalize as its source computes it, sub_(mean).div_(std) in fp32")
        x = xv
    y = torch.from_numpy(lab[b].astype(np.int64))
    ok = True

    run("export", "--engine", "cpu:threads=1", "--step", "1", "--out", d + "/cpu_step1.safetensors", *common)
    e, _ = st_load(d + "/cpu_step1.safetensors")
    same = np.array_equal(e["step1/input"], x.numpy()) and np.array_equal(e["step1/labels"], y.numpy())
    print(f"  batch of step 1 (input {tuple(x.shape)}, labels): {'bitwise equal' if same else 'DIFFERENT'}")
    ok &= same

    # PyTorch float64: one step of mean cross-entropy and Adam (lr 1e-3, betas (0.9, 0.999), eps 1e-8)
    net64 = SmallCNN().double(); net64.load_state_dict({k: v.double() for k, v in net.state_dict().items()})
    loss64 = F.cross_entropy(net64(x.double()), y); loss64.backward()
    torch.optim.Adam(net64.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8).step()

    run("train", "--engine", "reference", "--steps", "1", "--json", d + "/ref.json", *common)
    lref = json.load(open(d + "/ref.json"))["step_losses"][0]
    run("export", "--engine", "reference", "--state-dict", "--f64", "--step", "1", "--out", d + "/ref_sd.safetensors", *common)
    w, _ = st_load(d + "/ref_sd.safetensors")
    assert list(w) == list(net64.state_dict()), "state_dict names or order differ"
    theirs = np.concatenate([w[k].ravel() for k in w]); ours = np.concatenate([v.detach().numpy().ravel() for v in net64.state_dict().values()])
    el = abs(lref - float(loss64)) / abs(float(loss64)); ew = np.linalg.norm(theirs - ours) / np.linalg.norm(ours)
    worst = max(np.linalg.norm(w[k] - v.detach().numpy()) / np.linalg.norm(v.detach().numpy()) for k, v in net64.state_dict().items())
    print(f"  reference vs PyTorch float64: loss {lref:.17g} vs {float(loss64):.17g} (rel {el:.2e}); weights after "
          f"Adam step 1 normwise {ew:.2e} (worst tensor {worst:.2e}); tolerance {a.tol:.0e}")
    ok &= el <= a.tol and ew <= a.tol

    # PyTorch fp32 against the cpu engine: the loss as a float.  lockstep rounds the batch-mean
    # cross-entropy of its fp32 logits once (evaluated in double); PyTorch's fp32 cross_entropy
    # rounds log_softmax, then the mean: a few ulps from the correctly rounded value.  So the
    # float to match is the correctly rounded loss of PyTorch's own fp32 logits (the two logit
    # sets differ by fp32 rounding only, ~1e-9 in the loss against an ulp of 2.4e-7).
    z32 = net(x).detach()
    l32 = np.float32(F.cross_entropy(z32, y).item())
    z = z32.double(); lexact = float((torch.logsumexp(z, 1) - z[torch.arange(len(y)), y]).mean())
    lcr = np.float32(lexact)
    run("train", "--engine", "cpu:threads=1", "--steps", "1", "--json", d + "/cpu.json", "--save", d + "/cpu1.safetensors",
        "--save-optimizer", *common)
    lcpu = np.float32(json.load(open(d + "/cpu.json"))["step_losses"][0])
    ulp = lambda p, q: abs(int(p.view(np.int32)) - int(q.view(np.int32)))
    print(f"  cpu loss {lcpu!r}; PyTorch fp32: float32 of the exact loss of its logits {lcr!r} "
          f"({'the same float' if ulp(lcpu, lcr) == 0 else f'{ulp(lcpu, lcr)} ulp apart'}), "
          f"F.cross_entropy in fp32 {l32!r} ({ulp(lcpu, l32)} ulp from cpu, {ulp(l32, lcr)} from its own exact loss)")
    ok &= ulp(lcpu, lcr) == 0

    if a.step1_only:
        print(f"torch step 1: {'PASS' if ok else 'FAIL'} (step 1 only)")
        return 0 if ok else 1

    # Adam state both ways
    t, meta = st_load(d + "/cpu1.safetensors")
    net2 = SmallCNN(); opt = lockstep_to_adam(d + "/cpu1.safetensors", net2)
    adam_to_lockstep(d + "/back.safetensors", net2, opt, a.batch, a.n)
    t2, meta2 = st_load(d + "/back.safetensors")
    back = set(t) == set(t2) and all(np.array_equal(t[k], t2[k]) for k in t) and meta2["optim.step"] == meta["optim.step"]
    print(f"  --save-optimizer file -> torch.optim.Adam.load_state_dict -> back: {'bitwise equal' if back else 'DIFFERENT'}")
    ok &= back
    r = subprocess.run([a.lockstep, "train", "--engine", "cpu:threads=1", "--steps", "2", "--init", d + "/back.safetensors",
                        *common[2:]], capture_output=True, text=True)
    resumed = r.returncode == 0 and "resuming after step 1" in r.stdout
    print(f"  lockstep train --init <torch Adam state>: {'resumes at step 2' if resumed else 'FAILED: ' + r.stderr.strip()}")
    ok &= resumed

    # lockstep eval of --save'd weights: PyTorch's predictions, image for image, on the whole test set
    run("train", "--engine", "cpu:threads=1", "--epochs", "1", "--limit-train", "4096", "--batch", "128", "--limit-test",
        "100", "--init", d + "/init.safetensors", "--data", a.data, "--save", d + "/trained.safetensors",
        *(["--normalize", a.normalize] if a.normalize else []))
    run("eval", "--init", d + "/trained.safetensors", "--engine", "cpu:threads=1", "--out", d + "/eval.safetensors",
        "--data", a.data, *(["--normalize", a.normalize] if a.normalize else []))
    ev, _ = st_load(d + "/eval.safetensors")
    net3 = SmallCNN(); tw, _ = st_load(d + "/trained.safetensors")
    net3.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in tw.items()}, strict=True)
    timg = idx(a.data + "/t10k-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)
    tlab = idx(a.data + "/t10k-labels-idx1-ubyte.gz", 8).astype(np.int64)
    xt = torch.from_numpy(timg.copy()).to(torch.float32).div(255)
    if a.normalize: xt = xt.sub_(mean).div_(std)
    with torch.no_grad(): pt = net3(xt).argmax(1).numpy()
    pl = ev["predictions"]; differ = np.flatnonzero(pt != pl)
    acc_t, acc_l = float((pt == tlab).mean()), float((pl == tlab).mean())
    print(f"  lockstep eval vs PyTorch fp32 on {len(tlab)} test images: accuracy {acc_l:.4%} vs {acc_t:.4%}; "
          f"predictions differ on {len(differ)} images{' ' + str(differ[:10].tolist()) if len(differ) else ''}")
    ok &= len(differ) == 0 and np.array_equal(ev["labels"], tlab)

    print(f"torch step 1: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
