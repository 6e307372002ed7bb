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
 * them: sin(+-0) = +-0, cos(+-0) = 1, checked here on this libm) and others. Three joints
 * (the reader computes two at a time, the last alone), joint 1 in the order after joint 0's. */
TEST(reader_matches)
{
    volatile double pz = 0.0, nz = -0.0; /* not folded by the compiler: libm's own answers */
    double sp = sin(pz), sn = sin(nz), cp = cos(pz), cn = cos(nz);
    CHECK(sp == 0 && !signbit(sp) && sn == 0 && signbit(sn) && cp == 1 && cn == 1);
    static const char *const names[3] = { "Xrotation", "Yrotation", "Zrotation" };
    static const double angles[] = { 0.0, -0.0, 90, -90, 12.5, -0.028320312, 180, 1e-310, 33.333333 };
    enum { NA = sizeof angles / sizeof angles[0], FRAMES = 40, NJ = 3 };
    char *text = malloc(1 << 16);
    CHECK(text != NULL);
    if (!text) return;
    for (int o = 0; o < 6; o++) {
        const int *ord[NJ] = { orders[o], orders[(o + 1) % 6], orders[o] };
        int len = snprintf(text, 1 << 16, "HIERARCHY\n");
        for (int j = 0; j < NJ; j++)
            len +=
                snprintf(text + len, (size_t)(1 << 16) - (size_t)len, "%s j%d\n{\nOFFSET 0 1 0\nCHANNELS 3 %s %s %s\n",
                         j ? "JOINT" : "ROOT", j, names[ord[j][0]], names[ord[j][1]], names[ord[j][2]]);
        len += snprintf(text + len, (size_t)(1 << 16) - (size_t)len,
                        "End Site\n{\nOFFSET 0 1 0\n}\n}\n}\n}\nMOTION\nFrames: %d\nFrame Time: 0.1\n", FRAMES);
        double deg[FRAMES][NJ][3]; /* by axis */
        for (int fr = 0; fr < FRAMES; fr++) {
            for (int j = 0; j < NJ; j++)
                for (int a = 0; a < 3; a++) {
                    uint64_t r = next_random();
                    deg[fr][j][a] = fr && (r & 3) == 0 ? deg[fr - 1][j][a] : angles[(r >> 8) % NA];
                    if (j && (r >> 16) % 3 == 0) deg[fr][j][a] = ((double)(r >> 24) / 1099511627776.0 - 0.5) * 720;
                }
            for (int j = 0; j < NJ; j++)
                for (int k = 0; k < 3; k++)
                    len += snprintf(text + len, (size_t)(1 << 16) - (size_t)len, "%.17g ", deg[fr][j][ord[j][k]]);
            len += snprintf(text + len, (size_t)(1 << 16) - (size_t)len, "\n");
        }
        ganim_doc *d = NULL;
        ganim_error e = { 0 };
        CHECK_MSG(ganim_read_memory(text, (size_t)len, NULL, &d, &e) == GANIM_OK, "%s", e.message);
        if (!d) continue;
        for (int j = 0; j < NJ; j++) {
            const ganim_channel *ch = &d->clips[0].tracks[j].rotation;
            for (int fr = 0; fr < FRAMES; fr++) {
                double q[4];
                float want[4];
                bvh_euler_to_quat(deg[fr][j], ord[j], q);
                double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                for (int a = 0; a < 4; a++) want[a] = (float)(q[a] / n);
                const float *got = ch->values + (ch->kind == GANIM_CHANNEL_CONSTANT ? 0 : 4 * fr);
                CHECK_MSG(!memcmp(got, want, sizeof want),
                          "order %d joint %d frame %d: (%a %a %a %a) instead of (%a %a %a %a)", o, j, fr, got[0],
                          got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
            }
        }
        ganim_doc_free(d);
    }
    free(text);
}

/* ---- the fast path (bvh_model.c: rotation_fast) against libm's -------------------------------- */

#define U 0x1p-53

/* An angle of one of twelve kinds: k < 7 are the angles files hold (random doubles within
 * +-720, decimals of 4 places, whole degrees, halves), then quarter turns, zeros of either
 * sign, tiny and subnormal ones, huge ones, and the fast path's edges, NaN and infinities. */
static double test_angle(int k)
{
    uint64_t r = next_random();
    switch (k) {
    case 0:
    case 1:
    case 2:
    case 3: return ((double)(r >> 11) / 9007199254740992.0 - 0.5) * 1440;
    case 4: return (double)((int64_t)(r >> 20) % 3600000) / 10000.0;
    case 5: return (double)((int64_t)(r >> 20) % 721);
    case 6: return (double)((int64_t)(r >> 20) % 1441) / 2;
    case 7: return 90.0 * (double)((int64_t)(r >> 20) % 13);
    case 8: return (r >> 9) & 1 ? 0.0 : -0.0;
    case 9: return ldexp((double)(r >> 11), -(int)((r & 1023) + 53)) * ((r >> 10) & 1 ? 1 : -1);
    case 10: return ldexp((double)(r >> 11) / 9007199254740992.0, (int)(r & 1023)) * ((r >> 10) & 1 ? 1 : -1);
    default: {
        /* the domain's edges: |h| = 2^-290 and 2^10 (h = deg x pi/360), 180 degrees'
         * neighbours (r within 2^-56 of a quarter turn), NaN, infinities */
        static const double edge[] = { 0x1p-290 * (360 / PI), 0x1p10 * (360 / PI), 180, 360, 540, -180, -720 };
        double d = edge[(r >> 8) % (sizeof edge / sizeof edge[0])];
        int steps = (int)((r >> 16) % 9) - 4;
        for (; steps > 0; steps--) d = nextafter(d, INFINITY);
        for (; steps < 0; steps++) d = nextafter(d, -INFINITY);
        switch ((r >> 24) % 8) {
        case 0: return NAN;
        case 1: return (r >> 27) & 1 ? INFINITY : -INFINITY;
        default: return (r >> 28) & 1 ? d : -d;
        }
    }
    }
}

/* The roots' turns of bvh.axes and others (NULL: no turn). */
static const double turns[6][4] = {
    { 0, 0, 0, 0 },
    { 0.70710678118654752440, 0, 0, 0.70710678118654752440 },
    { -0.70710678118654752440, 0, 0, 0.70710678118654752440 },
    { 0, 0, -0.70710678118654752440, 0.70710678118654752440 },
    { 0, 1, 0, 0 },
    { 0.5, -0.5, -0.5, 0.5 },
};

/* A random rotation for the fast path's tests: angles of the twelve kinds, an order, a
 * root's turn (t, 0: none); returns 1 where every angle is of the kinds files hold. */
static int random_rotation(double deg[3], const int **order, int *t)
{
    uint64_t r = next_random();
    int kinds_real = 1;
    for (int a = 0; a < 3; a++) {
        int k = (int)((r >> (8 * a)) % 12);
        kinds_real &= k < 7;
        deg[a] = test_angle(k);
    }
    *order = orders[(r >> 32) % 6];
    *t = (int)((r >> 40) % 6);
    return kinds_real;
}

/* got (the fast path's floats) and want (libm's path's) the same bits; else a message. */
static int same_floats(const double deg[3], const int *order, int t, const float got[4], const float want[4])
{
    if (!memcmp(got, want, 4 * sizeof *got)) return 1;
    CHECK_MSG(0, "angles (%a %a %a) order %d%d%d turn %d: (%a %a %a %a) instead of (%a %a %a %a)", deg[0], deg[1],
              deg[2], order[0], order[1], order[2], t, got[0], got[1], got[2], got[3], want[0], want[1], want[2],
              want[3]);
    return 0;
}

/* Millions of rotations: the reader's floats against libm's path, bit for bit (signed zeros
 * included), in the six orders, with and without a root's turn; the fast path must take
 * at least 99.9 % of the rotations of the angles files hold. */
TEST(fast_same_floats)
{
    long n = test_full() ? 20000000 : 1000000, fast = 0, real = 0, real_fast = 0;
    for (long i = 0; i < n; i++) {
        double deg[3];
        const int *order;
        int t, kinds_real = random_rotation(deg, &order, &t);
        const double *undo = t ? turns[t] : NULL;
        float got[4], want[4];
        int f = bvh_rotation(deg, order, undo, got, 0);
        bvh_rotation(deg, order, undo, want, 1);
        fast += f;
        real += kinds_real;
        real_fast += kinds_real && f;
        if (!same_floats(deg, order, t, got, want)) return;
    }
    printf("  %ld rotations, %ld by the fast path (%s); of the %ld of files' angles, %ld left to libm\n", n, fast,
           bvh_has_fast_rotation() ? "AVX2 and FMA" : "none here", real, real - real_fast);
    if (bvh_has_fast_rotation())
        CHECK_MSG(real_fast >= real - real / 1000, "%ld of %ld rotations left to libm", real - real_fast, real);
}

/* The same for two rotations side by side (rotation_fast2: the reader's two joints at a
 * time), each of the pair's against libm's path bit for bit, the second of the angles files
 * hold in half the pairs (so that most pairs take the pair's path whole); the pair's path
 * must take at least 99.9 % of the rotations of the files' angles. */
TEST(fast_pair_same_floats)
{
    long n = test_full() ? 10000000 : 500000, fast = 0, real = 0, real_fast = 0;
    for (long i = 0; i < n; i++) {
        double deg[2][3];
        const int *order[2];
        const double *undo[2];
        int t[2], kinds_real[2];
        float got[2][4], want[4];
        for (int k = 0; k < 2; k++) {
            do kinds_real[k] = random_rotation(deg[k], &order[k], &t[k]);
            while (k == 1 && (i & 1) && !kinds_real[k]);
            undo[k] = t[k] ? turns[t[k]] : NULL;
        }
        int f = bvh_rotation_pair(deg[0], order[0], undo[0], got[0], deg[1], order[1], undo[1], got[1]);
        for (int k = 0; k < 2; k++) {
            bvh_rotation(deg[k], order[k], undo[k], want, 1);
            fast += f >> k & 1;
            real += kinds_real[k];
            real_fast += kinds_real[k] && (f >> k & 1);
            if (!same_floats(deg[k], order[k], t[k], got[k], want)) return;
        }
    }
    printf("  %ld pairs, %ld rotations by the fast path; of the %ld of files' angles, %ld left to libm\n", n, fast,
           real, real - real_fast);
    if (bvh_has_fast_rotation())
        CHECK_MSG(real_fast >= real - real / 1000, "%ld of %ld rotations left to libm", real - real_fast, real);
}

/* Four rotations of one order a vector lane each (the reader's frames, four joints at a
 * time): each lane's floats libm's path's, bit for bit, on the random and special angles
 * (zeros of both signs, quarter turns and their neighbours, huge and tiny ones) in every
 * lane pattern of kinds; the fast path must take 99.9 % of the files' angles. */
TEST(fast_quad_same_floats)
{
    long n = test_full() ? 5000000 : 250000, fast = 0, real = 0, real_fast = 0;
    for (long i = 0; i < n; i++) {
        double deg[4][3];
        const int *order = NULL, *o;
        int t, kinds_real[4];
        float got[4][4], want[4];
        for (int k = 0; k < 4; k++) {
            do kinds_real[k] = random_rotation(deg[k], &o, &t);
            while ((i >> k & 1) && !kinds_real[k]); /* lane patterns: some lanes files' angles only */
            if (!order) order = o;
        }
        int f = bvh_rotation_quad((const double(*)[3])deg, order, got);
        for (int k = 0; k < 4; k++) {
            bvh_rotation(deg[k], order, NULL, want, 1);
            fast += f >> k & 1;
            real += kinds_real[k];
            real_fast += kinds_real[k] && (f >> k & 1);
            if (!same_floats(deg[k], order, 0, got[k], want)) return;
        }
    }
    printf("  %ld quads, %ld rotations by the fast path; of the %ld of files' angles, %ld left to libm\n", n, fast,
           real, real - real_fast);
    if (bvh_has_fast_rotation())
        CHECK_MSG(real_fast >= real - real / 1000, "%ld of %ld rotations left to libm", real - real_fast, real);
}

/* Quads of every combination of signed zeros, half and whole turns (whose sines or
 * cosines are zeros, ones and their neighbours) in every order: each lane's floats libm's
 * path's bit for bit (the lanes' first product is the first axis rotation with its sine +
 * (+0): a -0 there must not reach the floats). */
TEST(fast_quad_signed_zeros)
{
    static const double v[8] = { 0.0, -0.0, 30, -30, 180, -180, 360, -360 };
    long quads = 0, fast = 0;
    for (int o = 0; o < 6; o++)
        for (int base = 0; base < 512; base += 4) {
            double deg[4][3];
            float got[4][4], want[4];
            for (int l = 0; l < 4; l++)
                for (int a = 0; a < 3; a++) deg[l][a] = v[((base + l) >> (3 * a)) & 7];
            int f = bvh_rotation_quad((const double(*)[3])deg, orders[o], got);
            quads++;
            for (int l = 0; l < 4; l++) {
                fast += f >> l & 1;
                bvh_rotation(deg[l], orders[o], NULL, want, 1);
                if (!same_floats(deg[l], orders[o], 0, got[l], want)) return;
            }
        }
    printf("  %ld quads of zeros and turns, %ld rotations by the fast path\n", quads, fast);
}

/* A quad with one lane's angle out of the fast sine's domain (huge, infinite, NaN, past
 * |h| = 2^10, in any of the three angles): that lane alone is left to the caller, the other
 * three are written by the lanes, exactly where the single rotation's fast path takes them
 * (the same arithmetic: the same decision), and every float is libm's path's. */
TEST(fast_quad_one_lane_out)
{
    static const double out[] = { 1e300, -1e300, INFINITY, -INFINITY, NAN, 0x1p10 * (360 / PI) * 1.5, -1e20 };
    long quads = 0, three = 0;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 3; i++)
            for (size_t b = 0; b < sizeof out / sizeof out[0]; b++)
                for (int o = 0; o < 6; o++)
                    for (int rep = 0; rep < 40; rep++) {
                        double deg[4][3];
                        float got[4][4], want[4];
                        int expect = 0;
                        for (int l = 0; l < 4; l++)
                            for (int a = 0; a < 3; a++) { /* files' angles: decimals of a few digits */
                                uint64_t r = next_random();
                                deg[l][a] = (double)(int64_t)(r % 720001) / 1000 - 360;
                            }
                        deg[k][orders[o][i]] = out[b]; /* the i-th angle in the lane's order */
                        for (int l = 0; l < 4; l++)
                            if (l != k && bvh_has_fast_rotation())
                                expect |= bvh_rotation(deg[l], orders[o], NULL, want, 0) << l;
                        int f = bvh_rotation_quad((const double(*)[3])deg, orders[o], got);
                        quads++;
                        three += expect == (15 & ~(1 << k));
                        CHECK_MSG(f == expect, "lane %d angle %d = %a, order %d: lanes 0x%x written, 0x%x expected", k,
                                  i, out[b], o, (unsigned)f, (unsigned)expect);
                        for (int l = 0; l < 4; l++) {
                            bvh_rotation(deg[l], orders[o], NULL, want, 1);
                            if (!same_floats(deg[l], orders[o], 0, got[l], want)) return;
                        }
                        if (test_failures_in_current) return;
                    }
    printf("  %ld quads with a lane out of the domain, %ld with the other three lanes all by the fast path\n", quads,
           three);
    if (bvh_has_fast_rotation()) CHECK_MSG(three >= quads - quads / 100, "%ld of %ld", three, quads);
}

