/* One instruction on one pipe, for cycle counts checked against the timing
 * formulas (docs/ai-core.md). args[0] selects the instruction, args[1..4] are
 * its parameters:
 *   1 vadd  repeat = args[1]                      V: 8 + repeat
 *   2 vexp  repeat = args[1]                      V: 8 + 4 * repeat
 *   3 mmad  m, k, n, type = args[1..4]            M: 16 + 2 * fractals
 *   4 copy_ubuf_to_cbuf, n_burst, burst_len       MTE3 (local): 16 + ceil(bytes / 64)
 *   5 load_cbuf_to_ca, repeat = args[1]           MTE1: 8 + ceil(512 * repeat / 256)
 *   6 copy_matrix_cc_to_ubuf, fractals = args[1]  V: 8 + ceil(1024 * fractals / 128) */
#include "npuvp/davinci.h"

void kernel_main(const uint64_t* args) {
    switch (args[0]) {
        case 1: vadd(0x10000, 0, 0, vector_contiguous(args[1], XD_F16)); break;
        case 2: vexp(0x10000, 0, vector_contiguous(args[1], XD_F16)); break;
        case 3: mmad(0, 0, 0, args[1], args[2], args[3], args[4], 1); break;
        case 4: copy_ubuf_to_cbuf(0, 0, args[1], args[2], 0, 0); break;
        case 5: load_cbuf_to_ca(0, 0, args[1], 1, 0, 0); break;
        case 6: copy_matrix_cc_to_ubuf(0, 0, 1, args[1], 0, 0, XD_CC_F32, 0); break;
        default: break;
    }
}
