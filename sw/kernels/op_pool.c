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

/* Taps of output row (p, oh) into the f16 output row `dst` (max). */
static void max_row(Pool* pool, uint64_t p, uint64_t oh, uint64_t dst) {
    Window* win = &pool->win;
    const uint64_t config = window_f16_tap_config(win), copy = window_f16_copy_config(win);
    int first = 1;
    for (uint64_t i = 0; i < win->kh; ++i) {
        uint64_t slot;
        if (!window_row(win, p, (int64_t)(oh * win->sh + i * win->dh) - (int64_t)win->pt, &slot)) continue;
        for (uint64_t j = 0; j < win->kw; ++j) {
            const uint64_t src = slot + j * win->dw * 32;
            if (first) vor(dst, src, src, copy);
            else vmax(dst, src, dst, config);
            first = 0;
        }
    }
    if (first) vector_dup(dst, F16_NEG_INF, vector_contiguous(win->wo8 / 8, XD_F16));
}

/* Taps of output row (p, oh) summed in f32 into UB_ACC; returns the number
 * of kernel rows inside the map. */
static uint64_t sum_row(Pool* pool, uint64_t p, uint64_t oh) {
    Window* win = &pool->win;
    const uint64_t config = window_f32_tap_config(win), copy = window_f32_copy_config(win);
    uint64_t rows = 0;
    int first = 1;
    for (uint64_t i = 0; i < win->kh; ++i) {
        uint64_t slot;
        if (!window_row(win, p, (int64_t)(oh * win->sh + i * win->dh) - (int64_t)win->pt, &slot)) continue;
        rows++;
        for (uint64_t j = 0; j < win->kw; ++j) {
            for (uint64_t half = 0; half < 2; ++half) {
                const uint64_t src = slot + j * win->dw * 64 + half * 32, acc = UB_ACC + half * 32;
                if (first) vor(acc, src, src, copy);
                else vadd(acc, src, acc, config);
            }
            first = 0;
        }
    }
    if (first) vector_dup(UB_ACC, 0, window_f32_row_config(win));
    return rows;
}

/* UB_AUX: per output column, the number of kernel columns inside the map
 * (KW when padding counts), as f32 in all 16 lanes of the pixel. Written by
 * the scalar unit through its UB window (docs/ai-core.md). */
static void write_column_counts(const Pool* pool) {
    const Window* win = &pool->win;
    volatile uint32_t* row = (volatile uint32_t*)(uintptr_t)(0x101000000ull + UB_AUX);
    for (uint64_t ow = 0; ow < win->wo8; ++ow) {
        uint64_t n = 0;
        for (uint64_t j = 0; j < win->kw; ++j) {
            const int64_t iw = (int64_t)(ow * win->sw + j * win->dw) - (int64_t)win->pl;
            n += pool->mode == NPUVP_POOL_AVERAGE_INCLUDE_PAD || (iw >= 0 && iw < (int64_t)win->w);
        }
        const uint32_t bits = f32_bits_of_uint(n ? n : 1);
        for (uint64_t c = 0; c < 16; ++c) row[ow * 16 + c] = bits;
    }
}

static void pool_windows(Pool* pool) {
    Window* win = &pool->win;
    const int average = pool->mode != NPUVP_POOL_MAX;
    if (!window_plan(win, average)) window_fault();
    window_start(win);
    if (win->begin >= win->end) return;
    if (average) write_column_counts(pool);
    window_open(win, average ? 0 : F16_NEG_INF);
    uint64_t q = 0;
    for (uint64_t item = win->begin; item < win->end; q ^= 1) {
        const uint64_t rows = window_group_rows(win, item), p = item / win->ho, oh0 = item % win->ho;
        const uint64_t out = UB_OUT + q * OUT_BYTES;
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
        for (uint64_t t = 0; t < rows; ++t) {
            const uint64_t dst = out + t * win->wo * 32;
            if (!average) {
                max_row(pool, p, oh0 + t, dst);
                continue;
            }
            const uint64_t kernel_rows = sum_row(pool, p, oh0 + t);
            uint64_t divisor = UB_AUX;
            if (pool->mode == NPUVP_POOL_AVERAGE_INCLUDE_PAD) {
                vmuls(UB_TMP, UB_AUX, f32_bits_of_uint(win->kh), window_f32_row_config(win));
                divisor = UB_TMP;
            } else if (kernel_rows != 1) {
                vmuls(UB_TMP, UB_AUX, f32_bits_of_uint(kernel_rows ? kernel_rows : 1), window_f32_row_config(win));
                divisor = UB_TMP;
            }
            vdiv(UB_ACC, UB_ACC, divisor, window_f32_row_config(win));
            window_row_to_f16(win, dst, UB_ACC);
        }
        window_store_group(win, item, rows, q);
        item += rows;
    }
    window_close(win);
}

/* ---- Global pooling ------------------------------------------------------ */

enum {
    GLOBAL_CHUNK = 1024,            /* pixels per chunk */
    G_STAGE = 0,                    /* two f16 chunks of 32 KiB */
    G_F32 = 64 << 10,               /* the chunk in f32, 64 KiB */
    G_ACC = 128 << 10,              /* 4 f32 or 8 f16 pixels */
    G_DIVISOR = G_ACC + 256,        /* 16 f32 lanes */
    G_OUT = G_ACC + 512,            /* two 32-byte output pixels */
};

static int is_global(const Window* win) {
    return win->ho == 1 && win->wo == 1 && win->pt == 0 && win->pl == 0 && win->dh == 1 && win->dw == 1 &&
           win->kh >= win->h && win->kw >= win->w;
}

