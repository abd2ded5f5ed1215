/*
 * Pooling over 5HD (slot 10, NPUVP_OP_KERNEL_POOL): N x C1 x H x W x 16 f16
 * -> N x C1 x HO x WO x 16, max or average (count_include_pad 0 or 1) with
 * kernel KH x KW, strides, top/left pads and dilations
 * (sw/include/npuvp/operator_kernels.h has the argument words). Output
 * pixel (oh, ow) reduces input pixels (oh*SH - PT + i*DH, ow*SW - PL + j*DW);
 * pixels outside the map are -inf for max and left out of the sum for
 * average. The average divides by the number of taps inside the map
 * (NPUVP_POOL_AVERAGE) or by KH * KW (NPUVP_POOL_AVERAGE_INCLUDE_PAD).
 *
 * A pixel is one 32-byte block of 16 channels, so one vector repeat covers
 * 8 output pixels and one instruction a whole output row per tap (the
 * source pixels SW blocks apart). Rows come through window_common.h (each
 * input row loaded once per block, padded columns pre-filled).
 *  - max: in f16 (exact): the first tap copies (vor), the others vmax.
 *  - average: input rows converted to f32 once; per tap two vadds (the two
 *    8-channel halves of each 2-block f32 pixel), then one vdiv by the tap
 *    count row (f32, exact division), then f32 -> f16 (nearest even).
 *  - global (the window is the whole map, no padding: GlobalAveragePool /
 *    GlobalMaxPool): the plane streams through UB in chunks of up to 1024
 *    pixels, each chunk folded into a 4-pixel (f32 sum) or 8-pixel (f16
 *    max) accumulator by ONE instruction whose destination repeat stride is
 *    0 (repeat r adds chunk repeat r to what repeats 0..r-1 left), then
 *    the accumulator's pixels are folded the same way.
 * Blocks split N x C1 x HO output rows (global: the N x C1 planes).
 */
#include "npuvp/operator_kernels.h"

#include "window_common.h"

typedef struct {
    Window win;
    uint64_t mode;
} Pool;

/* ---- General windows ---------------------------------------------------- */

/* Kernel rows of output row oh inside the map (the average's row count). */
static uint64_t rows_inside(const Window* win, uint64_t oh) {
    uint64_t n = 0;
    for (uint64_t i = 0; i < win->kh; ++i) {
        const int64_t ih = (int64_t)(oh * win->sh + i * win->dh) - (int64_t)win->pt;
        n += ih >= 0 && ih < (int64_t)win->h;
    }
    return n ? n : 1;
}

/* Max of output rows [oh0, oh0 + rows) of plane p into f16 pixels at dst:
 * flat (rows * WP pixels, one instruction a tap) or one row (rows = 1,
 * WO8 pixels). */
static void max_rows(Pool* pool, uint64_t p, uint64_t oh0, uint64_t rows, uint64_t dst) {
    Window* win = &pool->win;
    const uint64_t pixels = window_row_pixels(win, rows), column_step = win->dw * 32;
    const uint64_t tap = window_f16_tap_config(win, pixels), copy = window_f16_copy_config(win, pixels);
    const int64_t ih0 = (int64_t)(oh0 * win->sh) - (int64_t)win->pt;
    int first = 1;
    for (uint64_t i = 0; i < win->kh; ++i) {
        const int64_t ih = ih0 + (int64_t)(i * win->dh);
        window_row(win, p, ih + (int64_t)((rows - 1) * win->sh)); /* stage the group's last row */
        uint64_t src = window_row(win, p, ih);
        for (uint64_t j = 0; j < win->kw; ++j, src += column_step) {
            if (first) vor(dst, src, src, copy);
            else vmax(dst, src, dst, tap);
            first = 0;
        }
    }
}

/* Sum (f32, WIN_ACC) of output rows [oh0, oh0 + rows) of plane p. With unit
 * stride whole pixels (4 a repeat), else the two 8-channel halves apart. */
static void sum_rows(Pool* pool, uint64_t p, uint64_t oh0, uint64_t rows) {
    Window* win = &pool->win;
    const uint64_t pixels = window_row_pixels(win, rows), column_step = win->dw * 64;
    const uint64_t whole = window_f32_pixels_config(pixels);
    const uint64_t half = window_f32_tap_config(win, pixels), half_copy = window_f32_copy_config(win, pixels);
    const int64_t ih0 = (int64_t)(oh0 * win->sh) - (int64_t)win->pt;
    int first = 1;
    for (uint64_t i = 0; i < win->kh; ++i) {
        const int64_t ih = ih0 + (int64_t)(i * win->dh);
        window_row(win, p, ih + (int64_t)((rows - 1) * win->sh));
        uint64_t src = window_row(win, p, ih);
        for (uint64_t j = 0; j < win->kw; ++j, src += column_step) {
            if (win->sw == 1) {
                if (first) vor(WIN_ACC, src, src, whole);
                else vadd(WIN_ACC, src, WIN_ACC, whole);
            } else {
                for (uint64_t h = 0; h < 64; h += 32) {
                    if (first) vor(WIN_ACC + h, src + h, src + h, half_copy);
                    else vadd(WIN_ACC + h, src + h, WIN_ACC + h, half);
                }
            }
            first = 0;
        }
    }
}

