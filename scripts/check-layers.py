#!/usr/bin/env python3
"""check-layers.py — the layer rule of DESIGN.md §8, read off the #includes
and, given a build folder (--objects build), off the calls between objects.

src/ is a stack of folders; a file may include headers of its own folder
and of folders below it, never above.  reference/ implements the engine
table and sits beside src/engines.  No include cycle between files either
(A.c/A.h count as one module).  With --objects DIR, the same two rules for
calls: every object's undefined symbols (nm) resolved to the object that
defines them, so a file that calls up a layer, or two files that call each
other round a circle, fail even where no header says so (the CUDA engine's
shared object and its dlopen are outside: it is loaded by name).  Prints
every violation and exits 1 if there is one; exits 0 with one summary line
otherwise.
"""
import subprocess
import os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = ["base", "model", "formats", "engines", "reference", "checks", "audit", "report", "commands"]
RANK = {name: i for i, name in enumerate(LAYERS)}
RANK["reference"] = RANK["engines"]  # the MPFR engine: the same level as the others


def layer_of(rel):
    parts = rel.split("/")
    if parts[0] == "reference":
        return "reference"
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    return None


def module_of(rel):
    return re.sub(r"\.(c|h|cu)$", "", rel)


def sccs(edges):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v); on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in list(edges):
        if v not in index:
            visit(v)
    return comps


def check_objects(build):
    """Calls between the objects of src/ and reference/ in build/."""
    bad, defs, undef = [], {}, {}
    for top in ("src", "reference"):
        for d, _, names in os.walk(os.path.join(ROOT, build, top)):
            for n in names:
                if not n.endswith(".o"):
                    continue
                path = os.path.join(d, n)
                rel = os.path.relpath(path, os.path.join(ROOT, build))[:-2] + ".c"
                if not os.path.exists(os.path.join(ROOT, rel)):
                    continue  # left over from a file that moved or went
                out = subprocess.run(["nm", "-g", path], capture_output=True, text=True).stdout
                for line in out.splitlines():
                    f = line.split()
                    if len(f) == 3 and f[1] in "TDBRC":
                        defs[f[2]] = rel
                    elif len(f) == 2 and f[0] == "U":
                        undef.setdefault(rel, set()).add(f[1])
    edges = {}
    for rel, syms in undef.items():
        lay = layer_of(rel)
        for sym in sorted(syms):
            target = defs.get(sym)
            if not target or target == rel:
                continue
            tl = layer_of(target)
            if lay and tl and RANK[tl] > RANK[lay]:
                bad.append(f"{rel} ({lay}) calls {sym} in {target} ({tl}): a layer above its own")
            edges.setdefault(module_of(rel), set()).add(module_of(target))
    for c in sccs(edges):
        bad.append("call cycle: " + " -> ".join(c))
    return bad, len(defs)


def main():
    files = []
    for top in ("src", "reference"):
        for d, _, names in os.walk(os.path.join(ROOT, top)):
            for n in names:
                if n.endswith((".c", ".h", ".cu")):
                    files.append(os.path.relpath(os.path.join(d, n), ROOT))
    bad = []
    edges = {}
    for rel in sorted(files):
        lay = layer_of(rel)
        if lay is None:
            bad.append(f"{rel}: not inside a layer folder")
            continue
        text = open(os.path.join(ROOT, rel), errors="replace").read()
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            cand = [os.path.join(os.path.dirname(rel), inc), os.path.join("src", inc), os.path.join("reference", inc)]
            target = next((c for c in cand if os.path.exists(os.path.join(ROOT, c))), None)
            if target is None:
                bad.append(f'{rel}: includes "{inc}", which is not in the tree')
                continue
            target = os.path.normpath(target)
            tl = layer_of(target)
            if tl is None or RANK[tl] > RANK[lay]:
                bad.append(f"{rel} ({lay}) includes {target} ({tl}): a layer above its own")
            a, b = module_of(rel), module_of(target)
            if a != b:
                edges.setdefault(a, set()).add(b)
    comps = sccs(edges)
    for c in comps:
        bad.append("include cycle: " + " -> ".join(c))
    objs = ""
    if len(sys.argv) > 2 and sys.argv[1] == "--objects":
        more, nsym = check_objects(sys.argv[2])
        bad += more
        objs = f"; {nsym} symbols' calls point down or sideways, no call cycle"
    for b in bad:
        print("layers:", b)
    if bad:
        print(f"layers: {len(bad)} violation(s) of DESIGN.md §8")
        return 1
    print(f"layers: {len(files)} files in {len(LAYERS) - 1} layers, every include points down or sideways, no cycle{objs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
