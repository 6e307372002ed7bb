/* BVH text. Words are separated by white space; braces count as words even when they
 * touch another word. A joint's name is the rest of its ROOT/JOINT line (names with
 * spaces exist). Keywords are matched without case ("End site", "Frames:"). Joints nest
 * to any depth without recursion; every count is checked against the text present before
 * anything is allocated for it, and numbers are read exactly (io/decimal.h). */
#include "formats/bvh/bvh.h"
#include "io/decimal.h"
#include "io/decimal_fast.h"

#if defined(__SSE2__)
#include <emmintrin.h>
/* The white space bytes (9..13, ' ') of s[0..15] as bits. */
static inline unsigned ws_mask16(const uint8_t *s)
{
    __m128i b = _mm_loadu_si128((const __m128i *)s);
    __m128i ws = _mm_or_si128(
        _mm_cmpeq_epi8(b, _mm_set1_epi8(' ')),
        _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8(b, _mm_set1_epi8(9)), _mm_set1_epi8(4)), _mm_setzero_si128()));
    return (unsigned)_mm_movemask_epi8(ws);
}

/* The braces of s[0..15] as bits. */
static inline unsigned brace_mask16(const uint8_t *s)
{
    __m128i b = _mm_loadu_si128((const __m128i *)s);
    return (unsigned)_mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('{')), _mm_cmpeq_epi8(b, _mm_set1_epi8('}'))));
}

/* The bytes of s[0..15] that end a word (white space, '{', '}') as bits. */
static inline unsigned word_end_mask16(const uint8_t *s) { return ws_mask16(s) | brace_mask16(s); }

/* 1 + the place of the first white space byte (9..13, ' ') in s[0..15], 17 if none: where
 * the next number starts when s holds one number and its separator. Found apart from the
 * number's digits so that the next number's place does not wait for them. gdec_fast_ws's
 * length, when not 0, is 1 + the place of the number's first white space (its other bytes
 * are not white space), so it equals this one whenever it is 17 or less, and 0 never does. */
static inline size_t ws_next16(const uint8_t *s) { return (size_t)__builtin_ctz(ws_mask16(s) | 0x10000u) + 1; }
#endif

typedef struct lexer {
    bvh_file *f;
    const uint8_t *d;
    size_t n, i;
} lexer;

typedef struct word {
    const char *s;
    size_t n;
    size_t at;
} word;

/* ' ', '\t' '\n' '\v' '\f' '\r' (9..13), by decimal_fast.h's table. */
static int space(uint8_t c) { return gdec_ws(c); }

/* For the tests (bvh_set_reference_hierarchy): the hierarchy read as before the fast paths
 * (words one byte at a time, channel names by is(), numbers by gdec), and the frame values'
 * last 31 bytes without the padded copy. */
static int reference;

void bvh_set_reference_hierarchy(int on) { reference = on != 0; }

/* For the tests (bvh_count_joints_in_place): joint_in_place's joints and End Sites, counted
 * only while `counting` is set (a read never writes it otherwise). */
static int counting;
static unsigned long in_place_count;

unsigned long bvh_count_joints_in_place(int on)
{
    unsigned long n = in_place_count;
    counting = on != 0;
    in_place_count = 0;
    return n;
}

/* The first byte at or after i that is not white space (n if none). 16 bytes at a time
 * while 16 are left (SSE2), then one at a time: the same place either way. */
static inline size_t skip_space(const uint8_t *d, size_t i, size_t n)
{
#if defined(__SSE2__)
    if (!reference)
        for (; n - i >= 16; i += 16) {
            unsigned m = ~ws_mask16(d + i) & 0xFFFFu;
            if (m) return i + (size_t)__builtin_ctz(m);
        }
#endif
    while (i < n && space(d[i])) i++;
    return i;
}

/* The end of the word that starts at d[i] (not white space, not a brace): the first
 * white space or brace after it, or n. */
static inline size_t word_end(const uint8_t *d, size_t i, size_t n)
{
#if defined(__SSE2__)
    if (!reference)
        for (; n - i >= 16; i += 16) {
            unsigned m = word_end_mask16(d + i);
            if (m) return i + (size_t)__builtin_ctz(m);
        }
#endif
    while (i < n && !space(d[i]) && d[i] != '{' && d[i] != '}') i++;
    return i;
}

static GANIM_ALWAYS_INLINE int next_word(lexer *lx, word *w)
{
    const uint8_t *d = lx->d;
    size_t n = lx->n, i = lx->i, start;
#if defined(__SSE2__)
    if (!reference && n - i >= 16) { /* commonly the word and the white space before it in one load */
        unsigned ws = ws_mask16(d + i), m = ~ws & 0xFFFFu;
        if (m) {
            start = i + (size_t)__builtin_ctz(m);
            if (d[start] == '{' || d[start] == '}') {
                i = start + 1;
            } else {
                /* the word's end: white space or a brace after its first byte in these 16 */
                unsigned end = (ws | brace_mask16(d + i)) & ~0u << (start - i) << 1 & 0xFFFFu;
                i = end ? i + (size_t)__builtin_ctz(end) : word_end(d, i + 16, n);
            }
            goto found;
        }
        i += 16;
    }
#endif
    i = skip_space(d, i, n);
    if (i >= n) {
        lx->i = i;
        w->s = "";
        w->n = 0;
        w->at = n;
        return 0;
    }
    start = i;
    i = d[i] == '{' || d[i] == '}' ? i + 1 : word_end(d, i, n);
#if defined(__SSE2__)
found:
#endif
    lx->i = i;
    w->s = (const char *)d + start;
    w->n = i - start;
    w->at = start;
    return 1;
}

