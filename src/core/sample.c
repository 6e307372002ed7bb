/* Evaluating clips at any time: shortest-arc slerp (or ACL's nlerp) for rotations,
 * lerp for vectors, step bits, clamping at both ends. */
#include <math.h>
#include <string.h>

#include "core/internal.h"

/* Finds the pair of values around `frame`: indices k0, k1 and alpha in [0, 1). */
static void locate(const ganim_channel *ch, uint32_t frame_count, const uint8_t *step, double frame, uint32_t *k0,
                   uint32_t *k1, double *alpha)
{
    uint32_t n = ch->count;
    *k0 = *k1 = 0;
    *alpha = 0;
    if (ch->kind == GANIM_CHANNEL_PER_FRAME) {
        if (!(frame > 0)) return;
        if (frame >= (double)(n - 1)) {
            *k0 = *k1 = n - 1;
            return;
        }
        uint32_t k = (uint32_t)frame;
        *k0 = k;
        *k1 = k + 1;
        *alpha = frame - (double)k;
        if (step && k < frame_count && step[k]) *alpha = 0;
        return;
    }
    /* keyed */
    const float *t = ch->times;
    if (!(frame > t[0])) return;
    if (frame >= t[n - 1]) {
        *k0 = *k1 = n - 1;
        return;
    }
    uint32_t lo = 0, hi = n - 1; /* t[lo] <= frame < t[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t[mid] <= frame) lo = mid;
        else hi = mid;
    }
    *k0 = lo;
    *k1 = hi;
    *alpha = (frame - t[lo]) / ((double)t[hi] - t[lo]);
    double fk = floor((double)t[lo]);
    if (step && fk >= 0 && fk < (double)frame_count && step[(uint32_t)fk]) *alpha = 0;
}

void ganim_channel_eval(const ganim_channel *ch, uint32_t frame_count, const uint8_t *step,
                        ganim_rotation_interp interp, int components, double frame, const float *rest, float *out)
{
    if (ch->kind == GANIM_CHANNEL_ABSENT || ch->count == 0 || !ch->values) {
        memcpy(out, rest, (size_t)components * sizeof *out);
        return;
    }
    if (ch->kind == GANIM_CHANNEL_CONSTANT) {
        memcpy(out, ch->values, (size_t)components * sizeof *out);
        return;
    }
    uint32_t k0, k1;
    double alpha;
    locate(ch, frame_count, step, frame, &k0, &k1, &alpha);
    const float *a = ch->values + (size_t)k0 * (size_t)components;
    const float *b = ch->values + (size_t)k1 * (size_t)components;
    if (alpha == 0 || k0 == k1) {
        memcpy(out, a, (size_t)components * sizeof *out);
        return;
    }
    if (components == 4) {
        ganim_quat qa = { a[0], a[1], a[2], a[3] }, qb = { b[0], b[1], b[2], b[3] }, r;
        r = interp == GANIM_INTERP_NLERP ? ganim_quat_nlerp(qa, qb, (float)alpha) : ganim_quat_slerp(qa, qb, alpha);
        out[0] = r.x, out[1] = r.y, out[2] = r.z, out[3] = r.w;
        return;
    }
    if (interp == GANIM_INTERP_NLERP) { /* ACL's float lerp: a + (b - a) * t */
        float t = (float)alpha;
        for (int i = 0; i < components; i++) {
            out[i] = a[i] + (b[i] - a[i]) * t;
            /* b - a overflows for values of opposite signs near the float range, where
             * ACL itself would give infinity: there, the same line in double (finite,
             * between a and b) */
            if (!isfinite(out[i])) out[i] = (float)((double)a[i] + ((double)b[i] - a[i]) * alpha);
        }
        return;
    }
    for (int i = 0; i < components; i++) out[i] = (float)((double)a[i] + ((double)b[i] - a[i]) * alpha);
}

/* A channel's count agrees with its kind and the clip's frame count: nothing is read past
 * the arrays (the values themselves are ganim_doc_validate's business). */
