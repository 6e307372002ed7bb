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
                 "  --into ORIGINAL      put the input's clips into a copy of the game file ORIGINAL\n"
                 "                       and write that (in ORIGINAL's format): clips are matched by\n"
                 "                       the names ganim's export gave them (body_3+weapon_9, an\n"
                 "                       ALA's one clip), sampled at ORIGINAL's rate; everything the\n"
                 "                       edit does not replace stays byte for byte (docs/roundtrip.md)\n"
                 "  --slot N|NAME        with --into: the clip of ORIGINAL (from 0, as in ganim info)\n"
                 "                       the input's one animation goes into, with its partner\n"
                 "  -r, --recursive      descend into subdirectories of directory inputs\n"
                 "  --skeleton FILE      take the skeleton from FILE (any file with bones); without\n"
                 "                       it each format's rule finds the companion (listed below)\n"
                 "  --no-companion       do not look for companion skeletons\n"
                 "  --format NAME        read the inputs as NAME instead of detecting it\n"
                 "  --clip N|NAME|all    only clip N (from 0, as in ganim info) or the clip named\n"
                 "                       NAME; 'all' for BVH writes one file per clip,\n"
                 "                       <stem>_<clip>.bvh (default: every clip; BVH: the first);\n"
                 "                       with --into, the input's one clip to put back\n"
                 "  --fps F              play the clips at F frames per second (glTF input: put\n"
                 "                       its key times on frames of that rate); without it a game\n"
                 "                       format written gets its own rate (FF7: 15), --into the\n"
                 "                       original clip's, each over the clip's duration\n"
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
                 "  --unscaled-rest      glTF: the rest pose without its scales (the animations\n"
                 "                       keep them), for Blender's importer (docs/clients.md)\n");
    fprintf(out, "  -O, --option NAME=VALUE  a format's reader or writer option (listed below\n"
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
                 "  ganim convert edited.glb --into rtda -o rtda.new\n"
                 "  ganim convert swing.glb --into rtda --slot 3 -o rtda.new\n"
                 "  ganim convert anims/ -r -o out/ --to glb -j 4\n");
    cli_help_formats(out);
}

enum {
    OPT_OUTPUT = 1,
    OPT_TO,
    OPT_INTO,
    OPT_SLOT,
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
    OPT_UNSCALED_REST,
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
    { "into", 0, 1, OPT_INTO },
    { "slot", 0, 1, OPT_SLOT },
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
    { "unscaled-rest", 0, 0, OPT_UNSCALED_REST },
    { "option", 'O', 1, OPT_SETTING },
    { "jobs", 'j', 1, OPT_JOBS },
    { "force", 'f', 0, OPT_FORCE },
    { "quiet", 'q', 0, OPT_QUIET },
    { "verbose", 'v', 0, OPT_VERBOSE },
    { "help", 'h', 0, OPT_HELP },
    { NULL, 0, 0, 0 },
};

/* ---- the command ------------------------------------------------------------------- */

/* Everything one run of the command holds, released by command_free. */
typedef struct command {
    settings s;
    const char **args; /* the inputs as given */
    size_t arg_count;
    const char *to, *skeleton_path, *format_name, *into_path;
    int recursive, find_companion, to_stdout, have_lock;
    unsigned long jobs_n;
    cli_option *table;
    ganim_doc *skeleton_doc; /* --skeleton */
    cli_loaded into;         /* --into */
    size_t empty_inputs;     /* inputs that gave nothing to convert */
} command;

static void command_free(command *c)
{
    settings *s = &c->s;
    for (size_t i = 0; i < s->job_count; i++) {
        free(s->jobs[i].input);
        free(s->jobs[i].subdir);
        free(s->jobs[i].output);
        cli_str_free(&s->jobs[i].log.text);
    }
    for (size_t i = 0; i < s->claim_count; i++) free(s->claims[i].path);
    free(s->claims);
    free(s->jobs);
    convert_folders_free(s);
    free(s->inputs);
    if (c->have_lock) pthread_mutex_destroy(&s->lock);
    ganim_doc_free(c->skeleton_doc);
    cli_loaded_free(&c->into);
    cli_settings_free(&s->settings);
    free(c->table);
    free(c->args);
}

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

#define USAGE(...) return cli_usage("convert", __VA_ARGS__)

