/* Alamo .ALA writer. A clip that still decodes to exactly its native record is written
 * from that record (names and fps may have changed), so an unmodified file comes back
 * byte for byte; any other clip is quantised as the official exporter does. */
#include <math.h>
#include <string.h>

#include "formats/alamo/alamo_ala.h"
#include "io/bits.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* A missing side is every frame visible (vis) or no step bit (step). */
static bool bits_match(const uint8_t *bits, const uint8_t *bytes, uint32_t frames, uint8_t missing)
{
    ganim_bits br = gb_init(bits, bits ? ((size_t)frames + 7u) / 8u : 0);
    for (uint32_t i = 0; i < frames; i++) {
        uint32_t v = missing;
        if (bits && !gb_lsb_u(&br, 1, &v)) return false;
        if (v != (bytes ? bytes[i] != 0 : missing)) return false;
    }
    return true;
}

/* Is a rotation the same as the plan's, as a format that keeps rotations unit (glTF)
 * holds it: the same direction to float precision (a 16-bit step is 3e-5). */
static bool same_rotation(const float a[4], const float b[4])
{
    double na = 0, nb = 0, dp = 0, dm = 0;
    for (int k = 0; k < 4; k++) na += (double)a[k] * a[k], nb += (double)b[k] * b[k];
    na = sqrt(na), nb = sqrt(nb);
    if (!(na > 0 && nb > 0)) return false;
    for (int k = 0; k < 4; k++) {
        dp = fmax(dp, fabs(a[k] / na - b[k] / nb));
        dm = fmax(dm, fabs(a[k] / na + b[k] / nb));
    }
    return fmin(dp, dm) <= 1e-6;
}

/* The plan's value of a channel at every frame equals the clip's (evaluated, so a
 * constant channel may come back as one value per frame, as glTF keys it): rotations as
 * directions, translations and scales exactly; the scale of a hidden frame is not
 * compared (glTF shows it as a scale of 0). */
static bool channel_matches(const ala_ptrack *t, int channel, uint32_t frames, const ganim_track *o,
                            ganim_rotation_interp interp, const float *rest)
{
    const ganim_channel *ch = channel == 0 ? &o->rotation : channel == 1 ? &o->translation : &o->scale;
    unsigned comps = channel == 0 ? 4 : 3;
    for (uint32_t f = 0; f < frames; f++) {
        float v[4], w[4];
        if (channel == 2 && t->vis && !((unsigned)(t->vis[f >> 3] >> (f & 7u)) & 1u)) continue;
        ala_plan_value(t, channel, f, v);
        ganim_channel_eval(ch, frames, o->step, interp, (int)comps, (double)f, rest, w);
        if (channel == 0) {
            if (!same_rotation(v, w)) return false;
            continue;
        }
        for (unsigned k = 0; k < comps; k++)
            if (v[k] != w[k]) return false;
    }
    return true;
}

static const ganim_track *clip_track_for(const ganim_clip *c, uint32_t bone)
{
    for (uint32_t i = 0; i < c->track_count; i++)
        if (c->tracks[i].bone == bone) return &c->tracks[i];
    return NULL;
}

static bool plan_has_bone(const ala_plan *p, uint32_t bone)
{
    for (uint32_t i = 0; i < p->track_count; i++)
        if (p->tracks[i].index == bone) return true;
    return false;
}

/* A track that holds its bone at the rest pose in every frame (rotations to float
 * precision, translations and scales exactly, every frame visible): writing it changes
 * nothing in the game, and game files never have one for a bone they do not animate
 * (bone 0, `Root`, never has a track). */
static bool track_at_rest(const ganim_clip *c, const ganim_track *o, const ganim_skeleton *sk)
{
    ganim_transform rest = sk && o->bone < sk->bone_count ? sk->bones[o->bone].rest : ganim_transform_identity();
    const float rr[4] = { rest.rotation.x, rest.rotation.y, rest.rotation.z, rest.rotation.w };
    const float rt[3] = { rest.translation.x, rest.translation.y, rest.translation.z };
    const float rs[3] = { rest.scale.x, rest.scale.y, rest.scale.z };
    uint32_t n = c->frame_count;
    for (uint32_t f = 0; f < n; f++) {
        float q[4], t[3], s[3];
        if (o->visibility && !o->visibility[f]) return false;
        ganim_channel_eval(&o->rotation, n, o->step, c->rotation_interp, 4, (double)f, rr, q);
        ganim_channel_eval(&o->translation, n, o->step, c->rotation_interp, 3, (double)f, rt, t);
        ganim_channel_eval(&o->scale, n, o->step, c->rotation_interp, 3, (double)f, rs, s);
        if (!same_rotation(q, rr)) return false;
        for (int k = 0; k < 3; k++)
            if (t[k] != rt[k] || s[k] != rs[k]) return false;
    }
    return true;
}

/* The clip decodes to exactly what its native record holds (names and fps aside): each
 * of the record's tracks has the clip's values for its bone, and the clip's other tracks
 * hold their bones at rest (a glTF keys every joint). */
static bool ala_native_matches(const ala_plan *p, const ganim_clip *c, const ganim_skeleton *sk)
{
    if (c->frame_count != p->frames) return false;
    for (uint32_t i = 0; i < p->track_count; i++) {
        const ala_ptrack *t = &p->tracks[i];
        const ganim_track *o = clip_track_for(c, t->index);
        ganim_transform rest = sk && t->index < sk->bone_count ? sk->bones[t->index].rest : ganim_transform_identity();
        if (!o) return false; /* a track of the file, dropped on the way */
        if (!channel_matches(t, 0, p->frames, o, c->rotation_interp, &rest.rotation.x) ||
            !channel_matches(t, 1, p->frames, o, c->rotation_interp, &rest.translation.x) ||
            !channel_matches(t, 2, p->frames, o, c->rotation_interp, &rest.scale.x) ||
            !bits_match(t->vis, o->visibility, p->frames, 1) || !bits_match(t->step, o->step, p->frames, 0))
            return false;
    }
    for (uint32_t i = 0; i < c->track_count; i++)
        if (!plan_has_bone(p, c->tracks[i].bone) && !track_at_rest(c, &c->tracks[i], sk)) return false;
    return true;
}

