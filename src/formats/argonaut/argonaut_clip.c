/* An Argonaut animation record as a clip. Every bone (vertex group) is a root whose
 * transform is the group's model-space transform: old records give a 3x3 matrix and a
 * translation per frame, new (keyed) Harry Potter records give quaternion keys at frame
 * indices. The convention (docs/formats/argonaut.md, open question 2) says how the stored
 * numbers act on a vertex:
 *   sv (default): v' = S v + t, and a quaternion q acts as R(q)^T (its conjugate);
 *   vs:           v' = S^T v + t, and q acts as R(q).
 * Matrices that are not rotations within 2 % are decomposed into rotation and scale and
 * reported; the raw numbers stay in the clip's native record. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/argonaut/argonaut.h"
#include "io/bytes.h"

int ag_matrix_transform(const uint8_t *p, int convention, ganim_transform *t, double rows[3], double *det)
{
    double s[9];
    for (int i = 0; i < 9; i++) s[i] = ag_s16(p + 2 * i) / 4096.0;
    for (int i = 0; i < 3; i++)
        rows[i] = sqrt(s[3 * i] * s[3 * i] + s[3 * i + 1] * s[3 * i + 1] + s[3 * i + 2] * s[3 * i + 2]);
    *det = s[0] * (s[4] * s[8] - s[5] * s[7]) - s[1] * (s[3] * s[8] - s[5] * s[6]) + s[2] * (s[3] * s[7] - s[4] * s[6]);
    float m[12];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) m[4 * r + c] = (float)(convention == AG_SV ? s[3 * r + c] : s[3 * c + r]);
    m[3] = m[7] = m[11] = 0;
    int rotation =
        fabs(rows[0] - 1) <= 0.02 && fabs(rows[1] - 1) <= 0.02 && fabs(rows[2] - 1) <= 0.02 && fabs(*det - 1) <= 0.02;
    if (rotation) {
        const float r3[9] = { m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10] };
        t->rotation = ganim_quat_normalize(ganim_quat_from_mat3(r3));
        t->scale.x = t->scale.y = t->scale.z = 1.0f;
    } else {
        ganim_transform_from_mat34(m, t);
    }
    for (int k = 0; k < 3; k++) (&t->translation.x)[k] = (float)ag_s16(p + 18 + 2 * k);
    return rotation;
}

ganim_quat ag_key_rotation(const uint8_t *p, int convention, bool *zero)
{
    double w = ag_s16(p), x = ag_s16(p + 2), y = ag_s16(p + 4), z = ag_s16(p + 6);
    double len = sqrt(w * w + x * x + y * y + z * z);
    *zero = len == 0;
    if (*zero) w = 1, len = 1;
    double sign = convention == AG_SV ? -1.0 : 1.0; /* R(q)^T is R(conjugate of q) */
    return (ganim_quat){ (float)(sign * x / len), (float)(sign * y / len), (float)(sign * z / len), (float)(w / len) };
}

