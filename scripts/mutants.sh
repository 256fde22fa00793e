#!/usr/bin/env bash
# mutants.sh — test the checker by mutation (`make mutants`).
#
# For every fault of the zoo (src/engines/cpu/cpu_faults.h) it runs a small audit of
# the faulted cpu engine against the reference in each mode (free, sync,
# isolated, and default: what `make run` runs; optionally attrib), and for
# every legal
# variant of the cpu engine (threads, ISA caps, layout, fuse, algorithm,
# math, a repeated run) the same; then prints the table: fault, what it
# breaks, expected (detectable / below its bound and why), which modes
# flagged it, whether the first PROBLEM named the right layer and phase;
# and the mutation score (detectable faults flagged, with the right layer
# and phase, by the default audit / detectable faults) and the false
# PROBLEMs on legal variants.  Exit 0 only for 100% and 0 false PROBLEMs (on legal
# variants, or on faults expected below their bound).
#
# Judging: run.json's "findings" (severity "problem", engine a or b the
# faulted one, "layer", "phase", "step").  A run.json without findings (a
# driver older than the verdict model) is judged from pairs[].tensors[] of
# isolated runs: a forward or backward tensor over its bound (ratio > 1, or
# any difference where the bound is 0) is a PROBLEM at that step, phase and
# the layer that computed it; other modes then flag nothing.
#
# Two tiers (issue 24): a fault expected CPU_FAULT_SUSPECT is within its
# worst-case bound and must be flagged by the sharper tier (a SUSPECT or a
# PROBLEM finding at the right layer and phase); legal variants must give
# neither PROBLEM nor SUSPECT.  The sensitivity sweep (MUTANTS_SWEEP=0 turns
# it off) audits the 2^-k family (*_rel faults, fault_k=10..20) in isolated
# mode and writes sensitivity.md: per tensor kind, the smallest
# perturbation each tier detects, with the 1-ulp, TF32 and bf16 faults.
#
# Environment: LOCKSTEP_FAULTS (binary, default build/lockstep-faults),
# MUTANTS_ONLY (comma-separated fault or variant names), MUTANTS_MODES
# (default "free sync isolated default"; also "attrib"), MUTANTS_OUT (keep the runs there),
# MUTANTS_JOBS (parallel audits, default 2), MUTANTS_DEFAULT_ARGS (more
# options for the default mode), MUTANTS_REJUDGE=1 (judge the
# runs already in MUTANTS_OUT again, run nothing), DATA (the IDX directory).
# Needs python3 to read the JSON.
set -u
cd "$(dirname "$0")/.."
BIN=${LOCKSTEP_FAULTS:-build/lockstep-faults}
MODES=${MUTANTS_MODES:-free sync isolated default}
# MUTANTS_DEFAULT_ARGS: more options for the default mode's audits (e.g.
# "--complete-every 10": what the zoo loses on light steps; README)
export DEFAULT_EXTRA=${MUTANTS_DEFAULT_ARGS:-}
JOBS=${MUTANTS_JOBS:-2}
ONLY=${MUTANTS_ONLY:-}
[ -x "$BIN" ] || { echo "mutants: $BIN not built (make $BIN)" >&2; exit 2; }
OUT=${MUTANTS_OUT:-$(mktemp -d /tmp/lockstep-mutants.XXXXXX)}
mkdir -p "$OUT"
DATA_ARG=()
[ -n "${DATA:-}" ] && DATA_ARG=(--data "$DATA")
# small enough for a few seconds per audit; 2 steps so that state carried
# from step 1 to step 2 (stale copies, reused arg-maxes) is exercised
COMMON=(--limit-train 64 --batch 16 --steps 2 --no-eval "${DATA_ARG[@]}")
# the default mode (what `make run` runs) audits a run of several epochs
# with a partial batch and the evaluation (issue 19): 72 images in batches
# of 16 (four full, one of 8) for 2 epochs, 10 steps, 32 test images
COMMON_DEFAULT=(--limit-train 72 --batch 16 --epochs 2 --limit-test 32 "${DATA_ARG[@]}")

