/* Argonaut PS1: the known answers of the shared fixtures (the README's values for the two
 * bare blocks, every value of NAME.expected.json for the two level WADs), byte-identical
 * read-write round trips, the variant probe, meshes and their glTF. The expected values
 * come from the test data, never from ganim. */
#include <stdlib.h>

#include "formats/argonaut/argonaut.h"
#include "support/tjson.h"
#include "test.h"

static ganim_doc *read_opts(const char *path, const char *variant, const char *convention, const char *model)
{
    ganim_setting s[3];
    uint32_t n = 0;
    if (variant) s[n++] = (ganim_setting){ "argonaut.variant", variant };
    if (convention) s[n++] = (ganim_setting){ "argonaut.convention", convention };
    if (model) s[n++] = (ganim_setting){ "argonaut.model", model };
    ganim_read_opts ro = { 0 };
    ro.settings = s;
    ro.setting_count = n;
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_read_file(path, &ro, &doc, &e) == GANIM_OK, "%s: %s", path, e.message);
    return doc;
}

/* The model rotation of bone b at frame f as a row-major 3x3 matrix. */
static void rot_at(const ganim_doc *doc, uint32_t clip, uint32_t b, double frame, float m[9])
{
    const ganim_clip *c = &doc->clips[clip];
    float q[4];
    const float id[4] = { 0, 0, 0, 1 };
    ganim_channel_eval(&c->tracks[b].rotation, c->frame_count, NULL, c->rotation_interp, 4, frame, id, q);
    ganim_quat_to_mat3((ganim_quat){ q[0], q[1], q[2], q[3] }, m);
}

static void trans_at(const ganim_doc *doc, uint32_t clip, uint32_t b, double frame, float t[3])
{
    const ganim_clip *c = &doc->clips[clip];
    const float zero[3] = { 0, 0, 0 };
    ganim_channel_eval(&c->tracks[b].translation, c->frame_count, NULL, c->rotation_interp, 3, frame, zero, t);
}

/* The stored matrix s (row-major, 4096 = 1) against the model's rotation under sv. */
static void check_matrix(const ganim_doc *doc, uint32_t clip, uint32_t b, uint32_t f, const int *s, const int *t,
                         const char *what)
{
    float m[9], tr[3];
    rot_at(doc, clip, b, f, m);
    trans_at(doc, clip, b, f, tr);
    for (int k = 0; k < 9; k++)
        CHECK_MSG(fabs(m[k] - s[k] / 4096.0) < 2e-3, "%s clip %u frame %u bone %u m[%d]: %g vs %d", what, clip, f, b, k,
                  m[k], s[k]);
    for (int k = 0; k < 3; k++)
        CHECK_MSG(tr[k] == t[k], "%s clip %u frame %u bone %u t[%d]: %g vs %d", what, clip, f, b, k, tr[k], t[k]);
}

static const int I[9] = { 4096, 0, 0, 0, 4096, 0, 0, 0, 4096 };
static const int RZ90[9] = { 0, -4096, 0, 4096, 0, 0, 0, 0, 4096 };
static const int RX90[9] = { 4096, 0, 0, 0, 0, -4096, 0, 4096, 0 };

