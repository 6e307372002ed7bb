/* Quaternions (x, y, z, w; Hamilton), Euler angles in any order, 3x3 / 4x4 matrices. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"

/* ---- sine and cosine of our own -------------------------------------------------------
 * The same bits on every system: the C library's sin and cos differ between systems in
 * their last bits, and some (MinGW's, on the x87 instructions) lose all relative accuracy
 * near their zeros (cos of the double nearest pi/2 comes out 6.12303e-17 instead of
 * 6.12323e-17), which changed the quaternions an FF7 180-degree angle gives. Below: the
 * argument reduced by pi/2 in three parts (Cody and Waite) and Taylor polynomials on
 * [-pi/4, pi/4], in plain double arithmetic (no fused multiply-add: -ffp-contract=off),
 * within an ulp or so of the exact value. */
static void taylor_sincos(double y, double tail, double *s, double *c)
{
    double z = y * y;
    double ps = -1.0 / 6 +
                z * (1.0 / 120 +
                     z * (-1.0 / 5040 + z * (2.7557319223985893e-06 +
                                             z * (-2.505210838544172e-08 +
                                                  z * (1.6059043836821613e-10 +
                                                       z * (-7.647163731819816e-13 + z * 2.8114572543455206e-15))))));
    double pc = 1.0 / 24 + z * (-1.0 / 720 + z * (2.48015873015873e-05 +
                                                  z * (-2.755731922398589e-07 +
                                                       z * (2.08767569878681e-09 + z * (-1.1470745597729725e-11 +
                                                                                        z * 4.779477332387385e-14)))));
    /* sin(y + tail) = sin y + tail cos y, cos(y + tail) = cos y - tail sin y (tail is tiny) */
    *s = y + (tail * (1 - 0.5 * z) + y * z * ps);
    double hz = 0.5 * z, w = 1 - hz;
    *c = w + (((1 - w) - hz) + (z * z * pc - y * tail));
}

static void ganim_sincos(double x, double *s, double *c)
{
    static const double two_over_pi = 0.6366197723675814;
    static const double pio2_1 = 1.5707963267341256;     /* the first 33 bits of pi/2 */
    static const double pio2_2 = 6.077100506303966e-11;  /* the next 33 */
    static const double pio2_3 = 2.0222662487959506e-21; /* the rest */
    if (!(fabs(x) < 1e6)) { /* n * pio2_1 would not be exact: the library's (and NaN, inf) */
        *s = sin(x);
        *c = cos(x);
        return;
    }
    double n = floor(x * two_over_pi + 0.5);
    double a = x - n * pio2_1;    /* exact */
    double b = n * pio2_2;        /* exact */
    double y = a - b, by = y - a; /* y + err = a - b exactly (two-sum) */
    double err = (a - (y - by)) + (-b - by);
    double tail = err - n * pio2_3;
    double r = y + tail;
    tail -= r - y;
    double ks, kc;
    taylor_sincos(r, tail, &ks, &kc);
    switch ((long)n & 3) {
    case 0: *s = ks, *c = kc; break;
    case 1: *s = kc, *c = -ks; break;
    case 2: *s = -ks, *c = -kc; break;
    default: *s = -kc, *c = ks; break;
    }
}

static double ganim_sin(double x)
{
    double s, c;
    ganim_sincos(x, &s, &c);
    return s;
}

ganim_quat ganim_quat_identity(void)
{
    ganim_quat q = { 0, 0, 0, 1 };
    return q;
}

ganim_quat ganim_quat_mul(ganim_quat a, ganim_quat b)
{
    double ax = a.x, ay = a.y, az = a.z, aw = a.w, bx = b.x, by = b.y, bz = b.z, bw = b.w;
    ganim_quat r;
    r.x = (float)(aw * bx + ax * bw + ay * bz - az * by);
    r.y = (float)(aw * by - ax * bz + ay * bw + az * bx);
    r.z = (float)(aw * bz + ax * by - ay * bx + az * bw);
    r.w = (float)(aw * bw - ax * bx - ay * by - az * bz);
    return r;
}

ganim_quat ganim_quat_conj(ganim_quat q)
{
    ganim_quat r = { -q.x, -q.y, -q.z, q.w };
    return r;
}

