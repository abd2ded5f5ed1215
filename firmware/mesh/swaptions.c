/*
 * Swaption pricing by Monte Carlo simulation of the Heath-Jarrow-Morton forward-rate
 * model (after PARSEC SWAPTIONS): the forward curve, TENORS points half a year apart,
 * evolves in the Musiela parameterisation under FACTORS volatility factors (level,
 * slope, curvature) with the HJM no-arbitrage drift; at the swaption's maturity the
 * path's discount factors value a payer swap, and the discounted positive part is
 * averaged over the simulations. The swaptions (strikes and maturities differ) are
 * split among the harts, as PARSEC splits them among its threads; every swaption has
 * its own random stream (xorshift64*, Box-Muller normals), so its price does not
 * depend on which hart computes it. Check (hart 0): the first and the last swaption
 * priced again sequentially must be bit-identical, every price must lie in
 * [0, notional] with a finite standard error.
 * Sizes: CI 16 swaptions x 200 simulations; full (Table 5.3) 32 swaptions x 10,000.
 */
#include <math.h>
#include <stdio.h>

#include "mesh_workload.h"

#define SWAPTIONS MESH_SIZE(16, 32)
#define SIMULATIONS MESH_SIZE(200, 10000)
#define TENORS 11
#define FACTORS 3
#define STEP 0.5                    /* years between two tenor points and two time steps */
#define SEED 0x5a9710115ull

typedef struct {
    double strike;
    unsigned maturity_steps;        /* option maturity, in steps */
    unsigned swap_steps;            /* length of the underlying swap, in tenor points */
    double price, standard_error;
    char pad[64 - 4 * sizeof(double)];
} swaption_t;

static swaption_t swaptions[SWAPTIONS] __attribute__((aligned(64)));
static double volatility[FACTORS][TENORS];
static double drift[TENORS];
static double initial_curve[TENORS + 8];

static double normal(uint64_t *state)
{
    double u1 = mesh_random_unit(state), u2 = mesh_random_unit(state);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
}

/* The HJM drift of each tenor point: sum over factors of sigma(T) * integral of sigma. */
static void setup_model(void)
{
    for (unsigned t = 0; t < TENORS; t++) {
        double years = t * STEP;
        volatility[0][t] = 0.010;                               /* level */
        volatility[1][t] = 0.008 * exp(-0.4 * years);           /* slope */
        volatility[2][t] = 0.004 * years * exp(-0.5 * years);   /* curvature */
    }
    for (unsigned t = 0; t < TENORS; t++) {
        drift[t] = 0.0;
        for (unsigned f = 0; f < FACTORS; f++) {
            double integral = 0.0;
            for (unsigned s = 0; s <= t; s++)
                integral += volatility[f][s] * STEP;
            drift[t] += volatility[f][t] * integral;
        }
    }
    for (unsigned t = 0; t < TENORS + 8; t++)
        initial_curve[t] = 0.03 + 0.002 * t * STEP - 0.0001 * t * t * STEP * STEP;
}

static void price_swaption(swaption_t *s, unsigned index)
{
    uint64_t state = mesh_hash(SEED, index) | 1;
    double sum = 0.0, sum_squares = 0.0, root_step = sqrt(STEP);
    double curve[TENORS + 8], next[TENORS + 8];
    for (unsigned simulation = 0; simulation < SIMULATIONS; simulation++) {
        for (unsigned t = 0; t < TENORS + 8; t++)
            curve[t] = initial_curve[t];
        double short_rate_integral = 0.0;
        /* Evolve the curve to the maturity; each step shifts it by one tenor point. */
        for (unsigned step = 0; step < s->maturity_steps; step++) {
            double shock[FACTORS];
            for (unsigned f = 0; f < FACTORS; f++)
                shock[f] = normal(&state);
            short_rate_integral += curve[0] * STEP;
            for (unsigned t = 0; t < TENORS; t++) {
                double diffusion = 0.0;
                for (unsigned f = 0; f < FACTORS; f++)
                    diffusion += volatility[f][t] * shock[f];
                next[t] = curve[t + 1] + drift[t] * STEP + diffusion * root_step;
            }
            for (unsigned t = 0; t < TENORS; t++)
                curve[t] = next[t];
        }
        /* Payer swap at maturity: 1 - P(T, T_n) - strike * sum of STEP * P(T, T_k). */
        double log_discount = 0.0, annuity = 0.0;
        for (unsigned k = 0; k < s->swap_steps; k++) {
            log_discount -= curve[k] * STEP;
            annuity += STEP * exp(log_discount);
        }
        double value = 1.0 - exp(log_discount) - s->strike * annuity;
        double payoff = value > 0.0 ? value * exp(-short_rate_integral) : 0.0;
        sum += payoff;
        sum_squares += payoff * payoff;
    }
    double mean = sum / SIMULATIONS;
    s->price = mean;
    s->standard_error = sqrt((sum_squares / SIMULATIONS - mean * mean) / SIMULATIONS);
}

int main(void)
{
    unsigned begin, end;
    mesh_range(SWAPTIONS, &begin, &end);
    for (unsigned i = begin; i < end; i++) {
        swaptions[i].strike = 0.025 + 0.02 * mesh_hash_unit(SEED, 1000 + i);
        swaptions[i].maturity_steps = 1 + i % 4;
        swaptions[i].swap_steps = 2 + (i * 7) % 8;
    }
    if (smp_hart_id() == 0)
        setup_model();
    smp_barrier();
    mesh_parallel_begin();

    for (unsigned i = begin; i < end; i++)
        price_swaption(&swaptions[i], i);

    mesh_parallel_end();
    smp_barrier();
    if (smp_hart_id() != 0)
        return 0;

    unsigned bad = 0;
    uint64_t checksum = MESH_CHECKSUM_INIT;
    for (unsigned i = 0; i < SWAPTIONS; i++) {
        const swaption_t *s = &swaptions[i];
        if (!(s->price >= 0.0 && s->price <= 1.0 && isfinite(s->standard_error)))
            bad++;
        checksum = mesh_checksum_double(checksum, s->price);
        checksum = mesh_checksum_double(checksum, s->standard_error);
    }
    unsigned mismatches = 0;
    for (unsigned i = 0; i < SWAPTIONS; i += SWAPTIONS - 1) {
        swaption_t again = swaptions[i];
        price_swaption(&again, i);
        if (again.price != swaptions[i].price || again.standard_error != swaptions[i].standard_error)
            mismatches++;
    }
    int pass = bad == 0 && mismatches == 0;
    printf("swaptions: %s swaptions=%u simulations=%u harts=%u size=%s price0=%.6e mismatches=%u "
           "checksum=%016llx instret=%lu\n",
           pass ? "PASS" : "FAIL", SWAPTIONS, SIMULATIONS, smp_hart_count(), MESH_SIZE_NAME,
           swaptions[0].price, mismatches, (unsigned long long)checksum, (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
