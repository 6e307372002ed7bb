/* Undoing ganim's glTF export conversion exactly, and folding the transforms of nodes
 * above a bone into it.
 *
 * ganim's exporter writes a root bone's rotation as float(normalise(C q)) (C q itself when
 * it is unit to float precision) and its
 * translation as float(C (t unit)), any other translation as float(t unit) and every
 * rotation normalised, all in double arithmetic (src/export/export.h, gx_rotation and
 * gx_translation; docs/dump-format.md). The reader inverts that in double arithmetic and
 * rounds; where the rounded value does not give the written floats back through the
 * exporter's own arithmetic (a unit in the last place, now and then), the neighbouring
 * floats are tried. So ganim glb -> read -> glb writes the same bits, and the values read
 * are the model's within float32 rounding. The forward functions below repeat the
 * exporter's operations in the same order; the round-trip tests watch that they stay so. */
#include <float.h>
#include <stdlib.h>

#include "core/dquat.h"
#include "formats/gltf/gltf.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

int gltf_conv_from_text(const char *axis_conversion, double unit, gltf_conv *cv)
{
    memset(cv, 0, sizeof *cv);
    if (!(unit != 0) || !isfinite(unit)) return 0;
    cv->unit = unit;
    if (!strcmp(axis_conversion, "identity")) {
        cv->c[3] = 1;
        cv->identity = 1;
    } else if (!strcmp(axis_conversion, "rotate -90 deg about X")) {
        cv->c[0] = -0.70710678118654752440;
        cv->c[3] = 0.70710678118654752440;
    } else if (!strcmp(axis_conversion, "rotate 180 deg about X")) {
        cv->c[0] = 1;
    } else {
        return 0;
    }
    return 1;
}

/* A rotation within 2^-21 of unit squared length is written as it is (the exporter's
 * GX_UNIT_LEN2), any other normalised. */
static int fwd_rotation(const gltf_conv *cv, int root, const float q[4], float out[4])
{
    double d[4] = { q[0], q[1], q[2], q[3] };
    if (root && !cv->identity) ganim_dq_mul(cv->c, d, d);
    double len2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + d[3] * d[3];
    if (!(len2 > 1e-12) || !isfinite(len2)) return 0;
    int unit = fabs(len2 - 1) <= 4.76837158203125e-7;
    double len = sqrt(len2);
    for (int i = 0; i < 4; i++) out[i] = (float)(unit ? d[i] : d[i] / len);
    return 1;
}

/* Kept out of line: GCC 12 at -O3 vectorised this arithmetic inlined into the search
 * (superword-level), and for some keys whose turned y or z cancels to almost zero it then
 * gave other bits than the same C at -O1 or out of line (0 for 2^-51): the search's answer
 * depended on the optimiser. tests/formats/gltf/test_gltf_undo_search.c compares it with
 * the reference in a Release build as well. */
static GANIM_OUT_OF_LINE void fwd_translation(const gltf_conv *cv, int root, const float t[3], float out[3])
{
    double d[3] = { t[0] * cv->unit, t[1] * cv->unit, t[2] * cv->unit };
    if (root && !cv->identity) ganim_dq_rot(cv->c, d, d);
    for (int i = 0; i < 3; i++) out[i] = (float)d[i];
}

/* nextafterf(v, up ? INFINITY : -INFINITY), without the call for a finite v */
static float step(float v, int up)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    if ((b & 0x7f800000u) == 0x7f800000u) return nextafterf(v, up ? INFINITY : -INFINITY); /* not finite */
    if (!(b & 0x7fffffffu)) b = up ? 1u : 0x80000001u; /* either zero: the smallest number of the direction's sign */
    else if ((b >> 31) == (uint32_t)!up) b++;          /* away from zero */
    else b--;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* Candidates for one component: the value, its neighbours, and the other zero. */
static int variants(float v, float out[4])
{
    int n = 0;
    out[n++] = v;
    out[n++] = step(v, 1);
    out[n++] = step(v, 0);
    if (v == 0) out[n++] = -v;
    return n;
}

/* ---- bounding the search ----------------------------------------------------------------------
 * The search tries candidates t in a fixed order and keeps the first with fwd_rotation(t) ==
 * out. fwd_rotation writes out[i] = float(d[i] / s), d = C t (or t) and s = 1 (the unit
 * branch: |d|^2 within 2^-21 of 1) or the length of d. So a match needs d[i] / s inside the
 * interval of reals that round to out[i]: halfway to the floats below and above it (one
 * float step 2^-149 about a zero or subnormal), widened by 2^-40 for the double division's
 * rounding. C is a turn about X (x and w only, as gltf_conv_from_text makes it) and is
 * orthogonal to 2^-52, so t = C^-1 d bounds each component of t as well: t[i] lies in s
 * times an interval made once per key, some two float steps wide. Each stage knows its
 * candidates' squared lengths within a bound, hence s: 1, or the square root of a length
 * below or above the unit band, up to three ranges of s. A candidate is tried only when
 * every component lies in its interval for one range of s and the turned pairs (x, w) and
 * (y, z), computed as fwd_rotation computes them (the product's other terms are zeros,
 * which change a nonzero sum not at all), lie in theirs for that range. Every bound is
 * widened far beyond the arithmetic's error, so a candidate skipped cannot match: those
 * tried are tried in the old order and the first match is the old one, bit for bit
 * (tests/formats/gltf/test_gltf_undo_search.c against the full search). With s = 1 the
 * pairs are independent: when no float pair (x, w), or none (y, z), turns into its part
 * of B (pair_none, once per key), no candidate in the unit band matches in any stage, and
 * the stages drop s = 1. The lengths a few steps away (the last stage) are judged a whole
 * length, then one candidate at a time (below). */

/* The intervals of a range of s: d[i] within [dl, dh], t[i] within [tl, th]. */
typedef struct limits {
    double dl[4], dh[4], tl[4], th[4];
} limits;

typedef struct bounds {
    int turned;          /* C applies (a root, not the identity) */
    double cx, cw;       /* C's x and w */
    double bl[4], bh[4]; /* d[i] / s within [bl, bh] */
    double jl[4], jh[4]; /* t[i] / s within [jl, jh] */
    limits one;          /* the intervals for s = 1 */
    int unit_none;       /* no float pair (x, w) or no (y, z) turns into B: no candidate matches with s = 1 */
} bounds;

#define EXACT_UNIT_BAND 4.76837158203125e-7 /* fwd_rotation's |len2 - 1| bound: 2^-21 */
#define EXACT_WIDEN 0x1p-40                 /* far beyond the double arithmetic's error */

static void widen(double *lo, double *hi, double by)
{
    *lo -= fabs(*lo) * by + by * 0x1p-1000;
    *hi += fabs(*hi) * by + by * 0x1p-1000;
}

/* The range of a x + b y for x in [xl, xh], y in [yl, yh] (a zero coefficient adds nothing,
 * not a zero times an infinity). */
