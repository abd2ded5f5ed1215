/*
 * Conv operator on the Cube (slot NPUVP_OP_KERNEL_CONV, groups = 1):
 * y = act(conv(x) + bias + residual), 5HD in and out; the argument words are
 * npuvp_conv_arg of sw/include/npuvp/operator_kernels.h. Per image it is the
 * GEMM out[HO*WO x Cout16] = im2col(x)[HO*WO x Kc] x W[Kc x Cout16]; a 16-
 * column group of a C tile is 16 consecutive channels of consecutive output
 * pixels, i.e. one contiguous run of the 5HD output, so a tile is stored
 * (and its residual loaded) with one burst per group.
 *
 * The plan (sw/include/npuvp/conv_plan.h) comes with the arguments, computed
 * by the compiler from the shapes (NPUVP_CONV_PLAN_*): the kernel only
 * unpacks it, so a block's first load follows its start by a few hundred
 * cycles instead of the ~1.6 k that computing it took on the scalar unit.
 *
 * Work split. A unit is (image, spatial tile = tile_ho output rows, Cout
 * group = `group` channels), numbered with the Cout group innermost; task
 * block b of B takes units [U*b/B, U*(b+1)/B). A block's consecutive units
 * of the same rows form one span (adjacent channels): its C tiles are up to
 * 128 channels wide whatever the group is (the group only splits the work).
 *
 * Data is loaded once. A unit's input slice (its output rows' input rows
 * with the halo, every channel group: C1in x rows x W x 16 in L1, the map
 * img2col reads with set_fmatrix's padding adjusted to the slice) is loaded
 * progressively: the piece of rows each 256-position M chunk needs beyond
 * the previous ones, so the Cube starts on the first rows while the rest
 * arrive; units of the same rows (other Cout groups) reuse it. Weights are
 * resident when they all fit (512 KiB): the Kc x Cout16 matrix in L1 as one
 * nd2nz block per K part (below), each 16-column group loaded once per
 * block with the first C tile that needs it. Otherwise they stream in K chunks of 128
 * rows x 128 columns through a ring of 8 slots (gemm.c's B ring): every C
 * tile streams its columns, the Cube following chunk by chunk (deep layers
 * have one M chunk per unit, so weights are read once; with several, once
 * per M chunk). Rows of 256 bytes keep both DDR channels busy (64-byte
 * rows at a 1 KiB pitch would all fall on one channel of the 64-byte
 * interleave).
 *
 * C tiles: up to 256 positions x 128 channels, or 128 x 256 when the plan's
 * tn is 256 (small bands, resident weights), one L0C half; or, with the
 * plan's whole-L0C tiles, up to 512 x 128 in both halves, one tile at a time
 * (a band of 257..512 positions as one tile: its K parts bring the band's
 * rows and its weights for all of its Cube work, where a 256-position first
 * tile waits for MTE2 with two cores sharing the L2; not with a residual,
 * whose UB slot holds a half's tile); for each tile
 * column of a span, its M chunks in order. K steps of kf fractal columns
 * (never across a weight chunk): img2col straight from the slice into L0A,
 * load_b_zn from the resident matrix or the chunk into L0B, one mmad; the
 * epilogue (bias by mmad_bias, residual, ReLU / Clip) is cube_common.h's.
 *
 * K parts. Input channel groups are split into up to NPUVP_CONV_K_PARTS parts of at
 * least 16 fractal columns of K (img2col's K order is channel group
 * outermost, so a part is a contiguous K range). The block's first tile loads
 * its slice piece and its weights part by part, one token each, and the Cube
 * starts once the first part is in instead of after the whole slice and
 * panel (on ResNet-50's 1x1 1024 -> 256 layer that was 8 k of the block's
 * 28 k cycles with HBM-class memory). A K step may straddle parts of the resident
 * weights (one load_b_zn per part), so parts cost no Cube efficiency.
 *
 * Pipeline (FLAGS bit 0): slice pieces, resident weights and bias rows are
 * issued LOOKAHEAD = 2 tiles ahead of the tile computed (the first tile's
 * lookahead one load step between each of its K steps: its own parts fill
 * the MTE2 queue, and a scalar unit stalled on a full queue would issue no
 * Cube work), weight chunks as far ahead as the ring allows (issued after
 * each chunk the Cube releases); token rings as in gemm.c:
 *   slice slots       MTE1->MTE2 EVENT_ID2 (free), MTE2->MTE1 EVENT_ID2 (one
 *                     token per loaded piece; the first tile: one per K part,
 *                     slice piece and weights part together)
 *   weights           MTE2->MTE1 EVENT_ID3 (a chunk loaded, or a later tile's resident
 *                     columns: one token per panel_token_parts K parts, so that its
 *                     Cube work starts on the first parts), MTE1->MTE2 EVENT_ID3 (a
 *                     chunk slot free)
 *   L0A/L0B, L0C, UB  as gemm.c (EVENT_ID0/1), bias / residual: Epilogue.
 * A load that must wait for a slot is issued only once the instruction
 * releasing the slot has been issued, so every wait refers to a set issued
 * earlier in program order (deadlock-free for any queue depth). Without
 * bit 0 the same plan runs serially (no lookahead, pipe_barrier(PIPE_ALL)
 * after each step).
 *
 * Limits: pads, kernel sizes, strides and dilations <= 255 (set_fmatrix,
 * img2col), a slice of one output row must fit L1 beside the weights; the
 * plan refuses the rest (a compile error naming the node). A launch without
 * the plan words stops the kernel with a scalar-trap fault (ebreak) in
 * conv_plan_missing rather than compute a wrong result.
 */
#include "cube_common.h"
#include "npuvp/conv_plan.h"

