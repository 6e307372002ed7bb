/* Decimal text to double and float, correctly rounded (see decimal.h).
 *
 * The value is V = D x 10^e with D the integer of the kept digits. A candidate x (from
 * double arithmetic, a few units in the last place off at worst) is moved to its
 * neighbour while V lies beyond the midpoint between them; the comparisons with the
 * midpoints are exact, on big integers: V ? A x 2^p becomes D x 10^e x 2^-p ? A with
 * the negative powers moved to the other side. Ties go to the even significand. */
#include "io/decimal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "io/bigint.h"

/* ---- scanning ------------------------------------------------------------------------ */

#define EXP_CLAMP 100000L

static int is_digit(char c) { return (unsigned)(c - '0') < 10u; }

/* The digits of the integer part and of the fraction are kept as they are scanned (one
 * pass): `seen` counts every digit so far, `first` is the count before the first non-zero
 * one (-1: none yet), which with the integer part's length and the exponent gives the
 * decimal exponent: value = 0.d1 d2 ... x 10^(nint - first + exp). */
typedef struct scan_state {
    long long seen, first;
} scan_state;

static size_t keep_digits(const char *s, size_t i, size_t len, gdec *d, scan_state *st)
{
    /* locals, not d's fields: the digit stores could alias them */
    int count = d->count, tail = d->tail;
    long long seen = st->seen, first = st->first;
    for (; i < len && is_digit(s[i]); i++, seen++) {
        char c = s[i];
        if (first < 0) {
            if (c == '0') continue;
            first = seen;
        }
        if (count < GDEC_DIGITS) d->digit[count++] = (char)(c - '0');
        else if (c != '0') tail = 1;
    }
    d->count = count;
    d->tail = tail;
    st->seen = seen;
    st->first = first;
    return i;
}

size_t gdec_scan(const char *s, size_t len, int grammar, gdec *d)
{
    size_t i = 0;
    scan_state st = { 0, -1 };
    d->count = 0;
    d->exp10 = 0;
    d->negative = 0;
    d->tail = 0;
    if (i < len && (s[i] == '-' || (grammar == GDEC_LENIENT && s[i] == '+'))) d->negative = s[i++] == '-';
    size_t int_at = i;
    i = keep_digits(s, i, len, d, &st);
    size_t nint = i - int_at, nfrac = 0;
    if (grammar == GDEC_JSON && (nint == 0 || (nint > 1 && s[int_at] == '0'))) goto fail;
    if (i < len && s[i] == '.') {
        /* a fraction not taken has no digits, so none were kept for it */
        size_t j = keep_digits(s, i + 1, len, d, &st);
        nfrac = j - (i + 1);
        if (nfrac || (grammar == GDEC_LENIENT && nint)) i = j;
        else if (grammar == GDEC_JSON) goto fail;
    }
    if (nint + nfrac == 0) goto fail;
    long exp = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        int eneg = 0;
        if (j < len && (s[j] == '-' || s[j] == '+')) eneg = s[j++] == '-';
        size_t e_at = j;
        while (j < len && is_digit(s[j])) {
            if (exp < EXP_CLAMP) exp = exp * 10 + (s[j] - '0');
            j++;
        }
        if (j > e_at) {
            i = j;
            if (exp > EXP_CLAMP) exp = EXP_CLAMP;
            if (eneg) exp = -exp;
        } else if (grammar == GDEC_JSON) {
            goto fail;
        } else {
            exp = 0; /* "5e" is the number 5 followed by something else */
        }
    }
    if (st.first >= 0) {
        long long e10 = (long long)nint - st.first + exp;
        if (e10 > EXP_CLAMP * 8) e10 = EXP_CLAMP * 8;
        if (e10 < -EXP_CLAMP * 8) e10 = -EXP_CLAMP * 8;
        d->exp10 = (int)e10;
    }
    while (d->count && d->digit[d->count - 1] == 0) d->count--;
    return i;
fail:
    d->count = 0;
    d->tail = 0;
    return 0;
}

/* ---- big integers ---------------------------------------------------------------------- */

/* Enough for every comparison of the supported range: at most GDEC_DIGITS digits
 * (2658 bits) times 2^1076, or 10^1124 times a 55-bit midpoint (about 3800 bits). */
#define BIG_WORDS 192

typedef struct big {
    uint32_t w[BIG_WORDS]; /* little-endian words */
    int n;
} big;

static void big_from_digits(big *b, const gdec *d)
{
    b->n = 0;
    for (int i = 0; i < d->count; i++) {
        if (b->n == 0 && d->digit[i] == 0) continue;
        if (b->n == 0) {
            b->w[0] = (uint32_t)d->digit[i];
            b->n = 1;
        } else {
            gbig_mul_small(b->w, &b->n, BIG_WORDS, 10, (uint32_t)d->digit[i]);
        }
    }
}

/* Sign of V - A x 2^p, with V = D x 10^e (D given as `dbig`) and a non-zero tail of
 * dropped digits making V slightly larger. */
