/* ganim formats: the registry as a table or as JSON. */
#include "cli.h"

#include <string.h>

void help_formats(FILE *out)
{
    fprintf(out,
            "Usage: ganim formats [--json]\n"
            "\n"
            "List every format ganim knows: its name (for --format and --to), whether it\n"
            "can be read and written, whether it is a companion (skeleton-only) format,\n"
            "its file extensions and a description. Exports (glb, gltf, bvh, json) are\n"
            "always available and not listed.\n"
            "\n"
            "Options:\n"
            "  --json      print a JSON array of {name, description, extensions, read,\n"
            "              write, companion, resample}\n"
            "  -h, --help  show this help\n"
            "\n"
            "Examples:\n"
            "  ganim formats\n"
            "  ganim formats --json | jq '.[] | select(.write) | .name'\n");
}

enum { OPT_JSON = 1, OPT_HELP };
static const cli_option options[] = {
    {"json", 0, 0, OPT_JSON}, {"help", 'h', 0, OPT_HELP}, {NULL, 0, 0, 0},
};

static void print_json(const ganim_format *const *all, size_t count)
{
    cli_str b = {0};
    cli_str_puts(&b, "[");
    for (size_t i = 0; i < count; i++) {
        const ganim_format *f = all[i];
        cli_str_puts(&b, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
        cli_str_json(&b, f->name);
        cli_str_puts(&b, ", \"description\": ");
        cli_str_json(&b, f->description ? f->description : "");
        cli_str_puts(&b, ", \"extensions\": [");
        const char *list = f->extensions ? f->extensions : "";
        int first = 1;
        while (*list) {
            const char *end = strchr(list, ';');
            size_t len = end ? (size_t)(end - list) : strlen(list);
            if (len) {
                cli_str buf = {0};
                cli_str_append(&buf, list, len);
                if (!first) cli_str_puts(&b, ", ");
                cli_str_json(&b, buf.s);
                cli_str_free(&buf);
                first = 0;
            }
            list += len + (end ? 1 : 0);
        }
        cli_str_printf(&b, "], \"read\": %s, \"write\": %s, \"companion\": %s, \"resample\": %s}",
                       f->read ? "true" : "false", f->write ? "true" : "false",
                       f->is_companion ? "true" : "false", f->resample ? "true" : "false");
    }
    cli_str_puts(&b, count ? "\n]\n" : "]\n");
    fwrite(b.s, 1, b.len, stdout);
    cli_str_free(&b);
}

static void print_table(const ganim_format *const *all, size_t count)
{
    int wname = 6, wext = 10;
    for (size_t i = 0; i < count; i++) {
        int n = (int)strlen(all[i]->name), e = all[i]->extensions ? (int)strlen(all[i]->extensions) : 0;
        if (n > wname) wname = n;
        if (e > wext) wext = e;
    }
    printf("%-*s  %-4s  %-5s  %-9s  %-*s  %s\n", wname, "FORMAT", "READ", "WRITE", "COMPANION",
           wext, "EXTENSIONS", "DESCRIPTION");
    for (size_t i = 0; i < count; i++) {
        const ganim_format *f = all[i];
        printf("%-*s  %-4s  %-5s  %-9s  %-*s  %s\n", wname, f->name, f->read ? "yes" : "no",
               f->write ? "yes" : "no", f->is_companion ? "yes" : "no", wext,
               f->extensions && *f->extensions ? f->extensions : "-",
               f->description ? f->description : "");
    }
    printf("\nExports (ganim convert --to): glb, gltf, bvh, json.\n");
}

int cmd_formats(int argc, char **argv)
{
    cli_args a = {"formats", argc, argv, 1, 0, 0};
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
