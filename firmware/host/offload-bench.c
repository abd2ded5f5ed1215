/*
 * Offload performance benchmark (scenarios/offload-bench.yaml, tests/bench/offload_bench.cpp).
 *
 * Part A, launch overhead. bench_launches synchronous launches of the scalar-only
 * block_probe kernel (sw/kernels/tests/block_probe.c) with one task block. The block
 * records its AI Core cycle counter on entry to kernel_main (start_cycle) and when it
 * is done (end_cycle); the host reads its own cycle counter (rdcycle) just before
 * npuvp_launch and just after it returns. Per launch:
 *   call_to_first_instruction  start_cycle - host cycle before the call
 *   call_to_block_end          end_cycle   - host cycle before the call
 *   round_trip                 host cycle after the call returned - host cycle before it
 * and, from the npuvp_result, the split of the path: call_to_doorbell (driver, up to the
 * host cycle just before the doorbell write), doorbell_to_ts_start (the TS's first START),
 * ts_start_to_first_instruction, block_end_to_ts_completion (the TS's completion record),
 * ts_completion_to_return; and host_instructions_per_launch (instret over the call).
 * first / min / mean / max of each are printed.
 * Then bench_async_launches back-to-back npuvp_launch_async of block_probe (one block
 * each, each with its own record) and one npuvp_synchronize: host cycles per launch for
 * the submissions alone and for the whole batch.
 *
 * ASSUMPTION (printed): the host CPU's cycle counter (soc.cpu.clock) and the AI Cores'
 * (soc.aicoreN.scalar.clock) and the TS's (soc.ts.clock) all run at 1 GHz, the default,
 * and all count from simulated time 0, so host rdcycle, the kernel's start_cycle and the
 * TS cycles of npuvp_result are on one time base (1 cycle = 1 ns). Under temporal
 * decoupling (sim.quantum) each core's counter is its local time, which may run ahead
 * of the others by up to a quantum; differences between two cores' counters can carry
 * that error (a small negative submit -> TS start is a sign of it).
 *
 * Part B, GEMM scaling. C[M x N] = A[M x K] x B[K x N] (f16, sw/kernels/gemm.elf, double
 * buffered), A, B and C in DDR (bench_l2 = 0) or in the L2 buffer (bench_l2 = 1), launched
 * once with bench_blocks task blocks (default 4: one row of 256 x 128 C tiles per block at
 * 1024^3, so 1, 2 and 4 AI Cores get equal shares and A stays resident in L1 per row).
 * Prints the launch's TS cycles (completion end - start) and kernel cycles (summed over
 * blocks), checks that every element of C was written and compares bench_check sampled
 * elements bit-exactly with the reference of offload_reference.h (mismatch: exit 1).
 *
 * Patchable (scenario `patch:`): bench_launches, bench_async_launches, bench_m, bench_k,
 * bench_n (bench_m = 0 skips part B), bench_blocks, bench_l2, bench_check.
 *
 * Machine-readable lines, all starting "offload-bench: ":
 *   overhead <what> launches=L first=F min=A mean=B max=C      (host cycles; signed)
 *   async launches=L submit_cycles_per_launch=S cycles_per_launch=C total_cycles=T
 *   gemm m=.. k=.. n=.. blocks=.. cores=.. mem=ddr|l2 ts_cycles=.. kernel_cycles=.. submit_to_ts_start=..
 *   PASS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <npuvp/platform.h>

#include <npuvp/block_probe.h>
#include "npuvp_driver.h"
#include "offload_reference.h"

NPUVP_DECLARE_KERNEL_IMAGE(gemm);
NPUVP_DECLARE_KERNEL_IMAGE(block_probe);

/* Patchable parameters, all in .data (a .bss object would be cleared by the start-up
 * code after the scenario patched it). */
#define PATCHABLE __attribute__((section(".data")))
PATCHABLE uint64_t bench_launches = 20;
PATCHABLE uint64_t bench_async_launches = 20;
PATCHABLE uint64_t bench_m = 1024, bench_k = 1024, bench_n = 1024;
PATCHABLE uint64_t bench_blocks = 4;
PATCHABLE uint64_t bench_l2 = 0;
PATCHABLE uint64_t bench_check = 256;

