/* The bounded JSON reader of the text formats (src/io/json.c): values and views, string
 * escapes, the allowances (byte order mark, NUL padding), every kind of error with its
 * byte offset, the nesting limit, arena failures at every allocation, and the memory
 * bounds: members not kept, shared member names, max_bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "test.h"

/* An arena of malloc'd blocks that can refuse the n-th allocation. */
typedef struct arena {
    void *blocks[4096];
    int count;
    int fail_at; /* 1-based; 0: never */
    int calls;
} arena;

static void *arena_alloc(void *user, size_t size)
{
    arena *a = user;
    a->calls++;
    if ((a->fail_at && a->calls == a->fail_at) || a->count == 4096) return NULL;
    void *p = calloc(1, size ? size : 1);
    if (p) a->blocks[a->count++] = p;
    return p;
}

static void arena_free(arena *a)
{
    for (int i = 0; i < a->count; i++) free(a->blocks[i]);
    a->count = 0;
}

static ganim_code parse(arena *a, const char *text, size_t size, const gj_value **out, ganim_error *err)
{
    gj_parser p = { .alloc = arena_alloc, .alloc_user = a, .max_depth = 8, .who = "test: JSON", .base = 100 };
    return gj_parse(&p, (const uint8_t *)text, size, out, err);
}

/* keeps the root's "keep" member and, inside any "extras", only "mine" */
static int keep_some(unsigned depth, const char *parent, const char *key)
{
    if (depth == 0) return strcmp(key, "keep") == 0;
    return !parent || strcmp(parent, "extras") != 0 || strcmp(key, "mine") == 0;
}

static ganim_code parse_kept(arena *a, const char *text, size_t max_bytes, const gj_value **out, ganim_error *err)
{
    gj_parser p = { .alloc = arena_alloc,
                    .alloc_user = a,
                    .max_depth = 8,
                    .who = "test: JSON",
                    .max_bytes = max_bytes,
                    .limit_name = "the test's limit",
                    .keep = keep_some };
    return gj_parse(&p, (const uint8_t *)text, strlen(text), out, err);
}

TEST(values_and_views)
{
    arena a = { 0 };
    const gj_value *v;
    ganim_error e = { 0 };
    const char text[] = "\xEF\xBB\xBF {\"a\": [1, -2.5e3, 0.1], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\\\"\", \"t\": true,"
                        " \"f\": false, \"n\": null, \"a\": 7, \"big\": 1e400, \"i\": 4294967295}\n\0\0";
    CHECK_OK(parse(&a, text, sizeof text - 1, &v, &e));
    CHECK(gj_is(v, GJ_OBJECT) && v->count == 8);
    const gj_value *arr = gj_get(v, "a");
    CHECK(gj_is(arr, GJ_ARRAY) && arr->count == 3); /* the first of two "a" */
    double d;
    float fl;
    uint64_t u;
    CHECK(gj_number(&arr->items[1], &d) && d == -2500);
    CHECK(gj_float(&arr->items[2], &fl) && fl == 0.1f);
    float three[3];
    CHECK(gj_floats(arr, three, 3) && three[0] == 1 && three[1] == -2500);
    CHECK(!gj_floats(arr, three, 2));
    const char *s;
    CHECK(gj_string(gj_get(v, "s"), &s) && !strcmp(s, "x\xC3\xA9\xF0\x9F\x98\x80\n\""));
    CHECK_EQ_INT(gj_get(v, "s")->count, 9);
    CHECK(gj_is(gj_get(v, "t"), GJ_TRUE) && gj_is(gj_get(v, "f"), GJ_FALSE) && gj_is(gj_get(v, "n"), GJ_NULL));
    CHECK(!gj_number(gj_get(v, "big"), &d)); /* infinite */
    CHECK(!gj_float(gj_get(v, "big"), &fl));
    CHECK(gj_uint(gj_get(v, "i"), UINT32_MAX, &u) && u == 4294967295u);
    CHECK(!gj_uint(gj_get(v, "i"), 10, &u));
    CHECK(!gj_uint(&arr->items[1], 1u << 20, &u)); /* negative */
    CHECK(!gj_uint(&arr->items[2], 1u << 20, &u)); /* not whole */
    CHECK(gj_get(v, "missing") == NULL && gj_get(arr, "a") == NULL);
    CHECK_EQ_INT(gj_get(v, "t")->offset, 100 + (size_t)(strstr(text + 3, "true") - text));
    arena_free(&a);
}

static void bad(const char *text, ganim_code want, size_t at)
{
    arena a = { 0 };
    const gj_value *v = NULL;
    ganim_error e = { 0 };
    ganim_code c = parse(&a, text, strlen(text), &v, &e);
    CHECK_MSG(c == want, "'%s': code %d, wanted %d (%s)", text, c, want, e.message);
    CHECK_MSG(e.offset == 100 + at, "'%s': offset %llu, wanted %zu (%s)", text, (unsigned long long)e.offset, 100 + at,
              e.message);
    CHECK(v == NULL && !strncmp(e.message, "test: JSON: ", 12));
    arena_free(&a);
}

TEST(errors)
{
    bad("", GANIM_ERR_TRUNCATED, 0);
    bad("{\"a\":", GANIM_ERR_TRUNCATED, 5);
    bad("[1,2", GANIM_ERR_TRUNCATED, 4);
    bad("\"abc", GANIM_ERR_TRUNCATED, 4);
    bad("[1,]", GANIM_ERR_CORRUPT, 3);
    bad("{\"a\" 1}", GANIM_ERR_CORRUPT, 5);
    bad("{1:2}", GANIM_ERR_CORRUPT, 1);
    bad("[01]", GANIM_ERR_CORRUPT, 1);
    bad("[NaN]", GANIM_ERR_CORRUPT, 1);
    bad("[tru]", GANIM_ERR_CORRUPT, 1);
    bad("\"a\\x\"", GANIM_ERR_CORRUPT, 3);
    bad("\"\\u12G4\"", GANIM_ERR_CORRUPT, 1);
    bad("\"a\nb\"", GANIM_ERR_CORRUPT, 2);
    bad("{} x", GANIM_ERR_CORRUPT, 3);
    bad("[[[[[[[[[1]]]]]]]]]", GANIM_ERR_LIMIT, 8);
    arena a = { 0 };
    const gj_value *v;
    CHECK_OK(parse(&a, "[[[[[[[[1]]]]]]]]", 17, &v, NULL)); /* 8 levels: allowed */
    arena_free(&a);
}

TEST(allocation_failures)
{
    const char text[] = "{\"nodes\":[{\"name\":\"a\",\"children\":[1,2]},{\"name\":\"b\"},{}],\"x\":[1,2,3]}";
    int ok_at = 0;
    for (int n = 1; n < 100 && !ok_at; n++) {
        arena a = { 0 };
        a.fail_at = n;
        const gj_value *v = NULL;
        ganim_error e = { 0 };
        ganim_code c = parse(&a, text, sizeof text - 1, &v, &e);
        if (c == GANIM_OK) ok_at = n;
        else CHECK_MSG(c == GANIM_ERR_NOMEM && v == NULL, "failing allocation %d: code %d", n, c);
        arena_free(&a);
    }
    CHECK(ok_at > 5);
}

TEST(members_not_kept)
{
    arena a = { 0 };
    const gj_value *v;
    const char *text = "{\"drop\":[1,2,{\"x\":\"y\"}],\"keep\":{\"n\":1,\"extras\":{\"big\":[1,2,3],"
                       "\"mine\":{\"a\":[4,5]}},\"m\":2},\"zz\":\"\\u0041\"}";
    CHECK_OK(parse_kept(&a, text, 0, &v, NULL));
    CHECK(v->count == 1 && strcmp(v->items[0].key, "keep") == 0);
    const gj_value *k = gj_get(v, "keep"), *ex = gj_get(k, "extras");
    CHECK(k && k->count == 3 && gj_get(k, "m") && ex && ex->count == 1);
    const gj_value *arr = gj_get(gj_get(ex, "mine"), "a");
    uint64_t u = 0;
    CHECK(gj_is(arr, GJ_ARRAY) && arr->count == 2 && gj_uint(&arr->items[1], 10, &u) && u == 5);
    CHECK(!gj_get(ex, "big") && !gj_get(v, "drop"));
    /* the members not kept took no allocation: keeping everything takes more */
    int kept_calls = a.calls;
    arena_free(&a);
    arena b = { 0 };
    CHECK_OK(parse(&b, text, strlen(text), &v, NULL));
    CHECK_MSG(b.calls > kept_calls + 5, "%d allocations keeping everything, %d keeping some", b.calls, kept_calls);
    arena_free(&b);
    /* what is not kept is still checked as JSON, at its byte */
    arena c = { 0 };
    ganim_error e = { 0 };
    CHECK(parse_kept(&c, "{\"drop\":[1,2,{\"x\" \"y\"}],\"keep\":1}", 0, &v, &e) == GANIM_ERR_CORRUPT);
    CHECK_MSG(e.offset == 18, "offset %llu", (unsigned long long)e.offset);
    arena_free(&c);
}

TEST(shared_member_names)
{
    arena a = { 0 };
    const gj_value *v;
    const char *text = "{\"keep\":[{\"name\":1},{\"name\":2},{\"na\\u006De\":3}]}";
    CHECK_OK(parse_kept(&a, text, 0, &v, NULL));
    const gj_value *l = gj_get(v, "keep");
    CHECK(l && l->count == 3);
    CHECK(l->items[0].items[0].key == l->items[1].items[0].key); /* one copy of "name" */
    CHECK(strcmp(l->items[2].items[0].key, "name") == 0);        /* escapes decoded */
    arena_free(&a);
}

TEST(shared_short_strings)
{
    /* string values seen before are shared like member names: one copy of "LINEAR" for
     * three samplers; a string with an escape is decoded into its own copy; a long one
     * (over 64 bytes) is copied each time */
    arena a = { 0 };
    const gj_value *v;
    const char *text = "{\"keep\":[\"LINEAR\",\"LINEAR\",{\"name\":\"name\"},\"LIN\\u0045AR\",\"LINEAR\",\"STEP\","
                       "\"0123456789012345678901234567890123456789012345678901234567890123456789\","
                       "\"0123456789012345678901234567890123456789012345678901234567890123456789\"]}";
    CHECK_OK(parse_kept(&a, text, 0, &v, NULL));
    const gj_value *l = gj_get(v, "keep");
    CHECK(l && l->count == 8);
    const char *s0 = NULL, *s1 = NULL, *s3 = NULL, *s4 = NULL, *s5 = NULL, *s6 = NULL, *s7 = NULL, *n = NULL;
    CHECK(gj_string(&l->items[0], &s0) && gj_string(&l->items[1], &s1) && gj_string(&l->items[3], &s3) &&
          gj_string(&l->items[4], &s4) && gj_string(&l->items[5], &s5) && gj_string(&l->items[6], &s6) &&
          gj_string(&l->items[7], &s7) && gj_string(gj_get(&l->items[2], "name"), &n));
    CHECK(s0 == s1 && s0 == s4 && strcmp(s0, "LINEAR") == 0 && l->items[0].count == 6 && l->items[4].count == 6);
    CHECK(s3 != s0 && strcmp(s3, "LINEAR") == 0 && l->items[3].count == 6);
    CHECK(strcmp(s5, "STEP") == 0 && l->items[5].count == 4);
    CHECK(strcmp(n, "name") == 0 && l->items[2].items[0].count == 4); /* (values apart from member names) */
    CHECK(s6 != s7 && strcmp(s6, s7) == 0 && l->items[6].count == 70 && strlen(s6) == 70);
    CHECK(l->items[0].offset == 9 && l->items[1].offset == 18); /* where each starts, shared or not */
    arena_free(&a);
}

TEST(memory_bound)
{
    /* 20,000 numbers kept: 32 bytes each (and as much on the stack while their array is
     * open), more than 100,000 bytes: refused, naming the
     * limit, while the same numbers in a member not kept take nothing */
    size_t n = 20000, len = 0;
    char *text = malloc(16 + 2 * n);
    CHECK(text != NULL);
    len += (size_t)sprintf(text, "{\"keep\":[");
    for (size_t i = 0; i < n; i++) len += (size_t)sprintf(text + len, "%s7", i ? "," : "");
    sprintf(text + len, "]}");
    arena a = { 0 };
    const gj_value *v = NULL;
    ganim_error e = { 0 };
    CHECK(parse_kept(&a, text, 100000, &v, &e) == GANIM_ERR_LIMIT && v == NULL);
    CHECK_MSG(strstr(e.message, "more than 100000 bytes of memory (the test's limit)"), "%s", e.message);
    arena_free(&a);
    CHECK_OK(parse_kept(&a, text, 2000000, &v, &e)); /* the items and the stack they wait on */
    CHECK(gj_get(v, "keep")->count == n);
    arena_free(&a);
    memcpy(text + 2, "drop", 4);
    arena d = { 0 };
    CHECK_OK(parse_kept(&d, text, 1000, &v, &e));
    CHECK(v->count == 0 && d.calls == 2); /* the root and the name "drop" */
    arena_free(&d);
    free(text);
}

