/*
 * Water molecules, all pairs (after SPLASH-2 WATER-NSQUARED): rigid three-site
 * molecules (an oxygen and two hydrogens at fixed offsets, charges -0.82 and +0.41;
 * translation only, our simplification) in a periodic cubic box, started on a lattice.
 * The force between two molecules within the cut-off (half the box, minimum image) is
 * Lennard-Jones between the oxygens plus Coulomb between all nine site pairs. As in
 * SPLASH-2, each hart takes its molecules' interactions with the next half of the
 * molecules (so every pair once), accumulates them privately and then adds them into
 * the shared force array (SPLASH-2 under per-molecule locks; here with atomic adds of
 * fixed-point values, so the sum is exact and the same in any order); barrier; every
 * hart moves its molecules (leapfrog); barrier. One more force phase ends the run.
 * Checks (hart 0): the forces sum to exactly zero (Newton's third law in fixed point,
 * so a lost update shows), and the final forces of SAMPLED molecules, recomputed
 * directly from every pair, are identical.
 * Sizes: CI 64 molecules, 2 steps; full (Table 5.3) 512 molecules, 3 steps.
 */
#include <math.h>
#include <stdio.h>

#include "mesh_workload.h"

#define SIDE MESH_SIZE(4, 8)                /* molecules per lattice edge */
#define MOLECULES (SIDE * SIDE * SIDE)
#define STEPS MESH_SIZE(2, 3)
#define SPACING 3.1                         /* lattice spacing */
#define BOX (SIDE * SPACING)
#define CUTOFF2 ((BOX / 2) * (BOX / 2))
#define DT 1e-3
#define MASS 18.0
#define FIXED_SCALE 1048576.0               /* forces in units of 2^-20 */
#define SAMPLED 8

typedef struct {
    double x[3];
} vector_t;

static vector_t position[MOLECULES], velocity[MOLECULES];
static volatile int64_t force[MOLECULES][3];                    /* shared, fixed point */
static int64_t private_force[NPUVP_SMP_MAX_HARTS][MOLECULES][3] __attribute__((aligned(64)));
static mesh_partial_t potential[NPUVP_SMP_MAX_HARTS];

static const double site_offset[3][3] = {{0.0, 0.0, 0.0}, {0.757, 0.586, 0.0}, {-0.757, 0.586, 0.0}};
static const double site_charge[3] = {-0.82, 0.41, 0.41};

static double minimum_image(double d)
{
    if (d > BOX / 2)
        return d - BOX;
    if (d < -BOX / 2)
        return d + BOX;
    return d;
}

/* Fixed-point force on molecule i from molecule j (the negation is j's); 0 beyond the cut-off.
 * Returns the pair's potential energy. */
static double pair_force(unsigned i, unsigned j, int64_t out[3])
{
    double d[3], r2 = 0.0;
    for (unsigned c = 0; c < 3; c++) {
        d[c] = minimum_image(position[i].x[c] - position[j].x[c]);
        r2 += d[c] * d[c];
    }
    out[0] = out[1] = out[2] = 0;
    if (r2 > CUTOFF2)
        return 0.0;
    double f[3] = {0.0, 0.0, 0.0}, energy = 0.0;
    /* Lennard-Jones between the oxygens (sigma 3.15, epsilon 0.65). */
    double s2 = 3.15 * 3.15 / r2, s6 = s2 * s2 * s2;
    energy += 4.0 * 0.65 * (s6 * s6 - s6);
    double lj = 24.0 * 0.65 * (2.0 * s6 * s6 - s6) / r2;
    for (unsigned c = 0; c < 3; c++)
        f[c] += lj * d[c];
    /* Coulomb between the nine site pairs. */
    for (unsigned a = 0; a < 3; a++)
        for (unsigned b = 0; b < 3; b++) {
            double e[3], q2 = 0.0;
            for (unsigned c = 0; c < 3; c++) {
                e[c] = d[c] + site_offset[a][c] - site_offset[b][c];
                q2 += e[c] * e[c];
            }
            double r = sqrt(q2), qq = 332.0 * site_charge[a] * site_charge[b];
            energy += qq / r;
            double coulomb = qq / (q2 * r);
            for (unsigned c = 0; c < 3; c++)
                f[c] += coulomb * e[c];
        }
    for (unsigned c = 0; c < 3; c++)
        out[c] = (int64_t)(f[c] * FIXED_SCALE);
    return energy;
}

