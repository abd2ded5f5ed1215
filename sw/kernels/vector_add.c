/*
 * z = x + y for n f16 elements (IEEE f16 addition, round to nearest even).
 * Arguments: {x, y, z, n} (GM addresses, element count; any n >= 0).
 *
 * Task blocks split the elements into contiguous ranges of whole repeats
 * (128 elements); stream_f16() (vector_common.h) moves each block's range
 * through UB in double-buffered chunks: loading chunk i+1 overlaps adding
 * and storing chunk i, and the last partial repeat runs under the mask.
 */
#include "vector_common.h"

static void add_op(uint64_t dst, uint64_t src0, uint64_t src1, uint64_t config) { vadd(dst, src0, src1, config); }

void kernel_main(const uint64_t* args) {
    stream_f16((const uint8_t*)(uintptr_t)args[0], (const uint8_t*)(uintptr_t)args[1], (uint8_t*)(uintptr_t)args[2],
               args[3], add_op);
}
