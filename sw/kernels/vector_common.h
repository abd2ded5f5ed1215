/*
 * Helpers of the element-wise Vector kernels (vector_add.c, relu.c): the
 * split of n elements over task blocks and the vector mask of a partial
 * repeat.
 */
#pragma once

#include "npuvp/davinci.h"

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
