#include "periph/htif.h"

#include "core/simulation.h"
#include "core/text.h"

#include <climits>

namespace npuvp {

Htif::Htif(sc_core::sc_module_name name)
    : sc_module(name),
      tohost("tohost", *this, true),
      fromhost("fromhost", *this, false),
      tohost_socket(tohost.socket),
      fromhost_socket(fromhost.socket),
      console_(output.get()) {}

void Htif::execute(std::uint64_t command) {
  unsigned device = static_cast<unsigned>(command >> 56);
  unsigned code = static_cast<unsigned>((command >> 48) & 0xFF);
  std::uint64_t payload = command & 0xFFFFFFFFFFFFull;
  ++commands;
  if (device == 0 && code == 0) {
    if (payload & 1) {
      std::uint64_t status = payload >> 1;
      simulation().request_exit(status > INT_MAX ? INT_MAX : static_cast<int>(status), name());
      return;
    }
    simulation().fail(ExitStatus::kGuestError,
                      std::string(name()) + ": tohost = " + hex(command) +
                          " is a proxied system call (riscv-pk style, argument block at " + hex(payload) +
                          "); proxied syscalls are not supported, only exit (odd payload) and console output");
  }
  if (device == 1 && code == 1) {
    console_.put(static_cast<char>(payload & 0xFF));
    ++console_bytes;
    fromhost.value = (std::uint64_t{1} << 56) | (std::uint64_t{1} << 48);
    return;
  }
  simulation().fail(ExitStatus::kGuestError,
                    std::string(name()) + ": unsupported HTIF command tohost = " + hex(command) + " (device " +
                        std::to_string(device) + ", command " + std::to_string(code) +
                        "); supported: device 0 command 0 (exit), device 1 command 1 (putchar)");
}

Htif::Mailbox::Mailbox(sc_core::sc_module_name name, Htif& owner, bool is_tohost)
    : MmioDevice(name, 8), owner_(owner), is_tohost_(is_tohost) {}

bool Htif::Mailbox::peek(std::uint64_t offset, unsigned size, std::uint64_t& data) {
  if (size == 8 && offset == 0) data = value;
  else if (size == 4 && (offset == 0 || offset == 4)) data = (value >> (8 * offset)) & 0xFFFFFFFF;
  else return false;
  return true;
}

bool Htif::Mailbox::read(std::uint64_t offset, unsigned size, std::uint64_t& data, sc_core::sc_time& delay) {
  return peek(offset, size, data);
}

bool Htif::Mailbox::write(std::uint64_t offset, unsigned size, std::uint64_t data, sc_core::sc_time& delay) {
  if (size == 8 && offset == 0) {
    value = data;
  } else if (size == 4 && (offset == 0 || offset == 4)) {
    unsigned shift = static_cast<unsigned>(8 * offset);
    value = (value & ~(std::uint64_t{0xFFFFFFFF} << shift)) | ((data & 0xFFFFFFFF) << shift);
  } else {
    return false;
  }
  // A command is complete once its high half (or the whole doubleword) is written.
  bool complete = size == 8 || offset == 4;
  if (is_tohost_ && complete && value != 0) {
    std::uint64_t command = value;
    value = 0;  // taken by the host
    owner_.execute(command);
  }
  return true;
}

}  // namespace npuvp
