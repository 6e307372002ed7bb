/* Floats to text, exactly as snprintf("%.*g") then strtof would choose it, in integer
 * arithmetic (docs/benchmarks.md, "Numbers to text").
 *
 * A finite nonzero float is v = m * 2^e exactly (m < 2^24). For a precision P its text
 * is D = q * 10^k, k = X - P + 1, X = floor(log10 v), q = v / 10^k rounded to the
 * nearest integer, ties to even (glibc rounds the exact binary value so); when q reaches
 * 10^P, D is 10^(X+1) and %g's exponent is X + 1. D reads back as v when it lies in v's
 * rounding interval: within half a step of v's neighbours (a quarter step below powers of
 * two, where the step below halves), endpoints included when m is even (strtof rounds a
 * tie to the even neighbour). Every test is an integer comparison:
 *   - scaled path, normal floats in [2^-26, 2^24) (gnum_float): v's nine digits and their
 *     fraction from one 64-bit product by a per-binade multiplier, the interval's ends
 *     from the same product, P = 8 tested first (`float_scaled`);
 *   - fast path, v = m / 2^f with 0 <= f <= 56 (normal floats in [2^-33, 2^24); gnum_float
 *     takes it below 2^-26, gnum_float_prec everywhere): v's ten digits and its fraction
 *     from one 26 x 64-bit product, the interval's ends in the same units from shifts, then
 *     every precision 6..9 is a rounding of those digits and two comparisons
 *     (`shortest_fast`);
 *   - any other float: the same comparisons on numbers up to 2^203 in a small bignum,
 *     one precision after the other. */
#include <stdint.h>
#include <string.h>

#include "io/bigint.h"
#include "io/numtext.h"

#if defined(__GNUC__) || defined(__clang__)
#define GNUM_NOINLINE __attribute__((noinline))
#else
#define GNUM_NOINLINE
#endif

static const uint64_t POW10[20] = {
    1u,
    10u,
    100u,
    1000u,
    10000u,
    100000u,
    1000000u,
    10000000u,
    100000000u,
    1000000000u,
    10000000000u,
    100000000000u,
    1000000000000u,
    10000000000000u,
    100000000000000u,
    1000000000000000u,
    10000000000000000u,
    100000000000000000u,
    1000000000000000000u,
    10000000000000000000u,
};

/* floor(log10(2^b)) for |b| <= 1650 (78913 / 2^18 is log10(2) from below): the product
 * made positive by 512 * 2^18 (a multiple of 2^18, more than 1650 * 78913), so that the
 * shift floors it. */
static int floor_log10_pow2(int b) { return (int)((uint32_t)(b * 78913 + (512 << 18)) >> 18) - 512; }

static int bit_length(uint32_t m)
{
    int n = 0;
    while (m) n++, m >>= 1;
    return n;
}

static const char DIGITS2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

/* ---- the general path's numbers: io/bigint.h's words, 256 bits ------------------------- */

#define BIG_LIMBS 8 /* 256 bits: the largest number compared is below 2^203 */

typedef struct {
    uint32_t w[BIG_LIMBS];
    int n; /* limbs in use; the number is 0 when n == 0 */
} big;

/* x * 2^p2 * 10^p10 */
static big big_make(uint64_t x, int p2, int p10)
{
    big a;
    gbig_set(a.w, &a.n, x);
    gbig_mul_pow10(a.w, &a.n, BIG_LIMBS, p10);
    gbig_shl(a.w, &a.n, BIG_LIMBS, p2);
    return a;
}

static int imax(int a, int b) { return a > b ? a : b; }

/* A float's parts: v = m * 2^e; `lower_quarter` when the step below v is half the step
 * above (v a power of two above the smallest normal). */
typedef struct {
    uint32_t m;
    int e;
    int lower_quarter;
} fparts;

/* Is v >= 10^y? */
static int big_at_least_pow10(const fparts *p, int y)
{
    big a = big_make(p->m, imax(p->e, 0), imax(-y, 0));
    big b = big_make(1, imax(-p->e, 0), imax(y, 0));
    return gbig_cmp(a.w, a.n, b.w, b.n) >= 0;
}

/* An estimate of v * 10^-k, close enough that a step or two corrects it exactly. */
static uint64_t estimate(const fparts *p, int k)
{
    double t = (double)p->m;
    for (int e = p->e; e > 0; e -= e > 60 ? 60 : e) t *= (double)((uint64_t)1 << (e > 60 ? 60 : e));
    for (int e = -p->e; e > 0; e -= e > 60 ? 60 : e) t /= (double)((uint64_t)1 << (e > 60 ? 60 : e));
    for (int j = -k; j > 0; j -= j > 19 ? 19 : j) t *= (double)POW10[j > 19 ? 19 : j];
    for (int j = k; j > 0; j -= j > 19 ? 19 : j) t /= (double)POW10[j > 19 ? 19 : j];
    return t < 1 ? 1 : t > 1e10 ? (uint64_t)1e10 : (uint64_t)t;
}

/* The general path: q (v rounded to P digits, 10^P when it carries) for v's X; returns
 * whether q * 10^k reads back as v. */
