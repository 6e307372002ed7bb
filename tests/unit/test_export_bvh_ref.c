/* The BVH exporter against itself as it was at 0cc1e5b (tests/unit/ref_export_bvh_0cc1e5b.h,
 * the old code verbatim): the same bytes, return code, error message and warnings for
 * random documents made to reach every branch of the channel-order choice (rotations near
 * and at gimbal lock in every order, exact quarter turns, zero components, rotations that
 * are not unit or not finite), position channels (translations equal to the rest or not,
 * bit for bit), several roots, the three axes, forced orders, the rest pose and partner
 * clips. 3,000 documents (30,000 with GANIM_FULL=1 or CI=true). Since bvhy the exporter keeps
 * the poses it scans for the MOTION lines up to a budget (GX_BVH_KEEP): each export here
 * takes a budget at random (none, part of the frames, every frame, the library's), so
 * poses kept, sampled again and both in one clip are all compared. */
#include <stdlib.h>

#include "ref_export_bvh_0cc1e5b.h"
#include "support/tbuild.h"
#include "test.h"

#define MAXB 24
#define MAXF 48

#define TRAND_SEED 0x9e3779b97f4a7c15u
#include "support/trand.h"
static const double RPI = 3.14159265358979323846;

/* One rotation of a kind chosen at random (x y z w). */
static void rnd_quat(float q[4], uint32_t kind_limit)
{
    uint32_t kind = rnd_below(kind_limit);
    double xyz[3];
    ganim_quat r;
    switch (kind) {
    case 0: /* any rotation */
    case 1: {
        double v[4], n = 0;
        for (int i = 0; i < 4; i++) v[i] = rnd_sym(1), n += v[i] * v[i];
        n = sqrt(n);
        for (int i = 0; i < 4; i++) q[i] = (float)(v[i] / (n > 0 ? n : 1));
        return;
    }
    case 2: /* a middle angle near, at or past +-80 and +-90 degrees in some order */
    case 3: {
        static const double mids[] = { 78, 79.99, 80, 80.0001, 85, 89.9, 89.99999, 90, 90.00001, 95, 100 };
        xyz[0] = rnd_sym(RPI), xyz[1] = rnd_sym(RPI), xyz[2] = rnd_sym(RPI);
        xyz[rnd_below(3)] =
            (rnd() & 1 ? 1 : -1) * mids[rnd_below(11)] * RPI / 180 + rnd_sym(1e-6) * (double)(rnd() & 1);
        r = ganim_quat_from_euler(xyz, (ganim_euler_order)rnd_below(6));
        break;
    }
    case 4: /* quarter turns: exact zeros and halves of the matrix */
        for (int i = 0; i < 3; i++) xyz[i] = (double)rnd_below(8) * RPI / 4;
        r = ganim_quat_from_euler(xyz, (ganim_euler_order)rnd_below(6));
        break;
    case 5: { /* one, two or four components of the same size, the others +-0 */
        static const float size[3] = { 1.0f, 0.70710678f, 0.5f };
        uint32_t m = rnd_below(3), first = rnd_below(4);
        for (int i = 0; i < 4; i++) {
            int on = m == 2 || (uint32_t)i == first || (m == 1 && (uint32_t)i == (first + 1) % 4);
            q[i] = (rnd() & 1 ? -1.0f : 1.0f) * (on ? size[m] : 0.0f);
        }
        return;
    }
    case 6: /* small Euler angles (mocap-like) */
        for (int i = 0; i < 3; i++) xyz[i] = rnd_sym(0.8);
        r = ganim_quat_from_euler(xyz, (ganim_euler_order)rnd_below(6));
        break;
    case 7: /* not unit, within what validation takes (0.1 % in length) */
        rnd_quat(q, 7);
        for (int i = 0; i < 4; i++) q[i] *= (float)(1 + rnd_sym(0.0009));
        return;
    case 8: /* not finite, once in a while (validation refuses the document) */
        rnd_quat(q, 7);
        if (rnd_below(64) == 0) q[rnd_below(4)] = rnd() & 1 ? NAN : INFINITY;
        return;
    default: /* a turn about one axis, all angles, sometimes exactly 90 or 180 degrees */
        xyz[0] = xyz[1] = xyz[2] = 0;
        xyz[rnd_below(3)] = rnd_below(3) ? rnd_sym(2 * RPI) : (double)rnd_below(5) * RPI / 2;
        r = ganim_quat_from_euler(xyz, GANIM_EULER_XYZ);
        break;
    }
    q[0] = r.x, q[1] = r.y, q[2] = r.z, q[3] = r.w;
}

