/* FF7 PC battle animation packs (??da, *.a00): the probe and the reader. Every entry
 * keeps its slot: special entries become opaque clips, the frog layout is recognised,
 * trailers and the bytes after the last entry are kept for the writer. */
#include <stdio.h>
#include <string.h>

#include "formats/ff7/ff7.h"
#include "io/bytes.h"

/* A role's name, and the prefix of its clips' names (body_3) */
static const char *const role_names[][2] = {
    { "body", "body_" }, { "weapon", "weapon_" }, { "extra", "extra_" }, { "anim", "anim_" }
};
static const char *role_text(int role, int prefix)
{
    return role_names[role >= 0 && role <= FF7_ROLE_UNKNOWN ? role : FF7_ROLE_UNKNOWN][prefix];
}

const char *ff7_role_name(int role) { return role_text(role, 0); }

int ff7_battle_probe(const uint8_t *data, size_t size)
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
            if (a == chunk - 5) {
                s = a;
                key = r.data[r.pos + 2];
            }
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
    uint64_t fill_nb; /* the model's bones as fill_bytes takes them (ff7_battle_read) */
} pack_ctx;

static int entry_role(const pack_ctx *c, uint32_t index)
{
    if (!c->have_skel) return FF7_ROLE_UNKNOWN;
    uint64_t nb = c->skel.n_body_anims, nw = c->skel.n_weapon_anims;
    return index < nb ? FF7_ROLE_BODY : index < nb + nw ? FF7_ROLE_WEAPON : FF7_ROLE_EXTRA;
}

/* Rotation slots: from the skeleton when there is one, else from dwBones (the rule:
 * docs/formats/ff7-battle.md, "Rotation slots per frame"). */
static uint64_t entry_slots(const pack_ctx *c, int role, uint32_t dw_bones)
{
    if (c->have_skel) return role == FF7_ROLE_WEAPON || c->skel.n_bones <= 1 ? 1 : (uint64_t)c->skel.n_bones + 1;
    return dw_bones ? dw_bones : 1;
}

/* Frames and scratch for decoding: frames bounded by what the stream can hold. */
static uint64_t frame_bound(uint64_t max, uint64_t bits, uint64_t f0, uint64_t slots)
{
    uint64_t fit = 1 + (bits - f0) / (24u + 3u * slots); /* a delta frame takes >= that */
    return max > fit ? fit : max;
}

/* For a chunk cut by the end of the file: the first frame that is not whole. */
static bool frames_before_cut(const pack_ctx *c, uint32_t index, uint32_t dw_bones, const uint8_t *p, size_t avail,
                              uint32_t chunk, uint32_t *whole)
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
        *whole = ff7_decode_stream(p + hdr, bytes, bkey, (uint32_t)slots, (uint32_t)max, pos, rot, &used, NULL);
    ganim_free(c->alloc, pos, npos * sizeof *pos);
    ganim_free(c->alloc, rot, nrot * sizeof *rot);
    return pos && rot;
}

/* An animation entry between its header and its stream's decoding (read_entry_head) and
 * after it (read_entry_end): the pack reader decodes the streams of several entries
 * together (read_entries, ff7_decode_stream_list). The warnings the header gives are kept here and told by
 * read_entry_end, before those of the decoding, so that every warning comes in the
 * order of a one-entry-at-a-time read. */
typedef struct pack_entry {
    ganim_clip *clip;
    uint64_t at, stream_at, max;
    uint8_t *room; /* little-endian host: the record decoded into; else pos and rot are scratch */
    ff7_stream_job job;
    ff7_clip_info in;
    uint32_t index;
    int warn;   /* the header's warnings: 1 dwBones against the skeleton, 2 dwBones 0 */
    bool anim;  /* false: a special slot, done by read_entry_head */
    bool warn0; /* sFrames is 0 */
} pack_entry;

