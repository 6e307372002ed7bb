/* Writing into an original (ganim_write_opts.into, --into) and sampling at a rate.
 *
 * Built documents check the rules on known answers: clips matched by name and split
 * between a clip and its partner, bones matched by name, values sampled at the original
 * clip's rate over the input's duration, the original's bits kept where a value came back
 * within the trip's rounding, and the errors that name what differs. The real samples of
 * every writable format check the modder's trip: game file -> glb -> into the game file
 * gives the bytes ganim writes for the original itself (the file's own bytes wherever the
 * format's writer gives them back), and an artist's edit of one rotation key in the glb
 * lands at that bone and frame, within the format's step, while nothing else moves. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "formats/format.h"
#include "support/tbuild.h"
#include "support/tjson.h"
#include "test.h"

/* ---- sampling at a rate --------------------------------------------------------------- */

TEST(retime_keeps_the_duration)
{
    ganim_doc *doc = tb_doc(1, NULL);
    uint32_t c = tb_clip(doc, "walk", 24, 25); /* 1 s */
    uint32_t t = tb_track(doc, c, 0, NULL, NULL);
    float v[25 * 3];
    for (int k = 0; k < 25; k++) v[k * 3] = (float)k, v[k * 3 + 1] = 0.5f, v[k * 3 + 2] = -1;
    tb_channel(doc, c, t, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, 25, NULL, v);
    ganim_error e = { 0 };
    CHECK(ganim_clip_retime(doc, c, 15, &e) == GANIM_OK);
    const ganim_clip *cl = &doc->clips[c];
    CHECK_EQ_INT(cl->frame_count, 16); /* 1 s at 15 fps: 15 intervals */
    CHECK_NEAR(cl->fps, 15, 0);
    const float *o = cl->tracks[0].translation.values;
    CHECK_NEAR(o[1 * 3], 1.6, 1e-6); /* frame 1 at 15 fps is frame 1.6 at 24 */
    CHECK_NEAR(o[7 * 3], 11.2, 1e-5);
    CHECK(o[5 * 3] == 8.0f); /* on a source frame: its value exactly */
    CHECK(o[15 * 3] == 24.0f);
    CHECK(o[15 * 3 + 1] == 0.5f && o[15 * 3 + 2] == -1.0f);
    CHECK_EQ_INT(ganim_retime_frames(26, 30, 15), 14); /* 25/2 + 1, rounded half up */
    CHECK_EQ_INT(ganim_retime_frames(1, 30, 15), 1);
    ganim_doc_free(doc);
}

/* ---- putting built clips ---------------------------------------------------------------- */

static ganim_quat about_z(double a)
{
    ganim_vec3 z = { 0, 0, 1 };
    return ganim_quat_axis_angle(z, a);
}

/* The original: bones hip, arm, weapon; body_0 (10 frames at 15 fps, hip and arm
 * rotations) plays with its partner weapon_0 (weapon translations); body_1 alone. */
static ganim_doc *original(void)
{
    static const char *const names[] = { "hip", "arm", "weapon" };
    ganim_doc *d = tb_doc(3, names);
    float rot[10 * 4], tra[10 * 3];
    for (int k = 0; k < 10; k++) {
        ganim_quat q = about_z(0.05 * k);
        memcpy(rot + k * 4, &q, sizeof q);
        tra[k * 3] = (float)k, tra[k * 3 + 1] = 0, tra[k * 3 + 2] = 0;
    }
    uint32_t body = tb_clip(d, "body_0", 15, 10);
    for (uint32_t b = 0; b < 2; b++)
        tb_channel(d, body, tb_track(d, body, b, NULL, NULL), GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 10, NULL,
                   rot);
    uint32_t weapon = tb_clip(d, "weapon_0", 15, 10);
    tb_channel(d, weapon, tb_track(d, weapon, 2, NULL, NULL), GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, 10,
               NULL, tra);
    d->clips[body].partner = weapon + 1;
    uint32_t other = tb_clip(d, "body_1", 15, 10);
    tb_channel(d, other, tb_track(d, other, 0, NULL, NULL), GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 10, NULL,
               rot);
    return d;
}

/* An edit at 30 fps: `frames` frames, hip and arm turning 0.1 rad a frame (0.2 a frame at
 * 15 fps), the weapon moving 1 a frame; bones in another order, one name in other case. */
