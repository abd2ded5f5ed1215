/*
 * Elementwise operator (slot 7, NPUVP_OP_KERNEL_ELTWISE): out = op(a, b)
 * over an index space of up to 4 dims with per-operand strides (0
 * broadcasts); out dense. Arguments: enum npuvp_eltwise_arg
 * (sw/include/npuvp/operator_kernels.h); docs/kernels.md describes the
 * numerics.
 *
 * The index space is first normalised: dims of size 1 dropped, neighbours
 * that are contiguous for every operand merged, so a dense op becomes one
 * long row. The innermost dim (length L) is the "row"; a row whose
 * operands are not contiguous or broadcast (stride 0) along it becomes an
 * outer dim of rows of length 1. Work items are rows (or, for L above a
 * chunk, pieces of a row), split evenly over the task blocks. Each tile is
 * up to CHUNK elements: k consecutive rows of the innermost outer dim, each
 * padded to a 32-byte multiple in UB. Tiles are double buffered: MTE2 loads
 * tile i+1 while V computes tile i and MTE3 stores tile i-1 (event-flag
 * tokens MTE3->MTE2, MTE2->V, V->MTE3 on EVENT_ID0/1, one per UB half).
 *
 * Operands per tile: ROWS (k rows loaded with one pitched copy), ROW (the
 * same row for all k rows: loaded once, read with repeat stride 0) or
 * SCALAR (stride 0 along the row: each row's value, loaded into UB, is
 * read by the scalar unit and vdup'd). An operand that is the same row for
 * the whole launch is loaded once per block ("resident").
 */
#include "npuvp/operator_kernels.h"
#include "vector_math.h"

enum {
    CHUNK = 8192,               /* f16 elements per tile */
    TILE_BYTES = CHUNK * 2,     /* one f16 tile */
    HALF_BYTES = 3 * TILE_BYTES, /* per UB half: a, b, out */
    W_BASE = 2 * HALF_BYTES,    /* f32 workspace: 4 tiles of CHUNK f32 */
    W_BYTES = CHUNK * 4,
    MASK_BASE = W_BASE + 4 * W_BYTES,     /* vcmp bits: CHUNK / 8 bytes */
    CONST_BASE = MASK_BASE + CHUNK / 8,   /* constant rows, 256 bytes each */
    C_SIGN = CONST_BASE, C_HALF = CONST_BASE + 256, C_SMALL = CONST_BASE + 512,
    VALUES_BYTES = 8 << 10,              /* per-row values of a SCALAR operand, a then b */
    VALUES_A = CONST_BASE + 768, VALUES_B = VALUES_A + VALUES_BYTES,
    UB_END = VALUES_B + VALUES_BYTES,
    MAX_RANK = 5,
};
_Static_assert(UB_END <= 256 * 1024, "eltwise UB layout exceeds the 256 KiB UB");

#define F32_TANH_SMALL 0x39800000u /* 2^-12: below, tanh(x) = x to f16 precision */

enum operand_mode { MODE_ABSENT, MODE_ROWS, MODE_ROW, MODE_SCALAR };

struct shape {
    uint64_t rank, dim[MAX_RANK], sa[MAX_RANK], sb[MAX_RANK];
};

static int op_is_binary(uint64_t op) { return op <= NPUVP_ELT_MIN; }
static int op_reads_a(uint64_t op) { return op != NPUVP_ELT_FILL; }

/* Invalid arguments stop the task block with a scalar-trap kernel fault
 * here (the runtime names the layer). */
static void __attribute__((noinline, noreturn)) eltwise_invalid_argument(void) {
    __builtin_trap();
}

/* Drops size-1 dims, merges dims contiguous for every used operand, and
 * makes the innermost dim's strides 0 or 1 (else it becomes an outer dim
 * of rows of length 1). */
