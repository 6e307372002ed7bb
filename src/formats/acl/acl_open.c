/* ACL compressed_tracks buffers, versions 7-10: the bounded parser. Every offset and
 * count is checked against the buffer before it is used, so that after a successful
 * ganim_acl_open sampling cannot fail and never reads outside the buffer. */
#include "formats/acl/acl_internal.h"
#include "io/writer.h"
#if ACL_HAVE_AVX2
#include <immintrin.h>
#endif

/* ---- parsing ------------------------------------------------------------------------ */

typedef struct acl_layout {
    uint32_t size;
    uint32_t seghdr, types, cdata, crange; /* absolute (relative to the buffer) */
    uint32_t e, hsz;
    uint32_t anim_rot_var, anim_trans_var, anim_scale_var; /* counts in the range data */
    uint32_t cdata_size;
} acl_layout;

#define FAIL(code, off, ...) ganim_fail(err, (code), base + (uint64_t)(off), __VA_ARGS__)

/* The default, constant and animated sub-tracks among the nt 2-bit types packed in the
 * words at `w` (16 a word, the first in the top bits; the bits past the last track
 * ignored) into c[0..2], a word at a time; returns the count of type 3 (invalid). */
static uint32_t type_counts(const uint8_t *w, uint32_t nt, uint32_t c[3])
{
    uint32_t n1 = 0, n2 = 0, n3 = 0;
    for (uint32_t i = 0; i < nt; i += 16u) {
        uint32_t v = ganim_ld_u32le(w + i / 4u);
        if (nt - i < 16u) v &= ~(ACL_NONE >> (2u * (nt - i)));
        uint32_t lo = v & 0x55555555u, hi = (v >> 1) & 0x55555555u;
        n1 += popcount32(lo & ~hi);
        n2 += popcount32(hi & ~lo);
        n3 += popcount32(lo & hi);
    }
    c[T_DEFAULT] = nt - n1 - n2 - n3;
    c[T_CONST] = n1;
    c[T_ANIM] = n2;
    return n3;
}

static ganim_code parse_header(ganim_acl *h, acl_layout *L, const uint8_t *data, size_t size, uint64_t base,
                               ganim_doc *wd, ganim_error *err)
{
    ganim_reader r = gr_init(data, size, base);
    uint32_t bsize = 0, tag = 0;
    if (size < 4) return FAIL(GANIM_ERR_TRUNCATED, 0, "acl: the buffer is %zu bytes, too short for its header", size);
    gr_u32le(&r, &bsize);
    if (bsize < ACL_MIN_SIZE)
        return FAIL(GANIM_ERR_CORRUPT, 0, "acl: header: buffer size %u is smaller than the %u-byte header", bsize,
                    ACL_MIN_SIZE);
    if (bsize > size)
        return FAIL(GANIM_ERR_TRUNCATED, size, "acl: header: the buffer announces %u bytes but only %zu are present",
                    bsize, size);
    if (wd && bsize < size)
        ganim_doc_warn(wd, GANIM_WARN_EXTRA_BYTES, base + bsize,
                       "acl: %zu bytes follow the %u-byte buffer and are ignored", size - bsize, bsize);
    L->size = bsize;
    h->size = bsize;
    gr_u32le(&r, &h->hash_stored);
    gr_u32le(&r, &tag);
    if (tag != GANIM_ACL_TAG)
        return FAIL(GANIM_ERR_CORRUPT, 8, "acl: header: tag 0x%08X is not 0xAC11AC11 (compressed_tracks)", tag);
    h->version = ganim_ld_u16le(data + 12);
    if (h->version < 7 || h->version > 10)
        return FAIL(GANIM_ERR_UNSUPPORTED, 12, "acl: header: format version %u is not one of 7-10 (ACL 2.0-2.1)",
                    h->version);
    if (data[14] != 0)
        return FAIL(GANIM_ERR_UNSUPPORTED, 14, "acl: header: algorithm %u is not 0 (uniformly sampled)", data[14]);
    if (data[15] != 12)
        return FAIL(GANIM_ERR_UNSUPPORTED, 15,
                    "acl: header: track type %u is not 12 (transforms); scalar tracks are not animations", data[15]);
    /* the hash is computed by the whole-clip decode, interleaved with it (acl_fnv); its
     * warning goes where it would have been put here */
    h->hash_warn_at = wd ? wd->warning_count : 0;
    h->nt = ganim_ld_u32le(data + 16);
    h->ns = ganim_ld_u32le(data + 20);
    h->rate = ganim_ld_f32le(data + 24);
    h->misc = ganim_ld_u32le(data + 28);
    uint32_t m = h->misc;
    h->has_scale = (int)(m & 1u);
    h->def_scale = (int)((m >> 1) & 1u);
    h->sfmt = (uint8_t)((m >> 2) & 1u);
    h->tfmt = (uint8_t)((m >> 3) & 1u);
    h->rfmt = (uint8_t)((m >> 4) & 15u);
    h->has_meta = (int)(m >> 31);
    h->raw_bits = h->version >= 9 ? 31 : 32;
    if (h->version >= 8) {
        h->trivial = (int)((m >> 9) & 1u);
        h->stripped = (int)((m >> 10) & 1u);
        h->wrap = (int)((m >> 30) & 1u);
    } else {
        h->trivial = 1;
        if (wd && (m & 0x40000600u))
            ganim_doc_warn(wd, GANIM_WARN_IGNORED, base + 28,
                           "acl: header: flags 0x%08X set bits that ACL 2.0 (version 7) does not use; ignored", m);
    }
    if ((m >> 8) & 1u)
        return FAIL(GANIM_ERR_UNSUPPORTED, 28,
                    "acl: header: the buffer keeps part of its key frames in a separate ACL database (flag bit 8), "
                    "which is not in this file");
    if (h->rfmt != 0 && h->rfmt != 2 && h->rfmt != 3)
        return FAIL(GANIM_ERR_CORRUPT, 28, "acl: header: rotation format %u is not 0, 2 or 3", h->rfmt);
    if (h->nt == 0) return FAIL(GANIM_ERR_CORRUPT, 16, "acl: header: the buffer has no tracks");
    if (h->ns == 0) return FAIL(GANIM_ERR_CORRUPT, 20, "acl: header: the buffer has no samples");
    if (!((double)h->rate >= GANIM_MIN_FPS && (double)h->rate <= GANIM_MAX_FPS)) /* also NaN */
        return FAIL(GANIM_ERR_CORRUPT, 24, "acl: header: sample rate %g is outside %g..%g samples per second",
                    (double)h->rate, GANIM_MIN_FPS, GANIM_MAX_FPS);
    /* the library's limits, before anything is sized or looped by the sample count */
    uint64_t frames = (uint64_t)h->ns + (uint64_t)h->wrap;
    if (frames > GANIM_MAX_FRAMES)
        return FAIL(GANIM_ERR_LIMIT, 20, "acl: header: %llu frames, above the library limit of %u frames per clip",
                    (unsigned long long)frames, GANIM_MAX_FRAMES);
    if (frames * h->nt > GANIM_MAX_FRAME_SAMPLES)
        return FAIL(GANIM_ERR_LIMIT, 16,
                    "acl: header: %u tracks x %llu frames, above the library limit of %u track samples per clip", h->nt,
                    (unsigned long long)frames, GANIM_MAX_FRAME_SAMPLES);

    const uint8_t *th = data + ACL_HDR;
    h->nseg = ganim_ld_u32le(th + 0);
    h->nv = ganim_ld_u32le(th + 4);
    for (unsigned k = 0; k < 3; k++) h->nanim[k] = ganim_ld_u32le(th + 8 + 4 * k);
    uint32_t nconst[3];
    for (unsigned k = 0; k < 3; k++) nconst[k] = ganim_ld_u32le(th + 20 + 4 * k);
    uint32_t db = ganim_ld_u32le(th + 32);
    if (db != ACL_NONE)
        return FAIL(GANIM_ERR_UNSUPPORTED, ACL_HDR + 32,
                    "acl: header: the buffer refers to an ACL database (offset 0x%X), which is not in this file", db);
    if (!h->has_scale && (h->nanim[2] || nconst[2]))
        return FAIL(GANIM_ERR_CORRUPT, ACL_HDR + 16,
                    "acl: header: scale sub-tracks are counted although the clip has no scale");

    L->hsz = h->stripped ? 20u : 16u;
    L->e = (h->nt + 15u) / 16u;
    uint32_t groups = h->has_scale ? 3u : 2u;
    uint64_t off;
    /* each offset is relative to the transform header and must leave room for its block */
    off = (uint64_t)ganim_ld_u32le(th + 36) + ACL_HDR;
    if (h->nseg == 0) return FAIL(GANIM_ERR_CORRUPT, ACL_HDR, "acl: header: the buffer has no segments");
    if (off > bsize || (uint64_t)h->nseg * L->hsz > bsize - off)
        return FAIL(GANIM_ERR_TRUNCATED, ACL_HDR + 36,
                    "acl: header: %u segment headers at 0x%llX do not fit in the %u-byte buffer", h->nseg,
                    (unsigned long long)off, bsize);
    L->seghdr = (uint32_t)off;
    if (h->nseg > 1 && (uint64_t)ACL_HDR + 52 + 4ull * (h->nseg + 1ull) > bsize)
        return FAIL(GANIM_ERR_TRUNCATED, ACL_HDR + 52,
                    "acl: header: the start indices of %u segments do not fit in the buffer", h->nseg);
    off = (uint64_t)ganim_ld_u32le(th + 40) + ACL_HDR;
    if (off > bsize || 4ull * L->e * groups > bsize - off)
        return FAIL(GANIM_ERR_TRUNCATED, ACL_HDR + 40,
                    "acl: header: the sub-track types of %u tracks at 0x%llX do not fit in the buffer", h->nt,
                    (unsigned long long)off);
    L->types = (uint32_t)off;
    /* count the types and check them against the header */
    for (unsigned k = 0; k < 3; k++) {
        uint32_t c[3] = { 0, 0, 0 };
        if (k < groups && type_counts(data + L->types + 4u * (size_t)k * L->e, h->nt, c)) {
            for (uint32_t i = 0; i < h->nt; i++) { /* a type 3: the first one, as the count would meet it */
                unsigned t = packed_type(data + L->types, L->e, k, i);
                if (t == 3)
                    return FAIL(GANIM_ERR_CORRUPT, L->types + 4u * (k * L->e + i / 16u),
                                "acl: track %u: %s sub-track type 3 is not default, constant or animated", i,
                                acl_kind_name(k));
            }
        } else if (k >= groups) {
            c[T_DEFAULT] = h->nt;
        }
        if (c[T_CONST] != nconst[k] || c[T_ANIM] != h->nanim[k])
            return FAIL(
                GANIM_ERR_CORRUPT, ACL_HDR + 8 + 4 * k,
                "acl: header: %u constant and %u animated %s sub-tracks announced, the type table holds %u and %u",
                nconst[k], h->nanim[k], acl_kind_name(k), c[T_CONST], c[T_ANIM]);
        for (unsigned t = 0; t < 3; t++) h->counts[k][t] = c[t];
    }
    int rvar = h->rfmt == 3, tvar = h->tfmt == 1, svar = h->sfmt == 1 && h->has_scale;
    L->anim_rot_var = rvar ? h->nanim[0] : 0;
    L->anim_trans_var = tvar ? h->nanim[1] : 0;
    L->anim_scale_var = svar ? h->nanim[2] : 0;
    uint64_t nv = (rvar ? align_up(h->nanim[0], 4) : 0) + (uint64_t)L->anim_trans_var + L->anim_scale_var;
    if (nv != h->nv)
        return FAIL(GANIM_ERR_CORRUPT, ACL_HDR + 4,
                    "acl: header: %u variable sub-tracks announced, the counts give %llu", h->nv,
                    (unsigned long long)nv);
    h->na = h->nanim[0] + h->nanim[1] + h->nanim[2];

    off = (uint64_t)ganim_ld_u32le(th + 44) + ACL_HDR;
    uint64_t csize = (uint64_t)nconst[0] * (h->rfmt == 0 ? 16u : 12u) + 12ull * nconst[1] + 12ull * nconst[2];
    if (off > bsize || csize > bsize - off)
        return FAIL(GANIM_ERR_TRUNCATED, ACL_HDR + 44,
                    "acl: header: %llu bytes of constant samples at 0x%llX do not fit in the buffer",
                    (unsigned long long)csize, (unsigned long long)off);
    L->cdata = (uint32_t)off;
    L->cdata_size = (uint32_t)csize;
    off = (uint64_t)ganim_ld_u32le(th + 48) + ACL_HDR;
    uint64_t rsize = 24ull * (L->anim_rot_var + (uint64_t)L->anim_trans_var + L->anim_scale_var);
    if (off > bsize || rsize > bsize - off)
        return FAIL(GANIM_ERR_TRUNCATED, ACL_HDR + 48,
                    "acl: header: %llu bytes of clip range data at 0x%llX do not fit in the buffer",
                    (unsigned long long)rsize, (unsigned long long)off);
    L->crange = (uint32_t)off;
    if ((uint64_t)h->nseg * h->na > bsize)
        return FAIL(GANIM_ERR_CORRUPT, ACL_HDR,
                    "acl: header: %u segments of %u animated sub-tracks cannot fit in %u bytes", h->nseg, h->na, bsize);
    if (h->has_meta && bsize < ACL_MIN_SIZE + 20u)
        return FAIL(GANIM_ERR_TRUNCATED, bsize, "acl: metadata: the buffer is too short for its metadata header");
    return GANIM_OK;
}

