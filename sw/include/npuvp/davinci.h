/*
 * AI Core kernel API: the Xdavinci instructions with the parameter
 * conventions of the public Ascend C / CCE programming model (pipes, event
 * flags, copies in 32-byte blocks, vector repeat parameters, a vector mask).
 * Encodings and field packers come from the generated
 * npuvp/xdavinci_encoding.h; this file only names and orders parameters.
 *
 * Local-buffer operands are byte offsets inside their buffer (L1, L0A, L0B,
 * L0C, UB); global-memory operands are addresses. docs/isa-xdavinci.md has the
 * semantics of every instruction.
 */
#pragma once

#include <stdint.h>

#include "npuvp/xdavinci_encoding.h"

typedef uint16_t half_bits; /* an IEEE binary16 value, as stored */

/* ---- Synchronisation (pipes and event ids must be compile-time constants) */
#define set_flag(src_pipe, dst_pipe, event_id) __xd_set_flag(src_pipe, dst_pipe, event_id)
#define wait_flag(src_pipe, dst_pipe, event_id) __xd_wait_flag(src_pipe, dst_pipe, event_id)
#define pipe_barrier(pipe) __xd_pipe_barrier(pipe)
#define end_kernel() __xd_end_kernel()

/* ---- Special registers */
static inline uint64_t block_idx(void) { return get_block_idx(); }
static inline uint64_t block_dim(void) { return get_block_dim(); }
static inline uint64_t core_id(void) { return get_core_id(); }

/* ---- Data movement (MTE2: GM -> L1/UB, MTE3: UB -> GM/L1) */
static inline void copy_gm_to_cbuf(uint64_t dst_l1, const void* src_gm, uint64_t n_burst, uint64_t len_burst,
                                   uint64_t src_stride, uint64_t dst_stride) {
    __xd_copy_gm_to_cbuf(dst_l1, (uint64_t)(uintptr_t)src_gm, 0,
                         xd_pack_burst(n_burst, len_burst, src_stride, dst_stride));
}
static inline void copy_gm_to_ubuf(uint64_t dst_ub, const void* src_gm, uint64_t n_burst, uint64_t len_burst,
                                   uint64_t src_stride, uint64_t dst_stride) {
    __xd_copy_gm_to_ubuf(dst_ub, (uint64_t)(uintptr_t)src_gm, 0,
                         xd_pack_burst(n_burst, len_burst, src_stride, dst_stride));
}
static inline void copy_ubuf_to_gm(void* dst_gm, uint64_t src_ub, uint64_t n_burst, uint64_t len_burst,
                                   uint64_t src_stride, uint64_t dst_stride) {
    __xd_copy_ubuf_to_gm((uint64_t)(uintptr_t)dst_gm, src_ub, 0,
                         xd_pack_burst(n_burst, len_burst, src_stride, dst_stride));
}
static inline void copy_ubuf_to_cbuf(uint64_t dst_l1, uint64_t src_ub, uint64_t n_burst, uint64_t len_burst,
                                     uint64_t src_stride, uint64_t dst_stride) {
    __xd_copy_ubuf_to_cbuf(dst_l1, src_ub, 0, xd_pack_burst(n_burst, len_burst, src_stride, dst_stride));
}
/* Byte-exact GM side: bursts start `gm_pitch` bytes apart in GM and only
 * `gm_valid` bytes of each exist there (the rest of the local burst is
 * zero-filled on the way in, not written on the way out). */