static void lin_range(double a, double xl, double xh, double b, double yl, double yh, double *lo, double *hi)
{
    *lo = *hi = 0;
    if (a != 0) *lo += a > 0 ? a * xl : a * xh, *hi += a > 0 ? a * xh : a * xl;
    if (b != 0) *lo += b > 0 ? b * yl : b * yh, *hi += b > 0 ? b * yh : b * yl;
}

static void turn_bounds(bounds *b);
static int pair_none(const bounds *b, int pair);

static void bounds_init(bounds *b, const gltf_conv *cv, int root, const float out[4])
{
    b->turned = root && !cv->identity;
    b->cx = cv->c[0];
    b->cw = cv->c[3];
    int about_x = cv->c[1] == 0 && cv->c[2] == 0;
    for (int i = 0; i < 4; i++) {
        float o = out[i];
        if (!isfinite(o) || (b->turned && !about_x)) { /* not bounded: every candidate is tried */
            b->bl[i] = b->jl[i] = -INFINITY;
            b->bh[i] = b->jh[i] = INFINITY;
            continue;
        }
        b->bl[i] = ((double)o + step(o, 0)) * 0.5; /* exact: two neighbouring floats */
        b->bh[i] = ((double)o + step(o, 1)) * 0.5; /* +inf above FLT_MAX */
        widen(&b->bl[i], &b->bh[i], EXACT_WIDEN);
        b->jl[i] = b->bl[i];
        b->jh[i] = b->bh[i];
    }
    b->unit_none = 0;
    if (b->turned && about_x) {
        turn_bounds(b);
        b->unit_none = pair_none(b, 0) || pair_none(b, 1);
    }
    for (int i = 0; i < 4; i++) {
        b->one.dl[i] = b->bl[i], b->one.dh[i] = b->bh[i];
        b->one.tl[i] = b->jl[i], b->one.th[i] = b->jh[i];
    }
}

/* J from B through C^-1 */
static void turn_bounds(bounds *b)
{
    /* d = C t: dx = cw tx + cx tw, dw = cw tw - cx tx, dy = cw ty - cx tz, dz = cw tz + cx ty;
     * t = C^T d / n with n = cw^2 + cx^2 */
    double n = b->cw * b->cw + b->cx * b->cx, cw = b->cw / n, cx = b->cx / n;
    lin_range(cw, b->bl[0], b->bh[0], -cx, b->bl[3], b->bh[3], &b->jl[0], &b->jh[0]);
    lin_range(cx, b->bl[0], b->bh[0], cw, b->bl[3], b->bh[3], &b->jl[3], &b->jh[3]);
    lin_range(cw, b->bl[1], b->bh[1], cx, b->bl[2], b->bh[2], &b->jl[1], &b->jh[1]);
    lin_range(-cx, b->bl[1], b->bh[1], cw, b->bl[2], b->bh[2], &b->jl[2], &b->jh[2]);
    for (int i = 0; i < 4; i++) {
        int p = i == 0 || i == 3 ? 0 : 1; /* the pair's two components: 0, 3 or 1, 2 */
        double m = fabs(b->bl[p ? 1 : 0]) + fabs(b->bh[p ? 1 : 0]) + fabs(b->bl[p ? 2 : 3]) + fabs(b->bh[p ? 2 : 3]);
        if (!isfinite(m)) {
            b->jl[i] = -INFINITY;
            b->jh[i] = INFINITY;
        } else {
            b->jl[i] -= m * EXACT_WIDEN + 0x1p-1000;
            b->jh[i] += m * EXACT_WIDEN + 0x1p-1000;
        }
    }
}

/* Whether no pair of floats (x, w) (pair 0) or (y, z) (pair 1) turns into its part of B
 * (s = 1): 1 only when shown. For C a turn by 90 degrees (both cx and cw nonzero), the
 * floats of the pair's larger component within J are visited (at most 8, else not
 * judged), and for each the interval of reals the other component may take so that both
 * turned values lie in B (each a line: cw u + cx v, cw v - cx u for (x, w); cw u - cx v,
 * cw v + cx u for (y, z)) is checked for a float. The turned values are those of exact
 * arithmetic within tau (far beyond fwd_rotation's two roundings of its products and
 * sums); the divisions (products by the reciprocal) and their rounding are widened away. */
static int pair_none(const bounds *b, int pair)
{
    int i = pair ? 1 : 0, j = pair ? 2 : 3;
    double cw = b->cw, cx = b->cx;
    if (!(cw != 0 && cx != 0)) return 0;
    double ul = b->jl[i], uh = b->jh[i], vl = b->jl[j], vh = b->jh[j];
    double big = fabs(ul) + fabs(uh) + fabs(vl) + fabs(vh);
    if (!isfinite(big) || !isfinite(b->bl[i] + b->bh[i] + b->bl[j] + b->bh[j]) || big > 1e30) return 0;
    double tau = 0x1p-46 * big + 0x1p-1000;
    /* the turned values: co[k][0] u + co[k][1] v in B[k ? j : i]; the floats visited are
     * those of the larger component (the fewer in its interval), x: 0 for u, 1 for v */
    const double co[2][2] = { { cw, pair ? -cx : cx }, { pair ? cx : -cx, cw } };
    int x = fabs(vl) + fabs(vh) > fabs(ul) + fabs(uh);
    double xl = x ? vl : ul, xh = x ? vh : uh;
    /* a division by cv is a product by 1 / cv (both roundings within 2^-52 of the
     * quotient, far inside wide's 2^-40), the reciprocals made once */
    double rc[2], wk[2];
    for (int k = 0; k < 2; k++) {
        rc[k] = 1 / co[k][!x];
        wk[k] = 0x1p-40 * fabs(rc[k]);
    }
    float u = (float)xl;
    if (u < xl) u = step(u, 1);
    for (int n = 0; u <= xh; n++, u = step(u, 1)) {
        if (n == 8) return 0; /* not judged */
        double lo = -INFINITY, hi = INFINITY;
        for (int k = 0; k < 2; k++) { /* the other component with the turned value k in B +- tau */
            double cu = co[k][x] * (double)u;
            int idx = k ? j : i;
            double n0 = b->bl[idx] - tau - cu, n1 = b->bh[idx] + tau - cu;
            double wide = wk[k] * (fabs(b->bl[idx]) + fabs(b->bh[idx]) + fabs(cu) + tau) + 0x1p-1000;
            double r0 = n0 * rc[k], r1 = n1 * rc[k];
            double l = (r0 < r1 ? r0 : r1) - wide, h = (r0 < r1 ? r1 : r0) + wide;
            if (l > lo) lo = l;
            if (h < hi) hi = h;
        }
        if (!(lo <= hi)) continue;
        if (!(fabs(lo) < 1e30 && fabs(hi) < 1e30)) return 0;
        float v = (float)lo;
        if (v < lo) v = step(v, 1);
        if (v <= hi) return 0; /* a float for the other: the pair may turn into B */
    }
    return 1;
}

/* [lo, hi] scaled by every s in [slo, shi] (0 < slo <= shi, finite) */
static void scaled(double lo, double hi, double slo, double shi, double *ol, double *oh)
{
    double a = lo * slo, b = lo * shi, c = hi * slo, e = hi * shi;
    *ol = a < b ? a : b;
    *oh = c > e ? c : e;
    widen(ol, oh, EXACT_WIDEN);
}

