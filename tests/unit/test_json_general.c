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

/* ---- records (gj_parser.records): scan_records' fast paths against its general ones ---- */

/* fields of the records: names of 1 to 17 bytes (both sides of the 14 a name and its ':'
 * take in 16 bytes, of the 15 of its closing quote), an object's ("obj.in", "obj.inner_name_15b") */
static const char *const grec_names[] = { "a",   "count",  "name_of_14_byt",    "name_of_15_byte",
                                          "obj", "obj.in", "obj.inner_name_15", "obj.inner_name_16" };
static const char *const grec2_names[] = { "t", "t.p", "t.node", "s" };

typedef struct grec_run {
    run r;
    gj_records rec[2];
} grec_run;

static void parse_grec(grec_run *t, int general, const char *text, size_t size, size_t max_bytes, int fail_at)
{
    t->r.a.count = t->r.a.calls = 0;
    t->r.a.fail_at = fail_at;
    memset(&t->r.e, 0, sizeof t->r.e);
    t->r.charged = 0;
    t->r.v = NULL;
    memset(t->rec, 0, sizeof t->rec);
    t->rec[0] = (gj_records){ .key = "acc", .names = grec_names, .fields = 8, .spans = 1u };             /* (a) */
    t->rec[1] = (gj_records){ .key = "ch", .names = grec2_names, .fields = 4, .depth = 2, .spans = 8u }; /* (s) */
    gj_parser p = { .alloc = tarena_alloc,
                    .alloc_user = &t->r.a,
                    .max_depth = 12,
                    .who = "test: JSON",
                    .base = 1000,
                    .max_bytes = max_bytes,
                    .limit_name = "the test's limit",
                    .charged = &t->r.charged,
                    .records = t->rec,
                    .record_kinds = 2 };
    t->r.c = general ? gjg_parse(&p, (const uint8_t *)text, size, &t->r.v, &t->r.e)
                     : gj_parse(&p, (const uint8_t *)text, size, &t->r.v, &t->r.e);
}

static int same_set(const gj_recset *a, const gj_recset *b, unsigned fields)
{
    if (a->count != b->count) return 0;
    for (uint32_t i = 0; i < a->count; i++) {
        if (a->at[i] != b->at[i]) return 0;
        for (unsigned j = 0; j < fields; j++) {
            const gj_field *x = &a->field[i * fields + j], *y = &b->field[i * fields + j];
            if (x->type != y->type || x->at != y->at || x->count != y->count) return 0;
        }
    }
    return 1;
}

/* same_tree, with GJ_RECORDS values (depth 2) compared field by field */
static int same_rec_tree(const gj_value *a, const gj_value *b)
{
    if (a->type != b->type || a->count != b->count || a->offset != b->offset || a->lent != b->lent ||
        a->depth != b->depth)
        return 0;
    if ((a->key == NULL) != (b->key == NULL) || (a->key && strcmp(a->key, b->key) != 0)) return 0;
    if (a->type == GJ_RECORDS) return same_set(a->set, b->set, 4);
    if (a->type == GJ_ARRAY || a->type == GJ_OBJECT) {
        for (uint32_t i = 0; i < a->count; i++)
            if (!same_rec_tree(&a->items[i], &b->items[i])) return 0;
        return 1;
    }
    return same_tree(a, b);
}

static int same_rec_outcome(const grec_run *f, const grec_run *g)
{
    if (f->r.c != g->r.c || f->r.e.code != g->r.e.code || f->r.e.offset != g->r.e.offset ||
        strcmp(f->r.e.message, g->r.e.message))
        return 0;
    for (int q = 0; q < 2; q++)
        if (f->rec[q].met != g->rec[q].met || f->rec[q].done != g->rec[q].done) return 0;
    if (f->r.c != GANIM_OK) return 1;
    return f->r.charged == g->r.charged && same_rec_tree(f->r.v, g->r.v) &&
           (!f->rec[0].done || same_set(&f->rec[0].set, &g->rec[0].set, 8));
}

