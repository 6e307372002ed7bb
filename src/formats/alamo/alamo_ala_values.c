/* Alamo .ALA: a plan's per-frame streams decoded into the model's arrays, a whole channel
 * at a time. Each value has the bits ala_plan_value gives for it (ala_dec_rot_unit for
 * rotations; offset + stored * scale in float for translation and scale): with SSE2 four
 * lanes run the same IEEE single operations in the same order, without it the loops are
 * the scalar reference. tests/formats/alamo/test_alamo_values.c compares them bit for bit. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "formats/alamo/alamo_ala.h"
#include "io/bits.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
/* The AVX2 path of ala_dec_rots: gcc or clang on x86, chosen at run time. */
#if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define ALA_HAVE_AVX2 1
#include <immintrin.h>
#else
#define ALA_HAVE_AVX2 0
#endif

static void rot_raw(const ala_stream *s, uint32_t f, int16_t raw[4])
{
    const uint8_t *q = s->base + (size_t)f * s->stride;
    for (unsigned k = 0; k < 4; k++) raw[k] = (int16_t)ganim_ld_u16le(q + 2u * k);
}

#if defined(__SSE2__)
/* The four stored components at q (8 bytes, all inside the stream) as floats / 32767. */
static inline __m128 rot_lanes(const uint8_t *q)
{
    __m128i w = _mm_loadl_epi64((const __m128i *)(const void *)q);
    __m128i i32 = _mm_srai_epi32(_mm_unpacklo_epi16(w, w), 16); /* sign-extended */
    return _mm_div_ps(_mm_cvtepi32_ps(i32), _mm_set1_ps(32767.0f));
}
#endif

#if defined(__SSE2__)
/* Frame f, found not unit in a group of lanes: the reference repairs it in place. */
static void repair(const ala_stream *s, uint32_t f, float *o, uint32_t *bad)
{
    int16_t raw[4];
    rot_raw(s, f, raw);
    (void)ala_dec_rot_unit(raw, o);
    if (*bad == UINT32_MAX) *bad = f;
}
#endif

#if ALA_HAVE_AVX2
/* Two stored quaternions (8 bytes each, inside the stream) as the eight floats of their
 * components / 32767, in one of two ways with the same bits. rot_pair_div divides, as
 * rot_lanes does. rot_pair_sum does not: with a = x 2^-15, b = x 2^-30, c = x 2^-45 (each
 * exact), a + (b + c) rounds to the float nearest x / 32767 = a (1 + 2^-15 + 2^-30 + ...)
 * for every 16-bit x, which test_alamo_values proves on all 65,536 in every lane. The
 * divider (shared with the square root) bounded the SSE2 loop; half the pairs through the
 * multipliers and adders share the work out: 1.36 -> 0.79 ns a quaternion. */
__attribute__((target("avx2"))) static inline __m256 rot_pair_x(const uint8_t *q0, const uint8_t *q1)
{
    __m128i w = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)q0),
                                   _mm_loadl_epi64((const __m128i *)(const void *)q1));
    return _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(w)); /* sign-extended, exact */
}
__attribute__((target("avx2"))) static inline __m256 rot_pair_sum(const uint8_t *q0, const uint8_t *q1)
{
    __m256 x = rot_pair_x(q0, q1);
    __m256 a = _mm256_mul_ps(x, _mm256_set1_ps(0x1p-15f)), b = _mm256_mul_ps(x, _mm256_set1_ps(0x1p-30f));
    __m256 c = _mm256_mul_ps(x, _mm256_set1_ps(0x1p-45f));
    return _mm256_add_ps(a, _mm256_add_ps(b, c));
}
__attribute__((target("avx2"))) static inline __m256 rot_pair_div(const uint8_t *q0, const uint8_t *q1)
{
    return _mm256_div_ps(rot_pair_x(q0, q1), _mm256_set1_ps(32767.0f));
}

/* Eight quaternions a turn: pairs in 256-bit vectors (quaternion 2k in the low half, 2k + 1
 * in the high), squares transposed in each half and summed in ala_dec_rot_unit's order,
 * the length tested as the SSE2 loop tests it, a not-unit one repaired by the reference.
 * Returns the frame to go on from (the base path takes the rest). */