static void limits_make(const bounds *b, double slo, double shi, limits *l)
{
    for (int i = 0; i < 4; i++) {
        scaled(b->bl[i], b->bh[i], slo, shi, &l->dl[i], &l->dh[i]);
        scaled(b->jl[i], b->jh[i], slo, shi, &l->tl[i], &l->th[i]);
    }
}

/* The ranges of s for candidates whose |t|^2 lies in [mlo, mhi]: 1 when some may be in the
 * unit band, the square roots of the lengths below and above it; into l (made in store, or
 * bounds' own for s = 1), their number. */
static int s_ranges(const bounds *b, double mlo, double mhi, limits store[3], const limits *l[3])
{
    /* |C t|^2 is |t|^2 within 2^-50; the exporter's sum in another order: 2^-36 is plenty */
    mlo *= 1 - 0x1p-36;
    mhi *= 1 + 0x1p-36;
    if (!(mhi > 1e-12 * (1 - 0x1p-36)) || !isfinite(mhi) || !(mlo >= 0)) { /* no bound on s */
        for (int i = 0; i < 4; i++)
            store[0].dl[i] = store[0].tl[i] = -INFINITY, store[0].dh[i] = store[0].th[i] = INFINITY;
        l[0] = &store[0];
        return 1;
    }
    int n = 0;
    if (!b->unit_none && mlo <= 1 + EXACT_UNIT_BAND && mhi >= 1 - EXACT_UNIT_BAND) l[n++] = &b->one;
    if (mlo < 1 - EXACT_UNIT_BAND) {
        double lo = mlo > 1e-12 ? mlo : 1e-12, hi = mhi < 1 - EXACT_UNIT_BAND ? mhi : 1 - EXACT_UNIT_BAND;
        limits_make(b, sqrt(lo) * (1 - 0x1p-40), sqrt(hi) * (1 + 0x1p-40), &store[n]);
        l[n] = &store[n];
        n++;
    }
    if (mhi > 1 + EXACT_UNIT_BAND) {
        double lo = mlo > 1 + EXACT_UNIT_BAND ? mlo : 1 + EXACT_UNIT_BAND;
        limits_make(b, sqrt(lo) * (1 - 0x1p-40), sqrt(mhi) * (1 + 0x1p-40), &store[n]);
        l[n] = &store[n];
        n++;
    }
    return n;
}

/* The ranges (bit r: l[r]) in which component i may be the value v. */
static unsigned comp_fits(const limits *const *l, int nl, int i, float v)
{
    unsigned m = 0;
    for (int r = 0; r < nl; r++) m |= (unsigned)(v >= l[r]->tl[i] && v <= l[r]->th[i]) << r;
    return m;
}

/* The turned values of the pair (x, w) (pair 0) or (y, z) (pair 1) of values u, v:
 * ganim_dq_mul(C, t) without its zero terms (which change a nonzero sum not at all). */
static void turn_pair(const bounds *b, int pair, double u, double v, double *du, double *dv)
{
    *du = u;
    *dv = v;
    if (!b->turned) return;
    if (pair == 0) {
        *du = b->cw * u + b->cx * v;
        *dv = b->cw * v - b->cx * u;
    } else {
        *du = b->cw * u - b->cx * v;
        *dv = b->cw * v + b->cx * u;
    }
}

/* The ranges in which the pair (x, w) (pair 0) or (y, z) (pair 1) of values u, v turns to
 * d components that fit: fwd_rotation's products, known within slack (an operation order
 * or a fused multiply-add other than the exporter's). */
static unsigned pair_fits(const bounds *b, const limits *const *l, int nl, unsigned mask, int pair, float u, float v)
{
    double du, dv;
    int i = pair ? 1 : 0, j = pair ? 2 : 3;
    turn_pair(b, pair, u, v, &du, &dv);
    double slack = 0x1p-48 * (fabs((double)u) + fabs((double)v));
    unsigned m = 0;
    for (int r = 0; r < nl; r++)
        if (mask >> r & 1)
            m |= (unsigned)(du >= l[r]->dl[i] - slack && du <= l[r]->dh[i] + slack && dv >= l[r]->dl[j] - slack &&
                            dv <= l[r]->dh[j] + slack)
                 << r;
    return m;
}

static int same_float(float a, float b)
{
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

static int try_rotation(const gltf_conv *cv, int root, const float out[4], const float t[4], float q[4])
{
    float back[4];
    if (fwd_rotation(cv, root, t, back) && !memcmp(back, out, sizeof back)) {
        memcpy(q, t, 4 * sizeof *q);
        return 1;
    }
    return 0;
}

/* The candidates (v[0][a], v[1][b], v[2][c], v[3][e]), a < n[0], ..., in the order a, b, c,
 * e, those with every index in 1..3 left out when `inner` (the grid's, tried before): the
 * first that fwd_rotation maps to `out` into q, 1; else 0. Only those the limits allow are
 * tried. */
static int search_set(const gltf_conv *cv, int root, const bounds *b, const float out[4], const float v[4][5],
                      const int n[4], int inner, float q[4])
{
    /* The squared lengths' range. Each component's values are a run of consecutive floats
     * (variants: v, the float above, the float below, and the other zero when v is zero;
     * the grid: five in a row), none a NaN (q0 is finite), so the smallest square is 0 when
     * the run reaches from one sign to the other (a run through zero holds a zero) and the
     * smaller of its ends' squares else, the largest the larger of its ends' squares: the
     * values of the loop over every candidate value this replaces. */
    double mlo = 0, mhi = 0;
    for (int i = 0; i < 4; i++) {
        double a = n[i] == 5 ? v[i][0] : v[i][2], c = n[i] == 5 ? v[i][4] : v[i][1]; /* the ends, a <= c */
        double a2 = a * a, c2 = c * c;
        mlo += a <= 0 && c >= 0 ? 0 : (a2 < c2 ? a2 : c2);
        mhi += a2 > c2 ? a2 : c2;
    }
    limits store[3];
    const limits *l[3];
    int nl = s_ranges(b, mlo, mhi, store, l);
    if (!nl) return 0;
    unsigned ok[4][5];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < n[i]; j++) ok[i][j] = comp_fits(l, nl, i, v[i][j]);
    unsigned mxw[25], myz[25];
    uint8_t lxw[25], lyz[25], from[6];
    int nxw = 0, nyz = 0;
    for (int a = 0; a < n[0]; a++) {
        from[a] = (uint8_t)nxw;
        for (int e = 0; e < n[3]; e++) {
            unsigned m = ok[0][a] & ok[3][e];
            if (m && (m = pair_fits(b, l, nl, m, 0, v[0][a], v[3][e])) != 0) mxw[nxw] = m, lxw[nxw++] = (uint8_t)e;
        }
    }
    from[n[0]] = (uint8_t)nxw;
    if (!nxw) return 0;
    for (int c0 = 0; c0 < n[1]; c0++)
        for (int c1 = 0; c1 < n[2]; c1++) {
            unsigned m = ok[1][c0] & ok[2][c1];
            if (m && (m = pair_fits(b, l, nl, m, 1, v[1][c0], v[2][c1])) != 0)
                myz[nyz] = m, lyz[nyz++] = (uint8_t)(c0 * 5 + c1);
        }
    for (int a = 0; a < n[0]; a++)
        for (int k = 0; k < nyz; k++) {
            int c0 = lyz[k] / 5, c1 = lyz[k] % 5;
            for (int x = from[a]; x < from[a + 1]; x++) {
                int e = lxw[x];
                if (!(mxw[x] & myz[k])) continue;
                if (inner && (a & 3) && (c0 & 3) && (c1 & 3) && (e & 3)) continue;
                const float t[4] = { v[0][a], v[1][c0], v[2][c1], v[3][e] };
                if (try_rotation(cv, root, out, t, q)) return 1;
            }
        }
    return 0;
}

