/* ACL's hash (FNV-1a-32 over bytes 8..size) without its serial chain.
 *
 * The chain h' = (h ^ b) * P (P = 0x01000193, mod 2^32) costs an xor and a 3-cycle
 * multiply a byte, one after the other. It comes apart in two:
 *
 * - h ^ b changes only the low byte l of h: h ^ b = h + e with e = (l ^ b) - l, so
 *   h' = P (h + e) and h_n = P^n h_0 + sum_k P^(n-k) e_k: a sum of independent terms once
 *   the e_k, so the low bytes l_k, are known;
 * - the low bytes follow their own chain l' = ((l ^ b) * 0x93) mod 256, a T-function: bit
 *   j of l' is bit j of l ^ b ^ (a function of the bits below j of l ^ b). So over a
 *   segment of the buffer bit j ends as its start xor a parity that depends only on the
 *   lower bits: knowing where bits 0..j-1 start in every segment, one run of the chain
 *   over all the segments side by side (bit j started at 0) gives each segment's parity
 *   of bit j, hence where bit j starts in every segment (a prefix xor over the segments).
 *
 * So a chunk of the buffer is cut into 128 segments of L bytes, transposed (16-bit lane s
 * of a vector: byte i of segment s), and run eight times side by side, a bit of the
 * segments' starting low bytes found each time (xor and one 16-bit multiply by 0x93 a
 * vector, eight vectors in flight), then a ninth time with the true starts, summing each
 * segment's P^(L-i) e_i; the segments are then joined by powers of P^L. Every operation is
 * exact integer arithmetic mod 2^16 or 2^32: the value is the serial chain's, bit for bit
 * (test_acl checks every length 0..4096 and every sample against a bytewise reference).
 * About 0.3 ns a byte against the chain's 1.5-1.9 on a 2.6 GHz Sapphire Rapids
 * (docs/benchmarks.md, "ACL, ninth round"). */
#include "formats/acl/acl_internal.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define ACL_FNV_HAVE_AVX2 1
#include <immintrin.h>
#else
#define ACL_FNV_HAVE_AVX2 0
#endif

#if ACL_FNV_HAVE_AVX2
#define FNV_P 16777619u

static uint32_t fnv_pow(uint32_t b, uint64_t e)
{
    uint32_t r = 1;
    for (; e; e >>= 1, b *= b)
        if (e & 1u) r *= b;
    return r;
}

#define WIDE_SEG 128u /* segments of a chunk: 8 vectors of 16 lanes */
#define WIDE_LMAX 32u /* bytes a segment at most: the transposed chunk is 8 KiB of stack */

/* The eight vectors of a step, written out (the compiler keeps them in registers). */
#define X8(S) S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7)

/* 16 x 16 bytes transposed: r[k] byte s <- r[s] byte k (four rounds of unpacks, written
 * out so that -O2 keeps them in registers). */
__attribute__((target("avx2"))) static inline void tr16(__m128i r[16])
{
    __m128i a[16], b[16];
#define S1(i)                                                   \
    a[2 * (i)] = _mm_unpacklo_epi8(r[2 * (i)], r[2 * (i) + 1]); \
    a[2 * (i) + 1] = _mm_unpackhi_epi8(r[2 * (i)], r[2 * (i) + 1]);
#define S2(n) /* i = n / 2, h = n % 2 */                                                  \
    b[4 * ((n) >> 1) + 2 * ((n)&1)] =                                                     \
        _mm_unpacklo_epi16(a[4 * ((n) >> 1) + ((n)&1)], a[4 * ((n) >> 1) + 2 + ((n)&1)]); \
    b[4 * ((n) >> 1) + 2 * ((n)&1) + 1] =                                                 \
        _mm_unpackhi_epi16(a[4 * ((n) >> 1) + ((n)&1)], a[4 * ((n) >> 1) + 2 + ((n)&1)]);
#define S3(n) /* i = n / 4, k = n % 4 */                                                  \
    a[8 * ((n) >> 2) + 2 * ((n)&3)] =                                                     \
        _mm_unpacklo_epi32(b[8 * ((n) >> 2) + ((n)&3)], b[8 * ((n) >> 2) + 4 + ((n)&3)]); \
    a[8 * ((n) >> 2) + 2 * ((n)&3) + 1] =                                                 \
        _mm_unpackhi_epi32(b[8 * ((n) >> 2) + ((n)&3)], b[8 * ((n) >> 2) + 4 + ((n)&3)]);
#define S4(m)                                          \
    r[2 * (m)] = _mm_unpacklo_epi64(a[m], a[8 + (m)]); \
    r[2 * (m) + 1] = _mm_unpackhi_epi64(a[m], a[8 + (m)]);
    X8(S1) X8(S2) X8(S3) X8(S4)
#undef S1
#undef S2
#undef S3
#undef S4
}

