/* FF7 battle packs and the model: which bone each rotation slot drives, a clip's
 * tracks from its raw integers, and a clip's raw integers back from the model. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/ff7/ff7.h"

static int32_t find_bone(const ganim_skeleton *sk, const char *name)
{
    if (!sk) return -1;
    for (uint32_t i = sk->bone_count; i-- > 0;)
        if (sk->bones[i].name && strcmp(sk->bones[i].name, name) == 0) return (int32_t)i;
    return -1;
}

int32_t ff7_slot_bone(const ganim_doc *doc, int role, uint32_t slot)
{
    const ganim_skeleton *sk = doc->skeleton;
    if (!sk) return role == FF7_ROLE_WEAPON ? (slot ? -1 : 0) : (int32_t)slot;
    if (sk->bone_count == 0) return -1;
    if (role == FF7_ROLE_WEAPON) {
        if (slot != 0) return -1;
        int32_t w = find_bone(sk, "weapon");
        return w >= 0 ? w : 0;
    }
    return slot < sk->bone_count ? (int32_t)slot : -1;
}

int32_t ff7_pos_bone(const ganim_doc *doc, int role) { return ff7_slot_bone(doc, role, 0); }

ganim_code ff7_clip_fill(ganim_doc *doc, ganim_clip *clip, const ff7_clip_info *in, ganim_error *err)
{
    const ganim_skeleton *sk = doc->skeleton;
    uint32_t nb = sk ? sk->bone_count : 0;
    uint32_t frames = in->frames;
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->frame_count = frames;
    clip->rotation_interp = GANIM_INTERP_SLERP;
    clip->native_format = "ff7-battle";
    clip->native = in->record;
    clip->native_size = in->record_size;
    clip->tracks = NULL;
    clip->track_count = 0;
    if (nb == 0) return GANIM_OK;
    /* Which bone each slot drives (ff7_slot_bone with a skeleton of nb > 0 bones): a
     * weapon's slot 0 its weapon bone (or bone 0), a body's slot s bone s below nb; the
     * position's bone pb is slot 0's, so it is a driven bone or, with no slot (never
     * after ff7_clip_info_parse), a track of its own. */
    uint32_t pb = (uint32_t)ff7_slot_bone(doc, in->role, 0); /* >= 0 with nb > 0 */
    uint32_t driven = in->role == FF7_ROLE_WEAPON ? (in->slots ? 1u : 0u) : (in->slots < nb ? in->slots : nb);
    uint32_t count = driven ? driven : 1u;
    /* One allocation for the clip's tracks and values, the bytes the separate ones took
     * (each rounded up to 16: ganim_doc_room, as fill_bytes in ff7_pack_read.c counts
     * them): the tracks, a quaternion a frame of each driven bone, a position a frame. */
    size_t rot_bytes, all;
    size_t head = (size_t)ganim_doc_room((uint64_t)count * sizeof(ganim_track));
    size_t pos_bytes = (size_t)ganim_doc_room((uint64_t)frames * 12u);
    if (!ganim_mul_size((size_t)driven, (size_t)frames * 16u, &rot_bytes) || !ganim_add_size(head, rot_bytes, &all) ||
        !ganim_add_size(all, pos_bytes, &all))
        return GANIM_NOMEM(err);
    uint8_t *block = ganim_doc_alloc_array_raw(doc, all, 1); /* every byte written below but the rounding's */
    if (!block) return GANIM_NOMEM(err);
    ganim_track *tracks = (ganim_track *)(void *)block;
    float *rv = (float *)(void *)(block + head);
    float *pv = (float *)(void *)(block + head + rot_bytes);
    size_t per = (size_t)in->slots * 3u;
    /* the driven slots' quaternions, slot t's (bone first + t's) at rv + 4 frames t */
    ff7_slots_rotations(in->rot, per * 2u, frames, driven, rv);
    /* the tracks in bone order: a body's bones 0..count-1 (slot s drives bone s, the
     * position bone 0), a weapon's one bone */
    uint32_t first = in->role == FF7_ROLE_WEAPON ? pb : 0u;
    for (uint32_t t = 0; t < count; t++) {
        ganim_track *tr = &tracks[t];
        uint32_t i = first + t;
        memset(tr, 0, sizeof *tr);
        tr->bone = i;
        tr->name = sk->bones[i].name ? sk->bones[i].name : "";
        if (t < driven) { /* slot t */
            tr->rotation.kind = GANIM_CHANNEL_PER_FRAME;
            tr->rotation.count = frames;
            tr->rotation.values = rv;
            rv += (size_t)frames * 4u;
        }
        if (i == pb) {
            for (size_t k = 0; k < (size_t)frames * 3u; k++) pv[k] = (float)ff7_info_pos(in, k);
            tr->translation.kind = GANIM_CHANNEL_PER_FRAME;
            tr->translation.count = frames;
            tr->translation.values = pv;
        }
    }
    clip->tracks = tracks;
    clip->track_count = count;
    return GANIM_OK;
}

