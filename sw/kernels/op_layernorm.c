/*
 * Layer normalisation over the last axis (slot 9, NPUVP_OP_KERNEL_LAYERNORM):
 * y = (x' - mean) / sqrt(var + EPS) * gamma + beta, x' = x + residual
 * (optional), for ROWS rows of COLS f16; statistics in f32 (mean first,
 * then the mean of squared deviations: no cancellation). gamma, beta f16
 * [COLS], beta optional. Arguments: enum npuvp_layernorm_arg
 * (sw/include/npuvp/operator_kernels.h). No gamma is an invalid argument
 * (scalar-trap kernel fault).
 *
 * Rows are split evenly over the task blocks. Rows of up to CHUNK (8192)
 * columns stay in UB: gamma and beta are loaded and widened to f32 once
 * per block, and rows are processed k at a time
 * (k = CHUNK / round64(COLS)), the next k loaded while these compute (two
 * UB halves, event-flag tokens as in op_softmax.c); the scalar unit reads
 * each row's mean and 1 / sqrt(var + eps) from UB for the per-row scalar
 * operations; gamma and beta apply with one instruction per column repeat
 * across the rows. Longer rows make three streamed passes over the row in
 * chunks of CHUNK columns (the mean; the mean of squared deviations; the
 * output, with gamma and beta loaded chunk by chunk), through the same two
 * UB halves.
 */
#include "npuvp/operator_kernels.h"
#include "vector_math.h"

enum {
    CHUNK = 8192,
    TILE_BYTES = CHUNK * 2,
    HALF_BYTES = 2 * TILE_BYTES,   /* x, residual */
    X_BASE = 2 * HALF_BYTES,       /* f32 work tiles */
    Y_BASE = X_BASE + CHUNK * 4,
    GAMMA_BASE = Y_BASE + CHUNK * 4, /* f32 rows */
    BETA_BASE = GAMMA_BASE + CHUNK * 4,
    SCRATCH_BASE = BETA_BASE + CHUNK * 4,
    SCRATCH_BYTES = (CHUNK / LANES_F32 + CHUNK / 128) * 256,
    MEANS = SCRATCH_BASE + SCRATCH_BYTES, /* CHUNK / 64 f32 */
    RSTDS = MEANS + CHUNK / LANES_F32 * 4,
    C_COLS = RSTDS + CHUNK / LANES_F32 * 4, /* COLS as f32, one repeat */
    RUNNING = C_COLS + 256,                 /* streaming: the running sum, one repeat */
    UB_END = RUNNING + 256,
    /* streaming: the f16 gamma / beta chunks of half h, in the unused f32 rows */
    GAMMA_CHUNK = GAMMA_BASE, BETA_CHUNK = BETA_BASE,
};
_Static_assert(UB_END <= 256 * 1024, "layernorm UB layout exceeds the 256 KiB UB");

struct layernorm {
    const uint8_t *in, *residual, *gamma, *beta;
    uint8_t* out;
    uint64_t cols, pitch;
    uint32_t eps;
};

static void __attribute__((noinline, noreturn)) layernorm_invalid_argument(void) { __builtin_trap(); }

/* COLS as an f32 constant row. */
static void set_cols_constant(const struct layernorm* l) {
    vector_dup(C_COLS, (uint32_t)l->cols, vector_contiguous(1, XD_S32));
    vconv(C_COLS, C_COLS, XD_CONV_S32_F32, XD_ROUND_RINT, vector_contiguous(1, XD_F32));
}

/* gamma and beta (or 0) as f32 rows, through the two tile slots before the
 * pipeline starts. */
static void load_parameters(const struct layernorm* l) {
    load_rows_f16(0, l->gamma, 1, l->cols, l->pitch);
    if (l->beta) load_rows_f16(TILE_BYTES, l->beta, 1, l->cols, l->pitch);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);
    f16_to_f32(GAMMA_BASE, 0, l->pitch);
    if (l->beta) f16_to_f32(BETA_BASE, TILE_BYTES, l->pitch);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2); /* the slots are free again */
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);
}