static ganim_code matrix_tracks(ganim_doc *doc, ganim_clip *clip, const ag_rec *r, int convention, uint32_t index,
                                ganim_error *err)
{
    uint32_t n = r->fc, bad = 0;
    uint32_t bad_f = 0, bad_b = 0;
    double bad_rows[3] = { 0, 0, 0 }, bad_det = 0;
    ganim_track *tracks = (ganim_track *)clip->tracks;
    for (uint32_t b = 0; b < r->bc; b++) {
        ganim_track *t = &tracks[b];
        float *rot = ganim_doc_alloc_array_raw(doc, (size_t)n * 4, sizeof *rot);
        float *tra = ganim_doc_alloc_array_raw(doc, (size_t)n * 3, sizeof *tra);
        float *scl = NULL;
        if (!rot || !tra) return GANIM_NOMEM(err);
        for (uint32_t f = 0; f < n; f++) {
            const uint8_t *p = r->p + ag_matrix_at(r, f, b);
            ganim_transform x;
            double rows[3], det;
            int ok = ag_matrix_transform(p, convention, &x, rows, &det);
            memcpy(rot + 4 * (size_t)f, &x.rotation.x, 4 * sizeof(float));
            for (int k = 0; k < 3; k++) tra[3 * (size_t)f + (size_t)k] = (float)ag_s16(p + 18 + 2 * k);
            if (!ok) {
                if (!bad++) {
                    bad_f = f, bad_b = b, bad_det = det;
                    memcpy(bad_rows, rows, sizeof rows);
                }
                if (!scl) { /* this bone gets a scale channel: 1 where its matrices are rotations */
                    scl = ganim_doc_alloc_array_raw(doc, (size_t)n * 3, sizeof *scl);
                    if (!scl) return GANIM_NOMEM(err);
                    for (size_t k = 0; k < (size_t)n * 3; k++) scl[k] = 1.0f;
                }
                memcpy(scl + 3 * (size_t)f, &x.scale.x, 3 * sizeof(float));
            } else if (scl) {
                scl[3 * (size_t)f] = scl[3 * (size_t)f + 1] = scl[3 * (size_t)f + 2] = 1.0f;
            }
        }
        t->bone = b;
        t->name = "";
        t->rotation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, n, NULL, rot };
        t->translation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, n, NULL, tra };
        if (scl) t->scale = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, n, NULL, scl };
    }
    if (bad)
        ganim_doc_warn(doc, GANIM_WARN_REPAIRED, r->offset + ag_matrix_at(r, bad_f, bad_b),
                       AG ": animation %u, frame %u, bone %u: the matrix is not a rotation within 2 %% (row lengths "
                          "%.4f, %.4f, %.4f, determinant %.4f); read as rotation and scale, the raw matrix kept "
                          "(%u such matrices in this animation)",
                       index, bad_f, bad_b, bad_rows[0], bad_rows[1], bad_rows[2], bad_det, bad);
    return GANIM_OK;
}

typedef struct key_ref {
    uint32_t frame, k;
} key_ref;

static int key_cmp(const void *a, const void *b)
{
    const key_ref *x = a, *y = b;
    if (x->frame != y->frame) return x->frame < y->frame ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k; /* stable: the file's order among equals */
}

static ganim_code keyed_tracks(ganim_doc *doc, ganim_clip *clip, const ag_rec *r, int convention, uint32_t index,
                               ganim_error *err)
{
    uint32_t kc = r->kc;
    ganim_track *tracks = (ganim_track *)clip->tracks;
    key_ref *order = ganim_doc_alloc_array_raw(doc, kc, sizeof *order);
    if (!order) return GANIM_NOMEM(err);
    bool unordered = false, differ = false, beyond = false, zero = false;
    for (uint32_t k = 0; k < kc && !differ; k++)
        for (uint32_t b = 1; b < r->bc; b++)
            if (ganim_ld_u16le(r->p + ag_key_at(r, k, b) + 14) != ganim_ld_u16le(r->p + ag_key_at(r, k, 0) + 14))
                differ = true;
    for (uint32_t b = 0; b < r->bc; b++) {
        bool sorted = true;
        for (uint32_t k = 0; k < kc; k++) {
            order[k].frame = ganim_ld_u16le(r->p + ag_key_at(r, k, b) + 14);
            order[k].k = k;
            if (k && order[k].frame <= order[k - 1].frame) sorted = false;
            if (order[k].frame >= r->fc) beyond = true;
        }
        if (!sorted) {
            unordered = true;
            qsort(order, kc, sizeof *order, key_cmp);
        }
        uint32_t n = 0; /* unique frames: the first key of each frame is kept */
        for (uint32_t k = 0; k < kc; k++)
            if (!n || order[k].frame != order[n - 1].frame) order[n++] = order[k];
        float *times = ganim_doc_alloc_array_raw(doc, n, sizeof *times);
        float *rot = ganim_doc_alloc_array_raw(doc, (size_t)n * 4, sizeof *rot);
        float *tra = ganim_doc_alloc_array_raw(doc, (size_t)n * 3, sizeof *tra);
        if (!times || !rot || !tra) return GANIM_NOMEM(err);
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *p = r->p + ag_key_at(r, order[i].k, b);
            bool z;
            ganim_quat q = ag_key_rotation(p, convention, &z);
            zero |= z;
            times[i] = (float)order[i].frame;
            memcpy(rot + 4 * (size_t)i, &q.x, 4 * sizeof(float));
            for (int k = 0; k < 3; k++) tra[3 * (size_t)i + (size_t)k] = (float)ag_s16(p + 8 + 2 * k);
        }
        ganim_track *t = &tracks[b];
        t->bone = b;
        t->name = "";
        t->rotation = (ganim_channel){ GANIM_CHANNEL_KEYED, n, times, rot };
        t->translation = (ganim_channel){ GANIM_CHANNEL_KEYED, n, times, tra };
    }
    uint64_t at = r->offset + r->o_keys;
    if (differ)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, at,
                       AG ": animation %u: the bones of one key carry different frame numbers; each bone keeps its own",
                       index);
    if (unordered)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, at,
                       AG ": animation %u: key frames do not strictly increase; sorted, and of keys at the same "
                          "frame the first kept",
                       index);
    if (beyond)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, at,
                       AG ": animation %u: a key lies at or beyond its frame count %u; the clip holds it there", index,
                       r->fc);
    if (zero)
        ganim_doc_warn(doc, GANIM_WARN_REPAIRED, at, AG ": animation %u: a quaternion is zero; read as no rotation",
                       index);
    return GANIM_OK;
}

