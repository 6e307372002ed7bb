/* The "acl" format's writer: the acl.* options, checked and turned into the encoder's
 * settings, then the document's first animation as a bare compressed_tracks buffer. */
#include <stdio.h>

#include "formats/acl/acl_encode.h"
#include "io/decimal.h"

const ganim_option acl_options[ACL_OPT_COUNT] = {
    [ACL_OPT_VERSION] = {
        .name = "acl.version",
        .alias = "acl-version",
        .type = GANIM_OPTION_CHOICE,
        .flags = GANIM_OPTION_WRITE,
        .values = "7|10",
        .help = "write format version 10 (ACL 2.1) or 7 (ACL 2.0, whose runtimes reject 8-10)",
        .when_unset = "the version of the buffer the animation was read from if 7 or 10, else 10",
    },
    [ACL_OPT_PRECISION] = {
        .name = "acl.precision",
        .alias = "acl-precision",
        .type = GANIM_OPTION_TEXT,
        .flags = GANIM_OPTION_WRITE,
        .values = "NUMBER",
        .help = "largest error allowed at the shell distance (a number above 0, in the document's units; ACL's qvvf metric)",
        .when_unset = "0.01",
    },
    [ACL_OPT_SHELL] = {
        .name = "acl.shell",
        .alias = "acl-shell",
        .type = GANIM_OPTION_TEXT,
        .flags = GANIM_OPTION_WRITE,
        .values = "NUMBER",
        .help = "distance from each bone of the points the error is measured at (a number above 0, in the document's units)",
        .when_unset = "3",
    },
    [ACL_OPT_LEVEL] = {
        .name = "acl.level",
        .alias = "acl-level",
        .type = GANIM_OPTION_CHOICE,
        .flags = GANIM_OPTION_WRITE,
        .values = "medium|high|highest|automatic",
        .help = "how hard the bit-rate search tries (ACL's compression levels)",
        .when_unset = "automatic: as ACL 2.1 picks from the clip's length and hierarchy depth",
    },
    [ACL_OPT_METADATA] = {
        .name = "acl.metadata",
        .alias = "acl-metadata",
        .type = GANIM_OPTION_CHOICE,
        .flags = GANIM_OPTION_WRITE,
        .values = "yes|no|auto",
        .help = "store the skeleton's name, track names and parents in the buffer (auto: unless the hierarchy is unknown and the names made up)",
        .when_unset = "auto: yes, except for a skeleton of several bones, all roots, whose names a reader made up (track_<i>, bone_<i>)",
    },
};

/* Is `name` "<prefix><index>" in decimal without leading zeros? */
static int made_up_name(const char *name, const char *prefix, uint32_t index)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0) return 0;
    char digits[12];
    snprintf(digits, sizeof digits, "%u", index);
    return strcmp(name + n, digits) == 0;
}

int acl_metadata_auto(const ganim_skeleton *sk)
{
    if (!acl_hierarchy_unknown(sk)) return 1;
    for (uint32_t b = 0; b < sk->bone_count; b++) {
        const char *name = sk->bones[b].name ? sk->bones[b].name : "";
        if (*name && !made_up_name(name, "track_", b) && !made_up_name(name, "bone_", b)) return 1;
    }
    return 0; /* several roots named by a reader: the buffer would carry a false hierarchy */
}

/* A positive finite number from option text, or an error naming the option. */
static ganim_code positive(const ganim_write_opts *opts, const char *name, float fallback, float *out, ganim_error *err)
{
    const char *v = opts ? ganim_setting_get(opts->settings, opts->setting_count, name) : NULL;
    *out = fallback;
    if (!v) return GANIM_OK;
    gdec d;
    size_t n = strlen(v), used = gdec_scan(v, n, GDEC_LENIENT, &d);
    float f = used == n && n ? gdec_float(&d) : -1.0f;
    if (!(f > 0.0f && f <= 1e30f))
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "option %s: '%s' is not a number above 0", name,
                          v);
    *out = f;
    return GANIM_OK;
}

ganim_code acl_write_params(const ganim_doc *doc, const ganim_write_opts *opts, acl_enc_params *p, ganim_error *err)
{
    memset(p, 0, sizeof *p);
    p->version = 10;
    p->fmt[K_ROT] = 3;
    p->fmt[K_TRANS] = 1;
    p->fmt[K_SCALE] = 1;
    const ganim_clip *clip = ganim_doc_first_animation(doc);
    if (clip && clip->native_format && strcmp(clip->native_format, ACL_NATIVE) == 0 && clip->native_size >= 4) {
        uint32_t v = ganim_ld_u32le(clip->native + 4u * NF_VERSION);
        if (v == 7) p->version = 7;
    }
    const ganim_setting *set = opts ? opts->settings : NULL;
    uint32_t count = opts ? opts->setting_count : 0;
    int ver = ganim_setting_choice(set, count, &acl_options[ACL_OPT_VERSION]);
    if (ver >= 0) p->version = ver == 0 ? 7 : 10;
    int level = ganim_setting_choice(set, count, &acl_options[ACL_OPT_LEVEL]);
    p->level = level >= 0 ? level : ACL_LEVEL_AUTOMATIC;
    int meta = ganim_setting_choice(set, count, &acl_options[ACL_OPT_METADATA]);
    p->metadata = meta == 0 || ((meta < 0 || meta == 2) && acl_metadata_auto(doc->skeleton));
    p->metadata_set = meta == 0 || meta == 1;
    ganim_code rc = positive(opts, "acl.precision", 0.01f, &p->precision, err);
    if (rc == GANIM_OK) rc = positive(opts, "acl.shell", 3.0f, &p->shell, err);
    return rc;
}

void acl_warn_unknown_hierarchy(const ganim_doc *doc, const ganim_write_opts *opts, const char *format)
{
    const ganim_skeleton *sk = doc->skeleton;
    if (!acl_hierarchy_unknown(sk)) return;
    ganim_write_warn(opts, GANIM_WARN_OTHER,
                     "%s: the skeleton has no hierarchy (%u bones, every one a root): the buffer stays "
                     "within the precision for any hierarchy the game gives the bones, which makes it "
                     "larger than ACL's for the real one (1.4-2.6x on the shared clips); give the "
                     "skeleton with --skeleton for ACL's sizes",
                     format, sk->bone_count);
}

ganim_code acl_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err)
{
    acl_enc_params p;
    ganim_code rc = acl_write_params(doc, opts, &p, err);
    if (rc) return rc;
    rc = acl_encode_doc(doc, &p, opts ? &opts->allocator : NULL, out, err);
    if (rc == GANIM_OK) acl_warn_unknown_hierarchy(doc, opts, "acl");
    return rc;
}