/* A smooth run of rotations (what clips are), with now and then a jump of any kind. */
static void rnd_run(float *r, uint32_t frames, uint32_t kind_limit)
{
    double a[3] = { rnd_sym(RPI), rnd_sym(RPI), rnd_sym(RPI) }, v[3] = { rnd_sym(0.3), rnd_sym(0.3), rnd_sym(0.3) };
    ganim_euler_order o = (ganim_euler_order)rnd_below(6);
    int smooth = rnd_below(3) != 0;
    for (uint32_t f = 0; f < frames; f++) {
        if (smooth && rnd_below(16)) {
            for (int i = 0; i < 3; i++) a[i] += v[i];
            ganim_quat q = ganim_quat_from_euler(a, o);
            r[f * 4] = q.x, r[f * 4 + 1] = q.y, r[f * 4 + 2] = q.z, r[f * 4 + 3] = q.w;
        } else {
            rnd_quat(r + f * 4, kind_limit);
        }
    }
}

static void rnd_vec(float *v, const ganim_vec3 *rest)
{
    uint32_t k = rnd_below(4);
    if (k == 0 && rest) { /* the rest itself, bit for bit */
        v[0] = rest->x, v[1] = rest->y, v[2] = rest->z;
    } else if (k == 1 && rest) { /* one float step off the rest */
        v[0] = rest->x, v[1] = nextafterf(rest->y, 1e30f), v[2] = rest->z;
    } else {
        for (int i = 0; i < 3; i++) v[i] = (float)rnd_sym(100);
    }
}

typedef struct warnings {
    char text[8192];
    size_t at;
} warnings;

static void on_warn(void *user, const ganim_warning *w)
{
    warnings *ws = user;
    int n = snprintf(ws->text + ws->at, sizeof ws->text - ws->at, "%d %s\n", (int)w->code, w->message);
    if (n > 0 && (size_t)n < sizeof ws->text - ws->at) ws->at += (size_t)n;
}

