/* The ACL encoder as it was at e0c9a69 (src/formats/acl/acl_encode.c then
 * src/formats/acl/acl_encode_rate.c), kept verbatim but for its entry points, renamed ref_*
 * and made static, and the two files' includes: test_acl_encode_ref compares the encoder
 * with it byte for byte (the bytes themselves come from the library's acl_enc_emit, which
 * these files call and which did not change). Included by that test only. */
#ifndef GANIM_TESTS_REF_ACL_ENCODE_E0C9A69_H
#define GANIM_TESTS_REF_ACL_ENCODE_E0C9A69_H

#include <stdlib.h>

#include "formats/acl/acl_encode.h"

static ganim_code ref_acl_enc_search(acl_enc *e, ganim_error *err);
static double ref_acl_enc_max_error(const acl_enc *e, uint32_t *track);
static void ref_acl_enc_strip(acl_enc *e);
static double ref_acl_enc_flat_bound(const acl_enc *e, uint32_t t, const float *x, const float *y);
static double ref_acl_enc_depth_products(double *sc, uint32_t n, double shell, double *tl);
static void ref_acl_enc_value(const acl_enc *e, uint32_t g, uint32_t t, unsigned kind, uint32_t s, const acl_sub *sub,
                              float o[4]);

/* ---- src/formats/acl/acl_encode.c at e0c9a69 ---------------------------------------------- */

/* Value of a channel at integer frame f, bit-exact for stored frames. */
static void enc_channel_at(const ganim_channel *ch, const ganim_clip *clip, const uint8_t *step, unsigned comps,
                           uint32_t f, const float *rest, float *out)
{
    switch (ch->kind) {
    case GANIM_CHANNEL_ABSENT: memcpy(out, rest, comps * sizeof(float)); break;
    case GANIM_CHANNEL_CONSTANT: memcpy(out, ch->values, comps * sizeof(float)); break;
    case GANIM_CHANNEL_PER_FRAME:
        if (f < ch->count) {
            memcpy(out, ch->values + (size_t)f * comps, comps * sizeof(float));
            break;
        }
        /* fall through */
    default:
        ganim_channel_eval(ch, clip->frame_count, step, clip->rotation_interp, (int)comps, (double)f, rest, out);
        break;
    }
}

/* Points at `shell` on the three axes through transform x (q, t, s), into p[3][3]. */
static void shell_points(const float *x, double shell, double p[3][3])
{
    double qx = x[0], qy = x[1], qz = x[2], qw = x[3];
    double r[3][3] = {
        { 1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw) },
        { 2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw) },
        { 2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy) },
    };
    for (unsigned k = 0; k < 3; k++)
        for (unsigned i = 0; i < 3; i++) p[k][i] = r[i][k] * x[7 + k] * shell + x[4 + i];
}

/* Largest distance between the shell points of transforms a and b. */
static double local_error(const float *a, const float *b, double shell)
{
    double pa[3][3], pb[3][3], worst = 0;
    shell_points(a, shell, pa);
    shell_points(b, shell, pb);
    for (unsigned k = 0; k < 3; k++) {
        double dx = pa[k][0] - pb[k][0], dy = pa[k][1] - pb[k][1], dz = pa[k][2] - pb[k][2];
        double d = sqrt(dx * dx + dy * dy + dz * dz);
        if (d > worst) worst = d;
    }
    return worst;
}

/* Unknown hierarchy: the lever every rotation or scale change may act on, and the scales
 * that may multiply every error (lossy scales stay within the raw ones' range). */
static void flat_reach(acl_enc *e)
{
    double sum = 0, g = 1.0;
    for (uint32_t t = 0; t < e->nt; t++) {
        double tm = 0, sm = 0;
        for (uint32_t s = 0; s < e->ns; s++) {
            const float *x = enc_raw(e, s, t);
            double l = sqrt((double)x[4] * x[4] + (double)x[5] * x[5] + (double)x[6] * x[6]);
            if (l > tm) tm = l;
            for (unsigned c = 7; c < 10; c++)
                if (fabs(x[c]) > sm) sm = fabs(x[c]);
        }
        sum += tm;
        sm *= 1.0 + 1e-6; /* float rounding of a decoded scale */
        e->smax[t] = sm < 1e30 ? sm : 1e30;
        e->smax[e->nt + t] = tm;
        g *= sm > 1.0 ? sm : 1.0;
        if (g > 1e30) g = 1e30;
    }
    e->lever = e->p.shell + sum;
    e->gscale = g;
    /* What bone t's rotation or scale change may act on: the shell and every other bone's
     * largest translation, summed without t's (lever - t's length loses the others to
     * rounding when one translation is some 2^53 times theirs: the bound came out 0). */
    double before = 0, after = 0;
    for (uint32_t t = 0; t < e->nt; t++) {
        e->reach[t] = before;
        before += e->smax[e->nt + t];
    }
    for (uint32_t t = e->nt; t-- > 0;) {
        e->reach[t] = e->p.shell + (e->reach[t] + after);
        after += e->smax[e->nt + t];
    }
    e->share = e->target / (double)e->nt;
    /* Scales below 1 shrink what hangs below them. Then each bone's change d + r * lever_geo
     * (the lever through the depths' largest scale products) within target / (the sum of
     * those products) keeps any chain within the target, when that is looser than the
     * above: one rule for the whole clip. */
    double *sc = e->smax, lever = ref_acl_enc_depth_products(sc, e->nt, e->p.shell, sc + e->nt), depths = 0;
    for (uint32_t k = 0; k < e->nt; k++) depths += sc[k];
    if (lever * depths < e->lever * e->gscale * (double)e->nt * 0.999) {
        e->geo = 1;
        e->lever_geo = lever;
        e->share = e->target / depths;
    }
}

/* A bone's error as the search measures it: object space at its rigid shell, or with an
 * unknown hierarchy, the bound of acl_enc_flat_bound. */
static double held_error(const acl_enc *e, uint32_t t, const float *x, const float *y)
{
    return e->flat ? ref_acl_enc_flat_bound(e, t, x, y) : local_error(x, y, e->rigid[t]) * e->pscale[t];
}

/* Would sub-track (t, kind) taking value v at every sample keep the bone within the
 * precision at its rigid shell distance? */
static int fits_constant(const acl_enc *e, uint32_t t, unsigned kind, const float *v)
{
    static const unsigned at[3] = { 0, 4, 7 };
    unsigned n = kind == K_ROT ? 4u : 3u;
    /* unknown hierarchy: every bone has an equal share of the target */
    double limit = e->flat ? e->share : e->target;
    for (uint32_t s = 0; s < e->ns; s++) {
        const float *x = enc_raw(e, s, t);
        float y[10];
        memcpy(y, x, sizeof y);
        memcpy(y + at[kind], v, n * sizeof(float));
        if (!(held_error(e, t, x, y) <= limit)) return 0; /* a NaN bound refuses too */
    }
    return 1;
}

/* Largest local error (as fits_constant measures it) of sub-track (t, kind) held at its
 * constant or default value. */
static double constant_error(const acl_enc *e, uint32_t t, unsigned kind)
{
    static const unsigned at[3] = { 0, 4, 7 };
    const float *v = e->cval + ((size_t)t * 3u + kind) * 4u;
    double worst = 0;
    for (uint32_t s = 0; s < e->ns; s++) {
        const float *x = enc_raw(e, s, t);
        float y[10];
        memcpy(y, x, sizeof y);
        memcpy(y + at[kind], v, (kind == K_ROT ? 4u : 3u) * sizeof(float));
        double d = held_error(e, t, x, y);
        if (d > worst) worst = d;
    }
    return worst;
}

/* Constant and default sub-tracks each fit the precision alone, but along a chain their
 * errors add up and no bit width can take them back: when the encoded clip is off, the
 * held sub-track of the worst bone's chain that errs most becomes animated. Returns 1
 * when one did. */
static int promote_one(acl_enc *e, uint32_t worst)
{
    double most = -1;
    uint32_t bt = 0;
    unsigned bk = 0;
    for (int32_t c = (int32_t)worst; c >= 0; c = e->parent[c])
        for (unsigned k = 0; k < 3; k++) {
            if (e->type[3u * (uint32_t)c + k] == T_ANIM) continue;
            double d = constant_error(e, (uint32_t)c, k);
            if (d > most) {
                most = d;
                bt = (uint32_t)c;
                bk = k;
            }
        }
    if (most <= 0) return 0;
    e->type[3u * bt + bk] = T_ANIM;
    if (bk == K_SCALE) e->has_scale = 1;
    return 1;
}

/* The raw samples: every bone of the skeleton at every frame (rest pose where the clip
 * has no channel), rotations unit length with w >= 0 (the drop-W formats rebuild w >= 0). */
static void sample_clip(acl_enc *e, const ganim_doc *doc, const ganim_clip *clip, const uint32_t *track_of)
{
    const ganim_skeleton *sk = doc->skeleton;
    for (uint32_t f = 0; f < e->ns + (uint32_t)e->wrap; f++) {
        for (uint32_t b = 0; b < e->nt; b++) {
            const ganim_transform *rest = &sk->bones[b].rest;
            float rq[4] = { rest->rotation.x, rest->rotation.y, rest->rotation.z, rest->rotation.w };
            float rt[3] = { rest->translation.x, rest->translation.y, rest->translation.z };
            float rs[3] = { rest->scale.x, rest->scale.y, rest->scale.z };
            float *x = e->raw + ((size_t)f * e->nt + b) * 10u;
            memcpy(x, rq, sizeof rq);
            memcpy(x + 4, rt, sizeof rt);
            memcpy(x + 7, rs, sizeof rs);
            if (track_of[b] != UINT32_MAX) {
                const ganim_track *tr = &clip->tracks[track_of[b]];
                enc_channel_at(&tr->rotation, clip, tr->step, 4, f, rq, x);
                enc_channel_at(&tr->translation, clip, tr->step, 3, f, rt, x + 4);
                enc_channel_at(&tr->scale, clip, tr->step, 3, f, rs, x + 7);
            }
            double len = sqrt((double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2] + (double)x[3] * x[3]);
            if (!(len > 1e-12) || !finite_f((float)len)) {
                x[0] = x[1] = x[2] = 0.0f;
                x[3] = 1.0f;
            } else if (fabs(len - 1.0) > 1e-7) {
                for (unsigned c = 0; c < 4; c++) x[c] = (float)(x[c] / len);
            }
            if (x[3] < 0.0f)
                for (unsigned c = 0; c < 4; c++) x[c] = -x[c];
        }
    }
}

