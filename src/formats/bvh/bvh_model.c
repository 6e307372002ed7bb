/* BVH -> the model. Every ROOT and JOINT becomes a bone, in file order (a parent always
 * comes first); End Sites are not bones. A bone's rest pose is its OFFSET with no rotation
 * (BVH has no rest rotation: the channels hold the whole local rotation). Rotation
 * channels are Euler angles in degrees, applied in the joint's own channel order:
 * "Zrotation Xrotation Yrotation" is R = Rz Rx Ry (the product in channel order, as
 * ganim's exporter, Blender and three.js read it). Position channels replace the OFFSET
 * (Blender's reading; bvh.positions=add adds them, as three.js does). ganim's own
 * conventions read back to the exported skeleton: the synthetic `ganim_root` that holds
 * several roots is dropped, and bvh.axes turns the roots back from BVH's Y up. */
#include "core/dquat.h"
#include "formats/bvh/bvh.h"

/* ---- the frame rate --------------------------------------------------------------------------- */

/* 1 / Frame Time, taken as a whole (or NTSC) rate when the text is that rate's frame time
 * rounded at the precision it is written with (0.041667 -> 24, 0.0333333333 -> 30). */
static void frame_rate(bvh_file *f)
{
    double t = f->frame_time, fps = 1 / t;
    if (t > 0 && isfinite(fps) && fps >= GANIM_MIN_FPS && fps <= GANIM_MAX_FPS) {
        f->fps = fps;
        if (f->frame_time_digits < 4) return;
        double k = floor(fps + 0.5);
        const double candidates[4] = { k, 24000.0 / 1001, 30000.0 / 1001, 60000.0 / 1001 };
        for (int i = 0; i < 4; i++)
            if (candidates[i] >= 1 && fabs(t - 1 / candidates[i]) <= f->frame_time_unit * 0.5000001) {
                f->fps = candidates[i];
                return;
            }
        return;
    }
    f->fps_fallback = 1;
    f->fps = f->opts->fps >= GANIM_MIN_FPS && f->opts->fps <= GANIM_MAX_FPS ? f->opts->fps : 30;
    ganim_doc_warn(f->doc, GANIM_WARN_REPAIRED, f->frame_time_at,
                   "bvh: Frame Time %g s is not a rate ganim can use (%g..%g frames per second); %g fps is used", t,
                   GANIM_MIN_FPS, GANIM_MAX_FPS, f->fps);
}

/* ---- rotations -------------------------------------------------------------------------------- */

/* The joint's rotation axes in channel order, then the axes it has no channel for. */
static void rotation_order(const bvh_joint *j, int order[3])
{
    int n = 0, have = 0;
    for (int k = 0; k < j->nch; k++)
        if (j->ch[k] >= BVH_XROT) {
            order[n++] = j->ch[k] - BVH_XROT;
            have |= 1 << (j->ch[k] - BVH_XROT);
        }
    for (int a = 0; a < 3; a++)
        if (!(have & (1 << a))) order[n++] = a;
}

/* r = a * (s on axis k, c): the Hamilton product with an axis rotation, only its
 * non-zero terms, in the order ganim_dq_mul adds them (axis k, the axis after it, the
 * one after that, w). k, k1 and k2 are constants where it is inlined. */
static inline void mul_axis(const double a[4], int k, int k1, int k2, double s, double c, double r[4])
{
    double rk = a[3] * s + a[k] * c, r1 = a[k1] * c + a[k2] * s, r2 = a[k2] * c - a[k1] * s, w = a[3] * c - a[k] * s;
    r[k] = rk, r[k1] = r1, r[k2] = r2, r[3] = w;
}

/* The short product for the axes i, j, k in that order. */
static inline void short_product(const double s[3], const double c[3], int i, int j, int k, double q[4])
{
    double a[4] = { 0, 0, 0, c[0] };
    a[i] = s[0];
    mul_axis(a, j, (j + 1) % 3, (j + 2) % 3, s[1], c[1], a);
    mul_axis(a, k, (k + 1) % 3, (k + 2) % 3, s[2], c[2], q);
}

/* R = R(order[0]) R(order[1]) R(order[2]) for the angles in degrees taken in that order
 * (a[0] about axis order[0], ...). The product of three axis rotations by ganim_dq_mul
 * from the identity (the reference, kept below) adds many terms that are zeros; without
 * them the result has the same bits whenever no product of sines and cosines is zero:
 * each term left is then the same product, a zero term added to a non-zero sum changes
 * nothing, and a sum that cancels exactly is +0 either way, which adding a zero of
 * either sign keeps. Sines and cosines of at least 2^-300 make every product of three
 * non-zero; others (a zero angle) take the reference. tests/formats/bvh/test_bvh_euler.c
 * compares the two. */
