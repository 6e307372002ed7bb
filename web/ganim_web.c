/* The browser viewer's bridge to the library (web/src/ganim.js calls these): the same
 * library as the native build, compiled for wasm32-wasi (web/wasm.mk). Files are read
 * by path through WASI from the page's in-memory folder, so ganim_read_file finds a
 * companion skeleton, a glTF's buffers and an archive's data file exactly as the
 * command line does. Every call takes what it needs as arguments: no global state.
 * Exports follow `ganim convert`'s defaults (cli/convert_job.c: the input's stem names
 * unnamed clips, the .gltf's buffer is <stem>.bin), so the page's bytes are the tool's. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ganim.h"

#define WEB_EXPORT(name) __attribute__((export_name(#name)))

WEB_EXPORT(gw_alloc) void *gw_alloc(size_t size) { return malloc(size ? size : 1); }

WEB_EXPORT(gw_free) void gw_free(void *p) { free(p); }

WEB_EXPORT(gw_version) const char *gw_version(void) { return ganim_version_string(); }

/* An error the page allocates once and passes to every call. */
WEB_EXPORT(gw_error_new) ganim_error *gw_error_new(void) { return calloc(1, sizeof(ganim_error)); }

WEB_EXPORT(gw_error_message) const char *gw_error_message(const ganim_error *err) { return err->message; }

/* The byte offset, or -1 for none (a double: JavaScript's number holds it). */
WEB_EXPORT(gw_error_offset) double gw_error_offset(const ganim_error *err)
{
    return err->offset == GANIM_NO_OFFSET ? -1.0 : (double)err->offset;
}

/* A buffer the page reads the bytes of an export from. */
WEB_EXPORT(gw_buffer_new) ganim_buffer *gw_buffer_new(void) { return calloc(1, sizeof(ganim_buffer)); }

WEB_EXPORT(gw_buffer_data) const uint8_t *gw_buffer_data(const ganim_buffer *b) { return b->data; }

WEB_EXPORT(gw_buffer_size) size_t gw_buffer_size(const ganim_buffer *b) { return b->size; }

WEB_EXPORT(gw_buffer_clear) void gw_buffer_clear(ganim_buffer *b) { ganim_buffer_free(b); }

#define WEB_MAX_SETTINGS 32

/* Reads `path` as `ganim info` and `ganim convert` do, with the reader options
 * `settings` ("name=value" lines, may be empty) and the companion skeleton found by the
 * format's rule. NULL, with `err` filled, when it cannot. */
WEB_EXPORT(gw_open) ganim_doc *gw_open(const char *path, char *settings, ganim_error *err)
{
    ganim_setting list[WEB_MAX_SETTINGS];
    uint32_t count = 0;
    for (char *line = settings; line && *line && count < WEB_MAX_SETTINGS;) {
        char *end = strchr(line, '\n');
        if (end) *end = 0;
        char *eq = strchr(line, '=');
        if (eq) {
            *eq = 0;
            list[count].name = line;
            list[count].value = eq + 1;
            count++;
        }
        line = end ? end + 1 : NULL;
    }
    ganim_read_opts ro = { 0 };
    ro.settings = count ? list : NULL;
    ro.setting_count = count;
    ro.companion = GANIM_COMPANION_FIND;
    ganim_doc *doc = NULL;
    memset(err, 0, sizeof *err);
    if (ganim_read_file(path, &ro, &doc, err) != GANIM_OK) return NULL;
    return doc;
}

WEB_EXPORT(gw_close) void gw_close(ganim_doc *doc) { ganim_doc_free(doc); }

/* How sure the format's probe was of the bytes (what `ganim info` prints beside the format). */
WEB_EXPORT(gw_probe_score) int gw_probe_score(const ganim_doc *doc) { return doc->probe_score; }

/* The format that recognises the bytes of `path` best, and whether it holds only a
 * skeleton (GANIM_FORMAT_* flags), for choosing which of several dropped files to open:
 * the format's name, or NULL when no format knows the bytes. */
WEB_EXPORT(gw_probe_file) const char *gw_probe_file(const char *path, uint32_t *flags)
{
    *flags = 0;
    ganim_buffer b = { 0 };
    if (ganim_load_file(path, NULL, 0, &b, NULL) != GANIM_OK) return NULL;
    const ganim_format *f = ganim_probe(b.data, b.size, NULL);
    ganim_buffer_free(&b);
    if (!f) f = ganim_format_for_path(path);
    if (!f) return NULL;
    *flags = f->flags;
    return f->name;
}