/* Header fields that are odd but do not stop the read (open questions 7, 8, 11). */
static void header_warnings(ganim_doc *doc, const ag_rec *r, uint32_t index)
{
    for (int i = 0; i < (r->hp ? 6 : 3); i++)
        if (r->slot[i]) {
            static const uint8_t at[6] = { 0x04, 0x14, 0x1C, 0x24, 0x28, 0x2C };
            ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, r->offset + at[i],
                           AG ": animation %u: the pointer slot at +0x%02X holds 0x%x (0 in the files known); kept",
                           index, at[i], r->slot[i]);
            break;
        }
    if (r->flag > 1)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, r->offset + 0x0C,
                       AG ": animation %u: its flag is %u (0: position deltas, 1: none); read as 'none'", index,
                       r->flag);
    if (r->fc > AG_PLAUSIBLE_FRAMES)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, r->offset + 0x08,
                       AG ": animation %u has %u frames, more than the %u the public readers accept", index, r->fc,
                       AG_PLAUSIBLE_FRAMES);
    if (r->mc == -1)
        ganim_doc_warn(doc, GANIM_WARN_IGNORED, r->offset + 0x10,
                       AG ": animation %u: morph count -1: morph slots but no morph data (unverified)", index);
    else if (r->hp && r->mc != 0)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, r->offset + 0x10,
                       AG ": animation %u: a Harry Potter record with %d morph channels (not seen so far); read with "
                          "the morph layout",
                       index, (int)r->mc);
}

ganim_code ag_clip_from_record(ganim_doc *doc, ganim_clip *clip, const ag_rec *r, int convention, uint32_t index,
                               ganim_error *err)
{
    memset(clip, 0, sizeof *clip);
    clip->name = "";
    clip->fps = AG_FPS;
    clip->rotation_interp = GANIM_INTERP_SLERP;
    uint8_t *native = ganim_doc_alloc(doc, AG_CLIP_HEADER + r->size);
    if (!native) return GANIM_NOMEM(err);
    ganim_st_u32le(native, AG_CLIP_MAGIC);
    native[4] = (uint8_t)(r->hp ? AG_HP : AG_CROC2);
    native[5] = (uint8_t)convention;
    ganim_st_u32le(native + 8, (uint32_t)r->offset);
    ganim_st_u32le(native + 12, (uint32_t)r->size);
    memcpy(native + AG_CLIP_HEADER, r->p, r->size);
    clip->native_format = AG;
    clip->native = native;
    clip->native_size = AG_CLIP_HEADER + r->size;
    if (r->tc) {
        ganim_event *ev = ganim_doc_alloc_array(doc, r->tc, sizeof *ev);
        if (!ev) return GANIM_NOMEM(err);
        bool beyond = false;
        for (uint32_t k = 0; k < r->tc; k++) {
            ev[k].frame = ganim_ld_u16le(r->p + r->o_trig + 4 * (size_t)k);
            ev[k].id = ganim_ld_u16le(r->p + r->o_trig + 4 * (size_t)k + 2);
            beyond |= ev[k].frame >= (float)r->fc;
        }
        if (beyond)
            ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, r->offset + r->o_trig,
                           AG ": animation %u: a trigger lies at or beyond its frame count %u; kept", index, r->fc);
        clip->events = ev;
        clip->event_count = r->tc;
    }
    header_warnings(doc, r, index);
    const ganim_limits *lim = ganim_doc_limits(doc);
    const char *why = r->fc == 0   ? "it has no frames"
                      : r->bc == 0 ? "it animates no bone"
                      : r->bc > AG_MAX_BONES || r->bc > lim->bones
                          ? "it animates more vertex groups than ganim handles (ganim_limits.bones)"
                      : r->fc > lim->frames ? "it has more frames than the limit (ganim_limits.frames)"
                      : (uint64_t)r->fc * r->bc > lim->samples
                          ? "its frames times bones are more than the limit (ganim_limits.samples)"
                      : r->kc > lim->keys ? "it has more keys than the limit (ganim_limits.keys)"
                                          : NULL;
    if (why) {
        clip->kind = GANIM_CLIP_OPAQUE;
        clip->opaque = native + AG_CLIP_HEADER;
        clip->opaque_size = r->size;
        ganim_doc_warn(doc, GANIM_WARN_IGNORED, r->offset,
                       AG ": animation %u (%u frames, %u bones): %s; kept as raw bytes", index, r->fc, r->bc, why);
        return GANIM_OK;
    }
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->frame_count = r->fc;
    ganim_track *tracks = ganim_doc_alloc_array(doc, r->bc, sizeof *tracks);
    if (!tracks) return GANIM_NOMEM(err);
    clip->tracks = tracks;
    clip->track_count = r->bc;
    return ag_keyed(r) ? keyed_tracks(doc, clip, r, convention, index, err)
                       : matrix_tracks(doc, clip, r, convention, index, err);
}

