/*
 * GEMM offload through the npuvp driver and the task scheduler (scenarios/gemm-offload.yaml).
 *
 * C[M x N] = A[M x K] x B[K x N], f16 row-major in DDR, run by sw/kernels/gemm.elf (embedded
 * in this program and loaded by the driver) on every AI Core the driver finds, then checked
 * element by element against a reference computed here, on the host CPU, with the kernel's
 * numerics: f16 inputs, float products and sums in increasing k (one rounding per addition),
 * the sum rounded to f16 to nearest even. The host has no FPU, so the reference is integer
 * arithmetic that reproduces IEEE float exactly (every partial sum is a multiple of 2^-48
 * here); a sample of elements is recomputed with soft-float (libgcc) as a cross-check.
 *
 * Three launches:
 *   1. synchronous, gemm_blocks task blocks (default 8: B > N cores), default stream;
 *   2. asynchronous on stream 1, an event recorded after it, stream 2 waiting for the event
 *      and then running vector_add D = C2 + C2 (3 blocks), so the event orders real data;
 *   3. synchronous, one task block (B = 1).
 * Prints "gemm-offload: PASS" and exits 0 when everything matches, else exits 1.
 *
 * Sizes and blocks can be patched by a scenario (`patch:`): gemm_m, gemm_k, gemm_n,
 * gemm_blocks, and gemm_check_step (1 = check every element; s > 1: every s-th).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <npuvp/platform.h>

#include "npuvp_driver.h"
#include "offload_reference.h"

NPUVP_DECLARE_KERNEL_IMAGE(gemm);
NPUVP_DECLARE_KERNEL_IMAGE(vector_add);

/* Patchable parameters (in .data, so the compiler cannot fold them). */
uint64_t gemm_m = 32, gemm_k = 64, gemm_n = 1024; /* 8 C tiles of 32 x 128 */
uint64_t gemm_blocks = 8;
uint64_t gemm_check_step = 1;

/* One element of the reference, integer emulation: row i of A and column j of B, both as
 * units of 2^-24 (au: M x K row-major, bt: N x K, i.e. B transposed). */
static uint16_t reference_element(const int32_t *au, const int32_t *bt, uint64_t i, uint64_t j)
{
    const int32_t *row = au + i * gemm_k, *col = bt + j * gemm_k;
    int64_t acc = 0;
    for (uint64_t k = 0; k < gemm_k; k++) acc = float_round48(acc + (int64_t)row[k] * col[k]);
    return units48_to_f16(acc);
}

/* The same with float arithmetic (soft-float calls on rv64imac), for the cross-check. */
static uint16_t reference_element_float(const uint16_t *a, const uint16_t *b, uint64_t i, uint64_t j)
{
    float acc = 0.0f;
    for (uint64_t k = 0; k < gemm_k; k++) acc += f16_to_float(a[i * gemm_k + k]) * f16_to_float(b[k * gemm_n + j]);
    return float_to_f16(acc);
}

/* ---- the program ------------------------------------------------------------------------ */

static int failures;

static void check(int status, const char *what)
{
    if (status != NPUVP_OK) {
        printf("gemm-offload: %s failed: %s\n", what, npuvp_status_name(status));
        printf("gemm-offload: FAIL\n");
        exit(EXIT_FAILURE);
    }
}

static void report_launch(const char *what, const struct npuvp_result *r, uint64_t blocks, unsigned cores)
{
    printf("gemm-offload: %s: %lu blocks on %u AI Cores, %s, %lu blocks done, kernel cycles %lu, "
           "TS cycles %lu (submit to first START %ld host cycles)\n",
           what, (unsigned long)blocks, cores, npuvp_result_string(r), (unsigned long)r->blocks_done,
           (unsigned long)r->kernel_cycles, (unsigned long)(r->ts_end_cycle - r->ts_start_cycle),
           (long)(r->ts_start_cycle - r->host_submit_cycle));
}

static unsigned compare(const char *what, const uint16_t *got, const uint16_t *expect, uint64_t count, int doubled)
{
    unsigned bad = 0;
    for (uint64_t x = 0; x < count; x++) {
        uint16_t want = doubled ? f16_double(expect[x]) : expect[x];
        if (got[x] == want) continue;
        if (bad < 5)
            printf("gemm-offload: %s[%lu][%lu] = 0x%04x, expected 0x%04x\n", what, (unsigned long)(x / gemm_n),
                   (unsigned long)(x % gemm_n), got[x], want);
        bad++;
    }
    if (bad) printf("gemm-offload: %s: %u of %lu elements differ\n", what, bad, (unsigned long)count);
    failures += bad != 0;
    return bad;
}