static void check(int status, const char *what)
{
    if (status != NPUVP_OK) {
        printf("offload-bench: %s failed: %s\n", what, npuvp_status_name(status));
        printf("offload-bench: FAIL\n");
        exit(EXIT_FAILURE);
    }
}

/* ---- min / mean / max of signed cycle counts ------------------------------------------ */

struct series {
    const char *name;
    uint64_t count;
    int64_t first, min, max, sum;
};

static void series_add(struct series *s, int64_t v)
{
    if (s->count == 0) s->first = s->min = s->max = v;
    if (v < s->min) s->min = v;
    if (v > s->max) s->max = v;
    s->sum += v;
    s->count++;
}

/* Mean with one decimal, in integer arithmetic (printf of floats pulls in soft-float). */
static void print_series(const struct series *s)
{
    if (s->count == 0) {
        printf("offload-bench: overhead %s launches=0\n", s->name);
        return;
    }
    int64_t tenths = s->sum * 10 / (int64_t)s->count;
    int negative = tenths < 0;
    uint64_t t = (uint64_t)(negative ? -tenths : tenths);
    printf("offload-bench: overhead %s launches=%lu first=%ld min=%ld mean=%s%lu.%lu max=%ld\n", s->name,
           (unsigned long)s->count, (long)s->first, (long)s->min, negative ? "-" : "", (unsigned long)(t / 10),
           (unsigned long)(t % 10), (long)s->max);
}

/* ---- part A: launch overhead ----------------------------------------------------------- */

static int failures;

static void launch_overhead(const struct npuvp_kernel *probe)
{
    const uint64_t launches = bench_launches, async_launches = bench_async_launches;
    const uint64_t records_count = async_launches > 1 ? async_launches : 1;
    uint64_t records_dev;
    check(npuvp_malloc(NPUVP_MEM_DDR, records_count * sizeof(struct block_probe_record), 64, &records_dev),
          "malloc records");
    struct block_probe_record *records = npuvp_host_ptr(records_dev);

    struct series call_to_first = {"call_to_first_instruction", 0, 0, 0, 0, 0};
    struct series call_to_end = {"call_to_block_end", 0, 0, 0, 0, 0};
    struct series round_trip = {"round_trip", 0, 0, 0, 0, 0};
    struct series call_to_submit = {"call_to_doorbell", 0, 0, 0, 0, 0};
    struct series submit_to_ts = {"doorbell_to_ts_start", 0, 0, 0, 0, 0};
    struct series ts_to_first = {"ts_start_to_first_instruction", 0, 0, 0, 0, 0};
    struct series end_to_ts_end = {"block_end_to_ts_completion", 0, 0, 0, 0, 0};
    struct series ts_end_to_return = {"ts_completion_to_return", 0, 0, 0, 0, 0};
    struct series instructions = {"host_instructions_per_launch", 0, 0, 0, 0, 0};

    /* struct block_probe_args as 64-bit words: records, delay_count = 0, delays[]. */
    uint64_t args[2 + BLOCK_PROBE_MAX_DELAYS];
    memset(args, 0, sizeof args);
    args[0] = records_dev;

    for (uint64_t i = 0; i < launches; i++) {
        memset(&records[0], 0, sizeof records[0]);
        struct npuvp_result r;
        uint64_t instret_before = rdinstret();
        uint64_t before = rdcycle();
        int status = npuvp_launch(probe, 1, args, 2 + BLOCK_PROBE_MAX_DELAYS, NPUVP_STREAM_DEFAULT, &r);
        uint64_t after = rdcycle();
        uint64_t instret_after = rdinstret();
        check(status, "block_probe launch");
        const struct block_probe_record *rec = &records[0];
        if (rec->visits != 1 || rec->block != 0 || rec->block_dim != 1 || rec->start_cycle == 0) {
            printf("offload-bench: launch %lu: bad record (visits %u, block %u of %u, start %lu)\n",
                   (unsigned long)i, rec->visits, rec->block, rec->block_dim, (unsigned long)rec->start_cycle);
            failures++;
            continue;
        }
        series_add(&call_to_first, (int64_t)(rec->start_cycle - before));
        series_add(&call_to_end, (int64_t)(rec->end_cycle - before));
        series_add(&round_trip, (int64_t)(after - before));
        series_add(&call_to_submit, (int64_t)(r.host_submit_cycle - before));
        series_add(&submit_to_ts, (int64_t)(r.ts_start_cycle - r.host_submit_cycle));
        series_add(&ts_to_first, (int64_t)(rec->start_cycle - r.ts_start_cycle));
        series_add(&end_to_ts_end, (int64_t)(r.ts_end_cycle - rec->end_cycle));
        series_add(&ts_end_to_return, (int64_t)(after - r.ts_end_cycle));
        series_add(&instructions, (int64_t)(instret_after - instret_before));
    }
    print_series(&call_to_first);
    print_series(&call_to_end);
    print_series(&round_trip);
    print_series(&call_to_submit);
    print_series(&submit_to_ts);
    print_series(&ts_to_first);
    print_series(&end_to_ts_end);
    print_series(&ts_end_to_return);
    print_series(&instructions);

    /* Throughput: back-to-back asynchronous launches, then one synchronize. */
    if (async_launches == 0) {
        printf("offload-bench: async launches=0\n");
        return;
    }
    memset(records, 0, records_count * sizeof(struct block_probe_record));
    uint64_t t0 = rdcycle();
    for (uint64_t i = 0; i < async_launches; i++) {
        args[0] = records_dev + i * sizeof(struct block_probe_record);
        check(npuvp_launch_async(probe, 1, args, 2 + BLOCK_PROBE_MAX_DELAYS, NPUVP_STREAM_DEFAULT, NULL),
              "block_probe async launch");
    }
    uint64_t t1 = rdcycle();
    struct npuvp_result first_error;
    check(npuvp_synchronize(&first_error), "synchronize after the async launches");
    uint64_t t2 = rdcycle();
    uint64_t first_start = 0, last_start = 0;
    for (uint64_t i = 0; i < async_launches; i++) {
        if (records[i].visits != 1) {
            printf("offload-bench: async launch %lu: visits %u\n", (unsigned long)i, records[i].visits);
            failures++;
        }
        if (i == 0) first_start = records[i].start_cycle;
        last_start = records[i].start_cycle;
    }
    printf("offload-bench: async launches=%lu submit_cycles_per_launch=%lu cycles_per_launch=%lu total_cycles=%lu "
           "first_instruction_spacing=%lu\n",
           (unsigned long)async_launches, (unsigned long)((t1 - t0) / async_launches),
           (unsigned long)((t2 - t0) / async_launches), (unsigned long)(t2 - t0),
           (unsigned long)(async_launches > 1 ? (last_start - first_start) / (async_launches - 1) : 0));
}