/* An option that only exports take: remembered by name for the message that refuses it
 * when a game format is written. */
static void export_only(settings *s, const char *name)
{
    if (!s->export_only) s->export_only = name;
}

/* One option of the command line; CLI_EXIT_OK, or the exit status (a usage message was
 * printed). *help is set by --help. */
static int parse_option(command *c, int id, const char *v, int *help)
{
    settings *s = &c->s;
    unsigned long u;
    switch (id) {
    case CLI_ARG_POSITIONAL: c->args[c->arg_count++] = v; break;
    case OPT_OUTPUT: s->output = v; break;
    case OPT_TO: c->to = v; break;
    case OPT_INTO: c->into_path = v; break;
    case OPT_SLOT:
        if (!*v) USAGE("--slot wants a clip number or name");
        s->slot = v;
        break;
    case OPT_RECURSIVE: c->recursive = 1; break;
    case OPT_SKELETON: c->skeleton_path = v; break;
    case OPT_NO_COMPANION: c->find_companion = 0; break;
    case OPT_FORMAT: c->format_name = v; break;
    case OPT_CLIP:
        if (!*v) USAGE("--clip wants a number, a name or 'all'");
        s->clip = v;
        break;
    case OPT_FPS:
        if (cli_parse_double(v, &s->fps) != 0 || !(s->fps >= GANIM_MIN_FPS && s->fps <= GANIM_MAX_FPS))
            USAGE("--fps wants a frame rate from %g to %g frames per second, not '%s'", GANIM_MIN_FPS, GANIM_MAX_FPS,
                  v);
        s->has_fps = 1;
        s->load.fps = s->fps;
        break;
    case OPT_RESAMPLE:
        if (cli_parse_uint(v, 1, 1000, &u) != 0) USAGE("--resample wants a factor from 1 to 1000, not '%s'", v);
        s->resample = (unsigned)u;
        break;
    case OPT_SCALE: {
        double d;
        if (cli_parse_double(v, &d) != 0 || d == 0 || d > 1e30 || d < -1e30)
            USAGE("--scale wants a non-zero number, not '%s'", v);
        s->scale = (float)d;
        export_only(s, "--scale");
        break;
    }
    case OPT_KEEP_AXES:
        s->keep_axes = 1;
        export_only(s, "--keep-axes");
        break;
    case OPT_BVH_JOINT_POS:
        s->bvh_joint_positions = 1;
        export_only(s, "--bvh-joint-positions");
        break;
    case OPT_SPARSE_KEYS:
        s->sparse_keys = 1;
        export_only(s, "--sparse-keys");
        break;
    case OPT_UNSCALED_REST:
        s->unscaled_rest = 1;
        export_only(s, "--unscaled-rest");
        break;
    case OPT_UP:
        if (!(s->load.up = cli_parse_up(v))) USAGE("--up wants y, z or y-down, not '%s'", v);
        break;
    case OPT_BVH_ORDER: {
        static const char *const orders[] = { "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX" };
        int ok = 0;
        for (int i = 0; i < 6; i++)
            if (cli_strcaseeq(v, orders[i])) {
                s->bvh_order = orders[i];
                ok = 1;
            }
        if (!ok) USAGE("--bvh-order wants XYZ, XZY, YXZ, YZX, ZXY or ZYX, not '%s'", v);
        export_only(s, "--bvh-order");
        break;
    }
    case OPT_SETTING: return cli_settings_add(&s->settings, "convert", v);
    case OPT_JOBS:
        if (cli_parse_uint(v, 0, 256, &c->jobs_n) != 0) USAGE("--jobs wants a number from 0 to 256, not '%s'", v);
        break;
    case OPT_FORCE: s->force = 1; break;
    case OPT_QUIET: s->quiet = 1; break;
    case OPT_VERBOSE: s->verbose = 1; break;
    case OPT_HELP: *help = 1; break;
    default: return cli_settings_add_alias(&s->settings, "convert", id - OPT_ALIAS, v);
    }
    return CLI_EXIT_OK;
}

