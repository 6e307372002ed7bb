/* Writes src/formats/ff7/ff7_angle_table.c: the sine and cosine of half of every FF7
 * 12-bit angle (4096 = one turn), as float, exactly as ganim_quat_axis_angle gives them
 * for the angle (double)r * 2pi / 4096 that ff7_raw_to_quat always used: the table
 * replaces that call on the decoder's hot path, so the quaternions stay bit-identical.
 * tests/formats/ff7/test_ff7_angles.c checks every entry against ganim_quat_axis_angle on all
 * three axes, so a table out of step with the library fails the tests.
 * The second table holds the same values as doubles for the SSE2 product (ff7.h), the
 * third the floats in the order of the AVX product's first step.
 * Usage: make_ff7_angles > src/formats/ff7/ff7_angle_table.c
 * (the build's make_ff7_angles target) */
#include <stdio.h>

#include "ganim.h"

int main(void)
{
    static const double tau = 6.283185307179586476925286766559; /* FF7_TAU of ff7_angles.c */
    const ganim_vec3 y_axis = { 0.0f, 1.0f, 0.0f };
    float s[4096], c[4096];
    for (int r = 0; r < 4096; r++) {
        ganim_quat q = ganim_quat_axis_angle(y_axis, (double)r * tau / 4096.0);
        s[r] = q.y;
        c[r] = q.w;
    }
    printf("/* Made by tools/make_ff7_angles.c: do not edit. sin and cos of half of each FF7\n"
           " * angle r (r * 2pi / 4096) as ganim_quat_axis_angle rounds them to float, and the\n"
           " * same floats as doubles for the SSE2 product, and as {cos, sin, -sin, cos} for the\n"
           " * AVX product's first step, in one object (one base register for the three). */\n"
           "#include \"formats/ff7/ff7.h\"\n\n"
           "/* clang-format off */\n");
    /* one {sin, cos} pair per angle: the decoder loads both with one 8-byte load */
    printf("const struct ff7_half_tables ff7_half = {\n.sc = {\n");
    for (int r = 0; r < 4096; r++)
        printf("%s{ %af, %af },%s", r % 2 ? " " : "    ", (double)s[r], (double)c[r], r % 2 ? "\n" : "");
    printf("},\n\n");
    /* the same values as doubles (exact), laid out as the SSE2 product's last step uses
     * them: {cos, cos, sin, -sin}, two 16-byte loads */
    printf(".zd = {\n");
    for (int r = 0; r < 4096; r++)
        printf("    { %a, %a, %a, %a },\n", (double)c[r], (double)c[r], (double)s[r], -(double)s[r]);
    printf("},\n\n");
    /* the same floats as the AVX product's first step (Qy * Qx) takes Qy's: {cos, sin,
     * -sin, cos}, one 16-byte load */
    printf(".y4 = {\n");
    for (int r = 0; r < 4096; r++)
        printf("    { %af, %af, %af, %af },\n", (double)c[r], (double)s[r], -(double)s[r], (double)c[r]);
    printf("} };\n");
    printf("/* clang-format on */\n");
    return 0;
}
