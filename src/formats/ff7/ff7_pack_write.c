/* FF7 battle packs: the writer. Unchanged entries keep their original stream bytes;
 * any other clip is quantised to 12-bit angles and coded with the smallest bKey whose
 * stream fits 65535 bytes (or the one the ff7.bkey option forces). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/ff7/ff7.h"
#include "io/writer.h"

/* Smallest bKey from the candidates whose stream fits; rot is quantised in place to it.
 * Returns 0 and sets *bits, or a ganim_code. */
ganim_code ff7_choose_bkey(const int *cands, int ncand, uint32_t slots, uint32_t frames, const int32_t *pos,
                           uint16_t *rot, uint16_t *scratch, unsigned *key, size_t *bits, uint32_t index,
                           ganim_error *err)
{
    if (ncand <= 0)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ff7-battle: clip %u: no bKey to try", index);
    size_t n = (size_t)frames * slots * 3u;
    size_t best = 0;
    for (int c = 0; c < ncand; c++) {
        unsigned k = (unsigned)cands[c];
        /* bKey 0 quantises nothing (ff7_quantise_raw gives each value back): rot itself */
        const uint16_t *q = rot;
        if (k) {
            for (size_t i = 0; i < n; i++) scratch[i] = ff7_quantise_raw(rot[i], k);
            q = scratch;
        }
        best = ff7_stream_bits(k, slots, frames, pos, q);
        if (best == SIZE_MAX)
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              "ff7-battle: clip %u: a position or position step leaves the "
                              "16-bit range the format stores",
                              index);
        if ((best + 7) / 8 <= FF7_MAX_STREAM) {
            if (k) memcpy(rot, scratch, n * sizeof *rot);
            *key = k;
            *bits = best;
            return GANIM_OK;
        }
    }
    return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                      "ff7-battle: clip %u: the frame stream needs %zu bytes even at bKey %d, "
                      "more than the format's 65535",
                      index, (best + 7) / 8, cands[ncand - 1]);
}

typedef struct enc_ctx {
    const ganim_allocator *alloc;
    int forced; /* -1 or 0/2/4 */
} enc_ctx;

/* Does `stream`, decoded as the reader decodes an entry (at most `max` frames, bKey
 * `key`), give exactly `frames` frames of these values? A record's stream bytes come with
 * the record from wherever the document was read (a glTF's extras): nothing makes them
 * say the record's values, so they are written only when they do. *ok is false when
 * memory ran out. */
static bool stream_reads_back(const enc_ctx *c, const uint8_t *stream, size_t size, unsigned key, uint32_t slots,
                              uint32_t max, uint32_t frames, const int32_t *pos, const uint16_t *rot, bool *ok)
{
    uint32_t n = max < frames + 1u ? max : frames + 1u; /* one more frame would be a difference */
    size_t per = (size_t)slots * 3u, npos = (size_t)n * 3u, nrot = npos * slots;
    int32_t *dp = ganim_alloc(c->alloc, npos * sizeof *dp);
    uint16_t *dr = ganim_alloc(c->alloc, nrot * sizeof *dr);
    bool same = false;
    *ok = dp && dr;
    if (*ok) {
        size_t bits = 0;
        same = ff7_decode_stream(stream, size, key, slots, n, dp, dr, &bits, NULL) == frames &&
               memcmp(dp, pos, (size_t)frames * 3u * sizeof *dp) == 0 &&
               memcmp(dr, rot, (size_t)frames * per * sizeof *dr) == 0;
    }
    ganim_free(c->alloc, dp, npos * sizeof *dp);
    ganim_free(c->alloc, dr, nrot * sizeof *dr);
    return same;
}

/* The part a clip is written as (`part`: see write_animation): its record's (then *have),
 * else the part asked for, else the one its bones say. */
static int written_role(const ganim_doc *doc, const ganim_clip *clip, int part, ff7_clip_info *in, bool *have)
{
    *have = part < 0 && ff7_clip_info_parse(clip, in) && in->layout != FF7_LAYOUT_SPECIAL;
    return *have ? in->role : part >= 0 ? part : ff7_guess_role(doc, clip);
}

/* `part`: -1 the clip as its record or the guess says; FF7_ROLE_BODY or FF7_ROLE_WEAPON:
 * that part of a clip without a record that moves both (a glTF's body_3+weapon_9). */