static ganim_doc *edited(const char *name, uint32_t frames)
{
    static const char *const names[] = { "weapon", "Hip", "arm" };
    ganim_doc *d = tb_doc(3, names);
    uint32_t c = tb_clip(d, name, 30, frames);
    float *rot = malloc(frames * 4 * sizeof *rot), *tra = malloc(frames * 3 * sizeof *tra);
    for (uint32_t k = 0; k < frames; k++) {
        ganim_quat q = about_z(0.1 * k);
        memcpy(rot + k * 4, &q, sizeof q);
        tra[k * 3] = (float)k, tra[k * 3 + 1] = 0, tra[k * 3 + 2] = 0;
    }
    for (uint32_t b = 1; b < 3; b++)
        tb_channel(d, c, tb_track(d, c, b, NULL, NULL), GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, frames, NULL,
                   rot);
    tb_channel(d, c, tb_track(d, c, 0, NULL, NULL), GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, frames, NULL,
               tra);
    free(rot);
    free(tra);
    return d;
}

static double angle_z(const float *q) { return 2 * atan2(q[2], q[3]); }

TEST(put_splits_a_clip_and_its_partner)
{
    ganim_doc *t = original(), *in = edited("body_0+weapon_0", 37); /* 1.2 s: lengthened */
    ganim_error e = { 0 };
    CHECK_MSG(ganim_doc_put(t, in, NULL, 0, NULL, &e) == GANIM_OK, "%s", e.message);
    const ganim_clip *body = &t->clips[0], *weapon = &t->clips[1];
    CHECK_EQ_INT(body->frame_count, 19); /* 1.2 s at the original's 15 fps */
    CHECK_EQ_INT(weapon->frame_count, 19);
    CHECK_NEAR(body->fps, 15, 0);
    CHECK_EQ_STR(body->name, "body_0");
    CHECK_EQ_INT(body->partner, 2);
    CHECK_EQ_INT(body->track_count, 2); /* the original's bone set */
    CHECK_EQ_INT(weapon->track_count, 1);
    for (uint32_t k = 0; k < 19; k++) {
        CHECK_NEAR(angle_z(body->tracks[0].rotation.values + k * 4), 0.2 * k, 1e-5);
        CHECK_NEAR(angle_z(body->tracks[1].rotation.values + k * 4), 0.2 * k, 1e-5);
        CHECK_NEAR(weapon->tracks[0].translation.values[k * 3], 2.0 * k, 1e-5);
    }
    CHECK_EQ_INT(weapon->tracks[0].rotation.kind, GANIM_CHANNEL_ABSENT); /* not the original's channel */
    CHECK_EQ_INT(t->clips[2].frame_count, 10);                           /* body_1 untouched */
    CHECK(ganim_doc_validate(t, &e) == GANIM_OK);
    ganim_doc_free(t);
    ganim_doc_free(in);
}

TEST(put_at_the_rate_asked_for)
{
    ganim_doc *t = original(), *in = edited("body_1", 19); /* 0.6 s */
    ganim_error e = { 0 };
    CHECK_MSG(ganim_doc_put(t, in, NULL, 30, NULL, &e) == GANIM_OK, "%s", e.message);
    CHECK_EQ_INT(t->clips[2].frame_count, 19);
    CHECK_NEAR(t->clips[2].fps, 30, 0);
    CHECK_NEAR(angle_z(t->clips[2].tracks[0].rotation.values + 18 * 4), 1.8, 1e-5);
    CHECK_EQ_INT(t->clips[0].frame_count, 10);
    ganim_doc_free(t);
    ganim_doc_free(in);
}

TEST(put_into_a_slot)
{
    ganim_doc *t = original(), *in = edited("my swing", 19);
    ganim_error e = { 0 };
    CHECK(ganim_doc_put(t, in, NULL, 0, NULL, &e) == GANIM_ERR_MISMATCH); /* two mains: the name decides */
    CHECK_MSG(strstr(e.message, "'my swing'") && strstr(e.message, "0 'body_0'") && strstr(e.message, "--slot"), "%s",
              e.message);
    CHECK_EQ_INT(t->clips[0].frame_count, 10);
    CHECK_MSG(ganim_doc_put(t, in, "0", 0, NULL, &e) == GANIM_OK, "%s", e.message);
    CHECK_EQ_INT(t->clips[0].frame_count, 10); /* 0.6 s at 15 fps */
    CHECK_NEAR(t->clips[1].tracks[0].translation.values[9 * 3], 18, 1e-5);
    CHECK(ganim_doc_put(t, in, "body_9", 0, NULL, &e) == GANIM_ERR_INVALID_ARG);
    ganim_doc_free(t);
    ganim_doc_free(in);
}

