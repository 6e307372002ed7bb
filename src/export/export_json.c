/* JSON views of a document: the lossless dump (`ganim dump`) and the summary
 * (`ganim info --json`). Both are stable interfaces for scripts; docs/dump-format.md is
 * their specification, so any change here must be additive and documented there. */
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "export/export.h"
#include "io/numtext.h"
#include "io/writer.h"

#define DUMP_VERSION 1
#define INFO_VERSION 1

/* Floats print as the shortest text that reads back as the same float32; values JSON
 * cannot hold (NaN, infinities) print as null. */
static void jfloat(ganim_writer *w, float v)
{
    if (isfinite(v)) gw_float(w, v);
    else gw_str(w, "null");
}

static void jfloats(ganim_writer *w, const float *v, int n)
{
    /* a key's few values at once when the buffer has room for the longest text: the bytes
     * the calls below would write, with one room check */
    if (n <= 16 && gw_has_room(w, 2 + (size_t)n * (GNUM_FLOAT_CHARS + 1))) {
        char *o = gw_end(w);
        *o++ = '[';
        for (int i = 0; i < n; i++) {
            if (i) *o++ = ',';
            if (isfinite(v[i])) {
                o += gnum_float(o, v[i]);
            } else {
                memcpy(o, "null", 4);
                o += 4;
            }
        }
        *o++ = ']';
        gw_advance(w, o);
        return;
    }
    gw_u8(w, '[');
    for (int i = 0; i < n; i++) {
        if (i) gw_u8(w, ',');
        jfloat(w, v[i]);
    }
    gw_u8(w, ']');
}

static void jdouble(ganim_writer *w, double v)
{
    if (isfinite(v)) gw_double(w, v);
    else gw_str(w, "null");
}

static void jstring_or_null(ganim_writer *w, const char *s)
{
    if (s) gw_json_string(w, s);
    else gw_str(w, "null");
}

/* Every byte's two hex digits, "00" to "ff". */
static const char HEX2[513] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                              "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                              "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
                              "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
                              "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
                              "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
                              "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
                              "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

static void hex(ganim_writer *w, const uint8_t *p, size_t n)
{
    char chunk[256];
    gw_u8(w, '"');
    for (size_t i = 0; i < n;) {
        size_t k = 0;
        for (; k < sizeof chunk && i < n; i++, k += 2) memcpy(chunk + k, HEX2 + 2 * p[i], 2);
        gw_bytes(w, chunk, k);
    }
    gw_u8(w, '"');
}

/* {"format": ..., "size": n, "hex": "..."} or null: a format-owned record, byte for byte. */
static void native_record(ganim_writer *w, const char *format, const uint8_t *data, size_t size)
{
    if (!format && !size) {
        gw_str(w, "null");
        return;
    }
    gw_str(w, "{\"format\":");
    jstring_or_null(w, format);
    gw_str(w, ",\"size\":");
    gw_dec(w, size);
    gw_str(w, ",\"hex\":");
    hex(w, data, data ? size : 0);
    gw_u8(w, '}');
}

