/* ACL (Animation Compression Library) 2.x `compressed_tracks` transform buffers,
 * format versions 7-10: a bounded parser, a whole-clip decoder into the model and a
 * random-access single-pose sampler. Layout: docs/formats/acl.md.
 *
 * Arithmetic follows ACL's order of operations in float32 (the library is built with
 * -ffp-contract=off): integers times the reciprocal of their range, then the segment
 * range, then the clip range, W rebuilt from |1 - x² - y² - z²|, rotations divided by
 * their length (ACL's "always" normalisation policy). */
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "formats/acl.h"
#include "formats/formats.h"
#include "io/bits.h"
#include "io/reader.h"
#include "io/writer.h"

enum { K_ROT = 0, K_TRANS = 1, K_SCALE = 2 };
enum { T_DEFAULT = 0, T_CONST = 1, T_ANIM = 2 };
enum { M_CONST = 0, M_VAR, M_RAW, M_FULL4 }; /* how one animated sub-track is stored */

#define ACL_HDR 0x20u        /* transform_tracks_header: every offset is relative to it */
#define ACL_MIN_SIZE (0x20u + 52u)
#define ACL_NONE 0xFFFFFFFFu
#define ACL_MAX_VALUES (1u << 28) /* floats of per-frame data a document may get */
#define ACL_RANGE_MAX 1e18f  /* larger ranges could overflow float32 when applied */

static const char *const kind_name[3] = { "rotation", "translation", "scale" };

/* One animated sub-track in one segment, everything a sample decode needs. */
typedef struct acl_rec {
    uint32_t bit;   /* offset inside a pose, in bits */
    uint32_t track;
    uint8_t mode, nb, kind, segrange;
    float inv;      /* 1 / (2^nb - 1) */
    float smin[3], sext[3], cmin[3], cext[3];
    float v[4];     /* M_CONST: the value (rotation normalised) */
} acl_rec;

typedef struct acl_seg {
    uint32_t start, count, stored, pose_bits;
    uint32_t kept;       /* retained-sample bitset, bit (31 - i) = sample i (stripped only) */
    uint32_t first_key;  /* stripped: index of its first retained sample in acl->keys */
    const uint8_t *ani;  /* animated bitstream */
    size_t ani_room;     /* bytes from `ani` to the end of the buffer */
    acl_rec *recs;       /* acl->na records */
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
    float rate;
    int has_scale, def_scale, trivial, stripped, wrap, has_meta;
    uint32_t counts[3][3];   /* [kind][type] */
    uint32_t nanim[3];       /* animated sub-tracks per kind */
    uint8_t *types;          /* nt * 3 */
    ganim_transform *pose;   /* defaults and constants; animated entries overwritten */
    acl_seg *segs;
    acl_rec *recs;
    uint32_t *keys;          /* stripped: global sample index of every retained sample */
    /* metadata (NULL when absent) */
    const char *list_name;
    const char **names;
    int32_t *parents;
    ganim_transform *bind;
    uint32_t meta_off[5];
    uint32_t hist[33];       /* bit widths over every segment's variable sub-tracks */
    uint32_t hash_stored, hash_computed;
};

/* ---- small helpers ------------------------------------------------------------------ */

static uint32_t align_up(uint32_t v, uint32_t a) { return (v + (a - 1u)) & ~(a - 1u); }
static uint32_t popcount32(uint32_t v)
{
    uint32_t n = 0;
    for (; v; v &= v - 1u) n++;
    return n;
}
static int finite_f(float v) { return v == v && v - v == 0.0f; }
static int in_range(float v) { return finite_f(v) && v <= ACL_RANGE_MAX && v >= -ACL_RANGE_MAX; }

/* FNV-1a, bytewise as ACL defines it; unrolled by 8 so the loop costs ~3.4 instructions
 * a byte (load, xor, multiply) instead of ~6 (it runs over every byte of the buffer). */
