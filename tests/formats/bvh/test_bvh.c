/* The BVH reader: known answers on a hand-written motion-capture file (CMU-style:
 * positions on the root and on a joint, ZXY, XYZ, ZYX and partial rotation orders, End
 * Sites, 120 fps), Blender's BVH export of a rig against Blender's glTF export of the same
 * rig at every frame, ganim's own conventions (the synthetic root, bvh.axes), the
 * positions option, frame rates, lenient text (CRLF, names with spaces, "End site" names,
 * braces on the same line, short files) and clear errors. */
#include <ctype.h>
#include <stdlib.h>

#include "formats/bvh/bvh.h"
#include "io/decimal.h"
#include "support/tpeak.h"
#include "test.h"

#define PI 3.14159265358979323846

static const char *data(const char *sub, const char *name)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/tests/data/%s/%s", GANIM_SOURCE_DIR, sub, name);
    return buf[k];
}

static ganim_doc *read_text(const char *text, const ganim_read_opts *o, ganim_code want, ganim_error *e)
{
    ganim_doc *d = NULL;
    ganim_error local = { 0 };
    if (!e) e = &local;
    ganim_code c = ganim_read_memory(text, strlen(text), o, &d, e);
    CHECK_MSG(c == want, "read: code %d (%s), wanted %d", c, e->message, want);
    return d;
}

/* R = Ra(a) Rb(b) Rc(c) for axes "ZXY" etc., angles in degrees by axis (x, y, z). */
static void euler_matrix(const char *order, const double deg[3], double m[9])
{
    double r[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    for (int k = 0; k < 3; k++) {
        int a = order[k] - 'X';
        double t = deg[a] * PI / 180, c = cos(t), s = sin(t), e[9], o[9];
        for (int i = 0; i < 9; i++) e[i] = i % 4 == 0;
        int p = (a + 1) % 3, q = (a + 2) % 3;
        e[p * 3 + p] = c, e[p * 3 + q] = -s, e[q * 3 + p] = s, e[q * 3 + q] = c;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                o[i * 3 + j] = r[i * 3] * e[j] + r[i * 3 + 1] * e[3 + j] + r[i * 3 + 2] * e[6 + j];
        memcpy(r, o, sizeof r);
    }
    memcpy(m, r, sizeof r);
}

/* The rotation q turns each axis into the matrix's column. */
static void check_rotation(const float *q, const char *order, double x, double y, double z, const char *what)
{
    double deg[3] = { x, y, z }, m[9];
    euler_matrix(order, deg, m);
    ganim_quat qq = { q[0], q[1], q[2], q[3] };
    for (int c = 0; c < 3; c++) {
        ganim_vec3 axis = { c == 0, c == 1, c == 2 }, r = ganim_quat_rotate(qq, axis);
        CHECK_MSG(fabs(r.x - m[c]) < 1e-6 && fabs(r.y - m[3 + c]) < 1e-6 && fabs(r.z - m[6 + c]) < 1e-6,
                  "%s: axis %d goes to (%g %g %g), not (%g %g %g)", what, c, r.x, r.y, r.z, m[c], m[3 + c], m[6 + c]);
    }
}

static const ganim_track *track_of(const ganim_clip *c, uint32_t bone)
{
    for (uint32_t i = 0; i < c->track_count; i++)
        if (c->tracks[i].bone == bone) return &c->tracks[i];
    return NULL;
}

static const float *value(const ganim_channel *ch, uint32_t frame, int comps)
{
    return ch->values + (ch->kind == GANIM_CHANNEL_CONSTANT ? 0 : (size_t)frame * (size_t)comps);
}

TEST(cmu_style_known_answers)
{
    ganim_doc *d = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_read_file(data("bvh", "cmu_style.bvh"), NULL, &d, &e) == GANIM_OK, "%s", e.message);
    if (!d) return;
    const ganim_skeleton *sk = d->skeleton;
    static const char *const names[6] = { "Hips", "LeftUpLeg", "LeftLeg", "Spine", "Neck", "Head" };
    static const int parents[6] = { -1, 0, 1, 0, 3, 4 };
    CHECK_EQ_INT(sk->bone_count, 6);
    for (uint32_t i = 0; i < 6 && i < sk->bone_count; i++) {
        CHECK_EQ_STR(sk->bones[i].name, names[i]);
        CHECK_EQ_INT(sk->bones[i].parent, parents[i]);
    }
    CHECK(sk->bones[2].rest.translation.y == -18.34f && sk->bones[1].rest.translation.x == 3.91f);
    const ganim_clip *c = &d->clips[0];
    CHECK(c->fps == 120 && c->frame_count == 4 && d->axes == GANIM_AXES_Y_UP);
    const ganim_track *hips = track_of(c, 0), *up = track_of(c, 1), *leg = track_of(c, 2), *spine = track_of(c, 3);
    const ganim_track *neck = track_of(c, 4), *head = track_of(c, 5);
    CHECK(hips && up && leg && spine && neck && head);
    if (!hips || !up || !leg || !spine || !neck || !head) goto done;
    const float *p = value(&hips->translation, 0, 3);
    CHECK(p[0] == 8.03f && p[1] == 35.01f && p[2] == 88.36f);
    check_rotation(value(&hips->rotation, 0, 4), "ZXY", 14.78, -164.35, -3.41, "Hips frame 0");
    check_rotation(value(&up->rotation, 1, 4), "ZXY", 45, 60, 30, "LeftUpLeg frame 1");
    check_rotation(value(&up->rotation, 3, 4), "ZXY", -45, -60, -30, "LeftUpLeg frame 3");
    check_rotation(value(&leg->rotation, 1, 4), "XYZ", 90, 0, 0, "LeftLeg frame 1");
    check_rotation(value(&leg->rotation, 3, 4), "XYZ", 0, 0, 90, "LeftLeg frame 3");
    check_rotation(value(&spine->rotation, 1, 4), "ZYX", 30, -20, 10, "Spine frame 1");
    check_rotation(value(&head->rotation, 1, 4), "YXZ", 0, 15, 0, "Head frame 1");
    check_rotation(value(&neck->rotation, 3, 4), "ZXY", 45, 45, 45, "Neck frame 3");
    /* the Neck's positions replace its OFFSET (Blender's reading) */
    p = value(&neck->translation, 2, 3);
    CHECK(p[0] == 1.5f && p[1] == 19.15f && p[2] == -0.5f);
    CHECK(head->translation.kind == GANIM_CHANNEL_ABSENT);
    ganim_doc_free(d);
    /* added to it with bvh.positions=add (three.js's reading) */
    ganim_setting s = { "bvh.positions", "add" };
    ganim_read_opts o = { 0 };
    o.settings = &s;
    o.setting_count = 1;
    d = NULL;
    CHECK_OK(ganim_read_file(data("bvh", "cmu_style.bvh"), &o, &d, NULL));
    if (d) {
        neck = track_of(&d->clips[0], 4);
        p = value(&neck->translation, 2, 3);
        CHECK_NEAR(p[1], 19.15 + 18.65, 1e-5);
    }
done:
    ganim_doc_free(d);
}

static void world(const ganim_doc *d, const ganim_clip *c, double t, float *out)
{
    const ganim_skeleton *sk = d->skeleton;
    ganim_transform *loc = malloc(sk->bone_count * sizeof *loc);
    float *m = malloc(sk->bone_count * 16 * sizeof *m);
    CHECK_OK(ganim_clip_sample(c, sk, t, loc, NULL, NULL));
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        float l[16];
        ganim_mat4_from_transform(&loc[i], l);
        if (sk->bones[i].parent < 0) memcpy(m + 16 * i, l, sizeof l);
        else ganim_mat4_mul(m + 16 * sk->bones[i].parent, l, m + 16 * i);
        memcpy(out + 3 * i, m + 16 * i + 12, 3 * sizeof *out);
    }
    free(loc);
    free(m);
}