TEST(put_refuses_what_does_not_fit)
{
    ganim_doc *t = original();
    ganim_error e = { 0 };
    /* a bone the original clip animates that the edit lacks */
    static const char *const two[] = { "hip", "weapon" };
    ganim_doc *in = tb_doc(2, two);
    uint32_t c = tb_clip(in, "body_0+weapon_0", 15, 2);
    static const float q[8] = { 0, 0, 0, 1, 0, 0, 0.6f, 0.8f };
    tb_channel(in, c, tb_track(in, c, 0, NULL, NULL), GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 2, NULL, q);
    CHECK(ganim_doc_put(t, in, NULL, 0, NULL, &e) == GANIM_ERR_MISMATCH);
    CHECK_MSG(strstr(e.message, "'arm'") != NULL, "%s", e.message);
    ganim_doc_free(in);
    /* a moving bone the original's skeleton does not have */
    static const char *const strange[] = { "hip", "arm", "weapon", "tail" };
    in = tb_doc(4, strange);
    c = tb_clip(in, "body_1", 15, 2);
    for (uint32_t b = 0; b < 4; b++)
        tb_channel(in, c, tb_track(in, c, b, NULL, NULL), GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 2, NULL, q);
    CHECK(ganim_doc_put(t, in, NULL, 0, NULL, &e) == GANIM_ERR_MISMATCH);
    CHECK_MSG(strstr(e.message, "'tail'") != NULL, "%s", e.message);
    ganim_doc_free(in);
    ganim_doc_free(t);
}

TEST(put_keeps_the_originals_bits)
{
    ganim_doc *t = original(), *in = edited("body_1", 19);
    const ganim_clip *o = &t->clips[2];
    float before[10 * 4];
    memcpy(before, o->tracks[0].rotation.values, sizeof before);
    /* the edit: the original's own values, through a float rounding, one frame turned */
    ganim_clip *ic = &in->clips[0];
    float *r = ganim_doc_alloc_array(in, 19 * 4, sizeof *r);
    for (uint32_t k = 0; k < 19; k++) {
        const float *src = before + (k / 2 < 10 ? k / 2 : 9) * 4;
        for (int i = 0; i < 4; i++) r[k * 4 + i] = src[i] * (1 + 3e-7f);
    }
    ganim_quat turned = about_z(1.0);
    memcpy(r + 8 * 4, &turned, sizeof turned); /* frame 4 at 15 fps */
    ic->tracks[0].rotation.values = r;         /* "Hip" */
    ganim_error e = { 0 };
    CHECK_MSG(ganim_doc_put(t, in, NULL, 0, NULL, &e) == GANIM_OK, "%s", e.message);
    o = &t->clips[2];
    CHECK_EQ_INT(o->frame_count, 10);
    for (uint32_t k = 0; k < 10; k++) {
        const float *v = o->tracks[0].rotation.values + k * 4;
        if (k == 4) CHECK_NEAR(angle_z(v), 1.0, 1e-6);
        else CHECK_MSG(memcmp(v, before + k * 4, 16) == 0, "frame %u: not the original's bits", k);
    }
    ganim_doc_free(t);
    ganim_doc_free(in);
}

