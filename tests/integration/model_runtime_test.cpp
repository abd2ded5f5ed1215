// The model runtime (sw/runtime) end to end on the platform: hand-built model
// packages run through the standard inference program (firmware/host/infer.elf),
// the driver, the task scheduler and the vector_add / relu kernels; the output
// is checked against a host computation and the profile against the launches'
// ordering (an event between two streams).
#include "core/console.h"
#include "npu/numerics.h"
#include "integration/run_npuvp.h"
#include "package_builder.h"
#include "platform/package_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include <cstring>
#include <random>
#include <sstream>

using namespace npuvp;
using npuvp::test_support::PackageBuilder;
using ::testing::HasSubstr;

namespace {

constexpr std::uint32_t kVectorAdd = 2, kRelu = 3;  // sw/kernels slots

RunOptions quiet_options() {
  RunOptions options;
  options.quiet = true;
  return options;
}

std::vector<std::uint16_t> random_halves(std::size_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> value(-4.0f, 4.0f);
  std::vector<std::uint16_t> halves(n);
  for (auto& h : halves) h = numerics::float_to_half(value(random));
  return halves;
}

// out = relu(x) + c on n elements: layer "relu1" on stream 1 (records event 0) into the
// arena, layer "add1" on stream 0 (waits for event 0) from the arena and a constant.
struct ReluAddModel {
  static constexpr std::uint64_t n = 5000;  // not a multiple of the kernels' 128-element repeat
  std::vector<std::uint16_t> x = random_halves(n, 1), c = random_halves(n, 2);
  std::uint64_t input_offset = 0, output_offset = 0;

  std::vector<std::uint8_t> build() {
    PackageBuilder b("relu-add");
    // a batch of 2 rows, for the report's images per second (the kernels see n elements)
    input_offset = b.add_tensor("x", NPUVP_TENSOR_INPUT, {2, n / 2});
    output_offset = b.add_tensor("y", NPUVP_TENSOR_OUTPUT, {2, n / 2});
    const std::uint64_t constant = b.add_constant(c);
    b.set_arena_bytes(n * 2);
    b.add_layer("relu1", "Relu", "1x5000 -> 1x5000", 0, 4 * n);
    b.add_launch(kRelu, 3, {{input_offset, NPUVP_RELOC_IO}, {0, NPUVP_RELOC_ARENA}, {n}}, 1, 0, 0);
    b.add_layer("add1", "Add", "1x5000, 1x5000 -> 1x5000", 0, 6 * n);
    b.add_launch(kVectorAdd, 4,
                 {{0, NPUVP_RELOC_ARENA}, {constant, NPUVP_RELOC_CONSTANTS}, {output_offset, NPUVP_RELOC_IO}, {n}}, 0,
                 PackageBuilder::event_bit(0), -1);
    auto image = b.build();
    auto& h = npuvp::test_support::header_of(image);
    std::memcpy(image.data() + h.io_offset + input_offset, x.data(), n * 2);
    return image;
  }