static ganim_code write_animation(const enc_ctx *c, const ganim_doc *doc, uint32_t index, int part, ganim_writer *w,
                                  ganim_error *err)
{
    const ganim_clip *clip = &doc->clips[index];
    ff7_clip_info in;
    bool have;
    int role = written_role(doc, clip, part, &in, &have);
    uint32_t slots = have ? in.slots : ff7_slots_for(doc, clip, role);
    uint32_t frames = clip->frame_count;
    if (frames == 0 || frames > FF7_MAX_FRAMES)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "ff7-battle: clip %u: %u frames; FF7 stores 1 to 65535", index, frames);
    size_t npos = (size_t)frames * 3u, nrot;
    if (!ganim_mul_size(npos, slots, &nrot) || nrot > SIZE_MAX / 8)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, "ff7-battle: clip %u: too many values", index);
    int32_t *pos = ganim_alloc(c->alloc, npos * sizeof *pos);
    uint16_t *rot = ganim_alloc(c->alloc, nrot * sizeof *rot);
    uint16_t *scratch = ganim_alloc(c->alloc, nrot * sizeof *rot);
    ganim_buffer sb = { 0 };
    ganim_code code = GANIM_OK;
    if (!pos || !rot || !scratch) {
        code = GANIM_NOMEM(err);
        goto done;
    }
    bool pristine = ff7_raw_from_model(doc, clip, have ? &in : NULL, role, slots, frames, pos, rot);

    int cands[3] = { 0, 2, 4 }, nc = 0;
    if (c->forced >= 0) {
        cands[nc++] = c->forced;
    } else {
        for (int k = have ? in.bkey : 0; k <= 4; k += 2) cands[nc++] = k;
    }
    unsigned key = 0;
    size_t bits = 0;
    code = ff7_choose_bkey(cands, nc, slots, frames, pos, rot, scratch, &key, &bits, index, err);
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
    bool same_frames = have && frames == in.frames;
    int layout = have ? in.layout : FF7_LAYOUT_NORMAL;
    /* sFrames bounds the frames read back: the record's only where it lets all of them be */
    uint32_t s_frames =
        same_frames && in.s_frames <= 0xFFFFu && (in.s_frames ? in.s_frames : 1u) >= frames ? in.s_frames : frames;
    uint32_t max_read = layout == FF7_LAYOUT_FROG ? FF7_MAX_FRAMES : s_frames ? s_frames : 1u;
    /* An unchanged entry (every value its record's integer, the same bKey and frames) keeps
     * its original stream bytes where they decode to exactly those values, whatever codes
     * the game's tools chose (codes that are not the shortest, frames beyond sFrames, a
     * cut-off frame, padding bits). */
    if (have && pristine && in.stream_size && in.stream_size <= FF7_MAX_STREAM) {
        stream = in.stream;
        s_size = in.stream_size;
    } else if (have && pristine && bits == in.stream_bits && (size_t)in.stream_size * 8u >= bits &&
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
    if (stream != sb.data) {
        bool ok = true;
        if (!stream_reads_back(c, stream, s_size, key, slots, max_read, frames, pos, rot, &ok)) {
            stream = sb.data;
            s_size = sb.size;
        }
        if (!ok) {
            code = GANIM_NOMEM(err);
            goto done;
        }
    }
    uint32_t dw_bones = have ? in.dw_bones : slots;
    uint32_t dw_frames = same_frames ? in.dw_frames : frames;
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

/* ---- packs from documents without FF7 records -------------------------------------------------- */

/* One entry of the pack: clip `clip` (a whole clip: part -1), or the body or weapon part
 * of a clip that moves both. */
typedef struct entry {
    uint32_t clip;
    int part;
} entry;

typedef struct plan {
    entry *e;
    uint32_t n;
    size_t size;
    uint32_t split, rest_weapons, first_rest;
    uint32_t in_place, first_body, first_weapon; /* clips split into their own two entries */
} plan;

/* The pack's body animation count: the document's record, else the skeleton's (0: not
 * known). */
static uint32_t body_count(const ganim_doc *doc)
{
    ff7_doc_info di;
    if (ff7_doc_info_parse(doc, &di) && di.n_body != UINT32_MAX) return di.n_body;
    ff7_skel_info si;
    return ff7_skel_info_parse(doc->skeleton, &si) ? si.n_body_anims : 0;
}

/* Among entries with records (a pack a clip was put into): clip i without a record that
 * moves body and weapon is body entry i and its weapon part replaces weapon entry
 * nsSkeletonAnims + i, as the game pairs them. */
static ganim_code pair_in_place(const ganim_doc *doc, const ganim_allocator *alloc, uint32_t i, plan *p,
                                ganim_error *err)
{
    uint32_t nb = body_count(doc), w = nb + i;
    ff7_clip_info in;
    ff7_skel_info si; /* read back with the skeleton, w must be one of its weapon entries */
    bool past = ff7_skel_info_parse(doc->skeleton, &si) && (uint64_t)w >= (uint64_t)si.n_body_anims + si.n_weapon_anims;
    if (!(i < nb && !past && w < doc->clip_count && doc->clips[w].kind == GANIM_CLIP_ANIMATION &&
          (!ff7_clip_info_parse(&doc->clips[w], &in) || in.role == FF7_ROLE_WEAPON)))
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "ff7-battle: clip %u ('%s') moves body bones and the weapon, and has no FF7 record to say "
                          "which entries it is; FF7 stores them as two entries, and entry %u is not a body entry "
                          "with a weapon entry at %u (nsSkeletonAnims %u): put it into a body slot, or give a body "
                          "and a weapon clip",
                          i, doc->clips[i].name, i, w, nb);
    if (!p->e) {
        p->size = (size_t)doc->clip_count * sizeof *p->e;
        if (!(p->e = ganim_alloc(alloc, p->size))) return GANIM_NOMEM(err);
        for (uint32_t k = 0; k < doc->clip_count; k++) p->e[k].clip = k, p->e[k].part = -1;
        p->n = doc->clip_count;
        p->first_body = i;
        p->first_weapon = w;
    }
    p->e[i].part = FF7_ROLE_BODY;
    p->e[w].clip = i;
    p->e[w].part = FF7_ROLE_WEAPON;
    p->in_place++;
    return GANIM_OK;
}

