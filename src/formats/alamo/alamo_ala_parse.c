/* Alamo .ALA: parsing a file into its plan (raw integers, quantisation, indices; see
 * ala.h), and the plan's decoded values, which the reader turns into a clip and the
 * writer compares a clip against. Layouts and evidence: docs/formats/alamo.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/alamo/alamo_ala.h"

static void plan_odd(ala_plan *p, uint64_t offset, const char *what, uint32_t id)
{
    if (!p->canonical) return;
    p->canonical = false;
    p->odd_offset = offset;
    snprintf(p->odd, sizeof p->odd, "%s 0x%x", what, (unsigned)id);
}

void *ala_plan_alloc(ala_plan *p, size_t count, size_t size)
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

void ala_plan_free(ala_plan *p)
{
    for (int i = 0; i < 4; i++)
        if (p->owned[i]) ganim_free(p->alloc, p->owned[i], p->owned_size[i]);
    memset(p->owned, 0, sizeof p->owned);
}

void ala_dec_rot(const int16_t raw[4], float out[4]) { (void)ala_dec_rot_unit(raw, out); }

bool ala_dec_rot_unit(const int16_t raw[4], float out[4])
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
        return false;
    }
    return true;
}
bool ala_rot_is_unit(const int16_t raw[4])
{
    float n2 = 0;
    for (int k = 0; k < 4; k++) n2 += ((float)raw[k] / 32767.0f) * ((float)raw[k] / 32767.0f);
    return fabsf(sqrtf(n2) - 1.0f) <= 1e-3f;
}

/* channel: 0 rotation, 1 translation, 2 scale. Frame ignored for constant channels. */
void ala_plan_value(const ala_ptrack *t, int channel, uint32_t f, float *out)
{
    if (channel == 0) {
        int16_t raw[4];
        for (unsigned k = 0; k < 4; k++) raw[k] = t->rot.base ? (int16_t)ala_st_get(&t->rot, f, k) : t->defrot[k];
        ala_dec_rot(raw, out);
        return;
    }
    const ala_stream *s = channel == 1 ? &t->trans : &t->scale;
    const uint32_t *off = t->vec[channel == 1 ? V_TOFF : V_SOFF];
    const uint32_t *scl = t->vec[channel == 1 ? V_TSCALE : V_SSCALE];
    for (unsigned k = 0; k < 3; k++) {
        float v = ganim_f32_from_bits(off[k]);
        if (s->base) v += (float)ala_st_get(s, f, k) * ganim_f32_from_bits(scl[k]);
        out[k] = v;
    }
}
bool ala_plan_has_stream(const ala_ptrack *t, int channel)
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
                      ALA ": %s: mini-chunk %u at byte %llu has %u bytes, expected %u", where, m->type,
                      (unsigned long long)m->offset, m->size, want);
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
                              id == 1   ? "frame count"
                              : id == 2 ? "fps"
                                        : "track count");
    p->version = have[11] ? 2 : 1;
    if (p->version == 2 && (!have[12] || !have[13])) plan_odd(p, c->offset, "header lacks mini-chunk", 12);
    if (p->version == 1 && (have[12] || have[13])) plan_odd(p, c->offset, "header mini-chunk", 12);
    float fps = ganim_f32_from_bits(p->fps_bits);
    if (!((double)fps >= GANIM_MIN_FPS && (double)fps <= GANIM_MAX_FPS)) /* also NaN */
        return ganim_fail(err, GANIM_ERR_CORRUPT, c->offset,
                          ALA ": animation header at byte %llu: fps %g is outside %g..%g frames per second",
                          (unsigned long long)c->offset, (double)fps, GANIM_MIN_FPS, GANIM_MAX_FPS);
    if (p->frames == 0)
        return ganim_fail(err, GANIM_ERR_CORRUPT, c->offset,
                          ALA ": animation header at byte %llu: the frame count is 0", (unsigned long long)c->offset);
    return GANIM_OK;
}

/* A track header's mini-chunk `id` of `size` bytes at file offset `at` is not `want` bytes. */
static ganim_code mini_bad(unsigned id, unsigned size, uint64_t at, unsigned want, ganim_error *err)
{
    return ganim_fail(err, GANIM_ERR_CORRUPT, at, ALA ": %s: mini-chunk %u at byte %llu has %u bytes, expected %u",
                      "track header", id, (unsigned long long)at, size, want);
}

