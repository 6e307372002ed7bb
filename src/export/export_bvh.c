/* BVH exporter: one clip as a Biovision hierarchy, every frame sampled.
 *
 * Layout chosen so that Blender and three.js agree on the pose (docs/dump-format.md, BVH):
 *   - root bones: OFFSET 0 0 0 and 6 channels (position, then rotation); the position
 *     channels carry the whole root translation (rest or animated), converted to +Y up;
 *   - other joints: OFFSET = rest translation, 3 rotation channels only, while their
 *     translation is the rest offset in every frame (bit for bit); a joint whose
 *     translation differs from it (animated, or a constant of the clip's own) gets 6
 *     channels like roots, with OFFSET 0 0 0 so that clients that add the channels to the
 *     offset (three.js) and clients that take them as absolute (Blender) agree, and so
 *     that the clip's own translations come back (ALA -> BVH -> ALA);
 *     opts->bvh_joint_positions also gives them to every joint whose translation channel
 *     is animated. Scales cannot be expressed and are dropped (with a warning);
 *   - several root bones: a synthetic ROOT "ganim_root" (identity, 6 zero channels) holds
 *     them; each real root is then a JOINT with OFFSET 0 0 0 and 6 channels, which both
 *     clients read the same way because the offset is zero.
 * BVH has no rest rotation: a joint's channels are its full local rotation.
 *
 * Rotation order: BVH lets every joint name its own channel order. Unless the caller
 * forces one (opts->bvh_order), each joint gets ZXY, the common mocap order, except where
 * ZXY's middle angle comes within 10 degrees of +-90 during the clip (gimbal lock: the
 * outer angles become unstable and viewers that interpolate Euler angles flip); such a
 * joint gets the order whose middle angle stays farthest from +-90. A Z-up model turned
 * upright is the usual case: its root sits at -90 degrees about X. */
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "export/export.h"
#include "io/numtext.h"
#include "io/writer.h"

#define PI 3.14159265358979323846
#define MAX_INDENT 32 /* deeper hierarchies stay readable and the file stays linear in size */

typedef struct bvh {
    const ganim_skeleton *sk;
    const ganim_clip *clip;    /* NULL: one frame of the rest pose */
    const ganim_clip *partner; /* gx_partner: played with the clip, on the bones it does not animate */
    uint32_t frames;           /* gx_span: frames written */
    ganim_transform *pose2;    /* the partner's pose */
    uint8_t *owned;            /* per bone: 1 = the clip animates it */
    uint8_t *lost;             /* per bone: what the file cannot carry (1 scale, 4 hidden) */
    ganim_allocator alloc;
    gx_conv cv;
    gx_names names;
    gx_children kids;
    uint8_t *order; /* per bone (and the synthetic root at index n): a ganim_euler_order */
    uint8_t *pos;   /* per bone: 1 = position channels (roots; animated joints if asked) */
    int multi;      /* several root bones under a synthetic root */
    ganim_writer w;
    ganim_error *err;
    uint32_t *dfs;         /* bones in hierarchy (channel) order */
    double *prev;          /* previous frame's Euler angles per bone, radians, x y z */
    ganim_transform *pose; /* the frame's pose: a frame of `keep`, or `work` */
    ganim_transform *work; /* a frame sampled again (past the kept ones) */
    ganim_transform *keep; /* frames [0, kept) as scan_frames sampled them, n bones a frame */
    uint32_t kept;
} bvh;

static const char *const order_names[6] = { "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX" };

/* Axis index (0=X 1=Y 2=Z) of channel k of an order (matrix product left to right). */
static int order_axis(unsigned order, int k) { return order_names[order][k] - 'X'; }

