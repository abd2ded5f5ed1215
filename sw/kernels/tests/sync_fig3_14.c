/* The four-pipeline example of the reference (Fig. 3-14): scalar 0..2
 * compute the operands of vector 0 and MTE 0 (a register dependence); matrix
 * 0 is issued right after them; then the pipes run in parallel; vector 1 and
 * MTE 1 queue behind vector 0 and MTE 0; scalar 7 is the global
 * synchronisation (pipe_barrier(PIPE_ALL)); scalar 8 - here the issue of
 * vector 2 - happens only after matrix 0, vector 1 and MTE 1 have ended.
 *
 * args[0] = 0 (a UB base the scalar unit computes from). UB 0x10000: 255
 * repeats of f16 source; 0x20000 = source + 1.0 (vector 0); 0x30000 =
 * 2 * (0x20000) (vector 1, 8 repeats); 0x3f000 = 7.0 (vector 2).
 * L1 0 = UB 0..64 KiB (MTE 0); L1 0x10000 = UB 0..8 KiB (MTE 1). */
#include "npuvp/davinci.h"

#define HALF_ONE 0x3c00
#define HALF_TWO 0x4000
#define HALF_SEVEN 0x4700

void kernel_main(const uint64_t* args) {
    const uint64_t base = args[0];                              /* scalar 0 */
    const uint64_t src = base + 0x10000;                        /* scalar 1 */
    const uint64_t dst = src + 0x10000;                         /* scalar 2 */
    vadds(dst, src, HALF_ONE, vector_contiguous(255, XD_F16));  /* vector 0: 8 + 255 cycles */
    copy_ubuf_to_cbuf(0, base, 1, 2048, 0, 0);                  /* MTE 0: 16 + 1024 cycles */
    mmad(0, 0, 0, 64, 64, 64, XD_F16, 1);                       /* matrix 0: 16 + 64 * 2 cycles */
    const uint64_t dst2 = dst + 0x10000;                        /* scalar 3.. */
    vmuls(dst2, dst, HALF_TWO, vector_contiguous(8, XD_F16));   /* vector 1: 8 + 8 cycles */
    copy_ubuf_to_cbuf(0x10000, base, 1, 256, 0, 0);             /* MTE 1: 16 + 128 cycles */
    pipe_barrier(PIPE_ALL);                                     /* scalar 7: global sync */
    vector_dup(0x3f000, HALF_SEVEN, vector_contiguous(1, XD_F16)); /* scalar 8: vector 2, 8 + 1 cycles */
}
