/* The SSE2 path of the whole-clip decode: four samples of one sub-track at once (one
 * sample per lane, x/y/z/w in separate vectors). Every lane does exactly the scalar
 * path's IEEE operations in the same order, so the values are bit-identical to
 * rec_decode + quat_normalise (the random-access path; test_acl checks it). */
#include "formats/acl/acl_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>

/* Quantised x, y, z of M_VAR record r in the samples at bit offsets b0..b3 (proven).
 * Up to 19 bits a component, one 8-byte window of a sample holds its x, y and z and the
 * shifts that cut them out are the same in every sample: two samples' windows a vector
 * (64-bit lanes), each component cut out with one or two whole-vector shifts (cnt: the
 * counts 64 - nb, nb and 2 nb) instead of five scalar shifts a sample and a gather. */
static GANIM_ALWAYS_INLINE void var_ints4(const acl_rec *r, const uint8_t *ani, size_t b0, size_t b1, size_t b2,
                                          size_t b3, const __m128i cnt[3], __m128i *X, __m128i *Y, __m128i *Z)
{
    unsigned nb = r->nb;
    if (nb <= 19) {
        __m128i wa =
            _mm_set_epi64x((long long)gb_msb_window64_proven(ani, b1), (long long)gb_msb_window64_proven(ani, b0));
        __m128i wb =
            _mm_set_epi64x((long long)gb_msb_window64_proven(ani, b3), (long long)gb_msb_window64_proven(ani, b2));
        __m128i xa = _mm_srl_epi64(wa, cnt[0]), xb = _mm_srl_epi64(wb, cnt[0]);
        __m128i ya = _mm_srl_epi64(_mm_sll_epi64(wa, cnt[1]), cnt[0]);
        __m128i yb = _mm_srl_epi64(_mm_sll_epi64(wb, cnt[1]), cnt[0]);
        __m128i za = _mm_srl_epi64(_mm_sll_epi64(wa, cnt[2]), cnt[0]);
        __m128i zb = _mm_srl_epi64(_mm_sll_epi64(wb, cnt[2]), cnt[0]);
        /* each value is in the low half of its 64-bit lane: lanes 0 and 2 of each */
        *X = _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(xa), _mm_castsi128_ps(xb), _MM_SHUFFLE(2, 0, 2, 0)));
        *Y = _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(ya), _mm_castsi128_ps(yb), _MM_SHUFFLE(2, 0, 2, 0)));
        *Z = _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(za), _mm_castsi128_ps(zb), _MM_SHUFFLE(2, 0, 2, 0)));
        return;
    }
    unsigned sh = 64u - nb;
    const size_t b[4] = { b0, b1, b2, b3 };
    uint32_t x[4], y[4], z[4];
    for (unsigned j = 0; j < 4; j++) {
        x[j] = (uint32_t)(gb_msb_window64_proven(ani, b[j]) >> sh);
        y[j] = (uint32_t)(gb_msb_window64_proven(ani, b[j] + nb) >> sh);
        z[j] = (uint32_t)(gb_msb_window64_proven(ani, b[j] + 2u * nb) >> sh);
    }
    *X = _mm_set_epi32((int)x[3], (int)x[2], (int)x[1], (int)x[0]);
    *Y = _mm_set_epi32((int)y[3], (int)y[2], (int)y[1], (int)y[0]);
    *Z = _mm_set_epi32((int)z[3], (int)z[2], (int)z[1], (int)z[0]);
}

/* W of four rotations from the squares of x, y and z (rebuild_w per lane). */
static GANIM_ALWAYS_INLINE __m128 rebuild_w4(__m128 xx, __m128 yy, __m128 zz)
{
    const __m128 one = _mm_set1_ps(1.0f), absm = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF));
    return _mm_sqrt_ps(_mm_and_ps(_mm_sub_ps(_mm_sub_ps(_mm_sub_ps(one, xx), yy), zz), absm));
}

