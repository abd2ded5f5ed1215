// NpuMailbox: the doorbell between the host CPU and the task scheduler
// (docs/npu-protocol.md). The command and completion queues live in DDR; this
// device only carries the notifications and a few scratch words for the
// start-up handshake. 64-bit registers, 8-byte accesses:
//   0x00 DOORBELL      write: one more doorbell for the TS (ts_irq high);
//                      read: doorbells not yet acknowledged
//   0x08 DOORBELL_ACK  write: acknowledge them all (ts_irq low)
//   0x10 HOST_IRQ      write 1: interrupt the host (host_irq high)
//   0x18 HOST_IRQ_ACK  write: host_irq low
//   0x40 + 8i          SCRATCH[i], i = 0..7, read/write
// Under temporal decoupling a write arrives with the writer's local time
// offset: DOORBELL and HOST_IRQ raise their line at that time (a timed event),
// so the other core never acts on a notification before it was sent. The
// acknowledgements lower the line at once.
#pragma once

#include "core/interrupt.h"
#include "core/statistics.h"
#include "periph/mmio_device.h"

#include <array>
#include <cstdint>

namespace npuvp {

class NpuMailbox : public MmioDevice {
 public:
  static constexpr std::uint64_t kWindowSize = 0x1000;
  enum Register : std::uint64_t {
    kDoorbell = 0x00, kDoorbellAck = 0x08, kHostIrq = 0x10, kHostIrqAck = 0x18, kScratch = 0x40,
  };
  static constexpr unsigned kScratchWords = 8;
  static constexpr unsigned kRegisterBytes = 8;  // every register is 64-bit, accessed whole

  InterruptLine ts_irq;    // to the task scheduler (through the PLIC)
  InterruptLine host_irq;  // to the host CPU (through the PLIC)

  explicit NpuMailbox(sc_core::sc_module_name name);

 protected:
  bool read(std::uint64_t offset, unsigned size, std::uint64_t& value, sc_core::sc_time& delay) override;
  bool write(std::uint64_t offset, unsigned size, std::uint64_t value, sc_core::sc_time& delay) override;
  bool peek(std::uint64_t offset, unsigned size, std::uint64_t& value) override;

 private:
  void raise_ts_irq() { ts_irq.set(true); }
  void trace(const char* what, const sc_core::sc_time& delay);  // --trace: an instant on the timeline
  int timeline_track_ = -1;
  void raise_host_irq() { host_irq.set(true); }
  sc_core::sc_event ts_irq_due_, host_irq_due_;
  std::uint64_t pending_doorbells_ = 0;
  std::array<std::uint64_t, kScratchWords> scratch_{};
  Counter doorbells_, host_interrupts_;
};

}  // namespace npuvp
