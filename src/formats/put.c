/* Putting the clips of an edited document into the document of the original file
 * (ganim_write's `into`): the modder's way back into the game. The original keeps
 * everything the edit does not replace (other clips, opaque slots, native records,
 * events, version); an edited clip keeps the original clip's bone set, channels, rate
 * and record, and takes the edited values, sampled at the original clip's rate.
 *
 * Clips are matched by the names ganim's exporters give them (the clip's own name,
 * "A+B" for a clip played with its partner, "<stem>_<index>" and "clip_<index>" for
 * unnamed ones), or by `slot`; bones by name: the original's own names, then the names
 * an export gave them ([A-Za-z0-9_-], duplicates numbered), then both ignoring case. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/format.h"

#define NONE UINT32_MAX

typedef struct put_ctx {
    ganim_doc *target;
    const ganim_doc *src; /* the edited document, in the target's axes */
    const ganim_write_opts *wo;
    double fps;        /* opts->fps: 0, each target clip's own rate; < 0, the input's */
    ganim_names names; /* the target skeleton's exported names */
    int have_names;
} put_ctx;

/* ---- which clip goes where ------------------------------------------------------------- */

/* Clip ci's partner, when it is an animation clip of the document; else NONE. */
static uint32_t partner_of(const ganim_doc *doc, uint32_t ci)
{
    uint32_t p = doc->clips[ci].partner;
    if (!p || p > doc->clip_count || p - 1 == ci || doc->clips[p - 1].kind != GANIM_CLIP_ANIMATION) return NONE;
    return p - 1;
}

/* Animation clips that are nobody's partner ("main" clips: what an export names), the
 * last of them in *last; `flags` (clip_count bytes, scratch) marks the partners. */
static uint32_t main_animations(const ganim_doc *doc, uint8_t *flags, uint32_t *last)
{
    memset(flags, 0, doc->clip_count);
    for (uint32_t i = 0; i < doc->clip_count; i++)
        if (doc->clips[i].kind == GANIM_CLIP_ANIMATION && partner_of(doc, i) != NONE) flags[partner_of(doc, i)] = 1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++)
        if (doc->clips[i].kind == GANIM_CLIP_ANIMATION && !flags[i]) {
            n++;
            *last = i;
        }
    return n;
}

/* Does `name` (len bytes) name clip ci of `doc` as an exporter names it? */
static int names_clip(const ganim_doc *doc, uint32_t ci, const char *name, size_t len)
{
    const char *own = doc->clips[ci].name;
    if (own[0]) {
        if (strlen(own) != len) return 0;
        if (strncmp(own, name, len) == 0) return 1;
        for (size_t i = 0; i < len; i++) {
            int a = (unsigned char)own[i], b = (unsigned char)name[i];
            if (a >= 'A' && a <= 'Z') a += 32;
            if (b >= 'A' && b <= 'Z') b += 32;
            if (a != b) return 0;
        }
        return 1;
    }
    /* unnamed: "clip_<ci>", or "<stem>_<ci>" (the exporters' default names) */
    char idx[16];
    int n = snprintf(idx, sizeof idx, "_%u", ci);
    return n > 0 && len > (size_t)n && memcmp(name + len - (size_t)n, idx, (size_t)n) == 0;
}

/* The target clip an input clip called `name` goes into (and *split: it carries the
 * target's partner too), or NONE. */
static uint32_t match_name(const ganim_doc *t, const char *name, int *split)
{
    size_t len = strlen(name);
    *split = 0;
    /* "A+B": clip A played with its partner B */
    const char *plus = strchr(name, '+');
    for (uint32_t ci = 0; plus && ci < t->clip_count; ci++) {
        uint32_t p = partner_of(t, ci);
        if (t->clips[ci].kind != GANIM_CLIP_ANIMATION || p == NONE) continue;
        if (names_clip(t, ci, name, (size_t)(plus - name)) && names_clip(t, p, plus + 1, strlen(plus + 1))) {
            *split = 1;
            return ci;
        }
    }
    for (uint32_t ci = 0; ci < t->clip_count; ci++) /* named clips first: exact names */
        if (t->clips[ci].kind == GANIM_CLIP_ANIMATION && t->clips[ci].name[0] && !strcmp(t->clips[ci].name, name))
            return ci;
    for (uint32_t ci = 0; ci < t->clip_count; ci++)
        if (t->clips[ci].kind == GANIM_CLIP_ANIMATION && names_clip(t, ci, name, len)) return ci;
    return NONE;
}