/* Four rotations (lane i: x, y, z, w; xx, yy, zz the squares) divided by their length with
 * quat_normalise's operations per lane, the identity in the lanes whose length^2 is outside
 * [1e-12, 1e30] (only from damaged data); returns the movemask of the lanes kept. */
static GANIM_ALWAYS_INLINE int quat_normalise4(__m128 *x, __m128 *y, __m128 *z, __m128 *w, __m128 xx, __m128 yy,
                                               __m128 zz)
{
    const __m128 one = _mm_set1_ps(1.0f), lo = _mm_set1_ps(1e-12f), hi = _mm_set1_ps(1e30f);
    __m128 len2 = _mm_add_ps(_mm_add_ps(xx, zz), _mm_add_ps(yy, _mm_mul_ps(*w, *w)));
    __m128 ok = _mm_and_ps(_mm_cmpge_ps(len2, lo), _mm_cmple_ps(len2, hi));
    __m128 len = _mm_sqrt_ps(len2);
    *x = _mm_div_ps(*x, len);
    *y = _mm_div_ps(*y, len);
    *z = _mm_div_ps(*z, len);
    *w = _mm_div_ps(*w, len);
    int m = _mm_movemask_ps(ok);
    if (m != 0xF) {
        *x = _mm_and_ps(*x, ok);
        *y = _mm_and_ps(*y, ok);
        *z = _mm_and_ps(*z, ok);
        *w = _mm_or_ps(_mm_and_ps(*w, ok), _mm_andnot_ps(ok, one));
    }
    return m;
}

/* The first k (< 16) floats of v[0..3] to o, nothing past them (a run's last samples). */
static GANIM_ALWAYS_INLINE void store_head(float *o, const __m128 v[4], unsigned k)
{
    unsigned j = 0;
    for (; k >= 4; j++, k -= 4, o += 4) _mm_storeu_ps(o, v[j]);
    __m128 t = v[j & 3u];
    if (k >= 2) {
        _mm_storel_pi((__m64 *)(void *)o, t);
        t = _mm_movehl_ps(t, t);
        o += 2;
    }
    if (k & 1u) _mm_store_ss(o, t);
}

/* M_VAR record r over stored samples [0, n) (all proven) into out (comps per sample);
 * returns the count of degenerate rotations replaced by the identity. Compiled twice
 * (acl_var_run4_sse2, acl_var_run4_avx2): the same operations on the same values. */
