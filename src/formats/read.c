/* Reading documents: the probe picks a format (or the caller names one), the format's
 * reader fills a new document, and the result is validated before the caller sees it. */
#include "core/internal.h"
#include "formats/format.h"

ganim_code ganim_read_memory(const void *data, size_t size, const ganim_read_opts *opts,
                             ganim_doc **out, ganim_error *err)
{
    static const ganim_read_opts defaults;
    if (!opts) opts = &defaults;
    if (!out || (!data && size)) {
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ganim_read_memory: no data or no output");
    }
    *out = NULL;
    ganim_error_clear(err);
    const ganim_format *fmt;
    if (opts->format) {
        fmt = ganim_format_find(opts->format);
        if (!fmt) {
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "unknown format name '%s' (see 'ganim formats')",
                              opts->format);
        }
    } else {
        fmt = ganim_probe(data, size, NULL);
        if (!fmt) {
            return ganim_fail(err, GANIM_ERR_UNKNOWN_FORMAT, 0,
                              "not a file ganim recognises (%zu bytes; see 'ganim formats')", size);
        }
    }
    if (!fmt->impl || !fmt->impl->read)
        return ganim_fail(err, GANIM_ERR_UNSUPPORTED, GANIM_NO_OFFSET, "%s: reading is not supported", fmt->name);
    ganim_code code = ganim_settings_check(fmt, opts->settings, opts->setting_count, GANIM_OPTION_READ, err);
    if (code != GANIM_OK) return code;
    ganim_doc *doc = ganim_doc_create(&opts->allocator, opts->memory_limit);
    if (!doc) return GANIM_NOMEM(err);
    doc->format = fmt;
    static const uint8_t empty[1];
    code = fmt->impl->read(doc, size ? (const uint8_t *)data : empty, size, opts, err);
    if (code == GANIM_OK) code = ganim_doc_validate(doc, err);
    if (code != GANIM_OK) {
        if (err && err->code == GANIM_OK) {
            ganim_fail(err, code, GANIM_NO_OFFSET, "%s: %s", fmt->name, ganim_code_name(code));
        }
        ganim_doc_free(doc);
        return code;
    }
    *out = doc;
    return GANIM_OK;
}

ganim_code ganim_read_file(const char *path, const ganim_read_opts *opts, ganim_doc **out, ganim_error *err)
{
    ganim_buffer buf = { 0 };
    ganim_code code = ganim_load_file(path, opts ? &opts->allocator : NULL, &buf, err);
    if (code != GANIM_OK) return code;
    code = ganim_read_memory(buf.data, buf.size, opts, out, err);
    ganim_buffer_free(&buf);
    return code;
}
