/*
 * Black-Scholes option pricing (after PARSEC BLACKSCHOLES): a portfolio of European
 * options (spot, strike, rate, volatility, time, call or put) priced with the closed
 * formula, the cumulative normal distribution by the Abramowitz-Stegun polynomial
 * (26.2.17). The options are split into contiguous slices, one per hart; the whole
 * portfolio is priced RUNS times (PARSEC repeats it too), every run writing the price
 * array. Check (hart 0): for every option the price of the opposite type is computed
 * and put-call parity C - P = S - K exp(-rT) must hold to 1e-9 (relative to S).
 * Sizes: CI 1,024 options, 1 run; full (Table 5.3) 16,384 options, 10 runs.
 */
#include <math.h>
#include <stdio.h>

#include "mesh_workload.h"

#define OPTIONS MESH_SIZE(1024, 16384)
#define RUNS MESH_SIZE(1, 10)
#define SEED 0xb1ac5c401e5ull

typedef struct {
    double spot, strike, rate, volatility, time;
    int put;
} option_t;

static option_t options[OPTIONS];
static double prices[OPTIONS];

static double normal_cdf(double x)
{
    const double a1 = 0.319381530, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978,
                 a5 = 1.330274429, inverse_sqrt_2pi = 0.39894228040143267794;
    double z = fabs(x);
    double k = 1.0 / (1.0 + 0.2316419 * z);
    double polynomial = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
    double tail = inverse_sqrt_2pi * exp(-0.5 * z * z) * polynomial;
    return x < 0.0 ? tail : 1.0 - tail;
}

static double price(const option_t *o, int put)
{
    double root_time = sqrt(o->time);
    double d1 = (log(o->spot / o->strike) + (o->rate + 0.5 * o->volatility * o->volatility) * o->time) /
                (o->volatility * root_time);
    double d2 = d1 - o->volatility * root_time;
    double discounted_strike = o->strike * exp(-o->rate * o->time);
    if (put)
        return discounted_strike * normal_cdf(-d2) - o->spot * normal_cdf(-d1);
    return o->spot * normal_cdf(d1) - discounted_strike * normal_cdf(d2);
}

int main(void)
{
    unsigned begin, end;
    mesh_range(OPTIONS, &begin, &end);
    for (unsigned i = begin; i < end; i++) {
        option_t *o = &options[i];
        o->spot = 10.0 + 90.0 * mesh_hash_unit(SEED, 5 * i);
        o->strike = o->spot * (0.7 + 0.6 * mesh_hash_unit(SEED, 5 * i + 1));
        o->rate = 0.01 + 0.09 * mesh_hash_unit(SEED, 5 * i + 2);
        o->volatility = 0.05 + 0.6 * mesh_hash_unit(SEED, 5 * i + 3);
        o->time = 0.1 + 2.9 * mesh_hash_unit(SEED, 5 * i + 4);
        o->put = i & 1;
    }
    smp_barrier();
    mesh_parallel_begin();

    for (unsigned run = 0; run < RUNS; run++)
        for (unsigned i = begin; i < end; i++)
            prices[i] = price(&options[i], options[i].put);

    mesh_parallel_end();
    smp_barrier();
    if (smp_hart_id() != 0)
        return 0;

    double max_error = 0.0;
    uint64_t checksum = MESH_CHECKSUM_INIT;
    for (unsigned i = 0; i < OPTIONS; i++) {
        const option_t *o = &options[i];
        double other = price(o, !o->put);
        double call = o->put ? other : prices[i], put = o->put ? prices[i] : other;
        double parity = call - put - (o->spot - o->strike * exp(-o->rate * o->time));
        if (fabs(parity) / o->spot > max_error)
            max_error = fabs(parity) / o->spot;
        checksum = mesh_checksum_double(checksum, prices[i]);
    }
    int pass = max_error < 1e-9;
    printf("blackscholes: %s options=%u runs=%u harts=%u size=%s parity_error=%.3e checksum=%016llx instret=%lu\n",
           pass ? "PASS" : "FAIL", OPTIONS, RUNS, smp_hart_count(), MESH_SIZE_NAME, max_error,
           (unsigned long long)checksum, (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
