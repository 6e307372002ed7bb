/* The bounded JSON reader (json.h): recursive descent with a depth limit; the members of
 * an open array or object wait on one scratch stack and are copied into the arena, in
 * one piece, when it closes. The arena's bytes (as it rounds them) and the stack's are
 * counted against gj_parser.max_bytes; member names and short strings seen before are shared; members the
 * caller does not keep, and everything inside them, are scanned without being stored (skimmed
 * when they hold no escape), and members it parses later are scanned so and kept as their
 * text (gj_parse_later reads them from it). An object's member names are first looked for
 * where the last object at the same depth had them (an array's items share their members:
 * ps.shape), with the same outcome as the look-up of the names seen. */
#include "io/json.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#endif
/* Long strings (glTF's base64 records) scanned 64 bytes a turn with AVX2: gcc or clang on
 * x86, chosen at run time. */
#if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define GJ_HAVE_AVX2 1
#include <immintrin.h>
#else
#define GJ_HAVE_AVX2 0
#endif

#include "core/internal.h"
#include "io/decimal.h"
#include "io/decimal_fast.h"

/* 1: the fast paths that have a general one beside them left out (a test builds this file
 * again so, and compares the two parsers on many texts) */
#ifndef GJ_GENERAL_ONLY
#define GJ_GENERAL_ONLY 0
#endif

#define KEY_CACHE 64u
#define SHAPE_DEPTH 8u   /* objects this shallow remember their members' names (ps.shape) */
#define SHAPE_MEMBERS 8u /* the first this many of them */
#define STACK0 64u       /* the parser's stack's first values, in place (ps.stack0) */

/* member_name, called for names and short string values: always inlined (GANIM_ALWAYS_INLINE) in both (gcc stops
 * inlining it once it has two callers, which costs more than the copy) */

typedef struct ps {
    const gj_parser *p;
    const uint8_t *s;
    size_t n, i;
    ganim_allocator a;
    gj_value *stack;
    size_t top, cap;
    size_t used;       /* bytes of the tree and the stack so far */
    size_t stack_used; /* of which the stack's (given back at the end) */
    unsigned discard;  /* > 0: inside a member that is not kept */
    int lend;          /* the value about to be read may be lent (gj_parser.lend) */
    ganim_code over;   /* a take refused by the bound: its error, until took_nothing reads it */
    /* records being read (gj_parser.records), before their copy in the arena: each
     * object's '{' (rec_at, rec_acap of them) and its fields (rec_field, rec_fcap) */
    uint32_t *rec_at;
    gj_field *rec_field;
    size_t rec_acap, rec_fcap;
    ganim_error *err;
    uint8_t shape_used[SHAPE_DEPTH]; /* whether shape[depth] was cleared */
    /* (from here on begin() clears only what says a place is empty: keys[].s, strs[].s,
     * said[].key) */
    struct seen_text {
        const char *s;
        size_t len;
        uint64_t w[2];   /* its first and last 8 bytes (fewer: the rest zero) */
    } keys[KEY_CACHE],   /* member names without escapes, by a hash of their text */
        strs[KEY_CACHE]; /* likewise string values (apart: many names of nodes and
                          * animations would push the member names out) */
    struct {
        const char *key, *self;
        unsigned depth;
        uint8_t keep, lend, later;
    } said[KEY_CACHE]; /* what keep and lend said of a member name (a pointer into the tree:
                        * the same pointer is the same text) in a container at a depth */
    /* The names of the last object's members met at each shallow depth, in order, with
     * what member_name and `said` gave for them: the next object there (an array's items
     * share their members) finds its names by comparing them where they should be. */
    struct shape {
        const char *key, *self; /* the shared name (NULL: none) and the object's own name */
        uint64_t w[2];          /* as in keys[] */
        /* names up to 15 bytes: the name and its closing quote as two words, and which of
         * their bytes those are (msk 0: not made yet, or the name is longer: compared through w) */
        uint64_t pat[2], msk[2];
        uint32_t len;
        uint8_t slot, keep, lend, later;
    } shape[SHAPE_DEPTH][SHAPE_MEMBERS]; /* (container clears key, self and msk[0] a depth at a time) */
    /* The stack's first values, in place (a small text's stack asks the allocator for
     * nothing; past them the stack is the allocator's, grown as before: the same bytes
     * charged). begin() does not clear it. */
    gj_value stack0[STACK0];
} ps;

static uint64_t at(const ps *st, size_t i) { return st->p->base + i; }

static ganim_code fail_here(ps *st, ganim_code code, size_t i, const char *what)
{
    if (i >= st->n)
        return ganim_fail(st->err, GANIM_ERR_TRUNCATED, at(st, st->n), "%s: the text ends where %s was expected",
                          st->p->who, what);
    unsigned char c = st->s[i];
    if (c >= 0x20 && c < 0x7F)
        return ganim_fail(st->err, code, at(st, i), "%s: '%c' where %s was expected", st->p->who, c, what);
    return ganim_fail(st->err, code, at(st, i), "%s: byte 0x%02X where %s was expected", st->p->who, c, what);
}

static void skip_space(ps *st)
{
    if (st->i < st->n && st->s[st->i] > ' ') return; /* (the usual case: no space) */
    while (st->i < st->n) {
        uint8_t c = st->s[st->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        st->i++;
    }
}

/* The first index from i of s[0..n) that is not a space. */
static GANIM_ALWAYS_INLINE size_t space_from(const uint8_t *s, size_t n, size_t i)
{
    if (i < n && s[i] > ' ') return i; /* (the usual case: no space) */
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

#if defined(__GNUC__)
#define GJ_COLD __attribute__((noinline, cold))
#else
#define GJ_COLD
#endif

/* charge's failure, out of line: its 256-byte name buffer would otherwise give every
 * charge (and take, which inlines it) a frame to build on the fast path. */
static GJ_COLD ganim_code charge_fail(ps *st, size_t max)
{
    char named[256];
    const char *name = st->p->limit_name ? st->p->limit_name : "the JSON memory limit";
    if (st->p->name_limit) {
        st->p->name_limit(st->p->name_limit_user, named, sizeof named);
        name = named;
    }
    return ganim_fail(st->err, GANIM_ERR_LIMIT, at(st, st->i),
                      "%s: the values up to here need more than %zu bytes of memory (%s)", st->p->who, max, name);
}

/* Counts `bytes` more against max_bytes; GANIM_ERR_LIMIT (naming the limit) past it. */
static ganim_code charge(ps *st, size_t bytes)
{
    size_t max = st->p->max_bytes;
    if (max && (bytes > max || st->used > max - bytes)) return charge_fail(st, max);
    st->used = bytes > SIZE_MAX - st->used ? SIZE_MAX : st->used + bytes;
    return GANIM_OK;
}

/* take's refusal by the bound, out of line: charge's failure, kept for took_nothing. */
static GJ_COLD void *take_over(ps *st, size_t max)
{
    st->over = charge_fail(st, max);
    return NULL;
}

/* `size` bytes of the tree's arena, counted as the arena rounds them (16 bytes), or NULL:
 * then took_nothing(st) is the error (the bound's, or the allocator's). charge, then the
 * arena, as one call that keeps nothing for after the arena's (which it ends with): no
 * registers saved, no error to map on the usual way. */
static void *take(ps *st, size_t size)
{
    const size_t bytes = size > SIZE_MAX - 15u ? SIZE_MAX : (size + 15u) & ~(size_t)15u, max = st->p->max_bytes;
    if (max && (bytes > max || st->used > max - bytes)) return take_over(st, max);
    st->used = bytes > SIZE_MAX - st->used ? SIZE_MAX : st->used + bytes;
    return st->p->alloc(st->p->alloc_user, size);
}

/* The error of a take that gave NULL: the bound's (its message written by take_over), else
 * the allocator's. */
static GJ_COLD ganim_code took_nothing(ps *st)
{
    ganim_code code = st->over;
    if (code == GANIM_OK) return GANIM_NOMEM(st->err);
    st->over = GANIM_OK;
    return code;
}

/* Gives back what the parser's own buffers took of the allocator. */
static void free_buffers(ps *st)
{
    if (st->stack != st->stack0) ganim_free(&st->a, st->stack, st->cap * sizeof *st->stack);
    ganim_free(&st->a, st->rec_at, st->rec_acap * sizeof *st->rec_at);
    ganim_free(&st->a, st->rec_field, st->rec_fcap * sizeof *st->rec_field);
}

static ganim_code push(ps *st, const gj_value *v)
{
    if (st->top == st->cap) {
        /* (a stack the bound cut to one value grows by one: cap / 2 would be 0) */
        size_t cap = st->cap ? st->cap + (st->cap > 1 ? st->cap / 2 : 1) : STACK0, bytes;
        if (st->p->max_bytes) { /* no more than the bound leaves room for */
            size_t room = st->used < st->p->max_bytes ? (st->p->max_bytes - st->used) / sizeof *st->stack : 0;
            if (cap - st->cap > room) cap = st->cap + (room ? room : 1);
        }
        ganim_code code = charge(st, (cap - st->cap) * sizeof *st->stack);
        if (code != GANIM_OK) return code;
        st->stack_used += (cap - st->cap) * sizeof *st->stack;
        if (!ganim_mul_size(cap, sizeof *st->stack, &bytes)) return GANIM_NOMEM(st->err);
        /* the first values (at most STACK0) in place; past them copied to the allocator's
         * memory, then reallocated there (a failure keeps the stack as it was) */
        gj_value *grown = st->stack0;
        if (st->cap && st->stack != st->stack0)
            grown = ganim_realloc(&st->a, st->stack, st->cap * sizeof *st->stack, bytes);
        else if (st->cap && (grown = ganim_alloc(&st->a, bytes)))
            memcpy(grown, st->stack0, st->cap * sizeof *st->stack);
        if (!grown) return GANIM_NOMEM(st->err);
        st->stack = grown;
        st->cap = cap;
    }
    st->stack[st->top++] = *v;
    return GANIM_OK;
}

static int hex4(const uint8_t *p, uint32_t *v)
{
    *v = 0;
    for (int k = 0; k < 4; k++) {
        uint8_t c = p[k];
        uint32_t d = c >= '0' && c <= '9'   ? (uint32_t)(c - '0')
                     : c >= 'a' && c <= 'f' ? (uint32_t)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (uint32_t)(c - 'A' + 10)
                                            : 16u;
        if (d > 15) return 0;
        *v = *v << 4 | d;
    }
    return 1;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18);
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A string at st->i (the opening quote), decoded into the arena (only checked while
 * discarding: *out is then NULL). Escapes never make a string longer than its text (a
 * \uXXXX of 6 bytes gives at most 3 bytes, a surrogate pair of 12 bytes 4), so the
 * text's length bounds the copy. */
/* Whether any of the 8 bytes of w is '"', '\\' or below 0x20 (no false negatives; a word
 * it flags is looked at byte by byte). */
static int special8(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20u) & ~w)) & high ? 1 : 0;
}

