// CacheArray: the tags, states, data and LRU order of a set-associative
// cache (an L1, or one LLC bank), shared by every protocol. A way holds one
// line: its address, a protocol state (0 = the way is free) and the line's
// bytes. Everything is allocated at construction; lookups, fills and
// replacements allocate nothing.
//
// Set index = (line / line_bytes / interleave) mod sets. interleave is 1 for
// an L1 and the number of banks for an S-NUCA LLC bank, whose lines are every
// banks-th line (Geometry::home_of), so that the bank's sets are all used.
#pragma once

#include "coherence/coherence.h"

#include <cstdint>
#include <vector>

namespace npuvp::coherence {

class CacheArray {
 public:
  static constexpr int kNone = -1;

  // Throws std::invalid_argument naming `what` when the shape is not a whole
  // number (>= 1) of sets of `ways` lines of line_bytes (a power of two,
  // <= kMaxLineBytes).
  CacheArray(const std::string& what, const CacheShape& shape, unsigned line_bytes, unsigned interleave = 1);

  unsigned sets() const { return sets_; }
  unsigned ways() const { return ways_; }
  unsigned line_bytes() const { return line_bytes_; }
  unsigned entries() const { return sets_ * ways_; }
  unsigned set_of(std::uint64_t line) const {
    // Every lookup (each hit) computes this: shifts when the shape allows.
    if (shift_and_mask_) return static_cast<unsigned>((line >> set_shift_) & (sets_ - 1));
    return static_cast<unsigned>((line / line_bytes_ / interleave_) % sets_);
  }

  // The way holding `line` (global index set·ways + way), or kNone.
  int find(std::uint64_t line) const {
    const unsigned first = set_of(line) * ways_;
    for (unsigned way = first; way < first + ways_; ++way)
      if (state_[way] != 0 && line_[way] == line) return static_cast<int>(way);
    return kNone;
  }
  // A free way of line's set, or kNone.
  int free_way(std::uint64_t line) const {
    const unsigned first = set_of(line) * ways_;
    for (unsigned way = first; way < first + ways_; ++way)
      if (state_[way] == 0) return static_cast<int>(way);
    return kNone;
  }
  // The least recently used way of line's set for which evictable(state)
  // holds, or kNone.
  template <typename Predicate>
  int victim(std::uint64_t line, Predicate evictable) const {
    const unsigned first = set_of(line) * ways_;
    int best = kNone;
    for (unsigned way = first; way < first + ways_; ++way) {
      if (state_[way] == 0 || !evictable(state_[way])) continue;
      if (best == kNone || last_use_[way] < last_use_[static_cast<unsigned>(best)]) best = static_cast<int>(way);
    }
    return best;
  }

  // Takes free way `way` for `line` in `state` (non-zero), most recently used.
  void install(int way, std::uint64_t line, std::uint8_t state) {
    line_[way] = line;
    state_[way] = state;
    touch(way);
  }
  void release(int way) { state_[way] = 0; }
  void touch(int way) { last_use_[way] = ++clock_; }

  // 0 for the most recently used valid way of its set, 1 for the next...
  // (a canonical form of the LRU order, for serialising a cache's state).
  unsigned lru_rank(int way) const {
    const unsigned first = static_cast<unsigned>(way) / ways_ * ways_;
    unsigned rank = 0;
    for (unsigned other = first; other < first + ways_; ++other)
      rank += state_[other] != 0 && last_use_[other] > last_use_[way];
    return rank;
  }
  std::uint64_t line(int way) const { return line_[way]; }
  std::uint8_t state(int way) const { return state_[way]; }
  void set_state(int way, std::uint8_t state) { state_[way] = state; }
  std::uint8_t* data(int way) { return &data_[static_cast<std::size_t>(way) * line_bytes_]; }
  const std::uint8_t* data(int way) const { return &data_[static_cast<std::size_t>(way) * line_bytes_]; }

 private:
  unsigned sets_ = 1, ways_ = 1, line_bytes_ = 32, interleave_ = 1;
  // interleave_ and sets_ powers of two: set = (line >> set_shift_) mod sets_.
  bool shift_and_mask_ = false;
  unsigned set_shift_ = 0;
  std::uint64_t clock_ = 0;
  std::vector<std::uint64_t> line_;
  std::vector<std::uint8_t> state_;
  std::vector<std::uint64_t> last_use_;
  std::vector<std::uint8_t> data_;
};

}  // namespace npuvp::coherence
