/* ganim info: what a file holds, for people (text) and for scripts (--json). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

void help_info(FILE *out)
{
    fprintf(out, "Usage: ganim info FILE... [OPTIONS]\n"
                 "\n"
                 "Describe each FILE: detected format and probe score, axes, skeleton (bone\n"
                 "count and tree), and per clip its index, name, kind, fps, frames, duration,\n"
                 "tracks and animated channels, followed by the format's own details. Warnings\n"
                 "found while reading are printed on standard error as\n"
                 "  ganim: FILE: warning: message (at byte 0x...)\n"
                 "\n"
                 "When --skeleton is not given, the companion skeleton a file needs is found by\n"
                 "its format's rule (listed below).\n"
                 "\n"
                 "Options:\n"
                 "  --json            print the JSON summary (docs/dump-format.md) instead; one\n"
                 "                    document for one file, an array for several (null for a\n"
                 "                    file that could not be read)\n"
                 "  --bones           list every bone as an indented tree\n"
                 "  -v, --verbose     every clip in full, with its format details (default: a\n"
                 "                    table of the clips, one line each)\n"
                 "  --skeleton FILE   take the skeleton from FILE (any file with bones)\n"
                 "  --no-companion    do not look for a companion skeleton\n"
                 "  --format NAME     read the files as NAME instead of detecting it\n"
                 "  -O, --option NAME=VALUE  a format's reader option (listed below)\n"
                 "  -h, --help        show this help\n"
                 "\n"
                 "Examples:\n"
                 "  ganim info MODEL_DIE_00.ala\n"
                 "  ganim info --bones MODEL.alo\n"
                 "  ganim info --json anims/* > summary.json\n");
    cli_help_formats(out);
}

enum {
    OPT_JSON = 1,
    OPT_BONES,
    OPT_VERBOSE,
    OPT_SKELETON,
    OPT_NO_COMPANION,
    OPT_FORMAT,
    OPT_SETTING,
    OPT_HELP,
    OPT_ALIAS = 1000
};
static const cli_option base_options[] = {
    { "json", 0, 0, OPT_JSON },
    { "bones", 0, 0, OPT_BONES },
    { "verbose", 'v', 0, OPT_VERBOSE },
    { "skeleton", 0, 1, OPT_SKELETON },
    { "no-companion", 0, 0, OPT_NO_COMPANION },
    { "format", 0, 1, OPT_FORMAT },
    { "option", 'O', 1, OPT_SETTING },
    { "help", 'h', 0, OPT_HELP },
    { NULL, 0, 0, 0 },
};

static void quoted(cli_str *b, const char *s)
{
    cli_str_puts(b, "\"");
    cli_str_printable(b, s);
    cli_str_puts(b, "\"");
}

/* The format's details of the document (clip < 0) or a clip as text, indented; a
 * clip's leave out what the document's already say (doc_details, may be NULL). */
static void describe(cli_str *b, const ganim_doc *doc, int clip, const ganim_detail *doc_details, const char *indent,
                     const char *path)
{
    ganim_details *d = NULL;
    ganim_error err = { 0 };
    if (ganim_doc_details(doc, clip, GANIM_DETAILS_SUMMARY, NULL, &d, &err) != GANIM_OK) {
        cli_warningf(NULL, path, "cannot describe %s: %s", clip < 0 ? "the file" : "a clip", err.message);
        return;
    }
    cli_details_text(b, d->root, doc_details, indent);
    ganim_details_free(d);
}

