# Thin wrapper around CMake: `make demo`, `make test`, `make bench`.
# Installs missing Debian packages first (with sudo when not root).
BUILD ?= build
JOBS ?= $(shell nproc)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

DEBIAN_PACKAGES := cmake ninja-build g++ pkg-config make \
  libsystemc-dev libyaml-cpp-dev nlohmann-json3-dev libelf-dev libboost-dev \
  libgtest-dev libgmock-dev libbenchmark-dev \
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc gdb-multiarch \
  python3-torch python3-torchvision python3-onnx python3-numpy \
  libonnx-dev libprotobuf-dev protobuf-compiler \
  python3-yaml python3-matplotlib slurm-wlm munge
# python3-yaml, python3-matplotlib: `npuvp sweep` (tools/npuvp_sweep) reads studies and draws
# plots; slurm-wlm, munge: its Slurm engine's test starts a single-node Slurm (sweep_test).

# The study's interpreter: Debian's, which sees python3-yaml and python3-matplotlib (a
# python3 from pyenv or a virtualenv earlier on PATH would not).
PYTHON ?= /usr/bin/python3

.PHONY: all deps build demo test bench reproduce-nsi clean

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
	rm -rf $(BUILD)
