// HTIF host interface as used by Spike, riscv-tests and QEMU: two 64-bit
// mailboxes, `tohost` (guest -> host) and `fromhost` (host -> guest), each its
// own 8-byte target (children `tohost` and `fromhost`; the platform maps them
// at the addresses of the ELF's `tohost` and `fromhost` symbols).
//
// A non-zero value v written to tohost is a command: device = v >> 56,
// command = (v >> 48) & 0xff, payload = v & 0xffff'ffff'ffff.
//   device 0, command 0, payload odd:  exit with code payload >> 1 (riscv-tests
//                                      write 1 for pass, (test << 1) | 1 for fail)
//   device 0, command 0, payload even: a proxied system call (riscv-pk): not
//                                      supported -> guest error
//   device 1, command 1:               console putchar (payload & 0xff) to
//                                      `output`; fromhost becomes (1 << 56) | (1 << 48)
//   anything else:                     guest error naming the value
// Like Spike's host, the device clears tohost once it has taken a command, so
// code that waits for tohost to read zero proceeds at once. Writing 0 to
// tohost does nothing. Reads return the current value of each mailbox; the
// guest may write fromhost (to clear an acknowledgement).
//
// Access sizes: 8 bytes, or 4 bytes to either half. An RV32 guest writes the
// low half first and the high half second (the order riscv-tests and compiled
// 64-bit stores use); the command is taken when the high half (or the whole
// doubleword) is written.
#pragma once

#include "core/console.h"
#include "core/parameters.h"
#include "core/statistics.h"
#include "periph/mmio_device.h"

#include <cstdint>
#include <string>

namespace npuvp {

class Htif : public sc_core::sc_module {
 public:
  explicit Htif(sc_core::sc_module_name name);

  // One 8-byte mailbox; `socket` is its TLM target socket.
  class Mailbox : public MmioDevice {
   public:
    Mailbox(sc_core::sc_module_name name, Htif& owner, bool is_tohost);
    std::uint64_t value = 0;

   protected:
    bool read(std::uint64_t offset, unsigned size, std::uint64_t& value, sc_core::sc_time& delay) override;
    bool write(std::uint64_t offset, unsigned size, std::uint64_t value, sc_core::sc_time& delay) override;
    bool peek(std::uint64_t offset, unsigned size, std::uint64_t& value) override;

   private:
    Htif& owner_;
    bool is_tohost_;
  };

  Parameter<std::string> output{child_name(*this, "output"), "stdout", "",
                                "where console output goes: stdout, stderr, none or a file path"};

  Mailbox tohost;
  Mailbox fromhost;
  // Bind the bus to these (8 bytes each).
  tlm_utils::simple_target_socket<MmioDevice>& tohost_socket;
  tlm_utils::simple_target_socket<MmioDevice>& fromhost_socket;

  Counter commands{child_name(*this, "commands"), "commands", "commands taken from tohost"};
  Counter console_bytes{child_name(*this, "console_bytes"), "bytes", "bytes printed with the console device"};

 private:
  void execute(std::uint64_t command);
  ConsoleOutput console_;
};

}  // namespace npuvp
