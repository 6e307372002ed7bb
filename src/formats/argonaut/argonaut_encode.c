/* A clip as an Argonaut animation record. A clip that still decodes to its native record
 * gives back the record's bytes (with new triggers when only its events changed); any
 * other clip is encoded from the model: each bone's model-space transform (the
 * skeleton's hierarchy composed, for documents of other formats) as a 4.12 matrix and an
 * integer translation per frame, or, for Harry Potter clips keyed at whole frames, as
 * quaternion keys. What the model does not hold (pointer slots, position deltas, morph
 * data) comes from the native record while the frame count is unchanged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/argonaut/argonaut.h"
#include "io/bytes.h"
#include "io/writer.h"

static bool channel_same(const ganim_channel *a, const ganim_channel *b, int comps)
{
    if (a->kind != b->kind || a->count != b->count) return false;
    if (a->kind == GANIM_CHANNEL_ABSENT) return true;
    if (a->kind == GANIM_CHANNEL_KEYED && memcmp(a->times, b->times, a->count * sizeof *a->times) != 0) return false;
    return memcmp(a->values, b->values, (size_t)a->count * (size_t)comps * sizeof(float)) == 0;
}

/* The clip's tracks are exactly what `r` decodes to (events and fps aside). */
static ganim_code decodes_to(const ganim_doc *doc, const ganim_clip *c, const ag_rec *r, int convention, uint32_t ci,
                             bool *same, ganim_error *err)
{
    *same = false;
    ganim_doc *tmp = ganim_doc_create(ganim_doc_allocator(doc), 0);
    if (!tmp) return GANIM_NOMEM(err);
    ganim_clip d;
    ganim_error e;
    ganim_code code = ag_clip_from_record(tmp, &d, r, convention, ci, &e);
    if (code == GANIM_ERR_NOMEM) {
        ganim_doc_free(tmp);
        return GANIM_NOMEM(err);
    }
    if (code == GANIM_OK && d.kind == c->kind && d.frame_count == c->frame_count && d.track_count == c->track_count) {
        *same = true;
        for (uint32_t t = 0; t < d.track_count && *same; t++) {
            const ganim_track *x = &d.tracks[t], *y = &c->tracks[t];
            *same = x->bone == y->bone && !y->visibility && !y->step && channel_same(&x->rotation, &y->rotation, 4) &&
                    channel_same(&x->translation, &y->translation, 3) && channel_same(&x->scale, &y->scale, 3);
        }
    }
    ganim_doc_free(tmp);
    return GANIM_OK;
}

/* The clip's events as triggers {u16 frame, u16 id}: whole frames and ids below 65536. */
static ganim_code triggers(const ganim_clip *c, uint32_t ci, ganim_writer *w, ganim_error *err)
{
    for (uint32_t k = 0; k < c->event_count; k++) {
        float f = c->events[k].frame;
        if (!(f >= 0 && f <= 65535 && f == floorf(f)) || c->events[k].id > 65535)
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              AG ": clip %u, event %u (frame %g, id %u): triggers hold whole frames and ids of 16 "
                                 "bits",
                              ci, k, (double)f, c->events[k].id);
        gw_u16le(w, (uint16_t)f);
        gw_u16le(w, (uint16_t)c->events[k].id);
    }
    return GANIM_OK;
}

static bool events_same(const ganim_clip *c, const ag_rec *r)
{
    if (c->event_count != r->tc) return false;
    for (uint32_t k = 0; k < r->tc; k++)
        if (c->events[k].frame != (float)ganim_ld_u16le(r->p + r->o_trig + 4 * (size_t)k) ||
            c->events[k].id != ganim_ld_u16le(r->p + r->o_trig + 4 * (size_t)k + 2))
            return false;
    return true;
}

/* ---- from the model ------------------------------------------------------------------- */

typedef struct enc {
    const ganim_doc *doc;
    const ganim_clip *c;
    uint32_t ci, bc, nb;
    const ganim_track **track; /* per skeleton bone, or NULL */
    float *world;              /* nb 4x4 column-major */
    ganim_transform *local;    /* nb */
    ganim_error *err;
} enc;