TEST(write_into_checks_its_arguments)
{
    ganim_doc *t = original(), *in = edited("body_1", 3);
    ganim_write_opts wo = { 0 };
    wo.into = t; /* a built document: no format */
    ganim_buffer out = { 0 };
    ganim_error e = { 0 };
    CHECK(ganim_write(in, NULL, &wo, &out, &e) == GANIM_ERR_INVALID_ARG);
    CHECK_EQ_INT(out.size, 0);
    wo.into = NULL;
    wo.slot = "0";
    CHECK(ganim_write(in, "alamo-ala", &wo, &out, &e) == GANIM_ERR_INVALID_ARG);
    CHECK_EQ_INT(out.size, 0);
    /* an edit that breaks the model's rules is refused before anything is read from it */
    t->format = ganim_format_find("alamo-ala");
    wo.into = t;
    wo.slot = NULL;
    wo.fps = 0;
    ((float *)(uintptr_t)in->clips[0].tracks[0].rotation.values)[5] = NAN;
    CHECK(ganim_write(in, NULL, &wo, &out, &e) != GANIM_OK);
    CHECK_MSG(strstr(e.message, "finite") || strstr(e.message, "NaN") || strstr(e.message, "unit"), "%s", e.message);
    CHECK_EQ_INT(out.size, 0);
    wo.fps = -3; /* neither 0, GANIM_WRITE_KEEP_RATE nor a rate */
    ((float *)(uintptr_t)in->clips[0].tracks[0].rotation.values)[5] = 0;
    CHECK(ganim_write(in, NULL, &wo, &out, &e) == GANIM_ERR_INVALID_ARG);
    CHECK_EQ_INT(out.size, 0);
    ganim_doc_free(t);
    ganim_doc_free(in);
}

/* ---- the modder's trip on the real samples ---------------------------------------------- */

typedef struct trip_stats {
    int files, identical, as_written, edits, bare, loose;
} trip_stats;
static trip_stats stats;

static int export_glb(const ganim_doc *doc, ganim_buffer *glb)
{
    ganim_export_opts eo = { 0 };
    eo.default_clip_name = "sample";
    ganim_error e = { 0 };
    ganim_code c = ganim_export_glb(doc, &eo, glb, &e);
    CHECK_MSG(c == GANIM_OK, "export: %s", e.message);
    return c == GANIM_OK;
}

static ganim_doc *read_bytes(const uint8_t *data, size_t size, const char *format, const ganim_skeleton *sk)
{
    ganim_read_opts ro = { 0 };
    ro.format = format;
    ro.skeleton = sk;
    ganim_doc *d = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_read_memory(data, size, &ro, &d, &e) == GANIM_OK, "read back (%s): %s", format ? format : "glb",
              e.message);
    return d;
}

static int write_into(const ganim_doc *in, const ganim_doc *orig, ganim_buffer *out, const char *what)
{
    ganim_write_opts wo = { 0 };
    wo.into = orig;
    ganim_error e = { 0 };
    ganim_code c = ganim_write(in, NULL, &wo, out, &e);
    CHECK_MSG(c == GANIM_OK, "%s: --into: %s", what, e.message);
    return c == GANIM_OK;
}

/* The glb's JSON chunk and its binary chunk. */
static tjson *glb_parts(uint8_t *glb, size_t size, uint8_t **bin)
{
    if (size < 28) return NULL;
    uint32_t jlen;
    memcpy(&jlen, glb + 12, 4);
    if (20 + (size_t)jlen + 8 > size) return NULL;
    *bin = glb + 20 + jlen + 8;
    return tjson_parse((const char *)glb + 20, jlen, NULL, 0);
}

/* The glb's float values of a rotation channel of the first animation: the output
 * accessor of the channel on node `node`. */
static float *rotation_keys(const tjson *j, uint8_t *bin, uint32_t node, size_t *count, const float **times)
{
    const tjson *anim = tjson_at(tjson_get(j, "animations"), 0);
    const tjson *channels = tjson_get(anim, "channels");
    for (size_t i = 0; channels && i < channels->count; i++) {
        const tjson *ch = tjson_at(channels, i), *tg = tjson_get(ch, "target");
        if (tjson_int(tjson_get(tg, "node"), -1) != (int64_t)node) continue;
        if (strcmp(tjson_str(tjson_get(tg, "path"), ""), "rotation") != 0) continue;
        const tjson *sampler = tjson_at(tjson_get(anim, "samplers"), (size_t)tjson_int(tjson_get(ch, "sampler"), 0));
        const tjson *acc = tjson_at(tjson_get(j, "accessors"), (size_t)tjson_int(tjson_get(sampler, "output"), 0));
        const tjson *tacc = tjson_at(tjson_get(j, "accessors"), (size_t)tjson_int(tjson_get(sampler, "input"), 0));
        const tjson *view = tjson_at(tjson_get(j, "bufferViews"), (size_t)tjson_int(tjson_get(acc, "bufferView"), 0));
        const tjson *tview = tjson_at(tjson_get(j, "bufferViews"), (size_t)tjson_int(tjson_get(tacc, "bufferView"), 0));
        *count = (size_t)tjson_int(tjson_get(acc, "count"), 0);
        size_t off = (size_t)(tjson_int(tjson_get(view, "byteOffset"), 0) + tjson_int(tjson_get(acc, "byteOffset"), 0));
        size_t toff =
            (size_t)(tjson_int(tjson_get(tview, "byteOffset"), 0) + tjson_int(tjson_get(tacc, "byteOffset"), 0));
        *times = (const float *)(const void *)(bin + toff);
        return (float *)(void *)(bin + off);
    }
    return NULL;
}

