/*
 * MatMul / Gemm operator on the Cube (slot NPUVP_OP_KERNEL_MATMUL): for every
 * batch b, C_b = act(alpha * op(A_b) x op(B_b) + bias + R_b), f16 operands,
 * f32 accumulation in L0C; the argument words are npuvp_matmul_arg of
 * sw/include/npuvp/operator_kernels.h. Any M, K, N >= 1 and any row strides:
 * nd2nz reads exactly the valid bytes of each row and zero-pads the
 * fractals, and the write-back stores only the valid columns.
 *
 * The design is gemm.c's (see its header for the pipeline and the reasoning
 * about deadlock freedom); what differs:
 *  - tiles are numbered row-major over batch x M tiles x N tiles and task
 *    block b of B takes the tiles [T*b/B, T*(b+1)/B); a "tile row" is one
 *    (batch, M tile), whose A block stays resident in L1 whenever it fits
 *    beside the B ring (K up to 1792 for 256-row tiles, 3584 for 128); with
 *    more than 14 slots, one "bank free" token per tile row (released after
 *    the row's last stage) replaces gemm.c's token per slot, which the flag
 *    counter (15) could not hold;
 *  - the tile is TILE_M x TILE_N (default 256 x 128; at most 512 x 256 and
 *    one L0C half, 128 fractals), K goes through L1 in stages of 128;
 *  - TRANS_A / TRANS_B load the chunk as stored and transpose per fractal on
 *    the way to L0A (A) or need no transpose at all (B), see cube_common.h;
 *  - the epilogue (bias via mmad_bias, alpha, residual, ReLU / Clip) is
 *    cube_common.h's Epilogue.
 * FLAGS bit 0 clear runs the same tiling serially (pipe_barrier(PIPE_ALL)
 * after each step). A row stride below the row length (LDA < K, or < M
 * with TRANS_A; likewise LDB; LDC < N) stops the kernel with a scalar-trap
 * fault at matmul_row_stride_too_small.
 */
#include "cube_common.h"

enum {
    STAGE_K = 128,
    L1_SIZE = 1 << 20,
    B_SLOTS = 4,
    STREAM_A_SLOTS = 4,
    LOOKAHEAD = 3, /* stages; B_SLOTS - 1 */
    MAX_A_BANKS = 4,
    MAX_SLOT_TOKENS = 14, /* more resident A slots than this: one token per bank (the flag counter holds 15) */
    MAX_TILE_M = 512, /* the epilogue's f32 scratch holds one column group of 512 rows */
    MAX_TILE_N = 256, /* a bias slot holds 256 f32 */
};

typedef struct {
    const uint8_t *a, *b, *bias, *r;
    uint8_t* c;
    uint64_t m, k, n, lda, ldb, ldc, a_bs, b_bs, c_bs;
    int trans_a, trans_b;
    uint64_t tile_m, tile_n;     /* tile size (multiples of 16) */
    uint64_t n_mt, n_nt, n_k;    /* tiles per batch, K stages per tile */
    uint64_t t_begin, t_end;     /* this block's tiles */
    uint64_t a_slot_bytes, b_slot_bytes;
    uint64_t a_slots, b_slots, a_banks, a_base;
    uint64_t row_begin;
    int db, resident, bank_tokens;
    uint64_t l0_uses;
    Epilogue ep;
} MatMul;

typedef struct {
    uint64_t t, kc;
    uint64_t batch, m0, tm, n0, tn;
    uint64_t k0, kv;
} Stage;

static void stage_of(const MatMul* g, uint64_t s, Stage* st) {
    st->t = g->t_begin + s / g->n_k;
    st->kc = s % g->n_k;
    const uint64_t row = st->t / g->n_nt; /* batch * n_mt + mt */
    st->batch = row / g->n_mt;
    st->m0 = row % g->n_mt * g->tile_m;
    st->n0 = st->t % g->n_nt * g->tile_n;
    st->tm = min_u64(g->tile_m, g->m - st->m0);
    st->tn = min_u64(g->tile_n, g->n - st->n0);
    st->k0 = st->kc * STAGE_K;
    st->kv = min_u64(STAGE_K, g->k - st->k0);
}

static uint64_t a_l1_of(const MatMul* g, uint64_t s, const Stage* st) {
    const uint64_t slot =
        g->resident ? (st->t / g->n_nt - g->row_begin) % g->a_banks * g->n_k + st->kc : s % g->a_slots;
    return g->a_base + slot * g->a_slot_bytes;
}

