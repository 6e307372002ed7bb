/* BVH exporter on hand-built documents. The output is parsed back by a small BVH reader
 * written here; every frame's Euler channels are recomposed (R = R1 * R2 * R3 in channel
 * order, as Blender and three.js read them) and compared with the clip's own rotations,
 * turned by the Z-up -> Y-up rotation worked out by hand for roots. */
#include <math.h>
#include <stdlib.h>

#include "support/tbuild.h"
#include "test.h"

static const double PI = 3.14159265358979323846;
static const double H = 0.70710678118654752440;

/* ---- a small BVH reader ----------------------------------------------------------------- */

#define MAXJ 64
typedef struct bvh_joint {
    char name[64];
    int parent, depth, end_site;
    double offset[3], end[3];
    int nchan;
    char chan[6][16];
} bvh_joint;

typedef struct bvh_file {
    bvh_joint j[MAXJ];
    int count, roots;
    int frames;
    double frame_time;
    int values_per_frame;
    double *values; /* frames * values_per_frame */
    int ok;
} bvh_file;

typedef struct lexer {
    const char *p, *end;
    char tok[64];
} lexer;

static const char *next(lexer *lx)
{
    while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n' || *lx->p == '\r')) lx->p++;
    size_t n = 0;
    while (lx->p < lx->end && !(*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n' || *lx->p == '\r') && n < 63)
        lx->tok[n++] = *lx->p++;
    lx->tok[n] = 0;
    return lx->tok;
}

static int expect(lexer *lx, const char *s)
{
    const char *t = next(lx);
    CHECK_MSG(!strcmp(t, s), "BVH: expected '%s', got '%s'", s, t);
    return !strcmp(t, s);
}

static double num(lexer *lx)
{
    const char *t = next(lx);
    char *e;
    double v = strtod(t, &e);
    CHECK_MSG(*t && !*e, "BVH: '%s' is not a number", t);
    return v;
}

static int parse_joint(lexer *lx, bvh_file *b, int parent, int depth)
{
    if (b->count >= MAXJ) return 0;
    int me = b->count++;
    bvh_joint *j = &b->j[me];
    snprintf(j->name, sizeof j->name, "%s", next(lx));
    j->parent = parent;
    j->depth = depth;
    if (!expect(lx, "{") || !expect(lx, "OFFSET")) return 0;
    for (int k = 0; k < 3; k++) j->offset[k] = num(lx);
    if (!expect(lx, "CHANNELS")) return 0;
    j->nchan = (int)num(lx);
    CHECK(j->nchan == 3 || j->nchan == 6);
    if (j->nchan != 3 && j->nchan != 6) return 0;
    for (int k = 0; k < j->nchan; k++) snprintf(j->chan[k], sizeof j->chan[k], "%s", next(lx));
    for (;;) {
        const char *t = next(lx);
        if (!strcmp(t, "}")) return 1;
        if (!strcmp(t, "JOINT")) {
            if (!parse_joint(lx, b, me, depth + 1)) return 0;
        } else if (!strcmp(t, "End")) {
            if (!expect(lx, "Site") || !expect(lx, "{") || !expect(lx, "OFFSET")) return 0;
            j->end_site = 1;
            for (int k = 0; k < 3; k++) j->end[k] = num(lx);
            if (!expect(lx, "}")) return 0;
        } else {
            CHECK_MSG(0, "BVH: unexpected '%s'", t);
            return 0;
        }
    }
}

static void parse_bvh(const ganim_buffer *out, bvh_file *b)
{
    memset(b, 0, sizeof *b);
    lexer lx = { (const char *)out->data, (const char *)out->data + out->size, "" };
    if (!expect(&lx, "HIERARCHY")) return;
    for (;;) {
        const char *t = next(&lx);
        if (!strcmp(t, "MOTION")) break;
        CHECK_MSG(!strcmp(t, "ROOT"), "BVH: expected ROOT, got '%s'", t);
        if (strcmp(t, "ROOT") || !parse_joint(&lx, b, -1, 0)) return;
        b->roots++;
    }
    if (!expect(&lx, "Frames:")) return;
    b->frames = (int)num(&lx);
    if (!expect(&lx, "Frame") || !expect(&lx, "Time:")) return;
    b->frame_time = num(&lx);
    for (int i = 0; i < b->count; i++) b->values_per_frame += b->j[i].nchan;
    b->values = calloc((size_t)b->frames * (size_t)b->values_per_frame + 1, sizeof(double));
    for (int i = 0; i < b->frames * b->values_per_frame; i++) b->values[i] = num(&lx);
    CHECK_MSG(!*next(&lx), "BVH: data after the last frame");
    b->ok = 1;
}

/* The value of channel `name` of joint `ji` at frame f. */
static const double *joint_values(const bvh_file *b, int ji, int f)
{
    int at = 0;
    for (int i = 0; i < ji; i++) at += b->j[i].nchan;
    return b->values + (size_t)f * (size_t)b->values_per_frame + (size_t)at;
}

static void qmul(const double a[4], const double b[4], double r[4])
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    r[0] = x, r[1] = y, r[2] = z, r[3] = w;
}

/* Rotation of joint ji at frame f: product of its rotation channels in listed order. */
static void recompose(const bvh_file *b, int ji, int f, double q[4])
{
    const bvh_joint *j = &b->j[ji];
    const double *v = joint_values(b, ji, f);
    q[0] = q[1] = q[2] = 0, q[3] = 1;
    for (int k = 0; k < j->nchan; k++) {
        if (strstr(j->chan[k], "position")) continue;
        int axis = j->chan[k][0] - 'X';
        double h = v[k] * PI / 360.0, r[4] = { 0, 0, 0, cos(h) };
        r[axis] = sin(h);
        qmul(q, r, q);
    }
}

/* Largest component difference between two rotations (q and -q are the same). */
static double qdist(const double a[4], const float *b)
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], s = d < 0 ? -1 : 1, m = 0;
    for (int k = 0; k < 4; k++)
        if (fabs(a[k] - s * b[k]) > m) m = fabs(a[k] - s * b[k]);
    return m;
}

