/* FF7 PC battle animation packs (??da, *.a00) and battle skeletons (??aa): readers,
 * model conversion and the describe hook. The bit coder's writer side and the
 * resampler live in ff7_encode.c; docs/formats/ff7-battle.md tells the format. */
#include <math.h>
#include <string.h>

#include "formats/ff7_battle.h"
#include "formats/formats.h"
#include "io/writer.h"

static const double FF7_TAU = 6.283185307179586476925286766559;

/* ------------------------------------------------------------------------------------ */
/* Native records                                                                       */
/* ------------------------------------------------------------------------------------ */

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

bool ff7_clip_info_parse(const ganim_clip *clip, ff7_clip_info *in)
{
    memset(in, 0, sizeof *in);
    if (!clip->native_format || strcmp(clip->native_format, "ff7-battle") != 0) return false;
    const uint8_t *p = clip->native;
    size_t n = clip->native_size;
    if (!p || n < FF7_CLIP_HEADER || ff7_ld32(p) != FF7_CLIP_MAGIC) return false;
    in->role = p[4];
    in->layout = p[5];
    in->bkey = p[6];
    in->flags = p[7];
    in->dw_bones = ff7_ld32(p + 8);
    in->dw_frames = ff7_ld32(p + 12);
    in->dw_chunk = ff7_ld32(p + 16);
    in->s_frames = ff7_ld32(p + 20);
    in->s_size = ff7_ld32(p + 24);
    in->slots = ff7_ld32(p + 28);
    in->frames = ff7_ld32(p + 32);
    in->stream_bits = ff7_ld32(p + 36);
    in->trailer_size = ff7_ld32(p + 40);
    in->stream_size = ff7_ld32(p + 44);
    in->entry_offset = ff7_ld32(p + 48);
    if (in->role > FF7_ROLE_UNKNOWN || in->layout > FF7_LAYOUT_SPECIAL) return false;
    if (in->layout != FF7_LAYOUT_SPECIAL &&
        (in->bkey > 4 || (in->bkey & 1) || in->slots == 0 || in->frames == 0 ||
         in->frames > FF7_MAX_FRAMES))
        return false;
    /* Sizes in 64 bits: the record may come from anywhere. */
    uint64_t need = FF7_CLIP_HEADER + (uint64_t)in->frames * 12u +
                    (uint64_t)in->frames * in->slots * 6u + in->trailer_size + in->stream_size;
    if (need != n) return false;
    in->pos = p + FF7_CLIP_HEADER;
    in->rot = in->pos + (size_t)in->frames * 12u;
    in->trailer = in->rot + (size_t)in->frames * in->slots * 6u;
    in->stream = in->trailer + in->trailer_size;
    in->record = p;
    in->record_size = n;
    return true;
}

uint8_t *ff7_clip_native_build(ganim_doc *doc, const ff7_clip_info *in, const int32_t *pos,
                               const uint16_t *rot, size_t *size)
{
    size_t nv = (size_t)in->frames * 3u, nr = 0, total;
    if (!ganim_mul_size(nv, in->slots, &nr)) return NULL;
    if (!ganim_mul_size(nr, 2, &total)) return NULL;
    total += FF7_CLIP_HEADER + nv * 4u + in->trailer_size + in->stream_size;
    uint8_t *p = ganim_doc_alloc(doc, total);
    if (!p) return NULL;
    put32(p, FF7_CLIP_MAGIC);
    p[4] = in->role;
    p[5] = in->layout;
    p[6] = in->bkey;
    p[7] = in->flags;
    put32(p + 8, in->dw_bones);
    put32(p + 12, in->dw_frames);
    put32(p + 16, in->dw_chunk);
    put32(p + 20, in->s_frames);
    put32(p + 24, in->s_size);
    put32(p + 28, in->slots);
    put32(p + 32, in->frames);
    put32(p + 36, in->stream_bits);
    put32(p + 40, in->trailer_size);
    put32(p + 44, in->stream_size);
    put32(p + 48, in->entry_offset);
    uint8_t *q = p + FF7_CLIP_HEADER;
    for (size_t i = 0; i < nv; i++, q += 4) put32(q, (uint32_t)pos[i]);
    for (size_t i = 0; i < nr; i++, q += 2) {
        q[0] = (uint8_t)rot[i];
        q[1] = (uint8_t)(rot[i] >> 8);
    }
    if (in->trailer_size) memcpy(q, in->trailer, in->trailer_size);
    q += in->trailer_size;
    if (in->stream_size) memcpy(q, in->stream, in->stream_size);
    *size = total;
    return p;
}

bool ff7_doc_info_parse(const ganim_doc *doc, ff7_doc_info *in)
{
    memset(in, 0, sizeof *in);
    if (!doc->native_format || strcmp(doc->native_format, "ff7-battle") != 0) return false;
    const uint8_t *p = doc->native;
    if (!p || doc->native_size < FF7_DOC_HEADER || ff7_ld32(p) != FF7_DOC_MAGIC) return false;
    in->n_entries = ff7_ld32(p + 4);
    in->input_size = ff7_ld32(p + 8);
    in->n_body = ff7_ld32(p + 12);
    in->n_weapon = ff7_ld32(p + 16);
    in->tail_size = ff7_ld32(p + 20);
    if ((uint64_t)FF7_DOC_HEADER + in->tail_size != doc->native_size) return false;
    in->tail = p + FF7_DOC_HEADER;
    return true;
}

bool ff7_skel_info_parse(const ganim_skeleton *sk, ff7_skel_info *in)
{
    memset(in, 0, sizeof *in);
    if (!sk || !sk->native_format || strcmp(sk->native_format, "ff7-skeleton") != 0) return false;
    if (!sk->native || sk->native_size < FF7_SKELETON_HEADER) return false;
    for (int i = 0; i < 13; i++) in->words[i] = ff7_ld32(sk->native + 4 * i);
    in->n_bones = in->words[3];
    in->n_body_anims = in->words[7];
    in->n_weapon_anims = in->words[10];
    if ((uint64_t)FF7_SKELETON_HEADER + (uint64_t)FF7_SKELETON_BONE * in->n_bones !=
        sk->native_size)
        return false;
    return true;
}

