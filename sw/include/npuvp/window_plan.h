/*
 * The UB plan of the 5HD window kernels (op_pool.c, op_dwconv.c; their machinery is
 * sw/kernels/window_common.h): which window geometries fit its 256 KiB. One source of
 * truth for the kernels, which lay out UB from it, and the compiler, which splits a layer
 * whose rows do not fit into column strips (one launch per strip of output columns, rows
 * NPUVP_*_IN_ROW_PITCH / NPUVP_*_OUT_ROW_PITCH pixels apart in GM) and refuses a window
 * that no strip can hold.
 *
 * A ring row holds a strip's padded input row (WP pixels); up to 8 staging slots of WP
 * f16 pixels take the rows MTE2 loads; the f32 accumulator holds an output row (or a
 * flat group of rows, see window_common.h). Wide rows exhaust the staging area first
 * (32 KiB: about 500 pixels), tall windows the ring.
 */
#pragma once

#include <stdint.h>

enum {
    NPUVP_WINDOW_STAGE_BYTES = 32 << 10,  /* staging slots, from UB offset 0 */
    NPUVP_WINDOW_RING_END = 96 << 10,     /* the ring follows the slots up to here */
    NPUVP_WINDOW_OUT_BYTES = 16 << 10,    /* each of the two output buffers */
    NPUVP_WINDOW_ACC_BYTES = 32 << 10,    /* the f32 accumulator (and its temporary) */
    NPUVP_WINDOW_AUX_BYTES = 16 << 10,    /* pool: the divisor row; dwconv: expanded weights */
    NPUVP_WINDOW_WF32_BYTES = 8 << 10,    /* dwconv: weights in f32 (64 bytes a tap) */
    NPUVP_WINDOW_WSTAGE_BYTES = 4 << 10,  /* dwconv: a plane's weights f16 + bias f32 as loaded */
    NPUVP_WINDOW_MAX_STAGE_SLOTS = 8,
    NPUVP_WINDOW_MAX_REPEAT = 255,        /* repeats per vector instruction */
};

/* A launch's window over one strip: input columns w (the strip's, pl padding columns
 * before them), output columns wo. */
struct npuvp_window_geometry {
    uint64_t w, wo, kh, kw, sh, sw, pl, dh, dw;
};

/* The UB layout of a geometry (window_plan in window_common.h packs it into configs). */
struct npuvp_window_rows {
    uint64_t wp, wo8;          /* UB row pixels; output pixels computed per row (row by row) */
    uint64_t row_bytes;        /* of a ring row */
    uint64_t stage_slots, ring_base, ring_rows, group_rows; /* slots and ring rows: powers of two */
    int flat;                  /* groups of rows computed as one run (window_common.h) */
};

