/* glTF 2.0 exporter. The skeleton becomes a node hierarchy (rest pose as node TRS) with a
 * skin, plus a small skinned mesh of bone sticks so every viewer draws something; each
 * animation clip becomes one glTF animation. The JSON text and the binary buffer are
 * written in one run: every accessor gets its own bufferView, appended as it is made.
 * Streamed (export_stream), a first run measures and a second hands every piece to a sink
 * at its place, so neither the file nor its binary buffer is held.
 * Conventions (axis conversion on root bones, step bits as hold keys, visibility as STEP
 * scale keys) are named in asset.extras.ganim and described in docs/dump-format.md. */
#include "export/export_gltf.h"
#include "formats/format.h"

/* ---- document --------------------------------------------------------------------------- */

static void write_uri(ganim_writer *w, const char *uri)
{
    static const char hex[] = "0123456789ABCDEF";
    gw_u8(w, '"');
    for (const unsigned char *p = (const unsigned char *)uri; *p; p++) {
        unsigned char ch = *p;
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || strchr("-._~/", ch)) {
            gw_u8(w, ch);
        } else {
            char e[3] = { '%', hex[ch >> 4], hex[ch & 15] };
            gw_bytes(w, e, 3);
        }
    }
    gw_u8(w, '"');
}

/* The group "conventions" of the document's details, when its format reports one (how it
 * turned the file's numbers into the model), as JSON text appended to `w`. */
static ganim_code write_conventions(gl *g, ganim_writer *w)
{
    ganim_details *d = NULL;
    ganim_doc as = *g->doc; /* a document read from ganim's glTF: the details of its source format */
    const ganim_format *src = as.native_format ? ganim_format_find(as.native_format) : NULL;
    if (src && as.format && src != as.format && as.format->name && !strcmp(as.format->name, "gltf")) as.format = src;
    /* validated by the export's check (gx_check_doc): not again */
    ganim_code code = gd_doc_details_valid(&as, -1, GANIM_DETAILS_SUMMARY, &g->alloc, &d, g->err);
    if (code != GANIM_OK) return code;
    const ganim_detail *root = d->root;
    for (uint32_t i = 0; root && root->type == GANIM_DETAIL_GROUP && i < root->count; i++) {
        const ganim_detail *m = &root->items[i];
        if (!m->key || strcmp(m->key, "conventions") != 0) continue;
        gw_str(w, ",\"conventions\":");
        ganim_buffer tmp = { 0 };
        tmp.allocator = g->alloc;
        code = ganim_detail_json(m, &tmp, g->err);
        gw_bytes(w, tmp.data, tmp.size);
        ganim_buffer_free(&tmp);
        break;
    }
    ganim_details_free(d);
    return code;
}

static ganim_code write_asset(gl *g)
{
    ganim_writer *w = &g->js;
    gw_str(w, "{\"asset\":{\"version\":\"2.0\",\"generator\":");
    gw_json_string(w, gx_generator(&g->o));
    gw_str(w, ",\"extras\":{\"ganim\":{\"source_format\":");
    ganim_code code = gl_carry_source_format(g, w);
    if (code != GANIM_OK) return code;
    gw_str(w, ",\"axes\":");
    gw_json_string(w, ganim_axes_name(g->doc->axes));
    gw_str(w, ",\"axis_conversion\":");
    gw_json_string(w, g->cv.description);
    gw_str(w, ",\"unit_scale\":");
    gw_double(w, g->cv.unit);
    gw_printf(w, ",\"visibility\":\"%s\",\"step\":\"hold keys\"",
              g->o.visibility == GANIM_VIS_IGNORE ? "ignore" : "scale");
    code = write_conventions(g, w);
    gl_carry_asset(g);
    gw_str(w, "}}}");
    return code;
}

/* The scene's extras.ganim: the frame rate and frame count of the first animation and of
 * each (name, fps, frame_count). Blender keeps a scene's extras (Scene > Custom
 * Properties) and drops the asset's and the animations': it is where a Blender user finds
 * the rate to set before importing (docs/clients.md). */
