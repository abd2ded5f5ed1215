// KernelLauncher: runs one kernel's task blocks on AI Cores without a task
// scheduler (the scenario's `aicore_launch`, and kernel tests). Blocks go to
// cores in order; a core that finishes a block gets the next one. When every
// block has ended the run ends: exit code 0, or a guest error naming the
// first kernel fault.
#pragma once

#include "platform/host_platform.h"

#include <cstdint>
#include <string>

namespace npuvp {

class KernelLauncher {
 public:
  struct Plan {
    std::uint64_t entry = 0;
    std::uint64_t args = memory_map::kKernelArguments;
    unsigned cores = 1;
    std::uint64_t blocks = 1;
    bool end_simulation = true;  // request the end of the run when all blocks ended
  };
  // Checks the plan against the platform (ConfigError) and arms the cores;
  // blocks start at time 0.
  KernelLauncher(HostPlatform& platform, const Plan& plan);

  bool finished() const { return ended_ == plan_.blocks; }
  std::uint64_t blocks_ended() const { return ended_; }
  const std::string& first_fault() const { return first_fault_; }

 private:
  void start_next(AiCore& core);
  void block_ended(AiCore& core);

  HostPlatform& platform_;
  Plan plan_;
  std::uint64_t next_block_ = 0, ended_ = 0;
  std::string first_fault_;
};

}  // namespace npuvp
