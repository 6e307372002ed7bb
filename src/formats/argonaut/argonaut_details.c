/* Argonaut: what the files hold beyond the model. The document: container, variant (and
 * whether the option or the data chose it), the conventions the numbers were read with,
 * the WAD's sections, the models (groups, vertices, faces) and the animations (bones,
 * frames, keys) with which fit which; FULL adds the models' raw vertices, normals and
 * faces. A clip: its record's counts and regions; FULL adds the raw triggers, position
 * deltas, morph data, matrices or keys. */
#include <stdio.h>
#include <string.h>

#include "formats/argonaut/argonaut.h"

static const char *const variant_key[2] = { "croc2", "hp" };
static const char *const variant_words[2] = { "Croc 2: 0x20-byte animation headers, 0x64-byte model headers",
                                              "Harry Potter 1/2: 0x30-byte animation headers, 0x68-byte model "
                                              "headers" };

static void conventions(gd_builder *b, int convention)
{
    gd_group(b, "conventions");
    gd_string(b, "option", convention == AG_SV ? "sv" : "vs");
    gd_label(b, "argonaut.convention");
    gd_string(b, "matrices",
              convention == AG_SV ? "v' = S v + t (S row-major, 4096 = 1.0)"
                                  : "v' = S^T v + t (S row-major, 4096 = 1.0)");
    gd_string(b, "quaternions",
              convention == AG_SV ? "v' = R(q)^T v + t (q = w, x, y, z / 4096)"
                                  : "v' = R(q) v + t (q = w, x, y, z / 4096)");
    gd_string(b, "translations", "vertex units, unscaled");
    gd_string(b, "fps", "30 (not stored)");
    gd_end(b);
    gd_meaning(b, "how the stored numbers were read (docs/formats/argonaut.md)");
}

/* Does a table of n rows of `stride` bytes, each `width` 16-bit values, starting `off`
 * bytes into a region of `size` bytes, lie inside it? The details read raw bytes of a
 * record or model again, so they check every table against its region themselves. */
static bool rows_fit(size_t size, size_t off, size_t n, size_t stride, uint32_t width)
{
    if (n == 0) return off <= size;
    if (off > size || 2u * (size_t)width > stride) return false;
    size_t room = size - off;
    if (room < 2u * (size_t)width) return false;
    return (n - 1) <= (room - 2u * (size_t)width) / stride;
}

/* Raw rows of `width` 16-bit values (signed or not) from n rows of `stride` bytes at `off`
 * in region p[0..size); null when the table does not lie inside the region. */
static void rows16(gd_builder *b, const char *key, const uint8_t *p, size_t size, size_t off, size_t n, size_t stride,
                   uint32_t width, bool is_signed)
{
    if (!rows_fit(size, off, n, stride, width)) {
        gd_null(b, key);
        return;
    }
    p += off;
    const ganim_allocator *a = gd_allocator(b);
    size_t count = n * width, bytes = (count ? count : 1) * sizeof(int32_t);
    int32_t *v = ganim_alloc(a, bytes);
    if (!v) {
        gd_fail(b);
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < width; k++) {
            const uint8_t *q = p + i * stride + 2 * k;
            v[i * width + k] = is_signed ? ag_s16(q) : (int32_t)ganim_ld_u16le(q);
        }
    gd_ints(b, key, v, count, width);
    ganim_free(a, v, bytes);
}

static void s16_rows(gd_builder *b, const char *key, const uint8_t *p, size_t size, size_t off, size_t n, size_t stride,
                     uint32_t width)
{
    rows16(b, key, p, size, off, n, stride, width, true);
}

/* n packed rows of `width` u16 */
static void u16_rows(gd_builder *b, const char *key, const uint8_t *p, size_t size, size_t off, size_t n,
                     uint32_t width)
{
    rows16(b, key, p, size, off, n, 2u * (size_t)width, width, false);
}