/* "ZXY" -> GANIM_EULER_ZXY; 0 if not a permutation of X, Y, Z. */
static int parse_order(const char *s, ganim_euler_order *order)
{
    char up[4] = { 0 };
    if (strlen(s) != 3) return 0;
    for (int i = 0; i < 3; i++) up[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
    for (int i = 0; i < 6; i++) {
        if (!strcmp(up, order_names[i])) {
            *order = (ganim_euler_order)i;
            return 1;
        }
    }
    return 0;
}

static void indent(ganim_writer *w, uint32_t depth)
{
    static const char tabs[MAX_INDENT + 1] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
    gw_bytes(w, tabs, depth < MAX_INDENT ? depth : MAX_INDENT);
}

static void channels(bvh *b, uint32_t depth, int positions, unsigned order)
{
    static const char *const rot[3] = { " Xrotation", " Yrotation", " Zrotation" };
    indent(&b->w, depth);
    gw_str(&b->w, positions ? "CHANNELS 6 Xposition Yposition Zposition" : "CHANNELS 3");
    for (int k = 0; k < 3; k++) gw_str(&b->w, rot[order_axis(order, k)]);
    gw_u8(&b->w, '\n');
}

static void offset(bvh *b, uint32_t depth, const float v[3])
{
    indent(&b->w, depth);
    gw_str(&b->w, "OFFSET ");
    for (int k = 0; k < 3; k++) {
        if (k) gw_u8(&b->w, ' ');
        gw_float(&b->w, v[k]);
    }
    gw_u8(&b->w, '\n');
}

static ganim_code enter(bvh *b, uint32_t bone, uint32_t depth)
{
    const ganim_bone *bn = &b->sk->bones[bone];
    int root = bn->parent < 0;
    float off[3] = { 0, 0, 0 };
    if (!b->pos[bone] && !gx_translation(&b->cv, 0, &bn->rest.translation.x, off)) {
        return ganim_fail(b->err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                          "bvh: bone %u ('%s'): rest translation is not finite", bone, bn->name);
    }
    indent(&b->w, depth);
    gw_str(&b->w, root && !b->multi ? "ROOT " : "JOINT ");
    gw_str(&b->w, b->names.name[bone]);
    gw_u8(&b->w, '\n');
    indent(&b->w, depth);
    gw_str(&b->w, "{\n");
    offset(b, depth + 1, off);
    channels(b, depth + 1, b->pos[bone], b->order[bone]);
    if (b->kids.first[bone] == b->kids.first[bone + 1]) { /* leaf: End Site half the bone's own offset */
        float end[3] = { off[0] * 0.5f, off[1] * 0.5f, off[2] * 0.5f };
        indent(&b->w, depth + 1);
        gw_str(&b->w, "End Site\n");
        indent(&b->w, depth + 1);
        gw_str(&b->w, "{\n");
        offset(b, depth + 2, end);
        indent(&b->w, depth + 1);
        gw_str(&b->w, "}\n");
    }
    return GANIM_OK;
}

/* HIERARCHY, depth first without recursion (chains can be long); fills b->dfs. */
static ganim_code hierarchy(bvh *b, uint32_t *cursor)
{
    uint32_t n = b->sk->bone_count, nd = 0, base = (uint32_t)b->multi;
    uint32_t *stack = cursor + n; /* second half of the scratch block */
    gw_str(&b->w, "HIERARCHY\n");
    if (b->multi) {
        static const float zero[3] = { 0, 0, 0 };
        gw_printf(&b->w, "ROOT %s\n{\n", b->names.name[n]);
        offset(b, 1, zero);
        channels(b, 1, 1, b->order[n]);
    }
    for (uint32_t r = 0; r < n; r++) {
        if (b->sk->bones[r].parent >= 0) continue;
        uint32_t sp = 0;
        ganim_code code = enter(b, r, base);
        if (code != GANIM_OK) return code;
        b->dfs[nd++] = r;
        cursor[r] = b->kids.first[r];
        stack[sp++] = r;
        while (sp) {
            uint32_t top = stack[sp - 1];
            if (cursor[top] < b->kids.first[top + 1]) {
                uint32_t c = b->kids.list[cursor[top]++];
                if ((code = enter(b, c, base + sp)) != GANIM_OK) return code;
                b->dfs[nd++] = c;
                cursor[c] = b->kids.first[c];
                stack[sp++] = c;
            } else {
                sp--;
                indent(&b->w, base + sp);
                gw_str(&b->w, "}\n");
            }
        }
    }
    if (b->multi) gw_str(&b->w, "}\n");
    return GANIM_OK;
}

/* v moved by whole turns to within half a turn of ref. Within 3 radians (less than pi) the
 * floor is 0: (ref - v) / (2 pi) + 0.5 lies in (0.022, 0.978), whatever the roundings, so
 * the result is v + 2 pi * 0 = v + 0.0 (v itself, but -0 becomes +0, as the formula makes
 * it) without the division and floor. A NaN or infinity takes the formula. */
static double wrap_near(double v, double ref)
{
    double d = ref - v;
    if (fabs(d) < 3.0) return v + 0.0;
    return v + 2 * PI * floor(d / (2 * PI) + 0.5);
}

/* Euler angles of q nearest (per angle, modulo 2 pi) to the previous frame's, choosing
 * between the two equivalent solutions (a, b, c) and (a + pi, pi - b, c + pi).
 * At gimbal lock (middle angle +-90 deg) only a +- c is defined and the decomposition
 * may jump there; every frame still reproduces its rotation exactly.
 *
 * The second solution is only looked at when the first's distance c1 is 3 or more: below,
 * it cannot be nearer (c2 < c1 is false). Its first angle is e_a + pi (rounded: error <=
 * 2^-51, |e_a| <= pi) moved by whole turns P = 2 PI, so alt_a - prev_a = (e_a' - prev_a) +
 * P (j + 1/2) + err for e_a' the first solution's angle after wrap_near and some integer j,
 * where err gathers wrap_near's roundings of both (each < 2^-17: every angle written stays
 * within about P/2 of the one before, so |prev| < 2^32 frames x 3.15 < 2^34); hence
 * |alt_a - prev_a| >= P/2 - |e_a' - prev_a| - 2^-15, the same for c, and the true c2 >=
 * 2 pi - (|e_a' - prev_a| + |e_c' - prev_c|) - 2^-14 > 2 pi - 3 (1 + 2^-50) - 2^-14 > 3.28;
 * the rounded sums stay above 3.27 > c1. A NaN c1 takes the whole comparison (c2 < NaN is
 * false as before: the first solution). c1 and c2 are the same sums as before, in the same
 * order. */
static void euler_continuous(unsigned order, ganim_quat q, const double *prev, int have_prev, double out[3])
{
    double e[3];
    ganim_quat_to_euler(q, (ganim_euler_order)order, e);
    if (!have_prev) {
        memcpy(out, e, sizeof e);
        return;
    }
    int axis[3] = { order_axis(order, 0), order_axis(order, 1), order_axis(order, 2) };
    double alt[3] = { 0, 0, 0 };
    alt[axis[0]] = e[axis[0]] + PI;
    alt[axis[1]] = PI - e[axis[1]];
    alt[axis[2]] = e[axis[2]] + PI;
    double c1 = 0, c2 = 0;
    for (int k = 0; k < 3; k++) {
        e[k] = wrap_near(e[k], prev[k]);
        c1 += fabs(e[k] - prev[k]);
    }
    if (c1 < 3.0) {
        memcpy(out, e, sizeof e);
        return;
    }
    for (int k = 0; k < 3; k++) {
        alt[k] = wrap_near(alt[k], prev[k]);
        c2 += fabs(alt[k] - prev[k]);
    }
    memcpy(out, c2 < c1 ? alt : e, sizeof e);
}

/* gw_float's text of v (a value that is not finite as 0) into out; returns its length. */
static size_t text_float(char *out, float v) { return gnum_float(out, isfinite(v) ? v : 0.0f); }

static ganim_code frame_line(bvh *b, uint32_t frame)
{
    uint32_t n = b->sk->bone_count;
    if (b->multi) gw_str(&b->w, "0 0 0 0 0 0");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t bone = b->dfs[i];
        const ganim_transform *t = &b->pose[bone];
        int root = b->sk->bones[bone].parent < 0;
        float pos[3], q[4];
        if ((b->pos[bone] && !gx_translation(&b->cv, root, &t->translation.x, pos)) ||
            !gx_rotation(&b->cv, root, &t->rotation.x, q)) {
            return ganim_fail(b->err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                              "bvh: clip '%s', frame %u, bone %u ('%s'): value is not a finite number after conversion",
                              b->clip ? b->clip->name : "(rest pose)", frame, bone, b->sk->bones[bone].name);
        }
        const ganim_vec3 *s = &t->scale;
        if (!(fabs(s->x - 1.0) <= 1e-6 && fabs(s->y - 1.0) <= 1e-6 && fabs(s->z - 1.0) <= 1e-6)) b->lost[bone] |= 1;
        /* A joint without position channels has its rest translation in every frame, bit for
         * bit, so nothing is lost by writing its offset: scan_frames gives position channels
         * to every joint whose translation differs from the rest in some frame, and this
         * frame's pose is the one the scan saw (kept, or sampled again from the same clips at
         * the same time; without a clip, the rest pose itself). */
        /* the joint's values, as gw_u8 and gw_float would write them: straight into the
         * writer's buffer when it has room for the longest text, else a line and one gw_bytes */
        char line[1 + 6 * (GNUM_FLOAT_CHARS + 1)];
        char *start = gw_has_room(&b->w, sizeof line) ? gw_end(&b->w) : line, *at = start;
        if (i || b->multi) *at++ = ' ';
        if (b->pos[bone]) {
            for (int k = 0; k < 3; k++) {
                at += text_float(at, pos[k]);
                *at++ = ' ';
            }
        }
        ganim_quat qq = { q[0], q[1], q[2], q[3] };
        double *prev = b->prev + (size_t)bone * 3, e[3];
        euler_continuous(b->order[bone], qq, prev, frame > 0, e);
        memcpy(prev, e, sizeof e);
        for (int k = 0; k < 3; k++) {
            if (k) *at++ = ' ';
            at += text_float(at, (float)(e[order_axis(b->order[bone], k)] * (180.0 / PI)));
        }
        if (start == line) gw_bytes(&b->w, line, (size_t)(at - line));
        else gw_advance(&b->w, at);
    }
    gw_u8(&b->w, '\n');
    return GANIM_OK;
}