static void entry_head_warnings(const pack_ctx *c, const pack_entry *e)
{
    ganim_doc *doc = c->doc;
    if (e->warn == 1)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, e->at,
                       "ff7-battle: entry %u: dwBones says %u, the skeleton gives %u "
                       "rotation slots (used)",
                       e->index, e->in.dw_bones, e->in.slots);
    else if (e->warn == 2)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, e->at, "ff7-battle: entry %u: dwBones is 0; decoded with 1 slot",
                       e->index);
    if (e->warn0)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, e->at + 12,
                       "ff7-battle: entry %u: sFrames is 0; frame 0 is decoded "
                       "anyway",
                       e->index);
}

/* The scratch arrays of a big-endian host's entry. */
static void entry_drop(const pack_ctx *c, pack_entry *e)
{
    if (!e->anim || e->room) return;
    size_t npos = (size_t)e->max * 3u, nrot = npos * (size_t)e->in.slots;
    ganim_free(c->alloc, e->job.pos, npos * sizeof *e->job.pos);
    ganim_free(c->alloc, e->job.rot, nrot * sizeof *e->job.rot);
    e->job.pos = NULL;
    e->job.rot = NULL;
}

/* Entry `index`'s header, up to its stream: a special slot is done here (e->anim false);
 * an animation gets its record's room (or scratch) and its decoding job. On failure,
 * e's warnings so far are those entry_head_warnings tells. */
