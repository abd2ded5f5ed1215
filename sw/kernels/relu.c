/*
 * y = max(x, 0) for n f16 elements (vrelu: negative values and -0 become
 * +0, NaN stays NaN). Arguments: {x, y, n} (GM addresses, element count;
 * any n >= 0).
 *
 * Streamed through UB by stream_f16() (vector_common.h), like vector_add.c.
 */
#include "vector_common.h"

static void relu_op(uint64_t dst, uint64_t src0, uint64_t src1, uint64_t config) {
    (void)src1;
    vrelu(dst, src0, config);
}

void kernel_main(const uint64_t* args) {
    stream_f16((const uint8_t*)(uintptr_t)args[0], 0, (uint8_t*)(uintptr_t)args[1], args[2], relu_op);
}
