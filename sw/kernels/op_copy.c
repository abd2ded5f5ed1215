/*
 * Strided copy (slot 11, NPUVP_OP_KERNEL_COPY): for every index i of
 * DIM0 x ... x DIM5, out[sum i_d * OUT_STRIDE_d] = in[sum i_d * IN_STRIDE_d],
 * elements of ELEMENT_BYTES (1, 2 or 4) bytes. Transpose, the slices of
 * Concat, the interior of Pad, Slice and the ND <-> 5HD conversions are all
 * this (sw/include/npuvp/operator_kernels.h has the argument words).
 *
 * Only the destination elements are written (UB -> GM bursts write their
 * `valid` bytes only), so slices of a Concat may sit next to each other and
 * blocks never race on a byte.
 *
 * Normalisation (every block, on the scalar unit): dims of extent 1 are
 * dropped, the rest ordered by output stride (outermost first), and
 * neighbours merged where both sides are contiguous across them, so the
 * last dim is the output's innermost. Then one of three paths:
 *
 *  (a) rows: the last dim has stride 1 on both sides. A chunk is up to 4095
 *      consecutive rows along the dim before it (one pitched GM -> UB copy,
 *      one pitched UB -> GM copy, each row `valid` bytes), or one piece of a
 *      row longer than a UB half. MTE2 and MTE3 ping-pong over two UB halves.
 *  (b) transpose: the output's innermost dim o has output stride 1 and
 *      another dim i has input stride 1 (Transpose, NCHW <-> 5HD), elements
 *      of 2 or 4 bytes. A tile of To x Ti elements (To <= 255, Ti up to 255
 *      blocks, each side <= 60 KiB, at least 4 tiles a block where they can
 *      shrink) comes into UB as To contiguous input rows (one pitched copy;
 *      rows closer than twice their length as one burst over the whole
 *      span), the Vector unit transposes it with one vcmax per output row
 *      (a single active lane reduces to that lane's exact bits; repeat r
 *      reads input row r, the result of repeat r lands at dst + r * e: a
 *      gather down a column), and one pitched copy stores the Ti output
 *      rows of To elements (one burst when they are whole output rows).
 *      MTE2, V and MTE3 overlap through two UB halves.
 *  (c) anything else (1-byte transposes, gathers, broadcasts): the last dim
 *      moves element by element, each element in its own 32-byte UB block
 *      (GM -> UB bursts of `valid` = e bytes at the input pitch, UB -> GM
 *      bursts of e bytes at the output pitch), up to 2048 elements a chunk.
 *
 * Task blocks split the outer index space (rows for (a), tiles for (b),
 * chunks of the last dim for (c)) into contiguous ranges.
 */
#include "npuvp/operator_kernels.h"

#include "vector_common.h" /* set_mask_all, flags, min_u64, ceil_div */

enum {
    COPY_HALF = 128 << 10,  /* UB ping-pong halves */
    TILE_OUT_OFFSET = 64 << 10, /* (b): output tile in the second quarter of a half */
    TILE_LIMIT = 60 << 10,      /* (b): bytes of an input or output tile */
    MAX_BURSTS = 4095,
    ELEMENT_CHUNK = 2048,   /* (c): elements per chunk, one 32-byte block each */
    MAX_VECTOR_STRIDE = 255,
};

typedef struct {
    uint64_t rank, e;                   /* dims after normalisation, element bytes */
    uint64_t dim[NPUVP_COPY_MAX_RANK];
    uint64_t is[NPUVP_COPY_MAX_RANK];   /* input strides in bytes */
    uint64_t os[NPUVP_COPY_MAX_RANK];   /* output strides in bytes */
    const uint8_t* in;
    uint8_t* out;
} Space;

/* Drops extent-1 dims, sorts by output stride (descending, stable) and merges
 * dims that are contiguous on both sides. Returns 0 when there is nothing to
 * copy (an extent of 0). */