# the zoo, one line per fault, tab-separated: name class layers phase model expect does why
python3 - src/engines/cpu/cpu_faults.h >"$OUT/zoo.txt" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
body = src[src.index("#define CPU_FAULT_LIST(X)"):src.index("#define CPU_FAULT_ENUM_")]
body = body.replace("\\\n", " ")
def rows(text):
    """the argument lists of X(...), split at top-level commas"""
    i = 0
    while True:
        i = text.find("X(", i + 1)
        if i < 0:
            return
        args, cur, depth, instr, j = [], "", 0, False, i + 2
        while True:
            ch = text[j]
            if instr:
                cur += ch
                if ch == "\\":
                    cur += text[j + 1]; j += 1
                elif ch == '"':
                    instr = False
            elif ch == '"':
                instr = True; cur += ch
            elif ch == "(":
                depth += 1; cur += ch
            elif ch == ")" and depth:
                depth -= 1; cur += ch
            elif ch == ")":
                args.append(cur.strip()); break
            elif ch == ",":
                args.append(cur.strip()); cur = ""
            else:
                cur += ch
            j += 1
        i = j
        yield args
strs = lambda s: "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', s))
for a in rows(body[len("#define CPU_FAULT_LIST(X)"):]):
    name, cls, layers, phase, model = (strs(x) for x in a[1:6])
    expect = ("detectable" if "DETECT" in a[6] else "suspect" if "SUSPECT" in a[6] else "blind" if "BLIND" in a[6]
              else "below")
    print("\t".join([name, cls, layers.replace("|", "/"), phase, model, expect, strs(a[7]), strs(a[8])]))
PY
n_zoo=$(wc -l <"$OUT/zoo.txt")
[ "$n_zoo" -ge 12 ] || { echo "mutants: could not read the zoo from src/engines/cpu/cpu_faults.h ($n_zoo rows)" >&2; exit 2; }

# legal variants: name|model|engine spec (or extra flags after a ';')
cat >"$OUT/legal.txt" <<'EOF'
cpu|smallcnn|cpu
threads=1|smallcnn|cpu:threads=1
isa=avx2|smallcnn|cpu:isa=avx2
isa=avx512_core|smallcnn|cpu:isa=avx512_core
layout=plain|smallcnn|cpu:layout=plain
fuse=off|smallcnn|cpu:fuse=off
algo=direct|smallcnn|cpu:algo=direct
math=portable|smallcnn|cpu:math=portable
repeat=2|smallcnn|cpu;--repeat 2
perturb=1|smallcnn|cpu:perturb=1
ref=fp32cr|smallcnn|=reference:mode=fp32cr,cpu
mnist-convnet|mnist-convnet|cpu
no-checksums|smallcnn|cpu;--no-checksums
EOF

want() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

