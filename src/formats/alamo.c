/* Petroglyph Alamo (Star Wars: Empire at War / Forces of Corruption):
 *   .ALO  model; only its skeleton (chunk 0x200) is read and written here
 *   .ALA  animation, format 1 (per-track data chunks) and format 2 (shared frame blocks)
 * Layouts and the evidence behind them: docs/formats/alamo.md.
 *
 * Lossless rewriting: the clip's native record is the .ALA file itself and the
 * skeleton's native record is the raw 0x200 chunk. Writers parse that record again into
 * the same "plan" the readers use (raw integers, quantisation, indices), check that
 * the model still decodes to exactly those values, and encode the plan; otherwise they
 * quantise the model like the official exporter does. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "formats/chunk.h"
#include "formats/formats.h"
#include "io/bits.h"
#include "io/reader.h"
#include "io/writer.h"

#define ALA "alamo-ala"
#define ALO "alamo-alo"

enum {
    ALA_ROOT = 0x1000, ALA_HEADER = 0x1001, ALA_TRACK = 0x1002, ALA_TRACK_HEADER = 0x1003,
    ALA_TRANS = 0x1004, ALA_SCALE = 0x1005, ALA_ROT = 0x1006, ALA_VIS = 0x1007, ALA_STEP = 0x1008,
    ALA_ROT_BLOCK = 0x1009, ALA_TRANS_BLOCK = 0x100a, ALA_SCALE_BLOCK = 0x100b,
    ALO_SKELETON = 0x200, ALO_SKEL_HEADER = 0x201, ALO_BONE = 0x202, ALO_BONE_NAME = 0x203,
    ALO_BONE_V1 = 0x205, ALO_BONE_V2 = 0x206
};

/* Mini-chunk 6..9 of a track header. */
enum { V_TOFF = 0, V_TSCALE, V_SOFF, V_SSCALE };

static const uint32_t ONE_F32 = 0x3F800000u;

static float f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ==================================================================================== */
/* ALA plan: the file's content as raw integers, independent of the format version      */
/* ==================================================================================== */

/* Per-frame 16-bit values: frame f, component k at base + f*stride + 2k. base NULL: none. */
typedef struct ala_stream {
    const uint8_t *base;
    size_t stride;
} ala_stream;

typedef struct ala_ptrack {
    uint64_t offset;            /* file offset of the 0x1002 chunk (0 when built) */
    const uint8_t *name;        /* mini-chunk 4 payload, NUL included when present */
    uint8_t name_size;
    uint32_t index;             /* mini-chunk 5 */
    bool has_unk10;
    uint32_t unk10;
    uint32_t vec[4][3];         /* raw float bits of mini-chunks 6, 7, 8, 9 */
    int16_t tidx, sidx, ridx;   /* format 2 element indices, -1 = none */
    int16_t defrot[4];          /* format 2 mini 17; format 1: the constant / first quat */
    ala_stream trans, scale, rot;
    const uint8_t *vis, *step;  /* (frames+7)/8 bytes, LSB first */
} ala_ptrack;

typedef struct ala_plan {
    int version;                /* 1 or 2 */
    uint32_t frames;
    uint32_t fps_bits;
    uint32_t track_count;
    uint32_t rfs, tfs, sfs;     /* format 2 frame sizes in 16-bit elements */
    const uint8_t *rblock, *tblock, *sblock;
    ala_ptrack *tracks;
    bool canonical;             /* layout is exactly what the encoder produces */
    uint64_t odd_offset;        /* first thing that is not canonical */
    char odd[96];
    /* memory owned by the plan (built plans and track arrays) */
    const ganim_allocator *alloc;
    void *owned[4];
    size_t owned_size[4];
} ala_plan;

static void plan_odd(ala_plan *p, uint64_t offset, const char *what, uint32_t id)
{
    if (!p->canonical) return;
    p->canonical = false;
    p->odd_offset = offset;
    snprintf(p->odd, sizeof p->odd, "%s 0x%x", what, (unsigned)id);
}

static void *plan_alloc(ala_plan *p, size_t count, size_t size)
{
    size_t n;
    if (!ganim_mul_size(count, size, &n)) return NULL;
    for (int i = 0; i < 4; i++) {
        if (p->owned[i]) continue;
        void *mem = ganim_alloc(p->alloc, n ? n : 1);
        if (!mem) return NULL;
        memset(mem, 0, n ? n : 1);
        p->owned[i] = mem;
        p->owned_size[i] = n ? n : 1;
        return mem;
    }
    return NULL;
}

static void plan_free(ala_plan *p)
{
    for (int i = 0; i < 4; i++)
        if (p->owned[i]) ganim_free(p->alloc, p->owned[i], p->owned_size[i]);
    memset(p->owned, 0, sizeof p->owned);
}

static uint16_t st_get(const ala_stream *s, uint32_t f, unsigned k)
{
    return ganim_ld_u16le(s->base + (size_t)f * s->stride + 2u * k);
}

/* Decoded values, shared by the reader (building the clip) and the writer (checking
 * that the clip still matches its native record). */
static void dec_rot(const int16_t raw[4], float out[4])
{
    float n2 = 0;
    for (int k = 0; k < 4; k++) {
        out[k] = (float)raw[k] / 32767.0f;
        n2 += out[k] * out[k];
    }
    /* Real files are unit to 1e-3; anything else is repaired so the model stays valid. */
    if (fabsf(sqrtf(n2) - 1.0f) > 1e-3f) {
        if (n2 <= 0.0f) {
            out[0] = out[1] = out[2] = 0.0f;
            out[3] = 1.0f;
        } else {
            float inv = 1.0f / sqrtf(n2);
            for (int k = 0; k < 4; k++) out[k] *= inv;
        }
    }
}
static bool rot_is_unit(const int16_t raw[4])
{
    float n2 = 0;
    for (int k = 0; k < 4; k++) n2 += ((float)raw[k] / 32767.0f) * ((float)raw[k] / 32767.0f);
    return fabsf(sqrtf(n2) - 1.0f) <= 1e-3f;
}

/* channel: 0 rotation, 1 translation, 2 scale. Frame ignored for constant channels. */
static void plan_value(const ala_ptrack *t, int channel, uint32_t f, float *out)
{
    if (channel == 0) {
        int16_t raw[4];
        for (unsigned k = 0; k < 4; k++)
            raw[k] = t->rot.base ? (int16_t)st_get(&t->rot, f, k) : t->defrot[k];
        dec_rot(raw, out);
        return;
    }
    const ala_stream *s = channel == 1 ? &t->trans : &t->scale;
    const uint32_t *off = t->vec[channel == 1 ? V_TOFF : V_SOFF];
    const uint32_t *scl = t->vec[channel == 1 ? V_TSCALE : V_SSCALE];
    for (unsigned k = 0; k < 3; k++) {
        float v = f32_from_bits(off[k]);
        if (s->base) v += (float)st_get(s, f, k) * f32_from_bits(scl[k]);
        out[k] = v;
    }
}
static bool plan_has_stream(const ala_ptrack *t, int channel)
{
    return (channel == 0 ? t->rot.base : channel == 1 ? t->trans.base : t->scale.base) != NULL;
}

static bool read_i16x(ganim_reader *r, int16_t *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!gr_i16le(r, &v[i])) return false;
    return true;
}

static ganim_code mini_size(const ganim_mini *m, unsigned want, const char *where, ganim_error *err)
{
    if (m->size == want) return GANIM_OK;
    return ganim_fail(err, GANIM_ERR_CORRUPT, m->offset,
                      ALA ": %s: mini-chunk %u at byte %llu has %u bytes, expected %u", where,
                      m->type, (unsigned long long)m->offset, m->size, want);
}

static ganim_code parse_header(ala_plan *p, const ganim_chunk *c, ganim_error *err)
{
    ganim_reader r = c->body;
    ganim_mini m;
    int st, last = 0;
    bool have[14] = { false };
    static const int rank[14] = { 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 4, 5, 6 };
    while ((st = gc_next_mini(&r, &m)) == GC_OK) {
        uint32_t v = 0;
        if (m.type == 1 || m.type == 2 || m.type == 3 || (m.type >= 11 && m.type <= 13)) {
            ganim_code rc = mini_size(&m, 4, "animation header", err);
            if (rc) return rc;
            (void)gr_u32le(&m.body, &v);
            if (have[m.type] || rank[m.type] < last) plan_odd(p, m.offset, "header mini-chunk", m.type);
            last = rank[m.type];
            have[m.type] = true;
        } else {
            plan_odd(p, m.offset, "header mini-chunk", m.type);
            continue;
        }
        switch (m.type) {
        case 1: p->frames = v; break;
        case 2: p->fps_bits = v; break;
        case 3: p->track_count = v; break; /* checked against the tracks later */
        case 11: p->rfs = v; break;
        case 12: p->tfs = v; break;
        case 13: p->sfs = v; break;
        default: break;
        }
    }
    if (st == GC_BAD) return gc_fail_mini(err, ALA, "animation header", &c->body, &m);
    for (int id = 1; id <= 3; id++)
        if (!have[id])
            return ganim_fail(err, GANIM_ERR_CORRUPT, c->offset,
                              ALA ": animation header at byte %llu lacks mini-chunk %d (%s)",
                              (unsigned long long)c->offset, id,
                              id == 1 ? "frame count" : id == 2 ? "fps" : "track count");
    p->version = have[11] ? 2 : 1;
    if (p->version == 2 && (!have[12] || !have[13])) plan_odd(p, c->offset, "header lacks mini-chunk", 12);
    if (p->version == 1 && (have[12] || have[13])) plan_odd(p, c->offset, "header mini-chunk", 12);
    float fps = f32_from_bits(p->fps_bits);
    if (!((double)fps >= GANIM_MIN_FPS && (double)fps <= GANIM_MAX_FPS)) /* also NaN */
        return ganim_fail(err, GANIM_ERR_CORRUPT, c->offset,
                          ALA ": animation header at byte %llu: fps %g is outside %g..%g frames per second",
                          (unsigned long long)c->offset, (double)fps, GANIM_MIN_FPS, GANIM_MAX_FPS);
    if (p->frames == 0)
        return ganim_fail(err, GANIM_ERR_CORRUPT, c->offset,
                          ALA ": animation header at byte %llu: the frame count is 0",
                          (unsigned long long)c->offset);
    return GANIM_OK;
}