/* "'body_0', 'weapon_6', 2 (unnamed), ..." for error messages. */
static void list_clips(const ganim_doc *t, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = 0;
    for (uint32_t ci = 0; ci < t->clip_count && at + 40 < size; ci++) {
        if (t->clips[ci].kind != GANIM_CLIP_ANIMATION) continue;
        int n = t->clips[ci].name[0]
                    ? snprintf(buf + at, size - at, "%s%u '%.40s'", at ? ", " : "", ci, t->clips[ci].name)
                    : snprintf(buf + at, size - at, "%s%u (unnamed)", at ? ", " : "", ci);
        if (n < 0) break;
        at += (size_t)n;
    }
    if (at + 40 >= size && size > 5) memcpy(buf + size - 5, "...", 4);
}

/* ---- which bone is which -------------------------------------------------------------- */

/* The target bone called `name`; `occurrence`: the how-many-th bone of that name (a
 * skeleton may give two bones one name: they pair up in order). */
static uint32_t find_bone(const put_ctx *c, const char *name, uint32_t occurrence)
{
    const ganim_skeleton *sk = c->target->skeleton;
    for (int pass = 0; pass < 4; pass++) {
        uint32_t seen = 0, first = NONE;
        for (uint32_t b = 0; b < sk->bone_count; b++) {
            const char *mine = pass & 1 ? (c->have_names ? c->names.name[b] : NULL) : sk->bones[b].name;
            if (!mine || !mine[0]) continue;
            if (pass < 2 ? strcmp(mine, name) != 0 : ganim_strcasecmp(mine, name) != 0) continue;
            if (first == NONE) first = b;
            if (seen++ == occurrence) return b;
        }
        if (first != NONE && occurrence == 0) return first;
    }
    return NONE;
}

static const char *input_bone_name(const ganim_doc *src, const ganim_track *t)
{
    if (src->skeleton && t->bone < src->skeleton->bone_count && src->skeleton->bones[t->bone].name[0])
        return src->skeleton->bones[t->bone].name;
    return t->name;
}

/* Do a channel's values change over the clip? */
static int channel_moves(const ganim_channel *ch, int comps)
{
    if (ch->kind != GANIM_CHANNEL_PER_FRAME && ch->kind != GANIM_CHANNEL_KEYED) return 0;
    for (uint32_t k = 1; k < ch->count; k++)
        if (memcmp(ch->values, ch->values + (size_t)k * (size_t)comps, (size_t)comps * sizeof(float)) != 0) return 1;
    return 0;
}

static int track_moves(const ganim_track *t)
{
    return channel_moves(&t->rotation, 4) || channel_moves(&t->translation, 3) || channel_moves(&t->scale, 3);
}

/* ---- keeping the original's values ------------------------------------------------------
 * A value that comes back from an export within the rounding of the trip (axis turns in
 * float, glTF's unit quaternions, a tool's own conversions) is the original's: it takes
 * the original's bits, so that an unedited clip is written as the file had it. The
 * tolerance (1e-5, of the value's size for vectors; quaternions as rotations: made unit,
 * either sign) is far below
 * any edit an artist makes and below the step of the formats ganim writes. */
#define PUT_SNAP 1e-5

static int close_to(const float *a, const float *b, int comps)
{
    double na = 1, nb = 1; /* quaternions: compared as rotations (an export makes them unit) */
    if (comps == 4) {
        na = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2] + (double)a[3] * a[3]);
        nb = sqrt((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2] + (double)b[3] * b[3]);
        if (!(na > 0) || !(nb > 0)) return 0;
    }
    int same = 1, flipped = comps == 4;
    for (int i = 0; i < comps; i++) {
        double x = a[i] / na, y = b[i] / nb;
        double tol = comps == 4 ? PUT_SNAP : PUT_SNAP * (fabs(y) > 1 ? fabs(y) : 1);
        same &= fabs(x - y) <= tol;
        flipped &= fabs(x + y) <= tol;
    }
    return same || flipped;
}

