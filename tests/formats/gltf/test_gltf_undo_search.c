/* gltf_undo_rotation's search (src/formats/gltf/gltf_exact.c) against the search it
 * replaced, kept below as the reference: the same quaternion, bit for bit, for every
 * conversion, root or not, on the keys that make it search longest (the exporter's output
 * of rotations that are not unit length, so that no near-unit float maps back to it), on
 * near-unit keys, and on keys with zero and signed-zero components (where the negated
 * retry decides). The current search precomputes the float steps, skips the negated
 * retry when no component of the key is zero and skips the candidates that the turned
 * pairs (x, w) and (y, z) show cannot match; the reference does none of it. Likewise
 * gltf_undo_translation, pruned the same way, against its reference. The keys include
 * ones several candidates map to (the first in the order must win), ones none maps to
 * (every candidate skipped or tried in vain), components at powers of two (where the float
 * step changes), subnormal, huge and non-finite ones, and pairs whose turned values nearly
 * cancel (the pair (x, w) or (y, z) of the key has floats much finer in one component than
 * in the other, where the unit-band test of the pairs visits the larger component's); the
 * test counts that each kind occurred, and that the turned conversion's keys matched in the
 * stages the bounds prune: the grid, and the lengths a few steps away in the unit band and
 * outside it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dquat.h"
#include "formats/gltf/gltf.h"
#include "test.h"

/* ---- the reference: gltf_exact.c's search before it was made faster (commit ffc0db6) ---- */

static int ref_fwd_rotation(const gltf_conv *cv, int root, const float q[4], float out[4])
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

/* Candidates for one component: the value, its neighbours, and the other zero. */
static int ref_variants(float v, float out[4])
{
    int n = 0;
    out[n++] = v;
    out[n++] = nextafterf(v, INFINITY);
    out[n++] = nextafterf(v, -INFINITY);
    if (v == 0) out[n++] = -v;
    return n;
}

/* q0 or a quaternion one float step from it in some components (or the other zero) that
 * fwd_rotation maps to `out` bit for bit: into q, 1; else 0. */
static int ref_near_rotation(const gltf_conv *cv, int root, const float out[4], const float q0[4], float q[4])
{
    float back[4];
    if (ref_fwd_rotation(cv, root, q0, back) && !memcmp(back, out, sizeof back)) {
        memcpy(q, q0, 4 * sizeof *q);
        return 1;
    }
    float v[4][4];
    int nv[4];
    for (int i = 0; i < 4; i++) nv[i] = ref_variants(q0[i], v[i]);
    for (int a = 0; a < nv[0]; a++)
        for (int b = 0; b < nv[1]; b++)
            for (int c = 0; c < nv[2]; c++)
                for (int e = 0; e < nv[3]; e++) {
                    float t[4] = { v[0][a], v[1][b], v[2][c], v[3][e] };
                    if (ref_fwd_rotation(cv, root, t, back) && !memcmp(back, out, sizeof back)) {
                        memcpy(q, t, sizeof t);
                        return 1;
                    }
                }
    return 0;
}

/* The stage of the reference's last match: 1 q0 as it is, 2 q0 normalised, 3 the grid,
 * 4 the lengths a few steps away (0: none). */
static int ref_stage;

