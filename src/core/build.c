/* Building and editing documents through the public API: a new document, its skeleton,
 * clips, tracks, channels and events, each copied into the document's arena. The counts
 * a caller gives are checked against each other before anything is copied, so no array
 * is read past the count it comes with; values are ganim_doc_validate's business. */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

static ganim_code bad(ganim_error *err, const char *fmt, ...) GANIM_PRINTF(2, 3);
static ganim_code bad(ganim_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ganim_code c = ganim_failv(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, fmt, ap);
    va_end(ap);
    return c;
}

ganim_code ganim_doc_new(const ganim_read_opts *opts, ganim_doc **out, ganim_error *err)
{
    if (!out) return bad(err, "ganim_doc_new: no place for the document");
    *out = NULL;
    ganim_doc *doc = ganim_doc_create(opts ? &opts->allocator : NULL, opts ? opts->memory_limit : 0);
    if (!doc) return GANIM_NOMEM(err);
    ganim_doc_set_limits(doc, opts ? &opts->limits : NULL);
    doc->axes = GANIM_AXES_Y_UP;
    *out = doc;
    return GANIM_OK;
}

/* ---- copies ------------------------------------------------------------------------- */

static const char *copy_str(ganim_doc *doc, const char *s) { return ganim_doc_strdup(doc, s ? s : ""); }

static ganim_code copy_native(ganim_doc *doc, const char *format, const uint8_t *data, size_t size,
                              const char **out_format, const uint8_t **out_data, size_t *out_size, const char *what,
                              ganim_error *err)
{
    *out_format = NULL;
    *out_data = NULL;
    *out_size = 0;
    if (!format) return GANIM_OK;
    if (size && !data) return bad(err, "%s: a native record of %zu bytes without its bytes", what, size);
    if (!(*out_format = ganim_doc_strdup(doc, format)) || !(*out_data = ganim_doc_memdup(doc, data, size)))
        return GANIM_NOMEM(err);
    *out_size = size;
    return GANIM_OK;
}

ganim_code ganim_channel_copy(ganim_doc *doc, ganim_channel *dst, const ganim_channel *src, uint32_t frames, int comps,
                              const char *what, ganim_error *err)
{
    memset(dst, 0, sizeof *dst);
    if (!src) return GANIM_OK;
    switch (src->kind) {
    case GANIM_CHANNEL_ABSENT: return GANIM_OK;
    case GANIM_CHANNEL_CONSTANT:
        if (src->count != 1) return bad(err, "%s: a constant channel has 1 value, not %u", what, src->count);
        break;
    case GANIM_CHANNEL_PER_FRAME:
        if (src->count != frames)
            return bad(err, "%s: a per-frame channel has one value per frame (%u), not %u", what, frames, src->count);
        break;
    case GANIM_CHANNEL_KEYED:
        if (src->count == 0) return bad(err, "%s: a keyed channel has at least one key", what);
        if (!src->times) return bad(err, "%s: a keyed channel without its key times", what);
        break;
    default: return bad(err, "%s: channel kind %d is not one of ganim_channel_kind", what, (int)src->kind);
    }
    if (!src->values) return bad(err, "%s: %u values announced, none given", what, src->count);
    float *v = ganim_doc_alloc_array_raw(doc, (size_t)src->count * (size_t)comps, sizeof *v);
    float *t = NULL;
    if (v && src->kind == GANIM_CHANNEL_KEYED) t = ganim_doc_alloc_array_raw(doc, src->count, sizeof *t);
    if (!v || (src->kind == GANIM_CHANNEL_KEYED && !t)) return GANIM_NOMEM(err);
    memcpy(v, src->values, (size_t)src->count * (size_t)comps * sizeof *v);
    if (t) memcpy(t, src->times, (size_t)src->count * sizeof *t);
    dst->kind = src->kind;
    dst->count = src->count;
    dst->values = v;
    dst->times = t;
    return GANIM_OK;
}