static int round_big(const fparts *p, int prec, int x, uint32_t *q_out)
{
    int k = x - prec + 1;
    big num = big_make(p->m, imax(p->e, 0), imax(-k, 0));
    int den2 = imax(-p->e, 0), den10 = imax(k, 0);
    uint64_t q = estimate(p, k);
    for (;;) { /* floor(num / den): q * den <= num < (q + 1) * den */
        big lo = big_make(q, den2, den10);
        if (gbig_cmp(lo.w, lo.n, num.w, num.n) > 0) {
            q--;
            continue;
        }
        big hi = big_make(q + 1, den2, den10);
        if (gbig_cmp(hi.w, hi.n, num.w, num.n) <= 0) {
            q++;
            continue;
        }
        break;
    }
    big twice = num, mid = big_make(2 * q + 1, den2, den10);
    gbig_shl(twice.w, &twice.n, BIG_LIMBS, 1);
    int c = gbig_cmp(twice.w, twice.n, mid.w, mid.n);
    int up = c > 0 || (c == 0 && (q & 1));
    q += (uint64_t)up;
    *q_out = (uint32_t)q;
    /* In units of 2^(e-2) * 10^min(k, 0): D = q * 10^max(k,0) * 2^(max(-e,0) + 2), the
     * interval (4m -+ 2 or 4m - 1, 4m + 2) * 2^max(e,0) * 10^max(-k,0). */
    big d = big_make(q, den2 + 2, den10);
    int even = !(p->m & 1);
    big lo = big_make(4 * (uint64_t)p->m - (p->lower_quarter ? 1u : 2u), imax(p->e, 0), imax(-k, 0));
    big hi = big_make(4 * (uint64_t)p->m + 2u, imax(p->e, 0), imax(-k, 0));
    int cl = gbig_cmp(d.w, d.n, lo.w, lo.n), ch = gbig_cmp(d.w, d.n, hi.w, hi.n);
    return even ? cl >= 0 && ch <= 0 : cl > 0 && ch < 0;
}

/* The fast path's numbers, in units of u = 10^(X-9) (v < 10^(X+1) is below 10^10 u):
 * v = 4m * pk / 2^s with pk = 10^(9-X) <= 10^19 and s = f + 2 <= 58, as q10 = floor(v)
 * and its fraction `fv` in units of 2^-s. */
typedef struct {
    uint64_t q10, fv, pk, mask; /* mask: 2^s - 1 */
    int s;
} fixed10;

static inline fixed10 fixed_make(const fparts *p, int x)
{
    fixed10 r;
    uint64_t pk = POW10[9 - x], c = 4 * (uint64_t)p->m; /* X in -10..7: pk is 10^2 .. 10^19 */
    int s = 2 - p->e;
    uint64_t lo = (pk & 0xffffffffu) * c, hi = (pk >> 32) * c; /* c * pk = nh * 2^32 + nl */
    uint64_t nh = hi + (lo >> 32), nl = lo & 0xffffffffu;      /* nh < 2^59 */
    r.mask = ((uint64_t)1 << s) - 1;
    if (s >= 32) {
        r.q10 = nh >> (s - 32);
        r.fv = ((nh << 32) | nl) & r.mask;
    } else {
        r.q10 = (nh << (32 - s)) | (nl >> s); /* below 2^64: nothing of nh is lost */
        r.fv = nl & r.mask;
    }
    r.pk = pk;
    r.s = s;
    return r;
}

/* q10 (v's ten digits, their floor; `sticky` when anything was left) rounded to nearest
 * at the digit worth d = 10^j (ties to even): v rounded to 10 - j digits. */
static inline uint64_t round_at(uint64_t q10, int sticky, uint64_t d)
{
    uint64_t q = q10 / d, r = q10 % d;
    return q + (uint64_t)(r > d / 2 || (r == d / 2 && (sticky || (q & 1))));
}

/* The fast path (v = m / 2^f, 0 <= f <= 56, 2^23 <= m < 2^24): the shortest precision
 * 6..9 whose text reads back, and its q. v's rounding interval is v - 2 or 1 quarter
 * steps (a quarter step below a power of two) to v + 2, a quarter step being pk / 2^s
 * units; the P-digit text, D = q * 10^(10-P) units (an integer), reads back exactly when
 * lmin <= D <= hmax, the smallest and largest integers inside the interval (endpoints
 * when m is even, as strtof rounds ties to even). Every P's rounding is q10's lower
 * digits and whether fv is 0: one product for every precision. */
static int shortest_fast(const fparts *p, int x, uint32_t *q_out)
{
    fixed10 v = fixed_make(p, x);
    int even = !(p->m & 1), sticky = v.fv != 0, a = p->lower_quarter ? 0 : 1;
    /* the interval reaches 2 quarter steps above v, 2 below (a = 1) or 1 below a power of two
     * (a = 0): 2pk / 2^s and 2^a pk / 2^s units, each an integer part and a fraction */
    uint64_t hi_i = v.pk >> (v.s - 1), hi_f = (v.pk << 1) & v.mask;
    uint64_t lo_i = v.pk >> (v.s - a), lo_f = (v.pk << a) & v.mask;
    uint64_t sum = v.fv + hi_f; /* below 2^59 */
    uint64_t hi = v.q10 + hi_i + (sum >> v.s), lo = v.q10 - lo_i - (uint64_t)(v.fv < lo_f);
    int hi_exact = (sum & v.mask) == 0, lo_exact = v.fv == lo_f;
    uint64_t lmin = lo + (uint64_t) !(even && lo_exact), hmax = hi - (uint64_t)(!even && hi_exact);
    uint64_t q = round_at(v.q10, sticky, 10000u); /* q * 10^(10-P) in the interval: P reads back */
    int prec = 6;
    if (q * 10000u < lmin || q * 10000u > hmax) {
        prec = 7;
        q = round_at(v.q10, sticky, 1000u);
        if (q * 1000u < lmin || q * 1000u > hmax) {
            prec = 8;
            q = round_at(v.q10, sticky, 100u);
            if (q * 100u < lmin || q * 100u > hmax) {
                prec = 9; /* nine digits always read back */
                q = round_at(v.q10, sticky, 10u);
            }
        }
    }
    *q_out = (uint32_t)q;
    return prec;
}

