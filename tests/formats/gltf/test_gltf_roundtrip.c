/* ganim's glTF export read back, over every real sample and fixture of every format:
 *   1. game file -> glb -> read: the document again (extras.ganim): every clip at its
 *      index (opaque slots with their bytes, a clip and its partner split back apart), the
 *      same tracks, names, native records, events, and the values within float32
 *      rounding (2e-6 of the value's size) for every rotation (either sign), translation
 *      and scale, at every frame and half way between frames; the same skeleton, names,
 *      flags, clip rates, frame counts, visibility;
 *   2. glb -> read -> glb: the same bytes; and (said apart, for a failure's message) the
 *      same nodes (names, rest TRS) and, for every animation channel, the same
 *      interpolation, key times and values bit for bit (accessors read here by a small
 *      independent reader, not by the library);
 * with the default export, with keep_axes and a unit scale of 0.01, and as .gltf with an
 * external buffer served by a loader. */
#include <stdlib.h>

#include "support/tjson.h"
#include "test.h"

/* ---- an independent little glTF reader: JSON and float accessors ------------------------- */

typedef struct glb {
    tjson *json;
    const uint8_t *bin;
    size_t bin_size;
} glb;

static uint32_t rd32(const uint8_t *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int glb_open(const ganim_buffer *b, glb *g)
{
    memset(g, 0, sizeof *g);
    if (b->size < 20) return 0;
    uint32_t jlen = rd32(b->data + 12);
    if (20 + (size_t)jlen > b->size) return 0;
    g->json = tjson_parse((const char *)b->data + 20, jlen, NULL, 0);
    size_t at = 20 + jlen;
    if (at + 8 <= b->size) {
        g->bin = b->data + at + 8;
        g->bin_size = rd32(b->data + at);
    }
    return g->json != NULL;
}

/* Float accessor `index` as raw 32-bit words (bit comparisons); count * comps of them. */
static uint32_t *acc_words(const glb *g, int64_t index, size_t *n)
{
    const tjson *a = tjson_at(tjson_get(g->json, "accessors"), (size_t)index);
    const tjson *v = tjson_at(tjson_get(g->json, "bufferViews"), (size_t)tjson_int(tjson_get(a, "bufferView"), -1));
    const char *type = tjson_str(tjson_get(a, "type"), "");
    size_t comps = !strcmp(type, "SCALAR") ? 1 : !strcmp(type, "VEC3") ? 3 : !strcmp(type, "VEC4") ? 4 : 0;
    size_t count = (size_t)tjson_int(tjson_get(a, "count"), 0);
    size_t off = (size_t)tjson_int(tjson_get(v, "byteOffset"), 0) + (size_t)tjson_int(tjson_get(a, "byteOffset"), 0);
    *n = count * comps;
    if (!a || !v || !comps || tjson_int(tjson_get(a, "componentType"), 0) != 5126 || off + *n * 4 > g->bin_size) {
        *n = 0;
        return NULL;
    }
    uint32_t *w = malloc(*n * 4 + 4);
    for (size_t i = 0; i < *n; i++) w[i] = rd32(g->bin + off + 4 * i);
    return w;
}

/* The sampler of animation `a` that drives (node, path), or NULL. */
static const tjson *sampler_of(const tjson *anim, int64_t node, const char *path)
{
    const tjson *ch = tjson_get(anim, "channels");
    for (size_t i = 0; i < (ch ? ch->count : 0); i++) {
        const tjson *t = tjson_get(&ch->items[i], "target");
        if (tjson_int(tjson_get(t, "node"), -1) == node && !strcmp(tjson_str(tjson_get(t, "path"), ""), path))
            return tjson_at(tjson_get(anim, "samplers"), (size_t)tjson_int(tjson_get(&ch->items[i], "sampler"), -1));
    }
    return NULL;
}

/* The second export's values are the first's, bit for bit (rotations included: the
 * exporter writes a rotation that is already unit to float precision as it is, so reading
 * ganim's file and exporting it again gives the same floats). */
static long long values_checked;

static int same_words(const glb *ga, int64_t ia, const glb *gb, int64_t ib)
{
    size_t na, nb;
    uint32_t *a = acc_words(ga, ia, &na), *b = acc_words(gb, ib, &nb);
    int same = a && b && na == nb;
    for (size_t i = 0; same && i < na; i++) {
        values_checked++;
        same = a[i] == b[i];
    }
    free(a);
    free(b);
    return same;
}

static int same_numbers(const tjson *a, const tjson *b)
{
    if (!a || !b) return !a && !b;
    if (a->count != b->count) return 0;
    for (size_t i = 0; i < a->count; i++)
        if (a->items[i].number != b->items[i].number) return 0;
    return 1;
}

static long long channels_compared;

/* glb -> read -> glb: the two exports carry the same values. */
static void compare_exports(const ganim_buffer *first, const ganim_buffer *second, const char *label)
{
    glb a, b;
    CHECK_MSG(glb_open(first, &a) && glb_open(second, &b), "%s: exports do not open", label);
    if (!a.json || !b.json) goto done;
    const tjson *na = tjson_get(a.json, "nodes"), *nb = tjson_get(b.json, "nodes");
    CHECK_MSG(na && nb && na->count == nb->count, "%s: node counts differ", label);
    for (size_t i = 0; na && nb && i < na->count && i < nb->count; i++) {
        const tjson *x = &na->items[i], *y = &nb->items[i];
        CHECK_MSG(!strcmp(tjson_str(tjson_get(x, "name"), ""), tjson_str(tjson_get(y, "name"), "")),
                  "%s: node %zu is named differently", label, i);
        static const char *const trs[3] = { "rotation", "translation", "scale" };
        for (int k = 0; k < 3; k++)
            CHECK_MSG(same_numbers(tjson_get(x, trs[k]), tjson_get(y, trs[k])), "%s: node %zu ('%s'): %s differs",
                      label, i, tjson_str(tjson_get(x, "name"), ""), trs[k]);
    }
    const tjson *aa = tjson_get(a.json, "animations"), *ab = tjson_get(b.json, "animations");
    CHECK_MSG((aa ? aa->count : 0) == (ab ? ab->count : 0), "%s: animation counts differ", label);
    for (size_t i = 0; aa && ab && i < aa->count && i < ab->count; i++) {
        const tjson *x = &aa->items[i], *y = &ab->items[i];
        const tjson *xe = tjson_get(tjson_get(x, "extras"), "ganim"), *ye = tjson_get(tjson_get(y, "extras"), "ganim");
        CHECK_MSG(tjson_num(tjson_get(xe, "fps"), -1) == tjson_num(tjson_get(ye, "fps"), -2) &&
                      tjson_int(tjson_get(xe, "frame_count"), -1) == tjson_int(tjson_get(ye, "frame_count"), -2),
                  "%s: animation %zu: rate or frame count differs", label, i);
        const tjson *ch = tjson_get(x, "channels");
        CHECK_MSG(ch && tjson_get(y, "channels") && ch->count == tjson_get(y, "channels")->count,
                  "%s: animation %zu: channel counts differ", label, i);
        for (size_t c = 0; ch && c < ch->count; c++) {
            const tjson *t = tjson_get(&ch->items[c], "target");
            int64_t node = tjson_int(tjson_get(t, "node"), -1);
            const char *path = tjson_str(tjson_get(t, "path"), "");
            const tjson *sx = sampler_of(x, node, path), *sy = sampler_of(y, node, path);
            if (!sx || !sy) {
                CHECK_MSG(0, "%s: animation %zu: node %lld %s is not animated the second time", label, i,
                          (long long)node, path);
                continue;
            }
            channels_compared++;
            CHECK_MSG(!strcmp(tjson_str(tjson_get(sx, "interpolation"), "LINEAR"),
                              tjson_str(tjson_get(sy, "interpolation"), "LINEAR")),
                      "%s: animation %zu node %lld %s: %s became %s", label, i, (long long)node, path,
                      tjson_str(tjson_get(sx, "interpolation"), "LINEAR"),
                      tjson_str(tjson_get(sy, "interpolation"), "LINEAR"));
            CHECK_MSG(same_words(&a, tjson_int(tjson_get(sx, "input"), -1), &b, tjson_int(tjson_get(sy, "input"), -1)),
                      "%s: animation %zu node %lld %s: key times differ", label, i, (long long)node, path);
            CHECK_MSG(
                same_words(&a, tjson_int(tjson_get(sx, "output"), -1), &b, tjson_int(tjson_get(sy, "output"), -1)),
                "%s: animation %zu node %lld %s: values differ", label, i, (long long)node, path);
        }
    }
done:
    tjson_free(a.json);
    tjson_free(b.json);
}

/* ---- the model read back ------------------------------------------------------------------- */

static double worst_seen[2]; /* rotations, vectors: the largest difference / size passed */

static int near(const float *a, const float *b, int n, int quat)
{
    double size = 1;
    for (int i = 0; i < n; i++) size = fmax(size, fabs((double)a[i]));
    double tol = 2e-6 * size, d1 = 0, d2 = 0;
    for (int i = 0; i < n; i++) {
        d1 = fmax(d1, fabs((double)a[i] - b[i]));
        d2 = fmax(d2, fabs((double)a[i] + b[i]));
    }
    double d = quat ? fmin(d1, d2) : d1;
    int ok = d <= tol;
    if (ok) worst_seen[quat] = fmax(worst_seen[quat], d / size);
    return ok;
}

static const ganim_track *track_of(const ganim_clip *c, uint32_t bone)
{
    for (uint32_t i = 0; i < c->track_count; i++)
        if (c->tracks[i].bone == bone) return &c->tracks[i];
    return NULL;
}

/* Rotations as the exporter writes them: unit length (the model allows 1e-3 off). */
static void unit(float *q)
{
    double l = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] = (float)(q[i] / l);
}