static int compare(const big *dbig, int e, int tail, uint64_t a, int p)
{
    big l = *dbig, r;
    gbig_set(r.w, &r.n, a);
    if (e >= 0) gbig_mul_pow10(l.w, &l.n, BIG_WORDS, e);
    else gbig_mul_pow10(r.w, &r.n, BIG_WORDS, -e);
    if (p >= 0) gbig_shl(r.w, &r.n, BIG_WORDS, p);
    else gbig_shl(l.w, &l.n, BIG_WORDS, -p);
    int c = gbig_cmp(l.w, l.n, r.w, r.n);
    return c == 0 && tail ? 1 : c;
}

/* ---- rounding ---------------------------------------------------------------------------- */

/* A binary format: significand bits, the exponent of its subnormal unit, its largest
 * finite value. Values are carried in doubles (floats are exact in a double). */
typedef struct bfmt {
    int bits;
    int kmin;
    double max;
    int is_float;
} bfmt;

static const bfmt F64 = { 53, -1074, DBL_MAX, 0 };
static const bfmt F32 = { 24, -149, FLT_MAX, 1 };

/* x = M x 2^k with M the significand (its last bit is the parity ties look at). */
static void split(const bfmt *f, double x, uint64_t *m, int *k)
{
    if (x < ldexp(1.0, f->kmin + f->bits - 1)) { /* subnormal */
        *m = (uint64_t)ldexp(x, -f->kmin);
        *k = f->kmin;
        return;
    }
    int ex;
    double fr = frexp(x, &ex);
    *m = (uint64_t)ldexp(fr, f->bits);
    *k = ex - f->bits;
}

static double next_up(const bfmt *f, double x)
{
    return f->is_float ? (double)nextafterf((float)x, INFINITY) : nextafter(x, INFINITY);
}

static double next_down(const bfmt *f, double x)
{
    return f->is_float ? (double)nextafterf((float)x, 0.0f) : nextafter(x, 0.0);
}

/* The correctly rounded magnitude of a non-zero d, starting from the estimate x. */
static double correct(const bfmt *f, const gdec *d, double x)
{
    big dbig;
    big_from_digits(&dbig, d);
    int e = d->exp10 - d->count;
    if (!(x > 0)) x = ldexp(1.0, f->kmin);
    if (x > f->max) x = f->max;
    for (int iter = 0; iter < 200; iter++) {
        uint64_t m;
        int k;
        split(f, x, &m, &k);
        int c = compare(&dbig, e, d->tail, 2 * m + 1, k - 1); /* midpoint above x */
        if (c > 0 || (c == 0 && (m & 1))) {
            if (x == f->max) return INFINITY;
            x = next_up(f, x);
            continue;
        }
        int pow2 = m == ((uint64_t)1 << (f->bits - 1)) && k > f->kmin; /* the gap below is half */
        c = pow2 ? compare(&dbig, e, d->tail, 4 * m - 1, k - 2) : compare(&dbig, e, d->tail, 2 * m - 1, k - 1);
        if (c < 0 || (c == 0 && (m & 1))) {
            x = next_down(f, x);
            if (x == 0) return 0;
            continue;
        }
        break;
    }
    return x;
}

static uint64_t leading_u64(const gdec *d, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v * 10 + (uint64_t)d->digit[i];
    return v;
}

/* The magnitude of a non-zero d as a double. */
static double magnitude(const gdec *d)
{
    static const double p10[23] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
    if (d->exp10 > 310) return INFINITY;
    if (d->exp10 < -324) return 0;
    int e = d->exp10 - d->count;
    if (d->count <= 15 && e >= -22 && e <= 22) { /* exact operands, one rounding */
        double v = (double)leading_u64(d, d->count);
        return e < 0 ? v / p10[-e] : v * p10[e];
    }
    int used = d->count < 19 ? d->count : 19;
    int e2 = d->exp10 - used;
    /* The estimate by exact powers of ten, each step rounded once: at most about 8 units
     * in the last place off (15 steps), whatever the C library. Not pow(): MinGW's is
     * 100 and more units off below 1e-260, beyond what correct() walks. */
    double x = (double)leading_u64(d, used);
    for (; e2 >= 22; e2 -= 22) x *= p10[22];
    for (; e2 <= -22; e2 += 22) x /= p10[22];
    x = e2 < 0 ? x / p10[-e2] : x * p10[e2];
    return correct(&F64, d, x);
}

double gdec_double(const gdec *d)
{
    if (d->count == 0) return d->negative ? -0.0 : 0.0;
    double v = magnitude(d);
    return d->negative ? -v : v;
}

float gdec_float(const gdec *d)
{
    if (d->count == 0) return d->negative ? -0.0f : 0.0f;
    double x = d->exp10 > 40 ? INFINITY : d->exp10 < -46 ? 0.0 : magnitude(d);
    /* Rounding the correctly rounded double again is exact unless the double sits on a
     * float midpoint (the only case where V and the double can lie on two sides of one):
     * those, and the edge of the range, take the exact path. */
    const double inf_edge = ldexp(1.0, 128) - ldexp(1.0, 103); /* FLT_MAX + half its ulp */
    double v;
    if (x > inf_edge) {
        v = INFINITY;
    } else if (x == inf_edge) {
        v = correct(&F32, d, FLT_MAX);
    } else {
        float f = (float)x;
        double fd = f;
        double other = fd < x ? next_up(&F32, fd) : next_down(&F32, fd);
        v = fd != x && (fd + other) / 2 == x ? correct(&F32, d, fd) : fd;
    }
    return (float)(d->negative ? -v : v);
}