/* ACL buffers hold what the reader takes back: finite values, ranges that cannot
 * overflow float32 when applied (ACL_RANGE_MAX). A clip beyond them is refused. */
static ganim_code check_values(const acl_enc *e, ganim_error *err)
{
    static const float lim = ACL_RANGE_MAX / 4.0f;
    for (uint32_t s = 0; s < e->ns; s++)
        for (uint32_t t = 0; t < e->nt; t++) {
            const float *x = enc_raw(e, s, t);
            for (unsigned c = 4; c < 10; c++)
                if (!(x[c] >= -lim && x[c] <= lim))
                    return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                                      "acl: bone %u frame %u: %s %g is not a finite number within +-%g, which ACL "
                                      "buffers cannot hold",
                                      t, s, c < 7 ? "translation" : "scale", (double)x[c], (double)lim);
        }
    return GANIM_OK;
}

/* A loop: the last frame repeats the first bit for bit (ACL 2.1 then drops it). */
static int is_loop(const acl_enc *e, uint32_t frames)
{
    if (e->p.version < 8 || frames < 3) return 0;
    const float *a = e->raw, *b = e->raw + (size_t)(frames - 1) * e->nt * 10u;
    return memcmp(a, b, (size_t)e->nt * 10u * sizeof(float)) == 0;
}

/* How much the ancestors can shrink or grow an error made in the bone's own space: an
 * error there reaches object space multiplied by at most their largest scales. */
static void parent_scales(acl_enc *e)
{
    for (uint32_t t = 0; t < e->nt; t++) e->pscale[t] = 0.0f;
    for (uint32_t s = 0; s < e->ns; s++) {
        for (uint32_t t = 0; t < e->nt; t++) {
            int32_t p = e->parent[t];
            double f = 1.0;
            for (int32_t a = p; a >= 0; a = e->parent[a]) {
                const float *x = enc_raw(e, s, (uint32_t)a);
                double m = fabs(x[7]);
                if (fabs(x[8]) > m) m = fabs(x[8]);
                if (fabs(x[9]) > m) m = fabs(x[9]);
                f *= m;
            }
            if (f > 1e30) f = 1e30;
            if ((float)f > e->pscale[t]) e->pscale[t] = (float)f;
        }
    }
}

/* ACL's rigid shell: a bone's shell distance grows to hold its children's shell points,
 * so that an error a parent makes within the precision at that distance is one its
 * descendants can afford too (leaves first). */
static void rigid_shells(acl_enc *e)
{
    for (uint32_t t = 0; t < e->nt; t++) e->rigid[t] = e->p.shell;
    for (uint32_t t = e->nt; t-- > 0;) {
        int32_t p = e->parent[t];
        if (p < 0) continue;
        double reach = 0;
        for (uint32_t s = 0; s < e->ns; s++) {
            double pts[3][3];
            shell_points(enc_raw(e, s, t), e->rigid[t], pts);
            for (unsigned k = 0; k < 3; k++) {
                double d = sqrt(pts[k][0] * pts[k][0] + pts[k][1] * pts[k][1] + pts[k][2] * pts[k][2]);
                if (d > reach) reach = d;
            }
        }
        if (e->rigid[t] != e->p.shell) reach += e->p.precision;
        if (reach > e->rigid[p]) e->rigid[p] = (float)reach;
    }
}

/* Known hierarchy: which bones the metric can decide. local_error and the object pass
 * subtract shell points (absolute positions) of the input from those of the decoded
 * values; next to a translation of 6.2e16, where a double steps by 8, the shell's 3 units
 * vanish from both and any value "fits" (a scale of 0 read back as 1). For bone t, with T
 * and S its largest translation (per component, over the clip) and largest scale (1 at
 * least: the defaults are tried), both bounding every decoded value too (they stay within
 * the clip ranges), the metric handles at most:
 *   in its own space, (T + rigid shell * S) * the ancestors' scales (pscale);
 *   in object space, the chain's translations each times the scales above it, plus the
 *   shell times the chain's scales (A and P below, parents first).
 * Its rounding is a few ulps of that a level; where depth * that * ACL_ENC_RESOLUTION is
 * not within ACL_ENC_RESOLVE of the target, the bone and its ancestors (whose decoded
 * values move it) are kept exact. Every term is finite and non-negative (values within
 * ACL_RANGE_MAX, products held at 1e30): no overflow, no NaN. sc: nt * 6 scratch. */
static void exact_chains(acl_enc *e, double *sc)
{
    for (uint32_t t = 0; t < e->nt; t++) {
        double *b = sc + (size_t)t * 6u;
        b[0] = b[1] = b[2] = 0.0;
        b[3] = 1.0;
        for (uint32_t s = 0; s < e->ns; s++) {
            const float *x = enc_raw(e, s, t);
            for (unsigned c = 0; c < 3; c++) {
                if (fabs(x[4 + c]) > b[c]) b[c] = fabs(x[4 + c]);
                if (fabs(x[7 + c]) > b[3]) b[3] = fabs(x[7 + c]);
            }
        }
    }
    double limit = e->target * ACL_ENC_RESOLVE;
    e->any_exact = 0;
    for (uint32_t t = 0; t < e->nt; t++) { /* parents come before their children */
        double *b = sc + (size_t)t * 6u, tr = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]), s = b[3];
        int32_t p = e->parent[t];
        double pa = p < 0 ? 0.0 : sc[(size_t)p * 6u + 4u], ps = p < 0 ? 1.0 : sc[(size_t)p * 6u + 5u];
        double depth = p < 0 ? 1.0 : sc[(size_t)p * 6u] + 1.0; /* the parent's b[0], free by now */
        b[4] = fmin(pa + ps * tr, 1e30);
        b[5] = fmin(ps * s, 1e30);
        double rigid = fmin((double)e->rigid[t], 1e30), pscale = fmin((double)e->pscale[t], 1e30);
        double own = (tr + rigid * s) * pscale, object = b[4] + (double)e->p.shell * b[5];
        double most = own > object ? own : object;
        b[0] = depth;
        e->exact[t] = !(most * depth * ACL_ENC_RESOLUTION <= limit);
    }
    for (uint32_t t = e->nt; t-- > 0;)
        if (e->exact[t]) {
            e->any_exact = 1;
            if (e->parent[t] >= 0) e->exact[e->parent[t]] = 1;
        }
}

/* Does sub-track (t, kind) equal v at every sample (an exact bone's only constant)? */
static int equals_everywhere(const acl_enc *e, uint32_t t, unsigned kind, const float *v)
{
    static const unsigned at[3] = { 0, 4, 7 };
    unsigned n = kind == K_ROT ? 4u : 3u;
    for (uint32_t s = 0; s < e->ns; s++) {
        const float *x = enc_raw(e, s, t) + at[kind];
        for (unsigned c = 0; c < n; c++)
            if (x[c] != v[c]) return 0;
    }
    return 1;
}

/* Default, constant or animated, for every sub-track; the values the decoder rebuilds. */
static void classify(acl_enc *e)
{
    static const float dflt[3][4] = { { 0, 0, 0, 1 }, { 0, 0, 0, 0 }, { 1, 1, 1, 0 } };
    static const unsigned at[3] = { 0, 4, 7 };
    e->has_scale = 0;
    for (uint32_t t = 0; t < e->nt; t++) {
        for (unsigned k = 0; k < 3; k++) {
            float *cv = e->cval + ((size_t)t * 3u + k) * 4u;
            const float *x0 = enc_raw(e, 0, t) + at[k];
            float v[4] = { x0[0], x0[1], x0[2], k == K_ROT ? x0[3] : 0.0f };
            if (k == K_ROT) { /* stored as x, y, z (the decoder rebuilds w) or x, y, z, w */
                if (e->p.fmt[K_ROT] != 0) v[3] = rebuild_w(v[0], v[1], v[2]);
                quat_normalise(v);
            }
            uint8_t ty = T_ANIM;
            if (e->exact[t]) {
                if (equals_everywhere(e, t, k, dflt[k])) ty = T_DEFAULT;
                else if (equals_everywhere(e, t, k, v)) ty = T_CONST;
            } else if (fits_constant(e, t, k, dflt[k])) {
                ty = T_DEFAULT;
            } else if (fits_constant(e, t, k, v)) {
                ty = T_CONST;
            }
            e->type[3u * t + k] = ty;
            memcpy(cv, ty == T_DEFAULT ? dflt[k] : v, sizeof v);
            if (k == K_SCALE && ty != T_DEFAULT) e->has_scale = 1;
        }
    }
}

/* Clip range of every animated sub-track and the samples normalised into it. */
static void clip_ranges(acl_enc *e)
{
    static const unsigned at[3] = { 0, 4, 7 };
    for (uint32_t t = 0; t < e->nt; t++)
        for (unsigned k = 0; k < 3; k++) {
            if (e->type[3u * t + k] != T_ANIM) continue;
            float *mn = e->cmin + ((size_t)t * 3u + k) * 3u, *ex = e->cext + ((size_t)t * 3u + k) * 3u;
            for (unsigned c = 0; c < 3; c++) {
                float lo = INFINITY, hi = -INFINITY;
                for (uint32_t s = 0; s < e->ns; s++) {
                    float v = enc_raw(e, s, t)[at[k] + c];
                    if (v < lo) lo = v;
                    if (v > hi) hi = v;
                }
                mn[c] = lo;
                ex[c] = hi - lo;
                for (uint32_t s = 0; s < e->ns; s++) {
                    float v = enc_raw(e, s, t)[at[k] + c];
                    float n = ex[c] > 0.0f ? (v - lo) / ex[c] : 0.0f;
                    e->norm[((size_t)s * e->nt + t) * 9u + 3u * k + c] = n < 0.0f ? 0.0f : n > 1.0f ? 1.0f : n;
                }
            }
        }
}

/* ACL's split: segments of the ideal size, the short last one spread over the others
 * when they have room for it. */