/* ------------------------------------------------------------------------------------ */
/* Skeleton (??aa)                                                                      */
/* ------------------------------------------------------------------------------------ */

static int ff7_skeleton_probe(const uint8_t *data, size_t size)
{
    if (size < FF7_SKELETON_HEADER) return 0;
    uint32_t n = ganim_ld_u32le(data + 12);
    if (n == 0 || (uint64_t)FF7_SKELETON_HEADER + 12u * (uint64_t)n != size) return 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *b = data + FF7_SKELETON_HEADER + 12u * i;
        int32_t parent = (int32_t)ganim_ld_u32le(b);
        float len = ganim_ld_f32le(b + 4);
        if (parent < -1 || parent >= (int32_t)i || !isfinite(len)) return 0;
    }
    return 75; /* an exact size and a valid tree are strong evidence */
}

/* Model skeleton of an ff7 skeleton: "root", bone_<i> as bone i+1, and "weapon". */
static ganim_code ff7_skeleton_build(ganim_doc *doc, const uint8_t *data, size_t size,
                                     ganim_skeleton **out, ganim_error *err)
{
    ganim_reader r = gr_init(data, size, 0);
    uint32_t words[13];
    for (int i = 0; i < 13; i++)
        if (!gr_u32le(&r, &words[i]))
            return ganim_fail(err, GANIM_ERR_TRUNCATED, gr_offset(&r),
                              "ff7-skeleton: the file ends inside the 52-byte header "
                              "(%zu bytes)", size);
    uint32_t n = words[3];
    uint64_t want = FF7_SKELETON_HEADER + (uint64_t)FF7_SKELETON_BONE * n;
    if (want != size)
        return ganim_fail(err, want > size ? GANIM_ERR_TRUNCATED : GANIM_ERR_CORRUPT, 12,
                          "ff7-skeleton: nBones %u needs a file of %llu bytes, this one has %zu",
                          n, (unsigned long long)want, size);
    uint32_t extra = words[10] ? 1u : 0u;
    ganim_skeleton *sk = ganim_doc_alloc(doc, sizeof *sk);
    uint32_t count = n + 1u + extra;
    ganim_bone *bones = sk ? ganim_doc_alloc_array(doc, count, sizeof *bones) : NULL;
    float *lengths = bones ? ganim_doc_alloc_array(doc, n ? n : 1, sizeof *lengths) : NULL;
    if (!lengths) return GANIM_NOMEM(err);
    sk->name = "";
    sk->bones = bones;
    sk->bone_count = count;
    for (uint32_t i = 0; i < count; i++) {
        bones[i].rest = ganim_transform_identity();
        bones[i].parent = -1;
    }
    bones[0].name = "root";
    for (uint32_t i = 0; i < n; i++) {
        uint64_t at = gr_offset(&r);
        int32_t parent = 0, has = 0;
        float len = 0;
        gr_i32le(&r, &parent);
        gr_f32le(&r, &len);
        gr_i32le(&r, &has);
        if (parent < -1 || parent >= (int32_t)i)
            return ganim_fail(err, GANIM_ERR_CORRUPT, at,
                              "ff7-skeleton: bone %u: parent %d is not an earlier bone", i,
                              (int)parent);
        if (!isfinite(len))
            return ganim_fail(err, GANIM_ERR_CORRUPT, at + 4,
                              "ff7-skeleton: bone %u: its length is not a finite number", i);
        lengths[i] = len;
        ganim_bone *b = &bones[i + 1];
        b->name = ganim_doc_printf(doc, "bone_%u", i);
        if (!b->name) return GANIM_NOMEM(err);
        b->parent = parent < 0 ? 0 : parent + 1;
        /* A child joint sits at the end of its parent: (0, 0, parent length). */
        if (parent >= 0) b->rest.translation.z = lengths[parent];
        if (!has) b->flags |= GANIM_BONE_HIDDEN;
    }
    if (extra) bones[n + 1].name = "weapon";
    sk->native_format = "ff7-skeleton";
    sk->native = ganim_doc_memdup(doc, data, size);
    sk->native_size = size;
    if (!sk->native) return GANIM_NOMEM(err);
    *out = sk;
    return GANIM_OK;
}