# one audit: kind name model spec mode [extra flags]
jobs_file="$OUT/jobs.txt"
: >"$jobs_file"
while IFS=$'\t' read -r name cls layers phase model expect does why; do
    want "$name" || continue
    for mode in $MODES; do
        # the model field may carry audit options after the model's name
        echo "fault|$name|${model%% *}|cpu:fault=$name|$mode|$([[ "$model" == *" "* ]] && echo "${model#* }")" >>"$jobs_file"
    done
done <"$OUT/zoo.txt"
while IFS='|' read -r name model spec; do
    want "$name" || continue
    extra=""
    if [[ "$spec" == *";"* ]]; then extra=${spec#*;}; spec=${spec%%;*}; fi
    for mode in $MODES; do
        echo "legal|$name|$model|$spec|$mode|$extra" >>"$jobs_file"
    done
done <"$OUT/legal.txt"
# the sensitivity sweep: the *_rel faults at 2^-k, k = 10..20, isolated
if [ "${MUTANTS_SWEEP:-1}" != 0 ]; then
    while IFS=$'\t' read -r name cls layers phase model expect does why; do
        [[ "$name" == *_rel ]] || continue
        want "$name" || continue
        for k in 10 11 12 13 14 15 16 17 18 19 20; do
            echo "sweep|$name@$k|${model%% *}|cpu:fault=$name:fault_k=$k|isolated|" >>"$jobs_file"
        done
    done <"$OUT/zoo.txt"
fi

run_one() {
    IFS='|' read -r kind name model spec mode extra <<<"$1"
    dir="$OUT/$kind/$name/$mode"
    mkdir -p "$dir"
    # default: what `make run` runs (keep in step with scripts/run-main.sh:
    # an isolated attribution phase over both steps, then the free drift
    # phase, and the CI gate: exit 1 on a PROBLEM; make run's seed loop is
    # left out: it re-trains reference-free copies and makes no PROBLEM
    # verdict, only the significance tables); attrib: the same with the
    # reference in the drift phase too
    case "$mode" in
        default) margs=(--attribution-steps 2 --ref-steps 0 --audit-every 1000 --fail-on problem $DEFAULT_EXTRA) ;;
        attrib) margs=(--attribution-steps 2) ;;
        *) margs=(--mode "$mode") ;;
    esac
    # a fault's own options replace the mode's and the common ones they
    # name (an audit refuses an option given twice); --eval replaces --no-eval
    local base=("${COMMON[@]}")
    [ "$mode" = default ] && base=("${COMMON_DEFAULT[@]}")
    local all=("${margs[@]}" "${base[@]}") common=() i=0
    while [ $i -lt ${#all[@]} ]; do
        o=${all[$i]}
        n=1
        case "$o" in --no-eval|--eval) ;; --*) n=2 ;; esac
        if [[ " $extra " == *" $o "* ]] || { [ "$o" = --no-eval ] && [[ " $extra " == *" --eval "* ]]; }; then :; else
            common+=("${all[@]:$i:$n}")
        fi
        i=$((i + n))
    done
    s=$(date +%s.%N)
    engines="reference,$spec"
    [[ "$spec" == =* ]] && engines=${spec#=} # a whole engine list (the reference's own fp32cr mode)
    # shellcheck disable=SC2086
    "$BIN" audit --model "$model" --engines "$engines" "${common[@]}" $extra \
        --out "$dir" >"$dir/console.txt" 2>&1
    echo "$? $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')" >"$dir/rc"
}
export -f run_one
export OUT BIN
COMMON_STR="${COMMON[*]}"
COMMON_DEFAULT_STR="${COMMON_DEFAULT[*]}"
export COMMON_STR COMMON_DEFAULT_STR
t0=$(date +%s)
n_jobs=$(wc -l <"$jobs_file")
echo "mutants: $n_jobs audits ($n_zoo faults in the zoo; modes: $MODES), $JOBS at a time, in $OUT"
# COMMON is an array: hand it to the subshells through a string
[ -n "${MUTANTS_REJUDGE:-}" ] || xargs -P "$JOBS" -I{} bash -c 'COMMON=($COMMON_STR); COMMON_DEFAULT=($COMMON_DEFAULT_STR); run_one "$@"' _ {} <"$jobs_file"
wall=$(( $(date +%s) - t0 ))

python3 - "$OUT" "$MODES" "$wall" <<'PY'
import json, os, re, sys
out, modes, wall = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
PH = {"forward": 0, "loss": 1, "backward": 2, "update": 3, "state": 4}

def layer_of(tensor):
    return tensor.split(".")[0]

def problems(run, label, mode):
    """[(step, phase, order, layer, tensor, ratio)] of PROBLEMs involving engine
    `label` (None: any engine); order is the tensor's place in the step (pairs list tensors in
    the order they are computed), so min() is the first wrong tensor."""
    res, order = [], tensor_order(run)
    if "findings" in run:
        return findings_of(run, label, "problem", order)
    # no findings: the bound ratios, which only isolated mode computes (an
    # exact layer's bound is 0: any difference is an infinite ratio, null
    # in the JSON); a DACT is named after the layer whose backward made it
    if mode != "isolated":
        return res
    layers = [t[:-4] for t in order if t.endswith(".act")]
    def producer(tensor):
        base = layer_of(tensor)
        if tensor.endswith(".dact") and base in layers and layers.index(base) + 1 < len(layers):
            return layers[layers.index(base) + 1]
        return base
    for p in run.get("pairs", []):
        if label is not None and label not in (p["a"], p["b"]):
            continue
        for t in p["tensors"]:
            r = t.get("max_bound_ratio")
            if t["phase"] not in ("forward", "backward"):
                continue
            if (r is not None and r > 1) or ((r is None or r == 0) and t["max_abs"] > 0):
                res.append((t.get("first_unequal_step") or 0, PH.get(t["phase"], 9), order[t["tensor"]],
                            producer(t["tensor"]), t["phase"], t["tensor"], r, "bound"))
    return res

def tensor_order(run):
    """each tensor's place in compute order, as the pairs list them"""
    order = {}
    for p in run.get("pairs", []):
        for t in p["tensors"]:
            order.setdefault(t["tensor"], len(order))
    return order

def base_label(l):
    """an engine's label without a repeat's #N"""
    return re.sub(r"#[0-9]+$", "", l) if l else l