/* A detail tree as compact JSON (members in order; floats as float32 text). */
static void detail_json(ganim_writer *w, const ganim_detail *d)
{
    if (!d) {
        gw_str(w, "null");
        return;
    }
    switch (d->type) {
    case GANIM_DETAIL_NULL: gw_str(w, "null"); break;
    case GANIM_DETAIL_BOOL: gw_str(w, d->value.b ? "true" : "false"); break;
    case GANIM_DETAIL_INT: gw_int(w, (int64_t)d->value.i); break;
    case GANIM_DETAIL_UINT: gw_dec(w, (uint64_t)d->value.u); break;
    case GANIM_DETAIL_FLOAT: jfloat(w, d->value.f); break;
    case GANIM_DETAIL_DOUBLE: jdouble(w, d->value.d); break;
    case GANIM_DETAIL_STRING: gw_json_string(w, d->value.s); break;
    case GANIM_DETAIL_BYTES: hex(w, d->value.bytes.data, d->value.bytes.size); break;
    case GANIM_DETAIL_INTS: {
        uint32_t width = d->value.ints.width;
        char chunk[256];
        size_t at = 0;
        chunk[at++] = '[';
        for (size_t i = 0; i < d->value.ints.count; i++) { /* ",[-2147483648]" is 14 characters */
            int row_start = width > 1 && i % width == 0, row_end = width > 1 && (i + 1) % width == 0;
            if (at > sizeof chunk - 15) gw_bytes(w, chunk, at), at = 0; /* and the closing bracket */
            if (i) chunk[at++] = ',';
            if (row_start) chunk[at++] = '[';
            int32_t v = d->value.ints.data[i];
            if (v < 0) chunk[at++] = '-';
            at = (size_t)(gw_dec_chars(chunk + at, v < 0 ? 0u - (uint32_t)v : (uint32_t)v) - chunk);
            if (row_end) chunk[at++] = ']';
        }
        chunk[at++] = ']';
        gw_bytes(w, chunk, at);
        break;
    }
    case GANIM_DETAIL_LIST:
    case GANIM_DETAIL_GROUP: {
        int group = d->type == GANIM_DETAIL_GROUP;
        gw_u8(w, group ? '{' : '[');
        for (uint32_t i = 0; i < d->count; i++) {
            if (i) gw_u8(w, ',');
            if (group) {
                gw_json_string(w, d->items[i].key ? d->items[i].key : "");
                gw_u8(w, ':');
            }
            detail_json(w, &d->items[i]);
        }
        gw_u8(w, group ? '}' : ']');
        break;
    }
    }
}

ganim_code ganim_detail_json(const ganim_detail *detail, ganim_buffer *out, ganim_error *err)
{
    if (!out) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "detail json: no output buffer");
    size_t at = out->size;
    ganim_writer w = gw_init(out, NULL);
    detail_json(&w, detail);
    if (gw_ok(&w)) return GANIM_OK;
    out->size = at;
    return GANIM_NOMEM(err);
}

/* The format's details of the document (clip < 0) or a clip, or null. */
static ganim_code describe(ganim_writer *w, const ganim_doc *doc, int clip, ganim_details_level level, ganim_error *err)
{
    ganim_details *d = NULL;
    ganim_code code = ganim_doc_details(doc, clip, level, &w->buf->allocator, &d, err);
    if (code != GANIM_OK) return code;
    detail_json(w, d->root);
    ganim_details_free(d);
    return GANIM_OK;
}

static void warnings(ganim_writer *w, const ganim_doc *doc)
{
    gw_str(w, ",\n\"warnings\":[");
    for (uint32_t i = 0; i < doc->warning_count; i++) {
        const ganim_warning *wn = &doc->warnings[i];
        gw_str(w, i ? ",\n {\"offset\":" : "\n {\"offset\":");
        if (wn->offset == GANIM_NO_OFFSET) gw_str(w, "null");
        else gw_dec(w, (uint64_t)wn->offset);
        gw_str(w, ",\"message\":");
        gw_json_string(w, wn->message ? wn->message : "");
        gw_u8(w, '}');
    }
    gw_printf(w, "],\n\"warnings_dropped\":%u", doc->warnings_dropped);
}

static const char *kind_name(ganim_channel_kind k)
{
    switch (k) {
    case GANIM_CHANNEL_CONSTANT: return "constant";
    case GANIM_CHANNEL_PER_FRAME: return "per_frame";
    case GANIM_CHANNEL_KEYED: return "keyed";
    default: return "absent";
    }
}

static double duration(const ganim_clip *c)
{
    return c->frame_count > 1 && c->fps > 0 ? (double)(c->frame_count - 1) / c->fps : 0.0;
}