/* The word is `kw` without ASCII case. Inlined, so that strlen(kw) is a constant. */
static GANIM_ALWAYS_INLINE int is(const word *w, const char *kw)
{
    size_t n = strlen(kw);
    if (w->n != n) return 0;
    if (!reference && !memcmp(w->s, kw, n)) return 1; /* the same bytes: a few loads (n a constant) */
    for (size_t i = 0; i < n; i++) {
        char a = w->s[i], b = kw[i];
        if (reference || a != b) { /* the same letter in another case, or no match */
            if (a >= 'a' && a <= 'z') a = (char)(a - 32);
            if (b >= 'a' && b <= 'z') b = (char)(b - 32);
            if (a != b) return 0;
        }
    }
    return 1;
}

/* The keyword kw (1-16 bytes, a constant where inlined) as the next word, written as kw
 * and followed by a white space byte (a brace: by anything), as writers lay out a
 * joint's lines: next_word's word (white space skipped, then kw's bytes, none white space
 * or a brace, up to the white space; a brace is a word alone) and is()'s yes, without the
 * word's search; lx->i after it. Else 0, lx and w untouched (the caller's next_word reads
 * it). 32 bytes left: the white space before it within one 16-byte load. */
static GANIM_ALWAYS_INLINE int keyword_in_place(lexer *lx, const char *kw, word *w)
{
#if defined(__SSE2__)
    size_t n = strlen(kw), i = lx->i;
    const uint8_t *d = lx->d;
    if (reference || lx->n - i < 32) return 0;
    unsigned m = ~ws_mask16(d + i) & 0xFFFFu;
    if (!m) return 0;
    size_t s = i + (size_t)__builtin_ctz(m);
    int brace = n == 1 && (kw[0] == '{' || kw[0] == '}');
    if (memcmp(d + s, kw, n) != 0 || !(brace || space(d[s + n]))) return 0;
    w->s = (const char *)d + s;
    w->n = n;
    w->at = s;
    lx->i = s + n;
    return 1;
#else
    (void)lx, (void)kw, (void)w;
    return 0;
#endif
}

static ganim_code expected(lexer *lx, const word *w, const char *what)
{
    if (!w->n)
        return ganim_fail(lx->f->err, GANIM_ERR_TRUNCATED, lx->n, "bvh: the text ends where %s was expected", what);
    return ganim_fail(lx->f->err, GANIM_ERR_CORRUPT, w->at, "bvh: '%.*s' where %s was expected",
                      (int)(w->n > 40 ? 40 : w->n), w->s, what);
}

/* The double nearest a scanned number of 1 to 19 digits, no dropped tail and 10^-1 to
 * 10^-31 after its digits (m x 10^-k: "-2.3239016e-23" is 23239016 x 10^-30), which
 * gdec_fast leaves to gdec_double (its exact path: ~2,000 instructions) when k > 22: m / 5^k
 * by one 128-bit division (5^31 < 2^72; m << s has its top bit at 2^127, so the quotient
 * has 56 bits or more), rounded to 53 bits, ties to even, with the remainder as the sticky
 * bit, then times 2^-k and 2^-s, exact (the value >= 10^-31 is a normal double). The
 * nearest double is unique: gdec_double's. Returns 0 (out untouched) for any other
 * number; *inexact says whether the double differs from the number. */
int bvh_decimal_double(const gdec *d, double *out, int *inexact)
{
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;
    /* clang-format off */
    static const uint64_t p5[28] = { /* 5^0 .. 5^27 (< 2^63) */
        1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u, 1953125u, 9765625u, 48828125u, 244140625u,
        1220703125u, 6103515625u, 30517578125u, 152587890625u, 762939453125u, 3814697265625u, 19073486328125u,
        95367431640625u, 476837158203125u, 2384185791015625u, 11920928955078125u, 59604644775390625u,
        298023223876953125u, 1490116119384765625u, 7450580596923828125u
    };
    /* clang-format on */
    int k = d->count - d->exp10;
    if (d->count < 1 || d->count > 19 || d->tail || k < 1 || k > 31) return 0;
    uint64_t m = 0;
    for (int i = 0; i < d->count; i++) m = m * 10 + (uint64_t)d->digit[i];
    u128 five = k <= 27 ? (u128)p5[k] : (u128)p5[27] * p5[k - 27];
    if (!m) return 0;
    int s = 64 + __builtin_clzll(m); /* m << s: its top bit at 2^127 */
    u128 n = (u128)m << s, q = n / five;
    uint64_t hi = (uint64_t)(q >> 64);
    int r = (hi ? 128 - __builtin_clzll(hi) : 64 - __builtin_clzll((uint64_t)q)) - 53; /* q's bits below 53 */
    uint64_t mant = (uint64_t)(q >> r);
    u128 rest = q & (((u128)1 << r) - 1), half = (u128)1 << (r - 1);
    int sticky = n % five != 0;
    if (rest > half || (rest == half && (sticky || (mant & 1u)))) mant++;
    *inexact = rest != 0 || sticky;
    /* mant x 2^(r - s - k), mant in [2^52, 2^53] (2^53 after a carry: the exponent's field
     * takes it), a normal double: its fields directly, the sign too */
    uint64_t bits =
        ((uint64_t)(r - s - k + 52 + 1023) << 52) + (mant - ((uint64_t)1 << 52)) + ((uint64_t)(d->negative != 0) << 63);
    memcpy(out, &bits, sizeof bits);
    return 1;
#else
    (void)d, (void)out, (void)inexact;
    return 0;
#endif
}

/* The float nearest a number bvh_decimal_double takes: its double's, unless that double was
 * rounded onto a midpoint between two floats (then gdec_float's exact comparison decides;
 * 0 here). Else the number and its double lie on the same side of every midpoint (each is
 * a double), and a double equal to the number rounds as the number would. */
