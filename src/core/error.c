/* ganim_error: a code, the byte offset where it happened, and one sentence; and the
 * library's version. */
#if !defined(_WIN32) && !defined(__wasi__) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* newlocale, uselocale */
#endif
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

#if !defined(_WIN32) && !defined(__wasi__)
#include <locale.h>
#include <stdatomic.h>

/* The "C" locale, made once for the whole process (a lost race frees its copy). NULL when
 * it cannot be made: the text then follows the caller's locale. */
static _Atomic(locale_t) c_locale_once;

static locale_t c_locale(void)
{
    locale_t l = atomic_load_explicit(&c_locale_once, memory_order_acquire);
    if (l) return l;
    locale_t made = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!made) return (locale_t)0;
    locale_t none = (locale_t)0;
    if (atomic_compare_exchange_strong(&c_locale_once, &none, made)) return made;
    freelocale(made);
    return none; /* the one another thread stored */
}
#endif

/* Messages name numbers with printf (%g, %f): a program that set a locale with a decimal
 * comma (setlocale(LC_ALL, "") in Python, a GUI) would otherwise get "29,97" in ganim's
 * errors and warnings, and in the JSON dump that carries them. The text is made in the
 * "C" locale for this thread only (uselocale), whatever the program's locale. (Windows:
 * the C runtime's locale, as before. wasm32-wasi: plain vsnprintf, as wasi-libc's locales
 * would import the environment, which the browser viewer's host does not give.) */
int ganim_vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
#if !defined(_WIN32) && !defined(__wasi__)
    locale_t c = c_locale();
    locale_t old = c ? uselocale(c) : (locale_t)0;
    int n = vsnprintf(buf, size, fmt, ap);
    if (old) uselocale(old);
    return n;
#else
    return vsnprintf(buf, size, fmt, ap);
#endif
}

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
        ganim_vformat(err->message, sizeof err->message, fmt, ap);
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
