/* BVH -> the model. Every ROOT and JOINT becomes a bone, in file order (a parent always
 * comes first); End Sites are not bones. A bone's rest pose is its OFFSET with no rotation
 * (BVH has no rest rotation: the channels hold the whole local rotation). Rotation
 * channels are Euler angles in degrees, applied in the joint's own channel order:
 * "Zrotation Xrotation Yrotation" is R = Rz Rx Ry (the product in channel order, as
 * ganim's exporter, Blender and three.js read it). Position channels replace the OFFSET
 * (Blender's reading; bvh.positions=add adds them, as three.js does). ganim's own
 * conventions read back to the exported skeleton: the synthetic `ganim_root` that holds
 * several roots is dropped, and bvh.axes turns the roots back from BVH's Y up. */
#include "core/dquat.h"
#include "formats/bvh/bvh.h"

#include <math.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The rotation's helpers always inlined (GANIM_ALWAYS_INLINE) into both of its paths (gcc stops inlining them once two
 * callers hold them). */

/* ---- the frame rate --------------------------------------------------------------------------- */

/* 1 / Frame Time, taken as a whole (or NTSC) rate when the text is that rate's frame time
 * rounded at the precision it is written with (0.041667 -> 24, 0.0333333333 -> 30). */
static void frame_rate(bvh_file *f)
{
    double t = f->frame_time, fps = 1 / t;
    if (t > 0 && isfinite(fps) && fps >= GANIM_MIN_FPS && fps <= GANIM_MAX_FPS) {
        f->fps = fps;
        if (f->frame_time_digits < 4) return;
        double k = floor(fps + 0.5);
        const double candidates[4] = { k, 24000.0 / 1001, 30000.0 / 1001, 60000.0 / 1001 };
        for (int i = 0; i < 4; i++)
            if (candidates[i] >= 1 && fabs(t - 1 / candidates[i]) <= f->frame_time_unit * 0.5000001) {
                f->fps = candidates[i];
                return;
            }
        return;
    }
    f->fps_fallback = 1;
    f->fps = f->opts->fps >= GANIM_MIN_FPS && f->opts->fps <= GANIM_MAX_FPS ? f->opts->fps : 30;
    ganim_doc_warn(f->doc, GANIM_WARN_REPAIRED, f->frame_time_at,
                   "bvh: Frame Time %g s is not a rate ganim can use (%g..%g frames per second); %g fps is used", t,
                   GANIM_MIN_FPS, GANIM_MAX_FPS, f->fps);
}

/* ---- rotations -------------------------------------------------------------------------------- */

/* The joint's rotation axes in channel order, then the axes it has no channel for. */
static void rotation_order(const bvh_joint *j, int order[3])
{
    int n = 0, have = 0;
    for (int k = 0; k < j->nch; k++)
        if (j->ch[k] >= BVH_XROT) {
            order[n++] = j->ch[k] - BVH_XROT;
            have |= 1 << (j->ch[k] - BVH_XROT);
        }
    for (int a = 0; a < 3; a++)
        if (!(have & (1 << a))) order[n++] = a;
}

/* r = a * (s on axis k, c): the Hamilton product with an axis rotation, only its
 * non-zero terms, in the order ganim_dq_mul adds them (axis k, the axis after it, the
 * one after that, w). k, k1 and k2 are constants where it is inlined. */
static inline void mul_axis(const double a[4], int k, int k1, int k2, double s, double c, double r[4])
{
    double rk = a[3] * s + a[k] * c, r1 = a[k1] * c + a[k2] * s, r2 = a[k2] * c - a[k1] * s, w = a[3] * c - a[k] * s;
    r[k] = rk, r[k1] = r1, r[k2] = r2, r[3] = w;
}

/* The short product for the axes i, j, k in that order. */
static inline void short_product(const double s[3], const double c[3], int i, int j, int k, double q[4])
{
    double a[4] = { 0, 0, 0, c[0] };
    a[i] = s[0];
    mul_axis(a, j, (j + 1) % 3, (j + 2) % 3, s[1], c[1], a);
    mul_axis(a, k, (k + 1) % 3, (k + 2) % 3, s[2], c[2], q);
}

/* Every |s[i]| and |c[i]| >= 2^-300 (none is a NaN: the angles are finite). With SSE2
 * the six in three pairs, one compare each (the same answers as the scalar tests). */
static inline int all_large(const double s[3], const double c[3])
{
#if defined(__SSE2__)
    const __m128d abs = _mm_castsi128_pd(_mm_set1_epi64x(0x7FFFFFFFFFFFFFFF)), tiny = _mm_set1_pd(0x1p-300);
    __m128d a = _mm_and_pd(_mm_loadu_pd(s), abs), b = _mm_and_pd(_mm_loadu_pd(c), abs);
    __m128d e = _mm_and_pd(_mm_set_pd(c[2], s[2]), abs);
    __m128d ok = _mm_and_pd(_mm_and_pd(_mm_cmpge_pd(a, tiny), _mm_cmpge_pd(b, tiny)), _mm_cmpge_pd(e, tiny));
    return _mm_movemask_pd(ok) == 3;
#else
    const double tiny = 0x1p-300;
    return fabs(s[0]) >= tiny && fabs(s[1]) >= tiny && fabs(s[2]) >= tiny && fabs(c[0]) >= tiny && fabs(c[1]) >= tiny &&
           fabs(c[2]) >= tiny;
#endif
}

/* R = R(order[0]) R(order[1]) R(order[2]) from the sines and cosines of the half angles
 * in that order (s[0], c[0] about axis order[0], ...). The product of three axis
 * rotations by ganim_dq_mul from the identity (the reference, kept below) adds many terms
 * that are zeros; without them the result has the same bits whenever no product of sines
 * and cosines is zero: each term left is then the same product, a zero term added to a
 * non-zero sum changes nothing, and a sum that cancels exactly is +0 either way, which
 * adding a zero of either sign keeps. Sines and cosines of at least 2^-300 make every
 * product of three non-zero; others (a zero angle) take the reference.
 * tests/formats/bvh/test_bvh_euler.c compares the two. */
static GANIM_ALWAYS_INLINE void euler_from_sc(const double s[3], const double c[3], const int order[3], int code,
                                              double q[4])
{
    if (all_large(s, c)) {
        switch (code) { /* order[0] * 3 + order[1]: the six orders */
        case 1: short_product(s, c, 0, 1, 2, q); return;
        case 2: short_product(s, c, 0, 2, 1, q); return;
        case 3: short_product(s, c, 1, 0, 2, q); return;
        case 5: short_product(s, c, 1, 2, 0, q); return;
        case 6: short_product(s, c, 2, 0, 1, q); return;
        default: short_product(s, c, 2, 1, 0, q); return;
        }
    }
    q[0] = q[1] = q[2] = 0;
    q[3] = 1;
    for (int i = 0; i < 3; i++) {
        double e[4] = { 0, 0, 0, c[i] };
        e[order[i]] = s[i];
        ganim_dq_mul(q, e, q);
    }
}

/* The sine and cosine of half an angle in degrees, in radians (libm's, as every
 * rotation of the reader has them). */
static inline void half_sincos(double deg, double *s, double *c)
{
    double h = deg * (3.14159265358979323846 / 360.0);
    *s = sin(h);
    *c = cos(h);
}

void bvh_euler_to_quat(const double deg[3], const int order[3], double q[4])
{
    double s[3], c[3];
    for (int i = 0; i < 3; i++) half_sincos(deg[order[i]], &s[i], &c[i]);
    euler_from_sc(s, c, order, order[0] * 3 + order[1], q);
}

/* The rotation's doubles before the cast to float: the Euler product, the roots' turn
 * (undo, or NULL), divided by its length. */
static GANIM_ALWAYS_INLINE void rotation_doubles(const double s[3], const double c[3], const int order[3], int code,
                                                 const double *undo, double o[4])
{
    double r[4];
    euler_from_sc(s, c, order, code, r);
    if (undo) ganim_dq_mul(undo, r, r);
    double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int a = 0; a < 4; a++) o[a] = r[a] / len;
}

/* libm's half-angle sines and cosines of three angles in degrees; an angle of +-0 has sine
 * +-0 and cosine 1 (libm's answer, C11 F.10.1.5-6) without the call. */
