/* BVH (Biovision hierarchy): the format descriptor, its options, the probe and the read. */
#include "formats/bvh/bvh.h"

enum { BVH_OPT_POSITIONS = 0, BVH_OPT_AXES, BVH_OPT_COUNT };

static const ganim_option bvh_options[BVH_OPT_COUNT] = {
    [BVH_OPT_POSITIONS] = {
        .name = "bvh.positions",
        .alias = "bvh-positions",
        .type = GANIM_OPTION_CHOICE,
        .flags = GANIM_OPTION_READ,
        .values = "replace|add",
        .help = "position channels are the joint's whole translation (replace, as Blender reads them) or are added to "
            "its OFFSET (add, as three.js reads them)",
        .when_unset = "replace",
    },
    [BVH_OPT_AXES] = {
        .name = "bvh.axes",
        .alias = "bvh-axes",
        .type = GANIM_OPTION_CHOICE,
        .flags = GANIM_OPTION_READ,
        .values = "y-up|z-up|y-down",
        .help = "the axes the animation had before it was written in BVH's Y up (ganim's export of a z-up or y-down "
            "model): root rotations and positions are turned back and the document has these axes",
        .when_unset = "the values as they are, Y up",
    },
};

/* `kw`: lower-case letters only, so a byte equals its letter without case when the byte
 * with bit 5 set (0x20: a letter's lower case) is the letter (no other byte gives it). */
static inline int word_at(const uint8_t *d, size_t n, size_t *i, const char *kw)
{
    while (*i < n && (d[*i] == ' ' || d[*i] == '\t' || d[*i] == '\r' || d[*i] == '\n')) (*i)++;
    size_t k = strlen(kw);
    if (n - *i < k + 1) return 0;
    for (size_t j = 0; j < k; j++)
        if ((d[*i + j] | 0x20u) != (uint8_t)kw[j]) return 0;
    uint8_t after = d[*i + k];
    if (after != ' ' && after != '\t' && after != '\r' && after != '\n') return 0;
    *i += k;
    return 1;
}

static int bvh_probe(const uint8_t *data, size_t size)
{
    size_t i = size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF ? 3 : 0;
    if (!word_at(data, size, &i, "hierarchy")) return 0;
    return word_at(data, size, &i, "root") ? 100 : 90;
}

static ganim_code bvh_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                           ganim_error *err)
{
    static const ganim_read_opts none;
    bvh_file f;
    memset(&f, 0, sizeof f);
    f.doc = doc;
    f.opts = opts ? opts : &none;
    f.err = err;
    f.data = data;
    f.size = size;
    f.positions_add =
        ganim_setting_choice(f.opts->settings, f.opts->setting_count, &bvh_options[BVH_OPT_POSITIONS]) == 1;
    int axes = ganim_setting_choice(f.opts->settings, f.opts->setting_count, &bvh_options[BVH_OPT_AXES]);
    f.axes_undone = axes >= 0 ? axes + 1 : 0;
    doc->axes = GANIM_AXES_Y_UP;
    /* a small text's document and scratch in small blocks, the scratch and its block in
     * the document's allocation (the readers that reserve their document's block keep 64 KiB) */
    ganim_doc_size_for_input(doc, size);
    f.scratch = ganim_doc_scratch(doc); /* counted against the same memory limit */
    if (!f.scratch) return GANIM_NOMEM(err);
    ganim_code code = bvh_parse(&f);
    if (code == GANIM_OK) code = bvh_build(&f);
    if (code == GANIM_OK) code = bvh_record(&f);
    ganim_doc_free(f.scratch);
    return code;
}

static const struct ganim_format_impl bvh_impl = {
    .probe = bvh_probe,
    .read = bvh_read,
    .details = bvh_details,
    .sized_for_input = 1,
};

const ganim_format ganim_format_bvh = {
    .name = BVH_FORMAT,
    .description = "Biovision hierarchy (.bvh): joints, offsets and one clip of Euler rotations and positions; written "
                   "by the exporter",
    .family = "bvh",
    .extensions = ".bvh",
    .flags = GANIM_FORMAT_READ,
    .options = bvh_options,
    .option_count = GANIM_COUNT_OF(bvh_options),
    .impl = &bvh_impl,
};