/* Local and model-space transforms of every skeleton bone at `frame`. */
static void pose(enc *e, double frame)
{
    const ganim_clip *c = e->c;
    for (uint32_t b = 0; b < e->nb; b++) {
        const ganim_bone *bone = &e->doc->skeleton->bones[b];
        ganim_transform *l = &e->local[b];
        *l = bone->rest;
        const ganim_track *t = e->track[b];
        if (t) {
            ganim_channel_eval(&t->rotation, c->frame_count, t->step, c->rotation_interp, 4, frame,
                               &bone->rest.rotation.x, &l->rotation.x);
            ganim_channel_eval(&t->translation, c->frame_count, t->step, c->rotation_interp, 3, frame,
                               &bone->rest.translation.x, &l->translation.x);
            ganim_channel_eval(&t->scale, c->frame_count, t->step, c->rotation_interp, 3, frame, &bone->rest.scale.x,
                               &l->scale.x);
        }
        float m[16];
        ganim_mat4_from_transform(l, m);
        if (bone->parent < 0) memcpy(e->world + 16 * (size_t)b, m, sizeof m);
        else ganim_mat4_mul(e->world + 16 * (size_t)bone->parent, m, e->world + 16 * (size_t)b);
    }
}

static ganim_code s16(enc *e, double v, const char *what, uint32_t b, double frame, int16_t *out)
{
    double r = floor(v + 0.5);
    if (!(r >= -32768.0 && r <= 32767.0))
        return ganim_fail(e->err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          AG ": clip %u, bone %u, frame %g: the %s %g does not fit the format's 16-bit integers", e->ci,
                          b, frame, what, v);
    *out = (int16_t)r;
    return GANIM_OK;
}

/* Bone b's matrix and translation at the posed frame: 12 s16. */
static ganim_code put_matrix(enc *e, ganim_writer *w, uint32_t b, int convention, double frame)
{
    int16_t v[12] = { 0 };
    if (b >= e->nb) { /* a bone the skeleton does not have: the identity */
        v[0] = v[4] = v[8] = 4096;
    } else {
        const float *m = e->world + 16 * (size_t)b; /* column-major: m[col * 4 + row] */
        for (int r = 0; r < 3; r++)
            for (int col = 0; col < 3; col++) {
                double x = convention == AG_SV ? m[col * 4 + r] : m[r * 4 + col];
                ganim_code code = s16(e, x * 4096.0, "matrix entry", b, frame, &v[3 * r + col]);
                if (code != GANIM_OK) return code;
            }
        for (int k = 0; k < 3; k++) {
            ganim_code code = s16(e, m[12 + k], "translation", b, frame, &v[9 + k]);
            if (code != GANIM_OK) return code;
        }
    }
    for (int k = 0; k < 12; k++) gw_u16le(w, (uint16_t)v[k]);
    return GANIM_OK;
}