static void skeleton_summary(cli_str *b, const ganim_skeleton *sk, const char *companion, int list_bones)
{
    uint32_t n = sk->bone_count, roots = 0, leaves = 0, max_depth = 0, synth = 0;
    uint32_t *depth = cli_xmalloc((size_t)n * sizeof *depth + 1);
    uint32_t *children = cli_xmalloc((size_t)n * sizeof *children + 1);
    uint32_t *root = cli_xmalloc((size_t)n * sizeof *root + 1);
    memset(children, 0, (size_t)n * sizeof *children);
    for (uint32_t i = 0; i < n; i++) {
        int32_t p = sk->bones[i].parent;
        /* parents come before children (validated by the library); guard anyway */
        depth[i] = p >= 0 && (uint32_t)p < i ? depth[p] + 1 : 0;
        root[i] = depth[i] ? root[p] : i;
        if (depth[i] == 0) roots++;
        else children[p]++;
        if (depth[i] > max_depth) max_depth = depth[i];
        if (sk->bones[i].flags & GANIM_BONE_SYNTH) synth++;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!children[i]) leaves++;
    cli_str_printf(b, "  skeleton: %u bone%s", n, n == 1 ? "" : "s");
    if (n)
        cli_str_printf(b, ", %u root%s, %u lea%s, depth %u", roots, roots == 1 ? "" : "s", leaves,
                       leaves == 1 ? "f" : "ves", max_depth + 1);
    if (companion) {
        cli_str_puts(b, " (from ");
        cli_str_printable(b, companion);
        cli_str_puts(b, ")");
    } else if (n && synth == n) {
        cli_str_puts(b, " (made up: no skeleton given)");
    }
    cli_str_puts(b, "\n");
    if (sk->name[0]) {
        cli_str_puts(b, "  skeleton name: ");
        quoted(b, sk->name);
        cli_str_puts(b, "\n");
    }
    if (list_bones) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t d = depth[i] < 40 ? depth[i] : 40;
            cli_str_printf(b, "    %*s%u ", (int)(2 * d), "", i);
            if (sk->bones[i].name[0]) quoted(b, sk->bones[i].name);
            else cli_str_puts(b, "(unnamed)");
            if (sk->bones[i].flags & GANIM_BONE_HIDDEN) cli_str_puts(b, " hidden");
            cli_str_puts(b, "\n");
        }
    } else {
        /* The roots, which is what a tree summary needs most. */
        uint32_t shown = 0;
        for (uint32_t i = 0; i < n && shown < 8; i++) {
            if (depth[i] != 0) continue;
            uint32_t desc = 0;
            for (uint32_t j = i + 1; j < n; j++) desc += root[j] == i;
            cli_str_puts(b, "    root ");
            if (sk->bones[i].name[0]) quoted(b, sk->bones[i].name);
            else cli_str_printf(b, "%u (unnamed)", i);
            cli_str_printf(b, ": %u descendant%s\n", desc, desc == 1 ? "" : "s");
            shown++;
        }
        if (roots > shown) cli_str_printf(b, "    ... and %u more roots\n", roots - shown);
    }
    free(depth);
    free(children);
    free(root);
}

static int animated(const ganim_channel *c)
{
    return c->kind == GANIM_CHANNEL_PER_FRAME || c->kind == GANIM_CHANNEL_KEYED;
}

/* Counts of a clip's channels: animated (per-frame or keyed) and constant, per kind. */
typedef struct channel_counts {
    uint32_t rot, tra, sca, vis, step, crot, ctra, csca;
} channel_counts;

static channel_counts count_channels(const ganim_clip *c)
{
    channel_counts n = { 0 };
    for (uint32_t t = 0; t < c->track_count; t++) {
        const ganim_track *tr = &c->tracks[t];
        n.rot += (uint32_t)animated(&tr->rotation);
        n.tra += (uint32_t)animated(&tr->translation);
        n.sca += (uint32_t)animated(&tr->scale);
        n.crot += tr->rotation.kind == GANIM_CHANNEL_CONSTANT;
        n.ctra += tr->translation.kind == GANIM_CHANNEL_CONSTANT;
        n.csca += tr->scale.kind == GANIM_CHANNEL_CONSTANT;
        n.vis += tr->visibility != NULL;
        n.step += tr->step != NULL;
    }
    return n;
}

static void clip_summary(cli_str *b, const ganim_doc *doc, uint32_t index, const ganim_detail *doc_details,
                         const char *path)
{
    const ganim_clip *c = &doc->clips[index];
    cli_str_printf(b, "  clip %u", index);
    if (c->name[0]) {
        cli_str_puts(b, " ");
        quoted(b, c->name);
    }
    if (c->kind == GANIM_CLIP_OPAQUE) {
        cli_str_printf(b, ": opaque slot, %zu bytes\n", c->opaque_size);
    } else {
        double duration = c->fps > 0 && c->frame_count > 1 ? (c->frame_count - 1) / c->fps : 0;
        cli_str_printf(b, ": animation, %g fps, %u frame%s, %.3f s, %u track%s%s\n", c->fps, c->frame_count,
                       c->frame_count == 1 ? "" : "s", duration, c->track_count, c->track_count == 1 ? "" : "s",
                       c->rotation_interp == GANIM_INTERP_NLERP ? ", nlerp rotations" : "");
        channel_counts n = count_channels(c);
        cli_str_printf(b, "    animated channels: %u rotation, %u translation, %u scale", n.rot, n.tra, n.sca);
        if (n.vis) cli_str_printf(b, ", %u visibility", n.vis);
        if (n.step) cli_str_printf(b, ", %u step", n.step);
        cli_str_printf(b, "\n    constant channels: %u rotation, %u translation, %u scale\n", n.crot, n.ctra, n.csca);
        if (c->event_count) {
            cli_str_printf(b, "    events (frame:id):");
            for (uint32_t k = 0; k < c->event_count && k < 16; k++)
                cli_str_printf(b, " %g:%u", (double)c->events[k].frame, c->events[k].id);
            cli_str_puts(b, c->event_count > 16 ? " ...\n" : "\n");
        }
    }
    describe(b, doc, (int)index, doc_details, "    ", path);
}

