// The mesh cluster's statistics: per L1 and LLC bank, summed over the
// cluster, the protocols' own counters (Protocol::l1_counters, 0 under
// another protocol), the harts' miss stalls and speculated loads, DDR line
// transfers and instruction-cache misses (docs/cluster.md, Statistics).
#include "cluster/coherent_memory_system.h"

#include "cluster/tile_cache.h"
#include "coherence/extensions.h"
#include "coherence/protocol_registry.h"
#include "mem/instruction_cache.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace npuvp {

std::uint64_t CoherentMemorySystem::sum_tile_caches(std::uint64_t (*value)(const TileCache&)) const {
  std::uint64_t total = 0;
  for (const auto& cache : tile_caches_)
    if (cache) total += value(*cache);
  return total;
}

std::uint64_t CoherentMemorySystem::l1_misses() const {
  return sum_tile_caches([](const TileCache& cache) { return cache.misses; });
}
std::uint64_t CoherentMemorySystem::l1_hits() const {
  return sum_tile_caches([](const TileCache& cache) { return cache.hits; });
}
std::uint64_t CoherentMemorySystem::speculated_loads() const {
  return sum_tile_caches([](const TileCache& cache) { return cache.speculated; });
}
std::uint64_t CoherentMemorySystem::speculation_cycles_saved() const {
  return sum_tile_caches([](const TileCache& cache) { return cache.speculation_cycles_saved; });
}
std::uint64_t CoherentMemorySystem::lines_lost() const {
  return sum_tile_caches([](const TileCache& cache) { return cache.lines_lost(); });
}

std::vector<coherence::CounterDeclaration> CoherentMemorySystem::protocol_counters() {
  std::vector<coherence::CounterDeclaration> all;
  for (const std::string& name : coherence::protocol_names())
    for (const coherence::CounterDeclaration& declaration : coherence::find_protocol(name).l1_counters) {
      bool known = false;
      for (const coherence::CounterDeclaration& each : all) known |= each.name == declaration.name;
      if (!known) all.push_back(declaration);
    }
  return all;
}

const std::uint64_t* CoherentMemorySystem::protocol_counter(unsigned tile, const std::string& name) const {
  const auto* counters = dynamic_cast<const coherence::ProtocolCounters*>(l1s_[tile].get());
  return counters ? counters->counter(name) : nullptr;
}

