/* A text of numbers read a block at a time: the 64 bytes from s are classified once
 * (white space, digits, points: one bit a byte in three 64-bit masks, by SSE2 where the
 * compiler targets it, by 8-byte SWAR words elsewhere), then each number of the block is
 * found by counting zero bits in the masks (its first byte, the first byte after it that
 * is neither a digit nor a point) and its digits converted from two 8-byte loads, with
 * the point squeezed out. The value is gdec_fast_ws's: m / 10^k with m the number's
 * digits as an integer below 10^15 and k its fraction's digits, both exact doubles, so
 * that the one correctly rounded division is gdec's correctly rounded double.
 *
 * Taken: [sign] 1-15 digits, or [sign] 1-7 digits '.' 1-14 digits (at most 15 digits in
 * all), followed by a white space byte inside the block. The first token that is not
 * such a number stops the scan there (`*stuck`): the caller's general path (gdec_fast,
 * gdec) reads it or says why it is not a number, at the same byte as before. A token
 * that runs past the block's end is left for the next block. Nothing is read beyond
 * s + GDEC_BLOCK_READ. tests/unit/test_decimal.c compares it with gdec on known answers
 * and random text at every alignment, at the end of an allocation of exactly those
 * bytes. */
#ifndef GANIM_IO_DECIMAL_BLOCK_H
#define GANIM_IO_DECIMAL_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "io/decimal_fast.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The bytes gdec_block_ws may read from s: the block, and 16 bytes from its last byte. */
#define GDEC_BLOCK_READ 80

/* One bit a byte of s[0..64), byte i at bit i. */
typedef struct gdec_block_masks {
    uint64_t ws;    /* ' ', '\t' '\n' '\v' '\f' '\r' */
    uint64_t digit; /* '0'..'9' */
    uint64_t point; /* '.' */
} gdec_block_masks;

/* The top bit of each byte of a SWAR word (0x80 or 0) gathered to 8 bits, byte i at bit i. */
static inline uint64_t gdec_gather8(uint64_t top) { return ((top >> 7) * 0x0102040810204080u) >> 56; }

/* Bytes of x equal to c (0x80 in each): exact, no carry between bytes. */
static inline uint64_t gdec_eq8(uint64_t x, uint8_t c)
{
    uint64_t y = x ^ (0x0101010101010101u * c);
    return ~(((y & 0x7F7F7F7F7F7F7F7Fu) + 0x7F7F7F7F7F7F7F7Fu) | y) & 0x8080808080808080u;
}

/* The masks by 8-byte words: the portable path (and the reference of the SSE2 one). */
static inline void gdec_classify_swar(const uint8_t *s, gdec_block_masks *m)
{
    uint64_t ws = 0, digit = 0, point = 0;
    for (unsigned w = 0; w < 8; w++) {
        uint64_t x = gdec_ld8(s + 8 * w);
        uint64_t d = ~gdec_nondigits(x ^ 0x3030303030303030u) & 0x8080808080808080u;
        /* 9..13: a byte whose top bit is clear, its low 7 bits + 119 reaching 128 (>= 9)
         * and + 114 not (< 14); no carries (at most 127 + 119) */
        uint64_t low = x & 0x7F7F7F7F7F7F7F7Fu;
        uint64_t ctl = (low + 0x7777777777777777u) & ~((low + 0x7272727272727272u) | x) & 0x8080808080808080u;
        uint64_t sp = gdec_eq8(x, ' ') | ctl;
        digit |= gdec_gather8(d) << 8 * w;
        ws |= gdec_gather8(sp) << 8 * w;
        point |= gdec_gather8(gdec_eq8(x, '.')) << 8 * w;
    }
    m->ws = ws;
    m->digit = digit;
    m->point = point;
}

#if defined(__SSE2__)
/* The masks by SSE2, 16 bytes a step: a byte c is in 9..13 when c - 9 (wrapping) is at
 * most 4 unsigned, a digit when c - '0' is at most 9 (min_epu8 equal to itself). */
static inline void gdec_classify_sse2(const uint8_t *s, gdec_block_masks *m)
{
    const __m128i nine = _mm_set1_epi8(9), four = _mm_set1_epi8(4), space = _mm_set1_epi8(' ');
    const __m128i zero = _mm_set1_epi8('0'), dot = _mm_set1_epi8('.');
    uint64_t ws = 0, digit = 0, point = 0;
    for (unsigned c = 0; c < 4; c++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + 16 * c));
        __m128i u = _mm_sub_epi8(x, zero), t = _mm_sub_epi8(x, nine);
        __m128i d = _mm_cmpeq_epi8(_mm_min_epu8(u, nine), u);
        __m128i w = _mm_or_si128(_mm_cmpeq_epi8(x, space), _mm_cmpeq_epi8(_mm_min_epu8(t, four), t));
        digit |= (uint64_t)(unsigned)_mm_movemask_epi8(d) << 16 * c;
        ws |= (uint64_t)(unsigned)_mm_movemask_epi8(w) << 16 * c;
        point |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, dot)) << 16 * c;
    }
    m->ws = ws;
    m->digit = digit;
    m->point = point;
}
#endif