  std::uint16_t expected(std::size_t i) const {
    const float relu = std::max(0.0f, numerics::half_to_float(x[i]));
    return numerics::float_to_half(relu + numerics::half_to_float(c[i]));
  }
};

TEST(ModelRuntime, HandBuiltPackageRunsThroughInferWithEventsAndProfile) {
  ReluAddModel model;
  PackageJob job;
  job.name = "relu-add";
  job.report = false;
  job.make_package = [&](const SocFigures&) { return model.build(); };
  bool judged = false;
  job.judge = [&](const PackageView& package, const SocFigures& soc) -> std::pair<int, std::string> {
    judged = true;
    const auto& h = package.header();
    const auto* output = package.find_tensor(NPUVP_TENSOR_OUTPUT);
    EXPECT_NE(output, nullptr);
    if (!output) return {1, "no output"};
    std::vector<std::uint16_t> y(ReluAddModel::n);
    // The io area as the run left it (PackageView reads the image npuvp read back).
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(&h) + h.io_offset + output->io_offset;
    std::memcpy(y.data(), bytes, y.size() * 2);
    unsigned wrong = 0;
    for (std::size_t i = 0; i < y.size(); ++i) wrong += y[i] != model.expected(i);
    EXPECT_EQ(wrong, 0u);

    // Every launch ran, all its blocks, and the event ordered the add after the relu.
    EXPECT_EQ(h.launch_count, 2u);
    const auto &relu = package.profile(0), &add = package.profile(1);
    for (const auto* p : {&relu, &add}) {
      EXPECT_NE(p->ticket, 0u);
      EXPECT_EQ(p->status, 0);
      EXPECT_GT(p->kernel_cycles, 0u);
      EXPECT_GT(p->ts_end_cycle, p->ts_start_cycle);
      EXPECT_GT(p->host_submit_cycle, 0u);
      // The AI Cores' own window lies inside the TS's (both in TS cycles).
      EXPECT_GT(p->core_start_cycle, p->ts_start_cycle);
      EXPECT_GT(p->core_end_cycle, p->core_start_cycle);
      EXPECT_LT(p->core_end_cycle, p->ts_end_cycle);
    }
    EXPECT_EQ(relu.blocks_done, 3u);
    EXPECT_EQ(add.blocks_done, 4u);
    EXPECT_GE(add.ts_start_cycle, relu.ts_end_cycle);
    EXPECT_GT(add.ticket, relu.ticket);

    const ModelReport report = make_model_report(package, soc);
    EXPECT_EQ(report.layers.size(), 2u);
    EXPECT_EQ(report.layers[1].name, "add1");
    EXPECT_TRUE(report.layers[0].ran && report.layers[1].ran);
    EXPECT_GT(report.latency_seconds, 0.0);
    EXPECT_EQ(report.images, 2u);  // the input's first dimension
    EXPECT_DOUBLE_EQ(report.images_per_second(), 2 / report.latency_seconds);
    EXPECT_FALSE(report.layers[0].compute_bound);  // no MACs: memory-bound
    return {wrong == 0 ? 0 : 1, wrong == 0 ? "PASS" : "FAIL"};
  };
  EXPECT_EQ(run_package(job, quiet_options()), 0);
  EXPECT_TRUE(judged);
  EXPECT_THAT(GuestConsole::instance().transcript(), HasSubstr("infer: done: 2 layers, 2 launches"));
}

// More launches than the driver's queue holds (64), on three streams joined by events:
// stream s adds s + 1 sixty times to x (ping-pong buffers in the arena), then stream 0
// waits for streams 1 and 2 (one launch waiting for two events) and sums the three chains. Results are collected while the
// replay goes on, so every launch must have its profile record; the sum checks that
// every launch ran, in its stream's order, and that the events held the sums back.
TEST(ModelRuntime, ManyLaunchesOnThreeStreamsWithEvents) {
  constexpr std::uint64_t n = 1000;
  constexpr unsigned steps = 60;
  std::vector<std::uint16_t> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = numerics::float_to_half(static_cast<float>(i % 101));
  PackageJob job;
  job.report = false;
  job.guest_progress = true;  // the program's progress callback: a line every tenth of the layers
  std::uint64_t output_offset = 0;
  job.make_package = [&](const SocFigures&) {
    PackageBuilder b("three-streams");
    const std::uint64_t input = b.add_tensor("x", NPUVP_TENSOR_INPUT, {n});
    output_offset = b.add_tensor("y", NPUVP_TENSOR_OUTPUT, {n});
    auto buffer = [&](unsigned index) { return PackageBuilder::Argument{index * n * 2, NPUVP_RELOC_ARENA}; };
    std::uint64_t constant[3];
    for (unsigned s = 0; s < 3; ++s)
      constant[s] = b.add_constant(std::vector<std::uint16_t>(n, numerics::float_to_half(static_cast<float>(s + 1))));
    b.set_arena_bytes(7 * n * 2);
    for (unsigned k = 0; k < steps; ++k) {
      for (std::uint16_t s = 0; s < 3; ++s) {
        b.add_layer("add_s" + std::to_string(s) + "_" + std::to_string(k), "Add", "1000 -> 1000");
        const PackageBuilder::Argument in = k == 0 ? PackageBuilder::Argument{input, NPUVP_RELOC_IO} : buffer(2 * s + (k - 1) % 2);
        const std::int16_t record = k + 1 == steps && s > 0 ? static_cast<std::int16_t>(s) : -1;
        b.add_launch(kVectorAdd, 2, {in, {constant[s], NPUVP_RELOC_CONSTANTS}, buffer(2 * s + k % 2), {n}}, s, 0, record);
      }
    }
    const unsigned last = (steps - 1) % 2;
    b.add_layer("sum01", "Add", "1000, 1000 -> 1000");
    b.add_launch(kVectorAdd, 2, {buffer(0 + last), buffer(2 + last), buffer(6), {n}}, 0,
                 PackageBuilder::event_bit(1) | PackageBuilder::event_bit(2), -1);
    b.add_layer("sum012", "Add", "1000, 1000 -> 1000");
    b.add_launch(kVectorAdd, 2, {buffer(6), buffer(4 + last), {output_offset, NPUVP_RELOC_IO}, {n}}, 0, 0, -1);
    auto image = b.build();
    std::memcpy(image.data() + npuvp::test_support::header_of(image).io_offset + input, x.data(), n * 2);
    return image;
  };
  job.judge = [&](const PackageView& package, const SocFigures&) -> std::pair<int, std::string> {
    const auto& h = package.header();
    EXPECT_EQ(h.launch_count, 3 * steps + 2);
    unsigned missing = 0;
    for (std::uint32_t i = 0; i < h.launch_count; ++i)
      missing += package.profile(i).ticket == 0 || package.profile(i).status != 0 || package.profile(i).blocks_done != 2;
    EXPECT_EQ(missing, 0u);
    const auto* base = reinterpret_cast<const std::uint8_t*>(&h) + h.io_offset + output_offset;
    unsigned wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint16_t y;
      std::memcpy(&y, base + 2 * i, 2);
      wrong += numerics::half_to_float(y) != 3.0f * static_cast<float>(i % 101) + steps * 6.0f;
    }
    EXPECT_EQ(wrong, 0u);
    // The sums started after the chains they wait for ended.
    const auto& sum01 = package.profile(3 * steps), &sum012 = package.profile(3 * steps + 1);
    EXPECT_GE(sum01.ts_start_cycle, package.profile(3 * steps - 2).ts_end_cycle);   // stream 1's last
    EXPECT_GE(sum01.ts_start_cycle, package.profile(3 * steps - 1).ts_end_cycle);   // stream 2's last
    EXPECT_GE(sum012.ts_start_cycle, sum01.ts_end_cycle);                           // stream 0's order
    return {missing == 0 && wrong == 0 ? 0 : 1, "checked"};
  };
  EXPECT_EQ(run_package(job, quiet_options()), 0);
  EXPECT_THAT(GuestConsole::instance().transcript(), HasSubstr("infer: layer 19/182"));
  EXPECT_THAT(GuestConsole::instance().transcript(), HasSubstr("infer: done: 182 layers, 182 launches"));
}

