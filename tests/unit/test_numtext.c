/* Floats and doubles to text without the C library (src/io/numtext.c) against the C
 * library itself, byte for byte: the reference is what gw_float and gw_double did before,
 * snprintf("%.*g") at the smallest precision 6..9 (6..17) whose text strtof (strtod)
 * reads back as the same value (glibc: correctly rounded both ways; this program keeps
 * the "C" locale except where it tests that the new text does not follow the locale). Every float of whole binades (the
 * subnormals, around 1e-5 and 1e-4 and 1e5..1e9 where %g changes notation, the top),
 * millions of random bit patterns, the edges (FLT_MIN, FLT_TRUE_MIN, FLT_MAX, powers of
 * two and of ten and their neighbours) and exact decimal ties at every precision 1..9;
 * doubles likewise (every power of two and of ten and their neighbours, ties at every
 * precision 1..17, random bit patterns, random values near 1, short decimals).
 * Binades are sampled (one float in 64) unless GANIM_FULL=1 or CI=true.
 * `test_numtext --range FIRST LAST` compares every bit pattern FIRST..LAST (hex or
 * decimal, inclusive; NaN and infinities skipped) and prints a count: the whole 2^32
 * space, run once outside ctest (docs/benchmarks.md). */
#if defined(__MINGW32__) && !defined(__USE_MINGW_ANSI_STDIO)
#define __USE_MINGW_ANSI_STDIO 1 /* snprintf and strtof become MinGW's own, as C99 says */
#endif
#include <float.h>
#include <locale.h>
#include <stdlib.h>

#include "io/numtext.h"
#include "io/writer.h"
#include "support/tnumtext.h"
#include "test.h"

static long mismatches;

static const uint32_t POW10_TEST[10] = { 1u,      10u,      100u,      1000u,      10000u,
                                         100000u, 1000000u, 10000000u, 100000000u, 1000000000u };

static size_t reference(char *out, size_t cap, float v) { return tn_float_text(out, cap, v); }

static float from_bits(uint32_t u) { return tn_float_bits(u); }

static uint32_t bits_of(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* gnum_float against the reference; returns 0 on a mismatch (the first few reported). */
static int check_one(float v)
{
    char want[64], got[GNUM_FLOAT_CHARS + 1];
    size_t nw = reference(want, sizeof want, v), ng = gnum_float(got, v);
    got[ng] = 0;
    if (ng == nw && !memcmp(got, want, nw)) return 1;
    if (mismatches++ < 10)
        CHECK_MSG(0, "float 0x%08x (%.9g): \"%s\", the C library \"%s\"", (unsigned)bits_of(v), (double)v, got, want);
    return 0;
}

/* gnum_float_prec against snprintf("%.*g") at every precision 1..9: the rounding alone. */
static void check_precisions(float v)
{
    for (int prec = 1; prec <= 9; prec++) {
        char want[64], got[GNUM_FLOAT_CHARS + 1];
        int nw = snprintf(want, sizeof want, "%.*g", prec, (double)v);
        size_t ng = gnum_float_prec(got, v, prec);
        got[ng] = 0;
        if ((size_t)nw != ng || memcmp(got, want, ng)) {
            if (mismatches++ < 10)
                CHECK_MSG(0, "float 0x%08x at %%.%dg: \"%s\", snprintf \"%s\"", (unsigned)bits_of(v), prec, got, want);
        }
    }
}

static void check_both_signs(float v)
{
    check_one(v);
    check_one(-v);
    check_precisions(v);
    check_precisions(-v);
}

TEST(edges)
{
    static const float fixed[] = { 0.0f,        FLT_MIN,    FLT_TRUE_MIN, FLT_MAX,      FLT_EPSILON, 1.0f,
                                   0.1f,        0.2f,       0.3f,         1.0f / 3.0f,  2.0f / 3.0f, 16777216.0f,
                                   16777215.0f, 8388607.5f, 1e-5f,        1e-4f,        9.99999e-5f, 9.999999e-5f,
                                   99999.95f,   999999.5f,  9999999.0f,   3.4028235e38f };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) check_both_signs(fixed[i]);
    CHECK(check_one(-0.0f));
    /* every power of two with its neighbours (the quarter step below it) */
    for (int b = 0; b < 254; b++) {
        uint32_t u = (uint32_t)(b + 1) << 23;
        for (uint32_t d = 0; d < 5; d++) {
            check_both_signs(from_bits(u - 2 + d));
        }
    }
    check_both_signs(from_bits(1)), check_both_signs(from_bits(2)), check_both_signs(from_bits(3));
    check_both_signs(from_bits(0x7fffff)), check_both_signs(from_bits(0x7ffffe)),
        check_both_signs(from_bits(0x7f7ffffe));
    /* the floats nearest every power of ten, and their neighbours */
    for (int e = -45; e <= 38; e++) {
        char s[16];
        snprintf(s, sizeof s, "1e%d", e);
        uint32_t u = bits_of(strtof(s, NULL));
        for (uint32_t d = 0; d < 7; d++)
            if (u + d >= 3) check_both_signs(from_bits(u - 3 + d));
    }
    CHECK_EQ_INT(mismatches, 0);
}