/* Clip range of animated sub-track `a` of `kind` (only for variable formats). */
static void clip_range(const ganim_acl *h, const acl_layout *L, unsigned kind, uint32_t a, float mn[3], float ex[3])
{
    const uint8_t *R = h->data + L->crange;
    if (kind == K_ROT) {
        uint32_t g = a / 4u, j = a % 4u, n = h->nanim[0] - 4u * g;
        if (n > 4) n = 4;
        const uint8_t *F = R + 96u * g;
        if (n == 4) { /* a full group (all but the last): fixed strides, the same floats */
            F += 4u * j;
            for (unsigned c = 0; c < 3; c++) {
                mn[c] = ganim_ld_f32le(F + 16u * c);
                ex[c] = ganim_ld_f32le(F + 48u + 16u * c);
            }
            return;
        }
        for (unsigned c = 0; c < 3; c++) {
            mn[c] = ganim_ld_f32le(F + 4u * (c * n + j));
            ex[c] = ganim_ld_f32le(F + 4u * ((3u + c) * n + j));
        }
        return;
    }
    const uint8_t *F = R + 24u * L->anim_rot_var + 24u * a;
    if (kind == K_SCALE) F += 24u * L->anim_trans_var;
    for (unsigned c = 0; c < 3; c++) {
        mn[c] = ganim_ld_f32le(F + 4u * c);
        ex[c] = ganim_ld_f32le(F + 12u + 4u * c);
    }
}

/* Where each kind's constant samples start: cd[0] the rotations (16 bytes each in format
 * 0, else x, y, z groups of four: 48 bytes a full group), cd[1] the translations, cd[2]
 * the scales (12 bytes each). */
static void const_bases(const ganim_acl *h, const acl_layout *L, const uint8_t *cd[3])
{
    cd[0] = h->data + L->cdata;
    cd[1] = cd[0] + (size_t)h->counts[0][T_CONST] * (h->rfmt == 0 ? 16u : 12u);
    cd[2] = cd[1] + 12u * (size_t)h->counts[1][T_CONST];
}

/* Constant sample c of `kind` from the bases of const_bases (a packed rotation with its W
 * rebuilt). acl_open_ex's first pass reads formats 0's rotations, the translations and the
 * scales straight from the same bases (a single reader for every kind measured 0.1-0.5 %
 * more instructions an open, 11 % on a one-frame clip: the kind tested again per value).
 * Out of line: inlined into the open's track loop it cost the read up to 0.16 %. */
GANIM_OUT_OF_LINE static void const_sample(const uint8_t *const cd[3], unsigned rfmt, uint32_t ncr, unsigned kind,
                                           uint32_t c, float v[4])
{
    if (kind == K_ROT && rfmt != 0) {
        uint32_t g = c / 4u, j = c % 4u, n = ncr - 4u * g;
        if (n > 4) n = 4;
        const uint8_t *F = cd[0] + 48u * (size_t)g;
        for (unsigned i = 0; i < 3; i++) v[i] = ganim_ld_f32le(F + 4u * (i * n + j));
        v[3] = rebuild_w(v[0], v[1], v[2]);
        return;
    }
    const uint8_t *F = cd[kind] + (kind == K_ROT ? 16u : 12u) * (size_t)c;
    v[0] = ganim_ld_f32le(F);
    v[1] = ganim_ld_f32le(F + 4);
    v[2] = ganim_ld_f32le(F + 8);
    if (kind == K_ROT) v[3] = ganim_ld_f32le(F + 12);
}

/* Whether the n floats at p are all in range (in_range: finite, |v| <= ACL_RANGE_MAX),
 * four at a time with SSE2 (false for NaN as in_range), the last 0-3 by in_range. */
static int all_in_range(const uint8_t *p, size_t n)
{
    int all = 1;
    size_t i = 0;
#if defined(__SSE2__)
    const __m128 sign = _mm_set1_ps(-0.0f), lim = _mm_set1_ps(ACL_RANGE_MAX);
    __m128 good = _mm_castsi128_ps(_mm_set1_epi32(-1));
    for (; i + 4u <= n; i += 4u)
        good = _mm_and_ps(
            good, _mm_cmple_ps(_mm_andnot_ps(sign, _mm_loadu_ps((const float *)(const void *)(p + 4u * i))), lim));
    all = _mm_movemask_ps(good) == 15;
#endif
    for (; i < n; i++) all &= in_range(ganim_ld_f32le(p + 4u * i));
    return all;
}

#if defined(__SSE2__)
/* The constant rotations c..c+3 (c a multiple of 4; fewer in the last group) of a clip
 * with ncr of them stored as x, y, z groups of four (formats 2 and 3, at D), each with
 * its W rebuilt (rebuild_w) then normalised (quat_normalise), into rq[0..3] (lanes past
 * the group: the identity): the scalar operations, one lane each. Returns whether every
 * value of the group before normalising, W included, is in range (in_range). */
/* The x, y and z of the group of constant rotations at c (const_rot4's loads: lanes past
 * the group 0); returns the group's count (1-4). */
static GANIM_ALWAYS_INLINE uint32_t rot4_load(const uint8_t *D, uint32_t ncr, uint32_t c, __m128 v[3])
{
    uint32_t n = ncr - c < 4u ? ncr - c : 4u;
    const uint8_t *F = D + 12u * (size_t)c; /* 48 bytes a full group */
    if (n == 4) {
        for (unsigned i = 0; i < 3; i++) v[i] = _mm_loadu_ps((const float *)(const void *)(F + 16u * i));
    } else {
        float l[3][4] = { { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 } };
        for (uint32_t j = 0; j < n; j++)
            for (unsigned i = 0; i < 3; i++) l[i][j] = ganim_ld_f32le(F + 4u * (i * n + j));
        for (unsigned i = 0; i < 3; i++) v[i] = _mm_loadu_ps(l[i]);
    }
    return n;
}