static ganim_doc *rnd_doc(uint32_t kind_limit)
{
    uint32_t n = 1 + rnd_below(MAXB);
    ganim_doc *doc = tb_doc(n, NULL);
    doc->axes = (ganim_axes)rnd_below(3);
    ganim_bone *b = doc->skeleton->bones;
    int roots = 1 + (rnd_below(4) == 0);
    for (uint32_t i = 0; i < n; i++) {
        b[i].parent = i < (uint32_t)roots ? -1 : (int32_t)rnd_below(i);
        float t[3];
        rnd_vec(t, NULL);
        if (rnd_below(4) == 0) t[0] = t[1] = t[2] = 0;
        b[i].rest.translation = (ganim_vec3){ t[0], t[1], t[2] };
        if (rnd_below(3) == 0) {
            float q[4];
            rnd_quat(q, 8);
            b[i].rest.rotation = (ganim_quat){ q[0], q[1], q[2], q[3] };
        }
        if (rnd_below(16) == 0) b[i].rest.scale = (ganim_vec3){ 2, 2, 2 };
    }
    uint32_t clips = rnd_below(8) == 0 ? 0 : 1 + rnd_below(2);
    for (uint32_t c = 0; c < clips; c++) {
        uint32_t frames = 1 + rnd_below(MAXF);
        tb_clip(doc, c ? "second" : "first", rnd_below(2) ? 30.0 : 12.5 + rnd_unit() * 40, frames);
        for (uint32_t i = 0; i < n; i++) {
            if (rnd_below(6) == 0) continue; /* a bone the clip leaves at rest */
            uint32_t t = tb_track(doc, c, i, NULL, NULL);
            float r[MAXF * 4], p[MAXF * 3], times[MAXF];
            uint32_t rk = rnd_below(5);
            if (rk == 0) {
                rnd_quat(r, kind_limit);
                tb_channel(doc, c, t, GANIM_TARGET_ROTATION, GANIM_CHANNEL_CONSTANT, 1, NULL, r);
            } else if (rk == 1 && frames > 1) {
                uint32_t keys = 1 + rnd_below(frames);
                for (uint32_t k = 0; k < keys; k++) times[k] = (float)k * (float)(frames - 1) / (float)keys;
                rnd_run(r, keys, kind_limit);
                tb_channel(doc, c, t, GANIM_TARGET_ROTATION, GANIM_CHANNEL_KEYED, keys, times, r);
            } else {
                rnd_run(r, frames, kind_limit);
                tb_channel(doc, c, t, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, frames, NULL, r);
            }
            uint32_t tk = rnd_below(4);
            if (tk == 1) {
                rnd_vec(p, &b[i].rest.translation);
                tb_channel(doc, c, t, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_CONSTANT, 1, NULL, p);
            } else if (tk == 2) {
                for (uint32_t f = 0; f < frames; f++) rnd_vec(p + f * 3, &b[i].rest.translation);
                tb_channel(doc, c, t, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, frames, NULL, p);
            }
            if (rnd_below(12) == 0) {
                const float s[3] = { 1, 1.5f, 1 };
                tb_channel(doc, c, t, GANIM_TARGET_SCALE, GANIM_CHANNEL_CONSTANT, 1, NULL, s);
            }
        }
    }
    return doc;
}

/* Does the output hold `s`? */
static int has(const ganim_buffer *out, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= out->size; i++)
        if (!memcmp(out->data + i, s, n)) return 1;
    return 0;
}

static uint32_t moved; /* outputs with a joint in another order than ZXY, chosen */

typedef struct result {
    ganim_code code;
    ganim_buffer out;
    ganim_error err;
    warnings w;
} result;

static uint32_t budgets[4]; /* exports that kept no frame, some, all (by the budget), the library's budget */

/* The budget of poses for one export: none, a random part of the frames, all, or the
 * library's own (through ganim_export_bvh). SIZE_MAX for the last. */
static size_t rnd_keep(const ganim_doc *doc)
{
    size_t frame = (size_t)doc->skeleton->bone_count * sizeof(ganim_transform), frames = 1;
    for (uint32_t c = 0; c < doc->clip_count; c++)
        if (doc->clips[c].frame_count > frames) frames = doc->clips[c].frame_count;
    switch (rnd_below(5)) {
    case 0: budgets[0]++; return rnd_below(2) ? 0 : frame - 1 - rnd_below((uint32_t)frame);
    case 1:
    case 2: budgets[1]++; return frame * (1 + rnd_below((uint32_t)frames)) + rnd_below((uint32_t)frame);
    case 3: budgets[2]++; return rnd_below(2) ? SIZE_MAX - rnd_below(1000) : frame * frames * (1 + rnd_below(3));
    default: budgets[3]++; return SIZE_MAX;
    }
}

