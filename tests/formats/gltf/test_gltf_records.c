/* The accessors, bufferViews, nodes, meshes, skins, samplers and channels read as records (gltf.c's
 * read_json, json.h's gj_records) against the tree's read of the same bytes
 * (gltf_no_records = 1): the whole document (its lossless JSON dump, its details and its
 * warnings), or the same error (code, message, offset), on
 * ganim's exports of samples, the producers' files in tests/data/gltf, files built here,
 * each cut short inside the JSON, with single bytes changed and with members moved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gltf/gltf.h"
#include "support/tbuild.h"
#include "test.h"

typedef struct outcome {
    ganim_code code;
    ganim_error err;
    ganim_buffer dump;
    char *details;
    char *warnings; /* each warning's code, offset and message, a line each */
} outcome;

/* gltf.skin for the reads (NULL: unset) */
static const char *skin_setting;

static void read_one(const uint8_t *bytes, size_t size, int records, outcome *o)
{
    ganim_read_opts opts = { 0 };
    ganim_doc *d = NULL;
    ganim_setting skin = { "gltf.skin", skin_setting };
    memset(o, 0, sizeof *o);
    opts.format = "gltf";
    if (skin_setting) {
        opts.settings = &skin;
        opts.setting_count = 1;
    }
    gltf_no_records = !records;
    o->code = ganim_read_memory(bytes, size, &opts, &d, &o->err);
    gltf_no_records = 0;
    if (o->code == GANIM_OK) {
        CHECK_OK(ganim_export_json(d, NULL, &o->dump, NULL));
        o->details = test_details_json(d, -1, GANIM_DETAILS_FULL);
        size_t n = 1;
        for (uint32_t w = 0; w < d->warning_count; w++) n += strlen(d->warnings[w].message) + 48;
        o->warnings = malloc(n);
        size_t at = 0;
        o->warnings[0] = 0;
        for (uint32_t w = 0; w < d->warning_count; w++)
            at += (size_t)snprintf(o->warnings + at, n - at, "%d %llu %s\n", (int)d->warnings[w].code,
                                   (unsigned long long)d->warnings[w].offset, d->warnings[w].message);
    }
    ganim_doc_free(d);
}

static void outcome_free(outcome *o)
{
    ganim_buffer_free(&o->dump);
    free(o->details);
    free(o->warnings);
}

static unsigned compared, failed_alike, differ;

/* Reads bytes both ways: the same outcome. */
static void both_ways(const uint8_t *bytes, size_t size, const char *what, size_t where)
{
    outcome a, b;
    read_one(bytes, size, 0, &a);
    read_one(bytes, size, 1, &b);
    compared++;
    int same = a.code == b.code;
    if (same && a.code != GANIM_OK)
        same = a.err.code == b.err.code && a.err.offset == b.err.offset && strcmp(a.err.message, b.err.message) == 0;
    if (same && a.code == GANIM_OK)
        same = a.dump.size == b.dump.size && memcmp(a.dump.data, b.dump.data, a.dump.size) == 0 &&
               ((!a.details && !b.details) || (a.details && b.details && strcmp(a.details, b.details) == 0)) &&
               a.warnings && b.warnings && strcmp(a.warnings, b.warnings) == 0;
    if (a.code != GANIM_OK && same) failed_alike++;
    if (!same && differ++ < 5)
        CHECK_MSG(0, "%s (%zu): tree %d '%s' at %llu, records %d '%s' at %llu", what, where, a.code, a.err.message,
                  (unsigned long long)a.err.offset, b.code, b.err.message, (unsigned long long)b.err.offset);
    outcome_free(&a);
    outcome_free(&b);
}

/* The JSON chunk of a .glb (NULL: not one) */
static uint8_t *json_chunk(uint8_t *glb, size_t size, size_t *n)
{
    if (size < 20 || memcmp(glb, "glTF", 4) != 0) return NULL;
    *n = (size_t)glb[12] | (size_t)glb[13] << 8 | (size_t)glb[14] << 16 | (size_t)glb[15] << 24;
    return *n <= size - 20 ? glb + 20 : NULL;
}