static GANIM_ALWAYS_INLINE int const_rot4(const uint8_t *D, uint32_t ncr, uint32_t c, float rq[4][4])
{
    __m128 v[3];
    uint32_t n = rot4_load(D, ncr, c, v);
    __m128 x = v[0], y = v[1], z = v[2];
    const __m128 sign = _mm_set1_ps(-0.0f), one = _mm_set1_ps(1.0f), lim = _mm_set1_ps(ACL_RANGE_MAX);
    __m128 xx = _mm_mul_ps(x, x), yy = _mm_mul_ps(y, y), zz = _mm_mul_ps(z, z);
    __m128 w = _mm_sqrt_ps(_mm_andnot_ps(sign, _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(one, xx), yy), zz)));
    __m128 in =
        _mm_and_ps(_mm_and_ps(_mm_cmple_ps(_mm_andnot_ps(sign, x), lim), _mm_cmple_ps(_mm_andnot_ps(sign, y), lim)),
                   _mm_and_ps(_mm_cmple_ps(_mm_andnot_ps(sign, z), lim), _mm_cmple_ps(_mm_andnot_ps(sign, w), lim)));
    unsigned lanes = (1u << n) - 1u;
    int ok = ((unsigned)_mm_movemask_ps(in) & lanes) == lanes;
    __m128 len2 = _mm_add_ps(_mm_add_ps(xx, zz), _mm_add_ps(yy, _mm_mul_ps(w, w)));
    __m128 good = _mm_and_ps(_mm_cmpge_ps(len2, _mm_set1_ps(1e-12f)), _mm_cmple_ps(len2, _mm_set1_ps(1e30f)));
    __m128 len = _mm_sqrt_ps(len2);
    x = _mm_and_ps(good, _mm_div_ps(x, len));
    y = _mm_and_ps(good, _mm_div_ps(y, len));
    z = _mm_and_ps(good, _mm_div_ps(z, len));
    w = _mm_or_ps(_mm_and_ps(good, _mm_div_ps(w, len)), _mm_andnot_ps(good, one));
    _MM_TRANSPOSE4_PS(x, y, z, w);
    _mm_storeu_ps(rq[0], x);
    _mm_storeu_ps(rq[1], y);
    _mm_storeu_ps(rq[2], z);
    _mm_storeu_ps(rq[3], w);
    return ok;
}
int acl_const_rot4(const uint8_t *D, uint32_t ncr, uint32_t c, float rq[4][4]) { return const_rot4(D, ncr, c, rq); }

#if ACL_HAVE_AVX2
/* const_rot4 on the groups at c and c + 4 together (c + 4 < ncr: the first group full,
 * the second of 1-4), in 256-bit vectors where the CPU has AVX2 (acl_cpu_avx2): the same
 * operations lane by lane (the comparisons the same predicates, _CMP_LE_OS and
 * _CMP_GE_OS as cmpleps and cmpgeps), half the square roots and divisions, which bound a
 * short clip's open (their units take one 128- or 256-bit vector at a time). */
__attribute__((target("avx2"))) static int const_rot8_avx2(const uint8_t *D, uint32_t ncr, uint32_t c, float rq[8][4])
{
    __m128 lo[3], hi[3];
    (void)rot4_load(D, ncr, c, lo);
    uint32_t n = rot4_load(D, ncr, c + 4u, hi);
    __m256 x = _mm256_insertf128_ps(_mm256_castps128_ps256(lo[0]), hi[0], 1);
    __m256 y = _mm256_insertf128_ps(_mm256_castps128_ps256(lo[1]), hi[1], 1);
    __m256 z = _mm256_insertf128_ps(_mm256_castps128_ps256(lo[2]), hi[2], 1);
    const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f), lim = _mm256_set1_ps(ACL_RANGE_MAX);
    __m256 xx = _mm256_mul_ps(x, x), yy = _mm256_mul_ps(y, y), zz = _mm256_mul_ps(z, z);
    __m256 w = _mm256_sqrt_ps(_mm256_andnot_ps(sign, _mm256_sub_ps(_mm256_sub_ps(_mm256_sub_ps(one, xx), yy), zz)));
    __m256 in = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(_mm256_andnot_ps(sign, x), lim, _CMP_LE_OS),
                                            _mm256_cmp_ps(_mm256_andnot_ps(sign, y), lim, _CMP_LE_OS)),
                              _mm256_and_ps(_mm256_cmp_ps(_mm256_andnot_ps(sign, z), lim, _CMP_LE_OS),
                                            _mm256_cmp_ps(_mm256_andnot_ps(sign, w), lim, _CMP_LE_OS)));
    unsigned lanes = 0xFu | (((1u << n) - 1u) << 4);
    int ok = ((unsigned)_mm256_movemask_ps(in) & lanes) == lanes;
    __m256 len2 = _mm256_add_ps(_mm256_add_ps(xx, zz), _mm256_add_ps(yy, _mm256_mul_ps(w, w)));
    __m256 good = _mm256_and_ps(_mm256_cmp_ps(len2, _mm256_set1_ps(1e-12f), _CMP_GE_OS),
                                _mm256_cmp_ps(len2, _mm256_set1_ps(1e30f), _CMP_LE_OS));
    __m256 len = _mm256_sqrt_ps(len2);
    x = _mm256_and_ps(good, _mm256_div_ps(x, len));
    y = _mm256_and_ps(good, _mm256_div_ps(y, len));
    z = _mm256_and_ps(good, _mm256_div_ps(z, len));
    w = _mm256_or_ps(_mm256_and_ps(good, _mm256_div_ps(w, len)), _mm256_andnot_ps(good, one));
    for (unsigned hf = 0; hf < 2; hf++) {
        __m128 a = hf ? _mm256_extractf128_ps(x, 1) : _mm256_castps256_ps128(x);
        __m128 b = hf ? _mm256_extractf128_ps(y, 1) : _mm256_castps256_ps128(y);
        __m128 d = hf ? _mm256_extractf128_ps(z, 1) : _mm256_castps256_ps128(z);
        __m128 e = hf ? _mm256_extractf128_ps(w, 1) : _mm256_castps256_ps128(w);
        _MM_TRANSPOSE4_PS(a, b, d, e);
        _mm_storeu_ps(rq[4u * hf], a);
        _mm_storeu_ps(rq[4u * hf + 1u], b);
        _mm_storeu_ps(rq[4u * hf + 2u], d);
        _mm_storeu_ps(rq[4u * hf + 3u], e);
    }
    return ok;
}
#endif

int acl_const_rot8(const uint8_t *D, uint32_t ncr, uint32_t c, float rq[8][4])
{
#if ACL_HAVE_AVX2
    if (acl_cpu_avx2()) return const_rot8_avx2(D, ncr, c, rq);
#endif
    int a = const_rot4(D, ncr, c, rq);
    return a & const_rot4(D, ncr, c + 4u, rq + 4);
}
#endif

static ganim_code parse_metadata(ganim_acl *h, const acl_layout *L, ganim_doc *wd, uint64_t base, ganim_error *err)
{
    const uint8_t *d = h->data;
    uint32_t sz = L->size, mh = sz - 20u;
    (void)err;
    for (unsigned i = 0; i < 5; i++) h->meta_off[i] = ganim_ld_u32le(d + mh + 4u * i);
    uint32_t o = h->meta_off[0];
    if (o != ACL_NONE) {
        const uint8_t *nul = o < mh ? memchr(d + o, 0, mh - o) : NULL;
        if (nul) h->list_name = (const char *)(d + o);
        else if (wd)
            ganim_doc_warn(wd, GANIM_WARN_IGNORED, base + mh,
                           "acl: metadata: the track list name at 0x%X is outside the buffer or unterminated; ignored",
                           o);
    }
    o = h->meta_off[1];
    if (o != ACL_NONE) {
        if (o < mh && (uint64_t)h->nt * 4u <= mh - o) {
            int ok = 1;
            for (uint32_t i = 0; i < h->nt && ok; i++) {
                uint64_t s = (uint64_t)o + ganim_ld_u32le(d + o + 4u * i);
                const uint8_t *nul = s < mh ? memchr(d + s, 0, mh - (size_t)s) : NULL;
                if (!nul) {
                    ok = 0;
                    if (wd)
                        ganim_doc_warn(wd, GANIM_WARN_IGNORED, base + o + 4u * i,
                                       "acl: metadata: the name of track %u is outside the buffer; track names ignored",
                                       i);
                } else {
                    h->names[i] = (const char *)(d + s);
                }
            }
            if (!ok) h->names = NULL;
        } else {
            h->names = NULL;
            if (wd)
                ganim_doc_warn(wd, GANIM_WARN_IGNORED, base + mh + 4,
                               "acl: metadata: the track name table at 0x%X does not fit in the buffer; ignored", o);
        }
    } else {
        h->names = NULL;
    }
    o = h->meta_off[2];
    if (o != ACL_NONE && o < mh && (uint64_t)h->nt * 4u <= mh - o) {
        for (uint32_t i = 0; i < h->nt; i++) {
            uint32_t p = ganim_ld_u32le(d + o + 4u * i);
            if (p == ACL_NONE) {
                h->parents[i] = -1;
            } else if (p >= i) {
                h->parents[i] = -1;
                if (wd)
                    ganim_doc_warn(
                        wd, GANIM_WARN_REPAIRED, base + o + 4u * i,
                        "acl: metadata: track %u names parent %u, which does not come before it; made a root", i, p);
            } else {
                h->parents[i] = (int32_t)p;
            }
        }
    } else {
        if (o != ACL_NONE && wd)
            ganim_doc_warn(wd, GANIM_WARN_IGNORED, base + mh + 8,
                           "acl: metadata: the parent table at 0x%X does not fit in the buffer; ignored", o);
        h->parents = NULL;
    }
    o = h->meta_off[3];
    if (o != ACL_NONE && o < mh && (uint64_t)h->nt * 48u <= mh - o) {
        for (uint32_t i = 0; i < h->nt; i++) {
            const uint8_t *p = d + o + 48u * i;
            float f[10];
            int ok = 1;
            for (unsigned c = 0; c < 10; c++) {
                f[c] = ganim_ld_f32le(p + 8 + 4u * c);
                ok &= in_range(f[c]);
            }
            ganim_transform t = acl_identity();
            if (ok) {
                float q[4] = { f[0], f[1], f[2], f[3] };
                if (quat_normalise(q) && wd)
                    ganim_doc_warn(wd, GANIM_WARN_REPAIRED, base + o + 48u * i + 8,
                                   "acl: metadata: track %u: the default rotation is degenerate; identity used", i);
                t.rotation = (ganim_quat){ q[0], q[1], q[2], q[3] };
                t.translation = (ganim_vec3){ f[4], f[5], f[6] };
                t.scale = (ganim_vec3){ f[7], f[8], f[9] };
            } else if (wd) {
                ganim_doc_warn(wd, GANIM_WARN_REPAIRED, base + o + 48u * i,
                               "acl: metadata: track %u: the default values are not finite; identity used", i);
            }
            h->bind[i] = t;
        }
    } else {
        if (o != ACL_NONE && wd)
            ganim_doc_warn(wd, GANIM_WARN_IGNORED, base + mh + 12,
                           "acl: metadata: the track descriptions at 0x%X do not fit in the buffer; ignored", o);
        h->bind = NULL;
    }
    return GANIM_OK;
}

