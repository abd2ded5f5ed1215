/*
 * Depthwise convolution on the Vector unit (slot 12, NPUVP_OP_KERNEL_DWCONV):
 * groups = C, 5HD in and out, y = act(dwconv(x) + bias + residual)
 * (sw/include/npuvp/operator_kernels.h has the argument words). Weights f16
 * [C1][KH][KW][16], bias f32[C1 * 16] (optional), residual f16 5HD of the
 * output's shape (optional), activation NONE / RELU / CLIP.
 *   HO = (H + PT + PB - DH*(KH-1) - 1) / SH + 1, WO likewise.
 *
 * Numerics: input rows and weights are converted to f32 (exact), each
 * product is an f32 multiplication of exact f16 values (exact), the sum is
 * accumulated in f32 in kernel order (row i, column j), then the bias, the
 * residual (converted to f32) and the activation are applied in f32 and the
 * result rounded once to f16 (nearest even). Padded channels (C .. C1*16 of
 * the last group) are written as zeros whatever the activation.
 *
 * Per output row (8 pixels = 16 f32 blocks a repeat, the two 8-channel
 * halves of each pixel in separate instructions): per tap two vmuls (the
 * tap's f32 weights broadcast with block and repeat stride 0) and one
 * contiguous vadd into the f32 accumulator; then bias, residual,
 * activation, f32 -> f16. Input rows come through window_common.h (each
 * loaded once per block, padding columns zero, converted to f32 once);
 * weights and bias are loaded and converted when the plane changes; the
 * residual of the next output group is loaded while this one is computed.
 * Blocks split N x C1 x HO output rows.
 */
#include "npuvp/operator_kernels.h"

#include "window_common.h"

typedef struct {
    Window win;
    const uint8_t* weights;
    const uint8_t* bias;
    const uint8_t* residual;
    uint64_t c, c1, act, clip_min, clip_max;
    uint64_t weights_plane; /* plane whose weights are in UB (~0: none) */
    int expanded;           /* unit stride: whole-pixel taps with weights expanded in WIN_AUX */
    /* Vector configs for `pixels` output pixels (packing one costs the scalar
     * unit ~25 instructions, so they are made once per size). */
    uint64_t pixels, half_tap, whole_tap, all, bias_add, to_f32, to_f16;
    /* Per plane (weights): conversion, copy of the bias, expansion. */
    uint64_t weights_to_f32, bias_copy, expand_weights, expand_bias;
} DwConv;

static void set_pixels(DwConv* dw, uint64_t pixels) {
    if (dw->pixels == pixels) return;
    const uint64_t sw = dw->win.sw;
    dw->pixels = pixels;
    dw->half_tap = win_opaque(vector_config(pixels / 8, 2, 2 * sw, 0, 16, 16 * sw, 0, XD_F32));
    dw->whole_tap = win_opaque(vector_config(pixels / 4, 1, 1, 1, 8, 8, 0, XD_F32));
    dw->all = win_opaque(window_f32_pixels_config(pixels));
    dw->bias_add = win_opaque(vector_config(pixels / 4, 1, 1, 1, 8, 8, 0, XD_F32));
    dw->to_f32 = win_opaque(vector_config(pixels / 4, 1, 1, 1, 8, 4, 4, XD_F32));
    dw->to_f16 = win_opaque(vector_config(pixels / 4, 1, 1, 1, 4, 8, 8, XD_F32));
}

/* 16 f32 (64 bytes) four times over (256 bytes = one f32 repeat of 4
 * pixels) at dst, for `config`'s count of consecutive 64-byte blocks. */
static void expand_pixels(uint64_t dst, uint64_t src, uint64_t config) {
    set_mask_lanes(16);
    for (uint64_t k = 0; k < 4; ++k) vor(dst + k * 64, src, src, config);
    set_mask_all();
}

/* The configs of load_weights, packed once per block. */
static void plan_weights(DwConv* dw) {
    const uint64_t taps = dw->win.kh * dw->win.kw;
    dw->weights_to_f32 = win_opaque(vector_config(ceil_div(taps, 4), 1, 1, 1, 8, 4, 4, XD_F32));
    dw->bias_copy = win_opaque(vector_contiguous(1, XD_F32));
    dw->expand_weights = win_opaque(vector_config(taps, 1, 1, 1, 8, 2, 2, XD_F32));
    dw->expand_bias = win_opaque(vector_config(1, 1, 1, 1, 8, 2, 2, XD_F32));
}

/* Weights and bias of plane p's channel group: f32 weights in WIN_WF32
 * (expanded in WIN_AUX), bias expanded in WIN_BIAS_EXPANDED. */