TEST(blender_bvh_matches_blender_gltf)
{
    /* Blender writes BVH in the armature's own Z-up space, with 6 channels on joints that
     * are not connected to their parent; its glTF export of the same rig is Y up and adds
     * the armature object's transform (moved (1, 0.5, 0), turned 30 deg about Z, scaled 2:
     * tests/data/gltf/make_blender_fixtures.py). Its BVH frames start at frame 1. */
    ganim_doc *b = NULL, *g = NULL;
    CHECK_OK(ganim_read_file(data("bvh", "blender_rig.bvh"), NULL, &b, NULL));
    CHECK_OK(ganim_read_file(data("gltf", "blender_rig_baked.glb"), NULL, &g, NULL));
    if (!b || !g) goto done;
    CHECK(b->clips[0].fps == 24 && b->clips[0].frame_count == 30);
    double worst = 0;
    const double c30 = cos(PI / 6), s30 = sin(PI / 6);
    for (uint32_t f = 1; f <= 30; f++) {
        float wb[12], wg[12];
        world(b, &b->clips[0], (f - 1) / 24.0, wb);
        world(g, &g->clips[0], f / 24.0, wg);
        for (int i = 0; i < 4; i++) {
            const float *p = wb + 3 * i;
            double y[3] = { 2 * p[0], 2 * p[2], -2 * p[1] }; /* Z up -> Y up, scaled */
            double w[3] = { 1 + c30 * y[0] + s30 * y[2], y[1], -0.5 - s30 * y[0] + c30 * y[2] };
            for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(w[k] - wg[3 * i + k]));
        }
    }
    CHECK_MSG(worst < 2e-4, "Blender's BVH and glTF exports differ by %g", worst);
done:
    ganim_doc_free(b);
    ganim_doc_free(g);
}

TEST(ganim_conventions)
{
    /* two roots under ganim's synthetic root, a Z-up model turned upright */
    const char *text = "HIERARCHY\nROOT ganim_root\n{\n\tOFFSET 0 0 0\n"
                       "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                       "\tJOINT a\n\t{\n\t\tOFFSET 0 0 0\n"
                       "\t\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                       "\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 1 0\n\t\t}\n\t}\n"
                       "\tJOINT b\n\t{\n\t\tOFFSET 0 0 0\n"
                       "\t\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                       "\t\tJOINT c\n\t\t{\n\t\t\tOFFSET 0 2 0\n\t\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
                       "\t\t\tEnd Site\n\t\t\t{\n\t\t\t\tOFFSET 0 1 0\n\t\t\t}\n\t\t}\n\t}\n}\n"
                       "MOTION\nFrames: 2\nFrame Time: 0.0333333333\n"
                       "0 0 0 0 0 0 1 2 3 0 -90 0 4 5 6 0 0 0 10 0 0\n"
                       "0 0 0 0 0 0 1 2 3 0 -90 0 4 5 6 0 0 0 20 0 0\n";
    ganim_setting s = { "bvh.axes", "z-up" };
    ganim_read_opts o = { 0 };
    o.settings = &s;
    o.setting_count = 1;
    ganim_doc *d = read_text(text, &o, GANIM_OK, NULL);
    if (!d) return;
    CHECK(d->axes == GANIM_AXES_Z_UP && d->skeleton->bone_count == 3);
    CHECK(d->skeleton->bones[0].parent == -1 && d->skeleton->bones[1].parent == -1 &&
          d->skeleton->bones[2].parent == 1);
    CHECK(d->clips[0].fps == 30);
    /* root a: turned back from Y up: (1, 2, 3) -> (1, -3, 2), and -90 deg about X -> none */
    const ganim_track *a = track_of(&d->clips[0], 0), *c = track_of(&d->clips[0], 2);
    const float *p = value(&a->translation, 0, 3), *q = value(&a->rotation, 0, 4);
    CHECK_NEAR(p[0], 1, 1e-6);
    CHECK_NEAR(p[1], -3, 1e-6);
    CHECK_NEAR(p[2], 2, 1e-6);
    CHECK(fabs(fabs(q[3]) - 1) < 1e-6);
    CHECK(a->rotation.kind == GANIM_CHANNEL_CONSTANT && a->translation.kind == GANIM_CHANNEL_CONSTANT);
    /* joints are not turned; their OFFSET is their rest */
    CHECK(d->skeleton->bones[2].rest.translation.y == 2 && c->rotation.kind == GANIM_CHANNEL_PER_FRAME);
    check_rotation(value(&c->rotation, 1, 4), "ZXY", 0, 0, 20, "c frame 1");
    ganim_doc_free(d);
}

/* ganim_root with the synthetic root's shape whose values are not all 0: it is a bone,
 * and with bvh.axes only it is turned, not its children (the reader took the root for the
 * synthetic one while its values were 0, and reads the frames again once they are not) */
TEST(root_that_is_not_synthetic)
{
    const char *text = "HIERARCHY\nROOT ganim_root\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n"
                       " JOINT a\n {\n  OFFSET 0 0 0\n"
                       "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                       "  End Site\n  {\n   OFFSET 0 1 0\n  }\n }\n}\n"
                       "MOTION\nFrames: 3\nFrame Time: 0.0333333333\n"
                       "0 0 0 1 2 3 0 -90 0\n"
                       "0 0 0 1 2 3 0 -90 0\n"
                       "0 7 0 1 2 3 30 -90 0\n";
    ganim_setting s = { "bvh.axes", "z-up" };
    ganim_read_opts o = { 0 };
    o.settings = &s;
    o.setting_count = 1;
    ganim_doc *d = read_text(text, &o, GANIM_OK, NULL);
    if (!d) return;
    CHECK(d->skeleton->bone_count == 2 && d->skeleton->bones[1].parent == 0);
    const ganim_track *r = track_of(&d->clips[0], 0), *a = track_of(&d->clips[0], 1);
    CHECK(r && a && r->translation.kind == GANIM_CHANNEL_PER_FRAME && a->translation.kind == GANIM_CHANNEL_CONSTANT);
    if (!r || !a) return;
    /* the root turned back from Y up: (0, 7, 0) -> (0, 0, 7); frames before it 0 */
    const float *p = value(&r->translation, 2, 3), *p0 = value(&r->translation, 1, 3);
    CHECK_NEAR(p[0], 0, 1e-6);
    CHECK_NEAR(p[1], 0, 1e-6);
    CHECK_NEAR(p[2], 7, 1e-6);
    CHECK(p0[0] == 0 && p0[1] == 0 && p0[2] == 0);
    /* its child as written, not turned */
    p = value(&a->translation, 0, 3);
    CHECK(p[0] == 1 && p[1] == 2 && p[2] == 3);
    /* a rotation constant for two frames, then another: one value per frame, the first
     * two frames the first value */
    CHECK(a->rotation.kind == GANIM_CHANNEL_PER_FRAME && a->rotation.count == 3);
    check_rotation(value(&a->rotation, 0, 4), "ZXY", -90, 0, 0, "a frame 0");
    check_rotation(value(&a->rotation, 1, 4), "ZXY", -90, 0, 0, "a frame 1");
    check_rotation(value(&a->rotation, 2, 4), "ZXY", -90, 0, 30, "a frame 2");
    ganim_doc_free(d);
    /* the same without the option: the same values, no second reading needed */
    d = read_text(text, NULL, GANIM_OK, NULL);
    if (!d) return;
    CHECK(d->skeleton->bone_count == 2 && d->clips[0].track_count == 2);
    r = track_of(&d->clips[0], 0);
    CHECK(r && value(&r->translation, 2, 3)[1] == 7);
    ganim_doc_free(d);
}

/* Frames are converted as they are read: 3,000 frames of 93 channels (2.2 MB as doubles)
 * where only the root moves and one joint turns from frame 1,500 are read in memory for
 * those two channels' floats (84 KB) and a few small arrays, not in the size of the
 * values; every constant channel keeps one value. */
