/* A clip as an Argonaut animation record. A clip that still decodes to its native record
 * gives back the record's bytes (with new triggers when only its events changed). Any
 * other clip is encoded from the model: each bone's model-space transform (the
 * skeleton's hierarchy composed, for documents of other formats) as a 4.12 matrix and an
 * integer translation per frame, or as quaternion keys. A clip with a native record (an
 * edited, resampled or re-read clip) is encoded on that record as a template: its header
 * flag and slots, position deltas, morph data (per frame; past the record's last frame
 * its last one), its bone count (tracks on other bones must not move) and its layout
 * (matrices, or keys at the record's key frames and wherever interpolation would miss
 * the clip by more than a step); and each matrix or key the clip still reads as within
 * half a step keeps the record's own integers, so only what changed is re-encoded. */
#include <math.h>
#include <stdio.h>
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

/* The format's step: 1/4096 in matrix entries and quaternion components, a whole unit in
 * translations. A value within half a step of what the record's own integers read as
 * keeps those integers: nothing finer can be stored, and the file's bytes come back. */
#define AG_STEP (1.0 / 4096.0)

typedef struct enc {
    const ganim_doc *doc;
    const ganim_clip *c;
    const ag_rec *nr; /* the clip's native record, the template; or NULL */
    const ganim_write_opts *opts;
    uint32_t ci, bc, nb, fc;
    int convention;
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

/* Bone b's model-space transform at the posed frame (a root: its own values, exactly). */
static ganim_transform bone_at(const enc *e, uint32_t b)
{
    if (e->doc->skeleton->bones[b].parent < 0) return e->local[b];
    const float *m = e->world + 16 * (size_t)b;
    const float m34[12] = { m[0], m[4], m[8], m[12], m[1], m[5], m[9], m[13], m[2], m[6], m[10], m[14] };
    ganim_transform x;
    ganim_transform_from_mat34(m34, &x);
    return x;
}

/* |a - b| or |a + b| (the same rotation), whichever is smaller: about half the angle
 * between the two rotations. */
static double quat_gap(ganim_quat a, ganim_quat b)
{
    const double x[4] = { a.x, a.y, a.z, a.w }, y[4] = { b.x, b.y, b.z, b.w };
    double d = 0, s = 0;
    for (int k = 0; k < 4; k++) {
        d += (x[k] - y[k]) * (x[k] - y[k]);
        s += (x[k] + y[k]) * (x[k] + y[k]);
    }
    return sqrt(d < s ? d : s);
}

/* Rotation (and with `scale`, scale) of x within `steps` steps of y's: an angle of that
 * many steps, a gap of half. */
static bool turn_within(const ganim_transform *x, const ganim_transform *y, double steps, bool scale)
{
    if (!(quat_gap(x->rotation, y->rotation) <= 0.5 * steps * AG_STEP)) return false;
    const float *xs = &x->scale.x, *ys = &y->scale.x;
    for (int k = 0; scale && k < 3; k++)
        if (!(fabs((double)xs[k] - ys[k]) <= steps * AG_STEP)) return false;
    return true;
}

/* Translation of x within `steps` units of y's. */
static bool move_within(const ganim_transform *x, const ganim_transform *y, double steps)
{
    const float *xt = &x->translation.x, *yt = &y->translation.x;
    for (int k = 0; k < 3; k++)
        if (!(fabs((double)xt[k] - yt[k]) <= steps)) return false;
    return true;
}

static bool within(const ganim_transform *x, const ganim_transform *y, double steps, bool scale)
{
    return turn_within(x, y, steps, scale) && move_within(x, y, steps);
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

/* Bone b's matrix and translation at frame f (posed): 12 s16. The matrix and the
 * translation each keep the record's own integers (of frame f, or past its end of its
 * last frame) where the clip still reads as them. */
static ganim_code matrix_ints(enc *e, uint32_t b, uint32_t f, int16_t v[12])
{
    const ag_rec *r = e->nr;
    bool turn = false, move = false;
    memset(v, 0, 12 * sizeof *v);
    if (r && !ag_keyed(r) && r->fc && b < r->bc) {
        const uint8_t *p = r->p + ag_matrix_at(r, f < r->fc ? f : r->fc - 1, b);
        ganim_transform d, x = ganim_transform_identity();
        double rows[3], det;
        ag_matrix_transform(p, e->convention, &d, rows, &det);
        if (b < e->nb) x = bone_at(e, b);
        turn = b >= e->nb || turn_within(&x, &d, 0.5, true);
        move = b >= e->nb || move_within(&x, &d, 0.5);
        for (int k = 0; k < 12; k++)
            if (k < 9 ? turn : move) v[k] = ag_s16(p + 2 * k);
    }
    if (b >= e->nb) { /* a bone the skeleton does not have: the record's, else the identity */
        if (!turn) v[0] = v[4] = v[8] = 4096;
        return GANIM_OK;
    }
    const float *m = e->world + 16 * (size_t)b; /* column-major: m[col * 4 + row] */
    for (int row = 0; row < 3 && !turn; row++)
        for (int col = 0; col < 3; col++) {
            double x = e->convention == AG_SV ? m[col * 4 + row] : m[row * 4 + col];
            ganim_code code = s16(e, x * 4096.0, "matrix entry", b, f, &v[3 * row + col]);
            if (code != GANIM_OK) return code;
        }
    for (int k = 0; k < 3 && !move; k++) {
        ganim_code code = s16(e, m[12 + k], "translation", b, f, &v[9 + k]);
        if (code != GANIM_OK) return code;
    }
    return GANIM_OK;
}

/* What a key {w, x, y, z, tx, ty, tz} reads as. */
static ganim_transform key_value(const int16_t v[7], int convention)
{
    uint8_t p[8];
    for (int k = 0; k < 4; k++) ganim_st_u16le(p + 2 * k, (uint16_t)v[k]);
    bool zero;
    ganim_transform t = ganim_transform_identity();
    t.rotation = ag_key_rotation(p, convention, &zero);
    t.translation = (ganim_vec3){ v[4], v[5], v[6] };
    return t;
}

/* Bone b's key at the posed frame: w, x, y, z (4096 = 1), translation, frame. The
 * quaternion and the translation each keep the record's own key at that frame where the
 * clip still reads as it. */
static ganim_code key_ints(enc *e, uint32_t b, uint32_t frame, int16_t v[8])
{
    const int16_t id[8] = { 4096, 0, 0, 0, 0, 0, 0, (int16_t)(uint16_t)frame };
    memcpy(v, id, sizeof id);
    ganim_transform x = ganim_transform_identity();
    if (b < e->nb) x = bone_at(e, b);
    const ag_rec *r = e->nr;
    bool turn = false, move = false;
    if (r && ag_keyed(r) && b < r->bc)
        for (uint32_t k = 0; k < r->kc; k++) {
            const uint8_t *p = r->p + ag_key_at(r, k, b);
            if (ganim_ld_u16le(p + 14) != frame) continue;
            int16_t n[7];
            for (int i = 0; i < 7; i++) n[i] = ag_s16(p + 2 * i);
            ganim_transform d = key_value(n, e->convention);
            turn = b >= e->nb || turn_within(&x, &d, 0.5, false);
            move = b >= e->nb || move_within(&x, &d, 0.5);
            for (int i = 0; i < 7; i++)
                if (i < 4 ? turn : move) v[i] = n[i];
            break; /* the reader keeps the first key of a frame */
        }
    if (b >= e->nb) return GANIM_OK;
    ganim_quat q = ganim_quat_normalize(x.rotation);
    double sign = e->convention == AG_SV ? -1.0 : 1.0; /* the file's q acts as R(q)^T */
    const double qv[4] = { q.w, sign * q.x, sign * q.y, sign * q.z },
                 tv[3] = { x.translation.x, x.translation.y, x.translation.z };
    for (int k = 0; k < 4 && !turn; k++) {
        ganim_code code = s16(e, qv[k] * 4096.0, "quaternion", b, frame, &v[k]);
        if (code != GANIM_OK) return code;
    }
    for (int k = 0; k < 3 && !move; k++) {
        ganim_code code = s16(e, tv[k], "translation", b, frame, &v[4 + k]);
        if (code != GANIM_OK) return code;
    }
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

/* Keys for a clip that is not keyed at whole frames, in the layout of a keyed record:
 * the record's own key frames, and every frame where slerp and lerp between the keys
 * would miss the clip by more than a step (the worst frame of each such span first). */
static ganim_code reduce_keys(enc *e, const ganim_allocator *a, uint32_t **out, uint32_t *count, size_t *bytes)
{
    uint32_t fc = e->fc, bc = e->bc;
    size_t n = (size_t)fc * bc;
    if (!n) return GANIM_OK; /* nothing to key: matrices */
    size_t ib = n * 8 * sizeof(int16_t), vb = n * sizeof(ganim_transform), kb = (size_t)fc;
    int16_t *ints = ganim_alloc(a, ib);
    ganim_transform *val = ganim_alloc(a, vb), *dec = ganim_alloc(a, vb);
    uint8_t *key = ganim_alloc(a, kb);
    ganim_code code = GANIM_OK;
    if (!ints || !val || !dec || !key) code = GANIM_NOMEM(e->err);
    /* every frame's key as it would be written, what it reads as, and what the clip holds */
    for (uint32_t f = 0; f < fc && code == GANIM_OK; f++) {
        pose(e, f);
        key[f] = 0;
        for (uint32_t b = 0; b < bc && code == GANIM_OK; b++) {
            size_t i = (size_t)f * bc + b;
            code = key_ints(e, b, f, ints + 8 * i);
            dec[i] = key_value(ints + 8 * i, e->convention);
            val[i] = b < e->nb ? bone_at(e, b) : dec[i];
        }
    }
    if (code == GANIM_OK) {
        uint32_t first = UINT32_MAX;
        for (uint32_t k = 0; e->nr && k < e->nr->kc; k++) {
            uint32_t f = ganim_ld_u16le(e->nr->p + ag_key_at(e->nr, k, 0) + 14);
            if (f < fc) key[f] = 1, first = f < first ? f : first;
        }
        if (first == UINT32_MAX) key[0] = 1;
        /* spans: before the first key (held), between keys, after the last (held) */
        bool added = true;
        while (added) {
            added = false;
            uint32_t prev = UINT32_MAX;
            for (uint32_t f = 0; f <= fc; f++) {
                if (f < fc && !key[f]) continue;
                /* the span (prev, f): prev or f may be absent (the ends) */
                uint32_t lo = prev == UINT32_MAX ? 0 : prev + 1, worst = 0;
                double most = 1.0;
                for (uint32_t g = lo; g < f; g++)
                    for (uint32_t b = 0; b < bc; b++) {
                        ganim_transform at;
                        if (prev == UINT32_MAX) at = dec[(size_t)f * bc + b];
                        else if (f == fc) at = dec[(size_t)prev * bc + b];
                        else {
                            const ganim_transform *x = &dec[(size_t)prev * bc + b], *y = &dec[(size_t)f * bc + b];
                            double t = (double)(g - prev) / (double)(f - prev);
                            at = *x;
                            at.rotation = ganim_quat_slerp(x->rotation, y->rotation, t);
                            at.translation.x = (float)(x->translation.x + t * (y->translation.x - x->translation.x));
                            at.translation.y = (float)(x->translation.y + t * (y->translation.y - x->translation.y));
                            at.translation.z = (float)(x->translation.z + t * (y->translation.z - x->translation.z));
                        }
                        const ganim_transform *want = &val[(size_t)g * bc + b];
                        double gap = quat_gap(at.rotation, want->rotation) / (0.5 * AG_STEP);
                        const float *p = &at.translation.x, *q = &want->translation.x;
                        for (int k = 0; k < 3; k++) {
                            double d = fabs((double)p[k] - q[k]);
                            gap = d > gap ? d : gap;
                        }
                        if (gap > most) most = gap, worst = g + 1;
                    }
                if (worst) {
                    key[worst - 1] = 1;
                    added = true;
                }
                prev = f;
            }
        }
        uint32_t m = 0;
        for (uint32_t f = 0; f < fc; f++) m += key[f];
        *bytes = (size_t)(m ? m : 1) * sizeof(uint32_t);
        uint32_t *v = ganim_alloc(a, *bytes);
        if (!v) code = GANIM_NOMEM(e->err);
        else {
            m = 0;
            for (uint32_t f = 0; f < fc; f++)
                if (key[f]) v[m++] = f;
            *out = v;
            *count = m;
        }
    }
    ganim_free(a, ints, ib);
    ganim_free(a, val, vb);
    ganim_free(a, dec, vb);
    ganim_free(a, key, kb);
    return code;
}

/* Tracks on bones the record does not animate (an export keys every joint): dropped when
 * they stay where they are within half a step, an error naming them when they move. */
static ganim_code extra_bones(enc *e, const ganim_allocator *a)
{
    const ganim_clip *c = e->c;
    bool any = false;
    for (uint32_t t = 0; t < c->track_count; t++) any |= c->tracks[t].bone >= e->bc && c->tracks[t].bone < e->nb;
    if (!any) return GANIM_OK;
    size_t fb = (size_t)e->nb * sizeof(ganim_transform), mb = (size_t)e->nb;
    ganim_transform *first = ganim_alloc(a, fb);
    uint8_t *moves = ganim_alloc(a, mb);
    if (!first || !moves) {
        ganim_free(a, first, fb);
        ganim_free(a, moves, mb);
        return GANIM_NOMEM(e->err);
    }
    memset(moves, 0, mb);
    uint32_t moved = 0;
    for (uint32_t f = 0; f < e->fc; f++) {
        pose(e, f);
        for (uint32_t t = 0; t < c->track_count; t++) {
            uint32_t b = c->tracks[t].bone;
            if (b < e->bc || b >= e->nb) continue;
            ganim_transform x = bone_at(e, b);
            if (f == 0) first[b] = x;
            else if (!moves[b] && !within(&x, &first[b], 0.5, true)) moves[b] = 1, moved++;
        }
    }
    ganim_code code = GANIM_OK;
    if (moved) {
        char names[200] = "";
        size_t at = 0;
        for (uint32_t b = e->bc, n = 0; b < e->nb && at < sizeof names - 40; b++)
            if (moves[b]) {
                const char *name = e->doc->skeleton->bones[b].name;
                int w = snprintf(names + at, sizeof names - at, "%s%u%s%.24s%s", n++ ? ", " : "", b, *name ? " (" : "",
                                 name, *name ? ")" : "");
                at += w > 0 ? (size_t)w : 0;
            }
        code = ganim_fail(e->err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          AG ": clip %u moves bone%s %s, which its record does not animate (it has %u bone%s); keep "
                             "%s still or leave %s out of the clip",
                          e->ci, moved == 1 ? "" : "s", names, e->bc, e->bc == 1 ? "" : "s", moved == 1 ? "it" : "them",
                          moved == 1 ? "it" : "them");
    }
    ganim_free(a, first, fb);
    ganim_free(a, moves, mb);
    return code;
}

/* Per-frame bytes of `size` at `at` in the record (deltas, slots) for frame f of the clip:
 * the record's own frame f; past its end, with `hold`, its last frame, else zeros. */
static void frame_bytes(ganim_writer *w, const ag_rec *r, size_t at, size_t size, uint32_t f, bool hold)
{
    if (r && r->fc && (f < r->fc || hold)) {
        uint32_t g = f < r->fc ? f : r->fc - 1;
        gw_bytes(w, r->p + at + size * g, size);
    } else {
        gw_zeros(w, size);
    }
}

static ganim_code encode(const ganim_doc *doc, uint32_t ci, int variant, int convention, const ag_rec *nr,
                         const ganim_write_opts *opts, ganim_writer *w, ganim_error *err)
{
    const ganim_clip *c = &doc->clips[ci];
    const ganim_skeleton *sk = doc->skeleton;
    ganim_allocator a = ganim_allocator_resolve(&w->buf->allocator);
    uint32_t nb = sk ? sk->bone_count : 0, fc = c->frame_count;
    bool hp = variant == AG_HP;
    enc e = { doc, c, nr, opts, ci, nr ? nr->bc : nb, nb, fc, convention, NULL, NULL, NULL, err };
    uint32_t bc = e.bc;
    /* the template: what the model does not hold comes from the clip's record */
    uint32_t flag = nr ? nr->flag : 1;
    int32_t mc = nr && nr->hp == hp ? nr->mc : 0; /* morph data of the other variant: dropped */
    uint32_t slot[6] = { 0, 0, 0, 0, 0, 0 };
    if (nr) memcpy(slot, nr->slot, sizeof slot);
    if (nr && nr->hp != hp && nr->mc != 0)
        ganim_write_warn(opts, GANIM_WARN_EXPORT_LOSS,
                         AG ": clip %u: its %s record's morph data do not go into a %s record; left out", ci,
                         nr->hp ? "Harry Potter" : "Croc 2", hp ? "Harry Potter" : "Croc 2");
    if (nr && nr->fc != fc && (flag == 0 || mc > 0))
        ganim_write_warn(opts, GANIM_WARN_EXPORT_LOSS,
                         AG ": clip %u has %u frames, its record %u: the position deltas and morph data of the frames "
                            "%s",
                         ci, fc, nr->fc,
                         fc > nr->fc ? "it adds repeat the record's last frame" : "it drops are left out");
    /* matrices or keys: the record's layout; without a record, keys for a Harry Potter clip
     * keyed at whole frames */
    uint32_t *keys = NULL, kc = 0;
    size_t key_bytes = 0;
    ganim_code code = GANIM_OK;
    bool native_keyed = nr && ag_keyed(nr);
    if (hp && (!nr || native_keyed)) code = key_frames(c, &a, &keys, &kc, &key_bytes, err);
    size_t tb = (size_t)(nb ? nb : 1) * sizeof *e.track, wb = (size_t)(nb ? nb : 1) * 16 * sizeof(float),
           lb = (size_t)(nb ? nb : 1) * sizeof *e.local;
    e.track = ganim_alloc(&a, tb);
    e.world = ganim_alloc(&a, wb);
    e.local = ganim_alloc(&a, lb);
    if (code == GANIM_OK && (!e.track || !e.world || !e.local)) code = GANIM_NOMEM(err);
    if (code == GANIM_OK) {
        memset(e.track, 0, tb);
        for (uint32_t t = 0; t < c->track_count; t++) {
            uint32_t b = c->tracks[t].bone;
            if (b >= bc && !nr) {
                code = ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                                  AG ": clip %u animates bone %u, but the skeleton has %u bones", ci, b, bc);
                break;
            }
            if (b < nb) e.track[b] = &c->tracks[t];
        }
    }
    const ganim_limits *lim = ganim_doc_limits(doc);
    if (code == GANIM_OK && (uint64_t)fc * bc > lim->samples) /* the record's bone count, from a file */
        code =
            ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                       AG ": clip %u: %u frames of %u bones is more than the limit (ganim_limits.samples)", ci, fc, bc);
    if (code == GANIM_OK && nr) code = extra_bones(&e, &a);
    if (code == GANIM_OK && hp && native_keyed && kc == 0 && fc > 0) code = reduce_keys(&e, &a, &keys, &kc, &key_bytes);
    bool keyed = kc > 0;
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
        for (uint32_t f = 0; flag == 0 && f < fc; f++) frame_bytes(w, nr, nr->o_delta, 8, f, true);
        for (uint32_t f = 0; mc != 0 && f < fc; f++) frame_bytes(w, nr, nr->o_mslots, 4, f, false);
        for (uint32_t f = 0; f < fc; f++) frame_bytes(w, nr, nr ? nr->o_bslots : 0, 4, f, false);
        for (uint32_t k = 0; keyed && k < kc; k++)
            if (native_keyed && k < nr->kc) gw_bytes(w, nr->p + nr->o_kslots + 4 * (size_t)k, 4);
            else gw_zeros(w, 4);
        for (uint32_t f = 0; f < fc && code == GANIM_OK; f++) {
            if (mc > 0) { /* the record's frame; past its end its last later frame */
                uint32_t g = f < nr->fc ? f : nr->fc - 1;
                size_t len = f ? nr->morphn : nr->morph0;
                if (nr->fc && (f == 0 || g >= 1)) gw_bytes(w, nr->p + ag_frame_at(nr, g), len);
                else gw_zeros(w, len);
            }
            if (keyed) continue;
            pose(&e, (double)f);
            for (uint32_t b = 0; b < bc && code == GANIM_OK; b++) {
                int16_t v[12];
                code = matrix_ints(&e, b, f, v);
                for (int k = 0; k < 12; k++) gw_u16le(w, (uint16_t)v[k]);
            }
        }
        for (uint32_t k = 0; k < kc && code == GANIM_OK; k++) {
            pose(&e, (double)keys[k]);
            for (uint32_t b = 0; b < bc && code == GANIM_OK; b++) {
                int16_t v[8];
                code = key_ints(&e, b, keys[k], v);
                for (int i = 0; i < 8; i++) gw_u16le(w, (uint16_t)v[i]);
            }
        }
    }
    ganim_free(&a, keys, key_bytes);
    ganim_free(&a, e.track, tb);
    ganim_free(&a, e.world, wb);
    ganim_free(&a, e.local, lb);
    return code;
}

ganim_code ag_encode_clip(const ganim_doc *doc, uint32_t ci, int variant, int convention, const ganim_write_opts *opts,
                          ganim_buffer *out, ganim_error *err)
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
        code = encode(doc, ci, variant, convention, native ? &nr : NULL, opts, &w, err);
    }
    if (code == GANIM_OK && !gw_ok(&w)) code = GANIM_NOMEM(err);
    return code;
}
