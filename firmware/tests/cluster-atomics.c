/*
 * Shared counters on every hart of the mesh cluster (tests/integration/
 * mesh_cluster_test.cpp): each hart adds ROUNDS times to
 *   - an AMO counter (amoadd.d),
 *   - an LR/SC counter (lr.d / sc.d retry loop),
 *   - a plain counter under an LR/SC spinlock (load, add, store),
 * all in one cache line so that the line moves between the L1s on every
 * update, and also writes its own slot of a shared table. Each hart also
 * raises and clears its own CLINT msip (watching mip.MSIP follow it) and
 * reads the `time` CSR, so the per-hart CLINT wiring is checked. After a barrier
 * hart 0 checks the exact totals and that it sees every other hart's slot
 * (stores of other harts reach its loads), prints one line and exits 0 on
 * success. Runs unchanged on qemu-system-riscv64 -M virt -smp N -bios none.
 */
#include <stdio.h>

#include <npuvp/platform.h>
#include <npuvp/smp.h>

#ifndef ROUNDS
#define ROUNDS 200
#endif

static struct {
    volatile uint64_t amo;
    volatile uint64_t lrsc;
    volatile uint64_t locked;
    smp_spinlock_t lock;
} shared __attribute__((aligned(64)));

static volatile uint64_t slot[NPUVP_SMP_MAX_HARTS] __attribute__((aligned(64)));
static volatile uint32_t clint_ok[NPUVP_SMP_MAX_HARTS];

#define CLINT_MSIP ((volatile uint32_t *)NPUVP_CLINT_MSIP(0))

/* Raises this hart's msip, sees mip.MSIP (bit 3) set, clears it, sees it clear. */
static int check_own_msip(unsigned me)
{
    unsigned long mip = 0;
    CLINT_MSIP[me] = 1;
    for (int i = 0; i < 1000 && !(mip & 8); i++)
        __asm__ volatile("csrr %0, mip" : "=r"(mip));
    if (!(mip & 8))
        return 0;
    CLINT_MSIP[me] = 0;
    for (int i = 0; i < 1000 && (mip & 8); i++)
        __asm__ volatile("csrr %0, mip" : "=r"(mip));
    unsigned long time;
    __asm__ volatile("rdtime %0" : "=r"(time));
    return !(mip & 8) && time > 0;
}

static void lrsc_add(volatile uint64_t *p, uint64_t v)
{
    uint64_t value, failed;
    __asm__ volatile(
        "1: lr.d %0, (%2)\n\t"
        "   add %0, %0, %3\n\t"
        "   sc.d %1, %0, (%2)\n\t"
        "   bnez %1, 1b"
        : "=&r"(value), "=&r"(failed)
        : "r"(p), "r"(v)
        : "memory");
}

int main(void)
{
    unsigned me = smp_hart_id(), harts = smp_hart_count();
    for (unsigned round = 0; round < ROUNDS; round++) {
        __asm__ volatile("amoadd.d zero, %1, (%0)" : : "r"(&shared.amo), "r"(1ul) : "memory");
        lrsc_add(&shared.lrsc, 1);
        smp_lock_lrsc(&shared.lock);
        shared.locked = shared.locked + 1;
        smp_unlock_lrsc(&shared.lock);
    }
    slot[me] = 0x1000 + me;
    clint_ok[me] = check_own_msip(me);
    smp_barrier();
    if (me != 0)
        return 0;
    uint64_t expected = (uint64_t)ROUNDS * harts;
    unsigned slots_seen = 0, clint_seen = 0;
    for (unsigned h = 0; h < harts; h++) {
        slots_seen += slot[h] == 0x1000 + h;
        clint_seen += clint_ok[h];
    }
    int pass = shared.amo == expected && shared.lrsc == expected && shared.locked == expected &&
               slots_seen == harts && clint_seen == harts;
    printf("cluster-atomics: %s harts=%u amo=%lu lrsc=%lu locked=%lu expected=%lu slots=%u clint=%u\n",
           pass ? "PASS" : "FAIL", harts, (unsigned long)shared.amo, (unsigned long)shared.lrsc,
           (unsigned long)shared.locked, (unsigned long)expected, slots_seen, clint_seen);
    return pass ? 0 : 1;
}