static void load_weights(DwConv* dw, uint64_t p) {
    const Window* win = &dw->win;
    const uint64_t c1 = p % dw->c1, taps = win->kh * win->kw;
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);
    copy_gm_to_ubuf(WIN_WSTAGE, dw->weights + c1 * taps * 32, 1, taps, 0, 0);
    if (dw->bias) copy_gm_to_ubuf(WIN_WSTAGE + taps * 32, dw->bias + c1 * 64, 1, 2, 0, 0);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);
    vconv(WIN_WF32, WIN_WSTAGE, XD_CONV_F16_F32, XD_ROUND_RINT, dw->weights_to_f32);
    if (dw->bias) vor(WIN_BIAS, WIN_WSTAGE + taps * 32, WIN_WSTAGE + taps * 32, dw->bias_copy);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);
    if (dw->expanded) expand_pixels(WIN_AUX, WIN_WF32, dw->expand_weights);
    if (dw->bias) expand_pixels(WIN_BIAS_EXPANDED, WIN_BIAS, dw->expand_bias);
    dw->weights_plane = p;
}

/* MTE2: the residual rows of the output group starting at `item` (in UB
 * window_out_pitch pixels apart, like the output). */
static void load_residual(const DwConv* dw, uint64_t item, uint64_t q) {
    const Window* win = &dw->win;
    const uint64_t rows = window_group_rows(win, item), ub = WIN_RES + q * WIN_RES_BYTES;
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    window_rows_copy(dw->residual + item * win->out_pitch * 32, ub, rows, win, 0);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
}

/* Sum of the taps of output rows [oh0, oh0 + rows) of plane p in f32 into
 * WIN_ACC (flat: rows * WP pixels; else one row of WO8). A tap is one vmul
 * over whole pixels (4 a repeat) against the expanded weights (block stride
 * 1, repeat stride 0) with unit stride, else two, one per 8-channel half
 * (the tap's weights broadcast with block and repeat stride 0, source
 * pixels SW apart); then one contiguous vadd. */
static void taps(DwConv* dw, uint64_t p, uint64_t oh0, uint64_t rows) {
    Window* win = &dw->win;
    /* Locals: the intrinsics clobber memory, so fields would be reloaded. */
    const uint64_t kh = win->kh, kw = win->kw, column_step = win->dw * 64, expanded = dw->expanded;
    const int64_t ih0 = (int64_t)(oh0 * win->sh) - (int64_t)win->pt, row_step = (int64_t)win->dh;
    const uint64_t half_tap = dw->half_tap, whole_tap = dw->whole_tap, sum = dw->all;
    uint64_t dst = WIN_ACC;
    for (uint64_t i = 0; i < kh; ++i) {
        const int64_t ih = ih0 + (int64_t)i * row_step;
        if (rows > 1) window_row(win, p, ih + (int64_t)((rows - 1) * win->sh)); /* stage the group's last row */
        uint64_t src = window_row(win, p, ih);
        uint64_t weights = expanded ? WIN_AUX + i * kw * 256 : WIN_WF32 + i * kw * 64;
        for (uint64_t j = 0; j < kw; ++j, src += column_step) {
            if (expanded) {
                vmul(dst, src, weights, whole_tap);
                weights += 256;
            } else {
                vmul(dst, src, weights, half_tap);
                vmul(dst + 32, src + 32, weights + 32, half_tap);
                weights += 64;
            }
            if (dst == WIN_TMP) vadd(WIN_ACC, WIN_TMP, WIN_ACC, sum);
            dst = WIN_TMP;
        }
    }
}

/* Bias, residual (f16 pixels at `res`, or none), activation, padded
 * channels (`pad_mask`: lanes to zero, 0: none), then f16 pixels at out. */
static void epilogue(const DwConv* dw, uint64_t res, uint64_t pad_mask, uint64_t out) {
    const uint64_t all = dw->all;
    if (dw->bias) vadd(WIN_ACC, WIN_ACC, WIN_BIAS_EXPANDED, dw->bias_add);
    if (dw->residual) {
        vconv(WIN_TMP, res, XD_CONV_F16_F32, XD_ROUND_RINT, dw->to_f32);
        vadd(WIN_ACC, WIN_ACC, WIN_TMP, all);
    }
    if (dw->act == NPUVP_ACT_RELU) vrelu(WIN_ACC, WIN_ACC, all);
    if (dw->act == NPUVP_ACT_CLIP) {
        vmaxs(WIN_ACC, WIN_ACC, dw->clip_min, all);
        vmins(WIN_ACC, WIN_ACC, dw->clip_max, all);
    }
    if (pad_mask) {
        set_vector_mask(0, pad_mask);
        vector_dup(WIN_ACC, 0, all);
        set_mask_all();
    }
    vconv(out, WIN_ACC, XD_CONV_F32_F16, XD_ROUND_RINT, dw->to_f16);
}

/* Lanes (of 64 f32 lanes = 4 pixels) of the channels beyond C in the last
 * channel group. */
static uint64_t padded_lanes(uint64_t channels) {
    const uint64_t valid = channels % 16;
    uint64_t mask = 0;
    if (valid)
        for (uint64_t lane = 0; lane < 64; ++lane)
            if (lane % 16 >= valid) mask |= (uint64_t)1 << lane;
    return mask;
}

