/* Alamo .ALA writer. A clip that still decodes to exactly its native record is written
 * from that record (names and fps may have changed), so an unmodified file comes back
 * byte for byte; any other clip is quantised as the official exporter does. */
#include <math.h>
#include <string.h>

#include "formats/alamo/alamo_ala.h"
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

static int16_t q16(double v)
{
    double r = floor(v * 32767.0 + 0.5);
    if (r > 32767.0) r = 32767.0;
    if (r < -32767.0) r = -32767.0;
    return (int16_t)r;
}

/* The four 16-bit components of rotation q. The game's files hold each component of a
 * unit quaternion times 32767, rounded by most exporters and truncated by some, so their
 * integers have a length within 1.5 of 32767 and point along q; a model that went
 * through a format that keeps rotations unit (glTF) holds that direction, not the
 * integers. Of the integers within one of round(q * 32767) in each component whose length
 * stays within 1.5 of 32767, the one pointing nearest q is taken: the file's own integers
 * when q is their direction to float precision. Directions no float can tell apart (a
 * quarter turn about an axis is (23169, 23169), (23170, 23170) and (23171, 23171) alike)
 * go the way the clip's other rotations went: q * 32767 truncated (`trunc`) or rounded.
 * *how (may be NULL) says whether the integers taken are the rounded ones (1), the
 * truncated ones (2), both (3) or neither (0), when no other candidate was as near. */
static void rot16(const float q[4], int trunc, int16_t out[4], int *how)
{
    double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    double u[4];
    int model[2][4];
    for (int k = 0; k < 4; k++) {
        u[k] = n > 0 ? q[k] / n : k == 3;
        model[0][k] = q16(u[k]);
        double t = (double)q[k] * 32767.0; /* the exporter's float, truncated toward zero */
        model[1][k] = t >= 32767.0 ? 32767 : t <= -32767.0 ? -32767 : (int)t;
    }
    int16_t base[4];
    for (int k = 0; k < 4; k++) out[k] = base[k] = (int16_t)model[0][k];
    double dist[81];
    int best = -1;
    for (int c = 0; c < 81; c++) {
        int code = c, r[4];
        double len2 = 0, d2 = 0;
        for (int k = 0; k < 4; k++, code /= 3) {
            r[k] = base[k] + code % 3 - 1;
            if (r[k] > 32767 || r[k] < -32767) r[k] = base[k];
            len2 += (double)r[k] * r[k];
        }
        double len = sqrt(len2);
        dist[c] = -1;
        if (!(len > 0) || fabs(len - 32767.0) > 1.5) continue;
        for (int k = 0; k < 4; k++) d2 += (r[k] / len - u[k]) * (r[k] / len - u[k]);
        dist[c] = sqrt(d2);
        if (best < 0 || dist[c] < dist[best]) best = c;
    }
    if (best < 0) {
        if (how) *how = 0;
        return;
    }
    /* the candidates as near as the nearest, to what a float quaternion can tell apart */
    int pick = -1, ties = 0;
    for (int c = 0; c < 81; c++) {
        if (dist[c] < 0 || dist[c] > dist[best] + 1e-7) continue;
        ties++;
        int code = c, same[2] = { 1, 1 };
        for (int k = 0; k < 4; k++, code /= 3) {
            int v = base[k] + code % 3 - 1;
            same[0] &= v == model[0][k];
            same[1] &= v == model[1][k];
        }
        if (same[trunc] || (pick < 0 && c == 40)) pick = c; /* the file's way, else rounding */
    }
    if (pick < 0) pick = best;
    int code = pick, r[4], h = 0;
    for (int k = 0; k < 4; k++, code /= 3) {
        r[k] = base[k] + code % 3 - 1;
        if (r[k] > 32767 || r[k] < -32767) r[k] = base[k];
        out[k] = (int16_t)r[k];
    }
    if (how) {
        int same0 = 1, same1 = 1;
        for (int k = 0; k < 4; k++) same0 &= r[k] == model[0][k], same1 &= r[k] == model[1][k];
        h = ties == 1 ? same0 | same1 << 1 : 0;
        *how = h;
    }
}

/* The scale, within a few float steps of (hi - lo) / U for U a little below 65535, with
 * which every value is offset + u * scale exactly for some u (the reader's float
 * arithmetic): a file of the game's own, or one ganim wrote, whose values came back
 * exactly, keeps its integers. 0 when none does. */
static float exact_scale(const float *v, size_t stride, uint32_t n, float lo, float hi)
{
    for (int drop = 0; drop <= 16; drop++) {
        float s0 = (float)(((double)hi - (double)lo) / (65535.0 - drop));
        for (int step = 0; step <= 8; step++) {
            float s = s0;
            for (int k = 0; k < (step + 1) / 2; k++) s = nextafterf(s, step & 1 ? INFINITY : 0.0f);
            if (!(s > 0) || !isfinite(s)) continue;
            uint32_t f = 0;
            for (; f < n; f++) {
                double u = floor(((double)v[f * stride] - lo) / s + 0.5);
                if (u < 0 || u > 65535) break;
                float back = lo + (float)u * s;
                if (back != v[f * stride]) break;
            }
            if (f == n) return s;
        }
    }
    return 0;
}

