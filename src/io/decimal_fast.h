/* The short decimals of text formats, read fast: a number of the lenient grammar
 * (decimal.h's GDEC_LENIENT: '+', ".5", "5.", leading zeros) with at most 19 digits, a
 * value of at most 2^53 and a decimal exponent within +-22 is exactly one IEEE operation
 * away from its double: m x 10^e or m / 10^-e with m and 10^|e| both exact doubles, so
 * that one correctly rounded multiplication or division is the correctly rounded value
 * (Clinger's fast path). Those are the numbers motion-capture files and ganim's
 * exports hold ("-37.28461", "1.2345678e-05").
 *
 * gdec_fast returns the characters used and the double, the very ones gdec_scan and
 * gdec_double give for the same text, or 0 when the text is not such a number: then
 * the caller takes gdec_scan's path, which also decides what is not a number at all.
 * Digits are read 8 at a time where 8 bytes are left in the range (SWAR), one at a time
 * near its end; nothing is read at or beyond s + len. tests/unit/test_decimal.c
 * compares it with gdec on random and edge-case text. */
#ifndef GANIM_IO_DECIMAL_FAST_H
#define GANIM_IO_DECIMAL_FAST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* 8 bytes, the first in the lowest bits whatever the host's byte order. */
static inline uint64_t gdec_ld8(const uint8_t *p)
{
    return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24) |
           ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) | ((uint64_t)p[7] << 56);
}

/* Index of the lowest set bit of a non-zero x. */
static inline unsigned gdec_low_bit(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned n = 0;
    while (!(x & 1u)) x >>= 1, n++;
    return n;
#endif
}

/* Bytes that are not ASCII digits in y = 8 characters ^ '0' (digits became 0..9): a set
 * top bit in each such byte (its top bit set, or its low 7 bits >= 10; no carries). */
static inline uint64_t gdec_nondigits(uint64_t y)
{
    return (((y & 0x7F7F7F7F7F7F7F7Fu) + 0x7676767676767676u) | y) & 0x8080808080808080u;
}

/* The value of 8 digits 0..9 in the bytes of y, the lowest byte the most significant:
 * pairs, then quads, then the eight (each step's sums stay within their lanes). */
static inline uint64_t gdec_swar8(uint64_t y)
{
    y = (y * 2561) >> 8;
    y = ((y & 0x00FF00FF00FF00FFu) * 6553601) >> 16;
    return ((y & 0x0000FFFF0000FFFFu) * 42949672960001u) >> 32;
}

/* The leading digits of s[i..len) added to *m (as decimal digits after it): how many,
 * at most 24 (more cannot be a short number's; the caller sees the count). */
static inline unsigned gdec_fast_digits(const uint8_t *s, size_t len, size_t *i, uint64_t *m)
{
    static const uint64_t p10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };
    unsigned total = 0;
    size_t at = *i;
    uint64_t v = *m;
    while (len - at >= 8 && total < 24) {
        uint64_t y = gdec_ld8(s + at) ^ 0x3030303030303030u; /* digit bytes become 0..9 */
        uint64_t nd = gdec_nondigits(y);
        unsigned k = nd ? gdec_low_bit(nd) >> 3 : 8;
        if (k) {
            /* the k digits to the top bytes, zeros (leading digits) below */
            v = v * p10[k] + gdec_swar8(y << 8 * (8 - k));
            total += k;
            at += k;
        }
        if (k < 8) {
            *i = at;
            *m = v;
            return total;
        }
    }
    for (; at < len && total < 24 && (unsigned)(s[at] - '0') < 10u; at++, total++) v = v * 10 + (uint64_t)(s[at] - '0');
    *i = at;
    *m = v;
    return total;
}

