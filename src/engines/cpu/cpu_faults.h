/*
 * cpu_faults.h — the mutation zoo: deliberate faults in single operations
 * (and in the state) of the cpu engine, to test the checker, not the
 * engine.  `make mutants` (scripts/mutants.sh) audits each one and prints
 * which mode flags it.
 *
 * Test builds only.  engine_cpu.c and cpu_pool.c are compiled a second time
 * with -DLS_FAULTS=1 into build/lockstep-faults and the test programs that
 * need them; there, and only there, the cpu engine accepts a knob
 * fault=NAME that switches one fault on.  In the user build every hook
 * below expands to nothing and the knob is unknown, so the object code of
 * build/lockstep does not contain a single fault.
 *
 * One row per fault: the name the knob takes; "op" (an operation computes
 * a wrong value) or "state" (what the engine trains with is not what it
 * reports, or is not refreshed: issue 15); the layers a finding may name
 * for it ('|'-separated: the layer that computes the first wrong tensor,
 * or the layer that tensor is named after); the phase that first goes
 * wrong; the model it needs (dropout lives only in mnist-convnet), then any
 * audit options it needs (a late fault needs more steps, a partial-batch
 * fault a last batch that is partial);
 * whether its effect exceeds the bound of the operation it breaks
 * (CPU_FAULT_DETECT), is within that worst case but beyond what independent
 * fp32 roundings do, the sharper tier's SUSPECT (CPU_FAULT_SUSPECT, issue
 * 24: checks/bounds.h), or is provably within it (CPU_FAULT_BELOW), or is
 * a wrong value that no check of the default audit looks at — a known
 * blind spot, kept measured so that closing it shows (CPU_FAULT_BLIND:
 * `make mutants` reports whether it is flagged, and its score does not
 * count it); what it does; and why it is, or is not, detectable.
 * The *_rel faults are a family: the knob fault_k=K (default 16) sets the
 * relative perturbation 2^-K; `make mutants` sweeps K = 10..20 for the
 * sensitivity table (README, "How sharp the checks are"; tests/EVIDENCE.md,
 * "Sensitivity").
 *
 * Not here: the hooks themselves (engine_cpu.c's fault block, the per-plane
 * ones in cpu_pool.c) and the judging (scripts/mutants.sh).
 */
#ifndef LS_CPU_FAULTS_H
#define LS_CPU_FAULTS_H

#ifndef LS_FAULTS
#define LS_FAULTS 0
#endif

enum { CPU_FAULT_BELOW = 0, CPU_FAULT_DETECT = 1, CPU_FAULT_SUSPECT = 2, CPU_FAULT_BLIND = 3 };

/* The run the one-off and evaluation faults ask for (their model field,
 * written out: scripts/mutants.sh reads the rows as text): two epochs of
 * 72 images in batches of 16 (5 steps each, the last a partial batch of
 * 8), evaluation on: steps 1, 2 are attribution, 5 and 10 partial-batch
 * shadow steps, 10 the last; 7 and 8 are sampled by nothing but the
 * every-step checks. */

/* X(ID, name, class, layers, phase, "model [audit options]", expect, does, why) */
#define CPU_FAULT_LIST(X)                                                                                              \
    X(CONV1_BIAS_TWICE, "conv1_bias_twice", "op", "conv1", "forward", "smallcnn", CPU_FAULT_DETECT,                   \
      "conv1 forward adds its bias twice",                                                                             \
      "the extra |b| (up to 1/3) is ~1e6 times the gamma_K bound of a 9-term dot product")                             \
    X(CONV1_WEIGHT_SHIFTED, "conv1_weight_shifted", "op", "conv1", "forward", "smallcnn", CPU_FAULT_DETECT,           \
      "conv1 forward reads weight i+1 for weight i (a shifted index; the last wraps)",                                \
      "another dot product altogether: errors of the order of the output itself")                                      \
    X(FC2_BIAS_SCALED, "fc2_bias_scaled", "op", "fc2", "forward", "smallcnn", CPU_FAULT_DETECT,                       \
      "fc2 forward adds b*(1+2^-10) for b",                                                                            \
      "2^-10 |b| against the bound gamma_65 (sum|w x| + |b|), gamma_65 ~ 2^-18: over it wherever sum|w x| < 256 |b|")              \
    X(FC1_OUT_1ULP, "fc1_out_1ulp", "op", "fc1", "forward", "smallcnn", CPU_FAULT_SUSPECT,                            \
      "every fc1 output moved one ulp up",                                                                             \
      "1 ulp of y is <= 2^-23 |y| <= 2^-23 (sum|w x| + |b|), 2/1569 of the gamma_1569 bound: "                         \
      "a worst-case bound cannot tell it from rounding; the sign test sees the shift")                                 \
    X(CONV2_FWD_W_TF32, "conv2_fwd_w_tf32", "op", "conv2", "forward", "smallcnn", CPU_FAULT_DETECT,                   \
      "conv2 forward multiplies by its weights rounded to TF32 (10-bit mantissa, to nearest)",                        \
      "2^-11 relative per weight against gamma_145 ~ 2^-17: over the worst case (measured 17.7), named TF32 by op")   \
    X(FC1_FWD_W_BF16, "fc1_fwd_w_bf16", "op", "fc1", "forward", "smallcnn", CPU_FAULT_DETECT,                         \
      "fc1 forward multiplies by its weights rounded to bf16 (7-bit mantissa, to nearest)",                           \
      "2^-8 relative per weight: ~2^-8 |y| against gamma_1569 ~ 2^-13 of sum|w x|, over it where little cancels")     \
    X(CONV2_DX_W_TF32, "conv2_dx_w_tf32", "op", "conv2|pool1", "backward", "smallcnn", CPU_FAULT_DETECT,              \
      "conv2 backward-data multiplies by its weights rounded to TF32 (forward and backward-weights are right)",        \
      "as conv2_fwd_w_tf32 for the K = 144 products of backward-data (measured 14.5)")                                 \
    X(CONV2_DW_X_TF32, "conv2_dw_x_tf32", "op", "conv2", "backward", "smallcnn", CPU_FAULT_SUSPECT,                   \
      "conv2 backward-weights reads its input x rounded to TF32 (backward-data reads no x: only it sees it)",          \
      "2^-11 relative per x, K = batch x 196 products: hidden 100-fold under gamma_K, not under the sharp tier")       \
    X(CONV2_DX_1ULP, "conv2_dx_1ulp", "op", "conv2|pool1", "backward", "smallcnn", CPU_FAULT_SUSPECT,                 \
      "every element of conv2's input gradient (backward-data) moved one ulp up",                                      \
      "one ulp against gamma_144 sum|w dy|: within the worst case; a shift the sign test sees")                        \
    X(FC1_DW_1ULP, "fc1_dw_1ulp", "op", "fc1", "backward", "smallcnn", CPU_FAULT_SUSPECT,                             \
      "every element of fc1's weight gradient (backward-weights) moved one ulp up",                                    \
      "one ulp against gamma_batch sum|x dy|: within the worst case; a shift the sign test sees")                      \
    X(LOSS_GRAD_1ULP, "loss_grad_1ulp", "op", "fc2|loss", "loss", "smallcnn", CPU_FAULT_BELOW,                        \
      "every element of the loss gradient moved one ulp up",                                                           \
      "a derived rule keeps its worst case (a few ulps per element) and no sign test: fl(1/n) is one rounding "       \
      "shared by every element, a legal bias; one ulp stays within both")                                              \
    X(ADAM_M_1ULP, "adam_m_1ulp", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn", CPU_FAULT_DETECT,                \
      "every Adam first moment m moved one ulp up after the update",                                                   \
      "m' = b1 m + (1-b1) g has a 2-3u bound: one ulp (2u at most) is at its edge; a derived rule, worst case only")   \
    X(CONV2_FWD_REL, "conv2_fwd_rel", "op", "conv2", "forward", "smallcnn", CPU_FAULT_SUSPECT,                        \
      "conv2 forward outputs scaled by 1 + 2^-k (fault_k=K, default 16)",                                               \
      "a relative shift: the away-from-zero sign test sees it from ~1 ulp on (measured per k: make mutants)")          \
    X(CONV2_DX_REL, "conv2_dx_rel", "op", "conv2|pool1", "backward", "smallcnn", CPU_FAULT_SUSPECT,                   \
      "conv2 backward-data outputs scaled by 1 + 2^-k", "as conv2_fwd_rel, for backward-data")                        \
    X(CONV2_DW_REL, "conv2_dw_rel", "op", "conv2", "backward", "smallcnn", CPU_FAULT_SUSPECT,                         \
      "conv2 weight gradient scaled by 1 + 2^-k", "as conv2_fwd_rel, for backward-weights")                           \
    X(LOSS_GRAD_REL, "loss_grad_rel", "op", "fc2|loss", "loss", "smallcnn", CPU_FAULT_DETECT,                         \
      "the loss gradient scaled by 1 + 2^-k", "a derived rule (worst case only): seen from a few ulps (make mutants)")  \
    X(ADAM_M_REL, "adam_m_rel", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn", CPU_FAULT_DETECT,                  \
      "Adam's m scaled by 1 + 2^-k after the update", "a derived rule (worst case only): m's bound is ~3u")            \
    X(FUSED_RELU_NEG_WINDOW, "fused_relu_neg_window", "op", "relu1|pool1|relu2|pool2", "forward", "smallcnn",        \
      CPU_FAULT_DETECT,                                                                                                \
      "the fused ReLU+max-pool training kernel outputs a window's maximum instead of +0 when all four are negative",  \
      "max-pool and ReLU are exact: any wrong value is a violation (a training-path kernel: isolated mode sees it "   \
      "only if it replays the fused kernel)")                                                                          \
    X(FUSED_RELU_PASS_ELEM0, "fused_relu_pass_elem0", "op", "relu1|relu2|pool1|pool2|conv1|conv2", "backward",        \
      "smallcnn", CPU_FAULT_DETECT,                                                                                    \
      "the fused kernel takes the ReLU's pass bit from the window's first element, not its arg-max",                  \
      "ReLU backward is exact: gradients appear or vanish at whole elements")                                          \
    X(RELU3_NEG_ZERO, "relu3_neg_zero", "op", "relu3", "forward", "smallcnn", CPU_FAULT_DETECT,                       \
      "relu3 (oneDNN eltwise) returns -0 for negative inputs, as x * (x > 0) would",                                  \
      "ReLU is exact to the bit: relu(x) is +0 for x <= 0 (the per-element exactness rule at attribution and "      \
      "replay steps compares bits and sees the sign; a value compare does not, and neither does the every-step "     \
      "re-check (ck_bits_differ takes -0 == +0, which no operation of these models tells apart, only 1/x or "       \
      "signbit would: at a step nobody samples a -0 goes unseen, measured worst ratio 0.257 as the clean run's)")                                  \
    X(POOL_TIE_LAST, "pool_tie_last", "op", "pool1|pool2|relu1|relu2", "backward", "smallcnn", CPU_FAULT_DETECT,      \
      "max-pool picks the last of tied maxima instead of the first",                                                   \
      "the value is the same; the gradient goes to another element, and at step 1 most pool1 windows tie")            \
    X(POOL_GRAD_NEXT, "pool_grad_next", "op", "pool1|pool2|relu1|relu2", "backward", "smallcnn", CPU_FAULT_DETECT,    \
      "max-pool backward routes each gradient to the window element after the arg-max",                                \
      "routing is exact: whole gradients land on wrong elements")                                                      \
    X(SOFTMAX_EXP_OFF, "softmax_exp_off", "op", "fc2|loss", "loss", "smallcnn", CPU_FAULT_DETECT,                     \
      "softmax takes exp(z_0 - max) * (1 + 2^-12) for class 0",                                                        \
      "a 2^-12 relative error in p_0 and the sum, ~2000 ulps, against a few-ulp softmax bound")                        \
    X(LOSS_MEAN_N_MINUS_1, "loss_mean_n_minus_1", "op", "fc2|loss", "loss", "smallcnn", CPU_FAULT_DETECT,             \
      "the batch mean divides by n - 1 (loss and its gradient)",                                                       \
      "a relative error of 1/(n-1), 1/15 at batch 16")                                                                 \
    X(LOSS_GRAD_17ULP, "loss_grad_17ulp", "op", "fc2|loss", "loss", "smallcnn", CPU_FAULT_DETECT,                     \
      "the loss gradient is scaled by 1 + 17*2^-23 (17 ulps) everywhere",                                              \
      "34u relative on every element; the bound of the label's element, p - 1 with p << 1, is ~5u |dz|")              \
    X(ADAM_EPS_IN_SQRT, "adam_eps_in_sqrt", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn", CPU_FAULT_DETECT,      \
      "Adam adds eps inside the square root: sqrt(v + eps) / bc2 for sqrt(v) / bc2 + eps",                            \
      "sqrt(1e-8) = 1e-4 in the denominator against ~1e-3: a 10% change of the step")                                  \
    X(ADAM_BETAS_SWAPPED, "adam_betas_swapped", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn", CPU_FAULT_DETECT,  \
      "Adam uses beta2 for m and beta1 for v",                                                                         \
      "m and v off by tens of percent")                                                                                \
    X(ADAM_BETA1_OFF, "adam_beta1_off", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn", CPU_FAULT_DETECT,          \
      "Adam's beta1 is 0.9 * (1 + 2^-10)",                                                                             \
      "m off by ~1e-3 relative (1 - b1 moves by 1%), thousands of ulps")                                              \
    X(ADAM_NO_BIAS_CORRECTION, "adam_no_bias_correction", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn",          \
      CPU_FAULT_DETECT, "Adam skips both bias corrections (step_size = lr, bc2 = 1)",                                  \
      "the step is (1 - b1^t) / sqrt(1 - b2^t) times too large: ~3x at t = 1")                                         \
    X(ADAM_LATE_NO_BIAS_CORRECTION, "adam_late_no_bias_correction", "op", "conv1|conv2|fc1|fc2", "update",            \
      "smallcnn --steps 4 --audit-every 3", CPU_FAULT_DETECT,                                                          \
      "from step 3 on, Adam skips both bias corrections (a fault after the attribution phase)",                       \
      "~2x too large a step at t = 3; only a bounded replay after the attribution phase (a shadow step) can see it")  \
    X(CONV2_PARTIAL_BATCH_BIAS, "conv2_partial_batch_bias", "op", "conv2", "forward",                                 \
      "smallcnn --limit-train 72 --steps 5", CPU_FAULT_DETECT,                                                         \
      "conv2 adds its bias twice in batches smaller than max_batch (the last, partial batch: its own primitives)",     \
      "as conv1_bias_twice, but only in the plan of the last batch of an epoch (here step 5, 8 of 16 images)")        \
    X(DROPOUT_SCALE_OFF, "dropout_scale_off", "op", "drop1", "forward", "mnist-convnet", CPU_FAULT_DETECT,            \
      "dropout forward scales by (1/(1-p)) * (1 + 2^-12)",                                                             \
      "one multiply is good to half an ulp; this is 2^-12 relative, ~2000 ulps")                                       \
    X(DROPOUT_SCALE_1_OVER_P, "dropout_scale_1_over_p", "op", "drop1", "forward", "mnist-convnet", CPU_FAULT_BELOW,   \
      "dropout scales by 1/p instead of 1/(1-p)",                                                                      \
      "provably no effect at p = 0.5 (1/p == 1/(1-p)); a fault only for other p, which the zoo's models do not use")  \
    X(DROPOUT_MASK_WRONG_STEP, "dropout_mask_wrong_step", "op", "drop1", "backward", "mnist-convnet",                 \
      CPU_FAULT_DETECT, "dropout backward draws the mask of step + 1",                                                 \
      "the mask decides whole elements: half the gradient lands where forward dropped")                                \
    X(CONV2_BWD_DATA_UNFLIPPED, "conv2_bwd_data_unflipped", "op", "conv2|pool1", "backward", "smallcnn",              \
      CPU_FAULT_DETECT, "conv2 backward-data uses each 3x3 kernel rotated by 180 degrees (a wrong reorder)",          \
      "another correlation altogether: errors of the order of the gradient")                                           \
    X(CONV2_DB_TWICE, "conv2_db_twice", "op", "conv2", "backward", "smallcnn", CPU_FAULT_DETECT,                      \
      "conv2's bias gradient is doubled", "a relative error of 1")                                                     \
    X(FC2_DW_ROWS_SWAPPED, "fc2_dw_rows_swapped", "op", "fc2", "backward", "smallcnn", CPU_FAULT_DETECT,              \
      "fc2's weight gradient has rows 0 and 1 swapped (a transposed index)", "whole rows of another output")          \
    X(STATE_WEIGHTS_STALE, "state_weights_stale", "state", "conv1|conv2|fc1", "forward", "smallcnn",                  \
      CPU_FAULT_DETECT,                                                                                                \
      "update does not bump params_ver: the blocked-layout weight copies keep the old weights (set_tensor refreshes)", \
      "step 2's forward runs on step 1's weights, a change of ~lr: far over the forward bound")                        \
    X(STATE_FC1_COPY_STALE, "state_fc1_copy_stale", "state", "fc1", "forward", "smallcnn", CPU_FAULT_DETECT,          \
      "fc1's reordered weight copy (shared by forward and backward-data) is refreshed only by set_tensor",            \
      "fc1 computes with the previous weights: a change of ~lr")                                                       \
    X(STATE_BIAS_COPY_STALE, "state_bias_copy_stale", "state", "conv1|conv2|fc1|fc2", "forward", "smallcnn",          \
      CPU_FAULT_DETECT, "forward reads biases from a copy that set_tensor refreshes and update does not",             \
      "biases a step old: a change of ~lr in every output")                                                            \
    X(STATE_ADAM_M_COPY, "state_adam_m_copy", "state", "conv1|conv2|fc1|fc2", "update", "smallcnn", CPU_FAULT_DETECT, \
      "update reads m from a copy that set_tensor refreshes and update does not write",                                \
      "step 2 uses m = 0: m and the step off by 10%")                                                                  \
    X(STATE_ADAM_V_COPY, "state_adam_v_copy", "state", "conv1|conv2|fc1|fc2", "update", "smallcnn", CPU_FAULT_DETECT, \
      "update reads v from a copy that set_tensor refreshes and update does not write",                                \
      "step 2 uses v = 0: v off by ~0.1%, the step by ~5%")                                                            \
    X(STATE_PIDX_REUSED, "state_pidx_reused", "state", "pool1|pool2|relu1|relu2|conv1|conv2", "backward", "smallcnn", \
      CPU_FAULT_DETECT, "the fused pool's arg-max bytes (pidx) are those of the first forward of the run",            \
      "from step 2 gradients are routed by another batch's arg-maxes")                                                 \
    X(STATE_LAZY_ACT_STALE, "state_lazy_act_stale", "state", "relu1|relu2", "forward", "smallcnn", CPU_FAULT_DETECT,  \
      "a fused ReLU's ACT is not marked lazy by a new forward: reading it returns the last value written",           \
      "reported ACT is another input's ReLU (training itself is right)")                                               \
    X(STATE_LAZY_DACT_STALE, "state_lazy_dact_stale", "state", "relu1|relu2|pool1|pool2", "backward", "smallcnn",     \
      CPU_FAULT_DETECT,                                                                                                \
      "a fused ReLU's DACT is not marked lazy by the pool's backward: reading it returns the last value written",    \
      "reported DACT is another step's (training itself is right)")                                                    \
    X(STATE_DW_FLAT_STALE, "state_dw_flat_stale", "state", "conv2", "backward", "smallcnn", CPU_FAULT_DETECT,         \
      "conv2's weight gradient reaches the flat GRADS buffer only on the first backward",                              \
      "from step 2 the update and the report use step 1's gradient")                                                  \
    X(ACT_CORRUPT_ONCE, "act_corrupt_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", CPU_FAULT_DETECT, \
      "at step 7 only, conv2's largest output of sample 0, channel 0 is doubled (an exponent bit flipped once)",      \
      "step 7 is no attribution, shadow or last step: only the every-step conv2 forward checksum sees it")            \
    X(GRAD_CORRUPT_ONCE, "grad_corrupt_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", CPU_FAULT_DETECT, \
      "at step 7 only, fc1's largest weight gradient is doubled",                                                     \
      "one step nobody samples: only the every-step fc1 backward-weights checksum sees it")                          \
    X(WEIGHT_CORRUPT_ONCE, "weight_corrupt_once", "op", "fc1", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", CPU_FAULT_DETECT, \
      "before step 8's forward, one fc1 weight has its sign flipped (silent data corruption between two steps)",     \
      "the step computes with a state the last update did not report: the continuity digest differs")               \
    X(ADAM_RESET_EPOCH, "adam_reset_epoch", "state", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval",   \
      CPU_FAULT_DETECT, "Adam's m and v are re-created (zeroed) at the first training step after an evaluation (each epoch start)", \
      "a legal-looking update from a reset state, shared by every engine of a code base: continuity sees the reset (measured PROBLEM at step 6, update, while the state round trip of step 5 ran before the evaluation). A state fault (zoo attack 10): since the epoch's last round trip runs after the evaluation, its first probe step is the first training step after an evaluation and resets m and v, which the set-state probes do not: measured PROBLEM, 'the state it trains with is not the state it reports (first: conv1.weight, after step 5)', phase state; the probe consumed the trigger, and step 6 trains from the restored state ROUND TRIP ON A SECOND INSTANCE (audit/driver.c roundtrip: the round trip judges the engine's real next step, step 6, against a clone loaded with the state reported after step 5): step 6 itself resets m and v, and both see it there: continuity, PROBLEM at step 6, update ('conv1.weight Adam m this step computed with are not those the last update reported'), and the round trip, 'the state it trains with is not the state it reports (first: conv1.weight; the state reported after step 5, trained with at step 6)', phase state; the audited run is the run without the check, bit for bit (test_mutants: test_roundtrip_unperturbed). Zoo attack 12: the second instance after one inference pass reproduces the engine's step 6 bit for bit, so the reset is named for what it is: measured PROBLEM at step 6, conv1 update, 'its step 6, after an evaluation, computes otherwise than the same step from the same state without one (first: conv1.weight)'")  \
    X(EVAL_DROPOUT_ON, "eval_dropout_on", "op", "drop1", "evaluation", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval",            \
      CPU_FAULT_DETECT, "evaluation runs dropout as in training (inference mode left off)",                          \
      "no training step is wrong; the evaluation checksum requires dropout to be the identity")                      \
    X(EVAL_FC2_BIAS_TWICE, "eval_fc2_bias_twice", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval",          \
      CPU_FAULT_DETECT, "in evaluation only, fc2 adds its bias twice (a wrong eval output)",                         \
      "training is right: only the evaluation's fc2 forward checksum and the logits vs the reference see it")       \
    X(FUSED_GRAD_ONCE_BLOCK1, "fused_grad_once_block1", "op", "relu2|pool2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "at step 7 only, the fused relu2+pool2 backward gives one conv2 output-gradient element of "  \
      "channel 17 (the second block of 16 channels), sample 0, that should be +0 a gradient of 1e-3 (routed to a "    \
      "non-maximum)",                                                                                                  \
      "conv2's backward then runs from that gradient, so its relations hold: only the every-step re-check of the "   \
      "fused pair (16 channels per vector lane, at step 7) sees it")                                                  \
    X(INPUT_STALE_ONCE, "input_stale_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "at step 7 only, set_batch keeps the previous step's images (the labels are the new "         \
      "batch's): a data-pipeline fault, e.g. a copy skipped or a double buffer not swapped",                          \
      "every operation of the step is right for the images it used, so every relation holds: only the every-step "   \
      "digest of the input the engine computed with, against the batch it was given, sees it")                       \
    X(EVAL_INPUT_STALE, "eval_input_stale", "op", "conv1", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "in the first evaluation only, the second test batch is evaluated on the first batch's "     \
      "images (its labels are right)",                                                                                 \
      "the evaluation's relations hold and the reference compares logits only at the last epoch: only the "          \
      "evaluation's input digest sees it")                                                                             \
    X(LABELS_STALE_ONCE, "labels_stale_once", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "at step 7 only, set_batch keeps the previous step's labels (the images are new)",            \
      "every layer's relations hold; the loss and its gradient, re-done from the logits with the labels the "        \
      "audit gave, do not")                                                                                            \
    X(ADAM_T_STALE_ONCE, "adam_t_stale_once", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "at step 7 only, the update uses step 6's bias corrections (a step counter that missed one "  \
      "increment, e.g. at a partial batch)",                                                                          \
      "m and v are right, p moves by a step size 1 - 0.9^7 / (1 - 0.9^6) too large: the every-step Adam re-check, "  \
      "from the audit's own step count, sees every weight")                                                          \
    X(LOSS_PARTIAL_MEAN_MAX, "loss_partial_mean_max", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "in a partial batch (steps 5 and 10: 8 of 16 images) the loss and its gradient divide by "  \
      "the full batch size",                                                                                           \
      "the mean over n re-done from the logits is twice the engine's; only partial batches, which the attribution " \
      "phase does not reach")                                                                                          \
    X(FC1_SAMPLES_SWAPPED_ONCE, "fc1_samples_swapped_once", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "at step 7 only, fc1's forward writes sample 0's outputs to sample 1's row and sample 1's "  \
      "to sample 0's (a batched kernel that writes one sample's result into another's slot)",                         \
      "every value is one fc1 computes, in the wrong row: a relation summed over the batch cannot see it; the "       \
      "per-sample dense relation (outputs summed per sample) does")                                                   \
    X(CONV2_PLANE_TRANSPOSED_ONCE, "conv2_plane_transposed_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "at step 7 only, conv2's output plane of sample 0, channel 0 is transposed (rows for columns: "\
      "a kernel with its two spatial strides swapped)",                                                               \
      "every value is one conv2 computes, at another position of the same plane: the plain forward relation sums a " \
      "whole plane and the max-pool re-check routes what it is given; the position-weighted forward relation (each " \
      "output times its linear position + 1) sees it")                                                                \
    X(CONV2_PLANE_MIRRORED_ONCE, "conv2_plane_mirrored_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "at step 7 only, conv2's output plane of sample 0, channel 0 is mirrored left to right (each " \
      "row's columns reversed)",                                                                                       \
      "a permutation within rows: the plain forward relation sums the plane; the position-weighted one weights each " \
      "output by its linear position + 1, columns included, and sees it")                                            \
    X(CONV2_DX_PLANE_TRANSPOSED_ONCE, "conv2_dx_plane_transposed_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "at step 7 only, conv2's input gradient (pool1.dact) plane of sample 0, channel 0 is "        \
      "transposed",                                                                                                    \
      "every value is one backward-data computes, at another position of the same plane: the plain backward-data "   \
      "relation sums a whole plane and the fused relu1+pool1 re-check routes what it is given; the position-weighted "\
      "backward-data relation (each input gradient times its linear position + 1) sees it")                          \
    X(CONV2_DW_FLIPPED_ONCE, "conv2_dw_flipped_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "at step 7 only, conv2's weight gradient has every 3x3 slice rotated by 180 degrees (a "     \
      "backward-weights kernel that convolves where it should correlate)",                                            \
      "every value is one backward-weights computes, for another kernel offset of the same output channel: the "     \
      "plain backward-weights relation sums dW over (input channel, kh, kw) and the update re-check uses the "       \
      "gradient the engine reports; the index-weighted backward-weights relation (each dW element times its index " \
      "+ 1 in the filter) sees it")                                                                                    \
    X(FC1_DW_NHWC_ONCE, "fc1_dw_nhwc_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "at step 7 only, fc1's weight gradient has its columns in the order of an NHWC flatten (h, "\
      "w, c) where the forward flattens NCHW (c, h, w)",                                                              \
      "every row holds the values backward-weights computes, in another column order: the plain relation sums each " \
      "row of dW and the update re-check uses the gradient the engine reports; the index-weighted relation (each "   \
      "dW element times its column + 1) sees it")                                                                      \
    X(EVAL_POOL2_BLOCK1_1ULP, "eval_pool2_block1_1ulp", "op", "relu2|pool2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, "in evaluation only, the fused relu2+pool2 output of channel 21 (the second block of 16), "   \
      "sample 0, at its first positive window is one ulp up",                                                        \
      "max-pool is exact: the evaluation's fused-pair re-check sees one ulp; fc1's relation holds (it reads the "    \
      "value it was given) and one ulp hardly moves the logits") \
    X(CONV2_POOL_WINDOW_SWAP_ONCE, "conv2_pool_window_swap_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in conv2's output plane of sample 0, channel 0, the largest value and its " \
      "horizontal partner in the same 2x2 pooling window are exchanged (a vector store with two lanes " \
      "swapped)", \
      "pool2's output is the same (the max of the same four values) but its arg-max, and so the gradient " \
      "routing, moves: the plain forward relation sums the plane, the pool re-check routes what it is " \
      "given; only the position-weighted relation sees it: neighbours have opposite checkerboard signs, " \
      "so it moves by (2p + 3) x (the two values' difference), against a tolerance summed over the 196 " \
      "positions weighted 1..196: measured 112x the worst case (unsigned weights moved it by 1 x the " \
      "difference: 0.50 of it, x2.67 the sharp tier, a SUSPECT)") \
    X(CONV2_DX_ADJACENT_SWAP_ONCE, "conv2_dx_adjacent_swap_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's input gradient (pool1.dact) of sample 0, channel 0: the element of largest " \
      "magnitude is exchanged with its right neighbour", \
      "pool1's backward routes the two gradients into the wrong 2x2 windows of conv1; the plain " \
      "backward-data relation sums the plane, only the position-weighted one sees it, by (2p + 3) x their " \
      "difference (opposite checkerboard signs): measured 382x the worst case (1.46 with unsigned " \
      "weights, by 1 x the difference)") \
    X(CONV2_DW_SLICE_TRANSPOSED_ONCE, "conv2_dw_slice_transposed_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, one 3x3 slice of conv2's weight gradient (output channel 0, input channel 0) is " \
      "stored transposed (kh and kw exchanged: one tile of a kernel with its strides swapped)", \
      "a permutation inside one filter: the plain relation's signs ck_cw ((-1)^(c + kh + kw) times the " \
      "tap's sign) are opposite on every exchanged pair, so it moves by 2 sum (g_ab - g_ba) against the " \
      "unsigned sum's tolerance: measured PROBLEM at step 7, conv2 backward-weights, 3.94, 1 of 32 filters " \
      "over. Before those signs only the index-weighted relation (ck_iw: c k k + s (tap + 1)) moved, by " \
      "(|a| + |b|)|g_ab - g_ba|, 6 to 14 |g|, against weights up to 144: x1.84 the sharp tier, 0.124 of " \
      "the worst case, a SUSPECT (0.82 of the sharp tier with unsigned weights, a blind spot)") \
    X(CONV2_DW_OC_SLICE_SWAPPED_ONCE, "conv2_dw_oc_slice_swapped_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's weight gradient slices of input channel 0 are exchanged between output " \
      "channels 0 and 1 (nine values each moved to the other filter)", \
      "value-preserving over the tensor (the update re-check uses it as reported), but each output " \
      "channel's plain backward-weights sum moves by the difference of the two slices' signed sums (ck_cw): " \
      "measured PROBLEM at step 7, conv2 backward-weights, 1.45, 2 of 32 filters over (4.16 when the " \
      "relation summed the slices unsigned: a near-constant offset between the slices added up over the " \
      "taps, which the signs, summing to -1 over a slice, cancel)") \
    X(ADAM_LAZY_ZERO_GRAD, "adam_lazy_zero_grad", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn", \
      CPU_FAULT_DETECT, \
      "Adam skips every element whose gradient is exactly +-0 (p, m, v left as they were: sparse/lazy Adam " \
      "semantics on a dense tensor)", \
      "dense Adam decays m and v and moves p by m even where g = 0: the bit-exact Adam re-check sees each " \
      "skipped element (fc1's weights of features that are 0 over the whole batch, dead fc1 units)") \
    X(FC1_SAMPLE_DUPLICATED_ONCE, "fc1_sample_duplicated_once", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's forward writes sample 0's outputs into sample 1's row as well (sample 1's own " \
      "outputs are lost: a batched kernel that indexes one row twice)", \
      "per output the batch sum moves by y0 - y1; the per-sample relation of sample 1 by the sum of y0 - y1") \
    X(CONV1_POOL_WINDOW_SWAP_ONCE, "conv1_pool_window_swap_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in conv1's output plane of sample 0, channel 0, the largest value and its " \
      "horizontal partner in the same 2x2 pooling window are exchanged", \
      "as conv2_pool_window_swap_once on conv1's 28x28 plane: pool1's output is unchanged, its arg-max " \
      "moves; only the position-weighted relation (weights +-1..784) sees it: measured 144x its worst case " \
      "(1.44 with unsigned weights)") \
    X(CONV1_DW_SLICE_TRANSPOSED_ONCE, "conv1_dw_slice_transposed_once", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv1's weight gradient of output channel 0 (its only 3x3 slice) is stored " \
      "transposed", \
      "as conv2_dw_slice_transposed_once, but conv1 has one input channel: the slice is the whole filter, " \
      "and the index-weighted relation's tolerance is its own") \
    X(FC1_DW_LANE_PAIR_SWAPPED_ONCE, "fc1_dw_lane_pair_swapped_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's weight gradient has two adjacent columns (the even/odd pair of row 0's " \
      "largest |dW|) exchanged in every row (two lanes of a vector store swapped)", \
      "each row's plain sum is kept; its index-weighted sum (ck_iw: (-1)^t (t + 1)) moves by (2 f0 + 3) " \
      "|dW[f0] - dW[f0^1]| per row, neighbours having opposite signs: measured 144x the worst case at step " \
      "7 (with unsigned weights, 1 |difference| per row: 0.69 of it, a SUSPECT)") \
    X(CONV2_DW_STALE_DY_ONCE, "conv2_dw_stale_dy_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's backward-weights (dW and db) runs on step 6's output gradient (a kernel " \
      "launched on the other half of a double buffer); backward-data uses the step's own", \
      "a whole dW and db of another step: the plain backward-weights and bias relations, from the step's " \
      "dy, see errors of the order of dW itself") \
    X(EVAL_STALE_WEIGHTS, "eval_stale_weights", "state", "conv1|conv2|fc1|fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "the first batch of the second evaluation runs on the weights of the first evaluation (a stale " \
      "inference copy); the weights reported are current", \
      "continuity holds (the digest is of the current weights); every layer's evaluation relation, from " \
      "the current W, sees a change of an epoch of updates") \
    X(CONV2_DW_TRANSPOSED_ONCE, "conv2_dw_transposed_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, every 3x3 slice of conv2's weight gradient is stored transposed (a backward-weights " \
      "kernel with its kh and kw strides swapped)", \
      "as conv2_dw_slice_transposed_once in all 512 slices: each filter's index-weighted sum moves by the " \
      "sum over its 16 slices of (|a| + |b|)(g_ab - g_ba) over the exchanged pairs, a and b the taps' signed " \
      "(tap + 1) (ck_iw's opposite signs; the channel's part cancels): measured 37.3x the worst case (16.6 " \
      "with unsigned weights); the plain relation's signs ck_cw are opposite on every exchanged pair: " \
      "measured 57.3, conv2 backward-weights, 29 of 32 filters over") \
    X(CONV2_FWD_W_TRANSPOSED, "conv2_fwd_w_transposed", "op", "conv2", "forward", "smallcnn", \
      CPU_FAULT_DETECT, \
      "conv2 forward reads each 3x3 kernel transposed (w[kw][kh] for w[kh][kw]; backward is right)", \
      "another correlation: the plain relation's window sums differ only by border strips, the " \
      "position-weighted one by the shift of each tap") \
    X(CONV2_POOL_LANE_SWAP, "conv2_pool_lane_swap", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "in every training step, every conv2 output plane has its values at (6, 6) and (6, 7) exchanged (one " \
      "lane pair of a vector store swapped, in the top row of one 2x2 pooling window)", \
      "pool2's value is kept, its arg-max moves where the max is one of the two: only the position-weighted " \
      "relation sees each plane, by (2p + 3) x (the difference) (opposite checkerboard signs), in n x 32 " \
      "planes x 10 steps: measured 242x the worst case at step 1 (1.32 with unsigned weights)") \
    X(CONV2_DW_SLICE_TRANSPOSED_ALWAYS, "conv2_dw_slice_transposed_always", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "in every step, the 3x3 slice of conv2's weight gradient of output channel 0, input channel 0 is " \
      "stored transposed (one tile with its strides swapped)", \
      "as conv2_dw_slice_transposed_once, at every step: the attribution phase's replay of steps 1 and 2 " \
      "sees conv2.weight.grad (measured 6118x its bound); the every-step plain relation's signs ck_cw " \
      "see it at every step: measured worst 12 (before them the index-weighted relation alone was a " \
      "SUSPECT: over the sharp tier at 8 of 10 steps, at most x11 it, 0.74 of the worst case)") \
    X(CONV2_DW_SLICE_TRANSPOSED_ALWAYS_LATE, "conv2_dw_slice_transposed_always_late", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "as conv2_dw_slice_transposed_always, from step 3 on (a dW algorithm an autotuner picks after the " \
      "first steps)", \
      "past the attribution phase: the shadow replays (steps 5 and 10, partial batches) see " \
      "conv2.weight.grad (measured 5994x its bound); the every-step plain relation (signs ck_cw) too: " \
      "measured worst 10.5 (before those signs a SUSPECT: over the sharp tier at 6 steps, at most x11.2 " \
      "it, 0.75 of the worst case)") \
    X(CONV2_DW_SAMPLES_CROSSED_ONCE, "conv2_dw_samples_crossed_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's backward-weights pairs sample 0's output gradient with sample 1's input and " \
      "sample 1's with sample 0's (a batched kernel with a wrong stride for x; backward-data is right)", \
      "dW = sum_n dy_n x_pi(n): each output channel's plain and index-weighted sums move by " \
      "(dy_0 - dy_1) against (patch sums of x_1 - x_0), about one sample's share of dW") \
    X(CONV2_DW_IC_SLICES_SWAPPED_ONCE, "conv2_dw_ic_slices_swapped_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in conv2's weight gradient of output channel 0, the 3x3 slices of input channels 0 " \
      "and 1 are exchanged (same taps: a dW kernel storing one input-channel pair of its register tile in " \
      "the wrong order)", \
      "a permutation inside filter 0: its unsigned sum would be kept; the plain relation's signs ck_cw " \
      "((-1)^c times a tap pattern) move it by 2 sum_tap ck_cw(t) (g1 - g0): measured 8.19x the worst case " \
      "at step 7 (34.7 with the channel's sign alone; before any sign only the index-weighted one (ck_iw: " \
      "c k k + s_tap (tap + 1), the channel's part unsigned) moved, by 9 (c1 - c0) sum_tap (g0 - g1) " \
      "against weights up to 288: 1.82x; with the tap's sign on the channel's part too, the 9 signs " \
      "summing to -1 cancelled it: 0.434, a SUSPECT)") \
    X(CONV2_FWD_LANE02_SWAP_ONCE, "conv2_fwd_lane02_swap_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in conv2's output plane of sample 0, channel 0, the largest value and the value two " \
      "columns away in its row (lanes 0 and 2, or 1 and 3, of its 4-lane group: a shuffle immediate with " \
      "two lanes exchanged) are exchanged", \
      "the plain relation sums the plane; the position-weighted one sees two elements of the same " \
      "checkerboard sign, by 2 x their difference (not 2p + 3 as for neighbours): measured 4.24x the worst " \
      "case at step 7, with the plane's largest value (0.329 at (7, 12) <-> 0.067 at (7, 10)); the same swap " \
      "of two values less than 0.062 apart (19 percent of that maximum) would stay under the bound") \
    X(FC1_FWD_TAIL_DROPPED_ONCE, "fc1_fwd_tail_dropped_once", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's forward skips its last input feature (the loop bound in - 1: an off-by-one in " \
      "an unrolled loop's tail) for every sample and output", \
      "each output loses one term w_j,last x_n,last of its 1569: the per-output relation over the batch " \
      "moves by w_j,last sum_n x_n,last against gamma_1569 of 16 x 1568 |terms|: measured 21.1x the worst " \
      "case at step 7 (pool2's last element is a ReLU'd maximum, never negative: one output's terms do not cancel)") \
    X(CONV2_DX_TILE_TRANSPOSED_ONCE, "conv2_dx_tile_transposed_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "at step 7 only, in conv2's input gradient of sample 0, channel 0, the 2x2 tile holding the largest " \
      "|dx| is stored transposed (its anti-diagonal pair exchanged: a 2x2 register micro-tile written " \
      "with its strides swapped)", \
      "the exchanged pair (8, 3) <-> (9, 2) has the same checkerboard sign and weights 13 (w - 1) apart; " \
      "neighbouring input gradients are smooth (-1.995e-5 and -2.006e-5: 0.5 percent apart, ~6e4 ulps each), so " \
      "the position-weighted backward-data relation moves by 13 x 1.05e-7 = 1.4e-6 against its bound " \
      "1.65e-4 on that plane (from conv2_dx_adjacent_swap_once's 382x on the same element): ~0.008 of the " \
      "worst case; step 7's worst relation 0.111, nothing flagged. Any relation of bounded weights moves " \
      "by at most (weight gap) x 1e-7: only an element-wise re-check (sampled) would see it") \
    X(CONV2_DX_TILES_TRANSPOSED_ONCE, "conv2_dx_tiles_transposed_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, every 2x2 tile of conv2's input gradient (all samples and channels) is stored " \
      "transposed (a 2x2 micro-tile kernel whose store has its strides swapped)", \
      "each tile as conv2_dx_tile_transposed_once (the pair's weights 13 apart, the same sign (-1) in every " \
      "tile, since (2a, 2b + 1) and (2a + 1, 2b) are both odd): 49 tiles of a plane move the " \
      "position-weighted relation by 13 x the sum of their anti-diagonal differences, one sign: measured " \
      "247x the worst case at step 7, where one tile alone is ~0.008") \
    X(FC1_DW_LANE02_SWAPPED_ONCE, "fc1_dw_lane02_swapped_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's weight gradient has the column of row 0's largest |dW| and the column two " \
      "lanes away in its 4-lane group (f ^ 2) exchanged in every row (a shuffle immediate with lanes 0 and 2 " \
      "exchanged)", \
      "each row's plain sum is kept; its index-weighted sum moves by (the weights' gap) x |dW[f0] - dW[f0 ^ 2]|, " \
      "and features two apart in one row of a pool2 plane have close gradients (row 0: -5.39e-3 and " \
      "-5.19e-3). With one sign pattern (-1)^t the two have the same sign, weights 2 apart: x2.68 the sharp " \
      "tier, 0.643 of the worst case (a SUSPECT). ck_iw_dense gives rows j = 1 mod 4 the pattern (-1)^(t0 " \
      "xor t1), where f and f ^ 2 have opposite signs (2 f0 + 4 apart): measured 65.7x the worst case at step " \
      "7, 11 of fc1's 64 rows over") \
    X(CONV2_DW_IC_PAIR_SWAPPED_ONCE, "conv2_dw_ic_pair_swapped_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in every filter of conv2's weight gradient the 3x3 slices of input channels 0 and 1 " \
      "are exchanged (a dW kernel storing its first input-channel pair in the wrong order)", \
      "as conv2_dw_ic_slices_swapped_once in all 32 filters: each filter's plain sum, signed by ck_cw " \
      "((-1)^c times a tap pattern), moves by 2 sum_tap ck_cw(t) (g1 - g0): measured 39.7x the worst case " \
      "at step 7, 31 of 32 filters over (179 with the channel's sign alone, 9.94 by the index-weighted " \
      "sum's 9 sum_tap (g0 - g1) before either)") \
    X(FC1_DX_LANE_PAIR_SWAPPED_ONCE, "fc1_dx_lane_pair_swapped_once", "op", "fc1|flatten|pool2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's input gradient of sample 0 has the feature of the largest |dx| and its even/odd " \
      "partner exchanged (one lane pair of one sample's store swapped)", \
      "the per-sample backward-data relation sums the row (kept); each feature's relation over the batch " \
      "(sum_n dx_nk = column k of W . sum_n dy_n) moves by the difference of one sample's two values, " \
      "against gamma_64 of 16 x 64 |terms|: measured 5907x the worst case at step 7 (features 829 and 828: " \
      "8.6e-4 and 3.0e-4)") \
    X(EVAL_CONV1_LAST_PLANE_SWAP, "eval_conv1_last_plane_swap", "op", "conv1", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "in every evaluation batch but the first, conv1's output plane of the last sample, last channel has " \
      "its largest value and its horizontal partner in the same 2x2 pooling window exchanged", \
      "as conv1_pool_window_swap_once in the last plane of the last sample of a later evaluation batch (pool1 " \
      "keeps its value, its arg-max moves): every evaluation batch is judged per (sample, channel), and the " \
      "position-weighted relation sees the neighbours' opposite signs: measured 142x the worst case at the " \
      "evaluation after epoch 1") \
    X(CONV2_WINO_TILE_ONCE, "conv2_wino_tile_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in conv2's output plane of sample 0, channel 0, the 4x4 tile (4-aligned) holding its " \
      "largest value gets +eps in rows 0 and 2 and -eps in rows 1 and 3, eps = 2^-8 of that value " \
      "(fault_k=K: 2^(8-K)): a Winograd F(4x4, 3x3) tile with one transform-domain value M[2][1] off, which " \
      "Y = A^T M A spreads over A^T's columns (1, -1, 1, -1) x (1, 1, 1, 1)", \
      "the pattern sums to 0 (the plain forward relation does not move) and its (-1)^i cancels the " \
      "checkerboard's row sign, so the position-weighted relation moves by only 8 eps against weights up " \
      "to 196 (0.042 of its worst case); the row-alternating relation's weights (-1)^row match it: 16 eps " \
      "against the plain relation's tolerance, measured PROBLEM at step 7 (eps 1.3e-3 on 0.329), conv2 " \
      "forward (row-alternating), 8.16, 1 of 512 relations over (a blind spot until it was built: 0.042 " \
      "of the worst case, VERDICT ok); the same tile at step 1 is 321x conv2.act's per-element bound; the " \
      "parameters after step 10 are rel. L2 2.3e-6 (46812 ulp) from the unfaulted cpu's, 100x cpu's own " \
      "distance from the reference") \
    X(CONV2_WINO_COL_TILE_ONCE, "conv2_wino_col_tile_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in conv2's output plane of sample 0, channel 0, the 4x4 tile (4-aligned) holding its " \
      "largest value gets +eps in columns 0 and 2 and -eps in columns 1 and 3, eps = 2^-8 of that value " \
      "(fault_k=K: 2^(8-K)): the Winograd tile of conv2_wino_tile_once with M[1][2] off instead of M[2][1]", \
      "the pattern sums to 0 and keeps the row-alternating relation (each row sums to 0); the " \
      "position-weighted one moves by 8 w eps (w = 14: its weight's w i term, the checkerboard's column sign " \
      "cancelled by the pattern's) against weights up to 196: measured a SUSPECT only, x3.09 the sharper " \
      "tier, before the column-alternating relation; that one moves by 16 eps against the plain relation's " \
      "tolerance: measured PROBLEM at step 7, conv2 forward (column-alternating), 8.16, 1 of 512 relations " \
      "over") \
    X(CONV2_DX_WINO_TILE_ONCE, "conv2_dx_wino_tile_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's input gradient (pool1.dact) of sample 0: in the plane of its largest |dx| " \
      "where pool1's output is > 0 (relu1 passes it on), the 4x4 tile holding that element gets the " \
      "Winograd M[2][1] pattern of conv2_wino_tile_once (+eps in rows 0 and 2, -eps in rows 1 and 3, eps = " \
      "2^-8 of that |dx|)", \
      "as conv2_wino_tile_once for the backward-data relations: the plain one does not move, the " \
      "position-weighted one by 8 eps (0.082 of its worst case), the row-alternating one by 16 eps: " \
      "measured PROBLEM at step 7, conv2 backward-data (row-alternating), 16.2, channel 8, 1 of 256 " \
      "relations over (a blind spot before it); at step 1 the tile is 205x pool1.dact's " \
      "per-element bound; the parameters after step 10 are rel. L2 8.1e-8 (2048 ulp) from the unfaulted " \
      "cpu's (a tile where relu1 is off, channel 0's largest |dx|, changed no bit of them)") \
    X(EVAL_CONV1_WINO_TILE, "eval_conv1_wino_tile", "op", "conv1", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "from the second evaluation on (the last of the zoo's 2-epoch run, and the reference's pass after " \
      "it), in every batch but the first: conv1's output of the last sample, in the plane of its largest " \
      "value, gets the Winograd M[2][1] tile pattern of conv2_wino_tile_once there (eps = 2^-8 of that " \
      "value)", \
      "conv1's position-weighted relation (K = 10: tight per-element bounds) moves by 8 eps, only a " \
      "SUSPECT (x1.05 the sharper tier, 0.411 of the worst case; with --limit-test 32 0.278 and 0.897, " \
      "VERDICT ok); the row-alternating relation moves by 16 eps against the plain one's tolerance: " \
      "measured PROBLEM 269 at the evaluation after epoch 2 with --limit-test 32 (the zoo's default audit), " \
      "conv1 forward (row-alternating), 1 of 256 relations over; the logits against the reference are " \
      "0.084 of their propagated bound (0.048 with 32 test images); placed in a plane whose values are all " \
      "negative (the last channel) it moved no logit at all") \
    X(FC1_DW_HALVES_SWAPPED_ONCE, "fc1_dw_halves_swapped_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's weight gradient: the 4-lane group (4-aligned columns) of row 0's largest |dW| " \
      "has its two 2-lane halves exchanged, (a, b, c, d) -> (c, d, a, b), in every row (a 128-bit shuffle " \
      "with the wrong immediate)", \
      "each row's plain sum is kept; with one sign pattern (-1)^t (t + 1) its index-weighted sum moves by 2 " \
      "[(d - b) - (c - a)], a second difference of neighbouring features' gradients: 1.52, 6 of 64 rows over " \
      "(measured before ck_iw_dense); with the four patterns the rows j = 1, 2 mod 4 give t and t ^ 2 " \
      "opposite signs: measured PROBLEM at step 7, fc1 backward-weights (index-weighted), 150, 15 of 64 " \
      "rows over") \
    X(CONV2_DW_EQUAL_WEIGHT_SWAP_ONCE, "conv2_dw_equal_weight_swap_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in every filter of conv2's weight gradient the values of (input channel 0, tap (0, " \
      "0)) and (input channel 1, tap (2, 1)) are exchanged (flat indices 0 and 16: a backward-weights " \
      "kernel's tap-offset table with two entries exchanged)", \
      "ck_iw gives the two the same weight (9c + s (tap + 1): 0 + 1 and 9 - 8), so each filter's " \
      "index-weighted relation is unchanged exactly, whatever the values (so is (c, (0, 1)) <-> (c + 1, " \
      "(2, 0)): 9c + 2; every equal pair spans neighbouring channels), and the Adam re-check takes the " \
      "gradient as reported; the plain relation's signs ck_cw, opposite on every such pair, move by 2 (g16 - g0): " \
      "measured PROBLEM at step 7, conv2 backward-weights, 88.2, 28 of 32 filters over (a blind spot " \
      "while the plain relation was unsigned: step 7's worst ratios equal to the unfaulted run's, VERDICT " \
      "ok, the parameters after step 10 rel. L2 9.0e-4 (3.4e6 ulp) from the unfaulted cpu's)") \
    X(FC1_DW_TINY_FLUSHED_ONCE, "fc1_dw_tiny_flushed_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, every nonzero fc1 weight gradient below 2^-24 in magnitude (fp16's smallest " \
      "subnormal: a gradient path through fp16 that underflows) is flushed to +0 (fault_k=K: below " \
      "2^-(K+8))", \
      "the sums' tolerances are absolute (gamma times sums of |dy x| over a row) while Adam's step m / " \
      "(sqrt(v) + eps) is scale-free: 2 elements flushed (their |g| sum to 5.9e-8; the largest |g| is 0.0114) " \
      "leave every relation where it was, yet move the parameters after step 10 rel. L2 8.9e-6 (31632 ulp, " \
      "380x cpu's own distance from the reference) from the unfaulted cpu's: a blind spot until the " \
      "zero-element relations (BWD_W_Z), which re-do in double the dot product of every dW exactly 0 whose " \
      "row of dy and column of x both have a nonzero, and judge the 0 against that element's own bound " \
      "gamma_n sum |dy x|: measured PROBLEM at step 7, fc1 backward-weights (zero and smallest elements), 1.04e6 (a " \
      "one-term element: |R| = A, the ratio's ceiling 1 / (1.01 gamma_16)), 2 of 64 rows over; fault_k 8, " \
      "12, 20: 34, 22, 1 rows over, the same ratio; 24 and above flush nothing here (VERDICT ok, the " \
      "parameters unchanged)") \
    X(CONV2_POOL_NEAR_TIE_SWAP_ONCE, "conv2_pool_near_tie_swap_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in every conv2 output plane of sample 0, the 2x2 pooling window whose largest value " \
      "(> 0) is closest to its second largest (distinct) has the two exchanged: pool2's value is kept, its " \
      "arg-max (where the gradient goes) moves", \
      "each plane's position-weighted relation moves by (|w_a| + |w_b|) or |w_a - w_b| (diagonal pairs: the " \
      "same sign) times the gap; the closest pair of a plane is close enough to pass in most of the 32 " \
      "planes, not in all: measured PROBLEM at step 7, conv2 forward (position-weighted), 6.31, 5 of 512 " \
      "planes over") \
    X(FC1_FWD_TAIL_SAMPLES_CROSSED_ONCE, "fc1_fwd_tail_samples_crossed_once", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's forward takes its K-loop tail (the last 32 input features) from sample 1's " \
      "inputs for sample 0 and from sample 0's for sample 1, for every output (a 2-sample register tile " \
      "whose remainder loop reads the rows of x exchanged)", \
      "each output's sum over the batch is unchanged (the two samples' errors cancel); each sample's sum " \
      "over the outputs moves by (the tail's column sums of W) . (x1 - x0): measured PROBLEM at step 7, fc1 " \
      "forward (per sample), 3.04, 2 of 16 samples over") \
    X(CONV1_NAN_DEAD_WINDOW_ONCE, "conv1_nan_dead_window_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv1's output of sample 0, channel 0: the first 2x2 pooling window whose four " \
      "values are all negative gets a NaN in its first element (the fused ReLU + max-pool takes relu(NaN) = " \
      "0, so the forward eats it, and its pass bit !(NaN <= 0) routes that window's gradient to the NaN's " \
      "place)", \
      "the conv1 forward relations sum the plane in double: the residual is NaN, judged infinite: measured " \
      "PROBLEM at step 7, conv1 forward, sample/output channel 0 (printed as 'exact check failed', ratio " \
      "inf)") \
    X(ADAM_V_INF_ONCE, "adam_v_inf_once", "op", "fc1", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "after step 7's update, Adam's v of the fc1 weight with the largest |g| is +inf (sqrt(v) = inf: that " \
      "weight never moves again, and nothing turns NaN)", \
      "the Adam re-check compares p, m and v bit for bit with ops_adam_elem from the step's own state: " \
      "measured PROBLEM at step 7, fc1 update, 1 element differs (up to inf); later steps re-do Adam from " \
      "the inf the engine reported and agree, so only step 7 sees it") \
    X(CONV1_DW_LAST_SAMPLE_DROPPED_ONCE, "conv1_dw_last_sample_dropped_once", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv1's weight gradient leaves out the batch's last sample (a batch loop one short; " \
      "db is right)", \
      "each filter's backward-weights relations, from the step's whole dy, move by that sample's " \
      "share: measured PROBLEM at step 7, conv1 backward-weights (index-weighted), 31.1 (the plain " \
      "relation, 39.2 with all-ones weights, is signed by ck_cw now, and the share cancels more in it)") \
    X(CONV2_WINO_U21_ONCE, "conv2_wino_u21_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's forward as a Winograd F(4x4, 3x3) whose transformed weights U = G g G^T have " \
      "one element, U[2][1] of (output channel 0, input channel 0), off by dU = 2^-8 |U[2][1]| (a corrupted " \
      "entry of a cached weight transform; fault_k=K: 2^(8-K)): every 4x4 output tile of channel 0, every " \
      "sample, gets dU V[2][1] (-1)^i, V = B^T d B of its 6x6 input window of channel 0", \
      "each tile's pattern sums to 0 (the plain relation does not move) and moves the position-weighted one " \
      "by 8 dU V[2][1] against weights up to 196 (0.0118 of its worst case), the row-alternating one by 16 " \
      "dU V[2][1]; the tiles' V[2][1] (differences of the input) partly cancel: measured PROBLEM at step 7, " \
      "conv2 forward (row-alternating), 2.31, 10 of 512 relations over (a blind spot before it; the " \
      "smallest margin of the zoo's Winograd faults); at step 1 conv2.act is 29.4x its per-element bound; the " \
      "parameters after step 10 are rel. L2 4.9e-7 (54896 ulp) from the unfaulted cpu's, 21x cpu's own " \
      "distance from the reference") \
    X(FC1_OUT_MANTISSA_FLIP_ONCE, "fc1_out_mantissa_flip_once", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "at step 7 only, sample 0's largest fc1 output (> 0: relu3 passes it on) has one mantissa bit " \
      "flipped, the bit of weight 2^(8-K) of the significand (fault_k=K: bit 31 - K, bit 15 at the default " \
      "16): a single-bit upset in one value of the widest dot product (K = 1569)", \
      "one output off by ~2^-8 of itself against gamma_1569 (9.4e-5) times the sum of |terms| of the 16 " \
      "samples' output (per output over the batch; the per-sample relation sums 64 outputs' |terms|): " \
      "measured SUSPECT at step 7, fc1 forward, output 37, x4.14 the sharper tier, 0.688 of the worst case; " \
      "the bit sweep (fault_k) gives bit 17 PROBLEM 2.75, bit 16 PROBLEM 1.38, bits 14, 13 SUSPECT x2.07, " \
      "x1.04, bits 12 and below VERDICT ok; the parameters after step 10 are rel. L2 3.6e-7 (bit 15), " \
      "9.6e-8 (bit 13), 5.2e-8 (bit 12) from the unfaulted cpu's, which the free pair calls 'ordering " \
      "only': where the tiers stop seeing a flip its effect is already rounding-sized (not a blind spot)") \
    X(FC1_DW_STALE_SPARSITY_ONCE, "fc1_dw_stale_sparsity_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's backward-weights skips the input features that were +0 in every sample of step " \
      "6's batch (a zero-skipping kernel whose list of active features, ReLU sparsity, is the previous " \
      "step's): their dW columns stay +0", \
      "the skipped features are the weakly active ones (180 of 1568 were zero throughout step 6; at step 7 " \
      "84 of their inputs are nonzero, summing to 1.63 of the batch's 2268), yet x >= 0 after the ReLU and " \
      "max-pool, so each row's plain relation loses sum_n dy_nj (their x) with no cancellation over the " \
      "features: measured PROBLEM at step 7, fc1 backward-weights, 1106, 34 of 64 rows over; the parameters " \
      "after step 10 are 0.44 percent (rel. L2) from the unfaulted cpu's") \
    X(DROPOUT_MASK_STALE_ONCE, "dropout_mask_stale_once", "op", "drop1", "forward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, dropout's forward and backward both draw the mask of step 6 (a mask key advanced " \
      "after the draw, once): forward and backward agree with each other", \
      "every element is x / (1 - p) or 0 and the gradient follows the forward's own mask, so a rule " \
      "checking dropout against itself would pass; the re-check keys the mask on the audit's step: measured " \
      "PROBLEM at step 7, drop1 forward, 8419 elements not the exact re-computation; the parameters after " \
      "step 10 are 1.57 percent (rel. L2) from the unfaulted cpu's") \
    X(ADAM_LAST_TENSOR_SKIPPED_ONCE, "adam_last_tensor_skipped_once", "op", "fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, the update's loop over the model's tensors stops one short: the last tensor " \
      "(fc2.bias) keeps its p, m and v (an off-by-one in a multi-tensor apply)", \
      "the step's gradient is right and reported; the Adam re-check re-does every element from the " \
      "snapshot: measured PROBLEM at step 7, fc2 update, fc2.bias 10 elements differ (up to 0.0107); later " \
      "steps re-do Adam from the stale state the engine reported and agree (continuity holds: the digest is " \
      "of what the update reported); the parameters after step 10 are 0.027 percent (rel. L2) from the " \
      "unfaulted cpu's") \
    X(FC2_DB_PARTIAL_STALE_ROWS, "fc2_db_partial_stale_rows", "op", "fc2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "in a partial batch (steps 5 and 10: 8 of 16 images) fc2's bias gradient sums its output gradient " \
      "over the buffer's 16 rows, not the batch's 8: rows 8..15 still hold the last full batch's dz (a " \
      "reduction bounded by the capacity, not the batch)", \
      "each fc2 bias relation (db_j = the sum of dz over the batch's rows) moves by a half batch of another " \
      "step's dz: measured PROBLEM at step 5, fc2 backward-weights (bias), 1.31e6, 10 of 10 relations over " \
      "(the shadow replay at step 5 names fc2.bias.grad too); the parameters after step 10 are 0.021 " \
      "percent (rel. L2) from the unfaulted cpu's") \
    X(ADAM_M_BITFLIP_ONCE, "adam_m_bitflip_once", "state", "conv2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "between steps 7 and 8 (at step 8's first layer), Adam's m of conv2's weight of the largest |m| has " \
      "its top mantissa bit flipped (a single-bit upset in the optimizer state; m off by 25 to 50 percent)", \
      "step 8's update is right for the m it reads, so the Adam re-check from the step's snapshot agrees; " \
      "the snapshot's m digest is not the one step 7's update reported: measured PROBLEM at step 8, conv2 " \
      "update, 'continuity: conv2.weight Adam m' (the lowest bit, one ulp, measured the same); the " \
      "parameters after step 10 are 0.012 percent (rel. L2) from the unfaulted cpu's") \
    X(FC1_DW_TINY_TO_SUBNORMAL_ONCE, "fc1_dw_tiny_to_subnormal_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, every nonzero fc1 weight gradient below 2^-24 in magnitude is set to +-2^-24, its " \
      "sign kept (an fp16 conversion that rounds tiny values away from zero, to fp16's smallest subnormal, " \
      "instead of to the nearest; fault_k=K: below and to 2^-(K+8)): no element becomes 0", \
      "no element is 0 and the row sums move by less than their absolute tolerance: 2 elements changed " \
      "(their |g| sum to 5.9e-8, each now 6.0e-8; the largest |g| is 0.0114) left step 7's worst ratios " \
      "equal to the unfaulted run's, VERDICT ok, while the parameters after step 10 are 4.87e-3 percent " \
      "(rel. L2) from the unfaulted cpu's, 5x fc1_dw_tiny_flushed_once's effect: a blind spot until each " \
      "dense row's smallest nonzero |dW| is re-done with its zeros (ck_dense_zero_row): the changed elements " \
      "are then the smallest of their rows, off by far more than their own bound: measured PROBLEM at step " \
      "7, fc1 backward-weights (zero and smallest elements), 1.74e7, 2 of 64 rows; fault_k 12 (64 " \
      "elements): 2.94e8; 20: 1.13e5") \
    X(FC2_DW_TINY_FLUSHED_ONCE, "fc2_dw_tiny_flushed_once", "op", "fc2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, every nonzero fc2 weight gradient below 2^-16 in magnitude is flushed to +0 " \
      "(fault_k=K: below 2^-K; fc2's gradients are larger than fc1's: none of its 640 is below fc1's 2^-24 " \
      "here)", \
      "the zero-element relation re-does the flushed element's dot product: measured 1 element flushed " \
      "(9.7e-6; the largest |g| is 0.0666), PROBLEM at step 7, fc2 backward-weights, output 4: the plain " \
      "row relation (in = 64: a short row) 4.25, named first, and the zero-element relation 39750, 1 of 10 " \
      "rows; the parameters after step 10 are 1.64e-5 percent (rel. L2) from the unfaulted cpu's; " \
      "fault_k=12 (2^-12, 20 elements) PROBLEM 444, zero elements 1.04e6, 9 of 10 rows") \
    X(CONV2_DW_TINY_FLUSHED_ONCE, "conv2_dw_tiny_flushed_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, every nonzero conv2 weight gradient below 2^-18 in magnitude is flushed to +0 " \
      "(fault_k=K: below 2^-(K+2); K=12 is fp16's smallest normal 2^-14, an fp16 gradient path with " \
      "flush-to-zero)", \
      "the plain, signed and index-weighted sums of a filter (C k k = 144 elements of K = n OH OW terms " \
      "each) move by less than their tolerances: 134 of 4608 elements flushed (their |g| sum to 2.2e-4; the " \
      "largest |g| is 0.017) left step 7's sharper tier at 0.959, VERDICT ok, while the parameters after " \
      "step 10 are 0.121 percent (rel. L2) from the unfaulted cpu's (pair verdict 'ordering only'): a blind " \
      "spot until the conv zero-element relations (BWD_W_Z, ck_conv_zero_filter), each zero re-done over its " \
      "terms against its own bound gamma_(n OH OW) sum |dy x|: measured PROBLEM at step 7, conv2 " \
      "backward-weights (zero elements), 5296 (a flushed element whose terms do not cancel: the ratio's " \
      "ceiling 1 / (1.01 gamma_3136)), 31 of 32 filters over; fault_k 20 (below 2^-22): 10 of 32, the same " \
      "ratio; 24: nothing flushed (VERDICT ok)") \
    X(CONV2_DW_TRANSFORM_NOISE_ONCE, "conv2_dw_transform_noise_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, every element of every conv2 filter that has a gradient, zeros included, moved by up to " \
      "2^-(k+14) (2^-30 at fault_k=16) of the layer's largest |dW|, a fixed pseudo-random amount and sign: the " \
      "noise of an FFT backward-filter, whose error follows the layer's scale, not each element's terms (cuDNN " \
      "9.19's FFT on an H200 left ~1e-12 where every term is 0, in a filter that had a gradient)", \
      "every sum of a filter moves by ~1e-12 against tolerances ~1e-9: invisible to the plain, signed and " \
      "weighted relations; the elements whose every term is 0 (the taps of an input channel the ReLU left " \
      "dead) are no longer +-0, and no zero is left to judge: a blind spot until each filter's smallest " \
      "nonzero was re-done (when below 2^-14 of the filter's mean |dW|); measured PROBLEM at step 7, conv2 " \
      "backward-weights (zero and smallest elements), 3.59e11 (a nonzero with no term: over at any size, the " \
      "ratio is the tolerance's floor), 31 of 32 filters over") \
    X(FC1_DW_DEAD_FEATURES_STALE_ONCE, "fc1_dw_dead_features_stale_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's backward-weights skips the input features that are +0 in every sample of the " \
      "batch and does not write their dW columns: they keep the values step 6 left in the gradient buffer " \
      "(a zero-skipping kernel that relies on a memset it no longer does)", \
      "a nonzero where every term of the dot product is 0 is over the zero-element relation at any size, " \
      "and the stale columns add to every row sum: measured 143 dead features at step 7, 248 elements " \
      "changed (most of those columns were dead at step 6 too, so their stale value is 0), PROBLEM at step " \
      "7, fc1 backward-weights: the plain relation 305 (named first, 32 of 64 rows), the zero-element " \
      "relation 5.9e13 (33 of 64 rows); the parameters after step 10 are 0.121 percent (rel. L2) from the " \
      "unfaulted cpu's") \
    X(FC1_DW_ROWS_SAMPLE0_MASK_ONCE, "fc1_dw_rows_sample0_mask_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's backward-weights skips the output units it takes for ReLU-dead, deciding from " \
      "sample 0's output gradient alone: the rows j with dy[0][j] == 0 are left +0 although other samples' " \
      "dy are live", \
      "every element of a zeroed live row is a zero whose dot product has nonzero terms: measured 2683 " \
      "elements zeroed (2 rows), PROBLEM at step 7, fc1 backward-weights: 1.04e6 (the ratio's ceiling), 2 " \
      "of 64 rows, the plain and the zero-element relation alike (the sharper tier of the plain relation " \
      "5.8e6)") \
    X(FC1_DW_SMALL_X_SKIPPED_ONCE, "fc1_dw_small_x_skipped_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's backward-weights treats inputs with 0 < |x| < 2^-10 as zero (a " \
      "thresholded-sparsity kernel; fault_k=K: below 2^-(K-6)); backward-data reads no x, and the engine " \
      "reports its true x", \
      "x >= 0 after the ReLU and max-pool, so each row sum loses sum_n dy_nj x_ni with no cancellation, and " \
      "an element whose every nonzero input fell under the threshold becomes a 0 the zero-element relation " \
      "re-does: measured 57 of 25088 inputs dropped, PROBLEM at step 7, fc1 backward-weights: the plain " \
      "relation 14 (25 of 64 rows, named first), zero elements 1.04e6 (3 of 64 rows). fault_k=20 (below " \
      "2^-14: 6 inputs) is not seen: VERDICT ok, sharper tier 0.794 (fc1 backward-weights (index-weighted))") \
    X(CONV2_DW_TINY_TO_MIN_NORMAL_ONCE, "conv2_dw_tiny_to_min_normal_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, every nonzero conv2 weight gradient below 2^-18 in magnitude is set to +-2^-18, its sign kept (a flush that rounds up to the smallest normal instead of to 0; fault_k=K: 2^-(K+2))", \
      "no element becomes 0 and the lifted ones are no longer tiny: ck_conv_small re-does a filter's smallest nonzero only when it is below 2^-14 of the filter's mean |dW| (~1e-7 here), and after the fault every formerly tiny element is 2^-18 = 3.8e-6, above that gate; the plain, signed and index-weighted sums move by sum |d| = 3.0e-4 over 32 filters: measured 134 of 4608 elements changed (from ~5.8e-8 up to 3.8e-6: up to 63x their own value), VERDICT ok, step 7's sharper tier 0.984 (conv2 backward-weights, output channel 25), its worst case unmoved (0.111); yet Adam's scale-free step moves each such weight by ~lr: the parameters after step 10 are 0.101 percent (rel. L2 1.0e-3) from the unfaulted cpu's, ~4e4 x cpu's own distance from the reference (2.3e-8), which the pair verdict calls 'ordering only'. fault_k 17: ok, 0.074 percent; 14: SUSPECT x6.03 (index-weighted); 12: PROBLEM 1.91. This was a blind spot of a cost gate (a filter's smallest nonzero re-done only below 2^-14 of the filter's mean |dW|); since every filter's smallest nonzero is re-done whatever its size (ck_conv_small): PROBLEM at step 7, conv2 backward-weights (zero and smallest elements), 2.64e5, 29 of 32 filters (fault_k 20: 11558); the unfaulted run's worst stays 0.257") \
    X(CONV2_DW_FP16_ONCE, "conv2_dw_fp16_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's weight gradient is stored as fp16 (binary16, round to nearest even, subnormals kept) with no loss scaling: 2^-12 relative error on normal values, up to 2^-25 absolute (half a subnormal step) on values below 2^-14", \
      "measured 3701 of 4608 elements changed (up to 24.5 percent of their value; none flushed to 0): PROBLEM at step 7, conv2 backward-weights (zero and smallest elements), 1082, 2 of 32 filters: filter 25's smallest nonzero is below the 2^-14 gate and off by far more than its own bound; a filter whose smallest nonzero is above the gate is judged by its sums alone (conv2_dw_tiny_to_min_normal_once)") \
    X(FC1_DW_FP16_ONCE, "fc1_dw_fp16_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's weight gradient is stored as fp16 (binary16, round to nearest even, subnormals kept) with no loss scaling", \
      "measured 48067 of 100352 elements changed (up to 100 percent: one flushed to 0): PROBLEM at step 7, fc1 backward-weights, the plain relation 8.28 and the zero and smallest elements 1.04e6, 34 of 64 rows (a dense row's smallest nonzero is re-done with no gate)") \
    X(CONV2_DW_SMALL_X_SKIPPED_ONCE, "conv2_dw_small_x_skipped_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's backward-weights treats inputs with 0 < |x| < 2^-10 as zero (a thresholded-sparsity kernel; fault_k=K: below 2^-(K-6)); backward-data reads no x, and the engine reports its true x", \
      "measured 19 of 50176 inputs dropped (their sum 7.2e-3), 859 of 4608 dW elements changed by up to 112 percent of their value (max |d| 7.7e-7, sum 1.2e-4), none to 0: VERDICT ok, step 7's ratios those of the unfaulted run (0.111, sharper 0.0886): a filter's relations sum its 16 input channels and the change is signed (dy has both signs), far under a tolerance set by the whole filter's sum of |dy x|; the parameters after step 10 are rel. L2 1.1e-6 from the unfaulted cpu's (48x cpu's distance from the reference). fault_k 14 (81 inputs) and 12 (308): PROBLEM 5296, zero and smallest elements (an element whose every term was dropped became 0). Since every filter's smallest nonzero is re-done whatever its size (ck_conv_small; it was gated at 2^-14 of the mean): PROBLEM at step 7, conv2 backward-weights (zero and smallest elements), 1832 (filter 7, 1 of 32 over); relations per (filter, input channel) slice, whose tolerance follows that slice's own |dy x|, would see it too") \
    X(CONV1_DW_SMALL_DY_SKIPPED_ONCE, "conv1_dw_small_dy_skipped_once", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "at step 7 only, conv1's backward-weights treats output gradients with 0 < |dy| < 2^-8 of the batch's largest |dy| as zero (fault_k=K: 2^(8-K)); db is right", \
      "measured 422 of 200704 dy dropped, 103 of 144 dW elements changed by up to 50 percent of their value (max |d| 1.3e-5, the largest |dW| 0.043): SUSPECT at step 7, conv1 backward-weights (zero and smallest elements: its smallest nonzero re-done), output channel 13, x5.28 the sharper tier, 0.578 of the worst case (x3.85, 0.281, index-weighted, while the smallest was gated); fault_k 18 (2^-10: 112 dy dropped, dW off by up to 1.1 percent): VERDICT ok (sharper 0.301), the parameters after step 10 rel. L2 7.5e-8 from the unfaulted cpu's (3x cpu's distance from the reference)") \
    X(CONV2_DX_SMALL_DY_SKIPPED_ONCE, "conv2_dx_small_dy_skipped_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's backward-data skips output gradients with 0 < |dy| < 2^-8 of the batch's largest |dy| (a thresholded-sparsity kernel; fault_k=K: 2^(8-K)); dW and db are right", \
      "measured 23898 of 50176 input-gradient elements changed (up to 12.6x their value, max |d| 1.1e-6): PROBLEM at step 7, conv2 backward-data, the plain relation 3.3, position-weighted 4.68, 54 of 256 relations over; fault_k 18: SUSPECT x2.29 the sharper tier (0.464 of the worst case); 20 (dx off by up to 8.9 percent): VERDICT ok, the parameters after step 10 rel. L2 1.9e-8 from the unfaulted cpu's (below cpu's own distance from the reference)") \
    X(FC1_DW_PARTIAL_STALE_ROWS, "fc1_dw_partial_stale_rows", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "in a partial batch (steps 5 and 10: 8 of 16 images) fc1's backward-weights runs over the buffers' 16 rows, not the batch's 8: rows 8..15 still hold the last full batch's x and dy", \
      "rows 8..15 add another batch's dy x^T to every element: measured PROBLEM at step 5 (the first partial batch after a full one), fc1 backward-weights, the plain relation 7.1e11 and the zero and smallest elements 1.0e14 (columns of features dead in this batch hold nonzeros with no term), 34 of 64 rows; the shadow replay at step 5 names fc1.weight.grad too") \
    X(DROPOUT_MASK_EPOCH_STEP, "dropout_mask_epoch_step", "op", "drop1", "forward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "from the second epoch on, dropout's forward and backward key the mask on the step within the epoch (a counter reset at each epoch): epoch 2 redraws epoch 1's masks", \
      "forward and backward agree with each other, every element is x / (1 - p) or 0; the re-check keys the mask on the audit's step: measured PROBLEM at step 6 (the first step of epoch 2), drop1 forward, 8265 elements not the exact re-computation") \
    X(ADAM_SKIP_PARTIAL_BATCH, "adam_skip_partial_batch", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "the update after a partial batch (steps 5 and 10) is skipped: p, m and v are left as they were (a drop_last decision taken in the optimizer after the gradient was computed)", \
      "the reported gradient is right and continuity holds (the digests are of what the update reported); the Adam re-check re-does every element from the step's snapshot: measured PROBLEM at step 5, conv1 update, conv1.weight 123 elements differ (up to 5.5e-3; the other tensors as well), and the shadow replay at step 5 sees every weight (~1.2e6 x its bound)") \
    X(CONV2_FWD_PAD_REPLICATE_ONCE, "conv2_fwd_pad_replicate_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's forward pads its input by replicating the edge instead of with zeros (every border output gets w x for each tap outside the input, x the nearest edge value)", \
      "pool1's edge values are relu of conv1's bias on blank borders, not 0, so every border output moves by the sum of w x_edge over its outside taps: measured PROBLEM at step 7, conv2 forward, 3383 (row-alternating 4025, 511 of 512 relations over)") \
    X(FC1_DW_CLIP_VALUE_ONCE, "fc1_dw_clip_value_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's weight gradient is clipped element-wise to [-2^-7, 2^-7] (a silent clip_grad_value; fault_k=K: 2^(9-K))", \
      "measured 101 of 100352 elements clipped (the largest by 32 percent of its value, 3.6e-3): PROBLEM at step 7, fc1 backward-weights, the plain relation 6053, 4 of 64 rows over") \
    X(FC1_FWD_FEATURE_CROSSED_ONCE, "fc1_fwd_feature_crossed_once", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's forward reads one input feature (the one where samples 0 and 1 differ most) from sample 1 for sample 0 and from sample 0 for sample 1, for every output (a 2-sample register tile whose one remainder lane loads the rows exchanged)", \
      "each output's sum over the batch is unchanged (the two samples' errors cancel); each sample's sum over the outputs moves by d times column k of W summed: measured PROBLEM at step 7, fc1 forward (per sample), 4.02, samples 0 and 1 (sharper tier 48.9)") \
    X(CONV2_FWD_HALVES_SWAP_ONCE, "conv2_fwd_halves_swap_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in conv2's output plane of sample 0, channel 0, the 4-lane group (4-aligned columns of its row) of the largest value among the columns that fill whole groups (0..11 of 14) has its two halves exchanged, (a, b, c, d) -> (c, d, a, b) (a 128-bit shuffle with the wrong immediate): values move between 2x2 pooling windows", \
      "the error (c - a, d - b, a - c, b - d) leaves the plain, row-alternating and column-alternating relations exactly as they were; the position-weighted one moves by 2 [(d - b) - (c - a)], a second difference along the row: measured 4 outputs off by up to 0.056 (29 percent of their value), PROBLEM at step 7, conv2 forward (position-weighted), 1.81 (sharper tier 9.62), a thin margin: where the row is locally linear the second difference is 0 and nothing moves (conv1_fwd_halves_antisym_once)") \
    X(CONV2_FWD_HALVES_SWAP_EVERY_PLANE_ONCE, "conv2_fwd_halves_swap_every_plane_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in every conv2 output plane (all samples and channels) the 4-lane group at row 6, columns 4..7 has its halves exchanged, (a, b, c, d) -> (c, d, a, b): one vector store with the wrong shuffle immediate at a fixed offset", \
      "as conv2_fwd_halves_swap_once in 512 planes: each plane's position-weighted relation moves by its own second difference: measured 2048 outputs changed (up to 0.217), PROBLEM at step 7, conv2 forward (position-weighted), 4.06, 185 of 512 planes over") \
    X(CONV2_DX_HALVES_SWAP_ONCE, "conv2_dx_halves_swap_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's input gradient (pool1.dact) of sample 0: in the plane of its largest |dx| where pool1's output is > 0, the 4-lane group of that element has its halves exchanged, (a, b, c, d) -> (c, d, a, b)", \
      "as conv2_fwd_halves_swap_once for the backward-data relations: only the position-weighted one moves, by a second difference, large at the plane's largest |dx|: measured 4 elements changed (up to 3.7x their value, 5.8e-4), PROBLEM at step 7, conv2 backward-data (position-weighted), 7.02, 1 of 256 relations over") \
    X(CONV1_FWD_HALVES_ANTISYM_ONCE, "conv1_fwd_halves_antisym_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in conv1's output plane of sample 0, channel 0, the 4-lane group (4-aligned columns of its row) of the plane's largest value gets +e, +e, -e, -e, e = 2^-4 of that value (fault_k=K: 2^(12-K)): a correction term of the group applied with opposite signs to its two halves", \
      "(+e, +e, -e, -e) along 4 consecutive outputs of a row (or a column), at any offset, is in the null space of every conv forward relation exactly: the plain sum, the row-alternating one (one row), the column-alternating one (+ - + - against + + - -) and the position-weighted one ((p+1) - (p+2) - (p+3) + (p+4) = 0); the fused relu1+pool1 re-check re-does pool(relu(y)) from the y it is given: measured e = 0.031 (2^-4 of the largest value, 0.502, ~1e5 x a K = 10 output's own bound), VERDICT ok, step 7's ratios those of the unfaulted run (0.111, sharper 0.0886); fault_k 12 (e = 0.502, up to 3.8x the elements' values): VERDICT ok; the parameters after step 10 are rel. L2 1.5e-5 (fault_k 12: 2.9e-4) from the unfaulted cpu's, 640x (1.3e4x) cpu's distance from the reference. Any fixed set of weights has such a null space (a pair-alternating (-1)^(j/2) relation sees this one only at even offsets): those measurements were before the random-weight relations (FWD_RND: each output weighted by a[row] b[column], drawn per stage), which see it: PROBLEM at step 7, conv1 forward (random-weighted), 48.2, sample/output channel 0 (against the plain relation's tolerance)") \
    X(CONV2_DX_HALVES_ANTISYM_ONCE, "conv2_dx_halves_antisym_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's input gradient (pool1.dact) of sample 0: in the plane of its largest |dx| (among columns 0..11) where pool1's output is > 0, the 4-lane group of that element gets +e, +e, -e, -e, e = 2^-4 of that |dx| (fault_k=K: 2^(12-K))", \
      "the same null space for the backward-data relations (plain, position-weighted, row- and column-alternating over dx); the fused relu1+pool1 backward re-check routes what it is given: measured e = 2.6e-5 (2^-4 of the element's 4.2e-4; up to 1.3x the changed elements' values), VERDICT ok, step 7's ratios those of the unfaulted run; fault_k 12 (e = 4.2e-4, up to 21x): VERDICT ok; the parameters after step 10 are rel. L2 9.8e-7 from the unfaulted cpu's (42x cpu's distance from the reference); measured before the random-weight relations; with them (BWD_DATA_RND): PROBLEM at step 7, conv2 backward-data (random-weighted), 37.0, sample/input channel 8") \
    X(FC1_FWD_TILE_ANTISYM_ONCE, "fc1_fwd_tile_antisym_once", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's 2 x 2 output tile (samples 0 and 1; outputs j0 and j0 + 1, the even-aligned pair of sample 0's largest output) gets +e on its diagonal and -e off it, e = 2^-4 of that output (fault_k=K: 2^(12-K)): a register tile's correction term with the wrong sign pattern", \
      "the dense forward relations are the row and the column sums of the n x out error matrix (per output over the batch, per sample over the outputs): a 2 x 2 rectangle +e -e / -e +e has both 0, and relu3's re-check takes fc1's output as given: measured e = 0.050 (2^-4 of 0.801; up to 99 percent of a changed element's value), VERDICT ok, step 7's ratios those of the unfaulted run (0.111, sharper 0.0886); fault_k 12 (e = 0.801, up to 15.9x): VERDICT ok; the parameters after step 10 are rel. L2 2.3e-5 from the unfaulted cpu's (1000x cpu's distance from the reference). Measured before the random-weight relations; a dense layer's FWD_RND (per sample, the outputs weighted by random s_j: sum_j s_j y_nj = x_n . (W^T s) + s . b, one matrix-vector product a stage) sees it: PROBLEM at step 7, fc1 forward (random-weighted), 2.09, samples 0 and 1 (sharper tier 21.9; a thin margin: the pair's two weights of one draw were nearly equal, 0.76 with that draw alone)") \
    X(FC1_DX_TILE_ANTISYM_ONCE, "fc1_dx_tile_antisym_once", "op", "fc1|flatten|pool2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, fc1's input gradient: the 2 x 2 tile (samples 0 and 1; features k0 and k0 + 1, the even-aligned pair, positive in both samples' fc1 input, of sample 0's largest such |dx|) gets +e on its diagonal and -e off it, e = 2^-4 of that |dx| (fault_k=K: 2^(12-K))", \
      "the dense backward-data relations are the column and the row sums of the n x in error matrix (per input feature over the batch, per sample over the features): a 2 x 2 rectangle has both 0; flatten's and the fused relu2+pool2's re-checks route what they are given: measured e = 5.1e-5 on elements of -1.4e-4, -8.2e-4, -9.5e-5 and 6.4e-5 (up to 80 percent of an element's value), VERDICT ok, step 7's ratios those of the unfaulted run; fault_k 12 (e = 8.2e-4, up to 12.7x): VERDICT ok; the parameters after step 10 are rel. L2 2.4e-6 (fault_k 12: 3.9e-5) from the unfaulted cpu's, 100x (1700x) cpu's distance from the reference; measured before the random-weight relations; with BWD_DATA_RND (per sample, sum_k t_k dx_nk = dy_n . (W t)): PROBLEM at step 7, fc1 backward-data (random-weighted), 11.3, samples 0 and 1 (sharper tier 104)") \
    X(EVAL_FC2_TILE_ANTISYM, "eval_fc2_tile_antisym", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "in the first evaluation's first batch only, fc2's logits of samples 0 and 1 at classes c0 (sample 0's largest) and c1 (its second largest) get -e, +e and +e, -e, e = twice the gap z0[c0] - z0[c1] (fault_k=K: 2^(17-K) x the gap): sample 0's prediction moves from c0 to c1", \
      "an evaluation batch is judged by its forward relations only (no loss, no reference before the last epoch's); fc2's per-output and per-sample relations are the column and row sums of the error, 0 for the rectangle: measured e = 0.112 on logits 0.250, 0.194 (sample 0: class 0 -> class 2) and 0.415, 0.263 (sample 1), up to 58 percent of a logit: VERDICT ok, every evaluation relation at the unfaulted run's value; accuracy is the same here only because neither class is the image's label (6.25 percent both); training is untouched (the parameters bitwise equal to the unfaulted cpu's). Measured before the random-weight relations, which evaluation batches carry too: PROBLEM at the evaluation after epoch 1, fc2 forward (random-weighted), 13233, samples 0 and 1") \
    X(CONV1_FWD_POOLMAX_FP16_ONCE, "conv1_fwd_poolmax_fp16_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in every conv1 output plane (all samples and channels) each 2x2 pooling window's largest value (> 0: the one pool1 passes on) is written back rounded to fp16 (binary16, to nearest even): a fused conv + ReLU + max-pool epilogue that keeps its running maximum in half precision", \
      "many elements each a little wrong: measured 22507 of 200704 outputs changed, up to 5.8e-4 of their value, median 137x (p90 430x, max 804x) their own worst-case bound gamma_10 sum |w x| (K = 10: the tiers coincide); the pool re-check is exact and passes (pool1 is computed from the written values). PROBLEM at step 7, conv1 forward, ratio 73.2 (124 of 256 relations over; sharper tier 240, row-alternating)") \
    X(CONV1_FWD_LANE0_BIT_ONCE, "conv1_fwd_lane0_bit_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, every 16th float of conv1's output (lane 0 of each 16-float vector of the plain NCHW tensor: 49 of each 784-element plane) has mantissa bit 25 - K flipped (fault_k=K; bit 9 at the default 16: 2^-14 of the significand): a flaky bit in one lane of a store", \
      "5 percent of a layer's outputs each slightly wrong, signs mixed: measured 12544 of 200704 changed, up to 6.1e-5 of their value, median 52.8x (max 102x) their own worst-case bound; the plane sums move by the square root of the count. PROBLEM at step 7, conv1 forward (column-alternating), 3.73 (sharper tier 12.6). Swept: K=18 (bit 7; median 13.2x, max 25.6x) SUSPECT x3.14; K=19 (bit 6) SUSPECT x1.52; K=20 (bit 5; median 3.3x, max 6.4x) VERDICT ok (sharper tier 0.74)") \
    X(CONV2_FWD_PLANE_MAX_TF32_ONCE, "conv2_fwd_plane_max_tf32_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in every conv2 output plane (all samples and channels) the plane's largest value (> 0) is written back rounded to K - 6 mantissa bits, to nearest even (fault_k=K: 10 bits, TF32, at the default 16): an amax-tracking epilogue (per-channel scaling statistics) that writes its maximum back through a TF32 register", \
      "one element per relation: measured 492 of 512 planes changed, up to 4.6e-4 of the value, median 4.4x (p90 12.4x, max 27.8x) its own worst-case bound (max 335x u sqrt(K) sum |w x|); each plane's relations see one error against a tolerance summed over 196 outputs: SUSPECT at step 7, conv2 forward (position-weighted), x1.04 the sharper tier, 0.18 of the worst case. K=17 (11 bits; median 2.0x, max 10.8x) VERDICT ok (sharper tier 0.52). Since the output-element check (FWD_PEEK: each plane's first, last, largest and a drawn output re-done in double): PROBLEM at step 7, conv2 forward (first, last, largest and sampled outputs), 27.5 (410 of 512 planes over)") \
    X(FC1_FWD_UNIT_SCALED_LATE, "fc1_fwd_unit_scaled_late", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "from training step 3 on (and in every evaluation after it), fc1's output unit 0 is scaled by 1 + 2^(4-K) in every sample (fault_k=K: 2^-12 at the default 16): a per-channel scale of a fused epilogue with one entry off, past the attribution steps", \
      "every step but small: measured 2.4e-4 of the value, 0.42-0.71 of its own worst-case bound (K = 1569: gamma_K sum |w x| is loose), 18-28x u sqrt(K) sum |w x|; only the per-output relation (16 elements of one sign) sees it, the per-sample and random-weighted ones stay at 0.18-0.21 of the sharper tier: SUSPECT at step 9, fc1 forward, x4.78 the sharper tier (0.74 of the worst case; 16 steps over), and SUSPECT at the shadow replays, fc1.act consistent with reduced precision (x3.71). K=18 (2^-14) SUSPECT x1.2; K=19 (2^-15, 8x the p99 rounding of fc1.act vs the reference) VERDICT ok (0.60). A check that would see it: the per-output relation's residual sign accumulated across steps (a persistent scale pushes the same unit the same way every step)") \
    X(CONV2_DX_BORDER_BF16_ONCE, "conv2_dx_border_bf16_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2's input gradient (pool1.dact) at the border of every plane (first and last row and column: 52 of 196 elements) is computed with the weights rounded to bf16 (a separate border kernel reading a bf16 weight copy); the interior, dW and db are right", \
      "an error in the border only: measured 13312 elements, mean 19x (max 96.5x) their own worst-case bound gamma_288 sum |w dy|: PROBLEM at step 7, conv2 backward-data, 2.35 (position-weighted 2.86, sharper tier 11.4)") \
    X(CONV1_DW_AVG3_BF16_LATE, "conv1_dw_avg3_bf16_late", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "from step 3 on, conv1's weight gradient is multiplied by 3 fl_bf16(1/3) = 1 + 2^-9 (a data-parallel average over 3 replicas with the factor 1/3 held in bf16); db is right", \
      "a scale on a long reduction (K = n 784): well inside each element's worst-case bound, but every filter's smallest nonzero element re-done in double sees it: PROBLEM at step 3, conv1 backward-weights, 1.08 (the zero and smallest-element relation 2.58, sharper tier 23.6), and at the shadow replay (step 5) 5.22x the per-element bound") \
    X(CONV1_FWD_PEEL_BIAS_FP16_ONCE, "conv1_fwd_peel_bias_fp16_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, the first element (0, 0) of every conv1 output plane (all samples and channels; a vector loop's peeled first iteration) adds its channel's bias from an fp16 copy: y - b + fp16(b)", \
      "one element per relation, where the image is mostly blank (y = b, no rounding at all): measured 256 elements, up to 3.2e-4 of the value, median 248x (max 529x) their own worst-case bound: SUSPECT at step 7, conv1 forward (random-weighted), x1.88 the sharper tier, 0.75 of the worst case (plain relation x1.57). Measured before the blank-window check (FWD_BLANK), which sees it exactly: PROBLEM at step 7, conv1 forward, 256 outputs of all-zero windows not exactly the bias (up to 8.43e-5 off)") \
    X(CONV1_FWD_BLANK_NOISE_ONCE, "conv1_fwd_blank_noise_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, every conv1 output whose 3x3 window of the image is all zero (y = b exactly) is moved by up to 2^-(K+4) (fault_k=K: 2^-20 at the default 16) of the layer's largest |y|, a fixed pseudo-random amount in (0, 1] and sign per element: the transform noise of an FFT or Winograd forward, which follows the scale where a direct convolution is exact", \
      "noise where the exact result has no rounding (the forward twin of conv2_dw_transform_noise_once, which the backward-weights zero-element re-check sees; the forward has no such re-check): measured 70416 of 200704 outputs changed, up to 2.9e-5 of the value, median 5.4x (p90 14.5x, max 48.7x) their own worst-case bound gamma_10 |b| and infinitely more than their true error 0: VERDICT ok, worst at step 7 conv1 forward (random-weighted) x0.88 the sharper tier. K=15 (median 10.8x, max 97x) SUSPECT x1.76; K=14 PROBLEM 1.88. Those were measured before the blank-window check (FWD_BLANK: an output whose window is +-0 in every input channel must be exactly b), which sees it at any size: PROBLEM at step 7, conv1 forward, 70416 outputs of all-zero windows not exactly the bias (up to 1.28e-6 off)") \
    X(FC1_DW_PEEL_DY_FP16_ONCE, "fc1_dw_peel_dy_fp16_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, the first input feature's column of fc1's weight gradient (every row; a K-loop's peeled first iteration) is computed from the output gradient rounded to fp16 (binary16, to nearest even): dW[j][0] = sum_s fp16(dy[s][j]) x[s][0]", \
      "one element per row of a 1568-element relation: measured 34 rows with a nonzero term, median 45.6x (max 170x) their own worst-case bound gamma_16 sum |dy x| (K = 16: the tiers coincide), up to 3.3e-4 of the value: SUSPECT at step 7, fc1 backward-weights, x1.21 the sharper tier, 0.22 of the worst case (feature 0 has the smallest index weight, so the index-weighted relation sees it least: the same fault in the last column, weight 1568, read x2.27); measured before BWD_W_PEEK, which re-does every row's first and last element and two drawn per step: PROBLEM at step 7, fc1 backward-weights (first, last and sampled elements), 169, 34 of 64 rows over") \
    X(CONV2_DX_PEEL_BF16_ONCE, "conv2_dx_peel_bf16_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, the first element (0, 0) of every plane of conv2's input gradient (pool1.dact; a peeled first iteration) is computed with the weights rounded to bf16; the other elements, dW and db are right", \
      "one element per relation: measured 256 elements, mean 23x (max 95x) their own worst-case bound gamma_288 sum |w dy|: SUSPECT at step 7, conv2 backward-data, x1.5 the sharper tier, 0.30 of the worst case (conv2_dx_border_bf16_once, the same error on 52 elements per plane, is a PROBLEM). Since the output-element check (BWD_DATA_PEEK re-does each plane's first element): PROBLEM at step 7, 93.8 (252 of 256 planes over)") \
    X(CONV1_FWD_PLANE_MAX_PACKED_ONCE, "conv1_fwd_plane_max_packed_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, in every conv1 output plane (all samples and channels) the plane's largest value (> 0) is written back from a packed (value, index) word that keeps the position in its low mantissa bits, those bits cleared: truncated toward zero to 13 explicit mantissa bits (10 index bits for 784 positions)", \
      "one element per relation, on the element the pool passes on: measured 207 of 256 planes changed, up to 1.15e-4 of the value, median 34.7x (p90 86.8x, max 139x) its own worst-case bound (K = 10: the tiers coincide): SUSPECT at step 7, conv1 forward, x1.24 the sharper tier, 0.44 of the worst case. Rounding the same element to 11 or 10 mantissa bits instead: SUSPECT x2.77 and PROBLEM 1.8. Since the output-element check (FWD_PEEK re-does each plane's largest output): PROBLEM at step 7, 137 (196 of 256 planes over)") \
    X(CONV2_DW_PEEL_BF16_ONCE, "conv2_dw_peel_bf16_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, the first element of every filter of conv2's weight gradient (input channel 0, tap (0, 0): a peeled first iteration of the backward-weights kernel) is stored rounded to bf16 (to nearest even); the other 143 elements of each filter and db are right", \
      "one element per filter, beyond its own worst-case bound: measured 30 of 32 elements changed, up to 3.1e-3 of their value (median 1.5e-3), median 1.13x (max 7.77x; 16 of 30 over 1) their own worst-case bound gamma_K sum |dy x| (K = n 196 = 3136) and median 6.7x (max 45.8x) u sqrt(K) 9.5 sum |dy x| (the per-element sharper tier): VERDICT ok; at step 7 the plain conv2 backward-weights relation reads 0.0094 of its worst case and 0.18 of the sharper tier (0.0010 unfaulted), the index-weighted one is unmoved (the tap's index weight is 1 of up to 144), and the element is not its filter's smallest, so the smallest-element re-check does not re-do it. A filter's relation sums 144 elements' bounds: one element is seen only from about 144 x 0.032 = 4.6x its own bound, more where its sum |dy x| is below the filter's mean (input channel 0 here). That was before BWD_W_PEEK, which re-does in double every filter's first and last element (the peel and remainder iterations) and two drawn per step, as the smallest one is: PROBLEM at step 7, conv2 backward-weights (first, last and sampled elements), 7.69, 16 of 32 filters over") \
    X(CONV2_DW_IC0_BF16_ONCE, "conv2_dw_ic0_bf16_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, the 3x3 slice of input channel 0 in every filter of conv2's weight gradient (9 of each filter's 144 elements: a separate first tile) is stored rounded to bf16 (to nearest even)", \
      "measured 275 of 288 elements changed, up to 3.5e-3 of their value, median 1.57x (max 15.9x; 170 over 1) their own worst-case bound gamma_K sum |dy x| (K = 3136), median 9.3x (max 94x) the per-element sharper tier: PROBLEM at step 7, conv2 backward-weights (zero and smallest elements), 2.04 (output channel 7: its smallest nonzero element lies in the slice), the plain relation x1.01 the sharper tier. Luck of where each filter's smallest element lies: with one element per filter (conv2_dw_peel_bf16_once) nothing sees it") \
    X(CONV1_DW_PEEL_BF16_ONCE, "conv1_dw_peel_bf16_once", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "at step 7 only, the first element of every filter of conv1's weight gradient (tap (0, 0)) is stored rounded to bf16 (to nearest even)", \
      "one element of 9 per filter: measured 14 of 16 changed, up to 3.0e-3 of their value, median 0.21x (max 0.56x) their own worst-case bound (K = n 784 = 12544: the worst case is loose), median 2.5x (max 6.6x) the per-element sharper tier: SUSPECT at step 7, conv1 backward-weights (zero and smallest elements), x3.69 the sharper tier (filter 1: the tap is its smallest element), the plain relation x2.50. conv1's filters have 9 elements, so its relations are 16 times tighter per element than conv2's 144 (conv2_dw_peel_bf16_once: VERDICT ok at 7.8x the worst case before BWD_W_PEEK). With BWD_W_PEEK re-doing each filter's first element: SUSPECT x5.05, 0.552 of the worst case: the errors are within their own worst case, as the tier says") \
    X(CONV2_FWD_CHANNEL_SCALED_LATE, "conv2_fwd_channel_scaled_late", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "from training step 3 on (and in every evaluation after it), conv2's output channel 0 is scaled by 1 + 2^(4-K) in every sample (fault_k=K: 2^-12 at the default 16): the conv twin of fc1_fwd_unit_scaled_late, a per-channel scale of a fused epilogue with one entry off", \
      "a value-proportional error on one whole channel: 2.4e-4 of every value of the channel, at most 28x its own worst-case bound gamma_145 sum |w x| (|y| <= sum |w x|); the 196 errors of a plane share the sign of the values, so the plain relation sums them: PROBLEM at step 3, conv2 forward, 8.14 (16 of 512 relations over at the worst step, sharper tier 70.2), and at the shadow replay 20.4x the per-element bound. Unlike fc1's one unit (16 elements per relation: SUSPECT), a conv channel is seen down to K=20 (2^-16: PROBLEM at the shadow replay, 1.28x the per-element bound; every-step sharper tier x4.39)") \
    X(FC1_FWD_TF32_ONCE, "fc1_fwd_tf32_once", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "at step 7 only, fc1 forward multiplies its weights and its inputs both rounded to TF32 (10-bit mantissa, to nearest; a matmul with allow_tf32 on), products summed exactly", \
      "each output off by median 0.078 (max 0.39) of its own worst-case bound gamma_1569 sum |w x| (K = 1569: the worst case is loose) but median 123 (max 619) u sum |w x|, 589x the clean cpu's actual error (median 1.3e-5 vs 2.2e-8), i.e. 3-15x u sqrt(K) sum |w x|: VERDICT ok; step 7's fc1 forward per-output relation (16 samples, random-signed errors) 0.145 of the worst case, 0.869 of the sharper tier, per-sample 0.33, random-weighted 0.27 of it (a blind spot until the dense output-element check). Within each element's worst case, so no PROBLEM is owed. Since FWD_DPEEK re-does four outputs of each sample against their own bound: SUSPECT at step 7, fc1 forward (first, last, largest and sampled outputs of each sample), sample 2, x1.2 the sharper tier, 0.37 of the worst case (the clean run's worst 0.257): a SUSPECT with little margin, as the per-element sizes say. Before it, seeds 43, 44, 45: SUSPECT x1.29, x1.34, x1.03 (per-output relation)") \
    X(EVAL_FC1_X_BF16, "eval_fc1_x_bf16", "op", "fc1", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "in every evaluation, fc1 forward reads its input rounded to bf16 (an inference autocast path; weights fp32)", \
      "bf16 inputs (2^-9 relative each) give each output an error of median 0.46, p90 1.14, max 2.8 of its own worst-case bound gamma_1569 sum |w x| (simulated from step 7's tensors): about one output in ten is over its own bound, yet each relation sums 16 (per output) or 64 (per sample) outputs of random sign: measured SUSPECT at the evaluation after epoch 2, fc1 forward (random-weighted), sample 4, x3.85 the sharper tier, 0.36 of the worst case (per-output 0.57); the reference's logits at epoch 2 0.156 of their propagated bound: a SUSPECT until the dense output-element check (FWD_DPEEK: each sample's first, last, largest and a drawn fc1 output re-done in double against its own bound): PROBLEM at the evaluation after epoch 1, fc1 evaluation, 1.83 (2.18 after epoch 2, 7 of 16 samples over)") \
    X(CONV1_DW_LAST_ROW_SKIPPED_ONCE, "conv1_dw_last_row_skipped_once", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv1 backward-weights stops its output-row loop one short (oh < OH - 1): the terms of every plane's last output row are missing; db is right", \
      "the last row's terms are a few percent of a filter's and dy there is seldom 0 (pool1 ties go to the window's first row, yet images reach the bottom row): measured PROBLEM at step 7, conv1 backward-weights (zero and smallest elements), output channel 5, 251, 5 of 16 filters over (sharper tier 2296)") \
    X(CONV2_FWD_INTERIOR_BITFLIP_ONCE, "conv2_fwd_interior_bitflip_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "at step 7 only, one interior conv2 output (sample 5, channel 11, row 9, column 6) has mantissa bit 14 flipped (2^-9 of its significand: a single-bit upset)", \
      "the element (0.010802 -> 0.010787, rank 173 of 196 in its plane, so no pool maximum by size) is off by 1.5e-5: 2.37x its own worst-case bound gamma_145 sum |w x| (sum |w x| = 0.743: much cancellation), 344 u sum |w x|, 596x its clean actual error; the plane's relations sum 196 outputs' bounds (gamma_145 x 136 = 1.18e-3), 77x the error: VERDICT ok, step 7's worst ratios those of the unfaulted run; plane 171's position-weighted relation 0.0175 of the worst case (0.0896 of the sharper tier), plain 0.0121, row/column-alternating 0.013, random-weighted 0.0063. FWD_PEEK re-does 4 of 196 outputs per plane (first, last, largest, one drawn): 1 in 49 to draw it. Only a flip of the top 2-3 mantissa bits (or the exponent) of this element would reach the plane's tolerance. The flip's size follows the element's exponent: seed 43 SUSPECT, conv2 forward, plane 171, x2.11 the sharper tier; 44 and 45 VERDICT ok (sharper tier 0.31, 0.66)") \
    X(CONV2_FWD_BACKGROUND_BITFLIP_ONCE, "conv2_fwd_background_bitflip_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, one conv2 output of sample 5, channel 11, whose window (every input channel) equals an earlier output's in its plane and is not all zero (the first such after the plane's first row: a background's) has mantissa bit 14 flipped, as conv2_fwd_interior_bitflip_once does to an interior one", \
      "the background windows of conv2's input (a ReLU'd conv1 bias over conv1's blank windows) are identical, so their outputs are the same dot product: the identical-windows check (FWD_BLANK's fourth field) holds each to its group's first within 2 gamma_145 S_g; the plane's relations sum 196 outputs' bounds, as for the interior flip (the blind spot). Measured: PROBLEM at step 7, conv2 forward (outputs of identical windows), sample 5, 22.6x; the relations alone: the faulted plane's row-alternating one at x1.01 the sharper tier (SUSPECT)") \
    X(CONV2_FWD_WINO2_M22_BF16_ONCE, "conv2_fwd_wino2_m22_bf16_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, conv2 forward as a Winograd F(2x2, 3x3) whose transform-domain product M[2][2] is held in bf16: every 2x2 output tile gets the checkerboard (+e, -e; -e, +e), e = bf16(M22) - M22", \
      "each 2x2 tile's checkerboard keeps the plain, row- and column-alternating relations; every plane's peeked outputs carry their tile's e: measured PROBLEM at step 7, conv2 forward (first, last, largest and sampled outputs), 49.6, 387 of 512 planes over") \
    X(FC1_DB_STALE_ONCE, "fc1_db_stale_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 8 only, fc1's bias gradient is step 7's (a double buffer not swapped once); dW is right", \
      "the bias relation db_j = sum_n dy_nj is checked every step: measured PROBLEM at step 8, fc1 backward-weights (bias), 5.93e13, 34 of 64 relations over") \
    X(ADAM_TWICE_CONV1_BIAS_ONCE, "adam_twice_conv1_bias_once", "op", "conv1", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 8 only, Adam is applied twice to conv1.bias (p, m, v updated twice with the same gradient: a tensor listed twice in a multi-tensor apply)", \
      "the Adam re-check re-does every element from the step's snapshot, bit for bit: measured PROBLEM at step 8, conv1 update, conv1.bias 14 elements differ (up to 3.04e-3)") \
    X(EVAL_CONV2_BLOCK1_BF16, "eval_conv2_block1_bf16", "op", "conv2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "in every evaluation, conv2's outputs of channels 16..31 (the second block of 16) are stored rounded to bf16 (a mixed-precision inference epilogue on one channel block)", \
      "FWD_PEEK re-does each plane's first, last, largest and a drawn output in evaluation too: measured PROBLEM at the evaluation after epoch 1, conv2 forward (first, last, largest and sampled outputs), 229 (243 after epoch 2, 256 of 512 planes over)") \
    X(CONV2_DW_IC8_PEEL_BF16_ONCE, "conv2_dw_ic8_peel_bf16_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "at step 7 only, element 72 of every filter of conv2's weight gradient (input channel 8, tap (0, 0): the peeled first iteration of the second half of a backward-weights kernel split over input channels in two) is stored rounded to bf16 (to nearest even)", \
      "one element of 144 per filter, not the first or last that BWD_W_PEEK always re-does: 29 of 32 changed, median 0.80x (max 10.1x; 13 over 1) their own bound gamma_3136 sum |dy x|; each filter's sums move by at most 0.031 of the worst case (0.65 of the sharper tier): seen only when a drawn element (2 of 144 per filter) or the filter's smallest lands on it. Measured over seeds 42-48: PROBLEM at 42 (drawn, filter 16, 3.3), 43 (smallest element, 10.4), 46 (drawn, 7.1); SUSPECT at 47 (x1.34), 48 (x9.17); VERDICT ok at 44, 45 (sharper tier 0.62, 0.49): a coin flip, not a check") \
    X(ADAM_STATE_RESTORE_DROPPED, "adam_state_restore_dropped", "state", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "set_tensor(ADAM_M) and set_tensor(ADAM_V) are accepted and dropped: the engine keeps its own moments (a restore that loads the weights and leaves the optimizer state, or a reset that is a no-op); PARAMS and GRADS are set", \
      "no rule of a step sees it (the Adam re-check re-does the update from the moments the engine reports, and they are the ones it uses); what sees it is continuity from the state the audit set: the drift phase's restart (set_initial: engine_set_params, M and V zeroed) seeds the chain with the digests of what it set (every_step_seed_chain), so drift step 1 computing with the attribution phase's moments is a PROBLEM there: step 1, conv1, 'continuity: conv1.weight Adam m this step computed with are not those the audit set' (inf), with or without the state round trip. Found by zoo attack 4, when that restart broke the chain instead and only the round trip's dropped set-back (step 2) showed it; with --no-roundtrip it was VERDICT ok") \
    X(PARAMS_RESTORE_LAST_TENSOR_SKIPPED, "params_restore_last_tensor_skipped", "state", "fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "once the engine has taken a step, set_tensor(PARAMS) restores every model tensor but the last (fc2.bias keeps the value it trained to: a per-tensor restore loop that stops one short; the first load, before any step, copies the whole buffer)", \
      "as adam_state_restore_dropped: the drift phase would start with fc2.bias at its attribution-trained value; the chain seeded with what set_initial set makes it a PROBLEM at step 1, fc2, 'continuity: fc2.bias values ... not those the audit set' (inf), with or without the round trip (before the seeding: only the round trip's dropped set-back at step 2 saw it; --no-roundtrip VERDICT ok, worst ratio 0.299)") \
    X(SOFTMAX_NO_MAX_SUB, "softmax_no_max_sub", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "softmax cross-entropy without subtracting the row's maximum: e_j = exp(z_j), loss = log(sum e) - z_y (every step; the classic overflow bug, here at logits far below 88)", \
      "a latent bug at this run's logits: early in training |z| < ~1 (loss ~2.3, p ~0.1), so exp(z_j) unshifted is as accurate as exp(z_j - max) and the loss and dz stay within the clean run's own rounding: measured VERDICT ok, the bounded loss and dz compares at steps 1, 2, 5, 10 at 0.009-0.033 and 0.13-0.15 of their bounds (clean: 0.013-0.064 and 0.11-0.15); a wrong value only once the logits grow (exp overflows to inf past z = 88, which every check sees)") \
    X(SOFTMAX_LAST_CLASS_COMPLEMENT, "softmax_last_class_complement", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "the loss gradient of the last class (class 9, the tail lane of 8 + 2) takes p_9 = 1 - (p_0 + ... + p_8) instead of e_9 / s (every step; the loss itself is right)", \
      "p_9 = 1 - sum carries ~u absolute from the sum, ~17 ulps of p_9 ~ 0.1, against dz's per-element bound of ~15u relative: measured PROBLEM at step 1 (drift), fc2 loss, 'loss gradient dz re-done from the logits' 1.18 (worst 1.42; the bounded compares 1.06-1.18 at steps 1, 2, 5, 10): a thin margin that grows as p_9 shrinks with training. Thinner since bounds_loss carries PyTorch's log_softmax orders (the legal-variant attack: p_j's bound gained 3u log s + u max(a_j, |lse|) in place of u): measured PROBLEM at step 8, 1.09 (the only stage over; per element at steps 1, 2, 5, 10 now 0.92 at most). BLIND (not closed), declared "\
      "2026-12-06 at the bound's edge: on a 2-core AMD EPYC with AVX2 only (conv1's backward-weights then sums "\
      "in oneDNN's AVX2 JIT order, so the trajectory differs from step 2 on) measured VERDICT ok, exit 0, worst "\
      "every-step ratio 0.973 (loss gradient dz re-done from the logits): ~17 ulps of p_9 against a bound "\
      "of ~15-18: flagged on one trajectory, not on another; a sharper dz rule would close it") \
    X(FC2_DB_ACCUMULATES, "fc2_db_accumulates", "op", "fc2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "fc2's bias gradient is accumulated into the gradient buffer (beta = 1) instead of overwriting it: only set_tensor(GRADS) (engine_set_params) zeroes it, so from the second step on db is the sum over all steps so far (a zero_grad that is never called)", \
      "db_j = sum of dz over the batch is fc2's bias relation: the previous steps' sum rides on it: measured PROBLEM at step 2, fc2 backward-weights (bias), 2.90e6 (worst 1.41e7, 10 of 10 relations over)") \
    X(ADAM_STALE_GRAD_CONV2_BIAS_ONCE, "adam_stale_grad_conv2_bias_once", "op", "conv2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "at step 7 only, the update of conv2.bias reads step 6's gradient (a double-buffered gradient whose swap is missed for one tensor); the gradient reported, and every other tensor's update, are step 7's", \
      "the Adam re-check re-does every element from the gradient reported at the step stage: measured PROBLEM at step 7, conv2 update, conv2.bias 31 element(s) differ (up to 3.39e-3)") \
    X(DROPOUT_BWD_MASK_FROM_OUTPUT, "dropout_bwd_mask_from_output", "op", "drop1", "backward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "dropout backward takes its mask from the forward output (dx = y != 0 ? dy / (1 - p) : 0, as an in-place dropout that kept no mask does): a kept input that is exactly 0 gets no gradient", \
      "the dropout backward re-check keys the mask on (seed, step, element), not on y: measured PROBLEM at step 1, drop1 backward-data, 4225 elements not the exact re-computation. Harmless to the parameters here (dropout follows relu2 + pool2: a kept 0 is a dark window whose gradient relu2 zeroes anyway; accuracies 9.38%, 7.81% as the clean run's), so this is a deviation from the rule more than a training fault") \
    X(TWIN_DW_SIGN_PAIR_ONCE, "twin_dw_sign_pair_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 5: at step 7 only, fc1's weight gradient has the signs of two elements at odd indices flipped: the largest |dW| at an odd index and the (fault_k - 15)-th largest other one (default k = 16: the second)", \
      "a sign flip of bit 63 of a hashed word moves hash_words' term by 2^63 +- 2^31: two of them cancel when the terms' bits 31 differ (half the pairs): a repeat listing with the fault in one copy is then judged on the clean copy's vector (all of this against the one-multiply hash; since its terms take splitmix64's finalizer the flips change the hash, the faulty copy computes its own vector from that stage on and is named there, and a repeat's own findings count in the verdict: test_mutants test_repeat_own_problem)") \
    X(TWIN_DW_SIGN_PAIR_CHOSEN_ONCE, "twin_dw_sign_pair_chosen_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 5: as twin_dw_sign_pair_once, the second element the largest odd one whose hash term's bit 31 differs", \
      "the operand hash is unchanged by construction: the one-copy fault is judged on the clean copy's vector (all of this against the one-multiply hash; since its terms take splitmix64's finalizer the flips change the hash, the faulty copy computes its own vector from that stage on and is named there, and a repeat's own findings count in the verdict: test_mutants test_repeat_own_problem)") \
    X(TWIN_M_SIGN_PAIR_ONCE, "twin_m_sign_pair_once", "op", "fc1", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 5: after step 7's update, two of fc1.weight's Adam m at odd indices have their signs flipped (chosen so the operand hash is unchanged)", \
      "the UPDATE stage's hash is unchanged; step 8's is not (m0): continuity (all of this against the one-multiply hash; since its terms take splitmix64's finalizer the flips change the hash, the faulty copy computes its own vector from that stage on and is named there, and a repeat's own findings count in the verdict: test_mutants test_repeat_own_problem)") \
    X(TWIN_M_SIGN_PAIR_LAST, "twin_m_sign_pair_last", "op", "fc1", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 5: as twin_m_sign_pair_once, after step 10's update (the last)", \
      "no later step stage: only the UPDATE stage's Adam re-check could see it (all of this against the one-multiply hash; since its terms take splitmix64's finalizer the flips change the hash, the faulty copy computes its own vector from that stage on and is named there, and a repeat's own findings count in the verdict: test_mutants test_repeat_own_problem)") \
    X(TWIN_DACT_SIGN_PAIR_ONCE, "twin_dact_sign_pair_once", "op", "fc1|fc2|relu3", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 5: at step 7, after the whole backward, two elements of fc1's output gradient (DACT) as reported have their signs flipped (chosen so the operand hash is unchanged); training is right", \
      "fc1's backward relations and fc2's backward-data relation read the reported dy: a repeat's own vector sees it; judged on the clean copy's vector, and with the weights equal, nothing does (all of this against the one-multiply hash; since its terms take splitmix64's finalizer the flips change the hash, the faulty copy computes its own vector from that stage on and is named there, and a repeat's own findings count in the verdict: test_mutants test_repeat_own_problem)") \
    X(EVAL_LOGITS_STALE_READBACK_ONCE, "eval_logits_stale_readback_once", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: in the first evaluation (after epoch 1), the logits read back for the third test batch are the second batch's (a copy-out read before it completed: the host buffer still holds the last batch's); what the engine computed, and what its checks read in place, are right", \
      "measured VERDICT ok, exit 0: the evaluation's checks (CK_STAGE_EVAL) are computed by the engine from its tensors in place, and the logits the driver reads back for accuracy and loss (get_tensor, eval_add_batch) are compared with nothing; evaluation vs the reference runs only after the last epoch, on a second forward pass of its own. Test loss after epoch 1 2.3118 -> 2.3210 (accuracy 6.25% either way: this run's model predicts one class); with --limit-train 2048 --batch 64 --limit-test 512: epoch-1 accuracy 63.09% -> 57.23%, loss 1.0004 -> 1.4132, still VERDICT ok. A known blind spot until the eval vector carries a digest of the logits as computed and the driver digests what it read back. CLOSED (read-back ties, checksums_readback_logits: EVAL vectors carry the logits the checks read, the driver's read-back must equal them bit for bit): measured PROBLEM at the evaluation after epoch 1, fc2 evaluation, 160 of 160 logits read back not those judged") \
    X(EVAL_LOGITS_ROWS_SHIFTED_LAST, "eval_logits_rows_shifted_last", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: in the second (the last) evaluation, the logits read back for the last test batch are shifted by one row (sample i reported with sample i + 1's logits, the last sample's repeated: a copy-out with an off-by-one start); computed and checked logits are right", \
      "measured VERDICT ok, exit 0, and 'evaluation vs the reference (epoch 2, 64 images): 0 prediction(s) differ': that check re-runs the forward and reads the logits again (batches the fault does not touch), it does not judge the logits the reported accuracy came from. Test loss after epoch 2 2.3512 -> 2.3554 here; with --limit-train 2048 --batch 64 --limit-test 512 the final accuracy 70.12% -> 62.89%, loss 0.788 -> 1.484, VERDICT ok. Listed beside an unfaulted cpu (--engines reference,cpu,cpu:fault=eval_logits_rows_shifted_last, same options): the pair is 'bitwise identical — weights equal at every step; 57 of 512 test images flipped, accuracy gap +7.23 points', VERDICT ok, exit 0: a contradiction no rule looks at (equal weights and equal evaluation inputs must give equal predictions). The same as a flaky copy (LS_FAULT_ONE_COPY=PATH,2, --repeat 2 --fail-on problem,nondeterminism): final accuracies 70.12% and 62.89% for two runs of one engine, pair verdict 'deterministic', exit 0: the repeat pair judges the weights, not the predictions. Blind until the logits read back are tied to the eval vector (a digest, or at least sum_i |z_ij| against the fc2 relations' Y_j as judge_logit_tie does at training steps). CLOSED (read-back ties): measured PROBLEM at the evaluation after epoch 2, fc2 evaluation, 150 of 160 logits read back not those judged; beside a clean cpu or as a repeat copy the pair is no longer 'bitwise identical'/'deterministic' (test_report: test_repeat_evaluation_differs)") \
    X(EVAL_LOGITS_BF16_READBACK_FIRST, "eval_logits_bf16_readback_first", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: in the first evaluation (after epoch 1), the logits are read back through a bf16 staging buffer (each rounded to bf16, to nearest even: 2^-9 relative); computed and checked logits are fp32's", \
      "measured VERDICT ok, exit 0: as eval_logits_stale_readback_once, nothing judges the logits read back. Its effect here is small: test loss after epoch 1 2.311776 -> 2.311810 (with --limit-train 2048 --batch 64 --limit-test 512: 1.000389 -> 1.000637, accuracy 63.09% unchanged): a wrong value no check looks at, kept as a blind spot. CLOSED (read-back ties): measured PROBLEM at the evaluation after epoch 1, fc2 evaluation, 160 of 160 logits read back not those judged") \
    X(PARAMS_REPORT_STALE_LAST_EVAL, "params_report_stale_last_eval", "state", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: from the second (the last) evaluation on, the parameters read back are those the first evaluation ran with (a host mirror of the weights refreshed once, at the first evaluation); the engine trains and evaluates with its current ones, and its checks read them in place", \
      "evaluation vs the reference reads the parameters back and sets them into the reference: the reference evaluates epoch 1's weights, the engine its own (5 steps later): measured PROBLEM, fc2 evaluation (epoch 2), worst logit ratio 331 to the propagated bound; the every-step checks read the parameters in place and see nothing (worst 0.257, the clean run's). Seen only because that check happens to read the parameters back: a read-back fault only in a final export would not be. Now first named by the read-back tie (checksums_readback_state) when evaluation vs the reference reads the parameters: update phase, conv1.weight, step 10 (the weights read back are not the last update's); the evaluation's PROBLEM (331) follows") \
    X(PARAMS_SAVE_READBACK_STALE, "params_save_readback_stale", "state", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval --save /tmp/lockstep-zoo-params_save_readback_stale.safetensors", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: after the last evaluation, every read-back of the parameters but the first (evaluation vs the reference's) returns those the first evaluation ran with (a host mirror refreshed once): --save writes epoch 1's weights; the engine trained, was checked and evaluated with its own", \
      "measured VERDICT ok, exit 0, 'saved ... weights': the file holds epoch 1's parameters, 87802 of 105866 differ from an unfaulted run's --save (rel. L2 8.67e-2). Evaluation vs the reference reads the parameters back first and sees them right (params_report_stale_last_eval, where that read is the stale one, is a PROBLEM); --save reads them once more after every check and nothing compares that read with the digest of the last update the checks chained (ae->ck_dig): a known blind spot until save_weights digests what it writes against it (one pass over the parameters). CLOSED (read-back ties, checksums_readback_state: what --save reads is digested against the last update the checks chained): measured PROBLEM at step 10, conv1 update, 'conv1.weight values read back for --save are not those the checks judged', and nothing written") \
    X(FC1_OUT_SECOND_MANTISSA_FLIP_ONCE, "fc1_out_second_mantissa_flip_once", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: at step 7, sample 3's second-largest fc1 output (> 0: relu3 passes it on, and it is not the largest that FWD_DPEEK re-does) has the mantissa bit of weight 2^(8-K) flipped (K = fault_k: bit 31 - K, 15 at the default 16: 2^-8 of the significand)", \
      "the flipped output 0.70495 -> 0.70691 is off by 1.95e-3, 9.05x its own worst case gamma_1569 (sum|w x| + |b|) = 2.16e-4, so a PROBLEM is owed; measured only SUSPECT, exit 0 with --fail-on problem: step 7, fc1 forward, output 37, x4.14 the sharper tier, 0.688 of the worst case (the per-output relation sums 16 samples' bounds; the per-sample and random-weight ones 64 outputs'), and FWD_DPEEK re-does each sample's first, last, largest and one drawn output, not the second-largest, which relu3 passes on all the same. fault_k 15 (18.1x its own bound): PROBLEM 1.38; 14 (36x): 2.75; 18 (2.26x): SUSPECT x1.04; 20: ok. The dense analogue of conv2_fwd_interior_bitflip_once, with a tolerance only ~16x an element's: re-doing every output relu3 passes (about half of 64 a sample, ~8x FWD_DPEEK's four) would make it a PROBLEM at its own bound. At batch 64 (--limit-train 512 --batch 64, step 7; y 0.3538): fault_k 13 moves it by 7.8e-3 (2.2 percent), 57.7x its own bound 1.35e-4: SUSPECT only, x9.8 the sharper tier, 0.874 of the worst case (fc1 forward per sample: the sample's 64 outputs' bounds); fault_k 12 (115x) is a PROBLEM only because the flip makes it the sample's largest (DPEEK, 114). CLOSED (every dense output and input-gradient element re-done, FWD_DPEEK/BWD_DATA_DPEEK): measured PROBLEM at step 7, fc1 forward (every output of each sample), 8.96 (its own 9.05x); fault_k 18 (2.26x) PROBLEM 2.24; fault_k 20 (0.56x: within its worst case) SUSPECT x1.81 the sharper tier") \
    X(FC1_DX_SECOND_SCALED_ONCE, "fc1_dx_second_scaled_once", "op", "fc1|flatten|pool2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: at step 7, sample 3's input gradient of fc1 (backward-data) has its second-largest |dx| scaled by 1 + 2^(8-K) (K = fault_k; 2^-8 at the default 16)", \
      "at the default 2^-8 the element (dx -1.348e-3) moves 5.27e-6, 844x its own bound gamma_64 sum|w dy| = 6.24e-9: PROBLEM at step 7, fc1 backward-data, input feature 1340, 53.2 (the per-feature relation sums the batch's 16 bounds: 844 / 16). fault_k 21 (26.4x its own bound): PROBLEM 1.66; fault_k 22 (13.2x): VERDICT ok, exit 0, sharper tier 0.998; 23 (6.6x): ok, 0.498. BWD_DATA_DPEEK re-does the largest |dx|, not the second: an element up to ~16x (the batch) its own worst case passes; what would see it: every element re-done (1568 dot products of 64 terms a sample, ~400x DPEEK's four), or per-sample relations with several random weightings. CLOSED (every dense input-gradient element re-done, BWD_DATA_DPEEK): measured PROBLEM 836 at the default (its own 844x), fault_k 23 (6.6x) PROBLEM 6.52") \
    X(FC1_OUT_NAN_NEGATIVE_ONCE, "fc1_out_nan_negative_once", "op", "fc1|relu3", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: at step 7, sample 5's most negative fc1 output is written as NaN (a transient a max(x, 0) ReLU would clear to +0, as it would the negative value; oneDNN's eltwise here does not quite: the run's weights end slightly off, evaluation vs the reference 1.51e-4 against the clean 1.22e-4)", \
      "a NaN in a relation's sum makes its ratio NaN, which the judge counts as over (ratio != ratio): measured PROBLEM at step 7, fc1 forward, output 31, ratio inf (1 of 64 relations), 'every-step exact check failed'") \
    X(CONV2_DW_FILTER_MAX_SCALED_ONCE, "conv2_dw_filter_max_scaled_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: at step 7, in conv2's filter 0, the weight-gradient element of the largest |dW| (when it is not the filter's first or last: those are re-done) is scaled by 1 + 2^(12-K) (K = fault_k; 1/16 at the default 16): a reduction's epilogue that adds its largest partial sum twice over a fraction", \
      "measured: element 116 (input channel 12, tap (2, 2)) 4.0413e-3 -> 4.2939e-3, off by 2.53e-4, 15.0x its own worst case gamma_3136 sum|x dy| = 1.68e-5, so a PROBLEM is owed; only SUSPECT, exit 0 with --fail-on problem: step 7, conv2 backward-weights, output channel 0, x7.07 the sharper tier, 0.368 of the worst case (the filter's plain, signed and index-weighted sums carry 288 elements' bounds; BWD_W_PEEK re-does the first, last, two drawn and the smallest nonzero, not the largest). fault_k 14 (25 percent, 60x): PROBLEM 1.7 (index-weighted); with every filter's largest scaled (32 elements) a drawn element hit one (channel 17): PROBLEM 39.8. What would see it at its own bound: BWD_W_PEEK re-doing each filter's largest |dW| too (one more dot product of batch x 196 terms a filter, as FWD_PEEK already re-does each plane's largest output). CLOSED (BWD_W_PEEK re-does each filter's and dense row's largest |dW| too): measured PROBLEM at step 7, conv2 backward-weights, 14.9 (its own 15.0x); fault_k 18 (3.75x) PROBLEM 3.72") \
    X(CONV2_DW_WALSH4_ONCE, "conv2_dw_walsh4_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6, aimed at the relations: at step 7, conv2's filter 0 gets (+e, -e, -e, +e) on its centre tap (1, 1) in four consecutive input channels c..c+3 (c = 4, or the next block of four whose elements are all nonzero and none the filter's smallest nonzero), e = 2^(16-K) x the filter's largest |dW| (K = fault_k: 1x at 16): a 4-wide channel block's correction term added with a Walsh sign pattern", \
      "the pattern (1, -1, -1, 1) over four channels at one tap sums to 0 against 1, against (-1)^c and against c, so the filter's signed sum (ck_cw: (-1)^(c + kh + kw) x the tap's sign) and its index-weighted sum (ck_iw: 9 c + s (tap + 1)) move only by the fp32 roundings of the four additions; there are no random-weight relations for backward-weights (FWD_RND and BWD_DATA_RND only), the re-done elements are the first, the last, the smallest nonzero and two drawn of 288 (2.8 percent that a draw lands on one of the four), and zeros are avoided. Measured VERDICT ok, exit 0, the run's worst checksum ratio 0.257 (the clean run's, fc2; step 7's worst 0.22657, the clean run's to every digit), for e = 1x (fault_k 16) and 64x (fault_k 10) the filter's largest |dW| (channels 8..11: 4..7 hold a zero or the smallest); the four weights end 1.1e-3 to 1.3e-3 (fault_k 16) and up to 3.1e-3 (fault_k 10; 0.0806 -> 0.0775) from an unfaulted run's, one to three whole Adam steps of lr 1e-3, conv2.weight rel. L2 5.5e-4 and 1.2e-3. A blind spot until backward-weights has random-weight relations as the forward has: per draw, sum_t r_t dW[o][t] against sum over (s, i, j) of dy[s][o][i][j] (x (*) r)[s][i][j] with one random 3 x 3 x C filter r shared by all 32 filters (one extra output channel of conv2's forward, 1/32 of it, and 32 dot products a draw). CLOSED (BWD_W_RND: random-weighted backward-weights relations, a_c b_t per filter, two draws a step): measured PROBLEM at step 7, conv2 backward-weights (random-weighted), output channel 0, 25.4 at fault_k 16 (1x the largest |dW|), 1623 at 10, 1.59 at 20") \
    X(FC1_DW_ROW_PATTERN_ONCE, "fc1_dw_row_pattern_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6, aimed at the relations: at step 7, row 0 of fc1's weight gradient gets (+e, +e, -e, -e) on four consecutive nonzero elements t..t+3 (t even, the first such block from 2 on that holds neither the row's smallest nonzero nor its last element), e = 2^(16-K) x the row's largest |dW| (1x at fault_k=16)", \
      "the dense analogue of conv2_dw_walsh4_once: row 0 takes ck_iw's pattern 0, weights (-1)^t (t + 1), and (1, 1, -1, -1) on (t+1, -(t+2), t+3, -(t+4)) sums to 0, as it does against the unsigned row sum: only BWD_W_PEEK's two drawn elements of 1568 could land on it (0.5 percent). Measured VERDICT ok, exit 0 (worst checksum 0.275 and 0.257, fc2: the clean run's level) at e = 1x and 64x (fault_k 16, 10) the row's largest |dW|, on elements 2..5; the weights end up to 1.45e-3 (fault_k 16) and 3.58e-3 (10) from an unfaulted run's (element 3: 0.00638 -> 0.00317, element 5: 0.00026 -> 0.00103), fc1.weight rel. L2 4.1e-4 and 1.0e-3. Blind until dense backward-weights has random-weight relations: per row and draw sum_t r_t dW[j][t] against sum_s dy[s][j] (sum_t r_t x[s][t]), the inner sum shared by all 64 rows (n x 1568 products a draw, about one more row of the forward). CLOSED (BWD_W_RND: a random weight per input feature, two draws a step): measured PROBLEM at step 7, fc1 backward-weights (random-weighted), 2818 at fault_k 16, 1.80e5 at 10, 176 at 20") \
    X(ADAMW_DECAY_UNCONFIGURED, "adamw_decay_unconfigured", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: every update also applies decoupled weight decay p -= lr x 2^(10 - k) x p (0.0156 at fault_k=16: AdamW's default 0.01 order) to the weight tensors (not the biases), which no configuration asks for", \
      "the Adam re-check re-does every element from the step's p, m, v, g: measured PROBLEM at step 1, conv1 update, conv1.weight 144 elements differ (up to 5.16e-6); the attribution compare 260x the fp32 bound in every weight tensor") \
    X(CONV2_DW_EXP_FLIP_SMALL_ONCE, "conv2_dw_exp_flip_small_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: at step 7, in every conv2 filter, the weight-gradient element of the second-smallest nonzero |dW| has the lowest bit of its exponent flipped (x2 or /2: a single-bit upset in a small value)", \
      "measured PROBLEM at step 7, conv2 backward-weights (first, last and sampled elements), output channel 21, ratio 5296 (5 of 32 filters over; the flipped element became its filter's smallest nonzero in 6 of 31); the doubled-only variant (conv2_dw_second_smallest_doubled_once) is caught the same: 5296, 5 of 32") \
    X(CONV2_DW_SECOND_SMALLEST_DOUBLED_ONCE, "conv2_dw_second_smallest_doubled_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: as conv2_dw_exp_flip_small_once, the exponent raised by one (x2) in every filter, so the element never becomes the filter's smallest nonzero", \
      "measured PROBLEM at step 7, conv2 backward-weights (first, last and sampled elements), output channel 1, ratio 5296 (5 of 32 filters over), as the flip: not only a filter's smallest nonzero is judged on its own") \
    X(FC1_DW_EXP_FLIP_SCATTERED_ONCE, "fc1_dw_exp_flip_scattered_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: at step 7, 16 nonzero elements of fc1's weight gradient at scattered positions (the first nonzero at or after i x 6553 + 977, i < 16) have the lowest bit of their exponent flipped (x2 or /2)", \
      "measured PROBLEM at step 7, fc1 backward-weights (first, last and sampled elements), output 30, ratio 2.18e5 (4 of 64 rows over)") \
    X(DROPOUT_OFF_AFTER_EVAL, "dropout_off_after_eval", "op", "drop1", "forward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 6: the first training step after an evaluation (step 6) runs dropout in inference mode, forward and backward (identity: a mode flag left as the evaluation set it)", \
      "the dropout re-check keys the mask on (seed, step, element): measured PROBLEM at step 6, drop1 forward, 16618 elements not the exact re-computation") \
    X(CONV1_DB_FP16_ACC_ONCE, "conv1_db_fp16_acc_once", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 7: at step 7, conv1's bias gradient is summed in an fp16 accumulator (binary16, to nearest, after every addition of an fp32 dy, samples then positions: a half-precision reduction kernel); dW and dx are right", \
      "measured PROBLEM at step 7, conv1 backward-weights (bias), output channel 10, ratio 2.46 (1 of 16 over; sharper tier 31.8), exit 1: the bias gradient is re-done in double against gamma_(K-1) sum|dy|, K = 16 x 784 = 12544, the loosest per-element bound of the step, and an fp16 accumulator over 12544 terms clears it only 2.5-fold; the clean run's worst ratio 0.257 (fc2 bias)") \
    X(CONV2_DW_INT8_QUANT_ONCE, "conv2_dw_int8_quant_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 7: at step 7, conv2's weight gradient goes through int8 quantize-dequantize with one per-tensor scale max|dW| / 127, to nearest (gradient compression for communication left on in a single-process run)", \
      "measured PROBLEM at step 7, conv2 backward-weights (zero and smallest elements), output channel 30, ratio 5296 (31 of 32 filters over), exit 1: quantizing with one per-tensor step max|dW|/127 turns every element under half a step into an exact 0 that has terms, and the zero-element relation re-does those; the plain, signed, index- and random-weighted filter sums would see the rounding noise of 288 elements only at a fraction of their tolerance") \
    X(FC1_DW_SMALL_SIGN_FLIPPED_ONCE, "fc1_dw_small_sign_flipped_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 7: at step 7, every nonzero fc1 weight-gradient element below 2^(6 - k) (2^-10 at fault_k=16) of its row's largest |dW| has its sign flipped (a sign-magnitude packing that mishandles small codes); exact zeros and larger elements are right", \
      "measured PROBLEM at step 7, fc1 backward-weights (zero and smallest elements), output 57, ratio 2.08e6 (33 of 64 rows over), exit 1: each row's smallest nonzero |dW| is among the flipped and is re-done in double against its own bound (BWD_W_PEEK/Z); the row sums alone would see the flips only at ~1e-3 of their tolerance") \
    X(LABELS_ONE_SAMPLE_SHIFTED_ONCE, "labels_one_sample_shifted_once", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 7: at step 7 only, sample 3's label is read as (label + 1) mod 10 (one element of the label copy off: an int8/int32 label buffer read with the wrong stride for one row); the images and the other labels are right", \
      "measured PROBLEM at step 7, fc2 loss, 'loss gradient dz re-done from the logits', ratio 4.61e6, exit 1: the loss and dz are re-done from the engine's logits with the labels the audit gave, so one label is enough (labels_stale_once changes all 16); every layer's relations hold") \
    X(ADAM_LR_WARMUP_ONCE, "adam_lr_warmup_once", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 7: at step 7 only, the update's step size is halved (a linear warm-up or scheduler factor the configuration does not ask for, applied by the engine); m and v are right", \
      "measured PROBLEM at step 7, conv1 update, conv1.weight 123 elements differ (up to 4.88e-4; every tensor), exit 1: the Adam re-check re-does each element bit for bit with the scalars the driver made (adam_make_scalars), not the engine's") \
    X(EVAL_ROUND2_FC2_ROW_STALE, "eval_round2_fc2_row_stale", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 7: in the second evaluation only, at its third batch (k = 2), fc2's output row of sample 0 is the one the batch before (k = 1) left in the buffer (a row a tiled GEMM did not write); every other logit and every training step are right", \
      "measured PROBLEM at the evaluation after epoch 2, fc2 evaluation, FWD_DPEEK (first, last, largest and sampled outputs of each sample), sample 0, ratio 40876, exit 1; the first evaluation and every step clean: every evaluation batch carries its own EVAL vector, batch k > 0 of a later round included") \
    X(FC2_DX_DRELU_FUSED_ONCE, "fc2_dx_drelu_fused_once", "op", "fc2|relu3", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 7: at step 7, fc2's backward-data writes its input gradient with relu3's mask already applied (dx x (relu3's output > 0): a DRELU epilogue fused into the GEMM, as cuBLASLt offers); relu3's backward gives the same fc1 gradient, so training is right and only the reported relu3 gradient is not fc2's backward-data", \
      "measured PROBLEM at step 7, fc2 backward-data, BWD_DATA_DPEEK (first, last, largest and sampled elements of each sample), ratio 1.44e6 (16 of 16 samples over), exit 1. Training is bit for bit right (the mask is idempotent), so the finding is about the report: the engine's relu3 gradient is not fc2's backward-data; the audit names fc2 backward-data, the kernel that wrote it, which is where a fused DRELU epilogue lives. An engine that fuses it legitimately must report the unmasked tensor (or declare the fusion, as cpu fuse=on declares relu+pool through ck_fused); there is no dense+ReLU ck_fused rule yet") \
    X(CONV2_FWD_LAST_SAMPLE_STALE_ONCE, "conv2_fwd_last_sample_stale_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 7: at step 7, conv2's output for the batch's last sample (all 32 planes) is the one step 6 left there (the last thread's chunk of a static schedule not written: a race that loses one chunk); the following layers compute from it consistently", \
      "measured PROBLEM at step 7, conv2 forward (first, last, largest and sampled outputs), plane 481, ratio 42612 (32 of 512 relations over; plain relation sharper tier 99768), exit 1: the lost chunk is the last sample's 32 planes, each far from W x + b of its own input") \
    X(CONV1_DB_FP16_SPLIT_ONCE, "conv1_db_fp16_split_once", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 7: at step 7, conv1's bias gradient is a split reduction whose per-sample partial sums (784 positions each) run in an fp16 accumulator (to nearest after every addition); the 16 partials are then added in fp32", \
      "measured SUSPECT only, exit 0 under --fail-on problem: step 7, conv1 backward-weights (bias), output channel 12, x6.06 the sharper tier, 0.469 of the worst case (7 of 16 channels over the sharp tier). Within gamma_12543 sum|dy| (an fp32 sum of 12544 terms may err that much), so no PROBLEM is owed and SUSPECT is the right class; it shows the margin: a conv bias gradient reduced with fp16 per-sample partials loses ~2^-11 of each partial, and only the sharper tier sees it. What would make it a PROBLEM at a tighter bound: judging db against the bound of the pairwise/blocked order the engine declares (gamma_(log2 K) rather than gamma_K), which the project does not assume") \
    X(CONV1_DB_BF16_DY_ONCE, "conv1_db_bf16_dy_once", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 7: at step 7, conv1's bias gradient sums its output gradient rounded to bf16 (to nearest even) in an fp32 accumulator (an autocast reduction); dW and dx are right", \
      "measured PROBLEM at step 7, conv1 backward-weights (bias), output channel 15, ratio 2.45 (1 of 16 over; sharper tier 31.7), exit 1: bf16 operands (2^-9 each) over 12544 terms of one sign-mixed sum exceed the fp32 worst case where the sum cancels (|db| << sum|dy|); at batch 16 the margin is 2.45") \
    X(CONV2_DB_LAST_SAMPLE_DROPPED_ONCE, "conv2_db_last_sample_dropped_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 7: at step 7, conv2's bias gradient sums samples 0..n-2 only (the sample loop of the bias reduction one short); dW and dx are right", \
      "measured PROBLEM at step 7, conv2 backward-weights (bias), output channel 11, ratio 174 (30 of 32 channels over; sharper tier 1125), exit 1: one sample's sum of dy is ~1/16 of the terms, far over gamma_3136 sum|dy|") \
    X(CK_LOST_STEP7_ACT_CORRUPT_STEP8, "ck_lost_step7_act_corrupt_step8", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 7: from step 7 on, the engine's every-step checksum entry answers LS_EUNAVAIL (its checks' scratch could not be had: the answer an engine without checks gives), and at step 8 conv2's largest output of sample 0, channel 0 is doubled (act_corrupt_once's corruption, one step later)", \
      "BLIND (MISSED): measured VERDICT ok, exit 0 under --fail-on problem (and under --fail-on problem,unchecked,incomplete,nondeterminism), 'within bound 53/53'; the coverage line reads 'no every-step checksums (cpu: every-step checksums unavailable ...)' as if the engine never had any, while run.json says steps_checked 6 of 10, eval_epochs_checked 1 of 2 and verdict kind ok. Root cause: every_step_stage (src/audit/every_step.c) takes LS_EUNAVAIL at any stage as 'this engine has no every-step checks' and sets ck_have = 0 for the rest of the run, and the headline (src/audit/headline.c, default case) only warns when ck_steps == 0 and there were no shadow replays; here 6 steps were checked and steps 5 and 10 were shadowed, so steps 7, 8, 9 (the corruption at 8) and the second evaluation are judged by nothing and nothing says so. Cheapest fix: in every_step_stage, an LS_EUNAVAIL after the engine has answered once (ae->ck_steps + ae->ck_eval_batches > 0) is an engine failure (engine_err: VERDICT incomplete), not a switch-off; and the verdict (explain.c engine verdict / headline.c) says 'not fully checked' when a drift step was neither checked by checksums (ck_steps + ck_skipped) nor per element (shadow, attribution) for an engine that has checks NOW (headline.c drift_gaps, per-step records ck_step_ratio and ck_step_elem): VERDICT 'not fully checked — nothing checked cpu:fault=ck_lost_step7_act_corrupt_step8's drift steps 7-9 (3 of 10) and 1 of 2 evaluations: they stopped answering at step 7: ...', exit 1 under --fail-on unchecked (0 under --fail-on problem: the doubled output is on a step nothing checked, so no PROBLEM can be owed by these checks); the coverage line says 'every-step checksums STOPPED after 6 of 10 drift steps'. The fault stays unseen: BLIND, now declared as such") \
    X(ADAM_FMA_CONTRACTED, "adam_fma_contracted", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 7: every update is ops_adam_elem with its three multiply-adds contracted to fused multiply-adds (m = fma(b1, m, (1 - b1) g), v = fma(b2, v, (1 - b2) g g), p = fma(-step, q, p)): what a compiler at -ffp-contract=fast (GCC's default outside ISO C) or nvcc's default --fmad=true makes of the same source", \
      "a rounding-level variant: each contraction drops one rounding, and against the exact reference the attribution steps find every updated p, m, v within its fp32 bound (max 0.954 of it, fc1.weight; m 0.687, v 0.810; the clean engine's 0.969 and alike). MEASURED FALSE ALARM: PROBLEM at step 1 (the drift phase's first), conv1 update, 'conv1.weight Adam re-done from the step's p, m, v, g: 1 element(s) differ (up to 4.66e-10)', 10 checks violated, exit 1 under --fail-on problem, engine verdict 'CHECKSUM violated'. Root cause: adam_recheck (src/engines/checksums.c) and judge_adam (src/checks/checksums.c) demand ops_adam_elem bit for bit (ck_bits_differ), while the per-element rule for the same operation (bounds.h, the Adam running error bound) accepts any fp32 evaluation within it: the two checks of one operation disagree, and the every-step one blames a legal evaluation order. By design the project's engines share ops_adam_elem word for word (README Numerics: -ffp-contract=off, --fmad=false), so this row documents that contract rather than a hole: an engine built from another source (a vendor fused Adam, nvcc's default --fmad=true) is a PROBLEM. Cheapest fix if such engines are to be audited: judge each element's |p - p_ref|, |m - m_ref|, |v - v_ref| against the Adam running bound the attribution uses (worst kept, as a relation: R, A) instead of counting bit differences; or keep exactness and say in the finding that it is a contract check ('not ops_adam_elem bit for bit: within the fp32 bound by x') FIXED (the UPDATE vector's ADAMW block: the step's fp32 scalars and, per tensor, the operands of the element furthest from ops_adam_elem's in ulps; checks/checksums.c judge_adam bounds it with bounds_adam): measured VERDICT SUSPECT, exit 0 under --fail-on problem, 'the Adam update at step 1 is not the engines' shared formula bit for bit, but within fp32 rounding of it (0.474 of the worst case)'; adam_m_1ulp stays a PROBLEM (1.58 of its bound at step 3). A recording (no ADAMW) is still judged bit for bit. Zoo attack 10: with each tensor's element furthest over its bound carried (not the one furthest in ulps), 0.963 of the worst case (SUSPECT, exit 0); adam_m_1ulp 1.54 at step 2. NAMED ORDER (base/adam_orders.h, the every-step re-check recognises it bit for bit): measured VERDICT ok, exit 0, no SUSPECT, coverage line 'Adam in a recognised legal order at 10 update(s), bit for bit (ok; the largest, step 10: fc1.weight Adam: 23713 element(s) in the shared formula FMA-contracted's order ...)' (no other named order agrees there); before, VERDICT SUSPECT at every update (step 1: 0.876 of the worst case)") \
    X(DROPOUT_DIVIDE_BY_KEEP, "dropout_divide_by_keep", "op", "drop1", "forward", "scripts/zoo-models/smallcnn-dropout03.model --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 7: dropout forward and backward divide the kept values by (1 - p) in fp32 instead of multiplying by fl(1 / (1 - p)) (x / 0.7f for x * 1.4285715f: what a framework writing input * mask / (1 - p) computes); the mask is right. Needs p with an inexact 1 / (1 - p): smallcnn with dropout 0.3 before fc2 (scripts/zoo-models/smallcnn-dropout03.model)", \
      "a rounding-level variant (each kept value differs from x * fl(1/(1 - p)) by at most an ulp): the attribution's per-element rule for dropout, x fl(1/(1-p)) within 2u|y|, passes it, drop1.act 0.427 and drop1.dact 0.299 of their bounds, 55 of 55 tensors within bound. MEASURED FALSE ALARM: PROBLEM at step 1, drop1 forward, 'drop1 forward: 26 element(s) not the exact re-computation', 10 checks violated, exit 1 (the clean engine on the same model: VERDICT ok, worst checksum 0.214). Root cause: ck_dropout_fwd_bad / ck_dropout_bwd_bad (src/base/checksum_ops.h) require x * scale bit for bit (ck_bits_differ) while the per-element rule allows 2u|y|: the same contract-versus-bound split as adam_fma_contracted. Invisible in the zoo's own models (mnist-convnet's p = 0.5: 1/(1 - p) = 2 is exact, so x / 0.5 == x * 2). Cheapest fix: in the every-step re-check keep the mask exact (a kept/dropped decision is bit-level) and judge the kept value within 2u|y| of x * fl(1/(1-p)) as the per-element rule does (counting only elements over it), or accept both x * fl(1/(1-p)) and fl(x / (1-p)) FIXED (base/checksum_ops.h ck_dropout_kept_bad: a kept value may be either fp32 formula, x fl(1/(1-p)) or x / fl(1 - p), each one correctly rounded operation; the mask is still exact): VERDICT ok, exit 0, worst checksum 0.275 (the clean run's)") \
    X(CLEAN_NO_CHECKSUMS, "clean_no_checksums", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --no-checksums --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 7: no fault at all (the knob only names this row): the clean engine audited with --no-checksums, a documented option (the seed loop's audits and make bench run without the checks)", \
      "nothing is wrong, so nothing is owed. MEASURED FALSE ALARM: VERDICT PROBLEM, exit 1, engine verdict 'CHECKSUM violated, step 1, update: an exact check failed (18 check(s) violated)', finding 'every-step exact check failed at step 1, conv1 update: read-back: conv1.weight values read back for the pair comparison are not those the checks judged' (ratio inf), while the coverage line says 'every-step checksums off (--no-checksums)' and the 53 tensors compared against the reference are within bound (0.969). The user build does the same: build/lockstep audit --engines reference,cpu --no-checksums with these options, and --engines cpu,cpu --no-checksums --epochs 1 (a plain determinism check, no reference) both end PROBLEM, exit 1, naming every clean engine. Root cause (from the read-back ties of 49eb272 and 3f4a357, zoo attack 6's closure): every_step_init (called for every non-reference engine whatever --no-checksums says) leaves ck_have = 1 and set_initial seeds the continuity chain (every_step_seed_chain) with the initial weights; with the checks off no UPDATE vector ever advances ae->ck_dig, so every_step_readback_state (src/audit/every_step.c), guarded only by ck_have and ck_chain, compares each later read-back of the weights (the pair comparison, the shadow replay's bounds, the evaluation against the reference, --save) with the initial weights' digests. Cheapest fix: with --no-checksums clear ck_have (ck_none '--no-checksums') or skip every_step_seed_chain (driver.c set_initial) and return early from every_step_readback_state/_logits/_loss when the run's checksums are off; a legal-variant line 'no-checksums|smallcnn|cpu;--no-checksums' in scripts/mutants.sh would then guard it (it would fail make mutants today) FIXED (driver.c: no continuity chain is seeded without checksums, so the read-back ties hold nothing to it; test_mutants: test_no_checksums_clean): VERDICT 'not fully checked — nothing checked cpu's ... drift steps ...: --no-checksums', exit 0 under --fail-on problem, no violation") \
    X(CK_NONE_ACT_CORRUPT_ONCE, "ck_none_act_corrupt_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 7: the engine's every-step checksum entry answers LS_EUNAVAIL from the first call on (an engine, or a build of one, without the checks), and at step 7 conv2's largest output of sample 0, channel 0 is doubled (act_corrupt_once)", \
      "BLIND (MISSED): measured VERDICT ok, exit 0 under --fail-on problem, 'within bound 53/53'; only the coverage line says 'no every-step checksums (...); per-element reference checks at 4 step(s) (2 in attribution)': drift steps 3, 4, 6, 7, 8, 9 and both evaluations were judged by nothing. Partly by design (README: 'ok covers what was checked'; an engine or recording without vectors is reported per engine), but the first line's warning ('... but X's drift steps were not checked') is printed only when the run had no shadow replay at all (headline.c: r->n_shadows == 0), and a run whose last batch is partial always has them (steps 5 and 10 here; make run's 60000 % 256 = 96 gives one an epoch), so the warning never shows in the project's own setups. Cheapest fix: headline.c warns (or the engine verdict says 'not fully checked') whenever some drift step of a non-reference engine was checked neither by checksums nor per element, counting per engine (ck_steps + ck_skipped + the shadowed steps < total_steps), instead of only when no step was shadowed NOW: VERDICT 'not fully checked — nothing checked cpu:fault=ck_none_act_corrupt_once's 8 of 10 drift steps (the first: step 1) and 2 of 2 evaluations: cpu: every-step checksums unavailable (not built in)', exit 1 under --fail-on unchecked, whatever the shadow replays (counted per step now, not by whether any ran). The fault itself stays unseen (BLIND), and the verdict no longer says ok") \
    X(EVAL_FC2_SAMPLES_SWAPPED, "eval_fc2_samples_swapped", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 8: in every evaluation batch, fc2's output rows of samples 0 and 1 are exchanged (a row index of the inference GEMM's store swapped: one sample's logits reported, and judged, as the other's); training is right", \
      "fc2's relations summed over the batch are blind to a permutation of its samples; the per-sample ones (FWD_PS, every output of each sample re-done) are not: measured PROBLEM at the evaluation after epoch 1, fc2 evaluation, 'fc2 forward (every output of each sample), sample 0', 1.10e5 (8 of 8 evaluation batches violated); evaluation vs the reference after epoch 2: worst logit ratio 346 (0 predictions differ: the barely trained model gives both samples one class)") \
    X(EVAL_BATCH_SKIPPED_ONCE, "eval_batch_skipped_once", "op", "conv1", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 8: in the first evaluation, the third batch (k = 2) runs no forward at all (a launch skipped): every layer still holds batch 1's outputs, while the engine holds batch 2's images (set_batch was right)", \
      "the input digest matches (the images held are the new batch's) and the layers after conv1 are consistent with each other; conv1 is not, against the images it holds: measured PROBLEM at the evaluation after epoch 1, conv1 evaluation, first by the blank-window exactness rule (38944 outputs of all-zero windows not exactly the bias, inf), the forward relations 1.24e7") \
    X(CONV2_FWD_PAD_NEXT_PLANE_ONCE, "conv2_fwd_pad_next_plane_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 8: at step 7, conv2's forward reads its bottom padding row from memory instead of taking zeros: in NCHW the next plane's first row (the next channel's, or the next sample's first channel's; the batch's last plane reads zeros): an off-by-one in the input-row bound of the last output row only", \
      "every plane's last output row gains sum over c, kw of w[o][c][2][kw] x(next plane)[0][.]: measured PROBLEM at step 7, conv2 forward (first, last, largest and sampled outputs), 94610 (512 of 512 relations over)") \
    X(LABELS_PARTIAL_ROTATED, "labels_partial_rotated", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 8: in a partial batch (steps 5 and 10: 8 of 16 images) the labels are read one slot on (sample i gets sample i + 1's label, the last sample the first's: a ring-buffer copy off by one for the short batch only); the images, and every full batch's labels, are right", \
      "the batch's multiset of labels is unchanged, but the loss check re-does dz per sample from the labels the audit gave: measured PROBLEM at step 5, loss, 'loss gradient dz re-done from the logits', 9.92e6; the shadow replay of step 10 against the reference: loss 38244") \
    X(FC1_DW_NOT_ZEROED_ONCE, "fc1_dw_not_zeroed_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 8: at step 7, fc1's weight gradient is added to step 6's (a zero_grad skipped once: beta = 1 for one step); the bias gradient and every other step are right", \
      "step 6's gradient is of the order of step 7's, and an element whose own terms are all 0 must be exactly 0: measured PROBLEM at step 7, fc1 backward-weights (zero and smallest elements), output 13, 5.93e13 (34 of 64 rows over)") \
    X(FC2_DX_NAN_DEAD_ONCE, "fc2_dx_nan_dead_once", "op", "fc2|relu3", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 8: at step 7, fc2's input gradient (relu3's output gradient) of sample 0 is NaN at the first unit relu3 zeroed (a transient that an x > 0 ? dy : 0 ReLU backward would clear; oneDNN's, dy [x > 0], passes NaN x 0 = NaN on, and the weights are NaN from step 7)", \
      "detected at the WRONG layer: measured PROBLEM at step 7 naming conv1 backward-weights (inf, 16 of 16 relations), the layer the backward computes last. A NaN makes every relation that reads it infinite, so every layer below fc2 ties at inf with fc2's own backward-data relation, and note() (src/checks/checksums.c) keeps equal ratios in the order the judge notes them, layer by layer from conv1 up, while the backward runs from fc2 down: the first wrong tensor is fc2's dx, the one named the last computed. What would name it: ties broken by compute order (forward upwards, loss, backward downwards) FIXED (checks/checksums.c step_order: of equal ratios, v[0] and the coverage line's worst are the one computed first in the step; test_checksums: test_infinite_ties_compute_order): measured PROBLEM at step 7, fc2 backward-data, input feature 1 (inf)") \
    X(LOSS_GRAD_NAN_ONCE, "loss_grad_nan_once", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 8: at step 7, sample 0's loss gradient at its label class is NaN (a 0 x inf transient in the softmax); the loss value is right", \
      "as fc2_dx_nan_dead_once: measured PROBLEM at step 7 naming conv1 backward-weights (inf): the loss check, noted after every layer, ties at inf with every backward relation that read the NaN, and the first noted wins FIXED (step_order): measured PROBLEM at step 7, loss, 'loss gradient dz re-done from the logits' (inf)") \
    X(CONV2_DX_INF_ONCE, "conv2_dx_inf_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 8: at step 7, conv2's input gradient (pool1.dact) of sample 0 at its largest |dx| is +-inf (an overflow in one element); pool1, relu1 and conv1's backward-weights compute from it (inf, or NaN where x = 0)", \
      "as fc2_dx_nan_dead_once: measured PROBLEM at step 7 naming conv1 backward-weights, output channel 8 (inf, 1 of 16 relations): conv1 is judged first and computed last FIXED (step_order): measured PROBLEM at step 7, conv2 backward-data, sample/input channel 8 (inf)") \
    X(ADAM_T_EPOCH_RESTART, "adam_t_epoch_restart", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 8: the bias corrections' step counter counts the steps of the current epoch (reset when an epoch starts: step 6, the second epoch's first, uses t = 1's corrections); m, v and every first-epoch step are right", \
      "(1 - b1^t) and sqrt(1 - b2^t) of t = 1 at t = 6 make the step ~1.9x too large: measured PROBLEM at step 6, fc1 update, 'fc1.weight Adam re-done from the step's p, m, v, g: 80234 element(s) differ', 1.70e6") \
    X(ADAM_T_OWN_COUNTER, "adam_t_own_counter", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 8: the bias corrections use the engine's own count of updates instead of the step t it is given: right until the caller restores an earlier state and trains again (the drift phase restarts at step 1 after the 2 attribution steps), then ahead by 2 (t = 3 at step 1)", \
      "the attribution steps, where the count is right, are clean; measured PROBLEM at step 1 of the drift phase, fc2 update, 'fc2.weight Adam re-done ...: 470 element(s) differ', 7.03e5") \
    X(ADAM_L2_BIASES, "adam_l2_biases", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 8: every update adds coupled L2 decay to the bias tensors' gradient inside the optimizer (torch.optim.Adam's weight_decay: g + wd p, wd = 2^(10 - k), 0.0156 at fault_k=16), to the biases only (a parameter-group mix-up, the reverse of the usual no-decay-for-biases rule, configured by nobody); the gradient reported is the backward's", \
      "the Adam re-check re-does each element from the step's reported g: measured PROBLEM at step 1, fc1 update, fc1.bias 64 elements differ (up to 1e-3; 5.17e37 of the furthest one's own bound); the attribution compare: conv1.bias 2.07e5") \
    X(LOSS_GRAD_DIV_N, "loss_grad_div_n", "op", "fc2|loss", "loss", "smallcnn --batch 20 --limit-train 72 --limit-test 64 --epochs 2 --steps 8 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 8, a legal variant: the loss gradient divided by n, (p - [j = y]) / n, one correctly rounded division, instead of multiplied by fl(1/n), two roundings; at batch 20 (72 images: 3 batches of 20, one of 12), where 1/n is inexact; the loss is the same", \
      "each element within an ulp of the other formula's, and nearer exact: measured VERDICT ok, exit 0, no SUSPECT (worst checksum 0.345, fc2 backward-data; the loss-gradient check, the clean batch-20 run's worst at 0.341, drops below it); per element 0.934 of the fp32 bound (clean: 0.925)") \
    X(DB_DOUBLE_SUM, "db_double_sum", "op", "conv1|conv2|fc1|fc2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 8, a legal variant: every bias gradient (conv1, conv2, fc1, fc2) is the sum of the fp32 dy in double, rounded once (the correctly rounded sum: as accurate as an fp32 result can be)", \
      "within half an ulp of the exact sum: inside any gamma_K bound, and no one-signed shift for the sharper tier: measured VERDICT ok, exit 0, no SUSPECT (worst checksum 0.323, per element 0.969: the clean run's); the run did change (evaluation vs the reference 9.56e-5, clean 1.22e-4)") \
    X(DB_SERIAL_FP32, "db_serial_fp32", "op", "conv1|conv2|fc1|fc2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 8, a legal variant: every bias gradient (conv1, conv2, fc1, fc2) summed serially in one fp32 accumulator, samples outer, positions inner (12544 terms for conv1 at batch 16), as a one-thread-per-channel kernel does: the least accurate usual order, where oneDNN's is blocked", \
      "a serial sum's error is a sum of K independent roundings of growing partial sums, within gamma_K sum|dy| and without a one-signed shift; the sharper tier must not take it for one: measured VERDICT ok, exit 0, no SUSPECT (worst checksum 0.323, per element 0.969: the clean run's; evaluation vs the reference 1.03e-4, clean 1.22e-4: the run changed); at --batch 128 --limit-train 512 (100352 terms for conv1) ok too, per element 0.943") \
    X(FC1_FWD_SERIAL_ORDER, "fc1_fwd_serial_order", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 8, a legal variant: fc1's forward (training and evaluation) is a serial fp32 dot product per output, the bias first, then the 1568 inputs in order (not oneDNN's blocked order)", \
      "a serial sum's error grows with K but stays within gamma_K sum|w x|, and the sharper tier must not take a legal order for a shift: measured VERDICT ok, exit 0, no SUSPECT (worst checksum 0.291, per element 0.970 of the bound); the values did change (evaluation vs the reference 2.26e-4, clean 1.22e-4)") \
    X(LOSS_VALUE_PARTIAL_MEAN_MAX, "loss_value_partial_mean_max", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: in a partial batch (steps 5 and 10: 8 of 16 images) the training loss the engine reports is the sum over the batch divided by the full batch size (16), not by n; the gradient is right (only the reported number, the one a loss curve shows, is wrong)", \
      "the gradient and every relation hold; the loss re-check re-does the loss from the logits: measured PROBLEM at step 5 (the first partial batch), loss, 'loss (softmax cross-entropy) re-done from the logits', 4.60e5; the shadow replay of step 10 against the reference: loss 4.76e5") \
    X(LABELS_LAST_CLASS_AS_0, "labels_last_class_as_0", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: every step, the loss's one-hot is built with C - 1 classes (label 9 wraps to class 0: y % (C - 1)): every sample of class 9 is trained as class 0, loss and gradient; the labels the engine holds are right", \
      "the loss re-check re-does dz from the labels the audit gave: measured PROBLEM at step 2 (the first batch holding a 9), loss, 'loss gradient dz re-done from the logits', 7.31e6; per element against the reference at attribution step 2, fc2.dact 7.31e6") \
    X(LOSS_LABEL_SMOOTHING, "loss_label_smoothing", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: label smoothing configured by nobody, with a tiny epsilon: the target is (1 - eps)[j = y] + eps / C, eps = 2^-(k + 4) (2^-20 at fault_k=16), in the loss and its gradient (PyTorch's CrossEntropyLoss(label_smoothing=eps))", \
      "dz moves by eps (1 - 1/C) / n at the label and eps / (C n) elsewhere, ~2^-20 / 16 against dz's per-element bound of a few u |dz|: measured PROBLEM at step 1, loss, 'loss gradient dz re-done from the logits', 3.22 (fc2.dact 3.54 per element at the shadow of step 10); eps = 2^-22 would be within the rule's worst case (one-signed, but the loss rule has no sign test: loss_grad_1ulp)") \
    X(ADAM_EPS_HAT, "adam_eps_hat", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: TensorFlow 1 / Keras Adam's epsilon-hat: p -= (lr sqrt(1 - b2^t) / (1 - b1^t)) m / (sqrt(v) + eps), i.e. eps added to sqrt(v) before the bias correction, not after (PyTorch's sqrt(v) / sqrt(1 - b2^t) + eps): an optimizer from the other framework", \
      "eps is 1e-8 against sqrt(v) / bc, and weights with small v move by several percent more: measured PROBLEM at step 1, fc1 update, 'Adam re-done from the step's p, m, v, g', 1.11e6; per element at attribution step 1, conv1.weight 12862") \
    X(ADAM_ZERO_GRAD_MOMENTS_FROZEN, "adam_zero_grad_moments_frozen", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: where the gradient is exactly 0, m and v are not decayed (a sparse-Adam shortcut: moments updated only where g != 0), and p still moves by step m / (sqrt(v) / bc + eps) of the frozen moments (unlike adam_lazy_zero_grad, which keeps p too)", \
      "fires where g == 0 exactly (fc1's dead features, from step 2: at step 1 m = v = 0 and nothing differs): measured PROBLEM at step 2, fc1 update, 7.91e5; per element at attribution step 2, conv1.weight 56521") \
    X(ADAM_T_COUNTS_EVAL, "adam_t_counts_eval", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: the bias corrections' step counter is one ahead once an evaluation has run (the evaluation pass counted as a step): t + 1 from the second epoch on (step 6); m, v and the first epoch are right", \
      "t = 7 for 6 changes (1 - b1^t) by 11%: measured PROBLEM at step 6, fc1 update, 58824; the first epoch is clean") \
    X(EVAL_FC2_PRE_UPDATE_WEIGHTS, "eval_fc2_pre_update_weights", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: every evaluation's fc2 forward uses fc2's weights from before the epoch's last update (the inference copy refreshed before the optimizer step, not after); training and the weights reported are right", \
      "MEASURED MISSED at first, and not by the judges: with the state round trip on (the default), the round trip of the epoch's last step (a shadow step: the partial batch) ran before the evaluation; its probe steps go through the engine's update and the audit then sets the state back, so the copy taken before the last update WAS the current weights and the evaluation was right (the copy differed from the weights by 0: VERDICT ok, exit 0; the audited run and an unaudited train differed). With --no-roundtrip: PROBLEM at the evaluation after epoch 1, fc2 evaluation, 3535. FIXED (audit/driver.c: an epoch's last step runs its round trip after the evaluation, on its own batch again; test_mutants: test_roundtrip_after_eval): measured PROBLEM at the evaluation after epoch 1, fc2 evaluation, 3535 (8 of 8 evaluation batches violated); evaluation vs the reference after epoch 2: 4.9, 0 predictions differ. What stays: the probes still run before the next training step, so state of this kind is the probe's there (README Known limits) CLOSED (the round trip no longer steps the engine: its probe is the real next step, its set-state runs a second instance's): measured PROBLEM at the evaluation after epoch 1, fc2 evaluation, 3535, as with --no-roundtrip") \
    X(EVAL_RELU3_LOST_AFTER_FIRST, "eval_relu3_lost_after_first", "op", "relu3", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: in every evaluation batch after the first (k >= 1), relu3 passes its input through unchanged (the inference primitive re-created after the first batch without its ReLU post-op); the first batch and training are right", \
      "ReLU is exact and re-checked in every evaluation batch: measured PROBLEM at the evaluation after epoch 1, relu3 evaluation, 'relu3 forward: 537 element(s) not the exact re-computation' (inf); evaluation vs the reference: 441, 12 of 64 predictions differ") \
    X(CONV2_DX_SLICE_STALE_W_ONCE, "conv2_dx_slice_stale_w_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: at step 7, conv2's backward-data for the second half of the batch (one thread's slice of samples) uses step 6's weights, from before the last update (that thread's weight copy not refreshed); the first half, dW and db are right", \
      "the weights moved by ~1e-3 in the last update, 2-4% of each: the half-batch's dx is off by ~1% against gamma_144 sum|w dy|: measured PROBLEM at step 7, conv2 backward-data, 610 (the sample-and-channel relations of samples 8-15)") \
    X(FC1_DW_SHORT_SIGN_ONCE, "fc1_dw_short_sign_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: at step 7, fc1's weight-gradient elements that are exactly representable with 12 significant bits (the low 12 mantissa bits zero: the values a packer stores in a short format) lose their sign (stored as +|g|): a sign error only on 'short' values", \
      "5 elements of fc1's 100352 dW fire at step 7 (LS_FAULT_VERBOSE=1 prints the count), each 2|g| off in a row relation of 1568 elements: measured PROBLEM at step 7, fc1 backward-weights, 346") \
    X(LOSS_GRAD_PARTIAL_LAST_ROW_STALE, "loss_grad_partial_last_row_stale", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: in a partial batch, the loss gradient's last row (sample n - 1) is not written (a remainder loop one short) and keeps what the buffer held from the batch before; the loss value is right", \
      "the loss re-check re-does every row of dz: measured PROBLEM at step 5, loss, 'loss gradient dz re-done from the logits', 3.56e6 (and at the shadow of step 10, fc2.dact 3.73e6)") \
    X(REPORT_POOL2_ACT_BF16, "report_pool2_act_bf16", "op", "pool2|flatten|fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: pool2's training activations as the engine reports them (get_tensor, outside its own checks) are rounded to bf16; the engine trains with, and checks, the exact ones: a corrupted report of a correct state", \
      "every check the engine computes reads its tensors in place and holds; what reads the report is the reference: measured PROBLEM at attribution step 1, pool2 forward (exact rule: pool2.act read back differs from the reference's max-pool of the leader's input, inf), and at the shadow replay of step 5 named flatten forward (the reference's flatten consumes the reported pool2.act; flatten's own report is exact: in a replay a report fault at layer l is named at its consumer l + 1). At steps no reference replays nothing reads the report, and nothing computed from it is wrong") \
    X(ADAM_PYTORCH_LERP, "adam_pytorch_lerp", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 10, a legal variant: torch.optim.Adam's own evaluation order (PyTorch 2.x single-tensor Adam): m.lerp_(g, 1 - b1), i.e. m + (1 - b1)(g - m); v.mul_(b2).addcmul_(g, g, value=1 - b2), i.e. b2 v + ((1 - b2) g) g; then p + (-step) (m / (sqrt(v) / bc + eps))", \
      "a legal order: each of m', v', p' within its fp32 bound. MEASURED FALSE ALARM after the re-check was made to carry each tensor's worst element (below): PROBLEM at step 2, fc1 update, 1.16 of the bound: m + w(g - m) rounds g - m, w(g - m) and the sum, ~3u w|g| where |m| << |g|, over ops_adam_elem's 2u(b1|m| + w|g|) (test_bounds: test_adam_pytorch_order, 1.29 on random states). Before that fix the re-check carried the element furthest in ulps and read 0.84 (SUSPECT) by luck of the pick. FIXED (base/adam_bound.h: m's bound carries the lerp order's terms, u w|g| + 3u w|m|, 0 from m = 0): measured VERDICT SUSPECT, exit 0, 'not the engines' shared formula bit for bit, but within fp32 rounding of it' (0.951 of the worst case; per element at the attribution steps 0.941); adam_m_1ulp stays a PROBLEM (1.54 at step 2). NAMED ORDER (base/adam_orders.h, the every-step re-check recognises it bit for bit): measured VERDICT ok, exit 0, no SUSPECT, coverage line 'Adam in a recognised legal order at 10 update(s), bit for bit (ok; the largest, step 10: fc1.weight Adam: 33192 element(s) in PyTorch's single-tensor Adam's order ...)' (no other named order agrees there); before, VERDICT SUSPECT at every update (step 1: 0.898 of the worst case)") \
    X(LOSS_PYTORCH_LOG_SOFTMAX, "loss_pytorch_log_softmax", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 10, a legal variant: PyTorch's CrossEntropyLoss order: o = (z - max) - log(sum exp(z - max)) (log_softmax), loss = -mean o_y, and the backward of nll and log_softmax: dz_j = g_j - exp(o_j) (sum_j g_j), g_y = -1/n (one rounding), which for the label is fl(fl(exp(o_y) / n) - 1/n)", \
      "p_j = exp(o_j) carries the roundings of log s and of the subtraction (~u (|z - mx| + |log s|) relative), within the loss rule's 4u + u|z - mx| per exp for these logits: measured VERDICT ok, exit 0, no SUSPECT (worst checksum 0.336, the clean run's; evaluation vs the reference 1.17e-4, clean 1.22e-4)") \
    X(ADAM_OMB1_FP32, "adam_omb1_fp32", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: the optimizer computes its own 1 - b1 in fp32 from the fp32 b1 (1.0f - 0.9f = 0.100000024, exact by Sterbenz) instead of using fl(0.1) = 0.1000000015 as given: m's new term off by 2.2e-7 relative (3.75 u); everything else is ops_adam_elem", \
      "m's new term is 3.75u off against a 2u bound where |omb1 g| dominates |b1 m| (the first steps, sign changes): measured PROBLEM at step 1, fc1 update, 2.33; per element at attribution step 1, conv1.weight.adam_m 1.6") \
    X(ADAM_FMA_OMB1_FP32, "adam_fma_omb1_fp32", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: a vendor fused Adam kernel: FMA-contracted (legal: adam_fma_contracted) AND its own 1 - b1 in fp32 from b1 (adam_omb1_fp32's fault): the legal contraction moves some elements by many ulps within their bound, the fault moves m by a few ulps beyond it", \
      "measured PROBLEM at step 1, fc1 update, 2.33, as adam_omb1_fp32. Before the re-check carried each tensor's worst element it carried the one furthest in ulps, which the legal contraction decides (p' near 0 after the update differs by thousands of ulps within its bound): at drift step 2, fc1.weight's carried element was 0.915 of its bound while 31775 of its m' were over (up to 2.72), conv2.weight 0.807 with 1610 over: the violation was judged only where a tensor's furthest element happened to be one of them (step 1: 2.28 at conv1.bias). Now every step's carried element is the worst (test_checksums: test_adam_worst_element_carried)") \
    X(ADAM_BC_FP32_POW, "adam_bc_fp32_pow", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 10: the optimizer computes its own bias corrections in fp32 from the fp32 betas (step_size = lr / (1 - powf(b1, t)), bc2 = sqrtf(1 - powf(b2, t)), as fused kernels that take float betas do) instead of the scalars it is given (made in double from the settings): 1 - 0.999f = 9.9998713e-4 for 1e-3, ~107 u in bc2 at t = 1", \
      "bc2 off by ~107u at t = 1 shifts every update by ~6e-6 relative, beyond u|p'| where the update is not tiny against p: measured PROBLEM at step 1, fc1 update, 13.1; per element at attribution step 1, conv1.weight 8.87") /* zoo attack 11 */ \
    X(INPUT_AFTER_EVAL_STALE, "input_after_eval_stale", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: the first training set_batch after an evaluation keeps the images the evaluation's last batch left in the input buffer (one buffer for both; the copy skipped once), the labels are the new batch's: a trigger keyed to 'the first step after an evaluation', which the epoch's round trip (run after the evaluation) may consume", \
      "the round trip of the epoch's last step runs after the evaluation, so its first probe is the first set_batch after it and the trigger fires there, not at step 6 (which trains right). MEASURED MISNAMED at first: PROBLEM, but 'the state it trains with is not the state it reports (first: conv1.act, after step 5)', phase state, while the state was right (with --no-roundtrip: step 6, conv1 forward, 'input: the images this step computed with are not the batch it was given'). FIXED (audit/driver.c probe: each probe reads back the images it computed with, TENSOR_INPUT, bit for bit against the batch; explain.c: engine verdict 'input mismatch'; test_mutants: test_roundtrip_probe_input): measured PROBLEM, conv1 forward at the probe of step 6, 'the state round trip's probe of step 6 computed with other images than the batch it was given' (inf), no state mismatch With the round trip on a second instance, the trigger fires in step 6 itself: measured PROBLEM at step 6, conv1 forward, by the every-step input digest, and the round trip reads the same back after the step ('step 6 computed with other images than the batch it was given'), no state mismatch") \
    X(INPUT_IMAGE_DUP_ONCE, "input_image_dup_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: at step 7, sample 5's image is sample 4's (the loader's index read twice); the labels are right", \
      "the every-step input digest: measured PROBLEM at step 7, conv1 forward, 'input: the images this step computed with are not the batch it was given (digest)' (inf)") \
    X(EVAL_IMAGE_DUP_FIRST, "eval_image_dup_first", "op", "conv1", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: in the first evaluation (not the last: no reference logits), batch 0's sample 1 is evaluated on sample 0's image (an image read twice)", \
      "every evaluation batch's input digest: measured PROBLEM at the evaluation after epoch 1, conv1 evaluation, 'input: the images this evaluation batch computed with are not the batch it was given' (inf)") \
    X(INPUT_PARTIAL_LAST_ZERO, "input_partial_last_zero", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: in a partial batch, the last sample's image is zeros (the short batch's copy one row short over a zero-filled buffer); the labels are right", \
      "measured PROBLEM at step 5 (the partial batch), conv1 forward, input digest (inf); per element at the shadow replay of step 5, conv1.act 1.57e6") \
    X(LOSS_VALUE_REPORT_STALE_ONCE, "loss_value_report_stale_once", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: at step 7, the loss value returned is step 6's (a scalar read back before the reduction finished); the engine's own loss and dz are right", \
      "the read-back tie of the loss: measured PROBLEM at step 7, fc2 loss, 'read-back: the loss reported to the driver (2.16089869) is not the one the checks judged (2.20103669)' (inf)") \
    X(LOSS_VALUE_REL_EPOCH2, "loss_value_rel_epoch2", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: from step 6 (the second epoch) on, the loss value (engine's and reported) is scaled by 1 + 2^(4 - k) (2^-12 at fault_k=16); dz is right", \
      "the loss re-check bounds the value too: measured PROBLEM at step 6, fc2 loss, 156 (5 stages); per element at the shadow of step 10, loss 232") \
    X(ADAM_V_USED_STALE_STEP8, "adam_v_used_stale_step8", "state", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: step 8's update computes with the second moments from before step 7's update (a double buffer not swapped once); what the engine reported after step 7 was right", \
      "the Adam re-check re-does the update from the v the step started with: measured PROBLEM at step 8, fc1 update, 9.52e9") \
    X(EVAL_BEYOND256_FC2_TOP2_SWAP, "eval_beyond256_fc2_top2_swap", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 272 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: in the first evaluation, on the first batch past test image 256 (those the reference never sees), sample 0's two largest logits are exchanged (its prediction flips to the runner-up)", \
      "the evaluation relations run on every batch of every evaluation, not only the reference's 256 images: measured PROBLEM at the evaluation after epoch 1, fc2 evaluation, 88202") \
    X(EVAL_PARTIAL_LAST_ROW_STALE, "eval_partial_last_row_stale", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 56 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: in an evaluation's partial last batch, fc2's output row of the last sample is the one the batch before left in the buffer (a remainder loop one short)", \
      "measured PROBLEM at the evaluation after epoch 1, fc2 evaluation, 35662 (and the evaluation vs the reference after epoch 2, 139)") \
    X(FC2_DB_SAME_LABEL_DROPPED_ONCE, "fc2_db_same_label_dropped_once", "op", "fc2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: two conditions: at step 7, fc2's bias gradient leaves out the samples of the batch's most frequent label, all but the first of them (a segmented reduction keyed on the label); dW and dx are right", \
      "first written keyed on sample 0's label, which was unique in step 7's batch: the fault never fired (LS_FAULT_VERBOSE=1: db unchanged) and the audit said ok, rightly. As written now (label 3, three samples): measured PROBLEM at step 7, fc2 backward-weights (bias), 4.57e5 (10 of 10 relations over)") \
    X(PARAMS_RESTORE_TRUNC_1ULP, "params_restore_trunc_1ulp", "state", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: once training has begun, every parameter the audit sets back (the round trip's restore) is stored with its last mantissa bit cleared (a lossy staging copy: up to 1 ulp toward zero)", \
      "the first restore after training is the drift phase's set_initial: measured PROBLEM at step 1, conv1 state, 'continuity: conv1.weight values this step computed with are not those the audit set' (inf); the round trip says the same ('trains with another state than it reports', after step 1). With the round trip on a second instance nothing sets the engine's state back during the drift phase; the clone's own loads are lossy once it has trained (its first load is not), so at a later check it computes from a state up to 1 ulp off the reported one: measured 'the state it trains with is not the state it reports (first: conv1.act; the state reported after step 5, trained with at step 6)'; the first PROBLEM stays step 1, conv1, continuity") \
    X(EVAL_LOGITS_BEYOND256_BF16_LAST, "eval_logits_beyond256_bf16_last", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 272 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: in the last evaluation, the logits read back for the test images past the first 256 (those the reference does not compute) go through a bf16 staging buffer (to nearest even); what the engine computed and checked is fp32's", \
      "the read-back tie of every evaluation batch's logits: measured PROBLEM at the evaluation after epoch 2, fc2 evaluation, 'read-back: 160 of 160 evaluation logits read back are not those the checks judged' (inf). Also 'evaluation vs the reference EXCEEDS (1.92)': the comparison's own forward pass (eval_ref_batch, set_batch at step 0 with no training step between) continues the fault's batch count, so its batches are the fault's 17th and on (an artifact of the fault's trigger, not of the comparison)") \
    X(EVAL_LOGITS_BEYOND256_BF16_FIRST, "eval_logits_beyond256_bf16_first", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 272 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: as eval_logits_beyond256_bf16_last, in the first evaluation (after epoch 1: no reference logits at all)", \
      "measured PROBLEM at the evaluation after epoch 1, fc2 evaluation, 'read-back: 160 of 160 evaluation logits read back are not those the checks judged' (inf)") \
    X(EVAL_FC2_BIAS_DRIFT, "eval_fc2_bias_drift", "state", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11: every evaluation batch's fc2 forward raises fc2's bias 0 by one ulp in place, before computing with it (a fused bias-add epilogue that writes its accumulator back into the bias buffer): the evaluation computes with, and training continues from, a bias no update made", \
      "the evaluation's continuity: measured PROBLEM at the evaluation after epoch 1, fc2, 'continuity: fc2.bias values this evaluation computed with are not those the last update reported' (inf, 10 stages)") \
    X(DESCRIBE_WINO_CONV2_ACT_CORRUPT_ONCE, "describe_wino_conv2_act_corrupt_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 11, aimed at the explanation: act_corrupt_once's fault (step 7, conv2's largest output of sample 0, channel 0 doubled) in an engine whose describe() names a Winograd kernel for conv2's forward (jit_wino_4x3:avx512_core) that it does not run", \
      "the verdict does not read describe(), the explanation does: measured PROBLEM at step 7, conv2 forward, 45684 (as act_corrupt_once), but the finding reads 'conv2 runs Winograd, an approximate convolution' and its fix is the algorithm (explain.c: layer_transforms trusts describe()'s kernel names; a real Winograd run gives ratios up to 3.59e11, so the ratio cannot tell them apart). FIXED (explain.c: a transform breaks relations at every step it runs - a real oneDNN Winograd conv2 8 of 8 steps; a layer that claims one while under half of 4 or more judged stages broke a relation is explained as a fault; test_mutants: test_claimed_transform_one_off): measured 'conv2 claims Winograd, yet only 1 of 18 judged stage(s) broke a relation: a fault, not the transform', the fix text a fault's") /* the legal-variant attack */ \
    X(FC1_FWD_DOUBLE_ACC, "fc1_fwd_double_acc", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: fc1's forward accumulated in double (bias first, then the 1568 products in order) and rounded to fp32 once (an fp64-accumulating GEMM)", \
      "more accurate than any fp32 order: within u|y| of exact, far inside gamma_K (sum|w x| + |b|)") \
    X(FC1_FWD_BLOCKED16, "fc1_fwd_blocked16", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: fc1's forward as 16 fp32 partial sums (input t into lane t mod 16, a 16-wide SIMD dot product), the lanes combined pairwise, the bias added last", \
      "another summation order of the same K + 1 terms: each term passes through at most 98 + 4 + 1 additions, within gamma_K") \
    X(CONV2_FWD_PAIRWISE, "conv2_fwd_pairwise", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: conv2's forward with each output's 144 products summed pairwise (recursive halving, 8 serial at the leaves: numpy's order), the bias added last", \
      "a summation tree of depth <= 8 + 5: within gamma_K of exact") \
    X(FC1_DX_BLOCKED8, "fc1_dx_blocked8", "op", "fc1|pool2|flatten", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: fc1's backward-data with 8 fp32 accumulators (output unit j into lane j mod 8), the lanes combined pairwise", \
      "another summation order of the 64 products: within gamma_64 sum|w dy|") \
    X(FC1_DW_PAIRWISE, "fc1_dw_pairwise", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: fc1's weight gradient with each element's batch sum (sum_s dy[s,j] x[s,t]) summed pairwise; the bias gradient is the engine's", \
      "a summation tree over the batch: within gamma_n sum|dy x|") \
    X(CONV2_DW_BLOCKED16, "conv2_dw_blocked16", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: conv2's weight gradient with each element's batch x positions sum in 16 fp32 accumulators (term q into lane q mod 16, samples outer), the lanes combined pairwise; padding taps skipped (their products are 0)", \
      "another summation order of the n x 196 products: within gamma_K sum|dy x|") \
    X(DB_KAHAN, "db_kahan", "op", "conv1|conv2|fc1|fc2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: every bias gradient summed with Kahan's compensated summation in fp32 (samples outer, positions inner)", \
      "compensated: within 2u + O(K u^2) of sum|dy| of exact, inside gamma_K") \
    X(LOSS_PYTORCH_LSE, "loss_pytorch_lse", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: PyTorch's vectorised log_softmax order: lse = mx + log(sum exp(z - mx)) rounded to fp32, o_j = z_j - lse, loss = -mean o_y (in double), dz_j = (exp(o_j) - [j = y]) * fl(1/n)", \
      "lse carries u|lse| absolute and z - lse another u|o|: p_j is off by ~u(|mx| + |log s| + |o_j|) relative: legal, but a larger error than (z - mx) - log s where |mx| is large") \
    X(LOSS_MEAN_FP32_PRESCALED, "loss_mean_fp32_prescaled", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: the batch loss as an fp32 sum of the rows' losses each scaled by fl(1/n) first (sum_i fl(l_i fl(1/n)), serial fp32), not the double mean; dz is the engine's", \
      "the mean with 1/n applied before the sum, in fp32: within (n + 1) u of sum l_i / n, and the loss is ~2.3") \
    X(ADAM_ADDCDIV_ORDER, "adam_addcdiv_order", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: PyTorch's foreach / fused Adam order: addcdiv(p, m, den, value=-step) evaluates p + ((-step) m) / den (the step multiplied into m before the division), den = sqrt(v) / bc2 + eps; m and v as ops_adam_elem", \
      "the same update with the same scalars, the product and the quotient in the other order: the same number of roundings. NAMED ORDER (base/adam_orders.h, the every-step re-check recognises it bit for bit): measured VERDICT ok, exit 0, no SUSPECT, coverage line 'Adam in a recognised legal order at 10 update(s), bit for bit (ok; the largest, step 2: fc1.weight Adam: 3357 element(s) in the shared formula with addcdiv's p + ((-step) m) / den's order ...)' (no other named order agrees there); before, VERDICT SUSPECT at every update (step 1: 0.81 of the worst case)") \
    X(ADAM_CAPTURABLE, "adam_capturable", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: PyTorch's capturable foreach Adam: sn = -step; den = sqrt(v) / fl(bc2 sn) + fl(1 / fl(sn / eps)); p + m / den (negative den); m and v as ops_adam_elem", \
      "algebraically the same update from the same scalars, two more roundings on the scalars (relative u each), one fewer multiply. NAMED ORDER (base/adam_orders.h, the every-step re-check recognises it bit for bit): measured VERDICT ok, exit 0, no SUSPECT, coverage line 'Adam in a recognised legal order at 10 update(s), bit for bit (ok; the largest, step 1: fc1.weight Adam: 6102 element(s) in PyTorch's capturable foreach Adam's order ...)' (no other named order agrees there); before, VERDICT SUSPECT at every update (step 1: 0.824 of the worst case)") \
    X(ADAM_TEXTBOOK_MHAT, "adam_textbook_mhat", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: Kingma and Ba's own order: mh = m / bc1, vh = v / bc2 (bc1 = 1 - b1^t, bc2 = 1 - b2^t made in double, rounded once), p - lr (mh / (sqrt(vh) + eps)), lr rounded once; m and v as ops_adam_elem", \
      "algebraically the same update; its scalars are lr, bc1, bc2 (each one rounding from the settings), not step and bc2_sqrt. NAMED ORDER (base/adam_orders.h, the every-step re-check recognises it bit for bit): measured VERDICT ok, exit 0, no SUSPECT, coverage line 'Adam in a recognised legal order at 10 update(s), bit for bit (ok; the largest, step 1: fc1.weight Adam: 14793 element(s) in Kingma and Ba's Algorithm 1's order ...)' (no other named order agrees there); before, VERDICT SUSPECT at every update (step 1: 0.88 of the worst case)") \
    X(DROPOUT_MASK_MUL, "dropout_mask_mul", "op", "drop1", "forward", "mnist-convnet", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: PyTorch's native dropout: y = (x * mask) * scale and dx = (dy * mask) * scale with mask a 0/1 float (input.mul(mask).mul_(scale)): a dropped negative x (or dy) gives -0, not +0", \
      "every kept value is x * scale bit for bit; a dropped one is a zero of the other sign, which no operation of the model tells apart") \
    X(FC1_FWD_FMA_SERIAL, "fc1_fwd_fma_serial", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: fc1's forward as a serial chain of fused multiply-adds, acc = fma(w, x, acc) from the bias (one rounding per term, as every FMA GEMM microkernel)", \
      "one rounding per term instead of two: within gamma_K") \
    X(CONV2_DX_PAIRWISE, "conv2_dx_pairwise", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: conv2's backward-data with each input gradient's 288 terms (output channel, tap) summed pairwise; padding taps skipped", \
      "another summation order: within gamma_K sum|w dy|") \
    X(CONV_DW_SERIAL_FP32, "conv_dw_serial_fp32", "op", "conv1|conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "legal-variant attack: every conv weight gradient as one serial fp32 accumulator over samples and positions (12544 terms for conv1 at batch 16, 200704 at 256: a one-thread-per-weight kernel); the bias gradient is the engine's", \
      "a serial sum of K terms: within gamma_K sum|dy x|; its typical error grows like sqrt(K) u, the sharper tier's question") \
    X(CONV1_DW_SORTED_ASC, "conv1_dw_sorted_asc", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "second legal-variant attack (correlated roundings): conv1's weight gradient, each element's n x 784 products sorted by ascending magnitude and summed serially in fp32 (200704 terms at batch 256)", \
      "a summation order of the same products: within gamma_K sum|dy x|; the partial sums grow steadily, the sharper tier's independence model is the question") \
    X(CONV1_DW_SORTED_DESC, "conv1_dw_sorted_desc", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "second legal-variant attack: conv1's weight gradient, products sorted by descending magnitude, serial fp32 (the tail's terms fall below half an ulp of the partial sum and are lost: errors of the tail's sign)", \
      "a summation order: within gamma_K sum|dy x|; the lost tail is a correlated error, the sharper tier's question") \
    X(CONV1_DW_POSNEG, "conv1_dw_posneg", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "second legal-variant attack: conv1's weight gradient, every positive product first, then every negative one, serial fp32 (partial sums rise monotonically to sum of the positives, then fall)", \
      "a summation order: within gamma_K sum|dy x|; the errors ride one monotone partial sum, the systematic regime the independence model excludes") \
    X(CONV_DW_MB_CHUNKS, "conv_dw_mb_chunks", "op", "conv1|conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "second legal-variant attack: every conv weight gradient with the minibatch split as oneDNN splits backward-weights over threads: 6 chunks of ceil(n/6) samples (uneven: 43 x 5 + 41 at 256, 35 x 5 + 33 at 208), each a serial sum over samples and positions, chunk sums added in chunk order", \
      "another summation order of the same products: within gamma_K sum|dy x|") \
    X(CONV_DW_BLOCKED_UNEVEN, "conv_dw_blocked_uneven", "op", "conv1|conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "second legal-variant attack: every conv weight gradient in serial blocks of 1000 consecutive terms (a block size that divides no term count here), block sums accumulated serially", \
      "another summation order: within gamma_K sum|dy x|") \
    X(CONV2_FWD_SORTED_DESC, "conv2_fwd_sorted_desc", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "second legal-variant attack: conv2's forward, each output's products and bias sorted by descending magnitude, summed serially in fp32", \
      "a summation order of the K + 1 terms: within gamma_K (sum|w x| + |b|)") \
    X(FC1_FWD_SORTED_ASC, "fc1_fwd_sorted_asc", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "second legal-variant attack: fc1's forward, each output's 1568 products and bias sorted by ascending magnitude, summed serially in fp32", \
      "a summation order: within gamma_K (sum|w x| + |b|)") \
    X(FC1_FWD_POSNEG, "fc1_fwd_posneg", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "second legal-variant attack: fc1's forward, each output's positive terms (products and bias) first, then its negative ones, serial fp32", \
      "a summation order: within gamma_K (sum|w x| + |b|); partial sums monotone, then monotone the other way") \
    X(FC1_DW_POSNEG, "fc1_dw_posneg", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "second legal-variant attack: fc1's weight gradient, each element's batch sum with the positive products first, then the negative ones, serial fp32; the bias gradient is the engine's", \
      "a summation order over the batch: within gamma_n sum|dy x|") /* zoo attack 12 below */ \
    X(DROPOUT_BWD_PREV_MASK_ONCE, "dropout_bwd_prev_mask_once", "op", "drop1", "backward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: at step 7 only, dropout backward draws the mask of step 6 (forward draws step 7's): a backward that re-derives its mask from a step counter already advanced, once", \
      "about half of the kept elements' gradients land where forward dropped: the every-step dropout backward re-check keys the mask on (seed, step, element): measured PROBLEM at step 7, drop1 backward-data, 12795 elements not the exact re-computation") \
    X(DROPOUT_MASK_SAMPLE0_ONCE, "dropout_mask_sample0_once", "op", "drop1", "forward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: at step 7 only, every sample gets sample 0's dropout mask (the element index taken modulo the sample's size: a mask drawn for one sample and broadcast over the batch), forward and backward alike", \
      "forward and backward agree, each kept element is x / (1 - p), the fraction kept is right; the re-check keys the mask on the element's index in the batch: measured PROBLEM at step 7, drop1 forward, 7947 elements not the exact re-computation") \
    X(EVAL_DROPOUT_ON_PARTIAL_LAST, "eval_dropout_on_partial_last", "op", "drop1", "evaluation", "mnist-convnet --limit-train 72 --limit-test 56 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: dropout stays in training mode in one evaluation batch only: the last evaluation's partial last batch (8 of 56 test images)", \
      "the evaluation checksum requires dropout to be the identity in every evaluation batch: measured PROBLEM at the evaluation after epoch 2, drop1 evaluation, 8416 elements not the exact re-computation (the fault's trigger skips the comparison pass's own partial batch)") \
    X(DROPOUT_KEY_OWN_COUNTER, "dropout_key_own_counter", "op", "drop1", "forward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: dropout keys its mask on the engine's own count of training batches, not the step it is given: right until the caller sets an earlier state back and trains again (the round trip's probes, the drift phase after attribution)", \
      "the key is the step's while the counts agree (both attribution steps: no round trip runs there); the re-check keys the mask on the audit's step: measured PROBLEM at drift step 1 (key 3), drop1 forward, 8699 elements not the exact re-computation; the shadow replay of step 5 against the reference: drop1.act (inf)") \
    X(FC1_FWD_FLATTEN_NHWC_ONCE, "fc1_fwd_flatten_nhwc_once", "op", "fc1|flatten", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: at step 7 only, fc1's forward reads flatten's output in NHWC order (x[c HW + q] taken as x[q C + c]: a flatten ported from a channels-last framework); flatten's reported output is right", \
      "another dot product: errors of the order of the output; fc1's forward relations read the reported flatten output: measured PROBLEM at step 7, fc1 forward, 2017") \
    X(FC1_DX_FLATTEN_NHWC_ONCE, "fc1_dx_flatten_nhwc_once", "op", "fc1|flatten|pool2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: at step 7 only, fc1's input gradient is written in NHWC order (what belongs at feature q C + c lands at c HW + q), and pool2's backward routes it so; forward and fc1's weight gradient are right", \
      "whole gradients at other features: fc1's backward-data relations re-do every element of each sample: measured PROBLEM at step 7, fc1 backward-data, 3.97e5") \
    X(EVAL_CONV2_INTERIOR_BITFLIP_LAST, "eval_conv2_interior_bitflip_last", "op", "conv2|fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: in the last evaluation's first batch, one interior conv2 output of test image 5 (channel 11: the median of the positive outputs that are their pool window's maximum, not the plane's largest) has mantissa bit 13 flipped (a single-bit upset: 0.16309 -> 0.163212, ~6000 ulps, that reaches fc1 and the logits the accuracy is counted from)", \
      "the evaluation's relations are conv2_fwd_interior_bitflip_once's blind spot (one element away from the plane's sampled ones is seen at ~P x its bound: sharper tier 0.536, worst case 0.323 of the run): measured VERDICT ok, exit 0 (bit 17 instead: PROBLEM 2.02, conv2 evaluation). The last evaluation is computed a second time, by the comparison with the reference (the first 256 test images in the evaluation's batches, the same weights), whose logits were judged only by the propagated bound. FIXED (driver.c eval_ref_batch: for the cpu engine, a deterministic forward, the comparison pass's logits are tied bit for bit to those the evaluation read back; test_mutants: test_eval_ref_tie): measured PROBLEM at the evaluation after epoch 2, fc2 evaluation (the logits: the tie does not localize), '1 of 64 test images' logits differ bit for bit between two forward passes of the same weights and images (first: image 5)'") \
    X(EVAL_LAST_PIXEL_1ULP, "eval_last_pixel_1ulp", "op", "conv1", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: in the last evaluation's last batch, one pixel (the centre) of the last image is one ulp up (a copy through another precision, one value)", \
      "the evaluation's input digest is bit for bit: measured PROBLEM at the evaluation after epoch 2, conv1 evaluation, input digest (inf)") \
    X(ADAM_AMSGRAD_ONCE, "adam_amsgrad_once", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: at step 7 only, Adam runs as AMSGrad: v' = max(v, b2 v + (1 - b2) g^2), and the step uses it (an amsgrad flag set for one step)", \
      "v' is v wherever g^2 < v: far from b2 v + (1 - b2) g^2 (v shrinks by ~0.1% a step), thousands of ulps: measured PROBLEM at step 7, conv1 update, 5543") \
    X(ADAM_FC2_BIAS_LR_MULT2_ONCE, "adam_fc2_bias_lr_mult2_once", "op", "fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: at step 8 only, fc2's bias moves by twice Adam's step (Caffe's lr_mult 2 for biases, applied to one tensor once); m and v are right", \
      "p' - p is twice the formula's for 10 elements: the Adam re-check re-does every element: measured PROBLEM at step 8, fc2 update, 8.85e5") \
    X(CONV1_DB_LATE_SCALED, "conv1_db_late_scaled", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 12: at step 9 only (a full batch of epoch 2 nothing but the every-step checks samples), conv1's bias gradient is scaled by 1 + 2^-10", \
      "2^-10 |db| against the order-generic worst case gamma_K sum|dy|, K = 16 x 784 = 12544 terms (gamma_K ~ 7.5e-4): within it wherever sum|dy| > 1.3 |db| (a sum that cancels, as bias gradients do); independent roundings make ~lambda sqrt(K) u sum|dy| ~ 6e-5 sum|dy|: measured SUSPECT at step 9, conv1 backward-weights (bias), output channel 13, x5.85 the sharper tier, 0.453 of the worst case (exit 0 under --fail-on problem, 1 under --fail-on suspect)") \
    X(REPEAT2_LABEL_SHIFTED_ONCE, "repeat2_label_shifted_once", "op", "fc2|loss", "loss", "smallcnn --repeat 2 --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: in the second listing of the engine only (--repeat 2: the copy created second, found by an instance counter), at step 8, sample 3's label is read as (label + 1) mod 10; the first listing is right", \
      "the labels are not among the operand hash's buffers, but dz is: the hashes part at step 8's STEP stage and the repeat's own vector judges it: measured PROBLEM at step 8, cpu:fault=repeat2_label_shifted_once#2, fc2 loss, 6.71e6 (the first listing clean); the pair 'NOT bitwise deterministic' from the shadow replay of step 10") \
    X(DROPOUT_OFF_FIRST_AFTER_EVAL, "dropout_off_first_after_eval", "op", "drop1", "forward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: the first training step after an evaluation runs dropout in inference mode, forward and backward (a mode flag reset lazily, after that step: a one-shot flag, not keyed to the step)", \
      "with the probes on the engine the flag fired in the round trip's first probe (step 6 trained right): 'the state it trains with is not the state it reports (first: drop1.act, after step 5)', phase state, while the state was right. With the round trip on a second instance step 6 itself runs it, and the second instance (which never evaluates) parts from it: again phase state, named first. FIXED (driver.c roundtrip: the second instance after one inference pass from the reported state reproduces the engine's step bit for bit, so the evaluation's side effect is named, not the state; test_mutants: test_roundtrip_after_eval_op): measured PROBLEM at step 6, drop1 forward (drop1.act)") \
    X(FC2_BIAS_TWICE_FIRST_AFTER_EVAL, "fc2_bias_twice_first_after_eval", "op", "fc2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 12: the first training step after an evaluation adds fc2's bias twice (an epilogue flag the evaluation left set, cleared by that step: a one-shot flag)", \
      "as dropout_off_first_after_eval, in make run's model: measured PROBLEM 'the state it trains with is not the state it reports (first: fc2.act, after step 5)', phase state. FIXED (the same fix): measured PROBLEM at step 6, fc2 forward (fc2.act)") \
    X(FC1_FWD_ORDER_ALTERNATING, "fc1_fwd_order_alternating", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "a legal but nondeterministic engine: fc1's forward is a serial fp32 dot product per output, the inputs in order at even calls of the process and in reverse at odd ones (an order set by a run-time accident, as an atomics-based reduction's is)", \
      "each call is a legal order (within gamma_K sum|w x| + |b|), so nothing may be blamed; the state round trip runs the step twice on its second instance, the two runs differ, and the check is inconclusive, never a state mismatch: it must say so (coverage line, report.md, run.json roundtrip_inconclusive; test_mutants: test_roundtrip_nondet)") \
    X(ROUND_TZ_ALL, "round_tz_all", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 13: every forward, loss, backward and update call runs with MXCSR rounding toward zero on every thread of the engine (restored on return)", \
      "a directed rounding errs by up to 1 ulp (2u) per operation, not u: the gamma_K bounds of the dot products absorb it (sharper tier: 18 relations over it, SUSPECT) but Adam's few-operation bound is built on u per rounding, and the every-step Adam re-check re-does the update in round-to-nearest: measured PROBLEM at step 1, conv1 update, 1.79 (worst: conv2.weight, 3654 elements differ, 1.92); per element vs the reference, every weight tensor 1.76 to 1.87x its bound") \
    X(ROUND_UP_ALL, "round_up_all", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 13: as round_tz_all, rounding upward (toward +inf)", \
      "as round_tz_all: measured PROBLEM at step 1, conv1 update, 1.74 (fc1.weight: 75214 elements differ, 1.91); sharper tier 19 relations over it; the sign test over the relations' residuals, 85 blocks over its limit, from step 1 (fc1 backward-data: all 1568 positive, z = 39.6)") \
    X(ROUND_TZ_STEP7, "round_tz_step7", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 13: at training step 7 only, every call runs with MXCSR rounding toward zero on every thread", \
      "step 7 is sampled by the every-step checks only: the Adam re-check sees it, measured PROBLEM at step 7, fc1 update, 1.85 (74930 elements differ); the kernels' share is a SUSPECT there, conv1 forward x1.58 the sharper tier") \
    X(THREAD1_ROUND_UP_STEP7, "thread1_round_up_step7", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 13: at training step 7 only, OpenMP thread 1 of the 2-thread engine rounds upward (its MXCSR; thread 0 is right): a flaky core's share of every kernel", \
      "thread 1 runs half of every kernel's work (static schedules) and half of the Adam loop: measured PROBLEM at step 7, fc2 update, 1.85 (538 elements of fc2.weight differ); sharper tier: conv1 forward x1.34 at step 7; sign test over the relations' residuals: fc1 backward-data z = 20.8 at step 7 (x2.76 its limit 7.53)") \
    X(THREAD1_ROUND_TZ_ALL, "thread1_round_tz_all", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 13: for the whole run, OpenMP thread 1 of the 2-thread engine rounds toward zero (thread 0 is right)", \
      "measured PROBLEM at step 1, fc2 update, 1.64 (fc1.weight: 39751 of 100352 elements differ, thread 1's half; round_tz_all: 75214); per element, SUSPECT sign tests at conv1.act x1.42, conv2.weight.grad x3.35, pool1.dact x11") \
    X(FTZ_DAZ_ALL, "ftz_daz_all", "op", "conv1|conv2|fc1|fc2|relu1|relu2|pool1|pool2|relu3|loss", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 13: every call runs with MXCSR flush-to-zero and denormals-are-zero on every thread", \
      "no effect in this run: no value the engine reads or makes is subnormal (FashionMNIST pixels are 0 or >= 1/255, weights, gradients, m and v stay far above 2^-126: counted, 0 subnormal g, m, v, p at every step), and the trained weights are byte for byte those of the clean run (--save, cmp): measured ok, worst ratio 0.323 as clean. With subnormal images it is a fault: ftz_daz_tiny_input") \
    X(GRAD_CLIP_ONCE, "grad_clip_once", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 13: at step 7 only, clip_grad_norm_(max_norm = 0.5) runs silently before the update, scaling the gradient buffer in place", \
      "||g|| = 0.583 at step 7: every gradient scaled by 0.857 before Adam; the Adam re-check re-does the update from the gradient the step reported: measured PROBLEM at step 7, fc1 update, 1.47e6 (with max_norm = 1.0, PyTorch's usual, it would not clip here: no effect)") \
    X(GRAD_CLIP_LATE, "grad_clip_late", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 13: from step 8 on, every step, clip_grad_norm_(max_norm = 0.5) before the update (in place)", \
      "||g|| = 0.637, 0.683, 1.55 at steps 8, 9, 10 (scaled by 0.785, 0.732, 0.322): measured PROBLEM at step 8, fc1 update, 2.12e6; per element vs the reference (step 10) every weight tensor ~1e6x") \
    X(RELU_GRAD_AT_ZERO, "relu_grad_at_zero", "op", "relu1|relu2|pool1|pool2|conv1|conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 13: the fused ReLU+max-pool passes the gradient where the arg-max input is exactly 0 (relu'(0) = 1, not 0)", \
      "a fault, not a legal variant: relu'(0) is a convention, but every framework's is 0 (PyTorch threshold_backward, TensorFlow ReluGrad, JAX) and lockstep's ReLU backward is an exact rule; with 1 the gradient flows into units that were exactly 0, a different subgradient and a different training trajectory, not a rounding. No effect in this run: no arg-max input of a pool window is exactly 0 (conv outputs are bias + a sum, biases nonzero: 0 pass bits change, counted); measured ok. With the biases zeroed (--init of an exported state dict with its biases set to 0, so blank 3x3 patches give exactly 0) it fires 36210 times: measured PROBLEM at step 1, relu2 backward-data, exact check, 3032 elements (the clean engine from the same --init: ok)") \
    X(POOL_TIE_BOTH_ONCE, "pool_tie_both_once", "op", "pool1|pool2|relu1|relu2|conv1|conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 13: at step 7 only, a max-pool window whose (positive) maximum appears at more than one position sends its gradient to each of them (double counting)", \
      "2587 extra routes in pool2 and 21406 in pool1 at step 7 (blank regions: a window of four equal positive values): routing is exact, measured PROBLEM at step 7, pool2 backward-data, exact check, 2141 elements") \
    X(ROUND_TZ_KERNELS_ALL, "round_tz_kernels_all", "op", "conv1|conv2|fc1|fc2|relu1|relu2|pool1|pool2|relu3|loss", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 13: every forward, loss and backward call (not the update) runs with MXCSR rounding toward zero on every thread", \
      "within every worst case (Adam is right, so no update check fires); biased, not independent: per element at steps 1 and 2 the away-from-zero sign tests fail (conv1.act x1.29, fc1.act x3.11, relu3.dact x3.92, pool1.dact z = -152 against 6.99): measured SUSPECT from step 1 (conv1 forward); every-step, 18 relations over the sharper tier, the first at step 1, fc1 backward-weights x1.75 (FIXED: the finding named the worst, step 10, x2.24, 0.458 of the worst case; test_checksum_suspect_first); the sign test over the relations' residuals: one block over its limit, step 10, fc1 backward-data z = -11.7 (x1.79)") \
    X(ROUND_TZ_KERNELS_STEP7, "round_tz_kernels_step7", "op", "conv1|conv2|fc1|fc2|relu1|relu2|pool1|pool2|relu3|loss", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 13: at step 7 only, the forward, loss and backward calls (not the update) run with MXCSR rounding toward zero on every thread", \
      "step 7 has only the every-step checks: measured SUSPECT at step 7, conv1 forward, x1.58 the sharper tier, 0.264 of the worst case (12 of 256 relations over); exit 0 under --fail-on problem. The sign test over the relations' residuals does not see it (worst conv2 forward z = -3.35, 0.51 of its limit): toward zero errs against each output's own sign, and a relation sums outputs of both signs") \
    X(GRAD_UNSCALE_1000_ONCE, "grad_unscale_1000_once", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 13: at step 7 only, every gradient goes through a loss scaler whose scale is not a power of two: g = fl(fl(g x 1000) / 1000), in place before the update", \
      "each g moves by at most an ulp or so (two roundings), but the Adam re-check re-does the update bit for bit from the gradient the step reported, before the rescale: measured PROBLEM at step 7, fc1 update, 1.57 (540 elements differ); a power-of-two scale (AMP's) would be exact and no fault") \
    X(PARTIAL_NEXT_FC1_FWD_SHORT, "partial_next_fc1_fwd_short", "state", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 13: the first full batch after a partial one (step 6, after step 5's 8 images) runs fc1's forward over the partial batch's 8 rows only: rows 8..15 keep what the buffer held (a stale batch size in one layer)", \
      "rows 8..15 hold the evaluation's last batch (test images): the every-step fc1 forward relation, measured PROBLEM at step 6, fc1 forward, 2004. NOT FIXED: the round trip's 'the state it trains with is not the state it reports (first: fc1.act; reported after step 5)', phase state, ranks first (the zoo's first PROBLEM: fc1 state, WRONG): a stale buffer whose contents come from the evaluation cannot be reproduced on the second instance, so it cannot be told from a stale weight copy. CLASSED 'state' (merge of zoo attack 13): by this table's own definition ('what the engine trains with is not what it reports, or is not refreshed'), as state_lazy_act_stale (an activation buffer not refreshed) is; the first finding names fc1 and its first stale tensor, fc1.act, and the every-step relation's fc1 forward at step 6 is the second") \
    X(PARTIAL_NEXT_FC1_DW_SHORT, "partial_next_fc1_dw_short", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 13: the first full batch after a partial one (step 6) sums fc1's weight gradient over the partial batch's 8 samples only", \
      "half the batch's x dy left out: measured PROBLEM at step 6, fc1 backward-weights, 1.04e6. FIXED (driver.c roundtrip: the second instance replays a step of the partial size before the step; test_roundtrip_after_eval_op): the round trip's state finding (step 5, phase state) ranked first and named it fc1 state (WRONG); now 'its step 6, after a partial batch, computes otherwise than the same step from the same state without one (first: fc1.weight.grad, fc1 backward)'") \
    X(DATA_BRIGHT_FC1_SCALED, "data_bright_fc1_scaled", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 13: keyed on the data, not the step: a training image whose pixels (x / 255) sum above 440 (2 of the 72 images) has its fc1 outputs scaled by 1 + 2^-k (fault_k=K, default 16)", \
      "fires at steps 1, 5 and 7 (which step depends on the shuffle); 2^-16 |y| is within gamma_1569 (sum|w x| + |b|) ~ 2^-13.4 (...) everywhere and within the per-element sharper tier; 64 of 1024 elements shifted is no sign test's signal: measured ok at k = 16 and 14. k = 12: SUSPECT at step 5, fc1 forward, x2.0 the sharper tier; k = 10: PROBLEM at step 5, fc1 forward, 2.47, and per element vs the reference at step 5's shadow replay, 2.5x (41 of 512 fc1.act over), the second finding (both step 5: rule order); step 1's firing stays within both tiers (per element at attribution step 1: 0.83 of the bound)") \
    X(EVAL_R1_LAST_IMAGE_FC1_SCALED, "eval_r1_last_image_fc1_scaled", "op", "fc1", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 13: in the first evaluation only (epoch 1, not the last), the last image of its fourth batch (test image 63, which the reference comparison of the last epoch does not reach either) has its fc1 outputs scaled by 1 + 2^-k (default 16)", \
      "the evaluation's every-batch fc1 relations see every image: measured ok at k = 16 and 14 (within them, as data_bright_fc1_scaled); k = 12: SUSPECT at the evaluation after epoch 1, fc1 evaluation, x2.31 the sharper tier; k = 10: PROBLEM there, 2.85") \
    X(FTZ_DAZ_TINY_INPUT, "ftz_daz_tiny_input", "op", "conv1", "backward", "smallcnn --normalize 0,1e36 --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 13: ftz_daz_all (MXCSR FTZ and DAZ on every thread) in a run whose images are subnormal (--normalize 0,1e36: x = pixel / 255 / 1e36, below 2^-126 for pixels up to 44)", \
      "DAZ reads the subnormal images as 0: conv1's forward is within its bound (|b| dominates the tiny products) but its weight gradient sum dy x loses every product: measured PROBLEM at step 1, conv1 backward-weights, 49.2 (index-weighted relation 415); the clean engine with the same --normalize: ok") \
    X(THREAD1_ROUND_UP_KERNELS_STEP7, "thread1_round_up_kernels_step7", "op", "conv1|conv2|fc1|fc2|relu1|relu2|pool1|pool2|relu3|loss", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 13: at step 7 only, OpenMP thread 1 of the 2-thread engine rounds upward in the forward, loss and backward kernels (not the update): a flaky core's share of one step's kernels", \
      "thread 1 computes half of each kernel (static schedules); step 7 has only the every-step checks: measured SUSPECT at step 7, conv1 forward, x1.34 the sharper tier, 0.244 of the worst case (1 relation over); exit 0 under --fail-on problem. The sign test over the relations' residuals (checks/checksums.c, judge_sign) sees it too, at step 7 only: fc1 backward-data z = 20.8 (1195 positive, 373 negative, x2.76 its limit 7.53), conv2 backward-data z = 8.0 (x1.06); the finding names conv1 forward, computed first") \
    X(THREAD1_ROUND_UP_CONV2_BWD_STEP7, "thread1_round_up_conv2_bwd_step7", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 13: at step 7 only, OpenMP thread 1 rounds upward in conv2's backward call only (backward-data and backward-weights: thread 1's share of them)", \
      "was a known blind spot (zoo attack 13): the error is one-signed, not small: against the clean engine at step 7, all 25088 elements of pool1.dact that thread 1 computes (samples 8..15) and 3492 of conv2's 4608 weight-gradient elements are larger, none smaller (up to 1.3e-2 relative where the sums cancel), but each every-step relation sums hundreds of them against a tolerance made of sum|terms| (and the position- and index-weighted ones alternate signs, cancelling a common shift): measured ok, worst ratio 0.336 (fc1, elsewhere) of the sharper tier. CLOSED by the sign test over the relations' residuals (checks/checksums.c, judge_sign): measured SUSPECT at step 7, conv2 backward-data, sign test over 256 relations z = 9.38 against its limit 7.53 (203 positive, 53 negative: thread 1's samples all positive; x1.25; x1.43 of the first limit, 6.54, raised after whole runs measured the legal conv blocks to 0.87 of it: checks/checksums.c), every relation within 0.0119 of its worst case; exit 0 under --fail-on problem. Clustered by sample instead of by channel the same block is z = 5.25 (design effect 3.2: the shift is the between-sample spread); conv2's bias gradient, 31 of 31 residuals positive, z = 5.57, cannot reach the limit with 32 relations") \
    X(CONVNET_CONV2_DW_SCALED_STEP9, "convnet_conv2_dw_scaled_step9", "op", "conv2", "backward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: in mnist-convnet, at step 9 only, its last conv layer's (conv2, 64 x 32 x 3 x 3) weight gradient is scaled by 1 + 2^-10 after backward", \
      "2^-10 relative on every element of a K = 16 x 121-product sum: measured PROBLEM at step 9, conv2 backward-weights, 8.38 (every-step; step 9 is sampled by nothing else)") \
    X(CONVNET_DROPOUT_ON_LOGITS_ONCE, "convnet_dropout_on_logits_once", "op", "drop1|fc1", "forward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: in mnist-convnet, at step 7 only, the right dropout mask is applied to the wrong layer's output: drop1 passes its input unchanged and fc1's logits get the mask (drop1's key, each row's first 10 elements, scaled by 2)", \
      "dropout is an exact rule, re-done every step: measured PROBLEM at step 7, drop1 forward, exact check, 16798 elements not the re-computation (the logits' mask, fc1, is the consequence, not named first)") \
    X(B13_CONV2_LAST_SAMPLE_ONCE, "b13_conv2_last_sample_once", "op", "conv2", "forward", "smallcnn --batch 13 --limit-train 72 --limit-test 64 --epochs 2 --steps 12 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: batch 13 (72 = 5 x 13 + 7: 6 steps an epoch), at step 7 only, the last sample's conv2 plane 0, its largest element scaled by 1 + 2^-8", \
      "2^-8 relative on one element of the odd batch's last sample (its largest, which the forward peek relation re-does alone): measured PROBLEM at step 7, conv2 forward, 166") \
    X(FC1_DW_SCALED_LAST_STEP, "fc1_dw_scaled_last_step", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: at the run's very last step (10) only, fc1's weight gradient scaled by 1 + 2^-12 (the round trip cannot judge the last step)", \
      "the last step has no round trip after it, but its every-step relations judge it: measured PROBLEM at step 10, fc1 backward-weights, 507 (and per element at the step-10 shadow replay, fc1.weight.grad 512x)") \
    X(FC1_DW_USED_NOT_REPORTED_ONCE, "fc1_dw_used_not_reported_once", "op", "fc1", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: at step 7 only, the update reads fc1's weight gradient scaled by 1 + 2^-12; the gradient the step reports (and its checksums) are right", \
      "the Adam re-check re-does the update from the gradient the step reported: measured PROBLEM at step 7, fc1 update, 2705") \
    X(FC1_DW_REPORTED_NOT_USED_STEP2, "fc1_dw_reported_not_used_step2", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: at step 2 only, the gradient read back (get_tensor) has fc1's weight gradient scaled by 1 + 2^-12; the update used the right one", \
      "step 2 is an attribution step, its gradient read back and compared per element with the reference: measured PROBLEM, fc1 backward, fc1.weight.grad 256x the most fp32 rounding allows (no every-step finding: the engine's own checksums read the right buffer)") \
    X(LOSS_VALUE_EPOCH_END_REL, "loss_value_epoch_end_rel", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: the loss value reported at the last step of each epoch (5 and 10) only, scaled by 1 + 2^-12 (the gradient and the state are right)", \
      "the loss read-back is compared with the value the checks judged: measured PROBLEM at step 5, fc2 loss, read-back (2.16161513 reported, 2.16108751 judged)") \
    X(FC1_BIAS_LR_DRIFT, "fc1_bias_lr_drift", "op", "fc1", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: from step 6 on, every step, fc1.bias's Adam step is scaled by 1 + 2^-k (fault_k=K, default 16): one tensor's learning rate drifts", \
      "the Adam re-check is bit for bit: measured PROBLEM at step 6, fc1 update, 26.2 (k = 16); k = 20: 1.73 at step 6; k = 21: 1.01 at step 8; k = 22, 23, 24: SUSPECT at step 6, fc1.bias Adam not the shared formula bit for bit (8, 2, 1 elements, 0.72, 0.42, 0.42 of the worst case): a relative change 2^-22 of a step of ~1e-3 is below an ulp of most biases") \
    X(CONV2_COMPENSATING_ONCE, "conv2_compensating_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: at step 7 only, +d on sample 0's largest conv2 plane-0 output and -d on sample 1's same element (d a power of two, 2^-7..2^-6 of the smaller): the batch sums are unchanged", \
      "the batch-summed relations cancel, the per-sample and peek (largest output) relations do not: measured PROBLEM at step 7, conv2 forward, 271 (k = 16); k = 20: 16.9; k = 22 (d ~ 2^-13 relative): 4.24") \
    X(ADAM_T_SKIP_PARTIAL, "adam_t_skip_partial", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: Adam's step counter is not advanced by a partial batch: after step 5 (8 of 16 images) the bias corrections use t - 1", \
      "the bias corrections of t - 1 change every step by ~1e-3 relative: measured PROBLEM at step 6, fc1 update, 87341 (the round trip's 'step 6, after a partial batch, computes otherwise' second; per element vs the reference at step 10, conv1.weight 10840x)") \
    X(B13_FC1_LAST_ROW_REL, "b13_fc1_last_row_rel", "op", "fc1", "forward", "smallcnn --batch 13 --limit-train 72 --limit-test 64 --epochs 2 --steps 12 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 14: batch 13, every step, the last sample's row of fc1's outputs scaled by 1 + 2^-k (fault_k=K, default 16; the 7-image partial batch's last row too)", \
      "2^-16 |y| on one row of 13 is within gamma_1569 (sum|w x| + |b|), as data_bright_fc1_scaled: measured ok at k = 16 and 14; k = 12: SUSPECT at step 7, fc1 forward (every output of each sample), sample 12, x2.64 the sharper tier; k = 10: PROBLEM at step 7, fc1 forward, 3.27 - the odd batch's tail is judged as sharply as its head") \
    X(B13_FC1_FIRST_ROW_REL, "b13_fc1_first_row_rel", "op", "fc1", "forward", "smallcnn --batch 13 --limit-train 72 --limit-test 64 --epochs 2 --steps 12 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 14: as b13_fc1_last_row_rel for the batch's first sample (the comparison: is the odd batch's tail judged as sharply as its head?)", \
      "as b13_fc1_last_row_rel: measured ok at k = 16 and 14; k = 12: SUSPECT at step 7, sample 0, x2.29; k = 10: PROBLEM at step 7, fc1 forward, 2.83") \
    X(CONV2_DW_COMPENSATING_ONCE, "conv2_dw_compensating_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 14: at step 7 only, +d and -d on the second and third largest |conv2.weight.grad| of output channel 0, not its first or last (d a power of two, 2^-5..2^-4 of the smaller, 2^(11-k)..2^(12-k) at fault_k=K): the channel's sum is unchanged", \
      "a known blind spot (zoo attack 14), kept measured: per element far beyond its bound, but at step 7 only the every-step relations judge it, and each either sums the pair away (the channel sum) or weighs it against the whole filter's sum|x dy| (index- and random-weighted), and the peek relation re-does the first, last, largest and 2 drawn elements of 144. Measured, default audit: SUSPECT at step 7, conv2 backward-weights, output channel 0, x6.83 the sharper tier, 0.356 of the worst case (exit 0 under --fail-on problem); k = 15: SUSPECT x13.7, 0.712; k = 14: PROBLEM 1.42; k = 13: PROBLEM 48.6; k = 17, 18: SUSPECT x3.42, x1.71; k = 19: ok, not flagged. Per element: with --audit-every 7 (step 7 a shadow replay) k = 19 is PROBLEM, conv2.weight.grad 1.32x the most fp32 rounding allows (so ~10.6x at k = 16); fired at step 2 instead, k = 16 is 14.9x (every-step 14.7 there). NOT FIXED: a sparse change of a few dW elements (2^-8 of them at k = 19) at a step no per-element check samples is PROBLEM only from ~2^-3 of the elements, SUSPECT from ~2^-7") \
    X(CONV2_COMPENSATING_MID_ONCE, "conv2_compensating_mid_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: as conv2_compensating_once on an element that is not the plane's largest (the first nonzero pair from the middle of plane 0, position 98 on): +d on sample 0, -d on sample 1 (2^(9-k)..2^(10-k) of the smaller, fault_k=K, default 16)", \
      "the batch sums cancel; each sample's own relations do not, and the pair is not the plane's largest (no peek relation re-does it): measured PROBLEM at step 7, conv2 forward (position-weighted), 1.02 (k = 16: d is 2^-7..2^-6 of the element, ~2^10 times its own gamma_145 bound); k = 12: 16.3, k = 10: 65.3; k = 17: SUSPECT x2.9 the sharper tier (row-alternating), 0.387 of the worst case; k = 18: SUSPECT x1.45, 0.194; k = 20: ok, not flagged (d ~ 2^-11 of the element, still ~2^6 times its own bound). The compensation costs nothing (the per-sample relations see each sample's change alone): the limit is that of one element's change at a step only the every-step relations judge, whose tolerance is a sum over a sample's whole channel") \
    X(CONVNET_FC1_DX_DROPPED_ONCE, "convnet_fc1_dx_dropped_once", "op", "fc1", "backward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: in mnist-convnet, at step 7 only, fc1's input gradient (drop1.dact) doubled where drop1's mask dropped: drop1's backward zeroes exactly those, so the training is right and only the tensor fc1 computed is wrong", \
      "the relations judge the tensor fc1 computes, whatever happens to it next: measured PROBLEM at step 7, fc1 backward-data (every element of each sample), 1.66e6 (16 of 16 samples)") \
    X(STATE_LAST_STEP_WEIGHTS_STALE, "state_last_step_weights_stale", "state", "conv1|conv2|fc1", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: after the run's very last update (step 10), every plan's blocked-layout weight copies are marked current (the evaluation plan's keep the weights of its last refresh): only the final evaluation and --save's read-back come after it. (Not bumping params_ver alone, as state_weights_stale does, has no effect here: the evaluation's plan keeps its own version and refreshes)", \
      "the evaluation's every-batch relations re-do it from the weights the engine reports: measured PROBLEM at the evaluation after epoch 2, conv1 evaluation, 23432 (224 of 256 relations over); vs the reference, logits 123x the propagated bound (0 predictions differ)") \
    X(FC1_DW_COMPENSATING_ONCE, "fc1_dw_compensating_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 14: conv2_dw_compensating_once for fc1 (dense): at step 7 only, +d and -d on the second and third largest |fc1.weight.grad| of output row 0 (3136 elements; d 2^(11-k)..2^(12-k) of the smaller, fault_k=K, default 16)", \
      "the dense layer's relations keep it (the comparison for conv2_dw_compensating_once): measured PROBLEM at step 7, fc1 backward-weights, 20327 (k = 16, the peek relation); k = 19: 10.2, k = 22: 1.27 (both random-weighted, output 0); k = 26: ok. A dense dW row is judged ~2^7 more sharply than a conv filter (conv2: SUSPECT at k = 16, ok at k = 19)") \
    X(LABELS_LAST_CLASS_AS_0_ONCE, "labels_last_class_as_0_once", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: at step 7 only, every label of class 9 (C - 1) is read as class 0 (a label map off by one class, once); the images and every other step's labels are right", \
      "the loss re-check re-does dz from the engine's logits with the labels the audit gave (1 of step 7's 16 labels is a 9): measured PROBLEM at step 7, loss, 'loss gradient dz re-done from the logits', 3.52e6; every layer's relations hold") \
    X(EVAL_LABELS_LAST_CLASS_AS_0, "eval_labels_last_class_as_0", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 15: in every evaluation batch, the labels the engine is given have class 9 read as class 0; training is right", \
      "no effect, provably: labels are no input of inference (the engine's evaluation returns logits; the evaluation's loss and accuracy are computed by the audit from them and the labels it holds, engines/run.c): measured VERDICT ok, the same accuracy and logit ratios as a training-neutral run") \
    X(LABELS_BATCH_SHIFTED_ONCE, "labels_batch_shifted_once", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: at step 7 only, every label of the (full) batch one slot on: image i trained with label i + 1, the last with the first's", \
      "the batch's multiset of labels is the same (a sum over the batch of label counts cannot see it); the loss re-check re-does dz per sample: measured PROBLEM at step 7, loss, 'loss gradient dz re-done from the logits', 9.13e6") \
    X(BATCH_REVERSED_WITH_LABELS_ONCE, "batch_reversed_with_labels_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: at step 7 only, the engine runs the batch's samples in reverse order, images and labels alike (each image keeps its own label), and reports every per-sample tensor in that order", \
      "decided a fault, as measured: the update is the same sum over the batch in another order (legal: the batch-order rows conv_dw_mb_chunks, fc1_dw_pairwise are BELOW; the parameters after step 10 are 2.33e-8 rel. L2 from the reference, as a training-neutral run's), but every per-sample tensor the engine reports as sample i's (activations, logits, dz, input gradients) is sample n - 1 - i's: a batch permuted inside the engine and restored in what it reports would be legal, reported permuted it is not. Measured PROBLEM at step 7, conv1 forward, 'input: the images this step computed with are not the batch it was given (digest)' (the digest weighs each value by its index)") \
    X(IMAGES_REVERSED_ONCE, "images_reversed_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: at step 7 only, the batch's images in reverse order, the labels not (image i trained with label n - 1 - i)", \
      "every relation holds (each layer computes right on the images it has) and the loss re-check too (dz is right for the engine's logits and the given labels): only the input digest sees it: measured PROBLEM at step 7, conv1 forward, 'input: the images this step computed with are not the batch it was given (digest)'") \
    X(INPUT_TORN_ONCE, "input_torn_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: at step 7 only, the first half of the batch's images are still step 6's (a double buffer swapped half-way); the labels are right", \
      "measured PROBLEM at step 7, conv1 forward, the input digest (as input_stale_once, half of it)") \
    X(CONV2_FWD_TORN_W_ONCE, "conv2_fwd_torn_w_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: step 7's conv2 forward reads filters 0..15 (half of conv2.weight) as they were before step 6's update, 16..31 as they are (an update racing the next forward); the weights held and reported are right", \
      "half the filters a step old (Adam moves each weight by ~lr = 1e-3 a step, ~5 percent of |w|) against the forward relations, which re-do the outputs from the weights the engine reports: measured PROBLEM at step 7, conv2 forward (first, last, largest and sampled outputs), 2478 (240 of 512 relations over)") \
    X(ADAM_M_TORN_ONCE, "adam_m_torn_once", "state", "conv2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: step 7's update reads the first half of conv2.weight's Adam m as it was before step 6's update (a torn read of the optimizer state); what step 6 reported was right", \
      "the Adam re-check re-does step 7's update from the m the step started with (the snapshot): measured PROBLEM at step 7, conv2 update, 'conv2.weight Adam re-done from the step's p, m, v, g', 4.50e7 (1825 elements differ)") \
    X(ADAM_V_TORN_ONCE, "adam_v_torn_once", "state", "conv2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: as adam_m_torn_once for the second moments v", \
      "as adam_m_torn_once: measured PROBLEM at step 7, conv2 update, 4.66e6 (1825 elements differ)") \
    X(CONV2_FWD_BITFLIP_ONCE, "conv2_fwd_bitflip_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 15: at step 7 only, conv2's output of sample 3, channel 5, row 7, column 7 has bit 31 - K flipped (fault_k=K; bit 15 at the default 16): a single-bit upset in an activation", \
      "zoo attack 15's bit table, activation column (the element 0.0411; own = its ratio to its own worst-case bound at a per-element step, --audit-every 7): bits 30, 23, 22, 20 PROBLEM at step 7, conv2 forward (7.61e12, 32.4, 12.3, 3.08); bit 18 (2^-5 of the value, own 128x) SUSPECT x5.23; bit 15 (the default, own 16x) and bit 12 (own 1.99x) VERDICT ok; bits 9, 5, 0 within their own bound. A known blind spot (conv2_fwd_interior_bitflip_once's class): an interior conv element is judged at step 7 only by its plane's relations, which sum 196 outputs' bounds, and by FWD_PEEK's four of 196") \
    X(CONV2_DW_BITFLIP_ONCE, "conv2_dw_bitflip_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 15: at step 7 only, one conv2 weight-gradient element has bit 31 - K flipped (fault_k=K, bit 15 at 16), used and reported: the median nonzero |dW| (element 77, -0.00211) of the filter of largest sum |dW| (19)", \
      "zoo attack 15's bit table, conv weight-gradient column: bits 30, 23, 22 PROBLEM at step 7, conv2 backward-weights (3.59e11, 5.02, 2.32); bits 20, 18 SUSPECT (x9.4, x2.35); bit 15 (the default, own 6x at a per-element step) and below VERDICT ok (bit 12 within its own worst case, SUSPECT x4.4 there). A known blind spot (conv2_dw_compensating_once's class): a filter's relations weigh one element against 144 elements' bounds of 16 x 196 terms each; PEEK re-does five of 144") \
    X(FC1_DW_BITFLIP_ONCE, "fc1_dw_bitflip_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: at step 7 only, one fc1 weight-gradient element has bit 31 - K flipped (fault_k=K, bit 15 at 16), used and reported: the median nonzero |dW| (element 248, 0.00287) of the row of largest sum |dW| (44)", \
      "zoo attack 15's bit table, dense weight-gradient column: before the fix, bits 30..18 PROBLEM (5.93e13 .. 5.27), bit 15 SUSPECT x3.63 (0.596 of the worst case) though 911x its own bound, bit 12 (114x its own) and bit 9 (14.2x) VERDICT ok: a dense row's first, last, largest and two drawn elements were re-done, the others only in the row's sums (3136 elements' bounds). FIXED (engines/checksums.c dense_peek: every element of each dense row re-done against its own bound, as FWD_DPEEK does the outputs; test_checksums: test_dense_dw_element_own_bound): measured PROBLEM at step 7, fc1 backward-weights (re-done elements of each row), bit 15 902, bit 12 113, bit 9 14.1; bits 5 and 0 within their own bound, VERDICT ok (BELOW there)") \
    X(CONV2_FWD_W_BITFLIP_ONCE, "conv2_fwd_w_bitflip_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: step 7's conv2 forward reads one weight (filter 19, element 77: -0.0189, a live input and output channel) with bit 31 - K flipped (fault_k=K, bit 15 at 16: an upset in a register or cache line); the weight held and reported is right", \
      "the whole output channel moves by dw x over 16 x 196 outputs, coherently: bits 30..15 PROBLEM at step 7, conv2 forward (7.61e12, 265 at bit 23, 220, 54.9, 13.7, 1.72 at bit 15); bit 12 VERDICT ok (within its own worst case: SUSPECT x1.12 at a per-element step), bits 9, 5, 0 within their own bounds") \
    X(CONV2_W_BITFLIP_ONCE, "conv2_w_bitflip_once", "state", "conv2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: right after step 7's update, conv2's weight of filter 19, element 77 has bit 31 - K flipped in the engine's memory (fault_k=K, bit 15 at 16): the update's output is not what Adam gives", \
      "the Adam re-check re-does step 7's update element by element: every bit is caught, measured PROBLEM at step 7, conv2 update ('conv2.weight Adam re-done', 1 element): bit 30 4.33e45, 23 6.36e6, 15 42499, 9 664, 5 41.5, bit 0 (one ulp) 1.27 (a flip between steps, after the update's report, is the continuity digest's: weight_corrupt_once, adam_m_bitflip_once)") \
    X(LOSS_GRAD_PARTIAL_FULL_N, "loss_grad_partial_full_n", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: in a partial batch (steps 5 and 10: 8 of 16 images) the loss gradient is divided by the full batch size (16), the loss value by n (right): the reverse of loss_value_partial_mean_max", \
      "the loss re-check re-does dz from the logits: measured PROBLEM at step 5 (the first partial batch), loss, 'loss gradient dz re-done from the logits', 1.57e6") \
    X(FC1_FLATTEN_NHWC_ALL, "fc1_flatten_nhwc_all", "op", "fc1|flatten", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: at every step and evaluation, fc1 reads flatten's output in NHWC order in all three of its operations (forward x'[q C + c] = x[c HW + q], backward-data written back through the same permutation, backward-weights against x'): a self-consistent network whose weights mean W P, trained from the same initial W", \
      "a different network from the reference's from step 1 on; every one of fc1's relations (they read flatten's reported NCHW output) is broken, the forward first. Named WRONG before the fix: PROBLEM at step 1, fc1 backward-weights (zero and smallest elements), 5.93e13, the step's largest ratio, while the first wrong tensor is fc1's output. FIXED (checks/checksums.c note: a step's violations kept in compute order; test_checksums: test_first_computed_violation_named): measured PROBLEM at step 1, fc1 forward (every output of each sample), 1122") \
    X(FC1_FLATTEN_NHWC_STEP7, "fc1_flatten_nhwc_step7", "op", "fc1|flatten", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: fc1_flatten_nhwc_all at step 7 only (forward, backward-data and backward-weights alike)", \
      "as fc1_flatten_nhwc_all at one step: before the fix PROBLEM at step 7 naming fc1 backward-weights (5.93e13, WRONG phase); FIXED: measured PROBLEM at step 7, fc1 forward (every output of each sample), 2017") \
    X(CONV2_NAN_POOL_MASKED_ONCE, "conv2_nan_pool_masked_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: at step 7 only, in conv2's output of sample 0, the first 2x2 pooling window whose maximum is positive and not its first element gets a NaN in its second-largest element: relu2 (relu(NaN) = 0 in the fused kernel) and pool2 (the arg-max stays) pass the same maximum on, so nothing downstream differs", \
      "nothing downstream sees it (training is bit-identical up to the reports: parameters after step 10 2.33e-8 from the reference, as a training-neutral run's), but the reported conv2 output is a wrong value of the operation that made it, so the audit must flag it and does: the forward relations sum the plane in double, NaN, judged over: measured PROBLEM at step 7, conv2 forward, sample/output channel 0 (exact check failed, inf). A NaN that never lands in a tensor the engine reports and changes nothing is no observable fault") \
    X(CONV2_NEG_INF_RELU_MASKED_ONCE, "conv2_neg_inf_relu_masked_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: at step 7 only, the first negative element of conv2's output of sample 0, plane 0, becomes -inf (relu2 makes it 0, as it did the negative value: nothing downstream differs)", \
      "as conv2_nan_pool_masked_once: measured PROBLEM at step 7, conv2 forward, sample/output channel 0 (inf)") \
    X(FC1_FWD_TORN_VEC_ONCE, "fc1_fwd_torn_vec_once", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: step 7's fc1 forward reads one 16-float vector of fc1.weight (elements 1568..1583 of a 3136-wide row, in the row step 6's update moved most there) as it was before step 6's update (an update racing the next forward by one vector store); the weights held and reported are right", \
      "16 of 3136 terms of one row off by ~lr each: measured PROBLEM at step 7, fc1 forward (every output of each sample), 2.85 (10 of 16 samples' relations over; sharper tier 9.22)") \
    X(FC1_DW_ZERO_BITFLIP_ONCE, "fc1_dw_zero_bitflip_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 15: at step 7 only, element 0 of the first fc1 weight-gradient row that is all zero (a unit relu3 kept dead for the whole batch) has bit 31 - K flipped (fault_k=K, bit 15 at 16: +0 becomes 2^(K-150)... a subnormal, or from K <= 8 a normal number), used and reported", \
      "the zero-element re-check of each dense row (a dW nonzero where every term is 0): measured PROBLEM at step 7, fc1 backward-weights (zero and smallest elements), bit 30 (+0 -> 2) 5.93e13, 23 5.19e5, 22 2.60e5, 18 16222, 15 2028, 12 253, 9 31.7, 5 (4.5e-44) 1.98; bit 0 (1.4e-45, the smallest subnormal) VERDICT ok: below the bound's absolute underflow floor, and harmless (Adam's m takes 0.1 x 1.4e-45, which rounds to 0)") \
    X(ADAM_PYTORCH_LERP_1ULP_ONCE, "adam_pytorch_lerp_1ulp_once", "op", "fc1", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "a fault inside a recognised legal order: every update in PyTorch's single-tensor order (adam_pytorch_lerp's, recognised bit for bit by the named orders of base/adam_orders.h), and at step 7 only the p' of fc1.weight's element 1568 written one ulp up", \
      "the element is no named order's (one ulp from the order its neighbours follow), so fc1.weight's mask of orders is cleared at step 7 and the tensor is bounded as before the orders: measured PROBLEM at step 7, fc1 update, 'fc1.weight Adam re-done from the step's p, m, v, g: 29128 element(s) differ (... the furthest 1.61 of its bound)', exit 1 under --fail-on problem; the other tensors at step 7, and every tensor at the other nine updates, read ok in PyTorch's single-tensor order (coverage line 'Adam in a recognised legal order at 10 update(s)')") \
    X(ADAM_P_FROZEN_ONCE, "adam_p_frozen_once", "op", "fc1", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 7 only, fc1.bias is not moved (its p kept) while its m and v are updated as usual (a parameter write-back skipped for one tensor)", \
      "the Adam re-check re-does p from the step's own p, m, v, g: measured PROBLEM at step 7, fc1 update, 1.59e6 (57 of 64 elements of fc1.bias differ, up to 6.7e-4)") \
    X(ADAM_MV_DROPPED_ONCE, "adam_mv_dropped_once", "op", "conv2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 7 only, conv2.weight is moved right but its new m and v are not stored (they keep step 6's: a fused kernel's state write-back skipped)", \
      "the Adam re-check compares the m and v the update leaves with those re-done: measured PROBLEM at step 7, conv2 update, 8.31e6 (3,769 elements)") \
    X(ADAM_DEN_OLD_V_ONCE, "adam_den_old_v_once", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 7 only, the step's denominator takes v from before its update, sqrt(v_{t-1}) / bc2 + eps, with m_t in the numerator (two lines of the update in the wrong order); m and v stored right", \
      "m_t / sqrt(v_{t-1}) for m_t / sqrt(v_t): a relative change of ~(1 - b2)(g^2/v - 1)/2 at least, and a step of lr m / eps where v was 0 (a unit's first gradient): measured PROBLEM at step 7, fc1 update, 2.26e11 (80,686 elements, up to 85.5)") \
    X(ADAM_EPS_KERAS, "adam_eps_keras", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: every update uses eps = 1e-7 (Keras's default) for the configured 1e-8", \
      "the engine takes the driver's scalars; the re-check uses the configured eps: eps / (sqrt(v)/bc2) is ~1e-4 of the step where |g| ~ 1e-4: measured PROBLEM at step 1, fc1 update, 5.86e5 (per element at the attribution steps: conv1.weight 3935x, fc1.weight 1.15e6x)") \
    X(LABELS_OUT_OF_RANGE_ONCE, "labels_out_of_range_once", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 7 only, the first sample of class 9 that is not the batch's last has its label read as 10 (label + 1 with no wrap: an out-of-range class, which the data loader refuses and the engine does not check): the engine's loss reads z[10] (the next row's first logit) and subtracts 1 nowhere", \
      "lockstep re-does the loss and dz from the logits with the labels it gave (the loader refuses a label >= n_classes: test_data): that row's dz lacks its -1: measured PROBLEM at step 7, fc2 loss, 3.26e6") \
    X(RELU3_BWD_PREV_MASK_ONCE, "relu3_bwd_prev_mask_once", "op", "relu3|fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 7 only, relu3's backward passes the gradient where step 6's relu3 output was > 0 (a mask buffer from the step before); forward is right", \
      "ReLU backward is exact: measured PROBLEM at step 7, relu3 backward-data, 33 elements not the exact re-computation") \
    X(FC1_DX_STALE_W_ONCE, "fc1_dx_stale_w_once", "op", "fc1|flatten|pool2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 7 only, fc1's backward-data uses fc1's weights from before step 6's update (a weight copy for the transposed GEMM refreshed one step late); forward and backward-weights are right", \
      "W changed by ~lr per weight: measured PROBLEM at step 7, fc1 backward-data, 21,485 (16 of 16 samples' relations over)") \
    X(CONV2_DW_THREAD_SHARE_TWICE_ONCE, "conv2_dw_thread_share_twice_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 7 only, conv2's weight gradient has the second thread's partial sum (samples n/2..n-1) added twice in the reduction; db and dx are right", \
      "half the batch's gradient again: measured PROBLEM at step 7, conv2 backward-weights, 5,296 (12 of 32 filters' zero/smallest-element relations over)") \
    X(CONV2_DB_PREV_DY_ONCE, "conv2_db_prev_dy_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 7 only, conv2's bias gradient is summed from step 6's output gradient (a stale dy buffer for the bias reduction); dW and dx are right", \
      "another step's sums: measured PROBLEM at step 7, conv2 backward-weights (the bias relation), 2,230 (31 of 32 channels over)") \
    X(INPUT_ZERO_IMAGE_ONCE, "input_zero_image_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 7 only, sample 5's image is all zeros (a loader's short read into a zeroed buffer, in a full batch); the labels are right", \
      "the input digest (the images the engine computed with against the batch it was given): measured PROBLEM at step 7, conv1 forward") \
    X(INPUT_NORMALIZED_TWICE_ONCE, "input_normalized_twice_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 7 only, the batch's images are normalized a second time, x' = (x - 0.2860) / 0.3530 (a transform listed twice)", \
      "the input digest: measured PROBLEM at step 7, conv1 forward") \
    X(EVAL_POOL1_TRAIN_ARGMAX, "eval_pool1_train_argmax", "op", "pool1|relu1|conv1", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: in every evaluation, pool1's output is gathered at the arg-max positions the last training forward found (sample i's windows from training sample i mod n): a stale max-pool index buffer used in inference", \
      "max-pool is exact (the fused pair's check names its ReLU half): measured PROBLEM at the evaluation after epoch 1, relu1 evaluation, 9,865 elements; the last evaluation against the reference 89.8") \
    X(CONV2_DW_TAIL4_DROPPED_ONCE, "conv2_dw_tail4_dropped_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 7 only, conv2's backward-weights leaves out the last 4 output positions of every plane (14 x 14 = 196 = 12 x 16 + 4: the remainder of a 16-wide vector loop over positions), every sample; db and dx are right", \
      "4 of 196 positions, ~2% of each element's terms: measured PROBLEM at step 7, conv2 backward-weights, 85.6 (the first/last/largest/sampled elements re-done; 20 of 32 filters over; index-weighted relation x891 the sharper tier)") \
    X(RELU3_BWD_PREV_MASK_STEP2, "relu3_bwd_prev_mask_step2", "op", "relu3|fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: relu3_bwd_prev_mask_once at step 2 (the mask of step 1's relu3 output): the step whose state round trip follows the first fully compared step", \
      "ReLU backward is exact: measured PROBLEM at step 2, relu3 backward-data, 325 elements (and per element at the attribution step, fc1.dact). Before zoo attack 16's change the first PROBLEM read 'the state it trains with is not the state it reports (the state reported after step 1, trained with at step 2)': the round trip's second instance never ran step 1, so the fault (keyed on a buffer step 1 left) fired in the engine only; a violated operation that reads no parameter, m or v at the round trip's step now makes the round trip inconclusive there (explain.c; test_mutants: test_roundtrip_op_step)") \
    X(CONV2_DB_PREV_DY_STEP2, "conv2_db_prev_dy_step2", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: conv2_db_prev_dy_once at step 2 (conv2's bias gradient from step 1's dy)", \
      "measured PROBLEM at step 2, conv2 backward-weights (the bias relation), 3,630 (per element at the attribution step: conv2.bias.grad 3,667x); before zoo attack 16's change named as the state (after step 1, first: conv2.bias.grad), as relu3_bwd_prev_mask_step2") \
    X(CONV2_FWD_PREV_X_ONCE, "conv2_fwd_prev_x_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 7 only, conv2's forward computes from the pool1 output step 6 left (a stale input buffer; the current weights and bias), the pool1 output reported is step 7's", \
      "conv2's forward relation re-done from the pool1 output reported: measured PROBLEM at step 7, conv2 forward, 1.23e5") \
    X(CONV2_FWD_PREV_X_STEP2, "conv2_fwd_prev_x_step2", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: conv2_fwd_prev_x_once at step 2 (step 1's pool1 output): the step the first state round trip judges, in an operation that reads the weights", \
      "measured PROBLEM at step 2, conv2 forward, 1.01e5 (every-step), and 'its step 2 computes otherwise than the same step from the same state unless step 1 ran before it (first: conv2.act, conv2 forward)'. Before zoo attack 16's RT_AFTER_PREV probe (driver.c, roundtrip) the first PROBLEM read 'the state it trains with is not the state it reports (the state reported after step 1, trained with at step 2)': a forward relation is one a stale weight copy breaks too, so the relation alone does not decide; the round trip's second instance now replays step 1 from the state reported before it, is set back, and reproduces the engine's step 2 bit for bit (test_mutants: test_roundtrip_op_step)") \
    X(CONV2_DB_TWO_BACK_STEP6, "conv2_db_two_back_step6", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 16: at step 6 only (the round trip after the partial step 5), conv2's bias gradient is step 4's (a ring of three gradient buffers read one slot off): a history two steps back, which no replay of the step before reproduces", \
      "measured PROBLEM at step 6, conv2 backward-weights (the bias relation), 1,301. The round trip at step 6 parts, and neither an inference pass, a partial batch nor a replay of step 5 reproduces the engine: before zoo attack 16 it read 'the state it trains with is not the state it reports (after step 5)'; now step 6's violated bias relation (an operation that reads no parameter, m or v) makes the round trip inconclusive there (an INFO finding; test_mutants: test_roundtrip_op_step)") \
    X(CONV2_FWD_DRAW_ORTHOGONAL_ONCE, "conv2_fwd_draw_orthogonal_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 17: at step 7 only, seven outputs of conv2 plane (sample 3, channel 5) moved by a vector d that every linear relation of the plane weighs to zero: the plain sum, the position-weighted and both alternating ones, and the two random-weighted ones, whose weights the fault draws as the checks do (Philox keyed by the digest of the images, the step and the stage: all known to the engine before it computes); the elements are interior, unique in the plane, not its first, last, largest or drawn one; |d| up to 2^-2 of the plane's largest |y|", \
      "BLIND (not closed, by design): measured VERDICT ok, exit 0 under --fail-on problem; seven outputs of plane (3, 5) moved (e.g. 0.00188 -> -0.0527, 0.00527 -> 0.0705: |d| up to 0.0653, 2^-2 of the plane's largest |y| 0.261; the step-2 twin puts such an element at 7209x its own worst-case bound), the six weighted sums of d within 1e-15 of 0; step 7's worst ratios are the unfaulted run's (sharper tier 0.386, fc1 elsewhere). The draws (base/rng.h's Philox, stream RNG_STREAM_CK) are keyed by (digest of the images, step, stage): no secret, and the engine holds all three before it computes, so a fault written with lockstep's source at hand can be orthogonal to all six linear forms of a plane of 196 outputs and avoid its peeks (first, last, largest, one drawn). An unlucky kernel cannot: its error does not depend on Philox of its own input's digest (conv2_fwd_fixed_orthogonal_once, the same construction without the draws: PROBLEM 69). A secret key (a nonce sent with the checksum request, after the step) would take the draws out of a kernel's reach, but lockstep's threat model is faulty engines, not hostile ones: the checks run inside the engine's process (the cpu engine's address space, the cuda engine's device), where a hostile engine could as well write the vector itself; at the per-element steps (attribution, shadow replays) it is a PROBLEM (conv2_fwd_draw_orthogonal_step2)") \
    X(CONV2_FWD_FIXED_ORTHOGONAL_ONCE, "conv2_fwd_fixed_orthogonal_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 17: conv2_fwd_draw_orthogonal_once without the draws: five outputs moved by a vector orthogonal to the fixed-weight relations only (plain, position-weighted, row- and column-alternating), as an unlucky kernel's structured error would be, not knowing the draws", \
      "measured PROBLEM at step 7, conv2 forward (random-weighted), 69 (504 of the sharper tier): five outputs moved (up to 0.065, 2^-2 of the plane's largest |y|), the plane's plain, position-weighted and both alternating sums unchanged to 1e-16 (their blocks within: the structured error is invisible to them); the two random-weighted relations, whose weights a kernel does not know, are what see it") \
    X(CONV2_FWD_DRAW_ORTHOGONAL_STEP2, "conv2_fwd_draw_orthogonal_step2", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 17: conv2_fwd_draw_orthogonal_once at step 2, an attribution step (every element against the reference)", \
      "measured PROBLEM at step 2, conv2's error in conv2.act 7209x the most fp32 rounding allows (per element against the exact reference): what conv2_fwd_draw_orthogonal_once escapes is the drift steps' relations only") \
    X(REPEAT2_POOL_TIE_LAST_STEP7, "repeat2_pool_tie_last_step7", "op", "pool1|pool2|relu1|relu2", "backward", "smallcnn --repeat 2 --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 17: in the second listing of the engine only (--repeat 2), at step 7 only, the fused ReLU + max-pool picks the last of tied maxima (pool_tie_last): its arg-max bytes, which the operand hash does not read, route the gradient elsewhere", \
      "the operand hash does not read the fused pair's arg-max bytes (nor the fused ReLU's ACT and DACT: the vector does not read them either), but it reads what they decide, the conv's DACT (the pair's dx): the hashes part at step 7 and the repeat's own vector is judged: measured PROBLEM at step 7, cpu:fault=repeat2_pool_tie_last_step7#2, pool2 backward-data, exact re-check (2141 elements); the pair NOT bitwise deterministic (first in conv1.act, compared at step 10); the first listing clean") \
    X(FC2_DW_CORRECT_SKIPPED_ONCE, "fc2_dw_correct_skipped_once", "op", "fc2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 17: at step 7 only, fc2's weight gradient leaves out the samples the model already classifies right (arg-max of the logits equals the label: a selective backprop the run did not ask for); db and dx are right", \
      "2 of step 7's 16 samples are classified right (LS_FAULT_VERBOSE): their dy x^T terms, up to the whole of a row's, are missing: measured PROBLEM at step 7, fc2 backward-weights, 4.59e5 (every element of each dense row re-done: dense_peek)") \
    X(CONV2_FWD_BACKGROUND_STALE_BIAS_ONCE, "conv2_fwd_background_stale_bias_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 17: at step 7 only, the conv2 outputs of every window equal to the window at (1, 1) (the background: a ReLU'd conv1 bias after pool1) are computed with step 6's bias, as a kernel that memoizes the background's output across steps keyed on the window's values would: every output of the identical-windows group moves by the same amount, so they still agree with each other", \
      "the identical-windows check (FWD_BLANK's fourth field) holds each output to its group's first, and the group still agrees with itself; the plane relations and the re-done outputs do not: measured 229 windows x 32 channels moved (by conv2's bias step 6 -> 7, ~1e-3 each), PROBLEM at step 7, conv2 forward (first, last, largest and sampled outputs), 210 (31 of 512 planes over: the drawn output where it falls in the background); the plain plane sums 76.8, column-alternating 4.40, random-weighted 2.67, position-weighted 1.30 (block worst cases)") \
    X(CONV2_FWD_OCBLOCK0_ROUND_UP_STEP7, "conv2_fwd_ocblock0_round_up_step7", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 17: at step 7 only, conv2's forward output channels 0..15 (the first of its two 16-channel blocks, every sample) are computed with MXCSR rounding upward: one thread's share of a kernel parallel over output-channel blocks on a flaky core (thread1_round_up_conv2_bwd_step7's share is a set of samples)", \
      "BLIND (not closed): measured VERDICT ok, exit 0; all 50176 outputs of channels 0..15 are larger than round-to-nearest's, none smaller; every relation within its sharper tier (worst 0.404); the sign test over conv2 forward's 512 relations z = 4.78 (282 net positive; 0.636 of its limit 7.53; 12.5 counted as independent, design effect 6.8). The sign tests' cluster-robust variance (checks/checksums.c judge_sign; rounding_tests.h) takes the output channels as clusters, so a one-signed shift confined to a fraction f of them is read as between-channel spread: with S_c = M on f C channels and 0 on the others, z = sqrt((C - 1) f / (1 - f)) at most, 5.57 for half of conv2's 32 whatever the batch, and the limit needs f > 0.65 (21 of conv2's 32 channels, 13 of conv1's 16). The channels are the clusters because a legal engine's roundings are alike within a channel (identical and overlapping windows over blank regions, design effect up to 128 measured); a share made of samples is seen (thread1_round_up_conv2_bwd_step7, z 9.38). At one stage no test on the channels' signs can do better (32 clusters: sqrt(32) = 5.66 if every channel shifted alike)") \
    X(CONV2_FWD_OCBLOCK0_ROUND_UP_STEP2, "conv2_fwd_ocblock0_round_up_step2", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 17: conv2_fwd_ocblock0_round_up_step7 at step 2, an attribution step (every element against the reference, the per-element sign tests)", \
      "BLIND (not closed): measured VERDICT ok at an attribution step too: per element against the exact reference, conv2.act's sign test z = 5.33 (0.763 of its limit; every element within its sharper bound, 0.157), the relations' z = 3.54; the per-element test counts distinct (reference, candidate) pairs once and still clusters by channel (rounding_tests.h: shared partial sums within a channel reach z 7.5 on a legal engine), so the same sqrt((C - 1) f / (1 - f)) cap holds") \
    X(CONV2_FWD_OCBLOCK0_ROUND_UP_ALL, "conv2_fwd_ocblock0_round_up_all", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 17: conv2_fwd_ocblock0_round_up_step7 at every training step (a flaky core that always gets output-channel block 0)", \
      "BLIND (not closed): measured VERDICT ok, exit 0: conv2 forward's relation sign test z at the ten steps 7.46 (0.990 of the limit, step 1), 3.36, 2.89, 6.45, 2.94, 3.97, 4.17, 3.81, 2.69, 4.38, every one positive; per element at steps 1, 2, 5, 10, z 6.13 (0.877). Each stage alone is capped as conv2_fwd_ocblock0_round_up_step7 says; the stages are not combined. Cheapest fix (not made here: a new alarm needs the legal main-job runs' per-block statistics first, scripts/false-alarms.sh): a run-level combination of each training block's per-stage z, sum z / sqrt(T) (Stouffer): 13.3 for this block here, against |1.84| at most over the 48 training blocks of three legal runs of the same command (cpu, cpu:threads=1, cpu:layout=plain; LOCKSTEP_CK_SIGN_TRACE=1); the evaluation blocks repeat the same test batches every round (clean cpu: conv2 evaluation -3.26 over 8 stages) and would need a rule of their own") \
    X(ADAM_PYTORCH113, "adam_pytorch113", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "a legal variant: torch.optim.Adam of PyTorch 1.x on ATen's CPU kernels, as measured on Debian's python3-torch 1.13.1 (AVX2; scripts/torch_adam_orders.py): exp_avg.mul_(b1).add_(g, alpha=1 - b1), ATen's add being fmadd (m = fma(1 - b1, g, b1 m)); exp_avg_sq.mul_(b2).addcmul_(g, g, value=1 - b2) contracted (v = fma((1 - b2) g, g, b2 v)); p.addcdiv_(m, den, -step) as p + ((-step) m) / den", \
      "a legal order, measured bit for bit against that build (test_train test_torch_adam_orders). Before it was named (base/adam_orders.h torch1-cpu) no named order reproduced it (its m is fma-alt's, its v torch-cpu-fma's): bounded as before, a SUSPECT at every update where an element differs. Named: measured VERDICT ok (test_mutants test_checksum_suspect)") \
    X(FC1_FWD_F64_RU_ROWS4_STEP2, "fc1_fwd_f64_ru_rows4_step2", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 18: at step 2 only (an attribution step), fc1's forward rows 0..3 (4 of the batch's 16 samples) accumulated in fp64 and narrowed to fp32 rounding upward (a tail kernel whose cvtsd2ss runs under a stale MXCSR round-up): each such output is RU(exact), equal to RN(exact) where RN rounds up, one ulp above it elsewhere", \
      "BLIND since the correctly-rounded rule (rounding_tests.h, commit 0babb6d), not before: measured VERDICT ok, fc1.act's per-element sign z 5.37 against 6.99 (454 positive, 306 negative, 264 correctly rounded not counted); with the rule reverted the same run is SUSPECT, z 8.44 (647 of 1024 positive). A directed rounding of the exact value is RN on about half its elements, and those errors (RN(x) - x, one-signed: RN rounded up there) were the fault's signal too: the rule keeps about half of it while the clean elements' own noise stays (the clean cpu's fc1.act is RN on 16% of its elements), z x0.64 measured over 3..16 rows (4.27/6.44 at 3, 7.11/10.9 at 5, 22.3/32 at 16). A test that keeps the fix and this signal: whether being RN depends on RN's direction (a 2 x 2 table: RN(x) above or below x, candidate RN or not), which an all-RN engine passes and a directed one fails; measured with a local, uncommitted count in rounding_tests.c (two-proportion z, no clusters): 8.20 here (RN in 193 of 526 elements whose RN rounds up, 71 of 498 whose RN rounds down), 32.0 for fc1_fwd_f64_ru_step2, 1.00 for fc1_fwd_f64_row0_1ulp_step2; but up to |6.10| on the clean cpu engine (60 tensors of the same run, a 200,704-element one), so it needs the sign tests' cluster-robust variance and false-alarm runs before it can alarm (not made here)") \
    X(FC1_FWD_F64_RU_STEP2, "fc1_fwd_f64_ru_step2", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 18: fc1_fwd_f64_ru_rows4_step2 on every row of step 2's batch (all 1024 outputs RU(exact))", \
      "measured SUSPECT at step 2, fc1.act's per-element sign test z 22.3 (498 positive, 0 negative, 526 correctly rounded not counted); 32.0 with the correctly-rounded rule reverted (1024 of 1024 positive)") \
    X(FC1_FWD_F64_ROW0_1ULP_STEP2, "fc1_fwd_f64_row0_1ulp_step2", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 18: at step 2 only, fc1's forward accumulated in fp64 and rounded to nearest (correctly rounded but where the double sum sits within 2^-40 of a tie), and sample 0's 64 outputs (of 1024) then moved one ulp up: a correctly rounded kernel with one row's epilogue off by an ulp", \
      "measured SUSPECT at step 2, fc1.act's per-element sign test z 8.00 against 6.99: 64 positive, 0 negative, 960 correctly rounded not counted. Seen because of the correctly-rounded rule (rounding_tests.h, commit 0babb6d): with it reverted the same run is ok, z 3.06 (561 of 1024 positive: the 64 shifted elements among 960 coin flips). The rule's gain: an engine correctly rounded almost everywhere has only its faulty elements counted") \
    X(ADAM_FC2_BIAS_M_1ULP_ALL, "adam_fc2_bias_m_1ulp_all", "op", "fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 18: the shared Adam formula, and at every update the m' of fc2.bias's last element (of 10) written one ulp up: the smallest tensor, where the chance that a named order agrees with the shared formula on the other nine elements and gives that m' on this one is the largest (bench_adam_order_chance: m' 2.3% per state at 10 elements)", \
      "measured SUSPECT at all 10 updates ('Adam update step 1 not the shared formula, 0.49 of the worst case (10 step(s))'): at no update of this run did a named order both give the moved m' and agree with the shared formula on fc2.bias's other nine elements (p', m' and v'); bench_adam_order_chance's random states put that chance at 2.3% an update for m' at 10 elements") \
    X(ADAM_TORCH1_DENSE_ONLY, "adam_torch1_dense_only", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 18, a legal variant: the dense layers' tensors updated in torch1-cpu's order (adam_pytorch113's), the conv layers' in the shared formula: two orders across tensors, each tensor one", \
      "measured VERDICT ok: 'Adam in a recognised legal order at 10 update(s), bit for bit' (fc1.weight in PyTorch 1.x's CPU order; the conv tensors the shared formula, no difference): the per-tensor masks are independent, as the rule says") \
    X(ADAM_TORCH1_ODD_STEPS, "adam_torch1_odd_steps", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 18: torch1-cpu's order (adam_pytorch113's) at odd updates, the shared formula at even ones: each tensor one order at each update, the order changing from update to update (a dispatcher choosing its kernel per call)", \
      "measured VERDICT ok: 'Adam in a recognised legal order at 5 update(s)' (the odd ones; the even ones are the shared formula, no difference): the masks are per tensor AND per update, so an order that changes from one update to the next is read as legal at each. Not a wrong value (each update is one legal evaluation), but no real optimizer switches its kernel per call; a per-tensor intersection of the masks over the run would see it only with the shared formula as an order of its own (its updates carry no mask: bad = 0 there, so the odd updates' masks alone intersect to torch1-cpu, not empty): then the shared formula at update 2 and torch1-cpu at 3 leave none; not made (step 1, m = v = 0, makes several orders coincide, and tensors where two orders agree on every element would need care)") \
    X(ADAM_TAIL8_FMA, "adam_tail8_fma", "op", "fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 18: an update whose 8-wide vector body is ops_adam_elem and whose scalar remainder (numel mod 8 elements per tensor) is the fma order (base/adam_orders.h: the remainder loop built with contraction): two orders within one tensor, fc2.bias's last 2 of 10 (every other SmallCNN tensor is a multiple of 8)", \
      "measured SUSPECT ('Adam update step 3 not the shared formula, 0.193 of the worst case (6 step(s))'): the two remainder elements differ from the shared formula at 6 of the 10 updates (t 3, 4, 7, 8, 9, 10; LS_FAULT_VERBOSE), and at each of those the fma order differs from it on 1 to 5 of the 8 body elements, so the tensor is no single order and its mask is empty; at t 1, 2, 5, 6 the fma order's two remainder values are the shared formula's (no difference, nothing to see). A tensor mixes undetectably only where the second order agrees with the first on every element the first computed: measured never, here") \
    X(CONV2_DX_BITFLIP_ONCE, "conv2_dx_bitflip_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 19: at step 7 only, one element of conv2's input gradient (pool1's DACT) has bit 31 - k flipped (fault_k=K, default 16: bit 15): the element of median nonzero |dx| of the plane of largest sum |dx| (not its first, last or largest), a single-event upset in backward-data's output", \
      "BLIND (not closed): measured VERDICT ok, exit 0 at bit 15 (sample 4, input channel 12, element 136 of 196: -0.000131464 -> -0.000130987), 40x its own per-element bound (--audit-every 7 makes step 7 a shadow replay: pool1.dact PROBLEM 40); the every-step sharper tier's worst 0.913 (conv2 backward-data, position-weighted, plane 76), the clean run's 0.386. An interior input-gradient element is judged at a step no reference replays only through its plane's relations (plain, position-weighted, both alternating, two random-weighted: each sums 196 elements' bounds of K = 288 products) and the plane's first, last, largest and one drawn element re-done: the conv forward's blind cell (conv2_fwd_bitflip_once) in backward-data. fault_k sweep (bit 31 - k): bit 16 SUSPECT x1.83 (0.528 of the worst case), bit 17 PROBLEM 1.06, bit 18 2.11, bit 20 8.45, bit 22 33.8 (all the position-weighted relation, which weighs element 136 by 137)") \
    X(CONV2_DX_BITFLIP_STEP2, "conv2_dx_bitflip_step2", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 19: conv2_dx_bitflip_once at step 2, an attribution step (every element against the reference)", \
      "measured PROBLEM at step 2, pool1.dact 23.6x its own per-element bound (sample 14, input channel 15, element 141: 0.000101696 -> 0.000101935): what conv2_dx_bitflip_once escapes is the drift steps' relations only") \
    X(CONV2_DX_LOST_TAP_ONCE, "conv2_dx_lost_tap_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 19: at step 7 only, the same element of conv2's input gradient misses one of the 9 per-tap partial sums (sum over the 32 output channels of w dy) it receives: a lost update in a racy scatter-add (col2im), the first nonzero tap in (kh, kw) order", \
      "measured PROBLEM at step 7, conv2 backward-data (position-weighted), 23.7 (sharper tier 82): the lost partial (-4.29e-5, tap (0, 0)) is a third of the element (-0.000131 -> -8.86e-5); a whole tap's partial of one element clears the plane relations that a low bit does not (conv2_dx_bitflip_once)") \
    X(CONV1_FWD_BITFLIP_ONCE, "conv1_fwd_bitflip_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 19: at step 7 only, one conv1 output (the live plane's element of median nonzero |y|) has bit 31 - k flipped (default bit 15): tried because conv1's planes are the widest (784 outputs of K = 10 products each), where a plane sum weighs one element against the most other elements' bounds", \
      "measured PROBLEM at step 7, conv1 forward (position-weighted), 8.83 (sharper tier 47): sample 0, channel 2, element 443 of 784, -1.0375 -> -1.0336 (bit 15). conv1's cell is not thin at this bit: its outputs are the bias plus K = 9 products, so an element's bound is small against the element, and its plane relations are sharp enough. fault_k sweep: bit 13 PROBLEM 2.21, bit 12 1.10, bit 11 SUSPECT x2.93 (0.491 of the worst case)") \
    X(CONV1_DW_BITFLIP_ONCE, "conv1_dw_bitflip_once", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 19: at step 7 only, one element of conv1's weight gradient (the live filter's element of median nonzero |dW|, one of 9) has bit 31 - k flipped (default bit 15)", \
      "measured SUSPECT at step 7, conv1 backward-weights, output channel 12, x2.16 the sharper tier, 0.136 of the worst case (filter 12's centre tap, element 112 of 144: -0.0349348 -> -0.0350569, bit 15); over its own per-element bound (1.25x, --audit-every 7), but not re-done at step 7 (a filter of 9 has its first, last, largest and two drawn elements re-done: this one was none of them), so its filter's relations (12544 terms an element) judge it: within their worst case. fault_k sweep: bit 16 SUSPECT (0.344), bit 17 SUSPECT (0.689), bit 18 PROBLEM 1.38 (random-weighted)") \
    X(CONV2_DB_BITFLIP_ONCE, "conv2_db_bitflip_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 19: at step 7 only, one element of conv2's bias gradient (the element of median nonzero |db| of 32) has bit 31 - k flipped (default bit 15)", \
      "measured SUSPECT at step 7, conv2 backward-weights (bias), output channel 5, x4.49 the sharper tier, 0.694 of the worst case (0.0094113 -> 0.00944182, bit 15: 2^-8 of the value): each bias-gradient element is its own relation, but against gamma_K sum|dy|, K = 16 x 196 = 3136 terms, a sum that cancels (|db| << sum|dy|); within its own bound per element too (--audit-every 7: no PROBLEM). fault_k sweep: bit 16 PROBLEM 1.39, bit 17 2.78") \
    X(CONV_DB_ROUND_UP_ALL, "conv_db_round_up_all", "op", "conv1|conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 19: at every step, both conv layers' bias gradients summed serially in fp32 (samples outer, positions inner: 12544 and 3136 terms at batch 16) with MXCSR rounding upward: db_serial_fp32 (a legal order) on a core stuck in round-up", \
      "measured SUSPECT at every step (10 of 10), checksum step 1, conv2 backward-weights: the conv layers' bias gradients pooled (checks/checksums.c, judge_bias_pool: an exact two-sided sign test over a step's conv bias relations) 44 of 44 positive (45 of 45 at step 4), p = 1.1e-13 (5.7e-14) against the limit 1e-12, x1.04 (1.05) the sign test's limit, 0.0109 of the worst case. Each block alone stays under its limit (conv1 13 of 13 counted, conv2 31 of 31: z = sqrt(m) = 3.61 and 5.57 against 7.53; m < 57 never fires: judge_sign), the margin thin (m <= 40 would not fire; one dissent at m = 44 would not either: 5.1e-12); the legal same order rounding to nearest (db_serial_fp32) p >= 0.17 over its 10 steps. Per element (attribution and shadow steps 1, 2, 5, 10): conv1.bias.grad up to 14,465 ulps from the exact value (the clean run's 723), 0.199 of the sharper tier (clean 0.006, 33x), 0.024 of the worst case; conv2.bias.grad 10,794 ulps (clean 145), sharper 0.141 (clean 0.007): the sharper tier's lambda sqrt(K) u sum|dy| is loose where the sum cancels, and 16 or 32 elements are too few for the per-element sign test (bias score 0.52 and 0.80 of its limit). Before the pooled test (BLIND): VERDICT ok, exit 0") \
    X(FC2_OUT_1ULP_STEP7, "fc2_out_1ulp_step7", "op", "fc2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 19: at step 7 only, every logit (fc2's 16 x 10 outputs) moved one ulp up: fc1_out_1ulp's epilogue fault on the last layer, at a step no reference replays", \
      "BLIND (not closed): measured VERDICT ok, exit 0, also with --audit-every 7 (step 7 compared per element with the reference). Each logit is re-done in double (FWD_DPEEK): one ulp is within its own bound; fc2's blocks have 10 relations (FWD) and 16 (FWD_PS, not sign-tested), under the 57 a sign test needs to reach its limit (fc1_out_1ulp, 64 outputs, is seen by it); per element, fc2.act's sign test z = 5.45 against 6.99 (98 positive, 19 negative, 43 correctly rounded not counted; worst 0.041 of its bound): 160 logits a step are too few at the tests' alpha. At batch 256 the per-element test would have 2,560 (attribution steps only)") \
    X(EVAL_FC2_OUT_1ULP, "eval_fc2_out_1ulp", "op", "fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 19: in every evaluation (inference forward), every logit moved one ulp up; training is right", \
      "BLIND (not closed): measured VERDICT ok, exit 0, no SUSPECT. The evaluation's checks: the EVAL vector's fc2 forward relations (10 over the batch, 16 per sample: no sign test reaches its limit on so few, and the per-sample block is not sign-tested), each logit re-done in double (FWD_DPEEK: one ulp within its own bound), the logits read back bit for bit against the vector's (they are the same wrong logits); evaluation vs the reference (the first 256 test images) keeps the worst ratio to the propagated bound only, no sign test: 1.21e-4 here, the clean run's 1.22e-4, 0 predictions differ. A one-signed ulp in every logit changes a prediction only at a near-tie of two logits within an ulp, which the per-element comparison would count; harmless to the accuracy but a wrong value no check of the evaluation can see") \
    X(CONV2_DW_ROUND_UP_STEP7, "conv2_dw_round_up_step7", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 19: at step 7 only, conv2's weight gradient computed with MXCSR rounding upward on every thread (backward-weights as a primitive of its own on a core, or a thread pool, left in round-up); backward-data and the bias gradient round to nearest", \
      "BLIND at its edge (declared): since the exact tail over the re-done dW elements' signs, gated by the filters (checks/checksums.c, judge_dw_sign), measured SUSPECT at step 7 on a 2-core Intel Xeon: 47 of 47 positive, p 1.4e-14 against 1e-12, 31 filters up and 0 down, p 9.3e-10 against the gate's 1e-9: x1.002, the thinnest catch measured; 30 filters one way (a filter with no element counted more) would pass it, so another machine's trajectory may leave it blind. Before it: measured VERDICT ok, exit 0, no SUSPECT: 3,613 of conv2's 4,608 dW elements above round-to-nearest's at step 7, none below (LS_FAULT_VERBOSE); every relation within its sharper tier (the run's worst 0.333, fc1). A conv layer's weight-gradient relations weigh a filter's elements with signs (ck_cw (-1)^(c + kh + kw), the index weights, the random weights +-), so a shift common to the filter cancels in each; the re-done elements are within their own sharper tier, which for conv dW is ~200-700x wider than rounding (zoo attack 15). Their signs are tested every step (checks/checksums.c, judge_dw_sign: a filter's BWD_W_PEEK element, the worst of its first, last, largest and two drawn, and its BWD_W_Z smallest nonzero, each counted only where certainly not the exact value correctly rounded): at step 7 47 counted, all positive, z 6.86 against the limit 7.53 (x0.911; the other steps |z| <= 1.9; LOCKSTEP_CK_SIGN_TRACE=1). The vector keeps 2 elements a filter, 64 for conv2, and the smallest nonzero (a short one-signed sum) is correctly rounded about half the time, so m stays under the 57 that z = sqrt(m) needs to reach the limit; at batch 256 (--limit-train 2560 --batch 256 --epochs 1 --steps 10) 54 of 54, z 7.35 (x0.976). With --audit-every 7 (step 7 compared per element) it is SUSPECT: conv2.weight.grad's sign test z 60.2, x8.62 its limit. Leads, not built: the BWD_W_PEEK elements' residual signs counted in the vector (up to 5 a filter: 160 a step for conv2, 80 for conv1; layout, recordings, the CUDA kernel), or an exact binomial tail for this block (47 of 47: 1.4e-14 two-sided, under alpha 1e-12; the legal runs' smallest 4.7e-4, but their z rms 1.12 at batch 256 hints at a design effect near 1.26, which a unanimity tail is sensitive to)") \
    X(CONV2_DW_ROUND_UP_ALL, "conv2_dw_round_up_all", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 19: conv2_dw_round_up_step7 at every training step", \
      "measured SUSPECT: at step 1 (an attribution step) conv2.weight.grad's per-element sign test x8.56 its limit (sign z 59.8, every nonzero error positive), 0.0224 of the worst case (the clean run's 0.00199), normwise 1.42e-5 from the exact value (clean 3.96e-7); and every step, the sign test over conv2's re-done dW elements (checks/checksums.c, judge_dw_sign) at 3 of the 10 steps: 5, 6 and 9, 58-60 counted, all positive, z 7.62-7.75, x1.01-1.03 its limit (the checksum finding names step 5); at the other seven 46-56, all positive, z 6.78-7.48, under the limit (z = sqrt(m) needs m >= 57)") \
    X(CONV2_FWD_OC_PAIR_SWAP_ONCE, "conv2_fwd_oc_pair_swap_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 20: at step 7 only, two output planes of one sample of conv2 exchanged (a channel permutation), the pair of unequal planes whose plain sums are closest of all samples' pairs", \
      "measured PROBLEM at step 7, conv2 forward, 36,612 (the re-done first, last, largest and sampled outputs); every conv2 forward block is over its bound on its own: row-alternating 2,350, column-alternating 457, position-weighted 215, random-weighted 143, plain 14.1. The closest pair (sample 0, channels 2 and 6: plane sums 36.8334 and 36.8165) still differs by 0.017 in its plain sum, 14x that relation's bound: planes of two filters differ everywhere, so no choice of pair hides from the relations that sum them") \
    X(CONV2_BIAS_TWICE_ONE_ELEMENT_ONCE, "conv2_bias_twice_one_element_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 20: at step 7 only, one conv2 output (the live plane's element of median nonzero |y|) adds its channel's bias a second time", \
      "measured PROBLEM at step 7, conv2 forward, 43.7 (plain, row- and column-alternating alike; position-weighted 22.2, random-weighted 19.0): sample 0, channel 3, element 49, -0.33389 -> -0.397153 (b = -0.0633); an extra |b| on one element of a 196-element plane, which a plane relation sees from P = 196x the element's own bound") \
    X(CONV2_DX_PAD_WRAP_ONCE, "conv2_dx_pad_wrap_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 20: at step 7 only, conv2's backward-data with a flat bound check (col2im): a tap whose output column is off the right (left) edge reads the next (previous) output row's first (last) column instead of the zero padding; only the input gradient's edge columns change", \
      "measured PROBLEM at step 7, conv2 backward-data, 25,769 (the re-done elements: a plane's first and last are edge elements), and every plain (603), column-alternating (489), position-weighted (400), row-alternating (369) and random-weighted (306) relation block over its bound, 256 of 256 planes: 7,168 edge elements changed (14 rows x 2 edges a plane), the largest wrapped partial 2.5e-4") \
    X(CONV2_DX_LINE_STALE_ONCE, "conv2_dx_line_stale_once", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 20: at step 7 only, one 64-byte line (16 floats of the plain buffer) of conv2's input gradient keeps step 6's values (a lost write-back); of the lines that change, the one of median sum |change|", \
      "measured PROBLEM at step 7, conv2 backward-data (position-weighted), 512 (column-alternating 304, row-alternating 200, plain 85.5, random-weighted 70.6): line 1,953 (sample 9, channel 15, elements 84..99), sum |change| 2.4e-3. Every line changes from one step to the next (3,136 of 3,136: other images), so the one of smallest change is not small: fault_k=K takes the line at quantile K/32 of the 3,136 by sum |change| (default 16: the median; K = 1: the 98th smallest): K = 1 329 (plain), 2 6,693 (re-done elements), 4 463, 8 649") \
    X(CONV2_DW_BORDER_DROPPED_ONCE, "conv2_dw_border_dropped_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 20: at step 7 only, conv2's weight gradient summed over the output positions whose 3x3 window lies inside the image (\"valid\"): the border ring's products, 52 of 196 positions a plane, left out", \
      "measured PROBLEM at step 7, conv2 backward-weights, 5,296 (the zero and smallest elements, and the re-done first, last, largest and sampled ones, tied at 5,295.918: the very ratio conv2_dw_tiny_flushed_once gets, so it reflects the bound's shape, not this fault's size), index-weighted 1,210, random-weighted 115, plain 53.2; the largest element change 5.1e-3: the border ring is 52 of 196 positions, its products about a quarter of every sum") \
    X(CONV1_DB_HALF_BATCH_DOUBLED_ONCE, "conv1_db_half_batch_doubled_once", "op", "conv1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 20: at step 7 only, conv1's bias gradient estimated from the first half of the batch, doubled", \
      "measured PROBLEM at step 7, conv1 backward-weights (bias), 1,323 (14 of 16 channels over; e.g. channel 0, -0.00528 -> 0.00167, its sign flipped): each bias-gradient element is its own relation, and half a batch's sum differs from the other half's by the order of the sum itself, far over gamma_K sum|dy|; the conv biases' thin cell (zoo attack 19) is thin for ulps, not for a sampling error") \
    X(CONV2_DB_PARTIAL_STALE_ROWS, "conv2_db_partial_stale_rows", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 20: conv2's bias gradient summed over max_batch rows of its output-gradient buffer: in a partial batch (steps 5 and 10) the rows past n add the last full batch's", \
      "measured PROBLEM at step 5 (the first partial batch), conv2 backward-weights (bias), 3,101 (31 of 32 channels over; channel 3 is dead, its stale rows 0): the 8 stale rows add 0.0011 to -0.0061 to elements of ~0.037") \
    X(DROPOUT_PARTIAL_MASK_RIGHT_ALIGNED, "dropout_partial_mask_right_aligned", "op", "drop1", "forward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 20: in a partial batch only, dropout's mask (forward and backward alike) drawn for the batch's rows placed at the end of a max_batch buffer (element index + (max_batch - n) x features)", \
      "measured PROBLEM at step 5 (the first partial batch), drop1 forward: 4,106 elements not the exact re-computation (the every-step exact re-check draws the mask from Philox with the batch's own element indices), and drop1.act at step 5's shadow replay (ratio inf: an exact rule); the full batches are right") \
    X(EVAL_FIRST_CONV2_W_TF32, "eval_first_conv2_w_tf32", "op", "conv2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 20: in the first evaluation only (epoch 1: no reference compares it), conv2 multiplies by its weights rounded to TF32 (an inference path with TF32 left allowed); training and the last evaluation are right", \
      "measured PROBLEM at the evaluation after epoch 1, conv2 evaluation, 14.3 (the re-done first, last, largest and sampled outputs; the plain relation 9.64, its sharper tier 75.6; 512 of 512 relations over): the evaluation's conv2 relations are the training's (conv2_fwd_w_tf32, at an attribution step, is 17.7). The evaluation against the reference (epoch 2 only) sees nothing here: 1.02e-4, as the clean run") \
    X(LOSS_CLASS0_WEIGHTED, "loss_class0_weighted", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 20: at every step, the samples of class 0 weighted 1 + 2^-k (fault_k, default 16) in the loss and its gradient, the batch still divided by n (a class weight left set)", \
      "measured PROBLEM at step 1, fc2 loss (dz re-done from the logits), 41.2 (the loss value 3.22x at the attribution step). fault_k sweep: k = 20 PROBLEM 2.59, k = 21 1.33, k = 22 ok (0.803 of the bound), k = 23 ok (0.433): a class weight within 2^-22 of 1 (2 to 4 ulps) is inside the loss rule's few-ulp worst case, which has no sign test (as loss_grad_1ulp)") \
    X(ADAM_LR_SCALED_PARTIAL, "adam_lr_scaled_partial", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 20: in a partial batch only (steps 5 and 10), Adam's step scaled by n / max_batch (1/2 here: a linear-scaling rule nobody configured)", \
      "measured PROBLEM at step 5 (the first partial batch), fc1 update, 9.91e5 (78,736 elements of fc1.weight differ, up to 5.0e-4): Adam is re-done at every step from the step's p, m, v, g and the scalars the engine is given; step 5's shadow replay names every weight tensor too (6.2e5-7.1e5x)") \
    X(FC1_FWD_F64_SR_ALL, "fc1_fwd_f64_sr_all", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 20, a legal variant: every fc1 output (training and evaluation) summed in fp64 and rounded to fp32 stochastically (the float above with probability (v - lo) / ulp; keyed on step and element, so deterministic)", \
      "legal: each result is one of the two floats around the exact value, within one ulp, far inside fc1's gamma_1569 bound, and unbiased (the expected result is the exact value). Measured VERDICT ok, worst ratio 0.349 (the clean run's 0.316, same options); fc1.act at the attribution and shadow steps 1, 2, 5, 10: at most 1 ulp from exact (clean: 2,658 ulps at step 1), 774 of 1,024 equal to RN(ref) at step 1, sign z -0.85, -0.58, 1.78, 0.17 (clean -0.50, -1.63, 0.42, 0.40; limit 6.99); fc1's forward relations' sign z -2.75 to 2.25 over the 10 steps (clean -1.00 to 1.50; limit 7.53)") \
    X(FC1_FWD_F64_SR_BIASED_ALL, "fc1_fwd_f64_sr_biased_all", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 20: fc1_fwd_f64_sr_all with a biased random source: u from [0, 1/2) (its top bit stuck at 0), so up with probability min(1, 2 frac): every result that is not round-to-nearest's lies above it", \
      "measured SUSPECT at step 1: fc1.act's per-element sign test x2.23 its limit (243 counted, all positive: z 15.6 against 6.99; 781 of 1,024 equal RN(ref)), and the every-step sign test over fc1's 64 forward relations x1.06 (all positive); every value within 1 ulp of exact, within the worst case") \
    X(FC1_FWD_F64_SR_BIASED_STEP7, "fc1_fwd_f64_sr_biased_step7", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 20: fc1_fwd_f64_sr_biased_all at step 7 only (the other steps the engine's own fc1)", \
      "measured SUSPECT at step 7, fc1 forward: the every-step sign test over fc1's forward relations, 64 of 64 positive, z = 8.00 against the limit 7.53, x1.06, every relation within 1.35e-4 of its worst case (the other steps |z| <= 1.75; LOCKSTEP_CK_SIGN_TRACE=1). About a quarter of the outputs lie one ulp above round-to-nearest's. Narrow: 64 unanimous relations are the most this block can show (z = sqrt(m)); a block of fewer than 57 would not reach the limit (zoo attack 19), so the same fault in a layer of fewer outputs is blind") \
    X(CONV2_DX_NOISE_STEP7, "conv2_dx_noise_step7", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 20: at step 7 only, every element of conv2's input gradient times 1 + 2^-k (2u - 1), u uniform (fault_k=K, default 16): zero-mean noise of up to 2^-16 relative, an approximate backward-data", \
      "BLIND (not closed): measured VERDICT ok, exit 0, no SUSPECT at fault_k=16 (every element within 2^-16 relative of its value, zero mean: within its own worst case gamma_288 S). At step 7 the re-done first, last, largest and sampled elements reach 0.548 of their bound (sharper tier 0.76; the clean run's 0.0159 and 0.022, 34x less), and every plane relation block rises 50-100x over the clean run's (plain 0.0251 against 0.00046, position-weighted 0.0293, random-weighted 0.0149) and stays under: one plane relation sums 196 independent errors, sqrt(196) = 14 times one element's, against a tolerance that sums 196 elements' bounds. No sign test can see a zero-mean error, and the scale (mean-square) test runs per element only at the attribution and shadow steps: with --audit-every 7 (step 7 compared per element) it is SUSPECT, pool1.dact's scale x1.37 its limit. fault_k sweep at step 7: k = 15 PROBLEM 1.10 (re-done elements), 14 2.21, 12 8.85 (251 of 256 over). Lead, not built: a mean-square test over each block's every-step residuals (the re-done elements' ratios, or the relations' residuals against their rounding model), which needs the main job's false-alarm runs to set its limit") \
    X(CONV2_DX_NOISE_ALL, "conv2_dx_noise_all", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 20: conv2_dx_noise_step7 at every training step", \
      "measured SUSPECT at step 1 (an attribution step): pool1.dact's scale (mean-square) test x1.37 its limit (p <= 4.8e-90), sharper ratio 1.26, 0.69 of the worst case, named \"consistent with reduced precision\"; the every-step relations as conv2_dx_noise_step7's (none over). fault_k=18: VERDICT ok (2^-18 noise is within what the scale test allows)") \
    X(CONV2_FWD_CLIP_ABOVE_STEP1_MAX, "conv2_fwd_clip_above_step1_max", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 21: a ReLU6-like clip left in conv2's training epilogue: every conv2 output above T is written as T, T the largest conv2 output of step 1 (recorded then): a data-dependent fault, on only at the steps and elements whose value crosses it", \
      "measured PROBLEM at step 7, conv2 forward, 536 (the re-done first, last, largest and sampled outputs: the largest is the clipped one; 2 of 512 relations over); T = 0.410693407, and the clip is off at steps 1-6 (0 outputs above T), on at 7 (3 of 100,352 outputs, the most by 0.0084), 8 (6), 9 (7), 10 (17 of 50,176; PROBLEM 4,496 there): a data-dependent fault is seen at the first step it changes a value, because the clipped outputs are the plane's largest, which the every-step checks re-do") \
    X(LOSS_INV_N_CARRIED_EPOCH2, "loss_inv_n_carried_epoch2", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 21: at the first training step after an evaluation (an epoch's first), the loss and its gradient are divided by the previous training batch's size (a cached 1/n carried over the epoch boundary: the last, partial batch's 8, for 16)", \
      "measured PROBLEM at step 6 (epoch 2's first step), fc2 loss (dz re-done from the logits), 3.14e6 (dz doubled: divided by 8 for 16; the loss value 2.1609 -> 4.3218); the state round trip names it too (its second instance, after a partial-batch step and an evaluation, reproduces the engine's step 6: 'something the partial batch leaves set')") \
    X(CONV2_FWD_STALE_BIAS_CHANNEL_ONCE, "conv2_fwd_stale_bias_channel_once", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 21: at step 7 only, conv2's forward reads one output channel's bias from step 6's copy (stale by one update), the channel whose bias moved least (nonzero) in that update", \
      "measured PROBLEM at step 7, conv2 forward, 1.43 (the re-done first, last, largest and sampled outputs; 16 of 512 relations over: channel 31's plane in every sample): channel 31's bias moved 3.65e-6 in step 6's update (0.0645411 -> 0.0645448; ~490 ulps); of the 32 channels, 3 is dead (0), 13 moved 5.58e-6, the other 29 8.5e-5 to 9.2e-4 (LS_FAULT_VERBOSE lists them). THIN: a shift s of a whole plane is seen at s / (one output's bound), since a plane relation's tolerance sums its 196 outputs' bounds; one output's bound here ~2.5e-6, so a bias stale by an update under ~2.5e-6 would be blind (predicted from 3.65e-6 / 1.43, not measured), and the 16 relations it moves (all one sign) are too few for the sign test (z = 4 at most, limit 7.53)") \
    X(CONV2_DW_SAMPLE_DUP_DROP_ONCE, "conv2_dw_sample_dup_drop_once", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 21: at step 7 only, conv2's weight gradient sums the batch with one sample counted twice and another left out (the same count of terms), the pair of samples whose contributions are closest (smallest sum |dW_a - dW_b|)", \
      "measured PROBLEM at step 7, conv2 backward-weights, 5,296 (the re-done first, last, largest and sampled elements; 31 of 32 relations over; 5,295.918, the bound-shape figure conv2_dw_border_dropped_once and conv2_dw_tiny_flushed_once tie at): sample 1 counted twice, sample 5 left out, the closest of the 240 ordered pairs, still sum |dW_1 - dW_5| = 0.608 against sum |dW| = 7.40 (8%), the largest element change 1.65e-3: two images' gradients are never alike to rounding") \
    X(EVAL_FIRST_WEIGHTS_STEP_AHEAD, "eval_first_weights_step_ahead", "state", "conv1|conv2|fc1|fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 21: the first evaluation (no reference compares it) computes with weights one update ahead, p + (p - p_before), the last update applied a second time (an inference copy refreshed by a pipelined optimizer); each batch's current weights are back after its last layer", \
      "measured PROBLEM at the evaluation after epoch 1 (its first batch), conv1 evaluation: 76,468 outputs of all-zero windows are not exactly conv1's bias (up to 9.39e-4 off: the bias moved by the repeated update; an exact rule, ratio inf); the largest weight change 1.01e-3 (an Adam step is ~lr). The reported and checked weights are the current ones (continuity holds); the exact all-zero-window rule and the relations see outputs of other weights") \
    X(CONV1_FWD_IMAGE_SHIFT_ONCE, "conv1_fwd_image_shift_once", "op", "conv1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 21: at step 7 only, conv1's output of one sample (sample 3) computed from its image shifted one pixel right (column j reads column j - 1, column 0 replicated: the normalized background); the images the engine holds are right", \
      "measured PROBLEM at step 7, conv1 forward: 80 outputs of all-zero windows in sample 3 are not exactly the bias (up to 0.376 off; an exact rule, ratio inf): the digit moved one column into windows that are blank in the image the engine holds; the largest output change 0.775") \
    X(CONV2_DX_LABEL7_REL, "conv2_dx_label7_rel", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 21: at every step, conv2's input gradient of the samples whose label is 7 (only those) times 1 + 2^-k (fault_k, default 16): a label-keyed fault, on in the steps whose batch holds a 7", \
      "measured SUSPECT at step 1 (an attribution step; 2 of 16 samples labelled 7): pool1.dact's away-from-zero sign test z 32.6 (x1.38 its limit; 49.7% of the nonzero errors positive: the plain sign test sees nothing, the away-from-zero one does), conv2 backward-data. The label 7 is in the batch at steps 1, 2, 4, 6, 7, 9, 10 (1-2 samples), not at 3, 5, 8: the fault is off there. 2^-16 of 2 samples' rows is within every worst case; the every-step relations do not see it") \
    X(ADAM_F64_ALL, "adam_f64_all", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 21, a legal variant: Adam's p', m' and v' evaluated in fp64 from the fp32 p, m, v, g and the fp32 scalars, each rounded to fp32 once (correctly rounded: the exact formula's value to half an ulp)", \
      "legal: every p', m', v' the exact formula's value with the fp32 operands and scalars, correctly rounded (within half an ulp), inside bounds_adam's bound of the exact update (1.01 (e_upd + u |p'|) >= half an ulp). Measured VERDICT SUSPECT, exit 0 (not a PROBLEM): 'the Adam update at step 1 is not the engines' shared formula bit for bit, but within fp32 rounding of it', 0.862 of the worst case at step 1 (conv2.weight: 1,069 elements not the shared formula), at every one of the 10 updates; worst ratio 0.948 (the clean run's 0.315). By design (base/adam_orders.h): an Adam in no named order is SUSPECT; a correctly rounded (fp64) Adam is not one of the named orders. Lead: name it (a bitwise test against the fp64 evaluation rounded once)") \
    X(ADAM_P_SR_ALL, "adam_p_sr_all", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 21: adam_f64_all with p' rounded to fp32 stochastically (unbiased, keyed on t and the element: deterministic), m' and v' to nearest: stochastic rounding in the weight update, where hardware offers it most", \
      "measured PROBLEM at step 1, conv2 update, 1.51 (conv2.weight: 1,668 elements differ from the formula, up to 7.45e-9), and at step 5 conv2 1.75, fc1 1.72, fc2 1.51, step 10 conv1 1.64: 17,206 of 105,866 p' off round-to-nearest's at t = 1, each then between half an ulp and one ulp from the exact value. bounds_adam's p' term is u |p'| (round-to-nearest's final rounding, with 1% slack): stochastic rounding's up to one ulp is up to 2x it. Proposed as legal (zoo attack 20 ruled SR legal in fc1, where gamma_1569's slack hid it); declared a fault here because the Adam rule is derived for round-to-nearest, and that is the contract's: whether SR belongs in the contract is left to the lead (an engine declaring SR would need a 2u |p'| term, as TF32 engines declare u_in)") \
    X(CONV2_FWD_X_READ_FLIP_STEP7, "conv2_fwd_x_read_flip_step7", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 22: at step 7 only, conv2's forward reads one input element (sample 5, pool1's output, the median positive interior one) with bit 34 - fault_k flipped (default 18: 2^-5 of its value) in a register: memory keeps the right value, which backward-data, backward-weights and every check read; the 9 x 32 outputs it reaches move by w * delta", \
      "measured PROBLEM at step 7, conv2 forward, 19.6 (the re-done first, last, largest and sampled outputs; 1 of 512 relations over): sample 5, channel 10, (10, 8) read as 0.204551369 for 0.208457619, 288 outputs moved, the most by 3.39e-4. Moving the element to each of the 16 samples (a temporary knob, not kept): 16 of 16 PROBLEM, 12 by a re-done output (19.6-84.6) and one by the identical-windows rule (36.5), but 3 only by a plane relation at 1.13-2.51 (column-alternating, position-weighted): when none of the 288 outputs is a plane's first, last, largest or drawn one, the plane relations see w * delta summed over at most 9 positions against 196 outputs' bounds. At bit 17 those three are SUSPECT only (worst case 0.57-0.67, sharper tier 3.2-4.4), at bit 16 (2^-7 of the value) SUSPECT (1.6-4.8 of the sharper tier): still seen, by the sharper tier of the alternating and position-weighted relations") \
    X(EVAL_CONV2_FWD_X_READ_FLIP_FIRST, "eval_conv2_fwd_x_read_flip_first", "op", "conv2|fc2", "evaluation", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 22: conv2_fwd_x_read_flip_step7 in the first evaluation's first batch only (no reference compares the first evaluation)", \
      "measured PROBLEM at the evaluation after epoch 1, conv2 evaluation, 20.4 (the re-done first, last, largest and sampled outputs; 2 of 512 relations over): sample 5, channel 3, (4, 9) read as 0.211968377 for 0.215874627, 288 outputs moved, the most by 3.29e-4; the evaluation's plane peeks and relations are the training step's") \
    X(CONV2_FWD_RURD_HALVES_STEP7, "conv2_fwd_rurd_halves_step7", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 22: at step 7 only, conv2's forward computed serially in fp32 by two threads whose MXCSR round in opposite directions: samples 0..n/2-1 upward, n/2..n-1 downward (every product and sum directed)", \
      "measured SUSPECT at step 7, conv2 forward: the halves' sign test (checks/checksums.c, judge_sign: D = S(samples < n/2) - S(samples >= n - n/2)) over 512 relations, z 22.6, x3.01 its limit (samples 0-7: 256 of 256 positive; 8-15: 0 of 256), every relation within 0.0443 of the worst case. Before it, BLIND: measured VERDICT ok: against the exact value, the fault's errors are 0.0255 rms of each output's own worst-case bound (the engine's RN 0.0029: 8.9x), 0.12 at most; a plane's summed error 0.0447 of the plane relation's worst case (the engine's 0.0037: 12x), every one of samples 0-7's 50,176 errors positive and every one of samples 8-15's negative. The sign test over conv2 forward's 512 relations at step 7 reads m 512, S 0, z 0.000 (LOCKSTEP_CK_SIGN_TRACE=1): each channel cluster holds 8 positive and 8 negative relations, exactly balanced; the relations' sharper tier reaches 0.326 at most. The same fault rounding upward in all 16 samples (measured with a temporary switch) is SUSPECT, z 22.6 (x3.01 the limit). What would see it: the magnitude of one-signed residuals, not their count: a per-block scale test (sum of squared residuals over their rounding variance), or signs counted per (channel, half-batch) sub-cluster; the scale test runs at replayed steps only") \
    X(CONV2_DX_RURD_HALVES_STEP7, "conv2_dx_rurd_halves_step7", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 22: at step 7 only, conv2's backward-data computed serially in fp32 by two threads whose MXCSR round in opposite directions: samples 0..n/2-1 upward, n/2..n-1 downward (thread1_round_up_conv2_bwd_step7 with the other thread rounding downward)", \
      "measured SUSPECT at step 7, conv2 backward-data: the halves' sign test over 256 relations, z 16.0, x2.13 its limit (samples 0-7: 128 of 128 positive; 8-15: 0 of 128), every relation within 0.020 of the worst case. Before it, BLIND: measured VERDICT ok: the fault's errors against the exact value are 0.0168 rms of each element's own bound (the engine's RN 0.0015: 11x), 0.085 at most; a plane's summed error 0.0202 of the plane relation's worst case (the engine's 3.5e-4: 58x); all 25,088 errors of samples 0-7 positive, all of 8-15 negative. conv2 backward-data's sign test at step 7: m 256, S 0, z 0.000; rounding upward in all 16 samples instead (a temporary switch): SUSPECT, z 16.0 (x2.13), as thread1_round_up_conv2_bwd_step7. The sign test's clusters are output (here input) channels, and each holds both threads' samples: a thread split by samples with opposite modes cancels inside every cluster. What would see it: a scale test of the relations' residuals at every step (each residual is ~|P| one-signed errors, ~sqrt(P) times an unbiased one), or the sign test per sample-half") \
    X(CONV_DB_RURD_ALTERNATE_ALL, "conv_db_rurd_alternate_all", "op", "conv1|conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 22: at every step, the conv bias gradients reduced serially in fp32 by two cores whose MXCSR round in opposite directions, the channels dealt round-robin: even channels upward, odd downward (conv_db_round_up_all with half the channels rounding the other way)", \
      "measured SUSPECT at step 1 (and every step after, 10 of 10), conv2 backward-weights: the channel contrast of the pooled conv-bias sign test (checks/checksums.c, judge_bias_pool: w_c s_c, w = +1 on even channels, -1 on odd), 44 of 44 positive (even channels 23 of 23 positive, odd 0 of 21), exact two-sided p = 1.1e-13 against the limit 1e-12, x1.04 (thin, as conv_db_round_up_all's: m <= 40 counted, or one dissent at m <= 46, would pass), every relation within 0.0101 of the worst case. Before it, BLIND, measured VERDICT ok at every step: each bias gradient is up to 0.0041-0.0197 of its own worst-case bound gamma_K sum|dy| away from exact (the engine's RN sum 3e-5-1e-3: 20-100x less; LS_FAULT_VERBOSE=1 prints both a step), within the sharper tier. The pooled conv-bias sign test reads m 44, S 2, p 0.88 at every step (22 channels up, 22 down by construction, against conv_db_round_up_all's 44 of 44, p 1.1e-13); the per-block ones z <= 0.28. Alternating channels defeat any count of signs; a sign-agnostic test would see it: the bias sums' |error| / (their RN rounding scale sqrt(K) u sum|dy|) is ~10-100 here against ~1 for a legal order, i.e. a per-step scale test on the bias relations (they are re-done in double: the residual is known exactly)") \
    X(CONV2_DW_HALF_PARTIAL_CARRIED_STEP7, "conv2_dw_half_partial_carried_step7", "op", "conv2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 22: a per-thread reduction buffer not cleared between steps: step 7's conv2 weight gradient has step 6's partial sum over samples n/2..n-1 (the second thread's share) added to it", \
      "measured PROBLEM at step 7, conv2 backward-weights, 9,769 (the re-done first, last, largest and sampled elements; 31 of 32 relations over): step 6's partial over samples 8-15, sum |partial| 3.49 against sum |dW| 7.40, the largest element 0.0118") \
    X(LOSS_GRAD_ROW_CLASSES_SWAPPED_STEP7, "loss_grad_row_classes_swapped_step7", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 22: at step 7 only, one sample's loss gradient has two non-label classes exchanged (an off-by-one class gather): of every sample's pairs, the closest pair more than 2^-10 apart relative to the larger; the row's sum and the batch's column sums but two are kept, the loss value is right", \
      "measured PROBLEM at step 7, fc2 loss, 918 (dz re-done from the logits): sample 14 (label 3), classes 4 and 5, 0.00568568986 <-> 0.00569472089 (9.03e-6 apart, 19,394 ulps); every dz element is re-done at every step, so the row's and the columns' sums being kept do not matter") \
    X(CONV2_DX_RURD_HALVES_STEP2, "conv2_dx_rurd_halves_step2", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 22: conv2_dx_rurd_halves_step7 at step 2, an attribution step (the reference replays conv2's backward-data on the engine's own dy: every element compared against the exact value)", \
      "measured SUSPECT at step 2, conv2 backward-data: the every-step halves' sign test over 256 relations, z 16.0, x2.13 its limit, every relation within 0.0164 of the worst case (the per-tensor tests vs the reference still read it as below). Before it, BLIND: measured VERDICT ok although step 2 is an attribution step: every pool1.dact element is compared against the exact value there, and the fault's errors are 0.016 rms of each element's own bound (the engine's RN 0.0015: 11x), 0.068 at most, every error of samples 0-7 positive and of 8-15 negative. The per-tensor tests read: worst case 0.068, sharper tier 0.124, bias score 0.207 (the tensor's additive and relative sign tests: half the elements up, half down), scale score 0.0307 (the mean square's limit is set by the sharper bound, not by what RN does: 10x RN's rms moves it to 3% of its limit); the every-step sign test z 0 as at step 7. What would see it: the per-tensor bias tests run per sample (or per block of samples: a thread's share), where every sign agrees") \
    X(FC1_FWD_RURD_HALVES_STEP7, "fc1_fwd_rurd_halves_step7", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BLIND, \
      "zoo attack 22: at step 7 only, fc1's forward computed serially in fp32 (1568 products, then + b) by two threads whose MXCSR round in opposite directions: samples 0..n/2-1 upward, n/2..n-1 downward", \
      "BLIND, measured VERDICT ok: fc1's outputs are up to 0.130 of their own worst-case bound from exact (the engine's RN at most 0.0010: 130x), rms 0.056, all 512 errors of samples 0-7 positive and all 512 of 8-15 negative; every output is re-done each step, but its sharper tier is ~0.3 of the worst case at K = 1569, and the per-sample forward relations reach 0.671 of theirs. fc1 forward's sign test (64 relations over the batch) reads z -3.75 (each relation sums 8 up and 8 down); the same fault rounding upward in all 16 samples (a temporary switch) is SUSPECT, z 8.00 (x1.06, a thin catch). What would see it: a sign test over the per-sample forward relations (left out on legal runs' shared blank-feature errors) or over the re-done elements clustered by sample") \
    X(CONV2_FWD_RURD_ROW_HALVES_ALL, "conv2_fwd_rurd_row_halves_all", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 22: at every step and evaluation, conv2's forward computed serially in fp32 by two threads tiling each plane spatially, whose MXCSR round in opposite directions: rows 0..OH/2-1 of every plane upward, rows OH/2..OH-1 downward", \
      "measured SUSPECT at step 1, conv2 forward (row-alternating): its sign test (the alternating blocks are sign-tested since zoo attack 22's interleaved rows) over 512 relations, z 21.7, x2.88 its limit (501 positive, 11 negative; since the conv forward counts' channel gate x1.02: all 32 channels up, p 4.7e-10 against 1e-9, at 18 stages, the worst the eighths ++----++ at step 8, z 8.93, x1.19): with OH = 14, rows 0-6 (upward) hold four even rows and three odd, rows 7-13 (downward) three even and four odd, so each half leaves about one row's one-signed errors in the (-1)^row sum, both of the same sign. Before it, a thin catch: measured SUSPECT at step 1 (an attribution step): conv2 forward's every-step sign test z 7.67 (x1.02 its limit; every relation within 0.0148 of the worst case) and conv2.act's per-tensor bias test vs the reference (x1.05); over 7.53 again at steps 3, 5, 7 (z 8.34, 13.5, 9.78), under it at 2, 4, 6, 8-10 and in the evaluations (z <= 6.9). The halves do not cancel: top and bottom rows of a plane carry different magnitudes (the digit sits lower, the background differs), so each plane's residual sum_top |e| - sum_bottom |e| keeps one sign across samples. A thin catch (x1.02 at its first step)") \
    X(CONV2_FWD_RURD_QUARTERS_STEP7, "conv2_fwd_rurd_quarters_step7", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "at step 7 only, conv2's forward computed serially in fp32 by four threads, a quarter of the samples each, whose MXCSR round upward, downward, upward, downward (conv2_fwd_rurd_halves_step7 on four cores: each half holds one core of each direction, so the halves' sign test cancels as the whole batch's count does)", \
      "measured SUSPECT at step 7, conv2 forward: the sign test of alternate quarters (checks/checksums.c, judge_sign: the batch in 4 blocks of 4 samples, even blocks against odd) over 512 relations, z 22.6, x3.01 its limit (even 256 of 256 positive, odd 0 of 256), every relation within 0.0443 of the worst case; the whole block's count, the halves' and the alternate eighths' read z 0.000 (LOCKSTEP_CK_SIGN_TRACE=1: 256 up and 256 down in each). Per element 0.0255 rms of the own worst-case bound (the engine's RN 0.0029), 0.12 at most (LS_FAULT_VERBOSE=1). Halves, alternate quarters and alternate eighths are the tests: a split over 2, 4 or 8 cores whose directions alternate core by core; one whose directions follow another pattern over more than two cores and also balance every half (up, down, down, up) is seen by none of them") \
    X(CONV2_FWD_RURD_QUARTERS_UDDU_STEP7, "conv2_fwd_rurd_quarters_uddu_step7", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "at step 7 only, conv2's forward computed serially in fp32 by four threads, a quarter of the samples each, whose MXCSR round upward, downward, downward, upward: every half balanced (one core of each direction), and the alternate quarters too (up + down against down + up)", \
      "measured SUSPECT at step 7, conv2 forward: the sign test of eighths ++----++ (checks/checksums.c, judge_sign: the product of the halves and the alternate quarters, eighths 0, 1, 6, 7 against 2 to 5) over 512 relations, z 22.6, x3.01 its limit (+ 256 of 256 positive, - 0 of 256), every relation within 0.0443 of the worst case. The whole block's count, the halves', the alternate quarters' and the alternate eighths' read z 0.000 (LOCKSTEP_CK_SIGN_TRACE=1): BLIND before the four products of those three were tested (a known limit of zoo attack 22's round)") \
    X(CONV2_FWD_RURD_ROWS_INTERLEAVED_ALL, "conv2_fwd_rurd_rows_interleaved_all", "op", "conv2", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_SUSPECT, \
      "zoo attack 22: conv2_fwd_rurd_row_halves_all with the rows dealt round-robin (an OpenMP schedule(static, 1) over rows): even rows of every plane rounded upward, odd rows downward, at every step and evaluation", \
      "measured SUSPECT at step 1 (and every step after), conv2 forward (row-alternating): the sign test now run over the alternating blocks too, 512 relations, z 22.6, x3.01 its limit (512 positive, 0 negative), every relation within 0.0529 of the worst case; since the conv forward counts' channel gate (checks/checksums.c, judge_sign: an exact sign test over the block's channels, p <= 1e-9) x1.02 (32 of 32 channels up, p 4.7e-10), at 18 of the run's stages. Before it, BLIND: measured VERDICT ok at every step and evaluation (28 forward calls, attribution steps included): per element 0.026 rms of the own worst-case bound (the engine's RN 0.0028: 9.2x), 0.116 at most; every even-row error positive, every odd-row one negative. Neighbouring rows carry nearly equal magnitudes, so the plain relations' residuals are 0.004-0.006 of their worst case (the engine's 0.0026) and their sign test reaches |z| 2.07 at most over the run (limit 7.53); the row-alternating relations get the whole one-signed sum (0.454 of their sharper tier at worst) but carry no sign test (signed weights: excluded); at the attribution steps conv2.act reads worst case 0.116, sharper tier 0.152, bias score 0.275, scale score 0.045. What would see it: the sign test extended to the row- and column-alternating relations (mean-zero under unbiased rounding as much as the plain ones), which leaves a checkerboard split to the position-weighted relations, which no sign test reads either") \
    X(ADAM_V_BF16_STATE, "adam_v_bf16_state", "op", "conv1|conv2|fc1|fc2", "update", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 23: every update keeps Adam's second moments in bf16: v' computed in fp32 and used so for the step, then stored rounded to bf16 (to nearest even: an optimizer state held in half the memory)", \
      "v' has a 2-3u bound (a derived rule, every element re-done every step); bf16 is 2^-9 relative: measured PROBLEM at step 1, fc1 update, ratio 21,511 (the every-step Adam re-check; 68,698 of 105,866 v changed, up to 0.0039 relative); at the shadow step 5 conv1.weight.adam_v is 15,600x its bound. The step itself used v' in fp32: p and m are right") \
    X(FC1_DB_PRE_RELU_MASK_ONCE, "fc1_db_pre_relu_mask_once", "op", "fc1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 23: at step 7 only, fc1's bias gradient summed from relu3's output gradient (fc2's dx) instead of its input gradient: a bias-gradient epilogue that reads the operand before the ReLU mask; dW and dx are right", \
      "relu3 zeroes 524 of step 7's 1,024 fc1 output gradients: db moves by up to 0.023 where its bound is gamma_16 sum|dy| (~1e-6 of it). Measured PROBLEM at step 7, fc1 backward-weights (bias), 35 of 64 relations over; the worst is a unit dead in the whole batch (every dy 0, db nonzero: over at any size; printed as ratio 5.93e+13 at first, the constant 1 / (1.01 dbl), now ratio inf: 'nonzero where every term is 0')") \
    X(FC2_DW_PRE_RELU_X_ONCE, "fc2_dw_pre_relu_x_once", "op", "fc2", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 23: at step 7 only, fc2's weight gradient computed with x = fc1's output (relu3's input: the pre-activation a fused dense + ReLU saves) instead of relu3's output; db and dx are right", \
      "524 of 1,024 x elements are <= 0 (relu3 zeroed them): dW moves by up to 0.048. Measured PROBLEM at step 7, fc2 backward-weights: the plain block 1.02e6, index-weighted 1.75e5, random-weighted 2.3e5, and the zero-element block 10 of 10 over (a nonzero dW where every term is 0: ratio inf, an exact check; 5.93e+13 at first, a constant)") \
    X(CONVNET_POOL2_EDGE_DY_FROM_ACT, "convnet_pool2_edge_dy_from_act", "op", "relu2|pool2|conv2", "backward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 23: in mnist-convnet (conv2 11 x 11, pool2 floor to 5 x 5), at every step conv2's output gradient keeps conv2's activation in the floor-pooled edge (row 10 and column 10 of every plane) instead of 0: an in-place ReLU + max-pool backward over the activation buffer that writes the pooled windows only; conv2's dW and db read it", \
      "a floor-pooled edge gets no gradient (the exact rule of the fused ReLU + max-pool backward, checks every step): measured PROBLEM at step 1, relu2 backward-data, 21,504 of the step's elements not the exact re-computation (every edge element, up to 0.78 off), and conv2.weight.grad against the reference at step 1 (ratio inf)") \
    X(CONVNET_FC1_DW_RECOMPUTE_MASK_ONCE, "convnet_fc1_dw_recompute_mask_once", "op", "fc1", "backward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 23: in mnist-convnet, at step 7 only, fc1's weight gradient computed from its input recomputed (activation checkpointing) from the dropout's input with the mask of step 8 (the generator advanced since the forward); the forward, db and dx are right", \
      "8,345 of 25,600 recomputed inputs differ from the forward's (a kept element dropped or a dropped one kept): dW moves by up to 0.22. Measured PROBLEM at step 7, fc1 backward-weights: the zero-element block 10 of 10 over (a nonzero dW where every term of the reported operands is 0: ratio inf, an exact check; 5.93e+13 at first, a constant)") \
    X(LOSS_MAX_OVER_BATCH, "loss_max_over_batch", "op", "fc2|loss", "loss", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_BELOW, \
      "zoo attack 23: at every step the softmax cross-entropy subtracts the batch's largest logit from every row instead of the row's own (a reduction over the wrong axis; the shift cancels in exact arithmetic), in ops_softmax_xent_row's order otherwise", \
      "below its bound on this run: the shift cancels in exact arithmetic and costs only the rounding of z - M for z - m, and these logits are small: the batch's largest is at most 0.44 above a row's own (step 10; 0.017 at step 1), so every exp argument is below 1.5 in magnitude either way. Measured VERDICT ok: fc2.dact against the reference (steps 1, 2, 5, 10) 2 ulps at most, ratio 0.113 (the clean run's 2 ulps, 0.114), the loss 0 ulps, 0.031 (clean: 1 ulp, 0.062). A latent fault: it bites where a row's logits lie far below the batch's largest (tens: a confident model, or exp underflowing a whole row, s = 0)") \
    X(FC2_DX_POST_UPDATE_W_ONCE, "fc2_dx_post_update_w_once", "op", "fc2|relu3", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 23: at step 7 only, fc2's backward-data reads the weights this step's Adam update will give (an optimizer step fused into backward-weights, run before backward-data); dW, db and the update are right", \
      "one Adam step moves fc2's weights by up to 9.9e-4 (lr): dx moves by up to 5.6e-5 where its bound is gamma_10 sum|w dy|. Measured PROBLEM at step 7, fc2 backward-data, ratio 21,308: the every-step checks run after backward and before the update (CK_STAGE_STEP), against the weights the forward used") \
    X(CONV2_DX_PARTIAL_LAST_SAMPLE_STALE, "conv2_dx_partial_last_sample_stale", "op", "conv2|pool1", "backward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 23: in a partial batch only (steps 5 and 10: 8 of 16 images), conv2's backward-data loop stops one sample short: the last sample's input gradient (pool1.dact) is what the last full batch left in the buffer at that row; dW and db are right", \
      "the stale row is another sample's gradient, of the order of the value itself (up to 1.4e-3 off, the largest |dx| 1.3e-3). Measured PROBLEM at step 5 (the first partial batch), conv2 backward-data, every-step checksum ratio 55,310; at the shadow step 10 pool1.dact against the reference 65,152x") \
    X(FC1_FWD_SPLITK_TF32_STEP9, "fc1_fwd_splitk_tf32_step9", "op", "fc1", "forward", "smallcnn --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 23: at step 9 only (a full batch of epoch 2 that nothing but the every-step checks samples), fc1's forward as a split-K GEMM whose two partial sums (inputs 0..783, 784..1567) pass through a TF32 workspace (rounded to nearest even, 10-bit mantissa) before the final fp32 add, the bias added last (a reduced-precision reduction)", \
      "each partial P_h errs by up to 2^-11 |P_h| against gamma_1569 (sum|w x| + |b|) ~ 2^-13.4 sum|w x|: over the worst case where a half's terms cancel little (|P_h| above ~1/5 of sum|w x|), more so as training grows fc1's pre-activations. Measured PROBLEM at step 9, fc1 forward (every output of each sample), ratio 1.60 (the worst output 1.62 of its gamma_K bound, the mean 0.26; LS_FAULT_VERBOSE=1); the same at step 7 (measured): 1.22, thin, hence step 9. The same fault at every step (measured, not kept as a row): SUSPECT at step 1 (fc1.act's scale test x3.52, sharp ratio 2.09, 0.50 of the worst case) and PROBLEM from step 6 (1.08), the worst output's error over its gamma_K bound (LS_FAULT_VERBOSE=1's estimate) 0.29, 0.50, 0.60, 0.93, 0.72, 1.09, 1.24, 1.51, 1.62 over steps 1-9") \
    X(CONVNET_DROPOUT_CHANNELWISE, "convnet_dropout_channelwise", "op", "drop1", "forward", "mnist-convnet --limit-train 72 --limit-test 64 --epochs 2 --steps 10 --eval", \
      CPU_FAULT_DETECT, \
      "zoo attack 23: in mnist-convnet, at every step drop1 (after the flatten of pool2's 64 x 5 x 5) keeps or drops whole channels, one draw per sample and channel (Dropout2d's granularity) where element-wise dropout was asked; forward and backward alike", \
      "dropout is exact (the mask re-drawn from its key per element, every step): measured PROBLEM at step 1, drop1 forward, 8,659 elements not the exact re-computation")

#define CPU_FAULT_ENUM_(id, ...) CPU_FAULT_##id,
enum { CPU_FAULT_NONE = 0, CPU_FAULT_LIST(CPU_FAULT_ENUM_) CPU_FAULT_COUNT };
#undef CPU_FAULT_ENUM_

/* Hooks: the statement in the fault build, nothing in the user build. */
#if LS_FAULTS
#define CPU_FAULT_ONLY(...) __VA_ARGS__
#define CPU_FAULT_PICK(user, test) test
/* the fault of the engine whose call is running (engine_cpu.c's ctx_of sets
 * it; every engine runs in its own process in an audit, and the calls of
 * one process are serial) */
extern int cpu_fault_cur;
/* the step of the engine's call that is running (zoo attack 13: the pool faults keyed on a step) */
extern unsigned long long cpu_fault_step;
#else
#define CPU_FAULT_ONLY(...)
#define CPU_FAULT_PICK(user, test) user
#endif

#endif
