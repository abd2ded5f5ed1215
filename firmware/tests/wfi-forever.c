/*
 * Sleeps with every interrupt source disabled (mie = 0, mstatus.MIE = 0): nothing can
 * ever end the wfi, so the simulator should detect the deadlock instead of idling until
 * its time limit.
 */
#include <stdio.h>

#include <npuvp/csr.h>

int main(void)
{
    printf("wfi-forever: sleeping with all interrupts disabled\n");
    irq_disable();
    write_csr(mie, 0);
    for (;;)
        wfi();
}