/* Floats whose exact decimal value ends in a 5 just after the P-th digit, P = 1..9 (a
 * tie for %.Pg, rounded to even by glibc): dyadic fractions k / 2^n and integers
 * k * 2^n whose odd part k is small, and the nearest floats to d.5 * 10^j. */
TEST(exact_ties)
{
    for (uint32_t k = 1; k < 1u << 12; k += 2) {
        for (int n = -24; n <= 24; n += 1) check_both_signs(ldexpf((float)k, n));
    }
    for (uint32_t d = 1; d < 100000; d = d * 3 + 1) {
        for (int j = -12; j <= 12; j++) {
            char s[40];
            snprintf(s, sizeof s, "%u5e%d", d, j);
            uint32_t u = bits_of(strtof(s, NULL));
            for (uint32_t i = 0; i < 3; i++) check_both_signs(from_bits(u - 1 + i));
        }
    }
    /* integers with a 5 in the 7th..10th digit: ties for %.6g..%.9g in the fast path's
     * k > 0 branch, and ties of the read-back at steps of 2 and more */
    for (uint32_t q = 1000005; q < 16777216; q += 1000010) check_both_signs((float)q);
    for (uint64_t q = 100000005; q < 4000000000u; q += 99999970) check_both_signs((float)q);
    CHECK_EQ_INT(mismatches, 0);
}

/* Every float of a binade (2^23 of them; one in 64 in quick mode). */
static void binade(int b)
{
    uint32_t first = (uint32_t)b << 23, step = test_full() ? 1 : 64;
    long bad = 0;
    for (uint32_t i = 0; i < 1u << 23; i += step) bad += !check_one(from_bits(first + i));
    CHECK_MSG(bad == 0, "binade %d: %ld floats differ", b, bad);
}

TEST(whole_binades)
{
    binade(0);   /* the subnormals */
    binade(1);   /* the smallest normals */
    binade(93);  /* [2^-34, 2^-33): just below the fast path, on the bignum */
    binade(94);  /* [2^-33, 2^-32): the fast path's lowest, ten digits from 10^19 */
    binade(100); /* [2^-27, 2^-26): just below the scaled path, on the fast path */
    binade(101); /* [2^-26, 2^-25): the scaled path's lowest, X = -8 */
    binade(110); /* [2^-17, 2^-16): 7.6e-6 .. 1.5e-5, both sides of 1e-5 */
    binade(113); /* [2^-14, 2^-13): 6.1e-5 .. 1.2e-4, the fixed / exponent switch at 1e-4 */
    binade(126); /* [0.5, 1) */
    binade(143); /* [65536, 131072): 1e5 */
    binade(146); /* [2^19, 2^20): 1e6 (%.6g writes 1e+06) */
    binade(150); /* [2^23, 2^24): the scaled path's highest, integers and halves */
    binade(151); /* [2^24, 2^25): just above it, on the bignum */
    binade(153); /* [2^26, 2^27): 1e8, beyond the fast path */
    binade(156); /* [2^29, 2^30): 1e9 */
    binade(254); /* up to FLT_MAX */
    CHECK_EQ_INT(mismatches, 0);
}

