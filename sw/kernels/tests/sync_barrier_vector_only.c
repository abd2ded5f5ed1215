/* pipe_barrier(PIPE_V) waits for V only: MTE3 runs a long copy while V runs
 * a shorter vadds; after the barrier the scalar issues vector instruction 2,
 * which must start after vector 1 ended but before the MTE3 copy ended. The
 * scalar also reads vector 1's result through the UB window.
 * args[0] = GM result (1 word). UB 0x20000: 64 repeats of f16 (the test
 * fills them); 0x30000 = 0x20000 + 1.0; 0x3f000: vector 2 (dup 7.0). */
#include "npuvp/davinci.h"

#define UB_WINDOW 0x101000000ull
#define HALF_ONE 0x3c00
#define HALF_SEVEN 0x4700

void kernel_main(const uint64_t* args) {
    volatile uint64_t* out = (volatile uint64_t*)(uintptr_t)args[0];
    copy_ubuf_to_cbuf(0, 0, 1, 2048, 0, 0);                     /* MTE3: 64 KiB, 16 + 1024 cycles */
    vadds(0x30000, 0x20000, HALF_ONE, vector_contiguous(64, XD_F16)); /* V: 8 + 64 cycles */
    pipe_barrier(PIPE_V);
    vector_dup(0x3f000, HALF_SEVEN, vector_contiguous(1, XD_F16));    /* V: 8 + 1 cycles */
    out[0] = *(volatile const uint64_t*)(UB_WINDOW + 0x30000 + 64 * 256 - 8);
}