static uint32_t split_segments(uint32_t ns, uint32_t *start)
{
    start[0] = 0;
    if (ns <= ACL_SEG_MAX) {
        start[1] = ns;
        return 1;
    }
    /* start[i + 1] holds the count of segment i until the sums below */
    uint32_t n = (ns + ACL_SEG_IDEAL - 1u) / ACL_SEG_IDEAL, last = ns - (n - 1u) * ACL_SEG_IDEAL;
    uint32_t *count = start + 1;
    for (uint32_t i = 0; i < n; i++) count[i] = ACL_SEG_IDEAL;
    count[n - 1u] = last;
    if ((n - 1u) * (ACL_SEG_MAX - ACL_SEG_IDEAL) >= last) {
        for (uint32_t i = 0; count[n - 1u] != 0; i = (i + 1u) % (n - 1u)) {
            count[i]++;
            count[n - 1u]--;
        }
        n--;
    }
    for (uint32_t i = 0; i < n; i++) start[i + 1u] += start[i];
    return n;
}

/* 8-bit segment ranges holding every normalised sample of the segment. */
static void segment_ranges(acl_enc *e)
{
    for (uint32_t g = 0; g < e->nseg && e->nseg > 1; g++)
        for (uint32_t t = 0; t < e->nt; t++)
            for (unsigned k = 0; k < 3; k++) {
                if (e->type[3u * t + k] != T_ANIM) continue;
                acl_sub *sub = enc_sub(e, g, t, k);
                for (unsigned c = 0; c < 3; c++) {
                    float lo = 1.0f, hi = 0.0f;
                    for (uint32_t s = e->seg_start[g]; s < e->seg_start[g + 1u]; s++) {
                        float v = enc_norm(e, s, t, k)[c];
                        if (v < lo) lo = v;
                        if (v > hi) hi = v;
                    }
                    int mn = (int)floorf(lo * 255.0f);
                    if (mn > 255) mn = 255;
                    if (mn < 0) mn = 0;
                    if ((float)mn * (1.0f / 255.0f) > lo && mn > 0) mn--;
                    float base = (float)mn * (1.0f / 255.0f);
                    int ex = (int)ceilf((hi - base) * 255.0f);
                    if (ex < 0) ex = 0;
                    if (ex > 255) ex = 255;
                    if (ex < 255 && (float)ex * (1.0f / 255.0f) + base < hi) ex++;
                    sub->smin[c] = (uint8_t)mn;
                    sub->sext[c] = (uint8_t)ex;
                    float mid = (lo + hi) * 0.5f * 65535.0f + 0.5f;
                    sub->cq[c] = (uint16_t)(mid < 0.0f ? 0.0f : mid > 65535.0f ? 65535.0f : mid);
                }
            }
}

static int ref_acl_hierarchy_unknown(const ganim_skeleton *sk)
{
    if (!sk || sk->bone_count < 2) return 0;
    for (uint32_t b = 0; b < sk->bone_count; b++)
        if (sk->bones[b].parent >= 0) return 0;
    return 1;
}

static ganim_code ref_acl_encode_doc(const ganim_doc *doc, const acl_enc_params *p, const ganim_allocator *alloc,
                                     ganim_buffer *out, ganim_error *err)
{
    const ganim_clip *clip = ganim_doc_first_animation(doc);
    if (!clip)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "acl: the document has no animation to write");
    const ganim_skeleton *sk = doc->skeleton;
    if (!sk || sk->bone_count == 0)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "acl: writing needs a skeleton (one ACL track per bone)");
    uint32_t frames = clip->frame_count, nt = sk->bone_count;
    if (frames == 0) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "acl: the clip has no frames");
    float rate = ganim_fps_f32(clip->fps);
    if (!((double)rate >= GANIM_MIN_FPS && (double)rate <= GANIM_MAX_FPS))
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "acl: a rate of %g fps cannot be written",
                          clip->fps);
    if (frames > GANIM_MAX_FRAMES || (uint64_t)frames * nt > GANIM_MAX_FRAME_SAMPLES)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "acl: %u frames of %u bones are above the library's limits", frames, nt);

    acl_enc e;
    memset(&e, 0, sizeof e);
    e.A = ganim_allocator_resolve(alloc);
    e.p = *p;
    e.target = (double)p->precision * ACL_ENC_MARGIN;
    e.nt = nt;
    e.rate = rate;
    size_t fs = (size_t)frames * nt;
    size_t sizes[16] = {
        nt * sizeof(uint32_t),
        nt * sizeof(int32_t),
        nt * sizeof(char *),
        fs * 10u * sizeof(float),
        fs * 9u * sizeof(float),
        (size_t)nt * 3u,
        (size_t)nt * 12u * sizeof(float),
        (size_t)nt * 9u * sizeof(float),
        (size_t)nt * 9u * sizeof(float),
        nt * sizeof(float),
        (frames / ACL_SEG_IDEAL + 3u) * sizeof(uint32_t),
        nt * sizeof(float),
        nt * sizeof(double),
        (size_t)nt * 2u * sizeof(double),
        nt,
        (size_t)nt * 6u * sizeof(double),
    };
    size_t offs[16], total = 0;
    for (unsigned i = 0; i < 16; i++) {
        offs[i] = total;
        total += (sizes[i] + 15u) & ~(size_t)15u;
    }
    uint8_t *blk = ganim_alloc(&e.A, total);
    if (!blk) return GANIM_NOMEM(err);
    memset(blk, 0, total);
    uint32_t *track_of = (uint32_t *)(blk + offs[0]);
    e.parent = (int32_t *)(blk + offs[1]);
    e.names = (const char **)(blk + offs[2]);
    e.raw = (float *)(blk + offs[3]);
    e.norm = (float *)(blk + offs[4]);
    e.type = blk + offs[5];
    e.cval = (float *)(blk + offs[6]);
    e.cmin = (float *)(blk + offs[7]);
    e.cext = (float *)(blk + offs[8]);
    e.rigid = (float *)(blk + offs[9]);
    e.seg_start = (uint32_t *)(blk + offs[10]);
    e.pscale = (float *)(blk + offs[11]);
    e.reach = (double *)(blk + offs[12]);
    e.smax = (double *)(blk + offs[13]);
    e.exact = blk + offs[14];

    e.flat = ref_acl_hierarchy_unknown(sk);
    for (uint32_t b = 0; b < nt; b++) {
        track_of[b] = UINT32_MAX;
        e.parent[b] = sk->bones[b].parent;
        e.names[b] = sk->bones[b].name;
    }
    for (uint32_t t = 0; t < clip->track_count; t++)
        if (clip->tracks[t].bone < nt && track_of[clip->tracks[t].bone] == UINT32_MAX)
            track_of[clip->tracks[t].bone] = t;
    e.list_name = sk->name && *sk->name ? sk->name : clip->name;

    e.ns = frames;
    sample_clip(&e, doc, clip, track_of);
    ganim_code rc = check_values(&e, err);
    if (rc) {
        ganim_free(&e.A, blk, total);
        return rc;
    }
    if (is_loop(&e, frames)) {
        e.wrap = 1;
        e.ns = frames - 1u;
    }
    parent_scales(&e);
    rigid_shells(&e);
    if (e.flat) flat_reach(&e);
    else exact_chains(&e, (double *)(blk + offs[15]));
    classify(&e);
    e.nseg = split_segments(e.ns, e.seg_start);

    size_t nsub = (size_t)e.nseg * nt * 3u;
    e.subs = ganim_alloc(&e.A, nsub * sizeof(acl_sub));
    if (!e.subs) rc = GANIM_NOMEM(err);
    if (rc == GANIM_OK) {
        for (uint32_t round = 0; rc == GANIM_OK; round++) {
            clip_ranges(&e);
            memset(e.subs, 0, nsub * sizeof(acl_sub));
            segment_ranges(&e);
            rc = ref_acl_enc_search(&e, err);
            uint32_t worst = 0;
            if (rc || round >= ACL_ENC_MAX_ROUNDS || ref_acl_enc_max_error(&e, &worst) <= e.target ||
                !promote_one(&e, worst))
                break;
        }
    }
    if (rc == GANIM_OK) {
        e.kept = ganim_alloc(&e.A, (size_t)e.nseg * sizeof(uint32_t));
        if (!e.kept) rc = GANIM_NOMEM(err);
    }
    if (rc == GANIM_OK) {
        ref_acl_enc_strip(&e);
        rc = acl_enc_emit(&e, out, err);
    }
    if (e.kept) ganim_free(&e.A, e.kept, (size_t)e.nseg * sizeof(uint32_t));
    if (e.subs) ganim_free(&e.A, e.subs, nsub * sizeof(acl_sub));
    ganim_free(&e.A, blk, total);
    return rc;
}

/* ---- src/formats/acl/acl_encode_rate.c at e0c9a69 ----------------------------------------- */

/* ---- what the decoder rebuilds -------------------------------------------------------- */

static const unsigned enc_at[3] = { 0, 4, 7 };

static uint32_t ref_acl_enc_quant(const acl_enc *e, uint32_t g, uint32_t t, unsigned kind, uint32_t s,
                                  const acl_sub *sub, unsigned c)
{
    float n = enc_norm(e, s, t, kind)[c];
    if (e->nseg > 1) {
        float smin = (float)sub->smin[c] * (1.0f / 255.0f), sext = (float)sub->sext[c] * (1.0f / 255.0f);
        n = sext > 0.0f ? (n - smin) / sext : 0.0f;
        n = n < 0.0f ? 0.0f : n > 1.0f ? 1.0f : n;
    }
    (void)g;
    float top = (float)((1u << sub->width) - 1u);
    return (uint32_t)(n * top + 0.5f);
}

static void ref_acl_enc_value(const acl_enc *e, uint32_t g, uint32_t t, unsigned kind, uint32_t s, const acl_sub *sub,
                              float o[4])
{
    size_t i = (size_t)t * 3u + kind;
    if (e->type[i] != T_ANIM) {
        memcpy(o, e->cval + i * 4u, 4 * sizeof(float));
        return;
    }
    const float *mn = e->cmin + i * 3u, *ex = e->cext + i * 3u;
    if (kind == K_ROT && e->p.fmt[K_ROT] == 0) { /* quatf_full: four floats */
        memcpy(o, enc_raw(e, s, t), 4 * sizeof(float));
        quat_normalise(o);
        return;
    }
    if (sub->width == ACL_ENC_RAW) {
        memcpy(o, enc_raw(e, s, t) + enc_at[kind], 3 * sizeof(float));
    } else if (sub->width == 0) {
        for (unsigned c = 0; c < 3; c++) {
            float v = (float)sub->cq[c] * (1.0f / 65535.0f);
            v = v * ex[c];
            o[c] = v + mn[c];
        }
    } else {
        float inv = 1.0f / (float)((1u << sub->width) - 1u);
        for (unsigned c = 0; c < 3; c++) {
            float v = (float)ref_acl_enc_quant(e, g, t, kind, s, sub, c) * inv;
            if (e->nseg > 1) {
                v = v * ((float)sub->sext[c] * (1.0f / 255.0f));
                v = v + (float)sub->smin[c] * (1.0f / 255.0f);
            }
            v = v * ex[c];
            o[c] = v + mn[c];
        }
    }
    if (kind == K_ROT) {
        o[3] = rebuild_w(o[0], o[1], o[2]);
        quat_normalise(o);
    } else {
        o[3] = 0.0f;
    }
}

