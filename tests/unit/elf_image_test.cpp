// ElfImage on the project's own firmware: entry, segments, symbols and
// loading; and every kind of bad input giving a ConfigError that names the
// file and the problem.
#include "core/simulation.h"
#include "mem/elf_image.h"

#include <gtest/gtest.h>

#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace npuvp {
namespace {

namespace fs = std::filesystem;

const std::string kHello = NPUVP_FIRMWARE_DIR "/host/hello.elf";
const std::string kBench = NPUVP_FIRMWARE_DIR "/host/bench-cpu.elf";

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "'" << (text) << "' lacks '" << (part) << "'"

// The firmware is a build product; without it these tests cannot say anything.
#define REQUIRE_FIRMWARE(path)                                                                          \
  ASSERT_TRUE(fs::is_regular_file(path))                                                                \
      << (path) << " does not exist: build the firmware first (cmake --build <build dir> --target "     \
                   "firmware; it needs riscv64-unknown-elf-gcc and NPUVP_BUILD_FIRMWARE=ON)"

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A scratch folder removed at the end of the test.
class ElfInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "npuvp-elf-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string write(const std::string& name, const std::vector<char>& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    EXPECT_TRUE(out.good()) << path;
    return path;
  }
  fs::path dir_;
};

// The message of the ConfigError that opening `path` throws.
std::string open_error(const std::string& path) {
  try {
    ElfImage image(path);
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    return error.what();
  } catch (const std::exception& error) {
    ADD_FAILURE() << path << ": not a ConfigError: " << error.what();
    return error.what();
  }
  ADD_FAILURE() << path << " was accepted";
  return "";
}

TEST(ElfImage, EntryPointAndSegmentsOfHello) {
  REQUIRE_FIRMWARE(kHello);
  ElfImage image(kHello);
  EXPECT_EQ(image.path(), kHello);
  EXPECT_EQ(image.entry(), 0x80000000u);
  ASSERT_FALSE(image.segments().empty());

  bool entry_is_executable = false;
  std::uint64_t previous_end = 0;
  for (const auto& segment : image.segments()) {
    EXPECT_GT(segment.memory_size, 0u);
    EXPECT_LE(segment.bytes.size(), segment.memory_size);
    EXPECT_GE(segment.address, 0x80000000u);
    EXPECT_GE(segment.address, previous_end) << "segments overlap";
    previous_end = segment.address + segment.memory_size;
    if (image.entry() >= segment.address && image.entry() < segment.address + segment.memory_size)
      entry_is_executable = segment.executable;
  }
  EXPECT_TRUE(entry_is_executable);
  // Code first; the data segment carries .bss beyond its file contents.
  EXPECT_EQ(image.segments().front().address, 0x80000000u);
  EXPECT_TRUE(image.segments().front().executable);
  const auto& data = image.segments().back();
  EXPECT_FALSE(data.executable);
  EXPECT_GT(data.memory_size, data.bytes.size());
}

TEST(ElfImage, SegmentBytesAreTheFileContents) {
  REQUIRE_FIRMWARE(kHello);
  ElfImage image(kHello);
  // crt0's first instructions sit at the entry: compare with the file itself.
  std::vector<char> file = read_bytes(kHello);
  ASSERT_GE(file.size(), sizeof(Elf64_Ehdr));
  Elf64_Ehdr header;
  std::memcpy(&header, file.data(), sizeof header);
  bool found = false;
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr program;
    std::memcpy(&program, file.data() + header.e_phoff + i * header.e_phentsize, sizeof program);
    if (program.p_type != PT_LOAD || program.p_paddr != 0x80000000) continue;
    found = true;
    const auto& segment = image.segments().front();
    ASSERT_EQ(segment.bytes.size(), program.p_filesz);
    EXPECT_EQ(std::memcmp(segment.bytes.data(), file.data() + program.p_offset, program.p_filesz), 0);
  }
  EXPECT_TRUE(found);
}