static uint32_t rnd(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

typedef struct blocks {
    void **p;
    size_t n, cap;
} blocks;

static void *plain_alloc(void *user, size_t size)
{
    blocks *b = user;
    if (b->n == b->cap) {
        void **grown = realloc(b->p, (b->cap = b->cap ? b->cap * 2 : 256) * sizeof *b->p);
        if (!grown) return NULL;
        b->p = grown;
    }
    return b->p[b->n++] = malloc(size ? size : 1);
}

/* Which of the accessors (1), bufferViews (2), an animation's samplers (4) and channels
 * (8), the nodes (16), the meshes (32) and the skins (64) of a JSON text the reader takes as records (the
 * names of gltf.c's read_json). */
static unsigned records_taken(const uint8_t *json, size_t n)
{
    static const char *const acc_names[] = { "bufferView", "componentType", "count", "type",
                                             "byteOffset", "normalized",    "sparse" };
    static const char *const view_names[] = { "buffer", "extensions", "byteOffset", "byteLength", "byteStride" };
    static const char *const sampler_names[] = { "interpolation", "input", "output", "extras" };
    static const char *const channel_names[] = { "target", "sampler", "target.path", "target.node" };
    static const char *const node_names[] = {
        "name", "extras", "matrix", "rotation", "translation", "scale", "children"
    };
    static const char *const mesh_names[] = { "primitives", "extras", "extensions" };
    static const char *const skin_names[] = { "name", "joints", "extras" };
    gj_records r[7] = { { .key = "accessors", .names = acc_names, .fields = 7 },
                        { .key = "bufferViews", .names = view_names, .fields = 5 },
                        { .key = "samplers", .names = sampler_names, .fields = 4, .depth = 2, .spans = 8u },
                        { .key = "channels", .names = channel_names, .fields = 4, .depth = 2 },
                        { .key = "nodes", .names = node_names, .fields = 7, .spans = 0x7Eu },
                        { .key = "meshes", .names = mesh_names, .fields = 3, .spans = 7u },
                        { .key = "skins", .names = skin_names, .fields = 3, .spans = 6u } };
    blocks b = { NULL, 0, 0 };
    gj_parser p = { .alloc = plain_alloc,
                    .alloc_user = &b,
                    .max_depth = GLTF_MAX_DEPTH,
                    .who = "test",
                    .records = r,
                    .record_kinds = 7 };
    const gj_value *root = NULL;
    ganim_error e;
    unsigned taken = 0;
    if (gj_parse(&p, json, n, &root, &e) == GANIM_OK)
        taken = (r[0].done ? 1u : 0u) | (r[1].done ? 2u : 0u) | (r[2].done ? 4u : 0u) | (r[3].done ? 8u : 0u) |
                (r[4].done ? 16u : 0u) | (r[5].done ? 32u : 0u) | (r[6].done ? 64u : 0u);
    for (size_t i = 0; i < b.n; i++) free(b.p[i]);
    free(b.p);
    return taken;
}

/* Every kind of damage to one file: cut (the JSON chunk's tail made spaces, or the text
 * itself cut for a .gltf) at every offset of windows at the text's start, its accessors,
 * bufferViews, samplers, channels, nodes, meshes and skins; single bytes changed there. */
static void damaged(const char *what, const uint8_t *bytes, size_t size, unsigned window, unsigned changes)
{
    uint8_t *w = malloc(size ? size : 1);
    memcpy(w, bytes, size);
    both_ways(w, size, what, 0);
    size_t jn = 0;
    uint8_t *json = json_chunk(w, size, &jn);
    int glb = json != NULL;
    if (!glb) json = w, jn = size;
    unsigned taken = records_taken(json, jn);
    printf("  %s: accessors %s, bufferViews %s, samplers %s, channels %s, nodes %s, meshes %s, skins %s as records\n",
           what, taken & 1 ? "read" : "not read", taken & 2 ? "read" : "not read", taken & 4 ? "read" : "not read",
           taken & 8 ? "read" : "not read", taken & 16 ? "read" : "not read", taken & 32 ? "read" : "not read",
           taken & 64 ? "read" : "not read");
    if (strchr(what, '/')) CHECK_MSG(taken == 127, "%s: the samples' exports are read as records", what);
    size_t starts[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    const char *keys[7] = { "\"accessors\"", "\"bufferViews\"", "\"samplers\"", "\"channels\"",
                            "\"nodes\":[{",  "\"meshes\"",      "\"skins\"" };
    for (int k = 0; k < 7; k++) {
        for (size_t i = 0; i + strlen(keys[k]) <= jn; i++)
            if (memcmp(json + i, keys[k], strlen(keys[k])) == 0) {
                starts[k + 1] = i;
                break;
            }
    }
    uint32_t x = 0x9E3779B9u ^ (uint32_t)size;
    for (int s = 0; s < 8; s++) {
        if (s && !starts[s]) continue;
        for (size_t c = starts[s]; c < starts[s] + window && c < jn; c++) {
            if (glb) { /* the chunk's tail made spaces: the text ends at c */
                memset(json + c, ' ', jn - c);
                both_ways(w, size, what, c);
                memcpy(w, bytes, size);
            } else {
                both_ways(w, c, what, c);
            }
        }
        static const char set[] = "\"{}[],:\\ 0123456789-.eEtfnul\x01\x80xX";
        for (unsigned m = 0; m < changes; m++) {
            size_t c = starts[s] + rnd(&x) % window;
            if (c >= jn) continue;
            json[c] = (uint8_t)set[rnd(&x) % (sizeof set - 1)];
            both_ways(w, size, what, c);
            json[c] = bytes[(size_t)(json - w) + c];
        }
    }
    free(w);
}

static const char *src_path(const char *name)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/tests/data/gltf/%s", GANIM_SOURCE_DIR, name);
    return buf;
}

TEST(exports_and_producers_read_alike)
{
    static const char *const producers[] = { "blender_crane.glb", "blender_rig_baked.glb", "blender_rig_sparse.glb",
                                             "fixture_pack.glb",  "threejs_run.glb",       "threejs_run.gltf" };
    for (size_t i = 0; i < sizeof producers / sizeof *producers; i++) {
        size_t size = 0;
        uint8_t *bytes = test_read_file(src_path(producers[i]), &size);
        CHECK_MSG(bytes != NULL, "%s", producers[i]);
        if (!bytes) continue;
        damaged(producers[i], bytes, size, test_full() ? 1500 : 400, test_full() ? 600 : 150);
        free(bytes);
    }
    static const char *const samples[] = { "ff7/frog_entry.da", "argonaut/hp_style_2anims.bin",
                                           "acl/short_f16_r30_b33.acl", "alamo/RB_TLTower_Attack_00.ala" };
    const char *data = test_testdata_optional();
    for (size_t i = 0; data && i < sizeof samples / sizeof *samples; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", data, samples[i]);
        ganim_doc *d = NULL;
        if (ganim_read_file(path, NULL, &d, NULL) != GANIM_OK) continue;
        ganim_buffer glb = { 0 };
        CHECK_OK(ganim_export_glb(d, NULL, &glb, NULL));
        damaged(samples[i], glb.data, glb.size, test_full() ? 1200 : 200, test_full() ? 600 : 100);
        ganim_buffer_free(&glb);
        ganim_doc_free(d);
    }
    if (!data) test_note_skip("the samples' exports (no test data)");
    CHECK(compared > 1000);
    printf("  %u reads compared, %u failed alike\n", compared, failed_alike);
}

/* A GLB of the JSON text (its n bytes padded with spaces to 4 in place: text has room) and
 * a BIN chunk of the 10 floats every built file's accessors read; its size. */
static size_t glb_wrap(uint8_t *glb, char *text, size_t n)
{
    while (n % 4) text[n++] = ' ';
    static const float bin[10] = { 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    size_t total = 12 + 8 + n + 8 + sizeof bin;
    uint32_t h[5] = { 0x46546C67u, 2, (uint32_t)total, (uint32_t)n, 0x4E4F534Au };
    memcpy(glb, h, sizeof h);
    memcpy(glb + 20, text, n);
    uint32_t b[2] = { (uint32_t)sizeof bin, 0x004E4942u };
    memcpy(glb + 20 + n, b, sizeof b);
    memcpy(glb + 28 + n, bin, sizeof bin);
    return total;
}

/* tpl into text at n with @B, @C and @T replaced by b, c and t: the new length */
static size_t put(char *text, size_t n, size_t cap, const char *tpl, unsigned b, unsigned c, const char *t)
{
    for (const char *p = tpl; *p && n + 32 < cap; p++) {
        if (p[0] == '@' && (p[1] == 'B' || p[1] == 'C' || p[1] == 'T')) {
            if (p[1] == 'T') n += (size_t)snprintf(text + n, cap - n, "%s", t);
            else n += (size_t)snprintf(text + n, cap - n, "%u", p[1] == 'B' ? b : c);
            p++;
        } else {
            text[n++] = *p;
        }
    }
    return n;
}

/* Files built here: accessors and bufferViews in orders, spacings and shapes the records
 * take and do not (repeated names, escapes, sparse, extensions, strings, fractions). */
TEST(built_files_read_alike)
{
    static const char *const shapes[] = {
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"@T\"}",
        ("{ \"type\" : \"@T\", \"count\" : @C , \"componentType\":5126, \"bufferView\": @B, \"min\":[0, -1.5e0], "
         "\"name\":\"a\" }"),
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"@T\",\"normalized\":false,\"byteOffset\":0}",
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"@T\",\"count\":1}",
        "{\"bufferView\":@B,\"componentType\":5126,\"c\\u006funt\":@C,\"type\":\"@T\"}",
        "{\"bufferView\":@B.0,\"componentType\":5126,\"count\":@C,\"type\":\"@T\"}",
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"@T\",\"extras\":{}}",
        "{\"bufferView\":\"@B\",\"componentType\":5126,\"count\":@C,\"type\":\"@T\"}",
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"@TX\"}",
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"VEC\"}",
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"@T\",\"byteOffset\":null}",
        /* (gltf_data.c's accessor_record: what it takes and leaves to the values) */
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"VEC5\"}",
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"VECS\"}",
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"SCALAX\"}",
        "{\"bufferView\":2,\"componentType\":5126,\"count\":@C,\"type\":\"@T\"}",
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"@T\",\"sparse\":1}",
        "{\"bufferView\":@B,\"componentType\":5125,\"count\":@C,\"type\":\"@T\"}",
        "{\"bufferView\":@B,\"componentType\":5121,\"count\":@C,\"type\":\"@T\",\"normalized\":true}",
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"@T\",\"byteOffset\":4}",
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":0,\"type\":\"@T\"}",
        "{\"componentType\":5126,\"count\":@C,\"type\":\"@T\"}",
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":@C,\"type\":\"MAT4\"}",
        "{\"bufferView\":@B,\"componentType\":5126,\"count\":4294967296,\"type\":\"@T\"}",
    };
    static const char *const views[] = {
        "{\"buffer\":0,\"byteOffset\":@B,\"byteLength\":@C}",
        "{\"buffer\":0,\"byteLength\":@C,\"byteOffset\":@B,\"target\":34962,\"name\":\"v\"}",
        "{\"buffer\":0,\"byteOffset\":@B,\"byteLength\":@C,\"byteStride\":4}",
        "{\"buffer\":0,\"byteOffset\":@B,\"byteLength\":@C,\"extensions\":{}}",
        "{\"buffer\":0,\"byteOffset\":@B,\"byteLength\":@C,\"buffer\":0}",
        "{\"buffer\":1,\"byteOffset\":@B,\"byteLength\":@C}",
        /* (gltf_data.c's view_record: what it takes and leaves to the values) */
        "{\"buffer\":0,\"byteOffset\":@B,\"byteLength\":@C,\"byteStride\":3}",
        "{\"buffer\":0,\"byteOffset\":@B,\"byteLength\":@C,\"byteStride\":256}",
        "{\"buffer\":0,\"byteOffset\":@B,\"byteLength\":@C,\"byteStride\":2}",
        "{\"buffer\":0,\"byteOffset\":-@B,\"byteLength\":@C}",
        "{\"buffer\":0,\"byteLength\":@C}",
        "{\"buffer\":0,\"byteOffset\":@B,\"byteLength\":99999}",
        "{\"byteOffset\":@B,\"byteLength\":@C}",
        "{\"buffer\":0,\"byteOffset\":@B,\"byteLength\":@C,\"extensions\":5}",
        "{\"buffer\":0,\"byteOffset\":@B,\"byteLength\":@C,\"byteStride\":16}",
        "{\"buffer\":0,\"byteOffset\":@B,\"byteLength\":\"@C\"}",
    };
    static const char *const channels[] = {
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}}",
        "{ \"target\" : { \"path\" : \"rotation\" , \"node\" : 0 } , \"sampler\" : 0 }",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\",\"extras\":{}}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}",
        "{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"rotation\"}}",
        "{\"sampler\":0,\"target\":{\"node\":5,\"path\":\"rotation\"}}",
        "{\"sampler\":0,\"target\":{\"path\":\"rotation\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0}}",
        "{\"sampler\":0,\"target\":7}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotationX\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"},\"target\":{}}",
        "{\"sampler\":0.0,\"target\":{\"node\":0,\"path\":\"rotation\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"},\"extensions\":{\"x\":1}}",
        "3",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"r\\u006ftation\"}}",
        ("{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}},{\"sampler\":0,\"target\":{\"node\":0,"
         "\"path\":\"rotation\"}}"),
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scale\",\"node\":0}}",
        "{\"sampler\":0,\"target\":{\"node\":-1,\"path\":\"translation\"}}",
    };
    static const char *const samplers[] = {
        "{\"input\":0,\"output\":1}",
        "{\"input\":0,\"output\":1,\"interpolation\":\"STEP\"}",
        "{ \"interpolation\" : \"LINEAR\" , \"output\" : 1 , \"input\" : 0 }",
        "{\"input\":0,\"output\":1,\"interpolation\":\"CUBIC\"}",
        "{\"input\":0,\"output\":1,\"interpolation\":\"an interpolation of more than forty bytes, cut there\"}",
        "{\"input\":0,\"output\":1,\"interpolation\":7}",
        "{\"input\":0,\"output\":1,\"extras\":{\"ganim\":{\"negated\":[[0,0]]}}}",
        "{\"input\":0}",
        "{\"input\":0,\"output\":2}",
        "{\"input\":0,\"output\":1,\"extras\":5}",
        "{\"input\":0,\"output\":1,\"interpolation\":\"\"}",
        "{\"input\":0,\"output\":1,\"interpolation\":\"CUBICSPLINE\"}",
        "{\"input\":0,\"output\":1,\"input\":1}",
        "{\"input\":0,\"output\":1,\"interpolation\":\"LIN\\u0045AR\"}",
        "{\"input\":0,\"output\":1},{\"input\":0,\"output\":1,\"interpolation\":\"STEP\"}",
        "[]",
    };
    uint32_t x = 12345;
    static char text[16384];
    static uint8_t glb[16384 + 4096];
    for (int t = 0; t < 1200; t++) {
        /* one joint, one animation of one rotation channel: times (SCALAR) and values (VEC4) */
        size_t n = 0;
        const unsigned ns = (unsigned)(sizeof shapes / sizeof *shapes), nv = (unsigned)(sizeof views / sizeof *views);
        unsigned sa = rnd(&x) % ns, sb = t % 3 ? 0 : rnd(&x) % ns, va = rnd(&x) % nv, vb = t % 3 ? 0 : rnd(&x) % nv;
        n += (size_t)snprintf(
            text + n, sizeof text - n,
            "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"j\"}],\"skins\":[{\"joints\":[0]}],"
            "\"animations\":[{\"channels\":[%s],\"samplers\":[%s]}],\"accessors\":[",
            t % 2 ? channels[rnd(&x) % (sizeof channels / sizeof *channels)] : channels[0],
            t % 4 < 2 ? samplers[rnd(&x) % (sizeof samplers / sizeof *samplers)] : samplers[0]);
        n = put(text, n, sizeof text, shapes[sa], 0, 2, "SCALAR");
        n += (size_t)snprintf(text + n, sizeof text - n, ",");
        n = put(text, n, sizeof text, shapes[sb], 1, 2, "VEC4");
        n += (size_t)snprintf(text + n, sizeof text - n, "],\"bufferViews\":[");
        n = put(text, n, sizeof text, views[va], 0, 8, "");
        n += (size_t)snprintf(text + n, sizeof text - n, ",");
        n = put(text, n, sizeof text, views[vb], 8, 32, "");
        n += (size_t)snprintf(text + n, sizeof text - n, "],\"buffers\":[{\"byteLength\":40}]}");
        size_t total = glb_wrap(glb, text, n);
        both_ways(glb, total, "built", (size_t)t);
        if (t % 40 == 0) damaged("built file", glb, total, 200, 100);
    }
    printf("  %u reads compared, %u failed alike\n", compared, failed_alike);
}