static void tile_gm(const MatMul* g, const Stage* st, TileGm* t) {
    const uint64_t offset = st->batch * g->c_bs + st->m0 * g->ldc + st->n0;
    t->out = g->c + offset * 2;
    t->residual = g->r ? g->r + offset * 2 : 0;
    t->bias = g->bias ? g->bias + st->n0 * 4 : 0;
    t->rows = st->tm;
    t->cols = st->tn;
    t->row_pitch = g->ldc * 2;
    t->group_pitch = 32;
    t->last_group_padded = 0;
}

/* MTE2: stage s's A chunk (unless resident and already there) and B chunk,
 * and with a tile's first stage its bias row. */
static void load_stage(const MatMul* g, uint64_t s) {
    Stage st;
    stage_of(g, s, &st);
    const uint8_t* a = g->a + st.batch * g->a_bs * 2;
    const uint8_t* b = g->b + st.batch * g->b_bs * 2;
    if (!g->resident || tile_starts_row(st.t, g->t_begin, g->n_nt)) {
        /* a slot token per chunk, or one bank token per tile row */
        if (!g->bank_tokens || st.kc == 0) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
        if (g->trans_a)
            copy_gm_to_cbuf_nd2nz(a_l1_of(g, s, &st), a + (st.k0 * g->lda + st.m0) * 2, st.kv, st.tm,
                                  g->lda * 2, round16(st.kv), XD_F16);
        else
            copy_gm_to_cbuf_nd2nz(a_l1_of(g, s, &st), a + (st.m0 * g->lda + st.k0) * 2, st.tm, st.kv,
                                  g->lda * 2, round16(st.tm), XD_F16);
    }
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    const uint64_t b_l1 = s % g->b_slots * g->b_slot_bytes;
    if (g->trans_b)
        copy_gm_to_cbuf_nd2nz(b_l1, b + (st.n0 * g->ldb + st.k0) * 2, st.tn, st.kv, g->ldb * 2, round16(st.tn),
                              XD_F16);
    else
        copy_gm_to_cbuf_nd2nz(b_l1, b + (st.k0 * g->ldb + st.n0) * 2, st.kv, st.tn, g->ldb * 2, round16(st.kv),
                              XD_F16);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    if (st.kc == 0) {
        TileGm t;
        tile_gm(g, &st, &t);
        epilogue_load_bias(&g->ep, &t, st.t - g->t_begin);
    }
    if (!g->db) pipe_barrier(PIPE_ALL);
}

/* Whether stage l's loads may be issued once the compute of stages [0, computed) is: every
 * wait must refer to a set issued earlier in program order, whatever the queue depths (a full
 * MTE2 queue stalls the scalar unit, which then never issues the set). A resident tile row's
 * A chunks wait for the bank of the row a_banks rows before, freed by that row's last tile:
 * at each of its stages (a token per slot), or after its last stage (a token per bank). With one
 * bank the next row's first load would otherwise wait, LOOKAHEAD stages early, for the set of a
 * stage not yet issued; a residual's prefetch behind it filled the MTE2 queue (M 250, K 2048). */
static int load_ready(const MatMul* g, uint64_t l, uint64_t computed) {
    if (!g->resident) return 1; /* streamed A: slot l - a_slots, freed a_slots > LOOKAHEAD stages before */
    const uint64_t t = g->t_begin + l / g->n_k, kc = l % g->n_k;
    if (!tile_starts_row(t, g->t_begin, g->n_nt) || (g->bank_tokens && kc != 0)) return 1; /* no wait */
    const uint64_t row = t / g->n_nt;
    if (row - g->row_begin < g->a_banks) return 1; /* the bank's first row: the tokens set at the start */
    const uint64_t last_tile = min_u64(g->t_end, (row - g->a_banks + 1) * g->n_nt) - 1;
    const uint64_t release = (last_tile - g->t_begin) * g->n_k + (g->bank_tokens ? g->n_k - 1 : kc);
    return release < computed;
}

