/* Documents built and edited through the public API (include/ganim.h only): every value
 * copied, counts checked, growth, limits, out of memory, and an edit of a file read. */
#include <math.h>
#include <stdlib.h>

#include "test.h"

static const double PI = 3.14159265358979323846;

static ganim_quat axis_angle(float x, float y, float z, double a)
{
    ganim_vec3 v = { x, y, z };
    return ganim_quat_axis_angle(v, a);
}

/* Degrees between two rotations (Alamo's are 1e-4 off unit length: normalised first). */
static double degrees_between(ganim_quat a, ganim_quat b)
{
    double la = sqrt((double)a.x * a.x + (double)a.y * a.y + (double)a.z * a.z + (double)a.w * a.w);
    double lb = sqrt((double)b.x * b.x + (double)b.y * b.y + (double)b.z * b.z + (double)b.w * b.w);
    double d = fabs((double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w) / (la * lb);
    return 2 * acos(d > 1 ? 1 : d) * 180 / PI;
}

/* Z up, three bones (Root, Arm under it, Hand under Arm), a 5-frame clip with a
 * per-frame rotation, a keyed translation, a constant scale, visibility, step bytes and
 * two events, and an opaque slot. Every array is the caller's and is scribbled over after
 * the calls: the document must hold copies. */
static ganim_doc *build(const ganim_read_opts *opts, ganim_error *err)
{
    ganim_bone bones[3] = {
        { "Root", -1, { { 0, 0, 0, 1 }, { 0, 0, 0 }, { 1, 1, 1 } }, 0 },
        { "Arm", 0, { { 0, 0, 0, 1 }, { 0, 0, 2 }, { 1, 1, 1 } }, 0 },
        { "Hand", 1, { { 0, 0, 0, 1 }, { 1, 0, 0 }, { 1, 1, 1 } }, GANIM_BONE_HIDDEN },
    };
    char names[3][8] = { "Root", "Arm", "Hand" };
    for (int i = 0; i < 3; i++) bones[i].name = names[i];
    ganim_skeleton sk = { "rig", 3, bones, NULL, NULL, 0 };
    float rot[5 * 4], key_t[2] = { 0, 4 }, key_v[6] = { 1, 0, 0, 1, 0, 2 }, scale[3] = { 2, 2, 2 };
    for (int f = 0; f < 5; f++) {
        ganim_quat q = axis_angle(0, 1, 0, f * PI / 8);
        memcpy(rot + 4 * f, &q, sizeof q);
    }
    uint8_t vis[5] = { 1, 1, 0, 1, 1 }, step[5] = { 0, 1, 0, 0, 0 };
    ganim_track tracks[2];
    memset(tracks, 0, sizeof tracks);
    tracks[0].bone = 1;
    tracks[0].name = "Arm";
    tracks[0].rotation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, 5, NULL, rot };
    tracks[0].visibility = vis;
    tracks[0].step = step;
    tracks[1].bone = 2;
    tracks[1].translation = (ganim_channel){ GANIM_CHANNEL_KEYED, 2, key_t, key_v };
    tracks[1].scale = (ganim_channel){ GANIM_CHANNEL_CONSTANT, 1, NULL, scale };
    ganim_event events[2] = { { 1, 7 }, { 3.5f, 9 } };
    char clip_name[8] = "wave";
    ganim_clip clip = { 0 };
    clip.name = clip_name;
    clip.fps = 30;
    clip.frame_count = 5;
    clip.track_count = 2;
    clip.tracks = tracks;
    clip.event_count = 2;
    clip.events = events;
    uint8_t slot_bytes[3] = { 1, 2, 3 };
    ganim_clip slot = { 0 };
    slot.name = "slot";
    slot.kind = GANIM_CLIP_OPAQUE;
    slot.opaque = slot_bytes;
    slot.opaque_size = 3;
    ganim_doc *doc = NULL;
    uint32_t index = 99;
    if (ganim_doc_new(opts, &doc, err) != GANIM_OK) return NULL;
    if (ganim_doc_set_skeleton(doc, &sk, err) != GANIM_OK || ganim_doc_add_clip(doc, &clip, &index, err) != GANIM_OK ||
        ganim_doc_add_clip(doc, &slot, NULL, err) != GANIM_OK) {
        ganim_doc_free(doc);
        return NULL;
    }
    CHECK_EQ_INT(index, 0);
    doc->axes = GANIM_AXES_Z_UP;
    /* the caller's memory is reused: the document must not see it */
    memset(names, 'x', sizeof names);
    memset(rot, 0xFF, sizeof rot);
    memset(key_v, 0, sizeof key_v);
    memset(vis, 7, sizeof vis);
    memset(events, 0, sizeof events);
    memset(clip_name, 0, sizeof clip_name);
    memset(slot_bytes, 0, sizeof slot_bytes);
    memset(bones, 0, sizeof bones);
    return doc;
}

