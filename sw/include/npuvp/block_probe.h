/* The block_probe kernel's argument block and per-block record, shared by the kernel
 * (sw/kernels/tests/block_probe.c) and the host programs that launch it (dispatch and
 * launch-overhead tests, firmware/host/): a host <-> kernel contract, so it lives with
 * the other public headers of sw/include. Plain C, <stdint.h> only. */
#ifndef NPUVP_BLOCK_PROBE_H
#define NPUVP_BLOCK_PROBE_H

#include <stdint.h>

#define BLOCK_PROBE_MAX_DELAYS 8u

struct block_probe_args {
    uint64_t records;     /* address of block_dim struct block_probe_record, one per block */
    uint64_t delay_count; /* 0..BLOCK_PROBE_MAX_DELAYS; 0 = no delay */
    uint64_t delays[BLOCK_PROBE_MAX_DELAYS]; /* block b spins delays[b % delay_count] cycles */
};

/* Written by block b into records[b]. */
struct block_probe_record {
    uint32_t block;       /* BLOCK_IDX the block saw */
    uint32_t block_dim;   /* BLOCK_DIM the block saw */
    uint32_t core;        /* CORE_ID of the core that ran it */
    uint32_t visits;      /* incremented atomically: 1 unless a block ran twice */
    uint64_t start_cycle; /* AI Core cycle counter (mcycle, counted from time 0) on entry to
                             kernel_main: the first instructions of a block */
    uint64_t end_cycle;   /* the counter when the block wrote this record */
};

#endif
