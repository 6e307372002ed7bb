/* Format options: every format declares its reader and writer options in a table
 * (name, values, help); callers pass name/value settings, checked here once so that
 * the formats can trust what they are given. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "formats/format.h"

/* Is `value` one of the '|'-separated choices? Its index, or -1. */
static int choice_index(const char *choices, const char *value)
{
    size_t n = strlen(value);
    int index = 0;
    for (const char *p = choices ? choices : ""; *p; index++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && memcmp(p, value, n) == 0) return index;
        if (!bar) break;
        p = bar + 1;
    }
    return -1;
}

/* "MIN..MAX" of an integer option; 0 when malformed. */
static int int_range(const char *values, int64_t *lo, int64_t *hi)
{
    const char *dots = values ? strstr(values, "..") : NULL;
    if (!dots) return 0;
    char *end;
    long long a = strtoll(values, &end, 10);
    if (end != dots) return 0;
    long long b = strtoll(dots + 2, &end, 10);
    if (*end || a > b) return 0;
    *lo = a;
    *hi = b;
    return 1;
}

/* A decimal integer (optional minus sign, digits only, no spaces) within [lo, hi]. */
static int int_value(const char *value, int64_t lo, int64_t hi, int64_t *out)
{
    const char *p = value;
    int neg = *p == '-';
    if (neg) p++;
    if (!*p) return 0;
    int64_t v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') return 0;
        if (v > (INT64_MAX - 9) / 10) return 0;
        v = v * 10 + (*p - '0');
    }
    if (neg) v = -v;
    if (v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

const ganim_option *ganim_format_option(const ganim_format *format, const char *name)
{
    if (!format || !name) return NULL;
    for (uint32_t i = 0; i < format->option_count; i++)
        if (strcmp(format->options[i].name, name) == 0) return &format->options[i];
    return NULL;
}

const ganim_option *ganim_option_find(const char *name, const ganim_format **format)
{
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++) {
        const ganim_option *o = ganim_format_option(all[i], name);
        if (o) {
            if (format) *format = all[i];
            return o;
        }
    }
    return NULL;
}

int ganim_format_takes_option(const ganim_format *format, const ganim_option *option, uint32_t applies)
{
    if (!format || !option || !(option->flags & applies)) return 0;
    const ganim_format *lender = applies == GANIM_OPTION_WRITE && format->impl ? format->impl->writer_options_of : NULL;
    for (uint32_t i = 0; i < format->option_count; i++)
        if (&format->options[i] == option) return 1;
    for (uint32_t i = 0; lender && i < lender->option_count; i++)
        if (&lender->options[i] == option) return 1;
    return 0;
}

ganim_code ganim_option_check(const ganim_option *option, const char *value, ganim_error *err)
{
    if (!option || !value)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "option: no option or no value");
    if (option->type == GANIM_OPTION_INT) {
        int64_t lo, hi, v;
        if (!int_range(option->values, &lo, &hi))
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "option %s: its range '%s' is not MIN..MAX",
                              option->name, option->values ? option->values : "");
        if (int_value(value, lo, hi, &v)) return GANIM_OK;
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "option %s: '%s' is not an integer in %lld..%lld", option->name, value, (long long)lo,
                          (long long)hi);
    }
    if (option->type == GANIM_OPTION_TEXT) {
        if (*value) return GANIM_OK;
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "option %s: the value is empty (it wants %s)",
                          option->name, option->values ? option->values : "text");
    }
    if (choice_index(option->values, value) >= 0) return GANIM_OK;
    return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "option %s: '%s' is not one of %s", option->name,
                      value, option->values ? option->values : "(none)");
}

const char *ganim_setting_get(const ganim_setting *settings, uint32_t count, const char *name)
{
    const char *value = NULL;
    for (uint32_t i = 0; settings && i < count; i++)
        if (settings[i].name && strcmp(settings[i].name, name) == 0) value = settings[i].value; /* the last wins */
    return value;
}

int ganim_setting_choice(const ganim_setting *settings, uint32_t count, const ganim_option *option)
{
    const char *v = option ? ganim_setting_get(settings, count, option->name) : NULL;
    return v && option->type == GANIM_OPTION_CHOICE ? choice_index(option->values, v) : -1;
}

int ganim_setting_int(const ganim_setting *settings, uint32_t count, const ganim_option *option, int64_t *value)
{
    const char *v = option ? ganim_setting_get(settings, count, option->name) : NULL;
    int64_t lo, hi;
    if (!v || option->type != GANIM_OPTION_INT || !int_range(option->values, &lo, &hi)) return 0;
    return int_value(v, lo, hi, value);
}

ganim_code ganim_settings_check(const ganim_format *format, const ganim_setting *settings, uint32_t count,
                                uint32_t applies, ganim_error *err)
{
    for (uint32_t i = 0; i < count; i++) {
        const ganim_setting *s = &settings[i];
        if (!s->name || !s->value)
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "option %u has no name or no value", i);
        const ganim_format *owner = NULL;
        const ganim_option *o = ganim_option_find(s->name, &owner);
        if (!o)
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "unknown option '%s' (ganim formats lists every format's options)", s->name);
        ganim_code code = ganim_option_check(o, s->value, err);
        if (code != GANIM_OK) return code;
        if (applies == GANIM_OPTION_WRITE && !ganim_format_takes_option(format, o, GANIM_OPTION_WRITE))
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "option %s does not apply to writing %s files (it is an option of %s)", s->name,
                              format->name, owner->name);
        /* Reads: options of other formats may be given for a batch of mixed files. */
    }
    return GANIM_OK;
}
