/*
 * Sliding-window machinery shared by the 5HD window kernels (op_pool.c,
 * op_dwconv.c): feature maps N x C1 x H x W x 16 f16, one pixel = 16
 * channels = one 32-byte block, a "plane" = one (n, c1).
 *
 * Work: the N * C1 * HO output rows, numbered plane-major; task block b of
 * B takes the contiguous range [items*b/B, items*(b+1)/B).
 *
 * Rows. For each plane the block touches, the window rows it needs,
 * [first*SH - PT, last*SH - PT + (KH-1)*DH], padding rows included, go in
 * order through a V-only ring of RING_ROWS rows of WP pixels (padding
 * columns at both ends):
 *   - a row of the map is loaded once per block by MTE2 into a staging slot
 *     (S <= 8 slots) at pixel column PAD_LEFT of a row whose other columns
 *     hold the padding value (written once per block), then V transforms it
 *     into the ring (f16 -> f32 with vconv, or an f16 copy) and frees the
 *     slot;
 *   - a padding row (above or below the map) is written by V with the
 *     padding value (0, or -inf for max pooling);
 *   - loads run up to S rows ahead of the transforms; a load waits for a
 *     slot freed by a transform issued before it, so every wait refers to a
 *     set earlier in program order (no deadlock whatever the queue depths).
 * Flags: MTE2->V EVENT_ID0 "row staged", V->MTE2 EVENT_ID0 "slot free"
 * (counting tokens, FIFO order).
 *
 * Output groups of up to GROUP_ROWS rows of one plane leave through two UB
 * buffers (V->MTE3 EVENT_ID0 "group ready", MTE3->V EVENT_ID0 "free").
 *
 * Two ways to compute a group:
 *  - row by row (any strides): an output row is whole repeats of 8 pixels
 *    (WO8 = WO rounded up to 8), one instruction per tap reading source
 *    pixels SW apart; the extra pixels land in the next row's place
 *    (overwritten later) or in the buffer's slack and are never stored.
 *  - flat (SH = SW = S): the ring is mirrored (row g is written at slots
 *    g mod R and g mod R + R), so any R consecutive rows are contiguous, and
 *    a group of T output rows is ONE run of T * WP pixels: output pixel
 *    f = t * WP + ow reads ring pixel (t*S + i*DH) * WP + ow*S + j*DW
 *    = f * S + (i*DH * WP + j*DW), so each tap is one instruction over all T
 *    rows (pixels ow >= WO are computed and dropped: MTE3 stores WO of every
 *    WP; with S = 2 that is about half of them). This divides the
 *    instruction count (and the scalar unit's issue work, the limit on
 *    small maps) by T.
 */
#pragma once

#include "npuvp/window_plan.h"
#include "vector_common.h" /* masks, flags, min_u64, ceil_div */

/* UB plan (256 KiB; the sizes the geometry depends on are window_plan.h's, shared with the
 * compiler). */