float ganim_quat_dot(ganim_quat a, ganim_quat b)
{
    return (float)((double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w);
}

ganim_quat ganim_quat_normalize(ganim_quat q)
{
    double len = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
    if (!(len > 0) || !isfinite(len)) return ganim_quat_identity();
    ganim_quat r = { (float)(q.x / len), (float)(q.y / len), (float)(q.z / len), (float)(q.w / len) };
    return r;
}

ganim_quat ganim_quat_axis_angle(ganim_vec3 axis, double radians)
{
    double len = sqrt((double)axis.x * axis.x + (double)axis.y * axis.y + (double)axis.z * axis.z);
    if (!(len > 0)) return ganim_quat_identity();
    double sine, cosine;
    ganim_sincos(radians * 0.5, &sine, &cosine);
    double s = sine / len;
    ganim_quat q = { (float)(axis.x * s), (float)(axis.y * s), (float)(axis.z * s), (float)cosine };
    return q;
}

ganim_quat ganim_quat_slerp(ganim_quat a, ganim_quat b, double t)
{
    double ax = a.x, ay = a.y, az = a.z, aw = a.w;
    double bx = b.x, by = b.y, bz = b.z, bw = b.w;
    double d = ax * bx + ay * by + az * bz + aw * bw;
    if (d < 0) { /* shortest arc */
        d = -d;
        bx = -bx, by = -by, bz = -bz, bw = -bw;
    }
    double wa, wb;
    if (d > 0.9995) { /* nearly parallel: lerp then normalise */
        wa = 1.0 - t;
        wb = t;
    } else {
        double theta = acos(d > 1 ? 1 : d);
        double s = ganim_sin(theta);
        wa = ganim_sin((1.0 - t) * theta) / s;
        wb = ganim_sin(t * theta) / s;
    }
    ganim_quat r = { (float)(wa * ax + wb * bx), (float)(wa * ay + wb * by), (float)(wa * az + wb * bz),
                     (float)(wa * aw + wb * bw) };
    return ganim_quat_normalize(r);
}

/* ACL's quat_lerp: flip b if the dot is negative, (a - t*a) + t*b in float32, normalise. */
ganim_quat ganim_quat_nlerp(ganim_quat a, ganim_quat b, float t)
{
    float d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    float bt = d >= 0.0f ? t : -t;
    ganim_quat r;
    r.x = (a.x - t * a.x) + bt * b.x;
    r.y = (a.y - t * a.y) + bt * b.y;
    r.z = (a.z - t * a.z) + bt * b.z;
    r.w = (a.w - t * a.w) + bt * b.w;
    float len2 = r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w;
    if (!(len2 > 0.0f)) return ganim_quat_identity();
    float inv = 1.0f / sqrtf(len2);
    r.x *= inv, r.y *= inv, r.z *= inv, r.w *= inv;
    return r;
}

ganim_vec3 ganim_quat_rotate(ganim_quat q, ganim_vec3 v)
{
    float m[9];
    ganim_quat_to_mat3(q, m);
    ganim_vec3 r = { m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
                     m[6] * v.x + m[7] * v.y + m[8] * v.z };
    return r;
}

/* Order letters, matrix product left to right. */
static const char *const order_axes[] = { "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX" };

ganim_quat ganim_quat_from_euler(const double xyz[3], ganim_euler_order order)
{
    if ((unsigned)order > GANIM_EULER_ZYX) order = GANIM_EULER_XYZ;
    const char *ax = order_axes[order];
    ganim_quat r = ganim_quat_identity();
    for (int i = 0; i < 3; i++) {
        int a = ax[i] - 'X';
        ganim_vec3 axis = { a == 0 ? 1.0f : 0.0f, a == 1 ? 1.0f : 0.0f, a == 2 ? 1.0f : 0.0f };
        r = ganim_quat_mul(r, ganim_quat_axis_angle(axis, xyz[a]));
    }
    return r;
}

void ganim_quat_to_mat3(ganim_quat q, float m[9])
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    m[0] = (float)(1 - 2 * (y * y + z * z));
    m[1] = (float)(2 * (x * y - z * w));
    m[2] = (float)(2 * (x * z + y * w));
    m[3] = (float)(2 * (x * y + z * w));
    m[4] = (float)(1 - 2 * (x * x + z * z));
    m[5] = (float)(2 * (y * z - x * w));
    m[6] = (float)(2 * (x * z - y * w));
    m[7] = (float)(2 * (y * z + x * w));
    m[8] = (float)(1 - 2 * (x * x + y * y));
}

