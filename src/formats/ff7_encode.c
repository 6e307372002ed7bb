/* FF7 battle packs: the optimal bit coder, the pack writer and the resampler.
 * Every delta gets its shortest code (unique per value), so re-encoding a file the game
 * or its tools coded optimally gives back its bytes. */
#include <math.h>
#include <string.h>

#include "formats/ff7_battle.h"
#include "io/writer.h"

/* ------------------------------------------------------------------------------------ */
/* Bit coder                                                                            */
/* ------------------------------------------------------------------------------------ */

/* Difference cur - prev modulo 4096 in [-2048, 2047]. */
static int32_t wrap_delta(uint16_t cur, uint16_t prev)
{
    return (int32_t)(((uint32_t)cur - (uint32_t)prev + 2048u) & 4095u) - 2048;
}

/* Exact division of a multiple of 2^bkey (no shift of negative values). */
static int32_t units(int32_t d, unsigned bkey) { return d / (int32_t)(1u << bkey); }

size_t ff7_stream_bits(unsigned bkey, uint32_t slots, uint32_t frames, const int32_t *pos,
                       const uint16_t *rot)
{
    size_t per = (size_t)slots * 3u;
    if (frames == 0) return 0;
    for (int i = 0; i < 3; i++)
        if (pos[i] < -32768 || pos[i] > 32767) return SIZE_MAX;
    size_t bits = 48u + per * (12u - bkey);
    for (size_t f = 1; f < frames; f++) {
        for (size_t i = 0; i < 3; i++) {
            int64_t d = (int64_t)pos[f * 3 + i] - pos[(f - 1) * 3 + i];
            if (d >= -64 && d <= 63) bits += 8;
            else if (d >= -32768 && d <= 32767) bits += 17;
            else return SIZE_MAX;
        }
        const uint16_t *c = rot + f * per, *p = c - per;
        for (size_t i = 0; i < per; i++)
            bits += ff7_rot_code_bits(units(wrap_delta(c[i], p[i]), bkey), bkey);
    }
    return bits;
}

static void put_rot_delta(ganim_bitwriter *bw, int32_t v, unsigned bkey)
{
    if (v == 0) {
        gbw_put(bw, 1, 0);
        return;
    }
    if (v == -1) {
        gbw_put(bw, 4, 8); /* 1 000 */
        return;
    }
    for (unsigned n = 1; n <= 6; n++) {
        int32_t lo = (int32_t)1 << (n - 1), hi = ((int32_t)1 << n) - 1;
        if (v >= lo && v <= hi) {
            gbw_put(bw, 4, 8u | n);
            gbw_put(bw, n, (uint32_t)(v - lo));
            return;
        }
        if (v >= -hi - 1 && v <= -lo - 1) {
            gbw_put(bw, 4, 8u | n);
            gbw_put(bw, n, (uint32_t)(v + lo) & ((1u << n) - 1u));
            return;
        }
    }
    gbw_put(bw, 4, 15);
    gbw_put(bw, 12 - bkey, (uint32_t)v & ((1u << (12 - bkey)) - 1u));
}

void ff7_encode_stream(ganim_bitwriter *bw, unsigned bkey, uint32_t slots, uint32_t frames,
                       const int32_t *pos, const uint16_t *rot)
{
    size_t per = (size_t)slots * 3u;
    uint32_t mask = (1u << (12 - bkey)) - 1u;
    if (frames == 0) return;
    for (int i = 0; i < 3; i++) gbw_put(bw, 16, (uint32_t)pos[i] & 0xFFFFu);
    for (size_t i = 0; i < per; i++) gbw_put(bw, 12 - bkey, ((uint32_t)rot[i] >> bkey) & mask);
    for (size_t f = 1; f < frames; f++) {
        for (size_t i = 0; i < 3; i++) {
            int32_t d = pos[f * 3 + i] - pos[(f - 1) * 3 + i];
            if (d >= -64 && d <= 63) {
                gbw_put(bw, 1, 0);
                gbw_put(bw, 7, (uint32_t)d & 0x7Fu);
            } else {
                gbw_put(bw, 1, 1);
                gbw_put(bw, 16, (uint32_t)d & 0xFFFFu);
            }
        }
        const uint16_t *c = rot + f * per, *p = c - per;
        for (size_t i = 0; i < per; i++) put_rot_delta(bw, units(wrap_delta(c[i], p[i]), bkey), bkey);
    }
    gbw_flush(bw);
}

/* Nearest multiple of 2^bkey, modulo 4096. */
static uint16_t quantise_raw(uint16_t raw, unsigned bkey)
{
    if (!bkey) return raw;
    uint32_t half = 1u << (bkey - 1);
    return (uint16_t)(((raw + half) >> bkey << bkey) & 0xFFFu);
}

