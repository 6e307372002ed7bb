/* Whole files into memory. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "io/writer.h"

ganim_code ganim_load_file(const char *path, const ganim_allocator *allocator, ganim_buffer *out, ganim_error *err)
{
    if (!path || !out) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "load: no path");
    FILE *f = fopen(path, "rb");
    if (!f) return ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET, "cannot open: %s", strerror(errno));
    ganim_writer w = gw_init(out, allocator);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) gw_bytes(&w, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        ganim_buffer_free(out);
        return ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET, "cannot read the file");
    }
    if (!gw_ok(&w)) {
        ganim_buffer_free(out);
        return GANIM_NOMEM(err);
    }
    return GANIM_OK;
}
