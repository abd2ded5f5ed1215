// Physical memory protection (RISC-V privileged spec 1.12, section 3.7): the
// pmpcfg/pmpaddr CSRs with their WARL rules, and the region check. Knows
// nothing of the hart: Hart decides when a check is needed at all (U-mode
// accesses, or M-mode ones while a locked entry is active), so that machine
// mode without locked entries pays nothing.
#pragma once

#include <cstdint>

namespace npuvp {

class PhysicalMemoryProtection {
 public:
  enum Access : std::uint8_t { kRead = 1, kWrite = 2, kExecute = 4 };
  static constexpr unsigned kMaxEntries = 64;
  static constexpr std::uint16_t kFirstConfigCsr = 0x3A0, kLastConfigCsr = 0x3AF;
  static constexpr std::uint16_t kFirstAddressCsr = 0x3B0, kLastAddressCsr = 0x3EF;

  // `entries`: 0, 16 or 64 implemented entries; `granularity_bytes`: the
  // smallest region, a power of two >= 4 (G = log2(granularity) - 2).
  // Returns false (and changes nothing) for other values.
  bool configure(unsigned entries, std::uint64_t granularity_bytes);
  unsigned entries() const { return entries_; }
  void reset();

  // pmpcfg0..15 (even numbers only on RV64: odd ones are not CSRs) and
  // pmpaddr0..63. False when `number` is not one of them. Entries beyond the
  // implemented ones read as zero and ignore writes.
  bool read_csr(std::uint16_t number, std::uint64_t& value) const;
  bool write_csr(std::uint16_t number, std::uint64_t value);

  // Whether accesses at this privilege need checking: any U-mode access when
  // entries exist (one matching no entry fails), an M-mode access only while
  // a locked entry is active.
  bool checks(bool user) const { return entries_ != 0 && (user || locked_active_); }
  // The lowest-numbered entry matching any byte of [address, address + size)
  // decides: the access fails unless the entry covers all of it and allows it
  // (M-mode: only locked entries restrict). No match: M-mode succeeds, U-mode fails.
  bool allows(std::uint64_t address, unsigned size, Access access, bool user) const;

 private:
  enum : std::uint8_t { kLock = 0x80, kAddressMode = 0x18, kOff = 0, kTor = 0x08, kNa4 = 0x10, kNapot = 0x18 };
  static constexpr std::uint64_t kAddressMask = (1ull << 54) - 1;  // physical address bits 55:2

  unsigned mode(unsigned entry) const { return config_[entry] & kAddressMode; }
  bool locked(unsigned entry) const { return config_[entry] & kLock; }
  // pmpaddr as read back (and as matched): granularity applied.
  std::uint64_t address_register(unsigned entry) const;
  void write_config_byte(unsigned entry, std::uint8_t value);
  void write_address(unsigned entry, std::uint64_t value);
  void update_locked_active();

  unsigned entries_ = 0;
  unsigned granularity_shift_ = 0;  // G
  bool locked_active_ = false;
  std::uint8_t config_[kMaxEntries] = {};
  std::uint64_t address_[kMaxEntries] = {};
};

}  // namespace npuvp
