/* The limits a document is read and checked under: defaults and the library's maxima
 * filled in, the limits of a document, and the check readers run on announced counts. */
#include <math.h>

#include "core/document.h"

const ganim_limits ganim_default_limits = { GANIM_DEFAULT_INPUT_BYTES, GANIM_MAX_FRAMES, GANIM_DEFAULT_BONES,
                                            GANIM_DEFAULT_CLIPS,       GANIM_MAX_FRAMES, GANIM_MAX_FRAME_SAMPLES };

ganim_limits ganim_limits_resolve(const ganim_limits *limits)
{
    ganim_limits l = { 0 };
    if (limits) l = *limits;
    if (!l.input_bytes) l.input_bytes = GANIM_DEFAULT_INPUT_BYTES;
    if (!l.frames || l.frames > GANIM_MAX_FRAMES) l.frames = GANIM_MAX_FRAMES;
    if (!l.bones) l.bones = GANIM_DEFAULT_BONES;
    if (!l.clips) l.clips = GANIM_DEFAULT_CLIPS;
    if (!l.keys || l.keys > GANIM_MAX_FRAMES) l.keys = GANIM_MAX_FRAMES;
    if (!l.samples || l.samples > GANIM_MAX_FRAME_SAMPLES) l.samples = GANIM_MAX_FRAME_SAMPLES;
    return l;
}

void ganim_doc_set_limits(ganim_doc *doc, const ganim_limits *limits)
{
    doc->internal->limits = ganim_limits_resolve(limits);
}

void ganim_doc_put_limits(ganim_doc *doc, const ganim_limits *resolved) { doc->internal->limits = *resolved; }

const ganim_limits *ganim_doc_limits(const ganim_doc *doc)
{
    /* a document a caller put together has no internal part: the defaults */
    return doc->internal ? &doc->internal->limits : &ganim_default_limits;
}

ganim_code ganim_check_counts(const ganim_doc *doc, uint64_t offset, const char *what, uint64_t frames, uint64_t bones,
                              uint64_t clips, ganim_error *err)
{
    const ganim_limits *l = ganim_doc_limits(doc);
    if (frames > l->frames)
        return ganim_fail(err, GANIM_ERR_LIMIT, offset,
                          "%s announces %llu frames, more than the limit of %u "
                          "(ganim_limits.frames)",
                          what, (unsigned long long)frames, l->frames);
    if (bones > l->bones)
        return ganim_fail(err, GANIM_ERR_LIMIT, offset,
                          "%s announces %llu bones, more than the limit of %u "
                          "(ganim_limits.bones)",
                          what, (unsigned long long)bones, l->bones);
    if (clips > l->clips)
        return ganim_fail(err, GANIM_ERR_LIMIT, offset,
                          "%s announces %llu clips, more than the limit of %u "
                          "(ganim_limits.clips)",
                          what, (unsigned long long)clips, l->clips);
    if (frames && bones && frames * bones > l->samples)
        return ganim_fail(err, GANIM_ERR_LIMIT, offset,
                          "%s announces %llu frames of %llu bones, more than the "
                          "limit of %llu bone-frames (ganim_limits.samples)",
                          what, (unsigned long long)frames, (unsigned long long)bones, (unsigned long long)l->samples);
    return GANIM_OK;
}

float ganim_fps_f32(double fps)
{
    float f = (float)fps;
    if ((double)f < GANIM_MIN_FPS) f = nextafterf(f, INFINITY);
    if ((double)f > GANIM_MAX_FPS) f = nextafterf(f, 0.0f);
    return f;
}