TEST(croc2_block_readme)
{
    ganim_doc *doc = read_opts(test_path("argonaut", "croc2_style_2anims.bin"), NULL, NULL, NULL);
    if (!doc) return;
    CHECK_EQ_INT(doc->clip_count, 2);
    const ganim_clip *c = &doc->clips[0];
    CHECK_EQ_INT(c->frame_count, 3);
    CHECK_EQ_INT(c->track_count, 2);
    CHECK(c->event_count == 1 && c->events[0].frame == 1 && c->events[0].id == 7);
    const int t00[3] = { 0, 100, 0 }, t01[3] = { 50, 0, 0 }, t10[3] = { 0, 101, 0 }, t11[3] = { 51, 0, 0 };
    const int t20[3] = { 0, 102, 0 }, t21[3] = { 52, 0, 0 };
    check_matrix(doc, 0, 0, 0, I, t00, "croc2");
    check_matrix(doc, 0, 1, 0, RZ90, t01, "croc2");
    check_matrix(doc, 0, 0, 1, I, t10, "croc2");
    check_matrix(doc, 0, 1, 1, RZ90, t11, "croc2");
    check_matrix(doc, 0, 0, 2, I, t20, "croc2");
    check_matrix(doc, 0, 1, 2, RX90, t21, "croc2");
    /* RZ90 maps +X to +Y */
    float m[9];
    rot_at(doc, 0, 1, 0, m);
    CHECK_NEAR(m[3], 1, 1e-3); /* row y, column x */
    c = &doc->clips[1];
    CHECK(c->frame_count == 2 && c->track_count == 1 && c->event_count == 0);
    const int a0[3] = { 1, 2, 3 }, a1[3] = { 4, 5, 6 };
    check_matrix(doc, 1, 0, 0, I, a0, "croc2");
    check_matrix(doc, 1, 0, 1, RZ90, a1, "croc2");
    /* deltas and morph values, raw, in the details */
    char *j = test_details_json(doc, 0, GANIM_DETAILS_FULL);
    CHECK_MSG(j && strstr(j, "\"position_deltas_raw\":[[0,0,10,0],[0,0,12,0],[0,0,14,0]]"), "%s", j);
    CHECK_MSG(j && strstr(j, "\"frame0\":[0,5,10,0],\"later_frames\":[[100],[200]]"), "%s", j);
    free(j);
    j = test_details_json(doc, 1, GANIM_DETAILS_FULL);
    CHECK_MSG(j && strstr(j, "\"position_deltas_raw\":null"), "%s", j);
    free(j);
    j = test_details_json(doc, -1, GANIM_DETAILS_SUMMARY);
    CHECK_MSG(j && strstr(j, "\"variant\":\"croc2\"") && strstr(j, "\"container\":\"block\""), "%s", j);
    free(j);
    ganim_doc_free(doc);
}

TEST(hp_block_readme)
{
    ganim_doc *doc = read_opts(test_path("argonaut", "hp_style_2anims.bin"), NULL, NULL, NULL);
    if (!doc) return;
    CHECK_EQ_INT(doc->clip_count, 2);
    const ganim_clip *c = &doc->clips[0];
    CHECK(c->frame_count == 5 && c->track_count == 2 && c->event_count == 0);
    CHECK(c->tracks[0].rotation.kind == GANIM_CHANNEL_KEYED && c->tracks[0].rotation.count == 2);
    CHECK(c->tracks[0].rotation.times[0] == 0 && c->tracks[0].rotation.times[1] == 4);
    /* frame 2: about q = (3784, 0, 1567, 0) (w, x, y, z) and t = (0, 105, 0) / (55, 0, 0); the
     * default convention reads q as R(q)^T, i.e. the model holds its conjugate */
    ganim_transform pose[2];
    ganim_error e = { 0 };
    CHECK(ganim_clip_sample(c, doc->skeleton, 2.0 / c->fps, pose, NULL, &e) == GANIM_OK);
    for (int b = 0; b < 2; b++) {
        CHECK_NEAR(pose[b].rotation.w * 4096, 3784, 1);
        CHECK_NEAR(pose[b].rotation.y * 4096, -1567, 1);
        CHECK_NEAR(pose[b].rotation.x * 4096, 0, 1);
        CHECK_NEAR(pose[b].rotation.z * 4096, 0, 1);
    }
    CHECK_NEAR(pose[0].translation.y, 105, 1e-4);
    CHECK_NEAR(pose[1].translation.x, 55, 1e-4);
    c = &doc->clips[1];
    CHECK(c->frame_count == 2 && c->track_count == 1 && c->event_count == 2);
    CHECK(c->events[0].frame == 0 && c->events[0].id == 3 && c->events[1].frame == 1 && c->events[1].id == 9);
    const int a0[3] = { 7, 8, 9 }, a1[3] = { 10, 11, 12 };
    check_matrix(doc, 1, 0, 0, I, a0, "hp");
    check_matrix(doc, 1, 0, 1, RX90, a1, "hp");
    char *j = test_details_json(doc, 1, GANIM_DETAILS_FULL);
    CHECK_MSG(j && strstr(j, "\"position_deltas_raw\":[[5,0,0,0],[6,0,0,0]]"), "%s", j);
    free(j);
    ganim_doc_free(doc);
    /* the other convention: q as R(q) */
    doc = read_opts(test_path("argonaut", "hp_style_2anims.bin"), NULL, "vs", NULL);
    if (!doc) return;
    CHECK(ganim_clip_sample(&doc->clips[0], doc->skeleton, 2.0 / doc->clips[0].fps, pose, NULL, &e) == GANIM_OK);
    CHECK_NEAR(pose[0].rotation.y * 4096, 1567, 1);
    CHECK_NEAR(pose[0].rotation.w * 4096, 3784, 1);
    j = test_details_json(doc, -1, GANIM_DETAILS_SUMMARY);
    CHECK_MSG(j && strstr(j, "\"option\":\"vs\""), "%s", j);
    free(j);
    ganim_doc_free(doc);
}