TEST(built_document_holds_copies)
{
    ganim_error err = { 0 };
    ganim_doc *doc = build(NULL, &err);
    CHECK_MSG(doc != NULL, "%s", err.message);
    if (!doc) return;
    CHECK_OK(ganim_doc_validate(doc, NULL));
    CHECK(doc->format == NULL && doc->axes == GANIM_AXES_Z_UP);
    CHECK_EQ_STR(doc->skeleton->name, "rig");
    CHECK_EQ_STR(doc->skeleton->bones[2].name, "Hand");
    CHECK_EQ_INT(doc->skeleton->bones[2].parent, 1);
    CHECK_EQ_INT(doc->skeleton->bones[2].flags, GANIM_BONE_HIDDEN);
    CHECK_NEAR(doc->skeleton->bones[1].rest.translation.z, 2, 0);
    CHECK_EQ_INT(doc->clip_count, 2);
    const ganim_clip *c = &doc->clips[0];
    CHECK_EQ_STR(c->name, "wave");
    CHECK(c->fps == 30 && c->frame_count == 5 && c->track_count == 2 && c->event_count == 2);
    CHECK(c->events[1].frame == 3.5f && c->events[1].id == 9);
    CHECK_EQ_STR(c->tracks[0].name, "Arm");
    CHECK_EQ_STR(c->tracks[1].name, ""); /* NULL name: "" */
    ganim_quat q = axis_angle(0, 1, 0, 3 * PI / 8);
    CHECK(memcmp(c->tracks[0].rotation.values + 12, &q, sizeof q) == 0);
    CHECK(c->tracks[0].visibility[2] == 0 && c->tracks[0].visibility[3] == 1 && c->tracks[0].step[1] == 1);
    CHECK(c->tracks[1].translation.times[1] == 4 && c->tracks[1].translation.values[5] == 2);
    CHECK(c->tracks[1].scale.kind == GANIM_CHANNEL_CONSTANT && c->tracks[1].scale.values[0] == 2);
    CHECK(c->tracks[1].rotation.kind == GANIM_CHANNEL_ABSENT && c->tracks[1].rotation.values == NULL);
    CHECK(doc->clips[1].kind == GANIM_CLIP_OPAQUE && doc->clips[1].opaque_size == 3 && doc->clips[1].opaque[2] == 3);
    /* sampling sees the keyed translation half way: (1, 0, 1) at frame 2 */
    ganim_transform pose[3];
    CHECK_OK(ganim_clip_sample(c, doc->skeleton, 2 / 30.0, pose, NULL, NULL));
    CHECK_NEAR(pose[2].translation.z, 1, 1e-6);
    CHECK_NEAR(pose[2].translation.x, 1, 0);
    ganim_doc_free(doc);
}