enum {
    CHUNK_KF = NPUVP_CONV_CHUNK_KF, /* streamed weights: K chunks of 128 rows x TN (<= 32 KiB) */
    RING = NPUVP_CONV_RING,         /* chunk slots in L1; tokens stay below the counter limit */
    CHUNKS_AHEAD = 4,     /* chunks issued beyond those released: 3 MTE2 instructions each, so that
                             the MTE2 queue (16) never fills and stalls the scalar unit while the
                             Cube waits for its next instruction */
    MAX_TN = NPUVP_CONV_MAX_TN,
    LOOKAHEAD = 2,        /* tiles; < BIAS_SLOTS */
    TILE_RING = 4,        /* per-tile records the issue side leaves for the compute side; > LOOKAHEAD */
    MAX_GROUPS = NPUVP_CONV_MAX_GROUPS, /* 16-column groups of resident weights (Kc * Cout16 * 2 <= 512 KiB) */
    /* the plan's K parts (NPUVP_CONV_K_PARTS, NPUVP_CONV_WIDE_K_PARTS: parts + LOOKAHEAD tokens
     * <= 15) and panel tokens (NPUVP_CONV_PANEL_TOKENS: (LOOKAHEAD + 1) * 4 <= 15) */
    WRITE_BACK_PARTS = 4, /* the block's last C tile's write-back: parts stored while the next converts */
    TAIL_KF = NPUVP_CONV_CHUNK_KF, /* K fractal rows of the last C tile's column-split tail per group of
                                      the first pass over one of the second: the second pass's Cube work
                                      on them (mf x (nf - split) x rows x 2 cycles) about covers the first
                                      pass's write-back (mf x split x 512 bytes at ~32 bytes a cycle);
                                      halves: 8 rows */
    TAIL_MIN_STEP_FRACTALS = 192, /* a half's K step at least this much Cube work (mf x nf/2 x kf fractal
                                     products, 2 cycles each): the scalar unit takes ~250 cycles to issue
                                     a K step, and smaller half steps starve the Cube (ResNet-50's layer3
                                     3 x 3 on 4 HBM-class cores, 196 x 64 tiles: 208-cycle halves, +0.8 k
                                     cycles); a small tile's write-back is short anyway */
    FIRST_STEPS = 1,      /* the first tile's load steps issued before its first K step (then one
                             per K step): the first part alone ahead of the Cube's first
                             instructions (3 and 2 measured 0.5 % and 0.3 % slower on ResNet-50);
                             all of them would fill the MTE2 queue (16) and stall the scalar unit */
};

/* event counters hold 15: the first tile's part tokens and the lookahead's slice tokens */
_Static_assert(NPUVP_CONV_K_PARTS + LOOKAHEAD <= 15 && NPUVP_CONV_WIDE_K_PARTS + LOOKAHEAD <= 15, "K parts");

typedef struct {
    const uint8_t *in, *w, *bias, *res;
    uint8_t* out;
    uint64_t n_img, c1in, h, w_, cout, c1out, cout16;
    uint64_t kh, kw, sh, sw, pt, pb, pl, pr, dh, dw, kc, kcf;
    uint64_t window;
    /* the plan (conv_plan.h: output size, tiles, Cout groups, K parts, L1 partition), as the
     * compiler computed it */
    struct npuvp_conv_plan p;
    uint64_t tn, tn_shift, panel_base; /* C tile columns (the plan's), log2 */
    uint64_t chunk, chunk_shift;       /* C tile positions (an M chunk: 256, or 256 << h for tall tiles), log2 */
    uint64_t u_begin, u_end;
    int db;
    int whole_l0c; /* the plan's whole-L0C tiles, without a residual (its UB slot holds a half's tile) */
    uint64_t l0_uses;
    /* streamed weights: chunk q (tile q / n_chunks, K chunk q % n_chunks) in ring slot q % RING */
    uint64_t chunk_bytes;
    uint64_t chunks_issued, chunks_released, tiles_described;
    uint64_t first_kf_issued; /* K fractal rows whose slice parts the first tile has issued (~0: all) */
    uint64_t desc_n0[4], desc_cols[4]; /* columns of the tiles issued last (ring by tile number) */
    uint8_t tile_panel[TILE_RING];      /* the tile loads resident weights (ring by tile number) */
    uint8_t tile_slice_piece[TILE_RING]; /* the tile loads a piece of its slice (ring by tile number) */
    /* issue side: resident 16-column groups handled (loaded or waited for) */
    uint64_t panel_loaded[MAX_GROUPS / 64];
    Epilogue ep;
} Conv;

/* Geometry of a unit. */
typedef struct {
    uint64_t img, st, cg;
    uint64_t oh0, tho, positions, chunks; /* output rows, positions, M chunks */
    uint64_t c0, channels, cols;          /* Cout range; C tile columns */
    uint64_t split_col, half;             /* the block's last column, split in two: its index and
                                             first half's channels (~0: none) */
    uint64_t span;                        /* units merged: the block's consecutive units of the same rows */
    uint64_t ih_lo, rows, pad_top, pad_bottom; /* the slice */
} Unit;

typedef struct {
    uint64_t i, u, ct, j; /* tile number in the block; unit; C tile column in the unit; M chunk */
    uint64_t slice;       /* slice number in the block */
    int new_slice;        /* the tile's unit starts a slice (its first pass loads it) */
    int first_pass;       /* the tile belongs to the first pass over its slice */
    int done;
    Unit g;
    /* issue side: the tile's load step (0 .. parts - 1) and what the tile loads, fixed at step 0 */
    uint64_t step, r0, r1, first_group, last_group;
    int panel;
    uint64_t slice_end[2];              /* last tile of the slices, ring of 2 (issue side) */
    uint64_t n0, cols;                  /* the tile's first output channel and its channels */
} Cursor;

/* a / b for the cursors' divisors, which are mostly 1 or 2 (images, blocks, splits): the
 * scalar unit takes 20 cycles for a division. */
static inline uint64_t div_fast(uint64_t a, uint64_t b) { return b == 1 ? a : b == 2 ? a >> 1 : a / b; }

/* Geometry of unit u = ((img * n_st) + st) * n_cg + cg, without divisions: the scalar
 * unit takes 20 cycles for one, and the cursors step to a new unit at every C tile of
 * small-band layers. */