/* The pose of frame f (the rest pose when there is no clip). */
static ganim_code pose_at(bvh *b, uint32_t f)
{
    const ganim_clip *c = b->clip, *p = b->partner;
    if (!c) {
        for (uint32_t i = 0; i < b->sk->bone_count; i++) b->pose[i] = b->sk->bones[i].rest;
        return GANIM_OK;
    }
    /* past the end of the shorter clip, its last frame (sampling clamps) */
    ganim_code code = ganim_clip_sample(c, b->sk, (double)f / c->fps, b->pose, NULL, b->err);
    if (code != GANIM_OK || !p) return code;
    if ((code = ganim_clip_sample(p, b->sk, (double)f / p->fps, b->pose2, NULL, b->err)) != GANIM_OK) return code;
    for (uint32_t t = 0; t < p->track_count; t++)
        if (!b->owned[p->tracks[t].bone]) b->pose[p->tracks[t].bone] = b->pose2[p->tracks[t].bone];
    return GANIM_OK;
}

/* The sines of the six orders' middle angles, as ganim_quat_to_euler computes them before
 * its asin: the rotation matrix of ganim_quat_to_mat3d (core/internal.h, what
 * ganim_quat_to_euler takes, so the same doubles), then p * M(a, c) clamped to [-1, 1]
 * (p = +-1, exact). */