static ganim_code read_entry_head(pack_ctx *c, uint32_t index, ganim_reader *r, ganim_clip *clip, pack_entry *e,
                                  ganim_error *err)
{
    ganim_doc *doc = c->doc;
    memset(e, 0, sizeof *e);
    e->index = index;
    e->clip = clip;
    uint64_t at = gr_offset(r);
    e->at = at;
    uint32_t dw_bones, dw_frames, chunk;
    if (!gr_u32le(r, &dw_bones) || !gr_u32le(r, &dw_frames) || !gr_u32le(r, &chunk))
        return ganim_fail(err, GANIM_ERR_TRUNCATED, at, "ff7-battle: entry %u: the file ends inside its 12-byte header",
                          index);
    if (chunk > gr_left(r)) {
        uint32_t whole = 0;
        if (frames_before_cut(c, index, dw_bones, r->data + r->pos, gr_left(r), chunk, &whole))
            return ganim_fail(err, GANIM_ERR_TRUNCATED, gr_offset(r) + gr_left(r),
                              "ff7-battle: entry %u: its chunk of %u bytes runs past the end of "
                              "the file (%zu bytes left; the first %u frames are whole)",
                              index, chunk, gr_left(r), whole);
        return ganim_fail(err, GANIM_ERR_TRUNCATED, at + 8,
                          "ff7-battle: entry %u: its chunk of %u bytes runs past the end of the "
                          "file (%zu bytes left)",
                          index, chunk, gr_left(r));
    }
    ganim_reader ch;
    gr_sub(r, chunk, &ch);

    ff7_clip_info *in = &e->in;
    in->role = (uint8_t)entry_role(c, index);
    in->dw_bones = dw_bones;
    in->dw_frames = dw_frames;
    in->dw_chunk = chunk;
    in->entry_offset = (uint32_t)at;
    clip->fps = FF7_FPS;

    if (chunk < 11) { /* special slot: opaque, kept verbatim */
        in->layout = FF7_LAYOUT_SPECIAL;
        clip->kind = GANIM_CLIP_OPAQUE;
        clip->name = ganim_doc_name_u32(doc, "special_", index);
        clip->opaque = ganim_doc_memdup(doc, ch.data, chunk);
        clip->opaque_size = chunk;
        clip->native = ff7_clip_native_build(doc, in, NULL, NULL, &clip->native_size);
        clip->native_format = "ff7-battle";
        if (!clip->name || !clip->opaque || !clip->native) return GANIM_NOMEM(err);
        return GANIM_OK;
    }

    uint16_t a = 0, s_size = 0;
    uint8_t bkey = 0;
    gr_u16le(&ch, &a);    /* chunk >= 11: the mini header is there */
    if (a == chunk - 5) { /* the frog layout: u16 sSize, u8 bKey, no sFrames */
        in->layout = FF7_LAYOUT_FROG;
        s_size = a;
        gr_u8(&ch, &bkey);
    } else {
        in->layout = FF7_LAYOUT_NORMAL;
        in->s_frames = a;
        gr_u16le(&ch, &s_size);
        gr_u8(&ch, &bkey);
        if (5u + (uint32_t)s_size > chunk)
            return ganim_fail(err, GANIM_ERR_CORRUPT, at + 14,
                              "ff7-battle: entry %u: sSize %u does not fit in its %u-byte chunk", index, s_size, chunk);
    }
    uint64_t key_at = gr_offset(&ch) - 1;
    if (bkey != 0 && bkey != 2 && bkey != 4)
        return ganim_fail(err, GANIM_ERR_CORRUPT, key_at, "ff7-battle: entry %u: bKey %u is not 0, 2 or 4", index,
                          bkey);
    in->bkey = bkey;
    in->s_size = s_size;
    const uint8_t *stream = NULL;
    gr_bytes(&ch, s_size, &stream); /* proven above: 5 + sSize <= chunk */
    uint64_t stream_at = gr_offset(&ch) - s_size;
    e->stream_at = stream_at;
    in->trailer_size = (uint32_t)gr_left(&ch);
    in->trailer = ch.data + ch.pos;
    in->stream = stream;
    in->stream_size = s_size;

    uint64_t slots = entry_slots(c, in->role, dw_bones);
    in->slots = (uint32_t)slots; /* for the warning's text; checked below */
    if (c->have_skel && slots != dw_bones) e->warn = 1;
    else if (!dw_bones) e->warn = 2;
    uint64_t bits = (uint64_t)s_size * 8u;
    uint64_t f0 = 48u + slots * 3u * (12u - bkey);
    if (f0 > bits)
        return ganim_fail(err, GANIM_ERR_TRUNCATED, stream_at,
                          "ff7-battle: entry %u: frame 0 needs %llu bits (%llu rotation slots at "
                          "bKey %u) but the stream has %u bytes%s",
                          index, (unsigned long long)f0, (unsigned long long)slots, bkey, s_size,
                          c->have_skel ? "" : "; is a skeleton needed?");
    uint64_t max = in->layout == FF7_LAYOUT_FROG ? FF7_MAX_FRAMES : in->s_frames;
    if (max == 0) {
        e->warn0 = true;
        max = 1;
    }
    max = frame_bound(max, bits, f0, slots);
    /* the check is pure: the entry's name (a snprintf, ~750 instructions) only for the
     * error, by the same check again */
    ganim_error scratch;
    if (ganim_check_counts(doc, at, "", max, slots, 0, &scratch) != GANIM_OK) {
        char what[48];
        snprintf(what, sizeof what, "ff7-battle: entry %u", index);
        return ganim_check_counts(doc, at, what, max, slots, 0, err);
    }
    size_t npos = (size_t)max * 3u, nrot = npos * (size_t)slots;
    int32_t *pos = NULL;
    uint16_t *rot = NULL;
    if (ff7_host_little_endian()) { /* decoded straight into the clip's record */
        e->room = ff7_clip_native_room(c->doc, (uint32_t)max, in->slots, in->trailer_size, in->stream_size, &pos, &rot);
        if (!e->room) return GANIM_NOMEM(err);
    } else {
        pos = ganim_alloc(c->alloc, npos * sizeof *pos);
        rot = ganim_alloc(c->alloc, nrot * sizeof *rot);
        if (!pos || !rot) {
            ganim_free(c->alloc, pos, npos * sizeof *pos);
            ganim_free(c->alloc, rot, nrot * sizeof *rot);
            return GANIM_NOMEM(err);
        }
    }
    e->anim = true;
    e->max = max;
    e->job.stream = stream;
    e->job.size = s_size;
    e->job.bkey = bkey;
    e->job.slots = in->slots;
    e->job.max_frames = (uint32_t)max;
    e->job.pos = pos;
    e->job.rot = rot;
    return GANIM_OK;
}

