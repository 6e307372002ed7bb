/* ganim_doc_validate: every invariant of the model, checked on every reader's output. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/internal.h"

/* Both checks run without early exits so the compiler can vectorise them; callers
 * look for the offending value only when a check fails. */
static int finite_all(const float *v, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    /* infinite or NaN <=> exponent bits all ones: eight floats in six operations (the
     * float comparison below takes about two per float) */
    const __m128i expo = _mm_set1_epi32(0x7F800000);
    __m128i bad = _mm_setzero_si128();
    for (; i + 8u <= n; i += 8u) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(v + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(v + i + 4));
        bad = _mm_or_si128(bad, _mm_cmpeq_epi32(_mm_and_si128(a, expo), expo));
        bad = _mm_or_si128(bad, _mm_cmpeq_epi32(_mm_and_si128(b, expo), expo));
    }
    if (n - i >= 4u) { /* four more (a constant rotation, most channels' tails) */
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(v + i));
        bad = _mm_or_si128(bad, _mm_cmpeq_epi32(_mm_and_si128(a, expo), expo));
        i += 4u;
    }
    if (_mm_movemask_epi8(bad)) return 0;
#endif
    int ok = 1;
    for (; i < n; i++) ok &= fabsf(v[i]) <= FLT_MAX; /* false for NaN too */
    return ok;
}

/* |length - 1| <= 1e-3  <=>  length^2 within [0.998001, 1.002001]; NaN and infinities
 * fail the comparison too, so one test covers finiteness. */
static int unit_quat(const float *q)
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    return len2 >= GANIM_UNIT_LEN2_MIN && len2 <= GANIM_UNIT_LEN2_MAX;
}

static GANIM_OUT_OF_LINE int unit_quats(const float *q, size_t n)
{
    int ok = 1;
    for (size_t k = 0; k < n; k++) {
        const float *p = q + k * 4;
        float len2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3];
        ok &= (len2 >= GANIM_UNIT_LEN2_MIN) & (len2 <= GANIM_UNIT_LEN2_MAX);
    }
    return ok;
}

/* bones_plain's three 16-byte loads take the rest pose as ten floats in a row. */
_Static_assert(offsetof(ganim_transform, translation) == 4 * sizeof(float) &&
                   offsetof(ganim_transform, scale) == 7 * sizeof(float) &&
                   sizeof(ganim_transform) == 10 * sizeof(float),
               "ganim_transform is ten floats in a row");

/* Every bone's name set, parent an earlier bone or -1, rest pose finite and rotation of
 * unit length, in one pass without early exits (the checks of ganim_doc_validate's loop,
 * which runs only when this fails, to name the first bad bone). */
static int bones_plain(const ganim_bone *bones, uint32_t n)
{
    int ok = 1;
#if defined(__SSE2__)
    const __m128i expo = _mm_set1_epi32(0x7F800000);
    __m128i bad = _mm_setzero_si128();
#endif
    for (uint32_t i = 0; i < n; i++) {
        const ganim_bone *b = &bones[i];
        const float *q = &b->rest.rotation.x;
        ok &= (b->name != NULL) & (b->parent >= -1) & (b->parent < (int32_t)i) & unit_quat(q);
#if defined(__SSE2__)
        /* the ten floats: rotation, translation and the scale (from translation.z on) */
        __m128i r = _mm_loadu_si128((const __m128i *)(const void *)q);
        __m128i t = _mm_loadu_si128((const __m128i *)(const void *)&b->rest.translation.x);
        __m128i u = _mm_loadu_si128((const __m128i *)(const void *)&b->rest.translation.z);
        bad = _mm_or_si128(bad, _mm_cmpeq_epi32(_mm_and_si128(r, expo), expo));
        bad = _mm_or_si128(bad, _mm_cmpeq_epi32(_mm_and_si128(t, expo), expo));
        bad = _mm_or_si128(bad, _mm_cmpeq_epi32(_mm_and_si128(u, expo), expo));
#else
        ok &= finite_all(q, 4) & finite_all(&b->rest.translation.x, 3) & finite_all(&b->rest.scale.x, 3);
#endif
    }
#if defined(__SSE2__)
    ok &= _mm_movemask_epi8(bad) == 0;
#endif
    return ok;
}

