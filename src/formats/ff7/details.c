/* FF7 battle packs and skeletons: what `ganim info` and `ganim dump` show beyond the
 * model. */
#include <math.h>
#include <string.h>

#include "formats/ff7/ff7.h"
#include "io/writer.h"

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
                  ff7_role_name(in.role));
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
              "\"dwChunkSize\":%u", index, special ? "special" : "animation", ff7_role_name(in.role),
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

ganim_code ff7_battle_describe(const ganim_doc *doc, int clip, int mode,
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

ganim_code ff7_skeleton_describe(const ganim_doc *doc, int clip, int mode,
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