static void normalise(struct shape* s, int use_a, int use_b) {
    struct shape n;
    n.rank = 0;
    for (uint64_t d = 0; d < s->rank; ++d) {
        if (s->dim[d] == 1) continue;
        if (n.rank > 0) {
            const uint64_t p = n.rank - 1;
            const int a_ok = !use_a || n.sa[p] == s->sa[d] * s->dim[d];
            const int b_ok = !use_b || n.sb[p] == s->sb[d] * s->dim[d];
            if (a_ok && b_ok) {
                n.dim[p] *= s->dim[d];
                n.sa[p] = s->sa[d];
                n.sb[p] = s->sb[d];
                continue;
            }
        }
        n.dim[n.rank] = s->dim[d];
        n.sa[n.rank] = s->sa[d];
        n.sb[n.rank] = s->sb[d];
        ++n.rank;
    }
    if (n.rank == 0) {
        n.rank = 1;
        n.dim[0] = 1;
        n.sa[0] = n.sb[0] = 1;
    }
    const uint64_t in = n.rank - 1;
    if ((use_a && n.sa[in] > 1) || (use_b && n.sb[in] > 1)) {
        n.dim[n.rank] = 1;
        n.sa[n.rank] = n.sb[n.rank] = 1;
        ++n.rank;
    }
    s->rank = n.rank;
    for (uint64_t d = 0; d < n.rank; ++d) {
        s->dim[d] = n.dim[d];
        s->sa[d] = use_a ? n.sa[d] : 0;
        s->sb[d] = use_b ? n.sb[d] : 0;
    }
}

/* One tile: rows row0 .. row0 + k - 1 (consecutive in the innermost outer
 * dim), columns col0 .. col0 + len - 1 of each. */
struct tile {
    uint64_t k, len, pitch;     /* pitch: row pitch in UB, elements (round16(len)) */
    uint64_t out_offset;        /* elements */
    uint64_t a_offset, b_offset; /* elements, first row's first column */
    uint64_t a_row, b_row;      /* GM distance between the tile's rows, elements */
};

struct plan {
    uint64_t op;
    const uint8_t *a, *b;
    uint8_t* out;
    struct shape s;
    uint64_t inner, rows, pieces; /* row length L, rows, pieces per row (L > CHUNK) */
    uint32_t scalar0, scalar1;
    uint16_t clip_lo16, clip_hi16, fill16;
    int a_resident, b_resident;
};

/* The element offset of row `row`'s start: row -> multi-index over dims
 * 0 .. rank-2 (outermost first), times the operand's strides. */
static uint64_t outer_offset(const struct shape* s, const uint64_t* stride, uint64_t row) {
    uint64_t offset = 0;
    for (int64_t d = (int64_t)s->rank - 2; d >= 0; --d) {
        offset += (row % s->dim[d]) * stride[d];
        row /= s->dim[d];
    }
    return offset;
}

static enum operand_mode operand_mode(const struct tile* t, int use, uint64_t inner_stride, uint64_t row_stride) {
    if (!use) return MODE_ABSENT;
    if (inner_stride == 0) return MODE_SCALAR;
    if (t->k > 1 && row_stride == 0) return MODE_ROW;
    return MODE_ROWS;
}

/* MTE2: the operand's rows into UB (ROWS: k pitched bursts; ROW: one). */
static void load_operand(enum operand_mode mode, uint64_t ub, const uint8_t* gm, const struct tile* t,
                         uint64_t row_stride) {
    const uint64_t blocks = ceil_div(t->len * 2, 32);
    if (mode == MODE_ROWS)
        copy_gm_to_ubuf_pitched(ub, gm, t->k, blocks, 0, t->k > 1 ? row_stride * 2 : 0, t->len * 2);
    else if (mode == MODE_ROW)
        copy_gm_to_ubuf_pitched(ub, gm, 1, blocks, 0, 0, t->len * 2);
}

/* A SCALAR operand's k per-row values come through UB (MTE2: one burst when
 * contiguous, else one 32-byte block each) rather than by the scalar unit's
 * GM loads, one ring round trip each, when there are several and they fit. */
static int scalar_values_via_ub(const struct tile* t, uint64_t row_stride) {
    return t->k > 1 && row_stride != 0 && (row_stride == 1 || t->k * 32 <= VALUES_BYTES);
}
static uint64_t value_offset(uint64_t row_stride, uint64_t i) { return row_stride == 1 ? i * 2 : i * 32; }

/* MTE2: those values into `values`; MTE2->S EVENT_ID6 tells the scalar unit. */
static void load_scalar_values(uint64_t values, const uint8_t* gm, const struct tile* t, uint64_t row_stride) {
    if (row_stride == 1) copy_gm_to_ubuf_pitched(values, gm, 1, ceil_div(t->k * 2, 32), 0, 0, t->k * 2);
    else copy_gm_to_ubuf_pitched(values, gm, t->k, 1, 0, row_stride * 2, 2);
    set_flag(PIPE_MTE2, PIPE_S, EVENT_ID6);
}

