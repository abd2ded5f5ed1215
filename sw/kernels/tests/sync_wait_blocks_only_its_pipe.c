/* A wait_flag blocks only its own pipe. V waits for a flag that MTE2 sets
 * after a long GM -> UB copy; the Cube's mmad is issued after that wait and
 * must run (and finish) while V is still blocked. The copy_matrix_cc_to_ubuf
 * on V reads L0C without a flag from the Cube on purpose: it sees the mmad's
 * result only if the Cube really ran while V waited.
 *
 * args[0] = GM source, 32 KiB (f16). The test fills L0A / L0B directly.
 * UB 0x00000: the copy; 0x10000: 2 * the first 512 halves (vadd, repeat 4);
 * 0x20000: the 32x32 f32 result of the mmad (4 fractals). */
#include "npuvp/davinci.h"

void kernel_main(const uint64_t* args) {
    const void* src = (const void*)(uintptr_t)args[0];
    copy_gm_to_ubuf(0, src, 1, 1024, 0, 0);                     /* MTE2: 32 KiB, >= 16 + 512 cycles */
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);                    /* blocks V (only) */
    vadd(0x10000, 0, 0, vector_contiguous(4, XD_F16));          /* V: needs the copy */
    mmad(0, 0, 0, 32, 32, 32, XD_F16, 1);                       /* M: issued after the wait */
    copy_matrix_cc_to_ubuf(0x20000, 0, 1, 4, 0, 0, XD_CC_F32, 0); /* V: after the wait, reads L0C */
}