/* Segment s's first sample and the first sample after it, as stored (one segment: the
 * whole clip): parse_segment checks them, has_short_segment reads them unchecked. */
static inline void seg_span(const ganim_acl *h, uint32_t s, uint32_t *start, uint32_t *next)
{
    const uint8_t *si = h->data + ACL_HDR + 52u;
    *start = h->nseg == 1 ? 0 : ganim_ld_u32le(si + 4u * s);
    *next = h->nseg == 1 || s + 1 == h->nseg ? h->ns : ganim_ld_u32le(si + 4u * (s + 1));
}

/* A stripped segment's kept-sample bits (sample i at bit 31 - i) for its count (<= 32) samples. */
static inline uint32_t seg_kept(const ganim_acl *h, const acl_layout *L, uint32_t s, uint32_t count)
{
    uint32_t mask = count == 32 ? ACL_NONE : ~(ACL_NONE >> count);
    return ganim_ld_u32le(h->data + L->seghdr + (size_t)s * L->hsz + 16u) & mask;
}

/* Zeroes *p (a record, a group: a multiple of 16 bytes) by 16-byte stores. gcc makes a
 * memset of these sizes a `rep stosq`, whose microcoded start-up costs more than the six
 * (a record) or seventeen (a group) stores on x86, and which callgrind counts as an
 * instruction per 8 bytes. */
#if defined(__SSE2__)
static inline void zero16n(void *p, size_t n)
{
    uint8_t *b = (uint8_t *)p;
    for (size_t i = 0; i < n; i += 16u) _mm_storeu_si128((__m128i *)(void *)(b + i), _mm_setzero_si128());
}
#define ACL_ZERO(p) zero16n((p), sizeof *(p))
_Static_assert(sizeof(acl_rec) % 16u == 0 && sizeof(acl_grp) % 16u == 0, "ACL_ZERO stores 16 bytes at a time");
#else
#define ACL_ZERO(p) memset((p), 0, sizeof *(p))
#endif

/* 1 / (2^nb - 1), a variable sub-track's step, for nb = 1..23 (entry 0 unused): the float
 * division 1.0f / (float)(2^nb - 1) done once by the compiler instead of per record by
 * parse_segment (test_acl's width_reciprocals_equal_the_division checks every entry
 * against the division at run time, bit for bit). */
#define ACL_INV(n) (1.0f / (float)((1u << (n)) - 1u))
const float acl_inv_width[24] = { 0.0f,        ACL_INV(1),  ACL_INV(2),  ACL_INV(3),  ACL_INV(4),  ACL_INV(5),
                                  ACL_INV(6),  ACL_INV(7),  ACL_INV(8),  ACL_INV(9),  ACL_INV(10), ACL_INV(11),
                                  ACL_INV(12), ACL_INV(13), ACL_INV(14), ACL_INV(15), ACL_INV(16), ACL_INV(17),
                                  ACL_INV(18), ACL_INV(19), ACL_INV(20), ACL_INV(21), ACL_INV(22), ACL_INV(23) };
#undef ACL_INV

/* Records of segment s (bit offsets, ranges, constant-in-segment values) and its bounds. */
static ganim_code parse_segment(ganim_acl *h, const acl_layout *L, uint32_t s, const uint32_t *anim_track,
                                uint64_t base, ganim_error *err)
{
    const uint8_t *d = h->data;
    uint32_t sz = L->size, ho = L->seghdr + s * L->hsz;
    acl_seg *sg = &h->segs[s];
    uint32_t hb[4];
    for (unsigned i = 0; i < 4; i++) hb[i] = ganim_ld_u32le(d + ho + 4u * i);
    sg->pose_bits = hb[0];
    uint32_t next;
    seg_span(h, s, &sg->start, &next);
    if (h->nseg > 1 && ((s == 0 && sg->start != 0) || sg->start >= h->ns || next <= sg->start || next > h->ns))
        return FAIL(GANIM_ERR_CORRUPT, ACL_HDR + 52u + 4u * s,
                    "acl: segment %u: start sample %u is out of order or beyond the %u samples", s, sg->start, h->ns);
    sg->count = next - sg->start;
    if (h->stripped) {
        if (sg->count > 32)
            return FAIL(GANIM_ERR_CORRUPT, ho,
                        "acl: segment %u: %u samples, more than the 32 a stripped segment can describe", s, sg->count);
        sg->kept = seg_kept(h, L, s, sg->count);
        sg->stored = popcount32(sg->kept);
    } else {
        sg->kept = ACL_NONE;
        sg->stored = sg->count;
    }
    uint64_t fmt = (uint64_t)hb[3] + ACL_HDR;
    if (fmt > sz || h->nv > sz - fmt)
        return FAIL(GANIM_ERR_TRUNCATED, ho + 12, "acl: segment %u: its data at 0x%llX lies outside the %u-byte buffer",
                    s, (unsigned long long)fmt, sz);
    uint64_t rng = fmt + h->nv, ani = rng;
    int multi = h->nseg > 1;
    if (multi) {
        rng = (rng + 1u) & ~1ull;
        ani = rng + 6ull * h->nv;
    }
    ani = (ani + 3u) & ~3ull;
    uint64_t bits = (uint64_t)sg->pose_bits * sg->stored;
    if (ani > sz || (bits + 7u) / 8u > sz - ani)
        return FAIL(GANIM_ERR_TRUNCATED, ani < sz ? ani : sz,
                    "acl: segment %u: %u samples of %u bits do not fit in the buffer", s, sg->stored, sg->pose_bits);
    sg->ani = d + ani;
    sg->ani_room = sz - (size_t)ani;
    sg->recs = h->recs + (size_t)s * h->na;

    uint32_t bitpos = 0, kind_bits[3] = { 0, 0, 0 };
    uint32_t rot4 = h->rfmt == 3 ? align_up(h->nanim[0], 4) : 0;
    uint32_t fbase[3] = { 0, rot4, rot4 + (h->tfmt == 1 ? h->nanim[1] : 0) };
    uint32_t rbase[3] = { 0, 6u * rot4, 6u * (rot4 + (h->tfmt == 1 ? h->nanim[1] : 0)) };
    uint32_t idx = 0;
    acl_fnv fnv = h->fnv; /* a copy in registers: the hash's chain steps beside each record's work */
    for (unsigned k = 0; k < 3; k++) {
        int var = k == K_ROT ? h->rfmt == 3 : k == K_TRANS ? h->tfmt == 1 : h->sfmt == 1;
        for (uint32_t a = 0; a < h->nanim[k]; a++, idx++) {
            if (fnv.left) acl_fnv_some(&fnv);
            acl_rec *r = &sg->recs[idx];
            ACL_ZERO(r);
            r->track = anim_track[idx];
            r->kind = (uint8_t)k;
            r->bit = bitpos;
            if (!var) {
                r->mode = k == K_ROT && h->rfmt == 0 ? M_FULL4 : M_RAW;
                r->nb = 32;
                kind_bits[k] += r->mode == M_FULL4 ? 128u : 96u;
                bitpos += r->mode == M_FULL4 ? 128u : 96u;
                continue;
            }
            uint32_t fo = (uint32_t)fmt + fbase[k] + a;
            unsigned nb = d[fo];
            h->hist[nb <= 32 ? nb : 32]++;
            if (nb == h->raw_bits) {
                r->mode = M_RAW;
                r->nb = 32;
                kind_bits[k] += 96;
                bitpos += 96;
                continue;
            }
            if (nb > 23)
                return FAIL(GANIM_ERR_CORRUPT, fo,
                            "acl: segment %u: %s sub-track of track %u has bit width %u (valid: 0-23, raw %u)", s,
                            acl_kind_name(k), r->track, nb, h->raw_bits);
            float cmn[3], cex[3];
            clip_range(h, L, k, a, cmn, cex);
            /* segment range entry (present only when the clip has several segments) */
            const uint8_t *sr = multi ? d + rng + rbase[k] + (k == K_ROT ? 24u * (a / 4u) : 6u * a) : NULL;
            uint32_t j = a % 4u;
            if (nb == 0) {
                if (!multi)
                    return FAIL(GANIM_ERR_CORRUPT, fo,
                                "acl: segment %u: %s sub-track of track %u has bit width 0 in a single-segment clip", s,
                                acl_kind_name(k), r->track);
                uint32_t u[3];
                for (unsigned c = 0; c < 3; c++)
                    u[c] = k == K_ROT ? ((uint32_t)sr[8u * c + j] << 8) | sr[8u * c + 4u + j]
                                      : ganim_ld_u16le(sr + 2u * c);
                r->mode = M_CONST;
                for (unsigned c = 0; c < 3; c++) {
                    float v = (float)u[c] * (1.0f / 65535.0f);
                    v = v * cex[c];
                    r->v[c] = v + cmn[c];
                }
                if (k == K_ROT) {
                    r->v[3] = rebuild_w(r->v[0], r->v[1], r->v[2]);
                    quat_normalise(r->v);
                } else if (k == K_SCALE) {
                    r->v[3] = 0.0f;
                }
                continue;
            }
            r->mode = M_VAR;
            r->nb = (uint8_t)nb;
            r->inv = acl_inv_width[nb]; /* 1 <= nb <= 23 here */
            r->segrange = (uint8_t)multi;
            for (unsigned c = 0; c < 3; c++) {
                r->cmin[c] = cmn[c];
                r->cext[c] = cex[c];
            }
            if (multi) {
                /* the segment range's bytes / 255, each as (float)byte * (1.0f / 255.0f) (lane 3: 0) */
                uint32_t mn[3], ex[3];
                for (unsigned c = 0; c < 3; c++) {
                    mn[c] = k == K_ROT ? sr[4u * c + j] : sr[c];
                    ex[c] = k == K_ROT ? sr[12u + 4u * c + j] : sr[3u + c];
                }
#if defined(__SSE2__)
                __m128 q = _mm_set1_ps(1.0f / 255.0f);
                _mm_storeu_ps(r->smin,
                              _mm_mul_ps(_mm_cvtepi32_ps(_mm_setr_epi32((int)mn[0], (int)mn[1], (int)mn[2], 0)), q));
                _mm_storeu_ps(r->sext,
                              _mm_mul_ps(_mm_cvtepi32_ps(_mm_setr_epi32((int)ex[0], (int)ex[1], (int)ex[2], 0)), q));
#else
                for (unsigned c = 0; c < 3; c++) {
                    r->smin[c] = (float)mn[c] * (1.0f / 255.0f);
                    r->sext[c] = (float)ex[c] * (1.0f / 255.0f);
                }
#endif
            }
            kind_bits[k] += 3u * nb;
            bitpos += 3u * nb;
        }
    }
    if (hb[1] != kind_bits[0] || hb[2] != kind_bits[1] ||
        (uint64_t)hb[0] != (uint64_t)kind_bits[0] + kind_bits[1] + kind_bits[2])
        return FAIL(GANIM_ERR_CORRUPT, ho,
                    "acl: segment %u: header bit sizes %u/%u/%u (pose/rotation/translation) disagree with the "
                    "sub-track widths (%u/%u/%u)",
                    s, hb[0], hb[1], hb[2], kind_bits[0] + kind_bits[1] + kind_bits[2], kind_bits[0], kind_bits[1]);
    h->fnv = fnv;
    return GANIM_OK;
}

