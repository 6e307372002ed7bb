/* ganim formats: the registry as a table or as JSON, with every format's options. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

void help_formats(FILE *out)
{
    fprintf(out, "Usage: ganim formats [--json]\n"
                 "\n"
                 "List every format ganim knows: its name (for --format and --to), whether it\n"
                 "can be read and written, whether it is a companion (skeleton-only) format,\n"
                 "its family (the game family, also the folder of its sources and test data),\n"
                 "its file extensions and a description; then each format's options (give them\n"
                 "as -O NAME=VALUE) and how a file finds its companion skeleton. Exports (glb,\n"
                 "gltf, bvh, json) are always available and not listed.\n"
                 "\n"
                 "Options:\n"
                 "  --json      print a JSON array of {name, description, family, extensions, read,\n"
                 "              write, companion, resample, companion_rule, options}\n"
                 "  -h, --help  show this help\n"
                 "\n"
                 "Examples:\n"
                 "  ganim formats\n"
                 "  ganim formats --json | jq '.[] | select(.write) | .name'\n");
}

enum { OPT_JSON = 1, OPT_HELP };
static const cli_option options[] = {
    { "json", 0, 0, OPT_JSON },
    { "help", 'h', 0, OPT_HELP },
    { NULL, 0, 0, 0 },
};

/* ---- JSON: a detail tree rendered by the library ----------------------------------- */

typedef struct pool {
    ganim_detail *items;
    size_t used, cap;
} pool;

/* n consecutive zeroed nodes. The pool is sized up front (pool_reserve), so pointers
 * stay valid. */
static ganim_detail *take(pool *p, size_t n)
{
    if (p->used + n > p->cap) abort(); /* sized below */
    ganim_detail *d = p->items + p->used;
    memset(d, 0, n * sizeof *d);
    p->used += n;
    return d;
}

/* Whether an option applies to reading, writing or both, in the caller's words. */
static const char *applies_word(const ganim_option *o, const char *read, const char *write, const char *both)
{
    int r = (o->flags & GANIM_OPTION_READ) != 0, w = (o->flags & GANIM_OPTION_WRITE) != 0;
    return r && w ? both : w ? write : read;
}

static void set_string(ganim_detail *d, const char *key, const char *s)
{
    d->key = key;
    d->type = s ? GANIM_DETAIL_STRING : GANIM_DETAIL_NULL;
    d->value.s = s;
}

static void set_bool(ganim_detail *d, const char *key, int b)
{
    d->key = key;
    d->type = GANIM_DETAIL_BOOL;
    d->value.b = b;
}

/* "a;b;c" (or "a|b|c") as a LIST of strings copied into `words`. */
static void set_words(pool *p, ganim_detail *d, const char *key, const char *list, char sep, char **words)
{
    size_t n = 0;
    for (const char *q = list; *q; q++) n += *q == sep;
    n += *list != 0;
    d->key = key;
    d->type = GANIM_DETAIL_LIST;
    d->items = take(p, n);
    d->count = (uint32_t)n;
    char *copy = cli_xstrdup(list);
    *words = copy;
    size_t i = 0;
    for (char *q = copy; *q && i < n; i++) {
        char *end = strchr(q, sep);
        if (end) *end = 0;
        set_string((ganim_detail *)&d->items[i], NULL, q);
        if (!end) break;
        q = end + 1;
    }
}

static void print_json(const ganim_format *const *all, size_t count)
{
    size_t nodes = 1, nwords = 0;
    for (size_t i = 0; i < count; i++) {
        nodes += 12 + strlen(all[i]->extensions ? all[i]->extensions : "") + 1;
        for (uint32_t k = 0; k < all[i]->option_count; k++)
            nodes += 8 + strlen(all[i]->options[k].values ? all[i]->options[k].values : "") + 1;
        nwords += 1 + all[i]->option_count;
    }
    pool p = { cli_xmalloc(nodes * sizeof *p.items), 0, nodes };
    char **words = cli_xmalloc((nwords + 1) * sizeof *words);
    size_t w = 0;
    ganim_detail *root = take(&p, 1);
    root->type = GANIM_DETAIL_LIST;
    root->items = take(&p, count);
    root->count = (uint32_t)count;
    for (size_t i = 0; i < count; i++) {
        const ganim_format *f = all[i];
        ganim_detail *g = (ganim_detail *)&root->items[i], *m = take(&p, 10);
        g->type = GANIM_DETAIL_GROUP;
        g->items = m;
        g->count = 10;
        set_string(&m[0], "name", f->name);
        set_string(&m[1], "description", f->description ? f->description : "");
        set_string(&m[2], "family", f->family);
        set_words(&p, &m[3], "extensions", f->extensions ? f->extensions : "", ';', &words[w++]);
        set_bool(&m[4], "read", (f->flags & GANIM_FORMAT_READ) != 0);
        set_bool(&m[5], "write", (f->flags & GANIM_FORMAT_WRITE) != 0);
        set_bool(&m[6], "companion", (f->flags & GANIM_FORMAT_COMPANION) != 0);
        set_bool(&m[7], "resample", (f->flags & GANIM_FORMAT_RESAMPLE) != 0);
        set_string(&m[8], "companion_rule", f->companion);
        m[9].key = "options";
        m[9].type = GANIM_DETAIL_LIST;
        m[9].items = take(&p, f->option_count);
        m[9].count = f->option_count;
        for (uint32_t k = 0; k < f->option_count; k++) {
            const ganim_option *o = &f->options[k];
            ganim_detail *og = (ganim_detail *)&m[9].items[k], *om = take(&p, 7);
            og->type = GANIM_DETAIL_GROUP;
            og->items = om;
            og->count = 7;
            set_string(&om[0], "name", o->name);
            set_string(&om[1], "alias", o->alias);
            set_string(&om[2], "applies", applies_word(o, "read", "write", "both"));
            set_words(&p, &om[3], "values", o->values ? o->values : "", '|', &words[w++]);
            set_string(&om[4], "help", o->help);
            set_string(&om[5], "when_unset", o->when_unset);
            set_string(&om[6], "deprecated_alias", o->deprecated_alias);
        }
    }
    ganim_buffer out = { 0 };
    ganim_error err = { 0 };
    if (ganim_detail_json(root, &out, &err) == GANIM_OK) {
        fwrite(out.data, 1, out.size, stdout);
        fputc('\n', stdout);
    } else {
        cli_error(NULL, NULL, &err);
    }
    ganim_buffer_free(&out);
    for (size_t i = 0; i < w; i++) free(words[i]);
    free(words);
    free(p.items);
}

