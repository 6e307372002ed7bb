/* The other files a file names (a glTF's buffers, an archive's data file): asked for
 * through the read options' loader (ganim_read_load), or read by ganim_read_file's own
 * loader from the folder of the file being read, by relative names that stay inside it. */
#include <stdio.h>
#include <string.h>

#include "formats/format.h"
#include "formats/read_files.h"
#include "io/fs.h"

ganim_code ganim_read_load(const ganim_read_opts *opts, const char *name, ganim_buffer *out, ganim_error *err)
{
    if (!opts || !opts->load)
        return ganim_fail(err, GANIM_ERR_UNSUPPORTED, GANIM_NO_OFFSET,
                          "the file needs another file, '%.200s', which cannot be read here (read it with "
                          "ganim_read_file, or give the read options a loader)",
                          name ? name : "");
    memset(out, 0, sizeof *out);
    out->allocator = ganim_allocator_resolve(&opts->allocator);
    ganim_code code = opts->load(opts->load_user, name, out, err);
    if (code != GANIM_OK) ganim_buffer_free(out);
    return code;
}

/* The path of `name` in the loader's folder, or an error when the name leaves it. */
static ganim_code folder_path(const folder_loader *f, const char *name, char *path, size_t size, ganim_error *err)
{
    int bad = !name || !*name || name[0] == '/' || name[0] == '\\' || strchr(name, ':') != NULL;
    for (const char *p = name; !bad && *p; p++) /* a ".." component */
        if (p[0] == '.' && p[1] == '.' && (p == name || p[-1] == '/' || p[-1] == '\\') &&
            (p[2] == 0 || p[2] == '/' || p[2] == '\\'))
            bad = 1;
    if (bad)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "the file names another file outside its folder ('%.200s'); not read", name ? name : "");
    int n = snprintf(path, size, "%s%s", f->dir, name);
    if (n < 0 || (size_t)n >= size)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "the name '%.200s' is too long", name);
    /* Only regular files of the folder itself: a link may lead out of it, and a pipe or a
     * device would block the read or never end. A missing file is left to the open, which
     * says why. */
    if (ganim_fs_is_plain_file(path) == 0) {
        const char *what = ganim_fs_not_plain(path);
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "the file names '%.200s', which is %s, not a regular file in its folder; not read (ganim "
                          "reads only the regular files next to the file: no links, folders, pipes or devices)",
                          name, what ? what : "something else");
    }
    return GANIM_OK;
}

/* Says which file could not be read, keeping the reason. */
static void needed_file(ganim_error *err, const char *name)
{
    if (!err) return;
    char why[256];
    snprintf(why, sizeof why, "%.250s", err->message);
    snprintf(err->message, sizeof err->message, "cannot read '%.200s', which the file needs: %s", name, why);
}

static ganim_code load_from_folder(void *user, const char *name, ganim_buffer *out, ganim_error *err)
{
    const folder_loader *f = user;
    char path[8192];
    ganim_code code = folder_path(f, name, path, sizeof path, err);
    if (code != GANIM_OK) return code;
    code = ganim_load_file(path, f->alloc, f->max_bytes, out, err);
    if (code == GANIM_OK) ganim_used_add(f->used, path);
    else needed_file(err, name);
    return code;
}

ganim_code ganim_read_load_range(const ganim_read_opts *opts, const char *name, uint64_t offset, size_t size,
                                 ganim_buffer *out, ganim_error *err)
{
    ganim_limits lim = ganim_limits_resolve(opts ? &opts->limits : NULL);
    if (size > lim.input_bytes)
        return ganim_fail(
            err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
            "%zu bytes of '%.200s' are more than the input limit of %llu bytes (ganim_limits.input_bytes)", size,
            name ? name : "", (unsigned long long)lim.input_bytes);
    if (!opts || opts->load != load_from_folder) { /* the caller's loader gives whole files */
        ganim_buffer whole = { 0 };
        ganim_code code = ganim_read_load(opts, name, &whole, err);
        if (code != GANIM_OK) return code;
        if (offset > whole.size || size > whole.size - offset) {
            code = ganim_fail(err, GANIM_ERR_TRUNCATED, GANIM_NO_OFFSET,
                              "'%.200s' has %zu bytes; bytes %llu..%llu are not in it", name, whole.size,
                              (unsigned long long)offset, (unsigned long long)offset + size);
        } else {
            ganim_writer w = gw_init(out, &opts->allocator);
            gw_bytes(&w, whole.data + offset, size);
            if (!gw_ok(&w)) code = GANIM_NOMEM(err);
        }
        ganim_buffer_free(&whole);
        if (code != GANIM_OK) ganim_buffer_free(out);
        return code;
    }
    /* the library's own loader reads just the range: an archive's data file may be big */
    const folder_loader *f = opts->load_user;
    char path[8192];
    ganim_code code = folder_path(f, name, path, sizeof path, err);
    if (code != GANIM_OK) return code;
    memset(out, 0, sizeof *out);
    code = ganim_load_file_range(path, f->alloc, offset, size, out, err);
    if (code == GANIM_OK) ganim_used_add(f->used, path);
    else needed_file(err, name);
    return code;
}

/* The folder part of `path` ("" for none) as ganim_read_file's loader of other files. */
void ganim_folder_loader_set(const char *path, const ganim_read_opts *opts, folder_loader *folder, ganim_read_opts *o,
                             used_files *used)
{
    if (o->load) return; /* the caller's loader answers */
    folder->used = used;
    const char *base = ganim_path_base(path);
    size_t dir_len = (size_t)(base - path);
    if (dir_len < sizeof folder->dir) {
        memcpy(folder->dir, path, dir_len);
        folder->dir[dir_len] = 0;
        folder->alloc = &opts->allocator;
        folder->max_bytes = opts->limits.input_bytes;
        o->load = load_from_folder;
        o->load_user = folder;
    }
}
