#include "soc_buffers.h"

#include <algorithm>

#include "compile_error.h"

namespace npuvp::compiler {

const BufferAttributes& SocBuffers::get(const std::string& name) const {
  for (const auto& buffer : buffers)
    if (buffer.name == name) return buffer;
  throw CompileError("internal: no on-chip buffer '" + name + "' in the registry");
}

SocBuffers build_soc_buffers(const SocDescription& soc) {
  if (soc.ai_cores == 0 || soc.aicore_clock_hz <= 0 || soc.cube_macs_per_cycle <= 0 || soc.ddr_bytes_per_second <= 0 ||
      soc.mte3_bytes_per_cycle <= 0 || soc.cc_to_ub_bytes_per_cycle <= 0)
    throw CompileError("SoC description: ai_cores, clock, Cube peak, DDR, MTE3 and L0C -> UB bandwidths must be positive");
  SocBuffers registry;
  const double hz = soc.aicore_clock_hz;
  // Latencies: DDR ~ 100 ns row miss + bus (docs/parameters.md), L2 10 ns; MTE pipes 16 / 8 cycles.
  registry.buffers = {
      {"DDR", 0, "", 100e-9 * hz, soc.ddr_bytes_per_second / hz},
      {"L2", std::uint64_t(soc.l2_bytes), "DDR", 10e-9 * hz, soc.l2_bytes_per_second > 0 ? soc.l2_bytes_per_second / hz : 0},
      {"L1", soc.l1_bytes, "DDR", 16, soc.mte2_bytes_per_cycle},
      {"UB", soc.ub_bytes, "DDR", 16, soc.mte2_bytes_per_cycle},
      {"L0A", soc.l0a_bytes, "L1", 8, soc.mte1_bytes_per_cycle},
      {"L0B", soc.l0b_bytes, "L1", 8, soc.mte1_bytes_per_cycle},
      {"L0C", soc.l0c_bytes, "L0A+L0B", 16, 0},
  };
  registry.cube_macs_per_cycle = soc.cube_macs_per_cycle;
  registry.ai_cores = soc.ai_cores;
  registry.ddr_bytes_per_cycle = soc.ddr_bytes_per_second / hz;
  registry.clock_hz = hz;
  registry.cc_to_ub_bytes_per_cycle = soc.cc_to_ub_bytes_per_cycle;
  registry.mte3_bytes_per_cycle = soc.mte3_bytes_per_cycle;
  // what a core's MTE2 receives at most: its port or the ring link into the core
  registry.core_fill_bytes_per_cycle = soc.ring_link_bytes_per_second > 0
                                           ? std::min(soc.mte2_bytes_per_cycle, soc.ring_link_bytes_per_second / hz)
                                           : soc.mte2_bytes_per_cycle;
  return registry;
}

}  // namespace npuvp::compiler
