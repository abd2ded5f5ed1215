/*
 * How the task scheduler spreads task blocks over the AI Cores (scenarios/offload-dispatch.yaml).
 *
 * Launches sw/kernels/tests/block_probe.elf, in which every task block records the index and
 * block count it saw, the core that ran it, a visit count and its start and end cycles, with
 * B = 1, B < N, B = N and B > N task blocks on the N AI Cores the driver finds, and checks:
 *   - every block index 0..B-1 ran exactly once and saw BLOCK_DIM = B;
 *   - a core runs one block at a time (per core, each block starts after the previous ended);
 *   - B <= N: every block gets a core of its own (all cores are idle at the launch);
 *   - B > N: every core takes part; and blocks go to whichever core is idle: when block 0
 *     spins long enough for the other cores to run all the short blocks, its core runs only
 *     block 0, and the launch takes less than the sum of its blocks;
 *   - the launch completion reports B blocks done and the host was woken by its interrupt;
 * and two driver rules: timed waits put the program's mtimecmp back, and npuvp_init
 * refuses a second attach after npuvp_shutdown.
 * Prints one "offload-dispatch: B=<b>: ok" line per launch, then "offload-dispatch: PASS" and
 * exits 0, or exits 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <npuvp/platform.h>

#include <npuvp/block_probe.h>
#include "npuvp_driver.h"

NPUVP_DECLARE_KERNEL_IMAGE(block_probe);

#define MAX_BLOCKS (2u * NPU_MAX_CORES + 1u) /* the largest case: 2N + 1 blocks */
#define LONG_BLOCK_CYCLES 60000u
#define SHORT_BLOCK_CYCLES 2000u
/* Long enough that a block outweighs the ~1,000 cycles of dispatch around it (done
 * interrupt, TS, START, instruction fetch), so parallel blocks show in the launch time. */
#define UNIFORM_BLOCK_CYCLES 20000u

static int failures;

static void expect(int ok, const char *what, uint32_t blocks)
{
    if (!ok) {
        printf("offload-dispatch: B=%u: UNEXPECTED: %s\n", blocks, what);
        failures++;
    }
}

static void check(int status, const char *what)
{
    if (status != NPUVP_OK) {
        printf("offload-dispatch: %s failed: %s\noffload-dispatch: FAIL\n", what, npuvp_status_name(status));
        exit(EXIT_FAILURE);
    }
}

/* Launches `blocks` blocks (block 0 spinning `first_delay` cycles, the others `other_delay`)
 * and checks the records. */
static void run_case(const struct npuvp_kernel *kernel, struct block_probe_record *records, uint64_t records_dev,
                     uint32_t blocks, uint32_t cores, uint64_t first_delay, uint64_t other_delay)
{
    int failures_before = failures;
    memset(records, 0, MAX_BLOCKS * sizeof *records);
    /* Block b spins delays[b % delay_count]: block 0 first_delay, the others other_delay
     * (callers keep blocks <= BLOCK_PROBE_MAX_DELAYS when the two differ). */
    struct block_probe_args args = {.records = records_dev, .delay_count = 1, .delays = {first_delay}};
    if (first_delay != other_delay) {
        args.delay_count = BLOCK_PROBE_MAX_DELAYS;
        for (uint32_t b = 1; b < BLOCK_PROBE_MAX_DELAYS; b++) args.delays[b] = other_delay;
    }

    struct npuvp_device_info before, after;
    npuvp_device_info(&before);
    uint64_t words[sizeof args / 8];
    memcpy(words, &args, sizeof args);
    struct npuvp_result result;
    check(npuvp_launch(kernel, blocks, words, sizeof args / 8, NPUVP_STREAM_DEFAULT, &result), "launch");
    npuvp_device_info(&after);

    expect(result.blocks_done == blocks, "completion does not report every block done", blocks);
    expect(after.interrupts > before.interrupts, "the host took no interrupt while waiting", blocks);

    uint32_t per_core[NPU_MAX_CORES] = {0};
    uint64_t busy_sum = 0;
    for (uint32_t b = 0; b < blocks; b++) {
        const struct block_probe_record *r = &records[b];
        if (r->visits != 1) {
            printf("offload-dispatch: B=%u: block %u ran %u times\n", blocks, b, r->visits);
            expect(0, "a block did not run exactly once", blocks);
            continue;
        }
        expect(r->block == b, "a block saw the wrong BLOCK_IDX", blocks);
        expect(r->block_dim == blocks, "a block saw the wrong BLOCK_DIM", blocks);
        expect(r->core < cores, "a block ran on a core the driver does not use", blocks);
        expect(r->end_cycle >= r->start_cycle, "a block ended before it started", blocks);
        if (r->core < NPU_MAX_CORES) per_core[r->core]++;
        busy_sum += r->end_cycle - r->start_cycle;
        /* One block at a time per core: any other block on the same core lies wholly before
         * or after this one. */
        for (uint32_t o = 0; o < b; o++) {
            const struct block_probe_record *q = &records[o];
            if (q->visits == 1 && q->core == r->core && q->start_cycle < r->end_cycle && r->start_cycle < q->end_cycle)
                expect(0, "two blocks overlapped on one core", blocks);
        }
    }

    uint32_t cores_used = 0;
    for (uint32_t c = 0; c < cores; c++) cores_used += per_core[c] != 0;
    if (blocks <= cores) {
        expect(cores_used == blocks, "blocks shared a core while others were idle", blocks);
    } else {
        expect(cores_used == cores, "a core took no block", blocks);
        if (cores > 1) {
            uint64_t span = result.ts_end_cycle - result.ts_start_cycle;
            expect(span < busy_sum, "the launch took as long as its blocks one after another", blocks);
            if (first_delay > other_delay && records[0].visits == 1 && records[0].core < NPU_MAX_CORES)
                expect(per_core[records[0].core] == 1, "the core of the long block 0 took more blocks", blocks);
        }
    }

    printf("offload-dispatch: B=%u on %u cores: blocks per core", blocks, cores);
    for (uint32_t c = 0; c < cores; c++) printf(" %u", per_core[c]);
    printf(", TS cycles %lu, block cycles summed %lu: %s\n", (unsigned long)(result.ts_end_cycle - result.ts_start_cycle),
           (unsigned long)busy_sum, failures == failures_before ? "ok" : "FAILED");
}

