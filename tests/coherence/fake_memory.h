// FakeMemory: the memory below a protocol's memory controllers in the tests
// (the protocols' unit tests through HandNetwork, hand_network.h, and the
// random tester): a byte array with a fixed latency and a recognisable
// initial pattern.
#pragma once

#include "coherence/coherence.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace npuvp::coherence {

class FakeMemory final : public MemoryBackend {
 public:
  // `size` bytes; byte a starts as (a * multiplier + offset) mod 256.
  FakeMemory(std::size_t size, unsigned multiplier, unsigned offset, Cycles latency)
      : bytes(size), latency_(latency) {
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * multiplier + offset);
  }
  Cycles read_line(std::uint64_t line, std::uint8_t* data, unsigned size, bool& ok) override {
    ok = line + size <= bytes.size();
    if (ok) std::memcpy(data, &bytes[line], size);
    return latency_;
  }
  Cycles write_line(std::uint64_t line, const std::uint8_t* data, unsigned size, bool& ok) override {
    ok = line + size <= bytes.size();
    if (ok) std::memcpy(&bytes[line], data, size);
    ++writes;
    return latency_;
  }
  bool debug_access(bool write, std::uint64_t address, void* data, std::size_t size) override {
    if (address + size > bytes.size()) return false;
    if (write)
      std::memcpy(&bytes[address], data, size);
    else
      std::memcpy(data, &bytes[address], size);
    return true;
  }
  std::uint64_t word(std::uint64_t address) const {
    std::uint64_t value;
    std::memcpy(&value, &bytes[address], 8);
    return value;
  }
  std::uint8_t* raw() { return bytes.data(); }

  std::vector<std::uint8_t> bytes;
  unsigned writes = 0;

 private:
  Cycles latency_;
};

}  // namespace npuvp::coherence
