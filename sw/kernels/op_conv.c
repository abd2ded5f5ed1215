/*
 * Conv operator on the Cube (slot NPUVP_OP_KERNEL_CONV, groups = 1):
 * y = act(conv(x) + bias + residual), 5HD in and out; the argument words are
 * npuvp_conv_arg of sw/include/npuvp/operator_kernels.h. Per image it is the
 * GEMM out[HO*WO x Cout16] = im2col(x)[HO*WO x Kc] x W[Kc x Cout16]; a 16-
 * column group of a C tile is 16 consecutive channels of consecutive output
 * pixels, i.e. one contiguous run of the 5HD output, so a tile is stored
 * (and its residual loaded) with one burst per group.
 *
 * Work split. A unit is (image, spatial tile = TILE_HO output rows, Cout
 * group = TILE_COUT channels), numbered with the Cout group innermost; task
 * block b of B takes units [U*b/B, U*(b+1)/B). Defaults: spatial tiles are
 * the rows an image gets when B blocks share N images (split over Cout
 * instead when the weights outweigh an image: deep layers), as high as
 * the input slice fits L1.
 *
 * Data is loaded once. A unit's input slice (its output rows' input rows
 * with the halo, every channel group: C1in x rows x W x 16 in L1, the map
 * img2col reads with set_fmatrix's padding adjusted to the slice) is loaded
 * progressively: the piece of rows each 256-position M chunk needs beyond
 * the previous ones, so the Cube starts on the first rows while the rest
 * arrive; units of the same rows (other Cout groups) reuse it. Weights: the
 * B matrix columns of a C tile (a "panel", Kc x TN, nd2nz in L1) are
 * resident when all the weights fit (512 KiB), each panel loaded once per
 * block at its first use; otherwise panels stream through two slots, one
 * load per (unit, C tile column), reused by every M chunk of the unit.
 *
 * C tiles: up to 256 positions x TN channels (TN <= 128, smaller when a
 * streamed panel must fit 192 KiB), one L0C half; for each tile column of a
 * unit, its M chunks in order (the panel stays while the positions change).
 * K steps of kf fractal columns: img2col straight from the slice into L0A,
 * load_b_zn from the panel into L0B, one mmad; the epilogue (bias by
 * mmad_bias, residual, ReLU / Clip) is cube_common.h's.
 *
 * Pipeline (FLAGS bit 0): loads are issued LOOKAHEAD = 2 tiles ahead of the
 * tile computed; token rings as in gemm.c:
 *   slice slots       MTE1->MTE2 EVENT_ID2 (free), MTE2->MTE1 EVENT_ID2 (one
 *                     token per loaded piece)
 *   panel slots       MTE1->MTE2 EVENT_ID3 (free, streaming),
 *                     MTE2->MTE1 EVENT_ID3 (loaded)
 *   L0A/L0B, L0C, UB  as gemm.c (EVENT_ID0/1), bias / residual: Epilogue.
 * A load that must wait for a slot is issued only once the tile releasing
 * the slot has been issued, so every wait refers to a set issued earlier in
 * program order (deadlock-free for any queue depth). Without bit 0 the same
 * plan runs serially (no lookahead, pipe_barrier(PIPE_ALL) after each step).
 *
 * Limits: pads <= 255 (set_fmatrix), a slice of one output row must fit
 * L1 beside the weights, Kc <= 6144 (a 16-column panel in 192 KiB); beyond
 * them the kernel stops with a scalar-trap fault (ebreak) rather than
 * compute a wrong result.
 */
#include "cube_common.h"

enum {
    L1_SIZE = 1 << 20,
    RESIDENT_PANELS_BYTES = 512 << 10,
    STREAM_PANEL_BYTES = 192 << 10,
    TILE_POSITIONS = 256, /* M chunk: 16 fractal rows */
    MAX_TN = 128,
    LOOKAHEAD = 2,        /* tiles; < BIAS_SLOTS */
    MAX_PANELS = 256,
};