/* ---- documents -------------------------------------------------------------------------- */

static void set_q(float *dst, int axis, double deg)
{
    double h = deg * PI / 360.0;
    dst[0] = dst[1] = dst[2] = 0;
    dst[axis] = (float)sin(h);
    dst[3] = (float)cos(h);
}

/* Z-up chain "hip" (rest at 1,2,3) -> "spine 1" (0,0,2) -> "head" (0,0,1). Clip of 13
 * frames at 30 fps: hip turns 0..360 deg about Z (Z-up's vertical) in 30 deg steps and
 * moves +x by 1 per frame; spine turns 0..240 deg about X in 20 deg steps (past the
 * middle-angle limit of +-90 for ZXY); head tilts about Y. */
static ganim_doc *make_doc(void)
{
    const char *names[3] = { "hip", "spine 1", "head" };
    ganim_doc *doc = tb_doc(3, names);
    doc->axes = GANIM_AXES_Z_UP;
    ganim_bone *b = doc->skeleton->bones;
    b[0].rest.translation = (ganim_vec3){ 1, 2, 3 };
    b[1].parent = 0;
    b[1].rest.translation = (ganim_vec3){ 0, 0, 2 };
    b[2].parent = 1;
    b[2].rest.translation = (ganim_vec3){ 0, 0, 1 };
    tb_clip(doc, "Turn", 30, 13);
    for (uint32_t ti = 0; ti < 3; ti++) {
        tb_track(doc, 0, ti, NULL, NULL);
        float r[13 * 4];
        for (int f = 0; f < 13; f++) {
            if (ti == 0) set_q(r + f * 4, 2, 30.0 * f);
            if (ti == 1) set_q(r + f * 4, 0, 20.0 * f);
            if (ti == 2) set_q(r + f * 4, 1, 15.0 * f - 40);
        }
        tb_channel(doc, 0, ti, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 13, NULL, r);
    }
    float p[13 * 3];
    for (int f = 0; f < 13; f++) p[f * 3] = (float)f, p[f * 3 + 1] = 2, p[f * 3 + 2] = 3;
    tb_channel(doc, 0, 0, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, 13, NULL, p);
    /* a child translation that is not its rest: written as position channels */
    const float cp[3] = { 0, 0, 5 };
    tb_channel(doc, 0, 2, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_CONSTANT, 1, NULL, cp);
    CHECK_OK(ganim_doc_validate(doc, NULL));
    return doc;
}