/* The scaled path (normal floats in [2^-26, 2^24), v * 10^(8-X) from one product with a
 * per-binade table): every binade's first and last floats (bexp 100..151, the path's two
 * ends and the floats next to them), the floats around every binade's power of ten (the
 * table's thresholds: where X moves up by one), and floats whose exact decimal has ten
 * significant digits ending in 5 (v's fraction in units of 10^(X-8) exactly 1/2: a tie
 * at %.9g, taken by the path's rare branch) or fewer (a fraction of 0). */
TEST(scaled_binades)
{
    for (uint32_t bexp = 100; bexp <= 151; bexp++) {
        for (uint32_t d = 0; d < 6; d++) {
            check_both_signs(from_bits((bexp << 23) + d));
            check_both_signs(from_bits((bexp << 23) + 0x7fffffu - d));
        }
    }
    for (int y = -9; y <= 8; y++) {
        char s[16];
        snprintf(s, sizeof s, "1e%d", y);
        uint32_t u = bits_of(strtof(s, NULL));
        for (uint32_t d = 0; d < 41; d++) check_both_signs(from_bits(u - 20 + d));
    }
    /* K + i / 2^p, K of 10 - p digits below 2^(24 - p): exact floats of ten digits */
    for (int p = 1; p <= 10; p++) {
        uint32_t k0 = p < 10 ? (uint32_t)POW10_TEST[9 - p] : 0u, frac_n = 1u << p;
        for (uint32_t j = 0; j < 40; j++) {
            uint32_t k = k0 + j * 7919u % (k0 ? k0 : 1u);
            if (k >= 1u << (24 - p)) continue;
            for (uint32_t i = 0; i < frac_n && i < 64; i++) check_both_signs(ldexpf((float)(k * frac_n + i), -p));
        }
    }
    CHECK_EQ_INT(mismatches, 0);
}

TEST(random_bit_patterns)
{
    uint64_t s = test_seed("numtext");
    long n = test_full() ? 20000000 : 2000000, bad = 0;
    for (long i = 0; i < n; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint32_t u = (uint32_t)(s >> 32);
        if (((u >> 23) & 0xffu) == 0xffu) continue;
        bad += !check_one(from_bits(u));
        if (i % 64 == 0) check_precisions(from_bits(u));
    }
    CHECK_MSG(bad == 0, "%ld of %ld random floats differ", bad, n);
}

TEST(writer_maps_non_finite)
{
    ganim_buffer buf = { 0 };
    ganim_writer w = gw_init(&buf, NULL);
    gw_float(&w, NAN);
    gw_u8(&w, ',');
    gw_float(&w, -INFINITY);
    gw_u8(&w, ',');
    gw_float(&w, -0.0f);
    gw_u8(&w, ',');
    gw_float(&w, 1e-7f);
    gw_u8(&w, 0);
    CHECK_EQ_STR((const char *)buf.data, "0,0,-0,1e-07");
    ganim_buffer_free(&buf);
}

/* printf's decimal point follows LC_NUMERIC; the new text must not. */
TEST(locale_free)
{
    static const float v[] = { 0.5f, -1.25e-7f, 3.14159274f, 123456.7f, 1e30f };
    static const double dv[] = { 0.5, 29.97, 1.0 / 30.0, -1.25e-7, 1e300 };
    char before[5][GNUM_FLOAT_CHARS + 1], dbefore[5][GNUM_DOUBLE_CHARS + 1];
    for (int i = 0; i < 5; i++) before[i][gnum_float(before[i], v[i])] = 0;
    for (int i = 0; i < 5; i++) dbefore[i][gnum_double(dbefore[i], dv[i])] = 0;
    const char *found = test_comma_locale(LC_NUMERIC, "test_numtext locale_free");
    if (!found) return;
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 0.5);
    CHECK_MSG(strcmp(probe, "0,5") == 0, "%s: printf wrote %s", found, probe);
    for (int i = 0; i < 5; i++) {
        char now[GNUM_FLOAT_CHARS + 1];
        now[gnum_float(now, v[i])] = 0;
        CHECK_EQ_STR(now, before[i]);
        char dnow[GNUM_DOUBLE_CHARS + 1];
        dnow[gnum_double(dnow, dv[i])] = 0;
        CHECK_EQ_STR(dnow, dbefore[i]);
        CHECK(strchr(dnow, ',') == NULL);
    }
    setlocale(LC_NUMERIC, "C");
}

