/* The tests' reference for a float's text: what gnum_float must write, from the C
 * library (snprintf "%.*g" at precisions 6 to 9, the first that strtof reads back as v;
 * "0" or "-0" for a zero), and a float from its bits. test_numtext and test_float_room. */
#ifndef GANIM_TESTS_TNUMTEXT_H
#define GANIM_TESTS_TNUMTEXT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline size_t tn_float_text(char *out, size_t cap, float v)
{
    if (v == 0) return (size_t)snprintf(out, cap, "%s", signbit(v) ? "-0" : "0");
    int n = 0;
    for (int prec = 6; prec <= 9; prec++) {
        n = snprintf(out, cap, "%.*g", prec, (double)v);
        if (strtof(out, NULL) == v) break;
    }
    return (size_t)n;
}

static inline float tn_float_bits(uint32_t u)
{
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

#endif
