/* gltf_undo_rotation's search (src/formats/gltf/gltf_exact.c) against the search it
 * replaced, kept below as the reference: the same quaternion, bit for bit, for every
 * conversion, root or not, on the keys that make it search longest (the exporter's output
 * of rotations that are not unit length, so that no near-unit float maps back to it), on
 * near-unit keys, and on keys with zero and signed-zero components (where the negated
 * retry decides). The current search precomputes the float steps and skips the negated
 * retry when no component of the key is zero; the reference does neither. */
#include <math.h>
#include <stdint.h>
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
    /* A value the exporter wrote without normalising it (unit to float precision): the
     * rotation turned back as it is, and its neighbours. */
    if (fabs(len * len - 1) <= 4.76837158203125e-7) {
        for (int i = 0; i < 4; i++) q0[i] = (float)d[i];
        if (ref_near_rotation(cv, root, out, q0, q)) return 1;
    }
    for (int i = 0; i < 4; i++) q0[i] = (float)(d[i] / len);
    memcpy(q, q0, sizeof q0); /* the nearest rounding, unless a search below finds better */
    if (ref_near_rotation(cv, root, out, q0, q)) return 1;
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
    return 0;
}

static void ref_undo_rotation(const gltf_conv *cv, int root, const float out[4], float q[4])
{
    if (ref_find_rotation(cv, root, out, q)) return;
    /* The exporter negates a key that points away from the previous one, which may leave
     * a -0 its arithmetic never makes: the negated key, negated again on export, gives it. */
    const float neg[4] = { -out[0], -out[1], -out[2], -out[3] };
    float alt[4];
    if (ref_find_rotation(cv, root, neg, alt)) memcpy(q, alt, sizeof alt);
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

static uint32_t compared, seconds;

static void compare(const float key[4])
{
    for (int c = 0; c < 3; c++) {
        gltf_conv cv;
        CHECK(gltf_conv_from_text(convs[c], 1, &cv));
        for (int root = 0; root <= 1; root++) {
            float want[4] = { 0, 0, 0, 0 }, got[4] = { 0, 0, 0, 0 };
            ref_undo_rotation(&cv, root, key, want);
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
        exported(&cv, (int)(k / 3 % 2), q, out); /* a key as the exporter writes it */
        compare(out);
        compare(q); /* and the raw key */
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
}

int main(void)
{
    RUN(the_search_gives_the_references_quaternion);
    return test_finish();
}
