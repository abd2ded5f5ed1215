/*
 * Parallel LSD radix sort of 32,768 32-bit keys (CI; full, Table 5.3: 262,144), 8-bit digits, 4 passes (after SPLASH-2
 * RADIX). Each pass: every hart builds the histogram of its contiguous slice of keys;
 * barrier; every hart computes where its keys of each digit go (all harts' counts of
 * smaller digits, plus lower harts' counts of the same digit: the prefix sums); it
 * scatters its slice stably into the other buffer; barrier. Check: every hart checks
 * its slice of the output is non-decreasing (including across its lower boundary) and
 * fingerprints its slices of input and output (sum, sum of squares, xor of a mixing
 * hash); hart 0 requires no order violation and equal input and output fingerprints
 * (the same multiset of keys).
 */
#include <stdio.h>

#include "mesh_workload.h"

#define KEYS MESH_SIZE(32768u, 262144u)
#define DIGIT_BITS 8
#define BUCKETS (1u << DIGIT_BITS)
#define PASSES (32 / DIGIT_BITS)

static uint32_t keys[2][KEYS];
/* histogram[h] is written by hart h only; read by everyone after a barrier. */
static uint32_t histogram[NPUVP_SMP_MAX_HARTS][BUCKETS] __attribute__((aligned(64)));

typedef struct {
    uint64_t sum, squares, hashes;
    uint32_t out_of_order;
    char pad[64 - 3 * sizeof(uint64_t) - sizeof(uint32_t)];
} fingerprint_t;

/* Per hart, of its slice: of the input, and of the output (+ order violations). */
static fingerprint_t input_print[NPUVP_SMP_MAX_HARTS], output_print[NPUVP_SMP_MAX_HARTS];

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static fingerprint_t fingerprint(const uint32_t *k, unsigned begin, unsigned end)
{
    fingerprint_t f = { 0, 0, 0, 0, { 0 } };
    for (unsigned i = begin; i < end; i++) {
        f.sum += k[i];
        f.squares += (uint64_t)k[i] * k[i];
        f.hashes ^= mix(k[i]);
        if (i > 0 && k[i - 1] > k[i])
            f.out_of_order++;
    }
    return f;
}

int main(void)
{
    unsigned me = smp_hart_id(), harts = smp_hart_count();
    unsigned begin, end;
    mesh_range(KEYS, &begin, &end);
    for (unsigned i = begin; i < end; i++)
        keys[0][i] = (uint32_t)(mesh_hash(0x9e3779b97f4a7c15ull, i) >> 32);
    input_print[me] = fingerprint(keys[0], begin, end);
    smp_barrier();
    mesh_parallel_begin();

    for (unsigned pass = 0; pass < PASSES; pass++) {
        const uint32_t *from = keys[pass & 1];
        uint32_t *to = keys[(pass & 1) ^ 1];
        unsigned shift = pass * DIGIT_BITS;

        uint32_t *mine = histogram[me];
        for (unsigned d = 0; d < BUCKETS; d++)
            mine[d] = 0;
        for (unsigned i = begin; i < end; i++)
            mine[(from[i] >> shift) & (BUCKETS - 1)]++;
        smp_barrier();

        uint32_t offset[BUCKETS];
        uint32_t running = 0;
        for (unsigned d = 0; d < BUCKETS; d++) {
            uint32_t lower_harts = 0, total = 0;
            for (unsigned h = 0; h < harts; h++) {
                if (h < me)
                    lower_harts += histogram[h][d];
                total += histogram[h][d];
            }
            offset[d] = running + lower_harts;
            running += total;
        }
        for (unsigned i = begin; i < end; i++) {
            uint32_t k = from[i];
            to[offset[(k >> shift) & (BUCKETS - 1)]++] = k;
        }
        /* Also keeps the histograms alive until everyone has read them. */
        smp_barrier();
    }

    mesh_parallel_end();
    /* The last pass's barrier made the whole output visible: check this hart's slice
     * (and the pair across its lower boundary). */
    output_print[me] = fingerprint(keys[PASSES & 1], begin, end);
    smp_barrier();
    if (me != 0)
        return 0;

    uint64_t sum[2] = { 0, 0 }, squares[2] = { 0, 0 }, hashes[2] = { 0, 0 };
    unsigned out_of_order = 0;
    for (unsigned h = 0; h < harts; h++) {
        sum[0] += input_print[h].sum;
        squares[0] += input_print[h].squares;
        hashes[0] ^= input_print[h].hashes;
        sum[1] += output_print[h].sum;
        squares[1] += output_print[h].squares;
        hashes[1] ^= output_print[h].hashes;
        out_of_order += output_print[h].out_of_order;
    }
    int same = sum[0] == sum[1] && squares[0] == squares[1] && hashes[0] == hashes[1];
    int pass = out_of_order == 0 && same;
    /* The sorted keys are the input's multiset in order: the same for any hart count. */
    uint64_t checksum = MESH_CHECKSUM_INIT;
    for (unsigned i = 0; i < KEYS; i++)
        checksum = mesh_checksum_u64(checksum, keys[PASSES & 1][i]);
    printf("radix: %s keys=%u harts=%u size=%s out_of_order=%u multiset=%s checksum=%016llx instret=%lu\n",
           pass ? "PASS" : "FAIL", KEYS, harts, MESH_SIZE_NAME, out_of_order, same ? "same" : "different",
           (unsigned long long)checksum, (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
