/*
 * SMP runtime for programs built with npuvp_firmware_program(... SMP): every hart runs
 * main(), and the harts share memory only through the primitives below.
 *
 * Memory-ordering contract (docs/smp-runtime.md): the mesh cluster may run a weakly
 * ordered coherence protocol (NSI) in which a store by one hart becomes visible to another
 * only when both pass a synchronisation instruction (fence, AMO, LR/SC). Every primitive
 * here therefore synchronises through explicit RISC-V acquire/release annotations or
 * fences, never through plain loads and stores alone, and every spin loop executes a fence
 * at least every NPUVP_SMP_POLLS_PER_FENCE polls (smp_poll32). Barrier and lock waiters do
 * not poll at all: they sleep in wfi until the hart that releases them sends an
 * inter-processor interrupt (smp_sleep_while_equal32 / smp_wake_sleepers). Programs must
 * order all sharing through them: data written before
 * smp_barrier_wait() / smp_unlock() / smp_store_release() is visible to a hart after its
 * matching smp_barrier_wait() / smp_lock() / smp_load_acquire().
 */
#ifndef NPUVP_SMP_H
#define NPUVP_SMP_H

#include <stdint.h>

#include <npuvp/platform.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Harts the runtime can run: the default cluster's, one stack/TLS slot each (link.ld's
 * __stack_harts has the same generated default). */
#define NPUVP_SMP_MAX_HARTS NPUVP_CLUSTER_HARTS

/* ---- identity ---------------------------------------------------------------------- */

/* This hart's id (mhartid), 0 .. smp_hart_count() - 1. */
static inline unsigned smp_hart_id(void)
{
    unsigned long id;
    __asm__ volatile("csrr %0, mhartid" : "=r"(id));
    return (unsigned)id;
}

/* Number of harts running main(): the CPU nodes of the device tree passed in a1 at
 * entry (QEMU virt), else __npuvp_smp_harts (link-time, default 16), capped at
 * NPUVP_SMP_MAX_HARTS. Harts with ids at or above it park without running main. */
unsigned smp_hart_count(void);

/* Where smp_hart_count() came from: "device-tree" or "link-time". */
const char *smp_hart_count_source(void);

/* ---- ordering primitives ----------------------------------------------------------- */

/* Full fence: every earlier access before every later one. */
static inline void smp_fence(void) { __asm__ volatile("fence rw, rw" ::: "memory"); }

/* 32/64-bit acquire load: the load, then `fence r, rw` (later accesses wait for it). */
static inline uint32_t smp_load_acquire32(const volatile uint32_t *p)
{
    uint32_t v;
    __asm__ volatile("lw %0, 0(%1)\n\tfence r, rw" : "=r"(v) : "r"(p) : "memory");
    return v;
}
static inline uint64_t smp_load_acquire64(const volatile uint64_t *p)
{
    uint64_t v;
    __asm__ volatile("ld %0, 0(%1)\n\tfence r, rw" : "=r"(v) : "r"(p) : "memory");
    return v;
}

/* 32/64-bit release store: `fence rw, w`, then the store (earlier accesses first). */
static inline void smp_store_release32(volatile uint32_t *p, uint32_t v)
{
    __asm__ volatile("fence rw, w\n\tsw %1, 0(%0)" : : "r"(p), "r"(v) : "memory");
}
static inline void smp_store_release64(volatile uint64_t *p, uint64_t v)
{
    __asm__ volatile("fence rw, w\n\tsd %1, 0(%0)" : : "r"(p), "r"(v) : "memory");
}

/* Atomic read-modify-writes, sequentially consistent (.aqrl). Return the old value. */
static inline uint32_t smp_fetch_add32(volatile uint32_t *p, uint32_t v)
{
    uint32_t old;
    __asm__ volatile("amoadd.w.aqrl %0, %2, (%1)" : "=r"(old) : "r"(p), "r"(v) : "memory");
    return old;
}
static inline uint64_t smp_fetch_add64(volatile uint64_t *p, uint64_t v)
{
    uint64_t old;
    __asm__ volatile("amoadd.d.aqrl %0, %2, (%1)" : "=r"(old) : "r"(p), "r"(v) : "memory");
    return old;
}
static inline uint32_t smp_swap32(volatile uint32_t *p, uint32_t v)
{
    uint32_t old;
    __asm__ volatile("amoswap.w.aqrl %0, %2, (%1)" : "=r"(old) : "r"(p), "r"(v) : "memory");
    return old;
}
/* Compare-and-swap with LR/SC: stores desired if *p == expected; returns the old value. */
static inline uint32_t smp_compare_swap32(volatile uint32_t *p, uint32_t expected,
                                          uint32_t desired)
{
    uint32_t old, failed;
    __asm__ volatile(
        "1: lr.w.aqrl %0, (%2)\n\t"
        "   bne %0, %3, 2f\n\t"
        "   sc.w.rl %1, %4, (%2)\n\t"
        "   bnez %1, 1b\n\t"
        "2:"
        : "=&r"(old), "=&r"(failed)
        : "r"(p), "r"((int64_t)(int32_t)expected), "r"(desired)
        : "memory");
    return old;
}

