/* FF7 rotations: three 12-bit angles (4096 = one turn), R = Ry * Rx * Rz, to and from
 * quaternions, and the rounding to a precision key. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "formats/ff7/ff7.h"

static const double FF7_TAU = 6.283185307179586476925286766559;

/* The product ((1 * Qy) * Qx) * Qz as ganim_quat_from_euler forms it, from the table's
 * half-angle sines and cosines (each Q is what ganim_quat_axis_angle gives: its two
 * off-axis parts +0). */
ganim_quat ff7_raw_to_quat_generic(float sx, float cx, float sy, float cy, float sz, float cz)
{
    ganim_quat qx = { sx, 0.0f, 0.0f, cx }, qy = { 0.0f, sy, 0.0f, cy }, qz = { 0.0f, 0.0f, sz, cz };
    return ganim_quat_mul(ganim_quat_mul(ganim_quat_mul(ganim_quat_identity(), qy), qx), qz);
}

void ff7_raw_to_quat_store_generic(unsigned ix, unsigned iy, unsigned iz, float *out)
{
    ganim_quat q = ff7_raw_to_quat_generic(FF7_HALF_SIN(ix), FF7_HALF_COS(ix), FF7_HALF_SIN(iy), FF7_HALF_COS(iy),
                                           FF7_HALF_SIN(iz), FF7_HALF_COS(iz));
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
}

void ff7_slot_to_quat_generic(const uint8_t *slot, float *out)
{
    ff7_raw_to_quat_store_generic(ganim_ld_u16le(slot) & 0xFFFu, ganim_ld_u16le(slot + 2) & 0xFFFu,
                                  ganim_ld_u16le(slot + 4) & 0xFFFu, out);
}

/* One slot's frames through STORE (a short product: false when it did not store), the
 * generic product when STORE declines; unchanged slots copy the quaternion before. */
#define FF7_SLOT_LOOP(STORE)                                                                    \
    do {                                                                                        \
        uint64_t prev = UINT64_MAX; /* no slot's 6 bytes read as this */                        \
        for (uint32_t f = 0; f < frames; f++, r += stride) {                                    \
            uint32_t xy = ganim_ld_u32le(r);                                                    \
            uint64_t a = xy | (uint64_t)ganim_ld_u16le(r + 4) << 32;                            \
            float *q = v + 4 * (size_t)f;                                                       \
            if (a == prev) memcpy(q, q - 4, 4 * sizeof *q);                                     \
            else if (!STORE(xy & 0xFFFu, (xy >> 16) & 0xFFFu, (unsigned)(a >> 32) & 0xFFFu, q)) \
                ff7_slot_to_quat_generic(r, q);                                                 \
            prev = a;                                                                           \
        }                                                                                       \
    } while (0)

static bool no_short_store(unsigned ix, unsigned iy, unsigned iz, float *out)
{
    (void)ix, (void)iy, (void)iz, (void)out;
    return false;
}

static void slot_rotations_short(const uint8_t *r, size_t stride, uint32_t frames, float *v)
{
    FF7_SLOT_LOOP(ff7_quat_short_store);
}

#if FF7_HAVE_AVX
/* The operands of ff7_quat_short_store's last step (... * Qz) in four double lanes: q the
 * (x, y, z, w) of Qy * Qx, s its (y, x, w, z), cz x 4 and (sz, -sz) x 2; the step is
 * q cz + s sz lane by lane (x cz + y sz, y cz + x (-sz), z cz + w sz, w cz + z (-sz)). */
typedef struct quat_short_ops {
    __m256d q, s, cz, sz;
} quat_short_ops;

__attribute__((target("avx"), always_inline)) static inline quat_short_ops
quat_short_operands(const float *xr, const float *yr, const double *zr)
{
    /* (sx, cx, sx, cx) times (cy, sy, -sy, cy): ff7_quat_short_store's SSE2 lanes, from
     * one 8-byte load duplicated and one 16-byte row */
    __m128 X = _mm_castpd_ps(_mm_movedup_pd(_mm_castsi128_pd(_mm_loadl_epi64((const __m128i *)(const void *)xr))));
    __m128 f = _mm_mul_ps(X, _mm_load_ps(yr));
    quat_short_ops o;
    o.q = _mm256_cvtps_pd(f);
    o.s = _mm256_permute_pd(o.q, 0x5);
    o.cz = _mm256_broadcast_pd((const __m128d *)(const void *)zr);
    o.sz = _mm256_broadcast_pd((const __m128d *)(const void *)(zr + 2));
    return o;
}

