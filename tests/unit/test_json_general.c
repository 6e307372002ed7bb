/* The JSON reader's fast paths against its general ones: src/io/json.c is built a second
 * time here with GJ_GENERAL_ONLY (its functions renamed gjg_*), which leaves out every fast
 * path that has a general one beside it (a member name or short string not seen before
 * stored without string()'s second look). Both parse many generated texts, the same texts
 * with a byte changed and cut short, under no bound and under bounds below what they
 * charge, with and without the member callbacks: the same code, message and offset, and
 * where both succeed the same tree (values, offsets, names, strings, lent strings) and the
 * same bytes charged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "test.h"

#include "../support/json_general.h" /* json.c again, as gjg_* */

/* An arena of malloc'd blocks that can refuse the n-th allocation. */
typedef struct tarena {
    void *blocks[8192];
    int count;
    int fail_at; /* 1-based; 0: never */
    int calls;
} tarena;

static void *tarena_alloc(void *user, size_t size)
{
    tarena *a = user;
    a->calls++;
    if ((a->fail_at && a->calls == a->fail_at) || a->count == 8192) return NULL;
    void *p = malloc(size ? size : 1);
    if (p) a->blocks[a->count++] = p;
    return p;
}

static void tarena_free(tarena *a)
{
    for (int i = 0; i < a->count; i++) free(a->blocks[i]);
    a->count = 0;
    a->calls = 0;
}