static inline void euler_in_order(const double deg[3], const int order[3], int code, double q[4])
{
    double s[3], c[3];
    for (int i = 0; i < 3; i++) {
        double h = deg[i] * (3.14159265358979323846 / 360.0);
        s[i] = sin(h);
        c[i] = cos(h);
    }
    const double tiny = 0x1p-300;
    if (fabs(s[0]) >= tiny && fabs(s[1]) >= tiny && fabs(s[2]) >= tiny && fabs(c[0]) >= tiny && fabs(c[1]) >= tiny &&
        fabs(c[2]) >= tiny) {
        switch (code) { /* order[0] * 3 + order[1]: the six orders */
        case 1: short_product(s, c, 0, 1, 2, q); return;
        case 2: short_product(s, c, 0, 2, 1, q); return;
        case 3: short_product(s, c, 1, 0, 2, q); return;
        case 5: short_product(s, c, 1, 2, 0, q); return;
        case 6: short_product(s, c, 2, 0, 1, q); return;
        default: short_product(s, c, 2, 1, 0, q); return;
        }
    }
    q[0] = q[1] = q[2] = 0;
    q[3] = 1;
    for (int i = 0; i < 3; i++) {
        double e[4] = { 0, 0, 0, c[i] };
        e[order[i]] = s[i];
        ganim_dq_mul(q, e, q);
    }
}

void bvh_euler_to_quat(const double deg[3], const int order[3], double q[4])
{
    const double in_order[3] = { deg[order[0]], deg[order[1]], deg[order[2]] };
    euler_in_order(in_order, order, order[0] * 3 + order[1], q);
}

/* ---- the model -------------------------------------------------------------------------------- */

/* ganim's synthetic root: a lone ROOT `ganim_root` at the origin whose channels stay 0. */
static int synthetic_root(const bvh_file *f)
{
    const bvh_joint *r = &f->joints[0];
    if (f->joint_count < 2 || strcmp(r->name, "ganim_root") != 0 || r->offset[0] != 0 || r->offset[1] != 0 ||
        r->offset[2] != 0)
        return 0;
    for (uint32_t j = 1; j < f->joint_count; j++)
        if (f->joints[j].parent < 0) return 0;
    for (uint32_t fr = 0; fr < f->frames; fr++)
        for (uint32_t k = 0; k < r->nch; k++)
            if (f->values[(size_t)fr * f->channels + r->first + k] != 0) return 0;
    return 1;
}

/* A channel from per-frame values (in scratch memory): constant when every frame holds
 * the same bits. The document gets only what the channel keeps: one value, or one per
 * frame. */
static ganim_code set_channel(bvh_file *f, ganim_channel *ch, const float *vals, uint32_t comps)
{
    uint32_t n = f->frames, k = 1;
    while (k < n && !memcmp(vals, vals + (size_t)k * comps, comps * sizeof(float))) k++;
    if (k == n) n = 1;
    float *kept = ganim_doc_alloc_array_raw(f->doc, (size_t)n * comps, sizeof(float)); /* copied over whole */
    if (!kept) return GANIM_NOMEM(f->err);
    memcpy(kept, vals, (size_t)n * comps * sizeof(float));
    ch->kind = n == 1 ? GANIM_CHANNEL_CONSTANT : GANIM_CHANNEL_PER_FRAME;
    ch->count = n;
    ch->values = kept;
    return GANIM_OK;
}