enum {
    WIN_STAGE = 0, WIN_STAGE_BYTES = NPUVP_WINDOW_STAGE_BYTES, /* at most; the ring starts after the slots */
    WIN_RING_END = NPUVP_WINDOW_RING_END,
    WIN_OUT = 96 << 10, WIN_OUT_BYTES = NPUVP_WINDOW_OUT_BYTES,  /* two buffers */
    WIN_RES = 128 << 10, WIN_RES_BYTES = 16 << 10, /* two buffers (residual) */
    WIN_ACC = 160 << 10, WIN_ACC_BYTES = NPUVP_WINDOW_ACC_BYTES, /* f32 accumulator */
    WIN_TMP = 192 << 10,                           /* f32, WIN_ACC_BYTES */
    WIN_AUX = 224 << 10, WIN_AUX_BYTES = NPUVP_WINDOW_AUX_BYTES, /* pool: divisor row; dwconv: expanded weights */
    WIN_WF32 = 240 << 10, WIN_WF32_BYTES = NPUVP_WINDOW_WF32_BYTES, /* dwconv: weights in f32 */
    WIN_WSTAGE = 248 << 10, WIN_WSTAGE_BYTES = NPUVP_WINDOW_WSTAGE_BYTES, /* dwconv: weights f16 + bias f32 as loaded */
    WIN_BIAS = 252 << 10,                          /* dwconv: bias f32, 256 bytes */
    WIN_BIAS_EXPANDED = WIN_BIAS + 256,            /* dwconv: the bias four times over (4 pixels) */
    WIN_CONST = WIN_BIAS + 512,                    /* small constants */
};
_Static_assert(WIN_STAGE + WIN_STAGE_BYTES <= WIN_RING_END && WIN_RING_END <= WIN_OUT &&
                   WIN_OUT + 2 * WIN_OUT_BYTES <= WIN_RES && WIN_RES_BYTES >= WIN_OUT_BYTES &&
                   WIN_ACC + WIN_ACC_BYTES <= WIN_TMP && WIN_TMP + WIN_ACC_BYTES <= WIN_AUX &&
                   WIN_AUX + WIN_AUX_BYTES <= WIN_WF32 && WIN_WF32 + WIN_WF32_BYTES <= WIN_WSTAGE &&
                   WIN_WSTAGE + WIN_WSTAGE_BYTES <= WIN_BIAS && (int)NPUVP_WINDOW_MAX_REPEAT == (int)MAX_REPEAT,
               "the window UB plan");

#define WIN_F16_NEG_INF 0xfc00u

typedef struct {
    const uint8_t* in;
    uint8_t* out;
    uint64_t planes, h, w, ho, wo;
    uint64_t in_pitch, out_pitch; /* pixels between rows in GM (a column strip of a wider map: its width) */
    uint64_t kh, kw, sh, sw, pt, pl, dh, dw;
    struct npuvp_window_rows rows; /* the UB layout (window_plan.h): row pixels, slots, ring, groups, flat */
    int ring_f32;               /* ring rows in f32 (else f16 copies) */
    uint64_t pad_bits;          /* f16 padding value */
    /* Packed once (packing costs the scalar unit ~25 instructions): the row
     * load's burst descriptor and the staging -> ring transform's config. */
    uint64_t load_burst, fill_config, pad_config;
    uint64_t begin, end;        /* this block's output rows */
    /* Load cursor: the next map row to stage. */
    uint64_t loads, load_plane, load_ih, load_hi;
    int load_done;
    /* Transform cursor: the next window row (g counts every row, real_g the
     * map rows), its plane and row. */
    uint64_t g, real_g, tr_plane, tr_hi;
    int64_t tr_ih;
    /* Compute side: the plane being computed, its first row's g and row. */
    uint64_t cmp_plane, cmp_gbase;
    int64_t cmp_lo;
} Window;

/* Window rows [*lo, *hi] (padding included) of plane p that the block's
 * output rows need. */
static inline void window_plane_rows(const Window* win, uint64_t p, int64_t* lo, int64_t* hi) {
    const uint64_t first = win->begin > p * win->ho ? win->begin - p * win->ho : 0;
    const uint64_t last = min_u64(win->end - p * win->ho, win->ho) - 1;
    *lo = (int64_t)(first * win->sh) - (int64_t)win->pt;
    *hi = (int64_t)(last * win->sh) - (int64_t)win->pt + (int64_t)((win->kh - 1) * win->dh);
}

/* Sets the UB geometry (window_plan.h); returns 0 if a row does not fit (caller faults: the
 * compiler splits wider maps into column strips and refuses what no strip holds). */