/* ---- affine transforms and the error metric ---------------------------------------------- */

/* A transform as ACL's qvvf metric composes them: rotation, translation, scale (the
 * object-space scale is the product of the local ones, as rtm::qvv_mul makes it). */
typedef struct aff {
    double q[4], t[3], s[3];
} aff;

static aff aff_from(const float q[4], const float tr[3], const float sc[3])
{
    aff a;
    for (unsigned i = 0; i < 4; i++) a.q[i] = q[i];
    for (unsigned i = 0; i < 3; i++) {
        a.t[i] = tr[i];
        a.s[i] = sc[i];
    }
    return a;
}

/* v rotated by unit quaternion q */
static void rotate(const double q[4], const double v[3], double o[3])
{
    double c1[3] = { q[1] * v[2] - q[2] * v[1] + q[3] * v[0], q[2] * v[0] - q[0] * v[2] + q[3] * v[1],
                     q[0] * v[1] - q[1] * v[0] + q[3] * v[2] };
    o[0] = v[0] + 2.0 * (q[1] * c1[2] - q[2] * c1[1]);
    o[1] = v[1] + 2.0 * (q[2] * c1[0] - q[0] * c1[2]);
    o[2] = v[2] + 2.0 * (q[0] * c1[1] - q[1] * c1[0]);
}

/* parent then child: the child's transform carried into the parent's space */
static aff aff_mul(const aff *p, const aff *c)
{
    aff o;
    const double *a = c->q, *b = p->q; /* the child's rotation first, then the parent's */
    o.q[0] = b[3] * a[0] + b[0] * a[3] + b[1] * a[2] - b[2] * a[1];
    o.q[1] = b[3] * a[1] - b[0] * a[2] + b[1] * a[3] + b[2] * a[0];
    o.q[2] = b[3] * a[2] + b[0] * a[1] - b[1] * a[0] + b[2] * a[3];
    o.q[3] = b[3] * a[3] - b[0] * a[0] - b[1] * a[1] - b[2] * a[2];
    double ts[3] = { c->t[0] * p->s[0], c->t[1] * p->s[1], c->t[2] * p->s[2] };
    rotate(p->q, ts, o.t);
    for (unsigned i = 0; i < 3; i++) {
        o.t[i] += p->t[i];
        o.s[i] = c->s[i] * p->s[i];
    }
    return o;
}

/* The shell points of transform a: column k of its rotation matrix times shell * s[k],
 * plus its translation. */
static void shell_images(const aff *a, double shell, double p[3][3])
{
    double x = a->q[0], y = a->q[1], z = a->q[2], w = a->q[3];
    double c[3][3] = {
        { 1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w) },
        { 2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w) },
        { 2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y) },
    };
    for (unsigned k = 0; k < 3; k++) {
        double f = shell * a->s[k];
        for (unsigned i = 0; i < 3; i++) p[k][i] = c[k][i] * f + a->t[i];
    }
}

/* Largest distance between the images of the three shell points through a and the
 * points pb (shell_images of the other transform). */
static double pts_error(const aff *a, const double pb[3][3], double shell)
{
    double pa[3][3], worst = 0;
    shell_images(a, shell, pa);
    for (unsigned k = 0; k < 3; k++) {
        double dx = pa[k][0] - pb[k][0], dy = pa[k][1] - pb[k][1], dz = pa[k][2] - pb[k][2];
        double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > worst) worst = d2;
    }
    return sqrt(worst);
}

static aff raw_local(const acl_enc *e, uint32_t s, uint32_t t)
{
    const float *x = enc_raw(e, s, t);
    return aff_from(x, x + 4, x + 7);
}

/* Bone t's local transform at sample s as decoded with sub-tracks subs[0..2]. */
static aff lossy_local(const acl_enc *e, uint32_t g, uint32_t t, uint32_t s, const acl_sub *subs)
{
    float v[3][4];
    for (unsigned k = 0; k < 3; k++) ref_acl_enc_value(e, g, t, k, s, &subs[k], v[k]);
    return aff_from(v[0], v[1], v[2]);
}

/* ---- the search -------------------------------------------------------------------------- */

typedef struct seg_work {
    const acl_enc *e;
    uint32_t g, s0, n;
    aff *raw_obj, *loc, *obj; /* n * nt, sample-major */
    double (*raw_pts)[3][3];  /* n * nt: the shell points of raw_obj */
    double (*lpts)[3][3];     /* n: local_points */
    aff *suf;                 /* nt * n: chain_suffixes */
    uint32_t *path;           /* nt */
    uint8_t lo, hi;           /* narrowest and widest quantised width */
    /* The object pass's moves (acl_enc_level_steps: 1 at medium, 2 high, 3 highest): for
     * chain position d and c = 1..steps, the best way to raise bone path[d]'s widths by c
     * steps alone (bone_moves). */
    unsigned steps;
    uint8_t *mw;     /* nt * 3 * 3: the move's widths */
    double *merr;    /* nt * 3: bone t's error with that move alone (INFINITY: none) */
    unsigned *mcost; /* nt * 3: its bits per sample */
    aff *mloc;       /* nt * 3 * n (steps > 1): the bone's locals with the move, to combine */
    uint8_t *cnt;    /* nt: the steps a combination gives each chain position */
} seg_work;

static uint8_t next_width(const seg_work *w, uint8_t width)
{
    if (width == ACL_ENC_RAW) return ACL_ENC_RAW;
    if (width == 0) return w->lo;
    if (width >= w->hi) return ACL_ENC_RAW;
    return (uint8_t)(width + 1u);
}

static uint8_t prev_width(const seg_work *w, uint8_t width)
{
    if (width == ACL_ENC_RAW) return w->hi;
    if (width == 0) return 0;
    if (width <= w->lo) return w->e->nseg > 1 ? 0 : width;
    return (uint8_t)(width - 1u);
}

static unsigned width_cost(uint8_t from, uint8_t to) { return 3u * (enc_bits(to) - enc_bits(from)); }

/* Bone t's local error at its rigid shell with sub-tracks subs (others as they are);
 * stops early once above `stop`. Needs local_points. */
static double local_err(const seg_work *w, uint32_t t, const acl_sub *subs, double stop)
{
    const acl_enc *e = w->e;
    double worst = 0;
    for (uint32_t i = 0; i < w->n && worst <= stop; i++) {
        double d;
        if (e->flat) {
            float v[3][4], y[10];
            for (unsigned k = 0; k < 3; k++) ref_acl_enc_value(e, w->g, t, k, w->s0 + i, &subs[k], v[k]);
            memcpy(y, v[0], 4 * sizeof(float));
            memcpy(y + 4, v[1], 3 * sizeof(float));
            memcpy(y + 7, v[2], 3 * sizeof(float));
            d = ref_acl_enc_flat_bound(e, t, enc_raw(e, w->s0 + i, t), y);
        } else {
            aff l = lossy_local(e, w->g, t, w->s0 + i, subs);
            d = pts_error(&l, (const double(*)[3])w->lpts[i], e->rigid[t]) * e->pscale[t];
        }
        if (d > worst) worst = d;
    }
    return worst;
}

/* The shell points of bone t's raw locals at its rigid shell, for local_err. */
static void local_points(seg_work *w, uint32_t t)
{
    const acl_enc *e = w->e;
    for (uint32_t i = 0; i < w->n && !e->flat; i++) {
        aff r = raw_local(e, w->s0 + i, t);
        shell_images(&r, e->rigid[t], w->lpts[i]);
    }
}

/* First pass, bone by bone in its own space: the narrowest width of each sub-track with
 * the others exact, then one step at a time on the sub-track that helps most until the
 * three together fit. */
static void local_pass(seg_work *w, uint32_t t, double prec)
{
    const acl_enc *e = w->e;
    acl_sub *cur = enc_sub(e, w->g, t, 0);
    uint8_t first = e->nseg > 1 ? 0 : w->lo;
    if (e->exact[t]) { /* the metric cannot decide it: raw */
        for (unsigned k = 0; k < 3; k++)
            if (e->type[3u * t + k] == T_ANIM) cur[k].width = ACL_ENC_RAW;
        return;
    }
    local_points(w, t);
    for (unsigned k = 0; k < 3; k++) {
        if (e->type[3u * t + k] != T_ANIM) continue;
        if (!enc_variable(&e->p, k)) { /* a full format: raw floats, nothing to choose */
            cur[k].width = ACL_ENC_RAW;
            continue;
        }
        acl_sub trial[3];
        for (unsigned j = 0; j < 3; j++) {
            trial[j] = cur[j];
            trial[j].width = ACL_ENC_RAW;
        }
        /* the ladder first, 1..hi, raw: the error falls as the width grows, so a binary
         * search finds the narrowest that fits (0, constant in the segment, is tried
         * first on its own) */
        trial[k].width = 0;
        if (first == 0 && local_err(w, t, trial, prec) <= prec) {
            cur[k].width = 0;
            continue;
        }
        uint8_t lo = w->lo, hi = w->hi;
        trial[k].width = hi;
        if (local_err(w, t, trial, prec) > prec) {
            cur[k].width = ACL_ENC_RAW;
            continue;
        }
        while (lo < hi) {
            uint8_t mid = (uint8_t)((lo + hi) / 2u);
            trial[k].width = mid;
            if (local_err(w, t, trial, prec) <= prec) hi = mid;
            else lo = (uint8_t)(mid + 1u);
        }
        cur[k].width = hi;
    }
    for (;;) {
        double now = local_err(w, t, cur, INFINITY);
        if (now <= prec) break;
        int best = -1;
        double best_err = now;
        for (unsigned k = 0; k < 3; k++) {
            if (e->type[3u * t + k] != T_ANIM || cur[k].width == ACL_ENC_RAW) continue;
            uint8_t keep = cur[k].width;
            cur[k].width = next_width(w, keep);
            double d = local_err(w, t, cur, best < 0 ? INFINITY : best_err);
            cur[k].width = keep;
            if (best < 0 || d < best_err) {
                best = (int)k;
                best_err = d;
            }
        }
        if (best < 0) break;
        cur[best].width = next_width(w, cur[best].width);
    }
}

