// The L2 arena of the memory plan (sw/compiler/src/memory_plan.cpp): activations
// the cost model puts in the on-chip L2 buffer, planned with liveness like the
// DDR arena. Seeded random programs never exceed the L2 capacity and never let
// two buffers alive together overlap in either arena; the cost model keeps
// activations in DDR when the L2 is slower, never lengthens the modelled memory
// time, a compiled model gives the same output with and without the L2 arena, and the
// tiling planner prices a Conv's activations in L2 at the L2's bandwidth.
#include <gtest/gtest.h>

#include <random>

#include "compiler_package_emulator.h"
#include "compiler_test_support.h"
#include "memory_plan.h"
#include "program.h"
#include "soc_buffers.h"
#include "streams.h"
#include "tiling_planner.h"

namespace npuvp::compiler::test {
namespace {

std::uint64_t align64(std::uint64_t v) { return (v + 63) / 64 * 64; }

// A chain-with-skips program of elementwise layers: layer k writes v_k from v_{k-1} (with
// one block per launch: from any earlier value) and, sometimes, an older value (so lifetimes
// overlap in many ways).
// `blocks` per launch; with fewer than the AI Cores (8 here) layers may go on streams of their own.
Program random_program(unsigned seed, int layers, std::uint32_t blocks = 2) {
  std::mt19937 rng(seed);
  Program program;
  program.ai_cores = blocks < 2 ? 8 : 2;
  auto add_buffer = [&](const std::string& name, std::uint64_t bytes, DeviceBuffer::Home home) {
    DeviceBuffer buffer;
    buffer.name = name;
    buffer.bytes = bytes;
    buffer.home = home;
    program.buffers.push_back(buffer);
    return int(program.buffers.size()) - 1;
  };
  program.input_buffer = add_buffer("x", 4096, DeviceBuffer::Home::Input);
  std::vector<int> values = {program.input_buffer};
  for (int k = 0; k < layers; ++k) {
    const bool last = k == layers - 1;
    const int out = add_buffer("v" + std::to_string(k), 64 * (1 + rng() % 128),
                               last ? DeviceBuffer::Home::Output : DeviceBuffer::Home::Arena);
    LayerRecord record;
    record.name = "L" + std::to_string(k);
    record.first_launch = std::uint32_t(program.launches.size());
    record.launch_count = 1;
    KernelLaunch launch;
    launch.kernel = NPUVP_OP_KERNEL_ELTWISE;
    launch.layer = std::uint32_t(program.layers.size());
    launch.blocks = blocks;
    launch.args.assign(NPUVP_ELT_ARG_COUNT, ArgWord{});
    launch.args[NPUVP_ELT_OUT] = {ArgWord::Kind::Buffer, 0, out};
    // One block per launch: a DAG (any earlier value), whose branches streams can run side by side.
    const int a = blocks < 2 ? values[rng() % values.size()] : values.back();
    launch.args[NPUVP_ELT_A] = {ArgWord::Kind::Buffer, 0, a};
    if (rng() % 3 == 0) launch.args[NPUVP_ELT_B] = {ArgWord::Kind::Buffer, 0, values[rng() % values.size()]};
    for (const auto& arg : launch.args)
      if (arg.kind == ArgWord::Kind::Buffer) record.min_bytes += program.buffers[arg.buffer].bytes;
    program.layers.push_back(record);
    program.launches.push_back(launch);
    values.push_back(out);
  }
  program.output_buffer = values.back();
  for (int l = 0; l < int(program.launches.size()); ++l)
    for (const auto& arg : program.launches[l].args)
      if (arg.kind == ArgWord::Kind::Buffer) {
        auto& buffer = program.buffers[arg.buffer];
        if (buffer.first_launch < 0) buffer.first_launch = l;
        buffer.last_launch = l;
      }
  return program;
}

// No two buffers of the same arena that are alive together (one stream: their
// lifetimes overlap) share a byte, and each lies inside its arena.
void expect_arenas_sound(const Program& p) {
  for (std::size_t a = 0; a < p.buffers.size(); ++a) {
    const auto& x = p.buffers[a];
    if (x.home == DeviceBuffer::Home::L2) {
      EXPECT_LE(x.offset + align64(x.bytes), p.l2_arena_bytes) << x.name;
    }
    if (x.home == DeviceBuffer::Home::Arena) {
      EXPECT_LE(x.offset + align64(x.bytes), p.arena_bytes) << x.name;
    }
    for (std::size_t b = a + 1; b < p.buffers.size(); ++b) {
      const auto& y = p.buffers[b];
      if (x.home != y.home || (x.home != DeviceBuffer::Home::L2 && x.home != DeviceBuffer::Home::Arena)) continue;
      const bool alive_together = x.first_launch <= y.last_launch && y.first_launch <= x.last_launch;
      const bool overlap = x.offset < y.offset + align64(y.bytes) && y.offset < x.offset + align64(x.bytes);
      EXPECT_FALSE(alive_together && overlap) << x.name << " and " << y.name << " share memory while both alive";
    }
  }
}

unsigned l2_buffers(const Program& p) {
  unsigned count = 0;
  for (const auto& buffer : p.buffers) count += buffer.home == DeviceBuffer::Home::L2;
  return count;
}

MemoryPlanOptions with_l2(std::uint64_t l2_bytes) {
  MemoryPlanOptions options;
  options.l2 = true;
  options.soc.l2_bytes = l2_bytes;
  return options;
}

TEST(CompilerL2, CapacityIsNeverExceededAndLiveBuffersNeverOverlap) {
  for (std::uint64_t capacity : {std::uint64_t(4096), std::uint64_t(16384), std::uint64_t(65536)}) {
    for (unsigned seed = 1; seed <= 6; ++seed) {
      SCOPED_TRACE("L2 of " + std::to_string(capacity) + " bytes, seed " + std::to_string(seed));
      Program program = random_program(seed, 200);
      plan_memory(program, with_l2(capacity));
      EXPECT_LE(program.l2_arena_bytes, capacity);
      EXPECT_GT(l2_buffers(program), 0u);
      if (capacity < 65536) {
        EXPECT_GT(program.arena_bytes, 0u) << "a small L2 leaves buffers in DDR";
      }
      expect_arenas_sound(program);
      // Every buffer that could have gone to L2 went there or did not fit: none is left
      // in DDR while it would fit beside the L2 buffers alive with it.
      unsigned in_ddr = 0;
      for (const auto& buffer : program.buffers) in_ddr += buffer.home == DeviceBuffer::Home::Arena;
      EXPECT_EQ(l2_buffers(program) + in_ddr, 200u - 1);  // every activation but the output
    }
  }
}

TEST(CompilerL2, AllInL2WhenTheyFitAndNothingWithoutIt) {
  Program fits = random_program(7, 100);
  plan_memory(fits, with_l2(8 << 20));
  EXPECT_EQ(l2_buffers(fits), 99u);
  EXPECT_EQ(fits.arena_bytes, 0u);
  expect_arenas_sound(fits);

  Program without = random_program(7, 100);
  plan_memory(without);  // the default: no L2 arena
  EXPECT_EQ(l2_buffers(without), 0u);
  EXPECT_EQ(without.l2_arena_bytes, 0u);
  EXPECT_GT(without.arena_bytes, 0u);
  EXPECT_LT(fits.l2_arena_bytes, fits.activation_bytes_total) << "liveness reuses the L2 arena";

  Program no_l2 = random_program(7, 100);
  plan_memory(no_l2, with_l2(0));
  EXPECT_EQ(l2_buffers(no_l2), 0u);
}

// On several streams, two buffers in the L2 arena share bytes only when every launch
// naming one completes before any naming the other starts (as in the DDR arena).
TEST(CompilerL2, OnStreamsBuffersInUseTogetherNeverShareL2) {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    Program program = random_program(seed, 200, 1);
    EXPECT_GT(assign_streams(program, 4), 0);
    ASSERT_GT(program.streams, 1u);
    plan_memory(program, with_l2(16384));
    EXPECT_LE(program.l2_arena_bytes, 16384u);
    EXPECT_GT(l2_buffers(program), 0u);
    const LaunchOrder order(program);
    std::vector<std::vector<int>> users(program.buffers.size());
    for (int l = 0; l < int(program.launches.size()); ++l)
      for (const auto& arg : program.launches[l].args)
        if (arg.kind == ArgWord::Kind::Buffer) users[arg.buffer].push_back(l);
    for (std::size_t a = 0; a < program.buffers.size(); ++a)
      for (std::size_t b = a + 1; b < program.buffers.size(); ++b) {
        const auto &x = program.buffers[a], &y = program.buffers[b];
        if (x.home != DeviceBuffer::Home::L2 || y.home != DeviceBuffer::Home::L2) continue;
        const bool overlap = x.offset < y.offset + align64(y.bytes) && y.offset < x.offset + align64(x.bytes);
        if (overlap) {
          EXPECT_TRUE(order.all_before(users[a], users[b]) || order.all_before(users[b], users[a]))
              << x.name << " and " << y.name << " share L2 but may be in use at the same time";
        }
      }
  }
}

// The DDR and the L2 serve in parallel: an L2 slower than the DDR takes only the
// share of a layer's bytes it serves in the DDR's time, a much slower one nothing.
TEST(CompilerL2, ASlowL2TakesLessOrNothing) {
  auto planned_in_l2 = [](double l2_share) {
    Program program = random_program(3, 100);
    MemoryPlanOptions options = with_l2(8 << 20);
    options.soc.l2_bytes_per_second = options.soc.ddr_bytes_per_second * l2_share;
    plan_memory(program, options);
    expect_arenas_sound(program);
    return l2_buffers(program);
  };
  EXPECT_EQ(planned_in_l2(4.0), 99u);
  EXPECT_GT(planned_in_l2(0.25), 0u);
  EXPECT_LT(planned_in_l2(0.25), 99u);
  EXPECT_EQ(planned_in_l2(0.001), 0u);
}

TEST(CompilerL2, TheModelledMemoryTimeNeverGrows) {
  for (double l2_share : {0.25, 1.0, 5.0}) {
    for (unsigned seed = 1; seed <= 4; ++seed) {
      MemoryPlanOptions options = with_l2(32768);
      options.soc.l2_bytes_per_second = options.soc.ddr_bytes_per_second * l2_share;
      Program in_ddr = random_program(seed, 150);
      plan_memory(in_ddr);
      Program planned = random_program(seed, 150);
      plan_memory(planned, options);
      const double before = modelled_memory_seconds(in_ddr, options.soc);
      const double after = modelled_memory_seconds(planned, options.soc);
      EXPECT_LE(after, before * (1 + 1e-12)) << "L2 at " << l2_share << "x the DDR, seed " << seed;
      if (l2_share > 1) {
        EXPECT_LT(after, before);
      }
    }
  }
}

// ResNet-50's 56x56 64->256 1x1 convolution on 8 AI Cores with the default DDR (memory-bound):
// with its input and output in L2 the planner models it faster and may use more blocks (they
// re-read the input from L2, not DDR); with an L2 no faster than the DDR nothing changes.
TEST(CompilerL2, TheConvPlannerPricesL2BytesAtTheL2sBandwidth) {
  SocDescription description;
  description.ai_cores = 8;
  const ConvProblem in_ddr{1, 4, 56, 56, 256, 1, 1, 56, 56, 1, 1};
  ConvProblem in_l2 = in_ddr;
  in_l2.input_in_l2 = in_l2.output_in_l2 = true;
  const SocBuffers soc = build_soc_buffers(description);
  const ConvTiling from_ddr = plan_conv(soc, in_ddr, true), from_l2 = plan_conv(soc, in_l2, true);
  EXPECT_LT(from_l2.cycles, 0.9 * from_ddr.cycles) << from_ddr.text() << " / " << from_l2.text();
  EXPECT_GE(from_l2.blocks, from_ddr.blocks);

  description.l2_bytes_per_second = description.ddr_bytes_per_second;  // an L2 no faster
  const SocBuffers slow = build_soc_buffers(description);
  const ConvTiling ddr_priced = plan_conv(slow, in_ddr, true), l2_priced = plan_conv(slow, in_l2, true);
  EXPECT_EQ(l2_priced.text(), ddr_priced.text());
  EXPECT_DOUBLE_EQ(l2_priced.cycles, ddr_priced.cycles);
}

// A small residual network compiled with and without the L2 arena: the activations
// move to the L2 arena and the emulated package computes the same output.
TEST(CompilerL2, ACompiledModelGivesTheSameOutputFromTheL2Arena) {
  OnnxBuilder b;
  b.input("x", {1, 16, 12, 12});
  b.random_constant("w1", {32, 16, 3, 3}, 0.1f);
  b.random_constant("w2", {32, 32, 3, 3}, 0.1f);
  b.random_constant("fc", {32 * 12 * 12, 10}, 0.02f);
  auto& c1 = b.node("Conv", {"x", "w1"}, {"c1"});
  OnnxBuilder::attr(c1, "pads", Dims{1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"r1"});
  auto& c2 = b.node("Conv", {"r1", "w2"}, {"c2"});
  OnnxBuilder::attr(c2, "pads", Dims{1, 1, 1, 1});
  b.node("Add", {"c2", "r1"}, {"s"});
  b.node("Flatten", {"s"}, {"f"});
  b.node("MatMul", {"f", "fc"}, {"y"});
  b.output("y", {1, 10});
  const std::string model = b.bytes();

  CompileOptions in_ddr_options;
  in_ddr_options.soc.ai_cores = 4;
  in_ddr_options.l2_activations = false;
  in_ddr_options.pin_weights = false;  // the activations' L2 arena only (compiler_pinned_weights_test.cpp)
  CompileOptions in_l2_options = in_ddr_options;
  in_l2_options.l2_activations = true;
  const CompiledModel in_ddr = compile_onnx_bytes(model, in_ddr_options);
  const CompiledModel in_l2 = compile_onnx_bytes(model, in_l2_options);
  EXPECT_EQ(in_ddr.l2_buffers, 0u);
  EXPECT_GT(in_l2.l2_buffers, 0u);
  EXPECT_EQ(in_l2.arena_bytes, 0u) << "every activation fits the 8 MiB L2 buffer";
  EXPECT_GT(in_l2.l2_arena_bytes, 0u);
  EXPECT_LE(in_l2.l2_arena_bytes, in_l2.activation_bytes_total);

  PackageView package(in_l2.package);
  unsigned l2_arguments = 0;
  for (std::uint32_t k = 0; k < package.header.launch_count; ++k) {
    const auto launch = package.launch(k);
    for (unsigned a = 0; a < NPUVP_PACKAGE_MAX_ARGS; ++a)
      if ((launch.l2_args >> a) & 1u) {
        ++l2_arguments;
        EXPECT_EQ(relocation_of(launch, a), unsigned(NPUVP_RELOC_ARENA));
        EXPECT_LT(launch.args[a], package.header.l2_arena_bytes);
      }
  }
  EXPECT_GE(l2_arguments, 6u);

  // The roofline's split of each layer's minimum bytes: all in DDR without the L2 arena;
  // with it, only the weights must pass the DDR (the input and output are in the io area).
  ASSERT_EQ(in_l2.layers.size(), in_ddr.layers.size());
  std::uint64_t l2_minimum = 0;
  for (std::size_t k = 0; k < in_l2.layers.size(); ++k) {
    const LayerSummary &ddr_layer = in_ddr.layers[k], &l2_layer = in_l2.layers[k];
    SCOPED_TRACE(l2_layer.name);
    EXPECT_EQ(ddr_layer.min_ddr_bytes, ddr_layer.min_bytes);
    EXPECT_EQ(ddr_layer.min_l2_bytes, 0u);
    EXPECT_LE(l2_layer.min_ddr_bytes + l2_layer.min_l2_bytes, l2_layer.min_bytes);
    EXPECT_LE(l2_layer.roofline_cycles, ddr_layer.roofline_cycles);
    l2_minimum += l2_layer.min_l2_bytes;
  }
  EXPECT_GT(l2_minimum, 0u);

  const std::vector<float> x = b.random({1, 16, 12, 12});
  const std::vector<float> from_ddr = PackageEmulator(in_ddr.package).run(x);
  const std::vector<float> from_l2 = PackageEmulator(in_l2.package).run(x);
  ASSERT_EQ(from_ddr.size(), 10u);
  EXPECT_EQ(from_l2, from_ddr);
}

}  // namespace
}  // namespace npuvp::compiler::test