/* How many of the tile's first rows can be set with whole repeats: a vdup of
 * round128(pitch) elements writes past its row into the next (which that row's
 * vdup then overwrites), but must not write past the tile's CHUNK elements into
 * the next operand's tile (a's excess would overwrite b's first rows, loaded
 * already). The rows from there on get their partial repeat masked. */
static uint64_t rows_with_whole_repeats(const struct tile* t) {
    const uint64_t row_write = ceil_div(t->pitch, LANES_F16) * LANES_F16;
    if ((t->k - 1) * t->pitch + row_write <= CHUNK) return t->k;
    return (CHUNK - row_write) / t->pitch + 1;
}

/* V: one row at `ub` set to `value`, its partial repeat masked. */
static void dup_row_masked(uint64_t ub, uint16_t value, uint64_t pitch) {
    const uint64_t whole = pitch / LANES_F16;
    if (whole) vector_dup(ub, value, vector_contiguous(whole, XD_F16));
    set_mask_lanes(pitch % LANES_F16);
    vector_dup(ub + whole * LANES_F16 * 2, value, vector_contiguous(1, XD_F16));
    set_mask_all();
}

/* V: a SCALAR operand's per-row values duplicated over each row (one vdup
 * for the tile when they are all the same element), read from UB after
 * load_scalar_values or else from GM by the scalar unit. */
static void fill_scalar_operand(uint64_t ub, const uint8_t* gm, const struct tile* t, uint64_t row_stride,
                                uint64_t values) {
    if (t->k == 1 || row_stride == 0) {
        vloop(V_DUP, XD_F16, ub, 0, *(volatile const uint16_t*)gm, t->k * t->pitch);
        return;
    }
    /* k > 1: a row is at most CHUNK / 2 elements, so one instruction each */
    const uint64_t config = vector_contiguous(ceil_div(t->pitch, LANES_F16), XD_F16), row_bytes = t->pitch * 2;
    const uint64_t whole_rows = rows_with_whole_repeats(t);
    uint64_t i = 0;
    if (scalar_values_via_ub(t, row_stride)) {
        wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID6);
        const uint64_t step = value_offset(row_stride, 1);
        for (; i < whole_rows; ++i, ub += row_bytes, values += step) vector_dup(ub, ub_read16(values), config);
        for (; i < t->k; ++i, ub += row_bytes, values += step) dup_row_masked(ub, ub_read16(values), t->pitch);
    } else {
        for (; i < whole_rows; ++i, ub += row_bytes, gm += row_stride * 2)
            vector_dup(ub, *(volatile const uint16_t*)gm, config);
        for (; i < t->k; ++i, ub += row_bytes, gm += row_stride * 2)
            dup_row_masked(ub, *(volatile const uint16_t*)gm, t->pitch);
    }
}

/* out = op(a, b) in f16 for the tile's k rows of `pitch` elements; a ROW
 * operand is read with repeat stride 0 (one instruction per 128 columns
 * across the rows, masked on the last), or row by row when a row is more
 * than 255 blocks. */
static void binary_f16(enum vop op, uint64_t out, uint64_t a, enum operand_mode ma, uint64_t b,
                       enum operand_mode mb, uint64_t k, uint64_t pitch) {
    if (ma != MODE_ROW && mb != MODE_ROW) {
        vloop(op, XD_F16, out, a, b, k * pitch);
        return;
    }
    const uint64_t row_blocks = pitch / 16;
    if (row_blocks > 255) {
        for (uint64_t i = 0; i < k; ++i)
            vloop(op, XD_F16, out + i * pitch * 2, ma == MODE_ROW ? a : a + i * pitch * 2,
                  mb == MODE_ROW ? b : b + i * pitch * 2, pitch);
        return;
    }
    const uint64_t sa = ma == MODE_ROW ? 0 : row_blocks, sb = mb == MODE_ROW ? 0 : row_blocks;
    for (uint64_t col = 0; col < pitch; col += LANES_F16) {
        const uint64_t lanes = min_u64(LANES_F16, pitch - col);
        if (lanes < LANES_F16) set_mask_lanes(lanes);
        for (uint64_t done = 0; done < k; done += REPEAT_CHUNK) {
            const uint64_t r = min_u64(REPEAT_CHUNK, k - done);
            vop_issue(op, out + (done * pitch + col) * 2, a + (done * sa * 16 + col) * 2,
                      b + (done * sb * 16 + col) * 2, vector_config(r, 1, 1, 1, row_blocks, sa, sb, XD_F16));
        }
        if (lanes < LANES_F16) set_mask_all();
    }
}