static ganim_code parse_track_header(ala_plan *p, ala_ptrack *t, const ganim_chunk *c,
                                     ganim_error *err)
{
    ganim_reader r = c->body;
    ganim_mini m;
    int st, last = 0;
    bool have[18] = { false };
    static const int rank[18] = { 0, 0, 0, 0, 1, 2, 4, 5, 6, 7, 3, 0, 0, 0, 8, 9, 10, 11 };
    while ((st = gc_next_mini(&r, &m)) == GC_OK) {
        unsigned id = m.type;
        bool known = (id >= 4 && id <= 10) || (p->version == 2 && id >= 14 && id <= 17);
        if (!known) {
            plan_odd(p, m.offset, "track mini-chunk", id);
            continue;
        }
        if (have[id] || rank[id] < last) plan_odd(p, m.offset, "track mini-chunk", id);
        last = rank[id];
        have[id] = true;
        ganim_code rc = GANIM_OK;
        switch (id) {
        case 4:
            t->name = m.body.data;
            t->name_size = m.size;
            break;
        case 5:
            if (!(rc = mini_size(&m, 4, "track header", err))) (void)gr_u32le(&m.body, &t->index);
            break;
        case 10:
            if (!(rc = mini_size(&m, 4, "track header", err))) (void)gr_u32le(&m.body, &t->unk10);
            t->has_unk10 = true;
            break;
        case 6: case 7: case 8: case 9:
            if (!(rc = mini_size(&m, 12, "track header", err)))
                for (int k = 0; k < 3; k++) (void)gr_u32le(&m.body, &t->vec[id - 6][k]);
            break;
        case 14: case 15: case 16:
            if (!(rc = mini_size(&m, 2, "track header", err)))
                (void)gr_i16le(&m.body, id == 14 ? &t->tidx : id == 15 ? &t->sidx : &t->ridx);
            break;
        case 17:
            if (!(rc = mini_size(&m, 8, "track header", err))) (void)read_i16x(&m.body, t->defrot, 4);
            break;
        default: break;
        }
        if (rc) return rc;
    }
    if (st == GC_BAD) return gc_fail_mini(err, ALA, "track header", &c->body, &m);
    if (!have[5])
        return ganim_fail(err, GANIM_ERR_CORRUPT, c->offset,
                          ALA ": track header at byte %llu has no bone index (mini-chunk 5)",
                          (unsigned long long)c->offset);
    if (!have[4] || !have[6] || !have[7] || !have[8] || !have[9] ||
        (p->version == 2 && !(have[14] && have[15] && have[16] && have[17])))
        plan_odd(p, c->offset, "track header lacks a mini-chunk near", 4);
    return GANIM_OK;
}

/* A per-frame chunk of `comps` 16-bit values. single: also accept one value set. */
static ganim_code take_frames(const ala_plan *p, const ganim_chunk *c, unsigned comps,
                              ala_stream *s, bool *single, ganim_error *err)
{
    size_t want = (size_t)p->frames * 2u * comps; /* frames < 2^32: no overflow in 64 bits */
    if (single && c->size == 2u * comps) {
        *single = true;
        s->base = c->body.data;
        s->stride = 0;
        return GANIM_OK;
    }
    if (c->size != want)
        return ganim_fail(err, GANIM_ERR_CORRUPT, c->offset,
                          ALA ": chunk 0x%x at byte %llu has %u bytes, expected %zu (%u frames x %u values)",
                          c->type, (unsigned long long)c->offset, c->size, want, p->frames, comps);
    s->base = c->body.data;
    s->stride = 2u * comps;
    return GANIM_OK;
}

static ganim_code take_bits(ala_plan *p, const ganim_chunk *c, const uint8_t **out, ganim_error *err)
{
    size_t want = ((size_t)p->frames + 7u) / 8u;
    if (c->size < want)
        return ganim_fail(err, GANIM_ERR_TRUNCATED, c->offset,
                          ALA ": bit chunk 0x%x at byte %llu has %u bytes, %u frames need %zu",
                          c->type, (unsigned long long)c->offset, c->size, p->frames, want);
    if (c->size > want) plan_odd(p, c->offset, "oversized bit chunk", c->type);
    *out = c->body.data;
    return GANIM_OK;
}

static ganim_code parse_track(ala_plan *p, ala_ptrack *t, const ganim_chunk *tc, ganim_error *err)
{
    ganim_reader r = tc->body;
    ganim_chunk c;
    int st, last = 0;
    bool have_header = false, have_rot = false;
    static const char empty[1] = { 0 };
    t->offset = tc->offset;
    t->name = (const uint8_t *)empty;
    t->name_size = 0;
    t->tidx = t->sidx = t->ridx = -1;
    for (int k = 0; k < 3; k++) t->vec[V_SOFF][k] = ONE_F32;
    t->defrot[3] = 32767;
    while ((st = gc_next(&r, &c)) == GC_OK) {
        ganim_code rc = GANIM_OK;
        int rank = 0;
        if (c.type == ALA_TRACK_HEADER && !c.container) {
            if (have_header) {
                plan_odd(p, c.offset, "second track header", c.type);
                continue;
            }
            rc = parse_track_header(p, t, &c, err);
            have_header = true;
            rank = 1;
        } else if (!have_header) {
            return ganim_fail(err, GANIM_ERR_CORRUPT, c.offset,
                              ALA ": track at byte %llu: chunk 0x%x comes before the track header",
                              (unsigned long long)tc->offset, c.type);
        } else if (p->version == 1 && c.type == ALA_TRANS && !c.container && !t->trans.base) {
            rc = take_frames(p, &c, 3, &t->trans, NULL, err);
            rank = 2;
        } else if (p->version == 1 && c.type == ALA_SCALE && !c.container && !t->scale.base) {
            rc = take_frames(p, &c, 3, &t->scale, NULL, err);
            rank = 3;
        } else if (p->version == 1 && c.type == ALA_ROT && !c.container && !have_rot) {
            bool single = false;
            ala_stream s = { NULL, 0 };
            rc = take_frames(p, &c, 4, &s, &single, err);
            if (!rc) {
                for (unsigned k = 0; k < 4; k++) t->defrot[k] = (int16_t)ganim_ld_u16le(s.base + 2 * k);
                if (!single) t->rot = s;
            }
            have_rot = true;
            rank = 4;
        } else if (c.type == ALA_VIS && !c.container && !t->vis) {
            rc = take_bits(p, &c, &t->vis, err);
            rank = 5;
        } else if (c.type == ALA_STEP && !c.container && !t->step) {
            rc = take_bits(p, &c, &t->step, err);
            rank = 6;
        } else {
            plan_odd(p, c.offset, "track chunk", c.type);
            continue;
        }
        if (rc) return rc;
        if (rank < last) plan_odd(p, c.offset, "track chunk out of order", c.type);
        last = rank;
    }
    if (st == GC_BAD) return gc_fail(err, ALA, "track", &tc->body, &c);
    if (!have_header)
        return ganim_fail(err, GANIM_ERR_CORRUPT, tc->offset,
                          ALA ": track at byte %llu has no header chunk 0x1003",
                          (unsigned long long)tc->offset);
    if (p->version == 1 && !have_rot) plan_odd(p, tc->offset, "format-1 track without chunk", ALA_ROT);
    return GANIM_OK;
}

/* A format-2 block chunk: exactly frames * frame_size 16-bit values. */
static ganim_code take_block(ala_plan *p, const ganim_chunk *c, uint32_t fs, const uint8_t **out,
                             ganim_error *err)
{
    size_t n;
    if (*out) {
        plan_odd(p, c->offset, "second data block", c->type);
        return GANIM_OK;
    }
    if (fs == 0) plan_odd(p, c->offset, "data block with frame size 0", c->type);
    if (!ganim_mul_size((size_t)fs, (size_t)p->frames, &n) || !ganim_mul_size(n, 2, &n) ||
        n != c->size)
        return ganim_fail(err, GANIM_ERR_CORRUPT, c->offset,
                          ALA ": data block 0x%x at byte %llu has %u bytes, expected %u frames x %u values x 2",
                          c->type, (unsigned long long)c->offset, c->size, p->frames, fs);
    *out = c->body.data;
    return GANIM_OK;
}

