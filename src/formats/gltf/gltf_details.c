/* glTF details: what the file holds beyond the model (container, asset, counts, which
 * skin became the skeleton, how buffers were stored, the conversion of ganim's own files
 * that was undone; per clip its channels, interpolations, where its frame rate came from
 * and what was skipped). Kept in small native records (little-endian u32 fields, f64
 * and length-prefixed strings) that the details hook reads back. */
#include "formats/gltf/gltf.h"
#include "io/bytes.h"

#define RECORD_VERSION 1

/* A record built in a buffer of the caller's (the document's record: at most
 * DOC_RECORD_MOST bytes, 17 numbers, a double and nine strings of at most 1000 bytes
 * each), then copied once into the document's arena. */
#define DOC_RECORD_MOST (17u * 4u + 8u + 9u * (4u + 1000u))
typedef struct out {
    uint8_t *b;
    size_t n;
} out;

static void put_u32(out *o, uint32_t v)
{
    ganim_st_u32le(o->b + o->n, v);
    o->n += 4;
}

static void put_f64(out *o, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    put_u32(o, (uint32_t)u);
    put_u32(o, (uint32_t)(u >> 32));
}

static void put_str(out *o, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > 1000) n = 1000; /* the details read strings of up to 1099 bytes */
    put_u32(o, (uint32_t)n);
    if (n) memcpy(o->b + o->n, s, n);
    o->n += n;
}

/* The names of a string array member, comma-separated (long lists cut). */
static void put_names(out *o, const gj_value *list)
{
    char text[1024];
    size_t at = 0;
    text[0] = 0;
    for (uint32_t i = 0; gj_is(list, GJ_ARRAY) && i < list->count && at < sizeof text - 1; i++) {
        const char *s = "?";
        gj_string(&list->items[i], &s);
        int n = snprintf(text + at, sizeof text - at, "%s%s", i ? "," : "", s);
        if (n > 0) at += (size_t)n;
    }
    put_str(o, text);
}

static ganim_code finish(gltf_file *f, const out *o, const uint8_t **data, size_t *size)
{
    *data = ganim_doc_memdup(f->doc, o->b, o->n);
    *size = o->n;
    return *data ? GANIM_OK : GANIM_NOMEM(f->err);
}

ganim_code gltf_doc_record(gltf_file *f)
{
    if (f->doc->native_format) return GANIM_OK; /* the record ganim's exporter carried wins */
    uint8_t buf[DOC_RECORD_MOST];
    out o = { buf, 0 };
    const gj_value *asset = f->asset_v, *meta = f->meta_v; /* (found by read_json) */
    const char *s[7] = { "", "", "", "", "", "", "" };
    gj_string(gj_get(asset, "generator"), &s[0]);
    gj_string(gj_get(asset, "version"), &s[1]);
    gj_string(gj_get(asset, "minVersion"), &s[2]);
    char skin[1001]; /* (put_str's most, NUL-ended: a record's name is not) */
    if (f->skin >= 0) {
        uint32_t len;
        const char *name = gltf_skin_name(f, (uint32_t)f->skin, &len);
        if (len > 1000) len = 1000;
        memcpy(skin, name, len);
        skin[len] = 0;
        s[3] = skin;
    }
    gj_string(gj_get(meta, "source_format"), &s[4]);
    gj_string(gj_get(meta, "axes"), &s[5]);
    gj_string(gj_get(meta, "axis_conversion"), &s[6]);
    double unit = 1;
    gj_number(gj_get(meta, "unit_scale"), &unit);
    const uint32_t v[] = { RECORD_VERSION,
                           (uint32_t)f->glb,
                           f->node_count,
                           f->skins,
                           f->meshes,
                           f->anims_v ? f->anims_v->count : 0,
                           f->skin >= 0 ? (uint32_t)f->skin : GLTF_NONE,
                           f->joints_in_skin,
                           f->bone_count,
                           f->reordered,
                           f->folded_bones,
                           f->buffer_kinds[GLTF_BUF_GLB],
                           f->buffer_kinds[GLTF_BUF_DATA_URI],
                           f->buffer_kinds[GLTF_BUF_EXTERNAL],
                           (uint32_t)f->ganim,
                           (uint32_t)f->undo,
                           f->skipped_total };
    _Static_assert(sizeof v / sizeof v[0] == 17, "DOC_RECORD_MOST counts 17 numbers");
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) put_u32(&o, v[i]);
    put_f64(&o, unit);
    for (int i = 0; i < 7; i++) put_str(&o, s[i]);
    put_names(&o, f->used_v);
    put_names(&o, f->required_v);
    f->doc->native_format = GLTF_FORMAT;
    return finish(f, &o, &f->doc->native, &f->doc->native_size);
}

