/* Details: formats describe what they know beyond the model as a tree of typed values
 * (include/ganim.h), built here and owned by a ganim_details. Readers of the tree (the
 * CLI's text, the JSON renderer in src/export/export_json.c) know no format. */
#include <string.h>

#include "core/internal.h"
#include "formats/format.h"

#define MAX_DEPTH 16

/* One open container: its children, grown by doubling in the arena. */
typedef struct gd_level {
    ganim_detail node; /* the container itself (items/count filled at end) */
    ganim_detail *items;
    uint32_t count, capacity;
} gd_level;

struct gd_builder {
    ganim_doc *arena; /* allocations only: a document used as an arena */
    gd_level stack[MAX_DEPTH];
    unsigned depth;     /* stack[0] is the root group */
    ganim_detail *last; /* the node added or ended last */
    int failed;
};

struct ganim_details_internal {
    ganim_doc *arena;
};

static ganim_detail *append(gd_builder *b, const char *key, ganim_detail_type type)
{
    if (b->failed) return NULL;
    gd_level *l = &b->stack[b->depth];
    if (l->count == l->capacity) {
        uint32_t cap = l->capacity ? l->capacity * 2 : 8;
        ganim_detail *items = ganim_doc_alloc_array_raw(b->arena, cap, sizeof *items);
        if (!items || cap < l->capacity) {
            b->failed = 1;
            return NULL;
        }
        if (l->count) memcpy(items, l->items, l->count * sizeof *items);
        l->items = items;
        l->capacity = cap;
    }
    ganim_detail *d = &l->items[l->count++];
    memset(d, 0, sizeof *d);
    d->type = type;
    if (key && !(d->key = ganim_doc_strdup(b->arena, key))) b->failed = 1;
    b->last = d;
    return d;
}

static void begin(gd_builder *b, const char *key, ganim_detail_type type)
{
    if (b->failed) return;
    if (b->depth + 1 >= MAX_DEPTH) {
        b->failed = 1;
        return;
    }
    gd_level *l = &b->stack[++b->depth];
    memset(l, 0, sizeof *l);
    l->node.type = type;
    if (key && !(l->node.key = ganim_doc_strdup(b->arena, key))) b->failed = 1;
}

void gd_group(gd_builder *b, const char *key) { begin(b, key, GANIM_DETAIL_GROUP); }
void gd_list(gd_builder *b, const char *key) { begin(b, key, GANIM_DETAIL_LIST); }

void gd_end(gd_builder *b)
{
    if (b->failed) return;
    if (b->depth == 0) {
        b->failed = 1;
        return;
    }
    gd_level l = b->stack[b->depth--];
    ganim_detail *d = append(b, NULL, l.node.type);
    if (!d) return;
    *d = l.node;
    d->items = l.items;
    d->count = l.count;
}

void gd_null(gd_builder *b, const char *key) { append(b, key, GANIM_DETAIL_NULL); }

void gd_bool(gd_builder *b, const char *key, int v)
{
    ganim_detail *d = append(b, key, GANIM_DETAIL_BOOL);
    if (d) d->value.b = v != 0;
}

void gd_int(gd_builder *b, const char *key, int64_t v)
{
    ganim_detail *d = append(b, key, GANIM_DETAIL_INT);
    if (d) d->value.i = v;
}

void gd_uint(gd_builder *b, const char *key, uint64_t v)
{
    ganim_detail *d = append(b, key, GANIM_DETAIL_UINT);
    if (d) d->value.u = v;
}

void gd_float(gd_builder *b, const char *key, float v)
{
    ganim_detail *d = append(b, key, GANIM_DETAIL_FLOAT);
    if (d) d->value.f = v;
}

void gd_double(gd_builder *b, const char *key, double v)
{
    ganim_detail *d = append(b, key, GANIM_DETAIL_DOUBLE);
    if (d) d->value.d = v;
}

void gd_string(gd_builder *b, const char *key, const char *v)
{
    ganim_detail *d = append(b, key, GANIM_DETAIL_STRING);
    if (d && !(d->value.s = ganim_doc_strdup(b->arena, v ? v : ""))) b->failed = 1;
}