ganim_code ganim_track_copy(ganim_doc *doc, ganim_track *dst, const ganim_track *src, uint32_t frames, const char *what,
                            ganim_error *err)
{
    char w[96];
    memset(dst, 0, sizeof *dst);
    dst->bone = src->bone;
    if (!(dst->name = copy_str(doc, src->name))) return GANIM_NOMEM(err);
    static const char *const names[3] = { "rotation", "translation", "scale" };
    const ganim_channel *in[3] = { &src->rotation, &src->translation, &src->scale };
    ganim_channel *outc[3] = { &dst->rotation, &dst->translation, &dst->scale };
    for (int k = 0; k < 3; k++) {
        snprintf(w, sizeof w, "%s: %s", what, names[k]);
        ganim_code c = ganim_channel_copy(doc, outc[k], in[k], frames, k ? 3 : 4, w, err);
        if (c != GANIM_OK) return c;
    }
    if ((src->visibility || src->step) && frames == 0)
        return bad(err, "%s: visibility or step bytes in a clip without frames", what);
    if (src->visibility && !(dst->visibility = ganim_doc_memdup(doc, src->visibility, frames))) return GANIM_NOMEM(err);
    if (src->step && !(dst->step = ganim_doc_memdup(doc, src->step, frames))) return GANIM_NOMEM(err);
    return GANIM_OK;
}

ganim_skeleton *ganim_skeleton_dup(ganim_doc *doc, const ganim_skeleton *src, ganim_error *err)
{
    if (src->bone_count && !src->bones) {
        bad(err, "skeleton: %u bones announced, none given", src->bone_count);
        return NULL;
    }
    ganim_skeleton *s = ganim_doc_alloc(doc, sizeof *s);
    ganim_bone *b = s ? ganim_doc_alloc_array(doc, src->bone_count ? src->bone_count : 1, sizeof *b) : NULL;
    if (!b || !(s->name = copy_str(doc, src->name))) {
        GANIM_NOMEM(err);
        return NULL;
    }
    for (uint32_t i = 0; i < src->bone_count; i++) {
        b[i] = src->bones[i];
        if (!(b[i].name = copy_str(doc, src->bones[i].name))) {
            GANIM_NOMEM(err);
            return NULL;
        }
    }
    s->bones = b;
    s->bone_count = src->bone_count;
    if (copy_native(doc, src->native_format, src->native, src->native_size, &s->native_format, &s->native,
                    &s->native_size, "skeleton", err) != GANIM_OK)
        return NULL;
    return s;
}

ganim_code ganim_doc_set_skeleton(ganim_doc *doc, const ganim_skeleton *skeleton, ganim_error *err)
{
    if (!doc) return bad(err, "ganim_doc_set_skeleton: no document");
    if (!skeleton) {
        doc->skeleton = NULL;
        return GANIM_OK;
    }
    ganim_skeleton *s = ganim_skeleton_dup(doc, skeleton, err);
    if (!s) return err && err->code ? err->code : GANIM_ERR_NOMEM;
    doc->skeleton = s;
    return GANIM_OK;
}

/* ---- growing arrays ------------------------------------------------------------------ */

/* Room for one more clip; the track rooms follow the clip array. */
static ganim_code grow_clips(ganim_doc *doc, ganim_error *err)
{
    ganim_doc_growth *g = ganim_doc_growth_of(doc);
    int ours = g->clips.array && g->clips.array == doc->clips;
    if (ours && doc->clip_count < g->clips.capacity) return GANIM_OK;
    if (doc->clip_count >= UINT32_MAX / 2) return bad(err, "the document has too many clips");
    uint32_t cap = doc->clip_count < 4 ? 8 : doc->clip_count * 2;
    ganim_clip *clips = ganim_doc_alloc_array(doc, cap, sizeof *clips);
    ganim_array_room *rooms = ganim_doc_alloc_array(doc, cap, sizeof *rooms);
    if (!clips || !rooms) return GANIM_NOMEM(err);
    if (doc->clip_count) memcpy(clips, doc->clips, (size_t)doc->clip_count * sizeof *clips);
    if (ours && g->tracks) memcpy(rooms, g->tracks, (size_t)doc->clip_count * sizeof *rooms);
    doc->clips = clips;
    g->clips.array = clips;
    g->clips.capacity = cap;
    g->tracks = rooms;
    return GANIM_OK;
}

