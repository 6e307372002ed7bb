/* Folders: POSIX (opendir, stat). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "io/fs.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/internal.h"

int ganim_fs_is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int by_bytes(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

ganim_code ganim_fs_list(const char *dir, const ganim_allocator *a, ganim_fs_names *out, ganim_error *err)
{
    memset(out, 0, sizeof *out);
    /* Two passes over the folder: sizes, then names (a folder that changes in between
     * gives at most the names that fit). */
    size_t count = 0, chars = 0;
    DIR *d = opendir(dir);
    if (!d) return ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET, "cannot list the folder: %s", strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        count++;
        chars += strlen(e->d_name) + 1;
    }
    size_t ptrs;
    if (!ganim_mul_size(count, sizeof(char *), &ptrs) || chars > SIZE_MAX - ptrs - 1) {
        closedir(d);
        return GANIM_NOMEM(err);
    }
    size_t bytes = ptrs + chars + 1;
    char **names = ganim_alloc(a, bytes);
    if (!names) {
        closedir(d);
        return GANIM_NOMEM(err);
    }
    char *p = (char *)(names + count), *end = (char *)names + bytes;
    size_t n = 0;
    rewinddir(d);
    while (n < count && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        size_t len = strlen(e->d_name) + 1;
        if (len > (size_t)(end - p)) break;
        memcpy(p, e->d_name, len);
        names[n++] = p;
        p += len;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_bytes);
    out->names = names;
    out->count = n;
    out->bytes = bytes;
    return GANIM_OK;
}

void ganim_fs_names_free(const ganim_allocator *a, ganim_fs_names *names)
{
    if (names->names) ganim_free(a, names->names, names->bytes);
    memset(names, 0, sizeof *names);
}