static void libm_half_sincos3(const double deg[3], double s[3], double c[3])
{
    for (int i = 0; i < 3; i++) {
        if (deg[i] == 0) {
            s[i] = deg[i];
            c[i] = 1;
        } else {
            half_sincos(deg[i], &s[i], &c[i]);
        }
    }
}

/* The reader's rotation from libm's sines and cosines (the reference): deg in `order`
 * (deg[i] about axis order[i]). */
static void rotation_libm(const double deg[3], const int order[3], int code, const double *undo, float q[4])
{
    double s[3], c[3], o[4];
    libm_half_sincos3(deg, s, c);
    rotation_doubles(s, c, order, code, undo, o);
    for (int a = 0; a < 4; a++) q[a] = (float)o[a];
}

/* ---- the same floats, faster ------------------------------------------------------------------ */

/* The fast path: AVX2 and FMA, chosen at run time (gcc or clang on x86), with glibc's sine
 * and cosine, whose 1-ulp bound its proof takes (MinGW's are not within it: cos(pi/2) and
 * sines near a turn differ by far more, so on Windows the fast path's floats would not be
 * the C library's path's); elsewhere, and on a processor without them, every rotation is
 * rotation_libm's. */
#if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && defined(__GLIBC__)
#define BVH_HAVE_AVX2 1
#include <immintrin.h>
#else
#define BVH_HAVE_AVX2 0
#endif

#if BVH_HAVE_AVX2
/* The fast sine and cosine of half an angle (h = deg x (pi / 360), the same double libm
 * is given), the three angles of a joint in the lanes of one vector, each within a
 * relative 2^-48 (32 u, u = 2^-53) of sin(h) and cos(h), or 0 where that is not shown for
 * one of them (then libm is asked for all three):
 *
 * - h is 0 (deg is +-0: sine deg, cosine 1, exact), or 2^-290 <= |h| < 2^10 (not a NaN or
 *   an infinity). n = h x 2/pi rounded to an integer (|n| <= 652); r = h - n pi/2 in three
 *   parts (Cody and Waite): P1 and P2 have 34 bits, so n P1 and n P2 are exact and h - n P1
 *   is exact (Sterbenz); |r - (h - n pi/2)| <= 2u|r| + 3u n|P3| + n|pi/2 - P1 - P2 - P3|
 *   <= 2u|r| + 2^-111. With n != 0, |r| >= 2^-56 is required (a double within 2^-56 of a
 *   multiple of pi/2 goes to libm): the error of r is then <= 2.01u|r| (n = 0: r = h exactly).
 *   |r| <= pi/4 (1 + 2^-40) < 0.7854.
 * - sin r = r + r z Ps(z), cos r = 1 + z Pc(z), z = r^2, Ps and Pc Taylor's coefficients to
 *   r^17 and r^16 rounded to double, by Estrin's scheme: truncation < 2^-62 (sine) and
 *   < 2^-58 (cosine) relative, the coefficients' rounding < 0.02u; the evaluation's rounding
 *   (at most 6 operations on a term's path, counted as gamma_16 on sum |c_k| z^k,
 *   z <= 0.617) <= 17u relative on Ps and 18u on Pc, so sin r within 3.5u,
 *   cos r within 9.2u; the error of r adds 4.5u to the sine and 3.2u to the cosine:
 *   <= 8u and <= 12.5u, against the 32u claimed. A fused multiply-add rounds once where
 *   these bounds count two. The quarter turns (n mod 4) only swap and negate.
 * tests/formats/bvh/test_bvh_euler.c measures the relative distance to libm on millions of
 * angles (2u at most: well under the bound) and fails on a wrong coefficient. */
#define BVH_P1 0x1.921fb54480000p+0
#define BVH_P2 (-0x1.e973dcb380000p-35)
#define BVH_P3 (-0x1.9cceba3f91f19p-70)
static const double sin_coef[8] = { 0x1.952c77030ad4ap-49,  -0x1.ae7f3e733b81fp-41, 0x1.6124613a86d09p-33,
                                    -0x1.ae64567f544e4p-26, 0x1.71de3a556c734p-19,  -0x1.a01a01a01a01ap-13,
                                    0x1.1111111111111p-7,   -0x1.5555555555555p-3 };
static const double cos_coef[8] = { 0x1.ae7f3e733b81fp-45,  -0x1.93974a8c07c9dp-37, 0x1.1eed8eff8d898p-29,
                                    -0x1.27e4fb7789f5cp-22, 0x1.a01a01a01a01ap-16,  -0x1.6c16c16c16c17p-10,
                                    0x1.5555555555555p-5,   -0x1.0000000000000p-1 };

/* cf[7] + cf[6] z + ... + cf[0] z^7 by Estrin's scheme (a shorter chain than Horner's: z^2
 * and z^4 alongside). */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256d estrin8(const double cf[8], __m256d z,
                                                                                 __m256d z2, __m256d z4)
{
    __m256d a0 = _mm256_fmadd_pd(_mm256_set1_pd(cf[6]), z, _mm256_set1_pd(cf[7]));
    __m256d a1 = _mm256_fmadd_pd(_mm256_set1_pd(cf[4]), z, _mm256_set1_pd(cf[5]));
    __m256d a2 = _mm256_fmadd_pd(_mm256_set1_pd(cf[2]), z, _mm256_set1_pd(cf[3]));
    __m256d a3 = _mm256_fmadd_pd(_mm256_set1_pd(cf[0]), z, _mm256_set1_pd(cf[1]));
    return _mm256_fmadd_pd(_mm256_fmadd_pd(a3, z2, a2), z4, _mm256_fmadd_pd(a1, z2, a0));
}

/* The fast sines and cosines of the half angles of the four lanes' angles d in degrees (lanes
 * out of the domain hold anything); returns the lanes (bits) shown in the domain. */
__attribute__((target("avx2,fma"), always_inline)) static inline int sincos_vec(__m256d d, __m256d *so, __m256d *co)
{
    const __m256d magic = _mm256_set1_pd(0x1.8p52), zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1);
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
    __m256d h = _mm256_mul_pd(d, _mm256_set1_pd(3.14159265358979323846 / 360.0)), a = _mm256_and_pd(h, abs_mask);
    __m256d in = _mm256_and_pd(_mm256_cmp_pd(a, _mm256_set1_pd(0x1p-290), _CMP_GE_OQ),
                               _mm256_cmp_pd(a, _mm256_set1_pd(0x1p10), _CMP_LT_OQ));
    __m256d is0 = _mm256_cmp_pd(d, zero, _CMP_EQ_OQ);
    __m256d t = _mm256_fmadd_pd(h, _mm256_set1_pd(0x1.45f306dc9c883p-1), magic), n = _mm256_sub_pd(t, magic);
    __m256d r = _mm256_fnmadd_pd(n, _mm256_set1_pd(BVH_P1), h);
    r = _mm256_fnmadd_pd(n, _mm256_set1_pd(BVH_P2), r);
    r = _mm256_fnmadd_pd(n, _mm256_set1_pd(BVH_P3), r);
    __m256d far = _mm256_or_pd(_mm256_cmp_pd(n, zero, _CMP_EQ_OQ),
                               _mm256_cmp_pd(_mm256_and_pd(r, abs_mask), _mm256_set1_pd(0x1p-56), _CMP_GE_OQ));
    int ok = _mm256_movemask_pd(_mm256_or_pd(_mm256_and_pd(in, far), is0));
    __m256d z = _mm256_mul_pd(r, r), z2 = _mm256_mul_pd(z, z), z4 = _mm256_mul_pd(z2, z2), ps, pc;
    ps = estrin8(sin_coef, z, z2, z4);
    pc = estrin8(cos_coef, z, z2, z4);
    __m256d sr = _mm256_fmadd_pd(_mm256_mul_pd(r, z), ps, r), cr = _mm256_fmadd_pd(z, pc, one);
    __m256i ti = _mm256_castpd_si256(t), low = _mm256_set1_epi64x(1);
    __m256i sign = _mm256_set1_epi64x((long long)0x8000000000000000ull);
    __m256d swap = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(ti, low), low));
    __m256d neg_s = _mm256_castsi256_pd(_mm256_and_si256(_mm256_slli_epi64(ti, 62), sign));
    __m256d neg_c = _mm256_castsi256_pd(_mm256_and_si256(_mm256_slli_epi64(_mm256_add_epi64(ti, low), 62), sign));
    __m256d s0 = _mm256_xor_pd(_mm256_blendv_pd(sr, cr, swap), neg_s);
    __m256d c0 = _mm256_xor_pd(_mm256_blendv_pd(cr, sr, swap), neg_c);
    *so = _mm256_blendv_pd(s0, d, is0);
    *co = _mm256_blendv_pd(c0, one, is0);
    return ok;
}