/* WIN_AUX: per output column (WP of them when flat, else WO8), the number
 * of kernel columns inside the map (KW when padding counts), as f32 in all
 * 16 lanes of the pixel. Written by the scalar unit through its UB window
 * (docs/ai-core.md). */
static void write_column_counts(const Pool* pool) {
    const Window* win = &pool->win;
    volatile uint32_t* row = (volatile uint32_t*)(uintptr_t)(0x101000000ull + WIN_AUX);
    const uint64_t columns = window_row_pixels(win, 1);
    for (uint64_t ow = 0; ow < columns; ++ow) {
        uint64_t n = 0;
        for (uint64_t j = 0; j < win->kw; ++j) {
            const int64_t iw = (int64_t)(ow * win->sw + j * win->dw) - (int64_t)win->pl;
            n += pool->mode == NPUVP_POOL_AVERAGE_INCLUDE_PAD || (iw >= 0 && iw < (int64_t)win->w);
        }
        const uint32_t bits = window_f32_bits_of_uint(n ? n : 1);
        for (uint64_t c = 0; c < 16; ++c) row[ow * 16 + c] = bits;
    }
}

/* Average of output rows [oh0, oh0 + rows) into f16 pixels at dst: the sum
 * divided (exact f32 division) by column count x row count. */
static void average_rows(Pool* pool, uint64_t p, uint64_t oh0, uint64_t rows, uint64_t dst) {
    Window* win = &pool->win;
    const uint64_t columns = window_row_pixels(win, 1), pixels = window_row_pixels(win, rows);
    sum_rows(pool, p, oh0, rows);
    for (uint64_t t = 0; t < rows; ++t) {
        const uint64_t r = pool->mode == NPUVP_POOL_AVERAGE_INCLUDE_PAD ? win->kh : rows_inside(win, oh0 + t);
        vmuls(WIN_TMP + t * columns * 64, WIN_AUX, window_f32_bits_of_uint(r), window_f32_pixels_config(columns));
    }
    vdiv(WIN_ACC, WIN_ACC, WIN_TMP, window_f32_pixels_config(pixels));
    window_to_f16(dst, WIN_ACC, pixels);
}

static void pool_windows(Pool* pool) {
    Window* win = &pool->win;
    const int average = pool->mode != NPUVP_POOL_MAX;
    if (!window_plan(win, average, average ? 0 : WIN_F16_NEG_INF) ||
        !npuvp_pool_divisors_fit(window_row_pixels(win, 1), average))
        window_fault();
    window_start(win);
    if (win->begin >= win->end) return;
    if (average) write_column_counts(pool);
    window_open(win);
    uint64_t q = 0;
    for (uint64_t item = win->begin; item < win->end; q ^= 1) {
        const uint64_t rows = window_group_rows(win, item), p = item / win->ho, oh0 = item % win->ho;
        const uint64_t out = WIN_OUT + q * WIN_OUT_BYTES;
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
        if (win->rows.flat) {
            if (average) average_rows(pool, p, oh0, rows, out);
            else max_rows(pool, p, oh0, rows, out);
        } else {
            for (uint64_t t = 0; t < rows; ++t) {
                if (average) average_rows(pool, p, oh0 + t, 1, out + t * win->wo * 32);
                else max_rows(pool, p, oh0 + t, 1, out + t * win->wo * 32);
            }
        }
        window_store_group(win, item, rows, q);
        item += rows;
    }
    window_close(win);
}

/* ---- Global pooling ------------------------------------------------------ */

enum {
    GLOBAL_CHUNK = 1024,            /* pixels per chunk */
    MAX_PLANES_PER_CHUNK = 64,
    G_STAGE = 0,                    /* two f16 chunks of 32 KiB */
    G_F32 = 64 << 10,               /* the chunk in f32, 64 KiB */
    G_ACC = 128 << 10,              /* per plane of a chunk: 4 f32 or 8 f16 pixels (256 bytes) */
    G_OUT = G_ACC + MAX_PLANES_PER_CHUNK * 256, /* two buffers of 64 output pixels */
    G_DIVISOR = G_OUT + 2 * MAX_PLANES_PER_CHUNK * 32, /* 16 f32 lanes */
};

static int is_global(const Window* win) {
    return win->ho == 1 && win->wo == 1 && win->pt == 0 && win->pl == 0 && win->dh == 1 && win->dw == 1 &&
           win->kh >= win->h && win->kw >= win->w;
}

