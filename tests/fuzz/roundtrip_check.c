/* Agreement of a document read back with the one written: see roundtrip_check.h. */
#include "roundtrip_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "formats/ff7/ff7.h"
#include "formats/format.h"

/* The angle between two rotations (the model allows quaternions 0.1 % off unit length). */
static double quat_angle_deg(const ganim_quat *a, const ganim_quat *b)
{
    double na = sqrt((double)a->x * a->x + (double)a->y * a->y + (double)a->z * a->z + (double)a->w * a->w);
    double nb = sqrt((double)b->x * b->x + (double)b->y * b->y + (double)b->z * b->z + (double)b->w * b->w);
    double d = fabs((double)a->x * b->x + (double)a->y * b->y + (double)a->z * b->z + (double)a->w * b->w) / (na * nb);
    if (d > 1) d = 1;
    return 2 * acos(d) * 180 / 3.14159265358979323846;
}

/* The 3x3 part of a transform, R * diag(scale), column by column. */
static void linear_part(const ganim_transform *t, double m[3][3])
{
    double x = t->rotation.x, y = t->rotation.y, z = t->rotation.z, w = t->rotation.w;
    const double r[3][3] = { { 1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y) },
                             { 2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x) },
                             { 2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y) } };
    const double s[3] = { t->scale.x, t->scale.y, t->scale.z };
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++) m[c][k] = r[c][k] * s[c];
}

/* A rotation and scale may come back as another pair with the same product (a negative
 * scale on two axes is a half turn, a zero scale leaves the rotation of its axis free):
 * the same when R * diag(scale) agrees column by column within 3 degrees and 0.1 % of
 * the column, plus 0.1 % of the longest column and 5e-4 (the formats that store the
 * matrix in fixed point, 1/4096 a step, round small columns to zero or a step). */
static int same_linear(const ganim_transform *a, const ganim_transform *b)
{
    double ma[3][3], mb[3][3], len[3], longest = 0;
    linear_part(a, ma);
    linear_part(b, mb);
    for (int c = 0; c < 3; c++) {
        len[c] = sqrt(ma[c][0] * ma[c][0] + ma[c][1] * ma[c][1] + ma[c][2] * ma[c][2]);
        if (len[c] > longest) longest = len[c];
    }
    for (int c = 0; c < 3; c++) {
        double d = 0;
        for (int k = 0; k < 3; k++) d += (ma[c][k] - mb[c][k]) * (ma[c][k] - mb[c][k]);
        /* 0.0524: a 3 degree chord */
        if (!(sqrt(d) <= 0.0524 * len[c] + 1e-3 * len[c] + 1e-3 * longest + 5e-4)) return 0;
    }
    return 1;
}

static const ganim_track *track_of(const ganim_clip *clip, uint32_t bone)
{
    for (uint32_t t = 0; t < clip->track_count; t++)
        if (clip->tracks[t].bone == bone) return &clip->tracks[t];
    return NULL;
}

/* Does source frame position x of clip c fall between two rotation values a half turn
 * apart (quaternions at right angles, |dot| < 1e-5: two keys, or two frames when x is
 * not whole, as when a clip is sampled at a format's own rate)? Both arcs between them
 * are then equally short, and which one an interpolation takes rests on rounding: a
 * writer that turns the values to its format's axes before sampling them may take the
 * other arc, a correct result the check cannot hold to. Such frames are not compared (a
 * fuzzer found keys (0.966, 5e-40, -0.259, -1e-40) and (0, 0.259, 0, 0.966), whose dot
 * is -1e-45: 144 degrees apart after ALA and FF7 writes). */