/* V: the k rows at x (and residual r) in UB, normalised in place into x. */
static void layernorm_tile(const struct layernorm* l, uint64_t x, uint64_t r, uint64_t k) {
    const uint64_t pitch = l->pitch, n = k * pitch;
    f16_to_f32(X_BASE, x, n);
    if (l->residual) {
        f16_to_f32(Y_BASE, r, n);
        vloop(V_ADD, XD_F32, X_BASE, X_BASE, Y_BASE, n);
    }
    rows_fill_padding(X_BASE, k, pitch, l->cols, 0);
    rows_reduce(V_ADD, MEANS, X_BASE, k, pitch, SCRATCH_BASE);
    vloop_const(V_DIV, XD_F32, MEANS, MEANS, C_COLS, k);
    wait_vector();
    rows_apply_scalars(V_ADDS, X_BASE, k, pitch, MEANS, F32_SIGN);
    vloop(V_MUL, XD_F32, Y_BASE, X_BASE, X_BASE, n);
    rows_fill_padding(Y_BASE, k, pitch, l->cols, 0);
    rows_reduce(V_ADD, RSTDS, Y_BASE, k, pitch, SCRATCH_BASE);
    vloop_const(V_DIV, XD_F32, RSTDS, RSTDS, C_COLS, k);
    vloop(V_ADDS, XD_F32, RSTDS, RSTDS, l->eps, k);
    vloop(V_RSQRT, XD_F32, RSTDS, RSTDS, 0, k);
    wait_vector();
    rows_apply_scalars(V_MULS, X_BASE, k, pitch, RSTDS, 0);
    rows_apply_row(V_MUL, X_BASE, k, pitch, GAMMA_BASE);
    if (l->beta) rows_apply_row(V_ADD, X_BASE, k, pitch, BETA_BASE);
    f32_to_f16(x, X_BASE, n);
}

/* Rows [begin, end) with whole rows in UB: the next rows are loaded while
 * these compute. */
static void layernorm_short_rows(struct layernorm by_value, uint64_t begin, uint64_t end) {
    /* a copy whose address does not escape: its fields stay in registers
     * across the intrinsics' memory clobbers */
    const struct layernorm* l = &by_value;
    load_parameters(l);
    const uint64_t per_tile = min_u64(CHUNK / l->pitch, 4095), row_bytes = l->cols * 2;
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
    uint64_t h = 0, row = begin, k = min_u64(per_tile, end - begin);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    load_rows_f16(0, l->in + row * row_bytes, k, l->cols, l->pitch);
    if (l->residual) load_rows_f16(TILE_BYTES, l->residual + row * row_bytes, k, l->cols, l->pitch);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    while (row < end) {
        const uint64_t next = row + k, next_k = min_u64(per_tile, end - next);
        const uint64_t ub = h * HALF_BYTES, other = (h ^ 1) * HALF_BYTES;
        if (next < end) { /* prefetch the next rows into the other half */
            WAIT_FLAG01(PIPE_MTE3, PIPE_MTE2, h ^ 1);
            load_rows_f16(other, l->in + next * row_bytes, next_k, l->cols, l->pitch);
            if (l->residual) load_rows_f16(other + TILE_BYTES, l->residual + next * row_bytes, next_k, l->cols, l->pitch);
            SET_FLAG01(PIPE_MTE2, PIPE_V, h ^ 1);
        }
        WAIT_FLAG01(PIPE_MTE2, PIPE_V, h);
        layernorm_tile(l, ub, ub + TILE_BYTES, k);
        SET_FLAG01(PIPE_V, PIPE_MTE3, h);
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, h);
        store_rows_f16(l->out + row * row_bytes, ub, k, l->cols, l->pitch);
        SET_FLAG01(PIPE_MTE3, PIPE_MTE2, h);
        row = next;
        k = next_k;
        h ^= 1;
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}

enum pass { PASS_MEAN, PASS_VARIANCE, PASS_OUTPUT };

/* One pass over a long row in chunks, double buffered (MTE3 stores only in
 * the output pass). PASS_MEAN and PASS_VARIANCE add each chunk's sum of x'
 * (of (x' - mean)^2) into RUNNING lane 0; PASS_OUTPUT writes the result. */
