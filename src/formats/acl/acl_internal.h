/* The ACL decoder's insides, shared by the files of src/formats/acl that parse
 * (acl_open.c), sample (acl_sample.c) and decode whole clips (acl_decode.c, acl_sse2.c)
 * a buffer, and describe it (acl_details.c). acl.h is the interface the rest of the
 * library (and the benchmark) uses.
 *
 * Arithmetic follows ACL's order of operations in float32 (the library is built with
 * -ffp-contract=off): integers times the reciprocal of their range, then the segment
 * range, then the clip range, W rebuilt from |1 - x^2 - y^2 - z^2|, rotations divided by
 * their length (ACL's "always" normalisation policy). Layout: docs/formats/acl.md. */
#ifndef GANIM_FORMATS_ACL_INTERNAL_H
#define GANIM_FORMATS_ACL_INTERNAL_H

#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "formats/acl/acl.h"
#include "formats/format.h"
#include "io/bits.h"
#include "io/bytes.h"
#include "io/reader.h"

enum { K_ROT = 0, K_TRANS = 1, K_SCALE = 2 };
enum { T_DEFAULT = 0, T_CONST = 1, T_ANIM = 2 };
enum { M_CONST = 0, M_VAR, M_RAW, M_FULL4 }; /* how one animated sub-track is stored */

#define ACL_HDR 0x20u /* transform_tracks_header: every offset is relative to it */
#define ACL_MIN_SIZE (0x20u + 52u)
#define ACL_NONE 0xFFFFFFFFu
#define ACL_MAX_VALUES (1u << 28) /* floats of per-frame data a document may get */
#define ACL_RANGE_MAX 1e18f       /* larger ranges could overflow float32 when applied */

static inline const char *acl_kind_name(unsigned kind)
{
    return kind == 0 ? "rotation" : kind == 1 ? "translation" : "scale";
}

/* ---- FNV-1a of the buffer, interleaved with the decode ----------------------------------
 * ACL's hash (bytewise FNV-1a over bytes 8..size) is one serial multiply chain, ~4 cycles
 * a byte whatever the instruction count. Run a few bytes at a time inside the decode's
 * loops, it executes in the shadow of their arithmetic instead of before it. */
typedef struct acl_fnv {
    const uint8_t *p;
    size_t left; /* bytes still to hash */
    uint32_t h;
    uint32_t chunk; /* bytes to hash per loop iteration */
} acl_fnv;

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ACL_FNV_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ACL_FNV_ASAN 1
#endif
/* (under AddressSanitizer the C form below, whose loads it checks: an asm operand's are not) */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && !defined(ACL_FNV_ASAN)
/* A byte of the chain in two instructions instead of three: b only changes h's low byte,
 * so it is xored into that byte straight from memory (one micro-fused load and xor, where
 * the compiler loads it into a register first), then the multiply. The same values; the
 * chain's latency (~4 cycles a byte) is unchanged, its share of the read's instructions
 * falls by a third (docs/benchmarks.md, "ACL, fourteenth round"). */
#define ACL_FNV_B(k) "xorb %" #k ", %b0\n\timull $16777619, %0, %0\n\t"
static inline uint32_t acl_fnv_1(uint32_t h, const uint8_t *p)
{
    __asm__(ACL_FNV_B(1) : "+q"(h) : "m"(p[0]) : "cc");
    return h;
}
static inline uint32_t acl_fnv_4(uint32_t h, const uint8_t *p)
{
    __asm__(ACL_FNV_B(1) ACL_FNV_B(2) ACL_FNV_B(3) ACL_FNV_B(4)
            : "+q"(h)
            : "m"(p[0]), "m"(p[1]), "m"(p[2]), "m"(p[3])
            : "cc");
    return h;
}
#undef ACL_FNV_B
#else
static inline uint32_t acl_fnv_1(uint32_t h, const uint8_t *p) { return (h ^ p[0]) * 16777619u; }
static inline uint32_t acl_fnv_4(uint32_t h, const uint8_t *p)
{
    h = (h ^ p[0]) * 16777619u;
    h = (h ^ p[1]) * 16777619u;
    h = (h ^ p[2]) * 16777619u;
    return (h ^ p[3]) * 16777619u;
}
#endif