/* New channel `n` (its values the put's own) against the original clip's channel `o`
 * (clip `old`, track `ot`) at the same rate: frames within the trip's rounding take the
 * original's values, and so do the frames the input hides (`hidden`: NULL, or one byte per
 * frame, 0 for hidden): a hidden frame's transform is not shown, and a tool that hides
 * frames by a zero scale (ganim's exports, through Blender) loses it, so the input cannot
 * say what it is. When every frame takes the original's, the channel is the original's
 * whole. */
static void keep_original(ganim_channel *n, const ganim_channel *o, const ganim_clip *old, const ganim_track *ot,
                          int comps, const uint8_t *hidden)
{
    static const float unit[4] = { 0, 0, 0, 1 };
    float ov[4];
    float *v = (float *)(uintptr_t)n->values; /* allocated by this put */
    uint32_t frames = n->kind == GANIM_CHANNEL_CONSTANT ? 1 : n->count, kept = 0;
    uint32_t limit = o->kind == GANIM_CHANNEL_CONSTANT || frames < old->frame_count ? frames : old->frame_count;
    for (uint32_t k = 0; k < limit; k++) {
        ganim_channel_eval(o, old->frame_count, ot->step, old->rotation_interp, comps, (double)k, unit, ov);
        if ((hidden && n->kind == GANIM_CHANNEL_PER_FRAME && !hidden[k]) ||
            close_to(v + (size_t)k * (size_t)comps, ov, comps)) {
            memcpy(v + (size_t)k * (size_t)comps, ov, (size_t)comps * sizeof *ov);
            kept++;
        }
    }
    int whole =
        o->kind == GANIM_CHANNEL_CONSTANT ? kept == frames : kept == old->frame_count && frames == old->frame_count;
    if (whole) *n = *o;
}

/* ---- one clip --------------------------------------------------------------------------- */

/* A keyed channel that comes back with the original's key times (a file whose keys are
 * not on every frame: the frames between keys are the clip's interpolation, which the
 * export may not carry) stays keyed at those times: each key takes the input's value, or
 * the original's bits when within the trip's rounding (the original's channel itself when
 * every key does). 0 when the times differ. */
static int keys_kept(ganim_doc *t, const ganim_channel *in, const ganim_channel *o, int comps, ganim_channel *out,
                     ganim_code *code, ganim_error *err)
{
    if (in->kind != GANIM_CHANNEL_KEYED || o->kind != GANIM_CHANNEL_KEYED || in->count != o->count) return 0;
    for (uint32_t k = 0; k < o->count; k++)
        if (!(fabs((double)in->times[k] - o->times[k]) <= 1e-3)) return 0;
    size_t n = (size_t)o->count * (size_t)comps;
    float *v = ganim_doc_alloc_array_raw(t, n, sizeof *v);
    if (!v) {
        *code = GANIM_NOMEM(err);
        return 1;
    }
    uint32_t kept = 0;
    for (uint32_t k = 0; k < o->count; k++) {
        const float *a = in->values + (size_t)k * (size_t)comps, *b = o->values + (size_t)k * (size_t)comps;
        int same = close_to(a, b, comps);
        kept += (uint32_t)same;
        memcpy(v + (size_t)k * (size_t)comps, same ? b : a, (size_t)comps * sizeof *v);
    }
    *out = *o;
    if (kept != o->count) out->values = v;
    *code = GANIM_OK;
    return 1;
}

/* ganim's exports write a hidden frame as a scale of 0 (GANIM_VIS_SCALE); a file that
 * lost ganim's marks on its way through another tool gives them back as such. Where the
 * original track has visibility and the input's has none but a scale, the frames whose
 * scale is 0 are the hidden ones: their visibility bytes (allocated in `t`) into *vis, and
 * NULL when the input has no scale to tell. */