#if GJ_HAVE_AVX2
/* The first byte of s[end..n) that is '"', '\\' or below 0x20, looked for 64 bytes a turn
 * while 64 are left: its index, or where fewer than 64 are left (the caller goes on). */
__attribute__((target("avx2"))) static size_t plain_run_avx2(const uint8_t *s, size_t end, size_t n)
{
    const __m256i quote = _mm256_set1_epi8('"'), backslash = _mm256_set1_epi8('\\'), ctl = _mm256_set1_epi8(0x1F);
    for (; n - end >= 64; end += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + end));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + end + 32));
        __m256i ha = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(a, quote), _mm256_cmpeq_epi8(a, backslash)),
                                     _mm256_cmpeq_epi8(_mm256_max_epu8(a, ctl), ctl));
        __m256i hb = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(b, quote), _mm256_cmpeq_epi8(b, backslash)),
                                     _mm256_cmpeq_epi8(_mm256_max_epu8(b, ctl), ctl));
        if (!_mm256_testz_si256(_mm256_or_si256(ha, hb), _mm256_or_si256(ha, hb))) {
            uint64_t lo = (uint32_t)_mm256_movemask_epi8(ha), hi = (uint32_t)_mm256_movemask_epi8(hb);
            return end + (size_t)__builtin_ctzll(lo | hi << 32);
        }
    }
    return end;
}
#endif

static ganim_code string(ps *st, const char **out, uint32_t *len, uint8_t *lent)
{
    size_t start = ++st->i, end = start;
    int escapes = 0;
    for (;;) {
#if defined(__SSE2__) && defined(__GNUC__)
        /* sixteen plain bytes at a time, then from the first that is not */
        while (end < st->n && st->n - end >= 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(st->s + end));
            __m128i hit = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
                _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F)));
            unsigned mask = (unsigned)_mm_movemask_epi8(hit);
            if (mask) {
                end += (size_t)__builtin_ctz(mask);
                break;
            }
            end += 16;
#if GJ_HAVE_AVX2
            /* sixteen plain bytes and more than 64 to go: a long string, 64 bytes a turn */
            if (st->n - end > 64 && __builtin_cpu_supports("avx2")) end = plain_run_avx2(st->s, end, st->n);
#endif
        }
#endif
        /* eight plain bytes at a time, then one at a time from the word that is not */
        while (end < st->n && st->n - end >= 8) { /* (an escape may end past the text) */
            uint64_t w;
            memcpy(&w, st->s + end, sizeof w);
            if (special8(w)) break;
            end += 8;
        }
        if (end >= st->n || st->s[end] == '"') break;
        if (st->s[end] < 0x20) return fail_here(st, GANIM_ERR_CORRUPT, end, "a character of a string");
        if (st->s[end] == '\\') escapes = 1;
        end += st->s[end] == '\\' ? 2 : 1;
    }
    if (end >= st->n) return fail_here(st, GANIM_ERR_TRUNCATED, st->n, "the end of a string");
    if (end - start > UINT32_MAX - 1)
        return ganim_fail(st->err, GANIM_ERR_LIMIT, at(st, start), "%s: a string of %zu bytes is too long", st->p->who,
                          end - start);
    char *o = NULL, utf8[4];
    *out = NULL;
    if (lent && !escapes && !st->discard) { /* the text's own bytes */
        *lent = 1;
        *out = (const char *)st->s + start;
        *len = (uint32_t)(end - start);
        st->i = end + 1;
        return GANIM_OK;
    }
    if (!st->discard) {
        if (!(o = take(st, end - start + 1))) return took_nothing(st);
    }
    size_t k = 0;
    if (!escapes) { /* the text is the string */
        if (o) {
            memcpy(o, st->s + start, end - start);
            o[end - start] = 0;
        }
        *out = o;
        *len = (uint32_t)(end - start);
        st->i = end + 1;
        return GANIM_OK;
    }
    for (size_t i = start; i < end;) {
        uint8_t c = st->s[i];
        if (c != '\\') {
            if (o) o[k] = (char)c;
            k++;
            i++;
            continue;
        }
        uint8_t e = st->s[i + 1];
        char one = 0;
        i += 2;
        switch (e) {
        case '"': one = '"'; break;
        case '\\': one = '\\'; break;
        case '/': one = '/'; break;
        case 'b': one = '\b'; break;
        case 'f': one = '\f'; break;
        case 'n': one = '\n'; break;
        case 'r': one = '\r'; break;
        case 't': one = '\t'; break;
        case 'u': {
            uint32_t cp, lo;
            if (i + 4 > end || !hex4(st->s + i, &cp))
                return fail_here(st, GANIM_ERR_CORRUPT, i - 2, "four hexadecimal digits after \\u");
            i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 6 <= end && st->s[i] == '\\' && st->s[i + 1] == 'u' &&
                hex4(st->s + i + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            } else if (cp >= 0xD800 && cp < 0xE000) {
                cp = 0xFFFD; /* a lone surrogate: the replacement character */
            }
            k += put_utf8(o ? o + k : utf8, cp);
            continue;
        }
        default: return fail_here(st, GANIM_ERR_CORRUPT, i - 1, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
        }
        if (o) o[k] = one;
        k++;
    }
    if (o) o[k] = 0;
    *out = o;
    *len = (uint32_t)k;
    st->i = end + 1;
    return GANIM_OK;
}

/* A member name (or a string value that is not lent) at st->i, and its length: one seen
 * before without escapes is shared, not stored again.
 * Names are told apart by their length and their first and last 8 bytes (the whole name
 * up to 16 bytes; longer ones are compared whole). */
/* The first and last 8 bytes of the plain name s[start..start+n) (fewer: the rest zero),
 * as keys[] holds them. */
static GANIM_ALWAYS_INLINE void name_words(const ps *st, size_t start, size_t n, uint64_t w[2])
{
    static const uint8_t ones[16] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
    w[0] = w[1] = 0;
    if (n >= 8) {
        memcpy(&w[0], st->s + start, 8);
        memcpy(&w[1], st->s + start + n - 8, 8);
    } else if (st->n - start >= 8) { /* the first n bytes of a word */
        uint64_t keep;
        memcpy(&w[0], st->s + start, 8);
        memcpy(&keep, ones + 8 - n, 8);
        w[0] &= keep;
    } else {
        memcpy(&w[0], st->s + start, n);
    }
}

static GANIM_ALWAYS_INLINE unsigned name_slot(const uint64_t w[2], size_t n)
{
    return (unsigned)(((w[0] ^ (w[1] * 31u) ^ n) * 0x9E3779B97F4A7C15u) >> 58) % KEY_CACHE;
}

/* Copies n bytes from src to o; 4 to 16 by two words each end (the words overlap), without
 * memcpy's call (names and short strings are mostly that long). */
static GANIM_ALWAYS_INLINE void copy_short(char *o, const uint8_t *src, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(o, &a, 8);
        memcpy(o + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, src, 4);
        memcpy(&b, src + n - 4, 4);
        memcpy(o, &a, 4);
        memcpy(o + n - 4, &b, 4);
    } else {
        memcpy(o, src, n);
    }
}

/* (*slot_out: the name's place in keys when it is stored or found there, else KEY_CACHE) */
static GANIM_ALWAYS_INLINE ganim_code member_name(ps *st, struct seen_text *keys, const char **out, uint32_t *out_len,
                                                  unsigned *slot_out)
{
    size_t start = st->i + 1, end = start;
    uint32_t len = 0;
    int found = 0;
#if defined(__SSE2__) && defined(__GNUC__)
    if (st->n - start >= 16) { /* (st->s[st->i] is the opening quote: start <= n) */
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(st->s + start));
        __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
                         _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F)));
        unsigned mask = (unsigned)_mm_movemask_epi8(hit);
        if (mask) {
            end = start + (size_t)__builtin_ctz(mask), found = 1;
        } else {              /* (a longer one: node and animation names) 16 bytes at a time, to 64 */
            end = start + 16; /* (none of those before end) */
            while (end - start < 64 && st->n - end >= 16) {
                x = _mm_loadu_si128((const __m128i *)(const void *)(st->s + end));
                hit = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
                    _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F)));
                if ((mask = (unsigned)_mm_movemask_epi8(hit)) != 0) {
                    end += (size_t)__builtin_ctz(mask), found = 1;
                    break;
                }
                end += 16;
            }
        }
    }
