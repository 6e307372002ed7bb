/* Alamo .ALA reader: the probe, and a parsed plan (ala.h) into the model: one clip whose
 * tracks go to the skeleton's bones by index; without a skeleton a flat one is made
 * from the tracks' names. The clip's native record is the file itself. */
#include <math.h>
#include <string.h>

#include "formats/alamo/alamo_ala.h"

int alamo_ala_probe(const uint8_t *data, size_t size)
{
    ganim_reader r = gr_init(data, size, 0);
    uint32_t type, len, child;
    if (!gr_u32le(&r, &type) || !gr_u32le(&r, &len) || type != ALA_ROOT || !(len & 0x80000000u)) return 0;
    bool header = gr_u32le(&r, &child) && child == ALA_HEADER;
    if ((len & 0x7FFFFFFFu) == size - 8) return header ? 90 : 70;
    return header ? 50 : 20;
}

/* The rotation channel of a plan track (the stored quaternions normalised where they
 * are not unit, as ala_plan_value gives them); *bad: the first frame that was not unit,
 * or UINT32_MAX. */
static ganim_code make_rotation(ganim_doc *doc, const ala_ptrack *t, uint32_t frames, ganim_channel *ch, uint32_t *bad,
                                ganim_error *err)
{
    uint32_t count = t->rot.base ? frames : 1;
    float *v = ganim_doc_alloc_array_raw(doc, (size_t)count * 4u, sizeof *v); /* all written below */
    if (!v) return GANIM_NOMEM(err);
    if (t->rot.base) {
        *bad = ala_dec_rots(&t->rot, count, v);
    } else {
        int16_t raw[4];
        memcpy(raw, t->defrot, sizeof raw);
        *bad = ala_dec_rot_unit(raw, v) ? UINT32_MAX : 0;
    }
    ch->kind = t->rot.base ? GANIM_CHANNEL_PER_FRAME : GANIM_CHANNEL_CONSTANT;
    ch->count = count;
    ch->values = v;
    return GANIM_OK;
}

/* A translation (channel 1) or scale (2) channel: offset + stored * scale, per component,
 * as ala_plan_value computes it. A format-2 stream whose every value is surely finite is
 * only allocated here (t->late) and decoded by decode_late after the tracks. */
static ganim_code make_vector(ganim_doc *doc, ala_ptrack *t, int channel, uint32_t frames, bool shared,
                              ganim_channel *ch, ganim_error *err)
{
    const ala_stream *s = channel == 1 ? &t->trans : &t->scale;
    const uint32_t *off = t->vec[channel == 1 ? V_TOFF : V_SOFF];
    const uint32_t *scl = t->vec[channel == 1 ? V_TSCALE : V_SSCALE];
    uint32_t count = s->base ? frames : 1;
    float *v = ganim_doc_alloc_array_raw(doc, (size_t)count * 3u, sizeof *v); /* all written below */
    if (!v) return GANIM_NOMEM(err);
    ch->kind = s->base ? GANIM_CHANNEL_PER_FRAME : GANIM_CHANNEL_CONSTANT;
    ch->count = count;
    ch->values = v;
    if (shared && s->base && ala_vecs_surely_finite(off, scl)) { /* no value can fail: later */
        t->late[channel - 1] = v;
        return GANIM_OK;
    }
    bool finite = ala_dec_vecs(s, off, scl, count, v);
    if (!finite) {
        uint32_t f = 0;
        while (f < count && isfinite(v[3 * f]) && isfinite(v[3 * f + 1]) && isfinite(v[3 * f + 2])) f++;
        return ganim_fail(err, GANIM_ERR_CORRUPT, t->offset,
                          ALA ": track at byte %llu: %s at frame %u is not a finite number "
                              "(bad offset or scale)",
                          (unsigned long long)t->offset, channel == 1 ? "translation" : "scale", f);
    }
    return GANIM_OK;
}