static ganim_code ff7_skeleton_read(ganim_doc *doc, const uint8_t *data, size_t size,
                                    const ganim_read_opts *opts, ganim_error *err)
{
    (void)opts;
    ganim_skeleton *sk = NULL;
    ganim_code c = ff7_skeleton_build(doc, data, size, &sk, err);
    if (c) return c;
    doc->skeleton = sk;
    doc->axes = GANIM_AXES_Y_DOWN;
    return GANIM_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Bit stream decoding (§2-§3 of the note)                                              */
/* ------------------------------------------------------------------------------------ */

unsigned ff7_rot_code_bits(int32_t v, unsigned bkey)
{
    if (v == 0) return 1;
    if (v == -1) return 4;
    for (unsigned n = 1; n <= 6; n++) {
        int32_t lo = (int32_t)1 << (n - 1), hi = ((int32_t)1 << n) - 1;
        if ((v >= lo && v <= hi) || (v >= -hi - 1 && v <= -lo - 1)) return 4 + n;
    }
    return 4 + 12 - bkey;
}

/* One rotation delta in units of 2^bkey; *nbits = bits the code took. */
static bool rd_rot_delta(ganim_bits *b, unsigned bkey, int32_t *v, unsigned *nbits)
{
    uint32_t f, t;
    size_t start = b->pos;
    if (!gb_msb_u(b, 1, &f)) return false;
    if (!f) {
        *v = 0;
    } else {
        if (!gb_msb_u(b, 3, &t)) return false;
        if (t == 0) {
            *v = -1;
        } else if (t == 7) {
            if (!gb_msb_s(b, 12 - bkey, v)) return false;
        } else {
            int32_t s;
            if (!gb_msb_s(b, t, &s)) return false;
            int32_t half = (int32_t)1 << (t - 1);
            *v = s < 0 ? s - half : s + half;
        }
    }
    *nbits = (unsigned)(b->pos - start);
    return true;
}

uint32_t ff7_decode_stream(const uint8_t *stream, size_t size, unsigned bkey, uint32_t slots,
                           uint32_t max_frames, int32_t *pos, uint16_t *rot, size_t *bits,
                           bool *shortest)
{
    ganim_bits b = gb_init(stream, size);
    size_t per = (size_t)slots * 3u;
    bool best = true;
    *bits = 0;
    if (max_frames == 0) return 0;
    for (int i = 0; i < 3; i++) {
        if (!gb_msb_s(&b, 16, &pos[i])) return 0;
    }
    for (size_t i = 0; i < per; i++) {
        int32_t v;
        if (!gb_msb_s(&b, 12 - bkey, &v)) return 0;
        rot[i] = (uint16_t)((uint32_t)v * (1u << bkey) & 0xFFFu);
    }
    uint32_t n = 1;
    size_t good = b.pos;
    while (n < max_frames) {
        const int32_t *pp = pos + (size_t)(n - 1) * 3u;
        const uint16_t *pr = rot + (size_t)(n - 1) * per;
        int32_t *cp = pos + (size_t)n * 3u;
        uint16_t *cr = rot + (size_t)n * per;
        bool ok = true, frame_best = true;
        for (int i = 0; i < 3 && ok; i++) {
            uint32_t f;
            int32_t d;
            ok = gb_msb_u(&b, 1, &f) && gb_msb_s(&b, f ? 16 : 7, &d);
            if (ok) {
                cp[i] = pp[i] + d;
                if (f && d >= -64 && d <= 63) frame_best = false;
            }
        }
        for (size_t i = 0; i < per && ok; i++) {
            int32_t v;
            unsigned nb;
            ok = rd_rot_delta(&b, bkey, &v, &nb);
            if (ok) {
                cr[i] = (uint16_t)(((uint32_t)pr[i] + (uint32_t)v * (1u << bkey)) & 0xFFFu);
                if (nb != ff7_rot_code_bits(v, bkey)) frame_best = false;
            }
        }
        if (!ok) break; /* the frame does not fit: it is not part of the animation */
        best = best && frame_best;
        good = b.pos;
        n++;
    }
    *bits = good;
    if (shortest) *shortest = best;
    return n;
}

/* ------------------------------------------------------------------------------------ */
/* Model conversion                                                                     */
/* ------------------------------------------------------------------------------------ */

ganim_quat ff7_raw_to_quat(const uint16_t raw[3])
{
    double xyz[3];
    for (int i = 0; i < 3; i++) xyz[i] = (double)(raw[i] & 0xFFFu) * FF7_TAU / 4096.0;
    return ganim_quat_from_euler(xyz, GANIM_EULER_YXZ);
}

static int32_t circ_dist(int32_t a, int32_t b)
{
    int32_t d = (a - b) & 4095;
    return d > 2048 ? 4096 - d : d;
}

static uint16_t quantise(double angle, unsigned bkey)
{
    double units = angle * 4096.0 / FF7_TAU / (double)(1u << bkey);
    long q = lround(units);
    return (uint16_t)(((uint32_t)q << bkey) & 0xFFFu);
}

void ff7_quat_to_raw(ganim_quat q, unsigned bkey, const uint16_t *prev, uint16_t out[3])
{
    double e[3];
    ganim_quat_to_euler(q, GANIM_EULER_YXZ, e);
    uint16_t a[3], b[3];
    for (int i = 0; i < 3; i++) a[i] = quantise(e[i], bkey);
    /* Ry(y)Rx(x)Rz(z) == Ry(y+pi)Rx(pi-x)Rz(z+pi): take the one nearer the previous frame,
     * so deltas stay small. */
    const double pi = FF7_TAU / 2;
    b[0] = quantise(pi - e[0], bkey);
    b[1] = quantise(e[1] + pi, bkey);
    b[2] = quantise(e[2] + pi, bkey);
    const uint16_t *pick = a;
    if (prev) {
        int32_t da = 0, db = 0;
        for (int i = 0; i < 3; i++) {
            da += circ_dist(a[i], prev[i]);
            db += circ_dist(b[i], prev[i]);
        }
        if (db < da) pick = b;
    }
    memcpy(out, pick, 3 * sizeof *out);
}

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

int32_t ff7_pos_bone(const ganim_doc *doc, int role)
{
    return ff7_slot_bone(doc, role, 0);
}

ganim_code ff7_clip_fill(ganim_doc *doc, ganim_clip *clip, const ff7_clip_info *in,
                         ganim_error *err)
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
    /* track index of each bone, -1 none; slot of each bone's rotation */
    int32_t *slot_of = ganim_doc_alloc_array(doc, nb, sizeof *slot_of);
    if (!slot_of) return GANIM_NOMEM(err);
    for (uint32_t i = 0; i < nb; i++) slot_of[i] = -1;
    for (uint32_t s = in->slots; s-- > 0;) {
        int32_t b = ff7_slot_bone(doc, in->role, s);
        if (b >= 0) slot_of[b] = (int32_t)s;
    }
    int32_t pb = ff7_pos_bone(doc, in->role);
    uint32_t count = 0;
    for (uint32_t i = 0; i < nb; i++)
        if (slot_of[i] >= 0 || (int32_t)i == pb) count++;
    ganim_track *tracks = ganim_doc_alloc_array(doc, count, sizeof *tracks);
    if (!tracks) return GANIM_NOMEM(err);
    uint32_t t = 0;
    size_t per = (size_t)in->slots * 3u;
    for (uint32_t i = 0; i < nb; i++) {
        if (slot_of[i] < 0 && (int32_t)i != pb) continue;
        ganim_track *tr = &tracks[t++];
        tr->bone = i;
        tr->name = sk->bones[i].name ? sk->bones[i].name : "";
        if (slot_of[i] >= 0) {
            float *v = ganim_doc_alloc_array(doc, (size_t)frames * 4u, sizeof *v);
            if (!v) return GANIM_NOMEM(err);
            for (uint32_t f = 0; f < frames; f++) {
                uint16_t raw[3];
                for (int k = 0; k < 3; k++)
                    raw[k] = ff7_info_rot(in, (size_t)f * per + (size_t)slot_of[i] * 3u + (size_t)k);
                ganim_quat q = ff7_raw_to_quat(raw);
                v[4 * f] = q.x;
                v[4 * f + 1] = q.y;
                v[4 * f + 2] = q.z;
                v[4 * f + 3] = q.w;
            }
            tr->rotation.kind = GANIM_CHANNEL_PER_FRAME;
            tr->rotation.count = frames;
            tr->rotation.values = v;
        }
        if ((int32_t)i == pb) {
            float *v = ganim_doc_alloc_array(doc, (size_t)frames * 3u, sizeof *v);
            if (!v) return GANIM_NOMEM(err);
            for (size_t k = 0; k < (size_t)frames * 3u; k++) v[k] = (float)ff7_info_pos(in, k);
            tr->translation.kind = GANIM_CHANNEL_PER_FRAME;
            tr->translation.count = frames;
            tr->translation.values = v;
        }
    }
    clip->tracks = tracks;
    clip->track_count = count;
    return GANIM_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Pack (??da)                                                                          */
/* ------------------------------------------------------------------------------------ */

static const char *role_name(int role)
{
    static const char *const names[] = { "body", "weapon", "extra", "anim" };
    return role >= 0 && role <= FF7_ROLE_UNKNOWN ? names[role] : "anim";
}

static int ff7_battle_probe(const uint8_t *data, size_t size)
{
    ganim_reader r = gr_init(data, size, 0);
    uint32_t n;
    if (!gr_u32le(&r, &n) || n == 0 || n > (size - 4) / 12) return 0;
    int animations = 0;
    for (uint32_t i = 0; i < n && i < 4096; i++) {
        uint32_t bones, frames, chunk;
        if (!gr_u32le(&r, &bones) || !gr_u32le(&r, &frames) || !gr_u32le(&r, &chunk)) return 0;
        if (chunk > gr_left(&r)) return 0;
        if (chunk >= 11) {
            uint16_t a = ganim_ld_u16le(r.data + r.pos), s = ganim_ld_u16le(r.data + r.pos + 2);
            uint8_t key = r.data[r.pos + 4];
            if (a == chunk - 5) { s = a; key = r.data[r.pos + 2]; }
            if ((key != 0 && key != 2 && key != 4) || 5u + s > chunk) return 0;
            animations++;
        }
        gr_skip(&r, chunk);
    }
    if (!animations) return 0;
    return gr_left(&r) == 0 || n > 4096 ? 70 : 40;
}

typedef struct pack_ctx {
    ganim_doc *doc;
    const uint8_t *data;
    size_t size;
    bool have_skel;
    ff7_skel_info skel;
    const ganim_allocator *alloc;
} pack_ctx;

static int entry_role(const pack_ctx *c, uint32_t index)
{
    if (!c->have_skel) return FF7_ROLE_UNKNOWN;
    uint64_t nb = c->skel.n_body_anims, nw = c->skel.n_weapon_anims;
    return index < nb ? FF7_ROLE_BODY : index < nb + nw ? FF7_ROLE_WEAPON : FF7_ROLE_EXTRA;
}

/* Rotation slots: from the skeleton when there is one (§4), else from dwBones. */
static uint64_t entry_slots(const pack_ctx *c, int role, uint32_t dw_bones)
{
    if (c->have_skel)
        return role == FF7_ROLE_WEAPON || c->skel.n_bones <= 1 ? 1 : (uint64_t)c->skel.n_bones + 1;
    return dw_bones ? dw_bones : 1;
}

/* Frames and scratch for decoding: frames bounded by what the stream can hold. */
static uint64_t frame_bound(uint64_t max, uint64_t bits, uint64_t f0, uint64_t slots)
{
    uint64_t fit = 1 + (bits - f0) / (24u + 3u * slots); /* a delta frame takes >= that */
    return max > fit ? fit : max;
}

/* For a chunk cut by the end of the file: the first frame that is not whole. */
static bool frames_before_cut(const pack_ctx *c, uint32_t index, uint32_t dw_bones,
                              const uint8_t *p, size_t avail, uint32_t chunk, uint32_t *whole)
{
    if (chunk < 11 || avail < 3) return false;
    uint16_t a = ganim_ld_u16le(p);
    bool frog = a == chunk - 5;
    if (!frog && avail < 5) return false;
    uint32_t s_size = frog ? a : ganim_ld_u16le(p + 2), hdr = frog ? 3 : 5;
    unsigned bkey = p[hdr - 1];
    if (bkey != 0 && bkey != 2 && bkey != 4) return false;
    uint64_t slots = entry_slots(c, entry_role(c, index), dw_bones);
    size_t bytes = avail - hdr < s_size ? avail - hdr : s_size;
    uint64_t f0 = 48u + slots * 3u * (12u - bkey);
    *whole = 0;
    if (f0 > (uint64_t)bytes * 8u) return true;
    uint64_t max = frame_bound(frog ? FF7_MAX_FRAMES : (a ? a : 1), (uint64_t)bytes * 8u, f0, slots);
    size_t npos = (size_t)max * 3u, nrot = npos * (size_t)slots, used;
    int32_t *pos = ganim_alloc(c->alloc, npos * sizeof *pos);
    uint16_t *rot = ganim_alloc(c->alloc, nrot * sizeof *rot);
    if (pos && rot)
        *whole = ff7_decode_stream(p + hdr, bytes, bkey, (uint32_t)slots, (uint32_t)max, pos, rot,
                                   &used, NULL);
    ganim_free(c->alloc, pos, npos * sizeof *pos);
    ganim_free(c->alloc, rot, nrot * sizeof *rot);
    return pos && rot;
}

static ganim_code read_entry(pack_ctx *c, uint32_t index, ganim_reader *r, ganim_clip *clip,
                             ganim_error *err)
{
    ganim_doc *doc = c->doc;
    uint64_t at = gr_offset(r);
    uint32_t dw_bones, dw_frames, chunk;
    if (!gr_u32le(r, &dw_bones) || !gr_u32le(r, &dw_frames) || !gr_u32le(r, &chunk))
        return ganim_fail(err, GANIM_ERR_TRUNCATED, at,
                          "ff7-battle: entry %u: the file ends inside its 12-byte header", index);
    if (chunk > gr_left(r)) {
        uint32_t whole = 0;
        if (frames_before_cut(c, index, dw_bones, r->data + r->pos, gr_left(r), chunk, &whole))
            return ganim_fail(err, GANIM_ERR_TRUNCATED, gr_offset(r) + gr_left(r),
                              "ff7-battle: entry %u: its chunk of %u bytes runs past the end of "
                              "the file (%zu bytes left; the first %u frames are whole)", index, chunk,
                              gr_left(r), whole);
        return ganim_fail(err, GANIM_ERR_TRUNCATED, at + 8,
                          "ff7-battle: entry %u: its chunk of %u bytes runs past the end of the "
                          "file (%zu bytes left)", index, chunk, gr_left(r));
    }
    ganim_reader ch;
    gr_sub(r, chunk, &ch);

    ff7_clip_info in;
    memset(&in, 0, sizeof in);
    in.role = (uint8_t)entry_role(c, index);
    in.dw_bones = dw_bones;
    in.dw_frames = dw_frames;
    in.dw_chunk = chunk;
    in.entry_offset = (uint32_t)at;
    clip->fps = FF7_FPS;

    if (chunk < 11) { /* special slot: opaque, kept verbatim */
        in.layout = FF7_LAYOUT_SPECIAL;
        clip->kind = GANIM_CLIP_OPAQUE;
        clip->name = ganim_doc_printf(doc, "special_%u", index);
        clip->opaque = ganim_doc_memdup(doc, ch.data, chunk);
        clip->opaque_size = chunk;
        clip->native = ff7_clip_native_build(doc, &in, NULL, NULL, &clip->native_size);
        clip->native_format = "ff7-battle";
        if (!clip->name || !clip->opaque || !clip->native) return GANIM_NOMEM(err);
        return GANIM_OK;
    }

    uint16_t a = 0, s_size = 0;
    uint8_t bkey = 0;
    gr_u16le(&ch, &a); /* chunk >= 11: the mini header is there */
    if (a == chunk - 5) { /* the frog layout: u16 sSize, u8 bKey, no sFrames */
        in.layout = FF7_LAYOUT_FROG;
        s_size = a;
        gr_u8(&ch, &bkey);
    } else {
        in.layout = FF7_LAYOUT_NORMAL;
        in.s_frames = a;
        gr_u16le(&ch, &s_size);
        gr_u8(&ch, &bkey);
        if (5u + (uint32_t)s_size > chunk)
            return ganim_fail(err, GANIM_ERR_CORRUPT, at + 14,
                              "ff7-battle: entry %u: sSize %u does not fit in its %u-byte chunk",
                              index, s_size, chunk);
    }
    uint64_t key_at = gr_offset(&ch) - 1;
    if (bkey != 0 && bkey != 2 && bkey != 4)
        return ganim_fail(err, GANIM_ERR_CORRUPT, key_at,
                          "ff7-battle: entry %u: bKey %u is not 0, 2 or 4", index, bkey);
    in.bkey = bkey;
    in.s_size = s_size;
    const uint8_t *stream = NULL;
    gr_bytes(&ch, s_size, &stream); /* proven above: 5 + sSize <= chunk */
    uint64_t stream_at = gr_offset(&ch) - s_size;
    in.trailer_size = (uint32_t)gr_left(&ch);
    in.trailer = ch.data + ch.pos;
    in.stream = stream;
    in.stream_size = s_size;

    uint64_t slots = entry_slots(c, in.role, dw_bones);
    if (c->have_skel && slots != dw_bones)
        ganim_doc_warn(doc, at, "ff7-battle: entry %u: dwBones says %u, the skeleton gives %u "
                       "rotation slots (used)", index, dw_bones, (unsigned)slots);
    else if (!dw_bones)
        ganim_doc_warn(doc, at, "ff7-battle: entry %u: dwBones is 0; decoded with 1 slot", index);
    uint64_t bits = (uint64_t)s_size * 8u;
    uint64_t f0 = 48u + slots * 3u * (12u - bkey);
    if (f0 > bits)
        return ganim_fail(err, GANIM_ERR_TRUNCATED, stream_at,
                          "ff7-battle: entry %u: frame 0 needs %llu bits (%llu rotation slots at "
                          "bKey %u) but the stream has %u bytes%s", index,
                          (unsigned long long)f0, (unsigned long long)slots, bkey, s_size,
                          c->have_skel ? "" : "; is a skeleton needed?");
    in.slots = (uint32_t)slots;
    uint64_t max = in.layout == FF7_LAYOUT_FROG ? FF7_MAX_FRAMES : in.s_frames;
    if (max == 0) {
        ganim_doc_warn(doc, at + 12, "ff7-battle: entry %u: sFrames is 0; frame 0 is decoded "
                       "anyway", index);
        max = 1;
    }
    max = frame_bound(max, bits, f0, slots);
    size_t npos = (size_t)max * 3u, nrot = npos * (size_t)slots;
    int32_t *pos = ganim_alloc(c->alloc, npos * sizeof *pos);
    uint16_t *rot = ganim_alloc(c->alloc, nrot * sizeof *rot);
    if (!pos || !rot) {
        ganim_free(c->alloc, pos, npos * sizeof *pos);
        ganim_free(c->alloc, rot, nrot * sizeof *rot);
        return GANIM_NOMEM(err);
    }
    size_t used = 0;
    bool best = false;
    uint32_t n = ff7_decode_stream(stream, s_size, bkey, in.slots, (uint32_t)max, pos, rot,
                                   &used, &best);
    in.frames = n;
    in.stream_bits = (uint32_t)used;
    in.flags = best ? FF7_FLAG_SHORTEST : 0;
    if (in.layout == FF7_LAYOUT_NORMAL && n < in.s_frames)
        ganim_doc_warn(doc, stream_at + used / 8,
                       "ff7-battle: entry %u: sFrames says %u but only %u frames fit in the "
                       "%u-byte stream (frame %u is cut off)", index, in.s_frames, n, s_size, n);
    if (dw_frames != n)
        ganim_doc_warn(doc, at + 4, "ff7-battle: entry %u: dwFrames says %u, %u frames decoded",
                       index, dw_frames, n);
    for (size_t i = 0; i < npos; i++)
        if (i < (size_t)n * 3u && (pos[i] < -32768 || pos[i] > 32767)) {
            ganim_doc_warn(doc, stream_at, "ff7-battle: entry %u: frame %zu: a position leaves "
                           "the 16-bit range", index, i / 3);
            break;
        }
    size_t rec_size = 0;
    const uint8_t *rec = ff7_clip_native_build(doc, &in, pos, rot, &rec_size);
    ganim_free(c->alloc, pos, npos * sizeof *pos);
    ganim_free(c->alloc, rot, nrot * sizeof *rot);
    clip->name = ganim_doc_printf(doc, "%s_%u", role_name(in.role), index);
    if (!rec || !clip->name) return GANIM_NOMEM(err);
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->native_format = "ff7-battle";
    clip->native = rec;
    clip->native_size = rec_size;
    clip->frame_count = n;
    return GANIM_OK;
}

/* Without an ff7 skeleton: root + bone_<i> under it, enough for the widest entry. */
static ganim_skeleton *flat_skeleton(ganim_doc *doc, uint32_t slots)
{
    ganim_skeleton *sk = ganim_doc_alloc(doc, sizeof *sk);
    ganim_bone *b = sk ? ganim_doc_alloc_array(doc, slots, sizeof *b) : NULL;
    if (!b) return NULL;
    sk->name = "";
    sk->bones = b;
    sk->bone_count = slots;
    for (uint32_t i = 0; i < slots; i++) {
        b[i].rest = ganim_transform_identity();
        b[i].parent = i ? 0 : -1;
        b[i].flags = GANIM_BONE_SYNTH;
        b[i].name = i ? ganim_doc_printf(doc, "bone_%u", i - 1) : "root";
        if (!b[i].name) return NULL;
    }
    return sk;
}

static ganim_code ff7_battle_read(ganim_doc *doc, const uint8_t *data, size_t size,
                                  const ganim_read_opts *opts, ganim_error *err)
{
    pack_ctx c;
    memset(&c, 0, sizeof c);
    c.doc = doc;
    c.data = data;
    c.size = size;
    c.alloc = ganim_doc_allocator(doc);
    const ganim_skeleton *given = opts ? opts->skeleton : NULL;
    c.have_skel = ff7_skel_info_parse(given, &c.skel);
    if (given && given->native_format && !c.have_skel &&
        strcmp(given->native_format, "ff7-skeleton") == 0)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "ff7-battle: the given skeleton's ff7 record is damaged");

    ganim_reader r = gr_init(data, size, 0);
    uint32_t n;
    if (!gr_u32le(&r, &n))
        return ganim_fail(err, GANIM_ERR_TRUNCATED, 0,
                          "ff7-battle: the file is %zu bytes, too short for the entry count", size);
    /* Every entry takes 12 bytes or more: more than that cannot be there, and the entry
     * walk below fails at the first missing one, naming it (and its cut frame). */
    size_t room = gr_left(&r) / 12;
    if (c.have_skel && (uint64_t)c.skel.n_body_anims + c.skel.n_weapon_anims > n)
        ganim_doc_warn(doc, 0, "ff7-battle: the skeleton announces %u body and %u weapon "
                       "animations but the pack has %u entries", c.skel.n_body_anims,
                       c.skel.n_weapon_anims, n);
    ganim_clip *clips = ganim_doc_alloc_array(doc, n < room ? (n ? n : 1) : room + 1, sizeof *clips);
    if (!clips) return GANIM_NOMEM(err);
    doc->clips = clips;
    doc->clip_count = 0;
    uint32_t widest = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (i > room) /* unreachable: read_entry failed before */
            return ganim_fail(err, GANIM_ERR_TRUNCATED, gr_offset(&r),
                              "ff7-battle: entry %u: the file ends before it", i);
        ganim_code code = read_entry(&c, i, &r, &clips[i], err);
        if (code) return code;
        doc->clip_count = i + 1;
        ff7_clip_info in;
        if (clips[i].kind == GANIM_CLIP_ANIMATION && ff7_clip_info_parse(&clips[i], &in) &&
            in.slots > widest)
            widest = in.slots;
    }
    size_t tail = gr_left(&r);
    if (tail)
        ganim_doc_warn(doc, gr_offset(&r), "ff7-battle: %zu bytes after the last entry (kept)",
                       tail);
    uint8_t *dn = ganim_doc_alloc(doc, FF7_DOC_HEADER + tail);
    if (!dn) return GANIM_NOMEM(err);
    put32(dn, FF7_DOC_MAGIC);
    put32(dn + 4, n);
    put32(dn + 8, (uint32_t)(size > UINT32_MAX ? UINT32_MAX : size));
    put32(dn + 12, c.have_skel ? c.skel.n_body_anims : UINT32_MAX);
    put32(dn + 16, c.have_skel ? c.skel.n_weapon_anims : 0);
    put32(dn + 20, (uint32_t)tail);
    if (tail) memcpy(dn + FF7_DOC_HEADER, r.data + r.pos, tail);
    doc->native_format = "ff7-battle";
    doc->native = dn;
    doc->native_size = FF7_DOC_HEADER + tail;
    doc->axes = GANIM_AXES_Y_DOWN;

    /* The model skeleton: the given one (copied), or a flat one wide enough. */
    if (given && (c.have_skel || given->bone_count >= widest)) {
        doc->skeleton = ganim_skeleton_copy(doc, given);
        if (!doc->skeleton) return GANIM_NOMEM(err);
    } else {
        if (given)
            ganim_doc_warn(doc, GANIM_NO_OFFSET, "ff7-battle: the given skeleton has %u bones, "
                           "fewer than the %u rotation slots; a flat skeleton is used",
                           given->bone_count, widest);
        doc->skeleton = flat_skeleton(doc, widest);
        if (!doc->skeleton) return GANIM_NOMEM(err);
    }
    for (uint32_t i = 0; i < n; i++) {
        ff7_clip_info in;
        if (clips[i].kind != GANIM_CLIP_ANIMATION) continue;
        if (!ff7_clip_info_parse(&clips[i], &in))
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                              "ff7-battle: entry %u: internal record check failed", i);
        ganim_code code = ff7_clip_fill(doc, &clips[i], &in, err);
        if (code) return code;
    }
    return GANIM_OK;
}

