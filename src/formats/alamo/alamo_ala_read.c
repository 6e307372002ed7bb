/* Alamo .ALA reader: the probe, and a parsed plan (ala.h) into the model: one clip whose
 * tracks go to the skeleton's bones by index; without a skeleton a flat one is made
 * from the tracks' names. The clip's native record is the file itself. */
#include <math.h>
#include <string.h>

#include "formats/alamo/alamo_ala.h"
#include "io/bits.h"

int alamo_ala_probe(const uint8_t *data, size_t size)
{
    ganim_reader r = gr_init(data, size, 0);
    uint32_t type, len, child;
    if (!gr_u32le(&r, &type) || !gr_u32le(&r, &len) || type != ALA_ROOT || !(len & 0x80000000u)) return 0;
    bool header = gr_u32le(&r, &child) && child == ALA_HEADER;
    if ((len & 0x7FFFFFFFu) == size - 8) return header ? 90 : 70;
    return header ? 50 : 20;
}

/* One channel of the clip from a plan track. */
static ganim_code make_channel(ganim_doc *doc, const ala_ptrack *t, int channel, uint32_t frames, ganim_channel *ch,
                               ganim_error *err)
{
    unsigned comps = channel == 0 ? 4 : 3;
    uint32_t count = ala_plan_has_stream(t, channel) ? frames : 1;
    float *v = ganim_doc_alloc_array(doc, (size_t)count * comps, sizeof *v);
    if (!v) return GANIM_NOMEM(err);
    for (uint32_t f = 0; f < count; f++) {
        ala_plan_value(t, channel, f, v + (size_t)f * comps);
        for (unsigned k = 0; k < comps; k++)
            if (!isfinite(v[(size_t)f * comps + k]))
                return ganim_fail(err, GANIM_ERR_CORRUPT, t->offset,
                                  ALA ": track at byte %llu: %s at frame %u is not a finite number "
                                      "(bad offset or scale)",
                                  (unsigned long long)t->offset, channel == 1 ? "translation" : "scale", f);
    }
    ch->kind = count == frames && ala_plan_has_stream(t, channel) ? GANIM_CHANNEL_PER_FRAME : GANIM_CHANNEL_CONSTANT;
    ch->count = count;
    ch->values = v;
    return GANIM_OK;
}

/* One byte per frame from a 0x1007/0x1008 body (LSB first; take_bits proved its size). */
static uint8_t *unpack_bits(ganim_doc *doc, const uint8_t *bits, uint32_t frames)
{
    uint8_t *b = ganim_doc_alloc(doc, frames);
    if (!b) return NULL;
    ganim_bits br = gb_init(bits, ((size_t)frames + 7u) / 8u);
    for (uint32_t i = 0; i < frames; i++) {
        uint32_t v;
        if (!gb_lsb_u(&br, 1, &v)) return NULL;
        b[i] = (uint8_t)v;
    }
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
        if (t->index < count && !names[t->index])
            names[t->index] = ganim_doc_strndup(doc, (const char *)t->name, t->name_size);
    }
    for (uint32_t i = 0; i < count; i++)
        if (!names[i]) names[i] = i == 0 ? "Root" : ganim_doc_printf(doc, "bone_%u", i);
    for (uint32_t i = 0; i < count; i++)
        if (!names[i]) return GANIM_NOMEM(err);
    doc->skeleton = ganim_skeleton_flat(doc, count, names);
    return doc->skeleton ? GANIM_OK : GANIM_NOMEM(err);
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
    uint8_t *native = ganim_doc_memdup(doc, data, size);
    if (!clip || !tracks || !used || !native) {
        ala_plan_free(&p);
        return GANIM_NOMEM(err);
    }
    uint32_t nt = 0;
    for (uint32_t i = 0; i < p.track_count && !rc; i++) {
        const ala_ptrack *t = &p.tracks[i];
        ganim_track *o = &tracks[nt];
        o->name = ganim_doc_strndup(doc, (const char *)t->name, t->name_size);
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
        const char *bone_name = sk->bones[t->index].name;
        if (ganim_strcasecmp(bone_name, o->name) != 0)
            ganim_doc_warn(doc, GANIM_WARN_SKELETON, t->offset,
                           ALA ": track '%s' (bone index %u) does not match skeleton bone "
                               "'%s'; animated by index",
                           o->name, t->index, bone_name);
        if (t->rot.base) {
            for (uint32_t f = 0; f < p.frames; f++) {
                int16_t raw[4];
                for (unsigned k = 0; k < 4; k++) raw[k] = (int16_t)ala_st_get(&t->rot, f, k);
                if (!ala_rot_is_unit(raw)) {
                    ganim_doc_warn(doc, GANIM_WARN_REPAIRED, t->offset,
                                   ALA ": track '%s': rotation at frame %u is not unit "
                                       "length; normalised",
                                   o->name, f);
                    break;
                }
            }
        } else if (!ala_rot_is_unit(t->defrot)) {
            ganim_doc_warn(doc, GANIM_WARN_REPAIRED, t->offset,
                           ALA ": track '%s': rotation is not unit length; normalised", o->name);
        }
        used[t->index] = 1;
        o->bone = t->index;
        if ((rc = make_channel(doc, t, 0, p.frames, &o->rotation, err)) ||
            (rc = make_channel(doc, t, 1, p.frames, &o->translation, err)) ||
            (rc = make_channel(doc, t, 2, p.frames, &o->scale, err)))
            break;
        if ((t->vis && !(o->visibility = unpack_bits(doc, t->vis, p.frames))) ||
            (t->step && !(o->step = unpack_bits(doc, t->step, p.frames))))
            rc = GANIM_NOMEM(err);
        nt++;
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
    return GANIM_OK;
}