static void scene_rates(gl *g)
{
    const ganim_doc *doc = g->doc;
    ganim_writer *w = &g->js;
    char name[256];
    int first = 1;
    for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
        if (!gx_clip_selected(doc, &g->o, ci, 1) || (g->absorbed && g->absorbed[ci])) continue;
        const ganim_clip *c = &doc->clips[ci];
        if (first) {
            gw_str(w, ",\"extras\":{\"ganim\":{\"fps\":");
            gw_double(w, c->fps);
            gx_text_dec(w, ",\"frame_count\":", gx_span(doc, ci));
            gw_str(w, ",\"animations\":[");
        }
        const char *n = gx_anim_name(doc, &g->o, ci, name, sizeof name);
        gw_str(w, first ? "{\"name\":" : ",{\"name\":");
        if (n[0]) gw_json_string(w, n);
        else {
            gx_text_dec(w, "\"clip_", ci);
            gw_u8(w, '"');
        }
        gw_str(w, ",\"fps\":");
        gw_double(w, c->fps);
        gx_text_dec(w, ",\"frame_count\":", gx_span(doc, ci));
        gw_u8(w, '}');
        first = 0;
    }
    if (!first) gw_str(w, "]}}");
}

/* The accessors' or the bufferViews' entries, written to their own writer as they were
 * made, into the JSON: copied; streamed, they went to the sink at their place (`start`,
 * which a measuring run found here: `at`), and the JSON moves past them. */
static void put_entries(gl *g, ganim_writer *list, size_t start, size_t *at)
{
    if (!list->sink) {
        gw_bytes(&g->js, list->buf->data, list->buf->size);
        return;
    }
    *at = gw_pos(&g->js);
    gw_flush(list);
    gw_skip(&g->js, gw_pos(list) - start);
}

static ganim_code build(gl *g, const char *uri)
{
    const ganim_doc *doc = g->doc;
    ganim_code code = write_asset(g);
    if (code != GANIM_OK) return code;
    gw_str(&g->js, ",\"scene\":0,\"scenes\":[{\"name\":");
    gw_json_string(&g->js, g->sk && g->sk->name[0] ? g->sk->name : "ganim");
    if (g->nb) {
        gw_printf(&g->js, ",\"nodes\":[%u", g->root_node);
        for (uint32_t k = 0; k < (g->mesh_nodes ? g->mesh_nodes : 1); k++)
            gx_text_dec(&g->js, ",", g->nb + (uint32_t)g->extra_root + k);
        gw_u8(&g->js, ']');
        scene_rates(g);
        gw_str(&g->js, "}]");
        if ((code = gl_convert_rest(g)) != GANIM_OK) return code;
        gl_write_nodes(g);
        if ((code = gl_write_skeleton(g)) != GANIM_OK) return code;
        int first = 1;
        for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
            if (!gx_clip_selected(doc, &g->o, ci, 1) || (g->absorbed && g->absorbed[ci])) continue;
            gw_str(&g->js, first ? ",\"animations\":[" : "");
            if ((code = gl_write_clip(g, ci, first)) != GANIM_OK) return code;
            first = 0;
        }
        if (!first) gw_u8(&g->js, ']');
    } else {
        gw_str(&g->js, "}]");
    }
    size_t bin_len = gl_bin_align(g) - g->bin_base;
    if (bin_len) {
        gw_str(&g->js, ",\"accessors\":[");
        put_entries(g, &g->acc, g->acc_start, &g->acc_at);
        gw_str(&g->js, "],\"bufferViews\":[");
        put_entries(g, &g->views, g->views_start, &g->views_at);
        gw_printf(&g->js, "],\"buffers\":[{\"byteLength\":%zu", bin_len);
        if (uri) {
            gw_str(&g->js, ",\"uri\":");
            write_uri(&g->js, uri);
        }
        gw_str(&g->js, "}]");
    }
    gw_u8(&g->js, '}');
    if (!gw_ok(&g->js) || !gw_ok(&g->bin) || !gw_ok(&g->acc) || !gw_ok(&g->views)) return GANIM_NOMEM(g->err);
    return GANIM_OK;
}