// The per-layer report of a run: printed, as CSV (--profile) and as one slice per
// layer on the timeline (--trace), with the layers' MACs and roofline.
TEST(ModelRuntime, ReportCsvAndTimelineSlicesPerLayer) {
  ReluAddModel model;
  PackageJob job;
  job.name = "relu-add";
  job.profile_csv = npuvp::test_support::temp_path("layers.csv");
  job.make_package = [&](const SocFigures&) { return model.build(); };
  RunOptions options = quiet_options();
  options.trace_path = npuvp::test_support::temp_path("trace.json");
  testing::internal::CaptureStdout();
  EXPECT_EQ(run_package(job, options), 0);
  const std::string printed = testing::internal::GetCapturedStdout();
  EXPECT_THAT(printed, HasSubstr("per-layer report"));
  EXPECT_THAT(printed, HasSubstr("relu1"));
  EXPECT_THAT(printed, HasSubstr("total: 2 layers"));
  EXPECT_THAT(printed, HasSubstr("images/s"));
  // Two streams: each row ends with its stream and the layers it waits for.
  EXPECT_THAT(printed, HasSubstr("limit    stream (waits for)\n"));
  EXPECT_THAT(printed, HasSubstr("memory   1\n"));      // relu1
  EXPECT_THAT(printed, HasSubstr("memory   0 (0)\n"));  // add1, after relu1's event

  const std::string csv = npuvp::test_support::read_file(job.profile_csv);
  EXPECT_THAT(csv, HasSubstr("index,layer,op,shapes,macs,min_bytes"));
  EXPECT_THAT(csv, HasSubstr("0,relu1,Relu,1x5000 -> 1x5000,0,20000,"));
  EXPECT_THAT(csv, HasSubstr("1,add1,Add,\"1x5000, 1x5000 -> 1x5000\",0,30000,"));
  // The stream of each layer and the layers it waits for: relu1 on stream 1, add1 on
  // stream 0 waiting for relu1's event.
  EXPECT_THAT(csv, HasSubstr(",memory,1,\n1,add1,"));
  EXPECT_THAT(csv, HasSubstr(",memory,0,0\n"));
  EXPECT_THAT(csv, HasSubstr("latency_seconds="));
  // The LayerProfiler's measured traffic: relu1 reads and writes 5000 f16 in DDR
  // (at least 20,000 bytes; its instruction fills come on top).
  const std::size_t relu_row = csv.find("\n0,relu1,");
  ASSERT_NE(relu_row, std::string::npos);
  std::vector<std::string> fields;
  std::stringstream row(csv.substr(relu_row + 1, csv.find('\n', relu_row + 1) - relu_row - 1));
  for (std::string field; std::getline(row, field, ',');) fields.push_back(field);
  ASSERT_GT(fields.size(), 15u);
  EXPECT_GE(std::stoull(fields[14]), 20000u) << "ddr_bytes of relu1";
  EXPECT_EQ(std::stoull(fields[15]), 0u) << "l2_bytes of relu1 (its tensors are in DDR)";
  EXPECT_EQ(fields[6], "1") << "launches of relu1";

  const std::string trace = npuvp::test_support::read_file(options.trace_path);
  EXPECT_THAT(trace, HasSubstr("\"model relu-add\""));
  EXPECT_THAT(trace, HasSubstr("\"name\":\"relu1\""));
  EXPECT_THAT(trace, HasSubstr("\"name\":\"add1\""));
  EXPECT_THAT(trace, HasSubstr("\"layers, stream 1\""));  // relu1's track
  // A slice spans the cores' window (the report's cycles); the TS's window is in its arguments.
  EXPECT_THAT(trace, HasSubstr("\"ts_start_cycle\""));
  EXPECT_THAT(trace, HasSubstr("\"ts_end_cycle\""));
  std::remove(job.profile_csv.c_str());
  std::remove(options.trace_path.c_str());
}

