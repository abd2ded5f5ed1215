/*
 * z = x + y for n f16 elements (IEEE f16 addition, round to nearest even).
 * Arguments: {x, y, z, n} (GM addresses, element count; any n >= 0).
 *
 * Task blocks split the elements into contiguous ranges of whole repeats
 * (128 elements). Each block streams its range through UB in chunks of
 * CHUNK elements, double buffered: chunk i uses UB half i % 2 (x at +0, y at
 * +32 KiB; z overwrites x). MTE2 loads (byte-exact, the tail of the last
 * block zero-filled), V adds, MTE3 stores only the valid bytes; the halves
 * ping-pong with MTE2->V, V->MTE3 and MTE3->MTE2 EVENT_ID0/1, so loading
 * chunk i+1 overlaps adding and storing chunk i. The last partial repeat is
 * computed under the vector mask.
 */
#include "vector_common.h"

#include "cube_common.h" /* SET_FLAG01 / WAIT_FLAG01 */

enum { CHUNK = 16384, HALF = 64 << 10, Y_OFFSET = 32 << 10 };

#define VADD_OP(d, s0, s1, cfg) vadd(d, s0, s1, cfg)

void kernel_main(const uint64_t* args) {
    const uint8_t* x = (const uint8_t*)(uintptr_t)args[0];
    const uint8_t* y = (const uint8_t*)(uintptr_t)args[1];
    uint8_t* z = (uint8_t*)(uintptr_t)args[2];
    uint64_t begin, end;
    block_range(args[3], &begin, &end);

    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0); /* both halves free */
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
    uint64_t p = 0;
    for (uint64_t offset = begin; offset < end; offset += CHUNK, p ^= 1) {
        const uint64_t count = min_u64(CHUNK, end - offset), bytes = count * 2, blocks = ceil_div(bytes, 32);
        const uint64_t ub_x = p * HALF, ub_y = ub_x + Y_OFFSET;
        WAIT_FLAG01(PIPE_MTE3, PIPE_MTE2, p);
        copy_gm_to_ubuf_pitched(ub_x, x + offset * 2, 1, blocks, 0, 0, bytes);
        copy_gm_to_ubuf_pitched(ub_y, y + offset * 2, 1, blocks, 0, 0, bytes);
        SET_FLAG01(PIPE_MTE2, PIPE_V, p);
        WAIT_FLAG01(PIPE_MTE2, PIPE_V, p);
        VECTOR_F16_LOOP(count, ub_x, ub_x, ub_y, VADD_OP);
        SET_FLAG01(PIPE_V, PIPE_MTE3, p);
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, p);
        copy_ubuf_to_gm_pitched(z + offset * 2, ub_x, 1, blocks, 0, 0, bytes);
        SET_FLAG01(PIPE_MTE3, PIPE_MTE2, p);
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}
