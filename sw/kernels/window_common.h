/*
 * Sliding-window machinery shared by the 5HD window kernels (op_pool.c,
 * op_dwconv.c): feature maps N x C1 x H x W x 16 f16, one pixel = 16
 * channels = one 32-byte block, a "plane" = one (n, c1).
 *
 * Work: the N * C1 * HO output rows, numbered plane-major; task block b of
 * B takes the contiguous range [items*b/B, items*(b+1)/B).
 *
 * Input rows travel GM -> UB once per block, in order (all the rows the
 * block's output rows of a plane need, then the next plane's):
 *   - MTE2 loads each row into a staging slot (S slots, S <= 8) at pixel
 *     column PAD_LEFT of a UB row of WP pixels whose other columns hold the
 *     padding value (written once per block), so every tap reads a whole,
 *     already padded row;
 *   - V transforms the staged row into the row ring (f16 -> f32 with vconv,
 *     or an f16 copy) and frees the staging slot; the ring holds RING_ROWS
 *     rows, at least the window's height, and is V-only (in-order, no flags);
 *   - loads run up to S rows ahead of the transforms: a load waits for a
 *     staging slot freed by a transform that was issued before it, so every
 *     wait refers to a set earlier in program order (no deadlock whatever
 *     the queue depths).
 * Flags: MTE2->V EVENT_ID0 "row staged", V->MTE2 EVENT_ID0 "slot free"
 * (counting tokens, FIFO order).
 *
 * Output rows leave in groups of up to GROUP_ROWS rows of one plane (one
 * contiguous burst each, GM rows of a plane are adjacent), through two UB
 * buffers: V->MTE3 EVENT_ID0 "group ready", MTE3->V EVENT_ID0 "buffer free".
 *
 * Rows in UB are WP pixels, a multiple of 8, wide enough for the widest tap
 * of the last repeat: output rows are computed in whole repeats of 8 pixels
 * (WO8 = WO rounded up to 8); the extra pixels land in the next row's place
 * (overwritten later) or in the slack of the buffer, and are never stored.
 */
#pragma once

#include "vector_common.h" /* masks, flags, min_u64, ceil_div */

/* UB plan (256 KiB). */
enum {
    UB_STAGE = 0, STAGE_BYTES = 32 << 10,
    UB_RING = 32 << 10, RING_BYTES = 64 << 10,
    UB_OUT = 96 << 10, OUT_BYTES = 16 << 10,  /* two buffers */
    UB_RES = 128 << 10, RES_BYTES = 16 << 10, /* two buffers (residual) */
    UB_ACC = 160 << 10, ACC_BYTES = 16 << 10, /* one f32 output row */
    UB_TMP = 176 << 10,                       /* one f32 output row */
    UB_AUX = 192 << 10, AUX_BYTES = 16 << 10, /* pool: divisor row */
    UB_WF32 = 208 << 10, WF32_BYTES = 8 << 10,   /* dwconv: weights in f32 */
    UB_WSTAGE = 216 << 10, WSTAGE_BYTES = 8 << 10, /* dwconv: weights f16 + bias f32 as loaded */
    UB_BIAS = 224 << 10,                      /* dwconv: bias f32, 256 bytes */
    UB_CONST = 225 << 10,                     /* small constants */
    MAX_STAGE_SLOTS = 8,
};

#define F16_NEG_INF 0xfc00u
#define F32_NEG_ZERO 0x80000000u

typedef struct {
    const uint8_t* in;
    uint8_t* out;
    uint64_t planes, h, w, ho, wo;
    uint64_t kh, kw, sh, sw, pt, pl, dh, dw;
    uint64_t wp, wo8;           /* UB row pixels, output pixels computed per row */
    int ring_f32;               /* ring rows in f32 (else f16 copies) */
    uint64_t stage_slots, ring_rows, group_rows;
    uint64_t begin, end;        /* this block's output rows */
    /* Load cursor: next row to stage (global row number g, plane, ih). */
    uint64_t load_g, load_plane, load_ih;
    int load_done;
    uint64_t staged_g;          /* next row to transform */
    /* Compute side: the plane being computed and its first row's g. */
    uint64_t cmp_plane, cmp_gbase;
} Window;

/* Input rows [*lo, *hi] of plane p that the block's output rows need;
 * returns their count (0: all of them fall in the padding). */