/* A built document writes and reads back as any format that can hold it. */
TEST(built_document_writes_and_reads_back)
{
    ganim_doc *doc = build(NULL, NULL);
    if (!doc) return;
    ganim_buffer out = { 0 };
    ganim_error err = { 0 };
    CHECK_MSG(ganim_write(doc, "alamo-ala", NULL, &out, &err) == GANIM_OK, "%s", err.message);
    ganim_read_opts ro = { 0 };
    ro.skeleton = doc->skeleton;
    ganim_doc *back = NULL;
    CHECK_MSG(ganim_read_memory(out.data, out.size, &ro, &back, &err) == GANIM_OK, "%s", err.message);
    if (back) {
        const ganim_clip *a = &doc->clips[0], *b = &back->clips[0];
        CHECK_EQ_INT(b->frame_count, 5);
        for (int f = 0; f < 5; f++) {
            ganim_transform pa[3], pb[3];
            uint8_t va[3], vb[3];
            CHECK_OK(ganim_clip_sample(a, doc->skeleton, f / 30.0, pa, va, NULL));
            CHECK_OK(ganim_clip_sample(b, back->skeleton, f / 30.0, pb, vb, NULL));
            for (int i = 0; i < 3; i++) {
                CHECK(degrees_between(pa[i].rotation, pb[i].rotation) < 0.01); /* 16-bit components */
                CHECK_NEAR(pa[i].translation.z, pb[i].translation.z, 2.0 / 65535);
                CHECK_NEAR(pa[i].scale.x, pb[i].scale.x, 0);
                CHECK_EQ_INT(va[i], vb[i]);
            }
        }
        ganim_doc_free(back);
    }
    ganim_buffer_free(&out);
    CHECK_OK(ganim_export_glb(doc, NULL, &out, NULL));
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

TEST(counts_are_checked_when_copied)
{
    ganim_doc *doc = build(NULL, NULL);
    if (!doc) return;
    ganim_error err = { 0 };
    const float v[8] = { 0, 0, 0, 1, 0, 0, 0, 1 };
    ganim_channel ch = { GANIM_CHANNEL_PER_FRAME, 2, NULL, v }; /* 2 values, 5 frames */
    CHECK_EQ_INT(ganim_doc_set_channel(doc, 0, 0, GANIM_TARGET_ROTATION, &ch, &err), GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(err.message, "clip 0 track 0: rotation") && strstr(err.message, "one value per frame (5)"), "%s",
              err.message);
    ch = (ganim_channel){ GANIM_CHANNEL_CONSTANT, 2, NULL, v };
    CHECK_EQ_INT(ganim_doc_set_channel(doc, 0, 0, GANIM_TARGET_ROTATION, &ch, &err), GANIM_ERR_INVALID_ARG);
    ch = (ganim_channel){ GANIM_CHANNEL_KEYED, 2, NULL, v }; /* keys without times */
    CHECK_EQ_INT(ganim_doc_set_channel(doc, 0, 0, GANIM_TARGET_ROTATION, &ch, &err), GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(err.message, "key times"), "%s", err.message);
    ch = (ganim_channel){ GANIM_CHANNEL_CONSTANT, 1, NULL, NULL };
    CHECK_EQ_INT(ganim_doc_set_channel(doc, 0, 0, GANIM_TARGET_ROTATION, &ch, &err), GANIM_ERR_INVALID_ARG);
    ch = (ganim_channel){ (ganim_channel_kind)9, 1, NULL, v };
    CHECK_EQ_INT(ganim_doc_set_channel(doc, 0, 0, GANIM_TARGET_ROTATION, &ch, &err), GANIM_ERR_INVALID_ARG);
    ch = (ganim_channel){ GANIM_CHANNEL_CONSTANT, 1, NULL, v };
    CHECK_EQ_INT(ganim_doc_set_channel(doc, 0, 5, GANIM_TARGET_ROTATION, &ch, &err), GANIM_ERR_INVALID_ARG);
    CHECK_EQ_INT(ganim_doc_set_channel(doc, 3, 0, GANIM_TARGET_ROTATION, &ch, &err), GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(err.message, "no clip 3"), "%s", err.message);
    CHECK_EQ_INT(ganim_doc_set_channel(doc, 0, 0, (ganim_channel_target)3, &ch, &err), GANIM_ERR_INVALID_ARG);
    /* nothing changed by the refusals */
    CHECK(doc->clips[0].tracks[0].rotation.kind == GANIM_CHANNEL_PER_FRAME &&
          doc->clips[0].tracks[0].rotation.count == 5);
    ganim_clip c = { 0 };
    c.frame_count = 2;
    c.track_count = 1; /* tracks announced, none given */
    CHECK_EQ_INT(ganim_doc_add_clip(doc, &c, NULL, &err), GANIM_ERR_INVALID_ARG);
    c.track_count = 0;
    c.event_count = 1;
    CHECK_EQ_INT(ganim_doc_add_clip(doc, &c, NULL, &err), GANIM_ERR_INVALID_ARG);
    CHECK_EQ_INT(doc->clip_count, 2);
    ganim_track t = { 0 };
    uint8_t vis[1] = { 1 };
    t.visibility = vis;
    c.event_count = 0;
    c.frame_count = 0;
    CHECK_OK(ganim_doc_add_clip(doc, &c, NULL, &err)); /* an empty clip: validation's business */
    CHECK_EQ_INT(ganim_doc_add_track(doc, 2, &t, NULL, &err), GANIM_ERR_INVALID_ARG); /* bytes for no frames */
    CHECK_EQ_INT(ganim_doc_set_events(doc, 0, NULL, 2, &err), GANIM_ERR_INVALID_ARG);
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT); /* clip 2 has no frames, no fps */
    ganim_skeleton bad = { "", 2, NULL, NULL, NULL, 0 };
    CHECK_EQ_INT(ganim_doc_set_skeleton(doc, &bad, &err), GANIM_ERR_INVALID_ARG);
    CHECK_EQ_INT(doc->skeleton->bone_count, 3);
    CHECK_EQ_INT(ganim_doc_new(NULL, NULL, &err), GANIM_ERR_INVALID_ARG);
    ganim_doc_free(doc);
}