/* ---- f32 functions on W0 (n elements), result in W0 */
enum { W0 = W_BASE, W1 = W_BASE + W_BYTES, W2 = W_BASE + 2 * W_BYTES, W3 = W_BASE + 3 * W_BYTES };

static void sigmoid_f32(uint64_t n) {
    vloop(V_MULS, XD_F32, W0, W0, F32_MINUS_ONE, n);
    vloop(V_EXP, XD_F32, W0, W0, 0, n);
    vloop(V_ADDS, XD_F32, W0, W0, F32_ONE, n);
    vloop(V_REC, XD_F32, W0, W0, 0, n);
}

/* tanh(x) = sign(x) (1 - e) / (1 + e), e = exp(-2|x|) <= 1: no overflow;
 * for |x| < 2^-12 the quotient loses relative precision and tanh(x) = x. */
static void tanh_f32(uint64_t n) {
    vloop(V_ABS, XD_F32, W1, W0, 0, n);
    vcmp_const_f32(MASK_BASE, W1, C_SMALL, n, XD_CMP_LT);
    vloop(V_MULS, XD_F32, W1, W1, F32_MINUS_TWO, n);
    vloop(V_EXP, XD_F32, W1, W1, 0, n);
    vloop(V_MULS, XD_F32, W2, W1, F32_MINUS_ONE, n);
    vloop(V_ADDS, XD_F32, W2, W2, F32_ONE, n);
    vloop(V_ADDS, XD_F32, W1, W1, F32_ONE, n);
    vloop(V_DIV, XD_F32, W2, W2, W1, n);
    vloop_const(V_AND, XD_F32, W1, W0, C_SIGN, n);
    vloop(V_OR, XD_F32, W2, W2, W1, n);
    vsel_f32(W0, W0, W2, MASK_BASE, n);
}

/* erf: Taylor series for |x| < 0.5, else sign(x) (1 - erfc(|x|)). */
static void erf_f32(uint64_t n) {
    vloop(V_ABS, XD_F32, W1, W0, 0, n);
    vcmp_const_f32(MASK_BASE, W1, C_HALF, n, XD_CMP_LT);
    erfc_scaled(W2, W0, W1, W3, n, &ERFC_FOR_ERF); /* -erfc(|x|) */
    vloop(V_ADDS, XD_F32, W2, W2, F32_ONE, n);
    vloop_const(V_AND, XD_F32, W1, W0, C_SIGN, n);
    vloop(V_OR, XD_F32, W2, W2, W1, n);
    erf_taylor(W3, W0, W1, n);
    vsel_f32(W0, W3, W2, MASK_BASE, n);
}

/* gelu(x) = x / 2 (1 + erf(x / sqrt 2)) = relu(x) - |x| erfc(|x| / sqrt 2) / 2:
 * the erfc term is small where it matters, so no cancellation on either side. */
static void gelu_f32(uint64_t n) {
    vloop(V_ABS, XD_F32, W1, W0, 0, n);
    erfc_scaled(W2, W0, W1, W3, n, &ERFC_FOR_GELU);
    vloop(V_MUL, XD_F32, W2, W2, W1, n);
    vloop(V_RELU, XD_F32, W1, W0, 0, n);
    vloop(V_ADD, XD_F32, W0, W1, W2, n);
}

/* x^e for an integer e >= 2 by squaring: W0 = x^e (W1 the running square). */
static void pow_integer_f32(uint64_t e, uint64_t n) {
    int have_result = 0;
    vloop(V_COPY, XD_F32, W1, W0, 0, n);
    while (e) {
        if (e & 1) {
            if (have_result) vloop(V_MUL, XD_F32, W0, W0, W1, n);
            else vloop(V_COPY, XD_F32, W0, W1, 0, n);
            have_result = 1;
        }
        e >>= 1;
        if (e) vloop(V_MUL, XD_F32, W1, W1, W1, n);
    }
}