/* ---- text ----------------------------------------------------------------------------- */

static void print_table(const ganim_format *const *all, size_t count)
{
    int wname = 6, wfam = 6, wext = 10;
    for (size_t i = 0; i < count; i++) {
        int n = (int)strlen(all[i]->name), e = all[i]->extensions ? (int)strlen(all[i]->extensions) : 0;
        int fl = (int)strlen(all[i]->family);
        if (n > wname) wname = n;
        if (fl > wfam) wfam = fl;
        if (e > wext) wext = e;
    }
    printf("%-*s  %-4s  %-5s  %-9s  %-*s  %-*s  %s\n", wname, "FORMAT", "READ", "WRITE", "COMPANION", wfam, "FAMILY",
           wext, "EXTENSIONS", "DESCRIPTION");
    for (size_t i = 0; i < count; i++) {
        const ganim_format *f = all[i];
        printf("%-*s  %-4s  %-5s  %-9s  %-*s  %-*s  %s\n", wname, f->name,
               (f->flags & GANIM_FORMAT_READ) ? "yes" : "no", (f->flags & GANIM_FORMAT_WRITE) ? "yes" : "no",
               (f->flags & GANIM_FORMAT_COMPANION) ? "yes" : "no", wfam, f->family, wext,
               f->extensions && *f->extensions ? f->extensions : "-", f->description ? f->description : "");
    }
    printf("\nExports (ganim convert --to): glb, gltf, bvh, json.\n");
    int any = 0;
    for (size_t i = 0; i < count; i++)
        for (uint32_t k = 0; k < all[i]->option_count; k++) {
            const ganim_option *o = &all[i]->options[k];
            if (!any) printf("\nOptions (-O NAME=VALUE):\n");
            any = 1;
            printf("  %s=%s  (%s", o->name, o->values ? o->values : "", all[i]->name);
            for (size_t j = 0; j < count; j++) /* formats whose writer borrows the option */
                if (j != i && ganim_format_takes_option(all[j], o, GANIM_OPTION_WRITE)) printf(", %s", all[j]->name);
            printf(", %s", applies_word(o, "reading", "writing", "reading and writing"));
            if (o->alias) printf("; also --%s VALUE", o->alias);
            if (o->deprecated_alias) printf(", or --%s (deprecated)", o->deprecated_alias);
            printf(")\n      %s\n", o->help ? o->help : "");
            if (o->when_unset) printf("      unset: %s\n", o->when_unset);
        }
    any = 0;
    for (size_t i = 0; i < count; i++)
        if (all[i]->companion) {
            if (!any) printf("\nCompanion skeletons (found by name unless --skeleton or --no-companion):\n");
            any = 1;
            printf("  %s: %s\n", all[i]->name, all[i]->companion);
        }
}

int cmd_formats(int argc, char **argv)
{
    cli_args a = { "formats", argc, argv, 1, 0, 0 };
    int json = 0, id;
    const char *v;
    while ((id = cli_next(&a, options, &v)) != CLI_ARG_END) {
        switch (id) {
        case CLI_ARG_ERROR: return CLI_EXIT_USAGE;
        case CLI_ARG_POSITIONAL: return cli_usage("formats", "unexpected argument '%s'", v);
        case OPT_JSON: json = 1; break;
        case OPT_HELP: help_formats(stdout); return CLI_EXIT_OK;
        }
    }
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    if (json) print_json(all, count);
    else print_table(all, count);
    return CLI_EXIT_OK;
}