/* Strings are scanned eight bytes at a time: a control byte, a quote or an escape at any
 * place in or across a word is found where it is, and escapes still decode; whole
 * numbers of a few digits are taken without the decimal scanner, with its answers. */
TEST(strings_and_numbers_at_every_place)
{
    for (size_t p = 0; p < 40; p++) {
        char text[64];
        memset(text, 'a', sizeof text);
        text[0] = '"';
        text[41] = '"';
        text[42] = 0;
        text[1 + p] = 0x01; /* a control byte p bytes into the string */
        bad(text, GANIM_ERR_CORRUPT, 1 + p);
        text[1 + p] = '\\'; /* an escape there: \n, or \" (the quote inside is not the end) */
        for (int q = 0; q < 2 && p < 38; q++) {
            text[2 + p] = q ? '"' : 'n';
            arena a = { 0 };
            const gj_value *v = NULL;
            CHECK_OK(parse(&a, text, 42, &v, NULL));
            CHECK(v && v->type == GJ_STRING && v->count == 39);
            CHECK(v && v->text[p] == (q ? '"' : '\n') && v->text[p + 1] == 'a' && v->text[39] == 0);
            arena_free(&a);
        }
        memset(text + 1, 'a', 40); /* the end quote p bytes in: a string of p bytes */
        text[1 + p] = '"';
        text[2 + p] = 0;
        arena a = { 0 };
        const gj_value *v = NULL;
        CHECK_OK(parse(&a, text, 2 + p, &v, NULL));
        CHECK(v && v->count == p && strlen(v->text) == p);
        arena_free(&a);
        text[2 + p] = 'x'; /* then junk */
        text[3 + p] = 0;
        bad(text, GANIM_ERR_CORRUPT, 2 + p);
        text[1 + p] = 'a'; /* no end quote: truncated where the text ends */
        text[2 + p] = 0;
        bad(text, GANIM_ERR_TRUNCATED, 2 + p);
    }
    bad("\"\xc3\xa9\x7f\x80\xff aaaaaaaa\x1f\"", GANIM_ERR_CORRUPT, 15); /* bytes >= 0x7f are text */
    static const struct {
        const char *text;
        uint64_t max, want;
        int ok;
    } n[] = {
        { "[0]", 10, 0, 1 },
        { "[7]", 7, 7, 1 },
        { "[8]", 7, 0, 0 },
        { "[123456789012345]", 999999999999999u, 123456789012345u, 1 },
        { "[123456789012345]", 123456789012344u, 0, 0 },
        { "[1234567890123456]", (uint64_t)1 << 53, 1234567890123456u, 1 },    /* 16 digits: gdec_scan */
        { "[99999999999999999]", (uint64_t)1 << 60, 100000000000000000u, 1 }, /* the nearest double */
        { "[1.0]", 10, 1, 1 },
        { "[1e2]", 1000, 100, 1 },
        { "[-0]", 10, 0, 1 },
        { "[-1]", 10, 0, 0 },
        { "[1.5]", 10, 0, 0 },
        { "[\"1\"]", 10, 0, 0 },
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
        arena a = { 0 };
        const gj_value *v = NULL;
        CHECK_OK(parse(&a, n[i].text, strlen(n[i].text), &v, NULL));
        uint64_t u = 12345;
        int ok = v && gj_uint(&v->items[0], n[i].max, &u);
        CHECK_MSG(ok == n[i].ok && (!ok || u == n[i].want), "%s: %d %llu", n[i].text, ok, (unsigned long long)u);
        arena_free(&a);
    }
    bad("\"abc\\", GANIM_ERR_TRUNCATED, 5); /* an escape cut by the end of the text */
    bad("\"abcdefghijklmnopq\\", GANIM_ERR_TRUNCATED, 19);
    bad("[012]", GANIM_ERR_CORRUPT, 1);
    bad("[00]", GANIM_ERR_CORRUPT, 1);
    bad("[1.]", GANIM_ERR_CORRUPT, 1);
    bad("[12e]", GANIM_ERR_CORRUPT, 1);
    bad("[12a]", GANIM_ERR_CORRUPT, 3);
    bad("[12", GANIM_ERR_TRUNCATED, 3);
}

/* keeps every member but "drop" */
static int keep_some_lend(unsigned depth, const char *parent, const char *key)
{
    (void)depth, (void)parent;
    return strcmp(key, "drop") != 0;
}

/* Members named "blob" are lent (the text's own bytes), the others copied */
static int lend_blob(unsigned depth, const char *parent, const char *key)
{
    (void)depth, (void)parent;
    return strcmp(key, "blob") == 0;
}

TEST(lent_strings)
{
    static const char text[] = "{\"blob\":\"QUJD\",\"other\":\"QUJD\",\"o\":{\"blob\":\"a\\nb\"},"
                               "\"list\":[\"x\"],\"blob2\":{\"blob\":[\"y\"]},\"drop\":{\"blob\":\"z\"}}";
    arena a = { 0 };
    const gj_value *root = NULL;
    ganim_error e = { 0 };
    gj_parser p = { .alloc = arena_alloc,
                    .alloc_user = &a,
                    .max_depth = 8,
                    .who = "test: JSON",
                    .keep = keep_some_lend,
                    .lend = lend_blob };
    CHECK_OK(gj_parse(&p, (const uint8_t *)text, strlen(text), &root, &e));
    if (root) {
        const char *s = NULL;
        size_t n = 0;
        const gj_value *blob = gj_get(root, "blob");
        /* the text's own bytes: not NUL-terminated, so gj_string refuses them */
        CHECK(blob && blob->lent && blob->text == text + 9 && blob->count == 4);
        CHECK(!gj_string(blob, &s));
        CHECK(gj_bytes(blob, &s, &n) && s == text + 9 && n == 4 && memcmp(s, "QUJD", 4) == 0);
        /* not lent: a copy */
        const gj_value *other = gj_get(root, "other");
        CHECK(other && !other->lent && gj_string(other, &s) && s != text + 24 && strcmp(s, "QUJD") == 0);
        CHECK(gj_bytes(other, &s, &n) && n == 4);
        /* an escape: decoded into a copy even when lent is asked */
        const gj_value *esc = gj_get(gj_get(root, "o"), "blob");
        CHECK(esc && !esc->lent && gj_string(esc, &s) && strcmp(s, "a\nb") == 0);
        /* what a lent member holds, if not a string, is stored as usual */
        const gj_value *arr = gj_get(gj_get(root, "blob2"), "blob");
        CHECK(arr && arr->type == GJ_ARRAY && arr->count == 1 && !arr->items[0].lent && gj_string(&arr->items[0], &s) &&
              strcmp(s, "y") == 0);
        CHECK(gj_get(root, "drop") == NULL);
        CHECK(gj_bytes(gj_get(root, "list"), &s, &n) == 0); /* not a string */
    }
    arena_free(&a);
}

/* Names that share their length and their first and last 8 bytes (or some of them) stay
 * apart, at every length from 1 to 40 (wherever they end in a word of 16 bytes), seen
 * again, and near the end of the text. */
TEST(member_names_told_apart)
{
    char text[8192];
    size_t n = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "[");
    for (int rep = 0; rep < 2; rep++)
        for (int len = 1; len <= 40; len++)
            for (int mid = 0; mid < 2; mid++) {
                char name[48];
                memset(name, 'k', (size_t)len);
                name[len] = 0;
                name[len / 2] = mid ? 'X' : 'Y';
                n +=
                    (size_t)snprintf(text + n, sizeof text - n, "%s{\"%s\":%d}", n > 1 ? "," : "", name, len * 2 + mid);
            }
    n += (size_t)snprintf(text + n, sizeof text - n, ",{\"kkkkkkkkkX\":7}]");
    arena a = { 0 };
    const gj_value *v = NULL;
    CHECK_OK(parse(&a, text, n, &v, NULL));
    CHECK(v && v->type == GJ_ARRAY && v->count == 161);
    for (uint32_t i = 0; v && i < 160; i++) {
        int len = (int)(i % 80) / 2 + 1, mid = (int)(i % 2);
        char name[48];
        memset(name, 'k', (size_t)len);
        name[len] = 0;
        name[len / 2] = mid ? 'X' : 'Y';
        uint64_t u = 0;
        const gj_value *m = gj_get(&v->items[i], name);
        CHECK_MSG(m && gj_uint(m, 1000, &u) && u == (uint64_t)(len * 2 + mid), "item %u ('%s')", i, name);
        CHECK(strcmp(v->items[i].items[0].key, name) == 0);
    }
    if (v) CHECK(strcmp(v->items[160].items[0].key, "kkkkkkkkkX") == 0); /* near the end of the text */
    arena_free(&a);
}

/* ---- members parsed later (gj_parser.later) and members skimmed -------------------------- */

static int later_m(unsigned depth, const char *parent, const char *key)
{
    (void)parent;
    return depth == 0 && strcmp(key, "m") == 0;
}

static int later_inner(unsigned depth, const char *parent, const char *key)
{
    return depth == 1 && parent && strcmp(parent, "m") == 0 && strcmp(key, "b") == 0;
}

static int keep_not_m(unsigned depth, const char *parent, const char *key)
{
    (void)parent;
    return depth != 0 || strcmp(key, "m") != 0;
}

static int lend_s(unsigned depth, const char *parent, const char *key)
{
    (void)depth;
    (void)parent;
    return strcmp(key, "s") == 0;
}

/* mode 0: everything stored; 1: "m" not kept (skimmed); 2: "m" parsed later; 3: m's "b"
 * parsed later */
/* A parser of the tests' texts: the test's arena, texts at byte 100 of their file, the bound
 * max_bytes (named "the test's limit") and its charge in *charged. */
static gj_parser bounded_parser(arena *a, size_t max_bytes, size_t *charged)
{
    return (gj_parser){ .alloc = arena_alloc,
                        .alloc_user = a,
                        .max_depth = 8,
                        .who = "test: JSON",
                        .base = 100,
                        .max_bytes = max_bytes,
                        .limit_name = "the test's limit",
                        .charged = charged };
}

static ganim_code parse_mode(arena *a, int mode, const char *text, size_t size, size_t max_bytes, size_t *charged,
                             const gj_value **out, ganim_error *err)
{
    gj_parser p = bounded_parser(a, max_bytes, charged);
    p.keep = mode == 1 ? keep_not_m : NULL;
    p.lend = lend_s;
    p.later = mode == 2 ? later_m : mode == 3 ? later_inner : NULL;
    return gj_parse(&p, (const uint8_t *)text, size, out, err);
}

/* One text parsed the three ways (stored, skimmed, parsed later: parse_mode's modes). */
typedef struct three_ways {
    arena a[3];
    ganim_error e[3];
    ganim_code c[3];
    const gj_value *v[3];
} three_ways;

static void parse_three(three_ways *t, const char *text, size_t size)
{
    memset(t, 0, sizeof *t);
    for (int mode = 0; mode < 3; mode++)
        t->c[mode] = parse_mode(&t->a[mode], mode, text, size, 0, NULL, &t->v[mode], &t->e[mode]);
}

/* The first mode whose answer (code, and an error's offset and sentence) is not the stored
 * parse's, or 0. */
static int three_differ(const three_ways *t)
{
    for (int mode = 1; mode < 3; mode++)
        if (t->c[mode] != t->c[0] || (t->c[0] != GANIM_OK && (t->e[mode].offset != t->e[0].offset ||
                                                              strcmp(t->e[mode].message, t->e[0].message))))
            return mode;
    return 0;
}

static void free_three(three_ways *t)
{
    for (int mode = 0; mode < 3; mode++) arena_free(&t->a[mode]);
}

/* Two values alike but for their items: type, count, offset, lent, key and, for a string
 * or a number, its text. */
static int same_node(const gj_value *a, const gj_value *b)
{
    if (a->type != b->type || a->count != b->count || a->offset != b->offset || a->lent != b->lent) return 0;
    if ((a->key == NULL) != (b->key == NULL) || (a->key && strcmp(a->key, b->key) != 0)) return 0;
    if (a->type == GJ_STRING || a->type == GJ_NUMBER) return memcmp(a->text, b->text, a->count) == 0;
    return 1;
}

