// The 16-core mesh cluster end to end (docs/cluster.md): SMP programs built
// for QEMU virt -smp 16 boot on the cluster's harts with `--cluster` or a
// `core: cluster` scenario image, their data going through the coherent L1s
// and LLC banks over the mesh.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

using namespace npuvp::test_support;
using ::testing::HasSubstr;

namespace {

std::string hello_lines() {
  std::string text;
  for (int hart = 0; hart < 16; ++hart) text += "hello from hart " + std::to_string(hart) + " of 16\n";
  return text;
}

nlohmann::json statistics_of(const std::string& path) { return nlohmann::json::parse(read_file(path))["statistics"]; }

}  // namespace

// mhartid is 0..15 (hello prints smp_hart_id(), read from mhartid) and the
// harts print in hart order through the serialized console.
TEST(MeshCluster, HelloScenarioPrintsInHartOrder) {
  std::string stats = temp_path("hello.json");
  auto result = run_npuvp("run " + scenario("mesh-hello") + " --quiet --stats " + stats);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr(hello_lines()));
  EXPECT_THAT(last_line(result.err), HasSubstr("npuvp: mesh-hello: PASS"));
  auto statistics = statistics_of(stats);
  for (int hart = 0; hart < 16; ++hart)
    EXPECT_GT(statistics["soc.cluster.hart" + std::to_string(hart) + ".instructions"].get<double>(), 100.0) << hart;
  // The host CPU is parked in cluster mode.
  EXPECT_EQ(statistics["soc.cpu.instructions"].get<double>(), 0.0);
}

// The same ELF, unchanged, on QEMU virt -smp 16 and on `npuvp run --elf F --cluster`.
TEST(MeshCluster, QemuBuiltElfRunsUnchanged) {
  const std::string elf = firmware("mesh/hello.elf");
  auto qemu = run_command("timeout 60 qemu-system-riscv64 -M virt -smp 16 -bios none -nographic -kernel " + elf);
  ASSERT_EQ(qemu.status, 0) << qemu.err;
  auto ours = run_npuvp("run --elf " + elf + " --cluster --quiet");
  EXPECT_EQ(ours.status, 0) << ours.err;
  EXPECT_EQ(ours.out, qemu.out);
  EXPECT_THAT(ours.out, HasSubstr(hello_lines()));
}

// AMO, LR/SC and lock-protected counters on one line shared by all 16 harts
// (and each hart's own CLINT msip and the time CSR)
// give exact totals under MESI, every hart sees the others' stores, and the
// data really moved between the caches over the mesh.
TEST(MeshCluster, AtomicCountersAreExactUnderMesi) {
  std::string stats = temp_path("atomics.json");
  auto result = run_npuvp("run --elf " + firmware("tests/cluster-atomics.elf") +
                          " --cluster --quiet --set mesh.coherence=mesi --stats " + stats);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("cluster-atomics: PASS harts=16 amo=3200 lrsc=3200 locked=3200 expected=3200 slots=16 clint=16"));
  auto statistics = statistics_of(stats);
  EXPECT_GT(statistics["soc.cluster.memory.l1.load_misses"].get<double>(), 100.0);
  EXPECT_GT(statistics["soc.cluster.memory.l1.invalidations"].get<double>(), 100.0);
  EXPECT_GT(statistics["soc.cluster.memory.l1.interventions"].get<double>(), 10.0);
  EXPECT_GT(statistics["soc.cluster.memory.llc.invalidations_sent"].get<double>(), 100.0);
  EXPECT_GT(statistics["soc.mesh.flits"].get<double>(), 1000.0);
  EXPECT_GT(statistics["soc.mesh.type.AckData.messages"].get<double>(), 0.0);
  EXPECT_GT(statistics["soc.cluster.memory.ddr.reads"].get<double>(), 0.0);
}

// Console output is printed from buffers in the harts' caches (printf's
// buffer, written with stores that stay in an L1): the UART and semihosting
// paths see the coherent value. Every workload then checks its own result.
TEST(MeshCluster, WorkloadScenariosPass) {
  for (const char* name : {"mesh-lu", "mesh-fft", "mesh-radix", "mesh-ocean", "mesh-nbody"}) {
    std::string stats = temp_path(std::string(name) + ".json");
    auto result = run_npuvp("run " + scenario(name) + " --quiet --stats " + stats);
    EXPECT_EQ(result.status, 0) << name << ": " << result.err;
    EXPECT_THAT(last_line(result.err), HasSubstr(std::string("npuvp: ") + name + ": PASS"));
    auto statistics = statistics_of(stats);
    EXPECT_GT(statistics["soc.cluster.memory.l1.load_misses"].get<double>(), 1000.0) << name;
    EXPECT_LT(statistics["soc.cluster.memory.l1.miss_rate"].get<double>(), 0.5) << name;
  }
}

TEST(MeshCluster, LitmusProgramRunsToTheEnd) {
  auto result = run_npuvp("run " + scenario("mesh-litmus") + " --quiet");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("litmus done"));
  // Outcomes RVWMO forbids with the fences (firmware/mesh/litmus.c names the
  // registers; the full allowed-set checker is in mesh_qemu_test.cpp).
  EXPECT_THAT(result.out, ::testing::Not(HasSubstr("litmus MP+fences outcome r0=1 r1=0 ")));
  EXPECT_THAT(result.out, ::testing::Not(HasSubstr("litmus SB+fences outcome r0=0 r1=0 ")));
  EXPECT_THAT(result.out, ::testing::Not(HasSubstr("litmus 2+2W+fences outcome x=1 y=1 ")));
  EXPECT_THAT(result.out, HasSubstr("litmus 2+2W+fences iterations=500 threads=2"));
}

TEST(MeshCluster, UnknownProtocolIsAClearError) {
  auto result = run_npuvp("run " + scenario("mesh-hello") + " --quiet --set mesh.coherence=moesi-x");
  EXPECT_EQ(result.status, 125) << result.err;
  EXPECT_THAT(result.err, HasSubstr("soc.mesh.coherence"));
  EXPECT_THAT(result.err, HasSubstr("unknown coherence protocol 'moesi-x'"));
  EXPECT_THAT(result.err, HasSubstr("mesi"));
}

TEST(MeshCluster, ClusterOptionNeedsAnElf) {
  auto result = run_npuvp("run " + scenario("hello") + " --cluster");
  EXPECT_EQ(result.status, 125);
  EXPECT_THAT(result.err, HasSubstr("--cluster goes with --elf"));
}

TEST(MeshCluster, ClusterImageCannotBeCombinedWithAHostImage) {
  std::string path = temp_path("mixed.yaml");
  std::ofstream(path) << "name: mixed\nimages:\n  - elf: " << firmware("host/hello.elf") << "\n  - elf: "
                      << firmware("mesh/hello.elf") << "\n    core: cluster\n";
  auto result = run_npuvp("run " + path + " --quiet");
  EXPECT_EQ(result.status, 125);
  EXPECT_THAT(result.err, HasSubstr("cannot be combined with a host image"));
}