/* Bone b's key at the posed frame: w, x, y, z (4096 = 1), translation, frame. */
static ganim_code put_key(enc *e, ganim_writer *w, uint32_t b, int convention, uint32_t frame)
{
    int16_t v[7] = { 4096, 0, 0, 0, 0, 0, 0 };
    if (b < e->nb) {
        ganim_quat q;
        ganim_vec3 t;
        if (e->doc->skeleton->bones[b].parent < 0) { /* a root: its own values, exactly */
            q = e->local[b].rotation;
            t = e->local[b].translation;
        } else {
            const float *m = e->world + 16 * (size_t)b;
            const float m34[12] = { m[0], m[4], m[8], m[12], m[1], m[5], m[9], m[13], m[2], m[6], m[10], m[14] };
            ganim_transform x;
            ganim_transform_from_mat34(m34, &x);
            q = x.rotation;
            t = x.translation;
        }
        q = ganim_quat_normalize(q);
        double sign = convention == AG_SV ? -1.0 : 1.0; /* the file's q acts as R(q)^T */
        const double qv[4] = { q.w, sign * q.x, sign * q.y, sign * q.z }, tv[3] = { t.x, t.y, t.z };
        for (int k = 0; k < 4; k++) {
            ganim_code code = s16(e, qv[k] * 4096.0, "quaternion", b, frame, &v[k]);
            if (code != GANIM_OK) return code;
        }
        for (int k = 0; k < 3; k++) {
            ganim_code code = s16(e, tv[k], "translation", b, frame, &v[4 + k]);
            if (code != GANIM_OK) return code;
        }
    }
    for (int k = 0; k < 7; k++) gw_u16le(w, (uint16_t)v[k]);
    gw_u16le(w, (uint16_t)frame);
    return GANIM_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The whole frames every keyed channel of the clip has keys at (sorted, unique), when
 * the clip is keyed at whole frames below 65536 only; else 0 keys. */
static ganim_code key_frames(const ganim_clip *c, const ganim_allocator *a, uint32_t **out, uint32_t *count,
                             size_t *bytes, ganim_error *err)
{
    size_t n = 0;
    bool keyed = false;
    *out = NULL;
    *count = 0;
    *bytes = 0;
    for (uint32_t t = 0; t < c->track_count; t++) {
        const ganim_channel *ch[3] = { &c->tracks[t].rotation, &c->tracks[t].translation, &c->tracks[t].scale };
        for (int k = 0; k < 3; k++) {
            if (ch[k]->kind == GANIM_CHANNEL_PER_FRAME) return GANIM_OK;
            if (ch[k]->kind != GANIM_CHANNEL_KEYED) continue;
            keyed = true;
            n += ch[k]->count;
            for (uint32_t i = 0; i < ch[k]->count; i++) {
                float f = ch[k]->times[i];
                if (!(f >= 0 && f <= 65535 && f == floorf(f))) return GANIM_OK;
            }
        }
        if (c->tracks[t].step || c->tracks[t].visibility) return GANIM_OK;
    }
    if (!keyed) return GANIM_OK;
    *bytes = n * sizeof(uint32_t);
    uint32_t *v = ganim_alloc(a, *bytes);
    if (!v) return GANIM_NOMEM(err);
    size_t m = 0;
    for (uint32_t t = 0; t < c->track_count; t++) {
        const ganim_channel *ch[3] = { &c->tracks[t].rotation, &c->tracks[t].translation, &c->tracks[t].scale };
        for (int k = 0; k < 3; k++)
            for (uint32_t i = 0; ch[k]->kind == GANIM_CHANNEL_KEYED && i < ch[k]->count; i++)
                v[m++] = (uint32_t)ch[k]->times[i];
    }
    qsort(v, m, sizeof *v, cmp_u32);
    uint32_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (!u || v[i] != v[u - 1]) v[u++] = v[i];
    *out = v;
    *count = u;
    return GANIM_OK;
}

static ganim_code encode(const ganim_doc *doc, uint32_t ci, int variant, int convention, const ag_rec *nr,
                         ganim_writer *w, ganim_error *err)
{
    const ganim_clip *c = &doc->clips[ci];
    const ganim_skeleton *sk = doc->skeleton;
    ganim_allocator a = ganim_allocator_resolve(&w->buf->allocator);
    uint32_t nb = sk ? sk->bone_count : 0, fc = c->frame_count;
    uint32_t bc = nr ? nr->bc : nb;
    bool hp = variant == AG_HP;
    uint32_t *keys = NULL, kc = 0;
    size_t key_bytes = 0;
    ganim_code code = GANIM_OK;
    if (hp && (code = key_frames(c, &a, &keys, &kc, &key_bytes, err)) != GANIM_OK) return code;
    bool keyed = kc > 0;
    /* what the model does not hold, from the native record while the frames are the same */
    bool keep = nr && nr->fc == fc;
    uint32_t flag = keep ? nr->flag : 1;
    int32_t mc = keep ? nr->mc : 0;
    uint32_t slot[6] = { 0, 0, 0, 0, 0, 0 };
    if (nr) memcpy(slot, nr->slot, sizeof slot);
    enc e = { doc, c, ci, bc, nb, NULL, NULL, NULL, err };
    size_t tb = (size_t)(nb ? nb : 1) * sizeof *e.track, wb = (size_t)(nb ? nb : 1) * 16 * sizeof(float),
           lb = (size_t)(nb ? nb : 1) * sizeof *e.local;
    e.track = ganim_alloc(&a, tb);
    e.world = ganim_alloc(&a, wb);
    e.local = ganim_alloc(&a, lb);
    if (!e.track || !e.world || !e.local) code = GANIM_NOMEM(err);
    if (code == GANIM_OK) {
        memset(e.track, 0, tb);
        for (uint32_t t = 0; t < c->track_count; t++) {
            uint32_t b = c->tracks[t].bone;
            if (b >= bc) {
                code = ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                                  AG ": clip %u animates bone %u, but its record has %u bones", ci, b, bc);
                break;
            }
            if (b < nb) e.track[b] = &c->tracks[t];
        }
    }
    if (code == GANIM_OK) {
        gw_u32le(w, c->event_count);
        gw_u32le(w, slot[0]);
        gw_u32le(w, fc);
        gw_u32le(w, flag);
        gw_u32le(w, (uint32_t)mc);
        gw_u32le(w, slot[1]);
        gw_u32le(w, bc);
        gw_u32le(w, slot[2]);
        if (hp) {
            gw_u32le(w, kc);
            gw_u32le(w, slot[3]);
            gw_u32le(w, slot[4]);
            gw_u32le(w, slot[5]);
        }
        code = triggers(c, ci, w, err);
    }
    if (code == GANIM_OK) {
        if (flag == 0) gw_bytes(w, nr->p + nr->o_delta, 8 * (size_t)fc);
        if (mc != 0) gw_bytes(w, nr->p + nr->o_mslots, 4 * (size_t)fc);
        if (keep) gw_bytes(w, nr->p + nr->o_bslots, 4 * (size_t)fc);
        else gw_zeros(w, 4 * (size_t)fc);
        if (keyed) {
            if (keep && ag_keyed(nr) && nr->kc == kc) gw_bytes(w, nr->p + nr->o_kslots, 4 * (size_t)kc);
            else gw_zeros(w, 4 * (size_t)kc);
        }
        for (uint32_t f = 0; f < fc && code == GANIM_OK; f++) {
            if (mc > 0) gw_bytes(w, nr->p + ag_frame_at(nr, f), f == 0 ? nr->morph0 : nr->morphn);
            if (keyed) continue;
            pose(&e, (double)f);
            for (uint32_t b = 0; b < bc && code == GANIM_OK; b++) code = put_matrix(&e, w, b, convention, (double)f);
        }
        for (uint32_t k = 0; k < kc && code == GANIM_OK; k++) {
            pose(&e, (double)keys[k]);
            for (uint32_t b = 0; b < bc && code == GANIM_OK; b++) code = put_key(&e, w, b, convention, keys[k]);
        }
    }
    ganim_free(&a, keys, key_bytes);
    ganim_free(&a, e.track, tb);
    ganim_free(&a, e.world, wb);
    ganim_free(&a, e.local, lb);
    return code;
}