/* The clips as a table, one line each: what a user scans first (-v gives every detail). */
static void clip_table(cli_str *b, const ganim_doc *doc)
{
    size_t wname = 4;
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        size_t n = strlen(doc->clips[i].name);
        if (n > wname) wname = n < 40 ? n : 40;
    }
    cli_str_printf(b, "    %3s  %-*s  %-9s  %5s  %6s  %8s  %6s  %s\n", "#", (int)wname, "name", "kind", "fps", "frames",
                   "duration", "tracks", "animated rot/tra/sca/vis/step");
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *c = &doc->clips[i];
        cli_str name = { 0 };
        cli_str_printable(&name, c->name);
        if (name.len > wname) name.s[wname] = 0, name.len = wname;
        cli_str_printf(b, "    %3u  %-*s  ", i, (int)wname, name.s ? name.s : "");
        cli_str_free(&name);
        if (c->kind == GANIM_CLIP_OPAQUE) {
            cli_str_printf(b, "%-9s  %zu byte%s\n", "opaque", c->opaque_size, c->opaque_size == 1 ? "" : "s");
            continue;
        }
        double duration = c->fps > 0 && c->frame_count > 1 ? (c->frame_count - 1) / c->fps : 0;
        channel_counts n = count_channels(c);
        cli_str_printf(b, "%-9s  %5g  %6u  %7.3fs  %6u  %u/%u/%u/%u/%u\n", "animation", c->fps, c->frame_count,
                       duration, c->track_count, n.rot, n.tra, n.sca, n.vis, n.step);
    }
}

static void text_report(cli_str *b, const char *path, const cli_loaded *l, int list_bones, int verbose)
{
    const ganim_doc *doc = l->doc;
    cli_str_printable(b, path);
    cli_str_puts(b, "\n  format: ");
    cli_str_puts(b, doc->format ? doc->format->name : "?");
    cli_str_printf(b, ", probe score %d\n", doc->probe_score);
    cli_str_printf(b, "  axes: %s\n", ganim_axes_name(doc->axes));
    if (doc->skeleton) skeleton_summary(b, doc->skeleton, doc->skeleton_file, list_bones);
    else cli_str_puts(b, "  skeleton: none\n");
    ganim_details *dd = NULL;
    ganim_error err = { 0 };
    if (ganim_doc_details(doc, -1, GANIM_DETAILS_SUMMARY, NULL, &dd, &err) != GANIM_OK)
        cli_warningf(NULL, path, "cannot describe the file: %s", err.message);
    const ganim_detail *doc_details = dd ? dd->root : NULL;
    cli_details_text(b, doc_details, NULL, "  ");
    uint32_t anims = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++) anims += doc->clips[i].kind == GANIM_CLIP_ANIMATION;
    for (uint32_t m = 0; m < doc->mesh_count; m++) {
        cli_str_printf(b, "  mesh %u", m);
        if (doc->meshes[m].name[0]) {
            cli_str_puts(b, " ");
            quoted(b, doc->meshes[m].name);
        }
        cli_str_printf(b, ": %u vertices, %u triangles\n", doc->meshes[m].vertex_count, doc->meshes[m].triangle_count);
    }
    cli_str_printf(b, "  clips: %u", doc->clip_count);
    if (anims != doc->clip_count) cli_str_printf(b, " (%u animation%s)", anims, anims == 1 ? "" : "s");
    cli_str_puts(b, "\n");
    if (verbose)
        for (uint32_t i = 0; i < doc->clip_count; i++) clip_summary(b, doc, i, doc_details, path);
    else if (doc->clip_count) clip_table(b, doc);
    ganim_details_free(dd);
    uint32_t warnings = doc->warning_count + doc->warnings_dropped;
    if (warnings) cli_str_printf(b, "  warnings: %u (on standard error)\n", warnings);
}