static ganim_code hidden_by_scale(ganim_doc *t, const ganim_clip *in, const ganim_track *it, double ratio,
                                  uint32_t count, uint8_t **vis, ganim_error *err)
{
    *vis = NULL;
    if (it->visibility || it->scale.kind == GANIM_CHANNEL_ABSENT) return GANIM_OK;
    static const float one[3] = { 1, 1, 1 };
    ganim_channel s;
    ganim_code code = ganim_channel_retime(t, &it->scale, in->frame_count, it->step, in->rotation_interp, 3, one, ratio,
                                           count, 0, &s, err);
    if (code != GANIM_OK) return code;
    uint8_t *v = ganim_doc_alloc(t, count ? count : 1);
    if (!v) return GANIM_NOMEM(err);
    for (uint32_t k = 0; k < count; k++) {
        const float *x = s.values + (size_t)k * 3;
        v[k] = !(fabsf(x[0]) < 1e-6f && fabsf(x[1]) < 1e-6f && fabsf(x[2]) < 1e-6f);
    }
    *vis = v;
    return GANIM_OK;
}

/* The scale of hidden frames (0, what marked them) becomes the nearest visible frame's,
 * or the original's when every frame is hidden: the bone keeps its size while hidden. */
static void unhide_scale(ganim_channel *n, const uint8_t *vis, uint32_t count, const ganim_clip *old,
                         const ganim_track *ot)
{
    static const float one[3] = { 1, 1, 1 };
    float *v = (float *)(uintptr_t)n->values; /* allocated by this put */
    uint32_t frames = n->kind == GANIM_CHANNEL_CONSTANT ? 1 : n->kind == GANIM_CHANNEL_PER_FRAME ? count : 0;
    uint32_t first = NONE;
    for (uint32_t k = 0; k < count && first == NONE; k++)
        if (vis[k]) first = k;
    for (uint32_t k = 0; k < frames; k++) {
        if (first == NONE) {
            uint32_t f = k < old->frame_count ? k : old->frame_count - 1;
            ganim_channel_eval(&ot->scale, old->frame_count, ot->step, old->rotation_interp, 3, (double)f, one,
                               v + (size_t)k * 3);
        } else if (!vis[k] && n->kind == GANIM_CHANNEL_PER_FRAME) {
            memcpy(v + (size_t)k * 3, v + (size_t)(k < first ? first : k - 1) * 3, 3 * sizeof *v);
        }
    }
}

/* Clip `ci` of the target remade from input clip `in` (bone of each input track in
 * `bone_of`), `count` frames, output frame k at input frame k * ratio. */
