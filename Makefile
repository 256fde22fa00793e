# lockstep — build, test, run.
#
#   make            build build/lockstep (and the CUDA engine where nvcc is found)
#   make run        the main job: the audit on the default model and data
#   make test       install what is missing, build, run every test
#   make bench      the speed and memory figures the issues ask for
#   make mutants    the checker tested by mutation: the zoo of cpu faults, the score
#   make CUDA=0     build without the CUDA engine
#
# Numerics: -ffp-contract=off (no FMA contraction in our code), no
# fast math of any kind, no tuning for the build host's CPU; nvcc --fmad=false.

CC      ?= gcc
OPT     ?= -O2
CFLAGS  ?=
BUILD   ?= build
CUDA_HOME ?= $(shell d=$$(dirname $$(dirname $$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc))); echo $$d)
NVCC    ?= $(CUDA_HOME)/bin/nvcc

NUMFLAGS := -ffp-contract=off -fno-fast-math
BASEFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -fopenmp -MMD -MP -Isrc -Ireference $(NUMFLAGS)
LDLIBS  := -ldnnl -lmpfr -lgmp -ljansson -lz -lm -lpthread -ldl -fopenmp -rdynamic

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

# src/cuda/*_policy.c is the CUDA engine's host logic with no CUDA header:
# built (and unit-tested) in every build, CUDA or not.
CUDA_HOST_C := $(wildcard src/cuda/*_policy.c)
SRC_C   := $(filter-out src/main.c,$(wildcard src/*.c)) $(wildcard reference/*.c) $(CUDA_HOST_C)
CUDA_C  := $(filter-out $(CUDA_HOST_C),$(wildcard src/cuda/*.c))
CUDA_CU := $(wildcard src/cuda/*.cu)
TEST_C  := $(wildcard tests/test_*.c)
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

ALLCFLAGS := $(BASEFLAGS) $(OPT) $(CFLAGS)
OBJ  := $(SRC_C:%.c=$(BUILD)/%.o)
BINS := $(BUILD)/lockstep
TESTS := $(TEST_C:tests/%.c=$(BUILD)/tests/%)
BENCHES := $(BENCH_C:tests/%.c=$(BUILD)/tests/%)

.PHONY: all deps run test bench clean announce tests benches mutants
all: announce $(BINS) $(CUDA_SO)
tests: $(TESTS)
benches: $(BENCHES)

announce:
	@echo "$(CUDA_MSG)"

# Install what is missing (apt, as root); a no-op when everything is there.
deps:
	@bash scripts/install-deps.sh

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

$(BUILD)/%.cu.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c $< -o $@

# compare.c runs in the audit's parent process, which forks the engines:
# it must not start an OpenMP thread pool there (a forked child inherits
# libgomp's idea of a pool whose threads it does not have, and its first
# parallel region hangs), so it is built without OpenMP.  Its loops are
# reductions in a fixed order; vectorizing them does not reorder sums.
$(BUILD)/src/compare.o: ALLCFLAGS := $(filter-out -fopenmp,$(ALLCFLAGS)) -Wno-unknown-pragmas -fvect-cost-model=dynamic

$(OBJ_CUDA): ALLCFLAGS += -fPIC

# The cpu engine's Adam loop vectorizes only when sqrtf needs no errno
# branch.  -fno-math-errno changes no value: sqrtf is correctly rounded
# either way, and nothing here reads errno after a math call.
$(BUILD)/src/engine_cpu.o: ALLCFLAGS += -fno-math-errno

# the compiler flags that change numbers, recorded in run.json and goldens
$(BUILD)/src/golden_cli.o $(BUILD)/src/lockstep.o $(BUILD)/src/report.o: ALLCFLAGS += -DLS_BUILD_CFLAGS='"$(OPT) $(NUMFLAGS) $(CFLAGS)"'


$(BUILD)/lockstep: $(BUILD)/src/main.o $(OBJ)
	$(CC) -o $@ $^ $(LDLIBS)

$(CUDA_SO): $(OBJ_CUDA)
	$(CC) -shared -o $@ $^ $(CUDA_LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(OBJ)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(filter %.o,$^) $(LDLIBS) -lcmocka

# the CUDA test calls the kernels and the runtime directly
ifeq ($(HAVE_CUDA),1)
$(BUILD)/tests/test_cuda: $(CUDA_SO)
$(BUILD)/tests/test_cuda: LDLIBS += $(CUDA_SO) $(CUDA_LIBS)
endif

# The mutation zoo (src/cpu_faults.h): the cpu engine compiled a second
# time with its faults switched in, linked into build/lockstep-faults and
# test_mutants only.  build/lockstep never contains a fault.
FAULT_SRC  := src/engine_cpu.c src/cpu_pool.c
OBJ_FAULTS := $(filter-out $(FAULT_SRC:%.c=$(BUILD)/%.o),$(OBJ)) $(FAULT_SRC:%.c=$(BUILD)/faults/%.o)

$(BUILD)/faults/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -DLS_FAULTS=1 -c $< -o $@

$(BUILD)/faults/src/engine_cpu.o: ALLCFLAGS += -fno-math-errno

$(BUILD)/lockstep-faults: $(BUILD)/src/main.o $(OBJ_FAULTS)
	$(CC) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/test_mutants: $(BUILD)/tests/test_mutants.o $(OBJ_FAULTS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(filter %.o,$^) $(LDLIBS) -lcmocka

# every fault of the zoo audited, every legal variant too: the mutation score
mutants:
	@$(MAKE) --no-print-directory all $(BUILD)/lockstep-faults
	bash scripts/mutants.sh

run: deps
	@$(MAKE) --no-print-directory all
	bash scripts/run-main.sh

test: deps
	@$(MAKE) --no-print-directory all $(TESTS)
	bash scripts/run-tests.sh $(TESTS)

bench: deps
	@$(MAKE) --no-print-directory all $(BENCHES)
	bash scripts/bench.sh

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