/* Whether b is a, with every GJ_LATER in b parsed (gj_parse_later) on the way. */
static int same_tree(arena *ar, const gj_value *a, const gj_value *b)
{
    if (b->type == GJ_LATER) {
        gj_parser p = {
            .alloc = arena_alloc, .alloc_user = ar, .max_depth = 8, .who = "test: JSON", .base = 100, .lend = lend_s
        };
        ganim_error e = { 0 };
        const gj_value *t = NULL;
        if (gj_parse_later(&p, b, &t, &e) != GANIM_OK || t->type == GJ_LATER) return 0;
        b = t;
    }
    if (!same_node(a, b)) return 0;
    if (a->type == GJ_ARRAY || a->type == GJ_OBJECT)
        for (uint32_t i = 0; i < a->count; i++)
            if (!same_tree(ar, &a->items[i], &b->items[i])) return 0;
    return 1;
}

TEST(parsed_later_is_the_same_tree)
{
    static const char *const texts[] = {
        "{\"m\":{\"a\":[1,-2.5e3,0.1,true,false,null,\"x\\u00e9\"],\"b\":{\"c\":\"d\",\"s\":\"lent\"},\"e\":[]}}",
        "{ \"z\" : [ ] , \"m\" : [ { \"b\" : 1 } , \"m\" , 12345678901234567890 ] }",
        "{\"m\":\"a string\",\"n\":{\"m\":{\"b\":[[[1]]]}}}",
        "{\"m\":-0,\"m\":{}}",
        "{\"m\":{\"b\":\"\\\"quoted\\\"\",\"s\":\"\"}}",
    };
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++)
        for (int mode = 2; mode <= 3; mode++) {
            arena a = { 0 }, b = { 0 };
            const gj_value *va, *vb;
            ganim_error e = { 0 };
            CHECK_OK(parse_mode(&a, 0, texts[t], strlen(texts[t]), 0, NULL, &va, &e));
            CHECK_OK(parse_mode(&b, mode, texts[t], strlen(texts[t]), 0, NULL, &vb, &e));
            int later = 0; /* (the texts hold a member parsed later in either mode but the 2nd's 3) */
            for (uint32_t i = 0; i < vb->count; i++) later += vb->items[i].type == GJ_LATER;
            CHECK_MSG(mode == 3 || later >= 1, "text %zu: no value left for later", t);
            CHECK_MSG(same_tree(&b, va, vb), "text %zu, mode %d: not the same tree", t, mode);
            arena_free(&a);
            arena_free(&b);
        }
    /* a value that is not GJ_LATER is refused */
    arena a = { 0 };
    const gj_value *v, *t;
    ganim_error e = { 0 };
    CHECK_OK(parse_mode(&a, 0, "{\"m\":1}", 7, 0, NULL, &v, &e));
    gj_parser p = { .alloc = arena_alloc, .alloc_user = &a, .max_depth = 8, .who = "test: JSON", .base = 100 };
    CHECK(gj_parse_later(&p, v, &t, &e) == GANIM_ERR_INVALID_ARG && t == NULL);
    arena_free(&a);
}

/* Every text made from a valid one by cutting it or changing one byte gives, when "m" is
 * stored, skimmed or left for later, the same error at the same byte with the same message
 * (or no error in all three); with an escape in m (skimming gives up there and reads m
 * again) and without. */
static void fail_alike(const char *base)
{
    static const char swaps[] = { '"', '\\', ',', ':', ']', '}', '[', '{', '0', '-', 'e', '.', 'x', ' ', '\n', 1, 't' };
    char text[256];
    size_t n = strlen(base), cases = 0, failed = 0;
    CHECK(n < sizeof text);
    for (size_t at = 0; at <= n && n < sizeof text; at++)
        for (size_t k = 0; k <= sizeof swaps; k++) {
            size_t len = n;
            memcpy(text, base, n + 1);
            text[n] = 0;
            if (k == sizeof swaps) len = at; /* cut */
            else if (at < n) text[at] = swaps[k];
            else continue;
            three_ways t;
            parse_three(&t, text, len);
            int m = three_differ(&t);
            CHECK_MSG(!m, "'%.*s' mode %d: %d at %llu '%s', stored: %d at %llu '%s'", (int)len, text, m, t.c[m],
                      (unsigned long long)t.e[m].offset, t.e[m].message, t.c[0], (unsigned long long)t.e[0].offset,
                      t.e[0].message);
            if (t.c[0] == GANIM_OK) CHECK(same_tree(&t.a[2], t.v[0], t.v[2]));
            failed += t.c[0] != GANIM_OK;
            cases++;
            free_three(&t);
        }
    CHECK_MSG(failed > cases / 2 && failed < cases, "%zu of %zu texts refused", failed, cases);
}

TEST(skimmed_and_later_members_fail_alike)
{
    fail_alike("{\"k\":0,\"m\":{\"a\":[1,-2.5e3,0.1,true,false,null,\"x\\u00e9\\n\"],\"b\":{\"c\":\"d\"},"
               "\"e\":[[[[[1]]]]],\"f\":\"0123456789abcdefghij\"},\"z\":[1]}");
    fail_alike("{\"k\":0,\"m\":{\"a\":[1,-2.5e3,0.1,true,false,null,12,\"xy\"],\"b\":{\"c\":\"d\"},"
               "\"e\":[[[[[1]]]]], \"f\" : \"0123456789abcdefghij\"},\"z\":[1]}");
}

/* Whole numbers of 1 to 20 digits (read 8 at a time by the parser and the skim), starting
 * at every place of a word, ended by '}', a fraction, an exponent, a byte that is not JSON
 * or the end of the text, and with a leading zero: the value (strtod's, strtoull's), or
 * the error and its byte, the same stored, skimmed and parsed later. */
TEST(whole_numbers_of_every_length)
{
    static const char *const ends[] = { "}", ".5}", "e3}", "E3}", "x}", "" };
    char text[64], num[32];
    for (size_t pad = 0; pad < 8; pad++)
        for (size_t len = 1; len <= 20; len++)
            for (int zero = 0; zero < 2; zero++)
                for (size_t k = 0; k < sizeof ends / sizeof *ends; k++) {
                    for (size_t d = 0; d < len; d++) num[d] = (char)('1' + (d * 7 + len) % 9);
                    if (zero) num[0] = '0';
                    num[len] = 0;
                    int n = snprintf(text, sizeof text, "{\"m\":%*s%s%s", (int)pad, "", num, ends[k]);
                    size_t at = 5 + pad; /* where the number starts */
                    ganim_code want = GANIM_OK;
                    size_t want_at = 0;
                    if (zero && len > 1) want = GANIM_ERR_CORRUPT, want_at = at;
                    else if (k == 4) want = GANIM_ERR_CORRUPT, want_at = at + len;
                    else if (k == 5) want = GANIM_ERR_TRUNCATED, want_at = at + len;
                    three_ways t;
                    parse_three(&t, text, (size_t)n);
                    CHECK_MSG(t.c[0] == want && (want == GANIM_OK || t.e[0].offset == 100 + want_at),
                              "'%s': %d at %llu (%s), wanted %d at %zu", text, t.c[0],
                              (unsigned long long)t.e[0].offset, t.e[0].message, want, 100 + want_at);
                    int md = three_differ(&t);
                    CHECK_MSG(!md, "'%s' mode %d: %d at %llu, stored: %d at %llu", text, md, t.c[md],
                              (unsigned long long)t.e[md].offset, t.c[0], (unsigned long long)t.e[0].offset);
                    if (t.c[0] == GANIM_OK) {
                        const gj_value *m = gj_get(t.v[0], "m");
                        size_t tlen = len + strlen(ends[k]) - 1;
                        char tok[40];
                        memcpy(tok, text + at, tlen);
                        tok[tlen] = 0;
                        double x = 0;
                        uint64_t u = 0;
                        CHECK_MSG(m && m->type == GJ_NUMBER && m->count == tlen && m->offset == 100 + at &&
                                      gj_number(m, &x) && x == strtod(tok, NULL),
                                  "'%s': %s", text, m ? m->text : "no m");
                        if (k == 0 && len <= 15)
                            CHECK_MSG(gj_uint(m, UINT64_MAX, &u) && u == strtoull(tok, NULL, 10), "'%s': %llu", text,
                                      (unsigned long long)u);
                        CHECK(t.c[2] != GANIM_OK || same_tree(&t.a[2], t.v[0], t.v[2]));
                    }
                    free_three(&t);
                }
}

/* A string of 300 bytes (scanned 64 bytes a turn with AVX2 where the machine has it) with
 * a control byte, an escape or its end quote at every place, lent ("s") and copied ("c"),
 * stored, skimmed and parsed later: the same string, or the error at its byte. */
TEST(long_strings_at_every_place)
{
    enum { LEN = 300 };
    static char text[LEN + 32];
    for (int lent = 0; lent < 2; lent++)
        for (size_t p = 0; p < LEN; p++)
            for (int what = 0; what < 3; what++) {
                int n = snprintf(text, sizeof text, "{\"m\":{\"%s\":\"%0*d\"}}", lent ? "s" : "c", LEN, 0);
                size_t at = 11 + p; /* the string's byte p */
                for (size_t i = 0; i < LEN; i++) text[11 + i] = (char)('a' + i % 26);
                ganim_code want = GANIM_OK;
                size_t want_at = 0;
                if (what == 0) text[at] = 0x1F, want = GANIM_ERR_CORRUPT, want_at = at;
                else if (what == 1 && p + 1 < LEN) text[at] = '\\', text[at + 1] = 'n';
                else if (what == 2) text[at] = '"', want = GANIM_ERR_CORRUPT, want_at = at + 1; /* then junk */
                three_ways t;
                parse_three(&t, text, (size_t)n);
                CHECK_MSG(t.c[0] == want && (want == GANIM_OK || t.e[0].offset == 100 + want_at),
                          "lent %d place %zu case %d: %d at %llu (%s)", lent, p, what, t.c[0],
                          (unsigned long long)t.e[0].offset, t.e[0].message);
                int md = three_differ(&t);
                CHECK_MSG(!md, "lent %d place %zu case %d mode %d: %d, stored %d", lent, p, what, md, t.c[md], t.c[0]);
                if (t.c[0] == GANIM_OK) {
                    const gj_value *sv = gj_get(gj_get(t.v[0], "m"), lent ? "s" : "c");
                    const char *b = NULL;
                    size_t bn = 0;
                    int esc = what == 1 && p + 1 < LEN;
                    char want_s[LEN];
                    size_t wn = 0;
                    for (size_t i = 0; i < LEN; i++)
                        want_s[wn++] = esc && i == p ? '\n' : text[11 + i], i += esc && i == p;
                    CHECK_MSG(gj_bytes(sv, &b, &bn) && bn == wn && !memcmp(b, want_s, wn) && sv->lent == (lent && !esc),
                              "lent %d place %zu case %d: the string", lent, p, what);
                    CHECK(t.c[2] != GANIM_OK || same_tree(&t.a[2], t.v[0], t.v[2]));
                }
                free_three(&t);
            }
}

/* A tree parsed later counts from gj_parser.used against max_bytes; `charged` says what
 * a parse counted. */
TEST(parsed_later_within_the_bound)
{
    const char text[] = "{\"z\":1,\"m\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}";
    arena a = { 0 };
    const gj_value *v, *t;
    ganim_error e = { 0 };
    size_t used = 0, later_used = 0, all_used = 0;
    CHECK_OK(parse_mode(&a, 0, text, sizeof text - 1, 0, &all_used, &v, &e));
    CHECK_OK(parse_mode(&a, 2, text, sizeof text - 1, 0, &used, &v, &e));
    /* the tree, 16-byte rounded: the root, 2 members, 16 numbers in m, the names "z" and "m" */
    CHECK_MSG(all_used == 32 + 2 * 32 + 16 * 32 + 2 * 16, "%zu bytes stored", all_used);
    CHECK_MSG(used == all_used - 16 * 32, "%zu bytes with m parsed later", used);
    const gj_value *m = gj_get(v, "m");
    CHECK(gj_is(m, GJ_LATER) && m->offset == 100 + 11 && m->count == sizeof text - 1 - 12);
    gj_parser p = { .alloc = arena_alloc,
                    .alloc_user = &a,
                    .max_depth = 8,
                    .who = "test: JSON",
                    .base = 100,
                    .max_bytes = all_used + 32 + 64 * 32, /* its root, and a stack of 64 values */
                    .limit_name = "the test's limit",
                    .used = used,
                    .charged = &later_used };
    CHECK_MSG(gj_parse_later(&p, m, &t, &e) == GANIM_OK, "%s", e.message);
    CHECK(gj_is(t, GJ_ARRAY) && t->count == 16 && t->offset == 100 + 11 && !strcmp(t->key, "m"));
    CHECK_MSG(later_used == all_used + 32, "%zu after the later parse", later_used);
    p.max_bytes--; /* a byte short */
    CHECK(gj_parse_later(&p, m, &t, &e) == GANIM_ERR_LIMIT && t == NULL);
    CHECK_MSG(strstr(e.message, "the test's limit") && e.offset >= 100 + 11, "%s", e.message);
    arena_free(&a);
}

