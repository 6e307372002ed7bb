/* Alamo .ALA writer. A clip that still decodes to exactly its native record is written
 * from that record (names and fps may have changed), so an unmodified file comes back
 * byte for byte; any other clip is quantised as the official exporter does. */
#include <math.h>
#include <string.h>

#include "formats/alamo/ala.h"
#include "io/bits.h"

static bool bits_match(const uint8_t *bits, const uint8_t *bytes, uint32_t frames)
{
    if (!bits || !bytes) return !bits && !bytes;
    ganim_bits br = gb_init(bits, ((size_t)frames + 7u) / 8u);
    for (uint32_t i = 0; i < frames; i++) {
        uint32_t v;
        if (!gb_lsb_u(&br, 1, &v) || v != (bytes[i] != 0)) return false;
    }
    return true;
}

static bool channel_matches(const ala_ptrack *t, int channel, uint32_t frames, const ganim_channel *ch)
{
    unsigned comps = channel == 0 ? 4 : 3;
    bool stream = ala_plan_has_stream(t, channel);
    uint32_t count = stream ? frames : 1;
    if (ch->count != count || !ch->values) return false;
    if (ch->kind != (stream ? GANIM_CHANNEL_PER_FRAME : GANIM_CHANNEL_CONSTANT)) return false;
    for (uint32_t f = 0; f < count; f++) {
        float v[4];
        ala_plan_value(t, channel, f, v);
        for (unsigned k = 0; k < comps; k++)
            if (v[k] != ch->values[(size_t)f * comps + k]) return false;
    }
    return true;
}

/* The clip decodes to exactly what its native record holds (names and fps aside). */
static bool ala_native_matches(const ala_plan *p, const ganim_clip *c)
{
    if (c->frame_count != p->frames || c->track_count != p->track_count) return false;
    for (uint32_t i = 0; i < p->track_count; i++) {
        const ala_ptrack *t = &p->tracks[i];
        const ganim_track *o = &c->tracks[i];
        if (o->bone != t->index || !channel_matches(t, 0, p->frames, &o->rotation) ||
            !channel_matches(t, 1, p->frames, &o->translation) || !channel_matches(t, 2, p->frames, &o->scale) ||
            !bits_match(t->vis, o->visibility, p->frames) || !bits_match(t->step, o->step, p->frames))
            return false;
    }
    return true;
}

static int16_t q16(float v)
{
    double r = floor((double)v * 32767.0 + 0.5);
    if (r > 32767.0) r = 32767.0;
    if (r < -32767.0) r = -32767.0;
    return (int16_t)r;
}

/* Quantise one clip track like the official exporter: per axis offset = min,
 * scale = (max-min)/65535, u = round((v-min)/scale); rotations round(q*32767). Every
 * value is then decoded as a reader does (offset + u * scale, in 32-bit floats): a range
 * too wide for that (its width overflows a float) is refused, naming the value, so that
 * ganim never writes a file it cannot read back. */