static void unit_at(const Conv* c, uint64_t u, uint64_t img, uint64_t st, uint64_t cg, Unit* g) {
    g->cg = cg;
    g->st = st;
    g->img = img;
    g->oh0 = g->st * c->p.tile_ho;
    g->tho = min_u64(c->p.tile_ho, c->p.ho - g->oh0);
    g->positions = g->tho * c->p.wo;
    g->chunks = (g->positions + c->chunk - 1) >> c->chunk_shift; /* no division */
    /* the block's following units of the same rows join this one: their
     * channels are adjacent, so C tiles can be TN wide whatever TILE_COUT is */
    g->span = min_u64(c->u_end, (img * c->p.n_st + st + 1) * c->p.n_cg) - u;
    g->c0 = g->cg * c->p.group;
    g->channels = min_u64((g->cg + g->span) * c->p.group, c->cout16) - g->c0;
    g->cols = (g->channels + c->tn - 1) >> c->tn_shift; /* no division */
    /* The block's last C tile is written back after its last mmad with nothing left to overlap:
     * a single-chunk unit's last column of more than 64 channels is split in two tiles, so that the first
     * half's write-back overlaps the second half's Cube work and only the second's follows it
     * (not with 256-column tiles: those are the first tile's remedy against MTE2, nor whole-L0C
     * ones, which are another; nor with streamed weights: two 64-column halves would stream 128-byte weight rows, which the DDR's
     * channels serve badly, and twice the chunks) */
    g->split_col = ~(uint64_t)0;
    if (u + g->span >= c->u_end && g->chunks == 1 && c->tn == MAX_TN && c->p.resident && !c->whole_l0c) {
        const uint64_t last = g->channels - (g->cols - 1) * MAX_TN;
        if (last > 64) { /* halves of at least 48 (layer1's 64-channel tiles lost more in the extra tile) */
            g->split_col = g->cols - 1;
            g->half = last >> 5 << 4;
            g->cols++;
        }
    }
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

static void unit_of(const Conv* c, uint64_t u, Unit* g) {
    const uint64_t rows_unit = div_fast(u, c->p.n_cg), img = div_fast(rows_unit, c->p.n_st);
    unit_at(c, u, img, rows_unit - img * c->p.n_st, u - rows_unit * c->p.n_cg, g);
}

/* Slice rows [0, rows_needed(j)) are needed by M chunks 0..j. */
static uint64_t rows_needed(const Conv* c, const Unit* g, uint64_t j) {
    if (j + 1 >= g->chunks) return g->rows;
    const uint64_t last_row = ((j + 1) * c->chunk - 1) / c->p.wo;
    const int64_t row = (int64_t)(last_row * c->sh + (c->kh - 1) * c->dh) - (int64_t)g->pad_top + 1;
    return row < 0 ? 0 : min_u64((uint64_t)row, g->rows);
}

/* The tile's channels: columns of TN, the split column's halves. */
static void cursor_columns(const Conv* c, Cursor* k) {
    const Unit* g = &k->g;
    const uint64_t n0 = k->ct > g->split_col ? g->c0 + g->split_col * c->tn + g->half : g->c0 + k->ct * c->tn;
    k->n0 = n0;
    k->cols = k->ct == g->split_col ? g->half : min_u64(c->tn, g->c0 + g->channels - n0);
}

/* A cursor at the block's first tile. */
static void cursor_init(const Conv* c, Cursor* k) {
    k->i = k->ct = k->j = k->slice = 0;
    k->u = c->u_begin;
    k->done = k->u >= c->u_end;
    k->new_slice = k->first_pass = 1;
    k->step = 0;
    k->slice_end[0] = k->slice_end[1] = 0;
    if (!k->done) {
        unit_of(c, k->u, &k->g);
        cursor_columns(c, k);
    }
}

static void cursor_next(const Conv* c, Cursor* k) {
    const uint64_t i = k->i++;
    if (++k->j < k->g.chunks) return;
    k->j = 0;
    k->first_pass = 0;
    k->new_slice = 0;
    if (++k->ct < k->g.cols) {
        cursor_columns(c, k);
        return;
    }
    k->ct = 0;
    k->u += k->g.span;
    k->slice_end[k->slice & 1] = i;
    if (k->u >= c->u_end) {
        k->done = 1;
        return;
    }
    /* a span runs to the end of its rows' units, so the next unit starts the next rows (a new slice) */
    const uint64_t st = k->g.st + 1 < c->p.n_st ? k->g.st + 1 : 0, img = st ? k->g.img : k->g.img + 1;
    unit_at(c, k->u, img, st, 0, &k->g);
    cursor_columns(c, k);
    k->slice++;
    k->new_slice = k->first_pass = 1;
}

/* (1 or 2 slots: no remainder, which the scalar unit takes 20 cycles for, at every C tile) */
static uint64_t slice_l1(const Conv* c, const Cursor* k) {
    return c->p.slice_slots > 1 && (k->slice & 1) ? c->p.slice_slot_bytes : 0;
}
static uint64_t tile_n0(const Conv* c, const Cursor* k) {
    (void)c;
    return k->n0;
}
static uint64_t tile_cols(const Conv* c, const Cursor* k) {
    (void)c;
    return k->cols;
}
/* Resident weights: the Kc x Cout16 matrix as one nd2nz block per K part (part q at
 * q * part_kf * Cout16 * 32, its column group nb at nb * rows_q * 32, rows_q its K rows), so
 * any tile's columns of a part are a slice of it. */
static uint64_t part_rows_kf(const Conv* c, uint64_t q) { return min_u64(c->p.part_kf, c->kcf - q * c->p.part_kf); }
static uint64_t panel_part_l1(const Conv* c, uint64_t q) { return c->panel_base + q * c->p.part_kf * c->cout16 * 32; }
/* MTE1: B rows [kb, kb + kf) of the tile's columns (from column group group0, nf groups) into
 * L0B from the resident weights, whose parts are separate nd2nz blocks: one load_b_zn per part
 * the rows lie in. (*part, *in_part): the part and row in it where the rows start, advanced. */
static inline __attribute__((always_inline)) void load_b_resident(const Conv* c, uint64_t l0b, uint64_t group0,
                                                                  uint64_t kf, uint64_t nf, uint64_t* part,
                                                                  uint64_t* in_part) {
    for (uint64_t done = 0; done < kf;) {
        const uint64_t rows_kf = part_rows_kf(c, *part);
        const uint64_t n = min_u64(kf - done, rows_kf - *in_part);
        load_b_zn(l0b + done * nf * FRACTAL, panel_part_l1(c, *part) + (group0 * rows_kf + *in_part) * FRACTAL, n, nf,
                  rows_kf);
        done += n;
        *in_part += n;
        if (*in_part == rows_kf) {
            ++*part;
            *in_part = 0;
        }
    }
}

/* Issue side, at a tile's first load step: the resident 16-column groups of its columns not
 * loaded yet, [first, last) (first == last: all there; between them, loaded ones load again),
 * marked loaded. One pass over the tile's (at most 8) groups, once per tile: the compute side
 * reads the outcome from the tile ring (Conv.tile_panel) instead of keeping its own bitmap. */
static void take_missing_groups(Conv* c, Cursor* k, uint64_t* first, uint64_t* last) {
    const uint64_t nb0 = tile_n0(c, k) / 16, nb1 = nb0 + ceil_div(tile_cols(c, k), 16);
    /* in registers, the bitmap word loaded and stored once (a block's start runs this
     * before its first load: ~16 instructions a group through memory took ~190 cycles) */
    uint64_t lo = nb0, hi = nb0, w = nb0 / 64, word = c->panel_loaded[w];
    if ((nb1 - 1) / 64 == w) { /* within one word (a C tile has at most 8 groups): none or all loaded, mostly */
        const uint64_t mask = (((uint64_t)2 << (nb1 - 1 - nb0)) - 1) << (nb0 % 64);
        if (!(word & mask) || (word & mask) == mask) {
            *first = nb0;
            *last = word & mask ? nb0 : nb1;
            c->panel_loaded[w] = word | mask;
            return;
        }
    }
    for (uint64_t nb = nb0; nb < nb1; ++nb) {
        if (nb / 64 != w) {
            c->panel_loaded[w] = word;
            w = nb / 64;
            word = c->panel_loaded[w];
        }
        const uint64_t bit = (uint64_t)1 << (nb % 64);
        if (word & bit) continue;
        word |= bit;
        if (lo == hi) lo = nb;
        hi = nb + 1;
    }
    c->panel_loaded[w] = word;
    *first = lo;
    *last = hi;
}

static void tile_gm(const Conv* c, const Cursor* k, TileGm* t) {
    const uint64_t plane = c->p.ho * c->p.wo, n0 = tile_n0(c, k);
    const uint64_t m0 = k->j * c->chunk;
    const uint64_t offset = ((k->g.img * c->c1out + n0 / 16) * plane + k->g.oh0 * c->p.wo + m0) * 16;
    t->out = c->out + offset * 2;
    t->residual = c->res ? c->res + offset * 2 : 0;
    t->bias = c->bias ? c->bias + n0 * 4 : 0;
    t->rows = min_u64(c->chunk, k->g.positions - m0);
    t->cols = tile_cols(c, k);
    t->row_pitch = 32;
    t->group_pitch = plane * 32;
    t->last_group_padded = n0 + t->cols == c->cout16 && c->cout % 16 != 0;
}

/* May the loads of the tile at `k` be issued before compute of tile `now`?
 * Only if the tiles releasing the slots they wait for are already issued. */
static int can_issue(const Conv* c, const Cursor* k, uint64_t now) {
    if (k->new_slice && k->j == 0 && k->ct == 0 && k->slice >= c->p.slice_slots &&
        k->slice_end[(k->slice - c->p.slice_slots) & 1] >= now)
        return 0;
    return 1;
}

/* MTE2, streamed weights: the next K chunks, as far as the ring allows.
 * Chunk q waits for the slot chunk q - RING frees, so it is issued only once
 * that release is issued (released + RING > q), and only for tiles whose
 * columns are known (issued by the tile cursor). */
static void issue_chunks(Conv* c) {
    /* the first tile's chunks follow its slice parts (chunk q once the part of its K rows is
     * issued): queued ahead of the parts, eight chunks would hold back the second part */
    while (c->chunks_issued < c->tiles_described * c->p.n_chunks && c->chunks_issued < c->chunks_released + CHUNKS_AHEAD &&
           (c->chunks_issued >= c->p.n_chunks || c->chunks_issued * CHUNK_KF < c->first_kf_issued)) {
        const uint64_t q = c->chunks_issued++, t = q / c->p.n_chunks, kb = q % c->p.n_chunks * CHUNK_KF;
        const uint64_t rows = min_u64(CHUNK_KF, c->kcf - kb) * 16;
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);
        copy_gm_to_cbuf_nd2nz(c->panel_base + q % RING * c->chunk_bytes,
                              c->w + (kb * 16 * c->cout16 + c->desc_n0[t & 3]) * 2, rows, c->desc_cols[t & 3],
                              c->cout16 * 2, rows, XD_F16);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID3);
        if (!c->db) pipe_barrier(PIPE_ALL);
    }
}

