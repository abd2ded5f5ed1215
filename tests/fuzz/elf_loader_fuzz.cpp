// Fuzz target: the ELF loader (models/mem/elf_image.*), as `npuvp run --elf` and a
// scenario's images use it: read the file, load every segment into a memory map like the
// SoC's (boot ROM and DRAM windows; bytes outside them are a short write), look symbols up.
// Every defect must be a ConfigError; anything else (another exception, a crash, a
// sanitizer finding, a hang) is a bug. Seeds: corpus/elf_loader.
#include "core/simulation.h"
#include "fuzz_support.h"
#include "mem/elf_image.h"

#include <algorithm>

namespace {

struct Window {
  std::uint64_t base, size;
};
// The windows of the SoC's memory map a host image may load into (docs/memory-map.md):
// the boot ROM and the first 256 MiB of DRAM. Nothing is stored: only the bounds matter.
constexpr Window kWindows[] = {{0x0000'1000, 0x1'0000}, {0x8000'0000, 0x1000'0000}};

std::size_t write_to_windows(std::uint64_t address, const std::uint8_t*, std::size_t size) {
  for (const auto& window : kWindows)
    if (address >= window.base && address - window.base < window.size)
      return static_cast<std::size_t>(std::min<std::uint64_t>(size, window.size - (address - window.base)));
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = npuvp::fuzz::write_file("image.elf", data, size);
  try {
    npuvp::ElfImage image(path);
    image.load(write_to_windows);
    for (const auto& segment : image.segments()) image.symbolize(segment.address + segment.memory_size / 2);
    image.symbolize(image.entry());
    image.symbol("_start");
    image.symbol_size("main");
  } catch (const npuvp::ConfigError&) {
    // A clear error for a bad image: what the loader must do.
  }
  return 0;
}
