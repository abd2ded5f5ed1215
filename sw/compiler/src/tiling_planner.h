// The tiling planner: per Conv / MatMul launch, the tile sizes that fit the
// on-chip buffers (halved with double buffering) and minimise the modelled
// time max(Cube time, DDR time) + per-tile latency, and the task blocks that
// balance the tiles over the AI Cores. docs/compiler.md, "Tiling".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "soc_buffers.h"
#include "npuvp/conv_plan.h"

namespace npuvp::compiler {

struct ConvProblem {
  std::int64_t n, c1in, h, w, cout, kh, kw, ho, wo, stride_h, dilation_h;
  // The input and the output are in the L2 arena (memory_plan.cpp): their bytes pass the
  // L2's port, not the DDR.
  bool input_in_l2 = false, output_in_l2 = false;
  // The weights are pinned in the L2 buffer (memory_plan.h): read at the L2's bandwidth.
  bool weights_in_l2 = false;
  // A residual is added in the epilogue (op_conv.c then keeps its tiles in L0C halves).
  bool residual = false;
};
struct ConvTiling {
  std::int64_t tile_ho = 0, tile_cout = 0;  // cout a multiple of 16
  std::uint32_t blocks = 1;
  std::uint64_t l1_bytes = 0, l0c_bytes = 0;  // L1: input slices (two with double buffering) + weight panels
  std::uint64_t ddr_bytes = 0;                // modelled traffic
  double cycles = 0, cube_utilisation = 0;    // modelled
  int candidates = 0;                         // tilings evaluated
  unsigned tall = 0;                          // C tile height (conv_plan.h): 0, or 256 << tall x 128 >> tall
  bool whole_l0c = false;                     // whole-L0C tiles (conv_plan.h): 512 x 128, one at a time
  // Of `cycles`, the busiest block's C tiles one after the other as they wait for their loads
  // (resident weights, double buffered; else 0): the part of the model that sees a block's
  // first tiles wait for weights, which the roofline terms and the per-tile overhead hide.
  double timeline_cycles = 0;
  std::string text() const;
};

struct MatmulProblem {
  std::int64_t batch, m, k, n;
  bool b_shared;  // the same B for every batch (weights)
};
struct MatmulTiling {
  std::int64_t tile_m = 0, tile_n = 0;  // multiples of 16
  std::uint32_t blocks = 1;
  std::uint64_t l1_bytes = 0, l0c_bytes = 0, ddr_bytes = 0;
  double cycles = 0, cube_utilisation = 0;
  int candidates = 0;
  std::string text() const;
};

// The operator kernels' own limits the plan respects (sw/kernels/op_conv.c,
// op_matmul.c): K staged through L1 128 rows at a time, Conv C tiles at most
// 128 columns wide, MatMul tiles at most 512 x 256.
constexpr std::int64_t kPlannerKStage = 128;
constexpr std::int64_t kConvMaxColumns = NPUVP_CONV_MAX_TN;
// op_conv.c's C tiles are at most this many output positions (an M chunk)...
constexpr std::int64_t kConvTilePositions = NPUVP_CONV_TILE_POSITIONS;
// ...or, tall of height h (1, 2: conv_plan.h), kConvTilePositions << h by kConvMaxColumns >> h.
// The planner uses heights up to 1: height 2 measured slower on every layer it was chosen for
// (ResNet-50's layer2 3 x 3 with the default DDR: 61.1 k cycles, 40.7 k with height 1; 51.0 k with
// the weights stored by column groups, so not only because its 64-byte weight rows fall on one
// DDR channel of the 64-byte interleave).
constexpr unsigned kConvPlannedTall = 1;
// ...and a block's first C tile loads its input and weights in K parts of whole input channel
// groups (conv_plan.h: at most 8, each at least 8 fractal columns of K; with tn = 256-column C
// tiles up to 13 of at least 4).
inline std::int64_t conv_k_parts(std::int64_t c1in, std::int64_t k_fractals, std::uint64_t tn = NPUVP_CONV_MAX_TN) {
  const std::uint64_t groups = npuvp_conv_plan_part_groups(std::uint64_t(c1in), std::uint64_t(k_fractals), tn);
  return (c1in + std::int64_t(groups) - 1) / std::int64_t(groups);
}
constexpr std::int64_t kMatmulMaxTileM = 512, kMatmulMaxTileN = 256;
// op_matmul.c keeps a tile row's A block in L1 only up to 14 K stages (K <= 1792).
constexpr std::int64_t kMatmulResidentKStages = 14;
// The fixed cost of one tile in the operator kernels (scalar loop, the start and
// drain of the MTE2 / MTE1 / Cube / Vector / MTE3 pipeline, the epilogue's
// bias load), AI Core cycles. Calibrated on the simulated kernels: ResNet-50 and
// a 2-layer BERT encoder run fastest from 3000 up (1000: 1.01x / 2.1x slower;
// 0: 1.13x / 3.1x slower, the model then splits memory-bound layers into
// 16-wide tiles).
constexpr double kTileOverheadCycles = 3000;
// The same for a C tile of op_conv.c when the Cube is the limit: its loads, issued two tiles
// ahead, and the previous tile's write-back overlap the Cube, which loses only the start of its
// mmads and the bias row (measured on ResNet-50's 28x28 3x3 layers with HBM-class memory: the
// Cube runs on from one C tile to the next). The block's fixed costs are the fill.
constexpr double kPipelinedCTileOverheadCycles = 1000;
// A Conv unit is computed as C tiles of up to 256 positions x 128 channels; the scalar unit
// needs about this long to issue one (its loop, address arithmetic, tokens and the
// epilogue's instructions; measured ~2 k cycles per C tile on ResNet-50's 28-position
// tiles, which made those layers scalar-bound), so a core computes no faster.
constexpr double kCTileScalarCycles = 2000;
// op_conv.c's start: its arguments, the plan, the cursors, before its first load (measured
// 0.85-0.9 k cycles after the block starts, issue 19's fifth Cube session).
constexpr double kConvBlockStartCycles = 900;
// The task scheduler starts a launch's blocks about this far apart (docs/npu-protocol.md
// "Performance": ~270 cycles; 297 between the two cores of ResNet-50's layers on the default
// SoC; on 16 HBM-class cores ResNet-50's layer2 3 x 3 in 16 blocks started its last 9.7 k cycles
// after its first), so the last of B blocks on B cores ends at least (B - 1) x this later than a
// lone block would.
constexpr double kBlockDispatchCycles = 300;
// DDR time grows by this fraction per concurrent block beyond the DDR's channels
// (bandwidth / 6.4 GB/s, one LPDDR4-3200 x16 channel; at least 2): row misses
// and bank conflicts of interleaved streams. Calibrated on
// ResNet-50 at 8 AI Cores: memory-bound layers on 2 / 4 / 8 blocks took 13.2 /
// 14.8 / 16.7 ms, so the planner gives a memory-bound layer only the blocks that
// hide its Cube time.
constexpr double kDdrStreamPenalty = 0.045;
constexpr double kDdrChannelBytesPerSecond = 6.4e9;

ConvTiling plan_conv(const SocBuffers& soc, const ConvProblem& problem, bool double_buffering);
MatmulTiling plan_matmul(const SocBuffers& soc, const MatmulProblem& problem, bool double_buffering);

// Task blocks for `units` independent pieces of work: min(units, ai_cores)
// balances them (each core gets ceil or floor of units / cores).
std::uint32_t balanced_blocks(const SocBuffers& soc, std::int64_t units);
// The block counts the planner tries: 1, 2, 4, ... and min(units, ai_cores).
std::vector<std::uint32_t> block_candidates(const SocBuffers& soc, std::int64_t units);

}  // namespace npuvp::compiler
