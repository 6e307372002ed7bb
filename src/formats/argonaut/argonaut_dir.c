/* Argonaut DAT/DIR archives (CROCII.DIR + CROCII.DAT, POTTER.DIR + POTTER.DAT): the DIR
 * is u32 count, then count entries {char name[12] NUL-padded, u32 size, u32 offset in the
 * DAT}. Reading a DIR lists the files; a member (ARCHIVE.DIR:NAME.WAD) is cut out of the
 * DAT, which is named after the DIR. Croc 1's CROCFILE.DIR (24-byte entries, no count)
 * is another layout and is not read. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "formats/argonaut/argonaut.h"
#include "io/writer.h"

#define ENTRY 20u

/* The name of entry i, NUL-terminated, in `out` (13 bytes); false when it is not a name:
 * printable ASCII, then only NULs. */
static bool entry_name(const uint8_t *e, char out[13])
{
    size_t n = 0;
    while (n < 12 && e[n]) {
        if (e[n] < 0x21 || e[n] > 0x7E) return false;
        out[n] = (char)e[n];
        n++;
    }
    for (size_t k = n; k < 12; k++)
        if (e[k]) return false;
    out[n] = 0;
    return n > 0;
}

/* The entry count, or -1 (with `why`) when the bytes are not a DIR. */
static int64_t dir_entries(const uint8_t *data, size_t size, char *why, size_t why_size, uint64_t *bad_at)
{
    *bad_at = 0;
    if (size < 4) {
        snprintf(why, why_size, "%zu bytes are too few for the entry count", size);
        return -1;
    }
    uint32_t n = ganim_ld_u32le(data);
    if (n > (size - 4) / ENTRY) {
        snprintf(why, why_size, "%u entries of 20 bytes need %llu bytes, the file has %zu", n,
                 4ull + (unsigned long long)n * ENTRY, size);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        char name[13];
        if (!entry_name(data + 4 + ENTRY * (size_t)i, name)) {
            *bad_at = 4 + ENTRY * (uint64_t)i;
            snprintf(why, why_size, "entry %u at byte %llu has no file name", i, (unsigned long long)*bad_at);
            return -1;
        }
    }
    return n;
}

int argonaut_dir_probe(const uint8_t *data, size_t size)
{
    char why[8];
    uint64_t at;
    int64_t n = dir_entries(data, size, why, sizeof why, &at);
    if (n <= 0) return 0;
    /* the rest is padding (a CD sector) or nothing */
    for (size_t k = 4 + ENTRY * (size_t)n; k < size; k++)
        if (data[k]) return 10;
    bool dotted = false;
    for (int64_t i = 0; i < n; i++) dotted |= memchr(data + 4 + ENTRY * (size_t)i, '.', 12) != NULL;
    return dotted ? 80 : 30;
}

ganim_code argonaut_dir_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                             ganim_error *err)
{
    (void)opts;
    char why[200];
    uint64_t at;
    int64_t n = dir_entries(data, size, why, sizeof why, &at);
    if (n < 0) return ganim_fail(err, size < 4 ? GANIM_ERR_TRUNCATED : GANIM_ERR_CORRUPT, at, AG_DIR ": %s", why);
    size_t used = 4 + ENTRY * (size_t)n;
    for (size_t k = used; k < size; k++)
        if (data[k]) {
            ganim_doc_warn(doc, GANIM_WARN_EXTRA_BYTES, k,
                           AG_DIR ": %zu bytes after the %lld entries are not zero; ignored", size - used,
                           (long long)n);
            break;
        }
    const uint8_t *copy = ganim_doc_keep_input(doc, data, size);
    if (!copy) return GANIM_NOMEM(err);
    doc->native_format = AG_DIR;
    doc->native = copy;
    doc->native_size = size;
    return GANIM_OK;
}

ganim_code argonaut_dir_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b,
                                ganim_error *err)
{
    (void)level;
    (void)err;
    char why[8];
    uint64_t at;
    if (clip >= 0 || !doc->native_format || strcmp(doc->native_format, AG_DIR) != 0) return GANIM_OK;
    int64_t n = dir_entries(doc->native, doc->native_size, why, sizeof why, &at);
    if (n < 0) return GANIM_OK;
    uint32_t wads = 0;
    gd_uint(b, "entry_count", (uint64_t)n);
    gd_label(b, "files");
    gd_list(b, "entries");
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *e = doc->native + 4 + ENTRY * (size_t)i;
        char name[13];
        entry_name(e, name);
        const char *dot = strrchr(name, '.');
        bool wad = dot && ganim_strcasecmp(dot, ".wad") == 0;
        wads += wad;
        gd_group(b, NULL);
        gd_string(b, "name", name);
        gd_uint(b, "size", ganim_ld_u32le(e + 12));
        gd_uint(b, "offset", ganim_ld_u32le(e + 16));
        gd_meaning(b, "in the .DAT");
        gd_bool(b, "wad", wad);
        gd_end(b);
    }
    gd_end(b);
    gd_uint(b, "wad_count", wads);
    gd_label(b, "level WADs");
    gd_meaning(b, "read one as ARCHIVE.DIR:NAME.WAD");
    return GANIM_OK;
}

ganim_code argonaut_dir_member(const uint8_t *data, size_t size, const char *member, const ganim_read_opts *opts,
                               ganim_buffer *out, ganim_error *err)
{
    char why[200];
    uint64_t at;
    int64_t n = dir_entries(data, size, why, sizeof why, &at);
    if (n < 0) return ganim_fail(err, GANIM_ERR_CORRUPT, at, AG_DIR ": %s", why);
    int64_t found = -1;
    for (int pass = 0; pass < 2 && found < 0; pass++) /* an exact name first, then any case */
        for (int64_t i = 0; i < n && found < 0; i++) {
            char name[13];
            entry_name(data + 4 + ENTRY * (size_t)i, name);
            if (pass ? ganim_strcasecmp(name, member) == 0 : strcmp(name, member) == 0) found = i;
        }
    if (found < 0)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          AG_DIR ": the archive has no file '%.100s' (ganim info on the .DIR lists them)", member);
    const uint8_t *e = data + 4 + ENTRY * (size_t)found;
    uint32_t msize = ganim_ld_u32le(e + 12), moff = ganim_ld_u32le(e + 16);
    /* the data file: the DIR's name with .DAT for .DIR, in the same case */
    const char *name = opts ? opts->name : NULL;
    const char *dot = name ? strrchr(name, '.') : NULL;
    if (!dot || strlen(name) > 250)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          AG_DIR ": the data file is named after the .DIR file, whose name is not known here "
                                 "(read the archive with ganim_read_file)");
    char dat[256];
    size_t stem = (size_t)(dot - name);
    memcpy(dat, name, stem);
    snprintf(dat + stem, sizeof dat - stem, "%s", islower((unsigned char)dot[1]) ? ".dat" : ".DAT");
    /* only the member's bytes are read: a game's data file holds hundreds of megabytes */
    ganim_code code = ganim_read_load_range(opts, dat, moff, msize, out, err);
    if (code == GANIM_ERR_TRUNCATED) {
        snprintf(why, sizeof why, "%.190s", err ? err->message : "");
        code = ganim_fail(err, GANIM_ERR_CORRUPT, 4 + ENTRY * (uint64_t)found, AG_DIR ": '%s' lies outside %s: %s",
                          member, dat, why);
    }
    return code;
}