static ganim_code quantise_track(ala_plan *p, ala_ptrack *t, uint32_t ci, uint32_t ti, const ganim_clip *clip,
                                 const ganim_track *o, const ganim_bone *bone, uint8_t *mem, ganim_error *err)
{
    uint32_t n = p->frames;
    /* mem: rot 8n, trans 6n, scale 6n, bits 2*(n+7)/8 */
    uint8_t *rot = mem, *trn = rot + 8 * (size_t)n, *scl = trn + 6 * (size_t)n;
    uint8_t *vis = scl + 6 * (size_t)n, *stp = vis + ((size_t)n + 7) / 8;
    ganim_transform rest = bone ? bone->rest : ganim_transform_identity();
    const float rest_r[4] = { rest.rotation.x, rest.rotation.y, rest.rotation.z, rest.rotation.w };
    const float rest_t[3] = { rest.translation.x, rest.translation.y, rest.translation.z };
    const float rest_s[3] = { rest.scale.x, rest.scale.y, rest.scale.z };
    bool rot_anim = false;
    for (uint32_t f = 0; f < n; f++) {
        float q[4];
        ganim_channel_eval(&o->rotation, n, o->step, clip->rotation_interp, 4, (double)f, rest_r, q);
        for (unsigned k = 0; k < 4; k++) {
            int16_t v = q16(q[k]);
            rot[8 * (size_t)f + 2 * k] = (uint8_t)(uint16_t)v;
            rot[8 * (size_t)f + 2 * k + 1] = (uint8_t)((uint16_t)v >> 8);
            if (f == 0) t->defrot[k] = v;
            else if (v != t->defrot[k]) rot_anim = true;
        }
    }
    if (rot_anim) t->rot = (ala_stream){ rot, 8 };
    bool static_rest = !rot_anim;
    {
        float q[4];
        ala_dec_rot(t->defrot, q);
        float d = q[0] * rest_r[0] + q[1] * rest_r[1] + q[2] * rest_r[2] + q[3] * rest_r[3];
        if (fabsf(d) < 1.0f - 1e-6f) static_rest = false;
    }
    for (int c = 1; c <= 2; c++) {
        const ganim_channel *ch = c == 1 ? &o->translation : &o->scale;
        uint8_t *buf = c == 1 ? trn : scl;
        const float *restv = c == 1 ? rest_t : rest_s;
        float lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 }, v[3];
        bool anim = false;
        for (uint32_t f = 0; f < n; f++) {
            ganim_channel_eval(ch, n, o->step, clip->rotation_interp, 3, (double)f, restv, v);
            for (int k = 0; k < 3; k++) {
                if (!isfinite(v[k])) v[k] = 0.0f;
                if (f == 0 || v[k] < lo[k]) lo[k] = v[k];
                if (f == 0 || v[k] > hi[k]) hi[k] = v[k];
            }
        }
        float scale[3];
        for (int k = 0; k < 3; k++) {
            scale[k] = hi[k] > lo[k] ? (float)(((double)hi[k] - (double)lo[k]) / 65535.0) : 0.0f;
            if (scale[k] > 0.0f) anim = true;
            if (fabsf(lo[k] - restv[k]) > 1e-5f * (1.0f + fabsf(restv[k]))) static_rest = false;
        }
        for (uint32_t f = 0; anim && f < n; f++) {
            ganim_channel_eval(ch, n, o->step, clip->rotation_interp, 3, (double)f, restv, v);
            for (int k = 0; k < 3; k++) {
                double u = 0.0;
                if (scale[k] > 0.0f && isfinite(v[k])) u = floor(((double)v[k] - lo[k]) / scale[k] + 0.5);
                if (u < 0.0) u = 0.0;
                if (u > 65535.0) u = 65535.0;
                uint16_t q = (uint16_t)u;
                float back = lo[k] + (float)q * scale[k]; /* what a reader decodes */
                if (!isfinite(back))
                    return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                                      ALA ": clip %u, track %u ('%.100s'), frame %u: the %s %c = %g lies in a range "
                                          "(%g..%g) too wide for ALA's 16-bit steps in 32-bit floats (offset + step x "
                                          "scale overflows); not written",
                                      ci, ti, (const char *)t->name, f, c == 1 ? "translation" : "scale", "xyz"[k],
                                      (double)v[k], (double)lo[k], (double)hi[k]);
                buf[6 * (size_t)f + 2 * (size_t)k] = (uint8_t)q;
                buf[6 * (size_t)f + 2 * (size_t)k + 1] = (uint8_t)(q >> 8);
            }
        }
        int off = c == 1 ? V_TOFF : V_SOFF;
        for (int k = 0; k < 3; k++) {
            t->vec[off][k] = ganim_f32_bits(lo[k]);
            t->vec[off + 1][k] = ganim_f32_bits(scale[k]);
        }
        if (anim) {
            static_rest = false;
            if (c == 1) t->trans = (ala_stream){ trn, 6 };
            else t->scale = (ala_stream){ scl, 6 };
        }
    }
    const uint8_t *src[2] = { o->visibility, o->step };
    uint8_t *dst[2] = { vis, stp };
    for (int b = 0; b < 2; b++) {
        if (!src[b]) continue;
        for (uint32_t f = 0; f < n; f++)
            if (src[b][f]) dst[b][f >> 3] = (uint8_t)(dst[b][f >> 3] | (1u << (f & 7u)));
        if (b == 0) t->vis = vis;
        else t->step = stp;
    }
    /* Mini-chunk 10: 1 only for a track that holds its bone at the rest pose (docs). */
    t->has_unk10 = true;
    t->unk10 = (bone && static_rest) ? 1u : 0u;
    t->tidx = t->sidx = t->ridx = -1;
    return GANIM_OK;
}