static GANIM_ALWAYS_INLINE uint32_t var_run4_k(const acl_rec *r, const uint8_t *ani, size_t rbit, size_t pb, uint32_t n,
                                               float *out, acl_fnv *fnv, const int rot, const int seg)
{
    const __m128 inv = _mm_set1_ps(r->inv);
    const __m128 smx = _mm_set1_ps(r->smin[0]), smy = _mm_set1_ps(r->smin[1]), smz = _mm_set1_ps(r->smin[2]);
    const __m128 sex = _mm_set1_ps(r->sext[0]), sey = _mm_set1_ps(r->sext[1]), sez = _mm_set1_ps(r->sext[2]);
    const __m128 cmx = _mm_set1_ps(r->cmin[0]), cmy = _mm_set1_ps(r->cmin[1]), cmz = _mm_set1_ps(r->cmin[2]);
    const __m128 cex = _mm_set1_ps(r->cext[0]), cey = _mm_set1_ps(r->cext[1]), cez = _mm_set1_ps(r->cext[2]);
    uint32_t bad = 0;
    const __m128i cnt[3] = { _mm_cvtsi32_si128((int)(64u - r->nb)), _mm_cvtsi32_si128((int)r->nb),
                             _mm_cvtsi32_si128((int)(2u * r->nb)) };
    const size_t comps = rot ? 4u : 3u;
    size_t b0 = rbit;
    float *dst = out;
    /* the hash's state in registers: through *fnv, gcc loads and stores it at every step
     * (the stores to out may alias it) */
    acl_fnv f = fnv ? *fnv : (acl_fnv){ NULL, 0, 0, 0 };
    for (uint32_t i = 0; i < n; i += 4, b0 += 4u * pb, dst += 4u * comps) {
        if (f.left) acl_fnv_some(&f); /* independent of the lanes: overlaps them */
        uint32_t rem = n - i < 4 ? n - i : 4;
        size_t b1 = b0 + pb, b2 = b1 + pb, b3 = b2 + pb;
        if (rem < 4) { /* the last four: lanes past the end repeat the last sample, not stored */
            b1 = rem > 1 ? b1 : b0;
            b2 = rem > 2 ? b2 : b1;
            b3 = b2;
        }
        __m128i qx, qy, qz;
        var_ints4(r, ani, b0, b1, b2, b3, cnt, &qx, &qy, &qz);
        __m128 x = _mm_mul_ps(_mm_cvtepi32_ps(qx), inv);
        __m128 y = _mm_mul_ps(_mm_cvtepi32_ps(qy), inv);
        __m128 z = _mm_mul_ps(_mm_cvtepi32_ps(qz), inv);
        if (seg) {
            x = _mm_add_ps(_mm_mul_ps(x, sex), smx);
            y = _mm_add_ps(_mm_mul_ps(y, sey), smy);
            z = _mm_add_ps(_mm_mul_ps(z, sez), smz);
        }
        x = _mm_add_ps(_mm_mul_ps(x, cex), cmx);
        y = _mm_add_ps(_mm_mul_ps(y, cey), cmy);
        z = _mm_add_ps(_mm_mul_ps(z, cez), cmz);
        __m128 v[4];
        if (rot) {
            __m128 xx = _mm_mul_ps(x, x), yy = _mm_mul_ps(y, y), zz = _mm_mul_ps(z, z);
            __m128 w = rebuild_w4(xx, yy, zz);
            int m = quat_normalise4(&x, &y, &z, &w, xx, yy, zz);
            if (m != 0xF) bad += popcount32((uint32_t)~m & ((1u << rem) - 1u));
            _MM_TRANSPOSE4_PS(x, y, z, w);
            v[0] = x, v[1] = y, v[2] = z, v[3] = w;
        } else {
            /* x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3 */
            __m128 a = _mm_unpacklo_ps(x, y), c = _mm_unpackhi_ps(x, y); /* x0 y0 x1 y1, x2 y2 x3 y3 */
            __m128 t0 = _mm_shuffle_ps(z, a, _MM_SHUFFLE(2, 2, 0, 0));   /* z0 z0 x1 x1 */
            __m128 t1 = _mm_shuffle_ps(a, z, _MM_SHUFFLE(1, 1, 3, 3));   /* y1 y1 z1 z1 */
            __m128 t2 = _mm_shuffle_ps(c, z, _MM_SHUFFLE(3, 3, 3, 2));   /* x3 y3 z3 z3 */
            __m128 t3 = _mm_shuffle_ps(z, t2, _MM_SHUFFLE(0, 0, 2, 2));  /* z2 z2 x3 x3 */
            v[0] = _mm_shuffle_ps(a, t0, _MM_SHUFFLE(2, 0, 1, 0));       /* x0 y0 z0 x1 */
            v[1] = _mm_shuffle_ps(t1, c, _MM_SHUFFLE(1, 0, 2, 0));       /* y1 z1 x2 y2 */
            v[2] = _mm_shuffle_ps(t3, t2, _MM_SHUFFLE(2, 1, 2, 0));      /* z2 x3 y3 z3 */
            v[3] = v[2];
        }
        if (rem == 4) {
            _mm_storeu_ps(dst, v[0]);
            _mm_storeu_ps(dst + 4, v[1]);
            _mm_storeu_ps(dst + 8, v[2]);
            if (rot) _mm_storeu_ps(dst + 12, v[3]);
        } else {
            store_head(dst, v, (unsigned)(rem * comps));
        }
    }
    if (fnv) *fnv = f;
    return bad;
}

/* var_run4_k for each kind (rotation or not) and with or without segment ranges: the
 * tests leave the loop and its constants stay in registers */
