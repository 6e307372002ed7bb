/* libFuzzer harness: the JSON reader (src/io/json.c) against itself built with
 * GJ_GENERAL_ONLY (its functions renamed gjg_*: every fast path that has a general one
 * beside it left out; tests/unit/test_json_general.c does the same on generated texts).
 * The input is the text (a .glb's first chunk when it starts with "glTF"); its last byte
 * picks the member callbacks, glTF's records (gj_parser.records, as gltf.c asks for them:
 * then no member parsed later) and a memory bound. Both parses must end alike: the same
 * code, offset and message, and on success the same tree (values, offsets, names,
 * strings, records) and the same bytes charged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ganim.h"
#include "io/json.h"

#include "../../support/json_general.h" /* json.c again, as gjg_* */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the tree's memory: malloc'd blocks, freed after each parse */
typedef struct blocks {
    void **at;
    size_t count, cap;
} blocks;

static void *blocks_alloc(void *user, size_t size)
{
    blocks *b = user;
    if (b->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        void **grown = realloc(b->at, cap * sizeof *grown);
        if (!grown) return NULL;
        b->at = grown;
        b->cap = cap;
    }
    void *p = malloc(size ? size : 1);
    if (p) b->at[b->count++] = p;
    return p;
}

static void blocks_free(blocks *b)
{
    for (size_t i = 0; i < b->count; i++) free(b->at[i]);
    free(b->at);
    memset(b, 0, sizeof *b);
}

static int keep_cb(unsigned depth, const char *parent, const char *key)
{
    (void)parent;
    return !(depth > 0 && key[0] == 'e'); /* (glTF's extras and extensions not kept) */
}
static int lend_cb(unsigned depth, const char *parent, const char *key)
{
    (void)depth;
    (void)parent;
    return key[0] == 'u' || key[0] == 'n'; /* (uri, name) */
}
static int later_cb(unsigned depth, const char *parent, const char *key)
{
    (void)parent;
    return depth == 0 && key[0] == 'a' && key[1] == 'n'; /* (animations) */
}

/* glTF's records (gltf.c): accessors and bufferViews at the root, an animation's
 * samplers and channels two deep */
static const char *const acc_names[] = { "bufferView", "componentType", "count", "type",
                                         "byteOffset", "normalized",    "sparse" };
static const char *const view_names[] = { "buffer", "extensions", "byteOffset", "byteLength", "byteStride" };
static const char *const sampler_names[] = { "interpolation", "input", "output", "extras" };
static const char *const channel_names[] = { "target", "sampler", "target.path", "target.node" };
#define RECORD_KINDS 4u

typedef struct one_parse {
    blocks b;
    ganim_error err;
    ganim_code code;
    size_t charged;
    const gj_value *v;
    gj_records rec[RECORD_KINDS];
} one_parse;

static void parse_once(one_parse *o, int general, const uint8_t *text, size_t size, unsigned mode, size_t bound)
{
    memset(o, 0, sizeof *o);
    gj_parser p = { .alloc = blocks_alloc,
                    .alloc_user = &o->b,
                    .max_depth = 64,
                    .who = "fuzz: JSON",
                    .base = 20,
                    .max_bytes = bound,
                    .limit_name = "the fuzz bound",
                    .keep = mode & 1 ? keep_cb : NULL,
                    .lend = mode & 2 ? lend_cb : NULL,
                    .later = mode & 4 && !(mode & 0x40) ? later_cb : NULL,
                    .charged = &o->charged };
    if (mode & 0x40) {
        o->rec[0] = (gj_records){ .key = "accessors", .names = acc_names, .fields = 7 };
        o->rec[1] = (gj_records){ .key = "bufferViews", .names = view_names, .fields = 5 };
        o->rec[2] = (gj_records){ .key = "samplers", .names = sampler_names, .fields = 4, .depth = 2, .spans = 8u };
        o->rec[3] = (gj_records){ .key = "channels", .names = channel_names, .fields = 4, .depth = 2 };
        p.records = o->rec;
        p.record_kinds = RECORD_KINDS;
    }
    o->code = general ? gjg_parse(&p, text, size, &o->v, &o->err) : gj_parse(&p, text, size, &o->v, &o->err);
}