TEST(frames_in_bounded_memory)
{
    enum { FRAMES = 3000, JOINTS = 30 };
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    CHECK(text != NULL);
    if (!text) return;
    len += (size_t)snprintf(text + len, cap - len,
                            "HIERARCHY\nROOT hips\n{\nOFFSET 0 0 0\n"
                            "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n");
    for (int j = 1; j < JOINTS; j++)
        len += (size_t)snprintf(text + len, cap - len,
                                "JOINT j%d\n{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n", j);
    len += (size_t)snprintf(text + len, cap - len, "End Site\n{\nOFFSET 0 1 0\n}\n");
    for (int j = 0; j < JOINTS; j++) len += (size_t)snprintf(text + len, cap - len, "}\n");
    len += (size_t)snprintf(text + len, cap - len, "MOTION\nFrames: %d\nFrame Time: 0.0333333333\n", FRAMES);
    for (int fr = 0; fr < FRAMES; fr++) {
        len += (size_t)snprintf(text + len, cap - len, "%d.25 -0 0 0 0 0", fr);
        for (int j = 1; j < JOINTS; j++)
            len += (size_t)snprintf(text + len, cap - len, j == 5 && fr >= 1500 ? " 30 0 0" : " 0 0 0");
        len += (size_t)snprintf(text + len, cap - len, "\n");
    }
    CHECK(len > 500000 && len < cap - 100);
    peak_alloc pk = { 0, 0 };
    ganim_read_opts o = { 0 };
    o.allocator = peak_allocator(&pk);
    ganim_doc *d = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_read_memory(text, len, &o, &d, &e) == GANIM_OK, "%s", e.message);
    free(text);
    if (!d) return;
    const ganim_clip *c = &d->clips[0];
    CHECK(c->frame_count == FRAMES && c->track_count == JOINTS);
    const ganim_track *hips = track_of(c, 0), *j5 = track_of(c, 5), *j6 = track_of(c, 6);
    CHECK(hips && j5 && j6);
    if (hips && j5 && j6) {
        CHECK(hips->translation.kind == GANIM_CHANNEL_PER_FRAME && hips->rotation.kind == GANIM_CHANNEL_CONSTANT);
        const float *p = value(&hips->translation, 2999, 3);
        CHECK(p[0] == 2999.25f && p[1] == 0 && p[2] == 0);
        CHECK(j6->rotation.kind == GANIM_CHANNEL_CONSTANT && j6->rotation.count == 1);
        CHECK(j5->rotation.kind == GANIM_CHANNEL_PER_FRAME && j5->rotation.count == FRAMES);
        const float *q0 = value(&j5->rotation, 1499, 4), *q1 = value(&j5->rotation, 1500, 4);
        CHECK(q0[0] == 0 && q0[1] == 0 && q0[2] == 0 && q0[3] == 1);
        CHECK(q1[0] == 0 && q1[1] == 0 && q1[2] == (float)sin(PI / 12) && q1[3] == (float)cos(PI / 12));
        /* the frames after 1500 repeat its angles: its rotation, copied into the array */
        const float *q2 = value(&j5->rotation, 1501, 4), *q3 = value(&j5->rotation, 2999, 4);
        CHECK(q2[0] == 0 && q2[1] == 0 && q2[2] == (float)sin(PI / 12) && q2[3] == (float)cos(PI / 12));
        CHECK(q3[0] == 0 && q3[1] == 0 && q3[2] == (float)sin(PI / 12) && q3[3] == (float)cos(PI / 12));
    }
    ganim_doc_free(d);
    CHECK_MSG(pk.live == 0, "%zu bytes left", pk.live);
    CHECK_MSG(pk.peak < 300000, "a %zu-byte file took %zu bytes", len, pk.peak);
}

TEST(rates_and_lenient_text)
{
    static const struct {
        const char *frame_time;
        double fps;
    } rates[] = { { "0.041667", 24 },
                  { "0.0333333333", 30 },
                  { "0.033333", 30 },
                  { "0.0416666667", 24 },
                  { "0.0333667", 30000.0 / 1001 },
                  { "0.04", 25 },
                  { "0.03", 1 / 0.03 },
                  { "0.1", 10 },
                  { "1e-2", 100 },
                  { "0.0083333", 120 } };
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "HIERARCHY\r\nROOT Root Node{\r\nOFFSET 0 0 0\r\nCHANNELS 3 Xrotation Yrotation Zrotation\r\n"
                 "End site tip{ OFFSET 0 1 0 }\r\n}\r\nMOTION\r\nFrames:\t2\r\nFrame Time:\t%s\r\n1 2 3\r\n4 5 6",
                 rates[i].frame_time);
        ganim_doc *d = read_text(text, NULL, GANIM_OK, NULL);
        if (!d) continue;
        CHECK_MSG(fabs(d->clips[0].fps - rates[i].fps) < 1e-9 * rates[i].fps, "Frame Time %s: %.17g fps",
                  rates[i].frame_time, d->clips[0].fps);
        CHECK_EQ_STR(d->skeleton->bones[0].name, "Root Node");
        ganim_doc_free(d);
    }
    /* a Frame Time of 0: the caller's rate, else 30, with a warning */
    ganim_read_opts o = { 0 };
    o.fps = 12;
    ganim_doc *d = read_text("HIERARCHY ROOT r { OFFSET 0 0 0 CHANNELS 1 Zrotation }\nMOTION\nFrames: 1\n"
                             "Frame Time: 0\n5\n",
                             &o, GANIM_OK, NULL);
    if (d) {
        CHECK(d->clips[0].fps == 12 && d->warning_count == 1 && d->warnings[0].code == GANIM_WARN_REPAIRED);
        ganim_doc_free(d);
    }
    /* fewer frames than announced: the whole ones, with a warning */
    d = read_text("HIERARCHY ROOT r { OFFSET 0 0 0 CHANNELS 2 Zrotation Xrotation }\nMOTION\nFrames: 3\n"
                  "Frame Time: 0.5\n1 2\n3 4\n5\n",
                  NULL, GANIM_OK, NULL);
    if (d) {
        CHECK(d->clips[0].frame_count == 2 && d->clips[0].fps == 2);
        CHECK(d->warning_count == 1 && d->warnings[0].code == GANIM_WARN_INCONSISTENT);
        ganim_doc_free(d);
    }
    /* a hierarchy alone: a skeleton without clips */
    d = read_text("HIERARCHY\nROOT r\n{\nOFFSET 1 2 3\n}\n", NULL, GANIM_OK, NULL);
    if (d) {
        CHECK(d->clip_count == 0 && d->skeleton->bones[0].rest.translation.z == 3);
        ganim_doc_free(d);
    }
}

/* The frame loop reads the short numbers of a frame in a run and leaves it for any other
 * number (here "1e1", "+2.", ".5e1" in the middle of a frame) or the text's last 31 bytes:
 * every value lands in its channel, whatever the separators, and a frame short of values
 * or bytes after the last frame are told. */
TEST(frame_values_in_runs)
{
    static const char *const seps[4] = { " ", "\t", "  \r\n", "\n" };
    for (int declared = 39; declared <= 41; declared++) {
        char text[8192];
        int n = snprintf(text, sizeof text,
                         "HIERARCHY\nROOT r\n{\n OFFSET 7 8 9\n CHANNELS 4 Xposition Zposition Zrotation Xrotation\n"
                         " JOINT j\n {\n  OFFSET 0 1 0\n  CHANNELS 1 Yrotation\n  End Site\n  {\n   OFFSET 0 1 0\n  "
                         "}\n }\n}\nMOTION\nFrames: %d\nFrame Time: 0.04\n",
                         declared);
        for (int f = 0; f < 40; f++) {
            const char *z = f % 3 == 0 ? "1e1" : f % 3 == 1 ? "+2." : ".5e1"; /* 10, 2, 5 */
            n += snprintf(text + n, sizeof text - (size_t)n, "%d.5%s%s%s0%s90%s%d%s", f, seps[f % 4], z,
                          seps[(f + 1) % 4], seps[(f + 2) % 4], seps[(f + 3) % 4], f % 2 ? 180 : -45, "\n");
        }
        ganim_doc *d = read_text(text, NULL, GANIM_OK, NULL);
        if (!d) continue;
        const ganim_clip *c = &d->clips[0];
        CHECK_EQ_INT(c->frame_count, declared < 40 ? (uint32_t)declared : 40u);
        /* the root's OFFSET beside its position channels is always told */
        int frames_told = 0;
        for (uint32_t w = 0; w < d->warning_count; w++)
            frames_told +=
                d->warnings[w].code == GANIM_WARN_EXTRA_BYTES || d->warnings[w].code == GANIM_WARN_INCONSISTENT;
        CHECK_EQ_INT(d->warning_count, declared == 40 ? 1u : 2u);
        CHECK_EQ_INT(frames_told, declared == 40 ? 0 : 1);
        const ganim_track *r = track_of(c, 0), *j = track_of(c, 1);
        CHECK(r && j);
        for (uint32_t f = 0; r && j && f < c->frame_count; f++) {
            const float *t = value(&r->translation, f, 3);
            float z = f % 3 == 0 ? 10.0f : f % 3 == 1 ? 2.0f : 5.0f;
            CHECK_MSG(t[0] == (float)f + 0.5f && t[1] == 8 && t[2] == z, "frame %u: translation %g %g %g", f,
                      (double)t[0], (double)t[1], (double)t[2]);
            const float *q = value(&r->rotation, f, 4);
            CHECK_MSG(q[0] == 0.70710677f && q[1] == 0 && q[2] == 0 && q[3] == 0.70710677f,
                      "frame %u: root rotation %.9g %.9g %.9g %.9g", f, (double)q[0], (double)q[1], (double)q[2],
                      (double)q[3]);
            char what[32];
            snprintf(what, sizeof what, "frame %u: joint", f);
            check_rotation(value(&j->rotation, f, 4), "YXZ", 0, f % 2 ? 180 : -45, 0, what);
        }
        ganim_doc_free(d);
    }
}