/* Many clips and tracks, added one at a time: the arrays grow, the values stay. */
TEST(growth_keeps_values)
{
    ganim_doc *doc = NULL;
    CHECK_OK(ganim_doc_new(NULL, &doc, NULL));
    ganim_bone bones[300];
    for (int i = 0; i < 300; i++) {
        bones[i].name = "b";
        bones[i].parent = i - 1;
        bones[i].rest = ganim_transform_identity();
        bones[i].flags = 0;
    }
    ganim_skeleton sk = { "", 300, bones, NULL, NULL, 0 };
    CHECK_OK(ganim_doc_set_skeleton(doc, &sk, NULL));
    for (uint32_t k = 0; k < 40; k++) {
        ganim_clip c = { 0 };
        c.fps = 10 + k;
        c.frame_count = 1;
        uint32_t index;
        CHECK_OK(ganim_doc_add_clip(doc, &c, &index, NULL));
        CHECK_EQ_INT(index, k);
        for (uint32_t b = 0; b < (k == 39 ? 300u : 3u); b++) {
            float t[3] = { (float)k, (float)b, 0 };
            ganim_track tr = { 0 };
            tr.bone = b;
            tr.translation = (ganim_channel){ GANIM_CHANNEL_CONSTANT, 1, NULL, t };
            CHECK_OK(ganim_doc_add_track(doc, index, &tr, NULL, NULL));
        }
    }
    CHECK_OK(ganim_doc_validate(doc, NULL));
    int ok = 1;
    for (uint32_t k = 0; k < 40; k++) {
        const ganim_clip *c = &doc->clips[k];
        ok &= c->fps == 10 + k && c->track_count == (k == 39 ? 300u : 3u);
        for (uint32_t b = 0; b < c->track_count; b++)
            ok &= c->tracks[b].bone == b && c->tracks[b].translation.values[0] == (float)k &&
                  c->tracks[b].translation.values[1] == (float)b;
    }
    CHECK(ok);
    /* a clip replaced keeps its place; a track added to it grows its array */
    ganim_clip c = { 0 };
    c.name = "new";
    c.fps = 5;
    c.frame_count = 2;
    CHECK_OK(ganim_doc_set_clip(doc, 3, &c, NULL));
    ganim_track tr = { 0 };
    tr.bone = 7;
    uint32_t ti = 9;
    CHECK_OK(ganim_doc_add_track(doc, 3, &tr, &ti, NULL));
    CHECK(ti == 0 && doc->clips[3].track_count == 1 && !strcmp(doc->clips[3].name, "new"));
    CHECK(doc->clips[4].fps == 14 && doc->clips[4].track_count == 3);
    ganim_doc_free(doc);
}

TEST(limits_apply_to_built_documents)
{
    ganim_read_opts o = { 0 };
    o.limits.frames = 4; /* the clip has 5 */
    ganim_error err = { 0 };
    ganim_doc *doc = build(&o, &err);
    CHECK(doc != NULL);
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_LIMIT);
    CHECK_MSG(strstr(err.message, "ganim_limits.frames"), "%s", err.message);
    ganim_doc_free(doc);
    o.limits.frames = 0;
    o.memory_limit = 4096; /* the arena's first block is larger */
    CHECK(build(&o, &err) == NULL);
    CHECK(err.code == GANIM_ERR_NOMEM);
}

/* ---- out of memory: every allocation refused in turn, nothing leaks ----------------------- */

typedef struct counting {
    long fail_at, calls;
    size_t live, blocks;
} counting;