static ganim_code track(bvh_file *f, const bvh_joint *j, uint32_t bone, const double *undo, ganim_track *tr)
{
    int has_pos = 0, has_rot = 0, pos_at[3] = { -1, -1, -1 }, rot_at[3] = { -1, -1, -1 }, order[3] = { 0, 1, 2 };
    for (int k = 0; k < j->nch; k++) {
        if (j->ch[k] < BVH_XROT) {
            has_pos = 1;
            pos_at[j->ch[k]] = k;
        } else {
            has_rot = 1;
            rot_at[j->ch[k] - BVH_XROT] = k;
        }
    }
    rotation_order(j, order);
    int value_at[3], order_code = order[0] * 3 + order[1]; /* each rotation's channel, in order */
    for (int i = 0; i < 3; i++) value_at[i] = rot_at[order[i]];
    tr->bone = bone;
    tr->name = f->doc->skeleton->bones[bone].name;
    /* the frames' values in scratch arrays every track reuses (not zeroed: every frame
     * writes its values); set_channel puts in the document what the channel keeps */
    float *t = f->track_t, *q = f->track_q;
    uint64_t prev[3] = { 0, 0, 0 }; /* the previous frame's angles, their bits */
    for (uint32_t fr = 0; fr < f->frames; fr++) {
        const double *v = f->values + (size_t)fr * f->channels + j->first;
        if (has_pos) {
            double p[3];
            for (int a = 0; a < 3; a++) {
                double base = f->positions_add || pos_at[a] < 0 ? j->offset[a] : 0;
                p[a] = base + (pos_at[a] >= 0 ? v[pos_at[a]] : 0);
            }
            if (undo) ganim_dq_rot(undo, p, p);
            for (int a = 0; a < 3; a++) t[(size_t)fr * 3 + (size_t)a] = (float)p[a];
        }
        if (has_rot) {
            double deg[3], r[4];
            for (int i = 0; i < 3; i++) deg[i] = value_at[i] >= 0 ? v[value_at[i]] : 0;
            /* the same angles as the frame before (the same bits): the same quaternion */
            uint64_t bits[3];
            memcpy(bits, deg, sizeof bits);
            if (fr && !((bits[0] ^ prev[0]) | (bits[1] ^ prev[1]) | (bits[2] ^ prev[2]))) {
                memcpy(q + (size_t)fr * 4, q + (size_t)(fr - 1) * 4, 4 * sizeof(float));
                continue;
            }
            memcpy(prev, bits, sizeof bits);
            euler_in_order(deg, order, order_code, r);
            if (undo) ganim_dq_mul(undo, r, r);
            double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
            for (int a = 0; a < 4; a++) q[(size_t)fr * 4 + (size_t)a] = (float)(r[a] / len);
        }
    }
    ganim_code code = GANIM_OK;
    if (has_pos) code = set_channel(f, &tr->translation, t, 3);
    if (code == GANIM_OK && has_rot) code = set_channel(f, &tr->rotation, q, 4);
    return code;
}

/* ---- a skeleton given by the caller ------------------------------------------------------------ */

/* The bone of the given skeleton each joint animates (bone_of[j] for joint j + skip, or
 * UINT32_MAX): the joint's name is the name ganim's exporters give the bone
 * (ganim_names_make: [A-Za-z0-9_-], `Particle View 01` -> `Particle_View_01`, a repeated
 * name gets `_<index>`), else the bone's own name, else the same without case. A joint
 * that matches no bone left is a warning, and its channels are skipped. */
static ganim_code map_joints(bvh_file *f, const ganim_skeleton *sk, uint32_t skip, uint32_t nb, uint32_t *bone_of)
{
    ganim_names names;
    const ganim_allocator *a = ganim_doc_allocator(f->doc);
    if (!ganim_names_make(a, sk, NULL, 0, &names)) return GANIM_NOMEM(f->err);
    uint8_t *taken = ganim_doc_alloc(f->scratch, sk->bone_count ? sk->bone_count : 1);
    if (!taken) {
        ganim_names_free(a, &names);
        return GANIM_NOMEM(f->err);
    }
    uint32_t missing = 0;
    const char *first_missing = NULL;
    for (uint32_t j = 0; j < nb; j++) {
        const char *name = f->joints[j + skip].name;
        uint32_t hit = UINT32_MAX;
        for (int pass = 0; pass < 3 && hit == UINT32_MAX; pass++)
            for (uint32_t b = 0; b < sk->bone_count && hit == UINT32_MAX; b++) {
                if (taken[b]) continue;
                const char *bn = pass == 0 ? names.name[b] : sk->bones[b].name;
                if (pass < 2 ? !strcmp(bn, name) : !ganim_strcasecmp(bn, name)) hit = b;
            }
        bone_of[j] = hit;
        if (hit != UINT32_MAX) taken[hit] = 1;
        else if (!missing++) first_missing = name;
    }
    ganim_names_free(a, &names);
    if (missing)
        ganim_doc_warn(f->doc, GANIM_WARN_SKELETON, f->joints[skip].at,
                       "bvh: %u joint(s) match no bone of the skeleton given (e.g. '%.100s'); their channels are "
                       "skipped",
                       missing, first_missing);
    return GANIM_OK;
}