static void run(const ganim_doc *doc, const ganim_export_opts *o, int ref, result *r)
{
    ganim_export_opts oo = *o;
    memset(r, 0, sizeof *r);
    oo.warn = on_warn;
    oo.warn_user = &r->w;
    if (ref) {
        r->code = ref_export_bvh(doc, &oo, &r->out, &r->err);
    } else {
        size_t keep = rnd_keep(doc);
        r->code = keep == SIZE_MAX ? ganim_export_bvh(doc, &oo, &r->out, &r->err)
                                   : gx_export_bvh_keep(doc, &oo, &r->out, keep, &r->err);
    }
}

/* Exports `doc` with both and compares; returns 1 when the export succeeded. */
static int compare(const ganim_doc *doc, const ganim_export_opts *o, uint32_t i)
{
    result a, b;
    run(doc, o, 0, &a);
    run(doc, o, 1, &b);
    CHECK_EQ_INT(a.code, b.code);
    CHECK_EQ_INT(a.out.size, b.out.size);
    int same = a.out.size == b.out.size && (!a.out.size || !memcmp(a.out.data, b.out.data, a.out.size));
    if (!same || strcmp(a.err.message, b.err.message) != 0 || strcmp(a.w.text, b.w.text) != 0) {
        CHECK(0 && "the exporter differs from 0cc1e5b's");
        printf("  document %u: code %d/%d, %zu/%zu bytes, error '%s' / '%s'\n", i, (int)a.code, (int)b.code, a.out.size,
               b.out.size, a.err.message, b.err.message);
    }
    if (!o->bvh_order && a.code == GANIM_OK) { /* how many joints left ZXY */
        static const char *const others[] = { "Xrotation Yrotation Zrotation\n", "Xrotation Zrotation Yrotation\n",
                                              "Yrotation Xrotation Zrotation\n", "Yrotation Zrotation Xrotation\n",
                                              "Zrotation Yrotation Xrotation\n" };
        for (int k = 0; k < 5; k++) moved += (uint32_t)has(&a.out, others[k]);
    }
    ganim_buffer_free(&a.out);
    ganim_buffer_free(&b.out);
    return a.code == GANIM_OK;
}

TEST(same_bytes_as_0cc1e5b)
{
    static const char *const orders[] = { NULL, NULL, NULL, "ZXY", "xyz", "YZX", "ZYX", "XZY", "QQQ" };
    uint32_t docs = test_full() ? 30000 : 3000, ok = 0, chose = 0;
    for (uint32_t i = 0; i < docs && !test_failures_in_current; i++) {
        ganim_doc *doc = rnd_doc(10);
        for (int k = 0; k < 3; k++) {
            ganim_export_opts o = { 0 };
            o.bvh_order = orders[rnd_below(9)];
            o.bvh_joint_positions = rnd_below(3) == 0;
            o.keep_axes = rnd_below(5) == 0;
            if (rnd_below(4) == 0) o.unit_scale = 0.01f;
            if (doc->clip_count > 1 && rnd_below(2)) o.only_clip = 1 + rnd_below(doc->clip_count);
            ok += (uint32_t)compare(doc, &o, i);
            chose += !o.bvh_order;
        }
        ganim_doc_free(doc);
    }
    /* the documents reach both outcomes, most of them written */
    CHECK(ok > docs);
    CHECK(ok < 3 * docs);
    CHECK(chose > docs / 2);
    CHECK(moved > docs / 10);
    for (int k = 0; k < 4; k++) CHECK(budgets[k] > docs / 4);
    printf("  %u documents, %u exports written, %u chose the orders, %u with a joint moved off ZXY; budgets of poses: "
           "%u none, %u part, %u all, %u the library's\n",
           docs, ok, chose, moved, budgets[0], budgets[1], budgets[2], budgets[3]);
}

