/*
 * Host-side reference numerics for the offload programs (gemm-offload.c, conv-offload.c):
 * the AI Core's Cube semantics -- f16 inputs, products and sums in IEEE float with k in
 * increasing order (one rounding per addition), the sum rounded to f16 to nearest even --
 * reproduced on the host CPU, which has no FPU.
 *
 * The main path is exact integer arithmetic: an f16 with |x| < 1 is an integer number of
 * 2^-24, a product of two an integer number of 2^-48 (< 2^48), and every float partial
 * sum of such products is again a multiple of 2^-48 (float rounding only drops low bits
 * of a value that is already a multiple of 2^-48; sums of up to 2^14 products stay below
 * 2^62). So a float addition is "add the integers, keep 24 significant bits to nearest
 * even", with no float library call. The soft-float versions (f16_to_float,
 * float_to_f16) let a program cross-check that claim against libgcc's __addsf3/__mulsf3.
 */
#ifndef NPUVP_OFFLOAD_REFERENCE_H
#define NPUVP_OFFLOAD_REFERENCE_H

#include <stdint.h>
#include <string.h>

/* An f16 value with |x| < 2 as an integer in units of 2^-24 (the programs use |x| < 1). */
static inline int64_t f16_to_units24(uint16_t h)
{
    uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    int64_t v = e == 0 ? (int64_t)m : (int64_t)(1024 + m) << (e - 1);
    return (h & 0x8000) ? -v : v;
}

/* Number of significant bits of u (0 for 0). A compare cascade: rv64imac has no clz
 * instruction, and libgcc's __clzdi2 costs a call and a table lookup. */
static inline unsigned bit_length(uint64_t u)
{
    unsigned n = 0;
    if (u >> 32) n += 32, u >>= 32;
    if (u >> 16) n += 16, u >>= 16;
    if (u >> 8) n += 8, u >>= 8;
    if (u >> 4) n += 4, u >>= 4;
    if (u >> 2) n += 2, u >>= 2;
    if (u >> 1) n += 1, u >>= 1;
    return n + (unsigned)u;
}

/* Rounds u to its `bits` most significant bits, to nearest even (u > 0). */
static inline uint64_t round_to_bits(uint64_t u, unsigned bits)
{
    unsigned len = bit_length(u);
    if (len <= bits) return u;
    unsigned shift = len - bits;
    uint64_t kept = u >> shift, rest = u & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rest > half || (rest == half && (kept & 1))) kept++;
    return kept << shift;
}

/* IEEE float rounding of an exact value in units of 2^-48 (no overflow or underflow in
 * float for the values of this program): 24 significant bits. */
static inline int64_t float_round48(int64_t s)
{
    uint64_t u = s < 0 ? (uint64_t)-s : (uint64_t)s;
    if (u < (1ull << 24)) return s; /* exact in float */
    u = round_to_bits(u, 24);
    return s < 0 ? -(int64_t)u : (int64_t)u;
}

/* f16 nearest even of a value in units of 2^-48 (|value| < 65504). */
static inline uint16_t units48_to_f16(int64_t s)
{
    uint16_t sign = s < 0 ? 0x8000 : 0;
    uint64_t u = s < 0 ? (uint64_t)-s : (uint64_t)s;
    if (u == 0) return sign;
    if (u < (1ull << 34)) { /* below 2^-14: subnormal, unit 2^-24 = 2^24 units */
        uint64_t kept = u >> 24, rest = u & ((1ull << 24) - 1), half = 1ull << 23;
        if (rest > half || (rest == half && (kept & 1))) kept++;
        return sign | (uint16_t)kept; /* 1024 becomes the smallest normal, as it should */
    }
    uint64_t r = round_to_bits(u, 11);
    unsigned len = bit_length(r);          /* value in [2^(len-49), 2^(len-48)) */
    int exponent = (int)len - 49;
    uint64_t mantissa = r >> (len - 11);   /* 1024..2047 */
    if (exponent > 15) return sign | 0x7c00;
    return sign | (uint16_t)((exponent + 15) << 10) | (uint16_t)(mantissa - 1024);
}

/* f16 -> float exactly (bit manipulation), and float -> f16 via the exact path (the
 * float must be a multiple of 2^-48: true for every sum of f16 products). */
static inline float f16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
    if (e == 0 && m == 0) {
        bits = sign;
    } else if (e == 0) {
        int shift = 0;
        while (!(m & 0x400)) m <<= 1, shift++;
        bits = sign | (uint32_t)(127 - 14 - shift) << 23 | (m & 0x3ff) << 13;
    } else {
        bits = sign | (e - 15 + 127) << 23 | m << 13;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline uint16_t float_to_f16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    int exponent = (int)((bits >> 23) & 0xff) - 127;
    uint64_t mantissa = (bits & 0x7fffff) | 0x800000;
    if (((bits >> 23) & 0xff) == 0) return (uint16_t)((bits >> 16) & 0x8000); /* zero (no subnormal floats here) */
    int shift = exponent - 23 + 48; /* to units of 2^-48 */
    int64_t u = shift >= 0 ? (int64_t)(mantissa << shift) : (int64_t)(mantissa >> -shift);
    return units48_to_f16((bits & 0x80000000u) ? -u : u);
}

/* Deterministic f16 in (-1, 1): random sign, exponent field 0..14, mantissa. */
static uint64_t lcg_state = 0x243f6a8885a308d3ull;
static inline uint16_t random_f16(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(lcg_state >> 33);
    return (uint16_t)((r & 0x8000) | ((r >> 16) % 15) << 10 | (r & 0x3ff));
}

/* f16 x + x (what vector_add gives for D = C + C): exact doubling. */
static inline uint16_t f16_double(uint16_t h)
{
    uint16_t sign = h & 0x8000, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0) return sign | (uint16_t)(m << 1);
    if (e >= 30) return sign | 0x7c00;
    return sign | (uint16_t)((e + 1) << 10) | m;
}

#endif /* NPUVP_OFFLOAD_REFERENCE_H */