__attribute__((target("avx2"))) static uint32_t rots_avx2(const ala_stream *s, uint32_t count, float *out,
                                                          uint32_t *bad)
{
    const __m256 one = _mm256_set1_ps(1.0f), tol = _mm256_set1_ps(1e-3f);
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const uint8_t *in = s->base;
    const size_t st = s->stride;
    uint32_t f = 0;
    for (; f + 8u <= count; f += 8u, in += 8u * st) {
        __m256 p0 = rot_pair_sum(in, in + st), p1 = rot_pair_div(in + 2u * st, in + 3u * st);
        __m256 p2 = rot_pair_div(in + 4u * st, in + 5u * st), p3 = rot_pair_sum(in + 6u * st, in + 7u * st);
        __m256 a = _mm256_mul_ps(p0, p0), b = _mm256_mul_ps(p1, p1), c = _mm256_mul_ps(p2, p2);
        __m256 d = _mm256_mul_ps(p3, p3);
        /* per half: x = (x^2 of quaternions 0, 2, 4, 6) low, (1, 3, 5, 7) high; likewise y, z, w */
        __m256 t0 = _mm256_unpacklo_ps(a, b), t1 = _mm256_unpacklo_ps(c, d);
        __m256 t2 = _mm256_unpackhi_ps(a, b), t3 = _mm256_unpackhi_ps(c, d);
        __m256 x = _mm256_shuffle_ps(t0, t1, 0x44), y = _mm256_shuffle_ps(t0, t1, 0xEE);
        __m256 z = _mm256_shuffle_ps(t2, t3, 0x44), w = _mm256_shuffle_ps(t2, t3, 0xEE);
        __m256 n2 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(x, y), z), w);
        __m256 dev = _mm256_and_ps(_mm256_sub_ps(_mm256_sqrt_ps(n2), one), abs_mask);
        int off = _mm256_movemask_ps(_mm256_cmp_ps(dev, tol, _CMP_GT_OQ));
        float *o = out + (size_t)f * 4u;
        _mm256_storeu_ps(o, p0);
        _mm256_storeu_ps(o + 8, p1);
        _mm256_storeu_ps(o + 16, p2);
        _mm256_storeu_ps(o + 24, p3);
        if (off) /* in frame order: bit j < 4 is quaternion 2j, bit 4 + j quaternion 2j + 1 */
            for (uint32_t q = 0; q < 8u; q++)
                if (off & (1 << ((q & 1u) * 4u + q / 2u))) repair(s, f + q, o + 4u * q, bad);
    }
    return f;
}

static bool cpu_has_avx2(void) { return __builtin_cpu_supports("avx2"); }
#endif

static uint32_t dec_rots(const ala_stream *s, uint32_t count, float *out, bool avx2)
{
    uint32_t bad = UINT32_MAX, f = 0;
#if ALA_HAVE_AVX2
    if (avx2) f = rots_avx2(s, count, out, &bad);
#else
    (void)avx2;
#endif
#if defined(__SSE2__)
    const __m128 one = _mm_set1_ps(1.0f), tol = _mm_set1_ps(1e-3f);
    const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF));
    const size_t st = s->stride; /* locals: the stores to out cannot change them */
    const uint8_t *in = s->base + (size_t)f * st;
    for (; f + 4u <= count; f += 4u, in += 4u * st) {
        __m128 q0 = rot_lanes(in), q1 = rot_lanes(in + st), q2 = rot_lanes(in + 2u * st), q3 = rot_lanes(in + 3u * st);
        __m128 a = _mm_mul_ps(q0, q0), b = _mm_mul_ps(q1, q1), c = _mm_mul_ps(q2, q2), d = _mm_mul_ps(q3, q3);
        /* transpose: x = (x0^2, x1^2, x2^2, x3^2), likewise y, z, w */
        __m128 t0 = _mm_unpacklo_ps(a, b), t1 = _mm_unpacklo_ps(c, d);
        __m128 t2 = _mm_unpackhi_ps(a, b), t3 = _mm_unpackhi_ps(c, d);
        __m128 x = _mm_movelh_ps(t0, t1), y = _mm_movehl_ps(t1, t0);
        __m128 z = _mm_movelh_ps(t2, t3), w = _mm_movehl_ps(t3, t2);
        /* ala_dec_rot_unit's sum: ((x^2 + y^2) + z^2) + w^2 (its leading 0 + x^2 is x^2) */
        __m128 n2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(x, y), z), w);
        __m128 dev = _mm_and_ps(_mm_sub_ps(_mm_sqrt_ps(n2), one), abs_mask);
        int off = _mm_movemask_ps(_mm_cmpgt_ps(dev, tol));
        float *o = out + (size_t)f * 4u;
        _mm_storeu_ps(o, q0);
        _mm_storeu_ps(o + 4, q1);
        _mm_storeu_ps(o + 8, q2);
        _mm_storeu_ps(o + 12, q3);
        for (uint32_t k = 0; off && k < 4u; k++) /* not unit: the reference repairs it */
            if (off & (1 << k)) repair(s, f + k, o + 4u * k, &bad);
    }