/* Numbers of every length from 1 to 25 bytes (signs, points, 0 to 17 fraction digits,
 * exponents; a sixth "0" or "-0"; the frame loop takes the place of the next number from the white space when
 * the number ends within 16 bytes, else from the number) and separators of every kind,
 * thousands of them: each value is strtod's, as a float (the translation). */
TEST(frame_values_every_length)
{
    enum { FRAMES = 3000 };
    static const char *const seps[6] = { " ", " ", "\t", "  ", "\r\n", " \n" };
    size_t cap = (size_t)FRAMES * 3 * 32 + 512, n = 0;
    char *text = malloc(cap);
    double *want = malloc(sizeof(double) * FRAMES * 3);
    CHECK(text && want);
    if (!text || !want) {
        free(text);
        free(want);
        return;
    }
    uint64_t x = 0x9E3779B97F4A7C15u;
    n += (size_t)snprintf(text, cap,
                          "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 3 Xposition Yposition Zposition\nEnd Site\n"
                          "{\nOFFSET 0 1 0\n}\n}\nMOTION\nFrames: %d\nFrame Time: 0.04\n",
                          FRAMES);
    for (int i = 0; i < FRAMES * 3; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        char num[40];
        int k = 0, whole = (int)(x % 8), frac = (int)((x >> 3) % 19) - 1, ex = (int)((x >> 8) % 8);
        if ((x >> 11) % 3 == 0) num[k++] = (x >> 13) & 1 ? '-' : '+';
        num[k++] = (char)('0' + (x >> 14) % 10);
        for (int d = 0; d < whole; d++) num[k++] = (char)('0' + (x >> (17 + 3 * d)) % 10);
        if (frac >= 0) {
            num[k++] = '.';
            for (int d = 0; d < frac; d++) num[k++] = (char)('0' + (x >> (d * 3 % 61)) % 10);
        }
        if (ex == 0) k += snprintf(num + k, sizeof num - (size_t)k, "e%d", (int)((x >> 40) % 21) - 10);
        num[k] = 0;
        if ((x >> 44) % 6 == 0) strcpy(num, (x >> 47) & 1 ? "0" : "-0"); /* the commonest value */
        want[i] = strtod(num, NULL);
        n += (size_t)snprintf(text + n, cap - n, "%s%s", num, i % 3 == 2 ? "\n" : seps[(x >> 50) % 6]);
    }
    ganim_doc *d = read_text(text, NULL, GANIM_OK, NULL);
    if (d) {
        const ganim_track *r = track_of(&d->clips[0], 0);
        CHECK(r && r->translation.kind == GANIM_CHANNEL_PER_FRAME);
        int bad = 0;
        for (uint32_t f = 0; r && f < FRAMES; f++) {
            const float *t = value(&r->translation, f, 3);
            for (int a = 0; a < 3 && bad < 5; a++)
                if (t[a] != (float)want[f * 3 + (uint32_t)a])
                    CHECK_MSG(bad++ < 0, "frame %u channel %d: %a instead of %a", f, a, (double)t[a],
                              (double)(float)want[f * 3 + (uint32_t)a]);
        }
        ganim_doc_free(d);
    }
    free(text);
    free(want);
}

static void bad(const char *text, ganim_code want, const char *words)
{
    ganim_error e = { 0 };
    ganim_read_opts o = { 0 };
    o.format = "bvh";
    ganim_doc *d = read_text(text, &o, want, &e);
    CHECK_MSG(strstr(e.message, words) && !strncmp(e.message, "bvh: ", 5), "'%.50s': '%s'", text, e.message);
    CHECK(e.offset != GANIM_NO_OFFSET);
    ganim_doc_free(d);
}

/* A skeleton given to the reader: the joints animate its bones, matched by the names ganim's
 * exporters give them (`Particle View 01` -> `Particle_View_01`, a repeated `dup` -> `dup_3`),
 * in any order; the rest poses are the skeleton's; a joint matching no bone is a
 * GANIM_WARN_SKELETON warning (an error when the skeleton must fit). */
TEST(skeleton_given_matches_exported_names)
{
    ganim_bone bones[4] = {
        { "Root", -1, { { 0, 0, 0, 1 }, { 0, 0, 0 }, { 1, 1, 1 } }, 0 },
        { "Particle View 01", 0, { { 0, 0, 0, 1 }, { 0, 0, 1.5f }, { 1, 1, 1 } }, 0 },
        { "dup", 0, { { 0, 0, 0, 1 }, { 0, 0, 2 }, { 1, 1, 1 } }, 0 },
        { "dup", 0, { { 0, 0, 0, 1 }, { 0, 0, 3 }, { 1, 1, 1 } }, 0 },
    };
    ganim_skeleton sk = { "", 4, bones, NULL, NULL, 0 };
    const char *text = "HIERARCHY\nROOT Root\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation "
                       "Xrotation Yrotation\n"
                       " JOINT dup_3\n {\n  OFFSET 0 0 3\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
                       "  End Site\n  {\n   OFFSET 0 0 1\n  }\n }\n"
                       " JOINT Particle_View_01\n {\n  OFFSET 0 0 1\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
                       "  End Site\n  {\n   OFFSET 0 0 1\n  }\n }\n"
                       " JOINT dup\n {\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation "
                       "Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 0 1\n  }\n }\n}\n"
                       "MOTION\nFrames: 1\nFrame Time: 0.0333333333\n"
                       "1 2 3 0 0 0 0 90 0 0 0 30 7 8 9 10 0 0\n";
    ganim_read_opts ro = { 0 };
    ro.skeleton = &sk;
    ro.skeleton_must_fit = 1;
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    CHECK_MSG(ganim_read_memory(text, strlen(text), &ro, &doc, &err) == GANIM_OK, "%s", err.message);
    if (!doc) return;
    CHECK_EQ_INT(doc->skeleton->bone_count, 4);
    CHECK_EQ_STR(doc->skeleton->bones[1].name, "Particle View 01");
    CHECK(doc->skeleton->bones[1].rest.translation.z == 1.5f); /* the skeleton's rest, not the OFFSET */
    CHECK_EQ_INT(doc->clip_count, 1);
    const ganim_clip *c = &doc->clips[0];
    CHECK_EQ_INT(c->track_count, 4);
    const double h = sqrt(0.5);
    for (uint32_t i = 0; i < c->track_count; i++) {
        const ganim_track *t = &c->tracks[i];
        const float *q = t->rotation.values, *v = t->translation.values;
        switch (t->bone) {
        case 0: CHECK(v && v[0] == 1 && v[1] == 2 && v[2] == 3); break;
        case 1: /* 30 degrees about Y */
            CHECK(t->translation.kind == GANIM_CHANNEL_ABSENT);
            CHECK_NEAR(q[1], sin(15 * 3.14159265358979323846 / 180), 1e-7);
            CHECK_NEAR(q[3], cos(15 * 3.14159265358979323846 / 180), 1e-7);
            break;
        case 2: /* dup: (7, 8, 9), 10 degrees about Z */
            CHECK(v && v[0] == 7 && v[1] == 8 && v[2] == 9);
            CHECK_NEAR(q[2], sin(5 * 3.14159265358979323846 / 180), 1e-7);
            break;
        case 3: /* dup_3: 90 degrees about X */
            CHECK(t->translation.kind == GANIM_CHANNEL_ABSENT);
            CHECK_NEAR(q[0], h, 1e-7);
            CHECK_NEAR(q[3], h, 1e-7);
            break;
        default: CHECK_MSG(0, "track for bone %u", t->bone);
        }
    }
    ganim_doc_free(doc);
    /* a joint no bone matches */
    char *other = malloc(strlen(text) + 1);
    memcpy(other, text, strlen(text) + 1);
    memcpy(strstr(other, "JOINT dup\n") + 6, "dpu", 3);
    CHECK(ganim_read_memory(other, strlen(other), &ro, &doc, &err) == GANIM_ERR_MISMATCH);
    CHECK_MSG(strstr(err.message, "1 joint(s) match no bone of the skeleton given (e.g. 'dpu')"), "%s", err.message);
    ro.skeleton_must_fit = 0;
    CHECK(ganim_read_memory(other, strlen(other), &ro, &doc, &err) == GANIM_OK);
    if (doc) CHECK_EQ_INT(doc->clips[0].track_count, 3);
    ganim_doc_free(doc);
    free(other);
}