static void clip_header(ganim_writer *w, const ganim_clip *c, uint32_t ci)
{
    gw_str(w, "{\"index\":");
    gw_dec(w, ci);
    gw_str(w, ",\"name\":");
    gw_json_string(w, c->name);
    gw_str(w, c->kind == GANIM_CLIP_OPAQUE ? ",\"kind\":\"opaque\",\"fps\":" : ",\"kind\":\"animation\",\"fps\":");
    jdouble(w, c->fps);
    gw_str(w, ",\"frame_count\":");
    gw_dec(w, c->frame_count);
    gw_str(w, ",\"duration\":");
    jdouble(w, duration(c));
    gw_str(w, c->rotation_interp == GANIM_INTERP_NLERP ? ",\"rotation_interp\":\"nlerp\""
                                                       : ",\"rotation_interp\":\"slerp\"");
    /* only clips that have one: the clip that plays with this one (its index) */
    if (c->partner) {
        gw_str(w, ",\"partner\":");
        gw_dec(w, c->partner - 1);
    }
}

/* ---- lossless dump ----------------------------------------------------------------------- */

static void channel(ganim_writer *w, const char *key, const ganim_channel *ch, int comps)
{
    uint32_t n = ch->kind == GANIM_CHANNEL_ABSENT ? 0 : ch->count;
    gw_str(w, ",\n   \"");
    gw_str(w, key);
    gw_str(w, "\":{\"kind\":\"");
    gw_str(w, kind_name(ch->kind));
    gw_str(w, "\",\"count\":");
    gw_dec(w, n);
    if (ch->kind == GANIM_CHANNEL_KEYED) {
        gw_str(w, ",\"times\":");
        gw_u8(w, '[');
        for (uint32_t k = 0; k < n; k++) {
            if (k) gw_u8(w, ',');
            jfloat(w, ch->times[k]);
        }
        gw_u8(w, ']');
    }
    gw_str(w, ",\"values\":[");
    for (uint32_t k = 0; k < n; k++) {
        if (k) gw_u8(w, ',');
        jfloats(w, ch->values + (size_t)k * (size_t)comps, comps);
    }
    gw_str(w, "]}");
}

static void bytes_array(ganim_writer *w, const char *key, const uint8_t *p, uint32_t n)
{
    gw_str(w, ",\n   \"");
    gw_str(w, key);
    gw_str(w, "\":");
    if (!p) {
        gw_str(w, "null");
        return;
    }
    gw_u8(w, '[');
    char chunk[256];
    size_t at = 0;
    for (uint32_t k = 0; k < n; k++) { /* "255," is 4 characters: a chunk holds 64 */
        if (at > sizeof chunk - 4) gw_bytes(w, chunk, at), at = 0;
        if (k) chunk[at++] = ',';
        at = (size_t)(gw_dec_chars(chunk + at, p[k]) - chunk);
    }
    gw_bytes(w, chunk, at);
    gw_u8(w, ']');
}

static void dump_skeleton(ganim_writer *w, const ganim_skeleton *sk)
{
    gw_str(w, ",\n\"skeleton\":");
    if (!sk) {
        gw_str(w, "null");
        return;
    }
    gw_str(w, "{\"name\":");
    gw_json_string(w, sk->name);
    gw_printf(w, ",\"bone_count\":%u,\"bones\":[", sk->bone_count);
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        const ganim_bone *b = &sk->bones[i];
        gw_str(w, i ? ",\n {\"index\":" : "\n {\"index\":");
        gw_dec(w, i);
        gw_str(w, ",\"name\":");
        gw_json_string(w, b->name);
        gw_str(w, ",\"parent\":");
        gw_int(w, (int)b->parent);
        gw_str(w, ",\"rest\":{\"rotation\":");
        jfloats(w, &b->rest.rotation.x, 4);
        gw_str(w, ",\"translation\":");
        jfloats(w, &b->rest.translation.x, 3);
        gw_str(w, ",\"scale\":");
        jfloats(w, &b->rest.scale.x, 3);
        gw_str(w, "},\"flags\":");
        gw_dec(w, b->flags);
        gw_u8(w, '}');
    }
    gw_str(w, "],\n \"native_record\":");
    native_record(w, sk->native_format, sk->native, sk->native_size);
    gw_u8(w, '}');
}