/* The fast path at one precision (gnum_float_prec): v rounded to P digits. */
static uint32_t round_fast(const fparts *p, int prec, int x)
{
    fixed10 v = fixed_make(p, x);
    return (uint32_t)round_at(v.q10, v.fv != 0, POW10[10 - prec]);
}

/* P digits, trailing zeros gone, in printf's %g layout for precision P and exponent X. */
static inline size_t place(char *out, int neg, const char *dig, int prec, int x)
{
    int nd = prec;
    while (nd > 1 && dig[nd - 1] == '0') nd--;
    char *o = out;
    if (neg) *o++ = '-';
    if (x < -4 || x >= prec) { /* d[.ddd]e+XX */
        *o++ = dig[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, dig + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100) *o++ = (char)('0' + ax / 100);
        *o++ = (char)('0' + ax / 10 % 10);
        *o++ = (char)('0' + ax % 10);
    } else if (x >= 0) { /* ddd[.ddd] */
        int whole = x + 1;
        for (int i = 0; i < whole; i++) *o++ = i < nd ? dig[i] : '0';
        if (nd > whole) {
            *o++ = '.';
            memcpy(o, dig + whole, (size_t)(nd - whole));
            o += nd - whole;
        }
    } else { /* 0.000ddd */
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -x - 1; i++) *o++ = '0';
        memcpy(o, dig, (size_t)nd);
        o += nd;
    }
    return (size_t)(o - out);
}

/* Eight digits, one a byte of y (the first in the lowest), as text at out. */
static inline void store_digits8(char *out, uint64_t y)
{
    y += 0x3030303030303030u;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, &y, 8);
#else
    for (int i = 0; i < 8; i++) out[i] = (char)(y >> (8 * i));
#endif
}

/* How many bytes of y (nonzero) are zero above its highest nonzero one. */
static inline int zero_bytes_above(uint64_t y)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_clzll(y) >> 3;
#else
    int n = 0;
    while (!(y >> 56)) n++, y <<= 8;
    return n;
#endif
}

/* q's P digits (a float's: q < 10^P, P <= 9) in printf's %g layout for exponent X (as
 * place, for doubles): the nine digits made at once, then copied in fixed-size pieces;
 * bytes past the text's end, up to out + GNUM_FLOAT_CHARS, are written too. */
static size_t layout(char *out, int neg, uint32_t q, int prec, int x)
{
    char dig[32]; /* q's nine digits, then zeros for the fixed-size copies */
    /* the last eight digits at once, one a byte (the first in the lowest): 4 + 4 in 32-bit
     * lanes, 2 + 2 in 16-bit lanes (/100 as * 10486 >> 20, exact below 10^4), 1 + 1 in
     * bytes (/10 as * 103 >> 10, exact below 100) */
    uint32_t top = prec == 9 ? q / 100000000u : 0, lo8 = q - top * 100000000u;
    uint64_t y = lo8 / 10000u | (uint64_t)(lo8 % 10000u) << 32;
    uint64_t h = (y * 10486u >> 20) & 0x0000007f0000007fu;
    y = h | (y - h * 100u) << 16;
    h = (y * 103u >> 10) & 0x000f000f000f000fu;
    y = h | (y - h * 10u) << 8;
    dig[0] = (char)('0' + top);
    store_digits8(dig + 1, y);
    memcpy(dig + 9, "0000000000000000", 16);
    /* the digits up to the last nonzero one: q's first digit is nonzero, and a zero byte of
     * y (from the top) is a trailing zero */
    int nd = prec - (y ? zero_bytes_above(y) : 8);
    const char *d = dig + 9 - prec;
    char *o = out;
    *o = '-';
    o += neg;
    if (x >= 0 && x < prec) { /* ddd[.ddd]: X + 1 digits, then the point and the rest */
        memcpy(o, d, 16);
        memcpy(o + x + 2, d + x + 1, 8); /* nd - X - 1 <= 8 */
        o[x + 1] = '.';
        return (size_t)(o - out) + (size_t)(nd > x + 1 ? nd + 1 : x + 1);
    }
    if (x < 0 && x >= -4) { /* 0.000ddd */
        memcpy(o, "0.000000", 8);
        memcpy(o + 1 - x, d, 16);
        return (size_t)(o - out) + (size_t)(1 - x + nd);
    }
    o[0] = d[0]; /* d[.ddd]e+XX */
    o[1] = '.';
    memcpy(o + 2, d + 1, 8);
    o += nd > 1 ? nd + 1 : 1;
    *o++ = 'e';
    *o++ = x < 0 ? '-' : '+';
    int ax = x < 0 ? -x : x;
    if (ax >= 100) *o++ = (char)('0' + ax / 100);
    *o++ = (char)('0' + ax / 10 % 10);
    *o++ = (char)('0' + ax % 10);
    return (size_t)(o - out);
}

