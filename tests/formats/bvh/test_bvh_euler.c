/* The BVH reader's Euler to quaternion (bvh_euler_to_quat, the short product) against
 * what it replaced, three ganim_dq_mul from the identity: the same bits in every
 * component, signed zeros included, for every channel order, on angles of every kind
 * (zero of either sign, tiny, subnormal, whole and quarter turns and their neighbours,
 * huge, random, and decimals as files write them). */
#include <stdlib.h>

#include "core/dquat.h"
#include "formats/bvh/bvh.h"
#include "test.h"

#define PI 3.14159265358979323846

/* The product as the reader computed it before the short product (the reference). */
static void reference(const double deg[3], const int order[3], double q[4])
{
    q[0] = q[1] = q[2] = 0;
    q[3] = 1;
    for (int i = 0; i < 3; i++) {
        double h = deg[order[i]] * (3.14159265358979323846 / 360.0), e[4] = { 0, 0, 0, cos(h) };
        e[order[i]] = sin(h);
        ganim_dq_mul(q, e, q);
    }
}

static const int orders[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };

static int check_angles(const double deg[3])
{
    for (int o = 0; o < 6; o++) {
        double want[4], got[4];
        reference(deg, orders[o], want);
        bvh_euler_to_quat(deg, orders[o], got);
        if (memcmp(want, got, sizeof want) != 0) {
            CHECK_MSG(0, "angles (%a %a %a) order %d%d%d: (%a %a %a %a) instead of (%a %a %a %a)", deg[0], deg[1],
                      deg[2], orders[o][0], orders[o][1], orders[o][2], got[0], got[1], got[2], got[3], want[0],
                      want[1], want[2], want[3]);
            return 0;
        }
    }
    return 1;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Known answers: a quarter turn about each axis, and a turn about X then Y. */
TEST(known_answers)
{
    const double h = sqrt(0.5);
    for (int a = 0; a < 3; a++) {
        double deg[3] = { 0, 0, 0 }, q[4];
        deg[a] = 90;
        bvh_euler_to_quat(deg, orders[0], q);
        for (int k = 0; k < 3; k++) CHECK_NEAR(q[k], k == a ? h : 0, 1e-15);
        CHECK_NEAR(q[3], h, 1e-15);
    }
    /* Rx(90) Ry(90) = (0.5, 0.5, 0.5, 0.5) */
    double deg[3] = { 90, 90, 0 }, q[4];
    bvh_euler_to_quat(deg, orders[0], q);
    for (int k = 0; k < 4; k++) CHECK_NEAR(q[k], 0.5, 1e-15);
    /* every angle non-zero: the short product */
    double deg2[3] = { 30, -45, 60 };
    bvh_euler_to_quat(deg2, orders[0], q);
    double x = sin(PI / 12), cx = cos(PI / 12), y = sin(-PI / 8), cy = cos(-PI / 8), z = sin(PI / 6), cz = cos(PI / 6);
    /* qx qy qz, written out */
    CHECK_NEAR(q[0], x * cy * cz + cx * y * z, 1e-15);
    CHECK_NEAR(q[1], cx * y * cz - x * cy * z, 1e-15);
    CHECK_NEAR(q[2], cx * cy * z + x * y * cz, 1e-15);
    CHECK_NEAR(q[3], cx * cy * cz - x * y * z, 1e-15);
}

/* Every triple of special angles, in every position. */
TEST(special_angles)
{
    static const double special[] = { 0.0,    -0.0,    1e-300, -1e-300, 5e-324,   -5e-324,  1e-90,    2e-88,
                                      1e-17,  1,       -1,     45,      90,       -90,      180,      -180,
                                      270,    360,     -360,   720,     1e-7,     179.9999, 180.0001, 359.99997,
                                      1e30,   -1e30,   3.4e38, -3.4e38, 0x1p-290, 0x1p-291, 1e-45,    1.4e-45,
                                      1e-130, -1e-130, 1e-200, 1e-160,  1e-310,   -1e-320,  1e-320 };
    const size_t n = sizeof special / sizeof special[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            for (size_t k = 0; k < n; k++) {
                double deg[3] = { special[i], special[j], special[k] };
                if (!check_angles(deg)) return;
            }
}

/* Random angles: uniform in +-720 degrees, decimals of 3 to 7 digits as files write them
 * (some exactly zero), and random finite doubles of any exponent. */
TEST(random_angles)
{
    long n = test_full() ? 20000000 : 400000;
    for (long i = 0; i < n; i++) {
        double deg[3];
        for (int a = 0; a < 3; a++) {
            uint64_t r = next_random();
            switch (r & 3) {
            case 0: deg[a] = ((double)(r >> 11) / 9007199254740992.0 - 0.5) * 1440; break;
            case 1: deg[a] = (double)((int64_t)(r >> 20) % 3600000) / 10000.0; break;
            case 2: deg[a] = (r & 4) ? 0.0 : -(double)((r >> 8) % 1000) / 1e6; break;
            default: {
                uint64_t bits = next_random();
                memcpy(&deg[a], &bits, sizeof bits);
                if (!isfinite(deg[a])) deg[a] = 1;
            }
            }
        }
        if (!check_angles(deg)) return;
    }
}

/* The reader's rotations against bvh_euler_to_quat normalised as the reader does, bit
 * for bit, in the six channel orders: angles that repeat from frame to frame (the reader
 * keeps their sine and cosine), zeros of either sign (the reader does not call libm for
 * them: sin(+-0) = +-0, cos(+-0) = 1, checked here on this libm) and others. */
TEST(reader_matches)
{
    volatile double pz = 0.0, nz = -0.0; /* not folded by the compiler: libm's own answers */
    double sp = sin(pz), sn = sin(nz), cp = cos(pz), cn = cos(nz);
    CHECK(sp == 0 && !signbit(sp) && sn == 0 && signbit(sn) && cp == 1 && cn == 1);
    static const char *const names[3] = { "Xrotation", "Yrotation", "Zrotation" };
    static const double angles[] = { 0.0, -0.0, 90, -90, 12.5, -0.028320312, 180, 1e-310, 33.333333 };
    enum { NA = sizeof angles / sizeof angles[0], FRAMES = 40 };
    char *text = malloc(1 << 16);
    CHECK(text != NULL);
    if (!text) return;
    for (int o = 0; o < 6; o++) {
        int len = snprintf(text, 1 << 16,
                           "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 3 %s %s %s\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n"
                           "MOTION\nFrames: %d\nFrame Time: 0.1\n",
                           names[orders[o][0]], names[orders[o][1]], names[orders[o][2]], FRAMES);
        double deg[FRAMES][3]; /* by axis */
        for (int fr = 0; fr < FRAMES; fr++) {
            for (int a = 0; a < 3; a++) {
                uint64_t r = next_random();
                deg[fr][a] = fr && (r & 3) == 0 ? deg[fr - 1][a] : angles[(r >> 8) % NA];
            }
            for (int k = 0; k < 3; k++)
                len += snprintf(text + len, (size_t)(1 << 16) - (size_t)len, "%.17g ", deg[fr][orders[o][k]]);
            len += snprintf(text + len, (size_t)(1 << 16) - (size_t)len, "\n");
        }
        ganim_doc *d = NULL;
        ganim_error e = { 0 };
        CHECK_MSG(ganim_read_memory(text, (size_t)len, NULL, &d, &e) == GANIM_OK, "%s", e.message);
        if (!d) continue;
        const ganim_channel *ch = &d->clips[0].tracks[0].rotation;
        for (int fr = 0; fr < FRAMES; fr++) {
            double q[4];
            float want[4];
            bvh_euler_to_quat(deg[fr], orders[o], q);
            double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            for (int a = 0; a < 4; a++) want[a] = (float)(q[a] / n);
            const float *got = ch->values + (ch->kind == GANIM_CHANNEL_CONSTANT ? 0 : 4 * fr);
            CHECK_MSG(!memcmp(got, want, sizeof want), "order %d frame %d: (%a %a %a %a) instead of (%a %a %a %a)", o,
                      fr, got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
        }
        ganim_doc_free(d);
    }
    free(text);
}

int main(void)
{
    test_program_name = "test_bvh_euler";
    RUN(known_answers);
    RUN(special_angles);
    RUN(random_angles);
    RUN(reader_matches);
    return test_finish();
}