static int channel_fits(const ganim_channel *ch, uint32_t frame_count)
{
    switch (ch->kind) {
    case GANIM_CHANNEL_ABSENT: return 1;
    case GANIM_CHANNEL_CONSTANT: return ch->count == 1 && ch->values;
    case GANIM_CHANNEL_PER_FRAME: return ch->count == frame_count && ch->values;
    case GANIM_CHANNEL_KEYED: return ch->count > 0 && ch->values && ch->times;
    default: return 0;
    }
}

ganim_code ganim_clip_sample(const ganim_clip *clip, const ganim_skeleton *skeleton, double time, ganim_transform *out,
                             uint8_t *visible, ganim_error *err)
{
    if (!clip || !skeleton || !out)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "sample: missing argument");
    if (clip->kind != GANIM_CLIP_ANIMATION) {
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "sample: clip '%s' is not an animation",
                          clip->name);
    }
    if (clip->frame_count == 0 || (clip->track_count && !clip->tracks) || (skeleton->bone_count && !skeleton->bones))
        return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "sample: clip '%s' has no frames or arrays missing",
                          clip->name);
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ganim_track *t = &clip->tracks[i];
        if (!channel_fits(&t->rotation, clip->frame_count) || !channel_fits(&t->translation, clip->frame_count) ||
            !channel_fits(&t->scale, clip->frame_count))
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                              "sample: clip '%s' track %u: a channel's count does not fit the clip's %u frames",
                              clip->name, i, clip->frame_count);
    }
    for (uint32_t b = 0; b < skeleton->bone_count; b++) {
        out[b] = skeleton->bones[b].rest;
        if (visible) visible[b] = (skeleton->bones[b].flags & GANIM_BONE_HIDDEN) ? 0 : 1;
    }
    double frame;
    if (clip->rotation_interp == GANIM_INTERP_NLERP) /* as ACL: float32 time * rate */
        frame = (double)((float)time * (float)clip->fps);
    else frame = time * clip->fps;
    if (!(frame > 0)) frame = 0; /* also NaN */
    double last = clip->frame_count ? (double)(clip->frame_count - 1) : 0;
    if (frame > last) frame = last;
    uint32_t fi = (uint32_t)frame;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ganim_track *t = &clip->tracks[i];
        if (t->bone >= skeleton->bone_count) continue;
        ganim_transform *o = &out[t->bone];
        ganim_transform rest = o[0];
        ganim_channel_eval(&t->rotation, clip->frame_count, t->step, clip->rotation_interp, 4, frame, &rest.rotation.x,
                           &o->rotation.x);
        ganim_channel_eval(&t->translation, clip->frame_count, t->step, clip->rotation_interp, 3, frame,
                           &rest.translation.x, &o->translation.x);
        ganim_channel_eval(&t->scale, clip->frame_count, t->step, clip->rotation_interp, 3, frame, &rest.scale.x,
                           &o->scale.x);
        if (visible && t->visibility && fi < clip->frame_count) visible[t->bone] = t->visibility[fi] ? 1 : 0;
    }
    return GANIM_OK;
}

void ganim_skeleton_rest_from_frame0(ganim_skeleton *sk, const ganim_clip *clip)
{
    if (!sk || !clip || clip->kind != GANIM_CLIP_ANIMATION) return;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ganim_track *t = &clip->tracks[i];
        if (t->bone >= sk->bone_count) continue;
        ganim_transform *r = &sk->bones[t->bone].rest;
        ganim_transform old = *r;
        ganim_channel_eval(&t->rotation, clip->frame_count, t->step, clip->rotation_interp, 4, 0.0, &old.rotation.x,
                           &r->rotation.x);
        ganim_channel_eval(&t->translation, clip->frame_count, t->step, clip->rotation_interp, 3, 0.0,
                           &old.translation.x, &r->translation.x);
        ganim_channel_eval(&t->scale, clip->frame_count, t->step, clip->rotation_interp, 3, 0.0, &old.scale.x,
                           &r->scale.x);
    }
}
