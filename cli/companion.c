/* Finding the skeleton an animation file needs, from file names alone.
 *
 *   Alamo:  MODEL_ANIM_NN.ala needs MODEL.alo. Strip trailing "_PART" components one at
 *           a time (MODEL_ANIM_NN, MODEL_ANIM, MODEL, ...) and take the first name that
 *           exists as .alo in the same directory. If none does, take the longest
 *           stripped name (two components or more) that begins exactly one .alo file.
 *   FF7:    a battle pack "xxda" (four letters ending in "da") needs "xxaa";
 *           NAME.da needs NAME.aa.
 * File names match case-insensitively (the games come from Windows); an exact-case
 * match wins over another spelling. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The entry of `names` equal to `want` ignoring case, exact case first; or NULL. */
static const char *match(char **names, size_t n, const char *want)
{
    const char *found = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(names[i], want) == 0) return names[i];
        if (!found && cli_strcaseeq(names[i], want)) found = names[i];
    }
    return found;
}

static int is_alo(const char *name) { return cli_strcaseeq(cli_extension(name), ".alo"); }

static char *alamo_model(const char *dir, char **names, size_t n, const char *stem)
{
    size_t len = strlen(stem);
    char *level = cli_xmalloc(len + 5);
    char *result = NULL;
    /* Exact MODEL.alo at each level, longest first. */
    for (size_t cut = len; cut > 0 && !result;) {
        memcpy(level, stem, cut);
        memcpy(level + cut, ".alo", 5);
        const char *hit = match(names, n, level);
        if (hit) result = cli_join(dir, hit);
        while (cut > 0 && stem[cut - 1] != '_') cut--;
        if (cut > 0) cut--; /* drop the '_' itself */
    }
    /* MODEL*.alo when only one file fits. */
    for (size_t cut = len; cut > 0 && !result;) {
        if (memchr(stem, '_', cut)) { /* two components or more */
            const char *only = NULL;
            int count = 0;
            for (size_t i = 0; i < n; i++)
                if (is_alo(names[i]) && cli_strncaseeq(names[i], stem, cut) && strlen(names[i]) > cut) {
                    only = names[i];
                    count++;
                }
            if (count == 1) result = cli_join(dir, only);
        }
        while (cut > 0 && stem[cut - 1] != '_') cut--;
        if (cut > 0) cut--;
    }
    free(level);
    return result;
}

char *cli_find_companion(const char *path)
{
    const char *base = cli_basename(path);
    const char *ext = cli_extension(path);
    int alamo = cli_strcaseeq(ext, ".ala");
    int ff7_pack = strlen(base) == 4 && cli_strcaseeq(base + 2, "da");
    int ff7_ext = cli_strcaseeq(ext, ".da");
    if (!alamo && !ff7_pack && !ff7_ext) return NULL;

    char *dir = cli_dirname(path);
    char **names;
    size_t n;
    char *result = NULL;
    if (cli_list_dir(dir, &names, &n) != 0) {
        free(dir);
        return NULL;
    }
    char *stem = cli_stem(path);
    if (alamo) {
        result = alamo_model(dir, names, n, stem);
    } else {
        cli_str want = {0};
        if (ff7_pack) {
            cli_str_append(&want, base, 2);
            /* keep the case of the pack's own "da" */
            cli_str_puts(&want, base[2] == 'D' ? "AA" : "aa");
        } else {
            cli_str_puts(&want, stem);
            cli_str_puts(&want, ext[1] == 'D' ? ".AA" : ".aa");
        }
        const char *hit = match(names, n, want.s);
        if (hit) result = cli_join(dir, hit);
        cli_str_free(&want);
    }
    free(stem);
    cli_free_list(names, n);
    free(dir);
    /* The companion of a directory entry must be a file. */
    if (result && cli_is_dir(result)) {
        free(result);
        result = NULL;
    }
    return result;
}