/* The glTF node of skeleton bone `bone`: the joint of skin 0. */
static int64_t joint_node(const tjson *j, uint32_t bone)
{
    return tjson_int(tjson_at(tjson_get(tjson_at(tjson_get(j, "skins"), 0), "joints"), bone), -1);
}

static double rotation_angle(const float *a, const float *b)
{
    double d = fabs((double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3]);
    double na = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2] + (double)a[3] * a[3]);
    double nb = sqrt((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2] + (double)b[3] * b[3]);
    d /= na * nb;
    return 2 * acos(d > 1 ? 1 : d);
}

/* Every value of every clip of `a` and `b` the same, except clip ec's bone eb's rotation
 * at frame ef (ec == UINT32_MAX: none). Returns the first difference in `why`. */
/* How far a value the edit did not touch may move, by format: 0 (bit for bit) but where
 * a writer is known to re-encode a changed clip whole. (Where the unedited trip does not
 * give the file's own bytes, civ7 V1, the writer re-compresses every clip: only that the
 * edit landed is checked there.) The Alamo writer re-quantises every
 * rotation of a clip in which one changed, from unit quaternions, so a stored value that
 * was not unit may move by one of its 16-bit steps (1/32767): to be 0 once it keeps the
 * file's integers for the values that did not change. */
static double allowance(const ganim_format *f)
{
    if (!strcmp(f->name, "alamo-ala")) return 1.0001 / 32767;
    return 0;
}
static int moved_a_step;

static int close_enough(const float *a, const float *b, int n, double tol)
{
    if (memcmp(a, b, (size_t)n * sizeof *a) == 0) return 1;
    for (int i = 0; i < n; i++)
        if (!(fabs((double)a[i] - b[i]) <= tol)) return 0;
    moved_a_step++;
    return 1;
}

static int same_but(const ganim_doc *a, const ganim_doc *b, uint32_t ec, uint32_t eb, uint32_t ef, char *why,
                    size_t size)
{
    double tol = allowance(a->format);
    if (a->clip_count != b->clip_count) return snprintf(why, size, "clip counts differ"), 0;
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const ganim_clip *x = &a->clips[c], *y = &b->clips[c];
        if (x->kind != y->kind || x->frame_count != y->frame_count || x->track_count != y->track_count)
            return snprintf(why, size, "clip %u: kind, frames or tracks differ", c), 0;
        for (uint32_t t = 0; t < x->track_count; t++)
            for (uint32_t f = 0; f < x->frame_count; f++) {
                ganim_transform p, q;
                const ganim_track *tx = &x->tracks[t], *ty = &y->tracks[t];
                static const float r4[4] = { 0, 0, 0, 1 }, r3[3] = { 0, 0, 0 }, s3[3] = { 1, 1, 1 };
                ganim_channel_eval(&tx->rotation, x->frame_count, tx->step, x->rotation_interp, 4, f, r4,
                                   &p.rotation.x);
                ganim_channel_eval(&ty->rotation, y->frame_count, ty->step, y->rotation_interp, 4, f, r4,
                                   &q.rotation.x);
                ganim_channel_eval(&tx->translation, x->frame_count, tx->step, 0, 3, f, r3, &p.translation.x);
                ganim_channel_eval(&ty->translation, y->frame_count, ty->step, 0, 3, f, r3, &q.translation.x);
                ganim_channel_eval(&tx->scale, x->frame_count, tx->step, 0, 3, f, s3, &p.scale.x);
                ganim_channel_eval(&ty->scale, y->frame_count, ty->step, 0, 3, f, s3, &q.scale.x);
                /* the edited frame; in a keyed channel, the frames between its neighbour keys
                 * (the interpolation into and out of the edited key) */
                int edited = c == ec && tx->bone == eb && f == ef;
                if (c == ec && tx->bone == eb && tx->rotation.kind == GANIM_CHANNEL_KEYED)
                    for (uint32_t k = 0; k < tx->rotation.count; k++)
                        if (tx->rotation.times[k] == (float)ef)
                            edited |= (k == 0 || f > tx->rotation.times[k - 1]) &&
                                      (k + 1 == tx->rotation.count || f < tx->rotation.times[k + 1]);
                if (!edited && !close_enough(&p.rotation.x, &q.rotation.x, 4, tol))
                    return snprintf(why, size,
                                    "clip %u bone %u frame %u: the rotation moved (%g %g %g %g -> %g %g %g %g)", c,
                                    tx->bone, f, p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w, q.rotation.x,
                                    q.rotation.y, q.rotation.z, q.rotation.w),
                           0;
                if (!close_enough(&p.translation.x, &q.translation.x, 3, tol) ||
                    !close_enough(&p.scale.x, &q.scale.x, 3, tol))
                    return snprintf(why, size, "clip %u bone %u frame %u: a translation or scale moved", c, tx->bone,
                                    f),
                           0;
            }
    }
    return 1;
}