/* v's parts and X; returns 0 for a zero (and non-finite values, which callers map). */
static inline int decompose(float v, int *neg, fparts *p, int *x)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    uint32_t bexp = (u >> 23) & 0xffu, frac = u & 0x7fffffu;
    *neg = bexp != 0xffu && (u >> 31);
    if (bexp == 0xffu || (bexp == 0 && frac == 0)) return 0;
    p->m = bexp ? frac | 0x800000u : frac;
    p->e = bexp ? (int)bexp - 150 : -149;
    p->lower_quarter = frac == 0 && bexp > 1;
    /* v in [2^b, 2^(b+1)): X is floor(b log10 2) or one more */
    int b = (bexp ? 23 : bit_length(p->m) - 1) + p->e, y = floor_log10_pow2(b) + 1;
    int more;
    if (p->e <= 0 && p->e >= -56) { /* exact in 64 bits: m < 2^24, 10^y <= 10^8, 10^-y <= 10^10 */
        int f = -p->e;
        more = y >= 0 ? p->m >= (POW10[y] << f) : ((uint64_t)p->m * POW10[-y]) >> f >= 1;
    } else {
        more = big_at_least_pow10(p, y);
    }
    *x = y - 1 + more;
    return 1;
}

/* Normal floats in [2^-33, 2^24) can take the 64-bit path (gnum_float: those below 2^-26). */
static int fast(const fparts *p) { return p->e <= 0 && p->e >= -56; }

static size_t finish(char *out, int neg, uint32_t q, int prec, int x)
{
    if (q == (uint32_t)POW10[prec]) q /= 10, x++; /* rounded up to the next power of ten */
    return layout(out, neg, q, prec, x);
}

static size_t zero(char *out, int neg)
{
    memcpy(out, "-0", 2);
    if (neg) return 2;
    out[0] = '0';
    return 1;
}

/* ---- the scaled path: normal floats in [2^-26, 2^24), one 64-bit product ------------------
 * For X in -8..7, j = 8 - X <= 16: v in units of u = 10^(X-8) (v < 10^(X+1) is below 10^9 u)
 * is v * 10^j = 4m * 5^j * 2^(j+e-2), and 4m * 5^j < 2^26 * 5^16 < 2^64. So n = 4m * C is v
 * in units of 2^-t u, exactly, with t = max(1, 2-e-j) and C = 5^j * 2^(j+e-2+t); C is a
 * quarter step of v (2^(e-2)) in the same units. The interval's ends are n + 2C and n - 2C
 * (n - C below a power of two). Its endpoints never matter here: an endpoint is an odd
 * multiple of 2^(e-1) or 2^(e-2), with f + 1 or more decimals (f = -e), and a P-digit text
 * (P <= 8) has at most P - 1 - X of them, so the two could be equal only for f + X <= P - 2,
 * i.e. f = 0, X = 6, P = 8: integers of 7 digits, whose 7-digit text is v itself. So a text
 * D (an integer in units u for P <= 8) reads back exactly when
 * floor((n - L) / 2^t) < D <= floor((n + 2C) / 2^t). */
typedef struct {
    uint64_t c4; /* 4C: v = m * c4 / 2^t units u */
    int t, x;
} fscale_x;

typedef struct {
    uint32_t thr;   /* v >= 10^y (X = y rather than y - 1) when m >= thr (2^24: never) */
    fscale_x sc[2]; /* X = y - 1, X = y */
} fscale;

/* bexp 101..150, made in exact arithmetic by a script (docs/benchmarks.md, "Twenty-seventh
 * session (numy)"); test_numtext checks every entry's floats around thr and at the binade's
 * ends against the C library (`scaled_binades`), and every float it covers was compared with
 * the previous code. */