#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 7)
#define ACL_FALLTHROUGH __attribute__((fallthrough))
#else
#define ACL_FALLTHROUGH ((void)0)
#endif
static inline uint32_t acl_fnv_bytes(uint32_t h, const uint8_t *p, size_t n)
{
    for (; n > 16; p += 16, n -= 16) /* unrolled: fewer loop instructions a byte */
        h = acl_fnv_4(acl_fnv_4(acl_fnv_4(acl_fnv_4(h, p), p + 4), p + 8), p + 12);
    /* the last 0..16 bytes, e[-n] .. e[-1], by one jump into a straight run: a slice's
     * length is the same at every step of a loop, so the jump is predicted, and costs
     * fewer instructions than tests for 8, 4, 2 and 1 bytes */
    const uint8_t *e = p + n;
    switch (n) {
    case 16: h = acl_fnv_1(h, e - 16); ACL_FALLTHROUGH;
    case 15: h = acl_fnv_1(h, e - 15); ACL_FALLTHROUGH;
    case 14: h = acl_fnv_1(h, e - 14); ACL_FALLTHROUGH;
    case 13: h = acl_fnv_1(h, e - 13); ACL_FALLTHROUGH;
    case 12: h = acl_fnv_1(h, e - 12); ACL_FALLTHROUGH;
    case 11: h = acl_fnv_1(h, e - 11); ACL_FALLTHROUGH;
    case 10: h = acl_fnv_1(h, e - 10); ACL_FALLTHROUGH;
    case 9: h = acl_fnv_1(h, e - 9); ACL_FALLTHROUGH;
    case 8: h = acl_fnv_1(h, e - 8); ACL_FALLTHROUGH;
    case 7: h = acl_fnv_1(h, e - 7); ACL_FALLTHROUGH;
    case 6: h = acl_fnv_1(h, e - 6); ACL_FALLTHROUGH;
    case 5: h = acl_fnv_1(h, e - 5); ACL_FALLTHROUGH;
    case 4: h = acl_fnv_1(h, e - 4); ACL_FALLTHROUGH;
    case 3: h = acl_fnv_1(h, e - 3); ACL_FALLTHROUGH;
    case 2: h = acl_fnv_1(h, e - 2); ACL_FALLTHROUGH;
    case 1: h = acl_fnv_1(h, e - 1); ACL_FALLTHROUGH;
    default: break;
    }
    return h;
}
#undef ACL_FALLTHROUGH

/* FNV-1a of n bytes from h, exact, without the serial chain where AVX2 is there
 * (acl_fnv.c: 128 segments side by side, 3-5x the chain's speed on buffers of a few
 * KiB, at most 127 bytes left to the chain); the chain otherwise, or when !wide.
 * acl_fnv_wide says whether n bytes take the wide path: the whole-clip read hashes that
 * way what its decode cannot hide of the chain (hash_chunks). */
#ifndef ACL_FNV_WIDE_MIN
#define ACL_FNV_WIDE_MIN 2048u /* bytes: 128 segments of 16 at least */
#endif
bool acl_fnv_wide(size_t n);
uint32_t acl_fnv_all(uint32_t h, const uint8_t *p, size_t n, bool wide);

/* How the whole-clip read spreads the hash over its work (acl_open.c, acl_decode.c), in
 * bytes of the chain (~4 cycles a byte) per step, so that the chain runs beside the work
 * instead of after it: each track's defaults and each record of the parse take
 * ACL_HASH_OPEN bytes; the decode shares what is left in proportion to the time of its
 * steps (a variable rotation's four samples, with W, the divisions and the square roots,
 * take about twice a translation's or scale's four; a raw value about a third of the
 * former). Only the schedule: every byte is hashed once and in order whatever these are. */
#ifndef ACL_HASH_OPEN
#define ACL_HASH_OPEN 16u
#endif
#ifndef ACL_HASH_W_ROT
#define ACL_HASH_W_ROT 12u
#endif
#ifndef ACL_HASH_W_VEC
#define ACL_HASH_W_VEC 6u
#endif
#ifndef ACL_HASH_W_RAW
#define ACL_HASH_W_RAW 4u
#endif
#ifndef ACL_HASH_HIDE
#define ACL_HASH_HIDE 8u /* eighths of the decode's weight (bytes) left to the chain, the rest wide */
#endif

/* The next f->chunk bytes (fewer at the end). */
static inline void acl_fnv_some(acl_fnv *f)
{
    size_t n = f->chunk;
    if (n > f->left) n = f->left;
    f->h = acl_fnv_bytes(f->h, f->p, n);
    f->p += n;
    f->left -= n;
}