static void eval(const ganim_clip *c, const ganim_bone *bone, const ganim_track *t, double frame, float out[10])
{
    static const ganim_channel none = { GANIM_CHANNEL_ABSENT, 0, NULL, NULL };
    const uint8_t *step = t ? t->step : NULL;
    ganim_channel_eval(t ? &t->rotation : &none, c->frame_count, step, c->rotation_interp, 4, frame,
                       &bone->rest.rotation.x, out);
    ganim_channel_eval(t ? &t->translation : &none, c->frame_count, step, c->rotation_interp, 3, frame,
                       &bone->rest.translation.x, out + 4);
    ganim_channel_eval(t ? &t->scale : &none, c->frame_count, step, c->rotation_interp, 3, frame, &bone->rest.scale.x,
                       out + 7);
    unit(out);
}

static long long values_compared;

/* Native records travel in extras.ganim: the same format and bytes come back, except the
 * glTF reader's own (it describes the glb read, so it is made anew). */
static int same_record(const char *fa, const uint8_t *a, size_t na, const char *fb, const uint8_t *b, size_t nb)
{
    if (fa && !strcmp(fa, "gltf")) return !fb || !strcmp(fb, "gltf");
    if (!fa) return !fb || !strcmp(fb, "gltf");
    return fb && !strcmp(fa, fb) && na == nb && (!na || !memcmp(a, b, na));
}

