// FakeMemory: the memory below a protocol's memory controllers in the tests
// (the protocols' unit tests through HandNetwork, hand_network.h, the
// random tester and the explorer, all through ControllerSet,
// controller_set.h): a byte array from a base address, with a fixed latency
// and a recognisable initial pattern.
#pragma once

#include "coherence/coherence.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace npuvp::coherence {

class FakeMemory final : public MemoryBackend {
 public:
  // `size` bytes at addresses base .. base + size - 1; byte a (counted from
  // the base) starts as (a * multiplier + offset) mod 256.
  FakeMemory(std::size_t size, unsigned multiplier, unsigned offset, Cycles latency, std::uint64_t base = 0)
      : bytes(size), base_(base), latency_(latency) {
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * multiplier + offset);
  }
  Cycles read_line(std::uint64_t line, std::uint8_t* data, unsigned size, bool& ok) override {
    ok = holds(line, size);
    if (ok) std::memcpy(data, at(line), size);
    return latency_;
  }
  Cycles write_line(std::uint64_t line, const std::uint8_t* data, unsigned size, bool& ok) override {
    ok = holds(line, size);
    if (ok) std::memcpy(at(line), data, size);
    ++writes;
    return latency_;
  }
  bool debug_access(bool write, std::uint64_t address, void* data, std::size_t size) override {
    if (!holds(address, size)) return false;
    if (write)
      std::memcpy(at(address), data, size);
    else
      std::memcpy(data, at(address), size);
    return true;
  }
  std::uint64_t word(std::uint64_t address) const {
    std::uint64_t value;
    std::memcpy(&value, at(address), 8);
    return value;
  }
  void set_word(std::uint64_t address, std::uint64_t value) { std::memcpy(at(address), &value, 8); }
  // The bytes at `address` (which the memory must hold).
  std::uint8_t* at(std::uint64_t address) { return &bytes[address - base_]; }
  const std::uint8_t* at(std::uint64_t address) const { return &bytes[address - base_]; }
  std::uint8_t* raw() { return bytes.data(); }

  std::vector<std::uint8_t> bytes;
  unsigned writes = 0;

 private:
  bool holds(std::uint64_t address, std::size_t size) const {
    return address >= base_ && address - base_ + size <= bytes.size();
  }

  std::uint64_t base_;
  Cycles latency_;
};

}  // namespace npuvp::coherence
