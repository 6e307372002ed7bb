/* Civilization VII writer. V0: any clip as raw frames (qw qx qy qz px py pz sx sy sz per
 * bone per frame); the header bytes and trailing name of a V0 source are kept. V1: the
 * clip encoded as an ACL compressed_tracks buffer (acl_encode.c) after the header; a V1
 * source keeps its header bytes, the bytes after its buffer, and its buffer's version,
 * formats and metadata choice. */
#include "formats/acl/acl_encode.h"
#include "io/bytes.h"
#include "io/writer.h"

#define CIV7_TILE 32u /* frames a tile of the V0 transposition */

const ganim_option civ7_options[CIV7_OPT_COUNT] = {
    [CIV7_OPT_VERSION] = {
        .name = "civ7.version",
        .alias = "civ7-version",
        .type = GANIM_OPTION_CHOICE,
        .flags = GANIM_OPTION_WRITE,
        .values = "0|1",
        .help = "write V0 (raw float frames) or V1 (an ACL 2.1 compressed_tracks body, as the game's files)",
        .when_unset = "the version of the file the animation was read from, else 0",
    },
};

/* Value of a channel at integer frame f, bit-exact for stored frames. */
static void channel_at(const ganim_channel *ch, uint32_t frames, const uint8_t *step, ganim_rotation_interp interp,
                       unsigned comps, uint32_t f, const float *rest, float *out)
{
    switch (ch->kind) {
    case GANIM_CHANNEL_CONSTANT: memcpy(out, ch->values, comps * sizeof(float)); break;
    case GANIM_CHANNEL_PER_FRAME:
        if (f < ch->count) {
            memcpy(out, ch->values + (size_t)f * comps, comps * sizeof(float));
            break;
        }
        /* fall through */
    default: ganim_channel_eval(ch, frames, step, interp, (int)comps, (double)f, rest, out); break;
    }
}

/* The original's header when the document was read from a civ7 file (else NULL). */
static const uint8_t *civ7_source(const ganim_doc *doc)
{
    if (doc->native && doc->native_format && strcmp(doc->native_format, CIV7_NATIVE) == 0 &&
        doc->native_size >= CIV7_HEADER)
        return doc->native;
    return NULL;
}

