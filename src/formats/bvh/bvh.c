/* BVH (Biovision hierarchy): the format descriptor, its options, the probe and the read. */
#include "formats/bvh/bvh.h"
#include "io/decimal_fast.h"

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

/* A BVH separator: ' ', '\t', '\r' or '\n' (bits 32, 9, 13 and 10 of the mask). */
#define BVH_SEP_BITS ((1ull << ' ') | (1ull << '\t') | (1ull << '\r') | (1ull << '\n'))
static inline int sep(uint8_t c) { return c <= ' ' && (BVH_SEP_BITS >> c & 1u); }

/* Little-endian 8 (4) bytes at p, whatever the machine's order; with bit 5 of each byte
 * set, a letter's upper and lower case give the lower case's value and no other byte
 * does, so the bytes equal a keyword's lower-case letters without case exactly when the
 * values are equal (the keywords are letters only). */
static inline uint64_t ld8_lower(const uint8_t *p) { return gdec_ld8(p) | 0x2020202020202020u; }
static inline uint32_t ld4_lower(const uint8_t *p) { return ganim_ld_u32le(p) | 0x20202020u; }

/* "hierarchy" then "root" (any case), each after white space and followed by one: 100;
 * "hierarchy" alone 90; else 0. */
static int bvh_probe(const uint8_t *data, size_t size)
{
    size_t i = size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF ? 3 : 0;
    while (i < size && sep(data[i])) i++;
    if (size - i < 10 || ld8_lower(data + i) != gdec_ld8((const uint8_t *)"hierarch") || (data[i + 8] | 0x20u) != 'y' ||
        !sep(data[i + 9]))
        return 0;
    i += 9;
    while (i < size && sep(data[i])) i++;
    if (size - i < 5 || ld4_lower(data + i) != ld4_lower((const uint8_t *)"root") || !sep(data[i + 4])) return 90;
    return 100;
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
    if (f.opts->setting_count) { /* none set (a read's common case): both unset, -1 */
        f.positions_add =
            ganim_setting_choice(f.opts->settings, f.opts->setting_count, &bvh_options[BVH_OPT_POSITIONS]) == 1;
        int axes = ganim_setting_choice(f.opts->settings, f.opts->setting_count, &bvh_options[BVH_OPT_AXES]);
        f.axes_undone = axes >= 0 ? axes + 1 : 0;
    }
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