/* Any short number, digits 8 at a time while 8 bytes are left, then one at a time. */
static inline size_t gdec_fast_any(const uint8_t *s, size_t len, double *out)
{
    static const double p10[23] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
    size_t i = 0;
    int negative = 0;
    if (len && (s[0] == '-' || s[0] == '+')) negative = s[i++] == '-';
    uint64_t m = 0;
    unsigned nint = gdec_fast_digits(s, len, &i, &m), nfrac = 0;
    if (i < len && s[i] == '.') {
        i++;
        nfrac = gdec_fast_digits(s, len, &i, &m);
    }
    if (nint + nfrac == 0 || nint + nfrac > 19) return 0;
    int e = -(int)nfrac;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        int eneg = 0, ev = 0;
        if (j < len && (s[j] == '-' || s[j] == '+')) eneg = s[j++] == '-';
        size_t e_at = j;
        for (; j < len && j - e_at < 5 && (unsigned)(s[j] - '0') < 10u; j++) ev = ev * 10 + (s[j] - '0');
        if (j == e_at || (j < len && (unsigned)(s[j] - '0') < 10u)) return 0; /* "5e", or 5 digits and more */
        e += eneg ? -ev : ev;
        i = j;
    }
    double v;
    if (m == 0) {
        v = 0;
    } else {
        if (m > ((uint64_t)1 << 53) || e < -22 || e > 22) return 0;
        v = e < 0 ? (double)m / p10[-e] : (double)m * p10[e];
    }
    *out = negative ? -v : v;
    return i;
}

/* The commonest shapes first, from two or three 8-byte loads: [sign] 1 to 7 digits, then
 * '.' and 1 to 15 digits (at most 15 digits in all) or nothing, no exponent: m < 10^15
 * and 10^-15, always short. Everything else goes through gdec_fast_any. */
static inline size_t gdec_fast(const uint8_t *s, size_t len, double *out)
{
    static const uint64_t p10i[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };
    static const double p10[16] = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15
    };
    /* 25: a sign, 7 digits, '.', 8 + 7 digits and the byte after them */
    if (len < 25) return gdec_fast_any(s, len, out);
    uint8_t first = s[0];
    size_t i = first == '-' || first == '+';
    uint64_t y0 = gdec_ld8(s + i) ^ 0x3030303030303030u, nd0 = gdec_nondigits(y0);
    unsigned k1 = nd0 ? gdec_low_bit(nd0) >> 3 : 0;
    if (!k1) return gdec_fast_any(s, len, out); /* no digit first, or 8 and more */
    i += k1;
    y0 <<= 8 * (8 - k1);
    uint64_t m;
    unsigned k2 = 0;
    if (s[i] == '.') {
        uint64_t y1 = gdec_ld8(s + i + 1) ^ 0x3030303030303030u, nd1 = gdec_nondigits(y1);
        if (nd1) {
            k2 = gdec_low_bit(nd1) >> 3;
            if (!k2) return gdec_fast_any(s, len, out);
            y1 <<= 8 * (8 - k2);
            /* both parts in one word when they fit: the integer digits just below the fraction's */
            m = k1 + k2 <= 8 ? gdec_swar8((y0 >> 8 * k2) | y1) : gdec_swar8(y0) * p10i[k2] + gdec_swar8(y1);
        } else { /* 8 digits of fraction, and maybe more */
            uint64_t y2 = gdec_ld8(s + i + 9) ^ 0x3030303030303030u, nd2 = gdec_nondigits(y2);
            unsigned k3 = nd2 ? gdec_low_bit(nd2) >> 3 : 8;
            if (k1 + 8 + k3 > 15) return gdec_fast_any(s, len, out);
            m = gdec_swar8(y0) * 100000000u + gdec_swar8(y1);
            if (k3) m = m * p10i[k3] + gdec_swar8(y2 << 8 * (8 - k3));
            k2 = 8 + k3;
        }
        i += 1 + k2;
    } else {
        m = gdec_swar8(y0);
    }
    if ((s[i] | 0x20) == 'e') return gdec_fast_any(s, len, out);
    /* m < 10^15: exact either way, signed converts faster; k2 <= 15 already (the mask
     * says so to a reader that cannot count trailing zero bits) */
    double v = (double)(int64_t)m / p10[k2 & 15];
    *out = first == '-' ? -v : v;
    return i;
}