/* An animation entry once its stream is decoded: the warnings, the record, the clip. */
static ganim_code read_entry_end(pack_ctx *c, pack_entry *e, ganim_error *err)
{
    ganim_doc *doc = c->doc;
    ff7_clip_info *in = &e->in;
    uint32_t index = e->index, n = e->job.frames;
    size_t used = e->job.bits;
    const int32_t *pos = e->job.pos;
    entry_head_warnings(c, e);
    in->frames = n;
    in->stream_bits = (uint32_t)used;
    in->flags = e->job.shortest ? FF7_FLAG_SHORTEST : 0;
    if (in->layout == FF7_LAYOUT_NORMAL && n < in->s_frames)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, e->stream_at + used / 8,
                       "ff7-battle: entry %u: sFrames says %u but only %u frames fit in the "
                       "%u-byte stream (frame %u is cut off)",
                       index, in->s_frames, n, in->s_size, n);
    if (in->dw_frames != n)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, e->at + 4,
                       "ff7-battle: entry %u: dwFrames says %u, %u frames decoded", index, in->dw_frames, n);
    /* the decoded frames' positions: whether one leaves the 16-bit range first, over all
     * of them with no branch (v is in -32768..32767 exactly when v + 32768, modulo 2^32,
     * is below 65536; the compiler makes the loop vector), then the first such frame */
    size_t npos = (size_t)e->max * 3u, lim = npos < (size_t)n * 3u ? npos : (size_t)n * 3u;
    uint32_t out_of_range = 0;
    for (size_t i = 0; i < lim; i++) out_of_range |= ((uint32_t)pos[i] + 32768u) >> 16;
    for (size_t i = 0; out_of_range && i < lim; i++)
        if (pos[i] < -32768 || pos[i] > 32767) {
            ganim_doc_warn(doc, GANIM_WARN_REPAIRED, e->stream_at,
                           "ff7-battle: entry %u: frame %zu: a position leaves "
                           "the 16-bit range",
                           index, i / 3);
            break;
        }
    size_t rec_size = 0;
    const uint8_t *rec = e->room;
    if (e->room) {
        rec_size = ff7_clip_native_seal(e->room, in, (uint32_t)e->max);
    } else {
        rec = ff7_clip_native_build(doc, in, e->job.pos, e->job.rot, &rec_size);
        entry_drop(c, e);
    }
    ganim_clip *clip = e->clip;
    clip->name = ganim_doc_name_u32(doc, role_text(in->role, 1), index);
    if (!rec || !clip->name) return GANIM_NOMEM(err);
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->native_format = "ff7-battle";
    clip->native = rec;
    clip->native_size = rec_size;
    clip->frame_count = n;
    return GANIM_OK;
}

/* Entries read together: up to FF7_BATCH headers, their streams decoded by
 * ff7_decode_stream_list (two side by side, each lane taking the next stream when its
 * own ends; with AVX2, 16 to 32 streams of one slot count and bKey first in vector
 * lanes, which need two vectors of 8 to pay), then the entries' ends in order. */
#define FF7_BATCH 32

/* ff7_clip_fill's allocation (a bound) for a clip of `slots` slots and `frames` frames
 * with a skeleton of nb bones: the tracks, a quaternion per frame of each slot with a
 * bone, a position per frame. */
static uint64_t fill_bytes(uint64_t nb, uint64_t slots, uint64_t frames)
{
    uint64_t bones = slots < nb ? slots : nb;
    return ganim_doc_room((bones + 1u) * sizeof(ganim_track)) + bones * ganim_doc_room(frames * 16u) +
           ganim_doc_room(frames * 12u);
}

/* The entries, FF7_BATCH at a time: the headers of entries i, i + 1, ... (up to the first
 * that fails), all their streams decoded, then each one's end in order. What a read
 * tells is that of one entry at a time: a header failing is told after the ends of the
 * entries before it (their warnings first), and read_entry_end tells each entry's header
 * warnings before its own. */
