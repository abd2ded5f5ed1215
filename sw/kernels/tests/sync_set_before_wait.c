/* set_flag before wait_flag: the set has executed (pipe_barrier on its pipe)
 * before the wait is even issued; the wait must pass without blocking.
 * UB 0x100: 128 halves (the test writes them); 0x1000 = 0x100 + 0x100. */
#include "npuvp/davinci.h"

void kernel_main(const uint64_t* args) {
    (void)args;
    copy_ubuf_to_cbuf(0, 0x100, 1, 8, 0, 0);                   /* MTE3: 256 bytes */
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    pipe_barrier(PIPE_MTE3);                                    /* the set has executed */
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);                    /* counter already 1 */
    vadd(0x1000, 0x100, 0x100, vector_contiguous(1, XD_F16));
}
