/*
 * The Conv kernel's plan (sw/kernels/op_conv.c): output size, spatial tiles,
 * Cout groups, K parts, the resident or streamed weights and the L1 partition
 * of one NPUVP_OP_KERNEL_CONV launch. It depends only on the layer's shapes,
 * the tiling asked for (TILE_HO, TILE_COUT), the task blocks and double
 * buffering, so it is computed once where those are known -- by the compiler
 * (sw/compiler/src/lower_conv.cpp) or a test that launches the kernel -- and
 * travels in the argument words NPUVP_CONV_PLAN_* (operator_kernels.h); the
 * kernel only unpacks them. A block's start used to compute it on the scalar
 * unit: ~300 instructions and 6 divisions of 20 cycles before its first load.
 *
 * One implementation for both sides: plain C, included by the RISC-V kernel
 * and by the C++ compiler. An impossible plan is refused here, with the
 * reason, so the compiler reports it naming the node instead of the kernel
 * stopping with a fault.
 */
#pragma once

#include <stdint.h>

#include "operator_kernels.h" /* beside this file: found whatever the include path */

/* op_conv.c's buffer partition and limits. */
enum {
    NPUVP_CONV_L1_BYTES = 1 << 20,
    NPUVP_CONV_RESIDENT_BYTES = 512 << 10, /* weights at most this large stay in L1 */
    NPUVP_CONV_CHUNK_KF = 8,  /* streamed weights: K chunks of 128 rows x MAX_TN columns (<= 32 KiB) */
    NPUVP_CONV_RING = 8,      /* streamed weight chunk slots in L1 */
    NPUVP_CONV_MAX_TN = 128,  /* C tile columns */
    NPUVP_CONV_WIDE_TN = 256, /* C tile columns when a tile has at most WIDE_MAX_POSITIONS positions */
    NPUVP_CONV_WIDE_MAX_POSITIONS = 128, /* 8 fractal rows x 16 fractal columns of f32: an L0C half */
    NPUVP_CONV_TILE_POSITIONS = 256, /* C tile rows: an M chunk of 16 fractal rows */
    NPUVP_CONV_WHOLE_L0C_POSITIONS = 512, /* whole-L0C tiles: 512 x 128 f32, all of L0C (256 KiB) */
    /* tall C tiles of height h (NPUVP_CONV_FLAGS bits 1-2): M chunks of 256 << h positions by
     * 128 >> h columns (the same L0C half). Per weight byte a C tile then has 256 << h positions
     * of Cube work: a core keeps its Cube busy while its weights arrive at 16 >> h B/cycle (a
     * core's share of the default DDR is 6.4), and a span of more than 128 >> h channels is
     * several columns, the next column's weights loading while the Cube works on the first */
    NPUVP_CONV_MAX_GROUPS = 1024,    /* 16-column groups of resident weights */
    NPUVP_CONV_K_PARTS = 8,   /* the first tile's loads split by input channel groups */
    NPUVP_CONV_PART_MIN_KF = 8, /* a part has at least this many fractal columns of K */
    /* with 256-column C tiles: smaller parts, so the Cube starts sooner (layer3's 1 x 1
     * 1024 -> 256: the first part 93 -> 58 KB, its first mmad ~580 cycles sooner); at most 13 so
     * that the parts' tokens and the lookahead's (op_conv.c's LOOKAHEAD, 2) stay within the
     * event counter's 15 */
    NPUVP_CONV_WIDE_K_PARTS = 13,
    NPUVP_CONV_WIDE_PART_MIN_KF = 4,
    NPUVP_CONV_PANEL_TOKENS = 4, /* at most, per later tile loading resident weights */
    NPUVP_CONV_FRACTAL_BYTES = 512,
    NPUVP_CONV_MAX_WINDOW_FIELD = 255, /* set_fmatrix and img2col hold 8-bit pads, sizes, strides, dilations */
};

