#include "cpu/debug_triggers.h"

namespace npuvp {

void DebugTriggers::reset() {
  selected_ = 0;
  for (unsigned trigger = 0; trigger < kTriggers; ++trigger) {
    tdata1_[trigger] = kTypeMcontrol << kTypeShift;  // an mcontrol trigger, nothing enabled
    tdata2_[trigger] = 0;
  }
  update_summary();
}

bool DebugTriggers::read_csr(std::uint16_t number, std::uint64_t& value) const {
  switch (number) {
    case kTselect: value = selected_; return true;
    case kTdata1: value = tdata1_[selected_]; return true;
    case kTdata2: value = tdata2_[selected_]; return true;
    case kTdata3: value = 0; return true;
    case kTinfo:
      // Version 1 (Sdtrig 1.0) in bits 31:24; the types this trigger can be.
      value = (1ull << 24) | (1ull << kTypeMcontrol) | (1ull << kTypeMcontrol6) | (1ull << kTypeDisabled);
      return true;
    default: return false;
  }
}

bool DebugTriggers::write_csr(std::uint16_t number, std::uint64_t value) {
  switch (number) {
    case kTselect:
      if (value < kTriggers) selected_ = static_cast<unsigned>(value);
      return true;
    case kTdata1: {
      const std::uint64_t requested = value >> kTypeShift;
      std::uint64_t next = kTypeDisabled << kTypeShift;
      if (requested == kTypeMcontrol || requested == kTypeMcontrol6) {
        const std::uint64_t hit = requested == kTypeMcontrol ? kMcontrolHit : kMcontrol6Hit0;
        next = (requested << kTypeShift) | (value & (hit | kMachine | kUser | kExecute | kStore | kLoad));
      }
      tdata1_[selected_] = next;
      update_summary();
      return true;
    }
    case kTdata2: tdata2_[selected_] = value; return true;
    case kTdata3: return true;  // hardwired to zero
    case kTinfo: return true;   // read-only information; writes are ignored
    default: return false;
  }
}

bool DebugTriggers::execute_address_watched(std::uint64_t address) const {
  for (unsigned trigger = 0; trigger < kTriggers; ++trigger)
    if ((type(trigger) == kTypeMcontrol || type(trigger) == kTypeMcontrol6) && (tdata1_[trigger] & kExecute) &&
        tdata2_[trigger] == address)
      return true;
  return false;
}

int DebugTriggers::fire_execute(std::uint64_t pc, bool user) {
  for (unsigned trigger = 0; trigger < kTriggers; ++trigger) {
    if (enabled_in(trigger, user) && (tdata1_[trigger] & kExecute) && tdata2_[trigger] == pc) {
      mark_hit(trigger);
      return static_cast<int>(trigger);
    }
  }
  return -1;
}

int DebugTriggers::fire_data(std::uint64_t address, unsigned size, bool write, bool user) {
  const std::uint64_t kind = write ? kStore : kLoad;
  for (unsigned trigger = 0; trigger < kTriggers; ++trigger) {
    // Equal match on any byte of the access.
    if (enabled_in(trigger, user) && (tdata1_[trigger] & kind) && tdata2_[trigger] - address < size) {
      mark_hit(trigger);
      return static_cast<int>(trigger);
    }
  }
  return -1;
}

void DebugTriggers::mark_hit(unsigned trigger) {
  tdata1_[trigger] |= type(trigger) == kTypeMcontrol ? kMcontrolHit : kMcontrol6Hit0;
}

void DebugTriggers::update_summary() {
  any_execute_ = any_data_ = false;
  for (unsigned trigger = 0; trigger < kTriggers; ++trigger) {
    if (type(trigger) != kTypeMcontrol && type(trigger) != kTypeMcontrol6) continue;
    if (!(tdata1_[trigger] & (kMachine | kUser))) continue;
    any_execute_ |= (tdata1_[trigger] & kExecute) != 0;
    any_data_ |= (tdata1_[trigger] & (kLoad | kStore)) != 0;
  }
}

}  // namespace npuvp