bool ag_clip_info_parse(const ganim_clip *clip, ag_clip_info *info)
{
    if (!clip->native_format || strcmp(clip->native_format, AG) != 0 || !clip->native ||
        clip->native_size < AG_CLIP_HEADER)
        return false;
    const uint8_t *p = clip->native;
    if (ganim_ld_u32le(p) != AG_CLIP_MAGIC || p[4] > AG_HP || p[5] > AG_VS) return false;
    info->variant = p[4];
    info->convention = p[5];
    info->offset = ganim_ld_u32le(p + 8);
    info->size = ganim_ld_u32le(p + 12);
    info->record = p + AG_CLIP_HEADER;
    return info->size == clip->native_size - AG_CLIP_HEADER;
}

bool ag_clip_record(const ag_clip_info *info, ag_rec *r)
{
    char why[160];
    return ag_rec_parse(info->record, 0, info->size, info->offset, info->variant == AG_HP, r, why, sizeof why) &&
           r->size == info->size;
}

bool ag_doc_info_parse(const ganim_doc *doc, ag_doc_info *info)
{
    if (!doc->native_format || strcmp(doc->native_format, AG) != 0 || !doc->native || doc->native_size < AG_DOC_HEADER)
        return false;
    const uint8_t *p = doc->native;
    if (ganim_ld_u32le(p) != AG_DOC_MAGIC || p[4] > AG_WAD || p[5] > AG_HP || p[6] > AG_VS) return false;
    info->container = p[4];
    info->variant = p[5];
    info->convention = p[6];
    info->variant_from = p[7];
    info->stored_count = ganim_ld_u32le(p + 8);
    info->parsed = ganim_ld_u32le(p + 12);
    info->prefix_size = ganim_ld_u32le(p + 16);
    info->suffix_size = ganim_ld_u32le(p + 20);
    info->model = ganim_ld_u32le(p + 24);
    info->xspd = ganim_ld_u32le(p + 28);
    info->input_size = ganim_ld_u32le(p + 32);
    if (info->prefix_size > doc->native_size - AG_DOC_HEADER ||
        info->suffix_size != doc->native_size - AG_DOC_HEADER - info->prefix_size)
        return false;
    info->prefix = p + AG_DOC_HEADER;
    info->suffix = info->prefix + info->prefix_size;
    /* a record from elsewhere (a glTF's extras) is held to what the reader writes: no more
     * records read than stored, a WAD's prefix a WAD up to its XSPD section */
    if (info->parsed > info->stored_count) return false;
    if (info->container == AG_WAD &&
        (!ag_looks_like_wad(info->prefix, info->prefix_size) || (size_t)info->xspd + 8 > info->prefix_size ||
         memcmp(info->prefix + info->xspd, "XSPD", 4) != 0))
        return false;
    return true;
}
