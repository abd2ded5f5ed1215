/*
 * Helpers shared by the Cube kernels (gemm.c, conv2d.c, op_matmul.c, op_conv.c): buffer partitions,
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
#include "npuvp/operator_kernels.h"

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

/* The argument block, copied through UB into `local` (NPUVP_OP_ARG_TAG words): the scalar
 * unit has no data cache, so each GM load of an argument costs a DDR round trip (~33 cycles:
 * ~900 of the ~3 k cycles before a Conv block's first load), where one MTE2 copy and a
 * barrier take ~150 and the UB window answers in one cycle. UB is free when a block starts.
 * Returns `local`, or `args` itself when it is not 32-byte aligned (the copy's bursts are). */
#define CUBE_UB_WINDOW 0x101000000ull /* the scalar unit's view of UB (docs/ai-core.md) */
static inline const uint64_t* kernel_args_local(const uint64_t* args, uint64_t* local) {
    if ((uintptr_t)args % 32) return args;
    enum { WORDS = NPUVP_OP_ARG_TAG, BLOCKS = (WORDS * 8 + 31) / 32 };
    copy_gm_to_ubuf(0, args, 1, BLOCKS, 0, 0);
    pipe_barrier(PIPE_MTE2);
    const volatile uint64_t* ub = (const volatile uint64_t*)(uintptr_t)CUBE_UB_WINDOW;
    for (int i = 0; i < WORDS; ++i) local[i] = ub[i];
    return local;
}
/* The same without the copy to `local`: the words are read where they land, in UB (a load
 * each from the window; copying them first costs ~200 cycles at every block's start). Only
 * for a kernel that reads every argument before its first instruction writes UB. */
static inline const volatile uint64_t* kernel_args_in_ub(const uint64_t* args) {
    if ((uintptr_t)args % 32) return args;
    enum { WORDS = NPUVP_OP_ARG_TAG, BLOCKS = (WORDS * 8 + 31) / 32 };
    copy_gm_to_ubuf(0, args, 1, BLOCKS, 0, 0);
    pipe_barrier(PIPE_MTE2);
    return (const volatile uint64_t*)(uintptr_t)CUBE_UB_WINDOW;
}
static inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
static inline uint64_t round16(uint64_t a) { return (a + 15) & ~(uint64_t)15; }

/* A block's C tiles [t_begin, t_end) run row by row, n_nt tiles a row: does
 * tile t start (end) a tile row within the block? (A rows are loaded at the
 * first tile of a row and released after the last.) */
static inline int tile_starts_row(uint64_t t, uint64_t t_begin, uint64_t n_nt) {
    return t == t_begin || t / n_nt != (t - 1) / n_nt;
}
static inline int tile_ends_row(uint64_t t, uint64_t t_end, uint64_t n_nt) {
    return t + 1 == t_end || (t + 1) / n_nt != t / n_nt;
}

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

/* ---- Shared by the operator kernels (op_conv.c, op_matmul.c) ---------------
 *
 * L0A / L0B loads for transposed operands (see isa-xdavinci.md "Getting
 * matrices into L0A and L0B"):
 *   A stored K x M (TRANS_A): nd2nz of the chunk as stored (rows k, cols m)
 *     puts fractal (kb, mb) at mb * group_kf + kb with rows k inside; each
 *     fractal is transposed on its way to L0A, one load per fractal row mb.
 *   B stored N x K (TRANS_B): nd2nz (rows n, cols k) puts fractal (nb, kb) at
 *     kb * nf + nb with rows n inside, which is already L0B's zN order: the kf
 *     fractal rows from kb = first are one contiguous load. */
static inline void load_a_zz_from_at(uint64_t l0a, uint64_t l1, uint64_t mf, uint64_t kf, uint64_t group_kf) {
    for (uint64_t mb = 0; mb < mf; ++mb)
        load_cbuf_to_ca(l0a + mb * kf * FRACTAL, l1 + mb * group_kf * FRACTAL, kf, 1, 0, 1);
}
static inline void load_b_zn_from_bt(uint64_t l0b, uint64_t l1, uint64_t kf, uint64_t nf) {
    for (uint64_t done = 0; done < kf * nf;) { /* repeat is 8 bits */
        const uint64_t n = min_u64(255, kf * nf - done);
        load_cbuf_to_cb(l0b + done * FRACTAL, l1 + done * FRACTAL, n, 1, 0, 0);
        done += n;
    }
}