/* ---- member names found where the last object had them (ps.shape) ------------------------- */

static int keep_shapes(unsigned depth, const char *parent, const char *key)
{
    (void)depth;
    if (key[0] == 'X' && key[1] == 'k') return 0;
    return !parent || strcmp(parent, "extras") != 0 || strcmp(key, "mine") == 0;
}

static int later_shapes(unsigned depth, const char *parent, const char *key)
{
    (void)parent;
    return depth == 2 && strcmp(key, "m") == 0;
}

typedef struct shaped {
    arena a;
    ganim_error e;
    ganim_code c;
    size_t charged;
    const gj_value *v;
} shaped;

static void parse_shaped(shaped *t, const char *text, size_t size, size_t max_bytes, int no_shapes)
{
    memset(t, 0, sizeof *t);
    gj_parser p = bounded_parser(&t->a, max_bytes, &t->charged);
    p.keep = keep_shapes;
    p.lend = lend_s;
    p.later = later_shapes;
    p.no_shapes = no_shapes;
    t->c = gj_parse(&p, (const uint8_t *)text, size, &t->v, &t->e);
}

/* Whether two trees are the same: values, offsets, member names, lent strings, LATER texts. */
static int same_values(const gj_value *a, const gj_value *b)
{
    if (a->type != b->type || a->count != b->count || a->offset != b->offset || a->lent != b->lent) return 0;
    if ((a->key == NULL) != (b->key == NULL) || (a->key && strcmp(a->key, b->key) != 0)) return 0;
    if (a->type == GJ_LATER) return a->text == b->text && a->depth == b->depth;
    if (a->type == GJ_STRING || a->type == GJ_NUMBER) return memcmp(a->text, b->text, a->count) == 0;
    if (a->type == GJ_ARRAY || a->type == GJ_OBJECT)
        for (uint32_t i = 0; i < a->count; i++)
            if (!same_values(&a->items[i], &b->items[i])) return 0;
    return 1;
}

static uint32_t shape_rand(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

/* A name of the pool: runs of 'k' of many lengths (each a prefix of the longer ones), the
 * same with 'X' at the first, middle or last byte or byte 8, escaped names, and the names
 * the callbacks look at. */
static const char *shape_name_of(unsigned i, char *buf)
{
    static const char *const fixed[] = {
        "extras", "mine", "s", "m", "k\\u006b", "\\u006bk", "Xkk", "Xkkkkkkkkkkkkkkkkk"
    };
    static const unsigned lens[] = { 1, 2, 3, 5, 7, 8, 9, 12, 15, 16, 17, 20, 24, 33, 40, 70 };
    if (i < 8) return fixed[i];
    i -= 8;
    unsigned len = lens[(i / 5) % 16], where = i % 5;
    memset(buf, 'k', len);
    buf[len] = 0;
    if (where == 1) buf[0] = 'Y';
    if (where == 2) buf[len / 2] = 'Y';
    if (where == 3) buf[len - 1] = 'Y';
    if (where == 4 && len > 8) buf[8] = 'Y';
    return buf;
}

static void shape_object(char *text, size_t *n, size_t cap, uint32_t *x, unsigned depth, unsigned *last,
                         unsigned *nlast)
{
    unsigned names[10], count;
    if (*nlast && shape_rand(x) % 4) { /* mostly the last object's names at this depth */
        count = *nlast;
        memcpy(names, last, sizeof names);
        if (shape_rand(x) % 3 == 0) names[shape_rand(x) % count] = shape_rand(x) % 88; /* one changed */
        if (shape_rand(x) % 5 == 0 && count > 1) count--;
    } else {
        count = 1 + shape_rand(x) % 10;
        for (unsigned k = 0; k < count; k++) names[k] = shape_rand(x) % 88;
    }
    memcpy(last, names, sizeof names);
    *nlast = count;
    *n += (size_t)snprintf(text + *n, cap - *n, "{");
    for (unsigned k = 0; k < count && *n < cap - 400; k++) {
        char buf[80];
        const char *name = shape_name_of(names[k], buf);
        *n += (size_t)snprintf(text + *n, cap - *n, "%s%s\"%s\"%s:", k ? "," : "", shape_rand(x) % 8 ? "" : " ", name,
                               shape_rand(x) % 8 ? "" : " ");
        unsigned kind = shape_rand(x) % 6;
        if (names[k] == 0 && depth < 5) { /* extras: an object with "mine" among others */
            *n += (size_t)snprintf(text + *n, cap - *n, "{\"mine\":1,\"%s\":[2],\"mine\":\"x\"}",
                                   shape_name_of(8 + shape_rand(x) % 80, buf));
        } else if (kind == 0 && depth < 4) {
            unsigned sub[10], nsub = 0;
            *n += (size_t)snprintf(text + *n, cap - *n, "[");
            for (unsigned j = 0, items = 1 + shape_rand(x) % 4; j < items && *n < cap - 600; j++) {
                if (j) *n += (size_t)snprintf(text + *n, cap - *n, ",");
                shape_object(text, n, cap, x, depth + 2, sub, &nsub);
            }
            *n += (size_t)snprintf(text + *n, cap - *n, "]");
        } else if (kind == 1) {
            *n += (size_t)snprintf(text + *n, cap - *n, "\"%s\"", shape_rand(x) % 2 ? "LINEAR" : "a\\nb");
        } else if (kind == 2) {
            *n += (size_t)snprintf(text + *n, cap - *n, "[%u,-0.5e3]", shape_rand(x) % 1000);
        } else {
            *n += (size_t)snprintf(text + *n, cap - *n, "%u", shape_rand(x) % 100000);
        }
    }
    *n += (size_t)snprintf(text + *n, cap - *n, "}");
}

TEST(member_names_where_they_were)
{
    static char text[24000];
    static const char bytes[] = "\"{}[],:\\ akXY0";
    uint32_t x = 0x2545F491u;
    unsigned compared = 0, failed = 0, limited = 0, cut = 0;
    for (int t = 0; t < 1500; t++) {
        size_t n = 0;
        unsigned last[4][10] = { { 0 } }, nlast[4] = { 0 };
        n += (size_t)snprintf(text + n, sizeof text - n, "{\"a\":[");
        for (unsigned i = 0, items = 2 + shape_rand(&x) % 12; i < items && n < sizeof text - 1200; i++) {
            if (i) n += (size_t)snprintf(text + n, sizeof text - n, ",");
            shape_object(text, &n, sizeof text - 600, &x, 2, last[0], &nlast[0]);
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "],\"b\":");
        shape_object(text, &n, sizeof text - 600, &x, 1, last[1], &nlast[1]);
        n += (size_t)snprintf(text + n, sizeof text - n, "}");
        if (t % 3 == 1) text[shape_rand(&x) % n] = bytes[shape_rand(&x) % (sizeof bytes - 1)]; /* one byte changed */
        shaped ref, fast;
        parse_shaped(&ref, text, n, 0, 1);
        size_t bound = 0;
        if (t % 3 == 2 && ref.c == GANIM_OK) bound = ref.charged - shape_rand(&x) % (ref.charged / 2 + 1);
        if (bound) {
            arena_free(&ref.a);
            parse_shaped(&ref, text, n, bound, 1);
        }
        parse_shaped(&fast, text, n, bound, 0);
        CHECK_MSG(fast.c == ref.c && fast.a.calls == ref.a.calls && fast.charged == ref.charged,
                  "text %d: code %d/%d, %d/%d allocations, %zu/%zu bytes", t, fast.c, ref.c, fast.a.calls, ref.a.calls,
                  fast.charged, ref.charged);
        if (ref.c != GANIM_OK)
            CHECK_MSG(fast.e.offset == ref.e.offset && !strcmp(fast.e.message, ref.e.message), "text %d: %s / %s", t,
                      fast.e.message, ref.e.message);
        if (ref.c == GANIM_OK && fast.c == GANIM_OK)
            CHECK_MSG(same_values(ref.v, fast.v), "text %d: not the same tree", t);
        compared++;
        failed += ref.c != GANIM_OK;
        limited += ref.c == GANIM_ERR_LIMIT;
        arena_free(&ref.a);
        arena_free(&fast.a);
        /* the text's end at every offset of its first bytes (a name of up to 15 bytes is
         * compared 16 bytes at a time where 16 are left, else the long way) */
        for (size_t end = 0; t < 24 && bound == 0 && end <= n && end <= 1200; end++) {
            parse_shaped(&ref, text, end, 0, 1);
            parse_shaped(&fast, text, end, 0, 0);
            CHECK_MSG(fast.c == ref.c && fast.a.calls == ref.a.calls && fast.charged == ref.charged &&
                          (ref.c != GANIM_OK ? fast.e.offset == ref.e.offset && !strcmp(fast.e.message, ref.e.message)
                                             : same_values(ref.v, fast.v)),
                      "text %d ending at %zu: code %d/%d: %s / %s", t, end, fast.c, ref.c, fast.e.message,
                      ref.e.message);
            cut++;
            arena_free(&ref.a);
            arena_free(&fast.a);
        }
    }
    CHECK_MSG(failed > 300 && limited > 100 && compared - failed > 700 && cut > 10000,
              "%u texts, %u refused (%u at the bound), %u cut short", compared, failed, limited, cut);
}

/* ---- records (gj_parser.records) ----------------------------------------------------------- */

static const char *const rec_names[] = { "bufferView", "count", "type", "normalized" };

typedef struct rec_run {
    arena a;
    ganim_error e;
    ganim_code c;
    size_t charged;
    const gj_value *v;
    gj_records r;
    gj_parser p; /* the span tests' parser (their later parses take it) */
} rec_run;

/* Text t read with records (code fc, error fe) as without them (rc, re), under the bound:
 * the same code and, on an error, the same message at the same offset. */
static void same_outcome(int t, size_t bound, ganim_code fc, const ganim_error *fe, ganim_code rc,
                         const ganim_error *re)
{
    CHECK_MSG(fc == rc, "text %d: code %d, tree %d (%s), bound %zu", t, fc, rc, re->message, bound);
    if (rc != GANIM_OK && fc == rc)
        CHECK_MSG(fe->offset == re->offset && strcmp(fe->message, re->message) == 0,
                  "text %d: '%s' at %llu, tree '%s' at %llu", t, fe->message, (unsigned long long)fe->offset,
                  re->message, (unsigned long long)re->offset);
}

static void parse_records(rec_run *t, const char *text, size_t size, size_t max_bytes, int records)
{
    memset(t, 0, sizeof *t);
    t->r.key = "acc";
    t->r.names = rec_names;
    t->r.fields = 4;
    gj_parser p = bounded_parser(&t->a, max_bytes, &t->charged);
    p.records = records ? &t->r : NULL;
    p.record_kinds = records ? 1u : 0u;
    t->c = gj_parse(&p, (const uint8_t *)text, size, &t->v, &t->e);
}

/* One random object of the records' shape or near it, at text[*n]. */
static void rec_object(char *text, size_t *n, size_t cap, uint32_t *x, int odd)
{
    static const char *const members[] = { "\"bufferView\":%u",     "\"count\": %u",         "\"type\":\"VEC%u\"",
                                           "\"normalized\":true",   "\"min\":[1,-2.5e3,%u]", "\"name\":\"n%u\"",
                                           "\"count\":%u.5",        "\"x\":{\"y\":%u}",      "\"type\":[%u]",
                                           " \"bufferView\" : %u ", "\"c\\u006funt\":%u",    "\"count\":0%u" };
    unsigned k = shape_rand(x) % 6, used = 0;
    *n += (size_t)snprintf(text + *n, cap - *n, "{");
    for (unsigned i = 0; i < k; i++) {
        unsigned m = shape_rand(x) % (odd ? 80u : 6u); /* (odd: now and then one the records do not take) */
        if (m >= sizeof members / sizeof *members) m = m % 6;
        if (m < 6 && (used >> m & 1) && shape_rand(x) % 16) continue; /* (names repeated now and then) */
        used |= 1u << m;
        if (text[*n - 1] != '{') text[(*n)++] = ',';
        *n += (size_t)snprintf(text + *n, cap - *n, members[m], shape_rand(x) % 1000);
    }
    *n += (size_t)snprintf(text + *n, cap - *n, "}");
}

/* With records, and again without them after a failure (as gltf.c's read_json), against
 * without: the same outcome (code, message, offset) under any bound; where both succeed,
 * the same tree but for the member read as records, whose fields are the values the tree
 * holds; a parse with records that succeeds charges at least what the tree does. */
TEST(records_read_as_the_tree)
{
    static char text[12000];
    uint32_t x = 0x1234567u;
    unsigned taken = 0, fell_back = 0, bounded = 0;
    for (int t = 0; t < 3000; t++) {
        size_t n = 0;
        n += (size_t)snprintf(text + n, sizeof text - n, "{\"a\":[\"s%u\",{\"k\":1}],\"acc\":[", shape_rand(&x) % 9);
        for (unsigned i = 0, items = 1 + shape_rand(&x) % 30; i < items && n < sizeof text - 600; i++) {
            if (i) n += (size_t)snprintf(text + n, sizeof text - n, ",");
            rec_object(text, &n, sizeof text - 300, &x, t % 3 == 0);
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "],\"b\":[");
        for (unsigned i = 0, items = shape_rand(&x) % 20; i < items && n < sizeof text - 300; i++)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"k\":\"s%u\",\"type\":\"VEC3\"}", i ? "," : "",
                                  shape_rand(&x) % 40);
        n += (size_t)snprintf(text + n, sizeof text - n, "]%s}", t % 5 ? ",\"acc\":[{\"count\":1}]" : "");
        if (t % 4 == 1) text[shape_rand(&x) % n] = "\"{}[],:\\ 0eE.-tn"[shape_rand(&x) % 16]; /* one byte changed */
        size_t cutn = t % 4 == 2 ? 1 + shape_rand(&x) % n : n;                                /* or cut short */
        rec_run ref, fast;
        parse_records(&ref, text, cutn, 0, 0);
        size_t bound = 0;
        if (t % 2 && ref.c == GANIM_OK) {
            bound = ref.charged + ref.charged / 2 - shape_rand(&x) % (ref.charged + 1);
            arena_free(&ref.a);
            parse_records(&ref, text, cutn, bound, 0);
            bounded++;
        }
        parse_records(&fast, text, cutn, bound, 1);
        if (fast.c == GANIM_OK && fast.r.done) {
            taken++;
            CHECK_MSG(ref.c == GANIM_OK && fast.charged >= ref.charged, "text %d: records %zu bytes, tree %d %zu", t,
                      fast.charged, ref.c, ref.charged);
        }
        if (fast.c != GANIM_OK) { /* read again without */
            arena_free(&fast.a);
            parse_records(&fast, text, cutn, bound, 0);
            fell_back++;
        }
        same_outcome(t, bound, fast.c, &fast.e, ref.c, &ref.e);
        if (ref.c == GANIM_OK && fast.c == GANIM_OK) {
            const gj_value *ra = gj_get(ref.v, "acc"), *fa = gj_get(fast.v, "acc");
            CHECK(ra && fa && ref.v->count == fast.v->count);
            for (uint32_t m = 0; m < ref.v->count && m < fast.v->count; m++)
                if (&ref.v->items[m] != ra) CHECK_MSG(same_values(&ref.v->items[m], &fast.v->items[m]), "text %d", t);
            if (fast.r.done && ra && fa) {
                CHECK(fa->type == GJ_LATER && ra->type == GJ_ARRAY && fa->offset == ra->offset);
                CHECK_EQ_INT(fast.r.set.count, ra->count);
                for (uint32_t o = 0; o < ra->count && o < fast.r.set.count; o++) {
                    const gj_value *obj = &ra->items[o];
                    CHECK(obj->offset == 100 + fast.r.set.at[o]);
                    for (unsigned j = 0; j < 4; j++) {
                        const gj_value *m = gj_get(obj, rec_names[j]);
                        const gj_field *f = &fast.r.set.field[o * 4 + j];
                        if (!m) {
                            CHECK_MSG(f->type == GJ_ABSENT, "text %d object %u field %u", t, o, j);
                            continue;
                        }
                        CHECK_MSG(f->type == m->type && 100 + f->at == m->offset &&
                                      (m->type != GJ_NUMBER ||
                                       (f->count == m->count && memcmp(text + f->at, m->text, m->count) == 0)) &&
                                      (m->type != GJ_STRING ||
                                       (f->count == m->count && memcmp(text + f->at + 1, m->text, m->count) == 0)),
                                  "text %d object %u field %u", t, o, j);
                    }
                }
            }
        }
        arena_free(&ref.a);
        arena_free(&fast.a);
    }
    /* The strings the tree's look-ups push out of the parser's cache and meet again after
     * the records (strings met in reverse order: each slot's last one first): the records'
     * charge covers them, under every bound around the total. */
    {
        size_t n = 0;
        n += (size_t)snprintf(text + n, sizeof text - n, "{\"a\":[");
        for (int i = 0; i < 200; i++) n += (size_t)snprintf(text + n, sizeof text - n, "%s\"s%d\"", i ? "," : "", i);
        n += (size_t)snprintf(text + n, sizeof text - n, "],\"acc\":[{\"type\":\"Tk\"}],\"b\":[");
        for (int i = 199; i >= 0; i--)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s\"s%d\"", i < 199 ? "," : "", i);
        n += (size_t)snprintf(text + n, sizeof text - n, "]}");
        rec_run ref, fast;
        parse_records(&ref, text, n, 0, 0);
        size_t total = ref.charged;
        arena_free(&ref.a);
        parse_records(&fast, text, n, 0, 1);
        CHECK(fast.c == GANIM_OK && fast.r.done && fast.charged >= total);
        arena_free(&fast.a);
        for (size_t bound = total - 300; bound < total + 300; bound += 4) {
            parse_records(&ref, text, n, bound, 0);
            parse_records(&fast, text, n, bound, 1);
            if (fast.c != GANIM_OK) {
                arena_free(&fast.a);
                parse_records(&fast, text, n, bound, 0);
            }
            CHECK_MSG(fast.c == ref.c, "bound %zu: code %d, tree %d", bound, fast.c, ref.c);
            arena_free(&ref.a);
            arena_free(&fast.a);
        }
    }
    /* a root that is not an object: no member names to look at */
    static const char *const roots[] = { "[1,2]", "[{\"acc\":[{\"count\":1}]}]", "\"acc\"", "7" };
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        rec_run r;
        parse_records(&r, roots[i], strlen(roots[i]), 0, 1);
        CHECK(r.c == GANIM_OK && !r.r.met && !r.r.done);
        arena_free(&r.a);
    }
    CHECK(taken > 300 && fell_back > 300 && bounded > 500);
    printf("  %u read with records, %u read again without, %u under a bound\n", taken, fell_back, bounded);
}