/* q0 or a quaternion one float step from it in some components (or the other zero) that
 * fwd_rotation maps to `out` bit for bit: into q, 1; else 0. */
static int near_rotation(const gltf_conv *cv, int root, bounds *b, int *ready, const float out[4], const float q0[4],
                         float q[4])
{
    /* q0 itself first, unbounded: it is most often the answer */
    if (try_rotation(cv, root, out, q0, q)) return 1;
    if (!*ready) bounds_init(b, cv, root, out), *ready = 1;
    float v[4][5];
    int n[4];
    for (int i = 0; i < 4; i++) n[i] = variants(q0[i], v[i]);
    return search_set(cv, root, b, out, (const float(*)[5])v, n, 0, q);
}

/* Whether v is one of st[i][0..4] (the floats from st[i][0] to st[i][4], a zero of the
 * sign one of them has) */
static int on_grid(const float st[4][5], int i, float v)
{
    if (!(v >= st[i][0] && v <= st[i][4])) return 0;
    if (v != 0) return 1;
    for (int j = 0; j < 5; j++)
        if (same_float(st[i][j], v)) return 1;
    return 0;
}

/* ---- the lengths a few steps away, a whole length at once ----------------------------------------
 * At one length every candidate is the base t or t with one component nudged, so one pair,
 * (x, w) or (y, z), keeps t's values. fwd_rotation maps a candidate to `out` only if that
 * pair's turned values, divided by the candidate's s, lie in their intervals B: so s lies
 * in the window of s that pair allows, made once per length from t (pair_window). A nudge
 * of x or w needs the window of (y, z), and the other way round; t itself needs both. The
 * s a candidate may have is known from its squared length (s_meets), so a length where no
 * window meets the lengths its candidates make is passed over whole, and a candidate whose
 * window misses its own length is not tried. Like the bounds above, a necessary condition
 * widened far beyond the arithmetic's error: the candidates tried keep their order. */

/* Narrows [*a, *b] to the s > 0 for which some value within e of x lies in s [lo, hi]. */
static void s_window(double x, double e, double lo, double hi, double *a, double *b)
{
    double xh = x + e, xl = x - e;
    /* lo s <= xh */
    if (lo > 0) {
        double r = xh / lo;
        if (r < *b) *b = r;
    } else if (lo < 0) {
        if (xh < 0 && xh / lo > *a) *a = xh / lo;
    } else if (xh < 0) {
        *b = -1;
    }
    /* hi s >= xl */
    if (hi > 0) {
        if (xl > 0 && xl / hi > *a) *a = xl / hi;
    } else if (hi < 0) {
        double r = xl / hi;
        if (r < *b) *b = r;
    } else if (xl > 0) {
        *b = -1;
    }
}

/* The window [w[0], w[1]] of s for the pair (x, w) (pair 0) or (y, z) (pair 1) of t: its
 * turned values as pair_fits computes them, within the same slack. */
static void pair_window(const bounds *b, const float t[4], int pair, double w[2])
{
    int i = pair ? 1 : 0, j = pair ? 2 : 3;
    double u = t[i], v = t[j], du, dv;
    turn_pair(b, pair, u, v, &du, &dv);
    double slack = 0x1p-48 * (fabs(u) + fabs(v));
    w[0] = 0;
    w[1] = INFINITY;
    s_window(du, slack, b->bl[i], b->bh[i], &w[0], &w[1]);
    s_window(dv, slack, b->bl[j], b->bh[j], &w[0], &w[1]);
    w[0] *= 1 - 0x1p-40; /* the divisions' rounding */
    w[1] *= 1 + 0x1p-40;
}

/* Whether an s fwd_rotation may divide by for a squared length in [mlo, mhi] (within
 * 2^-36) lies in [slo, shi]: 1 in the unit band, else its square root. */
static int s_meets(int unit_none, double mlo, double mhi, double slo, double shi)
{
    mlo *= 1 - 0x1p-36;
    mhi *= 1 + 0x1p-36;
    if (!(mlo > 0) || !isfinite(mhi)) return 1; /* not judged */
    if (!(slo <= shi)) return 0;
    if (!unit_none && mlo <= 1 + EXACT_UNIT_BAND && mhi >= 1 - EXACT_UNIT_BAND && slo <= 1 && shi >= 1) return 1;
    if (mlo < 1 - EXACT_UNIT_BAND || mhi > 1 + EXACT_UNIT_BAND)
        return mlo <= shi * shi * (1 + 0x1p-40) && mhi >= slo * slo * (1 - 0x1p-40);
    return 0;
}

/* Whether the turned values e of a candidate (each within its pair's slack, slack[0] for
 * (x, w), slack[1] for (y, z), of fwd_rotation's) lie in their intervals B scaled by an s
 * fwd_rotation may divide by for the squared length m (within 2^-36): 1 in the unit band
 * (unless no pair turns into B there), else its square root. */
static int turned_fit(const bounds *b, const double e[4], const double slack[2], double m)
{
    double lo = m * (1 - 0x1p-36), hi = m * (1 + 0x1p-36);
    if (!(lo > 0) || !isfinite(hi)) return 1; /* not judged */
    for (int pass = 0; pass < 2; pass++) {
        double s0 = 1, s1 = 1;
        if (pass == 0) {
            if (b->unit_none || !(lo <= 1 + EXACT_UNIT_BAND && hi >= 1 - EXACT_UNIT_BAND)) continue;
        } else {
            if (!(lo < 1 - EXACT_UNIT_BAND) && !(hi > 1 + EXACT_UNIT_BAND)) continue;
            s0 = sqrt(lo) * (1 - 0x1p-40);
            s1 = sqrt(hi) * (1 + 0x1p-40);
        }
        int all = 1;
        for (int i = 0; i < 4 && all; i++) {
            double sl = slack[i == 1 || i == 2];
            double l0 = b->bl[i] * s0, l1 = b->bl[i] * s1, h0 = b->bh[i] * s0, h1 = b->bh[i] * s1;
            all = e[i] + sl >= (l0 < l1 ? l0 : l1) && e[i] - sl <= (h0 > h1 ? h0 : h1);
        }
        if (all) return 1;
    }
    return 0;
}

