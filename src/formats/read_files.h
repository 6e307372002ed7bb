/* Reading files, in three pieces: the read pipeline (read.c), the loader of the other
 * files a file names, which stays inside its folder (read_folder.c), and the list of
 * files a read took bytes from (read_used.c): what the three share. */
#ifndef GANIM_FORMATS_READ_FILES_H
#define GANIM_FORMATS_READ_FILES_H

#include "core/internal.h"
#include "io/writer.h"

/* The files a ganim_read_file took bytes from besides its path (ganim_doc.used_files),
 * collected as NUL-terminated paths one after another. */
typedef struct used_files {
    ganim_buffer names;
    ganim_writer w;
    uint32_t count;
} used_files;
void ganim_used_init(used_files *u, const ganim_allocator *alloc);
/* Notes `path` (u may be NULL: nothing noted). */
void ganim_used_add(used_files *u, const char *path);
/* Copies the list into the document (on success) and frees it; returns `code`, or
 * GANIM_ERR_NOMEM when the copy fails (then *doc is freed and NULL). */
ganim_code ganim_used_attach(used_files *u, ganim_code code, ganim_doc **doc, ganim_error *err);

/* ganim_read_file's loader: files in the folder of the file being read, by relative names
 * that stay inside it (no absolute path, no "..", no drive letter). */
typedef struct folder_loader {
    char dir[4096];
    const ganim_allocator *alloc;
    uint64_t max_bytes; /* ganim_limits.input_bytes */
    used_files *used;   /* where the paths read are noted */
} folder_loader;
/* Makes `o` read the other files `path` names from its folder ("" for none) through
 * `folder`, noting each in `used`, unless `o` already has the caller's loader. */
void ganim_folder_loader_set(const char *path, const ganim_read_opts *opts, folder_loader *folder, ganim_read_opts *o,
                             used_files *used);

#endif