/* ------------------------------------------------------------------------------------ */
/* describe                                                                             */
/* ------------------------------------------------------------------------------------ */

static const char *layout_name(int layout)
{
    return layout == FF7_LAYOUT_FROG ? "frog" : layout == FF7_LAYOUT_SPECIAL ? "special" : "normal";
}

static void hex(ganim_writer *w, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        char s[3] = { digits[p[i] >> 4], digits[p[i] & 15], 0 };
        gw_str(w, s);
    }
}

static void describe_clip(const ganim_clip *clip, uint32_t index, int mode, ganim_writer *w)
{
    ff7_clip_info in;
    if (!ff7_clip_info_parse(clip, &in)) return;
    bool special = in.layout == FF7_LAYOUT_SPECIAL;
    double per = in.frames > 1 ? (double)(in.stream_bits - (48u + in.slots * 3u * (12u - in.bkey))) /
                                     (double)(in.frames - 1)
                               : 0.0;
    if (mode == GANIM_DESCRIBE_TEXT) {
        gw_printf(w, "slot: %u\nkind: %s\nrole: %s\n", index, special ? "special" : "animation",
                  role_name(in.role));
        gw_printf(w, "header: dwBones %u, dwFrames %u, dwChunkSize %u\n", in.dw_bones,
                  in.dw_frames, in.dw_chunk);
        if (special) {
            gw_printf(w, "bytes: %zu\n", clip->opaque_size);
            return;
        }
        gw_printf(w, "layout: %s\n", layout_name(in.layout));
        if (in.layout == FF7_LAYOUT_FROG)
            gw_printf(w, "frames: sFrames none (frog layout), dwFrames %u, decoded %u\n",
                      in.dw_frames, in.frames);
        else
            gw_printf(w, "frames: sFrames %u, dwFrames %u, decoded %u\n", in.s_frames,
                      in.dw_frames, in.frames);
        gw_printf(w, "bkey: %u\nslots: %u\nstream: %u bytes, %u bits used, %s codes\n", in.bkey,
                  in.slots, in.s_size, in.stream_bits,
                  (in.flags & FF7_FLAG_SHORTEST) ? "shortest" : "not all shortest");
        unsigned tenths = (unsigned)lround(per * 10);
        gw_printf(w, "bits_per_frame: %u for frame 0, %u.%u on average after it\n",
                  48u + in.slots * 3u * (12u - in.bkey), tenths / 10, tenths % 10);
        gw_printf(w, "trailer: %u bytes\n", in.trailer_size);
        return;
    }
    gw_printf(w, "{\"slot\":%u,\"kind\":\"%s\",\"role\":\"%s\",\"dwBones\":%u,\"dwFrames\":%u,"
              "\"dwChunkSize\":%u", index, special ? "special" : "animation", role_name(in.role),
              in.dw_bones, in.dw_frames, in.dw_chunk);
    if (special) {
        gw_str(w, ",\"raw_hex\":\"");
        hex(w, clip->opaque, clip->opaque_size);
        gw_str(w, "\"}");
        return;
    }
    gw_printf(w, ",\"layout\":\"%s\",\"sFrames\":", layout_name(in.layout));
    if (in.layout == FF7_LAYOUT_FROG) gw_str(w, "null");
    else gw_printf(w, "%u", in.s_frames);
    gw_printf(w, ",\"frames\":%u,\"sSize\":%u,\"bKey\":%u,\"slots\":%u,\"stream_bits\":%u,"
              "\"frame0_bits\":%u,\"bits_per_frame\":", in.frames, in.s_size, in.bkey, in.slots,
              in.stream_bits, 48u + in.slots * 3u * (12u - in.bkey));
    gw_double(w, per);
    gw_printf(w, ",\"shortest_codes\":%s,\"trailer_hex\":\"",
              (in.flags & FF7_FLAG_SHORTEST) ? "true" : "false");
    hex(w, in.trailer, in.trailer_size);
    gw_str(w, "\"");
    if (mode == GANIM_DESCRIBE_FULL) {
        size_t per_f = (size_t)in.slots * 3u;
        gw_str(w, ",\"positions\":[");
        for (uint32_t f = 0; f < in.frames; f++)
            gw_printf(w, "%s[%d,%d,%d]", f ? "," : "", (int)ff7_info_pos(&in, f * 3u),
                      (int)ff7_info_pos(&in, f * 3u + 1), (int)ff7_info_pos(&in, f * 3u + 2));
        gw_str(w, "],\"rotations\":[");
        for (uint32_t f = 0; f < in.frames; f++) {
            gw_str(w, f ? ",[" : "[");
            for (uint32_t s = 0; s < in.slots; s++) {
                size_t k = (size_t)f * per_f + (size_t)s * 3u;
                gw_printf(w, "%s[%u,%u,%u]", s ? "," : "", ff7_info_rot(&in, k),
                          ff7_info_rot(&in, k + 1), ff7_info_rot(&in, k + 2));
            }
            gw_str(w, "]");
        }
        gw_str(w, "]");
    }
    gw_str(w, "}");
}

