/* The little the library needs of the file system: opening a file, whether a path is a
 * folder, and the names in a folder (for finding companion files). Paths are UTF-8 on
 * every system (fs.c turns them to UTF-16 for Windows). */
#ifndef GANIM_IO_FS_H
#define GANIM_IO_FS_H

#include <stddef.h>
#include <stdio.h>

#include "ganim.h"

/* The file name part of a path: after its last '/' or '\\' (a Windows path may hold
 * either, and a name from a file may come from either system). Points into `path`. */
static inline const char *ganim_path_base(const char *path)
{
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\') base = p + 1;
    return base;
}

/* fopen, with a UTF-8 path on Windows too (NULL and errno on failure). */
FILE *ganim_fs_open(const char *path, const char *mode);

/* 1 if `path` names a folder. */
int ganim_fs_is_dir(const char *path);
/* 1: `path` is a regular file itself (not a link, folder, pipe, socket or device);
 * 0: it is something else; -1: it cannot be looked at (missing, no permission). Looks
 * without opening, so a pipe or a device never blocks the caller. */
int ganim_fs_is_plain_file(const char *path);
/* What `path` is when it is not a regular file: "a folder", "a symbolic link", "a pipe",
 * "a device", ...; NULL for a regular file or one that cannot be looked at. Looks
 * without opening. */
const char *ganim_fs_not_plain(const char *path);

/* The names in a folder (no "." or ".."), sorted bytewise, in one allocation from `a`:
 * an array of count pointers, then the strings. Free with ganim_fs_names_free. */
typedef struct ganim_fs_names {
    char **names;
    size_t count;
    size_t bytes;
} ganim_fs_names;
ganim_code ganim_fs_list(const char *dir, const ganim_allocator *a, ganim_fs_names *out, ganim_error *err);
void ganim_fs_names_free(const ganim_allocator *a, ganim_fs_names *names);

/* `size` bytes at `offset` of a file (file.c): GANIM_ERR_TRUNCATED, saying how long the
 * file is, when it ends before. */
ganim_code ganim_load_file_range(const char *path, const ganim_allocator *allocator, uint64_t offset, size_t size,
                                 ganim_buffer *out, ganim_error *err);

#endif