/* ---- doubles: gnum_double against what gw_double did, snprintf("%.*g") at the smallest
 * precision 6..17 that strtod reads back; gnum_double_prec against "%.{1..17}g" -------- */

static size_t dreference(char *out, size_t cap, double v)
{
    if (v == 0) return (size_t)snprintf(out, cap, "%s", signbit(v) ? "-0" : "0");
    int n = 0;
    for (int prec = 6; prec <= 17; prec++) {
        n = snprintf(out, cap, "%.*g", prec, v);
        if (strtod(out, NULL) == v) break;
    }
    return (size_t)n;
}

static double dfrom_bits(uint64_t u)
{
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static uint64_t dbits_of(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static int dcheck_one(double v)
{
    char want[64], got[GNUM_DOUBLE_CHARS + 1];
    size_t nw = dreference(want, sizeof want, v), ng = gnum_double(got, v);
    got[ng] = 0;
    if (ng == nw && !memcmp(got, want, nw)) return 1;
    if (mismatches++ < 10)
        CHECK_MSG(0, "double 0x%016llx (%.17g): \"%s\", the C library \"%s\"", (unsigned long long)dbits_of(v), v, got,
                  want);
    return 0;
}

static int dcheck_precisions(double v)
{
    int ok = 1;
    for (int prec = 1; prec <= 17; prec++) {
        char want[64], got[GNUM_DOUBLE_CHARS + 1];
        int nw = snprintf(want, sizeof want, "%.*g", prec, v);
        size_t ng = gnum_double_prec(got, v, prec);
        got[ng] = 0;
        if ((size_t)nw != ng || memcmp(got, want, ng)) {
            ok = 0;
            if (mismatches++ < 10)
                CHECK_MSG(0, "double 0x%016llx at %%.%dg: \"%s\", snprintf \"%s\"", (unsigned long long)dbits_of(v),
                          prec, got, want);
        }
    }
    return ok;
}

static void dcheck_both_signs(double v)
{
    dcheck_one(v);
    dcheck_one(-v);
    dcheck_precisions(v);
    dcheck_precisions(-v);
}

/* the double strtod makes of "<d>e<j>" */
static double dparse(uint64_t d, int j)
{
    char s[48];
    snprintf(s, sizeof s, "%llue%d", (unsigned long long)d, j);
    return strtod(s, NULL);
}

TEST(double_edges)
{
#if defined(_WIN32) /* the reference is glibc's printf and strtod; the Windows C runtime's
                     * are not correctly rounded at these edges */
    test_note_not_run("test_numtext double_edges: the C runtime's printf is not the reference (glibc)");
    return;
#endif
    static const double fixed[] = { 0.0,
                                    DBL_MIN,
                                    DBL_TRUE_MIN,
                                    DBL_MAX,
                                    DBL_EPSILON,
                                    1.0,
                                    0.1,
                                    0.2,
                                    0.3,
                                    1.0 / 3.0,
                                    2.0 / 3.0,
                                    30.0,
                                    29.97,
                                    30000.0 / 1001.0,
                                    24000.0 / 1001.0,
                                    1.0 / 30.0,
                                    1.0 / 24.0,
                                    1.0 / 60.0,
                                    0.01,
                                    0.0254,
                                    9007199254740992.0,
                                    9007199254740991.0,
                                    4503599627370495.5,
                                    1e-5,
                                    1e-4,
                                    9.9999999999999e-5,
                                    99999.95,
                                    999999.5,
                                    1e15,
                                    1e16,
                                    1e17,
                                    123456789012345678.0,
                                    1e21,
                                    1e22,
                                    1e23,
                                    5e-324,
                                    2.2250738585072009e-308,
                                    2.2250738585072014e-308,
                                    1.7976931348623157e308,
                                    (double)FLT_MAX,
                                    (double)FLT_MIN,
                                    (double)FLT_TRUE_MIN };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) dcheck_both_signs(fixed[i]);
    CHECK(dcheck_one(-0.0));
    /* every power of two with its neighbours (the quarter step below it), subnormals too */
    for (int b = 0; b < 2046; b++) {
        uint64_t u = (uint64_t)(b + 1) << 52;
        for (uint64_t d = 0; d < 5; d++) dcheck_both_signs(dfrom_bits(u - 2 + d));
    }
    for (int b = 0; b < 52; b++) dcheck_both_signs(dfrom_bits((uint64_t)1 << b));
    dcheck_both_signs(dfrom_bits(1)), dcheck_both_signs(dfrom_bits(2)), dcheck_both_signs(dfrom_bits(3));
    dcheck_both_signs(dfrom_bits(0x000fffffffffffffu)), dcheck_both_signs(dfrom_bits(0x7feffffffffffffeu));
    /* the doubles nearest every power of ten, and their neighbours */
    for (int e = -324; e <= 308; e++) {
        uint64_t u = dbits_of(dparse(1, e));
        for (uint64_t d = 0; d < 7; d++)
            if (u + d >= 3 && u + d - 3 < 0x7ff0000000000000u) dcheck_both_signs(dfrom_bits(u - 3 + d));
    }
    CHECK_EQ_INT(mismatches, 0);
}

/* Exact decimal ties at every precision 1..17: dyadic fractions k / 2^n and integers
 * k * 2^n with a small odd k, integers with a 5 after the P-th digit, and the doubles
 * nearest d.5 * 10^j. */
TEST(double_exact_ties)
{
#if defined(_WIN32) /* the reference is glibc's printf and strtod; the Windows C runtime's
                     * are not correctly rounded at these edges */
    test_note_not_run("test_numtext double_exact_ties: the C runtime's printf is not the reference (glibc)");
    return;
#endif
    for (uint32_t k = 1; k < 1u << 10; k += 2) {
        for (int n = -60; n <= 60; n += 1) dcheck_both_signs(ldexp((double)k, n));
    }
    for (uint64_t d = 1; d < 10000000000000000u; d = d * 7 + 1) {
        for (int j = -330; j <= 300; j += 7) {
            uint64_t u = dbits_of(dparse(d * 10 + 5, j));
            for (uint64_t i = 0; i < 3; i++)
                if (u + i >= 1 && u + i - 1 < 0x7ff0000000000000u) dcheck_both_signs(dfrom_bits(u - 1 + i));
        }
    }
    for (uint64_t q = 5; q < 9007199254740992u; q = q * 10 + 5) {
        for (uint64_t m = 1; m < 10; m++) dcheck_both_signs((double)(q * m / 10 * 10 + 5));
    }
    CHECK_EQ_INT(mismatches, 0);
}

/* Random bit patterns (every exponent), random doubles between 2^-40 and 2^40, and the
 * doubles of short decimals ("29.97", "0.04": what a text file holds). */
TEST(double_random)
{
    uint64_t s = test_seed("numtext double");
    long n = test_full() ? 4000000 : 200000, bad = 0;
    for (long i = 0; i < n; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint64_t r = s;
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint64_t u = (r & 0xffffffff00000000u) | (s >> 32);
        double v;
        switch (i % 3) {
        case 0: v = dfrom_bits(u); break;
        case 1: v = dfrom_bits((u & 0x800fffffffffffffu) | (uint64_t)(1023 - 40 + (long)((u >> 52) % 81)) << 52); break;
        default: v = dparse((u >> 11) % (i % 2 ? 100000u : 100000000000000000u), (int)((u >> 4) % 40) - 20); break;
        }
        if (!isfinite(v)) continue;
        bad += !dcheck_one(v);
        if (i % 16 == 0) bad += !dcheck_precisions(v);
    }
    CHECK_MSG(bad == 0, "%ld of %ld random doubles differ", bad, n);
}

TEST(writer_doubles)
{
    ganim_buffer buf = { 0 };
    ganim_writer w = gw_init(&buf, NULL);
    gw_double(&w, NAN);
    gw_u8(&w, ' ');
    gw_double(&w, INFINITY);
    gw_u8(&w, ' ');
    gw_double(&w, -0.0);
    gw_u8(&w, ' ');
    gw_double(&w, 29.97);
    gw_u8(&w, ' ');
    gw_double(&w, 1.0 / 30.0);
    gw_u8(&w, ' ');
    gw_double(&w, 1e-7);
    gw_u8(&w, ' ');
    gw_double_prec(&w, 1.0 / 30.0, 9);
    gw_u8(&w, ' ');
    gw_double_prec(&w, 1e21, 9);
    gw_u8(&w, ' ');
    gw_double_prec(&w, -INFINITY, 9);
    gw_u8(&w, 0);
    CHECK_EQ_STR((const char *)buf.data, "0 0 -0 29.97 0.03333333333333333 1e-07 0.0333333333 1e+21 0");
    ganim_buffer_free(&buf);
}

/* gw_dec and gw_int against printf's %llu and %lld */
TEST(writer_integers)
{
    static const int64_t v[] = { 0,
                                 1,
                                 -1,
                                 9,
                                 10,
                                 -10,
                                 99,
                                 100,
                                 255,
                                 65535,
                                 2147483647,
                                 -2147483647 - 1,
                                 4294967295,
                                 1000000000000,
                                 INT64_MAX,
                                 INT64_MIN,
                                 INT64_MIN + 1 };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char want[64];
        ganim_buffer buf = { 0 };
        ganim_writer w = gw_init(&buf, NULL);
        gw_int(&w, v[i]);
        gw_u8(&w, ' ');
        gw_dec(&w, (uint64_t)v[i]);
        gw_u8(&w, 0);
        snprintf(want, sizeof want, "%lld %llu", (long long)v[i], (unsigned long long)v[i]);
        CHECK_EQ_STR((const char *)buf.data, want);
        ganim_buffer_free(&buf);
    }
}