static inline uint64_t window_plane_rows(const Window* win, uint64_t p, uint64_t* lo, uint64_t* hi) {
    const uint64_t first = win->begin > p * win->ho ? win->begin - p * win->ho : 0;
    const uint64_t last = min_u64(win->end - p * win->ho, win->ho) - 1;
    const int64_t top = (int64_t)(first * win->sh) - (int64_t)win->pt;
    const int64_t bottom = (int64_t)(last * win->sh) - (int64_t)win->pt + (int64_t)((win->kh - 1) * win->dh);
    const int64_t l = top < 0 ? 0 : top;
    const int64_t h = bottom > (int64_t)win->h - 1 ? (int64_t)win->h - 1 : bottom;
    *lo = (uint64_t)l;
    *hi = (uint64_t)h;
    return h >= l ? (uint64_t)(h - l + 1) : 0;
}

/* Sets the UB geometry; returns 0 if a row does not fit (caller faults). */
static inline int window_plan(Window* win, int ring_f32) {
    win->ring_f32 = ring_f32;
    win->wo8 = (win->wo + 7) / 8 * 8;
    uint64_t wp = win->pl + win->w;
    const uint64_t reach = (win->wo8 - 1) * win->sw + (win->kw - 1) * win->dw + 1;
    if (reach > wp) wp = reach;
    win->wp = (wp + 7) / 8 * 8;
    const uint64_t ring_row = win->wp * (ring_f32 ? 64 : 32);
    win->stage_slots = min_u64(MAX_STAGE_SLOTS, STAGE_BYTES / (win->wp * 32));
    win->ring_rows = RING_BYTES / ring_row;
    const uint64_t span = (win->kh - 1) * win->dh + 1;
    if (win->stage_slots < 2 || win->ring_rows < span || win->wo8 * 64 > ACC_BYTES) return 0;
    /* Vector strides: 8 pixels a repeat, f32 halves 16 * sw blocks apart. */
    if ((ring_f32 ? 16 : 8) * win->sw > 255) return 0;
    win->group_rows = (OUT_BYTES / 32 - (win->wo8 - win->wo)) / win->wo;
    if (win->group_rows == 0) return 0;
    return 1;
}

/* The block's share of the output rows and the cursors at its first row. */
static inline void window_start(Window* win) {
    const uint64_t items = win->planes * win->ho, blocks = block_dim(), b = block_idx();
    win->begin = items * b / blocks;
    win->end = items * (b + 1) / blocks;
    win->load_g = win->staged_g = win->cmp_gbase = 0;
    win->load_done = 1;
    win->cmp_plane = win->begin / win->ho;
    if (win->begin >= win->end) return;
    for (uint64_t p = win->begin / win->ho; p * win->ho < win->end; ++p) {
        uint64_t lo, hi;
        if (window_plane_rows(win, p, &lo, &hi)) {
            win->load_plane = p;
            win->load_ih = lo;
            win->load_done = 0;
            break;
        }
    }
}

static inline uint64_t stage_slot(const Window* win, uint64_t g) {
    return UB_STAGE + g % win->stage_slots * win->wp * 32;
}
static inline uint64_t ring_slot(const Window* win, uint64_t g) {
    return UB_RING + g % win->ring_rows * win->wp * (win->ring_f32 ? 64 : 32);
}

/* Padding value in every staging column (V, once, before the first load). */
static inline void window_open(const Window* win, uint64_t pad_bits) {
    vector_dup(UB_STAGE, pad_bits, vector_contiguous(STAGE_BYTES / 256, XD_F16));
    for (uint64_t i = 0; i < win->stage_slots; ++i) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0); /* both output buffers free */
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
}
static inline void window_close(Window* win) {
    while (win->staged_g < win->load_g) { /* rows loaded but never needed */
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        win->staged_g++;
    }
    for (uint64_t i = 0; i < win->stage_slots; ++i) wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
}

/* MTE2: the next row of the block's row sequence into its staging slot. */
static inline void window_load_next(Window* win) {
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    const uint8_t* src = win->in + ((win->load_plane * win->h + win->load_ih) * win->w) * 32;
    copy_gm_to_ubuf(stage_slot(win, win->load_g) + win->pl * 32, src, 1, win->w, 0, 0);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    win->load_g++;
    uint64_t lo, hi;
    window_plane_rows(win, win->load_plane, &lo, &hi);
    if (win->load_ih < hi) {
        win->load_ih++;
        return;
    }
    for (uint64_t p = win->load_plane + 1; p * win->ho < win->end; ++p)
        if (window_plane_rows(win, p, &lo, &hi)) {
            win->load_plane = p;
            win->load_ih = lo;
            return;
        }
    win->load_done = 1;
}

/* Loads as far ahead as the staging slots allow. */
static inline void window_prefetch(Window* win) {
    while (!win->load_done && win->load_g < win->staged_g + win->stage_slots) window_load_next(win);
}