ganim_code gltf_clip_record(gltf_file *f, ganim_clip *clip, const gltf_clip_stats *st)
{
    const uint32_t v[] = { RECORD_VERSION,
                           st->animation,
                           st->channels,
                           st->samplers,
                           st->used,
                           st->skipped_weights,
                           st->skipped_outside,
                           st->skipped_other,
                           st->interp[GLTF_LINEAR],
                           st->interp[GLTF_STEP],
                           st->interp[GLTF_CUBIC],
                           st->rate_source,
                           st->clip_index,
                           st->holds,
                           st->step_tracks,
                           st->visibility_tracks,
                           st->cubic_samples };
    uint8_t buf[sizeof v + 2 * 8];
    out o = { buf, 0 };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) put_u32(&o, v[i]);
    put_f64(&o, st->fps);
    put_f64(&o, st->duration);
    clip->native_format = GLTF_FORMAT;
    return finish(f, &o, &clip->native, &clip->native_size);
}

/* ---- details ---------------------------------------------------------------------------------- */

typedef struct rec {
    ganim_reader r;
    int ok;
} rec;

static uint32_t u32(rec *r)
{
    uint32_t v = 0;
    r->ok &= gr_u32le(&r->r, &v);
    return v;
}

static double f64(rec *r)
{
    uint32_t lo = u32(r), hi = u32(r);
    uint64_t u = (uint64_t)hi << 32 | lo;
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* A string of the record, copied into `buf` (NUL-terminated). */
static const char *str(rec *r, char *buf, size_t size)
{
    uint32_t n = u32(r);
    const uint8_t *p;
    buf[0] = 0;
    if (!r->ok || n >= size || !gr_bytes(&r->r, n, &p)) {
        r->ok = 0;
        return buf;
    }
    memcpy(buf, p, n);
    buf[n] = 0;
    return buf;
}

static void names_list(gd_builder *b, const char *key, const char *csv)
{
    gd_list(b, key);
    char one[256];
    for (const char *p = csv; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n >= sizeof one) n = sizeof one - 1;
        memcpy(one, p, n);
        one[n] = 0;
        gd_string(b, NULL, one);
        p += (comma ? (size_t)(comma - p) + 1 : strlen(p));
    }
    gd_end(b);
}