static ganim_code link_index(const ala_ptrack *t, int16_t idx, unsigned comps, uint32_t fs,
                             const uint8_t *block, uint32_t block_type, ala_stream *s,
                             const char *what, ganim_error *err)
{
    if (idx == -1) return GANIM_OK;
    if (idx < 0 || (uint32_t)idx + comps > fs)
        return ganim_fail(err, GANIM_ERR_CORRUPT, t->offset,
                          ALA ": track at byte %llu: %s index %d does not fit the frame size %u",
                          (unsigned long long)t->offset, what, idx, fs);
    if (!block)
        return ganim_fail(err, GANIM_ERR_CORRUPT, t->offset,
                          ALA ": track at byte %llu uses %s data but the file has no chunk 0x%x",
                          (unsigned long long)t->offset, what, block_type);
    s->base = block + 2u * (size_t)idx;
    s->stride = 2u * (size_t)fs;
    return GANIM_OK;
}

/* Parse a whole .ALA into `p` (caller sets p->alloc; plan_free afterwards). */
static ganim_code ala_parse(ala_plan *p, const uint8_t *data, size_t size, ganim_error *err)
{
    ganim_reader file = gr_init(data, size, 0);
    ganim_chunk root, c;
    int st;
    p->canonical = true;
    st = gc_next(&file, &root);
    if (st == GC_END)
        return ganim_fail(err, GANIM_ERR_TRUNCATED, 0, ALA ": the file is empty");
    if (st == GC_BAD) return gc_fail(err, ALA, "root", &file, &root);
    if (root.type != ALA_ROOT || !root.container)
        return ganim_fail(err, GANIM_ERR_CORRUPT, 0,
                          ALA ": the file starts with chunk 0x%x%s, not the animation chunk 0x1000",
                          root.type, root.container ? "" : " (data)");
    if (gr_left(&file)) plan_odd(p, gr_offset(&file), "data after the root chunk", 0);

    /* First pass: count tracks so the array is sized from the bytes present. */
    uint32_t ntracks = 0;
    ganim_reader r = root.body;
    while ((st = gc_next(&r, &c)) == GC_OK)
        if (c.type == ALA_TRACK && c.container) ntracks++;
    if (st == GC_BAD) return gc_fail(err, ALA, "animation", &root.body, &c);
    p->tracks = plan_alloc(p, ntracks ? ntracks : 1, sizeof *p->tracks);
    if (!p->tracks) return GANIM_NOMEM(err);

    bool have_header = false;
    uint32_t ti = 0, announced = 0;
    int last = 0;
    r = root.body;
    while ((st = gc_next(&r, &c)) == GC_OK) {
        ganim_code rc = GANIM_OK;
        int rank;
        if (c.type == ALA_HEADER && !c.container && !have_header) {
            rc = parse_header(p, &c, err);
            announced = p->track_count;
            have_header = true;
            rank = 1;
        } else if (!have_header) {
            return ganim_fail(err, GANIM_ERR_CORRUPT, c.offset,
                              ALA ": chunk 0x%x at byte %llu comes before the animation header 0x1001",
                              c.type, (unsigned long long)c.offset);
        } else if (c.type == ALA_TRACK && c.container) {
            rc = parse_track(p, &p->tracks[ti++], &c, err);
            rank = 2;
        } else if (p->version == 2 && !c.container &&
                   (c.type == ALA_TRANS_BLOCK || c.type == ALA_ROT_BLOCK || c.type == ALA_SCALE_BLOCK)) {
            if (c.type == ALA_TRANS_BLOCK) rc = take_block(p, &c, p->tfs, &p->tblock, err), rank = 3;
            else if (c.type == ALA_ROT_BLOCK) rc = take_block(p, &c, p->rfs, &p->rblock, err), rank = 4;
            else rc = take_block(p, &c, p->sfs, &p->sblock, err), rank = 5;
        } else {
            plan_odd(p, c.offset, "animation chunk", c.type);
            continue;
        }
        if (rc) return rc;
        if (rank < last) plan_odd(p, c.offset, "animation chunk out of order", c.type);
        last = rank;
    }
    if (st == GC_BAD) return gc_fail(err, ALA, "animation", &root.body, &c);
    if (!have_header)
        return ganim_fail(err, GANIM_ERR_CORRUPT, 0, ALA ": the animation has no header chunk 0x1001");
    p->track_count = ntracks;
    if (announced != ntracks) plan_odd(p, 0, "track count differs from header", announced);
    if (p->version == 2) {
        static const char *const what[3] = { "translation", "rotation", "scale" };
        const uint32_t fs[3] = { p->tfs, p->rfs, p->sfs };
        const uint8_t *blk[3] = { p->tblock, p->rblock, p->sblock };
        static const unsigned type[3] = { ALA_TRANS_BLOCK, ALA_ROT_BLOCK, ALA_SCALE_BLOCK };
        for (int b = 0; b < 3; b++)
            if (fs[b] && !blk[b])
                return ganim_fail(err, GANIM_ERR_CORRUPT, root.offset,
                                  ALA ": the header announces a %s frame size of %u but the file has no "
                                  "chunk 0x%x with the data", what[b], fs[b], type[b]);
        for (uint32_t i = 0; i < ntracks; i++) {
            ala_ptrack *t = &p->tracks[i];
            ganim_code rc;
            if ((rc = link_index(t, t->tidx, 3, p->tfs, p->tblock, ALA_TRANS_BLOCK, &t->trans,
                                 "translation", err)) ||
                (rc = link_index(t, t->ridx, 4, p->rfs, p->rblock, ALA_ROT_BLOCK, &t->rot,
                                 "rotation", err)) ||
                (rc = link_index(t, t->sidx, 3, p->sfs, p->sblock, ALA_SCALE_BLOCK, &t->scale,
                                 "scale", err)))
                return rc;
        }
    } else {
        /* Format 2 view of a format-1 track: the default rotation is frame 0. */
        for (uint32_t i = 0; i < ntracks; i++) {
            ala_ptrack *t = &p->tracks[i];
            if (t->rot.base)
                for (unsigned k = 0; k < 4; k++) t->defrot[k] = (int16_t)st_get(&t->rot, 0, k);
        }
    }
    return GANIM_OK;
}

/* ==================================================================================== */
/* ALA encoder: plan -> bytes, format 1 or 2                                             */
/* ==================================================================================== */

static void put_frames(ganim_writer *w, const ala_stream *s, uint32_t frames, unsigned comps)
{
    for (uint32_t f = 0; f < frames; f++)
        for (unsigned k = 0; k < comps; k++) gw_u16le(w, st_get(s, f, k));
}

static void put_vec(ganim_chunk_writer *cw, uint8_t id, const uint32_t v[3])
{
    uint8_t b[12];
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 4; j++) b[4 * k + j] = (uint8_t)(v[k] >> (8 * j));
    gcw_mini(cw, id, b, 12);
}
static void put_i16(ganim_chunk_writer *cw, uint8_t id, const int16_t *v, int n)
{
    uint8_t b[8];
    for (int k = 0; k < n; k++) {
        uint16_t u = (uint16_t)v[k];
        b[2 * k] = (uint8_t)u;
        b[2 * k + 1] = (uint8_t)(u >> 8);
    }
    gcw_mini(cw, id, b, (size_t)n * 2u);
}

/* Fill a format-2 block: start from the source block (keeps unused gaps), then every
 * track's values at its index. */
static uint8_t *make_block(ala_plan *p, const uint8_t *src, uint32_t fs, int channel,
                           const int16_t *idx, size_t *size)
{
    size_t n;
    if (!ganim_mul_size((size_t)fs, (size_t)p->frames, &n) || !ganim_mul_size(n, 2, &n)) return NULL;
    uint8_t *b = ganim_alloc(p->alloc, n ? n : 1);
    if (!b) return NULL;
    if (src) memcpy(b, src, n);
    else memset(b, 0, n);
    unsigned comps = channel == 0 ? 4 : 3;
    for (uint32_t i = 0; i < p->track_count; i++) {
        const ala_ptrack *t = &p->tracks[i];
        const ala_stream *s = channel == 0 ? &t->rot : channel == 1 ? &t->trans : &t->scale;
        if (idx[i] < 0 || !s->base) continue;
        for (uint32_t f = 0; f < p->frames; f++)
            for (unsigned k = 0; k < comps; k++) {
                uint16_t v = st_get(s, f, k);
                size_t at = ((size_t)f * fs + (size_t)idx[i] + k) * 2u;
                b[at] = (uint8_t)v;
                b[at + 1] = (uint8_t)(v >> 8);
            }
    }
    *size = n;
    return b;
}

