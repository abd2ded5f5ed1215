// CoherentMemorySystem::TileCache, the per-hart adapter of the mesh
// cluster (gem5's Sequencer role): a hart's DataCache over its tile's L1
// controller. It runs each access in the hart's own time, blocks the hart's
// thread on a miss until the protocol completes it, charges the cycles
// (a hit: the L1 latency; a miss: the wait; a load the L1 reports as
// speculated correctly: a hit), drops the LR reservation of a lost line,
// sends uncached ranges to the hart's bus, and traces misses on the
// timeline (trace_misses). coherent_memory_system.h describes the timing.
#pragma once

#include "cluster/coherent_memory_system.h"
#include "coherence/extensions.h"
#include "core/simulation.h"
#include "core/text.h"
#include "core/timeline.h"
#include "cpu/riscv_cpu.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>

namespace npuvp {

// A hart's DataCache over its tile's L1 controller (see the header: time).
class CoherentMemorySystem::TileCache : public DataCache {
  using Cycles = coherence::Cycles;
  using L1Controller = coherence::L1Controller;

 public:
  TileCache(CoherentMemorySystem& system, unsigned tile, RiscvCpu& cpu)
      : system_(system),
        l1_(system.l1(tile)),
        timed_(dynamic_cast<coherence::TimedAccesses*>(&l1_)),
        speculating_(dynamic_cast<const coherence::SpeculatedLoads*>(&l1_)),
        hart_(cpu.hart()) {
    core_period_ticks_ = cpu.cycle_time().value();
    hart_name_ = cpu.name();
    l1_latency_ = (system.l1_latency.get() * system.period_ticks_ + core_period_ticks_ - 1) / core_period_ticks_;
    l1_.set_miss_completion([this] {
      completed_ = true;
      // SystemC's time, or an express message's arrival (carry_express).
      completion_ticks_ = system_.base_ticks();
      // The hart's thread waits for it (immediate: same delta), unless the
      // miss completed inside the hart's own access (an express message).
      if (waiting_) done_.notify();
    });
    const std::uint64_t line_bytes = system.geometry_.line_bytes;
    l1_.set_line_lost_observer([this, line_bytes](std::uint64_t line) {
      ++lines_lost_;
      if (line == missed_line_) {
        lost_during_miss_ = true;
        lost_after_completion_ = completed_;
      }
      if (hart_.reservation_in(line, line_bytes)) hart_.clear_reservation();
    });
  }

  bool read(std::uint64_t address, void* data, unsigned size, std::uint64_t& cycles) override {
    if (uncached(address)) return bus(BusInterface::Access::kRead, address, data, size, cycles);
    return perform(L1Controller::Access::kLoad, address, data, size, cycles);
  }
  bool write(std::uint64_t address, const void* data, unsigned size, std::uint64_t& cycles) override {
    if (uncached(address)) return bus(BusInterface::Access::kWrite, address, const_cast<void*>(data), size, cycles);
    return perform(L1Controller::Access::kStore, address, const_cast<void*>(data), size, cycles);
  }
  bool make_writable(std::uint64_t address, std::uint64_t& cycles) override {
    if (uncached(address)) {
      cycles = 0;
      return true;
    }
    std::uint64_t scratch = 0;
    return perform(L1Controller::Access::kMakeWritable, address & ~std::uint64_t{7}, &scratch, 8, cycles);
  }
  void synchronise(Sync kind, std::uint64_t& cycles) override {
    // LR/SC: the hart makes an LR's line writable before loading it (as
    // for an AMO), so the reservation is on a line this L1 owns; losing the
    // line (line-lost observer) drops it and the SC fails.
    Cycles cluster_cycles = l1_.synchronise();
    cycles += to_core_cycles(cluster_cycles * system_.period_ticks_);
  }
  bool debug_access(bool write, std::uint64_t address, void* data, std::size_t size) override {
    if (uncached(address)) return hart_.bus().debug_access(write, address, data, size);
    return system_.debug_access(write, address, data, size);
  }

  std::uint64_t misses = 0, hits = 0, stall_cycles = 0, retries = 0;
  std::uint64_t speculated = 0, speculation_cycles_saved = 0;
  std::uint64_t lines_lost() const { return lines_lost_; }

 private:
  bool uncached(std::uint64_t address) const {
    for (const auto& [start, size] : system_.uncached_)
      if (address - start < size) return true;
    return false;
  }
  bool bus(BusInterface::Access access, std::uint64_t address, void* data, unsigned size, std::uint64_t& cycles) {
    return hart_.bus().bus_access(access, address, data, size, cycles);
  }
  // The miss just completed is a load a speculating core would have charged as a hit.
  bool speculated_hit() const { return speculating_ && speculating_->last_miss_speculated_correctly(); }
  std::uint64_t to_core_cycles(Ticks ticks) const { return (ticks + core_period_ticks_ - 1) / core_period_ticks_; }