/* ff7_quat_short_store's product with the last step in four double lanes: the same
 * per-lane operations in the same order (no fused multiply-add: the target is "avx"
 * alone), so the same bits; the four components of one quaternion in four float lanes. */
__attribute__((target("avx"))) static inline __m128 quat_short_avx_rows(const float *xr, const float *yr,
                                                                        const double *zr)
{
    quat_short_ops o = quat_short_operands(xr, yr, zr);
    return _mm256_cvtpd_ps(_mm256_add_pd(_mm256_mul_pd(o.q, o.cz), _mm256_mul_pd(o.s, o.sz)));
}

__attribute__((target("avx"))) static inline __m128 quat_short_avx(unsigned ix, unsigned iy, unsigned iz)
{
    return quat_short_avx_rows(ff7_half_sc[ix], ff7_half_y4[iy], ff7_half_zd[iz]);
}

/* ff7_quat_short_store in AVX: false (nothing stored) when a component is zero. */
__attribute__((target("avx"))) static inline bool quat_short_store_avx(unsigned ix, unsigned iy, unsigned iz,
                                                                       float *out)
{
    __m128 res = quat_short_avx(ix, iy, iz);
    if (_mm_movemask_ps(_mm_cmpeq_ps(res, _mm_setzero_ps()))) return false;
    _mm_storeu_ps(out, res);
    return true;
}

/* ff7_slot_to_quat_generic's product ((1 * Qy) * Qx) * Qz for a frame whose short product
 * has a zero component: the short product plus +0, the same bits. Why: the generic product
 * never gives -0, so its zeros are the short form's zeros made +0 (-0 + +0 is +0; a
 * non-zero value plus +0 is itself, and the two forms' non-zero components are equal: see
 * ff7_raw_to_quat_scalar). The generic product's components: each Q as
 * ganim_quat_axis_angle gives it (off-axis parts +0); s >= +0 (no row of the table has a
 * negative sine or a sine of -0) and c != 0. 1 * Qy is Qy. Qy * Qx by ganim_quat_mul's
 * four terms a component (products of floats, exact in double, summed in order): x = cy sx
 * + (+0) cx + sy (+0) - (+0)(+0) is cy sx, or +0 when sx is 0 (its third term is +0, and
 * +0 plus a zero is +0); y = cy (+0) - (+0)(+0) + sy cx + (+0) sx: sy cx or +0; z = cy
 * (+0) + (+0)(+0) - sy sx + (+0) cx: -sy sx or +0; w = cy cx, not zero. Call it A (no -0).
 * A * Qz, Qz = (+0, +0, sz, cz): each component sums two terms that may be non-zero (x: A.x
 * cz, A.y sz; y: -(A.x sz), A.y cz; z: A.w sz, A.z cz; w: A.w cz, -(A.z sz)) and two that
 * are zeros (x: A.w (+0), -(A.z (+0)); y: A.w (+0), A.z (+0); z: A.x (+0), -(A.y (+0)); w:
 * -(A.x (+0)), -(A.y (+0))). A sum of terms is -0 only when each term is -0. x: A.x cz is
 * -0 only when A.x is +0 and cz < 0 (then sz > 0), A.y sz only when sz is +0: never both.
 * z: A.z cz is -0 only when cz < 0, and then A.w sz is not zero. w: A.w cz is never zero.
 * y: both can be -0 (sx = sy = 0, cz < 0), but then A.w = 1 and A.w (+0) is +0. So no
 * component is -0. Checked over every triple with an angle 0 (3 x 4096 x 4096: a zero
 * component without one needs an exact cancellation, whose sum is +0 in both forms) and
 * 200 million random triples against ff7_raw_to_quat_store_generic (a program kept out of
 * the tree; benchmarks.md, nineteenth round); slot_paths_agree covers every angle of each
 * axis with the special angles (0 among them) on the others. */
