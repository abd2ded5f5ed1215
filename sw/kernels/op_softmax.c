/*
 * Softmax over the last axis (slot 8, NPUVP_OP_KERNEL_SOFTMAX): for each of
 * ROWS rows of COLS f16, y = exp(x - max) / sum(exp(x - max)), in f32.
 * Arguments: enum npuvp_softmax_arg (sw/include/npuvp/operator_kernels.h).
 *
 * Rows are split evenly over the task blocks. Rows of up to CHUNK columns
 * are processed k at a time (k = CHUNK / round64(COLS)): one pitched copy
 * loads the k rows (each padded to whole f32 repeats), then the row maxima
 * (rows_reduce), the subtraction of each row's maximum, one vexp over the
 * tile, the row sums, their reciprocals and the scaling, and one copy
 * stores the k rows. The scalar unit reads the k maxima and reciprocals
 * from UB to issue the per-row scalar operations. The next tile is loaded
 * while this one computes (two UB halves, event-flag tokens as in
 * vector_common.h's stream_f16).
 *
 * Longer rows make three passes over the row in chunks of CHUNK columns,
 * streamed through the same two halves: the maximum, the sum of
 * exp(x - max), then the output.
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
    UB_END = RUNNING + 256,
};
_Static_assert(UB_END <= 256 * 1024, "softmax UB layout exceeds the 256 KiB UB");

struct softmax {
    const uint8_t* in;
    uint8_t* out;
    uint64_t cols;
};

/* MTE2: k rows of `cols` f16 from GM to UB, rows `pitch` elements apart (zero-filled to 32 bytes). */
static void load_rows(uint64_t ub, const uint8_t* gm, uint64_t k, uint64_t cols, uint64_t pitch) {
    const uint64_t blocks = ceil_div(cols * 2, 32);
    copy_gm_to_ubuf_pitched(ub, gm, k, blocks, pitch / 16 - blocks, cols * 2, cols * 2);
}
static void store_rows(uint8_t* gm, uint64_t ub, uint64_t k, uint64_t cols, uint64_t pitch) {
    const uint64_t blocks = ceil_div(cols * 2, 32);
    copy_ubuf_to_gm_pitched(gm, ub, k, blocks, pitch / 16 - blocks, cols * 2, cols * 2);
}

/* V: softmax of the k rows in UB half `ub` (f16, pitch elements per row), in place. */
static void softmax_tile(uint64_t ub, uint64_t k, uint64_t cols, uint64_t pitch) {
    const uint64_t n = k * pitch;
    f16_to_f32(X_BASE, ub, n);
    rows_fill_padding(X_BASE, k, pitch, cols, F32_MINUS_INF);
    rows_reduce(V_MAX, MAXES, X_BASE, k, pitch, SCRATCH_BASE);
    wait_vector();
    rows_apply_scalars(V_ADDS, X_BASE, k, pitch, MAXES, F32_SIGN);
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
        load_rows(0, s->in + row * s->cols * 2, k, s->cols, pitch);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    }
    while (row < end) {
        const uint64_t next = row + k, next_k = min_u64(per_tile, end - next);
        if (next < end) { /* prefetch into the other half */
            WAIT_FLAG01(PIPE_MTE3, PIPE_MTE2, h ^ 1);
            load_rows((h ^ 1) * TILE_BYTES, s->in + next * s->cols * 2, next_k, s->cols, pitch);
            SET_FLAG01(PIPE_MTE2, PIPE_V, h ^ 1);
        }
        WAIT_FLAG01(PIPE_MTE2, PIPE_V, h);
        softmax_tile(h * TILE_BYTES, k, s->cols, pitch);
        SET_FLAG01(PIPE_V, PIPE_MTE3, h);
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, h);
        store_rows(s->out + row * s->cols * 2, h * TILE_BYTES, k, s->cols, pitch);
        SET_FLAG01(PIPE_MTE3, PIPE_MTE2, h);
        row = next;
        k = next_k;
        h ^= 1;
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}

enum pass { PASS_MAX, PASS_SUM, PASS_OUTPUT };

/* One pass over a long row in chunks (double buffered; the token ring as
 * above, MTE3 storing only in the output pass). PASS_MAX and PASS_SUM fold
 * each chunk into RUNNING lane 0; PASS_OUTPUT writes exp(x - max) * inverse. */
static void softmax_pass(const struct softmax* s, uint64_t row, enum pass pass, uint32_t neg_max, uint32_t inverse) {
    const uint8_t* in = s->in + row * s->cols * 2;
    uint8_t* out = s->out + row * s->cols * 2;
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
    set_mask_lanes(1);
    vector_dup(RUNNING, pass == PASS_MAX ? F32_MINUS_INF : 0, vector_contiguous(1, XD_F32));
    set_mask_all();
    uint64_t h = 0;
    for (uint64_t col = 0; col < s->cols; col += CHUNK, h ^= 1) {
        const uint64_t count = min_u64(CHUNK, s->cols - col), pitch = round16(count);
        const uint64_t n = (count + LANES_F32 - 1) / LANES_F32 * LANES_F32, ub = h * TILE_BYTES;
        WAIT_FLAG01(PIPE_MTE3, PIPE_MTE2, h);
        load_rows(ub, in + col * 2, 1, count, pitch);
        SET_FLAG01(PIPE_MTE2, PIPE_V, h);
        WAIT_FLAG01(PIPE_MTE2, PIPE_V, h);
        f16_to_f32(X_BASE, ub, n);
        rows_fill_padding(X_BASE, 1, n, count, F32_MINUS_INF);
        if (pass != PASS_MAX) {
            vloop(V_ADDS, XD_F32, X_BASE, X_BASE, neg_max, n);
            vloop(V_EXP, XD_F32, X_BASE, X_BASE, 0, n);
        }
        if (pass == PASS_OUTPUT) {
            vloop(V_MULS, XD_F32, X_BASE, X_BASE, inverse, n);
            f32_to_f16(ub, X_BASE, n);
        } else {
            rows_reduce(pass == PASS_MAX ? V_MAX : V_ADD, SUMS, X_BASE, 1, n, SCRATCH_BASE);
            set_mask_lanes(1);
            vop_issue(pass == PASS_MAX ? V_MAX : V_ADD, RUNNING, RUNNING, SUMS, vector_contiguous(1, XD_F32));
            set_mask_all();
        }
        SET_FLAG01(PIPE_V, PIPE_MTE3, h);
        WAIT_FLAG01(PIPE_V, PIPE_MTE3, h);
        if (pass == PASS_OUTPUT) store_rows(out + col * 2, ub, 1, count, pitch);
        SET_FLAG01(PIPE_MTE3, PIPE_MTE2, h);
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}

static void softmax_long_rows(const struct softmax* s, uint64_t begin, uint64_t end) {
    for (uint64_t row = begin; row < end; ++row) {
        softmax_pass(s, row, PASS_MAX, 0, 0);
        wait_vector();
        const uint32_t neg_max = ub_read32(RUNNING) ^ F32_SIGN;
        softmax_pass(s, row, PASS_SUM, neg_max, 0);
        set_mask_lanes(1);
        vrec(RUNNING, RUNNING, vector_contiguous(1, XD_F32));
        set_mask_all();
        wait_vector();
        softmax_pass(s, row, PASS_OUTPUT, neg_max, ub_read32(RUNNING));
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
