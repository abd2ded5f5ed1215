/*
 * GEMM on the Cube: C[M x N] = A[M x K] x B[K x N], A, B and C row-major f16
 * in GM, products accumulated in f32 in L0C (k in increasing order, one
 * rounding per addition, exactly as a sequential float loop), converted to
 * f16 (round to nearest even) on the way to UB. Any M, K, N >= 1: partial
 * tiles are zero-padded to whole fractals by nd2nz and written back with
 * byte-exact (valid-length) bursts.
 *
 * Arguments (64-bit words): {A, B, C, M, K, N, flags}
 *   flags bit 0: double buffering (pipelined). Without it every step waits
 *   for the previous one (pipe_barrier(PIPE_ALL) after each), same tiling.
 *
 * Tiling.
 *   C tiles of up to TILE_M x TILE_N = 256 x 128 (16 x 8 fractals: one L0C
 *   half, 128 KiB f32), numbered row-major over the tile grid; task block b
 *   of B takes tiles [T*b/B, T*(b+1)/B). For each tile, K goes through L1 in
 *   stages of STAGE_K = 128 (the A chunk tm x 128 and the B chunk 128 x tn,
 *   both loaded by copy_gm_to_cbuf_nd2nz, zero-padded to whole fractals), and
 *   each stage through L0A/L0B in one or two mmads of m=tm, k=64 or 128,
 *   n=tn (kf = 4 when the tile has more than 8 fractal rows, else 8: the
 *   largest step that fits an L0A/L0B half of 64 fractals). The mmad of the
 *   tile's first step initialises C, the others accumulate.
 *
 *   L1 (1 MiB): a ring of 4 B chunks of 32 KiB at 0 (one chunk without
 *   double buffering), then A chunk slots of 64 KiB. When K needs
 *   at most 14 stages (K <= 1792) the A block of a tile row stays resident
 *   ("A resident"): chunk kc of the row goes to slot bank * n_k + kc, loaded
 *   by the first tile of the row in this block's range and reused by the
 *   row's next tiles, so B is read once per tile row and A once (GM traffic
 *   2MK + 2KN*ceil(M/256) bytes; 10 MiB at 1024^3). With double buffering
 *   the rows use min(4, 14 / n_k) banks in turn (small K: the next rows'
 *   chunks load while earlier rows are still in use); a bank is reloaded
 *   chunk by chunk as the last tile of its previous row releases it.
 *   Otherwise (K > 1792) A chunks stream through a ring of 4 slots like B.
 *
 * Pipeline (flags bit 0 set). Stages are loaded LOOKAHEAD = 3 stages ahead
 * of the one computed (program order is the issue order, so the MTE2 work
 * is issued early enough to overlap), and every resource is a token ring:
 *   B / A slots in L1   MTE1->MTE2 EVENT_ID0 / EVENT_ID1: "slot free"
 *                       counting tokens (pre-set to the number of slots)
 *   stage loaded        MTE2->MTE1 EVENT_ID0 (one token per stage)
 *   L0A/L0B halves      MTE1->M EVENT_ID0/1 (loaded), M->MTE1 (free)
 *   L0C halves          M->V EVENT_ID0/1 (tile done), V->M (free)
 *   UB halves           V->MTE3 EVENT_ID0/1 (converted), MTE3->V (free)
 * so MTE2 (GM -> L1), MTE1 (L1 -> L0), the Cube, the L0C -> UB conversion
 * and MTE3 (UB -> GM) all overlap. Every wait refers to a set issued
 * earlier in program order (a slot is reused at least LOOKAHEAD + 1 stages
 * after the stage that releases it), which keeps the pipes deadlock-free
 * whatever the queue depths. Token counts stay within the flag counters'
 * limit of 15 (at most 14 A slots, 4 B slots).
 *
 * Performance (1 AI Core, operands in the L2 buffer, default timing): at
 * 1024^3, 512 mmads of 16x4x8 fractals keep the Cube busy 532,480 of
 * 554,838 kernel cycles, MAC utilisation 0.945; MTE2 (ring-bound at 32
 * bytes/cycle) is busy 62%. The losses are the first tile (its A row and B
 * panel must both arrive, MTE2-bound), the three changes of tile row (about
 * 2,500 cycles each) and the last tile's write-back. Serial: 1.30 M cycles,
 * 0.40.
 */
