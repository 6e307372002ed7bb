/* The FF7 writer's pieces as they were before the twenty-seventh session (e0c9a69), kept
 * frozen for test_ff7_write_speed: the new ones must give the same results for every
 * input. Do not change them to follow the library. (One change: ref_lround for lround, the
 * same with a conforming C library; see it.) */
#ifndef GANIM_TEST_FF7_WRITE_REF_H
#define GANIM_TEST_FF7_WRITE_REF_H

#include <math.h>
#include <string.h>

#include "formats/ff7/ff7.h"

static const double REF_FF7_TAU = 6.283185307179586476925286766559;

static int32_t ref_circ_dist(int32_t a, int32_t b)
{
    int32_t d = (a - b) & 4095;
    return d > 2048 ? 4096 - d : d;
}

/* lround as C11 7.12.9.7 defines it (half away from zero), from the double's bits in
 * integers, for |x| < 2^30 (every unit the writer makes); the C library's lround beyond.
 * The old code called lround itself: the same with glibc, but Wine's msvcrt lround gives
 * 1 for 0.49999999999999994 (the double below a half), as floor(x + 0.5) does, where C's
 * lround (and the library's round_units) give 0. */
static long ref_lround(double x)
{
    if (!(fabs(x) < 0x1p30)) return lround(x);
    int ex;
    double f = frexp(fabs(x), &ex);           /* |x| = f 2^ex, f in [0.5, 1) (or 0) */
    int64_t m = (int64_t)ldexp(f, 53), r;     /* |x| = m 2^(ex - 53), m < 2^53 exactly */
    int k = 53 - ex;                          /* bits below the binary point */
    if (k <= 0) r = m << -k;                  /* whole (not reached: ex <= 30) */
    else if (k > 62) r = 0;                   /* below 2^-10: not a half */
    else r = (m >> k) + ((m >> (k - 1)) & 1); /* the half bit rounds up: away from zero */
    return x < 0 ? -(long)r : (long)r;
}

static uint16_t ref_quantise(double angle, unsigned bkey)
{
    double units = angle * 4096.0 / REF_FF7_TAU / (double)(1u << bkey);
    long q = ref_lround(units);
    return (uint16_t)(((uint32_t)q << bkey) & 0xFFFu);
}

/* ref_quat_to_raw from the angles on (the old function's text, split after
 * ganim_quat_to_euler) */
static void ref_angles_to_raw(const double e[3], unsigned bkey, const uint16_t *prev, uint16_t out[3])
{
    uint16_t a[3], b[3];
    for (int i = 0; i < 3; i++) a[i] = ref_quantise(e[i], bkey);
    const double pi = REF_FF7_TAU / 2;
    b[0] = ref_quantise(pi - e[0], bkey);
    b[1] = ref_quantise(e[1] + pi, bkey);
    b[2] = ref_quantise(e[2] + pi, bkey);
    const uint16_t *pick = a;
    if (prev) {
        int32_t da = 0, db = 0;
        for (int i = 0; i < 3; i++) {
            da += ref_circ_dist(a[i], prev[i]);
            db += ref_circ_dist(b[i], prev[i]);
        }
        if (db < da) pick = b;
    }
    memcpy(out, pick, 3 * sizeof *out);
}

static void ref_quat_to_raw(ganim_quat q, unsigned bkey, const uint16_t *prev, uint16_t out[3])
{
    double e[3];
    ganim_quat_to_euler(q, GANIM_EULER_YXZ, e);
    ref_angles_to_raw(e, bkey, prev, out);
}

static uint16_t ref_quantise_raw(uint16_t raw, unsigned bkey)
{
    if (!bkey) return raw;
    uint32_t half = 1u << (bkey - 1);
    return (uint16_t)(((raw + half) >> bkey << bkey) & 0xFFFu);
}

static int32_t ref_wrap_delta(uint16_t cur, uint16_t prev)
{
    return (int32_t)(((uint32_t)cur - (uint32_t)prev + 2048u) & 4095u) - 2048;
}

static int32_t ref_units(int32_t d, unsigned bkey) { return d / (int32_t)(1u << bkey); }