/* floor(x), without a call for |x| < 2^52 (the integer part exactly; -0 comes back +0,
 * which no caller sees: each takes floor(a + 0.5), never -0 when rounding to nearest,
 * and q16 makes an integer of it). */
double ala_floor(double x)
{
    if (!(fabs(x) < 4503599627370496.0)) return floor(x);
    double t = (double)(int64_t)x;
    return t > x ? t - 1.0 : t;
}

static int16_t q16(double v)
{
    double r = ala_floor(v * 32767.0 + 0.5);
    if (r > 32767.0) r = 32767.0;
    if (r < -32767.0) r = -32767.0;
    return (int16_t)r;
}

/* The four 16-bit components of rotation q. The game's files hold each component of a
 * unit quaternion times 32767, rounded by most exporters and truncated by some, so their
 * integers have a length within 1.5 of 32767 and point along q; a model that went
 * through a format that keeps rotations unit (glTF) holds that direction, not the
 * integers. Of the integers within one of round(q * 32767) in each component whose length
 * stays within 1.5 of 32767, the one pointing nearest q is taken: the file's own integers
 * when q is their direction to float precision. Directions no float can tell apart (a
 * quarter turn about an axis is (23169, 23169), (23170, 23170) and (23171, 23171) alike)
 * go the way the clip's other rotations went: q * 32767 truncated (`trunc`) or rounded.
 * *how (may be NULL) says whether the integers taken are the rounded ones (1), the
 * truncated ones (2), both (3) or neither (0), when no other candidate was as near.
 *
 * The 81 candidates are code c = sum (d_k + 1) 3^k, d_k in {-1, 0, 1}, each component
 * base_k + d_k (base_k when that leaves -32767..32767); a candidate's distance is
 * |r / |r| - u| as rot16_decide evaluates it. rot16_decide takes the nearest and the ties
 * among the candidates it is given (in increasing code); ala_rot16_both gives it only those
 * that can be within 1e-7 of the nearest, found by a bound without divisions or square
 * roots per candidate (see ala_rot16_both). */
#define ROT16_K 32767.0
/* |fl(sqrt(len2)) - 32767| <= 1.5 exactly when len2 lies in this range (32765.5^2 =
 * 1073577990.25, 32768.5^2 = 1073774592.25; the square roots of the integers either side
 * are 1.5e-5 from the half-integers, far more than a double's step there): the old test
 * on the rounded square root, in integers. test_alamo_rot16 checks both edges. */
#define ROT16_LEN2_LO 1073577991.0
#define ROT16_LEN2_HI 1073774592.0

/* The steps of pair index i = (d_0 + 1) + 3 (d_1 + 1): code c's are those of c % 9
 * (components 0-1) and c / 9 (components 2-3). */
static const int rot16_pair[9][2] = { { -1, -1 }, { 0, -1 }, { 1, -1 }, { -1, 0 }, { 0, 0 },
                                      { 1, 0 },   { -1, 1 }, { 0, 1 },  { 1, 1 } };

/* Code c's steps d_k, each base_k + d_k (unclamped). */
static void rot16_steps(int c, int d[4])
{
    d[0] = rot16_pair[c % 9][0], d[1] = rot16_pair[c % 9][1];
    d[2] = rot16_pair[c / 9][0], d[3] = rot16_pair[c / 9][1];
}

/* Code c's integers (a component that would leave the range stays). */
static void rot16_candidate(const int16_t base[4], int c, int r[4])
{
    int d[4];
    rot16_steps(c, d);
    for (int k = 0; k < 4; k++) {
        r[k] = base[k] + d[k];
        if (r[k] > 32767 || r[k] < -32767) r[k] = base[k];
    }
}

/* One candidate, code c, of a valid length (ala_rot16_both's filter tested it in
 * integers): the nearest, its own only tie and the pick both ways. */
static inline void rot16_one(int model[2][4], const int16_t base[4], int c, int16_t out[2][4], int *how)
{
    int r[4], same0 = 1, same1 = 1;
    rot16_candidate(base, c, r);
    for (int k = 0; k < 4; k++) {
        out[0][k] = out[1][k] = (int16_t)r[k];
        same0 &= r[k] == model[0][k], same1 &= r[k] == model[1][k];
    }
    if (how) *how = same0 | same1 << 1;
}

/* out[t]: the integers for trunc = t (the ties go the same way as the model[t]'s, else
 * rounding); *how as ala_rot16's (the same for both: with one tie, it is the pick). */