/* A record's value: whole numbers of 1 to 18 digits, with a leading zero, a fraction or
 * an exponent, negative; strings of 0 to 20 bytes with an escape or a control byte now
 * and then; true, false, null, a near miss. */
static void put_rec_value(char *o, size_t *n, uint32_t *x)
{
    unsigned k = rnd(x) % 16;
    if (k < 6) { /* digits */
        unsigned len = 1 + (k < 4 ? rnd(x) % 4 : rnd(x) % 18);
        for (unsigned i = 0; i < len; i++)
            o[(*n)++] = (char)('0' + (i == 0 && rnd(x) % 4 ? 1 + rnd(x) % 9 : rnd(x) % 10));
        unsigned tail = rnd(x) % 8 ? 5u + rnd(x) % 2 : rnd(x) % (rnd(x) % 16 ? 2u : 5u); /* (2-4: not JSON) */
        if (tail == 0) *n += (size_t)sprintf(o + *n, ".%u", rnd(x) % 100);
        if (tail == 1) *n += (size_t)sprintf(o + *n, "%c%u", "eE"[rnd(x) % 2], rnd(x) % 30);
        if (tail == 2) *n += (size_t)sprintf(o + *n, "e");
        if (tail == 3) *n += (size_t)sprintf(o + *n, ".");
        if (tail == 4) o[(*n)++] = 'x';
        return;
    }
    if (k == 6) {
        *n += (size_t)sprintf(o + *n, "-%u", rnd(x) % 1000);
        return;
    }
    if (k < 11) { /* a string */
        unsigned len = rnd(x) % 21;
        o[(*n)++] = '"';
        for (unsigned i = 0; i < len; i++) o[(*n)++] = (char)('A' + rnd(x) % 26);
        unsigned odd = rnd(x) % 16 ? 3u : rnd(x) % 8 ? 2u : rnd(x) % 2; /* (0, 1: not JSON) */
        if (odd == 0 && len) o[*n - 1 - rnd(x) % len] = '\\';
        if (odd == 1 && len) o[*n - 1 - rnd(x) % len] = (char)(rnd(x) % 0x20);
        if (odd == 2) *n += (size_t)sprintf(o + *n, "\\n");
        o[(*n)++] = '"';
        return;
    }
    static const char *const words[] = { "true", "false", "null", "nul", "tru" };
    *n += (size_t)sprintf(o + *n, "%s", words[rnd(x) % (rnd(x) % 64 ? 3u : 5u)]);
}

/* a member name of the records: a field's, or not (0 to 18 bytes), now and then with an escape */
static void put_rec_name(char *o, size_t *n, uint32_t *x, const char *const *names, unsigned fields)
{
    unsigned k = rnd(x) % 12;
    o[(*n)++] = '"';
    if (k < 8) {
        const char *nm = names[rnd(x) % fields];
        const char *dot = strchr(nm, '.');
        size_t l = dot ? (size_t)(dot - nm) : strlen(nm);
        memcpy(o + *n, nm, l);
        *n += l;
    } else {
        unsigned len = rnd(x) % 19; /* (0: the empty name) */
        for (unsigned i = 0; i < len; i++) o[(*n)++] = (char)('a' + (i * 5 + len) % 26);
        if (k == 11 && rnd(x) % 4 == 0) *n += (size_t)sprintf(o + *n, "\\u0041");
    }
    o[(*n)++] = '"';
}

static void put_space(char *o, size_t *n, uint32_t *x)
{
    if (rnd(x) % 10 == 0) o[(*n)++] = " \t\n\r"[rnd(x) % 4];
}

/* a span field's value (gj_records.spans): an object or an array of any JSON, nested up to
 * `depth` more, ganim's negated ranges now and then; now and then an escape, a control
 * byte, a space or a broken byte (the tree's way then) */
