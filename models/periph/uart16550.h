// ns16550a-compatible UART, register-compatible with QEMU virt's UART0: a
// 256-byte window with the eight 8-bit registers at offsets 0..7 (stride 1).
//
//   offset  DLAB=0 read / write     DLAB=1
//   0       RBR / THR               DLL (divisor latch, low byte)
//   1       IER                     DLM (divisor latch, high byte)
//   2       IIR / FCR
//   3       LCR (bit 7 = DLAB)
//   4       MCR (bit 4 = loopback)
//   5       LSR (read-only)
//   6       MSR (read-only)
//   7       SCR (scratch)
// Offsets 8..255 read as zero and ignore writes. An access of any width acts
// on the register at its offset with the low byte of the data (reads are
// zero-extended), so both byte and word accessors work.
//
// Timing model: transmission is instantaneous, so THR is always empty and LSR
// always reports THRE|TEMT; the divisor latch is stored but does not slow
// anything down. Transmitted bytes go to the ConsoleOutput named by `output`.
//
// Receive model: the bytes of `input` come from a host with flow control that
// sends on demand, so the guest always finds the next input byte waiting and
// none is ever lost (an FCR receive-FIFO reset does not discard them). The
// receiver FIFO level seen by the interrupt logic is what such a host would
// have delivered: min(bytes left, 16) with FIFOs enabled, min(bytes left, 1)
// otherwise. Below the FCR trigger level the character-timeout interrupt
// (IIR 0xC) is reported at once instead of after four character times, since
// no further byte will arrive without being read. In loopback mode
// (MCR bit 4) transmitted bytes go to the receiver instead of the output
// (bounded by the FIFO size; an overflow sets LSR.OE) and MSR reflects MCR.
//
// Interrupts (IIR identification, highest priority first):
//   0x6 receiver line status (IER bit 2, LSR.OE set; cleared by reading LSR)
//   0x4 received data available / 0xC character timeout (IER bit 0)
//   0x2 THR empty (IER bit 1; set when THR empties -- immediately after every
//       THR write -- and when the enable bit goes 0->1; cleared by reading IIR
//       while it is the identified source, or by writing THR)
//   0x0 modem status (IER bit 3, MSR delta bits; cleared by reading MSR)
// IIR bits 7:6 read 11 while FIFOs are enabled (FCR bit 0). `irq` is high
// while any enabled interrupt is pending.
#pragma once

#include "core/console.h"
#include "core/interrupt.h"
#include "core/parameters.h"
#include "core/simulation.h"
#include "core/statistics.h"
#include "core/text.h"
#include "periph/mmio_device.h"

#include <cstdint>
#include <deque>
#include <string>

namespace npuvp {

class Uart16550 : public MmioDevice {
 public:
  static constexpr std::uint64_t kWindowSize = 0x100;
  static constexpr unsigned kFifoSize = 16;
  // Register offsets (byte-wide registers; software's copy is generated from these,
  // platform/soc_contract.cpp).
  static constexpr unsigned kRbrThrDll = 0, kIerDlm = 1, kIirFcr = 2, kLcr = 3, kMcr = 4, kLsr = 5, kMsr = 6,
                            kScr = 7;
  // LSR bits.
  static constexpr std::uint8_t kLsrDr = 0x01, kLsrOe = 0x02, kLsrThre = 0x20, kLsrTemt = 0x40;
  // IER bits and IIR interrupt identifications (IIR bits 3:0).
  static constexpr std::uint8_t kIerRda = 0x01, kIerThre = 0x02, kIerRls = 0x04, kIerMsi = 0x08;
  static constexpr std::uint8_t kIirNone = 0x1, kIirMsi = 0x0, kIirThre = 0x2, kIirRda = 0x4, kIirRls = 0x6,
                                kIirTimeout = 0xC, kIirIdMask = 0x0F;

  explicit Uart16550(sc_core::sc_module_name name);

  // Interrupt request; QEMU virt wires UART0 to PLIC source 10.
  InterruptLine irq;

  Parameter<std::string> output{child_name(*this, "output"), "stdout", "",
                                "where transmitted bytes go: stdout, stderr, none or a file path"};
  Parameter<std::string> input{child_name(*this, "input"), "", "",
                               "bytes the guest receives, in order; C escapes \\n \\r \\t \\\\ \\xHH "
                               "are decoded"};

  Counter bytes_transmitted{child_name(*this, "bytes_transmitted"), "bytes",
                            "bytes written to THR (sent to the output, or looped back)"};
  Counter bytes_received{child_name(*this, "bytes_received"), "bytes", "bytes the guest read from RBR"};

  // Input bytes not yet read by the guest (for tests and diagnostics).
  std::size_t input_remaining() const { return host_input_.size() - host_position_; }

 protected:
  bool read(std::uint64_t offset, unsigned size, std::uint64_t& value, sc_core::sc_time& delay) override;
  bool write(std::uint64_t offset, unsigned size, std::uint64_t value, sc_core::sc_time& delay) override;
  bool peek(std::uint64_t offset, unsigned size, std::uint64_t& value) override;

 private:
  std::uint8_t read_register(unsigned reg, bool side_effects);
  void write_register(unsigned reg, std::uint8_t value);
  void transmit(std::uint8_t byte);
  bool fifo_enabled() const { return fcr_ & 0x01; }
  bool loopback() const { return mcr_ & 0x10; }
  bool data_ready() const { return !rx_fifo_.empty() || input_remaining() > 0; }
  unsigned rx_level() const;
  unsigned rx_trigger_level() const;
  std::uint8_t lsr() const;
  std::uint8_t msr_status() const;  // MSR bits 7:4
  void update_modem_status();
  std::uint8_t interrupt_id() const;  // IIR bits 3:0
  void update_irq();

  ConsoleOutput console_;
  std::string host_input_;
  std::size_t host_position_ = 0;
  std::deque<std::uint8_t> rx_fifo_;  // looped-back bytes, read before host input
  std::uint8_t ier_ = 0, fcr_ = 0, lcr_ = 0, mcr_ = 0, scr_ = 0;
  std::uint8_t dll_ = 0, dlm_ = 0;
  std::uint8_t msr_deltas_ = 0;  // MSR bits 3:0
  std::uint8_t last_msr_status_ = 0;
  bool overrun_ = false;
  bool thr_interrupt_ = false;
};

}  // namespace npuvp