/* Does the clip move a bone below the weapon bone wb (a body bone)? */
static bool moves_body(const ganim_doc *doc, const ganim_clip *clip, int32_t wb)
{
    for (uint32_t b = 0; b < (uint32_t)wb; b++)
        if (ff7_bone_moves(doc, clip, b)) return true;
    return false;
}

/* A document none of whose clips has an FF7 record (a glTF from Blender, a document built
 * elsewhere), on a skeleton with the `weapon` bone: FF7 plays weapon animation i with body
 * animation i, so a clip that moves the body and the weapon (body_3+weapon_9 as one glTF
 * animation) becomes a body entry and a weapon entry, body entries first, weapon entries
 * after them in the same order. A clip that moves only the weapon cannot be placed; a
 * clip that moves no weapon gets a weapon entry holding it at rest (said). plan->n stays
 * 0 when every clip is written as it is. */
static ganim_code plan_entries(const ganim_doc *doc, const ganim_allocator *alloc, plan *p, ganim_error *err)
{
    int32_t wb = ff7_weapon_bone(doc);
    if (wb < 0) return GANIM_OK;
    uint32_t recorded = 0, both = 0, first = UINT32_MAX, second = UINT32_MAX; /* the first two that move both */
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        ff7_clip_info in;
        recorded += ff7_clip_info_parse(&doc->clips[i], &in);
    }
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *clip = &doc->clips[i];
        ff7_clip_info in;
        if (clip->kind != GANIM_CLIP_ANIMATION) continue;
        uint32_t nb = recorded ? body_count(doc) : 0;
        if (ff7_clip_info_parse(clip, &in)) {
            /* a record says which part the clip is: written as entry i, it must be read as it */
            if (nb && (in.role == FF7_ROLE_BODY || in.role == FF7_ROLE_WEAPON) &&
                (i < nb) != (in.role == FF7_ROLE_BODY))
                return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                                  "ff7-battle: clip %u ('%s') holds a %s entry's record but is entry %u, a %s entry "
                                  "(nsSkeletonAnims %u): the clips are not in the pack's order",
                                  i, clip->name, in.role == FF7_ROLE_BODY ? "body" : "weapon", i,
                                  i < nb ? "body" : "weapon", nb);
            /* and read back with this skeleton, entries from nsSkeletonAnims + its weapon
             * animation count on are extra entries (body slots): a weapon entry there
             * would be read with the wrong rotation slots */
            ff7_skel_info si;
            if (nb && in.role == FF7_ROLE_WEAPON && ff7_skel_info_parse(doc->skeleton, &si) &&
                (uint64_t)i >= (uint64_t)si.n_body_anims + si.n_weapon_anims)
                return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                                  "ff7-battle: clip %u ('%s') holds a weapon entry's record but is entry %u, past the "
                                  "skeleton's %u body and %u weapon animations, where FF7 reads an extra entry: the "
                                  "clips are not in the pack's order",
                                  i, clip->name, i, si.n_body_anims, si.n_weapon_anims);
            continue;
        }
        bool weapon = ff7_bone_moves(doc, clip, (uint32_t)wb), body = moves_body(doc, clip, wb);
        /* among entries with records, clip i is entry i: a body entry below nsSkeletonAnims,
         * a weapon entry from it on; a clip that moves only the other part would be read
         * back as something else */
        if (nb && weapon != body && (i < nb) != body)
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "ff7-battle: clip %u ('%s') moves only the %s and has no FF7 record; among clips with "
                              "records it is entry %u, a %s entry (nsSkeletonAnims %u): give it a record (put it "
                              "into the pack's %s slot with --into) or move it to a %s slot",
                              i, clip->name, body ? "body" : "weapon", i, i < nb ? "body" : "weapon", nb,
                              body ? "body" : "weapon", body ? "body" : "weapon");
        if (!(weapon && body)) continue;
        if (recorded) {
            ganim_code code = pair_in_place(doc, alloc, i, p, err);
            if (code != GANIM_OK) return code;
            continue;
        }
        if (both++ == 0) first = i;
        else if (second == UINT32_MAX) second = i;
    }
    if (p->in_place || !both) return GANIM_OK;
    uint32_t k = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *clip = &doc->clips[i];
        if (clip->kind != GANIM_CLIP_ANIMATION)
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "ff7-battle: clip %u ('%s') is an opaque slot without an FF7 record among animations "
                              "that move body and weapon: ganim cannot tell where its slot goes in the pack",
                              i, clip->name);
        if (!moves_body(doc, clip, wb) && ff7_bone_moves(doc, clip, (uint32_t)wb))
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "ff7-battle: clip %u ('%s') moves only the weapon, among animations that move body "
                              "and weapon: ganim cannot tell which body animation it plays with",
                              i, clip->name);
        k++;
    }
    p->size = (size_t)k * 2 * sizeof *p->e;
    if (!(p->e = ganim_alloc(alloc, p->size))) return GANIM_NOMEM(err);
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        p->e[p->n].clip = p->e[p->n + k].clip = i;
        p->e[p->n].part = FF7_ROLE_BODY;
        p->e[p->n + k].part = FF7_ROLE_WEAPON;
        if (!ff7_bone_moves(doc, &doc->clips[i], (uint32_t)wb) && p->rest_weapons++ == 0) p->first_rest = i;
        p->n++;
    }
    p->n = 2 * k;
    p->split = both;
    /* read back with the document's skeleton, entry i is a body entry below its
     * nsSkeletonAnims, a weapon entry below nsSkeletonAnims + nsWeaponsAnims: only a
     * skeleton that says k and k reads these entries as written (and FF7 finds each
     * weapon entry it looks for). ganim writes no ??aa: another one is refused. */
    ff7_skel_info si;
    if (ff7_skel_info_parse(doc->skeleton, &si) && (si.n_body_anims != k || si.n_weapon_anims != k)) {
        char more[96] = "";
        if (second != UINT32_MAX)
            snprintf(more, sizeof more, ", clip %u ('%.40s')%s", second, doc->clips[second].name,
                     both > 2 ? " and more" : "");
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "ff7-battle: %u animation%s without an FF7 record move%s body bones and the weapon (clip %u "
                          "('%.40s')%s): FF7 stores each as a body and a weapon entry, so a pack of these %u clips "
                          "needs a skeleton (??aa) of nsSkeletonAnims %u and nsWeaponsAnims %u, but the document's "
                          "skeleton says %u and %u: the pack would not read back with it, and ganim writes no ??aa; "
                          "put the animations into the original pack with --into (each body entry keeps its weapon "
                          "entry there)",
                          both, both == 1 ? "" : "s", both == 1 ? "s" : "", first, doc->clips[first].name, more, k, k,
                          k, si.n_body_anims, si.n_weapon_anims);
    }
    return GANIM_OK;
}

