// CubeUnit: the Cube and its accumulator. mmad multiplies A (L0A, "big-Z
// small-Z" fractals) by B (L0B, "big-Z small-N") into C (L0C, "big-N
// small-Z"), f16 x f16 -> f32 or s8 x s8 -> s32, initialising (optionally
// from a bias row in UB) or accumulating. Numerics: every f16 product is exact
// in f32; products are added to the accumulator one k at a time in increasing
// k, each addition rounded to nearest even (docs/ai-core.md). s32 wraps.
#pragma once

#include "npu/npu_types.h"

#include <vector>

namespace npuvp {

struct CubeTiming {
  std::uint64_t cycles_per_fractal = 2;  // one 16x16x16 f16 (or 16x32x16 s8) step
  std::uint64_t startup_cycles = 16;     // pipeline fill per instruction
};

class CubeUnit {
 public:
  CubeUnit(LocalBuffers& buffers, const CubeTiming& timing) : buffers_(buffers), timing_(timing) {}
  // Executes Op::kMmad; throws KernelFault on bad operands.
  UnitResult execute(const NpuInstruction& instruction);
  // Peak multiply-accumulates per cycle for `type` (for utilisation).
  double peak_macs_per_cycle(xdavinci::DataType type) const;

 private:
  LocalBuffers& buffers_;
  CubeTiming timing_;
  // Scratch reused across instructions (no allocation after warm-up): A as
  // Mp x Kp row-major values, B as Nf panels of Kp x 16 (n contiguous).
  std::vector<float> a_f32_, b_f32_;
  std::vector<std::uint32_t> a_s32_, b_s32_;
};

}  // namespace npuvp