static ganim_code check_clip(const ganim_doc *doc, uint32_t clip, const char *who, ganim_error *err)
{
    if (!doc) return bad(err, "%s: no document", who);
    if (clip >= doc->clip_count || !doc->clips)
        return bad(err, "%s: no clip %u (the document has %u)", who, clip, doc->clip_count);
    return GANIM_OK;
}

/* A copy of `clip` in `c`, named clip `ci` in errors. */
ganim_code ganim_clip_copy(ganim_doc *doc, uint32_t ci, const ganim_clip *clip, ganim_clip *out, ganim_error *err)
{
    char what[64];
    snprintf(what, sizeof what, "clip %u", ci);
    if (clip->track_count && !clip->tracks)
        return bad(err, "%s: %u tracks announced, none given", what, clip->track_count);
    if (clip->event_count && !clip->events)
        return bad(err, "%s: %u events announced, none given", what, clip->event_count);
    if (clip->opaque_size && !clip->opaque)
        return bad(err, "%s: %zu opaque bytes announced, none given", what, clip->opaque_size);
    ganim_clip c;
    memset(&c, 0, sizeof c);
    c.kind = clip->kind;
    c.fps = clip->fps;
    c.frame_count = clip->frame_count;
    c.rotation_interp = clip->rotation_interp;
    c.partner = clip->partner;
    if (!(c.name = copy_str(doc, clip->name))) return GANIM_NOMEM(err);
    if (clip->track_count) {
        ganim_track *t = ganim_doc_alloc_array(doc, clip->track_count, sizeof *t);
        if (!t) return GANIM_NOMEM(err);
        for (uint32_t i = 0; i < clip->track_count; i++) {
            char tw[96];
            snprintf(tw, sizeof tw, "%s track %u", what, i);
            ganim_code code = ganim_track_copy(doc, &t[i], &clip->tracks[i], clip->frame_count, tw, err);
            if (code != GANIM_OK) return code;
        }
        c.tracks = t;
        c.track_count = clip->track_count;
    }
    if (clip->event_count) {
        ganim_event *e = ganim_doc_alloc_array(doc, clip->event_count, sizeof *e);
        if (!e) return GANIM_NOMEM(err);
        memcpy(e, clip->events, (size_t)clip->event_count * sizeof *e);
        c.events = e;
        c.event_count = clip->event_count;
    }
    if (clip->opaque) {
        if (!(c.opaque = ganim_doc_memdup(doc, clip->opaque, clip->opaque_size))) return GANIM_NOMEM(err);
        c.opaque_size = clip->opaque_size;
    }
    ganim_code code = copy_native(doc, clip->native_format, clip->native, clip->native_size, &c.native_format,
                                  &c.native, &c.native_size, what, err);
    if (code == GANIM_OK) *out = c;
    return code;
}

ganim_code ganim_doc_add_clip(ganim_doc *doc, const ganim_clip *clip, uint32_t *index, ganim_error *err)
{
    if (!doc || !clip) return bad(err, "ganim_doc_add_clip: no document or no clip");
    uint32_t ci = doc->clip_count;
    ganim_clip c;
    ganim_code code = ganim_clip_copy(doc, ci, clip, &c, err);
    if (code == GANIM_OK) code = grow_clips(doc, err);
    if (code != GANIM_OK) return code;
    ganim_doc_growth *g = ganim_doc_growth_of(doc);
    doc->clips[ci] = c;
    g->tracks[ci].array = c.tracks;
    g->tracks[ci].capacity = c.track_count;
    doc->clip_count = ci + 1;
    if (index) *index = ci;
    return GANIM_OK;
}

ganim_code ganim_doc_set_clip(ganim_doc *doc, uint32_t index, const ganim_clip *clip, ganim_error *err)
{
    ganim_code code = check_clip(doc, index, "ganim_doc_set_clip", err);
    if (code != GANIM_OK) return code;
    if (!clip) return bad(err, "ganim_doc_set_clip: no clip");
    ganim_clip c = { 0 };
    if ((code = ganim_clip_copy(doc, index, clip, &c, err)) != GANIM_OK) return code;
    ganim_doc_growth *g = ganim_doc_growth_of(doc);
    doc->clips[index] = c;
    if (g->clips.array && g->clips.array == doc->clips) {
        g->tracks[index].array = c.tracks;
        g->tracks[index].capacity = c.track_count;
    }
    return GANIM_OK;
}

