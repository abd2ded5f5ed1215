// LayerProfiler (platform/layer_profiler.*): the AI Cores' work attributed to
// the layer index in argument word NPUVP_OP_ARG_TAG, checked against what the
// gemm kernel must do (M*K*N MACs, its operands read and its result written
// once) and against the cores' own statistics.
#include "integration/kernel_harness.h"
#include "platform/layer_profiler.h"

#include "npuvp/operator_kernels.h"

#include <gtest/gtest.h>

#include <vector>

namespace npuvp {
namespace {

using test_support::KernelRun;

constexpr std::uint64_t kA = 0x90000000, kB = 0x90100000, kC = 0x90200000;

std::vector<std::uint64_t> gemm_args(std::uint64_t m, std::uint64_t k, std::uint64_t n, std::uint64_t tag) {
  std::vector<std::uint64_t> args(NPUVP_OP_ARG_TAG + 1, 0);
  const std::vector<std::uint64_t> words{kA, kB, kC, m, k, n, 1};
  std::copy(words.begin(), words.end(), args.begin());
  args[NPUVP_OP_ARG_TAG] = tag;
  return args;
}

TEST(LayerProfiler, AttributesAGemmToItsTaggedLayer) {
  const std::uint64_t m = 64, k = 128, n = 96;
  KernelRun run("gemm", {{"soc.ai_cores", "2"}});
  LayerProfiler profiler(run.platform(), 4);
  run.write(kA, std::vector<std::uint16_t>(m * k, 0x3c00));
  run.write(kB, std::vector<std::uint16_t>(k * n, 0x3c00));
  run.set_args(gemm_args(m, k, n, 2));
  ASSERT_EQ(run.run(2, 4), 0) << run.reason();

  const auto& layers = profiler.layers();
  ASSERT_EQ(layers.size(), 4u);
  EXPECT_EQ(layers[0].blocks + layers[1].blocks + layers[3].blocks, 0u);
  const LayerProfiler::LayerActivity& layer = layers[2];
  EXPECT_EQ(layer.blocks, 4u);
  EXPECT_EQ(layer.faults, 0u);
  EXPECT_EQ(layer.macs, m * k * n);
  EXPECT_EQ(layer.macs, run.stat("soc.aicore0.cube.macs") + run.stat("soc.aicore1.cube.macs"));
  EXPECT_EQ(layer.block_cycles, run.stat("soc.aicore0.kernel_cycles") + run.stat("soc.aicore1.kernel_cycles"));
  EXPECT_GE(layer.gm_read_bytes, (m * k + k * n) * 2) << "every operand read at least once";
  EXPECT_EQ(layer.gm_write_bytes, m * n * 2) << "the result written exactly once";
  // The memories saw the MTE traffic (and, while the blocks ran, the scalar
  // units' instruction fills: more, never less).
  EXPECT_GE(layer.ddr_bytes + layer.l2_bytes, layer.gm_read_bytes + layer.gm_write_bytes);
  EXPECT_GT(layer.last_end, layer.first_start);
  EXPECT_GT(layer.cube_busy_cycles, 0u);
  EXPECT_NEAR(layer.peak_mac_cycles, static_cast<double>(m * k * n) / 2048.0, 1e-6);
  EXPECT_EQ(profiler.untagged_blocks(), 0u);
}

TEST(LayerProfiler, CountsBlocksWithoutALayerAsUntagged) {
  KernelRun run("gemm");
  LayerProfiler profiler(run.platform(), 3);
  run.set_args(gemm_args(16, 16, 16, 3));  // one past the last layer
  ASSERT_EQ(run.run(1, 2), 0) << run.reason();
  EXPECT_EQ(profiler.untagged_blocks(), 2u);
  for (const auto& layer : profiler.layers()) EXPECT_EQ(layer.blocks, 0u);
}

}  // namespace
}  // namespace npuvp
