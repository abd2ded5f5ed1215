// The driver's device-memory allocator (sw/driver/device_memory.c), compiled
// for the host: alignment, rounding, first and best fit, free with
// coalescing, out-of-memory and out-of-descriptor errors that leave the pool
// unchanged, and a randomised run against a shadow model.
extern "C" {
#include "../../sw/driver/device_memory.c"
}

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace {

constexpr std::uint64_t kBase = 0x9000'0000;
constexpr std::uint64_t kGranule = 32;

struct Pool {
  std::vector<npuvp_dm_node> nodes;
  npuvp_dm_pool pool{};
  Pool(std::uint64_t size, npuvp_dm_policy policy = NPUVP_DM_FIRST_FIT, std::uint32_t capacity = 64,
       std::uint64_t base = kBase)
      : nodes(capacity) {
    EXPECT_EQ(npuvp_dm_init(&pool, "test", base, size, kGranule, policy, nodes.data(), capacity), NPUVP_OK);
  }
  std::uint64_t alloc(std::uint64_t size, std::uint64_t align = 0) {
    std::uint64_t address = 1;
    EXPECT_EQ(npuvp_dm_alloc(&pool, size, align, &address), NPUVP_OK) << "size " << size << " align " << align;
    EXPECT_EQ(npuvp_dm_check(&pool), 0);
    return address;
  }
  int try_alloc(std::uint64_t size, std::uint64_t align = 0) {
    std::uint64_t address = 1;
    const int status = npuvp_dm_alloc(&pool, size, align, &address);
    if (status != NPUVP_OK) {
      EXPECT_EQ(address, 0u);
    }
    EXPECT_EQ(npuvp_dm_check(&pool), 0);
    return status;
  }
  void free(std::uint64_t address) {
    EXPECT_EQ(npuvp_dm_free(&pool, address), NPUVP_OK);
    EXPECT_EQ(npuvp_dm_check(&pool), 0);
  }
  npuvp_dm_stats stats() const {
    npuvp_dm_stats s{};
    npuvp_dm_get_stats(&pool, &s);
    return s;
  }
};

TEST(DeviceMemory, InitRejectsBadGeometry) {
  std::vector<npuvp_dm_node> nodes(4);
  npuvp_dm_pool pool{};
  EXPECT_EQ(npuvp_dm_init(&pool, "p", kBase, 0, 32, NPUVP_DM_FIRST_FIT, nodes.data(), 4), NPUVP_ERR_INVALID);
  EXPECT_EQ(npuvp_dm_init(&pool, "p", kBase, 4096, 24, NPUVP_DM_FIRST_FIT, nodes.data(), 4), NPUVP_ERR_INVALID);
  EXPECT_EQ(npuvp_dm_init(&pool, "p", kBase + 8, 4096, 32, NPUVP_DM_FIRST_FIT, nodes.data(), 4), NPUVP_ERR_INVALID);
  EXPECT_EQ(npuvp_dm_init(&pool, "p", kBase, 4100, 32, NPUVP_DM_FIRST_FIT, nodes.data(), 4), NPUVP_ERR_INVALID);
  EXPECT_EQ(npuvp_dm_init(&pool, "p", kBase, 4096, 32, NPUVP_DM_FIRST_FIT, nodes.data(), 0), NPUVP_ERR_INVALID);
  EXPECT_EQ(npuvp_dm_init(&pool, "p", ~0ull - 63, 4096, 32, NPUVP_DM_FIRST_FIT, nodes.data(), 4), NPUVP_ERR_INVALID);
  EXPECT_EQ(npuvp_dm_init(&pool, "p", kBase, 4096, 32, NPUVP_DM_FIRST_FIT, nodes.data(), 4), NPUVP_OK);
  EXPECT_EQ(npuvp_dm_check(&pool), 0);
}

TEST(DeviceMemory, SizesRoundToTheGranuleAndBlocksAreContiguous) {
  Pool p(4096);
  EXPECT_EQ(p.alloc(1), kBase);
  EXPECT_EQ(p.alloc(33), kBase + 32);
  EXPECT_EQ(p.alloc(64), kBase + 96);
  EXPECT_EQ(npuvp_dm_size_of(&p.pool, kBase), 32u);
  EXPECT_EQ(npuvp_dm_size_of(&p.pool, kBase + 32), 64u);
  EXPECT_EQ(npuvp_dm_size_of(&p.pool, kBase + 40), 0u);  // not the start of a block
  const auto s = p.stats();
  EXPECT_EQ(s.used, 160u);
  EXPECT_EQ(s.free, 4096u - 160);
  EXPECT_EQ(s.used_blocks, 3u);
  EXPECT_EQ(s.free_blocks, 1u);
  EXPECT_EQ(s.largest_free, 4096u - 160);
}

TEST(DeviceMemory, AlignmentLeavesTheGapFree) {
  Pool p(1 << 20);
  EXPECT_EQ(p.alloc(32), kBase);
  const std::uint64_t a = p.alloc(100, 4096);
  EXPECT_EQ(a, kBase + 4096);
  EXPECT_EQ(a % 4096, 0u);
  // The gap [base + 32, base + 4096) is a free block and serves the next small request.
  EXPECT_EQ(p.alloc(64), kBase + 32);
  EXPECT_EQ(p.stats().free_blocks, 2u);
  // Alignment below the granule is the granule.
  EXPECT_EQ(p.alloc(8, 8) % kGranule, 0u);
  // Large alignment relative to the pool.
  EXPECT_EQ(p.alloc(32, 1 << 19), kBase + (1 << 19));
}

TEST(DeviceMemory, RejectsBadArguments) {
  Pool p(4096);
  EXPECT_EQ(p.try_alloc(0), NPUVP_ERR_INVALID);
  EXPECT_EQ(p.try_alloc(32, 48), NPUVP_ERR_INVALID);
  EXPECT_EQ(npuvp_dm_alloc(&p.pool, 32, 0, nullptr), NPUVP_ERR_INVALID);
  EXPECT_EQ(npuvp_dm_free(&p.pool, kBase), NPUVP_ERR_NOT_ALLOCATED);
  const std::uint64_t a = p.alloc(64);
  EXPECT_EQ(npuvp_dm_free(&p.pool, a + 32), NPUVP_ERR_NOT_ALLOCATED);  // inside, not the start
  p.free(a);
  EXPECT_EQ(npuvp_dm_free(&p.pool, a), NPUVP_ERR_NOT_ALLOCATED);  // double free
  EXPECT_EQ(npuvp_dm_check(&p.pool), 0);
}

TEST(DeviceMemory, OutOfMemoryIsClearAndChangesNothing) {
  Pool p(4096);
  const std::uint64_t a = p.alloc(1024);
  const std::uint64_t b = p.alloc(1024);
  p.alloc(1024);
  p.free(b);  // free: [1024, 2048) and [3072, 4096), 1 KiB each
  const auto before = p.stats();
  EXPECT_EQ(before.free, 2048u);
  EXPECT_EQ(before.largest_free, 1024u);
  // 2 KiB are free in total but not in one piece.
  EXPECT_EQ(p.try_alloc(1025), NPUVP_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(p.try_alloc(8192), NPUVP_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(p.try_alloc(~0ull), NPUVP_ERR_OUT_OF_MEMORY);
  // Fits by size, not with this alignment: [1024, 2048) has no 2 KiB-aligned 1 KiB.
  EXPECT_EQ(p.try_alloc(1024, 2048), NPUVP_ERR_OUT_OF_MEMORY);
  const auto after = p.stats();
  EXPECT_EQ(after.used, before.used);
  EXPECT_EQ(after.free_blocks, before.free_blocks);
  EXPECT_EQ(after.spare_nodes, before.spare_nodes);
  EXPECT_EQ(p.alloc(1024), kBase + 1024);
  p.free(a);
}

TEST(DeviceMemory, FreeCoalescesWithBothNeighbours) {
  Pool p(4096);
  std::uint64_t x[4];
  for (auto& v : x) v = p.alloc(1024);
  EXPECT_EQ(p.stats().free_blocks, 0u);
  p.free(x[0]);
  p.free(x[2]);
  EXPECT_EQ(p.stats().free_blocks, 2u);
  p.free(x[1]);  // joins [0, 3072)
  auto s = p.stats();
  EXPECT_EQ(s.free_blocks, 1u);
  EXPECT_EQ(s.largest_free, 3072u);
  p.free(x[3]);  // whole pool again, one block, every descriptor back
  s = p.stats();
  EXPECT_EQ(s.free_blocks, 1u);
  EXPECT_EQ(s.largest_free, 4096u);
  EXPECT_EQ(s.used, 0u);
  EXPECT_EQ(s.spare_nodes, 63u);
  EXPECT_EQ(p.alloc(4096), kBase);
}

TEST(DeviceMemory, FirstFitTakesTheLowestBestFitTheTightest) {
  for (auto policy : {NPUVP_DM_FIRST_FIT, NPUVP_DM_BEST_FIT}) {
    Pool p(8192, policy);
    const std::uint64_t a = p.alloc(2048);  // [0, 2048)
    p.alloc(32);                            // separator
    const std::uint64_t b = p.alloc(512);   // [2080, 2592)
    p.alloc(32);                            // separator; the rest [2624, 8192) is free
    p.free(a);
    p.free(b);
    const std::uint64_t c = p.alloc(500);
    if (policy == NPUVP_DM_FIRST_FIT) {
      EXPECT_EQ(c, kBase);
    } else {
      EXPECT_EQ(c, kBase + 2080);  // the 512-byte hole fits exactly
    }
  }
}

TEST(DeviceMemory, RunningOutOfDescriptorsFailsCleanly) {
  // Three descriptors: the first allocation splits the pool in two, an aligned one in
  // the middle of the remaining free block needs two more.
  Pool p(1 << 16, NPUVP_DM_FIRST_FIT, 3);
  p.alloc(32);
  auto before = p.stats();
  EXPECT_EQ(before.spare_nodes, 1u);
  EXPECT_EQ(p.try_alloc(32, 4096), NPUVP_ERR_TOO_FRAGMENTED);
  auto after = p.stats();
  EXPECT_EQ(after.spare_nodes, before.spare_nodes);
  EXPECT_EQ(after.used, before.used);
  // Without a front gap one descriptor is enough.
  EXPECT_EQ(p.alloc(32), kBase + 32);
  // Exactly filling the last free block needs none.
  EXPECT_EQ(p.alloc((1 << 16) - 64), kBase + 64);
  EXPECT_EQ(p.try_alloc(32), NPUVP_ERR_OUT_OF_MEMORY);
}

TEST(DeviceMemory, PoolAtTheTopOfTheAddressSpace) {
  Pool p(4096, NPUVP_DM_FIRST_FIT, 8, 0ull - 8192);  // [2^64 - 8 KiB, 2^64 - 4 KiB)
  EXPECT_EQ(p.try_alloc(64, 1ull << 63), NPUVP_ERR_OUT_OF_MEMORY);
  EXPECT_NE(p.alloc(4096), 0u);
  EXPECT_TRUE(npuvp_dm_contains(&p.pool, ~0ull - 4096));
  EXPECT_FALSE(npuvp_dm_contains(&p.pool, ~0ull));
}

// Random allocations and frees against a shadow map: no overlap, alignment kept,
// statistics and the pool's invariants hold after every step, and freeing everything
// gives back one block.
TEST(DeviceMemory, RandomisedAgainstShadow) {
  for (auto policy : {NPUVP_DM_FIRST_FIT, NPUVP_DM_BEST_FIT}) {
    constexpr std::uint64_t kSize = 1 << 20;
    Pool p(kSize, policy, 256);
    std::mt19937_64 rng(42 + policy);
    std::map<std::uint64_t, std::uint64_t> live;  // address -> rounded size
    std::uint64_t used = 0;
    for (int step = 0; step < 4000; ++step) {
      if (live.empty() || rng() % 3 != 0) {
        const std::uint64_t size = 1 + rng() % 20000;
        const std::uint64_t align = 1ull << (rng() % 13);
        std::uint64_t address = 0;
        const int status = npuvp_dm_alloc(&p.pool, size, align, &address);
        ASSERT_EQ(npuvp_dm_check(&p.pool), 0);
        if (status != NPUVP_OK) {
          ASSERT_TRUE(status == NPUVP_ERR_OUT_OF_MEMORY || status == NPUVP_ERR_TOO_FRAGMENTED) << status;
          continue;
        }
        const std::uint64_t rounded = (size + kGranule - 1) / kGranule * kGranule;
        ASSERT_EQ(address % std::max<std::uint64_t>(align, kGranule), 0u);
        ASSERT_GE(address, kBase);
        ASSERT_LE(address + rounded, kBase + kSize);
        auto next = live.lower_bound(address);
        if (next != live.end()) {
          ASSERT_LE(address + rounded, next->first);
        }
        if (next != live.begin()) {
          auto prev = std::prev(next);
          ASSERT_LE(prev->first + prev->second, address);
        }
        ASSERT_EQ(npuvp_dm_size_of(&p.pool, address), rounded);
        live[address] = rounded;
        used += rounded;
      } else {
        auto it = live.begin();
        std::advance(it, rng() % live.size());
        ASSERT_EQ(npuvp_dm_free(&p.pool, it->first), NPUVP_OK);
        used -= it->second;
        live.erase(it);
        ASSERT_EQ(npuvp_dm_check(&p.pool), 0);
      }
      ASSERT_EQ(p.stats().used, used);
      ASSERT_EQ(p.stats().used_blocks, live.size());
    }
    for (const auto& [address, size] : live) ASSERT_EQ(npuvp_dm_free(&p.pool, address), NPUVP_OK);
    const auto s = p.stats();
    EXPECT_EQ(s.free_blocks, 1u);
    EXPECT_EQ(s.largest_free, kSize);
    EXPECT_EQ(s.spare_nodes, 255u);
  }
}

}  // namespace