static const fscale FSCALE[50] = {
    { 16777216u, { { 610351562500u, 35, -8 }, { 122070312500u, 36, -7 } } }, /* 101 */
    { 16777216u, { { 610351562500u, 34, -8 }, { 122070312500u, 35, -7 } } }, /* 102 */
    { 14073749u, { { 610351562500u, 33, -8 }, { 122070312500u, 34, -7 } } }, /* 103 */
    { 16777216u, { { 122070312500u, 33, -7 }, { 24414062500u, 34, -6 } } },  /* 104 */
    { 16777216u, { { 122070312500u, 32, -7 }, { 24414062500u, 33, -6 } } },  /* 105 */
    { 16777216u, { { 122070312500u, 31, -7 }, { 24414062500u, 32, -6 } } },  /* 106 */
    { 8796094u, { { 122070312500u, 30, -7 }, { 24414062500u, 31, -6 } } },   /* 107 */
    { 16777216u, { { 24414062500u, 30, -6 }, { 4882812500u, 31, -5 } } },    /* 108 */
    { 16777216u, { { 24414062500u, 29, -6 }, { 4882812500u, 30, -5 } } },    /* 109 */
    { 10995117u, { { 24414062500u, 28, -6 }, { 4882812500u, 29, -5 } } },    /* 110 */
    { 16777216u, { { 4882812500u, 28, -5 }, { 976562500u, 29, -4 } } },      /* 111 */
    { 16777216u, { { 4882812500u, 27, -5 }, { 976562500u, 28, -4 } } },      /* 112 */
    { 13743896u, { { 4882812500u, 26, -5 }, { 976562500u, 27, -4 } } },      /* 113 */
    { 16777216u, { { 976562500u, 26, -4 }, { 195312500u, 27, -3 } } },       /* 114 */
    { 16777216u, { { 976562500u, 25, -4 }, { 195312500u, 26, -3 } } },       /* 115 */
    { 16777216u, { { 976562500u, 24, -4 }, { 195312500u, 25, -3 } } },       /* 116 */
    { 8589935u, { { 976562500u, 23, -4 }, { 195312500u, 24, -3 } } },        /* 117 */
    { 16777216u, { { 195312500u, 23, -3 }, { 39062500u, 24, -2 } } },        /* 118 */
    { 16777216u, { { 195312500u, 22, -3 }, { 39062500u, 23, -2 } } },        /* 119 */
    { 10737419u, { { 195312500u, 21, -3 }, { 39062500u, 22, -2 } } },        /* 120 */
    { 16777216u, { { 39062500u, 21, -2 }, { 7812500u, 22, -1 } } },          /* 121 */
    { 16777216u, { { 39062500u, 20, -2 }, { 7812500u, 21, -1 } } },          /* 122 */
    { 13421773u, { { 39062500u, 19, -2 }, { 7812500u, 20, -1 } } },          /* 123 */
    { 16777216u, { { 7812500u, 19, -1 }, { 1562500u, 20, 0 } } },            /* 124 */
    { 16777216u, { { 7812500u, 18, -1 }, { 1562500u, 19, 0 } } },            /* 125 */
    { 16777216u, { { 7812500u, 17, -1 }, { 1562500u, 18, 0 } } },            /* 126 */
    { 16777216u, { { 1562500u, 17, 0 }, { 312500u, 18, 1 } } },              /* 127 */
    { 16777216u, { { 1562500u, 16, 0 }, { 312500u, 17, 1 } } },              /* 128 */
    { 16777216u, { { 1562500u, 15, 0 }, { 312500u, 16, 1 } } },              /* 129 */
    { 10485760u, { { 1562500u, 14, 0 }, { 312500u, 15, 1 } } },              /* 130 */
    { 16777216u, { { 312500u, 14, 1 }, { 62500u, 15, 2 } } },                /* 131 */
    { 16777216u, { { 312500u, 13, 1 }, { 62500u, 14, 2 } } },                /* 132 */
    { 13107200u, { { 312500u, 12, 1 }, { 62500u, 13, 2 } } },                /* 133 */
    { 16777216u, { { 62500u, 12, 2 }, { 12500u, 13, 3 } } },                 /* 134 */
    { 16777216u, { { 62500u, 11, 2 }, { 12500u, 12, 3 } } },                 /* 135 */
    { 16384000u, { { 62500u, 10, 2 }, { 12500u, 11, 3 } } },                 /* 136 */
    { 16777216u, { { 12500u, 10, 3 }, { 2500u, 11, 4 } } },                  /* 137 */
    { 16777216u, { { 12500u, 9, 3 }, { 2500u, 10, 4 } } },                   /* 138 */
    { 16777216u, { { 12500u, 8, 3 }, { 2500u, 9, 4 } } },                    /* 139 */
    { 10240000u, { { 12500u, 7, 3 }, { 2500u, 8, 4 } } },                    /* 140 */
    { 16777216u, { { 2500u, 7, 4 }, { 500u, 8, 5 } } },                      /* 141 */
    { 16777216u, { { 2500u, 6, 4 }, { 500u, 7, 5 } } },                      /* 142 */
    { 12800000u, { { 2500u, 5, 4 }, { 500u, 6, 5 } } },                      /* 143 */
    { 16777216u, { { 500u, 5, 5 }, { 100u, 6, 6 } } },                       /* 144 */
    { 16777216u, { { 500u, 4, 5 }, { 100u, 5, 6 } } },                       /* 145 */
    { 16000000u, { { 500u, 3, 5 }, { 100u, 4, 6 } } },                       /* 146 */
    { 16777216u, { { 100u, 3, 6 }, { 20u, 4, 7 } } },                        /* 147 */
    { 16777216u, { { 100u, 2, 6 }, { 20u, 3, 7 } } },                        /* 148 */
    { 16777216u, { { 100u, 1, 6 }, { 20u, 2, 7 } } },                        /* 149 */
    { 10000000u, { { 200u, 1, 6 }, { 20u, 1, 7 } } },                        /* 150 */
};

/* Powers of two, 2^-26 .. 2^23: their text (made by the same script, from %.*g and a
 * read-back), q of P digits for exponent X. */
typedef struct {
    uint32_t q;
    int prec, x;
} fpow2;