int main(void)
{
    struct npuvp_config config;
    npuvp_default_config(&config);
    config.wait_timeout_us = 100000; /* a lost interrupt fails the wait instead of hanging */
    /* The program's own timer setting survives the driver's timed waits. */
    const uint64_t own_deadline = clint_mtime() + NPUVP_US_TO_TICKS(1000000);
    clint_set_mtimecmp(hart_id(), own_deadline);
    int status = npuvp_init(&config);
    check(status, "npuvp_init");
    expect(clint_mtimecmp(hart_id()) == own_deadline, "npuvp_init did not put the program's mtimecmp back", 0);
    struct npuvp_device_info info;
    npuvp_device_info(&info);
    const uint32_t n = info.num_cores;
    printf("offload-dispatch: %u AI Cores\n", n);

    struct npuvp_kernel probe;
    check(npuvp_kernel_load(&probe, NPUVP_KERNEL_IMAGE(block_probe)), "loading block_probe.elf");
    uint64_t records_dev;
    check(npuvp_malloc(NPUVP_MEM_DDR, MAX_BLOCKS * sizeof(struct block_probe_record), 64, &records_dev),
          "malloc records");
    struct block_probe_record *records = npuvp_host_ptr(records_dev);

    run_case(&probe, records, records_dev, 1, n, SHORT_BLOCK_CYCLES, SHORT_BLOCK_CYCLES);
    if (n > 1) run_case(&probe, records, records_dev, n - 1, n, SHORT_BLOCK_CYCLES, SHORT_BLOCK_CYCLES);
    run_case(&probe, records, records_dev, n, n, SHORT_BLOCK_CYCLES, SHORT_BLOCK_CYCLES);
    run_case(&probe, records, records_dev, 2 * n + 1, n, UNIFORM_BLOCK_CYCLES, UNIFORM_BLOCK_CYCLES);
    /* Block 0 long, the rest short; at most BLOCK_PROBE_MAX_DELAYS blocks so that only
     * block 0 is long: 4 on one core, 7 on two, 8 on four or more. */
    uint32_t mixed = 3 * n + 1 < BLOCK_PROBE_MAX_DELAYS ? 3 * n + 1 : BLOCK_PROBE_MAX_DELAYS;
    run_case(&probe, records, records_dev, mixed, n, LONG_BLOCK_CYCLES, SHORT_BLOCK_CYCLES);

    check(npuvp_free(records_dev), "free");
    check(npuvp_shutdown(), "shutdown");
    expect(npuvp_init(&config) == NPUVP_ERR_INVALID, "npuvp_init after npuvp_shutdown did not refuse", 0);
    if (failures) {
        printf("offload-dispatch: FAIL\n");
        return EXIT_FAILURE;
    }
    printf("offload-dispatch: PASS\n");
    return EXIT_SUCCESS;
}