/* Whether the dump holds the bytes of s. */
static int dump_has(const ganim_buffer *b, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= b->size; i++)
        if (memcmp(b->data + i, s, n) == 0) return 1;
    return 0;
}

/* The skin the animations move most (gltf_skeleton.c's count_animated, which reads a
 * recorded channel's target.path and target.node from its fields): two skins of one
 * joint each, a rotation channel on skin 0's joint and two channels on skin 1's whose path
 * or node is near a counted one (a path that is one's prefix or has it as a prefix, a
 * node that gj_uint refuses or takes): skin 1 becomes the skeleton only where both
 * channels count, the same either way. */
TEST(skin_choice_reads_targets_alike)
{
    static const char *const paths[] = { "scale",     "scalx",       "scal",       "scales", "rotation", "rotatioN",
                                         "rotationX", "translation", "translatio", "Scale",  "",         "weights" };
    static const char *const nodes[] = { "1", "1.0", "1e0", "10e-1", "-1", "4294967297", "1.5", "\"1\"", "true" };
    static char text[4096];
    static uint8_t glb[4096 + 1024];
    unsigned skin1 = 0, before = compared;
    for (size_t pa = 0; pa < sizeof paths / sizeof *paths; pa++)
        for (size_t no = 0; no < sizeof nodes / sizeof *nodes; no++) {
            int n = snprintf(text, sizeof text,
                             "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"j0\"},{\"name\":\"j1\"}],"
                             "\"skins\":[{\"joints\":[0]},{\"joints\":[1]}],\"animations\":[{\"channels\":["
                             "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}},"
                             "{\"sampler\":0,\"target\":{\"node\":%s,\"path\":\"%s\"}},"
                             "{\"sampler\":0,\"target\":{\"path\":\"%s\",\"node\":%s}}],"
                             "\"samplers\":[{\"input\":0,\"output\":1}]}],\"accessors\":["
                             "{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
                             "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"}],"
                             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":8},"
                             "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":32}],\"buffers\":[{\"byteLength\":40}]}",
                             nodes[no], paths[pa], paths[pa], nodes[no]);
            size_t total = glb_wrap(glb, text, (size_t)n), len = (size_t)n + (4 - (size_t)n % 4) % 4;
            CHECK_MSG(records_taken(glb + 20, len) == 95, "%s %s: read as records", paths[pa], nodes[no]);
            both_ways(glb, total, paths[pa], no);
            outcome o;
            read_one(glb, total, 1, &o);
            int counted =
                no < 4 && (pa == 0 || pa == 4 || pa == 7); /* (scale, rotation, translation; 1 as gj_uint takes it) */
            CHECK_MSG(o.code != GANIM_OK || o.dump.size > 0, "%s %s", paths[pa], nodes[no]);
            if (o.code == GANIM_OK && o.dump.data) {
                int j1 = dump_has(&o.dump, "\"j1\"") && !dump_has(&o.dump, "\"j0\"");
                skin1 += (unsigned)j1;
                CHECK_MSG(j1 == counted, "%s %s: skin %d, expected %d", paths[pa], nodes[no], j1, counted);
            }
            outcome_free(&o);
        }
    CHECK(compared - before == 108 && skin1 > 0);
    printf("  %u reads compared, skin 1 chosen in %u\n", compared - before, skin1);
}

/* gltf_anim.c's channel_record and sampler_record (a channel and its sampler read from
 * their fields, no values built) at the edges of what they take: every pair of a channel
 * and a sampler below, as records (checked) and as the tree, the same document or error.
 * Node 0 is the skin's joint, node 1 is not; sampler 1 is always plain. */
TEST(channel_and_sampler_records_read_alike)
{
    static const char *const channels[] = {
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scale\"}}",
        "{\"target\":{\"path\":\"scale\",\"node\":0},\"sampler\":1}",
        "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}}",
        "{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"rotation\"}}",
        "{\"sampler\":2,\"target\":{\"node\":0,\"path\":\"rotation\"}}",
        "{\"sampler\":2,\"target\":{\"node\":1,\"path\":\"rotation\"}}",
        "{\"sampler\":1.0,\"target\":{\"node\":0,\"path\":\"scale\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scal\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scalf\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translatioN\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotationn\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}",
        "{\"sampler\":0,\"target\":{\"node\":\"0\",\"path\":\"rotation\"}}",
        "{\"sampler\":0,\"target\":{\"node\":1e0,\"path\":\"rotation\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":7}}",
        "{\"target\":{\"node\":0,\"path\":\"rotation\"}}",
        "{\"sampler\":null,\"target\":{\"node\":0,\"path\":\"rotation\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}},{\"sampler\":1,\"target\":{\"node\":0,"
        "\"path\":\"rotation\"}}",
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scale\"}},{\"sampler\":1,\"target\":{\"node\":0,"
        "\"path\":\"translation\"}}",
    };
    static const char *const samplers[] = {
        "{\"input\":0,\"output\":@O}",
        "{\"input\":0,\"output\":@O,\"interpolation\":\"LINEAR\"}",
        "{\"input\":0,\"output\":@O,\"interpolation\":\"STEP\"}",
        "{\"input\":0,\"output\":@O,\"interpolation\":\"CUBICSPLINE\"}",
        "{\"interpolation\":\"STEPS\",\"input\":0,\"output\":@O}",
        "{\"interpolation\":\"STE\",\"input\":0,\"output\":@O}",
        "{\"interpolation\":\"LINEAR \",\"input\":0,\"output\":@O}",
        "{\"interpolation\":\"CUBICSPLINe\",\"input\":0,\"output\":@O}",
        "{\"interpolation\":null,\"input\":0,\"output\":@O}",
        "{\"input\":0,\"output\":@O,\"extras\":null}",
        "{\"input\":0,\"output\":@O,\"extras\":\"ganim\"}",
        "{\"input\":0,\"output\":@O,\"extras\":{\"ganim\":{\"negated\":[[0,1]]}}}",
        "{\"input\":0}",
        "{\"output\":@O}",
        "{\"input\":0,\"output\":4}",
        "{\"input\":4,\"output\":@O}",
        "{\"input\":0.0,\"output\":@O}",
        "{\"input\":0,\"output\":\"1\"}",
        "{\"input\":0,\"output\":-1}",
        "{\"input\":0,\"output\":0}",
    };
    static char text[8192], sampler[512];
    static uint8_t glb[8192 + 1024];
    unsigned before = compared, failed_before = failed_alike, differ_before = differ, recorded = 0;
    for (size_t c = 0; c < sizeof channels / sizeof *channels; c++)
        for (size_t s = 0; s < sizeof samplers / sizeof *samplers; s++)
            for (unsigned vec = 0; vec < 2; vec++) { /* output 1: VEC4, 2: VEC3 (translation, scale) */
                /* (@O: the output accessor) */
                size_t k = 0;
                for (const char *q = samplers[s]; *q && k + 2 < sizeof sampler; q++) {
                    if (q[0] == '@' && q[1] == 'O') sampler[k++] = vec ? '2' : '1', q++;
                    else sampler[k++] = *q;
                }
                sampler[k] = 0;
                int n =
                    snprintf(text, sizeof text,
                             "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"j0\"},{\"name\":\"k1\"}],"
                             "\"skins\":[{\"joints\":[0]}],\"animations\":[{\"channels\":[%s],"
                             "\"samplers\":[%s,{\"input\":0,\"output\":%c}]}],\"accessors\":["
                             "{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
                             "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"},"
                             "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
                             "{\"bufferView\":1,\"componentType\":5126,\"count\":6,\"type\":\"SCALAR\"}],"
                             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":8},"
                             "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":32},"
                             "{\"buffer\":0,\"byteOffset\":16,\"byteLength\":24}],\"buffers\":[{\"byteLength\":40}]}",
                             channels[c], sampler, vec ? '2' : '1');
                size_t total = glb_wrap(glb, text, (size_t)n), len = (size_t)n + (4 - (size_t)n % 4) % 4;
                recorded += (records_taken(glb + 20, len) & 12u) == 12u;
                both_ways(glb, total, channels[c], s * 2 + vec);
            }
    unsigned pairs = (unsigned)(sizeof channels / sizeof *channels * (sizeof samplers / sizeof *samplers) * 2);
    unsigned read = compared - before - (failed_alike - failed_before);
    CHECK(compared - before == pairs && recorded >= pairs - pairs / 10 && read >= pairs / 3);
    CHECK_MSG(differ == differ_before, "%u reads differ", differ - differ_before); /* (both_ways shows 5 in all) */
    printf("  %u reads compared, %u with samplers and channels as records, %u read\n", compared - before, recorded,
           read);
}

