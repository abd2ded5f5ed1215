// The registry of the AI Core's on-chip buffers and the memories behind them,
// built from the SoC's parameters (DLIR's buffer attributes: name, size,
// which buffer it loads from, latency, bandwidth). The tiling planner reads
// it; docs/compiler.md shows the registry of the default SoC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npuvp/compiler/compiler.h"

namespace npuvp::compiler {

struct BufferAttributes {
  std::string name;
  std::uint64_t bytes = 0;          // capacity (0: off-chip, unbounded here)
  std::string loads_from;           // the buffer or memory it is filled from ("" for DDR)
  double latency_cycles = 0;        // per transfer, AI Core cycles
  double bytes_per_cycle = 0;       // bandwidth of the path that fills it
};

struct SocBuffers {
  std::vector<BufferAttributes> buffers;  // DDR, L2, L1, L0A, L0B, L0C, UB
  const BufferAttributes& get(const std::string& name) const;
  double cube_macs_per_cycle = 0;   // one AI Core
  unsigned ai_cores = 1;
  double ddr_bytes_per_cycle = 0;   // the SoC's DDR bandwidth in AI Core cycles (shared by all cores)
  double clock_hz = 0;              // AI Core clock
  // The write-back of a Cube tile: L0C -> UB (f32 read) and UB -> GM (MTE3), bytes per cycle.
  double cc_to_ub_bytes_per_cycle = 0, mte3_bytes_per_cycle = 0;
  // What an AI Core's MTE2 receives at most: its port, or the ring's link into the core when
  // narrower (32 B/cycle by default: a slice from the L2 buffer arrives at 28.7 B/cycle).
  double core_fill_bytes_per_cycle = 0;

  // Whether the tiling planner prices bytes in the L2 buffer as DDR bytes: an L2 no
  // faster than the DDR (the HBM-class SoC), as calibrated (tiling_planner.cpp).
  bool l2_priced_as_ddr() const {
    const double l2 = get("L2").bytes_per_cycle;
    return l2 > 0 && l2 <= ddr_bytes_per_cycle;
  }
};

SocBuffers build_soc_buffers(const SocDescription& soc);

}  // namespace npuvp::compiler
