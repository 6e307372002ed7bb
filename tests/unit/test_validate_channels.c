/* ganim_doc_validate's tracks (its one pass without messages, tracks_plain, and the
 * track-by-track loop that names the first failure) against a track-by-track reference
 * written here: clips of 1 to 40 tracks over skeletons of 1 to 70 bones, channels of
 * every kind (absent, constant, per frame, keyed), with zero to three faults planted
 * at random (a bone outside the skeleton or animated twice, an unknown kind, a count
 * that does not fit, values or times missing, times not increasing or not finite, more
 * keys than the limit, a rotation off unit length, a vector value not finite), with and
 * without the reader's vouches: the same code and the same message every time. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "support/tbuild.h"
#include "test.h"

static uint32_t next(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

static int ref_channel(const ganim_channel *ch, uint32_t frames, uint32_t ci, uint32_t ti, const char *what, int comps,
                       uint32_t keys, int vouched, char *msg, size_t room)
{
    switch (ch->kind) {
    case GANIM_CHANNEL_ABSENT: return 0;
    case GANIM_CHANNEL_CONSTANT:
        if (ch->count != 1 || !ch->values) goto bad;
        break;
    case GANIM_CHANNEL_PER_FRAME:
        if (ch->count != frames || !ch->values) goto bad;
        break;
    case GANIM_CHANNEL_KEYED:
        if (ch->count == 0 || !ch->values || !ch->times) goto bad;
        if (ch->count > keys) {
            snprintf(msg, room, "clip %u track %u: %s has %u keys, more than the limit of %u (ganim_limits.keys)", ci,
                     ti, what, ch->count, keys);
            return GANIM_ERR_LIMIT;
        }
        for (uint32_t k = 0; k < ch->count; k++)
            if (!isfinite(ch->times[k]) || (k && !(ch->times[k] > ch->times[k - 1]))) goto bad;
        break;
    default: goto bad;
    }
    if (vouched) return 0;
    for (uint32_t k = 0; k < ch->count; k++) {
        const float *v = ch->values + (size_t)k * (size_t)comps;
        if (comps == 4) {
            float len2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3];
            if (!(len2 >= 0.998001f && len2 <= 1.002001f)) {
                snprintf(msg, room, "clip %u track %u: rotation %u is not a unit quaternion (%g %g %g %g)", ci, ti, k,
                         (double)v[0], (double)v[1], (double)v[2], (double)v[3]);
                return GANIM_ERR_CORRUPT;
            }
        } else {
            for (int c = 0; c < comps; c++)
                if (!isfinite(v[c])) {
                    snprintf(msg, room, "clip %u track %u: %s has a value that is not a finite number", ci, ti, what);
                    return GANIM_ERR_CORRUPT;
                }
        }
    }
    return 0;
bad:
    snprintf(msg, room, "clip %u track %u: %s channel is inconsistent", ci, ti, what);
    return GANIM_ERR_CORRUPT;
}

static int ref_tracks(const ganim_clip *c, uint32_t nb, uint32_t keys, int vr, int vv, char *msg, size_t room)
{
    for (uint32_t ti = 0; ti < c->track_count; ti++) {
        const ganim_track *t = &c->tracks[ti];
        if (t->bone >= nb) {
            snprintf(msg, room, "clip 0 track %u: bone %u is not in the skeleton", ti, t->bone);
            return GANIM_ERR_CORRUPT;
        }
        for (uint32_t tj = 0; tj < ti; tj++)
            if (c->tracks[tj].bone == t->bone) {
                snprintf(msg, room, "clip 0: two tracks animate bone %u", t->bone);
                return GANIM_ERR_CORRUPT;
            }
        int rc;
        if ((rc = ref_channel(&t->rotation, c->frame_count, 0, ti, "rotation", 4, keys, vr, msg, room)) != 0 ||
            (rc = ref_channel(&t->translation, c->frame_count, 0, ti, "translation", 3, keys, vv, msg, room)) != 0 ||
            (rc = ref_channel(&t->scale, c->frame_count, 0, ti, "scale", 3, keys, vv, msg, room)) != 0)
            return rc;
    }
    return 0;
}

/* A channel of a random kind for `frames` frames in `pool` (values and times). */
static ganim_channel random_channel(uint32_t *seed, uint32_t frames, int comps, float *pool, float *times)
{
    ganim_channel ch = { GANIM_CHANNEL_ABSENT, 0, NULL, NULL };
    uint32_t kind = next(seed) % 4u, n = kind == 1 ? 1u : kind == 2 ? frames : 1u + next(seed) % 6u;
    if (kind == 0) return ch;
    for (uint32_t k = 0; k < n; k++) {
        float *v = pool + (size_t)k * (size_t)comps;
        if (comps == 4) {
            float a = (float)(next(seed) % 628u) * 0.01f;
            v[0] = sinf(a * 0.5f), v[1] = 0.0f, v[2] = 0.0f, v[3] = cosf(a * 0.5f);
        } else {
            for (int c = 0; c < comps; c++) v[c] = (float)(next(seed) % 2001u) - 1000.0f;
        }
        times[k] = (float)k * 1.5f + 0.25f;
    }
    ch.kind = (ganim_channel_kind)kind;
    ch.count = n;
    ch.values = pool;
    ch.times = kind == 3 ? times : NULL;
    return ch;
}