/* ---- waiting ------------------------------------------------------------------------ */

/* One step of a wait loop; call it each time a polled condition is still false (pass a
 * counter starting at 0). On a platform whose device tree describes a CLINT (QEMU virt)
 * every 64th call sleeps ~20 us in wfi on this hart's CLINT timer (mtimecmp; MIE stays
 * off), so waiting harts give the host CPU to the ones doing work; otherwise (npuvp's
 * cluster without a device tree) it returns at once: a pure spin. */
void smp_relax(unsigned *polls);

/*
 * Polls between two fences in a wait loop. Waiters poll with plain loads, which hit
 * their cached copy without any traffic, and synchronise every this many polls: under
 * self-invalidation (NSI) the fence marks the copy suspect, so the next poll fetches the
 * current value; under an invalidation protocol (MESI) the copy is refreshed anyway and
 * the fence costs nothing. A fence on every poll would make each NSI poll a round trip
 * to the home node. The cost: under NSI a waiter notices a change up to this many polls
 * late. Override with -DNPUVP_SMP_POLLS_PER_FENCE=N (1 = a fence on every poll).
 */
#ifndef NPUVP_SMP_POLLS_PER_FENCE
#define NPUVP_SMP_POLLS_PER_FENCE 32
#endif

/* One poll of a wait loop: *p, with a full fence before every
 * NPUVP_SMP_POLLS_PER_FENCE-th poll (`polls` counts them; start it at 0). Not an
 * acquire: once the condition holds, call smp_acquire_after_poll(). */
static inline uint32_t smp_poll32(const volatile uint32_t *p, unsigned *polls)
{
    if (++*polls >= NPUVP_SMP_POLLS_PER_FENCE) {
        *polls = 0;
        smp_fence();
    }
    return *p;
}
/* Orders the poll that ended a wait loop before every later access (acquire). */
static inline void smp_acquire_after_poll(void) { __asm__ volatile("fence r, rw" ::: "memory"); }

/* Waits until *p == value (smp_poll32 and smp_relax in the loop), then acquires. */
void smp_wait_until_equal32(const volatile uint32_t *p, uint32_t value);

/*
 * Sleeping waits: no polling traffic. A word of sleepers (bit h = hart h) goes with the
 * condition. The waiter registers its bit (amoor, .aqrl), clears its own CLINT software
 * interrupt (msip), re-reads the condition and, while it still holds, sleeps in wfi with
 * mie.MSIE set (mstatus.MIE stays off: no trap, wfi just returns once msip is pending).
 * The releaser changes the condition first, then calls smp_wake_sleepers(), which takes
 * the whole set (amoswap 0) and sets the msip of each hart in it. A release between the
 * registration and the wfi leaves msip pending, so wfi returns at once: no lost wake-up.
 * A hart may be woken for nothing (its bit from an earlier wait); it checks and sleeps
 * again. Needs a CLINT whose hart numbers are the mhartids (npuvp's cluster, QEMU virt).
 */
/* Sleeps while *p == value, then acquires (the load that saw the change is ordered
 * before every later access). */
void smp_sleep_while_equal32(const volatile uint32_t *p, uint32_t value,
                             volatile uint32_t *sleepers);
/* Wakes every hart in *sleepers (after the store that ends their wait). */
void smp_wake_sleepers(volatile uint32_t *sleepers);

/* ---- spinlocks ----------------------------------------------------------------------- */

/* value: 0 = free, 1 = held; sleepers: harts asleep waiting for it (smp_sleep_while_equal32).
 * Zero-initialised (static storage) or SMP_SPINLOCK_INIT. */
typedef struct {
    volatile uint32_t value;
    volatile uint32_t sleepers;
} smp_spinlock_t;
#define SMP_SPINLOCK_INIT { 0, 0 }

/* AMO lock: acquire with amoswap.w.aq; a waiter sleeps until the holder releases
 * (smp_sleep_while_equal32 on value == 1), then tries again. Release: amoswap.w.rl,
 * then wake the sleepers. The amoswap.w.aq that takes the lock is the acquire. */
static inline void smp_lock_amo(smp_spinlock_t *l)
{
    for (;;) {
        uint32_t old;
        __asm__ volatile("amoswap.w.aq %0, %2, (%1)"
                         : "=r"(old) : "r"(&l->value), "r"(1u) : "memory");
        if (old == 0)
            return;
        smp_sleep_while_equal32(&l->value, 1u, &l->sleepers);
    }
}
static inline void smp_unlock_amo(smp_spinlock_t *l)
{
    __asm__ volatile("amoswap.w.rl zero, zero, (%0)" : : "r"(&l->value) : "memory");
    smp_wake_sleepers(&l->sleepers);
}
static inline int smp_trylock_amo(smp_spinlock_t *l)
{
    uint32_t old;
    __asm__ volatile("amoswap.w.aq %0, %2, (%1)"
                     : "=r"(old) : "r"(&l->value), "r"(1u) : "memory");
    return old == 0;
}

