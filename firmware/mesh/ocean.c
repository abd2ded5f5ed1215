/*
 * Ocean-like multigrid solver (after SPLASH-2 OCEAN, whose time steps solve elliptic
 * equations with a red-black multigrid method on square partitions of the grid): the
 * Poisson equation -lap(u) = f on the unit square, cell-centred, n x n interior cells
 * plus one ghost cell on each side (zero boundary), solved each time step by V-cycles
 * (two red-black Gauss-Seidel sweeps before and after each coarse-grid correction,
 * restriction by averaging four cells, piecewise-constant prolongation, coarsest grid
 * 4 x 4). The forcing f changes each step and takes a part of the previous solution,
 * so the steps depend on one another. Every grid level is split into px x py square-ish
 * blocks, one per hart (4 x 4 for 16 harts); a barrier follows each colour of each
 * sweep and each grid transfer. Two layouts, as SPLASH-2 has two programs:
 * ocean.elf stores each hart's block of every grid contiguously (SPLASH-2's
 * "contiguous partitions", here through a per-row offset table); ocean-non.elf
 * (-DOCEAN_NON_CONTIGUOUS) stores every grid as one row-major array, so a block's rows
 * are a grid row apart and neighbouring blocks share cache lines.
 * Red-black ordering makes every value independent of the partition, so the checksum
 * of the final grid is the same for any hart count. Check (hart 0): in every time step
 * the V-cycles reduce the residual norm by at least REDUCTION.
 * Sizes: CI 66 x 66 grid (64 x 64 interior), 2 steps of 3 V-cycles; full (Table 5.3)
 * 130 x 130, 4 steps of 4 V-cycles.
 */
#include <math.h>
#include <stdio.h>

#include "mesh_workload.h"

#define INTERIOR MESH_SIZE(64, 128)
#define LEVELS MESH_SIZE(5, 6)                  /* INTERIOR down to 4 */
#define STEPS MESH_SIZE(2, 4)
#define CYCLES MESH_SIZE(3, 4)
#define PRE_SWEEPS 2
#define POST_SWEEPS 2
#define COARSEST_SWEEPS 10
#define REDUCTION 0.1
#define SIDE_MAX (INTERIOR + 2)

#ifdef OCEAN_NON_CONTIGUOUS
#define NAME "ocean-non"
#else
#define NAME "ocean"
#endif

typedef struct {
    unsigned n;                 /* interior cells per side */
    double h2;                  /* squared cell size */
    double *u, *f, *r;          /* (n + 2)^2 values each */
    unsigned row_begin, row_end, col_begin, col_end;   /* this hart's interior block */
} level_t;

static double pool[3 * (SIDE_MAX * SIDE_MAX) * 2];     /* every level's grids (< 4/3 of the finest) */
static __thread level_t level[LEVELS];
/* px x py = harts: every hart computes the same values into its own copy (a shared copy
 * written by every hart would be a data race while the others read it). */
static __thread unsigned rows_of_blocks, cols_of_blocks;
#ifndef OCEAN_NON_CONTIGUOUS
/* Contiguous blocks: element (i, j) of a level's grid is data[row_offset[i][block of j] + j]. */
static int32_t row_offset[LEVELS][SIDE_MAX][NPUVP_SMP_MAX_HARTS];
static uint8_t col_block[LEVELS][SIDE_MAX];
#endif
static double wind[SIDE_MAX][SIDE_MAX];                /* the forcing's shape, filled in the set-up */
static mesh_partial_t residual_before[STEPS][NPUVP_SMP_MAX_HARTS], residual_after[STEPS][NPUVP_SMP_MAX_HARTS];

/* Start of part `p` of `parts` of the interior 1..n (as mesh_range does for harts). */
static unsigned split(unsigned n, unsigned parts, unsigned p)
{
    unsigned base = n / parts, extra = n % parts;
    return 1 + p * base + (p < extra ? p : extra);
}

