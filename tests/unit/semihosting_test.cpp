// Semihosting service against a fake guest memory (no ISS involved).
#include "core/console.h"
#include "core/parameters.h"
#include "cpu/semihosting.h"

#include <gtest/gtest.h>
#include <systemc>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace npuvp {
namespace {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

// Guest RAM at [kBase, kBase + size); everything else is inaccessible.
class FakeMemory : public GuestMemory {
 public:
  static constexpr std::uint64_t kBase = 0x80000000;
  explicit FakeMemory(std::size_t size = 0x10000) : bytes_(size, 0) {}
  bool read(std::uint64_t address, void* data, std::size_t length) override {
    if (!contains(address, length)) return false;
    std::memcpy(data, &bytes_[address - kBase], length);
    return true;
  }
  bool write(std::uint64_t address, const void* data, std::size_t length) override {
    if (!contains(address, length)) return false;
    std::memcpy(&bytes_[address - kBase], data, length);
    return true;
  }
  // Test helpers.
  void put_string(std::uint64_t address, const std::string& text) {
    ASSERT_TRUE(write(address, text.c_str(), text.size() + 1));
  }
  // A parameter block of XLEN-wide fields.
  void put_fields(std::uint64_t address, std::vector<std::uint64_t> fields, unsigned xlen = 64) {
    for (std::size_t i = 0; i < fields.size(); ++i) ASSERT_TRUE(write(address + i * xlen / 8, &fields[i], xlen / 8));
  }
  std::uint64_t get64(std::uint64_t address) {
    std::uint64_t value = 0;
    EXPECT_TRUE(read(address, &value, 8));
    return value;
  }
  std::string get_bytes(std::uint64_t address, std::size_t length) {
    std::string text(length, '\0');
    EXPECT_TRUE(read(address, text.data(), length));
    return text;
  }