/* The block's first tile loads its slice piece and weights part by part, a token
 * (MTE2->MTE1 EVENT_ID2) after each part, so that its Cube work starts once the first
 * part is in; later tiles' loads are issued while earlier tiles compute, one token for
 * the slice piece (EVENT_ID2) and one per panel_token_parts parts of resident weights
 * (EVENT_ID3). */
static int split_tile(const Cursor* k) { return k->i == 0; }
/* The block's first tile's residual (epilogue_prefetch) goes behind its last part instead of
 * ahead of its second: queued there, 50 KB held the Cube ~600 cycles on layer3's 1 x 1
 * 256 -> 1024 (resident weights; streamed ones keep their order). */
static int first_tile_prefetches_late(const Conv* c, const Cursor* k) { return split_tile(k) && c->p.resident; }
/* Once per block, so out of line: issue_step stays as compact as it was. */
__attribute__((noinline, flatten)) static void prefetch_late(Conv* c, const Cursor* k) {
    TileGm t;
    tile_gm(c, k, &t);
    epilogue_prefetch(&c->ep, &t, ceil_div(t.rows, 16));
}
/* Tokens the tile's loads set on MTE2->MTE1 EVENT_ID2 (the slice piece, or the first tile's parts). */
static uint64_t slice_tokens(const Conv* c, const Cursor* k, int slice_piece, int panel) {
    if (split_tile(k)) return slice_piece || panel ? c->p.parts : 0;
    return slice_piece ? 1 : 0;
}

/* MTE2: the bias row of the tile at `k` (epilogue_load_bias; its address and columns
 * only, not the whole tile_gm). */
static void issue_bias(Conv* c, const Cursor* k) {
    TileGm t;
    const uint64_t n0 = tile_n0(c, k);
    t.bias = c->bias ? c->bias + n0 * 4 : 0;
    t.cols = tile_cols(c, k);
    epilogue_load_bias(&c->ep, &t, k->i);
}

/* MTE2: load step k->step of the tile at `k`: parts in the order the Cube consumes K
 * (slice piece part, weights part), the bias row first (the tile's first mmad needs it).
 * Returns 1 when the tile's loads are all issued. */