static inline void copy_gm_to_cbuf_pitched(uint64_t dst_l1, const void* src_gm, uint64_t n_burst,
                                           uint64_t len_burst, uint64_t dst_stride, uint64_t gm_pitch,
                                           uint64_t gm_valid) {
    __xd_copy_gm_to_cbuf(dst_l1, (uint64_t)(uintptr_t)src_gm, xd_pack_gm_side(gm_pitch, gm_valid),
                         xd_pack_burst(n_burst, len_burst, 0, dst_stride));
}
static inline void copy_gm_to_ubuf_pitched(uint64_t dst_ub, const void* src_gm, uint64_t n_burst,
                                           uint64_t len_burst, uint64_t dst_stride, uint64_t gm_pitch,
                                           uint64_t gm_valid) {
    __xd_copy_gm_to_ubuf(dst_ub, (uint64_t)(uintptr_t)src_gm, xd_pack_gm_side(gm_pitch, gm_valid),
                         xd_pack_burst(n_burst, len_burst, 0, dst_stride));
}
static inline void copy_ubuf_to_gm_pitched(void* dst_gm, uint64_t src_ub, uint64_t n_burst, uint64_t len_burst,
                                           uint64_t src_stride, uint64_t gm_pitch, uint64_t gm_valid) {
    __xd_copy_ubuf_to_gm((uint64_t)(uintptr_t)dst_gm, src_ub, xd_pack_gm_side(gm_pitch, gm_valid),
                         xd_pack_burst(n_burst, len_burst, src_stride, 0));
}
/* Row-major GM matrix (rows x cols elements, `pitch` bytes per row, 0 =
 * dense) -> L1 "big-N small-Z" fractals, zero-padded. dst_rows = 0 rounds
 * rows up to 16. type: XD_F16 or XD_S8. */
static inline void copy_gm_to_cbuf_nd2nz(uint64_t dst_l1, const void* src_gm, uint64_t rows, uint64_t cols,
                                         uint64_t pitch, uint64_t dst_rows, uint64_t type) {
    __xd_copy_gm_to_cbuf_nd2nz(dst_l1, (uint64_t)(uintptr_t)src_gm, xd_pack_nd2nz(rows, cols, pitch),
                               xd_pack_nd2nz_config(type, dst_rows));
}

/* ---- MTE1: L1 -> L0A / L0B (units: 512-byte fractals) */
static inline void load_cbuf_to_ca(uint64_t dst_l0a, uint64_t src_l1, uint64_t repeat, uint64_t src_stride,
                                   uint64_t dst_gap, uint64_t transpose) {
    __xd_load_cbuf_to_ca(dst_l0a, src_l1, 0, xd_pack_load2d(repeat, src_stride, dst_gap, transpose));
}
static inline void load_cbuf_to_cb(uint64_t dst_l0b, uint64_t src_l1, uint64_t repeat, uint64_t src_stride,
                                   uint64_t dst_gap, uint64_t transpose) {
    __xd_load_cbuf_to_cb(dst_l0b, src_l1, 0, xd_pack_load2d(repeat, src_stride, dst_gap, transpose));
}
static inline void set_fmatrix(uint64_t width, uint64_t height, uint64_t pad_left, uint64_t pad_right,
                               uint64_t pad_top, uint64_t pad_bottom) {
    __xd_set_fmatrix(xd_pack_fmatrix(width, height, pad_left, pad_right, pad_top, pad_bottom), 0);
}
static inline void img2col_cbuf_to_ca(uint64_t dst_l0a, uint64_t fmap_l1, uint64_t window, uint64_t m_start,
                                      uint64_t k_start, uint64_t m_fractals, uint64_t k_fractals) {
    __xd_img2col_cbuf_to_ca(dst_l0a, fmap_l1, window,
                            xd_pack_img2col_position(m_start, k_start, m_fractals, k_fractals));
}

/* ---- Cube */
static inline void mmad(uint64_t c_l0c, uint64_t a_l0a, uint64_t b_l0b, uint64_t m, uint64_t k, uint64_t n,
                        uint64_t type, uint64_t init) {
    __xd_mmad(c_l0c, a_l0a, b_l0b, xd_pack_mmad(m, k, n, type, init, 0, 0));
}
static inline void mmad_bias(uint64_t c_l0c, uint64_t a_l0a, uint64_t b_l0b, uint64_t m, uint64_t k, uint64_t n,
                             uint64_t type, uint64_t bias_ub) {
    __xd_mmad(c_l0c, a_l0a, b_l0b, xd_pack_mmad(m, k, n, type, 1, 1, bias_ub / 32));
}
/* L0C -> UB through the Vector unit (units: fractals). mode: XD_CC_*. */
static inline void copy_matrix_cc_to_ubuf(uint64_t dst_ub, uint64_t src_l0c, uint64_t n_burst, uint64_t len_burst,
                                          uint64_t src_gap, uint64_t dst_gap, uint64_t mode, uint64_t relu) {
    __xd_copy_matrix_cc_to_ubuf(dst_ub, src_l0c, 0,
                                xd_pack_cc_to_ub(n_burst, len_burst, src_gap, dst_gap, mode, relu));
}

