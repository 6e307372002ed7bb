/* Format options on the command line: -O NAME=VALUE (or --option NAME=VALUE), and the
 * aliases formats declare for their options (--ff7-bkey K is -O ff7.bkey=K). The
 * formats' option tables come from the library; nothing here knows a format. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* Every option of every format, in registry order: k counts them (the alias ids). */
static size_t all_options(void)
{
    size_t count, n = 0;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++) n += all[i]->option_count;
    return n;
}

/* The option with this alias id (see cli_options_with_aliases). */
static const ganim_option *alias_option(size_t index)
{
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++) {
        if (index < all[i]->option_count) return &all[i]->options[index];
        index -= all[i]->option_count;
    }
    return NULL;
}

/* An alias that is a command's own option, or another option's alias, would take that
 * option's place without a word: the registry is wrong, and every command refuses to run
 * (tests/cli/run.sh runs them all; test_registry checks the aliases' spelling). */
static void alias_must_be_free(const cli_option *table, size_t n, const char *alias)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].long_name && strcmp(table[i].long_name, alias) == 0) {
            cli_str b = { 0 };
            cli_str_printf(&b, "ganim: internal error: the format option alias --%s is already an option\n", alias);
            cli_stderr_write(b.s, b.len);
            cli_str_free(&b);
            exit(CLI_EXIT_FAILED);
        }
}

cli_option *cli_options_with_aliases(const cli_option *base, int alias_base)
{
    size_t nbase = 0, nalias = 0, total = all_options();
    while (base[nbase].id) nbase++;
    for (size_t k = 0; k < total; k++) {
        const ganim_option *o = alias_option(k);
        nalias += (size_t)(o->alias != NULL) + (size_t)(o->deprecated_alias != NULL);
    }
    cli_option *table = cli_xmalloc((nbase + nalias + 1) * sizeof *table);
    memcpy(table, base, nbase * sizeof *table);
    size_t n = nbase;
    for (size_t k = 0; k < total; k++) {
        const ganim_option *o = alias_option(k);
        if (o->alias) {
            alias_must_be_free(table, n, o->alias);
            cli_option a = { o->alias, 0, 1, alias_base + (int)k };
            table[n++] = a;
        }
        if (o->deprecated_alias) { /* ids after every current alias's */
            alias_must_be_free(table, n, o->deprecated_alias);
            cli_option a = { o->deprecated_alias, 0, 1, alias_base + (int)(total + k) };
            table[n++] = a;
        }
    }
    memset(&table[n], 0, sizeof table[n]);
    return table;
}

/* "0|2|4" as "0, 2 or 4". */
static void choices_words(cli_str *b, const char *values)
{
    size_t total = 1;
    for (const char *p = values; *p; p++) total += *p == '|';
    size_t k = 0;
    for (const char *p = values; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (k) cli_str_puts(b, k + 1 == total ? " or " : ", ");
        cli_str_append(b, p, len);
        k++;
        p += len + (bar ? 1 : 0);
    }
}

static int add(cli_settings *s, const char *cmd, const ganim_option *o, const char *value, const char *spelled)
{
    ganim_error err = { 0 };
    if (ganim_option_check(o, value, &err) != GANIM_OK) {
        cli_str words = { 0 };
        const char *dots = o->values ? strstr(o->values, "..") : NULL;
        if (o->type == GANIM_OPTION_INT && dots) {
            cli_str_puts(&words, "an integer from ");
            cli_str_append(&words, o->values, (size_t)(dots - o->values));
            cli_str_puts(&words, " to ");
            cli_str_puts(&words, dots + 2);
        } else {
            choices_words(&words, o->values ? o->values : "");
        }
        int rc = cli_usage(cmd, "%s wants %s, not '%s'", spelled, words.s ? words.s : "", value);
        cli_str_free(&words);
        return rc;
    }
    s->list = cli_xrealloc(s->list, (s->count + 1) * sizeof *s->list);
    s->list[s->count].name = o->name;
    s->list[s->count].value = value;
    s->count++;
    return 0;
}

int cli_settings_add(cli_settings *s, const char *cmd, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec)
        return cli_usage(cmd, "-O wants NAME=VALUE (ganim formats lists the options), not '%s'", spec);
    char *name = cli_xmalloc((size_t)(eq - spec) + 1);
    memcpy(name, spec, (size_t)(eq - spec));
    name[eq - spec] = 0;
    const ganim_option *o = ganim_option_find(name, NULL);
    int rc;
    if (!o) {
        rc = cli_usage(cmd, "unknown option '%s' (ganim formats lists every format's options)", name);
    } else {
        cli_str spelled = { 0 };
        cli_str_printf(&spelled, "-O %s", o->name);
        rc = add(s, cmd, o, eq + 1, spelled.s);
        cli_str_free(&spelled);
    }
    free(name);
    return rc;
}

