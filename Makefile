# Thin wrapper around CMake: `make demo`, `make test`, `make bench`.
# Installs missing Debian packages first (with sudo when not root).
BUILD ?= build
JOBS ?= $(shell nproc)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

DEBIAN_PACKAGES := cmake ninja-build g++ pkg-config make \
  libsystemc-dev libyaml-cpp-dev nlohmann-json3-dev libelf-dev libboost-dev libboost-program-options-dev \
  libgtest-dev libgmock-dev libbenchmark-dev \
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc gdb-multiarch \
  python3-torch python3-torchvision python3-onnx python3-numpy \
  libonnx-dev libprotobuf-dev protobuf-compiler \
  python3-yaml python3-matplotlib slurm-wlm munge
# python3-yaml, python3-matplotlib: `npuvp sweep` (tools/npuvp_sweep) reads studies and draws
# plots; slurm-wlm, munge: its Slurm engine's test starts a single-node Slurm (sweep_test).

# Only `make fuzz` needs these: libFuzzer comes with clang (docs/testing.md).
FUZZ_PACKAGES := clang libfuzzer-14-dev
# The study's interpreter: Debian's, which sees python3-yaml and python3-matplotlib (a
# python3 from pyenv or a virtualenv earlier on PATH would not).
PYTHON ?= /usr/bin/python3

# The checking builds (docs/testing.md), each in its own folder: host code with ASan and
# UBSan (gcc; the firmware and the networks are taken from $(BUILD)), and the libFuzzer
# targets of tests/fuzz (clang). FUZZ_SECONDS: how long `make fuzz` runs each target;
# FUZZ_TARGETS: which (default: all); FUZZ_SEED: libFuzzer's seed (default 1, so CI
# repeats what a longer run with that seed checked first; 0 = a new seed each run).
SANITIZE_BUILD ?= build-sanitize
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
FUZZ_SEED ?= 1
# FUZZ_RUNS: also stop each target after this many inputs (empty: time only).
FUZZ_RUNS ?=

.PHONY: all deps fuzz-deps build demo test test-sanitize fuzz bench reproduce-nsi clean

all: build

# Installs the Debian packages of the list $(1) that are missing.
define install_missing
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:" $$missing; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call install_missing,$(DEBIAN_PACKAGES))

fuzz-deps:
	$(call install_missing,$(FUZZ_PACKAGES))

build: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS)

# The default scenario: a host program offloads GEMMs through the driver and the
# task scheduler to the AI Cores, checks every element, and the run prints its
# statistics.
demo: build
	$(BUILD)/platform/npuvp run scenarios/gemm-offload.yaml

test: build
	ctest --test-dir $(BUILD) -j $(JOBS) --output-on-failure

# The whole suite on a build with -fsanitize=address,undefined,float-cast-overflow: any
# finding ends its test with a report. tests/sanitizer-excluded.txt lists the tests left
# out, each with its reason.
test-sanitize: build
	cmake -S . -B $(SANITIZE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPUVP_SANITIZE=ON \
	  -DNPUVP_REUSE_BUILD=$(abspath $(BUILD)) -DNPUVP_BUILD_BENCH=OFF
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	excluded=$$(grep -v -e '^#' -e '^$$' tests/sanitizer-excluded.txt | cut -d' ' -f1 | paste -sd'|'); \
	UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir $(SANITIZE_BUILD) -j $(JOBS) --output-on-failure \
	  $${excluded:+--exclude-regex "$$excluded"}

# Each fuzz target for FUZZ_SECONDS; fails when one finds a crash (inputs in
# $(FUZZ_BUILD)/fuzz-crashes/).
fuzz: deps fuzz-deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DNPUVP_BUILD_FUZZERS=ON -DNPUVP_BUILD_FIRMWARE=OFF -DNPUVP_BUILD_TESTS=OFF -DNPUVP_BUILD_NETWORKS=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzzers
	FUZZ_SEED=$(FUZZ_SEED) FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run_fuzzers.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

bench: build
	$(BUILD)/tests/bench/npuvp_bench
	$(BUILD)/tests/bench/npuvp_fabric_bench
	$(BUILD)/tests/bench/npuvp_gemm_bench
	$(BUILD)/tests/bench/npuvp_offload_bench
	$(BUILD)/tests/bench/npuvp_mesh_bench
	$(BUILD)/tests/bench/npuvp_cluster_bench
	$(BUILD)/tests/bench/npuvp_coherence_bench
	$(BUILD)/tests/bench/npuvp_coherence_explore_bench
	$(BUILD)/tests/bench/npuvp_network_bench

# Reproduction study (issue 7): every cluster workload and the synthetic
# synchronisation-interval and footprint sweeps under MESI, NSI and MSI with the thesis's
# Table 5.2 parameters, our numbers beside the thesis's (docs/reproduce-nsi.md), run by
# `npuvp sweep` from studies/coherence-nsi-mesi-msi.yaml (an interrupted run resumes); the
# report and the plots go to $(BUILD)/reproduce-nsi/. Pass e.g.
# STUDY_OPTIONS="--part interval" to run one part.
reproduce-nsi: build
	$(PYTHON) tools/reproduce_nsi.py --npuvp $(BUILD)/platform/npuvp --out $(BUILD)/reproduce-nsi $(STUDY_OPTIONS)

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) $(FUZZ_BUILD)
