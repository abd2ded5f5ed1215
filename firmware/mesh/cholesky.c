/*
 * Blocked Cholesky factorisation A = L L^T (after SPLASH-2 CHOLESKY's block fan-out
 * method, on a dense matrix: the thesis's sparse input d750.O is not available, see
 * docs/workloads.md). A is symmetric positive definite (random entries, diagonally
 * dominant), n x n in B x B blocks, the lower triangle stored block by block
 * (contiguous blocks, as SPLASH-2 stores its supernodes). Blocks are owned in a 2D
 * scatter. Step k: the owner of diagonal block (k, k) factors it; barrier; the owners
 * of the blocks below it solve X L_kk^T = A_ik; barrier; the owners of the trailing
 * blocks (i, j), k < j <= i, subtract L_ik L_jk^T; barrier.
 * Check (hart 0, O(n^2)): for a random x, b = A x from A's generator; solving
 * L y = b and L^T z = y must give z = x (max |z - x| / max |x| < 1e-9).
 * Sizes: CI n = 64, B = 8; full n = 512, B = 16.
 */
#include <math.h>
#include <stdio.h>

#include "mesh_workload.h"

#define N MESH_SIZE(64, 512)
#define B MESH_SIZE(8, 16)
#define NB (N / B)
#define SEED 0x5eed0fc401e5c7ull

static double a[NB][NB][B][B];      /* only blocks (i, j) with j <= i are used */
static double x[N], y[N];

static inline double *block(unsigned bi, unsigned bj) { return &a[bi][bj][0][0]; }
static inline int owns(unsigned bi, unsigned bj)
{
    return (bi * NB + bj) % smp_hart_count() == smp_hart_id();
}

/* A's element (i, j) from its generator: symmetric, diagonally dominant. */
static double generated(unsigned i, unsigned j)
{
    unsigned low = i < j ? i : j, high = i < j ? j : i;
    double v = mesh_hash_unit(SEED, (uint64_t)high * N + low) - 0.5;
    return i == j ? v + N : v;
}

static void factor_diagonal(double *d)
{
    for (unsigned k = 0; k < B; k++) {
        double pivot = sqrt(d[k * B + k]);
        d[k * B + k] = pivot;
        for (unsigned i = k + 1; i < B; i++)
            d[i * B + k] /= pivot;
        for (unsigned j = k + 1; j < B; j++)
            for (unsigned i = j; i < B; i++)
                d[i * B + j] -= d[i * B + k] * d[j * B + k];
    }
}

/* X L^T = A for X (in place in x), L the lower factor of the diagonal block. */
static void solve_below(double *xb, const double *l)
{
    for (unsigned r = 0; r < B; r++)
        for (unsigned k = 0; k < B; k++) {
            double v = xb[r * B + k];
            for (unsigned m = 0; m < k; m++)
                v -= xb[r * B + m] * l[k * B + m];
            xb[r * B + k] = v / l[k * B + k];
        }
}

/* c -= p q^T */
static void update_trailing(double *c, const double *p, const double *q, int diagonal)
{
    for (unsigned i = 0; i < B; i++) {
        unsigned last = diagonal ? i + 1 : B;
        for (unsigned j = 0; j < last; j++) {
            double sum = 0.0;
            for (unsigned k = 0; k < B; k++)
                sum += p[i * B + k] * q[j * B + k];
            c[i * B + j] -= sum;
        }
    }
}

static double factor_element(unsigned i, unsigned j) { return a[i / B][j / B][i % B][j % B]; }

int main(void)
{
    for (unsigned i = 0; i < N; i++)
        for (unsigned j = 0; j <= i; j++)
            if (owns(i / B, j / B))
                a[i / B][j / B][i % B][j % B] = generated(i, j);
    smp_barrier();
    mesh_parallel_begin();

    for (unsigned k = 0; k < NB; k++) {
        if (owns(k, k))
            factor_diagonal(block(k, k));
        smp_barrier();
        for (unsigned i = k + 1; i < NB; i++)
            if (owns(i, k))
                solve_below(block(i, k), block(k, k));
        smp_barrier();
        for (unsigned i = k + 1; i < NB; i++)
            for (unsigned j = k + 1; j <= i; j++)
                if (owns(i, j))
                    update_trailing(block(i, j), block(i, k), block(j, k), i == j);
        smp_barrier();
    }

    mesh_parallel_end();
    smp_barrier();
    if (smp_hart_id() != 0)
        return 0;

    /* b = A x into y; forward L y = b; backward L^T z = y (z in y). */
    double max_x = 0.0;
    for (unsigned i = 0; i < N; i++) {
        x[i] = mesh_hash_unit(SEED + 1, i) - 0.5;
        if (fabs(x[i]) > max_x)
            max_x = fabs(x[i]);
    }
    for (unsigned i = 0; i < N; i++) {
        double sum = 0.0;
        for (unsigned j = 0; j < N; j++)
            sum += generated(i, j) * x[j];
        y[i] = sum;
    }
    for (unsigned i = 0; i < N; i++) {
        double v = y[i];
        for (unsigned j = 0; j < i; j++)
            v -= factor_element(i, j) * y[j];
        y[i] = v / factor_element(i, i);
    }
    for (unsigned i = N; i-- > 0;) {
        double v = y[i];
        for (unsigned j = i + 1; j < N; j++)
            v -= factor_element(j, i) * y[j];
        y[i] = v / factor_element(i, i);
    }
    double max_error = 0.0;
    uint64_t checksum = MESH_CHECKSUM_INIT;
    for (unsigned i = 0; i < N; i++) {
        double error = fabs(y[i] - x[i]);
        if (error > max_error)
            max_error = error;
        for (unsigned j = 0; j <= i; j++)
            checksum = mesh_checksum_double(checksum, factor_element(i, j));
    }
    double relative = max_error / max_x;
    int pass = relative < 1e-9;
    printf("cholesky: %s n=%u block=%u harts=%u size=%s relative_error=%.3e checksum=%016llx instret=%lu\n",
           pass ? "PASS" : "FAIL", N, B, smp_hart_count(), MESH_SIZE_NAME, relative,
           (unsigned long long)checksum, (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
