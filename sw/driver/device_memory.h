/*
 * Device-memory allocator of the npuvp driver: hands out ranges of one device
 * memory (a DDR region, the L2 buffer) to the host program.
 *
 * The bookkeeping lives in host memory, never in the managed range (device
 * memory is for data the AI Cores read and write): a table of block
 * descriptors that the caller provides, one per block, free or used. Blocks
 * cover the pool without gaps, in address order (a doubly linked list);
 * neighbouring free blocks are always merged (coalescing on free), so the
 * list alternates used runs with single free blocks.
 *
 *   - Every block's base and size are multiples of the pool's granule (a power
 *     of two, e.g. 32 bytes, the MTE burst unit); sizes round up to it.
 *   - Allocation takes an alignment (a power of two; below the granule it
 *     counts as the granule). Policy first fit (lowest address that fits) or
 *     best fit (the free block that leaves the least over; ties: lowest
 *     address). The gap in front of an aligned allocation stays a free block.
 *   - An allocation needs up to two new descriptors (front gap, tail rest);
 *     when none are left it fails with NPUVP_ERR_TOO_FRAGMENTED and changes
 *     nothing. Out of memory is NPUVP_ERR_OUT_OF_MEMORY, also without change;
 *     npuvp_dm_get_stats() tells the largest free block.
 *
 * Plain C with no library calls (also compiles as C++: the host unit test
 * includes the .c file). Not thread- or interrupt-safe: one caller at a time.
 */
#ifndef NPUVP_DEVICE_MEMORY_H
#define NPUVP_DEVICE_MEMORY_H

#include <stdint.h>

#include "npuvp_status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum npuvp_dm_policy {
    NPUVP_DM_FIRST_FIT = 0,
    NPUVP_DM_BEST_FIT = 1,
};

/* One block descriptor (storage for the caller; fields are the allocator's). */
struct npuvp_dm_node {
    uint64_t base, size;
    int32_t prev, next; /* neighbours by address; -1 at the ends. Unused: next = free-list link */
    uint32_t used;      /* 1 allocated, 0 free */
};

struct npuvp_dm_pool {
    const char *name;              /* for messages, e.g. "ddr" */
    uint64_t base, size, granule;
    enum npuvp_dm_policy policy;
    struct npuvp_dm_node *nodes;   /* caller's table of `capacity` descriptors */
    uint32_t capacity;
    int32_t first;                 /* lowest block */
    int32_t spare;                 /* unused descriptors (linked through next) */
    uint64_t used_bytes;
    uint32_t used_blocks;
};

struct npuvp_dm_stats {
    uint64_t total;          /* pool size */
    uint64_t used;           /* bytes in allocations (rounded sizes, without alignment gaps) */
    uint64_t free;           /* total - used */
    uint64_t largest_free;   /* largest free block: any request up to this size with granule
                                alignment succeeds */
    uint32_t used_blocks;    /* live allocations */
    uint32_t free_blocks;    /* free blocks (fragments) */
    uint32_t spare_nodes;    /* descriptors left */
};

/* Sets up a pool over [base, base + size). base, size and granule: granule a power of
 * two, base and size multiples of it, size > 0; capacity >= 1. NPUVP_ERR_INVALID else. */
int npuvp_dm_init(struct npuvp_dm_pool *pool, const char *name, uint64_t base, uint64_t size,
                  uint64_t granule, enum npuvp_dm_policy policy, struct npuvp_dm_node *nodes,
                  uint32_t capacity);

/* Allocates `size` bytes (rounded up to the granule) at an address aligned to `align`
 * (0 = the granule). NPUVP_OK with *address set, or NPUVP_ERR_INVALID (size 0, alignment
 * not a power of two), NPUVP_ERR_OUT_OF_MEMORY, NPUVP_ERR_TOO_FRAGMENTED; on error the
 * pool is unchanged and *address is 0. */
int npuvp_dm_alloc(struct npuvp_dm_pool *pool, uint64_t size, uint64_t align, uint64_t *address);

/* Frees the allocation that starts at `address` and merges it with free neighbours.
 * NPUVP_ERR_NOT_ALLOCATED when no allocation starts there (incl. a second free). */
int npuvp_dm_free(struct npuvp_dm_pool *pool, uint64_t address);

/* Size of the allocation starting at `address` (rounded to the granule), 0 if none. */
uint64_t npuvp_dm_size_of(const struct npuvp_dm_pool *pool, uint64_t address);

/* Whether `address` lies in the pool's range. */
int npuvp_dm_contains(const struct npuvp_dm_pool *pool, uint64_t address);

void npuvp_dm_get_stats(const struct npuvp_dm_pool *pool, struct npuvp_dm_stats *stats);

/* Consistency check for tests: blocks cover the pool in order without gaps, no two free
 * blocks are adjacent, counters match, every descriptor is either in the list or spare.
 * Returns 0 when consistent, else a small positive number naming the broken rule. */
int npuvp_dm_check(const struct npuvp_dm_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* NPUVP_DEVICE_MEMORY_H */