/* The mini-chunks of a track header (ten or more a track: the parse's per-track cost), walked
 * in place: each header's two bytes and its body checked against the chunk's end before
 * anything is read, the values read through a reader over the body (gc_next_mini's checks
 * and errors, without its result record). */
static ganim_code parse_track_header(ala_plan *p, ala_ptrack *t, const ganim_chunk *c, ganim_error *err)
{
    const uint8_t *d = c->body.data + c->body.pos;
    const size_t n = gr_left(&c->body);
    const uint64_t base = gr_offset(&c->body);
    size_t at = 0;
    uint32_t have = 0; /* bit id: mini-chunk id seen */
    int last = 0;
    static const int rank[18] = { 0, 0, 0, 0, 1, 2, 4, 5, 6, 7, 3, 0, 0, 0, 8, 9, 10, 11 };
    const unsigned top = p->version == 2 ? 17u : 10u; /* 14..17 are format 2's */
    while (at < n) {
        if (n - at < 2u || d[at + 1] > n - at - 2u) {
            ganim_mini m;
            memset(&m, 0, sizeof m);
            m.offset = base + at;
            return gc_fail_mini(err, ALA, "track header", &c->body, &m);
        }
        const unsigned id = d[at], size = d[at + 1];
        const uint64_t off = base + at;
        ganim_reader r = gr_init(d + at + 2u, size, off + 2u);
        at += 2u + size;
        if (id < 4u || id > top || (id > 10u && id < 14u)) {
            plan_odd(p, off, "track mini-chunk", id);
            continue;
        }
        if ((have >> id & 1u) || rank[id] < last) plan_odd(p, off, "track mini-chunk", id);
        last = rank[id];
        have |= 1u << id;
        switch (id) {
        case 4:
            t->name = r.data;
            t->name_size = (uint8_t)size;
            break;
        case 5:
            if (size != 4u) return mini_bad(id, size, off, 4, err);
            (void)gr_u32le(&r, &t->index);
            break;
        case 10:
            if (size != 4u) return mini_bad(id, size, off, 4, err);
            (void)gr_u32le(&r, &t->unk10);
            t->has_unk10 = true;
            break;
        case 6:
        case 7:
        case 8:
        case 9:
            if (size != 12u) return mini_bad(id, size, off, 12, err);
            for (int k = 0; k < 3; k++) (void)gr_u32le(&r, &t->vec[id - 6][k]);
            break;
        case 14:
        case 15:
        case 16:
            if (size != 2u) return mini_bad(id, size, off, 2, err);
            (void)gr_i16le(&r, id == 14 ? &t->tidx : id == 15 ? &t->sidx : &t->ridx);
            break;
        default: /* 17 */
            if (size != 8u) return mini_bad(id, size, off, 8, err);
            (void)read_i16x(&r, t->defrot, 4);
            break;
        }
    }
    if (!(have >> 5 & 1u))
        return ganim_fail(err, GANIM_ERR_CORRUPT, c->offset,
                          ALA ": track header at byte %llu has no bone index (mini-chunk 5)",
                          (unsigned long long)c->offset);
    const uint32_t common = 1u << 4 | 1u << 6 | 1u << 7 | 1u << 8 | 1u << 9, v2 = 0xFu << 14;
    if ((have & common) != common || (p->version == 2 && (have & v2) != v2))
        plan_odd(p, c->offset, "track header lacks a mini-chunk near", 4);
    return GANIM_OK;
}

/* A per-frame chunk of `comps` 16-bit values. single: also accept one value set. */
static ganim_code take_frames(const ala_plan *p, const ganim_chunk *c, unsigned comps, ala_stream *s, bool *single,
                              ganim_error *err)
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
                          ALA ": chunk 0x%x at byte %llu has %u bytes, expected %zu (%u frames x %u values)", c->type,
                          (unsigned long long)c->offset, c->size, want, p->frames, comps);
    s->base = c->body.data;
    s->stride = 2u * comps;
    return GANIM_OK;
}

static ganim_code take_bits(ala_plan *p, const ganim_chunk *c, const uint8_t **out, ganim_error *err)
{
    size_t want = ((size_t)p->frames + 7u) / 8u;
    if (c->size < want)
        return ganim_fail(err, GANIM_ERR_TRUNCATED, c->offset,
                          ALA ": bit chunk 0x%x at byte %llu has %u bytes, %u frames need %zu", c->type,
                          (unsigned long long)c->offset, c->size, p->frames, want);
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
        return ganim_fail(err, GANIM_ERR_CORRUPT, tc->offset, ALA ": track at byte %llu has no header chunk 0x1003",
                          (unsigned long long)tc->offset);
    if (p->version == 1 && !have_rot) plan_odd(p, tc->offset, "format-1 track without chunk", ALA_ROT);
    return GANIM_OK;
}