int cli_settings_add_alias(cli_settings *s, const char *cmd, int index, const char *value)
{
    size_t total = all_options(), k = index < 0 ? SIZE_MAX : (size_t)index;
    int deprecated = k >= total && k != SIZE_MAX;
    const ganim_option *o = alias_option(deprecated ? k - total : k);
    if (!o || (deprecated && !o->deprecated_alias)) return cli_usage(cmd, "internal error: no option %d", index);
    cli_str spelled = { 0 };
    cli_str_printf(&spelled, "--%s", deprecated ? o->deprecated_alias : o->alias);
    if (deprecated) /* the old spelling works, and says what replaces it */
        cli_notef(NULL, cmd, "--%s is deprecated: use --%s (or -O %s=VALUE)", o->deprecated_alias, o->alias, o->name);
    int rc = add(s, cmd, o, value, spelled.s);
    cli_str_free(&spelled);
    return rc;
}

int cli_settings_has(const cli_settings *s, uint32_t applies)
{
    for (size_t i = 0; i < s->count; i++) {
        const ganim_option *o = ganim_option_find(s->list[i].name, NULL);
        if (o && (o->flags & applies)) return 1;
    }
    return 0;
}

size_t cli_settings_for_writer(const cli_settings *s, const ganim_format *format, ganim_setting *out)
{
    size_t n = 0;
    for (size_t i = 0; i < s->count; i++) {
        const ganim_option *o = ganim_option_find(s->list[i].name, NULL);
        if (ganim_format_takes_option(format, o, GANIM_OPTION_WRITE)) out[n++] = s->list[i];
    }
    return n;
}

int cli_settings_misplaced(const cli_settings *s, const ganim_format *reader, const ganim_format *writer, int exports,
                           const char *writes, struct cli_str *why)
{
    for (size_t i = 0; i < s->count; i++) {
        const ganim_format *owner = NULL;
        const ganim_option *o = ganim_option_find(s->list[i].name, &owner);
        if (!o) continue;
        int reads = (o->flags & GANIM_OPTION_READ) && (!reader || reader == owner);
        int written = (o->flags & GANIM_OPTION_WRITE) && !exports &&
                      (!writer || ganim_format_takes_option(writer, o, GANIM_OPTION_WRITE));
        if (reads || written) continue;
        if (o->flags & GANIM_OPTION_READ)
            cli_str_printf(why, "option %s is an option for reading %s files; this command reads its inputs as %s",
                           o->name, owner->name, reader ? reader->name : "?");
        else
            cli_str_printf(why, "option %s is an option for writing %s files; this command writes %s", o->name,
                           owner->name, writes);
        return 1;
    }
    return 0;
}

const char *cli_settings_writer_only(const cli_settings *s)
{
    for (size_t i = 0; i < s->count; i++) {
        const ganim_option *o = ganim_option_find(s->list[i].name, NULL);
        if (o && !(o->flags & GANIM_OPTION_READ)) return s->list[i].name;
    }
    return NULL;
}

void cli_settings_free(cli_settings *s)
{
    free(s->list);
    s->list = NULL;
    s->count = 0;
}

void cli_help_formats(FILE *out)
{
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    int any = 0;
    for (size_t i = 0; i < count; i++)
        if (all[i]->companion) {
            if (!any) fprintf(out, "\nCompanion skeletons:\n");
            any = 1;
            fprintf(out, "  %s: %s\n", all[i]->name, all[i]->companion);
        }
    any = 0;
    for (size_t i = 0; i < count; i++)
        for (uint32_t k = 0; k < all[i]->option_count; k++) {
            const ganim_option *o = &all[i]->options[k];
            if (!any) fprintf(out, "\nFormat options (-O NAME=VALUE):\n");
            any = 1;
            fprintf(out, "  %s=%s", o->name, o->values ? o->values : "");
            if (o->alias) fprintf(out, "  (also --%s VALUE)", o->alias);
            if (o->deprecated_alias) fprintf(out, " (--%s: deprecated)", o->deprecated_alias);
            fprintf(out, "\n      %s: %s\n", all[i]->name, o->help ? o->help : "");
        }
}
