#include "cpu/pmp.h"

namespace npuvp {

bool PhysicalMemoryProtection::configure(unsigned entries, std::uint64_t granularity_bytes) {
  if (entries != 0 && entries != 16 && entries != 64) return false;
  if (granularity_bytes < 4 || (granularity_bytes & (granularity_bytes - 1)) || granularity_bytes > (1ull << 56))
    return false;
  entries_ = entries;
  granularity_shift_ = 0;
  while ((4ull << granularity_shift_) < granularity_bytes) ++granularity_shift_;
  reset();
  return true;
}

void PhysicalMemoryProtection::reset() {
  for (unsigned entry = 0; entry < kMaxEntries; ++entry) {
    config_[entry] = 0;
    address_[entry] = 0;
  }
  locked_active_ = false;
}

std::uint64_t PhysicalMemoryProtection::address_register(unsigned entry) const {
  std::uint64_t value = address_[entry];
  const unsigned g = granularity_shift_;
  // Spec 3.7.1: with G >= 2, bits G-2:0 read as ones in NAPOT mode; with
  // G >= 1, bits G-1:0 read as zeros in OFF and TOR modes.
  if (mode(entry) == kNapot) {
    if (g >= 2) value |= (1ull << (g - 1)) - 1;
  } else if (g >= 1) {
    value &= ~((1ull << g) - 1);
  }
  return value;
}

bool PhysicalMemoryProtection::read_csr(std::uint16_t number, std::uint64_t& value) const {
  if (number >= kFirstConfigCsr && number <= kLastConfigCsr) {
    if (number & 1) return false;  // RV64: pmpcfg1, 3, ... do not exist
    const unsigned first = (number - kFirstConfigCsr) * 4;
    value = 0;
    for (unsigned byte = 0; byte < 8; ++byte)
      if (first + byte < entries_) value |= static_cast<std::uint64_t>(config_[first + byte]) << (8 * byte);
    return true;
  }
  if (number >= kFirstAddressCsr && number <= kLastAddressCsr) {
    const unsigned entry = number - kFirstAddressCsr;
    value = entry < entries_ ? address_register(entry) : 0;
    return true;
  }
  return false;
}

bool PhysicalMemoryProtection::write_csr(std::uint16_t number, std::uint64_t value) {
  if (number >= kFirstConfigCsr && number <= kLastConfigCsr) {
    if (number & 1) return false;
    const unsigned first = (number - kFirstConfigCsr) * 4;
    for (unsigned byte = 0; byte < 8; ++byte)
      if (first + byte < entries_) write_config_byte(first + byte, static_cast<std::uint8_t>(value >> (8 * byte)));
    update_locked_active();
    return true;
  }
  if (number >= kFirstAddressCsr && number <= kLastAddressCsr) {
    const unsigned entry = number - kFirstAddressCsr;
    if (entry < entries_) write_address(entry, value);
    return true;
  }
  return false;
}

void PhysicalMemoryProtection::write_config_byte(unsigned entry, std::uint8_t value) {
  if (locked(entry)) return;  // until reset
  value &= static_cast<std::uint8_t>(~0x60);  // bits 6:5 are reserved (read as zero)
  // R=0, W=1 is reserved: W is kept only with R (as Spike does).
  if (!(value & kRead)) value &= static_cast<std::uint8_t>(~kWrite);
  // NA4 cannot be selected when the granularity is above 4 bytes: NAPOT instead.
  if (granularity_shift_ >= 1 && (value & kAddressMode) == kNa4) value |= kNapot;
  config_[entry] = value;
}

void PhysicalMemoryProtection::write_address(unsigned entry, std::uint64_t value) {
  // Locked, or the upper bound of a locked TOR entry above it.
  if (locked(entry)) return;
  if (entry + 1 < entries_ && locked(entry + 1) && mode(entry + 1) == kTor) return;
  address_[entry] = value & kAddressMask;
}

void PhysicalMemoryProtection::update_locked_active() {
  locked_active_ = false;
  for (unsigned entry = 0; entry < entries_; ++entry)
    if (locked(entry) && mode(entry) != kOff) locked_active_ = true;
}

bool PhysicalMemoryProtection::allows(std::uint64_t address, unsigned size, Access access, bool user) const {
  const std::uint64_t end = address + size;  // exclusive; physical addresses stay far below 2^64
  for (unsigned entry = 0; entry < entries_; ++entry) {
    std::uint64_t low = 0, high = 0;
    switch (mode(entry)) {
      case kOff: continue;
      case kTor:
        low = entry ? address_register(entry - 1) << 2 : 0;
        high = address_register(entry) << 2;
        break;
      case kNa4:
        low = address_register(entry) << 2;
        high = low + 4;
        break;
      default: {  // NAPOT: the trailing ones give the size (8 << ones bytes)
        const std::uint64_t value = address_register(entry);
        const std::uint64_t mask = value ^ (value + 1);  // trailing ones and the zero above them
        low = (value & ~mask) << 2;
        high = low + ((mask + 1) << 2);
        break;
      }
    }
    if (!(address < high && low < end)) continue;  // TOR with low >= high matches nothing
    if (address < low || end > high) return false;  // partly inside: fails whatever the permissions
    if (!user && !locked(entry)) return true;
    return (config_[entry] & access) == access;
  }
  return !user;
}

}  // namespace npuvp