/* g->hide (export_gltf.h), from the skeleton's flags and the clips' visibility. */
static void hidden_make(gl *g)
{
    const ganim_skeleton *sk = g->sk;
    uint8_t *shown_below = g->hide; /* first: 1 when the bone or one below it is shown */
    for (uint32_t b = 0; b < g->nb; b++) shown_below[b] = !(sk->bones[b].flags & GANIM_BONE_HIDDEN);
    for (uint32_t ci = 0; ci < g->doc->clip_count; ci++) {
        const ganim_clip *c = &g->doc->clips[ci];
        for (uint32_t ti = 0; c->kind == GANIM_CLIP_ANIMATION && ti < c->track_count; ti++)
            if (c->tracks[ti].visibility && c->tracks[ti].bone < g->nb) shown_below[c->tracks[ti].bone] = 1;
    }
    for (uint32_t b = g->nb; b-- > 0;) {
        int32_t p = sk->bones[b].parent;
        if (p >= 0 && (uint32_t)p < b && shown_below[b]) shown_below[p] = 1;
    }
    for (uint32_t b = 0; b < g->nb; b++) {
        int hidden = (sk->bones[b].flags & GANIM_BONE_HIDDEN) != 0;
        for (uint32_t ci = 0; hidden && ci < g->doc->clip_count; ci++) {
            const ganim_clip *c = &g->doc->clips[ci];
            for (uint32_t ti = 0; hidden && c->kind == GANIM_CLIP_ANIMATION && ti < c->track_count; ti++)
                hidden = !(c->tracks[ti].bone == b && c->tracks[ti].visibility);
        }
        g->hide[b] = !hidden ? GL_SHOWN : shown_below[b] ? GL_HIDE_JOINT : GL_HIDE_SCALE;
    }
}

/* Where one run of the export writes. Buffered: the JSON appended to `json`, the binary
 * buffer to `bin`. Streamed (`stream`): every writer holds one piece at a time and hands
 * it to a sink at its position: the JSON from `json_at` (its accessors' and bufferViews'
 * entries at `acc_at`, `views_at`, which a measuring run finds: 0 there), the binary
 * buffer from `bin_at`; sinks of NULL drop the bytes (the measuring run). */
typedef struct gl_target {
    ganim_buffer *json, *bin; /* buffered */
    int stream;
    gw_sink_fn json_sink, bin_sink;
    void *json_ctx, *bin_ctx;
    size_t json_at, bin_at, acc_at, views_at;
    size_t json_end, bin_end; /* streamed: the positions after the JSON and the binary buffer */
} gl_target;

