/*
 * Litmus tests of the memory model on real cores: MP, SB, LB, IRIW, CoRR and 2+2W, each
 * without and with the fences RVWMO needs to forbid the relaxed outcome, and MP+stale
 * (MP whose reader first loads the data, then waits a little: a copy that a protocol
 * without invalidations, such as NSI, may keep stale until the next fence). Every test runs
 * ITERATIONS times on harts 0..k-1 (k = 2 or 4): hart 0 clears the shared locations, a
 * barrier starts the participants together, each waits a small random delay (to vary the
 * interleaving) and runs its thread, written in assembly so the compiler can neither
 * reorder nor merge the accesses; a second barrier ends the iteration and hart 0 records
 * the outcome. The program does not judge: it prints the histogram, one line per outcome
 *
 *   litmus <test> outcome <name>=<value>... count=<n>
 *
 * preceded by `litmus <test> iterations=<n> threads=<k>`, and a final `litmus done`.
 * The allowed outcomes are checked by tests/integration/litmus_rvwmo.h (used by
 * mesh_qemu_test.cpp on QEMU, mesh_cluster_test.cpp on the cluster under every protocol,
 * and the cluster benchmark with litmus-long.elf, built with LITMUS_ITERATIONS=10000).
 * Harts beyond the participants return at once; with fewer than 4 harts the 4-thread
 * test prints `litmus IRIW skipped harts=<n>`.
 */
#include <stdio.h>
#include <string.h>

#include "mesh_common.h"

#ifndef LITMUS_ITERATIONS
#define LITMUS_ITERATIONS 500
#endif

/* The two shared locations, each in a cache line (64 bytes) of its own. */
static struct {
    volatile uint32_t value;
    char pad[60];
} location[2] __attribute__((aligned(64)));
#define X (&location[0].value)
#define Y (&location[1].value)

/* Registers observed by each thread in this iteration (private line per hart). */
static struct {
    uint32_t r[3];
    char pad[52];
} observed[4] __attribute__((aligned(64)));

static smp_barrier_t start_barrier, end_barrier;

/* ---- threads: T<test>_<thread>, an optional fence between the two accesses ---------- */

#define STORE_STORE(name, fence, a, va, b, vb)                                             \
    static void name(uint32_t *r)                                                          \
    {                                                                                      \
        (void)r;                                                                           \
        __asm__ volatile("sw %1, 0(%0)\n\t" fence "\n\tsw %3, 0(%2)"                       \
                         : : "r"(a), "r"(va), "r"(b), "r"(vb) : "memory");                 \
    }
#define LOAD_LOAD(name, fence, a, b)                                                       \
    static void name(uint32_t *r)                                                          \
    {                                                                                      \
        uint32_t r0, r1;                                                                   \
        __asm__ volatile("lw %0, 0(%2)\n\t" fence "\n\tlw %1, 0(%3)"                       \
                         : "=&r"(r0), "=&r"(r1) : "r"(a), "r"(b) : "memory");              \
        r[0] = r0;                                                                         \
        r[1] = r1;                                                                         \
    }
#define STORE_LOAD(name, fence, a, va, b)                                                  \
    static void name(uint32_t *r)                                                          \
    {                                                                                      \
        uint32_t r0;                                                                       \
        __asm__ volatile("sw %2, 0(%1)\n\t" fence "\n\tlw %0, 0(%3)"                       \
                         : "=&r"(r0) : "r"(a), "r"(va), "r"(b) : "memory");                \
        r[0] = r0;                                                                         \
    }
#define LOAD_STORE(name, fence, a, b, vb)                                                  \
    static void name(uint32_t *r)                                                          \
    {                                                                                      \
        uint32_t r0;                                                                       \
        __asm__ volatile("lw %0, 0(%1)\n\t" fence "\n\tsw %3, 0(%2)"                       \
                         : "=&r"(r0) : "r"(a), "r"(b), "r"(vb) : "memory");                \
        r[0] = r0;                                                                         \
    }
#define STORE(name, a, va)                                                                 \
    static void name(uint32_t *r)                                                          \
    {                                                                                      \
        (void)r;                                                                           \
        __asm__ volatile("sw %1, 0(%0)" : : "r"(a), "r"(va) : "memory");                  \
    }