static int decimal_float(const gdec *d, float *out)
{
    double x;
    int inexact;
    if (!bvh_decimal_double(d, &x, &inexact)) return 0;
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    if (inexact && (bits & 0x1FFFFFFFu) == 0x10000000u) return 0;
    *out = (float)x;
    return 1;
}

/* One white space byte at d[*at] and a number that white space, a brace or the text's end
 * ends, as exports write OFFSETs: next_word's word is then the bytes gdec_fast took (a
 * number has no white space or brace in it), so number()'s value and place without the
 * word's search: 1 with *out and *at after the number; else 0 (*out may be written, *at
 * untouched). */
static GANIM_ALWAYS_INLINE int number_in_place(const uint8_t *d, size_t *at, size_t n, float *out)
{
    size_t i = *at;
    if (n - i < 3 || !space(d[i]) || space(d[i + 1])) return 0;
    uint8_t c = d[i + 1], e = d[i + 2];
    if (c >= '0' && c <= '9' && (space(e) || e == '{' || e == '}')) { /* "0", the commonest */
        *out = (float)(c - '0');
        *at = i + 2;
        return 1;
    }
    size_t k = gdec_fast_float(d + i + 1, n - i - 1, out);
    if (k && (i + 1 + k == n || space(d[i + 1 + k]) || d[i + 1 + k] == '{' || d[i + 1 + k] == '}')) {
        *at = i + 1 + k;
        return 1;
    }
    return 0;
}

static ganim_code number(lexer *lx, float *out, const char *what)
{
    if (!reference && number_in_place(lx->d, &lx->i, lx->n, out)) return GANIM_OK; /* else from the same place */
    word w;
    next_word(lx, &w);
    /* a short number (decimal_fast.h), read in the text up to its end, that is the whole
     * word: gdec_float's float, finite. gdec_fast takes the characters gdec_scan takes, and
     * the byte after the word (white space or a brace) is no number's: the word alone
     * reads the same. Else gdec on the word, which reads it or says why it is not a number. */
    if (!reference) {
        if (w.n == 1 && w.s[0] >= '0' && w.s[0] <= '9') { /* "0", the commonest OFFSET value */
            *out = (float)(w.s[0] - '0');
            return GANIM_OK;
        }
        if (w.n && gdec_fast_float((const uint8_t *)w.s, lx->n - w.at, out) == w.n) return GANIM_OK;
    }
    gdec d;
    if (!w.n || gdec_scan(w.s, w.n, GDEC_LENIENT, &d) != w.n) return expected(lx, &w, what);
    float v;
    if (reference || !decimal_float(&d, &v)) v = gdec_float(&d);
    if (!isfinite(v))
        return ganim_fail(lx->f->err, GANIM_ERR_CORRUPT, w.at, "bvh: %s %.*s is too large", what,
                          (int)(w.n > 40 ? 40 : w.n), w.s);
    *out = v;
    return GANIM_OK;
}

/* The rest of the line (the name after ROOT / JOINT), without a '{' that ends it, copied
 * into the document (the bone's name), or skipped (out NULL). */
/* The rest of the line from d[i]: the name in d[*start..*end) (spaces and tabs before it
 * skipped, white space after it trimmed), ended by a line end, a '{' or the text's end;
 * returns that place. */
static GANIM_ALWAYS_INLINE size_t name_scan(const uint8_t *d, size_t i, size_t n, size_t *start, size_t *end)
{
    while (i < n && (d[i] == ' ' || d[i] == '\t')) i++;
    *start = i;
#if defined(__SSE2__)
    if (!reference) /* 16 bytes at a time: the first line end or '{' */
        for (; n - i >= 16; i += 16) {
            __m128i b = _mm_loadu_si128((const __m128i *)(d + i));
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('\n')), _mm_cmpeq_epi8(b, _mm_set1_epi8('\r'))),
                _mm_cmpeq_epi8(b, _mm_set1_epi8('{'))));
            if (m) {
                i += (size_t)__builtin_ctz(m);
                break;
            }
        }
#endif
    while (i < n && d[i] != '\n' && d[i] != '\r' && d[i] != '{') i++;
    size_t e = i;
    while (e > *start && space(d[e - 1])) e--;
    *end = e;
    return i;
}

static ganim_code name_rest(lexer *lx, const char **out)
{
    size_t start, end;
    lx->i = name_scan(lx->d, lx->i, lx->n, &start, &end);
    if (!out) return GANIM_OK;
    char *s = ganim_doc_strndup(lx->f->doc, (const char *)lx->d + start, end - start);
    if (!s) return GANIM_NOMEM(lx->f->err);
    *out = s;
    return GANIM_OK;
}

static ganim_code add_joint(bvh_file *f, int32_t parent, uint64_t at, bvh_joint **out)
{
    if (f->joint_count == f->joint_cap) {
        uint32_t cap = f->joint_cap ? f->joint_cap * 2 : 64;
        bvh_joint *j = ganim_doc_alloc_array_raw(f->scratch, cap, sizeof *j); /* each zeroed when added */
        if (!j) return GANIM_NOMEM(f->err);
        if (f->joint_count) memcpy(j, f->joints, f->joint_count * sizeof *j);
        f->joints = j; /* the old array stays in the scratch arena until the read ends */
        f->joint_cap = cap;
    }
    bvh_joint *j = &f->joints[f->joint_count++];
    memset(j, 0, sizeof *j);
    j->parent = parent;
    j->at = at;
    *out = j;
    return GANIM_OK;
}