/* The fast sines and cosines within 34u of libm's (32u of the true value, and libm's 1 ulp)
 * on angles files hold and on the neighbours of quarter turns; the largest distance is
 * printed (2u here). */
TEST(fast_sincos_bound)
{
    if (!bvh_has_fast_rotation()) return;
    long n = test_full() ? 20000000 : 1000000, bad = 0;
    double worst = 0;
    for (long i = 0; i < n; i++) {
        double deg[3], s[3], c[3];
        for (int a = 0; a < 3; a++) {
            uint64_t r = next_random();
            deg[a] = (r & 3) ? test_angle((int)((r >> 2) % 7)) : 90.0 * (double)((int64_t)(r >> 20) % 13 - 6);
            if (!(r & 3)) deg[a] += ldexp((double)((int64_t)((r >> 8) % 2001) - 1000), -40);
        }
        if (!bvh_fast_half_sincos(deg, s, c)) continue;
        for (int a = 0; a < 3; a++) {
            if (deg[a] == 0) {
                CHECK(memcmp(&s[a], &deg[a], sizeof s[a]) == 0 && c[a] == 1);
                continue;
            }
            double h = deg[a] * (PI / 360), ls = sin(h), lc = cos(h);
            double es = fabs(s[a] - ls) / fabs(ls), ec = fabs(c[a] - lc) / fabs(lc);
            if (es > worst) worst = es;
            if (ec > worst) worst = ec;
            if ((es > 34 * U || ec > 34 * U) && bad++ < 5)
                CHECK_MSG(0, "%a degrees: sine %a cosine %a, libm's %a %a", deg[a], s[a], c[a], ls, lc);
        }
    }
    printf("  largest relative distance to libm's sine or cosine: %.2f u\n", worst / U);
    CHECK(bad == 0);
}

