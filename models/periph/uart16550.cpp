#include "periph/uart16550.h"

#include "core/simulation.h"

#include <algorithm>

namespace npuvp {

namespace {
// LCR / MCR bits.
constexpr std::uint8_t kLcrDlab = 0x80;
// MSR status when not in loopback: a connected terminal (DCD, DSR, CTS), as QEMU reports.
constexpr std::uint8_t kMsrConnected = 0xB0;

}  // namespace

Uart16550::Uart16550(sc_core::sc_module_name name)
    : MmioDevice(name, kWindowSize),
      console_(output.get()),
      host_input_(decode_byte_escapes(input.get(), input.name())) {
  last_msr_status_ = msr_status();
}

unsigned Uart16550::rx_level() const {
  unsigned capacity = fifo_enabled() ? kFifoSize : 1;
  std::size_t level = rx_fifo_.size() + input_remaining();
  return static_cast<unsigned>(std::min<std::size_t>(level, capacity));
}

unsigned Uart16550::rx_trigger_level() const {
  if (!fifo_enabled()) return 1;
  static constexpr unsigned kLevels[4] = {1, 4, 8, 14};
  return kLevels[fcr_ >> 6];
}

std::uint8_t Uart16550::lsr() const {
  std::uint8_t value = kLsrThre | kLsrTemt;
  if (data_ready()) value |= kLsrDr;
  if (overrun_) value |= kLsrOe;
  return value;
}

std::uint8_t Uart16550::msr_status() const {
  if (!loopback()) return kMsrConnected;
  // Loopback: CTS <- RTS, DSR <- DTR, RI <- OUT1, DCD <- OUT2.
  std::uint8_t value = 0;
  if (mcr_ & 0x02) value |= 0x10;
  if (mcr_ & 0x01) value |= 0x20;
  if (mcr_ & 0x04) value |= 0x40;
  if (mcr_ & 0x08) value |= 0x80;
  return value;
}

void Uart16550::update_modem_status() {
  std::uint8_t now = msr_status();
  std::uint8_t changed = now ^ last_msr_status_;
  if (changed & 0x10) msr_deltas_ |= 0x01;                            // DCTS
  if (changed & 0x20) msr_deltas_ |= 0x02;                            // DDSR
  if ((last_msr_status_ & 0x40) && !(now & 0x40)) msr_deltas_ |= 0x04;  // TERI: trailing edge
  if (changed & 0x80) msr_deltas_ |= 0x08;                            // DDCD
  last_msr_status_ = now;
}

std::uint8_t Uart16550::interrupt_id() const {
  if ((ier_ & kIerRls) && overrun_) return kIirRls;
  if ((ier_ & kIerRda) && data_ready()) {
    return rx_level() >= rx_trigger_level() ? kIirRda : kIirTimeout;
  }
  if ((ier_ & kIerThre) && thr_interrupt_) return kIirThre;
  if ((ier_ & kIerMsi) && msr_deltas_) return kIirMsi;
  return kIirNone;
}

void Uart16550::update_irq() { irq.set(interrupt_id() != kIirNone); }

void Uart16550::transmit(std::uint8_t byte) {
  ++bytes_transmitted;
  if (loopback()) {
    if (rx_fifo_.size() >= (fifo_enabled() ? kFifoSize : 1u)) overrun_ = true;
    else rx_fifo_.push_back(byte);
  } else {
    console_.put(static_cast<char>(byte));
  }
}

std::uint8_t Uart16550::read_register(unsigned reg, bool side_effects) {
  bool dlab = lcr_ & kLcrDlab;
  switch (reg) {
    case kRbrThrDll: {
      if (dlab) return dll_;
      std::uint8_t value = 0;
      if (!rx_fifo_.empty()) {
        value = rx_fifo_.front();
        if (side_effects) rx_fifo_.pop_front();
      } else if (input_remaining() > 0) {
        value = static_cast<std::uint8_t>(host_input_[host_position_]);
        if (side_effects) ++host_position_;
      } else {
        return 0;
      }
      if (side_effects) ++bytes_received;
      return value;
    }
    case kIerDlm:
      return dlab ? dlm_ : ier_;
    case kIirFcr: {
      std::uint8_t id = interrupt_id();
      if (side_effects && id == kIirThre) thr_interrupt_ = false;
      return static_cast<std::uint8_t>(id | (fifo_enabled() ? 0xC0 : 0x00));
    }
    case kLcr:
      return lcr_;
    case kMcr:
      return mcr_;
    case kLsr: {
      std::uint8_t value = lsr();
      if (side_effects) overrun_ = false;
      return value;
    }
    case kMsr: {
      std::uint8_t value = static_cast<std::uint8_t>(msr_status() | msr_deltas_);
      if (side_effects) msr_deltas_ = 0;
      return value;
    }
    case kScr:
      return scr_;
    default:
      return 0;
  }
}

void Uart16550::write_register(unsigned reg, std::uint8_t value) {
  bool dlab = lcr_ & kLcrDlab;
  switch (reg) {
    case kRbrThrDll:
      if (dlab) {
        dll_ = value;
      } else {
        transmit(value);
        // Transmission is instantaneous: THR is empty again at once.
        thr_interrupt_ = true;
      }
      break;
    case kIerDlm:
      if (dlab) {
        dlm_ = value;
      } else {
        std::uint8_t enabled = static_cast<std::uint8_t>(value & 0x0F);
        // Enabling the THR-empty interrupt while THR is empty raises it.
        if ((enabled & kIerThre) && !(ier_ & kIerThre)) thr_interrupt_ = true;
        ier_ = enabled;
      }
      break;
    case kIirFcr:
      // Bit 0 enables the FIFOs, bit 1 resets the receive FIFO (looped-back
      // bytes; host input is sent on demand and never discarded), bit 2 the
      // transmit FIFO (always empty), bits 7:6 select the trigger level.
      fcr_ = static_cast<std::uint8_t>(value & 0xC1);
      if ((value & 0x02) || !(value & 0x01)) rx_fifo_.clear();
      break;
    case kLcr:
      lcr_ = value;
      break;
    case kMcr:
      mcr_ = static_cast<std::uint8_t>(value & 0x1F);
      update_modem_status();
      break;
    case kScr:
      scr_ = value;
      break;
    default:  // LSR and MSR are read-only
      break;
  }
}

bool Uart16550::read(std::uint64_t offset, unsigned size, std::uint64_t& value, sc_core::sc_time& delay) {
  value = offset < 8 ? read_register(static_cast<unsigned>(offset), true) : 0;
  update_irq();
  return true;
}

bool Uart16550::write(std::uint64_t offset, unsigned size, std::uint64_t value, sc_core::sc_time& delay) {
  if (offset < 8) write_register(static_cast<unsigned>(offset), static_cast<std::uint8_t>(value));
  update_irq();
  return true;
}

bool Uart16550::peek(std::uint64_t offset, unsigned size, std::uint64_t& value) {
  value = offset < 8 ? read_register(static_cast<unsigned>(offset), false) : 0;
  return true;
}

}  // namespace npuvp