#if defined(__SSE2__)
/* The constant rotations c..c+3 (c a multiple of 4, fewer in the last group) of the ncr
 * stored at D as x, y, z groups of four (rotation formats 2 and 3): W rebuilt, checked
 * and normalised four at a time, bit for bit the scalar path's (acl_open.c). */
int acl_const_rot4(const uint8_t *D, uint32_t ncr, uint32_t c, float rq[4][4]);
/* The groups at c and c + 4 (c + 4 < ncr) into rq[0..7], as two acl_const_rot4 calls
 * (the result: both in range), in 256-bit vectors where the CPU has AVX2 (the path a
 * short clip's open takes): for the tests. */
int acl_const_rot8(const uint8_t *D, uint32_t ncr, uint32_t c, float rq[8][4]);
#endif

/* 1 / (2^nb - 1) for a variable sub-track of nb = 1..23 bits (acl_open.c) */
extern const float acl_inv_width[24];

/* One animated sub-track in one segment, everything a sample decode needs. */
typedef struct acl_rec {
    uint32_t bit; /* offset inside a pose, in bits */
    uint32_t track;
    uint8_t mode, nb, kind, segrange;
    float inv;                                /* 1 / (2^nb - 1) */
    float smin[4], sext[4], cmin[4], cext[4]; /* [3] stays 0 (zeroed record): one vector load each */
    float v[4];                               /* M_CONST: the value (rotation normalised) */
} acl_rec;

/* Random access (SSE2): up to four animated sub-tracks of one kind stored the same way in
 * one segment (records rec[0..n-1]), component by component so that each vector operation
 * serves the four. Lanes past n repeat lane 0 (their results are written twice,
 * identical). Each segment sorts its records of a kind by how they are stored (variable,
 * raw, constant, full-precision) before cutting them into groups, so no group mixes two
 * ways: which records share a group can differ between segments (a pose between two
 * segments then decodes those records one by one). soa: decoded four at a time (two or
 * more M_VAR lanes, or M_RAW lanes not all byte-aligned: raw4); otherwise (a lone
 * sub-track, byte-aligned raw floats, constants, full precision) one record at a time.
 * n = 0: an unused group. Built by ganim_acl_open for sampling, not for the whole-clip
 * read. */
typedef struct acl_grp {
    float inv[4];                                         /* 1 / (2^nb - 1) per lane (M_VAR) */
    float smin[3][4], sext[3][4], cmin[3][4], cext[3][4]; /* [component][lane] */
    uint32_t bit[4], track[4], rec[4];
    uint32_t last; /* largest window start of a lane relative to the pose's bit (the proven test) */
    uint8_t nb[4];
    uint8_t n, kind, soa, segrange;
    uint8_t raw4; /* every lane M_RAW: one 16-byte load a lane (acl_raw16) and a transpose */
} acl_grp;

typedef struct acl_seg {
    uint32_t start, count, stored, pose_bits;
    uint32_t kept;      /* retained-sample bitset, bit (31 - i) = sample i (stripped only) */
    uint32_t first_key; /* stripped: index of its first retained sample in acl->keys */
    const uint8_t *ani; /* animated bitstream */
    size_t ani_room;    /* bytes from `ani` to the end of the buffer */
    acl_rec *recs;      /* acl->na records */
    acl_grp *grps;      /* acl->ngrp groups, or NULL (see acl_grp) */
    uint32_t ngrp;      /* of which used (the first ones) */
} acl_seg;

struct ganim_acl {
    const uint8_t *data;
    size_t size;
    uint64_t base;
    ganim_allocator alloc;
    size_t alloc_size;
    uint16_t version;
    uint8_t rfmt, tfmt, sfmt, raw_bits;
    uint32_t misc, nt, ns, nseg, nv, na, nkeys;
    uint32_t ngrp; /* groups per segment, unused ones included (0: none built) */
    float rate;
    int has_scale, def_scale, trivial, stripped, wrap, has_meta;
    int pose_given;        /* the defaults are the caller's skeleton's rest poses (not checked finite) */
    uint32_t counts[3][3]; /* [kind][type] */
    uint32_t nanim[3];     /* animated sub-tracks per kind */
    uint8_t *types;        /* nt * 3 */
    ganim_transform *pose; /* defaults and constants; animated entries overwritten */
    acl_seg *segs;
    acl_rec *recs;
    uint32_t *keys; /* stripped: global sample index of every retained sample */
    /* metadata (NULL when absent) */
    const char *list_name;
    const char **names;
    int32_t *parents;
    ganim_transform *bind;
    uint32_t meta_off[5];
    uint32_t hist[33];                   /* bit widths over every segment's variable sub-tracks */
    uint32_t hash_stored, hash_computed; /* computed: by ganim_acl_read_doc only */
    uint32_t hash_warn_at;               /* the document's warning count after the header's */
    acl_fnv fnv; /* the whole-clip read's hash: begun in acl_open_ex's loops (left 0 otherwise), ended by the decode */
};