static ganim_code put_one(put_ctx *c, uint32_t ci, const ganim_clip *in, const uint32_t *bone_of, double rate,
                          double ratio, uint32_t count, ganim_error *err)
{
    ganim_doc *t = c->target;
    const ganim_clip *old = &t->clips[ci];
    ganim_track *tracks = ganim_doc_alloc_array(t, old->track_count ? old->track_count : 1, sizeof *tracks);
    if (!tracks) return GANIM_NOMEM(err);
    double own_ratio = count > 1 ? (double)(old->frame_count - 1) / (double)(count - 1) : 1;
    for (uint32_t k = 0; k < old->track_count; k++) {
        const ganim_track *ot = &old->tracks[k];
        ganim_track *nt = &tracks[k];
        *nt = *ot;
        uint32_t found = NONE;
        for (uint32_t i = 0; i < in->track_count && found == NONE; i++)
            if (bone_of[i] == ot->bone) found = i;
        const char *bone = ot->bone < t->skeleton->bone_count ? t->skeleton->bones[ot->bone].name : ot->name;
        if (found == NONE)
            return ganim_fail(err, GANIM_ERR_MISMATCH, GANIM_NO_OFFSET,
                              "clip %u ('%s') animates bone %u ('%s'), which the input's clip '%s' does not", ci,
                              old->name, ot->bone, bone, in->name);
        const ganim_track *it = &in->tracks[found];
        const float *rest = NULL;
        ganim_transform r = ganim_transform_identity();
        if (c->src->skeleton && it->bone < c->src->skeleton->bone_count) r = c->src->skeleton->bones[it->bone].rest;
        uint8_t *vis = NULL;
        if (ot->visibility) {
            ganim_code code = hidden_by_scale(t, in, it, ratio, count, &vis, err);
            if (code != GANIM_OK) return code;
        }
        /* the input's hidden frames, in output frames (NULL: none known) */
        const uint8_t *hid = vis ? vis : ratio == 1 && count == in->frame_count ? it->visibility : NULL;
        const ganim_channel *ich[3] = { &it->rotation, &it->translation, &it->scale };
        const ganim_channel *och[3] = { &ot->rotation, &ot->translation, &ot->scale };
        ganim_channel *nch[3] = { &nt->rotation, &nt->translation, &nt->scale };
        static const char *const what[3] = { "rotation", "translation", "scale" };
        for (int ch = 0; ch < 3; ch++) {
            int comps = ch ? 3 : 4;
            rest = ch == 0 ? &r.rotation.x : ch == 1 ? &r.translation.x : &r.scale.x;
            if (och[ch]->kind == GANIM_CHANNEL_ABSENT) {
                if (channel_moves(ich[ch], comps) && !(ch == 2 && vis))
                    ganim_write_warn(c->wo, GANIM_WARN_EXPORT_LOSS,
                                     "clip %u ('%s'): the %s of bone '%s' moves in the input, but the original clip "
                                     "does not animate it: not written",
                                     ci, old->name, what[ch], bone);
                continue;
            }
            ganim_code kc = GANIM_OK;
            if (ratio == 1 && count == old->frame_count && keys_kept(t, ich[ch], och[ch], comps, nch[ch], &kc, err)) {
                if (kc != GANIM_OK) return kc;
                continue;
            }
            int constant = och[ch]->kind == GANIM_CHANNEL_CONSTANT && !channel_moves(ich[ch], comps);
            ganim_code code = ganim_channel_retime(t, ich[ch], in->frame_count, it->step, in->rotation_interp, comps,
                                                   rest, ratio, count, constant, nch[ch], err);
            if (code != GANIM_OK) return code;
            if (ch == 2 && vis) unhide_scale(nch[ch], vis, count, old, ot);
            if (rate == old->fps) keep_original(nch[ch], och[ch], old, ot, comps, hid);
        }
        /* visibility and step: the input's when it has them, else the original's,
         * stretched to the new length */
        ganim_code code = GANIM_OK;
        if (vis) nt->visibility = vis;
        else if (ot->visibility)
            code = it->visibility
                       ? ganim_bits_retime(t, it->visibility, in->frame_count, ratio, count, &nt->visibility, err)
                       : ganim_bits_retime(t, ot->visibility, old->frame_count, own_ratio, count, &nt->visibility, err);
        if (code == GANIM_OK && ot->step)
            code = it->step ? ganim_bits_retime(t, it->step, in->frame_count, ratio, count, &nt->step, err)
                            : ganim_bits_retime(t, ot->step, old->frame_count, own_ratio, count, &nt->step, err);
        if (code != GANIM_OK) return code;
    }
    ganim_clip nc = *old;
    nc.fps = rate;
    nc.frame_count = count;
    nc.tracks = tracks;
    return ganim_doc_set_clip(t, ci, &nc, err);
}