/* A joint whose ZXY middle angle passes 80 degrees gets another order, chosen the same. */
TEST(gimbal_joints_same_order)
{
    uint32_t other = 0;
    for (uint32_t i = 0; i < 400; i++) {
        ganim_doc *doc = tb_doc(2, NULL);
        doc->skeleton->bones[1].parent = 0;
        tb_clip(doc, "c", 30, 40);
        for (uint32_t bone = 0; bone < 2; bone++) {
            float r[40 * 4];
            double xyz[3] = { rnd_sym(0.5), rnd_sym(0.5), rnd_sym(0.5) };
            for (uint32_t f = 0; f < 40; f++) { /* X, ZXY's middle angle, through 75..95 degrees */
                xyz[0] = (75 + 20.0 * f / 39 + rnd_sym(1e-9)) * RPI / 180 * (i & 1 ? 1 : -1);
                ganim_quat q = ganim_quat_from_euler(xyz, GANIM_EULER_ZXY);
                r[f * 4] = q.x, r[f * 4 + 1] = q.y, r[f * 4 + 2] = q.z, r[f * 4 + 3] = q.w;
            }
            tb_track(doc, 0, bone, NULL, NULL);
            tb_channel(doc, 0, bone, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 40, NULL, r);
        }
        ganim_export_opts o = { 0 };
        o.keep_axes = 1;
        CHECK(compare(doc, &o, i));
        ganim_buffer out = { 0 };
        CHECK_OK(ganim_export_bvh(doc, &o, &out, NULL));
        other += !has(&out, "\tCHANNELS 3 Zrotation Xrotation Yrotation\n");
        ganim_buffer_free(&out);
        ganim_doc_free(doc);
    }
    CHECK_EQ_INT(other, 400); /* the child never keeps ZXY */
}

/* An allocator that refuses new blocks over `limit` bytes (not a buffer's growth) and checks
 * that each block is freed with the size it was given. */
typedef struct picky {
    size_t limit, refused, wrong_size, live;
    void *ptr[64];
    size_t size[64];
} picky;

static void picky_note(picky *p, void *ptr, size_t size)
{
    for (int i = 0; i < 64; i++)
        if (!p->ptr[i]) {
            p->ptr[i] = ptr, p->size[i] = size;
            return;
        }
    p->wrong_size++; /* more live blocks than the test expects */
}

static size_t picky_forget(picky *p, void *ptr)
{
    for (int i = 0; i < 64; i++)
        if (p->ptr[i] == ptr) {
            p->ptr[i] = NULL;
            return p->size[i];
        }
    return (size_t)-1;
}

static void *picky_alloc(void *user, size_t size)
{
    picky *p = user;
    if (size > p->limit) {
        p->refused++;
        return NULL;
    }
    void *m = malloc(size ? size : 1);
    if (m) picky_note(p, m, size), p->live++;
    return m;
}

static void *picky_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    picky *p = user;
    if (ptr && picky_forget(p, ptr) != old_size) p->wrong_size++;
    void *m = realloc(ptr, new_size ? new_size : 1);
    if (m) picky_note(p, m, new_size);
    return m;
}

static void picky_free(void *user, void *ptr, size_t size)
{
    picky *p = user;
    if (!ptr) return;
    if (picky_forget(p, ptr) != size) p->wrong_size++;
    p->live--;
    free(ptr);
}

/* The block of kept poses refused: the export samples every frame again, the same bytes;
 * every block is freed with its size, the kept ones too. */
