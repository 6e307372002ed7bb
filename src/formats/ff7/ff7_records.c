/* FF7 battle packs: the native records ganim keeps on documents, skeletons and clips
 * (their layouts are in ff7.h), parsed back and built. */
#include <string.h>

#include "formats/ff7/ff7.h"
#include "io/bytes.h"

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
        (in->bkey > 4 || (in->bkey & 1) || in->slots == 0 || in->frames == 0 || in->frames > FF7_MAX_FRAMES))
        return false;
    /* Sizes in 64 bits: the record may come from anywhere. */
    uint64_t need = FF7_CLIP_HEADER + (uint64_t)in->frames * 12u + (uint64_t)in->frames * in->slots * 6u +
                    in->trailer_size + in->stream_size;
    if (need != n) return false;
    in->pos = p + FF7_CLIP_HEADER;
    in->rot = in->pos + (size_t)in->frames * 12u;
    in->trailer = in->rot + (size_t)in->frames * in->slots * 6u;
    in->stream = in->trailer + in->trailer_size;
    in->record = p;
    in->record_size = n;
    return true;
}

/* Bytes of a record of `frames` frames; 0 when that overflows. */
static size_t record_size(uint32_t frames, uint32_t slots, size_t trailer_size, size_t stream_size)
{
    size_t nv = (size_t)frames * 3u, nr = 0, total;
    if (!ganim_mul_size(nv, slots, &nr) || !ganim_mul_size(nr, 2, &total)) return 0;
    return total + FF7_CLIP_HEADER + nv * 4u + trailer_size + stream_size;
}

static void put_header(uint8_t *p, const ff7_clip_info *in)
{
    memset(p + 52, 0, FF7_CLIP_HEADER - 52);
    ganim_st_u32le(p, FF7_CLIP_MAGIC);
    p[4] = in->role;
    p[5] = in->layout;
    p[6] = in->bkey;
    p[7] = in->flags;
    ganim_st_u32le(p + 8, in->dw_bones);
    ganim_st_u32le(p + 12, in->dw_frames);
    ganim_st_u32le(p + 16, in->dw_chunk);
    ganim_st_u32le(p + 20, in->s_frames);
    ganim_st_u32le(p + 24, in->s_size);
    ganim_st_u32le(p + 28, in->slots);
    ganim_st_u32le(p + 32, in->frames);
    ganim_st_u32le(p + 36, in->stream_bits);
    ganim_st_u32le(p + 40, in->trailer_size);
    ganim_st_u32le(p + 44, in->stream_size);
    ganim_st_u32le(p + 48, in->entry_offset);
}

uint8_t *ff7_clip_native_build(ganim_doc *doc, const ff7_clip_info *in, const int32_t *pos, const uint16_t *rot,
                               size_t *size)
{
    size_t nv = (size_t)in->frames * 3u, nr = nv * in->slots;
    size_t total = record_size(in->frames, in->slots, in->trailer_size, in->stream_size);
    if (!total) return NULL;
    /* not zeroed: every byte is written below (the header's unused tail included) */
    uint8_t *p = ganim_doc_alloc_array_raw(doc, total, 1);
    if (!p) return NULL;
    put_header(p, in);
    uint8_t *q = p + FF7_CLIP_HEADER;
    for (size_t i = 0; i < nv; i++, q += 4) ganim_st_u32le(q, (uint32_t)pos[i]);
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

bool ff7_host_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

uint8_t *ff7_clip_native_room(ganim_doc *doc, uint32_t max_frames, uint32_t slots, size_t trailer_size,
                              size_t stream_size, int32_t **pos, uint16_t **rot)
{
    size_t total = record_size(max_frames, slots, trailer_size, stream_size);
    uint8_t *p = total ? ganim_doc_alloc_array_raw(doc, total, 1) : NULL; /* not zeroed: all written */
    if (!p) return NULL;
    /* the arena's blocks are 16-byte aligned: 64 and 64 + 12 * frames suit i32 and u16 */
    *pos = (int32_t *)(void *)(p + FF7_CLIP_HEADER);
    *rot = (uint16_t *)(void *)(p + FF7_CLIP_HEADER + (size_t)max_frames * 12u);
    return p;
}

size_t ff7_clip_native_seal(uint8_t *p, const ff7_clip_info *in, uint32_t max_frames)
{
    put_header(p, in);
    size_t nv = (size_t)in->frames * 3u, nr = nv * in->slots;
    uint8_t *q = p + FF7_CLIP_HEADER + nv * 4u;
    if (in->frames < max_frames) memmove(q, p + FF7_CLIP_HEADER + (size_t)max_frames * 12u, nr * 2u);
    q += nr * 2u;
    if (in->trailer_size) memcpy(q, in->trailer, in->trailer_size);
    q += in->trailer_size;
    if (in->stream_size) memcpy(q, in->stream, in->stream_size);
    return record_size(in->frames, in->slots, in->trailer_size, in->stream_size);
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
    if ((uint64_t)FF7_SKELETON_HEADER + (uint64_t)FF7_SKELETON_BONE * in->n_bones != sk->native_size) return false;
    return true;
}