static void *c_alloc(void *user, size_t size)
{
    counting *c = user;
    if (++c->calls == c->fail_at) return NULL;
    void *p = malloc(size);
    if (p) c->live += size, c->blocks++;
    return p;
}
static void *c_realloc(void *user, void *p, size_t old, size_t size)
{
    counting *c = user;
    if (++c->calls == c->fail_at) return NULL;
    void *q = realloc(p, size);
    if (q) c->live = c->live - old + size;
    return q;
}
static void c_free(void *user, void *p, size_t size)
{
    counting *c = user;
    if (p) c->live -= size, c->blocks--;
    free(p);
}

TEST(out_of_memory_everywhere)
{
    int done = 0;
    for (long n = 1; n < 200 && !done; n++) {
        counting c = { n, 0, 0, 0 };
        ganim_read_opts o = { 0 };
        o.allocator = (ganim_allocator){ c_alloc, c_realloc, c_free, &c };
        ganim_error err = { 0 };
        ganim_doc *doc = build(&o, &err);
        if (doc) {
            done = 1;
            ganim_doc_free(doc);
        } else {
            CHECK_MSG(err.code == GANIM_ERR_NOMEM, "allocation %ld: %d %s", n, err.code, err.message);
        }
        CHECK_MSG(c.live == 0 && c.blocks == 0, "allocation %ld: %zu bytes in %zu blocks leaked", n, c.live, c.blocks);
    }
    CHECK(done);
}

/* ---- editing a file read: one value changed, written back, read again --------------------- */