/* Format 2 keeps every track's translations (and its scales) in one shared block, a frame
 * after another. Decoding the channels make_vector left (t->late), a run of frames (about
 * 64 KiB of the block) at a time for every track, reads each run from near caches; track by
 * track, each would walk the whole block again. The values are ala_dec_vecs' of each run,
 * the same bits as one call over the whole stream (each frame's value depends on its own
 * stored values only), and none can fail: make_vector left only surely finite channels,
 * so each run goes straight to ala_dec_vecs_sure (ala_dec_vecs' loop, without its tests). */
static void decode_late(const ala_plan *p, int which)
{
    size_t stride = 2u * (size_t)(which ? p->sfs : p->tfs);
    uint32_t run = stride > 65536u / 8u ? 8u : (uint32_t)(65536u / (stride ? stride : 1u));
    for (uint32_t f0 = 0; f0 < p->frames; f0 += run) {
        uint32_t n = p->frames - f0 < run ? p->frames - f0 : run;
        for (uint32_t i = 0; i < p->track_count; i++) {
            const ala_ptrack *t = &p->tracks[i];
            if (!t->late[which]) continue;
            const ala_stream *s = which ? &t->scale : &t->trans;
            const uint32_t *off = t->vec[which ? V_SOFF : V_TOFF], *scl = t->vec[which ? V_SSCALE : V_TSCALE];
            const float o[3] = { ganim_f32_from_bits(off[0]), ganim_f32_from_bits(off[1]),
                                 ganim_f32_from_bits(off[2]) };
            const float m[3] = { ganim_f32_from_bits(scl[0]), ganim_f32_from_bits(scl[1]),
                                 ganim_f32_from_bits(scl[2]) };
            ala_stream part = { s->base + (size_t)f0 * s->stride, s->stride };
            ala_dec_vecs_sure(&part, o, m, n, t->late[which] + 3u * (size_t)f0);
        }
    }
}

/* One byte per frame from a 0x1007/0x1008 body (LSB first; take_bits proved its size). */
static uint8_t *unpack_bits(ganim_doc *doc, const uint8_t *bits, uint32_t frames)
{
    uint8_t *b = ganim_doc_alloc_array_raw(doc, frames, 1); /* all written */
    if (!b || !ala_unpack_bits(bits, ((size_t)frames + 7u) / 8u, frames, b)) return NULL;
    return b;
}

/* The skeleton the tracks refer to: the given one, or a flat one made from the tracks. */
/* Without the model, a skeleton is made up: bone i is the one the tracks give index i
 * (named after the track), the others are fillers. Indices far beyond the track count (a
 * damaged or hostile index) would make thousands of fillers: then every track gets a bone
 * of its own, in the file's order, with a warning. */
static ganim_code ala_skeleton(ganim_doc *doc, ala_plan *p, const ganim_read_opts *opts, ganim_error *err)
{
    if (doc->skeleton) return GANIM_OK;
    if (opts && opts->skeleton) {
        doc->skeleton = ganim_skeleton_copy(doc, opts->skeleton);
        return doc->skeleton ? GANIM_OK : GANIM_NOMEM(err);
    }
    uint32_t count = 0;
    for (uint32_t i = 0; i < p->track_count; i++)
        if (p->tracks[i].index < 65536u && p->tracks[i].index + 1u > count) count = p->tracks[i].index + 1u;
    if (count > 4u * p->track_count + 64u) {
        ganim_doc_warn(doc, GANIM_WARN_SKELETON, GANIM_NO_OFFSET,
                       ALA ": bone indices up to %u for %u tracks; without the model each track gets a made-up "
                           "bone of its own, in the file's order",
                       count - 1u, p->track_count);
        for (uint32_t i = 0; i < p->track_count; i++) p->tracks[i].index = i;
        count = p->track_count;
    }
    const char **names = ganim_doc_alloc_array(doc, count ? count : 1, sizeof *names);
    if (!names) return GANIM_NOMEM(err);
    for (uint32_t i = 0; i < p->track_count; i++) {
        const ala_ptrack *t = &p->tracks[i];
        if (t->index < count && !names[t->index]) /* a NUL-terminated name is used in place */
            names[t->index] = memchr(t->name, 0, t->name_size)
                                  ? (const char *)t->name
                                  : ganim_doc_strndup(doc, (const char *)t->name, t->name_size);
    }
    for (uint32_t i = 0; i < count; i++)
        if (!names[i]) names[i] = i == 0 ? "Root" : ganim_doc_name_u32(doc, "bone_", i);
    for (uint32_t i = 0; i < count; i++)
        if (!names[i]) return GANIM_NOMEM(err);
    doc->skeleton = ganim_skeleton_flat(doc, count, names); /* copies the names */
    return doc->skeleton ? GANIM_OK : GANIM_NOMEM(err);
}