/* One run of the export over a checked document (gx_check_doc, gx_check_clip). */
static ganim_code run(const ganim_doc *doc, const ganim_export_opts *o, gl_target *t, const char *uri, ganim_error *err)
{
    ganim_code code = GANIM_OK;
    gl g0 = { 0 }, *g = &g0;
    g->o = *o;
    g->doc = doc;
    g->err = err;
    g->alloc = ganim_allocator_resolve(&g->o.allocator);
    g->sk = doc->skeleton && doc->skeleton->bone_count ? doc->skeleton : NULL;
    g->nb = g->sk ? g->sk->bone_count : 0;
    g->cv = gx_conv_make(doc, &g->o);
    uint32_t roots = 0;
    for (uint32_t i = 0; i < g->nb; i++) roots += g->sk->bones[i].parent < 0;
    g->extra_root = roots > 1;
    g->root_node = g->extra_root ? g->nb : 0; /* bone 0 is always a root */
    if (t->stream) {
        g->js = gw_sink_init(&g->js_buf, &g->alloc, t->json_at, t->json_sink, t->json_ctx);
        g->bin = gw_sink_init(&g->bin_buf, &g->alloc, t->bin_at, t->bin_sink, t->bin_ctx);
        g->acc = gw_sink_init(&g->acc_buf, &g->alloc, t->acc_at, t->json_sink, t->json_ctx);
        g->views = gw_sink_init(&g->views_buf, &g->alloc, t->views_at, t->json_sink, t->json_ctx);
        g->acc_start = t->acc_at;
        g->views_start = t->views_at;
    } else {
        g->js = gw_init(t->json, &g->alloc);
        g->bin = gw_init(t->bin, &g->alloc);
        g->acc = gw_init(&g->acc_buf, &g->alloc);
        g->views = gw_init(&g->views_buf, &g->alloc);
    }
    g->bin_base = gw_pos(&g->bin);
    g->chans = gw_init(&g->chans_buf, &g->alloc);
    g->samps = gw_init(&g->samps_buf, &g->alloc);
    /* extra node names: the common root, then the mesh nodes (the bone sticks, or one per
     * mesh of the document) */
    for (uint32_t mi = 0; g->nb && mi < doc->mesh_count; mi++)
        g->mesh_nodes += (uint32_t)gl_mesh_exported(&doc->meshes[mi]);
    uint32_t nextra = 1 + (g->mesh_nodes ? g->mesh_nodes : 1);
    size_t extra_bytes = (size_t)nextra * sizeof(const char *);
    const char **extra = ganim_alloc(&g->alloc, extra_bytes);
    size_t rest_bytes = (size_t)g->nb * sizeof *g->rest, track_bytes = (size_t)g->nb * sizeof *g->bone_track;
    if (!extra) code = GANIM_NOMEM(err);
    if (code == GANIM_OK && g->nb) {
        extra[0] = "ganim_root";
        extra[1] = "ganim_bones";
        for (uint32_t mi = 0, k = 1; g->mesh_nodes && mi < doc->mesh_count; mi++)
            if (gl_mesh_exported(&doc->meshes[mi]))
                extra[k++] = doc->meshes[mi].name[0] ? doc->meshes[mi].name : "mesh";
        g->rest = ganim_alloc(&g->alloc, rest_bytes);
        g->bone_track = ganim_alloc(&g->alloc, track_bytes);
        g->hide = ganim_alloc(&g->alloc, g->nb);
        if (g->hide) hidden_make(g);
        if (!g->rest || !g->bone_track || !g->hide ||
            !gx_absorbed_make(&g->alloc, doc, &g->o, &g->absorbed, &g->absorbed_size) ||
            !gx_names_make(&g->alloc, g->sk, extra, nextra, &g->names) || !gx_children_make(&g->alloc, g->sk, &g->kids))
            code = GANIM_NOMEM(err);
    }
    ganim_free(&g->alloc, extra, extra_bytes);
    if (code == GANIM_OK) code = build(g, uri);
    if (code == GANIM_OK && g->nonfinite)
        code = ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "gltf: a value of accessor %u is not a finite number: the document's values overflow a "
                          "32-bit float once combined (world positions, unit conversion); not written",
                          g->nonfinite_acc);
    if (t->stream) {
        gw_flush(&g->js);
        gw_flush(&g->bin);
        if (code == GANIM_OK && (!gw_ok(&g->js) || !gw_ok(&g->bin) || !gw_ok(&g->acc) || !gw_ok(&g->views)))
            code = GANIM_NOMEM(err); /* a sink's refusal is the caller's to name (export_stream) */
        t->json_end = gw_pos(&g->js);
        t->bin_end = gw_pos(&g->bin);
        t->acc_at = g->acc_at;
        t->views_at = g->views_at;
    }
    ganim_free(&g->alloc, g->rest, rest_bytes);
    ganim_free(&g->alloc, g->bone_track, track_bytes);
    ganim_free(&g->alloc, g->hide, g->nb);
    ganim_free(&g->alloc, g->absorbed, g->absorbed_size);
    if (g->names.name) gx_names_free(&g->alloc, &g->names);
    if (g->kids.first) gx_children_free(&g->alloc, &g->kids);
    ganim_free(&g->alloc, g->map, g->keys_cap * sizeof *g->map);
    ganim_free(&g->alloc, g->times, g->keys_cap * sizeof *g->times);
    ganim_free(&g->alloc, g->at, g->keys_cap * sizeof *g->at);
    ganim_buffer_free(&g->js_buf);
    ganim_buffer_free(&g->bin_buf);
    ganim_buffer_free(&g->acc_buf);
    ganim_buffer_free(&g->views_buf);
    ganim_buffer_free(&g->chans_buf);
    ganim_buffer_free(&g->samps_buf);
    return code;
}

/* What one run is likely to write, from the document alone, so that its writers take
 * their room once instead of growing (each growth a copy, and fresh pages): the JSON
 * (base64 of every record, and about 320 bytes a channel (absent ones are written: the rest), 256 a bone, 1 KiB a clip) and
 * the binary buffer (each channel's keys: a frame each when baked, two when held, a time
 * a key when keyed; the clips' frame times; 160 bytes a bone). Only memory and
 * speed depend on it: a run that needs more grows as before, and what is not written is
 * only address space. */
static size_t sat_add(size_t a, size_t b) { return b > SIZE_MAX - a ? SIZE_MAX : a + b; }

static size_t b64_len(size_t n) { return n > SIZE_MAX / 2 ? SIZE_MAX : (n + 2) / 3 * 4 + 96; }