static void rot16_decide(const double u[4], int model[2][4], const int16_t base[4], const uint8_t *codes, int count,
                         bool one_valid, int16_t out[2][4], int *how)
{
    double dist[81];
    int best = -1;
    if (count == 1 && one_valid) {
        rot16_one(model, base, codes[0], out, how);
        return;
    }
    for (int i = 0; i < count; i++) {
        int r[4];
        double len2 = 0, d2 = 0;
        rot16_candidate(base, codes[i], r);
        for (int k = 0; k < 4; k++) len2 += (double)r[k] * r[k];
        double len = sqrt(len2);
        dist[i] = -1;
        if (!(len > 0) || fabs(len - 32767.0) > 1.5) continue;
        for (int k = 0; k < 4; k++) d2 += (r[k] / len - u[k]) * (r[k] / len - u[k]);
        dist[i] = sqrt(d2);
        if (best < 0 || dist[i] < dist[best]) best = i;
    }
    for (int k = 0; k < 4; k++) out[0][k] = out[1][k] = base[k];
    if (best < 0) {
        if (how) *how = 0;
        return;
    }
    /* the candidates as near as the nearest, to what a float quaternion can tell apart */
    int pick[2] = { -1, -1 }, ties = 0;
    for (int i = 0; i < count; i++) {
        if (dist[i] < 0 || dist[i] > dist[best] + 1e-7) continue;
        ties++;
        int c = codes[i], d[4], same[2] = { 1, 1 };
        rot16_steps(c, d);
        for (int k = 0; k < 4; k++) {
            int v = base[k] + d[k];
            same[0] &= v == model[0][k];
            same[1] &= v == model[1][k];
        }
        for (int t = 0; t < 2; t++)
            if (same[t] || (pick[t] < 0 && c == 40)) pick[t] = i; /* the file's way, else rounding */
    }
    for (int t = 0; t < 2; t++) {
        int r[4];
        rot16_candidate(base, codes[pick[t] < 0 ? best : pick[t]], r);
        for (int k = 0; k < 4; k++) out[t][k] = (int16_t)r[k];
    }
    if (how) {
        int same0 = 1, same1 = 1;
        for (int k = 0; k < 4; k++) same0 &= out[0][k] == model[0][k], same1 &= out[0][k] == model[1][k];
        *how = ties == 1 ? same0 | same1 << 1 : 0;
    }
}

/* Bounds for ala_rot16_both's filter (see there): EPS2 on a candidate's perpendicular square
 * (its error is below 1e-10), EPS1 on a distance (the old expression's rounding and the
 * chord-for-tangent error are below 2e-9 together). */
#define ROT16_EPS2 1e-9
#define ROT16_EPS1 1e-8
/* on the halves' bounds (their rounding error is below 1e-11 for a half whose |u|^2 >= 1e-6) */
#define ROT16_LB_EPS 1e-9

/* The largest p a candidate can have and still be within 1e-7 of the nearest, when the
 * least p of a valid candidate is pmin (growing with pmin, so a larger pmin gives a
 * larger set). The nearest distance is at most h (the tangent of the least p's
 * candidate, plus EPS1); a tie is within fl(nearest + 1e-7) <= (h + 1e-7)(1 + 2^-52),
 * so its tangent is within that plus EPS1, so sqrt(p - EPS2) <= 32768.5 (h + 1e-7 +
 * EPS1). The divisor 32765 and the factor 32769 (against 32765.49 and 32768.5) cover the
 * rounding of these few operations many times over. */
static double rot16_lim(double pmin)
{
    double h = sqrt((pmin > 0.0 ? pmin : 0.0) + ROT16_EPS2) / 32765.0 + ROT16_EPS1;
    double r = 32769.0 * (h + 1e-7 + ROT16_EPS1);
    return r * r * (1.0 + 1e-9) + ROT16_EPS2;
}

/* The tables of ala_rot16_both's pairs: for pair index i = t_0 + 3 t_1 (digits t of the
 * pair's two components, d = t - 1, 0 where base_k + d leaves the range), lane 0 for
 * components 0-1 (pair A, [i][0]), lane 1 for 2-3 (pair B, [i][1]): e . u and |e|^2 over the pair's two
 * components (e_k = (base_k - 32767 u_k) + d, each product exact but for its rounding),
 * |r|^2 (exact) and the pair's lower bound on p (see ala_rot16_both). */
typedef struct {
    double s[9][2], e[9][2], l[9][2], lb[9][2];
} rot16_tab;

/* The tables one component at a time, clamps and all (the search as the twenty-sixth
 * session wrote it); mins[h] and imin[h] the least bound of pair h and its first index. */
static void rot16_tables_scalar(const double u[4], const int16_t base[4], rot16_tab *T, double mins[2], int imin[2])
{
    double su[4][3], ee[4][3], ll[4][3];
    for (int k = 0; k < 4; k++) {
        double b = base[k] - ROT16_K * u[k];
        for (int t = 0; t < 3; t++) {
            int d = t - 1, r = base[k] + d;
            if (r > 32767 || r < -32767) r = base[k], d = 0;
            double e = b + d;
            su[k][t] = e * u[k];
            ee[k][t] = e * e;
            ll[k][t] = (double)r * r;
        }
    }
    double u2[2] = { u[0] * u[0] + u[1] * u[1], u[2] * u[2] + u[3] * u[3] };
    for (int h = 0; h < 2; h++) {
        mins[h] = INFINITY, imin[h] = 4;
        for (int t1 = 0; t1 < 3; t1++)
            for (int t0 = 0; t0 < 3; t0++) {
                int i = t0 + 3 * t1, k = 2 * h;
                double sv = su[k][t0] + su[k + 1][t1], ev = ee[k][t0] + ee[k + 1][t1];
                T->s[i][h] = sv, T->e[i][h] = ev, T->l[i][h] = ll[k][t0] + ll[k + 1][t1];
                T->lb[i][h] = u2[h] >= 1e-6 ? ev - sv * sv / u2[h] - ROT16_LB_EPS : 0.0;
            }
        for (int i = 0; i < 9; i++)
            if (T->lb[i][h] < mins[h]) mins[h] = T->lb[i][h], imin[h] = i;
    }
}