static ganim_code check_channel(const ganim_channel *ch, const ganim_clip *clip, uint32_t ci, uint32_t ti,
                                const char *what, int comps, const ganim_limits *lim, int vouched, ganim_error *err)
{
    switch (ch->kind) {
    case GANIM_CHANNEL_ABSENT: return GANIM_OK;
    case GANIM_CHANNEL_CONSTANT:
        if (ch->count != 1 || !ch->values) goto bad;
        break;
    case GANIM_CHANNEL_PER_FRAME:
        if (ch->count != clip->frame_count || !ch->values) goto bad;
        break;
    case GANIM_CHANNEL_KEYED:
        if (ch->count == 0 || !ch->values || !ch->times) goto bad;
        if (ch->count > lim->keys)
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              "clip %u track %u: %s has %u keys, more than the limit of %u (ganim_limits.keys)", ci, ti,
                              what, ch->count, lim->keys);
        for (uint32_t k = 0; k < ch->count; k++) {
            if (!isfinite(ch->times[k]) || (k && !(ch->times[k] > ch->times[k - 1]))) goto bad;
        }
        break;
    default: goto bad;
    }
    if (comps == 4) {
        if (vouched || unit_quats(ch->values, ch->count)) return GANIM_OK; /* ganim_doc_vouch_rotations */
        for (uint32_t k = 0; k < ch->count; k++) {
            const float *q = ch->values + (size_t)k * 4;
            if (!unit_quat(q)) {
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                                  "clip %u track %u: rotation %u is not a unit quaternion (%g %g %g %g)", ci, ti, k,
                                  (double)q[0], (double)q[1], (double)q[2], (double)q[3]);
            }
        }
    } else if (!vouched && !finite_all(ch->values, (size_t)ch->count * (size_t)comps)) { /* ganim_doc_vouch_vectors */
        return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                          "clip %u track %u: %s has a value that is not a finite number", ci, ti, what);
    }
    return GANIM_OK;
bad:
    return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u track %u: %s channel is inconsistent", ci, ti,
                      what);
}

/* A keyed channel (or a channel of no known kind: 0) as check_channel wants it, without
 * its messages (tracks_plain's rare case, out of its loop). */
static GANIM_OUT_OF_LINE int keyed_plain(const ganim_channel *ch, const ganim_limits *lim)
{
    const uint32_t n = ch->count;
    const float *t = ch->times;
    if (ch->kind != GANIM_CHANNEL_KEYED || n == 0 || !ch->values || !t || n > lim->keys) return 0;
    int ok = 1;
    for (uint32_t k = 0; k < n; k++) ok &= isfinite(t[k]) && (k == 0 || t[k] > t[k - 1]);
    return ok;
}

/* A channel's values as check_channel checks them (unit rotations, finite vectors). */
static GANIM_ALWAYS_INLINE int values_plain(const ganim_channel *ch, int comps)
{
    return comps == 4 ? unit_quats(ch->values, ch->count) : finite_all(ch->values, (size_t)ch->count * (size_t)comps);
}

/* check_channel without its messages: 1 when it would return GANIM_OK. */
static GANIM_ALWAYS_INLINE int channel_plain(const ganim_channel *ch, uint32_t frames, int comps,
                                             const ganim_limits *lim, int vouched)
{
    const ganim_channel_kind kind = ch->kind;
    if (kind == GANIM_CHANNEL_ABSENT) return 1;
    if (kind == GANIM_CHANNEL_PER_FRAME) {
        if (ch->count != frames || !ch->values) return 0;
    } else if (kind == GANIM_CHANNEL_CONSTANT) {
        if (ch->count != 1 || !ch->values) return 0;
    } else if (!keyed_plain(ch, lim)) {
        return 0;
    }
    return vouched || values_plain(ch, comps);
}

/* 1 when every track of `c` passes the track loop of tracks_checked (each bone in the
 * skeleton and animated once, each channel as check_channel wants it), found without a
 * message and with nothing but the checks in the loop; 0 when one does not, or the
 * skeleton has over 4,096 bones: tracks_checked then names the first failure. */
