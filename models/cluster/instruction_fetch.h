// InstructionFetchTiming: the timing of the mesh cluster's private
// instruction caches (coherent_memory_system.h, "Instruction caches"). Per
// tile, the tags of an instruction cache (mem/instruction_cache.h), looked up
// by the hart's fetch observer when it decodes an instruction; a miss costs
// the zero-load time of a line fill from the line's LLC bank over the mesh
// (request, LLC latency, data), and an eviction makes the hart decode the
// evicted line again.
#pragma once

#include "coherence/coherence.h"
#include "mem/instruction_cache.h"
#include "mesh/mesh_network.h"

#include <systemc>

#include <cstdint>
#include <memory>
#include <vector>

namespace npuvp {

class RiscvCpu;

class InstructionFetchTiming {
 public:
  using Ticks = sc_core::sc_time::value_type;

  // For the tiles of `geometry` on `network`; an LLC bank access takes `llc_ticks`.
  InstructionFetchTiming(const MeshNetwork& network, const coherence::Geometry& geometry, Ticks llc_ticks);

  // Gives tile `tile`'s hart an instruction cache of `size` bytes in `ways`
  // ways (std::invalid_argument for a shape that does not fit the line size)
  // and charges its fetches.
  void attach(unsigned tile, RiscvCpu& cpu, std::uint64_t size, std::uint64_t ways);
  // Misses of every tile's instruction cache.
  std::uint64_t misses() const;

 private:
  const MeshNetwork& network_;
  coherence::Geometry geometry_;
  Ticks llc_ticks_;
  std::vector<std::unique_ptr<InstructionCache>> caches_;  // per tile, null until attached
};

}  // namespace npuvp
