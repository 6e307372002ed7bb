/* Details: a fake format's hook builds a tree of every detail type; the tree must
 * come back exactly (types, keys, values, labels, meanings), render as the JSON the
 * stable interface documents, outlive the document, and report failures. */
#include <stdlib.h>

#include "formats/format.h"
#include "test.h"

static int fail_with_open_group;

static ganim_code fake_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b,
                               ganim_error *err)
{
    (void)doc, (void)err;
    if (clip >= 0) return GANIM_OK; /* clips: nothing to say */
    gd_null(b, "nothing");
    gd_bool(b, "yes", 1);
    gd_int(b, "neg", -5);
    gd_uint(b, "big", 18446744073709551615ull);
    gd_label(b, "very big");
    gd_meaning(b, "2^64 - 1");
    gd_float(b, "third", 1.0f / 3.0f);
    gd_double(b, "tenth", 0.1);
    gd_string(b, "text", "a \"quoted\"\n\xe9");
    static const uint8_t bytes[3] = { 0x00, 0xab, 0xff };
    gd_bytes(b, "blob", bytes, 3);
    static const int32_t rows[6] = { 1, 2, 3, -4, 5, 6 };
    gd_ints(b, "rows", rows, 6, 3);
    gd_ints(b, "flat", rows, 2, 0);
    gd_ints(b, "empty", rows, 0, 3);
    gd_group(b, "group");
    gd_uint(b, "7", 7); /* keys are any text */
    gd_list(b, "inner");
    for (int i = 0; i < 20; i++) gd_int(b, NULL, i); /* grows past the first block */
    gd_end(b);
    gd_end(b);
    gd_meaning(b, "a group");
    if (level == GANIM_DETAILS_FULL) gd_string(b, "full", "only in full");
    if (fail_with_open_group) gd_group(b, "open");
    return GANIM_OK;
}

static const struct ganim_format_impl fake_impl = { .details = fake_details };
static const ganim_format fake = {
    .name = "fake-fmt", .description = "test", .family = "fake", .extensions = ".fake", .impl = &fake_impl
};

static ganim_doc *fake_doc(void)
{
    ganim_doc *doc = NULL;
    CHECK_OK(ganim_doc_new(NULL, &doc, NULL));
    doc->format = &fake;
    ganim_clip c = { 0 };
    c.name = "c";
    c.kind = GANIM_CLIP_OPAQUE;
    CHECK_OK(ganim_doc_add_clip(doc, &c, NULL, NULL));
    return doc;
}

TEST(tree_and_json)
{
    ganim_doc *doc = fake_doc();
    ganim_details *d = NULL;
    ganim_error e = { 0 };
    CHECK(ganim_doc_details(doc, -1, GANIM_DETAILS_SUMMARY, NULL, &d, &e) == GANIM_OK);
    ganim_doc_free(doc); /* the tree is a copy */
    const ganim_detail *r = d ? d->root : NULL;
    CHECK(r && r->type == GANIM_DETAIL_GROUP && r->count == 12);
    if (!r || r->count != 12) {
        ganim_details_free(d);
        return;
    }
    CHECK(r->items[0].type == GANIM_DETAIL_NULL);
    CHECK_EQ_STR(r->items[3].key, "big");
    CHECK_EQ_STR(r->items[3].label, "very big");
    CHECK_EQ_STR(r->items[3].meaning, "2^64 - 1");
    CHECK(r->items[3].value.u == 18446744073709551615ull);
    CHECK(r->items[11].type == GANIM_DETAIL_GROUP && r->items[11].count == 2);
    CHECK_EQ_STR(r->items[11].meaning, "a group");
    CHECK(r->items[11].items[1].type == GANIM_DETAIL_LIST && r->items[11].items[1].count == 20);
    CHECK_EQ_INT(r->items[11].items[1].items[19].value.i, 19);
    ganim_buffer out = { 0 };
    CHECK(ganim_detail_json(r, &out, &e) == GANIM_OK);
    const char *want = "{\"nothing\":null,\"yes\":true,\"neg\":-5,\"big\":18446744073709551615,"
                       "\"third\":0.33333334,\"tenth\":0.1,\"text\":\"a \\\"quoted\\\"\\n\\u00e9\","
                       "\"blob\":\"00abff\",\"rows\":[[1,2,3],[-4,5,6]],\"flat\":[1,2],\"empty\":[],"
                       "\"group\":{\"7\":7,\"inner\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19]}}";
    CHECK_MSG(out.size == strlen(want) && memcmp(out.data, want, out.size) == 0, "JSON: %.*s", (int)out.size,
              (const char *)out.data);
    ganim_buffer_free(&out);
    CHECK(ganim_detail_json(NULL, &out, &e) == GANIM_OK && out.size == 4 && memcmp(out.data, "null", 4) == 0);
    ganim_buffer_free(&out);
    ganim_details_free(d);
}