#include "cube_common.h"

enum {
    STAGE_K = 128,
    L1_SIZE = 1 << 20,
    L1_B_SLOT = STAGE_K * TILE_N * 2, /* 32 KiB */
    L1_A_SLOT = TILE_M * STAGE_K * 2, /* 64 KiB */
    B_SLOTS = 4,
    STREAM_A_SLOTS = 4,
    LOOKAHEAD = 3, /* stages; B_SLOTS - 1, and 3 stages of MTE2 work fill its 16-entry queue */
    MAX_A_BANKS = 4,
    /* Resident A: at most 14 slots, (1 MiB - B slots) / 64 KiB, which also
     * keeps the slot tokens below the flag counter limit (15). */
    MAX_RESIDENT_A_SLOTS = (L1_SIZE - B_SLOTS * L1_B_SLOT) / L1_A_SLOT,
};

typedef struct {
    const uint8_t* a;
    const uint8_t* b;
    uint8_t* c;
    uint64_t m, k, n;
    uint64_t n_nt, n_k;      /* tile columns, K stages per tile */
    uint64_t t_begin, t_end; /* this block's tiles */
    uint64_t a_slots, b_slots, a_banks;
    uint64_t a_base;         /* L1: B ring at 0, A slots from here */
    uint64_t row_begin;      /* tile row of t_begin */
    int db, resident;
    uint64_t l0_uses; /* L0A/L0B halves handed out so far (ping-pong) */
} Gemm;

typedef struct {
    uint64_t t, kc;          /* tile, K stage */
    uint64_t m0, tm, n0, tn; /* tile position and size */
    uint64_t k0, kv;         /* stage's K range */
} Stage;

static void stage_of(const Gemm* g, uint64_t s, Stage* st) {
    st->t = g->t_begin + s / g->n_k;
    st->kc = s % g->n_k;
    st->m0 = st->t / g->n_nt * TILE_M;
    st->n0 = st->t % g->n_nt * TILE_N;
    st->tm = min_u64(TILE_M, g->m - st->m0);
    st->tn = min_u64(TILE_N, g->n - st->n0);
    st->k0 = st->kc * STAGE_K;
    st->kv = min_u64(STAGE_K, g->k - st->k0);
}

/* Resident: bank (tile row % banks), slot kc of the bank. Streaming: a ring. */
static uint64_t a_l1_of(const Gemm* g, uint64_t s, const Stage* st) {
    const uint64_t slot =
        g->resident ? (st->t / g->n_nt - g->row_begin) % g->a_banks * g->n_k + st->kc : s % g->a_slots;
    return g->a_base + slot * L1_A_SLOT;
}

/* MTE2: stage s's A chunk (unless resident and already there) and B chunk. */
static void load_stage(const Gemm* g, uint64_t s) {
    Stage st;
    stage_of(g, s, &st);
    if (!g->resident || tile_starts_row(st.t, g->t_begin, g->n_nt)) {
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
        copy_gm_to_cbuf_nd2nz(a_l1_of(g, s, &st), g->a + (st.m0 * g->k + st.k0) * 2,
                              st.tm, st.kv, g->k * 2, round16(st.tm), XD_F16);
    }
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    copy_gm_to_cbuf_nd2nz(s % g->b_slots * L1_B_SLOT, g->b + (st.k0 * g->n + st.n0) * 2, st.kv,
                          st.tn, g->n * 2, round16(st.kv), XD_F16);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    if (!g->db) pipe_barrier(PIPE_ALL);
}

