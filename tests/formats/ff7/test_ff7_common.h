/* Helpers shared by the FF7 battle tests: loading the synthetic packs of
 * $GANIM_TESTDATA/ff7 with and without their skeleton, and the describe JSON. */
#ifndef GANIM_TEST_FF7_COMMON_H
#define GANIM_TEST_FF7_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "support/tjson.h"
#include "test.h"

/* "<dir>/name.da" -> "<dir>/name<suffix>" in a malloc'd string. */
static inline char *ff7_sibling(const char *da_path, const char *suffix)
{
    size_t n = strlen(da_path);
    char *s = malloc(n + strlen(suffix) + 1);
    memcpy(s, da_path, n - 3);
    strcpy(s + n - 3, suffix);
    return s;
}

static inline const char *ff7_base(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static inline ganim_doc *ff7_read_skeleton(const char *da_path)
{
    char *p = ff7_sibling(da_path, ".aa");
    ganim_read_opts o;
    memset(&o, 0, sizeof o);
    o.format = "ff7-skeleton";
    ganim_doc *doc = NULL;
    ganim_error e;
    memset(&e, 0, sizeof e);
    ganim_code c = ganim_read_file(p, &o, &doc, &e);
    CHECK_MSG(c == GANIM_OK, "%s: %s", p, e.message);
    free(p);
    return doc;
}

static inline ganim_doc *ff7_read_pack_mem(const uint8_t *data, size_t size, const ganim_skeleton *sk, ganim_error *e)
{
    ganim_read_opts o;
    memset(&o, 0, sizeof o);
    o.format = "ff7-battle";
    o.skeleton = sk;
    ganim_doc *doc = NULL;
    if (ganim_read_memory(data, size, &o, &doc, e) != GANIM_OK) return NULL;
    return doc;
}

/* The format's details as parsed JSON (NULL if it failed or said nothing). */
static inline tjson *ff7_describe(const ganim_doc *doc, int clip, ganim_details_level level)
{
    ganim_buffer b;
    memset(&b, 0, sizeof b);
    ganim_error e;
    tjson *j = NULL;
    char msg[256] = "";
    ganim_details *d = NULL;
    if (ganim_doc_details(doc, clip, level, NULL, &d, &e) == GANIM_OK && d->root &&
        ganim_detail_json(d->root, &b, &e) == GANIM_OK) {
        j = tjson_parse((const char *)b.data, b.size, msg, sizeof msg);
        CHECK_MSG(j != NULL, "details JSON does not parse: %s", msg);
    }
    ganim_details_free(d);
    ganim_buffer_free(&b);
    return j;
}

static inline int ff7_hex_equal(const char *hex, const uint8_t *p, size_t n)
{
    if (strlen(hex) != 2 * n) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1 || v != p[i]) return 0;
    }
    return 1;
}

/* Compares positions and rotations of two describe-FULL objects. */
static inline int ff7_same_raw(const tjson *a, const tjson *b)
{
    const char *keys[2] = { "positions", "rotations" };
    for (int k = 0; k < 2; k++) {
        const tjson *x = tjson_get(a, keys[k]), *y = tjson_get(b, keys[k]);
        if (!x || !y || x->count != y->count) return 0;
        for (size_t f = 0; f < x->count; f++) {
            const tjson *fx = &x->items[f], *fy = &y->items[f];
            if (fx->count != fy->count) return 0;
            for (size_t i = 0; i < fx->count; i++) {
                const tjson *vx = &fx->items[i], *vy = &fy->items[i];
                if (vx->type == TJSON_ARRAY) {
                    if (vx->count != vy->count) return 0;
                    for (size_t j = 0; j < vx->count; j++)
                        if (tjson_int(&vx->items[j], -1) != tjson_int(&vy->items[j], -2)) return 0;
                } else if (tjson_int(vx, -1) != tjson_int(vy, -2)) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

#endif