#endif
    for (; f < count; f++) {
        int16_t raw[4];
        rot_raw(s, f, raw);
        if (!ala_dec_rot_unit(raw, out + (size_t)f * 4u) && bad == UINT32_MAX) bad = f;
    }
    return bad;
}

uint32_t ala_dec_rots(const ala_stream *s, uint32_t count, float *out)
{
#if ALA_HAVE_AVX2
    return dec_rots(s, count, out, cpu_has_avx2());
#else
    return dec_rots(s, count, out, false);
#endif
}

bool ala_dec_rots_on(int path, const ala_stream *s, uint32_t count, float *out, uint32_t *bad)
{
    if (path == ALA_PATH_AVX2) {
#if ALA_HAVE_AVX2
        if (!cpu_has_avx2()) return false;
        *bad = dec_rots(s, count, out, true);
        return true;
#else
        return false;
#endif
    }
    if (path != ALA_PATH_BASE) return false;
    *bad = dec_rots(s, count, out, false);
    return true;
}

/* Can offset + stored * scale be other than finite for a stored value in 0..65535? Not when
 * |offset| + 65535 |scale| stays far below FLT_MAX (each float operation adds at most a
 * relative 2^-24); NaN or infinite inputs fail the test too. */
static bool surely_finite(const float o[3], const float m[3])
{
    bool ok = true;
    for (unsigned k = 0; k < 3; k++) {
        double bound = fabs((double)o[k]) + 65536.0 * fabs((double)m[k]);
        ok &= bound < 0.5 * (double)FLT_MAX;
    }
    return ok;
}

bool ala_vecs_surely_finite(const uint32_t off[3], const uint32_t scl[3])
{
    float o[3], m[3];
    for (unsigned k = 0; k < 3; k++) {
        o[k] = ganim_f32_from_bits(off[k]);
        m[k] = ganim_f32_from_bits(scl[k]);
    }
    return surely_finite(o, m);
}

bool ala_dec_vecs(const ala_stream *s, const uint32_t off[3], const uint32_t scl[3], uint32_t count, float *out)
{
    float o[3], m[3];
    for (unsigned k = 0; k < 3; k++) {
        o[k] = ganim_f32_from_bits(off[k]);
        m[k] = ganim_f32_from_bits(scl[k]);
    }
    if (!s->base) {
        for (unsigned k = 0; k < 3; k++) out[k] = o[k];
        return isfinite(o[0]) && isfinite(o[1]) && isfinite(o[2]);
    }
    if (!surely_finite(o, m)) { /* checked value by value */
        bool finite = true;
        for (uint32_t f = 0; f < count; f++) {
            const uint8_t *q = s->base + (size_t)f * s->stride;
            float *v = out + (size_t)f * 3u;
            for (unsigned k = 0; k < 3; k++) v[k] = o[k] + (float)ganim_ld_u16le(q + 2u * k) * m[k];
            finite &= isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
        }
        return finite;
    }
    ala_dec_vecs_sure(s, o, m, count, out);
    return true;
}

