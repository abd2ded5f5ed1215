/* Smallest end-to-end kernel: y = x + x for 128 f16 values, the three pipes
 * chained by event flags. args[0] = x (GM), args[1] = y (GM). */
#include "npuvp/davinci.h"

void kernel_main(const uint64_t* args) {
    const void* x = (const void*)(uintptr_t)args[0];
    void* y = (void*)(uintptr_t)args[1];
    copy_gm_to_ubuf(0, x, 1, 8, 0, 0);          /* 256 bytes = 128 halves */
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    vadd(256, 0, 0, vector_contiguous(1, XD_F16));
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    copy_ubuf_to_gm(y, 256, 1, 8, 0, 0);
}