static void layernorm_pass(const struct layernorm* l, uint64_t row, enum pass pass, uint32_t neg_mean,
                           uint32_t rstd) {
    const uint64_t offset = row * l->cols * 2;
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
    set_mask_lanes(1);
    vector_dup(RUNNING, 0, vector_contiguous(1, XD_F32));
    set_mask_all();
    uint64_t h = 0;
    for (uint64_t col = 0; col < l->cols; col += CHUNK, h ^= 1) {
        const uint64_t count = min_u64(CHUNK, l->cols - col), pitch = round16(count);
        const uint64_t n = (count + LANES_F32 - 1) / LANES_F32 * LANES_F32;
        const uint64_t x = h * HALF_BYTES, r = x + TILE_BYTES;
        const uint64_t gamma = GAMMA_CHUNK + h * TILE_BYTES, beta = BETA_CHUNK + h * TILE_BYTES;
        WAIT_FLAG01(PIPE_MTE3, PIPE_MTE2, h);
        load_rows_f16(x, l->in + offset + col * 2, 1, count, pitch);
        if (l->residual) load_rows_f16(r, l->residual + offset + col * 2, 1, count, pitch);
        if (pass == PASS_OUTPUT) {
            load_rows_f16(gamma, l->gamma + col * 2, 1, count, pitch);
            if (l->beta) load_rows_f16(beta, l->beta + col * 2, 1, count, pitch);
        }
        SET_FLAG01(PIPE_MTE2, PIPE_V, h);
        WAIT_FLAG01(PIPE_MTE2, PIPE_V, h);
        f16_to_f32(X_BASE, x, n);
        if (l->residual) {
            f16_to_f32(Y_BASE, r, n);
            vloop(V_ADD, XD_F32, X_BASE, X_BASE, Y_BASE, n);
        }
        if (pass != PASS_MEAN) vloop(V_ADDS, XD_F32, X_BASE, X_BASE, neg_mean, n);
        if (pass == PASS_OUTPUT) {
            vloop(V_MULS, XD_F32, X_BASE, X_BASE, rstd, n);
            f16_to_f32(Y_BASE, gamma, n);
            vloop(V_MUL, XD_F32, X_BASE, X_BASE, Y_BASE, n);
            if (l->beta) {
                f16_to_f32(Y_BASE, beta, n);
                vloop(V_ADD, XD_F32, X_BASE, X_BASE, Y_BASE, n);
            }
            f32_to_f16(x, X_BASE, n);
        } else {
            if (pass == PASS_VARIANCE) vloop(V_MUL, XD_F32, X_BASE, X_BASE, X_BASE, n);
            rows_fill_padding(X_BASE, 1, n, count, 0);
            rows_reduce(V_ADD, MEANS, X_BASE, 1, n, SCRATCH_BASE);
            set_mask_lanes(1);
            vadd(RUNNING, RUNNING, MEANS, vector_contiguous(1, XD_F32));
            set_mask_all();
        }
        SET_FLAG01(PIPE_V, PIPE_MTE3, h);
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, h);
        if (pass == PASS_OUTPUT) store_rows_f16(l->out + offset + col * 2, x, 1, count, pitch);
        SET_FLAG01(PIPE_MTE3, PIPE_MTE2, h);
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}

static void layernorm_long_rows(const struct layernorm* l, uint64_t begin, uint64_t end) {
    for (uint64_t row = begin; row < end; ++row) {
        layernorm_pass(l, row, PASS_MEAN, 0, 0);
        vloop_const(V_DIV, XD_F32, RUNNING, RUNNING, C_COLS, 1);
        wait_vector();
        const uint32_t neg_mean = ub_read32(RUNNING) ^ F32_SIGN;
        layernorm_pass(l, row, PASS_VARIANCE, neg_mean, 0);
        set_mask_lanes(1);
        vloop_const(V_DIV, XD_F32, RUNNING, RUNNING, C_COLS, 1);
        vloop(V_ADDS, XD_F32, RUNNING, RUNNING, l->eps, 1);
        vloop(V_RSQRT, XD_F32, RUNNING, RUNNING, 0, 1);
        set_mask_all();
        wait_vector();
        layernorm_pass(l, row, PASS_OUTPUT, neg_mean, ub_read32(RUNNING));
    }
}

void kernel_main(const uint64_t* args) {
    struct layernorm l;
    l.in = (const uint8_t*)(uintptr_t)args[NPUVP_LAYERNORM_IN];
    l.residual = (const uint8_t*)(uintptr_t)args[NPUVP_LAYERNORM_RESIDUAL];
    l.gamma = (const uint8_t*)(uintptr_t)args[NPUVP_LAYERNORM_GAMMA];
    l.beta = (const uint8_t*)(uintptr_t)args[NPUVP_LAYERNORM_BETA];
    l.out = (uint8_t*)(uintptr_t)args[NPUVP_LAYERNORM_OUT];
    l.cols = args[NPUVP_LAYERNORM_COLS];
    l.eps = (uint32_t)args[NPUVP_LAYERNORM_EPS];
    const uint64_t rows = args[NPUVP_LAYERNORM_ROWS];
    if (!l.gamma) layernorm_invalid_argument();
    if (l.cols == 0 || rows == 0) return;
    l.pitch = (l.cols + LANES_F32 - 1) / LANES_F32 * LANES_F32;
    const uint64_t per = ceil_div(rows, block_dim());
    const uint64_t begin = min_u64(block_idx() * per, rows), end = min_u64(begin + per, rows);
    if (begin >= end) return;
    set_cols_constant(&l);
    if (l.cols <= CHUNK) layernorm_short_rows(l, begin, end);
    else layernorm_long_rows(&l, begin, end);
}
