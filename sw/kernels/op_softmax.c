/*
 * Softmax over the last axis (slot 8, NPUVP_OP_KERNEL_SOFTMAX): for each of
 * ROWS rows of COLS f16, y = exp(x - max) / sum(exp(x - max)), in f32.
 * Arguments: enum npuvp_softmax_arg (sw/include/npuvp/operator_kernels.h).
 *
 * Rows are split evenly over the task blocks. Rows of up to CHUNK columns
 * are processed k at a time (k = CHUNK / round64(COLS)): one pitched copy
 * loads the k rows (each padded to whole f32 repeats), then the row maxima
 * (rows_reduce), the subtraction of each row's maximum (skipped when all
 * the tile's maxima lie in [-60, 60]: see maxima_need_shift), one vexp over
 * the tile, the row sums, their reciprocals and the scaling, and one copy
 * stores the k rows. The scalar unit reads the k reciprocals (and the k
 * maxima when they are needed) from UB to issue the per-row operations. The next tile is loaded
 * while this one computes (two UB halves, event-flag tokens as in
 * vector_common.h's stream_f16).
 *
 * Longer rows make two passes over the row in chunks of CHUNK columns,
 * streamed through the same two halves: the maximum and the sum of
 * exp(x - max) together (the sum rescaled whenever the maximum grows), then
 * the output.
 */
#include "npuvp/operator_kernels.h"
#include "vector_math.h"

enum {
    CHUNK = 8192,            /* f16 elements per tile (and f32 elements of the work tile) */
    TILE_BYTES = CHUNK * 2,  /* per UB half */
    X_BASE = 2 * TILE_BYTES, /* f32 work tile */
    SCRATCH_BASE = X_BASE + CHUNK * 4,
    SCRATCH_BYTES = (CHUNK / LANES_F32 + CHUNK / 128) * 256,
    STATS_BASE = SCRATCH_BASE + SCRATCH_BYTES, /* maxima, sums: CHUNK / 64 f32 each */
    MAXES = STATS_BASE, SUMS = STATS_BASE + CHUNK / LANES_F32 * 4,
    RUNNING = SUMS + CHUNK / LANES_F32 * 4, /* streaming: running max / sum, one repeat */
    CHECK = RUNNING + 256,                   /* |maxima|: CHUNK / 64 f32 */
    CHECK_OUT = CHECK + CHUNK / LANES_F32 * 4, /* their maxima: 2 + 1 f32, 32-byte aligned */
    UB_END = CHECK_OUT + 64,
};
_Static_assert(UB_END <= 256 * 1024, "softmax UB layout exceeds the 256 KiB UB");

struct softmax {
    const uint8_t* in;
    uint8_t* out;
    uint64_t cols;
};

/* Whether exp(x) needs the shift by the row maximum: not when every row's
 * maximum is within [-60, 60]. Then no term overflows f32 (e^60 times 8192
 * columns is below 1e30) and each row keeps a term of at least e^-60, far
 * above f32's smallest normal, so terms that underflow lie below the sum's
 * f32 precision: exp(x) / sum and exp(x - max) / sum' agree to f32
 * rounding. The Vector unit reduces the k maxima to max |maximum| (one per
 * 64 rows), so the scalar unit reads at most two values. Drains the V pipe. */
#define F32_NO_SHIFT_LIMIT 0x42700000u /* 60.0f */
static int maxima_need_shift(uint64_t k) {
    const uint64_t whole = k / LANES_F32, rest = k % LANES_F32;
    vloop(V_ABS, XD_F32, CHECK, MAXES, 0, k);
    if (whole) vcmax(CHECK_OUT, CHECK, vector_contiguous(whole, XD_F32));
    if (rest) {
        set_mask_lanes(rest);
        vcmax(CHECK_OUT + 32, CHECK + whole * 256, vector_contiguous(1, XD_F32));
        set_mask_all();
    }
    wait_vector();
    uint32_t largest = rest ? ub_read32(CHECK_OUT + 32) & 0x7fffffffu : 0; /* NaN bits compare above */
    for (uint64_t i = 0; i < whole; ++i) {
        const uint32_t bits = ub_read32(CHECK_OUT + i * 4) & 0x7fffffffu;
        if (bits > largest) largest = bits;
    }
    return largest > F32_NO_SHIFT_LIMIT;
}

