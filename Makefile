# lockstep — build, test, run.
#
#   make            build build/lockstep (and the CUDA engine where nvcc is found)
#   make run        the main job: the audit on the default model and data
#   make test       install what is missing, check the layers, build, run every test
#   make bench      the speed and memory figures the issues ask for
#   make mutants    the checker tested by mutation: the zoo of cpu faults, the score
#   make CUDA=0     build without the CUDA engine
#   make test-sanitize  the suite under ASan+UBSan (build-asan/; make test runs it too)
#   make fuzz       libFuzzer harnesses tests/fuzz/fuzz_*.c (clang), build/fuzz/
#   make fuzz-smoke each harness for FUZZ_SECONDS (60) from its corpus
#
# Numerics: -ffp-contract=off (no FMA contraction in our code), no
# fast math of any kind, no tuning for the build host's CPU; nvcc --fmad=false.

CC      ?= gcc
OPT     ?= -O2
CFLAGS  ?=
BUILD   ?= build
# compiled into every object and linked into every program (the sanitizer
# and fuzz builds set it; it is not recorded as a numerics flag)
SANFLAGS ?=
CUDA_HOME ?= $(shell d=$$(dirname $$(dirname $$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc))); echo $$d)
NVCC    ?= $(CUDA_HOME)/bin/nvcc

NUMFLAGS := -ffp-contract=off -fno-fast-math
BASEFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -fopenmp -MMD -MP -Isrc -Ireference $(NUMFLAGS)
LDLIBS  := -ldnnl -lmpfr -lgmp -ljansson -lz -ldeflate -lm -lpthread -ldl -fopenmp -rdynamic $(SANFLAGS)

# CUDA is built when nvcc and cuDNN are found, unless CUDA=0.
ifeq ($(CUDA),0)
  HAVE_CUDA := 0
  CUDA_WHY := disabled with CUDA=0
else
  ifneq ($(wildcard $(NVCC)),)
    ifneq ($(wildcard $(CUDA_HOME)/include/cudnn.h),)
      HAVE_CUDA := 1
    else
      HAVE_CUDA := 0
      CUDA_WHY := cudnn.h not found under $(CUDA_HOME)/include
    endif
  else
    HAVE_CUDA := 0
    CUDA_WHY := nvcc not found
  endif
endif