#endif
    if (!found) /* (from end: the bytes before it are none of those) */
        while (end < st->n && end - start < 64 && st->s[end] != '"' && st->s[end] != '\\' && st->s[end] >= 0x20) end++;
    int plain = end < st->n && st->s[end] == '"';
    size_t n = end - start;
    uint64_t w[2] = { 0, 0 };
    if (plain) name_words(st, start, n, w);
    unsigned slot = name_slot(w, n);
    *slot_out = KEY_CACHE;
    if (plain && !st->discard && keys[slot].s && keys[slot].len == n && keys[slot].w[0] == w[0] &&
        keys[slot].w[1] == w[1] && (n <= 16 || memcmp(keys[slot].s, st->s + start, n) == 0)) {
        *out = keys[slot].s;
        *out_len = (uint32_t)n;
        *slot_out = slot;
        st->i = end + 1;
        return GANIM_OK;
    }
    /* not seen: stored as string() stores it, without reading it again */
    if (!GJ_GENERAL_ONLY && plain && !st->discard) {
        st->i = start; /* (where string() is when it takes: a limit's offset) */
        char *o = take(st, n + 1);
        if (!o) {
            *out = NULL;
            *out_len = 0;
            return took_nothing(st);
        }
        copy_short(o, st->s + start, n);
        o[n] = 0;
        *out = o;
        *out_len = (uint32_t)n;
        keys[slot].s = o;
        keys[slot].len = n;
        keys[slot].w[0] = w[0];
        keys[slot].w[1] = w[1];
        *slot_out = slot;
        st->i = end + 1;
        return GANIM_OK;
    }
    ganim_code code = string(st, out, &len, NULL);
    *out_len = len;
    if (code == GANIM_OK && plain && *out) {
        keys[slot].s = *out;
        keys[slot].len = len;
        keys[slot].w[0] = w[0];
        keys[slot].w[1] = w[1];
        *slot_out = slot;
    }
    return code;
}

/* Fills in sh->pat and sh->msk for shape_name from sh->key and sh->len (a shared name,
 * NUL-terminated; msk 0 when there is none or it is longer than 15 bytes). */
static void shape_pattern(struct shape *sh)
{
    uint8_t pat[16] = { 0 }, msk[16] = { 0 };
    if (sh->key && sh->len < 16) {
        memcpy(pat, sh->key, sh->len);
        pat[sh->len] = '"';
        memset(msk, 0xFF, sh->len + 1u);
    }
    memcpy(sh->pat, pat, sizeof pat);
    memcpy(sh->msk, msk, sizeof msk);
}

/* Whether the member name at i (its opening quote) is the one `sh` remembers, and
 * member_name would give it back from keys[] as it stands (the same pointer, the same
 * place after it): then the index past it, else 0. Not while discarding. */
static GANIM_ALWAYS_INLINE size_t shape_name(const ps *st, struct shape *sh, size_t i)
{
    size_t start = i + 1, n = sh->len;
    if (sh->msk[0] && st->n - start >= 16) { /* a short name: its 16 bytes from start at once */
        uint64_t a, b;
        memcpy(&a, st->s + start, 8);
        memcpy(&b, st->s + start + 8, 8);
        if (((a ^ sh->pat[0]) & sh->msk[0]) | ((b ^ sh->pat[1]) & sh->msk[1]) || st->keys[sh->slot].s != sh->key)
            return 0;
        return start + n + 1;
    }
    if (!sh->key || st->n - start <= n || st->s[start + n] != '"') return 0;
    uint64_t w[2];
    name_words(st, start, n, w);
    if (w[0] != sh->w[0] || w[1] != sh->w[1] || st->keys[sh->slot].s != sh->key ||
        (n > 16 && memcmp(sh->key, st->s + start, n) != 0))
        return 0;
    if (n < 16 && !sh->msk[0]) shape_pattern(sh); /* (met twice: worth the words) */
    return start + n + 1;
}

static GANIM_ALWAYS_INLINE ganim_code value(ps *st, unsigned depth, gj_value *v, const char *key);

#if defined(__SSE2__) && defined(__GNUC__)
/* gdec_json_len's answer for its usual number, found in the 16 bytes at s (all readable):
 * [-] digits without a leading zero, or 0, [. digits], then a byte no number holds (not a
 * digit, '.', 'e', 'E', '+', '-') within the 16. 0: not that shape (number_len's general
 * way decides; also when it is not a number). Its digits are one class of the 16 bytes
 * (as whole_digits16's); built in both builds of this file, used only by the fast one
 * (test_json_general compares it with the general number_len). */
static GANIM_ALWAYS_INLINE size_t number16(const uint8_t *s)
{
    const __m128i x = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)s), _mm_set1_epi8('0'));
    const unsigned digits = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(9)), x));
    const unsigned a = s[0] == '-';
    const unsigned whole = (unsigned)__builtin_ctz(~(digits >> a)); /* (at most 16 - a) */
    if (!whole || (s[a] == '0' && whole > 1)) return 0;
    unsigned e = a + whole; /* (at most 16) */
    if (e < 15 && s[e] == '.') {
        const unsigned frac = (unsigned)__builtin_ctz(~(digits >> (e + 1)));
        if (!frac) return 0;
        e += 1 + frac;
    }
    if (e >= 16) return 0;
    const uint8_t c = s[e]; /* (not a digit: the runs end there) */
    return c == '.' || (c | 0x20) == 'e' || c == '+' || c == '-' ? 0 : e;
}
#endif

/* The length of the JSON number at s[0..n) that is not a short whole one (a fraction, an
 * exponent, or a long or odd text): number16's where 16 bytes are left and it knows it,
 * else gdec_json_len's where the text is plain, else gdec_scan's (0: not a number). */
static GANIM_ALWAYS_INLINE size_t number_len(const uint8_t *s, size_t n)
{
#if defined(__SSE2__) && defined(__GNUC__)
    if (!GJ_GENERAL_ONLY && n >= 16) {
        const size_t quick = number16(s);
        if (quick) return quick;
    }
#endif
    size_t len = gdec_json_len(s, n);
    if (!len) {
        gdec d;
        len = gdec_scan((const char *)s, n, GDEC_JSON, &d);
    }
    return len;
}

/* How many of the first `most` (at most 18) bytes of s are ASCII digits before the
 * first that is not: eight at a time while eight are left (nothing read at or past
 * s + most), then one at a time. */
static GANIM_ALWAYS_INLINE size_t digit_run(const uint8_t *s, size_t most)
{
    size_t len = 0;
    while (most - len >= 8) {
        uint64_t x = gdec_nondigits(gdec_ld8(s + len) ^ 0x3030303030303030u);
        if (x) return len + gdec_low_bit(x) / 8;
        len += 8;
    }
    while (len < most && (uint8_t)(s[len] - '0') < 10) len++;
    return len;
}

/* The end of a string without escapes whose opening quote is at i: the index of its
 * closing quote, or 0 when it holds a backslash or a control byte or the text ends first
 * (what string() alone tells apart). */
static size_t skim_string(const ps *st, size_t i)
{
    size_t end = i + 1;
#if defined(__SSE2__) && defined(__GNUC__)
    while (st->n - end >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(st->s + end));
        __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
                         _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F)));
        unsigned mask = (unsigned)_mm_movemask_epi8(hit);
        if (mask) {
            end += (size_t)__builtin_ctz(mask);
            return st->s[end] == '"' && end - i - 1 <= UINT32_MAX - 1 ? end : 0;
        }
        end += 16;
    }
#endif
    while (end < st->n && st->s[end] != '"' && st->s[end] != '\\' && st->s[end] >= 0x20) end++;
    return end < st->n && st->s[end] == '"' && end - i - 1 <= UINT32_MAX - 1 ? end : 0;
}

/* Skims the value at st->i, nested `depth` deep, that is not stored: 1 when it is JSON
 * without escapes (nor anything else string() or value() would refuse) and st->i is past
 * it, else 0 with st->i unchanged: the caller then reads it with value(), which finds the
 * error where it is (a member is so scanned at most twice). */
/* What the tree would charge for a skimmed value's inside (skim_walk's count, for
 * scan_records' spans): its values (32 bytes each in their container's items), its names
 * and strings (round16(len + 1) each, as if none were shared), and how many values and
 * names or strings there are. */
struct skim_count {
    uint64_t bytes;
    size_t values, texts;
};

