/*
 * Helpers of the element-wise Vector kernels (vector_add.c, relu.c): the
 * split of n elements over task blocks, the vector mask of a partial
 * repeat, and the double-buffered GM -> UB -> GM streaming loop.
 */
#pragma once

#include "npuvp/davinci.h"

#include "cube_common.h" /* SET_FLAG01 / WAIT_FLAG01, min_u64, ceil_div */

enum {
    LANES_F16 = 128,   /* f16 lanes per vector repeat (256 bytes) */
    MAX_REPEAT = 255,  /* repeats per vector instruction */
};

/* Block `b` of `blocks` gets elements [*begin, *end): contiguous ranges of a
 * whole number of repeats (the last block takes the remainder). */
static inline void block_range(uint64_t n, uint64_t* begin, uint64_t* end) {
    const uint64_t blocks = block_dim(), b = block_idx();
    uint64_t per = (n + blocks - 1) / blocks;
    per = (per + LANES_F16 - 1) / LANES_F16 * LANES_F16;
    *begin = b * per < n ? b * per : n;
    *end = *begin + per < n ? *begin + per : n;
}

/* Mask enabling lanes [0, lanes) of a repeat (1 <= lanes <= 128). */
static inline void set_mask_lanes(uint64_t lanes) {
    const uint64_t low = lanes >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << lanes) - 1;
    const uint64_t high = lanes <= 64 ? 0 : lanes >= 128 ? ~(uint64_t)0 : ((uint64_t)1 << (lanes - 64)) - 1;
    set_vector_mask(high, low);
}
static inline void set_mask_all(void) { set_vector_mask(~(uint64_t)0, ~(uint64_t)0); }

/* Lane-wise op over `count` f16 elements at UB offsets dst/src0/src1:
 * whole repeats in instructions of up to 255 repeats, then the partial last
 * repeat under a mask. `op` is called as op(dst, src0, src1, config). */
#define VECTOR_F16_LOOP(count, dst, src0, src1, OP)                                   \
    do {                                                                              \
        uint64_t done_ = 0;                                                           \
        const uint64_t whole_ = (count) / LANES_F16;                                  \
        while (done_ < whole_) {                                                      \
            const uint64_t r_ = whole_ - done_ < MAX_REPEAT ? whole_ - done_ : MAX_REPEAT; \
            OP((dst) + done_ * 256, (src0) + done_ * 256, (src1) + done_ * 256,       \
               vector_contiguous(r_, XD_F16));                                        \
            done_ += r_;                                                              \
        }                                                                             \
        if ((count) % LANES_F16) {                                                    \
            set_mask_lanes((count) % LANES_F16);                                      \
            OP((dst) + whole_ * 256, (src0) + whole_ * 256, (src1) + whole_ * 256,    \
               vector_contiguous(1, XD_F16));                                         \
            set_mask_all();                                                           \
        }                                                                             \
    } while (0)

/* A lane-wise vector operation, called as op(dst, src0, src1, config). */
typedef void (*vector_op)(uint64_t dst, uint64_t src0, uint64_t src1, uint64_t config);

enum {
    STREAM_CHUNK = 16384,     /* f16 elements per chunk */
    STREAM_HALF = 64 << 10,   /* UB half of a chunk: x at +0 (the result overwrites it), y at +32 KiB */
    STREAM_Y_OFFSET = 32 << 10,
};

/* out[i] = op(x[i], y[i]) (y may be NULL for unary ops) for this task
 * block's share of n f16 elements. Chunks are double buffered in two UB
 * halves: MTE2 loads (byte-exact, the tail zero-filled), V computes, MTE3
 * stores only the valid bytes, the halves handed on with MTE2->V, V->MTE3
 * and MTE3->MTE2 EVENT_ID0/1, so loading chunk i+1 overlaps chunk i. */
static inline void stream_f16(const uint8_t* x, const uint8_t* y, uint8_t* out, uint64_t n, vector_op op) {
    uint64_t begin, end;
    block_range(n, &begin, &end);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0); /* both halves free */
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
    uint64_t p = 0;
    for (uint64_t offset = begin; offset < end; offset += STREAM_CHUNK, p ^= 1) {
        const uint64_t count = min_u64(STREAM_CHUNK, end - offset), bytes = count * 2, blocks = ceil_div(bytes, 32);
        const uint64_t ub_x = p * STREAM_HALF, ub_y = ub_x + STREAM_Y_OFFSET;
        WAIT_FLAG01(PIPE_MTE3, PIPE_MTE2, p);
        copy_gm_to_ubuf_pitched(ub_x, x + offset * 2, 1, blocks, 0, 0, bytes);
        if (y) copy_gm_to_ubuf_pitched(ub_y, y + offset * 2, 1, blocks, 0, 0, bytes);
        SET_FLAG01(PIPE_MTE2, PIPE_V, p);
        WAIT_FLAG01(PIPE_MTE2, PIPE_V, p);
        VECTOR_F16_LOOP(count, ub_x, ub_x, ub_y, op);
        SET_FLAG01(PIPE_V, PIPE_MTE3, p);
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, p);
        copy_ubuf_to_gm_pitched(out + offset * 2, ub_x, 1, blocks, 0, 0, bytes);
        SET_FLAG01(PIPE_MTE3, PIPE_MTE2, p);
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}