/* SCALAR0 of POW_SCALAR as an exponent: 0.5 -> -1 (square root), an integer
 * 0 .. 1024 -> itself; anything else is an invalid argument. */
static int64_t pow_exponent(uint32_t bits) {
    if (bits == F32_HALF) return -1;
    if (bits == 0) return 0;
    const int64_t exponent = (int64_t)((bits >> 23) & 0xff) - 127;
    if ((bits >> 31) || exponent < 0 || exponent > 10) eltwise_invalid_argument();
    const uint32_t mantissa = (bits & 0x7fffff) | 0x800000;
    if (mantissa & ((1u << (23 - exponent)) - 1)) eltwise_invalid_argument();
    return mantissa >> (23 - exponent);
}

/* V: the tile's result into `out` (f16, k rows of pitch). */
static void compute_tile(const struct plan* p, const struct tile* t, uint64_t out, uint64_t a,
                         enum operand_mode ma, uint64_t b, enum operand_mode mb) {
    const uint64_t n = t->k * t->pitch;
    switch (p->op) {
    case NPUVP_ELT_ADD: binary_f16(V_ADD, out, a, ma, b, mb, t->k, t->pitch); return;
    case NPUVP_ELT_SUB: binary_f16(V_SUB, out, a, ma, b, mb, t->k, t->pitch); return;
    case NPUVP_ELT_MUL: binary_f16(V_MUL, out, a, ma, b, mb, t->k, t->pitch); return;
    case NPUVP_ELT_DIV: binary_f16(V_DIV, out, a, ma, b, mb, t->k, t->pitch); return;
    case NPUVP_ELT_MAX: binary_f16(V_MAX, out, a, ma, b, mb, t->k, t->pitch); return;
    case NPUVP_ELT_MIN: binary_f16(V_MIN, out, a, ma, b, mb, t->k, t->pitch); return;
    case NPUVP_ELT_FILL: vloop(V_DUP, XD_F16, out, 0, p->fill16, n); return;
    default: break;
    }
    /* unary: a ROW operand is first expanded into `out` */
    if (ma == MODE_ROW) {
        binary_f16(V_COPY, out, a, MODE_ROW, a, MODE_ROW, t->k, t->pitch);
        a = out;
    }
    switch (p->op) {
    case NPUVP_ELT_RELU: vloop(V_RELU, XD_F16, out, a, 0, n); return;
    case NPUVP_ELT_NEG: vloop(V_MULS, XD_F16, out, a, F16_MINUS_ONE, n); return;
    case NPUVP_ELT_EXP: vloop(V_EXP, XD_F16, out, a, 0, n); return;
    case NPUVP_ELT_SQRT: vloop(V_SQRT, XD_F16, out, a, 0, n); return;
    case NPUVP_ELT_RECIPROCAL: vloop(V_REC, XD_F16, out, a, 0, n); return;
    case NPUVP_ELT_CLIP:
        vloop(V_MAXS, XD_F16, out, a, p->clip_lo16, n);
        vloop(V_MINS, XD_F16, out, out, p->clip_hi16, n);
        return;
    default: break;
    }
    f16_to_f32(W0, a, n);
    switch (p->op) {
    case NPUVP_ELT_SIGMOID: sigmoid_f32(n); break;
    case NPUVP_ELT_TANH: tanh_f32(n); break;
    case NPUVP_ELT_ERF: erf_f32(n); break;
    case NPUVP_ELT_GELU: gelu_f32(n); break;
    case NPUVP_ELT_ADD_SCALAR: vloop(V_ADDS, XD_F32, W0, W0, p->scalar0, n); break;
    case NPUVP_ELT_MUL_SCALAR: vloop(V_MULS, XD_F32, W0, W0, p->scalar0, n); break;
    case NPUVP_ELT_POW_SCALAR: {
        const int64_t e = pow_exponent(p->scalar0);
        if (e < 0) vloop(V_SQRT, XD_F32, W0, W0, 0, n);
        else if (e == 0) vloop(V_DUP, XD_F32, W0, 0, F32_ONE, n);
        else pow_integer_f32((uint64_t)e, n);
        break;
    }
    default: eltwise_invalid_argument();
    }
    f32_to_f16(out, W0, n);
}