static int issue_step(Conv* c, Cursor* k) {
    const Unit* g = &k->g;
    const uint64_t q = k->step;
    const int split = split_tile(k);
    if (q == 0) {
        /* M chunk j - 1 was the cursor's previous tile (same unit and column): its r1 (one
         * division per tile instead of two) */
        k->r0 = k->first_pass && k->j ? k->r1 : 0;
        k->r1 = k->first_pass ? rows_needed(c, g, k->j) : 0;
        c->tile_slice_piece[k->i % TILE_RING] = k->r1 > k->r0;
        if (k->first_pass && k->new_slice && k->j == 0) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);
        if (!split) issue_bias(c, k); /* first: the tile's first mmad needs it */
    }
    const int slice_piece = k->r1 > k->r0;
    const uint64_t row_bytes = c->w_ * 32;
    if (slice_piece && (split || q == 0)) {
        const uint64_t g0 = split ? q * c->p.part_groups : 0;
        const uint64_t groups = split ? min_u64(c->p.part_groups, c->c1in - g0) : c->c1in;
        copy_gm_to_cbuf_pitched(slice_l1(c, k) + (g0 * g->rows + k->r0) * row_bytes,
                                c->in + (((g->img * c->c1in + g0) * c->h) + g->ih_lo + k->r0) * row_bytes, groups,
                                (k->r1 - k->r0) * c->w_, (g->rows - (k->r1 - k->r0)) * c->w_, c->h * row_bytes, 0);
        if (!split) set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);
    }
    /* the block's first tile: its bias row after its first slice piece and before its first
     * weights: with a shared DDR, a row queued behind the weights part waits for the other cores'
     * parts too (default SoC: 1.5 k cycles for 256 bytes, the first mmad waiting on it) */
    if (split && q == 0) issue_bias(c, k);
    if (q == 0) { /* which weights the tile loads (the block's first tile: after its first slice part is under way) */
        if (!c->p.resident) { /* its weights stream in chunks (issue_chunks) */
            c->desc_n0[k->i & 3] = tile_n0(c, k);
            c->desc_cols[k->i & 3] = tile_cols(c, k);
            c->tiles_described = k->i + 1;
        }
        k->panel = 0;
        if (c->p.resident && k->j == 0) {
            take_missing_groups(c, k, &k->first_group, &k->last_group);
            k->panel = k->first_group != k->last_group;
        }
        c->tile_panel[k->i % TILE_RING] = (uint8_t)k->panel;
    }
    if (k->panel) {
        const uint64_t rows = part_rows_kf(c, q) * 16, first = k->first_group;
        copy_gm_to_cbuf_nd2nz(panel_part_l1(c, q) + first * rows * 32,
                              c->w + (q * c->p.part_kf * 16 * c->cout16 + first * 16) * 2, rows,
                              min_u64(k->last_group * 16, tile_n0(c, k) + tile_cols(c, k)) - first * 16,
                              c->cout16 * 2, rows, XD_F16);
        if (!split && ((q + 1) % c->p.panel_token_parts == 0 || q + 1 == c->p.parts))
            set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID3);
    }
    if (split && (slice_piece || k->panel)) set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);
    if (split) { /* the block's first tile: its residual after its last part */
        if (q + 1 == c->p.parts && c->p.resident) prefetch_late(c, k);
        c->first_kf_issued = q + 1 < c->p.parts ? (q + 1) * c->p.part_kf : ~(uint64_t)0;
    }
    if (++k->step < c->p.parts) {
        if (!c->db) pipe_barrier(PIPE_ALL);
        return 0;
    }
    if (!c->db) pipe_barrier(PIPE_ALL);
    k->step = 0;
    return 1;
}

/* Issues load steps of the tiles up to `through` (while their slice slots allow, see
 * can_issue), at most `steps` of them; `now` is the tile being computed. */
static void issue_loads(Conv* c, Cursor* k, uint64_t through, uint64_t now, uint64_t steps) {
    while (steps-- && !k->done && k->i <= through && (k->step > 0 || can_issue(c, k, now)))
        if (issue_step(c, k)) cursor_next(c, k);
}

/* The last tile of the block that reads the slice of tile `k`. */
static int last_of_slice(const Conv* c, const Cursor* k) {
    (void)c; /* the span's last tile: the next unit starts other rows (cursor_next) */
    return k->j + 1 >= k->g.chunks && k->ct + 1 >= k->g.cols;
}

static int last_tile_of_block(const Conv* c, const Cursor* k) {
    return k->j + 1 >= k->g.chunks && k->ct + 1 >= k->g.cols && k->u + k->g.span >= c->u_end;
}

/* V + MTE3: epilogue_write_back of the block's last C tile (double buffered, never scaled) in
 * up to WRITE_BACK_PARTS parts of column groups, each stored while the Vector unit converts the
 * next, so that after the block's last mmad only a part's store waits for its conversion
 * (layer3's 1 x 1 256 -> 1024 + Add: 2.1 k cycles between its last mmad and its end, the
 * conversion, the residual's add, ReLU and the store of 53 KB one after another). This call
 * writes groups [g_lo, g_hi): `first` the tile's first call (it takes the UB half and the
 * residual slot), final at M->V EVENT_ID2 (`tail_pass`: compute_tile's column-split tail has
 * made them final before the tile's last mmads, and issues this call between its two passes so
 * that the conversions and stores are queued while the Cube finishes the others) or at the
 * tile's M->V flag; the call reaching the last group frees L0C, the residual slot and UB. */