/* A float q with ref_fwd_rotation(q) == out bit for bit (1), or the nearest rounding (0). */
static int ref_find_rotation(const gltf_conv *cv, int root, const float out[4], float q[4])
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
    float q0[4], back[4];
    ref_stage = 0;
    /* A value the exporter wrote without normalising it (unit to float precision): the
     * rotation turned back as it is, and its neighbours. */
    if (fabs(len * len - 1) <= 4.76837158203125e-7) {
        for (int i = 0; i < 4; i++) q0[i] = (float)d[i];
        ref_stage = 1;
        if (ref_near_rotation(cv, root, out, q0, q)) return 1;
    }
    for (int i = 0; i < 4; i++) q0[i] = (float)(d[i] / len);
    memcpy(q, q0, sizeof q0); /* the nearest rounding, unless a search below finds better */
    ref_stage = 2;
    if (ref_near_rotation(cv, root, out, q0, q)) return 1;
    ref_stage = 3;
    /* two float steps each way */
    for (int a = -2; a <= 2; a++)
        for (int b = -2; b <= 2; b++)
            for (int c = -2; c <= 2; c++)
                for (int e = -2; e <= 2; e++) {
                    if (abs(a) < 2 && abs(b) < 2 && abs(c) < 2 && abs(e) < 2) continue; /* tried above */
                    const int steps[4] = { a, b, c, e };
                    float t[4];
                    for (int i = 0; i < 4; i++) {
                        t[i] = q0[i];
                        for (int k = 0; k < abs(steps[i]); k++)
                            t[i] = nextafterf(t[i], steps[i] > 0 ? INFINITY : -INFINITY);
                    }
                    if (ref_fwd_rotation(cv, root, t, back) && !memcmp(back, out, sizeof back)) {
                        memcpy(q, t, sizeof t);
                        return 1;
                    }
                }
    /* Rarely no float vector of that length normalises to `out`: try lengths a few float
     * steps away (still unit to float precision), each with one component nudged. */
    ref_stage = 4;
    for (int k = 1; k <= 16; k++) {
        int steps = (k + 1) / 2; /* 1, 1, 2, 2, ... float steps, alternately up and down */
        double scale = 1 + (k & 1 ? 1 : -1) * steps * 5.9604644775390625e-8;
        float t[4];
        for (int i = 0; i < 4; i++) t[i] = (float)(q0[i] * scale);
        for (int i = -1; i < 8; i++) {
            float u[4];
            memcpy(u, t, sizeof u);
            if (i >= 0) u[i / 2] = nextafterf(u[i / 2], i & 1 ? INFINITY : -INFINITY);
            if (ref_fwd_rotation(cv, root, u, back) && !memcmp(back, out, sizeof back)) {
                memcpy(q, u, sizeof u);
                return 1;
            }
        }
    }
    ref_stage = 0;
    return 0;
}

/* 1 when a search found a quaternion that gives `out` back */
static int ref_undo_rotation(const gltf_conv *cv, int root, const float out[4], float q[4])
{
    if (ref_find_rotation(cv, root, out, q)) return 1;
    /* The exporter negates a key that points away from the previous one, which may leave
     * a -0 its arithmetic never makes: the negated key, negated again on export, gives it. */
    const float neg[4] = { -out[0], -out[1], -out[2], -out[3] };
    float alt[4];
    if (ref_find_rotation(cv, root, neg, alt)) {
        memcpy(q, alt, sizeof alt);
        return 1;
    }
    return 0;
}

/* gltf_undo_translation before it was pruned (main at cdf7b41) */
static void ref_fwd_translation(const gltf_conv *cv, int root, const float t[3], float out[3])
{
    double d[3] = { t[0] * cv->unit, t[1] * cv->unit, t[2] * cv->unit };
    if (root && !cv->identity) ganim_dq_rot(cv->c, d, d);
    for (int i = 0; i < 3; i++) out[i] = (float)d[i];
}

static void ref_undo_translation(const gltf_conv *cv, int root, const float out[3], float t[3])
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
    ref_fwd_translation(cv, root, t0, back);
    if (!memcmp(back, out, sizeof back)) return;
    float v[3][4];
    int nv[3];
    for (int i = 0; i < 3; i++) nv[i] = ref_variants(t0[i], v[i]);
    for (int a = 0; a < nv[0]; a++)
        for (int b = 0; b < nv[1]; b++)
            for (int c = 0; c < nv[2]; c++) {
                float x[3] = { v[0][a], v[1][b], v[2][c] };
                ref_fwd_translation(cv, root, x, back);
                if (!memcmp(back, out, sizeof back)) {
                    memcpy(t, x, sizeof x);
                    return;
                }
            }
}