ganim_code ganim_doc_add_track(ganim_doc *doc, uint32_t clip, const ganim_track *track, uint32_t *index,
                               ganim_error *err)
{
    ganim_code code = check_clip(doc, clip, "ganim_doc_add_track", err);
    if (code != GANIM_OK) return code;
    if (!track) return bad(err, "ganim_doc_add_track: no track");
    ganim_clip *c = &doc->clips[clip];
    char what[64];
    snprintf(what, sizeof what, "clip %u track %u", clip, c->track_count);
    ganim_track t;
    if ((code = ganim_track_copy(doc, &t, track, c->frame_count, what, err)) != GANIM_OK) return code;
    /* The clip array must be one the building functions know, to record the room. */
    ganim_doc_growth *g = ganim_doc_growth_of(doc);
    if (!(g->clips.array && g->clips.array == doc->clips)) {
        /* grow_clips copies the clips into an array it records */
        if ((code = grow_clips(doc, err)) != GANIM_OK) return code;
        c = &doc->clips[clip];
    }
    ganim_array_room *room = &g->tracks[clip];
    if (!(room->array && room->array == c->tracks && c->track_count < room->capacity)) {
        if (c->track_count >= UINT32_MAX / 2) return bad(err, "%s: the clip has too many tracks", what);
        uint32_t cap = c->track_count < 4 ? 8 : c->track_count * 2;
        ganim_track *tracks = ganim_doc_alloc_array(doc, cap, sizeof *tracks);
        if (!tracks) return GANIM_NOMEM(err);
        if (c->track_count) memcpy(tracks, c->tracks, (size_t)c->track_count * sizeof *tracks);
        c->tracks = tracks;
        room->array = tracks;
        room->capacity = cap;
    }
    c->tracks[c->track_count] = t;
    if (index) *index = c->track_count;
    c->track_count++;
    return GANIM_OK;
}

ganim_code ganim_doc_set_channel(ganim_doc *doc, uint32_t clip, uint32_t track, ganim_channel_target target,
                                 const ganim_channel *channel, ganim_error *err)
{
    ganim_code code = check_clip(doc, clip, "ganim_doc_set_channel", err);
    if (code != GANIM_OK) return code;
    ganim_clip *c = &doc->clips[clip];
    if (track >= c->track_count || !c->tracks)
        return bad(err, "ganim_doc_set_channel: clip %u has no track %u (it has %u)", clip, track, c->track_count);
    if ((int)target < 0 || target > GANIM_TARGET_SCALE)
        return bad(err, "ganim_doc_set_channel: target %d is not one of ganim_channel_target", (int)target);
    static const char *const names[3] = { "rotation", "translation", "scale" };
    char what[96];
    snprintf(what, sizeof what, "clip %u track %u: %s", clip, track, names[target]);
    ganim_channel ch;
    code = ganim_channel_copy(doc, &ch, channel, c->frame_count, target == GANIM_TARGET_ROTATION ? 4 : 3, what, err);
    if (code != GANIM_OK) return code;
    ganim_track *t = &c->tracks[track];
    ganim_channel *dst = target == GANIM_TARGET_ROTATION      ? &t->rotation
                         : target == GANIM_TARGET_TRANSLATION ? &t->translation
                                                              : &t->scale;
    *dst = ch;
    return GANIM_OK;
}

ganim_code ganim_doc_set_events(ganim_doc *doc, uint32_t clip, const ganim_event *events, uint32_t count,
                                ganim_error *err)
{
    ganim_code code = check_clip(doc, clip, "ganim_doc_set_events", err);
    if (code != GANIM_OK) return code;
    if (count && !events) return bad(err, "ganim_doc_set_events: %u events announced, none given", count);
    ganim_event *e = NULL;
    if (count) {
        if (!(e = ganim_doc_alloc_array(doc, count, sizeof *e))) return GANIM_NOMEM(err);
        memcpy(e, events, (size_t)count * sizeof *e);
    }
    doc->clips[clip].events = e;
    doc->clips[clip].event_count = count;
    return GANIM_OK;
}
