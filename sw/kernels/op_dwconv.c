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
    uint64_t weights_plane; /* plane whose weights are in UB_WF32 (~0: none) */
} DwConv;

/* Weights (and bias) of plane p's channel group into UB_WF32 / UB_BIAS. */
static void load_weights(DwConv* dw, uint64_t p) {
    const Window* win = &dw->win;
    const uint64_t c1 = p % dw->c1, taps = win->kh * win->kw;
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);
    copy_gm_to_ubuf(UB_WSTAGE, dw->weights + c1 * taps * 32, 1, taps, 0, 0);
    if (dw->bias) copy_gm_to_ubuf(UB_WSTAGE + taps * 32, dw->bias + c1 * 64, 1, 2, 0, 0);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);
    vconv(UB_WF32, UB_WSTAGE, XD_CONV_F16_F32, XD_ROUND_RINT,
          vector_config(ceil_div(taps, 4), 1, 1, 1, 8, 4, 4, XD_F32));
    if (dw->bias) vor(UB_BIAS, UB_WSTAGE + taps * 32, UB_WSTAGE + taps * 32, vector_contiguous(1, XD_F32));
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);
    dw->weights_plane = p;
}

/* MTE2: the residual rows of the output group starting at `item`. */
static void load_residual(const DwConv* dw, uint64_t item, uint64_t q) {
    const Window* win = &dw->win;
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    copy_gm_to_ubuf(UB_RES + q * RES_BYTES, dw->residual + item * win->wo * 32, 1,
                    window_group_rows(win, item) * win->wo, 0, 0);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
}

/* Sum of the taps of output row (p, oh) in f32 into UB_ACC. */
static void taps_row(DwConv* dw, uint64_t p, uint64_t oh) {
    Window* win = &dw->win;
    const uint64_t tap = vector_config(win->wo8 / 8, 2, 2 * win->sw, 0, 16, 16 * win->sw, 0, XD_F32);
    const uint64_t row = window_f32_row_config(win);
    int first = 1;
    for (uint64_t i = 0; i < win->kh; ++i) {
        uint64_t slot;
        if (!window_row(win, p, (int64_t)(oh * win->sh + i * win->dh) - (int64_t)win->pt, &slot)) continue;
        for (uint64_t j = 0; j < win->kw; ++j) {
            const uint64_t weights = UB_WF32 + (i * win->kw + j) * 64, dst = first ? UB_ACC : UB_TMP;
            for (uint64_t half = 0; half < 2; ++half)
                vmul(dst + half * 32, slot + j * win->dw * 64 + half * 32, weights + half * 32, tap);
            if (!first) vadd(UB_ACC, UB_TMP, UB_ACC, row);
            first = 0;
        }
    }
    if (first) vector_dup(UB_ACC, 0, row);
}

/* Bias, residual (f16 row at `res`, or none), activation, padded channels. */
static void epilogue_row(const DwConv* dw, uint64_t p, uint64_t res) {
    const Window* win = &dw->win;
    const uint64_t row = window_f32_row_config(win);
    if (dw->bias) {
        const uint64_t config = vector_config(win->wo8 / 8, 2, 2, 0, 16, 16, 0, XD_F32);
        vadd(UB_ACC, UB_ACC, UB_BIAS, config);
        vadd(UB_ACC + 32, UB_ACC + 32, UB_BIAS + 32, config);
    }
    if (dw->residual) {
        vconv(UB_TMP, res, XD_CONV_F16_F32, XD_ROUND_RINT, vector_config(win->wo8 / 4, 1, 1, 1, 8, 4, 4, XD_F32));
        vadd(UB_ACC, UB_ACC, UB_TMP, row);
    }
    if (dw->act == NPUVP_ACT_RELU) vrelu(UB_ACC, UB_ACC, row);
    if (dw->act == NPUVP_ACT_CLIP) {
        vmaxs(UB_ACC, UB_ACC, dw->clip_min, row);
        vmins(UB_ACC, UB_ACC, dw->clip_max, row);
    }
    const uint64_t valid = dw->c % 16;
    if (valid && p % dw->c1 == dw->c1 - 1) { /* zero lanes c0 >= valid of every pixel */
        uint64_t mask = 0;
        for (uint64_t lane = 0; lane < 64; ++lane)
            if (lane % 16 >= valid) mask |= (uint64_t)1 << lane;
        set_vector_mask(0, mask);
        vector_dup(UB_ACC, 0, row);
        set_mask_all();
    }
}

static void dwconv(DwConv* dw) {
    Window* win = &dw->win;
    if (!window_plan(win, 1) || win->kh * win->kw * 64 > WF32_BYTES) window_fault();
    window_start(win);
    if (win->begin >= win->end) return;
    dw->weights_plane = ~(uint64_t)0;
    window_open(win, 0);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1); /* residual buffers free */
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2); /* weight staging free */
    if (dw->residual) load_residual(dw, win->begin, 0);
    uint64_t q = 0;
    for (uint64_t item = win->begin; item < win->end; q ^= 1) {
        const uint64_t rows = window_group_rows(win, item), p = item / win->ho, oh0 = item % win->ho;
        const uint64_t out = UB_OUT + q * OUT_BYTES, res = UB_RES + q * RES_BYTES;
        if (dw->residual && item + rows < win->end) load_residual(dw, item + rows, q ^ 1);
        if (p != dw->weights_plane) load_weights(dw, p);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
        if (dw->residual) wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
        for (uint64_t t = 0; t < rows; ++t) {
            taps_row(dw, p, oh0 + t);
            epilogue_row(dw, p, res + t * win->wo * 32);
            window_row_to_f16(win, out + t * win->wo * 32, UB_ACC);
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
    if (win->planes == 0 || win->ho == 0 || win->wo == 0) return;
    dwconv(&dw);
}