/* MTE1 + Cube for stage s, then the tile's write-back after its last stage. */
static void compute_stage(MatMul* g, uint64_t s) {
    Stage st;
    stage_of(g, s, &st);
    const uint64_t tmf = ceil_div(st.tm, 16), tnf = ceil_div(st.tn, 16), kvf = ceil_div(st.kv, 16);
    const uint64_t i = st.t - g->t_begin;
    const uint64_t h = g->db ? i & 1 : 0;
    const uint64_t kstep = min_u64(STAGE_K / 16, min_u64(64 / ceil_div(g->tile_m, 16), 64 / ceil_div(g->tile_n, 16)));
    const uint64_t a_l1 = a_l1_of(g, s, &st);
    const uint64_t b_l1 = s % g->b_slots * g->b_slot_bytes;
    const int release_a =
        !g->resident || (tile_ends_row(st.t, g->t_end, g->n_nt) && (!g->bank_tokens || st.kc + 1 == g->n_k));
    TileGm t;
    tile_gm(g, &st, &t);
    if (st.kc + 1 == g->n_k) epilogue_prefetch(&g->ep, &t, tmf);

    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    for (uint64_t j = 0; j < kvf; j += kstep) {
        const uint64_t kf = min_u64(kstep, kvf - j);
        const uint64_t ksub = min_u64(kstep * 16, st.kv - j * 16);
        const uint64_t p = g->db ? g->l0_uses & 1 : 0;
        const int first = st.kc == 0 && j == 0;
        g->l0_uses++;

        WAIT_FLAG01(PIPE_M, PIPE_MTE1, p);
        if (g->trans_a) load_a_zz_from_at(p * L0A_HALF, a_l1 + j * FRACTAL, tmf, kf, kvf);
        else load_a_zz(p * L0A_HALF, a_l1 + j * tmf * FRACTAL, tmf, kf);
        if (g->trans_b) load_b_zn_from_bt(p * L0B_HALF, b_l1 + j * tnf * FRACTAL, kf, tnf);
        else load_b_zn(p * L0B_HALF, b_l1 + j * FRACTAL, kf, tnf, kvf);
        SET_FLAG01(PIPE_MTE1, PIPE_M, p);
        if (j + kstep >= kvf) {
            set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
            if (release_a) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
        }
        if (!g->db) pipe_barrier(PIPE_ALL);

        if (first) WAIT_FLAG01(PIPE_V, PIPE_M, h);
        WAIT_FLAG01(PIPE_MTE1, PIPE_M, p);
        if (first) mmad_first(&g->ep, i, h * L0C_HALF, p * L0A_HALF, p * L0B_HALF, st.tm, ksub, st.tn);
        else mmad(h * L0C_HALF, p * L0A_HALF, p * L0B_HALF, st.tm, ksub, st.tn, XD_F16, 0);
        SET_FLAG01(PIPE_M, PIPE_MTE1, p);
        if (!g->db) pipe_barrier(PIPE_ALL);
    }
    if (st.kc + 1 == g->n_k) {
        SET_FLAG01(PIPE_M, PIPE_V, h);
        epilogue_write_back(&g->ep, &t, h);
    }
}

/* Rows that overlap are a caller's error: stop with a fault naming it (not inlined, so the report does). */
__attribute__((noinline)) static void matmul_row_stride_too_small(void) { __asm__ volatile("ebreak"); }

/* Tile size from the plan (0: 256 x 128), rounded to fractals and kept
 * within one L0C half and the epilogue's buffers. */
static void choose_tile(MatMul* g, uint64_t tile_m, uint64_t tile_n) {
    g->tile_m = tile_m ? round16(tile_m) : TILE_M;
    g->tile_n = tile_n ? round16(tile_n) : TILE_N;
    if (g->tile_m > MAX_TILE_M) g->tile_m = MAX_TILE_M;
    if (g->tile_n > MAX_TILE_N) g->tile_n = MAX_TILE_N;
    while ((g->tile_m / 16) * (g->tile_n / 16) > L0C_HALF / 1024) {
        if (g->tile_m >= g->tile_n) g->tile_m -= 16;
        else g->tile_n -= 16;
    }
    /* no larger than the matrix (small M or N keep more tiles per L1) */
    g->tile_m = min_u64(g->tile_m, round16(g->m));
    g->tile_n = min_u64(g->tile_n, round16(g->n));
}