TEST(ElfImage, Symbols) {
  REQUIRE_FIRMWARE(kHello);
  ElfImage image(kHello);
  auto tohost = image.symbol("tohost");
  auto fromhost = image.symbol("fromhost");
  auto main_address = image.symbol("main");
  ASSERT_TRUE(tohost);
  ASSERT_TRUE(fromhost);
  ASSERT_TRUE(main_address);
  EXPECT_EQ(*tohost % 64, 0u);  // alone in a 64-byte line
  EXPECT_EQ(*fromhost, *tohost + 8);
  EXPECT_EQ(image.symbol_size("tohost"), std::optional<std::uint64_t>(8));
  EXPECT_GT(*image.symbol_size("main"), 4u);
  EXPECT_GE(*main_address, image.segments().front().address);
  EXPECT_EQ(image.symbol("no_such_symbol"), std::nullopt);
  EXPECT_EQ(image.symbol_size("no_such_symbol"), std::nullopt);
  EXPECT_EQ(image.symbol(""), std::nullopt);
}

TEST(ElfImage, BenchIterationsIsAFourByteObject) {
  REQUIRE_FIRMWARE(kBench);
  ElfImage image(kBench);
  ASSERT_TRUE(image.symbol("bench_iterations"));
  EXPECT_EQ(image.symbol_size("bench_iterations"), std::optional<std::uint64_t>(4));
  EXPECT_EQ(image.entry(), 0x80000000u);
}

TEST(ElfImage, Symbolize) {
  REQUIRE_FIRMWARE(kHello);
  ElfImage image(kHello);
  std::uint64_t main_address = *image.symbol("main");
  std::uint64_t main_size = *image.symbol_size("main");
  EXPECT_EQ(image.symbolize(main_address), "main");
  EXPECT_EQ(image.symbolize(main_address + 4), "main+0x4");
  EXPECT_EQ(image.symbolize(main_address + 0x10), "main+0x10");
  EXPECT_EQ(image.symbolize(*image.symbol("tohost") + 4), "tohost+0x4");
  EXPECT_EQ(image.symbolize(0), "");
  EXPECT_EQ(image.symbolize(~0ull), "");
  // Just past main is either another symbol or nothing, never main.
  EXPECT_EQ(image.symbolize(main_address + main_size).rfind("main+", 0), std::string::npos);
}

TEST(ElfImage, LoadWritesEverySegmentAndZeroFillsBss) {
  REQUIRE_FIRMWARE(kHello);
  ElfImage image(kHello);
  std::map<std::uint64_t, std::uint8_t> memory;
  auto write = [&](std::uint64_t address, const std::uint8_t* data, std::size_t size) {
    // Take at most 100 bytes per call to exercise short writes being continued.
    std::size_t taken = std::min<std::size_t>(size, 100);
    for (std::size_t i = 0; i < taken; ++i) memory[address + i] = data[i];
    return taken;
  };
  image.load(write);
  std::size_t expected = 0;
  for (const auto& segment : image.segments()) {
    expected += segment.memory_size;
    for (std::size_t i = 0; i < segment.memory_size; ++i) {
      auto found = memory.find(segment.address + i);
      ASSERT_NE(found, memory.end()) << std::hex << segment.address + i;
      std::uint8_t want = i < segment.bytes.size() ? segment.bytes[i] : 0;
      ASSERT_EQ(found->second, want) << std::hex << segment.address + i;
    }
  }
  EXPECT_EQ(memory.size(), expected);
}

TEST(ElfImage, LoadIntoMissingMemoryNamesTheSegment) {
  REQUIRE_FIRMWARE(kHello);
  ElfImage image(kHello);
  const auto& data = image.segments().back();
  // Memory ends in the middle of the last segment's .bss.
  std::uint64_t memory_end = data.address + data.bytes.size() + 8;
  auto write = [&](std::uint64_t address, const std::uint8_t*, std::size_t size) -> std::size_t {
    if (address >= memory_end) return 0;
    return std::min<std::uint64_t>(size, memory_end - address);
  };
  try {
    image.load(write);
    FAIL() << "a segment outside memory was accepted";
  } catch (const ConfigError& error) {
    std::string message = error.what();
    EXPECT_CONTAINS(message, kHello);
    EXPECT_CONTAINS(message, "not in any memory");
    EXPECT_CONTAINS(message, "segment " + std::to_string(image.segments().size() - 1));
    char range[80];
    std::snprintf(range, sizeof range, "[0x%llx, 0x%llx)", static_cast<unsigned long long>(data.address),
                  static_cast<unsigned long long>(data.address + data.memory_size));
    EXPECT_CONTAINS(message, range);
    char first[40];
    std::snprintf(first, sizeof first, "0x%llx", static_cast<unsigned long long>(memory_end));
    EXPECT_CONTAINS(message, first);
  }
}

