/*
 * Barnes-Hut N-body simulation (after SPLASH-2 BARNES): every time step builds an octree of
 * the bodies in parallel, computes each cell's mass and centre of mass, and computes every
 * body's gravitational acceleration by walking the tree, treating a cell as one body when
 * it looks small enough from the body (cell size < THETA x distance), then moves the bodies
 * (leapfrog). Tree building: each hart inserts its own bodies; a cell's child slot is read
 * with an acquire load and changed only under the cell's lock (a leaf holding a body is
 * split into a new cell, which is published with a release store), as SPLASH-2 locks cells
 * while it loads the tree. The octree with one body per leaf does not depend on the order
 * of insertion, and the centres of mass (hart 0, bottom-up) and the walks visit children in
 * octant order, so every value is the same for any hart count. Barriers separate the
 * phases. After the last step one more tree and force phase gives the final accelerations.
 * Checks (hart 0): the tree holds every body once; the accelerations of SAMPLED bodies,
 * summed directly over all bodies, agree with the tree's within 5% (the approximation's
 * error at THETA = 0.5 is a few per mille to 3%).
 * Sizes: CI 256 bodies; full (Table 5.3) 4,096 bodies; 2 time steps.
 */
#include <math.h>
#include <stdio.h>

#include "mesh_workload.h"

#define BODIES MESH_SIZE(256, 4096)
#define STEPS 2
#define MAX_CELLS (3 * BODIES)
#define THETA 0.5
#define SOFTENING2 1e-4
#define DT 0.01
#define ROOT 1                      /* cell 0 is unused: a positive slot is a cell */
#define ROOT_HALF 4.0               /* the root cell spans [-4, 4]^3 */
#define SAMPLED 8
#define SEED 0xba27e5ull

typedef struct {
    volatile int32_t child[8];      /* 0 empty, > 0 a cell, < 0 body -(slot + 1) */
    smp_spinlock_t lock;
    double centre[3], half;
    double mass, centre_of_mass[3];
} cell_t;

typedef struct {
    double position[3], velocity[3], acceleration[3];
} body_t;

static body_t body[BODIES];
static cell_t cell[MAX_CELLS];
static volatile uint32_t cells_used;
static volatile uint32_t tree_overflow;
static double body_mass;

static unsigned octant(const cell_t *c, const double *p)
{
    return (p[0] >= c->centre[0]) | (p[1] >= c->centre[1]) << 1 | (p[2] >= c->centre[2]) << 2;
}

static void init_cell(unsigned index, const double *centre, double half)
{
    cell_t *c = &cell[index];
    for (unsigned o = 0; o < 8; o++)
        c->child[o] = 0;
    c->lock.value = 0;
    for (unsigned d = 0; d < 3; d++)
        c->centre[d] = centre[d];
    c->half = half;
}

static void insert(unsigned b)
{
    const double *p = body[b].position;
    unsigned current = ROOT;
    for (;;) {
        cell_t *c = &cell[current];
        unsigned o = octant(c, p);
        int32_t slot = (int32_t)smp_load_acquire32((volatile uint32_t *)&c->child[o]);
        if (slot > 0) {
            current = (unsigned)slot;
            continue;
        }
        smp_lock(&c->lock);
        slot = c->child[o];
        if (slot == 0) {
            c->child[o] = -(int32_t)b - 1;
            smp_unlock(&c->lock);
            return;
        }
        if (slot > 0) {
            smp_unlock(&c->lock);
            current = (unsigned)slot;
            continue;
        }
        /* A body is there: move it one level down into a new cell, then go on. */
        unsigned other = (unsigned)(-slot - 1);
        unsigned fresh = smp_fetch_add32(&cells_used, 1);
        if (fresh >= MAX_CELLS || c->half < 1e-9) {
            tree_overflow = 1;
            smp_unlock(&c->lock);
            return;
        }
        double centre[3];
        for (unsigned d = 0; d < 3; d++)
            centre[d] = c->centre[d] + ((o >> d) & 1 ? 0.5 : -0.5) * c->half;
        init_cell(fresh, centre, 0.5 * c->half);
        cell[fresh].child[octant(&cell[fresh], body[other].position)] = -(int32_t)other - 1;
        smp_store_release32((volatile uint32_t *)&c->child[o], fresh);
        smp_unlock(&c->lock);
        current = fresh;
    }
}

/* Mass and centre of mass of a cell's subtree, children in octant order; returns bodies. */
static unsigned summarise(unsigned index)
{
    cell_t *c = &cell[index];
    double mass = 0.0, moment[3] = {0.0, 0.0, 0.0};
    unsigned bodies = 0;
    for (unsigned o = 0; o < 8; o++) {
        int32_t slot = c->child[o];
        if (slot > 0) {
            bodies += summarise((unsigned)slot);
            for (unsigned d = 0; d < 3; d++)
                moment[d] += cell[slot].mass * cell[slot].centre_of_mass[d];
            mass += cell[slot].mass;
        } else if (slot < 0) {
            bodies++;
            for (unsigned d = 0; d < 3; d++)
                moment[d] += body_mass * body[-slot - 1].position[d];
            mass += body_mass;
        }
    }
    c->mass = mass;
    for (unsigned d = 0; d < 3; d++)
        c->centre_of_mass[d] = mass > 0.0 ? moment[d] / mass : c->centre[d];
    return bodies;
}