static GANIM_ALWAYS_INLINE int tracks_plain(const ganim_clip *c, const ganim_skeleton *s, const ganim_limits *lim,
                                            int vouched, int vectors_vouched)
{
    const uint32_t nt = c->track_count;
    if (!nt) return 1;
    if (!s || s->bone_count > 64u * 64u) return 0;
    const uint32_t nb = s->bone_count, frames = c->frame_count;
    const ganim_track *tracks = c->tracks;
    uint64_t seen[64];
    for (uint32_t w = 0; w < (nb + 63u) / 64u; w++) seen[w] = 0; /* most skeletons: one word, no memset call */
    for (uint32_t ti = 0; ti < nt; ti++) {
        const ganim_track *t = &tracks[ti];
        const uint32_t b = t->bone;
        if (b >= nb) return 0;
        const uint64_t m = 1ull << (b % 64u);
        if (seen[b / 64u] & m) return 0;
        seen[b / 64u] |= m;
        if (!channel_plain(&t->rotation, frames, 4, lim, vouched) ||
            !channel_plain(&t->translation, frames, 3, lim, vectors_vouched) ||
            !channel_plain(&t->scale, frames, 3, lim, vectors_vouched))
            return 0;
    }
    return 1;
}

/* The track loop, to name the first failure when tracks_plain finds one. */
static ganim_code tracks_checked(const ganim_clip *c, uint32_t ci, const ganim_skeleton *s, const ganim_limits *lim,
                                 int vouched, int vectors_vouched, ganim_error *err)
{
    /* bones animated by earlier tracks: a bit each for skeletons of up to 4096 bones
     * (the search among earlier tracks, quadratic in tracks, cost more than the
     * channels' own checks on short clips), that search beyond */
    uint64_t seen[64];
    int bits = s && s->bone_count <= 64u * 64u;
    if (bits) memset(seen, 0, ((s->bone_count + 63u) / 64u) * sizeof seen[0]);
    for (uint32_t ti = 0; ti < c->track_count; ti++) {
        const ganim_track *t = &c->tracks[ti];
        if (!s || t->bone >= s->bone_count) {
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                              "clip %u track %u: bone %u is not in the skeleton", ci, ti, t->bone);
        }
        int twice = 0;
        if (bits) {
            uint64_t m = 1ull << (t->bone % 64u);
            twice = (seen[t->bone / 64u] & m) != 0;
            seen[t->bone / 64u] |= m;
        } else {
            for (uint32_t tj = 0; tj < ti && !twice; tj++) twice = c->tracks[tj].bone == t->bone;
        }
        if (twice)
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u: two tracks animate bone %u", ci,
                              t->bone);
        ganim_code code;
        if ((code = check_channel(&t->rotation, c, ci, ti, "rotation", 4, lim, vouched, err)) != GANIM_OK) return code;
        if ((code = check_channel(&t->translation, c, ci, ti, "translation", 3, lim, vectors_vouched, err)) != GANIM_OK)
            return code;
        if ((code = check_channel(&t->scale, c, ci, ti, "scale", 3, lim, vectors_vouched, err)) != GANIM_OK)
            return code;
    }
    return GANIM_OK;
}