/* Bit 15 of each 16-bit lane of v0..v7 (in lane order): 128 bits, two words. */
__attribute__((target("avx2"))) static inline void top_bits(const __m256i v[8], uint64_t out[2])
{
    uint32_t m[4];
    for (int q = 0; q < 4; q++) { /* packs keeps the sign; the permute undoes its lane interleave */
        __m256i k = _mm256_permute4x64_epi64(_mm256_packs_epi16(v[2 * q], v[2 * q + 1]), 0xD8);
        m[q] = (uint32_t)_mm256_movemask_epi8(k);
    }
    out[0] = m[0] | (uint64_t)m[1] << 32;
    out[1] = m[2] | (uint64_t)m[3] << 32;
}

/* A step of the true run for 16 segments: v their low bytes (high bytes unused), t their
 * bytes, acc[0..1] their sums (segments 0-7, 8-15), wk the step's weight. */
__attribute__((target("avx2"), always_inline)) static inline void true_step(__m256i *v, __m256i acc[2], __m256i t,
                                                                            __m256i wk)
{
    const __m256i ff = _mm256_set1_epi16(0xFF), m93 = _mm256_set1_epi16(0x93);
    __m256i lo = _mm256_and_si256(*v, ff), x = _mm256_xor_si256(lo, t), e = _mm256_sub_epi16(x, lo);
    *v = _mm256_mullo_epi16(x, m93);
    acc[0] = _mm256_add_epi32(acc[0], _mm256_mullo_epi32(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(e)), wk));
    acc[1] = _mm256_add_epi32(acc[1], _mm256_mullo_epi32(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(e, 1)), wk));
}