static ganim_code dump_clip(ganim_writer *w, const ganim_doc *doc, uint32_t ci, ganim_error *err)
{
    const ganim_clip *c = &doc->clips[ci];
    clip_header(w, c, ci);
    gw_str(w, ",\"track_count\":");
    gw_dec(w, c->track_count);
    gw_str(w, ",\"tracks\":[");
    for (uint32_t ti = 0; ti < c->track_count; ti++) {
        const ganim_track *t = &c->tracks[ti];
        gw_str(w, ti ? ",\n  {\"bone\":" : "\n  {\"bone\":");
        gw_dec(w, t->bone);
        gw_str(w, ",\"name\":");
        gw_json_string(w, t->name ? t->name : "");
        channel(w, "rotation", &t->rotation, 4);
        channel(w, "translation", &t->translation, 3);
        channel(w, "scale", &t->scale, 3);
        bytes_array(w, "visibility", t->visibility, c->frame_count);
        bytes_array(w, "step", t->step, c->frame_count);
        gw_u8(w, '}');
    }
    gw_u8(w, ']');
    if (c->event_count) { /* only clips that have events: older dumps stay as they were */
        gw_str(w, ",\n  \"events\":[");
        for (uint32_t k = 0; k < c->event_count; k++) {
            gw_str(w, k ? ",{\"frame\":" : "{\"frame\":");
            jfloat(w, c->events[k].frame);
            gw_str(w, ",\"id\":");
            gw_dec(w, c->events[k].id);
            gw_u8(w, '}');
        }
        gw_u8(w, ']');
    }
    gw_str(w, ",\n  \"opaque_hex\":");
    if (c->kind == GANIM_CLIP_OPAQUE) hex(w, c->opaque, c->opaque ? c->opaque_size : 0);
    else gw_str(w, "null");
    gw_str(w, ",\n  \"native_record\":");
    native_record(w, c->native_format, c->native, c->native_size);
    gw_str(w, ",\n  \"native\":");
    ganim_code code = describe(w, doc, (int)ci, GANIM_DETAILS_FULL, err);
    gw_u8(w, '}');
    return code;
}

static void uints(ganim_writer *w, const uint32_t *v, size_t n)
{
    gw_u8(w, '[');
    char chunk[256];
    size_t at = 0;
    for (size_t k = 0; k < n; k++) { /* ",4294967295" is 11 characters */
        if (at > sizeof chunk - 11) gw_bytes(w, chunk, at), at = 0;
        if (k) chunk[at++] = ',';
        at = (size_t)(gw_dec_chars(chunk + at, v[k]) - chunk);
    }
    gw_bytes(w, chunk, at);
    gw_u8(w, ']');
}

/* Only documents that hold meshes have the member: older dumps stay as they were. */
static void dump_meshes(ganim_writer *w, const ganim_doc *doc)
{
    gw_str(w, ",\n\"meshes\":[");
    for (uint32_t mi = 0; mi < doc->mesh_count; mi++) {
        const ganim_mesh *m = &doc->meshes[mi];
        gw_str(w, mi ? ",\n {\"name\":" : "\n {\"name\":");
        gw_json_string(w, m->name);
        gx_text_dec(w, ",\"vertex_count\":", m->vertex_count);
        gx_text_dec(w, ",\"triangle_count\":", m->triangle_count);
        gw_str(w, ",\n  \"positions\":[");
        for (uint32_t v = 0; v < m->vertex_count; v++) {
            if (v) gw_u8(w, ',');
            jfloats(w, m->positions + (size_t)v * 3, 3);
        }
        gw_str(w, "],\n  \"normals\":");
        if (m->normals) {
            gw_u8(w, '[');
            for (uint32_t v = 0; v < m->vertex_count; v++) {
                if (v) gw_u8(w, ',');
                jfloats(w, m->normals + (size_t)v * 3, 3);
            }
            gw_u8(w, ']');
        } else {
            gw_str(w, "null");
        }
        gw_str(w, ",\n  \"bones\":");
        uints(w, m->bones, m->vertex_count);
        gw_str(w, ",\n  \"triangles\":");
        uints(w, m->triangles, (size_t)m->triangle_count * 3);
        gw_u8(w, '}');
    }
    gw_u8(w, ']');
}