static int half_turn_at(const ganim_clip *c, double x)
{
    for (uint32_t t = 0; t < c->track_count; t++) {
        const ganim_channel *ch = &c->tracks[t].rotation;
        uint32_t k0 = 0, k1 = 0;
        if (ch->kind == GANIM_CHANNEL_KEYED && ch->times) {
            while (k1 < ch->count && ch->times[k1] < x) k1++;
            if (k1 == 0 || k1 >= ch->count || fabs(ch->times[k1] - x) < 1e-6 || fabs(ch->times[k1 - 1] - x) < 1e-6)
                continue;
            k0 = k1 - 1;
        } else if (ch->kind == GANIM_CHANNEL_PER_FRAME) {
            double k = floor(x);
            if (x - k < 1e-6 || k + 1 - x < 1e-6 || k < 0 || k + 1 >= ch->count) continue;
            k0 = (uint32_t)k, k1 = k0 + 1;
        } else {
            continue;
        }
        const float *a = ch->values + 4 * (size_t)k0, *b = ch->values + 4 * (size_t)k1;
        double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
        if (fabs(d) < 1e-5) return 1;
    }
    return 0;
}

static int close_vec(const ganim_vec3 *a, const ganim_vec3 *b, const double range[3])
{
    double x[3] = { a->x, a->y, a->z }, y[3] = { b->x, b->y, b->z };
    for (int k = 0; k < 3; k++)
        if (!(fabs(x[k] - y[k]) <= 0.51 + 1e-3 * (fabs(x[k]) + range[k]))) return 0;
    return 1;
}

/* Model-space transforms of a pose, in place (parents come first). Rotation and
 * translation; scales multiply through. */
static void world_pose(const ganim_skeleton *sk, ganim_transform *pose)
{
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        int32_t p = sk->bones[i].parent;
        if (p < 0) continue;
        const ganim_transform *w = &pose[p];
        ganim_transform *l = &pose[i];
        ganim_quat q = w->rotation;
        double v[3] = { (double)w->scale.x * l->translation.x, (double)w->scale.y * l->translation.y,
                        (double)w->scale.z * l->translation.z };
        double x = q.x, y = q.y, z = q.z, s = q.w;
        double tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
        double r[3] = { v[0] + s * tx + (y * tz - z * ty), v[1] + s * ty + (z * tx - x * tz),
                        v[2] + s * tz + (x * ty - y * tx) };
        l->translation.x = (float)(w->translation.x + r[0]);
        l->translation.y = (float)(w->translation.y + r[1]);
        l->translation.z = (float)(w->translation.z + r[2]);
        l->rotation = ganim_quat_mul(q, l->rotation);
        l->scale.x *= w->scale.x, l->scale.y *= w->scale.y, l->scale.z *= w->scale.z;
    }
}

static int same_hierarchy(const ganim_skeleton *a, const ganim_skeleton *b)
{
    if (a->bone_count != b->bone_count) return 0;
    for (uint32_t i = 0; i < a->bone_count; i++)
        if (a->bones[i].parent != b->bones[i].parent) return 0;
    return 1;
}

static int flat(const ganim_skeleton *s)
{
    for (uint32_t i = 0; i < s->bone_count; i++)
        if (s->bones[i].parent >= 0) return 0;
    return 1;
}

/* The rotation that turns a document's axes into the axes a format wrote it in (a writer
 * turns a document to its format's axes: Alamo's Z up, FF7's Y down). */
static ganim_quat axes_turn(ganim_axes from, ganim_axes to)
{
    return ganim_quat_mul(ganim_quat_conj(ganim_axes_to_y_up(to)), ganim_axes_to_y_up(from));
}

/* Root bones' transforms turned by `turn`, as the writer turned them. Axes turn by
 * quarter turns: translations move by the turn's signed permutation, exactly (a float
 * rotation would leak 1e-8 of a huge axis into the others). */
static void turn_roots(const ganim_skeleton *sk, ganim_quat turn, ganim_transform *pose)
{
    if (turn.x == 0 && turn.y == 0 && turn.z == 0) return;
    float r[9];
    ganim_quat_to_mat3(turn, r);
    for (int k = 0; k < 9; k++) r[k] = r[k] > 0.5f ? 1.0f : r[k] < -0.5f ? -1.0f : 0.0f;
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        if (sk->bones[i].parent >= 0) continue;
        pose[i].rotation = ganim_quat_mul(turn, pose[i].rotation);
        const float v[3] = { pose[i].translation.x, pose[i].translation.y, pose[i].translation.z };
        float w[3];
        for (int row = 0; row < 3; row++)
            w[row] = r[row * 3] != 0       ? r[row * 3] * v[0]
                     : r[row * 3 + 1] != 0 ? r[row * 3 + 1] * v[1]
                                           : r[row * 3 + 2] * v[2];
        pose[i].translation = (ganim_vec3){ w[0], w[1], w[2] };
    }
}

