/*
 * Program exit through the sim-control / test finisher (sifive_test compatible): QEMU's
 * virt machine and npuvp both stop and report the code. exit() (after atexit handlers)
 * and abort() end up here.
 */
#include <unistd.h>

#include <npuvp/platform.h>

void _exit(int code)
{
    npuvp_finisher_write(code);
    /* No finisher on this platform: stop doing anything observable. */
    irq_disable();
    write_csr(mie, 0);
    for (;;)
        wfi();
}