static GANIM_ALWAYS_INLINE int skim_walk(ps *st, unsigned depth, struct skim_count *cnt)
{
    enum { MOST = 256 };
    uint8_t is_object[MOST];
    unsigned level = 0;
    size_t i = st->i;
    const uint8_t *s = st->s;
    const size_t n = st->n;
#define SKIM_SPACE() \
    while (i < n && s[i] <= ' ' && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++
    for (;;) {
        /* a value at i */
        SKIM_SPACE();
        if (i >= n) return 0;
        if (cnt && level) cnt->values++, cnt->bytes += sizeof(gj_value); /* (an item of its container) */
        uint8_t c = s[i];
        if (c == '{' || c == '[') {
            if (level == MOST || depth + level >= st->p->max_depth) return 0;
            is_object[level++] = c == '{';
            i++;
            SKIM_SPACE();
            if (i < n && s[i] == (c == '{' ? '}' : ']')) {
                i++;
                level--;
            } else if (c == '{') { /* the first member's name */
                size_t end;
                if (i >= n || s[i] != '"' || !(end = skim_string(st, i))) return 0;
                if (cnt) cnt->bytes += ((uint64_t)(end - i - 1) + 16) & ~(uint64_t)15, cnt->texts++;
                i = end + 1;
                SKIM_SPACE();
                if (i >= n || s[i] != ':') return 0;
                i++;
                continue;
            } else {
                continue;
            }
        } else if (c == '"') {
            size_t end = skim_string(st, i);
            if (!end) return 0;
            if (cnt) cnt->bytes += ((uint64_t)(end - i - 1) + 16) & ~(uint64_t)15, cnt->texts++;
            i = end + 1;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t len = digit_run(s + i, n - i < 18 ? n - i : 18); /* a whole number as value() takes it */
            if (!len || len >= 18 || (c == '0' && len > 1) ||
                (i + len < n && (s[i + len] == '.' || s[i + len] == 'e' || s[i + len] == 'E'))) {
                len = number_len(s + i, n - i);
                if (!len || len > UINT32_MAX) return 0;
            }
            i += len;
        } else if (n - i >= 4 && (memcmp(s + i, "true", 4) == 0 || memcmp(s + i, "null", 4) == 0)) {
            i += 4;
        } else if (n - i >= 5 && memcmp(s + i, "false", 5) == 0) {
            i += 5;
        } else {
            return 0;
        }
        /* after a value: ',' and the next, or the ends of containers */
        for (;;) {
            if (!level) {
                st->i = i;
                return 1;
            }
            SKIM_SPACE();
            if (i >= n) return 0;
            if (s[i] == ',') {
                i++;
                if (is_object[level - 1]) {
                    size_t end;
                    SKIM_SPACE();
                    if (i >= n || s[i] != '"' || !(end = skim_string(st, i))) return 0;
                    if (cnt) cnt->bytes += ((uint64_t)(end - i - 1) + 16) & ~(uint64_t)15, cnt->texts++;
                    i = end + 1;
                    SKIM_SPACE();
                    if (i >= n || s[i] != ':') return 0;
                    i++;
                }
                break;
            }
            if (s[i] != (is_object[level - 1] ? '}' : ']')) return 0;
            i++;
            level--;
        }
    }
#undef SKIM_SPACE
}

static int skim(ps *st, unsigned depth) { return skim_walk(st, depth, NULL); }

/* ---- records (gj_parser.records) -------------------------------------------------------- */

static size_t add_sat(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

/* The length of the number at s[i..n) as value() takes it (0: not a number). */
static size_t number_at(const uint8_t *s, size_t n, size_t i)
{
    uint8_t c = s[i];
    size_t len = digit_run(s + i, n - i < 18 ? n - i : 18);
    if (!len || len >= 18 || (c == '0' && len > 1) ||
        (i + len < n && (s[i + len] == '.' || s[i + len] == 'e' || s[i + len] == 'E')))
        len = number_len(s + i, n - i);
    return len;
}

/* Names met in records (scan_records): up to 15 bytes, known by their bytes and closing
 * quote as two masked words (as shape_name), with the field they are (k: none). */
#define REC_NAMES 16u
struct rec_name {
    /* names up to 14 bytes: the name, its closing quote and ':' (cmsk[0] 0: longer) */
    uint64_t cpat[2], cmsk[2];
    uint64_t pat[2], msk[2];
    size_t len;
    uint64_t stored; /* what the tree would charge for the name: round16(len + 1) */
    unsigned j;
};

/* The index of the name at s[i] (its opening quote) in tab[0..*used), found where `guess`
 * says first; a name not there yet is added when there is room (k: not a field). Returns
 * REC_NAMES when the name is longer than 15 bytes or there is no room, and *end then is
 * its closing quote (0: not a plain name) and *field the field it is (k: none). */
static GANIM_ALWAYS_INLINE unsigned rec_name_at(const ps *st, struct rec_name *tab, unsigned *used, unsigned guess,
                                                const gj_records *r, const size_t *name_len, size_t i, size_t *end,
                                                unsigned *field)
{
    const uint8_t *s = st->s;
    size_t start = i + 1;
    *end = 0;
    if (st->n - start >= 16) {
        uint64_t a, b;
        memcpy(&a, s + start, 8);
        memcpy(&b, s + start + 8, 8);
        if (guess < *used &&
            !(((a ^ tab[guess].pat[0]) & tab[guess].msk[0]) | ((b ^ tab[guess].pat[1]) & tab[guess].msk[1])))
            return guess;
        for (unsigned t = 0; t < *used; t++)
            if (!(((a ^ tab[t].pat[0]) & tab[t].msk[0]) | ((b ^ tab[t].pat[1]) & tab[t].msk[1]))) return t;
    }
    size_t e = skim_string(st, i);
    *field = r->fields;
    if (!e) return REC_NAMES;
    *end = e;
    size_t len = e - start;
    unsigned j = 0;
    while (j < r->fields && (name_len[j] != len || memcmp(r->names[j], s + start, len) != 0)) j++;
    *field = j;
    if (len >= 16 || *used == REC_NAMES) return REC_NAMES;
    for (unsigned t = 0; t < *used; t++) /* (met before, but near the text's end) */
        if (tab[t].len == len && tab[t].j == j && j < r->fields) return t;
    uint8_t pat[16] = { 0 }, msk[16] = { 0 };
    memcpy(pat, s + start, len);
    pat[len] = '"';
    memset(msk, 0xFF, len + 1);
    struct rec_name *t = &tab[*used];
    memcpy(t->pat, pat, 16);
    memcpy(t->msk, msk, 16);
    if (len < 15) { /* (and ':' right after it) */
        pat[len + 1] = ':';
        msk[len + 1] = 0xFF;
    } else {
        memset(msk, 0, sizeof msk);
    }
    memcpy(t->cpat, pat, 16);
    memcpy(t->cmsk, msk, 16);
    t->len = len;
    t->stored = ((uint64_t)len + 16) & ~(uint64_t)15;
    t->j = j;
    return (*used)++;
}

/* Whether the 16 bytes at s are a name of `t` followed by its closing quote and ':' (t's
 * name at most 14 bytes: t->cmsk[0] not 0). */
static GANIM_ALWAYS_INLINE int rec_name_colon(const uint8_t *s, const struct rec_name *t)
{
    uint64_t a, b;
    memcpy(&a, s, 8);
    memcpy(&b, s + 8, 8);
    return !(((a ^ t->cpat[0]) & t->cmsk[0]) | ((b ^ t->cpat[1]) & t->cmsk[1]));
}

#if defined(__SSE2__) && defined(__GNUC__)
/* Whether the number at p (p[0] a digit, 16 bytes readable) is a whole one of 1 to 15
 * digits as value() takes it (no leading zero, no '.' or exponent after it), its digits
 * found by one class of 16 bytes: its length in *len. */
static GANIM_ALWAYS_INLINE int whole_digits16(const uint8_t *p, size_t *len)
{
    const __m128i x = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), _mm_set1_epi8('0'));
    const unsigned digits = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(9)), x));
    const size_t l = (size_t)__builtin_ctz(~digits); /* (1 to 16: bit 16 of ~digits is set) */
    *len = l;
    return l < 16 && (p[0] != '0' || l == 1) && p[l] != '.' && (p[l] | 0x20) != 'e';
}
#endif

/* The length of the number at s[i] (i < n, s[i] a digit) as value() takes it (0: not a
 * number): a whole one of 1 to 15 digits found 16 bytes at once where 16 are left, else
 * a short whole one byte by byte, else number_at's. */
static GANIM_ALWAYS_INLINE size_t rec_number(const uint8_t *s, size_t n, size_t i)
{
    const uint8_t c = s[i];
#if defined(__SSE2__) && defined(__GNUC__)
    if (!GJ_GENERAL_ONLY && n - i >= 16) {
        size_t len;
        return whole_digits16(s + i, &len) ? len : number_at(s, n, i);
    }
#endif
    /* a short whole number as value() takes it, else number_len's */
    size_t e = i + 1;
    while (e < n && e - i < 17 && (uint8_t)(s[e] - '0') < 10) e++;
    if (c == '0' || e - i >= 17 || (e < n && (s[e] == '.' || s[e] == 'e' || s[e] == 'E'))) return number_at(s, n, i);
    return e - i;
}

/* skim_string's answer for the string at i (its opening quote): the first 16 bytes after
 * the quote looked at here where 16 are left (a record's strings are short), else
 * skim_string's look. */
static GANIM_ALWAYS_INLINE size_t rec_string(const ps *st, size_t i)
{
#if defined(__SSE2__) && defined(__GNUC__)
    if (!GJ_GENERAL_ONLY && st->n - i > 16) {
        const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(st->s + i + 1));
        const __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
                         _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F)));
        const unsigned mask = (unsigned)_mm_movemask_epi8(hit);
        if (mask) {
            const size_t end = i + 1 + (size_t)__builtin_ctz(mask);
            return st->s[end] == '"' ? end : 0;
        }
    }
#endif
    return skim_string(st, i);
}

/* skim_walk of a span field's value (scan_records), counting: out of the records' loop.
 * An array of numbers (a glTF node's rotation, translation, scale, children) is walked
 * here first as skim_walk walks it (the same spaces, the same numbers, the same count: its
 * items' values, no texts; its numbers as plain_value takes them), else by skim_walk
 * (test_json_general compares the two). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int
skim_span(ps *st, unsigned depth, struct skim_count *cnt)
{
    const uint8_t *const s = st->s;
    const size_t n = st->n;
    size_t i = st->i, m = 0;
    if (!GJ_GENERAL_ONLY && i < n && s[i] == '[' && depth < st->p->max_depth) {
        i = space_from(s, n, i + 1);
        if (i < n && s[i] == ']') {
            st->i = i + 1;
            return 1;
        }
        for (;;) {
            size_t len;
            if (i >= n || !(s[i] == '-' || (s[i] >= '0' && s[i] <= '9')) ||
                !(len = s[i] == '-' ? number_at(s, n, i) : rec_number(s, n, i)) || len > UINT32_MAX)
                break;
            m++;
            i = space_from(s, n, i + len);
            if (i < n && s[i] == ',') {
                i = space_from(s, n, i + 1);
                continue;
            }
            if (i < n && s[i] == ']') {
                st->i = i + 1;
                cnt->values += m;
                cnt->bytes += (uint64_t)m * sizeof(gj_value);
                return 1;
            }
            break;
        }
    }
    return skim_walk(st, depth, cnt);
}

/* The end of the plain value (a number, a string without escapes, true, false, null) at
 * s[i] (i < n), as value() takes it: its type, and past it in *end; 0: not one of those. */