static uint32_t fnv1a(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        h = (h ^ p[i]) * 16777619u;
        h = (h ^ p[i + 1]) * 16777619u;
        h = (h ^ p[i + 2]) * 16777619u;
        h = (h ^ p[i + 3]) * 16777619u;
        h = (h ^ p[i + 4]) * 16777619u;
        h = (h ^ p[i + 5]) * 16777619u;
        h = (h ^ p[i + 6]) * 16777619u;
        h = (h ^ p[i + 7]) * 16777619u;
    }
    for (; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

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
static inline float rebuild_w(float x, float y, float z)
{
    return sqrtf(fabsf(((1.0f - x * x) - y * y) - z * z));
}
static inline float f32_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Type (default/constant/animated) of track i for `kind` from the packed words. */
static unsigned packed_type(const uint8_t *words, uint32_t e, unsigned kind, uint32_t i)
{
    uint32_t w = ganim_ld_u32le(words + 4u * ((size_t)kind * e + i / 16u));
    return (w >> (30u - 2u * (i % 16u))) & 3u;
}

/* ---- sample decode (hot) ------------------------------------------------------------ */

/* Sub-track r at `bit` of the bitstream at `ani` (room bytes to the end of the buffer).
 * Rotations get W but are not normalised. Returns 1 when a raw value was not finite. */
static inline int rec_decode(const acl_rec *r, const uint8_t *ani, size_t room, size_t bit,
                             float o[4])
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
    case M_CONST:
        memcpy(o, r->v, sizeof r->v);
        return 0;
    default: {
        int bad = 0;
        unsigned n = r->mode == M_FULL4 ? 4u : 3u;
        for (unsigned c = 0; c < n; c++) {
            o[c] = f32_bits((uint32_t)(gb_msb_window64(ani, room, bit + 32u * c) >> 32));
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

/* ---- parsing ------------------------------------------------------------------------ */

typedef struct acl_layout {
    uint32_t size;
    uint32_t seghdr, types, cdata, crange; /* absolute (relative to the buffer) */
    uint32_t e, hsz;
    uint32_t anim_rot_var, anim_trans_var, anim_scale_var; /* counts in the range data */
    uint32_t cdata_size;
} acl_layout;

#define FAIL(code, off, ...) ganim_fail(err, (code), base + (uint64_t)(off), __VA_ARGS__)

static ganim_code parse_header(ganim_acl *h, acl_layout *L, const uint8_t *data, size_t size,
                               uint64_t base, ganim_doc *wd, ganim_error *err)
{
    ganim_reader r = gr_init(data, size, base);
    uint32_t bsize, tag;
    if (size < 4) return FAIL(GANIM_ERR_TRUNCATED, 0, "acl: the buffer is %zu bytes, too short for its header", size);
    gr_u32le(&r, &bsize);
    if (bsize < ACL_MIN_SIZE)
        return FAIL(GANIM_ERR_CORRUPT, 0, "acl: header: buffer size %u is smaller than the %u-byte header", bsize, ACL_MIN_SIZE);
    if (bsize > size)
        return FAIL(GANIM_ERR_TRUNCATED, size, "acl: header: the buffer announces %u bytes but only %zu are present", bsize, size);
    if (wd && bsize < size)
        ganim_doc_warn(wd, base + bsize, "acl: %zu bytes follow the %u-byte buffer and are ignored", size - bsize, bsize);
    L->size = bsize;
    h->size = bsize;
    gr_u32le(&r, &h->hash_stored);
    gr_u32le(&r, &tag);
    if (tag != GANIM_ACL_TAG)
        return FAIL(GANIM_ERR_CORRUPT, 8, "acl: header: tag 0x%08X is not 0xAC11AC11 (compressed_tracks)", tag);
    h->version = ganim_ld_u16le(data + 12);
    if (h->version < 7 || h->version > 10)
        return FAIL(GANIM_ERR_UNSUPPORTED, 12, "acl: header: format version %u is not one of 7-10 (ACL 2.0-2.1)", h->version);
    if (data[14] != 0)
        return FAIL(GANIM_ERR_UNSUPPORTED, 14, "acl: header: algorithm %u is not 0 (uniformly sampled)", data[14]);
    if (data[15] != 12)
        return FAIL(GANIM_ERR_UNSUPPORTED, 15, "acl: header: track type %u is not 12 (transforms); scalar tracks are not animations", data[15]);
    h->hash_computed = fnv1a(data + 8, bsize - 8u);
    if (wd && h->hash_computed != h->hash_stored)
        ganim_doc_warn(wd, base + 4, "acl: header: stored hash 0x%08X differs from the FNV-1a hash of the buffer 0x%08X; the buffer was modified or damaged",
                       h->hash_stored, h->hash_computed);
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
            ganim_doc_warn(wd, base + 28, "acl: header: flags 0x%08X set bits that ACL 2.0 (version 7) does not use; ignored", m);
    }
    if ((m >> 8) & 1u)
        return FAIL(GANIM_ERR_UNSUPPORTED, 28, "acl: header: the buffer keeps part of its key frames in a separate ACL database (flag bit 8), which is not in this file");
    if (h->rfmt != 0 && h->rfmt != 2 && h->rfmt != 3)
        return FAIL(GANIM_ERR_CORRUPT, 28, "acl: header: rotation format %u is not 0, 2 or 3", h->rfmt);
    if (h->nt == 0) return FAIL(GANIM_ERR_CORRUPT, 16, "acl: header: the buffer has no tracks");
    if (h->ns == 0) return FAIL(GANIM_ERR_CORRUPT, 20, "acl: header: the buffer has no samples");
    if (!((double)h->rate >= GANIM_MIN_FPS && (double)h->rate <= GANIM_MAX_FPS)) /* also NaN */
        return FAIL(GANIM_ERR_CORRUPT, 24, "acl: header: sample rate %g is outside %g..%g samples per second", (double)h->rate,
                    GANIM_MIN_FPS, GANIM_MAX_FPS);
    /* the library's limits, before anything is sized or looped by the sample count */
    uint64_t frames = (uint64_t)h->ns + (uint64_t)h->wrap;
    if (frames > GANIM_MAX_FRAMES)
        return FAIL(GANIM_ERR_LIMIT, 20, "acl: header: %llu frames, above the library limit of %u frames per clip",
                    (unsigned long long)frames, GANIM_MAX_FRAMES);
    if (frames * h->nt > GANIM_MAX_FRAME_SAMPLES)
        return FAIL(GANIM_ERR_LIMIT, 16, "acl: header: %u tracks x %llu frames, above the library limit of %u track samples per clip",
                    h->nt, (unsigned long long)frames, GANIM_MAX_FRAME_SAMPLES);

    const uint8_t *th = data + ACL_HDR;
    h->nseg = ganim_ld_u32le(th + 0);
    h->nv = ganim_ld_u32le(th + 4);
    for (unsigned k = 0; k < 3; k++) h->nanim[k] = ganim_ld_u32le(th + 8 + 4 * k);
    uint32_t nconst[3];
    for (unsigned k = 0; k < 3; k++) nconst[k] = ganim_ld_u32le(th + 20 + 4 * k);
    uint32_t db = ganim_ld_u32le(th + 32);
    if (db != ACL_NONE)
        return FAIL(GANIM_ERR_UNSUPPORTED, ACL_HDR + 32, "acl: header: the buffer refers to an ACL database (offset 0x%X), which is not in this file", db);
    if (!h->has_scale && (h->nanim[2] || nconst[2]))
        return FAIL(GANIM_ERR_CORRUPT, ACL_HDR + 16, "acl: header: scale sub-tracks are counted although the clip has no scale");

    L->hsz = h->stripped ? 20u : 16u;
    L->e = (h->nt + 15u) / 16u;
    uint32_t groups = h->has_scale ? 3u : 2u;
    uint64_t off;
    /* each offset is relative to the transform header and must leave room for its block */
    off = (uint64_t)ganim_ld_u32le(th + 36) + ACL_HDR;
    if (h->nseg == 0) return FAIL(GANIM_ERR_CORRUPT, ACL_HDR, "acl: header: the buffer has no segments");
    if (off > bsize || (uint64_t)h->nseg * L->hsz > bsize - off)
        return FAIL(GANIM_ERR_TRUNCATED, ACL_HDR + 36, "acl: header: %u segment headers at 0x%llX do not fit in the %u-byte buffer", h->nseg, (unsigned long long)off, bsize);
    L->seghdr = (uint32_t)off;
    if (h->nseg > 1 && (uint64_t)ACL_HDR + 52 + 4ull * (h->nseg + 1ull) > bsize)
        return FAIL(GANIM_ERR_TRUNCATED, ACL_HDR + 52, "acl: header: the start indices of %u segments do not fit in the buffer", h->nseg);
    off = (uint64_t)ganim_ld_u32le(th + 40) + ACL_HDR;
    if (off > bsize || 4ull * L->e * groups > bsize - off)
        return FAIL(GANIM_ERR_TRUNCATED, ACL_HDR + 40, "acl: header: the sub-track types of %u tracks at 0x%llX do not fit in the buffer", h->nt, (unsigned long long)off);
    L->types = (uint32_t)off;
    /* count the types and check them against the header */
    for (unsigned k = 0; k < 3; k++) {
        uint32_t c[3] = { 0, 0, 0 };
        if (k < groups) {
            for (uint32_t i = 0; i < h->nt; i++) {
                unsigned t = packed_type(data + L->types, L->e, k, i);
                if (t == 3)
                    return FAIL(GANIM_ERR_CORRUPT, L->types + 4u * (k * L->e + i / 16u), "acl: track %u: %s sub-track type 3 is not default, constant or animated", i, kind_name[k]);
                c[t]++;
            }
        } else {
            c[T_DEFAULT] = h->nt;
        }
        if (c[T_CONST] != nconst[k] || c[T_ANIM] != h->nanim[k])
            return FAIL(GANIM_ERR_CORRUPT, ACL_HDR + 8 + 4 * k, "acl: header: %u constant and %u animated %s sub-tracks announced, the type table holds %u and %u",
                        nconst[k], h->nanim[k], kind_name[k], c[T_CONST], c[T_ANIM]);
        for (unsigned t = 0; t < 3; t++) h->counts[k][t] = c[t];
    }
    int rvar = h->rfmt == 3, tvar = h->tfmt == 1, svar = h->sfmt == 1 && h->has_scale;
    L->anim_rot_var = rvar ? h->nanim[0] : 0;
    L->anim_trans_var = tvar ? h->nanim[1] : 0;
    L->anim_scale_var = svar ? h->nanim[2] : 0;
    uint64_t nv = (rvar ? align_up(h->nanim[0], 4) : 0) + (uint64_t)L->anim_trans_var + L->anim_scale_var;
    if (nv != h->nv)
        return FAIL(GANIM_ERR_CORRUPT, ACL_HDR + 4, "acl: header: %u variable sub-tracks announced, the counts give %llu", h->nv, (unsigned long long)nv);
    h->na = h->nanim[0] + h->nanim[1] + h->nanim[2];

    off = (uint64_t)ganim_ld_u32le(th + 44) + ACL_HDR;
    uint64_t csize = (uint64_t)nconst[0] * (h->rfmt == 0 ? 16u : 12u) + 12ull * nconst[1] + 12ull * nconst[2];
    if (off > bsize || csize > bsize - off)
        return FAIL(GANIM_ERR_TRUNCATED, ACL_HDR + 44, "acl: header: %llu bytes of constant samples at 0x%llX do not fit in the buffer", (unsigned long long)csize, (unsigned long long)off);
    L->cdata = (uint32_t)off;
    L->cdata_size = (uint32_t)csize;
    off = (uint64_t)ganim_ld_u32le(th + 48) + ACL_HDR;
    uint64_t rsize = 24ull * (L->anim_rot_var + (uint64_t)L->anim_trans_var + L->anim_scale_var);
    if (off > bsize || rsize > bsize - off)
        return FAIL(GANIM_ERR_TRUNCATED, ACL_HDR + 48, "acl: header: %llu bytes of clip range data at 0x%llX do not fit in the buffer", (unsigned long long)rsize, (unsigned long long)off);
    L->crange = (uint32_t)off;
    if ((uint64_t)h->nseg * h->na > bsize)
        return FAIL(GANIM_ERR_CORRUPT, ACL_HDR, "acl: header: %u segments of %u animated sub-tracks cannot fit in %u bytes", h->nseg, h->na, bsize);
    if (h->has_meta && bsize < ACL_MIN_SIZE + 20u)
        return FAIL(GANIM_ERR_TRUNCATED, bsize, "acl: metadata: the buffer is too short for its metadata header");
    return GANIM_OK;
}

/* Clip range of animated sub-track `a` of `kind` (only for variable formats). */
static void clip_range(const ganim_acl *h, const acl_layout *L, unsigned kind, uint32_t a,
                       float mn[3], float ex[3])
{
    const uint8_t *R = h->data + L->crange;
    if (kind == K_ROT) {
        uint32_t g = a / 4u, j = a % 4u, n = h->nanim[0] - 4u * g;
        if (n > 4) n = 4;
        const uint8_t *F = R + 96u * g;
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

/* Constant sample c of `kind`. */
static void const_sample(const ganim_acl *h, const acl_layout *L, unsigned kind, uint32_t c, float v[4])
{
    const uint8_t *D = h->data + L->cdata;
    uint32_t ncr = h->counts[0][T_CONST], nct = h->counts[1][T_CONST];
    if (kind == K_ROT) {
        if (h->rfmt == 0) {
            for (unsigned i = 0; i < 4; i++) v[i] = ganim_ld_f32le(D + 16u * c + 4u * i);
        } else {
            uint32_t g = c / 4u, j = c % 4u, n = ncr - 4u * g;
            if (n > 4) n = 4;
            const uint8_t *F = D + 48u * g;
            for (unsigned i = 0; i < 3; i++) v[i] = ganim_ld_f32le(F + 4u * (i * n + j));
            v[3] = rebuild_w(v[0], v[1], v[2]);
        }
        return;
    }
    const uint8_t *F = D + (size_t)ncr * (h->rfmt == 0 ? 16u : 12u) + 12u * c;
    if (kind == K_SCALE) F += 12u * nct;
    for (unsigned i = 0; i < 3; i++) v[i] = ganim_ld_f32le(F + 4u * i);
}

static ganim_code parse_metadata(ganim_acl *h, const acl_layout *L, ganim_doc *wd, uint64_t base,
                                 ganim_error *err)
{
    const uint8_t *d = h->data;
    uint32_t sz = L->size, mh = sz - 20u;
    (void)err;
    for (unsigned i = 0; i < 5; i++) h->meta_off[i] = ganim_ld_u32le(d + mh + 4u * i);
    uint32_t o = h->meta_off[0];
    if (o != ACL_NONE) {
        const uint8_t *nul = o < mh ? memchr(d + o, 0, mh - o) : NULL;
        if (nul) h->list_name = (const char *)(d + o);
        else if (wd) ganim_doc_warn(wd, base + mh, "acl: metadata: the track list name at 0x%X is outside the buffer or unterminated; ignored", o);
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
                    if (wd) ganim_doc_warn(wd, base + o + 4u * i, "acl: metadata: the name of track %u is outside the buffer; track names ignored", i);
                } else {
                    h->names[i] = (const char *)(d + s);
                }
            }
            if (!ok) h->names = NULL;
        } else {
            h->names = NULL;
            if (wd) ganim_doc_warn(wd, base + mh + 4, "acl: metadata: the track name table at 0x%X does not fit in the buffer; ignored", o);
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
                if (wd) ganim_doc_warn(wd, base + o + 4u * i, "acl: metadata: track %u names parent %u, which does not come before it; made a root", i, p);
            } else {
                h->parents[i] = (int32_t)p;
            }
        }
    } else {
        if (o != ACL_NONE && wd) ganim_doc_warn(wd, base + mh + 8, "acl: metadata: the parent table at 0x%X does not fit in the buffer; ignored", o);
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
            ganim_transform t = ganim_transform_identity();
            if (ok) {
                float q[4] = { f[0], f[1], f[2], f[3] };
                if (quat_normalise(q) && wd)
                    ganim_doc_warn(wd, base + o + 48u * i + 8, "acl: metadata: track %u: the default rotation is degenerate; identity used", i);
                t.rotation = (ganim_quat){ q[0], q[1], q[2], q[3] };
                t.translation = (ganim_vec3){ f[4], f[5], f[6] };
                t.scale = (ganim_vec3){ f[7], f[8], f[9] };
            } else if (wd) {
                ganim_doc_warn(wd, base + o + 48u * i, "acl: metadata: track %u: the default values are not finite; identity used", i);
            }
            h->bind[i] = t;
        }
    } else {
        if (o != ACL_NONE && wd) ganim_doc_warn(wd, base + mh + 12, "acl: metadata: the track descriptions at 0x%X do not fit in the buffer; ignored", o);
        h->bind = NULL;
    }
    return GANIM_OK;
}

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
    if (h->nseg == 1) {
        sg->start = 0;
        sg->count = h->ns;
    } else {
        const uint8_t *si = d + ACL_HDR + 52u;
        sg->start = ganim_ld_u32le(si + 4u * s);
        uint32_t next = s + 1 < h->nseg ? ganim_ld_u32le(si + 4u * (s + 1)) : h->ns;
        if ((s == 0 && sg->start != 0) || sg->start >= h->ns || next <= sg->start || next > h->ns)
            return FAIL(GANIM_ERR_CORRUPT, ACL_HDR + 52u + 4u * s, "acl: segment %u: start sample %u is out of order or beyond the %u samples", s, sg->start, h->ns);
        sg->count = next - sg->start;
    }
    if (h->stripped) {
        if (sg->count > 32)
            return FAIL(GANIM_ERR_CORRUPT, ho, "acl: segment %u: %u samples, more than the 32 a stripped segment can describe", s, sg->count);
        uint32_t mask = sg->count == 32 ? ACL_NONE : ~(ACL_NONE >> sg->count);
        sg->kept = ganim_ld_u32le(d + ho + 16) & mask;
        sg->stored = popcount32(sg->kept);
    } else {
        sg->kept = ACL_NONE;
        sg->stored = sg->count;
    }
    uint64_t fmt = (uint64_t)hb[3] + ACL_HDR;
    if (fmt > sz || h->nv > sz - fmt)
        return FAIL(GANIM_ERR_TRUNCATED, ho + 12, "acl: segment %u: its data at 0x%llX lies outside the %u-byte buffer", s, (unsigned long long)fmt, sz);
    uint64_t rng = fmt + h->nv, ani = rng;
    int multi = h->nseg > 1;
    if (multi) {
        rng = (rng + 1u) & ~1ull;
        ani = rng + 6ull * h->nv;
    }
    ani = (ani + 3u) & ~3ull;
    uint64_t bits = (uint64_t)sg->pose_bits * sg->stored;
    if (ani > sz || (bits + 7u) / 8u > sz - ani)
        return FAIL(GANIM_ERR_TRUNCATED, ani < sz ? ani : sz, "acl: segment %u: %u samples of %u bits do not fit in the buffer", s, sg->stored, sg->pose_bits);
    sg->ani = d + ani;
    sg->ani_room = sz - (size_t)ani;
    sg->recs = h->recs + (size_t)s * h->na;

    uint32_t bitpos = 0, kind_bits[3] = { 0, 0, 0 };
    uint32_t rot4 = h->rfmt == 3 ? align_up(h->nanim[0], 4) : 0;
    uint32_t fbase[3] = { 0, rot4, rot4 + (h->tfmt == 1 ? h->nanim[1] : 0) };
    uint32_t rbase[3] = { 0, 6u * rot4, 6u * (rot4 + (h->tfmt == 1 ? h->nanim[1] : 0)) };
    uint32_t idx = 0;
    for (unsigned k = 0; k < 3; k++) {
        int var = k == K_ROT ? h->rfmt == 3 : k == K_TRANS ? h->tfmt == 1 : h->sfmt == 1;
        for (uint32_t a = 0; a < h->nanim[k]; a++, idx++) {
            acl_rec *r = &sg->recs[idx];
            memset(r, 0, sizeof *r);
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
                return FAIL(GANIM_ERR_CORRUPT, fo, "acl: segment %u: %s sub-track of track %u has bit width %u (valid: 0-23, raw %u)", s, kind_name[k], r->track, nb, h->raw_bits);
            float cmn[3], cex[3];
            clip_range(h, L, k, a, cmn, cex);
            /* segment range entry (present only when the clip has several segments) */
            const uint8_t *sr = multi ? d + rng + rbase[k] + (k == K_ROT ? 24u * (a / 4u) : 6u * a) : NULL;
            uint32_t j = a % 4u;
            if (nb == 0) {
                if (!multi)
                    return FAIL(GANIM_ERR_CORRUPT, fo, "acl: segment %u: %s sub-track of track %u has bit width 0 in a single-segment clip", s, kind_name[k], r->track);
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
            r->inv = 1.0f / (float)((1u << nb) - 1u);
            r->segrange = (uint8_t)multi;
            for (unsigned c = 0; c < 3; c++) {
                r->cmin[c] = cmn[c];
                r->cext[c] = cex[c];
                if (multi) {
                    unsigned mn = k == K_ROT ? sr[4u * c + j] : sr[c];
                    unsigned ex = k == K_ROT ? sr[12u + 4u * c + j] : sr[3u + c];
                    r->smin[c] = (float)mn * (1.0f / 255.0f);
                    r->sext[c] = (float)ex * (1.0f / 255.0f);
                }
            }
            kind_bits[k] += 3u * nb;
            bitpos += 3u * nb;
        }
    }
    if (hb[1] != kind_bits[0] || hb[2] != kind_bits[1] || (uint64_t)hb[0] != (uint64_t)kind_bits[0] + kind_bits[1] + kind_bits[2])
        return FAIL(GANIM_ERR_CORRUPT, ho, "acl: segment %u: header bit sizes %u/%u/%u (pose/rotation/translation) disagree with the sub-track widths (%u/%u/%u)",
                    s, hb[0], hb[1], hb[2], kind_bits[0] + kind_bits[1] + kind_bits[2], kind_bits[0], kind_bits[1]);
    return GANIM_OK;
}

