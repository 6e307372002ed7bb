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

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* Every |s[i]| and |c[i]| >= 2^-300 (none is a NaN: the angles are finite). With SSE2
 * the six in three pairs, one compare each (the same answers as the scalar tests). */
static inline int all_large(const double s[3], const double c[3])
{
#if defined(__SSE2__)
    const __m128d abs = _mm_castsi128_pd(_mm_set1_epi64x(0x7FFFFFFFFFFFFFFF)), tiny = _mm_set1_pd(0x1p-300);
    __m128d a = _mm_and_pd(_mm_loadu_pd(s), abs), b = _mm_and_pd(_mm_loadu_pd(c), abs);
    __m128d e = _mm_and_pd(_mm_set_pd(c[2], s[2]), abs);
    __m128d ok = _mm_and_pd(_mm_and_pd(_mm_cmpge_pd(a, tiny), _mm_cmpge_pd(b, tiny)), _mm_cmpge_pd(e, tiny));
    return _mm_movemask_pd(ok) == 3;
#else
    const double tiny = 0x1p-300;
    return fabs(s[0]) >= tiny && fabs(s[1]) >= tiny && fabs(s[2]) >= tiny && fabs(c[0]) >= tiny && fabs(c[1]) >= tiny &&
           fabs(c[2]) >= tiny;
#endif
}

/* R = R(order[0]) R(order[1]) R(order[2]) from the sines and cosines of the half angles
 * in that order (s[0], c[0] about axis order[0], ...). The product of three axis
 * rotations by ganim_dq_mul from the identity (the reference, kept below) adds many terms
 * that are zeros; without them the result has the same bits whenever no product of sines
 * and cosines is zero: each term left is then the same product, a zero term added to a
 * non-zero sum changes nothing, and a sum that cancels exactly is +0 either way, which
 * adding a zero of either sign keeps. Sines and cosines of at least 2^-300 make every
 * product of three non-zero; others (a zero angle) take the reference.
 * tests/formats/bvh/test_bvh_euler.c compares the two. */