int ff7_guess_role(const ganim_doc *doc, const ganim_clip *clip)
{
    const ganim_skeleton *sk = doc->skeleton;
    if (!sk || clip->track_count == 0) return FF7_ROLE_BODY;
    int32_t w = ff7_slot_bone(doc, FF7_ROLE_WEAPON, 0);
    if (w <= 0 || !sk->bones[w].name || strcmp(sk->bones[w].name, "weapon") != 0) return FF7_ROLE_BODY;
    for (uint32_t i = 0; i < clip->track_count; i++)
        if ((int32_t)clip->tracks[i].bone != w) return FF7_ROLE_BODY;
    return FF7_ROLE_WEAPON;
}

int32_t ff7_weapon_bone(const ganim_doc *doc)
{
    const ganim_skeleton *sk = doc->skeleton;
    if (!sk || sk->bone_count < 2) return -1;
    uint32_t w = sk->bone_count - 1;
    return sk->bones[w].parent < 0 && sk->bones[w].name && !strcmp(sk->bones[w].name, "weapon") ? (int32_t)w : -1;
}

uint32_t ff7_slots_for(const ganim_doc *doc, const ganim_clip *clip, int role)
{
    if (role == FF7_ROLE_WEAPON) return 1;
    ff7_skel_info si;
    if (ff7_skel_info_parse(doc->skeleton, &si)) return si.n_bones <= 1 ? 1 : si.n_bones + 1;
    /* the model of an FF7 skeleton (ff7_skeleton.c: `root`, `bone_<i>`, and a last root
     * bone `weapon` that body slots do not drive), without its ??aa record (a glTF from
     * another tool): nBones + 1 slots, 1 for one bone */
    const ganim_skeleton *sk = doc->skeleton;
    if (sk && sk->bone_count) {
        uint32_t n = sk->bone_count - (ff7_weapon_bone(doc) >= 0 ? 1u : 0u);
        bool model = n >= 2 && sk->bones[0].name && !strcmp(sk->bones[0].name, "root");
        for (uint32_t i = 1; i < n && model; i++) {
            char want[24];
            snprintf(want, sizeof want, "bone_%u", i - 1);
            model = sk->bones[i].name && !strcmp(sk->bones[i].name, want);
        }
        return model && n == 2 ? 1 : n;
    }
    uint32_t n = 1;
    for (uint32_t i = 0; i < clip->track_count; i++)
        if (clip->tracks[i].bone + 1 > n) n = clip->tracks[i].bone + 1;
    return n;
}

static const ganim_track *track_of(const ganim_clip *clip, int32_t bone)
{
    if (bone < 0) return NULL;
    for (uint32_t i = 0; i < clip->track_count; i++)
        if ((int32_t)clip->tracks[i].bone == bone) return &clip->tracks[i];
    return NULL;
}

/* Does any value of a channel differ from `rest` (n components; rotations either sign)? */
static bool channel_moves(const ganim_channel *ch, int n, const float *rest)
{
    if (ch->kind == GANIM_CHANNEL_ABSENT || !ch->values) return false;
    double size = 1;
    for (int k = 0; k < n; k++) size = fmax(size, fabs((double)rest[k]));
    for (uint32_t i = 0; i < ch->count; i++) {
        const float *v = ch->values + (size_t)i * (size_t)n;
        double d1 = 0, d2 = 0;
        for (int k = 0; k < n; k++) {
            d1 = fmax(d1, fabs((double)v[k] - rest[k]));
            d2 = fmax(d2, fabs((double)v[k] + rest[k]));
        }
        if ((n == 4 ? fmin(d1, d2) : d1) > 1e-5 * size) return true;
    }
    return false;
}

bool ff7_bone_moves(const ganim_doc *doc, const ganim_clip *clip, uint32_t bone)
{
    const ganim_skeleton *sk = doc->skeleton;
    for (uint32_t i = 0; sk && bone < sk->bone_count && i < clip->track_count; i++) {
        const ganim_track *t = &clip->tracks[i];
        if (t->bone != bone) continue;
        const ganim_transform *r = &sk->bones[bone].rest;
        return channel_moves(&t->rotation, 4, &r->rotation.x) || channel_moves(&t->translation, 3, &r->translation.x);
    }
    return false;
}

