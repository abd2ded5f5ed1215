/*
 * Building blocks of the Vector-unit operator kernels (op_eltwise.c,
 * op_softmax.c, op_layernorm.c): whole-buffer vector loops in f16 or f32,
 * f16 <-> f32 conversions, per-row reductions of row-major tiles, the
 * scalar unit's view of UB, and f32 approximations of erf / erfc built from
 * the Vector ISA's vexp and vrec (docs/kernels.md, "Operator kernels").
 *
 * Conventions: UB operands are byte offsets (32-byte aligned); counts are
 * elements and are rounded up to whole repeats (128 f16 or 64 f32 lanes),
 * so callers size their buffers in whole repeats and never store the lanes
 * past their data. A "row tile" is k rows of `pitch` f32 elements (pitch a
 * multiple of 64, so every row starts a repeat).
 *
 * The row-tile helpers called once per tile are functions (noinline): every
 * launch fetches the kernel's code into a cold instruction cache while the
 * DDR is busy with the tiles, so each line costs ~1,000 cycles; the loops
 * issuing one instruction per row or per chunk stay inline.
 */
#pragma once

#include "vector_common.h"

enum {
    LANES_F32 = 64,
    REPEAT_CHUNK = 248,              /* repeats per instruction (248 * 8 mask bytes stays 32-byte aligned) */
    UB_WINDOW = 0x101000000ull >> 8, /* the scalar unit's view of UB (docs/ai-core.md), >> 8 to fit an enum */
};

/* f32 constants, as IEEE bits */
#define F32_ONE 0x3f800000u
#define F32_MINUS_ONE 0xbf800000u
#define F32_MINUS_TWO 0xc0000000u
#define F32_HALF 0x3f000000u
#define F32_SIGN 0x80000000u
#define F32_MINUS_INF 0xff800000u
#define F16_ONE 0x3c00u
#define F16_MINUS_ONE 0xbc00u

/* The vector operations the loops below issue. Binary ops read src1 from
 * UB; the *S ops and DUP take src1 as the scalar's bits. */
enum vop {
    V_ADD, V_SUB, V_MUL, V_DIV, V_MAX, V_MIN, V_AND, V_OR, V_COPY, /* binary (COPY: src0) */
    V_ABS, V_EXP, V_SQRT, V_RSQRT, V_REC, V_RELU,                  /* unary */
    V_ADDS, V_MULS, V_MAXS, V_MINS, V_DUP,                         /* scalar */
};

static inline int vop_is_scalar(enum vop op) { return op >= V_ADDS; }

static inline void vop_issue(enum vop op, uint64_t dst, uint64_t src0, uint64_t src1, uint64_t config) {
    switch (op) {
    case V_ADD: vadd(dst, src0, src1, config); break;
    case V_SUB: vsub(dst, src0, src1, config); break;
    case V_MUL: vmul(dst, src0, src1, config); break;
    case V_DIV: vdiv(dst, src0, src1, config); break;
    case V_MAX: vmax(dst, src0, src1, config); break;
    case V_MIN: vmin(dst, src0, src1, config); break;
    case V_AND: vand(dst, src0, src1, config); break;
    case V_OR: vor(dst, src0, src1, config); break;
    case V_COPY: vor(dst, src0, src0, config); break;
    case V_ABS: vabs(dst, src0, config); break;
    case V_EXP: vexp(dst, src0, config); break;
    case V_SQRT: vsqrt(dst, src0, config); break;
    case V_RSQRT: vrsqrt(dst, src0, config); break;
    case V_REC: vrec(dst, src0, config); break;
    case V_RELU: vrelu(dst, src0, config); break;
    case V_ADDS: vadds(dst, src0, src1, config); break;
    case V_MULS: vmuls(dst, src0, src1, config); break;
    case V_MAXS: vmaxs(dst, src0, src1, config); break;
    case V_MINS: vmins(dst, src0, src1, config); break;
    case V_DUP: vector_dup(dst, src1, config); break;
    }
}

static inline uint64_t lanes_of(uint64_t type) { return type == XD_F16 ? LANES_F16 : LANES_F32; }

/* dst = op(src0, src1) over n elements (whole repeats), all contiguous;
 * for scalar ops src1 is the scalar's bits. */