static ganim_code ff7_battle_describe(const ganim_doc *doc, int clip, int mode,
                                      ganim_buffer *out, ganim_error *err)
{
    ganim_writer w = gw_init(out, &out->allocator);
    if (clip >= 0) {
        if ((uint32_t)clip >= doc->clip_count)
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "ff7-battle: describe: no clip %d", clip);
        describe_clip(&doc->clips[clip], (uint32_t)clip, mode, &w);
        return gw_ok(&w) ? GANIM_OK : GANIM_NOMEM(err);
    }
    ff7_doc_info di;
    bool have = ff7_doc_info_parse(doc, &di);
    uint32_t counts[4] = { 0, 0, 0, 0 }, special = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        ff7_clip_info in;
        if (!ff7_clip_info_parse(&doc->clips[i], &in)) continue;
        counts[in.role]++;
        if (in.layout == FF7_LAYOUT_SPECIAL) special++;
    }
    if (mode == GANIM_DESCRIBE_TEXT) {
        gw_printf(&w, "entries: %u (body %u, weapon %u, extra %u, unknown role %u; "
                  "%u special)\n", doc->clip_count, counts[0], counts[1], counts[2], counts[3],
                  special);
        if (have) {
            gw_printf(&w, "roles: %s\n", di.n_body == UINT32_MAX
                                             ? "unknown (no skeleton: slots from dwBones)"
                                             : "from the skeleton's animation counts");
            gw_printf(&w, "tail: %u bytes after the last entry\n", di.tail_size);
        }
        /* What writing it back would give: the encoder's size against the input. */
        ganim_buffer enc = { 0 };
        enc.allocator = out->allocator;
        ganim_write_opts wo;
        memset(&wo, 0, sizeof wo);
        wo.allocator = out->allocator;
        ganim_error e2;
        if (ff7_battle_write(doc, &wo, &enc, &e2) == GANIM_OK) {
            gw_printf(&w, "encoded_size: %zu bytes", enc.size);
            if (have && di.input_size) {
                gw_str(&w, " (ratio ");
                gw_double(&w, (double)enc.size / (double)di.input_size);
                gw_printf(&w, " to the %u-byte input)", di.input_size);
            }
            gw_str(&w, "\n");
        } else {
            gw_printf(&w, "encoded_size: cannot encode (%s)\n", e2.message);
        }
        ganim_buffer_free(&enc);
    } else {
        gw_printf(&w, "{\"entries\":%u,\"body\":%u,\"weapon\":%u,\"extra\":%u,\"unknown_role\":%u,"
                  "\"special\":%u", doc->clip_count, counts[0], counts[1], counts[2], counts[3],
                  special);
        if (have) {
            gw_printf(&w, ",\"nEntries\":%u,\"input_size\":%u,\"tail_hex\":\"", di.n_entries,
                      di.input_size);
            hex(&w, di.tail, di.tail_size);
            gw_str(&w, "\"");
        }
        gw_str(&w, "}");
    }
    return gw_ok(&w) ? GANIM_OK : GANIM_NOMEM(err);
}