void CoherentMemorySystem::add_statistics() {
  auto stat = [this](const std::string& local, const char* unit, const std::string& doc, std::function<double()> value,
                     bool integral = true) {
    statistics_.push_back(std::make_unique<DerivedStatistic>(child_name(*this, local), unit, doc, std::move(value), integral));
  };
  for (unsigned tile = 0; tile < geometry_.tiles; ++tile) {
    const coherence::L1Controller* l1 = l1s_[tile].get();
    const std::string prefix = "l1_" + std::to_string(tile) + ".";
    const coherence::L1Statistics& s = l1->statistics();
    stat(prefix + "load_hits", "", "loads that hit", [&s] { return s.load_hits; });
    stat(prefix + "load_misses", "", "loads that missed", [&s] { return s.load_misses; });
    stat(prefix + "store_hits", "", "stores that hit (line writable)", [&s] { return s.store_hits; });
    stat(prefix + "store_misses", "", "stores that missed or needed write permission", [&s] { return s.store_misses; });
    stat(prefix + "atomic_hits", "", "atomics/SC whose line was writable", [&s] { return s.atomic_hits; });
    stat(prefix + "atomic_misses", "", "atomics/SC that had to get the line writable", [&s] { return s.atomic_misses; });
    stat(prefix + "upgrades", "", "write permission asked for a line held readable", [&s] { return s.upgrades; });
    stat(prefix + "evictions", "", "lines replaced to make room", [&s] { return s.evictions; });
    stat(prefix + "writebacks", "", "replacements carrying dirty data", [&s] { return s.writebacks; });
    stat(prefix + "invalidations", "", "invalidations received", [&s] { return s.invalidations_received; });
    stat(prefix + "interventions", "", "interventions (forwarded requests) received", [&s] { return s.interventions_received; });
    stat(prefix + "synchronisations", "", "fences, AMOs, LRs and SCs the L1 acted on (NSI self-invalidates; MESI counts none)",
         [&s] { return s.synchronisations; });
    stat(prefix + "periodic_synchronisations", "", "periodic (timed) self-invalidations (NSI)",
         [&s] { return s.periodic_synchronisations; });
    // Every registered protocol's own counters, 0 under a protocol without
    // them, so that runs under different protocols have the same names.
    for (const coherence::CounterDeclaration& declaration : protocol_counters()) {
      const std::uint64_t* counter = protocol_counter(tile, declaration.name);
      stat(prefix + declaration.name, "", declaration.doc, [counter] { return counter ? *counter : 0; });
    }
    stat(prefix + "miss_rate", "", "misses / accesses (loads, stores, atomics)", [&s] {
      const double misses = static_cast<double>(s.load_misses + s.store_misses + s.atomic_misses);
      const double all = misses + static_cast<double>(s.load_hits + s.store_hits + s.atomic_hits);
      return all > 0 ? misses / all : 0.0;
    }, false);
    const coherence::HomeController* home = homes_[tile].get();
    const std::string bank = "llc_" + std::to_string(tile) + ".";
    const coherence::HomeStatistics& h = home->statistics();
    stat(bank + "hits", "", "requests served from the LLC bank", [&h] { return h.hits; });
    stat(bank + "misses", "", "requests that needed memory", [&h] { return h.misses; });
    stat(bank + "recalls", "", "LLC evictions of lines cached in L1s (inclusion)", [&h] { return h.recalls; });
    stat(bank + "evictions", "", "lines the LLC bank replaced to make room", [&h] { return h.evictions; });
    stat(bank + "memory_reads", "", "lines read from memory", [&h] { return h.memory_reads; });
    stat(bank + "memory_writes", "", "lines written to memory", [&h] { return h.memory_writes; });
    stat(bank + "invalidations_sent", "", "invalidations sent to sharers", [&h] { return h.invalidations_sent; });
    stat(bank + "interventions_sent", "", "requests forwarded to an owner L1", [&h] { return h.interventions_sent; });
    stat(bank + "messages", "", "messages received by the bank", [this, tile] { return home_messages_[tile]; });
    stat(bank + "miss_rate", "", "misses / (hits + misses)", [&h] {
      const double all = static_cast<double>(h.hits + h.misses);
      return all > 0 ? static_cast<double>(h.misses) / all : 0.0;
    }, false);
  }
  auto sum_l1 = [this](std::uint64_t coherence::L1Statistics::*field) {
    return [this, field] {
      std::uint64_t total = 0;
      for (const auto& l1 : l1s_) total += l1->statistics().*field;
      return static_cast<double>(total);
    };
  };
  auto sum_home = [this](std::uint64_t coherence::HomeStatistics::*field) {
    return [this, field] {
      std::uint64_t total = 0;
      for (const auto& home : homes_) total += home->statistics().*field;
      return static_cast<double>(total);
    };
  };
  using L1S = coherence::L1Statistics;
  using HS = coherence::HomeStatistics;
  stat("l1.load_hits", "", "all L1s", sum_l1(&L1S::load_hits));
  stat("l1.load_misses", "", "all L1s", sum_l1(&L1S::load_misses));
  stat("l1.store_hits", "", "all L1s", sum_l1(&L1S::store_hits));
  stat("l1.store_misses", "", "all L1s", sum_l1(&L1S::store_misses));
  stat("l1.atomic_misses", "", "all L1s", sum_l1(&L1S::atomic_misses));
  stat("l1.upgrades", "", "all L1s", sum_l1(&L1S::upgrades));
  stat("l1.evictions", "", "all L1s", sum_l1(&L1S::evictions));
  stat("l1.writebacks", "", "all L1s", sum_l1(&L1S::writebacks));
  stat("l1.invalidations", "", "all L1s: invalidations received", sum_l1(&L1S::invalidations_received));
  stat("l1.interventions", "", "all L1s: interventions received", sum_l1(&L1S::interventions_received));
  stat("l1.synchronisations", "", "all L1s (NSI)", sum_l1(&L1S::synchronisations));
  stat("l1.periodic_synchronisations", "", "all L1s (NSI)", sum_l1(&L1S::periodic_synchronisations));
  for (const coherence::CounterDeclaration& declaration : protocol_counters()) {
    std::vector<const std::uint64_t*> counters;
    for (unsigned tile = 0; tile < geometry_.tiles; ++tile) counters.push_back(protocol_counter(tile, declaration.name));
    stat("l1." + declaration.name, "", declaration.total_doc, [counters] {
      std::uint64_t total = 0;
      for (const std::uint64_t* counter : counters)
        if (counter) total += *counter;
      return static_cast<double>(total);
    });
  }
  stat("l1.speculated_loads", "", "all harts: loads charged as hits because the L1 speculated correctly (NSI)",
       [this] { return static_cast<double>(speculated_loads()); });
  stat("l1.speculation_cycles_saved", "cycles",
       "all harts: core cycles those loads waited beyond the L1 latency and were not charged",
       [this] { return static_cast<double>(speculation_cycles_saved()); });
  stat("express_messages", "", "messages carried at once (express requests and what they caused; docs/cluster.md)",
       [this] { return static_cast<double>(express_messages_); });
  stat("l1.miss_rate", "", "all L1s: misses / accesses", [this] {
    double misses = 0, all = 0;
    for (const auto& l1 : l1s_) {
      const auto& s = l1->statistics();
      misses += static_cast<double>(s.load_misses + s.store_misses + s.atomic_misses);
      all += static_cast<double>(s.load_misses + s.store_misses + s.atomic_misses + s.load_hits + s.store_hits +
                                 s.atomic_hits);
    }
    return all > 0 ? misses / all : 0.0;
  }, false);
  stat("l1.miss_stall_cycles", "cycles", "all harts: core cycles spent waiting for L1 misses", [this] {
    std::uint64_t total = 0;
    for (const auto& cache : tile_caches_)
      if (cache) total += cache->stall_cycles;
    return static_cast<double>(total);
  });
  stat("llc.hits", "", "all LLC banks", sum_home(&HS::hits));
  stat("llc.misses", "", "all LLC banks", sum_home(&HS::misses));
  stat("llc.recalls", "", "all LLC banks", sum_home(&HS::recalls));
  stat("llc.evictions", "", "all LLC banks", sum_home(&HS::evictions));
  stat("llc.invalidations_sent", "", "all LLC banks", sum_home(&HS::invalidations_sent));
  stat("llc.interventions_sent", "", "all LLC banks", sum_home(&HS::interventions_sent));
  stat("ddr.reads", "", "lines read from DDR by the memory controllers", [this] { return memory_reads_; });
  stat("ddr.writes", "", "lines written to DDR by the memory controllers", [this] { return memory_writes_; });
  stat("icache.misses", "", "instruction-cache misses, all tiles", [this] {
    std::uint64_t total = 0;
    for (const auto& cache : instruction_caches_)
      if (cache) total += cache->misses();
    return static_cast<double>(total);
  });
}

}  // namespace npuvp
