/* Quaternion, Euler and matrix maths against values computed by hand. */
#include <math.h>

#include "core/internal.h"
#include "test.h"

static const double PI = 3.14159265358979323846;

static void check_quat(ganim_quat a, ganim_quat b, double tol)
{
    double d = fabs((double)ganim_quat_dot(a, b));
    CHECK_MSG(fabs(d - 1.0) < tol, "quaternions differ: (%g %g %g %g) vs (%g %g %g %g)", a.x, a.y, a.z, a.w, b.x, b.y,
              b.z, b.w);
}

TEST(axis_angle_known_values)
{
    ganim_vec3 z = { 0, 0, 1 };
    ganim_quat q = ganim_quat_axis_angle(z, PI / 2);
    CHECK_NEAR(q.z, sqrt(0.5), 1e-7);
    CHECK_NEAR(q.w, sqrt(0.5), 1e-7);
    ganim_vec3 x = { 1, 0, 0 };
    ganim_vec3 r = ganim_quat_rotate(q, x); /* 90° about Z takes +X to +Y */
    CHECK_NEAR(r.x, 0, 1e-6);
    CHECK_NEAR(r.y, 1, 1e-6);
    CHECK_NEAR(r.z, 0, 1e-6);
}

TEST(product_order)
{
    /* a*b applies b first: rotate +X by 90° about Z, then 90° about X -> +Z. */
    ganim_vec3 x = { 1, 0, 0 }, z = { 0, 0, 1 };
    ganim_quat qz = ganim_quat_axis_angle(z, PI / 2), qx = ganim_quat_axis_angle(x, PI / 2);
    ganim_vec3 r = ganim_quat_rotate(ganim_quat_mul(qx, qz), x);
    CHECK_NEAR(r.x, 0, 1e-6);
    CHECK_NEAR(r.y, 0, 1e-6);
    CHECK_NEAR(r.z, 1, 1e-6);
}

TEST(euler_orders_compose_left_to_right)
{
    /* YXZ means Ry * Rx * Rz: build it by hand from three axis rotations. */
    double a[3] = { 0.3, -1.1, 2.0 };
    ganim_vec3 X = { 1, 0, 0 }, Y = { 0, 1, 0 }, Z = { 0, 0, 1 };
    ganim_quat qx = ganim_quat_axis_angle(X, a[0]), qy = ganim_quat_axis_angle(Y, a[1]),
               qz = ganim_quat_axis_angle(Z, a[2]);
    check_quat(ganim_quat_from_euler(a, GANIM_EULER_YXZ), ganim_quat_mul(ganim_quat_mul(qy, qx), qz), 1e-6);
    check_quat(ganim_quat_from_euler(a, GANIM_EULER_XYZ), ganim_quat_mul(ganim_quat_mul(qx, qy), qz), 1e-6);
    check_quat(ganim_quat_from_euler(a, GANIM_EULER_ZXY), ganim_quat_mul(ganim_quat_mul(qz, qx), qy), 1e-6);
    check_quat(ganim_quat_from_euler(a, GANIM_EULER_ZYX), ganim_quat_mul(ganim_quat_mul(qz, qy), qx), 1e-6);
}

TEST(euler_round_trip_every_order)
{
    uint32_t seed = 12345;
    for (int order = 0; order < 6; order++) {
        for (int i = 0; i < 2000; i++) {
            double a[3];
            for (int k = 0; k < 3; k++) {
                seed = seed * 1664525u + 1013904223u;
                a[k] = ((double)(seed >> 8) / (double)(1u << 24) - 0.5) * 2 * PI;
            }
            if (i < 6) a[1] = (i & 1 ? 1 : -1) * PI / 2; /* gimbal lock on the middle axis */
            ganim_quat q = ganim_quat_from_euler(a, (ganim_euler_order)order);
            double b[3];
            ganim_quat_to_euler(q, (ganim_euler_order)order, b);
            check_quat(ganim_quat_from_euler(b, (ganim_euler_order)order), q, 1e-6);
        }
    }
}