static int sample_pose(const ganim_clip *c, const ganim_skeleton *sk, uint32_t f, int world, ganim_quat turn,
                       ganim_transform *pose, uint8_t *skewed)
{
    ganim_error e = { 0 };
    if (ganim_clip_sample(c, sk, f / c->fps, pose, NULL, &e) != GANIM_OK) return 0;
    turn_roots(sk, turn, pose);
    if (!world) return 1;
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        int32_t p = sk->bones[i].parent;
        skewed[i] = p >= 0 && skewed[p];
        if (p >= 0 && !skewed[i]) {
            const ganim_vec3 *s = &pose[p].scale;
            double m = fmax(fabs(s->x), fmax(fabs(s->y), fabs(s->z)));
            skewed[i] = fabs(s->x - s->y) > 1e-4 * m || fabs(s->y - s->z) > 1e-4 * m;
        }
    }
    world_pose(sk, pose);
    return 1;
}

/* gone[i]: bone i is below bones whose local scales, multiplied (each its smallest
 * axis), shrink it below 1/1000. The acl and civ7 writers bound ACL's error metric
 * (docs/formats/acl.md, "The error metric"), which measures in object space, where such a
 * bone's local error counts that much smaller: at ACL's precision (0.01) a local error of
 * 10 radians or units is within it, so its values are as good as free to the encoder (at
 * a scale of 0, free: written as their defaults, say), and no local value of it can be
 * held against what was read back. */
static void below_zero_scale(const ganim_skeleton *sk, const ganim_transform *pose, uint8_t *gone)
{
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        double shrink = 1;
        int32_t p = sk->bones[i].parent;
        for (uint32_t up = 0; p >= 0 && (uint32_t)p < sk->bone_count && up < sk->bone_count; up++) {
            const ganim_vec3 *v = &pose[p].scale;
            shrink *= fmin(fabs((double)v->x), fmin(fabs((double)v->y), fabs((double)v->z)));
            p = sk->bones[p].parent;
        }
        gone[i] = !(shrink >= 1e-3); /* NaN: gone too */
    }
}

static double largest_scale(const ganim_vec3 *v)
{
    return fmax(fabs((double)v->x), fmax(fabs((double)v->y), fabs((double)v->z)));
}

/* Is bone c below bone i? */
static int is_below(const ganim_skeleton *sk, uint32_t c, uint32_t i)
{
    int32_t p = sk->bones[c].parent;
    for (uint32_t up = 0; p >= 0 && (uint32_t)p < sk->bone_count && up < sk->bone_count; up++) {
        if ((uint32_t)p == i) return 1;
        p = sk->bones[p].parent;
    }
    return 0;
}

/* How far a unit change of bone i's scale (on any axis) can move ACL's shell points in
 * object space (pose: the local transforms of one frame): the scales above it (each its
 * largest axis) times the shell distance (3) plus the translations of every bone below it
 * (of every other bone when the skeleton is flat: the acl writer then bounds every
 * hierarchy), times their scales above 1. */
static double scale_lever(const ganim_skeleton *sk, const ganim_transform *pose, uint32_t i)
{
    double s = 1.0, d = 3.0, g = 1.0;
    int32_t p = sk->bones[i].parent;
    for (uint32_t up = 0; p >= 0 && (uint32_t)p < sk->bone_count && up < sk->bone_count; up++) {
        s *= largest_scale(&pose[p].scale);
        p = sk->bones[p].parent;
    }
    int any = flat(sk);
    for (uint32_t c = 0; c < sk->bone_count; c++) {
        if (c == i || !(any || is_below(sk, c, i))) continue;
        const ganim_vec3 *t = &pose[c].translation;
        d += sqrt((double)t->x * t->x + (double)t->y * t->y + (double)t->z * t->z);
        double m = largest_scale(&pose[c].scale);
        if (m > 1) g *= m;
    }
    return s * g * d;
}