void ala_dec_vecs_sure(const ala_stream *s, const float o[3], const float m[3], uint32_t count, float *out)
{
    uint32_t f = 0;
#if defined(__SSE2__)
    /* Frame f's 8-byte load reads one 16-bit value past its three: inside the stream for
     * every frame but the last (the stride is at least 6 bytes), and its lane's result
     * lands on out[3f + 3], the first value of frame f + 1, written right after. */
    const __m128 vo = _mm_setr_ps(o[0], o[1], o[2], 0.0f), vm = _mm_setr_ps(m[0], m[1], m[2], 0.0f);
    const __m128i zero = _mm_setzero_si128();
    const uint8_t *in = s->base;
    float *dst = out;
    size_t st = s->stride;
    for (; f + 5u <= count; f += 4u, in += 4u * st, dst += 12) { /* four frames a turn, in order */
        __m128 x0 = _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)in), zero));
        __m128 x1 =
            _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(in + st)), zero));
        __m128 x2 =
            _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(in + 2u * st)), zero));
        __m128 x3 =
            _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(in + 3u * st)), zero));
        _mm_storeu_ps(dst, _mm_add_ps(vo, _mm_mul_ps(x0, vm)));
        _mm_storeu_ps(dst + 3, _mm_add_ps(vo, _mm_mul_ps(x1, vm)));
        _mm_storeu_ps(dst + 6, _mm_add_ps(vo, _mm_mul_ps(x2, vm)));
        _mm_storeu_ps(dst + 9, _mm_add_ps(vo, _mm_mul_ps(x3, vm)));
    }
    for (; f + 3u <= count; f += 2u, in += 2u * st, dst += 6) { /* two frames a turn */
        __m128 x0 = _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)in), zero));
        __m128 x1 =
            _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(in + st)), zero));
        _mm_storeu_ps(dst, _mm_add_ps(vo, _mm_mul_ps(x0, vm)));
        _mm_storeu_ps(dst + 3, _mm_add_ps(vo, _mm_mul_ps(x1, vm)));
    }
    for (; f + 1u < count; f++, in += st, dst += 3) {
        __m128 x = _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)in), zero));
        _mm_storeu_ps(dst, _mm_add_ps(vo, _mm_mul_ps(x, vm)));
    }
#endif
    for (; f < count; f++) {
        const uint8_t *q = s->base + (size_t)f * s->stride;
        float *v = out + (size_t)f * 3u;
        for (unsigned k = 0; k < 3; k++) v[k] = o[k] + (float)ganim_ld_u16le(q + 2u * k) * m[k];
    }
}

bool ala_unpack_bits(const uint8_t *bits, size_t nbytes, uint32_t count, uint8_t *out)
{
    if (nbytes > SIZE_MAX / 8u ? false : count > nbytes * 8u) return false;
    uint32_t f = 0;
#if defined(__SSE2__)
    /* 32 bits a turn: bytes b0..b3 spread to b0 x8, b1 x8 | b2 x8, b3 x8, then byte k of
     * each eight kept iff its bit k is set (an AND with 1 << k), and made 1 (min with 1) */
    const __m128i sel = _mm_set1_epi64x((long long)0x8040201008040201u), one = _mm_set1_epi8(1);
    for (; f + 32u <= count; f += 32u) {
        uint32_t w;
        memcpy(&w, bits + f / 8u, 4); /* bytes f/8 .. f/8 + 3, all below count/8 <= nbytes */
        __m128i x = _mm_cvtsi32_si128((int)w);
        x = _mm_unpacklo_epi8(x, x);  /* b0 b0 b1 b1 b2 b2 b3 b3 */
        x = _mm_unpacklo_epi16(x, x); /* b0 x4, b1 x4, b2 x4, b3 x4 */
        __m128i lo = _mm_unpacklo_epi32(x, x), hi = _mm_unpackhi_epi32(x, x);
        _mm_storeu_si128((__m128i *)(void *)(out + f), _mm_min_epu8(_mm_and_si128(lo, sel), one));
        _mm_storeu_si128((__m128i *)(void *)(out + f + 16u), _mm_min_epu8(_mm_and_si128(hi, sel), one));
    }
#endif
    /* the rest (all of it without SSE2): f is a multiple of 8 */
    return gb_lsb_unpack(bits + f / 8u, nbytes - f / 8u, count - f, out + f);
}