TEST(ff7_kujata_known_answer)
{
    /* ff7-battle.md §8: bone 13 raw (0, 2606, 0) -> (0, 0.9098057081, 0, -0.4150344245) (YXZ). */
    double a[3] = { 0, 2606 * 2 * PI / 4096, 0 };
    ganim_quat q = ganim_quat_from_euler(a, GANIM_EULER_YXZ);
    ganim_quat e = { 0, 0.9098057081046523f, 0, -0.4150344244760815f };
    check_quat(q, e, 1e-7);
    /* bone 0 raw (3072, 3790, 0) */
    double b[3] = { 3072 * 2 * PI / 4096, 3790 * 2 * PI / 4096, 0 };
    ganim_quat e0 = { -0.6877210025497882f, -0.16443789907413192f, -0.16443789907413195f, 0.6877210025497881f };
    check_quat(ganim_quat_from_euler(b, GANIM_EULER_YXZ), e0, 1e-7);
}

TEST(matrix_round_trip)
{
    double a[3] = { 0.7, 0.2, -2.5 };
    ganim_quat q = ganim_quat_from_euler(a, GANIM_EULER_XYZ);
    float m[9];
    ganim_quat_to_mat3(q, m);
    check_quat(ganim_quat_from_mat3(m), q, 1e-6);
    /* 180° turns hit the non-trace branches */
    for (int axis = 0; axis < 3; axis++) {
        ganim_vec3 v = { axis == 0, axis == 1, axis == 2 };
        ganim_quat h = ganim_quat_axis_angle(v, PI);
        ganim_quat_to_mat3(h, m);
        check_quat(ganim_quat_from_mat3(m), h, 1e-6);
    }
}

/* A matrix with an axis flattened (scale 0, or far below the others, where a stored
 * matrix's rounding blurs the short column's direction) still gives the rotation: the
 * short column is rebuilt from the long ones. Found by the round-trip fuzzer (an Argonaut
 * matrix of a bone scaled to 0.001 on one axis came back 3 degrees off). */
TEST(matrix_with_a_flattened_axis)
{
    double a[3] = { 0.3, -1.1, 0.4 };
    ganim_quat q = ganim_quat_from_euler(a, GANIM_EULER_XYZ);
    const float scales[][3] = { { 1, 0, 1 }, { 2, 1e-3f, 2 }, { 0, 0, 3 }, { 1e-30f, 1, 1 }, { -1, 1, 0 } };
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        ganim_transform t = { q, { 1, 2, 3 }, { scales[i][0], scales[i][1], scales[i][2] } }, back;
        float m[12];
        ganim_transform_to_mat34(&t, m);
        /* the rounding of a 4.12 fixed-point matrix (Argonaut), which blurs short columns */
        for (int k = 0; k < 12; k++)
            if (k % 4 != 3) m[k] = roundf(m[k] * 4096.0f) / 4096.0f;
        CHECK(ganim_transform_from_mat34(m, &back) == 1);
        /* the product R * diag(scale) comes back to the rounding; the rotation too, on
         * every axis that is there */
        float m2[12];
        ganim_transform_to_mat34(&back, m2);
        for (int k = 0; k < 12; k++) CHECK_NEAR(m2[k], m[k], 2e-3);
        int flat = 0;
        for (int k = 0; k < 3; k++) flat += fabsf(scales[i][k]) < 0.01f;
        if (flat <= 1 && scales[i][0] >= 0) { /* one axis gone: the other two fix the rotation */
            double d = fabs((double)q.x * back.rotation.x + (double)q.y * back.rotation.y +
                            (double)q.z * back.rotation.z + (double)q.w * back.rotation.w);
            CHECK_MSG(d > cos(0.5 * PI / 180 / 2), "scale %g %g %g: rotation off by %g degrees", scales[i][0],
                      scales[i][1], scales[i][2], 2 * acos(d > 1 ? 1 : d) * 180 / PI);
        }
    }
}

/* Short axes of different lengths, rounded to 4.12 fixed point: the columns come back no
 * longer perpendicular (the shortest, 2 steps long, points anywhere within 30 degrees).
 * The rotation follows the long columns, within what their rounding allows. */