/* The artist's edit: the rotation of one bone at one frame of the glb turned 25 degrees;
 * back into the original, that frame carries it (within the format's step) and nothing
 * else moves. */
static void edit_one_key(const char *path, const ganim_doc *orig, ganim_buffer *glb, const uint8_t *direct,
                         size_t direct_size, int strict)
{
    /* a clip, a bone it rotates (frame by frame, not a root, where there is one; else
     * one keyed at a whole frame), a frame in the middle */
    uint32_t ec = UINT32_MAX, eb = 0, ef = 0;
    for (int pass = 0; pass < 2 && ec == UINT32_MAX; pass++) {
        const ganim_clip *cl = orig->clip_count ? &orig->clips[0] : NULL; /* the glb's first animation */
        if (!cl || cl->kind != GANIM_CLIP_ANIMATION || cl->frame_count < 3) break;
        for (uint32_t t = 0; t < cl->track_count && ec == UINT32_MAX; t++) {
            const ganim_channel *r = &cl->tracks[t].rotation;
            int root = orig->skeleton->bones[cl->tracks[t].bone].parent < 0;
            if (r->kind == GANIM_CHANNEL_PER_FRAME && (pass || !root)) {
                ec = 0, eb = cl->tracks[t].bone, ef = cl->frame_count / 2;
            } else if (pass && r->kind == GANIM_CHANNEL_KEYED && r->count >= 3) {
                float mid = r->times[r->count / 2];
                if (mid == floorf(mid) && mid > 0) ec = 0, eb = cl->tracks[t].bone, ef = (uint32_t)mid;
            }
        }
    }
    if (ec == UINT32_MAX) return;
    uint8_t *bin;
    tjson *j = glb_parts(glb->data, glb->size, &bin);
    CHECK_MSG(j != NULL, "%s: the glb's JSON", path);
    if (!j) return;
    size_t keys = 0, key_at = SIZE_MAX;
    const float *times = NULL;
    int64_t node = joint_node(j, eb);
    float *k = node >= 0 ? rotation_keys(j, bin, (uint32_t)node, &keys, &times) : NULL;
    for (size_t i = 0; k && i < keys; i++) /* the key at frame ef */
        if (fabs(times[i] * orig->clips[ec].fps - ef) < 1e-3) key_at = i;
    CHECK_MSG(k && key_at != SIZE_MAX, "%s: no rotation key for bone %u at frame %u in the glb", path, eb, ef);
    if (!k || key_at == SIZE_MAX) {
        tjson_free(j);
        return;
    }
    k += key_at * 4 - (size_t)ef * 4; /* so that k[ef * 4] is that key */
    /* as Blender would store it: the key's quaternion, turned 25 degrees about x */
    ganim_quat key = { k[ef * 4], k[ef * 4 + 1], k[ef * 4 + 2], k[ef * 4 + 3] };
    ganim_vec3 x = { 1, 0, 0 };
    ganim_quat edit = ganim_quat_normalize(ganim_quat_mul(key, ganim_quat_axis_angle(x, 25 * 3.14159265358979 / 180)));
    memcpy(k + ef * 4, &edit, sizeof edit);
    tjson_free(j);

    ganim_doc *in = read_bytes(glb->data, glb->size, NULL, NULL);
    ganim_buffer out = { 0 };
    if (in && write_into(in, orig, &out, path)) {
        ganim_doc *back = read_bytes(out.data, out.size, orig->format->name, orig->skeleton);
        ganim_doc *ref = read_bytes(direct, direct_size, orig->format->name, orig->skeleton);
        char why[200];
        if (back && ref) {
            if (strict)
                CHECK_MSG(same_but(ref, back, ec, eb, ef, why, sizeof why), "%s: edited bone %u frame %u: %s", path, eb,
                          ef, why);
            else stats.loose++;
            /* the edit landed: what the edited glb reads as, within the format's step */
            const ganim_clip *bc = NULL;
            for (uint32_t t = 0; t < back->clips[ec].track_count; t++)
                if (back->clips[ec].tracks[t].bone == eb) bc = &back->clips[ec];
            float want[4], got[4], was[4];
            static const float r4[4] = { 0, 0, 0, 1 };
            const ganim_track *it = NULL, *bt = NULL, *rt = NULL;
            for (uint32_t t = 0; t < in->clips[0].track_count; t++)
                if (!strcmp(in->skeleton->bones[in->clips[0].tracks[t].bone].name, orig->skeleton->bones[eb].name))
                    it = &in->clips[0].tracks[t];
            for (uint32_t t = 0; bc && t < bc->track_count; t++)
                if (bc->tracks[t].bone == eb) bt = &bc->tracks[t], rt = &ref->clips[ec].tracks[t];
            CHECK_MSG(it && bt && rt, "%s: the edited bone's tracks", path);
            if (it && bt && rt) {
                ganim_channel_eval(&it->rotation, in->clips[0].frame_count, NULL, 0, 4, ef, r4, want);
                ganim_channel_eval(&bt->rotation, bc->frame_count, NULL, 0, 4, ef, r4, got);
                ganim_channel_eval(&rt->rotation, bc->frame_count, NULL, 0, 4, ef, r4, was);
                double moved = rotation_angle(was, got) * 180 / 3.14159265358979;
                double off = rotation_angle(want, got) * 180 / 3.14159265358979;
                CHECK_MSG(moved > 20, "%s: the edit did not land (the key moved %.3g degrees)", path, moved);
                CHECK_MSG(off < 2, "%s: the edit landed %.3g degrees away", path, off);
                stats.edits++;
            }
        }
        ganim_doc_free(back);
        ganim_doc_free(ref);
    }
    ganim_buffer_free(&out);
    ganim_doc_free(in);
}

