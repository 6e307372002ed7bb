/* FF7 battle packs: the writer. Unchanged entries keep their original stream bytes;
 * any other clip is quantised to 12-bit angles and coded with the smallest bKey whose
 * stream fits 65535 bytes (or the one the ff7.bkey option forces). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/ff7/ff7.h"
#include "io/writer.h"

/* Smallest bKey from the candidates whose stream fits; rot is quantised in place to it.
 * Returns 0 and sets *bits, or a ganim_code. */
ganim_code ff7_choose_bkey(const int *cands, int ncand, uint32_t slots, uint32_t frames, const int32_t *pos,
                           uint16_t *rot, uint16_t *scratch, unsigned *key, size_t *bits, uint32_t index,
                           ganim_error *err)
{
    if (ncand <= 0)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ff7-battle: clip %u: no bKey to try", index);
    size_t n = (size_t)frames * slots * 3u;
    size_t best = 0;
    for (int c = 0; c < ncand; c++) {
        unsigned k = (unsigned)cands[c];
        for (size_t i = 0; i < n; i++) scratch[i] = ff7_quantise_raw(rot[i], k);
        best = ff7_stream_bits(k, slots, frames, pos, scratch);
        if (best == SIZE_MAX)
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              "ff7-battle: clip %u: a position or position step leaves the "
                              "16-bit range the format stores",
                              index);
        if ((best + 7) / 8 <= FF7_MAX_STREAM) {
            memcpy(rot, scratch, n * sizeof *rot);
            *key = k;
            *bits = best;
            return GANIM_OK;
        }
    }
    return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                      "ff7-battle: clip %u: the frame stream needs %zu bytes even at bKey %d, "
                      "more than the format's 65535",
                      index, (best + 7) / 8, cands[ncand - 1]);
}

typedef struct enc_ctx {
    const ganim_allocator *alloc;
    int forced; /* -1 or 0/2/4 */
} enc_ctx;

static ganim_code write_animation(const enc_ctx *c, const ganim_doc *doc, uint32_t index, ganim_writer *w,
                                  ganim_error *err)
{
    const ganim_clip *clip = &doc->clips[index];
    ff7_clip_info in;
    bool have = ff7_clip_info_parse(clip, &in) && in.layout != FF7_LAYOUT_SPECIAL;
    int role = have ? in.role : ff7_guess_role(doc, clip);
    uint32_t slots = have ? in.slots : ff7_slots_for(doc, clip, role);
    uint32_t frames = clip->frame_count;
    if (frames == 0 || frames > FF7_MAX_FRAMES)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "ff7-battle: clip %u: %u frames; FF7 stores 1 to 65535", index, frames);
    size_t npos = (size_t)frames * 3u, nrot;
    if (!ganim_mul_size(npos, slots, &nrot) || nrot > SIZE_MAX / 8)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, "ff7-battle: clip %u: too many values", index);
    int32_t *pos = ganim_alloc(c->alloc, npos * sizeof *pos);
    uint16_t *rot = ganim_alloc(c->alloc, nrot * sizeof *rot);
    uint16_t *scratch = ganim_alloc(c->alloc, nrot * sizeof *rot);
    ganim_buffer sb = { 0 };
    ganim_code code = GANIM_OK;
    if (!pos || !rot || !scratch) {
        code = GANIM_NOMEM(err);
        goto done;
    }
    bool pristine = ff7_raw_from_model(doc, clip, have ? &in : NULL, role, slots, frames, pos, rot);

    int cands[3], nc = 0;
    if (c->forced >= 0) {
        cands[nc++] = c->forced;
    } else {
        for (int k = have ? in.bkey : 0; k <= 4; k += 2) cands[nc++] = k;
    }
    unsigned key = 0;
    size_t bits = 0;
    code = ff7_choose_bkey(cands, nc, slots, frames, pos, rot, scratch, &key, &bits, index, err);
    if (code) goto done;
    if (have && key != in.bkey) pristine = false;

    ganim_writer sw = gw_init(&sb, c->alloc);
    ganim_bitwriter bw = gbw_init(&sw);
    ff7_encode_stream(&bw, key, slots, frames, pos, rot);
    if (!gw_ok(&sw)) {
        code = GANIM_NOMEM(err);
        goto done;
    }
    const uint8_t *stream = sb.data;
    size_t s_size = sb.size;
    /* An unchanged entry keeps its original stream bytes past the decoded frames (frames
     * beyond sFrames, a cut-off frame, padding bits) once its coded bits are verified equal. */
    if (pristine && bits == in.stream_bits && (size_t)in.stream_size * 8u >= bits && in.stream_size >= s_size) {
        bool same = memcmp(stream, in.stream, bits / 8) == 0;
        if (same && bits % 8) {
            unsigned m = 0xFFu << (8 - bits % 8) & 0xFFu;
            same = (stream[bits / 8] & m) == (in.stream[bits / 8] & m);
        }
        if (same) {
            stream = in.stream;
            s_size = in.stream_size;
        }
    }
    bool same_frames = have && frames == in.frames;
    int layout = have ? in.layout : FF7_LAYOUT_NORMAL;
    uint32_t dw_bones = have ? in.dw_bones : slots;
    uint32_t dw_frames = same_frames ? in.dw_frames : frames;
    uint32_t s_frames = same_frames ? in.s_frames : frames;
    const uint8_t *trailer = have ? in.trailer : NULL;
    size_t tsize = have ? in.trailer_size : (4u - (5u + s_size) % 4u) % 4u;
    static const uint8_t zeros[4] = { 0, 0, 0, 0 };
    if (!trailer) trailer = zeros;
    size_t pad = 0;
    uint64_t chunk;
    if (layout == FF7_LAYOUT_FROG) {
        if (tsize != 2) trailer = zeros;
        tsize = 2;
        chunk = 3u + (uint64_t)s_size + 2u;
    } else {
        chunk = 5u + (uint64_t)s_size + tsize;
        /* sFrames == dwChunkSize - 5 would read back as the frog layout: pad one byte. */
        if (s_frames == chunk - 5) pad = 1, chunk++;
    }
    gw_u32le(w, dw_bones);
    gw_u32le(w, dw_frames);
    gw_u32le(w, (uint32_t)chunk);
    if (layout != FF7_LAYOUT_FROG) gw_u16le(w, (uint16_t)s_frames);
    gw_u16le(w, (uint16_t)s_size);
    gw_u8(w, (uint8_t)key);
    gw_bytes(w, stream, s_size);
    gw_bytes(w, trailer, tsize);
    gw_zeros(w, pad);