TEST(ElfImage, LoadRefusedFromTheStart) {
  REQUIRE_FIRMWARE(kHello);
  ElfImage image(kHello);
  auto nowhere = [](std::uint64_t, const std::uint8_t*, std::size_t) -> std::size_t { return 0; };
  try {
    image.load(nowhere);
    FAIL() << "loading into no memory was accepted";
  } catch (const ConfigError& error) {
    EXPECT_CONTAINS(error.what(), "segment 0 [0x80000000,");
    EXPECT_CONTAINS(error.what(), "not in any memory");
  }
}

TEST_F(ElfInputs, MissingFile) {
  std::string path = (dir_ / "missing.elf").string();
  std::string message = open_error(path);
  EXPECT_CONTAINS(message, path);
  EXPECT_CONTAINS(message, "No such file");
}

TEST_F(ElfInputs, ADirectoryIsNotAnElf) {
  std::string message = open_error(dir_.string());
  EXPECT_CONTAINS(message, dir_.string());
  EXPECT_CONTAINS(message, "is a directory, not an ELF file");
}

TEST_F(ElfInputs, ADeviceIsNotAnElf) {
  EXPECT_CONTAINS(open_error("/dev/null"), "ELF '/dev/null': not a regular file");
}

TEST_F(ElfInputs, TextFile) {
  std::string text = "name: hello\nimages:\n  - elf: host/hello.elf\n";
  std::string path = write("scenario.yaml", std::vector<char>(text.begin(), text.end()));
  std::string message = open_error(path);
  EXPECT_CONTAINS(message, path);
  EXPECT_CONTAINS(message, "not an ELF file");
}

TEST_F(ElfInputs, EmptyFile) {
  std::string path = write("empty.elf", {});
  std::string message = open_error(path);
  EXPECT_CONTAINS(message, path);
  EXPECT_CONTAINS(message, "the file is empty (0 bytes), not an ELF file");
}

TEST_F(ElfInputs, TruncatedCopiesOfHello) {
  REQUIRE_FIRMWARE(kHello);
  std::vector<char> file = read_bytes(kHello);
  ASSERT_GT(file.size(), 4096u);
  for (std::size_t length : {std::size_t{4}, std::size_t{16}, std::size_t{63}, std::size_t{64}, std::size_t{200},
                             std::size_t{0x1100}, file.size() / 2, file.size() - 1}) {
    SCOPED_TRACE("cut at " + std::to_string(length) + " of " + std::to_string(file.size()) + " bytes");
    std::string path = write("cut-" + std::to_string(length) + ".elf",
                             std::vector<char>(file.begin(), file.begin() + static_cast<long>(length)));
    std::string message = open_error(path);
    EXPECT_CONTAINS(message, "ELF '" + path + "'");
    EXPECT_CONTAINS(message, "truncated");
  }
}

TEST_F(ElfInputs, HostExecutableIsNotRiscV) {
  std::string host = fs::is_regular_file("/bin/true") ? "/bin/true" : "/usr/bin/true";
  ASSERT_TRUE(fs::is_regular_file(host)) << "no host ELF executable found";
  std::string message = open_error(host);
  EXPECT_CONTAINS(message, host);
  EXPECT_CONTAINS(message, "not a RISC-V ELF");
}

TEST_F(ElfInputs, ThirtyTwoBitElfIsRejected) {
  REQUIRE_FIRMWARE(kHello);
  std::vector<char> file = read_bytes(kHello);
  ASSERT_GT(file.size(), static_cast<std::size_t>(EI_CLASS));
  ASSERT_EQ(file[EI_CLASS], ELFCLASS64);
  file[EI_CLASS] = ELFCLASS32;
  std::string path = write("rv32.elf", file);
  std::string message = open_error(path);
  EXPECT_CONTAINS(message, path);
  EXPECT_CONTAINS(message, "not a 64-bit ELF");
}