static int plain_value(const ps *st, size_t i, uint8_t *type, size_t *len, size_t *end)
{
    const uint8_t *s = st->s;
    size_t n = st->n;
    uint8_t c = s[i];
    if (c == '-' || (c >= '0' && c <= '9')) {
        if (!(*len = c == '-' ? number_at(s, n, i) : rec_number(s, n, i)) || *len > UINT32_MAX) return 0;
        *type = GJ_NUMBER;
        *end = i + *len;
    } else if (c == '"') {
        size_t e = rec_string(st, i);
        if (!e) return 0;
        *len = e - i - 1;
        *type = GJ_STRING;
        *end = e + 1;
    } else if (n - i >= 4 && memcmp(s + i, "true", 4) == 0) {
        *len = 4, *type = GJ_TRUE, *end = i + 4;
    } else if (n - i >= 5 && memcmp(s + i, "false", 5) == 0) {
        *len = 5, *type = GJ_FALSE, *end = i + 5;
    } else if (n - i >= 4 && memcmp(s + i, "null", 4) == 0) {
        *len = 4, *type = GJ_NULL, *end = i + 4;
    } else {
        return 0;
    }
    return 1;
}

/* Reads the array at i (the member's value, a container `adepth` deep) as records into
 * *set and the arena: the index past it, or 0 when it is not of the plain shape records
 * take (then nothing was charged, stored or changed but st->rec_at and rec_field). On success st->used
 * has grown by the records' bytes and a bound of what the tree (its values, names, strings
 * and the stack it would have grown) would have charged, plus the names the tree would
 * store again later where the records' read finds them in its caches (below). */
