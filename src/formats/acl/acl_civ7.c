/* Civilization VII animation container (magic 0x6AB06AB0). A 0x60-byte header, then
 *   V0 (u32 0xFFFFFFFF at 0x48): frames x bones x 10 float32 `qw qx qy qz px py pz sx sy sz`;
 *   V1 (anything else at 0x48): an ACL compressed_tracks buffer (decoded by acl_decode.c).
 * Header fields we know: 0x04 file size, 0x08 fps (f32), 0x0C frames, 0x10 bones,
 * 0x50 offset of a NUL-terminated name (0: none). The other header bytes are kept in the
 * document's native record and written back, so V0 read -> write reproduces the file. */
#include "formats/acl/acl_internal.h"

int civ7_probe(const uint8_t *data, size_t size)
{
    if (size < 4 || ganim_ld_u32le(data) != CIV7_MAGIC) return 0;
    return size >= CIV7_HEADER ? 90 : 30;
}

/* Clip name from the offset at 0x50, when it points at a terminated string. */
static const char *header_name(ganim_doc *doc, const uint8_t *data, size_t size)
{
    uint32_t off = ganim_ld_u32le(data + 0x50);
    if (off == 0) return "";
    const uint8_t *nul = off < size ? memchr(data + off, 0, size - off) : NULL;
    if (!nul) {
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, 0x50,
                       "civ7: header: name offset 0x%X is outside the file or unterminated; no name", off);
        return "";
    }
    return (const char *)(data + off);
}

static ganim_code keep_native(ganim_doc *doc, const uint8_t *data, size_t tail_at, size_t size, ganim_error *err)
{
    size_t tail = size - tail_at;
    uint8_t *p = ganim_doc_alloc(doc, CIV7_HEADER + tail);
    if (!p) return GANIM_NOMEM(err);
    memcpy(p, data, CIV7_HEADER);
    if (tail) memcpy(p + CIV7_HEADER, data + tail_at, tail);
    doc->native_format = CIV7_NATIVE;
    doc->native = p;
    doc->native_size = CIV7_HEADER + tail;
    return GANIM_OK;
}

/* V0 is frame-major (a frame of every bone after another: one bone's frames lie
 * bones x 40 bytes apart, a page each at 100 bones) and the model channel-major. The
 * transposition reads the file in its order (the one stream the prefetchers follow; the
 * file is the larger side) and writes each channel in place, 3 x bones streams that move
 * on by one key a frame (not gathered a bone at a time and copied). Measured against a
 * bone at a time and against tiles of 32 frames x every bone (the writer's way): this is
 * the fastest read at 500 to 10,000 frames (docs/benchmarks.md, eleventh round). */

/* Which channels' stored bits differ from frame 0 in some frame (one pass in file order,
 * each word ORed with its XOR against frame 0's): bit c of varies[b] for channel c
 * (0 rotation, 1 translation, 2 scale). Equal bits stay equal once repaired, so the others
 * are constant; a channel whose bits differ can still repair to one value (the caller
 * checks). NOMEM when the scratch cannot be had. */
static ganim_code v0_varying(ganim_doc *doc, const uint8_t *rows, uint32_t frames, uint32_t bones, uint8_t *varies,
                             ganim_error *err)
{
    size_t words = (size_t)bones * 10u;
    ganim_doc_mark_t mark = ganim_doc_mark(doc);
    uint32_t *acc = ganim_doc_alloc_array(doc, words, sizeof *acc);
    if (!acc) return GANIM_NOMEM(err);
    for (uint32_t f = 1; f < frames; f++) {
        const uint8_t *row = rows + (size_t)f * words * 4u;
        for (size_t i = 0; i < words; i++) {
            uint32_t a, z;
            memcpy(&a, row + 4u * i, 4);
            memcpy(&z, rows + 4u * i, 4);
            acc[i] |= a ^ z;
        }
    }
    for (uint32_t b = 0; b < bones; b++) {
        const uint32_t *w = acc + (size_t)b * 10u;
        varies[b] = (uint8_t)(((w[0] | w[1] | w[2] | w[3]) != 0) | (((w[4] | w[5] | w[6]) != 0) << 1) |
                              (((w[7] | w[8] | w[9]) != 0) << 2));
    }
    ganim_doc_release(doc, mark);
    return GANIM_OK;
}

/* Room for one channel: every frame when its bits vary, else one value. */
static ganim_code v0_room(ganim_doc *doc, ganim_channel *ch, int varies, uint32_t frames, unsigned comps,
                          ganim_error *err)
{
    uint32_t n = varies ? frames : 1u;
    float *v = ganim_doc_alloc_array_raw(doc, (size_t)n * comps, sizeof(float)); /* the tiles write each */
    if (!v) return GANIM_NOMEM(err);
    ch->kind = n == 1 ? GANIM_CHANNEL_CONSTANT : GANIM_CHANNEL_PER_FRAME;
    ch->count = n;
    ch->values = v;
    return GANIM_OK;
}