/* Folds `pixels` pixels at src into the accumulator: repeat r of the
 * instruction adds (max-es) the r-th group of 4 f32 (8 f16) pixels into the
 * same accumulator (dst and src1 repeat stride 0). */
static void fold_into_acc(uint64_t src, uint64_t pixels, int average) {
    const uint64_t per_repeat = average ? 4 : 8, whole = pixels / per_repeat, tail = pixels % per_repeat;
    const uint64_t type = average ? XD_F32 : XD_F16;
    for (uint64_t done = 0; done < whole;) {
        const uint64_t r = min_u64(MAX_REPEAT, whole - done);
        const uint64_t config = vector_config(r, 1, 1, 1, 0, 8, 0, type);
        if (average) vadd(G_ACC, src + done * 256, G_ACC, config);
        else vmax(G_ACC, src + done * 256, G_ACC, config);
        done += r;
    }
    if (tail) {
        set_mask_lanes(tail * 16);
        const uint64_t config = vector_config(1, 1, 1, 1, 0, 8, 0, type);
        if (average) vadd(G_ACC, src + whole * 256, G_ACC, config);
        else vmax(G_ACC, src + whole * 256, G_ACC, config);
        set_mask_all();
    }
}

static void pool_global(Pool* pool) {
    const Window* win = &pool->win;
    const int average = pool->mode != NPUVP_POOL_MAX;
    const uint64_t hw = win->h * win->w, chunks = ceil_div(hw, GLOBAL_CHUNK);
    const uint64_t blocks = block_dim(), b = block_idx();
    const uint64_t begin = win->planes * b / blocks, end = win->planes * (b + 1) / blocks;
    if (begin >= end) return;
    const uint64_t count = pool->mode == NPUVP_POOL_AVERAGE_INCLUDE_PAD ? win->kh * win->kw : hw;
    if (average) vector_dup(G_DIVISOR, f32_bits_of_uint(count), vector_contiguous(1, XD_F32));
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    const uint64_t items = (end - begin) * chunks;
    /* Item k = chunk k % chunks of plane begin + k / chunks; loads run one ahead. */
    for (uint64_t k = 0; k <= items; ++k) {
        if (k < items) {
            const uint64_t p = begin + k / chunks, c = k % chunks, s = k & 1;
            const uint64_t pixels = min_u64(GLOBAL_CHUNK, hw - c * GLOBAL_CHUNK);
            WAIT_FLAG01(PIPE_V, PIPE_MTE2, s);
            copy_gm_to_ubuf(G_STAGE + s * (32 << 10), win->in + (p * hw + c * GLOBAL_CHUNK) * 32, 1, pixels, 0, 0);
            SET_FLAG01(PIPE_MTE2, PIPE_V, s);
        }
        if (k == 0) continue;
        const uint64_t u = k - 1, p = begin + u / chunks, c = u % chunks, s = u & 1;
        const uint64_t pixels = min_u64(GLOBAL_CHUNK, hw - c * GLOBAL_CHUNK), stage = G_STAGE + s * (32 << 10);
        if (c == 0) vector_dup(G_ACC, average ? 0 : F16_NEG_INF, vector_contiguous(1, average ? XD_F32 : XD_F16));
        WAIT_FLAG01(PIPE_MTE2, PIPE_V, s);
        if (average) {
            for (uint64_t done = 0; done < ceil_div(pixels, 4);) {
                const uint64_t r = min_u64(MAX_REPEAT, ceil_div(pixels, 4) - done);
                vconv(G_F32 + done * 256, stage + done * 128, XD_CONV_F16_F32, XD_ROUND_RINT,
                      vector_config(r, 1, 1, 1, 8, 4, 4, XD_F32));
                done += r;
            }
            SET_FLAG01(PIPE_V, PIPE_MTE2, s);
            fold_into_acc(G_F32, pixels, 1);
        } else {
            fold_into_acc(stage, pixels, 0);
            SET_FLAG01(PIPE_V, PIPE_MTE2, s);
        }
        if (c + 1 < chunks) continue;
        /* Plane done: fold the accumulator's pixels into its first, divide,
         * convert, store. */
        const uint64_t q = (p - begin) & 1, out = G_OUT + q * 32;
        set_mask_lanes(16);
        WAIT_FLAG01(PIPE_MTE3, PIPE_V, q);
        if (average) {
            vadd(G_ACC, G_ACC + 64, G_ACC, vector_config(3, 1, 1, 1, 0, 2, 0, XD_F32));
            vdiv(G_ACC, G_ACC, G_DIVISOR, vector_contiguous(1, XD_F32));
            vconv(out, G_ACC, XD_CONV_F32_F16, XD_ROUND_RINT, vector_config(1, 1, 1, 1, 4, 8, 8, XD_F32));
        } else {
            vmax(G_ACC, G_ACC + 32, G_ACC, vector_config(7, 1, 1, 1, 0, 1, 0, XD_F16));
            vor(out, G_ACC, G_ACC, vector_contiguous(1, XD_F16));
        }
        set_mask_all();
        SET_FLAG01(PIPE_V, PIPE_MTE3, q);
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, q);
        copy_ubuf_to_gm(win->out + p * 32, out, 1, 1, 0, 0);
        SET_FLAG01(PIPE_MTE3, PIPE_V, q);
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
    if (win->planes == 0 || win->ho == 0 || win->wo == 0) return;
    if (is_global(win)) pool_global(&pool);
    else pool_windows(&pool);
}