/* The sines and cosines into s and c whatever the angles (lanes out of the domain hold
 * anything); returns 1 where every lane is shown, else 0. No branch: the rotations of a
 * pair (rotation_fast2) compute theirs side by side. */
__attribute__((target("avx2,fma"), always_inline)) static inline int fast_half_sincos3(const double deg[3], double s[4],
                                                                                       double c[4])
{
    __m256d sv, cv;
    int ok = sincos_vec(_mm256_set_pd(deg[2], deg[2], deg[1], deg[0]), &sv, &cv) == 15;
    _mm256_storeu_pd(s, sv);
    _mm256_storeu_pd(c, cv);
    return ok;
}

/* The rotation's floats from the fast sines and cosines, when they are provably the floats
 * of rotation_libm; else 0.
 *
 * The bound. Each fast sine or cosine x_F and libm's x_L (within 1 ulp of the true value,
 * glibc's documented bound: relative 2^-52) are within rho = 34.01u of each other,
 * relatively, and share their sign; an angle's exact +-0 and 1 are the same in both. Both
 * paths take the same formula (euler_from_sc's test of 2^-300: every value is either an
 * exact 0 or 1 of a zero angle, or >= 2^-291), whose rounding gives each component
 * sum_j sigma_j m_j (1 + theta_j), m_j the products of three of the inputs (times a
 * component of undo), |theta_j| <= gamma_16 (at most 16 operations on a product's path:
 * three ganim_dq_mul and undo's). So the components r_F and r_L before the length differ by
 * at most D = K M, M = sum_j |m_j| (the product of the absolute values with every sign +:
 * Z2 x Z2's group algebra, exact sum |m_j| since each triple of components reaches one
 * component once), K = ((1 + rho)^3 (1 + gamma_16) - 1 + gamma_16) / ((1 - rho)^3 (1 -
 * gamma_16)) <= 135u (M computed from the fast values, over-bounding libm's by (1 + rho)^3
 * (1 + gamma_16)). Divided by their lengths (each within 3.01u of the exact norm, the norm
 * within 2^-44 of 1) and rounded (u): |o_F - o_L| <= (D_a + |o_a| (sum_b D_b + 9u)) (1 +
 * 2^-40), and sum_b M_b = prod (|s_i| + |c_i|) x sum |undo| <= 2^1.5 x 2 (1 + 2^-44) < 6: so
 * E_a = 2^-45 M_a + 2^-42 |o_a| (256u and 2048u against 135u and 6 x 135u + 9u: the
 * rounding of E and of o -+ E is covered). If the floats of o - E and o + E are the same,
 * bits and sign, and the interval does not hold 0, o_L rounds to that float too. E = 0
 * (M_a = 0: every product has an exact zero of a zero angle) means the same zero in both
 * paths: each product's sign is that of its factors, which the paths share, as long as no
 * intermediate sum cancels (true of three axis turns in a row, not after undo's product:
 * a root's exact zero takes libm's path). */
/* For each order code (order[0] x 3 + order[1]) the 32-bit lanes that move a vector by
 * position (order[0], order[1], order[2], w) to one by axis (x, y, z, w). */
#define BVH_PERM(x, y, z)                                                      \
    {                                                                          \
        2 * (x), 2 * (x) + 1, 2 * (y), 2 * (y) + 1, 2 * (z), 2 * (z) + 1, 6, 7 \
    }
static const int32_t axis_perm[9][8] = {
    BVH_PERM(0, 1, 2), /* code 0: not an order */
    BVH_PERM(0, 1, 2), /* x y z */
    BVH_PERM(0, 2, 1), /* x z y */
    BVH_PERM(1, 0, 2), /* y x z */
    BVH_PERM(0, 1, 2), /* code 4: not an order */
    BVH_PERM(2, 0, 1), /* y z x */
    BVH_PERM(1, 2, 0), /* z x y */
    BVH_PERM(2, 1, 0), /* z y x */
    BVH_PERM(0, 1, 2), /* code 8: not an order */
};

/* ganim_dq_mul(a, b) in one vector (lanes x y z w): each lane adds the same products in the
 * same order, a[3] b first, then a[0], a[1] and a[2] times b's lanes moved and signed as
 * ganim_dq_mul takes them (x * -y is -(x * y) and r + -t is r - t, bit for bit), by separate
 * multiplies and adds (no fused multiply-add): the same bits as ganim_dq_mul, signed zeros
 * included. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256d dq_mul_vec(__m256d a, __m256d b)
{
    const double n = -0.0;
    __m256d p1 = _mm256_xor_pd(_mm256_permute4x64_pd(b, _MM_SHUFFLE(0, 1, 2, 3)), _mm256_set_pd(n, 0, n, 0));
    __m256d p2 = _mm256_xor_pd(_mm256_permute4x64_pd(b, _MM_SHUFFLE(1, 0, 3, 2)), _mm256_set_pd(n, n, 0, 0));
    __m256d p3 = _mm256_xor_pd(_mm256_permute_pd(b, 0x5), _mm256_set_pd(n, 0, 0, n));
    __m256d r = _mm256_mul_pd(_mm256_permute4x64_pd(a, _MM_SHUFFLE(3, 3, 3, 3)), b);
    r = _mm256_add_pd(r, _mm256_mul_pd(_mm256_permute4x64_pd(a, _MM_SHUFFLE(0, 0, 0, 0)), p1));
    r = _mm256_add_pd(r, _mm256_mul_pd(_mm256_permute4x64_pd(a, _MM_SHUFFLE(1, 1, 1, 1)), p2));
    return _mm256_add_pd(r, _mm256_mul_pd(_mm256_permute4x64_pd(a, _MM_SHUFFLE(2, 2, 2, 2)), p3));
}

/* Lane k set: the axis rotation's sine goes there (axis_lane[order[i]]). */
static const int64_t axis_lane[3][4] = { { -1, 0, 0, 0 }, { 0, -1, 0, 0 }, { 0, 0, -1, 0 } };

/* euler_from_sc's reference (three ganim_dq_mul from the identity, for angles with a sine
 * or cosine under 2^-300: a zero angle) and the roots' turn, by dq_mul_vec: the same bits,
 * in about a third of the instructions. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
euler_reference_vec(const double s[3], const double c[3], const int order[3], const double *undo, double r[4])
{
    __m256d q = _mm256_set_pd(1, 0, 0, 0);
    for (int i = 0; i < 3; i++) {
        __m256d e = _mm256_blendv_pd(_mm256_set_pd(c[i], 0, 0, 0), _mm256_set1_pd(s[i]),
                                     _mm256_castsi256_pd(_mm256_loadu_si256((const __m256i *)axis_lane[order[i]])));
        q = dq_mul_vec(q, e);
    }
    if (undo) q = dq_mul_vec(_mm256_loadu_pd(undo), q);
    _mm256_storeu_pd(r, q);
}

/* The rotation before its length, from the fast sines and cosines s and c (fast_half_sincos3's):
 * r, rotation_doubles's arithmetic up to the length's square (returned), and M by axis. The
 * vectors are made from scalar loads (a vector load of what scalar stores just wrote waits
 * for them: store forwarding fails). */