static inline double *at(const level_t *l, unsigned index, double *data, unsigned i, unsigned j)
{
#ifdef OCEAN_NON_CONTIGUOUS
    (void)index;
    return data + i * (l->n + 2) + j;
#else
    (void)l;
    return data + row_offset[index][i][col_block[index][j]] + j;
#endif
}
#define U(k, i, j) (*at(&level[k], k, level[k].u, i, j))
#define F(k, i, j) (*at(&level[k], k, level[k].f, i, j))
#define R(k, i, j) (*at(&level[k], k, level[k].r, i, j))

#ifndef OCEAN_NON_CONTIGUOUS
/* Block (a, b) holds rows [R_a, R_a+1) x cols [C_b, C_b+1), ghosts going to the edge
 * blocks; the blocks of one block row lie one after the other. */
static void build_offsets(unsigned k, unsigned n)
{
    unsigned side = n + 2;
    for (unsigned b = 0; b < cols_of_blocks; b++) {
        unsigned c0 = b == 0 ? 0 : split(n, cols_of_blocks, b);
        unsigned c1 = b + 1 == cols_of_blocks ? side : split(n, cols_of_blocks, b + 1);
        for (unsigned j = c0; j < c1; j++)
            col_block[k][j] = (uint8_t)b;
        for (unsigned a = 0; a < rows_of_blocks; a++) {
            unsigned r0 = a == 0 ? 0 : split(n, rows_of_blocks, a);
            unsigned r1 = a + 1 == rows_of_blocks ? side : split(n, rows_of_blocks, a + 1);
            int32_t base = (int32_t)(r0 * side + (r1 - r0) * c0);
            for (unsigned i = r0; i < r1; i++)
                row_offset[k][i][b] = base + (int32_t)((i - r0) * (c1 - c0)) - (int32_t)c0;
        }
    }
}
#endif

static void setup_levels(void)
{
    unsigned harts = smp_hart_count(), me = smp_hart_id();
    unsigned rows = 1;
    for (unsigned p = 1; p * p <= harts; p++)
        if (harts % p == 0)
            rows = p;
    rows_of_blocks = rows;
    cols_of_blocks = harts / rows_of_blocks;
    unsigned a = me / cols_of_blocks, b = me % cols_of_blocks;
    double *next = pool;
    for (unsigned k = 0, n = INTERIOR; k < LEVELS; k++, n /= 2) {
        level_t *l = &level[k];
        l->n = n;
        l->h2 = 1.0 / ((double)n * n);
        unsigned cells = (n + 2) * (n + 2);
        l->u = next;
        l->f = next + cells;
        l->r = next + 2 * cells;
        next += 3 * cells;
        l->row_begin = split(n, rows_of_blocks, a);
        l->row_end = split(n, rows_of_blocks, a + 1);
        l->col_begin = split(n, cols_of_blocks, b);
        l->col_end = split(n, cols_of_blocks, b + 1);
    }
}

static void sweep(unsigned k, unsigned colour)
{
    const level_t *l = &level[k];
    unsigned n = l->n;
    for (unsigned i = l->row_begin; i < l->row_end; i++)
        for (unsigned j = l->col_begin + ((i + l->col_begin + colour) & 1); j < l->col_end; j += 2) {
            double boundary_sides = (i == 1) + (i == n) + (j == 1) + (j == n);
            U(k, i, j) = (U(k, i - 1, j) + U(k, i + 1, j) + U(k, i, j - 1) + U(k, i, j + 1) +
                          l->h2 * F(k, i, j)) / (4.0 + boundary_sides);
        }
    smp_barrier();
}

static void smooth(unsigned k, unsigned sweeps)
{
    for (unsigned s = 0; s < sweeps; s++) {
        sweep(k, 0);
        sweep(k, 1);
    }
}

/* r = f - A u on this hart's block; returns the sum of r^2 there. */
static double residual(unsigned k)
{
    const level_t *l = &level[k];
    unsigned n = l->n;
    double sum = 0.0;
    for (unsigned i = l->row_begin; i < l->row_end; i++)
        for (unsigned j = l->col_begin; j < l->col_end; j++) {
            double boundary_sides = (i == 1) + (i == n) + (j == 1) + (j == n);
            double r = F(k, i, j) - ((4.0 + boundary_sides) * U(k, i, j) - U(k, i - 1, j) - U(k, i + 1, j) -
                                     U(k, i, j - 1) - U(k, i, j + 1)) / l->h2;
            R(k, i, j) = r;
            sum += r * r;
        }
    return sum;
}

