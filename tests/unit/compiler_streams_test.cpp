// Stream assignment (sw/compiler/src/pass_assign_streams.cpp), the launch order
// it implies (launch_order.cpp) and the memory plan under concurrency
// (memory_plan.cpp): hand-built programs (a diamond, seeded random DAGs) and a
// ResNet-style block with a downsample branch compiled end to end.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "compiler_package_emulator.h"
#include "compiler_reference_ops.h"
#include "compiler_test_support.h"
#include "memory_plan.h"
#include "program.h"
#include "streams.h"

namespace npuvp::compiler::test {
namespace {

// Builds a Program of elementwise layers by hand: each layer one launch that
// reads up to two buffers and writes one.
class ProgramBuilder {
 public:
  ProgramBuilder() {
    program.ai_cores = 4;  // the layers' single blocks leave cores for layers beside them
    program.input_buffer = buffer("x", 1024);
    program.buffers[program.input_buffer].home = DeviceBuffer::Home::Input;
  }
  int buffer(const std::string& name, std::uint64_t bytes) {
    DeviceBuffer b;
    b.name = name;
    b.bytes = bytes;
    program.buffers.push_back(b);
    return int(program.buffers.size()) - 1;
  }
  // A layer `name`: out = op(a, b) (b = -1: unary).
  int layer(const std::string& name, int out, int a, int b = -1) {
    LayerRecord record;
    record.name = name;
    record.first_launch = std::uint32_t(program.launches.size());
    record.launch_count = 1;
    program.layers.push_back(record);
    KernelLaunch launch;
    launch.kernel = NPUVP_OP_KERNEL_ELTWISE;
    launch.layer = std::uint32_t(program.layers.size() - 1);
    launch.args.assign(NPUVP_ELT_ARG_COUNT, ArgWord{});
    launch.args[NPUVP_ELT_OUT] = {ArgWord::Kind::Buffer, 0, out};
    launch.args[NPUVP_ELT_A] = {ArgWord::Kind::Buffer, 0, a};
    if (b >= 0) launch.args[NPUVP_ELT_B] = {ArgWord::Kind::Buffer, 0, b};
    program.launches.push_back(launch);
    return int(program.layers.size()) - 1;
  }
  // Marks `out` the model output and sets the lifetimes as lowering does.
  Program finish(int out) {
    program.output_buffer = out;
    program.buffers[out].home = DeviceBuffer::Home::Output;
    for (int l = 0; l < int(program.launches.size()); ++l)
      for (const auto& arg : program.launches[l].args)
        if (arg.kind == ArgWord::Kind::Buffer) {
          auto& b = program.buffers[arg.buffer];
          if (b.first_launch < 0) b.first_launch = l;
          b.last_launch = l;
        }
    return program;
  }
  Program program;
};

// x -> a; branch 1: a -> b -> c; branch 2: a -> d; out = c + d. b and d are the
// same size and, in table order, never alive at once: one stream lets them share.
Program diamond() {
  ProgramBuilder p;
  const int a = p.buffer("a", 1024), b = p.buffer("b", 4096), c = p.buffer("c", 1024), d = p.buffer("d", 4096),
            out = p.buffer("out", 1024);
  p.layer("L0", a, p.program.input_buffer);
  p.layer("L1", b, a);
  p.layer("L2", c, b);
  p.layer("L3", d, a);
  p.layer("L4", out, c, d);
  return p.finish(out);
}

int first_launch(const Program& p, int layer) { return int(p.layers[layer].first_launch); }
int last_launch(const Program& p, int layer) {
  return int(p.layers[layer].first_launch + p.layers[layer].launch_count) - 1;
}

// Every data dependency is enforced by the streams and events: the producer's
// last launch completes before the consumer's first starts.
void expect_dependencies_enforced(const Program& p) {
  const LaunchOrder order(p);
  const auto dependencies = layer_dependencies(p);
  for (int layer = 0; layer < int(dependencies.size()); ++layer)
    for (int producer : dependencies[layer])
      EXPECT_TRUE(order.before(last_launch(p, producer), first_launch(p, layer)))
          << "layer " << layer << " does not wait for layer " << producer;
}

// Buffers whose arena ranges overlap are used one entirely before the other.
void expect_shared_memory_ordered(const Program& p) {
  const LaunchOrder order(p);
  std::vector<std::vector<int>> users(p.buffers.size());
  for (int l = 0; l < int(p.launches.size()); ++l)
    for (const auto& arg : p.launches[l].args)
      if (arg.kind == ArgWord::Kind::Buffer) users[arg.buffer].push_back(l);
  auto align = [](std::uint64_t v) { return (v + 63) / 64 * 64; };
  for (int a = 0; a < int(p.buffers.size()); ++a)
    for (int b = a + 1; b < int(p.buffers.size()); ++b) {
      const auto &x = p.buffers[a], &y = p.buffers[b];
      if (x.home != DeviceBuffer::Home::Arena || y.home != DeviceBuffer::Home::Arena || users[a].empty() ||
          users[b].empty())
        continue;
      const bool overlap = x.offset < y.offset + align(y.bytes) && y.offset < x.offset + align(x.bytes);
      if (!overlap) continue;
      EXPECT_TRUE(order.all_before(users[a], users[b]) || order.all_before(users[b], users[a]))
          << x.name << " and " << y.name << " share memory but may be in use at the same time";
    }
}

TEST(CompilerStreams, DependenciesFromReadsAndWrites) {
  const auto dependencies = layer_dependencies(diamond());
  const std::vector<std::vector<int>> expected = {{}, {0}, {1}, {0}, {2, 3}};
  EXPECT_EQ(dependencies, expected);
}

TEST(CompilerStreams, OneStreamLeavesTheProgramAlone) {
  Program p = diamond();
  EXPECT_EQ(assign_streams(p, 1), 0);
  EXPECT_EQ(p.streams, 1u);
  for (const auto& launch : p.launches) {
    EXPECT_EQ(launch.stream, 0);
    EXPECT_EQ(launch.wait_events, 0u);
    EXPECT_EQ(launch.record_event, -1);
  }
  // In table order b (L1, L2) ends before d (L3, L4) starts: they share memory.
  plan_memory(p);
  EXPECT_EQ(p.buffers[2].offset, p.buffers[4].offset);
  expect_shared_memory_ordered(p);
}

TEST(CompilerStreams, DiamondBranchesOnTwoStreamsJoinedByEvents) {
  Program p = diamond();
  const int waits = assign_streams(p, 2);
  EXPECT_EQ(p.streams, 2u);
  auto stream = [&](int layer) { return p.launches[first_launch(p, layer)].stream; };
  EXPECT_EQ(stream(0), stream(1));  // L1 continues its producer's stream
  EXPECT_EQ(stream(1), stream(2));
  EXPECT_NE(stream(3), stream(1));  // the second branch runs beside the first
  // L3 waits for L0 (other stream); L4 for whichever branch is not its own stream's.
  EXPECT_EQ(waits, 2);
  EXPECT_NE(p.launches[first_launch(p, 3)].wait_events, 0u);
  EXPECT_NE(p.launches[first_launch(p, 4)].wait_events, 0u);
  EXPECT_EQ(p.launches[first_launch(p, 1)].wait_events, 0u);
  EXPECT_GE(p.launches[last_launch(p, 0)].record_event, 0);
  expect_dependencies_enforced(p);
  const LaunchOrder order(p);
  EXPECT_FALSE(order.before(last_launch(p, 1), first_launch(p, 3)));  // concurrent
  EXPECT_FALSE(order.before(last_launch(p, 3), first_launch(p, 1)));
  // Now b and d may be alive at the same time: they must not share memory.
  plan_memory(p);
  const auto &b = p.buffers[2], &d = p.buffers[4];
  EXPECT_TRUE(b.offset + b.bytes <= d.offset || d.offset + d.bytes <= b.offset);
  expect_shared_memory_ordered(p);
  Program single = diamond();
  plan_memory(single);
  EXPECT_GT(p.arena_bytes, single.arena_bytes);
}

// A layer whose blocks fill every AI Core does not start a branch: the diamond's
// second branch (L3) follows L2 on its stream when the SoC has one AI Core.
TEST(CompilerStreams, LayersFillingEveryCoreStayInOrder) {
  Program p = diamond();
  p.ai_cores = 1;
  EXPECT_EQ(assign_streams(p, 2), 0);
  EXPECT_EQ(p.streams, 1u);
  for (const auto& launch : p.launches) EXPECT_EQ(launch.stream, 0);
}

TEST(CompilerStreams, ChainStaysOnOneStream) {
  ProgramBuilder p;
  int previous = p.program.input_buffer;
  for (int k = 0; k < 6; ++k) {
    const int next = p.buffer("t" + std::to_string(k), 512);
    p.layer("L" + std::to_string(k), next, previous);
    previous = next;
  }
  Program program = p.finish(previous);
  EXPECT_EQ(assign_streams(program, 4), 0);
  EXPECT_EQ(program.streams, 1u);
  for (const auto& launch : program.launches) EXPECT_EQ(launch.stream, 0);
}

TEST(CompilerStreams, StreamCountOutsideTheRangeIsAnError) {
  Program p = diamond();
  EXPECT_THROW(assign_streams(p, 0), CompileError);
  EXPECT_THROW(assign_streams(p, 16), CompileError);
}

// Seeded random DAGs of 300 layers, each reading one or two buffers written
// before (often long before, so many events are pending at once and the event
// pools run out): every dependency enforced, shared memory always ordered.
TEST(CompilerStreams, RandomGraphsEveryDependencyEnforced) {
  for (unsigned streams : {2u, 3u, 8u, 15u}) {
    for (unsigned seed = 1; seed <= 4; ++seed) {
      std::mt19937 rng(seed * 101 + streams);
      ProgramBuilder p;
      std::vector<int> values = {p.program.input_buffer};
      for (int k = 0; k < 300; ++k) {
        const int out = p.buffer("v" + std::to_string(k), 64 * (1 + rng() % 8));
        const int a = values[rng() % values.size()];
        const int b = rng() % 2 ? values[rng() % values.size()] : -1;
        p.layer("L" + std::to_string(k), out, a, b);
        values.push_back(out);
      }
      Program program = p.finish(values.back());
      const int waits = assign_streams(program, streams);
      EXPECT_GT(waits, 0);
      EXPECT_GT(program.streams, 1u);
      EXPECT_LE(program.streams, streams);
      for (const auto& launch : program.launches) {
        EXPECT_LT(launch.stream, program.streams);
        EXPECT_LT(launch.record_event, 64);
      }
      expect_dependencies_enforced(program);
      plan_memory(program);
      expect_shared_memory_ordered(program);
    }
  }
}

// ResNet's downsample block as exported: conv1, conv2 on the main path, then the
// downsample 1x1 conv, Add, Relu. With streams the downsample moves ahead and
// runs on its own stream; the Add fuses into conv2; the result is the same.
TEST(CompilerStreams, DownsampleBranchRunsBesideTheMainPath) {
  OnnxBuilder b;
  const std::int64_t cin = 16, c = 32;
  b.input("x", {1, cin, 10, 10});
  auto w1 = b.random_constant("w1", {c, cin, 3, 3}, 0.1f), w2 = b.random_constant("w2", {c, c, 3, 3}, 0.1f),
       wd = b.random_constant("wd", {c, cin, 1, 1}, 0.2f);
  auto& c1 = b.node("Conv", {"x", "w1"}, {"c1"}, "conv1");
  OnnxBuilder::attr(c1, "pads", Dims{1, 1, 1, 1});
  OnnxBuilder::attr(c1, "strides", Dims{2, 2});
  b.node("Relu", {"c1"}, {"r1"});
  auto& c2 = b.node("Conv", {"r1", "w2"}, {"c2"}, "conv2");
  OnnxBuilder::attr(c2, "pads", Dims{1, 1, 1, 1});
  auto& down = b.node("Conv", {"x", "wd"}, {"d"}, "downsample");
  OnnxBuilder::attr(down, "strides", Dims{2, 2});
  b.node("Add", {"c2", "d"}, {"s"}, "residual");
  b.node("Relu", {"s"}, {"y"});
  b.output("y", {1, c, 5, 5});
  const auto x = b.random({1, cin, 10, 10});

  auto relu = [](float v) { return std::max(v, 0.f); };
  ref::Tensor in{{1, cin, 10, 10}, x};
  ref::Tensor main = ref::conv2d(ref::map(ref::conv2d(in, w1, {}, c, 3, 3, 2, 1), relu), w2, {}, c, 3, 3, 1, 1);
  ref::Tensor expected = ref::map(ref::zip(main, ref::conv2d(in, wd, {}, c, 1, 1, 2, 0), std::plus<float>()), relu);

  CompileOptions options;
  options.streams = 2;
  options.soc.ai_cores = 8;  // room beside each layer: the planner gives these small convolutions fewer blocks
  const CompiledModel model = compile_onnx_bytes(b.bytes(), options);
  std::map<std::string, const LayerSummary*> by_name;
  for (const auto& layer : model.layers) by_name[layer.name] = &layer;
  ASSERT_TRUE(by_name.count("downsample") && by_name.count("conv1") && by_name.count("conv2"));
  EXPECT_EQ(by_name["downsample"]->op, "Conv");
  EXPECT_EQ(by_name["conv2"]->op, "Conv+Add+Relu");
  EXPECT_NE(by_name["downsample"]->stream, by_name["conv1"]->stream);
  EXPECT_EQ(by_name["conv1"]->stream, by_name["conv2"]->stream);
  EXPECT_EQ(model.streams, 2u);
  EXPECT_GE(model.stream_waits, 1u);
  const PackageView view(model.package);
  EXPECT_EQ(view.header.streams, 2u);
  const auto agreement = ref::agreement(PackageEmulator(model.package).run(x), expected.data);
  EXPECT_GT(agreement.cosine, 0.9995);
  EXPECT_LT(agreement.relative_error, 2e-2);

  // One stream: the exported order, the Add fused into the downsample conv.
  const CompiledModel serial = compile_onnx_bytes(b.bytes(), {});
  EXPECT_EQ(serial.streams, 1u);
  for (const auto& layer : serial.layers)
    if (layer.name == "downsample") {
      EXPECT_EQ(layer.op, "Conv+Add+Relu");
    }
}

}  // namespace
}  // namespace npuvp::compiler::test