typedef struct {
    const uint8_t *in, *w, *bias, *res;
    uint8_t* out;
    uint64_t n_img, c1in, h, w_, cout, c1out, cout16;
    uint64_t kh, kw, sh, sw, pt, pb, pl, pr, dh, dw, ho, wo, kc, kcf;
    uint64_t window;
    /* plan */
    uint64_t tile_ho, n_st, group, n_cg, tn;
    uint64_t u_begin, u_end;
    uint64_t slice_slots, slice_slot_bytes, panel_base, panel_bytes;
    int resident, db;
    uint64_t l0_uses;
    Epilogue ep;
} Conv;

/* Geometry of a unit. */
typedef struct {
    uint64_t img, st, cg;
    uint64_t oh0, tho, positions, chunks; /* output rows, positions, M chunks */
    uint64_t c0, channels, cols;          /* Cout range; C tile columns */
    uint64_t ih_lo, rows, pad_top, pad_bottom; /* the slice */
} Unit;

typedef struct {
    uint64_t i, u, ct, j; /* tile number in the block; unit; C tile column in the unit; M chunk */
    uint64_t slice, pass; /* slice and (unit, column) pass numbers in the block */
    int new_slice;        /* the tile's unit starts a slice (its first pass loads it) */
    int first_pass;       /* the tile belongs to the first pass over its slice */
    int done;
    Unit g;
    uint64_t slice_end[2], pass_end[2]; /* last tile of the slices / passes, ring of 2 (issue side) */
    uint8_t panel_loaded[MAX_PANELS];   /* resident panels handled (loaded or waited for) */
} Cursor;

static void unit_of(const Conv* c, uint64_t u, Unit* g) {
    g->cg = u % c->n_cg;
    g->st = u / c->n_cg % c->n_st;
    g->img = u / c->n_cg / c->n_st;
    g->oh0 = g->st * c->tile_ho;
    g->tho = min_u64(c->tile_ho, c->ho - g->oh0);
    g->positions = g->tho * c->wo;
    g->chunks = ceil_div(g->positions, TILE_POSITIONS);
    g->c0 = g->cg * c->group;
    g->channels = min_u64(c->group, c->cout16 - g->c0);
    g->cols = ceil_div(g->channels, c->tn);
    /* input rows of the window, in map coordinates (may lie in the padding) */
    const int64_t top = (int64_t)(g->oh0 * c->sh) - (int64_t)c->pt;
    const int64_t last = top + (int64_t)((g->tho - 1) * c->sh + (c->kh - 1) * c->dh);
    const int64_t lo = top < 0 ? 0 : top, hi = last > (int64_t)c->h - 1 ? (int64_t)c->h - 1 : last;
    if (lo > hi) { /* the window lies in the padding: any row, the window above it */
        g->ih_lo = 0;
        g->rows = 1;
        g->pad_top = (uint64_t)(last - top + 1);
        g->pad_bottom = 0;
    } else {
        g->ih_lo = (uint64_t)lo;
        g->rows = (uint64_t)(hi - lo + 1);
        g->pad_top = (uint64_t)(lo - top);
        g->pad_bottom = (uint64_t)(last - hi);
    }
}

/* Slice rows [0, rows_needed(j)) are needed by M chunks 0..j. */
static uint64_t rows_needed(const Conv* c, const Unit* g, uint64_t j) {
    if (j + 1 >= g->chunks) return g->rows;
    const uint64_t last_row = ((j + 1) * TILE_POSITIONS - 1) / c->wo;
    const int64_t row = (int64_t)(last_row * c->sh + (c->kh - 1) * c->dh) - (int64_t)g->pad_top + 1;
    return row < 0 ? 0 : min_u64((uint64_t)row, g->rows);
}

static void cursor_init(const Conv* c, Cursor* k) {
    k->i = k->ct = k->j = k->slice = k->pass = 0;
    k->u = c->u_begin;
    k->done = k->u >= c->u_end;
    k->new_slice = k->first_pass = 1;
    k->slice_end[0] = k->slice_end[1] = k->pass_end[0] = k->pass_end[1] = 0;
    for (uint64_t p = 0; p < MAX_PANELS; ++p) k->panel_loaded[p] = 0;
    if (!k->done) unit_of(c, k->u, &k->g);
}