static void check_rotations(const bvh_file *bf, const ganim_doc *doc, int joint_of_bone[3])
{
    const ganim_clip *c = &doc->clips[0];
    static const double C[4] = { -H, 0, 0, H }; /* Z-up -> Y-up: -90 deg about X */
    for (int f = 0; f < bf->frames; f++) {
        for (uint32_t ti = 0; ti < 3; ti++) {
            const float *q = c->tracks[ti].rotation.values + f * 4;
            double e[4], got[4];
            recompose(bf, joint_of_bone[ti], f, got);
            if (ti == 0) {
                double src[4] = { q[0], q[1], q[2], q[3] };
                qmul(C, src, e);
            } else {
                for (int k = 0; k < 4; k++) e[k] = q[k];
            }
            float ef[4] = { (float)e[0], (float)e[1], (float)e[2], (float)e[3] };
            CHECK_MSG(qdist(got, ef) < 1e-5, "frame %d bone %u: recomposed (%g %g %g %g) vs (%g %g %g %g)", f, ti,
                      got[0], got[1], got[2], got[3], e[0], e[1], e[2], e[3]);
        }
    }
}

/* Euler values never jump by more than the motion between frames (+ a margin). Joints
 * before `first` are skipped: a Z-up root with an upright rest pose sits exactly at the
 * gimbal lock of ZXY once turned to Y-up, where Euler angles are not continuous. */
static void check_continuity(const bvh_file *bf, int first)
{
    for (int ji = first; ji < bf->count; ji++) {
        for (int f = 1; f < bf->frames; f++) {
            const double *a = joint_values(bf, ji, f - 1), *b = joint_values(bf, ji, f);
            for (int k = 0; k < bf->j[ji].nchan; k++) {
                if (strstr(bf->j[ji].chan[k], "position")) continue;
                CHECK_MSG(fabs(b[k] - a[k]) < 45, "joint %s frame %d %s: %g -> %g", bf->j[ji].name, f,
                          bf->j[ji].chan[k], a[k], b[k]);
            }
        }
    }
}