/* V: softmax of the k rows in UB half `ub` (f16, pitch elements per row), in place. */
static void softmax_tile(uint64_t ub, uint64_t k, uint64_t cols, uint64_t pitch) {
    const uint64_t n = k * pitch;
    f16_to_f32(X_BASE, ub, n);
    rows_fill_padding(X_BASE, k, pitch, cols, F32_MINUS_INF);
    rows_reduce(V_MAX, MAXES, X_BASE, k, pitch, SCRATCH_BASE);
    if (maxima_need_shift(k)) rows_apply_scalars(V_ADDS, X_BASE, k, pitch, MAXES, F32_SIGN);
    vloop(V_EXP, XD_F32, X_BASE, X_BASE, 0, n);
    rows_reduce(V_ADD, SUMS, X_BASE, k, pitch, SCRATCH_BASE);
    vloop(V_REC, XD_F32, SUMS, SUMS, 0, k);
    wait_vector();
    rows_apply_scalars(V_MULS, X_BASE, k, pitch, SUMS, 0);
    f32_to_f16(ub, X_BASE, n);
}

/* Rows [begin, end) with whole rows in UB: tile i + 1 is loaded while tile i
 * computes. */
static void softmax_short_rows(const struct softmax* s, uint64_t begin, uint64_t end) {
    const uint64_t pitch = (s->cols + LANES_F32 - 1) / LANES_F32 * LANES_F32;
    const uint64_t per_tile = min_u64(CHUNK / pitch, 4095);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
    uint64_t h = 0, row = begin, k = min_u64(per_tile, end - begin);
    if (row < end) {
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        load_rows_f16(0, s->in + row * s->cols * 2, k, s->cols, pitch);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    }
    while (row < end) {
        const uint64_t next = row + k, next_k = min_u64(per_tile, end - next);
        if (next < end) { /* prefetch into the other half */
            WAIT_FLAG01(PIPE_MTE3, PIPE_MTE2, h ^ 1);
            load_rows_f16((h ^ 1) * TILE_BYTES, s->in + next * s->cols * 2, next_k, s->cols, pitch);
            SET_FLAG01(PIPE_MTE2, PIPE_V, h ^ 1);
        }
        WAIT_FLAG01(PIPE_MTE2, PIPE_V, h);
        softmax_tile(h * TILE_BYTES, k, s->cols, pitch);
        SET_FLAG01(PIPE_V, PIPE_MTE3, h);
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, h);
        store_rows_f16(s->out + row * s->cols * 2, h * TILE_BYTES, k, s->cols, pitch);
        SET_FLAG01(PIPE_MTE3, PIPE_MTE2, h);
        row = next;
        k = next_k;
        h ^= 1;
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}

/* f32 bits -> an unsigned key in the order of the (non-NaN) values. */
static uint32_t f32_order(uint32_t bits) { return (bits >> 31) ? ~bits : (bits | 0x80000000u); }

/* Issues one 1-lane f32 instruction on RUNNING-area scalars. */
#define ONE_LANE(call)                 \
    do {                               \
        set_mask_lanes(1);             \
        call;                          \
        set_mask_all();                \
    } while (0)

/* The first pass over a long row, in chunks: the running maximum M (kept
 * by the scalar unit, from each chunk's maximum) and the running sum S of
 * exp(x - M) in RUNNING lane 0, rescaled by exp(M_old - M_new) when the
 * maximum grows ("online" softmax: one read of the row for both). Chunks are
 * double buffered with MTE2->V / V->MTE2 tokens (the conversion frees a
 * chunk's half), the next chunk loaded while this one computes. Returns M. */