static void write_back_groups(const Epilogue* e, const TileGm* t, uint64_t h, uint64_t g_lo, uint64_t g_hi, int first,
                              int tail_pass) {
    const uint64_t mf = ceil_div(t->rows, 16), nf = ceil_div(t->cols, 16);
    /* the tail's second pass (few groups): a part per group, the last store's wait the shortest */
    const uint64_t per = g_lo ? 1 : ceil_div(nf, min_u64(WRITE_BACK_PARTS, nf));
    const uint64_t ub = h * UB_HALF, l0c = h * L0C_HALF;
    const int relu_in_cc = e->act == NPUVP_ACT_RELU && !e->residual;
    if (tail_pass) wait_flag(PIPE_M, PIPE_V, EVENT_ID2);
    else WAIT_FLAG01(PIPE_M, PIPE_V, h);
    if (first) {
        WAIT_FLAG01(PIPE_MTE3, PIPE_V, h);
        if (e->residual) wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    }
    for (uint64_t g0 = g_lo; g0 < g_hi;) {
        const uint64_t groups = min_u64(per, g_hi - g0), at = g0 * mf * FRACTAL, elements = mf * groups * 256;
        const int last = g0 + groups == nf;
        copy_matrix_cc_to_ubuf(ub + at, l0c + 2 * at, 1, mf * groups, 0, 0, XD_CC_F32_TO_F16, relu_in_cc);
        if (last) SET_FLAG01(PIPE_V, PIPE_M, h); /* L0C half free */
        if (e->residual) F16_REPEATS(elements, o, cfg, vadd(ub + at + o, ub + at + o, UB_RESIDUAL + at + o, cfg));
        if (e->residual && last) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        if (e->act == NPUVP_ACT_RELU && !relu_in_cc) F16_REPEATS(elements, o, cfg, vrelu(ub + at + o, ub + at + o, cfg));
        if (e->act == NPUVP_ACT_CLIP) {
            F16_REPEATS(elements, o, cfg, vmaxs(ub + at + o, ub + at + o, e->clip_lo, cfg));
            F16_REPEATS(elements, o, cfg, vmins(ub + at + o, ub + at + o, e->clip_hi, cfg));
        }
        if (last && e->zero_lanes_from && t->last_group_padded)
            epilogue_zero_padded_lanes(e, ub + (nf - 1) * mf * FRACTAL, mf);
        SET_FLAG01(PIPE_V, PIPE_MTE3, h);
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, h);
        TileGm part = *t;
        part.cols = min_u64((g0 + groups) * 16, t->cols) - g0 * 16;
        tile_store_ub(t->out + g0 * t->group_pitch, ub + at, &part, mf);
        g0 += groups;
    }
    if (g_hi == nf) SET_FLAG01(PIPE_MTE3, PIPE_V, h);
}

/* A C tile's K loop state: what compute_tile fixes for the tile, the tokens waited for so far and
 * the position of the next K step (resident weights: its part and row in it; streamed: its chunk
 * and row in it, kept as the loop goes, no divisions per step). A step never straddles a
 * streamed chunk; it may straddle resident parts (load_b_resident reads each part's rows). */
typedef struct {
    Cursor *k, *issue;
    uint64_t lookahead, mf, nf, h, kstep, slice, group0;
    int slice_done;
    uint64_t tokens, part_groups, waited, panel_tokens, panel_waited;
    uint64_t rows, cols;                /* the tile's positions and channels */
    uint64_t kb, chunk, in_chunk;       /* the next K step */
} TileSteps;

/* One K step of the tile: MTE1 fills an L0A / L0B half, the Cube accumulates into column groups
 * [g_lo, g_lo + g_n) of the tile's L0C half (`cols` channels). `first_pass`: this is the first
 * step over these K rows (it waits for their tokens); `releases`: the last (it frees their
 * slots). compute_tile inlines it with constants, so the tile's ordinary steps pay for none of
 * the tail's cases. */
static inline __attribute__((always_inline)) void k_step(Conv* c, TileSteps* s, uint64_t g_lo, uint64_t g_n,
                                                         uint64_t cols, int first_pass, int releases) {
    const uint64_t kb = s->kb, waited_before = s->waited;
    uint64_t kf, rows_kf = 0;
    int chunk_done = 0;
    if (c->p.resident) {
        kf = min_u64(s->kstep, c->kcf - kb);
    } else {
        rows_kf = min_u64(CHUNK_KF, c->kcf - s->chunk * CHUNK_KF);
        kf = min_u64(s->kstep, rows_kf - s->in_chunk);
        chunk_done = s->in_chunk + kf == rows_kf;
    }
    if (s->tokens > 1) { /* the parts holding the channel groups of this step's K columns */
        const uint64_t last_group = (kb + kf - 1) / (c->kh * c->kw);
        for (; s->waited < s->tokens && s->waited * s->part_groups <= last_group; ++s->waited)
            wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);
    } else if (s->waited < s->tokens) {
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);
        s->waited = 1;
    }
    if (!c->p.resident && s->in_chunk == 0 && first_pass) wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID3);
    for (; s->panel_waited < s->panel_tokens && s->panel_waited * c->p.panel_token_kf < kb + kf; ++s->panel_waited)
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID3); /* the resident weights of this step's K rows */
    const uint64_t p = c->db ? c->l0_uses & 1 : 0;
    c->l0_uses++;
    WAIT_FLAG01(PIPE_M, PIPE_MTE1, p);
    img2col_cbuf_to_ca(p * L0A_HALF, s->slice, c->window, s->k->j * c->chunk, kb * 16, s->mf, kf);
    if (c->p.resident) {
        load_b_resident(c, p * L0B_HALF, s->group0 + g_lo, kf, g_n, &s->chunk, &s->in_chunk);
    } else {
        const uint64_t q = s->k->i * c->p.n_chunks + s->chunk;
        const uint64_t slot = c->panel_base + q % RING * c->chunk_bytes;
        load_b_zn(p * L0B_HALF, slot + (g_lo * rows_kf + s->in_chunk) * FRACTAL, kf, g_n, rows_kf);
    }
    SET_FLAG01(PIPE_MTE1, PIPE_M, p);
    if (kb + kf >= c->kcf && s->slice_done && releases) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);
    if (!c->p.resident && chunk_done && releases) {
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);
        c->chunks_released++;
    }
    if (!c->db) pipe_barrier(PIPE_ALL);

    if (kb == 0) WAIT_FLAG01(PIPE_V, PIPE_M, s->h);
    WAIT_FLAG01(PIPE_MTE1, PIPE_M, p);
    if (kb == 0) mmad_first(&c->ep, s->k->i, s->h * L0C_HALF, p * L0A_HALF, p * L0B_HALF, s->rows, kf * 16, s->cols);
    else
        mmad(s->h * L0C_HALF + g_lo * s->mf * 2 * FRACTAL, p * L0A_HALF, p * L0B_HALF, s->rows, kf * 16,
             cols, XD_F16, 0);
    SET_FLAG01(PIPE_M, PIPE_MTE1, p);
    if (!c->db) pipe_barrier(PIPE_ALL);
    if (!c->p.resident && chunk_done && releases) issue_chunks(c);
    /* the block's first tile: the next load step once a step has taken a new part (one per K step ran
     * ahead of the parts where a part has several steps: a whole-L0C tile's steps of 2 K columns and
     * parts of 9 filled the MTE2 queue and stalled the scalar unit, 38 k -> 49 k cycles) */
    if (split_tile(s->k) && s->waited > waited_before) {
        issue_loads(c, s->issue, s->k->i + s->lookahead, s->k->i, 1);
        if (!c->p.resident) issue_chunks(c); /* the chunks of the part just issued */
    }
    s->kb += kf;
    if (!c->p.resident) {
        s->in_chunk += kf;
        if (chunk_done) {
            s->chunk++;
            s->in_chunk = 0;
        }
    }
}

