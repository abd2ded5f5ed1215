/*
 * Ocean-like stencil (after SPLASH-2 OCEAN's red-black Gauss-Seidel relaxation): solves
 * the Poisson equation -lap(u) = f on a 66x66 grid (64x64 interior, fixed boundary) with
 * 24 red-black sweeps. Interior rows are split among the harts; each sweep updates the
 * red points, barrier, the black points, barrier; after the last sweep every hart sums
 * its rows' squared residual and hart 0 adds the partial sums. Red-black ordering makes
 * the result independent of the partition, so the check is exact: hart 0 repeats the
 * sweeps sequentially on a copy and every grid point must be bit-identical; the
 * residual must also have fallen below the initial one.
 */
#include <math.h>
#include <stdio.h>

#include "mesh_common.h"

#define SIZE 66
#define SWEEPS 24

static double grid[SIZE][SIZE], reference[SIZE][SIZE], source[SIZE][SIZE];
static mesh_partial_t residual_part[NPUVP_SMP_MAX_HARTS];

__attribute__((noinline)) static void relax_rows(double (*u)[SIZE], unsigned first, unsigned last, unsigned colour)
{
    const double h2 = 1.0 / ((SIZE - 1) * (SIZE - 1));
    for (unsigned i = first; i < last; i++)
        for (unsigned j = 1 + ((i + colour) & 1); j < SIZE - 1; j += 2)
            u[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] +
                              h2 * source[i][j]);
}

static double residual_rows(double (*u)[SIZE], unsigned first, unsigned last)
{
    const double inverse_h2 = (SIZE - 1) * (SIZE - 1);
    double sum = 0.0;
    for (unsigned i = first; i < last; i++)
        for (unsigned j = 1; j < SIZE - 1; j++) {
            double r = source[i][j] - inverse_h2 * (4.0 * u[i][j] - u[i - 1][j] -
                                                    u[i + 1][j] - u[i][j - 1] - u[i][j + 1]);
            sum += r * r;
        }
    return sum;
}

int main(void)
{
    unsigned me = smp_hart_id();
    /* Each hart fills its interior rows; hart 0 and the last hart also a boundary row. */
    unsigned begin, end;
    mesh_range(SIZE - 2, &begin, &end);
    begin += 1;
    end += 1;
    unsigned fill_begin = begin == 1 ? 0 : begin, fill_end = end == SIZE - 1 ? SIZE : end;
    for (unsigned i = fill_begin; i < fill_end; i++)
        for (unsigned j = 0; j < SIZE; j++) {
            double x = (double)i / (SIZE - 1), y = (double)j / (SIZE - 1);
            int boundary = i == 0 || j == 0 || i == SIZE - 1 || j == SIZE - 1;
            /* a wind-stress-like forcing and a sloped boundary */
            source[i][j] = 10.0 * sin(M_PI * x) * cos(2.0 * M_PI * y);
            grid[i][j] = boundary ? x - y : 0.0;
            reference[i][j] = grid[i][j];
        }
    smp_barrier();
    residual_part[me].value = residual_rows(grid, begin, end);
    smp_barrier();
    double initial_residual = sqrt(mesh_sum_partials(residual_part));
    roi_begin();        /* everyone has read the partials before they are reused */
    mesh_count_begin();

    for (unsigned sweep = 0; sweep < SWEEPS; sweep++) {
        relax_rows(grid, begin, end, 0);
        smp_barrier();
        relax_rows(grid, begin, end, 1);
        smp_barrier();
    }
    residual_part[me].value = residual_rows(grid, begin, end);

    mesh_count_end();
    roi_end();
    if (me != 0)
        return 0;

    double residual = sqrt(mesh_sum_partials(residual_part));
    for (unsigned sweep = 0; sweep < SWEEPS; sweep++) {
        relax_rows(reference, 1, SIZE - 1, 0);
        relax_rows(reference, 1, SIZE - 1, 1);
    }
    unsigned mismatches = 0;
    for (unsigned i = 0; i < SIZE; i++)
        for (unsigned j = 0; j < SIZE; j++)
            if (grid[i][j] != reference[i][j])
                mismatches++;
    int pass = mismatches == 0 && residual < initial_residual;
    printf("ocean: %s grid=%ux%u sweeps=%u harts=%u mismatches=%u residual=%.6e "
           "initial_residual=%.6e instret=%lu\n",
           pass ? "PASS" : "FAIL", SIZE, SIZE, SWEEPS, smp_hart_count(), mismatches,
           residual, initial_residual, (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