static void gl_hint(const ganim_doc *doc, const ganim_export_opts *o, size_t *json, size_t *bin)
{
    const ganim_skeleton *sk = doc->skeleton;
    size_t js = 4096 + b64_len(doc->native_size), bn = 0;
    if (sk) {
        js = sat_add(js, sat_add(b64_len(sk->native_size), (size_t)sk->bone_count * 256u));
        bn = (size_t)sk->bone_count * 160u; /* inverse bind matrices, the bones' sticks */
    }
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *c = &doc->clips[i];
        js = sat_add(js, sat_add(b64_len(c->native_size), b64_len(c->opaque_size)));
        if (c->kind != GANIM_CLIP_ANIMATION || !gx_clip_selected(doc, o, i, 1)) continue;
        size_t span = gx_span(doc, i);
        js = sat_add(js, 1024);
        bn = sat_add(bn, span > SIZE_MAX / 8 ? SIZE_MAX : span * 8u + 64u); /* the clip's frame times */
        for (uint32_t t = 0; t < c->track_count; t++) {
            const ganim_track *tr = &c->tracks[t];
            const ganim_channel *chs[3] = { &tr->rotation, &tr->translation, &tr->scale };
            for (int k = 0; k < 3; k++) {
                const ganim_channel *ch = chs[k];
                int doubled = tr->step || (ch->kind == GANIM_CHANNEL_KEYED && o->sparse_keys);
                size_t keys = ch->kind == GANIM_CHANNEL_CONSTANT || ch->kind == GANIM_CHANNEL_ABSENT ? 2
                              : ch->kind == GANIM_CHANNEL_KEYED && !doubled ? sat_add(span, ch->count)
                                                                            : ch->count;
                if (k == 2 && tr->visibility && keys < span) keys = span; /* visibility: scale keys */
                if (doubled) keys = sat_add(keys, keys);
                size_t each = (k == 0 ? 16u : 12u) + (ch->kind == GANIM_CHANNEL_KEYED ? 4u : 0u);
                js = sat_add(js, 320);
                bn = sat_add(bn, keys > SIZE_MAX / each ? SIZE_MAX : keys * each);
            }
        }
    }
    *json = js;
    *bin = sat_add(bn, bn / 8 + 4096); /* times the estimate misses (clips' ends, held keys) */
}

/* Room for `extra` more bytes in `buf` if the allocator gives it (at most 1 GiB: a hint,
 * not a need): a refusal leaves the buffer as it was and the run to grow it. */
static void gl_room(ganim_buffer *buf, const ganim_allocator *alloc, size_t extra)
{
    if (extra > ((size_t)1 << 30)) extra = (size_t)1 << 30;
    if (!buf->data) buf->allocator = ganim_allocator_resolve(alloc); /* as gw_init takes it */
    if (extra <= buf->capacity - buf->size) return;
    size_t cap = buf->size + extra;
    ganim_allocator a = ganim_allocator_resolve(&buf->allocator);
    uint8_t *p = ganim_realloc(&a, buf->data, buf->capacity, cap);
    if (!p) return;
    buf->data = p;
    buf->capacity = cap;
}

/* The document and the options checked once for every run; `o` gets the options. */
static ganim_code check(const ganim_doc *doc, const ganim_export_opts *opts, ganim_export_opts *o, ganim_error *err)
{
    ganim_export_opts defaults = { 0 };
    *o = opts ? *opts : defaults;
    ganim_code code = gx_check_doc(doc, "gltf", err);
    return code != GANIM_OK ? code : gx_check_clip(doc, o, "gltf", 1, err);
}

/* Appends the glTF JSON to `json` and the binary buffer to `bin` (one run; the document
 * and the options `o` checked). */
static ganim_code export_gltf(const ganim_doc *doc, const ganim_export_opts *o, ganim_buffer *json, ganim_buffer *bin,
                              const char *uri, ganim_error *err)
{
    size_t json0 = json->size, bin0 = bin->size, json_hint, bin_hint;
    ganim_allocator a = ganim_allocator_resolve(&o->allocator);
    gl_hint(doc, o, &json_hint, &bin_hint);
    gl_room(json, &a, json_hint);
    gl_room(bin, &a, bin_hint);
    gl_target t = { 0 };
    t.json = json;
    t.bin = bin;
    ganim_code code = run(doc, o, &t, uri, err);
    if (code != GANIM_OK) { /* leave the caller's buffers as they were */
        json->size = json0;
        bin->size = bin0;
    }
    return code;
}

