/* FF7 battle packs: resampling (e.g. 15 -> 60 fps) in raw integers: original frames are
 * copied exactly, new ones slerped and re-quantised; weapon clip i keeps the frame
 * count of body clip i. */
#include <math.h>
#include <string.h>

#include "formats/ff7/ff7.h"

static ganim_code resample_clip(ganim_doc *doc, uint32_t index, uint64_t target, unsigned factor, ganim_error *err)
{
    ganim_clip *clip = &doc->clips[index];
    const ganim_allocator *alloc = ganim_doc_allocator(doc);
    ff7_clip_info in;
    bool have = ff7_clip_info_parse(clip, &in) && in.layout != FF7_LAYOUT_SPECIAL;
    int role = have ? in.role : ff7_guess_role(doc, clip);
    uint32_t slots = have ? in.slots : ff7_slots_for(doc, clip, role);
    uint32_t n = clip->frame_count;
    if (n == 0) return GANIM_OK;
    if (target > FF7_MAX_FRAMES)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "ff7-battle: clip %u: %u frames x %u = %llu frames, more than FF7's "
                          "65535",
                          index, n, factor, (unsigned long long)target);
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
    ff7_raw_from_model(doc, clip, have ? &in : NULL, role, slots, n, sp, sr);
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
            double x0 = sp[(size_t)a * 3u + (size_t)k], x1 = sp[(size_t)(a + 1) * 3u + (size_t)k];
            dp[(size_t)j * 3u + (size_t)k] = (int32_t)lround(x0 + (x1 - x0) * t);
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
    code = ff7_choose_bkey(cands, nc, slots, m, dp, dr, scratch, &key, &bits, index, err);
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
        code = ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "ff7-battle: clip %u: internal record check failed",
                          index);
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
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ff7-battle: resample factor must be 1 or more");
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
        if (ff7_clip_info_parse(clip, &in) && in.role == FF7_ROLE_WEAPON && i >= n_body && i - n_body < count &&
            before[i - n_body])
            base = before[i - n_body];
        code = resample_clip(doc, i, (uint64_t)factor * (base - 1) + 1, factor, err);
    }
    ganim_free(ganim_doc_allocator(doc), before, (count ? count : 1) * sizeof *before);
    return code;
}
