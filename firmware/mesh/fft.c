/*
 * Radix-2 complex FFT, 1D, 4,096 points (CI; full, Table 5.3: 65,536) (after SPLASH-2 FFT, with a parallel butterfly
 * scheme instead of the six-step transpose). Twiddles: each hart fills its share of the
 * table. Forward transform: parallel bit-reversal copy, then 12 butterfly stages, each
 * hart taking a contiguous share of the N/2 butterflies, a barrier after every stage.
 * Checks: 16 bins against a direct DFT (O(N) each, exact twiddle table), and an inverse
 * FFT round trip back to the input; both to 1e-9 relative to the signal's magnitude.
 * The parallel region is the forward transform; the checks (still parallel) follow it.
 */
#include <math.h>
#include <stdio.h>

#include "mesh_workload.h"

#define LOG2N MESH_SIZE(12, 16)
#define N (1u << LOG2N)
#define CHECKED_BINS 16

typedef struct {
    double re, im;
} complex_t;

static complex_t input[N], spectrum[N], round_trip[N];
static complex_t twiddle[N];            /* exp(-2 pi i k / N) */
static mesh_partial_t dft_error[NPUVP_SMP_MAX_HARTS];

static unsigned reverse_bits(unsigned x)
{
    unsigned r = 0;
    for (unsigned b = 0; b < LOG2N; b++, x >>= 1)
        r = (r << 1) | (x & 1);
    return r;
}

/* out = FFT(in) (inverse: conjugate twiddles, scaled by 1/N). All harts call it. */
static void parallel_fft(const complex_t *in, complex_t *out, int inverse)
{
    unsigned begin, end;
    mesh_range(N, &begin, &end);
    for (unsigned i = begin; i < end; i++)
        out[reverse_bits(i)] = in[i];
    smp_barrier();

    mesh_range(N / 2, &begin, &end);
    for (unsigned stage = 1; stage <= LOG2N; stage++) {
        unsigned half = 1u << (stage - 1), stride = N >> stage;
        for (unsigned b = begin; b < end; b++) {
            unsigned group = b / half, j = b % half;
            unsigned top = group * 2 * half + j, bottom = top + half;
            complex_t w = twiddle[j * stride];
            if (inverse)
                w.im = -w.im;
            complex_t x = out[bottom];
            double tr = w.re * x.re - w.im * x.im, ti = w.re * x.im + w.im * x.re;
            complex_t y = out[top];
            out[top].re = y.re + tr;
            out[top].im = y.im + ti;
            out[bottom].re = y.re - tr;
            out[bottom].im = y.im - ti;
        }
        smp_barrier();
    }
    if (inverse) {
        mesh_range(N, &begin, &end);
        for (unsigned i = begin; i < end; i++) {
            out[i].re /= N;
            out[i].im /= N;
        }
        smp_barrier();
    }
}

int main(void)
{
    unsigned begin, end;
    mesh_range(N, &begin, &end);
    for (unsigned k = begin; k < end; k++) {
        double angle = -2.0 * M_PI * (double)k / (double)N;
        twiddle[k].re = cos(angle);
        twiddle[k].im = sin(angle);
    }
    for (unsigned i = begin; i < end; i++) {
        input[i].re = mesh_hash_unit(0x0fedcba987654321ull, 2 * i) - 0.5;
        input[i].im = mesh_hash_unit(0x0fedcba987654321ull, 2 * i + 1) - 0.5;
    }
    smp_barrier();
    mesh_parallel_begin();

    parallel_fft(input, spectrum, 0);

    mesh_parallel_end();
    parallel_fft(spectrum, round_trip, 1);

    /* Direct DFT of the checked bins, spread over the harts. */
    double worst = 0.0;
    mesh_range(CHECKED_BINS, &begin, &end);
    for (unsigned c = begin; c < end; c++) {
        unsigned bin = (c * 263u + 7u) % N;     /* spread over the spectrum */
        double re = 0.0, im = 0.0;
        for (unsigned n = 0; n < N; n++) {
            complex_t w = twiddle[(unsigned)(((uint64_t)bin * n) % N)];
            re += input[n].re * w.re - input[n].im * w.im;
            im += input[n].re * w.im + input[n].im * w.re;
        }
        double error = hypot(re - spectrum[bin].re, im - spectrum[bin].im);
        if (error > worst)
            worst = error;
    }
    dft_error[smp_hart_id()].value = worst;
    smp_barrier();
    if (smp_hart_id() != 0)
        return 0;

    double dft_worst = 0.0, trip_worst = 0.0;
    uint64_t checksum = MESH_CHECKSUM_INIT;
    for (unsigned h = 0; h < smp_hart_count(); h++)
        if (dft_error[h].value > dft_worst)
            dft_worst = dft_error[h].value;
    for (unsigned i = 0; i < N; i++) {
        double error = hypot(round_trip[i].re - input[i].re, round_trip[i].im - input[i].im);
        if (error > trip_worst)
            trip_worst = error;
        checksum = mesh_checksum_double(checksum, spectrum[i].re);
        checksum = mesh_checksum_double(checksum, spectrum[i].im);
    }
    /* |X[k]| ~ sqrt(N) * 0.4 for this input; inputs are ~0.3. */
    int pass = dft_worst < 1e-9 * sqrt((double)N) && trip_worst < 1e-9;
    printf("fft: %s points=%u harts=%u size=%s dft_error=%.3e roundtrip_error=%.3e checksum=%016llx instret=%lu\n",
           pass ? "PASS" : "FAIL", N, smp_hart_count(), MESH_SIZE_NAME, dft_worst, trip_worst,
           (unsigned long long)checksum, (unsigned long)mesh_count_total());
    return pass ? 0 : 1;
}
