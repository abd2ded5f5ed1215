/* Instructions of one pipe execute in order, one after the other, with no
 * flags between them. V: X = src + src; Y = X + 0.0; X = 7.0 (so Y = 2 src
 * and X = 7 only in program order). MTE3: two copies to the same L1 place,
 * the later one wins; then L1 -> nothing else reads it: the test checks L1.
 * UB 0x0000: 8 repeats of f16 source; X at 0x2000, Y at 0x4000;
 * 0x6000 / 0x7000: sources of the two MTE3 copies (the test fills them). */
#include "npuvp/davinci.h"

#define HALF_ZERO 0x0000
#define HALF_SEVEN 0x4700

void kernel_main(const uint64_t* args) {
    (void)args;
    vadd(0x2000, 0, 0, vector_contiguous(8, XD_F16));               /* 8 + 8 cycles */
    vadds(0x4000, 0x2000, HALF_ZERO, vector_contiguous(8, XD_F16)); /* 8 + 8 */
    vector_dup(0x2000, HALF_SEVEN, vector_contiguous(8, XD_F16));   /* 8 + 8 */
    copy_ubuf_to_cbuf(0x8000, 0x6000, 1, 64, 0, 0);                 /* 16 + 32 */
    copy_ubuf_to_cbuf(0x8000, 0x7000, 1, 32, 0, 0);                 /* 16 + 16: overwrites the first half */
}
