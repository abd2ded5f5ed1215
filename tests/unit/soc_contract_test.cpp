// The SoC contract (platform/soc_contract.h): the generated sections in
// firmware/common/include/npuvp/platform.h, sw/include/npuvp/npu_protocol.h and
// docs/memory-map.md equal what the one declaration (platform/memory_map.h and the
// device models) generates; the values written are the declared ones; and the
// generator npuvp-soc-gen finds a stale section and rewrites it.
#include "integration/run_npuvp.h"
#include "periph/clint.h"
#include "periph/plic.h"
#include "platform/memory_map.h"
#include "platform/soc_contract.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace npuvp;
using namespace npuvp::soc_contract;
using npuvp::test_support::read_file;
using npuvp::test_support::run_command;

namespace {

std::string source_path(const std::string& relative) { return std::string(NPUVP_SOURCE_DIR) + "/" + relative; }

// The generator sits next to npuvp in the build tree (build/platform/).
std::string generator_path() {
  std::string npuvp = NPUVP_EXECUTABLE;
  return npuvp.substr(0, npuvp.rfind('/')) + "/npuvp-soc-gen";
}

// "line N: generator ... / file ..." for the first line that differs.
std::string first_difference(const std::string& generated, const std::string& found) {
  std::istringstream a(generated), b(found);
  std::string x, y;
  for (unsigned line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, x)), more_b = static_cast<bool>(std::getline(b, y));
    if (!more_a && !more_b) return "the sections differ only in their final newline";
    if (!more_a || !more_b || x != y)
      return "first difference at line " + std::to_string(line) + " of the section:\n  generator: " +
             (more_a ? x : std::string("(end)")) + "\n  file:      " + (more_b ? y : std::string("(end)"));
  }
}

// The line `#define NAME ...` of `text`, without its comment, or "" if absent.
std::string definition(const std::string& text, const std::string& name) {
  const std::string prefix = "#define " + name + " ";
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.compare(0, prefix.size(), prefix) != 0) continue;
    std::string value = line.substr(prefix.size());
    value = value.substr(value.find_first_not_of(' '));
    value = value.substr(0, value.find(" /*"));
    return value.substr(0, value.find_last_not_of(' ') + 1);
  }
  return "";
}

TEST(SocContract, EveryGeneratedSectionInTheRepositoryIsCurrent) {
  ASSERT_EQ(generated_sections().size(), 7u);
  for (const GeneratedSection& section : generated_sections()) {
    SCOPED_TRACE(section.path);
    const std::string text = read_file(source_path(section.path));
    ASSERT_FALSE(text.empty()) << "cannot read " << section.path;
    std::string body, error;
    ASSERT_TRUE(extract_section(text, section, body, error)) << error;
    const std::string generated = section.generate();
    EXPECT_TRUE(body == generated) << section.path
                                   << " is stale: change platform/memory_map.h (or the device model), then run\n"
                                      "  cmake --build build --target soc_contract\n"
                                   << first_difference(generated, body);
  }
}

TEST(SocContract, PlatformHeaderCarriesTheDeclaredAddressesAndRegisters) {
  const std::string header = platform_header();
  EXPECT_EQ(definition(header, "NPUVP_DDR_BASE"), "0x80000000ul");
  EXPECT_EQ(definition(header, "NPUVP_DDR_SIZE"), "0x40000000ul");
  EXPECT_EQ(definition(header, "NPUVP_FINISHER_BASE"), "0x00100000ul");
  EXPECT_EQ(definition(header, "NPUVP_FINISHER_PASS"), "0x5555u");
  EXPECT_EQ(definition(header, "NPUVP_FINISHER_FAIL"), "0x3333u");
  EXPECT_EQ(definition(header, "NPUVP_CLINT_BASE"), "0x02000000ul");
  EXPECT_EQ(definition(header, "NPUVP_CLINT_MSIP(h)"), "(NPUVP_CLINT_BASE + 4ul * (h))");
  EXPECT_EQ(definition(header, "NPUVP_CLINT_MTIMECMP(h)"), "(NPUVP_CLINT_BASE + 0x4000ul + 8ul * (h))");
  EXPECT_EQ(definition(header, "NPUVP_CLINT_MTIME"), "(NPUVP_CLINT_BASE + 0xBFF8ul)");
  EXPECT_EQ(definition(header, "NPUVP_TIMEBASE_HZ"), "10000000ul");
  EXPECT_EQ(definition(header, "NPUVP_PLIC_BASE"), "0x0C000000ul");
  EXPECT_EQ(definition(header, "NPUVP_PLIC_ENABLE(ctx, src)"),
            "(NPUVP_PLIC_BASE + 0x2000ul + 0x80ul * (ctx) + 4ul * ((src) / 32))");
  EXPECT_EQ(definition(header, "NPUVP_PLIC_THRESHOLD(ctx)"), "(NPUVP_PLIC_BASE + 0x200000ul + 0x1000ul * (ctx))");
  EXPECT_EQ(definition(header, "NPUVP_PLIC_CLAIM(ctx)"), "(NPUVP_PLIC_BASE + 0x200004ul + 0x1000ul * (ctx))");
  EXPECT_EQ(definition(header, "NPUVP_UART0_BASE"), "0x10000000ul");
  EXPECT_EQ(definition(header, "UART_LSR"), "5");
  EXPECT_EQ(definition(header, "UART_LSR_THRE"), "0x20");
  EXPECT_EQ(definition(header, "NPUVP_L2_BUFFER_BASE"), "0x30000000ul");
  EXPECT_EQ(definition(header, "NPUVP_NO_SUCH_MACRO"), "");
}