/* The bound E of each component holds: the fast path's doubles (before the cast to float)
 * within E of libm's path's, and the same bits where E is 0. The largest fraction of E
 * used is printed. */
TEST(fast_bound_holds)
{
    if (!bvh_has_fast_rotation()) return;
    long n = test_full() ? 20000000 : 1000000, bad = 0;
    double worst = 0;
    for (long i = 0; i < n; i++) {
        double deg[3], fast[4], e[4], ref[4];
        uint64_t r = next_random();
        for (int a = 0; a < 3; a++) deg[a] = test_angle((int)((r >> (8 * a)) % 12));
        const int *order = orders[(r >> 32) % 6];
        int t = (int)((r >> 40) % 6);
        if (!bvh_rotation_bound(deg, order, t ? turns[t] : NULL, fast, e, ref)) continue;
        for (int a = 0; a < 4; a++) {
            double d = fabs(fast[a] - ref[a]);
            int ok = e[a] > 0 ? d <= e[a] : !memcmp(&fast[a], &ref[a], sizeof ref[a]);
            if (e[a] > 0 && d / e[a] > worst) worst = d / e[a];
            if (!ok && bad++ < 5)
                CHECK_MSG(0, "angles (%a %a %a) order %d%d%d turn %d, component %d: %a against libm's %a, bound %a",
                          deg[0], deg[1], deg[2], order[0], order[1], order[2], t, a, fast[a], ref[a], e[a]);
        }
    }
    printf("  largest distance to libm's path's doubles: %.4f of the bound\n", worst);
    CHECK(bad == 0);
}