/* A sampler's extras (a span field of its record: gltf_anim.c's negated_span for ganim's
 * usual ranges, else the tree of its text) read with records and as the tree: every edge
 * of the usual shape, under files ganim wrote (the ranges undone) and others, rotation,
 * translation, LINEAR and STEP: the same dump, details and warnings or the same error. */
TEST(sampler_extras_read_alike)
{
    static const char *const extras[] = {
        "{\"ganim\":{\"negated\":[[0,1]]}}",
        "{\"ganim\":{\"negated\":[[0,0]]}}",
        "{\"ganim\":{\"negated\":[[1,1]]}}",
        "{\"ganim\":{\"negated\":[[0,0],[1,1]]}}",
        "{\"ganim\":{\"negated\":[[0,1],[0,1]]}}",
        "{\"ganim\":{\"negated\":[[1,0]]}}",
        "{\"ganim\":{\"negated\":[[0,2]]}}",
        "{\"ganim\":{\"negated\":[[2,2]]}}",
        "{\"ganim\":{\"negated\":[[0,0],[1,2]]}}",
        "{\"ganim\":{\"negated\":[[0,1,1]]}}",
        "{\"ganim\":{\"negated\":[[0]]}}",
        "{\"ganim\":{\"negated\":[]}}",
        "{\"ganim\":{\"negated\":[[0,1.0]]}}",
        "{\"ganim\":{\"negated\":[[0,1e0]]}}",
        "{\"ganim\":{\"negated\":[[-0,1]]}}",
        "{\"ganim\":{\"negated\":[[0, 1]]}}",
        "{\"ganim\":{\"negated\":[[0,1] ]}}",
        "{ \"ganim\":{\"negated\":[[0,1]]}}",
        "{\"ganim\":{\"negated\":[[0,4294967297]]}}",
        "{\"ganim\":{\"negated\":[[0,1000000000]]}}",
        "{\"ganim\":{\"negated\":[[0,01]]}}",
        "{\"ganim\":{\"negated\":[[0,1]],\"keys\":[[0,0]]}}",
        "{\"ganim\":{\"keys\":[[0,0]],\"negated\":[[0,1]]}}",
        "{\"ganim\":{\"keys\":[[1,1]]}}",
        "{\"ganim\":{\"negated\":[[0,1]],\"negated\":[[1,1]]}}",
        "{\"ganim\":{\"negated\":[[1,1]]},\"ganim\":{\"negated\":[[0,0]]}}",
        "{\"other\":[1,{\"a\":2}],\"ganim\":{\"negated\":[[1,1]]}}",
        "{\"ganim\":{\"negated\":[[0,1]]},\"other\":1}",
        "{\"ganim\":{\"negated\":\"[[0,1]]\"}}",
        "{\"ganim\":{\"negated\":[[0,1]]}",
        "{\"ganim\":{\"negated\":[[0,1]]}}}",
        "{\"gan\\u0069m\":{\"negated\":[[0,1]]}}",
        "{\"ganim\":{\"negated\":[[0,1]]},\"s\":\"a\\nb\"}",
        "{\"ganim\":[[0,1]]}",
        "[{\"ganim\":{\"negated\":[[0,1]]}}]",
        "{}",
        "[]",
        "{\"ganim\":{}}",
        "{\"ganim\":{\"negated\":[[0,1]]}}, \"extras\":{\"ganim\":{\"negated\":[[1,1]]}}",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
        "]]]]]"
        "]]]]]]]]]]]]]]]]]]]]]]]]]",
    };
    static const char *const assets[] = {
        ("{\"version\":\"2.0\",\"extras\":{\"ganim\":{\"axes\":\"y-down\",\"axis_conversion\":\"rotate 180 deg about "
         "X\",\"unit_scale\":1}}}"),
        "{\"version\":\"2.0\",\"extras\":{\"ganim\":{}}}",
        "{\"version\":\"2.0\"}",
    };
    static const char *const interps[] = { "LINEAR", "STEP" };
    static char text[8192];
    static uint8_t glb[8192 + 1024];
    unsigned before = compared, differ_before = differ, recorded = 0;
    for (size_t e = 0; e < sizeof extras / sizeof *extras; e++)
        for (size_t as = 0; as < sizeof assets / sizeof *assets; as++)
            for (unsigned v = 0; v < 4; v++) { /* rotation or translation, LINEAR or STEP */
                int n = snprintf(
                    text, sizeof text,
                    "{\"asset\":%s,\"nodes\":[{\"name\":\"j0\"}],\"skins\":[{\"joints\":[0]}],"
                    "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,"
                    "\"path\":\"%s\"}}],\"samplers\":[{\"input\":0,\"output\":%c,"
                    "\"interpolation\":\"%s\",\"extras\":%s},{\"input\":0,\"output\":1}]}],"
                    "\"accessors\":["
                    "{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
                    "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"},"
                    "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
                    "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":8},"
                    "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":32},"
                    "{\"buffer\":0,\"byteOffset\":16,\"byteLength\":24}],\"buffers\":[{\"byteLength\":40}]}",
                    assets[as], v & 1 ? "translation" : "rotation", v & 1 ? '2' : '1', interps[v >> 1], extras[e]);
                size_t total = glb_wrap(glb, text, (size_t)n), len = (size_t)n + (4 - (size_t)n % 4) % 4;
                recorded += (records_taken(glb + 20, len) & 4u) != 0;
                both_ways(glb, total, extras[e], as * 4 + v);
            }
    unsigned files = (unsigned)(sizeof extras / sizeof *extras * (sizeof assets / sizeof *assets) * 4);
    CHECK(compared - before == files && recorded >= files - files / 4);
    CHECK_MSG(differ == differ_before, "%u reads differ", differ - differ_before);
    printf("  %u reads compared, %u with samplers as records\n", compared - before, recorded);
}

/* The nodes read as records (gltf_skeleton.c's node_record: a name copied, an array or an
 * object kept as its text, the floats and children read from it by json.h's gj_span_floats
 * and gj_span_item, extras made a tree only when ganim's) against the tree: random node
 * arrays of 1 to 5 nodes whose members come in any order, repeated, with escapes, of wrong
 * types, missing, extras with and without ganim's, numbers of every form, spaces between
 * tokens, under assets that are and are not ganim's (its conversion undone: no rotation
 * normalised), with and without a skin: the same dump, details and warnings or the same
 * error. */