#if defined(__SSE2__)
/* Segment s's random-access groups (acl_grp) from its records: per kind, the records
 * sorted by how they are stored (stable), cut into runs of at most four of one way. */
static void build_groups(ganim_acl *h, uint32_t s)
{
    acl_seg *sg = &h->segs[s];
    acl_grp *g = sg->grps, *end = sg->grps + h->ngrp;
    static const uint8_t order[4] = { M_VAR, M_RAW, M_CONST, M_FULL4 };
    uint32_t idx = 0;
    for (unsigned k = 0; k < 3; k++) {
        unsigned modes = 0; /* the ways this kind's records are stored: a scan for each of those only */
        for (uint32_t a = idx; a < idx + h->nanim[k]; a++) modes |= 1u << sg->recs[a].mode;
        for (unsigned m = 0; m < 4; m++) {
            uint32_t lane[4], n = 0;
            if (!(modes & (1u << order[m]))) continue;
            for (uint32_t a = idx; a <= idx + h->nanim[k]; a++) {
                if (a < idx + h->nanim[k] && sg->recs[a].mode == order[m]) lane[n++] = a;
                if (!n || (n < 4 && a < idx + h->nanim[k])) continue;
                ACL_ZERO(g);
                g->n = (uint8_t)n;
                g->kind = (uint8_t)k;
                int shifted = (sg->pose_bits & 7u) != 0;
                for (uint32_t j = 0; j < 4; j++) {
                    const acl_rec *r = &sg->recs[lane[j < n ? j : 0]];
                    g->rec[j] = lane[j < n ? j : 0];
                    g->bit[j] = r->bit;
                    g->track[j] = r->track;
                    g->segrange |= r->segrange;
                    shifted |= (r->bit & 7u) != 0;
                    uint32_t last = r->bit + 64u; /* raw: acl_raw16's 16 bytes */
                    if (r->mode == M_VAR) {
                        g->inv[j] = r->inv;
                        g->nb[j] = r->nb;
                        last = r->bit + (r->nb > 19 ? 2u * r->nb : 0u);
                        for (unsigned c = 0; c < 3; c++) {
                            g->smin[c][j] = r->segrange ? r->smin[c] : 0.0f;
                            g->sext[c][j] = r->segrange ? r->sext[c] : 1.0f;
                            g->cmin[c][j] = r->cmin[c];
                            g->cext[c][j] = r->cext[c];
                        }
                    }
                    if (last > g->last) g->last = last;
                }
                /* raw lanes always byte-aligned cost one plain load each one record at a time, and a
                 * lone sub-track costs less alone than as four lanes */
                g->raw4 = (uint8_t)(order[m] == M_RAW && shifted);
                g->soa = (uint8_t)(n > 1 && (order[m] == M_VAR || g->raw4));
                g++;
                n = 0;
            }
        }
        idx += h->nanim[k];
    }
    sg->ngrp = (uint32_t)(g - sg->grps);
    /* unused: read only as another segment's groups (pose_at's gb, i < that segment's ngrp) */
    if (h->nseg > 1)
        for (; g < end; g++) ACL_ZERO(g);
}
#endif

#if defined(__SSE2__)
/* Four records' x, y, z of one field (16 bytes a record: the vectors of acl_rec) into a
 * group's [component][lane] rows, by one transpose (lane 3 of each record dropped). */
static inline void grp_rows(float rows[3][4], __m128 a, __m128 b, __m128 c, __m128 d)
{
    _MM_TRANSPOSE4_PS(a, b, c, d);
    _mm_storeu_ps(rows[0], a);
    _mm_storeu_ps(rows[1], b);
    _mm_storeu_ps(rows[2], c);
}

/* One group g of the n (1-4) records recs[lane[0..n-1]] of kind k, all stored as `mode`
 * (lanes past n repeat lane 0): build_groups' fields, the same bytes, with each of the
 * four rows of ranges written by one transpose instead of twelve stores a lane. */
static GANIM_ALWAYS_INLINE void fill_group(acl_grp *g, const acl_rec *recs, const uint32_t lane[4], uint32_t n,
                                           unsigned k, unsigned mode, uint32_t pose_bits)
{
    const acl_rec *r[4];
    uint32_t bits = pose_bits, last = 0;
    unsigned seg = 0;
    ACL_ZERO(g);
    g->n = (uint8_t)n;
    g->kind = (uint8_t)k;
    for (uint32_t j = 0; j < 4; j++) {
        uint32_t a = lane[j < n ? j : 0];
        r[j] = &recs[a];
        g->rec[j] = a;
        g->bit[j] = r[j]->bit;
        g->track[j] = r[j]->track;
        seg |= r[j]->segrange;
        bits |= r[j]->bit;
        uint32_t l = r[j]->bit + 64u; /* raw: acl_raw16's 16 bytes */
        if (mode == M_VAR) {
            g->inv[j] = r[j]->inv;
            g->nb[j] = r[j]->nb;
            l = r[j]->bit + (r[j]->nb > 19 ? 2u * r[j]->nb : 0u);
        }
        if (l > last) last = l;
    }
    g->last = last;
    g->segrange = (uint8_t)seg;
    if (mode == M_VAR) {
        if (!seg) { /* no lane with a segment range (a clip of one segment): 0 and 1 */
            const __m128 one = _mm_set1_ps(1.0f);
            _mm_storeu_ps(g->sext[0], one);
            _mm_storeu_ps(g->sext[1], one);
            _mm_storeu_ps(g->sext[2], one);
        } else {
            __m128 sm[4], se[4];
            for (uint32_t j = 0; j < 4; j++) { /* a lane without one: 0 and 1 (the record's stay 0) */
                sm[j] = r[j]->segrange ? _mm_loadu_ps(r[j]->smin) : _mm_setzero_ps();
                se[j] = r[j]->segrange ? _mm_loadu_ps(r[j]->sext) : _mm_set1_ps(1.0f);
            }
            grp_rows(g->smin, sm[0], sm[1], sm[2], sm[3]);
            grp_rows(g->sext, se[0], se[1], se[2], se[3]);
        }
        grp_rows(g->cmin, _mm_loadu_ps(r[0]->cmin), _mm_loadu_ps(r[1]->cmin), _mm_loadu_ps(r[2]->cmin),
                 _mm_loadu_ps(r[3]->cmin));
        grp_rows(g->cext, _mm_loadu_ps(r[0]->cext), _mm_loadu_ps(r[1]->cext), _mm_loadu_ps(r[2]->cext),
                 _mm_loadu_ps(r[3]->cext));
    }
    g->raw4 = (uint8_t)(mode == M_RAW && (bits & 7u) != 0);
    g->soa = (uint8_t)(n > 1 && (mode == M_VAR || g->raw4));
}