static ganim_code ala_encode(ala_plan *p, int version, ganim_buffer *out, ganim_error *err)
{
    ganim_writer w = gw_init(out, p->alloc);
    ganim_chunk_writer cw = gcw_init(&w);
    uint32_t n = p->frames;
    size_t nbits = ((size_t)n + 7u) / 8u;
    int16_t *idx = NULL; /* [3][tracks]: translation, scale, rotation element indices */
    uint32_t fs[3] = { 0, 0, 0 };
    size_t idx_size = 0;
    ganim_code rc = GANIM_OK;

    if (version == 2) {
        if (!ganim_mul_size(p->track_count ? p->track_count : 1, 3 * sizeof *idx, &idx_size) ||
            !(idx = ganim_alloc(p->alloc, idx_size)))
            return GANIM_NOMEM(err);
        bool keep = p->version == 2; /* the source's own layout */
        uint32_t next[3] = { 0, 0, 0 };
        for (uint32_t i = 0; i < p->track_count; i++) {
            const ala_ptrack *t = &p->tracks[i];
            const bool has[3] = { t->trans.base != NULL, t->scale.base != NULL, t->rot.base != NULL };
            const int16_t own[3] = { t->tidx, t->sidx, t->ridx };
            for (int c = 0; c < 3; c++) {
                unsigned comps = c == 2 ? 4 : 3;
                if (keep) {
                    idx[c * p->track_count + i] = has[c] ? own[c] : -1;
                } else if (has[c]) {
                    if (next[c] + comps > 32767u) {
                        ganim_free(p->alloc, idx, idx_size);
                        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                                          ALA ": too many animated tracks for format 2 (16-bit indices)");
                    }
                    idx[c * p->track_count + i] = (int16_t)next[c];
                    next[c] += comps;
                } else {
                    idx[c * p->track_count + i] = -1;
                }
            }
        }
        if (keep) {
            fs[0] = p->tfs;
            fs[1] = p->sfs;
            fs[2] = p->rfs;
        } else {
            memcpy(fs, next, sizeof fs);
        }
    }

    gcw_begin(&cw, ALA_ROOT);
    gcw_begin(&cw, ALA_HEADER);
    gcw_mini_u32(&cw, 1, n);
    gcw_mini_u32(&cw, 2, p->fps_bits);
    gcw_mini_u32(&cw, 3, p->track_count);
    if (version == 2) {
        gcw_mini_u32(&cw, 11, fs[2]);
        gcw_mini_u32(&cw, 12, fs[0]);
        gcw_mini_u32(&cw, 13, fs[1]);
    }
    gcw_end(&cw);
    for (uint32_t i = 0; i < p->track_count; i++) {
        const ala_ptrack *t = &p->tracks[i];
        gcw_begin(&cw, ALA_TRACK);
        gcw_begin(&cw, ALA_TRACK_HEADER);
        gcw_mini(&cw, 4, t->name, t->name_size);
        gcw_mini_u32(&cw, 5, t->index);
        if (t->has_unk10) gcw_mini_u32(&cw, 10, t->unk10);
        for (int v = 0; v < 4; v++) put_vec(&cw, (uint8_t)(6 + v), t->vec[v]);
        if (version == 2) {
            for (int c = 0; c < 3; c++) put_i16(&cw, (uint8_t)(14 + c), &idx[c * p->track_count + i], 1);
            put_i16(&cw, 17, t->defrot, 4);
        }
        gcw_end(&cw);
        if (version == 1) {
            if (t->trans.base) {
                gcw_begin(&cw, ALA_TRANS);
                put_frames(&w, &t->trans, n, 3);
                gcw_end(&cw);
            }
            if (t->scale.base) {
                gcw_begin(&cw, ALA_SCALE);
                put_frames(&w, &t->scale, n, 3);
                gcw_end(&cw);
            }
            gcw_begin(&cw, ALA_ROT);
            if (t->rot.base) put_frames(&w, &t->rot, n, 4);
            else
                for (int k = 0; k < 4; k++) gw_u16le(&w, (uint16_t)t->defrot[k]);
            gcw_end(&cw);
        }
        if (t->vis) gcw_data(&cw, ALA_VIS, t->vis, nbits);
        if (t->step) gcw_data(&cw, ALA_STEP, t->step, nbits);
        gcw_end(&cw);
    }
    if (version == 2) {
        /* Translation before rotation, as every real file has it. */
        static const uint32_t types[3] = { ALA_TRANS_BLOCK, ALA_ROT_BLOCK, ALA_SCALE_BLOCK };
        static const int chan[3] = { 1, 0, 2 };     /* plan_value channel */
        static const int slot[3] = { 0, 2, 1 };     /* idx / fs slot */
        const uint8_t *src[3] = { p->tblock, p->rblock, p->sblock };
        for (int b = 0; b < 3 && gw_ok(&w); b++) {
            if (!fs[slot[b]]) continue;
            size_t bs = 0;
            uint8_t *block = make_block(p, p->version == 2 ? src[b] : NULL, fs[slot[b]], chan[b],
                                        &idx[slot[b] * p->track_count], &bs);
            if (!block) {
                rc = GANIM_NOMEM(err);
                break;
            }
            gcw_data(&cw, types[b], block, bs);
            ganim_free(p->alloc, block, bs ? bs : 1);
        }
    }
    gcw_end(&cw);
    if (idx) ganim_free(p->alloc, idx, idx_size);
    if (rc) return rc;
    if (!gw_ok(&w)) return GANIM_NOMEM(err);
    if (!gcw_ok(&cw))
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          ALA ": a chunk would exceed 2 GiB or a name 254 bytes");
    return GANIM_OK;
}

/* ==================================================================================== */
/* ALO skeleton                                                                          */
/* ==================================================================================== */

typedef struct alo_pbone {
    const uint8_t *name;
    uint32_t name_size;
    uint32_t data_type;         /* 0x205 or 0x206 */
    int32_t parent;             /* as stored */
    uint32_t visible, billboard;
    uint32_t m[12];             /* raw float bits, 3x4 row-major */
} alo_pbone;

typedef struct alo_plan {
    const uint8_t *header;      /* 0x201 body */
    uint32_t header_size;
    uint32_t count;
    alo_pbone *bones;
    bool canonical;
} alo_plan;

/* Rest transform of a 3x4 row-major local matrix (column vectors, translation in column
 * 3): remove each column's length, then the rotation from the orthonormal part. */
static bool alo_decompose(const uint32_t raw[12], ganim_transform *out)
{
    float m[12];
    for (int i = 0; i < 12; i++) {
        m[i] = f32_from_bits(raw[i]);
        if (!isfinite(m[i])) {
            *out = ganim_transform_identity();
            return false;
        }
    }
    float s[3], r[9];
    for (int c = 0; c < 3; c++) {
        /* in double: the squares of finite floats overflow float; a length that does not
         * fit a float again (a corrupt matrix) is refused like a non-finite one */
        double len = sqrt((double)m[c] * m[c] + (double)m[4 + c] * m[4 + c] + (double)m[8 + c] * m[8 + c]);
        if (!(len <= FLT_MAX)) {
            *out = ganim_transform_identity();
            return false;
        }
        s[c] = (float)len;
    }
    float det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[1] * (m[4] * m[10] - m[6] * m[8]) +
                m[2] * (m[4] * m[9] - m[5] * m[8]);
    if (det < 0.0f) s[0] = -s[0];
    for (int row = 0; row < 3; row++)
        for (int c = 0; c < 3; c++)
            r[row * 3 + c] = s[c] != 0.0f ? m[row * 4 + c] / s[c] : (row == c ? 1.0f : 0.0f);
    ganim_quat q = ganim_quat_normalize(ganim_quat_from_mat3(r));
    if (!isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) || !isfinite(q.w) ||
        fabsf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w - 1.0f) > 1e-3f)
        q = ganim_quat_identity();
    out->rotation = q;
    out->translation.x = m[3];
    out->translation.y = m[7];
    out->translation.z = m[11];
    out->scale.x = s[0];
    out->scale.y = s[1];
    out->scale.z = s[2];
    return true;
}

static void alo_compose(const ganim_transform *t, uint32_t raw[12])
{
    float r[9], m[12];
    const float s[3] = { t->scale.x, t->scale.y, t->scale.z };
    ganim_quat_to_mat3(t->rotation, r);
    for (int row = 0; row < 3; row++)
        for (int c = 0; c < 3; c++) m[row * 4 + c] = r[row * 3 + c] * s[c];
    m[3] = t->translation.x;
    m[7] = t->translation.y;
    m[11] = t->translation.z;
    for (int i = 0; i < 12; i++) raw[i] = f32_bits(m[i]);
}

/* Parse the body of a 0x200 chunk. Bones go to `bones` (caller-sized by counting). */
static ganim_code alo_parse_bone(alo_pbone *b, const ganim_chunk *bc, alo_plan *p, ganim_error *err)
{
    ganim_reader r = bc->body;
    ganim_chunk c;
    int st;
    bool have_data = false;
    static const char empty[1] = { 0 };
    b->name = (const uint8_t *)empty;
    b->name_size = 0;
    while ((st = gc_next(&r, &c)) == GC_OK) {
        if (c.type == ALO_BONE_NAME && !c.container && !have_data && b->name_size == 0) {
            b->name = c.body.data;
            b->name_size = c.size;
        } else if ((c.type == ALO_BONE_V1 || c.type == ALO_BONE_V2) && !c.container && !have_data) {
            uint32_t want = c.type == ALO_BONE_V1 ? 52u : 60u;
            if (c.size != want)
                return ganim_fail(err, GANIM_ERR_CORRUPT, c.offset,
                                  ALO ": bone data chunk 0x%x at byte %llu has %u bytes, expected %u",
                                  c.type, (unsigned long long)c.offset, c.size, want);
            ganim_reader d = c.body;
            b->data_type = c.type;
            (void)gr_i32le(&d, &b->parent);
            (void)gr_u32le(&d, &b->visible);
            b->billboard = 0;
            if (c.type == ALO_BONE_V2) (void)gr_u32le(&d, &b->billboard);
            for (int i = 0; i < 12; i++) (void)gr_u32le(&d, &b->m[i]);
            have_data = true;
        } else {
            p->canonical = false;
        }
    }
    if (st == GC_BAD) return gc_fail(err, ALO, "bone", &bc->body, &c);
    if (!have_data)
        return ganim_fail(err, GANIM_ERR_CORRUPT, bc->offset,
                          ALO ": bone chunk at byte %llu has no bone data (0x205/0x206)",
                          (unsigned long long)bc->offset);
    return GANIM_OK;
}