/* A large model's channels in one block of the arena: the channels make_rotation,
 * make_vector and unpack_bits will take, for the tracks the loop below keeps (a bone of
 * the skeleton, its first track), each rounded to 16 bytes as the arena rounds them. One
 * region the allocator hands over whole (huge pages with the default one, see
 * core/alloc.c) instead of a block a channel (160 KiB each at 10,000 frames, thousands of
 * page faults a read); a small model fills the arena's usual blocks. `used` (zeroed, one
 * byte a bone) is borrowed and left zeroed. */
static void reserve_model(ganim_doc *doc, const ala_plan *p, uint8_t *used)
{
    const ganim_skeleton *sk = doc->skeleton;
    uint64_t model = 0;
    for (uint32_t i = 0; i < p->track_count; i++) {
        const ala_ptrack *t = &p->tracks[i];
        if (t->index >= sk->bone_count || used[t->index]) continue;
        used[t->index] = 1;
        model += ganim_doc_room((uint64_t)(t->rot.base ? p->frames : 1u) * 16u) +
                 ganim_doc_room((uint64_t)(t->trans.base ? p->frames : 1u) * 12u) +
                 ganim_doc_room((uint64_t)(t->scale.base ? p->frames : 1u) * 12u) +
                 (t->vis ? ganim_doc_room(p->frames) : 0) + (t->step ? ganim_doc_room(p->frames) : 0);
    }
    memset(used, 0, sk->bone_count ? sk->bone_count : 1);
    if (model >= ((uint64_t)1 << 20) && model <= SIZE_MAX) (void)ganim_doc_reserve(doc, (size_t)model);
}