/* The layer: the argument words NPUVP_CONV_N .. NPUVP_CONV_DILATION_W. */
struct npuvp_conv_geometry {
    uint64_t n, cin, h, w, cout, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw;
};

struct npuvp_conv_plan {
    uint64_t ho, wo;           /* output rows and columns */
    uint64_t tile_ho, n_st;    /* output rows per spatial tile; spatial tiles per image */
    uint64_t group, n_cg;      /* output channels per Cout group (a multiple of 16); groups */
    uint64_t units;            /* n x n_st x n_cg: the work the blocks share */
    /* K parts: input channel groups [q * part_groups, (q + 1) * part_groups) are K fractal
     * columns [q * part_kf, (q + 1) * part_kf); the first tile loads part by part */
    uint64_t parts, part_groups, part_kf;
    /* a later tile's resident weights: a token per panel_token_parts parts (panel_token_kf K
     * fractal columns), panel_tokens of them */
    uint64_t panel_token_parts, panel_token_kf, panel_tokens;
    uint64_t n_chunks;         /* streamed weights: K chunks per C tile */
    uint64_t slice_slots, slice_slot_bytes; /* input slices in L1 (the weights follow them) */
    uint64_t resident;         /* 1: all weights stay in L1; 0: they stream through the ring */
    uint64_t tn;               /* C tile columns: MAX_TN, WIDE_TN, or MAX_TN >> h for tall tiles */
    /* 1: whole-L0C tiles (NPUVP_CONV_FLAG_WHOLE_L0C): M chunks of WHOLE_L0C_POSITIONS x MAX_TN
     * columns, each in both L0C halves, so a block's tiles run one at a time (a band of one
     * such tile, whose first tile would be bound by MTE2 in a half: npuvp_conv_whole_l0c) */
    uint64_t whole_l0c;
};

/* The positions of a C tile (an M chunk) of a plan whose tiles are tn columns wide: an L0C half,
 * or all of L0C for whole-L0C tiles. */
static inline uint64_t npuvp_conv_chunk_positions(uint64_t tn, uint64_t whole_l0c) {
    if (whole_l0c) return NPUVP_CONV_WHOLE_L0C_POSITIONS;
    return (uint64_t)NPUVP_CONV_TILE_POSITIONS * (tn < NPUVP_CONV_MAX_TN ? NPUVP_CONV_MAX_TN / tn : 1);
}

/* Whole-L0C tiles apply to resident weights in 128-column tiles (not wide, not tall) whose band of
 * band_positions is more than one L0C half's M chunk and fits one whole-L0C tile; double buffered
 * (the L0C halves they give up are double buffering's). */
static inline int npuvp_conv_whole_l0c(int double_buffering, int resident, uint64_t tn, uint64_t band_positions) {
    return double_buffering && resident && tn == NPUVP_CONV_MAX_TN && band_positions > NPUVP_CONV_TILE_POSITIONS &&
           band_positions <= NPUVP_CONV_WHOLE_L0C_POSITIONS;
}

/* op_conv.c's column-split tail: of the block's last C tile's nf column groups (more than 3), those
 * its second pass computes, whose write-back alone follows the tile's last mmad: a quarter of a
 * whole-L0C tile's 8, else half (op_conv.c also requires half steps of enough Cube work). */
static inline uint64_t npuvp_conv_tail_second_groups(uint64_t nf, int whole_l0c) {
    return whole_l0c && nf / 4 >= 2 ? nf / 4 : nf - nf / 2;
}

