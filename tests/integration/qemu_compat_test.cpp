// QEMU compatibility of the RISC-V cores (issue 23): the same ELFs on Debian's
// qemu-system-riscv64 -M virt (the reference) and on npuvp must print the
// same lines.
//   - self-modifying code: stores to code then fence.i, on one hart and across
//     the 16 harts of the mesh cluster (whose stores sit in coherent L1s);
//   - misaligned loads and stores of every width, performed as on QEMU, and
//     misaligned atomics still trapping; the parameter still selects trapping;
//   - PMP regions and Sdtrig triggers seen from machine mode.
#include "integration/run_npuvp.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace npuvp::test_support;
using ::testing::HasSubstr;

namespace {

CommandResult run_qemu(const std::string& elf, int harts) {
  return run_command("timeout 60 qemu-system-riscv64 -M virt -smp " + std::to_string(harts) +
                     " -bios none -nographic -monitor none -kernel " + firmware(elf) + " </dev/null");
}

std::vector<std::string> console_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

// Same exit status and console on QEMU with `harts` harts and on npuvp with `options`.
void expect_same_as_qemu(const std::string& elf, int harts, const std::string& options, const std::string& last) {
  auto qemu = run_qemu(elf, harts);
  ASSERT_EQ(qemu.status, 0) << "qemu: " << qemu.out << qemu.err;
  auto ours = run_npuvp("run --elf " + firmware(elf) + " --quiet " + options);
  EXPECT_EQ(ours.status, 0) << ours.err;
  auto expected = console_lines(qemu.out);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(expected.back(), last) << "the program did not finish on QEMU";
  EXPECT_EQ(console_lines(ours.out), expected);
}

}  // namespace

TEST(QemuCompat, SelfModifyingCodeOnTheCluster) {
  expect_same_as_qemu("tests/self-modifying.elf", 16, "--cluster", "self-modifying: PASS harts=16 wrong=0");
}

TEST(QemuCompat, MisalignedAccessesOnTheHostCpu) {
  expect_same_as_qemu("tests/misaligned-single-hart.elf", 1, "", "misaligned: done");
}

TEST(QemuCompat, MisalignedAccessesOnTheCluster) {
  expect_same_as_qemu("tests/misaligned.elf", 16, "--cluster", "misaligned: done");
}

// The parameter still selects trapping: the first misaligned load is fatal to
// the program (the runtime's handler reports it).
TEST(QemuCompat, MisalignedAccessesTrapWhenNotAllowed) {
  auto ours = run_npuvp("run --elf " + firmware("tests/misaligned-single-hart.elf") +
                        " --quiet --set cpu.allow_misaligned=false");
  EXPECT_NE(ours.status, 0);
  EXPECT_THAT(ours.out + ours.err, HasSubstr("load address misaligned"));
}

TEST(QemuCompat, PmpAndTriggers) {
  expect_same_as_qemu("tests/pmp-triggers.elf", 1, "", "pmp-triggers: done");
}

// PMP parameters the hart cannot have are bad input (125) with both values named.
TEST(QemuCompat, ImpossiblePmpParametersAreBadInput) {
  for (const std::string setting : {"cpu.pmp.entries=12", "cpu.pmp.granularity=6", "cluster.hart3.pmp.granularity=2"}) {
    auto result = run_npuvp("run --elf " + firmware("tests/misaligned.elf") + " --quiet --cluster --set " + setting);
    EXPECT_EQ(result.status, 125) << setting;
    EXPECT_THAT(result.err, HasSubstr("entries must be 0, 16 or 64 and the granularity a power of two")) << setting;
  }
}

// 64 entries or a coarser granularity are legal choices (QEMU's are the defaults).
TEST(QemuCompat, OtherPmpShapesRunTheSameProgram) {
  auto result = run_npuvp("run --elf " + firmware("tests/misaligned-single-hart.elf") +
                          " --quiet --set cpu.pmp.entries=64 --set cpu.pmp.granularity=4KiB");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("misaligned: done"));
}

// --itrace also traces instructions run under PMP fetch checks (U-mode): the
// probe's load and ecall appear before the trap they cause.
TEST(QemuCompat, InstructionTraceShowsUserModeCode) {
  std::string trace = temp_path("pmp_itrace.txt");
  auto result = run_npuvp("run --elf " + firmware("tests/pmp-triggers.elf") + " --quiet --itrace " + trace);
  ASSERT_EQ(result.status, 0) << result.err;
  auto lines = console_lines(read_file(trace));
  std::remove(trace.c_str());
  auto trap = std::find_if(lines.begin(), lines.end(), [](const std::string& line) {
    return line.find("trap environment call from U-mode") != std::string::npos;
  });
  ASSERT_NE(trap, lines.end());
  ASSERT_GE(trap - lines.begin(), 2);
  EXPECT_THAT(*(trap - 1), HasSubstr(" ecall"));
  EXPECT_THAT(*(trap - 2), HasSubstr("ld a0,0(a0)"));
}