static void middle_sines(const float q[4], double sb[6])
{
    static const signed char entry[6] = { 2, -1, -5, 3, 7, -6 }; /* M(a, c) as 3a + c, negative: -M */
    double m[9];
    ganim_quat_to_mat3d(q[0], q[1], q[2], q[3], m);
    for (int o = 0; o < 6; o++) {
        double v = entry[o] < 0 ? -1.0 * m[-entry[o]] : m[entry[o]];
        if (v > 1) v = 1;
        if (v < -1) v = -1;
        sb[o] = v;
    }
}

/* One pass over the frames before anything is written (each frame sampled once for both;
 * the first b->kept frames' poses stay in b->keep, where motion takes them):
 *   - position channels for every joint whose translation differs from its rest offset in
 *     some frame (bit for bit): BVH then holds the clip's own translations, not the rest's;
 *   - unless the order is forced, `worst` (6 doubles a bone): each order's largest middle
 *     angle over the frames, |asin(sb)|, the value ganim_quat_to_euler's middle angle gives.
 * The asin is taken only for a sine that could raise the largest: `skip` (6 doubles a bone)
 * holds s (1 - 2^-20) rounded, for the largest |sb| = s whose asin was taken, and a sine
 * x <= skip cannot give a larger angle. asin is increasing with slope >= 1 and asin(s) <=
 * s pi/2 on [0, 1], so asin(s) - asin(x) >= s - x >= s (2^-20 - 2^-53) > 2 eps s pi/2 >=
 * eps (asin(s) + asin(x)) for any C library whose asin is within a relative eps <= 2^-22
 * (2^31 ulps; glibc's is within 1): the asin computed for x is at most the one computed for
 * s, and `worst` is at least that. asin(+-0) is +-0 exactly (C's Annex F), so the first
 * skip of 0 holds too. A NaN (a rotation that gx_rotation refuses is skipped before) would
 * be compared false and take the asin, as before. */