def findings_of(run, label, severity, order):
    """run.json's findings of `severity` involving engine `label` (None:
    any), as (step, phase order, tensor order, layer, phase, tensor, ratio,
    rule)"""
    res = []
    for f in run.get("findings", []):
        if f.get("severity") != severity:
            continue
        # a repeat (--repeat 2, or the engine listed twice) is labelled LABEL#2: the same engine
        if label is not None and label not in (base_label(f.get("a")), base_label(f.get("b"))):
            continue
        # a state round-trip finding names a tensor and no layer
        lay = f.get("layer") or layer_of(f.get("tensor") or "")
        # an infinite ratio (an exact rule broken) is null in JSON: inf here, so two findings that tie up to
        # the ratio still compare (zoo attack 16: an exact-check and a bound-exceeded finding at one tensor)
        ratio = f.get("ratio")
        res.append((f.get("step") or 0, PH.get(f.get("phase"), 9), order.get(f.get("tensor"), 999),
                    lay, f.get("phase") or "", f.get("tensor") or "", float("inf") if ratio is None else ratio,
                    f.get("rule") or ""))
    return res

def suspects(run, label):
    """the SUSPECT findings (the sharper tier) involving engine `label`
    (None: any), in problems()' tuple form"""
    return findings_of(run, label, "suspect", tensor_order(run))

def run_of(kind, name, mode):
    try:
        return json.load(open(os.path.join(out, kind, name, mode, "run.json")))
    except (OSError, ValueError):
        return None

def gated(probs):
    """whether --fail-on problem should exit 1: nondeterminism has a gate of its own"""
    return any(p[7] != "nondeterminism" for p in probs)

def judge(kind, name, mode, label):
    d = os.path.join(out, kind, name, mode)
    try:
        rc, secs = open(os.path.join(d, "rc")).read().split()
        run = json.load(open(os.path.join(d, "run.json")))
    except (OSError, ValueError):
        return None, [], 0.0, "no run.json (see %s/console.txt)" % d
    return int(rc), problems(run, label, mode), float(secs), "findings" if "findings" in run else "pairs"

KINDS = [  # tensor kind: (2^-k fault, 1-ulp fault, TF32 fault, bf16 fault)
    ("forward (conv2.act, fc1.act)", "conv2_fwd_rel", "fc1_out_1ulp", "conv2_fwd_w_tf32", "fc1_fwd_w_bf16"),
    ("backward-data (pool1.dact)", "conv2_dx_rel", "conv2_dx_1ulp", "conv2_dx_w_tf32", None),
    ("backward-weights (conv2/fc1 .weight.grad)", "conv2_dw_rel", "fc1_dw_1ulp", "conv2_dw_x_tf32", None),
    ("update (Adam m)", "adam_m_rel", "adam_m_1ulp", None, None),
    ("loss (fc2.dact)", "loss_grad_rel", "loss_grad_1ulp", None, None),
]

def sweep_tier(name, k):
    run = run_of("sweep", "%s@%d" % (name, k), "isolated")
    if run is None:
        return None
    label = "cpu:fault=%s:fault_k=%d" % (name, k)
    if problems(run, label, "isolated"):
        return "PROBLEM"
    return "SUSPECT" if suspects(run, label) else "-"

def sensitivity(tiers):
    """The sensitivity table (README, "How sharp the checks are"; tests/EVIDENCE.md,
    "Sensitivity"): per tensor kind, the smallest 2^-k each tier detects
    (isolated audits of the sweep), and the tier of the 1-ulp/TF32/bf16 faults"""
    if not os.path.isdir(os.path.join(out, "sweep")):
        return ""
    lines = ["| tensor kind | worst-case tier (PROBLEM) detects 2^-k down to | sharper tier (SUSPECT or PROBLEM) "
             "down to | +1 ulp | TF32 operands | bf16 operands |", "|---|---|---|---|---|---|"]
    for kind, rel, ulp, tf, bf in KINDS:
        worst = sharp = None
        for k in range(10, 21):
            t = sweep_tier(rel, k)
            # the smallest perturbation detected at every larger one too
            if t == "PROBLEM" and (worst or 9) == k - 1:
                worst = k
            if t in ("PROBLEM", "SUSPECT") and (sharp or 9) == k - 1:
                sharp = k
        cell = lambda k: ("2^-%d" % k + (" (every k swept)" if k == 20 else "")) if k else "not at 2^-10"
        name = lambda f: ("%s (`%s`)" % (tiers.get(f, "?"), f)) if f else "—"
        lines.append("| %s | %s | %s | %s | %s | %s |" % (kind, cell(worst), cell(sharp), name(ulp), name(tf), name(bf)))
    return "\n".join(lines) + "\n"