ganim_quat ganim_quat_from_mat3(const float m[9])
{
    double m00 = m[0], m01 = m[1], m02 = m[2], m10 = m[3], m11 = m[4], m12 = m[5], m20 = m[6], m21 = m[7], m22 = m[8];
    double tr = m00 + m11 + m22, x, y, z, w;
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        w = 0.25 * s;
        x = (m21 - m12) / s;
        y = (m02 - m20) / s;
        z = (m10 - m01) / s;
    } else if (m00 > m11 && m00 > m22) {
        double s = sqrt(1.0 + m00 - m11 - m22) * 2;
        w = (m21 - m12) / s;
        x = 0.25 * s;
        y = (m01 + m10) / s;
        z = (m02 + m20) / s;
    } else if (m11 > m22) {
        double s = sqrt(1.0 + m11 - m00 - m22) * 2;
        w = (m02 - m20) / s;
        x = (m01 + m10) / s;
        y = 0.25 * s;
        z = (m12 + m21) / s;
    } else {
        double s = sqrt(1.0 + m22 - m00 - m11) * 2;
        w = (m10 - m01) / s;
        x = (m02 + m20) / s;
        y = (m12 + m21) / s;
        z = 0.25 * s;
    }
    ganim_quat q = { (float)x, (float)y, (float)z, (float)w };
    return ganim_quat_normalize(q);
}

/* General Euler decomposition for R = R_a(θa) R_b(θb) R_c(θc), a,b,c a permutation of X,Y,Z:
 * ganim_quat_to_euler_axes (internal.h) with the order's axes and parity. */
void ganim_quat_to_euler(ganim_quat q, ganim_euler_order order, double xyz[3])
{
    /* per order: the axes a, b, c (order_axes' letters) and the parity p */
    static const struct {
        unsigned char a, b, c;
        double p;
    } axes[6] = { { 0, 1, 2, 1.0 }, { 0, 2, 1, -1.0 }, { 1, 0, 2, -1.0 },
                  { 1, 2, 0, 1.0 }, { 2, 0, 1, 1.0 },  { 2, 1, 0, -1.0 } };
    if ((unsigned)order > GANIM_EULER_ZYX) order = GANIM_EULER_XYZ;
    ganim_quat_to_euler_axes(q, axes[order].a, axes[order].b, axes[order].c, axes[order].p, xyz);
}

void ganim_mat4_from_transform(const ganim_transform *t, float m[16])
{
    double r[9];
    ganim_quat_to_mat3d(t->rotation.x, t->rotation.y, t->rotation.z, t->rotation.w, r);
    double s[3] = { t->scale.x, t->scale.y, t->scale.z };
    /* column-major: m[col*4 + row] */
    for (int col = 0; col < 3; col++) {
        for (int row = 0; row < 3; row++) m[col * 4 + row] = (float)(r[row * 3 + col] * s[col]);
        m[col * 4 + 3] = 0;
    }
    m[12] = t->translation.x;
    m[13] = t->translation.y;
    m[14] = t->translation.z;
    m[15] = 1;
}

void ganim_mat4_mul(const float a[16], const float b[16], float out[16])
{
    float t[16];
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) {
            double v = 0;
            for (int k = 0; k < 4; k++) v += (double)a[k * 4 + row] * b[col * 4 + k];
            t[col * 4 + row] = (float)v;
        }
    memcpy(out, t, sizeof t);
}