TEST(kept_poses_refused)
{
    uint32_t refused = 0;
    for (uint32_t i = 0; i < 300; i++) {
        ganim_doc *doc = rnd_doc(10);
        ganim_export_opts o = { 0 };
        result a, b;
        run(doc, &o, 1, &b);
        picky p = { 0 };
        /* the scratch block (216 bytes a bone and its alignment) and the others, not with the kept poses
           (40 bytes a bone a frame) when there are two frames or more and five bones or more */
        p.limit = i % 3 == 0 ? SIZE_MAX : 256 + 232 * (size_t)doc->skeleton->bone_count;
        ganim_export_opts oo = o;
        oo.allocator = (ganim_allocator){ picky_alloc, picky_realloc, picky_free, &p };
        oo.warn = on_warn;
        memset(&a, 0, sizeof a);
        oo.warn_user = &a.w;
        a.code = gx_export_bvh_keep(doc, &oo, &a.out, SIZE_MAX / 2, &a.err);
        CHECK_EQ_INT(a.code, b.code);
        CHECK(a.out.size == b.out.size && (!a.out.size || !memcmp(a.out.data, b.out.data, a.out.size)));
        CHECK_EQ_STR(a.w.text, b.w.text);
        CHECK_EQ_INT(p.wrong_size, 0);
        refused += p.refused > 0;
        ganim_buffer_free(&a.out);
        CHECK_EQ_INT(p.live, 0);
        ganim_buffer_free(&b.out);
        ganim_doc_free(doc);
    }
    CHECK(refused > 30);
    printf("  %u exports with the kept poses refused\n", refused);
}

/* The exporter looks at the second Euler solution only when the first one's distance c1 is
 * 3 or more (euler_continuous, the argument above it): with 0cc1e5b's wrap_near and sums,
 * c1 < 3 never has c2 < c1, for angles as atan2 and asin give them (first and last in
 * [-pi, pi], middle in [-pi/2, pi/2]) against previous angles up to 2^34 in size (what
 * 2^32 frames can reach), near each other and near every distance. */