/* ---- span fields (gj_records.spans): an object or array kept as its text ------------------- */

static const char *const span_names[] = { "bufferView", "extras", "count" };

/* gltf.c's keep_member, of extras only ganim's */
static int span_keep(unsigned depth, const char *parent, const char *key)
{
    (void)depth;
    return !parent || strcmp(parent, "extras") != 0 || strcmp(key, "ganim") == 0;
}

static void parse_spans(rec_run *t, const char *text, size_t size, size_t max_bytes, int records, int keep)
{
    memset(t, 0, sizeof *t);
    t->r = (gj_records){ .key = "acc", .names = span_names, .fields = 3, .spans = 2u };
    t->p = bounded_parser(&t->a, max_bytes, &t->charged);
    t->p.records = records ? &t->r : NULL;
    t->p.record_kinds = records ? 1u : 0u;
    t->p.keep = keep ? span_keep : NULL;
    t->c = gj_parse(&t->p, (const uint8_t *)text, size, &t->v, &t->e);
}

/* A value for a span field: ganim's negated ranges, or any JSON nested up to `depth` more
 * (now and then an escape, spaces, a long string, a number of every form). */
static void span_value(char *text, size_t *n, size_t cap, uint32_t *x, unsigned depth)
{
    static const char *const leaves[] = {
        "%u",   "-%u.25", "%ue-3", "\"s%u\"", "true",
        "null", "false",  "[]",    "{}",      "\"e\\n%u\"",
        "0",    " %u ",   "\"\"",  "[%u]",    "\"a_string_of_more_than_sixty_four_bytes_in_it_to_pass_the_caches_%u\""
    };
    unsigned k = shape_rand(x) % 4;
    if (k == 0) {
        *n += (size_t)snprintf(text + *n, cap - *n, "{\"ganim\":{\"negated\":[[%u,%u],[%u,%u]]}}", shape_rand(x) % 9,
                               shape_rand(x) % 20, shape_rand(x) % 30, shape_rand(x) % 40);
        return;
    }
    int obj = k != 1;
    unsigned m = shape_rand(x) % 4;
    *n += (size_t)snprintf(text + *n, cap - *n, "%s", obj ? "{" : "[");
    for (unsigned i = 0; i < m && *n < cap - 200; i++) {
        if (i) *n += (size_t)snprintf(text + *n, cap - *n, ",");
        if (obj) {
            static const char *const names[] = { "ganim", "negated", "keys", "x", "" };
            *n += (size_t)snprintf(text + *n, cap - *n, "\"%s\":", names[shape_rand(x) % 5]);
        }
        if (depth && shape_rand(x) % 3 == 0) span_value(text, n, cap, x, depth - 1);
        else
            *n += (size_t)snprintf(text + *n, cap - *n, leaves[shape_rand(x) % (sizeof leaves / sizeof *leaves)],
                                   shape_rand(x) % 1000);
    }
    *n += (size_t)snprintf(text + *n, cap - *n, "%s", obj ? "}" : "]");
}

/* With a span field, against the tree (and again without records after a failure): the
 * same outcome under any bound; the records charge at least the tree's bytes; a span's
 * text made a tree by gj_parse_later (the member's depth and name) is the tree's member. */
