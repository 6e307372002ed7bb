/* The decimal parser of the text formats (src/io/decimal.c) against the C library's
 * strtod/strtof (correctly rounded in glibc, and this program never changes the C
 * locale): exact ties, the edges of both ranges, long digit strings, random numbers of
 * every length and exponent, and the grammar rules of JSON and of BVH text.
 * The fast path of short decimals (decimal_fast.h) against gdec itself: the same
 * characters used and the same double, bit for bit, on random text of numbers, signs,
 * points, exponents, white space and junk, read at its very end (an allocation of
 * exactly its length, so that a read beyond it is caught by the sanitizer); the number
 * then white space of the frame loops (gdec_fast_ws) likewise, in the 32 bytes it reads.
 * On Windows, msvcrt's strtod is not correctly rounded (off by one float step on long
 * inputs): MinGW-w64's own, from David Gay's gdtoa, is the reference there. */
#if defined(__MINGW32__) && !defined(__USE_MINGW_ANSI_STDIO)
#define __USE_MINGW_ANSI_STDIO 1 /* strtod and strtof become MinGW's __mingw_strtod/f */
#endif
#include <float.h>
#include <stdlib.h>

#include "io/decimal.h"
#include "io/decimal_fast.h"
#include "test.h"

static double to_double(const char *s, int grammar, size_t *used)
{
    gdec d;
    *used = gdec_scan(s, strlen(s), grammar, &d);
    return gdec_double(&d);
}

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }
static int same_float(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static void check_one(const char *s)
{
    gdec d;
    size_t n = gdec_scan(s, strlen(s), GDEC_LENIENT, &d);
    char *end;
    double want = strtod(s, &end);
    float wantf = strtof(s, NULL);
    CHECK_MSG(n == (size_t)(end - s), "'%s': %zu characters scanned, strtod took %zu", s, n, (size_t)(end - s));
    double got = gdec_double(&d);
    float gotf = gdec_float(&d);
    CHECK_MSG(same_double(got, want), "'%s': double %.17g, strtod %.17g", s, got, want);
    CHECK_MSG(same_float(gotf, wantf), "'%s': float %.9g, strtof %.9g", s, (double)gotf, (double)wantf);
}

TEST(edges)
{
    static const char *const cases[] = {
        "0",
        "-0",
        "1",
        "-1",
        "0.5",
        "1.0e-265", /* deep exponents: MinGW's pow() is 130 units off there */
        "40225.073837e-247",
        "-6535.4761e-232",
        "1e0",
        "1E+2",
        "1e-2",
        "123456789012345678901234567890",
        "0.1",
        "0.2",
        "0.3",
        "0.30000001192092896",
        "0.333333343",
        "0.70710677",
        "0.707106781186547524400844362104849",
        /* double ties: 1 + 2^-53 (to even: 1) and just above */
        "1.00000000000000011102230246251565404236316680908203125",
        "1.00000000000000011102230246251565404236316680908203125000000000000000000000000001",
        "1.0000000000000003330669073875469621270895004272460937499999",
        /* the double range */
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "1e309",
        "1e-320",
        "4.9406564584124654e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "1e-400",
        "2.2250738585072011e-308",
        "2.2250738585072012e-308",
        "2.2250738585072014e-308",
        /* the float range and float ties */
        "3.4028234663852886e38",
        "3.4028235677973366e38",
        "3.4028235677973367e38",
        "3.5e38",
        "1.17549435e-38",
        "1.4e-45",
        "7.0064923216240854e-46",
        "7.0064923216240855e-46",
        "1e-46",
        "16777217",
        "16777219",
        "1.00000005960464477539062500001",
        "1.000000059604644775390625",
        "0.000000000000000000000000000000000001",
        "8.589973e9",
        "8.589974e9",
        "9007199254740993",
        "9007199254740993.00000000001",
        "123.456e-400",
        "0.0000000000000000000000000000000000000000000000000000000000001e300",
        "-12.345678",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_one(cases[i]);
}

TEST(long_digit_strings)
{
    /* 1000 significant digits: more than are kept, so the tail decides some ties */
    static char s[1200];
    for (int variant = 0; variant < 4; variant++) {
        size_t n = 0;
        s[n++] = '1';
        s[n++] = '.';
        for (int i = 0; i < 1000; i++) s[n++] = (char)('0' + (variant == 0 ? 0 : variant == 1 ? 9 : (i * 7) % 10));
        if (variant == 3) s[n - 1] = '1';
        s[n] = 0;
        check_one(s);
    }
    /* the double tie 1 + 2^-53 with a 1 far beyond the kept digits */
    const char *tie = "1.00000000000000011102230246251565404236316680908203125";
    size_t n = strlen(tie);
    memcpy(s, tie, n);
    for (; n < 1100; n++) s[n] = '0';
    s[n++] = '1';
    s[n] = 0;
    check_one(s);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

TEST(random_numbers)
{
    char s[128];
    for (int i = 0; i < 200000; i++) {
        size_t n = 0;
        if (next_random() & 1) s[n++] = '-';
        int digits = 1 + (int)(next_random() % 25);
        int point = (int)(next_random() % (unsigned)(digits + 1));
        for (int k = 0; k < digits; k++) {
            if (k == point && k) s[n++] = '.';
            s[n++] = (char)('0' + next_random() % 10);
        }
        if (next_random() % 3) n += (size_t)snprintf(s + n, sizeof s - n, "e%d", (int)(next_random() % 700) - 350);
        s[n] = 0;
        check_one(s);
    }
    /* every float printed with %.9g and %.17g reads back as itself */
    for (int i = 0; i < 200000; i++) {
        uint32_t bits = next_random() ^ (next_random() << 21);
        float f;
        memcpy(&f, &bits, 4);
        if (!isfinite(f)) continue;
        snprintf(s, sizeof s, i & 1 ? "%.9g" : "%.17g", (double)f);
        gdec d;
        gdec_scan(s, strlen(s), GDEC_JSON, &d);
        CHECK_MSG(same_float(gdec_float(&d), f), "'%s' does not read back as %a", s, (double)f);
        check_one(s);
    }
}

/* decimal_fast.h's paths */
enum { FAST_DOUBLE, FAST_FLOAT, FAST_JSON_LEN };

/* One of decimal_fast.h's paths on s[0..len), copied to a buffer of exactly len bytes: 0,
 * or what gdec gives (gdec_fast: the characters and the double of gdec_scan and
 * gdec_double; gdec_fast_float: and the float of gdec_float; gdec_json_len: the
 * characters gdec_scan takes by the JSON grammar). Returns 1 when the path took it. */
static int check_fast_path(const char *s, size_t len, int path)
{
    uint8_t *b = malloc(len ? len : 1);
    if (!b) return 0;
    memcpy(b, s, len);
    double v = 0;
    float f = 0;
    size_t n = path == FAST_DOUBLE  ? gdec_fast(b, len, &v)
               : path == FAST_FLOAT ? gdec_fast_float(b, len, &f)
                                    : gdec_json_len(b, len);
    free(b);
    if (!n) return 0;
    gdec d;
    size_t want = gdec_scan(s, len, path == FAST_JSON_LEN ? GDEC_JSON : GDEC_LENIENT, &d);
    if (path == FAST_DOUBLE)
        CHECK_MSG(n == want && same_double(v, gdec_double(&d)),
                  "'%.*s' (%zu bytes): fast %zu characters, %a; gdec %zu, %a", (int)len, s, len, n, v, want,
                  gdec_double(&d));
    else if (path == FAST_FLOAT)
        CHECK_MSG(n == want && same_float(f, gdec_float(&d)),
                  "'%.*s' (%zu bytes): fast %zu characters, %a; gdec %zu, %a", (int)len, s, len, n, (double)f, want,
                  (double)gdec_float(&d));
    else CHECK_MSG(n == want, "'%.*s' (%zu bytes): fast %zu characters, gdec %zu", (int)len, s, len, n, want);
    return 1;
}

static int check_fast(const char *s, size_t len) { return check_fast_path(s, len, FAST_DOUBLE); }
static int check_fast_float(const char *s, size_t len) { return check_fast_path(s, len, FAST_FLOAT); }
static int check_json_len(const char *s, size_t len) { return check_fast_path(s, len, FAST_JSON_LEN); }

/* A random text: a number of the shapes files hold most (sign, digits, point, digits,
 * exponent, each part of any length, zeros often), pieces of junk, then a separator. */
static size_t random_text(char *s, size_t size)
{
    static const char junk[] = "0123456789.-+eE x\t\n,";
    size_t n = 0;
    uint32_t shape = next_random();
    if (shape % 7 == 0) { /* anything */
        size_t k = next_random() % 30;
        for (size_t i = 0; i < k && n < size; i++) s[n++] = junk[next_random() % (sizeof junk - 1)];
        return n;
    }
    if (shape & 8) s[n++] = shape & 16 ? '-' : '+';
    int zeros = (shape & 32) != 0;
    size_t nint = next_random() % 12, nfrac = next_random() % 12;
    if (shape & 64) nint = next_random() % 25;
    for (size_t i = 0; i < nint; i++) s[n++] = (char)('0' + (zeros && next_random() % 2 ? 0 : next_random() % 10));
    if (next_random() % 4) {
        s[n++] = '.';
        if (shape & 128) nfrac = next_random() % 25;
        for (size_t i = 0; i < nfrac; i++) s[n++] = (char)('0' + (zeros && next_random() % 2 ? 0 : next_random() % 10));
    }
    if (next_random() % 4 == 0) {
        s[n++] = next_random() % 2 ? 'e' : 'E';
        uint32_t es = next_random() % 3;
        if (es) s[n++] = es == 1 ? '-' : '+';
        size_t ne = next_random() % 7;
        for (size_t i = 0; i < ne; i++) s[n++] = (char)('0' + (ne > 2 && i == 0 ? 0 : next_random() % 10));
        if (ne == 2 && next_random() % 2) s[n - 2] = (char)('0' + next_random() % 3);
    }
    size_t tail = next_random() % 24;
    for (size_t i = 0; i < tail && n < size; i++) s[n++] = junk[next_random() % (sizeof junk - 1)];
    return n;
}

TEST(fast_path)
{
    static const char *const cases[] = {
        "0",
        "-0",
        "+0",
        "-0.0",
        "0.000",
        "5.",
        "-5.",
        ".5",
        "-.5",
        ".",
        "-",
        "+",
        "",
        "5e",
        "5e+",
        "5e-",
        "5.e3",
        "1e22",
        "1e23",
        "9007199254740992",
        "9007199254740993",
        "9007199254740992e1",
        "1234567.1234567",
        "12345678.1234567",
        "1234567.12345678",
        "1234567890123456789",
        "12345678901234567890",
        "0.1234567890123456789",
        "1.2345678e-05",
        "-37.28461",
        "-37.28461e0",
        "1e-22",
        "1e-23",
        "4.5e-00022",
        "1e00000022",
        "3e100000",
        "0e999999",
        "-0e-999999",
        "00000000000000000001",
        "0000000000000000001",
        "1.5x",
        "1.5 ",
        "1.5\t2",
        "12.5e",
        "12.5E+1",
        "12.5e-1 ",
        "-179.999985",
        "359.99997",
        "1e+5",
        "+.5e1",
        "1..5",
        "1.5.5",
        "--1",
        "+-1",
        "1e+-5",
        ("\xff"
         "5"), /* one text: a 0xff byte, then '5' */
        "5\xff",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strlen(cases[i]);
        for (size_t cut = 0; cut <= len; cut++) check_fast(cases[i], cut);
        /* the same with a long tail, so the two-load path sees it too */
        char s[128];
        snprintf(s, sizeof s, "%s 123456789012345678901234567890", cases[i]);
        check_fast(s, strlen(s));
        check_fast(s, len + 1);
    }
    /* known answers of the path itself */
    double v = 1;
    CHECK(gdec_fast((const uint8_t *)"-0 ", 3, &v) == 2 && v == 0 && copysign(1.0, v) < 0);
    CHECK(gdec_fast((const uint8_t *)"-37.28461 0 0 0 0 0 0 0 0 ", 26, &v) == 9 && v == -37.28461);
    CHECK(gdec_fast((const uint8_t *)"1.2345678e-05 0 0 0 0 0 0 ", 26, &v) == 13 && v == 1.2345678e-05);
    CHECK(gdec_fast((const uint8_t *)"1e23", 4, &v) == 0);              /* 10^23 is not a double */
    CHECK(gdec_fast((const uint8_t *)"9007199254740993", 16, &v) == 0); /* above 2^53 */
    CHECK(gdec_fast((const uint8_t *)"5e", 2, &v) == 0);                /* gdec reads "5" */
    /* random text, cut at random places; the fast path must take most numbers */
    long taken = 0, total = test_full() ? 20000000 : 1000000;
    char s[128];
    for (long i = 0; i < total; i++) {
        size_t n = random_text(s, sizeof s);
        size_t len = next_random() % 4 ? n : next_random() % (n + 1);
        taken += check_fast(s, len);
    }
    CHECK_MSG(taken > total / 4, "the fast path took %ld of %ld texts", taken, total);
}

/* gdec_fast_ws on s[0..len) followed by white space or junk, in an allocation of exactly
 * 32 bytes (the bytes it may read): 0, or gdec's characters and double and one byte of
 * white space after them. Returns 1 when it took the text. */
static int check_fast_ws(const char *s, size_t len)
{
    static const char after[] = " \t\n\r\v\f0123456789.eE-+x,\xff";
    uint8_t *b = malloc(32);
    if (!b) return 0;
    memset(b, ' ', 32);
    memcpy(b, s, len < 32 ? len : 32);
    if (len < 32) b[len] = (uint8_t)after[next_random() % (sizeof after - 1)];
    for (size_t k = len + 1; k < 32; k++) b[k] = (uint8_t)after[next_random() % (sizeof after - 1)];
    double v = 0;
    size_t n = gdec_fast_ws(b, &v);
    int ok = 1;
    if (n) {
        gdec d;
        size_t want = gdec_scan((const char *)b, 32, GDEC_LENIENT, &d);
        double wantv = gdec_double(&d);
        int ws = b[n - 1] == ' ' || (b[n - 1] >= '\t' && b[n - 1] <= '\r');
        ok = n - 1 == want && ws && same_double(v, wantv);
        CHECK_MSG(ok, "'%.32s': fast_ws %zu characters, %a; gdec %zu, %a", (const char *)b, n, v, want, wantv);
    }
    free(b);
    return n != 0;
}

TEST(fast_ws)
{
    /* known answers, and what it must leave to gdec_fast and gdec */
    static const struct {
        const char *s;
        size_t n;
        double v;
    } known[] = {
        { "0 ", 2, 0 },
        { "0\n", 2, 0 },
        { "05 ", 3, 5 },
        { "0.5\r", 4, 0.5 },
        { "0e1 ", 4, 0 },
        { "0x ", 0, 0 },
        { "-0\t", 3, -0.0 },
        { "+7\n", 3, 7 },
        { "-17.40051 ", 10, -17.40051 },
        { "1234567.12345678 ", 17, 1234567.12345678 },
        { "1.23456789012345\r", 17, 1.23456789012345 },
        { "0.0069740503 ", 13, 0.0069740503 },
        { "9999999 ", 8, 9999999 },
        { "12345678 ", 0, 0 },          /* 8 integer digits */
        { "1234567.123456789 ", 0, 0 }, /* 16 digits */
        { "5. ", 0, 0 },
        { ".5 ", 0, 0 },
        { "-.5 ", 0, 0 },
        { "1e5 ", 4, 1e5 },
        { "1.5e5 ", 6, 1.5e5 },
        /* exponents (gdec_fast_ws_exp): 1 to 3 digits, m x 10^e with e within +-22 */
        { "1.2345678e-05 ", 14, 1.2345678e-05 },
        { "-9.9999997e-05\n", 15, -9.9999997e-05 },
        { "1E+2\t", 5, 100 },
        { "1e22 ", 5, 1e22 },
        { "1e-22 ", 6, 1e-22 },
        { "1.5e-22 ", 0, 0 }, /* 15 x 10^-23 */
        { "1e23 ", 0, 0 },
        { "-0e-999 ", 8, -0.0 },
        { "0.0e999 ", 8, 0 },
        { "5e ", 0, 0 },
        { "5e+ ", 0, 0 },
        { "5e1234 ", 0, 0 }, /* 4 exponent digits */
        { "5e123x", 0, 0 },
        { "5e1.5 ", 0, 0 },
        { "5e--1 ", 0, 0 },
        { "1.5,", 0, 0 },
        { "--1 ", 0, 0 },
        { "- ", 0, 0 },
        { "1.5.5 ", 0, 0 },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        uint8_t b[32];
        memset(b, ' ', sizeof b);
        memcpy(b, known[i].s, strlen(known[i].s));
        double v = 1;
        size_t n = gdec_fast_ws(b, &v);
        CHECK_MSG(n == known[i].n, "'%s': %zu characters, %zu expected", known[i].s, n, known[i].n);
        if (n && known[i].n) CHECK_MSG(same_double(v, known[i].v), "'%s': %a", known[i].s, v);
    }
    /* random text, cut at random places; most numbers must be taken */
    long taken = 0, total = test_full() ? 20000000 : 1000000;
    char s[128];
    for (long i = 0; i < total; i++) {
        size_t n = random_text(s, sizeof s);
        size_t len = next_random() % 4 ? n : next_random() % (n + 1);
        /* the number alone, without random_text's tail, half the time */
        if (next_random() % 2) {
            size_t k = 0;
            while (k < len && s[k] != ' ' && s[k] != '\t' && s[k] != '\n' && s[k] != ',' && s[k] != 'x') k++;
            len = k;
        }
        taken += check_fast_ws(s, len);
    }
    CHECK_MSG(taken > total / 20, "gdec_fast_ws took %ld of %ld texts", taken, total);
}

TEST(grammar)
{
    size_t used;
    CHECK(to_double("01", GDEC_JSON, &used) == 0 && used == 0);
    CHECK(to_double("01", GDEC_LENIENT, &used) == 1 && used == 2);
    CHECK(to_double("+1", GDEC_JSON, &used) == 0 && used == 0);
    CHECK(to_double("+1", GDEC_LENIENT, &used) == 1 && used == 2);
    to_double(".5", GDEC_JSON, &used);
    CHECK(used == 0);
    CHECK(to_double(".5", GDEC_LENIENT, &used) == 0.5 && used == 2);
    to_double("5.", GDEC_JSON, &used);
    CHECK(used == 0);
    CHECK(to_double("5.", GDEC_LENIENT, &used) == 5 && used == 2);
    to_double("1e", GDEC_JSON, &used);
    CHECK(used == 0);
    CHECK(to_double("1e", GDEC_LENIENT, &used) == 1 && used == 1);
    CHECK(to_double("1.5,", GDEC_JSON, &used) == 1.5 && used == 3);
    CHECK(to_double("-", GDEC_LENIENT, &used) == 0 && used == 0);
    to_double("nan", GDEC_LENIENT, &used);
    CHECK(used == 0);
    CHECK(to_double("1e99999999999999999999", GDEC_JSON, &used) == INFINITY && used == 22);
    CHECK(to_double("-1e-99999999999999999999", GDEC_JSON, &used) == 0 && used == 24);
    /* bounded: a number at the very end of the range given */
    const char text[] = "12345";
    gdec d;
    CHECK(gdec_scan(text, 3, GDEC_JSON, &d) == 3 && gdec_double(&d) == 123);
}

/* The float path against gdec_float: random text, the texts of random floats, and the
 * decimals nearest the midpoints between neighbouring floats (whose double is often the
 * midpoint itself while the text is not: gdec_float's exact comparison decides those). */
TEST(fast_float)
{
    static const char *const cases[] = {
        "0",
        "-0",
        "-0.0",
        "1",
        "0.1",
        "16777217",
        "16777219",
        "-16777217",
        "33554434",
        "33554435",
        "1.0000000596046448",
        "1.000000059604645",
        "0.70710677",
        "-0.70710677",
        "1.2345678e-05",
        "3.4028235e38",
        "1e22",
        "1e-22",
        "9007199254740993",
        "1.4e-45",
        "5.",
        ".5",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strlen(cases[i]);
        for (size_t cut = 0; cut <= len; cut++) check_fast_float(cases[i], cut);
    }
    unsigned taken = 0, midpoints = 0;
    char s[128];
    for (int k = 0; k < 200000; k++) {
        size_t n = random_text(s, 64);
        taken += (unsigned)check_fast_float(s, n);
    }
    for (int k = 0; k < 200000; k++) {
        uint32_t bits = next_random() & 0x7F7FFFFFu;
        float f, g;
        memcpy(&f, &bits, sizeof f);
        if (!isfinite(f) || f == 0) continue;
        g = nextafterf(f, INFINITY);
        double mid = ((double)f + (double)g) / 2;
        static const char *const fmt[] = { "%.15g", "%.16g", "%.17g", "%.9g", "%.12g" };
        snprintf(s, sizeof s, fmt[k % 5], k & 8 ? -mid : mid);
        size_t len = strlen(s);
        double back;
        if (gdec_fast((const uint8_t *)s, len, &back) == len && fabs(back) == mid) midpoints++;
        taken += (unsigned)check_fast_float(s, len);
        /* the last digit one up and one down */
        char *last = s + len - 1;
        while (last > s && (*last < '0' || *last > '9')) last--;
        if (*last > '0' && *last < '9') {
            (*last)++;
            taken += (unsigned)check_fast_float(s, len);
            *last = (char)(*last - 2);
            taken += (unsigned)check_fast_float(s, len);
        }
    }
    CHECK_MSG(taken > 200000, "the fast path took only %u texts", taken);
    CHECK_MSG(midpoints > 1000, "only %u texts whose double is a midpoint", midpoints);
}

TEST(json_len)
{
    static const char *const cases[] = {
        "0",
        "-0",
        "-",
        "-0.0",
        "0.000",
        "01",
        "-01",
        "00",
        "0.",
        "5.",
        ".5",
        "-.5",
        "5e",
        "5e+",
        "5e-",
        "5.e3",
        "1e22",
        "1E+2",
        "1e-2",
        "-37.28461",
        "-37.28461e0",
        "1.2345678e-05",
        "1.5x",
        "1.5 ",
        "1.5,",
        "1.5]",
        "1.5}",
        "1..5",
        "1.5.5",
        "--1",
        "-+1",
        "1e+-5",
        "1e5e5",
        "1e5.5",
        "1-",
        "1+",
        "+1",
        "123456789012345678901234567890",
        "0.1234567890123456789012345678901234567890",
        "1e0000000000000000000000000000000000005",
        "1.000000000000000000000000000000000001e-5",
        "\xff",
        "5\xff",
        "0x10",
        "1_000",
    };
    unsigned taken = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strlen(cases[i]);
        for (size_t cut = 0; cut <= len; cut++) taken += (unsigned)check_json_len(cases[i], cut);
        char s[128];
        snprintf(s, sizeof s, "%s 123456789012345678901234567890", cases[i]);
        check_json_len(s, strlen(s));
    }
    char s[128];
    for (int k = 0; k < 300000; k++) {
        size_t n = random_text(s, 64);
        taken += (unsigned)check_json_len(s, n);
        if (n && (s[0] == '+' || s[0] == '.')) s[0] = '-'; /* more texts of JSON's grammar */
        taken += (unsigned)check_json_len(s, n);
    }
    CHECK_MSG(taken > 100000, "the fast path took only %u texts", taken);
}

int main(void)
{
    RUN(edges);
    RUN(long_digit_strings);
    RUN(random_numbers);
    RUN(grammar);
    RUN(fast_path);
    RUN(fast_ws);
    RUN(fast_float);
    RUN(json_len);
    return test_finish();
}