static ganim_code read_entries(pack_ctx *c, ganim_reader *r, uint32_t n, size_t room, ganim_clip *clips,
                               uint32_t *widest, uint64_t *fill, ganim_error *err)
{
    ganim_doc *doc = c->doc;
    for (uint32_t i = 0; i < n;) {
        if (i > room) /* unreachable: read_entry_head failed before */
            return ganim_fail(err, GANIM_ERR_TRUNCATED, gr_offset(r), "ff7-battle: entry %u: the file ends before it",
                              i);
        pack_entry e[FF7_BATCH];
        ff7_stream_job *jobs[FF7_BATCH];
        ganim_code code = read_entry_head(c, i, r, &clips[i], &e[0], err);
        if (code) {
            entry_head_warnings(c, &e[0]);
            return code;
        }
        uint32_t got = 1;
        ganim_code next = GANIM_OK; /* a later header's failure, told after the ends before it */
        ganim_error next_err;
        while (got < FF7_BATCH && i + got < n && i + got <= room) {
            next = read_entry_head(c, i + got, r, &clips[i + got], &e[got], err ? &next_err : NULL);
            if (next) break;
            got++;
        }
        size_t nj = 0;
        for (uint32_t k = 0; k < got; k++)
            if (e[k].anim) jobs[nj++] = &e[k].job;
        if (nj) ff7_decode_stream_list(jobs, nj);
        for (uint32_t k = 0; k < got; k++) {
            if (e[k].anim) {
                code = read_entry_end(c, &e[k], err);
                if (code) {
                    for (uint32_t m = k + 1; m < got; m++) entry_drop(c, &e[m]);
                    return code;
                }
            }
            doc->clip_count = i + k + 1;
            /* the slots and frames its record was sealed with (ff7_clip_info_parse of it
             * gives them back): no parse of the record just written */
            if (e[k].anim) {
                if (e[k].in.slots > *widest) *widest = e[k].in.slots;
                *fill += fill_bytes(c->fill_nb, e[k].in.slots, e[k].in.frames);
            }
        }
        if (next) {
            entry_head_warnings(c, &e[got]);
            if (err) *err = next_err;
            return next;
        }
        i += got;
    }
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
        b[i].name = i ? ganim_doc_name_u32(doc, "bone_", i - 1) : "root";
        if (!b[i].name) return NULL;
    }
    return sk;
}

static size_t size_bound(uint64_t n) { return n > SIZE_MAX ? SIZE_MAX : (size_t)n; }

/* The skeleton's: `given` copied, or a flat one of nb bones ("root", "bone_<i>"). */
static uint64_t skeleton_bytes(const ganim_skeleton *given, uint64_t nb)
{
    uint64_t total = ganim_doc_room(sizeof(ganim_skeleton)) + ganim_doc_room((nb ? nb : 1) * sizeof(ganim_bone));
    if (!given) return total + nb * ganim_doc_room(24);
    total += ganim_doc_room(given->name ? strlen(given->name) + 1u : 1u) + ganim_doc_room(given->native_size);
    for (uint32_t b = 0; b < given->bone_count; b++)
        total += ganim_doc_room(given->bones[b].name ? strlen(given->bones[b].name) + 1u : 1u);
    return total;
}

/* The skeleton of the model: the given one (copied) when it is an ff7 skeleton or wide
 * enough for every entry, else NULL (a flat one of `widest` bones). */
static const ganim_skeleton *model_skeleton(const pack_ctx *c, const ganim_skeleton *given, uint64_t widest)
{
    return given && (c->have_skel || given->bone_count >= widest) ? given : NULL;
}

/* A pack's document is made in one block of its arena (ganim_doc_reserve). Many 64 KiB
 * blocks made glibc give the freed heap back to the system after each read and fault it
 * in again at the next (966 page faults a read of the 60-animation pack, a third of its
 * time); one large block is handed out again whole. pack_bytes bounds every allocation
 * of a pack that reads without warnings, from the entries' headers: read_entry's (each
 * entry's name and record, with room for its frame bound), the clip list, the document's
 * record, the skeleton and ff7_clip_fill's for the frame bound. The bound is the frame
 * count itself but for a frog entry (no frame count: its bound is what its stream could
 * hold); model_bytes, once the frames are decoded, gives the model's exact share and
 * makes a second block only when the first has not that room left. A pack the walk
 * cannot follow ends the walk (the read fails there), and what does not fit goes to new
 * blocks as before. */