TEST(SocContract, ProtocolHardwareCarriesTheDeclaredMailboxCoresAndInterrupts) {
  const std::string hardware = protocol_hardware();
  EXPECT_EQ(definition(hardware, "NPU_MAILBOX_BASE"), "0x20000000ull");
  EXPECT_EQ(definition(hardware, "NPU_MB_SCRATCH(i)"), "(0x40u + 8u * (unsigned)(i))");
  EXPECT_EQ(definition(hardware, "NPU_PLIC_SOURCE_DOORBELL"), "20u");
  EXPECT_EQ(definition(hardware, "NPU_PLIC_SOURCE_HOST_IRQ"), "21u");
  EXPECT_EQ(definition(hardware, "NPU_AICORE_CONTROL_BASE"), "0x20100000ull");
  EXPECT_EQ(definition(hardware, "NPU_AICORE_CONTROL_STRIDE"), "0x1000ull");
  EXPECT_EQ(definition(hardware, "NPU_AICORE_CORE_ID"), "0x48u");
  EXPECT_EQ(definition(hardware, "NPU_AICORE_STATUS_CAUSE(s)"), "(((uint64_t)(s) >> 8) & 0xFFu)");
  EXPECT_EQ(definition(hardware, "NPU_PLIC_SOURCE_AICORE_DONE(i)"), "(32u + 2u * (unsigned)(i))");
  EXPECT_EQ(definition(hardware, "NPU_PLIC_SOURCE_AICORE_ERROR(i)"), "(33u + 2u * (unsigned)(i))");
  EXPECT_EQ(definition(hardware, "NPU_MAX_CORES"), std::to_string(memory_map::kMaxAiCores) + "u");
  EXPECT_EQ(definition(hardware, "NPU_FAULT_FLAG_OVERFLOW"), "7u");
  EXPECT_EQ(definition(hardware, "NPU_L2_BUFFER_SIZE"), "0x00800000ull");
  EXPECT_EQ(definition(hardware, "NPU_KERNEL_AREA_BASE"), "0x88000000ull");
  EXPECT_EQ(definition(hardware, "NPU_KERNEL_AREA_END"), "0x8F000000ull");
  EXPECT_EQ(definition(hardware, "NPU_DEVICE_POOL_BASE"), "0x90000000ull");
  EXPECT_EQ(definition(hardware, "NPU_DEVICE_POOL_END"), "0xC0000000ull");
}

TEST(SocContract, FirmwareBuildLinksAtTheDeclaredAddresses) {
  const std::string settings = firmware_build_settings();
  for (const char* line : {"set(NPUVP_TS_IMAGE_BASE 0x87000000)",
                           "set(NPUVP_TS_IMAGE_SIZE 16M)", "set(NPUVP_KERNEL_AREA_BASE 0x88000000)",
                           "set(NPUVP_KERNEL_SLOT_SIZE 0x100000)"})
    EXPECT_NE(settings.find(line), std::string::npos) << line << " in\n" << settings;
}

// link.ld's defaults come from the contract, and a program's own --defsym still wins.
TEST(SocContract, LinkerDefaultsAreTheDdrBaseAndTheDefaultClustersHarts) {
  const std::string defaults = linker_defaults();
  for (const char* line : {"__ram_base         = DEFINED(__ram_base) ? __ram_base : 0x80000000;",
                           "__ram_size         = DEFINED(__ram_size) ? __ram_size : 1024M;",
                           "__stack_harts      = DEFINED(__stack_harts) ? __stack_harts : 16;",
                           "__npuvp_smp_harts  = DEFINED(__npuvp_smp_harts) ? __npuvp_smp_harts : 16;"})
    EXPECT_NE(defaults.find(line), std::string::npos) << line << " in\n" << defaults;
  const std::string header = platform_header();
  EXPECT_EQ(definition(header, "NPUVP_CLUSTER_SHARED_BASE"), "0xA0000000ul");
  EXPECT_EQ(definition(header, "NPUVP_CLUSTER_SHARED_SIZE"), "0x04000000ul");
  EXPECT_EQ(definition(header, "NPUVP_CLUSTER_HARTS"), "16");
}