/* ---- part B: GEMM ------------------------------------------------------------------------ */

/* Reference element (i, j) of C, exact integer emulation of the kernel's numerics. */
static uint16_t reference_element(const uint16_t *a, const uint16_t *b, uint64_t k, uint64_t n, uint64_t i,
                                  uint64_t j)
{
    int64_t acc = 0;
    for (uint64_t x = 0; x < k; x++)
        acc = float_round48(acc + f16_to_units24(a[i * k + x]) * f16_to_units24(b[x * n + j]));
    return units48_to_f16(acc);
}

static void gemm_scaling(const struct npuvp_kernel *gemm, unsigned cores)
{
    const uint64_t m = bench_m, k = bench_k, n = bench_n, blocks = bench_blocks ? bench_blocks : 1;
    const enum npuvp_mem_kind kind = bench_l2 ? NPUVP_MEM_L2 : NPUVP_MEM_DDR;
    const char *mem = bench_l2 ? "l2" : "ddr";
    uint64_t a_dev, b_dev, c_dev;
    check(npuvp_malloc(kind, m * k * 2, 4096, &a_dev), "malloc A");
    check(npuvp_malloc(kind, k * n * 2, 4096, &b_dev), "malloc B");
    check(npuvp_malloc(kind, m * n * 2, 4096, &c_dev), "malloc C");
    uint16_t *a = npuvp_host_ptr(a_dev), *b = npuvp_host_ptr(b_dev), *c = npuvp_host_ptr(c_dev);
    for (uint64_t x = 0; x < m * k; x++) a[x] = random_f16();
    for (uint64_t x = 0; x < k * n; x++) b[x] = random_f16();
    memset(c, 0xff, m * n * 2); /* NaN pattern: an element nobody wrote cannot pass */

    const uint64_t args[7] = {a_dev, b_dev, c_dev, m, k, n, 1};
    struct npuvp_result r;
    int status = npuvp_launch(gemm, (uint32_t)blocks, args, 7, NPUVP_STREAM_DEFAULT, &r);
    if (status != NPUVP_OK) printf("offload-bench: gemm: %s\n", npuvp_result_string(&r));
    check(status, "gemm launch");
    printf("offload-bench: gemm m=%lu k=%lu n=%lu blocks=%lu cores=%u mem=%s ts_cycles=%lu kernel_cycles=%lu "
           "submit_to_ts_start=%ld blocks_done=%u\n",
           (unsigned long)m, (unsigned long)k, (unsigned long)n, (unsigned long)blocks, cores, mem,
           (unsigned long)(r.ts_end_cycle - r.ts_start_cycle), (unsigned long)r.kernel_cycles,
           (long)(r.ts_start_cycle - r.host_submit_cycle), r.blocks_done);

    /* Every element written, and a sample bit-exact against the reference. */
    uint64_t unwritten = 0;
    for (uint64_t x = 0; x < m * n; x++) unwritten += c[x] == 0xffff;
    if (unwritten) {
        printf("offload-bench: gemm: %lu elements of C were not written\n", (unsigned long)unwritten);
        failures++;
    }
    uint64_t samples = bench_check < m * n ? bench_check : m * n, bad = 0;
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (uint64_t s = 0; s < samples; s++) {
        /* The corners of the matrix first, then pseudo-random elements. */
        uint64_t x;
        if (s == 0) x = 0;
        else if (s == 1) x = m * n - 1;
        else {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            x = (state >> 17) % (m * n);
        }
        uint16_t want = reference_element(a, b, k, n, x / n, x % n);
        if (c[x] != want) {
            if (bad < 5)
                printf("offload-bench: C[%lu][%lu] = 0x%04x, expected 0x%04x\n", (unsigned long)(x / n),
                       (unsigned long)(x % n), c[x], want);
            bad++;
        }
    }
    printf("offload-bench: gemm check: %lu sampled elements, %lu differ; %lu unwritten\n", (unsigned long)samples,
           (unsigned long)bad, (unsigned long)unwritten);
    failures += bad != 0;
    check(npuvp_free(c_dev), "free C");
    check(npuvp_free(b_dev), "free B");
    check(npuvp_free(a_dev), "free A");
}

