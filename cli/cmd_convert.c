/* ganim convert: many inputs, one output kind, N worker threads.
 *
 * The command runs in three steps: collect the inputs (files, directories), plan one
 * primary output path per input (so name collisions are found before anything is
 * written, in a deterministic order), then convert in parallel. Each job writes its
 * messages to its own log, printed in one piece when the job ends. */
#include "convert.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void help_convert(FILE *out)
{
    fprintf(out, "Usage: ganim convert INPUT... -o OUTPUT [OPTIONS]\n"
                 "\n"
                 "Convert animation files. INPUTs are files or directories (their files, or the\n"
                 "whole tree with -r; files are picked by content or by a known extension, and\n"
                 "companion skeletons found there are skipped when their animations are present).\n"
                 "\n"
                 "The output kind comes from --to or from OUTPUT's extension: .glb, .gltf (+ .bin\n"
                 "next to it), .bvh, .json (the lossless dump), or a writable format's extension\n"
                 "(ganim formats); an extension none of them knows is an error unless --to is\n"
                 "given. With no extension and no --to, a file is written back in its own format.\n"
                 "With several inputs or a directory, OUTPUT is a directory (created; default kind\n"
                 "glb) and each output is named <input stem>.<ext>; with -r the input folders are\n"
                 "mirrored under it. Existing outputs are kept unless --force; an input is never\n"
                 "overwritten. '-' as INPUT reads standard input, '-o -' writes one output to\n"
                 "standard output.\n"
                 "\n"
                 "Options:\n"
                 "  -o, --output PATH    output file, or directory for several inputs\n"
                 "  --to KIND            glb, gltf, bvh, json, or a format name (ganim formats)\n"
                 "  -r, --recursive      descend into subdirectories of directory inputs\n"
                 "  --skeleton FILE      take the skeleton from FILE (any file with bones); without\n"
                 "                       it each format's rule finds the companion (listed below)\n"
                 "  --no-companion       do not look for companion skeletons\n"
                 "  --format NAME        read the inputs as NAME instead of detecting it\n"
                 "  --clip N|NAME|all    only clip N (from 0, as in ganim info) or the clip named\n"
                 "                       NAME; 'all' for BVH writes one file per clip,\n"
                 "                       <stem>_<clip>.bvh (default: every clip; BVH: the first)\n"
                 "  --fps F              play the clips at F frames per second (glTF input: put\n"
                 "                       its key times on frames of that rate)\n"
                 "  --resample K         insert K-1 interpolated frames between frames (fps x K)\n"
                 "  --scale S            multiply translations by S (exports)\n"
                 "  --keep-axes          keep the file's axes instead of turning them to +Y up\n"
                 "  --up y|z|y-down      which way is up in the input, when the format does not say\n"
                 "                       (default: the reader's, see ganim info)\n"
                 "  --bvh-order ORDER    BVH rotation channel order for every joint, e.g. ZXY;\n"
                 "                       default: ZXY, or per joint an order clear of gimbal lock\n"
                 "  --bvh-joint-positions  BVH: position channels on every joint with an animated\n"
                 "                       translation (default: roots and joints moved off their rest)\n"
                 "  --sparse-keys        glTF: key only what each clip animates (default: every\n"
                 "                       joint in every animation, its rest value where unmoved)\n"
                 "  -O, --option NAME=VALUE  a format's reader or writer option (listed below\n"
                 "                       and by ganim formats); may be repeated\n"
                 "  -j, --jobs N         convert N files at once (0: one per processor)\n"
                 "  -f, --force          replace existing output files\n"
                 "  -q, --quiet          no warnings, no summary line (errors are still printed)\n"
                 "  -v, --verbose        say what was read (format, skeleton) and written\n"
                 "  -h, --help           show this help\n"
                 "\n"
                 "A progress bar is shown on a terminal; the last line is always\n"
                 "  converted N files (M failed) in X.XX s\n"
                 "and the exit status is 1 if any input failed (the others are still converted).\n"
                 "\n"
                 "Examples:\n"
                 "  ganim convert MODEL_DIE_00.ala -o die.glb\n"
                 "  ganim convert walk.anim -o walk.gltf --fps 60\n"
                 "  ganim convert pack -o pack.bvh --clip all --bvh-order XYZ\n"
                 "  ganim convert pack -o pack.new --to FORMAT --resample 4\n"
                 "  ganim convert anims/ -r -o out/ --to glb -j 4\n");
    cli_help_formats(out);
}