static void update_local(seg_work *w, uint32_t t)
{
    const acl_sub *subs = enc_sub(w->e, w->g, t, 0);
    for (uint32_t i = 0; i < w->n; i++) w->loc[(size_t)i * w->e->nt + t] = lossy_local(w->e, w->g, t, w->s0 + i, subs);
}

static void update_object(seg_work *w, uint32_t t)
{
    uint32_t nt = w->e->nt;
    int32_t p = w->e->parent[t];
    for (uint32_t i = 0; i < w->n; i++) {
        size_t at = (size_t)i * nt;
        w->obj[at + t] = p < 0 ? w->loc[at + t] : aff_mul(&w->obj[at + (uint32_t)p], &w->loc[at + t]);
    }
}

static double object_err(const seg_work *w, uint32_t t)
{
    double worst = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        size_t at = (size_t)i * w->e->nt + t;
        double d = pts_error(&w->obj[at], (const double(*)[3])w->raw_pts[at], w->e->p.shell);
        if (d > worst) worst = d;
    }
    return worst;
}

/* update_object and object_err <= target together: stops at the first sample off (the
 * caller then updates the bone again). */
static int object_within(seg_work *w, uint32_t t)
{
    uint32_t nt = w->e->nt;
    int32_t p = w->e->parent[t];
    for (uint32_t i = 0; i < w->n; i++) {
        size_t at = (size_t)i * nt;
        w->obj[at + t] = p < 0 ? w->loc[at + t] : aff_mul(&w->obj[at + (uint32_t)p], &w->loc[at + t]);
        if (pts_error(&w->obj[at + t], (const double(*)[3])w->raw_pts[at + t], w->e->p.shell) > w->e->target) return 0;
    }
    return 1;
}

/* The locals of the chain below path[d] composed, for every sample: suf[d] =
 * path[d-1] .. path[0] (= t). */
static void chain_suffixes(seg_work *w, uint32_t depth)
{
    uint32_t nt = w->e->nt;
    for (uint32_t d = 1; d < depth; d++)
        for (uint32_t i = 0; i < w->n; i++) {
            const aff *l = &w->loc[(size_t)i * nt + w->path[d - 1u]];
            w->suf[(size_t)d * w->n + i] = d == 1 ? *l : aff_mul(l, &w->suf[(size_t)(d - 1u) * w->n + i]);
        }
}

/* Bone t's object error if ancestor path[depth] took sub-tracks `subs`. Without scale
 * the chain below is one transform (chain_suffixes: the composition is associative
 * then); with scales (rtm's qvv product is not associative when they differ per axis)
 * the chain is composed bone by bone, as object_err measures it. */
static double chain_err(seg_work *w, uint32_t t, uint32_t depth, const acl_sub *subs, double stop)
{
    const acl_enc *e = w->e;
    uint32_t nt = e->nt, c = w->path[depth];
    int32_t p = e->parent[c];
    double worst = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        size_t at = (size_t)i * nt;
        aff l = lossy_local(e, w->g, c, w->s0 + i, subs);
        aff o = p < 0 ? l : aff_mul(&w->obj[at + (uint32_t)p], &l);
        if (depth > 0 && !e->has_scale) o = aff_mul(&o, &w->suf[(size_t)depth * w->n + i]);
        else
            for (uint32_t d = depth; d-- > 0;) o = aff_mul(&o, &w->loc[at + w->path[d]]);
        double err = pts_error(&o, (const double(*)[3])w->raw_pts[at + t], e->p.shell);
        if (err > worst) worst = err;
        if (worst > stop) break; /* it cannot win: the rest of the samples would not help */
    }
    return worst;
}

/* The best way to raise bone path[d]'s widths by c steps in all (c = 1..steps, spread over
 * its animated sub-tracks), judged by bone t's object error with only that bone changed
 * (the cheaper one on a tie): into mw, merr, mcost and, to combine moves of several bones,
 * mloc. */
static void bone_moves(seg_work *w, uint32_t t, uint32_t d)
{
    const acl_enc *e = w->e;
    uint32_t b = w->path[d];
    const acl_sub *cur = enc_sub(e, w->g, b, 0);
    unsigned S = w->steps, lim[3];
    for (unsigned c = 0; c < 3; c++) {
        w->merr[(size_t)d * 3u + c] = INFINITY;
        w->mcost[(size_t)d * 3u + c] = 0;
    }
    for (unsigned k = 0; k < 3; k++)
        lim[k] = e->type[3u * b + k] == T_ANIM && enc_variable(&e->p, k) && cur[k].width != ACL_ENC_RAW ? S : 0;
    for (unsigned a = 0; a <= lim[0]; a++)
        for (unsigned b2 = 0; b2 <= lim[1] && a + b2 <= S; b2++)
            for (unsigned c3 = 0; c3 <= lim[2] && a + b2 + c3 <= S; c3++) {
                unsigned inc[3] = { a, b2, c3 }, c = a + b2 + c3, cost = 0;
                if (c == 0) continue;
                acl_sub trial[3] = { cur[0], cur[1], cur[2] };
                int ok = 1;
                for (unsigned k = 0; k < 3; k++) {
                    for (unsigned j = 0; j < inc[k]; j++) {
                        if (trial[k].width == ACL_ENC_RAW) ok = 0; /* the same as fewer steps */
                        trial[k].width = next_width(w, trial[k].width);
                    }
                    cost += width_cost(cur[k].width, trial[k].width);
                }
                if (!ok) continue;
                size_t m = (size_t)d * 3u + c - 1u;
                double err = chain_err(w, t, d, trial, w->merr[m]);
                if (err < w->merr[m] || (err == w->merr[m] && cost < w->mcost[m])) {
                    w->merr[m] = err;
                    w->mcost[m] = cost;
                    for (unsigned k = 0; k < 3; k++) w->mw[m * 3u + k] = trial[k].width;
                }
            }
    for (unsigned c = 0; S > 1 && c < S; c++) {
        size_t m = (size_t)d * 3u + c;
        if (!(w->merr[m] < INFINITY)) continue;
        acl_sub trial[3] = { cur[0], cur[1], cur[2] };
        for (unsigned k = 0; k < 3; k++) trial[k].width = w->mw[m * 3u + k];
        for (uint32_t i = 0; i < w->n; i++) w->mloc[m * w->n + i] = lossy_local(e, w->g, b, w->s0 + i, trial);
    }
}

/* Bone t's object error with the moves cnt[d] (0: none) of bone_moves on the chain's
 * bones together; stops early once above `stop`. */
static double combo_err(seg_work *w, uint32_t t, uint32_t depth, double stop)
{
    const acl_enc *e = w->e;
    uint32_t top = 0, low = depth;
    for (uint32_t d = 0; d < depth; d++)
        if (w->cnt[d]) {
            top = d;
            if (low == depth) low = d;
        }
    if (low == depth) return INFINITY;                   /* no move */
    uint32_t until = !e->has_scale && low > 0 ? low : 0; /* below it: chain_suffixes */
    int32_t p = e->parent[w->path[top]];
    double worst = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        size_t at = (size_t)i * e->nt;
        const aff *l = &w->mloc[((size_t)top * 3u + w->cnt[top] - 1u) * w->n + i];
        aff o = p < 0 ? *l : aff_mul(&w->obj[at + (uint32_t)p], l);
        for (uint32_t d = top; d-- > until;) {
            l = w->cnt[d] ? &w->mloc[((size_t)d * 3u + w->cnt[d] - 1u) * w->n + i] : &w->loc[at + w->path[d]];
            o = aff_mul(&o, l);
        }
        if (until > 0) o = aff_mul(&o, &w->suf[(size_t)until * w->n + i]);
        double err = pts_error(&o, (const double(*)[3])w->raw_pts[at + t], e->p.shell);
        if (err > worst) worst = err;
        if (worst > stop) break;
    }
    return worst;
}

/* A candidate of the object pass: its error, its bits and what it does (cnt per chain
 * position). */
typedef struct move_pick {
    double err;
    unsigned cost;
    uint32_t d[3];
    uint8_t c[3];
} move_pick;

static void pick_consider(move_pick *best, move_pick *fit, double prec, double err, unsigned cost, const uint32_t *d,
                          const uint8_t *c)
{
    move_pick m = { err, cost, { d[0], d[1], d[2] }, { c[0], c[1], c[2] } };
    if (best->c[0] == 0 || err < best->err || (err == best->err && cost < best->cost)) *best = m;
    if (err <= prec && (fit->c[0] == 0 || cost < fit->cost || (cost == fit->cost && err < fit->err))) *fit = m;
}

/* Bone t's error with the moves cc[j] on chain positions dd[j] (j < n) together, weighed. */
static void try_combo(seg_work *w, uint32_t t, uint32_t depth, double prec, unsigned n, const uint32_t *dd,
                      const uint8_t *cc, move_pick *best, move_pick *fit)
{
    unsigned cost = 0;
    for (unsigned j = 0; j < n; j++) {
        size_t m = (size_t)dd[j] * 3u + cc[j] - 1u;
        if (!(w->merr[m] < INFINITY)) return;
        cost += w->mcost[m];
    }
    for (unsigned j = 0; j < n; j++) w->cnt[dd[j]] = cc[j];
    double err = combo_err(w, t, depth, best->err > prec ? best->err : prec);
    for (unsigned j = 0; j < n; j++) w->cnt[dd[j]] = 0;
    uint32_t d3[3] = { dd[0], dd[1], n > 2 ? dd[2] : 0 };
    uint8_t c3[3] = { cc[0], cc[1], n > 2 ? cc[2] : 0 };
    pick_consider(best, fit, prec, err, cost, d3, c3);
}

/* Moves of s steps in all spread over several bones of the chain (one bone taking all s
 * is bone_moves' own): 1 + 1 on every pair; 2 + 1 on every ordered pair and 1 + 1 + 1 on
 * every three bones, among the bone and its nearest ancestors (COMBO_BONES in all: the
 * combinations grow as the cube of the chain, and a chain longer than that is medium's
 * under ACL's automatic choice). */