/* ------------------------------------------------------------------------------------ */
/* Model -> raw integers                                                                */
/* ------------------------------------------------------------------------------------ */

static int guess_role(const ganim_doc *doc, const ganim_clip *clip)
{
    const ganim_skeleton *sk = doc->skeleton;
    if (!sk || clip->track_count == 0) return FF7_ROLE_BODY;
    int32_t w = ff7_slot_bone(doc, FF7_ROLE_WEAPON, 0);
    if (w <= 0 || !sk->bones[w].name || strcmp(sk->bones[w].name, "weapon") != 0)
        return FF7_ROLE_BODY;
    for (uint32_t i = 0; i < clip->track_count; i++)
        if ((int32_t)clip->tracks[i].bone != w) return FF7_ROLE_BODY;
    return FF7_ROLE_WEAPON;
}

static uint32_t slots_for(const ganim_doc *doc, const ganim_clip *clip, int role)
{
    if (role == FF7_ROLE_WEAPON) return 1;
    ff7_skel_info si;
    if (ff7_skel_info_parse(doc->skeleton, &si)) return si.n_bones <= 1 ? 1 : si.n_bones + 1;
    if (doc->skeleton && doc->skeleton->bone_count) return doc->skeleton->bone_count;
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

static bool quat_close(ganim_quat a, ganim_quat b)
{
    float d1 = fabsf(a.x - b.x) + fabsf(a.y - b.y) + fabsf(a.z - b.z) + fabsf(a.w - b.w);
    float d2 = fabsf(a.x + b.x) + fabsf(a.y + b.y) + fabsf(a.z + b.z) + fabsf(a.w + b.w);
    return d1 < 4e-6f || d2 < 4e-6f;
}

/* Raw values (12-bit, bKey 0 precision) of the clip as the model has it. Where a value
 * still equals the native record's, the record's integer is taken (no Euler round trip).
 * Returns true when every value came from the record. */
static bool raw_from_model(const ganim_doc *doc, const ganim_clip *clip, const ff7_clip_info *in,
                           int role, uint32_t slots, uint32_t frames, int32_t *pos, uint16_t *rot)
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
            if (tr)
                ganim_channel_eval(&tr->rotation, clip->frame_count, tr->step,
                                   clip->rotation_interp, 4, (double)f, rest, v);
            else
                memcpy(v, rest, sizeof v);
            ganim_quat q = { v[0], v[1], v[2], v[3] };
            uint16_t *out = rot + (size_t)f * per + (size_t)s * 3u;
            if (use_native) {
                uint16_t nat[3];
                for (int k = 0; k < 3; k++)
                    nat[k] = ff7_info_rot(in, (size_t)f * per + (size_t)s * 3u + (size_t)k);
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
        if (tr)
            ganim_channel_eval(&tr->translation, clip->frame_count, tr->step,
                               clip->rotation_interp, 3, (double)f, rest, v);
        else
            memcpy(v, rest, sizeof v);
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

/* Smallest bKey from the candidates whose stream fits; rot is quantised in place to it.
 * Returns 0 and sets *bits, or a ganim_code. */
static ganim_code choose_bkey(const int *cands, int ncand, uint32_t slots, uint32_t frames,
                              const int32_t *pos, uint16_t *rot, uint16_t *scratch, unsigned *key,
                              size_t *bits, uint32_t index, ganim_error *err)
{
    size_t n = (size_t)frames * slots * 3u;
    size_t best = 0;
    for (int c = 0; c < ncand; c++) {
        unsigned k = (unsigned)cands[c];
        for (size_t i = 0; i < n; i++) scratch[i] = quantise_raw(rot[i], k);
        best = ff7_stream_bits(k, slots, frames, pos, scratch);
        if (best == SIZE_MAX)
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              "ff7-battle: clip %u: a position or position step leaves the "
                              "16-bit range the format stores", index);
        if ((best + 7) / 8 <= FF7_MAX_STREAM) {
            memcpy(rot, scratch, n * sizeof *rot);
            *key = k;
            *bits = best;
            return GANIM_OK;
        }
    }
    return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                      "ff7-battle: clip %u: the frame stream needs %zu bytes even at bKey %d, "
                      "more than the format's 65535", index, (best + 7) / 8, cands[ncand - 1]);
}

/* ------------------------------------------------------------------------------------ */
/* Writer                                                                               */
/* ------------------------------------------------------------------------------------ */