/* A channel of every frame that the repairs made one value (bits that differed only in
 * what was repaired): constant, as a channel of equal stored bits. */
static void v0_settle(ganim_channel *ch, unsigned comps)
{
    if (ch->count < 2) return;
    const float *v = ch->values;
    uint32_t f = 1;
    while (f < ch->count && memcmp(v, v + (size_t)f * comps, comps * sizeof(float)) == 0) f++;
    if (f < ch->count) return;
    ch->kind = GANIM_CHANNEL_CONSTANT;
    ch->count = 1;
}

static ganim_code read_v0(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                          ganim_error *err)
{
    float fps = ganim_ld_f32le(data + 0x08);
    uint32_t frames = ganim_ld_u32le(data + 0x0C), bones = ganim_ld_u32le(data + 0x10);
    if (!((double)fps >= GANIM_MIN_FPS && (double)fps <= GANIM_MAX_FPS)) /* also NaN */
        return ganim_fail(err, GANIM_ERR_CORRUPT, 0x08,
                          "civ7: header: frame rate %g is outside %g..%g frames per second", (double)fps, GANIM_MIN_FPS,
                          GANIM_MAX_FPS);
    if (frames == 0 || bones == 0)
        return ganim_fail(err, GANIM_ERR_CORRUPT, frames ? 0x10 : 0x0C,
                          "civ7: header: %u frames of %u bones is an empty animation", frames, bones);
    ganim_code lc = ganim_check_counts(doc, 0x0C, "civ7: the header", frames, 0, 0, err); /* frames at 0x0C */
    if (lc == GANIM_OK) lc = ganim_check_counts(doc, 0x10, "civ7: the header", frames, bones, 0, err);
    if (lc != GANIM_OK) return lc;
    uint64_t need = (uint64_t)frames * bones * 40u;
    if (need > size - CIV7_HEADER)
        return ganim_fail(err, GANIM_ERR_TRUNCATED, size,
                          "civ7: V0: %u frames of %u bones need %llu bytes after the header, the file has %zu", frames,
                          bones, (unsigned long long)need, size - CIV7_HEADER);
    if (opts && opts->skeleton && opts->skeleton->bone_count != bones)
        return ganim_fail(err, GANIM_ERR_MISMATCH, GANIM_NO_OFFSET,
                          "civ7: the skeleton has %u bones but the animation has %u", opts->skeleton->bone_count,
                          bones);
    doc->skeleton = opts && opts->skeleton ? ganim_skeleton_copy(doc, opts->skeleton)
                                           : ganim_skeleton_flat_named(doc, bones, NULL, "track_");
    ganim_clip *clip = ganim_doc_alloc(doc, sizeof *clip);
    ganim_track *tracks = ganim_doc_alloc_array(doc, bones, sizeof *tracks);
    uint8_t *varies = ganim_doc_alloc_array_raw(doc, bones, 1); /* v0_varying writes each */
    if (!doc->skeleton || !clip || !tracks || !varies) return GANIM_NOMEM(err);
    clip->name = ganim_doc_strdup(doc, header_name(doc, data, size));
    if (!clip->name) return GANIM_NOMEM(err);
    doc->clips = clip;
    doc->clip_count = 1;
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->fps = fps;
    clip->frame_count = frames;
    clip->track_count = bones;
    clip->tracks = tracks;
    clip->rotation_interp = GANIM_INTERP_SLERP;
    const uint8_t *rows = data + CIV7_HEADER;
    ganim_code rc = v0_varying(doc, rows, frames, bones, varies, err);
    if (!rc) {
        /* a large model's channels in one block of the arena (at most the file's size): one
         * region the allocator hands over whole (huge pages, see core/alloc.c), not a block a
         * channel; a small one fills the arena's usual blocks */
        uint64_t model = 0;
        for (uint32_t b = 0; b < bones; b++)
            for (unsigned k = 0; k < 3; k++)
                model += ganim_doc_room((uint64_t)((unsigned)(varies[b] >> k) & 1u ? frames : 1u) * (k ? 12u : 16u));
        if (model >= ((uint64_t)1 << 20) && model <= SIZE_MAX) (void)ganim_doc_reserve(doc, (size_t)model);
    }
    for (uint32_t b = 0; b < bones && !rc; b++) {
        ganim_track *tr = &tracks[b];
        tr->bone = b;
        tr->name = "";
        rc = v0_room(doc, &tr->rotation, varies[b] & 1, frames, 4, err);
        if (!rc) rc = v0_room(doc, &tr->translation, varies[b] & 2, frames, 3, err);
        if (!rc) rc = v0_room(doc, &tr->scale, varies[b] & 4, frames, 3, err);
    }
    if (rc) return rc;
    uint32_t fixed = 0, bad_b = UINT32_MAX, bad_f = 0; /* the first repaired in bone order, then frame */
    const uint8_t *at = rows;
    for (uint32_t f = 0; f < frames; f++)
        for (uint32_t b = 0; b < bones; b++, at += 40) {
            ganim_track *tr = &tracks[b];
            /* a constant channel's frames all go to its one value (equal bits, equal repairs) */
            float *qo = (float *)tr->rotation.values + (tr->rotation.count > 1 ? 4u * (size_t)f : 0);
            float *to = (float *)tr->translation.values + (tr->translation.count > 1 ? 3u * (size_t)f : 0);
            float *so = (float *)tr->scale.values + (tr->scale.count > 1 ? 3u * (size_t)f : 0);
            if (civ7_v0_record(at, qo, to, so)) {
                if (b < bad_b || (b == bad_b && f < bad_f)) {
                    bad_b = b;
                    bad_f = f;
                }
                fixed++;
            }
        }
    if (fixed)
        for (uint32_t b = 0; b < bones; b++) {
            v0_settle(&tracks[b].rotation, 4);
            v0_settle(&tracks[b].translation, 3);
            v0_settle(&tracks[b].scale, 3);
        }
    uint64_t first_bad = fixed ? CIV7_HEADER + ((uint64_t)bad_f * bones + bad_b) * 40u : GANIM_NO_OFFSET;
    if (fixed)
        ganim_doc_warn(doc, GANIM_WARN_REPAIRED, first_bad,
                       "civ7: V0: %u bone frames held a non-finite value or a non-unit rotation and were repaired",
                       fixed);
    /* V0 stores no rest pose: without a given skeleton, the first frame serves */
    if (!(opts && opts->skeleton)) ganim_skeleton_rest_from_frame0(doc->skeleton, clip);
    return keep_native(doc, data, CIV7_HEADER + (size_t)need, size, err);
}

