#include "cpu/core_activity.h"

#include "core/timeline.h"

namespace npuvp {

namespace {
constexpr std::uint64_t kInterruptBit = 1ull << 63;
}

CoreActivity::CoreActivity(const std::string& core, std::uint64_t period_ps, std::uint64_t cycles)
    : period_ps_(period_ps),
      activity_track_(Timeline::instance().track(core, "activity")),
      interrupt_track_(Timeline::instance().track(core, "interrupts")),
      since_(cycles) {}

sc_core::sc_time CoreActivity::time_of(std::uint64_t cycles) const {
  return sc_core::sc_time::from_value(cycles * period_ps_ * (sc_core::sc_time(1, sc_core::SC_PS).value()));
}

void CoreActivity::change(State next, std::uint64_t cycles) {
  Timeline& timeline = Timeline::instance();
  if (state_ != State::kFinished && cycles > since_ && timeline.enabled()) {
    const sc_core::sc_time begin = time_of(since_), end = time_of(cycles);
    switch (state_) {
      case State::kRunning: timeline.slice(activity_track_, "running", begin, end); break;
      case State::kWfi: timeline.slice(activity_track_, "WFI", begin, end); break;
      case State::kTrapHandler:
        timeline.slice(activity_track_, "trap handler: " + trap_cause_name(handler_cause_), begin, end,
                       {{"mcause", Timeline::hex(handler_cause_)}, {"mepc", Timeline::hex(handler_epc_)}});
        break;
      case State::kFinished: break;
    }
  }
  state_ = next;
  since_ = cycles;
}

void CoreActivity::trap_entered(std::uint64_t mcause, std::uint64_t epc, std::uint64_t cycles) {
  if (mcause & kInterruptBit && Timeline::instance().enabled())
    Timeline::instance().instant(interrupt_track_, trap_cause_name(mcause), time_of(cycles),
                                 {{"mcause", Timeline::hex(mcause)}, {"mepc", Timeline::hex(epc)}});
  if (handler_depth_++ == 0) {
    change(State::kTrapHandler, cycles);
    handler_cause_ = mcause;
    handler_epc_ = epc;
  }
}

void CoreActivity::trap_returned(std::uint64_t cycles) {
  // An mret outside any recorded handler (e.g. the boot code dropping to
  // U-mode) changes nothing.
  if (handler_depth_ == 0) return;
  if (--handler_depth_ == 0) change(State::kRunning, cycles);
}

void CoreActivity::sleep(std::uint64_t cycles) { change(State::kWfi, cycles); }

void CoreActivity::wake(std::uint64_t cycles) {
  change(handler_depth_ ? State::kTrapHandler : State::kRunning, cycles);
}

void CoreActivity::finish(std::uint64_t cycles) { change(State::kFinished, cycles); }

}  // namespace npuvp