static ganim_code scan_frames(bvh *b, double *worst, double *skip)
{
    uint32_t n = b->sk->bone_count;
    for (uint32_t f = 0; (b->clip || worst) && f < b->frames; f++) {
        b->pose = f < b->kept ? b->keep + (size_t)f * n : b->work;
        ganim_code code = pose_at(b, f);
        if (code != GANIM_OK) return code;
        for (uint32_t bone = 0; b->clip && bone < n; bone++) {
            const ganim_vec3 *t = &b->pose[bone].translation, *r = &b->sk->bones[bone].rest.translation;
            if (t->x != r->x || t->y != r->y || t->z != r->z) b->pos[bone] = 1;
        }
        for (uint32_t bone = 0; worst && bone < n; bone++) {
            float q[4];
            double sb[6], *w = worst + (size_t)bone * 6, *k = skip + (size_t)bone * 6;
            if (!gx_rotation(&b->cv, b->sk->bones[bone].parent < 0, &b->pose[bone].rotation.x, q)) continue;
            middle_sines(q, sb);
            for (int o = 0; o < 6; o++) {
                double x = fabs(sb[o]);
                if (x <= k[o]) continue;
                double m = fabs(asin(sb[o]));
                if (m > w[o]) w[o] = m;
                double t = x * (1 - 0x1p-20);
                if (t > k[o]) k[o] = t;
            }
        }
    }
    return GANIM_OK;
}

/* Per-joint channel orders (see the top of the file) from scan_frames' largest middle angles. */
static void choose_orders(bvh *b, const double *worst)
{
    const double limit = 80.0 * PI / 180.0;
    for (uint32_t bone = 0; bone < b->sk->bone_count; bone++) {
        const double *w = worst + (size_t)bone * 6;
        unsigned best = GANIM_EULER_ZXY;
        if (w[GANIM_EULER_ZXY] > limit)
            for (unsigned o = 0; o < 6; o++)
                if (w[o] < w[best]) best = o;
        b->order[bone] = (uint8_t)best;
    }
}