#define NO_FENCE ""
/* MP: T0 x=1; y=1  |  T1 r0=y; r1=x */
STORE_STORE(mp_0, NO_FENCE, X, 1u, Y, 1u)
LOAD_LOAD(mp_1, NO_FENCE, Y, X)
STORE_STORE(mp_fence_0, "fence w, w", X, 1u, Y, 1u)
LOAD_LOAD(mp_fence_1, "fence r, r", Y, X)
/* SB: T0 x=1; r0=y  |  T1 y=1; r0=x */
STORE_LOAD(sb_0, NO_FENCE, X, 1u, Y)
STORE_LOAD(sb_1, NO_FENCE, Y, 1u, X)
STORE_LOAD(sb_fence_0, "fence rw, rw", X, 1u, Y)
STORE_LOAD(sb_fence_1, "fence rw, rw", Y, 1u, X)
/* LB: T0 r0=x; y=1  |  T1 r0=y; x=1 */
LOAD_STORE(lb_0, NO_FENCE, X, Y, 1u)
LOAD_STORE(lb_1, NO_FENCE, Y, X, 1u)
LOAD_STORE(lb_fence_0, "fence r, w", X, Y, 1u)
LOAD_STORE(lb_fence_1, "fence r, w", Y, X, 1u)
/* IRIW: T0 x=1  |  T1 y=1  |  T2 r0=x; r1=y  |  T3 r0=y; r1=x */
STORE(iriw_0, X, 1u)
STORE(iriw_1, Y, 1u)
LOAD_LOAD(iriw_2, NO_FENCE, X, Y)
LOAD_LOAD(iriw_3, NO_FENCE, Y, X)
LOAD_LOAD(iriw_fence_2, "fence r, r", X, Y)
LOAD_LOAD(iriw_fence_3, "fence r, r", Y, X)
/* MP+stale: T0 (wait); x=1; y=1  |  T1 r2=x; (longer wait); r0=y; r1=x. The waits (no
 * memory accesses) aim at this interleaving: T1's early load gives it a copy of x's line
 * before T0 writes x, and T0 writes both locations before T1 reads the flag. */
#define MP_STALE_WRITER(name, fence)                                                       \
    static void name(uint32_t *r)                                                          \
    {                                                                                      \
        (void)r;                                                                           \
        uint32_t wait = MP_STALE_WRITER_WAIT;                                              \
        __asm__ volatile("1: addi %0, %0, -1\n\tbnez %0, 1b\n\t"                          \
                         "sw %3, 0(%1)\n\t" fence "\n\tsw %3, 0(%2)"                       \
                         : "+r"(wait) : "r"(X), "r"(Y), "r"(1u) : "memory");               \
    }
#define MP_STALE_READER(name, fence)                                                       \
    static void name(uint32_t *r)                                                          \
    {                                                                                      \
        uint32_t r0, r1, r2, wait = MP_STALE_READER_WAIT;                                                    \
        __asm__ volatile("lw %2, 0(%4)\n\t"                                                \
                         "1: addi %3, %3, -1\n\tbnez %3, 1b\n\t"                          \
                         "lw %0, 0(%5)\n\t" fence "\n\tlw %1, 0(%4)"                       \
                         : "=&r"(r0), "=&r"(r1), "=&r"(r2), "+r"(wait)                     \
                         : "r"(X), "r"(Y) : "memory");                                     \
        r[0] = r0;                                                                         \
        r[1] = r1;                                                                         \
        r[2] = r2;                                                                         \
    }
#define MP_STALE_WRITER_WAIT 512u /* loop iterations */
#define MP_STALE_READER_WAIT 1024u
MP_STALE_WRITER(mp_stale_0, NO_FENCE)
MP_STALE_WRITER(mp_stale_fence_0, "fence w, w")
MP_STALE_READER(mp_stale_1, NO_FENCE)
MP_STALE_READER(mp_stale_fence_1, "fence r, r")
/* CoRR: T0 x=1  |  T1 r0=x; r1=x */
STORE(corr_0, X, 1u)
LOAD_LOAD(corr_1, NO_FENCE, X, X)
LOAD_LOAD(corr_fence_1, "fence r, r", X, X)
/* 2+2W: T0 x=1; y=2  |  T1 y=1; x=2; outcome: the final x and y */
STORE_STORE(w22_0, NO_FENCE, X, 1u, Y, 2u)
STORE_STORE(w22_1, NO_FENCE, Y, 1u, X, 2u)
STORE_STORE(w22_fence_0, "fence w, w", X, 1u, Y, 2u)
STORE_STORE(w22_fence_1, "fence w, w", Y, 1u, X, 2u)

typedef void (*thread_fn)(uint32_t *r);

/* An outcome value: observed[thread].r[reg], or (thread < 0) the final value of a
 * location (-1 = x, -2 = y). */
typedef struct {
    const char *name;
    int thread, reg;
} outcome_value_t;

typedef struct {
    const char *name;
    unsigned threads;
    thread_fn thread[4];
    unsigned values;
    outcome_value_t value[4];
} litmus_test_t;

