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
 *   - fast path, v = m / 2^f with 0 <= f <= 56 (normal floats in [2^-33, 2^24)): 64-bit
 *     integers and one 24 x 60-bit product;
 *   - any other float: the same comparisons on numbers up to 2^203 in a small bignum. */
#include <stdint.h>
#include <string.h>

#include "io/bigint.h"
#include "io/numtext.h"

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

/* floor(log10(2^b)) for |b| <= 1650 (78913 / 2^18 is log10(2) from below). */
static int floor_log10_pow2(int b)
{
    int32_t t = (int32_t)b * 78913;
    return t >= 0 ? (int)(t >> 18) : -(int)((-t + (1 << 18) - 1) >> 18);
}

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

/* The fast path (v = m / 2^f, 0 <= f <= 56, 2^23 <= m < 2^24), likewise. */
static int round_fast(const fparts *p, int prec, int x, uint32_t *q_out)
{
    int f = -p->e, k = x - prec + 1, even = !(p->m & 1);
    uint64_t q, r, err;
    int up;
    if (k > 0) { /* X >= P: v >= 10^P, D a multiple of 10^k >= 10 */
        uint64_t d = POW10[k] << f;
        q = p->m / d;
        r = p->m % d;
        up = 2 * r > d || (2 * r == d && (q & 1));
        err = up ? d - r : r; /* in units of 2^-f, half a float step is 1/2: only 0 reads back */
        *q_out = (uint32_t)(q + (uint64_t)up);
        return err == 0;
    }
    /* N = m * 10^-k < 2^84 as nh * 2^32 + nl; q = N >> f, r = N mod 2^f */
    uint64_t pk = POW10[-k]; /* -k = P - 1 - X <= 18 */
    uint64_t lo = (pk & 0xffffffffu) * p->m, hi = (pk >> 32) * p->m;
    uint64_t nh = hi + (lo >> 32), nl = lo & 0xffffffffu;
    if (f >= 32) {
        q = nh >> (f - 32);
        r = ((nh & (((uint64_t)1 << (f - 32)) - 1)) << 32) | nl;
    } else {
        q = (nh << (32 - f)) | (nl >> f);
        r = nl & (((uint64_t)1 << f) - 1);
    }
    if (f == 0) {
        *q_out = (uint32_t)q;
        return 1;
    }
    uint64_t half = (uint64_t)1 << (f - 1);
    up = r > half || (r == half && (q & 1));
    err = up ? 2 * half - r : r; /* |D - v| = err * 2^-f * 10^k */
    *q_out = (uint32_t)(q + (uint64_t)up);
    /* against half a float step, 2^(-f-1): 2 * err * 10^k vs 1; a quarter step below a power of two */
    uint64_t scaled = (!up && p->lower_quarter ? 4 : 2) * err;
    return even ? scaled <= pk : scaled < pk;
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

/* q's P digits (a float's: P <= 9) in that layout. */
static size_t layout(char *out, int neg, uint32_t q, int prec, int x)
{
    char dig[10];
    for (int i = prec; i >= 2; i -= 2, q /= 100) memcpy(dig + i - 2, DIGITS2 + 2 * (q % 100), 2);
    if (prec & 1) dig[0] = (char)('0' + q);
    return place(out, neg, dig, prec, x);
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

static int round_prec(const fparts *p, int prec, int x, uint32_t *q)
{
    if (p->e <= 0 && p->e >= -56) return round_fast(p, prec, x, q);
    return round_big(p, prec, x, q);
}

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

size_t gnum_float(char *out, float v)
{
    int neg, x;
    fparts p;
    if (!decompose(v, &neg, &p, &x)) {
        return zero(out, neg);
    }
    uint32_t q = 0;
    int prec = 6;
    while (!round_prec(&p, prec, x, &q) && prec < 9) prec++;
    return finish(out, neg, q, prec, x);
}

size_t gnum_float_prec(char *out, float v, int prec)
{
    int neg, x;
    fparts p;
    if (!decompose(v, &neg, &p, &x) || prec < 1 || prec > 9) {
        return zero(out, neg);
    }
    uint32_t q = 0;
    (void)round_prec(&p, prec, x, &q);
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