typedef struct enc_ctx {
    const ganim_allocator *alloc;
    int forced; /* -1 or 0/2/4 */
} enc_ctx;

static ganim_code write_animation(const enc_ctx *c, const ganim_doc *doc, uint32_t index,
                                  ganim_writer *w, ganim_error *err)
{
    const ganim_clip *clip = &doc->clips[index];
    ff7_clip_info in;
    bool have = ff7_clip_info_parse(clip, &in) && in.layout != FF7_LAYOUT_SPECIAL;
    int role = have ? in.role : guess_role(doc, clip);
    uint32_t slots = have ? in.slots : slots_for(doc, clip, role);
    uint32_t frames = clip->frame_count;
    if (frames == 0 || frames > FF7_MAX_FRAMES)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "ff7-battle: clip %u: %u frames; FF7 stores 1 to 65535", index, frames);
    size_t npos = (size_t)frames * 3u, nrot;
    if (!ganim_mul_size(npos, slots, &nrot) || nrot > SIZE_MAX / 8)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "ff7-battle: clip %u: too many values", index);
    int32_t *pos = ganim_alloc(c->alloc, npos * sizeof *pos);
    uint16_t *rot = ganim_alloc(c->alloc, nrot * sizeof *rot);
    uint16_t *scratch = ganim_alloc(c->alloc, nrot * sizeof *rot);
    ganim_buffer sb = { 0 };
    ganim_code code = GANIM_OK;
    if (!pos || !rot || !scratch) {
        code = GANIM_NOMEM(err);
        goto done;
    }
    bool pristine = raw_from_model(doc, clip, have ? &in : NULL, role, slots, frames, pos, rot);

    int cands[3], nc = 0;
    if (c->forced >= 0) {
        cands[nc++] = c->forced;
    } else {
        for (int k = have ? in.bkey : 0; k <= 4; k += 2) cands[nc++] = k;
    }
    unsigned key = 0;
    size_t bits = 0;
    code = choose_bkey(cands, nc, slots, frames, pos, rot, scratch, &key, &bits, index, err);
    if (code) goto done;
    if (have && key != in.bkey) pristine = false;

    ganim_writer sw = gw_init(&sb, c->alloc);
    ganim_bitwriter bw = gbw_init(&sw);
    ff7_encode_stream(&bw, key, slots, frames, pos, rot);
    if (!gw_ok(&sw)) {
        code = GANIM_NOMEM(err);
        goto done;
    }
    const uint8_t *stream = sb.data;
    size_t s_size = sb.size;
    /* An unchanged entry keeps its original stream bytes past the decoded frames (frames
     * beyond sFrames, a cut-off frame, padding bits) once its coded bits are verified equal. */
    if (pristine && bits == in.stream_bits && (size_t)in.stream_size * 8u >= bits &&
        in.stream_size >= s_size) {
        bool same = memcmp(stream, in.stream, bits / 8) == 0;
        if (same && bits % 8) {
            unsigned m = 0xFFu << (8 - bits % 8) & 0xFFu;
            same = (stream[bits / 8] & m) == (in.stream[bits / 8] & m);
        }
        if (same) {
            stream = in.stream;
            s_size = in.stream_size;
        }
    }
    bool same_frames = have && frames == in.frames;
    int layout = have ? in.layout : FF7_LAYOUT_NORMAL;
    uint32_t dw_bones = have ? in.dw_bones : slots;
    uint32_t dw_frames = same_frames ? in.dw_frames : frames;
    uint32_t s_frames = same_frames ? in.s_frames : frames;
    const uint8_t *trailer = have ? in.trailer : NULL;
    size_t tsize = have ? in.trailer_size : (4u - (5u + s_size) % 4u) % 4u;
    static const uint8_t zeros[4] = { 0, 0, 0, 0 };
    if (!trailer) trailer = zeros;
    size_t pad = 0;
    uint64_t chunk;
    if (layout == FF7_LAYOUT_FROG) {
        if (tsize != 2) trailer = zeros;
        tsize = 2;
        chunk = 3u + (uint64_t)s_size + 2u;
    } else {
        chunk = 5u + (uint64_t)s_size + tsize;
        /* sFrames == dwChunkSize - 5 would read back as the frog layout: pad one byte. */
        if (s_frames == chunk - 5) pad = 1, chunk++;
    }
    gw_u32le(w, dw_bones);
    gw_u32le(w, dw_frames);
    gw_u32le(w, (uint32_t)chunk);
    if (layout != FF7_LAYOUT_FROG) gw_u16le(w, (uint16_t)s_frames);
    gw_u16le(w, (uint16_t)s_size);
    gw_u8(w, (uint8_t)key);
    gw_bytes(w, stream, s_size);
    gw_bytes(w, trailer, tsize);
    gw_zeros(w, pad);