/* build_groups' groups, the same bytes (test_acl's groups_match_the_general_build compares
 * them): a kind whose records are all stored one way (the common case: every sub-track of
 * a variable format at some width) is cut into runs of four in record order without the
 * lane scan (the stable sort of one way is the identity), and every group is filled by
 * fill_group. A kind stored several ways keeps build_groups' scan for its lanes. */
static void build_groups_fast(ganim_acl *h, uint32_t s)
{
    acl_seg *sg = &h->segs[s];
    acl_grp *g = sg->grps, *end = sg->grps + h->ngrp;
    static const uint8_t order[4] = { M_VAR, M_RAW, M_CONST, M_FULL4 };
    const acl_rec *recs = sg->recs;
    uint32_t idx = 0;
    for (unsigned k = 0; k < 3; k++) {
        const uint32_t na = h->nanim[k], stop = idx + na;
        unsigned modes = 0;
        for (uint32_t a = idx; a < stop; a++) modes |= 1u << recs[a].mode;
        if (modes && !(modes & (modes - 1u))) { /* one way */
            unsigned mode = recs[idx].mode;
            for (uint32_t a = idx; a < stop; a += 4u) {
                uint32_t n = stop - a < 4u ? stop - a : 4u;
                const uint32_t lane[4] = { a, a + 1u, a + 2u, a + 3u };
                fill_group(g++, recs, lane, n, k, mode, sg->pose_bits);
            }
        } else {
            for (unsigned m = 0; m < 4; m++) {
                uint32_t lane[4], n = 0;
                if (!(modes & (1u << order[m]))) continue;
                for (uint32_t a = idx; a <= stop; a++) {
                    if (a < stop && recs[a].mode == order[m]) lane[n++] = a;
                    if (!n || (n < 4 && a < stop)) continue;
                    fill_group(g++, recs, lane, n, k, order[m], sg->pose_bits);
                    n = 0;
                }
            }
        }
        idx = stop;
    }
    sg->ngrp = (uint32_t)(g - sg->grps);
    if (h->nseg > 1)
        for (; g < end; g++) ACL_ZERO(g);
}
#endif

#if defined(__SSE2__)
/* Whether a segment has ACL_CLIP_SHORT stored samples or fewer (ganim_acl_decode_clip
 * then decodes it a pose at a time, through the groups), from the counts parse_segment
 * will check: before the allocation, on the bytes parse_header proved in bounds (segment
 * headers, start indices). Wrong counts of a damaged buffer only size the block: the
 * parse refuses them. */
static int has_short_segment(const ganim_acl *h, const acl_layout *L)
{
    for (uint32_t s = 0; s < h->nseg; s++) {
        uint32_t start, next;
        seg_span(h, s, &start, &next);
        uint32_t count = next - start, stored = count;
        if (h->stripped && count <= 32) stored = popcount32(seg_kept(h, L, s, count));
        if (stored <= ACL_CLIP_SHORT) return 1;
    }
    return 0;
}
#endif

/* static_pose normalises up to this many constant rotations before placing them */
#define ACL_PRE_ROT 64u

#if defined(__SSE2__)
/* Constant rotation c (formats 2 and 3), x y z w: pre's row when static_pose normalised
 * them all first, else from rq, the group of four holding it, normalised at its first
 * (acl_const_rot4); NULL when that group is not in range. */
static GANIM_ALWAYS_INLINE const float *const_rot_row(const float (*pre)[4], const uint8_t *ck, uint32_t ncr,
                                                      uint32_t c, float rq[4][4])
{
    if (pre) return pre[c];
    if (!(c & 3u) && !acl_const_rot4(ck, ncr, c, rq)) return NULL;
    return rq[c & 3u];
}
#endif

/* The count of leading zero bits of v (v != 0). */
static inline unsigned lead_zeros(uint32_t v)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_clz(v);
#else
    unsigned n = 0;
    for (; !(v & 0x80000000u); v <<= 1) n++;
    return n;
#endif
}

/* The constants that follow, when the next track is one (m: static_kind's constant bits,
 * the track just taken shifted out, its next pair at the top): r, the leading ones of the
 * word with every pair's high bit set, halved; m shifted past them. */
static GANIM_ALWAYS_INLINE uint32_t const_run(uint32_t *m)
{
    uint32_t ones = ~(*m | 0xAAAAAAAAu), r = ones ? lead_zeros(ones) >> 1 : 16u;
    *m = r < 16u ? *m << (2u * r) : 0u;
    return r;
}

/* static_pose's sub-tracks of kind k (a constant at each call: the kind's tests fold),
 * whose type words start at `words`: each constant track's type and value and each
 * animated track's type and slot in anim_track (from ai), in track order. A word's
 * tracks of one type are found by one bit of their pairs (constant, 1: the low bit
 * alone; animated, 2: the high bit alone) from the top (lead_zeros), the word shifted
 * past each; a constant whose next track is constant too takes the rest of that run at
 * once (r tracks: the leading ones of the word with every pair's high bit set, halved),
 * the translations' and scales' bytes read at a running pointer; pre (not NULL):
 * every constant rotation normalised already, in order (static_pose). Returns 0 when a
 * constant rotation is not in range. */
static GANIM_ALWAYS_INLINE int static_kind(ganim_acl *h, const uint8_t *words, uint32_t e, unsigned k,
                                           const uint8_t *const cd[3], uint32_t *anim_track, uint32_t ai,
                                           const float (*pre)[4])
{
    const uint32_t nt = h->nt, ncr = h->counts[0][T_CONST];
    const unsigned rfmt = h->rfmt;
    ganim_transform *const pose = h->pose;
    uint8_t *const types = h->types + k;
#if defined(__SSE2__)
    float rq[4][4]; /* the current group of four constant rotations, normalised */
#else
    (void)pre; /* (static_pose's rotations normalised first: SSE2 only) */
#endif
    uint32_t c = 0;                     /* the kind's next constant */
    const int anim = h->nanim[k] != 0u; /* the kind has animated sub-tracks */
    const uint8_t *const ck = cd[k];
    const uint8_t *F = ck; /* translations and scales: the kind's next constant's bytes */
    for (uint32_t w = 0; w < e; w++) {
        uint32_t v = ganim_ld_u32le(words + 4u * w), left = nt - 16u * w;
        uint32_t m = v & ~(v >> 1) & 0x55555555u;              /* type 1: a pair's low bit alone */
        uint32_t am = anim ? (v >> 1) & ~v & 0x55555555u : 0u; /* type 2: its high bit alone */
        if (left < 16u) {
            m &= ~(ACL_NONE >> (2u * left));
            am &= ~(ACL_NONE >> (2u * left));
        }
        for (uint32_t i = 16u * w; am; i++) {
            unsigned z = lead_zeros(am);
            i += z >> 1;
            am = (am << z) << 1;
            types[3u * i] = T_ANIM;
            anim_track[ai++] = i;
        }
        for (uint32_t i = 16u * w; m; i++) {
            unsigned z = lead_zeros(m); /* 1 + 2 x (tracks to the next constant) */
            i += z >> 1;
            m = (m << z) << 1;
            types[3u * i] = T_CONST;
            if (k == K_TRANS || k == K_SCALE) { /* (F in a local: the type stores alias nothing) */
                ganim_vec3 *o = k == K_TRANS ? &pose[i].translation : &pose[i].scale;
                *o = (ganim_vec3){ ganim_ld_f32le(F), ganim_ld_f32le(F + 4), ganim_ld_f32le(F + 8) };
                F += 12;
                if (m & 0x40000000u) { /* the next track constant too: the run's r tracks at once */
                    uint32_t r = const_run(&m);
                    uint8_t *ty = types + 3u * (size_t)i;
                    ganim_transform *tr = pose + i;
                    for (uint32_t j = 0; j < r; j++, F += 12) {
                        ty += 3;
                        tr++;
                        *ty = T_CONST;
                        o = k == K_TRANS ? &tr->translation : &tr->scale;
                        *o = (ganim_vec3){ ganim_ld_f32le(F), ganim_ld_f32le(F + 4), ganim_ld_f32le(F + 8) };
                    }
                    i += r;
                }
                continue;
            }
            float q[4];
#if defined(__SSE2__)
            if (rfmt != 0) {
                const float *row = const_rot_row(pre, ck, ncr, c, rq);
                if (!row) return 0;
                memcpy(&pose[i].rotation, row, 4 * sizeof *row); /* x y z w, 16 bytes */
                c++;
                if (m & 0x40000000u) { /* the next track constant too: the run's r tracks at once */
                    uint32_t r = const_run(&m);
                    uint8_t *ty = types + 3u * (size_t)i;
                    ganim_transform *tr = pose + i;
                    for (uint32_t end = c + r; c < end; c++) {
                        ty += 3;
                        tr++;
                        *ty = T_CONST;
                        if (!(row = const_rot_row(pre, ck, ncr, c, rq))) return 0;
                        memcpy(&tr->rotation, row, 4 * sizeof *row);
                    }
                    i += r;
                }
                continue;
            }
#endif
            if (rfmt == 0) {
                for (unsigned j = 0; j < 4; j++) q[j] = ganim_ld_f32le(cd[0] + 16u * (size_t)c + 4u * j);
            } else {
                const_sample(cd, rfmt, ncr, K_ROT, c, q);
                if (!(in_range(q[0]) & in_range(q[1]) & in_range(q[2]) & in_range(q[3]))) return 0;
            }
            quat_normalise(q);
            pose[i].rotation = (ganim_quat){ q[0], q[1], q[2], q[3] };
            c++;
        }
    }
    return 1;
}