__attribute__((target("avx2,fma"), always_inline)) static inline double
rotation_products(const double s[4], const double c[4], const int order[3], int code, const double *undo, double r[4],
                  __m256d *m_out)
{
    double m[4];
    if (all_large(s, c)) {
        euler_from_sc(s, c, order, code, r); /* its short product */
        if (undo) ganim_dq_mul(undo, r, r);
    } else {
        euler_reference_vec(s, c, order, undo, r);
    }
    double s0 = fabs(s[0]), s1 = fabs(s[1]), s2 = fabs(s[2]), c0 = fabs(c[0]), c1 = fabs(c[1]), c2 = fabs(c[2]);
    double cc = c1 * c2, ss = s1 * s2, sc = s1 * c2, cs = c1 * s2;
    /* M by position (about order[0], order[1], order[2], w), then by axis: one permutation
     * from the order's table (stores by the order's indices and a vector load of them would
     * wait: store forwarding fails) */
    __m256d mp = _mm256_set_pd(c0 * cc + s0 * ss, c0 * cs + s0 * sc, c0 * sc + s0 * cs, s0 * cc + c0 * ss);
    __m256d mv = _mm256_castsi256_pd(
        _mm256_permutevar8x32_epi32(_mm256_castpd_si256(mp), _mm256_loadu_si256((const __m256i *)axis_perm[code])));
    if (undo) {
        _mm256_storeu_pd(m, mv);
        double ux = fabs(undo[0]), uy = fabs(undo[1]), uz = fabs(undo[2]), uw = fabs(undo[3]);
        double mx = m[0], my = m[1], mz = m[2], mw = m[3];
        m[0] = uw * mx + ux * mw + uy * mz + uz * my;
        m[1] = uw * my + uy * mw + ux * mz + uz * mx;
        m[2] = uw * mz + uz * mw + ux * my + uy * mx;
        m[3] = uw * mw + ux * mx + uy * my + uz * mz;
        mv = _mm256_loadu_pd(m);
    }
    *m_out = mv;
    return r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3];
}

/* o = r / len (rotation_doubles's division) and its bound E from M (m). */
__attribute__((target("avx2,fma"), always_inline)) static inline void rotation_o_e(const double r[4], double len,
                                                                                   __m256d m, __m256d *o, __m256d *e)
{
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
    *o = _mm256_div_pd(_mm256_set_pd(r[3], r[2], r[1], r[0]), _mm256_set1_pd(len));
    *e = _mm256_fmadd_pd(m, _mm256_set1_pd(0x1p-45),
                         _mm256_mul_pd(_mm256_and_pd(*o, abs_mask), _mm256_set1_pd(0x1p-42)));
}

/* The floats of o when o - E and o + E give the same and hold no 0 (the bound's test above);
 * returns 0 (q untouched) when they do not. */
__attribute__((target("avx2,fma"), always_inline)) static inline int rotation_check(__m256d o, __m256d e,
                                                                                    const double *undo, float q[4])
{
    const __m256d sign = _mm256_castsi256_pd(_mm256_set1_epi64x((long long)0x8000000000000000ull)),
                  zero = _mm256_setzero_pd();
    __m256d lo = _mm256_sub_pd(o, e), hi = _mm256_xor_pd(_mm256_sub_pd(_mm256_xor_pd(o, sign), e), sign);
    __m128 fl = _mm256_cvtpd_ps(lo), fh = _mm256_cvtpd_ps(hi);
    __m256d exact = undo ? zero : _mm256_cmp_pd(e, zero, _CMP_EQ_OQ);
    __m256d apart =
        _mm256_or_pd(_mm256_or_pd(_mm256_cmp_pd(lo, zero, _CMP_GT_OQ), _mm256_cmp_pd(hi, zero, _CMP_LT_OQ)), exact);
    if (_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_castps_si128(fl), _mm_castps_si128(fh)))) != 15 ||
        _mm256_movemask_pd(apart) != 15)
        return 0;
    _mm_storeu_ps(q, fl);
    return 1;
}

__attribute__((target("avx2,fma"), always_inline)) static inline int
rotation_bound(const double deg[3], const int order[3], int code, const double *undo, __m256d *o, __m256d *e)
{
    double s[4], c[4], r[4];
    __m256d m;
    if (!fast_half_sincos3(deg, s, c)) return 0;
    double len = sqrt(rotation_products(s, c, order, code, undo, r, &m));
    rotation_o_e(r, len, m, o, e);
    return 1;
}

__attribute__((target("avx2,fma"))) static int rotation_fast(const double deg[3], const int order[3], int code,
                                                             const double *undo, float q[4])
{
    __m256d o, e;
    return rotation_bound(deg, order, code, undo, &o, &e) && rotation_check(o, e, undo, q);
}

/* Two rotations side by side (rotation_fast's for each: the same floats): the sines and
 * cosines of both, both products, both square roots in one vector, so that the two long
 * chains of latency overlap. Returns bit 0 for a's floats written, bit 1 for b's. */
__attribute__((target("avx2,fma"))) static int rotation_fast2(const bvh_rot *a, const bvh_rot *b)
{
    double sa[4], ca[4], sb[4], cb[4], ra[4], rb[4];
    int ok_a = fast_half_sincos3(a->deg, sa, ca), ok_b = fast_half_sincos3(b->deg, sb, cb);
    if (!(ok_a & ok_b)) /* rare: each alone */
        return rotation_fast(a->deg, a->order, a->code, a->undo, a->q) |
               rotation_fast(b->deg, b->order, b->code, b->undo, b->q) << 1;
    __m256d ma, mb, oa, ea, ob, eb;
    double na = rotation_products(sa, ca, a->order, a->code, a->undo, ra, &ma);
    double nb = rotation_products(sb, cb, b->order, b->code, b->undo, rb, &mb);
    __m128d len = _mm_sqrt_pd(_mm_set_pd(nb, na)); /* correctly rounded: sqrt's doubles */
    rotation_o_e(ra, _mm_cvtsd_f64(len), ma, &oa, &ea);
    rotation_o_e(rb, _mm_cvtsd_f64(_mm_unpackhi_pd(len, len)), mb, &ob, &eb);
    return rotation_check(oa, ea, a->undo, a->q) | rotation_check(ob, eb, b->undo, b->q) << 1;
}

/* ---- four rotations of one order, a vector lane each (a structure of arrays) ---- */

/* rotation_fast4soa's product and M for the order o0 o1 o2 (constants where it is inlined):
 * euler_from_sc's reference product (three ganim_dq_mul from the identity, every term in
 * ganim_dq_mul's order, no fused multiply-add; the short product's bits too, see
 * euler_from_sc) and the bound's M by axis. The first product, the identity times the
 * first axis rotation, is that rotation with its sine + (+0): each of ganim_dq_mul's sums
 * holds at most one non-zero term, which a sum with zeros keeps exact, and a -0 sine's
 * sum is +0 (test_bvh_euler's quads hold zeros of both signs in every lane). */
__attribute__((target("avx2,fma"), always_inline)) static inline void
quad_product(const __m256d s[3], const __m256d c[3], int o0, int o1, int o2, __m256d q[4], __m256d m[4])
{
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
    const int od[3] = { o0, o1, o2 };
    __m256d z0 = _mm256_setzero_pd();
    q[0] = q[1] = q[2] = z0;
    q[o0] = _mm256_add_pd(s[0], z0);
    q[3] = c[0];
    for (int i = 1; i < 3; i++) {
        __m256d e[4] = { z0, z0, z0, c[i] };
        e[od[i]] = s[i];
        __m256d x = _mm256_sub_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(q[3], e[0]), _mm256_mul_pd(q[0], e[3])),
                                                _mm256_mul_pd(q[1], e[2])),
                                  _mm256_mul_pd(q[2], e[1]));
        __m256d y = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(_mm256_mul_pd(q[3], e[1]), _mm256_mul_pd(q[0], e[2])),
                                                _mm256_mul_pd(q[1], e[3])),
                                  _mm256_mul_pd(q[2], e[0]));
        __m256d zz = _mm256_add_pd(_mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(q[3], e[2]), _mm256_mul_pd(q[0], e[1])),
                                                 _mm256_mul_pd(q[1], e[0])),
                                   _mm256_mul_pd(q[2], e[3]));
        __m256d w = _mm256_sub_pd(_mm256_sub_pd(_mm256_sub_pd(_mm256_mul_pd(q[3], e[3]), _mm256_mul_pd(q[0], e[0])),
                                                _mm256_mul_pd(q[1], e[1])),
                                  _mm256_mul_pd(q[2], e[2]));
        q[0] = x, q[1] = y, q[2] = zz, q[3] = w;
    }
    __m256d s0 = _mm256_and_pd(s[0], abs_mask), s1 = _mm256_and_pd(s[1], abs_mask), s2 = _mm256_and_pd(s[2], abs_mask);
    __m256d c0 = _mm256_and_pd(c[0], abs_mask), c1 = _mm256_and_pd(c[1], abs_mask), c2 = _mm256_and_pd(c[2], abs_mask);
    __m256d cc = _mm256_mul_pd(c1, c2), ss = _mm256_mul_pd(s1, s2), sc = _mm256_mul_pd(s1, c2),
            cs = _mm256_mul_pd(c1, s2);
    /* M by axis. Each component is A - B or A + B of two products whose product A B is the
     * same for all four, P = |s0 c0 s1 c1 s2 c2|, so every M_k = A_k + B_k >= 2 sqrt(P). A
     * component that cancels (|A - B| <= (A + B) / 2) has M_k <= 2 sqrt(P) / sqrt(3/4): any
     * other M_j is >= 0.866 M_k, and 0.866 x 2^-45 = 222u still covers the 135u M_k needed;
     * one that does not has |o| > M_k / 2, and 2^-42 |o| = 2048u |o| covers |o|'s own 819u
     * and 1229u |o| > 614u M_k. So M's components in any order still bound the error (the
     * rounding of M within the proof's slack): no float can show two of them swapped. */
    m[o0] = _mm256_add_pd(_mm256_mul_pd(s0, cc), _mm256_mul_pd(c0, ss));
    m[o1] = _mm256_add_pd(_mm256_mul_pd(c0, sc), _mm256_mul_pd(s0, cs));
    m[o2] = _mm256_add_pd(_mm256_mul_pd(c0, cs), _mm256_mul_pd(s0, sc));
    m[3] = _mm256_add_pd(_mm256_mul_pd(c0, cc), _mm256_mul_pd(s0, ss));
}

