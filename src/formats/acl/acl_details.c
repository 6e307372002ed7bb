/* ACL buffers and Civilization VII containers: what `ganim info` and `ganim dump` show
 * beyond the model. */
#include "formats/acl/acl_internal.h"
#include "io/writer.h"

static void flags_words(ganim_writer *w, uint32_t ver, uint32_t m)
{
    static const char *const rf[16] = { "quatf_full", "1?", "quatf_drop_w_full", "quatf_drop_w_variable" };
    const char *r = rf[(m >> 4) & 15u] ? rf[(m >> 4) & 15u] : "?";
    gw_printf(w, "%s, %s scale (default %d), rotation %s, translation %s, scale %s",
              (m & 1u) ? "has scale" : "no scale", (m & 1u) ? "animated" : "no", (int)((m >> 1) & 1u), r,
              (m >> 3) & 1u ? "vector3f_variable" : "vector3f_full", (m >> 2) & 1u ? "vector3f_variable" : "vector3f_full");
    if (ver >= 8) {
        gw_str(w, (m >> 9) & 1u ? ", trivial defaults" : ", bind-pose defaults");
        if ((m >> 10) & 1u) gw_str(w, ", stripped key frames");
        if ((m >> 30) & 1u) gw_str(w, ", wrap-optimised loop");
    }
    if ((m >> 8) & 1u) gw_str(w, ", database");
    if (m >> 31) gw_str(w, ", metadata");
}

ganim_code ganim_acl_describe_clip(const ganim_clip *clip, int mode, ganim_buffer *out, ganim_error *err)
{
    if (!clip || !clip->native_format || strcmp(clip->native_format, ACL_NATIVE) || clip->native_size != 4u * NF_COUNT)
        return GANIM_OK;
    uint32_t v[NF_COUNT];
    for (unsigned i = 0; i < NF_COUNT; i++) v[i] = ganim_ld_u32le(clip->native + 4 * i);
    float rate;
    memcpy(&rate, &v[NF_RATE_BITS], 4);
    ganim_writer w = gw_init(out, NULL);
    static const char *const tname[3] = { "default", "constant", "animated" };
    const char *acl_ver = v[NF_VERSION] == 7 ? "2.0" : v[NF_VERSION] == 10 ? "2.1" : "2.1-wip";
    if (mode == GANIM_DESCRIBE_TEXT) {
        gw_printf(&w, "acl version: %u (ACL %s)\n", v[NF_VERSION], acl_ver);
        gw_printf(&w, "acl flags: 0x%08X (", v[NF_MISC]);
        flags_words(&w, v[NF_VERSION], v[NF_MISC]);
        gw_str(&w, ")\n");
        gw_printf(&w, "acl tracks: %u\nacl samples: %u\nacl sample rate: ", v[NF_TRACKS], v[NF_SAMPLES]);
        gw_float(&w, rate);
        gw_printf(&w, "\nacl segments: %u\n", v[NF_SEGMENTS]);
        for (unsigned k = 0; k < 3; k++)
            gw_printf(&w, "acl %s sub-tracks: %u default, %u constant, %u animated\n", acl_kind_name(k),
                      v[NF_COUNTS + 3 * k], v[NF_COUNTS + 3 * k + 1], v[NF_COUNTS + 3 * k + 2]);
        gw_str(&w, "acl bit rates:");
        int any = 0;
        for (unsigned b = 0; b < 33; b++)
            if (v[NF_HIST + b]) { gw_printf(&w, " %u:%u", b, v[NF_HIST + b]); any = 1; }
        gw_str(&w, any ? "\n" : " none\n");
        if ((v[NF_MISC] >> 10) & 1u) gw_printf(&w, "acl retained key frames: %u\n", v[NF_KEYS]);
        gw_printf(&w, "acl hash: 0x%08X (%s)\n", v[NF_HASH_STORED], v[NF_HASH_STORED] == v[NF_HASH_COMPUTED] ? "verified" : "MISMATCH");
    } else {
        gw_printf(&w, "{\"acl_version\":%u,\"flags\":%u,\"flags_text\":\"", v[NF_VERSION], v[NF_MISC]);
        flags_words(&w, v[NF_VERSION], v[NF_MISC]);
        gw_printf(&w, "\",\"tracks\":%u,\"samples\":%u,\"sample_rate\":", v[NF_TRACKS], v[NF_SAMPLES]);
        gw_float(&w, rate);
        gw_printf(&w, ",\"segments\":%u,\"sub_tracks\":{", v[NF_SEGMENTS]);
        for (unsigned k = 0; k < 3; k++) {
            gw_printf(&w, "%s\"%s\":{", k ? "," : "", acl_kind_name(k));
            for (unsigned t = 0; t < 3; t++) gw_printf(&w, "%s\"%s\":%u", t ? "," : "", tname[t], v[NF_COUNTS + 3 * k + t]);
            gw_str(&w, "}");
        }
        gw_str(&w, "},\"bit_rates\":{");
        int first = 1;
        for (unsigned b = 0; b < 33; b++)
            if (v[NF_HIST + b]) { gw_printf(&w, "%s\"%u\":%u", first ? "" : ",", b, v[NF_HIST + b]); first = 0; }
        gw_printf(&w, "},\"hash_ok\":%s", v[NF_HASH_STORED] == v[NF_HASH_COMPUTED] ? "true" : "false");
        if (mode == GANIM_DESCRIBE_FULL) {
            gw_printf(&w, ",\"buffer_size\":%u,\"hash\":%u,\"hash_computed\":%u,\"segment_header_size\":%u,\"stored_key_frames\":%u,\"metadata_offsets\":[",
                      v[NF_SIZE], v[NF_HASH_STORED], v[NF_HASH_COMPUTED], v[NF_SEGHDR], v[NF_KEYS]);
            for (unsigned i = 0; i < 5; i++) {
                if (i) gw_str(&w, ",");
                if (v[NF_META + i] == ACL_NONE) gw_str(&w, "null");
                else gw_printf(&w, "%u", v[NF_META + i]);
            }
            gw_str(&w, "]");
        }
        gw_str(&w, "}");
    }
    return gw_ok(&w) ? GANIM_OK : GANIM_NOMEM(err);
}