static ganim_code civ7_write_v0(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err)
{
    const ganim_clip *clip = ganim_doc_first_animation(doc);
    if (!clip)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "civ7: the document has no animation to write");
    const ganim_skeleton *sk = doc->skeleton;
    if (!sk || sk->bone_count == 0)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "civ7: writing V0 needs a skeleton (the bone count)");
    uint32_t frames = clip->frame_count, bones = sk->bone_count;
    if (frames == 0) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "civ7: the clip has no frames");
    uint64_t data = (uint64_t)frames * bones * 40u;
    if (data > 0xFFFFFFFFull - CIV7_HEADER - (doc->native_size > CIV7_HEADER ? doc->native_size : 0))
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "civ7: %u frames of %u bones do not fit a 32-bit file size", frames, bones);
    ganim_allocator A = ganim_allocator_resolve(opts ? &opts->allocator : NULL);
    uint32_t *track_of = ganim_alloc(&A, (size_t)bones * sizeof *track_of);
    if (!track_of) return GANIM_NOMEM(err);
    for (uint32_t b = 0; b < bones; b++) track_of[b] = UINT32_MAX;
    for (uint32_t t = 0; t < clip->track_count; t++)
        if (clip->tracks[t].bone < bones && track_of[clip->tracks[t].bone] == UINT32_MAX)
            track_of[clip->tracks[t].bone] = t;

    uint8_t hdr[CIV7_HEADER];
    const uint8_t *tail = NULL;
    size_t tail_size = 0;
    memset(hdr, 0, sizeof hdr);
    const uint8_t *src = civ7_source(doc);
    if (src) {
        memcpy(hdr, src, CIV7_HEADER);
        tail = doc->native + CIV7_HEADER;
        tail_size = doc->native_size - CIV7_HEADER;
        if (ganim_ld_u32le(hdr + 0x48) != CIV7_V0_MARKER) {
            tail_size = 0; /* a V1 source: its name lived elsewhere */
            memset(hdr + 0x50, 0, 4);
        } else if (tail_size) {
            /* the name follows the frames: move its offset with them */
            uint64_t old_end = CIV7_HEADER + (uint64_t)ganim_ld_u32le(hdr + 0x0C) * ganim_ld_u32le(hdr + 0x10) * 40u;
            uint32_t name = ganim_ld_u32le(hdr + 0x50);
            if (name >= old_end) {
                uint64_t moved = name - old_end + CIV7_HEADER + data;
                for (unsigned i = 0; i < 4; i++) hdr[0x50 + i] = (uint8_t)(moved >> (8 * i));
            }
        }
    }
    ganim_writer w = gw_init(out, opts ? &opts->allocator : NULL);
    uint64_t total = CIV7_HEADER + data + tail_size;
    float fps = ganim_fps_f32(clip->fps);
    uint32_t fields[5] = { CIV7_MAGIC, (uint32_t)total, 0, frames, bones };
    memcpy(&fields[2], &fps, 4);
    for (unsigned i = 0; i < 5; i++)
        for (unsigned b = 0; b < 4; b++) hdr[4 * i + b] = (uint8_t)(fields[i] >> (8 * b));
    memset(hdr + 0x48, 0xFF, 4);
    gw_bytes(&w, hdr, sizeof hdr);
    /* The frames go into the reserved room a tile of CIV7_TILE frames at a time, each bone's
     * keys of the tile read in order (the model is channel-major) and put in the tile's
     * rows (the file is frame-major: one bone's frames are bones x 40 bytes apart), which
     * stay in the caches until every bone has filled them. */
    if (gw_reserve(&w, (size_t)data + tail_size)) {
        uint8_t *rows = out->data + out->size;
        for (uint32_t f0 = 0; f0 < frames; f0 += CIV7_TILE) {
            uint32_t f1 = frames - f0 < CIV7_TILE ? frames : f0 + CIV7_TILE;
            for (uint32_t b = 0; b < bones; b++) {
                const ganim_transform *rest = &sk->bones[b].rest;
                const ganim_track *tr = track_of[b] != UINT32_MAX ? &clip->tracks[track_of[b]] : NULL;
                for (uint32_t f = f0; f < f1; f++) {
                    float q[4] = { rest->rotation.x, rest->rotation.y, rest->rotation.z, rest->rotation.w };
                    float t[3] = { rest->translation.x, rest->translation.y, rest->translation.z };
                    float s[3] = { rest->scale.x, rest->scale.y, rest->scale.z };
                    if (tr) {
                        float rq[4], rt[3], rs[3];
                        memcpy(rq, q, sizeof q);
                        memcpy(rt, t, sizeof t);
                        memcpy(rs, s, sizeof s);
                        if (tr->rotation.kind != GANIM_CHANNEL_ABSENT)
                            channel_at(&tr->rotation, frames, tr->step, clip->rotation_interp, 4, f, rq, q);
                        if (tr->translation.kind != GANIM_CHANNEL_ABSENT)
                            channel_at(&tr->translation, frames, tr->step, clip->rotation_interp, 3, f, rt, t);
                        if (tr->scale.kind != GANIM_CHANNEL_ABSENT)
                            channel_at(&tr->scale, frames, tr->step, clip->rotation_interp, 3, f, rs, s);
                    }
                    float v[10] = { q[3], q[0], q[1], q[2], t[0], t[1], t[2], s[0], s[1], s[2] };
                    uint8_t *at = rows + ((size_t)f * bones + b) * 40u;
                    for (unsigned c = 0; c < 10; c++) ganim_st_u32le(at + 4u * c, ganim_f32_bits(v[c]));
                }
            }
        }
        out->size += (size_t)data;
    }
    if (tail_size) gw_bytes(&w, tail, tail_size);
    ganim_free(&A, track_of, (size_t)bones * sizeof *track_of);
    return gw_ok(&w) ? GANIM_OK : GANIM_NOMEM(err);
}

