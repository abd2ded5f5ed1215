/* Event flags are counters. Two set_flags on MTE3 have both executed
 * (pipe_barrier) before V waits twice: both waits pass (a boolean flag would
 * let only one through). With args[0] = 3 a third wait follows, with no set
 * left: the kernel deadlocks there (label third_wait).
 * UB 0x1000: 128 halves, each wait lets one "+1.0" through. */
#include "npuvp/davinci.h"

#define HALF_ONE 0x3c00

void kernel_main(const uint64_t* args) {
    const uint64_t waits = args[0];
    copy_ubuf_to_cbuf(0, 0x2000, 1, 8, 0, 0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);
    copy_ubuf_to_cbuf(0x100, 0x2000, 1, 8, 0, 0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);
    pipe_barrier(PIPE_MTE3);                                    /* counter (MTE3, V, 2) = 2 */
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);
    vadds(0x1000, 0x1000, HALF_ONE, vector_contiguous(1, XD_F16));
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);
    vadds(0x1000, 0x1000, HALF_ONE, vector_contiguous(1, XD_F16));
    if (waits > 2) {
        __asm__ volatile(".globl third_wait\nthird_wait:\n\t.insn i 0x5b, 1, x0, x0, %0"
                         :: "i"(XD_SYNC_IMM(PIPE_MTE3, PIPE_V, EVENT_ID2)) : "memory");
        vadds(0x1000, 0x1000, HALF_ONE, vector_contiguous(1, XD_F16));
    }
}