static void compare_models(const ganim_doc *a, const ganim_doc *b, const char *label)
{
    CHECK_MSG(a->axes == b->axes, "%s: axes %s became %s", label, ganim_axes_name(a->axes), ganim_axes_name(b->axes));
    const ganim_skeleton *sa = a->skeleton, *sb = b->skeleton;
    if (!sa || !sa->bone_count) {
        CHECK_MSG(!sb || !sb->bone_count, "%s: bones appeared", label);
        return;
    }
    CHECK_MSG(sb && sb->bone_count == sa->bone_count, "%s: %u bones became %u", label, sa->bone_count,
              sb ? sb->bone_count : 0);
    if (!sb || sb->bone_count != sa->bone_count) return;
    CHECK_MSG(!strcmp(sa->name, sb->name), "%s: skeleton '%s' became '%s'", label, sa->name, sb->name);
    CHECK_MSG(
        same_record(sa->native_format, sa->native, sa->native_size, sb->native_format, sb->native, sb->native_size),
        "%s: the skeleton's native record did not come back", label);
    CHECK_MSG(same_record(a->native_format, a->native, a->native_size, b->native_format, b->native, b->native_size),
              "%s: the document's native record did not come back", label);
    for (uint32_t i = 0; i < sa->bone_count; i++) {
        const ganim_bone *x = &sa->bones[i], *y = &sb->bones[i];
        CHECK_MSG(!strcmp(x->name, y->name) && x->parent == y->parent && x->flags == y->flags,
                  "%s: bone %u ('%s', parent %d, flags %u) became '%s', %d, %u", label, i, x->name, x->parent, x->flags,
                  y->name, y->parent, y->flags);
        float rq[4] = { x->rest.rotation.x, x->rest.rotation.y, x->rest.rotation.z, x->rest.rotation.w };
        unit(rq);
        CHECK_MSG(near(rq, &y->rest.rotation.x, 4, 1) && near(&x->rest.translation.x, &y->rest.translation.x, 3, 0) &&
                      near(&x->rest.scale.x, &y->rest.scale.x, 3, 0),
                  "%s: bone %u ('%s'): rest pose differs", label, i, x->name);
    }
    /* Every clip comes back at its index (extras.ganim): opaque slots, and a clip and the
     * partner played in one animation split back into two clips with their own tracks. */
    CHECK_MSG(a->clip_count == b->clip_count, "%s: %u clips read back, %u exported", label, b->clip_count,
              a->clip_count);
    for (uint32_t i = 0; i < a->clip_count && i < b->clip_count; i++) {
        const ganim_clip *x = &a->clips[i], *y = &b->clips[i];
        /* an unnamed animation keeps the name its export gave it (--into finds it by it) */
        char want[32];
        snprintf(want, sizeof want, "clip_%u", i);
        const char *name = x->name[0] || x->kind != GANIM_CLIP_ANIMATION ? x->name : want;
        CHECK_MSG(x->kind == y->kind && !strcmp(name, y->name) && x->partner == y->partner,
                  "%s: clip %u ('%s', kind %d, partner %u) became '%s', kind %d, partner %u", label, i, x->name,
                  (int)x->kind, x->partner, y->name, (int)y->kind, y->partner);
        CHECK_MSG(same_record(x->native_format, x->native, x->native_size, y->native_format, y->native, y->native_size),
                  "%s: clip %u: the native record did not come back", label, i);
        CHECK_MSG(x->event_count == y->event_count &&
                      (!x->event_count || !memcmp(x->events, y->events, x->event_count * sizeof *x->events)),
                  "%s: clip %u: %u events became %u", label, i, x->event_count, y->event_count);
        if (x->kind != y->kind) continue;
        if (x->kind == GANIM_CLIP_OPAQUE) {
            CHECK_MSG(x->opaque_size == y->opaque_size &&
                          (!x->opaque_size || !memcmp(x->opaque, y->opaque, x->opaque_size)),
                      "%s: opaque clip %u: its bytes did not come back", label, i);
            continue;
        }
        CHECK_MSG(x->fps == y->fps && x->frame_count == y->frame_count && x->rotation_interp == y->rotation_interp,
                  "%s: clip %u: %.17g fps, %u frames became %.17g fps, %u frames", label, i, x->fps, x->frame_count,
                  y->fps, y->frame_count);
        CHECK_MSG(x->track_count == y->track_count, "%s: clip %u: %u tracks became %u", label, i, x->track_count,
                  y->track_count);
        for (uint32_t t = 0; t < x->track_count && t < y->track_count; t++)
            CHECK_MSG(x->tracks[t].bone == y->tracks[t].bone && !strcmp(x->tracks[t].name, y->tracks[t].name) &&
                          !x->tracks[t].step == !y->tracks[t].step &&
                          !x->tracks[t].visibility == !y->tracks[t].visibility,
                      "%s: clip %u track %u (bone %u '%s') became bone %u '%s'", label, i, t, x->tracks[t].bone,
                      x->tracks[t].name, y->tracks[t].bone, y->tracks[t].name);
        uint32_t frames = x->frame_count;
        if (frames != y->frame_count) continue;
        int bad = 0;
        for (uint32_t bone = 0; bone < sa->bone_count && bad < 3; bone++) {
            const ganim_track *tx = track_of(x, bone), *ty = track_of(y, bone);
            int vis_track = tx && tx->visibility;
            for (uint32_t h = 0; h < 2 * frames - 1 && bad < 3; h++) {
                double frame = h / 2.0;
                uint32_t fi = h / 2;
                int visible_x = !tx || !tx->visibility || tx->visibility[fi];
                int visible_y = !ty || !ty->visibility || ty->visibility[fi];
                if (!(h & 1) && visible_x != visible_y) {
                    CHECK_MSG(0, "%s: clip %u bone %u frame %u: visibility differs", label, i, bone, fi);
                    bad++;
                }
                float vx[10], vy[10], k0[10], k1[10];
                eval(x, &sa->bones[bone], tx, frame, vx);
                eval(y, &sb->bones[bone], ty, frame, vy);
                int scale_ok = (vis_track && ((h & 1) || !visible_x)) || near(vx + 7, vy + 7, 3, 0);
                int rot_ok = near(vx, vy, 4, 1);
                if (!rot_ok && (h & 1)) { /* a half turn between two frames: either way is as short */
                    eval(x, &sa->bones[bone], tx, fi, k0);
                    eval(x, &sa->bones[bone], tx, fmin(fi + 1.0, frames - 1.0), k1);
                    rot_ok = fabs((double)k0[0] * k1[0] + (double)k0[1] * k1[1] + (double)k0[2] * k1[2] +
                                  (double)k0[3] * k1[3]) < 1e-3;
                }
                if (!rot_ok || !near(vx + 4, vy + 4, 3, 0) || !scale_ok) {
                    CHECK_MSG(0,
                              "%s: clip %u bone %u ('%s') frame %g: (%g %g %g %g | %g %g %g | %g %g %g) read back as "
                              "(%g %g %g %g | %g %g %g | %g %g %g)",
                              label, i, bone, sa->bones[bone].name, frame, vx[0], vx[1], vx[2], vx[3], vx[4], vx[5],
                              vx[6], vx[7], vx[8], vx[9], vy[0], vy[1], vy[2], vy[3], vy[4], vy[5], vy[6], vy[7], vy[8],
                              vy[9]);
                    bad++;
                }
                values_compared++;
            }
        }
    }
}