static void add_attraction(const double *p, const double *source, double mass, double *a)
{
    double d[3], r2 = SOFTENING2;
    for (unsigned k = 0; k < 3; k++) {
        d[k] = source[k] - p[k];
        r2 += d[k] * d[k];
    }
    double scale = mass / (r2 * sqrt(r2));
    for (unsigned k = 0; k < 3; k++)
        a[k] += scale * d[k];
}

static void walk(unsigned index, unsigned b, double *a)
{
    const cell_t *c = &cell[index];
    const double *p = body[b].position;
    for (unsigned o = 0; o < 8; o++) {
        int32_t slot = c->child[o];
        if (slot < 0) {
            if ((unsigned)(-slot - 1) != b)
                add_attraction(p, body[-slot - 1].position, body_mass, a);
        } else if (slot > 0) {
            const cell_t *child = &cell[slot];
            double d2 = 0.0;
            for (unsigned k = 0; k < 3; k++) {
                double d = child->centre_of_mass[k] - p[k];
                d2 += d * d;
            }
            double size = 2.0 * child->half;
            if (size * size < THETA * THETA * d2)
                add_attraction(p, child->centre_of_mass, child->mass, a);
            else
                walk((unsigned)slot, b, a);
        }
    }
}

/* Tree and accelerations of this hart's bodies; ends with a barrier. Returns the bodies in
 * the tree (on hart 0). */
static unsigned tree_and_forces(unsigned begin, unsigned end)
{
    static const double origin[3] = {0.0, 0.0, 0.0};
    unsigned in_tree = 0;
    if (smp_hart_id() == 0) {
        init_cell(ROOT, origin, ROOT_HALF);
        cells_used = ROOT + 1;
    }
    smp_barrier();
    for (unsigned b = begin; b < end; b++)
        insert(b);
    smp_barrier();
    if (smp_hart_id() == 0)
        in_tree = summarise(ROOT);
    smp_barrier();
    for (unsigned b = begin; b < end; b++) {
        double *a = body[b].acceleration;
        a[0] = a[1] = a[2] = 0.0;
        walk(ROOT, b, a);
    }
    smp_barrier();
    return in_tree;
}

int main(void)
{
    unsigned begin, end;
    mesh_range(BODIES, &begin, &end);
    body_mass = 1.0 / BODIES;
    for (unsigned b = begin; b < end; b++) {
        /* Uniform in the unit ball (by rejection), small random velocities. */
        double p[3], r2;
        uint64_t index = (uint64_t)b * 64;
        do {
            for (unsigned d = 0; d < 3; d++)
                p[d] = 2.0 * mesh_hash_unit(SEED, index++) - 1.0;
            r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
        } while (r2 > 1.0);
        for (unsigned d = 0; d < 3; d++) {
            body[b].position[d] = p[d];
            body[b].velocity[d] = 0.1 * (mesh_hash_unit(SEED + 1, 3 * b + d) - 0.5);
        }
    }
    smp_barrier();
    mesh_parallel_begin();

    for (unsigned step = 0; step < STEPS; step++) {
        tree_and_forces(begin, end);
        for (unsigned b = begin; b < end; b++)
            for (unsigned d = 0; d < 3; d++) {
                body[b].velocity[d] += DT * body[b].acceleration[d];
                body[b].position[d] += DT * body[b].velocity[d];
            }
        smp_barrier();
    }
    unsigned in_tree = tree_and_forces(begin, end);

    mesh_parallel_end();
    smp_barrier();
    if (smp_hart_id() != 0)
        return 0;

    double worst = 0.0;
    for (unsigned s = 0; s < SAMPLED; s++) {
        unsigned b = (s * 509u) % BODIES;
        double a[3] = {0.0, 0.0, 0.0};
        for (unsigned other = 0; other < BODIES; other++)
            if (other != b)
                add_attraction(body[b].position, body[other].position, body_mass, a);
        double error2 = 0.0, norm2 = 0.0;
        for (unsigned d = 0; d < 3; d++) {
            double e = body[b].acceleration[d] - a[d];
            error2 += e * e;
            norm2 += a[d] * a[d];
        }
        double relative = sqrt(error2 / norm2);
        if (!(relative <= worst))
            worst = relative;
    }
    uint64_t checksum = MESH_CHECKSUM_INIT;
    for (unsigned b = 0; b < BODIES; b++) {
        checksum = mesh_checksum_doubles(checksum, body[b].position, 3);
        checksum = mesh_checksum_doubles(checksum, body[b].acceleration, 3);
    }
    int pass = !tree_overflow && in_tree == BODIES && worst < 0.05;
    printf("barnes: %s bodies=%u steps=%u harts=%u size=%s cells=%u in_tree=%u worst_force_error=%.3e "
           "checksum=%016llx instret=%lu\n",
           pass ? "PASS" : "FAIL", BODIES, STEPS, smp_hart_count(), MESH_SIZE_NAME, (unsigned)cells_used, in_tree,
           worst, (unsigned long long)checksum, (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