/* How far bone i's rotation can move the same points: its own scale times scale_lever. A
 * rotation read back `chord` (2 sin(angle / 2)) away moves them by at most chord x this;
 * a scale read back d away on its farthest axis, by at most d x scale_lever. When that is
 * within a few times the precision, the metric the writer bounds does not hold the value
 * to a closer match (a bone of tiny scale, or below one, say: its rotation, or its own
 * scale, is as good as free). */
static double rotation_lever(const ganim_skeleton *sk, const ganim_transform *pose, uint32_t i)
{
    return largest_scale(&pose[i].scale) * scale_lever(sk, pose, i);
}

static double scale_apart(const ganim_vec3 *a, const ganim_vec3 *b)
{
    return fmax(fabs((double)a->x - b->x), fmax(fabs((double)a->y - b->y), fabs((double)a->z - b->z)));
}

static int compare_clip(const ganim_clip *src, const ganim_clip *a, const ganim_skeleton *sa, const ganim_clip *b,
                        const ganim_skeleton *sb, ganim_quat turn, int object_space, rt_stats *stats, char *why,
                        size_t why_size)
{
    if (a->frame_count != b->frame_count) {
        snprintf(why, why_size, "%u frames written, %u read back", a->frame_count, b->frame_count);
        return 0;
    }
    if (!sa || !sb) return 1;
    int world = 0;
    if (!same_hierarchy(sa, sb)) {
        if (!flat(sb) || sb->bone_count > sa->bone_count) return 1; /* nothing bone for bone to compare */
        world = 1;
    }
    uint32_t nb = sa->bone_count;
    ganim_transform *pa = malloc((nb ? nb : 1) * sizeof *pa),
                    *pb = malloc((sb->bone_count ? sb->bone_count : 1) * sizeof *pb);
    uint8_t *skewed = calloc(nb ? nb : 1, 1);
    double *lo = malloc((nb ? nb : 1) * 6 * sizeof *lo), *hi = malloc((nb ? nb : 1) * 6 * sizeof *hi);
    int ok = pa && pb && skewed && lo && hi;
    for (uint32_t f = 0; ok && f < a->frame_count; f++) {
        if (!sample_pose(a, sa, f, world, turn, pa, skewed)) break;
        for (uint32_t i = 0; i < nb; i++) {
            const double v[6] = { pa[i].translation.x, pa[i].translation.y, pa[i].translation.z,
                                  pa[i].scale.x,       pa[i].scale.y,       pa[i].scale.z };
            for (size_t k = 0; k < 6; k++) {
                if (!f || v[k] < lo[i * 6 + k]) lo[i * 6 + k] = v[k];
                if (!f || v[k] > hi[i * 6 + k]) hi[i * 6 + k] = v[k];
            }
        }
    }
    for (size_t k = 0; ok && k < (size_t)nb * 6; k++) hi[k] -= lo[k]; /* hi holds the ranges now */
    for (uint32_t f = 0; ok && f < a->frame_count; f++) {
        ganim_error e = { 0 };
        if (!sample_pose(a, sa, f, world, turn, pa, skewed) ||
            ganim_clip_sample(b, sb, f / b->fps, pb, NULL, &e) != GANIM_OK)
            break;
        if (src && half_turn_at(src, f * (src->fps / a->fps))) continue;
        if (!world && object_space) below_zero_scale(sa, pa, skewed);
        for (uint32_t t = 0; ok && t < b->track_count; t++) {
            const ganim_track *tb = &b->tracks[t];
            uint32_t i = tb->bone;
            if (i >= nb || !track_of(a, i) || skewed[i]) continue;
            const ganim_transform *x = &pa[i], *y = &pb[i];
            if (tb->rotation.kind != GANIM_CHANNEL_ABSENT) {
                double deg = quat_angle_deg(&x->rotation, &y->rotation);
                stats->values++;
                /* object space: a rotation that moves the shell points 0.05 at most (5x the
                 * precision) is within what the writer bounds */
                if (!(deg <= 3.0) && !same_linear(x, y) &&
                    !(!world && object_space &&
                      2 * sin(deg * 3.14159265358979 / 360) * rotation_lever(sa, pa, i) <= 0.05)) {
                    snprintf(why, why_size, "bone %u frame %u: rotation read back %.3f degrees away", i, f, deg);
                    ok = 0;
                }
            }
            if (ok && tb->translation.kind != GANIM_CHANNEL_ABSENT) {
                stats->values++;
                if (!close_vec(&x->translation, &y->translation, hi + (size_t)i * 6)) {
                    snprintf(why, why_size, "bone %u frame %u: translation (%g %g %g) read back as (%g %g %g)", i, f,
                             x->translation.x, x->translation.y, x->translation.z, y->translation.x, y->translation.y,
                             y->translation.z);
                    ok = 0;
                }
            }
            if (ok && tb->scale.kind != GANIM_CHANNEL_ABSENT && !world) {
                stats->values++;
                /* object space: a scale change that moves the shell points 0.05 at most, as
                 * for rotations */
                if (!close_vec(&x->scale, &y->scale, hi + (size_t)i * 6 + 3) && !same_linear(x, y) &&
                    !(object_space && scale_apart(&x->scale, &y->scale) * scale_lever(sa, pa, i) <= 0.05)) {
                    snprintf(why, why_size, "bone %u frame %u: scale (%g %g %g) read back as (%g %g %g)", i, f,
                             x->scale.x, x->scale.y, x->scale.z, y->scale.x, y->scale.y, y->scale.z);
                    ok = 0;
                }
            }
        }
    }
    free(pa), free(pb), free(skewed), free(lo), free(hi);
    return ok;
}