#define COUNT(a) (sizeof(a) / sizeof *(a))
static const char *const node_names_[] = {
    "\"j@N\"",
    "\"a\\u0062\"",
    "5",
    "null",
    "\"\"",
    "[1]",
    "{\"x\":1}",
    "\"a name of more than sixteen bytes @N\"",
    "\"\xc3\xa9t\xc3\xa9 @N\"",
    "true",
};
static const char *const node_extras[] = {
    "{\"ganim\":{\"name\":\"orig @N\",\"flags\":3}}",
    "{\"ganim\":{\"flags\":1}}",
    "{\"ganim\":{\"flags\":1.0}}",
    "{\"ganim\":{\"flags\":-1}}",
    "{\"ganim\":{\"name\":5}}",
    "{\"other\":1}",
    "{\"ganim\":{\"name\":\"x\"},\"ganim\":{\"flags\":2}}",
    "7",
    "\"s\"",
    "[1,2]",
    "{}",
    "{\"ganim\":[1]}",
    "{\"ganim\":{\"name\":\"a\\u0062\"}}",
    "{\"ganim\":{\"flags\":4294967296}}",
    "{\"ganim\":{\"flags\":4294967295}}",
    "{\"ganim\":{\"flags\":\"3\"}}",
    "{\"a\":{\"b\":[1,{\"c\":null}]},\"ganim\":{\"flags\":2}}",
    "{ \"ganim\" : { \"flags\" : 6 , \"name\" : \"n @N\" } }",
    "{\"ganim\":{\"flags\":2,\"flags\":1,\"name\":\"p\",\"name\":\"q\"}}",
    "{\"ganim\":{\"flags\":1e0}}",
};
static const char *const node_rotations[] = {
    "[0,0,0,1]",
    "[0.7071068,0,0,0.7071068]",
    "[0,0,0,2]",
    "[0,0,0,0]",
    "[1,2,3]",
    "[1,2,3,4,5]",
    "[0,0,0,\"1\"]",
    "[ 0 , 0 , 0 , 1 ]",
    "[-0,-0e0,0E+0,1.0e0]",
    "[1e39,0,0,1]",
    "5",
    "{\"x\":1}",
    "[]",
    "[0,0,0,1e-50]",
    "[0,0,0,100000000000000000000001]",
    "[0.5,0.5,0.5,0.5]",
    "[-0.5,0.5,-0.5,0.50000001]",
    "[0,0,0,[1]]",
    "[0,0,0,null]",
    "[0.1,0.2,0.3,0.9273618495495704]",
};
static const char *const node_vec3[] = {
    "[0,0,-150]",
    "[1.5,-2.25,3e2]",
    "[1,2]",
    "[1,2,3,4]",
    "[1,2,true]",
    "\"abc\"",
    "[1e400,0,0]",
    "[0.1,0.2,0.3]",
    "[-0,0,0]",
    "[[1],2,3]",
    "[1,1,1]",
    "[2,2,2]",
    "[0,0,0]",
    "null",
    "[ 1 ,2 , 3 ]",
    "[1E2,2e-2,-3.5E+1]",
    "[12345678,-1234567,7]",
    "[0.000001,1e-45,3.4028235e38]",
    "{}",
};
static const char *const node_matrices[] = {
    "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]",     "[1,0,0,0,0,1,0,0,0,0,1,0,5,-6,7,1]",
    "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0]",       "[1,0.5,0,0,0,1,0,0,0,0,1,0,0,0,0,1]",
    "[1,0,0,1,0,1,0,0,0,0,1,0,0,0,0,1]",     "[1e39,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]",
    "[0,1,0,0,-1,0,0,0,0,0,1,0,0,0,0,1]",    "[2,0,0,0,0,2,0,0,0,0,2,0,0,0,0,1]",
    "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,\"1\"]", "7",
};
static const char *const node_children[] = {
    "[1]",     "[2]",   "[1,2]",        "[0]",           "[5]",       "[1.0]",   "[1e0]",
    "[\"1\"]", "[-1]",  "[]",           "[1,1]",         "{\"a\":1}", "3",       "[ 1 , 2 ]",
    "[null]",  "[3,4]", "[4294967297]", "[{\"x\":[1]}]", "[2, [1]]",  "[10e-1]",
};
static const char *const node_others[] = {
    "\"mesh\":0",
    "\"skin\":0",
    "\"weights\":[1,2]",
    "\"extensions\":{\"X\":{}}",
    "\"camera\":0",
    "\"n\\u0061me\":\"e\"",
    "\"name2\":\"x\"",
    "\"rotatio\":[0,0,0,1]",
    "\"extras\":{\"ganim\":{\"flags\":9}}",
};
static const char *const node_assets[] = {
    ("{\"version\":\"2.0\",\"extras\":{\"ganim\":{\"axes\":\"y-down\",\"axis_conversion\":\"rotate 180 deg about "
     "X\",\"unit_scale\":1}}}"),
    "{\"version\":\"2.0\",\"extras\":{\"ganim\":{}}}",
    "{\"version\":\"2.0\"}",
};

/* One member of a random node into member (@N: the node's index): mostly the exporter's
 * shapes, sometimes any; `plain`: only what the records take (no escape, a name that is
 * not an array or an object, no other member that is an object, none of the seven
 * repeated: *kinds holds those the node has). */
static void node_member(uint32_t *x, int plain, int spaced, unsigned node, unsigned *kinds, char *member, size_t cap)
{
    for (;;) {
        const unsigned kind = rnd(x) % 9, usual = rnd(x) % 3 != 0;
        if (plain && kind < 7 && (*kinds >> kind & 1u)) continue;
        const char *key = NULL, *val = NULL;
        switch (kind) {
        case 0: key = "name", val = usual ? node_names_[0] : node_names_[rnd(x) % COUNT(node_names_)]; break;
        case 1: key = "extras", val = node_extras[rnd(x) % COUNT(node_extras)]; break;
        case 2: key = "matrix", val = node_matrices[rnd(x) % COUNT(node_matrices)]; break;
        case 3: key = "rotation", val = node_rotations[usual ? rnd(x) % 2 : rnd(x) % COUNT(node_rotations)]; break;
        case 4: key = "translation", val = node_vec3[usual ? rnd(x) % 2 : rnd(x) % COUNT(node_vec3)]; break;
        case 5: key = "scale", val = node_vec3[usual ? 10 + rnd(x) % 2 : rnd(x) % COUNT(node_vec3)]; break;
        case 6: key = "children", val = node_children[usual ? rnd(x) % 3 : rnd(x) % COUNT(node_children)]; break;
        default: val = node_others[rnd(x) % COUNT(node_others)]; break;
        }
        if (plain && (strchr(val, '\\') || (kind == 0 && (val[0] == '[' || val[0] == '{')) ||
                      (!key && strstr(val, "{") != NULL)))
            continue;
        size_t w = key ? (size_t)snprintf(member, cap, spaced ? "\"%s\" : " : "\"%s\":", key) : 0;
        for (const char *q = val; *q && w + 16 < cap; q++) {
            if (q[0] == '@' && q[1] == 'N') w += (size_t)snprintf(member + w, cap - w, "%u", node), q++;
            else member[w++] = *q;
        }
        member[w] = 0;
        *kinds |= 1u << kind;
        return;
    }
}

/* gltf_span_floats as it was up to 828a3d7 (the reference of its walk without items): each
 * item made by gltf_span_item's walk and handed to gj_float. */
static int span_floats_by_items(const gj_value *span, float *out, uint32_t n)
{
    uint32_t pos = 0, count = 0;
    gj_value item;
    if (!span || span->type != GJ_LATER || !span->count || span->text[0] != '[') return 0;
    while (gltf_span_item(span, &pos, &item)) {
        if (count == n || !gj_float(&item, &out[count])) return 0;
        count++;
    }
    return count == n;
}

/* gltf_span_floats against span_floats_by_items on texts that are not always JSON: random
 * runs of the bytes of numbers, separators, brackets, strings and literals after a '['
 * (the span is the parse's text, JSON; this is more than it is ever given), every count
 * from 0 to 9: the same answer and, when 1, the same floats (bits). */
TEST(span_floats_as_by_items)
{
    static const char alphabet[] = "0123456789-+.eE,  \t]\"[{}tfnul19-.05e";
    static const char *const numbers[] = { "0",     "-0",      "1.5",      "0.15983486",  "-2.5E-3",      "1e39",
                                           "1e-50", "7654321", "12345678", "0.033333335", "3.4028235e38", "-0.0000001",
                                           "01",    "1.",      "-",        ".5",          "1e",           "1e+",
                                           "--1",   "1.5.5",   "1ee5" };
    static char text[256];
    uint32_t x = 0x5EED5EEDu;
    unsigned checks = 0, taken = 0, with_numbers = 0;
    const unsigned texts = test_full() ? 2000000u : 200000u;
    for (unsigned t = 0; t < texts; t++) {
        size_t n = 0;
        text[n++] = '[';
        const unsigned parts = rnd(&x) % 12;
        for (unsigned k = 0; k < parts && n < sizeof text - 24; k++) {
            const unsigned what = rnd(&x) % 8;
            if (what < 4) { /* a number, mostly after a comma */
                if (k && rnd(&x) % 8) text[n++] = ',';
                if (rnd(&x) % 6 == 0) text[n++] = " \t\n\r"[rnd(&x) % 4];
                n += (size_t)snprintf(text + n, sizeof text - n, "%s", numbers[rnd(&x) % COUNT(numbers)]);
            } else { /* any bytes */
                const unsigned run = 1 + rnd(&x) % 4;
                for (unsigned b = 0; b < run; b++) text[n++] = alphabet[rnd(&x) % (sizeof alphabet - 1)];
            }
        }
        if (rnd(&x) % 4) text[n++] = ']';
        gj_value span;
        memset(&span, 0, sizeof span);
        span.type = GJ_LATER;
        span.text = text;
        span.count = (uint32_t)n;
        for (uint32_t c = 0; c <= 9; c++) {
            float a[16], b[16];
            memset(a, 0x5A, sizeof a);
            memset(b, 0x5A, sizeof b);
            const int ra = span_floats_by_items(&span, a, c), rb = gltf_span_floats(&span, b, c);
            CHECK_MSG(ra == rb && (!ra || memcmp(a, b, c * sizeof *a) == 0), "%.*s: %u floats: %d, %d", (int)n, text, c,
                      ra, rb);
            checks++;
            taken += (unsigned)ra;
            with_numbers += (unsigned)(ra && c);
        }
    }
    CHECK(checks == texts * 10u && taken > texts / 50u && with_numbers > texts / 100u);
    printf("  %u compared, %u taken as floats (%u of 1 or more)\n", checks, taken, with_numbers);
}

/* gltf_span_item and gltf_span_floats (an array's text read without its tree) against the
 * tree gj_parse makes of the same text (the reference): random arrays of numbers of every
 * form, strings holding brackets and commas, literals, nested arrays and objects, spaces
 * of the four kinds between tokens; every item's type and offset (a number's text) the
 * tree's, and gj_floats' answer (the same floats when 1) for counts around the items'. */