static inline int window_plan(Window* win, int ring_f32, uint64_t pad_bits) {
    const struct npuvp_window_geometry g = {win->w, win->wo, win->kh, win->kw, win->sh,
                                            win->sw, win->pl, win->dh, win->dw};
    if (!npuvp_window_rows_plan(&g, ring_f32, &win->rows)) return 0;
    win->ring_f32 = ring_f32;
    win->pad_bits = pad_bits;
    win->load_burst = xd_pack_burst(1, win->w, 0, 0);
    win->fill_config = ring_f32 ? vector_config(win->rows.wp / 4, 1, 1, 1, 8, 4, 4, XD_F32)
                                : vector_contiguous(win->rows.wp / 8, XD_F16);
    win->pad_config = vector_contiguous(win->rows.wp / (ring_f32 ? 4 : 8), ring_f32 ? XD_F32 : XD_F16);
    return 1;
}

/* The block's share of the output rows and the cursors at its first row. */
static inline void window_start(Window* win) {
    const uint64_t items = win->planes * win->ho, blocks = block_dim(), b = block_idx();
    win->begin = items * b / blocks;
    win->end = items * (b + 1) / blocks;
    win->loads = win->g = win->real_g = win->cmp_gbase = 0;
    win->load_done = 1;
    if (win->begin >= win->end) return;
    const uint64_t p = win->begin / win->ho;
    int64_t lo, hi;
    window_plane_rows(win, p, &lo, &hi);
    win->cmp_plane = win->tr_plane = p;
    win->cmp_lo = win->tr_ih = lo;
    win->tr_hi = (uint64_t)hi;
    /* The first plane with a map row. */
    for (uint64_t q = p; q * win->ho < win->end; ++q) {
        window_plane_rows(win, q, &lo, &hi);
        if (lo < 0) lo = 0;
        if (hi > (int64_t)win->h - 1) hi = (int64_t)win->h - 1;
        if (lo <= hi) {
            win->load_plane = q;
            win->load_ih = (uint64_t)lo;
            win->load_hi = (uint64_t)hi;
            win->load_done = 0;
            break;
        }
    }
}

static inline uint64_t stage_slot(const Window* win, uint64_t real_g) {
    return WIN_STAGE + (real_g & (win->rows.stage_slots - 1)) * win->rows.wp * 32;
}
static inline uint64_t ring_slot(const Window* win, uint64_t g) {
    return win->rows.ring_base + (g & (win->rows.ring_rows - 1)) * win->rows.row_bytes;
}

/* Padding value in every staging column (V, once, before the first load). */
static inline void window_open(const Window* win) {
    vector_dup(WIN_STAGE, win->pad_bits, vector_contiguous(WIN_STAGE_BYTES / 256, XD_F16));
    for (uint64_t i = 0; i < win->rows.stage_slots; ++i) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0); /* both output buffers free */
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
}
static inline void window_close(Window* win) {
    while (win->real_g < win->loads) { /* map rows staged but never needed (none expected) */
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        win->real_g++;
    }
    for (uint64_t i = 0; i < win->rows.stage_slots; ++i) wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
}

/* MTE2: the next map row of the block into its staging slot. */
static inline void window_load_next(Window* win) {
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    const uint8_t* src = win->in + ((win->load_plane * win->h + win->load_ih) * win->in_pitch) * 32;
    __xd_copy_gm_to_ubuf(stage_slot(win, win->loads) + win->pl * 32, (uint64_t)(uintptr_t)src, 0,
                         win->load_burst);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    win->loads++;
    if (win->load_ih < win->load_hi) {
        win->load_ih++;
        return;
    }
    for (uint64_t q = win->load_plane + 1; q * win->ho < win->end; ++q) {
        int64_t lo, hi;
        window_plane_rows(win, q, &lo, &hi);
        if (lo < 0) lo = 0;
        if (hi > (int64_t)win->h - 1) hi = (int64_t)win->h - 1;
        if (lo <= hi) {
            win->load_plane = q;
            win->load_ih = (uint64_t)lo;
            win->load_hi = (uint64_t)hi;
            return;
        }
    }
    win->load_done = 1;
}