static unsigned ref_rot_code_bits(int32_t v, unsigned bkey)
{
    static const uint8_t bit_length[64] = { 0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5,
                                            5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
                                            6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6 };
    if (v == 0) return 1;
    if (v == -1) return 4;
    uint32_t m = v > 0 ? (uint32_t)v : ~(uint32_t)v;
    return m < 64 ? 4u + bit_length[m] : 4 + 12 - bkey;
}

static size_t ref_stream_bits(unsigned bkey, uint32_t slots, uint32_t frames, const int32_t *pos, const uint16_t *rot)
{
    size_t per = (size_t)slots * 3u;
    if (frames == 0) return 0;
    for (int i = 0; i < 3; i++)
        if (pos[i] < -32768 || pos[i] > 32767) return SIZE_MAX;
    size_t bits = 48u + per * (12u - bkey);
    for (size_t f = 1; f < frames; f++) {
        for (size_t i = 0; i < 3; i++) {
            int64_t d = (int64_t)pos[f * 3 + i] - pos[(f - 1) * 3 + i];
            if (d >= -64 && d <= 63) bits += 8;
            else if (d >= -32768 && d <= 32767) bits += 17;
            else return SIZE_MAX;
        }
        const uint16_t *c = rot + f * per, *p = c - per;
        for (size_t i = 0; i < per; i++) bits += ref_rot_code_bits(ref_units(ref_wrap_delta(c[i], p[i]), bkey), bkey);
    }
    return bits;
}

static void ref_put_rot_delta(ganim_bitwriter *bw, int32_t v, unsigned bkey)
{
    if (v == 0) {
        gbw_put(bw, 1, 0);
        return;
    }
    if (v == -1) {
        gbw_put(bw, 4, 8);
        return;
    }
    for (unsigned n = 1; n <= 6; n++) {
        int32_t lo = (int32_t)1 << (n - 1), hi = ((int32_t)1 << n) - 1;
        if (v >= lo && v <= hi) {
            gbw_put(bw, 4, 8u | n);
            gbw_put(bw, n, (uint32_t)(v - lo));
            return;
        }
        if (v >= -hi - 1 && v <= -lo - 1) {
            gbw_put(bw, 4, 8u | n);
            gbw_put(bw, n, (uint32_t)(v + lo) & ((1u << n) - 1u));
            return;
        }
    }
    gbw_put(bw, 4, 15);
    gbw_put(bw, 12 - bkey, (uint32_t)v & ((1u << (12 - bkey)) - 1u));
}

static void ref_encode_stream(ganim_bitwriter *bw, unsigned bkey, uint32_t slots, uint32_t frames, const int32_t *pos,
                              const uint16_t *rot)
{
    size_t per = (size_t)slots * 3u;
    uint32_t mask = (1u << (12 - bkey)) - 1u;
    if (frames == 0) return;
    for (int i = 0; i < 3; i++) gbw_put(bw, 16, (uint32_t)pos[i] & 0xFFFFu);
    for (size_t i = 0; i < per; i++) gbw_put(bw, 12 - bkey, ((uint32_t)rot[i] >> bkey) & mask);
    for (size_t f = 1; f < frames; f++) {
        for (size_t i = 0; i < 3; i++) {
            int32_t d = pos[f * 3 + i] - pos[(f - 1) * 3 + i];
            if (d >= -64 && d <= 63) {
                gbw_put(bw, 1, 0);
                gbw_put(bw, 7, (uint32_t)d & 0x7Fu);
            } else {
                gbw_put(bw, 1, 1);
                gbw_put(bw, 16, (uint32_t)d & 0xFFFFu);
            }
        }
        const uint16_t *c = rot + f * per, *p = c - per;
        for (size_t i = 0; i < per; i++) ref_put_rot_delta(bw, ref_units(ref_wrap_delta(c[i], p[i]), bkey), bkey);
    }
    gbw_flush(bw);
}

/* ff7_choose_bkey without its error texts: 0 and *key, *bits, rot quantised; 1 a position
 * out of range; 2 no candidate fits; 3 no candidate. */