/* Four rotations of one order and no roots' turn (p[k].code the same, undo NULL), one a
 * lane: the sines and cosines of the 12 angles in 3 vectors, euler_from_sc's reference
 * product (three ganim_dq_mul from the identity, every term in ganim_dq_mul's order, no
 * fused multiply-add: the short product's bits too, see euler_from_sc), the length, the
 * division and rotation_check's bound by lane. Returns the lanes (bits) whose floats were
 * written; the others are left to the caller. */
__attribute__((target("avx2,fma"))) static int rotation_fast4soa(const bvh_rot p[4])
{
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
    const __m256d sign = _mm256_castsi256_pd(_mm256_set1_epi64x((long long)0x8000000000000000ull));
    const __m256d zero = _mm256_setzero_pd();
    __m256d s[3], c[3], q[4], m[4];
    int ok = 15;
    for (int i = 0; i < 3; i++) {
        __m256d d = _mm256_set_pd(p[3].deg[i], p[2].deg[i], p[1].deg[i], p[0].deg[i]);
        ok &= sincos_vec(d, &s[i], &c[i]);
    }
    if (!ok) return 0;
    switch (p[0].code) { /* the order's indices as constants: q and m stay in registers */
    case 1: quad_product(s, c, 0, 1, 2, q, m); break;
    case 2: quad_product(s, c, 0, 2, 1, q, m); break;
    case 3: quad_product(s, c, 1, 0, 2, q, m); break;
    case 5: quad_product(s, c, 1, 2, 0, q, m); break;
    case 6: quad_product(s, c, 2, 0, 1, q, m); break;
    default: quad_product(s, c, 2, 1, 0, q, m); break;
    }
    __m256d n2 = _mm256_mul_pd(q[0], q[0]);
    n2 = _mm256_add_pd(n2, _mm256_mul_pd(q[1], q[1]));
    n2 = _mm256_add_pd(n2, _mm256_mul_pd(q[2], q[2]));
    n2 = _mm256_add_pd(n2, _mm256_mul_pd(q[3], q[3]));
    __m256d len = _mm256_sqrt_pd(n2);
    __m128 fl[4];
    __m128i same = _mm_set1_epi32(-1);
    __m256d apart = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    for (int a = 0; a < 4; a++) {
        __m256d o = _mm256_div_pd(q[a], len);
        __m256d e = _mm256_fmadd_pd(m[a], _mm256_set1_pd(0x1p-45),
                                    _mm256_mul_pd(_mm256_and_pd(o, abs_mask), _mm256_set1_pd(0x1p-42)));
        __m256d lo = _mm256_sub_pd(o, e), hi = _mm256_xor_pd(_mm256_sub_pd(_mm256_xor_pd(o, sign), e), sign);
        fl[a] = _mm256_cvtpd_ps(lo);
        __m128 fh = _mm256_cvtpd_ps(hi);
        same = _mm_and_si128(same, _mm_cmpeq_epi32(_mm_castps_si128(fl[a]), _mm_castps_si128(fh)));
        apart = _mm256_and_pd(
            apart, _mm256_or_pd(_mm256_or_pd(_mm256_cmp_pd(lo, zero, _CMP_GT_OQ), _mm256_cmp_pd(hi, zero, _CMP_LT_OQ)),
                                _mm256_cmp_pd(e, zero, _CMP_EQ_OQ)));
    }
    ok &= _mm_movemask_ps(_mm_castsi128_ps(same)) & _mm256_movemask_pd(apart);
    _MM_TRANSPOSE4_PS(fl[0], fl[1], fl[2], fl[3]);
    for (int k = 0; k < 4; k++)
        if (ok >> k & 1) _mm_storeu_ps(p[k].q, fl[k]);
    return ok;
}

__attribute__((target("avx2,fma"))) static int rotation_bound_out(const double deg[3], const int order[3],
                                                                  const double *undo, double o[4], double e[4])
{
    __m256d ov, ev;
    if (!rotation_bound(deg, order, order[0] * 3 + order[1], undo, &ov, &ev)) return 0;
    _mm256_storeu_pd(o, ov);
    _mm256_storeu_pd(e, ev);
    return 1;
}

__attribute__((target("avx2,fma"))) static int fast_half_sincos_out(const double deg[3], double s[4], double c[4])
{
    return fast_half_sincos3(deg, s, c);
}

__attribute__((target("avx2,fma"))) static void dq_mul_out(const double a[4], const double b[4], double r[4])
{
    _mm256_storeu_pd(r, dq_mul_vec(_mm256_loadu_pd(a), _mm256_loadu_pd(b)));
}

static int cpu_has_fast(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#endif

/* The reader's rotation: the fast path where it is shown to give rotation_libm's floats,
 * else rotation_libm. deg in `order`; fast: the processor has the fast path. Returns 1
 * for the fast path. */
static inline int rotation_floats(const double deg[3], const int order[3], int code, const double *undo, int fast,
                                  float q[4])
{
#if BVH_HAVE_AVX2
    if (fast && rotation_fast(deg, order, code, undo, q)) return 1;
#else
    (void)fast;
#endif
    rotation_libm(deg, order, code, undo, q);
    return 0;
}

static int libm_only;   /* for the tests (bvh_set_libm_only): every read takes libm's path */
static int frame_local; /* for the tests (bvh_set_frame_local): no rotation waits for the next frame */

void bvh_set_libm_only(int on) { libm_only = on; }
void bvh_set_frame_local(int on) { frame_local = on; }

int bvh_has_fast_rotation(void)
{
#if BVH_HAVE_AVX2
    return cpu_has_fast();
#else
    return 0;
#endif
}

int bvh_rotation(const double deg[3], const int order[3], const double *undo, float q[4], int path)
{
    double d[3] = { deg[order[0]], deg[order[1]], deg[order[2]] };
    return rotation_floats(d, order, order[0] * 3 + order[1], undo, path == 0 && bvh_has_fast_rotation(), q);
}

int bvh_rotation_pair(const double deg_a[3], const int order_a[3], const double *undo_a, float qa[4],
                      const double deg_b[3], const int order_b[3], const double *undo_b, float qb[4])
{
    const double *deg[2] = { deg_a, deg_b }, *undo[2] = { undo_a, undo_b };
    const int *order[2] = { order_a, order_b };
    float *q[2] = { qa, qb };
    int done = 0;
#if BVH_HAVE_AVX2
    if (cpu_has_fast()) {
        bvh_rot p[2];
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < 3; i++) p[k].deg[i] = deg[k][order[k][i]];
            p[k].order = order[k], p[k].code = order[k][0] * 3 + order[k][1], p[k].undo = undo[k], p[k].q = q[k];
        }
        done = rotation_fast2(&p[0], &p[1]);
    }
