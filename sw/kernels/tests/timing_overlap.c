/* Three independent instructions on three pipes: MTE3 (16 + 1024 cycles),
 * V (8 + 255) and M (16 + 128). With args[0] = 0 they overlap; with
 * args[0] = 1 flags chain them MTE3 -> V -> M, so they run one after the
 * other. */
#include "npuvp/davinci.h"

void kernel_main(const uint64_t* args) {
    const uint64_t serialise = args[0];
    copy_ubuf_to_cbuf(0, 0, 1, 2048, 0, 0);                           /* MTE3: 64 KiB */
    if (serialise) {
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    }
    vadd(0x10000, 0x10000, 0x10000, vector_contiguous(255, XD_F16)); /* V */
    if (serialise) {
        set_flag(PIPE_V, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_M, EVENT_ID0);
    }
    mmad(0, 0, 0, 64, 64, 64, XD_F16, 1);                             /* M */
}