#define COMBO_BONES 24u
static void combos(seg_work *w, uint32_t t, uint32_t depth, unsigned s, double prec, move_pick *best, move_pick *fit)
{
    uint32_t near = depth < COMBO_BONES ? depth : COMBO_BONES;
    for (uint32_t a = 0; a < near; a++)
        for (uint32_t b = 0; b < near; b++) {
            if (a == b) continue;
            if (s == 2) {
                if (b > a) continue;
                uint32_t dd[2] = { a, b };
                uint8_t cc[2] = { 1, 1 };
                try_combo(w, t, depth, prec, 2, dd, cc, best, fit);
                continue;
            }
            uint32_t dd[3] = { a, b, 0 };
            uint8_t cc[3] = { 2, 1, 1 };
            try_combo(w, t, depth, prec, 2, dd, cc, best, fit);
            if (b > a) continue;
            cc[0] = 1;
            for (dd[2] = 0; dd[2] < b; dd[2]++) try_combo(w, t, depth, prec, 3, dd, cc, best, fit);
        }
}

/* At most this many object passes per segment: the shared clips need up to 5 at highest. */
#define OBJECT_PASSES 16u

/* Second pass, in object space, parents first: while a bone is off by more than the
 * precision, raise the widths of the bone or of its ancestors. A move is one step on one
 * sub-track (medium), or up to two or three steps spread over the chain's bones and their
 * sub-tracks (high, highest: as ACL's permutations). The fewest steps that bring the bone
 * within the precision win (the cheapest in bits, then the lowest error); when none does,
 * the move that leaves its error lowest. Returns 1 when a width changed. */
static int object_pass(seg_work *w)
{
    const acl_enc *e = w->e;
    double prec = e->target;
    int changed = 0;
    for (uint32_t t = 0; t < e->nt; t++) {
        update_object(w, t);
        if (e->exact[t]) continue; /* raw with its ancestors: nothing to raise */
        double now = object_err(w, t);
        while (now > prec) {
            uint32_t depth = 0;
            for (int32_t c = (int32_t)t; c >= 0; c = e->parent[c]) w->path[depth++] = (uint32_t)c;
            if (!e->has_scale) chain_suffixes(w, depth);
            for (uint32_t d = 0; d < depth; d++) bone_moves(w, t, d);
            move_pick best = { INFINITY, 0, { 0, 0, 0 }, { 0, 0, 0 } }, fit = best;
            for (unsigned s = 1; s <= w->steps && fit.c[0] == 0; s++) {
                for (uint32_t d = 0; d < depth; d++) {
                    size_t m = (size_t)d * 3u + s - 1u;
                    uint32_t dd[3] = { d, 0, 0 };
                    uint8_t cc[3] = { (uint8_t)s, 0, 0 };
                    if (w->merr[m] < INFINITY) pick_consider(&best, &fit, prec, w->merr[m], w->mcost[m], dd, cc);
                }
                if (s > 1 && fit.c[0] == 0) combos(w, t, depth, s, prec, &best, &fit);
            }
            const move_pick *go = fit.c[0] ? &fit : &best;
            if (go->c[0] == 0) break;
            uint32_t first = t;
            for (unsigned j = 0; j < 3 && go->c[j]; j++) {
                uint32_t d = go->d[j], c = w->path[d];
                size_t m = (size_t)d * 3u + go->c[j] - 1u;
                acl_sub *sub = enc_sub(e, w->g, c, 0);
                for (unsigned k = 0; k < 3; k++) sub[k].width = w->mw[m * 3u + k];
                update_local(w, c);
                if (c < first) first = c;
            }
            for (uint32_t u = first; u <= t; u++) update_object(w, u);
            changed = 1;
            now = object_err(w, t);
        }
    }
    return changed;
}

/* Last, parents first: each animated sub-track narrows by one step while the bone and
 * every bone below it stay within the target. The raising overshoots (a step taken for a
 * child may make an ancestor's earlier step unneeded, and the steps are greedy); a parent
 * goes first, while its descendants still hold their wider widths. mark: nt scratch. */
static void narrow_pass(seg_work *w, uint8_t *mark)
{
    const acl_enc *e = w->e;
    uint32_t nt = e->nt;
    for (uint32_t t = 0; t < nt; t++) {
        acl_sub *cur = enc_sub(e, w->g, t, 0);
        for (unsigned k = 0; k < 3 && !e->exact[t]; k++) {
            if (e->type[3u * t + k] != T_ANIM || !enc_variable(&e->p, k)) continue;
            uint8_t keep = cur[k].width, lower = prev_width(w, keep);
            if (lower == keep) continue;
            cur[k].width = lower;
            update_local(w, t);
            int ok = 1;
            uint32_t u = t;
            for (; u < nt; u++) {
                mark[u] = u == t || (e->parent[u] >= (int32_t)t && mark[e->parent[u]]); /* below t */
                if (mark[u] && !object_within(w, u)) {
                    ok = 0;
                    break;
                }
            }
            if (ok) continue;
            cur[k].width = keep;
            update_local(w, t);
            for (uint32_t v = t; v <= u; v++)
                if (mark[v]) update_object(w, v);
        }
    }
}

static void raw_objects(seg_work *w)
{
    const acl_enc *e = w->e;
    for (uint32_t i = 0; i < w->n; i++) {
        size_t at = (size_t)i * e->nt;
        for (uint32_t t = 0; t < e->nt; t++) {
            aff l = raw_local(e, w->s0 + i, t);
            int32_t p = e->parent[t];
            w->raw_obj[at + t] = p < 0 ? l : aff_mul(&w->raw_obj[at + (uint32_t)p], &l);
            shell_images(&w->raw_obj[at + t], e->p.shell, w->raw_pts[at + t]);
        }
    }
}

/* ---- unknown hierarchy ------------------------------------------------------------------ */

static int desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static double ref_acl_enc_depth_products(double *sc, uint32_t n, double shell, double *tl)
{
    qsort(sc, n, sizeof(double), desc);
    double p = 1.0;
    for (uint32_t k = 0; k < n; k++) { /* depth k: the product of the k largest scales */
        double v = sc[k];
        sc[k] = p;
        p = p * v > 1e30 ? 1e30 : p * v;
    }
    qsort(sc, n, sizeof(double), desc);
    double lever = shell * sc[0];
    if (tl) {
        qsort(tl, n, sizeof(double), desc);
        for (uint32_t k = 0; k < n; k++) lever += sc[k] * tl[k];
    }
    return lever;
}

static void ref_acl_enc_flat_terms(const float *x, const float *y, double *r, double *d, double *sm)
{
    /* the chord 2 sin(a/2) of the rotation between x and y, from the vector part of
     * conj(x) y (the difference of dot products near 1 would lose it to rounding) */
    double nx = 0, ny = 0;
    for (unsigned c = 0; c < 4; c++) {
        nx += (double)x[c] * x[c];
        ny += (double)y[c] * y[c];
    }
    nx = nx > 0 ? 1.0 / sqrt(nx) : 0.0;
    ny = ny > 0 ? 1.0 / sqrt(ny) : 0.0;
    double xv[3] = { x[0] * nx, x[1] * nx, x[2] * nx }, yv[3] = { y[0] * ny, y[1] * ny, y[2] * ny };
    double xw = x[3] * nx, yw = y[3] * ny, vec2 = 0;
    double cr[3] = { xv[1] * yv[2] - xv[2] * yv[1], xv[2] * yv[0] - xv[0] * yv[2], xv[0] * yv[1] - xv[1] * yv[0] };
    for (unsigned c = 0; c < 3; c++) {
        double v = xw * yv[c] - yw * xv[c] - cr[c];
        vec2 += v * v;
    }
    double chord = 2.0 * sqrt(vec2 < 1.0 ? vec2 : 1.0), dt = 0, smax = 0, ds = 0;
    for (unsigned c = 0; c < 3; c++) {
        double dd = (double)x[4 + c] - y[4 + c];
        dt += dd * dd;
        double a = fabs(x[7 + c]), b = fabs(y[7 + c]);
        if (a > smax) smax = a;
        if (b > smax) smax = b;
        if (fabs((double)x[7 + c] - y[7 + c]) > ds) ds = fabs((double)x[7 + c] - y[7 + c]);
    }
    *r = chord * smax + ds;
    *d = sqrt(dt);
    *sm = smax;
}

static double ref_acl_enc_flat_bound(const acl_enc *e, uint32_t t, const float *x, const float *y)
{
    /* In any chain, ACL's object shell point is the sum over the chain's bones b of their
     * translation rotated and scaled by everything above b, plus the shell point carried
     * by the whole chain (rtm's qvv product). Changing bone t's local transform moves it
     * by at most: its translation change, plus its rotation change (the chord 2 sin(a/2))
     * times its scale and its scale change, both applied to what is below it (at most
     * the shell plus every other bone's largest translation), everything times the
     * largest scales the other bones can apply. Summed over the chain's bones, this
     * bounds the error whatever the order. */
    double r, d, sm;
    ref_acl_enc_flat_terms(x, y, &r, &d, &sm);
    if (e->geo) return d + r * e->lever_geo;
    return e->gscale * (d + r * e->reach[t]);
}

/* Per sample and bone, what bone t's decoded local adds in any chain (acl_enc_flat_bound
 * split): r, its rotation and scale change per unit of what hangs below it; d, its
 * translation change; tl, its own raw translation length (what it adds below others); sm,
 * its largest scale (raw or decoded) or 1 (what it multiplies the others' changes by). */
typedef struct flat_work {
    double *r, *d, *tl, *sm; /* n * nt, sample-major */
    double *rr, *dd;         /* nt: r and d times the other bones' scales, at one sample */
    double *tt, *pp;         /* nt: the geometric bound's terms and scale products */
    uint32_t *order;         /* n * nt: the worst chain at each sample, top first */
} flat_work;

static double *flat_alloc(const seg_work *w, flat_work *f, size_t *size)
{
    size_t per = (size_t)w->n * w->e->nt, nt = w->e->nt;
    *size = (4u * per + 4u * nt) * sizeof(double) + per * sizeof(uint32_t);
    ganim_allocator A = w->e->A;
    double *blk = ganim_alloc(&A, *size);
    if (!blk) return NULL;
    f->r = blk;
    f->d = blk + per;
    f->tl = blk + 2u * per;
    f->sm = blk + 3u * per;
    f->rr = blk + 4u * per;
    f->dd = f->rr + nt;
    f->tt = f->dd + nt;
    f->pp = f->tt + nt;
    f->order = (uint32_t *)(f->pp + nt);
    for (size_t i = 0; i < per; i++) f->order[i] = (uint32_t)(i % nt);
    return blk;
}

