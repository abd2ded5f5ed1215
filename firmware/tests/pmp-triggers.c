/*
 * PMP and Sdtrig triggers from machine mode, in the manner of riscv-tests' rv64mi
 * programs but our own (tests/integration/qemu_compat_test.cpp compares the output with
 * QEMU virt's line by line):
 *   - trigger CSRs: tselect, tdata1 type, and execute / load / store address-match
 *     triggers raising breakpoint exceptions (the instruction does not happen);
 *   - PMP CSRs: pmpaddr/pmpcfg read-back, then U-mode probes (load, store, fetch)
 *     against regions, and a locked entry binding M-mode.
 * Every trap goes to one handler that records mcause and mtval (as an offset from the
 * probed object where that is meaningful). A trap from M-mode skips the instruction; a
 * trap from U-mode returns to M-mode after the probe's call.
 *
 * Left out because QEMU 7.2 differs from the spec there (tests/unit/hart_pmp_trigger_test.cpp
 * checks npuvp's spec behaviour): mtval of a trigger's breakpoint (QEMU: 0; npuvp: the
 * address, as Spike), pmpaddr bits 63:54 (QEMU keeps them), pmpcfg's reserved bits 6:5
 * (QEMU keeps them), U-mode with no PMP entry configured (QEMU refuses the mret).
 */
#include <stdint.h>
#include <stdio.h>

#include <npuvp/csr.h>

static uint64_t protected_page[512] __attribute__((aligned(4096)));
static volatile uint64_t open_word = 11;

static volatile unsigned long trap_count, trap_cause, trap_value, resume_pc;

/* U-mode probes: a0 = address; each ends with an ecall (cause 8) unless it faults. */
void user_load(void);
void user_store(void);
void user_ecall(void);
__asm__(".section .text.user_probes\n"
        ".balign 4\n"
        ".globl user_load\nuser_load:\n  ld a0, 0(a0)\n  ecall\n"
        ".globl user_store\nuser_store:\n  sd a0, 0(a0)\n  ecall\n"
        ".globl user_ecall\nuser_ecall:\n  ecall\n"
        ".previous\n");

static void __attribute__((interrupt("machine"), aligned(4))) record_trap(void)
{
    unsigned long cause, tval, epc, status;
    __asm__ volatile("csrr %0, mcause\n\tcsrr %1, mtval\n\tcsrr %2, mepc\n\tcsrr %3, mstatus"
                     : "=r"(cause), "=r"(tval), "=r"(epc), "=r"(status));
    trap_count++;
    trap_cause = cause;
    trap_value = tval;
    if ((status & (3ul << 11)) == 0) {  /* from U-mode: back to M-mode after the probe */
        __asm__ volatile("csrs mstatus, %0" : : "r"(3ul << 11));
        epc = resume_pc;
    } else {
        uint16_t first_half = *(volatile uint16_t *)(uintptr_t)epc;
        epc += (first_half & 3) == 3 ? 4 : 2;
    }
    __asm__ volatile("csrw mepc, %0" : : "r"(epc));
}

/* Runs `probe` in U-mode with a0 = argument; returns the cause that ended it. */
static unsigned long run_in_user(void (*probe)(void), unsigned long argument)
{
    register unsigned long a0 __asm__("a0") = argument;
    __asm__ volatile("la t0, 1f\n\t"
                     "sd t0, 0(%[resume])\n\t"
                     "csrw mepc, %[probe]\n\t"
                     "li t0, 0x1800\n\t"
                     "csrc mstatus, t0\n\t"      /* MPP = U */
                     "mret\n"
                     "1:"
                     : "+r"(a0)
                     : [probe] "r"(probe), [resume] "r"(&resume_pc)
                     : "t0", "memory");
    return trap_cause;
}

/* ---------------------------------------------------------------- triggers */

#define TDATA1_MCONTROL (2ul << 60)
#define TDATA1_M (1ul << 6)
#define TDATA1_EXECUTE 4ul
#define TDATA1_STORE 2ul
#define TDATA1_LOAD 1ul
#define TDATA1_HIT (1ul << 20)

static long __attribute__((noinline, aligned(4))) watched_function(long x) { return x + 1; }
static volatile long watched_result;

static void report(const char *what, unsigned long before, unsigned long offset_base)
{
    printf("%s: traps=%lu cause=%lu tval_offset=%ld\n", what, trap_count - before, trap_cause,
           (long)(trap_value - offset_base));
}

static void report_trigger(const char *what, unsigned long before)
{
    printf("%s: traps=%lu cause=%lu\n", what, trap_count - before, trap_cause);
}

