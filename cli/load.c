/* Reading one input for any command: the bytes, the format (probe, --format, or the
 * extension when nothing recognises a damaged file), and the skeleton (--skeleton or a
 * companion file found by name). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* The file's bytes, with the messages a user expects for the common mistakes. */
static int load_bytes(const char *path, ganim_buffer *buf, cli_log *log)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        cli_errorf(log, path, "cannot open: %s", strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        cli_errorf(log, path, "is a directory");
        return -1;
    }
    ganim_error err = {0};
    if (ganim_load_file(path, NULL, buf, &err) != GANIM_OK) {
        cli_error(log, path, &err);
        return -1;
    }
    return 0;
}

static ganim_code read_doc(cli_loaded *l, const ganim_format *format,
                           const ganim_skeleton *skeleton, ganim_error *err)
{
    ganim_read_opts ro = {0};
    ro.format = format ? format->name : NULL;
    ro.skeleton = skeleton;
    return ganim_read_memory(l->file.data, l->file.size, &ro, &l->doc, err);
}

int cli_load(const char *path, const cli_load_opts *opts, cli_loaded *l, cli_log *log)
{
    memset(l, 0, sizeof *l);
    if (load_bytes(path, &l->file, log) != 0) return -1;

    l->probed = ganim_probe(l->file.data, l->file.size, &l->probe_score);
    const ganim_format *format = opts->format;
    if (format) {
        l->probe_score = ganim_format_probe(format, l->file.data, l->file.size);
    } else if (!l->probed) {
        /* Nothing recognises the bytes: a damaged file of a known kind gets its own
         * reader's precise error rather than "unknown format". */
        format = ganim_format_for_path(path);
        l->probe_score = 0;
    }

    const ganim_skeleton *skeleton = opts->skeleton;
    ganim_doc *companion = NULL;
    if (!skeleton && opts->find_companion) {
        l->companion = cli_find_companion(path);
        if (l->companion) {
            cli_loaded c;
            cli_load_opts co = {0};
            if (cli_load(l->companion, &co, &c, log) != 0) {
                cli_warningf(log, path, "companion skeleton %s could not be read; reading without it",
                             l->companion);
            } else if (!c.doc->skeleton) {
                cli_warningf(log, path, "companion %s holds no skeleton; reading without it",
                             l->companion);
                cli_loaded_free(&c);
            } else {
                companion = c.doc;
                skeleton = companion->skeleton;
                ganim_buffer_free(&c.file);
                free(c.companion);
            }
            if (!companion) {
                free(l->companion);
                l->companion = NULL;
            }
        }
    }

    ganim_error err = {0};
    ganim_code rc = read_doc(l, format, skeleton, &err);
    if (rc == GANIM_ERR_MISMATCH && companion) {
        /* A guessed companion that does not fit is not the user's fault. */
        cli_warningf(log, path, "companion %s does not fit (%s); reading without it",
                     l->companion, err.message);
        free(l->companion);
        l->companion = NULL;
        memset(&err, 0, sizeof err);
        rc = read_doc(l, format, NULL, &err);
    }
    ganim_doc_free(companion);
    if (rc != GANIM_OK) {
        cli_error(log, path, &err);
        cli_loaded_free(l);
        return -1;
    }
    if (opts->up) l->doc->axes = (ganim_axes)(opts->up - 1);
    return 0;
}

int cli_parse_up(const char *s)
{
    if (cli_strcaseeq(s, "y") || cli_strcaseeq(s, "y-up")) return 1 + GANIM_AXES_Y_UP;
    if (cli_strcaseeq(s, "z") || cli_strcaseeq(s, "z-up")) return 1 + GANIM_AXES_Z_UP;
    if (cli_strcaseeq(s, "y-down")) return 1 + GANIM_AXES_Y_DOWN;
    return 0;
}

void cli_loaded_free(cli_loaded *l)
{
    ganim_doc_free(l->doc);
    ganim_buffer_free(&l->file);
    free(l->companion);
    memset(l, 0, sizeof *l);
}

ganim_doc *cli_load_skeleton(const char *path)
{
    cli_loaded l;
    cli_load_opts o = {0};
    if (cli_load(path, &o, &l, NULL) != 0) return NULL;
    if (!l.doc->skeleton) {
        cli_errorf(NULL, path, "holds no skeleton (--skeleton wants a file with bones, e.g. .alo or ??aa)");
        cli_loaded_free(&l);
        return NULL;
    }
    ganim_doc *doc = l.doc;
    l.doc = NULL;
    cli_loaded_free(&l);
    return doc;
}