static inline uint64_t npuvp_window_floor_pow2(uint64_t n) {
    uint64_t p = 1;
    while (p * 2 <= n) p *= 2;
    return n ? p : 0;
}
static inline uint64_t npuvp_window_min(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Lays out UB for geometry g (ring rows in f32 when ring_f32, else f16 copies); returns 0
 * if its rows do not fit. */
static inline int npuvp_window_rows_plan(const struct npuvp_window_geometry* g, int ring_f32,
                                         struct npuvp_window_rows* r) {
    r->wo8 = (g->wo + 7) / 8 * 8;
    uint64_t wp = g->pl + g->w;
    const uint64_t reach = (r->wo8 - 1) * g->sw + (g->kw - 1) * g->dw + 1;
    if (reach > wp) wp = reach;
    r->wp = (wp + 7) / 8 * 8;
    const uint64_t pixel = ring_f32 ? 64 : 32, span = (g->kh - 1) * g->dh + 1;
    r->row_bytes = r->wp * pixel;
    if (r->wp / (ring_f32 ? 4 : 8) > NPUVP_WINDOW_MAX_REPEAT) return 0; /* one transform instruction a row */
    /* Powers of two: slot = g & (slots - 1) (the scalar unit's divide is slow). */
    r->stage_slots = npuvp_window_floor_pow2(
        npuvp_window_min(NPUVP_WINDOW_MAX_STAGE_SLOTS, NPUVP_WINDOW_STAGE_BYTES / (r->wp * 32)));
    if (r->stage_slots < 2 || r->wo8 * 64 > NPUVP_WINDOW_ACC_BYTES) return 0;
    r->ring_base = (r->stage_slots * r->wp * 32 + 255) / 256 * 256;
    const uint64_t ring_bytes = NPUVP_WINDOW_RING_END - r->ring_base;
    /* Vector strides: 8 pixels a repeat, f32 halves 16 * sw blocks apart. */
    if ((ring_f32 ? 16 : 8) * g->sw > 255) return 0;
    /* Flat: mirrored ring, T rows of WP pixels in the accumulator, the output and residual
     * buffers and one instruction's 255 repeats. */
    r->flat = 0;
    if (g->sh == g->sw) {
        r->ring_rows = npuvp_window_floor_pow2(ring_bytes / (2 * r->row_bytes));
        uint64_t t = r->ring_rows >= span ? (r->ring_rows - span) / g->sh + 1 : 0;
        t = npuvp_window_min(t, NPUVP_WINDOW_ACC_BYTES / (r->wp * 64));
        t = npuvp_window_min(t, NPUVP_WINDOW_OUT_BYTES / (r->wp * 32));
        t = npuvp_window_min(t, NPUVP_WINDOW_MAX_REPEAT * (ring_f32 ? 4 : 8) / r->wp);
        if (t >= 2) {
            r->flat = 1;
            r->group_rows = t;
            return 1;
        }
    }
    r->ring_rows = npuvp_window_floor_pow2(ring_bytes / r->row_bytes);
    if (r->ring_rows < span) return 0;
    if (r->wo8 - g->wo > NPUVP_WINDOW_OUT_BYTES / 32) return 0;
    r->group_rows = (NPUVP_WINDOW_OUT_BYTES / 32 - (r->wo8 - g->wo)) / g->wo;
    return r->group_rows != 0;
}

/* Output pixels computed for one output row (the pool's divisor row holds as many). */
static inline uint64_t npuvp_window_row_pixels(const struct npuvp_window_rows* r) { return r->flat ? r->wp : r->wo8; }

/* Whether an average pool's divisor row (f32, one pixel per output pixel of a row) fits. */
static inline int npuvp_pool_divisors_fit(uint64_t row_pixels, int average) {
    return !average || row_pixels * 64 <= NPUVP_WINDOW_AUX_BYTES;
}
/* Whether op_pool runs geometry g (max: f16 ring; average: f32 ring and a divisor row). */
static inline int npuvp_pool_window_fits(const struct npuvp_window_geometry* g, int average) {
    struct npuvp_window_rows r;
    return npuvp_window_rows_plan(g, average, &r) && npuvp_pool_divisors_fit(npuvp_window_row_pixels(&r), average);
}

/* Taps of a depthwise kernel op_dwconv holds (its weights in f32, and as loaded). */
static inline int npuvp_dwconv_taps_fit(uint64_t taps) {
    return taps * 64 <= NPUVP_WINDOW_WF32_BYTES && taps * 32 + 64 <= NPUVP_WINDOW_WSTAGE_BYTES;
}
/* The most taps it holds (126). */
static inline uint64_t npuvp_dwconv_max_taps(void) {
    const uint64_t in_f32 = NPUVP_WINDOW_WF32_BYTES / 64, as_loaded = (NPUVP_WINDOW_WSTAGE_BYTES - 64) / 32;
    return in_f32 < as_loaded ? in_f32 : as_loaded;
}
/* Whether op_dwconv runs geometry g (f32 ring). */
static inline int npuvp_dwconv_window_fits(const struct npuvp_window_geometry* g) {
    struct npuvp_window_rows r;
    return npuvp_dwconv_taps_fit(g->kh * g->kw) && npuvp_window_rows_plan(g, 1, &r);
}