static void triggers(void)
{
    write_csr(0x7a0, 0);  /* tselect */
    printf("tselect=%lu tdata1.type=%lu\n", read_csr(0x7a0), read_csr(0x7a1) >> 60);

    /* Execute: the call's first instruction traps and is skipped, the rest runs. */
    unsigned long before = trap_count;
    write_csr(0x7a2, (uintptr_t)watched_function);
    write_csr(0x7a1, TDATA1_MCONTROL | TDATA1_M | TDATA1_EXECUTE);
    printf("tdata1=%lx\n", read_csr(0x7a1) & ~TDATA1_HIT);
    watched_result = watched_function(41);
    report_trigger("execute trigger", before);
    write_csr(0x7a1, TDATA1_MCONTROL);

    /* Load: the load does not happen (the register keeps its value). */
    open_word = 11;
    before = trap_count;
    write_csr(0x7a2, (uintptr_t)&open_word);
    write_csr(0x7a1, TDATA1_MCONTROL | TDATA1_M | TDATA1_LOAD);
    long loaded = -1;
    __asm__ volatile("ld %0, 0(%1)" : "+r"(loaded) : "r"(&open_word) : "memory");
    report_trigger("load trigger", before);
    printf("loaded=%ld\n", loaded);
    __asm__ volatile("sd %0, 0(%1)" : : "r"(22l), "r"(&open_word) : "memory");
    printf("store under a load trigger: traps=%lu\n", trap_count - before);

    /* Store: the memory keeps its value. */
    before = trap_count;
    write_csr(0x7a1, TDATA1_MCONTROL | TDATA1_M | TDATA1_STORE);
    __asm__ volatile("sd %0, 0(%1)" : : "r"(33l), "r"(&open_word) : "memory");
    write_csr(0x7a1, TDATA1_MCONTROL);
    report_trigger("store trigger", before);
    printf("open_word=%lu\n", (unsigned long)open_word);

    /* A second trigger. */
    write_csr(0x7a0, 1);
    printf("tselect=%lu\n", read_csr(0x7a0));
    before = trap_count;
    write_csr(0x7a2, (uintptr_t)&protected_page[3]);
    write_csr(0x7a1, TDATA1_MCONTROL | TDATA1_M | TDATA1_LOAD | TDATA1_STORE);
    __asm__ volatile("sd %0, 0(%1)" : : "r"(5l), "r"(&protected_page[3]) : "memory");
    write_csr(0x7a1, TDATA1_MCONTROL);
    report_trigger("trigger 1 store", before);
    printf("protected_page[3]=%lu\n", (unsigned long)protected_page[3]);
    write_csr(0x7a0, 0);
}

/* ---------------------------------------------------------------- PMP */

#define PMP_R 1ul
#define PMP_W 2ul
#define PMP_X 4ul
#define PMP_NAPOT 0x18ul
#define PMP_LOCK 0x80ul
static unsigned long napot(uintptr_t base, unsigned long size) { return (base >> 2) | ((size >> 3) - 1); }

static void pmp(void)
{
    write_csr(pmpaddr0, ~0ul);
    printf("pmpaddr0 all ones reads %lx in bits 53:0\n", read_csr(pmpaddr0) & ((1ul << 54) - 1));
    write_csr(pmpcfg0, 0x0f1full);
    printf("pmpcfg0 written 0x0f1f reads %lx\n", read_csr(pmpcfg0));
    write_csr(pmpcfg0, 0);

    /* Entry 0: the protected page, read-only; entry 1: all of DDR, read/write/execute. */
    write_csr(pmpaddr0, napot((uintptr_t)protected_page, sizeof protected_page));
    write_csr(pmpaddr1, napot(0x80000000u, 0x80000000u));
    write_csr(pmpcfg0, (PMP_NAPOT | PMP_R) | (PMP_NAPOT | PMP_R | PMP_W | PMP_X) << 8);
    protected_page[0] = 77;
    unsigned long before = trap_count;
    unsigned long cause = run_in_user(user_load, (uintptr_t)&protected_page[0]);
    printf("user load from read-only page: cause=%lu traps=%lu\n", cause, trap_count - before);
    cause = run_in_user(user_store, (uintptr_t)&protected_page[1]);
    report("user store to read-only page", before, (uintptr_t)protected_page);
    cause = run_in_user(user_store, (uintptr_t)&open_word);
    printf("user store elsewhere in DDR: cause=%lu open_word=%lx\n", cause,
           (unsigned long)open_word - (uintptr_t)&open_word);
    before = trap_count;
    cause = run_in_user(user_load, 0x1000);  /* boot ROM: no entry */
    report("user load outside every entry", before, 0x1000);
    /* DDR without execute permission: the probe's first fetch faults. */
    write_csr(pmpcfg0, (PMP_NAPOT | PMP_R) | (PMP_NAPOT | PMP_R | PMP_W) << 8);
    before = trap_count;
    cause = run_in_user(user_ecall, 0);
    report("user fetch without X", before, (uintptr_t)user_ecall);
    write_csr(pmpcfg0, (PMP_NAPOT | PMP_R) | (PMP_NAPOT | PMP_R | PMP_W | PMP_X) << 8);

    /* M-mode: unlocked entries do not apply; a locked one does (until reset). */
    before = trap_count;
    protected_page[2] = 1;
    printf("machine store to unlocked read-only page: traps=%lu value=%lu\n", trap_count - before,
           (unsigned long)protected_page[2]);
    write_csr(pmpcfg0, (PMP_LOCK | PMP_NAPOT | PMP_R) | (PMP_NAPOT | PMP_R | PMP_W | PMP_X) << 8);
    write_csr(pmpaddr0, 0);
    printf("locked: pmpaddr0 keeps %d\n", read_csr(pmpaddr0) == napot((uintptr_t)protected_page, sizeof protected_page));
    __asm__ volatile("sd %0, 0(%1)" : : "r"(2l), "r"(&protected_page[2]) : "memory");
    report("machine store to locked read-only page", before, (uintptr_t)protected_page);
    printf("value=%lu\n", (unsigned long)protected_page[2]);
}

int main(void)
{
    unsigned long saved_mtvec = read_csr(mtvec);
    write_csr(mtvec, (uintptr_t)record_trap);
    triggers();
    pmp();
    write_csr(mtvec, saved_mtvec);
    printf("pmp-triggers: done\n");
    return 0;
}