static void put_nested(char *o, size_t *n, uint32_t *x, unsigned depth)
{
    if (rnd(x) % 3 == 0) {
        *n += (size_t)sprintf(o + *n, "{\"ganim\":{\"negated\":[[%u,%u]", rnd(x) % 9, rnd(x) % 30);
        for (unsigned r = 0, m = rnd(x) % 3; r < m; r++)
            *n += (size_t)sprintf(o + *n, ",[%u,%u]", rnd(x) % 40, rnd(x) % 40);
        *n += (size_t)sprintf(o + *n, "]}}");
        return;
    }
    int obj = rnd(x) % 2;
    unsigned m = rnd(x) % 4;
    o[(*n)++] = obj ? '{' : '[';
    for (unsigned i = 0; i < m; i++) {
        if (i) o[(*n)++] = ',';
        put_space(o, n, x);
        if (obj) {
            static const char *const inner[] = { "ganim", "negated", "keys", "", "x\\y", "a_longer_name_of_20" };
            *n += (size_t)sprintf(o + *n, "\"%s\":", inner[rnd(x) % (rnd(x) % 8 ? 4u : 6u)]);
            put_space(o, n, x);
        }
        if (depth && *n < 7000 && rnd(x) % 3 == 0) put_nested(o, n, x, depth - 1);
        else put_rec_value(o, n, x);
    }
    put_space(o, n, x);
    o[(*n)++] = obj ? '}' : ']';
}

/* a span field's array of numbers (json.c's skim_span walks it first): 0 to 6 numbers of
 * every form (put_rec_value's, now and then not JSON), spaces between, now and then an
 * item that is not a number or a comma too many (skim_walk's way then) */
static void put_number_array(char *o, size_t *n, uint32_t *x)
{
    unsigned m = rnd(x) % 7;
    o[(*n)++] = '[';
    put_space(o, n, x);
    for (unsigned i = 0; i < m; i++) {
        if (i) {
            put_space(o, n, x);
            o[(*n)++] = ',';
            put_space(o, n, x);
        }
        unsigned k = rnd(x) % 24;
        if (k == 0) *n += (size_t)sprintf(o + *n, "\"%u\"", rnd(x) % 10);
        else if (k == 1) *n += (size_t)sprintf(o + *n, "[%u]", rnd(x) % 10);
        else if (k == 2) *n += (size_t)sprintf(o + *n, "-%u.%ue-%u", rnd(x) % 10, rnd(x) % 1000, rnd(x) % 40);
        else if (k == 3) *n += (size_t)sprintf(o + *n, "-");
        else if (k == 4) *n += (size_t)sprintf(o + *n, "0%u", rnd(x) % 10);
        else if (k == 5) *n += (size_t)sprintf(o + *n, "1234567890123456789012");
        else if (k < 12) *n += (size_t)sprintf(o + *n, "%s%u.%u", rnd(x) % 2 ? "-" : "", rnd(x) % 10, rnd(x) % 100000);
        else {
            size_t at = *n;
            put_rec_value(o, n, x);
            if (!(o[at] == '-' || (o[at] >= '0' && o[at] <= '9'))) { /* (numbers only, mostly) */
                *n = at;
                *n += (size_t)sprintf(o + *n, "%u", rnd(x) % 1000);
            }
        }
    }
    if (rnd(x) % 32 == 0) o[(*n)++] = ',';
    put_space(o, n, x);
    o[(*n)++] = ']';
}