/* The entries to write (plan_entries), nothing held when it fails. */
static ganim_code make_plan(const ganim_doc *doc, const ganim_allocator *alloc, plan *p, ganim_error *err)
{
    memset(p, 0, sizeof *p);
    ganim_code code = plan_entries(doc, alloc, p, err);
    if (code != GANIM_OK) {
        ganim_free(alloc, p->e, p->size);
        memset(p, 0, sizeof *p);
    }
    return code;
}

/* Read back with the document's skeleton (an FF7 one), entry k is a weapon entry from
 * nsSkeletonAnims to nsSkeletonAnims + nsWeaponsAnims and has body slots anywhere else:
 * an entry written as the other part would read back as something else. make_plan names
 * the causes it knows; this catches any other (clips without records on a skeleton of
 * other counts, a record's body count that is not the skeleton's). */
static ganim_code check_parts(const ganim_doc *doc, const plan *p, ganim_error *err)
{
    ff7_skel_info si;
    if (!ff7_skel_info_parse(doc->skeleton, &si)) return GANIM_OK;
    uint32_t n = p->n ? p->n : doc->clip_count;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = p->n ? p->e[k].clip : k;
        int part = p->n ? p->e[k].part : -1;
        const ganim_clip *clip = &doc->clips[i];
        ff7_clip_info in;
        bool have;
        if (clip->kind != GANIM_CLIP_ANIMATION) continue;
        int role = written_role(doc, clip, part, &in, &have);
        bool weapon = k >= si.n_body_anims && (uint64_t)k < (uint64_t)si.n_body_anims + si.n_weapon_anims;
        if (role != FF7_ROLE_UNKNOWN && (role == FF7_ROLE_WEAPON) != weapon)
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "ff7-battle: clip %u ('%s')%s would be entry %u, written as a %s entry, but read back "
                              "with the document's skeleton (nsSkeletonAnims %u, nsWeaponsAnims %u) entry %u is a "
                              "%s entry: the clips are not in the pack's order for that skeleton",
                              i, clip->name,
                              part == FF7_ROLE_BODY     ? " (its body)"
                              : part == FF7_ROLE_WEAPON ? " (its weapon)"
                                                        : "",
                              k, role == FF7_ROLE_WEAPON ? "weapon" : "body", si.n_body_anims, si.n_weapon_anims, k,
                              weapon                ? "weapon"
                              : k < si.n_body_anims ? "body"
                                                    : "extra");
    }
    return GANIM_OK;
}