zoo = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "zoo.txt"))]
legal = [l.rstrip("\n").split("|") for l in open(os.path.join(out, "legal.txt"))]
short = {"free": "free", "sync": "sync", "isolated": "iso", "attrib": "attr", "default": "dflt"}
# the score is the default audit's (what `make run` runs), else the last mode's
score_mode = "default" if "default" in modes else modes[-1]
judged_by = set()
secs_all = []
det = det_ok = below_flagged = 0
blind = []  # (name, flagged by the score mode)
sus_n = sus_ok = 0
sus_missed = []
tiers = {}
rows = []
per_mode = {m: [0, 0] for m in modes}  # detectable faults flagged, and named right
gate_bad = []  # default audits whose --fail-on problem exit status disagrees with the findings
tsv = []
for name, cls, layers, phase, model, expect, does, why in zoo:
    if not os.path.isdir(os.path.join(out, "fault", name)):
        continue
    label = "cpu:fault=" + name
    caught, named, tier = [], "", "-"
    for mode in modes:
        rc, probs, secs, how = judge("fault", name, mode, label)
        if rc is None:
            caught.append(short[mode] + "?")
            continue
        if mode == score_mode:
            run = run_of("fault", name, mode) or {}
            sus = suspects(run, label)
            tier = "PROBLEM" if probs else "SUSPECT" if sus else "-"
            if expect == "suspect":
                sus_n += 1
                hit = min(probs or sus) if (probs or sus) else None
                if hit and hit[3] in layers.split("/") and hit[4] == phase:
                    sus_ok += 1
                else:
                    sus_missed.append(name)
        judged_by.add(how)
        secs_all.append(secs)
        if mode == "default" and (rc == 1) != gated(probs):
            gate_bad.append("%s (exit %d, %d PROBLEMs)" % (name, rc, len(probs)))
        if probs:
            caught.append(short[mode])
            first = min(probs)
            # a state fault is named right by the state round-trip check
            # (phase "state") at a tensor of a layer it touches
            ok = first[3] in layers.split("/") and (first[4] == phase or (cls == "state" and first[4] == "state"))
            if expect == "detectable":
                per_mode[mode][0] += 1
                per_mode[mode][1] += ok
            # the score mode's first PROBLEM, else the first mode's that flagged it
            if mode == score_mode or not named:
                named = "%s%s %s (%s) %s" % ("" if mode == score_mode else short[mode] + ": ", first[3], first[4],
                                            first[5], "ok" if ok else "WRONG")
    if expect == "detectable":
        det += 1
    elif caught and expect == "below":
        below_flagged += 1
    elif expect == "blind":
        blind.append((name, short[score_mode] in caught))
    exp = {"detectable": "detect", "suspect": "sharp", "blind": "blind"}.get(expect, "below")
    tiers[name] = tier
    rows.append((name, cls, "%s %s" % (layers, phase), exp, " ".join(caught) or "-", tier, named or "-", why))
    tsv.append("\t".join([name, cls, layers, phase, expect, does, why, " ".join(caught) or "-", named or "-", tier]))

# the same table for scripts (results.tsv: one fault a line) and for the
# zoo table in tests/EVIDENCE.md, "The zoo, measured" (zoo.md, a markdown table)
open(os.path.join(out, "results.tsv"), "w").write("".join(l + "\n" for l in tsv))
long_name = {"free": "free", "sync": "sync", "iso": "isolated", "attr": "attrib", "dflt": "default"}
md = ["| fault | what it breaks | layer, phase | expected | flagged by (measured) | first PROBLEM, %s audit | tier |"
      % score_mode, "|---|---|---|---|---|---|---|"]
for l in tsv:
    name, cls, layers, phase, expect, does, why, caught, first, tier = l.split("\t")
    esc = lambda t: t.replace("|", "\\|")
    exp = ("detectable" if expect == "detectable" else "**within its worst case, sharper tier**: " + esc(why)
           if expect == "suspect" else "**known blind spot**: " + esc(why) if expect == "blind"
           else "**below its bound**: " + esc(why))
    caught = " ".join(long_name.get(c, c) for c in caught.split()) if caught != "-" else "—"
    first = first.replace(" ok", " ✓").replace(" WRONG", " ✗ wrong layer") if first != "-" else "—"
    md.append("| `%s`%s | %s | %s, %s | %s | %s | %s | %s |" % (name, " (state)" if cls == "state" else "", esc(does),
              layers, phase, exp, caught, first, tier))
