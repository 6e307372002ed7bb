/* Writing documents in a format, and resampling (a format with integer storage brings
 * its own resampler; the others use the generic one in core). */
#include "core/internal.h"
#include "formats/format.h"

ganim_code ganim_write(const ganim_doc *doc, const char *format_name, const ganim_write_opts *opts, ganim_buffer *out,
                       ganim_error *err)
{
    static const ganim_write_opts defaults;
    if (!opts) opts = &defaults;
    if (!doc || !out)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ganim_write: no document or output");
    const ganim_format *fmt = format_name ? ganim_format_find(format_name) : doc->format;
    if (!fmt) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "unknown format name '%s'", format_name);
    if (!fmt->impl || !fmt->impl->write) {
        return ganim_fail(err, GANIM_ERR_UNSUPPORTED, GANIM_NO_OFFSET, "%s: writing is not supported", fmt->name);
    }
    ganim_code code = ganim_settings_check(fmt, opts->settings, opts->setting_count, GANIM_OPTION_WRITE, err);
    if (code != GANIM_OK) return code;
    /* writers trust the model's rules (parents before children, one value per frame): a
     * document built or edited through the public API is checked before any is read */
    if ((code = ganim_doc_validate(doc, err)) != GANIM_OK) return code;
    if (!out->data) out->allocator = ganim_allocator_resolve(&opts->allocator);
    size_t start = out->size;
    /* A format whose files are in fixed axes gets the document turned to them (a y-up glTF
     * becomes a z-up Alamo animation); the caller's document is not touched. */
    ganim_doc *turned = NULL;
    if (fmt->impl->axes && (ganim_axes)(fmt->impl->axes - 1) != doc->axes) {
        if (!(turned = ganim_doc_clone(doc, err))) return err && err->code ? err->code : GANIM_ERR_NOMEM;
        ganim_doc_turn_axes(turned, (ganim_axes)(fmt->impl->axes - 1));
    }
    code = fmt->impl->write(turned ? turned : doc, opts, out, err);
    ganim_doc_free(turned);
    if (code != GANIM_OK) out->size = start;
    return code;
}

ganim_code ganim_doc_resample(ganim_doc *doc, unsigned factor, ganim_error *err)
{
    if (!doc || factor == 0 || factor > 64) {
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "resample: factor must be 1..64");
    }
    /* resamplers read every per-frame array up to the clip's frame count */
    ganim_code code = ganim_doc_validate(doc, err);
    if (code != GANIM_OK || factor == 1) return code;
    code = doc->format && doc->format->impl && doc->format->impl->resample
               ? doc->format->impl->resample(doc, factor, err)
               : ganim_doc_resample_generic(doc, factor, err);
    /* a resample never hands back a document that breaks the model's rules */
    if (code == GANIM_OK) code = ganim_doc_validate(doc, err);
    return code;
}