 private:
  bool contains(std::uint64_t address, std::size_t length) const {
    return address >= kBase && address - kBase <= bytes_.size() && length <= bytes_.size() - (address - kBase);
  }
  std::vector<std::uint8_t> bytes_;
};

constexpr std::uint64_t kBlock = FakeMemory::kBase + 0x100;
constexpr std::uint64_t kBuffer = FakeMemory::kBase + 0x1000;
constexpr std::uint64_t kMinusOne = ~std::uint64_t{0};

std::string temp_path(const std::string& tag) {
  return ::testing::TempDir() + "npuvp_semihosting_" + tag + "_" + std::to_string(::getpid()) + ".txt";
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Semihosting, RecognisesTheCallSequence) {
  EXPECT_TRUE(Semihosting::is_call(0x01F01013, 0x00100073, 0x40705013));
  EXPECT_FALSE(Semihosting::is_call(0x00000013, 0x00100073, 0x40705013));  // nop before: a real breakpoint
  EXPECT_FALSE(Semihosting::is_call(0x01F01013, 0x00100073, 0x00000013));
}

TEST(Semihosting, ConsoleWritesGoToTheOutput) {
  std::string path = temp_path("console");
  ParameterRegistry::instance().set_override("cpu.semihosting.output", path, "test");
  GuestConsole::instance().clear();
  {
    Semihosting semihosting("cpu.semihosting");
    FakeMemory memory;
    sc_time now = SC_ZERO_TIME;

    memory.put_string(kBuffer, "A");
    EXPECT_EQ(semihosting.call(Semihosting::kSysWritec, kBuffer, memory, now).value, 0u);
    memory.put_string(kBuffer, "bc\n");
    EXPECT_EQ(semihosting.call(Semihosting::kSysWrite0, kBuffer, memory, now).value, 0u);
    // SYS_WRITE to handle 1 (stdout, open from the start): returns bytes NOT written.
    memory.put_string(kBuffer, "defgh");
    memory.put_fields(kBlock, {1, kBuffer, 4});
    EXPECT_EQ(semihosting.call(Semihosting::kSysWrite, kBlock, memory, now).value, 0u);
    // A buffer running off the end of memory: the inaccessible part is not written.
    std::uint64_t end = FakeMemory::kBase + 0x10000;
    memory.put_string(end - 3, "XY");
    memory.put_fields(kBlock, {2, end - 3, 5000});
    EXPECT_EQ(semihosting.call(Semihosting::kSysWrite, kBlock, memory, now).value, 5000u);
    memory.put_fields(kBlock, {2, end - 3, 2});
    EXPECT_EQ(semihosting.call(Semihosting::kSysWrite, kBlock, memory, now).value, 0u);
    EXPECT_EQ(semihosting.console_bytes.value(), 10u);
    EXPECT_EQ(semihosting.calls.value(), 5u);
  }
  EXPECT_EQ(file_text(path), "Abc\ndefgXY");
  EXPECT_EQ(GuestConsole::instance().transcript(), "Abc\ndefgXY");
  std::remove(path.c_str());
}

TEST(Semihosting, OpenTtyAndRefuseHostFiles) {
  ParameterRegistry::instance().set_override("cpu.semihosting.output", "none", "test");
  GuestConsole::instance().clear();
  Semihosting semihosting("cpu.semihosting");
  FakeMemory memory;
  sc_time now = SC_ZERO_TIME;
  auto open = [&](const std::string& name, std::uint64_t mode) {
    memory.put_string(kBuffer, name);
    memory.put_fields(kBlock, {kBuffer, mode, name.size()});
    return semihosting.call(Semihosting::kSysOpen, kBlock, memory, now).value;
  };
  auto call1 = [&](std::uint64_t operation, std::uint64_t field) {
    memory.put_fields(kBlock, {field});
    return semihosting.call(operation, kBlock, memory, now).value;
  };
  auto error = [&] { return semihosting.call(Semihosting::kSysErrno, 0, memory, now).value; };

  std::uint64_t in = open(":tt", 0);   // "r"
  std::uint64_t out = open(":tt", 4);  // "w"
  std::uint64_t err = open(":tt", 8);  // "a": stderr with SH_EXT_STDOUT_STDERR
  EXPECT_NE(in, kMinusOne);
  EXPECT_NE(out, kMinusOne);
  EXPECT_NE(err, kMinusOne);
  EXPECT_NE(in, out);
  EXPECT_EQ(call1(Semihosting::kSysIstty, in), 1u);
  EXPECT_EQ(call1(Semihosting::kSysIstty, out), 1u);
  EXPECT_EQ(call1(Semihosting::kSysFlen, out), kMinusOne);  // a console has no length
  memory.put_fields(kBlock, {out, 0});
  EXPECT_EQ(semihosting.call(Semihosting::kSysSeek, kBlock, memory, now).value, kMinusOne);
  EXPECT_EQ(error(), 29u);  // ESPIPE

  memory.put_string(kBuffer + 0x100, "tty!");
  memory.put_fields(kBlock, {out, kBuffer + 0x100, 4});
  EXPECT_EQ(semihosting.call(Semihosting::kSysWrite, kBlock, memory, now).value, 0u);
  memory.put_fields(kBlock, {err, kBuffer + 0x100, 1});
  EXPECT_EQ(semihosting.call(Semihosting::kSysWrite, kBlock, memory, now).value, 0u);
  memory.put_fields(kBlock, {in, kBuffer + 0x100, 4});  // stdin is not writable
  EXPECT_EQ(semihosting.call(Semihosting::kSysWrite, kBlock, memory, now).value, 4u);
  EXPECT_EQ(error(), 9u);  // EBADF
  EXPECT_EQ(GuestConsole::instance().transcript(), "tty!t");

  int warnings = sc_core::sc_report_handler::get_count("npuvp/semihosting");
  EXPECT_EQ(open("/etc/passwd", 0), kMinusOne);
  EXPECT_EQ(error(), 13u);  // EACCES
  EXPECT_EQ(open("results.txt", 4), kMinusOne);
  EXPECT_EQ(sc_core::sc_report_handler::get_count("npuvp/semihosting"), warnings + 1);  // once

  EXPECT_EQ(call1(Semihosting::kSysClose, out), 0u);
  EXPECT_EQ(call1(Semihosting::kSysClose, out), kMinusOne);
  EXPECT_EQ(error(), 9u);
  EXPECT_EQ(call1(Semihosting::kSysIstty, out), kMinusOne);
  // Handles 0-2 exist from the start (picolibc 1.8 writes to fd 1 directly).
  EXPECT_EQ(call1(Semihosting::kSysIstty, 0), 1u);
  EXPECT_EQ(call1(Semihosting::kSysIstty, 2), 1u);
}

TEST(Semihosting, ExitReasonsAndCodes) {
  ParameterRegistry::instance().set_override("cpu.semihosting.output", "none", "test");
  Semihosting semihosting("cpu.semihosting");
  FakeMemory memory;
  sc_time now = SC_ZERO_TIME;

  memory.put_fields(kBlock, {0x20026, 3});  // ADP_Stopped_ApplicationExit, code 3
  auto result = semihosting.call(Semihosting::kSysExit, kBlock, memory, now);
  EXPECT_TRUE(result.exit);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_NE(result.exit_reason.find("SYS_EXIT"), std::string::npos);

  memory.put_fields(kBlock, {0x20026, 0});
  result = semihosting.call(Semihosting::kSysExit, kBlock, memory, now);
  EXPECT_TRUE(result.exit);
  EXPECT_EQ(result.exit_code, 0);

  memory.put_fields(kBlock, {0x20023, 0});  // ADP_Stopped_RunTimeErrorUnknown
  result = semihosting.call(Semihosting::kSysExit, kBlock, memory, now);
  EXPECT_TRUE(result.exit);
  EXPECT_EQ(result.exit_code, 1);

  memory.put_fields(kBlock, {0x20026, static_cast<std::uint64_t>(-2)});  // exit(-2)
  result = semihosting.call(Semihosting::kSysExitExtended, kBlock, memory, now);
  EXPECT_TRUE(result.exit);
  EXPECT_EQ(result.exit_code, -2);
  EXPECT_NE(result.exit_reason.find("SYS_EXIT_EXTENDED"), std::string::npos);

  // Other calls do not exit.
  EXPECT_FALSE(semihosting.call(Semihosting::kSysErrno, 0, memory, now).exit);
}

TEST(Semihosting, Rv32UsesWordFieldsAndReasonInRegister) {
  ParameterRegistry::instance().set_override("hart.semihosting.output", "none", "test");
  GuestConsole::instance().clear();
  Semihosting semihosting("hart.semihosting", 32);
  FakeMemory memory;
  sc_time now = SC_ZERO_TIME;
  // On RV32 SYS_EXIT's parameter is the reason itself.
  auto result = semihosting.call(Semihosting::kSysExit, 0x20026, memory, now);
  EXPECT_TRUE(result.exit);
  EXPECT_EQ(result.exit_code, 0);
  result = semihosting.call(Semihosting::kSysExit, 0x20024, memory, now);
  EXPECT_EQ(result.exit_code, 1);
  // 32-bit fields.
  memory.put_string(kBuffer, "rv32");
  memory.put_fields(kBlock, {1, kBuffer, 4}, 32);
  EXPECT_EQ(semihosting.call(Semihosting::kSysWrite, kBlock, memory, now).value, 0u);
  EXPECT_EQ(GuestConsole::instance().transcript(), "rv32");
  memory.put_fields(kBlock, {0x20026, 9}, 32);
  result = semihosting.call(Semihosting::kSysExitExtended, kBlock, memory, now);
  EXPECT_EQ(result.exit_code, 9);
  // -1 is XLEN wide.
  EXPECT_EQ(semihosting.call(0x77, 0, memory, now).value, 0xFFFFFFFFu);
}

TEST(Semihosting, UnknownOperationReturnsMinusOneAndWarnsOnce) {
  ParameterRegistry::instance().set_override("cpu.semihosting.output", "none", "test");
  Semihosting semihosting("cpu.semihosting");
  FakeMemory memory;
  int before = sc_core::sc_report_handler::get_count("npuvp/semihosting");
  EXPECT_EQ(semihosting.call(0x99, 0, memory, SC_ZERO_TIME).value, kMinusOne);
  EXPECT_EQ(semihosting.call(0x99, kBlock, memory, SC_ZERO_TIME).value, kMinusOne);
  EXPECT_EQ(sc_core::sc_report_handler::get_count("npuvp/semihosting"), before + 1);
  EXPECT_EQ(semihosting.call(0x98, 0, memory, SC_ZERO_TIME).value, kMinusOne);
  EXPECT_EQ(sc_core::sc_report_handler::get_count("npuvp/semihosting"), before + 2);
  // Host-file operations are refused the same way, with errno.
  memory.put_fields(kBlock, {kBuffer, 4});
  EXPECT_EQ(semihosting.call(Semihosting::kSysRemove, kBlock, memory, SC_ZERO_TIME).value, kMinusOne);
  EXPECT_EQ(semihosting.call(Semihosting::kSysErrno, 0, memory, SC_ZERO_TIME).value, 13u);
}

TEST(Semihosting, ReadsConfiguredInput) {
  ParameterRegistry::instance().set_override("cpu.semihosting.output", "none", "test");
  ParameterRegistry::instance().set_override("cpu.semihosting.input", "hello\\n", "test");
  Semihosting semihosting("cpu.semihosting");
  FakeMemory memory;
  sc_time now = SC_ZERO_TIME;
  EXPECT_EQ(semihosting.call(Semihosting::kSysReadc, 0, memory, now).value, static_cast<unsigned>('h'));
  memory.put_fields(kBlock, {0, kBuffer, 3});
  EXPECT_EQ(semihosting.call(Semihosting::kSysRead, kBlock, memory, now).value, 0u);  // all 3 read
  EXPECT_EQ(memory.get_bytes(kBuffer, 3), "ell");
  memory.put_fields(kBlock, {0, kBuffer, 10});
  EXPECT_EQ(semihosting.call(Semihosting::kSysRead, kBlock, memory, now).value, 8u);  // 2 of 10 read
  EXPECT_EQ(memory.get_bytes(kBuffer, 2), "o\n");
  EXPECT_EQ(semihosting.call(Semihosting::kSysRead, kBlock, memory, now).value, 10u);  // end of input
  EXPECT_EQ(semihosting.call(Semihosting::kSysReadc, 0, memory, now).value, kMinusOne);
  // Reading from an output handle fails.
  memory.put_fields(kBlock, {1, kBuffer, 4});
  EXPECT_EQ(semihosting.call(Semihosting::kSysRead, kBlock, memory, now).value, 4u);
}

TEST(Semihosting, FeaturesFileAdvertisesExtensions) {
  ParameterRegistry::instance().set_override("cpu.semihosting.output", "none", "test");
  Semihosting semihosting("cpu.semihosting");
  FakeMemory memory;
  sc_time now = SC_ZERO_TIME;
  std::string name = ":semihosting-features";
  memory.put_string(kBuffer, name);
  memory.put_fields(kBlock, {kBuffer, 1, name.size()});  // "rb"
  std::uint64_t handle = semihosting.call(Semihosting::kSysOpen, kBlock, memory, now).value;
  ASSERT_NE(handle, kMinusOne);
  memory.put_fields(kBlock, {handle});
  EXPECT_EQ(semihosting.call(Semihosting::kSysFlen, kBlock, memory, now).value, 5u);
  EXPECT_EQ(semihosting.call(Semihosting::kSysIstty, kBlock, memory, now).value, 0u);
  memory.put_fields(kBlock, {handle, kBuffer + 0x200, 4});
  EXPECT_EQ(semihosting.call(Semihosting::kSysRead, kBlock, memory, now).value, 0u);
  EXPECT_EQ(memory.get_bytes(kBuffer + 0x200, 4), "SHFB");
  memory.put_fields(kBlock, {handle, kBuffer + 0x200, 4});
  EXPECT_EQ(semihosting.call(Semihosting::kSysRead, kBlock, memory, now).value, 3u);
  EXPECT_EQ(memory.get_bytes(kBuffer + 0x200, 1), std::string(1, '\x03'));  // EXIT_EXTENDED | STDOUT_STDERR
  memory.put_fields(kBlock, {handle, 4});
  EXPECT_EQ(semihosting.call(Semihosting::kSysSeek, kBlock, memory, now).value, 0u);
  memory.put_fields(kBlock, {handle, kBuffer + 0x300, 1});
  EXPECT_EQ(semihosting.call(Semihosting::kSysRead, kBlock, memory, now).value, 0u);
  EXPECT_EQ(memory.get_bytes(kBuffer + 0x300, 1), std::string(1, '\x03'));
  // Read-only.
  memory.put_fields(kBlock, {kBuffer, 4, name.size()});
  EXPECT_EQ(semihosting.call(Semihosting::kSysOpen, kBlock, memory, now).value, kMinusOne);
}

TEST(Semihosting, TimeServicesUseSimulatedTime) {
  ParameterRegistry::instance().set_override("cpu.semihosting.output", "none", "test");
  ParameterRegistry::instance().set_override("cpu.semihosting.epoch", "1700000000", "test");
  Semihosting semihosting("cpu.semihosting");
  FakeMemory memory;
  sc_time now(1234567, sc_core::SC_US);  // 1.234567 s
  EXPECT_EQ(semihosting.call(Semihosting::kSysClock, 0, memory, now).value, 123u);
  EXPECT_EQ(semihosting.call(Semihosting::kSysTime, 0, memory, now).value, 1700000001u);
  EXPECT_EQ(semihosting.call(Semihosting::kSysTickfreq, 0, memory, now).value, 1000000000u);
  EXPECT_EQ(semihosting.call(Semihosting::kSysElapsed, kBlock, memory, now).value, 0u);
  EXPECT_EQ(memory.get64(kBlock), 1234567000u);
  EXPECT_EQ(semihosting.call(Semihosting::kSysElapsed, 0x10, memory, now).value, kMinusOne);  // unmapped
  EXPECT_EQ(semihosting.call(Semihosting::kSysErrno, 0, memory, now).value, 14u);             // EFAULT
}

TEST(Semihosting, CmdlineHeapinfoAndIserror) {
  ParameterRegistry::instance().set_override("cpu.semihosting.output", "none", "test");
  ParameterRegistry::instance().set_override("cpu.semihosting.cmdline", "prog --fast", "test");
  Semihosting semihosting("cpu.semihosting");
  FakeMemory memory;
  sc_time now = SC_ZERO_TIME;
  memory.put_fields(kBlock, {kBuffer, 64});
  EXPECT_EQ(semihosting.call(Semihosting::kSysGetCmdline, kBlock, memory, now).value, 0u);
  EXPECT_EQ(memory.get_bytes(kBuffer, 12), std::string("prog --fast\0", 12));
  EXPECT_EQ(memory.get64(kBlock + 8), 11u);
  memory.put_fields(kBlock, {kBuffer, 11});  // no room for the NUL
  EXPECT_EQ(semihosting.call(Semihosting::kSysGetCmdline, kBlock, memory, now).value, kMinusOne);

  memory.put_fields(kBuffer, {~0ull, ~0ull, ~0ull, ~0ull});
  memory.put_fields(kBlock, {kBuffer});
  EXPECT_EQ(semihosting.call(Semihosting::kSysHeapinfo, kBlock, memory, now).value, 0u);
  for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(memory.get64(kBuffer + 8 * i), 0u) << i;

  memory.put_fields(kBlock, {static_cast<std::uint64_t>(-5)});
  EXPECT_EQ(semihosting.call(Semihosting::kSysIserror, kBlock, memory, now).value, 1u);
  memory.put_fields(kBlock, {7});
  EXPECT_EQ(semihosting.call(Semihosting::kSysIserror, kBlock, memory, now).value, 0u);
}

}  // namespace
}  // namespace npuvp
