/* Device-memory allocator (device_memory.h). */
#include "device_memory.h"

static int is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
static uint64_t align_up(uint64_t v, uint64_t align) { return (v + align - 1) & ~(align - 1); }

static int32_t take_node(struct npuvp_dm_pool *pool)
{
    int32_t n = pool->spare;
    if (n >= 0) pool->spare = pool->nodes[n].next;
    return n;
}

static void give_node(struct npuvp_dm_pool *pool, int32_t n)
{
    pool->nodes[n].used = 0;
    pool->nodes[n].prev = -1;
    pool->nodes[n].next = pool->spare;
    pool->spare = n;
}

static uint32_t spare_count(const struct npuvp_dm_pool *pool)
{
    uint32_t count = 0;
    for (int32_t n = pool->spare; n >= 0 && count <= pool->capacity; n = pool->nodes[n].next) count++;
    return count;
}

int npuvp_dm_init(struct npuvp_dm_pool *pool, const char *name, uint64_t base, uint64_t size,
                  uint64_t granule, enum npuvp_dm_policy policy, struct npuvp_dm_node *nodes,
                  uint32_t capacity)
{
    if (!pool || !nodes || capacity == 0 || capacity > 0x7fffffffu || !is_power_of_two(granule) ||
        size == 0 || (base & (granule - 1)) || (size & (granule - 1)) || base + size < base ||
        (policy != NPUVP_DM_FIRST_FIT && policy != NPUVP_DM_BEST_FIT))
        return NPUVP_ERR_INVALID;
    pool->name = name;
    pool->base = base;
    pool->size = size;
    pool->granule = granule;
    pool->policy = policy;
    pool->nodes = nodes;
    pool->capacity = capacity;
    pool->used_bytes = 0;
    pool->used_blocks = 0;
    pool->spare = -1;
    for (uint32_t i = capacity; i-- > 1;) give_node(pool, (int32_t)i);
    pool->first = 0;
    nodes[0].base = base;
    nodes[0].size = size;
    nodes[0].prev = -1;
    nodes[0].next = -1;
    nodes[0].used = 0;
    return NPUVP_OK;
}

/* Where an allocation of `size` aligned to `align` would start inside free block n, or
 * UINT64_MAX when it does not fit. */
static uint64_t fit_in(const struct npuvp_dm_node *n, uint64_t size, uint64_t align)
{
    uint64_t start = align_up(n->base, align);
    uint64_t end = n->base + n->size;
    if (start < n->base || start > end || end - start < size) return UINT64_MAX;
    return start;
}

int npuvp_dm_alloc(struct npuvp_dm_pool *pool, uint64_t size, uint64_t align, uint64_t *address)
{
    if (address) *address = 0;
    if (!pool || !address || size == 0 || (align != 0 && !is_power_of_two(align)))
        return NPUVP_ERR_INVALID;
    if (align < pool->granule) align = pool->granule;
    if (size > pool->size) return NPUVP_ERR_OUT_OF_MEMORY;
    size = align_up(size, pool->granule);

    int32_t best = -1;
    uint64_t best_start = 0, best_waste = UINT64_MAX;
    for (int32_t i = pool->first; i >= 0; i = pool->nodes[i].next) {
        const struct npuvp_dm_node *n = &pool->nodes[i];
        if (n->used) continue;
        uint64_t start = fit_in(n, size, align);
        if (start == UINT64_MAX) continue;
        uint64_t waste = n->size - size;
        if (best < 0 || waste < best_waste) {
            best = i;
            best_start = start;
            best_waste = waste;
        }
        if (pool->policy == NPUVP_DM_FIRST_FIT || waste == 0) break;
    }
    if (best < 0) return NPUVP_ERR_OUT_OF_MEMORY;

    struct npuvp_dm_node *n = &pool->nodes[best];
    const int need_front = best_start > n->base;
    const int need_tail = best_start + size < n->base + n->size;
    if ((uint32_t)(need_front + need_tail) > spare_count(pool)) return NPUVP_ERR_TOO_FRAGMENTED;

    if (need_front) { /* [n->base, best_start) stays free, in a node before n */
        int32_t f = take_node(pool);
        struct npuvp_dm_node *front = &pool->nodes[f];
        front->base = n->base;
        front->size = best_start - n->base;
        front->used = 0;
        front->prev = n->prev;
        front->next = best;
        if (n->prev >= 0) pool->nodes[n->prev].next = f;
        else pool->first = f;
        n->prev = f;
        n->size -= front->size;
        n->base = best_start;
    }
    if (need_tail) { /* [best_start + size, end) stays free, in a node after n */
        int32_t t = take_node(pool);
        struct npuvp_dm_node *tail = &pool->nodes[t];
        tail->base = best_start + size;
        tail->size = n->size - size;
        tail->used = 0;
        tail->prev = best;
        tail->next = n->next;
        if (n->next >= 0) pool->nodes[n->next].prev = t;
        n->next = t;
        n->size = size;
    }
    n->used = 1;
    pool->used_bytes += size;
    pool->used_blocks++;
    *address = best_start;
    return NPUVP_OK;
}