static ganim_code motion(bvh *b)
{
    const ganim_clip *c = b->clip;
    uint32_t frames = b->frames;
    double fps = c ? c->fps : 30.0;
    gw_printf(&b->w, "MOTION\nFrames: %u\nFrame Time: ", frames);
    gx_g9(&b->w, 1.0 / fps);
    gw_u8(&b->w, '\n');
    for (uint32_t f = 0; f < frames; f++) {
        ganim_code code = GANIM_OK;
        if (f < b->kept) { /* as scan_frames sampled it */
            b->pose = b->keep + (size_t)f * b->sk->bone_count;
        } else {
            b->pose = b->work;
            code = pose_at(b, f);
        }
        if (code != GANIM_OK) return code;
        code = frame_line(b, f);
        if (code != GANIM_OK) return code;
        if (!gw_ok(&b->w)) return GANIM_NOMEM(b->err);
    }
    return GANIM_OK;
}

/* Up to four bone names with `flag` set in b->lost, "a, b, c, d, ...", into buf. */
static uint32_t lost_names(const bvh *b, uint8_t flag, char *buf, size_t size)
{
    size_t at = 0;
    uint32_t n = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < b->sk->bone_count; i++) {
        if (!(b->lost[i] & flag)) continue;
        if (n < 4 && at < size) {
            int w = snprintf(buf + at, size - at, "%s%s", n ? ", " : "", b->sk->bones[i].name);
            if (w > 0) at += (size_t)w;
        } else if (n == 4 && at < size) {
            snprintf(buf + at, size - at, ", ...");
            at = size;
        }
        n++;
    }
    return n;
}

/* What the file written could not carry, each named: the other animations (BVH holds
 * one), meshes, events, scales other than 1 (rest or animated), hidden frames. (A joint's
 * translation is never lost: the joints whose translation leaves the rest get position
 * channels; see frame_line.) */
static void warn_losses(const bvh *b, const ganim_doc *doc, const ganim_export_opts *o, uint32_t ci, uint32_t anims)
{
    const ganim_clip *clip = b->clip, *p = b->partner;
    char label[600], names[1100];
    if (clip) {
        char nb[300];
        snprintf(label, sizeof label, "BVH clip %u ('%s')", ci, gx_anim_name(doc, o, ci, nb, sizeof nb));
    } else {
        snprintf(label, sizeof label, "BVH rest pose");
    }
    if (clip) gx_partner_warn(doc, o, ci);
    if (!o->only_clip && anims > 1)
        gx_warn(o, GANIM_WARN_EXPORT_LOSS,
                "BVH holds one clip: wrote clip %u of %u animations (--clip all writes one file per clip)", ci, anims);
    if (doc->mesh_count)
        gx_warn(o, GANIM_WARN_EXPORT_LOSS,
                "BVH holds no mesh: the %u mesh%s of the file %s not written (glTF keeps %s)", doc->mesh_count,
                doc->mesh_count == 1 ? "" : "es", doc->mesh_count == 1 ? "is" : "are",
                doc->mesh_count == 1 ? "it" : "them");
    uint32_t events = (clip ? clip->event_count : 0) + (p ? p->event_count : 0);
    if (events)
        gx_warn(o, GANIM_WARN_EXPORT_LOSS, "BVH holds no events: the %u event%s of clip %u %s not written", events,
                events == 1 ? "" : "s", ci, events == 1 ? "is" : "are");
    uint32_t n = lost_names(b, 1, names, sizeof names);
    if (n)
        gx_warn(o, GANIM_WARN_EXPORT_LOSS,
                "%s: BVH holds no scale: %u joint(s) with a scale other than 1 are written unscaled, and what hangs "
                "below them moves (%s)",
                label, n, names);
    for (int k = 0; k < 2; k++) { /* hidden frames */
        const ganim_clip *c = k ? p : clip;
        for (uint32_t t = 0; c && t < c->track_count; t++) {
            const ganim_track *tr = &c->tracks[t];
            if (!tr->visibility || (k && b->owned[tr->bone])) continue;
            for (uint32_t f = 0; f < c->frame_count; f++)
                if (!tr->visibility[f]) {
                    b->lost[tr->bone] |= 4;
                    break;
                }
        }
    }
    n = lost_names(b, 4, names, sizeof names);
    if (n)
        gx_warn(o, GANIM_WARN_EXPORT_LOSS,
                "%s: BVH holds no visibility: %u joint(s) hidden in some frames are shown in every frame (%s)", label,
                n, names);
}