static const fpow2 FPOW2[50] = {
    { 14901161u, 8, -8 }, /* 2^-26: 1.4901161e-08 */
    { 29802322u, 8, -8 }, /* 2^-25: 2.9802322e-08 */
    { 59604645u, 8, -8 }, /* 2^-24: 5.9604645e-08 */
    { 11920929u, 8, -7 }, /* 2^-23: 1.1920929e-07 */
    { 23841858u, 8, -7 }, /* 2^-22: 2.3841858e-07 */
    { 47683716u, 8, -7 }, /* 2^-21: 4.7683716e-07 */
    { 9536743u, 7, -7 },  /* 2^-20: 9.536743e-07 */
    { 19073486u, 8, -6 }, /* 2^-19: 1.9073486e-06 */
    { 38146973u, 8, -6 }, /* 2^-18: 3.8146973e-06 */
    { 76293945u, 8, -6 }, /* 2^-17: 7.6293945e-06 */
    { 15258789u, 8, -5 }, /* 2^-16: 1.5258789e-05 */
    { 30517578u, 8, -5 }, /* 2^-15: 3.0517578e-05 */
    { 61035156u, 8, -5 }, /* 2^-14: 6.1035156e-05 */
    { 12207031u, 8, -4 }, /* 2^-13: 0.00012207031 */
    { 24414062u, 8, -4 }, /* 2^-12: 0.00024414062 */
    { 48828125u, 8, -4 }, /* 2^-11: 0.00048828125 */
    { 9765625u, 7, -4 },  /* 2^-10: 0.0009765625 */
    { 1953125u, 7, -3 },  /* 2^-9: 0.001953125 */
    { 390625u, 6, -3 },   /* 2^-8: 0.00390625 */
    { 781250u, 6, -3 },   /* 2^-7: 0.0078125 */
    { 156250u, 6, -2 },   /* 2^-6: 0.015625 */
    { 312500u, 6, -2 },   /* 2^-5: 0.03125 */
    { 625000u, 6, -2 },   /* 2^-4: 0.0625 */
    { 125000u, 6, -1 },   /* 2^-3: 0.125 */
    { 250000u, 6, -1 },   /* 2^-2: 0.25 */
    { 500000u, 6, -1 },   /* 2^-1: 0.5 */
    { 100000u, 6, 0 },    /* 2^0: 1 */
    { 200000u, 6, 0 },    /* 2^1: 2 */
    { 400000u, 6, 0 },    /* 2^2: 4 */
    { 800000u, 6, 0 },    /* 2^3: 8 */
    { 160000u, 6, 1 },    /* 2^4: 16 */
    { 320000u, 6, 1 },    /* 2^5: 32 */
    { 640000u, 6, 1 },    /* 2^6: 64 */
    { 128000u, 6, 2 },    /* 2^7: 128 */
    { 256000u, 6, 2 },    /* 2^8: 256 */
    { 512000u, 6, 2 },    /* 2^9: 512 */
    { 102400u, 6, 3 },    /* 2^10: 1024 */
    { 204800u, 6, 3 },    /* 2^11: 2048 */
    { 409600u, 6, 3 },    /* 2^12: 4096 */
    { 819200u, 6, 3 },    /* 2^13: 8192 */
    { 163840u, 6, 4 },    /* 2^14: 16384 */
    { 327680u, 6, 4 },    /* 2^15: 32768 */
    { 655360u, 6, 4 },    /* 2^16: 65536 */
    { 131072u, 6, 5 },    /* 2^17: 131072 */
    { 262144u, 6, 5 },    /* 2^18: 262144 */
    { 524288u, 6, 5 },    /* 2^19: 524288 */
    { 1048576u, 7, 6 },   /* 2^20: 1048576 */
    { 2097152u, 7, 6 },   /* 2^21: 2097152 */
    { 4194304u, 7, 6 },   /* 2^22: 4194304 */
    { 8388608u, 7, 6 },   /* 2^23: 8388608 */
};

/* v (q9 units u, `half` its fraction's first bit, `below` whether any bit after it is set)
 * rounded at the digit worth d (ties to even): q; returns whether its text (q * d units,
 * P = 9 - log10 d <= 8) reads back, lo <= D <= lo + w. */
static int scaled_reads(uint32_t q9, uint32_t half, uint32_t below, uint32_t d, uint32_t lo, uint32_t w, uint32_t *q)
{
    uint32_t k = q9 / d, r = q9 - k * d;
    k += 2 * r + half + (below | (k & 1u)) > d;
    *q = k;
    return k * d - lo <= w;
}

/* The scaled path's rare case: v's fraction in units u 0 or 1/2 (a tie possible): P = 6,
 * 7, 8 tested in turn, each rounded to even. */
static GNUM_NOINLINE size_t scaled_rare(char *out, uint32_t u)
{
    uint32_t bexp = (u >> 23) & 0xffu, m = (u & 0x7fffffu) | 0x800000u;
    const fscale *f = &FSCALE[bexp - 101u];
    const fscale_x *sc = &f->sc[m >= f->thr];
    uint64_t n = m * sc->c4;
    int t = sc->t, prec = 6;
    uint32_t q9 = (uint32_t)(n >> t), q = 0, half = (uint32_t)(n >> (t - 1)) & 1u;
    uint32_t below = t > 1 && (n & (((uint64_t)1 << (t - 1)) - 1)) != 0;
    uint32_t lo = (uint32_t)((n - (sc->c4 >> 1)) >> t) + 1, w = (uint32_t)((n + (sc->c4 >> 1)) >> t) - lo;
    while (prec < 9 && !scaled_reads(q9, half, below, (uint32_t)POW10[9 - prec], lo, w, &q)) prec++;
    if (prec == 9) (void)scaled_reads(q9, half, below, 1u, lo, w, &q);
    return finish(out, (int)(u >> 31), q, prec, sc->x);
}