/* The pose, the types and the animated tracks' list by kind instead of acl_open_ex's
 * loop over the tracks. First made for a clip without animated sub-tracks (na 0: every
 * sub-track default or constant, as ACL stores a clip of one sample and any clip in
 * which nothing moves: no records, groups or segment data to read after it), it serves
 * every clip but for the whole-clip read's (whose loop carries the hash beside its
 * work). Every track gets its defaults, then each kind's constants are written at the
 * tracks whose type is constant and its animated tracks listed (static_kind), in track
 * order as that loop meets them, by the same operations on the same values (the
 * rotations of formats 2 and 3 four at a time with SSE2, as the loop's first pass, or
 * eight with AVX2: the same operations lane by lane).
 * ts_in: the constant translations and scales are all in range. Returns 0 when a
 * constant is not in range, having written part of the pose: the loop then starts over
 * and names the first bad one. The hash is left to the whole-clip read (every byte once,
 * in order, wherever it is taken). */
GANIM_OUT_OF_LINE static int static_pose(ganim_acl *h, const acl_layout *L, const ganim_transform *defaults,
                                         const uint8_t *const cd[3], int ts_in, uint32_t *anim_track)
{
    const uint32_t nt = h->nt, e = L->e;
    ganim_transform *const pose = h->pose;
    if (!ts_in || (h->rfmt == 0 && !all_in_range(cd[0], 4u * (size_t)h->counts[0][T_CONST]))) return 0;
    if (defaults) {
        if (defaults != pose) memcpy(pose, defaults, nt * sizeof *pose);
    } else {
        ganim_transform t = acl_identity();
        float ds = h->def_scale ? 1.0f : 0.0f;
        t.scale = (ganim_vec3){ ds, ds, ds };
        for (uint32_t i = 0; i < nt; i++) pose[i] = t;
    }
    memset(h->types, T_DEFAULT, 3u * (size_t)nt);
    const uint8_t *words = h->data + L->types;
    const uint32_t na0 = h->nanim[0], na01 = h->nanim[0] + h->nanim[1];
#if defined(__SSE2__)
    /* up to ACL_PRE_ROT constant rotations (formats 2 and 3): all normalised first, in one
     * loop whose groups' square roots and divisions overlap (two groups a step in 256-bit
     * vectors where the CPU has AVX2), then copied to their tracks; more of them: each
     * group at its first track (static_kind) */
    float rows[ACL_PRE_ROT][4];
    const uint32_t ncr = h->counts[0][T_CONST];
    if (h->rfmt != 0 && ncr && ncr <= ACL_PRE_ROT) {
        int in = 1;
        uint32_t c = 0;
#if ACL_HAVE_AVX2
        if (ncr > 4u && acl_cpu_avx2())
            for (; c + 4u < ncr; c += 8u) in &= const_rot8_avx2(cd[0], ncr, c, &rows[c]);
#endif
        for (; c < ncr; c += 4u) in &= const_rot4(cd[0], ncr, c, &rows[c]);
        if (!in || !static_kind(h, words, e, K_ROT, cd, anim_track, 0, (const float(*)[4])rows)) return 0;
    } else if (!static_kind(h, words, e, K_ROT, cd, anim_track, 0, NULL)) {
        return 0;
    }
#else
    if (!static_kind(h, words, e, K_ROT, cd, anim_track, 0, NULL)) return 0;
#endif
    static_kind(h, words + 4u * (size_t)e, e, K_TRANS, cd, anim_track, na0, NULL);
    if (h->has_scale) static_kind(h, words + 8u * (size_t)e, e, K_SCALE, cd, anim_track, na01, NULL);
    return 1;
}

ganim_code ganim_acl_open(const uint8_t *data, size_t size, uint64_t base, const ganim_allocator *alloc,
                          const ganim_skeleton *bind, ganim_doc *wd, ganim_acl **out, ganim_error *err)
{
    return acl_open_ex(data, size, base, alloc, bind, wd, ACL_OPEN_GROUPS, out, err);
}

ganim_code ganim_acl_open_clip(const uint8_t *data, size_t size, uint64_t base, const ganim_allocator *alloc,
                               const ganim_skeleton *bind, ganim_doc *wd, ganim_acl **out, ganim_error *err)
{
    return acl_open_ex(data, size, base, alloc, bind, wd, ACL_OPEN_CLIP, out, err);
}