ganim_code bvh_build(bvh_file *f)
{
    /* bvh.axes: the model's axes before a Y-up export; roots are turned back by C^-1 */
    double undo_q[4], *undo = NULL;
    if (f->axes_undone) {
        ganim_quat c = ganim_axes_to_y_up((ganim_axes)(f->axes_undone - 1));
        undo_q[0] = -c.x, undo_q[1] = -c.y, undo_q[2] = -c.z, undo_q[3] = c.w;
        if (f->axes_undone - 1 == GANIM_AXES_Z_UP)
            undo_q[0] = 0.70710678118654752440, undo_q[3] = 0.70710678118654752440;
        if (f->axes_undone - 1 != GANIM_AXES_Y_UP) undo = undo_q;
        f->doc->axes = (ganim_axes)(f->axes_undone - 1);
    }
    f->synthetic_root = synthetic_root(f);
    uint32_t skip = f->synthetic_root ? 1u : 0u, nb = f->joint_count - skip;
    ganim_skeleton *sk = ganim_doc_alloc(f->doc, sizeof *sk);
    ganim_bone *bones = ganim_doc_alloc_array(f->doc, nb, sizeof *bones);
    if (!sk || !bones) return GANIM_NOMEM(f->err);
    sk->name = "";
    sk->bones = bones;
    sk->bone_count = nb;
    uint32_t tracks = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const bvh_joint *j = &f->joints[b + skip];
        ganim_bone *bone = &bones[b];
        if (!(bone->name = ganim_doc_strdup(f->doc, j->name))) return GANIM_NOMEM(f->err);
        bone->parent = j->parent - (int32_t)skip;
        if (bone->parent < 0) bone->parent = -1;
        bone->rest = ganim_transform_identity();
        double o[3] = { j->offset[0], j->offset[1], j->offset[2] };
        if (undo && bone->parent < 0) ganim_dq_rot(undo, o, o);
        bone->rest.translation.x = (float)o[0];
        bone->rest.translation.y = (float)o[1];
        bone->rest.translation.z = (float)o[2];
        int pos = 0;
        for (int k = 0; k < j->nch; k++) pos |= j->ch[k] < BVH_XROT;
        f->position_joints += (uint32_t)pos;
        if (pos && (j->offset[0] != 0 || j->offset[1] != 0 || j->offset[2] != 0)) f->offset_and_positions++;
        tracks += j->nch > 0;
    }
    f->doc->skeleton = sk;
    /* a skeleton given: the joints animate its bones, matched by name (rest poses, order
     * and bones the file does not name are the skeleton's) */
    uint32_t *bone_of = NULL;
    if (f->opts->skeleton) {
        if (!(bone_of = ganim_doc_alloc_array(f->scratch, nb ? nb : 1, sizeof *bone_of))) return GANIM_NOMEM(f->err);
        ganim_code code = map_joints(f, f->opts->skeleton, skip, nb, bone_of);
        if (code != GANIM_OK) return code;
        if (!(f->doc->skeleton = ganim_skeleton_copy(f->doc, f->opts->skeleton))) return GANIM_NOMEM(f->err);
    }
    if (f->offset_and_positions && !f->positions_add)
        ganim_doc_warn(f->doc, GANIM_WARN_OTHER, GANIM_NO_OFFSET,
                       "bvh: %u joints have both an OFFSET and position channels: the positions are read as the "
                       "joint's whole translation, as Blender does (three.js adds them to the OFFSET: "
                       "-O bvh.positions=add)",
                       f->offset_and_positions);
    if (!f->has_motion || !f->frames) return GANIM_OK;
    frame_rate(f);
    ganim_clip *clip = ganim_doc_alloc(f->doc, sizeof *clip);
    ganim_track *tr = ganim_doc_alloc_array(f->doc, tracks, sizeof *tr);
    if (!clip || (tracks && !tr)) return GANIM_NOMEM(f->err);
    /* one track's frames, only what some track has: translations, rotations */
    int any_pos = 0, any_rot = 0;
    for (uint32_t b = 0; b < nb; b++)
        for (int k = 0; k < f->joints[b + skip].nch; k++) {
            any_pos |= f->joints[b + skip].ch[k] < BVH_XROT;
            any_rot |= f->joints[b + skip].ch[k] >= BVH_XROT;
        }
    if (any_pos && !(f->track_t = ganim_doc_alloc_array_raw(f->scratch, (size_t)f->frames * 3, sizeof(float))))
        return GANIM_NOMEM(f->err);
    if (any_rot && !(f->track_q = ganim_doc_alloc_array_raw(f->scratch, (size_t)f->frames * 4, sizeof(float))))
        return GANIM_NOMEM(f->err);
    clip->name = "";
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->fps = f->fps;
    clip->frame_count = f->frames;
    clip->tracks = tr;
    uint32_t t = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const bvh_joint *j = &f->joints[b + skip];
        if (!j->nch || (bone_of && bone_of[b] == UINT32_MAX)) continue;
        ganim_code code = track(f, j, bone_of ? bone_of[b] : b, bones[b].parent < 0 ? undo : NULL, &tr[t++]);
        if (code != GANIM_OK) return code;
    }
    clip->track_count = t;
    f->doc->clips = clip;
    f->doc->clip_count = 1;
    return GANIM_OK;
}
