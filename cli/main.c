/* ganim: the command dispatcher. Each command lives in its own cmd_*.c. */
#include "cli.h"

#include <errno.h>
#include <string.h>

static const cli_command commands[] = {
    { "info", "describe animation files: format, skeleton, clips, warnings", cmd_info, help_info },
    { "convert", "convert to glTF (.glb/.gltf), BVH, JSON or a game format", cmd_convert, help_convert },
    { "dump", "write the lossless JSON dump of a file", cmd_dump, help_dump },
    { "formats", "list the formats ganim reads and writes", cmd_formats, help_formats },
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static const cli_command *find(const char *name)
{
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

static void usage(FILE *out)
{
    fprintf(out, "Usage: ganim COMMAND [OPTIONS] [FILES]\n"
                 "\n"
                 "Read, convert and re-encode skeletal animations from game files.\n"
                 "Formats:");
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0, col = 8; i < count; i++) {
        size_t len = strlen(all[i]->name) + 2;
        if (col + len > 88) {
            fprintf(out, "\n        ");
            col = 8;
        }
        fprintf(out, " %s%s", all[i]->name, i + 1 < count ? "," : " (ganim formats)\n");
        col += len;
    }
    fprintf(out, "\nCommands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++) fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "  help CMD  show the help of a command\n"
                 "\n"
                 "Options:\n"
                 "  -h, --help     show this help\n"
                 "  -V, --version  show the version\n"
                 "\n"
                 "Examples:\n"
                 "  ganim info MODEL_DIE_00.ala\n"
                 "  ganim convert anims/ -o out/ --to glb -j 4\n"
                 "  ganim convert pack -o pack.new --to FORMAT --resample 4\n"
                 "\n"
                 "Exit status: 0 success, 1 when any input failed, 2 on bad usage.\n"
                 "Run 'ganim help CMD' or 'ganim CMD --help' for the options of a command.\n");
}

/* Data went to standard output: a write that failed anywhere (a full disk, a closed pipe)
 * fails the command, with a message, whatever the command itself said. */
static int finish(int rc)
{
    errno = 0;
    int flush_failed = fflush(stdout) != 0;
    if (flush_failed || ferror(stdout)) {
        if (flush_failed && errno) cli_errorf(NULL, NULL, "cannot write to standard output: %s", strerror(errno));
        else cli_errorf(NULL, NULL, "cannot write to standard output");
        if (rc == CLI_EXIT_OK) rc = CLI_EXIT_FAILED;
    }
    return rc;
}

int main(int argc, char **argv)
{
    cli_os_init(&argc, &argv);
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *arg = argv[1];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        usage(stdout);
        return finish(CLI_EXIT_OK);
    }
    if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0) {
        printf("ganim %s\n", GANIM_VERSION_STRING);
        return finish(CLI_EXIT_OK);
    }
    if (strcmp(arg, "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return finish(CLI_EXIT_OK);
        }
        const cli_command *c = find(argv[2]);
        if (!c) return cli_usage(NULL, "unknown command '%s'", argv[2]);
        c->help(stdout);
        return finish(CLI_EXIT_OK);
    }
    const cli_command *c = find(arg);
    if (!c) {
        if (arg[0] == '-') return cli_usage(NULL, "unknown option '%s'", arg);
        return cli_usage(NULL, "unknown command '%s'", arg);
    }
    return finish(c->run(argc - 1, argv + 1));
}