/* Which records (or models) have `n` bones (groups). */
static void fitting(gd_builder *b, const char *key, const uint32_t *counts, uint32_t total, uint32_t n)
{
    const ganim_allocator *a = gd_allocator(b);
    size_t bytes = (total ? total : 1) * sizeof(int32_t);
    int32_t *v = ganim_alloc(a, bytes);
    if (!v) {
        gd_fail(b);
        return;
    }
    size_t m = 0;
    for (uint32_t i = 0; i < total; i++)
        if (counts[i] == n) v[m++] = (int32_t)i;
    gd_ints(b, key, v, m, 0);
    ganim_free(a, v, bytes);
}

static void model_details(gd_builder *b, const ag_model *m, uint32_t index, const uint32_t *bones, uint32_t nrec,
                          int hp, ganim_details_level level)
{
    gd_group(b, NULL);
    gd_uint(b, "index", index);
    gd_uint(b, "offset", m->offset);
    gd_uint(b, "groups", m->groups);
    gd_label(b, "vertex groups");
    /* vertices per group, from the countdowns */
    int32_t per[64];
    uint32_t ng = 0, run = 0;
    bool verts_fit = rows_fit(m->size, m->o_vert, m->nvert, 8, 4),
         faces_fit = rows_fit(m->size, m->o_face, m->nface, 20, 10);
    for (uint32_t v = 0; verts_fit && v < m->nvert; v++) {
        run++;
        if (ganim_ld_u16le(m->p + m->o_vert + 8 * (size_t)v + 6) == 1 || v + 1 == m->nvert) {
            if (ng < 64) per[ng] = (int32_t)run;
            ng++;
            run = 0;
        }
    }
    gd_ints(b, "group_vertex_counts", per, ng < 64 ? ng : 64, 0);
    if (ng > 64) gd_meaning(b, "the first 64 groups");
    gd_uint(b, "vertices", m->nvert);
    uint32_t quads = 0;
    for (uint32_t f = 0; faces_fit && f < m->nface; f++)
        quads += (ganim_ld_u16le(m->p + m->o_face + 20 * (size_t)f + 18) & 0x0800) != 0;
    gd_uint(b, "faces", m->nface);
    gd_uint(b, "quads", quads);
    gd_uint(b, "triangles", m->nface - quads);
    const int32_t coll[3] = { m->coll[0], m->coll[1], m->coll[2] };
    gd_ints(b, "collision_faces", coll, hp ? 3 : 2, 0);
    gd_meaning(b, hp ? "floor, ceiling, wall" : "floor, ceiling");
    fitting(b, "fitting_animations", bones, nrec, m->groups);
    gd_meaning(b, "animations whose bone count equals the group count");
    if (level == GANIM_DETAILS_FULL) {
        s16_rows(b, "bbox", m->p, m->size, 0, 9, 8, 4);
        s16_rows(b, "vertices", m->p, m->size, m->o_vert, m->nvert, 8, 4);
        gd_meaning(b, "x, y, z, group countdown");
        s16_rows(b, "normals", m->p, m->size, m->o_norm, m->nvert, 8, 4);
        s16_rows(b, "faces", m->p, m->size, m->o_face, m->nface, 20, 10);
        gd_meaning(b, "nx, ny, nz, countdown, v0, v1, v2, v3, texture, flags (as s16)");
    }
    gd_end(b);
}

static uint32_t record_bones(const ganim_clip *c, bool *ok)
{
    ag_clip_info in;
    ag_rec r;
    *ok = ag_clip_info_parse(c, &in) && ag_clip_record(&in, &r);
    return *ok ? r.bc : UINT32_MAX;
}

