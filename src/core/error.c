/* ganim_error: a code, the byte offset where it happened, and one sentence; and the
 * library's version. */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

const char *ganim_code_name(ganim_code code)
{
    switch (code) {
    case GANIM_OK: return "ok";
    case GANIM_ERR_NOMEM: return "out of memory";
    case GANIM_ERR_TRUNCATED: return "truncated input";
    case GANIM_ERR_CORRUPT: return "corrupt input";
    case GANIM_ERR_UNSUPPORTED: return "unsupported";
    case GANIM_ERR_UNKNOWN_FORMAT: return "unknown format";
    case GANIM_ERR_LIMIT: return "size limit exceeded";
    case GANIM_ERR_INVALID_ARG: return "invalid argument";
    case GANIM_ERR_IO: return "input/output error";
    case GANIM_ERR_MISMATCH: return "mismatch";
    }
    return "unknown error";
}

ganim_code ganim_failv(ganim_error *err, ganim_code code, uint64_t offset, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        err->offset = offset;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
    }
    return code;
}

#ifdef __clang_analyzer__
#undef ganim_fail /* internal.h: the analyzer's view of it */
#endif
ganim_code ganim_fail(ganim_error *err, ganim_code code, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ganim_failv(err, code, offset, fmt, ap);
    va_end(ap);
    return code;
}

void ganim_error_clear(ganim_error *err)
{
    if (!err) return;
    err->code = GANIM_OK;
    err->offset = GANIM_NO_OFFSET;
    err->message[0] = '\0';
}

unsigned ganim_version(void) { return GANIM_VERSION_NUMBER; }

const char *ganim_version_string(void) { return GANIM_VERSION_STRING; }