/* ganim_doc_reserve of a bound that stays within half the document's memory limit: an
 * over-counted bound (frog entries) never leaves a read short of room for what does not
 * fit the block (warnings). */
static void reserve(ganim_doc *doc, size_t bytes)
{
    if (bytes <= ganim_doc_memory_limit(doc) / 2) (void)ganim_doc_reserve(doc, bytes);
}

static size_t pack_bytes(const pack_ctx *c, uint32_t n, size_t room, const ganim_skeleton *given)
{
    ganim_reader r = gr_init(c->data, c->size, 0);
    gr_skip(&r, 4);
    uint64_t total = 0, widest = 1;
    for (uint32_t i = 0; i < n && i <= room; i++) {
        uint32_t dw_bones, dw_frames, chunk;
        if (!gr_u32le(&r, &dw_bones) || !gr_u32le(&r, &dw_frames) || !gr_u32le(&r, &chunk) || chunk > gr_left(&r))
            break;
        const uint8_t *p = r.data + r.pos;
        gr_skip(&r, chunk);
        total += ganim_doc_room(32); /* the clip's name */
        if (chunk < 11) {            /* special: its bytes and a record header */
            total += ganim_doc_room(chunk) + ganim_doc_room(FF7_CLIP_HEADER);
            continue;
        }
        uint32_t a = ganim_ld_u16le(p);
        bool frog = a == chunk - 5;
        uint32_t s_size = frog ? a : ganim_ld_u16le(p + 2), hdr = frog ? 3 : 5;
        unsigned bkey = p[hdr - 1];
        if ((bkey != 0 && bkey != 2 && bkey != 4) || hdr + s_size > chunk) break;
        uint64_t slots = entry_slots(c, entry_role(c, i), dw_bones);
        uint64_t bits = (uint64_t)s_size * 8u, f0 = 48u + slots * 3u * (12u - bkey);
        if (f0 > bits) break;
        uint64_t max = frame_bound(frog ? FF7_MAX_FRAMES : (a ? a : 1), bits, f0, slots);
        if (ganim_check_counts(c->doc, 0, "", max, slots, 0, NULL) != GANIM_OK) break;
        total += ganim_doc_room(FF7_CLIP_HEADER + max * 12u + max * slots * 6u + (chunk - hdr)); /* native_room */
        total += fill_bytes(slots, slots, max);
        if (slots > widest) widest = slots;
    }
    const ganim_skeleton *sk = model_skeleton(c, given, widest);
    uint64_t nb = sk ? sk->bone_count : widest;
    total += skeleton_bytes(sk, nb);
    uint64_t clips = n < room ? (n ? n : 1) : (uint64_t)room + 1u; /* as ff7_battle_read */
    return size_bound(total + ganim_doc_room(clips * sizeof(ganim_clip)) +
                      ganim_doc_room(FF7_DOC_HEADER + gr_left(&r)));
}

/* The model's share once the frames are decoded: the skeleton and ff7_clip_fill's
 * allocations for every animation (`fill`, summed by read_entries). */
static size_t model_bytes(const ganim_skeleton *sk, uint32_t widest, uint64_t fill)
{
    uint64_t nb = sk ? sk->bone_count : widest;
    return size_bound(skeleton_bytes(sk, nb) + fill);
}