/* A quaternion component for fast_dq_mul_matches: signed zeros, ones, halves, random
 * doubles of any size, tiny and huge ones (products that round, overflow or underflow). */
static double test_component(uint64_t r)
{
    double sign = (r >> 4) & 1 ? -1.0 : 1.0;
    switch (r & 7) {
    case 0:
    case 1: return sign * 0.0;
    case 2: return sign * 1.0;
    case 3: return sign * 0.70710678118654752440;
    case 4: return sign * ldexp((double)(r >> 11), -(int)((r >> 5) % 1100) - 53);
    case 5: return sign * ldexp((double)(r >> 11) / 9007199254740992.0, (int)((r >> 5) % 2000) - 1000);
    default: return sign * (double)(r >> 11) / 9007199254740992.0;
    }
}

/* The fast path's ganim_dq_mul in one vector (the product of a zero angle's rotation and of
 * the roots' turn) against ganim_dq_mul, bit for bit, signed zeros included, on millions of
 * products of components of every kind. */
TEST(fast_dq_mul_matches)
{
    long n = test_full() ? 20000000 : 2000000, checked = 0;
    for (long i = 0; i < n; i++) {
        double a[4], b[4], want[4], got[4];
        for (int k = 0; k < 4; k++) {
            a[k] = test_component(next_random());
            b[k] = test_component(next_random());
        }
        if (!bvh_fast_dq_mul(a, b, got)) return; /* no fast path here */
        ganim_dq_mul(a, b, want);
        checked++;
        if (memcmp(got, want, sizeof got)) {
            CHECK_MSG(0, "(%a %a %a %a) * (%a %a %a %a): (%a %a %a %a) instead of (%a %a %a %a)", a[0], a[1], a[2],
                      a[3], b[0], b[1], b[2], b[3], got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
            return;
        }
    }
    printf("  %ld products the same\n", checked);
}

/* A rotation with at least one zero angle (of either sign), the others whole, quarter
 * and half turns or decimals as exports write them (wrap_rotation.da's export: 0, -0, 90,
 * -180, 15.029298); an order and a root's turn (t, 0: none). */
static void zero_angle_rotation(double deg[3], const int **order, int *t)
{
    uint64_t r = next_random();
    for (int a = 0; a < 3; a++) {
        int kind = (int)((r >> (4 * a)) % 5);
        deg[a] = kind == 0   ? ((r >> (12 + a)) & 1 ? 0.0 : -0.0)
                 : kind == 1 ? 90.0 * (double)((int64_t)(r >> (20 + 3 * a)) % 9 - 4)
                 : kind == 2 ? (double)((int64_t)(r >> (20 + 3 * a)) % 721 - 360)
                             : test_angle(4 + (int)((r >> (30 + a)) & 1));
    }
    deg[(r >> 40) % 3] = (r >> 42) & 1 ? 0.0 : -0.0;
    *order = orders[(r >> 44) % 6];
    *t = (int)((r >> 48) % 6);
}

/* Rotations with a zero angle (the fast path's vector product of three axis turns), in
 * pairs as the reader takes them, with and without a root's turn: the floats of libm's path
 * bit for bit; without a turn at least 99.9 % by the fast path (a root's exact zero goes to
 * libm by the bound's rule). */
TEST(fast_zero_angles_same_floats)
{
    long n = test_full() ? 4000000 : 400000, fast = 0, plain = 0, plain_fast = 0;
    for (long i = 0; i < n; i++) {
        struct {
            double deg[3];
            const int *order;
            int t;
            float q[4];
        } p[2];
        for (int k = 0; k < 2; k++) zero_angle_rotation(p[k].deg, &p[k].order, &p[k].t);
        const double *u0 = p[0].t ? turns[p[0].t] : NULL, *u1 = p[1].t ? turns[p[1].t] : NULL;
        int f = bvh_rotation_pair(p[0].deg, p[0].order, u0, p[0].q, p[1].deg, p[1].order, u1, p[1].q);
        for (int k = 0; k < 2; k++) {
            float want[4];
            bvh_rotation(p[k].deg, p[k].order, k ? u1 : u0, want, 1);
            fast += f >> k & 1;
            plain += !p[k].t;
            plain_fast += !p[k].t && (f >> k & 1);
            if (!same_floats(p[k].deg, p[k].order, p[k].t, p[k].q, want)) return;
        }
    }
    printf("  %ld rotations with a zero angle, %ld by the fast path; without a turn %ld of %ld\n", 2 * n, fast,
           plain_fast, plain);
    if (bvh_has_fast_rotation())
        CHECK_MSG(plain_fast >= plain - plain / 1000, "%ld of %ld without a turn left to libm", plain - plain_fast,
                  plain);
}

/* ---- rotations that wait for the next frame's (bvh_model.c: bvh_frame's fours) ---------------- */

/* An allocator that hands out one buffer's bytes in order: two reads that allocate the same
 * sizes in the same order put every array at the same offset. */
static unsigned char *bump_buf;
static size_t bump_at, bump_cap, bump_used; /* bump_used: the most a read has taken */
static void *bump_alloc(void *user, size_t n)
{
    (void)user;
    n = (n + 63) & ~(size_t)63;
    if (n > bump_cap - bump_at) return NULL;
    void *p = bump_buf + bump_at;
    bump_at += n;
    return p;
}
static void *bump_realloc(void *user, void *p, size_t old_size, size_t n)
{
    void *q = bump_alloc(user, n);
    if (q && p) memcpy(q, p, old_size < n ? old_size : n);
    return q;
}
static void bump_free(void *user, void *p, size_t n) { (void)user, (void)p, (void)n; }

/* A random text for across_frames: 1-11 joints in a chain, mostly of one channel order,
 * some without rotations or with positions, frames of constant channels, channels that
 * start to move at some frame, +0 and -0 in turn, frames that repeat the one before;
 * sometimes ganim's synthetic root (whose first moving frame makes the reader read again). */
static int across_synthetic; /* the last text's root is ganim's synthetic one */
static int across_text(char *text, size_t cap)
{
    static const char *const names[3] = { "Xrotation", "Yrotation", "Zrotation" };
    static const double some[] = { 0.0, -0.0, 90, -90, 12.5, -0.028320312, 180, 33.333333, 1e-310, 720 };
    enum { NS = sizeof some / sizeof some[0] };
    uint64_t r = next_random();
    int nj = 1 + (int)(r % 11), frames = 1 + (int)((r >> 4) % 24), o0 = (int)((r >> 9) % 6);
    int synthetic = (r >> 12) % 4 == 0, kind[12], mode[12][6], start[12][6];
    across_synthetic = synthetic;
    const int *ord[12];
    int len = snprintf(text, cap, "HIERARCHY\n");
    for (int j = 0; j < nj; j++) {
        uint64_t q = next_random();
        ord[j] = orders[q % 4 == 0 ? (q >> 2) % 6 : (uint64_t)o0];
        kind[j] = (int)((q >> 5) % 8); /* 0: none, 1: positions, 2-4: rotations, 5-7: both */
        if (j == 0 && synthetic) kind[j] = 7;
        for (int c = 0; c < 6; c++) {
            mode[j][c] = (int)((q >> (8 + 3 * c)) % 7);
            start[j][c] = (int)((q >> (30 + 4 * c)) % (uint64_t)(frames + 1));
        }
        len += snprintf(text + len, cap - (size_t)len, "%s %s\n{\nOFFSET %s\n", j ? "JOINT" : "ROOT",
                        j == 0 && synthetic ? "ganim_root"
                        : j                 ? "j"
                                            : "root",
                        j == 0 && synthetic ? "0 0 0" : "0 1 0");
        if (kind[j] == 0) len += snprintf(text + len, cap - (size_t)len, "CHANNELS 0\n");
        if (kind[j] == 1) len += snprintf(text + len, cap - (size_t)len, "CHANNELS 3 Xposition Yposition Zposition\n");
        if (kind[j] >= 2)
            len += snprintf(text + len, cap - (size_t)len, "CHANNELS %d %s%s %s %s\n", kind[j] >= 5 ? 6 : 3,
                            kind[j] >= 5 ? "Xposition Yposition Zposition " : "", names[ord[j][0]], names[ord[j][1]],
                            names[ord[j][2]]);
    }
    len += snprintf(text + len, cap - (size_t)len, "End Site\n{\nOFFSET 0 1 0\n}\n");
    for (int j = 0; j < nj; j++) len += snprintf(text + len, cap - (size_t)len, "}\n");
    len += snprintf(text + len, cap - (size_t)len, "MOTION\nFrames: %d\nFrame Time: 0.1\n", frames);
    double last[12][6] = { { 0 } };
    for (int fr = 0; fr < frames; fr++) {
        for (int j = 0; j < nj; j++) {
            int n = kind[j] == 0 ? 0 : kind[j] < 5 ? 3 : 6;
            for (int c = 0; c < n; c++) {
                uint64_t q = next_random();
                double v = some[q % NS];
                switch (mode[j][c]) {
                case 0: v = fr ? last[j][c] : v; break;                                /* constant */
                case 1: v = ((double)(q >> 20) / 17592186044416.0 - 0.5) * 720; break; /* moving */
                case 2: v = fr < start[j][c] ? (fr ? last[j][c] : 0.0) : v; break;     /* moves later */
                case 3: v = fr & 1 ? -0.0 : 0.0; break;                                /* +0, -0 */
                case 4: v = fr && (q >> 8) & 1 ? last[j][c] : v; break;                /* repeats */
                case 5: v = 0; break;
                default: v = (double)((int64_t)(q >> 20) % 3600000) / 10000.0; break; /* decimals */
                }
                if (j == 0 && synthetic && fr < start[j][c]) v = 0; /* ganim_root: 0 until then */
                last[j][c] = v;
                len += snprintf(text + len, cap - (size_t)len, "%.17g ", v);
            }
        }
        len += snprintf(text + len, cap - (size_t)len, "\n");
    }
    return len;
}

/* One read: its code and message, and a digest of the document (every channel's kind, count,
 * bits and its array's offset in bump_buf), into out. */
static void across_read(const char *text, int len, int axes, size_t limit, char *out, size_t cap)
{
    ganim_read_opts o = { 0 };
    ganim_setting s = { "bvh.axes", "z-up" };
    o.allocator.alloc = bump_alloc, o.allocator.realloc = bump_realloc, o.allocator.free = bump_free;
    o.memory_limit = limit;
    o.format = "bvh";
    if (axes) o.settings = &s, o.setting_count = 1;
    ganim_doc *d = NULL;
    ganim_error e = { 0 };
    /* another read's bytes at the same places would hide a value never written */
    memset(bump_buf, 0xA5, bump_used);
    bump_at = 0;
    ganim_code code = ganim_read_memory(text, (size_t)len, &o, &d, &e);
    if (bump_at > bump_used) bump_used = bump_at;
    int at = snprintf(out, cap, "%d %s @%llu\n", (int)code, e.message, (unsigned long long)e.offset);
    if (d && d->clip_count)
        for (uint32_t t = 0; t < d->clips[0].track_count; t++) {
            const ganim_track *tr = &d->clips[0].tracks[t];
            const ganim_channel *chs[2] = { &tr->translation, &tr->rotation };
            for (int c = 0; c < 2; c++) {
                const ganim_channel *ch = chs[c];
                size_t n = (size_t)ch->count * (c ? 4 : 3);
                uint64_t h = 1469598103934665603ull;
                for (size_t k = 0; k < n && ch->values; k++) {
                    uint32_t b;
                    memcpy(&b, &ch->values[k], sizeof b);
                    h = (h ^ b) * 1099511628211ull;
                }
                long off = ch->values ? (long)((const unsigned char *)ch->values - bump_buf) : -1;
                at += snprintf(out + at, cap - (size_t)at, "%u %d %d %u %016llx %ld\n", t, c, (int)ch->kind, ch->count,
                               (unsigned long long)h, off);
                if ((size_t)at >= cap - 64) return;
            }
        }
    if (d) ganim_doc_free(d);
}

/* A random text for rotations_per_joint: 1-8 joints in a chain, 1-3 of them turning (the
 * rest keep their angles, with or without positions), each turning joint of its own channel
 * order (any of the six) or all of one; its angles new in every frame, or repeating the frame
 * before's in runs, +0 and -0 in turn, huge (up to 3e38) or tiny; 1-41 frames (a multiple
 * of four or not). Values the reader refuses (1e39, NaN) sometimes, for the same error. */
static int turning_text(char *text, size_t cap)
{
    static const char *const names[3] = { "Xrotation", "Yrotation", "Zrotation" };
    static const double some[] = { 0.0,    -0.0, 90,   -90,   12.5, -0.028320312,  180,   33.333333,
                                   1e-310, 720,  3e38, -1e30, 1e20, 123456789.125, 1e-45, 359.99999 };
    enum { NS = sizeof some / sizeof some[0] };
    uint64_t r = next_random();
    int nj = 1 + (int)(r % 8), frames = 1 + (int)((r >> 4) % 41), o0 = (int)((r >> 10) % 6);
    int turning = 1 + (int)((r >> 14) % 3), one_order = (r >> 16) % 2 == 0, bad = (r >> 17) % 64 == 0;
    int kind[8], turn[8] = { 0 }, mode[8], pos[8];
    const int *ord[8];
    for (int k = 0; k < turning; k++) turn[(r >> (20 + 3 * k)) % (uint64_t)nj] = 1;
    int len = snprintf(text, cap, "HIERARCHY\n");
    for (int j = 0; j < nj; j++) {
        uint64_t q = next_random();
        ord[j] = orders[one_order ? (uint64_t)o0 : q % 6];
        kind[j] = turn[j] ? 1 : (int)((q >> 3) % 3); /* 0: none, 1: rotations, 2: none turning, positions */
        pos[j] = (q >> 6) % 2 == 0;
        mode[j] = (int)((q >> 8) % 6);
        len += snprintf(text + len, cap - (size_t)len, "%s j%d\n{\nOFFSET 0 1 0\n", j ? "JOINT" : "ROOT", j);
        if (kind[j] == 0) len += snprintf(text + len, cap - (size_t)len, "CHANNELS 3 Xposition Yposition Zposition\n");
        else
            len += snprintf(text + len, cap - (size_t)len, "CHANNELS %d %s%s %s %s\n", pos[j] ? 6 : 3,
                            pos[j] ? "Xposition Yposition Zposition " : "", names[ord[j][0]], names[ord[j][1]],
                            names[ord[j][2]]);
    }
    len += snprintf(text + len, cap - (size_t)len, "End Site\n{\nOFFSET 0 1 0\n}\n");
    for (int j = 0; j < nj; j++) len += snprintf(text + len, cap - (size_t)len, "}\n");
    len += snprintf(text + len, cap - (size_t)len, "MOTION\nFrames: %d\nFrame Time: 0.1\n", frames);
    double last[8][6];
    for (int j = 0; j < nj; j++)
        for (int c = 0; c < 6; c++) last[j][c] = some[next_random() % NS];
    int bad_at = bad ? (int)(next_random() % (uint64_t)(frames * nj)) : -1;
    for (int fr = 0; fr < frames; fr++) {
        int again = (next_random() & 3) != 0; /* this frame repeats a run's angles */
        for (int j = 0; j < nj; j++) {
            int n = kind[j] == 0 ? 3 : kind[j] == 1 && !pos[j] ? 3 : 6;
            for (int c = 0; c < n; c++) {
                uint64_t q = next_random();
                double v = last[j][c];
                if (turn[j] && (n == 3 || c >= 3)) switch (mode[j]) {
                    case 0: v = ((double)(q >> 20) / 17592186044416.0 - 0.5) * 720; break; /* new each frame */
                    case 1: v = again ? v : ((double)(q >> 20) / 17592186044416.0 - 0.5) * 720; break;
                    case 2: v = fr & 1 ? -0.0 : 0.0; break;
                    case 3: v = some[q % NS]; break;
                    case 4: v = fr % 5 == 4 ? v : (double)((int64_t)(q >> 20) % 3600000) / 10000.0; break;
                    default: v = c == 3 || n == 3 ? v : some[q % NS]; break; /* one angle moves */
                    }
                else if (c < 3 && (kind[j] == 0 || pos[j]) && (q >> 40) % 4 == 0)
                    v = (double)((int64_t)(q >> 20) % 100000) / 1000.0; /* positions move */
                last[j][c] = v;
                if (fr * nj + j == bad_at && c == n - 1)
                    len += snprintf(text + len, cap - (size_t)len, "%s ", (q & 1) ? "1e39" : "nan");
                else len += snprintf(text + len, cap - (size_t)len, "%.17g ", v);
            }
        }
        len += snprintf(text + len, cap - (size_t)len, "\n");
    }
    return len;
}

/* The reader with rotations waiting (in fours, across frames and within a joint's frames)
 * against each frame's finished within it (bvh_set_frame_local: the reader before the
 * waiting) and libm's path, on `texts` texts of gen(): every channel the same bits, every
 * array at the same place (the same allocations in the same order), and under memory
 * limits around the read's the same code, message and offset. A text is read with bvh.axes
 * one time in four, and always when `*synthetic`. Returns the reads that failed for their
 * limit. */
static int three_ways(int (*gen)(char *, size_t), const int *synthetic, int texts, const char *what)
{
    enum { CAP = 1 << 17 };
    char *text = malloc(CAP), *a = malloc(CAP), *b = malloc(CAP), *c = malloc(CAP);
    bump_cap = (size_t)1 << 22;
    bump_buf = malloc(bump_cap);
    bump_used = 0;
    CHECK(text && a && b && c && bump_buf);
    int limited = 0, failed = 0;
    if (!text || !a || !b || !c || !bump_buf) texts = 0;
    for (int t = 0; t < texts; t++) {
        /* with bvh.axes a synthetic root's first moving frame makes the reader read again */
        int len = gen(text, CAP), axes = (next_random() & 3) == 0 || (synthetic && *synthetic);
        bvh_set_frame_local(1);
        across_read(text, len, axes, 0, a, CAP);
        bvh_set_frame_local(0);
        across_read(text, len, axes, 0, b, CAP);
        size_t used = bump_at;
        failed += strncmp(a, "0 ", 2) != 0;
        if (strcmp(a, b)) {
            CHECK_MSG(0, "%s text %d (axes %d): frame by frame\n%s\nwaiting\n%s\n%s", what, t, axes, a, b, text);
            break;
        }
        bvh_set_libm_only(1);
        across_read(text, len, axes, 0, c, CAP);
        bvh_set_libm_only(0);
        /* libm's path allocates as it goes: the same values, other places */
        for (char *p = c, *q = a; *p && *q; p++, q++) {
            char *ep = strchr(p, '\n'), *eq = strchr(q, '\n');
            if (!ep || !eq) break;
            char *sp = ep, *sq = eq;
            while (sp > p && sp[-1] != ' ') sp--;
            while (sq > q && sq[-1] != ' ') sq--;
            if (sp - p != sq - q || memcmp(p, q, (size_t)(sp - p))) {
                CHECK_MSG(0, "%s text %d: libm's path differs\n%s\n%s", what, t, c, a);
                break;
            }
            p = ep, q = eq;
        }
        if (t % 25 == 0) { /* memory limits: the read fails at the same allocation */
            for (size_t lim = used > 6000 ? used - 6000 : 1; lim < used + 64; lim += 13) {
                bvh_set_frame_local(1);
                across_read(text, len, axes, lim, a, CAP);
                bvh_set_frame_local(0);
                across_read(text, len, axes, lim, b, CAP);
                limited += strncmp(a, "0 ", 2) != 0;
                if (strcmp(a, b)) {
                    CHECK_MSG(0, "%s text %d limit %zu: frame by frame\n%s\nwaiting\n%s", what, t, lim, a, b);
                    break;
                }
            }
        }
    }
    printf("  %s: %d texts the same three ways (%d refused the same), %d reads that their memory limit failed "
           "the same\n",
           what, texts, failed, limited);
    free(text), free(a), free(b), free(c), free(bump_buf);
    return limited;
}

/* The reader with rotations waiting for the next frame's fours against each frame's finished
 * within it (bvh_set_frame_local: the reader before it) and libm's path: see three_ways. */
TEST(rotations_across_frames)
{
    int limited = three_ways(across_text, &across_synthetic, test_full() ? 20000 : 3000, "many joints");
    CHECK_MSG(limited > 100, "only %d reads failed for their memory limit", limited);
}

/* One to three joints turning (the others still): a joint's rotations wait for its own next
 * frames (a four of one joint's frames), finished before a frame with the same angles. */
TEST(rotations_per_joint)
{
    int limited = three_ways(turning_text, NULL, test_full() ? 20000 : 4000, "1-3 turning");
    CHECK_MSG(limited > 100, "only %d reads failed for their memory limit", limited);
}

int main(void)
{
    test_program_name = "test_bvh_euler";
    RUN(known_answers);
    RUN(special_angles);
    RUN(random_angles);
    RUN(reader_matches);
    RUN(fast_same_floats);
    RUN(fast_pair_same_floats);
    RUN(fast_quad_same_floats);
    RUN(fast_quad_one_lane_out);
    RUN(fast_quad_signed_zeros);
    RUN(fast_sincos_bound);
    RUN(fast_bound_holds);
    RUN(fast_dq_mul_matches);
    RUN(fast_zero_angles_same_floats);
    RUN(rotations_across_frames);
    RUN(rotations_per_joint);
    return test_finish();
}
