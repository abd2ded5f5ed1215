/*
 * Exit through HTIF instead of the finisher, the way Spike-targeted programs
 * (riscv-tests, riscv-pk) do. Uses no UART and no finisher at all, so it also runs on
 * QEMU's `spike` machine.
 *
 * Conventions (Spike fesvr / riscv-pk; details in npuvp/htif.h):
 *   - tohost/fromhost are 64-bit words located through the ELF symbols of those names.
 *   - A command is (device << 56) | (command << 48) | payload. The host zeroes tohost
 *     once it has consumed a command; the target must not write tohost while it is
 *     non-zero.
 *   - Console output: device 1, command 1, payload = the character. QEMU acknowledges it
 *     in fromhost (the target then clears fromhost), Spike doesn't.
 *   - Exit: device 0, command 0, payload bit 0 set; tohost = (code << 1) | 1. Here
 *     code 0, so tohost = 1, the same "pass" value riscv-tests write.
 *
 * Expected console output: "H\n", then the simulator stops with exit status 0.
 */
#include <npuvp/csr.h>
#include <npuvp/htif.h>

int main(void)
{
    htif_putchar('H');
    htif_putchar('\n');
    htif_exit(0);

    /* No HTIF host took the exit command: stay quiet until a run limit stops us. */
    irq_disable();
    for (;;)
        wfi();
}
