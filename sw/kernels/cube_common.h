/*
 * Helpers shared by the Cube kernels (gemm.c, conv2d.c): buffer partitions,
 * event flags with a run-time 0/1 event id, the L1 -> L0A/L0B fractal loads
 * and the write-back of an L0C tile to a row-major f16 matrix in GM.
 *
 * Layouts (docs/ai-core.md, tests/unit/npu_layout_reference.h):
 *   L1 after copy_gm_to_cbuf_nd2nz: column groups of 16 f16 columns, group g
 *     = rows_p x 32 bytes at g * rows_p * 32; fractal (rb, g) at
 *     (g * rows_p/16 + rb) * 512, row-major inside.
 *   L0A ("big-Z small-Z"): fractal (mb, kb) at (mb * Kf + kb) * 512, row-major.
 *   L0B ("big-Z small-N"): fractal (kb, nb) at (kb * Nf + nb) * 512,
 *     column-major inside = the transpose of the nd2nz fractal.
 *   L0C / UB after cc->ub ("big-N small-Z"): fractal (mb, nb) at
 *     (nb * Mf + mb), 1024 bytes (f32) in L0C, 512 bytes (f16) in UB.
 */
#pragma once

#include "npuvp/davinci.h"

#define KIB(x) ((uint64_t)(x) << 10)

/* Ping-pong halves of the local buffers. */
enum {
    FRACTAL = 512,
    L0A_HALF = 32 << 10, /* 64 fractals */
    L0B_HALF = 32 << 10, /* 64 fractals */
    L0C_HALF = 128 << 10, /* 128 f32 fractals: a 256 x 128 tile */
    UB_HALF = 64 << 10,   /* the same tile in f16 */
    TILE_M = 256,         /* C tile: 16 x 8 fractals */
    TILE_N = 128,
};

static inline uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
static inline uint64_t round16(uint64_t a) { return (a + 15) & ~(uint64_t)15; }

/* set_flag / wait_flag need compile-time pipes and event ids; these pick
 * EVENT_ID0 or EVENT_ID1 at run time. */
#define SET_FLAG01(src, dst, id)                                   \
    do {                                                           \
        if (id) set_flag(src, dst, EVENT_ID1);                     \
        else set_flag(src, dst, EVENT_ID0);                        \
    } while (0)
#define WAIT_FLAG01(src, dst, id)                                  \
    do {                                                           \
        if (id) wait_flag(src, dst, EVENT_ID1);                    \
        else wait_flag(src, dst, EVENT_ID0);                       \
    } while (0)

/* A (rows of the tile x kf fractal columns) from nd2nz fractals in L1 (group
 * g at l1 + g * mf * 512, mf fractal rows per group) to L0A "big-Z small-Z":
 * one load per fractal column, the mf fractals of the column scattered kf
 * apart. */
static inline void load_a_zz(uint64_t l0a, uint64_t l1, uint64_t mf, uint64_t kf) {
    for (uint64_t kb = 0; kb < kf; ++kb)
        load_cbuf_to_ca(l0a + kb * FRACTAL, l1 + kb * mf * FRACTAL, mf, 1, kf - 1, 0);
}

/* B (kf fractal rows x nf fractal columns) from nd2nz fractals in L1 (column
 * group nb holds group_kf fractals, fractal (kb, nb) at (nb * group_kf + kb))
 * to L0B "big-Z small-N": one transposing load per fractal row. */
static inline void load_b_zn(uint64_t l0b, uint64_t l1, uint64_t kf, uint64_t nf, uint64_t group_kf) {
    for (uint64_t kb = 0; kb < kf; ++kb)
        load_cbuf_to_cb(l0b + kb * nf * FRACTAL, l1 + kb * FRACTAL, nf, group_kf, 0, 1);
}

/* UB tile (mf x nf f16 fractals, "big-N small-Z") -> rows x cols of a
 * row-major f16 matrix in GM (`pitch` bytes per row): one pitched copy per
 * 16-column group, one 32-byte burst per row, only the valid columns
 * written. */
static inline void store_tile_rowmajor(uint8_t* gm, uint64_t ub, uint64_t rows, uint64_t cols, uint64_t mf,
                                       uint64_t pitch) {
    for (uint64_t nb = 0; nb * 16 < cols; ++nb)
        copy_ubuf_to_gm_pitched(gm + nb * 32, ub + nb * mf * FRACTAL, rows, 1, 0, pitch,
                                min_u64(16, cols - nb * 16) * 2);
}

/* The write-back of one C tile from L0C half h, as issued by the pipelined
 * kernels: V waits for the Cube's last mmad (M->V) and for MTE3 to have
 * emptied UB half h (MTE3->V), converts f32 -> f16 (optionally ReLU) in two
 * parts of column groups, handing each to MTE3 as soon as it is in UB
 * (V->MTE3, one token per part) so the store of the first part overlaps the
 * conversion of the second, and frees the L0C half (V->M); MTE3 stores the
 * parts and frees the UB half (MTE3->V). `serial` puts a full barrier after
 * each step. */
static inline void write_back_tile(uint8_t* gm, uint64_t rows, uint64_t cols, uint64_t pitch, uint64_t h,
                                   uint64_t relu, int serial) {
    const uint64_t mf = ceil_div(rows, 16), nf = ceil_div(cols, 16);
    const uint64_t split = (nf + 1) / 2; /* column groups of the first part */
    const uint64_t ub = h * UB_HALF, l0c = h * L0C_HALF;
    WAIT_FLAG01(PIPE_M, PIPE_V, h);
    WAIT_FLAG01(PIPE_MTE3, PIPE_V, h);
    copy_matrix_cc_to_ubuf(ub, l0c, 1, mf * split, 0, 0, XD_CC_F32_TO_F16, relu);
    SET_FLAG01(PIPE_V, PIPE_MTE3, h);
    if (nf > split) {
        copy_matrix_cc_to_ubuf(ub + split * mf * FRACTAL, l0c + split * mf * 2 * FRACTAL, 1, mf * (nf - split),
                               0, 0, XD_CC_F32_TO_F16, relu);
        SET_FLAG01(PIPE_V, PIPE_MTE3, h);
    }
    SET_FLAG01(PIPE_V, PIPE_M, h);
    if (serial) pipe_barrier(PIPE_ALL);
    WAIT_FLAG01(PIPE_V, PIPE_MTE3, h);
    store_tile_rowmajor(gm, ub, rows, min_u64(cols, split * 16), mf, pitch);
    if (nf > split) {
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, h);
        store_tile_rowmajor(gm + split * 32, ub + split * mf * FRACTAL, rows, cols - split * 16, mf, pitch);
    }
    SET_FLAG01(PIPE_MTE3, PIPE_V, h);
    if (serial) pipe_barrier(PIPE_ALL);
}

/* Initial "free" tokens of the L0A/L0B, L0C and UB halves (M->MTE1, V->M,
 * MTE3->V, both event ids), and the matching drain at the end. */
static inline void cube_pipeline_open(void) {
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
    set_flag(PIPE_V, PIPE_M, EVENT_ID0);
    set_flag(PIPE_V, PIPE_M, EVENT_ID1);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
}
static inline void cube_pipeline_close(void) {
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_M, EVENT_ID1);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
}