/* `ganim info --json`'s document (ganim_export_info_json) into `out`. */
WEB_EXPORT(gw_info_json) ganim_code gw_info_json(const ganim_doc *doc, ganim_buffer *out, ganim_error *err)
{
    ganim_export_opts eo = { 0 };
    return ganim_export_info_json(doc, &eo, out, err);
}

WEB_EXPORT(gw_bone_count) uint32_t gw_bone_count(const ganim_doc *doc)
{
    return doc->skeleton ? doc->skeleton->bone_count : 0;
}

WEB_EXPORT(gw_bone_name) const char *gw_bone_name(const ganim_doc *doc, uint32_t bone)
{
    return doc->skeleton->bones[bone].name;
}

WEB_EXPORT(gw_bone_parent) int32_t gw_bone_parent(const ganim_doc *doc, uint32_t bone)
{
    return doc->skeleton->bones[bone].parent;
}

WEB_EXPORT(gw_bone_flags) uint32_t gw_bone_flags(const ganim_doc *doc, uint32_t bone)
{
    return doc->skeleton->bones[bone].flags;
}

/* The rest pose: 10 floats per bone (rotation x y z w, translation, scale). */
WEB_EXPORT(gw_rest) void gw_rest(const ganim_doc *doc, ganim_transform *out)
{
    for (uint32_t i = 0; i < gw_bone_count(doc); i++) out[i] = doc->skeleton->bones[i].rest;
}

WEB_EXPORT(gw_clip_count) uint32_t gw_clip_count(const ganim_doc *doc) { return doc->clip_count; }

/* 1 + the index of the clip that plays with `clip` (FF7's weapon animations), or 0. */
WEB_EXPORT(gw_clip_partner) uint32_t gw_clip_partner(const ganim_doc *doc, uint32_t clip)
{
    return doc->clips[clip].partner;
}

WEB_EXPORT(gw_clip_track_count) uint32_t gw_clip_track_count(const ganim_doc *doc, uint32_t clip)
{
    return doc->clips[clip].track_count;
}

WEB_EXPORT(gw_clip_track_bone) uint32_t gw_clip_track_bone(const ganim_doc *doc, uint32_t clip, uint32_t track)
{
    return doc->clips[clip].tracks[track].bone;
}

/* ganim_clip_sample: the local transforms of every bone at `time` seconds, 10 floats
 * per bone, and one visibility byte per bone in `visible` (may be NULL). */
WEB_EXPORT(gw_sample)
ganim_code gw_sample(const ganim_doc *doc, uint32_t clip, double time, ganim_transform *out, uint8_t *visible,
                     ganim_error *err)
{
    if (clip >= doc->clip_count || !doc->skeleton) {
        snprintf(err->message, sizeof err->message, "no clip %u", clip);
        err->code = GANIM_ERR_INVALID_ARG;
        err->offset = GANIM_NO_OFFSET;
        return err->code;
    }
    return ganim_clip_sample(&doc->clips[clip], doc->skeleton, time, out, visible, err);
}

/* The rotation that turns the document's axes to +Y up, as the exporters apply it. */
WEB_EXPORT(gw_axes_to_y_up) void gw_axes_to_y_up(const ganim_doc *doc, float *q)
{
    ganim_quat r = ganim_axes_to_y_up(doc->axes);
    q[0] = r.x, q[1] = r.y, q[2] = r.z, q[3] = r.w;
}

WEB_EXPORT(gw_mesh_count) uint32_t gw_mesh_count(const ganim_doc *doc) { return doc->mesh_count; }

WEB_EXPORT(gw_mesh_vertex_count) uint32_t gw_mesh_vertex_count(const ganim_doc *doc, uint32_t m)
{
    return doc->meshes[m].vertex_count;
}

WEB_EXPORT(gw_mesh_positions) const float *gw_mesh_positions(const ganim_doc *doc, uint32_t m)
{
    return doc->meshes[m].positions;
}

WEB_EXPORT(gw_mesh_normals) const float *gw_mesh_normals(const ganim_doc *doc, uint32_t m)
{
    return doc->meshes[m].normals;
}

WEB_EXPORT(gw_mesh_bones) const uint32_t *gw_mesh_bones(const ganim_doc *doc, uint32_t m)
{
    return doc->meshes[m].bones;
}

WEB_EXPORT(gw_mesh_triangle_count) uint32_t gw_mesh_triangle_count(const ganim_doc *doc, uint32_t m)
{
    return doc->meshes[m].triangle_count;
}