static const ganim_clip *animation(const ganim_doc *doc, uint32_t k)
{
    for (uint32_t i = 0; i < doc->clip_count; i++)
        if (doc->clips[i].kind == GANIM_CLIP_ANIMATION && k-- == 0) return &doc->clips[i];
    return NULL;
}

static uint32_t animation_count(const ganim_doc *doc)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++) n += doc->clips[i].kind == GANIM_CLIP_ANIMATION;
    return n;
}

/* Was `back` written by FF7's split of `doc`'s n clips (n body entries, then n weapon
 * entries)? Only a split gives an FF7 pack twice as many entries as clips. */
static int ff7_split(const ganim_doc *doc, const ganim_doc *back, const ganim_format *format)
{
    uint32_t n = animation_count(doc);
    return !strcmp(format->name, "ff7-battle") && n && animation_count(back) == 2 * (uint64_t)n;
}

ganim_code rt_read_back(const ganim_doc *doc, const uint8_t *data, size_t size, const ganim_format *format,
                        ganim_doc **back, ganim_error *err)
{
    ganim_read_opts ro = { 0 };
    ro.format = format->name;
    if (!(format->flags & GANIM_FORMAT_COMPANION)) ro.skeleton = doc->skeleton;
    ganim_code c = ganim_read_memory(data, size, &ro, back, err);
    if (c != GANIM_OK || !doc->skeleton || !ff7_split(doc, *back, format)) return c;
    uint32_t n = animation_count(doc);
    ff7_skel_info si;
    ff7_clip_info body;
    /* a record that says n and n already reads the split; one that says other counts is
     * the writer's to refuse, and rt_agree says so */
    if (ff7_skel_info_parse(doc->skeleton, &si) || !ff7_clip_info_parse(animation(*back, 0), &body)) return c;
    /* the ??aa the writer asks for: its nBones gives body entries nBones + 1 slots (one
     * slot for a skeleton of one bone), its counts n and n */
    uint32_t bones = body.slots > 1 ? body.slots - 1 : 1;
    if (bones > 4096) return c;
    size_t record_size = FF7_SKELETON_HEADER + (size_t)FF7_SKELETON_BONE * bones;
    uint8_t *record = calloc(record_size, 1);
    if (!record) return c;
    const uint32_t words[][2] = { { 3, bones }, { 7, n }, { 10, n } };
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
        for (int b = 0; b < 4; b++) record[4 * words[w][0] + (uint32_t)b] = (uint8_t)(words[w][1] >> (8 * b));
    ganim_skeleton sk = *doc->skeleton;
    sk.native_format = "ff7-skeleton";
    sk.native = record;
    sk.native_size = record_size;
    ro.skeleton = &sk;
    ganim_doc *again = NULL;
    c = ganim_read_memory(data, size, &ro, &again, err);
    free(record);
    if (c != GANIM_OK) return c;
    ganim_doc_free(*back);
    *back = again;
    return GANIM_OK;
}