static ganim_code alo_parse(alo_plan *p, const ganim_chunk *skel, const ganim_allocator *alloc,
                            size_t *bones_size, ganim_error *err)
{
    ganim_reader r = skel->body;
    ganim_chunk c;
    int st;
    uint32_t count = 0;
    p->canonical = true;
    while ((st = gc_next(&r, &c)) == GC_OK)
        if (c.type == ALO_BONE && c.container) count++;
    if (st == GC_BAD) return gc_fail(err, ALO, "skeleton", &skel->body, &c);
    *bones_size = (size_t)(count ? count : 1) * sizeof *p->bones;
    p->bones = ganim_alloc(alloc, *bones_size);
    if (!p->bones) return GANIM_NOMEM(err);
    memset(p->bones, 0, *bones_size);
    r = skel->body;
    uint32_t i = 0;
    while (gc_next(&r, &c) == GC_OK) {
        if (c.type == ALO_SKEL_HEADER && !c.container && !p->header && i == 0) {
            p->header = c.body.data;
            p->header_size = c.size;
        } else if (c.type == ALO_BONE && c.container) {
            ganim_code rc = alo_parse_bone(&p->bones[i++], &c, p, err);
            if (rc) return rc;
        } else {
            p->canonical = false;
        }
    }
    p->count = count;
    return GANIM_OK;
}

static ganim_code alo_encode(const alo_plan *p, ganim_buffer *out, const ganim_allocator *alloc,
                             ganim_error *err)
{
    ganim_writer w = gw_init(out, alloc);
    ganim_chunk_writer cw = gcw_init(&w);
    gcw_begin(&cw, ALO_SKELETON);
    gcw_begin(&cw, ALO_SKEL_HEADER);
    gw_u32le(&w, p->count);
    if (p->header && p->header_size >= 4) gw_bytes(&w, p->header + 4, p->header_size - 4);
    else gw_zeros(&w, 124);
    gcw_end(&cw);
    for (uint32_t i = 0; i < p->count; i++) {
        const alo_pbone *b = &p->bones[i];
        gcw_begin(&cw, ALO_BONE);
        gcw_data(&cw, ALO_BONE_NAME, b->name, b->name_size);
        gcw_begin(&cw, b->data_type);
        gw_u32le(&w, (uint32_t)b->parent);
        gw_u32le(&w, b->visible);
        if (b->data_type == ALO_BONE_V2) gw_u32le(&w, b->billboard);
        for (int k = 0; k < 12; k++) gw_u32le(&w, b->m[k]);
        gcw_end(&cw);
        gcw_end(&cw);
    }
    gcw_end(&cw);
    if (!gw_ok(&w)) return GANIM_NOMEM(err);
    if (!gcw_ok(&cw))
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, ALO ": the skeleton exceeds 2 GiB");
    return GANIM_OK;
}

/* The model's parent for a stored parent (invalid ones become roots). */
static int32_t alo_parent(int32_t stored, uint32_t index)
{
    return (stored >= 0 && (uint32_t)stored < index) ? stored : -1;
}

static int alamo_alo_probe(const uint8_t *data, size_t size)
{
    ganim_reader r = gr_init(data, size, 0);
    uint32_t type, len, child;
    if (!gr_u32le(&r, &type) || !gr_u32le(&r, &len) || type != ALO_SKELETON || !(len & 0x80000000u))
        return 0;
    if ((len & 0x7FFFFFFFu) > size - 8) return 20;
    if (gr_u32le(&r, &child) && child == ALO_SKEL_HEADER) return 90;
    return 50;
}

static ganim_code alamo_alo_read(ganim_doc *doc, const uint8_t *data, size_t size,
                                 const ganim_read_opts *opts, ganim_error *err)
{
    (void)opts;
    ganim_reader file = gr_init(data, size, 0);
    ganim_chunk skel;
    int st = gc_next(&file, &skel);
    if (st == GC_END) return ganim_fail(err, GANIM_ERR_TRUNCATED, 0, ALO ": the file is empty");
    if (st == GC_BAD) return gc_fail(err, ALO, "first chunk", &file, &skel);
    if (skel.type != ALO_SKELETON || !skel.container)
        return ganim_fail(err, GANIM_ERR_UNSUPPORTED, 0,
                          ALO ": the file starts with chunk 0x%x, not a skeleton 0x200 (not a model, "
                          "perhaps a particle system)", skel.type);
    /* Later chunks (meshes, lights, connections) are not needed: check they chain. */
    ganim_chunk c;
    while ((st = gc_next(&file, &c)) == GC_OK) {}
    if (st == GC_BAD) ganim_doc_warn(doc, c.offset, ALO ": chunk at byte %llu runs past the end of the file",
                                     (unsigned long long)c.offset);

    const ganim_allocator *alloc = ganim_doc_allocator(doc);
    alo_plan p;
    memset(&p, 0, sizeof p);
    size_t bones_size = 0;
    ganim_code rc = alo_parse(&p, &skel, alloc, &bones_size, err);
    if (rc) {
        if (p.bones) ganim_free(alloc, p.bones, bones_size);
        return rc;
    }
    ganim_skeleton *sk = ganim_doc_alloc(doc, sizeof *sk);
    ganim_bone *bones = ganim_doc_alloc_array(doc, p.count ? p.count : 1, sizeof *bones);
    uint8_t *native = ganim_doc_memdup(doc, data + skel.offset, (size_t)skel.size + 8u);
    if (!sk || !bones || !native) {
        ganim_free(alloc, p.bones, bones_size);
        return GANIM_NOMEM(err);
    }
    if (p.header && p.header_size >= 4) {
        uint32_t announced = ganim_ld_u32le(p.header);
        if (announced != p.count)
            ganim_doc_warn(doc, skel.offset, ALO ": the skeleton header announces %u bones, the file has %u",
                           announced, p.count);
    }
    for (uint32_t i = 0; i < p.count && !rc; i++) {
        const alo_pbone *b = &p.bones[i];
        ganim_bone *o = &bones[i];
        o->name = ganim_doc_strndup(doc, (const char *)b->name, b->name_size);
        if (!o->name) rc = GANIM_NOMEM(err);
        o->parent = alo_parent(b->parent, i);
        if (o->parent != b->parent)
            ganim_doc_warn(doc, skel.offset, ALO ": bone %u (%s) has parent %d, which is not an earlier bone; "
                           "made it a root", i, o->name ? o->name : "", b->parent);
        if (!alo_decompose(b->m, &o->rest))
            ganim_doc_warn(doc, skel.offset, ALO ": bone %u (%s) has a matrix with non-finite or huge values; "
                           "rest pose set to identity", i, o->name ? o->name : "");
        o->flags = b->visible == 0 ? GANIM_BONE_HIDDEN : 0;
    }
    ganim_free(alloc, p.bones, bones_size);
    if (rc) return rc;
    sk->name = "";
    sk->bone_count = p.count;
    sk->bones = bones;
    sk->native_format = ALO;
    sk->native = native;
    sk->native_size = (size_t)skel.size + 8u;
    doc->skeleton = sk;
    doc->axes = GANIM_AXES_Z_UP;
    return GANIM_OK;
}

static bool transform_same(const ganim_transform *a, const ganim_transform *b)
{
    return a->rotation.x == b->rotation.x && a->rotation.y == b->rotation.y &&
           a->rotation.z == b->rotation.z && a->rotation.w == b->rotation.w &&
           a->translation.x == b->translation.x && a->translation.y == b->translation.y &&
           a->translation.z == b->translation.z && a->scale.x == b->scale.x &&
           a->scale.y == b->scale.y && a->scale.z == b->scale.z;
}

static bool name_same(const uint8_t *raw, size_t n, const char *name)
{
    size_t len = 0;
    while (len < n && raw[len]) len++;
    return strlen(name) == len && memcmp(raw, name, len) == 0;
}

/* Does the skeleton still equal its native record? Then the record is re-encoded. */
static bool alo_native_matches(const alo_plan *p, const ganim_skeleton *sk)
{
    if (p->count != sk->bone_count) return false;
    for (uint32_t i = 0; i < p->count; i++) {
        const alo_pbone *b = &p->bones[i];
        const ganim_bone *o = &sk->bones[i];
        ganim_transform t;
        (void)alo_decompose(b->m, &t);
        if (!name_same(b->name, b->name_size, o->name) || alo_parent(b->parent, i) != o->parent ||
            !transform_same(&t, &o->rest) || (b->visible == 0) != ((o->flags & GANIM_BONE_HIDDEN) != 0))
            return false;
    }
    return true;
}