TEST(span_items_as_the_tree)
{
    static const char *const tokens[] = {
        "0",        "-0",
        "1",        "1.5",
        "1e5",      "-2.5E-3",
        "12345678", "1234567",
        "-7654321", "1e39",
        "1e-50",    "123456789012345678901234",
        "0.1",      "3.4028235e38",
        "1E+2",     "\"\"",
        "\"a\"",    "\"[{]}\"",
        "\"x,y\"",  "true",
        "false",    "null",
        "[]",       "[1,[2]]",
        "{}",       "{\"a\":[1,\"]\"]}",
        "[ ]",      "{ \"b\" : { } }",
    };
    static const char spaces[] = " \t\n\r";
    static char text[2048];
    uint32_t x = 0xBADC0DEu;
    unsigned tried = 0, floats_taken = 0;
    for (unsigned t = 0; t < 20000; t++) {
        size_t n = 0;
        const unsigned items = rnd(&x) % 18, numeric = t % 3 != 0; /* (a third of any tokens) */
        text[n++] = '[';
        for (unsigned k = 0; k < items; k++) {
            while (rnd(&x) % 4 == 0) text[n++] = spaces[rnd(&x) % 4];
            if (k) text[n++] = ',';
            while (rnd(&x) % 4 == 0) text[n++] = spaces[rnd(&x) % 4];
            const char *tok = tokens[numeric ? rnd(&x) % 15 : rnd(&x) % COUNT(tokens)];
            n += (size_t)snprintf(text + n, sizeof text - n, "%s", tok);
        }
        while (rnd(&x) % 4 == 0) text[n++] = spaces[rnd(&x) % 4];
        text[n++] = ']';
        text[n] = 0;
        blocks b = { NULL, 0, 0 };
        gj_parser p = { .alloc = plain_alloc, .alloc_user = &b, .max_depth = 16, .who = "test" };
        const gj_value *tree = NULL;
        ganim_error e;
        CHECK_MSG(gj_parse(&p, (const uint8_t *)text, n, &tree, &e) == GANIM_OK, "%s", text);
        if (!tree) continue;
        gj_value span, item;
        memset(&span, 0, sizeof span);
        span.type = GJ_LATER;
        span.text = text;
        span.count = (uint32_t)n;
        span.offset = 0;
        uint32_t pos = 0, k = 0;
        while (gltf_span_item(&span, &pos, &item)) {
            const gj_value *v = k < tree->count ? &tree->items[k] : NULL;
            CHECK_MSG(
                v && v->type == item.type && v->offset == item.offset &&
                    (v->type != GJ_NUMBER || (v->count == item.count && memcmp(v->text, item.text, v->count) == 0)),
                "%s: item %u", text, k);
            k++;
        }
        CHECK_MSG(k == tree->count, "%s: %u items, the tree %u", text, k, tree->count);
        const uint32_t counts[] = { tree->count ? tree->count - 1 : 0, tree->count, tree->count + 1, 3, 4, 16 };
        for (unsigned c = 0; c < COUNT(counts); c++) {
            float a[20], f2[20];
            float f3[20];
            int ra = gj_floats(tree, a, counts[c]), rb = gltf_span_floats(&span, f2, counts[c]),
                rc = span_floats_by_items(&span, f3, counts[c]);
            CHECK_MSG(ra == rb && (!ra || memcmp(a, f2, counts[c] * sizeof *a) == 0), "%s: %u floats: %d, %d", text,
                      counts[c], ra, rb);
            CHECK_MSG(rc == rb && (!rc || memcmp(f3, f2, counts[c] * sizeof *a) == 0), "%s: %u floats by items: %d",
                      text, counts[c], rc);
            floats_taken += (unsigned)ra;
            tried++;
        }
        for (size_t i = 0; i < b.n; i++) free(b.p[i]);
        free(b.p);
    }
    /* not an array, not a span */
    gj_value obj, item;
    memset(&obj, 0, sizeof obj);
    obj.type = GJ_LATER;
    obj.text = "{\"a\":1}";
    obj.count = 7;
    uint32_t pos = 0;
    float f1[4];
    CHECK(!gltf_span_item(&obj, &pos, &item) && !gltf_span_floats(&obj, f1, 0));
    obj.type = GJ_ARRAY;
    obj.text = "[1]";
    obj.count = 3;
    pos = 0;
    CHECK(!gltf_span_item(&obj, &pos, &item) && !gltf_span_floats(&obj, f1, 1));
    CHECK(tried == 120000 && floats_taken > 10000);
    printf("  %u compared, %u taken as floats\n", tried, floats_taken);
}

TEST(nodes_read_alike)
{
    static char text[16384], member[512];
    static uint8_t glb[16384 + 1024];
    uint32_t x = 0xC0FFEEu;
    unsigned before = compared, differ_before = differ, failed_before = failed_alike, recorded = 0;
    const unsigned files = test_full() ? 20000u : 4000u;
    for (unsigned t = 0; t < files; t++) {
        /* half the files only of shapes the records take (no escape, a name that is not an
         * array or an object, no other member that is an object) */
        const int plain = t % 2 == 0;
        const unsigned nn = 1 + rnd(&x) % 5;
        size_t n = (size_t)snprintf(text, sizeof text, "{\"asset\":%s,\"nodes\":[", node_assets[rnd(&x) % 3]);
        for (unsigned k = 0; k < nn; k++) {
            const int spaced = rnd(&x) % 8 == 0;
            n += (size_t)snprintf(text + n, sizeof text - n, "%s{%s", k ? (spaced ? " , " : ",") : "",
                                  spaced ? " " : "");
            /* mostly the exporter's members, sometimes any */
            const unsigned members = rnd(&x) % 7;
            unsigned kinds = 0;
            for (unsigned mi = 0; mi < members; mi++) {
                node_member(&x, plain, spaced, k, &kinds, member, sizeof member);
                n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", mi ? (spaced ? " ,\n" : ",") : "", member);
            }
            n += (size_t)snprintf(text + n, sizeof text - n, "%s}", spaced ? " " : "");
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "]%s}", rnd(&x) % 4 ? ",\"skins\":[{\"joints\":[0]}]" : "");
        size_t total = glb_wrap(glb, text, n), len = n + (4 - n % 4) % 4;
        recorded += (records_taken(glb + 20, len) & 16u) != 0;
        both_ways(glb, total, "nodes", t);
    }
    unsigned read = compared - before - (failed_alike - failed_before);
    CHECK(compared - before == files && recorded >= files / 3 && read >= files / 5);
    CHECK_MSG(differ == differ_before, "%u reads differ", differ - differ_before);
    printf("  %u reads compared, %u with nodes as records, %u read\n", compared - before, recorded, read);
}

static const char *const mesh_usual[] = {
    "\"name\":\"ganim_bones\"",
    "\"primitives\":[{\"attributes\":{\"POSITION\":1,\"JOINTS_0\":2,\"WEIGHTS_0\":3},\"indices\":4}]",
};

/* One member of a random mesh into member: the exporter's shapes and the others the
 * records take (a plain value, a span field's object or array without escapes, an array
 * of numbers), and near misses the tree must read (an escape, a control byte, another
 * member that is an object, an array of strings, a nesting at and past the JSON's limit,
 * what is not JSON). */
static void mesh_member(uint32_t *x, char *member, size_t cap)
{
    static const char *const members[] = {
        "\"name\":\"ganim_bones\"",
        "\"primitives\":[{\"attributes\":{\"POSITION\":1,\"JOINTS_0\":2,\"WEIGHTS_0\":3},\"indices\":4}]",
        "\"primitives\" : [ { \"attributes\" : { \"POSITION\" : 1 } , \"mode\" : 4 } , { } ]",
        "\"primitives\":[]",
        "\"primitives\":{}",
        "\"primitives\":5",
        "\"primitives\":\"p\"",
        "\"primitives\":null",
        "\"primitives\":[{\"attributes\":{\"P\\u004fSITION\":1}}]",
        "\"primitives\":[{\"targets\":[{\"POSITION\":7}],\"extras\":{\"s\":\"a b\",\"t\":[true,false,null,-0.5e3]}}]",
        "\"primitives\":[1,]",
        "\"primitives\":[\"a\tb\"]",
        "\"primitives\":tru",
        "\"primitives\":[{\"a\":1}",
        "\"weights\":[0.5,1,-2e-3]",
        "\"weights\":[]",
        "\"weights\":[\"a\"]",
        "\"weights\":[[1]]",
        "\"extras\":{\"a\":[1,{\"b\":null}],\"ganim\":{\"x\":\"y\"}}",
        "\"extras\":5",
        "\"extras\":[]",
        "\"extensions\":{\"KHR_x\":{}}",
        "\"extensions\":{\"KHR_\\\"x\":{}}",
        "\"other\":{\"x\":1}",
        "\"other\":[1,2]",
        "\"n\\u0061me\":1",
        "\"name\":\"m\\u0041\"",
        "\"name\":1e999",
        "\"name\":01",
        "\"primitives\" :[ 1 , 2 ]",
        "\"\":0",
        "\"a_name_of_more_than_sixteen_bytes\":true",
        "\"primitives_and_more\":false",
    };
    const unsigned kind = rnd(x) % (COUNT(members) + 2);
    if (kind < COUNT(members)) {
        snprintf(member, cap, "%s", members[kind]);
        return;
    }
    /* a primitives array nested around the JSON's limit (the mesh's array at depth 1, the
     * mesh 2, its primitives 3) */
    const unsigned deep = GLTF_MAX_DEPTH - 5 + rnd(x) % 6;
    size_t n = (size_t)snprintf(member, cap, "\"%s\":", kind == COUNT(members) ? "primitives" : "other");
    for (unsigned d = 0; d < deep && n + 2 < cap; d++) member[n++] = '[';
    for (unsigned d = 0; d < deep && n + 2 < cap; d++) member[n++] = ']';
    member[n] = 0;
}