/* The float of a short number (gdec_fast's): the very one gdec_float gives for the same
 * text, or 0 when the text is not such a number or its double lies on a midpoint between
 * two floats (gdec_float's one case of an exact comparison). Rounding the correctly
 * rounded double to float is then exact: the double and the decimal lie on the same side
 * of every midpoint. m <= 2^53 and 10^+-22 keep the value a normal float, far from the
 * ends of its range. Returns the characters used. */
static inline size_t gdec_fast_float(const uint8_t *s, size_t len, float *out)
{
    double x;
    size_t n = gdec_fast(s, len, &x);
    if (!n) return 0;
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    /* a midpoint: of the 29 bits below a float's 24, only the highest set */
    if ((bits & 0x1FFFFFFFu) == 0x10000000u) return 0;
    *out = (float)x;
    return n;
}

/* The length of the JSON number at s[0..len) (decimal.h's GDEC_JSON: '-', no leading
 * zero, digits on both sides of the point, an exponent with a sign or none) when it is
 * whole and plain: the next byte (if any) neither a digit nor '.', 'e', 'E', '+', '-',
 * and at most 40 bytes. Then gdec_scan takes the very same characters; else 0, and the
 * caller asks gdec_scan (which also tells what is not a number). Digits 8 at a time
 * where 8 bytes are left; nothing read at or beyond s + len. */
static inline size_t gdec_json_len(const uint8_t *s, size_t len)
{
    size_t i = len && s[0] == '-', run;
    if (i >= len || (unsigned)(s[i] - '0') >= 10u) return 0;
    if (s[i] == '0') {
        i++;
    } else {
        uint64_t m = 0;
        size_t at = i + 1;
        gdec_fast_digits(s, len, &at, &m);
        i = at;
    }
#define GDEC_JSON_RUN(at)                         \
    do {                                          \
        uint64_t m_ = 0;                          \
        size_t j_ = (at);                         \
        run = gdec_fast_digits(s, len, &j_, &m_); \
        (at) = j_;                                \
    } while (0)
    if (i < len && s[i] == '.') {
        size_t at = i + 1;
        GDEC_JSON_RUN(at);
        if (!run) return 0;
        i = at;
    }
    if (i < len && (s[i] | 0x20) == 'e') {
        size_t at = i + 1;
        if (at < len && (s[at] == '-' || s[at] == '+')) at++;
        GDEC_JSON_RUN(at);
        if (!run) return 0;
        i = at;
    }
#undef GDEC_JSON_RUN
    if (i > 40) return 0;
    if (i < len) {
        uint8_t c = s[i];
        if ((unsigned)(c - '0') < 10u || c == '.' || (c | 0x20) == 'e' || c == '+' || c == '-') return 0;
    }
    return i;
}

/* ---- a short number then white space, where 32 bytes can be read ---------------------------- */

