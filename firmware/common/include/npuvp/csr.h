/* RISC-V machine-mode CSR access and small privileged-instruction helpers. */
#ifndef NPUVP_CSR_H
#define NPUVP_CSR_H

#include <stdint.h>

/* CSR names are pasted into the instruction, so any name the assembler knows works
 * (mstatus, mie, mhartid, ...) as well as a number (0x7c0). */
#define read_csr(csr) ({                                              \
        unsigned long __v;                                            \
        __asm__ volatile("csrr %0, " #csr : "=r"(__v) : : "memory");  \
        __v; })
#define write_csr(csr, val) ({                                        \
        unsigned long __w = (unsigned long)(val);                     \
        __asm__ volatile("csrw " #csr ", %0" : : "rK"(__w) : "memory"); })
#define swap_csr(csr, val) ({                                         \
        unsigned long __w = (unsigned long)(val), __v;                \
        __asm__ volatile("csrrw %0, " #csr ", %1"                     \
                         : "=r"(__v) : "rK"(__w) : "memory");         \
        __v; })
/* Set / clear bits; both return the old value. */
#define set_csr(csr, bits) ({                                         \
        unsigned long __w = (unsigned long)(bits), __v;               \
        __asm__ volatile("csrrs %0, " #csr ", %1"                     \
                         : "=r"(__v) : "rK"(__w) : "memory");         \
        __v; })
#define clear_csr(csr, bits) ({                                       \
        unsigned long __w = (unsigned long)(bits), __v;               \
        __asm__ volatile("csrrc %0, " #csr ", %1"                     \
                         : "=r"(__v) : "rK"(__w) : "memory");         \
        __v; })

/* mstatus */
#define MSTATUS_MIE   (1ul << 3)
#define MSTATUS_MPIE  (1ul << 7)
#define MSTATUS_MPP   (3ul << 11)

/* mie / mip bits, indexed by interrupt cause */
#define IRQ_M_SOFT    3
#define IRQ_M_TIMER   7
#define IRQ_M_EXT     11
#define MIE_MSIE      (1ul << IRQ_M_SOFT)
#define MIE_MTIE      (1ul << IRQ_M_TIMER)
#define MIE_MEIE      (1ul << IRQ_M_EXT)

/* mcause: top bit set for interrupts, the rest is the cause code */
#define MCAUSE_INTERRUPT  (1ul << 63)
#define MCAUSE_CODE(c)    ((c) & ~MCAUSE_INTERRUPT)

static inline unsigned long hart_id(void) { return read_csr(mhartid); }

/* Counters (Zicntr). rdtime needs the platform to implement the time CSR; the CLINT's
 * mtime register (platform.h) is the portable way to read the timebase in M-mode. */
static inline uint64_t rdcycle(void)   { return read_csr(cycle); }
static inline uint64_t rdinstret(void) { return read_csr(instret); }
static inline uint64_t rdtime(void)    { return read_csr(time); }

static inline void wfi(void) { __asm__ volatile("wfi" : : : "memory"); }

/* Global machine interrupt enable (mstatus.MIE). Per-source enables are in mie. */
static inline void irq_enable(void)  { set_csr(mstatus, MSTATUS_MIE); }
static inline void irq_disable(void) { clear_csr(mstatus, MSTATUS_MIE); }
/* Disable and return the previous state, for irq_restore(): nestable critical sections. */
static inline unsigned long irq_save(void) { return clear_csr(mstatus, MSTATUS_MIE) & MSTATUS_MIE; }
static inline void irq_restore(unsigned long state) { set_csr(mstatus, state & MSTATUS_MIE); }

#endif /* NPUVP_CSR_H */