/* The same tables, both pairs at once in the two lanes of SSE2 registers when no
 * component is clamped (every |base_k| <= 32766): each lane does the scalar version's
 * operations on the same operands in the same order (e = b + d with d -1.0, 0.0 or 1.0;
 * the pair sums component 0 (2) first; the bound ((e - s s / |u|^2) - margin), and so
 * gives the same bits (IEEE operations are correctly rounded; no contraction). Else the
 * scalar version. */
static void rot16_tables(const double u[4], const int16_t base[4], rot16_tab *T, double mins[2], int imin[2])
{
#if defined(__SSE2__)
    if (base[0] >= -32766 && base[0] <= 32766 && base[1] >= -32766 && base[1] <= 32766 && base[2] >= -32766 &&
        base[2] <= 32766 && base[3] >= -32766 && base[3] <= 32766) {
        const __m128d k = _mm_set1_pd(ROT16_K);
        const __m128d dd[3] = { _mm_set1_pd(-1.0), _mm_setzero_pd(), _mm_set1_pd(1.0) };
        __m128d uc[2] = { _mm_set_pd(u[2], u[0]), _mm_set_pd(u[3], u[1]) };
        __m128d rc[2] = { _mm_set_pd((double)base[2], (double)base[0]), _mm_set_pd((double)base[3], (double)base[1]) };
        __m128d su[2][3], ee[2][3], ll[2][3];
        for (int c = 0; c < 2; c++) {
            __m128d b = _mm_sub_pd(rc[c], _mm_mul_pd(k, uc[c]));
            for (int t = 0; t < 3; t++) {
                __m128d e = _mm_add_pd(b, dd[t]), r = _mm_add_pd(rc[c], dd[t]);
                su[c][t] = _mm_mul_pd(e, uc[c]);
                ee[c][t] = _mm_mul_pd(e, e);
                ll[c][t] = _mm_mul_pd(r, r);
            }
        }
        __m128d u2 = _mm_add_pd(_mm_mul_pd(uc[0], uc[0]), _mm_mul_pd(uc[1], uc[1]));
        __m128d use = _mm_cmpge_pd(u2, _mm_set1_pd(1e-6)), eps = _mm_set1_pd(ROT16_LB_EPS);
        __m128d least = _mm_set1_pd(INFINITY);
        for (int t1 = 0; t1 < 3; t1++)
            for (int t0 = 0; t0 < 3; t0++) {
                int i = t0 + 3 * t1;
                __m128d sv = _mm_add_pd(su[0][t0], su[1][t1]), ev = _mm_add_pd(ee[0][t0], ee[1][t1]);
                __m128d lb = _mm_sub_pd(_mm_sub_pd(ev, _mm_div_pd(_mm_mul_pd(sv, sv), u2)), eps);
                lb = _mm_and_pd(use, lb);
                _mm_storeu_pd(T->s[i], sv);
                _mm_storeu_pd(T->e[i], ev);
                _mm_storeu_pd(T->l[i], _mm_add_pd(ll[0][t0], ll[1][t1]));
                _mm_storeu_pd(T->lb[i], lb);
                least = _mm_min_pd(lb, least); /* lb < least ? lb : least, the scalar update */
            }
        _mm_storeu_pd(mins, least);
        /* the first index at the least (no bound is a NaN here: u is finite and a used
         * |u|^2 >= 1e-6), where the scalar version's strict update last took it */
        for (int h = 0; h < 2; h++) {
            int i = 0;
            while (i < 9 && !(T->lb[i][h] == mins[h])) i++;
            imin[h] = i < 9 ? i : 4;
        }
        return;
    }
#endif
    rot16_tables_scalar(u, base, T, mins, imin);
}

/* For a unit u, a valid candidate r (|r| within 1.5 of 32767) is r = 32767 u + e with e =
 * r - 32767 u, |e_k| <= 1.5; the part of e across u, p = |e|^2 - (e . u)^2, is the part
 * of r across u, so the angle t between r and u has tan t = sqrt(p) / (r . u), r . u in
 * 32765.49..32768.5, and the distance rot16_decide computes is 2 sin(t / 2) within 2e-9
 * (t < 1e-4). p comes from two tables of nine (components 0-1 and 2-3) in small numbers:
 * within 1e-10 of the truth. A candidate can be within 1e-7 of the nearest only if its p
 * is within rot16_lim(least p) (the derivation is there); p is computed only for the
 * candidates whose pairs' lower bound is, and only those whose p is go to rot16_decide,
 * in code order, so it takes the same nearest, the same ties and the same picks as on
 * all 81. out[0] is for trunc 0, out[1] for trunc 1. */