static void doc_header(ganim_writer *w, const ganim_doc *doc, const ganim_export_opts *o, const char *key, int version)
{
    gw_printf(w, "{\"%s\":%d,\n\"generator\":", key, version);
    gw_json_string(w, gx_generator(o));
    gw_str(w, ",\n\"format\":");
    jstring_or_null(w, doc->format ? doc->format->name : NULL);
    gw_str(w, ",\n\"axes\":");
    gw_json_string(w, ganim_axes_name(doc->axes));
}

typedef ganim_code (*body_fn)(ganim_writer *w, const ganim_doc *doc, const ganim_export_opts *o, ganim_error *err);

/* Shared frame: checks, writer, rollback of `out` on failure. */
static ganim_code run(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *out, ganim_error *err,
                      const char *who, body_fn body)
{
    ganim_export_opts o = { 0 };
    if (opts) o = *opts;
    if (!out) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "%s: no output buffer", who);
    ganim_code code = gx_check_doc(doc, who, err);
    if (code != GANIM_OK) return code;
    if ((code = gx_check_clip(doc, &o, who, 0, err)) != GANIM_OK) return code;
    ganim_allocator a = ganim_allocator_resolve(&o.allocator);
    size_t out0 = out->size;
    ganim_writer w = gw_init(out, &a);
    code = body(&w, doc, &o, err);
    if (code == GANIM_OK && !gw_ok(&w)) code = GANIM_NOMEM(err);
    if (code != GANIM_OK) out->size = out0;
    return code;
}

static ganim_code dump_body(ganim_writer *w, const ganim_doc *doc, const ganim_export_opts *o, ganim_error *err)
{
    doc_header(w, doc, o, "ganim_dump", DUMP_VERSION);
    dump_skeleton(w, doc->skeleton);
    gw_str(w, ",\n\"clips\":[");
    int first = 1;
    for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
        if (!gx_clip_selected(doc, o, ci, 0)) continue;
        gw_str(w, first ? "\n " : ",\n ");
        first = 0;
        ganim_code code = dump_clip(w, doc, ci, err);
        if (code != GANIM_OK) return code;
        if (!gw_ok(w)) return GANIM_NOMEM(err);
    }
    gw_u8(w, ']');
    if (doc->mesh_count) dump_meshes(w, doc);
    gw_str(w, ",\n\"native_record\":");
    native_record(w, doc->native_format, doc->native, doc->native_size);
    gw_str(w, ",\n\"native\":");
    ganim_code code = describe(w, doc, -1, GANIM_DETAILS_FULL, err);
    if (code != GANIM_OK) return code;
    warnings(w, doc);
    gw_str(w, "}\n");
    return GANIM_OK;
}

ganim_code ganim_export_json(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *out, ganim_error *err)
{
    return run(doc, opts, out, err, "json", dump_body);
}

/* ---- summary ----------------------------------------------------------------------------- */