/* Input clip `si` into target clip `ci` (and its partner when `split`). */
static ganim_code put_clip(put_ctx *c, uint32_t si, uint32_t ci, int split, ganim_error *err)
{
    ganim_doc *t = c->target;
    const ganim_clip *in = &c->src->clips[si];
    uint32_t pi = split ? partner_of(t, ci) : NONE;
    const ganim_allocator *a = ganim_doc_allocator(t);
    size_t bytes = ((size_t)in->track_count + 1) * sizeof(uint32_t);
    uint32_t *bone_of = ganim_alloc(a, bytes);
    if (!bone_of) return GANIM_NOMEM(err);
    /* Bones are matched by comparing names, bone by bone: bounded, so that a hostile pair
     * of skeletons cannot take minutes (real skeletons have hundreds of bones at most). */
    uint64_t work = (uint64_t)in->track_count *
                    ((uint64_t)t->skeleton->bone_count * 4 + (c->src->skeleton ? c->src->skeleton->bone_count : 0));
    if (work > ((uint64_t)1 << 28)) {
        ganim_free(a, bone_of, bytes);
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "the input's clip '%s' has %u tracks and the original's skeleton %u bones: too many to "
                          "match by name",
                          in->name, in->track_count, t->skeleton->bone_count);
    }
    /* every moving input bone must be one of the original's */
    char missing[256] = "";
    size_t at = 0, miss = 0;
    for (uint32_t i = 0; i < in->track_count; i++) {
        const char *name = input_bone_name(c->src, &in->tracks[i]);
        uint32_t occurrence = 0, b = in->tracks[i].bone;
        const ganim_skeleton *isk = c->src->skeleton;
        if (isk && b < isk->bone_count && isk->bones[b].name[0])
            for (uint32_t k = 0; k < b; k++) occurrence += !strcmp(isk->bones[k].name, name);
        bone_of[i] = find_bone(c, name, occurrence);
        if (bone_of[i] == NONE && track_moves(&in->tracks[i])) {
            if (at + 60 < sizeof missing) {
                int n = snprintf(missing + at, sizeof missing - at, "%s'%.48s'", miss ? ", " : "", name);
                if (n > 0) at += (size_t)n;
            }
            miss++;
        }
    }
    ganim_code code = GANIM_OK;
    if (miss) {
        code = ganim_fail(err, GANIM_ERR_MISMATCH, GANIM_NO_OFFSET,
                          "the input's clip '%s' moves %zu bone%s the original's skeleton does not have: %s%s",
                          in->name, miss, miss == 1 ? "" : "s", missing, at + 60 >= sizeof missing ? ", ..." : "");
        goto done;
    }
    /* bones that move in the input and belong to neither clip are lost: say so */
    for (uint32_t i = 0; i < in->track_count; i++) {
        if (bone_of[i] == NONE || !track_moves(&in->tracks[i])) continue;
        int kept = 0;
        uint32_t clips[2] = { ci, pi };
        for (int k = 0; k < 2 && !kept; k++)
            for (uint32_t j = 0; clips[k] != NONE && j < t->clips[clips[k]].track_count && !kept; j++)
                kept = t->clips[clips[k]].tracks[j].bone == bone_of[i];
        if (!kept)
            ganim_write_warn(c->wo, GANIM_WARN_EXPORT_LOSS,
                             "bone '%s' moves in the input's clip '%s', but clip %u ('%s') of the original does not "
                             "animate it: not written",
                             t->skeleton->bones[bone_of[i]].name, in->name, ci, t->clips[ci].name);
    }
    /* the rate: the original clip's (or the caller's), over the input's duration; a clip
     * and its partner keep the ratio of their lengths */
    double rate = c->fps > 0 ? c->fps : c->fps < 0 ? in->fps : t->clips[ci].fps;
    if (!(rate > 0)) rate = in->fps;
    uint32_t count = ganim_retime_frames(in->frame_count, in->fps, rate);
    const ganim_limits *lim = ganim_doc_limits(t);
    if (count > lim->frames) {
        code = ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "the input's clip '%s' (%u frames at %g fps) is %u frames at %g fps, more than the limit "
                          "of %u",
                          in->name, in->frame_count, in->fps, count, rate, lim->frames);
        goto done;
    }
    double ratio = in->fps > 0 ? in->fps / rate : 1;
    uint32_t span = t->clips[ci].frame_count;
    if (pi != NONE && t->clips[pi].frame_count > span) span = t->clips[pi].frame_count;
    uint32_t targets[2] = { ci, pi };
    for (int k = 0; k < 2 && code == GANIM_OK; k++) {
        if (targets[k] == NONE) continue;
        uint32_t own = t->clips[targets[k]].frame_count, n = count;
        if (span > 1 && own != span && count > 1)
            n = (uint32_t)floor((double)(own - 1) * (double)(count - 1) / (double)(span - 1) + 0.5) + 1;
        code = put_one(c, targets[k], in, bone_of, rate, ratio, n, err);
    }
done:
    ganim_free(a, bone_of, bytes);
    return code;
}

/* ---- the document ------------------------------------------------------------------------ */