/* v = m * 2^(bexp-150), bexp 101..150 (2^23 <= m < 2^24): its text at the shortest
 * precision 6..9 that reads back; a power of two's from FPOW2. Elsewhere the interval is symmetric and
 * its endpoints never matter, and D(P+1) is no farther from v than D(P) (the nearest
 * multiple of a finer step; a tie to even picks D(P) itself): if P reads back, so does
 * P + 1. So P = 8 first (the most common), then 7 and 6 while they read back, else 9.
 * With v's fraction neither 0 nor 1/2 (nearly always) no rounding is a tie: q = (q9 + d/2)
 * / d, and q9 + the fraction's first bit for P = 9. */
static inline size_t float_scaled(char *out, uint32_t u)
{
    uint32_t bexp = (u >> 23) & 0xffu, frac = u & 0x7fffffu;
    int neg = (int)(u >> 31);
    if (frac == 0) return layout(out, neg, FPOW2[bexp - 101u].q, FPOW2[bexp - 101u].prec, FPOW2[bexp - 101u].x);
    const fscale *f = &FSCALE[bexp - 101u];
    uint32_t m = frac | 0x800000u;
    const fscale_x *sc = &f->sc[m >= f->thr];
    uint64_t c4 = sc->c4, n = m * c4;
    int t = sc->t, x = sc->x;
    if ((n >> (t - 1) << (t - 1)) == n) return scaled_rare(out, u);
    uint32_t q9 = (uint32_t)(n >> t); /* v's nine digits, their floor */
    uint64_t h = c4 >> 1;
    uint32_t lo = (uint32_t)((n - h) >> t) + 1, w = (uint32_t)((n + h) >> t) - lo;
    uint32_t q8 = (q9 + 5u) / 10u;
    if (q8 * 10u - lo > w) return finish(out, neg, q9 + ((uint32_t)(n >> (t - 1)) & 1u), 9, x);
    uint32_t q7 = (q9 + 50u) / 100u;
    if (q7 * 100u - lo > w) return finish(out, neg, q8, 8, x);
    uint32_t q6 = (q9 + 500u) / 1000u;
    if (q6 * 1000u - lo > w) return finish(out, neg, q7, 7, x);
    return finish(out, neg, q6, 6, x);
}

/* gnum_float's other floats: zeros, the 64-bit path's lowest, the bignum path. */
static GNUM_NOINLINE size_t float_other(char *out, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    if (!(u << 1)) return zero(out, (int)(u >> 31));
    int neg, x;
    fparts p;
    if (!decompose(v, &neg, &p, &x)) {
        return zero(out, neg);
    }
    uint32_t q = 0;
    int prec = 6;
    if (fast(&p)) prec = shortest_fast(&p, x, &q);
    else {
        while (!round_big(&p, prec, x, &q) && prec < 9) prec++;
    }
    return finish(out, neg, q, prec, x);
}

size_t gnum_float(char *out, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    uint32_t bexp = (u >> 23) & 0xffu;
    if (bexp - 101u > 49u) return float_other(out, v); /* not a normal float in [2^-26, 2^24) */
    return float_scaled(out, u);
}

size_t gnum_float_prec(char *out, float v, int prec)
{
    int neg, x;
    fparts p;
    if (!decompose(v, &neg, &p, &x) || prec < 1 || prec > 9) {
        return zero(out, neg);
    }
    uint32_t q = 0;
    if (fast(&p)) q = round_fast(&p, prec, x);
    else (void)round_big(&p, prec, x, &q);
    return finish(out, neg, q, prec, x);
}

/* ---- doubles ----------------------------------------------------------------------------
 * The same rules for v = m * 2^e, m < 2^53, -1074 <= e <= 971, at precisions 1..17 (17
 * digits always read back). The value is divided once: q18 = floor(v / 10^(X-17)), its 18
 * digits, and whether anything was left (`sticky`); every precision's rounding is then
 * an integer test on q18's lower digits. The read-back test compares D with v's rounding
 * interval as the float path does, on numbers below 2^1190. */

#define DBIG_LIMBS 40 /* 1280 bits: the largest number compared is below 2^1190 */

typedef struct {
    uint32_t w[DBIG_LIMBS];
    int n;
} dbig;

/* x * 2^p2 * 10^p10 */
static dbig dbig_make(uint64_t x, int p2, int p10)
{
    dbig a;
    gbig_set(a.w, &a.n, x);
    gbig_mul_pow10(a.w, &a.n, DBIG_LIMBS, p10);
    gbig_shl(a.w, &a.n, DBIG_LIMBS, p2);
    return a;
}

static int dbig_cmp(const dbig *a, const dbig *b) { return gbig_cmp(a->w, a->n, b->w, b->n); }

/* a = floor(a / d), d > 0; returns whether a remainder was left. */
static int dbig_div_small(dbig *a, uint32_t d)
{
    uint64_t r = 0;
    for (int i = a->n - 1; i >= 0; i--) {
        uint64_t t = (r << 32) | a->w[i];
        a->w[i] = (uint32_t)(t / d);
        r = t % d;
    }
    while (a->n > 0 && a->w[a->n - 1] == 0) a->n--;
    return r != 0;
}