void ala_rot16_both(const float q[4], int16_t out[2][4], int *how)
{
    double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    double u[4];
    int model[2][4];
    for (int k = 0; k < 4; k++) {
        u[k] = n > 0 ? q[k] / n : k == 3;
        model[0][k] = q16(u[k]);
        double t = (double)q[k] * 32767.0; /* the exporter's float, truncated toward zero */
        model[1][k] = t >= 32767.0 ? 32767 : t <= -32767.0 ? -32767 : (int)t;
    }
    int16_t base[4];
    for (int k = 0; k < 4; k++) base[k] = (int16_t)model[0][k];
    uint8_t codes[81];
    double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3];
    if (!(fabs(uu - 1.0) <= 1e-12)) { /* not finite (a NaN or infinite q): all 81 */
        for (int c = 0; c < 81; c++) codes[c] = (uint8_t)c;
        rot16_decide(u, model, base, codes, 81, false, out, how);
        return;
    }
    rot16_tab T;
    double mins[2];
    int imin[2];
    rot16_tables(u, base, &T, mins, imin);
    double mina = mins[0], minb = mins[1];
    int ia_min = imin[0], jb_min = imin[1];
    /* An upper bound on the least p of a valid candidate: the rounding itself (code 40,
     * valid but for lengths a float cannot give) or the candidate of both halves' least. */
    double top = INFINITY;
    for (int pass = 0; pass < 2; pass++) {
        int i = pass ? ia_min : 4, j = pass ? jb_min : 4;
        double sv = T.s[i][0] + T.s[j][1], len2 = T.l[i][0] + T.l[j][1], v = T.e[i][0] + T.e[j][1] - sv * sv;
        if (len2 >= ROT16_LEN2_LO && len2 <= ROT16_LEN2_HI && v < top) top = v;
    }
    double pv[81];
    int count = 0;
    if (top == INFINITY) { /* neither is valid: every candidate */
        for (int c = 0; c < 81; c++) codes[count++] = (uint8_t)c;
    } else {
        /* the candidates whose bound is within rot16_lim(top): among them every one whose
         * p is within rot16_lim(least p) (the least p <= top), the nearest among them */
        /* pmin starts at top, the p of a valid candidate (which the loop meets again
         * when it is the least): lim stays rot16_lim(top) until a smaller p comes */
        double lim = rot16_lim(top), pmin = top;
        uint8_t ia[9], jb[9];
        int na = 0, nb = 0;
        for (int m = 0; m < 9; m++) {
            if (T.lb[m][0] + minb <= lim) ia[na++] = (uint8_t)m;
            if (T.lb[m][1] + mina <= lim) jb[nb++] = (uint8_t)m;
        }
        for (int y = 0; y < nb; y++) {
            int j = jb[y];
            for (int x = 0; x < na; x++) {
                int i = ia[x];
                if (T.lb[i][0] + T.lb[j][1] > lim) continue;
                double sv = T.s[i][0] + T.s[j][1], len2 = T.l[i][0] + T.l[j][1];
                if (!(len2 >= ROT16_LEN2_LO && len2 <= ROT16_LEN2_HI)) continue;
                double v = T.e[i][0] + T.e[j][1] - sv * sv;
                pv[count] = v, codes[count++] = (uint8_t)(9 * j + i);
                if (v < pmin) pmin = v, lim = rot16_lim(v); /* still >= rot16_lim(least p) */
            }
        }
        /* lim is rot16_lim(pmin) now (the least p's candidate was evaluated: its bound
         * is at most its p, under any lim); one candidate is that one */
        int kept = count > 1 ? 0 : count;
        for (int x = 0; count > 1 && x < count; x++)
            if (pv[x] <= lim) codes[kept++] = codes[x];
        if (kept == 1) { /* the common case: one candidate left */
            rot16_one(model, base, codes[0], out, how);
            return;
        }
        count = kept;
    }
    rot16_decide(u, model, base, codes, count, true, out, how);
}

void ala_rot16(const float q[4], int trunc, int16_t out[4], int *how)
{
    int16_t both[2][4];
    ala_rot16_both(q, both, how);
    memcpy(out, both[trunc != 0], sizeof both[0]);
}

/* The scale, within a few float steps of (hi - lo) / U for U a little below 65535, with
 * which every value is offset + u * scale exactly for some u (the reader's float
 * arithmetic): a file of the game's own, or one ganim wrote, whose values came back
 * exactly, keeps its integers. 0 when none does. */
static float exact_scale(const float *v, size_t stride, uint32_t n, float lo, float hi)
{
    for (int drop = 0; drop <= 16; drop++) {
        float s0 = (float)(((double)hi - (double)lo) / (65535.0 - drop));
        for (int step = 0; step <= 8; step++) {
            float s = s0;
            for (int k = 0; k < (step + 1) / 2; k++) s = nextafterf(s, step & 1 ? INFINITY : 0.0f);
            if (!(s > 0) || !isfinite(s)) continue;
            uint32_t f = 0;
            for (; f < n; f++) {
                double u = ala_floor(((double)v[f * stride] - lo) / s + 0.5);
                if (u < 0 || u > 65535) break;
                float back = lo + (float)u * s;
                if (back != v[f * stride]) break;
            }
            if (f == n) return s;
        }
    }
    return 0;
}

/* Whether ganim_channel_eval gives every frame of ch the same values (src/core/sample.c:
 * an absent channel, or one without values, gives the rest; a constant one its one key),
 * so that one evaluation stands for all. */
static bool channel_fixed(const ganim_channel *ch)
{
    return ch->kind == GANIM_CHANNEL_ABSENT || ch->count == 0 || !ch->values || ch->kind == GANIM_CHANNEL_CONSTANT;
}

/* Quantise one clip track like the official exporter: per axis offset = min,
 * scale = (max-min)/65535, u = round((v-min)/scale); rotations round(q*32767). Every
 * value is then decoded as a reader does (offset + u * scale, in 32-bit floats): a range
 * too wide for that (its width overflows a float) is refused, naming the value, so that
 * ganim never writes a file it cannot read back. */