open(os.path.join(out, "zoo.md"), "w").write("\n".join(md) + "\n")
print()
print("%-28s %-5s %-40s %-6s %-20s %-8s %s" % ("fault", "class", "breaks (layer phase)", "expect", "caught by",
                                          "tier", "first PROBLEM (%s, else the first mode that flags it)" % short[score_mode]))
for r in rows:
    print("%-28s %-5s %-40s %-6s %-20s %-8s %s" % r[:7])
print()
for r in rows:
    if r[3] == "below":
        print("below its bound: %s — %s" % (r[0], r[7]))
    if r[3] == "blind":
        print("known blind spot: %s — %s" % (r[0], r[7]))

false_p = false_s = 0
print()
print("%-16s %s" % ("legal variant", "PROBLEMs per mode"))
for name, model, spec in legal:
    if not os.path.isdir(os.path.join(out, "legal", name)):
        continue
    spec = spec.split(";")[0]
    cells = []
    for mode in modes:
        rc, probs, secs, how = judge("legal", name, mode, None)  # every engine there is legal
        if rc is None:
            cells.append("%s:?" % short[mode])
            false_p += 1
            continue
        judged_by.add(how)
        secs_all.append(secs)
        false_p += len(probs) > 0
        sus = suspects(run_of("legal", name, mode) or {}, None)
        false_s += len(sus) > 0
        if mode == "default" and (rc == 1) != gated(probs):
            gate_bad.append("%s (exit %d, %d PROBLEMs)" % (name, rc, len(probs)))
        cells.append("%s:%s" % (short[mode], "PROBLEM " + ",".join(sorted({p[5] for p in probs}))[:60] if probs
                                else "SUSPECT " + ",".join(sorted({p[5] for p in sus}))[:60] if sus else "ok"))
    print("%-16s %s" % (name, "  ".join(cells)))

print()
print("judged from: %s" % ", ".join(sorted(judged_by)))
if secs_all:
    print("audits: %d, %.1f s each on average (max %.1f s); wall %d s" %
          (len(secs_all), sum(secs_all) / len(secs_all), max(secs_all), wall))
det_ok = per_mode[score_mode][1]
score = 100.0 * det_ok / det if det else 100.0
for m in modes:
    print("  %-8s flags %2d of %d detectable faults, %2d of them at the right layer and phase" %
          (m, per_mode[m][0], det, per_mode[m][1]))
print("mutation score: %d of %d detectable faults flagged by the %s audit with the right layer and phase (%.0f%%)"
      % (det_ok, det, score_mode if score_mode != "default" else "default", score))
print("false PROBLEMs on legal variants: %d; below-bound faults flagged anyway: %d" % (false_p, below_flagged))
if blind:
    print("known blind spots (not in the score): %d, flagged by the %s audit: %s" %
          (len(blind), score_mode, ", ".join("%s %s" % (n, "yes: closed, make it CPU_FAULT_DETECT" if f else "no")
                                             for n, f in blind)))
print("sharper tier: %d of %d faults within their worst case flagged (SUSPECT or PROBLEM) by the %s audit at the "
      "right layer and phase%s; false SUSPECTs on legal variants: %d (audits with any)" %
      (sus_ok, sus_n, score_mode, (" (missed: " + ", ".join(sus_missed) + ")") if sus_missed else "", false_s))
sens = sensitivity(tiers)
if sens:
    open(os.path.join(out, "sensitivity.md"), "w").write(sens)
    print()
    print(sens)
if "default" in modes:
    print("--fail-on problem: exit 1 exactly when a PROBLEM was found, in %s" %
          ("every default audit" if not gate_bad else "all but: " + ", ".join(gate_bad)))
# a below-bound row flagged PROBLEM is a false alarm as much as a legal variant's: some rows are legal
# variants the knobs cannot express (adam_fma_contracted, dropout_divide_by_keep, zoo attack 8's
# loss_grad_div_n, db_double_sum, fc1_fwd_serial_order), so it fails the gate too (SUSPECT does not:
# adam_fma_contracted is one by contract)
sys.exit(0 if det_ok == det and false_p == 0 and false_s == 0 and sus_ok == sus_n and not gate_bad
         and below_flagged == 0 else 1)
PY