int main(void)
{
    const uint64_t m = gemm_m, k = gemm_k, n = gemm_n;
    struct npuvp_device_info info;

    int status = npuvp_init(NULL);
    if (status != NPUVP_OK) {
        npuvp_device_info(&info);
        printf("gemm-offload: npuvp_init: %s (TS state %u, detail %u)\n", npuvp_status_name(status),
               info.ts_state, info.ts_detail);
        return EXIT_FAILURE;
    }
    npuvp_device_info(&info);
    printf("gemm-offload: %u AI Cores, TS protocol %u.%u, queue of %u at 0x%lx\n", info.num_cores,
           NPU_VERSION_MAJOR(info.ts_version), NPU_VERSION_MINOR(info.ts_version), info.queue_entries,
           (unsigned long)info.queue_address);

    /* Device memory: A, B, C, C2, D, C3. */
    uint64_t a_dev, b_dev, c_dev, c2_dev, d_dev, c3_dev;
    check(npuvp_malloc(NPUVP_MEM_DDR, m * k * 2, 4096, &a_dev), "malloc A");
    check(npuvp_malloc(NPUVP_MEM_DDR, k * n * 2, 4096, &b_dev), "malloc B");
    check(npuvp_malloc(NPUVP_MEM_DDR, m * n * 2, 4096, &c_dev), "malloc C");
    check(npuvp_malloc(NPUVP_MEM_DDR, m * n * 2, 4096, &c2_dev), "malloc C2");
    check(npuvp_malloc(NPUVP_MEM_DDR, m * n * 2, 4096, &d_dev), "malloc D");
    check(npuvp_malloc(NPUVP_MEM_DDR, m * n * 2, 4096, &c3_dev), "malloc C3");
    uint16_t *a = npuvp_host_ptr(a_dev), *b = npuvp_host_ptr(b_dev), *c = npuvp_host_ptr(c_dev);
    uint16_t *c2 = npuvp_host_ptr(c2_dev), *d = npuvp_host_ptr(d_dev), *c3 = npuvp_host_ptr(c3_dev);
    for (uint64_t x = 0; x < m * k; x++) a[x] = random_f16();
    for (uint64_t x = 0; x < k * n; x++) b[x] = random_f16();
    /* Results start as NaN patterns, so an element nobody wrote cannot pass. */
    memset(c, 0xff, m * n * 2);
    memset(c2, 0xff, m * n * 2);
    memset(d, 0xff, m * n * 2);
    memset(c3, 0xff, m * n * 2);

    struct npuvp_kernel gemm, vadd;
    check(npuvp_kernel_load(&gemm, NPUVP_KERNEL_IMAGE(gemm)), "loading gemm.elf");
    check(npuvp_kernel_load(&vadd, NPUVP_KERNEL_IMAGE(vector_add)), "loading vector_add.elf");
    printf("gemm-offload: kernels loaded: gemm at 0x%lx, vector_add at 0x%lx\n", (unsigned long)gemm.entry,
           (unsigned long)vadd.entry);

    /* 1. Synchronous launch. */
    const uint64_t gemm_args[7] = {a_dev, b_dev, c_dev, m, k, n, 1};
    struct npuvp_result r;
    status = npuvp_launch(&gemm, (uint32_t)gemm_blocks, gemm_args, 7, NPUVP_STREAM_DEFAULT, &r);
    report_launch("sync launch", &r, gemm_blocks, info.num_cores);
    check(status, "gemm launch");

    /* 2. Stream 1: GEMM into C2, event; stream 2: waits for it, D = C2 + C2. */
    npuvp_stream_t s1, s2;
    npuvp_event_t done;
    check(npuvp_stream_create(&s1), "stream_create");
    check(npuvp_stream_create(&s2), "stream_create");
    check(npuvp_event_create(&done), "event_create");
    const uint64_t gemm2_args[7] = {a_dev, b_dev, c2_dev, m, k, n, 1};
    const uint64_t vadd_args[4] = {c2_dev, c2_dev, d_dev, m * n};
    npuvp_ticket_t t_gemm2, t_vadd;
    check(npuvp_launch_async(&gemm, (uint32_t)gemm_blocks, gemm2_args, 7, s1, &t_gemm2), "async gemm");
    check(npuvp_event_record(done, s1), "event_record");
    check(npuvp_stream_wait_event(s2, done), "stream_wait_event");
    check(npuvp_launch_async(&vadd, 3, vadd_args, 4, s2, &t_vadd), "async vector_add");
    struct npuvp_result stream_error;
    check(npuvp_stream_synchronize(s2, &stream_error), "stream_synchronize(s2)");
    check(npuvp_event_query(done), "event_query after the waiting stream finished");
    struct npuvp_result r_gemm2, r_vadd;
    check(npuvp_wait(t_gemm2, &r_gemm2), "wait gemm 2");
    check(npuvp_wait(t_vadd, &r_vadd), "wait vector_add");
    report_launch("async launch (stream 1)", &r_gemm2, gemm_blocks, info.num_cores);
    report_launch("vector_add after event (stream 2)", &r_vadd, 3, info.num_cores);
    if (r_vadd.ts_start_cycle < r_gemm2.ts_end_cycle) {
        printf("gemm-offload: vector_add started before the GEMM it waits for ended\n");
        failures++;
    }

    /* 3. One task block, after loading the kernel again (as a program that swaps kernels
     * would): the driver sends this launch without NPU_LAUNCH_CODE_UNCHANGED, so its block
     * starts with a cold instruction cache (docs/npu-protocol.md#instruction-caches). */
    check(npuvp_kernel_load(&gemm, NPUVP_KERNEL_IMAGE(gemm)), "loading gemm.elf again");
    const uint64_t gemm3_args[7] = {a_dev, b_dev, c3_dev, m, k, n, 1};
    status = npuvp_launch(&gemm, 1, gemm3_args, 7, NPUVP_STREAM_DEFAULT, &r);
    report_launch("sync launch", &r, 1, info.num_cores);
    check(status, "gemm launch, 1 block");
    check(npuvp_synchronize(NULL), "synchronize");

    /* Reference on the host CPU. */
    uint64_t t0 = rdcycle();
    uint16_t *ref = malloc(m * n * 2);
    if (!ref) {
        printf("gemm-offload: no host memory for the reference\n");
        return EXIT_FAILURE;
    }
    int32_t *au = malloc(m * k * sizeof(int32_t)), *bt = malloc(n * k * sizeof(int32_t));
    if (!au || !bt) {
        printf("gemm-offload: no host memory for the reference\n");
        return EXIT_FAILURE;
    }
    for (uint64_t x = 0; x < m * k; x++) au[x] = (int32_t)f16_to_units24(a[x]);
    for (uint64_t x = 0; x < k * n; x++) bt[x % n * k + x / n] = (int32_t)f16_to_units24(b[x]);
    uint64_t step = gemm_check_step ? gemm_check_step : 1, checked = 0;
    for (uint64_t x = 0; x < m * n; x++) {
        if (x % step == 0) {
            ref[x] = reference_element(au, bt, x / n, x % n);
            checked++;
        } else {
            ref[x] = c[x]; /* not checked */
        }
    }
    unsigned cross_bad = 0, cross = 0;
    for (uint64_t x = 0; x < m * n; x += 61 * step) {
        uint16_t f = reference_element_float(a, b, x / n, x % n);
        cross++;
        if (f != ref[x]) {
            if (cross_bad++ < 5)
                printf("gemm-offload: reference mismatch at %lu: integer 0x%04x, soft-float 0x%04x\n",
                       (unsigned long)x, ref[x], f);
        }
    }
    failures += cross_bad != 0;
    printf("gemm-offload: reference: %lu elements (%u cross-checked with soft-float) in %lu host cycles\n",
           (unsigned long)checked, cross, (unsigned long)(rdcycle() - t0));

    compare("C", c, ref, m * n, 0);
    compare("C2", c2, ref, m * n, 0);
    compare("D", d, ref, m * n, 1);
    compare("C3", c3, ref, m * n, 0);

    struct npuvp_dm_stats ddr;
    npuvp_mem_stats(NPUVP_MEM_DDR, &ddr);
    npuvp_device_info(&info);
    printf("gemm-offload: device memory used %lu bytes in %u blocks; %lu commands, %lu completions, "
           "%lu host interrupts\n",
           (unsigned long)ddr.used, ddr.used_blocks, (unsigned long)info.commands, (unsigned long)info.completions,
           (unsigned long)info.interrupts);
    check(npuvp_free(a_dev), "free");
    check(npuvp_free(b_dev), "free");
    check(npuvp_stream_destroy(s1), "stream_destroy");
    check(npuvp_stream_destroy(s2), "stream_destroy");
    check(npuvp_shutdown(), "shutdown");

    if (failures) {
        printf("gemm-offload: FAIL\n");
        return EXIT_FAILURE;
    }
    printf("gemm-offload: %lux%lux%lu on %u AI Cores, every element matches: PASS\n", (unsigned long)m,
           (unsigned long)k, (unsigned long)n, info.num_cores);
    return EXIT_SUCCESS;
}
