/* The Argonaut writer: the animation block (u32 count and one record per clip) put back
 * into the level WAD the document was read from (also a clone of it with clips replaced,
 * as --into hands it), whose XSPD section and header grow or shrink with it; everything
 * else of the level is copied as it was read. A document that holds no level is written
 * as a bare block only when asked to. An unmodified document gives back the file it was
 * read from, byte for byte. */
#include <string.h>

#include "formats/argonaut/argonaut.h"
#include "io/bytes.h"
#include "io/writer.h"

static const char *const name_of[2] = { "Croc 2", "Harry Potter" };

ganim_code argonaut_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err)
{
    const ganim_setting *set = opts ? opts->settings : NULL;
    uint32_t nset = opts ? opts->setting_count : 0;
    ag_doc_info di;
    bool have = ag_doc_info_parse(doc, &di);
    int copt = ganim_setting_choice(set, nset, &argonaut_options[AG_OPT_CONTAINER]); /* wad|block */
    int variant = ganim_setting_choice(set, nset, &argonaut_options[AG_OPT_VARIANT]);
    int convention = ganim_setting_choice(set, nset, &argonaut_options[AG_OPT_CONVENTION]);
    /* a level WAD unless asked for the block: the game reads WADs; the rest of the level
     * comes from the WAD the document was read from */
    int container = copt == 0 ? AG_WAD : copt == 1 ? AG_BLOCK : have ? di.container : AG_WAD;
    /* the variant and convention: the document's, else those its clips' records were read
     * under (a Harry Potter record stays one), else Croc 2 and sv */
    int cv = -1, cc = -1;
    for (uint32_t ci = 0; !have && ci < doc->clip_count; ci++) {
        ag_clip_info in;
        if (!ag_clip_info_parse(&doc->clips[ci], &in)) continue;
        if (cv < 0) cv = in.variant, cc = in.convention;
        else if (cv != in.variant) cv = -2;
    }
    if (variant < 0) variant = have ? di.variant : cv >= 0 ? cv : AG_CROC2;
    if (convention < 0) convention = have ? di.convention : cc >= 0 && cv >= 0 ? cc : AG_SV;
    if (container == AG_WAD && !have)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          AG ": a level WAD holds the whole level, and this document holds only animations: write "
                             "them into the level they belong to with --into ORIGINAL.wad (-O argonaut.container=block "
                             "writes the bare animation block)");
    if (container == AG_WAD && di.container != AG_WAD)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          AG ": the document was read from a bare animation block, not a level WAD: write its "
                             "animations into a level with --into ORIGINAL.wad");
    if (container == AG_WAD && variant != di.variant)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          AG ": a %s level holds %s records; its variant cannot change (a block can: -O "
                             "argonaut.container=block)",
                          name_of[di.variant], name_of[di.variant]);
    /* the rest of the source goes with the records: the level (WAD), or what followed the
     * last record read (a block), unless the records change layout */
    bool source = have && di.container == container && variant == di.variant;
    ganim_writer w = gw_init(out, opts ? &opts->allocator : NULL);
    size_t start = gw_pos(&w);
    if (container == AG_WAD) gw_bytes(&w, di.prefix, di.prefix_size);
    size_t count_at = gw_pos(&w);
    gw_u32le(&w, 0);
    uint32_t written = 0;
    for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
        const ganim_clip *c = &doc->clips[ci];
        ag_clip_info in;
        if (c->kind == GANIM_CLIP_OPAQUE && !ag_clip_info_parse(c, &in)) continue; /* not an animation: left out */
        if (!gw_ok(&w)) break;
        ganim_code code = ag_encode_clip(doc, ci, variant, convention, opts, out, err);
        if (code != GANIM_OK) return code;
        written++;
    }
    uint32_t count = source ? di.stored_count - di.parsed + written : written;
    gw_patch_u32le(&w, count_at, count);
    if (source) gw_bytes(&w, di.suffix, di.suffix_size);
    if (!gw_ok(&w)) return GANIM_NOMEM(err);
    if (container == AG_WAD) {
        /* the XSPD section's size and the header's file size follow the block's */
        size_t size = gw_pos(&w) - start;
        int64_t delta = (int64_t)size - (int64_t)di.input_size;
        uint8_t *base = out->data + start;
        if ((size_t)di.xspd + 8 <= di.prefix_size) {
            int64_t xs = (int64_t)ganim_ld_u32le(base + di.xspd + 4) + delta;
            if (xs < 0 || xs > UINT32_MAX || size > UINT32_MAX - 0x800)
                return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, AG ": the XSPD section would not fit 4 GiB");
            ganim_st_u32le(base + di.xspd + 4, (uint32_t)xs);
        }
        uint32_t h = ganim_ld_u32le(base);
        if (h == di.input_size + 0x800u) ganim_st_u32le(base, (uint32_t)size + 0x800u);
        else if (h == di.input_size - 4u + 0x800u) ganim_st_u32le(base, (uint32_t)size - 4u + 0x800u);
    }
    return GANIM_OK;
}
