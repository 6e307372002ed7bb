/* Companion files: an animation whose format needs a skeleton from another file (an
 * .ALA needs its model's .ALO, an FF7 pack its ??aa) names it by a rule each format
 * declares (ganim_format_impl.companion). Here: the folder listing, the shared name
 * helpers the rules use, and ganim_find_companion. */
#include <string.h>

#include "core/internal.h"
#include "formats/format.h"
#include "io/fs.h"

#define PATH_MAX_GANIM 4096

int ganim_name_match(const char *const *names, size_t count, const char *want)
{
    int found = -1;
    for (size_t i = 0; i < count && i < (size_t)INT32_MAX; i++) {
        if (strcmp(names[i], want) == 0) return (int)i;
        if (found < 0 && ganim_strcasecmp(names[i], want) == 0) found = (int)i;
    }
    return found;
}

const char *ganim_name_extension(const char *base)
{
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot : base + strlen(base);
}

/* The format whose rule is used: the one given, else the extension's, else the bytes'. */
static const ganim_format *companion_format(const char *path, const ganim_format *format)
{
    if (!format) format = ganim_format_for_path(path);
    if (!format) { /* by content */
        ganim_buffer b = { 0 };
        if (ganim_fs_is_dir(path) || ganim_load_file(path, NULL, 0, &b, NULL) != GANIM_OK) return NULL;
        format = ganim_probe(b.data, b.size, NULL);
        ganim_buffer_free(&b);
    }
    return format && format->impl && format->impl->companion ? format : NULL;
}

/* The rule of `format` among the entries of path's folder. */
static int find_among(const char *path, const ganim_format *format, const char *const *names, size_t count, char *out,
                      size_t size)
{
    const char *base = ganim_path_base(path);
    size_t dir_len = (size_t)(base - path);
    int pick = format->impl->companion(base, names, count);
    int found = 0;
    if (pick >= 0 && (size_t)pick < count) {
        size_t n = strlen(names[pick]);
        if (dir_len + n + 1 <= size) {
            memcpy(out, path, dir_len); /* the folder, with its separator */
            memcpy(out + dir_len, names[pick], n + 1);
            found = !ganim_fs_is_dir(out); /* the companion must be a file */
        }
    }
    if (!found) out[0] = 0;
    return found;
}

int ganim_find_companion(const char *path, const ganim_format *format, char *out, size_t size)
{
    if (!path || !out || size == 0) return 0;
    out[0] = 0;
    if (!(format = companion_format(path, format))) return 0;
    const char *base = ganim_path_base(path);
    size_t dir_len = (size_t)(base - path);
    char dir[PATH_MAX_GANIM];
    if (dir_len >= sizeof dir) return 0;
    if (dir_len == 0) {
        dir[0] = '.', dir[1] = 0;
    } else {
        memcpy(dir, path, dir_len); /* with its separator: "/" and "C:\\" stay roots */
        dir[dir_len] = 0;
    }
    ganim_allocator a = ganim_allocator_resolve(NULL);
    ganim_fs_names names;
    if (ganim_fs_list(dir, &a, &names, NULL) != GANIM_OK) return 0;
    int found = find_among(path, format, (const char *const *)names.names, names.count, out, size);
    ganim_fs_names_free(&a, &names);
    return found;
}

int ganim_find_companion_in(const char *path, const ganim_format *format, const char *const *names, size_t count,
                            char *out, size_t size)
{
    if (!path || !out || size == 0) return 0;
    out[0] = 0;
    if ((!names && count) || !(format = companion_format(path, format))) return 0;
    return find_among(path, format, names, count, out, size);
}
