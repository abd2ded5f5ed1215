/*
 * CLINT interrupts: one machine software interrupt (msip), then ten machine timer
 * interrupts 1 ms apart with the hart asleep in wfi between them. Exits 0 on success.
 *
 * Console output is the same on every platform; timing figures go to the "stats:" line.
 */
#include <stdio.h>
#include <stdlib.h>

#include <npuvp/platform.h>
#include <npuvp/trap.h>

#define TICKS           10
#define PERIOD          NPUVP_US_TO_TICKS(1000)      /* 1 ms = 10,000 ticks at 10 MHz */

static volatile unsigned timer_count;
static volatile unsigned soft_count;
static volatile uint64_t next_deadline;

static void timer_handler(struct npuvp_trap_frame *f)
{
    (void)f;
    unsigned long hart = hart_id();

    timer_count++;
    if (timer_count < TICKS) {
        /* Advance from the previous deadline, not from "now", so ticks don't drift. */
        next_deadline += PERIOD;
        clint_set_mtimecmp(hart, next_deadline);
    } else {
        /* Done: mask the source and push the deadline out of reach. */
        clear_csr(mie, MIE_MTIE);
        clint_set_mtimecmp(hart, UINT64_MAX);
    }
}

static void soft_handler(struct npuvp_trap_frame *f)
{
    (void)f;
    clint_set_msip(hart_id(), 0);      /* msip is level-triggered: clear it */
    soft_count++;
}

/*
 * Sleep until *counter reaches target. The check and the wfi run with mstatus.MIE clear:
 * an interrupt arriving after the check still ends the wfi (wfi wakes on any pending
 * enabled interrupt regardless of MIE) and is taken once MIE is set again. Checking with
 * interrupts enabled could lose the last wake-up and sleep forever.
 */
static void wait_for(volatile unsigned *counter, unsigned target)
{
    for (;;) {
        irq_disable();
        if (*counter >= target)
            break;
        wfi();
        irq_enable();
    }
    irq_enable();
}

int main(void)
{
    unsigned long hart = hart_id();
    int ok = 1;

    npuvp_set_irq_handler(IRQ_M_SOFT, soft_handler);
    npuvp_set_irq_handler(IRQ_M_TIMER, timer_handler);

    /* Software interrupt: raise msip for ourselves. */
    set_csr(mie, MIE_MSIE);
    irq_enable();
    clint_set_msip(hart, 1);
    wait_for(&soft_count, 1);
    clear_csr(mie, MIE_MSIE);
    printf("timer-irq: software interrupt taken (%u)\n", soft_count);

    /* Timer: first deadline one period from now, then re-armed by the handler. */
    uint64_t start = clint_mtime();
    uint64_t cycles0 = rdcycle(), instret0 = rdinstret();
    next_deadline = start + PERIOD;
    clint_set_mtimecmp(hart, next_deadline);
    set_csr(mie, MIE_MTIE);

    /* One line per tick even if printing ever falls behind the timer. */
    for (unsigned tick = 1; tick <= TICKS; tick++) {
        wait_for(&timer_count, tick);
        printf("timer-irq: tick %u\n", tick);
    }
    uint64_t elapsed = clint_mtime() - start;
    uint64_t cycles = rdcycle() - cycles0, instret = rdinstret() - instret0;

    if (timer_count != TICKS) {
        printf("timer-irq: handler ran %u times, expected %u\n", timer_count, TICKS);
        ok = 0;
    }
    if (elapsed < TICKS * PERIOD) {
        printf("timer-irq: mtime advanced only %lu ticks, expected >= %lu\n",
               (unsigned long)elapsed, (unsigned long)(TICKS * PERIOD));
        ok = 0;
    }
    if (soft_count != 1) {
        printf("timer-irq: software interrupt count %u, expected 1\n", soft_count);
        ok = 0;
    }
    printf("stats: mtime_ticks=%lu cycles=%lu instret=%lu\n",
           (unsigned long)elapsed, (unsigned long)cycles, (unsigned long)instret);
    printf("timer-irq: %u interrupts, %s\n", timer_count, ok ? "PASS" : "FAIL");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