/* ---- .gltf with its buffer from memory ------------------------------------------------------- */

typedef struct mem_file {
    const char *name;
    const ganim_buffer *data;
    int asked;
} mem_file;

static ganim_code load_mem(void *user, const char *name, ganim_buffer *out, ganim_error *err)
{
    mem_file *m = user;
    m->asked++;
    if (strcmp(name, m->name) != 0) {
        if (err) {
            err->code = GANIM_ERR_IO;
            snprintf(err->message, sizeof err->message, "no file '%s' here", name);
        }
        return GANIM_ERR_IO;
    }
    out->data = out->allocator.alloc(out->allocator.user, m->data->size ? m->data->size : 1);
    if (!out->data) return GANIM_ERR_NOMEM;
    memcpy(out->data, m->data->data, m->data->size);
    out->size = out->capacity = m->data->size;
    return GANIM_OK;
}

/* ---- the sweep -------------------------------------------------------------------------------- */

static int files_done, identical;

static void one_variant(const ganim_doc *a, const ganim_export_opts *eo, const char *label)
{
    ganim_buffer g1 = { 0 }, g2 = { 0 };
    ganim_error e = { 0 };
    if (ganim_export_glb(a, eo, &g1, &e) != GANIM_OK) {
        /* some inputs cannot be exported at all (key times that fall on one float32 time) */
        test_note_skip(label);
        ganim_buffer_free(&g1);
        return;
    }
    ganim_doc *b = NULL;
    CHECK_MSG(ganim_read_memory(g1.data, g1.size, NULL, &b, &e) == GANIM_OK, "%s: the glb does not read: %s", label,
              e.message);
    if (b) {
        CHECK_EQ_STR(b->format->name, "gltf");
        compare_models(a, b, label);
        CHECK_MSG(ganim_export_glb(b, eo, &g2, &e) == GANIM_OK, "%s: the glb read does not export: %s", label,
                  e.message);
        compare_exports(&g1, &g2, label);
        CHECK_MSG(g1.size == g2.size && !memcmp(g1.data, g2.data, g1.size), "%s: glb -> read -> glb: the bytes differ",
                  label);
        if (g1.size == g2.size && !memcmp(g1.data, g2.data, g1.size)) identical++;
        ganim_doc_free(b);
    }
    ganim_buffer_free(&g1);
    ganim_buffer_free(&g2);
}

