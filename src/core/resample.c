/* Generic resampling: factor-1 interpolated frames between every pair of frames. Formats
 * with integer storage (FF7) provide their own hook that re-quantises. */
#include <string.h>

#include "core/internal.h"

static ganim_code resample_channel(ganim_doc *doc, ganim_channel *ch, const ganim_clip *clip, const uint8_t *step,
                                   int comps, unsigned factor, uint32_t new_count, ganim_error *err)
{
    if (ch->kind == GANIM_CHANNEL_KEYED) {
        float *times = ganim_doc_alloc_array(doc, ch->count, sizeof *times);
        if (!times) return GANIM_NOMEM(err);
        for (uint32_t k = 0; k < ch->count; k++) times[k] = ch->times[k] * (float)factor;
        ch->times = times;
        return GANIM_OK;
    }
    if (ch->kind != GANIM_CHANNEL_PER_FRAME) return GANIM_OK;
    float *v = ganim_doc_alloc_array(doc, (size_t)new_count * (size_t)comps, sizeof *v);
    if (!v) return GANIM_NOMEM(err);
    static const float zero[4] = { 0, 0, 0, 1 };
    for (uint32_t j = 0; j < new_count; j++) {
        if (j % factor == 0) /* original frames stay bit-exact */
            memcpy(v + (size_t)j * (size_t)comps, ch->values + (size_t)(j / factor) * (size_t)comps,
                   (size_t)comps * sizeof *v);
        else
            ganim_channel_eval(ch, clip->frame_count, step, clip->rotation_interp, comps, (double)j / factor, zero,
                               v + (size_t)j * (size_t)comps);
    }
    ch->values = v;
    ch->count = new_count;
    return GANIM_OK;
}

static ganim_code resample_bits(ganim_doc *doc, const uint8_t **bits, unsigned factor, uint32_t new_count,
                                ganim_error *err)
{
    if (!*bits) return GANIM_OK;
    uint8_t *b = ganim_doc_alloc(doc, new_count);
    if (!b) return GANIM_NOMEM(err);
    for (uint32_t j = 0; j < new_count; j++) b[j] = (*bits)[j / factor];
    *bits = b;
    return GANIM_OK;
}

ganim_code ganim_doc_resample_generic(ganim_doc *doc, unsigned factor, ganim_error *err)
{
    for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
        ganim_clip *c = &doc->clips[ci];
        if (c->kind != GANIM_CLIP_ANIMATION || c->frame_count < 2) continue;
        uint64_t n = (uint64_t)factor * (c->frame_count - 1) + 1;
        if (n > UINT32_MAX / 4)
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, "resample: clip %u gets too many frames", ci);
        uint32_t new_count = (uint32_t)n;
        for (uint32_t ti = 0; ti < c->track_count; ti++) {
            ganim_track *t = &c->tracks[ti];
            ganim_code code;
            if ((code = resample_channel(doc, &t->rotation, c, t->step, 4, factor, new_count, err)) != GANIM_OK)
                return code;
            if ((code = resample_channel(doc, &t->translation, c, t->step, 3, factor, new_count, err)) != GANIM_OK)
                return code;
            if ((code = resample_channel(doc, &t->scale, c, t->step, 3, factor, new_count, err)) != GANIM_OK)
                return code;
            if ((code = resample_bits(doc, &t->visibility, factor, new_count, err)) != GANIM_OK) return code;
            if ((code = resample_bits(doc, &t->step, factor, new_count, err)) != GANIM_OK) return code;
        }
        if (c->event_count) { /* events stay at their time */
            ganim_event *ev = ganim_doc_alloc_array(doc, c->event_count, sizeof *ev);
            if (!ev) return GANIM_NOMEM(err);
            for (uint32_t k = 0; k < c->event_count; k++) {
                ev[k] = c->events[k];
                ev[k].frame = (float)((double)ev[k].frame * factor);
            }
            c->events = ev;
        }
        c->frame_count = new_count;
        c->fps *= factor;
        c->native_format = NULL; /* the native record describes the old frames */
        c->native = NULL;
        c->native_size = 0;
    }
    return GANIM_OK;
}