/* a >> s (below 2^64 here); *sticky |= whether any of a's bits 0..s-1 is set. */
static uint64_t dbig_shr64(const dbig *a, int s, int *sticky)
{
    int word = s / 32, bit = s % 32;
    for (int i = 0; i < word && i < a->n; i++) *sticky |= a->w[i] != 0;
    if (word < a->n && bit) *sticky |= (a->w[word] & ((1u << bit) - 1u)) != 0;
    uint64_t w0 = word < a->n ? a->w[word] : 0u, w1 = word + 1 < a->n ? a->w[word + 1] : 0u,
             w2 = word + 2 < a->n ? a->w[word + 2] : 0u;
    uint64_t r = (w0 | w1 << 32) >> bit;
    return bit ? r | w2 << (64 - bit) : r;
}

typedef struct {
    uint64_t m;
    int e;
    int lower_quarter;
} dparts;

static int bit_length64(uint64_t m)
{
    int n = 0;
    while (m) n++, m >>= 1;
    return n;
}

/* v's parts and X; returns 0 for a zero or a non-finite value. */
static int ddecompose(double v, int *neg, dparts *p, int *x)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    uint32_t bexp = (uint32_t)(u >> 52) & 0x7ffu;
    uint64_t frac = u & (((uint64_t)1 << 52) - 1);
    *neg = bexp != 0x7ffu && (u >> 63);
    if (bexp == 0x7ffu || (bexp == 0 && frac == 0)) return 0;
    p->m = bexp ? frac | (uint64_t)1 << 52 : frac;
    p->e = bexp ? (int)bexp - 1075 : -1074;
    p->lower_quarter = frac == 0 && bexp > 1;
    /* v in [2^b, 2^(b+1)): X is floor(b log10 2) or one more: is v >= 10^y? */
    int b = bit_length64(p->m) - 1 + p->e, y = floor_log10_pow2(b) + 1, more;
    if (y >= 0 && y <= 22) { /* 10^y is a double exactly */
        static const double P10[23] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
        more = (v < 0 ? -v : v) >= P10[y];
    } else {
        dbig a = dbig_make(p->m, imax(p->e, 0), imax(-y, 0)), c = dbig_make(1, imax(-p->e, 0), imax(y, 0));
        more = dbig_cmp(&a, &c) >= 0;
    }
    *x = y - 1 + more;
    return 1;
}

/* floor(v / 10^(X-17)) (18 digits) and whether a remainder was left. */
static uint64_t digits18(const dparts *p, int x, int *sticky)
{
    int k = x - 17;
    dbig a = dbig_make(p->m, imax(p->e, 0), imax(-k, 0));
    *sticky = 0;
    for (int j = k; j > 0; j -= j > 9 ? 9 : j) *sticky |= dbig_div_small(&a, (uint32_t)POW10[j > 9 ? 9 : j]);
    return dbig_shr64(&a, imax(-p->e, 0), sticky);
}

/* v rounded to P digits (10^P when it carries), ties to even. */
static uint64_t dround(uint64_t q18, int sticky, int prec)
{
    uint64_t d = POW10[18 - prec], q = q18 / d, r = q18 % d, half = d / 2;
    return q + (uint64_t)(r > half || (r == half && (sticky || (q & 1))));
}

/* Does q * 10^(X-P+1) read back (strtod, to nearest, ties to even) as v? */
static int dreads_back(const dparts *p, uint64_t q, int prec, int x)
{
    int k = x - prec + 1, even = !(p->m & 1);
    /* in units of 2^(e-2) * 10^min(k, 0), times 2^max(e, 0), as round_big */
    dbig d = dbig_make(q, imax(-p->e, 0) + 2, imax(k, 0));
    dbig lo = dbig_make(4 * p->m - (p->lower_quarter ? 1u : 2u), imax(p->e, 0), imax(-k, 0));
    int cl = dbig_cmp(&d, &lo);
    if (cl < 0 || (cl == 0 && !even)) return 0;
    dbig hi = dbig_make(4 * p->m + 2u, imax(p->e, 0), imax(-k, 0));
    int ch = dbig_cmp(&d, &hi);
    return even ? ch <= 0 : ch < 0;
}

/* q's P digits (P <= 17) in printf's layout; q = 10^P carries to 10^(P-1), X + 1. */
static size_t dfinish(char *out, int neg, uint64_t q, int prec, int x)
{
    if (q == POW10[prec]) q /= 10, x++;
    char dig[18];
    for (int i = prec; i >= 2; i -= 2, q /= 100) memcpy(dig + i - 2, DIGITS2 + 2 * (q % 100), 2);
    if (prec & 1) dig[0] = (char)('0' + q);
    return place(out, neg, dig, prec, x);
}

size_t gnum_double(char *out, double v)
{
    int neg, x, sticky;
    dparts p;
    if (!ddecompose(v, &neg, &p, &x)) return zero(out, neg);
    uint64_t q18 = digits18(&p, x, &sticky), q = 0;
    int prec = 6;
    for (;; prec++) {
        q = dround(q18, sticky, prec);
        if (prec == 17 || dreads_back(&p, q, prec, x)) break;
    }
    return dfinish(out, neg, q, prec, x);
}

size_t gnum_double_prec(char *out, double v, int prec)
{
    int neg, x, sticky;
    dparts p;
    if (!ddecompose(v, &neg, &p, &x) || prec < 1 || prec > 17) return zero(out, neg);
    uint64_t q18 = digits18(&p, x, &sticky);
    return dfinish(out, neg, dround(q18, sticky, prec), prec, x);
}