/* A channel's name without case ("Xposition" ... "Zrotation"): its code, or -1. The
 * axis letter and the eight letters after it compared at once: for a letter, setting
 * bit 5 (0x20) of both bytes is is()'s comparison without case (no other byte gives a
 * letter's lower case so). */
static GANIM_ALWAYS_INLINE int channel_code(const word *w)
{
    if (w->n != 9) return -1;
    unsigned axis = (unsigned)(((uint8_t)w->s[0] | 0x20u) - 'x');
    if (axis > 2) return -1;
    uint64_t rest = gdec_ld8((const uint8_t *)w->s + 1) | 0x2020202020202020u;
    if (rest == gdec_ld8((const uint8_t *)"position")) return (int)axis;
    if (rest == gdec_ld8((const uint8_t *)"rotation")) return (int)axis + 3;
    return -1;
}

/* One white space byte and a channel name that white space or a brace ends, as files
 * write them: the word next_word would find (its 9 bytes are letters: no white space or
 * brace), and channel_code's code, without the word's search; lx->i after it. Else -1,
 * lx->i and w untouched. */
static inline int channel_in_place(lexer *lx, word *w)
{
    const uint8_t *d = lx->d;
    size_t i = lx->i;
    if (lx->n - i < 11 || !space(d[i]) || !(space(d[i + 10]) || d[i + 10] == '{' || d[i + 10] == '}')) return -1;
    word c = { (const char *)d + i + 1, 9, i + 1 };
    int code = channel_code(&c);
    if (code < 0) return -1;
    *w = c;
    lx->i = i + 10;
    return code;
}

static ganim_code channels(lexer *lx, bvh_joint *j)
{
    static const char *const names[6] = {
        "Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"
    };
    word w;
    const uint8_t *t = lx->d;
    size_t i = lx->i;
    if (!reference && lx->n - i >= 3 && space(t[i]) && t[i + 1] >= '0' && t[i + 1] <= '6' &&
        (space(t[i + 2]) || t[i + 2] == '{' || t[i + 2] == '}')) { /* " 6 ": next_word's word "6", in place */
        j->nch = (uint8_t)(t[i + 1] - '0');
        w = (word){ (const char *)t + i + 1, 1, i + 1 };
        lx->i = i + 2;
    } else if (next_word(lx, &w), !reference && w.n == 1 && w.s[0] >= '0' && w.s[0] <= '6') {
        j->nch = (uint8_t)(w.s[0] - '0'); /* the count as files write it */
    } else {
        gdec d;
        if (!w.n || gdec_scan(w.s, w.n, GDEC_LENIENT, &d) != w.n) return expected(lx, &w, "the number of channels");
        double count = gdec_double(&d);
        if (!(count >= 0 && count <= 6) || count != floor(count))
            return ganim_fail(lx->f->err, GANIM_ERR_CORRUPT, w.at, "bvh: %.*s channels; a joint has 0 to 6",
                              (int)(w.n > 20 ? 20 : w.n), w.s);
        j->nch = (uint8_t)count;
    }
    uint8_t have = 0;
    for (uint8_t k = 0; k < j->nch; k++) {
        int code = reference ? -1 : channel_in_place(lx, &w);
        if (code < 0) {
            next_word(lx, &w);
            if (!reference) code = channel_code(&w);
            else
                for (int c = 0; c < 6; c++)
                    if (is(&w, names[c])) code = c;
        }
        if (code < 0) return expected(lx, &w, "a channel (Xposition ... Zrotation)");
        if (have & (1u << code))
            return ganim_fail(lx->f->err, GANIM_ERR_CORRUPT, w.at, "bvh: joint '%.100s' names %s twice", j->name,
                              names[code]);
        have |= (uint8_t)(1u << code);
        j->ch[k] = (uint8_t)code;
    }
    if (lx->f->channels > UINT32_MAX - 6)
        return ganim_fail(lx->f->err, GANIM_ERR_LIMIT, w.at, "bvh: too many channels");
    j->first = lx->f->channels;
    lx->f->channels += j->nch;
    return GANIM_OK;
}

/* OFFSET and CHANNELS of a joint just opened (in either order), or of an End Site; `next`
 * is the word after them, read already (lx->i after it), for the caller. */
static ganim_code joint_body(lexer *lx, bvh_joint *j, int end_site, word *next)
{
    word w;
    int got_offset = 0, got_channels = 0;
    for (;;) {
        /* commonly OFFSET, then CHANNELS (not for an End Site), each on its line */
        if (got_offset ? got_channels || end_site || !keyword_in_place(lx, "CHANNELS", &w)
                       : !keyword_in_place(lx, "OFFSET", &w))
            next_word(lx, &w);
        if (is(&w, "OFFSET") && !got_offset) {
            float *o = end_site ? j->end : j->offset;
            for (int k = 0; k < 3; k++) {
                const uint8_t *d = lx->d;
                size_t i = lx->i;
                if (!reference && lx->n - i >= 3 && space(d[i]) && d[i + 1] >= '0' && d[i + 1] <= '9' &&
                    (space(d[i + 2]) || d[i + 2] == '{' || d[i + 2] == '}')) { /* number()'s " 0 " here */
                    o[k] = (float)(d[i + 1] - '0');
                    lx->i = i + 2;
                    continue;
                }
                ganim_code code = number(lx, &o[k], "an OFFSET value");
                if (code != GANIM_OK) return code;
            }
            got_offset = 1;
        } else if (is(&w, "CHANNELS") && !got_channels && !end_site) {
            ganim_code code = channels(lx, j);
            if (code != GANIM_OK) return code;
            got_channels = 1;
        } else {
            break;
        }
    }
    if (!got_offset) return expected(lx, &w, end_site ? "the End Site's OFFSET" : "OFFSET");
    *next = w;
    return GANIM_OK;
}