int ganim_mat4_invert(const float m[16], float out[16])
{
    double inv[16], a[16];
    for (int i = 0; i < 16; i++) a[i] = m[i];
    inv[0] = a[5] * a[10] * a[15] - a[5] * a[11] * a[14] - a[9] * a[6] * a[15] + a[9] * a[7] * a[14] +
             a[13] * a[6] * a[11] - a[13] * a[7] * a[10];
    inv[4] = -a[4] * a[10] * a[15] + a[4] * a[11] * a[14] + a[8] * a[6] * a[15] - a[8] * a[7] * a[14] -
             a[12] * a[6] * a[11] + a[12] * a[7] * a[10];
    inv[8] = a[4] * a[9] * a[15] - a[4] * a[11] * a[13] - a[8] * a[5] * a[15] + a[8] * a[7] * a[13] +
             a[12] * a[5] * a[11] - a[12] * a[7] * a[9];
    inv[12] = -a[4] * a[9] * a[14] + a[4] * a[10] * a[13] + a[8] * a[5] * a[14] - a[8] * a[6] * a[13] -
              a[12] * a[5] * a[10] + a[12] * a[6] * a[9];
    inv[1] = -a[1] * a[10] * a[15] + a[1] * a[11] * a[14] + a[9] * a[2] * a[15] - a[9] * a[3] * a[14] -
             a[13] * a[2] * a[11] + a[13] * a[3] * a[10];
    inv[5] = a[0] * a[10] * a[15] - a[0] * a[11] * a[14] - a[8] * a[2] * a[15] + a[8] * a[3] * a[14] +
             a[12] * a[2] * a[11] - a[12] * a[3] * a[10];
    inv[9] = -a[0] * a[9] * a[15] + a[0] * a[11] * a[13] + a[8] * a[1] * a[15] - a[8] * a[3] * a[13] -
             a[12] * a[1] * a[11] + a[12] * a[3] * a[9];
    inv[13] = a[0] * a[9] * a[14] - a[0] * a[10] * a[13] - a[8] * a[1] * a[14] + a[8] * a[2] * a[13] +
              a[12] * a[1] * a[10] - a[12] * a[2] * a[9];
    inv[2] = a[1] * a[6] * a[15] - a[1] * a[7] * a[14] - a[5] * a[2] * a[15] + a[5] * a[3] * a[14] +
             a[13] * a[2] * a[7] - a[13] * a[3] * a[6];
    inv[6] = -a[0] * a[6] * a[15] + a[0] * a[7] * a[14] + a[4] * a[2] * a[15] - a[4] * a[3] * a[14] -
             a[12] * a[2] * a[7] + a[12] * a[3] * a[6];
    inv[10] = a[0] * a[5] * a[15] - a[0] * a[7] * a[13] - a[4] * a[1] * a[15] + a[4] * a[3] * a[13] +
              a[12] * a[1] * a[7] - a[12] * a[3] * a[5];
    inv[14] = -a[0] * a[5] * a[14] + a[0] * a[6] * a[13] + a[4] * a[1] * a[14] - a[4] * a[2] * a[13] -
              a[12] * a[1] * a[6] + a[12] * a[2] * a[5];
    inv[3] = -a[1] * a[6] * a[11] + a[1] * a[7] * a[10] + a[5] * a[2] * a[11] - a[5] * a[3] * a[10] -
             a[9] * a[2] * a[7] + a[9] * a[3] * a[6];
    inv[7] = a[0] * a[6] * a[11] - a[0] * a[7] * a[10] - a[4] * a[2] * a[11] + a[4] * a[3] * a[10] +
             a[8] * a[2] * a[7] - a[8] * a[3] * a[6];
    inv[11] = -a[0] * a[5] * a[11] + a[0] * a[7] * a[9] + a[4] * a[1] * a[11] - a[4] * a[3] * a[9] -
              a[8] * a[1] * a[7] + a[8] * a[3] * a[5];
    inv[15] = a[0] * a[5] * a[10] - a[0] * a[6] * a[9] - a[4] * a[1] * a[10] + a[4] * a[2] * a[9] + a[8] * a[1] * a[6] -
              a[8] * a[2] * a[5];
    double det = a[0] * inv[0] + a[1] * inv[4] + a[2] * inv[8] + a[3] * inv[12];
    if (det == 0 || !isfinite(det)) return 0;
    for (int i = 0; i < 16; i++) out[i] = (float)(inv[i] / det);
    return 1;
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void normalize3(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0)
        for (int k = 0; k < 3; k++) v[k] /= l;
}

