/* 2 KiB of straight-line event-flag instructions (labels sync_body_start and
 * sync_body_end), every 64-byte line starting with a set_flag: 256 pairs of
 * set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0) and the matching wait_flag on V.
 * With a small direct-mapped instruction cache, fetching each line evicts an
 * older one, so the hart has a service pending (dropping the evicted decoded
 * instructions) in the very instruction that issues to the AI Core. Every
 * issue must still reach its pipe: one lost set_flag leaves a wait that can
 * never be satisfied. */
#include "npuvp/davinci.h"

#define SET_WAIT_PAIR                                                                   \
    "\t.insn i 0x5b, 0, x0, x0, %0\n"                                                   \
    "\t.insn i 0x5b, 1, x0, x0, %0\n"

void kernel_main(const uint64_t* args) {
    (void)args;
    __asm__ volatile(".balign 64\n.globl sync_body_start\nsync_body_start:\n"
                     ".rept 256\n" SET_WAIT_PAIR ".endr\n"
                     ".globl sync_body_end\nsync_body_end:"
                     :: "i"(XD_SYNC_IMM(PIPE_MTE3, PIPE_V, EVENT_ID0)) : "memory");
}
