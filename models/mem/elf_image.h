// ElfImage: a RISC-V ELF executable read with libelf: loadable segments,
// entry point and symbols. Every defect (missing file, a directory or empty
// file, not ELF, wrong class or machine, truncated, segments that overlap or
// run past 2^64) is a ConfigError naming the file and the problem.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

struct Elf;  // libelf's handle

namespace npuvp {

class ElfImage {
 public:
  struct Segment {
    std::uint64_t address;      // physical load address (p_paddr)
    std::uint64_t memory_size;  // bytes in memory; beyond file_size they are zero
    std::vector<std::uint8_t> bytes;  // file contents (file_size bytes)
    bool executable;
    // Leading bytes that hold only the ELF and program headers, no section: GNU ld without a
    // linker script (-Ttext=0x80000000) maps them one page below the text. Where no memory is
    // there, load() leaves them out instead of refusing the image, as QEMU's loader does.
    std::uint64_t header_prefix = 0;
  };

  explicit ElfImage(const std::string& path);

  const std::string& path() const { return path_; }
  std::uint64_t entry() const { return entry_; }
  const std::vector<Segment>& segments() const { return segments_; }
  std::optional<std::uint64_t> symbol(const std::string& name) const;
  std::optional<std::uint64_t> symbol_size(const std::string& name) const;
  // "function+0x10" for an address inside a function or object, else "".
  std::string symbolize(std::uint64_t address) const;

  // Why [address, address + size) cannot take a segment ("" when it can),
  // e.g. "is not inside one memory ...": the platform's memory map, which
  // this model does not know.
  using PlacementCheck = std::function<std::string(std::uint64_t address, std::uint64_t size)>;

  // Writes every segment (zero-filling .bss) through `write`, which returns
  // how many bytes it could place; a short write is a ConfigError naming the
  // segment that hits no memory. With `check`, every segment's place is
  // checked first and nothing is written when one is refused.
  void load(const std::function<std::size_t(std::uint64_t address, const std::uint8_t* data, std::size_t size)>& write,
            const PlacementCheck& check = {}) const;

 private:
  struct Symbol {
    std::uint64_t size;
    std::string name;
  };
  void check_overlaps(const std::function<void(const std::string&)>& fail) const;
  // Sets the header_prefix of the segment that starts at the file's first byte.
  void find_header_prefix(Elf* elf, const std::vector<std::uint64_t>& file_offsets);
  // The leading bytes of segment `index` load() leaves out: its header prefix when only that
  // keeps it from its place, else 0 (a refused place is a ConfigError).
  std::uint64_t skipped_prefix(std::size_t index, const PlacementCheck& check) const;

  std::string path_;
  std::uint64_t entry_ = 0;
  std::vector<Segment> segments_;
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> symbols_;  // name -> (value, size)
  std::map<std::uint64_t, Symbol> by_address_;
};

}  // namespace npuvp