/* Long integer lists (written in chunks without printf) against printf's text: every
 * width, the extremes, lengths across the chunk boundaries. */
TEST(long_int_lists)
{
    enum { N = 700 };
    static int32_t v[N];
    uint32_t s = 12345;
    for (int i = 0; i < N; i++) {
        s = s * 1103515245u + 12345u;
        v[i] = i % 5 == 0 ? INT32_MIN : i % 7 == 0 ? INT32_MAX : (int32_t)(s >> (i % 31));
        if (i % 3 == 0 && v[i] != INT32_MIN) v[i] = -v[i] / (i + 1);
    }
    static const uint32_t widths[] = { 0, 1, 2, 3, 7, 16 };
    static const size_t counts[] = { 0, 1, 17, 18, 19, 20, 40, 100, N };
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            uint32_t width = widths[wi];
            size_t count = counts[ci];
            ganim_detail d = { 0 };
            d.type = GANIM_DETAIL_INTS;
            d.value.ints.data = v;
            d.value.ints.count = count;
            d.value.ints.width = width;
            static char want[N * 16 + 8];
            size_t at = 0;
            want[at++] = '[';
            for (size_t i = 0; i < count; i++) {
                if (i) want[at++] = ',';
                if (width > 1 && i % width == 0) want[at++] = '[';
                at += (size_t)snprintf(want + at, sizeof want - at, "%d", (int)v[i]);
                if (width > 1 && (i + 1) % width == 0) want[at++] = ']';
            }
            want[at++] = ']';
            ganim_buffer out = { 0 };
            ganim_error e = { 0 };
            CHECK(ganim_detail_json(&d, &out, &e) == GANIM_OK);
            CHECK_MSG(out.size == at && memcmp(out.data, want, at) == 0, "width %u, %zu values: %.*s", width, count,
                      (int)out.size, (const char *)out.data);
            ganim_buffer_free(&out);
        }
    }
}

TEST(levels_clips_and_errors)
{
    ganim_doc *doc = fake_doc();
    ganim_details *d = NULL;
    ganim_error e = { 0 };
    CHECK(ganim_doc_details(doc, -1, GANIM_DETAILS_FULL, NULL, &d, &e) == GANIM_OK);
    CHECK(d && d->root && d->root->count == 13);
    ganim_details_free(d);
    CHECK(ganim_doc_details(doc, 0, GANIM_DETAILS_FULL, NULL, &d, &e) == GANIM_OK);
    CHECK(d && d->root == NULL); /* nothing to say */
    ganim_details_free(d);
    d = NULL;
    CHECK(ganim_doc_details(doc, 1, GANIM_DETAILS_FULL, NULL, &d, &e) == GANIM_ERR_INVALID_ARG && d == NULL);
    fail_with_open_group = 1;
    CHECK(ganim_doc_details(doc, -1, GANIM_DETAILS_FULL, NULL, &d, &e) == GANIM_ERR_INVALID_ARG && d == NULL);
    fail_with_open_group = 0;
    ganim_details_free(NULL);
    ganim_doc_free(doc);
}

/* The allocator fails at every allocation in turn: a clean NOMEM each time, no leak. */
typedef struct counting {
    long live, calls, fail_at;
} counting;
static void *c_alloc(void *u, size_t n)
{
    counting *c = u;
    if (++c->calls == c->fail_at) return NULL;
    c->live++;
    return malloc(n);
}
static void *c_realloc(void *u, void *p, size_t o, size_t n)
{
    (void)o;
    counting *c = u;
    if (++c->calls == c->fail_at) return NULL;
    return realloc(p, n);
}
static void c_free(void *u, void *p, size_t n)
{
    (void)n;
    counting *c = u;
    if (p) c->live--;
    free(p);
}

TEST(allocation_failures)
{
    ganim_doc *doc = fake_doc();
    int succeeded = 0;
    for (long k = 1; k < 200 && !succeeded; k++) {
        counting c = { 0, 0, k };
        ganim_allocator a = { c_alloc, c_realloc, c_free, &c };
        ganim_details *d = NULL;
        ganim_error e = { 0 };
        ganim_code code = ganim_doc_details(doc, -1, GANIM_DETAILS_FULL, &a, &d, &e);
        if (code == GANIM_OK) succeeded = 1;
        else CHECK_MSG(code == GANIM_ERR_NOMEM && d == NULL, "failing allocation %ld: %d", k, (int)code);
        ganim_details_free(d);
        CHECK_MSG(c.live == 0, "failing allocation %ld: %ld blocks leaked", k, c.live);
    }
    CHECK(succeeded);
    ganim_doc_free(doc);
}

int main(void)
{
    RUN(tree_and_json);
    RUN(long_int_lists);
    RUN(levels_clips_and_errors);
    RUN(allocation_failures);
    return test_finish();
}