// A launch whose output lies outside every memory: the kernel faults, infer.elf names
// the layer and exits with NPUVP_EXIT_KERNEL_FAULT (3), which npuvp passes through.
TEST(ModelRuntime, KernelFaultNamesTheLayerAndExitsThree) {
  PackageJob job;
  job.report = false;
  job.make_package = [](const SocFigures&) {
    PackageBuilder b("faulty");
    b.add_tensor("x", NPUVP_TENSOR_INPUT, {256});
    b.add_layer("fine", "Relu", "256 -> 256");
    b.add_launch(kRelu, 1, {{0, NPUVP_RELOC_IO}, {128, NPUVP_RELOC_IO}, {64}});
    b.add_layer("broken_layer", "Relu", "256 -> 256");
    b.add_launch(kRelu, 2, {{0, NPUVP_RELOC_IO}, {0x7000'0000'0000ull}, {256}});
    return b.build();
  };
  EXPECT_EQ(run_package(job, quiet_options()), 3);
  EXPECT_THAT(GuestConsole::instance().transcript(),
              HasSubstr("infer: layer 1 'broken_layer' (Relu), launch 1 of kernel relu: kernel fault"));
}

// A package the runtime's check refuses: infer.elf prints the one-line reason, exits 4.
TEST(ModelRuntime, BadPackageExitsFourWithTheReason) {
  PackageJob job;
  job.report = false;
  job.make_package = [](const SocFigures&) {
    PackageBuilder b("unknown-kernel");
    b.add_tensor("x", NPUVP_TENSOR_INPUT, {16});
    b.add_layer("mystery", "Mystery", "16 -> 16");
    b.add_launch(42, 1, {{0, NPUVP_RELOC_IO}});
    return b.build();
  };
  EXPECT_EQ(run_package(job, quiet_options()), 4);
  EXPECT_THAT(GuestConsole::instance().transcript(),
              HasSubstr("infer: package: launch 0: kernel id 42 is not a kernel the runtime knows"));
}

}  // namespace

// host/infer.elf without memory at NPUVP_PACKAGE_ADDRESS (the default 1 GiB of DDR):
// a one-line reason and NPUVP_EXIT_BAD_PACKAGE, not a load access fault.
TEST(ModelRuntime, NoMemoryForThePackageIsABadPackage) {
  using namespace npuvp::test_support;
  const std::string yaml = temp_path("no-package.yaml");
  std::ofstream(yaml) << "images:\n  - elf: host/infer.elf\n  - elf: ts/ts.elf\n    core: ts\n"
                         "checks:\n  exit_code: 4\n  console_contains: \"infer: no memory at 0xc0000000 for the model package\"\n";
  auto result = run_npuvp("run " + yaml + " --quiet");
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  std::remove(yaml.c_str());
}
