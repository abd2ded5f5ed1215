// CoreActivity: what a RISC-V core does over time, for the timeline
// (`--trace`, docs/observability.md): one row of slices "running", "trap
// handler" (from trap entry to its mret; named by the cause) and "WFI", and
// one row of instants, one per interrupt taken. Only state changes are
// recorded (trap entries and returns reported by the Hart, sleep and wake by
// RiscvCpu): nothing happens per instruction and no SystemC event is made.
// Times are the core's own (its cycle count x its period), which under
// temporal decoupling may run ahead of SystemC time.
#pragma once

#include "cpu/hart.h"

#include <systemc>

#include <cstdint>
#include <string>

namespace npuvp {

class CoreActivity : public HartActivityObserver {
 public:
  // Tracks in group `core` of the open Timeline; the core starts running at `cycles`.
  CoreActivity(const std::string& core, std::uint64_t period_ps, std::uint64_t cycles);

  void trap_entered(std::uint64_t mcause, std::uint64_t epc, std::uint64_t cycles) override;
  void trap_returned(std::uint64_t cycles) override;
  void sleep(std::uint64_t cycles);
  void wake(std::uint64_t cycles);
  // Ends the current slice (at the end of the run).
  void finish(std::uint64_t cycles);

 private:
  enum class State { kRunning, kTrapHandler, kWfi, kFinished };
  void change(State next, std::uint64_t cycles);
  sc_core::sc_time time_of(std::uint64_t cycles) const;

  std::uint64_t period_ps_;
  int activity_track_, interrupt_track_;
  State state_ = State::kRunning;
  std::uint64_t since_;
  unsigned handler_depth_ = 0;  // nested traps (a fault inside a handler)
  std::uint64_t handler_cause_ = 0, handler_epc_ = 0;
};

}  // namespace npuvp