/* The command line into `c`: inputs, output and options, each checked on its own. */
static int parse_command(command *c, int argc, char **argv, int *help)
{
    cli_args a = { "convert", argc, argv, 1, 0, 0 };
    c->args = cli_xmalloc((size_t)argc * sizeof *c->args);
    c->find_companion = 1;
    c->jobs_n = 1;
    c->table = cli_options_with_aliases(options, OPT_ALIAS); /* and the formats' aliases */
    const char *v;
    int id;
    while ((id = cli_next(&a, c->table, &v)) != CLI_ARG_END) {
        if (id == CLI_ARG_ERROR) return CLI_EXIT_USAGE;
        int rc = parse_option(c, id, v, help);
        if (rc != CLI_EXIT_OK || *help) return rc;
    }
    settings *s = &c->s;
    if (!c->arg_count) USAGE("no input");
    if (!s->output) USAGE("no output: add -o FILE or -o DIRECTORY");
    if (!*s->output) USAGE("the output name is empty");
    if (c->format_name && !(s->load.format = ganim_format_find(c->format_name)))
        USAGE("unknown format '%s' (see 'ganim formats')", c->format_name);
    if (s->slot && !c->into_path) USAGE("--slot names a clip of the original given with --into");
    s->load.find_companion = c->find_companion;
    s->load.settings = &s->settings;
    return CLI_EXIT_OK;
}

/* Is OUTPUT a directory? */
static int place_output(command *c)
{
    settings *s = &c->s;
    if (!s->output || !*s->output) USAGE("no output: add -o FILE or -o DIRECTORY"); /* parse_command said so */
    size_t olen = strlen(s->output);
    int any_dir = 0;
    c->to_stdout = strcmp(s->output, "-") == 0;
    for (size_t i = 0; i < c->arg_count; i++) any_dir |= cli_is_dir(c->args[i]);
    if (c->to_stdout && (c->arg_count > 1 || any_dir))
        USAGE("-o - (standard output) takes the output of one input file, not of several");
    if (c->into_path && (c->arg_count > 1 || any_dir))
        USAGE("--into puts the clips of one input file into the original, not of several");
    s->out_is_dir =
        !c->to_stdout && (c->arg_count > 1 || any_dir || cli_is_sep(s->output[olen - 1]) || cli_is_dir(s->output));
    if (c->into_path && s->out_is_dir) USAGE("with --into, -o names the file to write, not a directory");
    if (s->out_is_dir && cli_exists(s->output) && !cli_is_dir(s->output))
        USAGE("%s is not a directory (with several inputs or a directory, -o names a directory)", s->output);
    if (s->out_is_dir && !cli_exists(s->output) && convert_kind_from_name(cli_extension(s->output), &s->kind) == 0)
        USAGE("with several inputs or a directory, -o names a directory, not a %s file; "
              "use -o DIR --to %s",
              cli_extension(s->output), cli_extension(s->output) + 1);
    return CLI_EXIT_OK;
}

/* --into: the output is the original's format; --to and OUTPUT's extension may only agree. */
static int choose_into_kind(command *c)
{
    settings *s = &c->s;
    const ganim_format *f = s->into->format;
    if (!f || !(f->flags & GANIM_FORMAT_WRITE))
        USAGE("--into %s: ganim cannot write %s files (see 'ganim formats')", c->into_path, f ? f->name : "its");
    if (c->to) {
        out_kind k;
        if (convert_kind_from_name(c->to, &k) == 0 || ganim_format_find(c->to) != f)
            USAGE("--into writes %s's format (%s), not --to %s", c->into_path, f->name, c->to);
    }
    const char *ext = cli_extension(s->output);
    const ganim_format *by_ext = ganim_format_for_path(s->output);
    out_kind k;
    if (convert_kind_from_name(ext, &k) == 0 || (by_ext && by_ext != f))
        USAGE("--into writes %s's format (%s), not a %s file", c->into_path, f->name, ext);
    s->kind = KIND_FORMAT;
    s->format = f;
    return CLI_EXIT_OK;
}