static uint32_t softmax_statistics(const struct softmax* s, uint64_t row) {
    const uint8_t* in = s->in + row * s->cols * 2;
    const uint64_t one = vector_contiguous(1, XD_F32);
    uint32_t max = F32_MINUS_INF;
    ONE_LANE(vector_dup(RUNNING, 0, one));
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    load_rows_f16(0, in, 1, min_u64(CHUNK, s->cols), round16(min_u64(CHUNK, s->cols)));
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    uint64_t h = 0;
    for (uint64_t col = 0; col < s->cols; col += CHUNK, h ^= 1) {
        const uint64_t count = min_u64(CHUNK, s->cols - col), next = col + CHUNK;
        const uint64_t n = (count + LANES_F32 - 1) / LANES_F32 * LANES_F32;
        if (next < s->cols) {
            const uint64_t next_count = min_u64(CHUNK, s->cols - next);
            WAIT_FLAG01(PIPE_V, PIPE_MTE2, h ^ 1);
            load_rows_f16((h ^ 1) * TILE_BYTES, in + next * 2, 1, next_count, round16(next_count));
            SET_FLAG01(PIPE_MTE2, PIPE_V, h ^ 1);
        }
        WAIT_FLAG01(PIPE_MTE2, PIPE_V, h);
        f16_to_f32(X_BASE, h * TILE_BYTES, n);
        SET_FLAG01(PIPE_V, PIPE_MTE2, h);
        rows_fill_padding(X_BASE, 1, n, count, F32_MINUS_INF);
        rows_reduce(V_MAX, SUMS, X_BASE, 1, n, SCRATCH_BASE);
        wait_vector();
        const uint32_t chunk_max = ub_read32(SUMS);
        const uint32_t new_max = f32_order(chunk_max) > f32_order(max) ? chunk_max : max;
        if (new_max == F32_MINUS_INF) continue; /* nothing but -inf so far: S stays 0 */
        if (new_max != max && max != F32_MINUS_INF) { /* S *= exp(M_old - M_new) */
            ONE_LANE(vector_dup(CHECK, max, one));
            ONE_LANE(vadds(CHECK, CHECK, new_max ^ F32_SIGN, one));
            ONE_LANE(vexp(CHECK, CHECK, one));
            ONE_LANE(vmul(RUNNING, RUNNING, CHECK, one));
        }
        max = new_max;
        vloop(V_ADDS, XD_F32, X_BASE, X_BASE, max ^ F32_SIGN, n);
        vloop(V_EXP, XD_F32, X_BASE, X_BASE, 0, n);
        rows_reduce(V_ADD, SUMS, X_BASE, 1, n, SCRATCH_BASE);
        ONE_LANE(vadd(RUNNING, RUNNING, SUMS, one));
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    return max;
}

/* The second pass: exp(x - max) * inverse, chunk by chunk (double buffered,
 * the token ring as in softmax_short_rows). */
static void softmax_output(const struct softmax* s, uint64_t row, uint32_t neg_max, uint32_t inverse) {
    const uint8_t* in = s->in + row * s->cols * 2;
    uint8_t* out = s->out + row * s->cols * 2;
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
    uint64_t h = 0;
    for (uint64_t col = 0; col < s->cols; col += CHUNK, h ^= 1) {
        const uint64_t count = min_u64(CHUNK, s->cols - col), pitch = round16(count);
        const uint64_t n = (count + LANES_F32 - 1) / LANES_F32 * LANES_F32, ub = h * TILE_BYTES;
        WAIT_FLAG01(PIPE_MTE3, PIPE_MTE2, h);
        load_rows_f16(ub, in + col * 2, 1, count, pitch);
        SET_FLAG01(PIPE_MTE2, PIPE_V, h);
        WAIT_FLAG01(PIPE_MTE2, PIPE_V, h);
        f16_to_f32(X_BASE, ub, n);
        vloop(V_ADDS, XD_F32, X_BASE, X_BASE, neg_max, n);
        vloop(V_EXP, XD_F32, X_BASE, X_BASE, 0, n);
        vloop(V_MULS, XD_F32, X_BASE, X_BASE, inverse, n);
        f32_to_f16(ub, X_BASE, n);
        SET_FLAG01(PIPE_V, PIPE_MTE3, h);
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, h);
        store_rows_f16(out + col * 2, ub, 1, count, pitch);
        SET_FLAG01(PIPE_MTE3, PIPE_MTE2, h);
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}

static void softmax_long_rows(const struct softmax* s, uint64_t begin, uint64_t end) {
    for (uint64_t row = begin; row < end; ++row) {
        const uint32_t max = softmax_statistics(s, row);
        ONE_LANE(vrec(RUNNING, RUNNING, vector_contiguous(1, XD_F32)));
        wait_vector();
        softmax_output(s, row, max ^ F32_SIGN, ub_read32(RUNNING));
    }
}

void kernel_main(const uint64_t* args) {
    struct softmax s;
    s.in = (const uint8_t*)(uintptr_t)args[NPUVP_SOFTMAX_IN];
    s.out = (uint8_t*)(uintptr_t)args[NPUVP_SOFTMAX_OUT];
    s.cols = args[NPUVP_SOFTMAX_COLS];
    const uint64_t rows = args[NPUVP_SOFTMAX_ROWS];
    if (s.cols == 0 || rows == 0) return;
    const uint64_t per = ceil_div(rows, block_dim());
    const uint64_t begin = min_u64(block_idx() * per, rows), end = min_u64(begin + per, rows);
    if (s.cols <= CHUNK) softmax_short_rows(&s, begin, end);
    else softmax_long_rows(&s, begin, end);
}
