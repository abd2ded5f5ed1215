// InstructionCache: tags of a set-associative instruction cache with LRU
// replacement. The data itself stays in memory (the hart fetches through DMI
// and caches decoded instructions); this model decides which fetches miss and
// which line a fill evicts, so the AI Core can charge the fill over the ring
// and make the hart decode (and miss) again after an eviction.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace npuvp {

class InstructionCache {
 public:
  InstructionCache(std::uint64_t size, std::uint64_t line_size, std::uint64_t ways)
      : line_size_(line_size), ways_(ways) {
    if (line_size == 0 || (line_size & (line_size - 1)) != 0 || line_size < 8)
      throw std::invalid_argument("instruction-cache line size must be a power of two of at least 8 bytes");
    if (ways == 0 || size == 0 || size % (line_size * ways) != 0)
      throw std::invalid_argument("instruction-cache size must be a non-zero multiple of line size x ways");
    sets_ = size / (line_size * ways);
    if ((sets_ & (sets_ - 1)) != 0) throw std::invalid_argument("instruction-cache set count must be a power of two");
    tags_.assign(sets_ * ways_, kInvalid);
    ages_.assign(sets_ * ways_, 0);
  }

  std::uint64_t line_size() const { return line_size_; }
  std::uint64_t line_of(std::uint64_t address) const { return address & ~(line_size_ - 1); }

  // Looks `address` up; on a miss the line is allocated and `evicted` is the
  // line address it replaced (or kInvalid). Returns true on a hit.
  bool access(std::uint64_t address, std::uint64_t& evicted) {
    std::uint64_t line = line_of(address);
    std::uint64_t set = (line / line_size_) & (sets_ - 1);
    std::uint64_t* tags = &tags_[set * ways_];
    std::uint64_t* ages = &ages_[set * ways_];
    ++clock_;
    evicted = kInvalid;
    for (std::uint64_t way = 0; way < ways_; ++way)
      if (tags[way] == line) {
        ages[way] = clock_;
        ++hits_;
        return true;
      }
    std::uint64_t victim = 0;
    for (std::uint64_t way = 1; way < ways_; ++way)
      if (ages[way] < ages[victim]) victim = way;
    evicted = tags[victim];
    tags[victim] = line;
    ages[victim] = clock_;
    ++misses_;
    return false;
  }
  void invalidate_all() { tags_.assign(tags_.size(), kInvalid); }

  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }
  static constexpr std::uint64_t kInvalid = ~0ull;

 private:
  std::uint64_t line_size_, ways_, sets_ = 0;
  std::vector<std::uint64_t> tags_, ages_;
  std::uint64_t clock_ = 0, hits_ = 0, misses_ = 0;
};

}  // namespace npuvp