/* n bytes of `needle` in data[0..size) */
static int has_bytes(const ganim_buffer *b, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= b->size; i++)
        if (memcmp(b->data + i, needle, n) == 0) return 1;
    return 0;
}

static int ival(const tjson *v) { return (int)tjson_int(v, -999999); }

/* Every value of NAME.expected.json against what ganim reads. */
static void check_wad(const char *name)
{
    char jname[64];
    snprintf(jname, sizeof jname, "%s.expected.json", name);
    char err[256];
    tjson *x = tjson_parse_file(test_path("argonaut", jname), err, sizeof err);
    CHECK_MSG(x != NULL, "%s: %s", jname, err);
    if (!x) return;
    char wname[64];
    snprintf(wname, sizeof wname, "%s.wad", name);
    const char *path = test_path("argonaut", wname);
    ganim_doc *doc = read_opts(path, NULL, NULL, NULL);
    if (!doc) {
        tjson_free(x);
        return;
    }
    const char *variant = tjson_str(tjson_get(x, "variant"), "");
    char *dj = test_details_json(doc, -1, GANIM_DETAILS_FULL);
    char want[128];
    snprintf(want, sizeof want, "\"variant\":\"%s\"", variant);
    CHECK_MSG(dj && strstr(dj, want), "%s: variant %s: %s", name, variant, dj);
    const tjson *dpsx = tjson_get(x, "dpsx");
    snprintf(want, sizeof want, "\"block_offset\":%d", ival(tjson_get(dpsx, "animations_block_offset")));
    CHECK_MSG(dj && strstr(dj, want), "%s: %s", name, want);
    snprintf(want, sizeof want, "\"wad_header\":%d", ival(tjson_get(x, "wad_header_u32")));
    CHECK_MSG(dj && strstr(dj, want), "%s: %s", name, want);
    snprintf(want, sizeof want, "\"xspd_offset\":%d", ival(tjson_get(dpsx, "offset")));
    CHECK_MSG(dj && strstr(dj, want), "%s: %s", name, want);
    /* models: counts, groups, raw vertices, normals, faces, fitting animations */
    const tjson *models = tjson_get(x, "models");
    for (size_t mi = 0; mi < (models ? models->count : 0); mi++) {
        const tjson *m = tjson_at(models, mi);
        char buf[4096];
        int at = snprintf(buf, sizeof buf, "{\"index\":%zu,\"offset\":%d,\"groups\":%d,\"group_vertex_counts\":[", mi,
                          ival(tjson_get(m, "offset")), ival(tjson_get(m, "group_count")));
        const tjson *g = tjson_get(m, "group_vertex_counts");
        for (size_t k = 0; k < g->count; k++)
            at += snprintf(buf + at, sizeof buf - (size_t)at, "%s%d", k ? "," : "", ival(tjson_at(g, k)));
        const tjson *cc = tjson_get(m, "collision_counts");
        at += snprintf(buf + at, sizeof buf - (size_t)at,
                       "],\"vertices\":%d,\"faces\":%d,\"quads\":%d,\"triangles\":%d,\"collision_faces\":[%d,%d",
                       ival(tjson_get(m, "vertex_count")), ival(tjson_get(m, "face_count")),
                       ival(tjson_get(m, "quad_count")), ival(tjson_get(m, "tri_count")), ival(tjson_get(cc, "floor")),
                       ival(tjson_get(cc, "ceil")));
        if (!strcmp(variant, "hp"))
            at += snprintf(buf + at, sizeof buf - (size_t)at, ",%d", ival(tjson_get(cc, "wall")));
        CHECK_MSG(dj && strstr(dj, buf), "%s: model %zu: %s", name, mi, buf);
        /* raw arrays */
        static const char *const keys[3] = { "vertices", "normals", "faces" };
        for (int a = 0; a < 3; a++) {
            const tjson *arr = tjson_get(m, keys[a]);
            at = snprintf(buf, sizeof buf, "\"%s\":[", keys[a]);
            for (size_t r = 0; r < arr->count; r++) {
                const tjson *row = tjson_at(arr, r);
                at += snprintf(buf + at, sizeof buf - (size_t)at, "%s[", r ? "," : "");
                for (size_t k = 0; k < row->count; k++) {
                    int v = ival(tjson_at(row, k));
                    if (a == 2 && (k == 3 || k >= 4)) v = (int16_t)(uint16_t)v; /* the details show s16 */
                    at += snprintf(buf + at, sizeof buf - (size_t)at, "%s%d", k ? "," : "", v);
                }
                at += snprintf(buf + at, sizeof buf - (size_t)at, "]");
            }
            CHECK_MSG(dj && strstr(dj, buf), "%s: model %zu: %s", name, mi, buf);
        }
    }
    /* animations */
    const tjson *anims = tjson_get(x, "animations");
    CHECK_EQ_INT(doc->clip_count, anims ? anims->count : 0);
    for (size_t ai = 0; ai < doc->clip_count && anims && ai < anims->count; ai++) {
        const tjson *a = tjson_at(anims, ai), *h = tjson_get(a, "header");
        const ganim_clip *c = &doc->clips[ai];
        CHECK_EQ_INT(c->kind, GANIM_CLIP_ANIMATION);
        CHECK_EQ_INT(c->frame_count, ival(tjson_get(h, "frame_count")));
        CHECK_EQ_INT(c->track_count, ival(tjson_get(h, "bone_count")));
        const tjson *tr = tjson_get(a, "triggers");
        CHECK_EQ_INT(c->event_count, tr->count);
        for (size_t k = 0; k < tr->count && k < c->event_count; k++) {
            CHECK_EQ_INT(c->events[k].frame, ival(tjson_at(tjson_at(tr, k), 0)));
            CHECK_EQ_INT(c->events[k].id, ival(tjson_at(tjson_at(tr, k), 1)));
        }
        char *cj = test_details_json(doc, (int)ai, GANIM_DETAILS_FULL);
        char buf[4096];
        snprintf(buf, sizeof buf, "\"record_offset\":%d,\"record_size\":%d", ival(tjson_get(a, "offset")),
                 ival(tjson_get(a, "size")));
        CHECK_MSG(cj && strstr(cj, buf), "%s anim %zu: %s", name, ai, buf);
        /* every raw header field */
        for (size_t k = 0; k < h->count; k++) {
            snprintf(buf, sizeof buf, "\"%s\":%d", h->keys[k], ival(&h->items[k]));
            CHECK_MSG(cj && strstr(cj, buf), "%s anim %zu: %s", name, ai, buf);
        }
        const tjson *pd = tjson_get(a, "position_deltas");
        if (pd->type == TJSON_NULL) {
            CHECK_MSG(cj && strstr(cj, "\"position_deltas_raw\":null"), "%s anim %zu deltas", name, ai);
        } else {
            int at = snprintf(buf, sizeof buf, "\"position_deltas_raw\":[");
            for (size_t r = 0; r < pd->count; r++) {
                const tjson *row = tjson_at(pd, r);
                at +=
                    snprintf(buf + at, sizeof buf - (size_t)at, "%s[%d,%d,%d,%d]", r ? "," : "", ival(tjson_at(row, 0)),
                             ival(tjson_at(row, 1)), ival(tjson_at(row, 2)), ival(tjson_at(row, 3)));
            }
            CHECK_MSG(cj && strstr(cj, buf), "%s anim %zu: %s", name, ai, buf);
        }
        const tjson *mo = tjson_get(a, "morphs");
        if (mo->type != TJSON_NULL) {
            const tjson *f0 = tjson_get(mo, "frame0"), *later = tjson_get(mo, "later_frames");
            int at = snprintf(buf, sizeof buf, "\"frame0\":[");
            for (size_t k = 0; k < f0->count; k++)
                at += snprintf(buf + at, sizeof buf - (size_t)at, "%s%d", k ? "," : "", ival(tjson_at(f0, k)));
            at += snprintf(buf + at, sizeof buf - (size_t)at, "],\"later_frames\":[");
            for (size_t r = 0; r < later->count; r++) {
                const tjson *row = tjson_at(later, r);
                at += snprintf(buf + at, sizeof buf - (size_t)at, "%s[", r ? "," : "");
                for (size_t k = 0; k < row->count; k++)
                    at += snprintf(buf + at, sizeof buf - (size_t)at, "%s%d", k ? "," : "", ival(tjson_at(row, k)));
                at += snprintf(buf + at, sizeof buf - (size_t)at, "]");
            }
            CHECK_MSG(cj && strstr(cj, buf), "%s anim %zu: %s", name, ai, buf);
        }
        const tjson *mf = tjson_get(a, "matrix_frames"), *keys = tjson_get(a, "keys");
        if (mf && mf->type == TJSON_ARRAY) {
            for (size_t f = 0; f < mf->count; f++)
                for (size_t b = 0; b < tjson_at(mf, f)->count; b++) {
                    const tjson *e = tjson_at(tjson_at(mf, f), b);
                    int s[9], t[3];
                    for (int k = 0; k < 9; k++) s[k] = ival(tjson_at(tjson_get(e, "m"), (size_t)k));
                    for (int k = 0; k < 3; k++) t[k] = ival(tjson_at(tjson_get(e, "t"), (size_t)k));
                    check_matrix(doc, (uint32_t)ai, (uint32_t)b, (uint32_t)f, s, t, name);
                }
        }
        if (keys && keys->type == TJSON_ARRAY) {
            for (size_t k = 0; k < keys->count; k++)
                for (size_t b = 0; b < tjson_at(keys, k)->count; b++) {
                    const tjson *e = tjson_at(tjson_at(keys, k), b), *q = tjson_get(e, "q"), *t = tjson_get(e, "t");
                    const ganim_track *trk = &c->tracks[b];
                    CHECK_EQ_INT(trk->rotation.kind, GANIM_CHANNEL_KEYED);
                    if (k >= trk->rotation.count) continue;
                    CHECK_EQ_INT(trk->rotation.times[k], ival(tjson_get(e, "frame")));
                    double w = ival(tjson_at(q, 0)), qx = ival(tjson_at(q, 1)), qy = ival(tjson_at(q, 2)),
                           qz = ival(tjson_at(q, 3)), len = sqrt(w * w + qx * qx + qy * qy + qz * qz);
                    const float *v = trk->rotation.values + 4 * k; /* the conjugate under sv */
                    CHECK_NEAR(v[0], -qx / len, 1e-6);
                    CHECK_NEAR(v[1], -qy / len, 1e-6);
                    CHECK_NEAR(v[2], -qz / len, 1e-6);
                    CHECK_NEAR(v[3], w / len, 1e-6);
                    for (int i = 0; i < 3; i++)
                        CHECK_EQ_INT(trk->translation.values[3 * k + (size_t)i], ival(tjson_at(t, (size_t)i)));
                }
        }
        /* the models the animation fits */
        const tjson *cm = tjson_get(a, "compatible_models");
        int at = snprintf(buf, sizeof buf, "{\"index\":%zu,\"offset\":%d,", ai, ival(tjson_get(a, "offset")));
        (void)at;
        CHECK_MSG(dj && strstr(dj, buf), "%s: %s", name, buf);
        at = snprintf(buf, sizeof buf, "\"fitting_models\":[");
        for (size_t k = 0; k < cm->count; k++)
            at += snprintf(buf + at, sizeof buf - (size_t)at, "%s%d", k ? "," : "", ival(tjson_at(cm, k)));
        CHECK_MSG(dj && strstr(dj, buf), "%s anim %zu: %s", name, ai, buf);
        free(cj);
    }
    free(dj);
    ganim_doc_free(doc);
    /* each model with --model: its mesh on its groups, animated by the fitting records */
    for (size_t mi = 0; mi < (models ? models->count : 0); mi++) {
        const tjson *m = tjson_get(x, "models") ? tjson_at(models, mi) : NULL;
        char n[32];
        snprintf(n, sizeof n, "%u", (unsigned)mi);
        doc = read_opts(path, NULL, NULL, n);
        if (!doc) continue;
        CHECK_EQ_INT(doc->mesh_count, 1);
        CHECK_EQ_INT(doc->skeleton->bone_count, ival(tjson_get(m, "group_count")));
        const ganim_mesh *mesh = &doc->meshes[0];
        CHECK_EQ_INT(mesh->vertex_count, ival(tjson_get(m, "vertex_count")));
        const tjson *gv = tjson_get(m, "group_vertex_counts"), *verts = tjson_get(m, "vertices");
        uint32_t v = 0;
        for (size_t g = 0; g < gv->count; g++)
            for (int k = 0; k < ival(tjson_at(gv, g)); k++, v++) {
                CHECK_EQ_INT(mesh->bones[v], g);
                /* back to the group's own space: the raw vertex */
                const ganim_transform *r = &doc->skeleton->bones[g].rest;
                ganim_vec3 p = { mesh->positions[3 * v] - r->translation.x,
                                 mesh->positions[3 * v + 1] - r->translation.y,
                                 mesh->positions[3 * v + 2] - r->translation.z };
                ganim_vec3 l = ganim_quat_rotate(ganim_quat_conj(r->rotation), p);
                const tjson *row = tjson_at(verts, v);
                CHECK_NEAR(l.x, ival(tjson_at(row, 0)), 0.05);
                CHECK_NEAR(l.y, ival(tjson_at(row, 1)), 0.05);
                CHECK_NEAR(l.z, ival(tjson_at(row, 2)), 0.05);
            }
        CHECK_EQ_INT(mesh->triangle_count, 2 * ival(tjson_get(m, "quad_count")) + ival(tjson_get(m, "tri_count")));
        for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
            int fits = doc->clips[ci].track_count == (uint32_t)ival(tjson_get(m, "group_count"));
            const tjson *cm = tjson_get(tjson_at(anims, ci), "compatible_models");
            int listed = 0;
            for (size_t k = 0; k < cm->count; k++) listed |= ival(tjson_at(cm, k)) == (int)mi;
            CHECK_EQ_INT(doc->clips[ci].kind == GANIM_CLIP_ANIMATION, listed);
            if (doc->clips[ci].kind == GANIM_CLIP_ANIMATION) CHECK(fits);
        }
        /* the glTF: the mesh skinned to one joint per group, animated by the fitting records */
        ganim_buffer glb = { 0 };
        ganim_error e = { 0 };
        CHECK_MSG(ganim_export_glb(doc, NULL, &glb, &e) == GANIM_OK, "%s", e.message);
        CHECK(has_bytes(&glb, "\"JOINTS_0\"") && has_bytes(&glb, "\"NORMAL\""));
        CHECK(has_bytes(&glb, "\"conventions\":{\"option\":\"sv\""));
        ganim_buffer_free(&glb);
        ganim_doc_free(doc);
    }
    tjson_free(x);
}