/* V: staged rows up to (not including) g_limit into the ring. */
static inline void window_stage_upto(Window* win, uint64_t g_limit) {
    while (win->staged_g < g_limit) {
        window_prefetch(win);
        const uint64_t src = stage_slot(win, win->staged_g), dst = ring_slot(win, win->staged_g);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        if (win->ring_f32) { /* wp pixels = wp * 16 lanes, 64 a repeat */
            for (uint64_t done = 0; done < win->wp / 4;) {
                const uint64_t r = min_u64(MAX_REPEAT, win->wp / 4 - done);
                vconv(dst + done * 256, src + done * 128, XD_CONV_F16_F32, XD_ROUND_RINT,
                      vector_config(r, 1, 1, 1, 8, 4, 4, XD_F32));
                done += r;
            }
        } else {
            for (uint64_t done = 0; done < win->wp / 8;) {
                const uint64_t r = min_u64(MAX_REPEAT, win->wp / 8 - done);
                vor(dst + done * 256, src + done * 256, src + done * 256, vector_contiguous(r, XD_F16));
                done += r;
            }
        }
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        win->staged_g++;
    }
    window_prefetch(win);
}

/* Compute side: the ring slot of input row ih of plane p (0 if ih is in the
 * padding), staging it (and the rows before it) first. Planes are visited
 * in increasing order. */
static inline int window_row(Window* win, uint64_t p, int64_t ih, uint64_t* slot) {
    uint64_t lo, hi;
    while (win->cmp_plane < p) {
        win->cmp_gbase += window_plane_rows(win, win->cmp_plane, &lo, &hi);
        win->cmp_plane++;
    }
    if (ih < 0 || ih >= (int64_t)win->h) return 0;
    window_plane_rows(win, p, &lo, &hi);
    const uint64_t g = win->cmp_gbase + (uint64_t)ih - lo;
    window_stage_upto(win, g + 1);
    *slot = ring_slot(win, g);
    return 1;
}

/* Output groups: item i starts a group of min(group_rows, rows to the end of
 * its plane, rows to the end of the block) rows. */
static inline uint64_t window_group_rows(const Window* win, uint64_t item) {
    return min_u64(min_u64(win->group_rows, win->ho - item % win->ho), win->end - item);
}

/* MTE3: the group's rows (contiguous in GM) from output buffer q. */
static inline void window_store_group(const Window* win, uint64_t item, uint64_t rows, uint64_t q) {
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    copy_ubuf_to_gm(win->out + item * win->wo * 32, UB_OUT + q * OUT_BYTES, 1, rows * win->wo, 0, 0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
}

/* Vector configs over output rows of wo8 pixels (8 a repeat). */
/* f16 tap: dst contiguous, src every sw-th pixel. */
static inline uint64_t window_f16_tap_config(const Window* win) {
    return vector_config(win->wo8 / 8, 1, win->sw, 1, 8, 8 * win->sw, 8, XD_F16);
}
/* The same, as a copy: vor(dst, src, src) with both sources strided alike. */
static inline uint64_t window_f16_copy_config(const Window* win) {
    return vector_config(win->wo8 / 8, 1, win->sw, win->sw, 8, 8 * win->sw, 8 * win->sw, XD_F16);
}
/* f32 half-pixel tap (channels 0-7 or 8-15 of each pixel, 2 blocks a
 * pixel): dst and src1 every pixel, src0 every sw-th pixel. */
static inline uint64_t window_f32_tap_config(const Window* win) {
    return vector_config(win->wo8 / 8, 2, 2 * win->sw, 2, 16, 16 * win->sw, 16, XD_F32);
}
static inline uint64_t window_f32_copy_config(const Window* win) {
    return vector_config(win->wo8 / 8, 2, 2 * win->sw, 2 * win->sw, 16, 16 * win->sw, 16 * win->sw, XD_F32);
}
/* Contiguous f32 over a row of wo8 pixels. */
static inline uint64_t window_f32_row_config(const Window* win) {
    return vector_contiguous(win->wo8 / 4, XD_F32);
}
/* f32 row -> f16 row (dense result). */
static inline void window_row_to_f16(const Window* win, uint64_t dst, uint64_t src) {
    vconv(dst, src, XD_CONV_F32_F16, XD_ROUND_RINT, vector_config(win->wo8 / 4, 1, 1, 1, 4, 8, 8, XD_F32));
}

/* IEEE single bits of a small integer n (1 <= n < 2^24), computed without
 * floating point (kernels are rv64imac). */
static inline uint32_t f32_bits_of_uint(uint64_t n) {
    uint32_t e = 0;
    while ((n >> (e + 1)) != 0) e++;
    return ((127 + e) << 23) | (uint32_t)((n << (23 - e)) & 0x7fffff);
}

/* Read the window geometry shared by pool and dwconv. */
static inline void window_fault(void) { __builtin_trap(); }