static ganim_code doc_details(const ganim_doc *doc, ganim_details_level level, gd_builder *b)
{
    ag_doc_info di;
    if (!ag_doc_info_parse(doc, &di)) return GANIM_OK;
    gd_string(b, "container", di.container == AG_WAD ? "wad" : "block");
    gd_meaning(b, di.container == AG_WAD ? "a level WAD: the XSPD section's models and animation block"
                                         : "a bare animation block: u32 count and the records");
    gd_string(b, "variant", variant_key[di.variant]);
    gd_meaning(b, variant_words[di.variant]);
    gd_string(b, "variant_from", di.variant_from == AG_FROM_OPTION ? "option" : "data");
    gd_meaning(b, di.variant_from == AG_FROM_OPTION ? "argonaut.variant" : "the variant the models and records fit");
    conventions(b, di.convention);
    gd_uint(b, "animation_count", di.stored_count);
    if (di.parsed != di.stored_count) {
        gd_uint(b, "animations_read", di.parsed);
        gd_meaning(b, "the rest are kept as raw bytes");
    }
    gd_uint(b, "block_offset", di.prefix_size);
    gd_meaning(b, "the animation count");
    const ganim_allocator *a = gd_allocator(b);
    size_t nrec = doc->clip_count, bytes = (nrec ? nrec : 1) * sizeof(uint32_t);
    uint32_t *bones = ganim_alloc(a, bytes);
    if (!bones) {
        gd_fail(b);
        return GANIM_OK;
    }
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        bool ok;
        bones[i] = record_bones(&doc->clips[i], &ok);
    }
    ag_model *models = NULL;
    uint32_t model_count = 0;
    size_t mbytes = 0;
    if (di.container == AG_WAD) {
        gd_uint(b, "wad_header", ganim_ld_u32le(di.prefix));
        uint32_t h = ganim_ld_u32le(di.prefix);
        gd_meaning(b, h == di.input_size + 0x800u        ? "file size + 0x800"
                      : h == di.input_size - 4u + 0x800u ? "file size - 4 + 0x800"
                                                         : "neither file size + 0x800 nor - 4");
        gd_uint(b, "xspd_offset", di.xspd);
        gd_label(b, "XSPD section");
        /* the models, walked again in the prefix (which ends at the animation count) */
        ag_wad whole;
        memset(&whole, 0, sizeof whole);
        whole.models_at = (size_t)di.xspd + 8 + 0x808;
        whole.xspd_end = di.prefix_size;
        if (whole.models_at + 4 <= di.prefix_size) whole.model_count = ganim_ld_u32le(di.prefix + whole.models_at);
        char why[200];
        size_t block_at;
        if (whole.models_at + 4 <= di.prefix_size && whole.model_count <= di.prefix_size / 0x64u) {
            mbytes = (whole.model_count ? whole.model_count : 1) * sizeof *models;
            models = ganim_alloc(a, mbytes);
            if (!models) gd_fail(b);
            else if (!ag_wad_models(di.prefix, &whole, di.variant == AG_HP, false, models, &block_at, why, sizeof why))
                ganim_free(a, models, mbytes), models = NULL;
        }
        if (models) {
            model_count = whole.model_count;
            gd_uint(b, "model_count", model_count);
            gd_list(b, "models");
            for (uint32_t i = 0; i < model_count; i++)
                model_details(b, &models[i], i, bones, doc->clip_count, di.variant == AG_HP, level);
            gd_end(b);
        }
        if (di.model != UINT32_MAX) {
            gd_uint(b, "model", di.model);
            gd_meaning(b, "argonaut.model: the mesh, animated by the animations that fit it");
        }
    }
    gd_list(b, "animations");
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        ag_clip_info in;
        ag_rec r;
        if (!ag_clip_info_parse(&doc->clips[i], &in) || !ag_clip_record(&in, &r)) continue;
        gd_group(b, NULL);
        gd_uint(b, "index", i);
        gd_uint(b, "offset", r.offset);
        gd_string(b, "format", ag_keyed(&r) ? "keys" : "matrices");
        gd_uint(b, "bones", r.bc);
        gd_uint(b, "frames", r.fc);
        if (ag_keyed(&r)) gd_uint(b, "keys", r.kc);
        if (models) {
            int32_t fit[64];
            uint32_t nf = 0;
            for (uint32_t m = 0; m < model_count && nf < 64; m++)
                if (models[m].groups == r.bc) fit[nf++] = (int32_t)m;
            gd_ints(b, "fitting_models", fit, nf, 0);
        }
        gd_end(b);
    }
    gd_end(b);
    gd_meaning(b, "a model fits an animation when its group count equals the bone count; the file says no more");
    ganim_free(a, models, mbytes);
    ganim_free(a, bones, bytes);
    return GANIM_OK;
}