/* ---- small helpers ------------------------------------------------------------------ */

/* ganim_transform_identity() without the call (per track in the parse and the skeleton) */
static inline ganim_transform acl_identity(void)
{
    ganim_transform t = { { 0, 0, 0, 1 }, { 0, 0, 0 }, { 1, 1, 1 } };
    return t;
}

static inline uint32_t align_up(uint32_t v, uint32_t a) { return (v + (a - 1u)) & ~(a - 1u); }
static inline uint32_t popcount32(uint32_t v)
{
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    v = (v + (v >> 4)) & 0x0F0F0F0Fu;
    return (v * 0x01010101u) >> 24;
}
static inline int finite_f(float v) { return v == v && v - v == 0.0f; }
/* finite and within +-ACL_RANGE_MAX: one comparison (false for NaN and the infinities) */
static inline int in_range(float v) { return fabsf(v) <= ACL_RANGE_MAX; }

/* ACL's "always" policy: divide by the length. A degenerate quaternion (only from a
 * damaged buffer) becomes the identity so the document stays valid; returns 1 then. */
static inline int quat_normalise(float q[4])
{
    float len2 = (q[0] * q[0] + q[2] * q[2]) + (q[1] * q[1] + q[3] * q[3]);
    if (!(len2 >= 1e-12f && len2 <= 1e30f)) {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
        return 1;
    }
    float len = sqrtf(len2);
    q[0] = q[0] / len;
    q[1] = q[1] / len;
    q[2] = q[2] / len;
    q[3] = q[3] / len;
    return 0;
}
static inline float rebuild_w(float x, float y, float z) { return sqrtf(fabsf(((1.0f - x * x) - y * y) - z * z)); }

/* Type (default/constant/animated) of track i for `kind` from the packed words. */
static inline unsigned packed_type(const uint8_t *words, uint32_t e, unsigned kind, uint32_t i)
{
    uint32_t w = ganim_ld_u32le(words + 4u * ((size_t)kind * e + i / 16u));
    return (w >> (30u - 2u * (i % 16u))) & 3u;
}

/* ---- sample decode (hot) ------------------------------------------------------------ */

/* Sub-track r at `bit` of the bitstream at `ani` (room bytes to the end of the buffer).
 * Rotations get W but are not normalised. Returns 1 when a raw value was not finite. */
static inline int rec_decode(const acl_rec *r, const uint8_t *ani, size_t room, size_t bit, float o[4])
{
    bit += r->bit;
    switch (r->mode) {
    case M_VAR: {
        unsigned nb = r->nb;
        uint32_t qx, qy, qz;
        if (nb <= 19) {
            uint64_t w = gb_msb_window64(ani, room, bit);
            unsigned sh = 64u - nb;
            qx = (uint32_t)(w >> sh);
            qy = (uint32_t)((w << nb) >> sh);
            qz = (uint32_t)((w << (2u * nb)) >> sh);
        } else {
            unsigned sh = 64u - nb;
            qx = (uint32_t)(gb_msb_window64(ani, room, bit) >> sh);
            qy = (uint32_t)(gb_msb_window64(ani, room, bit + nb) >> sh);
            qz = (uint32_t)(gb_msb_window64(ani, room, bit + 2u * nb) >> sh);
        }
        float x = (float)qx * r->inv, y = (float)qy * r->inv, z = (float)qz * r->inv;
        if (r->segrange) {
            x = x * r->sext[0];
            y = y * r->sext[1];
            z = z * r->sext[2];
            x = x + r->smin[0];
            y = y + r->smin[1];
            z = z + r->smin[2];
        }
        x = x * r->cext[0];
        y = y * r->cext[1];
        z = z * r->cext[2];
        o[0] = x + r->cmin[0];
        o[1] = y + r->cmin[1];
        o[2] = z + r->cmin[2];
        if (r->kind == K_ROT) o[3] = rebuild_w(o[0], o[1], o[2]);
        return 0;
    }
    case M_CONST: memcpy(o, r->v, sizeof r->v); return 0;
    default: {
        int bad = 0;
        unsigned n = r->mode == M_FULL4 ? 4u : 3u;
        for (unsigned c = 0; c < n; c++) {
            o[c] = ganim_f32_from_bits((uint32_t)(gb_msb_window64(ani, room, bit + 32u * c) >> 32));
            if (!finite_f(o[c])) {
                o[c] = r->kind == K_SCALE ? 1.0f : 0.0f;
                bad = 1;
            }
        }
        if (r->kind == K_ROT && n == 3) o[3] = rebuild_w(o[0], o[1], o[2]);
        return bad;
    }
    }
}

