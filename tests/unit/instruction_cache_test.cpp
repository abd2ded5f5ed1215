// InstructionCache (models/mem/instruction_cache.h): tags of a
// set-associative cache with LRU replacement. Hits, misses, which line a fill
// evicts, invalidation and the geometry checks.
#include "mem/instruction_cache.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace npuvp {
namespace {

constexpr std::uint64_t kInvalid = InstructionCache::kInvalid;

// Accesses `address`; returns whether it hit and stores the evicted line.
bool access(InstructionCache& cache, std::uint64_t address, std::uint64_t* evicted = nullptr) {
  std::uint64_t line = 0x1234;
  bool hit = cache.access(address, line);
  if (evicted) *evicted = line;
  return hit;
}

TEST(InstructionCache, FirstAccessMissesThenTheWholeLineHits) {
  InstructionCache cache(1024, 64, 2);
  std::uint64_t evicted = 0;
  EXPECT_FALSE(access(cache, 0x8000'0040, &evicted));
  EXPECT_EQ(evicted, kInvalid) << "filling an empty way evicts nothing";
  EXPECT_TRUE(access(cache, 0x8000'0040, &evicted));
  EXPECT_EQ(evicted, kInvalid) << "a hit evicts nothing";
  EXPECT_TRUE(access(cache, 0x8000'0044));
  EXPECT_TRUE(access(cache, 0x8000'007e)) << "last halfword of the line";
  EXPECT_FALSE(access(cache, 0x8000'0080)) << "next line";
  EXPECT_FALSE(access(cache, 0x8000'003e)) << "previous line";
  EXPECT_EQ(cache.hits(), 3u);
  EXPECT_EQ(cache.misses(), 3u);
}

TEST(InstructionCache, LineGeometry) {
  InstructionCache cache(4096, 32, 4);
  EXPECT_EQ(cache.line_size(), 32u);
  EXPECT_EQ(cache.line_of(0x1000'003f), 0x1000'0020u);
  EXPECT_EQ(cache.line_of(0x1000'0020), 0x1000'0020u);
  EXPECT_EQ(cache.line_of(0x1000'001f), 0x1000'0000u);
}

TEST(InstructionCache, DirectMappedConflictsEvictEachOther) {
  // 4 sets of one 64-byte line: addresses 256 bytes apart share a set.
  InstructionCache cache(256, 64, 1);
  std::uint64_t evicted = 0;
  EXPECT_FALSE(access(cache, 0x1000));
  EXPECT_FALSE(access(cache, 0x1040)) << "another set";
  EXPECT_FALSE(access(cache, 0x1100, &evicted));
  EXPECT_EQ(evicted, 0x1000u);
  EXPECT_TRUE(access(cache, 0x1040)) << "the other set is untouched";
  EXPECT_FALSE(access(cache, 0x1008, &evicted));
  EXPECT_EQ(evicted, 0x1100u);
  EXPECT_FALSE(access(cache, 0x1100, &evicted));
  EXPECT_EQ(evicted, 0x1000u);
}

TEST(InstructionCache, LeastRecentlyUsedWayIsEvicted) {
  // One set of 4 ways.
  InstructionCache cache(256, 64, 4);
  for (std::uint64_t a : {0x000, 0x040, 0x080, 0x0c0}) EXPECT_FALSE(access(cache, a));
  // Use 0x000 again: 0x040 is now the least recently used.
  EXPECT_TRUE(access(cache, 0x000));
  std::uint64_t evicted = 0;
  EXPECT_FALSE(access(cache, 0x100, &evicted));
  EXPECT_EQ(evicted, 0x040u);
  // Order of use now: 0x080, 0x0c0, 0x000, 0x100.
  EXPECT_TRUE(access(cache, 0x080));
  EXPECT_FALSE(access(cache, 0x140, &evicted));
  EXPECT_EQ(evicted, 0x0c0u);
  EXPECT_FALSE(access(cache, 0x040, &evicted));
  EXPECT_EQ(evicted, 0x000u);
  EXPECT_TRUE(access(cache, 0x080));
  EXPECT_TRUE(access(cache, 0x100));
  EXPECT_TRUE(access(cache, 0x140));
  EXPECT_TRUE(access(cache, 0x040));
}

TEST(InstructionCache, LoopLargerThanTheCacheMissesEveryTime) {
  // 2 sets x 2 ways; a loop over lines 0..4. Set 0 gets lines 0, 2 and 4:
  // three lines cycling through two LRU ways miss every time. Set 1 gets
  // lines 1 and 3, which fit: they miss once, then hit.
  InstructionCache cache(256, 64, 2);
  for (int round = 0; round < 3; ++round)
    for (std::uint64_t line = 0; line < 5; ++line) access(cache, line * 64);
  EXPECT_EQ(cache.misses(), 3u * 3u + 2u);
  EXPECT_EQ(cache.hits(), 2u * 2u);
  // A loop that fits (4 lines) hits after the first round.
  InstructionCache fits(256, 64, 2);
  for (int round = 0; round < 3; ++round)
    for (std::uint64_t line = 0; line < 4; ++line) access(fits, line * 64);
  EXPECT_EQ(fits.misses(), 4u);
  EXPECT_EQ(fits.hits(), 8u);
}

TEST(InstructionCache, InvalidateAllEmptiesEveryWay) {
  InstructionCache cache(512, 64, 2);
  for (std::uint64_t a = 0; a < 512; a += 64) EXPECT_FALSE(access(cache, a));
  for (std::uint64_t a = 0; a < 512; a += 64) EXPECT_TRUE(access(cache, a));
  cache.invalidate_all();
  std::uint64_t evicted = 0;
  for (std::uint64_t a = 0; a < 512; a += 64) {
    EXPECT_FALSE(access(cache, a, &evicted)) << a;
    EXPECT_EQ(evicted, kInvalid) << "invalid ways are filled first";
  }
  for (std::uint64_t a = 0; a < 512; a += 64) EXPECT_TRUE(access(cache, a)) << a;
  EXPECT_EQ(cache.misses(), 16u) << "counters are cumulative";
  EXPECT_EQ(cache.hits(), 16u);
}

TEST(InstructionCache, HighAddressesAreDistinctLines) {
  InstructionCache cache(1024, 64, 2);
  EXPECT_FALSE(access(cache, 0x8800'0000));
  EXPECT_FALSE(access(cache, 0x1'8800'0000)) << "same set and low bits, different tag";
  EXPECT_TRUE(access(cache, 0x8800'0000));
  EXPECT_TRUE(access(cache, 0x1'8800'0000));
}

TEST(InstructionCache, BadGeometryThrows) {
  EXPECT_THROW(InstructionCache(1024, 0, 1), std::invalid_argument) << "zero line";
  EXPECT_THROW(InstructionCache(1024, 48, 1), std::invalid_argument) << "line not a power of two";
  EXPECT_THROW(InstructionCache(1024, 4, 1), std::invalid_argument) << "line below 8 bytes";
  EXPECT_THROW(InstructionCache(1024, 64, 0), std::invalid_argument) << "zero ways";
  EXPECT_THROW(InstructionCache(0, 64, 1), std::invalid_argument) << "zero size";
  EXPECT_THROW(InstructionCache(1000, 64, 1), std::invalid_argument) << "size not a multiple of the line";
  EXPECT_THROW(InstructionCache(512, 64, 3), std::invalid_argument) << "size not a multiple of line x ways";
  EXPECT_THROW(InstructionCache(192, 64, 1), std::invalid_argument) << "3 sets";
  EXPECT_THROW(InstructionCache(64 * 4 * 6, 64, 4), std::invalid_argument) << "6 sets";
  EXPECT_NO_THROW(InstructionCache(8, 8, 1)) << "one line";
  EXPECT_NO_THROW(InstructionCache(64 * 3, 64, 3)) << "fully associative, 3 ways, 1 set";
  EXPECT_NO_THROW(InstructionCache(32 << 10, 64, 4)) << "the AI Core default";
}

}  // namespace
}  // namespace npuvp
