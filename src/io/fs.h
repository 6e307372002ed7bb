/* The little the library needs of the file system besides reading a file: whether a
 * path is a folder, and the names in a folder (for finding companion files). */
#ifndef GANIM_IO_FS_H
#define GANIM_IO_FS_H

#include <stddef.h>

#include "ganim.h"

/* 1 if `path` names a folder. */
int ganim_fs_is_dir(const char *path);

/* The names in a folder (no "." or ".."), sorted bytewise, in one allocation from `a`:
 * an array of count pointers, then the strings. Free with ganim_fs_names_free. */
typedef struct ganim_fs_names {
    char **names;
    size_t count;
    size_t bytes;
} ganim_fs_names;
ganim_code ganim_fs_list(const char *dir, const ganim_allocator *a, ganim_fs_names *out, ganim_error *err);
void ganim_fs_names_free(const ganim_allocator *a, ganim_fs_names *names);

#endif
