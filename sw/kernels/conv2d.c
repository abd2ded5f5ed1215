/*
 * 2-D convolution (one image, f16, f32 accumulation) as an im2col GEMM on
 * the Cube:  out[Ho*Wo x Cout] = im2col(fmap)[Ho*Wo x Kc] x Wb[Kc x Cout],
 * Kc = C1 * kh * kw * 16, optionally followed by ReLU.
 *
 * Arguments (64-bit words):
 *   {fmap, weights, out, C1, H, W, Cout, kh, kw, stride_h, stride_w,
 *    pad_top, pad_bottom, pad_left, pad_right, dilation_h, dilation_w, flags}
 *   fmap     GM, the input feature map in "5HD": C1 x H x W x 16 f16 (channel
 *            c at c1 = c / 16, c0 = c % 16; channels beyond C are zeros).
 *   weights  GM, the GEMM B matrix: Kc rows x Cout columns, row-major f16.
 *            Row k = ((c1 * kh + i) * kw + j) * 16 + c0 holds the weights of
 *            input channel c1*16 + c0 at kernel position (i, j) for every
 *            output channel (zero rows for padded channels); this is
 *            conv_weights_to_b() of tests/unit/npu_layout_reference.h.
 *   out      GM, Ho*Wo rows x Cout columns, row-major f16: row
 *            m = oh * Wo + ow, i.e. NHWC without N.
 *   Ho = (H + pad_top + pad_bottom - dilation_h*(kh-1) - 1) / stride_h + 1,
 *   Wo likewise. flags bit 0: ReLU on the way out of L0C.
 *   Limits: the feature map (C1*H*W*32 bytes) plus two weight panels
 *   (Kc * min(Cout,128) * 2 bytes each; one if two do not fit) must fit
 *   L1 (1 MiB); pads, strides, dilations and kernel sizes <= 255.
 *
 * Dataflow: MTE2 copies the whole feature map to L1 once (set_fmatrix
 * describes it); img2col_cbuf_to_ca builds each A step (tm output positions
 * x 4 or 8 fractal columns of im2col) straight into L0A; the weights of a
 * 128-column panel come in once per panel with copy_gm_to_cbuf_nd2nz and go
 * to L0B with transposing loads, exactly as in gemm.c. C tiles of up to
 * 256 x 128 (numbered column-panel-major so a panel serves all its tiles;
 * task block b of B takes tiles [T*b/B, T*(b+1)/B)) accumulate in an L0C
 * half, then the shared write-back (cc->ub f32->f16 [+ReLU], UB -> GM
 * row-major) runs while the Cube starts the next tile. Ping-pong halves of
 * L0A/L0B, L0C and UB as in gemm.c (EVENT_ID0/1); weight panels in two L1
 * slots (MTE1->MTE2 EVENT_ID0 tokens), the next panel loaded while the
 * current one is used.
 */
#include "cube_common.h"

typedef struct {
    uint8_t* out;
    const uint8_t* weights;
    uint64_t m, kc, n;       /* GEMM sizes: Ho*Wo, C1*kh*kw*16, Cout */
    uint64_t n_mt, n_nt;
    uint64_t panel_base, panel_bytes, panel_slots;
    uint64_t window, relu;
    uint64_t l0_uses, tiles_done;
} Conv;

static void load_panel(const Conv* c, uint64_t nt, uint64_t slot) {
    const uint64_t n0 = nt * TILE_N;
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    copy_gm_to_cbuf_nd2nz(c->panel_base + slot * c->panel_bytes, c->weights + n0 * 2, c->kc,
                          min_u64(TILE_N, c->n - n0), c->n * 2, c->kc, XD_F16);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
}

