/* ACL encoder, the bytes: a compressed_tracks buffer (versions 7 and 10) in the layout
 * docs/formats/acl.md describes and acl_open.c reads, every block aligned as ACL aligns
 * it, ending with the optional metadata or 15 zero bytes, hashed with FNV-1a. */
#include "formats/acl/acl_encode.h"
#include "io/writer.h"

static uint32_t fnv1a_enc(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static void pad_to(ganim_writer *w, size_t start, uint32_t a)
{
    size_t rel = gw_pos(w) - start;
    gw_zeros(w, (size_t)((a - rel % a) % a));
}

/* MSB-first bit writer over a zeroed byte array. */
static void put_bits(uint8_t *d, size_t *bit, uint32_t v, unsigned n)
{
    for (unsigned i = n; i-- > 0; (*bit)++)
        if ((v >> i) & 1u) d[*bit >> 3] |= (uint8_t)(0x80u >> (*bit & 7u));
}

typedef struct emit_lists {
    uint32_t *anim[3]; /* tracks of the animated sub-tracks of each kind, in track order */
    uint32_t *cons[3];
    uint32_t na[3], nc[3];
} emit_lists;

static void make_lists(const acl_enc *e, emit_lists *L, uint32_t *store)
{
    for (unsigned k = 0; k < 3; k++) {
        L->anim[k] = store + (size_t)k * 2u * e->nt;
        L->cons[k] = L->anim[k] + e->nt;
        L->na[k] = L->nc[k] = 0;
        if (k == K_SCALE && !e->has_scale) continue;
        for (uint32_t t = 0; t < e->nt; t++) {
            uint8_t ty = e->type[3u * t + k];
            if (ty == T_ANIM) L->anim[k][L->na[k]++] = t;
            else if (ty == T_CONST) L->cons[k][L->nc[k]++] = t;
        }
    }
}

static void emit_types(ganim_writer *w, const acl_enc *e)
{
    uint32_t words = (e->nt + 15u) / 16u;
    for (unsigned k = 0; k < (e->has_scale ? 3u : 2u); k++)
        for (uint32_t i = 0; i < words; i++) {
            uint32_t v = 0;
            for (uint32_t j = 0; j < 16u && 16u * i + j < e->nt; j++)
                v |= (uint32_t)e->type[3u * (16u * i + j) + k] << (30u - 2u * j);
            gw_u32le(w, v);
        }
}

/* Constant samples: rotations x, y, z in groups of four (x x x x y y y y z z z z), or
 * x, y, z, w each (quatf_full), then translations and scales as three floats. */
static void emit_constants(ganim_writer *w, const acl_enc *e, const emit_lists *L)
{
    for (uint32_t i = 0; e->p.fmt[K_ROT] == 0 && i < L->nc[0]; i++)
        for (unsigned c = 0; c < 4; c++) gw_f32le(w, enc_raw(e, 0, L->cons[0][i])[c]);
    for (uint32_t g = 0; e->p.fmt[K_ROT] != 0 && g < L->nc[0]; g += 4) {
        uint32_t n = L->nc[0] - g < 4 ? L->nc[0] - g : 4;
        for (unsigned c = 0; c < 3; c++)
            for (uint32_t j = 0; j < n; j++) gw_f32le(w, enc_raw(e, 0, L->cons[0][g + j])[c]);
    }
    for (unsigned k = 1; k < 3; k++)
        for (uint32_t i = 0; i < L->nc[k]; i++)
            for (unsigned c = 0; c < 3; c++) gw_f32le(w, e->cval[((size_t)L->cons[k][i] * 3u + k) * 4u + c]);
}

/* Clip ranges of the variable kinds only. */
static void emit_clip_ranges(ganim_writer *w, const acl_enc *e, const emit_lists *L)
{
    for (uint32_t g = 0; enc_variable(&e->p, K_ROT) && g < L->na[0]; g += 4) {
        uint32_t n = L->na[0] - g < 4 ? L->na[0] - g : 4;
        for (unsigned part = 0; part < 2; part++)
            for (unsigned c = 0; c < 3; c++)
                for (uint32_t j = 0; j < n; j++) {
                    size_t i = (size_t)L->anim[0][g + j] * 3u;
                    gw_f32le(w, (part ? e->cext : e->cmin)[i * 3u + c]);
                }
    }
    for (unsigned k = 1; k < 3; k++)
        for (uint32_t a = 0; enc_variable(&e->p, k) && a < L->na[k]; a++) {
            size_t i = (size_t)L->anim[k][a] * 3u + k;
            for (unsigned c = 0; c < 3; c++) gw_f32le(w, e->cmin[i * 3u + c]);
            for (unsigned c = 0; c < 3; c++) gw_f32le(w, e->cext[i * 3u + c]);
        }
}

static uint8_t format_byte(const acl_enc *e, const acl_sub *sub)
{
    if (sub->width == ACL_ENC_RAW) return e->p.version >= 9 ? 31u : 32u;
    return sub->width;
}

/* One segment: format bytes, segment ranges (several segments only), the bitstream. */
static void emit_segment(ganim_writer *w, size_t start, const acl_enc *e, const emit_lists *L, uint32_t g, uint32_t nv,
                         uint32_t rot4, uint8_t *scratch)
{
    for (unsigned k = 0; k < 3; k++) {
        if (!enc_variable(&e->p, k)) continue;
        for (uint32_t a = 0; a < L->na[k]; a++) gw_u8(w, format_byte(e, enc_sub(e, g, L->anim[k][a], k)));
        if (k == K_ROT) gw_zeros(w, rot4 - L->na[0]);
    }
    if (e->nseg > 1) {
        pad_to(w, start, 2);
        uint8_t *r = scratch;
        memset(r, 0, 6u * (size_t)nv);
        for (uint32_t a = 0; enc_variable(&e->p, K_ROT) && a < L->na[0]; a++) {
            const acl_sub *sub = enc_sub(e, g, L->anim[0][a], K_ROT);
            uint8_t *grp = r + 24u * (a / 4u);
            uint32_t j = a % 4u;
            for (unsigned c = 0; c < 3; c++) {
                if (sub->width == 0) {
                    grp[8u * c + j] = (uint8_t)(sub->cq[c] >> 8);
                    grp[8u * c + 4u + j] = (uint8_t)(sub->cq[c] & 0xFFu);
                } else {
                    grp[4u * c + j] = sub->smin[c];
                    grp[12u + 4u * c + j] = sub->sext[c];
                }
            }
        }
        for (unsigned k = 1; k < 3; k++)
            for (uint32_t a = 0; enc_variable(&e->p, k) && a < L->na[k]; a++) {
                const acl_sub *sub = enc_sub(e, g, L->anim[k][a], k);
                uint8_t *p = r + 6u * (rot4 + (k == K_SCALE && enc_variable(&e->p, K_TRANS) ? L->na[1] : 0) + a);
                for (unsigned c = 0; c < 3; c++) {
                    if (sub->width == 0) {
                        p[2u * c] = (uint8_t)(sub->cq[c] & 0xFFu);
                        p[2u * c + 1u] = (uint8_t)(sub->cq[c] >> 8);
                    } else {
                        p[c] = sub->smin[c];
                        p[3u + c] = sub->sext[c];
                    }
                }
            }
        gw_bytes(w, r, 6u * (size_t)nv);
    }
    pad_to(w, start, 4);
}

static uint32_t pose_bits(const acl_enc *e, const emit_lists *L, uint32_t g, uint32_t kb[3])
{
    for (unsigned k = 0; k < 3; k++) {
        kb[k] = 0;
        for (uint32_t a = 0; a < L->na[k]; a++)                /* width 0: nothing a sample */
            kb[k] += k == K_ROT && e->p.fmt[K_ROT] == 0 ? 128u /* quatf_full */
                                                        : 3u * enc_bits(enc_sub(e, g, L->anim[k][a], k)->width);
    }
    return kb[0] + kb[1] + kb[2];
}

static void emit_bits(const acl_enc *e, const emit_lists *L, uint32_t g, uint8_t *d)
{
    size_t bit = 0;
    static const unsigned at[3] = { 0, 4, 7 };
    for (uint32_t s = e->seg_start[g]; s < e->seg_start[g + 1u]; s++) {
        if (e->stripped && !(e->kept[g] & (0x80000000u >> (s - e->seg_start[g])))) continue;
        for (unsigned k = 0; k < 3; k++)
            for (uint32_t a = 0; a < L->na[k]; a++) {
                uint32_t t = L->anim[k][a];
                const acl_sub *sub = enc_sub(e, g, t, k);
                if (sub->width == 0) continue;
                for (unsigned c = 0; c < (k == K_ROT && e->p.fmt[K_ROT] == 0 ? 4u : 3u); c++) {
                    if (sub->width == ACL_ENC_RAW) {
                        uint32_t u;
                        memcpy(&u, enc_raw(e, s, t) + at[k] + c, 4);
                        put_bits(d, &bit, u, 32);
                    } else {
                        put_bits(d, &bit, acl_enc_quant(e, g, t, k, s, sub, c), sub->width);
                    }
                }
            }
    }
}

static void emit_metadata(ganim_writer *w, size_t start, const acl_enc *e)
{
    uint32_t off[5] = { ACL_NONE, ACL_NONE, ACL_NONE, ACL_NONE, ACL_NONE };
    pad_to(w, start, 4);
    off[0] = (uint32_t)(gw_pos(w) - start);
    gw_bytes(w, e->list_name, strlen(e->list_name) + 1u);
    pad_to(w, start, 4);
    off[1] = (uint32_t)(gw_pos(w) - start);
    uint32_t at = 4u * e->nt;
    for (uint32_t t = 0; t < e->nt; t++) {
        gw_u32le(w, at);
        at += (uint32_t)strlen(e->names[t]) + 1u;
    }
    for (uint32_t t = 0; t < e->nt; t++) gw_bytes(w, e->names[t], strlen(e->names[t]) + 1u);
    pad_to(w, start, 4);
    off[2] = (uint32_t)(gw_pos(w) - start);
    for (uint32_t t = 0; t < e->nt; t++) gw_u32le(w, e->parent[t] < 0 ? ACL_NONE : (uint32_t)e->parent[t]);
    pad_to(w, start, 4);
    for (unsigned i = 0; i < 5; i++) gw_u32le(w, off[i]);
}

ganim_code acl_enc_emit(const acl_enc *e, ganim_buffer *out, ganim_error *err)
{
    ganim_allocator A = e->A;
    emit_lists L;
    uint32_t *store = ganim_alloc(&A, (size_t)6u * e->nt * sizeof(uint32_t));
    if (!store) return GANIM_NOMEM(err);
    make_lists(e, &L, store);
    uint32_t rot4 = enc_variable(&e->p, K_ROT) ? align_up(L.na[0], 4) : 0;
    uint32_t nv = rot4 + (enc_variable(&e->p, K_TRANS) ? L.na[1] : 0) + (enc_variable(&e->p, K_SCALE) ? L.na[2] : 0);
    uint32_t words = (e->nt + 15u) / 16u, groups = e->has_scale ? 3u : 2u;
    uint32_t starts = e->nseg > 1 ? 4u * (e->nseg + 1u) : 0u;
    uint32_t hsz = e->stripped ? 20u : 16u; /* stripped: + the bitset of the samples stored */
    uint32_t seghdr = align_up(52u + starts, 4), types = align_up(seghdr + hsz * e->nseg, 4);
    uint32_t cdata = align_up(types + 4u * words * groups, 4);
    uint32_t csize = (e->p.fmt[K_ROT] == 0 ? 16u : 12u) * L.nc[0] + 12u * (L.nc[1] + L.nc[2]);
    uint32_t crange = align_up(cdata + csize, 4);
    uint32_t misc = (uint32_t)e->has_scale | 2u | (uint32_t)e->p.fmt[K_SCALE] << 2 | (uint32_t)e->p.fmt[K_TRANS] << 3 |
                    (uint32_t)e->p.fmt[K_ROT] << 4;
    if (e->p.version >= 8) misc |= 1u << 9;
    if (e->stripped) misc |= 1u << 10;
    if (e->wrap) misc |= 1u << 30;
    if (e->p.metadata) misc |= 1u << 31;

    size_t most = 0;
    for (uint32_t g = 0; g < e->nseg; g++) {
        uint32_t kb[3];
        size_t bytes = ((size_t)pose_bits(e, &L, g, kb) * (e->seg_start[g + 1u] - e->seg_start[g]) + 7u) / 8u;
        if (bytes > most) most = bytes;
    }
    if (6u * (size_t)nv > most) most = 6u * (size_t)nv;
    uint8_t *scratch = ganim_alloc(&A, most + 8u);
    if (!scratch) {
        ganim_free(&A, store, (size_t)6u * e->nt * sizeof(uint32_t));
        return GANIM_NOMEM(err);
    }

    ganim_writer w = gw_init(out, &A);
    size_t start = gw_pos(&w);
    gw_u32le(&w, 0); /* size and hash: patched at the end */
    gw_u32le(&w, 0);
    gw_u32le(&w, GANIM_ACL_TAG);
    gw_u16le(&w, e->p.version);
    gw_u8(&w, 0);
    gw_u8(&w, 12);
    gw_u32le(&w, e->nt);
    gw_u32le(&w, e->ns);
    gw_f32le(&w, e->rate);
    gw_u32le(&w, misc);
    gw_u32le(&w, e->nseg);
    gw_u32le(&w, nv);
    for (unsigned k = 0; k < 3; k++) gw_u32le(&w, L.na[k]);
    for (unsigned k = 0; k < 3; k++) gw_u32le(&w, L.nc[k]);
    gw_u32le(&w, ACL_NONE);
    gw_u32le(&w, seghdr);
    gw_u32le(&w, types);
    gw_u32le(&w, cdata);
    gw_u32le(&w, crange);
    if (e->nseg > 1) {
        for (uint32_t g = 0; g < e->nseg; g++) gw_u32le(&w, e->seg_start[g]);
        gw_u32le(&w, ACL_NONE);
    }
    pad_to(&w, start, 4);
    size_t seghdr_at = gw_pos(&w);
    gw_zeros(&w, (size_t)hsz * e->nseg);
    pad_to(&w, start, 4);
    emit_types(&w, e);
    pad_to(&w, start, 4);
    emit_constants(&w, e, &L);
    pad_to(&w, start, 4);
    emit_clip_ranges(&w, e, &L);
    for (uint32_t g = 0; g < e->nseg && gw_ok(&w); g++) {
        uint32_t kb[3], pb = pose_bits(e, &L, g, kb);
        size_t at = seghdr_at + (size_t)hsz * g;
        gw_patch_u32le(&w, at, pb);
        gw_patch_u32le(&w, at + 4u, kb[0]);
        gw_patch_u32le(&w, at + 8u, kb[1]);
        gw_patch_u32le(&w, at + 12u, (uint32_t)(gw_pos(&w) - start - ACL_HDR));
        if (e->stripped) gw_patch_u32le(&w, at + 16u, e->kept[g]);
        emit_segment(&w, start, e, &L, g, nv, rot4, scratch);
        size_t bytes = ((size_t)pb * enc_kept_count(e, g) + 7u) / 8u;
        memset(scratch, 0, bytes + 8u);
        emit_bits(e, &L, g, scratch);
        gw_bytes(&w, scratch, bytes);
    }
    if (e->p.metadata) emit_metadata(&w, start, e);
    else gw_zeros(&w, 15);
    ganim_free(&A, scratch, most + 8u);
    ganim_free(&A, store, (size_t)6u * e->nt * sizeof(uint32_t));
    if (!gw_ok(&w)) return GANIM_NOMEM(err);
    size_t size = gw_pos(&w) - start;
    if (size > 0xFFFFFFF0u)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, "acl: the buffer would exceed 4 GiB");
    gw_patch_u32le(&w, start, (uint32_t)size);
    gw_patch_u32le(&w, start + 4u, fnv1a_enc(out->data + start + 8u, size - 8u));
    return GANIM_OK;
}
