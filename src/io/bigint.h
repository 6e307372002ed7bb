/* Small unsigned big integers for the exact decimal <-> binary comparisons of decimal.c
 * (text to numbers) and numtext.c (floats to text): 32-bit words, least significant
 * first, in a caller's array of `cap` words with `*n` of them in use (0: the number 0).
 * Callers size `cap` so that no result outgrows it; if one did, its top words would be
 * cut, never written past the array. */
#ifndef GANIM_IO_BIGINT_H
#define GANIM_IO_BIGINT_H

#include <stdint.h>
#include <string.h>

static inline void gbig_set(uint32_t *w, int *n, uint64_t v)
{
    *n = 0;
    while (v) {
        w[(*n)++] = (uint32_t)v;
        v >>= 32;
    }
}

/* w = w * m + add */
static inline void gbig_mul_small(uint32_t *w, int *n, int cap, uint32_t m, uint32_t add)
{
    uint64_t carry = add;
    for (int i = 0; i < *n; i++) {
        uint64_t t = (uint64_t)w[i] * m + carry;
        w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry && *n < cap) w[(*n)++] = (uint32_t)carry;
}

/* w = w * 10^k, k >= 0 */
static inline void gbig_mul_pow10(uint32_t *w, int *n, int cap, int k)
{
    static const uint32_t p10[10] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000 };
    for (; k >= 9; k -= 9) gbig_mul_small(w, n, cap, p10[9], 0);
    if (k > 0) gbig_mul_small(w, n, cap, p10[k], 0);
}

/* w = w * 2^bits, bits >= 0 */
static inline void gbig_shl(uint32_t *w, int *n, int cap, int bits)
{
    if (*n == 0 || bits <= 0) return;
    int words = bits / 32, r = bits % 32;
    if (r) {
        uint32_t carry = 0;
        for (int i = 0; i < *n; i++) {
            uint32_t v = w[i];
            w[i] = (v << r) | carry;
            carry = v >> (32 - r);
        }
        if (carry && *n < cap) w[(*n)++] = carry;
    }
    if (words > 0) {
        if (words >= cap) words = cap - 1;
        int keep = *n + words > cap ? cap - words : *n;
        memmove(w + words, w, (size_t)keep * sizeof w[0]);
        memset(w, 0, (size_t)words * sizeof w[0]);
        *n = keep + words;
    }
}

/* The sign of a - b. */
static inline int gbig_cmp(const uint32_t *a, int an, const uint32_t *b, int bn)
{
    if (an != bn) return an < bn ? -1 : 1;
    for (int i = an - 1; i >= 0; i--)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

#endif