/* MTE1 + Cube for stage s, then the tile's write-back after its last stage. */
static void compute_stage(Gemm* g, uint64_t s) {
    Stage st;
    stage_of(g, s, &st);
    const uint64_t tmf = ceil_div(st.tm, 16), tnf = ceil_div(st.tn, 16), kvf = ceil_div(st.kv, 16);
    const uint64_t h = g->db ? (st.t - g->t_begin) & 1 : 0; /* L0C / UB half of this tile */
    const uint64_t kstep = tmf > 8 ? 4 : 8;                 /* fractal columns per mmad */
    const uint64_t a_l1 = a_l1_of(g, s, &st);
    const uint64_t b_l1 = s % g->b_slots * L1_B_SLOT;
    const int release_a = !g->resident || tile_ends_row(st.t, g->t_end, g->n_nt);

    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    for (uint64_t j = 0; j < kvf; j += kstep) {
        const uint64_t kf = min_u64(kstep, kvf - j);
        const uint64_t ksub = min_u64(kstep * 16, st.kv - j * 16);
        const uint64_t p = g->db ? g->l0_uses & 1 : 0;
        const int first = st.kc == 0 && j == 0;
        g->l0_uses++;

        WAIT_FLAG01(PIPE_M, PIPE_MTE1, p);
        load_a_zz(p * L0A_HALF, a_l1 + j * tmf * FRACTAL, tmf, kf);
        load_b_zn(p * L0B_HALF, b_l1 + j * FRACTAL, kf, tnf, kvf);
        SET_FLAG01(PIPE_MTE1, PIPE_M, p);
        if (j + kstep >= kvf) { /* the stage's L1 chunks are no longer needed */
            set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
            if (release_a) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
        }
        if (!g->db) pipe_barrier(PIPE_ALL);

        if (first) WAIT_FLAG01(PIPE_V, PIPE_M, h);
        WAIT_FLAG01(PIPE_MTE1, PIPE_M, p);
        mmad(h * L0C_HALF, p * L0A_HALF, p * L0B_HALF, st.tm, ksub, st.tn, XD_F16, first);
        SET_FLAG01(PIPE_M, PIPE_MTE1, p);
        if (!g->db) pipe_barrier(PIPE_ALL);
    }
    if (st.kc + 1 == g->n_k) {
        SET_FLAG01(PIPE_M, PIPE_V, h);
        write_back_tile(g->c + (st.m0 * g->n + st.n0) * 2, st.tm, st.tn, g->n * 2, h, 0, !g->db);
    }
}

void kernel_main(const uint64_t* args) {
    Gemm g;
    g.a = (const uint8_t*)(uintptr_t)args[0];
    g.b = (const uint8_t*)(uintptr_t)args[1];
    g.c = (uint8_t*)(uintptr_t)args[2];
    g.m = args[3];
    g.k = args[4];
    g.n = args[5];
    g.db = (args[6] & 1) != 0;
    if (g.m == 0 || g.k == 0 || g.n == 0) return;
    const uint64_t n_mt = ceil_div(g.m, TILE_M);
    g.n_nt = ceil_div(g.n, TILE_N);
    g.n_k = ceil_div(g.k, STAGE_K);
    const uint64_t tiles = n_mt * g.n_nt, blocks = block_dim(), b = block_idx();
    g.t_begin = tiles * b / blocks;
    g.t_end = tiles * (b + 1) / blocks;
    if (g.t_begin >= g.t_end) return;

    /* L1 plan (see the header). */
    const uint64_t lookahead = g.db ? LOOKAHEAD : 0;
    g.row_begin = g.t_begin / g.n_nt;
    g.b_slots = g.db ? B_SLOTS : 1;
    g.resident = g.n_k <= MAX_RESIDENT_A_SLOTS;
    g.a_banks = g.db && g.resident ? min_u64(MAX_A_BANKS, MAX_RESIDENT_A_SLOTS / g.n_k) : 1;
    g.a_slots = g.resident ? g.a_banks * g.n_k : g.db ? STREAM_A_SLOTS : 1;
    g.a_base = g.b_slots * L1_B_SLOT;
    g.l0_uses = 0;

    for (uint64_t i = 0; i < g.b_slots; ++i) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    for (uint64_t i = 0; i < g.a_slots; ++i) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
    cube_pipeline_open();

    const uint64_t stages = (g.t_end - g.t_begin) * g.n_k;
    for (uint64_t s = 0; s < lookahead && s < stages; ++s) load_stage(&g, s);
    for (uint64_t s = 0; s < stages; ++s) {
        if (s + lookahead < stages) load_stage(&g, s + lookahead);
        compute_stage(&g, s);
    }

    for (uint64_t i = 0; i < g.b_slots; ++i) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    for (uint64_t i = 0; i < g.a_slots; ++i) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
    cube_pipeline_close();
}