/* Vector configs of the global path, packed once (see win_opaque). */
typedef struct {
    int average;
    uint64_t type, per_repeat; /* f32: 4 pixels a repeat, f16: 8 */
    uint64_t one, tail, fold_pixels, to_f16;
} Global;

static void global_plan(Global* g, int average) {
    g->average = average;
    g->type = average ? XD_F32 : XD_F16;
    g->per_repeat = average ? 4 : 8;
    g->one = win_opaque(vector_contiguous(1, g->type));
    g->tail = win_opaque(vector_config(1, 1, 1, 1, 0, 8, 0, g->type));
    /* Fold the accumulator's 4 (8) pixels into its first: repeat r adds
     * pixel r + 1 (mask: the first pixel's 16 lanes). */
    g->fold_pixels = win_opaque(average ? vector_config(3, 1, 1, 1, 0, 2, 0, XD_F32)
                                        : vector_config(7, 1, 1, 1, 0, 1, 0, XD_F16));
    g->to_f16 = win_opaque(vector_config(1, 1, 1, 1, 4, 8, 8, XD_F32));
}

/* Folds `pixels` pixels at src into the accumulator acc: repeat r of the
 * instruction adds (max-es) the r-th group of 4 f32 (8 f16) pixels into the
 * same accumulator (dst and src1 repeat stride 0). */
static void fold_into_acc(const Global* g, uint64_t acc, uint64_t src, uint64_t pixels) {
    const uint64_t whole = pixels / g->per_repeat, tail = pixels % g->per_repeat;
    for (uint64_t done = 0; done < whole;) {
        const uint64_t r = min_u64(MAX_REPEAT, whole - done);
        const uint64_t config = vector_config(r, 1, 1, 1, 0, 8, 0, g->type);
        if (g->average) vadd(acc, src + done * 256, acc, config);
        else vmax(acc, src + done * 256, acc, config);
        done += r;
    }
    if (tail) {
        set_mask_lanes(tail * 16);
        if (g->average) vadd(acc, src + whole * 256, acc, g->tail);
        else vmax(acc, src + whole * 256, acc, g->tail);
        set_mask_all();
    }
}

/* The plane's result (accumulator acc) as one f16 pixel at out. */
static void finish_plane(const Global* g, uint64_t acc, uint64_t out) {
    set_mask_lanes(16);
    if (g->average) {
        vadd(acc, acc + 64, acc, g->fold_pixels);
        vdiv(acc, acc, G_DIVISOR, g->one);
        vconv(out, acc, XD_CONV_F32_F16, XD_ROUND_RINT, g->to_f16);
    } else {
        vmax(acc, acc + 32, acc, g->fold_pixels);
        vor(out, acc, acc, g->one);
    }
    set_mask_all();
}

/* A chunk: `planes` whole planes (small maps) or one piece of one plane. */
typedef struct {
    uint64_t plane, planes, first_pixel, pixels;
} Chunk;

/* The block's planes [begin, end) as a sequence of chunks; returns the next. */
static void next_chunk(const Window* win, uint64_t end, Chunk* c) {
    const uint64_t hw = win->h * win->w;
    if (c->first_pixel + c->pixels < hw && c->planes == 1) { /* the next piece of a large plane */
        c->first_pixel += c->pixels;
    } else {
        c->plane += c->planes;
        c->first_pixel = 0;
    }
    if (hw <= GLOBAL_CHUNK) {
        c->planes = min_u64(min_u64(GLOBAL_CHUNK / hw, MAX_PLANES_PER_CHUNK), end - c->plane);
        c->pixels = c->planes * hw;
    } else {
        c->planes = 1;
        c->pixels = min_u64(GLOBAL_CHUNK, hw - c->first_pixel);
    }
}