/* The block's last C tile ends its K loop in two passes over column groups: its K steps over the
 * last TAIL_KF x split / (nf - split) rows run for the first `split` groups, then again for the
 * others, so that the first pass's write-back (write_back_groups) overlaps the Cube's work on the
 * second (layer3's 3 x 3 on the default SoC: one C tile per block, whose 50 KB write-back followed
 * its last mmad). Halves, with more than 3 groups and half steps (kstep fractal rows) of at least
 * TAIL_MIN_STEP_FRACTALS; a whole-L0C tile (twice the bytes to write back) of at least 8 groups
 * leaves a quarter of them for the second pass (npuvp_conv_tail_second_groups, which the planner
 * models too), whose write-back is all that follows its last mmad
 * (layer2.0's 3 x 3 stride 2: 1.2 k cycles after it instead of 2.1 k; its steps of 100 fractal
 * products kept the Cube busy). Returns the first pass's groups, 0 for none. */
static uint64_t tail_split_groups(const Conv* c, const Cursor* k, uint64_t mf, uint64_t nf, uint64_t kstep) {
    if (!c->db || nf <= 3 || !last_tile_of_block(c, k)) return 0;
    const uint64_t second = npuvp_conv_tail_second_groups(nf, c->whole_l0c);
    if (second < nf / 2) return nf - second; /* a whole-L0C tile's steps of mf x 2 x kstep: 88..128 fractal products */
    return mf * (nf / 2) * kstep >= TAIL_MIN_STEP_FRACTALS ? nf - second : 0;
}

/* The tail's two passes over the K steps from s->kb: groups [0, split) (waiting for tokens), M->V
 * EVENT_ID2 (those groups final) and their write-back, then the others (releasing slots). Out of
 * line: once per block. */
__attribute__((noinline)) static void column_split_tail(Conv* c, TileSteps* s, uint64_t split, const TileGm* t) {
    const uint64_t kb = s->kb, chunk = s->chunk, in_chunk = s->in_chunk;
    while (s->kb < c->kcf) k_step(c, s, 0, split, split * 16, 1, 0);
    set_flag(PIPE_M, PIPE_V, EVENT_ID2);
    /* queued now: issued after the second pass's steps, the Vector unit started ~0.5 k cycles
     * after the groups were final (the scalar unit paced by the Cube's queue) */
    write_back_groups(&c->ep, t, s->h, 0, split, 1, 1);
    s->kb = kb;
    s->chunk = chunk;
    s->in_chunk = in_chunk;
    while (s->kb < c->kcf) k_step(c, s, split, s->nf - split, s->cols - split * 16, 0, 1);
}

/* The tile at `k`: MTE1, Cube, write-back. The block's first tile issues the loads of
 * the tiles up to LOOKAHEAD ahead (`issue`) one step between each of its K steps: its
 * own parts fill the MTE2 queue, and issuing them at once would stall the scalar unit
 * until they are nearly loaded, with nothing queued for the Cube. */
static void compute_tile(Conv* c, Cursor* k, Cursor* issue, uint64_t lookahead) {
    const Unit* g = &k->g;
    TileGm t;
    tile_gm(c, k, &t);
    TileSteps s;
    s.k = k;
    s.issue = issue;
    s.lookahead = lookahead;
    s.rows = t.rows;
    s.cols = t.cols;
    s.mf = ceil_div(t.rows, 16);
    s.nf = ceil_div(t.cols, 16);
    s.h = c->db && !c->whole_l0c ? k->i & 1 : 0; /* a whole-L0C tile: both halves, from half 0's address */
    /* K steps fill an L0A / L0B half; in the first tile at most a part, so that step s needs
     * parts up to s only (issued by then: see the main loop) */
    /* 64 / max(mf, nf) = min(64 / mf, 64 / nf): one division of 20 cycles, not two */
    s.kstep = min_u64(64 / (s.mf > s.nf ? s.mf : s.nf), split_tile(k) ? c->p.part_kf : 64);
    s.slice = slice_l1(c, k);
    s.slice_done = last_of_slice(c, k);
    const int panel = c->tile_panel[k->i % TILE_RING]; /* set when its loads were issued */
    const int slice_piece = c->tile_slice_piece[k->i % TILE_RING]; /* likewise */
    /* EVENT_ID2 tokens still to wait for, one per part (part q holds channel groups from q * part_groups) */
    s.tokens = slice_tokens(c, k, slice_piece, panel);
    s.part_groups = s.tokens == 1 ? c->c1in : c->p.part_groups;
    s.waited = 0;
    s.panel_tokens = panel && !split_tile(k) ? c->p.panel_tokens : 0;
    s.panel_waited = 0;
    s.group0 = tile_n0(c, k) / 16; /* the tile's first column group in the weights */
    s.kb = s.chunk = s.in_chunk = 0;

    /* the residual (read at the write-back); the block's first tile's is issued after its last
     * part (issue_step) */
    if (!first_tile_prefetches_late(c, k)) epilogue_prefetch(&c->ep, &t, s.mf);
    if (k->new_slice && k->j == 0 && k->ct == 0)
        set_fmatrix(c->w_, g->rows, c->pl, c->pr, g->pad_top, g->pad_bottom);

    /* the column-split tail starts at the first step boundary from tail_from on (never the
     * first step, whose mmad adds the bias to every column) */
    const uint64_t tail_groups = tail_split_groups(c, k, s.mf, s.nf, s.kstep);
    const uint64_t tail_kf = tail_groups ? TAIL_KF * tail_groups / (s.nf - tail_groups) : 0;
    const uint64_t tail_from = tail_groups ? (c->kcf > tail_kf ? c->kcf - tail_kf : 1) : ~(uint64_t)0;
    while (s.kb < c->kcf && s.kb < tail_from) k_step(c, &s, 0, s.nf, s.cols, 1, 1);
    const uint64_t split = s.kb < c->kcf ? tail_groups : 0;
    if (split) { /* a copy: the steps' state stays in registers, its address never taken */
        TileSteps tail = s;
        column_split_tail(c, &tail, split, &t);
    }
    SET_FLAG01(PIPE_M, PIPE_V, s.h);
    if (split_tile(k)) issue_loads(c, issue, k->i + lookahead, k->i, ~(uint64_t)0); /* the rest of the lookahead */
    if (c->db && last_tile_of_block(c, k)) write_back_groups(&c->ep, &t, s.h, split, s.nf, !split, 0);
    else epilogue_write_back(&c->ep, &t, s.h);
}