/* The keyword kw (1-8 bytes, a constant where inlined) at d[i], these bytes, followed by a
 * white space byte: 1 (the caller checked n - i >= 9: one 8-byte load). next_word's word
 * there is kw then, and is()'s yes. */
static GANIM_ALWAYS_INLINE int exact_word(const uint8_t *d, size_t i, const char *kw)
{
    size_t k = strlen(kw);
    uint8_t want[8] = { 0 };
    memcpy(want, kw, k);
    uint64_t mask = k >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * k)) - 1;
    return (gdec_ld8(d + i) & mask) == gdec_ld8(want) && space(d[i + k]);
}

/* skip_space's place, the common short run of white space found in one 16-byte load. */
static GANIM_ALWAYS_INLINE size_t skip_ws(const uint8_t *d, size_t i, size_t n)
{
#if defined(__SSE2__)
    if (n - i >= 16) {
        unsigned m = ~ws_mask16(d + i) & 0xFFFFu;
        if (m) return i + (size_t)__builtin_ctz(m);
    }
#endif
    return skip_space(d, i, n);
}

/* A joint's lines as writers lay them out, in one pass, at the hierarchy loop's next word
 * (lx->i): "ROOT" or "JOINT" (these bytes) and a space or tab, the name (name_rest's),
 * '{', "OFFSET" and three numbers (number_in_place's), "CHANNELS", a count 0-6 and the
 * channels' names (channels()'s first cases: " 6", channel_in_place), each keyword followed
 * by white space; or an End Site: "End", a space, "Site" and white space, the rest of its
 * line, '{', "OFFSET", three numbers and '}'. These are the words the loop, joint_body and
 * channels() would read from here, in the cases they take without an error (the ROOT outside
 * any joint, a JOINT or End Site inside one, no channel named twice, the channel count
 * short of its limit), and the loop then goes on from the same place: the same joint, End
 * Site, allocations (add_joint, then the name's copy) and place. Checked before anything is
 * changed: 0 on any other byte, lx and f untouched (the loop reads the words as before);
 * else 1, with *code an allocation's failure or GANIM_OK, and *current as the loop leaves it. */
static int joint_in_place(lexer *lx, int32_t *current, ganim_code *code)
{
    bvh_file *f = lx->f;
    const uint8_t *d = lx->d;
    const size_t n = lx->n;
    size_t i = skip_ws(d, lx->i, n), at = i, start = 0, end = 0;
    if (n - i < 9) return 0; /* exact_word's load and byte after it */
    int kind;                /* 0 ROOT, 1 JOINT, 2 End Site */
    if (d[i] == 'J' && exact_word(d, i, "JOINT")) kind = 1, i += 5;
    else if (d[i] == 'R' && exact_word(d, i, "ROOT")) kind = 0, i += 4;
    else if (d[i] == 'E' && exact_word(d, i, "End Site")) kind = 2, i += 8; /* "End", one space, "Site" */
    else return 0;
    if (kind == 0 ? *current >= 0 : *current < 0) return 0; /* the loop's error */
    if (kind != 2 && d[i] != ' ' && d[i] != '\t') return 0; /* the name after one space or tab */
    i = name_scan(d, i, n, &start, &end);
    i = skip_ws(d, i, n);
    if (i >= n || d[i] != '{') return 0;
    i = skip_ws(d, i + 1, n);
    if (n - i < 9 || !exact_word(d, i, "OFFSET")) return 0;
    i += 6;
    float o[3];
    if (n - i >= 8 && (gdec_ld8(d + i) & 0xFFFFFFFFFFFFu) == gdec_ld8((const uint8_t *)" 0 0 0\0\0") &&
        space(d[i + 6])) { /* number_in_place's " 0" three times, as exports write a zero OFFSET */
        o[0] = o[1] = o[2] = 0;
        i += 6;
    } else {
        for (int k = 0; k < 3; k++)
            if (!number_in_place(d, &i, n, &o[k])) return 0;
    }
    if (kind == 2) {
        i = skip_ws(d, i, n);
        if (i >= n || d[i] != '}') return 0;
        bvh_joint *j = &f->joints[*current];
        memcpy(j->end, o, sizeof o);
        j->end_site = 1;
        f->end_sites++;
        lx->i = i + 1;
        *code = GANIM_OK;
        if (counting) in_place_count++;
        return 1;
    }
    i = skip_ws(d, i, n);
    if (n - i < 9 || !exact_word(d, i, "CHANNELS")) return 0;
    i += 8;
    if (n - i < 3 || !space(d[i]) || d[i + 1] < '0' || d[i + 1] > '6' ||
        !(space(d[i + 2]) || d[i + 2] == '{' || d[i + 2] == '}'))
        return 0;
    uint8_t nch = (uint8_t)(d[i + 1] - '0'), ch[6], have = 0;
    lexer t = { f, d, n, i + 2 };
    for (uint8_t k = 0; k < nch; k++) {
        word w;
        int c = channel_in_place(&t, &w);
        if (c < 0 || (have >> c & 1)) return 0;
        have |= (uint8_t)(1u << c);
        ch[k] = (uint8_t)c;
    }
    if (f->channels > UINT32_MAX - 6) return 0;
    bvh_joint *j = NULL;
    if ((*code = add_joint(f, *current, at, &j)) != GANIM_OK) return 1;
    char *name = ganim_doc_strndup(f->doc, (const char *)d + start, end - start);
    if (!name) {
        *code = GANIM_NOMEM(f->err);
        return 1;
    }
    j->name = name;
    memcpy(j->offset, o, sizeof o);
    j->nch = nch;
    memcpy(j->ch, ch, nch);
    j->first = f->channels;
    f->channels += nch;
    *current = (int32_t)(f->joint_count - 1);
    lx->i = t.i;
    if (counting) in_place_count++;
    return 1;
}