void gd_bytes(gd_builder *b, const char *key, const uint8_t *data, size_t size)
{
    ganim_detail *d = append(b, key, GANIM_DETAIL_BYTES);
    if (!d) return;
    d->value.bytes.data = ganim_doc_memdup(b->arena, size ? data : NULL, size);
    d->value.bytes.size = size;
    if (!d->value.bytes.data) b->failed = 1;
}

void gd_ints(gd_builder *b, const char *key, const int32_t *v, size_t count, uint32_t width)
{
    ganim_detail *d = append(b, key, GANIM_DETAIL_INTS);
    if (!d) return;
    int32_t *copy = ganim_doc_alloc_array_raw(b->arena, count ? count : 1, sizeof *copy);
    if (!copy) {
        b->failed = 1;
        return;
    }
    if (count) memcpy(copy, v, count * sizeof *copy);
    d->value.ints.data = copy;
    d->value.ints.count = count;
    d->value.ints.width = width;
}

void gd_label(gd_builder *b, const char *label)
{
    if (!b->failed && b->last) b->last->label = label;
}

void gd_meaning(gd_builder *b, const char *meaning)
{
    if (!b->failed && b->last) b->last->meaning = meaning;
}

void gd_fail(gd_builder *b) { b->failed = 1; }

const ganim_allocator *gd_allocator(gd_builder *b) { return ganim_doc_allocator(b->arena); }

void ganim_details_free(ganim_details *details)
{
    if (!details) return;
    ganim_doc *arena = details->internal->arena;
    /* The struct lives in the arena it names. */
    ganim_doc_free(arena);
}

ganim_code ganim_doc_details(const ganim_doc *doc, int clip, ganim_details_level level,
                             const ganim_allocator *allocator, ganim_details **out, ganim_error *err)
{
    if (!out || !doc)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "details: no document or no output");
    *out = NULL;
    /* the formats' details read the document's arrays as the model's rules promise */
    ganim_code valid = ganim_doc_validate(doc, err);
    if (valid != GANIM_OK) return valid;
    return gd_doc_details_valid(doc, clip, level, allocator, out, err);
}

ganim_code gd_doc_details_valid(const ganim_doc *doc, int clip, ganim_details_level level,
                                const ganim_allocator *allocator, ganim_details **out, ganim_error *err)
{
    if (!out || !doc)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "details: no document or no output");
    *out = NULL;
    if (clip >= 0 && (uint32_t)clip >= doc->clip_count)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "details: no clip %d (the document has %u)",
                          clip, doc->clip_count);
    ganim_doc *arena = ganim_doc_create(allocator, 0);
    if (!arena) return GANIM_NOMEM(err);
    ganim_details *d = ganim_doc_alloc(arena, sizeof *d + sizeof *d->internal);
    gd_builder *b = ganim_doc_alloc(arena, sizeof *b);
    if (!d || !b) {
        ganim_doc_free(arena);
        return GANIM_NOMEM(err);
    }
    d->internal = (struct ganim_details_internal *)(d + 1);
    d->internal->arena = arena;
    b->arena = arena;
    b->stack[0].node.type = GANIM_DETAIL_GROUP;
    ganim_code code = GANIM_OK;
    const struct ganim_format_impl *impl = doc->format ? doc->format->impl : NULL;
    if (impl && impl->details) code = impl->details(doc, clip, level, b, err);
    if (code == GANIM_OK && b->failed) code = GANIM_NOMEM(err);
    if (code == GANIM_OK && b->depth != 0)
        code = ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "details: %s left a group open",
                          doc->format ? doc->format->name : "a format");
    if (code != GANIM_OK) {
        ganim_doc_free(arena);
        return code;
    }
    if (b->stack[0].count) {
        ganim_detail *root = ganim_doc_alloc(arena, sizeof *root);
        if (!root) {
            ganim_doc_free(arena);
            return GANIM_NOMEM(err);
        }
        *root = b->stack[0].node;
        root->items = b->stack[0].items;
        root->count = b->stack[0].count;
        d->root = root;
    }
    *out = d;
    return GANIM_OK;
}