done:
    ganim_buffer_free(&sb);
    ganim_free(c->alloc, pos, npos * sizeof *pos);
    ganim_free(c->alloc, rot, nrot * sizeof *rot);
    ganim_free(c->alloc, scratch, nrot * sizeof *rot);
    return code;
}

ganim_code ff7_battle_write(const ganim_doc *doc, const ganim_write_opts *opts,
                            ganim_buffer *out, ganim_error *err)
{
    ganim_allocator alloc = ganim_allocator_resolve(opts ? &opts->allocator : NULL);
    enc_ctx c = { &alloc, -1 };
    if (opts && (opts->ff7_bkey & 0x100)) {
        int k = opts->ff7_bkey & 0xFF;
        if (k != 0 && k != 2 && k != 4)
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "ff7-battle: bKey %d is not 0, 2 or 4", k);
        c.forced = k;
    }
    if (!doc) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ff7-battle: no document");
    ganim_writer w = gw_init(out, &alloc);
    gw_u32le(&w, doc->clip_count);
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *clip = &doc->clips[i];
        if (clip->kind == GANIM_CLIP_OPAQUE) {
            if (clip->opaque_size >= 11)
                return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                                  "ff7-battle: clip %u: an opaque slot of %zu bytes cannot be "
                                  "written (FF7 reads chunks of 11 bytes or more as animations)",
                                  i, clip->opaque_size);
            ff7_clip_info in;
            bool have = ff7_clip_info_parse(clip, &in);
            gw_u32le(&w, have ? in.dw_bones : 0);
            gw_u32le(&w, have ? in.dw_frames : 0);
            gw_u32le(&w, (uint32_t)clip->opaque_size);
            gw_bytes(&w, clip->opaque, clip->opaque_size);
            continue;
        }
        ganim_code code = write_animation(&c, doc, i, &w, err);
        if (code) return code;
    }
    ff7_doc_info di;
    if (ff7_doc_info_parse(doc, &di)) gw_bytes(&w, di.tail, di.tail_size);
    return gw_ok(&w) ? GANIM_OK : GANIM_NOMEM(err);
}

/* ------------------------------------------------------------------------------------ */
/* Resampling                                                                           */
/* ------------------------------------------------------------------------------------ */