/* Apart from the frame loop (GANIM_OUT_OF_LINE): its words inlined here leave the loop's code
 * as it was. */
static GANIM_OUT_OF_LINE ganim_code hierarchy(lexer *lx)
{
    bvh_file *f = lx->f;
    word w;
    if (!keyword_in_place(lx, "HIERARCHY", &w)) next_word(lx, &w);
    if (!is(&w, "HIERARCHY")) return expected(lx, &w, "HIERARCHY");
    int32_t current = -1; /* the open joint */
    int have = 0;         /* w holds the next word already (a joint body's) */
    for (;;) {
        if (!have && !keyword_in_place(lx, "}", &w)) { /* commonly a joint's end */
            ganim_code code;
            if (!reference && joint_in_place(lx, &current, &code)) { /* commonly the next joint */
                if (code != GANIM_OK) return code;
                continue;
            }
            next_word(lx, &w);
        }
        have = 0;
        if (!w.n && current < 0 && f->joint_count) { /* a hierarchy without MOTION: a skeleton */
            f->motion_at = lx->n;
            return GANIM_OK;
        }
        if (is(&w, "ROOT") || is(&w, "JOINT")) {
            int root = is(&w, "ROOT");
            if (root && current >= 0) return expected(lx, &w, "JOINT or '}' (ROOT inside a joint)");
            if (!root && current < 0) return expected(lx, &w, "ROOT (a JOINT outside any ROOT)");
            bvh_joint *j = NULL;
            ganim_code code = add_joint(f, current, w.at, &j);
            if (code == GANIM_OK) code = name_rest(lx, &j->name);
            if (code != GANIM_OK) return code;
            if (!keyword_in_place(lx, "{", &w)) next_word(lx, &w);
            if (!is(&w, "{")) return expected(lx, &w, "'{' after the joint's name");
            if ((code = joint_body(lx, j, 0, &w)) != GANIM_OK) return code;
            have = 1;
            current = (int32_t)(f->joint_count - 1);
        } else if (is(&w, "End")) {
            if (current < 0) return expected(lx, &w, "ROOT (an End Site outside any joint)");
            bvh_joint *j = &f->joints[current];
            if (!keyword_in_place(lx, "Site", &w)) next_word(lx, &w);
            if (!is(&w, "Site")) return expected(lx, &w, "'Site' after 'End'");
            /* some writers name the End Site on the same line: skip to the brace */
            ganim_code code = name_rest(lx, NULL);
            if (code != GANIM_OK) return code;
            if (!keyword_in_place(lx, "{", &w)) next_word(lx, &w);
            if (!is(&w, "{")) return expected(lx, &w, "'{' after End Site");
            if ((code = joint_body(lx, j, 1, &w)) != GANIM_OK) return code;
            if (!is(&w, "}")) return expected(lx, &w, "'}' closing the End Site");
            j->end_site = 1;
            f->end_sites++;
        } else if (is(&w, "}")) {
            if (current < 0) return expected(lx, &w, "ROOT (a '}' closes nothing)");
            current = f->joints[current].parent;
        } else if (is(&w, "MOTION")) {
            if (current >= 0)
                return ganim_fail(f->err, GANIM_ERR_CORRUPT, w.at, "bvh: MOTION while joint '%.100s' is still open",
                                  f->joints[current].name);
            f->motion_at = w.at;
            f->has_motion = 1;
            break;
        } else {
            return expected(lx, &w, f->joint_count ? "JOINT, End Site, '}' or MOTION" : "ROOT");
        }
    }
    if (!f->joint_count) return ganim_fail(f->err, GANIM_ERR_CORRUPT, f->motion_at, "bvh: the hierarchy has no joint");
    return GANIM_OK;
}

double bvh_pow10(int k)
{
    static const double p[] = { 1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11,
                                1e-10, 1e-9,  1e-8,  1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,
                                1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,  1e11,  1e12,  1e13,
                                1e14,  1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21,  1e22 };
    if (!reference && k >= -22 && k <= 22) return p[k + 22];
    return pow(10.0, k);
}

/* "Frames:" or "Frames" ":" (inlined: the keywords' lengths constants, their compares a few loads) */
static GANIM_ALWAYS_INLINE int keyword_colon(lexer *lx, const char *kw, const char *with_colon)
{
    word w;
    size_t save = lx->i;
    if (keyword_in_place(lx, with_colon, &w)) return 1; /* as files write it */
    next_word(lx, &w);
    if (is(&w, with_colon)) return 1;
    if (is(&w, kw)) {
        size_t save2 = lx->i;
        next_word(lx, &w);
        if (is(&w, ":")) return 1;
        lx->i = save2;
        return 1; /* "Frames 10": accepted */
    }
    lx->i = save;
    return 0;
}

/* The decimal digits of 0 < m < 10^15 (test_bvh checks it at every power of 2 and of 10,
 * where either side steps): t = floor(bits * log10(2)) from 1233 / 4096 (exact below
 * 2^50), t + 1 digits unless m < 10^t. */
int bvh_decimal_len(uint64_t m)
{
    static const uint64_t p10[16] = { 1u,
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
                                      1000000000000000u };
    unsigned bits = 64u - (unsigned)__builtin_clzll(m), t = (bits * 1233u) >> 12;
    return (int)t + (m >= p10[t]);
}

