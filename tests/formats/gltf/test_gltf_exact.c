/* What the glTF reader's fast paths rely on (gltf_anim.c, convert_values): for ganim's
 * own files it keeps a rotation key as it is when C does not turn it (any bone but a
 * root, or C the identity) and its squared length is within 4.7e-7 of 1, and a
 * translation key as it is when it is not a root's and the unit scale is 1, without
 * calling gltf_undo_rotation / gltf_undo_translation. Those must then give the key back
 * bit for bit: checked here on keys near the bound (either side of it, with the sum of
 * squares in both orders the reader forms it), on signed zeros and axis-aligned keys,
 * and on finite floats of every magnitude for translations. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "formats/gltf/gltf.h"
#include "test.h"

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next64(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
static double uniform(void) { return (double)(next64() >> 11) * 0x1p-53; } /* [0, 1) */

/* The two sums of squares the reader forms (scalar, and SSE2's (x2 + z2) + (y2 + w2)). */
static int near_unit(const float q[4])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double a = x * x + y * y + z * z + w * w, b = (x * x + z * z) + (y * y + w * w);
    return fabs(a - 1) <= 4.7e-7 || fabs(b - 1) <= 4.7e-7;
}

static const char *const convs[] = { "identity", "rotate -90 deg about X", "rotate 180 deg about X" };

static void check_rotation(const float q[4], uint32_t *tested)
{
    if (!near_unit(q)) return;
    for (int i = 0; i < 3; i++) {
        gltf_conv cv;
        CHECK(gltf_conv_from_text(convs[i], i == 2 ? 0.01 : 1, &cv));
        for (int root = 0; root <= (cv.identity ? 1 : 0); root++) {
            float back[4];
            gltf_undo_rotation(&cv, root, q, back);
            CHECK_MSG(!memcmp(back, q, sizeof back), "%s root %d: %.9g %.9g %.9g %.9g came back as %.9g %.9g %.9g %.9g",
                      convs[i], root, (double)q[0], (double)q[1], (double)q[2], (double)q[3], (double)back[0],
                      (double)back[1], (double)back[2], (double)back[3]);
        }
    }
    ++*tested;
}

TEST(rotations_near_unit_come_back_as_they_are)
{
    uint32_t n = test_full() ? 4000000u : 200000u, tested = 0;
    for (uint32_t k = 0; k < n; k++) {
        double d[4], len = 0;
        for (int i = 0; i < 4; i++) {
            d[i] = uniform() * 2 - 1;
            if (k % 7 == 0 && i == (int)(k / 7 % 4)) d[i] = 0; /* some zero components */
            len += d[i] * d[i];
        }
        if (!(len > 1e-6)) continue;
        /* a length within about +-2.4e-7 of 1: squared, near the 4.7e-7 bound */
        double scale = (1 + (uniform() * 2 - 1) * 2.4e-7) / sqrt(len);
        float q[4];
        for (int i = 0; i < 4; i++) q[i] = (float)(d[i] * scale);
        check_rotation(q, &tested);
    }
    /* axis keys, signed zeros */
    static const float axes[][4] = { { 0, 0, 0, 1 },  { -0.0f, 0, 0, 1 }, { 0, -0.0f, -0.0f, -1 },     { 1, 0, 0, 0 },
                                     { 0, -1, 0, 0 }, { 0, 0, 1, -0.0f }, { 0.5f, -0.5f, 0.5f, -0.5f } };
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++) check_rotation(axes[i], &tested);
    CHECK_MSG(tested > n / 3, "only %u of %u keys were near unit length", tested, n);
}

TEST(translations_of_other_bones_come_back_as_they_are)
{
    uint32_t n = test_full() ? 4000000u : 200000u;
    for (uint32_t k = 0; k < n; k++) {
        float t[3], back[3];
        for (int i = 0; i < 3; i++) {
            uint32_t bits = (uint32_t)next64();
            if ((bits & 0x7F800000u) == 0x7F800000u) bits &= 0xBFFFFFFFu; /* finite: exponent not all ones */
            memcpy(&t[i], &bits, sizeof bits);
        }
        for (int c = 0; c < 3; c++) {
            gltf_conv cv;
            CHECK(gltf_conv_from_text(convs[c], 1, &cv));
            gltf_undo_translation(&cv, 0, t, back);
            CHECK_MSG(!memcmp(back, t, sizeof back), "%s: %g %g %g", convs[c], (double)t[0], (double)t[1],
                      (double)t[2]);
        }
    }
}

int main(void)
{
    RUN(rotations_near_unit_come_back_as_they_are);
    RUN(translations_of_other_bones_come_back_as_they_are);
    return test_finish();
}