/* For the few hot helpers gcc stops inlining once they hold every mode's path (those are
 * GANIM_ALWAYS_INLINE). */
#if defined(__GNUC__)
#define ACL_FLATTEN __attribute__((flatten)) /* every call inside inlined (the bit reads) */
#else
#define ACL_FLATTEN
#endif

#if defined(__SSE2__)
#include <emmintrin.h>

/* v's x, y, z with w = sqrt(|((1 - x*x) - y*y) - z*z|) in lane 3: rebuild_w's operations,
 * in lane 0 */
static inline __m128 acl_vec_with_w(__m128 v)
{
    __m128 sq = _mm_mul_ps(v, v);
    __m128 t = _mm_sub_ss(_mm_set_ss(1.0f), sq);
    t = _mm_sub_ss(t, _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(1, 1, 1, 1)));
    t = _mm_sub_ss(t, _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(2, 2, 2, 2)));
    t = _mm_sqrt_ss(_mm_and_ps(t, _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF))));
    __m128 hi = _mm_shuffle_ps(v, t, _MM_SHUFFLE(0, 0, 2, 2)); /* z z w w */
    return _mm_shuffle_ps(v, hi, _MM_SHUFFLE(2, 0, 1, 0));     /* x y z w */
}

/* The 96 bits from bit p of ani as three big-endian 32-bit words in lanes 0-2 (lane 3:
 * the next bits), from one 16-byte load at byte p / 8, which must be inside the buffer
 * (it is when the 8-byte window at p + 64 is). */
static inline __m128i acl_raw16(const uint8_t *ani, size_t p)
{
    __m128i q = _mm_loadu_si128((const __m128i *)(const void *)(ani + (p >> 3)));
    q = _mm_shufflehi_epi16(_mm_shufflelo_epi16(q, _MM_SHUFFLE(2, 3, 0, 1)), _MM_SHUFFLE(2, 3, 0, 1));
    q = _mm_or_si128(_mm_slli_epi16(q, 8), _mm_srli_epi16(q, 8)); /* big-endian words */
    /* the 128 bits shifted left by p & 7: a shift by 32 (byte-aligned) gives 0 in SSE2 */
    __m128i o = _mm_cvtsi32_si128((int)(p & 7u)), ro = _mm_cvtsi32_si128((int)(32u - (p & 7u)));
    return _mm_or_si128(_mm_sll_epi32(q, o), _mm_srl_epi32(_mm_srli_si128(q, 4), ro));
}

/* acl_raw_vec's components as stored (rotations of three components: 0 in lane 3, no
 * W yet); 0 when one is not finite. */
static inline int acl_raw_bits(const acl_rec *r, const uint8_t *ani, size_t bit, __m128 *out)
{
    bit += r->bit;
    __m128i q;
    if (!(bit & 7u)) { /* byte-aligned (always, when every sub-track is raw): one load */
        q = _mm_loadu_si128((const __m128i *)(const void *)(ani + (bit >> 3)));
        q = _mm_shufflehi_epi16(_mm_shufflelo_epi16(q, _MM_SHUFFLE(2, 3, 0, 1)), _MM_SHUFFLE(2, 3, 0, 1));
        q = _mm_or_si128(_mm_slli_epi16(q, 8), _mm_srli_epi16(q, 8)); /* big-endian words */
        if (r->mode != M_FULL4) q = _mm_and_si128(q, _mm_set_epi32(0, -1, -1, -1));
    } else if (r->mode != M_FULL4) { /* x, y, z: the same load, shifted */
        q = _mm_and_si128(acl_raw16(ani, bit), _mm_set_epi32(0, -1, -1, -1));
    } else {
        uint32_t x = (uint32_t)(gb_msb_window64_proven(ani, bit) >> 32);
        uint32_t y = (uint32_t)(gb_msb_window64_proven(ani, bit + 32u) >> 32);
        uint32_t z = (uint32_t)(gb_msb_window64_proven(ani, bit + 64u) >> 32);
        uint32_t w = (uint32_t)(gb_msb_window64_proven(ani, bit + 96u) >> 32);
        q = _mm_set_epi32((int)w, (int)z, (int)y, (int)x);
    }
    __m128i e = _mm_set1_epi32(0x7F800000);
    if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(q, e), e))) return 0; /* inf or NaN */
    *out = _mm_castsi128_ps(q);
    return 1;
}