static ganim_code quantise_track(ala_plan *p, ala_ptrack *t, uint32_t ci, uint32_t ti, const ganim_clip *clip,
                                 const ganim_track *o, const ganim_bone *bone, uint8_t *mem, float *vals, int trunc16,
                                 const uint8_t *cache, uint32_t cached, ganim_error *err)
{
    uint32_t n = p->frames;
    /* mem: rot 8n, trans 6n, scale 6n, bits 2*(n+7)/8 */
    uint8_t *rot = mem, *trn = rot + 8 * (size_t)n, *scl = trn + 6 * (size_t)n;
    uint8_t *vis = scl + 6 * (size_t)n, *stp = vis + ((size_t)n + 7) / 8;
    ganim_transform rest = bone ? bone->rest : ganim_transform_identity();
    const float rest_r[4] = { rest.rotation.x, rest.rotation.y, rest.rotation.z, rest.rotation.w };
    const float rest_t[3] = { rest.translation.x, rest.translation.y, rest.translation.z };
    const float rest_s[3] = { rest.scale.x, rest.scale.y, rest.scale.z };
    bool rot_anim = false, rot_fixed = channel_fixed(&o->rotation);
    float prev[4] = { 0, 0, 0, 0 };
    int16_t r16[4] = { 0, 0, 0, 0 };
    for (uint32_t f = 0; f < n; f++) {
        if (f < cached) {
            /* the vote's answer for this frame, read before this frame's bytes are
             * written over it */
            memcpy(r16, cache + 16 * (size_t)f + 8 * (size_t)trunc16, sizeof r16);
        } else if (!(rot_fixed && f > cached)) {
            /* (a fixed channel's later frames are frame `cached`'s bits: its answer) */
            /* else the previous frame's for the same bits (a held rotation) */
            float q[4];
            ganim_channel_eval(&o->rotation, n, o->step, clip->rotation_interp, 4, (double)f, rest_r, q);
            if (f == cached || memcmp(q, prev, sizeof q) != 0) ala_rot16(q, trunc16, r16, NULL);
            memcpy(prev, q, sizeof q);
        }
        for (unsigned k = 0; k < 4; k++) {
            int16_t v = r16[k];
            rot[8 * (size_t)f + 2 * k] = (uint8_t)(uint16_t)v;
            rot[8 * (size_t)f + 2 * k + 1] = (uint8_t)((uint16_t)v >> 8);
            if (f == 0) t->defrot[k] = v;
            else if (v != t->defrot[k]) rot_anim = true;
        }
    }
    if (rot_anim) t->rot = (ala_stream){ rot, 8 };
    bool static_rest = !rot_anim;
    {
        float q[4];
        ala_dec_rot(t->defrot, q);
        double d = 0, lq = 0, lr = 0;
        for (int k = 0; k < 4; k++)
            d += (double)q[k] * rest_r[k], lq += (double)q[k] * q[k], lr += (double)rest_r[k] * rest_r[k];
        /* within half a 16-bit step of the rest rotation (2 * 1/32767 radians) */
        if (!(lq > 0 && lr > 0) || fabs(d) / sqrt(lq * lr) < cos(1.0 / 32767.0)) static_rest = false;
    }
    for (int c = 1; c <= 2; c++) {
        const ganim_channel *ch = c == 1 ? &o->translation : &o->scale;
        uint8_t *buf = c == 1 ? trn : scl;
        const float *restv = c == 1 ? rest_t : rest_s;
        float lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
        bool anim = false;
        /* a fixed channel: frame 0's values are every frame's, lo = hi, nothing animated
         * (vals is read only for an animated axis) */
        uint32_t evals = channel_fixed(ch) ? 1u : n;
        for (uint32_t f = 0; f < evals; f++) {
            float *v = vals + 3 * (size_t)f;
            ganim_channel_eval(ch, n, o->step, clip->rotation_interp, 3, (double)f, restv, v);
            for (int k = 0; k < 3; k++) {
                if (!isfinite(v[k])) v[k] = 0.0f;
                if (f == 0 || v[k] < lo[k]) lo[k] = v[k];
                if (f == 0 || v[k] > hi[k]) hi[k] = v[k];
            }
        }
        float scale[3];
        for (int k = 0; k < 3; k++) {
            scale[k] = hi[k] > lo[k] ? exact_scale(vals + k, 3, n, lo[k], hi[k]) : 0.0f;
            if (hi[k] > lo[k] && scale[k] == 0.0f) scale[k] = (float)(((double)hi[k] - (double)lo[k]) / 65535.0);
            if (scale[k] > 0.0f) anim = true;
            /* the game's files hold the rest pose to 1e-3 (docs/formats/alamo.md) */
            if (fabsf(lo[k] - restv[k]) > 1e-3f + 1e-6f * fabsf(restv[k])) static_rest = false;
        }
        for (uint32_t f = 0; anim && f < n; f++) {
            const float *v = vals + 3 * (size_t)f;
            for (int k = 0; k < 3; k++) {
                double u = 0.0;
                if (scale[k] > 0.0f && isfinite(v[k])) u = ala_floor(((double)v[k] - lo[k]) / scale[k] + 0.5);
                if (u < 0.0) u = 0.0;
                if (u > 65535.0) u = 65535.0;
                uint16_t q = (uint16_t)u;
                float back = lo[k] + (float)q * scale[k]; /* what a reader decodes */
                if (!isfinite(back))
                    return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                                      ALA ": clip %u, track %u ('%.100s'), frame %u: the %s %c = %g lies in a range "
                                          "(%g..%g) too wide for ALA's 16-bit steps in 32-bit floats (offset + step x "
                                          "scale overflows); not written",
                                      ci, ti, (const char *)t->name, f, c == 1 ? "translation" : "scale", "xyz"[k],
                                      (double)v[k], (double)lo[k], (double)hi[k]);
                buf[6 * (size_t)f + 2 * (size_t)k] = (uint8_t)q;
                buf[6 * (size_t)f + 2 * (size_t)k + 1] = (uint8_t)(q >> 8);
            }
        }
        int off = c == 1 ? V_TOFF : V_SOFF;
        for (int k = 0; k < 3; k++) {
            t->vec[off][k] = ganim_f32_bits(lo[k]);
            t->vec[off + 1][k] = ganim_f32_bits(scale[k]);
        }
        if (anim) {
            static_rest = false;
            if (c == 1) t->trans = (ala_stream){ trn, 6 };
            else t->scale = (ala_stream){ scl, 6 };
        }
    }
    const uint8_t *src[2] = { o->visibility, o->step };
    uint8_t *dst[2] = { vis, stp };
    for (int b = 0; b < 2; b++) {
        if (!src[b]) continue;
        for (uint32_t f = 0; f < n; f++)
            if (src[b][f]) dst[b][f >> 3] = (uint8_t)(dst[b][f >> 3] | (1u << (f & 7u)));
        if (b == 0) t->vis = vis;
        else t->step = stp;
    }
    /* Mini-chunk 10: 1 only for a track that holds its bone at the rest pose (docs). */
    t->has_unk10 = true;
    t->unk10 = (bone && static_rest) ? 1u : 0u;
    t->tidx = t->sidx = t->ridx = -1;
    return GANIM_OK;
}

