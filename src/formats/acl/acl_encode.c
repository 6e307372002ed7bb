/* ACL encoder, first half: the clip's samples at every frame, the loop test, constant and
 * default sub-tracks (judged by the error metric, not by thresholds), clip ranges,
 * segments and their 8-bit ranges. acl_encode_rate.c then picks the bit widths and
 * acl_encode_emit.c writes the bytes. */
#include <stdlib.h>

#include "formats/acl/acl_encode.h"

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
    double *sc = e->smax, lever = acl_enc_depth_products(sc, e->nt, e->p.shell, sc + e->nt), depths = 0;
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
    return e->flat ? acl_enc_flat_bound(e, t, x, y) : local_error(x, y, e->rigid[t]) * e->pscale[t];
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
        /* known hierarchy, v the sample's own bits: y is x, and local_error of a transform
         * with itself is 0 (the same points; x - x is 0 or NaN, and a NaN distance is never
         * the largest), times pscale (finite: at most 1e30) 0, within the limit (above 0) */
        if (!e->flat && !memcmp(x + at[kind], v, n * sizeof(float))) continue;
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
    e->search_known = 0; /* the search measured the types before this one */
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

int acl_hierarchy_unknown(const ganim_skeleton *sk)
{
    if (!sk || sk->bone_count < 2) return 0;
    for (uint32_t b = 0; b < sk->bone_count; b++)
        if (sk->bones[b].parent >= 0) return 0;
    return 1;
}

ganim_code acl_encode_doc(const ganim_doc *doc, const acl_enc_params *p, const ganim_allocator *alloc,
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

    e.flat = acl_hierarchy_unknown(sk);
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
            rc = acl_enc_search(&e, err);
            uint32_t worst = 0;
            if (rc || round >= ACL_ENC_MAX_ROUNDS || acl_enc_max_error(&e, &worst) <= e.target ||
                !promote_one(&e, worst))
                break;
        }
    }
    if (rc == GANIM_OK) {
        e.kept = ganim_alloc(&e.A, (size_t)e.nseg * sizeof(uint32_t));
        if (!e.kept) rc = GANIM_NOMEM(err);
    }
    if (rc == GANIM_OK) {
        acl_enc_strip(&e);
        rc = acl_enc_emit(&e, out, err);
    }
    if (e.kept) ganim_free(&e.A, e.kept, (size_t)e.nseg * sizeof(uint32_t));
    if (e.subs) ganim_free(&e.A, e.subs, nsub * sizeof(acl_sub));
    ganim_free(&e.A, blk, total);
    return rc;
}