static void cursor_next(const Conv* c, Cursor* k) {
    const uint64_t i = k->i++;
    if (++k->j < k->g.chunks) return;
    k->j = 0;
    k->pass_end[k->pass & 1] = i;
    k->pass++;
    k->first_pass = 0;
    k->new_slice = 0;
    if (++k->ct < k->g.cols) return;
    k->ct = 0;
    const uint64_t img = k->g.img, st = k->g.st;
    if (++k->u >= c->u_end) {
        k->slice_end[k->slice & 1] = i;
        k->done = 1;
        return;
    }
    unit_of(c, k->u, &k->g);
    if (k->g.img != img || k->g.st != st) {
        k->slice_end[k->slice & 1] = i;
        k->slice++;
        k->new_slice = k->first_pass = 1;
    }
}

static uint64_t slice_l1(const Conv* c, const Cursor* k) { return k->slice % c->slice_slots * c->slice_slot_bytes; }
static uint64_t panel_index(const Conv* c, const Cursor* k) { return (k->g.c0 + k->ct * c->tn) / c->tn; }
static uint64_t panel_l1(const Conv* c, const Cursor* k) {
    return c->panel_base + (c->resident ? panel_index(c, k) : k->pass % 2) * c->panel_bytes;
}
static uint64_t tile_n0(const Conv* c, const Cursor* k) { return k->g.c0 + k->ct * c->tn; }
static uint64_t tile_cols(const Conv* c, const Cursor* k) {
    return min_u64(c->tn, k->g.c0 + k->g.channels - tile_n0(c, k));
}
/* Needs a panel load (or, consuming, a wait for one) at this tile. */
static int panel_event(const Conv* c, const Cursor* k) {
    if (k->j != 0) return 0;
    return c->resident ? !k->panel_loaded[panel_index(c, k)] : 1;
}

static void tile_gm(const Conv* c, const Cursor* k, TileGm* t) {
    const uint64_t plane = c->ho * c->wo, n0 = tile_n0(c, k);
    const uint64_t m0 = k->j * TILE_POSITIONS;
    const uint64_t offset = ((k->g.img * c->c1out + n0 / 16) * plane + k->g.oh0 * c->wo + m0) * 16;
    t->out = c->out + offset * 2;
    t->residual = c->res ? c->res + offset * 2 : 0;
    t->bias = c->bias ? c->bias + n0 * 4 : 0;
    t->rows = min_u64(TILE_POSITIONS, k->g.positions - m0);
    t->cols = tile_cols(c, k);
    t->row_pitch = 32;
    t->group_pitch = plane * 32;
    t->last_group_padded = n0 + t->cols == c->cout16 && c->cout % 16 != 0;
}

/* May the loads of the tile at `k` be issued before compute of tile `now`?
 * Only if the tiles releasing the slots they wait for are already issued. */
static int can_issue(const Conv* c, const Cursor* k, uint64_t now) {
    if (k->new_slice && k->j == 0 && k->ct == 0 && k->slice >= c->slice_slots &&
        k->slice_end[(k->slice - c->slice_slots) & 1] >= now)
        return 0;
    if (!c->resident && k->j == 0 && k->pass >= 2 && k->pass_end[k->pass & 1] >= now) return 0;
    return 1;
}

