/*
 * The mesh workloads' deterministic random numbers, in plain C without the
 * firmware runtime, so that host-side tests (tests/integration/
 * mesh_synthetic_test.cpp) regenerate a program's random stream from the
 * same code the harts run.
 */
#ifndef MESH_RANDOM_H
#define MESH_RANDOM_H

#include <stdint.h>

/* xorshift64*: the same sequence on every platform. */
static inline uint64_t mesh_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform double in [0, 1). */
static inline double mesh_random_unit(uint64_t *state)
{
    return (double)(mesh_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Counter-based random numbers: item `index` of stream `seed`, so every hart can fill
 * its own share of an input (waiting harts would otherwise spin while one hart does it). */
static inline uint64_t mesh_hash(uint64_t seed, uint64_t index)
{
    uint64_t x = seed ^ (index * 0x9e3779b97f4a7c15ull);
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}
static inline double mesh_hash_unit(uint64_t seed, uint64_t index)
{
    return (double)(mesh_hash(seed, index) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
