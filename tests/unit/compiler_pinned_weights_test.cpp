// Pinned weights (docs/compiler.md "Pinned weights"): the compiler keeps the weights of the
// Conv layers the tiling planner models faster with them in the L2 buffer there, best saving
// per byte first, in the L2 the activation arena leaves free; the package names them
// (header.pinned_offset, pinned_bytes; a constants argument with its l2_args bit) and the
// runtime copies them into the L2 once. A compiled model gives the same output with and
// without them, never plans more than the L2 holds, and pins nothing where the L2 is no
// faster than the DDR.
#include <gtest/gtest.h>

#include "compiler_package_emulator.h"
#include "compiler_test_support.h"
#include "memory_plan.h"
#include "program.h"
#include "soc_buffers.h"
#include "tiling_planner.h"

namespace npuvp::compiler::test {
namespace {

constexpr std::uint64_t kBigWeightBytes = 256 * 256 * 9 * 2;  // the 3 x 3 256 -> 256 Conv's
constexpr std::uint64_t kSmallWeightBytes = 256 * 32 * 2;     // the 1 x 1 256 -> 32 Conv's

// Two Convs on a 14 x 14 map: a 3 x 3 256 -> 256 whose 1.18 MB of weights the default DDR
// brings in far slower than its Cube uses them, then a 1 x 1 256 -> 32 (named `small_name`:
// ONNX does not require node names to differ).
OnnxBuilder ddr_bound_network(const std::string& small_name = "small") {
  OnnxBuilder b;
  b.input("x", {1, 256, 14, 14});
  b.random_constant("w1", {256, 256, 3, 3}, 0.02f);
  b.random_constant("w2", {32, 256, 1, 1}, 0.05f);
  auto& c1 = b.node("Conv", {"x", "w1"}, {"c1"}, "big");
  OnnxBuilder::attr(c1, "pads", Dims{1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"r1"});
  b.node("Conv", {"r1", "w2"}, {"y"}, small_name);
  b.output("y", {1, 32, 14, 14});
  return b;
}

const LayerSummary& layer_named(const CompiledModel& model, const std::string& name) {
  for (const auto& layer : model.layers)
    if (layer.name == name) return layer;
  throw std::runtime_error("no layer " + name);
}

TEST(CompilerPinnedWeights, DdrBoundWeightsGoToTheL2AndTheOutputStaysTheSame) {
  OnnxBuilder b = ddr_bound_network();
  const std::string bytes = b.bytes();
  CompileOptions unpinned_options;
  unpinned_options.pin_weights = false;
  const CompiledModel pinned = compile_onnx_bytes(bytes, {}), unpinned = compile_onnx_bytes(bytes, unpinned_options);

  EXPECT_EQ(unpinned.pinned_bytes, 0u);
  EXPECT_EQ(unpinned.pinned_layers, 0u);
  EXPECT_EQ(PackageView(unpinned.package).header.pinned_bytes, 0u);
  ASSERT_GE(pinned.pinned_layers, 1u);
  EXPECT_GE(pinned.pinned_bytes, kBigWeightBytes);
  EXPECT_LE(pinned.pinned_bytes + pinned.l2_arena_bytes, std::uint64_t(SocDescription{}.l2_bytes));

  // The package: the pinned weights at the constants' end, 64-byte aligned, the big Conv's
  // weights argument relative to them.
  PackageView package(pinned.package);
  EXPECT_EQ(package.header.pinned_bytes, pinned.pinned_bytes);
  EXPECT_EQ(package.header.pinned_offset % 64, 0u);
  EXPECT_EQ(package.header.pinned_offset + package.header.pinned_bytes, package.header.constants_bytes);
  const auto convs = package.launches_of(NPUVP_OP_KERNEL_CONV);
  ASSERT_EQ(convs.size(), 2u);
  EXPECT_TRUE((convs[0].l2_args >> NPUVP_CONV_WEIGHTS) & 1u);
  EXPECT_EQ(relocation_of(convs[0], NPUVP_CONV_WEIGHTS), unsigned(NPUVP_RELOC_CONSTANTS));
  EXPECT_LT(convs[0].args[NPUVP_CONV_WEIGHTS], package.header.pinned_bytes);

  // The report: the big Conv reads its weights from the L2, which its roofline counts there.
  const LayerSummary &big = layer_named(pinned, "big"), &big_in_ddr = layer_named(unpinned, "big");
  EXPECT_NE(big.tiling.find("weights-in-L2"), std::string::npos) << big.tiling;
  EXPECT_EQ(big_in_ddr.tiling.find("weights-in-L2"), std::string::npos) << big_in_ddr.tiling;
  EXPECT_EQ(big.min_bytes, big_in_ddr.min_bytes);
  EXPECT_LE(big.min_ddr_bytes + kBigWeightBytes, big_in_ddr.min_ddr_bytes);
  EXPECT_GE(big.min_l2_bytes, big_in_ddr.min_l2_bytes + kBigWeightBytes);
  EXPECT_LT(big.roofline_cycles, big_in_ddr.roofline_cycles);

  const std::vector<float> x = b.random({1, 256, 14, 14});
  const std::vector<float> from_l2 = PackageEmulator(pinned.package).run(x);
  const std::vector<float> from_ddr = PackageEmulator(unpinned.package).run(x);
  ASSERT_EQ(from_l2.size(), std::size_t(32 * 14 * 14));
  EXPECT_EQ(from_l2, from_ddr);
}

TEST(CompilerPinnedWeights, PinnedWeightsAndTheL2ArenaFitTheL2) {
  const std::string bytes = ddr_bound_network().bytes();
  for (const double l2_bytes : {128.0 * 1024, 512.0 * 1024, 1536.0 * 1024, 8.0 * 1024 * 1024}) {
    SCOPED_TRACE(l2_bytes);
    CompileOptions options;
    options.soc.l2_bytes = l2_bytes;
    const CompiledModel model = compile_onnx_bytes(bytes, options);
    EXPECT_LE(double(model.pinned_bytes + model.l2_arena_bytes), l2_bytes);
    // The big Conv's weights are pinned exactly where they fit beside the arena.
    const bool big_fits = double(kBigWeightBytes + model.l2_arena_bytes) <= l2_bytes;
    EXPECT_EQ(layer_named(model, "big").tiling.find("weights-in-L2") != std::string::npos, big_fits) << model.l2_arena_bytes;
  }
}

// Layers are told apart by their index, not their name: with both Convs named "big", an L2 that
// holds only the small one's 16 KB of weights beside the arena pins those and not the others.
TEST(CompilerPinnedWeights, LayersWithTheSameNameArePinnedApart) {
  OnnxBuilder b = ddr_bound_network("big");
  CompileOptions options;
  const CompiledModel roomy = compile_onnx_bytes(b.bytes(), options);
  EXPECT_EQ(roomy.pinned_bytes, kBigWeightBytes + kSmallWeightBytes);
  options.soc.l2_bytes = double(roomy.l2_arena_bytes + kSmallWeightBytes);
  const CompiledModel tight = compile_onnx_bytes(b.bytes(), options);
  EXPECT_EQ(tight.pinned_layers, 1u);
  EXPECT_EQ(tight.pinned_bytes, kSmallWeightBytes);
  unsigned pinned_layers = 0;
  for (const auto& layer : tight.layers) pinned_layers += layer.tiling.find("weights-in-L2") != std::string::npos;
  EXPECT_EQ(pinned_layers, 1u);
  CompileOptions unpinned;
  unpinned.pin_weights = false;
  const std::vector<float> x = b.random({1, 256, 14, 14});
  EXPECT_EQ(PackageEmulator(tight.package).run(x), PackageEmulator(compile_onnx_bytes(b.bytes(), unpinned).package).run(x));
}

TEST(CompilerPinnedWeights, NothingIsPinnedWithAnL2NoFasterThanTheDdr) {
  CompileOptions options;
  options.soc.l2_bytes_per_second = options.soc.ddr_bytes_per_second;
  EXPECT_EQ(compile_onnx_bytes(ddr_bound_network().bytes(), options).pinned_bytes, 0u);
  CompileOptions no_l2;
  no_l2.soc.l2_bytes = 0;
  EXPECT_EQ(compile_onnx_bytes(ddr_bound_network().bytes(), no_l2).pinned_bytes, 0u);
}

// The planner: a Conv whose weights the DDR brings in slower than the Cube uses them is
// modelled faster with them in the L2; with an L2 no faster, the same.
TEST(CompilerPinnedWeights, ThePlannerModelsWeightsFromTheFasterL2Sooner) {
  ConvProblem in_ddr{1, 16, 14, 14, 256, 3, 3, 14, 14, 1, 1, true, true};
  ConvProblem in_l2 = in_ddr;
  in_l2.weights_in_l2 = true;
  SocDescription description;
  const SocBuffers soc = build_soc_buffers(description);
  const ConvTiling from_ddr = plan_conv(soc, in_ddr, true), from_l2 = plan_conv(soc, in_l2, true);
  EXPECT_LT(from_l2.cycles, 0.6 * from_ddr.cycles) << from_ddr.text() << " / " << from_l2.text();

  description.l2_bytes_per_second = description.ddr_bytes_per_second;
  const SocBuffers slow = build_soc_buffers(description);
  EXPECT_DOUBLE_EQ(plan_conv(slow, in_l2, true).cycles, plan_conv(slow, in_ddr, true).cycles);
}

// The choice: the most modelled cycles saved per byte first, each candidate taken when it
// fits what is left (a later, smaller one may fit where a larger did not).
TEST(CompilerPinnedWeights, TheBestSavingPerByteIsPinnedFirst) {
  Program program;
  program.pinned_candidates = {{0, 1000, 1000},  // 1.0 per (aligned: 1024) byte
                               {1, 4096, 8192},  // 2.0
                               {2, 2048, 1024},  // 0.5
                               {3, 64, 16}};     // 0.25
  EXPECT_EQ(choose_pinned_weights(program, 0), (std::set<std::uint32_t>{}));
  EXPECT_EQ(choose_pinned_weights(program, 4096), (std::set<std::uint32_t>{1}));
  EXPECT_EQ(choose_pinned_weights(program, 4096 + 1024 + 64), (std::set<std::uint32_t>{1, 0, 3}));
  EXPECT_EQ(choose_pinned_weights(program, 4096 + 1024 + 2048), (std::set<std::uint32_t>{1, 0, 2}));
  EXPECT_EQ(choose_pinned_weights(program, 3000), (std::set<std::uint32_t>{0, 3}));  // 2 no longer fits
}

// Compute-bound layers (by the roofline, with their weights in DDR) first, each group by saving
// per byte: their Cube waits for weights the model's roofline terms do not see.
TEST(CompilerPinnedWeights, ComputeBoundLayersArePinnedFirst) {
  Program program;
  program.pinned_candidates = {{0, 4096, 8192, false},  // memory-bound, 2.0 per byte
                               {1, 4096, 1024, true},   // compute-bound, 0.25
                               {2, 1024, 512, true},    // compute-bound, 0.5
                               {3, 1024, 4096, false}}; // memory-bound, 4.0
  EXPECT_EQ(choose_pinned_weights(program, 1024), (std::set<std::uint32_t>{2}));  // not 3
  EXPECT_EQ(choose_pinned_weights(program, 5120), (std::set<std::uint32_t>{1, 2}));
  EXPECT_EQ(choose_pinned_weights(program, 6144), (std::set<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(choose_pinned_weights(program, 3072), (std::set<std::uint32_t>{2, 3}));
}

// ResNet-50's layer1 3 x 3 on the default SoC: compute-bound by the roofline, its weights pinned.
TEST(CompilerPinnedWeights, TheRooflineMarksComputeBoundCandidates) {
  OnnxBuilder b;
  b.input("x", {1, 64, 56, 56});
  b.random_constant("w", {64, 64, 3, 3}, 0.05f);
  auto& conv = b.node("Conv", {"x", "w"}, {"y"}, "conv3x3");
  OnnxBuilder::attr(conv, "pads", Dims{1, 1, 1, 1});
  b.output("y", {1, 64, 56, 56});
  const CompiledModel model = compile_onnx_bytes(b.bytes(), {});
  const LayerSummary& layer = layer_named(model, "conv3x3");
  EXPECT_TRUE(layer.compute_bound);
  EXPECT_NE(layer.tiling.find("weights-in-L2"), std::string::npos) << layer.tiling;
}

}  // namespace
}  // namespace npuvp::compiler::test
