#include "cluster/instruction_fetch.h"

#include "cpu/riscv_cpu.h"

#include <algorithm>

namespace npuvp {

InstructionFetchTiming::InstructionFetchTiming(const MeshNetwork& network, const coherence::Geometry& geometry,
                                               Ticks llc_ticks)
    : network_(network), geometry_(geometry), llc_ticks_(llc_ticks), caches_(geometry.tiles) {}

void InstructionFetchTiming::attach(unsigned tile, RiscvCpu& cpu, std::uint64_t size, std::uint64_t ways) {
  caches_[tile] = std::make_unique<InstructionCache>(size, geometry_.line_bytes, ways);
  InstructionCache* cache = caches_[tile].get();
  // A miss: the zero-load time of a line fill from the line's LLC bank.
  const Ticks core_period = std::max<Ticks>(1, cpu.cycle_time().value());
  const unsigned line_bytes = geometry_.line_bytes;
  Hart* hart = &cpu.hart();
  hart->set_fetch_observer([this, cache, tile, core_period, line_bytes, hart](std::uint64_t address) {
    std::uint64_t evicted = 0;
    if (cache->access(address, evicted)) return std::uint64_t{0};
    if (evicted != InstructionCache::kInvalid) hart->invalidate_decoded_range(evicted, line_bytes);
    const unsigned bank = geometry_.home_of(geometry_.line_of(address));
    const Ticks fill = network_.zero_load_latency(tile, bank, 0).value() + llc_ticks_ +
                       network_.zero_load_latency(bank, tile, line_bytes).value();
    return static_cast<std::uint64_t>((fill + core_period - 1) / core_period);
  });
}

std::uint64_t InstructionFetchTiming::misses() const {
  std::uint64_t total = 0;
  for (const auto& cache : caches_)
    if (cache) total += cache->misses();
  return total;
}

}  // namespace npuvp
