// The same ELFs on Debian's qemu-system-riscv64 -M virt: console output must
// match line for line. Lines that legitimately differ are excluded: "stats:"
// lines (cycle counts) and hello's ISA line (QEMU's hart has S as well).
// FloatingPoint compares every F/D result and fflags value of fp-selftest.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <vector>

using namespace npuvp::test_support;

namespace {

std::vector<std::string> comparable_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("stats:", 0) == 0 || line.rfind("hart ", 0) == 0) continue;
    lines.push_back(line);
  }
  return lines;
}

void expect_same_console(const std::string& elf) {
  auto qemu = run_command("timeout 60 qemu-system-riscv64 -M virt -bios none -nographic -monitor none -kernel " +
                          firmware(elf) + " </dev/null");
  ASSERT_EQ(qemu.status, 0) << "qemu failed: " << qemu.err;
  auto ours = run_npuvp("run --elf " + firmware(elf) + " --quiet");
  ASSERT_EQ(ours.status, 0) << ours.err;
  auto expected = comparable_lines(qemu.out);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(comparable_lines(ours.out), expected);
}

}  // namespace

TEST(QemuDifferential, Hello) { expect_same_console("host/hello.elf"); }
TEST(QemuDifferential, TimerInterrupts) { expect_same_console("host/timer-irq.elf"); }
TEST(QemuDifferential, CpuBenchmark) { expect_same_console("host/bench-cpu.elf"); }
TEST(QemuDifferential, ExitCode) {
  auto qemu = run_command("timeout 60 qemu-system-riscv64 -M virt -bios none -nographic -monitor none -kernel " +
                          firmware("tests/exit-code.elf") + " </dev/null");
  auto ours = run_npuvp("run --elf " + firmware("tests/exit-code.elf") + " --quiet");
  EXPECT_EQ(qemu.status, 3);
  EXPECT_EQ(ours.status, qemu.status);
  EXPECT_EQ(comparable_lines(ours.out), comparable_lines(qemu.out));
}

// Every F/D instruction class on edge values in every rounding mode: results
// (full register images, so NaN boxing too), fflags, traps. Thousands of lines,
// compared one by one so that a difference names its instruction and operands.
TEST(QemuDifferential, FloatingPoint) {
  const std::string elf = "tests/fp-selftest.elf";
  auto qemu = run_command("timeout 120 qemu-system-riscv64 -M virt -bios none -nographic -monitor none -kernel " +
                          firmware(elf) + " </dev/null");
  ASSERT_EQ(qemu.status, 0) << "qemu failed: " << qemu.err;
  auto ours = run_npuvp("run --elf " + firmware(elf) + " --quiet");
  ASSERT_EQ(ours.status, 0) << ours.err;
  auto expected = comparable_lines(qemu.out), actual = comparable_lines(ours.out);
  ASSERT_GT(expected.size(), 3000u) << "fp-selftest printed too little on QEMU";
  EXPECT_EQ(expected.back().rfind("fp-selftest: ", 0), 0u) << expected.back();
  int differences = 0;
  for (std::size_t i = 0; i < std::min(expected.size(), actual.size()) && differences < 20; ++i) {
    if (actual[i] != expected[i]) {
      ADD_FAILURE() << "line " << i + 1 << ":\n  qemu:  " << expected[i] << "\n  npuvp: " << actual[i];
      ++differences;
    }
  }
  EXPECT_EQ(actual.size(), expected.size());
}