static const litmus_test_t tests[] = {
    { "MP", 2, { mp_0, mp_1 }, 2, { { "r0", 1, 0 }, { "r1", 1, 1 } } },
    { "MP+fences", 2, { mp_fence_0, mp_fence_1 }, 2, { { "r0", 1, 0 }, { "r1", 1, 1 } } },
    { "SB", 2, { sb_0, sb_1 }, 2, { { "r0", 0, 0 }, { "r1", 1, 0 } } },
    { "SB+fences", 2, { sb_fence_0, sb_fence_1 }, 2, { { "r0", 0, 0 }, { "r1", 1, 0 } } },
    { "LB", 2, { lb_0, lb_1 }, 2, { { "r0", 0, 0 }, { "r1", 1, 0 } } },
    { "LB+fences", 2, { lb_fence_0, lb_fence_1 }, 2, { { "r0", 0, 0 }, { "r1", 1, 0 } } },
    { "IRIW", 4, { iriw_0, iriw_1, iriw_2, iriw_3 }, 4,
      { { "r0", 2, 0 }, { "r1", 2, 1 }, { "r2", 3, 0 }, { "r3", 3, 1 } } },
    { "IRIW+fences", 4, { iriw_0, iriw_1, iriw_fence_2, iriw_fence_3 }, 4,
      { { "r0", 2, 0 }, { "r1", 2, 1 }, { "r2", 3, 0 }, { "r3", 3, 1 } } },
    { "MP+stale", 2, { mp_stale_0, mp_stale_1 }, 3, { { "r0", 1, 0 }, { "r1", 1, 1 }, { "r2", 1, 2 } } },
    { "MP+stale+fences", 2, { mp_stale_fence_0, mp_stale_fence_1 }, 3,
      { { "r0", 1, 0 }, { "r1", 1, 1 }, { "r2", 1, 2 } } },
    { "CoRR", 2, { corr_0, corr_1 }, 2, { { "r0", 1, 0 }, { "r1", 1, 1 } } },
    { "CoRR+fence", 2, { corr_0, corr_fence_1 }, 2, { { "r0", 1, 0 }, { "r1", 1, 1 } } },
    { "2+2W", 2, { w22_0, w22_1 }, 2, { { "x", -1, 0 }, { "y", -2, 0 } } },
    { "2+2W+fences", 2, { w22_fence_0, w22_fence_1 }, 2, { { "x", -1, 0 }, { "y", -2, 0 } } },
};

/* Values are 0..2: an outcome is a base-3 number of at most 4 digits. */
#define OUTCOMES 81
static uint32_t histogram[OUTCOMES];

static void delay(unsigned loops)
{
    __asm__ volatile("1: beqz %0, 2f\n\taddi %0, %0, -1\n\tj 1b\n2:"
                     : "+r"(loops) : : "memory");
}

int main(void)
{
    unsigned me = smp_hart_id();
    unsigned harts = smp_hart_count() < 4 ? smp_hart_count() : 4;
    if (me == 0) {
        smp_barrier_init(&start_barrier, harts);
        smp_barrier_init(&end_barrier, harts);
    }
    /* All running harts pass this, so the barriers above are initialised first. */
    smp_barrier();
    if (me >= harts)
        return 0;
    uint64_t random_state = 0x2545f4914f6cdd1dull * (me + 1);

    for (unsigned t = 0; t < sizeof tests / sizeof tests[0]; t++) {
        const litmus_test_t *test = &tests[t];
        if (test->threads > harts) {
            if (me == 0)
                printf("litmus %s skipped harts=%u\n", test->name, smp_hart_count());
            continue;
        }
        if (me == 0)
            memset(histogram, 0, sizeof histogram);
        for (unsigned i = 0; i < LITMUS_ITERATIONS; i++) {
            if (me == 0) {
                *X = 0;
                *Y = 0;
            }
            smp_barrier_wait_spin(&start_barrier);
            if (me < test->threads) {
                delay((unsigned)(mesh_random(&random_state) >> 59));   /* 0..31 */
                test->thread[me](observed[me].r);
            }
            smp_barrier_wait(&end_barrier);
            if (me == 0) {
                unsigned code = 0;
                for (unsigned v = 0; v < test->values; v++) {
                    const outcome_value_t *ov = &test->value[v];
                    uint32_t value = ov->thread == -1 ? *X
                                   : ov->thread == -2 ? *Y
                                   : observed[ov->thread].r[ov->reg];
                    code = code * 3 + (value > 2 ? 2 : value);
                }
                histogram[code]++;
            }
        }
        if (me != 0)
            continue;
        printf("litmus %s iterations=%u threads=%u\n", test->name, LITMUS_ITERATIONS,
               test->threads);
        for (unsigned code = 0; code < OUTCOMES; code++) {
            if (!histogram[code])
                continue;
            char line[128];
            int length = snprintf(line, sizeof line, "litmus %s outcome", test->name);
            unsigned digits[4], rest = code;
            for (unsigned v = test->values; v-- > 0;) {
                digits[v] = rest % 3;
                rest /= 3;
            }
            for (unsigned v = 0; v < test->values; v++)
                length += snprintf(line + length, sizeof line - length, " %s=%u",
                                   test->value[v].name, digits[v]);
            printf("%s count=%lu\n", line, (unsigned long)histogram[code]);
        }
    }
    if (me == 0)
        printf("litmus done\n");
    return 0;
}