#endif
    for (int k = 0; k < 2; k++)
        if (!(done >> k & 1)) bvh_rotation(deg[k], order[k], undo[k], q[k], 1);
    return done;
}

int bvh_rotation_quad(const double deg[4][3], const int order[3], float q[4][4])
{
    int done = 0;
#if BVH_HAVE_AVX2
    if (cpu_has_fast()) {
        bvh_rot p[4];
        for (int k = 0; k < 4; k++) {
            for (int i = 0; i < 3; i++) p[k].deg[i] = deg[k][order[i]];
            p[k].order = order, p[k].code = order[0] * 3 + order[1], p[k].undo = NULL, p[k].q = q[k];
        }
        done = rotation_fast4soa(p);
    }
#endif
    for (int k = 0; k < 4; k++)
        if (!(done >> k & 1)) bvh_rotation(deg[k], order, NULL, q[k], 1);
    return done;
}

int bvh_rotation_bound(const double deg[3], const int order[3], const double *undo, double fast[4], double e[4],
                       double ref[4])
{
    double d[3] = { deg[order[0]], deg[order[1]], deg[order[2]] }, s[3], c[3];
    libm_half_sincos3(d, s, c);
    rotation_doubles(s, c, order, order[0] * 3 + order[1], undo, ref);
#if BVH_HAVE_AVX2
    return cpu_has_fast() && rotation_bound_out(d, order, undo, fast, e);
#else
    (void)fast, (void)e;
    return 0;
#endif
}

int bvh_fast_half_sincos(const double deg[3], double s[3], double c[3])
{
#if BVH_HAVE_AVX2
    double s4[4], c4[4];
    if (!cpu_has_fast() || !fast_half_sincos_out(deg, s4, c4)) return 0;
    memcpy(s, s4, 3 * sizeof *s);
    memcpy(c, c4, 3 * sizeof *c);
    return 1;
#else
    (void)deg, (void)s, (void)c;
    return 0;
#endif
}

int bvh_fast_dq_mul(const double a[4], const double b[4], double r[4])
{
#if BVH_HAVE_AVX2
    if (!cpu_has_fast()) return 0;
    dq_mul_out(a, b, r);
    return 1;
#else
    (void)a, (void)b, (void)r;
    return 0;
#endif
}

/* ---- the frames, converted as they are read ----------------------------------------------------- */

/* A channel's values so far: its first frame's, and once a frame differs (other bits),
 * one per frame in the document (frames before that one filled with the first). */
typedef struct bvh_chan {
    float first[4];
    float *frames;   /* room for f->frame_room frames, in the document; NULL until needed */
    uint8_t varying; /* `frames` holds every frame so far */
} bvh_chan;

/* A joint's channels and what its frames made so far. */
typedef struct bvh_state {
    uint8_t has_pos, has_rot;
    int8_t pos_at[3];  /* each axis's position channel in the joint's values, or -1 */
    uint32_t pos_v[3]; /* where each axis's position is in the frame (pos_at), or the frame's 0 */
    uint32_t rot_v[3]; /* where each rotation's angle is in the frame, in order, or the frame's 0 */
    int order[3], order_code;
    const double *undo; /* bvh.axes: the roots' turn, or NULL */
    double base[3];     /* added to the position channels (OFFSET or 0) */
    uint64_t angle[3];  /* the angles of the frame before, their bits (a NaN's before the first) */
    float q[4];         /* the rotation's floats when it does not wait (no fast path) */
    uint32_t wait_fr;   /* 1 + the last frame whose rotation went to f->pend (0: none) */
    bvh_chan t, r;
} bvh_state;

/* ganim's synthetic root as far as the hierarchy tells: a lone ROOT `ganim_root` at the
 * origin (the frames decide the rest: its channels stay 0). */
static int synthetic_root_shape(const bvh_file *f)
{
    const bvh_joint *r = &f->joints[0];
    if (f->joint_count < 2 || strcmp(r->name, "ganim_root") != 0 || r->offset[0] != 0 || r->offset[1] != 0 ||
        r->offset[2] != 0)
        return 0;
    for (uint32_t j = 1; j < f->joint_count; j++)
        if (f->joints[j].parent < 0) return 0;
    return 1;
}

/* bvh.axes: the model's axes before a Y-up export; roots are turned back by C^-1 */
static void set_undo(bvh_file *f)
{
    f->undo = NULL;
    if (f->axes_undone) {
        ganim_quat c = ganim_axes_to_y_up((ganim_axes)(f->axes_undone - 1));
        double *u = f->undo_q;
        u[0] = -c.x, u[1] = -c.y, u[2] = -c.z, u[3] = c.w;
        if (f->axes_undone - 1 == GANIM_AXES_Z_UP) u[0] = 0.70710678118654752440, u[3] = 0.70710678118654752440;
        if (f->axes_undone - 1 != GANIM_AXES_Y_UP) f->undo = u;
    }
}

ganim_code bvh_begin(bvh_file *f)
{
    set_undo(f);
    f->fast_rotation = bvh_has_fast_rotation() && !libm_only;
    /* read first (f->redo clear): the root is taken for the synthetic one while its
     * values are 0; bvh_frame asks for a second reading if that turns out false while
     * roots are turned (the turn goes to the root's children only if it is synthetic) */
    if (!f->redo) f->maybe_synthetic = synthetic_root_shape(f);
    f->redo = 0;
    f->npend = 0; /* a second reading: what waited is read again */
    for (int k = 0; k < 4; k++) f->pend[k].q = f->pend_q[k];
    int fresh = !f->state; /* each state is zeroed below, its arrays kept on a second reading */
    if (fresh && !(f->state = ganim_doc_alloc_array_raw(f->scratch, f->joint_count, sizeof *f->state)))
        return GANIM_NOMEM(f->err);
    for (uint32_t ji = 0; ji < f->joint_count; ji++) {
        const bvh_joint *j = &f->joints[ji];
        bvh_state *st = &f->state[ji];
        float *keep_t = fresh ? NULL : st->t.frames,
              *keep_r = fresh ? NULL : st->r.frames; /* a second reading reuses them */
        memset(st, 0, sizeof *st);
        st->t.frames = keep_t;
        st->r.frames = keep_r;
        int rot_at[3] = { -1, -1, -1 };
        for (int a = 0; a < 3; a++) st->pos_at[a] = -1;
        for (int k = 0; k < j->nch; k++) {
            if (j->ch[k] < BVH_XROT) {
                st->has_pos = 1;
                st->pos_at[j->ch[k]] = (int8_t)k;
            } else {
                st->has_rot = 1;
                rot_at[j->ch[k] - BVH_XROT] = k;
            }
        }
        rotation_order(j, st->order);
        st->order_code = st->order[0] * 3 + st->order[1];
        /* the frame's values end with a 0 (bvh_frame): a missing channel reads it */
        for (int i = 0; i < 3; i++) {
            int at = rot_at[st->order[i]];
            st->rot_v[i] = at >= 0 ? j->first + (uint32_t)at : f->channels;
            st->pos_v[i] = st->pos_at[i] >= 0 ? j->first + (uint32_t)(uint8_t)st->pos_at[i] : f->channels;
            st->angle[i] = UINT64_MAX; /* a NaN: no angle read has these bits */
        }
        for (int a = 0; a < 3; a++) st->base[a] = f->positions_add || st->pos_at[a] < 0 ? j->offset[a] : 0;
        int is_root = f->maybe_synthetic ? j->parent == 0 : j->parent < 0;
        st->undo = is_root ? f->undo : NULL;
    }
    return GANIM_OK;
}

/* One frame's `n` floats of a channel. */
static ganim_code chan_put(bvh_file *f, bvh_chan *ch, const float *val, size_t n, uint32_t fr)
{
    if (!fr) {
        memcpy(ch->first, val, n * sizeof(float));
        return GANIM_OK;
    }
    if (!ch->varying) {
        if (!memcmp(val, ch->first, n * sizeof(float))) return GANIM_OK;
        if (!ch->frames &&
            !(ch->frames = ganim_doc_alloc_array_raw(f->doc, (size_t)f->frame_room * n, sizeof(float)))) /* filled */
            return GANIM_NOMEM(f->err);
        for (uint32_t k = 0; k < fr; k++) memcpy(ch->frames + (size_t)k * n, ch->first, n * sizeof(float));
        ch->varying = 1;
    }
    memcpy(ch->frames + (size_t)fr * n, val, n * sizeof(float));
    return GANIM_OK;
}