WEB_EXPORT(gw_mesh_triangles) const uint32_t *gw_mesh_triangles(const ganim_doc *doc, uint32_t m)
{
    return doc->meshes[m].triangles;
}

/* What an export could not carry, one line each, for the page to show. */
static void note_warning(void *user, const ganim_warning *w)
{
    ganim_buffer *notes = user;
    size_t n = strlen(w->message);
    uint8_t *grown = realloc(notes->data, notes->size + n + 2);
    if (!grown) return;
    notes->data = grown;
    memcpy(notes->data + notes->size, w->message, n);
    notes->size += n;
    notes->data[notes->size++] = '\n';
    notes->data[notes->size] = 0;
}

/* An export as `ganim convert INPUT -o <stem>.<kind>` writes it: kind 0 glb, 1 gltf (its
 * buffer in `bin`, named <stem>.bin), 2 bvh (the first animation clip), 3 the JSON dump.
 * `stem` is the input's file name without its extension. What the export could not
 * carry goes to `notes` as lines (the tool prints them as warnings). */
/* As `ganim convert` refuses it: a glb, glTF or BVH of a document with no animation clip,
 * no bone and no mesh would be an empty file (an archive's directory holds only a list of
 * files). */
static bool nothing_to_export(const ganim_doc *doc, ganim_error *err)
{
    for (uint32_t i = 0; i < doc->clip_count; i++)
        if (doc->clips[i].kind == GANIM_CLIP_ANIMATION) return false;
    if ((doc->skeleton && doc->skeleton->bone_count) || doc->mesh_count) return false;
    if (doc->format && !strcmp(doc->format->name, "argonaut-dir"))
        snprintf(err->message, sizeof err->message,
                 "this archive directory lists the files of its .DAT and holds no animation to export; "
                 "open a level inside it (the file list names them)");
    else
        snprintf(err->message, sizeof err->message,
                 "the file holds no skeleton, animation or mesh to export; nothing written");
    err->code = GANIM_ERR_INVALID_ARG;
    err->offset = GANIM_NO_OFFSET;
    return true;
}

WEB_EXPORT(gw_export)
ganim_code gw_export(const ganim_doc *doc, int kind, const char *stem, ganim_buffer *out, ganim_buffer *bin,
                     ganim_buffer *notes, ganim_error *err)
{
    if (kind >= 0 && kind <= 2 && nothing_to_export(doc, err)) return err->code;
    ganim_export_opts eo = { 0 };
    eo.default_clip_name = stem;
    eo.warn = note_warning;
    eo.warn_user = notes;
    char bin_uri[1024];
    switch (kind) {
    case 0: return ganim_export_glb(doc, &eo, out, err);
    case 1:
        snprintf(bin_uri, sizeof bin_uri, "%s.bin", stem);
        eo.bin_uri = bin_uri;
        return ganim_export_gltf(doc, &eo, out, bin, err);
    case 2: return ganim_export_bvh(doc, &eo, out, err);
    case 3: return ganim_export_json(doc, &eo, out, err);
    default:
        snprintf(err->message, sizeof err->message, "no export kind %d", kind);
        err->code = GANIM_ERR_INVALID_ARG;
        err->offset = GANIM_NO_OFFSET;
        return err->code;
    }
}

/* The options of format `name`: how many, and field `field` of option `i` (0 name,
 * 1 values, 2 help, 3 what the format does without it, 4 its type: "choice", "int" or
 * "text"); NULL past the end. Only the
 * reader options (GANIM_OPTION_READ) are counted: the page reads, it does not write. */
static const ganim_option *reader_option(const char *name, uint32_t i)
{
    const ganim_format *f = ganim_format_find(name);
    for (uint32_t k = 0; f && k < f->option_count; k++)
        if ((f->options[k].flags & GANIM_OPTION_READ) && i-- == 0) return &f->options[k];
    return NULL;
}

WEB_EXPORT(gw_option_count) uint32_t gw_option_count(const char *name)
{
    uint32_t n = 0;
    while (reader_option(name, n)) n++;
    return n;
}

WEB_EXPORT(gw_option_field) const char *gw_option_field(const char *name, uint32_t i, int field)
{
    const ganim_option *o = reader_option(name, i);
    if (!o) return NULL;
    static const char *const types[] = { "choice", "int", "text" };
    if (field == 4) return o->type <= GANIM_OPTION_TEXT ? types[o->type] : "text";
    const char *s = field == 0 ? o->name : field == 1 ? o->values : field == 2 ? o->help : o->when_unset;
    return s ? s : "";
}