/* MTE2: the loads of the tile at `k`: its slice piece, its panel, its bias. */
static void issue_loads(const Conv* c, Cursor* k) {
    const Unit* g = &k->g;
    if (k->first_pass) {
        const uint64_t r0 = k->j ? rows_needed(c, g, k->j - 1) : 0, r1 = rows_needed(c, g, k->j);
        if (k->new_slice && k->j == 0) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);
        if (r1 > r0) {
            const uint64_t row_bytes = c->w_ * 32;
            copy_gm_to_cbuf_pitched(slice_l1(c, k) + r0 * row_bytes,
                                    c->in + ((g->img * c->c1in * c->h) + g->ih_lo + r0) * row_bytes, c->c1in,
                                    (r1 - r0) * c->w_, (g->rows - (r1 - r0)) * c->w_, c->h * row_bytes, 0);
            set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);
        }
    }
    if (panel_event(c, k)) {
        if (!c->resident) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);
        copy_gm_to_cbuf_nd2nz(panel_l1(c, k), c->w + tile_n0(c, k) * 2, c->kc, tile_cols(c, k), c->cout16 * 2,
                              c->kc, XD_F16);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID3);
        if (c->resident) k->panel_loaded[panel_index(c, k)] = 1;
    }
    TileGm t;
    tile_gm(c, k, &t);
    epilogue_load_bias(&c->ep, &t, k->i);
    if (!c->db) pipe_barrier(PIPE_ALL);
}

/* The last tile of the block that reads the slice of tile `k`. */
static int last_of_slice(const Conv* c, const Cursor* k) {
    if (k->j + 1 < k->g.chunks || k->ct + 1 < k->g.cols) return 0;
    if (k->u + 1 >= c->u_end) return 1;
    Unit n;
    unit_of(c, k->u + 1, &n);
    return n.img != k->g.img || n.st != k->g.st;
}

/* The tile at `k`: MTE1, Cube, write-back. */
static void compute_tile(Conv* c, Cursor* k) {
    const Unit* g = &k->g;
    TileGm t;
    tile_gm(c, k, &t);
    const uint64_t mf = ceil_div(t.rows, 16), nf = ceil_div(t.cols, 16);
    const uint64_t h = c->db ? k->i & 1 : 0;
    const uint64_t kstep = min_u64(64 / mf, 64 / nf);
    const uint64_t slice = slice_l1(c, k), panel = panel_l1(c, k);
    const int slice_done = last_of_slice(c, k);
    const int last_of_pass = k->j + 1 == g->chunks;

    epilogue_prefetch(&c->ep, &t, mf);
    if (k->new_slice && k->j == 0 && k->ct == 0)
        set_fmatrix(c->w_, g->rows, c->pl, c->pr, g->pad_top, g->pad_bottom);
    if (k->first_pass && rows_needed(c, g, k->j) > (k->j ? rows_needed(c, g, k->j - 1) : 0))
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);
    if (panel_event(c, k)) {
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID3);
        if (c->resident) k->panel_loaded[panel_index(c, k)] = 1;
    }

    for (uint64_t kb = 0; kb < c->kcf; kb += kstep) {
        const uint64_t kf = min_u64(kstep, c->kcf - kb);
        const uint64_t p = c->db ? c->l0_uses & 1 : 0;
        c->l0_uses++;
        WAIT_FLAG01(PIPE_M, PIPE_MTE1, p);
        img2col_cbuf_to_ca(p * L0A_HALF, slice, c->window, k->j * TILE_POSITIONS, kb * 16, mf, kf);
        load_b_zn(p * L0B_HALF, panel + kb * FRACTAL, kf, nf, c->kcf);
        SET_FLAG01(PIPE_MTE1, PIPE_M, p);
        if (kb + kstep >= c->kcf) {
            if (slice_done) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);
            if (last_of_pass && !c->resident) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);
        }
        if (!c->db) pipe_barrier(PIPE_ALL);

        if (kb == 0) WAIT_FLAG01(PIPE_V, PIPE_M, h);
        WAIT_FLAG01(PIPE_MTE1, PIPE_M, p);
        if (kb == 0) mmad_first(&c->ep, k->i, h * L0C_HALF, p * L0A_HALF, p * L0B_HALF, t.rows, kf * 16, t.cols);
        else mmad(h * L0C_HALF, p * L0A_HALF, p * L0B_HALF, t.rows, kf * 16, t.cols, XD_F16, 0);
        SET_FLAG01(PIPE_M, PIPE_MTE1, p);
        if (!c->db) pipe_barrier(PIPE_ALL);
    }
    SET_FLAG01(PIPE_M, PIPE_V, h);
    epilogue_write_back(&c->ep, &t, h);
}

