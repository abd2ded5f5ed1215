/* Per-block state: run as two task blocks on one core. Block 0 leaves event
 * flags set (10 sets of (PIPE_S, PIPE_V, EVENT_ID0) never waited for) and a
 * vector mask of one lane. Block 1 must start with all counters 0 and the
 * full mask: its 10 sets + 10 waits stay within flag_counter_max (15) only
 * if the counters were reset, and its vadd must write all 128 lanes.
 * UB 0x100: 128 halves (the test fills them); block 1: 0x1000 = 2 * 0x100. */
#include "npuvp/davinci.h"

void kernel_main(const uint64_t* args, uint64_t index) {
    (void)args;
    if (index == 0) {
        __asm__ volatile(".rept 10\n\t.insn i 0x5b, 0, x0, x0, %0\n\t.endr"
                         :: "i"(XD_SYNC_IMM(PIPE_S, PIPE_V, EVENT_ID0)) : "memory");
        set_vector_mask(0, 1);
        return;
    }
    __asm__ volatile(".rept 10\n\t.insn i 0x5b, 0, x0, x0, %0\n\t.endr"
                     :: "i"(XD_SYNC_IMM(PIPE_S, PIPE_V, EVENT_ID0)) : "memory");
    __asm__ volatile(".rept 10\n\t.insn i 0x5b, 1, x0, x0, %0\n\t.endr"
                     :: "i"(XD_SYNC_IMM(PIPE_S, PIPE_V, EVENT_ID0)) : "memory");
    vadd(0x1000, 0x100, 0x100, vector_contiguous(1, XD_F16));
}