#if BVH_HAVE_AVX2
/* How a rotation the fast paths of several at once did not write is finished: the single
 * rotation's path (rotation_fast, then libm's: a quad's lanes and the last one left), or
 * libm's at once (a pair's: rotation_fast2 has found what rotation_fast would). */
enum { ROTATION_BY_LIBM, ROTATION_BY_FLOATS };

/* One pending rotation finished: its floats, unless `done` (written by a fast path), by
 * `how`, then into its joint's channel at its frame fr. */
static GANIM_ALWAYS_INLINE ganim_code rotation_put(bvh_file *f, const bvh_rot *p, bvh_state *st, uint32_t fr, int done,
                                                   int how)
{
    if (!done) {
        if (how == ROTATION_BY_FLOATS) {
            f->libm_rotations += !rotation_floats(p->deg, p->order, p->code, p->undo, 1, p->q);
        } else {
            rotation_libm(p->deg, p->order, p->code, p->undo, p->q);
            f->libm_rotations++;
        }
    }
    return chan_put(f, &st->r, p->q, 4, fr);
}

static ganim_code rotations_pair(bvh_file *f, const bvh_rot p[2], bvh_state *const st[2], const uint32_t fr[2]);
static ganim_code rotations_quad(bvh_file *f, const bvh_rot p[4], bvh_state *const st[4], const uint32_t fr[4])
{
    int c = p[0].code;
    if (p[1].code != c || p[2].code != c || p[3].code != c || p[0].undo || p[1].undo || p[2].undo || p[3].undo) {
        ganim_code code = rotations_pair(f, p, st, fr);
        return code != GANIM_OK ? code : rotations_pair(f, p + 2, st + 2, fr + 2);
    }
    int done = rotation_fast4soa(p);
    for (int k = 0; k < 4; k++) {
        ganim_code code = rotation_put(f, &p[k], st[k], fr[k], done >> k & 1, ROTATION_BY_FLOATS);
        if (code != GANIM_OK) return code;
    }
    return GANIM_OK;
}
/* Two joints' rotations (rotation_fast2, else libm's path) into their channels. */
static ganim_code rotations_pair(bvh_file *f, const bvh_rot p[2], bvh_state *const st[2], const uint32_t fr[2])
{
    int done = rotation_fast2(&p[0], &p[1]);
    for (int k = 0; k < 2; k++) {
        ganim_code code = rotation_put(f, &p[k], st[k], fr[k], done >> k & 1, ROTATION_BY_LIBM);
        if (code != GANIM_OK) return code;
    }
    return GANIM_OK;
}
#endif

/* The rotations waiting in f->pend[from..to) (0-3 of them) finished: a pair, the last one
 * alone; none waits after it. */
static GANIM_ALWAYS_INLINE ganim_code pending_finish(bvh_file *f, int from, int to)
{
    f->npend = 0;
#if BVH_HAVE_AVX2
    if (to - from >= 2) {
        ganim_code code = rotations_pair(f, f->pend + from, f->pend_st + from, f->pend_fr + from);
        if (code != GANIM_OK) return code;
        from += 2;
    }
    if (from < to) return rotation_put(f, &f->pend[from], f->pend_st[from], f->pend_fr[from], 0, ROTATION_BY_FLOATS);
#else
    (void)from, (void)to;
#endif
    return GANIM_OK;
}

ganim_code bvh_frames_end(bvh_file *f) { return pending_finish(f, 0, f->npend); }

ganim_code bvh_frame(bvh_file *f, const double *v, uint32_t fr)
{
    if (f->maybe_synthetic) {
        const bvh_joint *r = &f->joints[0];
        for (uint32_t k = 0; k < r->nch; k++)
            if (v[r->first + k] != 0) {
                f->maybe_synthetic = 0;
                if (f->undo) {
                    f->redo = 1; /* the roots' turn went to the wrong joints: read again */
                    return GANIM_OK;
                }
                break;
            }
    }
    /* Rotations wait for four (rotation_fast4soa) from one frame to the next while no
     * chan_put of theirs can allocate (a frame 0, or a channel with its array made): they
     * write only their floats (each in its own f->pend_q), and are finished in the order they
     * came, so a joint may wait in several frames (a joint that turns alone fills a four in
     * four frames). From a rotation that may allocate on, the frame is `strict`: what waits
     * is finished first, then the fours are the frame's own from its first rotation (its
     * fours' slots before it, `pad`, left empty), the rest finished at its end, as frame by
     * frame: the document's allocations, and a memory limit's error, come where they came
     * then. Every path gives rotation_libm's floats (the fast ones write only floats they
     * have shown to be those), so which four a rotation falls in changes no float. */
    int strict = frame_local, pad = 0;
    if (strict && f->npend) {
        ganim_code code = pending_finish(f, 0, f->npend);
        if (code != GANIM_OK) return code;
    }
    int n = f->npend, carried = n, taken = 0; /* n in f->npend again before each call and return */
    const uint32_t joints = f->joint_count;
    for (uint32_t ji = 0; ji < joints; ji++) {
        bvh_state *st = &f->state[ji];
        if (st->has_pos) {
            double p[3];
            float t[3];
            for (int a = 0; a < 3; a++) p[a] = st->base[a] + v[st->pos_v[a]];
            if (st->undo) ganim_dq_rot(st->undo, p, p);
            for (int a = 0; a < 3; a++) t[a] = (float)p[a];
            ganim_code code = chan_put(f, &st->t, t, 3, fr);
            if (code != GANIM_OK) return code;
        }
        if (!st->has_rot) continue;
        /* three angles with the bits of the frame before: the same quaternion */
        double deg[3];
        uint64_t bits[3];
        for (int i = 0; i < 3; i++) deg[i] = v[st->rot_v[i]];
        memcpy(bits, deg, sizeof bits);
        int same = 0;
        for (int i = 0; i < 3; i++) {
            if (bits[i] == st->angle[i]) { /* never in the first frame: angle holds a NaN's bits */
                same++;
                continue;
            }
            st->angle[i] = bits[i];
        }
        if (same == 3) { /* fr > 0: the frame before's rotation, which a channel without an
                            * array holds as its first already (chan_put would find it so) */
#if BVH_HAVE_AVX2
            /* the frame before's rotation may wait (a joint's waiting rotation is its frame
             * before's: the first frame after it with the same angles finishes what waits):
             * what waits is finished first (it may be finished already: no matter) */
            if (st->wait_fr == fr && n && !strict) {
                int k = n;
                taken += k;
                n = 0;
                ganim_code code = pending_finish(f, 0, k);
                if (code != GANIM_OK) return code;
            }
#endif
            if (st->r.varying) /* the frame before's floats, put there (its own or a copy) */
                memcpy(st->r.frames + (size_t)fr * 4, st->r.frames + (size_t)(fr - 1) * 4, 4 * sizeof(float));
            continue;
        }
#if BVH_HAVE_AVX2
        if (f->fast_rotation) { /* four at a time (rotation_fast4soa), the frames' order kept per joint */
            if (!st->r.frames && fr && !strict) {        /* it may allocate */
                int k = n, before = taken + n - carried; /* the frame's rotations before it */
                strict = 1;
                taken += k;
                ganim_code code = pending_finish(f, 0, k);
                if (code != GANIM_OK) return code;
                n = pad = before & 3;
            }
            bvh_rot *p = &f->pend[n];
            memcpy(p->deg, deg, sizeof deg);
            p->order = st->order, p->code = st->order_code, p->undo = st->undo; /* p->q: f->pend_q[n] */
            st->wait_fr = fr + 1;
            f->pend_st[n] = st;
            f->pend_fr[n] = fr;
            if (++n == 4) {
                ganim_code code;
                taken += 4;
                if (!pad) {
                    f->npend = 0;
                    code = rotations_quad(f, f->pend, f->pend_st, f->pend_fr);
                } else {
                    code = pending_finish(f, pad, 4);
                    pad = 0;
                }
                n = 0;
                if (code != GANIM_OK) return code;
            }
            continue;
        }
#endif
        f->libm_rotations += !rotation_floats(deg, st->order, st->order_code, st->undo, f->fast_rotation, st->q);
        ganim_code code = chan_put(f, &st->r, st->q, 4, fr);
        if (code != GANIM_OK) return code;
    }
    (void)carried, (void)taken; /* the fast path's only (BVH_HAVE_AVX2) */
    /* what waits goes on to the next frame (bvh_frames_end finishes the last) */
    f->npend = n;
    return strict ? pending_finish(f, pad, n) : GANIM_OK;
}

