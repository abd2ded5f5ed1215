/*
 * SMP runtime (npuvp/smp.h): start-up after crt0_smp.S, hart count, barrier, exit rule,
 * and the locks picolibc takes around malloc and friends.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/lock.h>

#include <npuvp/csr.h>
#include <npuvp/platform.h>
#include <npuvp/smp.h>

extern int main(int argc, char **argv);
extern void __libc_init_array(void);
extern char __bss_start[], __bss_end[];
extern const uint64_t __npuvp_layout[];     /* crt0_smp.S; [7] = __npuvp_smp_harts */

/*
 * Start-up handshake. The flag lives in .data (not .bss, which hart 0 zeroes while the
 * others already poll the flag) and holds a magic value once hart 0 has finished.
 */
#define SMP_READY_MAGIC 0x534d5052u         /* "SMPR" */
#define SMP_START_POLLS_PER_FENCE 1024
static volatile uint32_t smp_ready __attribute__((section(".data"))) = 0;

/* Written by hart 0 before the release, read-only afterwards. */
static unsigned hart_count;
static const char *hart_count_source;
static smp_barrier_t all_harts_barrier;
static int idle_with_timer;     /* smp_relax() may sleep on the CLINT timer */

/* Exit bookkeeping (AMO only). */
static volatile uint32_t harts_finished;
static volatile uint32_t exit_status_set;   /* 0, or 1 once exit_status holds a failure */
static volatile uint32_t exit_status;

unsigned smp_hart_count(void) { return hart_count; }
const char *smp_hart_count_source(void) { return hart_count_source; }

/* ---- device tree: count the cpu@N nodes under /cpus -------------------------------- */

#define FDT_MAGIC       0xd00dfeedu
#define FDT_BEGIN_NODE  1u
#define FDT_END_NODE    2u
#define FDT_PROP        3u
#define FDT_NOP         4u
#define FDT_END         9u