static GANIM_ALWAYS_INLINE uint32_t var_run4(const acl_rec *r, const uint8_t *ani, size_t rbit, size_t pb, uint32_t n,
                                             float *out, acl_fnv *fnv)
{
    if (r->kind == K_ROT)
        return r->segrange ? var_run4_k(r, ani, rbit, pb, n, out, fnv, 1, 1)
                           : var_run4_k(r, ani, rbit, pb, n, out, fnv, 1, 0);
    return r->segrange ? var_run4_k(r, ani, rbit, pb, n, out, fnv, 0, 1)
                       : var_run4_k(r, ani, rbit, pb, n, out, fnv, 0, 0);
}

uint32_t acl_var_run4_sse2(const acl_rec *r, const uint8_t *ani, size_t rbit, size_t pb, uint32_t n, float *out,
                           acl_fnv *fnv)
{
    return var_run4(r, ani, rbit, pb, n, out, fnv);
}

#if ACL_HAVE_AVX2
/* The same code in VEX encoding with BMI2 (three-operand forms: fewer register copies;
 * shlx/shrx for the bit windows' variable shifts): ~7 % fewer instructions a read on the
 * variable clips, 128-bit vectors only (docs/benchmarks.md, "ACL, fourteenth round"). No
 * FMA: every multiply and add stays apart (and -ffp-contract=off). */
__attribute__((target("avx2,bmi2"))) uint32_t acl_var_run4_avx2(const acl_rec *r, const uint8_t *ani, size_t rbit,
                                                                size_t pb, uint32_t n, float *out, acl_fnv *fnv)
{
    return var_run4(r, ani, rbit, pb, n, out, fnv);
}

bool acl_cpu_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2"); }
#else
bool acl_cpu_avx2(void) { return false; }
#endif

acl_var_run4_fn acl_var_run4_pick(void)
{
#if ACL_HAVE_AVX2
    if (acl_cpu_avx2()) return acl_var_run4_avx2;
#endif
    return acl_var_run4_sse2;
}
/* Raw rotations four samples at a time: x/y/z/w of the four in separate vectors, so that
 * W (three components stored) and the length take one square root for the four, instead
 * of one each a sample (acl_vec_with_w, the one-sample path's sqrtf); the same IEEE
 * operations in the same order per lane as acl_vec_with_w + quat_normalise. */
uint32_t acl_raw_rot4(const acl_rec *r, const uint8_t *ani, size_t pb, uint32_t n, float *out, acl_fnv *fnv,
                      uint32_t *bad)
{
    const int full4 = r->mode == M_FULL4;
    uint32_t i = 0;
    for (; n - i >= 4; i += 4, out += 16) {
        __m128 x, y, z, w;
        size_t b = (size_t)i * pb;
        if (!acl_raw_bits(r, ani, b, &x) || !acl_raw_bits(r, ani, b + pb, &y) ||
            !acl_raw_bits(r, ani, b + 2u * pb, &z) || !acl_raw_bits(r, ani, b + 3u * pb, &w))
            break; /* not finite: the one-sample path and then rec_decode replace it */
        for (unsigned k = 0; k < 4 && fnv && fnv->left; k++) acl_fnv_some(fnv);
        _MM_TRANSPOSE4_PS(x, y, z, w);
        __m128 xx = _mm_mul_ps(x, x), yy = _mm_mul_ps(y, y), zz = _mm_mul_ps(z, z);
        if (!full4) w = rebuild_w4(xx, yy, zz);
        int m = quat_normalise4(&x, &y, &z, &w, xx, yy, zz);
        if (m != 0xF) *bad += popcount32((uint32_t)~m & 0xFu);
        _MM_TRANSPOSE4_PS(x, y, z, w);
        _mm_storeu_ps(out, x);
        _mm_storeu_ps(out + 4, y);
        _mm_storeu_ps(out + 8, z);
        _mm_storeu_ps(out + 12, w);
    }
    return i;
}
#endif