static ganim_code resample_clip(ganim_doc *doc, uint32_t index, uint64_t target, unsigned factor,
                                ganim_error *err)
{
    ganim_clip *clip = &doc->clips[index];
    const ganim_allocator *alloc = ganim_doc_allocator(doc);
    ff7_clip_info in;
    bool have = ff7_clip_info_parse(clip, &in) && in.layout != FF7_LAYOUT_SPECIAL;
    int role = have ? in.role : guess_role(doc, clip);
    uint32_t slots = have ? in.slots : slots_for(doc, clip, role);
    uint32_t n = clip->frame_count;
    if (n == 0) return GANIM_OK;
    if (target > FF7_MAX_FRAMES)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "ff7-battle: clip %u: %u frames x %u = %llu frames, more than FF7's "
                          "65535", index, n, factor, (unsigned long long)target);
    uint32_t m = (uint32_t)target;
    size_t per = (size_t)slots * 3u;
    size_t src_pos = (size_t)n * 3u, src_rot = src_pos * slots;
    size_t dst_pos = (size_t)m * 3u, dst_rot = dst_pos * slots;
    int32_t *sp = ganim_alloc(alloc, src_pos * sizeof *sp);
    uint16_t *sr = ganim_alloc(alloc, src_rot * sizeof *sr);
    int32_t *dp = ganim_alloc(alloc, dst_pos * sizeof *dp);
    uint16_t *dr = ganim_alloc(alloc, dst_rot * sizeof *dr);
    uint16_t *scratch = ganim_alloc(alloc, dst_rot * sizeof *dr);
    ganim_code code = GANIM_OK;
    if (!sp || !sr || !dp || !dr || !scratch) {
        code = GANIM_NOMEM(err);
        goto done;
    }
    raw_from_model(doc, clip, have ? &in : NULL, role, slots, n, sp, sr);
    for (uint32_t j = 0; j < m; j++) {
        uint64_t num = (uint64_t)j * (n - 1);
        uint32_t a = m > 1 ? (uint32_t)(num / (m - 1)) : 0;
        uint64_t r = m > 1 ? num % (m - 1) : 0;
        if (r == 0) { /* an original frame: copied exactly */
            memcpy(dp + (size_t)j * 3u, sp + (size_t)a * 3u, 3 * sizeof *dp);
            memcpy(dr + (size_t)j * per, sr + (size_t)a * per, per * sizeof *dr);
            continue;
        }
        double t = (double)r / (double)(m - 1);
        for (int k = 0; k < 3; k++) {
            double x0 = sp[(size_t)a * 3u + k], x1 = sp[(size_t)(a + 1) * 3u + k];
            dp[(size_t)j * 3u + k] = (int32_t)lround(x0 + (x1 - x0) * t);
        }
        for (uint32_t s = 0; s < slots; s++) {
            ganim_quat q0 = ff7_raw_to_quat(sr + (size_t)a * per + s * 3u);
            ganim_quat q1 = ff7_raw_to_quat(sr + (size_t)(a + 1) * per + s * 3u);
            uint16_t *out = dr + (size_t)j * per + s * 3u;
            ff7_quat_to_raw(ganim_quat_slerp(q0, q1, t), 0, out - per, out);
        }
    }
    /* Keep the clip's bKey if the longer stream still fits (original frames stay exact). */
    int cands[3], nc = 0;
    for (int k = have ? in.bkey : 0; k <= 4; k += 2) cands[nc++] = k;
    unsigned key = 0;
    size_t bits = 0;
    code = choose_bkey(cands, nc, slots, m, dp, dr, scratch, &key, &bits, index, err);
    if (code) goto done;
    ff7_clip_info out;
    memset(&out, 0, sizeof out);
    if (have) out = in;
    out.role = (uint8_t)role;
    if (!have) out.layout = FF7_LAYOUT_NORMAL, out.dw_bones = slots;
    out.bkey = (uint8_t)key;
    out.flags = FF7_FLAG_SHORTEST;
    out.slots = slots;
    out.frames = m;
    out.s_frames = m;
    out.dw_frames = m;
    out.s_size = (uint32_t)((bits + 7) / 8);
    out.stream_bits = (uint32_t)bits;
    out.stream_size = 0;
    out.stream = NULL;
    size_t rec_size = 0;
    uint8_t *rec = ff7_clip_native_build(doc, &out, dp, dr, &rec_size);
    if (!rec) {
        code = GANIM_NOMEM(err);
        goto done;
    }
    clip->native = rec;
    clip->native_size = rec_size;
    clip->native_format = "ff7-battle";
    if (!ff7_clip_info_parse(clip, &out)) {
        code = ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                          "ff7-battle: clip %u: internal record check failed", index);
        goto done;
    }
    code = ff7_clip_fill(doc, clip, &out, err);
    clip->fps *= factor;
done:
    ganim_free(alloc, sp, src_pos * sizeof *sp);
    ganim_free(alloc, sr, src_rot * sizeof *sr);
    ganim_free(alloc, dp, dst_pos * sizeof *dp);
    ganim_free(alloc, dr, dst_rot * sizeof *dr);
    ganim_free(alloc, scratch, dst_rot * sizeof *dr);
    return code;
}

ganim_code ff7_battle_resample(ganim_doc *doc, unsigned factor, ganim_error *err)
{
    if (!doc || factor == 0)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "ff7-battle: resample factor must be 1 or more");
    if (factor == 1) return GANIM_OK;
    ff7_doc_info di;
    uint32_t n_body = ff7_doc_info_parse(doc, &di) && di.n_body != UINT32_MAX ? di.n_body : 0;
    /* Frame counts before resampling: weapon i follows body i. */
    uint32_t count = doc->clip_count;
    uint32_t *before = ganim_alloc(ganim_doc_allocator(doc), (count ? count : 1) * sizeof *before);
    if (!before) return GANIM_NOMEM(err);
    for (uint32_t i = 0; i < count; i++)
        before[i] = doc->clips[i].kind == GANIM_CLIP_ANIMATION ? doc->clips[i].frame_count : 0;
    ganim_code code = GANIM_OK;
    for (uint32_t i = 0; i < count && !code; i++) {
        ganim_clip *clip = &doc->clips[i];
        if (clip->kind != GANIM_CLIP_ANIMATION || clip->frame_count == 0) continue;
        ff7_clip_info in;
        uint32_t base = clip->frame_count;
        if (ff7_clip_info_parse(clip, &in) && in.role == FF7_ROLE_WEAPON && i >= n_body &&
            i - n_body < count && before[i - n_body])
            base = before[i - n_body];
        code = resample_clip(doc, i, (uint64_t)factor * (base - 1) + 1, factor, err);
    }
    ganim_free(ganim_doc_allocator(doc), before, (count ? count : 1) * sizeof *before);
    return code;
}