/* ---- streamed: a measuring run, then a writing run ---------------------------------------- */

/* The caller's sink; the first refusal is kept, and every later write refused. */
typedef struct gl_sink {
    ganim_export_sink sink;
    void *user;
    int refused;
    uint32_t refused_part;
    uint64_t refused_at;
} gl_sink;

/* One part of the output, as a writer's sink. */
typedef struct gl_part {
    gl_sink *s;
    uint32_t part;
} gl_part;

static bool part_sink(void *ctx, size_t offset, const void *data, size_t n)
{
    gl_part *p = ctx;
    gl_sink *s = p->s;
    if (!s->refused && s->sink(s->user, p->part, (uint64_t)offset, data, n) != 0) {
        s->refused = 1;
        s->refused_part = p->part;
        s->refused_at = (uint64_t)offset;
    }
    return !s->refused;
}

/* The .glb (glb) or the .gltf and its .bin through `sink`. The first run measures (its
 * writers drop their bytes, keeping the positions: the JSON's length, where its
 * accessors' and bufferViews' entries go, the binary buffer's length) and is the one that
 * can fail on the document's values; the second writes every byte at its place, each
 * writer holding one piece at a time. Warnings come from the first run. */

static ganim_code export_stream(const ganim_doc *doc, const ganim_export_opts *opts, int glb, const char *uri,
                                ganim_export_sink sink, void *user, ganim_error *err)
{
    ganim_export_opts o = *opts; /* checked */
    ganim_code code;
    gl_target m = { 0 };
    m.stream = 1;
    m.json_at = glb ? 20 : 0;
    if ((code = run(doc, &o, &m, uri, err)) != GANIM_OK) return code;
    size_t json_size = m.json_end - m.json_at, bin_size = m.bin_end, jpad = (4 - json_size % 4) % 4;
    size_t bin_at = glb ? 20 + json_size + jpad + 8 : 0, total = bin_size ? bin_at + bin_size : 20 + json_size + jpad;
    if (glb && total > UINT32_MAX)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, "gltf: %zu bytes do not fit in a .glb (4 GiB at most)",
                          total);
    gl_sink out = { sink, user, 0, 0, 0 };
    gl_part p0 = { &out, 0 }, p1 = { &out, glb ? 0u : 1u };
    if (glb) {
        uint8_t h[20];
        const uint32_t v[5] = { 0x46546C67u /* "glTF" */, 2, (uint32_t)total, (uint32_t)(json_size + jpad),
                                0x4E4F534Au /* "JSON" */ };
        for (int i = 0; i < 20; i++) h[i] = (uint8_t)(v[i / 4] >> (8 * (i % 4)));
        part_sink(&p0, 0, h, sizeof h);
    }
    gl_target w = m;
    w.json_sink = w.bin_sink = part_sink;
    w.json_ctx = &p0;
    w.bin_ctx = &p1;
    w.bin_at = bin_at;
    o.warn = NULL; /* given by the measuring run */
    if (!out.refused) code = run(doc, &o, &w, uri, err);
    if (code == GANIM_OK && !out.refused &&
        (w.json_end != m.json_end || w.bin_end != bin_at + bin_size || w.acc_at != m.acc_at ||
         w.views_at != m.views_at))
        code = ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "gltf: the document changed while it was written (the output differs from its measure)");
    if (code == GANIM_OK && glb) {
        uint8_t tail[12] = { ' ', ' ', ' ', 0, 0, 0, 0, 'B', 'I', 'N', 0, 0 };
        uint32_t chunk = (uint32_t)bin_size;
        for (int i = 0; i < 4; i++) tail[3 + i] = (uint8_t)(chunk >> (8 * i));
        if (jpad) part_sink(&p0, 20 + json_size, tail, jpad);
        if (bin_size) part_sink(&p0, 20 + json_size + jpad, tail + 3, 8);
    }
    if (out.refused)
        code = ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET, "gltf: the output refused the bytes at offset %llu%s",
                          (unsigned long long)out.refused_at, out.refused_part ? " of the .bin" : "");
    return code;
}

/* A streamed export whose binary chunk would be about this large or more is made in two
 * runs (export_stream), a smaller one in one run, held, then handed over: two runs hold
 * one piece at a time, but take 1.6-1.8x the instructions, and files of 0.5 MB and less
 * came 1.25-1.9x slower (docs/benchmarks.md, "glb export in two runs"). An export to
 * memory is made in one run (its room taken once: gl_hint). */