static inline void gdec_classify(const uint8_t *s, gdec_block_masks *m)
{
#if defined(__SSE2__)
    gdec_classify_sse2(s, m);
#else
    gdec_classify_swar(s, m);
#endif
}

/* The numbers of the block at s (GDEC_BLOCK_READ bytes readable; s[0] is the first byte
 * of a token or white space), each with the white space byte after it, and the white
 * space between them, at most `want` numbers, stored in out[0..*took). Returns the bytes
 * used; *stuck is 1 when the scan stopped at a token it does not take (the caller's
 * general path must read the token at s + the return), 0 when it stopped at the block's
 * end or after `want` numbers.
 *
 * The tokens' first bytes, the white space bytes that end them and the points are bits
 * taken in order, lowest first; a token is refused when it holds a byte of `bad`,
 * found for the whole block at once: a byte that is no digit, point or white space
 * (but one first in its token and before a digit, which must be a sign), a point without a digit on
 * either side, and a point after a run of digits that follows a point ("1.2.3"). So a
 * token taken is [sign] digits [. digits], and what is left to check is its length. */
static inline size_t gdec_block_ws(const uint8_t *s, double *out, uint32_t want, uint32_t *took, int *stuck)
{
    static const uint64_t p10i[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };
    static const double p10[16] = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15
    };
    const uint64_t zeros = 0x3030303030303030u;
    gdec_block_masks bm;
    gdec_classify(s, &bm);
    uint64_t w = bm.ws, d = bm.digit, pt = bm.point;
    uint64_t starts = ~w & ((w << 1) | 1), ends = w & ~(w << 1) & ~(uint64_t)1;
    uint64_t other = ~(w | d | pt), point_ok = pt & (d << 1) & (d >> 1);
    uint64_t after_point = d & ~(d << 1) & (pt << 1); /* runs of digits right after a point */
    uint64_t second = ((d + after_point) & ~d) & pt;  /* a point just after such a run */
    /* a token's first byte that is no digit nor point must be a sign (checked below) */
    uint64_t bad = (other & ~(starts & (d >> 1))) | (pt & ~point_ok) | second;
    unsigned first_bad = bad ? gdec_low_bit(bad) : 64;
    uint32_t k = 0;
    unsigned pos = 0; /* the bytes before it are used */
    *stuck = 0;
    while (k < want) {
        if (!starts) { /* white space to the block's end */
            pos = 64;
            break;
        }
        unsigned a = gdec_low_bit(starts);
        starts &= starts - 1;
        if (!ends) { /* past the block's end: the next block's (a token of 64 bytes is not a number) */
            pos = a;
            *stuck = a == 0;
            break;
        }
        unsigned e = gdec_low_bit(ends);
        ends &= ends - 1;
        uint8_t first = s[a];
        unsigned sign = first == '-' || first == '+', a1 = a + sign;
        unsigned p = pt ? gdec_low_bit(pt) : 64, has_point = p < e;
        unsigned len = e - a1, n = len - has_point, k1 = has_point ? p - a1 : len, k2 = n - k1;
        /* a byte refused, more than 15 digits, more than 7 before the point */
        if (e > first_bad || n > 15 || k1 > 7 + 8 * !has_point || ((unsigned)(first - '0') > 9 && !sign)) {
            pos = a;
            *stuck = 1;
            break;
        }
        pt &= pt - (uint64_t)has_point; /* this token's point used */
        uint64_t lo = gdec_ld8(s + a1), hi = gdec_ld8(s + a1 + 8);
        if (has_point) { /* the point (byte k1 < 8 of lo) squeezed out: the digits follow on */
            uint64_t keep = ((uint64_t)1 << 8 * k1) - 1;
            lo = (lo & keep) | ((lo >> 8) & ~keep) | (hi << 56);
            hi >>= 8;
        }
        /* n = 1..15 digits in the bytes of lo, then hi */
        uint64_t m;
        if (n == 1) m = (lo ^ zeros) & 0xFF;
        else if (n <= 8) m = gdec_swar8((lo ^ zeros) << 8 * (8 - n));
        else m = gdec_swar8(lo ^ zeros) * p10i[n - 8] + gdec_swar8((hi ^ zeros) << 8 * (16 - n));
        double v = (double)(int64_t)m / p10[k2 & 15];
        out[k++] = first == '-' ? -v : v;
        pos = e + 1;
    }
    *took = k;
    return pos;
}

#endif
