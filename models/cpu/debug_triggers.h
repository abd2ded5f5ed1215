// The trigger module of the RISC-V debug spec (Sdtrig, 1.0), as seen from
// machine mode without a debugger: `tselect`, `tdata1`, `tdata2`, `tdata3`,
// `tinfo`, and two address-match triggers (mcontrol, type 2, or mcontrol6,
// type 6) on execute, load and store whose action is a breakpoint exception.
// Knows nothing of the hart: Hart asks it whether an instruction address or
// a data access fires, and only while a trigger of that kind is enabled
// (docs/cpu.md, Triggers).
//
// WARL choices: match = 0 (equal) only; select, timing, size, chain, action
// (0 = breakpoint exception), dmode and maskmax are zero; S-mode bits read as
// zero (no S-mode). Writable: m, u, execute, store, load and hit (set when the
// trigger fires). A tdata1 write whose type is neither 2 nor 6 disables the
// trigger (type 15). tselect ignores values above the last trigger; tdata3 is
// zero.
#pragma once

#include <cstdint>

namespace npuvp {

class DebugTriggers {
 public:
  static constexpr unsigned kTriggers = 2;
  enum Csr : std::uint16_t { kTselect = 0x7A0, kTdata1 = 0x7A1, kTdata2 = 0x7A2, kTdata3 = 0x7A3, kTinfo = 0x7A4 };

  void reset();
  // False when `number` is not a trigger CSR.
  bool read_csr(std::uint16_t number, std::uint64_t& value) const;
  bool write_csr(std::uint16_t number, std::uint64_t value);

  // Some trigger watches instruction addresses (in any mode): Hart decodes
  // such an address into a trampoline slot (execute_address_watched).
  bool any_execute() const { return any_execute_; }
  bool any_data() const { return any_data_; }
  bool execute_address_watched(std::uint64_t address) const;
  // The trigger that fires for this instruction / data access in this mode
  // (its hit bit is set), or -1.
  int fire_execute(std::uint64_t pc, bool user);
  int fire_data(std::uint64_t address, unsigned size, bool write, bool user);

 private:
  enum : std::uint64_t {
    kLoad = 1, kStore = 2, kExecute = 4, kUser = 8, kMachine = 0x40,
    kMcontrolHit = 1ull << 20, kMcontrol6Hit0 = 1ull << 22,
  };
  static constexpr unsigned kTypeShift = 60;
  static constexpr std::uint64_t kTypeMcontrol = 2, kTypeMcontrol6 = 6, kTypeDisabled = 15;

  std::uint64_t type(unsigned trigger) const { return tdata1_[trigger] >> kTypeShift; }
  bool enabled_in(unsigned trigger, bool user) const {
    return (type(trigger) == kTypeMcontrol || type(trigger) == kTypeMcontrol6) &&
           (tdata1_[trigger] & (user ? kUser : kMachine));
  }
  void mark_hit(unsigned trigger);
  void update_summary();

  unsigned selected_ = 0;
  std::uint64_t tdata1_[kTriggers] = {};
  std::uint64_t tdata2_[kTriggers] = {};
  bool any_execute_ = false, any_data_ = false;
};

}  // namespace npuvp