TEST(meshes_read_alike)
{
    static char text[16384], member[512];
    static uint8_t glb[16384 + 1024];
    static const char *const not_meshes[] = { "[]", "{}", "5", "[1]", "[{},[]]", "[{}]", "[ ]", "[{},{}]", "\"m\"" };
    uint32_t x = 0x5EED1u;
    unsigned before = compared, differ_before = differ, failed_before = failed_alike, recorded = 0, counted = 0,
             several = 0;
    const unsigned files = test_full() ? 20000u : 4000u;
    for (unsigned t = 0; t < files; t++) {
        size_t n = (size_t)snprintf(text, sizeof text,
                                    "{\"asset\":%s,\"nodes\":[{\"name\":\"j\"}],\"meshes\":", node_assets[rnd(&x) % 3]);
        if (rnd(&x) % 8 == 0) {
            n += (size_t)snprintf(text + n, sizeof text - n, "%s", not_meshes[rnd(&x) % COUNT(not_meshes)]);
        } else {
            const unsigned nm = 1 + rnd(&x) % 4;
            /* half the files mostly the exporter's mesh */
            const int usual = t % 2 == 0;
            text[n++] = '[';
            for (unsigned k = 0; k < nm; k++) {
                n += (size_t)snprintf(text + n, sizeof text - n, "%s{", k ? "," : "");
                const unsigned members = usual ? 2 : rnd(&x) % 5;
                for (unsigned mi = 0; mi < members; mi++) {
                    if (usual && rnd(&x) % 4) snprintf(member, sizeof member, "%s", mi ? mesh_usual[1] : mesh_usual[0]);
                    else mesh_member(&x, member, sizeof member);
                    n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", mi ? "," : "", member);
                }
                text[n++] = '}';
            }
            text[n++] = ']';
        }
        /* a second meshes member (the first is the one read), skins before or after */
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%s}", rnd(&x) % 8 ? "" : ",\"meshes\":[{},{},{}]",
                              rnd(&x) % 4 ? ",\"skins\":[{\"joints\":[0]}]" : "");
        size_t total = glb_wrap(glb, text, n), len = n + (4 - n % 4) % 4;
        recorded += (records_taken(glb + 20, len) & 32u) != 0;
        outcome o;
        read_one(glb, total, 1, &o);
        const char *m = o.code == GANIM_OK && o.details ? strstr(o.details, "\"meshes\":") : NULL;
        const long meshes = m ? strtol(m + 9, NULL, 10) : 0; /* (the details' count: both reads', compared) */
        counted += meshes > 0;
        several += meshes > 1;
        outcome_free(&o);
        both_ways(glb, total, "meshes", t);
    }
    unsigned read = compared - before - (failed_alike - failed_before);
    CHECK(compared - before == files && recorded >= files / 4 && read >= files / 4 && counted >= files / 5 &&
          several >= files / 8);
    CHECK_MSG(differ == differ_before, "%u reads differ", differ - differ_before);
    printf("  %u reads compared, %u with meshes as records, %u read, %u with meshes (%u with several)\n",
           compared - before, recorded, read, counted, several);
}

/* One member of a random skin into member: the exporter's shapes and the others the
 * records take (a plain name, inverseBindMatrices and skeleton, joints and extras as
 * text), with joints that are and are not nodes, and near misses the tree must read (an
 * escape, a name that is not a string, another member that is an object, a repeat). */
static void skin_member(uint32_t *x, char *member, size_t cap)
{
    static const char *const members[] = {
        "\"name\":\"ganim_skin\"",
        "\"name\":\"Armature\"",
        "\"name\":\"armature\"",
        "\"name\":\"\"",
        "\"name\":\"a\\u0062\"",
        "\"name\":\"\xc3\xa9t\xc3\xa9\"",
        "\"name\":5",
        "\"name\":null",
        "\"name\":[\"a\"]",
        "\"name\":{\"a\":1}",
        "\"name\":\"1\"",
        "\"joints\":[0,1,2]",
        "\"joints\":[2,1]",
        "\"joints\":[1]",
        "\"joints\" : [ 0 , 2 ]",
        "\"joints\":[0,0,1]",
        "\"joints\":[]",
        "\"joints\":[3]",
        "\"joints\":[1.0,2e0]",
        "\"joints\":[-1]",
        "\"joints\":[\"0\"]",
        "\"joints\":[[0]]",
        "\"joints\":{\"0\":1}",
        "\"joints\":7",
        "\"joints\":null",
        "\"joints\":[0,]",
        "\"joints\":[0",
        "\"inverseBindMatrices\":4",
        "\"inverseBindMatrices\":\"x\"",
        "\"skeleton\":0",
        "\"skeleton\":{\"a\":0}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":3,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":4,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"\",\"size\":3,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":5}}",
        "\"extras\":{\"ganim\":{}}",
        "\"extras\":{\"other\":{\"a\":[1,{\"b\":null}]},\"ganim\":{\"x\":1}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"f\\u0066\",\"size\":3,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":0,\"base64\":\"\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":3,\"base64\":\"AQ!D\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":99999999999999999999999,"
        "\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":3e0,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":3.0,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":-3,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":3,\"base64\":\"AQID\",\"x\":1}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"base64\":\"AQID\",\"size\":3}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"size\":3,\"format\":\"ff7\",\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":3,\"base64\":\"AQID\"},\"y\":2}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":3,\"base64\":\"AQID\"}},\"z\":3}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":3,\"base64\":\"AQID\"}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\", \"size\":3,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":3,\"size\":3,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":3,\"base64\":7}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"0123456789012345678901234567890123456789012345678901"
        "234567890123\",\"size\":3,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"0123456789012345678901234567890123456789012345678901"
        "2345678901234\",\"size\":3,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"\xc3\xa9\",\"size\":3,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":3,\"base64\":\"AQI\\u0044\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"sizf\":3,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"format\":\"ff7\",\"size\":3,\"base65\":\"AQID\"}}}",
        "\"extras\":{\"ganim\":{\"native_record\":{\"formal\":\"ff7\",\"size\":3,\"base64\":\"AQID\"}}}",
        "\"extras\":{\"ganin\":{\"native_record\":{\"format\":\"ff7\",\"size\":3,\"base64\":\"AQID\"}}}",
        "\"extras\":[1,2]",
        "\"extras\":5",
        "\"extras\":\"s\"",
        "\"extensions\":{\"KHR_x\":{}}",
        "\"other\":[1,2]",
        "\"n\\u0061me\":\"q\"",
        "\"joints_and_more\":[0]",
    };
    snprintf(member, cap, "%s", members[rnd(x) % COUNT(members)]);
}

/* The skins as records (gltf_skeleton.c's skin choice and joints, gltf_carry.c's extras,
 * the details' skin name) against the tree's read: random skins arrays of every shape a
 * skin takes and of the near misses, three nodes two of which an animation moves, under
 * assets that are and are not ganim's, gltf.skin unset or naming a skin (by index, by
 * name, in another case, none of them): the same dump, details and warnings or error. */
TEST(skins_read_alike)
{
    static char text[16384], member[512];
    static uint8_t glb[16384 + 1024];
    static const char *const not_skins[] = { "[]", "{}", "5", "[1]", "[{},[]]", "[ ]", "\"s\"" };
    static const char *const wanted[] = { "1",  "0",    "Armature", "ARMATURE", "ganim_skin", "\xc3\xa9t\xc3\xa9",
                                          "ab", "nope", "" };
    uint32_t x = 0x5C1A5u;
    unsigned before = compared, differ_before = differ, failed_before = failed_alike, recorded = 0, named = 0,
             carried = 0;
    const unsigned files = test_full() ? 20000u : 4000u;
    for (unsigned t = 0; t < files; t++) {
        size_t n = (size_t)snprintf(
            text, sizeof text,
            "{\"asset\":%s,\"nodes\":[{\"name\":\"j0\",\"children\":[1]},{\"name\":\"j1\"},{\"name\":\"j2\"}],"
            "\"skins\":",
            node_assets[rnd(&x) % 3]);
        if (rnd(&x) % 10 == 0) {
            n += (size_t)snprintf(text + n, sizeof text - n, "%s", not_skins[rnd(&x) % COUNT(not_skins)]);
        } else {
            const unsigned ns = 1 + rnd(&x) % 3;
            const int usual = t % 2 == 0; /* half the files mostly the exporter's skin */
            text[n++] = '[';
            for (unsigned k = 0; k < ns; k++) {
                n += (size_t)snprintf(text + n, sizeof text - n, "%s{", k ? "," : "");
                if (usual && rnd(&x) % 4) {
                    n += (size_t)snprintf(text + n, sizeof text - n,
                                          "\"name\":\"%s\",\"inverseBindMatrices\":%u,\"joints\":[%s]%s",
                                          k ? "Armature" : "ganim_skin", k, k ? "2" : "0,1",
                                          rnd(&x) % 2 ? ",\"extras\":{\"ganim\":{\"native_record\":{\"format\":"
                                                        "\"ff7\",\"size\":3,\"base64\":\"AQID\"}}}"
                                                      : "");
                } else {
                    const unsigned members = rnd(&x) % 5;
                    for (unsigned mi = 0; mi < members; mi++) {
                        skin_member(&x, member, sizeof member);
                        n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", mi ? "," : "", member);
                    }
                }
                text[n++] = '}';
            }
            text[n++] = ']';
        }
        /* an animation of nodes 1 and 2 (whose accessors have no buffer: the read fails
         * after the skeleton, or not where the skins differ), a second skins member */
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%s}", rnd(&x) % 8 ? "" : ",\"skins\":[{\"joints\":[2]}]",
                              rnd(&x) % 2 ? ",\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,"
                                            "\"path\":\"rotation\"}}],\"samplers\":[{\"input\":0,\"output\":1}]}],"
                                            "\"accessors\":[{\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"},"
                                            "{\"componentType\":5126,\"count\":1,\"type\":\"VEC4\"}]"
                                          : "");
        size_t total = glb_wrap(glb, text, n), len = n + (4 - n % 4) % 4;
        recorded += (records_taken(glb + 20, len) & 64u) != 0;
        skin_setting = rnd(&x) % 3 ? NULL : wanted[rnd(&x) % COUNT(wanted)];
        outcome o;
        read_one(glb, total, 1, &o);
        named += o.code == GANIM_OK && o.details && strstr(o.details, "\"skin_name\":") != NULL;
        carried += o.code == GANIM_OK && o.dump.data && dump_has(&o.dump, "ff7");
        outcome_free(&o);
        both_ways(glb, total, "skins", t);
        skin_setting = NULL;
    }
    unsigned read = compared - before - (failed_alike - failed_before);
    CHECK(compared - before == files && recorded >= files / 3 && read >= files / 4 && named >= files / 10 &&
          carried >= files / 50);
    CHECK_MSG(differ == differ_before, "%u reads differ", differ - differ_before);
    printf("  %u reads compared, %u with skins as records, %u read, %u with a skin's name, %u carried a record\n",
           compared - before, recorded, read, named, carried);
}