/* ---- the lengths a few steps away, linearised ---------------------------------------------
 * For a key with no match in the unit band (unit_none), a match u at another length is
 * normalised: fwd_rotation writes out[i] = float(dd[i] / ss), dd = C u in double and ss the
 * square root of the sum of their squares. The division is rounded once and B is widened by
 * 2^-40 for it, so dd[i] / ss lies in [bl[i], bh[i]]. Every candidate of these lengths is
 * u = q0 + delta, q0 the key's normalised rounding (n = |q0| within [0.9, 1.1] and every
 * |q0[i]| <= 1.1: linear_init) and delta small: the length's scale moves each component by
 * at most 8 2^-24 |q0[i]|, the float rounding by half a step and the nudge by a step (a
 * step <= 2^-23 for |u[i]| < 2), so |delta| <= 2^-21 1.1 + 2^-23 + 2^-23 < 2^-20 and
 * eps = |delta| / n < 2^-19.8.
 *
 * f(u) = C u / |u| (exact reals) is then, with qh = q0 / n and a = qh . delta,
 *     f(u) = C qh + (C delta - C qh a) / n + E,   |E[i]| <= 6 eps^2 < 2^-37:
 * 1 / |u| = (1 / n) (1 + x)^(-1/2), x = 2 a / n + eps^2, |x| <= 3 eps; (1 + x)^(-1/2) =
 * 1 - x / 2 + R, |R| <= 0.4 x^2; so f(u) = (C qh + C delta / n) (1 - a / n + R'), |R'| <=
 * eps^2 / 2 + 3.6 eps^2, and the terms left out of the linear part are C delta a / n^2
 * (<= eps^2) and (C qh + C delta / n) R' (<= 4.2 eps^2 (1 + eps)), C orthogonal within
 * 2^-52. fwd_rotation's dd[i] / ss is f(u)[i] within 2^-48 (dd[i] within 2^-51 of (C u)[i]:
 * two products and a sum of values below 1.1; ss within 2^-49 of |u| >= 0.89), and the
 * linear value computed below is within 2^-49 of the real one (qh, C qh, G and 1 / n rounded
 * a few times, c + sum over j of delta[j] G[j] summed in four roundings of values below 1.2,
 * a nudge's sum rounded once more). So a match
 * has every linear value within B widened by 2^-37 + 2^-48 + 2^-49 < 2^-36.9: EXACT_LIN_TOL
 * = 2^-35 is four times that, and a candidate the test rejects cannot match.
 *
 * No square root or division per candidate: a nudge of component j by nu (the float step,
 * exact in double) adds nu G[j], G[j] = (C e_j - C qh qh[j]) / n made once per key, and t's
 * linear values are C qh + sum over j of (t[j] - q0[j]) G[j] (the same linear part: t -
 * q0 is exact in double). When t[j] has q0[j]'s sign and exponent and a mantissa not
 * zero, both its neighbours are that exponent's float step away, so nu G[j] for either is
 * made once per key too (x, gen). A candidate whose squared length lies in the
 * unit band (within 2^-36, as turned_fit) cannot match (unit_none) and is not tried. The
 * candidates tried keep their order; each is still checked by fwd_rotation. */
#define EXACT_LIN_TOL 0x1p-35

typedef struct linear {
    double c[4];         /* C qh */
    double qh[4];        /* q0 / n */
    double rn;           /* 1 / n */
    double g[4][4];      /* G[j] */
    double lo[4], hi[4]; /* B widened by EXACT_LIN_TOL */
    /* nu G[j] of the nudges of a t[j] with q0[j]'s sign and exponent bits (gen[j]; 1, which
     * no t[j] has, when q0[j] is not a normal number) and a mantissa not zero: both its
     * neighbours are the float step of that exponent away (nu = -ulp down, +ulp up,
     * exactly), so nudge_fits' products are these, made once per key (x[j][up]) */
    double x[4][2][4];
    uint32_t gen[4];
} linear;

/* Whether the linear test applies (unit_none, B within [-2, 2], |q0| within [0.9, 1.1],
 * every |q0[i]| <= 1.1), and its constants. */
static int linear_init(const bounds *b, const float q0[4], linear *ln)
{
    ln->rn = 0; /* every member set before any is read (gcc -O2 cannot tell) */
    if (!b->unit_none || !b->turned) return 0;
    double n2 = 0;
    for (int i = 0; i < 4; i++) {
        if (!(fabs(b->bl[i]) <= 2 && fabs(b->bh[i]) <= 2 && fabsf(q0[i]) <= 1.1f)) return 0;
        n2 += (double)q0[i] * q0[i];
    }
    double n = sqrt(n2);
    if (!(n >= 0.9 && n <= 1.1)) return 0;
    ln->rn = 1 / n;
    for (int i = 0; i < 4; i++) {
        ln->qh[i] = q0[i] / n;
        ln->lo[i] = b->bl[i] - EXACT_LIN_TOL;
        ln->hi[i] = b->bh[i] + EXACT_LIN_TOL;
    }
    turn_pair(b, 0, ln->qh[0], ln->qh[3], &ln->c[0], &ln->c[3]);
    turn_pair(b, 1, ln->qh[1], ln->qh[2], &ln->c[1], &ln->c[2]);
    /* C e_j, as turn_pair turns the unit vectors (x -> (cw, 0, 0, -cx), y -> (0, cw, cx, 0) ...) */
    const double ce[4][4] = {
        { b->cw, 0, 0, -b->cx }, { 0, b->cw, b->cx, 0 }, { 0, -b->cx, b->cw, 0 }, { b->cx, 0, 0, b->cw }
    };
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) ln->g[j][i] = (ce[j][i] - ln->c[i] * ln->qh[j]) * ln->rn;
    for (int j = 0; j < 4; j++) {
        uint32_t bits;
        memcpy(&bits, &q0[j], sizeof bits);
        uint32_t e = bits >> 23 & 0xff;
        ln->gen[j] = e >= 1 && e <= 254 ? bits & 0xff800000u : 1;                     /* 1: no t[j]'s bits masked */
        uint64_t ub = (uint64_t)(e >= 1 && e <= 254 ? e + (1023 - 150) : 1023) << 52; /* 2^(e - 150), the step */
        double ulp;
        memcpy(&ulp, &ub, sizeof ulp);
        for (int i = 0; i < 4; i++) {
            ln->x[j][0][i] = -ulp * ln->g[j][i];
            ln->x[j][1][i] = ulp * ln->g[j][i];
        }
    }
    return 1;
}