/* The glb as a tool that keeps none of ganim's marks gives it back: every "extras" member
 * of its JSON blanked out (spaces, so the chunk keeps its length). The reader then knows
 * neither ganim's axis conversion, nor the original names, nor that a scale of 0 marks a
 * hidden frame. */
static void strip_ganim_marks(uint8_t *glb, size_t size)
{
    uint32_t jlen;
    if (size < 20) return;
    memcpy(&jlen, glb + 12, 4);
    char *j = (char *)glb + 20, *end = j + (jlen < size - 20 ? jlen : size - 20);
    static const char key[] = "\"extras\"";
    for (char *p = j; p + sizeof key < end; p++) {
        if (memcmp(p, key, sizeof key - 1) != 0) continue;
        char *q = p + sizeof key - 1;
        while (q < end && *q != '{') q++;
        int depth = 0, in_string = 0;
        for (; q < end; q++) {
            if (in_string) {
                if (*q == '\\') q++;
                else if (*q == '"') in_string = 0;
            } else if (*q == '"') {
                in_string = 1;
            } else if (*q == '{') {
                depth++;
            } else if (*q == '}' && --depth == 0) {
                break;
            }
        }
        char *b = p - 1; /* the comma before the member, else the one after it */
        while (b > j && (*b == ' ' || *b == '\n')) b--;
        char *a = q + 1;
        while (a < end && *a == ' ') a++;
        if (*b == ',') memset(b, ' ', (size_t)(q + 1 - b));
        else if (a < end && *a == ',') memset(p, ' ', (size_t)(a + 1 - p));
        else memset(p, ' ', (size_t)(q + 1 - p));
    }
}