static int32_t find_used(const struct npuvp_dm_pool *pool, uint64_t address)
{
    for (int32_t i = pool->first; i >= 0; i = pool->nodes[i].next) {
        const struct npuvp_dm_node *n = &pool->nodes[i];
        if (n->base > address) break;
        if (n->base == address) return n->used ? i : -1;
    }
    return -1;
}

/* Merges block b into its predecessor a (both free, adjacent). */
static void merge_into_prev(struct npuvp_dm_pool *pool, int32_t a, int32_t b)
{
    struct npuvp_dm_node *na = &pool->nodes[a], *nb = &pool->nodes[b];
    na->size += nb->size;
    na->next = nb->next;
    if (nb->next >= 0) pool->nodes[nb->next].prev = a;
    give_node(pool, b);
}

int npuvp_dm_free(struct npuvp_dm_pool *pool, uint64_t address)
{
    if (!pool) return NPUVP_ERR_INVALID;
    int32_t i = find_used(pool, address);
    if (i < 0) return NPUVP_ERR_NOT_ALLOCATED;
    struct npuvp_dm_node *n = &pool->nodes[i];
    n->used = 0;
    pool->used_bytes -= n->size;
    pool->used_blocks--;
    if (n->next >= 0 && !pool->nodes[n->next].used) merge_into_prev(pool, i, n->next);
    if (n->prev >= 0 && !pool->nodes[n->prev].used) merge_into_prev(pool, n->prev, i);
    return NPUVP_OK;
}

uint64_t npuvp_dm_size_of(const struct npuvp_dm_pool *pool, uint64_t address)
{
    int32_t i = pool ? find_used(pool, address) : -1;
    return i < 0 ? 0 : pool->nodes[i].size;
}

int npuvp_dm_contains(const struct npuvp_dm_pool *pool, uint64_t address)
{
    return pool && address >= pool->base && address - pool->base < pool->size;
}

void npuvp_dm_get_stats(const struct npuvp_dm_pool *pool, struct npuvp_dm_stats *stats)
{
    stats->total = pool->size;
    stats->used = pool->used_bytes;
    stats->free = pool->size - pool->used_bytes;
    stats->largest_free = 0;
    stats->used_blocks = pool->used_blocks;
    stats->free_blocks = 0;
    for (int32_t i = pool->first; i >= 0; i = pool->nodes[i].next) {
        const struct npuvp_dm_node *n = &pool->nodes[i];
        if (n->used) continue;
        stats->free_blocks++;
        if (n->size > stats->largest_free) stats->largest_free = n->size;
    }
    stats->spare_nodes = spare_count(pool);
}

int npuvp_dm_check(const struct npuvp_dm_pool *pool)
{
    uint64_t expect = pool->base, used = 0;
    uint32_t blocks = 0, used_blocks = 0;
    int32_t prev = -1;
    int prev_free = 0;
    for (int32_t i = pool->first; i >= 0; i = pool->nodes[i].next) {
        const struct npuvp_dm_node *n = &pool->nodes[i];
        if (++blocks > pool->capacity) return 1;            /* cycle */
        if (n->prev != prev) return 2;                        /* broken back link */
        if (n->base != expect || n->size == 0) return 3;      /* gap, overlap or empty block */
        if ((n->base | n->size) & (pool->granule - 1)) return 4;
        if (!n->used && prev_free) return 5;                  /* two free blocks side by side */
        if (n->used) {
            used += n->size;
            used_blocks++;
        }
        prev_free = !n->used;
        expect = n->base + n->size;
        prev = i;
    }
    if (expect != pool->base + pool->size) return 6;          /* does not reach the end */
    if (used != pool->used_bytes || used_blocks != pool->used_blocks) return 7;
    if (blocks + spare_count(pool) != pool->capacity) return 8; /* lost descriptors */
    return 0;
}