/* Loads as far ahead as the staging slots allow. */
static inline void window_prefetch(Window* win) {
    while (!win->load_done && win->loads < win->real_g + win->rows.stage_slots) window_load_next(win);
}

/* V: one ring row from the staging slot (map row) or the padding value. */
static inline void window_fill_row(const Window* win, uint64_t dst, int real) {
    if (!real) vector_dup(dst, win->ring_f32 ? 0 : win->pad_bits, win->pad_config);
    else if (win->ring_f32)
        vconv(dst, stage_slot(win, win->real_g), XD_CONV_F16_F32, XD_ROUND_RINT, win->fill_config);
    else
        vor(dst, stage_slot(win, win->real_g), stage_slot(win, win->real_g), win->fill_config);
}

/* V: window rows up to (not including) g_limit into the ring. */
static inline void window_stage_upto(Window* win, uint64_t g_limit) {
    while (win->g < g_limit) {
        window_prefetch(win);
        const int real = win->tr_ih >= 0 && win->tr_ih < (int64_t)win->h;
        if (real) wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        const uint64_t dst = ring_slot(win, win->g);
        window_fill_row(win, dst, real);
        if (win->rows.flat) window_fill_row(win, dst + win->rows.ring_rows * win->rows.row_bytes, real);
        if (real) {
            set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
            win->real_g++;
        }
        win->g++;
        if (win->tr_ih < (int64_t)win->tr_hi) {
            win->tr_ih++;
        } else if ((win->tr_plane + 1) * win->ho < win->end) {
            int64_t lo, hi;
            win->tr_plane++;
            window_plane_rows(win, win->tr_plane, &lo, &hi);
            win->tr_ih = lo;
            win->tr_hi = (uint64_t)hi;
        }
    }
    window_prefetch(win);
}

/* Compute side: the ring slot of window row ih of plane p (staging it and
 * the rows before it first). Planes are visited in increasing order. */
static inline uint64_t window_row(Window* win, uint64_t p, int64_t ih) {
    while (win->cmp_plane < p) {
        int64_t lo, hi;
        window_plane_rows(win, win->cmp_plane, &lo, &hi);
        win->cmp_gbase += (uint64_t)(hi - lo + 1);
        win->cmp_plane++;
        window_plane_rows(win, win->cmp_plane, &win->cmp_lo, &hi);
    }
    const uint64_t g = win->cmp_gbase + (uint64_t)(ih - win->cmp_lo);
    if (g >= win->g) window_stage_upto(win, g + 1);
    return ring_slot(win, g);
}

/* Output groups: item i starts a group of min(group_rows, rows to the end of
 * its plane, rows to the end of the block) rows. */
static inline uint64_t window_group_rows(const Window* win, uint64_t item) {
    return min_u64(min_u64(win->rows.group_rows, win->ho - item % win->ho), win->end - item);
}

/* UB pixels between output rows in a group's buffers. */
static inline uint64_t window_out_pitch(const Window* win) { return win->rows.flat ? win->rows.wp : win->wo; }

/* A group's `rows` output rows between GM (out_pitch pixels apart) and UB (window_out_pitch
 * apart): MTE3 stores them (`store`), or MTE2 loads the residual's. One burst when both sides
 * are dense. */
static inline void window_rows_copy(const uint8_t* gm, uint64_t ub, uint64_t rows, const Window* win, int store) {
    const uint64_t ub_gap = window_out_pitch(win) - win->wo, gm_gap = win->out_pitch - win->wo;
    const uint64_t bursts = ub_gap || gm_gap ? rows : 1, length = ub_gap || gm_gap ? win->wo : rows * win->wo;
    if (store) copy_ubuf_to_gm((void*)gm, ub, bursts, length, ub_gap, gm_gap);
    else copy_gm_to_ubuf(ub, gm, bursts, length, gm_gap, ub_gap);
}

