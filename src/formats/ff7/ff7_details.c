/* FF7 battle packs and skeletons: what the files hold beyond the model (entry headers,
 * layouts, frame counts, precision keys, stream sizes, trailers; with FULL the raw
 * integers of every frame). */
#include <string.h>

#include "formats/ff7/ff7.h"

static const char *layout_name(int layout)
{
    return layout == FF7_LAYOUT_FROG ? "frog" : layout == FF7_LAYOUT_SPECIAL ? "special" : "normal";
}

static void clip_details(gd_builder *b, const ganim_clip *clip, uint32_t index, ganim_details_level level)
{
    ff7_clip_info in;
    if (!ff7_clip_info_parse(clip, &in)) return;
    bool special = in.layout == FF7_LAYOUT_SPECIAL;
    gd_uint(b, "slot", index);
    gd_string(b, "kind", special ? "special" : "animation");
    gd_string(b, "role", ff7_role_name(in.role));
    gd_uint(b, "dwBones", in.dw_bones);
    gd_uint(b, "dwFrames", in.dw_frames);
    gd_uint(b, "dwChunkSize", in.dw_chunk);
    if (special) {
        gd_bytes(b, "raw_hex", clip->opaque, clip->opaque_size);
        gd_label(b, "bytes");
        return;
    }
    uint32_t frame0 = 48u + in.slots * 3u * (12u - in.bkey);
    double per = in.frames > 1 ? (double)(in.stream_bits - frame0) / (double)(in.frames - 1) : 0.0;
    gd_string(b, "layout", layout_name(in.layout));
    if (in.layout == FF7_LAYOUT_FROG) {
        gd_null(b, "sFrames");
        gd_meaning(b, "the frog layout stores none");
    } else {
        gd_uint(b, "sFrames", in.s_frames);
    }
    gd_uint(b, "frames", in.frames);
    gd_meaning(b, "decoded");
    gd_uint(b, "sSize", in.s_size);
    gd_meaning(b, "stream bytes");
    gd_uint(b, "bKey", in.bkey);
    gd_uint(b, "slots", in.slots);
    gd_meaning(b, "rotation slots");
    gd_uint(b, "stream_bits", in.stream_bits);
    gd_meaning(b, "bits the decoded frames use");
    gd_uint(b, "frame0_bits", frame0);
    gd_double(b, "bits_per_frame", per);
    gd_meaning(b, "on average after frame 0");
    gd_bool(b, "shortest_codes", (in.flags & FF7_FLAG_SHORTEST) != 0);
    gd_meaning(b, (in.flags & FF7_FLAG_SHORTEST) ? "every delta has its shortest code"
                                                 : "some deltas are not coded as short as they could be");
    gd_bytes(b, "trailer_hex", in.trailer, in.trailer_size);
    gd_label(b, "trailer");
    if (level == GANIM_DETAILS_FULL) {
        size_t nv = (size_t)in.frames * 3u, per_f = (size_t)in.slots * 3u;
        int32_t *row = ganim_alloc(gd_allocator(b), (nv > per_f ? nv : per_f) * sizeof *row);
        if (!row) {
            gd_fail(b); /* out of memory */
            return;
        }
        for (size_t i = 0; i < nv; i++) row[i] = ff7_info_pos(&in, i);
        gd_ints(b, "positions", row, nv, 3);
        gd_list(b, "rotations");
        for (uint32_t f = 0; f < in.frames; f++) {
            for (size_t k = 0; k < per_f; k++) row[k] = ff7_info_rot(&in, (size_t)f * per_f + k);
            gd_ints(b, NULL, row, per_f, 3);
        }
        gd_end(b);
        ganim_free(gd_allocator(b), row, (nv > per_f ? nv : per_f) * sizeof *row);
    }
}

ganim_code ff7_battle_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b,
                              ganim_error *err)
{
    (void)err;
    if (clip >= 0) {
        clip_details(b, &doc->clips[clip], (uint32_t)clip, level);
        return GANIM_OK;
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
    gd_uint(b, "entries", doc->clip_count);
    gd_uint(b, "body", counts[0]);
    gd_meaning(b, "body animations");
    gd_uint(b, "weapon", counts[1]);
    gd_meaning(b, "weapon animations");
    gd_uint(b, "extra", counts[2]);
    gd_uint(b, "unknown_role", counts[3]);
    if (counts[3]) gd_meaning(b, "no skeleton: rotation slots from dwBones");
    gd_uint(b, "special", special);
    gd_meaning(b, "entries that are not animations");
    if (have) {
        gd_uint(b, "nEntries", di.n_entries);
        gd_uint(b, "input_size", di.input_size);
        gd_bytes(b, "tail_hex", di.tail, di.tail_size);
        gd_label(b, "tail");
        gd_meaning(b, "bytes after the last entry");
    }
    return GANIM_OK;
}

ganim_code ff7_skeleton_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b,
                                ganim_error *err)
{
    (void)level;
    (void)err;
    ff7_skel_info si;
    if (clip >= 0 || !ff7_skel_info_parse(doc->skeleton, &si)) return GANIM_OK;
    static const char *const names[13] = { "skeleton_type",  "unk_04",    "unk_08",          "nBones", "unk_10",
                                           "nJoints",        "nTextures", "nsSkeletonAnims", "unk_20", "nWeapons",
                                           "nsWeaponsAnims", "unk_2c",    "unk_30" };
    for (int i = 0; i < 13; i++) gd_uint(b, names[i], si.words[i]);
    return GANIM_OK;
}