/* f32 bits -> f16 bits, round to nearest even (kernels have no FPU). */
static inline uint64_t f32_bits_to_f16(uint64_t f) {
    const uint32_t sign = (uint32_t)(f >> 16) & 0x8000u;
    const uint32_t exponent = (uint32_t)(f >> 23) & 0xffu;
    uint32_t mantissa = (uint32_t)f & 0x7fffffu;
    if (exponent == 0xff) return sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0); /* inf, NaN */
    const int32_t e = (int32_t)exponent - 127 + 15;
    if (e >= 31) return sign | 0x7c00u; /* overflow */
    if (e <= 0) {                       /* subnormal f16 or zero */
        if (e < -10) return sign;
        mantissa |= 0x800000u;
        const uint32_t shift = (uint32_t)(14 - e);
        const uint32_t half = mantissa >> shift, rest = mantissa & ((1u << shift) - 1), mid = 1u << (shift - 1);
        return sign | (half + (rest > mid || (rest == mid && (half & 1))));
    }
    const uint32_t half = ((uint32_t)e << 10) | (mantissa >> 13), rest = mantissa & 0x1fffu;
    return sign | (half + (rest > 0x1000u || (rest == 0x1000u && (half & 1)))); /* a carry rounds up the exponent */
}

/* The epilogue of an operator kernel's C tile: y = act(alpha * acc + bias +
 * residual), applied as the tile leaves L0C, and the store of the f16 tile.
 *
 * Where each part happens:
 *   bias without alpha   the Cube starts the tile from it (mmad_bias; a ring
 *                        of BIAS_SLOTS f32 rows in UB, tile i in slot i % 4,
 *                        loaded with the tile's operands, i.e. up to 3 tiles
 *                        ahead: MTE2->M / M->MTE2 EVENT_ID0)
 *   alpha (!= 1)         L0C -> UB in f32 one column group at a time, vmuls
 *                        by alpha, vadd of the bias row (loaded four times
 *                        over per group so one repeat covers 4 rows: MTE2->V
 *                        / V->MTE2 EVENT_ID1), vconv to f16
 *   residual             one UB slot (MTE2->V / V->MTE2 EVENT_ID0): f16 vadd
 *                        after the conversion
 *   ReLU                 in the L0C -> UB conversion when there is no
 *                        residual, else vrelu; Clip: vmaxs, vmins in f16
 *                        (bounds rounded to f16: rounding is monotonic, so
 *                        clipping the rounded value with rounded bounds is
 *                        the rounding of the clipped value).
 * UB: the f16 tile halves at h * UB_HALF (L0C / UB halves as in
 * write_back_tile), then the residual slot, the f32 scratch, the bias slots.
 *
 * GM geometry of a tile: `rows` x `cols` valid elements, 16-column group nb
 * at out + nb * group_pitch, its rows row_pitch bytes apart. A row-major
 * matrix has group_pitch 32; a 5HD feature map has row_pitch 32 (a group's
 * rows are consecutive pixels) and group_pitch = H * W * 32. */
enum {
    UB_RESIDUAL = 2 * UB_HALF, /* 64 KiB: one f16 tile */
    UB_SCRATCH = UB_RESIDUAL + UB_HALF, /* 32 KiB: one f32 column group of up to 512 rows */
    UB_BIAS = UB_SCRATCH + (32 << 10),  /* BIAS_SLOTS x 1 KiB: up to 256 f32 */
    UB_BIAS_SLOT = 1 << 10,
    BIAS_SLOTS = 4,
    UB_BIAS4 = UB_BIAS + BIAS_SLOTS * UB_BIAS_SLOT, /* bias rows x 4 per group: up to 16 groups x 256 bytes */
};

typedef struct {
    uint64_t act;              /* NPUVP_ACT_* */
    uint64_t clip_lo, clip_hi; /* f16 bits */
    uint64_t alpha;            /* f32 bits; 0: 1.0 (no scaling) */
    const uint8_t* bias;       /* f32 [columns] in GM, or NULL */
    int residual;              /* a residual tensor is added */
    uint64_t zero_lanes_from;  /* 1..15: the tile's last group keeps lanes >= this at 0 (Clip's bound
                                  would make padded 5HD channels non-zero); 0: nothing to do */
    int serial;                /* pipe_barrier(PIPE_ALL) after each step */
} Epilogue;

typedef struct {
    uint8_t* out;
    const uint8_t* residual; /* same geometry as out, or NULL */
    const uint8_t* bias;     /* f32 of the tile's first column, or NULL */
    uint64_t rows, cols;
    uint64_t row_pitch, group_pitch; /* bytes */
    int last_group_padded;           /* the tile holds the 5HD tensor's last (partly padded) group */
} TileGm;

static inline int epilogue_scaled(const Epilogue* e) { return e->alpha != 0 && e->alpha != 0x3f800000u; }