/* Pair {i, j} is computed by the owner of i when j is in i's next half of the molecules. */
static int computed_from(unsigned i, unsigned j)
{
    unsigned k = (j + MOLECULES - i) % MOLECULES;
    return k != 0 && (k < MOLECULES / 2 || (k == MOLECULES / 2 && i < MOLECULES / 2));
}

static void force_phase(unsigned begin, unsigned end)
{
    unsigned me = smp_hart_id();
    int64_t (*mine)[3] = private_force[me];
    for (unsigned m = 0; m < MOLECULES; m++)
        mine[m][0] = mine[m][1] = mine[m][2] = 0;
    for (unsigned m = begin; m < end; m++)
        force[m][0] = force[m][1] = force[m][2] = 0;
    double energy = 0.0;
    for (unsigned i = begin; i < end; i++)
        for (unsigned k = 1; k <= MOLECULES / 2; k++) {
            unsigned j = (i + k) % MOLECULES;
            if (!computed_from(i, j))
                continue;
            int64_t f[3];
            energy += pair_force(i, j, f);
            for (unsigned c = 0; c < 3; c++) {
                mine[i][c] += f[c];
                mine[j][c] -= f[c];
            }
        }
    potential[me].value = energy;
    smp_barrier();              /* every owner has cleared its molecules' forces */
    for (unsigned m = 0; m < MOLECULES; m++)
        for (unsigned c = 0; c < 3; c++)
            if (mine[m][c] != 0)
                smp_fetch_add64((volatile uint64_t *)&force[m][c], (uint64_t)mine[m][c]);
    smp_barrier();
}

int main(void)
{
    unsigned begin, end;
    mesh_range(MOLECULES, &begin, &end);
    for (unsigned m = begin; m < end; m++) {
        unsigned ix = m % SIDE, iy = (m / SIDE) % SIDE, iz = m / (SIDE * SIDE);
        unsigned lattice[3] = {ix, iy, iz};
        for (unsigned c = 0; c < 3; c++) {
            position[m].x[c] = (lattice[c] + 0.5) * SPACING + 0.2 * (mesh_hash_unit(0x3a7e2, 3 * m + c) - 0.5);
            velocity[m].x[c] = mesh_hash_unit(0x7e10c, 3 * m + c) - 0.5;
        }
    }
    smp_barrier();
    mesh_parallel_begin();

    for (unsigned step = 0; step < STEPS; step++) {
        force_phase(begin, end);
        for (unsigned m = begin; m < end; m++)
            for (unsigned c = 0; c < 3; c++) {
                velocity[m].x[c] += DT * ((double)force[m][c] / FIXED_SCALE) / MASS;
                double x = position[m].x[c] + DT * velocity[m].x[c];
                position[m].x[c] = x < 0.0 ? x + BOX : (x >= BOX ? x - BOX : x);
            }
        smp_barrier();
    }
    force_phase(begin, end);

    mesh_parallel_end();
    smp_barrier();
    if (smp_hart_id() != 0)
        return 0;

    int64_t total[3] = {0, 0, 0};
    uint64_t checksum = MESH_CHECKSUM_INIT;
    for (unsigned m = 0; m < MOLECULES; m++)
        for (unsigned c = 0; c < 3; c++) {
            total[c] += force[m][c];
            checksum = mesh_checksum_u64(checksum, (uint64_t)force[m][c]);
            checksum = mesh_checksum_double(checksum, position[m].x[c]);
        }
    unsigned mismatches = 0;
    for (unsigned s = 0; s < SAMPLED; s++) {
        unsigned i = (s * 37u) % MOLECULES;
        int64_t expected[3] = {0, 0, 0}, f[3];
        for (unsigned j = 0; j < MOLECULES; j++) {
            if (j == i)
                continue;
            int sign = computed_from(i, j) ? 1 : -1;
            if (sign > 0)
                pair_force(i, j, f);
            else
                pair_force(j, i, f);
            for (unsigned c = 0; c < 3; c++)
                expected[c] += sign * f[c];
        }
        for (unsigned c = 0; c < 3; c++)
            if (expected[c] != force[i][c])
                mismatches++;
    }
    double energy = mesh_sum_partials(potential);
    int pass = total[0] == 0 && total[1] == 0 && total[2] == 0 && mismatches == 0;
    printf("water-nsquared: %s molecules=%u steps=%u harts=%u size=%s potential=%.6e mismatches=%u "
           "checksum=%016llx instret=%lu\n",
           pass ? "PASS" : "FAIL", MOLECULES, STEPS, smp_hart_count(), MESH_SIZE_NAME, energy, mismatches,
           (unsigned long long)checksum, (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
