/* Alamo .ALA: a plan (ala.h) into bytes, as format 1 (per-track data chunks) or format
 * 2 (shared frame blocks), in the chunk order the game's own files use. */
#include <string.h>

#include "formats/alamo/alamo_ala.h"

static void put_frames(ganim_writer *w, const ala_stream *s, uint32_t frames, unsigned comps)
{
    for (uint32_t f = 0; f < frames; f++)
        for (unsigned k = 0; k < comps; k++) gw_u16le(w, ala_st_get(s, f, k));
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
static uint8_t *make_block(ala_plan *p, const uint8_t *src, uint32_t fs, int channel, const int16_t *idx, size_t *size)
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
                uint16_t v = ala_st_get(s, f, k);
                size_t at = ((size_t)f * fs + (size_t)idx[i] + k) * 2u;
                b[at] = (uint8_t)v;
                b[at + 1] = (uint8_t)(v >> 8);
            }
    }
    *size = n;
    return b;
}

ganim_code ala_encode(ala_plan *p, int version, ganim_buffer *out, ganim_error *err)
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
                    idx[(uint32_t)c * p->track_count + i] = has[c] ? own[c] : -1;
                } else if (has[c]) {
                    if (next[c] + comps > 32767u) {
                        ganim_free(p->alloc, idx, idx_size);
                        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                                          ALA ": too many animated tracks for format 2 (16-bit indices)");
                    }
                    idx[(uint32_t)c * p->track_count + i] = (int16_t)next[c];
                    next[c] += comps;
                } else {
                    idx[(uint32_t)c * p->track_count + i] = -1;
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
            for (int c = 0; c < 3; c++) put_i16(&cw, (uint8_t)(14 + c), &idx[(uint32_t)c * p->track_count + i], 1);
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
        static const int chan[3] = { 1, 0, 2 }; /* ala_plan_value channel */
        static const int slot[3] = { 0, 2, 1 }; /* idx / fs slot */
        const uint8_t *src[3] = { p->tblock, p->rblock, p->sblock };
        for (int b = 0; b < 3 && gw_ok(&w); b++) {
            if (!fs[slot[b]]) continue;
            size_t bs = 0;
            uint8_t *block = make_block(p, p->version == 2 ? src[b] : NULL, fs[slot[b]], chan[b],
                                        &idx[(uint32_t)slot[b] * p->track_count], &bs);
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