static uint32_t rnd(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

/* the callbacks: some members not kept, some lent, some later (by their first letter) */
static int keep_cb(unsigned depth, const char *parent, const char *key)
{
    (void)parent;
    return !(depth > 0 && key[0] == 'd');
}
static int lend_cb(unsigned depth, const char *parent, const char *key)
{
    (void)depth;
    (void)parent;
    return key[0] == 'l';
}
static int later_cb(unsigned depth, const char *parent, const char *key)
{
    (void)parent;
    return depth == 0 && key[0] == 'L';
}

typedef struct run {
    tarena a;
    ganim_error e;
    ganim_code c;
    size_t charged;
    const gj_value *v;
} run;

static void parse_with(run *t, int general, const char *text, size_t size, size_t max_bytes, int callbacks, int fail_at)
{
    t->a.count = t->a.calls = 0;
    t->a.fail_at = fail_at;
    memset(&t->e, 0, sizeof t->e);
    t->charged = 0;
    t->v = NULL;
    gj_parser p = { .alloc = tarena_alloc,
                    .alloc_user = &t->a,
                    .max_depth = 12,
                    .who = "test: JSON",
                    .base = 1000,
                    .max_bytes = max_bytes,
                    .limit_name = "the test's limit",
                    .keep = callbacks ? keep_cb : NULL,
                    .lend = callbacks ? lend_cb : NULL,
                    .later = callbacks ? later_cb : NULL,
                    .charged = &t->charged };
    t->c = general ? gjg_parse(&p, (const uint8_t *)text, size, &t->v, &t->e)
                   : gj_parse(&p, (const uint8_t *)text, size, &t->v, &t->e);
}

/* Whether two trees are the same: values, offsets, member names, strings, LATER texts. */
static int same_tree(const gj_value *a, const gj_value *b)
{
    if (a->type != b->type || a->count != b->count || a->offset != b->offset || a->lent != b->lent ||
        a->depth != b->depth)
        return 0;
    if ((a->key == NULL) != (b->key == NULL) || (a->key && strcmp(a->key, b->key) != 0)) return 0;
    if (a->type == GJ_LATER) return a->text == b->text;
    if (a->type == GJ_NUMBER || (a->type == GJ_STRING && a->lent)) return a->text == b->text;
    if (a->type == GJ_STRING)
        return memcmp(a->text, b->text, a->count) == 0 && a->text[a->count] == 0 && !b->text[b->count];
    if (a->type == GJ_ARRAY || a->type == GJ_OBJECT)
        for (uint32_t i = 0; i < a->count; i++)
            if (!same_tree(&a->items[i], &b->items[i])) return 0;
    return 1;
}

/* A name or short string of the pool: plain ones of many lengths (0 to 70: both sides of
 * the 16 bytes looked at at once and of the 64 the caches take), some sharing their first
 * or last 8 bytes, with an escape, a control byte, UTF-8 bytes, the callbacks' letters. */
static void put_name(char *o, size_t *n, uint32_t *x)
{
    static const unsigned lens[] = { 0, 1, 2, 3, 7, 8, 9, 14, 15, 16, 17, 23, 31, 32, 40, 63, 64, 65, 70 };
    unsigned kind = rnd(x) % 24, len = lens[rnd(x) % (sizeof lens / sizeof *lens)];
    o[(*n)++] = '"';
    if (kind < 4) { /* a few fixed names, met again and again */
        static const char *const fixed[] = { "name", "data", "lent", "Later" };
        size_t l = strlen(fixed[kind]);
        memcpy(o + *n, fixed[kind], l);
        *n += l;
    } else {
        char first = "abdlLxyz"[rnd(x) % 8];
        for (unsigned i = 0; i < len; i++) o[*n + i] = i == 0 ? first : (char)('a' + (i * 7 + kind) % 3);
        if (len && kind == 5) o[*n + rnd(x) % len] = (char)('A' + rnd(x) % 26);
        *n += len;
        if (kind == 6) *n += (size_t)sprintf(o + *n, "\\u00%02X", 0x41 + rnd(x) % 26);
        if (kind == 7) *n += (size_t)sprintf(o + *n, "\\n");
        if (kind == 8) *n += (size_t)sprintf(o + *n, "\xC3\xA9x");
        if (kind == 9 && rnd(x) % 8 == 0) o[(*n)++] = (char)(rnd(x) % 0x20); /* a control byte: refused */
        if (kind == 10) *n += (size_t)sprintf(o + *n, "\\\"q");
    }
    o[(*n)++] = '"';
}

static void put_value(char *o, size_t *n, size_t cap, uint32_t *x, unsigned depth)
{
    unsigned k = rnd(x) % (depth < 5 ? 10u : 6u);
    if (*n > cap - 400) k = 0;
    switch (k) {
    case 0: *n += (size_t)sprintf(o + *n, "%u", rnd(x) % 100000); break;
    case 1: *n += (size_t)sprintf(o + *n, "-%u.%ue%u", rnd(x) % 100, rnd(x) % 1000, rnd(x) % 9); break;
    case 2:
    case 3: put_name(o, n, x); break;
    case 4: *n += (size_t)sprintf(o + *n, "%s", (const char *[]){ "true", "false", "null" }[rnd(x) % 3]); break;
    case 5: put_name(o, n, x); break;
    case 6:
    case 7:
    case 8: { /* an object (often the same names as the last one: shapes) */
        unsigned m = rnd(x) % 7;
        o[(*n)++] = '{';
        for (unsigned i = 0; i < m && *n < cap - 400; i++) {
            if (i) o[(*n)++] = ',';
            if (rnd(x) % 8 == 0) o[(*n)++] = ' ';
            put_name(o, n, x);
            o[(*n)++] = ':';
            put_value(o, n, cap, x, depth + 1);
        }
        o[(*n)++] = '}';
        break;
    }
    default: { /* an array, now and then of objects alike */
        unsigned m = rnd(x) % 9;
        uint32_t same = rnd(x);
        o[(*n)++] = '[';
        for (unsigned i = 0; i < m && *n < cap - 400; i++) {
            if (i) o[(*n)++] = ',';
            uint32_t y = same;
            put_value(o, n, cap, rnd(x) % 2 ? &y : x, depth + 1);
        }
        o[(*n)++] = ']';
        break;
    }
    }
}

static int same_outcome(const run *f, const run *g)
{
    if (f->c != g->c || f->e.code != g->e.code || f->e.offset != g->e.offset || strcmp(f->e.message, g->e.message))
        return 0;
    return f->c != GANIM_OK || (f->charged == g->charged && same_tree(f->v, g->v));
}

TEST(fast_names_as_the_general_path)
{
    static char text[16384];
    static run f, g;
    uint32_t x = 0x2468ACEu;
    unsigned texts = 0, ok = 0, bounded = 0, refused = 0, nomem = 0;
    const int rounds = test_full() ? 6000 : 1500;
    for (int t = 0; t < rounds; t++) {
        size_t n = 0;
        text[n++] = '{';
        for (unsigned i = 0, m = 1 + rnd(&x) % 12; i < m && n < sizeof text - 2000; i++) {
            if (i) text[n++] = ',';
            put_name(text, &n, &x);
            text[n++] = ':';
            put_value(text, &n, sizeof text - 1000, &x, 1);
        }
        text[n++] = '}';
        if (t % 4 == 1) text[rnd(&x) % n] = "\"{}[],:\\ 0eE.-tnu\x01"[rnd(&x) % 18]; /* a byte changed */
        size_t size = t % 4 == 2 ? rnd(&x) % (n + 1) : n;                            /* or cut short */
        int callbacks = t % 3 == 0;
        parse_with(&f, 0, text, size, 0, callbacks, 0);
        parse_with(&g, 1, text, size, 0, callbacks, 0);
        texts++;
        CHECK_MSG(same_outcome(&f, &g), "text %d: %d at %llu %s, charged %zu / %d at %llu %s, charged %zu", t, f.c,
                  (unsigned long long)f.e.offset, f.e.message, f.charged, g.c, (unsigned long long)g.e.offset,
                  g.e.message, g.charged);
        int fine = f.c == GANIM_OK;
        size_t charged = f.charged;
        ok += (unsigned)fine;
        tarena_free(&f.a);
        tarena_free(&g.a);
        if (!fine) continue;
        for (int b = 0; b < 3; b++) { /* under bounds below the charge: where the limit is passed */
            size_t bound = 1 + rnd(&x) % charged;
            parse_with(&f, 0, text, size, bound, callbacks, 0);
            parse_with(&g, 1, text, size, bound, callbacks, 0);
            bounded++;
            refused += f.c == GANIM_ERR_LIMIT;
            CHECK_MSG(same_outcome(&f, &g), "text %d bound %zu: %d at %llu / %d at %llu", t, bound, f.c,
                      (unsigned long long)f.e.offset, g.c, (unsigned long long)g.e.offset);
            tarena_free(&f.a);
            tarena_free(&g.a);
        }
        if (t % 16 == 0) { /* the arena failing at each allocation in turn */
            parse_with(&g, 1, text, size, 0, callbacks, 0);
            int calls = g.a.calls;
            tarena_free(&g.a);
            for (int at = 1; at <= calls; at++) {
                parse_with(&f, 0, text, size, 0, callbacks, at);
                parse_with(&g, 1, text, size, 0, callbacks, at);
                nomem += f.c == GANIM_ERR_NOMEM;
                CHECK_MSG(same_outcome(&f, &g), "text %d failing at %d: %d / %d", t, at, f.c, g.c);
                tarena_free(&f.a);
                tarena_free(&g.a);
            }
        }
    }
    printf("  %u texts, %u read, %u bounded (%u refused), %u out of memory\n", texts, ok, bounded, refused, nomem);
    CHECK_MSG(ok > (unsigned)rounds / 3 && texts - ok > (unsigned)rounds / 5 && refused > bounded / 2 && nomem > 100,
              "%u texts, %u read, %u bounded (%u refused), %u out of memory", texts, ok, bounded, refused, nomem);
}

/* Names of every length 0..80 near the end of the text (fewer than 16 bytes after the
 * quote, or exactly), seen and not seen before, each under every bound from 0 to its
 * charge: the same outcome both ways. */
TEST(names_at_the_text_end)
{
    static char text[512];
    static run f, g;
    for (unsigned len = 0; len <= 80; len++)
        for (unsigned pad = 0; pad < 20; pad++)
            for (int seen = 0; seen < 2; seen++) {
                size_t n = 0;
                n += (size_t)sprintf(text + n, "[");
                if (seen) {
                    text[n++] = '"';
                    for (unsigned i = 0; i < len; i++) text[n++] = (char)('a' + i % 26);
                    n += (size_t)sprintf(text + n, "\",");
                }
                n += (size_t)sprintf(text + n, "{\"");
                for (unsigned i = 0; i < len; i++) text[n++] = (char)('a' + i % 26);
                text[n++] = '"';
                n += (size_t)sprintf(text + n, ":%u}", pad);
                for (unsigned i = 0; i < pad; i++) text[n++] = ' ';
                n += (size_t)sprintf(text + n, "]");
                for (size_t size = n > 24 ? n - 24 : 0; size <= n; size++) {
                    parse_with(&f, 0, text, size, 0, 0, 0);
                    parse_with(&g, 1, text, size, 0, 0, 0);
                    CHECK_MSG(same_outcome(&f, &g), "len %u pad %u seen %d size %zu: %s / %s", len, pad, seen, size,
                              f.e.message, g.e.message);
                    size_t charged = f.c == GANIM_OK ? f.charged : 0;
                    tarena_free(&f.a);
                    tarena_free(&g.a);
                    for (size_t bound = 1; bound < charged; bound += 1 + bound / 8) {
                        parse_with(&f, 0, text, size, bound, 0, 0);
                        parse_with(&g, 1, text, size, bound, 0, 0);
                        CHECK_MSG(same_outcome(&f, &g), "len %u size %zu bound %zu: %s / %s", len, size, bound,
                                  f.e.message, g.e.message);
                        tarena_free(&f.a);
                        tarena_free(&g.a);
                    }
                }
            }
}

int main(void)
{
    RUN(fast_names_as_the_general_path);
    RUN(names_at_the_text_end);
    return test_finish();
}