static inline void vloop(enum vop op, uint64_t type, uint64_t dst, uint64_t src0, uint64_t src1, uint64_t n) {
    const uint64_t repeats = ceil_div(n, lanes_of(type));
    const uint64_t src1_step = vop_is_scalar(op) ? 0 : 256;
    if (repeats <= REPEAT_CHUNK) { /* the usual case, without the chunk loop's scalar work */
        vop_issue(op, dst, src0, src1, vector_contiguous(repeats, type));
        return;
    }
    for (uint64_t done = 0; done < repeats; done += REPEAT_CHUNK) {
        const uint64_t r = min_u64(REPEAT_CHUNK, repeats - done);
        vop_issue(op, dst + done * 256, src0 + done * 256, src1 + done * src1_step, vector_contiguous(r, type));
    }
}
/* The same with src1 one 256-byte repeat reused for every repeat (a constant row). */
static inline void vloop_const(enum vop op, uint64_t type, uint64_t dst, uint64_t src0, uint64_t row,
                               uint64_t n) {
    const uint64_t repeats = ceil_div(n, lanes_of(type));
    if (repeats <= REPEAT_CHUNK) {
        vop_issue(op, dst, src0, row, vector_config(repeats, 1, 1, 1, 8, 8, 0, type));
        return;
    }
    for (uint64_t done = 0; done < repeats; done += REPEAT_CHUNK) {
        const uint64_t r = min_u64(REPEAT_CHUNK, repeats - done);
        vop_issue(op, dst + done * 256, src0 + done * 256, row, vector_config(r, 1, 1, 1, 8, 8, 0, type));
    }
}

/* mask bits (one per f32 lane, 8 bytes per repeat) = src0 <compare> the constant row. */
static inline void vcmp_const_f32(uint64_t mask, uint64_t src0, uint64_t row, uint64_t n, uint64_t compare) {
    const uint64_t repeats = ceil_div(n, LANES_F32);
    for (uint64_t done = 0; done < repeats; done += REPEAT_CHUNK) {
        const uint64_t r = min_u64(REPEAT_CHUNK, repeats - done);
        vcmp(mask + done * 8, src0 + done * 256, row, vector_config(r, 1, 1, 1, 8, 8, 0, XD_F32), compare);
    }
}
/* dst = mask bit ? src0 : src1 over n f32 elements. */
static inline void vsel_f32(uint64_t dst, uint64_t src0, uint64_t src1, uint64_t mask, uint64_t n) {
    const uint64_t repeats = ceil_div(n, LANES_F32);
    for (uint64_t done = 0; done < repeats; done += REPEAT_CHUNK) {
        const uint64_t r = min_u64(REPEAT_CHUNK, repeats - done);
        set_cmpmask(mask + done * 8);
        vsel(dst + done * 256, src0 + done * 256, src1 + done * 256, vector_contiguous(r, XD_F32));
    }
}

/* n f16 at src -> n f32 at dst (exact), and back (nearest even); both dense. */
/* One vconv over n dense elements (64 a repeat), in chunks of REPEAT_CHUNK
 * repeats; dst_block / src_block: 32-byte blocks a repeat on either side. */
static inline void convert_dense(uint64_t dst, uint64_t src, uint64_t n, uint64_t conversion, uint64_t dst_block,
                                 uint64_t src_block) {
    const uint64_t repeats = ceil_div(n, LANES_F32);
    if (repeats <= REPEAT_CHUNK) {
        vconv(dst, src, conversion, XD_ROUND_RINT, vector_config(repeats, 1, 1, 0, dst_block, src_block, 0, XD_F32));
        return;
    }
    for (uint64_t done = 0; done < repeats; done += REPEAT_CHUNK) {
        const uint64_t r = min_u64(REPEAT_CHUNK, repeats - done);
        vconv(dst + done * dst_block * 32, src + done * src_block * 32, conversion, XD_ROUND_RINT,
              vector_config(r, 1, 1, 0, dst_block, src_block, 0, XD_F32));
    }
}
static inline void f16_to_f32(uint64_t dst, uint64_t src, uint64_t n) { convert_dense(dst, src, n, XD_CONV_F16_F32, 8, 4); }
static inline void f32_to_f16(uint64_t dst, uint64_t src, uint64_t n) { convert_dense(dst, src, n, XD_CONV_F32_F16, 4, 8); }