/* The tile starting at work item `item` (at most `items_left` items).
 * (Structures are filled in place: kernels link no libc, and the
 * runtime's byte-wise memcpy would cost more than the tile setup.) */
static void make_tile(const struct plan* p, uint64_t item, uint64_t items_left, struct tile* tp) {
    struct tile t;
    const struct shape* s = &p->s;
    uint64_t row = item, col0 = 0;
    if (p->pieces > 1) {
        row = item / p->pieces;
        col0 = (item % p->pieces) * CHUNK;
        t.k = 1;
        t.len = min_u64(CHUNK, p->inner - col0);
    } else {
        t.len = p->inner;
        const uint64_t pitch = round16(t.len);
        uint64_t k = min_u64(items_left, CHUNK / pitch);
        if (s->rank >= 2) k = min_u64(k, s->dim[s->rank - 2] - row % s->dim[s->rank - 2]);
        t.k = min_u64(k, 4095);
    }
    t.pitch = round16(t.len);
    const uint64_t in = s->rank - 1;
    t.out_offset = row * p->inner + col0;
    t.a_offset = outer_offset(s, s->sa, row) + col0 * s->sa[in];
    t.b_offset = outer_offset(s, s->sb, row) + col0 * s->sb[in];
    t.a_row = s->rank >= 2 ? s->sa[in - 1] : 0;
    t.b_row = s->rank >= 2 ? s->sb[in - 1] : 0;
    tp->k = t.k;
    tp->len = t.len;
    tp->pitch = t.pitch;
    tp->out_offset = t.out_offset;
    tp->a_offset = t.a_offset;
    tp->b_offset = t.b_offset;
    tp->a_row = t.a_row;
    tp->b_row = t.b_row;
}

/* The launch's plan from its argument words (filled in place). */
static void make_plan(const uint64_t* args, struct plan* pp) {
    pp->op = args[NPUVP_ELT_OPCODE];
    if (pp->op >= NPUVP_ELT_OP_COUNT) eltwise_invalid_argument();
    pp->out = (uint8_t*)(uintptr_t)args[NPUVP_ELT_OUT];
    pp->a = (const uint8_t*)(uintptr_t)args[NPUVP_ELT_A];
    pp->b = (const uint8_t*)(uintptr_t)args[NPUVP_ELT_B];
    pp->s.rank = args[NPUVP_ELT_RANK];
    if (pp->s.rank < 1 || pp->s.rank > 4) eltwise_invalid_argument();
    for (uint64_t d = 0; d < pp->s.rank; ++d) {
        pp->s.dim[d] = args[NPUVP_ELT_DIM0 + d];
        pp->s.sa[d] = args[NPUVP_ELT_A_STRIDE0 + d];
        pp->s.sb[d] = args[NPUVP_ELT_B_STRIDE0 + d];
    }
    pp->scalar0 = (uint32_t)args[NPUVP_ELT_SCALAR0];
    pp->scalar1 = (uint32_t)args[NPUVP_ELT_SCALAR1];
    normalise(&pp->s, op_reads_a(pp->op), op_is_binary(pp->op));
    pp->inner = pp->s.dim[pp->s.rank - 1];
    pp->rows = 1;
    for (uint64_t d = 0; d + 1 < pp->s.rank; ++d) pp->rows *= pp->s.dim[d];
    pp->pieces = ceil_div(pp->inner, CHUNK);
    /* an operand that is the same contiguous row everywhere is loaded once */
    pp->a_resident = pp->b_resident = 0;
    if (pp->pieces == 1 && pp->rows > 1) {
        int a_same = op_reads_a(pp->op) && pp->s.sa[pp->s.rank - 1] == 1;
        int b_same = op_is_binary(pp->op) && pp->s.sb[pp->s.rank - 1] == 1;
        for (uint64_t d = 0; d + 1 < pp->s.rank; ++d) {
            a_same = a_same && pp->s.sa[d] == 0;
            b_same = b_same && pp->s.sb[d] == 0;
        }
        pp->a_resident = a_same;
        pp->b_resident = b_same;
    }
}

