/*
 * Helpers shared by the mesh workloads: work partitioning, a deterministic random
 * generator, per-hart partial results without false sharing, and the instruction count
 * (summed minstret of all harts over the parallel part; exact under QEMU -icount and
 * on npuvp, host-tick based on QEMU without -icount).
 */
#ifndef MESH_COMMON_H
#define MESH_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include <npuvp/csr.h>
#include <npuvp/smp.h>

#include "mesh_random.h"

/* [*begin, *end) of `count` items for this hart: contiguous, sizes differing by <= 1. */
static inline void mesh_range(unsigned count, unsigned *begin, unsigned *end)
{
    unsigned harts = smp_hart_count(), h = smp_hart_id();
    unsigned base = count / harts, extra = count % harts;
    *begin = h * base + (h < extra ? h : extra);
    *end = *begin + base + (h < extra ? 1 : 0);
}

/* One value per hart, each in a 64-byte block of its own. */
typedef struct {
    double value;
    char pad[64 - sizeof(double)];
} mesh_partial_t;

/* Sum of partial[0..harts) in hart order: the same result for a given hart count. */
static inline double mesh_sum_partials(const mesh_partial_t *partial)
{
    double sum = 0.0;
    for (unsigned h = 0; h < smp_hart_count(); h++)
        sum += partial[h].value;
    return sum;
}

/* Instruction count of the parallel part: mesh_count_begin() on every hart after the
 * start barrier, mesh_count_end() on every hart at the end, then mesh_count_total()
 * after one more barrier. */
static volatile uint64_t mesh_instructions;
static __thread uint64_t mesh_instret_at_begin;     /* per hart (TLS) */
static inline void mesh_count_begin(void) { mesh_instret_at_begin = rdinstret(); }
static inline void mesh_count_end(void)
{
    smp_fetch_add64(&mesh_instructions, rdinstret() - mesh_instret_at_begin);
}
static inline uint64_t mesh_count_total(void)
{
    return smp_load_acquire64(&mesh_instructions);
}

#endif /* MESH_COMMON_H */
