/*
 * HTIF ("host-target interface") as used by Spike, riscv-tests and riscv-pk, and by
 * QEMU's spike machine. Every npuvp program has the two 64-bit mailbox words (crt0.S,
 * section .tohost, one 64-byte line); a host finds them through the ELF symbols `tohost`
 * and `fromhost`, so their addresses differ between binaries.
 *
 * Target -> host: write one command to tohost:
 *     bits 63..56 device, 55..48 command, 47..0 payload
 *   device 0, command 0 ("syscall"):
 *     payload with bit 0 set: exit; exit code = payload >> 1 (tohost = (code << 1) | 1,
 *     so 1 means "exit 0" -- the riscv-tests pass value). Payload with bit 0 clear is a
 *     pointer to a riscv-pk syscall block (not used by npuvp firmware).
 *   device 1 ("bcd", console), command 1: write the character in payload bits 7..0.
 *   device 1, command 0: request one input character; answered through fromhost.
 *
 * Host -> target: the host clears tohost to 0 once it has taken a command. Answers come
 * back in fromhost with the same device/command bits (console read: 0x100 | char);
 * the target acknowledges by writing fromhost = 0, after which the host may post the
 * next answer. Hosts differ on console writes: QEMU answers them (fromhost =
 * 0x0101000000000100 | ch), Spike does not. So a write waits for tohost == 0 -- never for
 * fromhost -- and then acknowledges whatever answer is present.
 * Only one command may be outstanding: wait for tohost == 0 before writing it again.
 */
#ifndef NPUVP_HTIF_H
#define NPUVP_HTIF_H

#include <stdint.h>

extern volatile uint64_t tohost;
extern volatile uint64_t fromhost;

#define HTIF_DEV_SYSCALL   0u
#define HTIF_DEV_CONSOLE   1u
#define HTIF_CMD_GETC      0u
#define HTIF_CMD_PUTC      1u

#define HTIF_TOHOST(dev, cmd, payload) \
    (((uint64_t)(dev) << 56) | ((uint64_t)(cmd) << 48) | ((uint64_t)(payload) & 0xffffffffffffull))

/* Post a command once the previous one has been taken, and wait until this one is. */
static inline void htif_send(uint64_t command)
{
    while (tohost != 0)
        ;
    tohost = command;
    while (tohost != 0)
        ;
}

static inline void htif_putchar(char c)
{
    htif_send(HTIF_TOHOST(HTIF_DEV_CONSOLE, HTIF_CMD_PUTC, (uint8_t)c));
    if (fromhost != 0)          /* QEMU-style acknowledgement */
        fromhost = 0;
}

/* Ask the host to stop with `code`; returns only if no HTIF host is listening. */
static inline void htif_exit(uint64_t code)
{
    while (tohost != 0)
        ;
    tohost = (code << 1) | 1;
}

#endif /* NPUVP_HTIF_H */