static void doc_details(gd_builder *b, const ganim_doc *doc)
{
    rec r = { gr_init(doc->native, doc->native_size, 0), 1 };
    uint32_t v[17];
    for (int i = 0; i < 17; i++) v[i] = u32(&r);
    double unit = f64(&r);
    char s[9][1100];
    for (int i = 0; i < 9; i++) str(&r, s[i], sizeof s[i]);
    if (!r.ok || v[0] != RECORD_VERSION) return;
    gd_string(b, "container", v[1] ? "glb" : "gltf");
    gd_meaning(b, v[1] ? "binary glTF" : "JSON text");
    gd_group(b, "asset");
    gd_string(b, "version", s[1]);
    gd_string(b, "generator", s[0]);
    if (s[2][0]) gd_string(b, "min_version", s[2]);
    gd_end(b);
    if (s[7][0]) names_list(b, "extensions_used", s[7]);
    if (s[8][0]) names_list(b, "extensions_required", s[8]);
    gd_uint(b, "nodes", v[2]);
    gd_uint(b, "skins", v[3]);
    gd_uint(b, "meshes", v[4]);
    gd_uint(b, "animations", v[5]);
    gd_group(b, "skeleton");
    if (v[6] == GLTF_NONE) {
        gd_null(b, "skin");
        gd_meaning(b, "no skin: the node trees that hold animated nodes");
    } else {
        gd_uint(b, "skin", v[6]);
        if (s[3][0]) gd_string(b, "skin_name", s[3]);
        gd_uint(b, "joints", v[7]);
    }
    gd_uint(b, "bones", v[8]);
    gd_uint(b, "reordered", v[9]);
    gd_meaning(b, "bones moved before the skin order so that parents come first");
    gd_uint(b, "folded", v[10]);
    gd_meaning(b, "bones below nodes that are not bones, whose transforms were folded into them");
    gd_end(b);
    gd_group(b, "buffers_read");
    gd_uint(b, "glb", v[11]);
    gd_uint(b, "data_uri", v[12]);
    gd_uint(b, "external", v[13]);
    gd_end(b);
    if (v[14]) {
        gd_group(b, "ganim");
        gd_string(b, "source_format", s[4]);
        gd_string(b, "axes", s[5]);
        gd_string(b, "axis_conversion", s[6]);
        gd_double(b, "unit_scale", unit);
        gd_bool(b, "undone", (int)v[15]);
        gd_meaning(b, v[15] ? "the values are back in the source's axes and units" : "the values are as stored (Y up)");
        gd_end(b);
        gd_label(b, "written by ganim");
    }
    gd_uint(b, "skipped_channels", v[16]);
    gd_meaning(b, "channels of nodes outside the skeleton, morph weights and other targets");
}

static void clip_details(gd_builder *b, const ganim_clip *c)
{
    rec r = { gr_init(c->native, c->native_size, 0), 1 };
    uint32_t v[17];
    for (int i = 0; i < 17; i++) v[i] = u32(&r);
    double fps = f64(&r), duration = f64(&r);
    if (!r.ok || v[0] != RECORD_VERSION) return;
    static const char *const source[4] = { "ganim", "option", "keys", "default" };
    static const char *const source_words[4] = { "recorded by ganim's exporter", "the caller's rate (--fps)",
                                                 "the first common rate that puts every key on a whole frame",
                                                 "no key says: 30" };
    gd_uint(b, "animation", v[1]);
    gd_uint(b, "channels", v[2]);
    gd_uint(b, "samplers", v[3]);
    gd_uint(b, "channels_read", v[4]);
    gd_group(b, "interpolation");
    gd_uint(b, "LINEAR", v[8]);
    gd_uint(b, "STEP", v[9]);
    gd_uint(b, "CUBICSPLINE", v[10]);
    gd_end(b);
    gd_group(b, "skipped");
    gd_uint(b, "weights", v[5]);
    gd_uint(b, "outside_skeleton", v[6]);
    gd_uint(b, "other", v[7]);
    gd_end(b);
    gd_double(b, "fps", fps);
    gd_string(b, "fps_from", v[11] < 4 ? source[v[11]] : "?");
    gd_meaning(b, v[11] < 4 ? source_words[v[11]] : NULL);
    gd_double(b, "duration", duration);
    gd_meaning(b, "seconds, to the last key");
    if (v[12] != GLTF_NONE) {
        gd_uint(b, "ganim_clip_index", v[12]);
        gd_meaning(b, "the clip's index in the file ganim exported");
    }
    gd_uint(b, "hold_keys", v[13]);
    gd_uint(b, "step_tracks", v[14]);
    gd_uint(b, "visibility_tracks", v[15]);
    gd_uint(b, "cubic_samples", v[16]);
}

ganim_code gltf_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b, ganim_error *err)
{
    (void)level;
    (void)err;
    if (clip < 0) {
        if (doc->native_format && !strcmp(doc->native_format, GLTF_FORMAT) && doc->native) doc_details(b, doc);
        return GANIM_OK;
    }
    const ganim_clip *c = &doc->clips[clip];
    if (c->native_format && !strcmp(c->native_format, GLTF_FORMAT) && c->native) clip_details(b, c);
    return GANIM_OK;
}