static inline uint64_t npuvp_conv_ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
static inline uint64_t npuvp_conv_min(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t npuvp_conv_round16(uint64_t a) { return (a + 15) & ~(uint64_t)15; }

/* K parts of a layer with c1in input channel groups and kcf fractal columns of K: at most
 * K_PARTS, each at least PART_MIN_KF columns (a short K gains nothing from splitting). */
static inline uint64_t npuvp_conv_part_groups_within(uint64_t c1in, uint64_t kcf, uint64_t most, uint64_t min_kf) {
    const uint64_t by_k = kcf / min_kf ? kcf / min_kf : 1;
    const uint64_t parts = npuvp_conv_min(npuvp_conv_min(most, c1in), by_k);
    return npuvp_conv_ceil_div(c1in, parts);
}
static inline uint64_t npuvp_conv_part_groups(uint64_t c1in, uint64_t kcf) {
    return npuvp_conv_part_groups_within(c1in, kcf, NPUVP_CONV_K_PARTS, NPUVP_CONV_PART_MIN_KF);
}

/* The C tiles' columns of a plan: resident weights get C tiles twice as wide when a band has at
 * most 128 positions (14 x 14 and 7 x 7 maps split by rows): per K column the tile then needs
 * ~2 / 3 of the bytes for its MACs, so the block's first C tile, which loads the slice and its
 * weight columns as the Cube goes, is no longer bound by MTE2 (it was on layer3's 1 x 1
 * 1024 -> 256: a part of 60 KB for 912 Cube cycles); tall ones of height `tall` (bands of more
 * than one M chunk) are 128 >> tall wide; streamed weights keep their 128-column chunk ring. */
static inline uint64_t npuvp_conv_tile_columns(int resident, uint64_t band_positions, uint64_t tall) {
    if (!resident) return NPUVP_CONV_MAX_TN;
    if (band_positions <= NPUVP_CONV_WIDE_MAX_POSITIONS) return NPUVP_CONV_WIDE_TN;
    return tall && band_positions > NPUVP_CONV_TILE_POSITIONS ? NPUVP_CONV_MAX_TN >> tall : NPUVP_CONV_MAX_TN;
}

/* Input channel groups per K part of a plan with tn-column C tiles (more, smaller parts with
 * 256-column tiles). */
static inline uint64_t npuvp_conv_plan_part_groups(uint64_t c1in, uint64_t kcf, uint64_t tn) {
    return tn == NPUVP_CONV_WIDE_TN
               ? npuvp_conv_part_groups_within(c1in, kcf, NPUVP_CONV_WIDE_K_PARTS, NPUVP_CONV_WIDE_PART_MIN_KF)
               : npuvp_conv_part_groups(c1in, kcf);
}

/* The plan of a launch on `blocks` task blocks; tile_ho, tile_cout: the tiling asked for
 * (0: the kernel's default: the rows an image gets when the blocks share the images, split
 * over Cout instead when the weights outweigh an image); flags: NPUVP_CONV_FLAG_* (tall
 * tiles only where they differ: resident weights, bands of more than one M chunk). Returns
 * 0, or the reason the kernel cannot run the layer. */
static inline const char* npuvp_conv_plan_make(const struct npuvp_conv_geometry* g, uint64_t tile_ho,
                                               uint64_t tile_cout, uint64_t blocks, uint64_t flags,
                                               struct npuvp_conv_plan* p) {
    const int double_buffering = (flags & NPUVP_CONV_FLAG_DOUBLE_BUFFERING) != 0;
    const uint64_t c1in = npuvp_conv_ceil_div(g->cin, 16), cout16 = npuvp_conv_round16(g->cout);
    const uint64_t most = NPUVP_CONV_MAX_WINDOW_FIELD;
    p->ho = p->wo = p->tile_ho = p->n_st = p->group = p->n_cg = p->units = 0;
    p->parts = p->part_groups = p->part_kf = p->panel_token_parts = p->panel_token_kf = p->panel_tokens = 0;
    p->n_chunks = p->slice_slots = p->slice_slot_bytes = p->resident = 0;
    p->tn = NPUVP_CONV_MAX_TN;
    p->whole_l0c = 0;
    if (g->n == 0 || c1in == 0 || g->cout == 0) return 0; /* nothing to compute: no units */
    if (g->kh == 0 || g->kw == 0 || g->sh == 0 || g->sw == 0 || g->dh == 0 || g->dw == 0)
        return "a kernel size, stride or dilation is 0";
    if (g->pt > most || g->pb > most || g->pl > most || g->pr > most || g->kh > most || g->kw > most ||
        g->sh > most || g->sw > most || g->dh > most || g->dw > most)
        return "a pad, kernel size, stride or dilation is above 255 (set_fmatrix and img2col hold 8 bits)";
    const uint64_t window = (g->kh - 1) * g->dh + 1, window_w = (g->kw - 1) * g->dw + 1;
    if (g->h + g->pt + g->pb < window || g->w + g->pl + g->pr < window_w)
        return "the window is larger than the padded input";
    p->ho = (g->h + g->pt + g->pb - window) / g->sh + 1;
    p->wo = (g->w + g->pl + g->pr - window_w) / g->sw + 1;
    const uint64_t kcf = c1in * g->kh * g->kw, weights = kcf * 16 * cout16 * 2;
    p->resident = weights <= NPUVP_CONV_RESIDENT_BYTES;
    if (p->resident && cout16 / 16 > NPUVP_CONV_MAX_GROUPS) return "more than 1024 column groups of resident weights";

    /* the work split: spatial tiles (splits of each image) and Cout groups */
    const uint64_t image_bytes = c1in * g->h * g->w * 32;
    uint64_t splits = 1, n_cg = 1;
    if (g->n < blocks) splits = npuvp_conv_ceil_div(blocks, g->n);
    if (tile_cout) {
        p->group = npuvp_conv_min(npuvp_conv_round16(tile_cout), cout16);
    } else {
        if (splits > 1 && weights > image_bytes) { /* split the weights, not the image */
            n_cg = npuvp_conv_min(cout16 / 16, splits);
            splits = 1;
        }
        p->group = npuvp_conv_round16(npuvp_conv_ceil_div(cout16, n_cg));
    }
    p->n_cg = npuvp_conv_ceil_div(cout16, p->group);

    p->n_chunks = npuvp_conv_ceil_div(kcf, NPUVP_CONV_CHUNK_KF);
    const uint64_t chunk_bytes = NPUVP_CONV_CHUNK_KF * 16 * NPUVP_CONV_MAX_TN * 2;
    const uint64_t panel_area = p->resident ? weights : NPUVP_CONV_RING * chunk_bytes;

    /* output rows per spatial tile: as asked / as the split wants, as the slice fits */
    const uint64_t budget = NPUVP_CONV_L1_BYTES - panel_area, row_bytes = c1in * g->w * 32;
    if (row_bytes * npuvp_conv_min(window, g->h) > budget)
        return "the input rows of one output row do not fit L1 beside the weights";
    const uint64_t rows_fit = npuvp_conv_min(budget / row_bytes, g->h);
    uint64_t tho_fit = rows_fit >= window ? (rows_fit - window) / g->sh + 1 : 1;
    if (rows_fit >= g->h) tho_fit = p->ho;
    p->tile_ho = tile_ho ? tile_ho : npuvp_conv_ceil_div(p->ho, splits);
    p->tile_ho = npuvp_conv_min(npuvp_conv_min(p->tile_ho, tho_fit), p->ho);
    /* a band whose window lies wholly in the padding is read with a top pad of the window's
     * height (op_conv.c's unit_at), which must fit 8 bits */
    if (g->pt >= window || g->pb >= window) {
        if (window > most) return "a band of output rows in the padding needs a pad above 255";
        p->tile_ho = npuvp_conv_min(p->tile_ho, (most - window) / g->sh + 1);
    }
    p->n_st = npuvp_conv_ceil_div(p->ho, p->tile_ho);
    const uint64_t slice_rows = npuvp_conv_min(g->h, (p->tile_ho - 1) * g->sh + window);
    p->slice_slot_bytes =
        npuvp_conv_ceil_div(slice_rows * row_bytes, NPUVP_CONV_FRACTAL_BYTES) * NPUVP_CONV_FRACTAL_BYTES;
    p->slice_slots = double_buffering && 2 * p->slice_slot_bytes <= budget ? 2 : 1;
    p->units = g->n * p->n_st * p->n_cg;
    const uint64_t tall = (flags & NPUVP_CONV_FLAG_TALL_MASK) >> NPUVP_CONV_FLAG_TALL_SHIFT;
    if (tall > NPUVP_CONV_MAX_TALL) return "a C tile height above 2 (NPUVP_CONV_FLAGS bits 1-2)";
    p->tn = npuvp_conv_tile_columns((int)p->resident, p->tile_ho * p->wo, tall);
    p->whole_l0c = (flags & NPUVP_CONV_FLAG_WHOLE_L0C) &&
                   npuvp_conv_whole_l0c(double_buffering, (int)p->resident, p->tn, p->tile_ho * p->wo);
    p->part_groups = npuvp_conv_plan_part_groups(c1in, kcf, p->tn);
    p->parts = npuvp_conv_ceil_div(c1in, p->part_groups);
    p->part_kf = p->part_groups * g->kh * g->kw;
    p->panel_token_parts = npuvp_conv_ceil_div(p->parts, NPUVP_CONV_PANEL_TOKENS);
    p->panel_token_kf = p->panel_token_parts * p->part_kf;
    p->panel_tokens = npuvp_conv_ceil_div(p->parts, p->panel_token_parts);
    return 0;
}

/* The plan's argument words (NPUVP_CONV_PLAN_*), fields of 16 bits unless said:
 *   PLAN_ROWS  ho | wo << 16 | tile_ho << 32 | n_st << 48
 *   PLAN_COUT  group | n_cg << 16 | units << 32 (32 bits)
 *   PLAN_K     part_groups | part_kf << 16 | panel_token_kf << 32 | n_chunks << 48
 *   PLAN_L1    slice_slot_bytes (32 bits) | slice_slots << 32 (4) | resident << 36 (1) |
 *              (tn == WIDE_TN) << 37 (1) | h << 38 (2, tn == MAX_TN >> h) | parts << 40 (8) |
 *              panel_token_parts << 48 (8) |
 *              panel_tokens << 56 (6) | whole_l0c << 62 (1) |
 *              1 << 63 (a plan: a launch without one stops the kernel)
 * Returns 0, or the field that does not fit. */
#define NPUVP_CONV_PLAN_PRESENT ((uint64_t)1 << 63)
static inline const char* npuvp_conv_plan_pack(const struct npuvp_conv_plan* p, uint64_t* args) {
    const uint64_t b16 = 0xffff, b32 = 0xffffffffu, b8 = 0xff;
    if (p->ho > b16 || p->wo > b16 || p->tile_ho > b16 || p->n_st > b16) return "output rows or columns above 65535";
    if (p->group > b16 || p->n_cg > b16 || p->units > b32) return "output channels above 65535";
    if (p->part_groups > b16 || p->part_kf > b16 || p->panel_token_kf > b16 || p->n_chunks > b16)
        return "K (input channels x kernel size) above 65535 x 16";
    if (p->slice_slot_bytes > b32 || p->slice_slots > 15 || p->parts > b8 || p->panel_token_parts > b8 ||
        p->panel_tokens > 63 || p->whole_l0c > 1 ||
        (p->tn != NPUVP_CONV_WIDE_TN && p->tn != NPUVP_CONV_MAX_TN && p->tn != NPUVP_CONV_MAX_TN / 2 &&
         p->tn != NPUVP_CONV_MAX_TN / 4))
        return "internal: a plan field outside its bits";
    args[NPUVP_CONV_PLAN_ROWS] = p->ho | p->wo << 16 | p->tile_ho << 32 | p->n_st << 48;
    args[NPUVP_CONV_PLAN_COUT] = p->group | p->n_cg << 16 | p->units << 32;
    args[NPUVP_CONV_PLAN_K] = p->part_groups | p->part_kf << 16 | p->panel_token_kf << 32 | p->n_chunks << 48;
    args[NPUVP_CONV_PLAN_L1] = p->slice_slot_bytes | p->slice_slots << 32 | p->resident << 36 |
                               (uint64_t)(p->tn == NPUVP_CONV_WIDE_TN) << 37 |
                               (uint64_t)(p->tn == NPUVP_CONV_MAX_TN / 2 ? 1 : p->tn == NPUVP_CONV_MAX_TN / 4 ? 2 : 0) << 38 |
                               p->parts << 40 |
                               p->panel_token_parts << 48 | p->panel_tokens << 56 | p->whole_l0c << 62 |
                               NPUVP_CONV_PLAN_PRESENT;
    return 0;
}

/* The kernel's side: the plan from its argument words; 0 if the launch carries none. */
static inline int npuvp_conv_plan_unpack(const volatile uint64_t* args, struct npuvp_conv_plan* p) {
    const uint64_t rows = args[NPUVP_CONV_PLAN_ROWS], cout = args[NPUVP_CONV_PLAN_COUT];
    const uint64_t k = args[NPUVP_CONV_PLAN_K], l1 = args[NPUVP_CONV_PLAN_L1];
    p->ho = rows & 0xffff;
    p->wo = rows >> 16 & 0xffff;
    p->tile_ho = rows >> 32 & 0xffff;
    p->n_st = rows >> 48;
    p->group = cout & 0xffff;
    p->n_cg = cout >> 16 & 0xffff;
    p->units = cout >> 32;
    p->part_groups = k & 0xffff;
    p->part_kf = k >> 16 & 0xffff;
    p->panel_token_kf = k >> 32 & 0xffff;
    p->n_chunks = k >> 48;
    p->slice_slot_bytes = l1 & 0xffffffffu;
    p->slice_slots = l1 >> 32 & 0xf;
    p->resident = l1 >> 36 & 1;
    p->tn = l1 >> 37 & 1 ? NPUVP_CONV_WIDE_TN : NPUVP_CONV_MAX_TN >> (l1 >> 38 & 3);
    p->parts = l1 >> 40 & 0xff;
    p->panel_token_parts = l1 >> 48 & 0xff;
    p->panel_tokens = l1 >> 56 & 0x3f;
    p->whole_l0c = l1 >> 62 & 1;
    return (l1 & NPUVP_CONV_PLAN_PRESENT) != 0;
}

/* Plan and pack in one: the argument words of a launch whose other words are set. */
static inline const char* npuvp_conv_plan_args(uint64_t* args, uint64_t blocks) {
    const struct npuvp_conv_geometry g = {
        args[NPUVP_CONV_N],         args[NPUVP_CONV_CIN],        args[NPUVP_CONV_H],
        args[NPUVP_CONV_W],         args[NPUVP_CONV_COUT],       args[NPUVP_CONV_KH],
        args[NPUVP_CONV_KW],        args[NPUVP_CONV_STRIDE_H],   args[NPUVP_CONV_STRIDE_W],
        args[NPUVP_CONV_PAD_TOP],   args[NPUVP_CONV_PAD_BOTTOM], args[NPUVP_CONV_PAD_LEFT],
        args[NPUVP_CONV_PAD_RIGHT], args[NPUVP_CONV_DILATION_H], args[NPUVP_CONV_DILATION_W]};
    struct npuvp_conv_plan p;
    const char* reason = npuvp_conv_plan_make(&g, args[NPUVP_CONV_TILE_HO], args[NPUVP_CONV_TILE_COUT], blocks,
                                              args[NPUVP_CONV_FLAGS], &p);
    return reason ? reason : npuvp_conv_plan_pack(&p, args);
}
