/*
 * Streamcluster (after PARSEC STREAMCLUSTER's parallel facility-location local search,
 * pFL/pgain): cluster POINTS points of DIMENSIONS coordinates (drawn around hidden
 * centres) by opening facilities at a cost each. Start: one facility (point 0), every
 * point assigned to it. Then CANDIDATES times a random candidate point is evaluated:
 * every hart computes, for its contiguous slice of points, the saving of moving to the
 * candidate the points that are closer to it, and per open facility how much closing
 * it and moving its other points to the candidate would cost (per-hart arrays, each in
 * its own cache lines); barrier; every hart sums the harts' parts in hart order and
 * takes the same decision: open the candidate (and close the facilities whose closing
 * pays) if that saves more than the opening cost; every hart reassigns its points;
 * barrier. Check (hart 0): every point is assigned to an open facility at the
 * distance recorded for it, and the total cost, recomputed sequentially, agrees with
 * the parallel one to 1e-9 and is below the starting cost.
 * Sizes: CI 1,024 points, 40 candidates; full (Table 5.3) 16,384 points, 100 candidates;
 * 32 dimensions, at most 20 facilities.
 */
#include <math.h>
#include <stdio.h>

#include "mesh_workload.h"

#define POINTS MESH_SIZE(1024, 16384)
#define CANDIDATES MESH_SIZE(40, 100)
#define DIMENSIONS 32
#define MAX_FACILITIES 20
#define HIDDEN_CENTRES 12
#define SEED 0x57eac105ull

static float point[POINTS][DIMENSIONS];
static unsigned assigned[POINTS];           /* index of the point that is its facility */
static double cost[POINTS];                 /* squared distance to it */
static double candidate_cost[POINTS];       /* squared distance to the candidate */
static unsigned facility[MAX_FACILITIES];   /* open facilities (point indices) */
static unsigned facilities;
static double opening_cost;

typedef struct {
    double switch_saving;
    double closing_saving[MAX_FACILITIES];  /* negative: the extra cost of its points */
    double cost;
    char pad[64 - ((MAX_FACILITIES + 2) * sizeof(double)) % 64];
} hart_part_t;
static hart_part_t part[NPUVP_SMP_MAX_HARTS] __attribute__((aligned(64)));

static double distance2(unsigned a, unsigned b)
{
    double sum = 0.0;
    for (unsigned d = 0; d < DIMENSIONS; d++) {
        double diff = (double)point[a][d] - (double)point[b][d];
        sum += diff * diff;
    }
    return sum;
}

static unsigned slot_of(unsigned centre)
{
    for (unsigned f = 0; f < facilities; f++)
        if (facility[f] == centre)
            return f;
    return MAX_FACILITIES;
}

static double total_cost(void)
{
    double sum = 0.0;
    for (unsigned h = 0; h < smp_hart_count(); h++)
        sum += part[h].cost;
    return sum + opening_cost * facilities;
}

