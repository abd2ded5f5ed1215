/*
 * N-body step (after SPLASH-2 WATER-NSQUARED's all-pairs force phase): 256 bodies with
 * softened pairwise gravity, 3 leapfrog (kick-drift-kick) time steps. Bodies are split
 * among the harts; each force phase reads every body's position (written by all harts
 * in the previous drift) and writes only the hart's own bodies' accelerations, with a
 * barrier between phases. Energy is reduced from per-hart partial sums.
 * Checks (hart 0): (1) the first force phase, recomputed sequentially for 16 bodies,
 * matches bit for bit; (2) total momentum is conserved at rounding level
 * (|P_end - P_start| / sum |p_i| < 1e-12: pairwise forces cancel exactly, so only a hart
 * reading stale positions breaks it); (3) the relative energy drift is below 1e-3.
 */
#include <math.h>
#include <stdio.h>

#include "mesh_workload.h"

#define BODIES 256
#define STEPS 3
#define DT 1e-3
#define SOFTENING2 1e-2
#define SAMPLED 16

typedef struct {
    double x, y, z;
} vector_t;

static vector_t position[BODIES], velocity[BODIES], acceleration[BODIES];
static vector_t initial_position[BODIES];
static vector_t first_acceleration[SAMPLED];
static double mass[BODIES];
static mesh_partial_t energy_part[NPUVP_SMP_MAX_HARTS];

__attribute__((noinline)) static vector_t acceleration_of(const vector_t *at, unsigned i)
{
    vector_t a = { 0.0, 0.0, 0.0 };
    for (unsigned j = 0; j < BODIES; j++) {
        if (j == i)
            continue;
        double dx = at[j].x - at[i].x, dy = at[j].y - at[i].y, dz = at[j].z - at[i].z;
        double r2 = dx * dx + dy * dy + dz * dz + SOFTENING2;
        double f = mass[j] / (r2 * sqrt(r2));
        a.x += f * dx;
        a.y += f * dy;
        a.z += f * dz;
    }
    return a;
}

/* Kinetic energy of [begin, end) plus the potential of the pairs (i, j > i) for every
 * harts-th i from this hart's id on (interleaved: the pair count per i falls with i). */
static double energy_of_range(unsigned begin, unsigned end)
{
    double e = 0.0;
    for (unsigned i = begin; i < end; i++) {
        const vector_t *v = &velocity[i];
        e += 0.5 * mass[i] * (v->x * v->x + v->y * v->y + v->z * v->z);
    }
    for (unsigned i = smp_hart_id(); i < BODIES; i += smp_hart_count())
        for (unsigned j = i + 1; j < BODIES; j++) {
            double dx = position[j].x - position[i].x, dy = position[j].y - position[i].y,
                   dz = position[j].z - position[i].z;
            e -= mass[i] * mass[j] / sqrt(dx * dx + dy * dy + dz * dz + SOFTENING2);
        }
    return e;
}

static double total_energy(unsigned begin, unsigned end)
{
    energy_part[smp_hart_id()].value = energy_of_range(begin, end);
    smp_barrier();
    double e = mesh_sum_partials(energy_part);
    smp_barrier();      /* nobody overwrites a partial before everyone has summed */
    return e;
}

static void momentum(double *p, double *scale)
{
    p[0] = p[1] = p[2] = *scale = 0.0;
    for (unsigned i = 0; i < BODIES; i++) {
        p[0] += mass[i] * velocity[i].x;
        p[1] += mass[i] * velocity[i].y;
        p[2] += mass[i] * velocity[i].z;
        *scale += mass[i] * sqrt(velocity[i].x * velocity[i].x +
                                 velocity[i].y * velocity[i].y +
                                 velocity[i].z * velocity[i].z);
    }
}

int main(void)
{
    double p_start[3] = { 0.0, 0.0, 0.0 }, scale_start = 0.0;
    unsigned me = smp_hart_id();
    unsigned begin, end;
    mesh_range(BODIES, &begin, &end);
    for (unsigned i = begin; i < end; i++) {
        const uint64_t seed = 0x5bd1e9955bd1e995ull;
        position[i].x = mesh_hash_unit(seed, 7 * i) * 2.0 - 1.0;
        position[i].y = mesh_hash_unit(seed, 7 * i + 1) * 2.0 - 1.0;
        position[i].z = mesh_hash_unit(seed, 7 * i + 2) * 2.0 - 1.0;
        velocity[i].x = (mesh_hash_unit(seed, 7 * i + 3) - 0.5) * 0.1;
        velocity[i].y = (mesh_hash_unit(seed, 7 * i + 4) - 0.5) * 0.1;
        velocity[i].z = (mesh_hash_unit(seed, 7 * i + 5) - 0.5) * 0.1;
        mass[i] = (0.5 + mesh_hash_unit(seed, 7 * i + 6)) / BODIES;
        initial_position[i] = position[i];
    }
    smp_barrier();
    if (me == 0)
        momentum(p_start, &scale_start);
    smp_barrier();      /* hart 0's sequential momentum is outside the region */
    mesh_parallel_begin();

    double energy_start = total_energy(begin, end);

    for (unsigned i = begin; i < end; i++)
        acceleration[i] = acceleration_of(position, i);
    smp_barrier();
    if (me == 0)
        for (unsigned s = 0; s < SAMPLED; s++)
            first_acceleration[s] = acceleration[(s * 37u + 5u) % BODIES];

    for (unsigned step = 0; step < STEPS; step++) {
        for (unsigned i = begin; i < end; i++) {      /* kick (half) and drift */
            velocity[i].x += 0.5 * DT * acceleration[i].x;
            velocity[i].y += 0.5 * DT * acceleration[i].y;
            velocity[i].z += 0.5 * DT * acceleration[i].z;
            position[i].x += DT * velocity[i].x;
            position[i].y += DT * velocity[i].y;
            position[i].z += DT * velocity[i].z;
        }
        smp_barrier();                                  /* all positions new */
        for (unsigned i = begin; i < end; i++) {
            acceleration[i] = acceleration_of(position, i);
            velocity[i].x += 0.5 * DT * acceleration[i].x;
            velocity[i].y += 0.5 * DT * acceleration[i].y;
            velocity[i].z += 0.5 * DT * acceleration[i].z;
        }
        smp_barrier();                                  /* no one drifts before all read */
    }
    double energy_end = total_energy(begin, end);

    mesh_parallel_end();
    smp_barrier();
    if (me != 0)
        return 0;

    unsigned force_mismatches = 0;
    for (unsigned s = 0; s < SAMPLED; s++) {
        vector_t a = acceleration_of(initial_position, (s * 37u + 5u) % BODIES);
        if (a.x != first_acceleration[s].x || a.y != first_acceleration[s].y ||
            a.z != first_acceleration[s].z)
            force_mismatches++;
    }
    double p_end[3], scale_end;
    momentum(p_end, &scale_end);
    double dpx = p_end[0] - p_start[0], dpy = p_end[1] - p_start[1], dpz = p_end[2] - p_start[2];
    double momentum_change = sqrt(dpx * dpx + dpy * dpy + dpz * dpz) / scale_end;
    double drift = fabs((energy_end - energy_start) / energy_start);
    int pass = force_mismatches == 0 && momentum_change < 1e-12 && drift < 1e-3;
    printf("nbody: %s bodies=%u steps=%u harts=%u force_mismatches=%u momentum_change=%.3e "
           "energy_drift=%.3e instret=%lu\n",
           pass ? "PASS" : "FAIL", BODIES, STEPS, smp_hart_count(), force_mismatches,
           momentum_change, drift,
           (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