static ganim_code alamo_alo_write(const ganim_doc *doc, const ganim_write_opts *opts,
                                  ganim_buffer *out, ganim_error *err)
{
    const ganim_skeleton *sk = doc->skeleton;
    ganim_allocator a = ganim_allocator_resolve(opts ? &opts->allocator : NULL);
    if (!sk)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          ALO ": the document has no skeleton to write");
    alo_plan p;
    size_t bones_size = 0;
    ganim_code rc;
    memset(&p, 0, sizeof p);
    if (sk->native_format && strcmp(sk->native_format, ALO) == 0 && sk->native) {
        ganim_reader r = gr_init(sk->native, sk->native_size, 0);
        ganim_chunk skel;
        ganim_error ignored;
        if (gc_next(&r, &skel) == GC_OK && skel.type == ALO_SKELETON &&
            alo_parse(&p, &skel, &a, &bones_size, &ignored) == GANIM_OK && alo_native_matches(&p, sk)) {
            rc = alo_encode(&p, out, &a, err);
            ganim_free(&a, p.bones, bones_size);
            return rc;
        }
        if (p.bones) ganim_free(&a, p.bones, bones_size);
        memset(&p, 0, sizeof p);
    }
    /* From the model: version 2 bone data, names with their NUL. */
    bones_size = (size_t)(sk->bone_count ? sk->bone_count : 1) * sizeof *p.bones;
    if (sk->bone_count > 0x7FFFFFF || !(p.bones = ganim_alloc(&a, bones_size))) return GANIM_NOMEM(err);
    memset(p.bones, 0, bones_size);
    p.count = sk->bone_count;
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        alo_pbone *b = &p.bones[i];
        const ganim_bone *o = &sk->bones[i];
        b->name = (const uint8_t *)o->name;
        b->name_size = (uint32_t)strlen(o->name) + 1u;
        b->data_type = ALO_BONE_V2;
        b->parent = o->parent;
        b->visible = (o->flags & GANIM_BONE_HIDDEN) ? 0u : 1u;
        alo_compose(&o->rest, b->m);
    }
    rc = alo_encode(&p, out, &a, err);
    ganim_free(&a, p.bones, bones_size);
    return rc;
}

/* ==================================================================================== */
/* ALA reader                                                                            */
/* ==================================================================================== */

static int alamo_ala_probe(const uint8_t *data, size_t size)
{
    ganim_reader r = gr_init(data, size, 0);
    uint32_t type, len, child;
    if (!gr_u32le(&r, &type) || !gr_u32le(&r, &len) || type != ALA_ROOT || !(len & 0x80000000u))
        return 0;
    bool header = gr_u32le(&r, &child) && child == ALA_HEADER;
    if ((len & 0x7FFFFFFFu) == size - 8) return header ? 90 : 70;
    return header ? 50 : 20;
}

/* One channel of the clip from a plan track. */
static ganim_code make_channel(ganim_doc *doc, const ala_ptrack *t, int channel, uint32_t frames,
                               ganim_channel *ch, ganim_error *err)
{
    unsigned comps = channel == 0 ? 4 : 3;
    uint32_t count = plan_has_stream(t, channel) ? frames : 1;
    float *v = ganim_doc_alloc_array(doc, (size_t)count * comps, sizeof *v);
    if (!v) return GANIM_NOMEM(err);
    for (uint32_t f = 0; f < count; f++) {
        plan_value(t, channel, f, v + (size_t)f * comps);
        for (unsigned k = 0; k < comps; k++)
            if (!isfinite(v[(size_t)f * comps + k]))
                return ganim_fail(err, GANIM_ERR_CORRUPT, t->offset,
                                  ALA ": track at byte %llu: %s at frame %u is not a finite number "
                                  "(bad offset or scale)", (unsigned long long)t->offset,
                                  channel == 1 ? "translation" : "scale", f);
    }
    ch->kind = count == frames && plan_has_stream(t, channel) ? GANIM_CHANNEL_PER_FRAME
                                                              : GANIM_CHANNEL_CONSTANT;
    ch->count = count;
    ch->values = v;
    return GANIM_OK;
}

/* One byte per frame from a 0x1007/0x1008 body (LSB first; take_bits proved its size). */
static uint8_t *unpack_bits(ganim_doc *doc, const uint8_t *bits, uint32_t frames)
{
    uint8_t *b = ganim_doc_alloc(doc, frames);
    if (!b) return NULL;
    ganim_bits br = gb_init(bits, ((size_t)frames + 7u) / 8u);
    for (uint32_t i = 0; i < frames; i++) {
        uint32_t v;
        if (!gb_lsb_u(&br, 1, &v)) return NULL;
        b[i] = (uint8_t)v;
    }
    return b;
}

/* The skeleton the tracks refer to: the given one, or a flat one made from the tracks. */
static ganim_code ala_skeleton(ganim_doc *doc, const ala_plan *p, const ganim_read_opts *opts,
                               ganim_error *err)
{
    if (doc->skeleton) return GANIM_OK;
    if (opts && opts->skeleton) {
        doc->skeleton = ganim_skeleton_copy(doc, opts->skeleton);
        return doc->skeleton ? GANIM_OK : GANIM_NOMEM(err);
    }
    uint32_t count = 0;
    for (uint32_t i = 0; i < p->track_count; i++)
        if (p->tracks[i].index < 65536u && p->tracks[i].index + 1u > count) count = p->tracks[i].index + 1u;
    const char **names = ganim_doc_alloc_array(doc, count ? count : 1, sizeof *names);
    if (!names) return GANIM_NOMEM(err);
    for (uint32_t i = 0; i < p->track_count; i++) {
        const ala_ptrack *t = &p->tracks[i];
        if (t->index < count && !names[t->index])
            names[t->index] = ganim_doc_strndup(doc, (const char *)t->name, t->name_size);
    }
    for (uint32_t i = 0; i < count; i++)
        if (!names[i]) names[i] = i == 0 ? "Root" : ganim_doc_printf(doc, "bone_%u", i);
    for (uint32_t i = 0; i < count; i++)
        if (!names[i]) return GANIM_NOMEM(err);
    doc->skeleton = ganim_skeleton_flat(doc, count, names);
    return doc->skeleton ? GANIM_OK : GANIM_NOMEM(err);
}

static ganim_code alamo_ala_read(ganim_doc *doc, const uint8_t *data, size_t size,
                                 const ganim_read_opts *opts, ganim_error *err)
{
    ala_plan p;
    memset(&p, 0, sizeof p);
    p.alloc = ganim_doc_allocator(doc);
    ganim_code rc = ala_parse(&p, data, size, err);
    if (!rc) rc = ala_skeleton(doc, &p, opts, err);
    if (rc) {
        plan_free(&p);
        return rc;
    }
    if (!p.canonical)
        ganim_doc_warn(doc, p.odd_offset,
                       ALA ": unusual layout (%s at byte %llu); writing the file back will not "
                       "reproduce it byte for byte", p.odd, (unsigned long long)p.odd_offset);
    const ganim_skeleton *sk = doc->skeleton;
    ganim_clip *clip = ganim_doc_alloc(doc, sizeof *clip);
    ganim_track *tracks = ganim_doc_alloc_array(doc, p.track_count ? p.track_count : 1, sizeof *tracks);
    uint8_t *used = ganim_doc_alloc(doc, sk->bone_count ? sk->bone_count : 1);
    uint8_t *native = ganim_doc_memdup(doc, data, size);
    if (!clip || !tracks || !used || !native) {
        plan_free(&p);
        return GANIM_NOMEM(err);
    }
    uint32_t nt = 0;
    for (uint32_t i = 0; i < p.track_count && !rc; i++) {
        const ala_ptrack *t = &p.tracks[i];
        ganim_track *o = &tracks[nt];
        o->name = ganim_doc_strndup(doc, (const char *)t->name, t->name_size);
        if (!o->name) {
            rc = GANIM_NOMEM(err);
            break;
        }
        if (t->index >= sk->bone_count) {
            ganim_doc_warn(doc, t->offset, ALA ": track '%s' (bone index %u) is outside the skeleton "
                           "(%u bones); track skipped", o->name, t->index, sk->bone_count);
            continue;
        }
        if (used[t->index]) {
            ganim_doc_warn(doc, t->offset, ALA ": track '%s' animates bone %u a second time; track skipped",
                           o->name, t->index);
            continue;
        }
        const char *bone_name = sk->bones[t->index].name;
        if (ganim_strcasecmp(bone_name, o->name) != 0)
            ganim_doc_warn(doc, t->offset, ALA ": track '%s' (bone index %u) does not match skeleton bone "
                           "'%s'; animated by index", o->name, t->index, bone_name);
        if (t->rot.base) {
            for (uint32_t f = 0; f < p.frames; f++) {
                int16_t raw[4];
                for (unsigned k = 0; k < 4; k++) raw[k] = (int16_t)st_get(&t->rot, f, k);
                if (!rot_is_unit(raw)) {
                    ganim_doc_warn(doc, t->offset, ALA ": track '%s': rotation at frame %u is not unit "
                                   "length; normalised", o->name, f);
                    break;
                }
            }
        } else if (!rot_is_unit(t->defrot)) {
            ganim_doc_warn(doc, t->offset, ALA ": track '%s': rotation is not unit length; normalised",
                           o->name);
        }
        used[t->index] = 1;
        o->bone = t->index;
        if ((rc = make_channel(doc, t, 0, p.frames, &o->rotation, err)) ||
            (rc = make_channel(doc, t, 1, p.frames, &o->translation, err)) ||
            (rc = make_channel(doc, t, 2, p.frames, &o->scale, err)))
            break;
        if ((t->vis && !(o->visibility = unpack_bits(doc, t->vis, p.frames))) ||
            (t->step && !(o->step = unpack_bits(doc, t->step, p.frames))))
            rc = GANIM_NOMEM(err);
        nt++;
    }
    plan_free(&p);
    if (rc) return rc;
    clip->name = "";
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->fps = (double)f32_from_bits(p.fps_bits);
    clip->frame_count = p.frames;
    clip->track_count = nt;
    clip->tracks = tracks;
    clip->rotation_interp = GANIM_INTERP_SLERP;
    clip->native_format = ALA;
    clip->native = native;
    clip->native_size = size;
    doc->clips = clip;
    doc->clip_count = 1;
    doc->axes = GANIM_AXES_Z_UP;
    return GANIM_OK;
}