/* The channel a joint's frames made: in the document only what it keeps, one value (a
 * copy) or one per frame (the array filled as the frames were read). */
static ganim_code set_channel(bvh_file *f, ganim_channel *ch, bvh_chan *c, uint32_t comps)
{
    if (c->varying) {
        ch->kind = GANIM_CHANNEL_PER_FRAME;
        ch->count = f->frames;
        ch->values = c->frames;
        return GANIM_OK;
    }
    float *kept = ganim_doc_alloc_array_raw(f->doc, comps, sizeof(float)); /* copied over whole */
    if (!kept) return GANIM_NOMEM(f->err);
    memcpy(kept, c->first, comps * sizeof(float));
    ch->kind = GANIM_CHANNEL_CONSTANT;
    ch->count = 1;
    ch->values = kept;
    return GANIM_OK;
}

/* ---- a skeleton given by the caller ------------------------------------------------------------ */

/* The bone of the given skeleton each joint animates (bone_of[j] for joint j + skip, or
 * UINT32_MAX): the joint's name is the name ganim's exporters give the bone
 * (ganim_names_make: [A-Za-z0-9_-], `Particle View 01` -> `Particle_View_01`, a repeated
 * name gets `_<index>`), else the bone's own name, else the same without case. A joint
 * that matches no bone left is a warning, and its channels are skipped. */
static ganim_code map_joints(bvh_file *f, const ganim_skeleton *sk, uint32_t skip, uint32_t nb, uint32_t *bone_of)
{
    ganim_names names;
    const ganim_allocator *a = ganim_doc_allocator(f->doc);
    if (!ganim_names_make(a, sk, NULL, 0, &names)) return GANIM_NOMEM(f->err);
    uint8_t *taken = ganim_doc_alloc(f->scratch, sk->bone_count ? sk->bone_count : 1);
    if (!taken) {
        ganim_names_free(a, &names);
        return GANIM_NOMEM(f->err);
    }
    uint32_t missing = 0;
    const char *first_missing = NULL;
    for (uint32_t j = 0; j < nb; j++) {
        const char *name = f->joints[j + skip].name;
        uint32_t hit = UINT32_MAX;
        for (int pass = 0; pass < 3 && hit == UINT32_MAX; pass++)
            for (uint32_t b = 0; b < sk->bone_count && hit == UINT32_MAX; b++) {
                if (taken[b]) continue;
                const char *bn = pass == 0 ? names.name[b] : sk->bones[b].name;
                if (pass < 2 ? !strcmp(bn, name) : !ganim_strcasecmp(bn, name)) hit = b;
            }
        bone_of[j] = hit;
        if (hit != UINT32_MAX) taken[hit] = 1;
        else if (!missing++) first_missing = name;
    }
    ganim_names_free(a, &names);
    if (missing)
        ganim_doc_warn(f->doc, GANIM_WARN_SKELETON, f->joints[skip].at,
                       "bvh: %u joint(s) match no bone of the skeleton given (e.g. '%.100s'); their channels are "
                       "skipped",
                       missing, first_missing);
    return GANIM_OK;
}

ganim_code bvh_build(bvh_file *f)
{
    set_undo(f);
    const double *undo = f->undo;
    if (f->axes_undone) f->doc->axes = (ganim_axes)(f->axes_undone - 1);
    /* ganim's synthetic root: its shape, and its values 0 in every frame read */
    f->synthetic_root = f->state ? f->maybe_synthetic : synthetic_root_shape(f);
    uint32_t skip = f->synthetic_root ? 1u : 0u, nb = f->joint_count - skip;
    ganim_skeleton *sk = ganim_doc_alloc(f->doc, sizeof *sk);
    ganim_bone *bones = ganim_doc_alloc_array(f->doc, nb, sizeof *bones);
    if (!sk || !bones) return GANIM_NOMEM(f->err);
    sk->name = "";
    sk->bones = bones;
    sk->bone_count = nb;
    uint32_t tracks = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const bvh_joint *j = &f->joints[b + skip];
        ganim_bone *bone = &bones[b];
        bone->name = j->name; /* copied into the document by the parser */
        bone->parent = j->parent - (int32_t)skip;
        if (bone->parent < 0) bone->parent = -1;
        double o[3] = { j->offset[0], j->offset[1], j->offset[2] };
        if (undo && bone->parent < 0) ganim_dq_rot(undo, o, o);
        /* ganim_transform_identity() with the OFFSET as translation, without the call */
        const ganim_transform rest = { { 0, 0, 0, 1 }, { (float)o[0], (float)o[1], (float)o[2] }, { 1, 1, 1 } };
        bone->rest = rest;
        /* has a position channel: bvh_begin's has_pos where the frames were set up */
        int pos = 0;
        if (f->state) pos = f->state[b + skip].has_pos;
        else
            for (int k = 0; k < j->nch; k++) pos |= j->ch[k] < BVH_XROT;
        f->position_joints += (uint32_t)pos;
        if (pos && (j->offset[0] != 0 || j->offset[1] != 0 || j->offset[2] != 0)) f->offset_and_positions++;
        tracks += j->nch > 0;
    }
    f->doc->skeleton = sk;
    /* a skeleton given: the joints animate its bones, matched by name (rest poses, order
     * and bones the file does not name are the skeleton's) */
    uint32_t *bone_of = NULL;
    if (f->opts->skeleton) {
        if (!(bone_of = ganim_doc_alloc_array(f->scratch, nb ? nb : 1, sizeof *bone_of))) return GANIM_NOMEM(f->err);
        ganim_code code = map_joints(f, f->opts->skeleton, skip, nb, bone_of);
        if (code != GANIM_OK) return code;
        if (!(f->doc->skeleton = ganim_skeleton_copy(f->doc, f->opts->skeleton))) return GANIM_NOMEM(f->err);
    }
    if (f->offset_and_positions && !f->positions_add)
        ganim_doc_warn(f->doc, GANIM_WARN_OTHER, GANIM_NO_OFFSET,
                       "bvh: %u joints have both an OFFSET and position channels: the positions are read as the "
                       "joint's whole translation, as Blender does (three.js adds them to the OFFSET: "
                       "-O bvh.positions=add)",
                       f->offset_and_positions);
    if (!f->has_motion || !f->frames) return GANIM_OK;
    frame_rate(f);
    ganim_clip *clip = ganim_doc_alloc(f->doc, sizeof *clip);
    ganim_track *tr = ganim_doc_alloc_array(f->doc, tracks, sizeof *tr);
    if (!clip || (tracks && !tr)) return GANIM_NOMEM(f->err);
    clip->name = "";
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->fps = f->fps;
    clip->frame_count = f->frames;
    clip->tracks = tr;
    uint32_t t = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const bvh_joint *j = &f->joints[b + skip];
        if (!j->nch || !f->state || (bone_of && bone_of[b] == UINT32_MAX)) continue; /* state: frames read */
        bvh_state *st = &f->state[b + skip];
        ganim_track *k = &tr[t++];
        k->bone = bone_of ? bone_of[b] : b;
        k->name = f->doc->skeleton->bones[k->bone].name;
        ganim_code code = GANIM_OK;
        if (st->has_pos) code = set_channel(f, &k->translation, &st->t, 3);
        if (code == GANIM_OK && st->has_rot) code = set_channel(f, &k->rotation, &st->r, 4);
        if (code != GANIM_OK) return code;
    }
    clip->track_count = t;
    f->doc->clips = clip;
    f->doc->clip_count = 1;
    return GANIM_OK;
}
