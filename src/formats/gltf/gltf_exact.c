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

static void fwd_translation(const gltf_conv *cv, int root, const float t[3], float out[3])
{
    double d[3] = { t[0] * cv->unit, t[1] * cv->unit, t[2] * cv->unit };
    if (root && !cv->identity) ganim_dq_rot(cv->c, d, d);
    for (int i = 0; i < 3; i++) out[i] = (float)d[i];
}

/* Candidates for one component: the value, its neighbours, and the other zero. */
static int variants(float v, float out[4])
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
static int near_rotation(const gltf_conv *cv, int root, const float out[4], const float q0[4], float q[4])
{
    float back[4];
    if (fwd_rotation(cv, root, q0, back) && !memcmp(back, out, sizeof back)) {
        memcpy(q, q0, 4 * sizeof *q);
        return 1;
    }
    float v[4][4];
    int nv[4];
    for (int i = 0; i < 4; i++) nv[i] = variants(q0[i], v[i]);
    for (int a = 0; a < nv[0]; a++)
        for (int b = 0; b < nv[1]; b++)
            for (int c = 0; c < nv[2]; c++)
                for (int e = 0; e < nv[3]; e++) {
                    float t[4] = { v[0][a], v[1][b], v[2][c], v[3][e] };
                    if (fwd_rotation(cv, root, t, back) && !memcmp(back, out, sizeof back)) {
                        memcpy(q, t, sizeof t);
                        return 1;
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
    float q0[4], back[4];
    /* A value the exporter wrote without normalising it (unit to float precision): the
     * rotation turned back as it is, and its neighbours. */
    if (fabs(len * len - 1) <= 4.76837158203125e-7) {
        for (int i = 0; i < 4; i++) q0[i] = (float)d[i];
        if (near_rotation(cv, root, out, q0, q)) return 1;
    }
    for (int i = 0; i < 4; i++) q0[i] = (float)(d[i] / len);
    memcpy(q, q0, sizeof q0); /* the nearest rounding, unless a search below finds better */
    if (near_rotation(cv, root, out, q0, q)) return 1;
    /* two float steps each way; st[i][s + 2] is q0[i] moved s float steps */
    float st[4][5];
    for (int i = 0; i < 4; i++) {
        st[i][2] = q0[i];
        st[i][3] = nextafterf(q0[i], INFINITY);
        st[i][4] = nextafterf(st[i][3], INFINITY);
        st[i][1] = nextafterf(q0[i], -INFINITY);
        st[i][0] = nextafterf(st[i][1], -INFINITY);
    }
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            for (int c = 0; c < 5; c++)
                for (int e = 0; e < 5; e++) {
                    if ((a & 3) && (b & 3) && (c & 3) && (e & 3)) continue; /* all within one step: tried above */
                    float t[4] = { st[0][a], st[1][b], st[2][c], st[3][e] };
                    if (fwd_rotation(cv, root, t, back) && !memcmp(back, out, sizeof back)) {
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
            if (fwd_rotation(cv, root, u, back) && !memcmp(back, out, sizeof back)) {
                memcpy(q, u, sizeof u);
                return 1;
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
    for (int a = 0; a < nv[0]; a++)
        for (int b = 0; b < nv[1]; b++)
            for (int c = 0; c < nv[2]; c++) {
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