static inline void epilogue_open(const Epilogue* e) {
    for (int i = 0; i < BIAS_SLOTS; ++i) set_flag(PIPE_M, PIPE_MTE2, EVENT_ID0); /* bias slots free */
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0); /* residual slot free */
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1); /* bias4 free */
    (void)e;
}
static inline void epilogue_close(const Epilogue* e) {
    for (int i = 0; i < BIAS_SLOTS; ++i) wait_flag(PIPE_M, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    (void)e;
}

/* May a tile move as whole 16-column groups of contiguous 32-byte rows? A 5HD tile's rows are
 * (row_pitch 32, its columns whole groups: the padded channels are the tensor's own); a
 * row-major matrix's rows with a pitch of 32 bytes hold other data beyond a tile narrower than
 * 16 columns (attention's head merge with head dim 8 and 2 heads: the rows of one head's MatMul
 * are 16 bytes of a 32-byte row, and the whole-group store wrote zeros over the other head). */
static inline int whole_groups(const TileGm* t) { return t->row_pitch == 32 && t->cols % 16 == 0; }

/* GM <-> UB transfers of a tile (UB: group nb at ub + nb * mf * 512). */
static inline void tile_load_ub(uint64_t ub, const uint8_t* gm, const TileGm* t, uint64_t mf) {
    const uint64_t nf = ceil_div(t->cols, 16);
    if (whole_groups(t)) { /* rows contiguous */
        copy_gm_to_ubuf_pitched(ub, gm, nf, t->rows, mf * 16 - t->rows, t->group_pitch, 0);
        return;
    }
    for (uint64_t nb = 0; nb < nf; ++nb)
        copy_gm_to_ubuf_pitched(ub + nb * mf * FRACTAL, gm + nb * t->group_pitch, t->rows, 1, 0, t->row_pitch,
                                min_u64(16, t->cols - nb * 16) * 2);
}
static inline void tile_store_ub(uint8_t* gm, uint64_t ub, const TileGm* t, uint64_t mf) {
    const uint64_t nf = ceil_div(t->cols, 16);
    if (whole_groups(t)) {
        copy_ubuf_to_gm_pitched(gm, ub, nf, t->rows, mf * 16 - t->rows, t->group_pitch, 0);
        return;
    }
    for (uint64_t nb = 0; nb < nf; ++nb)
        copy_ubuf_to_gm_pitched(gm + nb * t->group_pitch, ub + nb * mf * FRACTAL, t->rows, 1, 0, t->row_pitch,
                                min_u64(16, t->cols - nb * 16) * 2);
}

/* MTE2, with the operands of the block's tile number `i`: its bias row for
 * mmad_bias (nothing when there is no bias or alpha scales). A slot is
 * reused 4 tiles later, so with loads issued at most 3 tiles ahead every
 * wait refers to a set issued earlier in program order. */
static inline void epilogue_load_bias(const Epilogue* e, const TileGm* t, uint64_t i) {
    if (!e->bias || epilogue_scaled(e)) return;
    const uint64_t slot = UB_BIAS + i % BIAS_SLOTS * UB_BIAS_SLOT;
    wait_flag(PIPE_M, PIPE_MTE2, EVENT_ID0);
    copy_gm_to_ubuf_pitched(slot, t->bias, 1, ceil_div(t->cols, 16) * 2, 0, 0, t->cols * 4);
    set_flag(PIPE_MTE2, PIPE_M, EVENT_ID0);
}
/* M: the first mmad of the block's tile number i, from +0 or its bias row. */
static inline void mmad_first(const Epilogue* e, uint64_t i, uint64_t c, uint64_t a, uint64_t b, uint64_t m,
                              uint64_t k, uint64_t n) {
    if (!e->bias || epilogue_scaled(e)) {
        mmad(c, a, b, m, k, n, XD_F16, 1);
        return;
    }
    wait_flag(PIPE_MTE2, PIPE_M, EVENT_ID0);
    mmad_bias(c, a, b, m, k, n, XD_F16, UB_BIAS + i % BIAS_SLOTS * UB_BIAS_SLOT);
    set_flag(PIPE_M, PIPE_MTE2, EVENT_ID0);
}

/* MTE2, before the tile's write-back: its residual and (scaled with bias)
 * the bias rows. Issued early enough that the loads overlap the tile's
 * mmads. */
static inline void epilogue_prefetch(const Epilogue* e, const TileGm* t, uint64_t mf) {
    if (e->residual) {
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        tile_load_ub(UB_RESIDUAL, t->residual, t, mf);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    }
    if (e->bias && epilogue_scaled(e)) {
        const uint64_t full = t->cols / 16, rest = t->cols % 16;
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
        for (uint64_t q = 0; q < 4; ++q) { /* group nb's 256 bytes: its 16 f32 four times */
            if (full) copy_gm_to_ubuf_pitched(UB_BIAS4 + q * 64, t->bias, full, 2, 6, 64, 0);
            if (rest) copy_gm_to_ubuf_pitched(UB_BIAS4 + full * 256 + q * 64, t->bias + full * 64, 1, 2, 0, 0, rest * 4);
        }
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
    }
}

/* `stmt` over `count` f16 elements (a multiple of 128) in instructions of
 * up to 255 repeats; inside it, `off` is the byte offset of the instruction's
 * first repeat and `cfg` its contiguous repeat configuration. */
#define F16_REPEATS(count, off, cfg, stmt)                                         \
    do {                                                                           \
        for (uint64_t r_ = 0; r_ < (count) / 128;) {                               \
            const uint64_t n_ = min_u64(255, (count) / 128 - r_);                  \
            const uint64_t off = r_ * 256, cfg = vector_contiguous(n_, XD_F16);    \
            stmt;                                                                  \
            r_ += n_;                                                              \
        }                                                                          \
    } while (0)

/* V + MTE3: the write-back of the tile in L0C half h (rows x cols valid, mf
 * x nf fractals). Waits M->V h (set by the caller after the tile's last
 * mmad) and MTE3->V h; frees L0C (V->M h) and UB (MTE3->V h) as write_back_tile. */
/* Lanes c0 >= zero_lanes_from of every row of a tile's last 16-column group (mf fractal rows
 * at `group` in UB) back to 0: a repeat is 8 rows of 16 lanes, the mask the same for each row. */
static inline void epilogue_zero_padded_lanes(const Epilogue* e, uint64_t group, uint64_t mf) {
    uint64_t row = 0;
    for (uint64_t c = e->zero_lanes_from; c < 16; ++c) row |= (uint64_t)1 << c;
    const uint64_t mask = row | row << 16 | row << 32 | row << 48;
    set_vector_mask(mask, mask);
    vector_dup(group, 0, vector_contiguous(mf * 2, XD_F16));
    set_vector_mask(~(uint64_t)0, ~(uint64_t)0);
}

static inline void epilogue_write_back(const Epilogue* e, const TileGm* t, uint64_t h) {
    const uint64_t mf = ceil_div(t->rows, 16), nf = ceil_div(t->cols, 16);
    const uint64_t ub = h * UB_HALF, l0c = h * L0C_HALF, elements = mf * nf * 256;
    const int relu_in_cc = e->act == NPUVP_ACT_RELU && !e->residual && !epilogue_scaled(e);
    WAIT_FLAG01(PIPE_M, PIPE_V, h);
    WAIT_FLAG01(PIPE_MTE3, PIPE_V, h);
    if (epilogue_scaled(e)) {
        if (e->bias) wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
        for (uint64_t nb = 0; nb < nf; ++nb) {
            const uint64_t repeats = mf * 4; /* 64 f32 lanes each */
            copy_matrix_cc_to_ubuf(UB_SCRATCH, l0c + nb * mf * 2 * FRACTAL, 1, mf, 0, 0, XD_CC_F32, 0);
            vmuls(UB_SCRATCH, UB_SCRATCH, e->alpha, vector_contiguous(repeats, XD_F32));
            if (e->bias)
                vadd(UB_SCRATCH, UB_SCRATCH, UB_BIAS4 + nb * 256, vector_config(repeats, 1, 1, 1, 8, 8, 0, XD_F32));
            vconv(ub + nb * mf * FRACTAL, UB_SCRATCH, XD_CONV_F32_F16, XD_ROUND_RINT,
                  vector_config(repeats, 1, 1, 1, 4, 8, 8, XD_F32));
        }
        if (e->bias) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    } else {
        copy_matrix_cc_to_ubuf(ub, l0c, 1, mf * nf, 0, 0, XD_CC_F32_TO_F16, relu_in_cc);
    }
    SET_FLAG01(PIPE_V, PIPE_M, h);
    if (e->residual) {
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        F16_REPEATS(elements, o, cfg, vadd(ub + o, ub + o, UB_RESIDUAL + o, cfg));
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    }
    if (e->act == NPUVP_ACT_RELU && !relu_in_cc) F16_REPEATS(elements, o, cfg, vrelu(ub + o, ub + o, cfg));
    if (e->act == NPUVP_ACT_CLIP) {
        F16_REPEATS(elements, o, cfg, vmaxs(ub + o, ub + o, e->clip_lo, cfg));
        F16_REPEATS(elements, o, cfg, vmins(ub + o, ub + o, e->clip_hi, cfg));
    }
    if (e->zero_lanes_from && t->last_group_padded) epilogue_zero_padded_lanes(e, ub + (nf - 1) * mf * FRACTAL, mf);
    SET_FLAG01(PIPE_V, PIPE_MTE3, h);
    if (e->serial) pipe_barrier(PIPE_ALL);
    WAIT_FLAG01(PIPE_V, PIPE_MTE3, h);
    tile_store_ub(t->out, ub, t, mf);
    SET_FLAG01(PIPE_MTE3, PIPE_V, h);
    if (e->serial) pipe_barrier(PIPE_ALL);
}