/* What to write: --to, else OUTPUT's extension, else the input's own format. */
static int choose_kind(command *c)
{
    settings *s = &c->s;
    if (s->into) return choose_into_kind(c);
    if (c->to) return parse_kind(s, c->to);
    if (s->out_is_dir) {
        s->kind = KIND_GLB;
        return CLI_EXIT_OK;
    }
    if (convert_kind_from_name(cli_extension(s->output), &s->kind) == 0) return CLI_EXIT_OK;
    const ganim_format *f = ganim_format_for_path(s->output);
    const char *ext = cli_extension(s->output);
    if (!f && *ext) { /* a typo (berth.gbl) must not write the input's own format */
        cli_str known = { 0 };
        convert_known_extensions(&known);
        int rc = cli_usage("convert",
                           "no exporter or format writes '%s' files (%s): the known ones are %s; or say "
                           "what to write with --to",
                           ext, s->output, known.s);
        cli_str_free(&known);
        return rc;
    }
    if (f && !(f->flags & GANIM_FORMAT_WRITE)) USAGE("ganim cannot write %s files (see 'ganim formats')", f->name);
    s->kind = f ? KIND_FORMAT : KIND_NATIVE; /* no extension at all: the input's own format */
    s->format = f;
    return CLI_EXIT_OK;
}

/* Options that do not fit what is written. */
static int check_options(command *c)
{
    settings *s = &c->s;
    if (c->to_stdout && s->kind == KIND_GLTF)
        USAGE("a .gltf is two files (.gltf and .bin): it cannot go to standard output; use --to glb");
    if (s->kind == KIND_FORMAT) {
        if (s->export_only)
            USAGE("%s applies to exports (glb, gltf, bvh, json), not to %s", s->export_only, s->format->name);
        if (s->clip && !cli_strcaseeq(s->clip, "all") && !s->into)
            USAGE("--clip selects clips for exports; a %s file is written whole", s->format->name);
    }
    int exports = s->kind != KIND_FORMAT && s->kind != KIND_NATIVE;
    cli_str why = { 0 };
    const char *writes = exports ? convert_kind_ext(s->kind) + 1 : s->format ? s->format->name : "the input's format";
    if (cli_settings_misplaced(&s->settings, s->load.format, s->kind == KIND_FORMAT ? s->format : NULL, exports, writes,
                               &why)) {
        int rc = cli_usage("convert", "%s", why.s);
        cli_str_free(&why);
        return rc;
    }
    return CLI_EXIT_OK;
}

#undef USAGE

/* --skeleton and --into, read once for every input. */
static int load_shared(command *c)
{
    settings *s = &c->s;
    if (c->skeleton_path) {
        if (!(c->skeleton_doc = cli_load_skeleton(c->skeleton_path))) return CLI_EXIT_FAILED;
        s->load.skeleton = c->skeleton_doc->skeleton;
    }
    if (c->into_path) {
        cli_load_opts lo = s->load;
        lo.fps = 0; /* --fps is the inputs' */
        if (cli_load(c->into_path, &lo, &c->into, NULL) != 0) return CLI_EXIT_FAILED;
        s->into = c->into.doc;
    }
    return CLI_EXIT_OK;
}

/* Adds the identity of `path` and of the files its read used to the files never written. */
static void protect(settings *s, const char *path, const ganim_doc *doc)
{
    size_t more = 1 + (doc ? doc->used_file_count : 0);
    s->inputs = cli_xrealloc(s->inputs, (s->input_count + more) * sizeof *s->inputs);
    if (convert_id_of(path, &s->inputs[s->input_count]) == 0) s->input_count++;
    for (uint32_t i = 0; doc && i < doc->used_file_count; i++)
        if (convert_id_of(doc->used_files[i], &s->inputs[s->input_count]) == 0) s->input_count++;
}

/* The jobs: files given, files of the folders given. An input that gives nothing to
 * convert (an unreadable or empty folder) counts as a failed input in the summary, which
 * then always agrees with the exit status. */