void kernel_main(const uint64_t* gm_args) {
    uint64_t local_args[NPUVP_OP_ARG_TAG];
    const uint64_t* args = kernel_args_local(gm_args, local_args);
    MatMul g;
    g.a = (const uint8_t*)(uintptr_t)args[NPUVP_MATMUL_A];
    g.b = (const uint8_t*)(uintptr_t)args[NPUVP_MATMUL_B];
    g.bias = (const uint8_t*)(uintptr_t)args[NPUVP_MATMUL_BIAS];
    g.r = (const uint8_t*)(uintptr_t)args[NPUVP_MATMUL_RESIDUAL];
    g.c = (uint8_t*)(uintptr_t)args[NPUVP_MATMUL_C];
    const uint64_t batch = args[NPUVP_MATMUL_BATCH];
    g.m = args[NPUVP_MATMUL_M];
    g.k = args[NPUVP_MATMUL_K];
    g.n = args[NPUVP_MATMUL_N];
    g.lda = args[NPUVP_MATMUL_LDA];
    g.ldb = args[NPUVP_MATMUL_LDB];
    g.ldc = args[NPUVP_MATMUL_LDC];
    g.a_bs = args[NPUVP_MATMUL_A_BATCH_STRIDE];
    g.b_bs = args[NPUVP_MATMUL_B_BATCH_STRIDE];
    g.c_bs = args[NPUVP_MATMUL_C_BATCH_STRIDE];
    g.trans_a = args[NPUVP_MATMUL_TRANS_A] != 0;
    g.trans_b = args[NPUVP_MATMUL_TRANS_B] != 0;
    g.db = (args[NPUVP_MATMUL_FLAGS] & 1) != 0;
    if (batch == 0 || g.m == 0 || g.k == 0 || g.n == 0) return;
    if (g.lda < (g.trans_a ? g.m : g.k) || g.ldb < (g.trans_b ? g.k : g.n) || g.ldc < g.n) {
        matmul_row_stride_too_small();
        return;
    }

    g.ep.act = args[NPUVP_MATMUL_ACT];
    g.ep.clip_lo = f32_bits_to_f16(args[NPUVP_MATMUL_CLIP_MIN]);
    g.ep.clip_hi = f32_bits_to_f16(args[NPUVP_MATMUL_CLIP_MAX]);
    g.ep.alpha = args[NPUVP_MATMUL_ALPHA] & 0xffffffffu;
    g.ep.bias = g.bias;
    g.ep.residual = g.r != 0;
    g.ep.zero_lanes_from = 0;
    g.ep.serial = !g.db;

    choose_tile(&g, args[NPUVP_MATMUL_TILE_M], args[NPUVP_MATMUL_TILE_N]);
    g.n_mt = ceil_div(g.m, g.tile_m);
    g.n_nt = ceil_div(g.n, g.tile_n);
    g.n_k = ceil_div(g.k, STAGE_K);
    const uint64_t tiles = batch * g.n_mt * g.n_nt, blocks = block_dim(), b = block_idx();
    g.t_begin = tiles * b / blocks;
    g.t_end = tiles * (b + 1) / blocks;
    if (g.t_begin >= g.t_end) return;

    /* L1: a ring of B chunks, then A chunk slots (resident A blocks when K is short enough). */
    const uint64_t lookahead = g.db ? LOOKAHEAD : 0;
    g.a_slot_bytes = g.tile_m * STAGE_K * 2;
    g.b_slot_bytes = STAGE_K * g.tile_n * 2;
    g.row_begin = g.t_begin / g.n_nt;
    g.b_slots = g.db ? B_SLOTS : 1;
    g.a_base = g.b_slots * g.b_slot_bytes;
    const uint64_t a_capacity = (L1_SIZE - g.a_base) / g.a_slot_bytes;
    g.resident = g.n_k <= a_capacity;
    g.a_banks = g.db && g.resident ? min_u64(MAX_A_BANKS, a_capacity / g.n_k) : 1;
    g.a_slots = g.resident ? g.a_banks * g.n_k : g.db ? STREAM_A_SLOTS : 1;
    g.bank_tokens = g.a_slots > MAX_SLOT_TOKENS;
    const uint64_t a_tokens = g.bank_tokens ? g.a_banks : g.a_slots;
    g.l0_uses = 0;

    for (uint64_t i = 0; i < g.b_slots; ++i) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    for (uint64_t i = 0; i < a_tokens; ++i) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
    cube_pipeline_open();
    epilogue_open(&g.ep);

    /* loads run up to `lookahead` stages ahead of the compute, in order, each once it is ready
     * (load_ready; stage s's own loads always are by compute_stage(s)) */
    const uint64_t stages = (g.t_end - g.t_begin) * g.n_k;
    uint64_t loaded = 0;
    for (uint64_t s = 0; s < stages; ++s) {
        while (loaded < stages && loaded <= s + lookahead && load_ready(&g, loaded, s)) load_stage(&g, loaded++);
        compute_stage(&g, s);
    }

    for (uint64_t i = 0; i < g.b_slots; ++i) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    for (uint64_t i = 0; i < a_tokens; ++i) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
    epilogue_close(&g.ep);
    cube_pipeline_close();
}
