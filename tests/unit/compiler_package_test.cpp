// The package image: every header field and section, relocations inside their
// regions, the layer tag, the Conv weight / bias layouts against the formula,
// and the memory plan (liveness reuse, no two live buffers overlapping).
#include <gtest/gtest.h>

#include "compiler_test_support.h"
#include "fp16.h"
#include "import.h"
#include "lowering.h"
#include "memory_plan.h"
#include "passes.h"

namespace npuvp::compiler::test {
namespace {

// Conv(20 -> 18, 3x3) + Relu, Conv(18 -> 18), Add residual, Flatten, MatMul.
OnnxBuilder small_cnn(std::vector<float>* weights = nullptr, std::vector<float>* bias = nullptr) {
  OnnxBuilder b;
  b.input("x", {1, 20, 6, 6});
  auto w = b.random_constant("w1", {18, 20, 3, 3});
  auto bb = b.random_constant("b1", {18});
  if (weights) *weights = w;
  if (bias) *bias = bb;
  b.random_constant("w2", {18, 18, 3, 3}, 0.2f);
  b.random_constant("fc", {18 * 36, 10}, 0.1f);
  auto& c1 = b.node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1");
  OnnxBuilder::attr(c1, "pads", Dims{1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"r1"});
  auto& c2 = b.node("Conv", {"r1", "w2"}, {"c2"}, "conv2");
  OnnxBuilder::attr(c2, "pads", Dims{1, 1, 1, 1});
  b.node("Add", {"c2", "r1"}, {"s"});
  b.node("Flatten", {"s"}, {"f"});
  b.node("MatMul", {"f", "fc"}, {"y"}, "fc");
  b.output("y", {1, 10});
  return b;
}

std::uint64_t align64(std::uint64_t v) { return (v + 63) / 64 * 64; }

TEST(CompilerPackage, HeaderAndSections) {
  CompileOptions options;
  options.soc.ai_cores = 4;
  const CompiledModel model = compile_onnx_bytes(small_cnn().bytes(), options);
  PackageView p(model.package);
  const auto& h = p.header;
  EXPECT_EQ(h.magic, NPUVP_PACKAGE_MAGIC);
  EXPECT_EQ(h.version, NPUVP_PACKAGE_VERSION);
  EXPECT_EQ(h.total_bytes, model.package.size());
  EXPECT_EQ(h.ai_cores, 4u);
  EXPECT_EQ(h.streams, 1u);
  EXPECT_EQ(p.string(h.model_name), "test_model");
  const std::uint64_t offsets[] = {h.strings_offset, h.layers_offset, h.launches_offset, h.tensors_offset,
                                   h.constants_offset, h.io_offset, h.profile_offset, h.total_bytes};
  for (size_t k = 0; k + 1 < std::size(offsets); ++k) {
    EXPECT_EQ(offsets[k] % NPUVP_PACKAGE_ALIGN, 0u);
    EXPECT_LE(offsets[k], offsets[k + 1]);
  }
  EXPECT_GE(h.layers_offset - h.strings_offset, h.strings_bytes);
  EXPECT_GE(h.launches_offset - h.layers_offset, h.layer_count * sizeof(npuvp_package_layer));
  EXPECT_GE(h.tensors_offset - h.launches_offset, h.launch_count * sizeof(npuvp_package_launch));
  EXPECT_GE(h.constants_offset - h.tensors_offset, h.tensor_count * sizeof(npuvp_package_tensor));
  EXPECT_EQ(h.profile_bytes, h.launch_count * sizeof(npuvp_package_profile));
  EXPECT_EQ(h.arena_bytes, model.arena_bytes);
  EXPECT_EQ(h.l2_arena_bytes, model.l2_arena_bytes);
  EXPECT_LE(h.l2_arena_bytes, options.soc.l2_bytes);
  EXPECT_EQ(h.layer_count, model.layers.size());
  for (std::uint64_t k = h.profile_offset; k < h.profile_offset + h.profile_bytes; ++k) ASSERT_EQ(model.package[k], 0);

  // Layers cover the launches in order; every launch carries its layer in the tag word.
  std::uint32_t next = 0;
  for (std::uint32_t l = 0; l < h.layer_count; ++l) {
    const auto layer = p.layer(l);
    EXPECT_EQ(layer.first_launch, next);
    EXPECT_GE(layer.launch_count, 1u);
    EXPECT_EQ(p.string(layer.name), model.layers[l].name);
    EXPECT_EQ(p.string(layer.op), model.layers[l].op);
    EXPECT_EQ(layer.macs, model.layers[l].macs);
    for (std::uint32_t k = layer.first_launch; k < layer.first_launch + layer.launch_count; ++k) {
      const auto launch = p.launch(k);
      EXPECT_EQ(launch.layer, l);
      EXPECT_EQ(launch.args[NPUVP_OP_ARG_TAG], l);
      EXPECT_EQ(relocation_of(launch, NPUVP_OP_ARG_TAG), unsigned(NPUVP_RELOC_NONE));
      EXPECT_EQ(launch.nargs, NPUVP_PACKAGE_MAX_ARGS);
      EXPECT_EQ(launch.stream, 0);
      EXPECT_EQ(launch.wait_events, 0u);
      EXPECT_EQ(launch.record_event, -1);
      EXPECT_GE(launch.kernel, std::uint32_t(NPUVP_OP_KERNEL_FIRST));
      EXPECT_LE(launch.kernel, std::uint32_t(NPUVP_OP_KERNEL_LAST));
      EXPECT_GE(launch.blocks, 1u);
      EXPECT_LE(launch.blocks, 4u);
    }
    next += layer.launch_count;
  }
  EXPECT_EQ(next, h.launch_count);
  EXPECT_EQ(model.layers[1].op, "Conv+Relu");
  EXPECT_EQ(model.layers[2].op, "Conv+Add");

  // The io tensors: ND f16 in the ONNX shape.
  ASSERT_EQ(h.tensor_count, 2u);
  const auto in = p.tensor(0), out = p.tensor(1);
  EXPECT_EQ(p.string(in.name), "x");
  EXPECT_EQ(in.role, unsigned(NPUVP_TENSOR_INPUT));
  EXPECT_EQ(in.type, unsigned(NPUVP_TENSOR_F16));
  EXPECT_EQ(in.rank, 4u);
  EXPECT_EQ(in.dims[1], 20u);
  EXPECT_EQ(in.bytes, 20u * 36 * 2);
  EXPECT_EQ(in.io_offset, 0u);
  EXPECT_EQ(p.string(out.name), "y");
  EXPECT_EQ(out.role, unsigned(NPUVP_TENSOR_OUTPUT));
  EXPECT_EQ(out.rank, 2u);
  EXPECT_EQ(out.bytes, 20u);
  EXPECT_EQ(out.io_offset, align64(in.bytes));
  EXPECT_LE(out.io_offset + out.bytes, h.io_bytes);
}

TEST(CompilerPackage, RelocatedArgumentsStayInTheirRegions) {
  const CompiledModel model = compile_onnx_bytes(small_cnn().bytes(), {});
  PackageView p(model.package);
  int constants = 0, arena = 0, io = 0;
  for (std::uint32_t k = 0; k < p.header.launch_count; ++k) {
    const auto launch = p.launch(k);
    for (unsigned a = 0; a < NPUVP_PACKAGE_MAX_ARGS; ++a) {
      const bool in_l2 = (launch.l2_args >> a) & 1u;
      if (in_l2) {
        EXPECT_TRUE(relocation_of(launch, a) == NPUVP_RELOC_ARENA || relocation_of(launch, a) == NPUVP_RELOC_CONSTANTS);
      }
      switch (relocation_of(launch, a)) {
        case NPUVP_RELOC_CONSTANTS:
          ++constants;
          EXPECT_LT(launch.args[a], in_l2 ? p.header.pinned_bytes : p.header.constants_bytes);
          break;
        case NPUVP_RELOC_ARENA:
          ++arena;
          EXPECT_LT(launch.args[a], in_l2 ? p.header.l2_arena_bytes : p.header.arena_bytes);
          break;
        case NPUVP_RELOC_IO: ++io; EXPECT_LT(launch.args[a], p.header.io_bytes); break;
        default: break;
      }
    }
  }
  EXPECT_GE(constants, 4);  // 2 conv weights, a bias, the fc weights
  EXPECT_GE(arena, 6);
  EXPECT_EQ(io, 3);  // the input conversion reads x (16 channels, then the other 4); the fc writes y
}

TEST(CompilerPackage, ConvWeightsAndBiasFollowTheKernelLayout) {
  std::vector<float> w, bias;
  const CompiledModel model = compile_onnx_bytes(small_cnn(&w, &bias).bytes(), {});
  PackageView p(model.package);
  const auto convs = p.launches_of(NPUVP_OP_KERNEL_CONV);
  ASSERT_EQ(convs.size(), 2u);
  const auto& l = convs[0];
  ASSERT_EQ(relocation_of(l, NPUVP_CONV_WEIGHTS), unsigned(NPUVP_RELOC_CONSTANTS));
  const bool pinned = (l.l2_args >> NPUVP_CONV_WEIGHTS) & 1u;  // then relative to the pinned weights
  EXPECT_EQ(l.args[NPUVP_CONV_CIN], 20u);
  EXPECT_EQ(l.args[NPUVP_CONV_COUT], 18u);
  EXPECT_EQ(l.args[NPUVP_CONV_ACT], unsigned(NPUVP_ACT_RELU));
  EXPECT_EQ(l.args[NPUVP_CONV_PAD_TOP], 1u);
  EXPECT_EQ(l.args[NPUVP_CONV_FLAGS], 1u);  // double buffering
  EXPECT_EQ(convs[1].args[NPUVP_CONV_BIAS], 0u);  // no bias: absent
  EXPECT_EQ(relocation_of(convs[1], NPUVP_CONV_RESIDUAL), unsigned(NPUVP_RELOC_ARENA));
  const std::int64_t c1 = 2, kh = 3, kw = 3, cout16 = 32, kc = c1 * kh * kw * 16;
  const std::uint64_t base = l.args[NPUVP_CONV_WEIGHTS] + (pinned ? p.header.pinned_offset : 0);
  for (std::int64_t row = 0; row < kc; ++row)
    for (std::int64_t co = 0; co < cout16; ++co) {
      const std::int64_t c0 = row % 16, j = (row / 16) % kw, i = (row / 16 / kw) % kh, c = (row / 16 / kw / kh) * 16 + c0;
      const float expected = (c < 20 && co < 18) ? w[((co * 20 + c) * kh + i) * kw + j] : 0.f;
      ASSERT_EQ(p.constant_half(base + 2 * (row * cout16 + co)), float_to_half(expected)) << row << " " << co;
    }
  for (std::int64_t co = 0; co < cout16; ++co)
    EXPECT_EQ(p.constant_f32(l.args[NPUVP_CONV_BIAS] + 4 * co), co < 18 ? bias[co] : 0.f);
}

TEST(CompilerPackage, LivenessReusesTheArena) {
  // A chain of eight Relus on 1 MB tensors: two buffers alive at a time.
  OnnxBuilder b;
  b.input("x", {1, 512, 1024});
  std::string previous = "x";
  for (int k = 0; k < 8; ++k) {
    const std::string next = k == 7 ? "y" : "t" + std::to_string(k);
    b.node(k % 2 ? "Relu" : "Sigmoid", {previous}, {next});
    previous = next;
  }
  b.output("y", {1, 512, 1024});
  CompileOptions in_ddr;
  in_ddr.l2_activations = false;
  const CompiledModel model = compile_onnx_bytes(b.bytes(), in_ddr);
  EXPECT_EQ(model.activation_bytes_total, 7u * 1024 * 1024);  // t0..t6 in the arena, y in the io area
  EXPECT_EQ(model.arena_bytes, 2u * 1024 * 1024);
  EXPECT_EQ(model.l2_arena_bytes, 0u);
  // The same two live buffers in the L2 buffer (8 MiB, 5x the DDR's bandwidth): nothing left in DDR.
  const CompiledModel in_l2 = compile_onnx_bytes(b.bytes(), {});
  EXPECT_EQ(in_l2.l2_arena_bytes, 2u * 1024 * 1024);
  EXPECT_EQ(in_l2.l2_buffers, 7u);
  EXPECT_EQ(in_l2.arena_bytes, 0u);
}

TEST(CompilerPackage, NoTwoLiveBuffersOverlap) {
  Graph g = import_onnx(small_cnn().bytes(), "test");
  fuse_epilogues(g);
  assign_layouts(g);
  Program program = lower_graph(g, {});
  plan_memory(program);
  EXPECT_LT(program.arena_bytes, program.activation_bytes_total);
  for (size_t a = 0; a < program.buffers.size(); ++a)
    for (size_t c = a + 1; c < program.buffers.size(); ++c) {
      const auto& x = program.buffers[a];
      const auto& y = program.buffers[c];
      if (x.home != DeviceBuffer::Home::Arena || y.home != DeviceBuffer::Home::Arena || x.first_launch < 0 || y.first_launch < 0)
        continue;
      const bool alive_together = x.first_launch <= y.last_launch && y.first_launch <= x.last_launch;
      const bool overlap = x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes;
      EXPECT_FALSE(alive_together && overlap) << x.name << " and " << y.name;
      EXPECT_LE(x.offset + x.bytes, program.arena_bytes);
    }
}

}  // namespace
}  // namespace npuvp::compiler::test