ganim_code ff7_battle_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                           ganim_error *err)
{
    pack_ctx c;
    memset(&c, 0, sizeof c);
    c.doc = doc;
    c.data = data;
    c.size = size;
    c.alloc = ganim_doc_allocator(doc);
    const ganim_skeleton *given = opts ? opts->skeleton : NULL;
    c.have_skel = ff7_skel_info_parse(given, &c.skel);
    if (given && given->native_format && !c.have_skel && strcmp(given->native_format, "ff7-skeleton") == 0)
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
    ganim_code lc = ganim_check_counts(doc, 0, "ff7-battle: the pack", 0, 0, n < room ? n : room + 1, err);
    if (lc != GANIM_OK) return lc;
    reserve(doc, pack_bytes(&c, n, room, given)); /* see pack_bytes */
    if (c.have_skel && (uint64_t)c.skel.n_body_anims + c.skel.n_weapon_anims > n)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, 0,
                       "ff7-battle: the skeleton announces %u body and %u weapon "
                       "animations but the pack has %u entries",
                       c.skel.n_body_anims, c.skel.n_weapon_anims, n);
    ganim_clip *clips = ganim_doc_alloc_array(doc, n < room ? (n ? n : 1) : room + 1, sizeof *clips);
    if (!clips) return GANIM_NOMEM(err);
    doc->clips = clips;
    doc->clip_count = 0;
    uint32_t widest = 1;
    /* the model's bones for fill_bytes: the given skeleton's with an ff7 record;
     * otherwise the model's skeleton (the given one, as wide as every entry, or the flat
     * one of the widest) has a bone for every slot */
    c.fill_nb = c.have_skel && given ? given->bone_count : UINT64_MAX;
    uint64_t fill = 0;
    ganim_code code = read_entries(&c, &r, n, room, clips, &widest, &fill, err);
    if (code) return code;
    size_t tail = gr_left(&r);
    if (tail)
        ganim_doc_warn(doc, GANIM_WARN_EXTRA_BYTES, gr_offset(&r), "ff7-battle: %zu bytes after the last entry (kept)",
                       tail);
    uint8_t *dn = ganim_doc_alloc(doc, FF7_DOC_HEADER + tail);
    if (!dn) return GANIM_NOMEM(err);
    ganim_st_u32le(dn, FF7_DOC_MAGIC);
    ganim_st_u32le(dn + 4, n);
    ganim_st_u32le(dn + 8, (uint32_t)(size > UINT32_MAX ? UINT32_MAX : size));
    ganim_st_u32le(dn + 12, c.have_skel ? c.skel.n_body_anims : UINT32_MAX);
    ganim_st_u32le(dn + 16, c.have_skel ? c.skel.n_weapon_anims : 0);
    ganim_st_u32le(dn + 20, (uint32_t)tail);
    if (tail) memcpy(dn + FF7_DOC_HEADER, r.data + r.pos, tail);
    doc->native_format = "ff7-battle";
    doc->native = dn;
    doc->native_size = FF7_DOC_HEADER + tail;
    doc->axes = GANIM_AXES_Y_DOWN;

    /* The model skeleton: the given one (copied), or a flat one wide enough. */
    const ganim_skeleton *copy = model_skeleton(&c, given, widest);
    reserve(doc, model_bytes(copy, widest, fill)); /* see pack_bytes */
    if (copy) {
        doc->skeleton = ganim_skeleton_copy(doc, given);
        if (!doc->skeleton) return GANIM_NOMEM(err);
    } else {
        if (given)
            ganim_doc_warn(doc, GANIM_WARN_SKELETON, GANIM_NO_OFFSET,
                           "ff7-battle: the given skeleton has %u bones, "
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
        code = ff7_clip_fill(doc, &clips[i], &in, err);
        if (code) return code;
    }
    /* Every rotation channel is ff7_clip_fill's, each quaternion a product of three made
     * from the exact angle table: unit length within 2^-18 (ff7.h, "Unit length"). */
    ganim_doc_vouch_rotations(doc);
    ganim_doc_vouch_vectors(doc); /* translations: ff7_clip_fill's int32 positions as floats; no scale */
    /* Weapon animation i plays with body animation i (docs/formats/ff7-battle.md, "The
     * model": Kimera draws WeaponAnimations[i] with SkeletonAnimations[i], kujata pairs
     * them the same way): the exporters write the two as one animation. A special slot on
     * either side leaves the other alone. */
    for (uint32_t i = 0; c.have_skel && i < c.skel.n_body_anims && i < c.skel.n_weapon_anims; i++) {
        uint64_t w = (uint64_t)c.skel.n_body_anims + i;
        if (w >= n) break;
        if (clips[i].kind == GANIM_CLIP_ANIMATION && clips[w].kind == GANIM_CLIP_ANIMATION)
            clips[i].partner = (uint32_t)w + 1;
    }
    return GANIM_OK;
}