static void gltf_variant(const ganim_doc *a, const char *label)
{
    ganim_export_opts eo = { 0 };
    eo.bin_uri = "my buffer.bin"; /* percent-encoded in the file, decoded by the reader */
    ganim_buffer json = { 0 }, bin = { 0 };
    if (ganim_export_gltf(a, &eo, &json, &bin, NULL) != GANIM_OK) goto done;
    mem_file m = { "my buffer.bin", &bin, 0 };
    ganim_read_opts ro = { 0 };
    ro.load = load_mem;
    ro.load_user = &m;
    ganim_doc *b = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_read_memory(json.data, json.size, &ro, &b, &e) == GANIM_OK, "%s: the .gltf does not read: %s",
              label, e.message);
    if (b) {
        compare_models(a, b, label);
        CHECK(bin.size == 0 || m.asked == 1);
        ganim_doc_free(b);
    }
done:
    ganim_buffer_free(&json);
    ganim_buffer_free(&bin);
}

static void roundtrip(const char *path)
{
    ganim_doc *a = NULL;
    ganim_error e = { 0 };
    if (ganim_read_file(path, NULL, &a, &e) != GANIM_OK) {
        CHECK_MSG(0, "%s does not read: %s", path, e.message);
        return;
    }
    if (!a->skeleton && a->clip_count == 0) { /* nothing to export (an archive's listing) */
        ganim_doc_free(a);
        return;
    }
    char label[600];
    ganim_export_opts eo = { 0 };
    snprintf(label, sizeof label, "%s (glb)", test_base_name(path));
    one_variant(a, &eo, label);
    eo.keep_axes = 1;
    eo.unit_scale = 0.01f;
    snprintf(label, sizeof label, "%s (glb, keep_axes, unit 0.01)", test_base_name(path));
    one_variant(a, &eo, label);
    snprintf(label, sizeof label, "%s (gltf + bin)", test_base_name(path));
    gltf_variant(a, label);
    ganim_doc_free(a);
    files_done++;
}

TEST(every_file_of_every_format)
{
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++) {
        if (!(all[i]->flags & GANIM_FORMAT_READ) || (all[i]->flags & GANIM_FORMAT_COMPANION)) continue;
        char **files = test_format_files(all[i], TEST_SAMPLES | TEST_FIXTURES);
        for (char **p = files; p && *p; p++) roundtrip(*p);
        test_free_list(files);
    }
    printf("round trips: %d files; second exports: %lld channels, %lld values compared, all bit for bit, %d "
           "exports identical byte for byte; %lld bone samples compared with the model, largest differences %.3g "
           "(rotations), %.3g (translations, scales) of the value's size\n",
           files_done, channels_compared, values_checked, identical, values_compared, worst_seen[1], worst_seen[0]);
    CHECK(files_done > 0);
}

int main(void)
{
    test_program_name = "test_gltf_roundtrip";
    RUN(every_file_of_every_format);
    return test_finish();
}