void kernel_main(const uint64_t* args) {
    struct plan p;
    make_plan(args, &p);
    const int use_a = op_reads_a(p.op), use_b = op_is_binary(p.op);
    if (p.op == NPUVP_ELT_CLIP) {
        p.clip_lo16 = (uint16_t)f32_bits_to_f16(p.scalar0); /* cube_common.h */
        p.clip_hi16 = (uint16_t)f32_bits_to_f16(p.scalar1);
    }
    if (p.op == NPUVP_ELT_FILL) p.fill16 = (uint16_t)f32_bits_to_f16(p.scalar0);
    if (p.op == NPUVP_ELT_POW_SCALAR) (void)pow_exponent(p.scalar0); /* validate before any work */

    vector_dup(C_SIGN, F32_SIGN, vector_contiguous(1, XD_F32));
    vector_dup(C_HALF, F32_HALF, vector_contiguous(1, XD_F32));
    vector_dup(C_SMALL, F32_TANH_SMALL, vector_contiguous(1, XD_F32));

    const uint64_t items = p.rows * p.pieces, blocks = block_dim(), b = block_idx();
    const uint64_t per = ceil_div(items, blocks);
    const uint64_t begin = min_u64(b * per, items), end = min_u64(begin + per, items);

    /* resident rows: both UB halves' a (b) slot hold the same row, loaded once */
    if (begin < end && (p.a_resident || p.b_resident)) {
        struct tile t;
        make_tile(&p, begin, 1, &t);
        for (uint64_t h = 0; h < 2; ++h) {
            if (p.a_resident) load_operand(MODE_ROW, h * HALF_BYTES, p.a, &t, 0);
            if (p.b_resident) load_operand(MODE_ROW, h * HALF_BYTES + TILE_BYTES, p.b, &t, 0);
        }
    }

    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
    uint64_t h = 0;
    for (uint64_t item = begin; item < end; h ^= 1) {
        struct tile t;
        make_tile(&p, item, end - item, &t);
        item += p.pieces > 1 ? 1 : t.k;
        const uint64_t ub_a = h * HALF_BYTES, ub_b = ub_a + TILE_BYTES, ub_out = ub_b + TILE_BYTES;
        const uint64_t in = p.s.rank - 1;
        enum operand_mode ma = operand_mode(&t, use_a, p.s.sa[in], t.a_row);
        enum operand_mode mb = operand_mode(&t, use_b, p.s.sb[in], t.b_row);
        if (p.a_resident && ma == MODE_ROWS && t.k > 1) ma = MODE_ROW;
        if (p.b_resident && mb == MODE_ROWS && t.k > 1) mb = MODE_ROW;

        WAIT_FLAG01(PIPE_MTE3, PIPE_MTE2, h);
        /* the per-row values first: the scalar unit waits for them, not for the rows */
        if (ma == MODE_SCALAR && scalar_values_via_ub(&t, t.a_row))
            load_scalar_values(VALUES_A, p.a + t.a_offset * 2, &t, t.a_row);
        if (mb == MODE_SCALAR && scalar_values_via_ub(&t, t.b_row))
            load_scalar_values(VALUES_B, p.b + t.b_offset * 2, &t, t.b_row);
        if (!p.a_resident) load_operand(ma, ub_a, p.a + t.a_offset * 2, &t, t.a_row);
        if (!p.b_resident) load_operand(mb, ub_b, p.b + t.b_offset * 2, &t, t.b_row);
        SET_FLAG01(PIPE_MTE2, PIPE_V, h);
        WAIT_FLAG01(PIPE_MTE2, PIPE_V, h);
        if (ma == MODE_SCALAR) {
            fill_scalar_operand(ub_a, p.a + t.a_offset * 2, &t, t.a_row, VALUES_A);
            ma = MODE_ROWS;
        }
        if (mb == MODE_SCALAR) {
            fill_scalar_operand(ub_b, p.b + t.b_offset * 2, &t, t.b_row, VALUES_B);
            mb = MODE_ROWS;
        }
        compute_tile(&p, &t, ub_out, ub_a, ma, ub_b, mb);
        SET_FLAG01(PIPE_V, PIPE_MTE3, h);
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, h);
        copy_ubuf_to_gm_pitched(p.out + t.out_offset * 2, ub_out, t.k, ceil_div(t.len * 2, 32), 0, t.len * 2,
                                t.len * 2);
        SET_FLAG01(PIPE_MTE3, PIPE_MTE2, h);
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}