TEST(clear_errors)
{
    bad("", GANIM_ERR_TRUNCATED, "HIERARCHY");
    bad("HIERARCHY\nJOINT a { OFFSET 0 0 0 }", GANIM_ERR_CORRUPT, "outside any ROOT");
    bad("HIERARCHY\nROOT a { OFFSET 0 0 }", GANIM_ERR_CORRUPT, "OFFSET value");
    bad("HIERARCHY\nROOT a { OFFSET 0 0 0 CHANNELS 7 }", GANIM_ERR_CORRUPT, "0 to 6");
    bad("HIERARCHY\nROOT a { OFFSET 0 0 0 CHANNELS 2 Xrotation Xrotation }", GANIM_ERR_CORRUPT, "twice");
    bad("HIERARCHY\nROOT a { OFFSET 0 0 0 CHANNELS 1 Wrotation }", GANIM_ERR_CORRUPT, "a channel");
    bad("HIERARCHY\nROOT a { OFFSET 0 0 0 CHANNELS 1 Xrotation\nMOTION", GANIM_ERR_CORRUPT, "still open");
    bad("HIERARCHY\nROOT a { OFFSET 0 0 0 CHANNELS 1 Xrotation }\nMOTION\nFrames: 2\nFrame Time: 0.1\n",
        GANIM_ERR_TRUNCATED, "before a whole frame");
    bad("HIERARCHY\nROOT a { OFFSET 0 0 0 CHANNELS 1 Xrotation }\nMOTION\nFrames: 1\nFrame Time: 0.1\n1.#IND\n",
        GANIM_ERR_CORRUPT, "not a number");
    bad("HIERARCHY\nROOT a { OFFSET 0 0 0 CHANNELS 1 Xrotation }\nMOTION\nFrames: 99999999\nFrame Time: 0.1\n1\n",
        GANIM_ERR_LIMIT, "more than the limit of 1048576 (ganim_limits.frames)");
    bad("HIERARCHY\nROOT a { OFFSET 1e99 0 0 }", GANIM_ERR_CORRUPT, "too large");
}

/* ---- the hierarchy's fast paths against the reference path ---------------------------------- */

static uint64_t lex_rng = 0x9E3779B97F4A7C15u;

static uint32_t lex_rand(uint32_t n)
{
    lex_rng ^= lex_rng << 13;
    lex_rng ^= lex_rng >> 7;
    lex_rng ^= lex_rng << 17;
    return (uint32_t)((lex_rng >> 11) % n);
}

typedef struct lex_text {
    char s[16384];
    size_t n;
} lex_text;

static void lex_put(lex_text *t, const char *s)
{
    size_t k = strlen(s);
    if (t->n + k < sizeof t->s) {
        memcpy(t->s + t->n, s, k);
        t->n += k;
    }
    t->s[t->n] = 0;
}

static int lex_glue; /* the next white space left out: a word touching the '}' before it */

/* White space of every kind and width (0 to 40 bytes: words on both sides of every
 * 16-byte boundary), or nothing before a brace. */
static void lex_ws(lex_text *t, int line)
{
    if (lex_glue) {
        lex_glue = 0;
        return;
    }
    static const char *const kinds[] = { " ", "\t", "\n", "\r\n", "\v", "\f", "\r", "  " };
    if (line) lex_put(t, lex_rand(4) ? "\n" : "\r\n");
    unsigned k = lex_rand(6) ? lex_rand(8) : lex_rand(41);
    for (unsigned i = 0; i < k; i++) lex_put(t, kinds[lex_rand(3) ? lex_rand(2) : lex_rand(8)]);
    if (!line && !k) lex_put(t, " ");
}

/* A keyword in its case, or with any letters' case changed, or now and then spoilt. */
static void lex_word(lex_text *t, const char *kw)
{
    char w[64];
    size_t n = strlen(kw);
    memcpy(w, kw, n + 1);
    if (!lex_rand(3))
        for (size_t i = 0; i < n; i++)
            if (lex_rand(2) && ((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= 'A' && w[i] <= 'Z'))) w[i] ^= 0x20;
    if (!lex_rand(400)) { /* a byte that a comparison without case must not take for the letter */
        static const char bad[] = { '@', '[', '`', '{', 'W', 'w', '0', '_', 0x18, 0x1A, (char)0xD8, (char)0xF8 };
        size_t i = lex_rand((uint32_t)n);
        if (lex_rand(2)) w[i] = bad[lex_rand(sizeof bad)];
        else w[i] = (char)(w[i] ^ (1 << lex_rand(8)));
    }
    if (!lex_rand(800)) w[n - 1] = 0;          /* one letter short */
    if (!lex_rand(800)) memcpy(w + n, "n", 2); /* one longer */
    lex_put(t, w);
}

static void lex_number(lex_text *t)
{
    static const char *const nums[] = { "0",
                                        "7",
                                        "-0",
                                        "1.5",
                                        "-37.28461",
                                        "1e3",
                                        "1.5e-05",
                                        ".5",
                                        "5.",
                                        "+2",
                                        "0x1",
                                        "1.2.3",
                                        "abc",
                                        "12345678901234567890123",
                                        "3.4e39",
                                        "1e-50",
                                        "00012.500",
                                        "-",
                                        "9",
                                        "0.1",
                                        "-180",
                                        "2.5E+2",
                                        "1e",
                                        "0.0000000001",
                                        "16777217",
                                        "33554431",
                                        "-0.333333333333333333",
                                        ":",
                                        "/",
                                        ".",
                                        "+",
                                        "e",
                                        "5:",
                                        "{5" };
    lex_put(t, nums[lex_rand(30) ? lex_rand(10) : lex_rand(sizeof nums / sizeof *nums)]);
}

/* '{' then OFFSET and three numbers; the brace now and then touching the words on both sides. */
static void lex_open_offset(lex_text *t)
{
    if (lex_rand(4)) lex_ws(t, 1);
    lex_put(t, "{");
    if (lex_rand(4)) lex_ws(t, (int)lex_rand(2));
    lex_word(t, "OFFSET");
    for (int k = 0; k < 3; k++) {
        lex_ws(t, 0);
        lex_number(t);
    }
}

static void lex_close(lex_text *t)
{
    if (lex_rand(4)) lex_ws(t, (int)lex_rand(2));
    lex_put(t, "}");
    lex_glue = !lex_rand(6);
}

static void lex_joint(lex_text *t, int depth, unsigned *channels)
{
    static const char *const chans[6] = {
        "Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"
    };
    static const char *const counts[] = { "3", "6", "0", "1", "2", "03", "3.0", "7", "-1", "x", "6e0", "+3" };
    lex_word(t, depth ? "JOINT" : "ROOT");
    lex_put(t, " ");
    lex_put(t, lex_rand(10) ? "bone" : "a bone with spaces");
    char num[16];
    snprintf(num, sizeof num, "_%u", lex_rand(1000));
    lex_put(t, num);
    lex_open_offset(t);
    if (lex_rand(6)) {
        lex_ws(t, 1);
        lex_word(t, "CHANNELS");
        lex_ws(t, 0);
        const char *c = counts[lex_rand(20) ? lex_rand(2) : lex_rand(sizeof counts / sizeof *counts)];
        lex_put(t, c);
        int nch = c[0] >= '0' && c[0] <= '7' && !c[1] ? c[0] - '0' : 3;
        int first = lex_rand(2) ? 0 : 3;
        for (int k = 0; k < nch; k++) {
            lex_ws(t, 0);
            lex_word(t, chans[lex_rand(40) ? (uint32_t)(first + k) % 6 : lex_rand(6)]);
        }
        /* now and then a brace touching the last name (or the count): channels()'s names
         * and count in place end at a brace too */
        if (!lex_rand(16)) lex_put(t, lex_rand(2) ? "}" : "{");
        *channels += (unsigned)nch;
    }
    unsigned kids = depth < 4 ? lex_rand(3) : 0;
    for (unsigned k = 0; k < kids; k++) {
        lex_ws(t, 1);
        lex_joint(t, depth + 1, channels);
    }
    if (!kids || !lex_rand(4)) {
        lex_ws(t, 1);
        lex_word(t, "End");
        lex_put(t, " ");
        lex_word(t, "Site");
        lex_open_offset(t);
        lex_close(t);
    }
    lex_close(t);
}

