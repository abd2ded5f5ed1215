// Simulation control / test finisher, compatible with QEMU's sifive_test
// device (4 KiB window; the platform maps it at 0x10_0000). A write to offset
// 0 of a 32-bit value (2-, 4- or 8-byte store; an 8-byte store uses its low
// 32 bits) ends the run or reports a guest error:
//   0x5555               pass: the run ends with guest exit code 0
//   (code << 16)|0x3333  fail: the run ends with guest exit code `code`
//                        (like QEMU, code 0 is an exit with status 0)
//   0x7777               reset: not supported -> guest error
//   anything else        guest error naming the value
// Reads return 0; writes elsewhere in the window are ignored. Single-byte
// accesses are access faults (QEMU accepts 2- to 4-byte accesses).
#pragma once

#include "core/statistics.h"
#include "periph/mmio_device.h"

#include <cstdint>

namespace npuvp {

class SimFinisher : public MmioDevice {
 public:
  static constexpr std::uint64_t kWindowSize = 0x1000;
  static constexpr std::uint32_t kPass = 0x5555;
  static constexpr std::uint32_t kFail = 0x3333;
  static constexpr std::uint32_t kReset = 0x7777;

  explicit SimFinisher(sc_core::sc_module_name name);

 protected:
  bool read(std::uint64_t offset, unsigned size, std::uint64_t& value, sc_core::sc_time& delay) override;
  bool write(std::uint64_t offset, unsigned size, std::uint64_t value, sc_core::sc_time& delay) override;
  bool peek(std::uint64_t offset, unsigned size, std::uint64_t& value) override;
};

}  // namespace npuvp