static size_t scan_records(ps *st, const gj_records *r, size_t i, unsigned adepth, gj_recset **setp, gj_recset *set,
                           ganim_code *code)
{
    const uint8_t *const s = st->s;
    const size_t n = st->n;
    const unsigned k = r->fields;
    const size_t rec = sizeof(uint32_t) + k * sizeof(gj_field); /* an object's record (plus 4 bytes in all) */
    static const gj_field absent[GJ_RECORD_FIELDS] = { { 0, 0, GJ_ABSENT }, { 0, 0, GJ_ABSENT }, { 0, 0, GJ_ABSENT },
                                                       { 0, 0, GJ_ABSENT }, { 0, 0, GJ_ABSENT }, { 0, 0, GJ_ABSENT },
                                                       { 0, 0, GJ_ABSENT }, { 0, 0, GJ_ABSENT } };
    size_t count = 0, most_members = 0, most_inner = 0, most_span = 0, most_texts = 0;
    /* what the tree would have charged for the values, names and strings (no sum of
     * those of a text of less than 4 GiB reaches 2^64) */
    uint64_t tree = 0;
    *code = GANIM_OK;
    /* (the array, its objects, a field's object or a member's array: adepth + 2 deep) */
    if (n > UINT32_MAX || k > GJ_RECORD_FIELDS || st->p->max_depth < adepth + 3 || i >= n || s[i] != '[') return 0;
    size_t name_len[GJ_RECORD_FIELDS], inner_len[GJ_RECORD_FIELDS], inner_off[GJ_RECORD_FIELDS];
    unsigned inner_of[GJ_RECORD_FIELDS]; /* "a.b": the field a (k: not a field of an object) */
    uint8_t has_inner[GJ_RECORD_FIELDS];
    /* "a.b" with b of at most 15 bytes: b and its closing quote as two masked words (as
     * rec_name's; has_pat 0: none) */
    uint64_t ipat[GJ_RECORD_FIELDS][2], imsk[GJ_RECORD_FIELDS][2];
    uint8_t has_pat[GJ_RECORD_FIELDS];
    struct rec_name tab[REC_NAMES + 1]; /* (tab[REC_NAMES]: a guess that never matches) */
    unsigned used = 0;
    uint8_t last[GJ_RECORD_FIELDS * 2];
    /* of a field's object (j), the field its m-th member was last (k: none yet) */
    uint8_t iguess[GJ_RECORD_FIELDS][GJ_RECORD_FIELDS];
    for (unsigned j = 0; j < k; j++) {
        const char *dot = strchr(r->names[j], '.');
        name_len[j] = strlen(r->names[j]);
        inner_of[j] = k;
        has_inner[j] = 0;
        inner_len[j] = inner_off[j] = 0;
        if (dot) { /* (never a member's whole name) */
            size_t outer = (size_t)(dot - r->names[j]);
            for (unsigned o = 0; o < k; o++)
                if (strlen(r->names[o]) == outer && memcmp(r->names[o], r->names[j], outer) == 0) inner_of[j] = o;
            inner_off[j] = outer + 1;
            inner_len[j] = name_len[j] - outer - 1;
            name_len[j] = SIZE_MAX;
        }
        has_pat[j] = inner_of[j] < k && inner_len[j] < 16;
        if (has_pat[j]) {
            uint8_t pat[16] = { 0 }, msk[16] = { 0 };
            memcpy(pat, r->names[j] + inner_off[j], inner_len[j]);
            pat[inner_len[j]] = '"';
            memset(msk, 0xFF, inner_len[j] + 1);
            memcpy(ipat[j], pat, 16);
            memcpy(imsk[j], msk, 16);
        }
    }
    for (unsigned j = 0; j < k; j++)
        if (inner_of[j] < k) has_inner[inner_of[j]] = 1;
    memset(last, REC_NAMES, sizeof last);
    tab[REC_NAMES].cmsk[0] = 0;
    memset(iguess, (int)k, sizeof iguess);
    i = space_from(s, n, i + 1);
    if (i < n && s[i] == ']') return 0; /* (an empty array: the tree's way costs nothing) */
    for (;;) {
        i = space_from(s, n, i);
        if (i >= n || s[i] != '{') return 0;
        if (count == st->rec_acap) {
            /* room for rec_acap objects of at most 8 fields and 8 more fields: the fields'
             * buffer grown first, rec_acap only once both have grown (a failure leaves
             * that true for the next array) */
            size_t cap = st->rec_acap ? st->rec_acap * 2 : 256, fcap = (cap + 1) * GJ_RECORD_FIELDS;
            if (fcap > st->rec_fcap) {
                gj_field *grown =
                    ganim_realloc(&st->a, st->rec_field, st->rec_fcap * sizeof *grown, fcap * sizeof *grown);
                if (!grown) return 0;
                st->rec_field = grown;
                st->rec_fcap = fcap;
            }
            uint32_t *ats = ganim_realloc(&st->a, st->rec_at, st->rec_acap * sizeof *ats, cap * sizeof *ats);
            if (!ats) return 0;
            st->rec_at = ats;
            st->rec_acap = cap;
        }
        gj_field *fl = st->rec_field + count * k; /* (the object's fields, written where they are kept) */
        memcpy(fl, absent, sizeof absent);        /* (every field absent until met) */
        uint32_t at = (uint32_t)i;
        size_t members = 0;
        i = space_from(s, n, i + 1);
        if (i < n && s[i] == '}') {
            i++;
        } else {
            for (;;) {
                size_t end = 0, len;
                unsigned j;
                if (i >= n || s[i] != '"') return 0;
                /* (a guess: any name of tab, or tab[REC_NAMES]; past the first 16
                 * members, the one 16 before's) */
                const unsigned guess = last[members % sizeof last];
                if (!GJ_GENERAL_ONLY && tab[guess].cmsk[0] && n - i > 16 && rec_name_colon(s + i + 1, &tab[guess])) {
                    /* the name where the last object had it, ':' right after it */
                    len = tab[guess].len;
                    j = tab[guess].j;
                    tree += tab[guess].stored;
                    i += len + 3;
                } else {
                    unsigned t = rec_name_at(st, tab, &used, guess, r, name_len, i, &end, &j);
                    if (t < REC_NAMES) {
                        if (members < sizeof last) last[members] = (uint8_t)t;
                        len = tab[t].len;
                        j = tab[t].j;
                        end = i + 1 + len;
                    } else {
                        if (!end) return 0;
                        len = end - i - 1;
                    }
                    i = end + 1;
                    if (i >= n || s[i] != ':') {
                        i = space_from(s, n, i);
                        if (i >= n || s[i] != ':') return 0;
                    }
                    ++i;
                    tree += ((uint64_t)len + 16) & ~(uint64_t)15; /* (the name, were it stored: round16(len + 1)) */
                }
                if (i >= n) return 0;
                if (s[i] <= ' ' && (i = space_from(s, n, i)) >= n) return 0;
                members++;
                uint8_t c = s[i];
                size_t vlen = 0;
                uint8_t type;
#if defined(__SSE2__) && defined(__GNUC__)
                size_t dl;
                if (!GJ_GENERAL_ONLY && (uint8_t)(c - '0') < 10 && n - i >= 16 && whole_digits16(s + i, &dl)) {
                    /* a whole number of 1 to 15 digits (the usual value), stored here (else
                     * rec_number's way, below) */
                    if (j < k) {
                        if (fl[j].type != GJ_ABSENT) return 0; /* (a name repeated) */
                        fl[j].type = GJ_NUMBER;
                        fl[j].at = (uint32_t)i;
                        fl[j].count = (uint32_t)dl;
                    }
                    i += dl;
                    goto after_value;
                }
#endif
                if (c >= '0' && c <= '9') {
                    if (!(vlen = rec_number(s, n, i)) || vlen > UINT32_MAX) return 0;
                    type = GJ_NUMBER;
                } else if (c == '"') {
                    if (!(end = rec_string(st, i))) return 0;
                    vlen = end - i - 1;
                    tree += ((uint64_t)vlen + 16) & ~(uint64_t)15;
                    type = GJ_STRING;
                } else if (c == '-') {
                    if (!(vlen = number_at(s, n, i)) || vlen > UINT32_MAX) return 0;
                    type = GJ_NUMBER;
                } else if (n - i >= 4 && memcmp(s + i, "true", 4) == 0) {
                    vlen = 4, type = GJ_TRUE;
                } else if (n - i >= 5 && memcmp(s + i, "false", 5) == 0) {
                    vlen = 5, type = GJ_FALSE;
                } else if (n - i >= 4 && memcmp(s + i, "null", 4) == 0) {
                    vlen = 4, type = GJ_NULL;
                } else if (c == '{' && j < k && has_inner[j]) { /* (a field's object of plain members) */
                    size_t m = 0, start = i;
                    i = space_from(s, n, i + 1);
                    if (i < n && s[i] != '}') {
                        for (;;) {
                            size_t e, nl, vl;
                            uint8_t ty;
                            if (i >= n || s[i] != '"') return 0;
                            unsigned q = k;
                            if (n - i - 1 >= 16) { /* (a wanted name, known by its bytes and closing quote) */
                                uint64_t a, b;
                                memcpy(&a, s + i + 1, 8);
                                memcpy(&b, s + i + 9, 8);
                                /* first the field this member was in the last such object
                                 * (the first that matches: the loop's answer) */
                                const unsigned g = m < GJ_RECORD_FIELDS ? iguess[j][m] : k;
                                if (!GJ_GENERAL_ONLY && g < k &&
                                    !(((a ^ ipat[g][0]) & imsk[g][0]) | ((b ^ ipat[g][1]) & imsk[g][1])))
                                    q = g;
                                for (unsigned o = 0; o < k && q == k; o++)
                                    if (inner_of[o] == j && has_pat[o] &&
                                        !(((a ^ ipat[o][0]) & imsk[o][0]) | ((b ^ ipat[o][1]) & imsk[o][1])))
                                        q = o;
                                if (q < k && m < GJ_RECORD_FIELDS) iguess[j][m] = (uint8_t)q;
                            }
                            if (q < k) {
                                nl = inner_len[q];
                                e = i + 1 + nl;
                            } else {
                                if (!(e = skim_string(st, i))) return 0;
                                nl = e - i - 1;
                                q = 0;
                                while (q < k && (inner_of[q] != j || inner_len[q] != nl ||
                                                 memcmp(r->names[q] + inner_off[q], s + i + 1, nl) != 0))
                                    q++;
                            }
                            tree += ((uint64_t)nl + 16) & ~(uint64_t)15;
                            i = space_from(s, n, e + 1);
                            if (i >= n || s[i] != ':') return 0;
                            i = space_from(s, n, i + 1);
                            if (i >= n || !plain_value(st, i, &ty, &vl, &e)) return 0;
                            if (ty == GJ_STRING) tree += ((uint64_t)vl + 16) & ~(uint64_t)15;
                            if (q < k) {
                                if (fl[q].type != GJ_ABSENT) return 0; /* (a name repeated) */
                                fl[q].type = ty;
                                fl[q].at = (uint32_t)i;
                                fl[q].count = (uint32_t)(ty == GJ_STRING || ty == GJ_NUMBER ? vl : 0);
                            }
                            m++;
                            i = space_from(s, n, e);
                            if (i < n && s[i] == ',') {
                                i = space_from(s, n, i + 1);
                                continue;
                            }
                            break;
                        }
                    }
                    if (i >= n || s[i] != '}') return 0;
                    i++;
                    tree += ((uint64_t)m * sizeof(gj_value) + 15) & ~(uint64_t)15;
                    if (m > most_inner) most_inner = m;
                    if (fl[j].type != GJ_ABSENT) return 0; /* (a name repeated) */
                    fl[j].type = GJ_OBJECT;
                    fl[j].at = (uint32_t)start;
                    fl[j].count = (uint32_t)m;
                    j = k; /* (stored) */
                    type = GJ_ABSENT;
                } else if (c == '[' && j == k) { /* (min, max: numbers) */
                    size_t m = 0;
                    i = space_from(s, n, i + 1);
                    if (i < n && s[i] != ']') {
                        for (;;) {
                            size_t nl;
                            if (i >= n || !(s[i] == '-' || (s[i] >= '0' && s[i] <= '9')) ||
                                !(nl = number_at(s, n, i)) || nl > UINT32_MAX)
                                return 0;
                            m++;
                            i = space_from(s, n, i + nl);
                            if (i < n && s[i] == ',') {
                                i = space_from(s, n, i + 1);
                                continue;
                            }
                            break;
                        }
                    }
                    if (i >= n || s[i] != ']') return 0;
                    i++;
                    tree += ((uint64_t)m * sizeof(gj_value) + 15) & ~(uint64_t)15;
                    if (m > most_inner) most_inner = m;
                    type = GJ_ABSENT;
                } else if ((c == '{' || c == '[') && j < k && (r->spans >> j & 1u)) {
                    /* a span field's object or array: checked as skim does, kept as its text */
                    struct skim_count cnt = { 0, 0, 0 };
                    const size_t start = i, was = st->i; /* (st->i as it was: the caller's) */
                    st->i = i;
                    const int fine = skim_span(st, adepth + 2, &cnt);
                    i = st->i;
                    st->i = was;
                    if (!fine || i - start > UINT32_MAX) return 0;
                    tree += cnt.bytes;
                    if (cnt.values > most_span) most_span = cnt.values;
                    if (cnt.texts > most_texts) most_texts = cnt.texts;
                    if (fl[j].type != GJ_ABSENT) return 0; /* (a name repeated) */
                    fl[j].type = GJ_LATER;
                    fl[j].at = (uint32_t)start;
                    fl[j].count = (uint32_t)(i - start);
                    j = k; /* (stored) */
                    type = GJ_ABSENT;
                } else {
                    return 0; /* (objects, other arrays, what is not JSON: the tree's way) */
                }
                if (j < k) {
                    if (fl[j].type != GJ_ABSENT || type == GJ_ABSENT) return 0; /* (a name repeated) */
                    fl[j].type = type;
                    fl[j].at = (uint32_t)i;
                    fl[j].count = (uint32_t)(type == GJ_STRING || type == GJ_NUMBER ? vlen : 0);
                }
                if (type == GJ_STRING) i = end + 1;
                else if (type != GJ_ABSENT) i += vlen;
#if defined(__SSE2__) && defined(__GNUC__)
            after_value:
#endif
                if (i < n && s[i] == ',') {
                    if (++i < n && s[i] == '"') continue; /* (the next name, no space) */
                    i = space_from(s, n, i);
                    continue;
                }
                i = space_from(s, n, i);
                if (i < n && s[i] == ',') {
                    i = space_from(s, n, i + 1);
                    continue;
                }
                if (i < n && s[i] == '}') {
                    i++;
                    break;
                }
                return 0;
            }
        }
        st->rec_at[count++] = at;
        tree += ((uint64_t)members * sizeof(gj_value) + 15) & ~(uint64_t)15;
        if (members > most_members) most_members = members;
        if (i < n && s[i] != ',' && s[i] != ']') i = space_from(s, n, i);
        if (i < n && s[i] == ',') {
            i++;
            continue;
        }
        if (i < n && s[i] == ']') {
            i++;
            break;
        }
        return 0;
    }
    if (count > UINT32_MAX) return 0;
    tree += ((uint64_t)count * sizeof(gj_value) + 15) & ~(uint64_t)15;
    size_t bound = tree > SIZE_MAX ? SIZE_MAX : (size_t)tree;
    /* the stack the tree would have grown to: the array's items, an object's members and
     * a min or max array's numbers on top of what it holds */
    size_t need = add_sat(add_sat(st->top + 1, count), add_sat(add_sat(most_members, most_inner), most_span)),
           cap = st->cap;
    while (cap < need) cap = cap ? cap + (cap > 1 ? cap / 2 : 1) : 64; /* (as push grows it) */
    bound = add_sat(bound, (cap - st->cap) * sizeof(gj_value));
    /* The names the tree would have stored after the records and the records' read does
     * not: the tree's look-ups of the names and strings here (at most two a member, its
     * name and a string value: `looks`) would have put them in its caches (keys[], strs[]:
     * a slot each, by their text), pushing out the names there. A slot so changed makes
     * the two reads differ at most once: the next look-up in it finds the name in one read
     * and not in the other (one store, of a name the caches hold: at most 64 bytes, 80
     * charged), or in neither (both store it); either way both then hold the same name
     * there, until records change the slot again. So at most 80 bytes a look-up here, and
     * a slot of each cache: a bound for all that follows. */
    const size_t per = add_sat(add_sat(most_members, most_inner), most_texts) + 1;
    size_t looks = count > SIZE_MAX / 4 / per ? SIZE_MAX : 2 * count * per;
    bound = add_sat(bound, (looks < 2u * KEY_CACHE ? looks : 2u * KEY_CACHE) * 80u);
    size_t bytes = sizeof(gj_recset) + count * rec + sizeof(uint32_t);
    void *mem;
    if ((*code = charge(st, bound)) != GANIM_OK) return 0;
    if (!(mem = take(st, bytes))) {
        *code = took_nothing(st);
        return 0;
    }
    gj_recset *rs = mem;
    uint32_t *ats = (uint32_t *)(void *)(rs + 1);
    gj_field *fields = (gj_field *)(void *)(ats + count + (count & 1)); /* (8-byte aligned: sizeof(gj_field) is 12) */
    memcpy(ats, st->rec_at, count * sizeof *ats);
    memcpy(fields, st->rec_field, count * k * sizeof *fields);
    set->count = rs->count = (uint32_t)count;
    set->at = rs->at = ats;
    set->field = rs->field = fields;
    *setp = rs;
    return i;
}