static void unsupported(void) { __asm__ volatile("ebreak"); }

/* Largest multiple of 16 that is <= limit and divides `group` (a multiple of 16). */
static uint64_t column_tile(uint64_t group, uint64_t limit) {
    for (uint64_t tn = limit / 16 * 16; tn > 16; tn -= 16)
        if (group % tn == 0) return tn;
    return 16;
}

/* The plan: tile heights, Cout groups, C tile width, L1 partition. Returns 0 if impossible. */
static int plan(Conv* c, uint64_t tile_ho, uint64_t tile_cout, uint64_t blocks) {
    const uint64_t weights = c->kc * c->cout16 * 2;
    c->resident = weights <= RESIDENT_PANELS_BYTES;
    uint64_t tn_limit = MAX_TN;
    if (!c->resident) {
        tn_limit = min_u64(MAX_TN, STREAM_PANEL_BYTES / (c->kc * 2) / 16 * 16);
        if (tn_limit < 16) return 0;
    }

    const uint64_t image_bytes = c->c1in * c->h * c->w_ * 32;
    uint64_t splits = 1, n_cg = 1;
    if (c->n_img < blocks) splits = ceil_div(blocks, c->n_img);
    if (tile_cout) {
        c->group = min_u64(round16(tile_cout), c->cout16);
    } else {
        if (splits > 1 && weights > image_bytes) { /* split the weights, not the image */
            n_cg = min_u64(c->cout16 / 16, splits);
            splits = 1;
        }
        c->group = round16(ceil_div(c->cout16, n_cg));
    }
    c->n_cg = ceil_div(c->cout16, c->group);
    c->tn = c->n_cg == 1 ? min_u64(tn_limit, c->group) : column_tile(c->group, tn_limit);
    if (c->resident && ceil_div(c->cout16, c->tn) > MAX_PANELS) return 0;
    c->panel_bytes = c->kc * c->tn * 2;
    const uint64_t panel_area = c->resident ? ceil_div(c->cout16, c->tn) * c->panel_bytes : 2 * c->panel_bytes;

    /* output rows per spatial tile: as asked / as the split wants, as the slice fits */
    const uint64_t budget = L1_SIZE - panel_area, row_bytes = c->c1in * c->w_ * 32;
    const uint64_t window = (c->kh - 1) * c->dh + 1;
    if (row_bytes * min_u64(window, c->h) > budget) return 0;
    const uint64_t rows_fit = min_u64(budget / row_bytes, c->h);
    uint64_t tho_fit = rows_fit >= window ? (rows_fit - window) / c->sh + 1 : 1;
    if (rows_fit >= c->h) tho_fit = c->ho;
    c->tile_ho = tile_ho ? tile_ho : ceil_div(c->ho, splits);
    c->tile_ho = min_u64(min_u64(c->tile_ho, tho_fit), c->ho);
    c->n_st = ceil_div(c->ho, c->tile_ho);
    const uint64_t slice_rows = min_u64(c->h, (c->tile_ho - 1) * c->sh + window);
    c->slice_slot_bytes = (slice_rows * row_bytes + FRACTAL - 1) / FRACTAL * FRACTAL;
    c->slice_slots = c->db && 2 * c->slice_slot_bytes <= budget ? 2 : 1;
    c->panel_base = c->slice_slots * c->slice_slot_bytes;
    return 1;
}