TEST(wads_match_expected_json)
{
    check_wad("croc2_level");
    check_wad("hp_level");
}

/* Read, write, compare: every fixture comes back byte for byte (also read with --model). */
TEST(round_trips_are_identical)
{
    static const char *const files[] = { "croc2_style_2anims.bin", "hp_style_2anims.bin", "croc2_level.wad",
                                         "hp_level.wad" };
    for (size_t i = 0; i < 4; i++) {
        for (int model = 0; model < 2; model++) {
            if (model && i < 2) continue;
            const char *path = test_path("argonaut", files[i]);
            size_t size;
            uint8_t *orig = test_read_file(path, &size);
            ganim_doc *doc = read_opts(path, NULL, NULL, model ? "1" : NULL);
            if (!doc) {
                free(orig);
                continue;
            }
            ganim_buffer out = { 0 };
            ganim_error e = { 0 };
            CHECK_MSG(ganim_write(doc, NULL, NULL, &out, &e) == GANIM_OK, "%s: %s", files[i], e.message);
            CHECK_MSG(out.size == size && memcmp(out.data, orig, size) == 0, "%s (model %d): %zu bytes vs %zu",
                      files[i], model, out.size, size);
            ganim_buffer_free(&out);
            ganim_doc_free(doc);
            free(orig);
        }
    }
}

