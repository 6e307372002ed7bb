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
 *   - fast path, v = m / 2^f with 0 <= f <= 56 (normal floats in [2^-33, 2^24)): v's ten
 *     digits and its fraction from one 26 x 64-bit product, the interval's ends in the
 *     same units from shifts, then every precision 6..9 is a rounding of those digits and
 *     two comparisons (`shortest_fast`);
 *   - any other float: the same comparisons on numbers up to 2^203 in a small bignum,
 *     one precision after the other. */
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

/* q's P digits (a float's: q < 10^P, P <= 9) in printf's %g layout for exponent X (as
 * place, for doubles): the nine digits made at once, then copied in fixed-size pieces;
 * bytes past the text's end, up to out + GNUM_FLOAT_CHARS, are written too. */
static size_t layout(char *out, int neg, uint32_t q, int prec, int x)
{
    char dig[32]; /* q's nine digits, then zeros for the fixed-size copies */
    memset(dig, '0', sizeof dig);
    uint32_t hi = q / 10000u, lo = q % 10000u; /* hi < 10^5 */
    dig[0] = (char)('0' + hi / 10000u);
    memcpy(dig + 1, DIGITS2 + 2 * (hi / 100u % 100u), 2);
    memcpy(dig + 3, DIGITS2 + 2 * (hi % 100u), 2);
    memcpy(dig + 5, DIGITS2 + 2 * (lo / 100u), 2);
    memcpy(dig + 7, DIGITS2 + 2 * (lo % 100u), 2);
    const char *d = dig + 9 - prec;
    int nd = prec; /* the digits up to the last nonzero one */
    while (nd > 1 && d[nd - 1] == '0') nd--;
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

/* Normal floats in [2^-33, 2^24) take the 64-bit path. */
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

size_t gnum_float(char *out, float v)
{
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