/* ==================================================================================== */
/* ALA writer                                                                            */
/* ==================================================================================== */

static bool bits_match(const uint8_t *bits, const uint8_t *bytes, uint32_t frames)
{
    if (!bits || !bytes) return !bits && !bytes;
    ganim_bits br = gb_init(bits, ((size_t)frames + 7u) / 8u);
    for (uint32_t i = 0; i < frames; i++) {
        uint32_t v;
        if (!gb_lsb_u(&br, 1, &v) || v != (bytes[i] != 0)) return false;
    }
    return true;
}

static bool channel_matches(const ala_ptrack *t, int channel, uint32_t frames, const ganim_channel *ch)
{
    unsigned comps = channel == 0 ? 4 : 3;
    bool stream = plan_has_stream(t, channel);
    uint32_t count = stream ? frames : 1;
    if (ch->count != count || !ch->values) return false;
    if (ch->kind != (stream ? GANIM_CHANNEL_PER_FRAME : GANIM_CHANNEL_CONSTANT)) return false;
    for (uint32_t f = 0; f < count; f++) {
        float v[4];
        plan_value(t, channel, f, v);
        for (unsigned k = 0; k < comps; k++)
            if (v[k] != ch->values[(size_t)f * comps + k]) return false;
    }
    return true;
}

/* The clip decodes to exactly what its native record holds (names and fps aside). */
static bool ala_native_matches(const ala_plan *p, const ganim_clip *c)
{
    if (c->frame_count != p->frames || c->track_count != p->track_count) return false;
    for (uint32_t i = 0; i < p->track_count; i++) {
        const ala_ptrack *t = &p->tracks[i];
        const ganim_track *o = &c->tracks[i];
        if (o->bone != t->index || !channel_matches(t, 0, p->frames, &o->rotation) ||
            !channel_matches(t, 1, p->frames, &o->translation) ||
            !channel_matches(t, 2, p->frames, &o->scale) || !bits_match(t->vis, o->visibility, p->frames) ||
            !bits_match(t->step, o->step, p->frames))
            return false;
    }
    return true;
}

static int16_t q16(float v)
{
    double r = floor((double)v * 32767.0 + 0.5);
    if (r > 32767.0) r = 32767.0;
    if (r < -32767.0) r = -32767.0;
    return (int16_t)r;
}

/* Quantise one clip track like the official exporter: per axis offset = min,
 * scale = (max-min)/65535, u = round((v-min)/scale); rotations round(q*32767). */
static void quantise_track(ala_plan *p, ala_ptrack *t, const ganim_clip *clip,
                                 const ganim_track *o, const ganim_bone *bone, uint8_t *mem)
{
    uint32_t n = p->frames;
    /* mem: rot 8n, trans 6n, scale 6n, bits 2*(n+7)/8 */
    uint8_t *rot = mem, *trn = rot + 8 * (size_t)n, *scl = trn + 6 * (size_t)n;
    uint8_t *vis = scl + 6 * (size_t)n, *stp = vis + ((size_t)n + 7) / 8;
    ganim_transform rest = bone ? bone->rest : ganim_transform_identity();
    const float rest_r[4] = { rest.rotation.x, rest.rotation.y, rest.rotation.z, rest.rotation.w };
    const float rest_t[3] = { rest.translation.x, rest.translation.y, rest.translation.z };
    const float rest_s[3] = { rest.scale.x, rest.scale.y, rest.scale.z };
    bool rot_anim = false;
    for (uint32_t f = 0; f < n; f++) {
        float q[4];
        ganim_channel_eval(&o->rotation, n, o->step, clip->rotation_interp, 4, (double)f, rest_r, q);
        for (unsigned k = 0; k < 4; k++) {
            int16_t v = q16(q[k]);
            rot[8 * (size_t)f + 2 * k] = (uint8_t)(uint16_t)v;
            rot[8 * (size_t)f + 2 * k + 1] = (uint8_t)((uint16_t)v >> 8);
            if (f == 0) t->defrot[k] = v;
            else if (v != t->defrot[k]) rot_anim = true;
        }
    }
    if (rot_anim) t->rot = (ala_stream){ rot, 8 };
    bool static_rest = !rot_anim;
    {
        float q[4];
        dec_rot(t->defrot, q);
        float d = q[0] * rest_r[0] + q[1] * rest_r[1] + q[2] * rest_r[2] + q[3] * rest_r[3];
        if (fabsf(d) < 1.0f - 1e-6f) static_rest = false;
    }
    for (int c = 1; c <= 2; c++) {
        const ganim_channel *ch = c == 1 ? &o->translation : &o->scale;
        uint8_t *buf = c == 1 ? trn : scl;
        const float *restv = c == 1 ? rest_t : rest_s;
        float lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 }, v[3];
        bool anim = false;
        for (uint32_t f = 0; f < n; f++) {
            ganim_channel_eval(ch, n, o->step, clip->rotation_interp, 3, (double)f, restv, v);
            for (int k = 0; k < 3; k++) {
                if (!isfinite(v[k])) v[k] = 0.0f;
                if (f == 0 || v[k] < lo[k]) lo[k] = v[k];
                if (f == 0 || v[k] > hi[k]) hi[k] = v[k];
            }
        }
        float scale[3];
        for (int k = 0; k < 3; k++) {
            scale[k] = hi[k] > lo[k] ? (float)(((double)hi[k] - (double)lo[k]) / 65535.0) : 0.0f;
            if (scale[k] > 0.0f) anim = true;
            if (fabsf(lo[k] - restv[k]) > 1e-5f * (1.0f + fabsf(restv[k]))) static_rest = false;
        }
        for (uint32_t f = 0; anim && f < n; f++) {
            ganim_channel_eval(ch, n, o->step, clip->rotation_interp, 3, (double)f, restv, v);
            for (int k = 0; k < 3; k++) {
                double u = 0.0;
                if (scale[k] > 0.0f && isfinite(v[k])) u = floor(((double)v[k] - lo[k]) / scale[k] + 0.5);
                if (u < 0.0) u = 0.0;
                if (u > 65535.0) u = 65535.0;
                uint16_t q = (uint16_t)u;
                buf[6 * (size_t)f + 2 * (size_t)k] = (uint8_t)q;
                buf[6 * (size_t)f + 2 * (size_t)k + 1] = (uint8_t)(q >> 8);
            }
        }
        int off = c == 1 ? V_TOFF : V_SOFF;
        for (int k = 0; k < 3; k++) {
            t->vec[off][k] = f32_bits(lo[k]);
            t->vec[off + 1][k] = f32_bits(scale[k]);
        }
        if (anim) {
            static_rest = false;
            if (c == 1) t->trans = (ala_stream){ trn, 6 };
            else t->scale = (ala_stream){ scl, 6 };
        }
    }
    const uint8_t *src[2] = { o->visibility, o->step };
    uint8_t *dst[2] = { vis, stp };
    for (int b = 0; b < 2; b++) {
        if (!src[b]) continue;
        for (uint32_t f = 0; f < n; f++)
            if (src[b][f]) dst[b][f >> 3] = (uint8_t)(dst[b][f >> 3] | (1u << (f & 7u)));
        if (b == 0) t->vis = vis;
        else t->step = stp;
    }
    /* Mini-chunk 10: 1 only for a track that holds its bone at the rest pose (docs). */
    t->has_unk10 = true;
    t->unk10 = (bone && static_rest) ? 1u : 0u;
    t->tidx = t->sidx = t->ridx = -1;
}