int cmd_info(int argc, char **argv)
{
    cli_args a = { "info", argc, argv, 1, 0, 0 };
    const char **inputs = cli_xmalloc((size_t)argc * sizeof *inputs);
    size_t count = 0;
    const char *skeleton_path = NULL, *format_name = NULL, *v;
    int json = 0, bones = 0, verbose = 0, find_companion = 1, id;
    cli_settings settings = { 0 };
    cli_option *options = cli_options_with_aliases(base_options, OPT_ALIAS);
    while ((id = cli_next(&a, options, &v)) != CLI_ARG_END) {
        int rc = 0;
        switch (id) {
        case CLI_ARG_ERROR: rc = CLI_EXIT_USAGE; break;
        case CLI_ARG_POSITIONAL: inputs[count++] = v; break;
        case OPT_JSON: json = 1; break;
        case OPT_BONES: bones = 1; break;
        case OPT_VERBOSE: verbose = 1; break;
        case OPT_SKELETON: skeleton_path = v; break;
        case OPT_NO_COMPANION: find_companion = 0; break;
        case OPT_FORMAT: format_name = v; break;
        case OPT_SETTING: rc = cli_settings_add(&settings, "info", v); break;
        case OPT_HELP:
            help_info(stdout);
            rc = -1;
            break;
        default: rc = cli_settings_add_alias(&settings, "info", id - OPT_ALIAS, v); break;
        }
        if (rc) {
            free(inputs);
            free(options);
            cli_settings_free(&settings);
            return rc < 0 ? CLI_EXIT_OK : rc;
        }
    }
    free(options);
    cli_load_opts lo = { 0 };
    lo.find_companion = find_companion;
    lo.settings = &settings;
    ganim_doc *skeleton_doc = NULL;
    int rc = CLI_EXIT_OK;
    if (cli_settings_writer_only(&settings))
        rc = cli_usage("info", "-O %s is a writer option; info only reads (use it with convert)",
                       cli_settings_writer_only(&settings));
    else if (!count) rc = cli_usage("info", "no input file");
    else if (format_name && !(lo.format = ganim_format_find(format_name)))
        rc = cli_usage("info", "unknown format '%s' (see 'ganim formats')", format_name);
    else if (skeleton_path && !(skeleton_doc = cli_load_skeleton(skeleton_path))) rc = CLI_EXIT_FAILED;
    if (rc != CLI_EXIT_OK) {
        free(inputs);
        cli_settings_free(&settings);
        return rc;
    }
    if (skeleton_doc) lo.skeleton = skeleton_doc->skeleton;

    if (json && count > 1) fputs("[\n", stdout);
    for (size_t i = 0; i < count; i++) {
        cli_loaded l;
        cli_str b = { 0 };
        if (cli_load(inputs[i], &lo, &l, NULL) != 0) {
            rc = CLI_EXIT_FAILED;
            if (json && count > 1) cli_str_puts(&b, "null");
        } else {
            if (json) {
                ganim_buffer out = { 0 };
                ganim_error err = { 0 };
                ganim_export_opts eo = { 0 };
                if (ganim_export_info_json(l.doc, &eo, &out, &err) != GANIM_OK) {
                    cli_error(NULL, inputs[i], &err);
                    rc = CLI_EXIT_FAILED;
                    if (count > 1) cli_str_puts(&b, "null");
                } else {
                    size_t n = out.size;
                    while (n && (out.data[n - 1] == '\n' || out.data[n - 1] == ' ')) n--;
                    cli_str_append(&b, (const char *)out.data, n);
                }
                ganim_buffer_free(&out);
            } else {
                if (i) cli_str_puts(&b, "\n");
                text_report(&b, inputs[i], &l, bones, verbose);
            }
            cli_doc_warnings(NULL, inputs[i], l.doc);
            cli_loaded_free(&l);
        }
        if (json && b.len) cli_str_puts(&b, count > 1 && i + 1 < count ? ",\n" : "\n");
        if (b.len) fwrite(b.s, 1, b.len, stdout);
        fflush(stdout);
        cli_str_free(&b);
    }
    if (json && count > 1) fputs("]\n", stdout);
    ganim_doc_free(skeleton_doc);
    free(inputs);
    cli_settings_free(&settings);
    return rc;
}