static int normalise(const uint64_t* args, Space* s) {
    s->e = args[NPUVP_COPY_ELEMENT_BYTES];
    s->in = (const uint8_t*)(uintptr_t)args[NPUVP_COPY_IN];
    s->out = (uint8_t*)(uintptr_t)args[NPUVP_COPY_OUT];
    s->rank = 0;
    for (uint64_t d = 0; d < NPUVP_COPY_MAX_RANK; ++d) {
        const uint64_t n = args[NPUVP_COPY_DIM0 + d];
        if (n == 0) return 0;
        if (n == 1) continue;
        s->dim[s->rank] = n;
        s->is[s->rank] = args[NPUVP_COPY_IN_STRIDE0 + d] * s->e;
        s->os[s->rank] = args[NPUVP_COPY_OUT_STRIDE0 + d] * s->e;
        s->rank++;
    }
    for (uint64_t a = 1; a < s->rank; ++a) /* insertion sort: keeps equal strides in order */
        for (uint64_t b = a; b > 0 && s->os[b - 1] < s->os[b]; --b) {
            uint64_t t = s->dim[b]; s->dim[b] = s->dim[b - 1]; s->dim[b - 1] = t;
            t = s->is[b]; s->is[b] = s->is[b - 1]; s->is[b - 1] = t;
            t = s->os[b]; s->os[b] = s->os[b - 1]; s->os[b - 1] = t;
        }
    uint64_t r = 0;
    for (uint64_t d = 0; d < s->rank; ++d) {
        if (r > 0 && s->is[r - 1] == s->is[d] * s->dim[d] && s->os[r - 1] == s->os[d] * s->dim[d]) {
            s->dim[r - 1] *= s->dim[d];
            s->is[r - 1] = s->is[d];
            s->os[r - 1] = s->os[d];
            continue;
        }
        s->dim[r] = s->dim[d];
        s->is[r] = s->is[d];
        s->os[r] = s->os[d];
        r++;
    }
    s->rank = r;
    if (s->rank == 0) { /* a single element */
        s->rank = 1;
        s->dim[0] = 1;
        s->is[0] = s->os[0] = s->e;
    }
    return 1;
}

/* Byte offsets of the linear index `index` over dims[0, n) (row-major). */
static void offsets_of(const Space* s, uint64_t n, uint64_t index, uint64_t* in_off, uint64_t* out_off) {
    uint64_t i_off = 0, o_off = 0;
    for (uint64_t d = n; d-- > 0;) {
        const uint64_t x = index % s->dim[d];
        index /= s->dim[d];
        i_off += x * s->is[d];
        o_off += x * s->os[d];
    }
    *in_off = i_off;
    *out_off = o_off;
}

static uint64_t product(const Space* s, uint64_t n) {
    uint64_t p = 1;
    for (uint64_t d = 0; d < n; ++d) p *= s->dim[d];
    return p;
}

/* This block's share [*begin, *end) of `items`. */
static void block_share(uint64_t items, uint64_t* begin, uint64_t* end) {
    const uint64_t blocks = block_dim(), b = block_idx();
    *begin = items * b / blocks;
    *end = items * (b + 1) / blocks;
}

/* A GM pitch usable for n_burst > 1 bursts: non-zero (0 means "dense") and
 * within the 32-bit field. */
static int pitch_ok(uint64_t pitch) { return pitch != 0 && pitch <= 0xffffffffull; }

/* One MTE2 -> MTE3 hand-over through UB half p: n bursts of `valid` bytes,
 * `blocks` 32-byte blocks apart in UB. The MTE3->MTE2 token of half p says
 * it is free. */
static void move_chunk(uint8_t* dst, const uint8_t* src, uint64_t n, uint64_t blocks, uint64_t in_pitch,
                       uint64_t out_pitch, uint64_t valid, uint64_t p) {
    WAIT_FLAG01(PIPE_MTE3, PIPE_MTE2, p);
    copy_gm_to_ubuf_pitched(p * COPY_HALF, src, n, blocks, 0, n > 1 ? in_pitch : 0, valid);
    SET_FLAG01(PIPE_MTE2, PIPE_MTE3, p);
    WAIT_FLAG01(PIPE_MTE2, PIPE_MTE3, p);
    copy_ubuf_to_gm_pitched(dst, p * COPY_HALF, n, blocks, 0, n > 1 ? out_pitch : 0, valid);
    SET_FLAG01(PIPE_MTE3, PIPE_MTE2, p);
}

static void mte_open(void) {
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}
static void mte_close(void) {
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}

/* (a) Rows contiguous on both sides. */
static void copy_rows(const Space* s) {
    const uint64_t last = s->rank - 1;
    const uint64_t row_bytes = s->dim[last] * s->e;
    /* The pitched dim (the one before the row) and the dims above it. */
    const int pitched = last >= 1;
    const uint64_t p_dim = pitched ? s->dim[last - 1] : 1;
    const uint64_t in_pitch = pitched ? s->is[last - 1] : 0, out_pitch = pitched ? s->os[last - 1] : 0;
    const uint64_t rows = product(s, last);
    const uint64_t pieces = ceil_div(row_bytes, COPY_HALF);
    const uint64_t piece_bytes = pieces > 1 ? COPY_HALF : row_bytes;
    const uint64_t row_blocks = ceil_div(piece_bytes, 32);
    uint64_t rows_per_chunk = min_u64(MAX_BURSTS, COPY_HALF / (row_blocks * 32));
    if (!pitch_ok(in_pitch) || !pitch_ok(out_pitch)) rows_per_chunk = 1;

    uint64_t begin, end;
    block_share(rows * pieces, &begin, &end);
    mte_open();
    uint64_t p = 0;
    for (uint64_t item = begin; item < end; p ^= 1) {
        const uint64_t row = item / pieces, piece = item % pieces;
        uint64_t in_off, out_off;
        offsets_of(s, last, row, &in_off, &out_off);
        if (pieces > 1) {
            const uint64_t off = piece * COPY_HALF, bytes = min_u64(COPY_HALF, row_bytes - off);
            move_chunk(s->out + out_off + off, s->in + in_off + off, 1, ceil_div(bytes, 32), 0, 0, bytes, p);
            item++;
            continue;
        }
        /* Consecutive rows along the pitched dim, not past its end. */
        const uint64_t along = row % p_dim;
        const uint64_t n = min_u64(min_u64(rows_per_chunk, p_dim - along), end - item);
        move_chunk(s->out + out_off, s->in + in_off, n, row_blocks, in_pitch, out_pitch, row_bytes, p);
        item += n;
    }
    mte_close();
}

