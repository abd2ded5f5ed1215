/*
 * Self-modifying code on every hart (tests/integration/qemu_compat_test.cpp): after
 * storing new instructions and executing fence.i, a hart must run the new ones.
 *
 *   1. Own code: each hart writes `li a0, V; ret` into its own buffer, runs fence.i,
 *      calls it, then rewrites V and calls it again (a store to code the hart has
 *      already run; on the cluster the store sits in the hart's L1 until evicted).
 *   2. Shared code: hart 0 writes a function, the others run it after a barrier and
 *      fence.i; hart 0 rewrites it and everybody (each holding the old one decoded)
 *      runs it again after another barrier and fence.i.
 *
 * Hart 0 prints every value seen, then one PASS/FAIL line. Runs unchanged on
 * qemu-system-riscv64 -M virt -smp N -bios none.
 */
#include <stdint.h>
#include <stdio.h>

#include <npuvp/smp.h>

#define WORDS_PER_HART 16 /* 64 bytes: one buffer per cache line */

typedef long (*function_t)(void);

static uint32_t own_code[NPUVP_SMP_MAX_HARTS][WORDS_PER_HART] __attribute__((aligned(64)));
static uint32_t shared_code[WORDS_PER_HART] __attribute__((aligned(64)));
static volatile long seen[NPUVP_SMP_MAX_HARTS][4];

/* addi a0, zero, value (-2048..2047) */
static uint32_t load_immediate_a0(long value) { return ((uint32_t)(value & 0xfff) << 20) | 0x00000513u; }
#define RET 0x00008067u /* jalr zero, 0(ra) */

static void write_function(volatile uint32_t *code, long value)
{
    code[0] = load_immediate_a0(value);
    code[1] = RET;
}

static long call_after_fence_i(uint32_t *code)
{
    __asm__ volatile("fence.i" ::: "memory");
    return ((function_t)(uintptr_t)code)();
}

int main(void)
{
    unsigned me = smp_hart_id(), harts = smp_hart_count();

    write_function(own_code[me], 100 + me);
    seen[me][0] = call_after_fence_i(own_code[me]);
    write_function(own_code[me], 300 + me);
    seen[me][1] = call_after_fence_i(own_code[me]);

    if (me == 0)
        write_function(shared_code, 1000);
    smp_barrier();
    seen[me][2] = call_after_fence_i(shared_code);
    smp_barrier();
    if (me == 0)
        write_function(shared_code, 2000);
    smp_barrier();
    seen[me][3] = call_after_fence_i(shared_code);
    smp_barrier();

    if (me != 0)
        return 0;
    unsigned wrong = 0;
    for (unsigned h = 0; h < harts; h++) {
        long expected[4] = {100 + (long)h, 300 + (long)h, 1000, 2000};
        printf("hart %u ran %ld %ld %ld %ld\n", h, seen[h][0], seen[h][1], seen[h][2], seen[h][3]);
        for (int i = 0; i < 4; i++)
            wrong += seen[h][i] != expected[i];
    }
    printf("self-modifying: %s harts=%u wrong=%u\n", wrong ? "FAIL" : "PASS", harts, wrong);
    return wrong ? 1 : 0;
}
