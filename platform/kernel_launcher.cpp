#include "platform/kernel_launcher.h"

#include "core/simulation.h"

namespace npuvp {

KernelLauncher::KernelLauncher(HostPlatform& platform, const Plan& plan) : platform_(platform), plan_(plan) {
  if (platform.aicores.empty()) throw ConfigError("aicore_launch: the SoC has no AI Cores (soc.ai_cores = 0)");
  if (plan_.cores == 0 || plan_.cores > platform.aicores.size())
    throw ConfigError("aicore_launch: cores = " + std::to_string(plan_.cores) + " but the SoC has " +
                      std::to_string(platform.aicores.size()) + " AI Cores (soc.ai_cores)");
  if (plan_.blocks == 0) throw ConfigError("aicore_launch: blocks must be at least 1");
  for (unsigned i = 0; i < plan_.cores; ++i) {
    AiCore& core = *platform.aicores[i];
    core.on_block_end([this](AiCore& ended) { block_ended(ended); });
    start_next(core);
  }
}

void KernelLauncher::start_next(AiCore& core) {
  if (next_block_ >= plan_.blocks) return;
  AiCore::Launch launch;
  launch.entry = plan_.entry;
  launch.args = plan_.args;
  launch.block_idx = next_block_++;
  launch.block_dim = plan_.blocks;
  core.launch(launch);
}

void KernelLauncher::block_ended(AiCore& core) {
  ++ended_;
  if (core.outcome().faulted && first_fault_.empty()) first_fault_ = core.outcome().message;
  if (first_fault_.empty()) start_next(core);
  else next_block_ = plan_.blocks;  // no new blocks after a fault; running ones finish
  if (!plan_.end_simulation) return;
  bool running = false;
  for (const auto& other : platform_.aicores) running = running || other->outcome().running;
  if (running || (first_fault_.empty() && ended_ < plan_.blocks)) return;
  if (!first_fault_.empty()) {
    simulation().record_failure(ExitStatus::kGuestError, first_fault_);
    sc_core::sc_stop();
  } else {
    simulation().request_exit(0, std::to_string(plan_.blocks) + " task blocks finished");
  }
}

}  // namespace npuvp