/* Whether every l[i] lies in [lo[i], hi[i]] (all compared, one branch; SSE2 as nudge_fits) */
static int linear_fits(const linear *ln, const double l[4])
{
#if defined(__SSE2__)
    __m128d l01 = _mm_set_pd(l[1], l[0]), l23 = _mm_set_pd(l[3], l[2]); /* l was stored one by one */
    __m128d in01 = _mm_and_pd(_mm_cmpge_pd(l01, _mm_loadu_pd(ln->lo)), _mm_cmple_pd(l01, _mm_loadu_pd(ln->hi)));
    __m128d in23 = _mm_and_pd(_mm_cmpge_pd(l23, _mm_loadu_pd(ln->lo + 2)), _mm_cmple_pd(l23, _mm_loadu_pd(ln->hi + 2)));
    return _mm_movemask_pd(_mm_and_pd(in01, in23)) == 3;
#else
    return (l[0] >= ln->lo[0]) & (l[0] <= ln->hi[0]) & (l[1] >= ln->lo[1]) & (l[1] <= ln->hi[1]) & (l[2] >= ln->lo[2]) &
           (l[2] <= ln->hi[2]) & (l[3] >= ln->lo[3]) & (l[3] <= ln->hi[3]);
#endif
}

/* Whether a squared length mu (within 2^-36 of fwd_rotation's) lies in the unit band, where
 * no candidate matches (unit_none). */
static int in_band(double mu)
{
    return mu * (1 + 0x1p-36) <= 1 + EXACT_UNIT_BAND && mu * (1 - 0x1p-36) >= 1 - EXACT_UNIT_BAND;
}

/* Whether every x[i] lies in [sl[i], sh[i]]: nudge_fits (below) with its products made. */
static inline int x_fits(const double x[4], const double sl[4], const double sh[4])
{
#if defined(__SSE2__)
    __m128d x01 = _mm_loadu_pd(x), x23 = _mm_loadu_pd(x + 2);
    __m128d in01 = _mm_and_pd(_mm_cmpge_pd(x01, _mm_loadu_pd(sl)), _mm_cmple_pd(x01, _mm_loadu_pd(sh)));
    __m128d in23 = _mm_and_pd(_mm_cmpge_pd(x23, _mm_loadu_pd(sl + 2)), _mm_cmple_pd(x23, _mm_loadu_pd(sh + 2)));
    return _mm_movemask_pd(_mm_and_pd(in01, in23)) == 3;
#else
    return (x[0] >= sl[0]) & (x[0] <= sh[0]) & (x[1] >= sl[1]) & (x[1] <= sh[1]) & (x[2] >= sl[2]) & (x[2] <= sh[2]) &
           (x[3] >= sl[3]) & (x[3] <= sh[3]);
#endif
}

/* Whether every nu g[i] lies in [sl[i], sh[i]]: all four compared, with one branch (which
 * of the eight compares fails first the processor cannot foretell). With SSE2 in two
 * pairs: the same products and compares, the same answer. */
static inline int nudge_fits(double nu, const double g[4], const double sl[4], const double sh[4])
{
#if defined(__SSE2__)
    __m128d n = _mm_set1_pd(nu), x01 = _mm_mul_pd(n, _mm_loadu_pd(g)), x23 = _mm_mul_pd(n, _mm_loadu_pd(g + 2));
    __m128d in01 = _mm_and_pd(_mm_cmpge_pd(x01, _mm_loadu_pd(sl)), _mm_cmple_pd(x01, _mm_loadu_pd(sh)));
    __m128d in23 = _mm_and_pd(_mm_cmpge_pd(x23, _mm_loadu_pd(sl + 2)), _mm_cmple_pd(x23, _mm_loadu_pd(sh + 2)));
    return _mm_movemask_pd(_mm_and_pd(in01, in23)) == 3;
#else
    double x0 = nu * g[0], x1 = nu * g[1], x2 = nu * g[2], x3 = nu * g[3];
    return (x0 >= sl[0]) & (x0 <= sh[0]) & (x1 >= sl[1]) & (x1 <= sh[1]) & (x2 >= sl[2]) & (x2 <= sh[2]) &
           (x3 >= sl[3]) & (x3 <= sh[3]);
#endif
}

/* Bit j: t[j] has q0[j]'s sign and exponent (gen) and a mantissa not zero, so that its
 * nudges' products are ln->x[j] (SSE2: the same four compares at once). */
static unsigned generic_mask(const linear *ln, const float t[4])
{
#if defined(__SSE2__)
    __m128i tb = _mm_castps_si128(_mm_loadu_ps(t)), gen = _mm_loadu_si128((const __m128i *)(const void *)ln->gen);
    __m128i same = _mm_cmpeq_epi32(_mm_and_si128(tb, _mm_set1_epi32((int)0xff800000u)), gen);
    __m128i zero = _mm_cmpeq_epi32(_mm_and_si128(tb, _mm_set1_epi32(0x7fffff)), _mm_setzero_si128());
    return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_andnot_si128(zero, same)));
#else
    unsigned m = 0;
    for (int j = 0; j < 4; j++) {
        uint32_t bits;
        memcpy(&bits, &t[j], sizeof bits);
        m |= (unsigned)((bits & 0xff800000u) == ln->gen[j] && (bits & 0x7fffffu)) << j;
    }
    return m;
#endif
}

/* t with component j replaced by its neighbour v (a nudge that passed the linear test):
 * passed over when its squared length may lie in the unit band (edge), else tried. */
static int try_nudge(const gltf_conv *cv, int root, const float out[4], const float t[4], double m, int edge, int j,
                     float v, float q[4])
{
    if (edge && in_band(m - (double)t[j] * t[j] + (double)v * v)) return 0;
    float u[4];
    memcpy(u, t, sizeof u);
    u[j] = v;
    return try_rotation(cv, root, out, u, q);
}

/* The candidates of the length of t (t, then the nudges in the old order) judged by the
 * linear test: the first that fwd_rotation maps to out into q, 1; else 0. m is |t|^2 as
 * the caller sums it; edge, whether some candidate's squared length may lie in the band. */