/* One chunk: 128 segments of L bytes (16 <= L <= WIDE_LMAX) from h. w[i] = P^(L-i). */
__attribute__((target("avx2"))) static uint32_t wide_chunk(uint32_t h, const uint8_t *p, size_t L, const uint32_t *w)
{
    __m256i t[WIDE_LMAX * 8]; /* t[i * 8 + g] lane s: byte i of segment 16 g + s */
    for (size_t i = 0; i < L; i += 16u) {
        size_t at = i + 16u <= L ? i : L - 16u; /* the last block overlaps the one before (L >= 16) */
        for (size_t g = 0; g < 8; g++) {
            __m128i r[16];
            const uint8_t *q = p + 16u * g * L + at;
#define LD(s)                                             \
    r[s] = _mm_loadu_si128((const __m128i *)(q + (s)*L)), \
    r[(s) + 8] = _mm_loadu_si128((const __m128i *)(q + ((s) + 8) * L));
            X8(LD)
#undef LD
            tr16(r);
#define ST(k) \
    t[(at + (k)) * 8u + g] = _mm256_cvtepu8_epi16(r[k]), t[(at + (k) + 8) * 8u + g] = _mm256_cvtepu8_epi16(r[(k) + 8]);
            X8(ST)
#undef ST
        }
    }
    const __m256i m93 = _mm256_set1_epi16(0x93);
    const __m256i lanebit =
        _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, (short)-32768);
    __m256i st[8]; /* each segment's starting low byte, bits 0..j-1 known */
    for (int g = 0; g < 8; g++) st[g] = _mm256_setzero_si256();
    const uint32_t l = h & 0xFFu; /* the chunk's own start */
    for (int j = 0; j < 8; j++) {
        __m256i v[8];
        for (int g = 0; g < 8; g++) v[g] = st[g];
        if (j == 0) { /* 0x93 is odd: bit 0 of the product is bit 0 of l ^ b, so a segment's
                       * parity of bit 0 is that of its bytes' xor: no multiply */
            for (size_t k = 0; k < L; k++) {
                const __m256i *tk = t + k * 8u;
#define STEP0(g) v[g] = _mm256_xor_si256(v[g], tk[g]);
                X8(STEP0)
#undef STEP0
            }
        } else {
            for (size_t k = 0; k < L; k++) {
                const __m256i *tk = t + k * 8u;
#define STEP(g) v[g] = _mm256_mullo_epi16(_mm256_xor_si256(v[g], tk[g]), m93);
                X8(STEP)
#undef STEP
            }
        }
        /* bit j of each segment's end, begun at 0: the segment's parity of bit j */
        const __m128i sh = _mm_cvtsi32_si128(15 - j);
        for (int g = 0; g < 8; g++) v[g] = _mm256_sll_epi16(v[g], sh);
        uint64_t d[2], s[2];
        top_bits(v, d);
        uint64_t in = (uint64_t)0 - ((l >> j) & 1u); /* bit j where segment 0 starts, in every bit */
        for (int q = 0; q < 2; q++) {
            uint64_t x = d[q]; /* inclusive prefix xor over the segments */
            x ^= x << 1;
            x ^= x << 2;
            x ^= x << 4;
            x ^= x << 8;
            x ^= x << 16;
            x ^= x << 32;
            s[q] = (x << 1) ^ in;                       /* where bit j starts in each segment */
            in = (uint64_t)0 - (((x >> 63) ^ in) & 1u); /* where it starts after these 64 */
        }
        const __m256i bj = _mm256_set1_epi16((short)(1 << j));
        for (int g = 0; g < 8; g++) {
            __m256i m = _mm256_set1_epi16((short)(uint16_t)(s[g >> 2] >> (16 * (g & 3))));
            m = _mm256_cmpeq_epi16(_mm256_and_si256(m, lanebit), lanebit);
            st[g] = _mm256_or_si256(st[g], _mm256_and_si256(m, bj));
        }
    }

    /* the true run: e = (l ^ b) - l, each segment's sum of P^(L-i) e_i in 32-bit lanes;
     * four vectors at a time (eight and their sums would not fit the 16 registers) */
    uint32_t sum[WIDE_SEG];
    for (int half = 0; half < 2; half++) {
        __m256i v[4], acc[8];
        for (int g = 0; g < 4; g++) {
            v[g] = st[4 * half + g];
            acc[2 * g] = acc[2 * g + 1] = _mm256_setzero_si256();
        }
        for (size_t k = 0; k < L; k++) {
            const __m256i *tk = t + k * 8u + 4 * half;
            const __m256i wk = _mm256_set1_epi32((int)w[k]);
            for (int g = 0; g < 4; g++) true_step(&v[g], &acc[2 * g], tk[g], wk);
        }
        for (int g = 0; g < 8; g++) _mm256_storeu_si256((__m256i *)(sum + 64 * half + 8 * g), acc[g]);
    }
    /* h P^(128 L) + sum_s P^((127 - s) L) sum_s: four Horner chains of 32 segments */
    uint32_t pl = fnv_pow(FNV_P, L), q[4] = { 0, 0, 0, 0 };
    for (size_t s = 0; s < 32; s++)
        for (size_t c = 0; c < 4; c++) q[c] = q[c] * pl + sum[32u * c + s];
    uint32_t p32 = fnv_pow(pl, 32);
    uint32_t r = ((q[0] * p32 + q[1]) * p32 + q[2]) * p32 + q[3];
    return fnv_pow(p32, 4) * h + r;
}

/* Chunks of 128 segments of 16..32 bytes, as even as can be (at most 127 bytes left to
 * the chain); n >= 2048. */
static size_t wide_run(uint32_t *hp, const uint8_t *p, size_t n)
{
    uint32_t w[WIDE_LMAX], h = *hp;
    size_t done = 0, lw = 0;
    while (n - done >= WIDE_SEG * 16u) {
        size_t left = n - done, chunks = (left + WIDE_SEG * WIDE_LMAX - 1u) / (WIDE_SEG * WIDE_LMAX);
        size_t L = left / (WIDE_SEG * chunks); /* 16..32: see docs/benchmarks.md, "ACL, ninth round" */
        if (L != lw) {
            uint32_t x = FNV_P;
            for (size_t k = L; k-- > 0; x *= FNV_P) w[k] = x;
            lw = L;
        }
        h = wide_chunk(h, p + done, L, w);
        done += L * WIDE_SEG;
    }
    *hp = h;
    return done;
}
#endif

bool acl_fnv_wide(size_t n)
{
#if ACL_FNV_HAVE_AVX2
    return n >= ACL_FNV_WIDE_MIN && __builtin_cpu_supports("avx2");
#else
    (void)n;
    return false;
#endif
}

uint32_t acl_fnv_all(uint32_t h, const uint8_t *p, size_t n, bool wide)
{
    size_t i = 0;
#if ACL_FNV_HAVE_AVX2
    if (wide && n >= WIDE_SEG * 16u && __builtin_cpu_supports("avx2")) i = wide_run(&h, p, n);
#else
    (void)wide;
#endif
    return acl_fnv_bytes(h, p + i, n - i);
}