TEST_F(ElfInputs, RelocatableObjectIsNotAnExecutable) {
  REQUIRE_FIRMWARE(kHello);
  std::vector<char> file = read_bytes(kHello);
  Elf64_Ehdr header;
  std::memcpy(&header, file.data(), sizeof header);
  header.e_type = ET_REL;
  std::memcpy(file.data(), &header, sizeof header);
  std::string path = write("object.o", file);
  std::string message = open_error(path);
  EXPECT_CONTAINS(message, path);
  EXPECT_CONTAINS(message, "not an executable");
}

TEST_F(ElfInputs, NoLoadableSegments) {
  REQUIRE_FIRMWARE(kHello);
  std::vector<char> file = read_bytes(kHello);
  Elf64_Ehdr header;
  std::memcpy(&header, file.data(), sizeof header);
  // Turn every PT_LOAD into PT_NULL.
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr program;
    char* where = file.data() + header.e_phoff + i * header.e_phentsize;
    std::memcpy(&program, where, sizeof program);
    if (program.p_type == PT_LOAD) program.p_type = PT_NULL;
    std::memcpy(where, &program, sizeof program);
  }
  std::string path = write("no-load.elf", file);
  std::string message = open_error(path);
  EXPECT_CONTAINS(message, path);
  EXPECT_CONTAINS(message, "no loadable segments");
}

// Rewrites hello.elf's PT_LOAD program headers: `edit(program, n)` for the
// n-th loadable one.
std::vector<char> hello_with_loads(const std::function<void(Elf64_Phdr&, int)>& edit) {
  std::vector<char> file = read_bytes(kHello);
  Elf64_Ehdr header;
  std::memcpy(&header, file.data(), sizeof header);
  int loads = 0;
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr program;
    char* where = file.data() + header.e_phoff + i * header.e_phentsize;
    std::memcpy(&program, where, sizeof program);
    if (program.p_type != PT_LOAD) continue;
    edit(program, loads++);
    std::memcpy(where, &program, sizeof program);
  }
  EXPECT_EQ(loads, 2) << "hello.elf has text and data segments";
  return file;
}

// QEMU refuses such images ("rom: requested regions overlap"); which copy
// would win depends on the load order.
TEST_F(ElfInputs, OverlappingSegmentsAreRefusedWithBothRanges) {
  REQUIRE_FIRMWARE(kHello);
  std::uint64_t text_start = 0, text_size = 0;
  std::string path = write("overlap.elf", hello_with_loads([&](Elf64_Phdr& program, int n) {
    if (n == 0) {
      text_start = program.p_paddr;
      text_size = program.p_memsz;
    } else {
      program.p_paddr = text_start + text_size - 0x20;  // the data's first 32 bytes over the text's last
    }
  }));
  std::string message = open_error(path);
  EXPECT_CONTAINS(message, path);
  EXPECT_CONTAINS(message, "loadable segments [0x80000000, ");
  EXPECT_CONTAINS(message, ") overlap");
}

TEST_F(ElfInputs, SegmentPastTheEndOfTheAddressSpaceShowsTheUnwrappedRange) {
  REQUIRE_FIRMWARE(kHello);
  std::string path = write("wrap.elf", hello_with_loads([](Elf64_Phdr& program, int n) {
    if (n == 1) {
      program.p_paddr = 0xffff'ffff'ffff'f000;
      program.p_memsz = 0x2000;
    }
  }));
  std::string message = open_error(path);
  EXPECT_CONTAINS(message, "[0xfffffffffffff000, 0x10000000000001000) runs past the end of the 64-bit address space");
}

// Segments are numbered among the loaded ones in every error, as placement errors number them
// (the header errors counted every program header, so hello.elf's data segment was "segment 2"
// there and "segment 1" when it did not fit memory).
TEST_F(ElfInputs, SegmentErrorsNumberTheLoadedSegments) {
  REQUIRE_FIRMWARE(kHello);
  std::string path = write("filesz.elf", hello_with_loads([](Elf64_Phdr& program, int n) {
    if (n == 1) program.p_filesz = program.p_memsz + 1;
  }));
  EXPECT_CONTAINS(open_error(path), "segment 1 is larger in the file than in memory");
}

