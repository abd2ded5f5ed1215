// Runs an AI Core kernel in-process on the full SoC (ring, DDR, L2 buffer,
// AI Cores): load the kernel ELF, place inputs in memory, start task blocks
// directly (KernelLauncher), simulate, then read results and statistics. One
// KernelRun per test process (SystemC elaborates once).
#pragma once

#include "core/parameters.h"
#include "core/simulation.h"
#include "core/statistics.h"
#include "mem/elf_image.h"
#include "platform/host_platform.h"
#include "platform/kernel_launcher.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace npuvp::test_support {

inline std::string kernel_path(const std::string& name) {
  return std::string(NPUVP_FIRMWARE_DIR) + "/sw/kernels/" + name + ".elf";
}

class KernelRun {
 public:
  // `kernel` is an ELF under the firmware build's sw/kernels (e.g. "gemm"
  // or "tests/sync_order"); `parameters` are overrides such as
  // {"soc.ai_cores", "4"}.
  explicit KernelRun(const std::string& kernel, const std::map<std::string, std::string>& parameters = {}) {
    for (const auto& [name, value] : parameters)
      ParameterRegistry::instance().set_override(name, value, "test");
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::sc_time(10, sc_core::SC_US));  // as npuvp run
    platform_ = std::make_unique<HostPlatform>("soc");
    ParameterRegistry::instance().check_all_overrides_used();
    platform_->park_host_cpu();
    image_ = std::make_unique<ElfImage>(kernel_path(kernel));
    image_->load([this](std::uint64_t address, const std::uint8_t* data, std::size_t size) {
      return platform_->write_memory(address, data, size);
    });
    for (auto& core : platform_->aicores)
      core->set_symbolizer([this](std::uint64_t address) { return image_->symbolize(address); });
  }

  HostPlatform& platform() { return *platform_; }
  AiCore& core(unsigned index = 0) { return *platform_->aicores.at(index); }
  const ElfImage& image() const { return *image_; }

  void write(std::uint64_t address, const void* data, std::size_t size) {
    ASSERT_EQ(platform_->write_memory(address, static_cast<const std::uint8_t*>(data), size), size)
        << "no memory at " << std::hex << address;
  }
  template <typename T> void write(std::uint64_t address, const std::vector<T>& values) {
    write(address, values.data(), values.size() * sizeof(T));
  }
  template <typename T> std::vector<T> read(std::uint64_t address, std::size_t count) {
    std::vector<T> values(count);
    EXPECT_TRUE(platform_->read_memory(address, reinterpret_cast<std::uint8_t*>(values.data()), count * sizeof(T)));
    return values;
  }
  // The kernel's argument block (64-bit words at kKernelArguments).
  void set_args(const std::vector<std::uint64_t>& args) { write(memory_map::kKernelArguments, args); }

  // Runs `blocks` task blocks on the first `cores` AI Cores until all ended
  // (or `limit`). Returns the run's exit status (0 = every block done).
  int run(unsigned cores = 1, std::uint64_t blocks = 0,
          sc_core::sc_time limit = sc_core::sc_time(1, sc_core::SC_SEC)) {
    KernelLauncher::Plan plan;
    plan.entry = image_->entry();
    plan.cores = cores;
    plan.blocks = blocks ? blocks : cores;
    launcher_ = std::make_unique<KernelLauncher>(*platform_, plan);
    try {
      sc_core::sc_start(limit);
    } catch (const SimulationError& error) {
      simulation().record_failure(error.status(), error.what());
    }
    if (!simulation().finished()) return -1;  // still running at the limit
    return static_cast<int>(simulation().status());
  }
  const std::string& reason() const { return simulation().reason(); }

  // A statistic by full name (e.g. "soc.aicore0.cube.busy_cycles").
  double stat(const std::string& name) const {
    const Statistic* statistic = StatisticsRegistry::instance().find(name);
    if (!statistic) {
      ADD_FAILURE() << "no statistic " << name;
      return -1;
    }
    return statistic->to_json().get<double>();
  }

 private:
  std::unique_ptr<HostPlatform> platform_;
  std::unique_ptr<ElfImage> image_;
  std::unique_ptr<KernelLauncher> launcher_;
};

}  // namespace npuvp::test_support