static ganim_code read_v1(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                          ganim_error *err)
{
    if (size < CIV7_HEADER + 12)
        return ganim_fail(err, GANIM_ERR_TRUNCATED, size,
                          "civ7: the marker at 0x48 says V1 but the file ends at %zu bytes, inside the ACL buffer "
                          "header that follows the 96-byte header",
                          size);
    if (ganim_ld_u32le(data + CIV7_HEADER + 8) != GANIM_ACL_TAG)
        return ganim_fail(
            err, GANIM_ERR_CORRUPT, CIV7_HEADER + 8,
            "civ7: the marker at 0x48 says V1 but no ACL buffer (tag 0xAC11AC11 at 0x68) follows the header");
    ganim_code rc = ganim_acl_read_doc(doc, data + CIV7_HEADER, size - CIV7_HEADER, CIV7_HEADER, opts, err);
    if (rc) return rc;
    ganim_clip *clip = &doc->clips[0];
    float fps = ganim_ld_f32le(data + 0x08);
    uint32_t frames = ganim_ld_u32le(data + 0x0C), bones = ganim_ld_u32le(data + 0x10);
    if (fps != (float)clip->fps)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, 0x08,
                       "civ7: header: frame rate %g differs from the ACL sample rate %g; the ACL rate is used",
                       (double)fps, clip->fps);
    if (frames != clip->frame_count)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, 0x0C, "civ7: header: %u frames, the ACL buffer holds %u", frames,
                       clip->frame_count);
    if (bones != clip->track_count && (bones & 0xFFFFu) != clip->track_count)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, 0x10, "civ7: header: %u bones, the ACL buffer holds %u tracks",
                       bones, clip->track_count);
    const char *name = header_name(doc, data, size);
    if (*name) {
        clip->name = ganim_doc_strdup(doc, name);
        if (!clip->name) return GANIM_NOMEM(err);
    }
    /* bytes after the ACL buffer (a name, ...) are kept for writing back */
    uint32_t acl_size = ganim_ld_u32le(data + CIV7_HEADER);
    size_t tail_at = acl_size <= size - CIV7_HEADER ? CIV7_HEADER + (size_t)acl_size : size;
    return keep_native(doc, data, tail_at, size, err);
}

ganim_code civ7_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts, ganim_error *err)
{
    if (size < CIV7_HEADER)
        return ganim_fail(err, GANIM_ERR_TRUNCATED, size,
                          "civ7: the file is %zu bytes, shorter than the 96-byte header", size);
    if (ganim_ld_u32le(data) != CIV7_MAGIC)
        return ganim_fail(err, GANIM_ERR_CORRUPT, 0, "civ7: magic 0x%08X is not 0x6AB06AB0", ganim_ld_u32le(data));
    uint32_t fsize = ganim_ld_u32le(data + 4);
    if (fsize != size)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, 4, "civ7: header: file size %u differs from the %zu bytes read",
                       fsize, size);
    if (ganim_ld_u32le(data + 0x48) == CIV7_V0_MARKER) return read_v0(doc, data, size, opts, err);
    return read_v1(doc, data, size, opts, err);
}