/* What a pack written without FF7 records holds that its source did not say. */
static void warn_made_up(const ganim_doc *doc, const ganim_write_opts *opts, const plan *p)
{
    if (p->in_place)
        ganim_write_warn(opts, GANIM_WARN_EXPORT_LOSS,
                         "ff7-battle: %u animation%s without an FF7 record body bones and the weapon (clip %u '%s' "
                         "first): its body is entry %u and its weapon replaces entry %u, as the game pairs them",
                         p->in_place, p->in_place == 1 ? " moves" : "s move", p->first_body,
                         doc->clips[p->first_body].name, p->first_body, p->first_weapon);
    uint32_t bare = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        ff7_clip_info in;
        bare += doc->clips[i].kind == GANIM_CLIP_ANIMATION && !ff7_clip_info_parse(&doc->clips[i], &in);
    }
    if (!bare) return;
    ff7_skel_info si;
    bool skel = ff7_skel_info_parse(doc->skeleton, &si);
    ganim_write_warn(opts, GANIM_WARN_EXPORT_LOSS,
                     "ff7-battle: %u animation%s no FF7 record (not read from a pack, or from a glTF without "
                     "ganim's extras): entry headers (dwBones, dwFrames, sFrames), precision keys and trailers are "
                     "ganim's choice%s",
                     bare, bare == 1 ? " has" : "s have",
                     skel ? ""
                          : "; the skeleton is no FF7 skeleton (??aa): rotation slots come from its bones, and "
                            "its nsSkeletonAnims / nsWeaponsAnims are not known");
    if (!p->n || p->in_place) return;
    uint32_t k = p->n / 2;
    ganim_write_warn(opts, GANIM_WARN_EXPORT_LOSS,
                     "ff7-battle: %u animation%s body bones and the weapon: each is written as a body entry "
                     "(0..%u) and a weapon entry (%u..%u), as the game pairs them; the ??aa skeleton must say "
                     "nsSkeletonAnims %u and nsWeaponsAnims %u",
                     p->split, p->split == 1 ? " moves" : "s move", k - 1, k, p->n - 1, k, k);
    if (p->rest_weapons)
        ganim_write_warn(opts, GANIM_WARN_EXPORT_LOSS,
                         "ff7-battle: %u animation%s (clip %u '%s' first) no weapon: %s weapon entr%s the weapon "
                         "at its rest pose",
                         p->rest_weapons, p->rest_weapons == 1 ? " moves" : "s move", p->first_rest,
                         doc->clips[p->first_rest].name, p->rest_weapons == 1 ? "its" : "their",
                         p->rest_weapons == 1 ? "y holds" : "ies hold");
}