/* ---- The scalar unit and UB. Reads need the V pipe drained up to here. */
static inline void wait_vector(void) {
    set_flag(PIPE_V, PIPE_S, EVENT_ID7);
    wait_flag(PIPE_V, PIPE_S, EVENT_ID7);
}
static inline uint32_t ub_read32(uint64_t offset) {
    return *(volatile const uint32_t*)(uintptr_t)(((uint64_t)UB_WINDOW << 8) + offset);
}
static inline uint16_t ub_read16(uint64_t offset) {
    return *(volatile const uint16_t*)(uintptr_t)(((uint64_t)UB_WINDOW << 8) + offset);
}
static inline void ub_write32(uint64_t offset, uint32_t value) {
    *(volatile uint32_t*)(uintptr_t)(((uint64_t)UB_WINDOW << 8) + offset) = value;
}

/* MTE2: k rows of `cols` f16 from dense rows in GM to UB rows `pitch`
 * elements apart (pitch a multiple of 16; each row zero-filled to 32 bytes),
 * and MTE3 back, writing only the cols * 2 bytes of each row. */
static inline void load_rows_f16(uint64_t ub, const uint8_t* gm, uint64_t k, uint64_t cols, uint64_t pitch) {
    const uint64_t blocks = ceil_div(cols * 2, 32);
    copy_gm_to_ubuf_pitched(ub, gm, k, blocks, pitch / 16 - blocks, cols * 2, cols * 2);
}
static inline void store_rows_f16(uint8_t* gm, uint64_t ub, uint64_t k, uint64_t cols, uint64_t pitch) {
    const uint64_t blocks = ceil_div(cols * 2, 32);
    copy_ubuf_to_gm_pitched(gm, ub, k, blocks, pitch / 16 - blocks, cols * 2, cols * 2);
}

/* A mask of the f32 lanes [from, 64) of a repeat (0 < from < 64). */
static inline void set_mask_f32_from(uint64_t from) { set_vector_mask(0, ~(uint64_t)0 << from); }

/* ---- Row tiles: k rows of `pitch` f32 (pitch a multiple of 64). */

/* Lanes [cols, pitch) of every row = bits (padding that a reduction must
 * not see: -inf for a maximum, 0 for a sum). Only the last repeat of a row
 * can hold padding, as pitch = round64(cols). */
static __attribute__((noinline, unused)) void rows_fill_padding(uint64_t tile, uint64_t k, uint64_t pitch, uint64_t cols, uint32_t bits) {
    if (cols % LANES_F32 == 0) return;
    const uint64_t last = tile + (pitch - LANES_F32) * 4, row_blocks = pitch / 8;
    set_mask_f32_from(cols % LANES_F32);
    if (row_blocks <= 255) {
        for (uint64_t done = 0; done < k; done += REPEAT_CHUNK) {
            const uint64_t r = min_u64(REPEAT_CHUNK, k - done);
            vector_dup(last + done * pitch * 4, bits, vector_config(r, 1, 1, 1, row_blocks, row_blocks, 0, XD_F32));
        }
    } else {
        for (uint64_t i = 0; i < k; ++i) vector_dup(last + i * pitch * 4, bits, vector_contiguous(1, XD_F32));
    }
    set_mask_all();
}

/* out[i] = reduction (sum or max, `fold` V_ADD or V_MAX) of row i, for the
 * k rows of the tile, as k contiguous f32 at `out` (32-byte aligned).
 * `scratch` holds k + pitch / 128 repeats. Rows are first folded lane-wise
 * to one repeat each (scratch row i): short rows with one instruction per
 * column repeat across all rows, long rows one at a time, halving in a tree;
 * then one vcadd / vcmax reduces each folded row. The tile is not modified. */
