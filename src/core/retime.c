/* Sampling a clip at another frame rate over the same duration: what a format with its
 * own rate (FF7 battle: 15 fps) or an original's clip written into (--into) needs from a
 * clip keyed at another rate (Blender's 24 fps). Frames that fall on a source frame keep
 * its values bit for bit. */
#include <math.h>
#include <string.h>

#include "core/internal.h"

uint32_t ganim_retime_frames(uint32_t frames, double from_fps, double to_fps)
{
    if (frames < 2 || !(from_fps > 0) || !(to_fps > 0)) return frames ? frames : 1;
    double n = floor((double)(frames - 1) * to_fps / from_fps + 0.5) + 1;
    return n > (double)UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* The source frame of output frame k: k * from/to, snapped to a whole frame when within
 * rounding of one (so equal rates, and rates whose frames coincide, copy values). */
static double source_frame(uint32_t k, double ratio)
{
    double f = (double)k * ratio, r = floor(f + 0.5);
    return fabs(f - r) < 1e-9 * (r > 1 ? r : 1) ? r : f;
}

ganim_code ganim_channel_retime(ganim_doc *doc, const ganim_channel *ch, uint32_t frames, const uint8_t *step,
                                ganim_rotation_interp interp, int comps, const float *rest, double ratio,
                                uint32_t count, int keep_constant, ganim_channel *out, ganim_error *err)
{
    memset(out, 0, sizeof *out);
    if (keep_constant && (ch->kind == GANIM_CHANNEL_CONSTANT || ch->kind == GANIM_CHANNEL_ABSENT)) {
        float *v = ganim_doc_alloc_array(doc, (size_t)comps, sizeof *v);
        if (!v) return GANIM_NOMEM(err);
        ganim_channel_eval(ch, frames, step, interp, comps, 0, rest, v);
        out->kind = GANIM_CHANNEL_CONSTANT;
        out->count = 1;
        out->values = v;
        return GANIM_OK;
    }
    size_t n;
    if (!ganim_mul_size(count, (size_t)comps, &n)) return GANIM_NOMEM(err);
    float *v = ganim_doc_alloc_array_raw(doc, n, sizeof *v);
    if (!v) return GANIM_NOMEM(err);
    for (uint32_t k = 0; k < count; k++)
        ganim_channel_eval(ch, frames, step, interp, comps, source_frame(k, ratio), rest,
                           v + (size_t)k * (size_t)comps);
    out->kind = GANIM_CHANNEL_PER_FRAME;
    out->count = count;
    out->values = v;
    return GANIM_OK;
}

ganim_code ganim_bits_retime(ganim_doc *doc, const uint8_t *bits, uint32_t frames, double ratio, uint32_t count,
                             const uint8_t **out, ganim_error *err)
{
    if (!bits || !frames) {
        *out = NULL;
        return GANIM_OK;
    }
    uint8_t *b = ganim_doc_alloc(doc, count ? count : 1);
    if (!b) return GANIM_NOMEM(err);
    for (uint32_t k = 0; k < count; k++) {
        double f = floor(source_frame(k, ratio));
        b[k] = bits[f >= (double)(frames - 1) ? frames - 1 : (uint32_t)f];
    }
    *out = b;
    return GANIM_OK;
}

ganim_code ganim_clip_retime(ganim_doc *doc, uint32_t ci, double fps, ganim_error *err)
{
    ganim_clip *c = &doc->clips[ci];
    if (c->kind != GANIM_CLIP_ANIMATION || c->fps == fps || !(c->fps > 0) || !(fps > 0)) return GANIM_OK;
    uint32_t count = ganim_retime_frames(c->frame_count, c->fps, fps);
    const ganim_limits *lim = ganim_doc_limits(doc);
    if (count > lim->frames)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "clip %u: %u frames at %g fps become %u at %g fps, more than the limit of %u", ci,
                          c->frame_count, c->fps, count, fps, lim->frames);
    double ratio = c->fps / fps;
    static const float rest4[4] = { 0, 0, 0, 1 };
    for (uint32_t ti = 0; ti < c->track_count; ti++) {
        ganim_track *t = &c->tracks[ti];
        ganim_channel *chs[3] = { &t->rotation, &t->translation, &t->scale };
        for (int k = 0; k < 3; k++) {
            ganim_channel *ch = chs[k];
            if (ch->kind == GANIM_CHANNEL_ABSENT || ch->kind == GANIM_CHANNEL_CONSTANT) continue;
            if (ch->kind == GANIM_CHANNEL_KEYED) { /* the keys stay keys, at the same times */
                float *times = ganim_doc_alloc_array(doc, ch->count, sizeof *times);
                if (!times) return GANIM_NOMEM(err);
                for (uint32_t i = 0; i < ch->count; i++) times[i] = (float)(ch->times[i] / ratio);
                ch->times = times;
                continue;
            }
            ganim_channel n;
            ganim_code code = ganim_channel_retime(doc, ch, c->frame_count, t->step, c->rotation_interp, k ? 3 : 4,
                                                   rest4, ratio, count, 0, &n, err);
            if (code != GANIM_OK) return code;
            *ch = n;
        }
        ganim_code code = ganim_bits_retime(doc, t->visibility, c->frame_count, ratio, count, &t->visibility, err);
        if (code == GANIM_OK) code = ganim_bits_retime(doc, t->step, c->frame_count, ratio, count, &t->step, err);
        if (code != GANIM_OK) return code;
    }
    if (c->event_count && c->events) { /* events keep their time */
        ganim_event *ev = (ganim_event *)(void *)ganim_doc_memdup(doc, c->events, (size_t)c->event_count * sizeof *ev);
        if (!ev) return GANIM_NOMEM(err);
        for (uint32_t i = 0; i < c->event_count; i++) ev[i].frame = (float)(ev[i].frame / ratio);
        c->events = ev;
    }
    c->frame_count = count;
    c->fps = fps;
    return GANIM_OK;
}