TEST(span_fields_read_as_the_tree)
{
    static char text[16000];
    uint32_t x = 0x2468ACEu;
    unsigned taken = 0, spans = 0, fell_back = 0, bounded = 0;
    for (int t = 0; t < 3000; t++) {
        size_t n = 0;
        int keep = t % 2;
        n += (size_t)snprintf(text + n, sizeof text - n, "{\"a\":[\"ganim\",{\"k\":1}],\"acc\":[");
        for (unsigned i = 0, items = 1 + shape_rand(&x) % 20; i < items && n < sizeof text - 2000; i++) {
            n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"bufferView\":%u", i ? "," : "", shape_rand(&x) % 50);
            if (shape_rand(&x) % 4) {
                n += (size_t)snprintf(text + n, sizeof text - n, ",\"extras\":");
                span_value(text, &n, sizeof text - 1000, &x, shape_rand(&x) % 16 ? 2 : 7); /* (7: past max_depth) */
            }
            if (shape_rand(&x) % 3 == 0) n += (size_t)snprintf(text + n, sizeof text - n, ",\"count\":%u", i);
            if (shape_rand(&x) % 40 == 0) n += (size_t)snprintf(text + n, sizeof text - n, ",\"extras\":7");
            n += (size_t)snprintf(text + n, sizeof text - n, "}");
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "],\"b\":{\"ganim\":[\"s1\",\"negated\"]}}");
        if (t % 4 == 1) text[shape_rand(&x) % n] = "\"{}[],:\\ 0eE.-tn"[shape_rand(&x) % 16]; /* one byte changed */
        size_t cutn = t % 4 == 2 ? 1 + shape_rand(&x) % n : n;                                /* or cut short */
        rec_run ref, fast;
        parse_spans(&ref, text, cutn, 0, 0, keep);
        size_t bound = 0;
        if (t % 2 && ref.c == GANIM_OK) {
            bound = ref.charged + ref.charged / 2 - shape_rand(&x) % (ref.charged + 1);
            arena_free(&ref.a);
            parse_spans(&ref, text, cutn, bound, 0, keep);
            bounded++;
        }
        parse_spans(&fast, text, cutn, bound, 1, keep);
        if (fast.c == GANIM_OK && fast.r.done) {
            taken++;
            CHECK_MSG(ref.c == GANIM_OK && fast.charged >= ref.charged, "text %d: records %zu bytes, tree %d %zu", t,
                      fast.charged, ref.c, ref.charged);
        }
        if (fast.c == GANIM_OK && fast.r.done && ref.c == GANIM_OK) {
            const gj_value *ra = gj_get(ref.v, "acc");
            CHECK(ra && ra->type == GJ_ARRAY && ra->count == fast.r.set.count);
            for (uint32_t o = 0; ra && o < ra->count && o < fast.r.set.count; o++) {
                const gj_value *m = gj_get(&ra->items[o], "extras");
                const gj_field *f = &fast.r.set.field[o * 3 + 1];
                if (!m || (m->type != GJ_OBJECT && m->type != GJ_ARRAY)) {
                    CHECK_MSG(f->type != GJ_LATER && (m ? f->type == m->type : f->type == GJ_ABSENT),
                              "text %d object %u", t, o);
                    continue;
                }
                CHECK_MSG(f->type == GJ_LATER && 100 + f->at == m->offset, "text %d object %u: %u", t, o, f->type);
                gj_value later = { .key = "extras",
                                   .text = text + f->at,
                                   .offset = 100 + (uint64_t)f->at,
                                   .count = f->count,
                                   .type = GJ_LATER,
                                   .depth = 3 };
                gj_parser q = fast.p;
                q.max_bytes = 0;
                q.used = 0;
                q.charged = NULL;
                q.records = NULL;
                q.record_kinds = 0;
                const gj_value *tree = NULL;
                ganim_error e;
                CHECK_MSG(gj_parse_later(&q, &later, &tree, &e) == GANIM_OK && same_values(tree, m),
                          "text %d object %u: the span's tree", t, o);
                spans++;
            }
        }
        if (fast.c != GANIM_OK) { /* read again without */
            arena_free(&fast.a);
            parse_spans(&fast, text, cutn, bound, 0, keep);
            fell_back++;
        }
        same_outcome(t, bound, fast.c, &fast.e, ref.c, &ref.e);
        arena_free(&ref.a);
        arena_free(&fast.a);
    }
    /* large spans (more than the bound's slack for the caches and the stack): the records
     * charge at least the tree's bytes, and under every bound around that the same outcome */
    for (int form = 0; form < 3; form++) {
        size_t n = 0;
        n += (size_t)snprintf(text + n, sizeof text - n, "{\"acc\":[");
        for (int i = 0; i < 40; i++) {
            n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"bufferView\":%d,\"extras\":", i ? "," : "", i);
            for (int v = 0; v < 24; v++) /* (24 numbers, names or strings) */
                n += (size_t)snprintf(text + n, sizeof text - n,
                                      form == 0   ? "%s%d"
                                      : form == 1 ? "%s\"n%d\":0"
                                                  : "%s\"s%d_str\"",
                                      v           ? ","
                                      : form == 1 ? "{"
                                                  : "[",
                                      v);
            n += (size_t)snprintf(text + n, sizeof text - n, "%s}", form == 1 ? "}" : "]");
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "]}");
        rec_run ref, fast;
        parse_spans(&ref, text, n, 0, 0, 0);
        parse_spans(&fast, text, n, 0, 1, 0);
        CHECK_MSG(ref.c == GANIM_OK && fast.c == GANIM_OK && fast.r.done && fast.charged >= ref.charged,
                  "large spans %d: records %d %zu bytes, tree %d %zu", form, fast.c, fast.charged, ref.c, ref.charged);
        size_t total = ref.charged;
        arena_free(&ref.a);
        arena_free(&fast.a);
        for (size_t bound = total - 200; bound < total + 200; bound += 8) {
            parse_spans(&ref, text, n, bound, 0, 0);
            parse_spans(&fast, text, n, bound, 1, 0);
            CHECK_MSG(fast.c != GANIM_OK || ref.c == GANIM_OK, "large spans %d, bound %zu: records read, tree %d", form,
                      bound, ref.c);
            arena_free(&ref.a);
            arena_free(&fast.a);
        }
    }
    printf("  %u read with records (%u spans made trees), %u read again without, %u under a bound\n", taken, spans,
           fell_back, bounded);
    CHECK(taken > 250 && spans > 1500 && fell_back > 300 && bounded > 500);
}

/* ---- records two deep (gj_records.depth 2: glTF's animations' channels and samplers) ------- */

static const char *const chan_names[] = { "target", "sampler", "target.path", "target.node" };
static const char *const samp_names[] = { "interpolation", "input", "output" };

typedef struct rec2_run {
    arena a;
    ganim_error e;
    ganim_code c;
    size_t charged;
    const gj_value *v;
    gj_records r[3];
} rec2_run;

static void parse_records2(rec2_run *t, const char *text, size_t size, size_t max_bytes, int records)
{
    memset(t, 0, sizeof *t);
    t->r[0] = (gj_records){ .key = "chans", .names = chan_names, .fields = 4, .depth = 2 };
    t->r[1] = (gj_records){ .key = "samps", .names = samp_names, .fields = 3, .depth = 2 };
    t->r[2] = (gj_records){ .key = "acc", .names = rec_names, .fields = 4 };
    gj_parser p = bounded_parser(&t->a, max_bytes, &t->charged);
    p.records = records ? t->r : NULL;
    p.record_kinds = records ? 3u : 0u;
    t->c = gj_parse(&p, (const uint8_t *)text, size, &t->v, &t->e);
}

/* Members of a channel and of a sampler: the plain ones first (6), then others */
static const char *const rec2_cm[] = { "\"sampler\":%u",
                                       "\"target\":{\"node\":%u,\"path\":\"rotation\"}",
                                       "\"target\":{\"path\":\"scale\"}",
                                       "\"target\":{ \"path\" : \"translation\" , \"node\" : %u }",
                                       "\"name\":\"c%u\"",
                                       "\"target\":{\"path\":\"p%u\",\"x\":true,\"node\":null}",
                                       "\"target\":{}",
                                       "\"target\":%u",
                                       "\"target\":{\"node\":%u,\"node\":1}",
                                       "\"target\":{\"x\":[%u]}",
                                       "\"target\":{\"node\":0%u}",
                                       "\"target\":{\"n\\u006fde\":%u}",
                                       "\"target\":{\"path\":\"a\\n%u\"}",
                                       "\"target\":[%u]",
                                       "\"target.node\":%u",
                                       "\"extras\":{\"g\":%u}" };
static const char *const rec2_sm[] = { "\"input\":%u",
                                       "\"output\":%u",
                                       "\"interpolation\":\"LINEAR\"",
                                       "\"interpolation\":\"STEP\"",
                                       "\"name\":\"s%u\"",
                                       "\"input\":-%u.5",
                                       "\"interpolation\":\"S%u\"",
                                       "\"extras\":{\"g\":%u}",
                                       "\"input\":[%u]",
                                       "\"output\":1e%u",
                                       "\"input\":0%u" };

/* One random object of a channel's or sampler's shape or near it, at text[*n]. */
static void rec2_object(char *text, size_t *n, size_t cap, uint32_t *x, int odd, int chan)
{
    const char *const *mm = chan ? rec2_cm : rec2_sm;
    unsigned plain = chan ? 6u : 6u,
             all = chan ? (unsigned)(sizeof rec2_cm / sizeof *rec2_cm) : (unsigned)(sizeof rec2_sm / sizeof *rec2_sm);
    unsigned k = shape_rand(x) % 5, used = 0;
    *n += (size_t)snprintf(text + *n, cap - *n, "{");
    for (unsigned i = 0; i < k; i++) {
        unsigned m = shape_rand(x) % (odd ? 60u : plain);
        if (m >= all) m = m % plain;
        if (m < plain && (used >> m & 1) && shape_rand(x) % 16) continue; /* (names repeated now and then) */
        used |= 1u << m;
        if (text[*n - 1] != '{') text[(*n)++] = ',';
        *n += (size_t)snprintf(text + *n, cap - *n, mm[m], shape_rand(x) % 1000);
    }
    *n += (size_t)snprintf(text + *n, cap - *n, "}");
}

/* The records of one set (GJ_RECORDS) against the tree's array: the same objects, each
 * field the tree's member (a "a.b" field: the member b of the member a). */
static int records_are_tree(const char *text, const gj_value *fa, const gj_value *ra, const char *const *names,
                            unsigned k)
{
    if (fa->type != GJ_RECORDS || ra->type != GJ_ARRAY || fa->offset != ra->offset || fa->count != ra->count ||
        fa->set->count != ra->count)
        return 0;
    for (uint32_t o = 0; o < ra->count; o++) {
        const gj_value *obj = &ra->items[o];
        if (obj->type != GJ_OBJECT || obj->offset != 100 + fa->set->at[o]) return 0;
        for (unsigned j = 0; j < k; j++) {
            const char *dot = strchr(names[j], '.');
            const gj_value *m;
            if (dot) {
                char outer[16] = { 0 };
                memcpy(outer, names[j], (size_t)(dot - names[j]));
                m = gj_get(gj_get(obj, outer), dot + 1);
            } else {
                m = gj_get(obj, names[j]);
            }
            const gj_field *f = &fa->set->field[o * k + j];
            if (!m) {
                if (f->type != GJ_ABSENT) return 0;
                continue;
            }
            if (f->type != m->type || 100 + f->at != m->offset) return 0;
            if ((m->type == GJ_NUMBER || m->type == GJ_OBJECT || m->type == GJ_STRING) && f->count != m->count)
                return 0;
            if (m->type == GJ_NUMBER && memcmp(text + f->at, m->text, m->count) != 0) return 0;
            if (m->type == GJ_STRING && memcmp(text + f->at + 1, m->text, m->count) != 0) return 0;
        }
    }
    return 1;
}

/* The tree a (without records) and b (with): the same, but where b holds records. */
static int same_but_records(const char *text, const gj_value *a, const gj_value *b)
{
    if (b->type == GJ_RECORDS) {
        int chan = strcmp(b->key, "chans") == 0;
        return records_are_tree(text, b, a, chan ? chan_names : samp_names, chan ? 4u : 3u);
    }
    if (b->type == GJ_LATER && a->type == GJ_ARRAY) return a->offset == b->offset; /* (acc: test above) */
    if (!same_node(a, b)) return 0;
    if (a->type == GJ_ARRAY || a->type == GJ_OBJECT)
        for (uint32_t i = 0; i < a->count; i++)
            if (!same_but_records(text, &a->items[i], &b->items[i])) return 0;
    return 1;
}

/* Records two deep (an array's items' members, with one nested object of fields): with
 * records, and again without after a failure, against without: the same outcome (code,
 * message, offset) under any bound; where both succeed, the same tree but for the members
 * read as records, whose fields are the tree's values; a parse with records that succeeds
 * charges at least what the tree does. */
/* A nested object's members whose names are near the wanted ones (target.node,
 * target.path: one byte more or less, another case, at the text's end where fewer than 16
 * bytes are left): read as records, each field the tree's value (the wanted names are
 * known by their bytes and closing quote, the others the long way). */
TEST(records_nested_names_near_the_wanted)
{
    static const char *const targets[] = {
        "{\"nodes\":7,\"path\":\"rotation\",\"node\":2}",
        "{\"nod\":7,\"node\":3,\"paths\":\"x\",\"pat\":\"y\",\"path\":\"scale\"}",
        "{\"Node\":7,\"PATH\":\"rotation\",\"pathnodepathnode\":1,\"path\":\"translation\"}",
        "{\"node\":4}",
        "{\"pathX\":\"rotation\",\"nodeX\":5}",
        "{\"path\":\"weights\",\"node\":6}",
    };
    static char text[512];
    unsigned taken = 0;
    for (size_t t = 0; t < sizeof targets / sizeof *targets; t++)
        for (int tail = 0; tail < 2; tail++) { /* (tail: the channel last, the text's end near) */
            size_t n =
                (size_t)snprintf(text, sizeof text, "{\"anims\":[{\"chans\":[{\"sampler\":1,\"target\":%s}]}]%s}",
                                 targets[t], tail ? "" : ",\"b\":[\"LINEAR\",\"padding, to be far from the end\"]");
            rec2_run ref, fast;
            parse_records2(&ref, text, n, 0, 0);
            parse_records2(&fast, text, n, 0, 1);
            CHECK_MSG(ref.c == GANIM_OK && fast.c == GANIM_OK && fast.r[0].done, "%s: records %d, tree %d", text,
                      fast.c, ref.c);
            if (ref.c == GANIM_OK && fast.c == GANIM_OK) {
                CHECK_MSG(same_but_records(text, ref.v, fast.v) && fast.charged >= ref.charged, "%s", text);
                taken += (unsigned)fast.r[0].done;
            }
            arena_free(&ref.a);
            arena_free(&fast.a);
        }
    CHECK_EQ_INT(taken, 12);
    /* two fields that are objects with a member of the same name: each its own */
    static const char *const names[] = { "a", "b", "a.x", "b.x" };
    const char *two =
        "{\"r\":[{\"a\":{\"x\":1},\"b\":{\"x\":22}},{\"b\":{\"x\":333}}],\"pad\":\"to be far from the end\"}";
    gj_records r = { .key = "r", .names = names, .fields = 4 };
    arena a = { 0 };
    gj_parser p = {
        .alloc = arena_alloc, .alloc_user = &a, .max_depth = 8, .who = "test: JSON", .records = &r, .record_kinds = 1
    };
    const gj_value *v = NULL;
    ganim_error e;
    CHECK(gj_parse(&p, (const uint8_t *)two, strlen(two), &v, &e) == GANIM_OK && r.done && r.set.count == 2);
    if (r.done && r.set.count == 2) {
        const gj_field *f = r.set.field;
        CHECK(f[2].type == GJ_NUMBER && f[2].count == 1 && two[f[2].at] == '1');
        CHECK(f[3].type == GJ_NUMBER && f[3].count == 2 && two[f[3].at] == '2');
        CHECK(f[4].type == GJ_ABSENT && f[6].type == GJ_ABSENT && f[7].type == GJ_NUMBER && f[7].count == 3);
    }
    arena_free(&a);
}