/* gw_dec_chars (two digits a step) against printf's %llu: every integer below 10^7 (one in
 * 7 unless GANIM_FULL=1), every power of ten and its neighbours, random 64-bit values of
 * every length. */
TEST(dec_chars)
{
    long bad = 0;
    char want[32], got[24];
    for (uint64_t v = 0; v < 10000000u; v += test_full() ? 1 : 7) {
        size_t ng = (size_t)(gw_dec_chars(got, v) - got);
        int nw = snprintf(want, sizeof want, "%llu", (unsigned long long)v);
        if ((size_t)nw != ng || memcmp(got, want, ng)) bad++;
    }
    uint64_t s = test_seed("numtext dec"), p = 1;
    for (int e = 0; e < 20; e++, p *= 10) {
        for (uint64_t d = 0; d < 5; d++) {
            uint64_t v = p - 2 + d;
            size_t ng = (size_t)(gw_dec_chars(got, v) - got);
            int nw = snprintf(want, sizeof want, "%llu", (unsigned long long)v);
            if ((size_t)nw != ng || memcmp(got, want, ng)) bad++;
        }
    }
    for (int i = 0; i < 1000000; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint64_t v = s >> (s % 61); /* every length */
        size_t ng = (size_t)(gw_dec_chars(got, v) - got);
        int nw = snprintf(want, sizeof want, "%llu", (unsigned long long)v);
        if ((size_t)nw != ng || memcmp(got, want, ng)) bad++;
    }
    size_t n = (size_t)(gw_dec_chars(got, UINT64_MAX) - got);
    CHECK_EQ_INT(n, 20);
    CHECK(!memcmp(got, "18446744073709551615", 20));
    CHECK_EQ_INT(bad, 0);
}

static int range(const char *a, const char *b)
{
    uint64_t first = strtoull(a, NULL, 0), last = strtoull(b, NULL, 0), n = 0, bad = 0;
    if (last > 0xffffffffu || first > last) {
        fprintf(stderr, "test_numtext --range FIRST LAST: bit patterns 0..0xffffffff\n");
        return 2;
    }
    for (uint64_t u = first; u <= last; u++) {
        if (((u >> 23) & 0xffu) == 0xffu) continue;
        n++;
        bad += !check_one(from_bits((uint32_t)u));
    }
    printf("range 0x%08llx..0x%08llx: %llu floats compared, %llu differ\n", (unsigned long long)first,
           (unsigned long long)last, (unsigned long long)n, (unsigned long long)bad);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--range")) return range(argv[2], argv[3]);
    test_program_name = "test_numtext";
    RUN(edges);
    RUN(exact_ties);
    RUN(whole_binades);
    RUN(scaled_binades);
    RUN(random_bit_patterns);
    RUN(writer_maps_non_finite);
    RUN(double_edges);
    RUN(double_exact_ties);
    RUN(double_random);
    RUN(writer_doubles);
    RUN(writer_integers);
    RUN(dec_chars);
    RUN(locale_free);
    return test_finish();
}
