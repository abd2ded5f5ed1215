/*
 * Blocked dense LU factorisation (after SPLASH-2 LU, contiguous blocks): A = L U
 * without pivoting on a diagonally dominant 64x64 matrix, 8x8 blocks. Blocks are
 * owned in a 2D scatter (block (i, j) by hart (i * blocks + j) mod harts). Step k:
 * the owner of the diagonal block factors it; barrier; the owners of the blocks in
 * row k and column k solve against it; barrier; every owner updates its interior
 * blocks; barrier. Check: hart 0 multiplies L U back and compares with the input
 * (max |LU - A| / max |A| < 1e-12).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mesh_common.h"

#define N 64
#define B 8
#define NB (N / B)

/* a[bi][bj] is block (bi, bj), stored contiguously (row-major inside the block). */
static double a[NB][NB][B][B];
static double original[N][N];

static inline double *block(unsigned bi, unsigned bj) { return &a[bi][bj][0][0]; }
static inline int owns(unsigned bi, unsigned bj)
{
    return (bi * NB + bj) % smp_hart_count() == smp_hart_id();
}

/* In place: unit-lower L and upper U of one diagonal block. */
static void factor_diagonal(double *d)
{
    for (unsigned k = 0; k < B; k++)
        for (unsigned i = k + 1; i < B; i++) {
            d[i * B + k] /= d[k * B + k];
            double l = d[i * B + k];
            for (unsigned j = k + 1; j < B; j++)
                d[i * B + j] -= l * d[k * B + j];
        }
}

/* Column block: X U = A  (U upper of the diagonal block). */
static void solve_column(double *x, const double *d)
{
    for (unsigned i = 0; i < B; i++)
        for (unsigned k = 0; k < B; k++) {
            x[i * B + k] /= d[k * B + k];
            double v = x[i * B + k];
            for (unsigned j = k + 1; j < B; j++)
                x[i * B + j] -= v * d[k * B + j];
        }
}

/* Row block: L X = A  (unit-lower L of the diagonal block). */
static void solve_row(double *x, const double *d)
{
    for (unsigned k = 0; k < B; k++)
        for (unsigned i = k + 1; i < B; i++) {
            double l = d[i * B + k];
            for (unsigned j = 0; j < B; j++)
                x[i * B + j] -= l * x[k * B + j];
        }
}

/* c -= l * u */
static void update_interior(double *c, const double *l, const double *u)
{
    for (unsigned i = 0; i < B; i++)
        for (unsigned k = 0; k < B; k++) {
            double v = l[i * B + k];
            for (unsigned j = 0; j < B; j++)
                c[i * B + j] -= v * u[k * B + j];
        }
}

static double element(unsigned i, unsigned j) { return a[i / B][j / B][i % B][j % B]; }

int main(void)
{
    /* Each hart fills the blocks it owns. */
    for (unsigned i = 0; i < N; i++)
        for (unsigned j = 0; j < N; j++) {
            if (!owns(i / B, j / B))
                continue;
            double v = mesh_hash_unit(0x1234567887654321ull, i * N + j) - 0.5;
            if (i == j)
                v += N;     /* diagonally dominant: no pivoting needed */
            original[i][j] = v;
            a[i / B][j / B][i % B][j % B] = v;
        }
    roi_begin();
    mesh_count_begin();

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

    mesh_count_end();
    roi_end();
    if (smp_hart_id() != 0)
        return 0;

    double max_error = 0.0, max_value = 0.0;
    for (unsigned i = 0; i < N; i++)
        for (unsigned j = 0; j < N; j++) {
            double sum = 0.0;
            unsigned last = i < j ? i : j;
            for (unsigned k = 0; k <= last; k++) {
                double l = k == i ? 1.0 : element(i, k);
                sum += l * element(k, j);
            }
            double error = fabs(sum - original[i][j]);
            if (error > max_error)
                max_error = error;
            if (fabs(original[i][j]) > max_value)
                max_value = fabs(original[i][j]);
        }
    double relative = max_error / max_value;
    int pass = relative < 1e-12;
    printf("lu: %s n=%u block=%u harts=%u relative_error=%.3e instret=%lu\n",
           pass ? "PASS" : "FAIL", N, B, smp_hart_count(), relative,
           (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