ganim_code ganim_export_bvh(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *out, ganim_error *err)
{
    return gx_export_bvh_keep(doc, opts, out, GX_BVH_KEEP, err);
}

ganim_code gx_export_bvh_keep(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *out, size_t keep,
                              ganim_error *err)
{
    ganim_export_opts o = { 0 };
    if (opts) o = *opts;
    if (!out) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "bvh: no output buffer");
    ganim_code code = gx_check_doc(doc, "bvh", err);
    if (code != GANIM_OK) return code;
    if ((code = gx_check_clip(doc, &o, "bvh", 1, err)) != GANIM_OK) return code;
    if (!doc->skeleton || !doc->skeleton->bone_count) {
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "bvh: the file has no skeleton to write");
    }
    bvh b0 = { 0 }, *b = &b0;
    b->sk = doc->skeleton;
    b->err = err;
    b->alloc = ganim_allocator_resolve(&o.allocator);
    b->cv = gx_conv_make(doc, &o);
    ganim_euler_order forced = GANIM_EULER_ZXY;
    if (o.bvh_order && !parse_order(o.bvh_order, &forced)) {
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "bvh: rotation order '%s' is not a permutation of X, Y and Z (e.g. ZXY)", o.bvh_order);
    }
    uint8_t *absorbed = NULL;
    size_t absorbed_size = 0;
    if (!gx_absorbed_make(&b->alloc, doc, &o, &absorbed, &absorbed_size)) return GANIM_NOMEM(err);
    uint32_t ci = 0, anims = 0; /* the clip written; the animations a glTF export would hold */
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        if (doc->clips[i].kind != GANIM_CLIP_ANIMATION || (absorbed && absorbed[i])) continue;
        anims++;
        if (!b->clip && gx_clip_selected(doc, &o, i, 1)) b->clip = &doc->clips[ci = i];
    }
    ganim_free(&b->alloc, absorbed, absorbed_size);
    b->partner = b->clip ? gx_partner(doc, ci) : NULL;
    b->frames = b->clip ? gx_span(doc, ci) : 1;
    uint32_t n = b->sk->bone_count, roots = 0;
    for (uint32_t i = 0; i < n; i++) roots += b->sk->bones[i].parent < 0;
    b->multi = roots > 1;
    /* one scratch block: dfs, cursor + stack (2n), prev angles (3n doubles), pose,
     * worst middle angles and their skip thresholds (12n doubles), orders (n + 1 bytes),
     * position flags (n bytes) */
    size_t u32s = (size_t)n * 3,
           bytes = u32s * 4 + (size_t)n * 3 * sizeof(double) + (size_t)n * sizeof(ganim_transform);
    size_t pose2_at = (bytes + 16 + 7) & ~(size_t)7;
    size_t worst_at = pose2_at + (size_t)n * sizeof(ganim_transform);
    bytes = worst_at + (size_t)n * 12 * sizeof(double) + 4 * (size_t)n + 1;
    /* then the poses scan_frames keeps for motion, as many frames as `keep` bytes hold (when
     * it scans: a clip, or orders to choose), left unset (each written before it is read);
     * with no room for them, the frames are all sampled again */
    size_t keep_at = (bytes + 7) & ~(size_t)7, frame_bytes = (size_t)n * sizeof(ganim_transform);
    size_t fit = keep_at >= bytes && frame_bytes && frame_bytes / sizeof(ganim_transform) == n ? keep / frame_bytes : 0;
    if (!b->clip && o.bvh_order) fit = 0;
    b->kept = fit < b->frames ? (uint32_t)fit : b->frames;
    if (b->kept && b->kept > (SIZE_MAX - keep_at) / frame_bytes) b->kept = 0;
    size_t total = b->kept ? keep_at + (size_t)b->kept * frame_bytes : bytes;
    uint8_t *mem = ganim_alloc(&b->alloc, total);
    if (!mem && b->kept) {
        b->kept = 0;
        mem = ganim_alloc(&b->alloc, total = bytes);
    }
    const char *extra[1] = { "ganim_root" };
    if (!mem) return GANIM_NOMEM(err);
    memset(mem, 0, bytes);
    b->keep = (ganim_transform *)(void *)(mem + keep_at);
    b->dfs = (uint32_t *)(void *)mem;
    uint32_t *cursor = b->dfs + n;
    size_t dbl_at = (u32s * 4 + 7) & ~(size_t)7;
    b->prev = (double *)(void *)(mem + dbl_at);
    b->pose = b->work = (ganim_transform *)(void *)(mem + dbl_at + (size_t)n * 3 * sizeof(double));
    double *worst = (double *)(void *)(mem + worst_at);
    b->order = mem + worst_at + (size_t)n * 12 * sizeof(double);
    for (uint32_t i = 0; i <= n; i++) b->order[i] = (uint8_t)forced;
    b->pos = b->order + n + 1;
    b->owned = b->pos + n;
    b->lost = b->owned + n;
    b->pose2 = (ganim_transform *)(void *)(mem + pose2_at);
    for (uint32_t i = 0; i < n; i++) b->pos[i] = b->sk->bones[i].parent < 0;
    for (uint32_t t = 0; b->clip && t < b->clip->track_count; t++) b->owned[b->clip->tracks[t].bone] = 1;
    for (int k = 0; k < 2 && o.bvh_joint_positions; k++) {
        const ganim_clip *c = k ? b->partner : b->clip;
        for (uint32_t t = 0; c && t < c->track_count; t++) {
            const ganim_track *tr = &c->tracks[t];
            if (k && b->owned[tr->bone]) continue;
            if (tr->translation.kind == GANIM_CHANNEL_PER_FRAME || tr->translation.kind == GANIM_CHANNEL_KEYED)
                b->pos[tr->bone] = 1;
        }
    }
    size_t out0 = out->size;
    if (!gx_names_make(&b->alloc, b->sk, extra, 1, &b->names) || !gx_children_make(&b->alloc, b->sk, &b->kids))
        code = GANIM_NOMEM(err);
    if (code == GANIM_OK) {
        b->w = gw_init(out, &b->alloc);
        code = scan_frames(b, o.bvh_order ? NULL : worst, worst + (size_t)n * 6);
        if (code == GANIM_OK && !o.bvh_order) choose_orders(b, worst);
        if (code == GANIM_OK) code = hierarchy(b, cursor);
        if (code == GANIM_OK) code = motion(b);
        if (code == GANIM_OK && !gw_ok(&b->w)) code = GANIM_NOMEM(err);
    }
    if (code == GANIM_OK) warn_losses(b, doc, &o, ci, anims); /* reads the scratch block */
    if (b->names.name) gx_names_free(&b->alloc, &b->names);
    if (b->kids.first) gx_children_free(&b->alloc, &b->kids);
    ganim_free(&b->alloc, mem, total);
    if (code != GANIM_OK) out->size = out0;
    return code;
}