/* The frame time as files write it, digits, then '.' and digits or nothing (15 digits at
 * most, no sign or exponent), the whole word: gdec_scan's and gdec_double's results
 * without them. The digits make m < 10^15 exactly, so m / 10^fraction digits is the
 * correctly rounded value, gdec_double's; the digit count and 10^exp10 are gdec's (the
 * significant digits from the first non-zero one to the last non-zero one). 0 for any
 * other word (then gdec reads it). */
static int frame_time_plain(const word *w, bvh_file *f)
{
    uint64_t m = 0;
    size_t i = 0, nint, ndig;
    for (; i < w->n && w->s[i] >= '0' && w->s[i] <= '9'; i++) m = m * 10 + (uint64_t)(w->s[i] - '0');
    nint = i;
    if (!nint) return 0;
    if (i < w->n && w->s[i] == '.')
        for (i++; i < w->n && w->s[i] >= '0' && w->s[i] <= '9'; i++) m = m * 10 + (uint64_t)(w->s[i] - '0');
    ndig = i - (i > nint); /* the digits, without the '.' */
    if (i != w->n || ndig > 15) return 0;
    f->frame_time = (double)m / bvh_pow10((int)(ndig - nint));
    if (!m) { /* no non-zero digit */
        f->frame_time_digits = 0;
        f->frame_time_unit = 0;
        return 1;
    }
    /* m < 10^15 has len digits (the first non-zero one at ndig - len) and tz trailing zeros
     * (the last non-zero one at ndig - 1 - tz): len - tz significant digits, the last in
     * the place nint - ndig + tz */
    int len = bvh_decimal_len(m), tz = 0;
    while (m % 10u == 0) m /= 10u, tz++;
    f->frame_time_digits = len - tz;
    f->frame_time_unit = bvh_pow10((int)nint - (int)ndig + tz);
    return 1;
}

static GANIM_OUT_OF_LINE ganim_code motion_header(lexer *lx)
{
    bvh_file *f = lx->f;
    word w;
    if (!keyword_colon(lx, "Frames", "Frames:")) {
        next_word(lx, &w);
        return expected(lx, &w, "Frames:");
    }
    next_word(lx, &w);
    gdec d;
    double frames = 0;
    size_t digits = 0;
    if (!reference) /* the count as files write it: 1 to 9 digits, read directly */
        while (digits < w.n && digits < 10 && w.s[digits] >= '0' && w.s[digits] <= '9')
            frames = frames * 10 + (w.s[digits++] - '0');
    if (!digits || digits != w.n || digits > 9) {
        if (!w.n || gdec_scan(w.s, w.n, GDEC_LENIENT, &d) != w.n) return expected(lx, &w, "the number of frames");
        frames = gdec_double(&d);
    }
    if (!(frames >= 0) || frames != floor(frames) || frames > 4294967295.0)
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, w.at, "bvh: Frames: %.*s is not a count",
                          (int)(w.n > 30 ? 30 : w.n), w.s);
    f->frames_declared = (uint32_t)frames;
    size_t save = lx->i;
    if (!keyword_in_place(lx, "Frame", &w)) next_word(lx, &w);
    if (!is(&w, "Frame")) return expected(lx, &w, "Frame Time:");
    if (!keyword_colon(lx, "Time", "Time:")) {
        lx->i = save;
        next_word(lx, &w);
        return expected(lx, &w, "Frame Time:");
    }
    next_word(lx, &w);
    if (!reference && frame_time_plain(&w, f)) {
        f->frame_time_at = w.at;
        f->values_at = lx->i;
        return GANIM_OK;
    }
    if (!w.n || gdec_scan(w.s, w.n, GDEC_LENIENT, &d) != w.n) return expected(lx, &w, "the frame time in seconds");
    f->frame_time = gdec_double(&d);
    f->frame_time_digits = d.count;
    f->frame_time_unit = d.count ? bvh_pow10(d.exp10 - d.count) : 0;
    f->frame_time_at = w.at;
    f->values_at = lx->i;
    return GANIM_OK;
}

/* The frame value at lx->i, any number gdec reads (value number `got` of the section). */
static ganim_code exact_value(lexer *lx, uint64_t got, double *out, size_t *used)
{
    bvh_file *f = lx->f;
    gdec d;
    size_t len = gdec_scan((const char *)lx->d + lx->i, lx->n - lx->i, GDEC_LENIENT, &d);
    if (!len || (lx->i + len < lx->n && !space(lx->d[lx->i + len]))) {
        word w;
        next_word(lx, &w);
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, w.at, "bvh: frame %llu: '%.*s' is not a number",
                          (unsigned long long)(got / f->channels), (int)(w.n > 30 ? 30 : w.n), w.s);
    }
    /* kept in double: the angles of a float32 rotation need more than a float's digits */
    double v;
    int inexact;
    if (reference || !bvh_decimal_double(&d, &v, &inexact)) v = gdec_double(&d);
    if (!isfinite((float)v))
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, lx->i, "bvh: frame %llu: a value is too large",
                          (unsigned long long)(got / f->channels));
    *out = v;
    *used = len;
    return GANIM_OK;
}

/* The frame values: frames x channels numbers, line breaks anywhere, converted one
 * frame at a time (bvh_frame) as soon as the frame is whole. */
