// VectorUnit: masked, repeated, strided SIMD over the Unified Buffer, plus the
// L0C -> UB path (copy_matrix_cc_to_ubuf) that the reference routes through
// the Vector unit ([davinci] §4.2, "bridge role", docs/references.md).
//
// A repeat processes 8 blocks of 32 bytes (128 f16 or 64 f32/s32 lanes); the
// vector mask (128 bits) selects lanes within every repeat; masked-off lanes of
// the destination are left unchanged. Semantics per operation are in
// docs/isa-xdavinci.md.
#pragma once

#include "npu/npu_types.h"

namespace npuvp {

struct VectorTiming {
  std::uint64_t startup_cycles = 8;             // per instruction
  std::uint64_t cycles_per_repeat = 1;          // add, mul, max, compare, select, conversions, ...
  std::uint64_t complex_cycles_per_repeat = 4;  // div, exp, ln, sqrt, rsqrt, reciprocal
  std::uint64_t cc_to_ub_bytes_per_cycle = 128; // L0C -> UB (bytes read from L0C)
};

class VectorUnit {
 public:
  VectorUnit(LocalBuffers& buffers, const VectorTiming& timing) : buffers_(buffers), timing_(timing) {}
  // Executes any Pipe::kV operation; throws KernelFault on bad operands.
  UnitResult execute(const NpuInstruction& instruction);

 private:
  LocalBuffers& buffers_;
  VectorTiming timing_;
};

}  // namespace npuvp
