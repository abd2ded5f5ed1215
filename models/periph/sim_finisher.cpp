#include "periph/sim_finisher.h"

#include "core/simulation.h"
#include "core/text.h"

namespace npuvp {

SimFinisher::SimFinisher(sc_core::sc_module_name name) : MmioDevice(name, kWindowSize) {}

bool SimFinisher::read(std::uint64_t offset, unsigned size, std::uint64_t& value, sc_core::sc_time& delay) {
  if (size == 1) return false;
  value = 0;
  return true;
}

bool SimFinisher::peek(std::uint64_t offset, unsigned size, std::uint64_t& value) {
  if (size == 1) return false;
  value = 0;
  return true;
}

bool SimFinisher::write(std::uint64_t offset, unsigned size, std::uint64_t value, sc_core::sc_time& delay) {
  if (size == 1) return false;
  if (offset == kRegionOfInterest) mark_region(static_cast<std::uint32_t>(value), delay);
  if (offset != 0) return true;
  std::uint32_t command = static_cast<std::uint32_t>(value);
  std::uint32_t status = command & 0xFFFF;
  int code = static_cast<int>(command >> 16);
  if (status == kPass) {
    simulation().request_exit(0, name());
  } else if (status == kFail) {
    simulation().request_exit(code, name());
  } else if (status == kReset) {
    simulation().fail(ExitStatus::kGuestError,
                      std::string(name()) + ": reset requested via sim-control is not supported (wrote " +
                          hex(command) + ")");
  } else {
    simulation().fail(ExitStatus::kGuestError,
                      std::string(name()) + ": unknown sim-control command " + hex(command) +
                          " (expected 0x5555 pass or (code << 16) | 0x3333 fail)");
  }
  return true;
}

void SimFinisher::mark_region(std::uint32_t value, const sc_core::sc_time& delay) {
  if (value != kRegionBegin && value != kRegionEnd) {
    simulation().fail(ExitStatus::kGuestError, std::string(name()) + ": unknown region-of-interest mark " + hex(value) +
                                                   " (expected " + hex(kRegionBegin) + " begin or " + hex(kRegionEnd) +
                                                   " end)");
    return;
  }
  if (region_observer_) region_observer_(value == kRegionBegin, sc_core::sc_time_stamp() + delay);
}

}  // namespace npuvp