TEST(tracks_as_one_by_one)
{
    uint32_t seed = 4242u, failures = 0, refused = 0, rounds = 6000;
    static float pool[40][3][64 * 4];
    static float times[40][3][64];
    for (uint32_t round = 0; round < rounds && failures < 5; round++) {
        uint32_t nb = 1u + next(&seed) % 70u, nt = 1u + next(&seed) % (nb < 40u ? nb : 40u);
        uint32_t frames = 1u + next(&seed) % 12u;
        ganim_doc *doc = tb_doc(nb, NULL);
        uint32_t ci = tb_clip(doc, "c", 30, frames);
        int ok = 1;
        uint32_t start = next(&seed) % nb;
        for (uint32_t t = 0; ok && t < nt; t++) {
            ganim_track tr = { 0 };
            tr.bone = (start + t) % nb; /* distinct: nt <= nb */
            tr.rotation = random_channel(&seed, frames, 4, pool[t][0], times[t][0]);
            tr.translation = random_channel(&seed, frames, 3, pool[t][1], times[t][1]);
            tr.scale = random_channel(&seed, frames, 3, pool[t][2], times[t][2]);
            ok = ganim_doc_add_track(doc, ci, &tr, NULL, NULL) == GANIM_OK;
        }
        if (!ok) {
            CHECK_MSG(0, "round %u: document not built", round);
            ganim_doc_free(doc);
            return;
        }
        ganim_clip *c = (ganim_clip *)(uintptr_t)&doc->clips[0];
        ganim_track *tr = (ganim_track *)(uintptr_t)c->tracks;
        uint32_t built[40][3]; /* each channel's count as built: its arrays' length */
        for (uint32_t t = 0; t < nt; t++)
            built[t][0] = tr[t].rotation.count, built[t][1] = tr[t].translation.count, built[t][2] = tr[t].scale.count;
        uint32_t faults = next(&seed) % 4u;
        for (uint32_t f = 0; f < faults; f++) {
            uint32_t ti = next(&seed) % nt;
            ganim_track *t = &tr[ti];
            ganim_channel *chs[3] = { &t->rotation, &t->translation, &t->scale };
            uint32_t which = next(&seed) % 3u;
            ganim_channel *ch = chs[which];
            const uint32_t n = built[ti][which] ? built[ti][which] : 1u; /* values there (the pool's for absent) */
            float *v = (float *)(uintptr_t)ch->values;
            float *tm = (float *)(uintptr_t)ch->times;
            switch (next(&seed) % 12u) {
            case 0: t->bone = nb + next(&seed) % 3u; break;
            case 1: t->bone = tr[next(&seed) % nt].bone; break;
            case 2: ch->kind = (ganim_channel_kind)(4u + next(&seed) % 3u); break;
            case 3: /* a keyed one only shorter: its arrays end at its count */
                ch->count += ch->kind != GANIM_CHANNEL_KEYED && next(&seed) % 2u ? 1u : ~0u;
                break;
            case 4:
                if (ch->kind != GANIM_CHANNEL_ABSENT) ch->values = NULL;
                break;
            case 5:
                if (tm) ch->times = next(&seed) % 2u ? NULL : tm;
                break;
            case 6:
                if (tm && n > 1) tm[1u + next(&seed) % (n - 1u)] = tm[0]; /* not increasing */
                break;
            case 7:
                if (tm) tm[next(&seed) % n] = next(&seed) % 2u ? NAN : INFINITY;
                break;
            case 8:
                if (v && which == 0) v[next(&seed) % (n * 4u)] *= 1.0011f; /* just off unit length */
                break;
            case 9:
                if (v && which) v[next(&seed) % (n * 3u)] = next(&seed) % 2u ? NAN : -INFINITY;
                break;
            case 10:
                if (v && which == 0) v[next(&seed) % (n * 4u)] = NAN;
                break;
            default: ch->kind = GANIM_CHANNEL_ABSENT; break; /* fine: absent takes anything */
            }
        }
        ganim_limits lim = ganim_limits_resolve(NULL);
        if (next(&seed) % 4u == 0) lim.keys = 1u + next(&seed) % 6u;
        ganim_doc_set_limits(doc, &lim);
        int vr = (int)(next(&seed) % 2u), vv = (int)(next(&seed) % 2u);
        if (vr) ganim_doc_vouch_rotations(doc);
        if (vv) ganim_doc_vouch_vectors(doc);
        char want[300] = "";
        int expect = ref_tracks(c, nb, lim.keys, vr, vv, want, sizeof want);
        ganim_error err = { 0 };
        ganim_code rc = ganim_doc_validate(doc, &err);
        refused += rc != GANIM_OK;
        if (rc != (ganim_code)expect || (expect && strcmp(err.message, want) != 0)) {
            CHECK_MSG(0, "round %u (%u tracks, %u bones, vouched %d %d): validate %d \"%s\", the reference %d \"%s\"",
                      round, nt, nb, vr, vv, (int)rc, err.message, expect, want);
            failures++;
        }
        ganim_doc_free(doc);
    }
    CHECK_MSG(refused > rounds / 4 && refused < rounds * 3 / 4, "%u of %u refused", refused, rounds);
}

int main(void)
{
    test_program_name = "test_validate_channels";
    RUN(tracks_as_one_by_one);
    return test_finish();
}