static __attribute__((noinline, unused)) void rows_reduce(enum vop fold, uint64_t out, uint64_t tile, uint64_t k, uint64_t pitch,
                               uint64_t scratch) {
    const uint64_t m = pitch / LANES_F32, row_blocks = pitch / 8;
    uint64_t src = tile, src_stride = row_blocks;
    if (m > 1 && row_blocks <= 255 && k > 1 && k <= REPEAT_CHUNK) {
        const uint64_t first = vector_config(k, 1, 1, 1, 8, row_blocks, row_blocks, XD_F32);
        const uint64_t rest = vector_config(k, 1, 1, 1, 8, 8, row_blocks, XD_F32);
        vop_issue(fold, scratch, tile, tile + 256, first);
        for (uint64_t j = 2, column = tile + 512; j < m; ++j, column += 256)
            vop_issue(fold, scratch, scratch, column, rest);
        src = scratch;
        src_stride = 8;
    } else if (m > 1 && row_blocks <= 255 && k > 1) {
        for (uint64_t done = 0; done < k; done += REPEAT_CHUNK) {
            const uint64_t r = min_u64(REPEAT_CHUNK, k - done);
            const uint64_t row0 = tile + done * pitch * 4, acc = scratch + done * 256;
            vop_issue(fold, acc, row0, row0 + 256, vector_config(r, 1, 1, 1, 8, row_blocks, row_blocks, XD_F32));
            for (uint64_t j = 2; j < m; ++j)
                vop_issue(fold, acc, acc, row0 + j * 256, vector_config(r, 1, 1, 1, 8, 8, row_blocks, XD_F32));
        }
        src = scratch;
        src_stride = 8;
    } else if (m > 1) {
        const uint64_t work = scratch + k * 256;
        for (uint64_t i = 0; i < k; ++i) {
            const uint64_t row = tile + i * pitch * 4;
            uint64_t h = m / 2;
            vloop(fold, XD_F32, work, row, row + h * 256, h * LANES_F32);
            if (m % 2) vloop(fold, XD_F32, work, work, row + (m - 1) * 256, LANES_F32);
            while (h > 1) {
                const uint64_t half = h / 2;
                vloop(fold, XD_F32, work, work, work + half * 256, half * LANES_F32);
                if (h % 2) vloop(fold, XD_F32, work, work, work + (h - 1) * 256, LANES_F32);
                h = half;
            }
            vloop(V_COPY, XD_F32, scratch + i * 256, work, 0, LANES_F32);
        }
        src = scratch;
        src_stride = 8;
    }
    for (uint64_t done = 0; done < k; done += REPEAT_CHUNK) {
        const uint64_t r = min_u64(REPEAT_CHUNK, k - done);
        const uint64_t config = vector_config(r, 1, 1, 1, 8, src_stride, 0, XD_F32);
        if (fold == V_MAX) vcmax(out + done * 4, src + done * src_stride * 32, config);
        else vcadd(out + done * 4, src + done * src_stride * 32, config);
    }
}

/* ---- erfc and erf in f32 (docs/kernels.md gives the fits and their errors).
 *
 * erfc(z) for z >= 0 is Q(t) * exp(-z^2) with t = 1 / (1 + z / 2) and Q a
 * degree-7 polynomial fitted (minimax relative error, Lawson iteration) to
 * erfcx(z) = exp(z^2) erfc(z) on [0, 12]: relative error 4.3e-7 in exact
 * arithmetic, at most 4.4e-6 evaluated in f32 for z < 9 (beyond, erfc
 * underflows f32). A caller wanting K * erfc(s |x|) uses the same
 * polynomial in t' = 1 / (2 / s + |x|) = t * s / 2, with its coefficients
 * multiplied by K (2 / s)^i: one vadds and one vrec make t'. erf for
 * |x| < 0.5 is its Taylor series to x^13 (7 odd terms, truncation below
 * 1e-9 relative); above, 1 - erfc(|x|) with the sign of x: max error
 * 2.6e-7 absolute, 4.2e-7 relative, in f32. sw/kernels/tools/fit_erfc.py
 * computes the tables below and these errors. */
struct erfc_form {
    uint32_t offset;       /* 2 / s */
    uint32_t minus_s2;     /* -s^2 */
    uint32_t q[8];         /* K * c_i * (2 / s)^i */
};
/* -erfc(|x|), for erf = 1 - erfc */
static const struct erfc_form ERFC_FOR_ERF = {
    0x40000000u, 0xbf800000u,
    {0x38150d0du, 0xbf10e57eu, 0xbf8b88a1u, 0xc01a47f1u, 0x3dbedda6u, 0xc163254au, 0x41c8e03eu, 0xc148143du},
};
/* -erfc(|x| / sqrt 2) / 2, for gelu(x) = relu(x) - |x| erfc(|x| / sqrt 2) / 2 */
static const struct erfc_form ERFC_FOR_GELU = {
    0x403504f3u, 0xbf000000u,
    {0x37950d0du, 0xbeccea1fu, 0xbf8b88a1u, 0xc05a2fb3u, 0x3e3edda6u, 0xc2209dc2u, 0x42c8e03eu, 0xc28d7a2du},
};
static const uint32_t ERF_TAYLOR[7] = {
    /* 2/sqrt(pi) * (-1)^n / (n! (2n + 1)), n = 0..6 */
    0x3f906ebbu, 0xbec093a3u, 0x3de71791u, 0xbcdc1672u, 0x3bab2de7u, 0xba6016dau, 0x38fcd193u,
};