TEST(second_solution_never_nearer_below_3)
{
    uint32_t cases = test_full() ? 40000000 : 4000000, wrong = 0, alt_won = 0, fast = 0;
    for (uint32_t i = 0; i < cases; i++) {
        double e[3], prev[3], alt[3];
        int order = (int)rnd_below(6);
        int ax[3] = { order_axis((unsigned)order, 0), order_axis((unsigned)order, 1), order_axis((unsigned)order, 2) };
        double turns = (double)(int64_t)(rnd() % ((uint64_t)1 << (rnd_below(32) + 1))) - (double)(1u << 30);
        if (rnd_below(4) == 0) turns = 0;
        for (int k = 0; k < 3; k++) {
            double lim = k == 1 ? RPI / 2 : RPI;
            e[ax[k]] = rnd_below(16) ? rnd_sym(lim) : (rnd() & 1 ? lim : -lim);
        }
        uint32_t regime = rnd_below(4); /* near (c1 up to 3 and just past), mixed, anywhere */
        for (int k = 0; k < 3; k++) {   /* the previous angle: near e, near e + pi, or anywhere, some turns away */
            double step = regime == 0         ? rnd_sym(k == 1 ? 0.05 : 1.55)
                          : regime == 1       ? rnd_sym(0.5)
                          : rnd_below(3) == 0 ? rnd_sym(RPI + 0.2)
                          : rnd_below(2)      ? rnd_sym(1.6)
                                              : RPI + rnd_sym(1e-6);
            prev[k] = e[k] + step + 2 * RPI * turns;
        }
        alt[ax[0]] = e[ax[0]] + RPI;
        alt[ax[1]] = RPI - e[ax[1]];
        alt[ax[2]] = e[ax[2]] + RPI;
        double c1 = 0, c2 = 0;
        for (int k = 0; k < 3; k++) {
            double w1 = wrap_near(e[k], prev[k]), w2 = wrap_near(alt[k], prev[k]);
            c1 += fabs(w1 - prev[k]);
            c2 += fabs(w2 - prev[k]);
        }
        fast += c1 < 3.0;
        wrong += c1 < 3.0 && c2 < c1;
        alt_won += c2 < c1;
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK(fast > cases / 4);
    CHECK(alt_won > cases / 100);
    printf("  %u cases: %u with c1 < 3 (never c2 < c1), %u with the second solution nearer\n", cases, fast, alt_won);
}

/* ganim_quat_to_euler as it was at 0cc1e5b (src/core/math.c), with its matrix. */
static void ref_quat_to_euler(ganim_quat q, ganim_euler_order order, double xyz[3])
{
    static const char *const order_axes[] = { "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX" };
    if ((unsigned)order > GANIM_EULER_ZYX) order = GANIM_EULER_XYZ;
    const char *ax = order_axes[order];
    int a = ax[0] - 'X', b = ax[1] - 'X', c = ax[2] - 'X';
    double p = ((b - a + 3) % 3 == 1) ? 1.0 : -1.0; /* cyclic: X->Y->Z */
    double m[9];
    double x = q.x, y = q.y, z = q.z, w = q.w;
    double n = x * x + y * y + z * z + w * w;
    double s = n > 0 ? 2.0 / n : 0.0;
    m[0] = 1 - s * (y * y + z * z);
    m[1] = s * (x * y - z * w);
    m[2] = s * (x * z + y * w);
    m[3] = s * (x * y + z * w);
    m[4] = 1 - s * (x * x + z * z);
    m[5] = s * (y * z - x * w);
    m[6] = s * (x * z - y * w);
    m[7] = s * (y * z + x * w);
    m[8] = 1 - s * (x * x + y * y);
#define M(r, k) m[(r)*3 + (k)]
    double sb = p * M(a, c);
    if (sb > 1) sb = 1;
    if (sb < -1) sb = -1;
    double tb = asin(sb), ta, tc;
    if (fabs(sb) < 0.9999999) {
        ta = atan2(-p * M(b, c), M(c, c));
        tc = atan2(-p * M(a, b), M(a, a));
    } else { /* gimbal lock: put everything into the first angle */
        tc = 0;
        ta = atan2(p * M(c, b), M(b, b));
    }
#undef M
    xyz[a] = ta;
    xyz[b] = tb;
    xyz[c] = tc;
}

/* ganim_quat_to_euler gives 0cc1e5b's bits for every order (and orders out of range) on
 * rotations of every kind rnd_quat makes, any float bits, and non-unit ones. */
TEST(quat_to_euler_same_bits)
{
    uint32_t cases = test_full() ? 20000000 : 2000000, differ = 0;
    for (uint32_t i = 0; i < cases; i++) {
        float f[4];
        if (i % 4 == 0) { /* any bits, NaN and infinities included */
            for (int k = 0; k < 4; k++) {
                uint32_t u = (uint32_t)rnd();
                memcpy(&f[k], &u, 4);
            }
        } else {
            rnd_quat(f, 10);
            if (i % 4 == 1)
                for (int k = 0; k < 4; k++) f[k] *= (float)(0.5 + rnd_unit());
        }
        ganim_quat q = { f[0], f[1], f[2], f[3] };
        static const unsigned orders[] = { 0, 1, 2, 3, 4, 5, 6, 255, 0xffffffffu };
        unsigned o = orders[i % 9];
        double a[3], b[3];
        ganim_quat_to_euler(q, (ganim_euler_order)o, a);
        ref_quat_to_euler(q, (ganim_euler_order)o, b);
        int same = 1; /* bit for bit; a NaN for a NaN (C leaves its sign to the compiler: GCC makes
                         -1.0 * x a sign flip, the processor's product keeps the NaN's sign) */
        for (int k = 0; k < 3; k++) same &= isnan(a[k]) ? isnan(b[k]) : !memcmp(&a[k], &b[k], sizeof a[k]);
        if (!same && differ++ < 5)
            printf("  (%a %a %a %a) order %u: %a %a %a against %a %a %a\n", (double)f[0], (double)f[1], (double)f[2],
                   (double)f[3], o, a[0], a[1], a[2], b[0], b[1], b[2]);
    }
    CHECK_EQ_INT(differ, 0);
}

int main(void)
{
    RUN(same_bytes_as_0cc1e5b);
    RUN(gimbal_joints_same_order);
    RUN(kept_poses_refused);
    RUN(second_solution_never_nearer_below_3);
    RUN(quat_to_euler_same_bits);
    return test_finish();
}