done:
    ganim_buffer_free(&sb);
    ganim_free(c->alloc, pos, npos * sizeof *pos);
    ganim_free(c->alloc, rot, nrot * sizeof *rot);
    ganim_free(c->alloc, scratch, nrot * sizeof *rot);
    return code;
}

ganim_code ff7_battle_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err)
{
    ganim_allocator alloc = ganim_allocator_resolve(opts ? &opts->allocator : NULL);
    enc_ctx c = { &alloc, -1 };
    /* ff7.bkey forces a precision key; the choices 0|2|4 are the key over 2 */
    int forced = opts ? ganim_setting_choice(opts->settings, opts->setting_count, &ff7_options[FF7_OPT_BKEY]) : -1;
    if (forced >= 0) c.forced = 2 * forced;
    if (!doc) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ff7-battle: no document");
    ganim_writer w = gw_init(out, &alloc);
    gw_u32le(&w, doc->clip_count);
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *clip = &doc->clips[i];
        if (clip->kind == GANIM_CLIP_OPAQUE) {
            if (clip->opaque_size >= 11)
                return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                                  "ff7-battle: clip %u: an opaque slot of %zu bytes cannot be "
                                  "written (FF7 reads chunks of 11 bytes or more as animations)",
                                  i, clip->opaque_size);
            ff7_clip_info in;
            bool have = ff7_clip_info_parse(clip, &in);
            gw_u32le(&w, have ? in.dw_bones : 0);
            gw_u32le(&w, have ? in.dw_frames : 0);
            gw_u32le(&w, (uint32_t)clip->opaque_size);
            gw_bytes(&w, clip->opaque, clip->opaque_size);
            continue;
        }
        ganim_code code = write_animation(&c, doc, i, &w, err);
        if (code) return code;
    }
    ff7_doc_info di;
    if (ff7_doc_info_parse(doc, &di)) gw_bytes(&w, di.tail, di.tail_size);
    if (!gw_ok(&w)) return GANIM_NOMEM(err);
    /* The pack has no place for a frame rate: the game and every reader play it at 15. */
    uint32_t first = 0, other_rates = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *clip = &doc->clips[i];
        if (clip->kind == GANIM_CLIP_ANIMATION && clip->fps != FF7_FPS && other_rates++ == 0) first = i;
    }
    if (other_rates) {
        const ganim_clip *clip = &doc->clips[first];
        char more[48] = "";
        if (other_rates > 1) snprintf(more, sizeof more, " (and %u more clips)", other_rates - 1);
        ganim_write_warn(opts, GANIM_WARN_EXPORT_LOSS,
                         "ff7-battle: a pack stores no frame rate: clip %u at %g fps%s reads back at %g fps; "
                         "give its rate again when reading the pack (--fps %g)",
                         first, clip->fps, more, FF7_FPS, clip->fps);
    }
    return GANIM_OK;
}