int main(void)
{
    struct npuvp_device_info info;
    int status = npuvp_init(NULL);
    if (status != NPUVP_OK) {
        npuvp_device_info(&info);
        printf("offload-bench: npuvp_init: %s (TS state %u, detail %u)\n", npuvp_status_name(status),
               info.ts_state, info.ts_detail);
        return EXIT_FAILURE;
    }
    npuvp_device_info(&info);
    printf("offload-bench: %u AI Cores, TS protocol %u.%u\n", info.num_cores, NPU_VERSION_MAJOR(info.ts_version),
           NPU_VERSION_MINOR(info.ts_version));
    printf("offload-bench: clocks: assumed soc.cpu.clock = soc.ts.clock = soc.aicoreN.scalar.clock = 1 GHz "
           "(defaults), all cycle counters from simulated time 0: host rdcycle, TS cycles and the kernel's "
           "start_cycle are one time base, 1 cycle = 1 ns\n");

    struct npuvp_kernel probe, gemm;
    check(npuvp_kernel_load(&probe, NPUVP_KERNEL_IMAGE(block_probe)), "loading block_probe.elf");
    check(npuvp_kernel_load(&gemm, NPUVP_KERNEL_IMAGE(gemm)), "loading gemm.elf");

    launch_overhead(&probe);
    if (bench_m && bench_k && bench_n) gemm_scaling(&gemm, info.num_cores);

    check(npuvp_shutdown(), "shutdown");
    if (failures) {
        printf("offload-bench: FAIL\n");
        return EXIT_FAILURE;
    }
    printf("offload-bench: PASS\n");
    return EXIT_SUCCESS;
}
