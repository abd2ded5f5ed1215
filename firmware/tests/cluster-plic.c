/*
 * The PLIC's machine external interrupt on every hart of the mesh cluster
 * (tests/integration/mesh_cluster_test.cpp, docs/cluster.md "Interrupts"). The harts
 * take turns; on its turn hart h
 *   - enables UART0's source in its own PLIC context (NPUVP_PLIC_CONTEXT_MACHINE(h),
 *     QEMU virt's order) and nowhere else, with threshold 0,
 *   - enables the UART's THR-empty interrupt, which the UART raises at once (its
 *     transmitter is idle),
 *   - sleeps in wfi with mie.MEIE set until the interrupt is pending, then opens
 *     mstatus.MIE and takes the machine external interrupt,
 * and its handler claims the source, checks the UART identifies THR-empty, disables
 * it (the UART lowers its line) and completes the source. Each hart records the
 * cause, the claimed source and its own id as the handler saw them; after a barrier
 * hart 0 checks every record, prints one line and exits 0 on success. Nothing is
 * printed while a turn runs, since every byte written to THR would raise the
 * interrupt again. Runs unchanged on qemu-system-riscv64 -M virt -smp N -bios none.
 */
#include <stdio.h>

#include <npuvp/csr.h>
#include <npuvp/platform.h>
#include <npuvp/smp.h>
#include <npuvp/trap.h>

#define REG32(address) (*(volatile uint32_t *)(uintptr_t)(address))
#define UART_REG(offset) (*(volatile uint8_t *)(uintptr_t)(NPUVP_UART0_BASE + (offset)))

/* What each hart's handler saw (0 until it ran). */
struct record {
    volatile uint64_t cause;
    volatile uint32_t source;
    volatile uint32_t handler_hart;
    volatile uint32_t uart_identification;
    volatile uint32_t interrupts;
};

static struct record records[NPUVP_SMP_MAX_HARTS];
static volatile uint32_t turn;

static void external_interrupt(struct npuvp_trap_frame *frame)
{
    unsigned me = smp_hart_id();
    unsigned context = NPUVP_PLIC_CONTEXT_MACHINE(me);
    struct record *r = &records[me];
    uint32_t source = REG32(NPUVP_PLIC_CLAIM(context));
    r->cause = frame->mcause;
    r->source = source;
    r->handler_hart = me;
    r->uart_identification = UART_REG(UART_IIR) & UART_IIR_ID_MASK;
    UART_REG(UART_IER) = 0;  /* the UART lowers its interrupt */
    REG32(NPUVP_PLIC_CLAIM(context)) = source;
    r->interrupts++;
}

/* One hart's turn: its context only, the UART raises, the hart takes it. */
static void take_uart_interrupt(unsigned me)
{
    unsigned context = NPUVP_PLIC_CONTEXT_MACHINE(me);
    uint32_t enable_bit = 1u << (NPUVP_UART0_PLIC_SOURCE % 32);
    volatile uint32_t *enable = (volatile uint32_t *)(uintptr_t)NPUVP_PLIC_ENABLE(context, NPUVP_UART0_PLIC_SOURCE);

    REG32(NPUVP_PLIC_THRESHOLD(context)) = 0;
    *enable |= enable_bit;
    set_csr(mie, MIE_MEIE);
    UART_REG(UART_IER) = UART_IER_THRE;
    /* wfi returns once MEIP is pending even with mstatus.MIE clear, so an interrupt
     * that arrives before the wfi is not lost; opening MIE then takes it. */
    for (int attempt = 0; attempt < 1000 && records[me].interrupts == 0; attempt++) {
        wfi();
        irq_enable();
        irq_disable();
    }
    clear_csr(mie, MIE_MEIE);
    *enable &= ~enable_bit;
}

int main(void)
{
    unsigned me = smp_hart_id(), harts = smp_hart_count();
    if (me == 0) {
        npuvp_set_irq_handler(IRQ_M_EXT, external_interrupt);
        REG32(NPUVP_PLIC_PRIORITY(NPUVP_UART0_PLIC_SOURCE)) = 1;
    }
    smp_barrier();
    smp_wait_until_equal32(&turn, me);
    take_uart_interrupt(me);
    smp_store_release32(&turn, me + 1);
    smp_barrier();
    if (me != 0)
        return 0;

    unsigned taken = 0;
    for (unsigned h = 0; h < harts; h++) {
        const struct record *r = &records[h];
        int good = r->interrupts == 1 && r->cause == (MCAUSE_INTERRUPT | IRQ_M_EXT) &&
                   r->source == NPUVP_UART0_PLIC_SOURCE && r->handler_hart == h &&
                   r->uart_identification == UART_IIR_THRE;
        if (!good)
            printf("cluster-plic: hart %u: interrupts=%u mcause=0x%lx source=%u handler on hart %u uart iir=0x%x\n",
                   h, (unsigned)r->interrupts, (unsigned long)r->cause, (unsigned)r->source,
                   (unsigned)r->handler_hart, (unsigned)r->uart_identification);
        taken += good;
    }
    uint32_t still_pending = REG32(NPUVP_PLIC_PENDING(NPUVP_UART0_PLIC_SOURCE)) &
                             (1u << (NPUVP_UART0_PLIC_SOURCE % 32));
    int pass = taken == harts && !still_pending;
    printf("cluster-plic: %s harts=%u taken=%u source=%u pending=%u\n", pass ? "PASS" : "FAIL", harts, taken,
           (unsigned)NPUVP_UART0_PLIC_SOURCE, still_pending ? 1u : 0u);
    return pass ? 0 : 1;
}
