/* Reading one input for any command: the library reads the file (format by probe,
 * --format, or the extension; the companion skeleton by the format's rule), and the
 * errors are printed in the tool's one form. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cli_load(const char *path, const cli_load_opts *opts, cli_loaded *l, cli_log *log)
{
    return cli_load_listed(path, opts, NULL, 0, l, log);
}

int cli_load_listed(const char *path, const cli_load_opts *opts, const char *const *folder_names, size_t count,
                    cli_loaded *l, cli_log *log)
{
    memset(l, 0, sizeof *l);
    ganim_read_opts ro = { 0 };
    ro.format = opts->format ? opts->format->name : NULL;
    ro.skeleton = opts->skeleton;
    ro.skeleton_must_fit = opts->skeleton != NULL; /* asked for by name: it must fit */
    ro.companion = opts->find_companion ? GANIM_COMPANION_FIND : GANIM_COMPANION_NONE;
    ro.up = (ganim_up)opts->up;
    ro.settings = opts->settings ? opts->settings->list : NULL;
    ro.setting_count = opts->settings ? (uint32_t)opts->settings->count : 0;
    ro.fps = opts->fps;
    ro.folder_names = folder_names;
    ro.folder_name_count = count;
    ganim_error err = { 0 };
    ganim_code code;
    if (strcmp(path, "-") == 0) { /* standard input: the bytes alone (no folder, no companion) */
        ganim_buffer in = { 0 };
        code = cli_read_stdin(&in, &err);
        if (code == GANIM_OK) code = ganim_read_memory(in.data, in.size, &ro, &l->doc, &err);
        ganim_buffer_free(&in);
    } else {
        code = ganim_read_file(path, &ro, &l->doc, &err);
    }
    if (code != GANIM_OK) {
        cli_error(log, path, &err);
        return -1;
    }
    return 0;
}

ganim_code cli_read_stdin(ganim_buffer *out, ganim_error *err)
{
    static int used; /* standard input can be read once */
    if (used++) {
        snprintf(err->message, sizeof err->message, "standard input can be read only once");
        err->code = GANIM_ERR_INVALID_ARG;
        err->offset = GANIM_NO_OFFSET;
        return err->code;
    }
    return cli_read_stdin_bytes(out, err);
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
    uint32_t made_up = 0;
    for (uint32_t i = 0; l.doc->skeleton && i < l.doc->skeleton->bone_count; i++)
        made_up += (l.doc->skeleton->bones[i].flags & GANIM_BONE_SYNTH) != 0;
    if (!l.doc->skeleton || made_up == l.doc->skeleton->bone_count) {
        cli_errorf(NULL, path,
                   "holds no skeleton of its own%s (--skeleton wants a model or skeleton file: a "
                   "companion format of ganim formats, or any file with real bones)",
                   l.doc->skeleton ? " (its bones were made up by the reader: is it an animation?)" : "");
        cli_loaded_free(&l);
        return NULL;
    }
    return l.doc;
}