static inline void euler_from_sc(const double s[3], const double c[3], const int order[3], int code, double q[4])
{
    if (all_large(s, c)) {
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

/* The sine and cosine of half an angle in degrees, in radians (libm's, as every
 * rotation of the reader has them). */
static inline void half_sincos(double deg, double *s, double *c)
{
    double h = deg * (3.14159265358979323846 / 360.0);
    *s = sin(h);
    *c = cos(h);
}

void bvh_euler_to_quat(const double deg[3], const int order[3], double q[4])
{
    double s[3], c[3];
    for (int i = 0; i < 3; i++) half_sincos(deg[order[i]], &s[i], &c[i]);
    euler_from_sc(s, c, order, order[0] * 3 + order[1], q);
}

/* ---- the frames, converted as they are read ----------------------------------------------------- */

/* A channel's values so far: its first frame's, and once a frame differs (other bits),
 * one per frame in the document (frames before that one filled with the first). */
typedef struct bvh_chan {
    float first[4];
    float *frames;   /* room for f->frame_room frames, in the document; NULL until needed */
    uint8_t varying; /* `frames` holds every frame so far */
} bvh_chan;

/* A joint's channels and what its frames made so far. */
typedef struct bvh_state {
    uint8_t has_pos, has_rot;
    int8_t pos_at[3];  /* each axis's position channel in the joint's values, or -1 */
    uint32_t pos_v[3]; /* where each axis's position is in the frame (pos_at), or the frame's 0 */
    uint32_t rot_v[3]; /* where each rotation's angle is in the frame, in order, or the frame's 0 */
    int order[3], order_code;
    const double *undo; /* bvh.axes: the roots' turn, or NULL */
    double base[3];     /* added to the position channels (OFFSET or 0) */
    uint64_t angle[3];  /* the angles of the frame before, their bits (a NaN's before the first) */
    double s[3], c[3];  /* their half-angle sines and cosines */
    float q_prev[4];    /* that frame's rotation */
    bvh_chan t, r;
} bvh_state;

/* ganim's synthetic root as far as the hierarchy tells: a lone ROOT `ganim_root` at the
 * origin (the frames decide the rest: its channels stay 0). */
static int synthetic_root_shape(const bvh_file *f)
{
    const bvh_joint *r = &f->joints[0];
    if (f->joint_count < 2 || strcmp(r->name, "ganim_root") != 0 || r->offset[0] != 0 || r->offset[1] != 0 ||
        r->offset[2] != 0)
        return 0;
    for (uint32_t j = 1; j < f->joint_count; j++)
        if (f->joints[j].parent < 0) return 0;
    return 1;
}

/* bvh.axes: the model's axes before a Y-up export; roots are turned back by C^-1 */
static void set_undo(bvh_file *f)
{
    f->undo = NULL;
    if (f->axes_undone) {
        ganim_quat c = ganim_axes_to_y_up((ganim_axes)(f->axes_undone - 1));
        double *u = f->undo_q;
        u[0] = -c.x, u[1] = -c.y, u[2] = -c.z, u[3] = c.w;
        if (f->axes_undone - 1 == GANIM_AXES_Z_UP) u[0] = 0.70710678118654752440, u[3] = 0.70710678118654752440;
        if (f->axes_undone - 1 != GANIM_AXES_Y_UP) f->undo = u;
    }
}

ganim_code bvh_begin(bvh_file *f)
{
    set_undo(f);
    /* read first (f->redo clear): the root is taken for the synthetic one while its
     * values are 0; bvh_frame asks for a second reading if that turns out false while
     * roots are turned (the turn goes to the root's children only if it is synthetic) */
    if (!f->redo) f->maybe_synthetic = synthetic_root_shape(f);
    f->redo = 0;
    if (!f->state && !(f->state = ganim_doc_alloc_array(f->scratch, f->joint_count, sizeof *f->state)))
        return GANIM_NOMEM(f->err);
    for (uint32_t ji = 0; ji < f->joint_count; ji++) {
        const bvh_joint *j = &f->joints[ji];
        bvh_state *st = &f->state[ji];
        float *keep_t = st->t.frames, *keep_r = st->r.frames; /* a second reading reuses them */
        memset(st, 0, sizeof *st);
        st->t.frames = keep_t;
        st->r.frames = keep_r;
        int rot_at[3] = { -1, -1, -1 };
        for (int a = 0; a < 3; a++) st->pos_at[a] = -1;
        for (int k = 0; k < j->nch; k++) {
            if (j->ch[k] < BVH_XROT) {
                st->has_pos = 1;
                st->pos_at[j->ch[k]] = (int8_t)k;
            } else {
                st->has_rot = 1;
                rot_at[j->ch[k] - BVH_XROT] = k;
            }
        }
        rotation_order(j, st->order);
        st->order_code = st->order[0] * 3 + st->order[1];
        /* the frame's values end with a 0 (bvh_frame): a missing channel reads it */
        for (int i = 0; i < 3; i++) {
            int at = rot_at[st->order[i]];
            st->rot_v[i] = at >= 0 ? j->first + (uint32_t)at : f->channels;
            st->pos_v[i] = st->pos_at[i] >= 0 ? j->first + (uint32_t)st->pos_at[i] : f->channels;
            st->angle[i] = UINT64_MAX; /* a NaN: no angle read has these bits */
        }
        for (int a = 0; a < 3; a++) st->base[a] = f->positions_add || st->pos_at[a] < 0 ? j->offset[a] : 0;
        int is_root = f->maybe_synthetic ? j->parent == 0 : j->parent < 0;
        st->undo = is_root ? f->undo : NULL;
    }
    return GANIM_OK;
}

/* One frame's `n` floats of a channel. */
static ganim_code chan_put(bvh_file *f, bvh_chan *ch, const float *val, size_t n, uint32_t fr)
{
    if (!fr) {
        memcpy(ch->first, val, n * sizeof(float));
        return GANIM_OK;
    }
    if (!ch->varying) {
        if (!memcmp(val, ch->first, n * sizeof(float))) return GANIM_OK;
        if (!ch->frames &&
            !(ch->frames = ganim_doc_alloc_array_raw(f->doc, (size_t)f->frame_room * n, sizeof(float)))) /* filled */
            return GANIM_NOMEM(f->err);
        for (uint32_t k = 0; k < fr; k++) memcpy(ch->frames + (size_t)k * n, ch->first, n * sizeof(float));
        ch->varying = 1;
    }
    memcpy(ch->frames + (size_t)fr * n, val, n * sizeof(float));
    return GANIM_OK;
}

ganim_code bvh_frame(bvh_file *f, const double *v, uint32_t fr)
{
    if (f->maybe_synthetic) {
        const bvh_joint *r = &f->joints[0];
        for (uint32_t k = 0; k < r->nch; k++)
            if (v[r->first + k] != 0) {
                f->maybe_synthetic = 0;
                if (f->undo) {
                    f->redo = 1; /* the roots' turn went to the wrong joints: read again */
                    return GANIM_OK;
                }
                break;
            }
    }
    for (uint32_t ji = 0; ji < f->joint_count; ji++) {
        bvh_state *st = &f->state[ji];
        if (st->has_pos) {
            double p[3];
            float t[3];
            for (int a = 0; a < 3; a++) p[a] = st->base[a] + v[st->pos_v[a]];
            if (st->undo) ganim_dq_rot(st->undo, p, p);
            for (int a = 0; a < 3; a++) t[a] = (float)p[a];
            ganim_code code = chan_put(f, &st->t, t, 3, fr);
            if (code != GANIM_OK) return code;
        }
        if (!st->has_rot) continue;
        /* each angle with the bits of the frame before keeps its sine and cosine (the
         * same libm call on the same double); all three: the same quaternion */
        double deg[3];
        uint64_t bits[3];
        for (int i = 0; i < 3; i++) deg[i] = v[st->rot_v[i]];
        memcpy(bits, deg, sizeof bits);
        int same = 0;
        for (int i = 0; i < 3; i++) {
            if (bits[i] == st->angle[i]) { /* never in the first frame: angle holds a NaN's bits */
                same++;
                continue;
            }
            st->angle[i] = bits[i];
            if (!(bits[i] << 1)) { /* +-0: sin(+-0) is +-0 and cos(+-0) is 1 (C11 F.10.1.5-6) */
                st->s[i] = deg[i];
                st->c[i] = 1;
            } else {
                half_sincos(deg[i], &st->s[i], &st->c[i]);
            }
        }
        if (same == 3) { /* fr > 0: the frame before's rotation, which a channel without an
                            * array holds as its first already (chan_put would find it so) */
            if (st->r.varying) memcpy(st->r.frames + (size_t)fr * 4, st->q_prev, sizeof st->q_prev);
            continue;
        }
        double r[4];
        float q[4];
        euler_from_sc(st->s, st->c, st->order, st->order_code, r);
        if (st->undo) ganim_dq_mul(st->undo, r, r);
        double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        for (int a = 0; a < 4; a++) q[a] = (float)(r[a] / len);
        memcpy(st->q_prev, q, sizeof q);
        ganim_code code = chan_put(f, &st->r, q, 4, fr);
        if (code != GANIM_OK) return code;
    }
    return GANIM_OK;
}

/* The channel a joint's frames made: in the document only what it keeps, one value (a
 * copy) or one per frame (the array filled as the frames were read). */
static ganim_code set_channel(bvh_file *f, ganim_channel *ch, bvh_chan *c, uint32_t comps)
{
    if (c->varying) {
        ch->kind = GANIM_CHANNEL_PER_FRAME;
        ch->count = f->frames;
        ch->values = c->frames;
        return GANIM_OK;
    }
    float *kept = ganim_doc_alloc_array_raw(f->doc, comps, sizeof(float)); /* copied over whole */
    if (!kept) return GANIM_NOMEM(f->err);
    memcpy(kept, c->first, comps * sizeof(float));
    ch->kind = GANIM_CHANNEL_CONSTANT;
    ch->count = 1;
    ch->values = kept;
    return GANIM_OK;
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
    set_undo(f);
    const double *undo = f->undo;
    if (f->axes_undone) f->doc->axes = (ganim_axes)(f->axes_undone - 1);
    /* ganim's synthetic root: its shape, and its values 0 in every frame read */
    f->synthetic_root = f->state ? f->maybe_synthetic : synthetic_root_shape(f);
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
    clip->name = "";
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->fps = f->fps;
    clip->frame_count = f->frames;
    clip->tracks = tr;
    uint32_t t = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const bvh_joint *j = &f->joints[b + skip];
        if (!j->nch || !f->state || (bone_of && bone_of[b] == UINT32_MAX)) continue; /* state: frames read */
        bvh_state *st = &f->state[b + skip];
        ganim_track *k = &tr[t++];
        k->bone = bone_of ? bone_of[b] : b;
        k->name = f->doc->skeleton->bones[k->bone].name;
        ganim_code code = GANIM_OK;
        if (st->has_pos) code = set_channel(f, &k->translation, &st->t, 3);
        if (code == GANIM_OK && st->has_rot) code = set_channel(f, &k->rotation, &st->r, 4);
        if (code != GANIM_OK) return code;
    }
    clip->track_count = t;
    f->doc->clips = clip;
    f->doc->clip_count = 1;
    return GANIM_OK;
}