#define GL_TWO_RUNS ((size_t)2 << 20)

/* Roughly the bytes of the binary chunk, from the document alone: each exported clip's
 * frames x tracks x 40 (a rotation, a translation and a scale a frame). Only a choice
 * between two ways to the same bytes depends on it. */
static size_t glb_guess(const ganim_doc *doc, const ganim_export_opts *o)
{
    size_t bytes = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *c = &doc->clips[i];
        if (!gx_clip_selected(doc, o, i, 1)) continue;
        size_t one = (size_t)c->frame_count * c->track_count * 40u;
        bytes = one > SIZE_MAX - bytes ? SIZE_MAX : bytes + one;
    }
    return bytes;
}

static ganim_code glb_parts(const ganim_doc *doc, const ganim_export_opts *o, ganim_buffer *head, ganim_buffer *bin,
                            ganim_error *err);

/* A small export made in one run (`a`, then `b`: the .glb's head and binary chunk, or the
 * .gltf and its .bin), handed to the sink in pieces of at most 64 KiB, in order. */
static ganim_code hand_over(const ganim_buffer *a, const ganim_buffer *b, int glb, ganim_export_sink sink, void *user,
                            ganim_error *err)
{
    const ganim_buffer *parts[2] = { a, b };
    uint64_t at = 0;
    for (uint32_t i = 0; i < 2; i++) {
        uint32_t part = glb ? 0u : i;
        if (!glb) at = 0;
        for (size_t k = 0; k < parts[i]->size; k += (size_t)64 << 10) {
            size_t n = parts[i]->size - k < ((size_t)64 << 10) ? parts[i]->size - k : (size_t)64 << 10;
            if (sink(user, part, at + k, parts[i]->data + k, n) != 0)
                return ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET,
                                  "gltf: the output refused the bytes at offset %llu%s", (unsigned long long)(at + k),
                                  part ? " of the .bin" : "");
        }
        at += parts[i]->size;
    }
    return GANIM_OK;
}

ganim_code ganim_export_gltf(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *json, ganim_buffer *bin,
                             ganim_error *err)
{
    if (!json || !bin) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "gltf: no output buffer");
    ganim_export_opts o;
    ganim_code code = check(doc, opts, &o, err);
    return code != GANIM_OK ? code : export_gltf(doc, &o, json, bin, o.bin_uri ? o.bin_uri : "buffer.bin", err);
}

/* ganim_export_glb_stream (glb) and ganim_export_gltf_stream: a large export in two runs
 * (export_stream), a small one in one run, held, then handed over (hand_over). */
static ganim_code export_to_sink(const ganim_doc *doc, const ganim_export_opts *opts, int glb, ganim_export_sink sink,
                                 void *user, ganim_error *err)
{
    if (!sink) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "gltf: no output sink");
    ganim_export_opts o;
    ganim_code code = check(doc, opts, &o, err);
    if (code != GANIM_OK) return code;
    const char *uri = glb ? NULL : o.bin_uri ? o.bin_uri : "buffer.bin";
    if (glb_guess(doc, &o) >= GL_TWO_RUNS) return export_stream(doc, &o, glb, uri, sink, user, err);
    ganim_buffer a = { 0 }, b = { 0 }; /* the .glb's head and binary chunk, or the .gltf and its .bin */
    code = glb ? glb_parts(doc, &o, &a, &b, err) : export_gltf(doc, &o, &a, &b, uri, err);
    if (code == GANIM_OK) code = hand_over(&a, &b, glb, sink, user, err);
    ganim_buffer_free(&a);
    ganim_buffer_free(&b);
    return code;
}

ganim_code ganim_export_glb_stream(const ganim_doc *doc, const ganim_export_opts *opts, ganim_export_sink sink,
                                   void *user, ganim_error *err)
{
    return export_to_sink(doc, opts, 1, sink, user, err);
}

ganim_code ganim_export_gltf_stream(const ganim_doc *doc, const ganim_export_opts *opts, ganim_export_sink sink,
                                    void *user, ganim_error *err)
{
    return export_to_sink(doc, opts, 0, sink, user, err);
}