static void pool_global(Pool* pool) {
    const Window* win = &pool->win;
    Global g;
    global_plan(&g, pool->mode != NPUVP_POOL_MAX);
    const uint64_t hw = win->h * win->w;
    const uint64_t blocks = block_dim(), b = block_idx();
    const uint64_t begin = win->planes * b / blocks, end = win->planes * (b + 1) / blocks;
    if (begin >= end) return;
    const uint64_t count = pool->mode == NPUVP_POOL_AVERAGE_INCLUDE_PAD ? win->kh * win->kw : hw;
    if (g.average) vector_dup(G_DIVISOR, window_f32_bits_of_uint(count), g.one);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    /* Chunks are loaded one ahead of their reduction. */
    Chunk load = {begin, 0, 0, 0}, work = load;
    next_chunk(win, end, &load);
    uint64_t s = 0, q = 0;
    int have_work = 0;
    for (;;) {
        const int have_load = load.plane < end;
        if (have_load) { /* MTE2 */
            WAIT_FLAG01(PIPE_V, PIPE_MTE2, s);
            copy_gm_to_ubuf(G_STAGE + s * (32 << 10), win->in + (load.plane * hw + load.first_pixel) * 32, 1,
                            load.pixels, 0, 0);
            SET_FLAG01(PIPE_MTE2, PIPE_V, s);
        }
        if (have_work) { /* V (+ MTE3 when planes end) */
            const uint64_t ws = s ^ 1, stage = G_STAGE + ws * (32 << 10);
            uint64_t src = stage;
            WAIT_FLAG01(PIPE_MTE2, PIPE_V, ws);
            if (g.average) { /* f16 -> f32, whole repeats (the tail lanes masked later) */
                const uint64_t repeats = ceil_div(work.pixels, 4);
                for (uint64_t done = 0; done < repeats;) {
                    const uint64_t r = min_u64(MAX_REPEAT, repeats - done);
                    vconv(G_F32 + done * 256, stage + done * 128, XD_CONV_F16_F32, XD_ROUND_RINT,
                          vector_config(r, 1, 1, 1, 8, 4, 4, XD_F32));
                    done += r;
                }
                SET_FLAG01(PIPE_V, PIPE_MTE2, ws);
                src = G_F32;
            }
            const uint64_t pixel_bytes = g.average ? 64 : 32, per_plane = work.planes > 1 ? hw : work.pixels;
            const int ends = work.first_pixel + work.pixels >= hw;
            if (ends) WAIT_FLAG01(PIPE_MTE3, PIPE_V, q);
            for (uint64_t i = 0; i < work.planes; ++i) {
                const uint64_t acc = G_ACC + (work.planes > 1 ? i : 0) * 256;
                if (work.first_pixel == 0)
                    vector_dup(acc, g.average ? 0 : WIN_F16_NEG_INF, g.one);
                fold_into_acc(&g, acc, src + i * per_plane * pixel_bytes, per_plane);
                if (ends) finish_plane(&g, acc, G_OUT + q * MAX_PLANES_PER_CHUNK * 32 + i * 32);
            }
            if (!g.average) SET_FLAG01(PIPE_V, PIPE_MTE2, ws);
            if (ends) {
                SET_FLAG01(PIPE_V, PIPE_MTE3, q);
                WAIT_FLAG01(PIPE_V, PIPE_MTE3, q);
                copy_ubuf_to_gm(win->out + work.plane * 32, G_OUT + q * MAX_PLANES_PER_CHUNK * 32, 1, work.planes,
                                0, 0);
                SET_FLAG01(PIPE_MTE3, PIPE_V, q);
                q ^= 1;
            }
        }
        if (!have_load) break;
        work = load;
        have_work = 1;
        next_chunk(win, end, &load);
        s ^= 1;
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
}

void kernel_main(const uint64_t* args) {
    Pool pool;
    Window* win = &pool.win;
    pool.mode = args[NPUVP_POOL_MODE];
    win->in = (const uint8_t*)(uintptr_t)args[NPUVP_POOL_IN];
    win->out = (uint8_t*)(uintptr_t)args[NPUVP_POOL_OUT];
    win->planes = args[NPUVP_POOL_N] * args[NPUVP_POOL_C1];
    win->h = args[NPUVP_POOL_H];
    win->w = args[NPUVP_POOL_W];
    win->ho = args[NPUVP_POOL_HO];
    win->wo = args[NPUVP_POOL_WO];
    win->kh = args[NPUVP_POOL_KH];
    win->kw = args[NPUVP_POOL_KW];
    win->sh = args[NPUVP_POOL_STRIDE_H];
    win->sw = args[NPUVP_POOL_STRIDE_W];
    win->pt = args[NPUVP_POOL_PAD_TOP];
    win->pl = args[NPUVP_POOL_PAD_LEFT];
    win->dh = args[NPUVP_POOL_DILATION_H] ? args[NPUVP_POOL_DILATION_H] : 1;
    win->dw = args[NPUVP_POOL_DILATION_W] ? args[NPUVP_POOL_DILATION_W] : 1;
    if (pool.mode > NPUVP_POOL_AVERAGE_INCLUDE_PAD || win->kh == 0 || win->kw == 0 || win->sh == 0 ||
        win->sw == 0)
        window_fault();
    win->in_pitch = args[NPUVP_POOL_IN_ROW_PITCH] ? args[NPUVP_POOL_IN_ROW_PITCH] : win->w;
    win->out_pitch = args[NPUVP_POOL_OUT_ROW_PITCH] ? args[NPUVP_POOL_OUT_ROW_PITCH] : win->wo;
    if (win->planes == 0 || win->ho == 0 || win->wo == 0) return;
    if (is_global(win) && win->in_pitch == win->w && win->out_pitch == win->wo) pool_global(&pool);
    else pool_windows(&pool);
}