static ganim_code frame_values(lexer *lx)
{
    bvh_file *f = lx->f;
    uint64_t want = (uint64_t)f->frames_declared * f->channels;
    f->frames = f->frames_declared;
    ganim_code lc = ganim_check_counts(f->doc, f->frame_time_at, "bvh: the MOTION section", f->frames_declared,
                                       f->joint_count ? f->joint_count : 1, 0, f->err);
    if (lc != GANIM_OK) return lc;
    if (!want) return GANIM_OK;
    /* every number takes a character and a separator: no more can be in the text */
    uint64_t room = (uint64_t)(lx->n - lx->i) / 2 + 1;
    uint64_t cap = want < room ? want : room;
    f->frame_room = (uint32_t)((cap + f->channels - 1) / f->channels);
    /* one frame, then a 0 that bvh_frame reads for the channels a joint lacks */
    double *values = ganim_doc_alloc_array_raw(f->scratch, (size_t)f->channels + 1, sizeof(double));
    if (!values) return GANIM_NOMEM(f->err);
    values[f->channels] = 0;
    ganim_code code = bvh_begin(f);
    if (code != GANIM_OK) return code;
    uint64_t got = 0;
    uint32_t k = 0, fr = 0; /* the value in the frame, the frame */
    const uint8_t *text = lx->d;
    size_t n = lx->n, i = lx->i;
    size_t stop = n >= 31 ? n - 31 : 0; /* below it 32 bytes can be read */
    /* The last bytes (text[stop..n), 31 or fewer) copied into `tail` and followed by spaces,
     * so that their numbers take the fast loop too: gdec_fast_ws's result depends only on
     * the bytes up to its number's first white space, and a number that the end of the text
     * ends is read by gdec_fast and gdec as if a space followed it. Places in `tail` map
     * back to the text's (stop + place); only reads, never an error, happen there. */
    uint8_t tail[64];
    int tail_ready = 0;
    while (got < cap) {
        double v;
        size_t len;
        /* the commonest numbers and their separators (decimal_fast.h), or white space, in
         * a run up to the frame's end (or `cap`): the loop's state stays in registers */
        uint64_t left = cap - got;
        uint32_t until = f->channels - k < left ? f->channels : k + (uint32_t)left, k0 = k;
        const uint8_t *base = text, *at = text + i, *at_stop = text + stop;
        size_t base_at = 0; /* the text's place of base[0] */
        if (i >= stop && !reference) {
            if (!tail_ready) {
                memcpy(tail, text + stop, n - stop);
                memset(tail + (n - stop), ' ', sizeof tail - (n - stop));
                tail_ready = 1;
            }
            base = tail;
            base_at = stop;
            at = tail + (i - stop);
            at_stop = tail + (n - stop);
        }
        double *out = values + k, *out_end = values + until;
        while (at < at_stop && out < out_end) {
#if defined(__SSE2__)
            if (at[0] == '0' && space(at[1])) { /* "0", gdec_fast_ws's first case, before the compare */
                *out++ = 0;
                at += 2;
                continue;
            }
            size_t e = ws_next16(at);
            len = gdec_fast_ws(at, out);
            if (len == e) { /* the common case: the next place from the white space */
                at += e;
                out++;
                continue;
            }
            if (len) {
#else
            if ((len = gdec_fast_ws(at, out)) != 0) {
#endif
                at += len;
                out++;
            } else if (space(*at)) {
                at++;
            } else {
                break;
            }
        }
        i = base_at + (size_t)(at - base);
        if (i > n) i = n; /* a last number ended by the end of the text: its space is tail's */
        k = (uint32_t)(out - values);
        got += k - k0;
        if (k == f->channels) goto frame_whole;
        if (got >= cap) break;
        if (base == text && i >= stop && i < n && !reference) continue; /* on in the tail */
        while (i < n && space(text[i])) i++;
        if (i >= n) break;
        /* the common number, a short decimal followed by white space or the end, in
         * one pass (decimal_fast.h); anything else through gdec, which reads it or
         * says why it is not a number */
        len = gdec_fast(text + i, n - i, &v);
        if (len && (i + len >= n || space(text[i + len]))) {
            values[k] = v;
        } else {
            lx->i = i;
            code = exact_value(lx, got, &values[k], &len);
            if (code != GANIM_OK) return code;
        }
        i += len;
        i += i < n; /* the white space after it (or nothing at the end) */
        got++;
        if (++k == f->channels) {
        frame_whole:
            k = 0;
            if ((code = bvh_frame(f, values, fr++)) != GANIM_OK) return code;
            if (f->redo) { /* bvh_frame asks for the frames again, from the first */
                if ((code = bvh_begin(f)) != GANIM_OK) return code;
                got = 0;
                fr = 0;
                i = f->values_at;
            }
        }
    }
    lx->i = i;
    if ((code = bvh_frames_end(f)) != GANIM_OK) return code;
    uint32_t complete = (uint32_t)(got / f->channels);
    if (complete < f->frames_declared) {
        if (!complete)
            return ganim_fail(f->err, GANIM_ERR_TRUNCATED, lx->n,
                              "bvh: Frames: %u, but the text ends before a whole frame (%llu of %u values)",
                              f->frames_declared, (unsigned long long)got, f->channels);
        ganim_doc_warn(f->doc, GANIM_WARN_INCONSISTENT, lx->n,
                       "bvh: Frames: %u, but the text holds %u whole frames; those are read", f->frames_declared,
                       complete);
        f->frames = complete;
    }
    while (lx->i < lx->n && space(lx->d[lx->i])) lx->i++;
    if (lx->i < lx->n)
        ganim_doc_warn(f->doc, GANIM_WARN_EXTRA_BYTES, lx->i, "bvh: %zu bytes after the last frame are ignored",
                       lx->n - lx->i);
    return GANIM_OK;
}

ganim_code bvh_parse(bvh_file *f)
{
    lexer lx = { f, f->data, f->size, 0 };
    if (f->size >= 3 && f->data[0] == 0xEF && f->data[1] == 0xBB && f->data[2] == 0xBF) lx.i = 3;
    ganim_code code = hierarchy(&lx);
    if (code == GANIM_OK && f->has_motion) code = motion_header(&lx);
    if (code == GANIM_OK && f->has_motion) code = frame_values(&lx);
    return code;
}