/* A format-2 block chunk: exactly frames * frame_size 16-bit values. */
static ganim_code take_block(ala_plan *p, const ganim_chunk *c, uint32_t fs, const uint8_t **out, ganim_error *err)
{
    size_t n;
    if (*out) {
        plan_odd(p, c->offset, "second data block", c->type);
        return GANIM_OK;
    }
    if (fs == 0) plan_odd(p, c->offset, "data block with frame size 0", c->type);
    if (!ganim_mul_size((size_t)fs, (size_t)p->frames, &n) || !ganim_mul_size(n, 2, &n) || n != c->size)
        return ganim_fail(err, GANIM_ERR_CORRUPT, c->offset,
                          ALA ": data block 0x%x at byte %llu has %u bytes, expected %u frames x %u values x 2",
                          c->type, (unsigned long long)c->offset, c->size, p->frames, fs);
    *out = c->body.data;
    return GANIM_OK;
}

static ganim_code link_index(const ala_ptrack *t, int16_t idx, unsigned comps, uint32_t fs, const uint8_t *block,
                             uint32_t block_type, ala_stream *s, const char *what, ganim_error *err)
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

/* Parse a whole .ALA into `p` (caller sets p->alloc; ala_plan_free afterwards). */
ganim_code ala_parse(ala_plan *p, const uint8_t *data, size_t size, ganim_error *err)
{
    ganim_reader file = gr_init(data, size, 0);
    ganim_chunk root, c;
    int st;
    p->canonical = true;
    st = gc_next(&file, &root);
    if (st == GC_END) return ganim_fail(err, GANIM_ERR_TRUNCATED, 0, ALA ": the file is empty");
    if (st == GC_BAD) return gc_fail(err, ALA, "root", &file, &root);
    if (root.type != ALA_ROOT || !root.container)
        return ganim_fail(err, GANIM_ERR_CORRUPT, 0,
                          ALA ": the file starts with chunk 0x%x%s, not the animation chunk 0x1000", root.type,
                          root.container ? "" : " (data)");
    if (gr_left(&file)) plan_odd(p, gr_offset(&file), "data after the root chunk", 0);

    /* First pass: count tracks so the array is sized from the bytes present. */
    uint32_t ntracks = 0;
    ganim_reader r = root.body;
    while ((st = gc_next(&r, &c)) == GC_OK)
        if (c.type == ALA_TRACK && c.container) ntracks++;
    if (st == GC_BAD) return gc_fail(err, ALA, "animation", &root.body, &c);
    p->tracks = ala_plan_alloc(p, ntracks ? ntracks : 1, sizeof *p->tracks);
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
                              ALA ": chunk 0x%x at byte %llu comes before the animation header 0x1001", c.type,
                              (unsigned long long)c.offset);
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
    if (!have_header) return ganim_fail(err, GANIM_ERR_CORRUPT, 0, ALA ": the animation has no header chunk 0x1001");
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
                                      "chunk 0x%x with the data",
                                  what[b], fs[b], type[b]);
        for (uint32_t i = 0; i < ntracks; i++) {
            ala_ptrack *t = &p->tracks[i];
            ganim_code rc;
            if ((rc = link_index(t, t->tidx, 3, p->tfs, p->tblock, ALA_TRANS_BLOCK, &t->trans, "translation", err)) ||
                (rc = link_index(t, t->ridx, 4, p->rfs, p->rblock, ALA_ROT_BLOCK, &t->rot, "rotation", err)) ||
                (rc = link_index(t, t->sidx, 3, p->sfs, p->sblock, ALA_SCALE_BLOCK, &t->scale, "scale", err)))
                return rc;
        }
    } else {
        /* Format 2 view of a format-1 track: the default rotation is frame 0. */
        for (uint32_t i = 0; i < ntracks; i++) {
            ala_ptrack *t = &p->tracks[i];
            if (t->rot.base)
                for (unsigned k = 0; k < 4; k++) t->defrot[k] = (int16_t)ala_st_get(&t->rot, 0, k);
        }
    }
    return GANIM_OK;
}