int rt_agree(const ganim_doc *doc, const ganim_doc *back, const ganim_format *format, rt_stats *stats, char *why,
             size_t why_size)
{
    const ganim_skeleton *sa = doc->skeleton, *sb = back->skeleton;
    if (format->flags & GANIM_FORMAT_COMPANION) { /* a skeleton: the rest poses */
        if (!sa || !sb || sb->bone_count != sa->bone_count) {
            snprintf(why, why_size, "%u bones written, %u read back", sa ? sa->bone_count : 0, sb ? sb->bone_count : 0);
            return 0;
        }
        static const double zero[3] = { 0, 0, 0 };
        ganim_quat turn = axes_turn(doc->axes, back->axes);
        for (uint32_t i = 0; i < sa->bone_count; i++) {
            stats->values += 2;
            ganim_transform r = sa->bones[i].rest;
            if (sa->bones[i].parent < 0) turn_roots(&(ganim_skeleton){ "", 1, &sa->bones[i], NULL, NULL, 0 }, turn, &r);
            const ganim_transform *x = &r, *y = &sb->bones[i].rest;
            /* a matrix holds rotation and scale as one product: negative scales may come
             * back as another rotation and scale with the same product; compare products */
            if (!same_linear(x, y) || !close_vec(&x->translation, &y->translation, zero)) {
                snprintf(why, why_size, "bone %u's rest pose does not come back", i);
                return 0;
            }
        }
        return 1;
    }
    /* a format whose files play at one rate gets clips at another sampled at it: compare
     * with the document so sampled (what the writer was handed) */
    double rate = format->impl ? format->impl->fps : 0;
    /* the writers whose encoder bounds ACL's object-space error (compare_clip) */
    int object_space = !strcmp(format->name, "acl") || !strcmp(format->name, "civ7");
    const ganim_doc *given = doc;
    ganim_doc *timed = NULL;
    for (uint32_t i = 0; rate > 0 && !timed && i < doc->clip_count; i++)
        if (doc->clips[i].kind == GANIM_CLIP_ANIMATION && doc->clips[i].fps != rate) {
            ganim_error e = { 0 };
            if (!(timed = ganim_doc_clone(doc, &e))) {
                snprintf(why, why_size, "cannot copy the document: %s", e.message);
                return 0;
            }
            for (uint32_t c = 0; c < timed->clip_count; c++)
                if (ganim_clip_retime(timed, c, rate, &e) != GANIM_OK) {
                    snprintf(why, why_size, "cannot sample clip %u at %g fps: %s", c, rate, e.message);
                    ganim_doc_free(timed);
                    return 0;
                }
            doc = timed;
        }
    int ok = 1;
    /* FF7's split: body entry k and weapon entry n + k each hold a part of clip k */
    uint32_t n = ff7_split(doc, back, format) ? animation_count(doc) : UINT32_MAX;
    for (uint32_t k = 0; ok && animation(back, k); k++) {
        uint32_t from = k >= n ? k - n : k;
        const ganim_clip *a = animation(doc, from);
        if (!a) {
            snprintf(why, why_size, "animation %u read back was not written", k);
            ok = 0;
            break;
        }
        char inner[400];
        if (!compare_clip(animation(given, from), a, sa, animation(back, k), sb, axes_turn(doc->axes, back->axes),
                          object_space, stats, inner, sizeof inner)) {
            snprintf(why, why_size, "animation %u: %s", k, inner);
            ok = 0;
        }
    }
    ganim_doc_free(timed);
    return ok;
}