static void flat_terms(const seg_work *w, flat_work *f, uint32_t t, const acl_sub *subs)
{
    const acl_enc *e = w->e;
    for (uint32_t i = 0; i < w->n; i++) {
        const float *x = enc_raw(e, w->s0 + i, t);
        float v[3][4];
        for (unsigned k = 0; k < 3; k++) ref_acl_enc_value(e, w->g, t, k, w->s0 + i, &subs[k], v[k]);
        float y[10];
        memcpy(y, v[0], 4 * sizeof(float));
        memcpy(y + 4, v[1], 3 * sizeof(float));
        memcpy(y + 7, v[2], 3 * sizeof(float));
        size_t at = (size_t)i * e->nt + t;
        ref_acl_enc_flat_terms(x, y, &f->r[at], &f->d[at], &f->sm[at]);
        double tl = (double)x[4] * x[4] + (double)x[5] * x[5] + (double)x[6] * x[6];
        f->tl[at] = sqrt(tl);
    }
}

/* A second bound at sample i, for scales below 1 (they shrink what hangs below them): a
 * bone at depth k is scaled by its k ancestors, at most the product of the k largest scales
 * of all the bones (acl_enc_depth_products); its own change is at most d + r times that
 * lever. The largest sum pairs the largest terms with the largest products. */
static double flat_shrinking(const seg_work *w, flat_work *f, uint32_t i)
{
    uint32_t nt = w->e->nt;
    const double *sm = f->sm + (size_t)i * nt;
    memcpy(f->pp, sm, nt * sizeof(double));
    memcpy(f->tt, f->tl + (size_t)i * nt, nt * sizeof(double));
    double lever = ref_acl_enc_depth_products(f->pp, nt, w->e->p.shell, f->tt);
    for (uint32_t a = 0; a < nt; a++) f->tt[a] = f->d[(size_t)i * nt + a] + f->r[(size_t)i * nt + a] * lever;
    qsort(f->tt, nt, sizeof(double), desc);
    double sum = 0;
    for (uint32_t k = 0; k < nt; k++) sum += f->tt[k] * f->pp[k];
    return sum;
}

/* The bound at sample i for the worst chain of all the bones: each bone's translation
 * change and its rotation/scale change at the shell, plus r_a * t_b for every a above b.
 * The order that makes the sum largest puts a above b when r_a t_b >= r_b t_a (swapping
 * two neighbours changes nothing else), so the bones are kept sorted that way. */
static double flat_sample(const seg_work *w, flat_work *f, uint32_t i)
{
    const acl_enc *e = w->e;
    uint32_t nt = e->nt, *o = f->order + (size_t)i * nt;
    const double *tl = f->tl + (size_t)i * nt, *sm = f->sm + (size_t)i * nt;
    double *r = f->rr, *d = f->dd, g = 1.0, least = INFINITY;
    for (uint32_t a = 0; a < nt; a++) {
        double m = sm[a] > 1.0 ? sm[a] : 1.0;
        g = g * m > 1e30 ? 1e30 : g * m;
        if (sm[a] < least) least = sm[a];
    }
    for (uint32_t a = 0; a < nt; a++) { /* the scales of every other bone */
        double m = sm[a] > 1.0 ? sm[a] : 1.0;
        r[a] = f->r[(size_t)i * nt + a] * (g / m);
        d[a] = f->d[(size_t)i * nt + a] * (g / m);
    }
    for (uint32_t j = 1; j < nt; j++) { /* insertion sort: nearly sorted from the last call */
        uint32_t v = o[j], k = j;
        for (; k > 0 && r[v] * tl[o[k - 1u]] > r[o[k - 1u]] * tl[v]; k--) o[k] = o[k - 1u];
        o[k] = v;
    }
    double sum = 0, below = 0;
    for (uint32_t j = nt; j-- > 0;) {
        uint32_t a = o[j];
        sum += d[a] + r[a] * (e->p.shell + below);
        below += tl[a];
    }
    return least < 0.999 ? fmin(sum, flat_shrinking(w, f, i)) : sum;
}

static double flat_total(const seg_work *w, flat_work *f)
{
    double worst = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        double v = flat_sample(w, f, i);
        if (v > worst) worst = v;
    }
    return worst;
}

static int has_anim(const acl_enc *e, uint32_t t)
{
    return e->type[3u * t] == T_ANIM || e->type[3u * t + 1u] == T_ANIM || e->type[3u * t + 2u] == T_ANIM;
}

/* Unknown hierarchy, one segment. Every bone first gets an equal share of the target (the
 * sum of acl_enc_flat_bound over all the bones bounds any chain, less under scales below 1:
 * flat_reach); then, round after round,
 * every sub-track in turn narrows by one step while the exact worst chain of all the bones
 * stays within the target. */
static ganim_code flat_search(seg_work *w, ganim_error *err)
{
    const acl_enc *e = w->e;
    uint32_t nt = e->nt;
    double share = e->share;
    for (uint32_t t = 0; t < nt; t++)
        if (has_anim(e, t)) local_pass(w, t, share);
    flat_work f;
    size_t size;
    double *blk = flat_alloc(w, &f, &size);
    if (!blk) return GANIM_NOMEM(err);
    ganim_allocator A = e->A;
    for (uint32_t t = 0; t < nt; t++) flat_terms(w, &f, t, enc_sub(e, w->g, t, 0));
    /* each round costs about 3 n nt^2 steps: at most 32 rounds, none on skeletons so large
     * that one would take seconds (the equal shares are already within the target) */
    int changed = (double)nt * (double)nt * (double)w->n <= ACL_ENC_FLAT_WORK;
    for (unsigned round = 0; changed && round < 32; round++) {
        changed = 0;
        for (uint32_t t = 0; t < nt; t++)
            for (unsigned k = 0; k < 3; k++) {
                acl_sub *cur = enc_sub(e, w->g, t, 0);
                if (e->type[3u * t + k] != T_ANIM || !enc_variable(&e->p, k)) continue;
                uint8_t keep = cur[k].width, lower = prev_width(w, keep);
                if (lower == keep) continue;
                cur[k].width = lower;
                flat_terms(w, &f, t, cur);
                if (flat_total(w, &f) <= e->target) {
                    changed = 1;
                    continue;
                }
                cur[k].width = keep;
                flat_terms(w, &f, t, cur);
            }
    }
    ganim_free(&A, blk, size);
    return GANIM_OK;
}

/* Unknown hierarchy: the worst chain's bound over the clip. */
static double flat_max_error(seg_work *w, uint32_t *track, ganim_error *err)
{
    const acl_enc *e = w->e;
    flat_work f;
    size_t size;
    double *blk = flat_alloc(w, &f, &size);
    if (!blk) {
        (void)GANIM_NOMEM(err);
        return INFINITY;
    }
    ganim_allocator A = e->A;
    double worst = 0, most = -1;
    for (uint32_t t = 0; t < e->nt; t++) {
        flat_terms(w, &f, t, enc_sub(e, w->g, t, 0));
        for (uint32_t i = 0; i < w->n; i++) {
            size_t at = (size_t)i * e->nt + t;
            double v = f.r[at] * e->reach[t] + f.d[at];
            if (v > most && track) {
                most = v;
                *track = t;
            }
        }
    }
    worst = flat_total(w, &f);
    ganim_free(&A, blk, size);
    return worst;
}

/* How many width steps one move of the object pass may spread over a chain: 1 at medium,
 * 2 at high, 3 at highest; automatic picks as ACL 2.1 does: medium for clips of more than
 * 500 frames, else highest when the longest chain of bones is shorter than 18, high when
 * shorter than 25, medium otherwise. depth: nt scratch. */
static unsigned level_steps(const acl_enc *e, uint32_t *depth)
{
    if (e->p.level == ACL_LEVEL_HIGH) return 2;
    if (e->p.level == ACL_LEVEL_HIGHEST) return 3;
    if (e->p.level != ACL_LEVEL_AUTOMATIC || e->ns + (uint32_t)e->wrap > 500u) return 1;
    uint32_t longest = 0;
    for (uint32_t t = 0; t < e->nt; t++) { /* parents come before their children */
        depth[t] = e->parent[t] < 0 ? 1u : depth[e->parent[t]] + 1u;
        if (depth[t] > longest) longest = depth[t];
    }
    return longest < 18u ? 3 : longest < 25u ? 2 : 1;
}

/* Scratch for one segment at a time; steps > 0: room for the object pass's moves of that
 * many steps. */
static ganim_code work_alloc(const acl_enc *e, seg_work *w, void **blk, size_t *size, unsigned steps, ganim_error *err)
{
    uint32_t most = 0;
    for (uint32_t g = 0; g < e->nseg; g++)
        if (e->seg_start[g + 1u] - e->seg_start[g] > most) most = e->seg_start[g + 1u] - e->seg_start[g];
    size_t per = (size_t)most * e->nt, nt = e->nt;
    /* affs, then doubles, then 4-byte words, then bytes: each part aligned */
    size_t naff = 4u * per + (steps > 1 ? 3u * per : 0u), ndbl = 9u * (per + most) + (steps ? 3u * nt : 0u);
    *size = naff * sizeof(aff) + ndbl * sizeof(double) + nt * sizeof(uint32_t);
    if (steps) *size += nt * 3u * (sizeof(unsigned) + 3u) + nt;
    ganim_allocator A = e->A;
    *blk = ganim_alloc(&A, *size);
    if (!*blk) return GANIM_NOMEM(err);
    aff *a = *blk;
    double *dbl = (double *)(void *)(a + naff);
    memset(w, 0, sizeof *w);
    w->e = e;
    w->raw_obj = a;
    w->loc = a + per;
    w->obj = a + 2u * per;
    w->suf = a + 3u * per;
    w->raw_pts = (double(*)[3][3])(void *)dbl;
    w->lpts = w->raw_pts + per;
    w->path = (uint32_t *)(void *)(dbl + ndbl);
    w->lo = e->p.version < 8 ? ACL_ENC_MIN_WIDTH7 : 1u;
    w->hi = e->p.version < 8 ? ACL_ENC_MAX_WIDTH7 : ACL_ENC_MAX_WIDTH;
    w->steps = steps ? steps : 1;
    if (steps) {
        w->mloc = steps > 1 ? a + 4u * per : NULL;
        w->merr = dbl + 9u * (per + most);
        w->mcost = (unsigned *)(void *)(w->path + nt);
        w->mw = (uint8_t *)(void *)(w->mcost + nt * 3u);
        w->cnt = w->mw + nt * 9u;
        memset(w->cnt, 0, nt);
    }
    return GANIM_OK;
}