static uint32_t be32(const void *p)
{
    const uint8_t *b = p;
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

/* Returns the number of cpu nodes, or 0 if `fdt` is not a well-formed device tree in
 * DDR, and sets *has_clint if a clint@... node exists. Only DDR addresses are read, so a
 * garbage a1 cannot fault on npuvp or QEMU. */
static unsigned fdt_count_cpus(uintptr_t fdt, int *has_clint)
{
    const uintptr_t ddr_lo = NPUVP_DDR_BASE, ddr_hi = NPUVP_DDR_BASE + NPUVP_DDR_SIZE;
    if (fdt < ddr_lo || fdt + 40 > ddr_hi || (fdt & 3))
        return 0;
    const uint8_t *base = (const uint8_t *)fdt;
    if (be32(base) != FDT_MAGIC)
        return 0;
    uint32_t total = be32(base + 4), off_struct = be32(base + 8), off_strings = be32(base + 12);
    uint32_t size_struct = be32(base + 36);
    if (total > ddr_hi - fdt || off_struct >= total || size_struct > total - off_struct ||
        off_strings > total)
        return 0;
    (void)off_strings;

    const uint8_t *p = base + off_struct, *end = p + size_struct;
    unsigned depth = 0, cpus_depth = 0, count = 0;
    while (p + 4 <= end) {
        uint32_t token = be32(p);
        p += 4;
        if (token == FDT_BEGIN_NODE) {
            const char *name = (const char *)p;
            size_t len = strnlen(name, (size_t)(end - p));
            depth++;
            if (depth == 2 && strcmp(name, "cpus") == 0)
                cpus_depth = depth;
            else if (cpus_depth && depth == cpus_depth + 1 && strncmp(name, "cpu@", 4) == 0)
                count++;
            else if (strncmp(name, "clint@", 6) == 0)
                *has_clint = 1;
            p += (len + 1 + 3) & ~(size_t)3;
        } else if (token == FDT_END_NODE) {
            if (depth == 0)
                return 0;
            if (depth == cpus_depth)
                cpus_depth = 0;
            depth--;
        } else if (token == FDT_PROP) {
            if (p + 8 > end)
                return 0;
            uint32_t len = be32(p);
            p += 8 + ((len + 3) & ~3u);
        } else if (token == FDT_NOP) {
            continue;
        } else if (token == FDT_END) {
            return count;
        } else {
            return 0;
        }
    }
    return 0;
}

/* ---- start-up and exit --------------------------------------------------------------- */

static void park(void) __attribute__((noreturn));
static void park(void)
{
    for (;;)
        wfi();
}

static void hart_finished(int status) __attribute__((noreturn));
static void hart_finished(int status)
{
    smp_console_flush();
    if (status != 0 && smp_compare_swap32(&exit_status_set, 0, 1) == 0)
        smp_store_release32(&exit_status, (uint32_t)status);
    if (smp_fetch_add32(&harts_finished, 1) + 1 == hart_count)
        exit((int)smp_load_acquire32(&exit_status));
    park();
}

int smp_exit_status(void) { return (int)smp_load_acquire32(&exit_status); }

void npuvp_smp_start(unsigned long hart, uintptr_t device_tree) __attribute__((noreturn));
void npuvp_smp_start(unsigned long hart, uintptr_t device_tree)
{
    if (hart == 0) {
        for (char *p = __bss_start; p < __bss_end; p += 8)
            *(volatile uint64_t *)p = 0;    /* link.ld aligns .bss to 8 */
        int has_clint = 0;
        unsigned n = fdt_count_cpus(device_tree, &has_clint);
        idle_with_timer = n != 0 && has_clint;
        hart_count_source = "device-tree";
        if (n == 0) {
            n = (unsigned)__npuvp_layout[7];
            hart_count_source = "link-time";
        }
        if (n > NPUVP_SMP_MAX_HARTS)
            n = NPUVP_SMP_MAX_HARTS;
        if (n > __npuvp_layout[1])          /* stack slots */
            n = (unsigned)__npuvp_layout[1];
        if (n == 0)
            n = 1;
        hart_count = n;
        smp_barrier_init(&all_harts_barrier, n);
        __libc_init_array();
        /* Everything above happens before any other hart leaves the loop below. */
        smp_store_release32(&smp_ready, SMP_READY_MAGIC);
    } else {
        /* Hart 0's start-up (zeroing .bss, constructors) takes long: fence only every
         * SMP_START_POLLS_PER_FENCE polls, so NSI validates the flag rarely. */
        unsigned polls = 0;
        while (smp_ready != SMP_READY_MAGIC)
            if (++polls == SMP_START_POLLS_PER_FENCE) {
                polls = 0;
                smp_fence();
            }
        smp_acquire_after_poll();
    }
    if (hart >= hart_count)
        park();
    hart_finished(main(0, NULL));
}

/* ---- waiting ------------------------------------------------------------------------ */

/* Polls before a wait sleeps, and how long it sleeps (10 MHz ticks: 20 us). */
#define SMP_POLLS_BEFORE_IDLE 64
#define SMP_IDLE_TICKS 200
/* smp_barrier_wait_spin(): polls before its waiter sleeps. */
#define SMP_POLLS_BEFORE_SLEEP_SPIN 4096

void smp_relax(unsigned *polls)
{
    /* The counter first: idle_with_timer is shared, and reading it on every poll would
     * cost an NSI validation after every fence of the wait loop. */
    if (++*polls < SMP_POLLS_BEFORE_IDLE)
        return;
    *polls = 0;
    if (!idle_with_timer)
        return;
    /* Wake on this hart's own timer; MIE stays off, so no trap is taken: wfi only
     * returns once MTIP is pending (or earlier, which is harmless). */
    unsigned h = smp_hart_id();
    clint_set_mtimecmp(h, clint_mtime() + SMP_IDLE_TICKS);
    set_csr(mie, MIE_MTIE);
    wfi();
    clear_csr(mie, MIE_MTIE);
    clint_set_mtimecmp(h, UINT64_MAX);
}

void smp_wait_until_equal32(const volatile uint32_t *p, uint32_t value)
{
    unsigned polls = 0, relax = 0;
    while (smp_poll32(p, &polls) != value)
        smp_relax(&relax);
    smp_acquire_after_poll();
}

void smp_sleep_while_equal32(const volatile uint32_t *p, uint32_t value,
                             volatile uint32_t *sleepers)
{
    unsigned h = smp_hart_id();
    uint32_t bit = 1u << h;
    set_csr(mie, MIE_MSIE);
    for (;;) {
        /* .aqrl: registered before the msip clear and the re-read below. */
        __asm__ volatile("amoor.w.aqrl zero, %1, (%0)" : : "r"(sleepers), "r"(bit) : "memory");
        clint_set_msip(h, 0);
        /* The clear before the re-read; the fence also makes the re-read current under
         * self-invalidation (NSI). */
        __asm__ volatile("fence iorw, iorw" ::: "memory");
        if (*p != value)
            break;
        wfi();
        /* Woken: usually released, so look before registering again (no AMO on the
         * shared word, no msip write: a pending msip is cleared by the next wait). */
        __asm__ volatile("fence iorw, iorw" ::: "memory");
        if (*p != value)
            break;
    }
    clear_csr(mie, MIE_MSIE);
    smp_acquire_after_poll();
}

void smp_wake_sleepers(volatile uint32_t *sleepers)
{
    uint32_t waiting;
    /* .aqrl: the store that ended the wait is performed before the set is taken. */
    __asm__ volatile("amoswap.w.aqrl %0, zero, (%1)" : "=r"(waiting) : "r"(sleepers) : "memory");
    if (!waiting)
        return;
    __asm__ volatile("fence rw, o" ::: "memory");   /* memory before the interrupts */
    while (waiting) {
        unsigned h = (unsigned)__builtin_ctz(waiting);
        waiting &= waiting - 1;
        clint_set_msip(h, 1);
    }
}

/* ---- barrier ------------------------------------------------------------------------- */

void smp_barrier_init(smp_barrier_t *b, unsigned participants)
{
    b->arrived = 0;
    b->sense = 0;
    b->sleepers = 0;
    b->participants = participants;
    for (unsigned i = 0; i < NPUVP_SMP_MAX_HARTS; i++)
        b->hart_sense[i] = 0;
    smp_fence();
}

static void barrier_wait(smp_barrier_t *b, int may_sleep)
{
    unsigned h = smp_hart_id();
    /* hart_sense[h] is private to hart h: plain accesses. */
    uint32_t sense = b->hart_sense[h] ^ 1u;
    b->hart_sense[h] = sense;
    /* .aqrl: this hart's earlier accesses are performed before it counts as arrived. */
    if (smp_fetch_add32(&b->arrived, 1) + 1 == b->participants) {
        /* Last to arrive: reset the count, then release the others. The reset is
         * ordered before the sense flip, so nobody can arrive at the next episode
         * before it. */
        smp_swap32(&b->arrived, 0);
        smp_store_release32(&b->sense, sense);
        smp_wake_sleepers(&b->sleepers);
    } else {
        /* The spinning variant polls a while before it sleeps, so participants
         * arriving close together also leave close together. */
        unsigned polls = 0;
        for (unsigned spins = may_sleep ? 0 : SMP_POLLS_BEFORE_SLEEP_SPIN; spins; spins--)
            if (smp_poll32(&b->sense, &polls) == sense) {
                smp_acquire_after_poll();
                return;
            }
        smp_sleep_while_equal32(&b->sense, sense ^ 1u, &b->sleepers);
    }
}

void smp_barrier_wait(smp_barrier_t *b) { barrier_wait(b, 1); }
void smp_barrier_wait_spin(smp_barrier_t *b) { barrier_wait(b, 0); }

void smp_barrier(void) { smp_barrier_wait(&all_harts_barrier); }

/* ---- region of interest -------------------------------------------------------------- */

/* Harts that called roi_end() in the current region (AMO only). */
static volatile uint32_t roi_harts_done;

void roi_begin(void)
{
    if (smp_hart_id() == 0)
        mmio_write32(NPUVP_FINISHER_ROI, NPUVP_ROI_BEGIN);
}

void roi_end(void)
{
    if (smp_fetch_add32(&roi_harts_done, 1) + 1 != hart_count)
        return;
    smp_swap32(&roi_harts_done, 0);     /* ready for the next region */
    mmio_write32(NPUVP_FINISHER_ROI, NPUVP_ROI_END);
}

/* ---- picolibc's retargetable locks (malloc, atexit, ...) ---------------------------- */

/*
 * Defining every symbol of picolibc's libc_misc_lock.c.o keeps its single-threaded
 * stubs out of the link. The locks are recursive by owner hart: picolibc nests
 * __LIBC_LOCK() (e.g. malloc from inside another locked section).
 */
struct __lock {
    smp_spinlock_t spin;
    volatile uint32_t owner;    /* hart id + 1, 0 = free */
    uint32_t depth;
};

struct __lock __lock___libc_recursive_mutex;

#define SMP_DYNAMIC_LOCKS 16
static struct __lock dynamic_locks[SMP_DYNAMIC_LOCKS];
static volatile uint32_t dynamic_lock_used[SMP_DYNAMIC_LOCKS];

static void lock_take(struct __lock *l)
{
    uint32_t me = smp_hart_id() + 1;
    if (l->owner == me) {           /* only this hart can have written `me` */
        l->depth++;
        return;
    }
    smp_lock(&l->spin);
    l->owner = me;
    l->depth = 1;
}

static int lock_try(struct __lock *l)
{
    uint32_t me = smp_hart_id() + 1;
    if (l->owner == me) {
        l->depth++;
        return 1;
    }
    if (!smp_trylock_amo(&l->spin))
        return 0;
    l->owner = me;
    l->depth = 1;
    return 1;
}

static void lock_give(struct __lock *l)
{
    if (--l->depth == 0) {
        l->owner = 0;
        smp_unlock(&l->spin);
    }
}

void __retarget_lock_init(_LOCK_T *lock)
{
    for (unsigned i = 0; i < SMP_DYNAMIC_LOCKS; i++) {
        if (smp_compare_swap32(&dynamic_lock_used[i], 0, 1) == 0) {
            memset(&dynamic_locks[i], 0, sizeof dynamic_locks[i]);
            *lock = &dynamic_locks[i];
            return;
        }
    }
    *lock = NULL;               /* out of locks: that object is not locked */
}
void __retarget_lock_init_recursive(_LOCK_T *lock) { __retarget_lock_init(lock); }
void __retarget_lock_close(_LOCK_T lock)
{
    if (lock && lock >= dynamic_locks && lock < dynamic_locks + SMP_DYNAMIC_LOCKS)
        smp_store_release32(&dynamic_lock_used[lock - dynamic_locks], 0);
}
void __retarget_lock_close_recursive(_LOCK_T lock) { __retarget_lock_close(lock); }
void __retarget_lock_acquire(_LOCK_T lock) { if (lock) lock_take(lock); }
void __retarget_lock_acquire_recursive(_LOCK_T lock) { if (lock) lock_take(lock); }
int __retarget_lock_try_acquire(_LOCK_T lock) { return lock ? lock_try(lock) : 1; }
int __retarget_lock_try_acquire_recursive(_LOCK_T lock) { return lock ? lock_try(lock) : 1; }
void __retarget_lock_release(_LOCK_T lock) { if (lock) lock_give(lock); }
void __retarget_lock_release_recursive(_LOCK_T lock) { if (lock) lock_give(lock); }