static ganim_code ala_plan_from_clip(ala_plan *p, const ganim_doc *doc, const ganim_clip *c, ganim_error *err)
{
    uint32_t n = c->frame_count;
    size_t per, total;
    p->version = 0;
    p->frames = n;
    p->fps_bits = ganim_f32_bits((float)c->fps);
    p->track_count = c->track_count;
    p->canonical = true;
    p->tracks = ala_plan_alloc(p, c->track_count ? c->track_count : 1, sizeof *p->tracks);
    /* 20 bytes of values and 2 bit bytes per frame, one block per track */
    if (!ganim_mul_size((size_t)n + 8u, 22u, &per) || !ganim_mul_size(per, c->track_count ? c->track_count : 1, &total))
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, ALA ": the clip is too large");
    uint8_t *mem = ala_plan_alloc(p, total, 1);
    if (!p->tracks || !mem) return GANIM_NOMEM(err);
    const ganim_skeleton *sk = doc->skeleton;
    for (uint32_t i = 0; i < c->track_count; i++) {
        const ganim_track *o = &c->tracks[i];
        ala_ptrack *t = &p->tracks[i];
        const ganim_bone *bone = sk && o->bone < sk->bone_count ? &sk->bones[o->bone] : NULL;
        const char *name = o->name && o->name[0] ? o->name : bone ? bone->name : "";
        size_t len = strlen(name);
        if (len > 254)
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              ALA ": track %u: the name is longer than 254 bytes", i);
        t->name = (const uint8_t *)name;
        t->name_size = (uint8_t)(len + 1);
        t->index = o->bone;
        ganim_code code = quantise_track(p, t, (uint32_t)(c - doc->clips), i, c, o, bone, mem + per * i, err);
        if (code != GANIM_OK) return code;
    }
    return GANIM_OK;
}

ganim_code alamo_ala_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err)
{
    const ganim_clip *c = ganim_doc_first_animation(doc);
    ganim_allocator a = ganim_allocator_resolve(opts ? &opts->allocator : NULL);
    /* alamo.version: 1 or 2; unset (0): the source's version, else 2 */
    int version = opts ? ganim_setting_choice(opts->settings, opts->setting_count, &alamo_options[0]) + 1 : 0;
    if (!c) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, ALA ": the document has no animation");
    if (c->frame_count == 0 || !(c->fps > 0.0) || !isfinite((float)c->fps))
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          ALA ": the clip needs at least one frame and a positive fps");
    /* An .ALA holds one animation: the first one is written. */
    ala_plan p;
    memset(&p, 0, sizeof p);
    p.alloc = &a;
    bool native = false;
    if (c->native_format && strcmp(c->native_format, ALA) == 0 && c->native) {
        ganim_error ignored;
        native = ala_parse(&p, c->native, c->native_size, &ignored) == GANIM_OK && ala_native_matches(&p, c);
        if (!native) {
            ala_plan_free(&p);
            memset(&p, 0, sizeof p);
            p.alloc = &a;
        }
    }
    ganim_code rc = GANIM_OK;
    if (native) {
        /* Names and fps may have been edited without touching the quantised values. */
        if ((float)c->fps != ganim_f32_from_bits(p.fps_bits)) p.fps_bits = ganim_f32_bits((float)c->fps);
        for (uint32_t i = 0; i < p.track_count; i++) {
            const char *name = c->tracks[i].name;
            ala_ptrack *t = &p.tracks[i];
            if (name && name[0] && !ala_name_same(t->name, t->name_size, name)) {
                size_t len = strlen(name);
                if (len > 254) {
                    rc = ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                                    ALA ": track %u: the name is longer than 254 bytes", i);
                    break;
                }
                t->name = (const uint8_t *)name;
                t->name_size = (uint8_t)(len + 1);
            }
        }
    } else {
        rc = ala_plan_from_clip(&p, doc, c, err);
    }
    if (!rc) {
        if (version == 0) version = p.version ? p.version : 2;
        rc = ala_encode(&p, version, out, err);
    }
    ala_plan_free(&p);
    return rc;
}
