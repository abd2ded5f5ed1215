// MteUnit: the AI Core's data movers. MTE2 brings data from global memory
// (through the core's bus interface, over the ring) into L1 or UB; MTE3 takes
// UB to global memory or to L1; MTE1 moves L1 into L0A/L0B with the fractal
// layouts, transpose and img2col. "Multi-in, single-out": nothing leaves the
// core except from UB, and there is no L1 -> UB path ([davinci] §5.2,
// docs/references.md; docs/ai-core.md, "Structure").
//
// Timing of one instruction: path latency + bytes / path bandwidth. GM
// transfers are split into transactions of at most max_transaction_bytes,
// issued back to back at the path bandwidth; the instruction ends when both
// the last transaction has completed on the bus and the formula's time is up.
#pragma once

#include "npu/npu_types.h"

#include <array>
#include <vector>

namespace npuvp {

struct MtePath {
  std::uint64_t latency_cycles;
  std::uint64_t bytes_per_cycle;
};

struct MteTiming {
  MtePath mte1{8, 256};   // L1 -> L0A/L0B
  MtePath mte2{16, 64};   // GM -> L1/UB
  MtePath mte3{16, 64};   // UB -> GM/L1
  std::uint64_t max_transaction_bytes = 512;
  // Transactions of one instruction in flight at once (0: no limit): the next is issued only
  // once the one max_outstanding before it has completed. A core's bus interface takes data
  // no faster than its ring link delivers it, so a path that issues faster than the link
  // drains is held back instead of booking a shared target (the L2's or the DDR's port) far
  // ahead of its data and shutting the other cores out (docs/ai-core.md, "Timing").
  std::uint64_t max_outstanding = 32;  // 16 KiB of 512-byte transactions: 64 B/cycle over a loaded round trip of 256 cycles
};

class MteUnit {
 public:
  static constexpr std::uint64_t kMaxOutstandingLimit = 64;  // largest MteTiming::max_outstanding

  MteUnit(LocalBuffers& buffers, GlobalMemoryPort& global, const MteTiming& timing)
      : buffers_(buffers), global_(global), timing_(timing) {}
  // Executes an MTE1/MTE2/MTE3 operation starting at core cycle `start_cycle`;
  // throws KernelFault on bad operands or a bus error.
  UnitResult execute(const NpuInstruction& instruction, std::uint64_t start_cycle);

 private:
  // A GM stream: transactions issued back to back at the path bandwidth.
  struct GmStream {
    std::uint64_t start_cycle, issue_base;  // issue_base = start + latency
    std::uint64_t bytes_per_cycle;
    std::uint64_t bytes_issued = 0;         // bytes of earlier transactions
    std::uint64_t last_completion = 0;      // latest completion cycle seen
    std::uint64_t transactions = 0;         // issued so far
    // completion cycles of the last transactions, by transaction number
    std::array<std::uint64_t, kMaxOutstandingLimit> completions{};
  };
  void gm_transfer(GmStream& stream, bool write, std::uint64_t address, std::uint8_t* data, std::uint64_t length);
  UnitResult copy_gm_to_local(const NpuInstruction& instruction, std::uint64_t start_cycle);
  UnitResult copy_ub_to_gm(const NpuInstruction& instruction, std::uint64_t start_cycle);
  UnitResult copy_ub_to_l1(const NpuInstruction& instruction);
  UnitResult copy_gm_to_l1_nd2nz(const NpuInstruction& instruction, std::uint64_t start_cycle);
  UnitResult load_2d(const NpuInstruction& instruction);
  UnitResult img2col(const NpuInstruction& instruction);

  LocalBuffers& buffers_;
  GlobalMemoryPort& global_;
  MteTiming timing_;
  std::vector<std::uint8_t> row_scratch_;  // nd2nz: one GM row, padded to whole column groups
};

}  // namespace npuvp