ganim_code ff7_battle_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err)
{
    ganim_allocator alloc = ganim_allocator_resolve(opts ? &opts->allocator : NULL);
    enc_ctx c = { &alloc, -1 };
    /* ff7.bkey forces a precision key; the choices 0|2|4 are the key over 2 */
    int forced = opts ? ganim_setting_choice(opts->settings, opts->setting_count, &ff7_options[FF7_OPT_BKEY]) : -1;
    if (forced >= 0) c.forced = 2 * forced;
    if (!doc) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ff7-battle: no document");
    /* a skeleton that says it is a ??aa but whose record is not one (its size is not 52 +
     * 12 nBones): the reader refuses a pack with it, so nothing is written for it either */
    ff7_skel_info si;
    const ganim_skeleton *sk = doc->skeleton;
    if (sk && sk->native_format && !strcmp(sk->native_format, "ff7-skeleton") && !ff7_skel_info_parse(sk, &si)) {
        bool head = sk->native && sk->native_size >= FF7_SKELETON_HEADER;
        uint32_t nb = head ? ganim_ld_u32le(sk->native + 12) : 0;
        char why[96];
        if (head)
            snprintf(why, sizeof why, "its nBones (%u) needs %llu", nb,
                     (unsigned long long)FF7_SKELETON_HEADER + (unsigned long long)FF7_SKELETON_BONE * nb);
        else snprintf(why, sizeof why, "shorter than its header of %u", FF7_SKELETON_HEADER);
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "ff7-battle: the skeleton's FF7 record (its ??aa) is damaged: %zu bytes, %s; a pack would "
                          "not read back with it: convert again from the original ??da and ??aa",
                          sk->native_size, why);
    }
    plan p;
    ganim_code pc = make_plan(doc, &alloc, &p, err);
    if (pc == GANIM_OK) pc = check_parts(doc, &p, err);
    if (pc != GANIM_OK) {
        ganim_free(&alloc, p.e, p.size);
        return pc;
    }
    ganim_writer w = gw_init(out, &alloc);
    uint32_t n = p.n ? p.n : doc->clip_count;
    gw_u32le(&w, n);
    ganim_code code = GANIM_OK;
    for (uint32_t k = 0; k < n && code == GANIM_OK; k++) {
        uint32_t i = p.n ? p.e[k].clip : k;
        int part = p.n ? p.e[k].part : -1;
        const ganim_clip *clip = &doc->clips[i];
        if (clip->kind != GANIM_CLIP_OPAQUE) {
            code = write_animation(&c, doc, i, part, &w, err);
        } else if (clip->opaque_size >= 11) {
            code = ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "ff7-battle: clip %u: an opaque slot of %zu bytes cannot be "
                              "written (FF7 reads chunks of 11 bytes or more as animations)",
                              i, clip->opaque_size);
        } else {
            ff7_clip_info in;
            bool have = ff7_clip_info_parse(clip, &in);
            gw_u32le(&w, have ? in.dw_bones : 0);
            gw_u32le(&w, have ? in.dw_frames : 0);
            gw_u32le(&w, (uint32_t)clip->opaque_size);
            gw_bytes(&w, clip->opaque, clip->opaque_size);
        }
    }
    ganim_free(&alloc, p.e, p.size);
    if (code != GANIM_OK) return code;
    ff7_doc_info di;
    if (ff7_doc_info_parse(doc, &di)) gw_bytes(&w, di.tail, di.tail_size);
    if (!gw_ok(&w)) return GANIM_NOMEM(err);
    warn_made_up(doc, opts, &p);
    /* The pack has no place for a frame rate: the game and every reader play it at 15. */
    uint32_t first = 0, other_rates = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *clip = &doc->clips[i];
        if (clip->kind == GANIM_CLIP_ANIMATION && clip->fps != FF7_FPS && other_rates++ == 0) first = i;
    }
    if (other_rates) {
        const ganim_clip *clip = &doc->clips[first];
        char more[48] = "";
        if (other_rates > 1) snprintf(more, sizeof more, " (and %u more clips)", other_rates - 1);
        ganim_write_warn(opts, GANIM_WARN_EXPORT_LOSS,
                         "ff7-battle: a pack stores no frame rate: clip %u at %g fps%s reads back at %g fps; "
                         "give its rate again when reading the pack (--fps %g)",
                         first, clip->fps, more, FF7_FPS, clip->fps);
    }
    return GANIM_OK;
}