/* The skin choice, its joints and its name against known answers (the code the tree's read
 * and the records' share: skins_read_alike cannot see it), read both ways: two skins, one
 * listing a joint twice, no animation (the most joints wins the tie); gltf.skin by name in
 * any case, by index, naming none; a lone skin whose joints are or are not an array. */
TEST(skins_known_answers)
{
    static const struct {
        const char *skins, *setting;
        ganim_code code;
        const char *has[3]; /* in the details, or (an error) its message */
    } cases[] = {
        { "[{\"name\":\"ganim_skin\",\"joints\":[0,1,2,2]},{\"name\":\"Armature\",\"joints\":[1,2]}]",
          NULL,
          GANIM_OK,
          { "\"skin\":0,\"skin_name\":\"ganim_skin\",\"joints\":4", "\"bones\":3", "lists 1 joints twice" } },
        { "[{\"name\":\"ganim_skin\",\"joints\":[0,1,2,2]},{\"name\":\"Armature\",\"joints\":[1,2]}]",
          "ARMATURE",
          GANIM_OK,
          { "\"skin\":1,\"skin_name\":\"Armature\",\"joints\":2", "\"bones\":2", NULL } },
        { "[{\"name\":\"ganim_skin\",\"joints\":[0,1,2,2]},{\"name\":\"armature\",\"joints\":[1,2]}]",
          "Armature",
          GANIM_OK,
          { "\"skin\":1,\"skin_name\":\"armature\",\"joints\":2", NULL, NULL } },
        { "[{\"name\":\"Armature\",\"joints\":[0,1,2,2]},{\"name\":\"armature\",\"joints\":[1,2]}]",
          "armature",
          GANIM_OK,
          { "\"skin\":1,\"skin_name\":\"armature\",\"joints\":2", NULL, NULL } },
        { "[{\"name\":\"ganim_skin\",\"joints\":[0,1,2,2]},{\"name\":\"Armature\",\"joints\":[1,2]}]",
          "Armatur",
          GANIM_ERR_INVALID_ARG,
          { "gltf: gltf.skin=Armatur names no skin of the file (0 'ganim_skin', 1 'Armature')", NULL, NULL } },
        { "[{\"name\":\"ganim_skin\",\"joints\":[0,1,2,2]},{\"name\":\"Armature\",\"joints\":[1,2]}]",
          "Armaturee",
          GANIM_ERR_INVALID_ARG,
          { "names no skin", NULL, NULL } },
        { "[{\"name\":\"s\",\"joints\":[2,0,1,2,0]}]",
          NULL,
          GANIM_OK,
          { "\"skin\":0,\"skin_name\":\"s\",\"joints\":5", NULL, NULL } },
        { "[{\"name\":\"s\",\"joints\":{\"0\":1}}]", NULL, GANIM_OK, { "\"skin\":null", "\"bones\":3", NULL } },
        { "[{\"joints\":[]}]", NULL, GANIM_ERR_CORRUPT, { "gltf: skin 0 has no joints", NULL, NULL } },
        { "[{\"joints\":[0,3]}]", NULL, GANIM_ERR_CORRUPT, { "gltf: skin 0: joint 1 is not a node", NULL, NULL } },
    };
    static char text[2048];
    static uint8_t glb[4096];
    for (size_t c = 0; c < COUNT(cases); c++) {
        int n = snprintf(text, sizeof text,
                         "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"j0\",\"children\":[1]},"
                         "{\"name\":\"j1\"},{\"name\":\"j2\"}],\"skins\":%s}",
                         cases[c].skins);
        size_t total = glb_wrap(glb, text, (size_t)n), len = (size_t)n + (4 - (size_t)n % 4) % 4;
        CHECK_MSG(records_taken(glb + 20, len) & 64u, "case %zu: skins as records", c);
        skin_setting = cases[c].setting;
        for (int records = 0; records < 2; records++) {
            outcome o;
            read_one(glb, total, records, &o);
            CHECK_MSG(o.code == cases[c].code, "case %zu (records %d): code %d", c, records, (int)o.code);
            for (int h = 0; h < 3 && cases[c].has[h]; h++) {
                const char *in = o.code == GANIM_OK ? (h == 2 ? o.warnings : o.details) : o.err.message;
                CHECK_MSG(in && strstr(in, cases[c].has[h]), "case %zu (records %d): no '%s' in %s", c, records,
                          cases[c].has[h], in ? in : "(none)");
            }
            outcome_free(&o);
        }
        skin_setting = NULL;
    }
}

/* gltf_field_uint (a record's number, digits read in place) against gj_uint on the tree's
 * value of the same bytes (the reference), over many texts and limits: the same answer and,
 * when 1, the same number. */
static void field_uint_as_gj_uint(void)
{
    static const char *const texts[] = { "0",
                                         "1",
                                         "9",
                                         "10",
                                         "42",
                                         "255",
                                         "256",
                                         "4294967295",
                                         "4294967296",
                                         "9007199254740992",
                                         "9007199254740993",
                                         "999999999999999",
                                         "1000000000000000",
                                         "123456789012345",
                                         "1234567890123456",
                                         "18446744073709551615",
                                         "18446744073709551616",
                                         "1.0",
                                         "1.5",
                                         "1e3",
                                         "1E2",
                                         "2e-1",
                                         "-0",
                                         "-1",
                                         "0.0",
                                         "10e0",
                                         "12a",
                                         "1 ",
                                         "/",
                                         ":",
                                         "7.000",
                                         "1e20",
                                         "0e5",
                                         "5e15",
                                         "1.2345678901234e14" };
    static const uint64_t maxes[] = { 0, 1, 9, 10, 252, 255, 4294967295u, (uint64_t)1 << 53, UINT64_MAX };
    char buf[64];
    unsigned tried = 0, taken = 0;
    uint32_t seed = 12345;
    for (unsigned round = 0; round < 3000; round++) {
        const char *text;
        if (round < sizeof texts / sizeof *texts) {
            text = texts[round];
        } else { /* random digit strings of 1..18 digits, some with a stray byte */
            seed = seed * 1103515245u + 12345u;
            unsigned len = 1 + (seed >> 16) % 18;
            for (unsigned k = 0; k < len; k++) {
                seed = seed * 1103515245u + 12345u;
                buf[k] = (char)('0' + (seed >> 16) % 10);
            }
            if (len > 1 && buf[0] == '0') buf[0] = '1';
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 16) % 5 == 0) buf[(seed >> 20) % len] = "./:e-"[(seed >> 8) % 5];
            buf[len] = 0;
            text = buf;
        }
        char padded[80];
        snprintf(padded, sizeof padded, "[%s]", text);
        gltf_file f;
        memset(&f, 0, sizeof f);
        f.json_text = (const uint8_t *)padded;
        gj_field fl = { 1, (uint32_t)strlen(text), GJ_NUMBER };
        gj_value v;
        memset(&v, 0, sizeof v);
        v.type = GJ_NUMBER;
        v.text = padded + 1;
        v.count = fl.count;
        for (unsigned m = 0; m < sizeof maxes / sizeof *maxes; m++) {
            uint64_t a = 77, b = 77;
            int ra = gltf_field_uint(&f, &fl, maxes[m], &a);
            int rb = gj_uint(&v, maxes[m], &b);
            CHECK(ra == rb && a == b);
            if (ra != rb || a != b)
                printf("  %s (max %llu): %d %llu against %d %llu\n", text, (unsigned long long)maxes[m], ra,
                       (unsigned long long)a, rb, (unsigned long long)b);
            tried++;
            taken += (unsigned)ra;
        }
    }
    gltf_file f;
    memset(&f, 0, sizeof f);
    f.json_text = (const uint8_t *)"\"7\"";
    gj_field s = { 0, 1, GJ_STRING };
    uint64_t u = 5;
    CHECK(!gltf_field_uint(&f, &s, 10, &u) && u == 5);
    CHECK(tried == 27000 && taken > 5000);
    printf("  %u compared, %u taken\n", tried, taken);
}

int main(void)
{
    RUN(field_uint_as_gj_uint);
    RUN(exports_and_producers_read_alike);
    RUN(built_files_read_alike);
    RUN(skin_choice_reads_targets_alike);
    RUN(channel_and_sampler_records_read_alike);
    RUN(sampler_extras_read_alike);
    RUN(span_items_as_the_tree);
    RUN(span_floats_as_by_items);
    RUN(nodes_read_alike);
    RUN(meshes_read_alike);
    RUN(skins_read_alike);
    RUN(skins_known_answers);
    return test_finish();
}