ganim_code ganim_doc_put(ganim_doc *target, const ganim_doc *input, const char *slot, double fps,
                         const ganim_write_opts *wo, ganim_error *err)
{
    if (!target->skeleton)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "the original has no skeleton to put clips on");
    put_ctx c;
    memset(&c, 0, sizeof c);
    c.target = target;
    c.wo = wo;
    c.fps = fps;
    ganim_doc *turned = NULL;
    if (input->axes != target->axes) {
        if (!(turned = ganim_doc_clone(input, err))) return err && err->code ? err->code : GANIM_ERR_NOMEM;
        ganim_doc_turn_axes(turned, target->axes);
    }
    c.src = turned ? turned : input;
    const ganim_allocator *a = ganim_doc_allocator(target);
    c.have_names = ganim_names_make(a, target->skeleton, NULL, 0, &c.names);
    uint8_t *taken = ganim_alloc(a, (size_t)target->clip_count + 1);
    ganim_code code = GANIM_OK;
    char list[400];
    if (!c.have_names || !taken) {
        code = GANIM_NOMEM(err);
        goto done;
    }
    memset(taken, 0, (size_t)target->clip_count + 1);
    uint32_t in_anims = 0, only_target = NONE;
    for (uint32_t i = 0; i < c.src->clip_count; i++) in_anims += c.src->clips[i].kind == GANIM_CLIP_ANIMATION;
    if (!in_anims) {
        code = ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "the input has no animation to put in");
        goto done;
    }
    if ((uint64_t)in_anims * target->clip_count > ((uint64_t)1 << 26)) { /* names compared pair by pair */
        code = ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "%u animations into %u clips: too many to match by name", in_anims, target->clip_count);
        goto done;
    }
    list_clips(target, list, sizeof list);
    if (slot) {
        uint32_t ci, only_in = NONE;
        /* a clip read with the partner it plays with (ganim's glb, extras.ganim) is one
         * animation: the partner goes where the original's pairing puts it */
        uint8_t *flags = ganim_alloc(a, (size_t)c.src->clip_count + 1);
        if (!flags) {
            code = GANIM_NOMEM(err);
            goto done;
        }
        uint32_t mains = main_animations(c.src, flags, &only_in);
        ganim_free(a, flags, (size_t)c.src->clip_count + 1);
        if (mains != 1) {
            code = ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "a slot takes one animation; the input has %u (pick one with --clip)", mains);
            goto done;
        }
        if ((code = ganim_doc_find_clip(target, slot, &ci, err)) != GANIM_OK) goto done;
        if (target->clips[ci].kind != GANIM_CLIP_ANIMATION) {
            code = ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "clip %u of the original is an opaque slot, not an animation (animations: %s)", ci, list);
            goto done;
        }
        uint32_t in_partner = partner_of(c.src, only_in), t_partner = partner_of(target, ci);
        if (in_partner == NONE) {
            code = put_clip(&c, only_in, ci, t_partner != NONE, err);
        } else {
            code = put_clip(&c, only_in, ci, 0, err);
            if (code == GANIM_OK && t_partner != NONE) code = put_clip(&c, in_partner, t_partner, 0, err);
            else if (code == GANIM_OK)
                ganim_write_warn(wo, GANIM_WARN_EXPORT_LOSS,
                                 "the input's clip '%s' plays with '%s', but clip %u ('%s') of the original has no "
                                 "clip it plays with: '%s' is not written",
                                 c.src->clips[only_in].name, c.src->clips[in_partner].name, ci, target->clips[ci].name,
                                 c.src->clips[in_partner].name);
        }
        goto done;
    }
    int one_each = in_anims == 1 && main_animations(target, taken, &only_target) == 1;
    memset(taken, 0, (size_t)target->clip_count + 1);
    for (uint32_t i = 0; i < c.src->clip_count && code == GANIM_OK; i++) {
        if (c.src->clips[i].kind != GANIM_CLIP_ANIMATION) continue;
        int split = 0;
        uint32_t ci = match_name(target, c.src->clips[i].name, &split);
        if (ci == NONE && one_each) {
            ci = only_target;
            split = partner_of(target, ci) != NONE;
        }
        if (ci == NONE) {
            code = ganim_fail(err, GANIM_ERR_MISMATCH, GANIM_NO_OFFSET,
                              "the input's clip %u ('%s') names no clip of the original (%s): name it as the export "
                              "did, or say where it goes with --slot",
                              i, c.src->clips[i].name, list);
            break;
        }
        uint32_t p = split ? partner_of(target, ci) : NONE;
        if (taken[ci] || (p != NONE && taken[p])) {
            code =
                ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                           "two clips of the input go into clip %u ('%s') of the original", ci, target->clips[ci].name);
            break;
        }
        taken[ci] = 1;
        if (p != NONE) taken[p] = 1;
        code = put_clip(&c, i, ci, split, err);
    }
done:
    if (c.have_names) ganim_names_free(a, &c.names);
    ganim_free(a, taken, (size_t)target->clip_count + 1);
    ganim_doc_free(turned);
    return code;
}
