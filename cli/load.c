/* Reading one input for any command: the library reads the file (format by probe,
 * --format, or the extension; the companion skeleton by the format's rule), and the
 * errors are printed in the tool's one form. */
#include "cli.h"

#include <string.h>

int cli_load(const char *path, const cli_load_opts *opts, cli_loaded *l, cli_log *log)
{
    memset(l, 0, sizeof *l);
    ganim_read_opts ro = { 0 };
    ro.format = opts->format ? opts->format->name : NULL;
    ro.skeleton = opts->skeleton;
    ro.companion = opts->find_companion ? GANIM_COMPANION_FIND : GANIM_COMPANION_NONE;
    ro.up = (ganim_up)opts->up;
    ro.settings = opts->settings ? opts->settings->list : NULL;
    ro.setting_count = opts->settings ? (uint32_t)opts->settings->count : 0;
    ro.fps = opts->fps;
    ganim_error err = { 0 };
    if (ganim_read_file(path, &ro, &l->doc, &err) != GANIM_OK) {
        cli_error(log, path, &err);
        return -1;
    }
    return 0;
}

int cli_parse_up(const char *s)
{
    if (cli_strcaseeq(s, "y") || cli_strcaseeq(s, "y-up")) return GANIM_UP_Y;
    if (cli_strcaseeq(s, "z") || cli_strcaseeq(s, "z-up")) return GANIM_UP_Z;
    if (cli_strcaseeq(s, "y-down")) return GANIM_UP_Y_DOWN;
    return 0;
}

void cli_loaded_free(cli_loaded *l)
{
    ganim_doc_free(l->doc);
    memset(l, 0, sizeof *l);
}

ganim_doc *cli_load_skeleton(const char *path)
{
    cli_loaded l;
    cli_load_opts o = { 0 };
    if (cli_load(path, &o, &l, NULL) != 0) return NULL;
    if (!l.doc->skeleton) {
        cli_errorf(NULL, path,
                   "holds no skeleton (--skeleton wants a file with bones, e.g. a companion format of ganim formats)");
        cli_loaded_free(&l);
        return NULL;
    }
    return l.doc;
}