static int same_set(const gj_recset *a, const gj_recset *b, unsigned fields)
{
    if (a->count != b->count) return 0;
    for (uint32_t i = 0; i < a->count; i++) {
        if (a->at[i] != b->at[i]) return 0;
        for (unsigned j = 0; j < fields; j++) {
            const gj_field *x = &a->field[(size_t)i * fields + j], *y = &b->field[(size_t)i * fields + j];
            if (x->type != y->type || x->at != y->at || x->count != y->count) return 0;
        }
    }
    return 1;
}

static int same_tree(const gj_value *a, const gj_value *b, unsigned depth)
{
    if (a->type != b->type || a->count != b->count || a->offset != b->offset || a->lent != b->lent ||
        a->depth != b->depth || depth > 200)
        return 0;
    if ((a->key == NULL) != (b->key == NULL) || (a->key && strcmp(a->key, b->key) != 0)) return 0;
    if (a->type == GJ_RECORDS) return same_set(a->set, b->set, 4); /* (samplers and channels: 4 fields) */
    if (a->type == GJ_LATER || a->type == GJ_NUMBER || (a->type == GJ_STRING && a->lent)) return a->text == b->text;
    if (a->type == GJ_STRING)
        return memcmp(a->text, b->text, a->count) == 0 && !a->text[a->count] && !b->text[b->count];
    if (a->type == GJ_ARRAY || a->type == GJ_OBJECT)
        for (uint32_t i = 0; i < a->count; i++)
            if (!same_tree(&a->items[i], &b->items[i], depth + 1)) return 0;
    return 1;
}

/* the records' outcome alike: met, done, and the root kinds' sets */
static int same_records(const one_parse *f, const one_parse *g)
{
    for (unsigned q = 0; q < RECORD_KINDS; q++) {
        if (f->rec[q].met != g->rec[q].met || f->rec[q].done != g->rec[q].done) return 0;
        if (f->code == GANIM_OK && f->rec[q].depth == 0 && f->rec[q].done &&
            !same_set(&f->rec[q].set, &g->rec[q].set, f->rec[q].fields))
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size || size > (1u << 20)) return 0;
    unsigned mode = data[size - 1];
    const uint8_t *text = data;
    size_t n = size - 1;
    if (size >= 20 && memcmp(data, "glTF", 4) == 0) { /* a .glb: its first chunk */
        uint32_t len =
            (uint32_t)data[12] | (uint32_t)data[13] << 8 | (uint32_t)data[14] << 16 | (uint32_t)data[15] << 24;
        text = data + 20;
        n = len < size - 20 ? len : size - 20;
        mode = data[16]; /* (the chunk's type: 'J' for JSON) */
    }
    one_parse f, g;
    parse_once(&f, 0, text, n, mode, 0);
    parse_once(&g, 1, text, n, mode, 0);
    if (f.code != g.code || f.err.offset != g.err.offset || strcmp(f.err.message, g.err.message) != 0) abort();
    if (f.code == GANIM_OK && (f.charged != g.charged || !same_tree(f.v, g.v, 0))) abort();
    if (!same_records(&f, &g)) abort();
    size_t charged = f.code == GANIM_OK ? f.charged : 0;
    blocks_free(&f.b);
    blocks_free(&g.b);
    if (charged > 1) { /* under a bound below the charge: refused at the same place */
        size_t bound = 1 + (size_t)((mode >> 3) * 2654435761u) % (charged - 1);
        parse_once(&f, 0, text, n, mode, bound);
        parse_once(&g, 1, text, n, mode, bound);
        if (f.code != g.code || f.err.offset != g.err.offset || strcmp(f.err.message, g.err.message) != 0) abort();
        if (f.code == GANIM_OK && (f.charged != g.charged || !same_tree(f.v, g.v, 0))) abort();
        if (!same_records(&f, &g)) abort();
        blocks_free(&f.b);
        blocks_free(&g.b);
    }
    return 0;
}