ganim_code ganim_acl_open(const uint8_t *data, size_t size, uint64_t base,
                          const ganim_allocator *alloc, const ganim_skeleton *bind,
                          ganim_doc *wd, ganim_acl **out, ganim_error *err)
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

    /* one block: struct, types, pose, segments, records, keys, names, parents, bind, anim list */
    size_t nt = hdr.nt, o = 0, sizes[9], offs[9];
    size_t keys = hdr.stripped ? (size_t)hdr.nseg * 32u : 0;
    bool ok = ganim_mul_size(nt, 3, &sizes[0]) && ganim_mul_size(nt, sizeof(ganim_transform), &sizes[1]) &&
              ganim_mul_size(hdr.nseg, sizeof(acl_seg), &sizes[2]) &&
              ganim_mul_size((size_t)hdr.nseg * hdr.na, sizeof(acl_rec), &sizes[3]) &&
              ganim_mul_size(keys, 4, &sizes[4]) && ganim_mul_size(nt, sizeof(char *), &sizes[5]) &&
              ganim_mul_size(nt, 4, &sizes[6]) && ganim_mul_size(nt, sizeof(ganim_transform), &sizes[7]) &&
              ganim_mul_size(hdr.na, 4, &sizes[8]);
    if (!ok) return GANIM_NOMEM(err);
    o = (sizeof(ganim_acl) + 15u) & ~(size_t)15u;
    for (unsigned i = 0; i < 9; i++) {
        offs[i] = o;
        if (sizes[i] > SIZE_MAX - o - 16u) return GANIM_NOMEM(err);
        o = (o + sizes[i] + 15u) & ~(size_t)15u;
    }
    ganim_allocator A = ganim_allocator_resolve(alloc);
    uint8_t *blk = ganim_alloc(&A, o);
    if (!blk) return GANIM_NOMEM(err);
    /* the records (the bulk) are written whole by parse_segment; zero the rest */
    memset(blk, 0, offs[3]);
    memset(blk + offs[4], 0, o - offs[4]);
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
        } else if (wd && h->counts[0][T_DEFAULT] + h->counts[1][T_DEFAULT] + h->counts[2][T_DEFAULT]) {
            ganim_doc_warn(wd, base + 28, "acl: header: default sub-tracks use the bind pose (flag bit 9 clear) but the buffer has no track descriptions and no skeleton was given; identity used");
        }
    }
    uint32_t groups = h->has_scale ? 3u : 2u, ai[3] = { 0, 0, 0 }, ci[3] = { 0, 0, 0 };
    float ds = h->def_scale ? 1.0f : 0.0f;
    for (uint32_t i = 0; i < h->nt; i++) {
        ganim_transform t = defaults ? defaults[i] : ganim_transform_identity();
        if (!defaults) t.scale = (ganim_vec3){ ds, ds, ds };
        for (unsigned k = 0; k < 3; k++) {
            unsigned ty = k < groups ? packed_type(data + L.types, L.e, k, i) : T_DEFAULT;
            h->types[3 * i + k] = (uint8_t)ty;
            if (ty == T_ANIM) {
                uint32_t slot = (k > 0 ? h->nanim[0] : 0) + (k > 1 ? h->nanim[1] : 0) + ai[k]++;
                anim_track[slot] = i;
            } else if (ty == T_CONST) {
                float v[4] = { 0, 0, 0, 0 };
                uint32_t c = ci[k]++;
                const_sample(h, &L, k, c, v);
                for (unsigned q = 0; q < (k == K_ROT ? 4u : 3u); q++)
                    if (!in_range(v[q])) {
                        rc = ganim_fail(err, GANIM_ERR_CORRUPT, base + L.cdata, "acl: track %u: constant %s sample %u is not a finite number", i, kind_name[k], c);
                        goto fail;
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
        h->pose[i] = t;
    }
    /* clip ranges must be finite and moderate so applying them cannot overflow */
    {
        uint32_t nr = L.anim_rot_var + L.anim_trans_var + L.anim_scale_var;
        for (uint32_t i = 0; i < 6u * nr; i++)
            if (!in_range(ganim_ld_f32le(data + L.crange + 4u * i))) {
                rc = ganim_fail(err, GANIM_ERR_CORRUPT, base + L.crange + 4u * i, "acl: clip range data: value %u is not a finite number of moderate size", i);
                goto fail;
            }
    }
    uint32_t nk = 0;
    for (uint32_t s = 0; s < h->nseg; s++) {
        rc = parse_segment(h, &L, s, anim_track, base, err);
        if (rc) goto fail;
        acl_seg *sg = &h->segs[s];
        sg->first_key = nk;
        if (h->stripped)
            for (uint32_t i = 0; i < sg->count; i++)
                if (sg->kept & (0x80000000u >> i)) h->keys[nk++] = sg->start + i;
    }
    h->nkeys = nk;
    if (h->nseg > 1 && wd && ganim_ld_u32le(data + ACL_HDR + 52u + 4u * h->nseg) != ACL_NONE)
        ganim_doc_warn(wd, base + ACL_HDR + 52u + 4u * h->nseg, "acl: the segment start list does not end with 0xFFFFFFFF");
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

/* ---- random access ------------------------------------------------------------------ */

static uint32_t seg_of(const ganim_acl *h, uint32_t k)
{
    uint32_t lo = 0, hi = h->nseg - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        if (h->segs[mid].start <= k) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Segment and stored index of retained key `key` (index into h->keys) or of sample k. */
static void locate(const ganim_acl *h, uint32_t k, uint32_t *s, uint32_t *i)
{
    *s = seg_of(h, k);
    const acl_seg *sg = &h->segs[*s];
    uint32_t r = k - sg->start;
    *i = h->stripped ? popcount32(sg->kept & ~(ACL_NONE >> r)) : r;
}

static void pose_between(const ganim_acl *h, uint32_t k0, uint32_t k1, float alpha, ganim_transform *out);

void ganim_acl_sample_pose(const ganim_acl *h, float t, ganim_transform *out)
{
    memcpy(out, h->pose, (size_t)h->nt * sizeof *out);
    if (!h->na) return;
    uint32_t nsx = h->ns + (uint32_t)h->wrap;
    float dur = (float)(nsx - 1u) / h->rate;
    if (!(t > 0.0f)) t = 0.0f;
    if (t > dur) t = dur;
    float f = t * h->rate;
    if (!(f < (float)nsx)) f = (float)(nsx - 1u); /* never convert beyond the clip (or inf) */
    uint32_t k0 = (uint32_t)f, k1;
    float alpha = f - (float)k0;
    if (h->wrap) {
        if (k0 > h->ns - 1u) { k0 = k1 = 0; alpha = 0.0f; }
        else k1 = k0 + 1u >= h->ns ? 0 : k0 + 1u;
    } else {
        if (k0 > h->ns - 1u) k0 = h->ns - 1u;
        k1 = k0 + 1u < h->ns ? k0 + 1u : h->ns - 1u;
    }
    if (h->stripped) {
        /* nearest retained samples at or before k0 and at or after k1 */
        uint32_t lo = 0, hi = h->nkeys;
        while (lo < hi) { uint32_t m = (lo + hi) / 2; if (h->keys[m] <= k0) lo = m + 1; else hi = m; }
        uint32_t a = lo ? lo - 1 : 0;
        lo = 0; hi = h->nkeys;
        while (lo < hi) { uint32_t m = (lo + hi) / 2; if (h->keys[m] < k1) lo = m + 1; else hi = m; }
        uint32_t b = lo < h->nkeys ? lo : h->nkeys - 1;
        float ka = (float)h->keys[a], kb = (float)h->keys[b];
        if (h->wrap && k1 < k0) kb = (float)(h->ns + h->keys[b]);
        alpha = kb > ka ? (f - ka) / (kb - ka) : 0.0f;
        if (alpha < 0.0f) alpha = 0.0f;
        if (alpha > 1.0f) alpha = 1.0f;
        k0 = h->keys[a];
        k1 = h->keys[b];
    }
    pose_between(h, k0, k1, alpha, out);
}

void ganim_acl_sample_key(const ganim_acl *h, uint32_t k, ganim_transform *out)
{
    memcpy(out, h->pose, (size_t)h->nt * sizeof *out);
    if (!h->na) return;
    if (k >= h->ns) k = h->wrap ? 0 : h->ns - 1u;
    if (h->stripped) { /* the retained key at or before k */
        uint32_t lo = 0, hi = h->nkeys;
        while (lo < hi) { uint32_t m = (lo + hi) / 2; if (h->keys[m] <= k) lo = m + 1; else hi = m; }
        k = h->keys[lo ? lo - 1 : 0];
    }
    pose_between(h, k, k, 0.0f, out);
}

/* The animated sub-tracks of `out` at samples k0..k1 (retained ones when stripped). */
static void pose_between(const ganim_acl *h, uint32_t k0, uint32_t k1, float alpha, ganim_transform *out)
{
    uint32_t s0, i0, s1, i1;
    locate(h, k0, &s0, &i0);
    locate(h, k1, &s1, &i1);
    const acl_seg *g0 = &h->segs[s0], *g1 = &h->segs[s1];
    size_t b0 = (size_t)i0 * g0->pose_bits, b1 = (size_t)i1 * g1->pose_bits;
    int lerp = alpha != 0.0f && (k0 != k1);
    for (uint32_t a = 0; a < h->na; a++) {
        const acl_rec *r = &g0->recs[a];
        float v[4], w[4];
        rec_decode(r, g0->ani, g0->ani_room, b0, v);
        if (lerp) {
            rec_decode(&g1->recs[a], g1->ani, g1->ani_room, b1, w);
            if (r->kind == K_ROT) {
                float dot = (v[0] * w[0] + v[2] * w[2]) + (v[1] * w[1] + v[3] * w[3]);
                if (dot < 0.0f) { w[0] = -w[0]; w[1] = -w[1]; w[2] = -w[2]; w[3] = -w[3]; }
                for (unsigned c = 0; c < 4; c++) {
                    float p = v[c] * alpha;
                    float q = w[c] * alpha;
                    v[c] = (v[c] - p) + q;
                }
            } else {
                for (unsigned c = 0; c < 3; c++) {
                    float dlt = (w[c] - v[c]) * alpha;
                    v[c] = dlt + v[c];
                }
            }
        }
        ganim_transform *o = &out[r->track];
        if (r->kind == K_ROT) {
            quat_normalise(v);
            o->rotation = (ganim_quat){ v[0], v[1], v[2], v[3] };
        } else if (r->kind == K_TRANS) {
            o->translation = (ganim_vec3){ v[0], v[1], v[2] };
        } else {
            o->scale = (ganim_vec3){ v[0], v[1], v[2] };
        }
    }
}

/* ---- whole-clip decode: one sub-track over one segment at a time ----------------------
 *
 * Record-major: the record's constants stay in registers and its mode is decided once
 * per segment. With SSE2, four samples go through the float work at once (one sample
 * per lane, x/y/z/w in separate vectors); every lane does exactly the scalar path's
 * IEEE operations in the same order, so the values are bit-identical to rec_decode +
 * quat_normalise (the random-access path; test_acl checks it). */

/* Stored samples of `sg` whose 8-byte windows are all inside the buffer: every bit a
 * record reads in sample i lies below (i + 1) * pose_bits (parse_segment checked that
 * the widths add up to pose_bits), so sample i is safe when (i+1)*pose_bits - 1 is below
 * gb_msb_proven_limit. */
static uint32_t proven_samples(const acl_seg *sg)
{
    uint64_t lim = gb_msb_proven_limit(sg->ani_room), pb = sg->pose_bits;
    if (pb == 0) return sg->stored;
    uint64_t n = lim / pb; /* (i + 1) * pb <= lim */
    return n < sg->stored ? (uint32_t)n : sg->stored;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* Quantised x, y, z of M_VAR record r in samples at bit offsets b[0..3] (proven). */
static inline void var_ints4(const acl_rec *r, const uint8_t *ani, const size_t b[4],
                             __m128i *X, __m128i *Y, __m128i *Z)
{
    unsigned nb = r->nb, sh = 64u - nb;
    uint32_t x[4], y[4], z[4];
    if (nb <= 19) {
        for (unsigned j = 0; j < 4; j++) {
            uint64_t w = gb_msb_window64_proven(ani, b[j]);
            x[j] = (uint32_t)(w >> sh);
            y[j] = (uint32_t)((w << nb) >> sh);
            z[j] = (uint32_t)((w << (2u * nb)) >> sh);
        }
    } else {
        for (unsigned j = 0; j < 4; j++) {
            x[j] = (uint32_t)(gb_msb_window64_proven(ani, b[j]) >> sh);
            y[j] = (uint32_t)(gb_msb_window64_proven(ani, b[j] + nb) >> sh);
            z[j] = (uint32_t)(gb_msb_window64_proven(ani, b[j] + 2u * nb) >> sh);
        }
    }
    *X = _mm_set_epi32((int)x[3], (int)x[2], (int)x[1], (int)x[0]);
    *Y = _mm_set_epi32((int)y[3], (int)y[2], (int)y[1], (int)y[0]);
    *Z = _mm_set_epi32((int)z[3], (int)z[2], (int)z[1], (int)z[0]);
}

/* M_VAR record r over stored samples [0, n) (all proven) into out (comps per sample);
 * returns the count of degenerate rotations replaced by the identity. */
static uint32_t var_run4(const acl_rec *r, const uint8_t *ani, size_t rbit, size_t pb, uint32_t n,
                         float *out)
{
    const __m128 inv = _mm_set1_ps(r->inv), one = _mm_set1_ps(1.0f);
    const __m128 smx = _mm_set1_ps(r->smin[0]), smy = _mm_set1_ps(r->smin[1]), smz = _mm_set1_ps(r->smin[2]);
    const __m128 sex = _mm_set1_ps(r->sext[0]), sey = _mm_set1_ps(r->sext[1]), sez = _mm_set1_ps(r->sext[2]);
    const __m128 cmx = _mm_set1_ps(r->cmin[0]), cmy = _mm_set1_ps(r->cmin[1]), cmz = _mm_set1_ps(r->cmin[2]);
    const __m128 cex = _mm_set1_ps(r->cext[0]), cey = _mm_set1_ps(r->cext[1]), cez = _mm_set1_ps(r->cext[2]);
    const __m128 absm = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF));
    const __m128 lo = _mm_set1_ps(1e-12f), hi = _mm_set1_ps(1e30f);
    const int rot = r->kind == K_ROT, seg = r->segrange;
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i += 4) {
        uint32_t rem = n - i < 4 ? n - i : 4; /* lanes past the end repeat the last sample */
        size_t b[4];
        b[0] = rbit + (size_t)i * pb;
        for (uint32_t j = 1; j < 4; j++) b[j] = j < rem ? b[j - 1] + pb : b[j - 1];
        __m128i qx, qy, qz;
        var_ints4(r, ani, b, &qx, &qy, &qz);
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
        float tmp[16];
        float *o = rem == 4 ? out + (size_t)i * (rot ? 4u : 3u) : tmp;
        if (rot) {
            __m128 xx = _mm_mul_ps(x, x), yy = _mm_mul_ps(y, y), zz = _mm_mul_ps(z, z);
            __m128 w = _mm_sqrt_ps(_mm_and_ps(_mm_sub_ps(_mm_sub_ps(_mm_sub_ps(one, xx), yy), zz), absm));
            __m128 len2 = _mm_add_ps(_mm_add_ps(xx, zz), _mm_add_ps(yy, _mm_mul_ps(w, w)));
            __m128 ok = _mm_and_ps(_mm_cmpge_ps(len2, lo), _mm_cmple_ps(len2, hi));
            __m128 len = _mm_sqrt_ps(len2);
            x = _mm_div_ps(x, len);
            y = _mm_div_ps(y, len);
            z = _mm_div_ps(z, len);
            w = _mm_div_ps(w, len);
            int m = _mm_movemask_ps(ok);
            if (m != 0xF) { /* only from damaged data: the identity in those lanes */
                x = _mm_and_ps(x, ok);
                y = _mm_and_ps(y, ok);
                z = _mm_and_ps(z, ok);
                w = _mm_or_ps(_mm_and_ps(w, ok), _mm_andnot_ps(ok, one));
                bad += popcount32((uint32_t)~m & ((1u << rem) - 1u));
            }
            _MM_TRANSPOSE4_PS(x, y, z, w);
            _mm_storeu_ps(o, x);
            _mm_storeu_ps(o + 4, y);
            _mm_storeu_ps(o + 8, z);
            _mm_storeu_ps(o + 12, w);
        } else {
            /* x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3 */
            __m128 a = _mm_unpacklo_ps(x, y), c = _mm_unpackhi_ps(x, y);         /* x0 y0 x1 y1, x2 y2 x3 y3 */
            __m128 t0 = _mm_shuffle_ps(z, a, _MM_SHUFFLE(2, 2, 0, 0));           /* z0 z0 x1 x1 */
            __m128 t1 = _mm_shuffle_ps(a, z, _MM_SHUFFLE(1, 1, 3, 3));           /* y1 y1 z1 z1 */
            __m128 t2 = _mm_shuffle_ps(c, z, _MM_SHUFFLE(3, 3, 3, 2));           /* x3 y3 z3 z3 */
            __m128 t3 = _mm_shuffle_ps(z, t2, _MM_SHUFFLE(0, 0, 2, 2));          /* z2 z2 x3 x3 */
            _mm_storeu_ps(o, _mm_shuffle_ps(a, t0, _MM_SHUFFLE(2, 0, 1, 0)));    /* x0 y0 z0 x1 */
            _mm_storeu_ps(o + 4, _mm_shuffle_ps(t1, c, _MM_SHUFFLE(1, 0, 2, 0))); /* y1 z1 x2 y2 */
            _mm_storeu_ps(o + 8, _mm_shuffle_ps(t3, t2, _MM_SHUFFLE(2, 1, 2, 0))); /* z2 x3 y3 z3 */
        }
        if (o == tmp) memcpy(out + (size_t)i * (rot ? 4u : 3u), tmp, (size_t)rem * (rot ? 4u : 3u) * sizeof(float));
    }
    return bad;
}
#endif

/* Record r of segment sg over its stored samples into out (4 floats a sample for
 * rotations, 3 otherwise); the first `proven` samples are inside the buffer for 8-byte
 * windows. Returns the count of values replaced (non-finite or degenerate). */
static uint32_t decode_run(const acl_seg *sg, const acl_rec *r, uint32_t proven, float *out)
{
    unsigned comps = r->kind == K_ROT ? 4u : 3u;
    uint32_t n = sg->stored, i = 0, bad = 0;
    size_t pb = sg->pose_bits;
    if (r->mode == M_CONST) {
        float v[4];
        memcpy(v, r->v, sizeof v);
        uint32_t b = r->kind == K_ROT ? (uint32_t)quat_normalise(v) : 0u;
        for (; i < n; i++) memcpy(out + (size_t)i * comps, v, comps * sizeof(float));
        return b * n;
    }
#if defined(__SSE2__)
    if (r->mode == M_VAR && proven) {
        bad = var_run4(r, sg->ani, r->bit, pb, proven, out);
        i = proven;
    }
#else
    (void)proven;
#endif
    for (; i < n; i++) {
        float o[4];
        bad += (uint32_t)rec_decode(r, sg->ani, sg->ani_room, (size_t)i * pb, o);
        if (comps == 4) bad += (uint32_t)quat_normalise(o);
        memcpy(out + (size_t)i * comps, o, comps * sizeof(float));
    }
    return bad;
}

/* ---- whole clip into the model -------------------------------------------------------- */

/* The record kept on the clip for describe: little-endian u32 fields. */
enum {
    NF_VERSION, NF_MISC, NF_TRACKS, NF_SAMPLES, NF_RATE_BITS, NF_SEGMENTS, NF_SIZE,
    NF_HASH_STORED, NF_HASH_COMPUTED, NF_COUNTS, /* 9 values: kind*3 + type */
    NF_KEYS = NF_COUNTS + 9, NF_HIST, /* 33 values */
    NF_META = NF_HIST + 33, /* 5 values */
    NF_SEGHDR = NF_META + 5,
    NF_COUNT
};
#define ACL_NATIVE "acl"

static ganim_code build_native(ganim_doc *doc, ganim_clip *clip, const ganim_acl *h, ganim_error *err)
{
    uint32_t v[NF_COUNT];
    memset(v, 0, sizeof v);
    v[NF_VERSION] = h->version;
    v[NF_MISC] = h->misc;
    v[NF_TRACKS] = h->nt;
    v[NF_SAMPLES] = h->ns;
    memcpy(&v[NF_RATE_BITS], &h->rate, 4);
    v[NF_SEGMENTS] = h->nseg;
    v[NF_SIZE] = (uint32_t)h->size;
    v[NF_HASH_STORED] = h->hash_stored;
    v[NF_HASH_COMPUTED] = h->hash_computed;
    for (unsigned k = 0; k < 3; k++)
        for (unsigned t = 0; t < 3; t++) v[NF_COUNTS + 3 * k + t] = h->counts[k][t];
    v[NF_KEYS] = h->stripped ? h->nkeys : h->ns;
    memcpy(&v[NF_HIST], h->hist, sizeof h->hist);
    for (unsigned i = 0; i < 5; i++) v[NF_META + i] = h->has_meta ? h->meta_off[i] : ACL_NONE;
    v[NF_SEGHDR] = h->stripped ? 20u : 16u;
    uint8_t *p = ganim_doc_alloc(doc, sizeof v);
    if (!p) return GANIM_NOMEM(err);
    for (unsigned i = 0; i < NF_COUNT; i++) {
        p[4 * i] = (uint8_t)v[i];
        p[4 * i + 1] = (uint8_t)(v[i] >> 8);
        p[4 * i + 2] = (uint8_t)(v[i] >> 16);
        p[4 * i + 3] = (uint8_t)(v[i] >> 24);
    }
    clip->native_format = ACL_NATIVE;
    clip->native = p;
    clip->native_size = sizeof v;
    return GANIM_OK;
}

static ganim_code build_skeleton(ganim_doc *doc, const ganim_acl *h, const ganim_read_opts *opts,
                                 ganim_error *err)
{
    if (opts && opts->skeleton) {
        doc->skeleton = ganim_skeleton_copy(doc, opts->skeleton);
        return doc->skeleton ? GANIM_OK : GANIM_NOMEM(err);
    }
    ganim_skeleton *sk = ganim_doc_alloc(doc, sizeof *sk);
    ganim_bone *bones = ganim_doc_alloc_array(doc, h->nt, sizeof *bones);
    /* "track_<i>" names in one block (printf per bone cost ~10 instructions per sample) */
    enum { SYN = 18 }; /* "track_4294967295" + NUL, rounded */
    char *syn = h->names ? NULL : ganim_doc_alloc_array(doc, h->nt, SYN);
    if (!sk || !bones || (!h->names && !syn)) return GANIM_NOMEM(err);
    sk->name = ganim_doc_strdup(doc, h->list_name ? h->list_name : "");
    sk->bone_count = h->nt;
    sk->bones = bones;
    for (uint32_t i = 0; i < h->nt; i++) {
        ganim_bone *b = &bones[i];
        if (h->names) {
            b->name = ganim_doc_strdup(doc, h->names[i]);
            if (!b->name) return GANIM_NOMEM(err);
        } else {
            char *n = syn + (size_t)SYN * i, digits[10];
            unsigned nd = 0;
            uint32_t v = i;
            do { digits[nd++] = (char)('0' + v % 10u); v /= 10u; } while (v);
            memcpy(n, "track_", 6);
            for (unsigned k = 0; k < nd; k++) n[6 + k] = digits[nd - 1u - k];
            b->name = n; /* NUL: the block is zeroed */
        }
        b->parent = h->parents ? h->parents[i] : -1;
        b->rest = h->bind ? h->bind[i] : ganim_transform_identity();
        b->flags = h->has_meta && h->names && h->parents ? 0u : GANIM_BONE_SYNTH;
    }
    if (!sk->name) return GANIM_NOMEM(err);
    doc->skeleton = sk;
    return GANIM_OK;
}

ganim_code ganim_acl_read_doc(ganim_doc *doc, const uint8_t *data, size_t size, uint64_t base,
                              const ganim_read_opts *opts, ganim_error *err)
{
    ganim_acl *h = NULL;
    const ganim_skeleton *given = opts ? opts->skeleton : NULL;
    ganim_code rc = ganim_acl_open(data, size, base, ganim_doc_allocator(doc), given, doc, &h, err);
    if (rc) return rc;
    if (given && given->bone_count != h->nt) {
        rc = ganim_fail(err, GANIM_ERR_MISMATCH, GANIM_NO_OFFSET, "acl: the skeleton has %u bones but the buffer has %u tracks", given->bone_count, h->nt);
        goto done;
    }
    rc = build_skeleton(doc, h, opts, err);
    if (rc) goto done;

    ganim_clip *clip = ganim_doc_alloc(doc, sizeof *clip);
    ganim_track *tracks = ganim_doc_alloc_array(doc, h->nt, sizeof *tracks);
    if (!clip || !tracks) { rc = GANIM_NOMEM(err); goto done; }
    doc->clips = clip;
    doc->clip_count = 1;
    clip->name = ganim_doc_strdup(doc, h->list_name ? h->list_name : "");
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->fps = h->rate;
    clip->frame_count = h->ns + (uint32_t)h->wrap;
    clip->track_count = h->nt;
    clip->tracks = tracks;
    clip->rotation_interp = GANIM_INTERP_NLERP;
    if (!clip->name) { rc = GANIM_NOMEM(err); goto done; }

    /* per-frame (or per-retained-key) storage of the animated sub-tracks */
    uint32_t nvals = h->stripped ? h->nkeys + (uint32_t)h->wrap : clip->frame_count;
    uint64_t total = (uint64_t)nvals * (4ull * h->nanim[0] + 3ull * h->nanim[1] + 3ull * h->nanim[2]);
    if (total > ACL_MAX_VALUES) {
        rc = ganim_fail(err, GANIM_ERR_LIMIT, base + 20, "acl: %u samples of %u animated sub-tracks need %llu values, above the library limit of %u",
                        clip->frame_count, h->na, (unsigned long long)total, ACL_MAX_VALUES);
        goto done;
    }
    float *times = NULL;
    if (h->stripped && h->na) {
        times = ganim_doc_alloc_array_raw(doc, nvals, sizeof *times); /* filled whole below */
        if (!times) { rc = GANIM_NOMEM(err); goto done; }
        for (uint32_t i = 0; i < h->nkeys; i++) times[i] = (float)h->keys[i];
        if (h->wrap) times[h->nkeys] = (float)h->ns;
    }
    float **dst = ganim_doc_alloc_array(doc, h->na ? h->na : 1, sizeof *dst);
    if (!dst) { rc = GANIM_NOMEM(err); goto done; }
    const char *const *names = (const char *const *)h->names;
    for (uint32_t i = 0; i < h->nt; i++) {
        ganim_track *tr = &tracks[i];
        tr->bone = i;
        tr->name = names ? doc->skeleton->bones[i].name : "";
        ganim_channel *ch[3] = { &tr->rotation, &tr->translation, &tr->scale };
        const ganim_transform *p = &h->pose[i];
        const float *cv[3] = { &p->rotation.x, &p->translation.x, &p->scale.x };
        for (unsigned k = 0; k < 3; k++) {
            unsigned comps = k == K_ROT ? 4u : 3u;
            if (h->types[3 * i + k] == T_ANIM) continue;
            float *v = ganim_doc_alloc_array(doc, comps, sizeof *v);
            if (!v) { rc = GANIM_NOMEM(err); goto done; }
            memcpy(v, cv[k], comps * sizeof *v);
            ch[k]->kind = GANIM_CHANNEL_CONSTANT;
            ch[k]->count = 1;
            ch[k]->values = v;
        }
    }
    for (uint32_t a = 0; a < h->na; a++) {
        const acl_rec *r = &h->recs[a];
        unsigned comps = r->kind == K_ROT ? 4u : 3u;
        float *v = ganim_doc_alloc_array_raw(doc, (size_t)nvals * comps, sizeof *v);
        if (!v) { rc = GANIM_NOMEM(err); goto done; }
        dst[a] = v;
        ganim_track *tr = &tracks[r->track];
        ganim_channel *c = r->kind == K_ROT ? &tr->rotation : r->kind == K_TRANS ? &tr->translation : &tr->scale;
        c->kind = times ? GANIM_CHANNEL_KEYED : GANIM_CHANNEL_PER_FRAME;
        c->count = nvals;
        c->times = times;
        c->values = v;
    }
    /* every segment, one sub-track at a time; the segments' rows tile [0, nvals - wrap)
     * (parse_segment/ganim_acl_open checked the starts and retained-key counts), so the
     * unzeroed value arrays end up written whole. Nothing to loop over without records. */
    uint32_t bad = 0, nr = h->nanim[0];
    for (uint32_t s = 0; s < h->nseg && h->na; s++) {
        const acl_seg *sg = &h->segs[s];
        size_t row0 = h->stripped ? sg->first_key : sg->start;
        uint32_t proven = proven_samples(sg);
        for (uint32_t a = 0; a < h->na; a++)
            bad += decode_run(sg, &sg->recs[a], proven, dst[a] + row0 * (a < nr ? 4u : 3u));
    }
    if (h->wrap) /* the dropped last frame of a looping clip is a copy of the first */
        for (uint32_t a = 0; a < h->na; a++) {
            unsigned comps = a < nr ? 4u : 3u;
            memcpy(dst[a] + (size_t)(nvals - 1u) * comps, dst[a], comps * sizeof(float));
        }
    if (bad)
        ganim_doc_warn(doc, base, "acl: %u decoded samples were not finite or had a zero-length rotation and were replaced by the identity", bad);
    rc = build_native(doc, clip, h, err);
    /* No bind pose in the buffer and none given: the first frame is the best rest pose.
     * With trivial defaults (bit 9) the descriptions' defaults are all identity (ACL sets
     * the bit only then), so they are no bind pose either. */
    if (rc == GANIM_OK && (!h->bind || h->trivial) && !given) ganim_skeleton_rest_from_frame0(doc->skeleton, clip);
done:
    ganim_acl_close(h);
    return rc;
}

/* ---- describe ----------------------------------------------------------------------- */

static void flags_words(ganim_writer *w, uint32_t ver, uint32_t m)
{
    static const char *const rf[16] = { "quatf_full", "1?", "quatf_drop_w_full", "quatf_drop_w_variable" };
    const char *r = rf[(m >> 4) & 15u] ? rf[(m >> 4) & 15u] : "?";
    gw_printf(w, "%s, %s scale (default %d), rotation %s, translation %s, scale %s",
              (m & 1u) ? "has scale" : "no scale", (m & 1u) ? "animated" : "no", (int)((m >> 1) & 1u), r,
              (m >> 3) & 1u ? "vector3f_variable" : "vector3f_full", (m >> 2) & 1u ? "vector3f_variable" : "vector3f_full");
    if (ver >= 8) {
        gw_str(w, (m >> 9) & 1u ? ", trivial defaults" : ", bind-pose defaults");
        if ((m >> 10) & 1u) gw_str(w, ", stripped key frames");
        if ((m >> 30) & 1u) gw_str(w, ", wrap-optimised loop");
    }
    if ((m >> 8) & 1u) gw_str(w, ", database");
    if (m >> 31) gw_str(w, ", metadata");
}

ganim_code ganim_acl_describe_clip(const ganim_clip *clip, int mode, ganim_buffer *out, ganim_error *err)
{
    if (!clip || !clip->native_format || strcmp(clip->native_format, ACL_NATIVE) || clip->native_size != 4u * NF_COUNT)
        return GANIM_OK;
    uint32_t v[NF_COUNT];
    for (unsigned i = 0; i < NF_COUNT; i++) v[i] = ganim_ld_u32le(clip->native + 4 * i);
    float rate;
    memcpy(&rate, &v[NF_RATE_BITS], 4);
    ganim_writer w = gw_init(out, NULL);
    static const char *const tname[3] = { "default", "constant", "animated" };
    const char *acl_ver = v[NF_VERSION] == 7 ? "2.0" : v[NF_VERSION] == 10 ? "2.1" : "2.1-wip";
    if (mode == GANIM_DESCRIBE_TEXT) {
        gw_printf(&w, "acl version: %u (ACL %s)\n", v[NF_VERSION], acl_ver);
        gw_printf(&w, "acl flags: 0x%08X (", v[NF_MISC]);
        flags_words(&w, v[NF_VERSION], v[NF_MISC]);
        gw_str(&w, ")\n");
        gw_printf(&w, "acl tracks: %u\nacl samples: %u\nacl sample rate: ", v[NF_TRACKS], v[NF_SAMPLES]);
        gw_float(&w, rate);
        gw_printf(&w, "\nacl segments: %u\n", v[NF_SEGMENTS]);
        for (unsigned k = 0; k < 3; k++)
            gw_printf(&w, "acl %s sub-tracks: %u default, %u constant, %u animated\n", kind_name[k],
                      v[NF_COUNTS + 3 * k], v[NF_COUNTS + 3 * k + 1], v[NF_COUNTS + 3 * k + 2]);
        gw_str(&w, "acl bit rates:");
        int any = 0;
        for (unsigned b = 0; b < 33; b++)
            if (v[NF_HIST + b]) { gw_printf(&w, " %u:%u", b, v[NF_HIST + b]); any = 1; }
        gw_str(&w, any ? "\n" : " none\n");
        if ((v[NF_MISC] >> 10) & 1u) gw_printf(&w, "acl retained key frames: %u\n", v[NF_KEYS]);
        gw_printf(&w, "acl hash: 0x%08X (%s)\n", v[NF_HASH_STORED], v[NF_HASH_STORED] == v[NF_HASH_COMPUTED] ? "verified" : "MISMATCH");
    } else {
        gw_printf(&w, "{\"acl_version\":%u,\"flags\":%u,\"flags_text\":\"", v[NF_VERSION], v[NF_MISC]);
        flags_words(&w, v[NF_VERSION], v[NF_MISC]);
        gw_printf(&w, "\",\"tracks\":%u,\"samples\":%u,\"sample_rate\":", v[NF_TRACKS], v[NF_SAMPLES]);
        gw_float(&w, rate);
        gw_printf(&w, ",\"segments\":%u,\"sub_tracks\":{", v[NF_SEGMENTS]);
        for (unsigned k = 0; k < 3; k++) {
            gw_printf(&w, "%s\"%s\":{", k ? "," : "", kind_name[k]);
            for (unsigned t = 0; t < 3; t++) gw_printf(&w, "%s\"%s\":%u", t ? "," : "", tname[t], v[NF_COUNTS + 3 * k + t]);
            gw_str(&w, "}");
        }
        gw_str(&w, "},\"bit_rates\":{");
        int first = 1;
        for (unsigned b = 0; b < 33; b++)
            if (v[NF_HIST + b]) { gw_printf(&w, "%s\"%u\":%u", first ? "" : ",", b, v[NF_HIST + b]); first = 0; }
        gw_printf(&w, "},\"hash_ok\":%s", v[NF_HASH_STORED] == v[NF_HASH_COMPUTED] ? "true" : "false");
        if (mode == GANIM_DESCRIBE_FULL) {
            gw_printf(&w, ",\"buffer_size\":%u,\"hash\":%u,\"hash_computed\":%u,\"segment_header_size\":%u,\"stored_key_frames\":%u,\"metadata_offsets\":[",
                      v[NF_SIZE], v[NF_HASH_STORED], v[NF_HASH_COMPUTED], v[NF_SEGHDR], v[NF_KEYS]);
            for (unsigned i = 0; i < 5; i++) {
                if (i) gw_str(&w, ",");
                if (v[NF_META + i] == ACL_NONE) gw_str(&w, "null");
                else gw_printf(&w, "%u", v[NF_META + i]);
            }
            gw_str(&w, "]");
        }
        gw_str(&w, "}");
    }
    return gw_ok(&w) ? GANIM_OK : GANIM_NOMEM(err);
}

/* ---- the "acl" format ----------------------------------------------------------------- */

static int acl_probe(const uint8_t *data, size_t size)
{
    if (size < 16 || ganim_ld_u32le(data + 8) != GANIM_ACL_TAG) return 0;
    uint16_t ver = ganim_ld_u16le(data + 12);
    if (ver >= 7 && ver <= 10 && data[14] == 0 && data[15] == 12) return 95;
    return 40;
}

static ganim_code acl_read(ganim_doc *doc, const uint8_t *data, size_t size,
                           const ganim_read_opts *opts, ganim_error *err)
{
    return ganim_acl_read_doc(doc, data, size, 0, opts, err);
}

static ganim_code acl_describe(const ganim_doc *doc, int clip, int mode, ganim_buffer *out, ganim_error *err)
{
    if (clip < 0 || (uint32_t)clip >= doc->clip_count) return GANIM_OK;
    return ganim_acl_describe_clip(&doc->clips[clip], mode, out, err);
}

const ganim_format ganim_format_acl = {
    "acl", "ACL 2.0/2.1 compressed_tracks transform buffer (versions 7-10)", ".acl", 0,
    acl_probe, acl_read, NULL, NULL, acl_describe,
};