/* A raw sub-track (M_RAW, M_FULL4) at pose bit `bit` as one vector, its 32-bit floats
 * read with proven loads: the caller checked that its last window is inside the buffer,
 * bit + r->bit + 32 x (components - 1) < gb_msb_proven_limit (then so are the 16 bytes
 * from its first byte).
 * Returns 0 when a component is not finite (rec_decode then replaces it); rotations of
 * three components get W, others have 0 in lane 3. Bit-identical to rec_decode. */
static inline int acl_raw_vec(const acl_rec *r, const uint8_t *ani, size_t bit, __m128 *out)
{
    __m128 v;
    if (!acl_raw_bits(r, ani, bit, &v)) return 0;
    *out = r->kind == K_ROT && r->mode != M_FULL4 ? acl_vec_with_w(v) : v;
    return 1;
}
#endif

/* ---- the clip's native record (acl_decode.c builds it, acl_details.c reads it) ------- */

/* The record kept on the clip for describe: little-endian u32 fields. */
enum {
    NF_VERSION,
    NF_MISC,
    NF_TRACKS,
    NF_SAMPLES,
    NF_RATE_BITS,
    NF_SEGMENTS,
    NF_SIZE,
    NF_HASH_STORED,
    NF_HASH_COMPUTED,
    NF_COUNTS, /* 9 values: kind*3 + type */
    NF_KEYS = NF_COUNTS + 9,
    NF_HIST,                /* 33 values */
    NF_META = NF_HIST + 33, /* 5 values */
    NF_SEGHDR = NF_META + 5,
    NF_COUNT
};
#define ACL_NATIVE "acl"

/* acl_sse2.c's decode of a variable sub-track's samples (acl_var_run4_pick) */
typedef uint32_t (*acl_var_run4_fn)(const acl_rec *r, const uint8_t *ani, size_t rbit, size_t pb, uint32_t n,
                                    float *out, acl_fnv *fnv);

#if defined(__SSE2__)
/* acl_sse2.c: M_VAR record r over stored samples [0, n) (all proven) into out (comps per
 * sample), four samples at a time, bit-identical to rec_decode + quat_normalise; returns
 * the count of degenerate rotations replaced by the identity. Advances `fnv` (may be NULL)
 * by its chunk at every four samples. Two forms of the same code: SSE2 (any x86-64), and
 * VEX-encoded with BMI2 where the CPU has AVX2 and BMI2 (acl_cpu_avx2: fewer
 * instructions, still 128-bit vectors); acl_var_run4_pick gives the one this CPU runs. */
uint32_t acl_var_run4_sse2(const acl_rec *r, const uint8_t *ani, size_t rbit, size_t pb, uint32_t n, float *out,
                           acl_fnv *fnv);
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define ACL_HAVE_AVX2 1
uint32_t acl_var_run4_avx2(const acl_rec *r, const uint8_t *ani, size_t rbit, size_t pb, uint32_t n, float *out,
                           acl_fnv *fnv);
#else
#define ACL_HAVE_AVX2 0
#endif
bool acl_cpu_avx2(void);
acl_var_run4_fn acl_var_run4_pick(void);
/* acl_sse2.c: raw rotation record r (M_RAW or M_FULL4, K_ROT) over stored samples [0, n)
 * (all proven) into out, four samples at a time (one square root of the four lengths,
 * and of the four W), bit-identical to rec_decode + quat_normalise. Stops before the first
 * group of four with a non-finite component and before the last n % 4 samples (the
 * caller's one-sample path takes them); returns the samples done, adds the degenerate
 * rotations replaced by the identity to *bad. Advances `fnv` (may be NULL) by its chunk
 * at every sample done. */
