/*
 * Machine-mode trap handling.
 *
 * crt0 points mtvec (direct mode) at npuvp_trap_entry, which saves every integer
 * register into a struct npuvp_trap_frame on the current stack and calls
 * trap_dispatch(). Interrupts go to the handler registered for their cause; so do
 * exceptions. A trap without a handler prints one line on stderr,
 *   npuvp: unhandled exception: illegal instruction (mcause=2) mepc=0x... mtval=0x...
 * and exits with NPUVP_EXIT_UNHANDLED_TRAP.
 *
 * Handlers run with interrupts disabled (mstatus.MIE is cleared by the trap). An
 * exception handler that wants to resume after the faulting instruction must advance
 * frame->mepc itself (by 2 or 4, see npuvp_insn_length()). mepc and mstatus are
 * restored from the frame, as are all registers except sp.
 */
#ifndef NPUVP_TRAP_H
#define NPUVP_TRAP_H

#include <stdint.h>
#include <npuvp/csr.h>

#define NPUVP_EXIT_UNHANDLED_TRAP  0x7F

/* Exception causes (mcause with the interrupt bit clear) */
#define CAUSE_MISALIGNED_FETCH     0
#define CAUSE_FETCH_ACCESS         1
#define CAUSE_ILLEGAL_INSTRUCTION  2
#define CAUSE_BREAKPOINT           3
#define CAUSE_MISALIGNED_LOAD      4
#define CAUSE_LOAD_ACCESS          5
#define CAUSE_MISALIGNED_STORE     6
#define CAUSE_STORE_ACCESS         7
#define CAUSE_USER_ECALL           8
#define CAUSE_SUPERVISOR_ECALL     9
#define CAUSE_MACHINE_ECALL        11
#define CAUSE_FETCH_PAGE_FAULT     12
#define CAUSE_LOAD_PAGE_FAULT      13
#define CAUSE_STORE_PAGE_FAULT     15

#define NPUVP_NUM_CAUSES           32   /* handler table size per kind */

/* Register frame. Offsets are fixed: trap_entry.S uses them. */
struct npuvp_trap_frame {
    uint64_t x[32];     /* x[0] reads as 0; x[2] is sp at the time of the trap */
    uint64_t mstatus;
    uint64_t mepc;
    uint64_t mcause;
    uint64_t mtval;
};

typedef void (*npuvp_trap_handler_t)(struct npuvp_trap_frame *frame);

/* Register a handler for interrupt cause `cause` (IRQ_M_SOFT, IRQ_M_TIMER, IRQ_M_EXT, ...)
 * or for exception cause `cause` (CAUSE_*). NULL removes it. Returns the previous
 * handler; causes >= NPUVP_NUM_CAUSES are ignored and return NULL. */
npuvp_trap_handler_t npuvp_set_irq_handler(unsigned cause, npuvp_trap_handler_t fn);
npuvp_trap_handler_t npuvp_set_exception_handler(unsigned cause, npuvp_trap_handler_t fn);

/* Human-readable name for an mcause value ("machine timer", "illegal instruction"). */
const char *npuvp_cause_name(uint64_t mcause);

/* Length in bytes (2 or 4) of the instruction at pc, for handlers that skip it. */
static inline unsigned npuvp_insn_length(uint64_t pc)
{
    return (*(const volatile uint16_t *)pc & 3) == 3 ? 4 : 2;
}

#endif /* NPUVP_TRAP_H */
