/*
 * Synthetic random program for the NSI-vs-MESI sweeps (the thesis's "random programs
 * containing only memory and sync instructions", Figs. 5.11 and 5.12;
 * docs/reproduce-nsi.md). Every hart performs `synthetic_operations` 64-bit loads and
 * stores at random word addresses inside one region of `synthetic_footprint` bytes
 * shared by all harts, a store with probability `synthetic_store_percent` %, and
 * executes a synchronisation (`fence rw, rw`) after every `synthetic_interval` of them.
 *
 * The stream is a per-hart xorshift64* seeded with mesh_hash(seed, hart): output r
 * picks the word ((r >> 32) * words) >> 32 and is a store iff (r mod 2^32) <
 * (store_percent << 32) / 100; a store writes r. Only that arithmetic lies between
 * two memory instructions. The program is racy on purpose and never looks at the
 * values it loads except to fold them into a sink, so the control flow, and the
 * instruction stream, are the same under every protocol (and on QEMU).
 * tests/integration/mesh_synthetic_test.cpp recomputes the stream in C++.
 *
 * Parameters are patchable globals (a scenario's `patch:`). Output, one line by hart 0:
 *   synthetic: interval=I footprint=F operations=N store_percent=P seed=S harts=H
 *     cycles=C loads=l0,l1,... stores=s0,... syncs=y0,... total_loads=... total_stores=...
 *     total_syncs=...
 * (one line; cycles = hart 0's cycles from the start barrier to the end barrier).
 * The counts are the program's own: what each hart executed.
 */
#include <stdio.h>

#include <npuvp/platform.h>

#include "mesh_common.h"

/* The shared region: the SoC contract's memory for cluster harts to share
 * (docs/memory-map.md, "Inside DDR"): inside the host driver's device-memory pool,
 * which nothing uses in cluster mode, above the program, its stacks and heap. On QEMU
 * virt it needs -m 1G. */
#define REGION_BASE NPUVP_CLUSTER_SHARED_BASE
#define REGION_MAX_BYTES NPUVP_CLUSTER_SHARED_SIZE

/* Patched per run (scenario `patch:`); const volatile, so each is read from memory. */
const volatile uint64_t synthetic_interval = 100;       /* memory instructions per sync */
const volatile uint64_t synthetic_footprint = 16384;    /* bytes of the shared region */
const volatile uint64_t synthetic_operations = 2000;    /* memory instructions per hart */
const volatile uint64_t synthetic_store_percent = 30;   /* stores among them, % */
const volatile uint64_t synthetic_seed = 1;

/* What each hart executed, one 64-byte block per hart (no false sharing). */
typedef struct {
    uint64_t loads, stores, syncs, sink;
    char pad[64 - 4 * sizeof(uint64_t)];
} hart_counts_t;
static hart_counts_t counts[NPUVP_SMP_MAX_HARTS] __attribute__((aligned(64)));

extern char __heap_end[];   /* link.ld: the end of everything the image occupies */

static int parameters_valid(uint64_t interval, uint64_t footprint, uint64_t store_percent)
{
    return interval >= 1 && footprint >= 8 && footprint % 8 == 0 &&
           footprint <= REGION_MAX_BYTES && store_percent <= 100 &&
           (uintptr_t)__heap_end <= REGION_BASE;
}

enum count_field { LOADS, STORES, SYNCS };

static uint64_t count_of(unsigned hart, enum count_field field)
{
    return field == LOADS ? counts[hart].loads : field == STORES ? counts[hart].stores
                                                                 : counts[hart].syncs;
}

/* " name=v0,v1,...": one value per hart. */
static void print_list(const char *name, unsigned harts, enum count_field field)
{
    printf(" %s=", name);
    for (unsigned h = 0; h < harts; h++)
        printf(h ? ",%lu" : "%lu", (unsigned long)count_of(h, field));
}

int main(void)
{
    const unsigned me = smp_hart_id(), harts = smp_hart_count();
    /* Read every parameter once, before the timed part. */
    const uint64_t interval = synthetic_interval;
    const uint64_t footprint = synthetic_footprint;
    const uint64_t operations = synthetic_operations;
    const uint64_t store_percent = synthetic_store_percent;
    const uint64_t seed = synthetic_seed;

    if (!parameters_valid(interval, footprint, store_percent)) {
        if (me == 0)
            printf("synthetic: FAIL bad parameters interval=%lu footprint=%lu store_percent=%lu "
                   "(interval >= 1, footprint a multiple of 8 in 8..%lu, store_percent <= 100, "
                   "image below 0x%lx)\n",
                   (unsigned long)interval, (unsigned long)footprint, (unsigned long)store_percent,
                   (unsigned long)REGION_MAX_BYTES, (unsigned long)REGION_BASE);
        return 1;
    }

    volatile uint64_t *const region = (volatile uint64_t *)REGION_BASE;
    const uint64_t words = footprint / 8;
    const uint64_t store_threshold = (store_percent << 32) / 100;   /* 2^32 at 100 % */
    uint64_t state = mesh_hash(seed, me);
    if (state == 0)   /* xorshift's one fixed point */
        state = 1;

    uint64_t loads = 0, stores = 0, syncs = 0, sink = 0;
    uint64_t until_sync = interval;

    smp_barrier();   /* every hart starts together */
    roi_begin();
    const uint64_t start_cycle = rdcycle();
    for (uint64_t i = 0; i < operations; i++) {
        const uint64_t r = mesh_random(&state);
        volatile uint64_t *const word = region + (((r >> 32) * words) >> 32);
        if ((r & 0xffffffffu) < store_threshold) {
            *word = r;
            stores++;
        } else {
            sink ^= *word;   /* the value never steers the control flow */
            loads++;
        }
        if (--until_sync == 0) {
            smp_fence();   /* fence rw, rw: a synchronisation for NSI */
            syncs++;
            until_sync = interval;
        }
    }
    counts[me].loads = loads;
    counts[me].stores = stores;
    counts[me].syncs = syncs;
    counts[me].sink = sink;
    roi_end();
    smp_barrier();   /* and ends together */
    const uint64_t cycles = rdcycle() - start_cycle;

    if (me == 0) {
        uint64_t total[3] = { 0, 0, 0 };
        for (unsigned h = 0; h < harts; h++)
            for (enum count_field f = LOADS; f <= SYNCS; f++)
                total[f] += count_of(h, f);
        printf("synthetic: interval=%lu footprint=%lu operations=%lu store_percent=%lu seed=%lu "
               "harts=%u cycles=%lu",
               (unsigned long)interval, (unsigned long)footprint, (unsigned long)operations,
               (unsigned long)store_percent, (unsigned long)seed, harts, (unsigned long)cycles);
        print_list("loads", harts, LOADS);
        print_list("stores", harts, STORES);
        print_list("syncs", harts, SYNCS);
        printf(" total_loads=%lu total_stores=%lu total_syncs=%lu\n", (unsigned long)total[0],
               (unsigned long)total[1], (unsigned long)total[2]);
    }
    return 0;
}