int ganim_transform_from_mat34(const float m[12], ganim_transform *out)
{
    for (int i = 0; i < 12; i++) {
        if (!isfinite(m[i])) {
            *out = ganim_transform_identity();
            return 0;
        }
    }
    float s[3], r[9];
    for (int c = 0; c < 3; c++) {
        /* in double: the squares of finite floats overflow float; a length that does not
         * fit a float again (a corrupt matrix) is refused like a non-finite one */
        double len = sqrt((double)m[c] * m[c] + (double)m[4 + c] * m[4 + c] + (double)m[8 + c] * m[8 + c]);
        if (!(len <= FLT_MAX)) {
            *out = ganim_transform_identity();
            return 0;
        }
        s[c] = (float)len;
    }
    float det =
        m[0] * (m[5] * m[10] - m[6] * m[9]) - m[1] * (m[4] * m[10] - m[6] * m[8]) + m[2] * (m[4] * m[9] - m[5] * m[8]);
    if (det < 0.0f) s[0] = -s[0];
    /* The rotation's columns: each column over its length. A column far shorter than the
     * longest (a scale near 0 flattens that axis; 1/256 of it: a stored matrix's rounding
     * then blurs its direction) is rebuilt from the others, so the axes that are there
     * keep their direction. */
    double u[3][3], big = fmax(fabs(s[0]), fmax(fabs(s[1]), fabs(s[2])));
    int flat[3], nflat = 0;
    for (int c = 0; c < 3; c++) {
        flat[c] = !(fabs(s[c]) > big / 256.0);
        nflat += flat[c];
        for (int row = 0; row < 3; row++) u[c][row] = flat[c] ? 0.0 : m[row * 4 + c] / (double)s[c];
    }
    if (nflat == 3) {
        memset(u, 0, sizeof u);
        u[0][0] = u[1][1] = u[2][2] = 1;
    } else if (nflat == 2) { /* one axis left: any two perpendicular to it */
        int j = !flat[0] ? 0 : !flat[1] ? 1 : 2, a = (j + 1) % 3, b = (j + 2) % 3;
        int ax = fabs(u[j][0]) <= fabs(u[j][1]) && fabs(u[j][0]) <= fabs(u[j][2]) ? 0
                 : fabs(u[j][1]) <= fabs(u[j][2])                                 ? 1
                                                                                  : 2;
        double e[3] = { 0, 0, 0 };
        e[ax] = 1;
        cross3(u[j], e, u[a]);
        normalize3(u[a]);
        cross3(u[j], u[a], u[b]);
    } else {
        /* Columns that are not perpendicular (a rounded matrix with a short axis: its
         * direction carries the rounding over a short length) are made so, the longer
         * column keeping its direction: the shortest is rebuilt from the other two, the
         * middle one loses its part along the longest. Perpendicular columns (every
         * rotation as a file stores it: within 1e-3) are taken as they are. */
        int k = flat[0] ? 0 : flat[1] ? 1 : flat[2] ? 2 : -1;
        if (k < 0) {
            double d01 = fabs(dot3(u[0], u[1])), d02 = fabs(dot3(u[0], u[2])), d12 = fabs(dot3(u[1], u[2]));
            if (fmax(d01, fmax(d02, d12)) > 1e-3) {
                k = fabs(s[0]) <= fabs(s[1]) && fabs(s[0]) <= fabs(s[2]) ? 0 : fabs(s[1]) <= fabs(s[2]) ? 1 : 2;
            }
        }
        if (k >= 0) {
            int a = (k + 1) % 3, b = (k + 2) % 3;
            int lo = fabs(s[a]) < fabs(s[b]) ? a : b, hi = lo == a ? b : a;
            double d = dot3(u[lo], u[hi]);
            for (int row = 0; row < 3; row++) u[lo][row] -= d * u[hi][row];
            normalize3(u[lo]);
            cross3(u[a], u[b], u[k]); /* u0 = u1 x u2, u1 = u2 x u0, u2 = u0 x u1 */
            normalize3(u[k]);
        }
    }
    for (int row = 0; row < 3; row++)
        for (int c = 0; c < 3; c++) r[row * 3 + c] = (float)u[c][row];
    ganim_quat q = ganim_quat_normalize(ganim_quat_from_mat3(r));
    if (!isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) || !isfinite(q.w) ||
        fabsf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w - 1.0f) > 1e-3f)
        q = ganim_quat_identity();
    out->rotation = q;
    out->translation.x = m[3];
    out->translation.y = m[7];
    out->translation.z = m[11];
    out->scale.x = s[0];
    out->scale.y = s[1];
    out->scale.z = s[2];
    return 1;
}

void ganim_transform_to_mat34(const ganim_transform *t, float m[12])
{
    float r[9];
    const float s[3] = { t->scale.x, t->scale.y, t->scale.z };
    ganim_quat_to_mat3(t->rotation, r);
    for (int row = 0; row < 3; row++)
        for (int c = 0; c < 3; c++) m[row * 4 + c] = r[row * 3 + c] * s[c];
    m[3] = t->translation.x;
    m[7] = t->translation.y;
    m[11] = t->translation.z;
}

ganim_quat ganim_axes_to_y_up(ganim_axes axes)
{
    const double half = 0.70710678118654752440;
    ganim_quat q = ganim_quat_identity();
    switch (axes) {
    case GANIM_AXES_Z_UP: /* -90° about X: +Z -> +Y, +Y -> -Z */
        q.x = (float)-half;
        q.w = (float)half;
        break;
    case GANIM_AXES_Y_DOWN: /* 180° about X: y -> -y, z -> -z */
        q.x = 1;
        q.w = 0;
        break;
    default: break;
    }
    return q;
}

const char *ganim_axes_name(ganim_axes axes)
{
    switch (axes) {
    case GANIM_AXES_Z_UP: return "z-up";
    case GANIM_AXES_Y_DOWN: return "y-down";
    default: return "y-up";
    }
}

ganim_transform ganim_transform_identity(void)
{
    ganim_transform t = { { 0, 0, 0, 1 }, { 0, 0, 0 }, { 1, 1, 1 } };
    return t;
}