static ganim_code ff7_skeleton_describe(const ganim_doc *doc, int clip, int mode,
                                        ganim_buffer *out, ganim_error *err)
{
    ff7_skel_info si;
    if (clip >= 0 || !ff7_skel_info_parse(doc->skeleton, &si)) return GANIM_OK;
    static const char *const names[13] = {
        "skeleton_type", "unk_04", "unk_08", "nBones", "unk_10", "nJoints", "nTextures",
        "nsSkeletonAnims", "unk_20", "nWeapons", "nsWeaponsAnims", "unk_2c", "unk_30"
    };
    ganim_writer w = gw_init(out, &out->allocator);
    gw_str(&w, mode == GANIM_DESCRIBE_TEXT ? "" : "{");
    for (int i = 0; i < 13; i++) {
        if (mode == GANIM_DESCRIBE_TEXT) gw_printf(&w, "%s: %u\n", names[i], si.words[i]);
        else gw_printf(&w, "%s\"%s\":%u", i ? "," : "", names[i], si.words[i]);
    }
    if (mode != GANIM_DESCRIBE_TEXT) gw_str(&w, "}");
    return gw_ok(&w) ? GANIM_OK : GANIM_NOMEM(err);
}

const ganim_format ganim_format_ff7_battle = {
    "ff7-battle",
    "FF7 PC battle animation pack (??da, *.a00)",
    ".da;.a00",
    0,
    ff7_battle_probe,
    ff7_battle_read,
    ff7_battle_write,
    ff7_battle_resample,
    ff7_battle_describe,
};

const ganim_format ganim_format_ff7_skeleton = {
    "ff7-skeleton",
    "FF7 PC battle skeleton (??aa)",
    ".aa",
    1,
    ff7_skeleton_probe,
    ff7_skeleton_read,
    NULL,
    NULL,
    ff7_skeleton_describe,
};
