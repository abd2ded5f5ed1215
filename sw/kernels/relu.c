/*
 * y = max(x, 0) for n f16 elements (vrelu: negative values and -0 become
 * +0, NaN stays NaN). Arguments: {x, y, n} (GM addresses, element count;
 * any n >= 0).
 *
 * Same structure as vector_add.c: contiguous per-block ranges of whole
 * repeats, CHUNK-element chunks double buffered in UB halves (in place),
 * MTE2 -> V -> MTE3 chained by EVENT_ID0/1 flags, the last partial repeat
 * under the vector mask, byte-exact GM transfers at the tail.
 */
#include "vector_common.h"

#include "cube_common.h" /* SET_FLAG01 / WAIT_FLAG01 */

enum { CHUNK = 16384, HALF = 32 << 10 };

#define VRELU_OP(d, s0, s1, cfg) vrelu(d, s0, cfg)

void kernel_main(const uint64_t* args) {
    const uint8_t* x = (const uint8_t*)(uintptr_t)args[0];
    uint8_t* y = (uint8_t*)(uintptr_t)args[1];
    uint64_t begin, end;
    block_range(args[2], &begin, &end);

    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
    uint64_t p = 0;
    for (uint64_t offset = begin; offset < end; offset += CHUNK, p ^= 1) {
        const uint64_t count = min_u64(CHUNK, end - offset), bytes = count * 2, blocks = ceil_div(bytes, 32);
        const uint64_t ub = p * HALF;
        WAIT_FLAG01(PIPE_MTE3, PIPE_MTE2, p);
        copy_gm_to_ubuf_pitched(ub, x + offset * 2, 1, blocks, 0, 0, bytes);
        SET_FLAG01(PIPE_MTE2, PIPE_V, p);
        WAIT_FLAG01(PIPE_MTE2, PIPE_V, p);
        VECTOR_F16_LOOP(count, ub, ub, ub, VRELU_OP);
        SET_FLAG01(PIPE_V, PIPE_MTE3, p);
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, p);
        copy_ubuf_to_gm_pitched(y + offset * 2, ub, 1, blocks, 0, 0, bytes);
        SET_FLAG01(PIPE_MTE3, PIPE_MTE2, p);
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}
