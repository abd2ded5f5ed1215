# Thin wrapper around CMake: `make demo`, `make test`, `make bench`.
# Installs missing Debian packages first (with sudo when not root).
BUILD ?= build
JOBS ?= $(shell nproc)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

DEBIAN_PACKAGES := cmake ninja-build g++ pkg-config make \
  libsystemc-dev libyaml-cpp-dev nlohmann-json3-dev libelf-dev libboost-dev \
  libgtest-dev libgmock-dev libbenchmark-dev \
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc gdb-multiarch

.PHONY: all deps build demo test bench reproduce-nsi clean

all: build

deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:" $$missing; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

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

# Reproduction study (issue 7, part 1): every cluster workload under MESI and NSI
# with the thesis's Table 5.2 parameters, our numbers beside the thesis's
# (docs/reproduce-nsi.md); the report goes to $(BUILD)/reproduce-nsi/report.md.
reproduce-nsi: build
	python3 tools/reproduce_nsi.py --npuvp $(BUILD)/platform/npuvp --out $(BUILD)/reproduce-nsi

clean:
	rm -rf $(BUILD)