TEST(records_two_deep_read_as_the_tree)
{
    static char text[16000];
    uint32_t x = 0x2468ace1u;
    unsigned taken = 0, fell_back = 0, bounded = 0, sets = 0;
    /* each shape alone, after one plain object: a channel's, then a sampler's */
    for (int chan = 0; chan < 2; chan++)
        for (unsigned m = 0; m < 16; m++) {
            char one[96];
            uint32_t y = 7 + m;
            if (m >= (chan ? sizeof rec2_cm / sizeof *rec2_cm : sizeof rec2_sm / sizeof *rec2_sm)) continue;
            size_t on = (size_t)snprintf(one, sizeof one, "{");
            snprintf(one + on, sizeof one - on, chan ? rec2_cm[m] : rec2_sm[m], shape_rand(&y) % 1000);
            strcat(one, "}");
            size_t n = (size_t)snprintf(text, sizeof text,
                                        "{\"anims\":[{\"%s\":[{\"sampler\":1,\"input\":2},%s]}],\"b\":[\"LINEAR\"]}",
                                        chan ? "chans" : "samps", one);
            rec2_run ref, fast;
            parse_records2(&ref, text, n, 0, 0);
            parse_records2(&fast, text, n, 0, 1);
            CHECK_MSG(fast.c == ref.c, "%s: code %d, tree %d", text, fast.c, ref.c);
            if (ref.c == GANIM_OK && fast.c == GANIM_OK)
                CHECK_MSG(same_but_records(text, ref.v, fast.v) && fast.charged >= ref.charged, "%s", text);
            arena_free(&ref.a);
            arena_free(&fast.a);
        }
    for (int t = 0; t < 3000; t++) {
        size_t n = 0;
        n += (size_t)snprintf(text + n, sizeof text - n, "{\"a\":[\"s%u\",\"rotation\",{\"k\":1}],\"anims\":[",
                              shape_rand(&x) % 9);
        for (unsigned a = 0, anims = shape_rand(&x) % 5; a < anims && n < sizeof text - 3000; a++) {
            n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"name\":\"a%u\"", a ? "," : "", a);
            for (int pass = 0; pass < 2 + (shape_rand(&x) % 8 == 0); pass++) {
                int chan = (pass + (int)(shape_rand(&x) % 2)) % 2;
                n += (size_t)snprintf(text + n, sizeof text - n, ",\"%s\":[", chan ? "chans" : "samps");
                for (unsigned i = 0, items = shape_rand(&x) % 12; i < items && n < sizeof text - 1200; i++) {
                    if (i) text[n++] = ',';
                    rec2_object(text, &n, sizeof text - 600, &x, t % 3 == 0, chan);
                }
                n += (size_t)snprintf(text + n, sizeof text - n, "]");
            }
            n += (size_t)snprintf(text + n, sizeof text - n, ",\"extras\":{\"k\":\"v\"}}");
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "],\"acc\":[{\"type\":\"VEC3\",\"count\":2}],\"b\":[");
        for (unsigned i = 0, items = shape_rand(&x) % 20; i < items && n < sizeof text - 300; i++)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"path\":\"%s\",\"chans\":[{\"target\":%u}]}",
                                  i ? "," : "", i % 2 ? "scale" : "LINEAR", shape_rand(&x) % 40);
        n += (size_t)snprintf(text + n, sizeof text - n, "]}");
        if (t % 4 == 1) text[shape_rand(&x) % n] = "\"{}[],:\\ 0eE.-tn"[shape_rand(&x) % 16]; /* one byte changed */
        size_t cutn = t % 4 == 2 ? 1 + shape_rand(&x) % n : n;                                /* or cut short */
        rec2_run ref, fast;
        parse_records2(&ref, text, cutn, 0, 0);
        size_t bound = 0;
        if (t % 2 && ref.c == GANIM_OK) {
            bound = ref.charged + ref.charged / 2 - shape_rand(&x) % (ref.charged + 1);
            arena_free(&ref.a);
            parse_records2(&ref, text, cutn, bound, 0);
            bounded++;
        }
        parse_records2(&fast, text, cutn, bound, 1);
        if (fast.c == GANIM_OK && (fast.r[0].done || fast.r[1].done)) {
            taken++;
            CHECK_MSG(ref.c == GANIM_OK && fast.charged >= ref.charged, "text %d: records %zu bytes, tree %d %zu", t,
                      fast.charged, ref.c, ref.charged);
            if (ref.c == GANIM_OK) {
                CHECK_MSG(same_but_records(text, ref.v, fast.v), "text %d", t);
                const gj_value *an = gj_get(fast.v, "anims");
                for (uint32_t a = 0; an && a < an->count; a++)
                    for (uint32_t m = 0; m < an->items[a].count; m++) sets += an->items[a].items[m].type == GJ_RECORDS;
            }
        }
        if (fast.c != GANIM_OK) { /* read again without */
            arena_free(&fast.a);
            parse_records2(&fast, text, cutn, bound, 0);
            fell_back++;
        }
        same_outcome(t, bound, fast.c, &fast.e, ref.c, &ref.e);
        arena_free(&ref.a);
        arena_free(&fast.a);
    }
    CHECK(taken > 300 && fell_back > 300 && bounded > 500 && sets > 400);
    printf("  %u read with records (%u sets), %u read again without, %u under a bound\n", taken, sets, fell_back,
           bounded);
}

/* Names and strings of 64 bytes in the parser's caches before the records, pushed out by
 * the tree's look-ups of the records' many short names and strings, and met again after
 * them: the tree stores them again, the records' read finds them still there. Its charge
 * must still be at least the tree's (scan_records' 80 bytes a look-up); under every bound
 * around the total, the records' read succeeds only where the tree's does. */
TEST(records_charge_the_names_pushed_out)
{
    static char text[40000];
    static const char ml[] = "member-name-of-sixty-two-bytes-met-before-and-after-records-";
    static const char tl[] = "string-value-of-sixty-two-bytes-met-before-and-after-records";
    for (int depth2 = 0; depth2 < 2; depth2++) {
        size_t n = 0;
        for (int pass = 0; pass < 2; pass++) { /* the long names before and after */
            n += (size_t)snprintf(text + n, sizeof text - n, "%s\"p%d\":[", pass ? "" : "{", pass);
            for (int i = 0; i < 40; i++)
                n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"%s%02d\":\"%s%02d\"}", i ? "," : "", ml, i, tl,
                                      i);
            if (pass) break;
            /* (the records: many short names and strings, each met once) */
            n += (size_t)snprintf(text + n, sizeof text - n, "],%s", depth2 ? "\"anims\":[{\"samps\":[" : "\"acc\":[");
            for (int i = 0; i < 24; i++) {
                n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"%s\":\"s%02d\"", i ? "," : "",
                                      depth2 ? "interpolation" : "type", i);
                for (int k = 0; k < 7; k++)
                    n += (size_t)snprintf(text + n, sizeof text - n, ",\"%c%02d\":%d", 'g' + k, i, k);
                n += (size_t)snprintf(text + n, sizeof text - n, "}");
            }
            n += (size_t)snprintf(text + n, sizeof text - n, "]%s,", depth2 ? "}]" : "");
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "]}");
        rec2_run ref, fast;
        parse_records2(&ref, text, n, 0, 0);
        parse_records2(&fast, text, n, 0, 1);
        CHECK(ref.c == GANIM_OK && fast.c == GANIM_OK && (fast.r[1].done || fast.r[2].done));
        CHECK_MSG(fast.charged >= ref.charged, "depth %d: records %zu bytes, tree %zu", depth2 * 2, fast.charged,
                  ref.charged);
        printf("  depth %d: records %zu bytes, tree %zu\n", depth2 * 2, fast.charged, ref.charged);
        size_t total = ref.charged;
        arena_free(&ref.a);
        arena_free(&fast.a);
        for (size_t bound = total - 400; bound < total + 400; bound += 8) {
            parse_records2(&ref, text, n, bound, 0);
            parse_records2(&fast, text, n, bound, 1);
            CHECK_MSG(fast.c != GANIM_OK || ref.c == GANIM_OK, "bound %zu: records read, the tree's %d", bound, ref.c);
            arena_free(&ref.a);
            arena_free(&fast.a);
        }
    }
}

/* Bounds so small that the stack's first growth is cut to one value (room for one more
 * under max_bytes): the next value grows it by one, never writes past it (the sanitized
 * build, a read past the allocation), and a records read after it ends (its bound of the
 * stack grown as push grows it: a loop that never grew it hung). Every bound from 0 to
 * past the text's whole charge: refused for the bound, or read with at most the bound
 * charged, alike with records and without (records then fall back, as gltf.c does). */
TEST(tiny_bounds_grow_the_stack_by_one)
{
    static const char *const texts[] = { "[1,2]",
                                         "[1,2,3,4,5]",
                                         "{\"a\":1,\"b\":2,\"c\":3}",
                                         "[[1,2],[3,4]]",
                                         "{\"a\":[1],\"acc\":[{\"count\":1},{\"count\":2}]}",
                                         "[\"s\",{\"acc\":[{\"type\":\"VEC3\"}]},2,3]",
                                         "{\"x\":\"y\",\"acc\":[{\"count\":1,\"type\":\"SCALAR\"}],\"z\":[1,2,3]}" };
    unsigned refused = 0, read = 0;
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++)
        for (size_t bound = 1; bound < 3000; bound++)
            for (int records = 0; records < 2; records++) {
                rec_run r;
                parse_records(&r, texts[t], strlen(texts[t]), bound, records);
                if (r.c != GANIM_OK && records) { /* read again without, as gltf.c does */
                    arena_free(&r.a);
                    parse_records(&r, texts[t], strlen(texts[t]), bound, 0);
                }
                CHECK_MSG(r.c == GANIM_ERR_LIMIT || (r.c == GANIM_OK && r.charged <= bound), "%s under %zu: %d, %zu",
                          texts[t], bound, r.c, r.charged);
                refused += r.c == GANIM_ERR_LIMIT;
                read += r.c == GANIM_OK;
                arena_free(&r.a);
            }
    CHECK_MSG(refused > 500 && read > 2000, "%u refused, %u read", refused, read);
}

/* What a value of the tree takes (json.c's take): its bytes rounded up to 16 charged
 * against the bound before the arena is asked, the arena's failure NOMEM, the bound's
 * LIMIT naming it. An arena that notes every size: with no bound, the tree's charge is
 * the sum of the sizes rounded up to 16 (an independent count); under every bound a
 * refusal comes before the allocation it would pass (what was allocated fits in the
 * bound), names the bound, and a read succeeds with the same tree and charge; every
 * failing allocation is NOMEM at no offset. */
typedef struct sized_arena {
    void *blocks[512];
    size_t size[512];
    int count, fail_at, calls;
} sized_arena;

static void *sized_alloc(void *user, size_t size)
{
    sized_arena *a = user;
    a->calls++;
    if ((a->fail_at && a->calls == a->fail_at) || a->count == 512) return NULL;
    void *p = calloc(1, size ? size : 1);
    if (p) {
        a->size[a->count] = size;
        a->blocks[a->count++] = p;
    }
    return p;
}

static size_t sized_rounded(const sized_arena *a)
{
    size_t sum = 0;
    for (int i = 0; i < a->count; i++) sum += (a->size[i] + 15) & ~(size_t)15;
    return sum;
}

static void sized_free(sized_arena *a)
{
    for (int i = 0; i < a->count; i++) free(a->blocks[i]);
    a->count = a->calls = 0;
}