static void lex_document(lex_text *t)
{
    lex_glue = 0;
    t->n = 0;
    t->s[0] = 0;
    unsigned channels = 0;
    if (lex_rand(4)) lex_ws(t, 0);
    lex_word(t, "HIERARCHY");
    lex_ws(t, 1);
    lex_joint(t, 0, &channels);
    if (!lex_rand(8)) return; /* a skeleton */
    lex_ws(t, 1);
    lex_word(t, "MOTION");
    lex_ws(t, 1);
    lex_word(t, lex_rand(4) ? "Frames:" : "Frames");
    lex_ws(t, 0);
    unsigned frames = 1 + lex_rand(3);
    char num[32];
    snprintf(num, sizeof num, "%u", frames);
    /* now and then a count of another shape: digits read directly up to 9, gdec beyond */
    static const char *const counts[] = { "0",          "00",         "007",         "2.0", "1e0",       "+2",
                                          "-1",         "3x",         "x3",          "0x1", "999999999", "1000000000",
                                          "4294967295", "4294967296", "12345678901", "1.5", ":",         "2:" };
    lex_put(t, lex_rand(12) ? num : counts[lex_rand(sizeof counts / sizeof *counts)]);
    lex_ws(t, 1);
    lex_word(t, "Frame");
    lex_put(t, " ");
    lex_word(t, lex_rand(4) ? "Time:" : "Time");
    lex_ws(t, 0);
    lex_put(t, "0.0333333");
    for (unsigned i = 0; i < frames * channels; i++) {
        lex_ws(t, i % (channels ? channels : 1) == 0);
        lex_put(t, lex_rand(3) ? "0" : "12.5");
    }
    lex_put(t, "\n");
}

/* One read of t[0..n): its code, error and, when it reads, its JSON dump, details record
 * and warnings (rec: malloc'd, the record then each warning's code, offset and message). */
typedef struct lex_out {
    ganim_code code;
    ganim_error e;
    ganim_buffer dump;
    uint8_t *rec;
    size_t rec_size;
} lex_out;

static void lex_read(const char *t, size_t n, lex_out *out)
{
    ganim_read_opts o = { 0 };
    o.format = "bvh";
    ganim_doc *d = NULL;
    memset(out, 0, sizeof *out);
    out->code = ganim_read_memory(t, n, &o, &d, &out->e);
    if (out->code != GANIM_OK) return;
    ganim_export_opts eo = { 0 };
    CHECK(ganim_export_json(d, &eo, &out->dump, NULL) == GANIM_OK);
    size_t size = d->native_size;
    for (uint32_t w = 0; w < d->warning_count; w++) size += 12 + strlen(d->warnings[w].message);
    out->rec = malloc(size + 1);
    if (out->rec) {
        memcpy(out->rec, d->native, d->native_size);
        size_t at = d->native_size;
        for (uint32_t w = 0; w < d->warning_count; w++) {
            uint32_t code = (uint32_t)d->warnings[w].code;
            uint64_t off = d->warnings[w].offset;
            memcpy(out->rec + at, &code, 4);
            memcpy(out->rec + at + 4, &off, 8);
            memcpy(out->rec + at + 12, d->warnings[w].message, strlen(d->warnings[w].message));
            at += 12 + strlen(d->warnings[w].message);
        }
        out->rec_size = size;
    }
    ganim_doc_free(d);
}

static int lex_same(const lex_out *a, const lex_out *b)
{
    return a->code == b->code && a->e.offset == b->e.offset && !strcmp(a->e.message, b->e.message) &&
           a->dump.size == b->dump.size && (!a->dump.size || !memcmp(a->dump.data, b->dump.data, a->dump.size)) &&
           a->rec_size == b->rec_size && (!a->rec_size || !memcmp(a->rec, b->rec, a->rec_size));
}

/* bvh_probe's rule written plainly (tolower on each byte, the C locale's), for the test
 * of the probe's one-comparison-a-byte form: "hierarchy" then "root", each after white
 * space and followed by one. */
static int is_sep(uint8_t c) { return c && strchr(" \t\r\n", c) != NULL; }

static int ref_probe(const uint8_t *d, size_t n)
{
    static const char *const kw[2] = { "hierarchy", "root" };
    size_t i = n >= 3 && !memcmp(d, "\xEF\xBB\xBF", 3) ? 3 : 0;
    for (int w = 0; w < 2; w++) {
        while (i < n && is_sep(d[i])) i++;
        size_t k = strlen(kw[w]);
        int ok = n - i >= k + 1 && is_sep(d[i + k]);
        for (size_t j = 0; ok && j < k; j++) ok = tolower(d[i + j]) == kw[w][j];
        if (!ok) return w ? 90 : 0;
        i += k;
    }
    return 100;
}

/* The probe's score against ref_probe: the lexer's texts (keywords in any case, spoilt by
 * a byte), cut anywhere, and each byte of "HIERARCHY ROOT" replaced by every byte. */
static void probe_check(const char *t, size_t len, long *tried)
{
    const ganim_format *bvh = ganim_format_find("bvh");
    CHECK(bvh != NULL);
    int got = ganim_format_probe(bvh, t, len), want = ref_probe((const uint8_t *)t, len);
    CHECK_MSG(got == want, "probe %d, reference %d on %zu bytes", got, want, len);
    (*tried)++;
}

/* bvh_pow10's table against pow (the reference path's) for every exponent a frame time's
 * digits may give, bit for bit (glibc's pow; elsewhere strtod's correctly rounded 10^k,
 * which the table holds on every platform). */
TEST(pow10_matches_pow)
{
    for (int k = -400; k <= 400; k++) {
#if defined(__GLIBC__)
        double t = bvh_pow10(k), p = pow(10.0, k);
#else
        char e[16];
        snprintf(e, sizeof e, "1e%d", k);
        double t = bvh_pow10(k), p = k >= -22 && k <= 22 ? strtod(e, NULL) : pow(10.0, k);
#endif
        CHECK_MSG(!memcmp(&t, &p, sizeof t), "10^%d: %.17g, pow %.17g", k, t, p);
    }
}

TEST(probe_matches_reference)
{
    static lex_text t;
    long tried = 0;
    for (long i = 0; i < 20000; i++) {
        lex_document(&t);
        probe_check(t.s, lex_rand(4) ? t.n : lex_rand((uint32_t)t.n + 1), &tried);
    }
    char s[] = "\xEF\xBB\xBFHIERARCHY\nroot r";
    for (size_t at = 0; at < sizeof s - 1; at++)
        for (int c = 0; c < 256; c++) {
            char u[sizeof s];
            memcpy(u, s, sizeof s);
            u[at] = (char)c;
            probe_check(u, sizeof s - 1, &tried);
            probe_check(u + 3, sizeof s - 4, &tried);
            probe_check(u, at + 1, &tried);
        }
    printf("  %ld probes\n", tried);
}

/* Text number `i`'s first len bytes read by the fast paths and by the reference path
 * (bvh_set_reference_hierarchy): 1 when the two give the same code, error and document
 * (else a failed check and the text on stdout); *read counts the reads that succeed. */
static int lex_fast_matches_reference(const char *t, size_t len, long i, long *read)
{
    lex_out r[2];
    for (int ref = 0; ref < 2; ref++) {
        bvh_set_reference_hierarchy(ref);
        lex_read(t, len, &r[ref]);
    }
    bvh_set_reference_hierarchy(0);
    int same = lex_same(&r[0], &r[1]);
    CHECK_MSG(same, "text %ld (%zu bytes): fast %d at %llu '%s', reference %d at %llu '%s'", i, len, r[0].code,
              (unsigned long long)r[0].e.offset, r[0].e.message, r[1].code, (unsigned long long)r[1].e.offset,
              r[1].e.message);
    *read += r[0].code == GANIM_OK;
    for (int k = 0; k < 2; k++) {
        ganim_buffer_free(&r[k].dump);
        free(r[k].rec);
    }
    if (!same) fwrite(t, 1, len, stdout);
    return same;
}