static void dwconv(DwConv* dw) {
    Window* win = &dw->win;
    const uint64_t taps_count = win->kh * win->kw;
    if (!npuvp_dwconv_taps_fit(taps_count) || !window_plan(win, 1, 0)) window_fault();
    window_start(win);
    if (win->begin >= win->end) return;
    dw->weights_plane = ~(uint64_t)0;
    plan_weights(dw);
    dw->expanded = win->sw == 1 && taps_count * 256 <= WIN_AUX_BYTES;
    window_open(win);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1); /* residual buffers free */
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2); /* weight staging free */
    if (dw->residual) load_residual(dw, win->begin, 0);
    const uint64_t pitch = window_out_pitch(win) * 32, last_group_mask = padded_lanes(dw->c);
    dw->pixels = 0;
    set_pixels(dw, win->rows.wo8);
    uint64_t q = 0;
    for (uint64_t item = win->begin; item < win->end; q ^= 1) {
        const uint64_t rows = window_group_rows(win, item), p = item / win->ho, oh0 = item % win->ho;
        const uint64_t out = WIN_OUT + q * WIN_OUT_BYTES, res = WIN_RES + q * WIN_RES_BYTES;
        if (dw->residual && item + rows < win->end) load_residual(dw, item + rows, q ^ 1);
        if (p != dw->weights_plane) load_weights(dw, p);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
        if (dw->residual) wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
        const uint64_t pad_mask = p % dw->c1 == dw->c1 - 1 ? last_group_mask : 0;
        if (win->rows.flat) {
            set_pixels(dw, window_row_pixels(win, rows));
            taps(dw, p, oh0, rows);
            epilogue(dw, res, pad_mask, out);
        } else {
            for (uint64_t t = 0; t < rows; ++t) {
                taps(dw, p, oh0 + t, 1);
                epilogue(dw, res + t * pitch, pad_mask, out + t * pitch);
            }
        }
        if (dw->residual) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
        window_store_group(win, item, rows, q);
        item += rows;
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);
    window_close(win);
}

static uint64_t output_size(uint64_t in, uint64_t pad_a, uint64_t pad_b, uint64_t dilation, uint64_t kernel,
                            uint64_t stride) {
    const uint64_t span = dilation * (kernel - 1) + 1;
    return in + pad_a + pad_b < span ? 0 : (in + pad_a + pad_b - span) / stride + 1;
}

void kernel_main(const uint64_t* args) {
    DwConv dw;
    Window* win = &dw.win;
    win->in = (const uint8_t*)(uintptr_t)args[NPUVP_DWCONV_IN];
    win->out = (uint8_t*)(uintptr_t)args[NPUVP_DWCONV_OUT];
    dw.weights = (const uint8_t*)(uintptr_t)args[NPUVP_DWCONV_WEIGHTS];
    dw.bias = (const uint8_t*)(uintptr_t)args[NPUVP_DWCONV_BIAS];
    dw.residual = (const uint8_t*)(uintptr_t)args[NPUVP_DWCONV_RESIDUAL];
    dw.c = args[NPUVP_DWCONV_C];
    dw.c1 = ceil_div(dw.c, 16);
    dw.act = args[NPUVP_DWCONV_ACT];
    dw.clip_min = args[NPUVP_DWCONV_CLIP_MIN] & 0xffffffffu;
    dw.clip_max = args[NPUVP_DWCONV_CLIP_MAX] & 0xffffffffu;
    win->planes = args[NPUVP_DWCONV_N] * dw.c1;
    win->h = args[NPUVP_DWCONV_H];
    win->w = args[NPUVP_DWCONV_W];
    win->kh = args[NPUVP_DWCONV_KH];
    win->kw = args[NPUVP_DWCONV_KW];
    win->sh = args[NPUVP_DWCONV_STRIDE_H];
    win->sw = args[NPUVP_DWCONV_STRIDE_W];
    win->pt = args[NPUVP_DWCONV_PAD_TOP];
    win->pl = args[NPUVP_DWCONV_PAD_LEFT];
    win->dh = args[NPUVP_DWCONV_DILATION_H] ? args[NPUVP_DWCONV_DILATION_H] : 1;
    win->dw = args[NPUVP_DWCONV_DILATION_W] ? args[NPUVP_DWCONV_DILATION_W] : 1;
    if (win->kh == 0 || win->kw == 0 || win->sh == 0 || win->sw == 0 || dw.act > NPUVP_ACT_CLIP) window_fault();
    win->ho = output_size(win->h, win->pt, args[NPUVP_DWCONV_PAD_BOTTOM], win->dh, win->kh, win->sh);
    win->wo = output_size(win->w, win->pl, args[NPUVP_DWCONV_PAD_RIGHT], win->dw, win->kw, win->sw);
    win->in_pitch = args[NPUVP_DWCONV_IN_ROW_PITCH] ? args[NPUVP_DWCONV_IN_ROW_PITCH] : win->w;
    win->out_pitch = args[NPUVP_DWCONV_OUT_ROW_PITCH] ? args[NPUVP_DWCONV_OUT_ROW_PITCH] : win->wo;
    if (win->planes == 0 || win->ho == 0 || win->wo == 0) return;
    dwconv(&dw);
}