/* MTE3: the group's rows from output buffer q (in GM out_pitch pixels apart, in
 * UB window_out_pitch). */
static inline void window_store_group(const Window* win, uint64_t item, uint64_t rows, uint64_t q) {
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    const uint64_t ub = WIN_OUT + q * WIN_OUT_BYTES;
    window_rows_copy(win->out + item * win->out_pitch * 32, ub, rows, win, 1);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
}

/* Pixels computed for a group of `rows` output rows from one row / flat. */
static inline uint64_t window_row_pixels(const Window* win, uint64_t rows) {
    return win->rows.flat ? rows * win->rows.wp : win->rows.wo8;
}

/* Vector configs over `pixels` output pixels (8 a repeat), the source pixels
 * SW apart. */
/* f16 tap: dst contiguous, src every sw-th pixel. */
static inline uint64_t window_f16_tap_config(const Window* win, uint64_t pixels) {
    return vector_config(pixels / 8, 1, win->sw, 1, 8, 8 * win->sw, 8, XD_F16);
}
/* The same, as a copy: vor(dst, src, src) with both sources strided alike. */
static inline uint64_t window_f16_copy_config(const Window* win, uint64_t pixels) {
    return vector_config(pixels / 8, 1, win->sw, win->sw, 8, 8 * win->sw, 8 * win->sw, XD_F16);
}
/* f32 half-pixel tap (channels 0-7 or 8-15 of each pixel, 2 blocks a
 * pixel): dst and src1 every pixel, src0 every sw-th pixel. */
static inline uint64_t window_f32_tap_config(const Window* win, uint64_t pixels) {
    return vector_config(pixels / 8, 2, 2 * win->sw, 2, 16, 16 * win->sw, 16, XD_F32);
}
static inline uint64_t window_f32_copy_config(const Window* win, uint64_t pixels) {
    return vector_config(pixels / 8, 2, 2 * win->sw, 2 * win->sw, 16, 16 * win->sw, 16 * win->sw, XD_F32);
}

/* Contiguous f32 over `pixels` pixels (4 a repeat; pixels / 4 <= 255). */
static inline uint64_t window_f32_pixels_config(uint64_t pixels) { return vector_contiguous(pixels / 4, XD_F32); }
/* f32 pixels -> f16 pixels (dense result). */
static inline void window_to_f16(uint64_t dst, uint64_t src, uint64_t pixels) {
    vconv(dst, src, XD_CONV_F32_F16, XD_ROUND_RINT, vector_config(pixels / 4, 1, 1, 1, 4, 8, 8, XD_F32));
}
/* f16 pixels -> f32 pixels. */
static inline void window_to_f32(uint64_t dst, uint64_t src, uint64_t pixels) {
    vconv(dst, src, XD_CONV_F16_F32, XD_ROUND_RINT, vector_config(pixels / 4, 1, 1, 1, 8, 4, 4, XD_F32));
}

/* IEEE single bits of a small integer n (1 <= n < 2^24), computed without
 * floating point (kernels are rv64imac). */
static inline uint32_t window_f32_bits_of_uint(uint64_t n) {
    uint32_t e = 0;
    while ((n >> (e + 1)) != 0) e++;
    return ((127 + e) << 23) | (uint32_t)((n << (23 - e)) & 0x7fffff);
}

/* x, as a value the compiler cannot see through. Constant configs used in
 * loops are passed through this once, at the start: otherwise GCC keeps
 * 64-bit constants in .rodata and, as every intrinsic clobbers memory,
 * reloads them after each instruction, and a .rodata load is a DDR round
 * trip for the scalar unit (no data cache): ~150 cycles. */
static inline uint64_t win_opaque(uint64_t x) {
    __asm__("" : "+r"(x));
    return x;
}

/* A geometry the kernel cannot run: stop with a scalar-trap fault. */
static inline void window_fault(void) { __builtin_trap(); }