/* How many of the quaternions one float step from q (in any components) ref_fwd_rotation
 * maps to out: 2 or more makes the search's order decide. */
static int preimages(const gltf_conv *cv, int root, const float q[4], const float out[4])
{
    float v[4][4], back[4];
    int nv[4], n = 0;
    for (int i = 0; i < 4; i++) nv[i] = ref_variants(q[i], v[i]);
    for (int a = 0; a < nv[0]; a++)
        for (int b = 0; b < nv[1]; b++)
            for (int c = 0; c < nv[2]; c++)
                for (int e = 0; e < nv[3]; e++) {
                    float t[4] = { v[0][a], v[1][b], v[2][c], v[3][e] };
                    n += ref_fwd_rotation(cv, root, t, back) && !memcmp(back, out, sizeof back);
                }
    return n;
}

/* ---- the comparison ---- */

static uint64_t rng = 0x2545F4914F6CDD1Du;
static uint64_t next64(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
static double uniform(void) { return (double)(next64() >> 11) * 0x1p-53; } /* [0, 1) */

static const char *const convs[] = { "identity", "rotate -90 deg about X", "rotate 180 deg about X" };

/* What the exporter writes for q (gx_rotation): C q for a root, normalised unless unit. */
static void exported(const gltf_conv *cv, int root, const float q[4], float out[4])
{
    if (!ref_fwd_rotation(cv, root, q, out)) out[0] = out[1] = out[2] = 0, out[3] = 1;
}

static uint32_t compared, seconds, unmatched, several, tcompared, normalised;
/* matches of the turned conversion (rotate -90 deg about X, root) by the reference's stage
 * (1..4, ref_stage), and those of the last stage in the unit band and outside it */
static uint32_t turned_stage[5], last_band, last_normalised;

static void compare(const float key[4])
{
    for (int c = 0; c < 3; c++) {
        gltf_conv cv;
        CHECK(gltf_conv_from_text(convs[c], 1, &cv));
        for (int root = 0; root <= 1; root++) {
            float want[4] = { 0, 0, 0, 0 }, got[4] = { 0, 0, 0, 0 };
            if (!ref_undo_rotation(&cv, root, key, want)) unmatched++;
            else { /* a match the exporter normalised: s is its length, not 1 (the bounds' other branch) */
                double m = 0;
                for (int i = 0; i < 4; i++) m += (double)want[i] * want[i];
                normalised += fabs(m - 1) > 4.8e-7;
                if (c == 1 && root) {
                    turned_stage[ref_stage]++;
                    if (ref_stage == 4) *(fabs(m - 1) > 4.8e-7 ? &last_normalised : &last_band) += 1;
                }
            }
            int searches = gltf_undo_rotation(&cv, root, key, got);
            /* a second (negated) search only for a key with a zero: it doubled the cost
             * of every key no search finds */
            if (key[0] != 0 && key[1] != 0 && key[2] != 0 && key[3] != 0) CHECK(searches == 1);
            if (searches == 2) seconds++;
            CHECK_MSG(!memcmp(want, got, sizeof got), "%s root %d: key %a %a %a %a: %a %a %a %a, reference %a %a %a %a",
                      convs[c], root, (double)key[0], (double)key[1], (double)key[2], (double)key[3], (double)got[0],
                      (double)got[1], (double)got[2], (double)got[3], (double)want[0], (double)want[1], (double)want[2],
                      (double)want[3]);
            compared++;
        }
    }
}

static const double units[] = { 1, 0.01, 100, 0.3048, 1.0 / 3 };

static void compare_translation(const float key[3])
{
    for (int c = 0; c < 3; c++)
        for (int u = 0; u < (int)(sizeof units / sizeof units[0]); u++) {
            gltf_conv cv;
            CHECK(gltf_conv_from_text(convs[c], units[u], &cv));
            for (int root = 0; root <= 1; root++) {
                float want[3] = { 0, 0, 0 }, got[3] = { 0, 0, 0 };
                ref_undo_translation(&cv, root, key, want);
                gltf_undo_translation(&cv, root, key, got);
                CHECK_MSG(!memcmp(want, got, sizeof got),
                          "%s unit %g root %d: key %a %a %a: %a %a %a, reference %a %a %a", convs[c], units[u], root,
                          (double)key[0], (double)key[1], (double)key[2], (double)got[0], (double)got[1],
                          (double)got[2], (double)want[0], (double)want[1], (double)want[2]);
                tcompared++;
            }
        }
}

/* a float of the form +-2^e moved by s float steps */
static float near_power(int e, int s, int negative)
{
    float v = ldexpf(1, e);
    for (int k = 0; k < (s < 0 ? -s : s); k++) v = nextafterf(v, s > 0 ? INFINITY : 0);
    return negative ? -v : v;
}

TEST(the_search_gives_the_references_quaternion)
{
    uint32_t n = test_full() ? 100000u : 3000u;
    for (uint32_t k = 0; k < n; k++) {
        float q[4];
        double len = 0, d[4];
        for (int i = 0; i < 4; i++) {
            d[i] = uniform() * 2 - 1;
            if (k % 5 == 0 && i == (int)(k / 5 % 4)) d[i] = 0;      /* a zero component */
            if (k % 11 == 0 && i == (int)(k / 11 % 4)) d[i] = -0.0; /* a negative zero */
            len += d[i] * d[i];
        }
        if (!(len > 1e-6)) continue;
        /* lengths from quantised (ALA: int16 / 32767) to unit within float precision */
        double dev = k % 3 == 0 ? (uniform() * 2 - 1) * 1e-3 : k % 3 == 1 ? (uniform() * 2 - 1) * 2.4e-7 : 0;
        for (int i = 0; i < 4; i++) q[i] = (float)(d[i] * (1 + dev) / sqrt(len));
        if (k % 4 == 0) { /* an ALA key: int16 components over 32767 */
            for (int i = 0; i < 4; i++) q[i] = (float)(int16_t)lrint(d[i] / sqrt(len) * 32767.0) / 32767.0f;
        }
        float out[4];
        gltf_conv cv;
        CHECK(gltf_conv_from_text(convs[k % 3], 1, &cv));
        int root = (int)(k / 3 % 2);
        exported(&cv, root, q, out); /* a key as the exporter writes it */
        if (k % 7 == 0 && preimages(&cv, root, q, out) >= 2) several++;
        compare(out);
        compare(q); /* and the raw key */
        /* translations: the exporter's output of a float vector, and the raw vector */
        float t[3], tout[3];
        for (int i = 0; i < 3; i++) t[i] = (float)((uniform() * 2 - 1) * ldexp(1, (int)(next64() % 24) - 12));
        if (k % 9 == 0) t[k / 9 % 3] = k % 2 ? -0.0f : 0.0f;
        gltf_conv tc;
        CHECK(gltf_conv_from_text(convs[k / 2 % 3], units[k % 5], &tc));
        ref_fwd_translation(&tc, (int)(k / 6 % 2), t, tout);
        compare_translation(tout);
        compare_translation(t);
    }
    /* adversarial: components at and around powers of two (the float step halves below
     * them), the exporter's output of such keys, subnormal, huge and non-finite parts */
    for (uint32_t k = 0; k < n / 4; k++) {
        float q[4], out[4];
        for (int i = 0; i < 4; i++)
            q[i] = near_power(-(int)(next64() % 4) - (i == (int)(k % 4) ? 0 : 1), (int)(next64() % 5) - 2,
                              (int)(next64() & 1));
        gltf_conv cv;
        CHECK(gltf_conv_from_text(convs[k % 3], 1, &cv));
        exported(&cv, (int)(k / 3 % 2), q, out);
        compare(q);
        compare(out);
        float t[3] = { near_power((int)(k % 9) - 4, (int)(k % 5) - 2, (int)(k & 1)), q[1], q[2] };
        compare_translation(t);
    }
    /* the edges of the unit band: rotations whose squared length is 1 +- 2^-21 and a few
     * float steps around it, where the exporter switches between writing C q as it is and
     * normalising it (the bounds' ranges of s split there), exported and raw */
    for (uint32_t k = 0; k < n / 4; k++) {
        double d[4], len = 0;
        for (int i = 0; i < 4; i++) {
            d[i] = uniform() * 2 - 1;
            len += d[i] * d[i];
        }
        if (!(len > 1e-6)) continue;
        double m = 1 + (k & 1 ? 1 : -1) * 0x1p-21 + ((int)(next64() % 33) - 16) * 0x1p-26;
        float q[4], out[4];
        for (int i = 0; i < 4; i++) q[i] = (float)(d[i] * sqrt(m / len));
        gltf_conv cv;
        CHECK(gltf_conv_from_text(convs[k % 3], 1, &cv));
        exported(&cv, (int)(k / 3 % 2), q, out);
        compare(out);
        compare(q);
    }
    /* pairs whose turned values nearly cancel (x near +-w, y near +-z): one turned value of
     * the pair is tiny beside the other, its float steps much finer, so one component of
     * the pair has many floats in its interval (pair_none visits the larger one's) */
    for (uint32_t k = 0; k < n / 4; k++) {
        double d[4], len = 0;
        d[0] = uniform() * 2 - 1;
        d[1] = uniform() * 2 - 1;
        d[3] = (k & 1 ? d[0] : -d[0]) * (1 + ldexp(uniform() * 2 - 1, -(int)(next64() % 26)));
        d[2] = (k & 2 ? d[1] : -d[1]) * (1 + ldexp(uniform() * 2 - 1, -(int)(next64() % 26)));
        for (int i = 0; i < 4; i++) len += d[i] * d[i];
        if (!(len > 1e-6)) continue;
        double dev = k % 3 == 0 ? (uniform() * 2 - 1) * 1e-3 : k % 3 == 1 ? (uniform() * 2 - 1) * 2.4e-7 : 0;
        float q[4], out[4];
        for (int i = 0; i < 4; i++) q[i] = (float)(d[i] * (1 + dev) / sqrt(len));
        if (k % 4 == 0)
            for (int i = 0; i < 4; i++) q[i] = (float)(int16_t)lrint(d[i] / sqrt(len) * 32767.0) / 32767.0f;
        gltf_conv cv;
        CHECK(gltf_conv_from_text(convs[1], 1, &cv));
        exported(&cv, k % 5 != 0, q, out);
        compare(out);
        compare(q);
    }
    /* keys whose preimages have a component a few float steps from a power of two (the
     * lengths a few steps away then make components whose mantissa is zero, or of another
     * exponent than q0's, where a nudge is not the float step of q0's exponent: the per-key
     * nudge products of the linear test do not apply), or a subnormal one: off-unit
     * rotations (ALA keys, 1e-3 off), exported by the turned conversion as a root, whose
     * matches lie at other lengths outside the unit band */
    uint32_t edge_matches = 0;
    for (uint32_t k = 0; k < n; k++) {
        int j = (int)(k % 4);
        /* a few steps above a power of two mostly: a length scaled down lands on it, and the
         * nudge toward zero from there is half the float step */
        int steps = k & 1 ? (int)(next64() % 17) - 8 : (int)(next64() % 9);
        double p = k % 23 == 0 ? ldexp(uniform() + 0.5, -130)
                               : near_power(-(int)(next64() % 5) - 1, steps, (int)(next64() & 1));
        double d[4], len = 0;
        for (int i = 0; i < 4; i++) {
            d[i] = i == j ? 0 : uniform() * 2 - 1;
            len += d[i] * d[i];
        }
        if (!(len > 1e-6) || !(p * p < 1)) continue;
        double f = sqrt((1 - p * p) / len),
               dev = k % 3 == 0 ? (uniform() * 2 - 1) * 2.4e-7 : (uniform() * 2 - 1) * 1e-3;
        float q[4], out[4], want[4];
        for (int i = 0; i < 4; i++) q[i] = (float)((i == j ? p : d[i] * f) * (1 + dev));
        if (k % 4 == 1)
            for (int i = 0; i < 4; i++) q[i] = (float)(int16_t)lrint((i == j ? p : d[i] * f) * 32767.0) / 32767.0f;
        gltf_conv cv;
        CHECK(gltf_conv_from_text(convs[1], 1, &cv));
        exported(&cv, 1, q, out);
        compare(out);
        if (ref_undo_rotation(&cv, 1, out, want) && ref_stage == 4)
            for (int i = 0; i < 4; i++) {
                uint32_t bits;
                memcpy(&bits, &want[i], sizeof bits);
                if ((bits & 0x7fffffu) <= 8 || (bits & 0x7fffffu) >= 0x7ffff8u) {
                    edge_matches++;
                    break;
                }
            }
    }
    /* matches at other lengths with a component within 8 float steps of a power of two */
    CHECK_MSG(edge_matches > n / 100, "only %u matches at other lengths by a power of two", edge_matches);
    static const float odd[][4] = { { 1e-40f, 0, 0, 1 },       { 0.5f, 0.5f, 0.5f, 1e-39f },
                                    { 3e38f, 0, 0, 1 },        { 1e30f, 1e30f, 0, 0 },
                                    { INFINITY, 0, 0, 1 },     { NAN, 0.5f, 0.5f, 0.5f },
                                    { 0.5f, -INFINITY, 0, 0 }, { 2, 0, 0, 0 },
                                    { 1e-7f, 1e-7f, 0, 0 },    { 0x1p-24f, 0x1p-24f, 1, 0 } };
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        compare(odd[i]);
        compare_translation(odd[i]);
    }
    static const float special[][4] = { { 0, 0, 0, 1 },
                                        { -0.0f, 0, 0, 1 },
                                        { 0, -0.0f, -0.0f, -1 },
                                        { 1, 0, 0, 0 },
                                        { 0, -1, 0, 0 },
                                        { 0, 0, 1, -0.0f },
                                        { 0.5f, -0.5f, 0.5f, -0.5f },
                                        { 0, 0, 0, 0 },
                                        { 1e-30f, 0, 0, 1e-30f },
                                        { 0.70710677f, 0, 0, -0.70710677f } };
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) compare(special[i]);
    CHECK_MSG(compared > 12u * n / 2, "only %u comparisons", compared);
    CHECK_MSG(seconds > 0, "no key needed the negated search"); /* the retry is still exercised */
    /* both kinds of key the pruning must get right were met, many times */
    CHECK_MSG(unmatched > n / 4, "only %u keys no candidate maps to", unmatched);
    CHECK_MSG(several > n / 100, "only %u keys several candidates map to", several);
    CHECK_MSG(tcompared > 30u * n, "only %u translations compared", tcompared);
    CHECK_MSG(normalised > n / 100, "only %u matches outside the unit band", normalised);
    /* the turned conversion's matches in every stage the bounds prune, the lengths a few
     * steps away both in the unit band and outside it */
    CHECK_MSG(turned_stage[3] > n / 300, "only %u turned matches on the grid", turned_stage[3]);
    CHECK_MSG(last_band > n / 200, "only %u turned matches at other lengths in the unit band", last_band);
    CHECK_MSG(last_normalised > n / 10, "only %u turned matches at other lengths outside it", last_normalised);
    printf("turned matches by stage: %u %u %u %u, the last stage %u in the unit band, %u outside; %u unmatched; "
           "%u by a power of two\n",
           turned_stage[1], turned_stage[2], turned_stage[3], turned_stage[4], last_band, last_normalised, unmatched,
           edge_matches);
}

int main(void)
{
    RUN(the_search_gives_the_references_quaternion);
    return test_finish();
}