static ganim_code civ7_write_v1(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err)
{
    const ganim_clip *clip = ganim_doc_first_animation(doc);
    if (!clip)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "civ7: the document has no animation to write");
    acl_enc_params p;
    ganim_code rc = acl_write_params(doc, opts, &p, err);
    if (rc) return rc;
    if (clip->native_format && strcmp(clip->native_format, ACL_NATIVE) == 0 && clip->native_size >= 4u * NF_COUNT) {
        /* the original body's choices, which the game's runtime expects */
        uint32_t misc = ganim_ld_u32le(clip->native + 4u * NF_MISC);
        uint32_t version = ganim_ld_u32le(clip->native + 4u * NF_VERSION);
        if (version != 7 && version != 10)
            return ganim_fail(err, GANIM_ERR_UNSUPPORTED, GANIM_NO_OFFSET,
                              "civ7: the original's ACL body has format version %u; ganim writes 7 and 10", version);
        p.fmt[K_ROT] = (uint8_t)((misc >> 4) & 15u);
        p.fmt[K_TRANS] = (uint8_t)((misc >> 3) & 1u);
        p.fmt[K_SCALE] = (uint8_t)((misc >> 2) & 1u);
        if (p.fmt[K_ROT] != 0 && p.fmt[K_ROT] != 2 && p.fmt[K_ROT] != 3)
            return ganim_fail(err, GANIM_ERR_UNSUPPORTED, GANIM_NO_OFFSET,
                              "civ7: the original's ACL body has rotation format %u (flags 0x%08X), not 0, 2 or 3",
                              p.fmt[K_ROT], misc);
        if (!p.metadata_set) p.metadata = (int)(misc >> 31);
    }
    const uint8_t *src = civ7_source(doc);
    uint8_t hdr[CIV7_HEADER];
    const uint8_t *tail = NULL;
    size_t tail_size = 0;
    memset(hdr, 0, sizeof hdr);
    if (src) {
        memcpy(hdr, src, CIV7_HEADER);
        if (ganim_ld_u32le(hdr + 0x48) == CIV7_V0_MARKER) {
            memset(hdr + 0x48, 0, 4); /* a V0 source: its name followed its frames */
            memset(hdr + 0x50, 0, 4);
        } else {
            tail = doc->native + CIV7_HEADER;
            tail_size = doc->native_size - CIV7_HEADER;
        }
    }
    size_t start = out->size;
    ganim_writer w = gw_init(out, opts ? &opts->allocator : NULL);
    gw_bytes(&w, hdr, sizeof hdr);
    if (!gw_ok(&w)) return GANIM_NOMEM(err);
    size_t body = out->size;
    rc = acl_encode_doc(doc, &p, opts ? &opts->allocator : NULL, out, err);
    if (rc) return rc;
    acl_warn_unknown_hierarchy(doc, opts, "civ7");
    uint32_t acl_size = (uint32_t)(out->size - body);
    if (tail_size) gw_bytes(&w, tail, tail_size);
    if (!gw_ok(&w)) return GANIM_NOMEM(err);
    uint64_t total = out->size - start;
    if (total > 0xFFFFFFFFull)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, "civ7: the file would exceed 4 GiB");
    uint8_t *h = out->data + start;
    uint32_t old_end = src ? ganim_ld_u32le(src + 0x04) - (uint32_t)tail_size : 0;
    uint32_t name = ganim_ld_u32le(h + 0x50);
    if (tail_size && name >= old_end) name = name - old_end + CIV7_HEADER + acl_size; /* moves with the tail */
    float fps = ganim_fps_f32(clip->fps);
    uint32_t fps_bits;
    memcpy(&fps_bits, &fps, 4);
    uint32_t bones = ganim_ld_u32le(h + 0x10);
    bones = (bones & 0xFFFF0000u) | (doc->skeleton->bone_count & 0xFFFFu);
    if (!src || doc->skeleton->bone_count > 0xFFFFu) bones = doc->skeleton->bone_count;
    uint32_t fields[5] = { CIV7_MAGIC, (uint32_t)total, fps_bits, clip->frame_count, bones };
    for (unsigned i = 0; i < 5; i++) ganim_st_u32le(h + 4u * i, fields[i]);
    ganim_st_u32le(h + 0x50, name);
    return GANIM_OK;
}

ganim_code civ7_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err)
{
    int v = opts ? ganim_setting_choice(opts->settings, opts->setting_count, &civ7_options[CIV7_OPT_VERSION]) : -1;
    if (v < 0) {
        const uint8_t *src = civ7_source(doc);
        v = src && ganim_ld_u32le(src + 0x48) != CIV7_V0_MARKER ? 1 : 0;
    }
    if (v == 1) return civ7_write_v1(doc, opts, out, err);
    /* the acl.* options shape an ACL body; V0 has none */
    for (unsigned i = 0; opts && i < ACL_OPT_COUNT; i++)
        if (ganim_setting_get(opts->settings, opts->setting_count, acl_options[i].name))
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "option %s shapes the ACL body of a Civ VII V1 file; this file is written as V0 (raw "
                              "floats), which has none (add -O civ7.version=1)",
                              acl_options[i].name);
    return civ7_write_v0(doc, opts, out, err);
}