/* Quantise one clip track like the official exporter: per axis offset = min,
 * scale = (max-min)/65535, u = round((v-min)/scale); rotations round(q*32767). Every
 * value is then decoded as a reader does (offset + u * scale, in 32-bit floats): a range
 * too wide for that (its width overflows a float) is refused, naming the value, so that
 * ganim never writes a file it cannot read back. */
static ganim_code quantise_track(ala_plan *p, ala_ptrack *t, uint32_t ci, uint32_t ti, const ganim_clip *clip,
                                 const ganim_track *o, const ganim_bone *bone, uint8_t *mem, float *vals, int trunc16,
                                 ganim_error *err)
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
        int16_t r16[4];
        ganim_channel_eval(&o->rotation, n, o->step, clip->rotation_interp, 4, (double)f, rest_r, q);
        rot16(q, trunc16, r16, NULL);
        for (unsigned k = 0; k < 4; k++) {
            int16_t v = r16[k];
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
        double d = 0, lq = 0, lr = 0;
        for (int k = 0; k < 4; k++)
            d += (double)q[k] * rest_r[k], lq += (double)q[k] * q[k], lr += (double)rest_r[k] * rest_r[k];
        /* within half a 16-bit step of the rest rotation (2 * 1/32767 radians) */
        if (!(lq > 0 && lr > 0) || fabs(d) / sqrt(lq * lr) < cos(1.0 / 32767.0)) static_rest = false;
    }
    for (int c = 1; c <= 2; c++) {
        const ganim_channel *ch = c == 1 ? &o->translation : &o->scale;
        uint8_t *buf = c == 1 ? trn : scl;
        const float *restv = c == 1 ? rest_t : rest_s;
        float lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
        bool anim = false;
        for (uint32_t f = 0; f < n; f++) {
            float *v = vals + 3 * (size_t)f;
            ganim_channel_eval(ch, n, o->step, clip->rotation_interp, 3, (double)f, restv, v);
            for (int k = 0; k < 3; k++) {
                if (!isfinite(v[k])) v[k] = 0.0f;
                if (f == 0 || v[k] < lo[k]) lo[k] = v[k];
                if (f == 0 || v[k] > hi[k]) hi[k] = v[k];
            }
        }
        float scale[3];
        for (int k = 0; k < 3; k++) {
            scale[k] = hi[k] > lo[k] ? exact_scale(vals + k, 3, n, lo[k], hi[k]) : 0.0f;
            if (hi[k] > lo[k] && scale[k] == 0.0f) scale[k] = (float)(((double)hi[k] - (double)lo[k]) / 65535.0);
            if (scale[k] > 0.0f) anim = true;
            /* the game's files hold the rest pose to 1e-3 (docs/formats/alamo.md) */
            if (fabsf(lo[k] - restv[k]) > 1e-3f + 1e-6f * fabsf(restv[k])) static_rest = false;
        }
        for (uint32_t f = 0; anim && f < n; f++) {
            const float *v = vals + 3 * (size_t)f;
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
    float *vals = ala_plan_alloc(p, (size_t)n * 3u, sizeof *vals); /* one channel's values */
    if (!p->tracks || !mem || !vals) return GANIM_NOMEM(err);
    const ganim_skeleton *sk = doc->skeleton;
    /* Did the clip's rotations come rounded or truncated (rot16)? Asked of those whose
     * direction leaves no choice. */
    size_t rounded = 0, truncated = 0;
    for (uint32_t i = 0; i < c->track_count; i++) {
        const ganim_track *o = &c->tracks[i];
        const ganim_bone *bone = sk && o->bone < sk->bone_count ? &sk->bones[o->bone] : NULL;
        ganim_transform rest = bone ? bone->rest : ganim_transform_identity();
        uint32_t count = o->rotation.kind == GANIM_CHANNEL_CONSTANT ? 1 : n;
        for (uint32_t f = 0; f < count; f++) {
            float q[4];
            int16_t r[4];
            int how;
            ganim_channel_eval(&o->rotation, n, o->step, c->rotation_interp, 4, (double)f, &rest.rotation.x, q);
            rot16(q, 0, r, &how);
            rounded += how == 1;
            truncated += how == 2;
        }
    }
    int trunc16 = truncated > rounded;
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
        ganim_code code =
            quantise_track(p, t, (uint32_t)(c - doc->clips), i, c, o, bone, mem + per * i, vals, trunc16, err);
        if (code != GANIM_OK) return code;
    }
    return GANIM_OK;
}

ganim_code alamo_ala_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err)
{
    const ganim_clip *c = ganim_doc_first_animation(doc);
    ganim_allocator a = ganim_allocator_resolve(opts ? &opts->allocator : NULL);
    /* alamo.version: 1 or 2; unset (0): the source's version, else 2 */
    int version =
        opts ? ganim_setting_choice(opts->settings, opts->setting_count, &alamo_options[ALAMO_OPT_VERSION]) + 1 : 0;
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