static void collect_inputs(command *c)
{
    settings *s = &c->s;
    size_t cap = 0;
    for (size_t i = 0; i < c->arg_count; i++) {
        if (cli_is_dir(c->args[i])) {
            size_t before = s->job_count, subdirs = 0;
            const char *skip = s->kind == KIND_FORMAT || s->kind == KIND_NATIVE ? NULL : convert_kind_ext(s->kind);
            if (convert_scan_dir(c->args[i], c->args[i], c->recursive, 0, skip, &s->jobs, &s->job_count, &cap,
                                 &subdirs) != 0) {
                c->empty_inputs++;
            } else if (s->job_count == before) {
                cli_errorf(NULL, c->args[i], "no animation files found%s",
                           !c->recursive && subdirs ? " (its subfolders are read with -r)" : "");
                c->empty_inputs++;
            }
        } else {
            convert_add_job(&s->jobs, &s->job_count, &cap, c->args[i], NULL, 0);
        }
    }
    convert_drop_used_companions(s, c->skeleton_path, c->find_companion);
    s->inputs = cli_xmalloc((s->job_count + 1) * sizeof *s->inputs);
    for (size_t i = 0; i < s->job_count; i++)
        if (convert_id_of(s->jobs[i].input, &s->inputs[s->input_count]) == 0) s->input_count++;
    if (c->skeleton_path) protect(s, c->skeleton_path, NULL);
    if (c->into_path) protect(s, c->into_path, s->into);
}

/* One output per job; the first input keeps a name two inputs would share. */
static int plan_outputs(command *c)
{
    settings *s = &c->s;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        cli_errorf(NULL, NULL, "cannot create a mutex");
        return CLI_EXIT_FAILED;
    }
    c->have_lock = 1;
    if (s->out_is_dir && s->job_count) {
        int e = cli_mkdirs(s->output);
        if (e) {
            cli_errorf(NULL, s->output, "cannot create directory: %s", strerror(e));
            for (size_t i = 0; i < s->job_count; i++) s->jobs[i].failed = 1;
        }
    }
    convert_plan_outputs(s);
    for (size_t i = 0; i < s->job_count; i++) {
        job *j = &s->jobs[i];
        size_t holder;
        if (!j->failed && convert_claim_path(s, j->output, i, &holder) != 0) {
            cli_errorf(&j->log, j->input, "output %s is also written for %s; not written", j->output,
                       s->jobs[holder].input);
            j->failed = 1;
        }
    }
    return CLI_EXIT_OK;
}

/* The jobs, on -j worker threads (here when there are no threads to be had). */
static void run_jobs(command *c)
{
    settings *s = &c->s;
    size_t workers = c->jobs_n ? (size_t)c->jobs_n : cli_processors();
    if (workers > s->job_count) workers = s->job_count ? s->job_count : 1;
    cli_progress_start(s->job_count, !s->quiet);
    if (s->job_count > 1) cli_batch_memory();
    if (workers <= 1) {
        convert_worker(s);
    } else {
        pthread_t *threads = cli_xmalloc(workers * sizeof *threads);
        size_t started = 0;
        for (; started < workers; started++)
            if (pthread_create(&threads[started], NULL, convert_worker, s) != 0) break;
        if (!started) convert_worker(s);
        for (size_t i = 0; i < started; i++) pthread_join(threads[i], NULL);
        free(threads);
    }
    cli_progress_end();
}

/* "converted N files (M failed) in X.XX s" and the exit status. */
static int summary(const command *c, double start)
{
    const settings *s = &c->s;
    size_t failed = s->failed + c->empty_inputs;
    if (!s->quiet) {
        char line[128];
        int n = snprintf(line, sizeof line, "converted %zu file%s (%zu failed) in %.2f s\n", s->job_count - s->failed,
                         s->job_count - s->failed == 1 ? "" : "s", failed, cli_now() - start);
        if (n > 0) cli_stderr_write(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
    return failed ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

int cmd_convert(int argc, char **argv)
{
    command c;
    memset(&c, 0, sizeof c);
    int help = 0, rc = parse_command(&c, argc, argv, &help);
    if (rc == CLI_EXIT_OK && help) help_convert(stdout);
    if (rc == CLI_EXIT_OK && !help) rc = place_output(&c);
    double start = cli_now();
    if (rc == CLI_EXIT_OK && !help && c.into_path) rc = load_shared(&c); /* its format is the output's */
    if (rc == CLI_EXIT_OK && !help) rc = choose_kind(&c);
    if (rc == CLI_EXIT_OK && !help) rc = check_options(&c);
    if (rc == CLI_EXIT_OK && !help && !c.into_path) rc = load_shared(&c);
    if (rc == CLI_EXIT_OK && !help) {
        collect_inputs(&c);
        rc = plan_outputs(&c);
    }
    if (rc == CLI_EXIT_OK && !help) {
        run_jobs(&c);
        rc = summary(&c, start);
    }
    command_free(&c);
    return rc;
}