TEST(matrix_with_short_rounded_axes)
{
    double a[3] = { -2.4, 0.5, 1.3 };
    ganim_quat q = ganim_quat_from_euler(a, GANIM_EULER_XYZ);
    const float scales[][3] = { { 0.0063f, 0.00042f, 0.067f }, { 0.05f, 0.004f, 0.02f }, { 0.001f, 0.03f, 0.01f } };
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        ganim_transform t = { q, { 0, 0, 0 }, { scales[i][0], scales[i][1], scales[i][2] } }, back;
        float m[12];
        ganim_transform_to_mat34(&t, m);
        for (int k = 0; k < 12; k++)
            if (k % 4 != 3) m[k] = roundf(m[k] * 4096.0f) / 4096.0f;
        CHECK(ganim_transform_from_mat34(m, &back) == 1);
        /* the second-longest column's rounding (half a step per component over its
         * length) bounds the turn about the longest */
        float mid = scales[i][0] + scales[i][1] + scales[i][2] -
                    fmaxf(scales[i][0], fmaxf(scales[i][1], scales[i][2])) -
                    fminf(scales[i][0], fminf(scales[i][1], scales[i][2]));
        double bound = 2 * asin(fmin(1.0, 0.5 / 4096 * sqrt(3.0) / mid)) + 0.5 * PI / 180;
        double d = fabs((double)q.x * back.rotation.x + (double)q.y * back.rotation.y + (double)q.z * back.rotation.z +
                        (double)q.w * back.rotation.w);
        double off = 2 * acos(d > 1 ? 1 : d);
        CHECK_MSG(off <= bound, "scale %g %g %g: rotation off by %.2f degrees (bound %.2f)", scales[i][0], scales[i][1],
                  scales[i][2], off * 180 / PI, bound * 180 / PI);
    }
}

TEST(slerp_shortest_arc_and_endpoints)
{
    ganim_vec3 z = { 0, 0, 1 };
    ganim_quat a = ganim_quat_axis_angle(z, 0.2), b = ganim_quat_axis_angle(z, 1.0);
    ganim_quat nb = { -b.x, -b.y, -b.z, -b.w };
    check_quat(ganim_quat_slerp(a, nb, 0.5), ganim_quat_axis_angle(z, 0.6), 1e-7);
    check_quat(ganim_quat_slerp(a, b, 0.0), a, 1e-7);
    check_quat(ganim_quat_slerp(a, b, 1.0), b, 1e-7);
    check_quat(ganim_quat_slerp(a, b, 0.25), ganim_quat_axis_angle(z, 0.4), 1e-7);
    /* nlerp: same plane, normalised */
    ganim_quat n = ganim_quat_nlerp(a, nb, 0.5f);
    check_quat(n, ganim_quat_axis_angle(z, 0.6), 1e-6);
}

TEST(mat4_inverse)
{
    ganim_transform t = { { 0, 0, 0, 1 }, { 1, 2, 3 }, { 2, 2, 2 } };
    double e[3] = { 0.3, 0.4, 0.5 };
    t.rotation = ganim_quat_from_euler(e, GANIM_EULER_ZYX);
    float m[16], inv[16], id[16];
    ganim_mat4_from_transform(&t, m);
    CHECK(ganim_mat4_invert(m, inv));
    ganim_mat4_mul(m, inv, id);
    for (int i = 0; i < 16; i++) CHECK_NEAR(id[i], (i % 5 == 0) ? 1.0 : 0.0, 1e-5);
    CHECK_NEAR(m[12], 1, 0);
    CHECK_NEAR(m[14], 3, 0);
}

TEST(axes_conversions)
{
    ganim_vec3 up_z = { 0, 0, 1 }, up_yd = { 0, -1, 0 };
    ganim_vec3 r = ganim_quat_rotate(ganim_axes_to_y_up(GANIM_AXES_Z_UP), up_z);
    CHECK_NEAR(r.y, 1, 1e-6);
    ganim_vec3 fwd = { 0, 1, 0 }; /* Z-up's +Y goes to -Z */
    r = ganim_quat_rotate(ganim_axes_to_y_up(GANIM_AXES_Z_UP), fwd);
    CHECK_NEAR(r.z, -1, 1e-6);
    r = ganim_quat_rotate(ganim_axes_to_y_up(GANIM_AXES_Y_DOWN), up_yd);
    CHECK_NEAR(r.y, 1, 1e-6);
    CHECK_EQ_STR(ganim_axes_name(GANIM_AXES_Z_UP), "z-up");
}

int main(void)
{
    RUN(axis_angle_known_values);
    RUN(product_order);
    RUN(euler_orders_compose_left_to_right);
    RUN(euler_round_trip_every_order);
    RUN(ff7_kujata_known_answer);
    RUN(matrix_round_trip);
    RUN(matrix_with_a_flattened_axis);
    RUN(matrix_with_short_rounded_axes);
    RUN(slerp_shortest_arc_and_endpoints);
    RUN(mat4_inverse);
    RUN(axes_conversions);
    return test_finish();
}