/* ---- Vector: repeat parameters as in CCE (strides in 32-byte blocks) */
static inline uint64_t vector_config(uint64_t repeat, uint64_t dst_block_stride, uint64_t src0_block_stride,
                                     uint64_t src1_block_stride, uint64_t dst_repeat_stride,
                                     uint64_t src0_repeat_stride, uint64_t src1_repeat_stride, uint64_t type) {
    return xd_pack_vector(repeat, dst_block_stride, src0_block_stride, src1_block_stride, dst_repeat_stride,
                          src0_repeat_stride, src1_repeat_stride, type, 0);
}
/* Contiguous operands: repeat r covers bytes [256 r, 256 r + 256). */
static inline uint64_t vector_contiguous(uint64_t repeat, uint64_t type) {
    return vector_config(repeat, 1, 1, 1, 8, 8, 8, type);
}
static inline void set_vector_mask(uint64_t high, uint64_t low) { __xd_set_vector_mask(low, high); }
static inline void set_cmpmask(uint64_t mask_ub) { __xd_set_cmpmask(mask_ub, 0); }

#define NPUVP_VECTOR_BINARY(name) \
    static inline void name(uint64_t dst, uint64_t src0, uint64_t src1, uint64_t config) { \
        __xd_##name(dst, src0, src1, config); }
#define NPUVP_VECTOR_UNARY(name) \
    static inline void name(uint64_t dst, uint64_t src, uint64_t config) { __xd_##name(dst, src, 0, config); }
#define NPUVP_VECTOR_SCALAR(name) \
    static inline void name(uint64_t dst, uint64_t src, uint64_t scalar_bits, uint64_t config) { \
        __xd_##name(dst, src, scalar_bits, config); }
NPUVP_VECTOR_BINARY(vadd) NPUVP_VECTOR_BINARY(vsub) NPUVP_VECTOR_BINARY(vmul) NPUVP_VECTOR_BINARY(vdiv)
NPUVP_VECTOR_BINARY(vmax) NPUVP_VECTOR_BINARY(vmin) NPUVP_VECTOR_BINARY(vand) NPUVP_VECTOR_BINARY(vor)
NPUVP_VECTOR_BINARY(vsel)
NPUVP_VECTOR_UNARY(vabs) NPUVP_VECTOR_UNARY(vexp) NPUVP_VECTOR_UNARY(vln) NPUVP_VECTOR_UNARY(vsqrt)
NPUVP_VECTOR_UNARY(vrsqrt) NPUVP_VECTOR_UNARY(vrec) NPUVP_VECTOR_UNARY(vrelu) NPUVP_VECTOR_UNARY(vnot)
NPUVP_VECTOR_UNARY(vcadd) NPUVP_VECTOR_UNARY(vcmax) NPUVP_VECTOR_UNARY(vcmin)
NPUVP_VECTOR_SCALAR(vadds) NPUVP_VECTOR_SCALAR(vmuls) NPUVP_VECTOR_SCALAR(vmaxs) NPUVP_VECTOR_SCALAR(vmins)
#undef NPUVP_VECTOR_BINARY
#undef NPUVP_VECTOR_UNARY
#undef NPUVP_VECTOR_SCALAR

/* compare: XD_CMP_*; writes one bit per lane at dst_mask. */
static inline void vcmp(uint64_t dst_mask, uint64_t src0, uint64_t src1, uint64_t config, uint64_t compare) {
    __xd_vcmp(dst_mask, src0, src1, config | xd_pack_vector(0, 0, 0, 0, 0, 0, 0, 0, compare));
}
/* kind: XD_CONV_*, round: XD_ROUND_*. */
static inline void vconv(uint64_t dst, uint64_t src, uint64_t kind, uint64_t round, uint64_t config) {
    __xd_vconv(dst, src, xd_pack_convert(kind, round), config);
}
static inline void vector_dup(uint64_t dst, uint64_t scalar_bits, uint64_t config) {
    __xd_vector_dup(dst, 0, scalar_bits, config);
}