/* (c) Element by element along the last dim, one UB block per element. */
static void copy_elements(const Space* s) {
    const uint64_t last = s->rank - 1, len = s->dim[last];
    const uint64_t in_pitch = s->is[last], out_pitch = s->os[last];
    const uint64_t per_chunk = pitch_ok(in_pitch) && pitch_ok(out_pitch) ? ELEMENT_CHUNK : 1;
    const uint64_t chunks_per_row = ceil_div(len, per_chunk);
    uint64_t begin, end;
    block_share(product(s, last) * chunks_per_row, &begin, &end);
    mte_open();
    uint64_t p = 0;
    for (uint64_t item = begin; item < end; ++item, p ^= 1) {
        const uint64_t row = item / chunks_per_row, first = item % chunks_per_row * per_chunk;
        const uint64_t n = min_u64(per_chunk, len - first);
        uint64_t in_off, out_off;
        offsets_of(s, last, row, &in_off, &out_off);
        move_chunk(s->out + out_off + first * out_pitch, s->in + in_off + first * in_pitch, n, 1, in_pitch,
                   out_pitch, s->e, p);
    }
    mte_close();
}

/* (b) Transpose through UB: o = the last dim (output stride e), i = dim k
 * (input stride e). Returns 0 if the tile geometry does not fit (then (c)). */
static int copy_transpose(const Space* s, uint64_t k) {
    const uint64_t o = s->rank - 1, e = s->e, lanes_per_block = 32 / e;
    const uint64_t in_row_pitch = s->is[o], out_row_pitch = s->os[k];
    if (!pitch_ok(in_row_pitch) || !pitch_ok(out_row_pitch)) return 0;
    /* Tile To x Ti: To <= 255 (vcmax repeats, a whole number of blocks per
     * output row), Ti up to 255 blocks per input row (the vcmax repeat
     * stride), each tile at most TILE_LIMIT bytes in UB. */
    const uint64_t do_ = s->dim[o], di = s->dim[k];
    const uint64_t to_full = min_u64(do_, MAX_VECTOR_STRIDE / lanes_per_block * lanes_per_block);
    const uint64_t out_row_blocks = ceil_div(to_full * e, 32);
    uint64_t ti_full = min_u64(di, MAX_VECTOR_STRIDE * lanes_per_block);
    ti_full = min_u64(ti_full, TILE_LIMIT / 32 / out_row_blocks);
    ti_full = min_u64(ti_full, TILE_LIMIT / 32 / to_full * lanes_per_block);
    /* Input rows close together (5HD pixels, rows of K): load the whole
     * span [first row, last row + ti) as one burst and let the vcmax repeat
     * stride skip the bytes between rows (DDR reads whole 32-byte bursts
     * anyway), instead of one small burst per row. */
    const int dense_in = in_row_pitch % 32 == 0 && in_row_pitch / 32 <= MAX_VECTOR_STRIDE &&
                         in_row_pitch <= 2 * ceil_div(ti_full * e, 32) * 32 && to_full * in_row_pitch <= TILE_LIMIT;
    /* Enough tiles to keep every block busy (at least 4 a block where the
     * tiles can shrink to 128 columns). */
    const uint64_t outer_count = product(s, s->rank) / (do_ * di);
    while (ti_full > 128 && outer_count * ceil_div(do_, to_full) * ceil_div(di, ti_full) < 4 * block_dim())
        ti_full = ceil_div(ti_full, 2);
    const uint64_t o_tiles = ceil_div(do_, to_full), i_tiles = ceil_div(di, ti_full);

    /* Outer dims: all but o and k, in order. */
    Space outer;
    outer.rank = 0;
    for (uint64_t d = 0; d < s->rank; ++d) {
        if (d == o || d == k) continue;
        outer.dim[outer.rank] = s->dim[d];
        outer.is[outer.rank] = s->is[d];
        outer.os[outer.rank] = s->os[d];
        outer.rank++;
    }
    const uint64_t tiles = product(&outer, outer.rank) * o_tiles * i_tiles;
    const uint64_t type = e == 2 ? XD_F16 : XD_S32;

    uint64_t begin, end;
    block_share(tiles, &begin, &end);
    if (begin >= end) return 1;
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0); /* input tiles free */
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0); /* output tiles free */
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);

    /* Tile t: outer index, then o tiles, then i tiles (innermost). */
