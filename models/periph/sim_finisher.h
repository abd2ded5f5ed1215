// Simulation control / test finisher, compatible with QEMU's sifive_test
// device (4 KiB window; the platform maps it at 0x10_0000). A write to offset
// 0 of a 32-bit value (2-, 4- or 8-byte store; an 8-byte store uses its low
// 32 bits) ends the run or reports a guest error:
//   0x5555               pass: the run ends with guest exit code 0
//   (code << 16)|0x3333  fail: the run ends with guest exit code `code`
//                        (like QEMU, code 0 is an exit with status 0)
//   0x7777               reset: not supported -> guest error
//   anything else        guest error naming the value
// At offset kRegionOfInterest (npuvp only; QEMU ignores writes there) a
// 32-bit write of kRegionBegin or kRegionEnd marks the edge of the program's
// region of interest (core/region_of_interest.h), reported with the writer's
// local time to the observer the platform installs; another value there is a
// guest error naming it.
// Reads return 0; writes elsewhere in the window are ignored. Single-byte
// accesses are access faults (QEMU accepts 2- to 4-byte accesses).
#pragma once

#include "core/statistics.h"
#include "periph/mmio_device.h"

#include <cstdint>
#include <functional>

namespace npuvp {

class SimFinisher : public MmioDevice {
 public:
  static constexpr std::uint64_t kWindowSize = 0x1000;
  static constexpr std::uint32_t kPass = 0x5555;
  static constexpr std::uint32_t kFail = 0x3333;
  static constexpr std::uint32_t kReset = 0x7777;
  static constexpr std::uint64_t kRegionOfInterest = 0x8;
  static constexpr std::uint32_t kRegionBegin = 1, kRegionEnd = 2;

  explicit SimFinisher(sc_core::sc_module_name name);

  // Called at each region-of-interest mark: begin (true) or end, and when
  // (the writing core's time: SystemC time plus the access's annotated delay).
  using RegionObserver = std::function<void(bool begin, const sc_core::sc_time& at)>;
  void on_region_of_interest(RegionObserver observer) { region_observer_ = std::move(observer); }

 protected:
  bool read(std::uint64_t offset, unsigned size, std::uint64_t& value, sc_core::sc_time& delay) override;
  bool write(std::uint64_t offset, unsigned size, std::uint64_t value, sc_core::sc_time& delay) override;
  bool peek(std::uint64_t offset, unsigned size, std::uint64_t& value) override;

 private:
  void mark_region(std::uint32_t value, const sc_core::sc_time& delay);
  RegionObserver region_observer_;
};

}  // namespace npuvp