/* Every fixture's variant from the data; the wrong one forced reads nothing that fits. */
TEST(variant_probe)
{
    static const char *const files[4][2] = { { "croc2_style_2anims.bin", "croc2" },
                                             { "hp_style_2anims.bin", "hp" },
                                             { "croc2_level.wad", "croc2" },
                                             { "hp_level.wad", "hp" } };
    for (int i = 0; i < 4; i++) {
        size_t size;
        uint8_t *data = test_read_file(test_path("argonaut", files[i][0]), &size);
        int score = 0;
        CHECK_MSG(ganim_probe(data, size, &score) == ganim_format_find("argonaut"), "%s", files[i][0]);
        ganim_doc *doc = read_opts(test_path("argonaut", files[i][0]), NULL, NULL, NULL);
        char *j = doc ? test_details_json(doc, -1, GANIM_DETAILS_SUMMARY) : NULL;
        char want[64];
        snprintf(want, sizeof want, "\"variant\":\"%s\",\"variant_from\":\"data\"", files[i][1]);
        CHECK_MSG(j && strstr(j, want), "%s: %s", files[i][0], j);
        free(j);
        ganim_doc_free(doc);
        /* the other variant, forced: a WAD's models do not fit it */
        ganim_read_opts ro = { 0 };
        ganim_setting s = { "argonaut.variant", strcmp(files[i][1], "hp") ? "hp" : "croc2" };
        ro.settings = &s;
        ro.setting_count = 1;
        ganim_error e = { 0 };
        doc = NULL;
        ganim_code c = ganim_read_memory(data, size, &ro, &doc, &e);
        if (i >= 2) CHECK_MSG(c == GANIM_ERR_CORRUPT && strstr(e.message, "model"), "%s: %s", files[i][0], e.message);
        else
            CHECK_MSG(c != GANIM_OK || doc->warning_count > 0, "%s read as the other variant without a word",
                      files[i][0]);
        ganim_doc_free(doc);
        /* data that fit neither: the error says why for both */
        uint8_t *bad = malloc(size);
        memcpy(bad, data, size);
        if (i < 2) {
            bad[0]++; /* one animation more than the block holds */
        }
        ro.setting_count = 0;
        doc = NULL;
        if (i < 2) { /* the probe still sends it to its reader, which says why */
            c = ganim_read_memory(bad, size, &ro, &doc, &e);
            CHECK_MSG(c == GANIM_ERR_CORRUPT && strstr(e.message, "neither") && strstr(e.message, "Croc 2") &&
                          strstr(e.message, "Harry Potter"),
                      "%s: %s", files[i][0], e.message);
            ganim_doc_free(doc);
        }
        free(bad);
        free(data);
    }
}

int main(void)
{
    test_program_name = "test_argonaut";
    test_testdata();
    RUN(croc2_block_readme);
    RUN(hp_block_readme);
    RUN(wads_match_expected_json);
    RUN(round_trips_are_identical);
    RUN(variant_probe);
    return test_finish();
}