  bool perform(L1Controller::Access access, std::uint64_t address, void* data, unsigned size, std::uint64_t& cycles) {
    const Ticks start = hart_.cycles() * core_period_ticks_;
    MissTrace miss_trace(*this, access, address, start);  // trace_misses (--trace-coherence); nothing when off
    Ticks issued = start;  // when the (first) miss left: the hart's time, or SystemC's if that is later
    for (bool first = true;; first = false) {
      // The controllers see the hart's own time during the call (a miss
      // starts then; now() is SystemC's if the hart lags it, after a load
      // charged as a speculated hit).
      const Ticks ticks = first ? start : std::max(start, completion_ticks_);
      system_.access_ticks_ = ticks;
      if (timed_) timed_->set_access_time(ticks);
      completed_ = false;
      lost_during_miss_ = lost_after_completion_ = false;
      missed_line_ = address & ~std::uint64_t{system_.geometry_.line_bytes - 1};
      bool hit;
      try {
        hit = l1_.access(access, address, data, size);
      } catch (const coherence::ProtocolError& error) {
        system_.access_ticks_ = 0;
        simulation().fail(ExitStatus::kInternalError, std::string(system_.name()) + ": " + error.what());
      }
      system_.access_ticks_ = 0;
      system_.carry_express();  // may complete a miss at once
      if (hit) {
        missed_line_ = kNoLine;
        if (first) {
          ++hits;
          cycles = l1_latency_;
          return true;
        }
        break;
      }
      miss_trace.missed = true;
      if (first) issued = std::max<Ticks>(start, sc_core::sc_time_stamp().value());
      // Blocks this hart's thread until the protocol has performed the access.
      waiting_ = true;
      while (!completed_) sc_core::wait(done_);
      waiting_ = false;
      completed_ = false;
      // The line may be gone when this thread resumes: a make-writable
      // whose line other processes of this time step took again after
      // completion is done again, so that the AMO's read and write, or the
      // LR's load and the SC's store, find the line writable without blocking.
      const bool again = access == L1Controller::Access::kMakeWritable && lost_after_completion_;
      missed_line_ = kNoLine;
      if (!again) break;
      ++retries;
    }
    const Ticks now = completion_ticks_;
    const std::uint64_t waited = now > start ? to_core_cycles(now - start) : 0;
    if (speculated_hit()) {
      // A speculating core would have used its suspect copy as soon as the
      // load issued and the validation confirmed it: charge a hit from
      // then. The hart's cycles now lag SystemC time by at most this round
      // trip; see docs/cluster.md (Time).
      ++hits;
      ++speculated;
      cycles = (issued > start ? to_core_cycles(issued - start) : 0) + l1_latency_;
      if (waited > cycles) speculation_cycles_saved += waited - cycles;
      return true;
    }
    ++misses;
    cycles = waited;
    stall_cycles += cycles;
    return true;
  }

  // trace_misses (--trace-coherence): an access to a line in the traced range that missed
  // becomes a slice on the hart's "L1 misses" row, from the hart's time at
  // the access to the completion, with the line's states before and after.
  struct MissTrace {
    MissTrace(TileCache& cache, L1Controller::Access access, std::uint64_t address, Ticks start)
        : cache(cache), access(access), start(start), active(cache.timeline_.enabled() && cache.system_.miss_traced(address)) {
      if (!active) return;
      line = address & ~std::uint64_t{cache.system_.geometry_.line_bytes - 1};
      before = cache.l1_.describe(line);
    }
    ~MissTrace() {
      if (!active || !missed || std::uncaught_exceptions() || !cache.timeline_.enabled()) return;
      Timeline& timeline = cache.timeline_;
      if (cache.miss_track_ < 0) cache.miss_track_ = timeline.track(cache.hart_name_, "L1 misses");
      static const char* const kAccess[] = {"load", "store", "make writable"};
      const char* kind = kAccess[static_cast<unsigned>(access)];
      timeline.slice(cache.miss_track_, std::string(kind) + " " + hex(line), sc_core::sc_time::from_value(start),
                     sc_core::sc_time::from_value(cache.completion_ticks_),
                     {{"line", Timeline::hex(line)},
                      {"access", Timeline::quoted(kind)},
                      {"before", Timeline::quoted(before)},
                      {"after", Timeline::quoted(cache.l1_.describe(line))},
                      {"speculated", cache.speculated_hit() ? "true" : "false"}});
    }
    TileCache& cache;
    L1Controller::Access access;
    Ticks start;
    bool active, missed = false;
    std::uint64_t line = 0;
    std::string before;
  };
  Timeline& timeline_ = Timeline::instance();
  std::string hart_name_;
  int miss_track_ = -1;

  static constexpr std::uint64_t kNoLine = ~std::uint64_t{0};
  std::uint64_t missed_line_ = kNoLine;  // the line of the miss in progress
  bool lost_during_miss_ = false, lost_after_completion_ = false;

  CoherentMemorySystem& system_;
  L1Controller& l1_;
  coherence::TimedAccesses* timed_;                  // the L1 wants each access's time (NSI)
  const coherence::SpeculatedLoads* speculating_;    // the L1 reports speculated loads (NSI)
  Hart& hart_;
  Ticks core_period_ticks_ = 1;
  std::uint64_t l1_latency_ = 0;
  std::uint64_t lines_lost_ = 0;
  bool completed_ = false;
  bool waiting_ = false;  // the hart's thread waits for done_
  Ticks completion_ticks_ = 0;  // when the last miss completed
  sc_core::sc_event done_;
};

}  // namespace npuvp
