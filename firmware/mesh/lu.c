/*
 * Blocked dense LU factorisation (after SPLASH-2 LU): A = L U without pivoting on a
 * diagonally dominant n x n matrix in B x B blocks. Two layouts, as SPLASH-2 has two
 * programs: contiguous blocks (lu.elf: block (i, j) stored as one B x B array) and,
 * built with -DLU_NON_CONTIGUOUS (lu-non.elf), one row-major n x n array in which a
 * block's rows are n elements apart (so blocks of different harts share cache lines).
 * Blocks are owned in a 2D scatter (block (i, j) by hart (i * blocks + j) mod harts).
 * Step k: the owner of the diagonal block factors it; barrier; the owners of the blocks
 * in row k and column k solve against it; barrier; every owner updates its interior
 * blocks; barrier. Check (hart 0, O(n^2)): for a random x, L (U x) must equal A x
 * computed from A's generator (max |LUx - Ax| / max |Ax| < 1e-12).
 * Sizes: CI n = 64, B = 8; full (Table 5.3) n = 512, B = 16.
 */
#include <math.h>
#include <stdio.h>

#include "mesh_workload.h"

#define N MESH_SIZE(64, 512)
#define B MESH_SIZE(8, 16)
#define NB (N / B)
#define SEED 0x1234567887654321ull

#ifdef LU_NON_CONTIGUOUS
#define NAME "lu-non"
#define STRIDE N                    /* elements between two rows of a block */
static double matrix[N][N];
static inline double *block(unsigned bi, unsigned bj) { return &matrix[bi * B][bj * B]; }
static inline double *element(unsigned i, unsigned j) { return &matrix[i][j]; }
#else
#define NAME "lu"
#define STRIDE B
static double blocks[NB][NB][B][B];
static inline double *block(unsigned bi, unsigned bj) { return &blocks[bi][bj][0][0]; }
static inline double *element(unsigned i, unsigned j) { return &blocks[i / B][j / B][i % B][j % B]; }
#endif
#define AT(p, i, j) (p)[(i) * STRIDE + (j)]

static double x[N], ux[N];

static inline int owns(unsigned bi, unsigned bj)
{
    return (bi * NB + bj) % smp_hart_count() == smp_hart_id();
}

static double generated(unsigned i, unsigned j)
{
    double v = mesh_hash_unit(SEED, (uint64_t)i * N + j) - 0.5;
    return i == j ? v + N : v;     /* diagonally dominant: no pivoting needed */
}

/* In place: unit-lower L and upper U of one diagonal block. */
static void factor_diagonal(double *d)
{
    for (unsigned k = 0; k < B; k++)
        for (unsigned i = k + 1; i < B; i++) {
            AT(d, i, k) /= AT(d, k, k);
            double l = AT(d, i, k);
            for (unsigned j = k + 1; j < B; j++)
                AT(d, i, j) -= l * AT(d, k, j);
        }
}

/* Column block: X U = A  (U upper of the diagonal block). */
static void solve_column(double *x_block, const double *d)
{
    for (unsigned i = 0; i < B; i++)
        for (unsigned k = 0; k < B; k++) {
            AT(x_block, i, k) /= AT(d, k, k);
            double v = AT(x_block, i, k);
            for (unsigned j = k + 1; j < B; j++)
                AT(x_block, i, j) -= v * AT(d, k, j);
        }
}

/* Row block: L X = A  (unit-lower L of the diagonal block). */
static void solve_row(double *x_block, const double *d)
{
    for (unsigned k = 0; k < B; k++)
        for (unsigned i = k + 1; i < B; i++) {
            double l = AT(d, i, k);
            for (unsigned j = 0; j < B; j++)
                AT(x_block, i, j) -= l * AT(x_block, k, j);
        }
}

/* c -= l * u */
static void update_interior(double *c, const double *l, const double *u)
{
    for (unsigned i = 0; i < B; i++)
        for (unsigned k = 0; k < B; k++) {
            double v = AT(l, i, k);
            for (unsigned j = 0; j < B; j++)
                AT(c, i, j) -= v * AT(u, k, j);
        }
}

int main(void)
{
    /* Each hart fills the blocks it owns. */
    for (unsigned i = 0; i < N; i++)
        for (unsigned j = 0; j < N; j++)
            if (owns(i / B, j / B))
                *element(i, j) = generated(i, j);
    smp_barrier();
    mesh_parallel_begin();

    for (unsigned k = 0; k < NB; k++) {
        if (owns(k, k))
            factor_diagonal(block(k, k));
        smp_barrier();
        for (unsigned i = k + 1; i < NB; i++) {
            if (owns(i, k))
                solve_column(block(i, k), block(k, k));
            if (owns(k, i))
                solve_row(block(k, i), block(k, k));
        }
        smp_barrier();
        for (unsigned i = k + 1; i < NB; i++)
            for (unsigned j = k + 1; j < NB; j++)
                if (owns(i, j))
                    update_interior(block(i, j), block(i, k), block(k, j));
        smp_barrier();
    }

    mesh_parallel_end();
    smp_barrier();
    if (smp_hart_id() != 0)
        return 0;

    for (unsigned i = 0; i < N; i++)
        x[i] = mesh_hash_unit(SEED + 1, i) - 0.5;
    for (unsigned i = 0; i < N; i++) {      /* U x */
        double sum = 0.0;
        for (unsigned j = i; j < N; j++)
            sum += *element(i, j) * x[j];
        ux[i] = sum;
    }
    double max_error = 0.0, max_value = 0.0;
    uint64_t checksum = MESH_CHECKSUM_INIT;
    for (unsigned i = 0; i < N; i++) {      /* L (U x) against A x */
        double lux = ux[i], ax = 0.0;
        for (unsigned j = 0; j < i; j++)
            lux += *element(i, j) * ux[j];
        for (unsigned j = 0; j < N; j++) {
            ax += generated(i, j) * x[j];
            checksum = mesh_checksum_double(checksum, *element(i, j));
        }
        if (fabs(lux - ax) > max_error)
            max_error = fabs(lux - ax);
        if (fabs(ax) > max_value)
            max_value = fabs(ax);
    }
    double relative = max_error / max_value;
    int pass = relative < 1e-12;
    printf(NAME ": %s n=%u block=%u harts=%u size=%s relative_error=%.3e checksum=%016llx instret=%lu\n",
           pass ? "PASS" : "FAIL", N, B, smp_hart_count(), MESH_SIZE_NAME, relative,
           (unsigned long long)checksum, (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