static void trip(const char *path)
{
    ganim_doc *orig = NULL;
    ganim_error e = { 0 };
    if (ganim_read_file(path, NULL, &orig, &e) != GANIM_OK) return;
    ganim_buffer direct = { 0 }, glb = { 0 }, out = { 0 };
    int strict = 0; /* the unedited trip gives the file's own bytes: nothing else may move */
    if (!orig->skeleton || ganim_write(orig, NULL, NULL, &direct, &e) != GANIM_OK) goto done;
    stats.files++;
    if (!export_glb(orig, &glb)) goto done;
    ganim_doc *in = read_bytes(glb.data, glb.size, NULL, NULL);
    if (in && write_into(in, orig, &out, path)) {
        /* the unedited trip writes what ganim writes for the original itself */
        CHECK_MSG(out.size == direct.size && memcmp(out.data, direct.data, out.size) == 0,
                  "%s: game -> glb -> --into differs from writing the original (%zu and %zu bytes)", path, out.size,
                  direct.size);
        size_t n;
        uint8_t *file = test_read_file(path, &n);
        if (file && n == out.size && memcmp(file, out.data, n) == 0) stats.identical++, strict = 1;
        else stats.as_written++;
        free(file);
    }
    ganim_doc_free(in);
    /* the same through a tool that drops ganim's marks */
    uint8_t *bare = malloc(glb.size);
    if (bare) {
        memcpy(bare, glb.data, glb.size);
        strip_ganim_marks(bare, glb.size);
        ganim_doc *b = read_bytes(bare, glb.size, NULL, NULL);
        ganim_buffer again = { 0 };
        if (b && write_into(b, orig, &again, path)) {
            CHECK_MSG(again.size == direct.size && memcmp(again.data, direct.data, again.size) == 0,
                      "%s: game -> glb without ganim's marks -> --into differs from writing the original", path);
            stats.bare++;
        }
        ganim_buffer_free(&again);
        ganim_doc_free(b);
        free(bare);
    }
    edit_one_key(path, orig, &glb, direct.data, direct.size, strict);
done:
    ganim_buffer_free(&direct);
    ganim_buffer_free(&glb);
    ganim_buffer_free(&out);
    ganim_doc_free(orig);
}

static const ganim_format *current;
static void trip_format(void)
{
    trip_stats before = stats;
    char **files = test_format_files(current, TEST_SAMPLES);
    for (char **p = files; *p; p++) trip(*p);
    test_free_list(files);
    printf("  %-12s %2d samples: %2d byte for byte, %2d as ganim writes the original; %2d edits checked (%d of them "
           "only for landing)\n",
           current->name, stats.files - before.files, stats.identical - before.identical,
           stats.as_written - before.as_written, stats.edits - before.edits, stats.loose - before.loose);
}

int main(void)
{
    test_program_name = "test_into";
    RUN(retime_keeps_the_duration);
    RUN(put_splits_a_clip_and_its_partner);
    RUN(put_at_the_rate_asked_for);
    RUN(put_into_a_slot);
    RUN(put_refuses_what_does_not_fit);
    RUN(put_keeps_the_originals_bits);
    RUN(write_into_checks_its_arguments);
    if (test_testdata_optional()) {
        size_t count;
        const ganim_format *const *all = ganim_formats(&count);
        for (size_t i = 0; i < count; i++) {
            if (!(all[i]->flags & GANIM_FORMAT_WRITE) || (all[i]->flags & GANIM_FORMAT_COMPANION)) continue;
            current = all[i];
            char name[96];
            snprintf(name, sizeof name, "game -> glb -> into the game: %s samples", all[i]->name);
            test_run(name, trip_format);
        }
        printf("into: %d samples, %d back byte for byte, %d as ganim writes the original (%d also without "
               "ganim's marks in the glb); %d edits checked, %d values they did not touch moved by a step\n",
               stats.files, stats.identical, stats.as_written, stats.bare, stats.edits, moved_a_step);
    } else {
        test_note_skip("test_into on the real samples");
    }
    return test_finish();
}