static void compute_tile(Conv* c, uint64_t mt, uint64_t nt, uint64_t panel_l1, int panel_ready, int release) {
    const uint64_t m0 = mt * TILE_M, n0 = nt * TILE_N;
    const uint64_t tm = min_u64(TILE_M, c->m - m0), tn = min_u64(TILE_N, c->n - n0);
    const uint64_t tmf = ceil_div(tm, 16), tnf = ceil_div(tn, 16), kcf = c->kc / 16;
    const uint64_t kstep = tmf > 8 ? 4 : 8;
    const uint64_t h = c->tiles_done++ & 1;

    if (panel_ready) wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    for (uint64_t j = 0; j < kcf; j += kstep) {
        const uint64_t kf = min_u64(kstep, kcf - j);
        const uint64_t p = c->l0_uses++ & 1;
        WAIT_FLAG01(PIPE_M, PIPE_MTE1, p);
        img2col_cbuf_to_ca(p * L0A_HALF, 0, c->window, m0, j * 16, tmf, kf);
        load_b_zn(p * L0B_HALF, panel_l1 + j * FRACTAL, kf, tnf, kcf);
        SET_FLAG01(PIPE_MTE1, PIPE_M, p);
        if (release && j + kstep >= kcf) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);

        if (j == 0) WAIT_FLAG01(PIPE_V, PIPE_M, h);
        WAIT_FLAG01(PIPE_MTE1, PIPE_M, p);
        mmad(h * L0C_HALF, p * L0A_HALF, p * L0B_HALF, tm, kf * 16, tn, XD_F16, j == 0);
        SET_FLAG01(PIPE_M, PIPE_MTE1, p);
    }
    SET_FLAG01(PIPE_M, PIPE_V, h);
    write_back_tile(c->out + (m0 * c->n + n0) * 2, tm, tn, c->n * 2, h, c->relu, 0);
}

void kernel_main(const uint64_t* args) {
    const uint8_t* fmap = (const uint8_t*)(uintptr_t)args[0];
    const uint64_t c1 = args[3], height = args[4], width = args[5];
    const uint64_t kh = args[7], kw = args[8], stride_h = args[9], stride_w = args[10];
    const uint64_t pad_top = args[11], pad_bottom = args[12], pad_left = args[13], pad_right = args[14];
    const uint64_t dilation_h = args[15], dilation_w = args[16];
    const uint64_t out_h = (height + pad_top + pad_bottom - dilation_h * (kh - 1) - 1) / stride_h + 1;
    const uint64_t out_w = (width + pad_left + pad_right - dilation_w * (kw - 1) - 1) / stride_w + 1;

    Conv c;
    c.weights = (const uint8_t*)(uintptr_t)args[1];
    c.out = (uint8_t*)(uintptr_t)args[2];
    c.m = out_h * out_w;
    c.kc = c1 * kh * kw * 16;
    c.n = args[6];
    c.relu = args[17] & 1;
    c.window = xd_pack_img2col_window(stride_w, stride_h, kw, kh, dilation_w, dilation_h, c1);
    c.n_mt = ceil_div(c.m, TILE_M);
    c.n_nt = ceil_div(c.n, TILE_N);
    c.l0_uses = c.tiles_done = 0;
    const uint64_t fmap_bytes = c1 * height * width * 32;
    c.panel_base = (fmap_bytes + FRACTAL - 1) / FRACTAL * FRACTAL;
    c.panel_bytes = c.kc * TILE_N * 2;
    c.panel_slots = c.panel_base + 2 * c.panel_bytes <= KIB(1024) ? 2 : 1;

    const uint64_t tiles = c.n_mt * c.n_nt, blocks = block_dim(), b = block_idx();
    const uint64_t t_begin = tiles * b / blocks, t_end = tiles * (b + 1) / blocks;
    if (t_begin >= t_end) return;

    for (uint64_t i = 0; i < c.panel_slots; ++i) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    cube_pipeline_open();

    /* The feature map, once (pixels of 32 bytes; bursts of at most 32768). */
    for (uint64_t done = 0; done < fmap_bytes / 32;) {
        const uint64_t n = min_u64(32768, fmap_bytes / 32 - done);
        copy_gm_to_cbuf(done * 32, fmap + done * 32, 1, n, 0, 0);
        done += n;
    }
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);
    set_fmatrix(width, height, pad_left, pad_right, pad_top, pad_bottom);

    const uint64_t nt_first = t_begin / c.n_mt, nt_last = (t_end - 1) / c.n_mt;
    if (c.panel_slots == 2) load_panel(&c, nt_first, 0);
    for (uint64_t t = t_begin; t < t_end; ++t) {
        const uint64_t nt = t / c.n_mt, mt = t % c.n_mt, panel = nt - nt_first;
        const int first = t == t_begin || mt == 0;
        const int last = t + 1 == t_end || (t + 1) % c.n_mt == 0;
        if (first) { /* next panel ahead (two slots), or this one now (one slot) */
            if (c.panel_slots == 1) load_panel(&c, nt, 0);
            else if (nt < nt_last) load_panel(&c, nt + 1, (panel + 1) & 1);
        }
        compute_tile(&c, mt, nt, c.panel_base + (panel % c.panel_slots) * c.panel_bytes, first, last);
    }

    for (uint64_t i = 0; i < c.panel_slots; ++i) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    cube_pipeline_close();
}