// The boot ROM jumps to the entry point: one outside every segment ran whatever the memory
// held there (the ROM itself, forever, or an unmapped address: a fault about mtvec).
TEST_F(ElfInputs, EntryPointOutsideEverySegmentIsRefused) {
  REQUIRE_FIRMWARE(kHello);
  std::vector<char> file = read_bytes(kHello);
  Elf64_Ehdr header;
  std::memcpy(&header, file.data(), sizeof header);
  header.e_entry = 0x1000;
  std::memcpy(file.data(), &header, sizeof header);
  EXPECT_CONTAINS(open_error(write("entry.elf", file)), "the entry point 0x1000 lies in no loadable segment");
}

// GNU ld without a linker script (-Ttext=0x80000000) maps the ELF and program headers one page
// below the text, in the text's segment: that part, with no section in it, is left out where
// no memory is (as QEMU loads such images) instead of refusing the image; the text still loads
// at its address, and a segment whose sections lie outside memory is still refused.
TEST_F(ElfInputs, HeadersMappedBelowMemoryAreLeftOut) {
  REQUIRE_FIRMWARE(kHello);
  std::uint64_t text_address = 0, text_offset = 0;
  const std::string path = write("headers.elf", hello_with_loads([&](Elf64_Phdr& program, int n) {
    if (n != 0) return;
    text_address = program.p_paddr;
    text_offset = program.p_offset;
    program.p_vaddr -= text_offset;
    program.p_paddr -= text_offset;
    program.p_filesz += text_offset;
    program.p_memsz += text_offset;
    program.p_offset = 0;
  }));
  ASSERT_GT(text_offset, 0u);
  ElfImage image(path);
  EXPECT_EQ(image.segments()[0].header_prefix, text_offset);
  std::map<std::uint64_t, std::size_t> written;  // address -> bytes
  auto write_bytes = [&](std::uint64_t address, const std::uint8_t*, std::size_t size) {
    written[address] += size;
    return size;
  };
  auto memory_from_text = [&](std::uint64_t address, std::uint64_t) -> std::string {
    return address < text_address ? "is not in any memory" : "";
  };
  image.load(write_bytes, memory_from_text);
  ASSERT_FALSE(written.empty());
  EXPECT_EQ(written.begin()->first, text_address);  // nothing below the text

  auto no_memory_for_text = [&](std::uint64_t address, std::uint64_t) -> std::string {
    return address < text_address + 0x100 ? "is not in any memory" : "";
  };
  try {
    image.load(write_bytes, no_memory_for_text);
    FAIL() << "a segment whose text lies outside memory was loaded";
  } catch (const ConfigError& error) {
    EXPECT_CONTAINS(error.what(), "segment 0 [");
  }
}

// A refused segment is refused before the first byte of any segment is
// written (a huge .bss used to be zero-filled up to the end of memory first).
TEST(ElfImage, PlacementIsCheckedBeforeAnythingIsWritten) {
  REQUIRE_FIRMWARE(kHello);
  ElfImage image(kHello);
  ASSERT_EQ(image.segments().size(), 2u);
  std::size_t written = 0;
  auto write = [&](std::uint64_t, const std::uint8_t*, std::size_t size) {
    written += size;
    return size;
  };
  const std::uint64_t data_address = image.segments().back().address;
  auto refuse_data = [&](std::uint64_t address, std::uint64_t) -> std::string {
    return address == data_address ? "is somewhere else" : "";
  };
  try {
    image.load(write, refuse_data);
    FAIL() << "a refused segment was loaded";
  } catch (const ConfigError& error) {
    EXPECT_CONTAINS(error.what(), "segment 1 [");
    EXPECT_CONTAINS(error.what(), "is somewhere else");
  }
  EXPECT_EQ(written, 0u) << "bytes were written before the refusal";
}

}  // namespace
}  // namespace npuvp
