// SiFive CLINT as in QEMU virt (64 KiB window):
//   0x0000 + 4*hart   msip      (bit 0 drives the hart's MSIP; other bits read 0)
//   0x4000 + 8*hart   mtimecmp  (64-bit; reset value all ones, so no timer interrupt
//                                until software programs it)
//   0xBFF8            mtime     (64-bit, shared by all harts)
// msip takes 4-byte accesses; mtimecmp and mtime take naturally aligned 8-byte
// accesses or 4-byte accesses to either 32-bit half (as RV32 software does).
// Other offsets inside the window read as zero and ignore writes; other sizes
// or misaligned accesses are access faults.
//
// Time: mtime = floor((sc_time_stamp() + delay) * timebase) + offset, where
// `offset` starts at 0 and changes only when software writes mtime. No
// process ticks: MTIP of a hart is scheduled with one timed event for the
// earliest future deadline and asserts exactly at the simulated time at which
// mtime reaches mtimecmp. A write to mtimecmp (or mtime) re-evaluates the level
// at the writer's current time (sc_time_stamp() + delay) inside the write, so
// a core running ahead of SystemC time sees MTIP drop on its next instruction.
#pragma once

#include "core/interrupt.h"
#include "core/parameters.h"
#include "core/statistics.h"
#include "periph/mmio_device.h"

#include <cstdint>
#include <vector>

namespace npuvp {

class Clint : public MmioDevice {
 public:
  static constexpr std::uint64_t kWindowSize = 0x10000;
  static constexpr std::uint64_t kMsipBase = 0x0000;
  static constexpr std::uint64_t kMtimecmpBase = 0x4000;
  static constexpr std::uint64_t kMsipStride = 4, kMtimecmpStride = 8;  // bytes per hart
  static constexpr std::uint64_t kMtime = 0xBFF8;
  static constexpr std::uint64_t kMaxHarts = 4095;  // mtimecmp array ends at mtime

  // `default_harts` is the default of the `harts` parameter (the platform
  // passes its hart count); a configured value overrides it.
  explicit Clint(sc_core::sc_module_name name, std::uint64_t default_harts = 1);
  SC_HAS_PROCESS(Clint);

  Parameter<std::uint64_t> harts;
  // mtime's frequency unless soc.clint.timebase says otherwise; firmware's
  // NPUVP_TIMEBASE_HZ is generated from it (platform/soc_contract.cpp).
  static constexpr std::uint64_t kDefaultTimebase = 10'000'000;
  Parameter<double> timebase{child_name(*this, "timebase"), double(kDefaultTimebase), "Hz",
                             "mtime increment frequency (QEMU virt: 10 MHz)"};

  // Per hart: connect msip_irq[h] to the hart's line 3 (MSIP) and mtip_irq[h]
  // to its line 7 (MTIP).
  std::vector<InterruptLine> msip_irq;
  std::vector<InterruptLine> mtip_irq;

  // The value of mtime at simulated time `time` (what the `time` CSR reads).
  std::uint64_t mtime_at(const sc_core::sc_time& time) const;
  std::uint64_t mtimecmp(unsigned hart) const { return mtimecmp_.at(hart); }

  Counter timer_interrupts{child_name(*this, "timer_interrupts"), "interrupts",
                           "rising edges of MTIP, all harts"};
  Counter software_interrupts{child_name(*this, "software_interrupts"), "interrupts",
                              "rising edges of MSIP, all harts"};

 protected:
  bool read(std::uint64_t offset, unsigned size, std::uint64_t& value, sc_core::sc_time& delay) override;
  bool write(std::uint64_t offset, unsigned size, std::uint64_t value, sc_core::sc_time& delay) override;
  bool peek(std::uint64_t offset, unsigned size, std::uint64_t& value) override;

 private:
  // mtime without the software offset: floor(time * timebase).
  std::uint64_t ticks_at(const sc_core::sc_time& time) const;
  // Earliest time (in resolution units) at which ticks_at() >= ticks; false if
  // beyond the largest representable sc_time.
  bool time_of_ticks(std::uint64_t ticks, sc_core::sc_time& time) const;
  // Time at which hart's MTIP asserts given the current offset; false if never.
  bool deadline(unsigned hart, sc_core::sc_time& time) const;
  bool access(std::uint64_t offset, unsigned size, bool is_write, std::uint64_t& value,
              const sc_core::sc_time& now);
  static bool merge64(std::uint64_t offset, std::uint64_t base, unsigned size, std::uint64_t& reg,
                      std::uint64_t value);
  void evaluate(unsigned hart, const sc_core::sc_time& now);
  void reschedule();
  void on_timer_event();
  void set_mtip(unsigned hart, bool level);

  std::vector<std::uint64_t> mtimecmp_;
  std::uint64_t offset_ = 0;
  sc_core::sc_event timer_event_;
  // Time conversion: timebase as an exact integer when possible.
  std::uint64_t resolution_per_second_ = 0;
  bool integral_timebase_ = false;
  std::uint64_t timebase_integer_ = 0;
};

}  // namespace npuvp
