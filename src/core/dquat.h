/* Quaternions in double, x y z w: the one definition the exact paths share (the axis
 * turns of writers, the glTF exporter and the reader that undoes it, the BVH model), so
 * that their arithmetic agrees to the bit. */
#ifndef GANIM_CORE_DQUAT_H
#define GANIM_CORE_DQUAT_H

/* r = a * b (Hamilton); r may be a or b. */
static inline void ganim_dq_mul(const double a[4], const double b[4], double r[4])
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    r[0] = x, r[1] = y, r[2] = z, r[3] = w;
}

/* r = q v q* for a unit q; r may be v. */
static inline void ganim_dq_rot(const double q[4], const double v[3], double r[3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
    double rx = v[0] + w * tx + (y * tz - z * ty);
    double ry = v[1] + w * ty + (z * tx - x * tz);
    double rz = v[2] + w * tz + (x * ty - y * tx);
    r[0] = rx, r[1] = ry, r[2] = rz;
}

#endif