/* Whether the member `key` of an object `depth` deep that is the member `self` (NULL: the
 * root, an array's item) is of a kind of gj_parser.records (depth 0: the root's; 2: an
 * array's item's, self NULL); root_records then tries it. */
static int record_kind(const ps *st, unsigned depth, const char *self, const char *key)
{
    if (!st->p->records || self || (depth != 0 && depth != 2)) return 0;
    for (unsigned q = 0; q < st->p->record_kinds; q++)
        if (st->p->records[q].depth == depth && gj_same_name(st->p->records[q].key, key)) return 1;
    return 0;
}

/* The member `key` whose value is at i, of an object `depth` deep (0: the root; 2: an
 * array's item, self NULL), read as records (gj_parser.records), when it can be (depth 0:
 * its first occurrence): *item is then its GJ_LATER (depth 0) or GJ_RECORDS value,
 * *recorded 1 and st->i past it; else nothing changes. Out of the member loop (which gcc
 * compiles worse with it inside). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static ganim_code
root_records(ps *st, unsigned depth, const char *key, size_t i, gj_value *item, unsigned *recorded)
{
    gj_records *r = NULL;
    ganim_code code = GANIM_OK;
    for (unsigned q = 0; q < st->p->record_kinds && !r; q++)
        if (st->p->records[q].depth == depth && !(depth == 0 && st->p->records[q].met) &&
            gj_same_name(st->p->records[q].key, key))
            r = &st->p->records[q];
    if (!r) return GANIM_OK;
    r->met = 1;
    gj_recset set, *rs;
    size_t past = scan_records(st, r, i, depth + 1, &rs, &set, &code);
    if (!past) return code;
    memset(item, 0, sizeof *item);
    item->offset = at(st, i);
    if (depth == 0) {
        item->type = GJ_LATER;
        item->text = (const char *)st->s + i;
        item->count = (uint32_t)(past - i);
        item->depth = 1;
        r->set = set;
    } else {
        item->type = GJ_RECORDS;
        item->set = rs;
        item->count = set.count;
    }
    r->done = 1;
    st->i = past;
    *recorded = 1;
    return GANIM_OK;
}

/* The members of an array or object at st->i (its opening bracket); `self` is the name it
 * is a member under (NULL: the root, an array's item). The position is kept in a local
 * (i; the text s[0..n) never changes) and handed over in st->i to what is called. */
static ganim_code container(ps *st, unsigned depth, gj_value *v, int object, const char *self)
{
    const unsigned char close = object ? '}' : ']';
    if (depth >= st->p->max_depth)
        return ganim_fail(st->err, GANIM_ERR_LIMIT, at(st, st->i),
                          "%s: arrays and objects nested deeper than %u levels", st->p->who, st->p->max_depth);
    size_t base = st->top;
    /* > 0: not stored (st->discard, as it is again after each member) */
    const unsigned discard = st->discard;
    /* the names remembered for an object at this depth (NULL: none) */
    struct shape *shape = object && !discard && depth < SHAPE_DEPTH && !st->p->no_shapes ? st->shape[depth] : NULL;
    if (shape && !st->shape_used[depth]) {             /* (its first object: nothing remembered) */
        for (unsigned m = 0; m < SHAPE_MEMBERS; m++) { /* (what shape_name looks at first) */
            shape[m].key = shape[m].self = NULL;
            shape[m].msk[0] = 0;
        }
        st->shape_used[depth] = 1;
    }
    const uint8_t *const s = st->s;
    const size_t n = st->n;
    size_t i = st->i + 1;
    /* skip_space and next_is on i */
#define GJ_SPACE() (i = space_from(s, n, i))
#define GJ_NEXT_IS(c) ((i < n && s[i] == (c)) || (GJ_SPACE() < n && s[i] == (c)))
    GJ_SPACE();
    if (i < n && s[i] == close) {
        i++;
    } else {
        for (unsigned member = 0;; member++) {
            gj_value item;
            const char *key = NULL;
            ganim_code code;
            unsigned skip = 0, later = 0, said = 0, recorded = 0;
            GJ_SPACE();
            st->lend = 0;
            if (object) {
                if (i >= n || s[i] != '"') return fail_here(st, GANIM_ERR_CORRUPT, i, "a member name");
                struct shape *sh = shape && member < SHAPE_MEMBERS ? &shape[member] : NULL;
                size_t past;
                if (sh && sh->self == self && (past = shape_name(st, sh, i)) != 0) { /* as the last object's */
                    i = past;
                    key = sh->key;
                    skip = !sh->keep;
                    later = sh->later;
                    st->lend = sh->lend;
                    said = 1;
                } else {
                    uint32_t key_len;
                    unsigned slot = KEY_CACHE;
                    /* (a name not stored is only checked: no look-up of the names seen) */
                    st->i = i;
                    code =
                        discard ? string(st, &key, &key_len, NULL) : member_name(st, st->keys, &key, &key_len, &slot);
                    if (code != GANIM_OK) return code;
                    i = st->i;
                    if (sh) { /* remembered below, or forgotten */
                        sh->key = slot < KEY_CACHE ? key : NULL;
                        sh->self = self;
                        sh->len = key_len;
                        sh->slot = (uint8_t)slot;
                        memcpy(sh->w, st->keys[slot % KEY_CACHE].w, sizeof sh->w);
                        sh->msk[0] = sh->msk[1] = 0; /* (made when it is met again) */
                    }
                }
                if (!GJ_NEXT_IS(':')) return fail_here(st, GANIM_ERR_CORRUPT, i, "':'");
                i++;
                GJ_SPACE();
            }
            if (!said && !discard && object) { /* (key is not NULL: not discarding) */
                unsigned slot = (unsigned)(((uintptr_t)key >> 3) ^ ((uintptr_t)self >> 5) ^ depth) % KEY_CACHE;
                if (st->said[slot].key != key || st->said[slot].self != self || st->said[slot].depth != depth) {
                    st->said[slot].key = key;
                    st->said[slot].self = self;
                    st->said[slot].depth = depth;
                    st->said[slot].keep = !st->p->keep || st->p->keep(depth, self, key);
                    st->said[slot].lend = st->p->lend && st->p->lend(depth, self, key);
                    /* (the depth is kept in a byte of the value) */
                    st->said[slot].later =
                        (uint8_t)((depth < UINT8_MAX && st->p->later && st->p->later(depth, self, key)) |
                                  (record_kind(st, depth, self, key) ? 2 : 0)); /* (2: perhaps records) */
                }
                skip = !st->said[slot].keep;
                later = skip ? 0u : st->said[slot].later;
                st->lend = st->said[slot].keep && st->said[slot].lend;
                if (shape && member < SHAPE_MEMBERS) {
                    shape[member].keep = (uint8_t)!skip;
                    shape[member].lend = (uint8_t)st->lend;
                    shape[member].later = (uint8_t)later;
                }
            }
            st->i = i;
            if (later & 2) { /* a member as records? (out of the usual way: later is rare) */
                if ((code = root_records(st, depth, key, i, &item, &recorded)) != GANIM_OK) return code;
                later = recorded ? 1u : later & 1u;
            }
            if (later && !recorded) { /* checked now, stored as its text */
                size_t start = i;
                st->discard++;
                code = skim(st, depth + 1) ? GANIM_OK : value(st, depth + 1, &item, key);
                st->discard--;
                if (code != GANIM_OK) return code;
                if (st->i - start <= UINT32_MAX) {
                    memset(&item, 0, sizeof item); /* (skim fills in nothing) */
                    item.offset = at(st, start);
                    item.type = GJ_LATER;
                    item.text = (const char *)s + start;
                    item.count = (uint32_t)(st->i - start);
                    item.depth = (uint8_t)(depth + 1);
                } else { /* (too long for the value to say: stored now) */
                    st->i = start;
                    later = 0;
                }
            }
            if (!later && !skip && !discard && st->top < st->cap && i < n && s[i] != '{' && s[i] != '[') {
                /* a value that pushes nothing: read straight into its place on the stack */
                gj_value *slot = &st->stack[st->top];
                if ((code = value(st, depth + 1, slot, key)) != GANIM_OK) return code;
                slot->key = key;
                st->top++;
            } else {
                st->discard += skip;
                /* (a member not kept, in a stored object: skimmed, or read) */
                if (!later) code = skip && skim(st, depth + 1) ? GANIM_OK : value(st, depth + 1, &item, key);
                st->discard -= skip;
                if (code != GANIM_OK) return code;
                item.key = key;
                if (!discard && !skip && (code = push(st, &item)) != GANIM_OK) return code;
            }
            i = st->i;
            if (GJ_NEXT_IS(',')) {
                i++;
                continue;
            }
            if (i < n && s[i] == close) {
                i++;
                break;
            }
            return fail_here(st, GANIM_ERR_CORRUPT, i, object ? "',' or '}'" : "',' or ']'");
        }
    }
#undef GJ_NEXT_IS
#undef GJ_SPACE
    st->i = i;
    size_t count = st->top - base;
    if (count > UINT32_MAX) return ganim_fail(st->err, GANIM_ERR_LIMIT, v->offset, "%s: too many members", st->p->who);
    v->type = object ? GJ_OBJECT : GJ_ARRAY;
    v->count = (uint32_t)count;
    if (count) {
        size_t bytes;
        void *items;
        if (!ganim_mul_size(count, sizeof(gj_value), &bytes)) return GANIM_NOMEM(st->err);
        if (!(items = take(st, bytes))) return took_nothing(st);
        memcpy(items, st->stack + base, bytes);
        v->items = items;
    }
    st->top = base;
    return GANIM_OK;
}

