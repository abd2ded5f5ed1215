/*
 * npuvp SoC memory map and device registers as seen from the host CPU.
 * The shared part matches QEMU's `virt` machine, so the same ELF runs on both.
 */
#ifndef NPUVP_PLATFORM_H
#define NPUVP_PLATFORM_H

#include <stdint.h>
#include <npuvp/csr.h>

#define NPUVP_DDR_BASE          0x80000000ul
#define NPUVP_DDR_SIZE          0x40000000ul        /* default; configurable */
#define NPUVP_MAX_HARTS         16                  /* stack slots in link.ld */

/* Simulation control / test finisher (sifive_test compatible). */
#define NPUVP_FINISHER_BASE     0x00100000ul
#define NPUVP_FINISHER_PASS     0x5555u
#define NPUVP_FINISHER_FAIL     0x3333u             /* written as (code << 16) | FAIL */

/* CLINT */
#define NPUVP_CLINT_BASE        0x02000000ul
#define NPUVP_CLINT_MSIP(h)     (NPUVP_CLINT_BASE + 4ul * (h))            /* 32-bit */
#define NPUVP_CLINT_MTIMECMP(h) (NPUVP_CLINT_BASE + 0x4000ul + 8ul * (h)) /* 64-bit */
#define NPUVP_CLINT_MTIME       (NPUVP_CLINT_BASE + 0xBFF8ul)             /* 64-bit */
#define NPUVP_TIMEBASE_HZ       10000000ul                                /* 10 MHz */

/* PLIC (SiFive layout, as on QEMU virt) */
#define NPUVP_PLIC_BASE              0x0C000000ul
#define NPUVP_PLIC_PRIORITY(src)     (NPUVP_PLIC_BASE + 4ul * (src))
#define NPUVP_PLIC_PENDING(src)      (NPUVP_PLIC_BASE + 0x1000ul + 4ul * ((src) / 32))
#define NPUVP_PLIC_ENABLE(ctx, src)  (NPUVP_PLIC_BASE + 0x2000ul + 0x80ul * (ctx) + 4ul * ((src) / 32))
#define NPUVP_PLIC_THRESHOLD(ctx)    (NPUVP_PLIC_BASE + 0x200000ul + 0x1000ul * (ctx))
#define NPUVP_PLIC_CLAIM(ctx)        (NPUVP_PLIC_BASE + 0x200004ul + 0x1000ul * (ctx))

/* UART0, ns16550a with byte-wide registers */
#define NPUVP_UART0_BASE        0x10000000ul
#define UART_RBR                0       /* receive buffer (read) */
#define UART_THR                0       /* transmit holding (write) */
#define UART_LSR                5       /* line status */
#define UART_LSR_DR             0x01    /* receive data ready */
#define UART_LSR_THRE           0x20    /* transmit holding register empty */

/* Other SoC windows (devices described in docs/) */
#define NPUVP_NPU_CTRL_BASE     0x20000000ul
#define NPUVP_L2_BUFFER_BASE    0x30000000ul
#define NPUVP_MESH_CTRL_BASE    0x40000000ul

/* MMIO accessors: volatile so every access reaches the bus, in program order. */
static inline uint8_t  mmio_read8(uintptr_t a)   { return *(volatile uint8_t *)a; }
static inline uint32_t mmio_read32(uintptr_t a)  { return *(volatile uint32_t *)a; }
static inline uint64_t mmio_read64(uintptr_t a)  { return *(volatile uint64_t *)a; }
static inline void mmio_write8(uintptr_t a, uint8_t v)   { *(volatile uint8_t *)a = v; }
static inline void mmio_write32(uintptr_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline void mmio_write64(uintptr_t a, uint64_t v) { *(volatile uint64_t *)a = v; }

/* CLINT helpers. RV64 reads the 64-bit registers in one access, so no hi/lo race. */
static inline uint64_t clint_mtime(void) { return mmio_read64(NPUVP_CLINT_MTIME); }
static inline void clint_set_mtimecmp(unsigned long hart, uint64_t t)
{
    mmio_write64(NPUVP_CLINT_MTIMECMP(hart), t);
}
static inline uint64_t clint_mtimecmp(unsigned long hart) { return mmio_read64(NPUVP_CLINT_MTIMECMP(hart)); }
static inline void clint_set_msip(unsigned long hart, int pending)
{
    mmio_write32(NPUVP_CLINT_MSIP(hart), pending ? 1u : 0u);
}

/* Microseconds to timebase ticks. */
#define NPUVP_US_TO_TICKS(us)   ((uint64_t)(us) * (NPUVP_TIMEBASE_HZ / 1000000ul))

/* Polled UART byte I/O; usable in every program, including semihosted ones. */
static inline void npuvp_uart_putc(char c)
{
    while (!(mmio_read8(NPUVP_UART0_BASE + UART_LSR) & UART_LSR_THRE))
        ;
    mmio_write8(NPUVP_UART0_BASE + UART_THR, (uint8_t)c);
}
static inline int npuvp_uart_getc(void)
{
    while (!(mmio_read8(NPUVP_UART0_BASE + UART_LSR) & UART_LSR_DR))
        ;
    return mmio_read8(NPUVP_UART0_BASE + UART_RBR);
}

/* Stop the platform through the finisher: code 0 passes, anything else fails with that
 * code (the low 16 bits; a non-zero code whose low 16 bits are 0 is reported as 1).
 * Returns only if no finisher reacted. */
static inline void npuvp_finisher_write(int code)
{
    uint32_t c = (uint32_t)code & 0xffffu;
    if (code != 0 && c == 0)
        c = 1;
    mmio_write32(NPUVP_FINISHER_BASE,
                 code == 0 ? NPUVP_FINISHER_PASS : (c << 16) | NPUVP_FINISHER_FAIL);
}

#endif /* NPUVP_PLATFORM_H */