ganim_code ag_encode_clip(const ganim_doc *doc, uint32_t ci, int variant, int convention, ganim_buffer *out,
                          ganim_error *err)
{
    const ganim_clip *c = &doc->clips[ci];
    ag_clip_info in;
    ag_rec nr;
    bool native = ag_clip_info_parse(c, &in) && ag_clip_record(&in, &nr);
    bool same_layout = native && in.variant == variant;
    ganim_writer w = gw_init(out, NULL);
    if (c->kind == GANIM_CLIP_OPAQUE) {
        if (!native)
            return ganim_fail(err, GANIM_ERR_UNSUPPORTED, GANIM_NO_OFFSET,
                              AG ": clip %u is not an animation and holds no Argonaut record", ci);
        if (!same_layout)
            return ganim_fail(err, GANIM_ERR_UNSUPPORTED, GANIM_NO_OFFSET,
                              AG ": clip %u is a raw %s record, which cannot be rewritten as a %s one", ci,
                              in.variant == AG_HP ? "Harry Potter" : "Croc 2",
                              variant == AG_HP ? "Harry Potter" : "Croc 2");
        gw_bytes(&w, in.record, in.size);
        return gw_ok(&w) ? GANIM_OK : GANIM_NOMEM(err);
    }
    bool same = false;
    if (same_layout && in.convention == convention) {
        ganim_code code = decodes_to(doc, c, &nr, convention, ci, &same, err);
        if (code != GANIM_OK) return code;
    }
    ganim_code code = GANIM_OK;
    if (same && events_same(c, &nr)) {
        gw_bytes(&w, in.record, in.size);
    } else if (same) { /* only the triggers changed: the rest of the record stays as it is */
        gw_u32le(&w, c->event_count);
        gw_bytes(&w, in.record + 4, ag_header_size(nr.hp) - 4);
        code = triggers(c, ci, &w, err);
        gw_bytes(&w, in.record + nr.o_delta, in.size - nr.o_delta);
    } else {
        code = encode(doc, ci, variant, convention, native ? &nr : NULL, &w, err);
    }
    if (code == GANIM_OK && !gw_ok(&w)) code = GANIM_NOMEM(err);
    return code;
}
