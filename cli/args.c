/* Option parsing for every command: long options with "=" or a separate value, short
 * options that may be clustered ("-qr", "-j4"), "--" ends the options. Written here
 * rather than with getopt_long so the messages and the behaviour are the same on every
 * platform and options may come after the inputs. */
#include "cli.h"

#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

int cli_usage(const char *cmd, const char *fmt, ...)
{
    cli_str b = { 0 };
    va_list ap;
    cli_str_puts(&b, "ganim: ");
    if (cmd) cli_str_printf(&b, "%s: ", cmd);
    va_start(ap, fmt);
    cli_str_vprintf(&b, fmt, ap);
    va_end(ap);
    if (cmd) cli_str_printf(&b, "\nTry 'ganim %s --help' for more information.\n", cmd);
    else cli_str_puts(&b, "\nTry 'ganim --help' for more information.\n");
    cli_stderr_write(b.s, b.len);
    cli_str_free(&b);
    return CLI_EXIT_USAGE;
}

static const cli_option *find_long(const cli_option *opts, const char *name, size_t n)
{
    for (; opts->id; opts++)
        if (opts->long_name && strlen(opts->long_name) == n && memcmp(opts->long_name, name, n) == 0) return opts;
    return NULL;
}

static const cli_option *find_short(const cli_option *opts, char c)
{
    for (; opts->id; opts++)
        if (opts->short_name == c) return opts;
    return NULL;
}

int cli_next(cli_args *a, const cli_option *opts, const char **value)
{
    *value = NULL;
    if (a->cluster) { /* inside "-abc" */
        const char *arg = a->argv[a->index];
        char c = arg[a->cluster];
        const cli_option *o = find_short(opts, c);
        if (!o) {
            cli_usage(a->cmd, "unknown option '-%c'", c);
            return CLI_ARG_ERROR;
        }
        a->cluster++;
        if (o->has_value) {
            if (arg[a->cluster]) {
                *value = arg + a->cluster;
            } else if (a->index + 1 < a->argc) {
                *value = a->argv[++a->index];
            } else {
                cli_usage(a->cmd, "option '-%c' needs a value", c);
                return CLI_ARG_ERROR;
            }
            a->cluster = 0;
            a->index++;
        } else if (!arg[a->cluster]) {
            a->cluster = 0;
            a->index++;
        }
        return o->id;
    }
    if (a->index >= a->argc) return CLI_ARG_END;
    const char *arg = a->argv[a->index];
    if (a->only_positional || arg[0] != '-' || arg[1] == 0) { /* "-" is a name */
        *value = arg;
        a->index++;
        return CLI_ARG_POSITIONAL;
    }
    if (arg[1] == '-') {
        if (arg[2] == 0) { /* "--" */
            a->only_positional = 1;
            a->index++;
            return cli_next(a, opts, value);
        }
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen(name);
        const cli_option *o = find_long(opts, name, n);
        if (!o) {
            cli_usage(a->cmd, "unknown option '--%.*s'", (int)n, name);
            return CLI_ARG_ERROR;
        }
        a->index++;
        if (o->has_value) {
            if (eq) {
                *value = eq + 1;
            } else if (a->index < a->argc) {
                *value = a->argv[a->index++];
            } else {
                cli_usage(a->cmd, "option '--%s' needs a value", o->long_name);
                return CLI_ARG_ERROR;
            }
        } else if (eq) {
            cli_usage(a->cmd, "option '--%s' takes no value", o->long_name);
            return CLI_ARG_ERROR;
        }
        return o->id;
    }
    a->cluster = 1;
    return cli_next(a, opts, value);
}

int cli_parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
    char *end;
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') return -1;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v < min || v > max) return -1;
    *out = v;
    return 0;
}

int cli_parse_double(const char *s, double *out)
{
    char *end;
    if (!s || !*s || *s == ' ') return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !(v >= -DBL_MAX && v <= DBL_MAX)) return -1; /* finite */
    *out = v;
    return 0;
}