ganim_code acl_describe(const ganim_doc *doc, int clip, int mode, ganim_buffer *out, ganim_error *err)
{
    if (clip < 0 || (uint32_t)clip >= doc->clip_count) return GANIM_OK;
    return ganim_acl_describe_clip(&doc->clips[clip], mode, out, err);
}

ganim_code civ7_describe(const ganim_doc *doc, int clip, int mode, ganim_buffer *out, ganim_error *err)
{
    if (clip >= 0) {
        if ((uint32_t)clip >= doc->clip_count) return GANIM_OK;
        return ganim_acl_describe_clip(&doc->clips[clip], mode, out, err);
    }
    if (!doc->native_format || strcmp(doc->native_format, CIV7_NATIVE) || doc->native_size < CIV7_HEADER)
        return GANIM_OK;
    const uint8_t *h = doc->native;
    int v0 = ganim_ld_u32le(h + 0x48) == CIV7_V0_MARKER;
    float fps = ganim_ld_f32le(h + 0x08);
    ganim_writer w = gw_init(out, NULL);
    if (mode == GANIM_DESCRIBE_TEXT) {
        gw_printf(&w, "civ7 variant: %s\n", v0 ? "V0 (uncompressed)" : "V1 (ACL compressed_tracks at 0x60)");
        gw_printf(&w, "civ7 file size field: %u\nciv7 fps field: ", ganim_ld_u32le(h + 4));
        gw_float(&w, fps);
        gw_printf(&w, "\nciv7 frames field: %u\nciv7 bones field: %u\nciv7 name offset: 0x%X\n",
                  ganim_ld_u32le(h + 0x0C), ganim_ld_u32le(h + 0x10), ganim_ld_u32le(h + 0x50));
        if (doc->native_size > CIV7_HEADER) gw_printf(&w, "civ7 trailing bytes: %zu\n", doc->native_size - CIV7_HEADER);
    } else {
        gw_printf(&w, "{\"variant\":\"%s\",\"file_size\":%u,\"fps\":", v0 ? "V0" : "V1", ganim_ld_u32le(h + 4));
        gw_float(&w, fps);
        gw_printf(&w, ",\"frames\":%u,\"bones\":%u,\"name_offset\":%u,\"trailing_bytes\":%zu",
                  ganim_ld_u32le(h + 0x0C), ganim_ld_u32le(h + 0x10), ganim_ld_u32le(h + 0x50), doc->native_size - CIV7_HEADER);
        if (mode == GANIM_DESCRIBE_FULL) {
            gw_str(&w, ",\"header\":\"");
            for (unsigned i = 0; i < CIV7_HEADER; i++) gw_printf(&w, "%02x", h[i]);
            gw_str(&w, "\"");
        }
        gw_str(&w, "}");
    }
    return gw_ok(&w) ? GANIM_OK : GANIM_NOMEM(err);
}