__attribute__((target("avx"))) static inline void quat_generic_avx(const uint8_t *r, float *q)
{
    __m128 res =
        quat_short_avx_rows(ff7_half_sc[ganim_ld_u16le(r) & 0xFFFu], ff7_half_y4[ganim_ld_u16le(r + 2) & 0xFFFu],
                            ff7_half_zd[ganim_ld_u16le(r + 4) & 0xFFFu]);
    _mm_storeu_ps(q, _mm_add_ps(res, _mm_setzero_ps()));
}

/* One frame as quat_short_store_avx, or the generic product when a component is zero;
 * a: the frame's 6 bytes in the top 48 bits (x at bit 16, y at 32, z at 48). */
__attribute__((target("avx"))) static inline void quat_one_avx(const uint8_t *r, uint64_t a, float *q)
{
    if (!quat_short_store_avx((unsigned)(a >> 16) & 0xFFFu, (unsigned)(a >> 32) & 0xFFFu, (unsigned)(a >> 48) & 0xFFFu,
                              q))
        quat_generic_avx(r, q);
}

/* 8 bytes at p as a little-endian integer (x86: the host's order). */
static inline uint64_t ld_u64_x86(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Two frames a turn. A frame whose slot equals the frame before copies its quaternion, as
 * in FF7_SLOT_LOOP (a function of the three angles alone); when neither frame of the pair
 * does, both are formed as quat_short_store_avx forms one (the same operations per lane),
 * tested for a zero component together and stored with one 32-byte store; a quaternion
 * with a zero component is then formed again by the generic product over what was
 * stored. An odd last frame runs alone. Each frame of a pair is one 8-byte load, its 6
 * bytes brought to the top (the compare and the indices take them from there): frame f's
 * at r (its 2 bytes past lie in frame f + 1's slot: r + 8 <= r + stride + 6), frame f +
 * 1's at r + stride - 2 (the 2 bytes before lie in frame f's slot). */
static inline uint64_t rotr64(uint64_t a, unsigned n) { return a >> n | a << (64u - n); }
/* The rows of a frame's angles (a: its 6 bytes in the top 48 bits, x at bit 16, y at 32,
 * z at 48); rot: each row's byte offset by a rotation and a mask (with BMI2 one rorx and
 * an and, not a copy, a shift and an and: the rotated-in bits are masked off, so the same
 * offsets). */
static GANIM_ALWAYS_INLINE const float *row_x(const char *half, uint64_t a, bool rot)
{
    return rot ? (const float *)(const void *)(half + offsetof(struct ff7_half_tables, sc) + (rotr64(a, 13) & 0x7FF8u))
               : ff7_half_sc[(a >> 16) & 0xFFFu];
}
static GANIM_ALWAYS_INLINE const float *row_y(const char *half, uint64_t a, bool rot)
{
    return rot ? (const float *)(const void *)(half + offsetof(struct ff7_half_tables, y4) + (rotr64(a, 28) & 0xFFF0u))
               : ff7_half_y4[(a >> 32) & 0xFFFu];
}
static GANIM_ALWAYS_INLINE const double *row_z(const char *half, uint64_t a, bool rot)
{
    return rot ? (const double *)(const void *)(half + offsetof(struct ff7_half_tables, zd) +
                                                (rotr64(a, 43) & 0x1FFE0u))
               : ff7_half_zd[(a >> 48) & 0xFFFu];
}

__attribute__((target("avx"))) static GANIM_ALWAYS_INLINE void
slot_rotations_avx_body(const uint8_t *r, size_t stride, uint32_t frames, float *v, bool rot)
{
    uint64_t prev = UINT64_MAX; /* no frame's form (low 16 bits zero) */
    float *q = v;
    const char *half = (const char *)&ff7_half;
#if defined(__GNUC__)
    __asm__("" : "+r"(half)); /* one base register for the three tables, not three addresses */
#endif
    /* with BMI2: 16 from a register, so frame f's load and shift is one shlx from memory
     * (not a load, a copy and a shift) */
    unsigned s16 = 16;
#if defined(__GNUC__)
    if (rot) __asm__("" : "+r"(s16));
#endif
    const float *pairs_end = v + 4 * (size_t)(frames & ~1u);
    for (; q != pairs_end; q += 8, r += 2 * stride) {
        size_t st = stride;
#if defined(__GNUC__)
        __asm__("" : "+r"(st)); /* frame f + 1's load from r and the stride, not a second pointer */
#endif
        uint64_t a0 = ld_u64_x86(r) << s16, a1 = ld_u64_x86(r + st - 2) & ~(uint64_t)0xFFFF;
        if (a0 == prev) {
            memcpy(q, q - 4, 4 * sizeof *q);
            if (a1 == a0) memcpy(q + 4, q - 4, 4 * sizeof *q);
            else quat_one_avx(r + stride, a1, q + 4);
        } else if (a1 == a0) {
            quat_one_avx(r, a0, q);
            memcpy(q + 4, q, 4 * sizeof *q);
        } else {
            __m128 q0 = quat_short_avx_rows(row_x(half, a0, rot), row_y(half, a0, rot), row_z(half, a0, rot));
            __m128 q1 = quat_short_avx_rows(row_x(half, a1, rot), row_y(half, a1, rot), row_z(half, a1, rot));
            __m256 both = _mm256_insertf128_ps(_mm256_castps128_ps256(q0), q1, 1);
            __m256 z = _mm256_cmp_ps(both, _mm256_setzero_ps(), _CMP_EQ_OQ);
            _mm256_storeu_ps(q, both);
            if (!_mm256_testz_ps(z, z)) { /* vtestps: a lane's sign set, i.e. a zero component */
                int zero = _mm256_movemask_ps(z);
                if (zero & 0x0F) quat_generic_avx(r, q);
                if (zero & 0xF0) quat_generic_avx(r + stride, q + 4);
            }
        }
        prev = a1;
    }
    if (frames & 1u) { /* its 6 bytes alone: the array may end with them */
        uint64_t a = ((uint64_t)ganim_ld_u32le(r) | (uint64_t)ganim_ld_u16le(r + 4) << 32) << 16;
        if (a == prev) memcpy(q, q - 4, 4 * sizeof *q);
        else quat_one_avx(r, a, q);
    }
}

__attribute__((target("avx"))) static void slot_rotations_avx(const uint8_t *r, size_t stride, uint32_t frames,
                                                              float *v)
{
    slot_rotations_avx_body(r, stride, frames, v, false);
}
/* The same where the CPU has BMI2 too: the rows' offsets by rorx (row_x). */
__attribute__((target("avx,bmi2"))) static void slot_rotations_avx_bmi2(const uint8_t *r, size_t stride,
                                                                        uint32_t frames, float *v)
{
    slot_rotations_avx_body(r, stride, frames, v, true);
}

/* quat_short_avx_rows with ... * Qz's sum as one fused multiply-add: each lane's
 * x cz + y sz is two products of floats, each exact in double (24 + 24 significant bits),
 * so fma(y, sz, x cz) rounds the same exact sum once, as the add of the two exact
 * products does (a zero's sign by the same rule: fusedMultiplyAdd takes it as the sum of
 * the product and the addend); the bits of quat_short_avx_rows. */
__attribute__((target("avx,fma"))) static inline __m128 quat_short_fma_rows(const float *xr, const float *yr,
                                                                            const double *zr)
{
    quat_short_ops o = quat_short_operands(xr, yr, zr);
    return _mm256_cvtpd_ps(_mm256_fmadd_pd(o.s, o.sz, _mm256_mul_pd(o.q, o.cz)));
}

/* One frame (a: its 6 bytes in the top 48 bits, the low 16 zero) by quat_short_fma_rows
 * plus +0: the generic product's bits, zeros included (quat_generic_avx). */
__attribute__((target("avx,fma,bmi2"))) static GANIM_ALWAYS_INLINE void quat_one_fma(const char *half, uint64_t a,
                                                                                     __m256 zero, float *q)
{
    __m128 res = quat_short_fma_rows(row_x(half, a, true), row_y(half, a, true), row_z(half, a, true));
    _mm_storeu_ps(q, _mm_add_ps(res, _mm256_castps256_ps128(zero)));
}

/* Frames f and f + 1 (a0 and a1: their 6 bytes in the top 48 bits, the low 16 zero),
 * neither repeating the frame before: a frame that repeats frame f copies its quaternion;
 * otherwise both are formed by quat_short_fma_rows, plus +0 (a zero component then has
 * the generic product's sign, +0: quat_generic_avx; no test for zeros and no second
 * product) and stored with one 32-byte store. */
__attribute__((target("avx,fma,bmi2"))) static GANIM_ALWAYS_INLINE void pair_fma(const char *half, uint64_t a0,
                                                                                 uint64_t a1, __m256 zero, float *q)
{
    if (a1 == a0) {
        quat_one_fma(half, a0, zero, q);
        memcpy(q + 4, q, 4 * sizeof *q);
        return;
    }
    __m128 q0 = quat_short_fma_rows(row_x(half, a0, true), row_y(half, a0, true), row_z(half, a0, true));
    __m128 q1 = quat_short_fma_rows(row_x(half, a1, true), row_y(half, a1, true), row_z(half, a1, true));
    __m256 both = _mm256_insertf128_ps(_mm256_castps128_ps256(q0), q1, 1);
    _mm256_storeu_ps(q, _mm256_add_ps(both, zero)); /* zeros +0: quat_generic_avx */
}

/* Frame f repeats frame f - 1 (a0: its form): its quaternion copied, frame f + 1's
 * copied too when it repeats, else formed alone. */
__attribute__((target("avx,fma,bmi2"))) static GANIM_ALWAYS_INLINE void
pair_repeat_fma(const char *half, uint64_t a0, uint64_t a1, __m256 zero, float *q)
{
    memcpy(q, q - 4, 4 * sizeof *q);
    if (a1 == a0) memcpy(q + 4, q - 4, 4 * sizeof *q);
    else quat_one_fma(half, a1, zero, q + 4);
}

/* slot_rotations_avx_bmi2 where the CPU has FMA too: the short products by
 * quat_short_fma_rows (one instruction fewer a quaternion), and frame f + 1's 6 bytes by
 * one shlx from memory at r + stride (as frame f's), not a load 2 bytes early and a mask:
 * its 2 bytes past lie in frame f + 2's slot (r + stride + 8 <= r + 2 stride + 6), so
 * every pair but one whose frame f + 1 is the last frame; that pair loads as
 * slot_rotations_avx_body does. */
__attribute__((target("avx,fma,bmi2"))) static GANIM_ALWAYS_INLINE void
slot_rotations_fma_body(const uint8_t *r, size_t stride, uint32_t frames, float *v)
{
    uint64_t prev = UINT64_MAX; /* no frame's form (low 16 bits zero) */
    float *q = v;
    const char *half = (const char *)&ff7_half;
#if defined(__GNUC__)
    __asm__("" : "+r"(half)); /* one base register for the three tables, not three addresses */
#endif
    unsigned s16 = 16;
#if defined(__GNUC__)
    __asm__("" : "+r"(s16)); /* each frame's load and shift as one shlx from memory */
#endif
    __m256 zero = _mm256_setzero_ps();
#if defined(__GNUC__)
    __asm__("" : "+x"(zero)); /* made once, not again in each pair */
#endif
    /* the pairs before the last frame: (frames - 1) / 2 of them */
    const float *inner_end = v + 8 * (size_t)(frames ? (frames - 1u) >> 1 : 0u);
    for (; q != inner_end; q += 8, r += 2 * stride) {
        size_t st = stride;
#if defined(__GNUC__)
        __asm__("" : "+r"(st)); /* frame f + 1's load from r and the stride, not a second pointer */
#endif
        uint64_t a0 = ld_u64_x86(r) << s16;
        if (a0 == prev) {
            prev = ld_u64_x86(r + st) << s16;
            pair_repeat_fma(half, a0, prev, zero, q);
            continue;
        }
        prev = ld_u64_x86(r + st) << s16;
        pair_fma(half, a0, prev, zero, q);
    }
    if (frames && !(frames & 1u)) { /* the last pair: frame f + 1's slot may end the array */
        uint64_t a0 = ld_u64_x86(r) << s16, a1 = ld_u64_x86(r + stride - 2) & ~(uint64_t)0xFFFF;
        if (a0 == prev) pair_repeat_fma(half, a0, a1, zero, q);
        else pair_fma(half, a0, a1, zero, q);
    } else if (frames & 1u) { /* the last frame alone: its 6 bytes alone */
        uint64_t a = ((uint64_t)ganim_ld_u32le(r) | (uint64_t)ganim_ld_u16le(r + 4) << 32) << 16;
        if (a == prev) memcpy(q, q - 4, 4 * sizeof *q);
        else quat_one_fma(half, a, zero, q);
    }
}

__attribute__((target("avx,fma,bmi2"))) static void slot_rotations_fma(const uint8_t *r, size_t stride, uint32_t frames,
                                                                       float *v)
{
    slot_rotations_fma_body(r, stride, frames, v);
}

/* ff7_slots_rotations's slots each by slot_rotations_fma's loop, in one function (no
 * call and no dispatch a slot). */
__attribute__((target("avx,fma,bmi2"))) static void slots_rotations_fma(const uint8_t *r, size_t stride,
                                                                        uint32_t frames, uint32_t count, float *v)
{
    for (uint32_t t = 0; t < count; t++, r += 6, v += (size_t)frames * 4u)
        slot_rotations_fma_body(r, stride, frames, v);
}

static bool cpu_has_avx(void) { return __builtin_cpu_supports("avx"); }
static bool cpu_has_bmi2(void) { return __builtin_cpu_supports("bmi2"); }
static bool cpu_has_fma(void) { return __builtin_cpu_supports("fma"); }
#endif

bool ff7_slot_rotations_on(int path, const uint8_t *r, size_t stride, uint32_t frames, float *v)
{
    switch (path) {
    case FF7_PATH_GENERIC: FF7_SLOT_LOOP(no_short_store); return true;
    case FF7_PATH_SHORT: slot_rotations_short(r, stride, frames, v); return true;
#if FF7_HAVE_AVX
    case FF7_PATH_AVX:
        if (!cpu_has_avx()) return false;
        slot_rotations_avx(r, stride, frames, v);
        return true;
    case FF7_PATH_AVX_BMI2:
        if (!cpu_has_avx() || !cpu_has_bmi2()) return false;
        slot_rotations_avx_bmi2(r, stride, frames, v);
        return true;
    case FF7_PATH_AVX_FMA:
        if (!cpu_has_avx() || !cpu_has_bmi2() || !cpu_has_fma()) return false;
        slot_rotations_fma(r, stride, frames, v);
        return true;
#endif
    default: return false;
    }
}

void ff7_slot_rotations(const uint8_t *r, size_t stride, uint32_t frames, float *v)
{
#if FF7_HAVE_AVX
    if (cpu_has_avx()) {
        if (cpu_has_bmi2() && cpu_has_fma()) slot_rotations_fma(r, stride, frames, v);
        else if (cpu_has_bmi2()) slot_rotations_avx_bmi2(r, stride, frames, v);
        else slot_rotations_avx(r, stride, frames, v);
        return;
    }
#endif
    slot_rotations_short(r, stride, frames, v);
}
void ff7_slots_rotations(const uint8_t *r, size_t stride, uint32_t frames, uint32_t count, float *v)
{
#if FF7_HAVE_AVX
    if (cpu_has_avx() && cpu_has_bmi2() && cpu_has_fma()) {
        slots_rotations_fma(r, stride, frames, count, v);
        return;
    }
#endif
    for (uint32_t t = 0; t < count; t++)
        ff7_slot_rotations(r + (size_t)t * 6u, stride, frames, v + (size_t)t * frames * 4u);
}
#undef FF7_SLOT_LOOP

static int32_t circ_dist(int32_t a, int32_t b)
{
    int32_t d = (a - b) & 4095;
    return d > 2048 ? 4096 - d : d;
}

/* lround(u) for |u| < 2^30 (every finite angle here: |u| <= 8192 units), lround itself
 * beyond (NaN, infinities: not reached from a finite quaternion). Why the same: t, u cut
 * toward zero, fits int32; u - t is exact (|u| < 2^52, so t holds u's bits above the
 * binary point and the difference is u's bits below it), in [0, 1) for u >= 0 and (-1, 0]
 * below; lround rounds half away from zero, i.e. t + 1 when u - t >= 0.5, t - 1 when u - t
 * <= -0.5, else t. test_ff7_write_speed compares it with lround over every half and its
 * neighbours in range and random doubles. */
static inline long round_units(double u)
{
    if (!(fabs(u) < 0x1p30)) return lround(u);
    int32_t t = (int32_t)u;
    double f = u - (double)t;
    return (long)t + (f >= 0.5) - (f <= -0.5);
}

static GANIM_ALWAYS_INLINE uint16_t quantise(double angle, unsigned bkey)
{
    double units = angle * 4096.0 / FF7_TAU / (double)(1u << bkey);
    long q = round_units(units);
    return (uint16_t)(((uint32_t)q << bkey) & 0xFFFu);
}

/* ganim_quat_to_euler(q, GANIM_EULER_YXZ, e) in line: its order's axes Y, X, Z (1, 0, 2)
 * and parity -1 as constants in the one body (internal.h), the same doubles bit for bit
 * (test_ff7_write_speed compares them over tens of millions of quaternions). */
static inline void quat_to_yxz(ganim_quat q, double e[3]) { ganim_quat_to_euler_axes(q, 1, 0, 2, -1.0, e); }

long ff7_round_units(double u) { return round_units(u); }
void ff7_quat_yxz(ganim_quat q, double e[3]) { quat_to_yxz(q, e); }

/* ff7_quat_to_raw from the angles e (quat_to_yxz's) on */
static GANIM_ALWAYS_INLINE void angles_to_raw(const double e[3], unsigned bkey, const uint16_t *prev, uint16_t out[3])
{
    uint16_t a[3];
    for (int i = 0; i < 3; i++) a[i] = quantise(e[i], bkey);
    if (!prev) { /* the first frame: the first solution (the second is only compared) */
        memcpy(out, a, 3 * sizeof *out);
        return;
    }
    /* Ry(y)Rx(x)Rz(z) == Ry(y+pi)Rx(pi-x)Rz(z+pi): take the one nearer the previous frame,
     * so deltas stay small (the second only when strictly nearer). */
    int32_t d1 = circ_dist(a[1], prev[1]), d2 = circ_dist(a[2], prev[2]);
    int32_t da = circ_dist(a[0], prev[0]) + d1 + d2;
    /* The second solution is not formed when it cannot be nearer. Its y and z are a's plus
     * half a turn, give or take one step 2^bkey: b[1] quantises (e[1] + pi) 4096 / tau /
     * 2^bkey, which is e[1]'s units u plus 2048 / 2^bkey (an integer for bkey <= 11; pi is
     * tau / 2 exactly) but for the roundings of a few operations on values below 2^13, far
     * less than a unit, so its rounded value is round(u) + 2048 / 2^bkey + (-1, 0 or 1)
     * when e[1] is finite (a NaN quantises to 0 in both). The circular distance to prev is
     * then at least 2048 - d1 - 2^bkey (distance to a[1] + 2048 is 2048 - d1; the triangle
     * inequality), the same for z, and x's at least 0: db >= 4096 - 2^(bkey+1) - d1 - d2,
     * so where da is no more than that, db < da cannot hold and a is taken, as before. */
    if (bkey <= 11 && isfinite(e[1]) && isfinite(e[2]) && da <= 4096 - (2 << bkey) - d1 - d2) {
        memcpy(out, a, 3 * sizeof *out);
        return;
    }
    const double pi = FF7_TAU / 2;
    uint16_t b[3];
    b[0] = quantise(pi - e[0], bkey);
    b[1] = quantise(e[1] + pi, bkey);
    b[2] = quantise(e[2] + pi, bkey);
    int32_t db = 0;
    for (int i = 0; i < 3; i++) db += circ_dist(b[i], prev[i]);
    memcpy(out, db < da ? b : a, 3 * sizeof *out);
}

void ff7_angles_to_raw(const double e[3], unsigned bkey, const uint16_t *prev, uint16_t out[3])
{
    angles_to_raw(e, bkey, prev, out);
}

/* ff7_quat_to_raw (in line twice: bkey 0 known, and any) */
static GANIM_ALWAYS_INLINE void quat_to_raw(ganim_quat q, unsigned bkey, const uint16_t *prev, uint16_t out[3])
{
    double e[3];
    quat_to_yxz(q, e);
    angles_to_raw(e, bkey, prev, out);
}

void ff7_quat_to_raw(ganim_quat q, unsigned bkey, const uint16_t *prev, uint16_t out[3])
{
    if (bkey == 0) quat_to_raw(q, 0, prev, out);
    else quat_to_raw(q, bkey, prev, out);
}
