// SiFive PLIC with QEMU virt's layout (64 MiB window, 32-bit registers):
//   0x000000 + 4*source              priority (source 0 is reserved and reads 0)
//   0x001000 + 4*word                pending bits (read-only)
//   0x002000 + 0x80*context + 4*word enable bits
//   0x200000 + 0x1000*context        priority threshold
//   0x200004 + 0x1000*context        claim (read) / complete (write)
// Registers take 4-byte accesses only (other sizes are access faults);
// unimplemented offsets in the window read as zero and ignore writes.
// Priorities and thresholds keep their low `priority_bits` bits.
//
// Sources are level-triggered through a gateway: a source that is asserted
// becomes pending; claiming clears pending and marks the source in service,
// during which the gateway forwards nothing; completing it ends the service
// and, if the source is still asserted, makes it pending again. A completion
// for a source not enabled in the completing context is ignored (as the spec
// and QEMU do).
//
// A context's `irq` line is high while some source that is pending and
// enabled for it has a priority above the context's threshold. Claim returns
// the highest-priority such source (ties: lowest ID), or 0 if there is none;
// like QEMU, a claim only considers sources above the context's threshold.
// Contexts follow QEMU virt's order: context 2*h is hart h's M-mode and
// 2*h+1 its S-mode (connect them to the hart's lines 11 = MEIP and 9 = SEIP).
#pragma once

#include "core/interrupt.h"
#include "core/parameters.h"
#include "core/statistics.h"
#include "periph/mmio_device.h"

#include <cstdint>
#include <vector>

namespace npuvp {

class Plic : public MmioDevice, public InterruptTarget {
 public:
  static constexpr std::uint64_t kWindowSize = 0x4000000;
  static constexpr std::uint64_t kPendingBase = 0x1000;
  static constexpr std::uint64_t kEnableBase = 0x2000;
  static constexpr std::uint64_t kEnableStride = 0x80;
  static constexpr std::uint64_t kContextBase = 0x200000;
  static constexpr std::uint64_t kContextStride = 0x1000;
  // Inside a context's block: the priority threshold and the claim/complete register.
  static constexpr std::uint64_t kThresholdOffset = 0, kClaimOffset = 4;
  static constexpr std::uint64_t kMaxSources = 1024;
  static constexpr std::uint64_t kMaxContexts = 15872;

  // The arguments are the defaults of the `sources` and `contexts`
  // parameters (the platform passes what it wires); configured values win.
  explicit Plic(sc_core::sc_module_name name, std::uint64_t default_sources = 96,
                std::uint64_t default_contexts = 2);

  Parameter<std::uint64_t> sources;
  Parameter<std::uint64_t> contexts;
  Parameter<std::uint64_t> priority_bits{child_name(*this, "priority_bits"), 3, "bits",
                                         "implemented bits of priorities and thresholds (QEMU virt: 3)"};

  // One interrupt output per context.
  std::vector<InterruptLine> irq;

  // InterruptTarget: `line` is the source ID, 1 .. sources-1.
  void set_interrupt(unsigned line, bool level) override;

  // State, for tests and diagnostics.
  bool pending(unsigned source) const { return pending_.at(source); }
  bool in_service(unsigned source) const { return in_service_.at(source); }

  Counter claims{child_name(*this, "claims"), "claims", "claim reads that returned a source"};
  Counter empty_claims{child_name(*this, "empty_claims"), "claims", "claim reads that returned 0"};
  Counter completions{child_name(*this, "completions"), "completions", "accepted completion writes"};
  Counter requests{child_name(*this, "requests"), "interrupts",
                   "interrupt requests forwarded by the gateways (source became pending)"};

 protected:
  bool read(std::uint64_t offset, unsigned size, std::uint64_t& value, sc_core::sc_time& delay) override;
  bool write(std::uint64_t offset, unsigned size, std::uint64_t value, sc_core::sc_time& delay) override;
  bool peek(std::uint64_t offset, unsigned size, std::uint64_t& value) override;

 private:
  bool access(std::uint64_t offset, unsigned size, bool is_write, std::uint64_t& value, bool side_effects);
  bool enabled(unsigned context, unsigned source) const;
  // Best claimable source for a context (0 if none).
  unsigned best_source(unsigned context) const;
  unsigned claim(unsigned context);
  void complete(unsigned context, std::uint64_t source);
  void gateway(unsigned source);
  void update();

  unsigned words_ = 0;  // 32-bit words of pending/enable bits
  std::uint32_t priority_mask_ = 0;
  std::vector<std::uint32_t> priority_;
  std::vector<bool> level_, pending_, in_service_;
  std::vector<std::uint32_t> enable_;  // contexts * words_
  std::vector<std::uint32_t> threshold_;
};

}  // namespace npuvp