static int ref_choose_bkey(const int *cands, int ncand, uint32_t slots, uint32_t frames, const int32_t *pos,
                           uint16_t *rot, uint16_t *scratch, unsigned *key, size_t *bits)
{
    if (ncand <= 0) return 3;
    size_t n = (size_t)frames * slots * 3u;
    size_t best = 0;
    for (int c = 0; c < ncand; c++) {
        unsigned k = (unsigned)cands[c];
        for (size_t i = 0; i < n; i++) scratch[i] = ref_quantise_raw(rot[i], k);
        best = ref_stream_bits(k, slots, frames, pos, scratch);
        if (best == SIZE_MAX) return 1;
        if ((best + 7) / 8 <= FF7_MAX_STREAM) {
            memcpy(rot, scratch, n * sizeof *rot);
            *key = k;
            *bits = best;
            return 0;
        }
    }
    return 2;
}

static const ganim_track *ref_track_of(const ganim_clip *clip, int32_t bone)
{
    if (bone < 0) return NULL;
    for (uint32_t i = 0; i < clip->track_count; i++)
        if ((int32_t)clip->tracks[i].bone == bone) return &clip->tracks[i];
    return NULL;
}

static bool ref_quat_close(ganim_quat a, ganim_quat b)
{
    float d1 = fabsf(a.x - b.x) + fabsf(a.y - b.y) + fabsf(a.z - b.z) + fabsf(a.w - b.w);
    float d2 = fabsf(a.x + b.x) + fabsf(a.y + b.y) + fabsf(a.z + b.z) + fabsf(a.w + b.w);
    return d1 < 4e-6f || d2 < 4e-6f;
}

static bool ref_raw_from_model(const ganim_doc *doc, const ganim_clip *clip, const ff7_clip_info *in, int role,
                               uint32_t slots, uint32_t frames, int32_t *pos, uint16_t *rot)
{
    bool use_native = in && in->frames == frames && in->slots == slots;
    bool pristine = use_native;
    size_t per = (size_t)slots * 3u;
    const ganim_skeleton *sk = doc->skeleton;
    for (uint32_t s = 0; s < slots; s++) {
        int32_t b = ff7_slot_bone(doc, role, s);
        const ganim_track *tr = ref_track_of(clip, b);
        float rest[4] = { 0, 0, 0, 1 };
        if (sk && b >= 0 && (uint32_t)b < sk->bone_count) {
            ganim_quat r = sk->bones[b].rest.rotation;
            rest[0] = r.x, rest[1] = r.y, rest[2] = r.z, rest[3] = r.w;
        }
        for (uint32_t f = 0; f < frames; f++) {
            float v[4];
            if (tr)
                ganim_channel_eval(&tr->rotation, clip->frame_count, tr->step, clip->rotation_interp, 4, (double)f,
                                   rest, v);
            else memcpy(v, rest, sizeof v);
            ganim_quat q = { v[0], v[1], v[2], v[3] };
            uint16_t *out = rot + (size_t)f * per + (size_t)s * 3u;
            if (use_native) {
                uint16_t nat[3];
                for (int k = 0; k < 3; k++) nat[k] = ff7_info_rot(in, (size_t)f * per + (size_t)s * 3u + (size_t)k);
                if (ref_quat_close(q, ff7_raw_to_quat(nat))) {
                    memcpy(out, nat, sizeof nat);
                    continue;
                }
            }
            pristine = false;
            ref_quat_to_raw(ganim_quat_normalize(q), 0, f ? out - per : NULL, out);
        }
    }
    int32_t pb = ff7_pos_bone(doc, role);
    const ganim_track *tr = ref_track_of(clip, pb);
    float rest[3] = { 0, 0, 0 };
    if (sk && pb >= 0 && (uint32_t)pb < sk->bone_count) {
        ganim_vec3 t = sk->bones[pb].rest.translation;
        rest[0] = t.x, rest[1] = t.y, rest[2] = t.z;
    }
    for (uint32_t f = 0; f < frames; f++) {
        float v[3];
        if (tr)
            ganim_channel_eval(&tr->translation, clip->frame_count, tr->step, clip->rotation_interp, 3, (double)f, rest,
                               v);
        else memcpy(v, rest, sizeof v);
        for (int k = 0; k < 3; k++) {
            size_t i = (size_t)f * 3u + (size_t)k;
            if (use_native && (float)ff7_info_pos(in, i) == v[k]) {
                pos[i] = ff7_info_pos(in, i);
                continue;
            }
            pristine = false;
            double x = v[k];
            pos[i] = !(x == x) ? 0 : x > 2e9 ? 2000000000 : x < -2e9 ? -2000000000 : (int32_t)lround(x);
        }
    }
    return pristine;
}

#endif