TEST(edit_a_file_that_was_read)
{
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    if (ganim_read_file(GANIM_SOURCE_DIR "/examples/crane_wave_00.ala", NULL, &doc, &err) != GANIM_OK) {
        CHECK_MSG(0, "%s", err.message);
        return;
    }
    /* turn the boom (track 1) 20 degrees further at frame 10 */
    const ganim_clip *c = &doc->clips[0];
    uint32_t n = c->frame_count;
    float *v = malloc((size_t)n * 4 * sizeof *v);
    memcpy(v, c->tracks[1].rotation.values, (size_t)n * 4 * sizeof *v);
    ganim_quat q = { v[40], v[41], v[42], v[43] };
    q = ganim_quat_mul(q, axis_angle(0, 1, 0, PI / 9));
    memcpy(v + 40, &q, sizeof q);
    ganim_channel ch = { GANIM_CHANNEL_PER_FRAME, n, NULL, v };
    CHECK_OK(ganim_doc_set_channel(doc, 0, 1, GANIM_TARGET_ROTATION, &ch, NULL));
    free(v);
    ganim_buffer out = { 0 };
    CHECK_MSG(ganim_write(doc, NULL, NULL, &out, &err) == GANIM_OK, "%s", err.message);
    ganim_read_opts ro = { 0 };
    ro.skeleton = doc->skeleton;
    ganim_doc *back = NULL, *orig = NULL;
    CHECK_OK(ganim_read_memory(out.data, out.size, &ro, &back, NULL));
    CHECK_OK(ganim_read_file(GANIM_SOURCE_DIR "/examples/crane_wave_00.ala", NULL, &orig, NULL));
    if (back && orig) {
        const ganim_clip *a = &orig->clips[0], *b = &back->clips[0];
        for (uint32_t t = 0; t < a->track_count; t++)
            for (uint32_t f = 0; f < n; f++) {
                const float *x = a->tracks[t].rotation.values + (a->tracks[t].rotation.count > 1 ? 4 * f : 0);
                const float *y = b->tracks[t].rotation.values + (b->tracks[t].rotation.count > 1 ? 4 * f : 0);
                ganim_quat qx = { x[0], x[1], x[2], x[3] }, qy = { y[0], y[1], y[2], y[3] };
                double angle = degrees_between(qx, qy);
                if (t == 1 && f == 10) CHECK_NEAR(angle, 20, 0.01);
                else CHECK_MSG(!memcmp(&qx, &qy, sizeof qx), "track %u frame %u moved %g degrees", t, f, angle);
            }
    }
    ganim_doc_free(back);
    ganim_doc_free(orig);
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

/* What ganim_doc_validate refuses, every public function that reads a document refuses
 * too, with the same code and a sentence, before it reads an array (ASan would see it):
 * a bone whose parent lies outside the skeleton, and a clip whose frame count was raised
 * in place past its per-frame arrays. Every writable format of the registry, every
 * exporter, resampling, details and clip lookup. */
static void refused_like_validate(const ganim_doc *doc, ganim_code want, const char *what, const char *call,
                                  ganim_code got, const ganim_error *err)
{
    CHECK_MSG(got == want, "%s: %s gave %s, validate %s", what, call, ganim_code_name(got), ganim_code_name(want));
    CHECK_MSG(err->message[0] != 0, "%s: %s refused without a sentence", what, call);
    (void)doc;
}

static void everything_refuses(ganim_doc *doc, const char *what)
{
    ganim_error verr = { 0 };
    ganim_code want = ganim_doc_validate(doc, &verr);
    CHECK_MSG(want == GANIM_ERR_CORRUPT, "%s: validate gave %s", what, ganim_code_name(want));
    size_t count = 0, writable = 0;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++) {
        if (!(all[i]->flags & GANIM_FORMAT_WRITE)) continue;
        writable++;
        ganim_buffer out = { 0 };
        ganim_error e = { 0 };
        refused_like_validate(doc, want, what, all[i]->name, ganim_write(doc, all[i]->name, NULL, &out, &e), &e);
        CHECK_MSG(out.size == 0, "%s: %s wrote %zu bytes", what, all[i]->name, out.size);
        ganim_buffer_free(&out);
    }
    CHECK(writable >= 5); /* alamo, ff7, civ7, argonaut, ... */
    ganim_buffer a = { 0 }, b = { 0 };
    ganim_error e = { 0 };
    refused_like_validate(doc, want, what, "glb", ganim_export_glb(doc, NULL, &a, &e), &e);
    memset(&e, 0, sizeof e);
    refused_like_validate(doc, want, what, "gltf", ganim_export_gltf(doc, NULL, &a, &b, &e), &e);
    memset(&e, 0, sizeof e);
    refused_like_validate(doc, want, what, "bvh", ganim_export_bvh(doc, NULL, &a, &e), &e);
    memset(&e, 0, sizeof e);
    refused_like_validate(doc, want, what, "json", ganim_export_json(doc, NULL, &a, &e), &e);
    memset(&e, 0, sizeof e);
    refused_like_validate(doc, want, what, "info json", ganim_export_info_json(doc, NULL, &a, &e), &e);
    CHECK(a.size == 0 && b.size == 0);
    ganim_buffer_free(&a);
    ganim_buffer_free(&b);
    memset(&e, 0, sizeof e);
    refused_like_validate(doc, want, what, "resample", ganim_doc_resample(doc, 2, &e), &e);
    memset(&e, 0, sizeof e);
    ganim_details *d = NULL;
    refused_like_validate(doc, want, what, "details", ganim_doc_details(doc, 0, GANIM_DETAILS_FULL, NULL, &d, &e), &e);
    CHECK(d == NULL);
    ganim_details_free(d);
    memset(&e, 0, sizeof e);
    uint32_t index = 0;
    refused_like_validate(doc, want, what, "find clip", ganim_doc_find_clip(doc, "wave", &index, &e), &e);
}

TEST(broken_documents_are_refused_everywhere)
{
    ganim_doc *doc = build(NULL, NULL);
    CHECK(doc != NULL);
    if (!doc) return;
    doc->skeleton->bones[2].parent = 7; /* outside the skeleton */
    everything_refuses(doc, "bad parent");
    doc->skeleton->bones[2].parent = 1;
    CHECK_OK(ganim_doc_validate(doc, NULL));
    doc->clips[0].frame_count = 9; /* the per-frame rotation has 5 */
    everything_refuses(doc, "raised frame count");
    ganim_transform pose[3];
    ganim_error e = { 0 };
    CHECK(ganim_clip_sample(&doc->clips[0], doc->skeleton, 0.2, pose, NULL, &e) == GANIM_ERR_CORRUPT);
    CHECK(strstr(e.message, "does not fit the clip's 9 frames") != NULL);
    ganim_doc_free(doc);
}

int main(void)
{
    RUN(built_document_holds_copies);
    RUN(built_document_writes_and_reads_back);
    RUN(counts_are_checked_when_copied);
    RUN(growth_keeps_values);
    RUN(limits_apply_to_built_documents);
    RUN(out_of_memory_everywhere);
    RUN(edit_a_file_that_was_read);
    RUN(broken_documents_are_refused_everywhere);
    return test_finish();
}