static ganim_code info_body(ganim_writer *w, const ganim_doc *doc, const ganim_export_opts *o, ganim_error *err)
{
    doc_header(w, doc, o, "ganim_info", INFO_VERSION);
    const ganim_skeleton *sk = doc->skeleton;
    gw_str(w, ",\n\"skeleton\":");
    if (sk) {
        gw_str(w, "{\"name\":");
        gw_json_string(w, sk->name);
        gw_str(w, ",\"file\":");
        jstring_or_null(w, doc->skeleton_file);
        gw_printf(w, ",\"bone_count\":%u,\"names\":[", sk->bone_count);
        for (uint32_t i = 0; i < sk->bone_count; i++) {
            if (i) gw_u8(w, ',');
            gw_json_string(w, sk->bones[i].name);
        }
        gw_str(w, "]}");
    } else {
        gw_str(w, "null");
    }
    gw_printf(w, ",\n\"clip_count\":%u,\n\"clips\":[", doc->clip_count);
    int first = 1;
    for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
        if (!gx_clip_selected(doc, o, ci, 0)) continue;
        const ganim_clip *c = &doc->clips[ci];
        uint32_t present[3] = { 0, 0, 0 }, animated[3] = { 0, 0, 0 }, vis = 0, step = 0;
        for (uint32_t ti = 0; ti < c->track_count; ti++) {
            const ganim_track *t = &c->tracks[ti];
            const ganim_channel *ch[3] = { &t->rotation, &t->translation, &t->scale };
            for (int k = 0; k < 3; k++) {
                present[k] += ch[k]->kind != GANIM_CHANNEL_ABSENT;
                animated[k] += ch[k]->kind == GANIM_CHANNEL_PER_FRAME || ch[k]->kind == GANIM_CHANNEL_KEYED;
            }
            vis += t->visibility != NULL;
            step += t->step != NULL;
        }
        gw_str(w, first ? "\n " : ",\n ");
        first = 0;
        clip_header(w, c, ci);
        gx_text_dec(w, ",\"track_count\":", c->track_count);
        gx_text_dec(w, ",\"channels\":{\"rotation\":", present[0]);
        gx_text_dec(w, ",\"translation\":", present[1]);
        gx_text_dec(w, ",\"scale\":", present[2]);
        gx_text_dec(w, ",\"visibility\":", vis);
        gx_text_dec(w, ",\"step\":", step);
        gx_text_dec(w, "},\"animated\":{\"rotation\":", animated[0]);
        gx_text_dec(w, ",\"translation\":", animated[1]);
        gx_text_dec(w, ",\"scale\":", animated[2]);
        gw_u8(w, '}');
        if (c->event_count) gx_text_dec(w, ",\"event_count\":", c->event_count);
        gx_text_dec(w, ",\"opaque_size\":", c->kind == GANIM_CLIP_OPAQUE ? c->opaque_size : (size_t)0);
        gw_str(w, ",\"native\":");
        ganim_code code = describe(w, doc, (int)ci, GANIM_DETAILS_SUMMARY, err);
        if (code != GANIM_OK) return code;
        gw_u8(w, '}');
    }
    gw_u8(w, ']');
    if (doc->mesh_count) { /* only documents with meshes have the member */
        gw_str(w, ",\n\"meshes\":[");
        for (uint32_t mi = 0; mi < doc->mesh_count; mi++) {
            gw_str(w, mi ? ",{\"name\":" : "{\"name\":");
            gw_json_string(w, doc->meshes[mi].name);
            gx_text_dec(w, ",\"vertex_count\":", doc->meshes[mi].vertex_count);
            gx_text_dec(w, ",\"triangle_count\":", doc->meshes[mi].triangle_count);
            gw_u8(w, '}');
        }
        gw_u8(w, ']');
    }
    gw_str(w, ",\n\"native\":");
    ganim_code code = describe(w, doc, -1, GANIM_DETAILS_SUMMARY, err);
    if (code != GANIM_OK) return code;
    warnings(w, doc);
    gw_str(w, "}\n");
    return GANIM_OK;
}

ganim_code ganim_export_info_json(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *out,
                                  ganim_error *err)
{
    return run(doc, opts, out, err, "info", info_body);
}