static void v_cycle(unsigned k)
{
    if (k + 1 == LEVELS) {
        smooth(k, COARSEST_SWEEPS);
        return;
    }
    smooth(k, PRE_SWEEPS);
    residual(k);
    smp_barrier();
    const level_t *c = &level[k + 1];
    for (unsigned i = c->row_begin; i < c->row_end; i++)
        for (unsigned j = c->col_begin; j < c->col_end; j++) {
            F(k + 1, i, j) = 0.25 * (R(k, 2 * i - 1, 2 * j - 1) + R(k, 2 * i, 2 * j - 1) +
                                     R(k, 2 * i - 1, 2 * j) + R(k, 2 * i, 2 * j));
            U(k + 1, i, j) = 0.0;
        }
    smp_barrier();
    v_cycle(k + 1);
    const level_t *l = &level[k];
    for (unsigned i = l->row_begin; i < l->row_end; i++)
        for (unsigned j = l->col_begin; j < l->col_end; j++)
            U(k, i, j) += U(k + 1, (i + 1) / 2, (j + 1) / 2);
    smp_barrier();
    smooth(k, POST_SWEEPS);
}

int main(void)
{
    unsigned me = smp_hart_id();
    setup_levels();
#ifndef OCEAN_NON_CONTIGUOUS
    if (me == 0)
        for (unsigned k = 0; k < LEVELS; k++)
            build_offsets(k, level[k].n);
#endif
    const level_t *fine = &level[0];
    for (unsigned i = fine->row_begin; i < fine->row_end; i++)
        for (unsigned j = fine->col_begin; j < fine->col_end; j++)
            wind[i][j] = 10.0 * sin(M_PI * (i - 0.5) / INTERIOR);
    smp_barrier();
    mesh_parallel_begin();

    for (unsigned step = 0; step < STEPS; step++) {
        /* A wind-stress-like forcing that turns with time, plus a part of the last solution. */
        for (unsigned i = fine->row_begin; i < fine->row_end; i++)
            for (unsigned j = fine->col_begin; j < fine->col_end; j++) {
                double turn = (double)((j + 7 * step) % INTERIOR) / INTERIOR - 0.5;   /* a moving pattern */
                F(0, i, j) = wind[i][j] * turn + 0.5 * U(0, i, j);
            }
        smp_barrier();
        residual_before[step][me].value = residual(0);
        for (unsigned cycle = 0; cycle < CYCLES; cycle++)
            v_cycle(0);
        residual_after[step][me].value = residual(0);
        smp_barrier();
    }

    mesh_parallel_end();
    smp_barrier();
    if (me != 0)
        return 0;

    double worst = 0.0;
    for (unsigned step = 0; step < STEPS; step++) {
        double ratio = sqrt(mesh_sum_partials(residual_after[step]) / mesh_sum_partials(residual_before[step]));
        if (!(ratio <= worst))
            worst = ratio;
    }
    uint64_t checksum = MESH_CHECKSUM_INIT;
    for (unsigned i = 0; i < INTERIOR + 2; i++)
        for (unsigned j = 0; j < INTERIOR + 2; j++)
            checksum = mesh_checksum_double(checksum, U(0, i, j));
    int pass = worst < REDUCTION;
    printf(NAME ": %s grid=%ux%u steps=%u cycles=%u harts=%u size=%s blocks=%ux%u worst_reduction=%.3e "
           "checksum=%016llx instret=%lu\n",
           pass ? "PASS" : "FAIL", INTERIOR + 2, INTERIOR + 2, STEPS, CYCLES, smp_hart_count(), MESH_SIZE_NAME,
           rows_of_blocks, cols_of_blocks, worst, (unsigned long long)checksum,
           (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
