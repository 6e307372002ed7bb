/* The ACL formats: bare compressed_tracks buffers ("acl"), the Civilization VII
 * container ("civ7", acl_civ7.c) and its skeletons ("civ7-skeleton", acl_civ7_skel.c). */
#include "formats/acl/acl_encode.h"

int acl_probe(const uint8_t *data, size_t size)
{
    if (size < 16 || ganim_ld_u32le(data + 8) != GANIM_ACL_TAG) return 0;
    uint16_t ver = ganim_ld_u16le(data + 12);
    if (ver >= 7 && ver <= 10 && data[14] == 0 && data[15] == 12) return 95;
    return 40;
}

ganim_code acl_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts, ganim_error *err)
{
    return ganim_acl_read_doc(doc, data, size, 0, opts, err);
}

static const struct ganim_format_impl acl_impl = {
    .probe = acl_probe,
    .read = acl_read,
    .write = acl_write,
    .details = acl_details,
    .axes = 1 + GANIM_AXES_Y_UP,
};

const ganim_format ganim_format_acl = {
    .name = "acl",
    .description = "ACL 2.0/2.1 compressed_tracks transform buffer (versions 7-10)",
    .family = "acl",
    .extensions = ".acl",
    .flags = GANIM_FORMAT_READ | GANIM_FORMAT_WRITE,
    .options = acl_options,
    .option_count = GANIM_COUNT_OF(acl_options),
    .impl = &acl_impl,
};

static const struct ganim_format_impl civ7_impl = {
    .probe = civ7_probe,
    .read = civ7_read,
    .write = civ7_write,
    .details = civ7_details,
    .axes = 1 + GANIM_AXES_Y_UP,
    .writer_options_of = &ganim_format_acl, /* acl.* shape a V1 body */
};

const ganim_format ganim_format_civ7 = {
    .name = "civ7",
    .description = "Civilization VII animation (0x6AB06AB0): V0 raw frames, V1 ACL body",
    .family = "acl",
    .extensions = ".civ",
    .flags = GANIM_FORMAT_READ | GANIM_FORMAT_WRITE,
    .options = civ7_options,
    .option_count = GANIM_COUNT_OF(civ7_options),
    .impl = &civ7_impl,
};

static const struct ganim_format_impl civ7_skel_impl = {
    .probe = civ7_skel_probe,
    .read = civ7_skel_read,
    .axes = 1 + GANIM_AXES_Y_UP,
};

const ganim_format ganim_format_civ7_skeleton = {
    .name = "civ7-skeleton",
    .description = "Civilization VII skeleton (RootNode blob: 296-byte bone records, no header)",
    .family = "acl",
    .extensions = ".skel",
    .flags = GANIM_FORMAT_READ | GANIM_FORMAT_COMPANION,
    .impl = &civ7_skel_impl,
};
