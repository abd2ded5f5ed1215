/* wait_flag(PIPE_MTE2, PIPE_S, ...) blocks the scalar unit until MTE2 has set
 * the flag: after it, the scalar reads through the UB window what the copy
 * brought. args[0] = GM source (16 KiB), args[1] = GM result (2 words). */
#include "npuvp/davinci.h"

#define UB_WINDOW 0x101000000ull

void kernel_main(const uint64_t* args) {
    const void* src = (const void*)(uintptr_t)args[0];
    volatile uint64_t* out = (volatile uint64_t*)(uintptr_t)args[1];
    volatile const uint64_t* ub = (volatile const uint64_t*)UB_WINDOW;
    copy_gm_to_ubuf(0, src, 1, 512, 0, 0);                      /* MTE2: 16 KiB */
    set_flag(PIPE_MTE2, PIPE_S, EVENT_ID3);
    wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID3);                    /* the scalar unit waits here */
    out[0] = ub[0];
    out[1] = ub[16384 / 8 - 1];                                 /* last word of the copy */
}