/* The clip's tracks the file gets: those of the bones the native record has tracks for
 * (nat, when the clip still carries one), and every other track that moves its bone or
 * holds it away from the rest pose. */
static bool track_written(const ganim_clip *c, const ganim_track *o, const ganim_skeleton *sk, const ala_plan *nat)
{
    if (nat && plan_has_bone(nat, o->bone)) return true;
    return !track_at_rest(c, o, sk);
}

/* The rounded (how 1) and truncated (how 2) rotations among a file's own integers: each
 * against its own direction times 32767, rounded and truncated toward zero. */
static void native_vote(const ala_plan *nat, size_t *rounded, size_t *truncated)
{
    for (uint32_t i = 0; i < nat->track_count; i++) {
        const ala_ptrack *t = &nat->tracks[i];
        uint32_t count = t->rot.base ? nat->frames : 1;
        for (uint32_t f = 0; f < count; f++) {
            int16_t r[4];
            double len = 0;
            for (unsigned k = 0; k < 4; k++) {
                r[k] = t->rot.base ? (int16_t)ala_st_get(&t->rot, f, k) : t->defrot[k];
                len += (double)r[k] * r[k];
            }
            len = sqrt(len);
            if (!(len > 0)) continue;
            int same_round = 1, same_trunc = 1;
            for (unsigned k = 0; k < 4; k++) {
                double v = r[k] / len * 32767.0;
                same_round &= (int)floor(v + 0.5) == r[k];
                same_trunc &= (int)v == r[k];
            }
            *rounded += same_round && !same_trunc;
            *truncated += same_trunc && !same_round;
        }
    }
}

/* The native record's track for the clip track's bone, when the clip still decodes to it. */
static const ala_ptrack *unchanged_native_track(const ala_plan *nat, const ganim_clip *c, const ganim_track *o,
                                                const ganim_bone *bone)
{
    ganim_transform rest = bone ? bone->rest : ganim_transform_identity();
    for (uint32_t i = 0; i < nat->track_count; i++) {
        const ala_ptrack *t = &nat->tracks[i];
        if (t->index != o->bone) continue;
        bool same = channel_matches(t, 0, nat->frames, o, c->rotation_interp, &rest.rotation.x) &&
                    channel_matches(t, 1, nat->frames, o, c->rotation_interp, &rest.translation.x) &&
                    channel_matches(t, 2, nat->frames, o, c->rotation_interp, &rest.scale.x) &&
                    bits_match(t->vis, o->visibility, nat->frames, 1) && bits_match(t->step, o->step, nat->frames, 0);
        return same ? t : NULL;
    }
    return NULL;
}