/* an object of the records: often the last one's members again (the fast paths' guesses) */
static void put_rec_object(char *o, size_t *n, uint32_t *x, uint32_t shape, const char *const *names, unsigned fields)
{
    uint32_t y = shape;
    uint32_t *z = rnd(x) % 4 ? &y : x;
    unsigned m = rnd(z) % 7, names_met = 0;
    size_t met_at[8], met_len[8];
    o[(*n)++] = '{';
    for (unsigned i = 0; i < m; i++) {
        size_t member_at = *n;
        if (i) {
            put_space(o, n, x);
            o[(*n)++] = ',';
        }
        put_space(o, n, x);
        size_t name_at = *n;
        put_rec_name(o, n, z, names, fields);
        int again = 0; /* (a name repeated: now and then) */
        for (unsigned q = 0; q < names_met; q++)
            again |= met_len[q] == *n - name_at && memcmp(o + met_at[q], o + name_at, *n - name_at) == 0;
        if (again && rnd(x) % 16) {
            *n = member_at;
            continue;
        }
        if (names_met < 8) {
            met_at[names_met] = name_at;
            met_len[names_met++] = *n - name_at;
        }
        put_space(o, n, x);
        o[(*n)++] = ':';
        put_space(o, n, x);
        int obj = (o[name_at + 1] == 'o' && o[name_at + 2] == 'b') || (o[name_at + 1] == 't' && o[name_at + 2] == '"');
        if (obj && rnd(x) % 8) { /* a field's object of plain members */
            static const char *const inner[] = { "in", "inner_name_15", "p", "node", "inner_name_16", "inner_name_1" };
            unsigned im = rnd(z) % 4;
            o[(*n)++] = '{';
            for (unsigned q = 0; q < im; q++) {
                if (q) o[(*n)++] = ',';
                put_space(o, n, x);
                *n += (size_t)sprintf(o + *n, "\"%s\"", inner[rnd(z) % 6]);
                put_space(o, n, x);
                o[(*n)++] = ':';
                put_rec_value(o, n, x);
            }
            o[(*n)++] = '}';
        } else if (((o[name_at + 1] == 'a' || o[name_at + 1] == 's') && o[name_at + 2] == '"') && rnd(x) % 3 == 0) {
            if (rnd(x) % 2) put_number_array(o, n, x);
            else put_nested(o, n, x, rnd(x) % 8 ? 3 : 9); /* (a span field's: 9 passes max_depth) */
        } else if (rnd(x) % 24 == 0) {
            *n += (size_t)sprintf(o + *n, "[%u,-1.5,%u]", rnd(x) % 100, rnd(x) % 7);
        } else {
            put_rec_value(o, n, x);
        }
    }
    put_space(o, n, x);
    o[(*n)++] = '}';
}