static int linear_length(const gltf_conv *cv, int root, const linear *ln, const float out[4], const float q0[4],
                         const float t[4], double m, int edge, float q[4])
{
    double l[4];
    for (int i = 0; i < 4; i++) l[i] = ln->c[i];
    for (int j = 0; j < 4; j++) {
        double d = (double)t[j] - q0[j]; /* exact: two floats this close */
        for (int i = 0; i < 4; i++) l[i] += d * ln->g[j][i];
    }
    if (linear_fits(ln, l) && !(edge && in_band(m)) && try_rotation(cv, root, out, t, q)) return 1;
    /* a nudge passes when every nu G[j][i] lies in [lo[i] - l[i], hi[i] - l[i]]: near a
     * match both sides are below 2^-21, their roundings below 2^-74, far inside
     * EXACT_LIN_TOL's margin */
    double sl[4], sh[4];
#if defined(__SSE2__) /* stored as the pairs nudge_fits loads (a pair loaded from two scalar stores waits) */
    __m128d l01 = _mm_set_pd(l[1], l[0]), l23 = _mm_set_pd(l[3], l[2]);
    _mm_storeu_pd(sl, _mm_sub_pd(_mm_loadu_pd(ln->lo), l01));
    _mm_storeu_pd(sl + 2, _mm_sub_pd(_mm_loadu_pd(ln->lo + 2), l23));
    _mm_storeu_pd(sh, _mm_sub_pd(_mm_loadu_pd(ln->hi), l01));
    _mm_storeu_pd(sh + 2, _mm_sub_pd(_mm_loadu_pd(ln->hi + 2), l23));
#else
    for (int i = 0; i < 4; i++) sl[i] = ln->lo[i] - l[i], sh[i] = ln->hi[i] - l[i];
#endif
    unsigned gm = generic_mask(ln, t);
    for (int j = 0; j < 4; j++) {
        float nb[2]; /* t[j]'s neighbours below and above (step) */
        uint32_t bits;
        memcpy(&bits, &t[j], sizeof bits);
        if (gm >> j & 1) { /* nudge_fits' products made (x), the same decisions */
            for (int up = 0; up < 2; up++) {
                if (!x_fits(ln->x[j][up], sl, sh)) continue;
                uint32_t nbits =
                    bits + ((bits >> 31) == (uint32_t)up ? 0xffffffffu : 1u); /* toward or away from zero */
                memcpy(&nb[up], &nbits, sizeof nb[up]);
                if (try_nudge(cv, root, out, t, m, edge, j, nb[up], q)) return 1;
            }
            continue;
        }
        if (bits & 0x7fffffffu) { /* finite (|t[j]| < 2) and not zero: one unit in the last place either way */
            uint32_t away = bits + 1, toward = bits - 1;
            memcpy(&nb[0], bits >> 31 ? &away : &toward, sizeof nb[0]);
            memcpy(&nb[1], bits >> 31 ? &toward : &away, sizeof nb[1]);
        } else {
            nb[0] = step(t[j], 0);
            nb[1] = step(t[j], 1);
        }
        for (int up = 0; up < 2; up++) {
            double nu = (double)nb[up] - (double)t[j];
            if (nudge_fits(nu, ln->g[j], sl, sh) && try_nudge(cv, root, out, t, m, edge, j, nb[up], q)) return 1;
        }
    }
    return 0;
}

/* A float q with fwd_rotation(q) == out bit for bit (1), or the nearest rounding (0). */
static int find_rotation(const gltf_conv *cv, int root, const float out[4], float q[4])
{
    double d[4] = { out[0], out[1], out[2], out[3] };
    if (root && !cv->identity) {
        const double inv[4] = { -cv->c[0], -cv->c[1], -cv->c[2], cv->c[3] };
        ganim_dq_mul(inv, d, d);
    }
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
    if (!(len > 1e-6) || !isfinite(len)) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return 0;
    }
    bounds b;
    int ready = 0; /* b is made when q0 is not the answer */
    float q0[4];
    /* A value the exporter wrote without normalising it (unit to float precision): the
     * rotation turned back as it is, and its neighbours. */
    if (fabs(len * len - 1) <= 4.76837158203125e-7) {
        for (int i = 0; i < 4; i++) q0[i] = (float)d[i];
        if (near_rotation(cv, root, &b, &ready, out, q0, q)) return 1;
    }
    for (int i = 0; i < 4; i++) q0[i] = (float)(d[i] / len);
    memcpy(q, q0, sizeof q0); /* the nearest rounding, unless a search below finds better */
    if (near_rotation(cv, root, &b, &ready, out, q0, q)) return 1;
    if (!ready) bounds_init(&b, cv, root, out);
    /* two float steps each way; st[i][s + 2] is q0[i] moved s float steps */
    float st[4][5];
    for (int i = 0; i < 4; i++) {
        st[i][2] = q0[i];
        st[i][3] = step(q0[i], 1);
        st[i][4] = step(st[i][3], 1);
        st[i][1] = step(q0[i], 0);
        st[i][0] = step(st[i][1], 0);
    }
    static const int five[4] = { 5, 5, 5, 5 };
    if (search_set(cv, root, &b, out, (const float(*)[5])st, five, 1, q)) return 1;
    /* Rarely no float vector of that length normalises to `out`: try lengths a few float
     * steps away (still unit to float precision), each with one component nudged. A length
     * whose candidates are all in the unit band when none matches there is passed over; so
     * is one where no window of s (pair_window) meets the lengths its candidates make. A
     * candidate is tried when its turned values fit B at its own s (turned_fit). A
     * candidate whose every component is on the grid above was tried there in vain (or
     * shown in vain): fwd_rotation gives the same answer again, so it is skipped. */
    linear ln;
    int lin = linear_init(&b, q0, &ln); /* the candidates judged by the linear test */
    for (int k = 1; k <= 16; k++) {
        int steps = (k + 1) / 2; /* 1, 1, 2, 2, ... float steps, alternately up and down */
        double scale = 1 + (k & 1 ? 1 : -1) * steps * 5.9604644775390625e-8;
        float t[4];
        double m = 0;
        for (int i = 0; i < 4; i++) {
            t[i] = (float)(q0[i] * scale);
            m += (double)t[i] * t[i];
        }
        /* the lengths a nudge makes: one float step, at most 2^-23 |t[j]| for a normal t[j]
         * and 2^-149 else, changes |t|^2 by at most dm = 2^-22 t[j]^2 (1 + 2^-24) + 2^-200;
         * the windows of s of t's pairs; w[2] both (t itself); a nudge of a component of
         * one pair needs the other's window: decided for the lengths it may make */
        double w[3][2], dm[2];
        for (int p = 0; p < 2; p++) {
            double a = p ? t[1] : t[0], c = p ? t[2] : t[3];
            dm[p] = 0x1.01p-22 * (a * a > c * c ? a * a : c * c) + 0x1p-200;
        }
        if (b.unit_none) { /* every candidate of the length in the unit band: none matches */
            double dmax = dm[0] > dm[1] ? dm[0] : dm[1];
            double lo = (m - dmax) * (1 - 0x1p-36), hi = (m + dmax) * (1 + 0x1p-36);
            if (lo >= 1 - EXACT_UNIT_BAND && hi <= 1 + EXACT_UNIT_BAND) continue;
            if (lin) {
                int edge = !(lo > 1 + EXACT_UNIT_BAND || hi < 1 - EXACT_UNIT_BAND);
                if (linear_length(cv, root, &ln, out, q0, t, m, edge, q)) return 1;
                continue;
            }
        }
        pair_window(&b, t, 0, w[0]);
        pair_window(&b, t, 1, w[1]);
        w[2][0] = w[0][0] > w[1][0] ? w[0][0] : w[1][0];
        w[2][1] = w[0][1] < w[1][1] ? w[0][1] : w[1][1];
        int base = s_meets(b.unit_none, m, m, w[2][0], w[2][1]);
        int nudge[2] = { s_meets(b.unit_none, m - dm[0], m + dm[0], w[1][0], w[1][1]),
                         s_meets(b.unit_none, m - dm[1], m + dm[1], w[0][0], w[0][1]) };
        if (!base && !nudge[0] && !nudge[1]) continue;
        /* t's turned pairs; a nudge changes one pair, the other keeps these */
        double e0[4], sl0[2];
        turn_pair(&b, 0, t[0], t[3], &e0[0], &e0[3]);
        turn_pair(&b, 1, t[1], t[2], &e0[1], &e0[2]);
        sl0[0] = 0x1p-48 * (fabs((double)t[0]) + fabs((double)t[3]));
        sl0[1] = 0x1p-48 * (fabs((double)t[1]) + fabs((double)t[2]));
        int ons = 0, on[4];
        for (int j = 0; j < 4; j++) ons += on[j] = on_grid((const float(*)[5])st, j, t[j]);
        /* t itself, then the nudges in the order x down, x up, y down, ..., w up */
        if (base && ons < 4 && turned_fit(&b, e0, sl0, m) && try_rotation(cv, root, out, t, q)) return 1;
        for (int j = 0; j < 4; j++) {
            int p = j == 1 || j == 2, a = p ? 1 : 0, c = p ? 2 : 3; /* j's pair; the other keeps t's values */
            if (!nudge[p]) continue;
            double mj = m - (double)t[j] * t[j];
            int grid = ons - on[j] == 3;
            for (int up = 0; up < 2; up++) {
                float u[4];
                memcpy(u, t, sizeof u);
                u[j] = step(t[j], up);
                if (grid && on_grid((const float(*)[5])st, j, u[j])) continue;
                double mu = mj + (double)u[j] * u[j];
                if (!s_meets(b.unit_none, mu, mu, w[!p][0], w[!p][1])) continue;
                double e[4], sl[2];
                memcpy(e, e0, sizeof e);
                turn_pair(&b, p, u[a], u[c], &e[a], &e[c]);
                sl[!p] = sl0[!p];
                sl[p] = 0x1p-48 * (fabs((double)u[a]) + fabs((double)u[c]));
                if (!turned_fit(&b, e, sl, mu)) continue;
                if (try_rotation(cv, root, out, u, q)) return 1;
            }
        }
    }
    return 0;
}