/* LR/SC lock: lr.w.aq / sc.w; release is `fence rw, w` + store (no AMO needed). */
static inline int smp_trylock_lrsc(smp_spinlock_t *l)
{
    uint32_t value, failed;
    __asm__ volatile(
        "1: lr.w.aq %0, (%2)\n\t"
        "   bnez %0, 2f\n\t"
        "   sc.w %1, %3, (%2)\n\t"
        "   bnez %1, 1b\n\t"
        "2:"
        : "=&r"(value), "=&r"(failed)
        : "r"(&l->value), "r"(1u)
        : "memory");
    return value == 0;
}
static inline void smp_lock_lrsc(smp_spinlock_t *l)
{
    while (!smp_trylock_lrsc(l))
        smp_sleep_while_equal32(&l->value, 1u, &l->sleepers);
}
static inline void smp_unlock_lrsc(smp_spinlock_t *l)
{
    smp_store_release32(&l->value, 0);
    smp_wake_sleepers(&l->sleepers);
}

/* The default lock: AMO, or LR/SC when compiled with -DNPUVP_SMP_LOCK_LRSC. */
#ifdef NPUVP_SMP_LOCK_LRSC
static inline void smp_lock(smp_spinlock_t *l) { smp_lock_lrsc(l); }
static inline void smp_unlock(smp_spinlock_t *l) { smp_unlock_lrsc(l); }
#else
static inline void smp_lock(smp_spinlock_t *l) { smp_lock_amo(l); }
static inline void smp_unlock(smp_spinlock_t *l) { smp_unlock_amo(l); }
#endif

/* ---- barrier ------------------------------------------------------------------------- */

/* Sense-reversing barrier for `participants` harts (any subset of the running harts,
 * each hart id < NPUVP_SMP_MAX_HARTS). Initialise before any participant waits, e.g. on
 * one hart before a barrier every hart passes, or statically with SMP_BARRIER_INIT(n). */
typedef struct {
    volatile uint32_t arrived;      /* participants in the current episode (AMO) */
    volatile uint32_t sense;        /* flips when the episode completes */
    volatile uint32_t sleepers;     /* waiters asleep until the flip (bit per hart) */
    uint32_t participants;
    uint32_t hart_sense[NPUVP_SMP_MAX_HARTS];   /* each hart's local sense */
} smp_barrier_t;
#define SMP_BARRIER_INIT(n) { 0, 0, 0, (n), { 0 } }

void smp_barrier_init(smp_barrier_t *b, unsigned participants);
void smp_barrier_wait(smp_barrier_t *b);
/* The same, but a waiter polls 4096 times before it sleeps, so participants arriving
 * close together leave close together (litmus tests). */
void smp_barrier_wait_spin(smp_barrier_t *b);

/* Barrier across all smp_hart_count() harts (the runtime's own barrier object). */
void smp_barrier(void);

/* ---- region of interest ----------------------------------------------------------- */

/* Mark the parallel region a study measures; neither call waits for the other harts.
 * roi_begin(): every running hart calls it right after the barrier that ends the set-up;
 * hart 0 writes the begin mark to the finisher's region-of-interest register
 * (NPUVP_FINISHER_ROI). roi_end(): every running hart calls it when its parallel work is
 * done (before the barrier that precedes the checks); the last one to call writes the end
 * mark, so the region ends when the slowest hart is done. npuvp then reports every
 * additive statistic measured over the region as roi.<name> beside the whole run's
 * (docs/observability.md, "Region of interest"); QEMU ignores the register. Several
 * regions add up (a barrier between a region's roi_end and the next roi_begin); a region
 * still open at exit ends there. Keep sequential self-checks outside the region. */
void roi_begin(void);
void roi_end(void);

/* ---- console ------------------------------------------------------------------------- */

/* stdout/stderr (printf, puts, ...) work from every hart: each hart collects its output
 * in a line buffer and writes whole lines to the UART under the console lock, so lines
 * from different harts never interleave. A line longer than NPUVP_SMP_CONSOLE_LINE bytes
 * is written in pieces of that size. smp_console_flush() writes this hart's partial line. */
#define NPUVP_SMP_CONSOLE_LINE 256
void smp_console_flush(void);

/* ---- exit ---------------------------------------------------------------------------- */

/* A hart that returns from main() reports its status and parks; when the last running
 * hart has returned, it calls exit() with the first non-zero status reported (in the
 * order the AMO serialises them), or 0. exit()/abort() on any hart stops the whole
 * program at once with that status. */
int smp_exit_status(void);      /* first non-zero status reported so far, or 0 */

#ifdef __cplusplus
}
#endif

#endif /* NPUVP_SMP_H */