#define TILE_GEOMETRY(t)                                                                  \
    const uint64_t it_ = (t) % i_tiles, ot_ = (t) / i_tiles % o_tiles, out_idx_ = (t) / i_tiles / o_tiles; \
    uint64_t in_off, out_off;                                                             \
    offsets_of(&outer, outer.rank, out_idx_, &in_off, &out_off);                          \
    const uint64_t o0 = ot_ * to_full, i0 = it_ * ti_full;                                \
    const uint64_t to = min_u64(to_full, do_ - o0), ti = min_u64(ti_full, di - i0);       \
    const uint64_t in_blocks = dense_in ? in_row_pitch / 32 : ceil_div(ti * e, 32);       \
    const uint64_t out_blocks = ceil_div(to * e, 32)

    for (uint64_t t = begin; t <= end; ++t) { /* load tile t, transpose and store tile t - 1 */
        if (t < end) { /* MTE2 */
            TILE_GEOMETRY(t);
            (void)out_off;
            (void)out_blocks;
            const uint64_t p = (t - begin) & 1;
            const uint8_t* src = s->in + in_off + o0 * in_row_pitch + i0 * e;
            WAIT_FLAG01(PIPE_V, PIPE_MTE2, p);
            if (dense_in) {
                const uint64_t bytes = (to - 1) * in_row_pitch + ti * e;
                copy_gm_to_ubuf_pitched(p * COPY_HALF, src, 1, ceil_div(bytes, 32), 0, 0, bytes);
            } else {
                copy_gm_to_ubuf_pitched(p * COPY_HALF, src, to, in_blocks, 0, to > 1 ? in_row_pitch : 0, ti * e);
            }
            SET_FLAG01(PIPE_MTE2, PIPE_V, p);
        }
        if (t > begin) { /* V + MTE3 */
            const uint64_t u = t - 1;
            TILE_GEOMETRY(u);
            const uint64_t p = (u - begin) & 1;
            const uint64_t ub_in = p * COPY_HALF, ub_out = ub_in + TILE_OUT_OFFSET;
            const uint64_t config = vector_config(to, 1, 1, 1, 0, in_blocks, 0, type);
            WAIT_FLAG01(PIPE_MTE2, PIPE_V, p);
            WAIT_FLAG01(PIPE_MTE3, PIPE_V, p);
            /* Output row j = input column j: lane j % lanes of block j / lanes
             * (counted incrementally: the scalar unit's divide is slow). */
            uint64_t dst = ub_out, src = ub_in, lane = 0;
            for (uint64_t j = 0; j < ti; ++j) {
                set_vector_mask(0, (uint64_t)1 << lane);
                vcmax(dst, src, config);
                dst += out_blocks * 32;
                if (++lane == lanes_per_block) {
                    lane = 0;
                    src += 32;
                }
            }
            set_mask_all();
            SET_FLAG01(PIPE_V, PIPE_MTE2, p);
            SET_FLAG01(PIPE_V, PIPE_MTE3, p);
            WAIT_FLAG01(PIPE_V, PIPE_MTE3, p);
            uint8_t* dst_gm = s->out + out_off + i0 * out_row_pitch + o0 * e;
            if (to * e == out_row_pitch && out_row_pitch % 32 == 0) /* whole output rows: one range */
                copy_ubuf_to_gm_pitched(dst_gm, ub_out, 1, ti * out_blocks, 0, 0, ti * to * e);
            else
                copy_ubuf_to_gm_pitched(dst_gm, ub_out, ti, out_blocks, 0, ti > 1 ? out_row_pitch : 0, to * e);
            SET_FLAG01(PIPE_MTE3, PIPE_V, p);
        }
    }
#undef TILE_GEOMETRY
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    return 1;
}

void kernel_main(const uint64_t* args) {
    Space s;
    const uint64_t e = args[NPUVP_COPY_ELEMENT_BYTES];
    if (e != 1 && e != 2 && e != 4) __builtin_trap(); /* a scalar-trap fault names the bad argument block */
    if (!normalise(args, &s)) return;
    const uint64_t last = s.rank - 1;
    if (s.is[last] == e && s.os[last] == e) {
        copy_rows(&s);
        return;
    }
    if (s.os[last] == e && e != 1) {
        for (uint64_t k = last; k-- > 0;)
            if (s.is[k] == e) {
                if (copy_transpose(&s, k)) return;
                break;
            }
    }
    copy_elements(&s);
}