enum {
    OPT_OUTPUT = 1,
    OPT_TO,
    OPT_RECURSIVE,
    OPT_SKELETON,
    OPT_NO_COMPANION,
    OPT_FORMAT,
    OPT_CLIP,
    OPT_FPS,
    OPT_RESAMPLE,
    OPT_SCALE,
    OPT_KEEP_AXES,
    OPT_UP,
    OPT_BVH_ORDER,
    OPT_BVH_JOINT_POS,
    OPT_SPARSE_KEYS,
    OPT_SETTING,
    OPT_JOBS,
    OPT_FORCE,
    OPT_QUIET,
    OPT_VERBOSE,
    OPT_HELP,
    OPT_ALIAS = 1000
};
static const cli_option options[] = {
    { "output", 'o', 1, OPT_OUTPUT },
    { "to", 0, 1, OPT_TO },
    { "recursive", 'r', 0, OPT_RECURSIVE },
    { "skeleton", 0, 1, OPT_SKELETON },
    { "no-companion", 0, 0, OPT_NO_COMPANION },
    { "format", 0, 1, OPT_FORMAT },
    { "clip", 0, 1, OPT_CLIP },
    { "fps", 0, 1, OPT_FPS },
    { "resample", 0, 1, OPT_RESAMPLE },
    { "scale", 0, 1, OPT_SCALE },
    { "keep-axes", 0, 0, OPT_KEEP_AXES },
    { "up", 0, 1, OPT_UP },
    { "bvh-order", 0, 1, OPT_BVH_ORDER },
    { "bvh-joint-positions", 0, 0, OPT_BVH_JOINT_POS },
    { "sparse-keys", 0, 0, OPT_SPARSE_KEYS },
    { "option", 'O', 1, OPT_SETTING },
    { "jobs", 'j', 1, OPT_JOBS },
    { "force", 'f', 0, OPT_FORCE },
    { "quiet", 'q', 0, OPT_QUIET },
    { "verbose", 'v', 0, OPT_VERBOSE },
    { "help", 'h', 0, OPT_HELP },
    { NULL, 0, 0, 0 },
};

/* ---- the command ------------------------------------------------------------------- */

static int parse_kind(settings *s, const char *to)
{
    if (convert_kind_from_name(to, &s->kind) == 0) return 0;
    const ganim_format *f = ganim_format_find(to);
    if (!f)
        return cli_usage("convert",
                         "unknown output kind '%s': glb, gltf, bvh, json or a format "
                         "name (see 'ganim formats')",
                         to);
    if (!(f->flags & GANIM_FORMAT_WRITE))
        return cli_usage("convert", "ganim cannot write %s files (see 'ganim formats')", f->name);
    s->kind = KIND_FORMAT;
    s->format = f;
    return 0;
}

