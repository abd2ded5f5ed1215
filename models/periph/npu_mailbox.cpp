#include "periph/npu_mailbox.h"

#include "core/parameters.h"
#include "core/timeline.h"

namespace npuvp {

NpuMailbox::NpuMailbox(sc_core::sc_module_name name)
    : MmioDevice(name, kWindowSize),
      doorbells_(child_name(*this, "doorbells"), "", "doorbell writes by the host"),
      host_interrupts_(child_name(*this, "host_interrupts"), "", "interrupts raised to the host") {
  SC_HAS_PROCESS(NpuMailbox);
  SC_METHOD(raise_ts_irq);
  sensitive << ts_irq_due_;
  dont_initialize();
  SC_METHOD(raise_host_irq);
  sensitive << host_irq_due_;
  dont_initialize();
}

void NpuMailbox::trace(const char* what, const sc_core::sc_time& delay) {
  Timeline& timeline = Timeline::instance();
  if (!timeline.enabled()) return;
  if (timeline_track_ < 0) timeline_track_ = timeline.track(name(), "notifications");
  timeline.instant(timeline_track_, what, sc_core::sc_time_stamp() + delay);
}

bool NpuMailbox::peek(std::uint64_t offset, unsigned size, std::uint64_t& value) {
  if (size != 8) return false;
  if (offset == kDoorbell) {
    value = pending_doorbells_;
    return true;
  }
  if (offset == kHostIrq) {
    value = host_irq.level();
    return true;
  }
  if (offset >= kScratch && offset < kScratch + kRegisterBytes * kScratchWords && offset % kRegisterBytes == 0) {
    value = scratch_[(offset - kScratch) / kRegisterBytes];
    return true;
  }
  if (offset == kDoorbellAck || offset == kHostIrqAck) {
    value = 0;
    return true;
  }
  return false;
}

bool NpuMailbox::read(std::uint64_t offset, unsigned size, std::uint64_t& value, sc_core::sc_time&) {
  return peek(offset, size, value);
}

bool NpuMailbox::write(std::uint64_t offset, unsigned size, std::uint64_t value, sc_core::sc_time& delay) {
  if (size != 8) return false;
  switch (offset) {
    case kDoorbell:
      ++pending_doorbells_;
      ++doorbells_;
      ts_irq_due_.notify(delay);
      trace("doorbell (host -> TS)", delay);
      return true;
    case kDoorbellAck:
      pending_doorbells_ = 0;
      ts_irq_due_.cancel();
      ts_irq.set(false);
      return true;
    case kHostIrq:
      if (value & 1) {
        ++host_interrupts_;
        host_irq_due_.notify(delay);
        trace("host interrupt (TS -> host)", delay);
      }
      return true;
    case kHostIrqAck:
      host_irq_due_.cancel();
      host_irq.set(false);
      return true;
    default:
      if (offset >= kScratch && offset < kScratch + kRegisterBytes * kScratchWords && offset % kRegisterBytes == 0) {
        scratch_[(offset - kScratch) / kRegisterBytes] = value;
        return true;
      }
      return false;
  }
}

}  // namespace npuvp
