/* Whole files into memory, never more than a limit: a regular file's size is checked
 * before reading, and a pipe or device (standard input, /dev/zero) is read in chunks
 * that stop as soon as the limit is passed. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "io/fs.h"
#include "io/writer.h"

/* Offsets of 64 bits where the system has them (long has 32 on Windows); elsewhere
 * fseek's long, which has 32 bits on 32-bit systems such as WebAssembly (web/). */
#ifdef _WIN32
#define tell64 _ftelli64
#define seek64 _fseeki64
typedef long long file_offset;
#define FILE_OFFSET_MAX LLONG_MAX
#else
#define tell64 ftell
#define seek64 fseek
typedef long file_offset;
#define FILE_OFFSET_MAX LONG_MAX
#endif

ganim_code ganim_load_file(const char *path, const ganim_allocator *allocator, uint64_t max_bytes, ganim_buffer *out,
                           ganim_error *err)
{
    if (!path || !out) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "load: no path");
    memset(out, 0, sizeof *out);
    if (max_bytes == 0) max_bytes = GANIM_DEFAULT_INPUT_BYTES;
    FILE *f = ganim_fs_open(path, "rb");
    if (!f) return ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET, "cannot open: %s", strerror(errno));
    /* A regular file says its size: refuse a big one before reading a byte of it. */
    long long end = -1;
    if (seek64(f, 0, SEEK_END) == 0) {
        end = tell64(f);
        if (end > 0 && (uint64_t)end > max_bytes) {
            fclose(f);
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              "the file has %lld bytes, more than the input limit of %llu bytes "
                              "(ganim_limits.input_bytes)",
                              end, (unsigned long long)max_bytes);
        }
        if (seek64(f, 0, SEEK_SET) != 0) clearerr(f);
    } else {
        clearerr(f);
    }
    ganim_writer w = gw_init(out, allocator);
    char chunk[65536];
    size_t n;
    uint64_t total = 0;
    ganim_code code = GANIM_OK;
    /* The size it said, read straight into a buffer of that size (no growing: a file is
     * held once, not in a buffer twice its size); what follows, if it grew since, and a
     * stream of unknown size, in chunks. */
    if (end > 0 && (uint64_t)end <= SIZE_MAX) {
        out->data = ganim_alloc(&out->allocator, (size_t)end);
        if (out->data) {
            out->capacity = (size_t)end;
            out->size = fread(out->data, 1, (size_t)end, f);
            total = out->size;
        } else {
            code = GANIM_NOMEM(err);
        }
    }
    while (code == GANIM_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (n > max_bytes - total) {
            code = ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              "the input has more than the input limit of %llu bytes (ganim_limits.input_bytes)",
                              (unsigned long long)max_bytes);
            break;
        }
        total += n;
        gw_bytes(&w, chunk, n);
        if (!gw_ok(&w)) {
            code = GANIM_NOMEM(err);
            break;
        }
    }
    if (code == GANIM_OK && ferror(f)) code = ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET, "cannot read the file");
    fclose(f);
    if (code != GANIM_OK) ganim_buffer_free(out);
    return code;
}

ganim_code ganim_load_file_range(const char *path, const ganim_allocator *allocator, uint64_t offset, size_t size,
                                 ganim_buffer *out, ganim_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = ganim_fs_open(path, "rb");
    if (!f) return ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET, "cannot open: %s", strerror(errno));
    long long end = -1;
    if (seek64(f, 0, SEEK_END) == 0) end = tell64(f);
    if (end < 0 || offset > (uint64_t)end || size > (uint64_t)end - offset) {
        fclose(f);
        if (end < 0) return ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET, "cannot tell the size of the file");
        return ganim_fail(err, GANIM_ERR_TRUNCATED, GANIM_NO_OFFSET,
                          "the file has %lld bytes; bytes %llu..%llu are not in it", end, (unsigned long long)offset,
                          (unsigned long long)offset + size);
    }
    ganim_writer w = gw_init(out, allocator);
    ganim_code code = GANIM_OK;
    if (offset > (uint64_t)FILE_OFFSET_MAX || seek64(f, (file_offset)offset, SEEK_SET) != 0) {
        code = ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET, "cannot seek to byte %llu", (unsigned long long)offset);
    } else if (gw_reserve(&w, size)) {
        if (size && fread(out->data, 1, size, f) != size)
            code = ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET, "cannot read the file");
        else out->size = size;
    } else {
        code = GANIM_NOMEM(err);
    }
    fclose(f);
    if (code != GANIM_OK) ganim_buffer_free(out);
    return code;
}
