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
#if defined(__GNUC__)
#define EXACT_OUT_OF_LINE __attribute__((noinline))
#else
#define EXACT_OUT_OF_LINE
#endif
static EXACT_OUT_OF_LINE void fwd_translation(const gltf_conv *cv, int root, const float t[3], float out[3])
{
    double d[3] = { t[0] * cv->unit, t[1] * cv->unit, t[2] * cv->unit };
    if (root && !cv->identity) ganim_dq_rot(cv->c, d, d);
    for (int i = 0; i < 3; i++) out[i] = (float)d[i];
}

/* nextafterf(v, up ? INFINITY : -INFINITY), without the call for a finite v */
static float step(float v, int up)
{
    if (!isfinite(v)) return nextafterf(v, up ? INFINITY : -INFINITY);
    uint32_t b;
    memcpy(&b, &v, sizeof b);
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

/* ---- pruning the search ---------------------------------------------------------------------
 * The search tries hundreds of candidates t in a fixed order and keeps the first with
 * fwd_rotation(t) == out. fwd_rotation writes out[i] = float(d[i] / s), d = C t (or t) and
 * s = 1 or the length of d; C is a turn about X (x and w only, as gltf_conv_from_text makes
 * it), so d's x and w depend on t's x and w alone, d's y and z on y and z alone (the product's
 * other terms are zeros, which change a nonzero sum not at all). A match needs, for every i
 * with a normal out[i], |d[i] / s - out[i]| <= half a float step of out[i] (plus the double
 * division's rounding): s within [|d[i]| / (|out[i]| + h), |d[i]| / (|out[i]| - h)], d[i] of
 * out[i]'s sign. A pair of components gives the intersection of its two intervals; a
 * candidate whose x,w interval and y,z interval do not meet cannot match and is not tried.
 * The intervals are widened far beyond their rounding errors, so only candidates that
 * cannot match are skipped: the candidates tried, in the same order, give the same first
 * match, bit for bit (tests/formats/gltf/test_gltf_undo_search.c against the full search). */
typedef struct span {
    double lo, hi; /* lo > hi: empty */
    double n;      /* the pair's part of the squared length: d[i]^2 + d[j]^2 */
} span;

typedef struct prune {
    int ready;      /* the fields below are set (prune_init) */
    int turned, on; /* on: C turns x,w and y,z apart (else every candidate is tried) */
    double cx, cw;
    double rlo[4], rhi[4]; /* 1 / (|out[i]| + h), 1 / (|out[i]| - h), h its widened half step,
                            * widened by 2^-45 for the products' rounding; rlo < 0: no bound */
} prune;

static void prune_init(prune *p, const gltf_conv *cv, int root, const float out[4])
{
    p->ready = 1;
    p->turned = root && !cv->identity;
    p->on = !p->turned || (cv->c[1] == 0 && cv->c[2] == 0);
    p->cx = cv->c[0];
    p->cw = cv->c[3];
    for (int i = 0; i < 4; i++) {
        float a = fabsf(out[i]);
        p->rlo[i] = p->rhi[i] = -1;
        if (a >= FLT_MIN && a <= 1e30f) { /* normal, far from overflow */
            uint32_t bits;
            memcpy(&bits, &a, sizeof bits);
            bits++;
            float up;
            memcpy(&up, &bits, sizeof up);
            double h = ((double)up - a) * 0.5 * (1 + 0x1p-20); /* the larger of the two half steps */
            p->rlo[i] = 1 / (a + h) * (1 - 0x1p-45);
            p->rhi[i] = 1 / (a - h) * (1 + 0x1p-45);
        }
    }
}

/* Narrows *s to the values of s for which float(d / s) can be out[i]; d is known within
 * slack (an operation order or a fused multiply-add other than the exporter's). */
static inline void span_narrow(const prune *p, int i, double d, double slack, const float *out, span *s)
{
    if (p->rlo[i] < 0) return;
    if (!(d * out[i] > 0) && !(fabs(d) <= slack)) { /* the wrong sign, or not a number */
        s->lo = 1, s->hi = 0;
        return;
    }
    double b = fabs(d);
    double lo = (b - slack) * p->rlo[i], hi = (b + slack) * p->rhi[i];
    if (lo > s->lo) s->lo = lo;
    if (hi < s->hi) s->hi = hi;
}

/* The interval of s allowed by the pair (x, w) (pair 0) or (y, z) (pair 1) at values u, v. */
static inline span pair_span(const prune *p, int pair, float u, float v, const float out[4])
{
    span s = { 0, INFINITY, 0 };
    if (!p->on) return s;
    double du = u, dv = v;
    if (p->turned) { /* ganim_dq_mul(C, t) without its zero terms */
        if (pair == 0) {
            du = p->cw * u + p->cx * v;
            dv = p->cw * v - p->cx * u;
        } else {
            du = p->cw * u - p->cx * v;
            dv = p->cw * v + p->cx * u;
        }
    }
    double slack = 0x1p-48 * (fabs((double)u) + fabs((double)v));
    s.n = du * du + dv * dv;
    span_narrow(p, pair ? 1 : 0, du, slack, out, &s);
    span_narrow(p, pair ? 2 : 3, dv, slack, out, &s);
    return s;
}

/* Whether the candidate made of the pairs a and b may match: s in both spans, and s the
 * one fwd_rotation divides by: 1 when the squared length a.n + b.n (within 2^-36, far
 * more than the order of its sum and any fused operation change) is within 2^-21 of 1,
 * else its square root. */
static int spans_meet(span a, span b)
{
    double lo = a.lo > b.lo ? a.lo : b.lo, hi = a.hi < b.hi ? a.hi : b.hi;
    if (!(lo <= hi)) return 0;
    double m = a.n + b.n;
    if (lo <= 1 && 1 <= hi && fabs(m - 1) <= 4.76837158203125e-7 + 0x1p-36 * m) return 1;
    return m * (1 + 0x1p-36) >= lo * lo && m * (1 - 0x1p-36) <= hi * hi;
}

static int span_empty(span a) { return !(a.lo <= a.hi); }

/* Whether any of n spans is not empty. */
static int any_span(const span *s, int n)
{
    for (int i = 0; i < n; i++)
        if (!span_empty(s[i])) return 1;
    return 0;
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

/* q0 or a quaternion one float step from it in some components (or the other zero) that
 * fwd_rotation maps to `out` bit for bit: into q, 1; else 0. */
static int near_rotation(const gltf_conv *cv, int root, prune *p, const float out[4], const float q0[4], float q[4])
{
    /* q0 itself first, unfiltered: it is most often the answer */
    if (try_rotation(cv, root, out, q0, q)) return 1;
    if (!p->ready) prune_init(p, cv, root, out);
    float v[4][4];
    int nv[4];
    for (int i = 0; i < 4; i++) nv[i] = variants(q0[i], v[i]);
    span xw[4][4], yz[4][4];
    for (int a = 0; a < 4; a++)
        for (int e = 0; e < 4; e++)
            xw[a][e] = a < nv[0] && e < nv[3] ? pair_span(p, 0, v[0][a], v[3][e], out) : (span){ 1, 0, 0 };
    if (!any_span(&xw[0][0], 16)) return 0; /* no x, w can match: no candidate can */
    for (int b = 0; b < nv[1]; b++)
        for (int c = 0; c < nv[2]; c++) yz[b][c] = pair_span(p, 1, v[1][b], v[2][c], out);
    for (int a = 0; a < nv[0]; a++)
        for (int b = 0; b < nv[1]; b++)
            for (int c = 0; c < nv[2]; c++) {
                if (span_empty(yz[b][c])) continue;
                for (int e = 0; e < nv[3]; e++) {
                    if (!spans_meet(xw[a][e], yz[b][c])) continue;
                    const float t[4] = { v[0][a], v[1][b], v[2][c], v[3][e] };
                    if (try_rotation(cv, root, out, t, q)) return 1;
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
    prune p;
    p.ready = 0; /* made when q0 is not the answer */
    float q0[4];
    /* A value the exporter wrote without normalising it (unit to float precision): the
     * rotation turned back as it is, and its neighbours. */
    if (fabs(len * len - 1) <= 4.76837158203125e-7) {
        for (int i = 0; i < 4; i++) q0[i] = (float)d[i];
        if (near_rotation(cv, root, &p, out, q0, q)) return 1;
    }
    for (int i = 0; i < 4; i++) q0[i] = (float)(d[i] / len);
    memcpy(q, q0, sizeof q0); /* the nearest rounding, unless a search below finds better */
    if (near_rotation(cv, root, &p, out, q0, q)) return 1;
    if (!p.ready) prune_init(&p, cv, root, out);
    /* two float steps each way; st[i][s + 2] is q0[i] moved s float steps */
    float st[4][5];
    for (int i = 0; i < 4; i++) {
        st[i][2] = q0[i];
        st[i][3] = step(q0[i], 1);
        st[i][4] = step(st[i][3], 1);
        st[i][1] = step(q0[i], 0);
        st[i][0] = step(st[i][1], 0);
    }
    span xw[5][5], yz[5][5];
    for (int a = 0; a < 5; a++)
        for (int e = 0; e < 5; e++) xw[a][e] = pair_span(&p, 0, st[0][a], st[3][e], out);
    int grid = any_span(&xw[0][0], 25); /* else no candidate of the grid can match */
    for (int a = 0; a < 5 && grid; a++)
        for (int e = 0; e < 5; e++) yz[a][e] = pair_span(&p, 1, st[1][a], st[2][e], out);
    for (int a = 0; a < 5 && grid; a++)
        for (int b = 0; b < 5; b++)
            for (int c = 0; c < 5; c++) {
                if (span_empty(yz[b][c])) continue;
                for (int e = 0; e < 5; e++) {
                    if ((a & 3) && (b & 3) && (c & 3) && (e & 3)) continue; /* all within one step: tried above */
                    if (!spans_meet(xw[a][e], yz[b][c])) continue;
                    const float t[4] = { st[0][a], st[1][b], st[2][c], st[3][e] };
                    if (try_rotation(cv, root, out, t, q)) return 1;
                }
            }
    /* Rarely no float vector of that length normalises to `out`: try lengths a few float
     * steps away (still unit to float precision), each with one component nudged. */
    for (int k = 1; k <= 16; k++) {
        int steps = (k + 1) / 2; /* 1, 1, 2, 2, ... float steps, alternately up and down */
        double scale = 1 + (k & 1 ? 1 : -1) * steps * 5.9604644775390625e-8;
        float t[4];
        for (int i = 0; i < 4; i++) t[i] = (float)(q0[i] * scale);
        /* x or w nudged keeps y, z as they are and the other way round: when one pair's
         * span is empty only the candidates that change that pair can match */
        span bxw = pair_span(&p, 0, t[0], t[3], out), byz = pair_span(&p, 1, t[1], t[2], out);
        for (int i = -1; i < 8; i++) {
            span sxw = bxw, syz = byz;
            if (i >= 0) {
                int j = i / 2;
                if (span_empty(j == 0 || j == 3 ? byz : bxw)) continue;
                float n = step(t[j], i & 1);
                if (j == 0) sxw = pair_span(&p, 0, n, t[3], out);
                if (j == 3) sxw = pair_span(&p, 0, t[0], n, out);
                if (j == 1) syz = pair_span(&p, 1, n, t[2], out);
                if (j == 2) syz = pair_span(&p, 1, t[1], n, out);
            }
            if (!spans_meet(sxw, syz)) continue;
            float u[4];
            memcpy(u, t, sizeof u);
            if (i >= 0) u[i / 2] = step(t[i / 2], i & 1);
            if (try_rotation(cv, root, out, u, q)) return 1;
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
