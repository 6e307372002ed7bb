/* The tests' random numbers: xorshift64 (13, 7, 17) from a seed the test file names
 * (#define TRAND_SEED before including), so a failing test replays exactly. One state per
 * test file (static). */
#ifndef GANIM_TESTS_TRAND_H
#define GANIM_TESTS_TRAND_H

#include <stdint.h>

#ifndef TRAND_SEED
#error "define TRAND_SEED (the test's nonzero seed) before including support/trand.h"
#endif

static uint64_t rng_state = TRAND_SEED;

static inline uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static inline uint32_t rnd_below(uint32_t n) { return (uint32_t)(rnd() % n); }
static inline double rnd_unit(void) { return (double)(rnd() >> 11) * 0x1p-53; } /* [0, 1) */
static inline double rnd_sym(double a) { return (2 * rnd_unit() - 1) * a; }     /* (-a, a) */

#endif