/* dst = K erfc(s |x|) per `form` (n f32), given x and |x|; tmp is
 * clobbered; dst, x, abs_x, tmp distinct. 26 repeat-cycles per repeat. */
static inline void erfc_scaled(uint64_t dst, uint64_t x, uint64_t abs_x, uint64_t tmp, uint64_t n,
                               const struct erfc_form* form) {
    vloop(V_ADDS, XD_F32, tmp, abs_x, form->offset, n);
    vloop(V_REC, XD_F32, tmp, tmp, 0, n); /* t' */
    vloop(V_MULS, XD_F32, dst, tmp, form->q[7], n);
    vloop(V_ADDS, XD_F32, dst, dst, form->q[6], n);
    for (int i = 5; i >= 0; --i) {
        vloop(V_MUL, XD_F32, dst, dst, tmp, n);
        vloop(V_ADDS, XD_F32, dst, dst, form->q[i], n);
    }
    vloop(V_MUL, XD_F32, tmp, x, x, n);
    vloop(V_MULS, XD_F32, tmp, tmp, form->minus_s2, n);
    vloop(V_EXP, XD_F32, tmp, tmp, 0, n);
    vloop(V_MUL, XD_F32, dst, dst, tmp, n);
}

/* dst = x * P(x^2), the Taylor series of erf (accurate for |x| < 0.5); dst != x, sq. */
static inline void erf_taylor(uint64_t dst, uint64_t x, uint64_t sq, uint64_t n) {
    vloop(V_MUL, XD_F32, sq, x, x, n);
    vloop(V_MULS, XD_F32, dst, sq, ERF_TAYLOR[6], n);
    vloop(V_ADDS, XD_F32, dst, dst, ERF_TAYLOR[5], n);
    for (int i = 4; i >= 0; --i) {
        vloop(V_MUL, XD_F32, dst, dst, sq, n);
        vloop(V_ADDS, XD_F32, dst, dst, ERF_TAYLOR[i], n);
    }
    vloop(V_MUL, XD_F32, dst, dst, x, n);
}

/* ---- Row tiles with per-row and per-column operands */

/* tile row i = op(tile row i, row) for the k rows (row: pitch f32, shared):
 * one instruction per column repeat across the rows (src1 repeat stride 0),
 * or row by row when a row is more than 255 blocks. */
static __attribute__((noinline, unused)) void rows_apply_row(enum vop op, uint64_t tile, uint64_t k, uint64_t pitch, uint64_t row) {
    const uint64_t row_blocks = pitch / 8;
    if (row_blocks > 255 || k == 1) {
        for (uint64_t i = 0; i < k; ++i) vloop(op, XD_F32, tile + i * pitch * 4, tile + i * pitch * 4, row, pitch);
        return;
    }
    if (k <= REPEAT_CHUNK) {
        const uint64_t config = vector_config(k, 1, 1, 1, row_blocks, row_blocks, 0, XD_F32);
        for (uint64_t col = 0; col < pitch; col += LANES_F32, tile += 256, row += 256)
            vop_issue(op, tile, tile, row, config);
        return;
    }
    for (uint64_t col = 0; col < pitch; col += LANES_F32)
        for (uint64_t done = 0; done < k; done += REPEAT_CHUNK) {
            const uint64_t r = min_u64(REPEAT_CHUNK, k - done), at = tile + (done * pitch + col) * 4;
            vop_issue(op, at, at, row + col * 4, vector_config(r, 1, 1, 1, row_blocks, row_blocks, 0, XD_F32));
        }
}

/* tile row i = op(tile row i, value i) with op V_ADDS or V_MULS and the k f32
 * values at `values` in UB, read by the scalar unit (the caller has drained
 * the V pipe: wait_vector()); `flip` is xor-ed into each value's bits
 * (F32_SIGN negates). */
static inline void rows_apply_scalars(enum vop op, uint64_t tile, uint64_t k, uint64_t pitch, uint64_t values,
                                      uint32_t flip) {
    for (uint64_t i = 0; i < k; ++i)
        vloop(op, XD_F32, tile + i * pitch * 4, tile + i * pitch * 4, ub_read32(values + i * 4) ^ flip, pitch);
}