static ganim_code clip_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b)
{
    ag_clip_info in;
    ag_rec r;
    const ganim_clip *c = &doc->clips[clip];
    if (!ag_clip_info_parse(c, &in) || !ag_clip_record(&in, &r)) return GANIM_OK;
    gd_uint(b, "record_offset", r.offset);
    gd_uint(b, "record_size", r.size);
    gd_string(b, "format", ag_keyed(&r) ? "keys" : "matrices");
    gd_meaning(b, ag_keyed(&r) ? "quaternion keys at frame indices (Harry Potter 'new' records)"
                               : "a 3x3 matrix and a translation per bone per frame");
    gd_uint(b, "bones", r.bc);
    gd_uint(b, "frames", r.fc);
    if (r.hp) gd_uint(b, "keys", r.kc);
    gd_uint(b, "triggers", r.tc);
    gd_bool(b, "position_deltas", r.flag == 0);
    gd_meaning(b, "per-frame root motion, unverified: kept raw, not applied");
    gd_int(b, "morph_count", r.mc);
    gd_meaning(b, "morph channels: kept raw, never applied");
    if (c->kind == GANIM_CLIP_OPAQUE) {
        gd_bool(b, "animated", 0);
        gd_meaning(b, "kept as raw bytes (see the warnings, or the model it does not fit)");
    }
    if (level != GANIM_DETAILS_FULL) return GANIM_OK;
    gd_group(b, "header");
    gd_uint(b, "trigger_count", r.tc);
    gd_uint(b, "triggers_slot", r.slot[0]);
    gd_uint(b, "frame_count", r.fc);
    gd_uint(b, "flag", r.flag);
    gd_int(b, "morph_count", r.mc);
    gd_uint(b, "morphs_slot", r.slot[1]);
    gd_uint(b, "bone_count", r.bc);
    gd_uint(b, "bones_slot", r.slot[2]);
    if (r.hp) {
        gd_uint(b, "keyframe_count", r.kc);
        gd_uint(b, "keydata_slot", r.slot[3]);
        gd_uint(b, "cache_entry_slot", r.slot[4]);
        gd_uint(b, "cache_status", r.slot[5]);
    }
    gd_end(b);
    u16_rows(b, "triggers_raw", r.p, r.size, r.o_trig, r.tc, 2);
    gd_meaning(b, "frame, id");
    if (r.flag == 0) s16_rows(b, "position_deltas_raw", r.p, r.size, r.o_delta, r.fc, 8, 4);
    else gd_null(b, "position_deltas_raw");
    if (r.mc > 0) {
        gd_group(b, "morphs_raw");
        s16_rows(b, "frame0", r.p, r.size, ag_frame_at(&r, 0), 4 * (size_t)r.mc, 2, 1);
        gd_list(b, "later_frames");
        for (uint32_t f = 1; f < r.fc; f++) s16_rows(b, NULL, r.p, r.size, ag_frame_at(&r, f), (size_t)r.mc, 2, 1);
        gd_end(b);
        gd_end(b);
    } else {
        gd_null(b, "morphs_raw");
    }
    if (ag_keyed(&r)) {
        gd_list(b, "keys_raw");
        for (uint32_t k = 0; k < r.kc; k++) s16_rows(b, NULL, r.p, r.size, ag_key_at(&r, k, 0), r.bc, 16, 8);
        gd_end(b);
        gd_meaning(b, "per key, per bone: w, x, y, z, tx, ty, tz, frame (as s16)");
    } else {
        gd_list(b, "matrices_raw");
        for (uint32_t f = 0; f < r.fc; f++) s16_rows(b, NULL, r.p, r.size, ag_matrix_at(&r, f, 0), r.bc, 24, 12);
        gd_end(b);
        gd_meaning(b, "per frame, per bone: m11..m33 (row-major), tx, ty, tz");
    }
    return GANIM_OK;
}

ganim_code argonaut_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b, ganim_error *err)
{
    (void)err;
    return clip < 0 ? doc_details(doc, level, b) : clip_details(doc, clip, level, b);
}
