/* Warnings: a document's (oddities a reader recovered from, each with a code, kept up to
 * a maximum and counted beyond it), and the ones writers and exporters hand the caller's
 * callback. */
#include <stdio.h>
#include <string.h>

#include "core/document.h"

#define MAX_WARNINGS 1000u

void ganim_doc_warn(ganim_doc *doc, ganim_warning_code code, uint64_t offset, const char *fmt, ...)
{
    struct ganim_doc_internal *in = doc->internal;
    if (doc->warning_count >= MAX_WARNINGS) {
        doc->warnings_dropped++;
        return;
    }
    if (doc->warning_count == in->warning_capacity) {
        uint32_t cap = in->warning_capacity ? in->warning_capacity * 2 : 8;
        if (cap > MAX_WARNINGS) cap = MAX_WARNINGS;
        ganim_warning *w = ganim_doc_alloc_array(doc, cap, sizeof *w);
        if (!w) {
            doc->warnings_dropped++;
            return;
        }
        if (doc->warning_count) memcpy(w, doc->warnings, doc->warning_count * sizeof *w);
        doc->warnings = w;
        in->warning_capacity = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    char *msg = ganim_doc_vprintf(doc, fmt, ap);
    va_end(ap);
    if (!msg) {
        doc->warnings_dropped++;
        return;
    }
    doc->warnings[doc->warning_count].offset = offset;
    doc->warnings[doc->warning_count].message = msg;
    doc->warnings[doc->warning_count].code = code;
    doc->warning_count++;
}

void ganim_warn_callback(void (*warn)(void *user, const ganim_warning *warning), void *user, ganim_warning_code code,
                         const char *fmt, va_list ap)
{
    if (!warn) return;
    char text[1024];
    ganim_vformat(text, sizeof text, fmt, ap);
    ganim_warning w = { GANIM_NO_OFFSET, text, code };
    warn(user, &w);
}

void ganim_write_warn(const ganim_write_opts *opts, ganim_warning_code code, const char *fmt, ...)
{
    if (!opts) return;
    va_list ap;
    va_start(ap, fmt);
    ganim_warn_callback(opts->warn, opts->warn_user, code, fmt, ap);
    va_end(ap);
}