TEST(records_as_the_general_path)
{
    static char text[16384];
    static grec_run f, g;
    uint32_t x = 0x13579BDu;
    unsigned texts = 0, ok = 0, done0 = 0, done2 = 0, bounded = 0, nomem = 0;
    const int rounds = test_full() ? 8000 : 2000;
    for (int t = 0; t < rounds; t++) {
        size_t n = 0;
        uint32_t shape = rnd(&x);
        n += (size_t)sprintf(text + n, "{\"acc\":[");
        for (unsigned i = 0, m = rnd(&x) % 12; i < m && n < 3000; i++) {
            if (i) text[n++] = ',';
            put_rec_object(text, &n, &x, shape, grec_names, 8);
        }
        n += (size_t)sprintf(text + n, "],\"an\":[");
        for (unsigned a = 0, am = rnd(&x) % 3; a < am; a++) {
            n += (size_t)sprintf(text + n, "%s{\"ch\":[", a ? "," : "");
            for (unsigned i = 0, m = rnd(&x) % 10; i < m && n < 6000; i++) {
                if (i) text[n++] = ',';
                put_rec_object(text, &n, &x, shape, grec2_names, 4);
            }
            n += (size_t)sprintf(text + n, "]}");
        }
        n += (size_t)sprintf(text + n, "]}");
        if (t % 4 == 1) text[rnd(&x) % n] = "\"{}[],:\\ 0eE.-tnu\x01"[rnd(&x) % 18]; /* a byte changed */
        if (t % 8 == 3) { /* a string's closing quote made a control byte or a backslash */
            size_t q = rnd(&x) % n;
            while (q + 1 < n && !(text[q] == '"' && (text[q + 1] == ',' || text[q + 1] == '}'))) q++;
            if (q + 1 < n) text[q] = "\x01\\\x1F"[rnd(&x) % 3];
        }
        size_t size = t % 4 == 2 ? rnd(&x) % (n + 1) : n; /* or cut short */
        parse_grec(&f, 0, text, size, 0, 0);
        parse_grec(&g, 1, text, size, 0, 0);
        texts++;
        CHECK_MSG(same_rec_outcome(&f, &g), "text %d: %d at %llu %s, charged %zu / %d at %llu %s, charged %zu", t,
                  f.r.c, (unsigned long long)f.r.e.offset, f.r.e.message, f.r.charged, g.r.c,
                  (unsigned long long)g.r.e.offset, g.r.e.message, g.r.charged);
        int fine = f.r.c == GANIM_OK;
        size_t charged = f.r.charged;
        ok += (unsigned)fine;
        done0 += (unsigned)(fine && f.rec[0].done);
        done2 += (unsigned)(fine && f.rec[1].done);
        tarena_free(&f.r.a);
        tarena_free(&g.r.a);
        if (!fine) continue;
        for (int b = 0; b < 3; b++) { /* under bounds below the charge */
            size_t bound = 1 + rnd(&x) % charged;
            parse_grec(&f, 0, text, size, bound, 0);
            parse_grec(&g, 1, text, size, bound, 0);
            bounded++;
            CHECK_MSG(same_rec_outcome(&f, &g), "text %d bound %zu: %d at %llu / %d at %llu", t, bound, f.r.c,
                      (unsigned long long)f.r.e.offset, g.r.c, (unsigned long long)g.r.e.offset);
            tarena_free(&f.r.a);
            tarena_free(&g.r.a);
        }
        if (t % 8 == 0) { /* every length of the text: the fast paths' ends near the text's */
            for (size_t cut = 0; cut < size; cut++) {
                parse_grec(&f, 0, text, cut, 0, 0);
                parse_grec(&g, 1, text, cut, 0, 0);
                CHECK_MSG(same_rec_outcome(&f, &g), "text %d cut at %zu: %d at %llu / %d at %llu", t, cut, f.r.c,
                          (unsigned long long)f.r.e.offset, g.r.c, (unsigned long long)g.r.e.offset);
                tarena_free(&f.r.a);
                tarena_free(&g.r.a);
            }
        }
        if (t % 16 == 0) { /* the arena failing at each allocation in turn */
            parse_grec(&g, 1, text, size, 0, 0);
            int calls = g.r.a.calls;
            tarena_free(&g.r.a);
            for (int at = 1; at <= calls; at++) {
                parse_grec(&f, 0, text, size, 0, at);
                parse_grec(&g, 1, text, size, 0, at);
                nomem += f.r.c == GANIM_ERR_NOMEM;
                CHECK_MSG(same_rec_outcome(&f, &g), "text %d failing at %d: %d / %d", t, at, f.r.c, g.r.c);
                tarena_free(&f.r.a);
                tarena_free(&g.r.a);
            }
        }
    }
    printf("  %u texts, %u read (%u with records at the root, %u two deep), %u bounded, %u out of memory\n", texts, ok,
           done0, done2, bounded, nomem);
    CHECK_MSG(ok > (unsigned)rounds / 3 && done0 > (unsigned)rounds / 8 && done2 > (unsigned)rounds / 10,
              "%u texts, %u read, %u and %u with records", texts, ok, done0, done2);
}