/* Evaluates one candidate over this hart's points and, if it pays, opens it (all harts). */
static void evaluate_candidate(unsigned candidate, unsigned begin, unsigned end)
{
    hart_part_t *mine = &part[smp_hart_id()];
    mine->switch_saving = 0.0;
    for (unsigned f = 0; f < facilities; f++)
        mine->closing_saving[f] = 0.0;
    for (unsigned i = begin; i < end; i++) {
        double d = distance2(i, candidate);
        candidate_cost[i] = d;
        unsigned f = slot_of(assigned[i]);
        if (d < cost[i])
            mine->switch_saving += cost[i] - d;
        else
            mine->closing_saving[f] += cost[i] - d;
    }
    smp_barrier();
    /* Every hart takes the same decision from the same sums. */
    double gain = -opening_cost;
    int close[MAX_FACILITIES];
    for (unsigned h = 0; h < smp_hart_count(); h++)
        gain += part[h].switch_saving;
    for (unsigned f = 0; f < facilities; f++) {
        double saving = opening_cost;
        for (unsigned h = 0; h < smp_hart_count(); h++)
            saving += part[h].closing_saving[f];
        close[f] = saving > 0.0 && facility[f] != candidate;
        if (close[f])
            gain += saving;
    }
    int open = gain > 0.0 && facilities < MAX_FACILITIES && slot_of(candidate) == MAX_FACILITIES;
    if (open)
        for (unsigned i = begin; i < end; i++) {
            unsigned f = slot_of(assigned[i]);
            if (candidate_cost[i] < cost[i] || close[f]) {
                assigned[i] = candidate;
                cost[i] = candidate_cost[i];
            }
        }
    smp_barrier();              /* everyone has read the parts and the facility list */
    if (open && smp_hart_id() == 0) {
        unsigned kept = 0;
        for (unsigned f = 0; f < facilities; f++)
            if (!close[f])
                facility[kept++] = facility[f];
        facility[kept++] = candidate;
        facilities = kept;
    }
    smp_barrier();
}

int main(void)
{
    unsigned begin, end;
    mesh_range(POINTS, &begin, &end);
    for (unsigned i = begin; i < end; i++) {
        unsigned centre = mesh_hash(SEED, i) % HIDDEN_CENTRES;
        for (unsigned d = 0; d < DIMENSIONS; d++)
            point[i][d] = (float)(10.0 * mesh_hash_unit(SEED + 1, centre * DIMENSIONS + d) +
                                  mesh_hash_unit(SEED + 2, (uint64_t)i * DIMENSIONS + d) - 0.5);
    }
    smp_barrier();
    for (unsigned i = begin; i < end; i++) {
        assigned[i] = 0;
        cost[i] = distance2(i, 0);
    }
    part[smp_hart_id()].cost = 0.0;
    for (unsigned i = begin; i < end; i++)
        part[smp_hart_id()].cost += cost[i];
    if (smp_hart_id() == 0) {
        facility[0] = 0;
        facilities = 1;
    }
    smp_barrier();
    double starting_cost = total_cost();
    if (smp_hart_id() == 0)
        opening_cost = starting_cost / POINTS * 4.0;
    smp_barrier();
    starting_cost = total_cost();
    smp_barrier();
    mesh_parallel_begin();

    for (unsigned c = 0; c < CANDIDATES; c++)
        evaluate_candidate(mesh_hash(SEED + 3, c) % POINTS, begin, end);
    part[smp_hart_id()].cost = 0.0;
    for (unsigned i = begin; i < end; i++)
        part[smp_hart_id()].cost += cost[i];

    mesh_parallel_end();
    smp_barrier();
    if (smp_hart_id() != 0)
        return 0;

    double parallel_cost = total_cost(), sequential = opening_cost * facilities;
    unsigned bad = 0;
    uint64_t checksum = mesh_checksum_double(MESH_CHECKSUM_INIT, parallel_cost);
    for (unsigned i = 0; i < POINTS; i++) {
        if (slot_of(assigned[i]) == MAX_FACILITIES || distance2(i, assigned[i]) != cost[i])
            bad++;
        sequential += cost[i];
        checksum = mesh_checksum_u64(checksum, assigned[i]);
    }
    double relative = fabs(sequential - parallel_cost) / parallel_cost;
    int pass = bad == 0 && relative < 1e-9 && parallel_cost < starting_cost;
    printf("streamcluster: %s points=%u dimensions=%u candidates=%u harts=%u size=%s facilities=%u "
           "cost=%.6e starting_cost=%.6e bad=%u checksum=%016llx instret=%lu\n",
           pass ? "PASS" : "FAIL", POINTS, DIMENSIONS, CANDIDATES, smp_hart_count(), MESH_SIZE_NAME,
           facilities, parallel_cost, starting_cost, bad, (unsigned long long)checksum,
           (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