static uint64_t tree_digest(const gj_value *v, uint64_t h)
{
    h = (h ^ v->type) * 0x100000001B3ull;
    h = (h ^ v->count) * 0x100000001B3ull;
    h = (h ^ v->offset) * 0x100000001B3ull;
    if (v->key)
        for (const char *k = v->key; *k; k++) h = (h ^ (uint8_t)*k) * 0x100000001B3ull;
    if (v->type == GJ_STRING || v->type == GJ_NUMBER)
        for (uint32_t i = 0; i < v->count; i++) h = (h ^ (uint8_t)v->text[i]) * 0x100000001B3ull;
    if (v->type == GJ_ARRAY || v->type == GJ_OBJECT)
        for (uint32_t i = 0; i < v->count; i++) h = tree_digest(&v->items[i], h);
    return h;
}

TEST(take_charges_before_the_arena)
{
    static const char *const texts[] = {
        "[1,2]",
        "{\"a\":1,\"bb\":\"two\",\"ccc\":[3,{\"d\":null}]}",
        ("{\"nodes\":[{\"name\":\"root\",\"children\":[1,2]},{\"name\":\"bone_0\",\"translation\":[0,0,-40]},"
         "{\"name\":\"a name longer than sixteen bytes\",\"rotation\":[1,0,0,0]}],\"x\":\"\\u00e9t\\u00e9\"}"),
        "[\"a string of more than sixty-four bytes, stored whole: it is never shared by the cache\",[[[]]],{}]",
        "{\"k1\":{\"k2\":{\"k3\":[true,false,null,-1.5e3,\"s\"]}},\"k1\":7}",
    };
    unsigned limits = 0, reads = 0, nomems = 0;
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
        const char *text = texts[t];
        const size_t len = strlen(text);
        sized_arena a = { 0 };
        size_t charged = 0;
        gj_parser p = { .alloc = sized_alloc,
                        .alloc_user = &a,
                        .max_depth = 8,
                        .who = "test: JSON",
                        .base = 100,
                        .limit_name = "the test's limit",
                        .charged = &charged };
        const gj_value *v = NULL;
        ganim_error e = { 0 };
        CHECK_OK(gj_parse(&p, (const uint8_t *)text, len, &v, &e));
        const uint64_t want = tree_digest(v, 14695981039346656037ull);
        const size_t tree = charged;
        const int calls = a.calls;
        CHECK_MSG(tree == sized_rounded(&a) && tree > 0, "%s: charged %zu, the sizes rounded %zu", text, tree,
                  sized_rounded(&a));
        sized_free(&a);
        for (size_t bound = 1; bound <= tree + 4096; bound++) {
            p.max_bytes = bound;
            charged = 0;
            memset(&e, 0, sizeof e);
            v = NULL;
            ganim_code c = gj_parse(&p, (const uint8_t *)text, len, &v, &e);
            CHECK_MSG(sized_rounded(&a) <= bound, "%s under %zu: %zu allocated", text, bound, sized_rounded(&a));
            if (c == GANIM_OK) {
                reads++;
                CHECK_MSG(tree_digest(v, 14695981039346656037ull) == want && charged == tree && a.calls == calls,
                          "%s under %zu: another tree", text, bound);
            } else {
                limits++;
                char msg[200];
                snprintf(msg, sizeof msg,
                         "test: JSON: the values up to here need more than %zu bytes of memory (the test's limit)",
                         bound);
                CHECK_MSG(c == GANIM_ERR_LIMIT && e.code == c && strcmp(e.message, msg) == 0 && e.offset >= 100 &&
                              e.offset <= 100 + len && v == NULL && a.calls <= calls,
                          "%s under %zu: %d at %llu '%s'", text, bound, c, (unsigned long long)e.offset, e.message);
                CHECK_MSG(bound < tree + 2048, "%s refused under %zu", text, bound);
            }
            sized_free(&a);
        }
        p.max_bytes = 0;
        for (int k = 1; k <= calls; k++) {
            a.fail_at = k;
            memset(&e, 0, sizeof e);
            v = NULL;
            ganim_code c = gj_parse(&p, (const uint8_t *)text, len, &v, &e);
            CHECK_MSG(c == GANIM_ERR_NOMEM && e.code == c && e.offset == GANIM_NO_OFFSET &&
                          strcmp(e.message, "out of memory") == 0 && v == NULL && a.calls == k,
                      "%s, allocation %d failing: %d '%s'", text, k, c, e.message);
            nomems += c == GANIM_ERR_NOMEM;
            sized_free(&a);
        }
    }
    CHECK_MSG(limits > 1000 && reads > 5000 && nomems > 40, "%u refused, %u read, %u out of memory", limits, reads,
              nomems);
}

/* gj_float of a whole number of 1 to 7 digits, with or without '-' (taken without the
 * decimal scanner: exact in a float), against strtof bit for bit: every one of them, both
 * signs (-0 too), and the numbers around them that go the scanner's way (8 digits, a
 * fraction, an exponent). */
static unsigned float_bits_differ(const char *t, size_t n)
{
    gj_value v;
    memset(&v, 0, sizeof v);
    v.type = GJ_NUMBER;
    v.text = t;
    v.count = (uint32_t)n;
    float got = 12345.0f, want = strtof(t, NULL);
    if (!gj_float(&v, &got)) return 1;
    uint32_t a, b;
    memcpy(&a, &got, 4);
    memcpy(&b, &want, 4);
    return a != b;
}

TEST(whole_floats_exact)
{
    char t[32];
    unsigned bad = 0, checked = 0;
    for (int neg = 0; neg < 2; neg++) {
        /* 0 .. 9,999,999 by a decimal counter (digits in t + neg, most significant first) */
        char d[8] = { 0 };
        int len = 1;
        for (uint32_t n = 0; n < 10000000u; n++) {
            size_t k = 0;
            if (neg) t[k++] = '-';
            for (int i = len - 1; i >= 0; i--) t[k++] = (char)('0' + d[i]);
            t[k] = 0;
            bad += float_bits_differ(t, k);
            checked++;
            for (int i = 0; i < 8; i++) { /* the next number */
                if (++d[i] < 10) {
                    if (i + 1 > len) len = i + 1;
                    break;
                }
                d[i] = 0;
            }
        }
    }
    static const char *const others[] = { "10000000",   "-10000000",    "16777215",  "16777216",  "16777217",
                                          "99999999",   "123456789",    "0.5",       "-0.0",      "1.5",
                                          "1e3",        "-1E-2",        "9999999.5", "1234567e0", "0.1",
                                          "-9999999e1", "3.4028235e38", "1e-46" };
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        bad += float_bits_differ(others[i], strlen(others[i]));
        checked++;
    }
    CHECK_MSG(bad == 0 && checked == 20000000u + sizeof others / sizeof *others, "%u of %u differ", bad, checked);
}

/* gj_uint_inline (json.h: gj_uint_digits in the caller, gj_uint past it) against gj_uint and
 * against strtod's value, on JSON number tokens of every shape the parser takes (0, 1 to 20
 * digits, a sign, a fraction, an exponent) under maxima at and around their values. */
TEST(uint_inline_is_gj_uint)
{
    static const uint64_t maxima[] = { 0, 1, 9, 10, 99, 255, 65535, 4294967295u, (uint64_t)1 << 53, UINT64_MAX };
    uint32_t seed = 12345u;
    unsigned took = 0, refused = 0;
    for (int round = 0; round < 40000; round++) {
        char t[48];
        size_t n = 0;
        seed = seed * 1103515245u + 12345u;
        uint32_t r = seed >> 8;
        if (r % 11 == 0) t[n++] = '-';
        unsigned digits = 1 + (r >> 4) % 20;
        if ((r >> 9) % 7 == 0) digits = 1; /* (many "0" .. "9") */
        for (unsigned d = 0; d < digits; d++) {
            seed = seed * 1103515245u + 12345u;
            unsigned c = (seed >> 16) % 10;
            if (d == 0 && digits > 1 && c == 0) c = 1 + (seed >> 20) % 9; /* (no leading zero) */
            t[n++] = (char)('0' + c);
        }
        if ((r >> 13) % 9 == 0) {
            t[n++] = '.';
            t[n++] = (r >> 17) % 2 ? '0' : '5';
        }
        if ((r >> 19) % 13 == 0) {
            t[n++] = (r >> 21) % 2 ? 'e' : 'E';
            if ((r >> 22) % 3 == 0) t[n++] = '-';
            t[n++] = (char)('0' + (r >> 23) % 4);
        }
        t[n] = 0;
        gj_value v;
        memset(&v, 0, sizeof v);
        v.type = GJ_NUMBER;
        v.text = t;
        v.count = (uint32_t)n;
        double x = strtod(t, NULL);
        for (size_t m = 0; m < sizeof maxima / sizeof *maxima; m++) {
            uint64_t a = 7, b = 7;
            int ra = gj_uint_inline(&v, maxima[m], &a), rb = gj_uint(&v, maxima[m], &b);
            int want = x >= 0 && x == floor(x) && x <= (double)maxima[m];
            CHECK_MSG(ra == rb && ra == want && (!ra || (a == b && (double)a == x)),
                      "%s under %llu: %d %d %d, %llu %llu", t, (unsigned long long)maxima[m], ra, rb, want,
                      (unsigned long long)a, (unsigned long long)b);
            took += ra == 1;
            refused += ra == 0;
        }
    }
    /* what is not a number: refused */
    uint64_t u = 0;
    CHECK(!gj_uint_inline(NULL, 10, &u));
    gj_value s;
    memset(&s, 0, sizeof s);
    s.type = GJ_STRING;
    s.text = "5";
    s.count = 1;
    CHECK(!gj_uint_inline(&s, 10, &u));
    CHECK_MSG(took > 50000 && refused > 50000, "%u took, %u refused", took, refused);
}

/* gj_digit_run (json.h: the one digit conversion of gj_uint_digits and of gltf_anim.c's
 * negated ranges) against a byte-at-a-time reference: runs of 0 to 22 digits among bytes
 * next to '0'..'9' ('/', ':', 0x80 + a digit, NUL), every limit 0 to 19. */
TEST(digit_run_counts_and_values)
{
    static const char other[] = { '/', ':', ' ', ']', ',', 'e', '.', '-', (char)0xB0, (char)0xB9, 0 };
    uint32_t seed = 777u;
    unsigned full = 0, cut = 0, empty = 0;
    for (int round = 0; round < 20000; round++) {
        char t[32];
        seed = seed * 1103515245u + 12345u;
        uint32_t r = seed >> 8;
        unsigned run = (r % 23), m;
        for (m = 0; m < sizeof t; m++) {
            seed = seed * 1103515245u + 12345u;
            t[m] = m < run ? (char)('0' + (seed >> 16) % 10) : other[(seed >> 16) % sizeof other];
        }
        for (uint32_t most = 0; most <= 19; most++) {
            uint64_t want = 0, got = 12345;
            uint32_t len = 0;
            while (len < most && t[len] >= '0' && t[len] <= '9') want = want * 10 + (uint64_t)(t[len++] - '0');
            uint32_t d = gj_digit_run(t, most, &got);
            CHECK_MSG(d == len && got == want, "run %u, most %u: %u %llu, want %u %llu", run, most, d,
                      (unsigned long long)got, len, (unsigned long long)want);
            full += len == run && run > 0;
            cut += len == most && most < run;
            empty += len == 0;
        }
    }
    CHECK_MSG(full > 10000 && cut > 10000 && empty > 10000, "%u %u %u", full, cut, empty);
}

int main(void)
{
    RUN(values_and_views);
    RUN(errors);
    RUN(allocation_failures);
    RUN(members_not_kept);
    RUN(shared_member_names);
    RUN(shared_short_strings);
    RUN(memory_bound);
    RUN(strings_and_numbers_at_every_place);
    RUN(lent_strings);
    RUN(member_names_told_apart);
    RUN(parsed_later_is_the_same_tree);
    RUN(skimmed_and_later_members_fail_alike);
    RUN(parsed_later_within_the_bound);
    RUN(whole_numbers_of_every_length);
    RUN(long_strings_at_every_place);
    RUN(member_names_where_they_were);
    RUN(records_read_as_the_tree);
    RUN(span_fields_read_as_the_tree);
    RUN(records_nested_names_near_the_wanted);
    RUN(records_two_deep_read_as_the_tree);
    RUN(records_charge_the_names_pushed_out);
    RUN(tiny_bounds_grow_the_stack_by_one);
    RUN(take_charges_before_the_arena);
    RUN(whole_floats_exact);
    RUN(uint_inline_is_gj_uint);
    RUN(digit_run_counts_and_values);
    return test_finish();
}