TEST(hierarchy_motion_and_euler)
{
    ganim_doc *doc = make_doc();
    ganim_buffer out = { 0 };
    ganim_error err = { 0 };
    CHECK_EQ_INT(ganim_export_bvh(doc, NULL, &out, &err), GANIM_OK);
    bvh_file bf;
    parse_bvh(&out, &bf);
    CHECK(bf.ok);
    if (!bf.ok) goto done;
    CHECK_EQ_INT(bf.roots, 1);
    CHECK_EQ_INT(bf.count, 3);
    CHECK_EQ_STR(bf.j[0].name, "hip");
    CHECK_EQ_STR(bf.j[1].name, "spine_1");
    CHECK_EQ_STR(bf.j[2].name, "head");
    CHECK_EQ_INT(bf.j[2].parent, 1);
    CHECK_EQ_INT(bf.j[2].end_site, 1);
    CHECK_EQ_INT(bf.j[0].end_site + bf.j[1].end_site, 0);
    /* root: 6 channels, positions first, then 3 rotations */
    CHECK_EQ_INT(bf.j[0].nchan, 6);
    CHECK_EQ_STR(bf.j[0].chan[0], "Xposition");
    CHECK_EQ_INT(bf.j[1].nchan, 3);
    /* Default orders are chosen per joint: ZXY unless its middle angle nears +-90. The
     * upright Z-up root (-90 about X after conversion) and the spine (0..240 about X)
     * would sit in ZXY's gimbal lock, so they get other orders; the head keeps ZXY. */
    CHECK(strcmp(bf.j[0].chan[3], "Zrotation") || strcmp(bf.j[0].chan[4], "Xrotation"));
    CHECK(strcmp(bf.j[1].chan[1], "Xrotation") != 0);
    /* the head's translation (5) is not its rest (1): position channels, then ZXY */
    CHECK_EQ_INT(bf.j[2].nchan, 6);
    CHECK_EQ_STR(bf.j[2].chan[0], "Xposition");
    CHECK_EQ_STR(bf.j[2].chan[3], "Zrotation");
    CHECK_EQ_STR(bf.j[2].chan[4], "Xrotation");
    CHECK_EQ_STR(bf.j[2].chan[5], "Yrotation");
    for (int ji = 0; ji < bf.count; ji++) {
        int mid = bf.j[ji].nchan - 2; /* middle rotation channel */
        for (int f = 0; f < bf.frames; f++) {
            double m = joint_values(&bf, ji, f)[mid];
            m = fmod(fabs(m), 180.0);
            CHECK_MSG(fabs(m - 90) > 9.9, "joint %s frame %d: middle angle %g is near the lock", bf.j[ji].name, f, m);
        }
    }
    /* offsets: root at 0 (its position is in the channels), children = rest translation */
    CHECK_NEAR(bf.j[0].offset[0] + bf.j[0].offset[1] + bf.j[0].offset[2], 0, 0);
    CHECK_NEAR(bf.j[1].offset[2], 2, 0);
    CHECK_NEAR(bf.j[2].offset[2], 0, 0); /* OFFSET 0 0 0: the channels hold the 5 */
    for (int f = 0; f < bf.frames; f++) {
        const double *v = joint_values(&bf, 2, f);
        CHECK(v[0] == 0 && v[1] == 0 && v[2] == 5);
    }
    CHECK_EQ_INT(bf.frames, 13);
    CHECK_NEAR(bf.frame_time, 1.0 / 30, 1e-10);
    CHECK(strstr((const char *)out.data, "Frame Time: 0.0333333333\n") != NULL);
    /* root position: (f, 2, 3) in Z-up -> (f, 3, -2) */
    for (int f = 0; f < 13; f++) {
        const double *v = joint_values(&bf, 0, f);
        CHECK_NEAR(v[0], f, 1e-6);
        CHECK_NEAR(v[1], 3, 1e-6);
        CHECK_NEAR(v[2], -2, 1e-6);
    }
    int map[3] = { 0, 1, 2 };
    check_rotations(&bf, doc, map);
    check_continuity(&bf, 0); /* no joint sits in a gimbal lock, the root included */
    /* the spine's X angle goes past 90 smoothly: 240 at the end (as one value) */
    for (int k = 0; k < 3; k++)
        if (!strcmp(bf.j[1].chan[k], "Xrotation")) CHECK_NEAR(joint_values(&bf, 1, 12)[k], 240, 1e-3);
done:
    free(bf.values);
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

/* Joints whose translation is animated or differs from the rest get 6 channels with OFFSET
 * 0 0 0, asked or not (bvh_joint_positions also gives them to joints whose animated
 * translation stays at the rest); a joint at its rest offset keeps 3. */
TEST(joint_positions_on_request)
{
    ganim_doc *doc = make_doc();
    float hp[13 * 3] = { 0 };
    for (int f = 0; f < 13; f++) hp[f * 3 + 0] = 0.5f * (float)f, hp[f * 3 + 2] = 1;
    tb_channel(doc, 0, 2, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, 13, NULL, hp);
    for (int asked = 0; asked < 2; asked++) {
        ganim_export_opts o = { 0 };
        o.bvh_joint_positions = asked;
        ganim_buffer out = { 0 };
        CHECK_EQ_INT(ganim_export_bvh(doc, &o, &out, NULL), GANIM_OK);
        bvh_file bf;
        parse_bvh(&out, &bf);
        CHECK(bf.ok);
        if (bf.ok) {
            CHECK_EQ_STR(bf.j[2].name, "head");
            CHECK_EQ_INT(bf.j[1].nchan, 3); /* the spine's translation is not animated */
            CHECK_EQ_INT(bf.j[2].nchan, 6);
            CHECK_NEAR(bf.j[2].offset[2], 0, 0);
            { /* non-root: no axis conversion, the local translation as is */
                CHECK_EQ_STR(bf.j[2].chan[0], "Xposition");
                for (int f = 0; f < 13; f++) {
                    const double *v = joint_values(&bf, 2, f);
                    CHECK_NEAR(v[0], 0.5 * f, 1e-6);
                    CHECK_NEAR(v[1], 0, 1e-6);
                    CHECK_NEAR(v[2], 1, 1e-6);
                }
                int map[3] = { 0, 1, 2 };
                check_rotations(&bf, doc, map); /* rotations unaffected */
            }
        }
        free(bf.values);
        ganim_buffer_free(&out);
    }
    ganim_doc_free(doc);
}

TEST(other_orders_and_options)
{
    ganim_doc *doc = make_doc();
    static const char *orders[] = { "XYZ", "xzy", "YXZ", "YZX", "ZYX" };
    for (int i = 0; i < 5; i++) {
        ganim_buffer out = { 0 };
        ganim_export_opts o = { 0 };
        o.bvh_order = orders[i];
        o.unit_scale = 100;
        CHECK_OK(ganim_export_bvh(doc, &o, &out, NULL));
        bvh_file bf;
        parse_bvh(&out, &bf);
        if (bf.ok) {
            for (int k = 0; k < 3; k++) CHECK_EQ_INT(bf.j[1].chan[k][0], orders[i][k] & ~0x20);
            int map[3] = { 0, 1, 2 };
            check_rotations(&bf, doc, map);
            check_continuity(&bf, 1);
            CHECK_NEAR(bf.j[1].offset[2], 200, 0);
            CHECK_NEAR(joint_values(&bf, 0, 5)[0], 500, 1e-4);
        }
        free(bf.values);
        ganim_buffer_free(&out);
    }
    ganim_buffer out = { 0 };
    ganim_error err = { 0 };
    ganim_export_opts o = { 0 };
    o.bvh_order = "XXY";
    CHECK_EQ_INT(ganim_export_bvh(doc, &o, &out, &err), GANIM_ERR_INVALID_ARG);
    o.bvh_order = NULL;
    o.only_clip = 1 + 1; /* clip 1 */
    CHECK_EQ_INT(ganim_export_bvh(doc, &o, &out, &err), GANIM_ERR_INVALID_ARG);
    CHECK_EQ_INT(out.size, 0);
    /* keep_axes: the root's rotation is written as stored (about Z) */
    o.only_clip = 0;
    o.keep_axes = 1;
    CHECK_OK(ganim_export_bvh(doc, &o, &out, NULL));
    bvh_file bf;
    parse_bvh(&out, &bf);
    if (bf.ok) {
        double got[4];
        recompose(&bf, 0, 3, got); /* 90 deg about Z */
        float e[4] = { 0, 0, (float)H, (float)H };
        CHECK(qdist(got, e) < 1e-6);
        CHECK_NEAR(joint_values(&bf, 0, 3)[1], 2, 0);
        /* the full turn about Z (the first ZXY angle) ends at 360 rather than wrapping to 0 */
        CHECK_NEAR(joint_values(&bf, 0, 12)[3], 360, 1e-3);
        check_continuity(&bf, 0);
    }
    free(bf.values);
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

/* Several roots: a synthetic ROOT with zero channels; real roots get 6 channels and a
 * zero OFFSET. A document without clips gives one frame of rest pose. */
TEST(flat_skeleton_and_rest_pose)
{
    const char *names[2] = { "a b", "a_b" };
    ganim_doc *doc = tb_doc(2, names);
    doc->skeleton->bones[1].rest.translation = (ganim_vec3){ 4, 5, 6 };
    set_q(&doc->skeleton->bones[1].rest.rotation.x, 0, 30);
    ganim_buffer out = { 0 };
    ganim_export_opts o = { 0 };
    o.keep_axes = 1;
    CHECK_OK(ganim_export_bvh(doc, &o, &out, NULL));
    bvh_file bf;
    parse_bvh(&out, &bf);
    if (bf.ok) {
        CHECK_EQ_INT(bf.roots, 1);
        CHECK_EQ_INT(bf.count, 3);
        CHECK_EQ_STR(bf.j[0].name, "ganim_root");
        CHECK_EQ_STR(bf.j[1].name, "a_b");
        CHECK_EQ_STR(bf.j[2].name, "a_b_1");
        CHECK_EQ_INT(bf.j[1].nchan, 6);
        CHECK_EQ_INT(bf.j[2].nchan, 6);
        CHECK_EQ_INT(bf.frames, 1);
        const double *v0 = joint_values(&bf, 0, 0), *v2 = joint_values(&bf, 2, 0);
        for (int k = 0; k < 6; k++) CHECK_NEAR(v0[k], 0, 0);
        CHECK_NEAR(v2[0], 4, 0);
        CHECK_NEAR(v2[1], 5, 0);
        CHECK_NEAR(v2[2], 6, 0);
        double got[4];
        recompose(&bf, 2, 0, got);
        CHECK(qdist(got, &doc->skeleton->bones[1].rest.rotation.x) < 1e-6);
    }
    free(bf.values);
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
    /* no skeleton at all: nothing to write */
    ganim_error err = { 0 };
    CHECK_OK(ganim_doc_new(NULL, &doc, &err));
    CHECK_EQ_INT(ganim_export_bvh(doc, NULL, &out, &err), GANIM_ERR_INVALID_ARG);
    ganim_doc_free(doc);
}

int main(void)
{
    RUN(hierarchy_motion_and_euler);
    RUN(joint_positions_on_request);
    RUN(other_orders_and_options);
    RUN(flat_skeleton_and_rest_pose);
    return test_finish();
}