# src/engines/cuda/*_policy.c is the CUDA engine's host logic with no CUDA header:
# built (and unit-tested) in every build, CUDA or not.
CUDA_HOST_C := $(wildcard src/engines/cuda/*_policy.c)
SRC_C   := $(filter-out src/commands/main.c,$(wildcard src/*/*.c src/engines/cpu/*.c)) $(wildcard reference/*.c) $(CUDA_HOST_C)
CUDA_C  := $(filter-out $(CUDA_HOST_C),$(wildcard src/engines/cuda/*.c))
CUDA_CU := $(wildcard src/engines/cuda/*.cu)
TEST_C  := $(wildcard tests/test_*.c)
# fuzz targets: tests/fuzz/fuzz_NAME.c and tests/fuzz/corpus/NAME/ (fuzz.h)
FUZZ_C  := $(wildcard tests/fuzz/fuzz_*.c)
BENCH_C := $(wildcard tests/bench_*.c)

ifeq ($(HAVE_CUDA),1)
  BASEFLAGS += -DLS_HAVE_CUDA=1 -I$(CUDA_HOME)/include
  # The CUDA engine is a shared object, build/liblockstep_cuda.so, loaded
  # with dlopen only when a cuda engine is asked for: the cuDNN/cuBLAS
  # libraries cost ~150 MiB of resident memory just by being loaded, which
  # a cpu-only run must not pay.  The executables export their symbols
  # (-rdynamic) for the engine to use.  cudart loads the driver itself at
  # run time; never link -lcuda (a stub on the library path would make the
  # binary fail to start without a driver).
  CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudnn -lcublas -lcudart -lstdc++
  NVFLAGS := -O2 --fmad=false -std=c++17 -Isrc -Ireference \
             -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90 -Xcompiler -fPIC,-ffp-contract=off
  OBJ_CUDA := $(CUDA_C:%.c=$(BUILD)/%.o) $(CUDA_CU:%.cu=$(BUILD)/%.cu.o)
  CUDA_SO := $(BUILD)/liblockstep_cuda.so
  CUDA_MSG := ✓ cuda ($(NVCC))
else
  BASEFLAGS += -DLS_HAVE_CUDA=0
  OBJ_CUDA :=
  CUDA_SO :=
  CUDA_MSG := ✗ cuda: $(CUDA_WHY)
endif

ALLCFLAGS := $(BASEFLAGS) $(OPT) $(CFLAGS) $(SANFLAGS)
# the slowest compiles first, so that make -j does not end on one of them
# alone (engines/checksums.c: ~19 s at -O3; every other object under 3 s)
SLOW_OBJ := $(BUILD)/src/engines/checksums.o
OBJ  := $(SLOW_OBJ) $(filter-out $(SLOW_OBJ),$(SRC_C:%.c=$(BUILD)/%.o))
BINS := $(BUILD)/lockstep
TESTS := $(TEST_C:tests/%.c=$(BUILD)/tests/%)
# the order make test starts them in (scripts/run-tests.sh runs two at
# once): the slowest first, by their times in a quiet normal pass on a
# 2-core machine (test_mutants ~160 s, test_sweep ~100 s, ... ~15 s), so
# the last to start are short and the two cores end together
SLOW_TESTS := test_mutants test_sweep test_cli test_recording test_train test_faults test_report_html \
              test_lockstep test_recording_check test_golden_cli test_safetensors test_seeds
slow_first = $(foreach t,$(SLOW_TESTS),$(filter $(1)/tests/$(t),$(2))) $(filter-out $(SLOW_TESTS:%=$(1)/tests/%),$(2))
# every committed fuzz corpus replayed through its harness (gcc; CMocka)
REPLAYS := $(FUZZ_C:tests/fuzz/%.c=$(BUILD)/tests/replay_%)
BENCHES := $(BENCH_C:tests/%.c=$(BUILD)/tests/%)

.PHONY: all deps deps-test run test bench clean announce tests benches mutants test-sanitize fuzz fuzz-bins fuzz-smoke
all: announce $(BINS) $(CUDA_SO)
# the zoo's cpu engine (9 s; 26 s under ASan) before the test programs
tests: $(BUILD)/faults/src/engines/cpu/engine_cpu.o $(TESTS) $(REPLAYS)
benches: $(BENCHES)

announce:
	@echo "$(CUDA_MSG)"

# Install what is missing (apt, as root); a no-op when everything is there.
deps:
	@bash scripts/install-deps.sh
deps-test:
	@bash scripts/install-deps.sh test

# Objects depend on the flags they were built with (CUDA on or off, OPT,
# CFLAGS): a stamp named by a hash of the flags, so switching CUDA=0 and back
# rebuilds instead of linking objects that disagree.
FLAGS_STAMP := $(BUILD)/.flags-$(shell printf '%s' '$(ALLCFLAGS) $(NVFLAGS)' | cksum | cut -d' ' -f1)
$(FLAGS_STAMP):
	@mkdir -p $(BUILD)
	@rm -f $(BUILD)/.flags-*
	@touch $@

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -c $< -o $@

# -MMD -MP as the C objects' (-MF: nvcc names no .d beside -o itself): the kernels include the headers whose
# per-element bodies the host loops share (base/checksum_peek.h, adam_bound.h, ...); without the .d an edit to
# one rebuilt the host side only, and the device code went on computing the old text
$(BUILD)/%.cu.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -MMD -MP -MT $@ -MF $(@:.o=.d) -c $< -o $@
# an object built before that has no .d: its headers are unknown, so it is rebuilt once
$(foreach o,$(CUDA_CU:%.cu=$(BUILD)/%.cu.o),$(if $(wildcard $(o:.o=.d)),,$(eval $(o): FORCE_NO_DEPS)))
.PHONY: FORCE_NO_DEPS

# src/checks/compare.c runs in the audit's parent process, which forks the engines:
# it must not start an OpenMP thread pool there (a forked child inherits
# libgomp's idea of a pool whose threads it does not have, and its first
# parallel region hangs), so it is built without OpenMP.  Its loops are
# reductions in a fixed order; vectorizing them does not reorder sums.
VECT_COST ?= -fvect-cost-model=dynamic
$(BUILD)/src/checks/compare.o: ALLCFLAGS := $(filter-out -fopenmp,$(ALLCFLAGS)) -Wno-unknown-pragmas $(VECT_COST) -O3
# The every-step checksums (engines/checksums.c) are element-wise compares and
# explicit lane sums: -O3 vectorizes them (4-8x); without fast-math no sum is
# reassociated, so no value changes.
#
# Not in the sanitizer build (SANFLAGS set): there -O3 with UBSan took 66 s
# to compile this one file on a 2-core AMD EPYC (26 s at -O2, the flags of
# every other object of that build), while the ASan test programs that run
# the checks took the same time either way (test_checksums, test_lockstep,
# test_ck_adversarial, alternated twice: 229 s at -O3, 234 s at -O2, noise).
# The sanitizer build looks for memory and UB errors, not for speed.
ifeq ($(SANFLAGS),)
$(BUILD)/src/engines/checksums.o: ALLCFLAGS += -O3
endif

$(OBJ_CUDA): ALLCFLAGS += -fPIC

# The cpu engine's Adam loop vectorizes only when sqrtf needs no errno
# branch.  -fno-math-errno changes no value: sqrtf is correctly rounded
# either way, and nothing here reads errno after a math call.
$(BUILD)/src/engines/cpu/engine_cpu.o: ALLCFLAGS += -fno-math-errno

# the compiler flags that change numbers, recorded in run.json and goldens
$(BUILD)/src/commands/golden_cli.o $(BUILD)/src/report/run_json.o $(BUILD)/src/report/report.o: ALLCFLAGS += -DLS_BUILD_CFLAGS='"$(OPT) $(NUMFLAGS) $(CFLAGS)"'


$(BUILD)/lockstep: $(BUILD)/src/commands/main.o $(OBJ)
	$(CC) -o $@ $^ $(LDLIBS)

$(CUDA_SO): $(OBJ_CUDA)
	$(CC) -shared -o $@ $^ $(CUDA_LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(OBJ)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(filter %.o,$^) $(LDLIBS) -lcmocka

$(BUILD)/tests/replay_fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay_main.o $(OBJ)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(filter %.o,$^) $(LDLIBS) -lcmocka
$(BUILD)/tests/fuzz/replay_main.o: ALLCFLAGS += -DLS_SRCDIR='"$(CURDIR)"'

# the CUDA test calls the kernels and the runtime directly
ifeq ($(HAVE_CUDA),1)
$(BUILD)/tests/test_cuda: $(CUDA_SO)
$(BUILD)/tests/test_cuda: LDLIBS += $(CUDA_SO) $(CUDA_LIBS)
endif

# The mutation zoo (src/engines/cpu/cpu_faults.h): the cpu engine compiled a second
# time with its faults switched in, linked into build/lockstep-faults and
# test_mutants only.  build/lockstep never contains a fault.
FAULT_SRC  := src/engines/cpu/engine_cpu.c src/engines/cpu/cpu_pool.c
OBJ_FAULTS := $(filter-out $(FAULT_SRC:%.c=$(BUILD)/%.o),$(OBJ)) $(FAULT_SRC:%.c=$(BUILD)/faults/%.o)

$(BUILD)/faults/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -DLS_FAULTS=1 -c $< -o $@

$(BUILD)/faults/src/engines/cpu/engine_cpu.o: ALLCFLAGS += -fno-math-errno

$(BUILD)/lockstep-faults: $(BUILD)/src/commands/main.o $(OBJ_FAULTS)
	$(CC) -o $@ $^ $(LDLIBS)

# test_recording records a fault (act_corrupt_once) with build/lockstep-faults;
# test_faults audits one (params_save_readback_stale: --save refused)
$(BUILD)/tests/test_recording: $(BUILD)/lockstep-faults
$(BUILD)/tests/test_faults: $(BUILD)/lockstep-faults

$(BUILD)/tests/test_mutants: $(BUILD)/tests/test_mutants.o $(OBJ_FAULTS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(filter %.o,$^) $(LDLIBS) -lcmocka

# bench_ck_dump with the zoo's faults (scripts/ck-bitid.sh --faults: the
# every-step vectors of each faulted engine, old build against new)
$(BUILD)/tests/bench_ck_dump_faults: $(BUILD)/tests/bench_ck_dump.o $(OBJ_FAULTS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(filter %.o,$^) $(LDLIBS)

# every fault of the zoo audited, every legal variant too: the mutation score
mutants:
	@$(MAKE) --no-print-directory all $(BUILD)/lockstep-faults
	bash scripts/mutants.sh

run: deps
	@$(MAKE) --no-print-directory all
	bash scripts/run-main.sh

# the speed, memory and accuracy figures (scripts/bench.sh; an idle machine)
bench: deps
	@$(MAKE) --no-print-directory all $(BENCHES)
	bash scripts/bench.sh

# make test's builds use every core unless make was given -j itself (the
# ASan build, 92 compilations, ran on one core of two before)
NPROC := $(shell nproc 2>/dev/null || echo 1)
PAR = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
test: deps-test
	python3 scripts/check-layers.py
	@$(MAKE) $(PAR) --no-print-directory all tests
	python3 scripts/check-layers.py --objects $(BUILD)
	bash scripts/run-tests.sh $(call slow_first,$(BUILD),$(TESTS)) $(REPLAYS)
	@$(MAKE) --no-print-directory test-sanitize

# The suite again, built with AddressSanitizer and UndefinedBehaviorSanitizer
# (gcc, CUDA=0: the CUDA engine is not instrumented).  Any report fails the
# test program that triggered it: UBSan aborts on the first error, ASan on
# any memory error.  Leak checking is off: libgomp and oneDNN keep their
# thread pools and JIT kernels until exit by design, and the engine
# children end with _exit(), so LeakSanitizer would report only those.
# a sibling of build/, not inside it: tests find the repository (scripts/,
# golden/) two levels above their program, build/tests/test_x
ASAN_BUILD ?= build-asan
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# OMP_WAIT_POLICY=passive: the audit tests run several OpenMP engine
# processes in turn; spinning idle workers on a loaded 2-core machine made
# one run of test_lockstep take 550 s instead of ~50 s under ASan (the wait
# policy changes no value).
ASAN_ENV := ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 OMP_WAIT_POLICY=passive
test-sanitize:
	@$(MAKE) $(PAR) --no-print-directory BUILD=$(ASAN_BUILD) CUDA=0 SANFLAGS='$(SANITIZE)' all tests
	$(ASAN_ENV) bash scripts/run-tests.sh $(call slow_first,$(ASAN_BUILD),$(TEST_C:tests/%.c=$(ASAN_BUILD)/tests/%)) \
	    $(FUZZ_C:tests/fuzz/%.c=$(ASAN_BUILD)/tests/replay_%)

# libFuzzer: every src/ object built by clang with the fuzzer's coverage
# hooks and ASan+UBSan, then one binary per harness.  make fuzz-smoke runs
# each from a scratch copy of its corpus for FUZZ_SECONDS and fails on any
# crash; the crash input is left as build/fuzz/crash-* (commit it under
# tests/fuzz/corpus/NAME/ once fixed: make test replays it from then on).
FUZZ_BUILD ?= build/fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_BINS := $(FUZZ_C:tests/fuzz/%.c=$(FUZZ_BUILD)/%)
fuzz:
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) CUDA=0 SANFLAGS='$(FUZZ_SAN)' VECT_COST= \
	    CFLAGS='-Wno-unknown-pragmas -Wno-unknown-warning-option' fuzz-bins
fuzz-bins: $(FUZZ_BINS)
$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(OBJ)
	$(CC) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)
fuzz-smoke: fuzz
	@for b in $(FUZZ_BINS); do n=$${b##*/fuzz_}; w=$(FUZZ_BUILD)/work/$$n; \
	    rm -rf $$w; mkdir -p $$w; cp tests/fuzz/corpus/$$n/* $$w/; \
	    echo "== fuzz $$n: $(FUZZ_SECONDS) s"; rc=0; \
	    $(ASAN_ENV) $$b -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
	        -artifact_prefix=$(FUZZ_BUILD)/ -print_final_stats=1 $$w > $$w.log 2>&1 || rc=$$?; \
	    grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)' $$w.log; \
	    if [ $$rc -ne 0 ]; then tail -40 $$w.log; echo "fuzz $$n: FAILED (exit $$rc; see $(FUZZ_BUILD)/crash-*)"; exit 1; fi; \
	done

# header dependencies (-MMD): a changed header rebuilds what includes it
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