static ganim_code ala_plan_from_clip(ala_plan *p, const ganim_doc *doc, const ganim_clip *c, const ala_plan *nat,
                                     ganim_error *err)
{
    uint32_t n = c->frame_count;
    size_t per, total;
    p->version = 0;
    p->frames = n;
    p->fps_bits = ganim_f32_bits(ganim_fps_f32(c->fps));
    p->track_count = c->track_count;
    p->canonical = true;
    p->tracks = ala_plan_alloc(p, c->track_count ? c->track_count : 1, sizeof *p->tracks);
    /* 20 bytes of values and 2 bit bytes per frame, one block per track */
    if (!ganim_mul_size((size_t)n + 8u, 22u, &per) || !ganim_mul_size(per, c->track_count ? c->track_count : 1, &total))
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, ALA ": the clip is too large");
    uint8_t *mem = ala_plan_alloc(p, total, 1);
    float *vals = ala_plan_alloc(p, (size_t)n * 3u, sizeof *vals); /* one channel's values */
    if (!p->tracks || !mem || !vals) return GANIM_NOMEM(err);
    const ganim_skeleton *sk = doc->skeleton;
    /* Did the clip's rotations come rounded or truncated (rot16)? Asked of the native
     * record's integers when there is one (every one of them tells), else of the clip's
     * rotations whose direction leaves no choice. */
    size_t rounded = 0, truncated = 0;
    if (nat) native_vote(nat, &rounded, &truncated);
    for (uint32_t i = 0; i < c->track_count && !nat; i++) {
        const ganim_track *o = &c->tracks[i];
        const ganim_bone *bone = sk && o->bone < sk->bone_count ? &sk->bones[o->bone] : NULL;
        ganim_transform rest = bone ? bone->rest : ganim_transform_identity();
        uint32_t count = o->rotation.kind == GANIM_CHANNEL_CONSTANT ? 1 : n;
        uint8_t *cache = mem + per * i;
        float prev[4] = { 0, 0, 0, 0 };
        int16_t r[2][4] = { { 0 } };
        int how = 0;
        bool fixed = channel_fixed(&o->rotation);
        for (uint32_t f = 0; f < count; f++) {
            /* a fixed channel's later frames: frame 0's bits, its answer and its how */
            if (f == 0 || !fixed) {
                float q[4];
                ganim_channel_eval(&o->rotation, n, o->step, c->rotation_interp, 4, (double)f, &rest.rotation.x, q);
                if (f == 0 || memcmp(q, prev, sizeof q) != 0) ala_rot16_both(q, r, &how);
                memcpy(prev, q, sizeof q);
            }
            memcpy(cache + 16 * (size_t)f, r, sizeof r); /* both ways, for quantise_track */
            rounded += how == 1;
            truncated += how == 2;
        }
    }
    int trunc16 = truncated > rounded;
    uint32_t nt = 0;
    for (uint32_t i = 0; i < c->track_count; i++) {
        const ganim_track *o = &c->tracks[i];
        if (!track_written(c, o, sk, nat)) continue;
        ala_ptrack *t = &p->tracks[nt];
        const ganim_bone *bone = sk && o->bone < sk->bone_count ? &sk->bones[o->bone] : NULL;
        const char *name = o->name && o->name[0] ? o->name : bone ? bone->name : "";
        size_t len = strlen(name);
        if (len > 254)
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              ALA ": track %u: the name is longer than 254 bytes", i);
        const ala_ptrack *same = nat && nat->frames == n ? unchanged_native_track(nat, c, o, bone) : NULL;
        if (same) {
            /* the file's own quantisation for a track the edit did not touch */
            *t = *same;
            t->tidx = t->sidx = t->ridx = -1;
            if (!(bone && !strcmp(bone->name, name)) && !ala_name_same(t->name, t->name_size, name)) {
                t->name = (const uint8_t *)name;
                t->name_size = (uint8_t)(len + 1);
            }
            nt++;
            continue;
        }
        t->name = (const uint8_t *)name;
        t->name_size = (uint8_t)(len + 1);
        t->index = o->bone;
        /* Without a native record the vote left both answers for every frame it asked
         * in track i's block (16 bytes a frame, within the rotations' 8 and the
         * translations' 6 and the scales' 6: the bits after them stay zero). Track i is
         * written into block nt <= i: a later track's block is untouched, and in block i
         * itself frame f's 8 bytes go over frames <= f/2's answers, already read. */
        uint32_t cached = nat ? 0 : o->rotation.kind == GANIM_CHANNEL_CONSTANT ? 1 : n;
        ganim_code code = quantise_track(p, t, (uint32_t)(c - doc->clips), i, c, o, bone, mem + per * nt, vals, trunc16,
                                         mem + per * i, cached, err);
        if (code != GANIM_OK) return code;
        nt++;
    }
    p->track_count = nt;
    return GANIM_OK;
}

ganim_code alamo_ala_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err)
{
    const ganim_clip *c = ganim_doc_first_animation(doc);
    ganim_allocator a = ganim_allocator_resolve(opts ? &opts->allocator : NULL);
    /* alamo.version: 1 or 2; unset (0): the source's version, else 2 */
    int version =
        opts ? ganim_setting_choice(opts->settings, opts->setting_count, &alamo_options[ALAMO_OPT_VERSION]) + 1 : 0;
    if (!c) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, ALA ": the document has no animation");
    if (c->frame_count == 0 || !(c->fps > 0.0) || !isfinite((float)c->fps))
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          ALA ": the clip needs at least one frame and a positive fps");
    /* An .ALA holds one animation: the first one is written. */
    ala_plan p;
    memset(&p, 0, sizeof p);
    p.alloc = &a;
    /* The clip's native record, parsed again: written as it is when the clip still
     * decodes to it; otherwise it still gives the version and the bones with tracks. */
    ala_plan nat;
    memset(&nat, 0, sizeof nat);
    nat.alloc = &a;
    bool has_nat = false, native = false;
    if (c->native_format && strcmp(c->native_format, ALA) == 0 && c->native) {
        ganim_error ignored;
        has_nat = ala_parse(&nat, c->native, c->native_size, &ignored) == GANIM_OK;
        native = has_nat && ala_native_matches(&nat, c, doc->skeleton);
        if (native) {
            p = nat;
            has_nat = false;
            memset(&nat, 0, sizeof nat);
        }
    }
    ganim_code rc = GANIM_OK;
    if (native) {
        /* Names and fps may have been edited without touching the quantised values. A
         * track named after its bone (as a glTF names them) keeps the file's own name
         * (`p_rb_station_damage01` animates bone `p_rb_station_damage`). */
        if (ganim_fps_f32(c->fps) != ganim_f32_from_bits(p.fps_bits))
            p.fps_bits = ganim_f32_bits(ganim_fps_f32(c->fps));
        const ganim_skeleton *sk = doc->skeleton;
        for (uint32_t i = 0; i < p.track_count; i++) {
            ala_ptrack *t = &p.tracks[i];
            const ganim_track *o = clip_track_for(c, t->index);
            const char *name = o ? o->name : NULL;
            const char *bone = sk && t->index < sk->bone_count ? sk->bones[t->index].name : NULL;
            if (name && name[0] && !ala_name_same(t->name, t->name_size, name) && !(bone && !strcmp(bone, name))) {
                size_t len = strlen(name);
                if (len > 254) {
                    rc = ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                                    ALA ": track %u: the name is longer than 254 bytes", i);
                    break;
                }
                t->name = (const uint8_t *)name;
                t->name_size = (uint8_t)(len + 1);
            }
        }
    } else {
        rc = ala_plan_from_clip(&p, doc, c, has_nat ? &nat : NULL, err);
        if (version == 0 && has_nat) version = nat.version;
    }
    if (!rc) {
        if (version == 0) version = p.version ? p.version : 2;
        rc = ala_encode(&p, version, out, err);
    }
    ala_plan_free(&p);
    ala_plan_free(&nat);
    return rc;
}