void kernel_main(const uint64_t* args) {
    Conv c;
    c.in = (const uint8_t*)(uintptr_t)args[NPUVP_CONV_IN];
    c.w = (const uint8_t*)(uintptr_t)args[NPUVP_CONV_WEIGHTS];
    c.bias = (const uint8_t*)(uintptr_t)args[NPUVP_CONV_BIAS];
    c.res = (const uint8_t*)(uintptr_t)args[NPUVP_CONV_RESIDUAL];
    c.out = (uint8_t*)(uintptr_t)args[NPUVP_CONV_OUT];
    c.n_img = args[NPUVP_CONV_N];
    c.c1in = ceil_div(args[NPUVP_CONV_CIN], 16);
    c.h = args[NPUVP_CONV_H];
    c.w_ = args[NPUVP_CONV_W];
    c.cout = args[NPUVP_CONV_COUT];
    c.c1out = ceil_div(c.cout, 16);
    c.cout16 = c.c1out * 16;
    c.kh = args[NPUVP_CONV_KH];
    c.kw = args[NPUVP_CONV_KW];
    c.sh = args[NPUVP_CONV_STRIDE_H];
    c.sw = args[NPUVP_CONV_STRIDE_W];
    c.pt = args[NPUVP_CONV_PAD_TOP];
    c.pb = args[NPUVP_CONV_PAD_BOTTOM];
    c.pl = args[NPUVP_CONV_PAD_LEFT];
    c.pr = args[NPUVP_CONV_PAD_RIGHT];
    c.dh = args[NPUVP_CONV_DILATION_H];
    c.dw = args[NPUVP_CONV_DILATION_W];
    c.db = (args[NPUVP_CONV_FLAGS] & 1) != 0;
    if (c.n_img == 0 || c.c1in == 0 || c.cout == 0) return;
    c.ho = (c.h + c.pt + c.pb - c.dh * (c.kh - 1) - 1) / c.sh + 1;
    c.wo = (c.w_ + c.pl + c.pr - c.dw * (c.kw - 1) - 1) / c.sw + 1;
    c.kc = c.c1in * c.kh * c.kw * 16;
    c.kcf = c.kc / 16;
    c.window = xd_pack_img2col_window(c.sw, c.sh, c.kw, c.kh, c.dw, c.dh, c.c1in);
    c.l0_uses = 0;

    c.ep.act = args[NPUVP_CONV_ACT];
    c.ep.clip_lo = f32_bits_to_f16(args[NPUVP_CONV_CLIP_MIN]);
    c.ep.clip_hi = f32_bits_to_f16(args[NPUVP_CONV_CLIP_MAX]);
    c.ep.alpha = 0;
    c.ep.bias = c.bias;
    c.ep.residual = c.res != 0;
    c.ep.serial = !c.db;
    /* Clip with a bound of the wrong sign would make padded channels non-zero. */
    const int clip_moves_zero = c.ep.act == NPUVP_ACT_CLIP &&
                                ((!(c.ep.clip_lo & 0x8000) && c.ep.clip_lo != 0) ||
                                 ((c.ep.clip_hi & 0x8000) && (c.ep.clip_hi & 0x7fff)));
    c.ep.zero_lanes_from = clip_moves_zero ? c.cout % 16 : 0;

    const uint64_t blocks = block_dim(), b = block_idx();
    if (!plan(&c, args[NPUVP_CONV_TILE_HO], args[NPUVP_CONV_TILE_COUT], blocks)) {
        unsupported();
        return;
    }
    const uint64_t units = c.n_img * c.n_st * c.n_cg;
    c.u_begin = units * b / blocks;
    c.u_end = units * (b + 1) / blocks;
    if (c.u_begin >= c.u_end) return;

    for (uint64_t i = 0; i < c.slice_slots; ++i) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);
    if (!c.resident) {
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);
    }
    cube_pipeline_open();
    epilogue_open(&c.ep);

    Cursor issue, compute;
    cursor_init(&c, &issue);
    cursor_init(&c, &compute);
    const uint64_t lookahead = c.db ? LOOKAHEAD : 0;
    while (!compute.done) {
        while (!issue.done && issue.i <= compute.i + lookahead && can_issue(&c, &issue, compute.i)) {
            issue_loads(&c, &issue);
            cursor_next(&c, &issue);
        }
        compute_tile(&c, &compute);
        cursor_next(&c, &compute);
    }

    for (uint64_t i = 0; i < c.slice_slots; ++i) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);
    if (!c.resident) {
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);
    }
    epilogue_close(&c.ep);
    cube_pipeline_close();
}