uint32_t acl_raw_rot4(const acl_rec *r, const uint8_t *ani, size_t pb, uint32_t n, float *out, acl_fnv *fnv,
                      uint32_t *bad);
#endif

/* acl_sample.c: stored sample i of segment sg into the animated sub-tracks of out (the
 * others untouched) by the random-access path, four sub-tracks a vector operation where
 * the open built groups: what ganim_acl_sample_key does once it has found the sample.
 * ganim_acl_decode_clip takes its segments of few samples this way (acl_decode.c). */
void acl_pose_key(const ganim_acl *h, const acl_seg *sg, uint32_t i, ganim_transform *out);

/* acl_open.c: the open, its flags saying what the handle is for. ACL_OPEN_GROUPS: the
 * random-access groups (acl_grp; ganim_acl_open). ACL_OPEN_CLIP: the groups only when
 * ganim_acl_decode_clip would use them (a segment of ACL_CLIP_SHORT stored samples or
 * fewer, decoded a pose at a time; ganim_acl_open_clip). ACL_OPEN_HASH: the hash begun in
 * the open's loops, for the whole-clip read (which uses no groups). ACL_OPEN_GENERAL (the
 * tests): the pose and types through the loop over the tracks (which the whole-clip read
 * of a clip with animated sub-tracks takes), not static_pose's pass by kind (the same
 * pose, types, animated tracks and errors). */
enum { ACL_OPEN_GROUPS = 1, ACL_OPEN_CLIP = 2, ACL_OPEN_HASH = 4, ACL_OPEN_GENERAL = 8 };
#ifndef ACL_CLIP_SHORT
#define ACL_CLIP_SHORT 8u /* segments of this many stored samples or fewer: acl_pose_key, a pose at a time */
#endif
ganim_code acl_open_ex(const uint8_t *data, size_t size, uint64_t base, const ganim_allocator *alloc,
                       const ganim_skeleton *bind, ganim_doc *wd, unsigned flags, ganim_acl **out, ganim_error *err);

/* acl.c: the "acl" format's entry points; acl_civ7.c, acl_civ7_write.c: the "civ7" format's;
 * acl_details.c: both formats' details. */
int acl_probe(const uint8_t *data, size_t size);
ganim_code acl_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts, ganim_error *err);
ganim_code acl_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b, ganim_error *err);
int civ7_probe(const uint8_t *data, size_t size);
ganim_code civ7_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts, ganim_error *err);
ganim_code civ7_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err);
ganim_code civ7_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b, ganim_error *err);

/* acl_civ7_skel.c: the "civ7-skeleton" format (a RootNode blob of bone records). */
int civ7_skel_probe(const uint8_t *data, size_t size);
ganim_code civ7_skel_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                          ganim_error *err);
#define CIV7_SKEL_RECORD 296u

#define CIV7_MAGIC 0x6AB06AB0u
#define CIV7_HEADER 0x60u
#define CIV7_V0_MARKER 0xFFFFFFFFu
#define CIV7_NATIVE "civ7"

/* One V0 record (qw qx qy qz px py pz sx sy sz at `at`) as the model keeps it: the
 * rotation as x y z w, a non-finite translation component 0, scale component 1, a rotation
 * of no usable length the identity and one off unit length normalized. 1 when something
 * was repaired. */
static inline int civ7_v0_record(const uint8_t *at, float *q, float *t, float *s)
{
    float v[10];
    for (unsigned c = 0; c < 10; c++) v[c] = ganim_ld_f32le(at + 4u * c);
    q[0] = v[1];
    q[1] = v[2];
    q[2] = v[3];
    q[3] = v[0];
    memcpy(t, v + 4, 3 * sizeof(float));
    memcpy(s, v + 7, 3 * sizeof(float));
    int bad = 0;
    for (unsigned c = 0; c < 3; c++) {
        if (!finite_f(t[c])) {
            t[c] = 0.0f;
            bad = 1;
        }
        if (!finite_f(s[c])) {
            s[c] = 1.0f;
            bad = 1;
        }
    }
    double len2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
    if (!(len2 > 1e-12 && len2 < 1e30)) {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
        bad = 1;
    } else if (fabs(len2 - 1.0) > 1e-4) {
        double inv = 1.0 / sqrt(len2);
        for (unsigned c = 0; c < 4; c++) q[c] = (float)(q[c] * inv);
        bad = 1;
    }
    return bad;
}

#endif
