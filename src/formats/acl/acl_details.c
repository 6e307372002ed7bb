/* ACL buffers and Civilization VII containers: what the files hold beyond the model
 * (the ACL header and flags, sub-track counts, bit rates, the hash; the container's
 * header fields). */
#include <stdio.h>

#include "formats/acl/acl_internal.h"

/* The header flags in ACL's own words (a stable string of the JSON interface). */
static void flags_words(char *out, size_t size, uint32_t ver, uint32_t m)
{
    static const char *const rf[16] = { "quatf_full", "1?", "quatf_drop_w_full", "quatf_drop_w_variable" };
    const char *r = rf[(m >> 4) & 15u] ? rf[(m >> 4) & 15u] : "?";
    /* bit 0: the clip has scale sub-tracks (bit 2 their format); bit 1: the default scale,
     * which is every bone's scale when there are none */
    int n = (m & 1u) ? snprintf(out, size, "has scale (default %d), rotation %s, translation %s, scale %s",
                                (int)((m >> 1) & 1u), r, (m >> 3) & 1u ? "vector3f_variable" : "vector3f_full",
                                (m >> 2) & 1u ? "vector3f_variable" : "vector3f_full")
                     : snprintf(out, size, "no scale (every scale %d), rotation %s, translation %s",
                                (int)((m >> 1) & 1u), r, (m >> 3) & 1u ? "vector3f_variable" : "vector3f_full");
    size_t at = n > 0 && (size_t)n < size ? (size_t)n : 0;
#define ADD(text) \
    (at += (size_t)snprintf(out + at, at < size ? size - at : 0, "%s", text), at = at < size ? at : size - 1)
    if (ver >= 8) {
        ADD((m >> 9) & 1u ? ", trivial defaults" : ", bind-pose defaults");
        if ((m >> 10) & 1u) ADD(", stripped key frames");
        if ((m >> 30) & 1u) ADD(", wrap-optimised loop");
    }
    if ((m >> 8) & 1u) ADD(", database");
    if (m >> 31) ADD(", metadata");
#undef ADD
}

/* The ACL details of a clip read by ganim_acl_read_doc (nothing when it holds none). */
static void clip_details(gd_builder *b, const ganim_clip *clip, ganim_details_level level)
{
    if (!clip || !clip->native_format || strcmp(clip->native_format, ACL_NATIVE) != 0 ||
        clip->native_size != 4u * NF_COUNT)
        return;
    uint32_t v[NF_COUNT];
    for (unsigned i = 0; i < NF_COUNT; i++) v[i] = ganim_ld_u32le(clip->native + 4 * i);
    static const char *const tname[3] = { "default", "constant", "animated" };
    const char *acl_ver = v[NF_VERSION] == 7 ? "ACL 2.0" : v[NF_VERSION] == 10 ? "ACL 2.1" : "ACL 2.1-wip";
    char words[256];
    flags_words(words, sizeof words, v[NF_VERSION], v[NF_MISC]);
    gd_uint(b, "acl_version", v[NF_VERSION]);
    gd_meaning(b, acl_ver);
    gd_uint(b, "flags", v[NF_MISC]);
    gd_string(b, "flags_text", words);
    gd_uint(b, "tracks", v[NF_TRACKS]);
    gd_uint(b, "samples", v[NF_SAMPLES]);
    gd_float(b, "sample_rate", ganim_f32_from_bits(v[NF_RATE_BITS]));
    gd_uint(b, "segments", v[NF_SEGMENTS]);
    gd_group(b, "sub_tracks");
    for (unsigned k = 0; k < 3; k++) {
        gd_group(b, acl_kind_name(k));
        for (unsigned t = 0; t < 3; t++) gd_uint(b, tname[t], v[NF_COUNTS + 3 * k + t]);
        gd_end(b);
    }
    gd_end(b);
    gd_group(b, "bit_rates");
    for (unsigned r = 0; r < 33; r++)
        if (v[NF_HIST + r]) {
            char key[4];
            snprintf(key, sizeof key, "%u", r);
            gd_uint(b, key, v[NF_HIST + r]);
        }
    gd_end(b);
    gd_meaning(b, "variable sub-tracks per bit width, over every segment");
    gd_bool(b, "hash_ok", v[NF_HASH_STORED] == v[NF_HASH_COMPUTED]);
    gd_meaning(b, v[NF_HASH_STORED] == v[NF_HASH_COMPUTED] ? "the FNV-1a hash matches the buffer"
                                                           : "the buffer was modified or damaged");
    if (level == GANIM_DETAILS_FULL) {
        gd_uint(b, "buffer_size", v[NF_SIZE]);
        gd_uint(b, "hash", v[NF_HASH_STORED]);
        gd_uint(b, "hash_computed", v[NF_HASH_COMPUTED]);
        gd_uint(b, "segment_header_size", v[NF_SEGHDR]);
        gd_uint(b, "stored_key_frames", v[NF_KEYS]);
        gd_list(b, "metadata_offsets");
        for (unsigned i = 0; i < 5; i++) {
            if (v[NF_META + i] == ACL_NONE) gd_null(b, NULL);
            else gd_uint(b, NULL, v[NF_META + i]);
        }
        gd_end(b);
    }
}

ganim_code acl_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b, ganim_error *err)
{
    (void)err;
    if (clip >= 0) clip_details(b, &doc->clips[clip], level);
    return GANIM_OK;
}

ganim_code civ7_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b, ganim_error *err)
{
    (void)err;
    if (clip >= 0) {
        clip_details(b, &doc->clips[clip], level);
        return GANIM_OK;
    }
    if (!doc->native_format || strcmp(doc->native_format, CIV7_NATIVE) != 0 || doc->native_size < CIV7_HEADER)
        return GANIM_OK;
    const uint8_t *h = doc->native;
    int v0 = ganim_ld_u32le(h + 0x48) == CIV7_V0_MARKER;
    gd_string(b, "variant", v0 ? "V0" : "V1");
    gd_meaning(b, v0 ? "uncompressed frames" : "ACL compressed_tracks at 0x60");
    gd_uint(b, "file_size", ganim_ld_u32le(h + 4));
    gd_float(b, "fps", ganim_ld_f32le(h + 0x08));
    gd_uint(b, "frames", ganim_ld_u32le(h + 0x0C));
    gd_uint(b, "bones", ganim_ld_u32le(h + 0x10));
    gd_uint(b, "name_offset", ganim_ld_u32le(h + 0x50));
    gd_uint(b, "trailing_bytes", doc->native_size - CIV7_HEADER);
    if (level == GANIM_DETAILS_FULL) gd_bytes(b, "header", h, CIV7_HEADER);
    return GANIM_OK;
}
