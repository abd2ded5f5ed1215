/*
 * What the thesis's workloads (firmware/mesh/, docs/workloads.md) share beyond
 * mesh_common.h: the input size chosen at build time, the parallel region, and the
 * checksum every run prints so that a test can compare runs bit for bit.
 *
 * Size: every workload is built twice (firmware/mesh/CMakeLists.txt, mesh_workload()):
 * mesh/NAME.elf with its small CI input and mesh/NAME-full.elf, compiled with
 * -DMESH_FULL_SIZE=1, with the input of the thesis's Table 5.3. MESH_SIZE(ci, full)
 * picks one of two constants.
 *
 * Checksum: a 64-bit FNV-1a hash of the result's bit patterns. A workload computes the
 * same values under every coherence protocol and on QEMU (reductions are summed in hart
 * order, shared accumulations are integer), so for a given hart count the checksum must
 * be identical; tests/integration/mesh_workloads_test.cpp compares them.
 */
#ifndef MESH_WORKLOAD_H
#define MESH_WORKLOAD_H

#include <stdint.h>
#include <string.h>

#include "mesh_common.h"

#ifndef MESH_FULL_SIZE
#define MESH_FULL_SIZE 0
#endif
#define MESH_SIZE(ci, full) (MESH_FULL_SIZE ? (full) : (ci))
#define MESH_SIZE_NAME (MESH_FULL_SIZE ? "full" : "ci")

#define MESH_CHECKSUM_INIT 0xcbf29ce484222325ull

static inline uint64_t mesh_checksum_u64(uint64_t hash, uint64_t value)
{
    for (unsigned byte = 0; byte < 8; byte++) {
        hash ^= (value >> (8 * byte)) & 0xff;
        hash *= 0x100000001b3ull;
    }
    return hash;
}

static inline uint64_t mesh_checksum_double(uint64_t hash, double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return mesh_checksum_u64(hash, bits);
}

static inline uint64_t mesh_checksum_doubles(uint64_t hash, const double *values, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        hash = mesh_checksum_double(hash, values[i]);
    return hash;
}

/* The parallel region: every hart calls mesh_parallel_begin() after the barrier that ends
 * the set-up and mesh_parallel_end() when its parallel work is done, before the barrier
 * after which hart 0 checks the result sequentially (outside the region). */
static inline void mesh_parallel_begin(void)
{
    roi_begin();    /* the region of interest npuvp reports as roi.* (npuvp/smp.h) */
    mesh_count_begin();
}
static inline void mesh_parallel_end(void)
{
    mesh_count_end();
    roi_end();
}

#endif /* MESH_WORKLOAD_H */