/* Not inlined: the fault report names it (a launch without the plan words). */
__attribute__((noinline)) static void conv_plan_missing(void) { __asm__ volatile("ebreak"); }

void kernel_main(const uint64_t* gm_args) {
    /* read in this function, before any instruction writes UB */
    const volatile uint64_t* args = kernel_args_in_ub(gm_args);
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
    if (!npuvp_conv_plan_unpack(args, &c.p)) {
        conv_plan_missing();
        return;
    }
    c.kcf = c.c1in * c.kh * c.kw;
    c.kc = c.kcf * 16;
    c.window = xd_pack_img2col_window(c.sw, c.sh, c.kw, c.kh, c.dw, c.dh, c.c1in);
    c.l0_uses = 0;

    c.ep.act = args[NPUVP_CONV_ACT];
    /* the bounds only matter to Clip (the conversion is ~50 cycles of a block's start) */
    c.ep.clip_lo = c.ep.act == NPUVP_ACT_CLIP ? f32_bits_to_f16(args[NPUVP_CONV_CLIP_MIN]) : 0;
    c.ep.clip_hi = c.ep.act == NPUVP_ACT_CLIP ? f32_bits_to_f16(args[NPUVP_CONV_CLIP_MAX]) : 0;
    c.ep.alpha = 0;
    c.ep.bias = c.bias;
    c.ep.residual = c.res != 0;
    c.ep.serial = !c.db;
    /* Clip with a bound of the wrong sign would make padded channels non-zero. */
    const int clip_moves_zero = c.ep.act == NPUVP_ACT_CLIP &&
                                ((!(c.ep.clip_lo & 0x8000) && c.ep.clip_lo != 0) ||
                                 ((c.ep.clip_hi & 0x8000) && (c.ep.clip_hi & 0x7fff)));
    c.ep.zero_lanes_from = clip_moves_zero ? c.cout % 16 : 0;

    /* units [U*b/B, U*(b+1)/B) */
    const uint64_t blocks = block_dim(), b = block_idx();
    c.u_begin = div_fast(c.p.units * b, blocks);
    c.u_end = div_fast(c.p.units * (b + 1), blocks);
    if (c.u_begin >= c.u_end) return;
    c.tn = c.p.tn;
    /* log2 by cases, not a loop: a block's start is on every layer's critical path (a loop of
     * a few iterations each for both cost ResNet-50 10 us on 2 HBM-class cores) */
    c.tn_shift = c.tn == NPUVP_CONV_WIDE_TN ? 8 : c.tn == NPUVP_CONV_MAX_TN ? 7 : c.tn == NPUVP_CONV_MAX_TN / 2 ? 6 : 5;
    c.whole_l0c = c.p.whole_l0c && !c.res;
    c.chunk_shift = c.whole_l0c              ? 9 /* 512 positions x 128 columns in both L0C halves */
                    : c.tn < NPUVP_CONV_MAX_TN ? 15 - c.tn_shift
                                               : 8; /* 256 positions x 128 columns, or taller */
    c.chunk = (uint64_t)1 << c.chunk_shift;
    c.chunk_bytes = CHUNK_KF * 16 * MAX_TN * 2;
    c.panel_base = c.p.slice_slots * c.p.slice_slot_bytes;
    c.chunks_issued = c.chunks_released = c.tiles_described = 0;
    c.first_kf_issued = 0;

    for (uint64_t i = 0; i < c.p.slice_slots; ++i) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);
    if (!c.p.resident)
        for (uint64_t i = 0; i < RING; ++i) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3); /* chunk slots free */
    cube_pipeline_open();
    epilogue_open(&c.ep);

    /* Every load a tile waits for is issued before its first MTE1 instruction; the lookahead
     * too, except for the first tile: its first FIRST_STEPS parts go first (all of them would
     * fill the MTE2 queue and stall the scalar unit before its first K step; the compute
     * cursor is set up while they load), compute_tile issues one more step after each K step
     * (part p is needed at K step p at the earliest: every part has at least one), then the
     * lookahead. */
    Cursor issue, compute;
    cursor_init(&c, &issue);
    /* the words of the layer's groups only, most often one (GCC makes a loop a call to memset:
     * ~60 cycles before the block's first load) */
    c.panel_loaded[0] = 0;
    for (uint64_t p = 1, words = (c.cout16 / 16 + 63) / 64; p < words; ++p) ((volatile uint64_t*)c.panel_loaded)[p] = 0;
    /* the compute cursor: a copy of the issue cursor at the block's first tile, made once the
     * first part is issued if the issue cursor is still at that tile (a copy, not cursor_init's
     * divisions again, and not before the first load) */
    const int first_tile_issued_early = c.p.parts <= FIRST_STEPS;
    if (first_tile_issued_early) compute = issue;
    for (uint64_t step = 0; step < FIRST_STEPS; ++step) { /* a part, then its streamed chunks */
        issue_loads(&c, &issue, 0, 0, 1);
        if (!c.p.resident) issue_chunks(&c);
    }
    if (!first_tile_issued_early) compute = issue;
    const uint64_t lookahead = c.db ? LOOKAHEAD : 0;
    while (!compute.done) {
        if (compute.i) issue_loads(&c, &issue, compute.i + lookahead, compute.i, ~(uint64_t)0);
        if (!c.p.resident) issue_chunks(&c);
        compute_tile(&c, &compute, &issue, lookahead);
        cursor_next(&c, &compute);
    }

    for (uint64_t i = 0; i < c.p.slice_slots; ++i) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);
    if (!c.p.resident)
        for (uint64_t i = 0; i < RING; ++i) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);
    epilogue_close(&c.ep);
    cube_pipeline_close();
}
