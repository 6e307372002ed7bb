/* Writing documents in a format, and resampling (a format with integer storage brings
 * its own resampler; the others use the generic one in core). */
#include "core/internal.h"
#include "formats/format.h"

/* The document the format's writer sees: `doc` itself, or a clone (*made) put into the
 * original, turned to the format's axes, sampled at the rate asked for. */
static ganim_code prepare(const ganim_doc *doc, const ganim_format *fmt, const ganim_write_opts *opts,
                          const ganim_doc **use, ganim_doc **made, ganim_error *err)
{
    *use = doc;
    *made = NULL;
    ganim_code code = GANIM_OK;
    if (opts->into) {
        /* the original, with the edited clips put in place (at its clips' own rates); both
         * are read value by value, so both must keep the model's rules (ganim_write has
         * validated `doc`) */
        if ((code = ganim_doc_validate(opts->into, err)) != GANIM_OK) return code;
        if (!(*made = ganim_doc_clone(opts->into, err))) return err && err->code ? err->code : GANIM_ERR_NOMEM;
        if ((code = ganim_doc_put(*made, doc, opts->slot, opts->fps, opts, err)) != GANIM_OK) return code;
        *use = *made;
        return ganim_doc_validate(*made, err);
    }
    /* A format whose files are in fixed axes gets the document turned to them (a y-up glTF
     * becomes a z-up Alamo animation), one whose files play at one rate gets the clips
     * sampled at it; the caller's document is not touched. */
    int turn = fmt->impl->axes && (ganim_axes)(fmt->impl->axes - 1) != doc->axes;
    double rate = opts->fps > 0 ? opts->fps : opts->fps < 0 ? 0 : fmt->impl->fps;
    int retime = 0;
    for (uint32_t i = 0; rate > 0 && i < doc->clip_count; i++)
        retime |= doc->clips[i].kind == GANIM_CLIP_ANIMATION && doc->clips[i].fps != rate;
    if (!turn && !retime) return GANIM_OK;
    if (!(*made = ganim_doc_clone(doc, err))) return err && err->code ? err->code : GANIM_ERR_NOMEM;
    *use = *made;
    if (turn) ganim_doc_turn_axes(*made, (ganim_axes)(fmt->impl->axes - 1));
    for (uint32_t i = 0; retime && i < (*made)->clip_count && code == GANIM_OK; i++)
        code = ganim_clip_retime(*made, i, rate, err);
    return code;
}

ganim_code ganim_write(const ganim_doc *doc, const char *format_name, const ganim_write_opts *opts, ganim_buffer *out,
                       ganim_error *err)
{
    static const ganim_write_opts defaults;
    if (!opts) opts = &defaults;
    if (!doc || !out)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ganim_write: no document or output");
    if (opts->into && !opts->into->format)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "the original to write into was not read from a file: it has no format");
    const ganim_format *fmt = format_name  ? ganim_format_find(format_name)
                              : opts->into ? opts->into->format
                                           : doc->format;
    if (!fmt && format_name)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "unknown format name '%s'", format_name);
    if (!fmt)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "ganim_write: the document was not read from a file: name the format to write");
    if (opts->into) {
        const ganim_format *orig = opts->into->format;
        if (fmt != orig)
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "writing into a %s file writes %s, not %s",
                              orig->name, orig->name, fmt->name);
        fmt = orig;
    } else if (opts->slot) {
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "a slot names a clip of an original: give it");
    }
    if (!(opts->fps == 0 || opts->fps == GANIM_WRITE_KEEP_RATE ||
          (opts->fps >= GANIM_MIN_FPS && opts->fps <= GANIM_MAX_FPS)))
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ganim_write: a rate of %g fps is out of range",
                          opts->fps);
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
    const ganim_doc *use;
    ganim_doc *made;
    code = prepare(doc, fmt, opts, &use, &made, err);
    if (code == GANIM_OK) code = fmt->impl->write(use, opts, out, err);
    ganim_doc_free(made);
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