int gltf_undo_rotation(const gltf_conv *cv, int root, const float out[4], float q[4])
{
    if (find_rotation(cv, root, out, q)) return 1;
    /* Without a zero in `out` the negated search cannot succeed where this one failed:
     * the exporter's arithmetic is symmetric under negation except for the sign of a zero
     * result (fwd_rotation(-t) == -fwd_rotation(t) whenever no component is zero), and the
     * candidates tried for -out are the negations of those tried for out. */
    if (out[0] != 0 && out[1] != 0 && out[2] != 0 && out[3] != 0) return 1;
    /* The exporter negates a key that points away from the previous one, which may leave
     * a -0 its arithmetic never makes: the negated key, negated again on export, gives it. */
    const float neg[4] = { -out[0], -out[1], -out[2], -out[3] };
    float alt[4];
    if (find_rotation(cv, root, neg, alt)) memcpy(q, alt, sizeof alt);
    return 2;
}

/* Whether a double known within slack may round to the float o: 0 only when it cannot. */
static int near_float(double d, double slack, float o)
{
    float a = fabsf(o);
    if (!(a >= FLT_MIN && a <= 1e30f)) return 1; /* a zero, subnormal, huge or no number: not judged */
    uint32_t bits;
    memcpy(&bits, &a, sizeof bits);
    bits++;
    float up;
    memcpy(&up, &bits, sizeof up);
    double h = ((double)up - a) * 0.5 * (1 + 0x1p-20) + slack; /* the larger half step, widened */
    return fabs(d - (double)o) <= h;
}

void gltf_undo_translation(const gltf_conv *cv, int root, const float out[3], float t[3])
{
    double d[3] = { out[0], out[1], out[2] };
    if (root && !cv->identity) {
        const double inv[4] = { -cv->c[0], -cv->c[1], -cv->c[2], cv->c[3] };
        ganim_dq_rot(inv, d, d);
    }
    float t0[3], back[3];
    for (int i = 0; i < 3; i++) t0[i] = (float)(d[i] / cv->unit);
    memcpy(t, t0, sizeof t0);
    if (cv->identity && cv->unit == 1) return;
    fwd_translation(cv, root, t0, back);
    if (!memcmp(back, out, sizeof back)) return;
    float v[3][4];
    int nv[3];
    for (int i = 0; i < 3; i++) nv[i] = variants(t0[i], v[i]);
    /* Pruned as the rotations are: C turns about X, so the turned x depends on x alone and
     * y, z on y, z (the dropped terms are zeros). A candidate whose x, or whose y, z, lands
     * farther from `out` than its float rounding allows (widened far beyond the double
     * arithmetic's error) cannot match and is not tried; those tried keep their order. */
    int sep = !root || cv->identity || (cv->c[1] == 0 && cv->c[2] == 0);
    double qx = root && !cv->identity ? cv->c[0] : 0, qw = root && !cv->identity ? cv->c[3] : 1;
    uint8_t okx[4], okyz[4][4];
    for (int a = 0; a < nv[0]; a++) okx[a] = !sep || near_float(v[0][a] * cv->unit, 0, out[0]);
    for (int b = 0; b < nv[1]; b++)
        for (int c = 0; c < nv[2]; c++) {
            double y = v[1][b] * cv->unit, z = v[2][c] * cv->unit; /* ganim_dq_rot's arithmetic */
            double ty = 2 * -(qx * z), tz = 2 * (qx * y), slack = 0x1p-48 * (fabs(y) + fabs(z));
            okyz[b][c] = !sep || (near_float(y + qw * ty - qx * tz, slack, out[1]) &&
                                  near_float(z + qw * tz + qx * ty, slack, out[2]));
        }
    for (int a = 0; a < nv[0]; a++)
        for (int b = 0; b < nv[1]; b++)
            for (int c = 0; c < nv[2]; c++) {
                if (!okx[a] || !okyz[b][c]) continue;
                float x[3] = { v[0][a], v[1][b], v[2][c] };
                fwd_translation(cv, root, x, back);
                if (!memcmp(back, out, sizeof back)) {
                    memcpy(t, x, sizeof x);
                    return;
                }
            }
}

/* ---- folding -------------------------------------------------------------------------------- */

int gltf_normalize_quat(float q[4])
{
    double d[4] = { q[0], q[1], q[2], q[3] };
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
    if (!(len > 1e-12) || !isfinite(len)) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return 0;
    }
    if (len == 1) return 1;
    for (int i = 0; i < 4; i++) q[i] = (float)(d[i] / len);
    return 1;
}

void gltf_fold_rotation(const gltf_fold *fd, float q[4])
{
    double d[4] = { q[0], q[1], q[2], q[3] };
    ganim_dq_mul(fd->r, d, d);
    for (int i = 0; i < 4; i++) q[i] = (float)d[i];
    gltf_normalize_quat(q);
}

void gltf_fold_translation(const gltf_fold *fd, float t[3])
{
    double d[3] = { t[0] * fd->s[0], t[1] * fd->s[1], t[2] * fd->s[2] };
    ganim_dq_rot(fd->r, d, d);
    for (int i = 0; i < 3; i++) t[i] = (float)(d[i] + fd->t[i]);
}

void gltf_fold_scale(const gltf_fold *fd, float s[3])
{
    for (int i = 0; i < 3; i++) s[i] = (float)(s[i] * fd->s[i]);
}