static int literal(ps *st, const char *word)
{
    size_t len = strlen(word);
    if (st->n - st->i < len || memcmp(st->s + st->i, word, len) != 0) return 0;
    st->i += len;
    return 1;
}

static GANIM_ALWAYS_INLINE ganim_code value(ps *st, unsigned depth, gj_value *v, const char *key)
{
    int lend = st->lend;
    st->lend = 0; /* (not for what a container holds) */
    memset(v, 0, sizeof *v);
    v->offset = at(st, st->i);
    if (st->i >= st->n) return fail_here(st, GANIM_ERR_TRUNCATED, st->i, "a value");
    uint8_t c = st->s[st->i];
    if (c == '{') return container(st, depth, v, 1, key);
    if (c == '[') return container(st, depth, v, 0, key);
    if (c == '"') {
        v->type = GJ_STRING;
        /* a short string seen before (glTF's "LINEAR", "rotation", "VEC3"...) is shared
         * like a member name */
        if (!lend && !st->discard) {
            unsigned slot;
            return member_name(st, st->strs, &v->text, &v->count, &slot);
        }
        return string(st, &v->text, &v->count, lend ? &v->lent : NULL);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        /* a whole number of a few digits (most of glTF's): what gdec_scan would take */
        size_t len = digit_run(st->s + st->i, st->n - st->i < 18 ? st->n - st->i : 18);
        size_t next = st->i + len;
        if (len && len < 18 && (c != '0' || len == 1) &&
            (next >= st->n || (st->s[next] != '.' && st->s[next] != 'e' && st->s[next] != 'E'))) {
            v->type = GJ_NUMBER;
            v->text = (const char *)st->s + st->i;
            v->count = (uint32_t)len;
            st->i = next;
            return GANIM_OK;
        }
        len = number_len(st->s + st->i, st->n - st->i);
        if (!len) return fail_here(st, GANIM_ERR_CORRUPT, st->i, "a JSON number");
        if (len > UINT32_MAX) return fail_here(st, GANIM_ERR_LIMIT, st->i, "a shorter number");
        v->type = GJ_NUMBER;
        v->text = (const char *)st->s + st->i;
        v->count = (uint32_t)len;
        st->i += len;
        return GANIM_OK;
    }
    if (literal(st, "true")) v->type = GJ_TRUE;
    else if (literal(st, "false")) v->type = GJ_FALSE;
    else if (literal(st, "null")) v->type = GJ_NULL;
    else return fail_here(st, GANIM_ERR_CORRUPT, st->i, "a value");
    return GANIM_OK;
}

/* The value at st->i, nested `depth` deep as the member `key`, into a root of its own. */
static ganim_code parse_root(ps *st, unsigned depth, const char *key, gj_value **out)
{
    void *mem = take(st, sizeof **out);
    ganim_code code = mem ? GANIM_OK : took_nothing(st);
    if (code == GANIM_OK) code = value(st, depth, *out = mem, key);
    if (code == GANIM_OK) (*out)->key = key;
    free_buffers(st);
    if (code == GANIM_OK && st->p->charged) *st->p->charged = st->used - st->stack_used; /* (the tree's) */
    return code;
}

static void begin(ps *st, const gj_parser *p, const uint8_t *text, size_t size, ganim_error *err)
{
    memset(st, 0, offsetof(ps, keys));
    for (unsigned k = 0; k < KEY_CACHE; k++) { /* (an empty place: the rest is written when it is filled) */
        st->keys[k].s = NULL;
        st->strs[k].s = NULL;
        st->said[k].key = NULL;
    }
    st->p = p;
    st->s = text;
    st->n = size;
    st->a = ganim_allocator_resolve(p->scratch);
    st->err = err;
    st->used = p->used;
}

ganim_code gj_parse_later(const gj_parser *p, const gj_value *later, const gj_value **out, ganim_error *err)
{
    ps st;
    *out = NULL;
    if (!later || later->type != GJ_LATER || later->offset < p->base)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "%s: not a value to parse later", p->who);
    /* the whole text as gj_parse saw it, up to the value's end: the same offsets */
    size_t start = (size_t)(later->offset - p->base);
    begin(&st, p, (const uint8_t *)later->text - start, start + later->count, err);
    st.i = start;
    gj_value *root = NULL;
    ganim_code code = parse_root(&st, later->depth, later->key, &root);
    if (code != GANIM_OK) return code;
    *out = root;
    return GANIM_OK;
}

ganim_code gj_parse(const gj_parser *p, const uint8_t *text, size_t size, const gj_value **out, ganim_error *err)
{
    ps st;
    begin(&st, p, text, size, err);
    *out = NULL;
    if (size >= 3 && text[0] == 0xEF && text[1] == 0xBB && text[2] == 0xBF) st.i = 3; /* byte order mark */
    skip_space(&st);
    gj_value *root = NULL;
    ganim_code code = parse_root(&st, 0, NULL, &root);
    if (code != GANIM_OK) return code;
    skip_space(&st);
    while (st.i < st.n && st.s[st.i] == 0) st.i++; /* padding some writers leave */
    skip_space(&st);
    if (st.i < st.n) return fail_here(&st, GANIM_ERR_CORRUPT, st.i, "the end of the text");
    *out = root;
    return GANIM_OK;
}

/* ---- views ---------------------------------------------------------------------------- */

const gj_value *gj_get(const gj_value *v, const char *key)
{
    if (!v || v->type != GJ_OBJECT) return NULL;
    for (uint32_t i = 0; i < v->count; i++) {
        const char *k = v->items[i].key;
        if (k[0] == key[0] && gj_same_name(k, key)) return &v->items[i];
    }
    return NULL;
}

int gj_is(const gj_value *v, gj_type type) { return v && v->type == type; }

int gj_string(const gj_value *v, const char **s)
{
    if (!v || v->type != GJ_STRING || v->lent) return 0;
    *s = v->text;
    return 1;
}

int gj_bytes(const gj_value *v, const char **s, size_t *n)
{
    if (!v || v->type != GJ_STRING) return 0;
    *s = v->text;
    *n = v->count;
    return 1;
}

/* The nearest double of a NUMBER's token (its text, re-read: values keep no double). */
static int number_of(const gj_value *v, double *d)
{
    gdec g;
    if (!v || v->type != GJ_NUMBER) return 0;
    if (v->count && gdec_fast((const uint8_t *)v->text, v->count, d) == v->count) return 1; /* a short number */
    if (gdec_scan(v->text, v->count, GDEC_JSON, &g) != v->count) return 0;
    *d = gdec_double(&g);
    return 1;
}

int gj_number(const gj_value *v, double *d)
{
    double x;
    if (!number_of(v, &x) || !isfinite(x)) return 0;
    *d = x;
    return 1;
}

int gj_float_text(const char *t, uint32_t n, float *f)
{
    /* a whole number of 1 to 7 digits, with or without '-' (a node's translation, a
     * rotation's 0 and 1): below 2^24, so its float is exact, -0 for "-0" */
    const uint32_t neg = n && t[0] == '-', digits = n - neg;
    uint64_t whole;
    if (digits >= 1 && digits <= 7 && gj_digit_run(t + neg, digits, &whole) == digits) {
        const float x = (float)whole;
        *f = neg ? -x : x;
        return 1;
    }
    /* a short number (most of a file's): one rounding of its correctly rounded double */
    float quick = 0;
    if (n && gdec_fast_float((const uint8_t *)t, n, &quick) == n) {
        *f = quick;
        return 1;
    }
    gdec d;
    if (gdec_scan(t, n, GDEC_JSON, &d) != n) return 0;
    float x = gdec_float(&d);
    if (!isfinite(x)) return 0;
    *f = x;
    return 1;
}

int gj_float(const gj_value *v, float *f) { return v && v->type == GJ_NUMBER && gj_float_text(v->text, v->count, f); }

/* gj_uint of a value that is not a whole number of at most 15 digits (apart: gj_uint's
 * usual case then needs no stack frame) */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int
uint_of(const gj_value *v, uint64_t max, uint64_t *u)
{
    double x;
    if (!number_of(v, &x) || !(x >= 0) || x != floor(x) || x > (double)max) return 0;
    *u = (uint64_t)x;
    return 1;
}

int gj_uint(const gj_value *v, uint64_t max, uint64_t *u)
{
    /* a token of at most 15 digits (the parser took it as JSON: no leading zero) is its
     * own exact value */
    if (v && v->type == GJ_NUMBER && v->count >= 1 && v->count <= 15) {
        const char *t = v->text;
        uint64_t n = 0;
        uint32_t i = 0, count = v->count;
        for (unsigned d; i < count && (d = (unsigned)(unsigned char)t[i] - '0') <= 9; i++) n = n * 10 + d;
        if (i == count) {
            if (n > max) return 0;
            *u = n;
            return 1;
        }
    }
    return uint_of(v, max, u);
}

int gj_floats(const gj_value *v, float *out, uint32_t n)
{
    if (!v || v->type != GJ_ARRAY || v->count != n) return 0;
    for (uint32_t i = 0; i < n; i++)
        if (!gj_float(&v->items[i], &out[i])) return 0;
    return 1;
}