static ganim_code ala_plan_from_clip(ala_plan *p, const ganim_doc *doc, const ganim_clip *c,
                                     ganim_error *err)
{
    uint32_t n = c->frame_count;
    size_t per, total;
    p->version = 0;
    p->frames = n;
    p->fps_bits = f32_bits((float)c->fps);
    p->track_count = c->track_count;
    p->canonical = true;
    p->tracks = plan_alloc(p, c->track_count ? c->track_count : 1, sizeof *p->tracks);
    /* 20 bytes of values and 2 bit bytes per frame, one block per track */
    if (!ganim_mul_size((size_t)n + 8u, 22u, &per) ||
        !ganim_mul_size(per, c->track_count ? c->track_count : 1, &total))
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, ALA ": the clip is too large");
    uint8_t *mem = plan_alloc(p, total, 1);
    if (!p->tracks || !mem) return GANIM_NOMEM(err);
    const ganim_skeleton *sk = doc->skeleton;
    for (uint32_t i = 0; i < c->track_count; i++) {
        const ganim_track *o = &c->tracks[i];
        ala_ptrack *t = &p->tracks[i];
        const ganim_bone *bone = sk && o->bone < sk->bone_count ? &sk->bones[o->bone] : NULL;
        const char *name = o->name && o->name[0] ? o->name : bone ? bone->name : "";
        size_t len = strlen(name);
        if (len > 254)
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              ALA ": track %u: the name is longer than 254 bytes", i);
        t->name = (const uint8_t *)name;
        t->name_size = (uint8_t)(len + 1);
        t->index = o->bone;
        quantise_track(p, t, c, o, bone, mem + per * i);
    }
    return GANIM_OK;
}

static const ganim_clip *ala_first_clip(const ganim_doc *doc)
{
    for (uint32_t i = 0; i < doc->clip_count; i++)
        if (doc->clips[i].kind == GANIM_CLIP_ANIMATION) return &doc->clips[i];
    return NULL;
}

static ganim_code alamo_ala_write(const ganim_doc *doc, const ganim_write_opts *opts,
                                  ganim_buffer *out, ganim_error *err)
{
    const ganim_clip *c = ala_first_clip(doc);
    ganim_allocator a = ganim_allocator_resolve(opts ? &opts->allocator : NULL);
    int version = opts ? opts->alamo_version : 0;
    if (!c)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, ALA ": the document has no animation");
    if (version != 0 && version != 1 && version != 2)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          ALA ": format version %d does not exist (1 or 2)", version);
    if (c->frame_count == 0 || !(c->fps > 0.0) || !isfinite((float)c->fps))
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          ALA ": the clip needs at least one frame and a positive fps");
    /* An .ALA holds one animation: the first one is written. */
    ala_plan p;
    memset(&p, 0, sizeof p);
    p.alloc = &a;
    bool native = false;
    if (c->native_format && strcmp(c->native_format, ALA) == 0 && c->native) {
        ganim_error ignored;
        native = ala_parse(&p, c->native, c->native_size, &ignored) == GANIM_OK &&
                 ala_native_matches(&p, c);
        if (!native) {
            plan_free(&p);
            memset(&p, 0, sizeof p);
            p.alloc = &a;
        }
    }
    ganim_code rc = GANIM_OK;
    if (native) {
        /* Names and fps may have been edited without touching the quantised values. */
        if ((float)c->fps != f32_from_bits(p.fps_bits)) p.fps_bits = f32_bits((float)c->fps);
        for (uint32_t i = 0; i < p.track_count; i++) {
            const char *name = c->tracks[i].name;
            ala_ptrack *t = &p.tracks[i];
            if (name && name[0] && !name_same(t->name, t->name_size, name)) {
                size_t len = strlen(name);
                if (len > 254) {
                    rc = ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                                    ALA ": track %u: the name is longer than 254 bytes", i);
                    break;
                }
                t->name = (const uint8_t *)name;
                t->name_size = (uint8_t)(len + 1);
            }
        }
    } else {
        rc = ala_plan_from_clip(&p, doc, c, err);
    }
    if (!rc) {
        if (version == 0) version = p.version ? p.version : 2;
        rc = ala_encode(&p, version, out, err);
    }
    plan_free(&p);
    return rc;
}

/* ==================================================================================== */
/* describe                                                                              */
/* ==================================================================================== */

static void describe_track_json(ganim_writer *w, const ala_plan *p, const ala_ptrack *t, bool full)
{
    char name[256];
    memcpy(name, t->name, t->name_size);
    name[t->name_size] = 0;
    gw_str(w, "{\"name\":");
    gw_json_string(w, name);
    gw_printf(w, ",\"index\":%u,\"rotation\":\"%s\",\"translation\":\"%s\",\"scale\":\"%s\","
                 "\"visibility\":%s,\"step\":%s",
              t->index, t->rot.base ? "per-frame" : "constant", t->trans.base ? "per-frame" : "constant",
              t->scale.base ? "per-frame" : "constant", t->vis ? "true" : "false", t->step ? "true" : "false");
    if (full) {
        static const char *const keys[4] = { "translation_offset", "translation_scale", "scale_offset",
                                             "scale_scale" };
        if (t->has_unk10) gw_printf(w, ",\"unknown10\":%u", t->unk10);
        for (int v = 0; v < 4; v++) {
            gw_printf(w, ",\"%s\":[", keys[v]);
            for (int k = 0; k < 3; k++) {
                if (k) gw_str(w, ",");
                gw_float(w, f32_from_bits(t->vec[v][k]));
            }
            gw_str(w, "]");
        }
        if (p->version == 2)
            gw_printf(w, ",\"translation_index\":%d,\"scale_index\":%d,\"rotation_index\":%d",
                      t->tidx, t->sidx, t->ridx);
        gw_printf(w, ",\"default_rotation\":[%d,%d,%d,%d]", t->defrot[0], t->defrot[1], t->defrot[2],
                  t->defrot[3]);
    }
    gw_str(w, "}");
}

static ganim_code alamo_ala_describe(const ganim_doc *doc, int clip, int mode, ganim_buffer *out,
                                     ganim_error *err)
{
    const ganim_clip *c = clip < 0 ? ala_first_clip(doc)
                                   : (uint32_t)clip < doc->clip_count ? &doc->clips[clip] : NULL;
    if (!c || !c->native_format || strcmp(c->native_format, ALA) != 0 || !c->native) return GANIM_OK;
    ganim_allocator a = ganim_allocator_resolve(&out->allocator);
    ala_plan p;
    ganim_error ignored;
    memset(&p, 0, sizeof p);
    p.alloc = &a;
    if (ala_parse(&p, c->native, c->native_size, &ignored) != GANIM_OK) {
        plan_free(&p);
        return GANIM_OK;
    }
    ganim_writer w = gw_init(out, &a);
    bool tracks = clip >= 0 || mode == GANIM_DESCRIBE_FULL;
    if (mode == GANIM_DESCRIBE_TEXT) {
        if (clip < 0) { /* the document's lines; the clip's add only its tracks */
            gw_printf(&w, "alamo format: %d (%s)\n", p.version,
                      p.version == 1 ? "Empire at War, per-track data" : "Forces of Corruption, frame blocks");
            if (p.version == 2)
                gw_printf(&w, "frame sizes: rotation %u, translation %u, scale %u (16-bit values)\n", p.rfs,
                          p.tfs, p.sfs);
            if (!p.canonical) gw_printf(&w, "layout: unusual (%s)\n", p.odd);
        }
        for (uint32_t i = 0; tracks && i < p.track_count; i++) {
            const ala_ptrack *t = &p.tracks[i];
            char name[256];
            memcpy(name, t->name, t->name_size);
            name[t->name_size] = 0;
            gw_printf(&w, "track %u: %s bone %u, animated:%s%s%s%s%s\n", i, name, t->index,
                      t->rot.base ? " rotation" : "", t->trans.base ? " translation" : "",
                      t->scale.base ? " scale" : "", t->vis ? " visibility" : "", t->step ? " step" : "");
        }
    } else {
        gw_printf(&w, "{\"version\":%d", p.version);
        if (p.version == 2)
            gw_printf(&w, ",\"frame_sizes\":{\"rotation\":%u,\"translation\":%u,\"scale\":%u}", p.rfs,
                      p.tfs, p.sfs);
        gw_printf(&w, ",\"canonical_layout\":%s", p.canonical ? "true" : "false");
        if (tracks) {
            gw_str(&w, ",\"tracks\":[");
            for (uint32_t i = 0; i < p.track_count; i++) {
                if (i) gw_str(&w, ",");
                describe_track_json(&w, &p, &p.tracks[i], mode == GANIM_DESCRIBE_FULL);
            }
            gw_str(&w, "]");
        }
        gw_str(&w, "}");
    }
    plan_free(&p);
    return gw_ok(&w) ? GANIM_OK : GANIM_NOMEM(err);
}

const ganim_format ganim_format_alamo_ala = {
    ALA,
    "Petroglyph Alamo animation (Star Wars: Empire at War / Forces of Corruption), formats 1 and 2",
    ".ala",
    0,
    alamo_ala_probe,
    alamo_ala_read,
    alamo_ala_write,
    NULL,
    alamo_ala_describe,
};

const ganim_format ganim_format_alamo_alo = {
    ALO,
    "Petroglyph Alamo model skeleton (.ALO, chunk 0x200); meshes are ignored",
    ".alo",
    1,
    alamo_alo_probe,
    alamo_alo_read,
    alamo_alo_write,
    NULL,
    NULL,
};