ganim_code acl_open_ex(const uint8_t *data, size_t size, uint64_t base, const ganim_allocator *alloc,
                       const ganim_skeleton *bind, ganim_doc *wd, unsigned flags, ganim_acl **out, ganim_error *err)
{
    ganim_acl hdr;
    acl_layout L;
    memset(&hdr, 0, sizeof hdr);
    memset(&L, 0, sizeof L);
    *out = NULL;
    hdr.data = data;
    hdr.base = base;
    ganim_code rc = parse_header(&hdr, &L, data, size, base, wd, err);
    if (rc) return rc;

    /* one block: struct, types, pose, segments, records, keys, names, parents, bind, anim list,
     * groups */
    size_t nt = hdr.nt, o = 0, sizes[10], offs[10];
    size_t keys = hdr.stripped ? (size_t)hdr.nseg * 32u : 0;
#if defined(__SSE2__)
    if (hdr.na && ((flags & ACL_OPEN_GROUPS) || ((flags & ACL_OPEN_CLIP) && has_short_segment(&hdr, &L))))
        for (unsigned k = 0; k < 3; k++) /* sorted by storage: up to 3 more partial groups a kind */
            hdr.ngrp += hdr.nanim[k] ? (hdr.nanim[k] + 3u) / 4u + 3u : 0u;
#endif
    size_t nm = hdr.has_meta ? nt : 0; /* names, parents and bind pose: with metadata only */
    bool ok = ganim_mul_size(nt, 3, &sizes[0]) && ganim_mul_size(nt, sizeof(ganim_transform), &sizes[1]) &&
              ganim_mul_size(hdr.nseg, sizeof(acl_seg), &sizes[2]) &&
              ganim_mul_size((size_t)hdr.nseg * hdr.na, sizeof(acl_rec), &sizes[3]) &&
              ganim_mul_size(keys, 4, &sizes[4]) && ganim_mul_size(nm, sizeof(char *), &sizes[5]) &&
              ganim_mul_size(nm, 4, &sizes[6]) && ganim_mul_size(nm, sizeof(ganim_transform), &sizes[7]) &&
              ganim_mul_size(hdr.na, 4, &sizes[8]) &&
              ganim_mul_size((size_t)hdr.nseg * hdr.ngrp, sizeof(acl_grp), &sizes[9]);
    if (!ok) return GANIM_NOMEM(err);
    o = (sizeof(ganim_acl) + 15u) & ~(size_t)15u;
    for (unsigned i = 0; i < 10; i++) {
        offs[i] = o;
        size_t end;
        if (!ganim_add_size(o + 16u, sizes[i], &end)) return GANIM_NOMEM(err);
        o = (end - 1u) & ~(size_t)15u;
    }
    ganim_allocator A = ganim_allocator_resolve(alloc);
    uint8_t *blk = ganim_alloc(&A, o);
    if (!blk) return GANIM_NOMEM(err);
    /* zero the segments, keys, names, parents, bind pose and anim list; the rest is written
     * whole before it is read: the struct (*h = hdr), the types and the pose (every track's,
     * by the loop below), the records and groups (parse_segment, build_groups) */
    memset(blk + offs[2], 0, offs[3] - offs[2]);
    memset(blk + offs[4], 0, offs[9] - offs[4]);
    ganim_acl *h = (ganim_acl *)blk;
    *h = hdr;
    h->alloc = A;
    h->alloc_size = o;
    h->types = blk + offs[0];
    h->pose = (ganim_transform *)(blk + offs[1]);
    h->segs = (acl_seg *)(blk + offs[2]);
    h->recs = (acl_rec *)(blk + offs[3]);
    h->keys = (uint32_t *)(blk + offs[4]);
    h->names = (const char **)(blk + offs[5]);
    h->parents = (int32_t *)(blk + offs[6]);
    h->bind = (ganim_transform *)(blk + offs[7]);
    uint32_t *anim_track = (uint32_t *)(blk + offs[8]);
    /* the whole-clip read hashes the buffer (bytes 8..size) a slice at a time in the loops
     * below and in the decode (acl_fnv); sampling never does. ACL_HASH_OPEN bytes beside
     * each track's defaults and each record, about what the chain (~4 cycles a byte) runs
     * in the time of their work: the decode's share is sized from what is left
     * (hash_chunks) */
    if (flags & ACL_OPEN_HASH) h->fnv = (acl_fnv){ data + 8, h->size - 8u, 2166136261u, ACL_HASH_OPEN };

    if (h->has_meta) {
        rc = parse_metadata(h, &L, wd, base, err);
        if (rc) goto fail;
    } else {
        h->names = NULL;
        h->parents = NULL;
        h->bind = NULL;
    }
    const ganim_transform *defaults = NULL;
    if (!h->trivial) {
        if (h->bind) defaults = h->bind;
        else if (bind && bind->bone_count == h->nt) {
            /* the caller's skeleton supplies the bind pose the buffer leaves out */
            for (uint32_t i = 0; i < h->nt; i++) h->pose[i] = bind->bones[i].rest;
            defaults = h->pose;
            h->pose_given = 1;
        } else if (wd && h->counts[0][T_DEFAULT] + h->counts[1][T_DEFAULT] + h->counts[2][T_DEFAULT]) {
            ganim_doc_warn(wd, GANIM_WARN_INCONSISTENT, base + 28,
                           "acl: header: default sub-tracks use the bind pose (flag bit 9 clear) but the buffer has no "
                           "track descriptions and no skeleton was given; identity used");
        }
    }
    uint32_t groups = h->has_scale ? 3u : 2u;
    float ds = h->def_scale ? 1.0f : 0.0f;
    /* where the constant samples of each kind start, for both passes below */
    const uint8_t *cd[3];
    const_bases(h, &L, cd);
    const uint32_t ncr = h->counts[0][T_CONST];
    acl_fnv fnv = h->fnv;
    /* the constant translations and scales, contiguous from cd[1] (3 floats each), checked
     * all at once for the first pass; the per-track pass no longer tests them one by one */
    const int ts_in = all_in_range(cd[1], 3u * ((size_t)h->counts[1][T_CONST] + h->counts[2][T_CONST]));
    /* the handle's fields in locals: the loop's byte stores (types) could alias them */
    uint8_t *const types = h->types;
    ganim_transform *const pose = h->pose;
    const uint32_t ntr = h->nt, na0 = h->nanim[0], na01 = h->nanim[0] + h->nanim[1];
    const unsigned rfmt = h->rfmt;
    /* by kind, without the loop: a clip without animated sub-tracks, and any clip but for
     * the whole-clip read (whose hash the loop carries beside its work) */
    const int by_kind = (!h->na || !(flags & ACL_OPEN_HASH)) && !(flags & ACL_OPEN_GENERAL) &&
                        static_pose(h, &L, defaults, cd, ts_in, anim_track);
    /* Twice at most: first with every constant checked without a branch each and the
     * rotations of a stored group of four rebuilt and normalised together (acl_const_rot4:
     * the same operations lane by lane); when one is not finite or too large, again from
     * the start one value at a time, which stops at the first bad one in track order (the
     * same error and offset as ever). */
    for (int exact = 0; !by_kind; exact = 1) { /* (by_kind: posed already) */
        /* word: the types of tracks i..: a word per 16 tracks, the next one in the top bits */
        /* ai: the next slot of each kind in anim_track (the rotations', translations', scales') */
        uint32_t ai[3] = { 0, na0, na01 }, ci[3] = { 0, 0, 0 }, word[3] = { 0, 0, 0 };
        int in = ts_in;
#if defined(__SSE2__)
        float rq[4][4]; /* the fast form's current group of constant rotations, normalised */
#endif
        fnv = h->fnv;
        for (uint32_t i = 0; i < ntr; i++) {
            if (fnv.left) acl_fnv_some(&fnv);
            if (!(i & 15u))
                for (unsigned k = 0; k < groups; k++)
                    word[k] = ganim_ld_u32le(data + L.types + 4u * (k * L.e + i / 16u));
            ganim_transform t = defaults ? defaults[i] : acl_identity();
            if (!defaults) t.scale = (ganim_vec3){ ds, ds, ds };
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 3
#elif defined(__clang__)
#pragma clang loop unroll(full)
#endif
            /* unrolled (the pragmas): each kind's tests (k == K_ROT, rfmt, ...) fold at build time;
             * 6,799 -> 5,499 instructions for single_frame's open+decode */
            for (unsigned k = 0; k < 3; k++) {
                unsigned ty = word[k] >> 30; /* k >= groups: 0, T_DEFAULT */
                word[k] <<= 2;
                types[3 * i + k] = (uint8_t)ty;
                if (ty == T_ANIM) {
                    anim_track[ai[k]++] = i;
                } else if (ty == T_CONST) {
                    float v[4] = { 0, 0, 0, 0 };
                    uint32_t c = ci[k]++;
#if defined(__SSE2__)
                    if (!exact && k == K_ROT && rfmt != 0) {
                        if (!(c & 3u)) in &= acl_const_rot4(cd[0], ncr, c, rq);
                        t.rotation = (ganim_quat){ rq[c & 3u][0], rq[c & 3u][1], rq[c & 3u][2], rq[c & 3u][3] };
                        continue;
                    }
#endif
                    if (!exact) { /* the common kinds read straight from their base */
                        if (k == K_ROT && rfmt == 0) {
                            for (unsigned q = 0; q < 4; q++) v[q] = ganim_ld_f32le(cd[0] + 16u * c + 4u * q);
                            in &= in_range(v[0]) & in_range(v[1]) & in_range(v[2]) & in_range(v[3]);
                        } else if (k == K_ROT) {
                            const_sample(cd, rfmt, ncr, k, c, v);
                            in &= in_range(v[0]) & in_range(v[1]) & in_range(v[2]) & in_range(v[3]);
                        } else {
                            const uint8_t *F = cd[k] + 12u * (size_t)c;
                            for (unsigned q = 0; q < 3; q++) v[q] = ganim_ld_f32le(F + 4u * q); /* ts_in */
                        }
                    } else {
                        const_sample(cd, rfmt, ncr, k, c, v);
                        for (unsigned q = 0; q < (k == K_ROT ? 4u : 3u); q++)
                            if (!in_range(v[q])) {
                                rc = ganim_fail(err, GANIM_ERR_CORRUPT, base + L.cdata,
                                                "acl: track %u: constant %s sample %u is not a finite number", i,
                                                acl_kind_name(k), c);
                                goto fail;
                            }
                    }
                    if (k == K_ROT) {
                        quat_normalise(v);
                        t.rotation = (ganim_quat){ v[0], v[1], v[2], v[3] };
                    } else if (k == K_TRANS) {
                        t.translation = (ganim_vec3){ v[0], v[1], v[2] };
                    } else {
                        t.scale = (ganim_vec3){ v[0], v[1], v[2] };
                    }
                }
            }
            pose[i] = t;
        }
        if (in || exact) break;
    }
    h->fnv = fnv; /* (by_kind: unchanged) */
    /* clip ranges must be finite and moderate so applying them cannot overflow */
    {
        uint32_t nr = L.anim_rot_var + L.anim_trans_var + L.anim_scale_var;
        int all = 1; /* all of them without a branch each; the first bad one is looked for only then */
        uint32_t i0 = 0;
#if defined(__SSE2__)
        { /* four at a time: |v| <= ACL_RANGE_MAX as in_range (false for NaN); 6 nr values in bounds */
            const __m128 sign = _mm_set1_ps(-0.0f), lim = _mm_set1_ps(ACL_RANGE_MAX);
            __m128 good = _mm_castsi128_ps(_mm_set1_epi32(-1));
            for (; i0 + 4u <= 6u * nr; i0 += 4u) {
                __m128 v = _mm_loadu_ps((const float *)(const void *)(data + L.crange + 4u * i0));
                good = _mm_and_ps(good, _mm_cmple_ps(_mm_andnot_ps(sign, v), lim));
            }
            all = _mm_movemask_ps(good) == 15;
        }
#endif
        for (uint32_t i = i0; i < 6u * nr; i++) all &= in_range(ganim_ld_f32le(data + L.crange + 4u * i));
        for (uint32_t i = 0; i < 6u * nr && !all; i++)
            if (!in_range(ganim_ld_f32le(data + L.crange + 4u * i))) {
                rc = ganim_fail(err, GANIM_ERR_CORRUPT, base + L.crange + 4u * i,
                                "acl: clip range data: value %u is not a finite number of moderate size", i);
                goto fail;
            }
    }
    uint32_t nk = 0;
    for (uint32_t s = 0; s < h->nseg; s++) {
        rc = parse_segment(h, &L, s, anim_track, base, err);
        if (rc) goto fail;
        acl_seg *sg = &h->segs[s];
#if defined(__SSE2__)
        if (h->ngrp) {
            sg->grps = (acl_grp *)(blk + offs[9]) + (size_t)s * h->ngrp;
            if (flags & ACL_OPEN_GENERAL) build_groups(h, s);
            else build_groups_fast(h, s);
        }
#endif
        sg->first_key = nk;
        if (h->stripped)
            for (uint32_t i = 0; i < sg->count; i++)
                if (sg->kept & (0x80000000u >> i)) h->keys[nk++] = sg->start + i;
    }
    h->nkeys = nk;
    if (h->ngrp) { /* no group of four to decode together (full-precision formats): records one by one */
        int any = 0;
        for (uint32_t s = 0; s < h->nseg; s++) /* the used groups: an unused one's soa is 0 */
            for (uint32_t i = 0; i < h->segs[s].ngrp; i++) any |= h->segs[s].grps[i].soa;
        if (!any) {
            for (uint32_t s = 0; s < h->nseg; s++) h->segs[s].grps = NULL;
            h->ngrp = 0;
        }
    }
    if (h->nseg > 1 && wd && ganim_ld_u32le(data + ACL_HDR + 52u + 4u * h->nseg) != ACL_NONE)
        ganim_doc_warn(wd, GANIM_WARN_INCONSISTENT, base + ACL_HDR + 52u + 4u * h->nseg,
                       "acl: the segment start list does not end with 0xFFFFFFFF");
    if (h->stripped && h->na && nk == 0) {
        rc = ganim_fail(err, GANIM_ERR_CORRUPT, base + L.seghdr, "acl: every key frame of the clip was stripped");
        goto fail;
    }
    *out = h;
    return GANIM_OK;
fail:
    ganim_free(&A, blk, o);
    return rc;
}

void ganim_acl_close(ganim_acl *acl)
{
    if (!acl) return;
    ganim_allocator A = acl->alloc;
    ganim_free(&A, acl, acl->alloc_size);
}

uint32_t ganim_acl_track_count(const ganim_acl *acl) { return acl->nt; }
uint32_t ganim_acl_frame_count(const ganim_acl *acl) { return acl->ns + (uint32_t)acl->wrap; }
float ganim_acl_sample_rate(const ganim_acl *acl) { return acl->rate; }