ganim_code ganim_doc_validate(const ganim_doc *doc, ganim_error *err)
{
    if (!doc) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "no document");
    const ganim_skeleton *s = doc->skeleton;
    const ganim_limits *lim = ganim_doc_limits(doc);
    int vouched = ganim_doc_rotations_vouched(doc), vectors_vouched = ganim_doc_vectors_vouched(doc);
    if (s && s->bone_count > lim->bones)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "the skeleton has %u bones, more than the limit of %u (ganim_limits.bones)", s->bone_count,
                          lim->bones);
    if (doc->clip_count > lim->clips)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "the document has %u clips, more than the limit of %u (ganim_limits.clips)", doc->clip_count,
                          lim->clips);
    if (s) {
        if (s->bone_count && !s->bones)
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "skeleton without bones");
        int plain = bones_plain(s->bones, s->bone_count);
        for (uint32_t i = 0; !plain && i < s->bone_count; i++) {
            const ganim_bone *b = &s->bones[i];
            if (!b->name || b->parent < -1 || b->parent >= (int32_t)i) {
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "bone %u: parent %d is not an earlier bone",
                                  i, (int)b->parent);
            }
            const float *q = &b->rest.rotation.x;
            if (!finite_all(q, 4) || !finite_all(&b->rest.translation.x, 3) || !finite_all(&b->rest.scale.x, 3)) {
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "bone %u: rest pose is not finite", i);
            }
            if (!unit_quat(q)) {
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                                  "bone %u: rest rotation is not a unit quaternion", i);
            }
        }
    }
    if (doc->mesh_count && !doc->meshes) return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "meshes missing");
    for (uint32_t mi = 0; mi < doc->mesh_count; mi++) {
        const ganim_mesh *m = &doc->meshes[mi];
        if (!m->name || (m->vertex_count && (!m->positions || !m->bones)) || (m->triangle_count && !m->triangles))
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "mesh %u: arrays missing", mi);
        if (!s && m->vertex_count)
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "mesh %u: no skeleton for its bones", mi);
        if (!finite_all(m->positions, (size_t)m->vertex_count * 3) ||
            (m->normals && !finite_all(m->normals, (size_t)m->vertex_count * 3)))
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "mesh %u: a position or normal is not finite",
                              mi);
        for (uint32_t v = 0; v < m->vertex_count; v++)
            if (m->bones[v] >= s->bone_count)
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                                  "mesh %u: vertex %u follows bone %u, not in the skeleton", mi, v, m->bones[v]);
        for (size_t k = 0; k < (size_t)m->triangle_count * 3; k++)
            if (m->triangles[k] >= m->vertex_count)
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "mesh %u: triangle %zu uses vertex %u of %u",
                                  mi, k / 3, m->triangles[k], m->vertex_count);
    }
    if (doc->clip_count && !doc->clips) return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clips missing");
    for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
        const ganim_clip *c = &doc->clips[ci];
        if (!c->name) return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u has no name", ci);
        if (c->kind == GANIM_CLIP_OPAQUE) {
            if (c->opaque_size && !c->opaque)
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u: bytes missing", ci);
            continue;
        }
        if (!(c->fps >= GANIM_MIN_FPS && c->fps <= GANIM_MAX_FPS)) { /* also NaN */
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                              "clip %u: frame rate %g is outside %g..%g frames per second", ci, c->fps, GANIM_MIN_FPS,
                              GANIM_MAX_FPS);
        }
        if (c->frame_count == 0)
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u has no frames", ci);
        /* Exporters sample every frame of every bone: a file that announces billions of
         * frames without data for them must not make them spin. */
        uint64_t samples = (uint64_t)c->frame_count * (s && s->bone_count ? s->bone_count : 1);
        if (c->frame_count > lim->frames || samples > lim->samples) {
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              "clip %u: %u frames of %u bones is more than the limits of %u frames "
                              "(ganim_limits.frames) and %llu bone-frames (ganim_limits.samples)",
                              ci, c->frame_count, s ? s->bone_count : 0, lim->frames, (unsigned long long)lim->samples);
        }
        if (c->track_count && !c->tracks)
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u: tracks missing", ci);
        if (c->event_count && !c->events)
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u: events missing", ci);
        for (uint32_t k = 0; k < c->event_count; k++)
            if (!(c->events[k].frame >= 0.0f && c->events[k].frame <= 16777216.0f)) /* also NaN */
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                                  "clip %u: event %u is at frame %g, outside 0..2^24", ci, k,
                                  (double)c->events[k].frame);
        if (!tracks_plain(c, s, lim, vouched, vectors_vouched)) {
            ganim_code code = tracks_checked(c, ci, s, lim, vouched, vectors_vouched, err);
            if (code != GANIM_OK) return code;
        }
        if (c->partner) { /* an animation without a partner of its own */
            uint32_t p = c->partner - 1;
            if (p >= doc->clip_count || p == ci || doc->clips[p].kind != GANIM_CLIP_ANIMATION ||
                doc->clips[p].partner) {
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                                  "clip %u: its partner %u is not another animation without a partner of its own", ci,
                                  c->partner - 1);
            }
        }
    }
    return GANIM_OK;
}