#if defined(__SSE2__) && defined(__GNUC__)
/* number16 (the fast build's usual number, one class of 16 bytes) against number_len's
 * general way (gdec_json_len, else gdec_scan: this file's json.c is the general build):
 * wherever number16 answers, the same length. Every text of up to 6 bytes (7 with
 * GANIM_FULL=1) of the bytes that matter (digits, a leading-zero 0, '-', '.', 'e', 'E',
 * '+', and three that end a number) followed by each of four fills, and random numbers
 * of every length around the 16 bytes (signs, fractions, exponents, a byte changed). */
static unsigned failed_numbers;

/* One text's two answers (buf: 48 bytes); tallies of the texts, numbers and number16's answers. */
static void compare_number16(const uint8_t *buf, unsigned long *tried, unsigned long *numbers, unsigned long *taken)
{
    const size_t q = number16(buf), g = number_len(buf, 48);
    ++*tried;
    *numbers += g != 0;
    if (q) {
        ++*taken;
        if (q != g && failed_numbers++ < 5)
            CHECK_MSG(0, "'%.24s': number16 %zu, number_len %zu", (const char *)buf, q, g);
    }
}

TEST(number16_as_number_len)
{
    static const char set[] = "019-.eE+, ]";
    static const char *const fills[] = { ",", "5", ".", "e5" }; /* (repeated to the buffer's end) */
    const unsigned most = test_full() ? 7u : 6u, nset = (unsigned)(sizeof set - 1);
    uint8_t buf[48];
    unsigned long tried = 0, taken = 0, numbers = 0;
    for (unsigned len = 1; len <= most; len++) {
        unsigned long total = 1;
        for (unsigned k = 0; k < len; k++) total *= nset;
        for (unsigned long code = 0; code < total; code++) {
            unsigned long c = code;
            for (unsigned k = 0; k < len; k++, c /= nset) buf[k] = (uint8_t)set[c % nset];
            for (unsigned f = 0; f < 4; f++) {
                const size_t fl = strlen(fills[f]);
                for (size_t k = len; k < sizeof buf; k++) buf[k] = (uint8_t)fills[f][(k - len) % fl];
                compare_number16(buf, &tried, &numbers, &taken);
            }
        }
    }
    uint32_t x = 0x1234567u;
    const unsigned rounds = test_full() ? 4000000u : 1000000u;
    for (unsigned r = 0; r < rounds; r++) {
        size_t n = 0;
        if (rnd(&x) % 2) buf[n++] = '-';
        const unsigned whole = rnd(&x) % 18;
        for (unsigned k = 0; k < whole; k++) buf[n++] = (uint8_t)('0' + (k || rnd(&x) % 4 ? rnd(&x) % 10 : 0));
        if (rnd(&x) % 4) {
            buf[n++] = '.';
            const unsigned frac = rnd(&x) % 18;
            for (unsigned k = 0; k < frac; k++) buf[n++] = (uint8_t)('0' + rnd(&x) % 10);
        }
        if (rnd(&x) % 8 == 0) {
            buf[n++] = rnd(&x) % 2 ? 'e' : 'E';
            if (rnd(&x) % 2) buf[n++] = rnd(&x) % 2 ? '+' : '-';
            for (unsigned k = rnd(&x) % 4; k; k--) buf[n++] = (uint8_t)('0' + rnd(&x) % 10);
        }
        while (n < sizeof buf) buf[n++] = (uint8_t)set[rnd(&x) % nset];
        if (rnd(&x) % 4 == 0) buf[rnd(&x) % 20] = (uint8_t)set[rnd(&x) % nset];
        compare_number16(buf, &tried, &numbers, &taken);
    }
    CHECK(failed_numbers == 0 && taken > tried / 20 && numbers > taken);
    printf("  %lu texts, %lu numbers, %lu taken by number16\n", tried, numbers, taken);
}
#endif

int main(void)
{
    RUN(fast_names_as_the_general_path);
    RUN(names_at_the_text_end);
    RUN(records_as_the_general_path);
#if defined(__SSE2__) && defined(__GNUC__)
    RUN(number16_as_number_len);
#endif
    return test_finish();
}