/* The hierarchy and MOTION header of random texts (every kind of white space and its width
 * across 16-byte boundaries, braces touching words, keywords and channel names in any case
 * and spoilt by one byte, numbers of every shape, cut anywhere), read by the fast paths and
 * by the reference path (bvh_set_reference_hierarchy): the same code, error offset and
 * message, and the same document (its JSON dump and details record) byte for byte. */
TEST(hierarchy_fast_matches_reference)
{
    static lex_text t;
    long n = test_full() ? 1000000 : 100000, ok = 0, cut = 0;
    for (long i = 0; i < n; i++) {
        lex_document(&t);
        size_t len = t.n;
        if (!lex_rand(6)) { /* cut anywhere: the fast paths near the end of the text */
            len = lex_rand((uint32_t)t.n + 1);
            cut++;
        }
        if (!lex_fast_matches_reference(t.s, len, i, &ok)) break;
    }
    /* both kinds must be common: documents that read and errors of every kind */
    CHECK_MSG(ok > n / 10 && ok < n - n / 10, "%ld of %ld texts read", ok, n);
    printf("  %ld texts, %ld read, %ld cut\n", n, ok, cut);
}

/* The frame values' last bytes, which the fast loop reads from a padded copy (bvh_parse.c's
 * `tail`), against the reference path (bvh_set_reference_hierarchy, no copy: gdec_fast and
 * gdec there): random MOTION sections of 1 to 4 channels with numbers of every shape
 * (exports' "%.6f", signs, exponents, 16 digits and more, cut numbers, words that are not
 * numbers), separators of every kind, trailing spaces or none, cut at every length in
 * their last 70 bytes: the same code, error offset and message, warnings and document. */
TEST(frame_tail_matches_reference)
{
    static lex_text t;
    static const char *const odd[] = { "1.5e",
                                       "-",
                                       "+",
                                       ".",
                                       "1e400",
                                       "1e-400",
                                       "0x10",
                                       "1.2.3",
                                       "12345678901234567890",
                                       "0.12345678901234567",
                                       "nan",
                                       "1,5",
                                       "--1",
                                       "1e+",
                                       "9e22",
                                       "1e23",
                                       "-0.0",
                                       "7.",
                                       ".5",
                                       "1e05",
                                       "0000001" };
    static const char *const seps[] = { " ", " ", "\t", "  ", "\r\n", " \n", "\n", "   \t ", "\v", "\f" };
    long n = test_full() ? 20000 : 4000, reads = 0, ok = 0;
    for (long i = 0; i < n; i++) {
        t.n = 0;
        unsigned channels = 1 + lex_rand(4), frames = 1 + lex_rand(4);
        static const char *const names[] = { "Xposition", "Yposition", "Zrotation", "Xrotation" };
        lex_put(&t, "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS ");
        char num[64];
        snprintf(num, sizeof num, "%u", channels);
        lex_put(&t, num);
        for (unsigned c = 0; c < channels; c++) {
            lex_put(&t, " ");
            lex_put(&t, names[c]);
        }
        lex_put(&t, "\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\nMOTION\nFrames: ");
        snprintf(num, sizeof num, "%u", frames);
        lex_put(&t, num);
        lex_put(&t, "\nFrame Time: 0.04\n");
        unsigned values = frames * channels + lex_rand(3) - 1; /* one too few or too many now and then */
        if (lex_rand(3)) values = frames * channels;
        for (unsigned v = 0; v < values; v++) {
            uint32_t kind = lex_rand(10);
            if (kind < 4)
                snprintf(num, sizeof num, "%s%u.%06u", lex_rand(3) ? "" : "-", lex_rand(200), lex_rand(1000000));
            else if (kind < 6) snprintf(num, sizeof num, "%s", lex_rand(2) ? "0" : "-0");
            else if (kind == 6)
                snprintf(num, sizeof num, "%de%d", (int)lex_rand(100000) - 50000, (int)lex_rand(60) - 30);
            else if (kind == 7 && !lex_rand(8))
                snprintf(num, sizeof num, "%s", odd[lex_rand(sizeof odd / sizeof *odd)]);
            else snprintf(num, sizeof num, "%u.%u", lex_rand(100000000), lex_rand(100000000));
            lex_put(&t, num);
            if (v + 1 < values) lex_put(&t, (v + 1) % channels ? seps[lex_rand(4)] : seps[4 + lex_rand(6)]);
        }
        uint32_t end = lex_rand(6);
        lex_put(&t, end == 0 ? "" : end == 1 ? "\r\n" : end == 2 ? "  \n  " : end == 3 ? "\nx" : "\n");
        size_t from = t.n > 70 ? t.n - 70 : 0;
        for (size_t len = from; len <= t.n; len++) {
            reads++;
            if (!lex_fast_matches_reference(t.s, len, i, &ok)) {
                i = n;
                break;
            }
        }
    }
    CHECK_MSG(ok > reads / 10 && ok < reads - reads / 10, "%ld of %ld reads", ok, reads);
    printf("  %ld texts, %ld reads, %ld read\n", n, reads, ok);
}

/* bvh_decimal_len (frame_time_plain's significant digits) against counting by division:
 * both step only at powers of 10 (the count) and of 2 (the formula's bit length), so every
 * power of 10 and of 2 below 10^15 with three values either side covers every m; with every
 * m below 2,000,000 and 200,000 random ones besides. */
static int slow_decimal_len(uint64_t m)
{
    int n = 0;
    for (; m; m /= 10) n++;
    return n;
}

TEST(decimal_len_counts_digits)
{
    const uint64_t lim = 1000000000000000u;
    long bad = 0, tried = 0;
    for (uint64_t m = 1; m < 2000000u; m++, tried++) bad += bvh_decimal_len(m) != slow_decimal_len(m);
    for (uint64_t p = 1; p < lim; p *= 10)
        for (uint64_t m = p > 3 ? p - 3 : 1; m <= p + 3 && m < lim; m++, tried++)
            bad += bvh_decimal_len(m) != slow_decimal_len(m);
    for (int j = 0; j < 50; j++) {
        uint64_t p = (uint64_t)1 << j;
        for (uint64_t m = p > 3 ? p - 3 : 1; m <= p + 3 && m < lim; m++, tried++)
            bad += bvh_decimal_len(m) != slow_decimal_len(m);
    }
    uint64_t s = 1;
    for (int r = 0; r < 200000; r++, tried++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint64_t m = 1 + (s >> 14) % (lim - 1);
        bad += bvh_decimal_len(m) != slow_decimal_len(m);
    }
    CHECK_MSG(bad == 0, "%ld of %ld counts differ", bad, tried);
    CHECK(bvh_decimal_len(1) == 1 && bvh_decimal_len(9) == 1 && bvh_decimal_len(10) == 2 &&
          bvh_decimal_len(333333333u) == 9 && bvh_decimal_len(lim - 1) == 15);
}

/* The Frame Time, which plain digits take a shorter path for (bvh_parse.c's
 * frame_time_plain: value, significant digits and their last place, which the rate's
 * snapping to 24, 30000/1001 ... reads), against the reference path (gdec): frame times of
 * common and random rates at 1 to 17 places, with leading and trailing zeros, 15 and 16
 * digits, zeros, and odd words; the same code, error, warnings and document (its rate). */