static bool quat_close(ganim_quat a, ganim_quat b)
{
    float d1 = fabsf(a.x - b.x) + fabsf(a.y - b.y) + fabsf(a.z - b.z) + fabsf(a.w - b.w);
    float d2 = fabsf(a.x + b.x) + fabsf(a.y + b.y) + fabsf(a.z + b.z) + fabsf(a.w + b.w);
    return d1 < 4e-6f || d2 < 4e-6f;
}

/* ganim_channel_eval(ch, frame_count, step, interp, n, (double)f, rest, out) at a whole
 * frame f: what it copies, without the call where the channel is absent, constant or one
 * value a frame (locate in sample.c: a per-frame channel of count values gives value 0 at
 * frame 0, value count - 1 from frame count - 1 on, else value f with alpha f - f = 0, a
 * copy whatever the step bits and the interpolation); a keyed channel (or a kind the
 * enum does not name) by ganim_channel_eval itself. */
static inline void eval_frame(const ganim_channel *ch, uint32_t frame_count, const uint8_t *step,
                              ganim_rotation_interp interp, int n, uint32_t f, const float *rest, float *out)
{
    const float *v;
    if (ch->kind == GANIM_CHANNEL_ABSENT || ch->count == 0 || !ch->values) v = rest;
    else if (ch->kind == GANIM_CHANNEL_CONSTANT) v = ch->values;
    else if (ch->kind == GANIM_CHANNEL_PER_FRAME)
        v = ch->values + (size_t)(f < ch->count ? f : ch->count - 1) * (size_t)n;
    else {
        ganim_channel_eval(ch, frame_count, step, interp, n, (double)f, rest, out);
        return;
    }
    memcpy(out, v, (size_t)n * sizeof *out);
}

/* Raw values (12-bit, bKey 0 precision) of the clip as the model has it. Where a value
 * still equals the native record's, the record's integer is taken (no Euler round trip).
 * Returns true when every value came from the record. */
bool ff7_raw_from_model(const ganim_doc *doc, const ganim_clip *clip, const ff7_clip_info *in, int role, uint32_t slots,
                        uint32_t frames, int32_t *pos, uint16_t *rot)
{
    bool use_native = in && in->frames == frames && in->slots == slots;
    bool pristine = use_native;
    size_t per = (size_t)slots * 3u;
    const ganim_skeleton *sk = doc->skeleton;
    for (uint32_t s = 0; s < slots; s++) {
        int32_t b = ff7_slot_bone(doc, role, s);
        const ganim_track *tr = track_of(clip, b);
        float rest[4] = { 0, 0, 0, 1 };
        if (sk && b >= 0 && (uint32_t)b < sk->bone_count) {
            ganim_quat r = sk->bones[b].rest.rotation;
            rest[0] = r.x, rest[1] = r.y, rest[2] = r.z, rest[3] = r.w;
        }
        for (uint32_t f = 0; f < frames; f++) {
            float v[4];
            if (tr) eval_frame(&tr->rotation, clip->frame_count, tr->step, clip->rotation_interp, 4, f, rest, v);
            else memcpy(v, rest, sizeof v);
            ganim_quat q = { v[0], v[1], v[2], v[3] };
            uint16_t *out = rot + (size_t)f * per + (size_t)s * 3u;
            if (use_native) {
                uint16_t nat[3];
                for (int k = 0; k < 3; k++) nat[k] = ff7_info_rot(in, (size_t)f * per + (size_t)s * 3u + (size_t)k);
                if (quat_close(q, ff7_raw_to_quat(nat))) {
                    memcpy(out, nat, sizeof nat);
                    continue;
                }
            }
            pristine = false;
            ff7_quat_to_raw(ganim_quat_normalize(q), 0, f ? out - per : NULL, out);
        }
    }
    int32_t pb = ff7_pos_bone(doc, role);
    const ganim_track *tr = track_of(clip, pb);
    float rest[3] = { 0, 0, 0 };
    if (sk && pb >= 0 && (uint32_t)pb < sk->bone_count) {
        ganim_vec3 t = sk->bones[pb].rest.translation;
        rest[0] = t.x, rest[1] = t.y, rest[2] = t.z;
    }
    for (uint32_t f = 0; f < frames; f++) {
        float v[3];
        if (tr) eval_frame(&tr->translation, clip->frame_count, tr->step, clip->rotation_interp, 3, f, rest, v);
        else memcpy(v, rest, sizeof v);
        for (int k = 0; k < 3; k++) {
            size_t i = (size_t)f * 3u + (size_t)k;
            if (use_native && (float)ff7_info_pos(in, i) == v[k]) {
                pos[i] = ff7_info_pos(in, i);
                continue;
            }
            pristine = false;
            double x = v[k];
            pos[i] = !(x == x) ? 0 : x > 2e9 ? 2000000000 : x < -2e9 ? -2000000000 : (int32_t)lround(x);
        }
    }
    return pristine;
}
