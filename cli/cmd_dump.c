/* ganim dump: the lossless JSON dump (docs/dump-format.md) to stdout or a file. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

void help_dump(FILE *out)
{
    fprintf(out, "Usage: ganim dump FILE [-o OUT.json] [OPTIONS]\n"
                 "\n"
                 "Write everything ganim read from FILE as JSON: skeleton, every clip with every\n"
                 "value, the format's own details (raw integers, quantisation) and warnings.\n"
                 "The layout is described in docs/dump-format.md.\n"
                 "\n"
                 "Options:\n"
                 "  -o, --output OUT   write to OUT instead of standard output (replaced if it\n"
                 "                     exists; never one of the inputs; a device, a FIFO or a\n"
                 "                     link's target is written through, not replaced)\n"
                 "  --skeleton FILE    take the skeleton from FILE (any file with bones)\n"
                 "  --no-companion     do not look for a companion skeleton next to FILE\n"
                 "  --format NAME      read FILE as NAME instead of detecting it (ganim formats)\n"
                 "  -O, --option NAME=VALUE  a format's reader option (ganim formats lists them)\n"
                 "  --clip N           dump only clip N (numbered from 0, as in ganim info)\n"
                 "  -h, --help         show this help\n"
                 "\n"
                 "Examples:\n"
                 "  ganim dump pack > pack.json\n"
                 "  ganim dump MODEL_DIE_00.ala -o die.json\n");
}

enum { OPT_OUTPUT = 1, OPT_SKELETON, OPT_NO_COMPANION, OPT_FORMAT, OPT_CLIP, OPT_SETTING, OPT_HELP, OPT_ALIAS = 1000 };
static const cli_option base_options[] = {
    { "output", 'o', 1, OPT_OUTPUT },
    { "skeleton", 0, 1, OPT_SKELETON },
    { "no-companion", 0, 0, OPT_NO_COMPANION },
    { "format", 0, 1, OPT_FORMAT },
    { "clip", 0, 1, OPT_CLIP },
    { "option", 'O', 1, OPT_SETTING },
    { "help", 'h', 0, OPT_HELP },
    { NULL, 0, 0, 0 },
};

static int same_file(const char *a, const char *b)
{
    cli_file_info sa, sb;
    return cli_info(a, 1, &sa) == 0 && cli_info(b, 1, &sb) == 0 && sa.dev == sb.dev && sa.ino == sb.ino;
}

int cmd_dump(int argc, char **argv)
{
    cli_args a = { "dump", argc, argv, 1, 0, 0 };
    const char *input = NULL, *output = NULL, *skeleton_path = NULL, *format_name = NULL;
    int find_companion = 1, only_clip = 0, id, rc = 0;
    unsigned long clip = 0;
    const char *v;
    cli_settings settings = { 0 };
    cli_option *options = cli_options_with_aliases(base_options, OPT_ALIAS);
    while (!rc && (id = cli_next(&a, options, &v)) != CLI_ARG_END) {
        switch (id) {
        case CLI_ARG_ERROR: rc = CLI_EXIT_USAGE; break;
        case CLI_ARG_POSITIONAL:
            if (input) rc = cli_usage("dump", "one input at a time (got '%s' and '%s')", input, v);
            input = v;
            break;
        case OPT_OUTPUT: output = v; break;
        case OPT_SKELETON: skeleton_path = v; break;
        case OPT_NO_COMPANION: find_companion = 0; break;
        case OPT_FORMAT: format_name = v; break;
        case OPT_CLIP:
            if (cli_parse_uint(v, 0, UINT32_MAX, &clip) != 0)
                rc = cli_usage("dump", "--clip wants a clip number, not '%s'", v);
            only_clip = 1;
            break;
        case OPT_SETTING: rc = cli_settings_add(&settings, "dump", v); break;
        case OPT_HELP:
            help_dump(stdout);
            rc = -1;
            break;
        default: rc = cli_settings_add_alias(&settings, "dump", id - OPT_ALIAS, v); break;
        }
    }
    free(options);
    cli_load_opts lo = { 0 };
    lo.find_companion = find_companion;
    lo.settings = &settings;
    ganim_doc *skeleton_doc = NULL;
    if (rc) {
    } else if (!input) {
        rc = cli_usage("dump", "no input file");
    } else if (cli_settings_writer_only(&settings)) {
        rc = cli_usage("dump", "-O %s is a writer option; dump only reads (use it with convert)",
                       cli_settings_writer_only(&settings));
    } else if (format_name && !(lo.format = ganim_format_find(format_name))) {
        rc = cli_usage("dump", "unknown format '%s' (see 'ganim formats')", format_name);
    } else if (output && (same_file(output, input) || (skeleton_path && same_file(output, skeleton_path)))) {
        cli_errorf(NULL, output, "refusing to overwrite an input file");
        rc = CLI_EXIT_FAILED;
    } else if (skeleton_path && !(skeleton_doc = cli_load_skeleton(skeleton_path))) {
        rc = CLI_EXIT_FAILED;
    }
    if (rc) {
        cli_settings_free(&settings);
        return rc < 0 ? CLI_EXIT_OK : rc;
    }
    if (skeleton_doc) lo.skeleton = skeleton_doc->skeleton;

    rc = CLI_EXIT_FAILED;
    cli_loaded l;
    if (cli_load(input, &lo, &l, NULL) == 0) {
        int used = 0; /* the output is a file the read took bytes from */
        for (uint32_t i = 0; output && i < l.doc->used_file_count && !used; i++)
            used = same_file(output, l.doc->used_files[i]);
        if (used) {
            cli_errorf(NULL, output, "refusing to overwrite a file %s was read from", input);
        } else if (only_clip && clip >= l.doc->clip_count) {
            cli_errorf(NULL, input, "no clip %lu (the file has %u)", clip, l.doc->clip_count);
        } else {
            ganim_export_opts eo = { 0 };
            eo.only_clip = only_clip ? (uint32_t)clip + 1 : 0;
            ganim_buffer out = { 0 };
            ganim_error err = { 0 };
            if (ganim_export_json(l.doc, &eo, &out, &err) != GANIM_OK) {
                cli_error(NULL, input, &err);
            } else if (output) {
                int e = cli_write_file(output, out.data, out.size);
                if (e) cli_errorf(NULL, output, "cannot write: %s", strerror(e));
                else rc = CLI_EXIT_OK;
            } else if (fwrite(out.data, 1, out.size, stdout) == out.size) {
                rc = CLI_EXIT_OK;
            } else {
                cli_errorf(NULL, NULL, "cannot write to standard output");
            }
            ganim_buffer_free(&out);
        }
        cli_loaded_free(&l);
    }
    ganim_doc_free(skeleton_doc);
    cli_settings_free(&settings);
    return rc;
}