TEST(frame_time_matches_reference)
{
    static const char *const odd[] = { "0",
                                       "0.0",
                                       "00.000",
                                       "5.",
                                       ".04",
                                       "+0.04",
                                       "-0.04",
                                       "4e-2",
                                       "0.04.",
                                       "0.04x",
                                       "1.",
                                       "0.",
                                       "000001",
                                       "1e400",
                                       "x",
                                       "0..1",
                                       "1.5e",
                                       "0.0416666666666667",
                                       "123456789012345",
                                       "1234567890123456",
                                       "12345678901234.5",
                                       "0.000000000000001",
                                       "0.0000000000000001" };
    static const double rates[] = {
        24, 25, 30, 50, 60, 120, 24000.0 / 1001, 30000.0 / 1001, 60000.0 / 1001, 15, 1, 1000
    };
    char text[512], ft[96];
    long n = test_full() ? 200000 : 40000, ok = 0;
    for (long i = 0; i < n; i++) {
        uint32_t kind = lex_rand(8);
        if (kind == 0) {
            snprintf(ft, sizeof ft, "%s", odd[lex_rand(sizeof odd / sizeof *odd)]);
        } else {
            double rate = kind < 6 ? rates[lex_rand(sizeof rates / sizeof *rates)] : 0.5 + lex_rand(200000) / 997.0;
            int places = 1 + (int)lex_rand(17);
            char body[64];
            snprintf(body, sizeof body, "%.*f", places, 1 / rate);
            snprintf(ft, sizeof ft, "%s%s%s", lex_rand(6) ? "" : "00", body,
                     lex_rand(5) ? "" : (lex_rand(2) ? "0" : "000"));
        }
        int len = snprintf(text, sizeof text,
                           "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 1 Zrotation\n}\nMOTION\nFrames: 2\n"
                           "Frame Time:%s%s%s1\n2\n",
                           lex_rand(4) ? " " : "\t", ft, lex_rand(4) ? "\n" : " ");
        if (!lex_fast_matches_reference(text, (size_t)len, i, &ok)) break;
    }
    CHECK_MSG(ok > n / 2 && ok < n, "%ld of %ld texts read", ok, n);
    printf("  %ld frame times, %ld read\n", n, ok);
}

/* A number for decimal_double_matches_gdec: 1 to 19 significant digits (random, or a float
 * midpoint's exact digits, or those one unit off in the last of 19 digits), k = 0 to 36
 * digits after them (bvh_decimal_double takes 1 to 31), written with an exponent or as
 * "0.000ddd" or "ddd.ddd", a sign now and then. */
static void wide_number(char *out, size_t cap)
{
    char dig[48];
    int nd, k;
    if (lex_rand(4)) {
        nd = 1 + (int)lex_rand(19);
        for (int i = 0; i < nd; i++) dig[i] = (char)('0' + (i ? lex_rand(10) : 1 + lex_rand(9)));
        if (!lex_rand(8)) /* trailing zeros */
            for (int i = nd - 1; i > 0 && lex_rand(2); i--) dig[i] = '0';
        k = (int)lex_rand(37);
    } else { /* a midpoint between two floats, j x 2^-t (j odd, 25 bits), exactly: j x 5^t x 10^-t */
        int t = 1 + (int)lex_rand(14);
        uint64_t j = ((uint64_t)1 << 24) | ((uint64_t)lex_rand(1u << 23) << 1) | 1u, v = j;
        for (int i = 0; i < t; i++) v *= 5;
        nd = snprintf(dig, sizeof dig, "%llu", (unsigned long long)v);
        k = t;
        if (nd <= 17 && lex_rand(2)) { /* one unit off in the 19th digit: near the midpoint */
            int up = (int)lex_rand(2);
            for (; nd < 19; nd++, k++) dig[nd] = up ? '0' : '9';
            if (up) {
                dig[18] = '1';
            } else { /* v - 1, then 9s */
                int i = nd - 3;
                while (dig[i] == '0') dig[i--] = '9';
                dig[i]--;
            }
        }
    }
    dig[nd] = 0;
    const char *sign = lex_rand(3) ? "" : "-";
    /* value = 0.dig x 10^(nd - k) */
    int e10 = nd - k;
    if (lex_rand(2) || e10 < -20 || e10 > 20) {
        snprintf(out, cap, "%s%c.%se%d", sign, dig[0], nd > 1 ? dig + 1 : "0", e10 - 1);
    } else if (e10 <= 0) {
        snprintf(out, cap, "%s0.%.*s%s", sign, -e10, "00000000000000000000", dig);
    } else if (e10 >= nd) {
        snprintf(out, cap, "%s%s%.*s", sign, dig, e10 - nd, "00000000000000000000");
    } else {
        snprintf(out, cap, "%s%.*s.%s", sign, e10, dig, dig + e10);
    }
}

/* bvh_decimal_double (the frame values' and OFFSETs' path for numbers of up to 19 digits
 * and 10^-1 to 10^-31 after them: "-2.3239016e-23") against gdec_double bit for bit, and
 * the float the reader makes of it (its double's, unless rounded onto a midpoint between
 * floats) against gdec_float, on random numbers, float midpoints and their neighbours; then
 * random texts of such OFFSETs and frame values read by the fast paths and by the
 * reference path (gdec's): the same code, error and document. */
TEST(decimal_double_matches_gdec)
{
    long n = test_full() ? 2000000 : 300000, taken = 0, midpoints = 0, fell = 0;
    char num[96];
    for (long i = 0; i < n; i++) {
        wide_number(num, sizeof num);
        gdec d;
        size_t len = strlen(num);
        int good = gdec_scan(num, len, GDEC_LENIENT, &d) == len;
        CHECK_MSG(good, "'%s' scanned", num);
        if (!good) break;
        double x = 0;
        int inexact = -1;
        if (!bvh_decimal_double(&d, &x, &inexact)) continue;
        taken++;
        double want = gdec_double(&d);
        uint64_t a, b;
        memcpy(&a, &x, sizeof a);
        memcpy(&b, &want, sizeof b);
        CHECK_MSG(a == b, "'%s': %a, gdec %a", num, x, want);
        if (a != b) break;
        if ((a & 0x1FFFFFFFu) == 0x10000000u) midpoints++;
        if (inexact && (a & 0x1FFFFFFFu) == 0x10000000u) {
            fell++;
            continue; /* the reader asks gdec_float */
        }
        float f = (float)x, g = gdec_float(&d);
        good = memcmp(&f, &g, sizeof f) == 0;
        CHECK_MSG(good, "'%s': float %a, gdec %a (inexact %d)", num, (double)f, (double)g, inexact);
        if (!good) break;
    }
#if defined(__SIZEOF_INT128__)
    CHECK_MSG(taken > n / 2 && midpoints > n / 100 && fell > n / 1000, "%ld taken, %ld midpoints, %ld left to gdec",
              taken, midpoints, fell);
#else
    CHECK_MSG(!taken, "%ld taken without a 128-bit integer", taken); /* gdec's path throughout */
#endif
    printf("  %ld numbers, %ld taken, %ld on a float midpoint (%ld of them rounded there: gdec_float)\n", n, taken,
           midpoints, fell);
    /* in texts: OFFSETs (floats) and frame values (doubles) */
    static char text[8192];
    long texts = test_full() ? 20000 : 4000, ok = 0;
    for (long i = 0; i < texts; i++) {
        size_t at = (size_t)snprintf(text, sizeof text, "HIERARCHY\nROOT r\n{\n");
        char o[3][96];
        for (int c = 0; c < 3; c++) wide_number(o[c], sizeof o[c]);
        at += (size_t)snprintf(text + at, sizeof text - at,
                               "OFFSET %s %s %s\nCHANNELS 3 Xposition Zrotation Yrotation\n", o[0], o[1], o[2]);
        uint32_t frames = 1 + lex_rand(20);
        at += (size_t)snprintf(text + at, sizeof text - at, "}\nMOTION\nFrames: %u\nFrame Time: 0.04\n", frames);
        for (uint32_t f = 0; f < frames; f++) {
            for (int c = 0; c < 3; c++) {
                wide_number(num, sizeof num);
                at +=
                    (size_t)snprintf(text + at, sizeof text - at, "%s%s", lex_rand(3) ? num : "0", c < 2 ? " " : "\n");
            }
        }
        if (!lex_fast_matches_reference(text, at, i, &ok)) break;
    }
    CHECK_MSG(ok > texts / 2, "%ld of %ld texts read", ok, texts);
    printf("  %ld texts, %ld read\n", texts, ok);
}

int main(void)
{
    test_program_name = "test_bvh";
    RUN(cmu_style_known_answers);
    RUN(blender_bvh_matches_blender_gltf);
    RUN(ganim_conventions);
    RUN(root_that_is_not_synthetic);
    RUN(frames_in_bounded_memory);
    RUN(rates_and_lenient_text);
    RUN(frame_values_in_runs);
    RUN(frame_values_every_length);
    RUN(skeleton_given_matches_exported_names);
    RUN(clear_errors);
    RUN(hierarchy_fast_matches_reference);
    RUN(probe_matches_reference);
    RUN(frame_tail_matches_reference);
    RUN(pow10_matches_pow);
    RUN(decimal_len_counts_digits);
    RUN(frame_time_matches_reference);
    RUN(decimal_double_matches_gdec);
    return test_finish();
}
