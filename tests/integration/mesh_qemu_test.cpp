// The SMP programs of firmware/mesh/ on Debian's qemu-system-riscv64 -M virt -smp N
// (all harts start at the ELF entry, as on the mesh cluster): hello's hart order, each
// workload's self-check at 16 harts and at an odd smaller count, and every litmus
// outcome judged against the RISC-V memory model (RVWMO) by the checker of
// litmus_rvwmo.h, which is independent of the program that produced the histogram.
#include "integration/litmus_rvwmo.h"
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace npuvp::test_support;
using namespace npuvp::test_support::litmus;

namespace {

CommandResult run_qemu(const std::string& elf, int harts) {
  return run_command("timeout 60 qemu-system-riscv64 -M virt -smp " + std::to_string(harts) +
                     " -bios none -nographic -monitor none -kernel " + firmware(elf) + " </dev/null");
}

// Every expected test ran fully and every outcome is one RVWMO allows.
void expect_litmus_allowed(const LitmusRun& run, const std::vector<std::string>& expected_tests) {
  EXPECT_THAT(violations(run, expected_tests), ::testing::IsEmpty());
}

void expect_workload_passes(const std::string& name, int harts) {
  auto result = run_qemu("mesh/" + name + ".elf", harts);
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  const std::string prefix = name + ": PASS ";
  bool found = false;
  for (const auto& line : lines_of(result.out))
    if (line.rfind(prefix, 0) == 0) {
      found = true;
      EXPECT_NE(line.find(" harts=" + std::to_string(harts) + " "), std::string::npos) << line;
    }
  EXPECT_TRUE(found) << "no '" << prefix << "' line in:\n" << result.out;
}

}  // namespace

TEST(MeshQemu, HelloInHartOrder) {
  for (int harts : {16, 3}) {
    auto result = run_qemu("mesh/hello.elf", harts);
    EXPECT_EQ(result.status, 0) << result.err;
    std::vector<std::string> expected;
    for (int h = 0; h < harts; ++h)
      expected.push_back("hello from hart " + std::to_string(h) + " of " + std::to_string(harts));
    EXPECT_EQ(lines_of(result.out), expected);
  }
}

TEST(MeshQemu, BlockedLu) {
  expect_workload_passes("lu", 16);
  expect_workload_passes("lu", 3);
}
TEST(MeshQemu, Fft) {
  expect_workload_passes("fft", 16);
  expect_workload_passes("fft", 3);
}
TEST(MeshQemu, RadixSort) {
  expect_workload_passes("radix", 16);
  expect_workload_passes("radix", 3);
}
TEST(MeshQemu, OceanStencil) {
  expect_workload_passes("ocean", 16);
  expect_workload_passes("ocean", 3);
}
TEST(MeshQemu, NBody) {
  expect_workload_passes("nbody", 16);
  expect_workload_passes("nbody", 3);
}

TEST(MeshQemu, LitmusOutcomesAllowedByRvwmo) {
  auto result = run_qemu("mesh/litmus.elf", 16);
  ASSERT_EQ(result.status, 0) << result.err;
  auto run = parse_litmus(result.out);
  EXPECT_TRUE(run.skipped.empty());
  expect_litmus_allowed(run, all_tests());
}

// With 2 harts the 4-thread tests are skipped, the others still run completely.
TEST(MeshQemu, LitmusWithTwoHarts) {
  auto result = run_qemu("mesh/litmus.elf", 2);
  ASSERT_EQ(result.status, 0) << result.err;
  auto run = parse_litmus(result.out);
  EXPECT_EQ(run.skipped, (std::vector<std::string>{"IRIW", "IRIW+fences"}));
  expect_litmus_allowed(run, {"MP", "MP+fences", "SB", "SB+fences", "LB", "LB+fences", "MP+stale",
                              "MP+stale+fences", "CoRR", "CoRR+fence", "2+2W", "2+2W+fences"});
}

// The checker itself must reject what RVWMO forbids (so the tests above can fail).
TEST(MeshQemu, CheckerRejectsForbiddenOutcomes) {
  EXPECT_NE(rvwmo_forbids("MP+fences", {{"r0", 1}, {"r1", 0}}), "");
  EXPECT_EQ(rvwmo_forbids("MP", {{"r0", 1}, {"r1", 0}}), "");
  EXPECT_NE(rvwmo_forbids("SB+fences", {{"r0", 0}, {"r1", 0}}), "");
  EXPECT_EQ(rvwmo_forbids("SB", {{"r0", 0}, {"r1", 0}}), "");
  EXPECT_NE(rvwmo_forbids("LB+fences", {{"r0", 1}, {"r1", 1}}), "");
  EXPECT_EQ(rvwmo_forbids("LB", {{"r0", 1}, {"r1", 1}}), "");
  EXPECT_NE(rvwmo_forbids("IRIW+fences", {{"r0", 1}, {"r1", 0}, {"r2", 1}, {"r3", 0}}), "");
  EXPECT_EQ(rvwmo_forbids("IRIW", {{"r0", 1}, {"r1", 0}, {"r2", 1}, {"r3", 0}}), "");
  EXPECT_NE(rvwmo_forbids("CoRR", {{"r0", 1}, {"r1", 0}}), "");
  EXPECT_NE(rvwmo_forbids("CoRR+fence", {{"r0", 1}, {"r1", 0}}), "");
  EXPECT_NE(rvwmo_forbids("2+2W+fences", {{"x", 1}, {"y", 1}}), "");
  EXPECT_EQ(rvwmo_forbids("2+2W", {{"x", 1}, {"y", 1}}), "");
  EXPECT_NE(rvwmo_forbids("2+2W", {{"x", 0}, {"y", 1}}), "");
  EXPECT_NE(rvwmo_forbids("MP", {{"r0", 2}, {"r1", 0}}), "");
  EXPECT_EQ(rvwmo_forbids("MP+stale", {{"r0", 1}, {"r1", 0}, {"r2", 0}}), "");
  EXPECT_NE(rvwmo_forbids("MP+stale", {{"r0", 0}, {"r1", 0}, {"r2", 1}}), "");
  EXPECT_NE(rvwmo_forbids("MP+stale+fences", {{"r0", 1}, {"r1", 0}, {"r2", 0}}), "");

  auto run = parse_litmus(
      "litmus MP+fences iterations=3 threads=2\n"
      "litmus MP+fences outcome r0=1 r1=0 count=1\n"
      "litmus MP+fences outcome r0=1 r1=1 count=2\n"
      "litmus done\n");
  ASSERT_EQ(run.outcomes["MP+fences"].size(), 2u);
  EXPECT_EQ(run.outcomes["MP+fences"][0].first, (Outcome{{"r0", 1}, {"r1", 0}}));
  EXPECT_EQ(run.outcomes["MP+fences"][0].second, 1u);
  EXPECT_EQ(run.iterations["MP+fences"], 3u);
  EXPECT_EQ(violations(run, {"MP+fences"}).size(), 1u);  // the forbidden r0=1 r1=0
}