ganim_code alamo_ala_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                          ganim_error *err)
{
    ala_plan p;
    memset(&p, 0, sizeof p);
    p.alloc = ganim_doc_allocator(doc);
    ganim_code rc = ala_parse(&p, data, size, err);
    if (!rc) rc = ganim_check_counts(doc, 0, ALA ": the file", p.frames, p.track_count, 1, err);
    if (!rc) rc = ala_skeleton(doc, &p, opts, err);
    if (rc) {
        ala_plan_free(&p);
        return rc;
    }
    if (!p.canonical)
        ganim_doc_warn(doc, GANIM_WARN_LAYOUT, p.odd_offset,
                       ALA ": unusual layout (%s at byte %llu); writing the file back will not "
                           "reproduce it byte for byte",
                       p.odd, (unsigned long long)p.odd_offset);
    const ganim_skeleton *sk = doc->skeleton;
    ganim_clip *clip = ganim_doc_alloc(doc, sizeof *clip);
    ganim_track *tracks = ganim_doc_alloc_array(doc, p.track_count ? p.track_count : 1, sizeof *tracks);
    uint8_t *used = ganim_doc_alloc(doc, sk->bone_count ? sk->bone_count : 1);
    const uint8_t *native = ganim_doc_keep_input(doc, data, size); /* the file itself */
    if (!clip || !tracks || !used || !native) {
        ala_plan_free(&p);
        return GANIM_NOMEM(err);
    }
    reserve_model(doc, &p, used);
    uint32_t nt = 0, late = 0;
    for (uint32_t i = 0; i < p.track_count && !rc; i++) {
        ala_ptrack *t = &p.tracks[i];
        ganim_track *o = &tracks[nt];
        /* the usual case, a track named exactly as its bone, shares the bone's string */
        const char *bone_name = t->index < sk->bone_count ? sk->bones[t->index].name : NULL;
        o->name = bone_name && ala_name_same(t->name, t->name_size, bone_name)
                      ? bone_name
                      : ganim_doc_strndup(doc, (const char *)t->name, t->name_size);
        if (!o->name) {
            rc = GANIM_NOMEM(err);
            break;
        }
        if (t->index >= sk->bone_count) {
            ganim_doc_warn(doc, GANIM_WARN_SKELETON, t->offset,
                           ALA ": track '%s' (bone index %u) is outside the skeleton "
                               "(%u bones); track skipped",
                           o->name, t->index, sk->bone_count);
            continue;
        }
        if (used[t->index]) {
            ganim_doc_warn(doc, GANIM_WARN_SKELETON, t->offset,
                           ALA ": track '%s' animates bone %u a second time; track skipped", o->name, t->index);
            continue;
        }
        if (o->name != bone_name && ganim_strcasecmp(bone_name, o->name) != 0)
            ganim_doc_warn(doc, GANIM_WARN_SKELETON, t->offset,
                           ALA ": track '%s' (bone index %u) does not match skeleton bone "
                               "'%s'; animated by index",
                           o->name, t->index, bone_name);
        used[t->index] = 1;
        o->bone = t->index;
        uint32_t bad = UINT32_MAX;
        if ((rc = make_rotation(doc, t, p.frames, &o->rotation, &bad, err))) break;
        if (bad != UINT32_MAX && t->rot.base)
            ganim_doc_warn(doc, GANIM_WARN_REPAIRED, t->offset,
                           ALA ": track '%s': rotation at frame %u is not unit "
                               "length; normalised",
                           o->name, bad);
        else if (bad != UINT32_MAX)
            ganim_doc_warn(doc, GANIM_WARN_REPAIRED, t->offset,
                           ALA ": track '%s': rotation is not unit length; normalised", o->name);
        if ((rc = make_vector(doc, t, 1, p.frames, p.version == 2, &o->translation, err)) ||
            (rc = make_vector(doc, t, 2, p.frames, p.version == 2, &o->scale, err)))
            break;
        late += (uint32_t)(t->late[0] != NULL) + (uint32_t)(t->late[1] != NULL);
        if ((t->vis && !(o->visibility = unpack_bits(doc, t->vis, p.frames))) ||
            (t->step && !(o->step = unpack_bits(doc, t->step, p.frames))))
            rc = GANIM_NOMEM(err);
        nt++;
    }
    if (!rc && late) {
        decode_late(&p, 0);
        decode_late(&p, 1);
    }
    ala_plan_free(&p);
    if (rc) return rc;
    clip->name = "";
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->fps = (double)ganim_f32_from_bits(p.fps_bits);
    clip->frame_count = p.frames;
    clip->track_count = nt;
    clip->tracks = tracks;
    clip->rotation_interp = GANIM_INTERP_SLERP;
    clip->native_format = ALA;
    clip->native = native;
    clip->native_size = size;
    doc->clips = clip;
    doc->clip_count = 1;
    doc->axes = GANIM_AXES_Z_UP;
    /* Every rotation channel is make_rotation's: ala_dec_rot_unit's values (ala_dec_rots
     * gives the same bits), either accepted by its test |sqrtf(n2) - 1| <= 1e-3, whose n2
     * is the validation's sum, or normalised; test_alamo_values ("decoded_rotations_pass_
     * the_validation") proves both pass the validation's unit test. */
    ganim_doc_vouch_rotations(doc);
    /* and every translation and scale channel make_vector's, refused unless ala_dec_vecs
     * found each value finite (its verdict is the reference's: test_alamo_values), or left
     * to decode_late because no value could be other than finite (ala_vecs_surely_finite) */
    ganim_doc_vouch_vectors(doc);
    return GANIM_OK;
}
