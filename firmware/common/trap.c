/* C side of machine-mode trap handling: handler tables and dispatch (npuvp/trap.h). */
#include <stdio.h>
#include <stdlib.h>

#include <npuvp/platform.h>
#include <npuvp/trap.h>

#include "trap_private.h"

static npuvp_trap_handler_t irq_handlers[NPUVP_NUM_CAUSES];
static npuvp_trap_handler_t exception_handlers[NPUVP_NUM_CAUSES];

static npuvp_trap_handler_t swap_handler(npuvp_trap_handler_t *table, unsigned cause,
                                         npuvp_trap_handler_t fn)
{
    if (cause >= NPUVP_NUM_CAUSES)
        return NULL;
    /* Tables are read by trap_dispatch: update with interrupts off. */
    unsigned long state = irq_save();
    npuvp_trap_handler_t old = table[cause];
    table[cause] = fn;
    irq_restore(state);
    return old;
}

npuvp_trap_handler_t npuvp_set_irq_handler(unsigned cause, npuvp_trap_handler_t fn)
{
    return swap_handler(irq_handlers, cause, fn);
}

npuvp_trap_handler_t npuvp_set_exception_handler(unsigned cause, npuvp_trap_handler_t fn)
{
    return swap_handler(exception_handlers, cause, fn);
}

const char *npuvp_cause_name(uint64_t mcause)
{
    static const char *const exceptions[] = {
        [CAUSE_MISALIGNED_FETCH]    = "instruction address misaligned",
        [CAUSE_FETCH_ACCESS]        = "instruction access fault",
        [CAUSE_ILLEGAL_INSTRUCTION] = "illegal instruction",
        [CAUSE_BREAKPOINT]          = "breakpoint",
        [CAUSE_MISALIGNED_LOAD]     = "load address misaligned",
        [CAUSE_LOAD_ACCESS]         = "load access fault",
        [CAUSE_MISALIGNED_STORE]    = "store/AMO address misaligned",
        [CAUSE_STORE_ACCESS]        = "store/AMO access fault",
        [CAUSE_USER_ECALL]          = "environment call from U-mode",
        [CAUSE_SUPERVISOR_ECALL]    = "environment call from S-mode",
        [CAUSE_MACHINE_ECALL]       = "environment call from M-mode",
        [CAUSE_FETCH_PAGE_FAULT]    = "instruction page fault",
        [CAUSE_LOAD_PAGE_FAULT]     = "load page fault",
        [CAUSE_STORE_PAGE_FAULT]    = "store/AMO page fault",
    };
    static const char *const interrupts[] = {
        [1] = "supervisor software", [IRQ_M_SOFT]  = "machine software",
        [5] = "supervisor timer",    [IRQ_M_TIMER] = "machine timer",
        [9] = "supervisor external", [IRQ_M_EXT]   = "machine external",
    };
    uint64_t code = MCAUSE_CODE(mcause);
    const char *name = NULL;

    if (mcause & MCAUSE_INTERRUPT) {
        if (code < sizeof interrupts / sizeof interrupts[0])
            name = interrupts[code];
        return name ? name : "unknown interrupt";
    }
    if (code < sizeof exceptions / sizeof exceptions[0])
        name = exceptions[code];
    return name ? name : "unknown exception";
}

/* No handler: report on the console and stop the program. */
static void __attribute__((noreturn)) unhandled(const struct npuvp_trap_frame *f)
{
    static volatile int reporting;

    /* A second trap while reporting (broken stdio, corrupt stack, semihosting without a
     * semihosting host): stop through the finisher, which needs no library code. */
    if (reporting++) {
        npuvp_finisher_write(NPUVP_EXIT_UNHANDLED_TRAP);
        for (;;)
            wfi();
    }
    fprintf(stderr, "npuvp: unhandled %s: %s (mcause=0x%lx) mepc=0x%016lx mtval=0x%016lx\n",
            (f->mcause & MCAUSE_INTERRUPT) ? "interrupt" : "exception",
            npuvp_cause_name(f->mcause), (unsigned long)f->mcause,
            (unsigned long)f->mepc, (unsigned long)f->mtval);
    exit(NPUVP_EXIT_UNHANDLED_TRAP);
}

void trap_dispatch(struct npuvp_trap_frame *frame)
{
    uint64_t code = MCAUSE_CODE(frame->mcause);
    npuvp_trap_handler_t *table =
        (frame->mcause & MCAUSE_INTERRUPT) ? irq_handlers : exception_handlers;
    npuvp_trap_handler_t fn = code < NPUVP_NUM_CAUSES ? table[code] : NULL;

    if (!fn)
        unhandled(frame);
    fn(frame);
}