/* GLB: 12-byte header, a JSON chunk padded with spaces, a BIN chunk padded with zeros.
 * ganim_export_glb_parts makes it in one run as two buffers, the head (the header, the
 * JSON chunk and the BIN chunk's header) and the binary chunk: the JSON is written
 * straight into `head` after a 20-byte placeholder for the header and the JSON chunk's
 * header (patched at the end). ganim_export_glb_stream takes two runs (export_stream), and
 * ganim_export_glb one or two (GL_TWO_RUNS). */

/* A buffer as it was before a failed export: freed if it was empty, else cut back. */
static void glb_restore(ganim_buffer *buf, const ganim_buffer *saved, size_t size0)
{
    if (!saved->data) {
        ganim_buffer_free(buf);
        *buf = *saved;
    } else {
        buf->size = size0;
    }
}

/* The document and the options `o` checked. */
static ganim_code glb_parts(const ganim_doc *doc, const ganim_export_opts *o, ganim_buffer *head, ganim_buffer *bin,
                            ganim_error *err)
{
    ganim_buffer saved = *head, saved_bin = *bin;
    ganim_allocator a = ganim_allocator_resolve(&o->allocator);
    size_t head0 = head->size, bin0 = bin->size;
    ganim_writer w = gw_init(head, &a), b = gw_init(bin, &a);
    gw_zeros(&w, 20);
    ganim_code code = gw_ok(&w) ? export_gltf(doc, o, head, bin, NULL, err) : GANIM_NOMEM(err);
    if (code == GANIM_OK) {
        size_t json_size = head->size - head0 - 20, bin_size = bin->size - bin0;
        size_t jpad = (4 - json_size % 4) % 4, bpad = (4 - bin_size % 4) % 4;
        size_t total = 12 + 8 + json_size + jpad + (bin_size ? 8 + bin_size + bpad : 0);
        if (total > UINT32_MAX) {
            code = ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              "gltf: %zu bytes do not fit in a .glb (4 GiB at most)", total);
        } else {
            gw_bytes(&w, "   ", jpad);
            if (bin_size) {
                gw_u32le(&w, (uint32_t)(bin_size + bpad));
                gw_u32le(&w, 0x004E4942u); /* "BIN\0" */
                gw_zeros(&b, bpad);
            }
            gw_patch_u32le(&w, head0, 0x46546C67u); /* "glTF" */
            gw_patch_u32le(&w, head0 + 4, 2);
            gw_patch_u32le(&w, head0 + 8, (uint32_t)total);
            gw_patch_u32le(&w, head0 + 12, (uint32_t)(json_size + jpad));
            gw_patch_u32le(&w, head0 + 16, 0x4E4F534Au); /* "JSON" */
            if (!gw_ok(&w) || !gw_ok(&b)) code = GANIM_NOMEM(err);
        }
    }
    if (code != GANIM_OK) { /* the caller's buffers as they were */
        glb_restore(head, &saved, head0);
        glb_restore(bin, &saved_bin, bin0);
    }
    return code;
}

ganim_code ganim_export_glb_parts(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *head,
                                  ganim_buffer *bin, ganim_error *err)
{
    if (!head || !bin) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "gltf: no output buffer");
    ganim_export_opts o;
    ganim_code code = check(doc, opts, &o, err);
    return code != GANIM_OK ? code : glb_parts(doc, &o, head, bin, err);
}

ganim_code ganim_export_glb(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *out, ganim_error *err)
{
    if (!out) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "gltf: no output buffer");
    ganim_export_opts o;
    ganim_code code = check(doc, opts, &o, err);
    if (code != GANIM_OK) return code;
    ganim_buffer saved = *out;
    size_t out0 = out->size;
    size_t json_hint, bin_hint;
    gl_hint(doc, &o, &json_hint, &bin_hint);
    ganim_allocator a = ganim_allocator_resolve(&o.allocator);
    gl_room(out, &a, sat_add(sat_add(json_hint, bin_hint), 64)); /* the binary chunk goes after the head */
    ganim_buffer bin = { 0 };
    code = glb_parts(doc, &o, out, &bin, err);
    if (code == GANIM_OK) {
        ganim_writer w = gw_init(out, NULL);
        gw_bytes(&w, bin.data, bin.size);
        if (!gw_ok(&w)) code = GANIM_NOMEM(err);
    }
    ganim_buffer_free(&bin);
    if (code != GANIM_OK) glb_restore(out, &saved, out0); /* the caller's buffer as it was */
    return code;
}