/* ' ', '\t' '\n' '\v' '\f' '\r' (9..13): one load from a table of the 256 bytes. */
static inline int gdec_ws(uint8_t c)
{
    static const uint8_t ws[256] = { ['\t'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1, [' '] = 1 };
    return ws[c];
}

/* The exponent of gdec_fast_ws's number, whose m (below 10^15) and k2 fraction digits end
 * at s[i] = 'e' or 'E': [sign] 1 to 3 digits, then one byte of white space (a sign, 15
 * digits, the point, 5 bytes of exponent and the white space: at most 23 bytes from s,
 * within the 32). m x 10^(exponent - k2) by
 * gdec_fast_any's arithmetic (0 when m is 0; else one correctly rounded multiplication
 * or division by an exact power of ten, the exponent within +-22). Returns the
 * characters used, the white space included, or 0 (then gdec_fast and gdec decide).
 * Apart from the common case so that it costs that case nothing. */
static inline size_t gdec_fast_ws_exp(const uint8_t *s, size_t i, uint64_t m, unsigned k2, uint8_t first, double *out)
{
    static const double p10[23] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
    size_t j = i + 1;
    int eneg = s[j] == '-';
    j += eneg || s[j] == '+';
    size_t e_at = j;
    int ev = 0;
    for (; j - e_at < 3 && (unsigned)(s[j] - '0') < 10u; j++) ev = ev * 10 + (s[j] - '0');
    if (j == e_at || !gdec_ws(s[j])) return 0; /* "5e", 4 exponent digits and more, "5e5x" */
    int e = (eneg ? -ev : ev) - (int)k2;
    double v = 0;
    if (m) {
        if (e < -22 || e > 22) return 0;
        v = e < 0 ? (double)m / p10[-e] : (double)m * p10[e];
    }
    *out = first == '-' ? -v : v;
    return j + 1;
}

/* The commonest value of a text of numbers, where at least 32 bytes can be read from s:
 * [sign] 1 to 7 digits, maybe '.' and 1 to 15 digits (at most 15 digits in all), maybe an
 * exponent of 1 to 3 digits (gdec_fast_ws_exp), then one byte of white space. gdec_fast's first case (the same arithmetic: m and 10^k both exact
 * doubles, one correctly rounded division), a one-digit integer without the digit
 * conversion. Returns the characters used, the white space included, or 0 (then
 * gdec_fast and gdec decide, as for any other text). tests/unit/test_decimal.c compares
 * it with gdec on random text. (SSE2 classification of the 16 bytes from the sign,
 * tried in the fourth round, took 3 instructions a number more than these 8-byte
 * masks: the second mask is the only one it saves.) */
static inline size_t gdec_fast_ws(const uint8_t *s, double *out)
{
    static const uint64_t p10i[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };
    static const double p10[16] = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15
    };
    uint8_t first = s[0];
    if (first == '0' && gdec_ws(s[1])) { /* "0", the commonest value of all: +0 */
        *out = 0;
        return 2;
    }
    size_t i = first == '-' || first == '+';
    uint64_t y0 = gdec_ld8(s + i) ^ 0x3030303030303030u, nd0 = gdec_nondigits(y0);
    if (!nd0) return 0; /* 8 digits and more */
    unsigned k1 = gdec_low_bit(nd0) >> 3, k2 = 0;
    if (!k1) return 0;
    i += k1;
    uint64_t m;
    if (s[i] == '.') {
        y0 <<= 8 * (8 - k1);
        uint64_t y1 = gdec_ld8(s + i + 1) ^ 0x3030303030303030u, nd1 = gdec_nondigits(y1);
        if (nd1) {
            k2 = gdec_low_bit(nd1) >> 3;
            if (!k2) return 0;
            y1 <<= 8 * (8 - k2);
            m = k1 + k2 <= 8 ? gdec_swar8((y0 >> 8 * k2) | y1) : gdec_swar8(y0) * p10i[k2] + gdec_swar8(y1);
        } else { /* 8 digits of fraction, and maybe more */
            uint64_t y2 = gdec_ld8(s + i + 9) ^ 0x3030303030303030u, nd2 = gdec_nondigits(y2);
            unsigned k3 = nd2 ? gdec_low_bit(nd2) >> 3 : 8;
            if (k1 + 8 + k3 > 15) return 0;
            m = gdec_swar8(y0) * 100000000u + gdec_swar8(y1);
            if (k3) m = m * p10i[k3] + gdec_swar8(y2 << 8 * (8 - k3));
            k2 = 8 + k3;
        }
        i += 1 + k2;
    } else if (k1 == 1) { /* one digit: "0", "5" */
        m = (y0 & 0xFF);
    } else {
        m = gdec_swar8(y0 << 8 * (8 - k1));
    }
    if (!gdec_ws(s[i])) return (s[i] | 0x20) == 'e' ? gdec_fast_ws_exp(s, i, m, k2, first, out) : 0;
    double v = (double)(int64_t)m / p10[k2 & 15];
    *out = first == '-' ? -v : v;
    return i + 1;
}

#endif