TEST(SocContract, DocumentTablesNameEveryWindowAndInterrupt) {
  const std::string map = address_map_table();
  for (const char* row : {"| `0x0000_1000` | 4 KiB | boot ROM |", "| `0x0010_0000` | 4 KiB | sim-control finisher |",
                          "| `0x0200_0000` | 64 KiB | CLINT |", "| `0x0C00_0000` | 64 MiB | PLIC |",
                          "| `0x1000_0000` | 256 B | UART0, ns16550a |", "| `0x2000_0000` | 16 MiB | NPU control |",
                          "| `0x3000_0000` | 8 MiB | L2 buffer |", "| `0x4000_0000` | 16 MiB | mesh-cluster control |",
                          "| `0x8000_0000` | 1 GiB (`soc.ddr.size`) | DDR |", "up to `0x2011_FFFF`"})
    EXPECT_NE(map.find(row), std::string::npos) << row;
  const std::string ddr = ddr_layout_table();
  for (const char* row : {"| `0x8000_0000` | host programs", "| `0x8700_0000` | task-scheduler firmware image",
                          "| `0x8800_0000 + n·1 MiB` | AI Core kernel image slot n", "| `0x8F00_0000` | kernel argument block",
                          "| `0x9000_0000`–`0xBFFF_FFFF` | device-memory pool", "| `0x9000_0000` | default `soc.tgN.base`",
                          "| `0xA000_0000`–`0xA3FF_FFFF` | in cluster mode"})
    EXPECT_NE(ddr.find(row), std::string::npos) << row;
  const std::string interrupts = interrupt_table();
  for (const char* row : {"| UART0 | PLIC source 10 |", "| PLIC source 20 | via PLIC (enable it in context 1) |",
                          "| PLIC source 21 | via PLIC (context 0) |", "| PLIC source `32 + 2N` |",
                          "| PLIC source `33 + 2N` |"})
    EXPECT_NE(interrupts.find(row), std::string::npos) << row;
}

TEST(SocContract, SectionMarkersMustBeWholeLinesPresentOnceAndInOrder) {
  const GeneratedSection section{"f.h", "/* BEGIN */", "/* END */", nullptr};
  std::string body, error;
  EXPECT_TRUE(extract_section("a\n/* BEGIN */\nx\ny\n/* END */\nb\n", section, body, error)) << error;
  EXPECT_EQ(body, "x\ny\n");
  EXPECT_EQ(replace_section("a\n/* BEGIN */\nx\n/* END */\nb\n", section, "z\n"), "a\n/* BEGIN */\nz\n/* END */\nb\n");

  EXPECT_FALSE(extract_section("a\n/* END */\n", section, body, error));
  EXPECT_EQ(error, "f.h: no line /* BEGIN */");
  EXPECT_FALSE(extract_section("/* BEGIN */\nx\n", section, body, error));
  EXPECT_EQ(error, "f.h: no line /* END */ after /* BEGIN */");
  EXPECT_FALSE(extract_section("/* END */\n/* BEGIN */\nx\n", section, body, error));
  EXPECT_FALSE(extract_section("/* BEGIN */\n/* END */\n/* BEGIN */\n/* END */\n", section, body, error));
  EXPECT_EQ(error, "f.h: the line /* BEGIN */ appears twice");
  // A marker inside a longer line is not a marker.
  EXPECT_FALSE(extract_section("x /* BEGIN */\n/* END */\n", section, body, error));
  EXPECT_THROW(replace_section("nothing\n", section, "z\n"), std::runtime_error);
}

// npuvp-soc-gen --check fails on a copy of the tree with one stale section and names
// it; --update rewrites exactly that section, after which --check passes.
TEST(SocContract, GeneratorFindsAndRewritesAStaleSection) {
  namespace fs = std::filesystem;
  const fs::path tree = fs::temp_directory_path() / ("npuvp-soc-contract-" + std::to_string(::getpid()));
  fs::remove_all(tree);
  for (const GeneratedSection& section : generated_sections()) {
    fs::create_directories((tree / section.path).parent_path());
    fs::copy_file(source_path(section.path), tree / section.path, fs::copy_options::overwrite_existing);
  }
  const std::string protocol = (tree / "sw/include/npuvp/npu_protocol.h").string();
  std::string text = read_file(protocol);
  const std::string current = "#define NPU_PLIC_SOURCE_DOORBELL";
  ASSERT_NE(text.find(current), std::string::npos);
  text.replace(text.find(current), current.size(), "#define NPU_PLIC_SOURCE_DOORBELL 99u //");
  std::ofstream(protocol, std::ios::binary) << text;

  auto check = run_command(generator_path() + " --check " + tree.string());
  EXPECT_EQ(check.status, 1) << check.err;
  EXPECT_NE(check.err.find("sw/include/npuvp/npu_protocol.h: the section after"), std::string::npos) << check.err;
  EXPECT_EQ(check.err.find("platform.h"), std::string::npos) << check.err;

  auto update = run_command(generator_path() + " --update " + tree.string());
  EXPECT_EQ(update.status, 0) << update.err;
  EXPECT_EQ(read_file(protocol), read_file(source_path("sw/include/npuvp/npu_protocol.h")));
  EXPECT_EQ(run_command(generator_path() + " --check " + tree.string()).status, 0);

  EXPECT_EQ(run_command(generator_path() + " --check").status, 2);
  fs::remove_all(tree);
}

}  // namespace