static void work_segment(seg_work *w, uint32_t g)
{
    w->g = g;
    w->s0 = w->e->seg_start[g];
    w->n = w->e->seg_start[g + 1u] - w->s0;
}

static ganim_code ref_acl_enc_search(acl_enc *e, ganim_error *err)
{
    seg_work w;
    void *blk;
    size_t size;
    ganim_allocator A = e->A;
    unsigned steps = 1; /* an unknown hierarchy has no object pass */
    if (e->flat) {
    } else if (e->p.level == ACL_LEVEL_AUTOMATIC && e->nt) {
        uint32_t *depth = ganim_alloc(&A, (size_t)e->nt * sizeof(uint32_t));
        if (!depth) return GANIM_NOMEM(err);
        steps = level_steps(e, depth);
        ganim_free(&A, depth, (size_t)e->nt * sizeof(uint32_t));
    } else {
        steps = level_steps(e, NULL);
    }
    ganim_code rc = work_alloc(e, &w, &blk, &size, steps, err);
    if (rc) return rc;
    for (uint32_t g = 0; g < e->nseg; g++) {
        work_segment(&w, g);
        raw_objects(&w);
        if (e->flat) {
            rc = flat_search(&w, err);
            if (rc) break;
            continue;
        }
        for (uint32_t t = 0; t < e->nt; t++) {
            local_pass(&w, t, e->target);
            update_local(&w, t);
        }
        /* a move for one bone may raise an ancestor that others share and push one of them
         * out again: passes until nothing changes (widths only grow: it ends) */
        for (unsigned pass = 0; pass < OBJECT_PASSES && object_pass(&w); pass++) {}
        narrow_pass(&w, w.cnt);
        /* narrow_pass marked bones in cnt; combo_err reads it by chain position, all 0 but
         * the combination tried: cleared for the next segment's object pass (added to e0c9a69's code after the twenty-seventh session: the fix is compared as the encoder's own) */
        memset(w.cnt, 0, e->nt);
    }
    ganim_free(&A, blk, size);
    return rc;
}

static double ref_acl_enc_max_error(const acl_enc *e, uint32_t *track)
{
    seg_work w;
    void *blk;
    size_t size;
    if (work_alloc(e, &w, &blk, &size, 0, NULL)) return INFINITY;
    double worst = 0;
    for (uint32_t g = 0; g < e->nseg && e->flat; g++) {
        work_segment(&w, g);
        uint32_t at = 0;
        double d = flat_max_error(&w, &at, NULL);
        if (d > worst) {
            worst = d;
            if (track) *track = at;
        }
    }
    for (uint32_t g = 0; g < e->nseg && !e->flat; g++) {
        work_segment(&w, g);
        raw_objects(&w);
        for (uint32_t t = 0; t < e->nt; t++) {
            update_local(&w, t);
            update_object(&w, t);
            if (e->exact[t]) continue; /* as exact as the format holds: not measurable */
            double d = object_err(&w, t);
            if (d > worst) {
                worst = d;
                if (track) *track = t;
            }
        }
    }
    ganim_allocator A = e->A;
    ganim_free(&A, blk, size);
    return worst;
}

/* ---- trivial key-frame stripping ---------------------------------------------------------- */

/* Bone t's local at segment sample i when only samples a < i < b around it are stored: the
 * decoder's interpolation of the two (rotations by the shorter way, then normalised), as
 * rotation xyzw, translation, scale in y[10]. */
static void between_local(const seg_work *w, uint32_t t, uint32_t a, uint32_t b, uint32_t i, float y[10])
{
    const acl_enc *e = w->e;
    const acl_sub *subs = enc_sub(e, w->g, t, 0);
    float alpha = (float)(i - a) / (float)(b - a), v[3][4], u[3][4];
    for (unsigned k = 0; k < 3; k++) {
        ref_acl_enc_value(e, w->g, t, k, w->s0 + a, &subs[k], v[k]);
        ref_acl_enc_value(e, w->g, t, k, w->s0 + b, &subs[k], u[k]);
    }
    float dot = (v[0][0] * u[0][0] + v[0][2] * u[0][2]) + (v[0][1] * u[0][1] + v[0][3] * u[0][3]);
    for (unsigned c = 0; c < 4; c++) {
        float q = dot < 0.0f ? -u[0][c] : u[0][c];
        y[c] = (v[0][c] - v[0][c] * alpha) + q * alpha;
    }
    quat_normalise(y);
    for (unsigned k = 1; k < 3; k++)
        for (unsigned c = 0; c < 3; c++) y[4u + 3u * (k - 1u) + c] = (u[k][c] - v[k][c]) * alpha + v[k][c];
}

/* The largest object-space error of any bone at the samples strictly between stored
 * samples a and b, each rebuilt by interpolating a and b: through the hierarchy, or
 * (unknown hierarchy) the bound of the worst chain of all the bones (flat_sample). */
static double span_error(seg_work *w, flat_work *f, uint32_t a, uint32_t b)
{
    const acl_enc *e = w->e;
    double worst = 0;
    for (uint32_t i = a + 1u; i < b; i++) {
        size_t at = (size_t)i * e->nt;
        for (uint32_t t = 0; t < e->nt; t++) {
            float y[10];
            between_local(w, t, a, b, i, y);
            if (f) {
                const float *x = enc_raw(e, w->s0 + i, t);
                ref_acl_enc_flat_terms(x, y, &f->r[at + t], &f->d[at + t], &f->sm[at + t]);
                f->tl[at + t] = sqrt((double)x[4] * x[4] + (double)x[5] * x[5] + (double)x[6] * x[6]);
                continue;
            }
            int32_t p = e->parent[t];
            aff l = aff_from(y, y + 4, y + 7);
            w->obj[t] = p < 0 ? l : aff_mul(&w->obj[(uint32_t)p], &l);
            double d = pts_error(&w->obj[t], (const double(*)[3])w->raw_pts[at + t], e->p.shell);
            if (d > worst) worst = d;
        }
        if (f) {
            double d = flat_sample(w, f, i);
            if (d > worst) worst = d;
        }
    }
    return worst;
}

/* ACL's order of removal in one segment: each step drops the inner stored sample whose
 * removal costs the least error; it stops before the first one above the target. */
static uint32_t strip_segment(seg_work *w, flat_work *f)
{
    uint32_t n = w->n, kept = n >= 32u ? ACL_NONE : ~(ACL_NONE >> n);
    for (uint32_t step = 2; step < n; step++) {
        double best = INFINITY;
        uint32_t pick = 0;
        for (uint32_t c = 1; c + 1u < n; c++) {
            if (!(kept & (0x80000000u >> c))) continue;
            uint32_t a = c - 1u, b = c + 1u;
            while (a > 0 && !(kept & (0x80000000u >> a))) a--; /* the first and last stay stored */
            while (b + 1u < n && !(kept & (0x80000000u >> b))) b++;
            double d = span_error(w, f, a, b);
            if (d < best) {
                best = d;
                pick = c;
            }
        }
        if (!pick || !(best <= w->e->target)) break;
        kept &= ~(0x80000000u >> pick);
    }
    return kept;
}

/* Bits one stored sample of segment g takes. */
static uint32_t segment_pose_bits(const acl_enc *e, uint32_t g)
{
    uint32_t bits = 0;
    for (uint32_t t = 0; t < e->nt; t++)
        for (unsigned k = 0; k < 3; k++) {
            if (e->type[3u * t + k] != T_ANIM) continue;
            bits += k == K_ROT && e->p.fmt[K_ROT] == 0 ? 128u : 3u * enc_bits(enc_sub(e, g, t, k)->width);
        }
    return bits;
}

static void ref_acl_enc_strip(acl_enc *e)
{
    e->stripped = 0;
    for (uint32_t g = 0; g < e->nseg; g++) {
        uint32_t n = e->seg_start[g + 1u] - e->seg_start[g];
        e->kept[g] = n >= 32u ? ACL_NONE : ~(ACL_NONE >> n);
        if (n > 32u) return; /* a stripped segment describes at most 32 samples */
    }
    /* an exact bone keeps every sample (its error cannot be measured) */
    if (e->p.version < 10 || e->nt == 0 || e->any_exact) return;
    seg_work w;
    void *blk;
    size_t size;
    if (work_alloc(e, &w, &blk, &size, 0, NULL)) return; /* out of memory: keep every sample */
    uint64_t saved = 0;
    for (uint32_t g = 0; g < e->nseg; g++) {
        work_segment(&w, g);
        if (w.n < 3u || segment_pose_bits(e, g) == 0) continue;
        uint32_t full = e->kept[g];
        if (e->flat) {
            /* as the narrowing: none on skeletons so large that it would take seconds */
            if ((double)e->nt * (double)e->nt * (double)w.n > ACL_ENC_FLAT_WORK) continue;
            flat_work f;
            size_t fsize;
            double *fblk = flat_alloc(&w, &f, &fsize);
            if (!fblk) continue;
            e->kept[g] = strip_segment(&w, &f);
            ganim_allocator FA = e->A;
            ganim_free(&FA, fblk, fsize);
        } else {
            raw_objects(&w);
            e->kept[g] = strip_segment(&w, NULL);
        }
        saved += (uint64_t)(popcount32(full) - popcount32(e->kept[g])) * segment_pose_bits(e, g);
    }
    ganim_allocator A = e->A;
    ganim_free(&A, blk, size);
    /* as ACL: only when the bytes saved exceed the 4 more each segment header takes */
    e->stripped = saved / 8u > 4u * (uint64_t)e->nseg;
    if (!e->stripped)
        for (uint32_t g = 0; g < e->nseg; g++) {
            uint32_t n = e->seg_start[g + 1u] - e->seg_start[g];
            e->kept[g] = n >= 32u ? ACL_NONE : ~(ACL_NONE >> n);
        }
}

#endif