int cmd_convert(int argc, char **argv)
{
    cli_args a = { "convert", argc, argv, 1, 0, 0 };
    settings s;
    memset(&s, 0, sizeof s);
    const char **args = cli_xmalloc((size_t)argc * sizeof *args);
    size_t arg_count = 0;
    const char *to = NULL, *skeleton_path = NULL, *format_name = NULL, *v;
    int recursive = 0, find_companion = 1, id;
    unsigned long jobs_n = 1, u;
    s.load.find_companion = 1;
    int rc = CLI_EXIT_USAGE;
#define USAGE(...)                              \
    do {                                        \
        rc = cli_usage("convert", __VA_ARGS__); \
        goto done_args;                         \
    } while (0)
    cli_option *table = cli_options_with_aliases(options, OPT_ALIAS); /* and the formats' aliases */
    while ((id = cli_next(&a, table, &v)) != CLI_ARG_END) {
        switch (id) {
        case CLI_ARG_ERROR: goto done_args;
        case CLI_ARG_POSITIONAL: args[arg_count++] = v; break;
        case OPT_OUTPUT: s.output = v; break;
        case OPT_TO: to = v; break;
        case OPT_RECURSIVE: recursive = 1; break;
        case OPT_SKELETON: skeleton_path = v; break;
        case OPT_NO_COMPANION: find_companion = 0; break;
        case OPT_FORMAT: format_name = v; break;
        case OPT_CLIP:
            if (!*v) USAGE("--clip wants a number, a name or 'all'");
            s.clip = v;
            break;
        case OPT_FPS:
            if (cli_parse_double(v, &s.fps) != 0 || !(s.fps >= GANIM_MIN_FPS && s.fps <= GANIM_MAX_FPS))
                USAGE("--fps wants a frame rate from %g to %g frames per second, not '%s'", GANIM_MIN_FPS,
                      GANIM_MAX_FPS, v);
            s.has_fps = 1;
            s.load.fps = s.fps;
            break;
        case OPT_RESAMPLE:
            if (cli_parse_uint(v, 1, 1000, &u) != 0) USAGE("--resample wants a factor from 1 to 1000, not '%s'", v);
            s.resample = (unsigned)u;
            break;
        case OPT_SCALE: {
            double d;
            if (cli_parse_double(v, &d) != 0 || d == 0 || d > 1e30 || d < -1e30)
                USAGE("--scale wants a non-zero number, not '%s'", v);
            s.scale = (float)d;
            s.export_only_options = 1;
            break;
        }
        case OPT_KEEP_AXES:
            s.keep_axes = 1;
            s.export_only_options = 1;
            break;
        case OPT_BVH_JOINT_POS:
            s.bvh_joint_positions = 1;
            s.export_only_options = 1;
            break;
        case OPT_SPARSE_KEYS:
            s.sparse_keys = 1;
            s.export_only_options = 1;
            break;
        case OPT_UP:
            if (!(s.load.up = cli_parse_up(v))) USAGE("--up wants y, z or y-down, not '%s'", v);
            break;
        case OPT_BVH_ORDER: {
            static const char *const orders[] = { "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX" };
            int ok = 0;
            for (int i = 0; i < 6; i++)
                if (cli_strcaseeq(v, orders[i])) {
                    s.bvh_order = orders[i];
                    ok = 1;
                }
            if (!ok) USAGE("--bvh-order wants XYZ, XZY, YXZ, YZX, ZXY or ZYX, not '%s'", v);
            s.export_only_options = 1;
            break;
        }
        case OPT_SETTING:
            if ((rc = cli_settings_add(&s.settings, "convert", v)) != 0) goto done_args;
            rc = CLI_EXIT_USAGE;
            break;
        case OPT_JOBS:
            if (cli_parse_uint(v, 0, 256, &jobs_n) != 0) USAGE("--jobs wants a number from 0 to 256, not '%s'", v);
            break;
        case OPT_FORCE: s.force = 1; break;
        case OPT_QUIET: s.quiet = 1; break;
        case OPT_VERBOSE: s.verbose = 1; break;
        case OPT_HELP:
            help_convert(stdout);
            cli_settings_free(&s.settings);
            free(args);
            free(table);
            return CLI_EXIT_OK;
        default:
            if ((rc = cli_settings_add_alias(&s.settings, "convert", id - OPT_ALIAS, v)) != 0) goto done_args;
            rc = CLI_EXIT_USAGE;
            break;
        }
    }
    if (!arg_count) USAGE("no input");
    if (!s.output) USAGE("no output: add -o FILE or -o DIRECTORY");
    if (!*s.output) USAGE("the output name is empty");
    if (format_name && !(s.load.format = ganim_format_find(format_name)))
        USAGE("unknown format '%s' (see 'ganim formats')", format_name);
    s.load.find_companion = find_companion;
    s.load.settings = &s.settings;

    /* Is OUTPUT a directory? */
    size_t olen = strlen(s.output);
    int any_dir = 0, to_stdout = strcmp(s.output, "-") == 0;
    for (size_t i = 0; i < arg_count; i++) any_dir |= cli_is_dir(args[i]);
    if (to_stdout && (arg_count > 1 || any_dir))
        USAGE("-o - (standard output) takes the output of one input file, not of several");
    s.out_is_dir = !to_stdout && (arg_count > 1 || any_dir || cli_is_sep(s.output[olen - 1]) || cli_is_dir(s.output));
    if (s.out_is_dir && cli_exists(s.output) && !cli_is_dir(s.output))
        USAGE("%s is not a directory (with several inputs or a directory, -o names a directory)", s.output);
    if (s.out_is_dir && !cli_exists(s.output) && convert_kind_from_name(cli_extension(s.output), &s.kind) == 0)
        USAGE("with several inputs or a directory, -o names a directory, not a %s file; "
              "use -o DIR --to %s",
              cli_extension(s.output), cli_extension(s.output) + 1);

    /* What to write. */
    if (to) {
        if (parse_kind(&s, to) != 0) goto done_args;
    } else if (s.out_is_dir) {
        s.kind = KIND_GLB;
    } else if (convert_kind_from_name(cli_extension(s.output), &s.kind) != 0) {
        const ganim_format *f = ganim_format_for_path(s.output);
        const char *ext = cli_extension(s.output);
        if (!f && *ext) { /* a typo (berth.gbl) must not write the input's own format */
            cli_str known = { 0 };
            convert_known_extensions(&known);
            rc = cli_usage("convert",
                           "no exporter or format writes '%s' files (%s): the known ones are %s; or say "
                           "what to write with --to",
                           ext, s.output, known.s);
            cli_str_free(&known);
            goto done_args;
        }
        if (f && !(f->flags & GANIM_FORMAT_WRITE)) USAGE("ganim cannot write %s files (see 'ganim formats')", f->name);
        s.kind = f ? KIND_FORMAT : KIND_NATIVE; /* no extension at all: the input's own format */
        s.format = f;
    }
    if (to_stdout && s.kind == KIND_GLTF)
        USAGE("a .gltf is two files (.gltf and .bin): it cannot go to standard output; use --to glb");
    if (s.kind == KIND_FORMAT) {
        if (s.export_only_options)
            USAGE("--scale, --keep-axes and --bvh-order apply to exports (glb, gltf, bvh, json), not to %s",
                  s.format->name);
        if (s.clip && !cli_strcaseeq(s.clip, "all"))
            USAGE("--clip selects clips for exports; a %s file is written whole", s.format->name);
    }
    if (cli_settings_has(&s.settings, GANIM_OPTION_WRITE) && s.kind != KIND_FORMAT && s.kind != KIND_NATIVE)
        USAGE("writer options (-O) apply when writing a game format, not to exports");
    if (s.kind == KIND_FORMAT && cli_settings_foreign(&s.settings, s.format))
        USAGE("option %s is not an option of %s (ganim formats lists each format's options)",
              cli_settings_foreign(&s.settings, s.format), s.format->name);
    rc = CLI_EXIT_OK;
done_args:
#undef USAGE
    free(table);
    if (rc != CLI_EXIT_OK) {
        cli_settings_free(&s.settings);
        free(args);
        return rc;
    }

    double start = cli_now();
    rc = CLI_EXIT_OK;
    ganim_doc *skeleton_doc = NULL;
    if (skeleton_path) {
        if (!(skeleton_doc = cli_load_skeleton(skeleton_path))) {
            cli_settings_free(&s.settings);
            free(args);
            return CLI_EXIT_FAILED;
        }
        s.load.skeleton = skeleton_doc->skeleton;
    }

    /* Inputs. */
    /* An input that gives nothing to convert (an unreadable or empty folder) counts as a
     * failed input in the summary, which then always agrees with the exit status. */
    size_t cap = 0, empty_inputs = 0;
    for (size_t i = 0; i < arg_count; i++) {
        if (cli_is_dir(args[i])) {
            size_t before = s.job_count, subdirs = 0;
            const char *skip = s.kind == KIND_FORMAT || s.kind == KIND_NATIVE ? NULL : convert_kind_ext(s.kind);
            if (convert_scan_dir(args[i], args[i], recursive, 0, skip, &s.jobs, &s.job_count, &cap, &subdirs) != 0) {
                empty_inputs++;
            } else if (s.job_count == before) {
                cli_errorf(NULL, args[i], "no animation files found%s",
                           !recursive && subdirs ? " (its subfolders are read with -r)" : "");
                empty_inputs++;
            }
        } else {
            convert_add_job(&s.jobs, &s.job_count, &cap, args[i], NULL, 0);
        }
    }
    convert_drop_used_companions(s.jobs, &s.job_count, skeleton_path, find_companion);
    s.inputs = cli_xmalloc((s.job_count + 1) * sizeof *s.inputs);
    for (size_t i = 0; i < s.job_count; i++)
        if (convert_id_of(s.jobs[i].input, &s.inputs[s.input_count]) == 0) s.input_count++;
    if (skeleton_path) {
        s.inputs = cli_xrealloc(s.inputs, (s.input_count + 1) * sizeof *s.inputs);
        if (convert_id_of(skeleton_path, &s.inputs[s.input_count]) == 0) s.input_count++;
    }

    /* Plan the outputs; the first input keeps a name two inputs would share. */
    if (pthread_mutex_init(&s.lock, NULL) != 0) {
        cli_errorf(NULL, NULL, "cannot create a mutex");
        return CLI_EXIT_FAILED;
    }
    if (s.out_is_dir && s.job_count) {
        int e = cli_mkdirs(s.output);
        if (e) {
            cli_errorf(NULL, s.output, "cannot create directory: %s", strerror(e));
            for (size_t i = 0; i < s.job_count; i++) s.jobs[i].failed = 1;
        }
    }
    convert_plan_outputs(&s);
    for (size_t i = 0; i < s.job_count; i++) {
        job *j = &s.jobs[i];
        size_t holder;
        if (!j->failed && convert_claim_path(&s, j->output, i, &holder) != 0) {
            cli_errorf(&j->log, j->input, "output %s is also written for %s; not written", j->output,
                       s.jobs[holder].input);
            j->failed = 1;
        }
    }

    /* Convert. */
    size_t workers = jobs_n ? (size_t)jobs_n : cli_processors();
    if (workers > s.job_count) workers = s.job_count ? s.job_count : 1;
    cli_progress_start(s.job_count, !s.quiet);
    if (workers <= 1) {
        convert_worker(&s);
    } else {
        pthread_t *threads = cli_xmalloc(workers * sizeof *threads);
        size_t started = 0;
        for (; started < workers; started++)
            if (pthread_create(&threads[started], NULL, convert_worker, &s) != 0) break;
        if (!started) convert_worker(&s); /* no threads to be had: do it here */
        for (size_t i = 0; i < started; i++) pthread_join(threads[i], NULL);
        free(threads);
    }
    cli_progress_end();

    size_t failed = s.failed + empty_inputs;
    if (failed) rc = CLI_EXIT_FAILED;
    if (!s.quiet) {
        char line[128];
        int n = snprintf(line, sizeof line, "converted %zu file%s (%zu failed) in %.2f s\n", s.job_count - s.failed,
                         s.job_count - s.failed == 1 ? "" : "s", failed, cli_now() - start);
        if (n > 0) cli_stderr_write(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }

    for (size_t i = 0; i < s.job_count; i++) {
        free(s.jobs[i].input);
        free(s.jobs[i].subdir);
        free(s.jobs[i].output);
        cli_str_free(&s.jobs[i].log.text);
    }
    for (size_t i = 0; i < s.claim_count; i++) free(s.claims[i].path);
    free(s.claims);
    free(s.jobs);
    free(s.inputs);
    pthread_mutex_destroy(&s.lock);
    ganim_doc_free(skeleton_doc);
    cli_settings_free(&s.settings);
    free(args);
    return rc;
}
